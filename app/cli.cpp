#include "app/cli.h"

#include "app/command_line.h"
#include "app/plan_command.h"
#include "app/shard_command.h"
#include "core/echo.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/compare.h"
#include "io/framework_config.h"
#include "io/presets_io.h"
#include "io/report_io.h"
#include "io/scenario_io.h"
#include "io/shared_options.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>
#include <cstdio>

namespace cli {

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

QString fieldList()
{
    QString text;
    for (const auto &field : core::scenarioFields()) {
        QString line = QStringLiteral("  %1").arg(io::qs(field.key), -22) + io::qs(field.help);
        const std::string allowed = core::allowedText(field);
        if (!allowed.empty())
            line += QStringLiteral(" (%1)").arg(io::qs(allowed));
        text += line + QLatin1Char('\n');
    }
    return text;
}

int loadPresets(const QCommandLineParser &parser, const QCommandLineOption &option,
                core::Presets &presets)
{
    if (auto e = io::loadPresets(presets, parser.value(option)))
        return fail(*e);
    return -1;
}

} // namespace

int runEval(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Evaluate a scenario: memory per pipeline stage against the device."));
    const QCommandLineOption presetsFile = io::presetsOption(), format = formatOption(),
                             set = setOption();
    parser.addOption(presetsFile);
    parser.addOption(format);
    parser.addOption(set);
    QCommandLineOption check(QStringLiteral("check"),
                             QStringLiteral("Exit with status 1 when the plan does not fit."));
    QCommandLineOption compare(QStringLiteral("compare"),
                               QStringLiteral("Compare with another scenario: what changed, "
                                              "field by field (--set applies to both)."),
                               QStringLiteral("OTHER"));
    parser.addOption(compare);
    QCommandLineOption timeline(
        QStringLiteral("timeline"),
        QStringLiteral("Add the schedule's timeline (every F/B/W op) to the JSON report."));
    QCommandLineOption emit(QStringLiteral("emit"),
                            QStringLiteral("Print the layout as FRAMEWORK's launch arguments "
                                           "or config (megatron, torchtitan or deepspeed) "
                                           "instead of the report."),
                            QStringLiteral("FRAMEWORK"));
    parser.addOption(check);
    parser.addOption(timeline);
    parser.addOption(emit);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file (optional)."),
                                 QStringLiteral("[SCENARIO]"));
    const StandardOptions standard;
    standard.addTo(parser);
    if (int status = parseStandard(parser, standard, arguments,
                                   QStringLiteral("\nScenario keys:\n") + fieldList());
        status >= 0)
        return status;
    bool json = false;
    if (int status = isJson(parser, format, json); status >= 0)
        return status;
    core::Presets presets;
    if (int status = loadPresets(parser, presetsFile, presets); status >= 0)
        return status;
    core::Scenario scenario;
    if (int status = readScenario(parser, set, scenario); status >= 0)
        return status;

    core::EvaluateOptions options;
    options.timeline = parser.isSet(timeline);
    const core::Report report = core::evaluate(scenario, presets, options);
    const QString file = parser.positionalArguments().value(0);
    if (report.error)
        return fail(fromScenario(*report.error, file, parser.values(set)));
    if (report.timelineRefused)
        return fail(fromScenario(*report.timelineRefused, file, parser.values(set)));
    if (parser.isSet(emit)) {
        const auto framework = core::parseEnum<core::Framework>(parser.value(emit).toStdString());
        if (!framework || *framework == core::Framework::custom)
            return fail(QStringLiteral("--emit"),
                        QStringLiteral("expected megatron, torchtitan or deepspeed, got '%1'")
                            .arg(parser.value(emit)));
        auto text = io::emitConfig(scenario, presets, *framework);
        if (auto *error = std::get_if<core::InputError>(&text))
            return fail(*error);
        out() << io::qs(std::get<std::string>(text));
        out().flush();
        return parser.isSet(check) && !report.fits ? doesNotFit : ok;
    }
    if (parser.isSet(compare)) {
        core::Scenario other;
        if (auto e = io::readScenarioFile(parser.value(compare), other)) {
            if (e->key.empty())
                e->key = "--compare";
            return fail(*e);
        }
        for (const QString &assignment : parser.values(set))
            if (auto e = io::applySetting(other, assignment))
                return fail(*e);
        const core::Report otherReport = core::evaluate(other, presets);
        if (otherReport.error)
            return fail(
                fromScenario(*otherReport.error, parser.value(compare), parser.values(set)));
        const auto scenarioJson = [](const core::Scenario &s) {
            return QJsonDocument::fromJson(io::writeScenario(s)).object();
        };
        const QJsonObject a = scenarioJson(scenario), b = scenarioJson(other);
        const QJsonObject ra = io::reportToJson(report), rb = io::reportToJson(otherReport);
        if (json)
            out() << QJsonDocument(io::comparisonToJson(a, b, ra, rb))
                         .toJson(QJsonDocument::Indented);
        else
            out() << io::comparisonToText(a, b, ra, rb);
        out().flush();
        return parser.isSet(check) && !(report.fits && otherReport.fits) ? doesNotFit : ok;
    }
    if (json)
        io::writeReportJson(report, out());
    else
        out() << io::reportToText(report);
    out().flush();
    return parser.isSet(check) && !report.fits ? doesNotFit : ok;
}

int runPresets(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the built-in model and device presets, with those of --presets FILE."));
    const QCommandLineOption presetsFile = io::presetsOption(), format = formatOption();
    parser.addOption(presetsFile);
    parser.addOption(format);
    const StandardOptions standard;
    standard.addTo(parser);
    if (int status = parseStandard(parser, standard, arguments); status >= 0)
        return status;
    bool json = false;
    if (int status = isJson(parser, format, json); status >= 0)
        return status;
    if (!parser.positionalArguments().isEmpty())
        return fail(QString(), QStringLiteral("presets takes no arguments, got %1")
                                   .arg(io::qs(core::quoted(
                                       parser.positionalArguments().constFirst().toStdString()))));
    core::Presets presets;
    if (int status = loadPresets(parser, presetsFile, presets); status >= 0)
        return status;
    if (json)
        out() << QJsonDocument(io::presetsToJson(presets)).toJson(QJsonDocument::Indented);
    else
        out() << io::presetsToText(presets);
    out().flush();
    return ok;
}

const Command *findCommand(std::span<const Command> commands, const QStringList &arguments)
{
    for (const Command &command : commands)
        if (arguments.value(1) == QLatin1String(command.name))
            return &command;
    return nullptr;
}

bool isInformational(const QStringList &arguments)
{
    for (const QString &a : arguments.mid(1)) {
        if (a == QLatin1String("-h") || a == QLatin1String("--help") || a == QLatin1String("-v") ||
            a == QLatin1String("--version"))
            return true;
    }
    return false;
}

int run(const Command &command, const QStringList &arguments)
{
    QStringList rest = arguments.mid(2);
    rest.prepend(QStringLiteral("parascope ") + QLatin1String(command.name));
    return command.run(rest);
}

int runInformational(const QStringList &arguments, std::span<const Command> commands)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Open the window on a scenario, or run a command without a display."));
    const io::WindowOptions window;
    window.addTo(parser);
    const StandardOptions standard;
    standard.addTo(parser);
    int width = 0;
    for (const Command &command : commands)
        width = std::max(width, int(qstrlen(command.name)));
    QString list = QStringLiteral("\nCommands:\n");
    for (const Command &command : commands)
        list += QStringLiteral("  %1  %2\n")
                    .arg(QLatin1String(command.name), -width)
                    .arg(QString::fromUtf8(command.summary));
    list += QStringLiteral("\nRun 'parascope COMMAND --help' for a command's options.\n");
    QStringList rest = arguments;
    rest.replace(0, QStringLiteral("parascope"));
    const int status = parseStandard(parser, standard, rest, list);
    // "parascope -- --help" names a file.
    return status >= 0 ? status : fail(QString(), QStringLiteral("expected --help or --version"));
}

} // namespace cli
