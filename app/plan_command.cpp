#include "app/plan_command.h"

#include "app/cli.h"
#include "app/command_line.h"
#include "core/framework.h"
#include "core/planner.h"
#include "core/serving_plan.h"
#include "core/validate.h"
#include "io/framework_config.h"
#include "io/plan_io.h"
#include "io/presets_io.h"
#include "io/serving_plan_io.h"
#include "io/shared_options.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QTextStream>
#include <cmath>
#include <optional>
#include <tuple>

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

// GiB of headroom from 0 to limits::kGib; the exit status of the error naming the flag.
int headroomGib(const QCommandLineParser &parser, const QCommandLineOption &option, double &out)
{
    bool ok = false;
    const double gib = parser.value(option).toDouble(&ok);
    if (!ok || !(gib >= 0) || gib > core::limits::kGib)
        return fail(QStringLiteral("--headroom-gib"),
                    QStringLiteral("expected GiB from 0 to %1, got '%2'")
                        .arg(core::limits::kGib, 0, 'f', 0)
                        .arg(parser.value(option)));
    out = gib;
    return -1;
}

// A positive number from a flag, scaled by `scale`; the exit status of the error naming it.
int positiveNumber(const QCommandLineParser &parser, const QCommandLineOption &option,
                   std::optional<double> &out, double scale, const QString &what)
{
    if (!parser.isSet(option))
        return -1;
    bool ok = false;
    const double value = parser.value(option).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value <= 0)
        return fail(QStringLiteral("--") + option.names().constFirst(),
                    QStringLiteral("expected %1, got '%2'").arg(what, parser.value(option)));
    out = value * scale;
    return -1;
}

// A planner's result as `--format` asks (csv: the candidates' table), with the writers of
// that planner; or the error naming the key, and the file or --set that gave it.
template <typename Request, typename Result, typename Table, typename Json, typename Text>
int printPlan(const QCommandLineParser &parser, const QCommandLineOption &set,
              const core::Presets &presets, const Request &request, const Result &result, bool json,
              bool csv, Table table, Json toJson, Text toText)
{
    if (result.error)
        return fail(
            fromScenario(*result.error, parser.positionalArguments().value(0), parser.values(set)));
    const core::ModelSpec &model = *core::resolveModel(request.base, presets);
    const core::DeviceSpec &device = *core::resolveDevice(request.base, presets);
    QTextStream out(stdout);
    if (csv)
        out << QString::fromUtf8(io::toCsv(table(result.candidates)));
    else if (json)
        out << QJsonDocument(toJson(request, result, io::qs(model.id), io::qs(device.id)))
                   .toJson(QJsonDocument::Indented);
    else
        out << toText(request, result, io::qs(model.name.empty() ? model.id : model.name),
                      io::qs(device.name.empty() ? device.id : device.name));
    out.flush();
    return ok;
}

// `plan` in inference: the deployment planner (docs/inference.md, "Planning a deployment").
int runServingPlan(const QCommandLineParser &parser, const core::Presets &presets,
                   core::ServingPlanRequest &request, const QCommandLineOption &devices,
                   const QCommandLineOption &top, const QCommandLineOption &set, bool json,
                   bool csv)
{
    if (parser.isSet(devices))
        if (int status = positive(parser, devices, request.devices, core::limits::kPlanDevices);
            status >= 0)
            return status;
    if (int status = positive(parser, top, request.top); status >= 0)
        return status;
    return printPlan(parser, set, presets, request, core::planServing(request, presets), json, csv,
                     io::servingPlanTable, io::servingPlanToJson, io::servingPlanToText);
}

} // namespace

int runPlan(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Training: search every parallel layout T x C x K x D = N of a model on N devices (with "
        "E for a model with experts, ZeRO stage, schedule, micro-batch size, recomputation and "
        "sequence parallelism), drop "
        "those that do not fit memory, and rank the rest by estimated step time "
        "(docs/planner.md). Inference: search every replica shape T x K of at most N devices, "
        "each at the largest batch that fits and meets the latency targets, rank them by output "
        "tokens per second per device, and name the smallest deployment that fits "
        "(docs/inference.md)."));
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
        setOption(QStringLiteral("The layout keys (tp, pp, dp, cp, ep, zero, microbatches, "
                                 "microbatch_size, schedule, virtual_stages, recompute, "
                                 "sequence_parallel, offload_layers) are what the planner "
                                 "searches; their values "
                                 "here are not used, nor is a pipeline_layout (each K is split "
                                 "evenly). expert_tp is kept."));
    parser.addOption(set);
    const auto devices =
        option("devices",
               "Devices in the cluster, N = T x C x K x D. In inference, the devices "
               "available (default 64): replicas of a shape fill them.",
               "N");
    const auto globalBatch =
        option("global-batch", "Training: sequences per step, split over the D replicas.", "B");
    const auto mode = option("mode",
                             "training or inference; overrides the scenario's mode. Inference "
                             "plans a deployment: prompt tokens from seq_len, generated tokens "
                             "from output_len.",
                             "training|inference");
    const auto tpot = option("tpot-ms",
                             "Inference: the most time per output token (mean after the first) "
                             "a deployment may take, in milliseconds.",
                             "ms");
    const auto ttft = option("ttft-ms",
                             "Inference: the most time to the first token (the prefill of the "
                             "whole batch) a deployment may take, in milliseconds.",
                             "ms");
    const auto tokensPerS = option("tokens-per-s",
                                   "Inference: output tokens per second the deployment must "
                                   "serve over all its replicas; replicas are added to reach it.",
                                   "tokens/s");
    const auto top =
        option("top", "How many of the fastest layouts to list.", "N", QStringLiteral("10"));
    const auto exhaustive =
        option("exhaustive", "Evaluate every layout in full instead of pruning by the "
                             "step-time bound (same ranking, slower).");
    const auto distinct =
        option("distinct", "List only the fastest of layouts that differ only in ZeRO stage, "
                           "recomputation or sequence parallelism.");
    const auto hybrid = option(
        "hybrid-sharding",
        "Training: also try each layout at ZeRO 1 to 3 sharded within a node, and where a "
        "node's share cannot hold its model states over the fewest nodes that can, replicated "
        "across the rest (zero_replicas; docs/planner.md). "
        "Without it the scenario's zero_replicas is kept.");
    const auto noOffloading = option(
        "no-offloading",
        "Training: offload no layout's activations to host memory. Without it a one-stage "
        "Megatron-LM layout without recomputation that does not fit is tried with the fewest "
        "first layers offloaded that make it fit (offload_layers; docs/planner.md).");
    const auto maxCp = option(
        "max-cp",
        "Training: the largest context-parallel degree C to search (powers of two; default 16, "
        "1 for none). C > 1 is searched only for sequences of at least 16,384 tokens.",
        "C", QStringLiteral("16"));
    const auto maxEp = option("max-ep",
                              "Training: the largest expert-parallel degree E to search for a "
                              "model with experts (default: as many as the experts).",
                              "E", QString::number(core::limits::kExpertParallel));
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
    const auto emit = option(
        "emit",
        "Training: print the fastest layout as FRAMEWORK's launch arguments or config "
        "(megatron, torchtitan or deepspeed) instead of the table; a scenario of no framework "
        "is planned under that framework's profile (docs/import.md).",
        "FRAMEWORK");
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

    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsFile)))
        return fail(*e);
    core::Scenario base;
    if (int status = readScenario(parser, set, base); status >= 0)
        return status;
    if (parser.isSet(mode)) {
        const auto parsed = core::parseEnum<core::Mode>(io::ss(parser.value(mode)));
        if (!parsed)
            return fail(QStringLiteral("--mode"),
                        QStringLiteral("expected %1, got '%2'")
                            .arg(io::qs(core::allowedNames<core::Mode>()), parser.value(mode)));
        base.mode = *parsed;
    }
    if (base.mode == core::Mode::inference) {
        core::ServingPlanRequest serving;
        serving.base = base;
        for (const auto &[flag, target, scale, what] :
             {std::tuple{&tpot, &serving.tpotTargetS, 1e-3, "a positive number of milliseconds"},
              std::tuple{&ttft, &serving.ttftTargetS, 1e-3, "a positive number of milliseconds"},
              std::tuple{&tokensPerS, &serving.tokensPerSTarget, 1.0,
                         "a positive number of tokens a second"}})
            if (int status =
                    positiveNumber(parser, *flag, *target, scale, QString::fromLatin1(what));
                status >= 0)
                return status;
        if (int status = headroomGib(parser, headroom, serving.headroomGib); status >= 0)
            return status;
        for (const QCommandLineOption *trainingOnly :
             {&globalBatch, &rank, &distinct, &exhaustive, &maxCp, &maxEp, &emit, &hybrid})
            if (parser.isSet(*trainingOnly))
                return fail(QStringLiteral("--") + trainingOnly->names().constFirst(),
                            QStringLiteral("is for training: in inference the planner chooses "
                                           "each shape's batch and ranks by tokens per second "
                                           "per device"));
        return runServingPlan(parser, presets, serving, devices, top, set, json, csv);
    }
    for (const QCommandLineOption *servingOnly : {&tpot, &ttft, &tokensPerS})
        if (parser.isSet(*servingOnly))
            return fail(QStringLiteral("--") + servingOnly->names().constFirst(),
                        QStringLiteral("is for inference (--mode inference): training is ranked "
                                       "by step time"));

    std::optional<core::Framework> emitFor;
    if (parser.isSet(emit)) {
        emitFor = core::parseEnum<core::Framework>(io::ss(parser.value(emit)));
        if (!emitFor || *emitFor == core::Framework::custom)
            return fail(QStringLiteral("--emit"),
                        QStringLiteral("expected megatron, torchtitan or deepspeed, got '%1'")
                            .arg(parser.value(emit)));
        // The layouts that framework runs (docs/frameworks.md), unless the scenario names one.
        if (base.framework == core::Framework::custom)
            core::applyFramework(base, *emitFor);
    }

    core::PlanRequest request;
    request.base = base;
    if (int status = positive(parser, devices, request.devices, core::limits::kPlanDevices);
        status >= 0)
        return status;
    if (int status = positive(parser, globalBatch, request.globalBatch); status >= 0)
        return status;
    if (int status = positive(parser, top, request.top); status >= 0)
        return status;
    if (int status =
            positive(parser, maxCp, request.maxContextParallel, core::limits::kContextParallel);
        status >= 0)
        return status;
    if (int status =
            positive(parser, maxEp, request.maxExpertParallel, core::limits::kExpertParallel);
        status >= 0)
        return status;
    request.prune = !parser.isSet(exhaustive);
    request.distinct = parser.isSet(distinct);
    request.hybridSharding = parser.isSet(hybrid);
    request.offloading = !parser.isSet(noOffloading);
    if (int status = headroomGib(parser, headroom, request.headroomGib); status >= 0)
        return status;
    {
        const auto ranked = core::parseEnum<core::PlanRank>(io::ss(parser.value(rank)));
        if (!ranked)
            return fail(QStringLiteral("--rank"),
                        QStringLiteral("expected %1, got '%2'")
                            .arg(io::qs(core::allowedNames<core::PlanRank>()), parser.value(rank)));
        request.rank = *ranked;
    }

    const core::PlanResult result = core::plan(request, presets);
    if (emitFor && !result.error) {
        if (result.candidates.empty())
            return fail(QStringLiteral("--emit"),
                        QStringLiteral("no layout fits: nothing to emit (plan without --emit "
                                       "says why)"));
        auto text =
            io::emitConfig(result.candidates.front().apply(request.base), presets, *emitFor);
        if (auto *error = std::get_if<core::InputError>(&text))
            return fail(*error);
        QTextStream out(stdout);
        out << io::qs(std::get<std::string>(text));
        return ok;
    }
    return printPlan(parser, set, presets, request, result, json, csv, io::planTable,
                     io::planToJson, io::planToText);
}

} // namespace cli
