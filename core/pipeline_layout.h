#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace core {

// One virtual stage of a custom pipeline layout: what it builds (Megatron-core,
// megatron/core/transformer/pipeline_parallel_layer_layout.py).
struct LayoutStage
{
    int decoders = 0;       // transformer layers, "t"
    int mtp = 0;            // multi-token-prediction layers, "m" (Scenario::mtpLayers)
    bool embedding = false; // "E"
    bool loss = false;      // "L": the LM head and its loss
};

// The most symbols a layout may unroll to: one a layer and a separator a virtual stage, for
// the limits' largest pipeline (limits::kPipelineStages x kVirtualStages virtual stages).
inline constexpr std::size_t kLayoutSymbols = std::size_t{1} << 23;

// Parses Megatron-LM's --pipeline-model-parallel-layout string as parse_str_to_list does:
// commas are cosmetic; "(...)*n" then "x*n" repeat; "|" separates virtual stages, listed in
// the order j = c·K + s (chunk c of stage s); "E", "L", "t" and "m" are a layer each. The
// error names what is wrong; no layout unrolls past kLayoutSymbols.
std::variant<std::vector<LayoutStage>, std::string> parsePipelineLayout(std::string_view text);

// The layout in the same syntax, each stage's layers as t*n, runs of equal stages as
// (...|)*n: what parsePipelineLayout reads back to `stages`.
std::string pipelineLayoutText(const std::vector<LayoutStage> &stages);

// The layout of decoder counts per virtual stage, the embedding on the first and the loss on
// the last, as Megatron-core requires them, with `mtp` multi-token-prediction layers beside
// the loss.
std::vector<LayoutStage> layoutOfCounts(const std::vector<int> &decoders, int mtp = 0);

// DeepSpeed's partition_balanced (deepspeed/runtime/utils.py): `weights`, in order, cut into
// `parts` runs of at least one item each by the linear-partition dynamic programme, which
// minimises the heaviest run less the lightest, a later cut winning a tie; with no more items
// than parts, partition_uniform's runs. The parts + 1 boundaries, from 0 to the item count.
std::vector<int> balancedPartition(const std::vector<double> &weights, int parts);

// The steps balancedPartition takes: items² × parts.
double balancedPartitionSteps(std::size_t items, int parts);

} // namespace core
