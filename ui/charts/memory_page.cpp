#include "ui/charts/memory_page.h"

#include "core/activations.h"
#include "core/evaluate.h"
#include "core/schedule.h"
#include "core/validate.h"
#include "io/text.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/formula_panel.h"
#include "ui/units.h"

#include <QObject>
#include <algorithm>

namespace ui {

QString MemoryPage::title() const
{
    return QObject::tr("Stage memory");
}

QString MemoryPage::subject() const
{
    return QObject::tr("Memory per stage");
}

// Every term of every stage follows from the whole scenario.
FieldMask MemoryPage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *MemoryPage::createWidget(ScenarioDocument *)
{
    return m_chart = new StageMemoryChart;
}

void MemoryPage::update(const ChartInputs &inputs)
{
    const Comparison *b = inputs.comparison;
    m_chart->setReport(inputs.report, b ? &b->report : nullptr, b ? b->name : QString());
}

std::unique_ptr<QWidget> MemoryPage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<StageMemoryChart>(parent);
    chart->setReport(inputs.report);
    return chart;
}

QString MemoryPage::formulas(const ChartInputs &inputs) const
{
    using formula::block;
    using formula::bytes;
    const core::Scenario &s = inputs.scenario;
    const core::Report &r = inputs.report;
    QString out;
    const core::StageReport &st = r.stages.front();
    const bool training = s.mode == core::Mode::training;
    // DualPipe's device holds its stage of each direction, stage 0 also the mirrored K − 1
    // (deepseek-ai/DualPipe, dualpipe.py).
    const bool dualPipe = training && s.schedule == core::Schedule::dualPipe;
    // ZeRO divides by D × C for the dense parameters and by the expert data-parallel degree
    // for the routed experts (docs/experts.md, "Memory"); hybrid sharding by 1/R of each
    // (docs/step_time.md, "Hybrid sharding").
    const int replicas = s.zero >= 1 ? std::max(1, s.zeroReplicas) : 1;
    const QString d =
        replicas > 1          ? (st.expertParams > 0
                                     ? QStringLiteral(" ÷ (D·C / R = %1) (experts ÷ %2)")
                                  .arg(r.dp * r.cp / replicas)
                                  .arg(std::max(1, r.expertDp / replicas))
                                     : QStringLiteral(" ÷ (D·C / R = %1)").arg(r.dp * r.cp / replicas))
        : st.expertParams > 0 ? QStringLiteral(" ÷ D·C (experts ÷ %1)").arg(r.expertDp)
        : r.cp > 1            ? QStringLiteral(" ÷ D·C")
                              : QStringLiteral(" ÷ D");
    const QString copies =
        dualPipe ? QObject::tr("; under DualPipe a device holds two stages' copies, stage 0 "
                               "also the mirrored stage %1 (deepseek-ai/DualPipe, dualpipe.py)")
                       .arg(s.pp - 1)
                 : QString();
    // A custom layout places the layers instead of the even split.
    const QString placed =
        s.pipelineLayout.empty() ? QString()
        : s.pipelineLayout == core::kParametersLayout
            ? QObject::tr("; DeepSpeed's partition by parameters (PipelineModule's default "
                          "partition_method) places %1 of the layers on stage 0 beside the "
                          "embedding (deepspeed/runtime/pipe/module.py; docs/DESIGN.md §3.3)")
                  .arg(st.layers)
            : QObject::tr("; pipeline_layout %1 places %2 of the layers on stage 0 (Megatron-LM's "
                          "--pipeline-model-parallel-layout; docs/DESIGN.md §3.3)")
                  .arg(io::qs(s.pipelineLayout))
                  .arg(st.layers);
    // torchtitan's FP32 parameters beside (below ZeRO-3) the 16-bit copies its multiplies use.
    const QString fp32Weights =
        s.zero >= 3   ? QStringLiteral("4 B%1").arg(d)
        : s.zero >= 1 ? QStringLiteral("(%1 B + 4 B%2)").arg(r.weightBytesPerParam).arg(d)
                      : QStringLiteral("(%1 + 4) B").arg(r.weightBytesPerParam);
    const QString fp32Why =
        s.zero >= 3
            ? QObject::tr("; torchtitan trains FP32 parameters, which FSDP2 shards and gathers in "
                          "BF16 a block at a time (the ZeRO buffers)")
        : s.zero >= 1
            ? QObject::tr("; torchtitan trains FP32 parameters, which FSDP2 shards, and under "
                          "pipelining keeps their gathered BF16 copies all step")
            : QObject::tr("; torchtitan trains FP32 parameters, and torch.autocast's BF16 casts "
                          "of them are saved for the backward");
    // FP8 weights are the layers' alone; the rest stays in BF16 (core's stageModelStates). So
    // are LoRA's frozen NVFP4 ones.
    const bool nvfp4Held =
        s.mode == core::Mode::training && core::heldWeightPrecision(s) == core::Precision::nvfp4;
    const bool fp8Layers = s.mode == core::Mode::training &&
                           (s.precision == core::Precision::fp8 || nvfp4Held) && s.fp8Params &&
                           !r.fp32Parameters && st.castParams < st.params;
    out += block(
        QObject::tr("Weights on a device of stage 0"),
        r.fp32Parameters ? QStringLiteral("%1 params × %2 = %3")
                               .arg(io::formatCount(st.params), fp32Weights, bytes(st.weightsBytes))
        : fp8Layers ? QStringLiteral("%1 params × %2 B + %3 × 2 B%4 = %5")
                          .arg(io::formatCount(st.castParams))
                          .arg(r.weightBytesPerParam)
                          .arg(io::formatCount(st.params - st.castParams),
                               s.zero >= 3 ? d : QString(), bytes(st.weightsBytes))
                    : QStringLiteral("%1 params × %2 B%3 = %4")
                          .arg(io::formatCount(st.params))
                          .arg(r.weightBytesPerParam)
                          .arg(s.zero >= 3 ? d : QString(), bytes(st.weightsBytes)),
        (s.mode == core::Mode::training && s.precision == core::Precision::fp8
             ? QObject::tr("Layers split over K, matrices over T (Shoeybi et al. 2019, "
                           "§3); FP8 training holds them in %1 (fp8_params; "
                           "docs/DESIGN.md §3.5)")
                   .arg(fp8Layers ? QObject::tr("FP8, the layers' only: the embedding, the final "
                                                "norm, an LM head outside fp8_lm_head and "
                                                "adapters stay in BF16")
                        : s.fp8Params ? QStringLiteral("FP8")
                                      : QObject::tr("BF16, cast for each multiply"))
         : nvfp4Held
             ? QObject::tr("Layers split over K, matrices over T (Shoeybi et al. 2019, "
                           "§3); LoRA's frozen weights held in NVFP4, the layers' only, as "
                           "MLPerf's NVFP4 LoRA runs quantize them once (fp8_params; the "
                           "embedding, the final norm, the LM head and the adapters in BF16; "
                           "docs/DESIGN.md §3.5)")
         : s.mode == core::Mode::training && s.precision == core::Precision::nvfp4
             ? QObject::tr("Layers split over K, matrices over T (Shoeybi et al. 2019, "
                           "§3); NVFP4 training holds them in BF16, cast for each "
                           "multiply (docs/step_time.md, \"NVFP4\")")
             : QObject::tr("Layers split over K, matrices over T (Shoeybi et al. 2019, "
                           "§3); docs/worked-examples.md §2")) +
            (r.fp32Parameters ? fp32Why : QString()) + placed + copies);
    // Transformer Engine's cached casts of the 16-bit weights (docs/activations.md, "Cast
    // weights").
    if (st.castWeightsBytes > 0) {
        const bool fp8Held = s.precision == core::Precision::fp8 && s.fp8Params;
        // MXFP8's scales make its weights' copies more than a byte a parameter.
        const bool mxfp8Held =
            fp8Held && s.fp8Scaling == core::Fp8Scaling::block && r.castWeightBytesPerParam > 1.01;
        const QString format =
            mxfp8Held ? QObject::tr("MXFP8 weights: the data's scales, one per 32 values, and the "
                                    "column-wise copy with its scales, held from the start whether "
                                    "or not the cache is on (only the quantizing kernel makes that "
                                    "copy)")
            : fp8Held ? QObject::tr("FP8 weights on a device that multiplies FP8 in the TN layout "
                                    "only: the transpose the backward needs, made after each "
                                    "gather of the updated weights (post_all_gather_processing)")
            : nvfp4Held
                ? QObject::tr("LoRA's frozen NVFP4 weights: their 4-bit column-wise copy and its "
                              "FP8 scale per 16 values, quantized with the data before training")
            : s.precision == core::Precision::nvfp4
                ? QObject::tr("NVFP4: 4-bit data and its column-wise copy, an FP8 scale per 16 "
                              "values of each")
            : s.fp8Scaling == core::Fp8Scaling::block
                ? QObject::tr("FP8 blocks: the data and its column-wise copy, each with its "
                              "scales")
            : r.castWeightBytesPerParam >= 2
                ? QObject::tr("FP8 on a device that multiplies FP8 in the TN layout only: the "
                              "data and its transpose for the backward")
                : QObject::tr("FP8: the data, which the backward multiplies in another layout");
        out +=
            block(QObject::tr("Cast weights on a device of stage 0"),
                  QStringLiteral("%1 params × %2 B = %3")
                      .arg(io::formatCount(st.castParams))
                      .arg(r.castWeightBytesPerParam, 0, 'g', 6)
                      .arg(bytes(st.castWeightsBytes)),
                  (mxfp8Held || nvfp4Held ? QObject::tr("The layers' weights (the LM head's with "
                                                        "fp8_lm_head), kept all step. %1 "
                                                        "(docs/activations.md, \"Cast weights\")")
                   : fp8Held              ? QObject::tr("The layers' weights (the LM head's with "
                                                                     "fp8_lm_head), kept all step (fp8_weight_cache). %1 "
                                                                     "(docs/activations.md, \"Cast weights\")")
                                          : QObject::tr("The layers' weights (the LM head's with "
                                                                     "fp8_lm_head) cast once a step and kept for every "
                                                                     "micro-batch: Transformer Engine's weight workspace "
                                                                     "(fp8_weight_cache). %1 (docs/activations.md, "
                                                                     "\"Cast weights\")"))
                      .arg(format));
    }
    if (st.expertParams > 0)
        out += block(QObject::tr("Routed experts on a device of stage 0"),
                     QObject::tr("%1 of the %2 params: %3 MoE layers × experts ÷ E=%4, each ÷ "
                                 "expert T=%5")
                         .arg(io::formatCount(st.expertParams), io::formatCount(st.params))
                         .arg(st.moeLayers)
                         .arg(r.ep)
                         .arg(r.expertTp),
                     QObject::tr("Megatron-core's expert layout; ZeRO shards them over the expert "
                                 "data-parallel group of %1 (docs/experts.md)")
                         .arg(r.expertDp));
    if (r.mode == core::Mode::training) {
        // Under pipelining FSDP2 keeps the unsharded gradients and their reduced shard.
        const QString grads =
            r.fp32Parameters && (s.zero == 1 || s.zero == 2)
                ? QStringLiteral("(%1 B + %1 B%2)").arg(r.gradBytesPerParam).arg(d)
                : QStringLiteral("%1 B%2")
                      .arg(r.gradBytesPerParam)
                      .arg(s.zero >= 2 ? d : QString());
        // Under LoRA only the adapters train: the gradients and states are theirs alone, too
        // small for GB to say anything.
        const bool lora = s.loraRank > 0;
        const bool bf16Moments = s.optimizerMoments == core::Precision::bf16;
        const auto stateBytes = [lora](std::int64_t b) {
            return lora && units::large(static_cast<double>(b)) < 0.1
                       ? QStringLiteral("%1 %2")
                             .arg(units::small(static_cast<double>(b)), 0, 'f', 1)
                             .arg(units::smallName())
                       : bytes(b);
        };
        out += block(
            QObject::tr("Gradients and optimizer states"),
            (lora ? QStringLiteral("(%1 + %2 B%3) × %4 adapter params = %5 + %6")
                        .arg(grads)
                        .arg(r.optimizerBytesPerParam)
                        .arg(s.zero >= 1 ? d : QString(), io::formatCount(st.trainableParams))
                  : QStringLiteral("%1 + %2 B%3 per parameter = %4 + %5")
                        .arg(grads)
                        .arg(r.optimizerBytesPerParam)
                        .arg(s.zero >= 1 ? d : QString()))
                .arg(stateBytes(st.gradsBytes), stateBytes(st.optimizerBytes)),
            (lora ? QObject::tr("LoRA trains rank-%1 adapters beside %2, the model's weights "
                                "frozen (docs/step_time.md, \"LoRA\"); ")
                        .arg(s.loraRank)
                        .arg(io::qs(s.loraModules))
                  : QString()) +
                (r.fp32Parameters
                     ? QObject::tr("Adam on FP32 parameters keeps two %1 moments, %2 bytes per "
                                   "parameter; ZeRO-%3 as FSDP2 shards (docs/frameworks.md, "
                                   "\"torchtitan, FP32 parameters\")")
                           .arg(bf16Moments ? QStringLiteral("BF16") : QStringLiteral("FP32"))
                           .arg(r.optimizerBytesPerParam)
                           .arg(s.zero)
                 : bf16Moments
                     ? QObject::tr("Adam keeps an FP32 master copy and two BF16 moments, 4 + 2 + 2 "
                                   "bytes per parameter (optimizer_moments: Megatron-core's "
                                   "precision-aware optimizer; docs/DESIGN.md §3.5); ZeRO-%1 "
                                   "(Rajbhandari et al. 2020, §5)")
                           .arg(s.zero)
                     : QObject::tr("Mixed-precision Adam keeps 2 + 2 + 12 bytes per parameter; "
                                   "ZeRO-%1 (Rajbhandari et al. 2020, §5)")
                           .arg(s.zero)) +
                (replicas > 1 ? QObject::tr(", in each of %1 replicas (zero_replicas; "
                                            "docs/step_time.md, \"Hybrid sharding\")")
                                    .arg(replicas)
                              : QString()));
        // Without Transformer Engine's weight cache each micro-batch keeps its own cast copy
        // of the layers' weights (docs/activations.md, "Cast weights").
        QString savedWeights;
        {
            const core::ModelSpec *model = core::resolveModel(s, inputs.presets);
            const core::DeviceSpec *device = core::resolveDevice(s, inputs.presets);
            const core::ActivationConfig act = model && device
                                                   ? core::activationConfig(s, *model, *device)
                                                   : core::ActivationConfig{};
            if (act.savedWeightBytes > 0)
                savedWeights =
                    QObject::tr("; without fp8_weight_cache each layer also keeps its weights' "
                                "cast copy for its backward, %1 a micro-batch%2 (Transformer "
                                "Engine's saved weight; docs/activations.md, \"Cast weights\")")
                        .arg(bytes(act.savedWeightBytes),
                             model->hasExperts() ? QObject::tr(", %1 in a layer with experts")
                                                       .arg(bytes(act.savedMoeWeightBytes))
                                                 : QString());
        }
        // offload_layers: the device holds L - N layers' sets, the host the N offloaded.
        const QString kept =
            st.offloadedLayers > 0
                ? QObject::tr("%1 layers, %2 offloaded to host memory (%3 there%4): %5 layers' "
                              "sets × %6 micro-batches in flight → %7")
                      .arg(st.layers)
                      .arg(st.offloadedLayers)
                      .arg(bytes(st.offloadedBytes))
                      .arg(st.hostCapacityBytes > 0
                               ? QObject::tr(", %1 the %2 a device has")
                                     .arg(st.hostOverflow ? QObject::tr("beyond")
                                                          : QObject::tr("within"),
                                          bytes(st.hostCapacityBytes))
                               : QObject::tr(", the host's memory unpublished"))
                      .arg(st.layers - st.offloadedLayers)
                      .arg(st.inflightMicrobatches, 0, 'g', 4)
                      .arg(bytes(st.activationsBytes))
                : QStringLiteral("%1 layers × %2 micro-batches in flight → %3")
                      .arg(st.layers)
                      .arg(st.inflightMicrobatches, 0, 'g', 4)
                      .arg(bytes(st.activationsBytes));
        out += block(QObject::tr("Activations of stage 0"), kept,
                     (core::savedInputBytes32(s) > 0
                          ? QObject::tr("Per layer sbh(34 + 5as/h), with T, sequence parallelism "
                                        "and recomputation (Korthikanti et al. 2022, Table 2); "
                                        "the projections' inputs kept as their %1 casts, %2 B a "
                                        "value (save_quantized_inputs; docs/activations.md, "
                                        "\"FP8 and NVFP4\")")
                                .arg(QString::fromLatin1(core::toString(s.precision)).toUpper())
                                .arg(core::savedInputBytes32(s) / 32.0, 0, 'g', 4)
                          : QObject::tr("Per layer sbh(34 + 5as/h), with T, sequence parallelism "
                                        "and recomputation (Korthikanti et al. 2022, Table 2); "
                                        "docs/activations.md")) +
                         (lora ? QObject::tr("; under LoRA a frozen projection keeps no input and "
                                             "an adapter its own 16-bit copy (docs/activations.md, "
                                             "\"LoRA\")")
                               : QString()) +
                         (lora && s.loraDropout > 0
                              ? (s.loraDropoutPosition == core::LoraDropoutPosition::post
                                     ? QObject::tr(", and a 1-byte mask of B's dropped output "
                                                   "(lora_dropout)")
                                     : QObject::tr(", dropped with a 1-byte mask beside it "
                                                   "(lora_dropout)"))
                              : QString()) +
                         (core::recomputesSomeLayers(s)
                              ? QObject::tr("; full recomputation on the first %1 layers of each "
                                            "chunk, which keep their inputs only, the others "
                                            "everything (recompute_layers; docs/activations.md, "
                                            "\"Parallelism and recomputation\")")
                                    .arg(s.recomputeLayers)
                              : QString()) +
                         (st.offloadedLayers > 0
                              ? QObject::tr("; Transformer Engine's CPU offloading lets the "
                                            "device hold at most the layers less those "
                                            "offloaded (offload_layers; docs/activations.md, "
                                            "\"Offloaded layers\")")
                              : QString()) +
                         (r.expertLoad != 1
                              ? QObject::tr("; the busiest expert rank keeps %1 × its even "
                                            "share of the routed copies (expert_rank_load under "
                                            "the experts' capacity; docs/experts.md, "
                                            "“Capacity”, “Routing imbalance”)")
                                    .arg(r.expertLoad, 0, 'g', 4)
                              : QString()) +
                         savedWeights);
        // On the stage with the LM head: the last, DualPipeV's stage 0, where its V ends, or
        // each of DualPipe's end stages, for the m/2 micro-batches whose direction ends there.
        const int head = core::headStage(s.schedule, s.pp);
        const core::StageReport &cached =
            r.stages[static_cast<std::size_t>(std::clamp(head, 0, int(r.stages.size()) - 1))];
        if (s.cacheOutputs)
            out += block(s.schedule == core::Schedule::dualPipeV
                             ? QObject::tr("Cached outputs on stage 0, where the V ends")
                         : dualPipe ? QObject::tr("Cached outputs on each end stage, where a "
                                                  "direction ends")
                                    : QObject::tr("Cached outputs on the last stage"),
                         QStringLiteral("%1 × b × s × V × 2 B ÷ T = %2 × %3 × %4 × vocab × 2 ÷ %5 "
                                        "= %6")
                             .arg(dualPipe ? QStringLiteral("m/2") : QStringLiteral("m"))
                             .arg(dualPipe ? s.microbatches / 2 : s.microbatches)
                             .arg(s.microbatchSize)
                             .arg(s.seqLen)
                             .arg(s.tp)
                             .arg(bytes(cached.cachedOutputsBytes)),
                         QObject::tr("PyTorch's pipelining keeps every micro-batch's output "
                                     "(pytorch/pytorch#159251; switch: #165822)"));
        // The loss's own buffers beside the logits (docs/activations.md, "The loss").
        const core::ModelSpec *model = core::resolveModel(s, inputs.presets);
        if (cached.lossBytes > 0 && model) {
            const int e = core::activationConfig(s, *model).bytesPerValue;
            const core::LossBuffers perLogit = core::lossBuffersPerLogit(s, e);
            const int waiting = core::heldLosses(s.schedule, s.pp, s.microbatches, s.virtualStages);
            const int losses = 1 + cached.mtpLayers;
            out += block(
                QObject::tr("Loss buffers on stage %1").arg(cached.index),
                QStringLiteral("((waiting × losses − 1) × held + peak) × b × s÷C × V÷T = "
                               "((%1 × %2 − 1) × %3 + %4) × %5 × %6 × ⌈%7 ÷ %8⌉ = %9")
                    .arg(waiting)
                    .arg(losses)
                    .arg(perLogit.held)
                    .arg(perLogit.peak)
                    .arg(s.microbatchSize)
                    .arg((s.seqLen + s.cp - 1) / s.cp)
                    .arg(model->vocab)
                    .arg(s.tp)
                    .arg(bytes(cached.lossBytes)),
                QObject::tr("Bytes a logit: what a micro-batch's loss keeps until its backward "
                            "(held) and holds in it (peak). Megatron-core's loss, fused or not, "
                            "keeps the FP32 softmax, 4, and 4 + %1 with the gradient cast back; "
                            "PyTorch's eager cross_entropy 4 and 12; compiled, only the 16-bit "
                            "gradient. Micro-batches waiting between their loss and its "
                            "backward: GPipe m, 1F1B 1 (docs/activations.md, \"The loss\")")
                    .arg(e));
        }
        // Multi-token prediction's depths beside the loss (docs/step_time.md).
        if (cached.mtpLayers > 0 && model && model->hasArchitecture()) {
            const core::ParamCounts counts =
                core::countParams(*model, s.tp, core::ExpertSplit{s.ep, s.expertTpDegree()});
            const bool moe = core::mtpLayerIsMoe(*model);
            const bool ownEmbedding = !core::holdsEmbedding(s.schedule, s.pp, cached.index);
            const std::int64_t depth =
                (moe ? counts.perMoeLayer : counts.perLayer) + counts.perMtpExtra;
            const std::int64_t all =
                cached.mtpLayers * depth + (ownEmbedding ? counts.embedding : 0);
            out += block(
                QObject::tr("Multi-token prediction on stage %1").arg(cached.index),
                QStringLiteral("%1 × (%2 layer %3 + eh_proj 2h²÷T and three norms %4)%5 = %6 "
                               "parameters of the stage's %7; it keeps %8 + %1 layers' activations "
                               "a micro-batch in flight")
                    .arg(cached.mtpLayers)
                    .arg(moe ? QObject::tr("MoE") : QObject::tr("dense"))
                    .arg(io::formatCount(moe ? counts.perMoeLayer : counts.perLayer))
                    .arg(io::formatCount(counts.perMtpExtra))
                    .arg(ownEmbedding ? QStringLiteral(" + embedding %1")
                                            .arg(io::formatCount(counts.embedding))
                                      : QString())
                    .arg(io::formatCount(all))
                    .arg(io::formatCount(cached.params))
                    .arg(cached.layers),
                QObject::tr("mtp_layers: Megatron-core's MultiTokenPredictionLayer, a layer of "
                            "the last layer's kind with its norms and projection, and an "
                            "embedding of its own where the stage has none (docs/step_time.md, "
                            "\"Multi-token prediction\")"));
        }
    } else {
        const core::ModelSpec *model = core::resolveModel(s, inputs.presets);
        const int window = model ? model->slidingWindow : 0;
        out += block(
            QObject::tr("KV cache of stage 0"),
            st.slidingLayers > 0
                ? QStringLiteral("2 × KV heads ÷ T × head dim × (full layers × (prompt + output) "
                                 "+ windowed layers × min(prompt + output, window)) × m·b × bytes "
                                 "= %1, with %2 + %3 layers, %4 + %5 tokens, a window of %6, %7 "
                                 "sequence(s), %8 B a value")
                      .arg(bytes(st.kvCacheBytes))
                      .arg(st.layers - st.slidingLayers)
                      .arg(st.slidingLayers)
                      .arg(s.seqLen)
                      .arg(s.outputLen)
                      .arg(window)
                      .arg(std::int64_t{s.microbatches} * s.microbatchSize)
                      .arg(core::kvBytesPerValue(s))
                : QStringLiteral("2 × layers × KV heads ÷ T × head dim × (prompt + output) × "
                                 "m·b × bytes = %1, with %2 layers, %3 + %4 tokens, %5 "
                                 "sequence(s), %6 B a value")
                      .arg(bytes(st.kvCacheBytes))
                      .arg(st.layers)
                      .arg(s.seqLen)
                      .arg(s.outputLen)
                      .arg(std::int64_t{s.microbatches} * s.microbatchSize)
                      .arg(core::kvBytesPerValue(s)),
            st.slidingLayers > 0
                ? QObject::tr("docs/DESIGN.md §3.7; a sliding-window layer keeps its last window "
                              "of tokens (Jiang et al. 2023, \"Mistral 7B\", §2); one KV head per "
                              "device when T exceeds them; kv_precision sets the bytes per value; "
                              "docs/inference.md")
                : QObject::tr("docs/DESIGN.md §3.7; one KV head per device when T exceeds "
                              "them; kv_precision sets the bytes per value; "
                              "docs/inference.md"));
        out += block(QObject::tr("Prefill buffers of stage 0"),
                     QStringLiteral("(h + the widest pair of one layer's tensors) × b × s × "
                                    "bytes = %1, with b × s = %2 × %3 tokens")
                         .arg(bytes(st.prefillBuffersBytes))
                         .arg(s.microbatchSize)
                         .arg(s.seqLen),
                     QObject::tr("One micro-batch's prompts prefilled at once; the last stage "
                                 "also its logits (docs/inference.md, \"Memory\")"));
    }
    // offload_layers: the host must hold the offloaded sets too (host_memory_gb).
    const bool hostChecked = st.offloadedLayers > 0 && st.hostCapacityBytes > 0;
    out += block(QObject::tr("Fit"),
                 (hostChecked ? QObject::tr("%1 needed of %2 on the device, %3 of %4 in host "
                                            "memory → %5")
                                    .arg(bytes(st.totalBytes), bytes(st.capacityBytes),
                                         bytes(st.offloadedBytes), bytes(st.hostCapacityBytes))
                              : QStringLiteral("%1 needed of %2 → %5")
                                    .arg(bytes(st.totalBytes), bytes(st.capacityBytes)))
                     .arg(st.fits ? QObject::tr("fits") : QObject::tr("does not fit")),
                 QObject::tr("Capacity = memory_gib × 2³⁰; reserve %1 GiB for the framework%2")
                     .arg(s.reserveGib)
                     .arg(hostChecked ? QObject::tr("; host memory = host_memory_gb × 10⁹ "
                                                    "(docs/devices.md, \"Host links\")")
                                      : QString()));
    return out;
}

// Bytes, exact: the report's integers whatever unit the window shows (View → sizes).
ChartData MemoryPage::data(const ChartInputs &inputs) const
{
    const core::Report &r = inputs.report;
    const QString bytes = QStringLiteral("bytes");
    ChartData d;
    d.title =
        QObject::tr("Memory per stage, %1 on %2").arg(io::qs(r.modelName), io::qs(r.deviceName));
    d.columns << ChartColumn{QStringLiteral("stage"), {}}
              << ChartColumn{QStringLiteral("layers"), {}};
    for (const core::MemoryTerm &term : core::kMemoryTerms)
        d.columns << ChartColumn{QString::fromLatin1(term.name), bytes};
    d.columns << ChartColumn{QStringLiteral("total"), bytes}
              << ChartColumn{QStringLiteral("capacity"), bytes}
              << ChartColumn{QStringLiteral("headroom"), bytes}
              << ChartColumn{QStringLiteral("fits"), {}};
    for (const core::StageReport &st : r.stages) {
        QList<ChartValue> row{qint64(st.index), qint64(st.layers)};
        for (const core::MemoryTerm &term : core::kMemoryTerms)
            row << qint64(st.*term.bytes);
        row << qint64(st.totalBytes) << qint64(st.capacityBytes) << qint64(st.headroomBytes)
            << (st.fits ? QStringLiteral("yes") : QStringLiteral("no"));
        d.rows << row;
    }
    return d;
}

} // namespace ui
