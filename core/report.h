#pragma once

#include "core/error.h"
#include "core/op_model.h"
#include "core/scenario.h"
#include "core/schedule.h"
#include "core/serving.h"
#include "core/step_time.h"
#include "core/units.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace core {

// What one device of a pipeline stage holds, in bytes.
struct StageReport
{
    int index = 0;
    int layers = 0;
    int moeLayers = 0;             // of `layers`, those with experts (docs/experts.md)
    int slidingLayers = 0;         // of `layers`, those attending through the sliding window
    int mtpLayers = 0;             // multi-token-prediction depths beside `layers`
    std::int64_t params = 0;       // parameters on one device of this stage
    std::int64_t expertParams = 0; // of `params`, this device's share of the routed experts
    // Of `params`, those that train: all, or under LoRA the adapters alone; and of those, the
    // routed experts'. Gradients, optimizer states and their sync are theirs.
    std::int64_t trainableParams = 0;
    std::int64_t trainableExpertParams = 0;
    // Of `params`, the weights the FP8 or NVFP4 multiplies cast: the layers' (the LM head's too
    // with fp8_lm_head), without the embedding and LoRA's adapters (training).
    std::int64_t castParams = 0;
    std::int64_t weightsBytes = 0;
    std::int64_t gradsBytes = 0;
    std::int64_t optimizerBytes = 0;
    std::int64_t activationsBytes = 0;    // in-flight micro-batches' activations (training)
    std::int64_t cachedOutputsBytes = 0;  // last stage's kept logits (pytorch/pytorch#159251)
    std::int64_t lossBytes = 0;           // the loss's own buffers on the head's stage (training)
    std::int64_t castWeightsBytes = 0;    // the weights' cached FP8 or NVFP4 copies (training)
    std::int64_t kvCacheBytes = 0;        // inference
    std::int64_t prefillBuffersBytes = 0; // inference: one micro-batch's prefill working set
    double inflightMicrobatches = 0;      // peak micro-batches with live activations (chunks / v)
    // Of activationsBytes, the one layer an ep_overlap pair keeps beyond the schedule's count.
    std::int64_t pairLayerBytes = 0;
    // offload_layers: the layers whose activations go to host memory, and the host bytes one
    // device of the stage holds for them at the end of a micro-batch's forward (not counted in
    // totalBytes, which is the device's).
    int offloadedLayers = 0;
    std::int64_t offloadedBytes = 0;
    // Of them, the host memory one device can count on (host_memory_gb; 0: not published, not
    // checked), and whether the offloaded bytes exceed it: then the stage does not fit either.
    std::int64_t hostCapacityBytes = 0;
    bool hostOverflow = false;
    std::int64_t reserveBytes = 0;
    std::int64_t zeroBuffersBytes = 0; // the ZeRO implementation's own buffers (zero_buffers)
    std::int64_t totalBytes = 0;
    std::int64_t capacityBytes = 0;
    std::int64_t headroomBytes = 0; // negative when the stage does not fit
    bool fits = false;
};

// The memory terms of a stage, in one fixed order: the report's columns and JSON fields, the
// stage memory chart's stack (colours by position), the stage total, and the order ties are
// settled in when naming the largest term. A new term is one row here and its member above.
struct MemoryTerm
{
    const char *name;   // as warnings and the planner's rejections name it
    const char *key;    // the stage's field in the JSON report
    const char *label;  // the stage memory chart's legend
    const char *column; // the text report's column header, at most 8 characters
    std::int64_t StageReport::*bytes;
};
inline constexpr MemoryTerm kMemoryTerms[] = {
    {"weights", "weights_bytes", "Weights", "Weights", &StageReport::weightsBytes},
    {"gradients", "grads_bytes", "Gradients", "Grads", &StageReport::gradsBytes},
    {"optimizer states", "optimizer_bytes", "Optimizer", "Optim", &StageReport::optimizerBytes},
    {"activations", "activations_bytes", "Activations", "Activ.", &StageReport::activationsBytes},
    {"cached outputs", "cached_outputs_bytes", "Cached outputs", "Cached",
     &StageReport::cachedOutputsBytes},
    {"KV cache", "kv_cache_bytes", "KV cache", "KV", &StageReport::kvCacheBytes},
    {"prefill buffers", "prefill_buffers_bytes", "Prefill buffers", "Prefill",
     &StageReport::prefillBuffersBytes},
    {"reserve", "reserve_bytes", "Reserve", "Reserve", &StageReport::reserveBytes},
    {"ZeRO buffers", "zero_buffers_bytes", "ZeRO buffers", "ZeRO buf",
     &StageReport::zeroBuffersBytes},
    {"loss buffers", "loss_bytes", "Loss buffers", "Loss", &StageReport::lossBytes},
    {"cast weights", "cast_weights_bytes", "Cast weights", "Cast W",
     &StageReport::castWeightsBytes},
};

// The sum of a stage's terms: its total. A sum past 64 bits stays at the largest value
// (kTooLarge) rather than wrapping round to a negative number.
inline std::int64_t memoryTermsTotal(const StageReport &stage)
{
    std::int64_t total = 0;
    for (const MemoryTerm &term : kMemoryTerms)
        total = saturatingAdd(total, stage.*term.bytes);
    return total;
}

// The biggest term of a stage, what to shrink first; on a tie the first in kMemoryTerms, so
// the answer never depends on where the compiler put a string.
inline const char *largestMemoryTerm(const StageReport &stage)
{
    const MemoryTerm *largest = &kMemoryTerms[0];
    for (const MemoryTerm &term : kMemoryTerms)
        if (stage.*term.bytes > stage.*largest->bytes)
            largest = &term;
    return largest->name;
}

// What to shrink first where a stage does not fit: its biggest term, or where the device holds
// it all and only the activations it offloads overflow host memory, "host memory".
inline const char *overflowTerm(const StageReport &stage)
{
    return stage.hostOverflow && stage.headroomBytes >= 0 ? "host memory"
                                                          : largestMemoryTerm(stage);
}

// The whole model's weights at one precision (docs/worked-examples.md §1).
struct PrecisionSize
{
    Precision precision = Precision::bf16;
    std::int64_t bytes = 0;        // from the exact parameter count
    std::int64_t nominalBytes = 0; // from the nominal size
};

// A valid configuration worth pointing out (docs/DESIGN.md §4, "warning" column).
struct Warning
{
    Warning() = default;
    Warning(std::string codeText, std::string messageText, std::string key = {},
            std::string value = {})
        : code(std::move(codeText)), message(std::move(messageText)), setKey(std::move(key)),
          setValue(std::move(value))
    {}

    std::string code; // stable identifier, e.g. "does-not-fit"
    std::string message;
    // A scenario key and value that answer it, where one does ("recompute_layers", "43"):
    // the window's Apply link, eval's JSON (`set`); empty otherwise.
    std::string setKey;
    std::string setValue;
};

// Tensor-parallel traffic of one device of the busiest stage (docs/DESIGN.md §3.4).
struct TpCommReport
{
    int collectivesPerLayer = 0;   // per layer per micro-batch, forward and backward
    std::int64_t bytesPerStep = 0; // sent by one device: its layers x m micro-batches, ring
    std::string link = "intra-node";
    std::optional<double> timePerStepS = 0.0; // empty when the link's bandwidth is not published
};

// Every number derived from a scenario. When `error` is set the scenario was
// invalid and nothing else is meaningful.
struct Report
{
    std::optional<InputError> error;

    std::string modelId;
    std::string modelName;
    std::string deviceId;
    std::string deviceName;
    Framework framework = Framework::custom;
    std::vector<std::string> frameworkChanged; // the profile's keys set differently
    Precision precision = Precision::bf16;
    Mode mode = Mode::training;
    // LoRA in training: the adapters' rank and the projections they sit beside
    // (Scenario::loraRank, loraModules); 0 when every weight trains.
    int loraRank = 0;
    std::string loraModules;

    std::int64_t params = 0;              // exact, from the architecture
    std::int64_t nominalParams = 0;       // advertised size
    std::int64_t weightsBytes = 0;        // params at the precision
    std::int64_t nominalWeightsBytes = 0; // nominal size × bytes (docs/worked-examples.md §1)

    int tp = 1;
    int pp = 1;
    int dp = 1;
    int cp = 1;
    int ep = 1;
    int expertTp = 1; // as used: T when the scenario leaves it at 0
    int expertDp = 1; // T x C x D / (E x expert T)
    // Under a capacity factor, the routed copies each expert computes against its even share
    // (docs/experts.md, "Capacity"); 1 dropless.
    double expertLoad = 1;
    std::int64_t activeParams = 0; // per token (docs/experts.md, "Active parameters")
    int devices = 1;
    int minTpForWeights = 0; // smallest power-of-two T whose weights fit one device; 0 if none

    // Bytes kept per parameter in training (docs/DESIGN.md §3.5), before ZeRO.
    double weightBytesPerParam = 0;
    double gradBytesPerParam = 0;
    double optimizerBytesPerParam = 0;
    // Bytes a cast parameter of the weights' cached FP8 or NVFP4 copy (fp8_weight_cache;
    // docs/activations.md, "Cast weights"); 0 where none is kept.
    double castWeightBytesPerParam = 0;
    // The optimizer updates FP32 parameters that the framework casts for its multiplies
    // (PyTorch FSDP2, autocast): no master copy among the optimizer states, 4 more bytes a
    // parameter among the weights (docs/frameworks.md, "torchtitan, FP32 parameters").
    bool fp32Parameters = false;

    std::vector<PrecisionSize> sizeByPrecision; // every precision, in enumNames order

    std::vector<StageReport> stages;
    bool fits = false;
    int firstOverflowStage = -1;
    std::string firstOverflowTerm; // the largest term of that stage ("optimizer states")
    int overflowStages = 0;        // how many stages do not fit
    int worstOverflowStage = -1;   // the stage furthest over its capacity
    std::string worstOverflowTerm; // the largest term of that stage
    std::vector<Warning> warnings;
    TpCommReport tpComm;
    // The per-operation model's table (docs/step_time.md): one layer's operations on one
    // device for one micro-batch, and the embedding, LM head and loss of the end stages.
    std::vector<LayerOp> layerOps;
    std::vector<LayerOp> endOps;
    std::size_t firstStageEndOps = 0; // endOps' first this many are the first stage's

    // The schedule's event simulation (docs/DESIGN.md §3.3).
    double bubbleFraction = 0;                      // 1 - busy / (K × makespan)
    std::optional<double> bubbleFractionClosedForm; // only where it holds
    std::string bubbleClosedFormMissing;            // why there is none, when there is none
    double makespanS = 0; // one step; in layer-time units when the device has no peak FLOPS
    // makespanS and the timeline count layer-times, not seconds; warning "no-timing" too.
    bool timeInLayerUnits = false;
    std::string untimedReason;        // why: "SambaNova SN40L publishes no int4 peak FLOPS"
    std::vector<ScheduleOp> timeline; // only with EvaluateOptions::timeline
    // With EvaluateOptions::timeline, why the timeline is empty: more blocks than
    // limits::kTimelineBlocks. The rest of the report is complete.
    std::optional<InputError> timelineRefused;

    // The step-time model (docs/step_time.md); empty in layer-time units or when a link
    // the step needs has no published bandwidth.
    std::optional<StepTimeReport> stepTime;

    // Inference: prefill, decode per output token, latency and throughput of one replica
    // (docs/inference.md); empty in training, in layer-time units, or when a link is unknown.
    std::optional<ServingReport> serving;

    bool ok() const { return !error; }
    bool hasWarning(std::string_view code) const
    {
        for (const auto &w : warnings)
            if (w.code == code)
                return true;
        return false;
    }
};

} // namespace core
