#pragma once

#include "core/activations.h"
#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"
#include "core/schedule.h"

#include <array>
#include <optional>
#include <vector>

namespace core {

struct EvaluateOptions
{
    // Fill Report::timeline with every block of the schedule, up to limits::kTimelineBlocks
    // (beyond it Report::timelineRefused says why there is none).
    bool timeline = false;
    PipelineCache *pipelineCache = nullptr; // reuse simulations (ignored with `timeline`)
    // The stages' memory, whether they fit and the memory's warnings, without timing an
    // operation or simulating the pipeline: no step time, bubble, makespan, operations or TP
    // traffic. The in-flight micro-batches come from the schedule's order
    // (inflightMicrobatches), which gives the simulation's counts. The planner checks the
    // layouts its step-time bound prunes this way, to count what fits.
    bool memoryOnly = false;
    // false: leave out the warnings about the scenario itself (why a stage does not fit, an
    // uneven split, a key the framework does not run, ...), which are text to read; whether
    // it fits, its largest overflowing term, the links' warnings and the short-step and
    // moe-host warnings (the planner's "≥") stay. A search that reads only whether each layout
    // fits formats none of them, nor the report's descriptions no search reads: the keys changed
    // from the profile (frameworkChanged), sizeByPrecision and minTpForWeights.
    bool warnings = true;
    // The scenario's model and device were validated already (validateModel, validateDevice):
    // a search over one pair, whose request was checked whole, skips them each evaluation.
    bool presetsValidated = false;
};

// The whole model: pure arithmetic over the scenario and the presets it names.
Report evaluate(const Scenario &scenario, const Presets &presets);
Report evaluate(const Scenario &scenario, const Presets &presets, const EvaluateOptions &options);

// The blocks of the scenario's timeline: an F per micro-batch, model chunk and stage, and in
// training a B, and a W with zb-h1: K × m × v × passes.
std::int64_t timelineBlocks(const Scenario &scenario);
// Refuses a timeline of more than limits::kTimelineBlocks blocks, naming the keys to lower.
std::optional<InputError> checkTimeline(const Scenario &scenario);

// One point of the serving page's latency-throughput curve (docs/inference.md): the
// scenario evaluated at another micro-batch size.
struct ServingPoint
{
    std::int64_t batch = 0;         // m × b sequences in flight per replica
    double timePerTokenS = 0;       // the mean time per output token
    double tokensPerSPerDevice = 0; // while decoding: batch ÷ time per token ÷ (T × K)
    bool memoryBound = false;       // the first decode step's busiest stage
    bool fits = false;
};

// The curve from one sequence per micro-batch up to the most that fit, on powers of two, with
// the most that fit and the scenario's own micro-batch size, in order of batch; empty when
// the scenario has no serving report (training, no timing, an unknown link).
std::vector<ServingPoint> servingCurve(const Scenario &scenario, const Presets &presets);

// A lower bound on the step time (docs/planner.md) without simulating the pipeline: the
// busiest stage's own work (or the closed form where it is exact) plus the same
// communication terms as evaluate(). Never more than evaluate()'s step_time_s; nullopt when
// evaluate() would give no step time.
// Of `options`, only presetsValidated is read.
std::optional<double> stepTimeLowerBound(const Scenario &scenario, const Presets &presets,
                                         const EvaluateOptions &options = {});

// The device's rates a run of the scenario takes from an assumption rather than a measurement
// (core::assumedRates at the multiplies' precision; nothing under a forced mfu): evaluate's
// rates-assumed warning, and the planners' "Assumed rates".
std::vector<std::string> assumedRates(const Scenario &scenario, const DeviceSpec &device);

// A run of consecutive layers of the model: layers first..first + count - 1.
struct LayerRun
{
    int first = 0;
    int count = 0;
};

// The layers each virtual stage j runs (virtualStageOf), one run of consecutive layers each:
// the model cut into K parts, or into v·K in the interleaved schedule, where virtual stage
// j = c·K + s is chunk c of stage s (Megatron-core, transformer_layer.py,
// get_transformer_layer_offset: offset = vp_stage·N/v + pp_rank·N/(K·v)), and into 2K in
// DualPipeV's V. In DualPipe's training device i also runs the mirrored stage K - 1 - i
// (deepseek-ai/DualPipe, examples/example_dualpipe.py: full_modules[rank] and
// full_modules[pp_size - 1 - rank]), virtual stage K + j running stage j's layers. A
// stage's layers are its chunks' runs (chunksPerStage of them).
std::vector<LayerRun> virtualStageLayers(const Scenario &scenario, const ModelSpec &model);

// recompute_layers (Megatron-LM's block method, docs/activations.md, "Recomputed layers"):
// whether full recomputation reruns only the first layers of each chunk; and one micro-batch's
// activation bytes of a stage's layers (its multi-token-prediction layers with them) when it
// does, each stage's, the first min(recompute_layers, count) of each chunk keeping what full
// recomputation keeps and the others everything.
bool recomputesSomeLayers(const Scenario &scenario);
// The share of stage `stage`'s layers full recomputation reruns: 1 but with recompute_layers.
double stageRecomputedShare(const Scenario &scenario, const ModelSpec &model, int stage);
std::vector<std::int64_t> partlyRecomputedStageBytes(const Scenario &scenario,
                                                     const ModelSpec &model,
                                                     const ActivationConfig &act);

// For a scenario under full recomputation that fits with `headroomBytes` free on every stage
// (whatever its recompute_layers): the fewest first layers of each chunk full recomputation
// must rerun for it to fit so (recompute_layers, docs/activations.md, "Recomputed layers"),
// found by bisection on memory alone (`options` with memoryOnly; its pipeline cache is used);
// nullopt where every layer must rerun or no chunk holds more than one. A layer kept whole
// holds more than a rerun one, so the counts that fit are those from the fewest up.
std::optional<int> fewestRecomputedLayers(Scenario scenario, const Presets &presets,
                                          std::int64_t headroomBytes,
                                          const EvaluateOptions &options);

// Whether Megatron-LM can offload the first layers' activations of `scenario` to host memory
// (offload_layers, docs/activations.md, "Offloaded layers"): Megatron-core's CPU offloading
// needs training of one stage without recomputation (transformer_config.py), the model's
// layers and, to be timed, the device's host link (host_gb_per_s).
bool offloadsActivations(const Scenario &scenario, const ModelSpec &model,
                         const DeviceSpec &device);

// For such a scenario that does not fit with `headroomBytes` free on every stage at its own
// offload_layers: the fewest offloaded layers above it with which it fits so, found by
// bisection on memory alone (`options` with memoryOnly); none where offloading all but the
// last layer does not fit the device either, or where the fewest that does overflow the
// host's memory (host_memory_gb), which deviceFewest then says. The device's sets only fall
// as more layers are offloaded, the host's only grow.
struct OffloadedLayers
{
    int fewest = 0;       // that fit the device and the host; 0: none does
    int deviceFewest = 0; // that fit the device, whatever the host; 0: none does
};
OffloadedLayers fewestOffloadedLayers(Scenario scenario, const Presets &presets,
                                      std::int64_t headroomBytes, const EvaluateOptions &options);

// The headroom the recompute-layers-fewer warning leaves on every stage: the planner's default
// (PlanRequest::headroomGib), for the memory model is an estimate (docs/planner.md, "Headroom").
inline constexpr double kRecomputeHintHeadroomGib = 2.0;

// One micro-batch's activation bytes on each virtual stage, from one layer's bytes of each kind
// (layerActivationBytes without and with experts), where some stage's chunks keep different
// bytes (the ends counted in the split, a pipeline_layout, dense and MoE layers apart); empty
// where each stage's chunks are alike, or a stage runs one chunk.
std::vector<std::int64_t> unequalChunkBytes(const Scenario &scenario, const ModelSpec &model,
                                            const ActivationConfig &act,
                                            std::int64_t denseLayerBytes,
                                            std::int64_t moeLayerBytes);

// Weights, gradients and optimizer states one device of each pipeline stage keeps: what no
// micro-batch size or recomputation changes, nor any schedule but DualPipe, whose devices
// each hold two stages (docs/DESIGN.md §3.5).
struct StageModelStates
{
    int layers = 0;
    int moeLayers = 0;     // of `layers`, those with experts
    int slidingLayers = 0; // of `layers`, those attending through the sliding window
    int mtpLayers = 0;     // multi-token-prediction depths, beside `layers` (the loss's stage)
    std::int64_t params = 0;
    std::int64_t expertParams = 0; // of `params`, the routed experts (ZeRO over expert D)
    // Of `params`, those that train: all, or under LoRA the adapters alone; and of those, the
    // routed experts' (docs/step_time.md, "LoRA").
    std::int64_t trainableParams = 0;
    std::int64_t trainableExpertParams = 0;
    std::int64_t castParams = 0; // of `params`, the weights the FP8 or NVFP4 multiplies cast
    std::int64_t weightsBytes = 0;
    std::int64_t gradsBytes = 0;
    std::int64_t optimizerBytes = 0;
    std::int64_t zeroBuffersBytes = 0;
};

// The LoRA adapters' parameters on one device (Scenario::loraRank, loraModules): a rank-r
// pair beside a projection from k to n holds r·(k + n), split over T as the projection is;
// perLayer, perMoeLayer and, of it, perMoeLayerExperts as countParams gives them, the rest 0.
// Nothing without LoRA.
ParamCounts loraParams(const Scenario &scenario, const ModelSpec &model);
std::vector<StageModelStates> stageModelStates(const Scenario &scenario, const ModelSpec &model);

// Bytes a parameter of the copy Transformer Engine keeps of each 16-bit weight cast for the FP8
// or NVFP4 multiplies, from the step's first micro-batch to its last (fp8_weight_cache;
// docs/activations.md, "Cast weights"): the data and, where the device multiplies FP8 in the
// TN layout only, its transpose; 0 where the weights are held in FP8 already, under ZeRO-3,
// in inference, or with the cache off.
double castWeightBytesPerParam(const Scenario &scenario, const DeviceSpec &device);

// The precision training holds the layers' weights in: BF16 where FP8 or NVFP4 multiplies cast
// them each step, FP8 with fp8_params, NVFP4 for LoRA's frozen weights with fp8_params
// (docs/DESIGN.md §3.5); the scenario's precision otherwise.
Precision heldWeightPrecision(const Scenario &scenario);

// activationConfig with the device: Transformer Engine without its weight cache
// (fp8_weight_cache off, outside torchtitan's Float8Linear) saves each micro-batch's cast
// copy of the layer's weights for its backward, castWeightBytesPerParam's bytes a parameter
// as the cache would keep (docs/activations.md, "Cast weights").
ActivationConfig activationConfig(const Scenario &scenario, const ModelSpec &model,
                                  const DeviceSpec &device);

// Weight bytes of `params` parameters at a precision (docs/DESIGN.md §3.1).
std::int64_t weightBytes(std::int64_t params, Precision precision);

} // namespace core
