#include "app/command_line.h"

#include "app/cli.h"
#include "core/echo.h"
#include "core/fields.h"
#include "io/input_file.h"
#include "io/scenario_io.h"
#include "io/text.h"

#include <QCoreApplication>
#include <QTextStream>

namespace cli {

int fail(const QString &key, const QString &message)
{
    const QString line = key.isEmpty() ? message : key + QStringLiteral(": ") + message;
    QTextStream err(stderr);
    err << "parascope: " << io::qs(core::escapeControls(line.toStdString())) << Qt::endl;
    return invalidInput;
}

int fail(const core::InputError &error)
{
    return fail(QString(), io::qs(error.toString()));
}

void StandardOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOption(help);
    parser.addOption(version);
}

QCommandLineOption setOption(const QString &more)
{
    QString help = QStringLiteral("Set a scenario key (repeatable), e.g. --set tp=4; "
                                  "'parascope eval --help' lists the keys.");
    if (!more.isEmpty())
        help += QLatin1Char(' ') + more;
    return QCommandLineOption(QStringLiteral("set"), help, QStringLiteral("KEY=VALUE"));
}

namespace {

const QString kText = QStringLiteral("text");
const QString kJson = QStringLiteral("json");

// The parser's help with "Usage: parascope eval [options] ..." as its first line: Qt
// names the executable's path there, whatever the command.
QString helpText(const QCommandLineParser &parser, const QString &invocation)
{
    QString text = parser.helpText();
    const QString usage = QStringLiteral("Usage: ");
    const QString program = usage + QCoreApplication::arguments().value(0);
    if (text.startsWith(program))
        text.replace(0, program.size(), usage + invocation);
    return text;
}

} // namespace

QCommandLineOption formatOption()
{
    return QCommandLineOption(QStringLiteral("format"),
                              QStringLiteral("Output format: %1 or %2.").arg(kText, kJson),
                              kText + QLatin1Char('|') + kJson, kText);
}

int isJson(const QCommandLineParser &parser, const QCommandLineOption &format, bool &json)
{
    const QString value = parser.value(format);
    if (value != kText && value != kJson)
        return fail(QStringLiteral("--format"),
                    QStringLiteral("expected %1 or %2, got '%3'").arg(kText, kJson, value));
    json = value == kJson;
    return -1;
}

int parseStandard(QCommandLineParser &parser, const StandardOptions &options,
                  const QStringList &arguments, const QString &extraHelp)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    if (!parser.parse(arguments))
        return fail(QString(), parser.errorText());
    QTextStream out(stdout);
    if (parser.isSet(options.help)) {
        out << helpText(parser, arguments.value(0)) << extraHelp;
        return ok;
    }
    if (parser.isSet(options.version)) {
        out << "parascope " << PARASCOPE_VERSION << Qt::endl;
        return ok;
    }
    return -1;
}

int readScenario(const QCommandLineParser &parser, const QCommandLineOption &set,
                 core::Scenario &scenario)
{
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1)
        return fail(QStringLiteral("SCENARIO"),
                    QStringLiteral("expected at most one file, got %1").arg(files.size()));
    if (!files.isEmpty())
        if (auto e = io::readScenarioFile(files.constFirst(), scenario))
            return fail(*e);
    for (const QString &assignment : parser.values(set))
        if (auto e = io::applySetting(scenario, assignment))
            return fail(*e);
    return -1;
}

core::InputError fromScenario(core::InputError error, const QString &file,
                              const QStringList &assignments)
{
    const std::string field = error.key.substr(0, error.key.find_first_of(".["));
    // Only a scenario key can have come from the file (not --devices, say).
    if (file.isEmpty() || !core::findField(field))
        return error;
    for (const QString &assignment : assignments)
        if (assignment.section(QLatin1Char('='), 0, 0).trimmed().toStdString() == field)
            return error;
    return io::inFile(std::move(error), file);
}

} // namespace cli
