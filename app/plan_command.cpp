#include "app/plan_command.h"

#include "app/cli.h"
#include "app/command_line.h"
#include "core/planner.h"
#include "core/validate.h"
#include "io/plan_io.h"
#include "io/presets_io.h"
#include "io/shared_options.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QTextStream>

namespace cli {

namespace {

// A whole number from 1 to `maximum` from a flag, or the exit status of the error naming it.
int positive(const QCommandLineParser &parser, const QCommandLineOption &option, int &out,
             int maximum = std::numeric_limits<int>::max())
{
    const QString flag = QStringLiteral("--") + option.names().constFirst();
    if (!parser.isSet(option) && option.defaultValues().isEmpty())
        return fail(flag, QStringLiteral("required"));
    bool ok = false;
    const qlonglong value = parser.value(option).toLongLong(&ok);
    if (!ok || value < 1 || value > maximum)
        return fail(flag, QStringLiteral("expected a whole number from 1 to %1, got '%2'")
                              .arg(maximum)
                              .arg(parser.value(option)));
    out = static_cast<int>(value);
    return -1;
}

} // namespace

int runPlan(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Search every parallel layout T x K x D = N of a model on N devices (with ZeRO stage, "
        "schedule, micro-batch size, recomputation and sequence parallelism), drop those that "
        "do not fit memory, and rank the rest by estimated step time (docs/planner.md)."));
    auto option = [&parser](const char *name, const char *help, const char *value = nullptr,
                            const QString &fallback = {}) {
        QCommandLineOption o =
            value ? QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help),
                                       QString::fromLatin1(value), fallback)
                  : QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help));
        parser.addOption(o);
        return o;
    };
    const QCommandLineOption set =
        setOption(QStringLiteral("The layout keys (tp, pp, dp, zero, microbatches, "
                                 "microbatch_size, schedule, virtual_stages, recompute, "
                                 "sequence_parallel) are what the planner searches; their values "
                                 "here are not used."));
    parser.addOption(set);
    const auto devices = option("devices", "Devices in the cluster, N = T x K x D.", "N");
    const auto globalBatch =
        option("global-batch", "Sequences per step, split over the D replicas.", "B");
    const auto top =
        option("top", "How many of the fastest layouts to list.", "N", QStringLiteral("10"));
    const auto exhaustive =
        option("exhaustive", "Evaluate every layout in full instead of pruning by the "
                             "step-time bound (same ranking, slower).");
    const auto distinct =
        option("distinct", "List only the fastest of layouts that differ only in ZeRO stage, "
                           "recomputation or sequence parallelism.");
    const auto headroom =
        option("headroom-gib",
               "Memory every device must leave free, on top of the scenario's reserve_gib, for a "
               "layout to count as fitting: the memory model is an estimate (default 2).",
               "GiB", QStringLiteral("2"));
    const auto rank = option(
        "rank",
        "What to rank the fitting layouts by: time (step time on exactly N devices, the "
        "default), cost (device-hours per million tokens) or energy (joules per million tokens "
        "at the device's TDP); cost and energy search every device count that divides N.",
        "time|cost|energy", QStringLiteral("time"));
    const QCommandLineOption presetsFile = io::presetsOption();
    // text and json as every command; csv, the candidates' table for a spreadsheet.
    const QCommandLineOption format(
        QStringLiteral("format"),
        QStringLiteral("Output format: text, json or csv (the candidates, one row each)."),
        QStringLiteral("text|json|csv"), QStringLiteral("text"));
    parser.addOption(presetsFile);
    parser.addOption(format);
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file (optional): the "
                                                "model, device, precision, mode and sequence "
                                                "length to plan for."),
                                 QStringLiteral("[SCENARIO]"));
    const StandardOptions standard;
    standard.addTo(parser);
    if (int status = parseStandard(parser, standard, arguments); status >= 0)
        return status;
    const QString formatText = parser.value(format);
    if (formatText != QLatin1String("text") && formatText != QLatin1String("json") &&
        formatText != QLatin1String("csv"))
        return fail(QStringLiteral("--format"),
                    QStringLiteral("expected text, json or csv, got '%1'").arg(formatText));
    const bool json = formatText == QLatin1String("json");
    const bool csv = formatText == QLatin1String("csv");

    core::PlanRequest request;
    if (int status = positive(parser, devices, request.devices, core::limits::kPlanDevices);
        status >= 0)
        return status;
    if (int status = positive(parser, globalBatch, request.globalBatch); status >= 0)
        return status;
    if (int status = positive(parser, top, request.top); status >= 0)
        return status;
    request.prune = !parser.isSet(exhaustive);
    request.distinct = parser.isSet(distinct);
    {
        bool ok = false;
        const double gib = parser.value(headroom).toDouble(&ok);
        if (!ok || !(gib >= 0) || gib > core::limits::kGib)
            return fail(QStringLiteral("--headroom-gib"),
                        QStringLiteral("expected GiB from 0 to %1, got '%2'")
                            .arg(core::limits::kGib, 0, 'f', 0)
                            .arg(parser.value(headroom)));
        request.headroomGib = gib;
        const auto ranked = core::parseEnum<core::PlanRank>(io::ss(parser.value(rank)));
        if (!ranked)
            return fail(QStringLiteral("--rank"),
                        QStringLiteral("expected %1, got '%2'")
                            .arg(io::qs(core::allowedNames<core::PlanRank>()), parser.value(rank)));
        request.rank = *ranked;
    }

    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsFile)))
        return fail(*e);
    if (int status = readScenario(parser, set, request.base); status >= 0)
        return status;

    const core::PlanResult result = core::plan(request, presets);
    if (result.error)
        return fail(
            fromScenario(*result.error, parser.positionalArguments().value(0), parser.values(set)));
    const core::ModelSpec &model = *core::resolveModel(request.base, presets);
    const core::DeviceSpec &device = *core::resolveDevice(request.base, presets);
    QTextStream out(stdout);
    if (csv)
        out << QString::fromUtf8(io::toCsv(io::planTable(result.candidates)));
    else if (json)
        out << QJsonDocument(io::planToJson(request, result, io::qs(model.id), io::qs(device.id)))
                   .toJson(QJsonDocument::Indented);
    else
        out << io::planToText(request, result, io::qs(model.name.empty() ? model.id : model.name),
                              io::qs(device.name.empty() ? device.id : device.name));
    out.flush();
    return ok;
}

} // namespace cli
