#include "app/cli.h"

#include "app/command_line.h"
#include "app/plan_command.h"
#include "app/shard_command.h"
#include "core/echo.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/compare.h"
#include "io/presets_io.h"
#include "io/report_io.h"
#include "io/scenario_io.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>
#include <cstdio>

namespace cli {

namespace {

const QStringList kCommands{QStringLiteral("eval"), QStringLiteral("plan"),
                            QStringLiteral("presets"), QStringLiteral("shard")};

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

QString overview()
{
    return QStringLiteral(
        "Usage: parascope [SCENARIO]            open the window\n"
        "       parascope eval [SCENARIO] [--set KEY=VALUE ...] [--timeline] [--compare OTHER]\n"
        "                      [--check] [--format text|json]\n"
        "       parascope plan [SCENARIO] [--set KEY=VALUE ...] --devices N --global-batch B\n"
        "                      [--top N] [--exhaustive] [--format text|json]\n"
        "       parascope presets [--format text|json]\n"
        "       parascope shard --hidden H --ffn F --tp T [--tokens N] [--seed S] [--device ID]\n"
        "                       [--precision P] [--verify small|full|off] [--format text|json]\n"
        "       parascope export [SCENARIO] [--set KEY=VALUE ...] --chart NAME|all --out PATH\n"
        "                        [--image png|svg] [--size WxH] [--scale S] [--no-caption]\n"
        "                        [--date YYYY-MM-DD]\n"
        "\n"
        "Common options: --presets FILE (extra model/device presets), --help, --version\n"
        "Run 'parascope COMMAND --help' for a command's options.\n");
}

// Options every subcommand shares.
struct Common
{
    QCommandLineOption presets{QStringLiteral("presets"),
                               QStringLiteral("Extra model/device presets (JSON)."),
                               QStringLiteral("FILE")};
    QCommandLineOption format{QStringLiteral("format"),
                              QStringLiteral("Output format: text or json."),
                              QStringLiteral("text|json"), QStringLiteral("text")};
    StandardOptions standard;

    void addTo(QCommandLineParser &parser) const
    {
        parser.addOption(presets);
        parser.addOption(format);
        standard.addTo(parser);
    }
};

// Parses and answers --help / --version. Returns -1 to go on, else an exit status.
int parse(QCommandLineParser &parser, const Common &common, const QStringList &arguments,
          const QString &extraHelp = {})
{
    if (int status = parseStandard(parser, common.standard, arguments, extraHelp); status >= 0)
        return status;
    const QString format = parser.value(common.format);
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return fail(QStringLiteral("--format"),
                    QStringLiteral("expected text or json, got '%1'").arg(format));
    return -1;
}

int loadPresets(const QCommandLineParser &parser, const Common &common, core::Presets &presets)
{
    if (auto e = io::loadPresets(presets, parser.value(common.presets)))
        return fail(*e);
    return -1;
}

int runEval(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Evaluate a scenario: memory per pipeline stage against the device."));
    Common common;
    common.addTo(parser);
    QCommandLineOption set(QStringLiteral("set"),
                           QStringLiteral("Set a scenario key (repeatable), e.g. --set tp=4."),
                           QStringLiteral("KEY=VALUE"));
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
    parser.addOption(set);
    parser.addOption(check);
    parser.addOption(timeline);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file (optional)."),
                                 QStringLiteral("[SCENARIO]"));
    if (int status =
            parse(parser, common, arguments, QStringLiteral("\nScenario keys:\n") + fieldList());
        status >= 0)
        return status;
    core::Presets presets;
    if (int status = loadPresets(parser, common, presets); status >= 0)
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
        if (parser.value(common.format) == QLatin1String("json"))
            out() << QJsonDocument(io::comparisonToJson(a, b, ra, rb))
                         .toJson(QJsonDocument::Indented);
        else
            out() << io::comparisonToText(a, b, ra, rb);
        out().flush();
        return parser.isSet(check) && !(report.fits && otherReport.fits) ? doesNotFit : ok;
    }
    if (parser.value(common.format) == QLatin1String("json"))
        io::writeReportJson(report, out());
    else
        out() << io::reportToText(report);
    out().flush();
    return parser.isSet(check) && !report.fits ? doesNotFit : ok;
}

int runPresets(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List the model and device presets."));
    Common common;
    common.addTo(parser);
    if (int status = parse(parser, common, arguments); status >= 0)
        return status;
    if (!parser.positionalArguments().isEmpty())
        return fail(QString(), QStringLiteral("presets takes no arguments, got %1")
                                   .arg(io::qs(core::quoted(
                                       parser.positionalArguments().constFirst().toStdString()))));
    core::Presets presets;
    if (int status = loadPresets(parser, common, presets); status >= 0)
        return status;
    if (parser.value(common.format) == QLatin1String("json"))
        out() << QJsonDocument(io::presetsToJson(presets)).toJson(QJsonDocument::Indented);
    else
        out() << io::presetsToText(presets);
    out().flush();
    return ok;
}

} // namespace

bool isCommand(const QString &argument)
{
    return kCommands.contains(argument);
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

int run(const QStringList &arguments)
{
    QStringList rest = arguments;
    const QString command = rest.size() > 1 ? rest.takeAt(1) : QString();
    if (command == QLatin1String("eval"))
        return runEval(rest);
    if (command == QLatin1String("plan"))
        return runPlan(rest);
    if (command == QLatin1String("presets"))
        return runPresets(rest);
    if (command == QLatin1String("shard"))
        return runShard(rest);
    // Only --help / --version reach here without a command.
    if (arguments.contains(QLatin1String("--version")) || arguments.contains(QLatin1String("-v"))) {
        out() << "parascope " << PARASCOPE_VERSION << Qt::endl;
        return ok;
    }
    out() << overview();
    out().flush();
    return ok;
}

} // namespace cli
