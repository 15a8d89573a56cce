#pragma once

#include "core/scenario.h"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// One scenario key a framework profile sets, as `setField` takes it.
struct ProfileSetting
{
    std::string_view key;
    std::string_view value;
    std::string_view why; // the framework's behaviour behind the value, with its source
};

// How a framework splits its data-parallel sync into buckets (dp_bucket_params = auto).
enum class DpBuckets
{
    // Megatron-LM's default, max(40M, 1M × the data-parallel group's D·C ranks) parameters
    // (megatron/core/distributed/distributed_data_parallel.py).
    megatron,
    // A fixed number of parameters, FrameworkProfile::dpBucketParams.
    fixed,
    // PyTorch FSDP2's units, one per module torchtitan wraps: the embedding is the first unit
    // gathered and the last reduced (torchtitan/distributed/fsdp.py).
    fsdpUnits,
};

// Whose optimizer step a framework runs, for the passes it makes over the parameters
// (docs/step_time.md, "Optimizer").
enum class OptimizerStep
{
    // Megatron-LM's MixedPrecisionOptimizer: an FP32 master copy of the 16-bit weights,
    // gradients scaled only when they clip (clip_grad_norm_fp32), the gradient buffer zeroed
    // for the next step (DistributedDataParallel.zero_grad_buffer).
    megatron,
    // torch.optim on FP32 parameters that PyTorch FSDP2 casts at each gather: no master copy,
    // every gradient scaled by the clipping coefficient (clip_grads_with_norm_), gradients
    // freed (zero_grad(set_to_none=True)).
    torch,
    // DeepSpeed: BF16_Optimizer under ZeRO-1 with FP32 accumulation (deepspeed/runtime/
    // engine.py, _do_optimizer_sanity_check), otherwise ZeRO's own, which scales every
    // gradient (unscale_and_clip_grads) and frees them; both keep FP32 master partitions.
    deepspeed,
};

// A training framework's defaults as a block of scenario keys, and the layouts it offers
// (docs/frameworks.md). Choosing the framework sets the block; every key stays settable,
// and a key set differently afterwards shows the profile as changed.
struct FrameworkProfile
{
    Framework framework;
    std::string_view name; // "Megatron-LM"
    std::span<const ProfileSetting> settings;
    // The ZeRO stages and pipeline schedules the framework runs; empty offers every one.
    std::span<const int> zeroStages;
    std::span<const Schedule> schedules;
    std::string_view source;
    // What the framework calls each ZeRO stage (empty: it has no such stage), and how its
    // configuration spells each recomputation (empty: it has none), for the window.
    std::array<std::string_view, 4> zeroNames{};
    // Indexed by Recompute: none, selective, full, op.
    std::array<std::string_view, 4> recomputeNames{};
    // The lowest ZeRO stage whose data-parallel sync the framework overlaps with the passes
    // (dp_overlap=auto); below it the sync runs after the backward, exposed.
    int dpOverlapFromZero = 0;
    // Whether its sharded data parallelism copies every gathered parameter out of the
    // all-gather's buffer and every gradient, in the reduce precision, into the
    // reduce-scatter's (PyTorch FSDP2), rather than working in the buffers themselves.
    bool copiesThroughCollectiveBuffers = false;
    // The selective recomputation it runs: the attention core (Megatron-LM's), or the
    // per-op policy (torchtitan's SelectiveAC); the planner tries it beside none and full.
    Recompute selectiveRecompute = Recompute::selective;
    DpBuckets dpBuckets = DpBuckets::megatron;
    double dpBucketParams = 0; // with DpBuckets::fixed
    // Whether its pipeline split can count the embedding and the loss as a layer each
    // (ends_in_pipeline_split), so that the planner tries the split both ways.
    bool countsEndsInSplit = true;
    OptimizerStep optimizerStep = OptimizerStep::megatron;
    // Whether its full recomputation can rerun the first N layers of each chunk and keep the
    // rest whole (Megatron-LM's --recompute-method block --recompute-num-layers N,
    // recompute_layers), so that the planner searches the fewest that fit.
    bool recomputesFirstLayers = true;
};

const FrameworkProfile &frameworkProfile(Framework framework);

// Sets the profile's keys on `s` (custom sets none) and records the framework.
void applyFramework(Scenario &s, Framework framework);

// The fraction of the data-parallel sync the scenario hides: its dp_overlap when set;
// otherwise none where the framework does not overlap at this ZeRO stage, and std::nullopt
// (auto: what outlasts the overlapped passes shows) where it does.
std::optional<double> dpOverlapFor(const Scenario &s);

// Whether a stage after the first syncs its parameters as one bucket of one model chunk, as
// Megatron-LM's does without interleaving (distributed_data_parallel.py: bucket_size = None
// where the pipeline rank is not 0), so that its reduction starts when its last backward ends
// and its gather is waited for whole by its first forward (docs/step_time.md, "Buckets").
// Under the Megatron-LM profile only.
bool syncsInOneBucket(const Scenario &s, int stage);

// Whether that one bucket's once-per-step gather (ZeRO-1 overlapped, dp_overlap auto) holds the
// stage's first forward: the host dispatches it from that forward's pre-hook, after the
// receive before it synchronised the device (p2p_communication.py, batch_p2p_sync), so the
// pipeline waits for it there (PipelineInput::firstForwardExtra) rather than after the step.
bool gatherHoldsFirstForward(const Scenario &s, int stage);

// The share of a stage's data-parallel collectives in their edge bucket, the last reduced and
// the first gathered (docs/step_time.md, "Buckets"): the larger of a bucket (dp_bucket_params,
// or the framework's size) and the embedding, which a bucket holds whole, over the stage's
// parameters; under FSDP2's and Megatron-FSDP's units, the embedding's share. Stage 0 only,
// but for a stage that syncsInOneBucket, all of it; the other later stages' reductions run in
// the pipeline's cooldown.
double dpEdgeShare(const Scenario &s, int stage, std::int64_t stageParams,
                   std::int64_t embeddingParams);

// How many collectives a stage's data-parallel reduction (and gather) is split into
// (docs/step_time.md, "Buckets"): Megatron-LM buckets stage 0's first model chunk by the bucket
// size, the embedding's bucket at least the embedding, and gives every other chunk, and every
// chunk of a later stage, one; FSDP2's and Megatron-FSDP's units are a layer each and the
// embedding; DeepSpeed's buckets are its fixed size on every stage.
// A bucket closes at a tensor's end: at most `stageTensors` (parameterTensors).
int dpBucketCount(const Scenario &s, int stage, std::int64_t stageParams,
                  std::int64_t embeddingParams, int stageLayers, int stageTensors);

// The profile's keys whose value in `s` differs from the profile's, in profile order.
std::vector<std::string_view> changedFromProfile(const Scenario &s);

// "Megatron-LM", "torchtitan, changed: cache_outputs", "custom": for a scenario, or for a
// report's framework and the keys it found changed.
std::string frameworkSummary(const Scenario &s);
std::string frameworkSummary(Framework framework, std::span<const std::string> changed);

// Whether the framework runs this ZeRO stage / schedule with K pipeline stages (DeepSpeed's
// pipeline engine runs ZeRO 0 and 1 only; torchtitan's ZeRO-1 is FSDP2 under pipelining).
bool offersZero(Framework framework, int zero, int pp = 1);
bool offersSchedule(Framework framework, Schedule schedule);
// Whether the framework's pipeline split can count the ends (or ends = false, which every
// framework's can).
bool offersEndsInPipelineSplit(Framework framework, bool ends);

// What the scenario asks of its framework that the framework does not run, one sentence
// each ("Megatron-LM runs ZeRO stage 0 or 1, not 3"); empty for custom.
std::vector<std::string> unsupportedByFramework(const Scenario &s);

} // namespace core
