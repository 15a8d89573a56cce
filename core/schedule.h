#pragma once

#include "core/scenario.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

// One block of a pipeline timeline: a forward (F), a backward (B: the whole
// backward, or only the input gradient in zero-bubble schedules) or a
// weight-gradient pass (W) of one micro-batch's model chunk on one stage.
enum class OpKind : std::uint8_t
{
    forward,
    backward,
    weight
};

// "F", "B" or "W", as the report and the timeline chart write them.
const char *opLetter(OpKind kind);

// Whether the schedule runs weight gradients as passes of their own (W): zb-h1, dualpipev,
// dualpipe.
bool splitsWeightGradients(Schedule schedule);

// DualPipe or DualPipeV: two chunks a device, listed orders with forward-and-backward pairs.
bool isDualPipe(Schedule schedule);

// Model chunks on each stage: v for the interleaved schedule, two for DualPipe and DualPipeV
// (DualPipe's: the device's stage of each direction), else one.
int chunksPerStage(Schedule schedule, int virtualStages);

// The stage that holds the model's last chunk, the LM head and loss: K - 1, except in
// DualPipeV's V, whose last chunk comes back to stage 0. DualPipe has one on each end
// (holdsHead).
int headStage(Schedule schedule, int stages);

// The share of a stage's layers one micro-batch passes through: a half in DualPipe, each of
// whose micro-batches runs one direction and so one of its device's two stages; else all.
double passedShare(Schedule schedule);

// Whether a stage holds the embedding: stage 0, and in DualPipe also stage K - 1, where the
// reverse direction's micro-batches enter.
bool holdsEmbedding(Schedule schedule, int stages, int stage);

// Whether a stage holds an LM head and loss: headStage, and in DualPipe both end stages.
bool holdsHead(Schedule schedule, int stages, int stage);

// The model's virtual stage j (0..chunks·K - 1) of a stage's chunk: chunk·K + stage
// (Megatron-LM's numbering; one chunk: the stage), or DualPipeV's V: chunk 0 runs the stages
// 0..K-1 in turn, chunk 1 comes back from K-1 to 0 (j = 2K - 1 - stage). DualPipe numbers its
// two directions the same way, but no micro-batch crosses from j = K - 1 to K: the forward
// direction's pipeline is j = 0..K-1, the reverse one's j = K..2K-1 (device K-1 to 0).
int virtualStageOf(Schedule schedule, int stages, int stage, int chunk);

struct ScheduleOp
{
    int stage = 0;
    OpKind kind = OpKind::forward;
    int microbatch = 0;
    // Model chunk on this stage: 0..v-1 (interleaved), 0..1 (dualpipev; dualpipe: the
    // direction, 0 entering at stage 0), else 0.
    int chunk = 0;
    double start = 0;
    double end = 0;
    double send = 0; // the last `send` seconds of [start, end]: the blocking send to a neighbour
    // Of [start, end], the seconds its MoE layers spend in the all-to-all (docs/experts.md),
    // spread through the block, layer by layer.
    double expertComm = 0;
    // Of [start, end], the seconds the pass waits for its layers' activation copies to or from
    // host memory (offload_layers; docs/activations.md, "Offloaded layers"), its last ones.
    double offloadWait = 0;
    // Of [start, end], the first seconds the pass waits for its stage's parameters to be
    // gathered (PipelineInput::firstForwardGather): a stage's first forward only.
    double gatherWait = 0;
    // One of a pair run together: in the timeline, both (PipelineInput::expertOverlap); in
    // scheduleOrder, DualPipe(V)'s second op of each forward-and-backward pair.
    bool paired = false;
    // A B that computes its weight gradients too, in a schedule that otherwise defers them
    // to W passes: DualPipe(V) outside its zero-bubble steps.
    bool fullBackward = false;
};

// What the event simulation needs. Times are seconds (or units in teaching
// mode) for a whole stage's layers and one micro-batch; chunks take 1/v each. Or, where a
// stage's chunks differ (DualPipe's two stages a device, DualPipeV's two halves of the V),
// one entry per virtual stage j (virtualStageOf), each a chunk's own: forward, backward,
// weight and the two expert-communication times all per virtual stage then.
struct PipelineInput
{
    Schedule schedule = Schedule::oneFOneB;
    int stages = 1;               // K
    int microbatches = 1;         // m
    int virtualStages = 1;        // v, interleaved only; dualpipe(v) two, other schedules one
    std::vector<double> forward;  // per stage
    std::vector<double> backward; // per stage: input gradient B (zero-bubble) or B + W
    std::vector<double> weight;   // per stage: W, used by zb-h1 and dualpipe(v) only
    double p2pLatency = 0;        // between neighbouring stages, per message
    // A blocking point-to-point send, per message: an F that feeds another stage (or chunk)
    // and a B that returns gradients to one end this much later. Megatron-LM's 1F1B waits
    // for its sends and receives (p2p_communication.py), so the stage is busy meanwhile.
    double p2pSend = 0;
    // The same per boundary b (stage b to b + 1; b = K - 1: the last stage to the first, the
    // interleaved schedule's next chunk), when the boundaries' links differ: some inside a
    // node, some across (docs/step_time.md, "Pipeline sends"). Empty: p2pSend at every one.
    std::vector<double> boundarySend;
    // Work only the model's first chunk (stage 0, chunk 0) and its last (stage K-1, chunk
    // v-1; DualPipeV: stage 0, chunk 1; DualPipe: each direction's first and last) do, by kind
    // F, B, W, on top of their stage's share: the embedding, and the LM head with the loss.
    // With one chunk per stage they are just part of those stages.
    std::array<double, 3> firstChunkExtra{};
    std::array<double, 3> lastChunkExtra{};
    // Per stage, work the forward of the step's first micro-batch through each of its chunks
    // adds, a chunk's 1/v of it: the weights' casts that run once a step (docs/step_time.md,
    // "Weight casts"). Empty: none.
    std::vector<double> firstForwardExtra;
    // Per stage, of firstForwardExtra, the seconds the first forward waits for the stage's
    // one-bucket parameter gather (Megatron-LM's later stages; docs/step_time.md, "A later
    // stage's one bucket"), for the timeline only. Empty: none.
    std::vector<double> firstForwardGather;
    // Per stage, of `forward` and `backward`: the MoE layers' all-to-all, for the timeline
    // only; empty for a dense model.
    std::vector<double> forwardExpertComm;
    std::vector<double> backwardExpertComm;
    // Megatron-LM's combined 1F1B (--overlap-moe-expert-parallel-comm,
    // megatron/core/pipeline_parallel/combined_1f1b.py): each backward that a stage's order
    // follows with a forward runs together with it, the forward's all-to-all under the
    // backward's computation and the backward's under the forward's. A pair takes the longer
    // of its two computations and its two all-to-alls; the all-to-alls then count only where
    // they are the longer, and where hidden, the share of the device their kernels hold
    // (expertCommShare) for as long: the computation beside them loses it.
    bool expertOverlap = false;
    double expertCommShare = 0;
    // One stage with offload_layers: of forward[0] and backward[0], the seconds each pass
    // waits for its activation copies (core/offload.h), for the timeline only.
    double forwardOffloadWait = 0;
    double backwardOffloadWait = 0;
};

// A stage's time of one kind for one micro-batch passing every chunk it holds, from either
// layout of PipelineInput's times.
double stageSeconds(const PipelineInput &input, int stage, OpKind kind);

// Uniform stages: forward F; backward 2F (zb-h1, dualpipe(v): B = W = F), as Narayanan et
// al. 2021 §2.2 and Qi et al. 2023 §2 assume.
PipelineInput uniformPipeline(Schedule schedule, int stages, int microbatches,
                              int virtualStages = 1, double forward = 1.0);

struct PipelineResult
{
    bool complete = false; // false only if the schedule order deadlocks (a bug)
    double makespan = 0;
    double bubbleFraction = 0;    // 1 - busy / (K × makespan)
    std::vector<double> busy;     // per stage
    std::vector<double> inflight; // per stage: peak micro-batches whose activations are alive
    // Per stage, where a stage runs more than one chunk: the chunks' counts at its peaks
    // (alivePeaks), for chunks that keep different bytes.
    std::vector<std::vector<std::vector<int>>> alivePeaks;
    std::vector<ScheduleOp> timeline; // only when asked for
    // How many micro-batches the event simulation ran: m, fewer when the steady state was
    // extended at its period, 0 for GPipe's closed form (simulatePipeline).
    int simulatedMicrobatches = 0;
    // Per stage, how long it idles after its last op ends, to the makespan (the pipeline's
    // drain), where its last gradient reduction runs with nothing else on the device
    // (docs/step_time.md, "Data-parallel sync"); GPipe's closed form gives it too.
    std::vector<double> tailIdle;
};

// Per stage, the pairs of its order that expertOverlap runs together: each backward and the
// forward after it, or DualPipe(V)'s forward-and-backward pairs.
std::vector<int> expertOverlapPairs(const PipelineInput &input);

// Per stage, the all-to-all seconds those pairs hide over one step: per pair and chunk,
// min(the two all-to-alls, the two computations); zero without expertOverlap.
std::vector<double> hiddenExpertComm(const PipelineInput &input);

// Each stage's ops in the order its schedule runs them (no times yet).
std::vector<std::vector<ScheduleOp>> scheduleOrder(const PipelineInput &input);

// Dependency-driven event simulation: every op starts when its stage is free
// (in schedule order) and the op it depends on, on the neighbouring stage, has
// finished (plus the point-to-point latency). Without the timeline, GPipe takes its closed
// form and long one-chunk 1F1B and ZB-H1 pipelines their steady period: the same numbers.
PipelineResult simulatePipeline(const PipelineInput &input, bool keepTimeline = false);

// Each stage's peak micro-batches with live activations, in micro-batch equivalents (a chunk
// holds 1/v of the stage's layers): what simulatePipeline reports as `inflight`, read off the
// schedule's order alone, which no op time changes (an F makes one alive, the B that reads it
// last, or the W in zero-bubble schedules, frees it). GPipe keeps m, 1F1B min(K-s, m)
// (Narayanan et al. 2021, §2.2); ZB-H1 and interleaved 1F1B are counted op by op.
std::vector<double> inflightMicrobatches(Schedule schedule, int stages, int microbatches,
                                         int virtualStages);

// The most micro-batches whose loss the head's stage holds at once, each from the F of the
// head's chunk to its B, which starts with the loss's backward, counted as that B starts:
// GPipe m, 1F1B and ZB-H1 1 (the last stage runs each F's B next); interleaved 1F1B and
// DualPipe(V) op by op (docs/activations.md, "The loss").
int heldLosses(Schedule schedule, int stages, int microbatches, int virtualStages);

// The same walk, chunk by chunk: for one stage, the counts of each chunk's micro-batches
// alive together just after each F that none other outnumbers in every chunk. The peak of
// any weighing of the chunks is at one of them, and there are few.
using AlivePeaks = std::vector<std::vector<int>>;
std::vector<AlivePeaks> alivePeaks(Schedule schedule, int stages, int microbatches,
                                   int virtualStages);

// Per stage, the largest sum of `weights[j]` over the chunks alive together, `weights` one
// entry a virtual stage j (virtualStageOf). Where a stage's chunks keep different bytes (its
// chunks' layers differ: the ends counted, a pipeline_layout, dense and MoE layers), this is its
// peak exactly, which inflightMicrobatches x the stage's mean does not give.
std::vector<double> inflightWeighted(Schedule schedule, int stages,
                                     const std::vector<AlivePeaks> &peaks,
                                     const std::vector<double> &weights);

// Remembers simulations by their exact input. The planner evaluates many layouts whose
// pipelines are the same (they differ in ZeRO stage or sequence parallelism only); the
// simulation is deterministic, so a remembered result is the result. Not thread-safe: one
// cache per thread.
class PipelineCache
{
public:
    const PipelineResult &simulate(const PipelineInput &input);
    // inflightMicrobatches for the input's schedule, K, m and v, remembered by those four.
    const std::vector<double> &inflight(const PipelineInput &input);
    // alivePeaks for the input's schedule, K, m and v, remembered by those four.
    const std::vector<AlivePeaks> &alivePeaks(const PipelineInput &input);
    // core::heldLosses, remembered by its four arguments: DualPipe(V)'s walks the order.
    int heldLosses(Schedule schedule, int stages, int microbatches, int virtualStages);
    std::size_t size() const { return results_.size(); }
    void clear()
    {
        results_.clear();
        inflight_.clear();
        alive_.clear();
        held_.clear();
    }

private:
    std::unordered_map<std::string, PipelineResult> results_;
    std::unordered_map<std::string, std::vector<double>> inflight_;
    std::unordered_map<std::string, std::vector<AlivePeaks>> alive_;
    std::unordered_map<std::string, int> held_;
};

// Closed-form bubble fraction for uniform stages and free communication; nullopt
// where the schedule has none (zb-h1 with m < K or W > min(F, B), interleaved with m not a
// multiple of K, dualpipev with m < 2K, dualpipe with m < 2K or K or m odd; for both, B other
// than F or W longer than F). forward/inputGrad/weightGrad matter only for zb-h1 and
// dualpipe(v).
std::optional<double> closedFormBubble(Schedule schedule, int stages, int microbatches,
                                       int virtualStages, double forward = 1.0,
                                       double inputGrad = 1.0, double weightGrad = 1.0);

// The closed form of a pipeline as simulated: with its own F, B and W, and only where it
// holds (every stage takes the same times, no point-to-point latency); otherwise no
// fraction and the reason.
struct ClosedFormBubble
{
    std::optional<double> fraction;
    std::string missing; // why there is no fraction: "the stages take different times", ...
};
ClosedFormBubble closedFormBubble(const PipelineInput &input);

} // namespace core
