#pragma once

#include "core/comm_cost.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// Where one training or inference step's time goes (docs/step_time.md), in the order the
// breakdown lists and the Step time chart stacks the parts. Each row is one part: adding a
// part is one row here and the code that times it.
enum class TimePart : std::uint8_t
{
    matmul,
    memoryBound,
    attention,
    recompute,
    embeddingHead,
    tpComm,
    expertComm,
    contextComm,
    pipelineComm,
    offload,
    bubble,
    dpSync,
    optimizer
};

struct TimePartInfo
{
    TimePart part;
    std::string_view key;   // JSON key in "time_breakdown"
    std::string_view label; // chart legend and text report
    std::string_view description;
};

inline constexpr std::array kTimeParts{
    TimePartInfo{TimePart::matmul, "matmul_s", "matrix multiplies",
                 "QKV, output and feed-forward projections, forward and backward"},
    TimePartInfo{TimePart::memoryBound, "memory_bound_s", "memory-bound",
                 "norms, activation functions, dropout, residual adds and rotary embeddings, "
                 "timed at memory bandwidth"},
    TimePartInfo{TimePart::attention, "attention_s", "attention",
                 "the attention core (QKᵀ, softmax, × V), forward and backward"},
    TimePartInfo{TimePart::recompute, "recompute_s", "recomputation",
                 "forward work rerun before the backward pass"},
    TimePartInfo{TimePart::embeddingHead, "embedding_head_s", "embedding and LM head",
                 "the embedding on the first stage; the LM head and the loss on the last"},
    TimePartInfo{TimePart::tpComm, "tp_comm_s", "tensor-parallel comm.",
                 "all-reduces, or reduce-scatters and all-gathers with sequence parallelism, "
                 "not overlapped"},
    TimePartInfo{TimePart::expertComm, "expert_comm_s", "expert all-to-all",
                 "every MoE layer's dispatch and combine of routed tokens, and their gathers "
                 "over expert tensor parallelism"},
    TimePartInfo{TimePart::contextComm, "context_comm_s", "context-parallel exchange",
                 "keys and values passed around the C devices of a sequence, where attention "
                 "does not hide them"},
    TimePartInfo{TimePart::pipelineComm, "pipeline_comm_s", "pipeline sends",
                 "blocking point-to-point sends of activations and gradients between stages"},
    TimePartInfo{TimePart::offload, "offload_s", "activation offload",
                 "the layers' wait for their activations' copies to host memory in forward "
                 "and back in backward where a copy outlasts the layers it runs beside "
                 "(offload_layers)"},
    TimePartInfo{TimePart::bubble, "bubble_s", "bubble",
                 "time the stage waits in the pipeline schedule"},
    TimePartInfo{TimePart::dpSync, "dp_comm_s", "data-parallel sync",
                 "the gradient and parameter synchronisation not hidden behind the passes, and "
                 "what the hidden part costs them in the SMs its kernels hold; with pipeline "
                 "stages, also the embedding's gradients all-reduced between the first stage "
                 "and the last where the LM head or the MTP layers keep a copy"},
    TimePartInfo{TimePart::optimizer, "optimizer_s", "optimizer step",
                 "the passes after the step at memory bandwidth, as the framework runs them: "
                 "gradients cast and scaled, their norm, the Adam update, the weights written "
                 "from the master copy and the gradients zeroed"},
};
inline constexpr std::size_t kTimePartCount = kTimeParts.size();

// Below this modelled training step, published runs ran from kShortStepShorter shorter to
// kShortStepLonger times as long as modelled (docs/step_time.md, "MLPerf Training"): the step
// may be short, evaluate's short-step warning and the planner's "≥".
inline constexpr double kShortStepS = 0.25;
// MLPerf Training v6.0's Llama 3.1 8B on 512 GB300s, 16 % shorter (docs/step_time.md).
inline constexpr double kShortStepShorter = 0.16;
// NVIDIA/Megatron-LM#5438, twice as long (docs/step_time.md).
inline constexpr double kShortStepLonger = 2;
// The share of a stage the loss's buffers take where the loss-buffers warning names them.
inline constexpr double kLossBuffersWarnShare = 0.1;

// Megatron-Bridge's dropless Qwen3 MoE runs took this much longer per MoE layer and
// micro-batch, forward and backward, than modelled, from the B300's and GB300's at micro-batch
// 8 to the H100s' at 1, and its Qwen3 runs padded to capacity about as much (1.6 to 4.3 ms),
// all outside a CUDA graph of the whole step (docs/step_time.md, "Fine-grained experts"): a
// host-side cost of the MoE layers the model does not time.
// Evaluate's moe-host warning quotes the range where its low end adds kMoeHostWarnShare or
// more to the step, and the planner marks such steps "≥".
inline constexpr double kMoeHostGapMinS = 1.7e-3;
inline constexpr double kMoeHostGapMaxS = 4.3e-3;
inline constexpr double kMoeHostWarnShare = 0.05;

// PyTorch FSDP2's published runs on Hopper (OLMo-core on 8 H100s, torchtitan on 32 and 64
// H200s) took this share of their gathers' and reduce-scatters' modelled time beyond the
// modelled step: 28 to 40 % OLMo-core's 7B, 8B and 13B in BF16 and FP8 but the 13B in FP8,
// 66 %; torchtitan's 53 and 64 % (docs/step_time.md, "OLMo-core on 8 H100"). Evaluate's
// fsdp-overlap warning quotes the range where its high end adds kFsdpOverlapWarnShare or more
// to the step, and the planner marks such steps "≥".
inline constexpr double kFsdpOverlapMinShare = 0.28;
inline constexpr double kFsdpOverlapMaxShare = 0.66;
inline constexpr double kFsdpOverlapWarnShare = 0.05;

const TimePartInfo &timePartInfo(TimePart part);

// The parts add up to the step time exactly: the stage's own work and its bubble make the
// simulated makespan; the exposed data-parallel sync and the optimizer step come after it.
struct TimeBreakdown
{
    std::array<double, kTimePartCount> seconds{};

    double &operator[](TimePart part) { return seconds[static_cast<std::size_t>(part)]; }
    double operator[](TimePart part) const { return seconds[static_cast<std::size_t>(part)]; }
    double total() const;
    // The stage's own work in the pipeline: everything but bubble, DP sync and optimizer.
    double stageWork() const;
    bool operator==(const TimeBreakdown &) const = default;
};

// The optimizer step's passes, bytes a parameter (docs/step_time.md, "Optimizer").
struct OptimizerTraffic
{
    // Per parameter the device owns (1/D of the stage's from ZeRO-1):
    double cast = 0;      // 16-bit gradients cast to the FP32 the update reads
    double scale = 0;     // the FP32 gradients scaled in place (loss scale, clipping)
    double norm = 0;      // read for the global norm
    double adam = 0;      // the update: gradient, parameter and moments
    double writeBack = 0; // the master copy written to the weights as held
    // Per gradient the device holds (1/D from ZeRO-2): zeroed for the next step.
    double zero = 0;
    double owned() const { return cast + scale + norm + adam + writeBack; }
};

struct StepTimeReport
{
    double stepTimeS = 0;
    double makespanS = 0;                 // the simulated pipeline: every stage's work and bubble
    double tokensPerS = 0;                // global: m × microbatch_size × seq_len × D per step
    double mfuAchieved = 0;               // model FLOPs ÷ (devices × peak × step time)
    std::optional<double> energyJPerStep; // empty when the device publishes no TDP
    std::optional<double> energyJPerMillionTokens;
    TimeBreakdown breakdown;           // the busiest stage's, which sets the pace
    std::vector<TimeBreakdown> stages; // every stage's, each adding up to the step time
    int busiestStage = 0;
    std::string dpLink = "intra-node"; // the link the data-parallel group talks over
    std::int64_t dpBytesPerStep = 0;   // sent by one device of the busiest stage, ring
    // The collectives that stage's reduction (and gather) is split into, each a call paying its
    // ring's latency (docs/step_time.md, "Buckets"); 0 without D > 1.
    int dpBuckets = 0;
    // The ring's achieved bus bandwidth per device, 10^9 B/s: across nodes, the NICs its
    // members have in one node times one NIC's, at most NVLink's (ringLink); 0 without D > 1.
    double dpBusGbPerS = 0;
    double dpCommTotalS = 0; // the longest stage's, before overlap hides part of it
    // Training with K > 1 where the LM head's stage keeps a copy of the embedding (tied, or
    // for the MTP layers): its gradients' all-reduce with the first stage's, part of the
    // exposed sync (docs/step_time.md, "Embedding gradients"); 0 elsewhere.
    double embeddingSyncS = 0;
    // A mixture of experts' routed experts reduce over the expert data-parallel group, T x C x
    // D / (E x expert T) ranks E x expert T apart (docs/experts.md, "Gradient sync"): that
    // ring's bus bandwidth and its share of dpBytesPerStep; 0 where no expert is synced.
    int expertDpRanks = 0;
    std::string expertDpLink;
    double expertDpBusGbPerS = 0;
    std::int64_t expertDpBytesPerStep = 0;
    // Hybrid sharding (zero_replicas R > 1): the R replicas all-reduce each shard's gradients
    // over ranks D x C / R apart (docs/step_time.md, "Hybrid sharding"): that ring's link, bus
    // bandwidth and share of dpBytesPerStep; 0 with R = 1.
    int dpReplicas = 0;
    std::string dpReplicaLink;
    double dpReplicaBusGbPerS = 0;
    std::int64_t dpReplicaBytesPerStep = 0;
    // Inference only: a link the forward needs publishes no bandwidth (the SN40L's), so its
    // transfers take no time here and the step time is a lower bound (docs/step_time.md).
    // The planner ranks no such layout.
    bool linkTimeExcluded = false;
    // Training: the optimizer step of the stage with the most parameters (every stage's
    // runs at once), optimizer.owned() × ownedParams + optimizer.zero × heldParams bytes at
    // memoryBytesPerS.
    OptimizerTraffic optimizer;
    double optimizerOwnedParams = 0;
    double optimizerHeldParams = 0;
    double memoryBytesPerS = 0; // the achieved bandwidth of a fused pass
    // Training, where evaluate's moe-host warning applies: what the untimed host cost the
    // published runs took (kMoeHostGapMinS to kMoeHostGapMaxS a MoE layer and micro-batch) puts
    // on top of the step, through the stage it slows most: that stage's own work plus its MoE
    // layers × micro-batches × the gap, less the busiest stage's work; 0 elsewhere.
    double moeHostLowS = 0;
    double moeHostHighS = 0;
    // Training: the weights' casts that run once a step, in the first micro-batch's forward
    // (PipelineInput::firstForwardExtra; docs/step_time.md, "Weight casts"), among each stage's
    // memory-bound time: the busiest stage's seconds, its cast parameters and the bytes each.
    double weightCastOnceS = 0;
    double weightCastOnceParams = 0;
    double weightCastOnceBytesPerParam = 0;
    int moeHostStage = 0;                // the stage the wait slows most
    double moeHostLayerMicrobatches = 0; // its MoE layers × micro-batches
    // The attention kernel's rates at the model's head width over its rates at the width they
    // were measured at (docs/step_time.md, "Head width"), forward and backward; 1 where the
    // device gives no curve, eager attention, or a forced mfu. headWidth: the mean of the
    // query/key and value head dimensions.
    // offload_layers: what one micro-batch's forward and backward wait for the copies, one
    // layer's copy (the first's) and the host link's sustained bytes a second.
    double offloadForwardS = 0;
    double offloadBackwardS = 0;
    double offloadCopyS = 0;
    double hostBytesPerS = 0;
    double headWidth = 0;
    double attentionWidthForward = 1;
    double attentionWidthBackward = 1;
};

// Gradient synchronisation of one device over a data-parallel group of `dp`, by where each
// collective can hide (docs/step_time.md, "Data-parallel sync"): once per step, behind the
// last micro-batch's backward or the first one's forward, or in every micro-batch, behind
// that micro-batch's backward or forward.
struct DpSync
{
    std::int64_t bytesPerStep = 0;
    double seconds = 0; // per step: the once-per-step collectives plus m × the per-micro-batch
    double stepBackwardS = 0;
    double stepForwardS = 0;
    double microbatchBackwardS = 0;
    double microbatchForwardS = 0;
    int microbatches = 1;
};

// With m micro-batches (Rajbhandari et al. 2020, §7; the per-step volumes are theirs at m = 1):
// ZeRO 0 all-reduces the accumulated gradients once; 1 reduce-scatters them once and
// all-gathers the updated parameters; 2 keeps only its gradient partition, so it
// reduce-scatters after every micro-batch; 3 also gathers the parameters in every
// micro-batch's forward and again in its backward.
// `buckets`: the collectives each split into that many, each a call of its own.
DpSync dpGradientSync(int zero, std::int64_t gradBytes, std::int64_t weightBytes, int dp,
                      const Link &link, int microbatches = 1, int buckets = 1);

// Hybrid sharding: the all-reduce of one device's gradient shard, `shardGradBytes`, over the
// `replicas` that hold the same shard, at the reduce-scatter's cadence (PyTorch FSDP's
// HYBRID_SHARD reduce-scatters inside the shard group, then all-reduces across it:
// torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, foreach_reduce; Megatron-core's
// distributed optimizer instances likewise, once a step). ZeRO 0 shards nothing: nothing here.
// `deferred`: at ZeRO 2 and 3 too, once a step, after the last micro-batch (FSDP2's
// set_requires_all_reduce(False) before it).
DpSync replicaGradientSync(int zero, std::int64_t shardGradBytes, int replicas, const Link &link,
                           int microbatches = 1, int buckets = 1, bool deferred = false);

// The part of one stage's data-parallel sync the step waits for. `overlap` set: that fraction
// is hidden. Unset ("auto"): each collective hides behind the micro-batch pass it can overlap
// (`forwardS`, `backwardS`: the stage's time for one micro-batch) and what outlasts it is
// exposed.
// `gatherOverlapped` false: the once-per-step parameter gather runs in the optimizer step and
// is waited for whole (DeepSpeed's ZeRO-1 and 2).
// `edgeShare`: the share of each collective in its edge bucket, the last reduced or the first
// gathered, which no pass hides (docs/step_time.md, "Buckets"); 0: split ever finer.
double dpExposedSeconds(const DpSync &sync, std::optional<double> overlap, double forwardS,
                        double backwardS, bool gatherOverlapped = true, double edgeShare = 0);

// Of what dpExposedSeconds exposes, what runs after the stage's last backward: the last
// reduction (with `gatherOverlapped` false, the gather after it). A pipeline stage that idles
// after its last op (the drain, PipelineResult::tailIdle) runs it there while other stages
// still work, so the step waits only for what outlasts that idle time. With `overlap` set,
// none: a fixed share of the whole is hidden.
double dpEndSeconds(const DpSync &sync, std::optional<double> overlap, double backwardS,
                    bool gatherOverlapped = true, double edgeShare = 0);

struct StepTimeInput
{
    double makespanS = 0; // simulated pipeline step (work + bubble)
    // Each stage's own work in that step; its dpSync part, a gather it waited for inside the
    // pipeline (the exposed sync after it is added).
    std::vector<TimeBreakdown> stageWork;
    double dpCommS = 0;           // the longest stage's sync per step, before overlap
    double dpExposedS = 0;        // the most any stage waits for it
    double optimizerS = 0;        // the slowest stage's optimizer step
    double tokensPerStep = 0;     // global
    double modelFlopsPerStep = 0; // 6·N·tokens (training) or 2·N·tokens (inference)
    int devices = 1;
    double peakFlops = 0; // one device, FLOP/s
    double tdpW = 0;      // one device; 0 = not published
};

StepTimeReport stepTime(const StepTimeInput &in);

} // namespace core
