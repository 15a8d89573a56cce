#include "io/plan_io.h"

#include "core/schedule.h"
#include "core/step_time.h"
#include "core/validate.h"
#include "io/report_io.h"
#include "io/text.h"

#include <QJsonArray>
#include <QTextStream>
#include <cmath>
#include <type_traits>

namespace io {

namespace {

QJsonValue layoutValue(int value)
{
    return value;
}
QJsonValue layoutValue(bool value)
{
    return value;
}
QJsonValue layoutValue(const std::string &value)
{
    return qs(value);
}
template <typename E> QJsonValue layoutValue(E value)
{
    return qs(core::toString(value));
}

// Every layout key under its scenario key, as a scenario file writes it.
QJsonObject layoutToJson(const core::PlanLayout &l)
{
    QJsonObject o;
    core::forEachLayoutField([&](const auto &field) {
        o.insert(qs(std::string(field.key)), layoutValue(l.*field.layout));
    });
    return o;
}

QJsonObject candidateToJson(const core::PlanCandidate &c, int rank)
{
    QJsonObject o = layoutToJson(c);
    o.insert(QStringLiteral("rank"), rank);
    o.insert(QStringLiteral("step_time_s"), c.stepTimeS);
    o.insert(QStringLiteral("step_time_lower_bound"), c.stepLowerBound);
    o.insert(QStringLiteral("moe_host_untimed"), c.moeHostUntimed);
    o.insert(QStringLiteral("fsdp_overlap"), c.fsdpOverlap);
    o.insert(QStringLiteral("tokens_per_s"), c.tokensPerS);
    o.insert(QStringLiteral("mfu_achieved"), c.mfuAchieved);
    o.insert(QStringLiteral("bubble_fraction"), c.bubbleFraction);
    o.insert(QStringLiteral("peak_stage_bytes"), static_cast<qint64>(c.peakStageBytes));
    o.insert(QStringLiteral("devices"), c.tp * c.cp * c.pp * c.dp);
    o.insert(QStringLiteral("device_hours_per_million_tokens"), c.deviceHoursPerMTokens);
    o.insert(QStringLiteral("energy_j_per_million_tokens"),
             c.energyJPerMTokens ? QJsonValue(*c.energyJPerMTokens) : QJsonValue());
    o.insert(QStringLiteral("fits"), c.fits);
    o.insert(QStringLiteral("time_breakdown"), timeBreakdownToJson(c.breakdown));
    return o;
}

} // namespace

QString scheduleText(const core::PlanLayout &l)
{
    const QString name = qs(core::toString(l.schedule));
    if (l.schedule == core::Schedule::interleaved)
        return QStringLiteral("%1 v=%2").arg(name).arg(l.virtualStages);
    return name;
}

QString recomputedLayersText(const core::PlanLayout &l)
{
    if (l.recompute != core::Recompute::full || l.recomputeLayers <= 0)
        return {};
    return QStringLiteral("%1 %2 a %3")
        .arg(l.recomputeLayers)
        .arg(l.recomputeLayers == 1 ? QStringLiteral("layer") : QStringLiteral("layers"))
        .arg(core::chunksPerStage(l.schedule, l.virtualStages) > 1 ? QStringLiteral("chunk")
                                                                   : QStringLiteral("stage"));
}

QString offloadedLayersText(const core::PlanLayout &l)
{
    if (l.offloadLayers <= 0)
        return {};
    return QStringLiteral("%1 %2")
        .arg(l.offloadLayers)
        .arg(l.offloadLayers == 1 ? QStringLiteral("layer") : QStringLiteral("layers"));
}

QString layoutText(const core::PlanLayout &l)
{
    // C and E only when they split something, so that a dense layout reads as it always has.
    const QString context = l.cp > 1 ? QStringLiteral(" C=%1").arg(l.cp) : QString();
    const QString experts = l.ep > 1 ? QStringLiteral(" E=%1").arg(l.ep) : QString();
    // Hybrid sharding's replicas beside the stage they split (docs/step_time.md, "Hybrid
    // sharding"); at ZeRO 0 they split nothing.
    const QString zero = l.zero > 0 && l.zeroReplicas > 1
                             ? QStringLiteral("%1 in %2 replicas").arg(l.zero).arg(l.zeroReplicas)
                             : QString::number(l.zero);
    QString text = QStringLiteral("T=%1%2 K=%3 D=%4%5, ZeRO %6, %7, b=%8 m=%9")
                       .arg(l.tp)
                       .arg(context)
                       .arg(l.pp)
                       .arg(l.dp)
                       .arg(experts)
                       .arg(zero)
                       .arg(scheduleText(l))
                       .arg(l.microbatchSize)
                       .arg(l.microbatches);
    if (l.recompute == core::Recompute::op)
        text += QStringLiteral(", per-op recompute");
    else if (l.recompute == core::Recompute::selective && l.recomputeModules != "core_attn")
        text += QStringLiteral(", selective recompute (%1)").arg(qs(l.recomputeModules));
    else if (const QString layers = recomputedLayersText(l); !layers.isEmpty())
        text += QStringLiteral(", full recompute of %1").arg(layers);
    else if (l.recompute != core::Recompute::none)
        text += QStringLiteral(", %1 recompute").arg(qs(core::toString(l.recompute)));
    if (l.offloadLayers > 0)
        text += QStringLiteral(", %1 offloaded").arg(offloadedLayersText(l));
    if (l.sequenceParallel)
        text += QStringLiteral(", SP");
    if (l.endsInPipelineSplit && l.pp > 1)
        text += QStringLiteral(", ends counted");
    return text;
}

QString rankText(core::PlanRank rank)
{
    switch (rank) {
    case core::PlanRank::time:
        return QStringLiteral("step time");
    case core::PlanRank::cost:
        return QStringLiteral("cost (device-hours per million tokens)");
    case core::PlanRank::energy:
        return QStringLiteral("energy (joules per million tokens at the device's TDP)");
    }
    return {};
}

QString noFitText(const core::PlanRequest &request, const core::PlanResult &result)
{
    const QString devices =
        request.rank == core::PlanRank::time
            ? QStringLiteral("%1 devices").arg(formatCount(request.devices))
            : QStringLiteral("any divisor of %1 devices").arg(formatCount(request.devices));
    QString text = QStringLiteral("No layout of %1 fits with %2 GiB free per device.")
                       .arg(devices)
                       .arg(request.headroomGib);
    if (!result.smallestSearched)
        return text;
    if (result.smallestFittingDevices && result.smallestFittingLayout)
        return text + QStringLiteral(" The smallest device count with one that does: %1 (%2).")
                          .arg(formatCount(*result.smallestFittingDevices),
                               layoutText(*result.smallestFittingLayout));
    return text + QStringLiteral(" Nor does any of up to %1 devices.")
                      .arg(formatCount(core::limits::kPlanDevices));
}

QStringList rejectionsText(const core::RejectionCounts &rejected)
{
    QStringList lines;
    for (const auto &[reason, group] : core::rejectionsByCount(rejected))
        lines << QStringLiteral("%1 %2; e.g. %3: %4")
                     .arg(formatCount(group.count), qs(reason), layoutText(group.layout),
                          qs(group.example));
    return lines;
}

QJsonObject planToJson(const core::PlanRequest &request, const core::PlanResult &result,
                       const QString &modelId, const QString &deviceId)
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kPlanFormat));
    root.insert(QStringLiteral("version"), kPlanVersion);
    root.insert(QStringLiteral("model"), modelId);
    root.insert(QStringLiteral("device"), deviceId);
    root.insert(QStringLiteral("precision"), qs(core::toString(request.base.precision)));
    root.insert(QStringLiteral("mode"), qs(core::toString(request.base.mode)));
    root.insert(QStringLiteral("seq_len"), request.base.seqLen);
    // How the search split each K: evenly, or by DeepSpeed's partition by parameters.
    root.insert(QStringLiteral("pipeline_layout"),
                request.base.pipelineLayout == core::kParametersLayout
                    ? QLatin1String(core::kParametersLayout.data(),
                                    qsizetype(core::kParametersLayout.size()))
                    : QLatin1String("even"));
    root.insert(QStringLiteral("devices"), request.devices);
    root.insert(QStringLiteral("global_batch"), request.globalBatch);
    root.insert(QStringLiteral("distinct"), request.distinct);
    root.insert(QStringLiteral("hybrid_sharding"), request.hybridSharding);
    root.insert(QStringLiteral("offloading"), request.offloading);
    root.insert(QStringLiteral("headroom_gib"), request.headroomGib);
    root.insert(QStringLiteral("rank"), qs(core::toString(request.rank)));
    root.insert(QStringLiteral("layouts"), static_cast<qint64>(result.layouts));
    root.insert(QStringLiteral("evaluated"), static_cast<qint64>(result.evaluated));
    root.insert(QStringLiteral("pruned"), static_cast<qint64>(result.pruned));
    root.insert(QStringLiteral("feasible"), static_cast<qint64>(result.feasible));
    root.insert(QStringLiteral("elapsed_s"), result.elapsedS);
    QJsonArray assumed;
    for (const std::string &rate : result.assumedRates)
        assumed.append(qs(rate));
    root.insert(QStringLiteral("assumed_rates"), assumed);
    // Counts by reason, and one example of each: the layout and its message.
    QJsonObject rejected;
    QJsonObject examples;
    for (const auto &[reason, group] : result.rejected) {
        rejected.insert(qs(reason), static_cast<qint64>(group.count));
        QJsonObject example = layoutToJson(group.layout);
        example.insert(QStringLiteral("message"), qs(group.example));
        examples.insert(qs(reason), example);
    }
    root.insert(QStringLiteral("rejected"), rejected);
    root.insert(QStringLiteral("rejected_examples"), examples);
    QJsonArray candidates;
    int rank = 1;
    for (const auto &c : result.candidates)
        candidates.append(candidateToJson(c, rank++));
    root.insert(QStringLiteral("candidates"), candidates);
    root.insert(QStringLiteral("smallest_fitting_devices"),
                result.smallestFittingDevices ? QJsonValue(*result.smallestFittingDevices)
                                              : QJsonValue());
    root.insert(QStringLiteral("smallest_fitting_layout"),
                result.smallestFittingLayout
                    ? QJsonValue(layoutToJson(*result.smallestFittingLayout))
                    : QJsonValue());
    return root;
}

QString planToText(const core::PlanRequest &request, const core::PlanResult &result,
                   const QString &modelName, const QString &deviceName)
{
    QString out;
    QTextStream s(&out);
    s << QStringLiteral("%1 on %2 × %3, %4 %5, global batch %6 × %7 tokens\n")
             .arg(modelName, formatCount(request.devices), deviceName,
                  qs(core::toString(request.base.precision)), qs(core::toString(request.base.mode)),
                  formatCount(request.globalBatch))
             .arg(request.base.seqLen);
    if (request.base.pipelineLayout == core::kParametersLayout)
        s << QStringLiteral("Stages          each K split by parameter count (DeepSpeed "
                            "PipelineModule's partition_method='parameters')\n");
    if (request.rank != core::PlanRank::time)
        s << QStringLiteral("Ranked by       %1, over every device count that divides %2\n")
                 .arg(rankText(request.rank), formatCount(request.devices));
    s << QStringLiteral("Layouts         %1 considered: %2 fit with %3 GiB free per device, %4 "
                        "rejected; %5 evaluated in full, %6 pruned by a step-time bound; %7 ms\n")
             .arg(formatCount(result.layouts), formatCount(result.feasible))
             .arg(request.headroomGib)
             .arg(formatCount(result.layouts - result.feasible), formatCount(result.evaluated),
                  formatCount(result.pruned))
             .arg(result.elapsedS * 1e3, 0, 'f', 0);
    const QStringList rejected = rejectionsText(result.rejected);
    for (qsizetype i = 0; i < rejected.size(); ++i)
        s << (i == 0 ? QStringLiteral("Rejected        ") : QString(16, QLatin1Char(' ')))
          << rejected.at(i) << '\n';
    // The device's rates a time takes from an assumption (docs/step_time.md, "Device data").
    s << assumedRatesLines(result.assumedRates);
    if (request.distinct)
        s << QStringLiteral(
            "Listed          the best-ranked layout of each T, C, K, D, E, schedule and "
            "micro-batch size\n");
    if (request.hybridSharding)
        s << QStringLiteral("Searched        each layout at ZeRO 1 to 3 also sharded within a "
                            "node, or over the fewest nodes that hold its states, its replicas "
                            "across the rest (zero_replicas)\n");
    if (!request.offloading)
        s << QStringLiteral("Searched        no layout with activations offloaded to host "
                            "memory (offload_layers)\n");
    if (result.candidates.empty()) {
        s << noFitText(request, result) << '\n';
        return out;
    }
    const bool time = request.rank == core::PlanRank::time;
    s << QStringLiteral("\n%1  %2  %3  %4  %5  ")
             .arg(QStringLiteral("#"), 3)
             .arg(QStringLiteral("step s"), 8)
             .arg(QStringLiteral("tokens/s"), 10)
             .arg(QStringLiteral("MFU"), 6)
             .arg(QStringLiteral("peak"), 9);
    if (!time)
        s << QStringLiteral("%1  %2  %3  ")
                 .arg(QStringLiteral("N"), 7)
                 .arg(QStringLiteral("dev-h/Mtok"), 10)
                 .arg(QStringLiteral("MJ/Mtok"), 8);
    s << QStringLiteral("layout\n");
    int rank = 1;
    bool shortSteps = false;
    bool moeHost = false;
    bool fsdp = false;
    for (const auto &c : result.candidates) {
        shortSteps = shortSteps || c.shortStep;
        moeHost = moeHost || c.moeHostUntimed;
        fsdp = fsdp || c.fsdpOverlap;
        s << QStringLiteral("%1  %2  %3  %4  %5  ")
                 .arg(rank++, 3)
                 .arg((c.stepLowerBound ? QStringLiteral("≥") : QString()) +
                          QString::number(c.stepTimeS, 'f', 3),
                      8)
                 .arg(formatCount(std::llround(c.tokensPerS)), 10)
                 .arg(QStringLiteral("%1 %").arg(100 * c.mfuAchieved, 0, 'f', 1), 6)
                 .arg(formatBytes(static_cast<double>(c.peakStageBytes)), 9);
        if (!time)
            s << QStringLiteral("%1  %2  %3  ")
                     .arg(formatCount(c.tp * c.cp * c.pp * c.dp), 7)
                     .arg(c.deviceHoursPerMTokens, 10, 'f', 4)
                     .arg(c.energyJPerMTokens ? QString::number(*c.energyJPerMTokens / 1e6, 'f', 3)
                                              : QStringLiteral("—"),
                          8);
        s << layoutText(c) << '\n';
    }
    if (shortSteps)
        s << QStringLiteral("\n≥ a lower bound: published training steps timed under %1 s ran "
                            "4 % to twice as long as modelled (docs/step_time.md)\n")
                 .arg(core::kShortStepS, 0, 'f', 3);
    if (moeHost)
        s << QStringLiteral("%1≥ a lower bound: the MoE layers' host cost is not timed; published "
                            "Megatron-LM MoE runs outside a CUDA graph of the whole step took %2 "
                            "to %3 ms longer a MoE layer and micro-batch (docs/step_time.md, "
                            "\"Fine-grained experts\")\n")
                 .arg(shortSteps ? QString() : QStringLiteral("\n"))
                 .arg(1e3 * core::kMoeHostGapMinS, 0, 'f', 1)
                 .arg(1e3 * core::kMoeHostGapMaxS, 0, 'f', 1);
    if (fsdp)
        s << QStringLiteral("%1≥ a lower bound: PyTorch FSDP2's published runs on Hopper took a "
                            "third to three quarters of their gathers' and reduce-scatters' time "
                            "beyond the model (docs/step_time.md)\n")
                 .arg(shortSteps || moeHost ? QString() : QStringLiteral("\n"));
    return out;
}

DataTable planTable(const std::vector<core::PlanCandidate> &candidates)
{
    DataTable table;
    table.title = QStringLiteral("Planner candidates");
    table.columns << DataColumn{QStringLiteral("rank"), {}};
    core::forEachLayoutField([&table](const auto &field) {
        table.columns << DataColumn{qs(field.key), {}};
    });
    table.columns << DataColumn{QStringLiteral("step time"), QStringLiteral("s")}
                  << DataColumn{QStringLiteral("tokens per second"), QStringLiteral("tokens/s")}
                  << DataColumn{QStringLiteral("mfu"), QStringLiteral("fraction")}
                  << DataColumn{QStringLiteral("bubble"), QStringLiteral("fraction")}
                  << DataColumn{QStringLiteral("peak stage memory"), QStringLiteral("bytes")}
                  << DataColumn{QStringLiteral("cost"), QStringLiteral("device-hours/Mtoken")}
                  << DataColumn{QStringLiteral("energy"), QStringLiteral("J/Mtoken")};
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const core::PlanCandidate &c = candidates[i];
        QList<DataValue> row{qint64(i + 1)};
        core::forEachLayoutField([&row, &c](const auto &field) {
            const auto value = c.*field.layout;
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, bool>)
                row << (value ? QStringLiteral("true") : QStringLiteral("false"));
            else if constexpr (std::is_same_v<T, std::string>)
                row << qs(value);
            else if constexpr (std::is_enum_v<T>)
                row << qs(core::toString(value));
            else
                row << qint64(value);
        });
        row << c.stepTimeS << c.tokensPerS << c.mfuAchieved << c.bubbleFraction
            << qint64(c.peakStageBytes) << c.deviceHoursPerMTokens
            << (c.energyJPerMTokens ? DataValue(*c.energyJPerMTokens) : DataValue());
        table.rows << row;
    }
    return table;
}

} // namespace io
