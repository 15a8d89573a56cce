#include "fuzz/fuzz_support.h"

#include "core/evaluate.h"
#include "core/fields.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "io/report_io.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace fuzz {

namespace {

bool finiteAtLeastZero(double value)
{
    return std::isfinite(value) && value >= 0;
}

// A refusal from validate names a scenario key, or a key of an inline model or device.
bool namesAField(const std::string &key)
{
    if (core::findField(key))
        return true;
    const std::string_view view(key);
    return view.starts_with("model.") || view.starts_with("device.");
}

void checkStages(const core::Scenario &s, const core::Presets &with, const core::Report &r)
{
    require(r.stages.size() == static_cast<std::size_t>(s.pp), "one stage report per stage");
    int layers = 0;
    bool fits = true;
    for (const auto &st : r.stages) {
        require(st.params >= 0 && st.capacityBytes >= 0,
                "a stage's parameters or capacity are negative");
        std::int64_t sum = 0; // every row of the terms' table (core/report.h)
        for (const core::MemoryTerm &term : core::kMemoryTerms) {
            require(st.*term.bytes >= 0, "a stage's bytes are negative");
            sum += st.*term.bytes;
        }
        require(st.totalBytes == sum, "a stage's total is not the sum of its terms");
        require(st.headroomBytes == st.capacityBytes - st.totalBytes,
                "headroom is not capacity minus total");
        // A stage fits its device's memory and, with layers offloaded, its host's share
        // (host_memory_gb; unpublished, not checked).
        require(st.hostOverflow ==
                    (st.hostCapacityBytes > 0 && st.offloadedBytes > st.hostCapacityBytes),
                "host overflow disagrees with the offloaded bytes and the host's capacity");
        require(st.fits == (st.headroomBytes >= 0 && !st.hostOverflow),
                "fits disagrees with the headroom and the host's memory");
        require(finiteAtLeastZero(st.inflightMicrobatches), "in-flight micro-batches");
        layers += st.layers;
        fits = fits && st.fits;
    }
    require(r.fits == fits, "the report's fits disagrees with its stages");
    const core::ModelSpec *model = core::resolveModel(s, with);
    if (model->hasArchitecture())
        require(layers == model->layers, "the stages do not hold every layer once");
}

// Serving (docs/inference.md): times finite, the batch's latency at least its prefill, each
// decode step at least its busiest stage's turn, the limits not negative; without a step time
// only when a link's time is left out.
void checkServing(const core::Report &r)
{
    if (!r.serving)
        return;
    require(r.stepTime || r.serving->linkTimeExcluded,
            "serving times without a step time, and not marked as lower bounds");
    const core::ServingReport &sv = *r.serving;
    for (double v : {sv.prefillS, sv.first.tokenS, sv.last.tokenS, sv.decodeMeanS, sv.latencyS,
                     sv.tokensPerS, sv.decodeTokensPerS, sv.joulesPerMillionTokens})
        require(finiteAtLeastZero(v), "a serving figure is negative or not finite");
    require(sv.latencyS >= sv.prefillS, "the latency is shorter than the prefill");
    for (const core::DecodeStep *step : {&sv.first, &sv.last})
        require(step->tokenS >= step->busiest.totalS * (1 - 1e-12),
                "a decode step is shorter than its busiest stage");
    require(sv.maxBatch >= 0 && sv.maxContext >= 0, "a serving limit is negative");
}

void checkTimes(const core::Report &r)
{
    require(finiteAtLeastZero(r.makespanS), "makespan");
    require(r.bubbleFraction >= -1e-9 && r.bubbleFraction <= 1 + 1e-9, "bubble fraction");
    if (r.bubbleFractionClosedForm)
        require(*r.bubbleFractionClosedForm >= 0 && *r.bubbleFractionClosedForm <= 1,
                "closed-form bubble fraction");
    require(r.tpComm.bytesPerStep >= 0, "tensor-parallel bytes");
    if (r.tpComm.timePerStepS)
        require(finiteAtLeastZero(*r.tpComm.timePerStepS), "tensor-parallel time");
    if (!r.stepTime)
        return;
    const core::StepTimeReport &t = *r.stepTime;
    const core::TimeBreakdown &b = t.breakdown;
    for (double part : {t.stepTimeS, t.tokensPerS, t.mfuAchieved, t.dpCommTotalS})
        require(finiteAtLeastZero(part), "a step-time figure is negative or not finite");
    for (const core::TimeBreakdown &stage : t.stages) {
        for (double part : stage.seconds)
            require(finiteAtLeastZero(part), "a step-time part is negative or not finite");
        require(std::abs(stage.total() - t.stepTimeS) <= 1e-9 * t.stepTimeS,
                "a stage's parts do not add up to the step time");
    }
    require(std::abs(b.total() - t.stepTimeS) <= 1e-9 * t.stepTimeS,
            "the step time is not the sum of its parts");
    require(t.dpBytesPerStep >= 0, "data-parallel bytes");
    if (t.energyJPerStep)
        require(finiteAtLeastZero(*t.energyJPerStep), "energy per step");
}

} // namespace

const core::Presets &presets()
{
    static const core::Presets builtin = io::builtinPresets();
    return builtin;
}

void require(bool condition, const char *what)
{
    if (condition)
        return;
    std::fprintf(stderr, "parascope fuzz: property violated: %s\n", what);
    std::abort();
}

void checkRefusal(const core::InputError &error, bool needsKey)
{
    require(!error.message.empty(), "a refusal without a message");
    // Only an empty key leaves nothing to name, and then the message says so.
    if (needsKey)
        require(!error.key.empty() || std::string_view(error.message).starts_with("empty key"),
                "a refusal that names no field");
}

void evaluateAndCheck(const core::Scenario &s, const core::Presets &with)
{
    const std::optional<core::InputError> error = core::validate(s, with);
    const core::Report r = core::evaluate(s, with);
    require(r.error == error, "evaluate and validate disagree");
    if (error) {
        checkRefusal(*error, true);
        require(namesAField(error->key), "a refusal names something that is not a field");
        require(r.stages.empty(), "a refused scenario has stages");
        return;
    }
    require(r.devices == std::int64_t{s.tp} * s.cp * s.pp * s.dp, "devices is not T x C x K x D");
    require(r.params > 0, "a model without parameters");
    require(r.weightsBytes > 0 && r.nominalWeightsBytes > 0, "the model's weights");
    checkStages(s, with, r);
    checkTimes(r);
    checkServing(r);
    require(!io::reportToJson(r).isEmpty(), "empty JSON report");
    require(!io::reportToText(r).isEmpty(), "empty text report");

    // The timeline the window draws, while it stays small enough to keep the fuzzer fast.
    if (std::int64_t{s.pp} * s.microbatches * s.virtualStages > 4096)
        return;
    const core::Report withTimeline = core::evaluate(s, with, {.timeline = true});
    // Without the timeline GPipe takes its closed form and 1F1B and ZB-H1 their steady period
    // (docs/DESIGN.md, "Event simulation"): the same makespan up to rounding.
    if (std::abs(withTimeline.makespanS - r.makespanS) >
        1e-9 * std::max(1.0, std::abs(withTimeline.makespanS))) {
        std::fprintf(stderr, "makespan %.17g with the timeline, %.17g without\n",
                     withTimeline.makespanS, r.makespanS);
        require(false, "the timeline changes the makespan");
    }
    for (const auto &op : withTimeline.timeline)
        require(op.start >= 0 && op.end >= op.start &&
                    op.end <= withTimeline.makespanS * (1 + 1e-12),
                "a timeline block outside the step");
}

void checkShardReport(const core::ShardRequest &request, const core::ShardReport &r)
{
    if (r.error) {
        checkRefusal(*r.error, true);
        return;
    }
    require(r.strategies.size() == 4, "a sharding analysis without its four strategies");
    if (request.tp > 1)
        require(std::isfinite(r.link.gbPerS) && r.link.gbPerS > 0, "a link without bandwidth");
    for (const auto &st : r.strategies) {
        for (double figure : {st.computeS, st.commS, st.totalS, st.wireBytesPerDevice})
            require(finiteAtLeastZero(figure), "a strategy's time or bytes are negative or "
                                               "not finite");
        require(st.payloadBytes >= 0, "a strategy's payload is negative");
        require(st.totalS == st.computeS + st.commS, "a strategy's time is not its sum");
        require(st.counts == core::countCollectives(st.collectives), "collective counts");
        require(request.tp > 1 || (st.collectives.empty() && st.commS == 0),
                "a group of one communicates");
    }
    const auto at = [&r](int i) -> const core::StrategyReport & {
        require(i >= 0 && i < 4, "best or worst is not a strategy");
        return r.strategies[static_cast<std::size_t>(i)];
    };
    for (const auto &st : r.strategies)
        require(at(r.best).totalS <= st.totalS && st.totalS <= at(r.worst).totalS,
                "best or worst is not the fastest or the slowest");
    require(std::isfinite(r.speedupBestOverWorst) && r.speedupBestOverWorst >= 1,
            "the speed-up of best over worst");

    const bool ran = r.executed != core::FfnShape{};
    require(!(ran && !r.checkNotRun.empty()), "a check that ran says it did not");
    require(ran || request.verify == core::Verify::off || !r.checkNotRun.empty(),
            "a check asked for neither ran nor said why not");
    for (const auto &st : r.strategies)
        require(st.maxAbsError.has_value() == ran && st.maxRelError.has_value() == ran,
                "errors reported for a check that did not run, or missing");
    if (!ran)
        return;
    const core::FfnShape &e = r.executed;
    require(e.tokens > 0 && e.hidden > 0 && e.ffn > 0, "an empty check");
    require(e.tokens <= request.shape.tokens && e.hidden <= request.shape.hidden &&
                e.ffn <= request.shape.ffn,
            "the check ran larger than asked");
    require(e.hidden % request.tp == 0 && e.ffn % request.tp == 0,
            "the check's sizes do not divide by T");
    require(core::verifyBytes(e, request.tp) <= request.verifyMemoryBytes,
            "the check held more than it may");
    require(request.verify != core::Verify::small ||
                (core::checkFlops(e) <= core::kVerifyFlopsCap &&
                 core::verifyBytes(e, request.tp) <= core::kVerifyBytesCap),
            "the reduced check took more FLOPs or bytes than it may");
    for (const auto &st : r.strategies) {
        require(finiteAtLeastZero(*st.maxAbsError) && finiteAtLeastZero(*st.maxRelError),
                "a check's error is negative or not finite");
        // Every strategy computes the same Y in float: a split that is wrong is off by the
        // size of Y itself, rounding by far less than 1 %.
        require(*st.maxRelError < 1e-2, "a strategy disagrees with the unsharded product");
    }
}

} // namespace fuzz
