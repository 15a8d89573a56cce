#include "core/evaluate.h"

#include "core/activations.h"
#include "core/comm_cost.h"
#include "core/schedule.h"
#include "core/step_time.h"
#include "core/units.h"
#include "core/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace core {

namespace {

std::string gb(std::int64_t bytes)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GB", static_cast<double>(bytes) / kGB);
    return buffer;
}

// Bytes per parameter for gradients and optimizer states (docs/DESIGN.md §3.5, ZeRO paper §3.1:
// mixed-precision Adam keeps 2 + 2 + K with K = 12).
struct TrainingStates
{
    int gradBytes = 0;
    int optimizerBytes = 0;
};

TrainingStates trainingStates(const Scenario &s)
{
    if (s.mode != Mode::training)
        return {};
    const bool fp32Weights = s.precision == Precision::fp32;
    // FP32 training: the weights are the master copy, so only two FP32 moments (4 + 4 + 8).
    // Otherwise an FP32 master copy plus two FP32 moments (12), as in ZeRO's K = 12.
    const int optimizer = fp32Weights ? 8 : 12;
    // Gradients in the training precision, or FP32 when accumulated so (Megatron-LM's 18 B).
    const int grads = fp32Weights || s.gradPrecision == Precision::fp32 ? 4 : 2;
    return {grads, optimizer};
}

std::int64_t stageParams(const ModelSpec &model, const ParamCounts &perDevice, int stage,
                         int stages, int layers, int tp)
{
    if (!model.hasArchitecture())
        return ceilDiv(ceilDiv(model.params, tp), stages);
    std::int64_t params = layers * perDevice.perLayer;
    if (stage == 0)
        params += perDevice.embedding;
    if (stage == stages - 1) {
        params += perDevice.finalNorm + perDevice.lmHead;
        // A tied LM head on its own stage keeps a copy of the embedding, as Megatron-LM does.
        if (model.tiedEmbeddings && stages > 1)
            params += ceilDiv(model.vocab, tp) * static_cast<std::int64_t>(model.hidden);
    }
    return params;
}

int minTpForWeights(const ModelSpec &model, const Scenario &s, std::int64_t capacity,
                    std::int64_t reserve)
{
    const int limit = model.hasArchitecture() ? model.heads : 1 << 16;
    for (int t = 1; t <= limit; t *= 2) {
        if (model.hasArchitecture() && model.heads % t != 0)
            continue;
        if (saturatingAdd(weightBytes(countParams(model, t).total, s.precision), reserve) <=
            capacity)
            return t;
    }
    return 0;
}

// 16-bit activations, logits and KV cache, or 32-bit in FP32 training; FP8 and the
// weight-only formats compute and keep activations in 16 bits.
int activationBytes(Precision p)
{
    return p == Precision::fp32 ? 4 : 2;
}

// Stage times for the simulation: layers × one layer's forward FLOPs over the device's
// peak at the precision × mfu; unit time per layer ("teaching" mode) when the device gives no
// peak or the model has no architecture. Backward = 2 × forward (Narayanan et al. 2021,
// §5.1); zb-h1 splits it into B = W = F (Qi et al. 2023, §2). Inference runs forwards only.
// Seconds of one layer's forward, or nothing when the times must be layer-time units.
std::optional<double> layerForwardSeconds(const Scenario &s, const ModelSpec &model,
                                          const DeviceSpec &device)
{
    const auto peak = device.tflops.find(s.precision);
    const double flops = layerForwardFlops(model, s.seqLen, s.microbatchSize, s.tp);
    if (peak == device.tflops.end() || flops <= 0)
        return std::nullopt;
    return computeSeconds(flops, peak->second, s.mfu);
}

// Why layerForwardSeconds() has no answer, for the "no-timing" warning; nullopt when it has.
std::optional<std::string> noTimingReason(const Scenario &s, const ModelSpec &model,
                                          const DeviceSpec &device)
{
    if (layerForwardSeconds(s, model, device))
        return std::nullopt;
    const std::string deviceName = device.name.empty() ? device.id : device.name;
    if (!device.tflops.contains(s.precision))
        return deviceName + " publishes no " + std::string(toString(s.precision)) + " peak FLOPS";
    const std::string modelName = model.name.empty() ? model.id : model.name;
    if (!model.hasArchitecture())
        return modelName + " gives only its size, no layers whose FLOPs could be timed";
    return modelName + " has no FLOPs per layer at this size";
}

// Recomputation's extra forward per layer before its backward, in seconds: selective reruns
// the attention core (Korthikanti et al. 2022, §5), full the whole forward (Chen et al. 2016).
double layerRecomputeSeconds(const Scenario &s, const ModelSpec &model, const DeviceSpec &device)
{
    const auto peak = device.tflops.find(s.precision);
    if (s.mode != Mode::training || peak == device.tflops.end())
        return 0;
    double flops = 0;
    if (s.recompute == Recompute::selective)
        flops = attentionCoreFlops(model, s.seqLen, s.microbatchSize, s.tp);
    else if (s.recompute == Recompute::full)
        flops = layerForwardFlops(model, s.seqLen, s.microbatchSize, s.tp);
    return flops > 0 ? computeSeconds(flops, peak->second, s.mfu) : 0;
}

PipelineInput pipelineInput(const Scenario &s, const ModelSpec &model, const DeviceSpec &device,
                            const std::vector<int> &layers)
{
    const bool training = s.mode == Mode::training;
    PipelineInput in;
    in.schedule = training ? s.schedule : Schedule::gpipe;
    in.stages = s.pp;
    in.microbatches = s.microbatches;
    in.virtualStages = s.virtualStages;
    const auto seconds = layerForwardSeconds(s, model, device);
    const double perLayer = seconds.value_or(1.0);
    // Layer-time units keep the teaching ratio B = 2F: recomputation is timed in seconds only.
    const double recompute = seconds ? layerRecomputeSeconds(s, model, device) : 0.0;
    const bool split = training && s.schedule == Schedule::zbH1;
    for (int stageLayers : layers) {
        const double n = model.hasArchitecture() ? stageLayers : 1;
        const double f = n * perLayer;
        const double extra = n * recompute; // rerun just before the backward that needs it
        in.forward.push_back(f);
        in.backward.push_back(training ? (split ? f : 2 * f) + extra : 0.0);
        in.weight.push_back(split ? f : 0.0);
    }
    return in;
}

void addWarnings(Report &r, const Scenario &s, const ModelSpec &model, const DeviceSpec &device)
{
    if (!r.fits && r.firstOverflowStage >= 0) {
        const auto &st = r.stages[static_cast<std::size_t>(r.firstOverflowStage)];
        r.firstOverflowTerm = largestMemoryTerm(st);
        r.warnings.push_back({"does-not-fit", "stage " + std::to_string(st.index) +
                                                  " does not fit: it needs " + gb(st.totalBytes) +
                                                  " of " + gb(st.capacityBytes) + ", most of it " +
                                                  r.firstOverflowTerm});
    }
    if (s.pp > 1 && s.microbatches < s.pp)
        r.warnings.push_back({"pipe-never-fills", "m = " + std::to_string(s.microbatches) +
                                                      " < K = " + std::to_string(s.pp) +
                                                      ": the pipeline never fills"});
    if (model.hasArchitecture() && model.layers % s.pp != 0)
        r.warnings.push_back(
            {"uneven-stages", std::to_string(model.layers) + " layers do not divide into " +
                                  std::to_string(s.pp) + " stages; the first " +
                                  std::to_string(model.layers % s.pp) + " take one more"});
    if (s.tp > device.devicesPerNode)
        r.warnings.push_back({"tp-spans-nodes", "tp = " + std::to_string(s.tp) + " exceeds the " +
                                                    std::to_string(device.devicesPerNode) +
                                                    " devices of a node: tensor parallelism "
                                                    "crosses the slower inter-node network"});
    if (model.hasArchitecture() && s.tp > model.kvHeads)
        r.warnings.push_back(
            {"kv-heads-replicated", "tp = " + std::to_string(s.tp) + " exceeds the " +
                                        std::to_string(model.kvHeads) +
                                        " KV heads: each device keeps a replicated KV head"});
    if (r.timeInLayerUnits)
        r.warnings.push_back({"no-timing", "no timing: " + r.untimedReason +
                                               ", so times are in layer-times (relative units), "
                                               "not seconds"});
    if (s.virtualStages > 1 && s.schedule != Schedule::interleaved)
        r.warnings.push_back(
            {"virtual-stages-unused", "virtual_stages = " + std::to_string(s.virtualStages) +
                                          " only applies to the interleaved schedule"});
}

// Activations cross the wire in 16 bits unless the model runs in FP32: FP8 training keeps
// BF16 activations between layers (NVIDIA Transformer Engine, "Using FP8"), and weight-only
// quantized inference computes in 16 bits.
Precision tpActivationPrecision(Precision p)
{
    return p == Precision::fp32 || p == Precision::fp16 ? p : Precision::bf16;
}

TpCommReport tpComm(Report &r, const Scenario &s, const ModelSpec &model, const DeviceSpec &device,
                    int busiestLayers)
{
    TpCommReport out;
    Link link;
    const auto linkError = chooseLink(device, s.tp, s.interNodeGbPerS, link);
    out.link = std::string(toString(link.kind));
    if (s.tp <= 1)
        return out;
    // Shoeybi et al. 2019 ("Megatron-LM") §3, Fig. 4: one all-reduce after attention and
    // one after the MLP in forward (g), the same two in backward (f).
    int allReduces = 2;
    if (s.mode == Mode::training)
        allReduces += 2;
    // Full recomputation reruns each layer's forward, its all-reduces included (Chen et al.
    // 2016, "Training deep nets with sublinear memory cost"); selective keeps them.
    if (s.mode == Mode::training && s.recompute == Recompute::full)
        allReduces += 2;
    // Korthikanti et al. 2022 §4.2.2: sequence parallelism turns each all-reduce into a
    // reduce-scatter plus an all-gather of the same tensor.
    out.collectivesPerLayer = s.sequenceParallel ? 2 * allReduces : allReduces;
    if (!model.hasArchitecture())
        return out; // a size-only model has no hidden size to move
    const std::int64_t values =
        std::int64_t{s.microbatchSize} * s.seqLen * static_cast<std::int64_t>(model.hidden);
    const std::int64_t payload = bytesFor(values, tpActivationPrecision(s.precision));
    const std::int64_t calls = std::int64_t{busiestLayers} * s.microbatches;
    // Wire bytes, not payloads: a reduce-scatter plus an all-gather moves what one
    // all-reduce moves (Korthikanti et al. 2022 §4.2.2), and so do these totals.
    const double wirePerLayer =
        allReduces * wireBytesPerDevice(Collective::allReduce, payload, s.tp);
    out.bytesPerStep = saturatingRound(wirePerLayer * static_cast<double>(calls));
    if (linkError) {
        out.timePerStepS.reset();
        r.warnings.push_back({"tp-link-unknown", linkError->message});
        return out;
    }
    const double perLayer =
        s.sequenceParallel
            ? allReduces * (collectiveSeconds(Collective::reduceScatter, payload, s.tp, link) +
                            collectiveSeconds(Collective::allGather, payload, s.tp, link))
            : allReduces * collectiveSeconds(Collective::allReduce, payload, s.tp, link);
    out.timePerStepS = perLayer * static_cast<double>(calls);
    return out;
}

// The step-time model (docs/step_time.md): the simulated makespan, then TP traffic (not
// overlapped) and the exposed part of the data-parallel gradient sync.
std::optional<StepTimeReport> stepTimeReport(Report &r, const Scenario &s, const ModelSpec &model,
                                             const DeviceSpec &device, const TrainingStates &states,
                                             const PipelineInput &in)
{
    if (r.timeInLayerUnits || !r.tpComm.timePerStepS)
        return std::nullopt;
    const bool training = s.mode == Mode::training;
    StepTimeInput st;
    st.makespanS = r.makespanS;
    for (std::size_t i = 0; i < in.forward.size(); ++i)
        st.busiestComputeS = std::max(
            st.busiestComputeS, s.microbatches * (in.forward[i] + in.backward[i] + in.weight[i]));
    st.tpCommS = *r.tpComm.timePerStepS;
    st.dpOverlap = s.dpOverlap;

    StepTimeReport out;
    if (training && s.dp > 1) {
        Link link;
        const auto linkError = chooseLink(device, dpGroupSpan(s.tp, s.dp), s.interNodeGbPerS, link);
        out.dpLink = std::string(toString(link.kind));
        if (linkError) {
            r.warnings.push_back({"dp-link-unknown", linkError->message});
            return std::nullopt;
        }
        // The stage with the most parameters synchronises longest; every stage runs at once.
        std::int64_t params = 0;
        for (const auto &stage : r.stages)
            params = std::max(params, stage.params);
        const DpSync sync = dpGradientSync(s.zero, params * states.gradBytes,
                                           weightBytes(params, s.precision), s.dp, link);
        st.dpCommS = sync.seconds;
        out.dpBytesPerStep = sync.bytesPerStep;
    }
    const double tokens = static_cast<double>(s.microbatches) * s.microbatchSize * s.seqLen * s.dp;
    st.tokensPerStep = tokens;
    // Kaplan et al. 2020, §2.1: N counts the transformer layers' parameters, not embeddings.
    const double n = static_cast<double>(model.layers) * countParams(model, 1).perLayer;
    // Narayanan et al. 2021, §5.1: 6·N·tokens in training (backward = 2 × forward), 2· inference.
    st.modelFlopsPerStep = (training ? 6.0 : 2.0) * n * tokens;
    st.devices = s.devices();
    st.peakFlops = device.tflops.at(s.precision) * 1e12;
    st.tdpW = device.tdpW;
    StepTimeReport computed = stepTime(st);
    computed.dpLink = out.dpLink;
    computed.dpBytesPerStep = out.dpBytesPerStep;
    return computed;
}

// A stage or a step whose bytes do not fit 64 bits (kTooLarge): refused, naming the key
// that drives the term, rather than reported wrapped round to a negative number.
std::optional<InputError> beyondCounting(const Report &r)
{
    const std::string beyond = "more than 2^63 bytes (8 EiB)";
    const std::string uncounted = ", beyond what Parascope counts";
    const std::string lower = uncounted + "; lower microbatches, microbatch_size or seq_len";
    for (const StageReport &st : r.stages) {
        if (st.reserveBytes == kTooLarge)
            return InputError{"reserve_gib",
                              "must be less than 2^63 bytes (8 EiB) per device" + uncounted};
        if (st.totalBytes == kTooLarge)
            return InputError{"microbatches", "stage " + std::to_string(st.index) + "'s " +
                                                  largestMemoryTerm(st) + " would take " + beyond +
                                                  " per device" + lower};
    }
    if (r.tpComm.bytesPerStep == kTooLarge)
        return InputError{"microbatches",
                          "tensor-parallel traffic would be " + beyond + " per step" + lower};
    return std::nullopt;
}

} // namespace

std::int64_t weightBytes(std::int64_t params, Precision precision)
{
    return bytesFor(params, precision);
}

std::int64_t timelineBlocks(const Scenario &s)
{
    const bool training = s.mode == Mode::training;
    const bool interleaved = training && s.schedule == Schedule::interleaved;
    const std::int64_t chunks = interleaved ? s.virtualStages : 1;
    const int passes = !training ? 1 : s.schedule == Schedule::zbH1 ? 3 : 2;
    return std::int64_t{s.pp} * s.microbatches * chunks * passes;
}

std::optional<InputError> checkTimeline(const Scenario &s)
{
    const std::int64_t blocks = timelineBlocks(s);
    if (blocks <= limits::kTimelineBlocks)
        return std::nullopt;
    const bool training = s.mode == Mode::training;
    const bool interleaved = training && s.schedule == Schedule::interleaved;
    const std::string passes = !training                      ? ""
                               : s.schedule == Schedule::zbH1 ? " x 3 passes (F, B, W)"
                                                              : " x 2 passes (F, B)";
    return InputError{
        "microbatches",
        "the timeline would hold pp x microbatches" +
            std::string(interleaved ? " x virtual_stages" : "") + passes + " = " +
            std::to_string(blocks) + " blocks, more than the " +
            std::to_string(limits::kTimelineBlocks) + " Parascope draws or writes; lower " +
            (interleaved ? "pp, microbatches or virtual_stages" : "pp or microbatches")};
}

std::optional<double> stepTimeLowerBound(const Scenario &s, const Presets &presets)
{
    if (validate(s, presets))
        return std::nullopt;
    const ModelSpec &model = *resolveModel(s, presets);
    const DeviceSpec &device = *resolveDevice(s, presets);
    Report r; // only what the step-time model reads: stage parameters and the TP traffic
    std::vector<int> layers;
    for (const auto &st : stageModelStates(s, model)) {
        StageReport stage;
        stage.params = st.params;
        r.stages.push_back(stage);
        layers.push_back(st.layers);
    }
    const PipelineInput in = pipelineInput(s, model, device, layers);
    // The busiest stage must do its own work: the makespan is at least that.
    double makespan = 0;
    for (std::size_t i = 0; i < in.forward.size(); ++i)
        makespan =
            std::max(makespan, s.microbatches * (in.forward[i] + in.backward[i] + in.weight[i]));
    // Equal stages under GPipe or 1F1B: (m + K - 1)(F + B) exactly (Narayanan et al. 2021,
    // §2.2), shaved by a rounding margin so that the bound never exceeds the simulation.
    const auto uniform = [](const std::vector<double> &t) {
        return std::adjacent_find(t.begin(), t.end(), std::not_equal_to<>()) == t.end();
    };
    if ((in.schedule == Schedule::gpipe || in.schedule == Schedule::oneFOneB) &&
        uniform(in.forward) && uniform(in.backward) && !in.forward.empty())
        makespan = std::max(makespan, (1 - 1e-9) * (s.microbatches + s.pp - 1) *
                                          (in.forward[0] + in.backward[0]));
    r.makespanS = makespan;
    r.timeInLayerUnits = !layerForwardSeconds(s, model, device);
    r.tpComm = tpComm(r, s, model, device, *std::max_element(layers.begin(), layers.end()));
    const auto st = stepTimeReport(r, s, model, device, trainingStates(s), in);
    return st ? std::optional<double>(st->stepTimeS) : std::nullopt;
}

std::vector<StageModelStates> stageModelStates(const Scenario &s, const ModelSpec &model)
{
    const TrainingStates states = trainingStates(s);
    const ParamCounts perDevice = countParams(model, s.tp);
    const std::vector<int> layers =
        model.hasArchitecture() ? splitLayers(model.layers, s.pp) : std::vector<int>(s.pp, 0);
    // ZeRO-1 shards optimizer states over D, ZeRO-2 also gradients, ZeRO-3 also
    // parameters (Rajbhandari et al. 2020, §5).
    const std::int64_t d = s.dp;
    auto zeroShard = [d](std::int64_t bytes, bool sharded) {
        return sharded ? ceilDiv(bytes, d) : bytes;
    };
    std::vector<StageModelStates> out;
    out.reserve(layers.size());
    for (int i = 0; i < s.pp; ++i) {
        StageModelStates st;
        st.layers = layers[static_cast<std::size_t>(i)];
        st.params = stageParams(model, perDevice, i, s.pp, st.layers, s.tp);
        st.weightsBytes = zeroShard(weightBytes(st.params, s.precision), s.zero >= 3);
        st.gradsBytes = zeroShard(st.params * states.gradBytes, s.zero >= 2);
        st.optimizerBytes = zeroShard(st.params * states.optimizerBytes, s.zero >= 1);
        out.push_back(st);
    }
    return out;
}

Report evaluate(const Scenario &s, const Presets &presets)
{
    return evaluate(s, presets, EvaluateOptions{});
}

Report evaluate(const Scenario &s, const Presets &presets, const EvaluateOptions &options)
{
    Report r;
    if (auto e = validate(s, presets)) {
        r.error = std::move(e);
        return r;
    }
    const ModelSpec &model = *resolveModel(s, presets);
    const DeviceSpec &device = *resolveDevice(s, presets);

    r.modelId = model.id;
    r.modelName = model.name.empty() ? model.id : model.name;
    r.deviceId = device.id;
    r.deviceName = device.name.empty() ? device.id : device.name;
    r.precision = s.precision;
    r.mode = s.mode;
    r.params = exactParams(model);
    r.nominalParams = nominalParams(model);
    r.weightsBytes = weightBytes(r.params, s.precision);
    r.nominalWeightsBytes = weightBytes(r.nominalParams, s.precision);
    for (const auto &entry : enumNames(Precision{}))
        r.sizeByPrecision.push_back({entry.value, weightBytes(r.params, entry.value),
                                     weightBytes(r.nominalParams, entry.value)});
    r.tp = s.tp;
    r.pp = s.pp;
    r.dp = s.dp;
    r.devices = s.devices();

    const TrainingStates states = trainingStates(s);
    r.weightBytesPerParam = bitsPerValue(s.precision) / 8.0;
    r.gradBytesPerParam = states.gradBytes;
    r.optimizerBytesPerParam = states.optimizerBytes;

    const std::int64_t capacity = device.capacityBytes();
    const std::int64_t reserve = saturatingRound(s.reserveGib * static_cast<double>(kGiB));
    r.minTpForWeights = minTpForWeights(model, s, capacity, reserve);

    const std::vector<StageModelStates> modelStates = stageModelStates(s, model);
    std::vector<int> layers;
    for (const auto &st : modelStates)
        layers.push_back(st.layers);

    const bool training = s.mode == Mode::training;
    const PipelineInput pipeIn = pipelineInput(s, model, device, layers);
    if (options.timeline)
        r.timelineRefused = checkTimeline(s);
    const bool keepTimeline = options.timeline && !r.timelineRefused;
    PipelineResult pipe = options.pipelineCache && !keepTimeline
                              ? options.pipelineCache->simulate(pipeIn)
                              : simulatePipeline(pipeIn, keepTimeline);
    r.bubbleFraction = pipe.bubbleFraction;
    r.makespanS = pipe.makespan;
    if (auto why = noTimingReason(s, model, device)) {
        r.timeInLayerUnits = true;
        r.untimedReason = std::move(*why);
    }
    // With the stage times simulated, not F = B = W = 1: the closed form only where it holds.
    ClosedFormBubble closed = closedFormBubble(pipeIn);
    r.bubbleFractionClosedForm = closed.fraction;
    r.bubbleClosedFormMissing = std::move(closed.missing);
    if (keepTimeline) {
        // Inference has no backward: drop its zero-length B ops.
        std::erase_if(pipe.timeline, [](const ScheduleOp &o) { return o.end <= o.start; });
        r.timeline = std::move(pipe.timeline);
    }

    const int actBytes = activationBytes(s.precision);
    ActivationConfig act;
    act.seqLen = s.seqLen;
    act.microbatchSize = s.microbatchSize;
    act.tp = s.tp;
    act.sequenceParallel = s.sequenceParallel;
    act.recompute = s.recompute;
    act.attention = s.attention;
    act.bytesPerValue = actBytes;
    const std::int64_t perLayer = training ? layerActivationBytes(model, act) : 0;
    // Full recomputation rebuilds one layer of one micro-batch at a time: that layer's
    // activations are alive on top of the kept inputs (docs/activations.md).
    const std::int64_t recomputePeak =
        training && s.recompute == Recompute::full ? layerPeakRecomputeBytes(model, act) : 0;

    r.fits = true;
    for (int i = 0; i < s.pp; ++i) {
        StageReport st;
        st.index = i;
        const StageModelStates &ms = modelStates[static_cast<std::size_t>(i)];
        st.layers = ms.layers;
        st.params = ms.params;
        st.weightsBytes = ms.weightsBytes;
        st.gradsBytes = ms.gradsBytes;
        st.optimizerBytes = ms.optimizerBytes;
        if (training) {
            // Activations of every micro-batch the schedule keeps alive on this stage
            // (docs/DESIGN.md §3.3: GPipe m, 1F1B min(K-s, m), interleaved and zb-h1 simulated).
            st.inflightMicrobatches = pipe.inflight[static_cast<std::size_t>(i)];
            const std::int64_t stageLayers = saturatingMul(st.layers, perLayer);
            st.activationsBytes = saturatingAdd(
                stageLayers == kTooLarge
                    ? kTooLarge
                    : saturatingRound(st.inflightMicrobatches * static_cast<double>(stageLayers)),
                st.layers > 0 ? recomputePeak : 0);
            if (s.cacheOutputs && i == s.pp - 1 && model.hasArchitecture())
                st.cachedOutputsBytes = saturatingMul(
                    s.microbatches, cachedOutputBytesPerMicrobatch(
                                        model, s.seqLen, s.microbatchSize, s.tp, actBytes));
        } else if (model.hasArchitecture()) {
            // docs/DESIGN.md §3.7: a pipeline keeps the cache of every micro-batch in flight.
            st.kvCacheBytes = kvCacheBytes(
                model, st.layers, s.seqLen,
                static_cast<std::int64_t>(s.microbatches) * s.microbatchSize, s.tp, actBytes);
        }
        st.reserveBytes = reserve;
        st.totalBytes = memoryTermsTotal(st);
        st.capacityBytes = capacity;
        st.headroomBytes = capacity - st.totalBytes;
        st.fits = st.headroomBytes >= 0;
        if (!st.fits && r.fits) {
            r.fits = false;
            r.firstOverflowStage = i;
        }
        r.stages.push_back(st);
    }
    addWarnings(r, s, model, device);
    r.tpComm = tpComm(r, s, model, device, *std::max_element(layers.begin(), layers.end()));
    if (auto e = beyondCounting(r)) {
        Report refused;
        refused.error = std::move(e);
        return refused;
    }
    r.stepTime = stepTimeReport(r, s, model, device, states, pipeIn);
    return r;
}

} // namespace core
