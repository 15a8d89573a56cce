#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"
#include "core/schedule.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace core {

// One device's memory at one moment of the step: what it holds from `time` until the next
// point's time.
struct MemoryPoint
{
    double time = 0;
    double microbatches = 0;             // activations alive, in micro-batches (chunks / v)
    std::int64_t activationsBytes = 0;   // kept activations, plus a layer being recomputed
    std::int64_t cachedOutputsBytes = 0; // logits kept so far on the last stage
    std::int64_t lossBytes = 0;          // the losses waiting for their backward, one in it
    std::int64_t totalBytes = 0;         // flat + activations + cached outputs + loss
};

// What one op of the schedule adds or frees on its stage, from the report's own numbers.
struct MemoryStepSizes
{
    std::int64_t stageLayersBytes = 0;  // one micro-batch's activations: stage layers × per layer
    int chunks = 1;                     // v with interleaved 1F1B: an F keeps 1/v of them
    bool freedAtWeight = false;         // ZB-H1, DualPipe(V): the W pass, not the B, frees them
    std::int64_t recomputeBytes = 0;    // full recomputation: one layer rebuilt during a B
    std::int64_t cachedOutputBytes = 0; // last stage: one micro-batch's logits, kept from its F
    int cachedChunk = 0; // the chunk whose F computes them: v - 1 (DualPipe: the one ending here)
    bool cachedUntilBackward = false; // one stage: held from the F until its B, not the step's end
    // The head's stage: one micro-batch's loss buffers from its F until its B, and during
    // that B (docs/activations.md, "The loss").
    std::int64_t lossHeldBytes = 0;
    std::int64_t lossPeakBytes = 0;
    std::int64_t pairLayerBytes = 0; // ep_overlap: one layer more during a B-and-F pair
    // Where this stage's chunks keep different bytes, one micro-batch's on each chunk c
    // (core::unequalChunkBytes); empty: each a 1/chunks share of stageLayersBytes.
    std::vector<std::int64_t> chunkBytes{};
};

// One device of one pipeline stage through one step.
struct MemoryTimeline
{
    int stage = 0;
    StageReport terms; // the stage's terms in the report, each at its peak
    // The terms no op changes within a step: weights, gradients, optimizer states, ZeRO
    // buffers, KV cache and reserve.
    std::int64_t flatBytes = 0;
    std::int64_t capacityBytes = 0;
    double makespan = 0;
    MemoryStepSizes sizes;
    // In time order: the first at 0, the last at the makespan, one per change (a state that
    // lasts no time is replaced by the one after it).
    std::vector<MemoryPoint> points;
    std::size_t peak = 0; // the first point with the highest total
};

// The steps of one stage's memory through the simulated schedule (Report::timeline): each
// F keeps one chunk's activations, each B frees them (the W with ZB-H1), as
// core::inflightMicrobatches counts; a B under full recomputation holds one rebuilt layer on
// top (docs/activations.md, "Parallelism and recomputation"); on the last stage each
// micro-batch's logits are kept from the end of its last F (pytorch/pytorch#159251), and its
// loss's buffers until its B, at their peak through that B.
// `stage` supplies the flat terms and the capacity. Ops of other stages are skipped.
MemoryTimeline memoryTimeline(const std::vector<ScheduleOp> &timeline, const StageReport &stage,
                              const MemoryStepSizes &sizes, double makespan);

// The same for a scenario and its report (evaluated with EvaluateOptions::timeline): the
// sizes as core::evaluate computes them. Empty points when the report has no timeline or no
// such stage.
MemoryStepSizes memoryStepSizes(const Scenario &scenario, const Presets &presets,
                                const Report &report, int stage);
MemoryTimeline memoryTimeline(const Scenario &scenario, const Presets &presets,
                              const Report &report, int stage);

// The stage whose report total is highest (the first of equals): the one to show first.
int highestStage(const Report &report);

} // namespace core
