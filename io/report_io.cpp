#include "io/report_io.h"

#include "core/framework.h"
#include "io/text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QTextStream>
#include <algorithm>
#include <array>
#include <cmath>

namespace io {

QJsonObject timeBreakdownToJson(const core::TimeBreakdown &b)
{
    QJsonObject o;
    for (const core::TimePartInfo &part : core::kTimeParts)
        o.insert(qs(part.key), b[part.part]);
    return o;
}

namespace {

QJsonObject opCostToJson(const core::OpCost &c)
{
    QJsonObject o;
    o.insert(QStringLiteral("flops"), c.flops);
    o.insert(QStringLiteral("bytes"), c.bytes);
    o.insert(QStringLiteral("seconds"), c.seconds);
    return o;
}

// One decode step (docs/inference.md): a token for every sequence at one context length.
QJsonObject decodeStepToJson(const core::DecodeStep &step)
{
    const core::DecodeCost &c = step.busiest;
    QJsonObject stage;
    stage.insert(QStringLiteral("matmul_s"), c.matmulS);
    stage.insert(QStringLiteral("attention_s"), c.attentionS);
    stage.insert(QStringLiteral("memory_ops_s"), c.memoryOpsS);
    stage.insert(QStringLiteral("tp_comm_s"), c.tpCommS);
    stage.insert(QStringLiteral("total_s"), c.totalS);
    stage.insert(QStringLiteral("flops"), c.flops);
    stage.insert(QStringLiteral("weight_bytes"), c.weightBytes);
    stage.insert(QStringLiteral("kv_bytes"), c.kvBytes);
    stage.insert(QStringLiteral("other_bytes"), c.otherBytes);
    stage.insert(QStringLiteral("memory_bound"), c.memoryBound);
    QJsonObject o;
    o.insert(QStringLiteral("context_tokens"), qint64(step.context));
    o.insert(QStringLiteral("time_per_token_s"), step.tokenS);
    o.insert(QStringLiteral("busiest_stage"), step.busiestStage);
    o.insert(QStringLiteral("stage_bound"), step.stageBound);
    o.insert(QStringLiteral("busiest_stage_per_microbatch"), stage);
    return o;
}

QJsonObject servingToJson(const core::ServingReport &sv)
{
    QJsonObject o;
    o.insert(QStringLiteral("batch"), qint64(sv.batch));
    o.insert(QStringLiteral("prompt_tokens"), qint64(sv.promptTokens));
    o.insert(QStringLiteral("output_tokens"), qint64(sv.outputTokens));
    o.insert(QStringLiteral("devices_per_replica"), sv.devicesPerReplica);
    o.insert(QStringLiteral("time_to_first_token_s"), sv.prefillS);
    o.insert(QStringLiteral("decode_first"), decodeStepToJson(sv.first));
    o.insert(QStringLiteral("decode_last"), decodeStepToJson(sv.last));
    o.insert(QStringLiteral("time_per_output_token_s"), sv.decodeMeanS);
    o.insert(QStringLiteral("latency_s"), sv.latencyS);
    o.insert(QStringLiteral("output_tokens_per_s_per_replica"), sv.tokensPerS);
    o.insert(QStringLiteral("output_tokens_per_s_per_device"), sv.tokensPerSPerDevice);
    o.insert(QStringLiteral("replicas"), sv.replicas);
    o.insert(QStringLiteral("output_tokens_per_s"), sv.tokensPerSAllReplicas);
    o.insert(QStringLiteral("decode_tokens_per_s_per_replica"), sv.decodeTokensPerS);
    o.insert(QStringLiteral("energy_j_per_million_output_tokens"),
             sv.joulesPerMillionTokens > 0 ? QJsonValue(sv.joulesPerMillionTokens)
                                           : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("pipeline_idle"), sv.pipelineIdle);
    o.insert(QStringLiteral("link_time_excluded"), sv.linkTimeExcluded);
    o.insert(QStringLiteral("max_batch"), qint64(sv.maxBatch));
    o.insert(QStringLiteral("max_context_tokens"), qint64(sv.maxContext));
    o.insert(QStringLiteral("max_context_is_model_window"), sv.maxContextIsModelWindow);
    return o;
}

// The per-operation table (docs/step_time.md): one micro-batch on one device.
QJsonArray layerOpsToJson(const std::vector<core::LayerOp> &ops)
{
    QJsonArray out;
    for (const core::LayerOp &op : ops) {
        QJsonObject o;
        o.insert(QStringLiteral("op"), qs(op.key));
        o.insert(QStringLiteral("label"), qs(op.label));
        o.insert(QStringLiteral("part"), qs(core::timePartInfo(op.part).key));
        o.insert(QStringLiteral("shape"), qs(core::shapeText(op.shape)));
        o.insert(QStringLiteral("forward"), opCostToJson(op.forward));
        o.insert(QStringLiteral("backward"), opCostToJson(op.backward));
        o.insert(QStringLiteral("weight_gradient"), opCostToJson(op.weight));
        // The share of its forward rerun before the backward: 1 for all of it, as true was.
        o.insert(QStringLiteral("recomputed"), op.rerun);
        out.append(o);
    }
    return out;
}

} // namespace

QJsonObject reportToJson(const core::Report &r)
{
    QJsonObject model;
    model.insert(QStringLiteral("id"), qs(r.modelId));
    model.insert(QStringLiteral("name"), qs(r.modelName));
    model.insert(QStringLiteral("params"), qint64(r.params));
    model.insert(QStringLiteral("nominal_params"), qint64(r.nominalParams));

    QJsonObject device;
    device.insert(QStringLiteral("id"), qs(r.deviceId));
    device.insert(QStringLiteral("name"), qs(r.deviceName));
    device.insert(QStringLiteral("capacity_bytes"),
                  qint64(r.stages.empty() ? 0 : r.stages.front().capacityBytes));

    QJsonObject perParam;
    perParam.insert(QStringLiteral("weights"), r.weightBytesPerParam);
    perParam.insert(QStringLiteral("grads"), r.gradBytesPerParam);
    perParam.insert(QStringLiteral("optimizer"), r.optimizerBytesPerParam);
    perParam.insert(QStringLiteral("fp32_parameters"), r.fp32Parameters);

    QJsonArray stages;
    for (const auto &st : r.stages) {
        QJsonObject o;
        o.insert(QStringLiteral("index"), st.index);
        o.insert(QStringLiteral("layers"), st.layers);
        o.insert(QStringLiteral("mtp_layers"), st.mtpLayers);
        o.insert(QStringLiteral("params"), qint64(st.params));
        o.insert(QStringLiteral("trainable_params"), qint64(st.trainableParams));
        for (const core::MemoryTerm &term : core::kMemoryTerms)
            o.insert(QLatin1String(term.key), qint64(st.*term.bytes));
        o.insert(QStringLiteral("inflight_microbatches"), st.inflightMicrobatches);
        if (st.offloadedLayers > 0) { // offload_layers: host memory, not the device's
            o.insert(QStringLiteral("offloaded_layers"), st.offloadedLayers);
            o.insert(QStringLiteral("offloaded_host_bytes"), qint64(st.offloadedBytes));
            if (st.hostCapacityBytes > 0) // host_memory_gb: what they must fit in
                o.insert(QStringLiteral("host_capacity_bytes"), qint64(st.hostCapacityBytes));
        }
        o.insert(QStringLiteral("total_bytes"), qint64(st.totalBytes));
        o.insert(QStringLiteral("capacity_bytes"), qint64(st.capacityBytes));
        o.insert(QStringLiteral("headroom_bytes"), qint64(st.headroomBytes));
        o.insert(QStringLiteral("fits"), st.fits);
        stages.append(o);
    }

    QJsonArray warnings;
    for (const auto &w : r.warnings) {
        QJsonObject o;
        o.insert(QStringLiteral("code"), qs(w.code));
        o.insert(QStringLiteral("message"), qs(w.message));
        if (!w.setKey.empty()) // the setting that answers it, as --set takes it
            o.insert(QStringLiteral("set"), qs(w.setKey + "=" + w.setValue));
        warnings.append(o);
    }

    QJsonObject tpComm;
    tpComm.insert(QStringLiteral("collectives_per_layer"), r.tpComm.collectivesPerLayer);
    tpComm.insert(QStringLiteral("bytes_per_step"), qint64(r.tpComm.bytesPerStep));
    tpComm.insert(QStringLiteral("link"), qs(r.tpComm.link));
    tpComm.insert(QStringLiteral("time_per_step_s"), r.tpComm.timePerStepS
                                                         ? QJsonValue(*r.tpComm.timePerStepS)
                                                         : QJsonValue(QJsonValue::Null));

    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kReportFormat));
    root.insert(QStringLiteral("version"), kReportVersion);
    root.insert(QStringLiteral("model"), model);
    root.insert(QStringLiteral("device"), device);
    root.insert(QStringLiteral("framework"), qs(core::toString(r.framework)));
    if (r.loraRank > 0) {
        QJsonObject lora;
        lora.insert(QStringLiteral("rank"), r.loraRank);
        lora.insert(QStringLiteral("modules"), qs(r.loraModules));
        root.insert(QStringLiteral("lora"), lora);
    }
    QJsonArray changed;
    for (const std::string &key : r.frameworkChanged)
        changed.append(qs(key));
    root.insert(QStringLiteral("framework_changed"), changed);
    root.insert(QStringLiteral("precision"), qs(core::toString(r.precision)));
    root.insert(QStringLiteral("mode"), qs(core::toString(r.mode)));
    root.insert(QStringLiteral("tp"), r.tp);
    root.insert(QStringLiteral("pp"), r.pp);
    root.insert(QStringLiteral("dp"), r.dp);
    root.insert(QStringLiteral("cp"), r.cp);
    root.insert(QStringLiteral("ep"), r.ep);
    root.insert(QStringLiteral("expert_tp"), r.expertTp);
    root.insert(QStringLiteral("expert_dp"), r.expertDp);
    root.insert(QStringLiteral("expert_load"), r.expertLoad);
    root.insert(QStringLiteral("active_params"), qint64(r.activeParams));
    root.insert(QStringLiteral("devices"), r.devices);
    root.insert(QStringLiteral("weights_bytes"), qint64(r.weightsBytes));
    root.insert(QStringLiteral("nominal_weights_bytes"), qint64(r.nominalWeightsBytes));
    root.insert(QStringLiteral("bytes_per_param"), perParam);
    root.insert(QStringLiteral("min_tp_for_weights"), r.minTpForWeights);
    root.insert(QStringLiteral("fits"), r.fits);
    root.insert(QStringLiteral("first_overflow_stage"), r.firstOverflowStage >= 0
                                                            ? QJsonValue(r.firstOverflowStage)
                                                            : QJsonValue(QJsonValue::Null));
    root.insert(QStringLiteral("overflow_stages"), r.overflowStages);
    root.insert(QStringLiteral("worst_overflow_stage"), r.worstOverflowStage >= 0
                                                            ? QJsonValue(r.worstOverflowStage)
                                                            : QJsonValue(QJsonValue::Null));
    root.insert(QStringLiteral("warnings"), warnings);
    root.insert(QStringLiteral("stages"), stages);
    root.insert(QStringLiteral("tp_comm"), tpComm);
    root.insert(QStringLiteral("bubble_fraction"), r.bubbleFraction);
    root.insert(QStringLiteral("bubble_fraction_closed_form"),
                r.bubbleFractionClosedForm ? QJsonValue(*r.bubbleFractionClosedForm)
                                           : QJsonValue(QJsonValue::Null));
    root.insert(QStringLiteral("bubble_closed_form_missing"),
                r.bubbleFractionClosedForm ? QJsonValue(QJsonValue::Null)
                                           : QJsonValue(qs(r.bubbleClosedFormMissing)));
    // Never layer-times under a name in seconds: warning "no-timing" says why there are none.
    root.insert(QStringLiteral("makespan_s"),
                r.timeInLayerUnits ? QJsonValue(QJsonValue::Null) : QJsonValue(r.makespanS));
    root.insert(QStringLiteral("makespan_layer_times"),
                r.timeInLayerUnits ? QJsonValue(r.makespanS) : QJsonValue(QJsonValue::Null));
    // The step-time model (docs/step_time.md): null in layer-time units.
    auto optional = [](const std::optional<double> &v) {
        return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
    };
    if (r.stepTime) {
        const core::StepTimeReport &st = *r.stepTime;
        QJsonObject dpComm;
        dpComm.insert(QStringLiteral("link"), qs(st.dpLink));
        dpComm.insert(QStringLiteral("bus_gb_per_s"), st.dpBusGbPerS);
        dpComm.insert(QStringLiteral("bytes_per_step"), qint64(st.dpBytesPerStep));
        dpComm.insert(QStringLiteral("buckets"), st.dpBuckets);
        dpComm.insert(QStringLiteral("time_per_step_s"), st.dpCommTotalS);
        // The embedding group's all-reduce, part of the exposed sync (docs/step_time.md,
        // "Embedding gradients"); 0 where no stage keeps a copy of the embedding.
        dpComm.insert(QStringLiteral("embedding_grad_sync_s"), st.embeddingSyncS);
        // A ring of its own beside the sync's, or null where it has no peers: its members
        // (under `count`), link, bus bandwidth and share of bytes_per_step.
        const auto ring = [](const char *count, int ranks, const std::string &link,
                             double busGbPerS, std::int64_t bytes) {
            if (ranks <= 1)
                return QJsonValue(QJsonValue::Null);
            QJsonObject o;
            o.insert(QLatin1String(count), ranks);
            o.insert(QStringLiteral("link"), qs(link));
            o.insert(QStringLiteral("bus_gb_per_s"), busGbPerS);
            o.insert(QStringLiteral("bytes_per_step"), qint64(bytes));
            return QJsonValue(o);
        };
        // The routed experts' own ring (docs/experts.md, "Gradient sync").
        dpComm.insert(QStringLiteral("experts"),
                      ring("ranks", st.expertDpRanks, st.expertDpLink, st.expertDpBusGbPerS,
                           st.expertDpBytesPerStep));
        // Hybrid sharding's all-reduce among the replicas (docs/step_time.md, "Hybrid
        // sharding").
        dpComm.insert(QStringLiteral("replicas"),
                      ring("replicas", st.dpReplicas, st.dpReplicaLink, st.dpReplicaBusGbPerS,
                           st.dpReplicaBytesPerStep));
        root.insert(QStringLiteral("step_time_s"), st.stepTimeS);
        // Inference without a published link: the step time is a lower bound.
        root.insert(QStringLiteral("step_time_link_time_excluded"), st.linkTimeExcluded);
        // The MoE layers' untimed host cost, where evaluate warns of it.
        if (st.moeHostHighS > 0) {
            QJsonObject wait;
            wait.insert(QStringLiteral("low"), st.moeHostLowS);
            wait.insert(QStringLiteral("high"), st.moeHostHighS);
            root.insert(QStringLiteral("moe_host_untimed_s"), wait);
        } else {
            root.insert(QStringLiteral("moe_host_untimed_s"), QJsonValue(QJsonValue::Null));
        }
        // The attention kernel's rates at the model's head width (docs/step_time.md, "Head
        // width").
        QJsonObject width;
        width.insert(QStringLiteral("width"), st.headWidth);
        width.insert(QStringLiteral("forward"), st.attentionWidthForward);
        width.insert(QStringLiteral("backward"), st.attentionWidthBackward);
        root.insert(QStringLiteral("attention_head_width"), width);
        root.insert(QStringLiteral("tokens_per_s"), st.tokensPerS);
        root.insert(QStringLiteral("mfu_achieved"), st.mfuAchieved);
        root.insert(QStringLiteral("energy_j_per_step"), optional(st.energyJPerStep));
        root.insert(QStringLiteral("energy_j_per_million_tokens"),
                    optional(st.energyJPerMillionTokens));
        root.insert(QStringLiteral("time_breakdown"), timeBreakdownToJson(st.breakdown));
        QJsonArray stageTimes;
        for (const core::TimeBreakdown &stage : st.stages)
            stageTimes.append(timeBreakdownToJson(stage));
        root.insert(QStringLiteral("stage_time_breakdown"), stageTimes);
        root.insert(QStringLiteral("busiest_stage"), st.busiestStage);
        root.insert(QStringLiteral("dp_comm"), dpComm);
        if (r.mode == core::Mode::training) {
            const core::OptimizerTraffic &o = st.optimizer;
            QJsonObject optimizer;
            QJsonObject owned;
            owned.insert(QStringLiteral("cast"), o.cast);
            owned.insert(QStringLiteral("scale"), o.scale);
            owned.insert(QStringLiteral("norm"), o.norm);
            owned.insert(QStringLiteral("adam"), o.adam);
            owned.insert(QStringLiteral("write_back"), o.writeBack);
            optimizer.insert(QStringLiteral("bytes_per_owned_param"), owned);
            optimizer.insert(QStringLiteral("bytes_per_held_grad"), o.zero);
            optimizer.insert(QStringLiteral("owned_params"), st.optimizerOwnedParams);
            optimizer.insert(QStringLiteral("held_params"), st.optimizerHeldParams);
            optimizer.insert(QStringLiteral("bytes_per_s"), st.memoryBytesPerS);
            root.insert(QStringLiteral("optimizer"), optimizer);
        } else {
            root.insert(QStringLiteral("optimizer"), QJsonValue(QJsonValue::Null));
        }
        // The weights' casts that run once a step, in the first micro-batch's forward.
        if (st.weightCastOnceS > 0) {
            QJsonObject once;
            once.insert(QStringLiteral("seconds"), st.weightCastOnceS);
            once.insert(QStringLiteral("params"), st.weightCastOnceParams);
            once.insert(QStringLiteral("bytes_per_param"), st.weightCastOnceBytesPerParam);
            root.insert(QStringLiteral("weight_cast_once"), once);
        } else {
            root.insert(QStringLiteral("weight_cast_once"), QJsonValue(QJsonValue::Null));
        }
        root.insert(QStringLiteral("layer_ops"), layerOpsToJson(r.layerOps));
        root.insert(QStringLiteral("end_ops"), layerOpsToJson(r.endOps));
    } else {
        for (const char *key :
             {"step_time_s", "moe_host_untimed_s", "attention_head_width", "tokens_per_s",
              "mfu_achieved", "energy_j_per_step", "energy_j_per_million_tokens", "time_breakdown",
              "stage_time_breakdown", "busiest_stage", "dp_comm", "optimizer", "weight_cast_once",
              "layer_ops", "end_ops"})
            root.insert(QLatin1String(key), QJsonValue(QJsonValue::Null));
    }
    root.insert(QStringLiteral("serving"),
                r.serving ? QJsonValue(servingToJson(*r.serving)) : QJsonValue(QJsonValue::Null));
    return root;
}

void writeReportJson(const core::Report &r, QTextStream &out)
{
    QByteArray head = QJsonDocument(reportToJson(r)).toJson(QJsonDocument::Indented);
    if (r.timeline.empty()) {
        out << head;
        return;
    }
    // The object's closing brace comes after the timeline: "...\n}\n" loses its last 3 bytes.
    if (head.endsWith("\n}\n"))
        head.chop(3);
    out << head << ",\n    \"timeline\": [";
    // As QJsonDocument writes a double: the shortest text that reads back the same.
    const auto number = [](double v) {
        return QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
    };
    const bool seconds = !r.timeInLayerUnits;
    bool first = true;
    for (const core::ScheduleOp &op : r.timeline) {
        out << (first ? "\n" : ",\n") << "        {\"stage\": " << op.stage << ", \"kind\": \""
            << core::opLetter(op.kind) << "\", \"microbatch\": " << op.microbatch
            << ", \"chunk\": " << op.chunk;
        if (seconds)
            out << ", \"start_s\": " << number(op.start) << ", \"end_s\": " << number(op.end);
        else
            out << ", \"start_s\": null, \"end_s\": null, \"start_layer_times\": "
                << number(op.start) << ", \"end_layer_times\": " << number(op.end);
        // DualPipeV's whole backwards (their weight gradients in them, not in a W) and the
        // ops run as overlapped pairs; absent, false.
        if (op.fullBackward && op.kind == core::OpKind::backward)
            out << ", \"with_w\": true";
        if (op.paired)
            out << ", \"paired\": true";
        out << '}';
        first = false;
    }
    out << "\n    ]\n}\n";
}

QString reportToText(const core::Report &r)
{
    auto gb = [](std::int64_t bytes) { return formatBytes(static_cast<double>(bytes)); };
    QString out;
    QTextStream s(&out);
    s << QStringLiteral("%1 on %2, %3 %4\n")
             .arg(qs(r.modelName), qs(r.deviceName), qs(core::toString(r.precision)),
                  qs(core::toString(r.mode)));
    s << QStringLiteral("Framework       %1\n")
             .arg(qs(core::frameworkSummary(r.framework, r.frameworkChanged)));
    s << QStringLiteral("Parameters      %1 exact, %2 nominal\n")
             .arg(formatCount(r.params), formatCount(r.nominalParams));
    s << QStringLiteral("Weights         %1 exact, %2 nominal\n")
             .arg(gb(r.weightsBytes), gb(r.nominalWeightsBytes));
    // docs/step_time.md, "LoRA": the model frozen, the adapters alone trained.
    if (r.loraRank > 0 && !r.stages.empty())
        s << QStringLiteral("LoRA            rank %1 beside %2; the model's weights frozen, %3 "
                            "adapter parameters a device of stage 0 train\n")
                 .arg(r.loraRank)
                 .arg(qs(r.loraModules))
                 .arg(formatCount(r.stages.front().trainableParams));
    s << QStringLiteral("Layout          T=%1%2 x K=%3 x D=%4 = %5 devices\n")
             .arg(r.tp)
             .arg(r.cp > 1 ? QStringLiteral(" x C=%1").arg(r.cp) : QString())
             .arg(r.pp)
             .arg(r.dp)
             .arg(r.devices);
    // docs/experts.md: the routed experts' own layout over a stage's devices.
    if (std::any_of(r.stages.begin(), r.stages.end(),
                    [](const core::StageReport &st) { return st.moeLayers > 0; }))
        s << QStringLiteral("Experts         E=%1 x expert T=%2, expert D=%3; %4 active "
                            "parameters a token%5\n")
                 .arg(r.ep)
                 .arg(r.expertTp)
                 .arg(r.expertDp)
                 .arg(formatCount(r.activeParams))
                 .arg(r.expertLoad != 1
                          ? QStringLiteral("; each expert computes %1 x its even share of the "
                                           "routed copies (capacity)")
                                .arg(r.expertLoad, 0, 'g', 4)
                          : QString());
    if (r.minTpForWeights > 0)
        s << QStringLiteral("Smallest T      %1 (power of two whose weights fit one device)\n")
                 .arg(r.minTpForWeights);
    else
        s << QStringLiteral("Smallest T      none: the weights do not fit at any T\n");
    if (r.tp > 1)
        s << QStringLiteral("TP traffic      %1 per step, %2 collectives per layer, %3, %4\n")
                 .arg(gb(r.tpComm.bytesPerStep))
                 .arg(r.tpComm.collectivesPerLayer)
                 .arg(qs(r.tpComm.link),
                      r.tpComm.timePerStepS
                          ? QStringLiteral("%1 s").arg(*r.tpComm.timePerStepS, 0, 'f', 3)
                          : QStringLiteral("time unknown"));
    s << QStringLiteral("Bubble          %1 % simulated").arg(100 * r.bubbleFraction, 0, 'f', 1);
    if (r.bubbleFractionClosedForm)
        s << QStringLiteral(", %1 % closed form").arg(100 * *r.bubbleFractionClosedForm, 0, 'f', 1);
    else if (!r.bubbleClosedFormMissing.empty())
        s << QStringLiteral(", no closed form (%1)").arg(qs(r.bubbleClosedFormMissing));
    if (r.timeInLayerUnits)
        s << QStringLiteral("; makespan %1 layer-times, not seconds (no timing)\n")
                 .arg(r.makespanS, 0, 'g', 4);
    else
        s << QStringLiteral("; makespan %1 s\n").arg(r.makespanS, 0, 'g', 4);
    if (r.stepTime) {
        const core::StepTimeReport &st = *r.stepTime;
        QStringList parts;
        for (const core::TimePartInfo &part : core::kTimeParts)
            if (st.breakdown[part.part] > 0)
                parts << QStringLiteral("%1 %2")
                             .arg(qs(part.label))
                             .arg(st.breakdown[part.part], 0, 'g', 4);
        if (st.linkTimeExcluded)
            s << QStringLiteral("Step time       a lower bound: a link the step needs publishes no "
                                "bandwidth, and its transfers are left out\n");
        s << QStringLiteral("Step time       %1 s = %2 (stage %3); %4 tokens/s, MFU %5 %, %6\n")
                 .arg((st.linkTimeExcluded ? QStringLiteral("≥ ") : QString()) +
                      QString::number(st.stepTimeS, 'g', 4))
                 .arg(parts.join(QStringLiteral(" + ")))
                 .arg(st.busiestStage)
                 .arg((st.linkTimeExcluded ? QStringLiteral("≤ ") : QString()) +
                      formatCount(std::llround(st.tokensPerS)))
                 .arg((st.linkTimeExcluded ? QStringLiteral("≤ ") : QString()) +
                      QString::number(100 * st.mfuAchieved, 'f', 1))
                 .arg(st.energyJPerMillionTokens
                          ? QStringLiteral("%1%2 MJ per million tokens")
                                .arg(st.linkTimeExcluded ? QStringLiteral("≥ ") : QString())
                                .arg(*st.energyJPerMillionTokens / 1e6, 0, 'f', 2)
                          : QStringLiteral("energy unknown"));
    }

    if (r.serving) {
        const core::ServingReport &sv = *r.serving;
        // Without a link's time a time is a lower bound and a rate an upper one.
        const QString atLeast = sv.linkTimeExcluded ? QStringLiteral("≥ ") : QString();
        const QString atMost = sv.linkTimeExcluded ? QStringLiteral("≤ ") : QString();
        const auto ms = [&atLeast](double seconds) {
            return atLeast + QStringLiteral("%1 ms").arg(1e3 * seconds, 0, 'f', 2);
        };
        s << QStringLiteral("Serving         batch %1, prompt %2 + output %3 tokens, %4 per "
                            "replica\n")
                 .arg(formatCount(sv.batch), formatCount(sv.promptTokens),
                      formatCount(sv.outputTokens),
                      sv.devicesPerReplica == 1
                          ? QStringLiteral("1 device")
                          : QStringLiteral("%1 devices").arg(sv.devicesPerReplica));
        if (sv.linkTimeExcluded)
            s << QStringLiteral("  Lower bounds  a link the replica needs publishes no bandwidth: "
                                "its transfers are left out, so every time below is at least "
                                "what it shows\n");
        s << QStringLiteral("  First token   %1 (prefill of the whole batch)\n")
                 .arg(ms(sv.prefillS));
        s << QStringLiteral("  Per token     %1 mean; %2 at %3 tokens of context, %4 at %5 (%6)\n")
                 .arg(ms(sv.decodeMeanS), ms(sv.first.tokenS), formatCount(sv.first.context),
                      ms(sv.last.tokenS), formatCount(sv.last.context))
                 .arg(sv.first.busiest.memoryBound ? QStringLiteral("memory-bound")
                                                   : QStringLiteral("compute-bound"));
        if (sv.outputTokens > 0)
            s << QStringLiteral("  Latency       %1 s for the batch; %2 output tokens/s per "
                                "replica, %3 per device%4\n")
                     .arg(atLeast + QString::number(sv.latencyS, 'g', 4))
                     .arg(atMost + formatCount(std::llround(sv.tokensPerS)))
                     .arg(atMost + formatCount(std::llround(sv.tokensPerSPerDevice)))
                     .arg((sv.replicas > 1
                               ? QStringLiteral(", %1 over the %2 replicas")
                                     .arg(formatCount(std::llround(sv.tokensPerSAllReplicas)),
                                          formatCount(sv.replicas))
                               : QString()) +
                          (sv.joulesPerMillionTokens > 0
                               ? QStringLiteral(", %1%2 MJ per million output tokens")
                                     .arg(atLeast)
                                     .arg(sv.joulesPerMillionTokens / 1e6, 0, 'f', 2)
                               : QString()));
        s << QStringLiteral("  Fits          up to batch %1 at this context, up to %2 tokens of "
                            "context at this batch%3\n")
                 .arg(formatCount(sv.maxBatch), formatCount(sv.maxContext),
                      sv.maxContextIsModelWindow ? QStringLiteral(" (the model's window)")
                                                 : QString());
    }

    // One row per stage, one column per memory term some stage has (as the chart's legend
    // lists them; the JSON keeps every term), in GB per device.
    auto cell = [](std::int64_t bytes) {
        return QStringLiteral(" %1").arg(static_cast<double>(bytes) / 1e9, 8, 'f', 1);
    };
    std::array<bool, std::size(core::kMemoryTerms)> shown{};
    for (std::size_t i = 0; i < shown.size(); ++i)
        for (const auto &st : r.stages)
            shown[i] = shown[i] || st.*core::kMemoryTerms[i].bytes != 0;
    s << QStringLiteral("\nStage Layers In flight");
    for (std::size_t i = 0; i < shown.size(); ++i)
        if (shown[i])
            s << QStringLiteral(" %1").arg(QLatin1String(core::kMemoryTerms[i].column), 8);
    s << QStringLiteral("    Total Capacity Headroom  Fits\n");
    for (const auto &st : r.stages) {
        // Multi-token-prediction depths beside the stage's layers: "1+1m".
        const QString layers = st.mtpLayers > 0
                                   ? QStringLiteral("%1+%2m").arg(st.layers).arg(st.mtpLayers)
                                   : QString::number(st.layers);
        s << QStringLiteral("%1 %2 %3")
                 .arg(st.index, 5)
                 .arg(layers, 6)
                 .arg(st.inflightMicrobatches, 9, 'g', 4);
        for (std::size_t i = 0; i < shown.size(); ++i)
            if (shown[i])
                s << cell(st.*core::kMemoryTerms[i].bytes);
        s << cell(st.totalBytes) << cell(st.capacityBytes) << cell(st.headroomBytes)
          << (st.fits ? QStringLiteral("  yes\n") : QStringLiteral("  no\n"));
    }
    s << QStringLiteral("(GB per device: 10^9 bytes)\n");
    // offload_layers: what the table's device columns leave out, in host memory.
    for (const auto &st : r.stages)
        if (st.offloadedLayers > 0)
            s << QStringLiteral("Offloaded       stage %1: %2 of %3 layers' activations in host "
                                "memory, %4\n")
                     .arg(st.index)
                     .arg(st.offloadedLayers)
                     .arg(st.layers)
                     .arg(st.hostCapacityBytes > 0
                              ? QStringLiteral("%1 of the %2 GB a device has there "
                                               "(host_memory_gb)%3")
                                    .arg(double(st.offloadedBytes) / 1e9, 0, 'f', 1)
                                    .arg(double(st.hostCapacityBytes) / 1e9, 0, 'f', 1)
                                    .arg(st.hostOverflow ? QStringLiteral(": does not fit")
                                                         : QString())
                              : QStringLiteral("%1 GB a device (host_memory_gb not published: "
                                               "not checked)")
                                    .arg(double(st.offloadedBytes) / 1e9, 0, 'f', 1));
    s << (r.fits ? QStringLiteral("\nFits: yes\n") : QStringLiteral("\nFits: no\n"));
    for (const auto &w : r.warnings)
        s << QStringLiteral("warning: %1\n").arg(qs(w.message));
    return out;
}

} // namespace io
