#include "core/serving_plan.h"

#include "core/evaluate.h"
#include "core/units.h"
#include "core/validate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <utility>

namespace core {

namespace {

constexpr const char *kNoTime = "link bandwidth not published";
constexpr const char *kTpotMissed = "time per output token above the target";
constexpr const char *kTtftMissed = "time to first token above the target";
constexpr const char *kTooFewDevices = "throughput target needs more than N devices";

std::string numberText(const char *format, double value)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

std::string shapeText(int tp, int pp)
{
    return "T=" + std::to_string(tp) + ", K=" + std::to_string(pp);
}

// Tensor-parallel degrees a replica can take: powers of two that divide the heads, as
// vLLM and TensorRT-LLM split attention by heads.
std::vector<int> tensorDegrees(const ModelSpec &model, std::int64_t most)
{
    std::vector<int> out;
    for (std::int64_t t = 1; t <= most && t <= model.heads; t *= 2)
        if (model.heads % t == 0)
            out.push_back(static_cast<int>(t));
    return out;
}

// The base scenario served by T × K devices, D replicas, m micro-batches of b sequences:
// forward passes only, so no ZeRO, recomputation, interleaving or sequence parallelism. The
// search spreads no experts and splits no sequences: a replica's experts are split as its T
// splits them (expert T as T), whatever E or C a training layout loaded before set.
Scenario servingLayout(const Scenario &base, int tp, int pp, int dp, int m, int b)
{
    Scenario s = base;
    s.tp = tp;
    s.pp = pp;
    s.dp = dp;
    s.cp = 1;
    s.ep = 1;
    s.expertTp = 0;
    s.zero = 0;
    s.schedule = Schedule::gpipe;
    s.virtualStages = 1;
    s.recompute = Recompute::none;
    s.sequenceParallel = false;
    // Every K split evenly, as the training planner does: a placement written for one K
    // refused every other shape, and the whole request with it.
    s.pipelineLayout.clear();
    s.microbatches = m;
    s.microbatchSize = b;
    return s;
}

struct ServingSearch
{
    const ServingPlanRequest &request;
    const Presets &presets;
    std::int64_t headroomBytes = 0;
    bool targets = false; // a latency target is set: an untimed shape cannot be checked
    std::int64_t evaluations = 0;

    // The i-th batch of a shape with K stages, i = 1, 2, …: up to K sequences one
    // micro-batch each (m = i, b = 1), then K micro-batches of i − K + 1 sequences. One
    // micro-batch per stage keeps a pipeline busy in decode (docs/inference.md); fewer leave
    // stages idle, but may be all that fits or meets a target.
    static std::pair<int, int> batching(int pp, int i)
    {
        if (i < pp)
            return {i, 1};
        return {pp, i - pp + 1};
    }

    Scenario scenario(int tp, int pp, int i) const
    {
        const auto [m, b] = batching(pp, i);
        return servingLayout(request.base, tp, pp, 1, m, b);
    }

    Report evaluateAt(int tp, int pp, int i, bool memoryOnly)
    {
        ++evaluations;
        EvaluateOptions options;
        options.memoryOnly = memoryOnly;
        options.presetsValidated = true; // checkServingRequest validated the model and device
        return evaluate(scenario(tp, pp, i), presets, options);
    }

    bool leavesHeadroom(const Report &r) const
    {
        if (r.error || !r.fits)
            return false;
        return std::ranges::all_of(
            r.stages, [this](const StageReport &st) { return st.headroomBytes >= headroomBytes; });
    }

    // The first target the report misses; nullopt when it meets both (or has no time).
    std::optional<BatchLimit> missedTarget(const Report &r) const
    {
        if (!r.serving)
            return std::nullopt;
        if (request.tpotTargetS && r.serving->decodeMeanS > *request.tpotTargetS)
            return BatchLimit::tpotTarget;
        if (request.ttftTargetS && r.serving->prefillS > *request.ttftTargetS)
            return BatchLimit::ttftTarget;
        return std::nullopt;
    }

    // Why the batch of this report would not do; nullopt when it would.
    std::optional<BatchLimit> refusal(const Report &r) const
    {
        if (!leavesHeadroom(r))
            return BatchLimit::memory;
        return missedTarget(r);
    }
};

std::int64_t fullestStageBytes(const Report &r)
{
    std::int64_t peak = 0;
    for (const StageReport &st : r.stages)
        peak = std::max(peak, st.totalBytes);
    return peak;
}

ServingCandidate servingCandidate(int tp, int pp, int i, const Report &r)
{
    ServingCandidate c;
    c.tp = tp;
    c.pp = pp;
    std::tie(c.microbatches, c.microbatchSize) = ServingSearch::batching(pp, i);
    c.batch = std::int64_t{c.microbatches} * c.microbatchSize;
    c.peakStageBytes = fullestStageBytes(r);
    if (r.serving) {
        const ServingReport &sv = *r.serving;
        c.timed = !sv.linkTimeExcluded;
        c.linkTimeExcluded = sv.linkTimeExcluded;
        c.ttftS = sv.prefillS;
        c.tpotS = sv.decodeMeanS;
        c.latencyS = sv.latencyS;
        c.tokensPerSPerReplica = sv.tokensPerS;
        c.tokensPerSPerDevice = sv.tokensPerSPerDevice;
        c.joulesPerMillionTokens = sv.joulesPerMillionTokens;
        c.memoryBound = sv.first.busiest.memoryBound;
    }
    return c;
}

// Best first: timed before untimed; more tokens per second per device; fewer devices per
// replica; then T (and so K), so that ties never depend on the order shapes were searched in.
bool rankedBefore(const ServingCandidate &a, const ServingCandidate &b)
{
    // An untimed shape's throughput, if any, is only an upper bound: not a rank.
    const auto key = [](const ServingCandidate &c) {
        return std::make_tuple(!c.timed, c.timed ? -c.tokensPerSPerDevice : 0.0,
                               c.devicesPerReplica(), c.tp);
    };
    return key(a) < key(b);
}

// One shape: nullopt with the reason counted when no batch of it will do; otherwise the
// largest batch that fits with the headroom and meets the targets.
struct ShapeOutcome
{
    std::optional<ServingCandidate> candidate;
    std::string reason;
    std::string message;
};

ShapeOutcome searchShape(ServingSearch &search, int tp, int pp)
{
    ShapeOutcome out;
    const std::string shape = shapeText(tp, pp);
    // Memory first: it is cheaper than the pipeline's simulation, and most shapes that fail,
    // fail there.
    const Report fits = search.evaluateAt(tp, pp, 1, true);
    const Report one =
        fits.error || !search.leavesHeadroom(fits) ? fits : search.evaluateAt(tp, pp, 1, false);
    if (one.error) {
        out.reason = "invalid " + one.error->key;
        out.message = shape + ": " + one.error->toString();
        return out;
    }
    if (!search.leavesHeadroom(one)) {
        out.reason =
            one.fits ? "less than the headroom free" : "does not fit: " + one.firstOverflowTerm;
        out.message = shape + ", one sequence: " +
                      (one.fits ? "a device leaves less than the headroom free"
                                : "stage " + std::to_string(one.firstOverflowStage) +
                                      " needs more than the device's memory, most of it " +
                                      one.firstOverflowTerm);
        return out;
    }
    // Without a link's time the times are lower bounds: one above a target proves a miss,
    // one below it proves nothing.
    const bool exact = one.serving && !one.serving->linkTimeExcluded;
    const auto missed = search.missedTarget(one);
    if (search.targets && !exact && !missed) {
        out.reason = kNoTime;
        out.message = shape + ": a link the replica needs publishes no bandwidth, so its "
                              "latency cannot be checked against the targets";
        return out;
    }
    if (missed) {
        const bool tpot = *missed == BatchLimit::tpotTarget;
        out.reason = tpot ? kTpotMissed : kTtftMissed;
        out.message =
            shape + ", one sequence: " + (exact ? "" : "at least ") +
            (tpot ? numberText("%.3g ms", one.serving->decodeMeanS * 1e3) +
                        " per output token, above the " +
                        numberText("%.3g ms", *search.request.tpotTargetS * 1e3) + " target"
                  : numberText("%.3g ms", one.serving->prefillS * 1e3) +
                        " to the first token, above the " +
                        numberText("%.3g ms", *search.request.ttftTargetS * 1e3) + " target");
        return out;
    }
    // The largest batch that will do: memory, TPOT and TTFT all grow with it, so the batches
    // that do are the first i* rungs of the ladder. The serving report's memory limit at one
    // sequence (the whole capacity, no headroom) is a first guess at i*; doubling from it
    // brackets i*, and bisection finds it.
    // Memory alone decides the batch of a shape without exact times: no pipeline to simulate.
    const bool timed = exact;
    const int last = pp - 1 + limits::kMicrobatchSize; // the ladder's last rung
    Report best = one;
    std::optional<BatchLimit> refusedAtHi;
    int lo = 1;
    int hi = last + 1; // known not to do, or past the last rung
    const auto tryRung = [&](int i) {
        Report r = search.evaluateAt(tp, pp, i, !timed);
        if (auto why = search.refusal(r)) {
            hi = i;
            refusedAtHi = why;
            return false;
        }
        lo = i;
        best = std::move(r);
        return true;
    };
    int guess = 2;
    if (one.serving && one.serving->maxBatch > 1)
        guess = static_cast<int>(std::min<std::int64_t>(
            last, pp - 1 + std::max<std::int64_t>(one.serving->maxBatch / pp, 1)));
    while (guess > lo && guess < hi && tryRung(guess) && guess < last)
        guess = static_cast<int>(std::min<std::int64_t>(std::int64_t{guess} * 2, last));
    while (hi - lo > 1)
        tryRung(lo + (hi - lo) / 2);
    if (one.serving && !exact && lo > 1) // the lower bounds at the batch found
        best = search.evaluateAt(tp, pp, lo, false);
    ServingCandidate c = servingCandidate(tp, pp, lo, best);
    if (refusedAtHi)
        c.limit = *refusedAtHi;
    else // the ladder's last rung: the memory limit, or the largest micro-batch Parascope takes
        c.limit = c.microbatchSize >= limits::kMicrobatchSize ? BatchLimit::batchLimit
                                                              : BatchLimit::memory;
    out.candidate = c;
    return out;
}

// Replicas of a shape: as many as the throughput target needs, else as many as fill N.
std::optional<int> replicas(const ServingPlanRequest &req, const ServingCandidate &c)
{
    const int room = req.devices / c.devicesPerReplica();
    if (!req.tokensPerSTarget || !c.timed)
        return room;
    const double needed = std::ceil(*req.tokensPerSTarget / c.tokensPerSPerReplica);
    if (!(needed <= room))
        return std::nullopt;
    return std::max(1, static_cast<int>(needed));
}

void rejectShape(RejectionCounts &to, const std::string &reason, const std::string &example, int tp,
                 int pp)
{
    PlanLayout layout;
    layout.tp = tp;
    layout.pp = pp;
    RejectionGroup &group = to[reason];
    if (group.count == 0 || layout < group.layout) {
        group.example = example;
        group.layout = layout;
    }
    ++group.count;
}

std::optional<InputError> checkServingRequest(const ServingPlanRequest &req, const Presets &presets)
{
    if (req.base.mode != Mode::inference)
        return InputError{"mode", "the deployment planner plans inference; set mode=inference"};
    if (req.devices <= 0 || req.devices > limits::kPlanDevices)
        return InputError{"devices", "must be a device count from 1 to " +
                                         std::to_string(limits::kPlanDevices) + ", got " +
                                         std::to_string(req.devices)};
    if (req.top <= 0)
        return InputError{"top", "must be at least 1, got " + std::to_string(req.top)};
    if (!(req.headroomGib >= 0) || req.headroomGib > limits::kGib)
        return InputError{"headroom-gib", "must be from 0 to " + numberText("%.10g", limits::kGib) +
                                              " GiB (1 PiB), got " +
                                              numberText("%g", req.headroomGib)};
    const auto positive = [](const std::optional<double> &v) {
        return !v || (std::isfinite(*v) && *v > 0);
    };
    if (!positive(req.tpotTargetS))
        return InputError{"tpot-ms", "must be a positive time per output token"};
    if (!positive(req.ttftTargetS))
        return InputError{"ttft-ms", "must be a positive time to the first token"};
    if (!positive(req.tokensPerSTarget))
        return InputError{"tokens-per-s", "must be a positive number of output tokens a second"};
    if (req.base.outputLen < 1)
        return InputError{"output_len", "the deployment planner ranks by output tokens a "
                                        "second: set how many tokens each sequence generates "
                                        "(at least 1)"};
    const Scenario probe = servingLayout(req.base, 1, 1, 1, 1, 1);
    if (auto e = validate(probe, presets))
        return e;
    const ModelSpec &model = *resolveModel(probe, presets);
    if (!model.hasArchitecture())
        return InputError{"model", "the deployment planner needs a model with an architecture "
                                   "(layers, hidden, heads); " +
                                       model.id + " gives only its size"};
    return std::nullopt;
}

} // namespace

Scenario ServingCandidate::apply(const Scenario &base) const
{
    return servingLayout(base, tp, pp, replicas, microbatches, microbatchSize);
}

ServingPlanResult planServing(const ServingPlanRequest &request, const Presets &presets,
                              const PlanControl &control)
{
    const auto started = std::chrono::steady_clock::now();
    ServingPlanResult result;
    if (auto e = checkServingRequest(request, presets)) {
        result.error = std::move(e);
        return result;
    }
    const ModelSpec &model = *resolveModel(request.base, presets);
    result.assumedRates = assumedRates(request.base, *resolveDevice(request.base, presets));
    ServingSearch search{request, presets,
                         std::llround(request.headroomGib * static_cast<double>(kGiB)),
                         request.tpotTargetS || request.ttftTargetS || request.tokensPerSTarget};
    const auto cancelled = [&control] { return control.cancel && control.cancel->load(); };

    // Every shape T × K ≤ N: T a power of two dividing the heads, K at most one per layer.
    std::vector<std::pair<int, int>> shapes;
    for (int tp : tensorDegrees(model, request.devices))
        for (int pp = 1; pp <= model.layers && std::int64_t{tp} * pp <= request.devices; ++pp)
            shapes.emplace_back(tp, pp);
    result.shapes = static_cast<std::int64_t>(shapes.size());

    std::vector<ServingCandidate> feasible;
    for (std::size_t i = 0; i < shapes.size() && !cancelled(); ++i) {
        const auto [tp, pp] = shapes[i];
        ShapeOutcome outcome = searchShape(search, tp, pp);
        if (outcome.candidate) {
            ServingCandidate &c = *outcome.candidate;
            if (auto d = replicas(request, c)) {
                c.replicas = *d;
                feasible.push_back(c);
            } else {
                rejectShape(
                    result.rejected, kTooFewDevices,
                    shapeText(tp, pp) + ": " + numberText("%.4g", c.tokensPerSPerReplica) +
                        " tokens/s a replica needs " +
                        numberText("%.0f",
                                   std::ceil(*request.tokensPerSTarget / c.tokensPerSPerReplica) *
                                       c.devicesPerReplica()) +
                        " devices for the target, more than " + std::to_string(request.devices),
                    tp, pp);
            }
        } else {
            rejectShape(result.rejected, outcome.reason, outcome.message, tp, pp);
        }
        if (control.progress)
            control.progress(0.9 * static_cast<double>(i + 1) / static_cast<double>(shapes.size()));
    }
    result.feasible = static_cast<std::int64_t>(feasible.size());
    std::sort(feasible.begin(), feasible.end(), rankedBefore);
    for (const ServingCandidate &c : feasible)
        if (static_cast<int>(result.candidates.size()) < request.top)
            result.candidates.push_back(c);

    // The smallest deployment: the fewest devices per replica among the shapes that will do
    // (the best of them when several tie) …
    for (const ServingCandidate &c : feasible)
        if (!result.smallest || c.devicesPerReplica() < result.smallest->devicesPerReplica())
            result.smallest = c;
    // … or, when none within N will, the first device count beyond N that has one.
    if (!result.smallest && !cancelled()) {
        const std::vector<int> degrees = tensorDegrees(model, model.heads);
        const std::int64_t largest = std::int64_t{degrees.back()} * model.layers;
        // A count whose weights, spread evenly, leave too little room on every device is
        // skipped unseen: no shape holds less than its share of them.
        double weights = 0;
        for (const StageModelStates &st : stageModelStates(search.scenario(1, 1, 1), model))
            weights += static_cast<double>(st.weightsBytes);
        const DeviceSpec &device = *resolveDevice(request.base, presets);
        const double room = static_cast<double>(device.capacityBytes()) -
                            request.base.reserveGib * static_cast<double>(kGiB) -
                            static_cast<double>(search.headroomBytes);
        for (std::int64_t n = std::int64_t{request.devices} + 1;
             n <= largest && !result.smallest && !cancelled(); ++n) {
            if ((weights - 64.0 * static_cast<double>(n)) / static_cast<double>(n) > room)
                continue;
            for (int tp : degrees) {
                if (n % tp != 0 || n / tp > model.layers)
                    continue;
                ShapeOutcome outcome = searchShape(search, tp, static_cast<int>(n / tp));
                if (outcome.candidate &&
                    (!result.smallest || rankedBefore(*outcome.candidate, *result.smallest)))
                    result.smallest = outcome.candidate;
            }
        }
        result.smallestBeyondDevices = result.smallest.has_value();
    }
    result.cancelled = cancelled();
    result.evaluations = search.evaluations;
    if (control.progress)
        control.progress(1.0);
    result.elapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace core
