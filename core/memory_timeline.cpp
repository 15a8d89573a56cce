#include "core/memory_timeline.h"

#include "core/activations.h"
#include "core/evaluate.h"
#include "core/units.h"
#include "core/validate.h"

#include <algorithm>
#include <iterator>

namespace core {

namespace {

// Kept activations of `alive` chunks, `aliveByChunk` of each, rounded as core::evaluate
// rounds the peak, so that the curve's highest value is the report's term to the byte.
std::int64_t keptBytes(int alive, const std::vector<int> &aliveByChunk,
                       const MemoryStepSizes &sizes)
{
    if (alive <= 0)
        return 0;
    if (sizes.stageLayersBytes == kTooLarge)
        return kTooLarge;
    if (!sizes.chunkBytes.empty()) {
        double bytes = 0;
        for (std::size_t c = 0; c < aliveByChunk.size() && c < sizes.chunkBytes.size(); ++c)
            bytes += aliveByChunk[c] * static_cast<double>(sizes.chunkBytes[c]);
        return saturatingRound(bytes);
    }
    const double microbatches = static_cast<double>(alive) / std::max(sizes.chunks, 1);
    return saturatingRound(microbatches * static_cast<double>(sizes.stageLayersBytes));
}

} // namespace

MemoryTimeline memoryTimeline(const std::vector<ScheduleOp> &timeline, const StageReport &stage,
                              const MemoryStepSizes &sizes, double makespan)
{
    MemoryTimeline out;
    out.stage = stage.index;
    out.terms = stage;
    out.capacityBytes = stage.capacityBytes;
    out.makespan = makespan;
    out.sizes = sizes;
    for (const MemoryTerm &term : kMemoryTerms)
        if (term.bytes != &StageReport::activationsBytes &&
            term.bytes != &StageReport::cachedOutputsBytes && term.bytes != &StageReport::lossBytes)
            out.flatBytes = saturatingAdd(out.flatBytes, stage.*term.bytes);

    std::vector<const ScheduleOp *> ops;
    for (const ScheduleOp &op : timeline)
        if (op.stage == stage.index)
            ops.push_back(&op);
    // A stage runs one op at a time: by start, its ops are in the order its schedule runs them.
    std::stable_sort(ops.begin(), ops.end(),
                     [](const ScheduleOp *a, const ScheduleOp *b) { return a->start < b->start; });

    const int chunks = std::max(sizes.chunks, 1);
    int alive = 0; // chunks whose activations are kept
    std::vector<int> aliveByChunk(static_cast<std::size_t>(chunks), 0);
    const auto keep = [&](const ScheduleOp &op, int change) {
        alive += change;
        if (op.chunk >= 0 && op.chunk < chunks)
            aliveByChunk[static_cast<std::size_t>(op.chunk)] += change;
    };
    bool recomputing = false; // a B rebuilding one layer (full recomputation)
    bool pairing = false;     // within an ep_overlap pair, from its B's start to its F's end
    std::int64_t cachedCount = 0;
    std::int64_t waitingLosses = 0; // micro-batches between their loss and its backward
    bool lossBackward = false;      // one of them in its backward, its buffers at their peak
    auto record = [&](double time) {
        MemoryPoint p;
        p.time = time;
        // Micro-batches whose activations are kept: none where none are (inference).
        p.microbatches = sizes.stageLayersBytes > 0 ? static_cast<double>(alive) / chunks : 0.0;
        p.activationsBytes = saturatingAdd(saturatingAdd(keptBytes(alive, aliveByChunk, sizes),
                                                         recomputing ? sizes.recomputeBytes : 0),
                                           pairing ? sizes.pairLayerBytes : 0);
        p.cachedOutputsBytes = saturatingMul(cachedCount, sizes.cachedOutputBytes);
        p.lossBytes = waitingLosses <= 0 ? 0
                      : lossBackward
                          ? saturatingAdd(saturatingMul(waitingLosses - 1, sizes.lossHeldBytes),
                                          sizes.lossPeakBytes)
                          : saturatingMul(waitingLosses, sizes.lossHeldBytes);
        p.totalBytes = saturatingAdd(
            saturatingAdd(saturatingAdd(out.flatBytes, p.activationsBytes), p.cachedOutputsBytes),
            p.lossBytes);
        if (!out.points.empty() && out.points.back().time >= time)
            out.points.back() = p; // the earlier state lasted no time
        else
            out.points.push_back(p);
    };
    record(0);
    // A pair's forward runs beside its backward (PipelineInput::expertOverlap), layer by
    // layer: each of the forward's layers is kept while the backward frees the other
    // micro-batch's, so the pair holds one layer more than its two ops in turn would.
    for (const ScheduleOp *op : ops) {
        switch (op->kind) {
        case OpKind::forward: {
            keep(*op, +1); // its outputs are saved from the moment it runs
            record(op->start);
            const bool cached = sizes.cachedOutputBytes > 0 && op->chunk == sizes.cachedChunk;
            if (cached)        // the micro-batch's logits: kept until the step ends, with one stage
                ++cachedCount; // through its backward (cachedMicrobatches)
            const bool loss = sizes.lossPeakBytes > 0 && op->chunk == sizes.cachedChunk;
            if (loss) // its loss's buffers, until its backward
                ++waitingLosses;
            if (cached || loss || pairing) {
                pairing = false; // the pair ends with its forward
                record(op->end);
            }
            break;
        }
        case OpKind::backward: {
            // The loss's backward opens the head chunk's B: its buffers at their peak.
            lossBackward = waitingLosses > 0 && op->chunk == sizes.cachedChunk;
            if (lossBackward)
                record(op->start);
            if (op->paired) {
                pairing = true;
                record(op->start);
            }
            if (sizes.recomputeBytes > 0) {
                recomputing = true;
                record(op->start);
                recomputing = false;
            }
            if (!sizes.freedAtWeight || op->fullBackward)
                keep(*op, -1);
            // One stage: the loss's saved logits go with the micro-batch's backward.
            if (sizes.cachedUntilBackward)
                cachedCount = 0;
            if (lossBackward) {
                lossBackward = false;
                --waitingLosses;
            }
            record(op->end);
            break;
        }
        case OpKind::weight:
            if (sizes.freedAtWeight)
                keep(*op, -1);
            record(op->end);
            break;
        }
    }
    const double end = std::max(makespan, out.points.back().time);
    if (out.points.back().time < end) {
        MemoryPoint last = out.points.back();
        last.time = end;
        out.points.push_back(last);
    }
    out.makespan = end;
    const auto highest = std::max_element(
        out.points.begin(), out.points.end(),
        [](const MemoryPoint &a, const MemoryPoint &b) { return a.totalBytes < b.totalBytes; });
    out.peak = static_cast<std::size_t>(std::distance(out.points.begin(), highest));
    return out;
}

MemoryStepSizes memoryStepSizes(const Scenario &s, const Presets &presets, const Report &report,
                                int stage)
{
    MemoryStepSizes sizes;
    const ModelSpec *model = resolveModel(s, presets);
    if (!model || stage < 0 || stage >= static_cast<int>(report.stages.size()) ||
        s.mode != Mode::training)
        return sizes;
    const StageReport &st = report.stages[static_cast<std::size_t>(stage)];
    const DeviceSpec *device = resolveDevice(s, presets);
    if (!device)
        return sizes;
    const ActivationConfig act = activationConfig(s, *model, *device);
    // The same terms as core::evaluate (docs/activations.md, "Per stage").
    // Multi-token prediction's layers keep what a layer of their kind keeps.
    const int layers = st.layers + st.mtpLayers;
    const int moeLayers = st.moeLayers + mtpMoeLayers(*model, st.mtpLayers);
    // offload_layers (one stage, one micro-batch alive at a time): what the device holds of
    // it, the report's own term (docs/activations.md, "Offloaded layers").
    sizes.stageLayersBytes =
        st.offloadedLayers > 0 ? st.activationsBytes
        : recomputesSomeLayers(s)
            ? partlyRecomputedStageBytes(s, *model, act)[static_cast<std::size_t>(stage)]
            : stageActivationBytes(*model, act, layers, moeLayers);
    sizes.chunks = chunksPerStage(s.schedule, s.virtualStages);
    sizes.freedAtWeight = splitsWeightGradients(s.schedule);
    sizes.recomputeBytes = stageRecomputePeakBytes(*model, act, layers, moeLayers);
    sizes.pairLayerBytes = st.pairLayerBytes;
    ActivationConfig moeAct = act;
    moeAct.moe = true;
    const std::vector<std::int64_t> bytes =
        unequalChunkBytes(s, *model, act, layerActivationBytes(*model, act),
                          model->hasExperts() ? layerActivationBytes(*model, moeAct) : 0);
    for (int c = 0; !bytes.empty() && c < sizes.chunks; ++c)
        sizes.chunkBytes.push_back(
            bytes[static_cast<std::size_t>(virtualStageOf(s.schedule, s.pp, stage, c))]);
    // The report keeps m micro-batches' logits (pytorch/pytorch#159251): one is 1/m of them.
    // DualPipe's end stages each keep those of the half whose direction ends there: the
    // reverse direction's (chunk 1) on stage 0, the forward one's (chunk 0) on stage K - 1.
    const auto cachedCount =
        static_cast<std::int64_t>(cachedMicrobatches(s, passedShare(s.schedule)));
    if (st.cachedOutputsBytes > 0 && cachedCount > 0)
        sizes.cachedOutputBytes = st.cachedOutputsBytes / cachedCount;
    sizes.cachedChunk = s.schedule == Schedule::dualPipe ? (stage == 0 ? 1 : 0) : sizes.chunks - 1;
    sizes.cachedUntilBackward = s.pp == 1;
    // One micro-batch's loss buffers, as evaluate counts them: through its B, and held (what a
    // second waiting micro-batch adds).
    if (st.lossBytes > 0) {
        const int losses = 1 + st.mtpLayers;
        const int e = act.bytesPerValue;
        sizes.lossPeakBytes = lossBufferBytes(s, *model, losses, 1, e);
        sizes.lossHeldBytes = lossBufferBytes(s, *model, losses, 2, e) - sizes.lossPeakBytes;
    }
    return sizes;
}

MemoryTimeline memoryTimeline(const Scenario &s, const Presets &presets, const Report &report,
                              int stage)
{
    if (stage < 0 || stage >= static_cast<int>(report.stages.size()) || report.timeline.empty())
        return {};
    return memoryTimeline(report.timeline, report.stages[static_cast<std::size_t>(stage)],
                          memoryStepSizes(s, presets, report, stage), report.makespanS);
}

int highestStage(const Report &report)
{
    int best = 0;
    for (const StageReport &st : report.stages)
        if (st.totalBytes > report.stages[static_cast<std::size_t>(best)].totalBytes)
            best = st.index;
    return best;
}

} // namespace core
