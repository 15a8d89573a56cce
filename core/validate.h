#pragma once

#include "core/error.h"
#include "core/pipeline_layout.h"
#include "core/presets.h"
#include "core/scenario.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace core {

// The largest inputs Parascope evaluates (README, "Limits"): far beyond any real job,
// and small enough that every count in the report is exact in 64 bits, every time is
// finite and one evaluation stays within a frame of the window.
namespace limits {
inline constexpr int kTensorParallel = 1 << 16;         // tp: 65,536
inline constexpr int kPipelineStages = 1 << 12;         // pp: a stage per layer of 4,096
inline constexpr int kDataParallel = 1 << 20;           // dp: 1,048,576
inline constexpr std::int64_t kDevices = 1 << 30;       // T x C x K x D
inline constexpr int kContextParallel = 1 << 12;        // cp
inline constexpr int kExpertParallel = 1 << 14;         // ep and expert_tp
inline constexpr int kMicrobatches = 1 << 20;           // m
inline constexpr int kMicrobatchSize = 1 << 16;         // b
inline constexpr int kSeqLen = 1 << 24;                 // s: 16,777,216 tokens
inline constexpr int kVirtualStages = 1 << 10;          // v
inline constexpr int kMtpLayers = 16;                   // mtp_layers
inline constexpr std::int64_t kScheduleCells = 1 << 21; // K x m x v: the sliders reach it
inline constexpr double kGib = 1 << 20;                 // memory_gib, reserve_gib: 1 PiB
inline constexpr double kParams = 9e15;                 // as the JSON reader's whole numbers
inline constexpr double kBytes = 1ll << 60;             // one term of a stage, or traffic
inline constexpr double kMinRate = 1e-3;                // GB/s and TFLOPS, when given
inline constexpr double kMaxRate = 1e9;                 // GB/s and TFLOPS
inline constexpr int kComputeUnits = 1 << 20;           // SMs or CUs of one device
inline constexpr double kMinMfu = 1e-3;                 // below it, times overflow
inline constexpr double kCapacityFactor = 1024;         // expert_capacity_factor
inline constexpr double kTdpW = 1e6;                    // one device
inline constexpr double kBlockOverhead = 1024;          // attention_block_overhead, key tiles
inline constexpr int kHeadWidth = 1 << 16;              // attention_head_widths' widths

// Blocks of a timeline (F, B and W passes) that evaluate() keeps, the window draws and
// `eval --timeline` writes (about 100 bytes a block): K = 64, m = 1024 with zb-h1 fit.
inline constexpr std::int64_t kTimelineBlocks = 1 << 20;
// The planner's N, in `plan --devices` and the window's Planner.
inline constexpr int kPlanDevices = 1 << 20;
} // namespace limits

// The model and device a scenario names: its inline definition, or a preset.
// Null when the id is unknown.
const ModelSpec *resolveModel(const Scenario &scenario, const Presets &presets);
const DeviceSpec *resolveDevice(const Scenario &scenario, const Presets &presets);

// The first reason the scenario cannot be evaluated (docs/DESIGN.md §4, "exit 2"
// column), naming the key; nullopt when it can be.
std::optional<InputError> validate(const Scenario &scenario, const Presets &presets);
// The same, with the model and device it names validated already (validateModel,
// validateDevice: a search over one pair checks them once); an unknown one still fails.
std::optional<InputError> validateWithPresetsChecked(const Scenario &scenario,
                                                     const Presets &presets);

// Checks an inline or user-preset model definition on its own.
std::optional<InputError> validateModel(const ModelSpec &model);
std::optional<InputError> validateDevice(const DeviceSpec &device);

// Layers per pipeline stage: the first L mod K stages take one extra layer
// (docs/DESIGN.md §3.3).
// `endsCounted`: the embedding and the loss count as a layer each, so the first and last
// stages hold one transformer layer fewer (Megatron-LM --account-for-*-in-pipeline-split).
std::vector<int> splitLayers(int layers, int stages, bool endsCounted = false);

// The layers the pipeline split divides over `stages`: L, or L + 2 with the embedding and the
// loss counted (one stage holds both ends whatever the setting).
int countedLayers(int layers, int stages, bool endsCounted);

// pipeline_layout's value for DeepSpeed PipelineModule's default partition_method: the stages
// balanced by the parameters each holds, the embedding and the LM head included.
inline constexpr std::string_view kParametersLayout = "parameters";

// The most steps (balancedPartitionSteps) a parameters layout may take: 130 layer specs over
// 64 stages take about a million.
inline constexpr double kParametersLayoutSteps = 2e7;

// The scenario's pipeline_layout, one entry a virtual stage; nullopt when it has none or it
// does not parse (validate says why). `parameters` is DeepSpeed's partition of this model.
std::optional<std::vector<LayoutStage>> pipelineLayoutStages(const Scenario &scenario,
                                                             const ModelSpec &model);

// DeepSpeed's PipelineModule with partition_method='parameters' (deepspeed/runtime/pipe/
// module.py, _partition_layers): each layer spec weighs the parameters a device builds of it
// (the embedding, each transformer layer, the final norm, the LM head: a tied one builds the
// embedding again), and balancedPartition cuts them into K stages. The error says why it
// cannot (a size-only model, too large a search).
std::variant<std::vector<LayoutStage>, std::string> parametersLayout(const Scenario &scenario,
                                                                     const ModelSpec &model);

} // namespace core
