#pragma once

#include "core/enums.h"
#include "core/error.h"
#include "core/presets.h"
#include "core/scenario.h"
#include "core/step_time.h"
#include "core/validate.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace core {

// What the planner ranks the layouts that fit by (docs/planner.md, "Ranking by cost or
// energy"). Time searches exactly N devices; cost and energy every divisor of N, since on one
// device count both are the step time times a constant.
enum class PlanRank
{
    time,   // step time, seconds
    cost,   // device-hours per million tokens: N × step time ÷ 3,600 ÷ tokens × 10^6
    energy, // joules per million tokens at the device's TDP: N × TDP × step time ÷ tokens × 10^6
};
constexpr auto enumNames(PlanRank)
{
    return std::array{EnumName<PlanRank>{PlanRank::time, "time"},
                      EnumName<PlanRank>{PlanRank::cost, "cost"},
                      EnumName<PlanRank>{PlanRank::energy, "energy"}};
}

// What the planner searches over (docs/planner.md). Everything else — the model, the device,
// the precision, the mode, the sequence length, mfu, dp_overlap, the reserve — comes from
// the base scenario and stays fixed.
struct PlanRequest
{
    Scenario base;
    int devices = 64;         // N = T × C × K × D, at most limits::kPlanDevices
    int globalBatch = 512;    // sequences per step, split over D replicas
    int top = 10;             // candidates to return, best first
    int maxVirtualStages = 4; // interleaved chunks per stage searched, to bound the search
    // Context-parallel degrees C searched: powers of two up to this, in training, for sequences
    // of at least kContextParallelFromSeqLen tokens that split into 2C chunks (docs/planner.md,
    // "Experts and long context"). 16 is Llama 3's C at 128K tokens (Meta 2024, §3.3.2).
    int maxContextParallel = 16;
    // Expert-parallel degrees E searched for a model with experts: powers of two and the expert
    // count that divide the experts, up to this.
    int maxExpertParallel = limits::kExpertParallel;
    bool prune = true; // false: evaluate every layout in full (tests compare both)
    // Also try each layout at ZeRO 1 to 3 hybrid-sharded within a node: zero_replicas R = D x C
    // over the data-parallel group's devices in one node, and where those cannot hold the model
    // states, over the fewest whole nodes' that can (docs/planner.md, "Hybrid sharding").
    // false: the base scenario's zero_replicas is kept, and only the D it divides searched.
    bool hybridSharding = false;
    // Try each layout of one Megatron-LM stage without recomputation that does not fit with the
    // fewest first layers' activations offloaded to host memory that make it fit
    // (offload_layers; docs/planner.md, "Offloaded layers"). false: no layout offloads.
    bool offloading = true;
    // Keep only the fastest of layouts that differ only in ZeRO stage, recomputation or
    // sequence parallelism (PlanLayout::sameSplit): `top` different splits of the work.
    bool distinct = false;
    // Memory every stage must leave free, on top of the scenario's reserve, for a layout to fit
    // the search (docs/planner.md, "Headroom"): the memory model is an estimate.
    double headroomGib = 2.0;
    PlanRank rank = PlanRank::time;
    int threads = 0; // 0: one per hardware thread
};

// C > 1 is searched only from this sequence length (docs/planner.md, "Experts and long
// context"): Llama 3 pre-trained at 8,192 tokens without context parallelism and used it at
// 128K (Meta 2024, §3.3.2); NeMo's long-context recipes start at 16K.
inline constexpr int kContextParallelFromSeqLen = 16384;

// Of the layouts the ranking does not need, how many that fit (the lowest step-time bounds)
// and how many that overflow (spread evenly over their order by peak memory) a pruned search
// evaluates in full for the chart of step time against memory (PlanResult::evaluatedLayouts).
inline constexpr std::size_t kPlanChartLayouts = 500;

// The scenario keys the planner searches: one parallel layout. Expert T is not searched: it
// stays the base scenario's expert_tp (0 follows T).
struct PlanLayout
{
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int zero = 0;
    Schedule schedule = Schedule::oneFOneB;
    int virtualStages = 1;
    int microbatchSize = 1;
    int microbatches = 1;
    Recompute recompute = Recompute::none;
    bool sequenceParallel = false;
    // Last: a layout written in braces as before ({T, K, D, ZeRO, …}) keeps its meaning, and
    // layouts with C = E = 1 and the ends uncounted order as they did.
    int cp = 1;
    int ep = 1;
    // The embedding and the loss counted as a layer each in the pipeline split (K > 1).
    bool endsInPipelineSplit = false;
    // The modules selective recomputation reruns (Megatron-LM's --recompute-modules): the base
    // scenario's, or for models with experts or latent attention one of the lists the planner
    // searches (docs/planner.md, "Recomputed modules").
    std::string recomputeModules = "core_attn";
    // Under full recomputation, the layers of each chunk it reruns, the first ones (Megatron-LM's
    // --recompute-method block --recompute-num-layers): the fewest with which the layout fits,
    // or 0 for every layer (docs/planner.md, "Recomputed layers").
    int recomputeLayers = 0;
    // Hybrid sharding's replicas (zero_replicas): the base scenario's, or with the request's
    // hybridSharding also those that shard within one node (docs/planner.md, "Hybrid
    // sharding").
    int zeroReplicas = 1;
    // Megatron-LM's CPU offloading of the first N layers' activations (offload_layers): 0, or
    // for a layout of one stage without recomputation that fits only so, the fewest with which
    // it fits (docs/planner.md, "Offloaded layers").
    int offloadLayers = 0;

    static PlanLayout of(const Scenario &scenario);
    void applyTo(Scenario &scenario) const;
    // The base scenario with this layout applied: what "load into the explorer" sets.
    Scenario apply(const Scenario &base) const;
    bool sameLayout(const PlanLayout &other) const { return *this == other; }
    // The same T, C, K, D, E, schedule and micro-batching: the two differ only in how they trade
    // memory for time (ZeRO stage, recomputation, sequence parallelism) or in whether the
    // pipeline split counts the ends.
    bool sameSplit(const PlanLayout &other) const;
    // Field by field in the order above: the fixed order ties are settled in, so that a result
    // never depends on which thread finished first.
    auto operator<=>(const PlanLayout &) const = default;
};

// One scenario key a layout varies: its key in the field table (core/fields.cpp), where it
// lives in a Scenario and in a PlanLayout, and whether it only refines a split of the work
// rather than choosing one (sameSplit ignores it): trading memory for time (ZeRO,
// recomputation, sequence parallelism) or moving a layer off each end stage
// (ends_in_pipeline_split).
template <typename T> struct LayoutField
{
    std::string_view key;
    T Scenario::*scenario;
    T PlanLayout::*layout;
    bool refinesSplit = false;
};

// The keys of the scenario table that the planner searches, in PlanLayout's order. Typed
// rather than through setField/fieldText, because PlanLayout::of and applyTo run for every
// layout the planner evaluates; tst_planner checks each row against the scenario table. A new
// layout key is a member of PlanLayout and a row here.
inline constexpr auto kLayoutFields = std::make_tuple(
    LayoutField<int>{"tp", &Scenario::tp, &PlanLayout::tp},
    LayoutField<int>{"pp", &Scenario::pp, &PlanLayout::pp},
    LayoutField<int>{"dp", &Scenario::dp, &PlanLayout::dp},
    LayoutField<int>{"zero", &Scenario::zero, &PlanLayout::zero, true},
    LayoutField<Schedule>{"schedule", &Scenario::schedule, &PlanLayout::schedule},
    LayoutField<int>{"virtual_stages", &Scenario::virtualStages, &PlanLayout::virtualStages},
    LayoutField<int>{"microbatch_size", &Scenario::microbatchSize, &PlanLayout::microbatchSize},
    LayoutField<int>{"microbatches", &Scenario::microbatches, &PlanLayout::microbatches},
    LayoutField<Recompute>{"recompute", &Scenario::recompute, &PlanLayout::recompute, true},
    LayoutField<bool>{"sequence_parallel", &Scenario::sequenceParallel,
                      &PlanLayout::sequenceParallel, true},
    LayoutField<int>{"cp", &Scenario::cp, &PlanLayout::cp},
    LayoutField<int>{"ep", &Scenario::ep, &PlanLayout::ep},
    LayoutField<bool>{"ends_in_pipeline_split", &Scenario::endsInPipelineSplit,
                      &PlanLayout::endsInPipelineSplit, true},
    LayoutField<std::string>{"recompute_modules", &Scenario::recomputeModules,
                             &PlanLayout::recomputeModules, true},
    LayoutField<int>{"recompute_layers", &Scenario::recomputeLayers, &PlanLayout::recomputeLayers,
                     true},
    LayoutField<int>{"zero_replicas", &Scenario::zeroReplicas, &PlanLayout::zeroReplicas, true},
    LayoutField<int>{"offload_layers", &Scenario::offloadLayers, &PlanLayout::offloadLayers, true});

// Calls `visit(field)` for each row of kLayoutFields, in order.
template <typename Visit> constexpr void forEachLayoutField(Visit &&visit)
{
    std::apply([&visit](const auto &...field) { (visit(field), ...); }, kLayoutFields);
}

// One layout the planner evaluated, with the numbers it is ranked by.
struct PlanCandidate : PlanLayout
{
    double stepTimeS = 0;
    double tokensPerS = 0;
    double mfuAchieved = 0;
    double bubbleFraction = 0;
    std::int64_t peakStageBytes = 0;  // the fullest stage's total on one device
    double deviceHoursPerMTokens = 0; // T × C × K × D × step time ÷ 3,600 per million tokens
    std::optional<double> energyJPerMTokens; // at the device's TDP; empty without one
    double score = 0;                        // what it is ranked by (PlanRequest::rank)
    bool fits = false;           // within the device's memory, as eval says (the headroom aside)
    bool leavesHeadroom = false; // fits with the request's headroom free: fits the search
    std::string overflowTerm;    // when it does not fit: the largest term of the first full stage
    // The step may be short: evaluate's short-step warning, a training step timed under
    // 250 ms, which published runs took from 9 % less to twice as long to run, or its moe-host
    // or fsdp-overlap warning (docs/step_time.md).
    bool stepLowerBound = false;
    // Its reasons: the short-step warning (a step under kShortStepS), the moe-host one (MoE
    // layers whose host cost outside a CUDA graph of the whole step is not timed,
    // kMoeHostGapMinS), and the fsdp-overlap one (FSDP2 at ZeRO-3 on Hopper, whose published
    // runs took part of their collectives' time beyond the model).
    bool shortStep = false;
    bool moeHostUntimed = false;
    bool fsdpOverlap = false;
    TimeBreakdown breakdown;
};

// The layouts dropped for one reason, with one of them as an example.
struct RejectionGroup
{
    std::int64_t count = 0;
    std::string example; // that layout's own message, numbers included
    PlanLayout layout;   // the first layout of the group in a fixed order of the layout fields
    bool operator==(const RejectionGroup &) const = default;
};

// Why layouts were dropped, grouped by reason: the largest term of the first stage that
// overflows ("optimizer states", as evaluate names it), "global batch smaller than D",
// "global batch not divisible by D", "link bandwidth not published", or for a layout the
// scenario's limits refuse, the key and the kind of problem with its numbers as #
// ("invalid microbatch_size: must be at most # (sequences per micro-batch), got #").
using RejectionCounts = std::map<std::string, RejectionGroup>;

// The groups, most layouts first; ties in the reasons' (alphabetical) order, so that a list
// of them never changes by chance.
std::vector<std::pair<std::string, RejectionGroup>>
rejectionsByCount(const RejectionCounts &counts);

struct PlanResult
{
    std::optional<InputError> error; // the request itself is invalid; nothing else is set

    // Fitting layouts, fastest first, at most `top`; with `distinct`, only the fastest of each
    // split.
    std::vector<PlanCandidate> candidates;
    // Every layout evaluated in full (fitting or not), for the step time against memory
    // scatter: those the ranking needed, and up to kPlanChartLayouts more that fit and as
    // many that do not (all of them without pruning).
    std::vector<PlanCandidate> evaluatedLayouts;
    RejectionCounts rejected;
    std::int64_t layouts = 0;   // every layout considered (T × K × D × ZeRO × schedule × …)
    std::int64_t evaluated = 0; // evaluated in full: a simulated pipeline and a step time
    std::int64_t pruned = 0;    // skipped: a lower bound shows they cannot reach the top
    // Layouts that fit with the headroom left free: every one of them, exactly, whatever `top`
    // and `distinct` (a pruned layout is checked for memory without its step time). The
    // rejected counts cover every layout too: feasible + rejected = layouts.
    std::int64_t feasible = 0;
    // The rates of the device every layout takes from an assumption rather than a measurement
    // (evaluate's rates-assumed warning; core::assumedRates): the ranking holds, the times are
    // less certain.
    std::vector<std::string> assumedRates;
    double elapsedS = 0;
    bool cancelled = false;
    // When nothing fits: the smallest device count above the request's (T × C × K × D with D
    // dividing the global batch) with a layout that fits, and its first such layout in layout
    // order; empty when none up to limits::kPlanDevices does. `smallestSearched` says whether
    // the search ran (only when nothing fits).
    bool smallestSearched = false;
    std::optional<int> smallestFittingDevices;
    std::optional<PlanLayout> smallestFittingLayout;
};

// Progress and cancellation for a search running off the GUI thread. `progress` is called
// from worker threads with the fraction done; it must be thread-safe.
struct PlanControl
{
    const std::atomic<bool> *cancel = nullptr;
    std::function<void(double fraction)> progress;
};

// Enumerates every layout T × C × K × D = N with its E, ZeRO stage, schedule, micro-batch size,
// recomputation and sequence parallelism; drops those that do not fit and ranks the rest by
// the step-time model's step time (docs/planner.md).
PlanResult plan(const PlanRequest &request, const Presets &presets,
                const PlanControl &control = {});

} // namespace core
