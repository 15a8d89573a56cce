#include "core/expert_routing.h"

#include "core/random_matrix.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>

namespace core {

namespace {

// "4e+08", "1.02e+03": three digits, as a person reads a limit.
std::string expertNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

float silu(float x)
{
    // SiLU, or Swish with beta = 1 (Ramachandran et al. 2017, §4): x · sigmoid(x).
    return x / (1.0f + std::exp(-x));
}

struct ExpertWeights
{
    Eigen::MatrixXf w1, w3, w2; // gate [h, f], up [h, f], down [f, h]
};

struct MoeLayer
{
    Eigen::MatrixXf x;      // [tokens, hidden]
    Eigen::MatrixXf router; // [hidden, experts]
    std::vector<ExpertWeights> experts;
};

MoeLayer makeMoeLayer(const ExpertRoutingInputs &in)
{
    std::mt19937_64 rng(in.seed);
    MoeLayer layer;
    const auto h = static_cast<Eigen::Index>(in.hidden);
    const auto f = static_cast<Eigen::Index>(in.expertFfn);
    layer.x = uniformRandomMatrix(static_cast<Eigen::Index>(in.tokens), h, 1.0f, rng);
    // X is uniform on (−1, 1), variance 1/3; W_r uniform on ±3/√h, variance 3/h: each logit
    // has variance h · 1/3 · 3/h = 1, so a skew of a few units dominates it.
    layer.router = uniformRandomMatrix(h, in.experts, 3.0f / std::sqrt(float(h)), rng);
    for (int e = 0; e < in.experts; ++e) {
        ExpertWeights w;
        w.w1 = uniformRandomMatrix(h, f, 1.0f / std::sqrt(float(h)), rng);
        w.w3 = uniformRandomMatrix(h, f, 1.0f / std::sqrt(float(h)), rng);
        w.w2 = uniformRandomMatrix(f, h, 1.0f / std::sqrt(float(f)), rng);
        layer.experts.push_back(std::move(w));
    }
    return layer;
}

// A token's router logits, in double, one multiply-add at a time: the same numbers whichever
// rows the token sits among, so both runs route it alike.
std::vector<double> tokenLogits(const Eigen::MatrixXf &x, Eigen::Index row,
                                const Eigen::MatrixXf &router)
{
    std::vector<double> logits(static_cast<std::size_t>(router.cols()), 0.0);
    for (Eigen::Index e = 0; e < router.cols(); ++e) {
        double sum = 0;
        for (Eigen::Index i = 0; i < x.cols(); ++i)
            sum += double(x(row, i)) * double(router(i, e));
        logits[static_cast<std::size_t>(e)] = sum;
    }
    return logits;
}

// SwiGLU(A) = (SiLU(A·W1) ⊙ A·W3)·W2 (Shazeer 2020, "GLU Variants Improve Transformer", §2),
// Mixtral's expert (Jiang et al. 2024, §2.1). A is one row or a batch of rows.
Eigen::MatrixXf swiglu(const Eigen::MatrixXf &a, const ExpertWeights &w)
{
    const Eigen::MatrixXf gate = (a * w.w1).unaryExpr(&silu);
    const Eigen::MatrixXf up = a * w.w3;
    return gate.cwiseProduct(up) * w.w2;
}

// The (token, expert) copies one device sends another, in the order it routed them.
struct ExpertMessage
{
    std::vector<Eigen::Index> token; // the sender's local row
    std::vector<int> slot;           // which of the token's k choices
    std::vector<int> expert;
    Eigen::MatrixXf rows; // [copies, hidden]: the token's input, or on the way back its output
};

} // namespace

double routerBias(int expert, int experts, double skew)
{
    // A linear ramp: the largest for expert 0, none for the last (docs/sharding.md).
    if (experts <= 1)
        return 0;
    return skew * (1.0 - double(expert) / double(experts - 1));
}

Route routeToken(const std::vector<double> &logits, int topK, double skew)
{
    const int n = static_cast<int>(logits.size());
    std::vector<double> p(logits.size());
    double peak = -INFINITY;
    for (int e = 0; e < n; ++e) {
        p[std::size_t(e)] = logits[std::size_t(e)] + routerBias(e, n, skew);
        peak = std::max(peak, p[std::size_t(e)]);
    }
    // Softmax over every expert (max subtracted, so that no exp overflows).
    double sum = 0;
    for (double &v : p)
        sum += (v = std::exp(v - peak));
    for (double &v : p)
        v /= sum;
    std::vector<int> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    const int k = std::clamp(topK, 0, n);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return p[std::size_t(a)] > p[std::size_t(b)] ||
               (p[std::size_t(a)] == p[std::size_t(b)] && a < b);
    });
    // Renormalised over the k chosen: Mixtral's Softmax(TopK(x·W_g)) (Jiang et al. 2024,
    // §2.1) is the same thing, and Qwen-MoE's norm_topk_prob.
    Route route;
    double chosen = 0;
    for (int j = 0; j < k; ++j)
        chosen += p[std::size_t(order[std::size_t(j)])];
    for (int j = 0; j < k; ++j) {
        const int e = order[std::size_t(j)];
        route.experts.push_back(e);
        route.weights.push_back(static_cast<float>(p[std::size_t(e)] / chosen));
    }
    return route;
}

double expertRoutingFlops(const ExpertRoutingInputs &in)
{
    const double t = double(in.tokens), h = double(in.hidden), f = double(in.expertFfn);
    // Two runs; each copy through three matmuls of h·f multiply-adds (2 FLOPs each, Kaplan et
    // al. 2020, §2.1), and each token's logits, h·experts multiply-adds.
    return 2 * (t * in.topK * 3 * 2 * h * f + t * 2 * h * in.experts);
}

double expertRoutingBytes(const ExpertRoutingInputs &in)
{
    const double t = double(in.tokens), h = double(in.hidden), f = double(in.expertFfn),
                 copies = t * in.topK;
    // X, reference, output and the devices' rows of X (t·h each); W_r; the experts' three
    // matrices; dispatched copies, gathered per expert, their outputs and the replies
    // (copies·h each); one expert's two hidden activations at most (copies·f each).
    return sizeof(float) *
           (4 * t * h + h * in.experts + 3 * h * f * in.experts + 4 * copies * h + 2 * copies * f);
}

double balancedAllToAllBytes(const ExpertRoutingInputs &in)
{
    if (in.devices <= 0)
        return 0;
    const double e = in.devices;
    // Each of a device's tokens/E · k copies goes to a uniformly random expert; (E−1)/E of
    // them live on another device (GShard, Lepikhin et al. 2021, Algorithm 2: the AllToAll of the
    // dispatch, and of the combine, the same size back).
    return double(in.tokens) / e * in.topK * double(in.hidden) * in.bytesPerValue * (e - 1) / e;
}

std::optional<InputError> validateExpertRouting(const ExpertRoutingInputs &in)
{
    const std::pair<const char *, std::int64_t> sizes[] = {
        {"tokens", in.tokens},   {"hidden", in.hidden}, {"expert_ffn", in.expertFfn},
        {"experts", in.experts}, {"top_k", in.topK},    {"devices", in.devices}};
    for (auto [key, value] : sizes)
        if (value <= 0)
            return InputError{key, "must be at least 1, got " + std::to_string(value)};
    const std::pair<const char *, std::int64_t> caps[][2] = {
        {{"tokens", in.tokens}, {"", kExpertMaxTokens}},
        {{"hidden", in.hidden}, {"", kExpertMaxHidden}},
        {{"expert_ffn", in.expertFfn}, {"", kExpertMaxFfn}},
        {{"experts", in.experts}, {"", kExpertMaxExperts}}};
    for (const auto &cap : caps)
        if (cap[0].second > cap[1].second)
            return InputError{cap[0].first, "must be at most " + std::to_string(cap[1].second) +
                                                " in the demonstrator, got " +
                                                std::to_string(cap[0].second)};
    if (in.topK > in.experts)
        return InputError{"top_k", "must be at most the " + std::to_string(in.experts) +
                                       " experts, got " + std::to_string(in.topK)};
    if (in.experts % in.devices != 0)
        return InputError{"devices", std::to_string(in.devices) + " does not divide the " +
                                         std::to_string(in.experts) + " experts"};
    if (in.tokens % in.devices != 0)
        return InputError{"tokens", std::to_string(in.tokens) + " do not split evenly over " +
                                        std::to_string(in.devices) + " devices"};
    if (!(in.skew >= 0 && in.skew <= kExpertMaxSkew))
        return InputError{"skew", "must be from 0 to " + expertNumber(kExpertMaxSkew)};
    if (in.bytesPerValue < 1 || in.bytesPerValue > 8)
        return InputError{"bytes_per_value",
                          "must be from 1 to 8, got " + std::to_string(in.bytesPerValue)};
    ExpertRoutingInputs none = in, one = in;
    none.tokens = 0;
    one.tokens = 1;
    if (expertRoutingBytes(none) > kExpertBytesCap)
        return InputError{"experts", "the weights of " + std::to_string(in.experts) +
                                         " experts would take " +
                                         expertNumber(expertRoutingBytes(none) / 1e6) +
                                         " MB, more than the demonstrator's " +
                                         expertNumber(kExpertBytesCap / 1e6) + " MB"};
    // Both are affine in the tokens: the most tokens that fit.
    const double fits =
        std::floor(std::min(kExpertFlopsCap / expertRoutingFlops(one),
                            (kExpertBytesCap - expertRoutingBytes(none)) /
                                (expertRoutingBytes(one) - expertRoutingBytes(none))));
    if (double(in.tokens) > fits)
        return InputError{
            "tokens", "must be at most " + expertNumber(fits) + " at top-k " +
                          std::to_string(in.topK) + ", hidden " + std::to_string(in.hidden) +
                          " and expert ffn " + std::to_string(in.expertFfn) +
                          " (the check runs at every change), got " + std::to_string(in.tokens)};
    return std::nullopt;
}

ExpertRoutingResult runExpertParallel(const ExpertRoutingInputs &in)
{
    ExpertRoutingResult out;
    out.inputs = in;
    if (auto e = validateExpertRouting(in)) {
        out.error = std::move(e);
        return out;
    }
    const MoeLayer layer = makeMoeLayer(in);
    const Eigen::Index tokens = layer.x.rows(), h = layer.x.cols();

    // (a) The reference: one device, token by token, each chosen expert on the token's row.
    Eigen::MatrixXf reference = Eigen::MatrixXf::Zero(tokens, h);
    for (Eigen::Index t = 0; t < tokens; ++t) {
        const Route route = routeToken(tokenLogits(layer.x, t, layer.router), in.topK, in.skew);
        for (std::size_t j = 0; j < route.experts.size(); ++j)
            reference.row(t) +=
                route.weights[j] *
                swiglu(layer.x.row(t), layer.experts[std::size_t(route.experts[j])]).row(0);
    }

    // (b) Expert parallel on E simulated devices. Device d holds tokens [d·t/E, (d+1)·t/E),
    // as a data-parallel rank would, and owns experts [d·n/E, (d+1)·n/E).
    const int devices = in.devices;
    const auto nDevices = std::size_t(devices);
    const Eigen::Index perDevice = tokens / devices;
    const int expertsPerDevice = in.experts / devices;
    const auto owner = [&](int expert) { return expert / expertsPerDevice; };
    const std::int64_t rowBytes = in.hidden * in.bytesPerValue;
    out.devices.resize(nDevices);

    std::vector<Eigen::MatrixXf> local(nDevices);             // each device's tokens
    std::vector<std::vector<Route>> routes(nDevices);         // and their routes
    std::vector<std::vector<ExpertMessage>> outbox(nDevices); // [from][to]
    for (std::size_t d = 0; d < nDevices; ++d) {
        ExpertDevice &device = out.devices[d];
        device.firstExpert = int(d) * expertsPerDevice;
        device.receivedPerExpert.assign(std::size_t(expertsPerDevice), 0);
        device.receivedFrom.assign(nDevices, 0);
        local[d] = layer.x.middleRows(Eigen::Index(d) * perDevice, perDevice);
        outbox[d].resize(nDevices);
        for (Eigen::Index t = 0; t < perDevice; ++t)
            routes[d].push_back(
                routeToken(tokenLogits(local[d], t, layer.router), in.topK, in.skew));
        // Dispatch, one copy per (token, expert) as the all-to-all token dispatcher of
        // Megatron Core sends it; a copy for the device's own expert stays local.
        for (Eigen::Index t = 0; t < perDevice; ++t) {
            const Route &route = routes[d][std::size_t(t)];
            for (std::size_t j = 0; j < route.experts.size(); ++j) {
                ExpertMessage &m = outbox[d][std::size_t(owner(route.experts[j]))];
                m.token.push_back(t);
                m.slot.push_back(int(j));
                m.expert.push_back(route.experts[j]);
            }
        }
        for (std::size_t to = 0; to < nDevices; ++to) {
            ExpertMessage &m = outbox[d][to];
            m.rows.resize(Eigen::Index(m.token.size()), h);
            for (std::size_t i = 0; i < m.token.size(); ++i)
                m.rows.row(Eigen::Index(i)) = local[d].row(m.token[i]);
            if (to != d)
                device.dispatchBytes += std::int64_t(m.token.size()) * rowBytes;
        }
    }
    // The all-to-all: what d sent `to` is now `to`'s inbox from d.
    std::vector<std::vector<ExpertMessage>> inbox(nDevices, std::vector<ExpertMessage>(nDevices));
    for (std::size_t d = 0; d < nDevices; ++d)
        for (std::size_t to = 0; to < nDevices; ++to)
            inbox[to][d] = std::move(outbox[d][to]);

    // Each device runs each of its experts once, on every copy it received for it, and
    // writes the outputs over the inputs: its reply to each sender, in the sender's order.
    for (std::size_t d = 0; d < nDevices; ++d) {
        ExpertDevice &device = out.devices[d];
        for (std::size_t from = 0; from < nDevices; ++from)
            device.receivedFrom[from] = std::int64_t(inbox[d][from].token.size());
        for (int k = 0; k < expertsPerDevice; ++k) {
            const int expert = device.firstExpert + k;
            std::vector<std::pair<std::size_t, Eigen::Index>> where; // (sender, row)
            for (std::size_t from = 0; from < nDevices; ++from)
                for (std::size_t i = 0; i < inbox[d][from].expert.size(); ++i)
                    if (inbox[d][from].expert[i] == expert)
                        where.emplace_back(from, Eigen::Index(i));
            device.receivedPerExpert[std::size_t(k)] = std::int64_t(where.size());
            device.load += std::int64_t(where.size());
            if (where.empty())
                continue;
            Eigen::MatrixXf batch(Eigen::Index(where.size()), h);
            for (std::size_t i = 0; i < where.size(); ++i)
                batch.row(Eigen::Index(i)) = inbox[d][where[i].first].rows.row(where[i].second);
            const Eigen::MatrixXf result = swiglu(batch, layer.experts[std::size_t(expert)]);
            for (std::size_t i = 0; i < where.size(); ++i)
                inbox[d][where[i].first].rows.row(where[i].second) = result.row(Eigen::Index(i));
        }
        for (std::size_t from = 0; from < nDevices; ++from)
            if (from != d)
                device.combineBytes += device.receivedFrom[from] * rowBytes;
    }

    // Combine: the replies travel back, and each token's home weighs and sums them. The
    // gate weights never left it.
    double maxAbs = 0;
    for (std::size_t d = 0; d < nDevices; ++d) {
        Eigen::MatrixXf y = Eigen::MatrixXf::Zero(perDevice, h);
        for (std::size_t from = 0; from < nDevices; ++from) {
            const ExpertMessage &reply = inbox[from][d];
            for (std::size_t i = 0; i < reply.token.size(); ++i) {
                const Eigen::Index t = reply.token[i];
                y.row(t) += routes[d][std::size_t(t)].weights[std::size_t(reply.slot[i])] *
                            reply.rows.row(Eigen::Index(i));
            }
        }
        const auto expected = reference.middleRows(Eigen::Index(d) * perDevice, perDevice);
        maxAbs = std::max(maxAbs, double((y - expected).cwiseAbs().maxCoeff()));
    }
    const double referenceMax = reference.cwiseAbs().maxCoeff();
    out.maxAbsError = maxAbs;
    out.maxRelError = referenceMax > 0 ? maxAbs / referenceMax : maxAbs;
    out.passed = out.maxRelError <= kExpertTolerance;

    out.meanLoad = double(in.tokens) * in.topK / devices;
    std::int64_t maxLoad = 0;
    for (const ExpertDevice &device : out.devices)
        maxLoad = std::max(maxLoad, device.load);
    out.imbalance = double(maxLoad) / out.meanLoad;
    out.balancedBytesPerDevice = balancedAllToAllBytes(in);
    return out;
}

} // namespace core
