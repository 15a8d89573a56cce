#include "app/command_line.h"

#include "app/cli.h"
#include "core/echo.h"
#include "core/fields.h"
#include "io/input_file.h"
#include "io/scenario_io.h"
#include "io/text.h"

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

int parseStandard(QCommandLineParser &parser, const StandardOptions &options,
                  const QStringList &arguments, const QString &extraHelp)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    if (!parser.parse(arguments))
        return fail(QString(), parser.errorText());
    QTextStream out(stdout);
    if (parser.isSet(options.help)) {
        out << parser.helpText() << extraHelp;
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
