#include "core/sharding.h"

#include "core/random_matrix.h"
#include "core/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

namespace core {

namespace {

constexpr std::array kStrategies{
    std::pair{Split::columns, Split::rows}, std::pair{Split::rows, Split::rows},
    std::pair{Split::columns, Split::columns}, std::pair{Split::rows, Split::columns}};

// Sizes beyond these would overflow the byte counts in int64: hidden, ffn and T each at
// most 2^24, and a collective's values (tokens x hidden or ffn) at most 2^58, so its bytes
// at 4 per value stay below 2^60.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
constexpr std::int64_t kMaxValues = std::int64_t{1} << 58;

// "0.001", "1e+09", "16.8": three digits at most, as a person reads a limit.
std::string shortNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

// "2.4 GB": one decimal, decimal gigabytes as everywhere in Parascope.
std::string gigabytes(double bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    return text;
}

// Progress in units of one device's matmul; the reference counts as T of them per matmul.
class Ticker
{
public:
    Ticker(const ProgressFn &progress, int total) : m_progress(progress), m_total(total) {}
    bool tick(int units = 1) { return partial(units, 1.0); }
    // `part` (0..1] of a step of `units` done; the step counts as done at part 1.
    bool partial(int units, double part)
    {
        const double done = part >= 1.0 ? (m_done += units) : m_done + units * part;
        if (!m_progress)
            return true;
        return m_progress(std::min(1.0, done / m_total));
    }

private:
    const ProgressFn &m_progress;
    int m_total;
    int m_done = 0;
};

// A full-size product is a few TFLOP; cut into column blocks of B it reports
// progress, and can stop, about once per this many FLOPs. Blocks stay at least
// kMinBlockColumns wide so that Eigen's GEMM keeps its speed.
constexpr double kFlopsPerTick = 4e9;
constexpr Eigen::Index kMinBlockColumns = 256;

// out = a·b; false when the progress callback asked to stop.
template <typename A, typename B>
bool multiply(Eigen::MatrixXf &out, const A &a, const B &b, int units, Ticker &ticker)
{
    const Eigen::Index n = b.cols();
    const double flops = 2.0 * double(a.rows()) * double(a.cols()) * double(n);
    const Eigen::Index blocks =
        std::clamp<Eigen::Index>(static_cast<Eigen::Index>(flops / kFlopsPerTick), 1,
                                 std::max<Eigen::Index>(1, n / kMinBlockColumns));
    out.resize(a.rows(), n);
    for (Eigen::Index k = 0; k < blocks; ++k) {
        const Eigen::Index begin = n * k / blocks, end = n * (k + 1) / blocks;
        out.middleCols(begin, end - begin).noalias() = a * b.middleCols(begin, end - begin);
        if (!ticker.partial(units, double(end) / double(n)))
            return false;
    }
    return true;
}

class Recorder
{
public:
    Recorder(Precision activations, int tp) : m_precision(activations), m_tp(tp) {}
    void add(Collective kind, std::int64_t values)
    {
        // A group of one has nobody to talk to; Megatron-LM returns the input unchanged.
        if (m_tp > 1)
            calls.push_back({kind, values, bytesFor(values, m_precision)});
    }
    std::vector<CollectiveCall> calls;

private:
    Precision m_precision;
    int m_tp;
};

struct Inputs
{
    Eigen::MatrixXf x, w1, w2, reference;
    float referenceMax = 0;
};

std::optional<ExecutedStrategy> runStrategy(Split w1Split, Split w2Split, int tp, const Inputs &in,
                                            Precision activations, Ticker &ticker)
{
    const Eigen::Index t = in.x.rows();
    const Eigen::Index hs = in.x.cols() / tp;
    const Eigen::Index fs = in.w1.cols() / tp;
    Recorder record(activations, tp);
    const auto n = static_cast<std::size_t>(tp);

    // After the first matmul each device holds act(H) either as its column
    // shard [t, f/T] or, when W1 was split by rows, replicated in full [t, f].
    std::vector<Eigen::MatrixXf> act(n);
    const bool actSharded = w1Split == Split::columns;
    for (std::size_t i = 0; i < n; ++i) {
        const auto d = static_cast<Eigen::Index>(i);
        // With W1 split by rows, X is replicated, so the matching column slice of X is local.
        const bool done = actSharded
                              ? multiply(act[i], in.x, in.w1.middleCols(d * fs, fs), 1, ticker)
                              : multiply(act[i], in.x.middleCols(d * hs, hs),
                                         in.w1.middleRows(d * hs, hs), 1, ticker);
        if (!done)
            return std::nullopt;
    }
    if (!actSharded) {
        // Row-split W1 leaves partial sums; act() is nonlinear, so they are summed first
        // (Shoeybi et al. 2019, "Megatron-LM", §3: this is why Megatron splits W1 by columns).
        allReduce(act);
        record.add(Collective::allReduce, t * in.w1.cols());
    }
    for (auto &a : act)
        geluInPlace(a);

    std::vector<Eigen::MatrixXf> y(n);
    if (w2Split == Split::rows) {
        for (std::size_t i = 0; i < n; ++i) {
            const auto d = static_cast<Eigen::Index>(i);
            const Eigen::MatrixXf &local = act[i];
            const bool done = actSharded
                                  ? multiply(y[i], local, in.w2.middleRows(d * fs, fs), 1, ticker)
                                  : multiply(y[i], local.middleCols(d * fs, fs),
                                             in.w2.middleRows(d * fs, fs), 1, ticker);
            if (!done)
                return std::nullopt;
        }
        // Each device holds a partial Y; Megatron-LM §3's single all-reduce.
        allReduce(y);
        record.add(Collective::allReduce, t * in.x.cols());
    } else {
        if (actSharded) {
            // A column split of W2 needs every column of act(H) on every device.
            allGatherColumns(act);
            record.add(Collective::allGather, t * in.w1.cols());
        }
        for (std::size_t i = 0; i < n; ++i) {
            const auto d = static_cast<Eigen::Index>(i);
            if (!multiply(y[i], act[i], in.w2.middleCols(d * hs, hs), 1, ticker))
                return std::nullopt;
        }
        allGatherColumns(y);
        record.add(Collective::allGather, t * in.x.cols());
    }

    ExecutedStrategy out{w1Split, w2Split, std::move(record.calls), 0, 0};
    for (const auto &replica : y)
        out.maxAbsError = std::max(
            out.maxAbsError, static_cast<double>((replica - in.reference).cwiseAbs().maxCoeff()));
    out.maxRelError = in.referenceMax > 0 ? out.maxAbsError / in.referenceMax : out.maxAbsError;
    return out;
}

} // namespace

namespace {

// Hendrycks & Gimpel 2016, §2: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))). One expression
// for a float and for an Eigen array, whose tanh is Eigen's rational approximation (the
// same for one value as for a packet of them), so a matrix runs vectorized and gives, entry
// by entry, what gelu() gives.
template <typename T> T geluOf(const T &x)
{
    constexpr float kSqrt2OverPi = 0.7978845608028654f;
    const T u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
    if constexpr (std::is_same_v<T, float>)
        return 0.5f * x * (1.0f + Eigen::numext::tanh(u));
    else
        return 0.5f * x * (1.0f + u.tanh());
}

} // namespace

float gelu(float x)
{
    return geluOf(x);
}

void geluInPlace(Eigen::MatrixXf &m)
{
    m.array() = geluOf<Eigen::ArrayXXf>(m.array());
}

void allReduce(std::vector<Eigen::MatrixXf> &parts)
{
    if (parts.empty())
        return;
    Eigen::MatrixXf sum = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i)
        sum += parts[i];
    for (auto &p : parts)
        p = sum;
}

void allGatherColumns(std::vector<Eigen::MatrixXf> &shards)
{
    if (shards.empty())
        return;
    Eigen::Index cols = 0;
    for (const auto &s : shards)
        cols += s.cols();
    Eigen::MatrixXf full(shards.front().rows(), cols);
    Eigen::Index at = 0;
    for (const auto &s : shards) {
        full.middleCols(at, s.cols()) = s;
        at += s.cols();
    }
    for (auto &s : shards)
        s = full;
}

void reduceScatterColumns(std::vector<Eigen::MatrixXf> &parts)
{
    if (parts.empty())
        return;
    Eigen::MatrixXf sum = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i)
        sum += parts[i];
    const Eigen::Index width = sum.cols() / static_cast<Eigen::Index>(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
        parts[i] = sum.middleCols(static_cast<Eigen::Index>(i) * width, width);
}

CollectiveCounts countCollectives(const std::vector<CollectiveCall> &calls)
{
    CollectiveCounts c;
    for (const auto &call : calls) {
        switch (call.kind) {
        case Collective::allReduce:
            ++c.allReduce;
            break;
        case Collective::allGather:
            ++c.allGather;
            break;
        case Collective::reduceScatter:
            ++c.reduceScatter;
            break;
        }
    }
    return c;
}

std::vector<CollectiveCall> requiredCollectives(Split w1, Split w2, const FfnShape &shape, int tp,
                                                Precision activations)
{
    Recorder record(activations, tp);
    // docs/DESIGN.md §3.4, with Y replicated at the end; the order is the execution order.
    if (w1 == Split::rows)
        record.add(Collective::allReduce, shape.tokens * shape.ffn);
    if (w1 == Split::columns && w2 == Split::columns)
        record.add(Collective::allGather, shape.tokens * shape.ffn);
    record.add(w2 == Split::rows ? Collective::allReduce : Collective::allGather,
               shape.tokens * shape.hidden);
    return record.calls;
}

double verifyBytes(const FfnShape &shape, int tp)
{
    // Floats held at once (executeStrategies, runStrategy): X [t,h], the reference Y [t,h],
    // W1 [h,f] and W2 [f,h]; then every device's act [t,f] or shard of it and its Y [t,h]
    // or shard, plus the one summed or gathered copy a collective builds.
    const double t = static_cast<double>(shape.tokens), h = static_cast<double>(shape.hidden),
                 f = static_cast<double>(shape.ffn), devices = std::max(1, tp);
    return sizeof(float) * (2 * t * h + 2 * h * f + (devices + 1) * t * (h + f));
}

double ffnFlops(const FfnShape &shape)
{
    // Kaplan et al. 2020 §2.1: 2 FLOPs per multiply-add; two matmuls of tokens·h·f.
    return 2.0 * 2.0 * static_cast<double>(shape.tokens) * static_cast<double>(shape.hidden) *
           static_cast<double>(shape.ffn);
}

double checkFlops(const FfnShape &shape)
{
    // executeStrategies: the unsharded reference, then four strategies that each do the
    // layer's FLOPs once, spread over the T devices.
    return 5 * ffnFlops(shape);
}

FfnShape reducedShape(const FfnShape &requested, int tp, std::int64_t hiddenCap,
                      std::int64_t tokensCap, double flopsCap, double bytesCap)
{
    if (tp <= 0 || requested.hidden <= 0 || requested.ffn <= 0)
        return requested;
    FfnShape out = requested;
    // h = g·a, f = g·b with gcd(a, b) = 1: every (a·m, b·m) keeps f/h exactly, and both
    // divide by T exactly when T divides m. The smallest, a·T, must still be within the
    // cap (or be T itself): h = 16,382, f = 16,384 gave 8,191/8,192, a check of 344 GFLOP
    // that froze the window for half a minute.
    const std::int64_t g = std::gcd(requested.hidden, requested.ffn);
    const std::int64_t a = requested.hidden / g;
    if (g % tp == 0 && a * tp <= std::max<std::int64_t>(hiddenCap, tp)) {
        const std::int64_t c = std::max<std::int64_t>(1, std::min(g / tp, hiddenCap / (a * tp)));
        const std::int64_t m = tp * c;
        if (a * m < requested.hidden) {
            out.hidden = a * m;
            out.ffn = (requested.ffn / g) * m;
        }
    }
    if (out.hidden == requested.hidden && requested.hidden % tp == 0 && requested.ffn % tp == 0) {
        // No smaller pair keeps f/h exactly: keep it as nearly as multiples of T allow.
        const std::int64_t hidden = tp * std::max<std::int64_t>(1, hiddenCap / tp);
        if (hidden < requested.hidden) {
            const double ratio =
                static_cast<double>(requested.ffn) / static_cast<double>(requested.hidden);
            const auto units = std::llround(ratio * static_cast<double>(hidden) / tp);
            out.hidden = hidden;
            out.ffn = std::min(requested.ffn, tp * std::max<std::int64_t>(1, units));
        }
    }
    if (out.hidden < requested.hidden)
        out.tokens = std::max<std::int64_t>(1, std::llround(static_cast<double>(requested.tokens) *
                                                            static_cast<double>(out.hidden) /
                                                            static_cast<double>(requested.hidden)));
    // Each token is one more row of the same check: a few hundred show the split is right,
    // and the check stays milliseconds at any micro-batch size and sequence length (a 70B
    // layer at 256 x 131072 tokens took 90 s and 2.6 GB on every change).
    out.tokens = std::min(out.tokens, tokensCap);
    // Fewer rows still where the check's FLOPs or bytes grow with the layer rather than
    // with the tokens (at -O2: h = 64, f = 409,600 took 1.4 s; h = 1, f = 262,144 8.7 s;
    // the 8192 × 32768 layer at T = 256 3.0 s, copying act to 257 simulated devices). Both are
    // affine in the tokens.
    const FfnShape none{0, out.hidden, out.ffn}, one{1, out.hidden, out.ffn};
    const double tokensForFlops = flopsCap / checkFlops(one);
    const double tokensForBytes =
        (bytesCap - verifyBytes(none, tp)) / (verifyBytes(one, tp) - verifyBytes(none, tp));
    const double fits = std::floor(std::min(tokensForFlops, tokensForBytes));
    if (fits < static_cast<double>(out.tokens))
        out.tokens = std::max<std::int64_t>(1, static_cast<std::int64_t>(fits));
    return out;
}

Execution executeStrategies(const FfnShape &shape, int tp, std::uint64_t seed,
                            Precision activations, const ProgressFn &progress)
{
    Execution out;
    out.shape = shape;
    std::mt19937_64 rng(seed);
    Inputs in;
    // Scaled so that every entry of H and Y stays of order one.
    in.x = uniformRandomMatrix(shape.tokens, shape.hidden, 1.0f, rng);
    in.w1 =
        uniformRandomMatrix(shape.hidden, shape.ffn, 1.0f / std::sqrt(float(shape.hidden)), rng);
    in.w2 = uniformRandomMatrix(shape.ffn, shape.hidden, 1.0f / std::sqrt(float(shape.ffn)), rng);

    // The reference counts 2T units, each strategy 2T: one per device per matmul.
    Ticker ticker(progress, 2 * tp * (1 + static_cast<int>(kStrategies.size())));
    Eigen::MatrixXf h;
    if (!multiply(h, in.x, in.w1, tp, ticker)) {
        out.cancelled = true;
        return out;
    }
    geluInPlace(h);
    if (!multiply(in.reference, h, in.w2, tp, ticker)) {
        out.cancelled = true;
        return out;
    }
    h.resize(0, 0);
    in.referenceMax = in.reference.cwiseAbs().maxCoeff();
    for (auto [w1, w2] : kStrategies) {
        auto done = runStrategy(w1, w2, tp, in, activations, ticker);
        if (!done) {
            out.cancelled = true;
            return out;
        }
        out.strategies.push_back(std::move(*done));
    }
    return out;
}

std::optional<InputError> validateShardRequest(const ShardRequest &r, const DeviceSpec &device)
{
    for (auto [key, value] :
         {std::pair{"hidden", r.shape.hidden}, std::pair{"ffn", r.shape.ffn},
          std::pair{"tokens", r.shape.tokens}, std::pair{"tp", std::int64_t{r.tp}}}) {
        if (value <= 0)
            return InputError{key, "must be at least 1, got " + std::to_string(value)};
        if (key != std::string_view("tokens") && value > kMaxDimension)
            return InputError{key, "must be at most " + std::to_string(kMaxDimension)};
    }
    const std::int64_t widest = std::max(r.shape.hidden, r.shape.ffn);
    if (r.shape.tokens > kMaxValues / widest)
        return InputError{"tokens", "must be at most " + std::to_string(kMaxValues / widest) +
                                        " at hidden size " + std::to_string(r.shape.hidden) +
                                        " and ffn size " + std::to_string(r.shape.ffn) + ", got " +
                                        std::to_string(r.shape.tokens)};
    if (r.shape.hidden % r.tp != 0)
        return InputError{"tp", std::to_string(r.tp) + " does not divide hidden size " +
                                    std::to_string(r.shape.hidden)};
    if (r.shape.ffn % r.tp != 0)
        return InputError{"tp", std::to_string(r.tp) + " does not divide ffn size " +
                                    std::to_string(r.shape.ffn)};
    if (!isActivationFormat(r.precision))
        return InputError{"precision", "activations are fp32, bf16, fp16 or fp8, got " +
                                           std::string(toString(r.precision))};
    const auto tflops = device.tflops.find(r.precision);
    if (tflops == device.tflops.end() || !(tflops->second > 0))
        return InputError{"precision", device.id + " publishes no " +
                                           std::string(toString(r.precision)) + " TFLOPS"};
    if (r.mfu && !(*r.mfu > 0 && *r.mfu <= 1))
        return InputError{"mfu", "must be above 0 and at most 1, or auto"};
    // The limits a scenario has (validate.h, limits): below them times overflow to infinity
    // (fuzz_shard_request: an MFU of 2.6e-318 gave compute_s = inf).
    if (r.mfu && *r.mfu < limits::kMinMfu)
        return InputError{"mfu", "must be at least " + shortNumber(limits::kMinMfu)};
    if (r.interNodeGbPerS && !(*r.interNodeGbPerS > 0))
        return InputError{"inter_node_gb_per_s", "must be above 0"};
    if (r.interNodeGbPerS &&
        !(*r.interNodeGbPerS >= limits::kMinRate && *r.interNodeGbPerS <= limits::kMaxRate))
        return InputError{"inter_node_gb_per_s", "must be from " + shortNumber(limits::kMinRate) +
                                                     " to " + shortNumber(limits::kMaxRate)};
    Link link;
    return chooseLink(device, r.tp, r.interNodeGbPerS, link);
}

std::optional<ShardRequest> shardRequestFor(const Scenario &s, const ModelSpec &model)
{
    if (!model.hasArchitecture())
        return std::nullopt;
    ShardRequest r;
    r.shape = {std::int64_t{s.microbatchSize} * s.seqLen, model.hidden, model.ffnHidden};
    r.tp = s.tp;
    r.precision = isActivationFormat(s.precision) ? s.precision : Precision::bf16;
    r.mfu = s.mfu;
    r.interNodeGbPerS = s.interNodeGbPerS;
    return r;
}

ShardReport analyzeSharding(const ShardRequest &request, const DeviceSpec &device,
                            const ProgressFn &progress)
{
    ShardReport report;
    report.requested = request.shape;
    report.verify = request.verify;
    report.tp = request.tp;
    report.precision = request.precision;
    if (auto e = validateShardRequest(request, device)) {
        report.error = std::move(e);
        return report;
    }
    chooseLink(device, request.tp, request.interNodeGbPerS, report.link);
    const double tflops = device.tflops.at(request.precision);
    report.mfuForced = request.mfu.has_value();
    report.matmulEfficiency = request.mfu.value_or(device.matmulEfficiencyOrDefault());
    // Every strategy gives each device 1/T of both matmuls (Shoeybi et al. 2019, §3).
    const double computeS =
        computeSeconds(ffnFlops(request.shape) / request.tp, tflops, report.matmulEfficiency);

    for (auto [w1, w2] : kStrategies) {
        StrategyReport s;
        s.w1 = w1;
        s.w2 = w2;
        s.collectives = requiredCollectives(w1, w2, request.shape, request.tp, request.precision);
        s.counts = countCollectives(s.collectives);
        for (const auto &c : s.collectives) {
            s.payloadBytes += c.payloadBytes;
            s.wireBytesPerDevice += wireBytesPerDevice(c.kind, c.payloadBytes, request.tp);
            s.commS += collectiveSeconds(c.kind, c.payloadBytes, request.tp, report.link);
        }
        s.computeS = computeS;
        // No overlap of communication with compute: the next matmul waits for the data.
        s.totalS = s.computeS + s.commS;
        report.strategies.push_back(std::move(s));
    }
    for (std::size_t i = 1; i < report.strategies.size(); ++i) {
        const double total = report.strategies[i].totalS;
        if (total < report.strategies[static_cast<std::size_t>(report.best)].totalS)
            report.best = static_cast<int>(i);
        if (total > report.strategies[static_cast<std::size_t>(report.worst)].totalS)
            report.worst = static_cast<int>(i);
    }
    report.speedupBestOverWorst = report.strategies[static_cast<std::size_t>(report.worst)].totalS /
                                  report.strategies[static_cast<std::size_t>(report.best)].totalS;

    if (request.verify == Verify::off)
        return report;
    const FfnShape shape =
        request.verify == Verify::full ? request.shape : reducedShape(request.shape, request.tp);
    const double bytes = verifyBytes(shape, request.tp);
    const auto refuse = [&](const std::string &why) {
        const std::string message = "the check at h = " + std::to_string(shape.hidden) +
                                    ", f = " + std::to_string(shape.ffn) + ", " +
                                    std::to_string(shape.tokens) +
                                    (shape.tokens == 1 ? " token on " : " tokens on ") +
                                    std::to_string(request.tp) + " simulated devices " + why;
        if (request.verify == Verify::full)
            report.error = InputError{"verify", message};
        else
            report.checkNotRun = message;
    };
    if (!(bytes <= request.verifyMemoryBytes)) {
        refuse("would hold " + gigabytes(bytes) + " at once, more than the " +
               gigabytes(request.verifyMemoryBytes) + " it may use");
        return report;
    }
    // One token can still be too much for a reduced check (f/h beyond about 500 at h = 64,
    // or T beyond about 1,000); a full one is asked for knowing it is slow, and can be
    // cancelled.
    if (request.verify == Verify::small &&
        !(checkFlops(shape) <= kVerifyFlopsCap && bytes <= kVerifyBytesCap)) {
        refuse("would hold " + shortNumber(bytes / 1e6) + " MB and take " +
               shortNumber(checkFlops(shape) / 1e9) + " GFLOP, more than a reduced check may (" +
               shortNumber(kVerifyBytesCap / 1e6) + " MB, " + shortNumber(kVerifyFlopsCap / 1e9) +
               " GFLOP: it runs at every change)");
        return report;
    }
    Execution run;
    try {
        run = executeStrategies(shape, request.tp, request.seed, request.precision, progress);
    } catch (const std::bad_alloc &) {
        refuse("ran out of memory (it needs about " + gigabytes(bytes) + ")");
        return report;
    }
    report.executed = shape;
    report.cancelled = run.cancelled;
    for (std::size_t i = 0; i < run.strategies.size(); ++i) {
        report.strategies[i].maxAbsError = run.strategies[i].maxAbsError;
        report.strategies[i].maxRelError = run.strategies[i].maxRelError;
    }
    return report;
}

ShardReport analyzeScenarioSharding(const Scenario &scenario, const Presets &presets)
{
    const ModelSpec *model = resolveModel(scenario, presets);
    const DeviceSpec *device = resolveDevice(scenario, presets);
    const auto request = model ? shardRequestFor(scenario, *model) : std::nullopt;
    if (request && device)
        return analyzeSharding(*request, *device);
    ShardReport report;
    report.error =
        InputError{"model", "a model given only by its size has no feed-forward layer to split"};
    return report;
}

} // namespace core
