#include "core/planner.h"

#include "core/evaluate.h"
#include "core/framework.h"
#include "core/units.h"
#include "core/validate.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <tuple>

namespace core {

namespace {

constexpr const char *kBatchNotDivisible = "global batch not divisible by D";
constexpr const char *kBatchTooSmall = "global batch smaller than D";
constexpr const char *kNoStepTime = "link bandwidth not published";

std::vector<int> divisors(int n)
{
    std::vector<int> out;
    for (int i = 1; i <= n / i; ++i) {
        if (n % i != 0)
            continue;
        out.push_back(i);
        if (i != n / i)
            out.push_back(n / i);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// One T × C × K × D split of the devices with its E: the unit of work a thread takes.
struct DeviceSplit
{
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int cp = 1;
    int ep = 1;
};

// The replicas the search keeps: the base scenario's, unless it searches hybrid sharding.
int keptReplicas(const PlanRequest &req)
{
    return req.hybridSharding ? 1 : std::max(1, req.base.zeroReplicas);
}

// Context-parallel degrees: 1, and in training, for sequences of at least
// kContextParallelFromSeqLen tokens, the powers of two up to the request's bound whose 2C
// chunks split the sequence evenly (Megatron-LM's load-balanced causal split, docs/experts.md).
std::vector<int> contextDegrees(const Scenario &base, int maxCp)
{
    std::vector<int> out{1};
    if (base.mode != Mode::training || base.seqLen < kContextParallelFromSeqLen)
        return out;
    for (std::int64_t c = 2; c <= maxCp && c <= limits::kContextParallel; c *= 2)
        if (base.seqLen % (2 * c) == 0)
            out.push_back(static_cast<int>(c));
    return out;
}

// Expert-parallel degrees of a stage's T × C × D ranks: for a model with experts, the powers
// of two and the expert count that divide the experts, up to the request's bound, whose
// E × expert T ranks tile the stage's (Megatron-core parallel_state.py); 1 for a dense model.
// Empty when not even E = 1 tiles them (an expert T the stage's ranks do not divide).
std::vector<int> expertDegrees(const ModelSpec &model, const PlanRequest &req, int tp,
                               std::int64_t stageRanks)
{
    const std::int64_t expertTp = req.base.expertTp > 0 ? req.base.expertTp : tp;
    std::vector<int> out;
    const auto tiles = [&](std::int64_t e) { return stageRanks % (e * expertTp) == 0; };
    if (!model.hasExperts()) {
        if (tiles(1))
            out.push_back(1);
        return out;
    }
    const std::int64_t most = std::min<std::int64_t>(req.maxExpertParallel, model.experts);
    for (std::int64_t e = 1; e <= most; e *= 2)
        if (model.experts % e == 0 && tiles(e))
            out.push_back(static_cast<int>(e));
    if (out.empty() || out.back() != model.experts)
        if (model.experts <= most && tiles(model.experts))
            out.push_back(model.experts);
    return out;
}

// Tensor-parallel degrees: powers of two that divide the heads (Megatron-LM splits attention
// by heads) and the device count, inside and beyond one node; for each, C, K, D and E. T counts
// in 64 bits: doubling past the largest int must end the loop, not wrap round to a zero
// divisor.
std::vector<DeviceSplit> splits(const ModelSpec &model, const PlanRequest &req, int devices)
{
    std::vector<DeviceSplit> out;
    const std::vector<int> cps = contextDegrees(req.base, req.maxContextParallel);
    for (std::int64_t t = 1; t <= devices && t <= model.heads; t *= 2) {
        if (devices % t != 0 || model.heads % t != 0)
            continue;
        const int tp = static_cast<int>(t);
        for (int cp : cps) {
            if ((devices / tp) % cp != 0)
                continue;
            const int rest = devices / tp / cp;
            for (int k : divisors(rest)) {
                if (k > model.layers)
                    break;
                const int dp = rest / k;
                // Hybrid sharding's replicas kept from the scenario: a D they split (validate).
                if (dp % keptReplicas(req) != 0)
                    continue;
                for (int ep : expertDegrees(model, req, tp, std::int64_t{tp} * cp * dp))
                    out.push_back({tp, k, dp, cp, ep});
            }
        }
    }
    return out;
}

// The splits a search takes: of exactly N devices when ranking by time. Ranking by cost or
// energy, which on one device count rank as the step time does, of every divisor N' of N whose
// D divides the global batch: N / N' copies of the job fill the N devices, so a job's cost per
// token is the cluster's (docs/planner.md).
std::vector<DeviceSplit> searchSplits(const ModelSpec &model, const PlanRequest &req)
{
    if (req.rank == PlanRank::time)
        return splits(model, req, req.devices);
    std::vector<DeviceSplit> out;
    for (int n : divisors(req.devices))
        for (const DeviceSplit &split : splits(model, req, n))
            if (req.globalBatch % split.dp == 0)
                out.push_back(split);
    return out;
}

// The split's keys in a scenario.
void applySplit(const DeviceSplit &split, Scenario &s)
{
    s.tp = split.tp;
    s.pp = split.pp;
    s.dp = split.dp;
    s.cp = split.cp;
    s.ep = split.ep;
    s.offloadLayers = 0; // the base scenario's is replaced: searched where nothing else fits
}

// Comparison for the ranking: the lower score (faster, cheaper or less energy) first, then less
// memory, then the layout's order.
bool better(const PlanCandidate &a, const PlanCandidate &b)
{
    const PlanLayout &la = a;
    const PlanLayout &lb = b;
    return std::tie(a.score, a.peakStageBytes, la) < std::tie(b.score, b.peakStageBytes, lb);
}

// The fixed part of every layout: what does not change from one candidate to the next.
struct Context
{
    const PlanRequest &request;
    const Presets &presets;
    const ModelSpec &model;
    const DeviceSpec &device;
    bool training = true;
    std::int64_t headroomBytes = 0;
    double tokensPerStep = 1; // global batch × sequence length

    // Device-hours per million tokens per second of step time on `devices` devices.
    double costPerSecond(int devices) const { return devices / 3600.0 / tokensPerStep * 1e6; }
    // Joules per million tokens per second of step time: every device at its TDP, the upper
    // bound docs/step_time.md states.
    double energyPerSecond(int devices) const
    {
        return devices * device.tdpW / tokensPerStep * 1e6;
    }
    // What a second of step time scores on `devices` devices: the score is step time × this,
    // so a lower bound on the step time bounds the score too.
    double scorePerSecond(int devices) const
    {
        switch (request.rank) {
        case PlanRank::time:
            return 1;
        case PlanRank::cost:
            return costPerSecond(devices);
        case PlanRank::energy:
            return energyPerSecond(devices);
        }
        return 1;
    }
};

// "2 GiB", "0.5 GiB".
std::string gibText(double gib)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g GiB", gib);
    return buffer;
}

std::string headroomReason(const Context &c)
{
    return "less than " + gibText(c.request.headroomGib) + " headroom";
}

struct WorkerResult
{
    std::vector<PlanCandidate> evaluated;
    std::vector<std::pair<double, PlanLayout>> pending; // lower bound, layout: for the second pass
    // Peak stage bytes and layout of each layout the first pass found to overflow the device:
    // the chart's choice of them.
    std::vector<std::pair<std::int64_t, PlanLayout>> overflowing;
    RejectionCounts rejected;
    std::int64_t layouts = 0;
    std::int64_t fitting = 0; // with the headroom free
};

// One ZeRO choice of a layout: the stage and hybrid sharding's replicas.
struct ZeroChoice
{
    int zero = 0;
    int replicas = 1;
};

// Hybrid sharding (docs/planner.md, "Hybrid sharding"): the replicas R = D x C / S of a
// shard group of S devices of the data-parallel group, in the default rank order (T, C, D
// innermost, so that a node holds devices per node / T of the group); 0 where validate would
// refuse it or it shards nothing apart: S below 2 or the whole group, S not a whole number of
// C groups, R not splitting D or the routed experts' group.
int shardReplicas(const Context &c, const DeviceSplit &split, std::int64_t shard)
{
    const std::int64_t group = std::int64_t{split.dp} * split.cp;
    if (c.request.base.rankOrder != RankOrder::dataInner || shard < 2 || shard >= group ||
        shard % split.cp != 0 || group % shard != 0)
        return 0;
    const std::int64_t replicas = group / shard;
    if (split.dp % replicas != 0)
        return 0;
    if (c.model.hasExperts()) {
        const int expertTp = c.request.base.expertTp > 0 ? c.request.base.expertTp : split.tp;
        const std::int64_t expertDp =
            std::int64_t{split.tp} * split.cp * split.dp / (std::int64_t{split.ep} * expertTp);
        if (expertDp % replicas != 0)
            return 0;
    }
    return static_cast<int>(replicas);
}

// Whether a layout's weights, gradients and optimizer states alone fit each stage with the
// reserve (the pruning's test; defined below).
bool modelStatesFit(const Context &c, const Scenario &s);

// Hybrid sharding's replicas for one ZeRO stage of a split: sharded within a node, over the
// S = devices per node / T of the group one node holds, and where that is not a layout or its
// model states do not fit, over the fewest whole nodes that hold them, S doubling from a node's
// share (two nodes' share, four...; from 2 where T fills a node or more).
std::vector<int> hybridReplicas(const Context &c, const DeviceSplit &split, const Scenario &s)
{
    const int node = c.device.devicesPerNode;
    std::vector<int> out;
    if (node % split.tp != 0 && split.tp % node != 0)
        return out;
    const std::int64_t unit = std::max(1, node / split.tp);
    const int within = shardReplicas(c, split, unit);
    if (within > 1) {
        out.push_back(within);
        Scenario t = s;
        t.zeroReplicas = within;
        if (modelStatesFit(c, t))
            return out;
    }
    const std::int64_t group = std::int64_t{split.dp} * split.cp;
    for (std::int64_t shard = 2 * unit; shard < group; shard *= 2) {
        const int replicas = shardReplicas(c, split, shard);
        if (replicas < 2)
            continue;
        Scenario t = s;
        t.zeroReplicas = replicas;
        if (modelStatesFit(c, t)) {
            out.push_back(replicas);
            break;
        }
    }
    return out;
}

// The options of one split that do not depend on the micro-batch size; `s` the split applied.
std::vector<ZeroChoice> zeroStages(const Context &c, const DeviceSplit &split, Scenario s)
{
    // ZeRO shards dense states over D × C and routed experts' over the expert data-parallel
    // group T × C × D / (E × expert T) (docs/experts.md, "Memory"): with one rank in each,
    // every stage is the same layout.
    const std::int64_t stageRanks = std::int64_t{split.tp} * split.cp * split.dp;
    const int expertTp = c.request.base.expertTp > 0 ? c.request.base.expertTp : split.tp;
    const bool expertShards =
        c.model.hasExperts() && stageRanks / (std::int64_t{split.ep} * expertTp) > 1;
    if (!c.training || (std::int64_t{split.dp} * split.cp == 1 && !expertShards))
        return {{0, 1}};
    // Within the framework's profile: only the stages it runs (docs/frameworks.md). ZeRO 0
    // shards nothing, so has no replicas to split.
    const int kept = keptReplicas(c.request);
    std::vector<ZeroChoice> out;
    for (int zero : {0, 1, 2, 3}) {
        if (!offersZero(c.request.base.framework, zero, split.pp))
            continue;
        out.push_back({zero, zero == 0 ? 1 : kept});
        if (zero > 0 && c.request.hybridSharding) {
            s.zero = zero;
            for (int replicas : hybridReplicas(c, split, s))
                out.push_back({zero, replicas});
        }
    }
    return out;
}

void applyZero(const ZeroChoice &choice, Scenario &s)
{
    s.zero = choice.zero;
    s.zeroReplicas = choice.replicas;
}

// One way to trade memory for time by recomputation: the kind and, for Megatron-LM's
// selective kind, the modules it reruns (recompute_modules).
struct RecomputeChoice
{
    Recompute recompute = Recompute::none;
    std::string modules;
};

// The modules lists a selective layout searches: the base scenario's, and where the model's
// layers have more than the attention core worth rerunning, the lists Megatron-Bridge's
// recipes and the DeepSeek-V3 report run (docs/planner.md, "Recomputed modules"): a MoE
// layer's activation beside the attention core, latent attention's up projections alone, with
// the MoE activation, and with the norms too. Each as Megatron-core accepts it here
// (validate's rules: mla_up_proj needs latent attention; layernorm and moe_act no FP8
// delayed scaling).
std::vector<std::string> moduleLists(const Context &c)
{
    const Scenario &base = c.request.base;
    std::vector<std::string> out{base.recomputeModules};
    if (frameworkProfile(base.framework).selectiveRecompute != Recompute::selective)
        return out;
    const bool experts = c.model.hasExperts();
    const bool latent = c.model.latentAttention();
    const bool castSaved = !(base.precision == Precision::fp8 &&
                             base.fp8Scaling == Fp8Scaling::delayed); // layernorm, moe_act
    const auto add = [&out](std::string list) {
        if (std::ranges::find(out, list) == out.end())
            out.push_back(std::move(list));
    };
    if (experts && castSaved)
        add("core_attn moe_act");
    if (latent) {
        add("mla_up_proj");
        if (experts && castSaved) {
            add("mla_up_proj moe_act");
            add("layernorm mla_up_proj moe_act");
        }
    }
    return out;
}

std::vector<RecomputeChoice> recomputations(const Context &c)
{
    const std::string &modules = c.request.base.recomputeModules;
    if (!c.training)
        return {{Recompute::none, modules}};
    std::vector<RecomputeChoice> out{{Recompute::none, modules}};
    const Recompute selective = frameworkProfile(c.request.base.framework).selectiveRecompute;
    for (std::string &list : moduleLists(c))
        out.push_back({selective, std::move(list)});
    out.push_back({Recompute::full, modules});
    return out;
}

std::vector<bool> sequenceParallelism(const DeviceSplit &split)
{
    if (split.tp == 1)
        return {false}; // sequence parallelism splits over T: nothing to split
    return {false, true};
}

// Whether the pipeline split counts the embedding and the loss as a layer each. Both ways
// where there is a pipeline to split, each end stage keeps a layer of its own (validate's
// rule) and the L + 2 counted layers split evenly over the K stages, as Megatron-LM requires
// of them (megatron/core/transformer/transformer_block.py, get_num_layers_to_build), or at
// all under torchtitan, whose generated parts may differ by a layer
// (torchtitan/distributed/pipeline_parallel.py, _generate_llm_fqn_per_model_part); never
// under a framework whose split cannot count them (DeepSpeed's). Where no split could
// change, the base scenario's choice. Otherwise that choice does not widen the search: it is
// a layout key like the others, which loading a result sets, so changing it leaves a
// finished search current.
std::vector<bool> endsInSplit(const Context &c, const DeviceSplit &split)
{
    const Framework framework = c.request.base.framework;
    if (split.pp == 1 || !c.model.hasArchitecture())
        return {c.request.base.endsInPipelineSplit}; // no split it could change
    // DeepSpeed's partition by parameters weighs the ends itself.
    if (!offersEndsInPipelineSplit(framework, true) ||
        c.request.base.pipelineLayout == kParametersLayout)
        return {false};
    const std::vector<int> counted = splitLayers(c.model.layers, split.pp, true);
    if (std::min(counted.front(), counted.back()) < 1)
        return {false};
    if (framework == Framework::torchtitan || (c.model.layers + 2) % split.pp == 0)
        return {false, true};
    return {false};
}

// Schedules with their virtual stages; K = 1 has no pipeline and inference runs forwards.
std::vector<std::pair<Schedule, int>> schedules(const Context &c, const DeviceSplit &split,
                                                int microbatches, bool ends)
{
    // With K = 2 and even L, counting the ends leaves each stage the layers it had: only the
    // schedules that split the stages further (into chunks) differ.
    const bool sameStages =
        ends && split.pp > 1 &&
        splitLayers(c.model.layers, split.pp, true) == splitLayers(c.model.layers, split.pp, false);
    if (!c.training)
        return sameStages ? std::vector<std::pair<Schedule, int>>{}
                          : std::vector<std::pair<Schedule, int>>{{Schedule::gpipe, 1}};
    if (split.pp == 1)
        return {{Schedule::oneFOneB, 1}};
    std::vector<std::pair<Schedule, int>> out;
    const Framework framework = c.request.base.framework;
    for (Schedule schedule : {Schedule::gpipe, Schedule::oneFOneB, Schedule::zbH1})
        if (offersSchedule(framework, schedule) && !sameStages)
            out.push_back({schedule, 1});
    // DeepSpeed's partition by parameters places one part a stage (validate's rule).
    if (c.request.base.pipelineLayout == kParametersLayout)
        return out;
    // DualPipeV (validate's rules): m >= 2K, two chunks of at least a layer a stage, both ends
    // on stage 0.
    if (offersSchedule(framework, Schedule::dualPipeV) && microbatches >= 2 * split.pp &&
        c.model.layers >= 2 * split.pp)
        out.push_back({Schedule::dualPipeV, 1});
    // DualPipe (validate's rules): an even K and an even m >= 2K, an end on each end stage; not
    // with hybrid sharding kept from the scenario (the search's own skips it per ZeRO choice).
    if (offersSchedule(framework, Schedule::dualPipe) && split.pp % 2 == 0 &&
        microbatches >= 2 * split.pp && microbatches % 2 == 0 && !ends &&
        keptReplicas(c.request) <= 1)
        out.push_back({Schedule::dualPipe, 1});
    if (!offersSchedule(framework, Schedule::interleaved))
        return out;
    // Narayanan et al. 2021 §2.2.2: m a multiple of K, and each stage's layers split into v
    // equal chunks; with the embedding and the loss counted in the split, L + 2 layers.
    const int layers = countedLayers(c.model.layers, split.pp, ends);
    if (layers % split.pp == 0 && microbatches % split.pp == 0) {
        const int perStage = layers / split.pp;
        for (int v = 2; v <= c.request.maxVirtualStages; ++v)
            if (perStage % v == 0)
                out.push_back({Schedule::interleaved, v});
    }
    return out;
}

// A stage whose weights, gradients and optimizer states overflow on their own: the largest
// of them (ties in kMemoryTerms order, as evaluate settles them) and the message.
struct StateOverflow
{
    std::string term; // empty: the states fit
    std::string message;
};

std::string planGigabytes(std::int64_t bytes)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GB", static_cast<double>(bytes) / kGB);
    return buffer;
}

StateOverflow stateOverflow(const StageModelStates &st, int index, std::int64_t reserve,
                            std::int64_t capacity)
{
    StageReport stage;
    stage.weightsBytes = st.weightsBytes;
    stage.gradsBytes = st.gradsBytes;
    stage.optimizerBytes = st.optimizerBytes;
    stage.zeroBuffersBytes = st.zeroBuffersBytes;
    stage.reserveBytes = reserve;
    const std::int64_t total = memoryTermsTotal(stage);
    if (total <= capacity)
        return {};
    const std::string term = largestMemoryTerm(stage);
    return {term, "stage " + std::to_string(index) +
                      "'s weights, gradients and optimizer states with the reserve need " +
                      planGigabytes(total) + " of " + planGigabytes(capacity) + ", most of it " +
                      term};
}

bool modelStatesFit(const Context &c, const Scenario &s)
{
    const std::int64_t reserve = std::llround(s.reserveGib * static_cast<double>(kGiB));
    const std::int64_t capacity = c.device.capacityBytes();
    int index = 0;
    for (const auto &st : stageModelStates(s, c.model))
        if (!stateOverflow(st, index++, reserve, capacity).term.empty())
            return false;
    return true;
}

// The kind of problem a message describes: its numbers as # ("got 125000", "1.3e+18"),
// digits inside words ("bf16", "q4_0") kept.
std::string problemKind(const std::string &message)
{
    const auto digit = [&message](std::size_t i) {
        return i < message.size() && std::isdigit(static_cast<unsigned char>(message[i]));
    };
    const auto inWord = [&message](std::size_t i) {
        return i > 0 &&
               (std::isalpha(static_cast<unsigned char>(message[i - 1])) || message[i - 1] == '_');
    };
    std::string out;
    std::size_t i = 0;
    while (i < message.size()) {
        if (!digit(i) || inWord(i)) {
            out += message[i++];
            continue;
        }
        // Digits, with separators or a decimal point between them, then any exponent.
        while (digit(i) || ((message[i] == ',' || message[i] == '.') && digit(i + 1)))
            ++i;
        if (i < message.size() && (message[i] == 'e' || message[i] == 'E')) {
            std::size_t exponent = i + 1;
            if (exponent < message.size() && (message[exponent] == '+' || message[exponent] == '-'))
                ++exponent;
            while (digit(exponent))
                i = ++exponent;
        }
        out += '#';
    }
    return out;
}

PlanCandidate candidateFrom(const Context &context, const Scenario &s, const Report &r)
{
    PlanCandidate c;
    c.PlanLayout::operator=(PlanLayout::of(s));
    c.fits = r.fits;
    c.overflowTerm = r.firstOverflowTerm;
    c.bubbleFraction = r.bubbleFraction;
    for (const auto &st : r.stages)
        c.peakStageBytes = std::max(c.peakStageBytes, st.totalBytes);
    if (r.stepTime) {
        c.stepTimeS = r.stepTime->stepTimeS;
        c.tokensPerS = r.stepTime->tokensPerS;
        c.mfuAchieved = r.stepTime->mfuAchieved;
        c.breakdown = r.stepTime->breakdown;
        const int devices = s.devices();
        c.deviceHoursPerMTokens = c.stepTimeS * context.costPerSecond(devices);
        if (context.device.tdpW > 0)
            c.energyJPerMTokens = c.stepTimeS * context.energyPerSecond(devices);
        c.score = c.stepTimeS * context.scorePerSecond(devices);
        const auto warned = [&r](std::string_view code) {
            return std::any_of(r.warnings.begin(), r.warnings.end(),
                               [code](const Warning &w) { return w.code == code; });
        };
        c.shortStep = warned("short-step");
        c.moeHostUntimed = warned("moe-host");
        c.fsdpOverlap = warned("fsdp-overlap");
        c.stepLowerBound = c.shortStep || c.moeHostUntimed || c.fsdpOverlap;
    }
    return c;
}

// Counts `count` layouts under `reason`; the group's example is its first layout in
// layout order, so that it never depends on which thread got there first.
void reject(RejectionCounts &to, const std::string &reason, std::int64_t count,
            const std::string &example, const PlanLayout &layout)
{
    RejectionGroup &group = to[reason];
    if (group.count == 0 || layout < group.layout) {
        group.example = example;
        group.layout = layout;
    }
    group.count += count;
}

void merge(RejectionCounts &to, const RejectionCounts &from)
{
    for (const auto &[reason, group] : from)
        reject(to, reason, group.count, group.example, group.layout);
}

// One layout evaluated in full: a candidate (fitting or not), or why it has none.
struct Outcome
{
    std::optional<PlanCandidate> candidate;
    std::string rejected; // the reason counted, also for a candidate that does not fit
    std::string message;  // the layout's own account of it
    PlanLayout layout;
    bool fitsSearch = false; // fits, with the headroom free on every stage

    bool fits() const { return fitsSearch; }
};

std::string warningMessage(const Report &r, std::string_view code)
{
    for (const Warning &w : r.warnings)
        if (w.code == code)
            return w.message;
    return {};
}

// What the search evaluates with: no warnings but those it reads (the rejection groups'
// examples get their words at the end, from one evaluation each), the thread's simulations.
EvaluateOptions searchOptions(PipelineCache &cache, bool memoryOnly = false)
{
    EvaluateOptions options;
    options.pipelineCache = &cache;
    options.memoryOnly = memoryOnly;
    options.warnings = false;
    options.presetsValidated = true; // checkRequest validated the request's model and device
    return options;
}

Outcome evaluateOne(const Context &c, const Scenario &s, const EvaluateOptions &options)
{
    Outcome out;
    out.layout = PlanLayout::of(s);
    const Report r = evaluate(s, c.presets, options);
    if (r.error) {
        out.rejected = "invalid " + r.error->key + ": " + problemKind(r.error->message);
        out.message = r.error->toString();
        return out;
    }
    if ((!r.stepTime || r.stepTime->linkTimeExcluded) && !options.memoryOnly) {
        // A link the step needs publishes no bandwidth: there is no time to rank it by.
        out.rejected = kNoStepTime;
        for (const char *code : {"dp-link-unknown", "tp-link-unknown", "pp-link-unknown"})
            if (out.message.empty())
                out.message = warningMessage(r, code);
        if (out.message.empty())
            out.message = "a link the step needs publishes no bandwidth";
        return out;
    }
    out.candidate = candidateFrom(c, s, r);
    if (!out.candidate->fits) {
        out.rejected = out.candidate->overflowTerm;
        out.message = warningMessage(r, "does-not-fit");
        return out;
    }
    for (const StageReport &st : r.stages) {
        if (st.headroomBytes >= c.headroomBytes)
            continue;
        out.rejected = headroomReason(c);
        out.message = "stage " + std::to_string(st.index) + " leaves " +
                      planGigabytes(st.headroomBytes) + " of " + planGigabytes(st.capacityBytes) +
                      " free, less than the " + gibText(c.request.headroomGib) + " headroom";
        return out;
    }
    out.fitsSearch = true;
    return out;
}

// Counts a layout that was not ranked: fitting, or rejected for its reason.
void count(const Outcome &outcome, RejectionCounts &rejected, std::int64_t &fitting)
{
    if (outcome.fitsSearch)
        ++fitting;
    else if (!outcome.rejected.empty())
        reject(rejected, outcome.rejected, 1, outcome.message, outcome.layout);
}

void record(Outcome &&outcome, WorkerResult &out)
{
    if (!outcome.rejected.empty())
        reject(out.rejected, outcome.rejected, 1, outcome.message, outcome.layout);
    if (outcome.fitsSearch)
        ++out.fitting;
    if (outcome.candidate) {
        outcome.candidate->leavesHeadroom = outcome.fitsSearch;
        out.evaluated.push_back(std::move(*outcome.candidate));
    }
}

// The most layers a chunk holds (virtualStageLayers): full recomputation of that many or more
// reruns every one.
int chunkLayers(const Context &c, const Scenario &s)
{
    int most = 0;
    for (const LayerRun &run : virtualStageLayers(s, c.model))
        most = std::max(most, run.count);
    return most;
}

// Whether the search looks for the fewest layers a chunk full recomputation must rerun for
// `s` to fit (fewestThatFit): Megatron-LM's --recompute-method block
// --recompute-num-layers N, as its users tune it (docs/planner.md, "Recomputed layers").
bool searchesRecomputedLayers(const Context &c, const Scenario &s)
{
    return s.recompute == Recompute::full && c.training &&
           frameworkProfile(s.framework).recomputesFirstLayers && chunkLayers(c, s) > 1;
}

// The fewest layers of each chunk full recomputation must rerun for `s` (full recomputation of
// every layer, which fits the search) to fit with the headroom free (core's
// fewestRecomputedLayers); 0, every layer, where none fewer fits or the framework reruns every
// layer.
int fewestThatFit(const Context &c, const Scenario &s, const EvaluateOptions &memoryOptions)
{
    return searchesRecomputedLayers(c, s)
               ? fewestRecomputedLayers(s, c.presets, c.headroomBytes, memoryOptions).value_or(0)
               : 0;
}

// Marks a waiting layout of full recomputation whose fewest recomputed layers are searched
// only if the second pass reaches it: it waits with its bound at one layer a chunk, the least
// time any N gives (a step grows with N), and most layouts of a large search are never
// reached.
constexpr int kRecomputedLayersSearched = -1;

// Whether a layout that does not fit is tried with the first layers' activations offloaded
// to host memory (offload_layers, docs/planner.md, "Offloaded layers"): Megatron-LM training
// of one stage without recomputation on a device with a host link. A layout that fits
// without offloading is never offloaded: the copies can only add waits.
bool searchesOffloadedLayers(const Context &c, const Scenario &s)
{
    return c.request.offloading && offloadsActivations(s, c.model, c.device);
}

// The fewest offloaded layers with which `s`, offloading none, fits the search (fewest; 0 where
// none do), and the fewest the device holds where its host cannot (deviceFewest).
OffloadedLayers offloadedThatFit(const Context &c, Scenario s, const EvaluateOptions &memoryOptions)
{
    s.offloadLayers = 0;
    return searchesOffloadedLayers(c, s)
               ? fewestOffloadedLayers(s, c.presets, c.headroomBytes, memoryOptions)
               : OffloadedLayers{};
}

// A layout that fits with offloading but for host memory (OffloadedLayers::deviceFewest): at
// that N, which its rejection under "host memory" names.
Scenario offloadedForHost(const Scenario &s, const OffloadedLayers &offloaded)
{
    Scenario at = s;
    at.offloadLayers = offloaded.deviceFewest;
    return at;
}

// A waiting layout as the second pass evaluates it, its recomputed layers searched first where
// the first pass marked them (kRecomputedLayersSearched).
void applyWaiting(const Context &c, const PlanLayout &layout, Scenario &s,
                  const EvaluateOptions &memoryOptions)
{
    layout.applyTo(s);
    if (s.recomputeLayers == kRecomputedLayersSearched) {
        s.recomputeLayers = 0;
        s.recomputeLayers = fewestThatFit(c, s, memoryOptions);
    }
}

// First pass over one split: every layout of its ZeRO stages, micro-batch sizes,
// recomputation, sequence parallelism and schedules. Without pruning each is evaluated in
// full here; with pruning, the ones whose weights, gradients and optimizer states overflow
// are rejected unseen and the rest wait, with a lower bound on their step time, for the
// second pass.
void searchSplit(const Context &c, const DeviceSplit &split, WorkerResult &out,
                 PipelineCache &cache)
{
    const PlanRequest &req = c.request;
    Scenario s = req.base;
    applySplit(split, s);
    if (req.globalBatch < split.dp || req.globalBatch % split.dp != 0) {
        ++out.layouts;
        const bool tooSmall = req.globalBatch < split.dp;
        PlanLayout layout; // the split only: it has no micro-batching to try
        layout.tp = split.tp;
        layout.pp = split.pp;
        layout.dp = split.dp;
        layout.cp = split.cp;
        layout.ep = split.ep;
        reject(out.rejected, tooSmall ? kBatchTooSmall : kBatchNotDivisible, 1,
               "global batch " + std::to_string(req.globalBatch) +
                   (tooSmall ? " is smaller than D = " : " does not divide by D = ") +
                   std::to_string(split.dp),
               layout);
        return;
    }
    const int perReplica = req.globalBatch / split.dp;
    const std::int64_t capacity = c.device.capacityBytes();
    const std::int64_t reserve = std::llround(req.base.reserveGib * static_cast<double>(kGiB));

    const std::vector<ZeroChoice> zeros = zeroStages(c, split, s);
    const auto recomputeList = recomputations(c);
    const auto spList = sequenceParallelism(split);
    const EvaluateOptions options = searchOptions(cache);
    const EvaluateOptions memoryOptions = searchOptions(cache, true);
    for (bool ends : endsInSplit(c, split)) {
        s.endsInPipelineSplit = ends;
        // Model states depend on the split of the layers, not on the micro-batching, the
        // schedule or recomputation.
        std::vector<StateOverflow> overflow(zeros.size());
        if (req.prune) {
            for (std::size_t z = 0; z < zeros.size(); ++z) {
                applyZero(zeros[z], s);
                int index = 0;
                for (const auto &st : stageModelStates(s, c.model)) {
                    overflow[z] = stateOverflow(st, index++, reserve, capacity);
                    if (!overflow[z].term.empty())
                        break;
                }
            }
        }
        for (int mbs : divisors(perReplica)) {
            s.microbatchSize = mbs;
            s.microbatches = perReplica / mbs;
            // Whether each layout of this micro-batching fits the search without recomputation,
            // in the loops' order: where it does, full recomputation of fewer layers than all is
            // slower than none, and its fewest layers are not searched.
            std::vector<char> fitsWithout;
            for (const RecomputeChoice &choice : recomputeList) {
                s.recompute = choice.recompute;
                s.recomputeModules = choice.modules;
                s.recomputeLayers = 0; // every layer; fewer once it fits (fewestThatFit)
                std::size_t at = 0;    // the layout's place in the loops below
                // Whether full recomputation of `s`, which fits or not, searches its fewest
                // recomputed layers (fewestThatFit).
                const auto searchesFewer = [&](bool fits) {
                    const std::size_t here = at++;
                    if (s.recompute == Recompute::none) {
                        fitsWithout.resize(here + 1);
                        fitsWithout[here] = fits;
                    }
                    const bool fitsUnrecomputed = here < fitsWithout.size() && fitsWithout[here];
                    return fits && !fitsUnrecomputed && searchesRecomputedLayers(c, s);
                };
                // ZeRO and sequence parallelism innermost: they leave the pipeline as it is,
                // so its simulation comes from the cache.
                for (auto [schedule, v] : schedules(c, split, s.microbatches, ends)) {
                    s.schedule = schedule;
                    s.virtualStages = v;
                    for (std::size_t z = 0; z < zeros.size(); ++z) {
                        // Hybrid sharding is not modelled with DualPipe's mirrored copies.
                        if (zeros[z].replicas > 1 && schedule == Schedule::dualPipe)
                            continue;
                        applyZero(zeros[z], s);
                        out.layouts += static_cast<std::int64_t>(spList.size());
                        if (!overflow[z].term.empty()) {
                            at += spList.size();
                            s.sequenceParallel = spList.front();
                            reject(out.rejected, overflow[z].term,
                                   static_cast<std::int64_t>(spList.size()), overflow[z].message,
                                   PlanLayout::of(s));
                            continue;
                        }
                        for (bool sp : spList) {
                            s.sequenceParallel = sp;
                            if (!req.prune) {
                                Outcome whole = evaluateOne(c, s, options);
                                Scenario ranked = s;
                                if (searchesFewer(whole.fitsSearch))
                                    ranked.recomputeLayers = fewestThatFit(c, s, memoryOptions);
                                if (!whole.fitsSearch) {
                                    const OffloadedLayers offloaded =
                                        offloadedThatFit(c, s, memoryOptions);
                                    ranked.offloadLayers = offloaded.fewest > 0
                                                               ? offloaded.fewest
                                                               : offloaded.deviceFewest;
                                }
                                record(ranked.recomputeLayers == 0 && ranked.offloadLayers == 0
                                           ? std::move(whole)
                                           : evaluateOne(c, ranked, options),
                                       out);
                                continue;
                            }
                            // Memory first: a layout that does not fit is never ranked, so
                            // its step time is not needed, and most layouts of a large
                            // model do not fit.
                            const Outcome memory = evaluateOne(c, s, memoryOptions);
                            const bool fewer = searchesFewer(memory.fitsSearch);
                            // One that does not fit may with its first layers' activations
                            // offloaded: the fewest that fit, a handful of memory evaluations
                            // where the device holds it with all but the last offloaded.
                            const OffloadedLayers offloading =
                                memory.fitsSearch ? OffloadedLayers{}
                                                  : offloadedThatFit(c, s, memoryOptions);
                            const int offloaded = offloading.fewest;
                            // The device would hold it offloaded, but not the host: rejected
                            // for host memory at the fewest the device holds.
                            if (!memory.fitsSearch && offloaded == 0 &&
                                offloading.deviceFewest > 0) {
                                count(
                                    evaluateOne(c, offloadedForHost(s, offloading), memoryOptions),
                                    out.rejected, out.fitting);
                                continue;
                            }
                            if (!memory.fitsSearch && offloaded == 0) {
                                count(memory, out.rejected, out.fitting);
                                if (memory.candidate && !memory.candidate->fits)
                                    out.overflowing.emplace_back(memory.candidate->peakStageBytes,
                                                                 memory.layout);
                                continue;
                            }
                            // Full recomputation of fewer layers waits bounded by its least.
                            Scenario least = s;
                            least.recomputeLayers = fewer ? 1 : 0;
                            least.offloadLayers = offloaded;
                            if (const auto bound = stepTimeLowerBound(least, c.presets, options)) {
                                PlanLayout waiting = PlanLayout::of(s);
                                if (fewer)
                                    waiting.recomputeLayers = kRecomputedLayersSearched;
                                waiting.offloadLayers = offloaded;
                                out.pending.emplace_back(*bound * c.scorePerSecond(s.devices()),
                                                         waiting);
                            } else { // it says why it has no step time
                                record(evaluateOne(c, s, options), out);
                            }
                        }
                    }
                }
            }
        }
    }
}

// The device counts above the request's that a request could take, ascending: T × C × K × D
// with T a power of two dividing the heads, C one the request searches, K at most the layers
// and D dividing the global batch, up to limits::kPlanDevices.
std::vector<int> countsAbove(const ModelSpec &model, const PlanRequest &req)
{
    std::set<int> counts;
    const std::vector<int> replicas = divisors(req.globalBatch);
    const std::vector<int> cps = contextDegrees(req.base, req.maxContextParallel);
    for (std::int64_t t = 1; t <= model.heads; t *= 2) {
        if (model.heads % t != 0)
            continue;
        for (int c : cps)
            for (int d : replicas)
                for (std::int64_t k = 1; k <= model.layers; ++k) {
                    const std::int64_t n = t * c * k * d;
                    if (n > limits::kPlanDevices)
                        break;
                    if (n > req.devices)
                        counts.insert(static_cast<int>(n));
                }
    }
    return {counts.begin(), counts.end()};
}

// One layout of the split that fits with the headroom free, checked for memory only (no step
// time), in the first pass's order; none when no layout of the split fits.
std::optional<PlanLayout> firstFitting(const Context &c, const DeviceSplit &split,
                                       PipelineCache &cache)
{
    const PlanRequest &req = c.request;
    Scenario s = req.base;
    applySplit(split, s);
    const int perReplica = req.globalBatch / split.dp;
    const std::int64_t room = c.device.capacityBytes() - c.headroomBytes;
    const std::int64_t reserve = std::llround(req.base.reserveGib * static_cast<double>(kGiB));
    const EvaluateOptions options = searchOptions(cache, true);
    for (bool ends : endsInSplit(c, split)) {
        s.endsInPipelineSplit = ends;
        for (const ZeroChoice &zero : zeroStages(c, split, s)) {
            applyZero(zero, s);
            // Weights, gradients and optimizer states alone leave too little room: so does
            // every layout of this ZeRO stage and split.
            bool statesFit = true;
            for (const auto &st : stageModelStates(s, c.model))
                statesFit = statesFit && stateOverflow(st, 0, reserve, room).term.empty();
            if (!statesFit)
                continue;
            for (int mbs : divisors(perReplica)) {
                s.microbatchSize = mbs;
                s.microbatches = perReplica / mbs;
                for (const RecomputeChoice &choice : recomputations(c)) {
                    s.recompute = choice.recompute;
                    s.recomputeModules = choice.modules;
                    s.recomputeLayers = 0;
                    for (auto [schedule, v] : schedules(c, split, s.microbatches, ends)) {
                        s.schedule = schedule;
                        s.virtualStages = v;
                        for (bool sp : sequenceParallelism(split)) {
                            s.sequenceParallel = sp;
                            if (evaluateOne(c, s, options).fitsSearch)
                                return PlanLayout::of(s);
                            if (const int n = offloadedThatFit(c, s, options).fewest; n > 0) {
                                PlanLayout offloaded = PlanLayout::of(s);
                                offloaded.offloadLayers = n;
                                return offloaded;
                            }
                        }
                    }
                }
            }
        }
    }
    return std::nullopt;
}

// When nothing fits: the smallest device count above the request's with a layout that fits,
// trying the counts in ascending order. A count whose model states, spread evenly over every
// device, already leave too little room is skipped unseen: no layout holds fewer than its
// share of them (tensor parallelism replicates the norms, ZeRO shards at most D ways).
void searchSmallest(const Context &c, PlanResult &result, const std::function<bool()> &cancelled)
{
    result.smallestSearched = true;
    Scenario whole = PlanLayout{}.apply(c.request.base);
    whole.zero = 0;
    std::int64_t states = 0;
    for (const auto &st : stageModelStates(whole, c.model))
        states += st.weightsBytes + st.gradsBytes + st.optimizerBytes;
    const double room =
        static_cast<double>(c.device.capacityBytes() - c.headroomBytes) -
        static_cast<double>(std::llround(c.request.base.reserveGib * static_cast<double>(kGiB)));
    PipelineCache cache;
    for (int n : countsAbove(c.model, c.request)) {
        if (cancelled())
            return;
        // Shares rounded down lose less than a parameter's bytes (16) per device.
        if ((static_cast<double>(states) - 64.0 * n) / n > room)
            continue;
        for (const DeviceSplit &split : splits(c.model, c.request, n)) {
            if (c.request.globalBatch % split.dp != 0)
                continue;
            if (auto layout = firstFitting(c, split, cache)) {
                result.smallestFittingDevices = n;
                result.smallestFittingLayout = *layout;
                return;
            }
        }
    }
}

// The split a layout belongs to when the ranking keeps one layout per split: the layout with
// the keys that only trade memory for time at their defaults.
PlanLayout splitKey(const PlanLayout &l)
{
    PlanLayout split = l;
    forEachLayoutField([&split](const auto &field) {
        if (field.refinesSplit)
            split.*field.layout = PlanLayout{}.*field.layout;
    });
    return split;
}

// The shared state of the second pass: the best fitting step times so far, one per layout or,
// with `distinct`, one per split (its fastest layout). A layout whose lower bound exceeds the
// `top`-th of them can never enter the ranking: it is slower than `top` entries that differ
// from it, or than the fastest of its own split. The threshold only ever falls.
class Leaderboard
{
public:
    Leaderboard(int top, bool distinct) : top_(static_cast<std::size_t>(top)), distinct_(distinct)
    {}

    double threshold() const { return threshold_.load(std::memory_order_relaxed); }

    void add(double stepTime, const PlanLayout &layout)
    {
        const std::lock_guard lock(mutex_);
        if (distinct_) {
            const auto [entry, added] = fastestOfSplit_.try_emplace(splitKey(layout), stepTime);
            if (!added) {
                if (stepTime >= entry->second)
                    return;
                best_.erase(best_.find(entry->second));
                entry->second = stepTime;
            }
        }
        best_.insert(stepTime);
        if (best_.size() >= top_)
            threshold_.store(*std::next(best_.begin(), static_cast<std::ptrdiff_t>(top_ - 1)),
                             std::memory_order_relaxed);
    }

private:
    std::size_t top_;
    bool distinct_;
    std::mutex mutex_;
    std::multiset<double> best_;
    std::map<PlanLayout, double> fastestOfSplit_;
    std::atomic<double> threshold_{std::numeric_limits<double>::infinity()};
};

std::optional<InputError> checkRequest(const PlanRequest &req, const Presets &presets)
{
    if (req.devices <= 0 || req.devices > limits::kPlanDevices)
        return InputError{"devices", "must be a device count from 1 to " +
                                         std::to_string(limits::kPlanDevices) + ", got " +
                                         std::to_string(req.devices)};
    if (req.globalBatch <= 0)
        return InputError{"global-batch", "must be a positive number of sequences, got " +
                                              std::to_string(req.globalBatch)};
    if (req.top <= 0)
        return InputError{"top", "must be at least 1, got " + std::to_string(req.top)};
    if (!(req.headroomGib >= 0) || req.headroomGib > limits::kGib)
        return InputError{"headroom-gib", "must be from 0 to " + gibText(limits::kGib) +
                                              " (1 PiB), got " + gibText(req.headroomGib)};
    if (req.maxContextParallel < 1 || req.maxContextParallel > limits::kContextParallel)
        return InputError{"max-cp", "must be from 1 to " +
                                        std::to_string(limits::kContextParallel) + ", got " +
                                        std::to_string(req.maxContextParallel)};
    if (req.maxExpertParallel < 1 || req.maxExpertParallel > limits::kExpertParallel)
        return InputError{"max-ep", "must be from 1 to " + std::to_string(limits::kExpertParallel) +
                                        ", got " + std::to_string(req.maxExpertParallel)};
    // The base scenario's own layout is replaced; everything else must already be valid. Expert
    // T and hybrid sharding's replicas are kept: D = their least common multiple gives expert T
    // ranks to tile and the replicas a D to divide, so that only their own ranges are checked.
    // Layouts whose D the replicas do not divide are then refused one by one (docs/planner.md).
    Scenario probe = PlanLayout{}.apply(req.base);
    const std::int64_t probeDp =
        std::lcm(std::int64_t{std::clamp(req.base.expertTp, 1, limits::kExpertParallel)},
                 std::int64_t{std::clamp(req.base.zeroReplicas, 1, limits::kDataParallel)});
    probe.dp = static_cast<int>(std::min<std::int64_t>(probeDp, limits::kDataParallel));
    if (auto e = validate(probe, presets))
        return e;
    const ModelSpec &model = *resolveModel(probe, presets);
    const DeviceSpec &device = *resolveDevice(probe, presets);
    if (!model.hasArchitecture())
        return InputError{"model", "the planner needs a model with an architecture (layers, "
                                   "hidden, heads); " +
                                       model.id + " gives only its size"};
    if (!device.tflops.contains(req.base.precision))
        return InputError{"device", device.id + " publishes no peak FLOPS at " +
                                        std::string(toString(req.base.precision)) +
                                        ": the planner ranks layouts by step time"};
    if (req.rank == PlanRank::energy && !(device.tdpW > 0))
        return InputError{"rank", device.id + " publishes no TDP (tdp_w): there is no energy to "
                                              "rank by; rank by time or cost"};
    return std::nullopt;
}

} // namespace

PlanLayout PlanLayout::of(const Scenario &s)
{
    PlanLayout l;
    forEachLayoutField([&](const auto &field) { l.*field.layout = s.*field.scenario; });
    return l;
}

void PlanLayout::applyTo(Scenario &s) const
{
    forEachLayoutField([&](const auto &field) { s.*field.scenario = this->*field.layout; });
    // A written placement belongs to one K and v: the planner splits every K evenly, or as
    // DeepSpeed's partition by parameters does, which the scenario keeps.
    if (s.pipelineLayout != kParametersLayout)
        s.pipelineLayout.clear();
}

bool PlanLayout::sameSplit(const PlanLayout &other) const
{
    return splitKey(*this) == splitKey(other);
}

Scenario PlanLayout::apply(const Scenario &base) const
{
    Scenario s = base;
    applyTo(s);
    return s;
}

std::vector<std::pair<std::string, RejectionGroup>> rejectionsByCount(const RejectionCounts &counts)
{
    std::vector<std::pair<std::string, RejectionGroup>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto &a, const auto &b) { return a.second.count > b.second.count; });
    return sorted;
}

PlanResult plan(const PlanRequest &request, const Presets &presets, const PlanControl &control)
{
    // The search splits every K evenly (docs/planner.md), or as DeepSpeed's partition by
    // parameters does, which places any K; a placement written for one K would otherwise be
    // asked of every K and schedule, and PlanLayout::applyTo drops it from what is applied.
    if (!request.base.pipelineLayout.empty() && request.base.pipelineLayout != kParametersLayout) {
        PlanRequest even = request;
        even.base.pipelineLayout.clear();
        return plan(even, presets, control);
    }
    const auto started = std::chrono::steady_clock::now();
    PlanResult result;
    if (auto e = checkRequest(request, presets)) {
        result.error = std::move(e);
        return result;
    }
    const DeviceSpec &device = *resolveDevice(request.base, presets);
    result.assumedRates = assumedRates(request.base, device);
    const Context context{request,
                          presets,
                          *resolveModel(request.base, presets),
                          device,
                          request.base.mode == Mode::training,
                          std::llround(request.headroomGib * static_cast<double>(kGiB)),
                          static_cast<double>(request.globalBatch) * request.base.seqLen};
    const std::vector<DeviceSplit> work = searchSplits(context.model, request);

    int threads = request.threads > 0 ? request.threads
                                      : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::max(threads, 1);
    std::vector<WorkerResult> partial(static_cast<std::size_t>(threads));
    std::vector<PipelineCache> caches(static_cast<std::size_t>(threads));
    auto cancelled = [&control] { return control.cancel && control.cancel->load(); };
    std::mutex progressMutex;
    auto report = [&](double fraction) {
        if (!control.progress)
            return;
        const std::lock_guard lock(progressMutex);
        control.progress(fraction);
    };
    auto runOnAllThreads = [threads](const std::function<void(std::size_t)> &body) {
        std::vector<std::jthread> pool;
        for (int t = 1; t < threads; ++t)
            pool.emplace_back(body, static_cast<std::size_t>(t));
        body(0);
    };
    // Without pruning the first pass is the whole search.
    const double firstShare = request.prune ? 0.5 : 1.0;

    // First pass: one split at a time per thread.
    std::atomic<std::size_t> nextSplit{0};
    std::atomic<std::size_t> splitsDone{0};
    runOnAllThreads([&](std::size_t t) {
        for (std::size_t i = nextSplit++; i < work.size() && !cancelled(); i = nextSplit++) {
            searchSplit(context, work[i], partial[t], caches[t]);
            report(firstShare * static_cast<double>(++splitsDone) /
                   static_cast<double>(work.size()));
        }
    });

    // Second pass: the waiting layouts from the lowest bound up, until the bound passes the
    // `top`-th best step time found so far.
    std::vector<std::pair<double, PlanLayout>> pending;
    for (auto &p : partial) {
        pending.insert(pending.end(), p.pending.begin(), p.pending.end());
        p.pending = {};
    }
    std::sort(pending.begin(), pending.end(), [](const auto &a, const auto &b) {
        return std::tie(a.first, a.second) < std::tie(b.first, b.second);
    });
    Leaderboard leaders(request.top, request.distinct);
    std::vector<Outcome> outcomes(pending.size()); // each written by the one thread that took it
    std::atomic<std::size_t> nextPending{0};
    constexpr std::size_t kChunk = 16;
    runOnAllThreads([&](std::size_t t) {
        const EvaluateOptions options = searchOptions(caches[t]);
        const EvaluateOptions memoryOptions = searchOptions(caches[t], true);
        Scenario s = request.base;
        while (!cancelled()) {
            const std::size_t begin = nextPending.fetch_add(kChunk);
            if (begin >= pending.size())
                return;
            const std::size_t end = std::min(begin + kChunk, pending.size());
            for (std::size_t i = begin; i < end; ++i) {
                if (pending[i].first > leaders.threshold())
                    return; // sorted: every later layout is bounded out as well
                applyWaiting(context, pending[i].second, s, memoryOptions);
                outcomes[i] = evaluateOne(context, s, options);
                if (outcomes[i].fits())
                    leaders.add(outcomes[i].candidate->score, *outcomes[i].candidate);
            }
            report(firstShare + (1 - firstShare) * static_cast<double>(end) /
                                    static_cast<double>(pending.size()));
        }
    });
    result.cancelled = cancelled();
    // Which layouts a thread reached past the final threshold depends on timing; keeping
    // only those at or under it makes every count the same from run to run (each of them
    // is evaluated in any run: the threshold only ever falls to its final value).
    const double finalThreshold = leaders.threshold();
    const auto evaluatedBefore = [&](std::size_t i) {
        return pending[i].first <= finalThreshold &&
               (outcomes[i].candidate || !outcomes[i].rejected.empty());
    };

    // The chart's layouts (docs/planner.md, "The chart"): besides those the ranking evaluated,
    // up to kPlanChartLayouts fitting ones with the next lowest bounds and as many that
    // overflow, spread evenly over their order by peak memory; chosen by bound or by memory
    // alone, so the same in every run.
    std::vector<std::size_t> chartFitting;
    for (std::size_t i = 0; i < pending.size() && chartFitting.size() < kPlanChartLayouts; ++i)
        if (!evaluatedBefore(i))
            chartFitting.push_back(i);
    std::vector<std::pair<std::int64_t, PlanLayout>> overflowing;
    for (auto &p : partial) {
        overflowing.insert(overflowing.end(), p.overflowing.begin(), p.overflowing.end());
        p.overflowing = {};
    }
    std::sort(overflowing.begin(), overflowing.end());
    const std::size_t overflowShown = std::min(overflowing.size(), kPlanChartLayouts);
    for (std::size_t o = 0; o < overflowShown; ++o) // o·n/shown >= o: in place, ascending
        overflowing[o] = overflowing[o * overflowing.size() / overflowShown];
    std::vector<Outcome> overflowOutcomes(overflowShown);
    const std::size_t chartCount = chartFitting.size() + overflowShown;
    std::atomic<std::size_t> nextChart{0};
    runOnAllThreads([&](std::size_t t) {
        const EvaluateOptions options = searchOptions(caches[t]);
        const EvaluateOptions memoryOptions = searchOptions(caches[t], true);
        Scenario s = request.base;
        for (std::size_t k = nextChart++; k < chartCount && !cancelled(); k = nextChart++) {
            if (k < chartFitting.size()) {
                const std::size_t i = chartFitting[k];
                if (outcomes[i].candidate || !outcomes[i].rejected.empty())
                    continue; // a thread reached it past the final threshold
                applyWaiting(context, pending[i].second, s, memoryOptions);
                outcomes[i] = evaluateOne(context, s, options);
            } else {
                const std::size_t o = k - chartFitting.size();
                overflowing[o].second.applyTo(s);
                overflowOutcomes[o] = evaluateOne(context, s, options);
            }
        }
    });
    WorkerResult &merged = partial.front();
    std::size_t nextFitting = 0; // in chartFitting
    for (std::size_t i = 0; i < pending.size(); ++i) {
        const bool charted = nextFitting < chartFitting.size() && chartFitting[nextFitting] == i;
        nextFitting += charted ? 1 : 0;
        if (evaluatedBefore(i) || (charted && outcomes[i].candidate)) {
            record(std::move(outcomes[i]), merged);
        } else {
            // Pruned: the first pass found that it fits, from its memory alone.
            ++result.pruned;
            ++merged.fitting;
        }
    }
    // Their rejections were counted in the first pass.
    for (Outcome &o : overflowOutcomes)
        if (o.candidate)
            merged.evaluated.push_back(std::move(*o.candidate));
    for (auto &p : partial) {
        result.layouts += p.layouts;
        result.evaluated += static_cast<std::int64_t>(p.evaluated.size());
        result.feasible += p.fitting;
        merge(result.rejected, p.rejected);
        std::move(p.evaluated.begin(), p.evaluated.end(),
                  std::back_inserter(result.evaluatedLayouts));
    }
    // Each group's example in its own words, which the search left out.
    for (auto &[reason, group] : result.rejected)
        if (group.example.empty()) {
            Scenario s = request.base;
            group.layout.applyTo(s);
            group.example = evaluateOne(context, s, EvaluateOptions{}).message;
        }
    std::sort(result.evaluatedLayouts.begin(), result.evaluatedLayouts.end(), better);
    for (const auto &c : result.evaluatedLayouts) {
        if (!c.leavesHeadroom)
            continue;
        const auto sameSplit = [&c](const PlanCandidate &kept) { return kept.sameSplit(c); };
        if (static_cast<int>(result.candidates.size()) < request.top &&
            !(request.distinct && std::ranges::any_of(result.candidates, sameSplit)))
            result.candidates.push_back(c);
    }
    if (result.feasible == 0 && !result.cancelled)
        searchSmallest(context, result, cancelled);
    result.cancelled = cancelled();
    report(1.0);
    result.elapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace core
