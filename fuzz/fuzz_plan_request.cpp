// libFuzzer target: any bytes as a planner request, the inputs of `parascope plan` and of
// the window's Planner (docs/TESTING.md), searched by core::plan on a built-in model and
// device. A refused request names the field (and any device count beyond the limit is
// refused, never searched); an accepted one returns only layouts that fit, fastest first,
// each what core::evaluate says of it, with every layout counted once: rejected (with an
// example), fitting or pruned.
//
// The bytes, little-endian, a missing tail read as zeros (tests/data/fuzz/plan/):
//   0 devices int32 | 4 global batch int32 | 8 top int32 | 12 model uint8 | 13 device uint8
//   (indices into the built-in presets) | 14 precision uint8 (index into core::Precision)
//   15 flags uint8: bit 0 exhaustive (no pruning), bit 1 distinct, bit 2 inference (also
//   searched by core::planServing, generating byte 16 mod 64 tokens), bit 3 FP32 gradients,
//   bit 4 keep a large device count as it is, bits 5 and 6 the deployment's targets, bit 7
//   pipeline_layout=parameters (DeepSpeed's partition, searched at every K)
//   16 maxVirtualStages uint8 | 17 sequence length uint8: 2^(7 + n mod 8) tokens
//   18 framework uint8 (index into core::Framework; its profile's keys set first, as
//   choosing it does, then the bytes above)
//   19 hybrid sharding uint8: zero_replicas = 1 + n mod 8 (the splits whose D they divide
//   searched, once a division by zero in the pruning by model states); bit 3 searches it
//   within a node instead (PlanRequest::hybridSharding)
//
// The work per input stays small: a value the planner must refuse goes to it as it is
// (refusing is cheap), and an accepted one is folded into a small search: at most 16 devices
// and 16 sequences (8 and 8 without pruning), or, with bit 4, any device count up to the
// limit with at most 4 sequences, which leaves few splits to evaluate.
#include "core/evaluate.h"
#include "core/framework.h"
#include "core/planner.h"
#include "core/precision.h"
#include "core/serving_plan.h"
#include "core/validate.h"
#include "fuzz/fuzz_support.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>

namespace {

constexpr std::size_t kSize = 20;

using Fields = fuzz::Fields<kSize>;

// 1 ... limit for a value the planner accepts; the value itself otherwise.
int fold(int value, int acceptedMax, int limit)
{
    if (value < 1 || value > acceptedMax)
        return value;
    return 1 + (value - 1) % limit;
}

void checkRefused(const core::PlanRequest &request, const core::PlanResult &result)
{
    const core::InputError &error = *result.error;
    fuzz::checkRefusal(error, true);
    fuzz::require(result.candidates.empty() && result.evaluatedLayouts.empty() &&
                      result.rejected.empty() && result.layouts == 0,
                  "a refused plan request has results");
    if (request.devices < 1 || request.devices > core::limits::kPlanDevices)
        fuzz::require(error.key == "devices", "a device count beyond the limit is not refused");
    else if (request.globalBatch < 1)
        fuzz::require(error.key == "global-batch", "a global batch below 1 is not refused");
    else if (request.top < 1)
        fuzz::require(error.key == "top", "top below 1 is not refused");
}

void checkPlan(const core::PlanRequest &request, const core::PlanResult &result)
{
    fuzz::require(static_cast<int>(result.candidates.size()) <= request.top,
                  "more candidates than top");
    fuzz::require(result.evaluated == static_cast<std::int64_t>(result.evaluatedLayouts.size()),
                  "evaluated is not the number of evaluated layouts");
    // Every layout is counted once, fitting or rejected, pruned ones checked for memory too
    // (core/planner.h, PlanResult::feasible): the evaluated ones that leave the headroom are
    // among the fitting ones.
    std::int64_t evaluatedFitting = 0;
    for (const core::PlanCandidate &c : result.evaluatedLayouts)
        evaluatedFitting += c.leavesHeadroom ? 1 : 0;
    fuzz::require(evaluatedFitting <= result.feasible,
                  "fewer layouts fit than the evaluated ones that fit");
    fuzz::require(result.pruned >= 0 && result.layouts >= 0, "negative counts");
    std::int64_t rejected = 0;
    for (const auto &[reason, group] : result.rejected) {
        fuzz::require(!reason.empty(), "a rejection without a reason");
        fuzz::require(group.count > 0, "a rejection group without layouts");
        fuzz::require(!group.example.empty(), "a rejection group without an example");
        rejected += group.count;
    }
    fuzz::require(rejected + result.feasible == result.layouts,
                  "rejected and fitting layouts do not add up to those considered");

    // A split: T, C, K, D, E, the schedule, v and the micro-batch size (PlanLayout::sameSplit).
    std::set<std::tuple<int, int, int, int, int, int, int, int>> splits;
    const core::PlanCandidate *previous = nullptr;
    for (const core::PlanCandidate &c : result.candidates) {
        fuzz::require(c.fits, "a candidate that does not fit");
        fuzz::require(std::int64_t{c.tp} * c.cp * c.pp * c.dp == request.devices,
                      "a candidate with another device count");
        fuzz::require(std::int64_t{c.microbatches} * c.microbatchSize * c.dp == request.globalBatch,
                      "a candidate with another global batch");
        fuzz::require(c.zeroReplicas >= 1 && c.dp % c.zeroReplicas == 0,
                      "a candidate whose hybrid sharding's replicas do not split D");
        fuzz::require(std::isfinite(c.stepTimeS) && c.stepTimeS > 0,
                      "a candidate's step time is not a positive number");
        if (previous)
            fuzz::require(std::tie(previous->stepTimeS, previous->peakStageBytes) <=
                              std::tie(c.stepTimeS, c.peakStageBytes),
                          "candidates out of order");
        previous = &c;
        if (request.distinct)
            fuzz::require(splits
                              .insert({c.tp, c.cp, c.pp, c.dp, c.ep, static_cast<int>(c.schedule),
                                       c.virtualStages, c.microbatchSize})
                              .second,
                          "--distinct lists a split twice");
    }
    // The first few candidates are exactly what the explorer shows after loading them.
    for (std::size_t i = 0; i < std::min<std::size_t>(result.candidates.size(), 3); ++i) {
        const core::PlanCandidate &c = result.candidates[i];
        const core::Report r = core::evaluate(c.apply(request.base), fuzz::presets());
        fuzz::require(r.ok() && r.fits && r.stepTime, "a candidate evaluate() refuses");
        fuzz::require(r.stepTime->stepTimeS == c.stepTimeS,
                      "a candidate's step time is not evaluate()'s");
    }
}

// The deployment planner on the same model, device and precision (docs/inference.md,
// "Planning a deployment"): every shape counted once; candidates ranked, within N and the
// targets, each what evaluate() says of it at its batch; the smallest deployment no larger
// than any candidate.
void checkServingPlan(const core::ServingPlanRequest &request,
                      const core::ServingPlanResult &result)
{
    if (result.error) {
        fuzz::checkRefusal(*result.error, true);
        fuzz::require(result.candidates.empty() && !result.smallest && result.rejected.empty(),
                      "a refused deployment request has results");
        return;
    }
    std::int64_t rejected = 0;
    for (const auto &[reason, group] : result.rejected) {
        fuzz::require(!reason.empty() && !group.example.empty() && group.count > 0,
                      "a deployment rejection without a reason, an example or a count");
        rejected += group.count;
    }
    fuzz::require(rejected + result.feasible == result.shapes,
                  "rejected and fitting shapes do not add up to those searched");
    fuzz::require(static_cast<int>(result.candidates.size()) <= request.top,
                  "more deployment candidates than top");
    const core::ServingCandidate *previous = nullptr;
    for (const core::ServingCandidate &c : result.candidates) {
        fuzz::require(c.devices() <= request.devices && c.replicas >= 1,
                      "a deployment beyond the devices");
        if (previous)
            fuzz::require(previous->timed >= c.timed &&
                              (!c.timed || previous->tokensPerSPerDevice >= c.tokensPerSPerDevice),
                          "deployment candidates out of order");
        previous = &c;
        if (result.smallest)
            fuzz::require(result.smallest->devicesPerReplica() <= c.devicesPerReplica(),
                          "a candidate smaller than the smallest deployment");
    }
    for (std::size_t i = 0; i < std::min<std::size_t>(result.candidates.size(), 2); ++i) {
        const core::ServingCandidate &c = result.candidates[i];
        core::Scenario s = c.apply(request.base);
        s.dp = 1;
        const core::Report r = core::evaluate(s, fuzz::presets());
        fuzz::require(r.ok() && r.fits, "a deployment candidate evaluate() refuses");
        if (!c.timed)
            continue;
        fuzz::require(r.serving && r.serving->decodeMeanS == c.tpotS,
                      "a deployment's time per token is not evaluate()'s");
        fuzz::require(!request.tpotTargetS || c.tpotS <= *request.tpotTargetS,
                      "a deployment over its time-per-token target");
        fuzz::require(!request.ttftTargetS || c.ttftS <= *request.ttftTargetS,
                      "a deployment over its first-token target");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > kSize)
        return -1; // bytes past the fields mean nothing: keep them out of the corpus
    const Fields in(data, size);
    const auto flags = in.at<std::uint8_t>(15);
    const bool exhaustive = flags & 1;
    const bool large = (flags & 16) && !exhaustive;

    core::PlanRequest request;
    request.threads = 1;
    request.prune = !exhaustive;
    request.distinct = flags & 2;
    const int devices = in.at<std::int32_t>(0);
    const int batch = in.at<std::int32_t>(4);
    request.devices =
        large ? devices : fold(devices, core::limits::kPlanDevices, exhaustive ? 8 : 16);
    request.globalBatch = fold(batch, std::numeric_limits<int>::max(),
                               large        ? 4
                               : exhaustive ? 8
                                            : 16);
    request.top = fold(in.at<std::int32_t>(8), std::numeric_limits<int>::max(), 16);
    request.maxVirtualStages = 1 + in.at<std::uint8_t>(16) % 8;

    const auto &presets = fuzz::presets();
    constexpr auto frameworks = core::enumNames(core::Framework{});
    core::applyFramework(request.base,
                         frameworks[in.at<std::uint8_t>(18) % frameworks.size()].value);
    request.base.model = presets.models[in.at<std::uint8_t>(12) % presets.models.size()].id;
    request.base.device = presets.devices[in.at<std::uint8_t>(13) % presets.devices.size()].id;
    constexpr auto precisions = core::enumNames(core::Precision{});
    request.base.precision = precisions[in.at<std::uint8_t>(14) % precisions.size()].value;
    if (flags & 4)
        request.base.mode = core::Mode::inference;
    if (flags & 8)
        request.base.gradPrecision = core::Precision::fp32;
    if (flags & 128)
        request.base.pipelineLayout = core::kParametersLayout;
    request.base.seqLen = 1 << (7 + in.at<std::uint8_t>(17) % 8);
    request.base.zeroReplicas = 1 + in.at<std::uint8_t>(19) % 8;
    request.hybridSharding = in.at<std::uint8_t>(19) & 8;

    const core::PlanResult result = core::plan(request, presets);
    if (result.error)
        checkRefused(request, result);
    else
        checkPlan(request, result);

    if (request.base.mode == core::Mode::inference) {
        // Bit 5: a time-per-token target of 1 … 100 ms from the batch field; bit 6: a
        // first-token target of 10 ms … 1 s from the top field.
        core::ServingPlanRequest serving;
        serving.base = request.base;
        serving.base.outputLen = in.at<std::uint8_t>(16) % 64; // 0: refused, naming output_len
        serving.devices = fold(devices, core::limits::kPlanDevices, 16);
        serving.top = request.top;
        if (flags & 32)
            serving.tpotTargetS = 1e-3 * (1 + static_cast<unsigned>(batch) % 100);
        if (flags & 64)
            serving.ttftTargetS = 1e-2 * (1 + static_cast<unsigned>(in.at<std::int32_t>(8)) % 100);
        checkServingPlan(serving, core::planServing(serving, presets));
    }
    return 0;
}
