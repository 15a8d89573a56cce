#include "core/serving.h"

#include "core/activations.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace core {

namespace {

// Collects one decode step's operations by part; each multiply and memory-bound operation
// is timed on its own, as the per-operation model times a training pass.
struct DecodeBuilder
{
    const ServingInput &in;
    DecodeCost cost;

    // FLOPs at the multiplies' rate, or peak × a forced mfu.
    double computeSeconds(double flops) const
    {
        return flops / (in.rates.forcedMfu > 0 ? in.rates.peakFlops * in.rates.forcedMfu
                                               : in.rates.matmulFlops);
    }

    // b × k by k × n against n·k stored weights, the roofline of its FLOPs and its bytes
    // (Williams et al. 2009). A decode step's multiplies are a few rows deep: they run as
    // matrix-vector or narrow-tile kernels, so the training model's 256 × 128 tile and wave
    // quantization does not apply to them.
    void projection(double rows, double n, double k)
    {
        const double weights = n * k * in.weightBytes;
        const double activations = rows * (n + k) * in.activationBytes;
        const double flops = 2 * rows * n * k;
        cost.matmulS +=
            std::max(computeSeconds(flops), memorySeconds(in.rates, weights + activations));
        cost.flops += flops;
        cost.weightBytes += weights;
        cost.otherBytes += activations;
    }

    void memoryOp(double bytes)
    {
        cost.memoryOpsS += memorySeconds(in.rates, bytes);
        cost.otherBytes += bytes;
    }

    void allReduce(double values, int tp)
    {
        if (tp > 1 && in.tpLink.gbPerS > 0)
            cost.tpCommS +=
                collectiveSeconds(Collective::allReduce,
                                  static_cast<std::int64_t>(values * in.commBytes), tp, in.tpLink);
    }
};

} // namespace

DecodeCost decodeStageCost(const ServingInput &in, int layers, int moeLayers, bool firstStage,
                           bool lastStage, std::int64_t context, int slidingLayers)
{
    DecodeBuilder b{in, {}};
    const ModelSpec &m = *in.model;
    const double rows = static_cast<double>(in.microbatchSize); // one new token per sequence
    const double e = in.activationBytes;
    const double h = m.hidden;
    const double hd = m.headDim();
    const double qHeads = static_cast<double>(m.heads) / in.tp;
    const double kvHeads = static_cast<double>(kvHeadsPerDevice(m, in.tp));
    const double ffn = std::ceil(static_cast<double>(m.ffnHidden) / in.tp);
    const double c = static_cast<double>(context);

    DecodeBuilder layer{in, {}};
    // Shoeybi et al. 2019, §3: QKV and the first feed-forward matrix split by columns, the
    // output and second by rows, one all-reduce after each half.
    layer.memoryOp(2 * rows * h * e); // attention norm: read x, write its output
    layer.projection(rows, (qHeads + 2 * kvHeads) * hd, h);
    layer.memoryOp(2 * rows * (qHeads + kvHeads) * hd * e); // rotary on q and k
    // Multi-head latent attention caches one compressed latent and rotary key per token
    // (DeepSeek-V3 Technical Report, §2.1.1) on every device; others K and V per KV head.
    const double cachedPerToken =
        m.latentAttention() ? m.kvLoraRank + m.ropeHeadDim : 2 * kvHeads * hd;
    layer.memoryOp(rows * cachedPerToken * in.kvBytes); // append to the cache
    // Attention over the cache (Dao et al. 2023, FlashDecoding): q·Kᵀ and p·V for every query
    // head over `positions` of the cache; each KV head's cache is read once for the query
    // heads that share it (GQA, Ainslie et al. 2023).
    const auto attend = [&](double positions) {
        DecodeCost a;
        a.flops = 4 * rows * qHeads * hd * positions;
        a.kvBytes = rows * cachedPerToken * positions * in.kvBytes;
        const double rate = in.rates.forcedMfu > 0 ? in.rates.peakFlops * in.rates.forcedMfu
                                                   : in.rates.attentionFlops;
        a.attentionS = std::max(a.flops / rate, memorySeconds(in.rates, a.kvBytes));
        return a;
    };
    const DecodeCost whole = attend(c);
    layer.cost.attentionS += whole.attentionS;
    layer.cost.flops += whole.flops;
    layer.cost.kvBytes += whole.kvBytes;
    layer.projection(rows, h, qHeads * hd);
    layer.allReduce(rows * h, in.tp);
    layer.memoryOp(3 * rows * h * e); // residual add: read both, write the sum
    layer.memoryOp(2 * rows * h * e); // MLP norm
    DecodeBuilder moe = layer;        // the same attention, then experts instead of the dense MLP
    layer.projection(rows, (m.gatedMlp ? 2 : 1) * ffn, h);
    // SwiGLU reads gate and up and writes their product; GeLU reads and writes one.
    layer.memoryOp((m.gatedMlp ? 3 : 2) * rows * ffn * e);
    layer.projection(rows, h, ffn);
    layer.allReduce(rows * h, in.tp);
    layer.memoryOp(3 * rows * h * e);
    if (m.hasExperts() && moeLayers > 0) {
        // docs/experts.md, "Serving": the router, shared experts, and each token's top-k
        // experts. A step reads the experts its b tokens touch, each token k distinct ones:
        // with balanced routing experts × (1 − (1 − k/experts)^b) in expectation; it
        // multiplies b·k rows.
        const double fe = std::ceil(static_cast<double>(m.expertFfnHidden) / in.tp);
        const double up = (m.gatedMlp ? 2 : 1) * fe;
        moe.projection(rows, m.experts, h);
        if (m.sharedExperts > 0) {
            moe.projection(rows, m.sharedExperts * up, h);
            moe.projection(rows, h, m.sharedExperts * fe);
        }
        const double picks = rows * m.expertsPerToken;
        const double touched =
            m.experts *
            (1 - std::pow(1 - static_cast<double>(m.expertsPerToken) / m.experts, rows));
        const double perExpert = picks / touched;
        for (int i = 0; i < 2; ++i) {
            DecodeBuilder one{in, {}};
            if (i == 0)
                one.projection(perExpert, up, h);
            else
                one.projection(perExpert, h, fe);
            moe.cost.matmulS += touched * one.cost.matmulS;
            moe.cost.flops += touched * one.cost.flops;
            moe.cost.weightBytes += touched * one.cost.weightBytes;
            moe.cost.otherBytes += touched * one.cost.otherBytes;
        }
        moe.memoryOp((m.gatedMlp ? 3 : 2) * picks * fe * e);
        moe.allReduce(rows * h, in.tp);
        moe.memoryOp(3 * rows * h * e);
    }

    const auto addScaled = [](DecodeCost &to, const DecodeCost &from, double n) {
        to.matmulS += n * from.matmulS;
        to.attentionS += n * from.attentionS;
        to.memoryOpsS += n * from.memoryOpsS;
        to.tpCommS += n * from.tpCommS;
        to.flops += n * from.flops;
        to.weightBytes += n * from.weightBytes;
        to.kvBytes += n * from.kvBytes;
        to.otherBytes += n * from.otherBytes;
    };
    addScaled(b.cost, layer.cost, layers - moeLayers);
    if (moeLayers > 0)
        addScaled(b.cost, moe.cost, moeLayers);
    // A sliding-window layer attends to its window of the cache only (Jiang et al. 2023,
    // "Mistral 7B", §2).
    if (slidingLayers > 0 && m.slidingWindow > 0 && m.slidingWindow < c) {
        const DecodeCost window = attend(m.slidingWindow);
        b.cost.attentionS += slidingLayers * (window.attentionS - whole.attentionS);
        b.cost.flops += slidingLayers * (window.flops - whole.flops);
        b.cost.kvBytes += slidingLayers * (window.kvBytes - whole.kvBytes);
    }
    if (firstStage)
        b.memoryOp(2 * rows * h * e); // the embedding's rows for the new tokens
    if (lastStage) {
        b.memoryOp(2 * rows * h * e); // final norm
        // The logits of the new token only (Hugging Face generate's logits_to_keep = 1, vLLM's
        // logits indices), vocab-parallel over T, gathered for sampling.
        const double vocab = std::ceil(static_cast<double>(m.vocab) / in.tp);
        b.projection(rows, vocab, h);
        if (in.tp > 1 && in.tpLink.gbPerS > 0)
            b.cost.tpCommS += collectiveSeconds(
                Collective::allGather,
                static_cast<std::int64_t>(rows * vocab * in.tp * in.activationBytes), in.tp,
                in.tpLink);
    }
    DecodeCost &out = b.cost;
    out.totalS = out.matmulS + out.attentionS + out.memoryOpsS + out.tpCommS;
    if (in.rates.matmulFlops > 0)
        out.memoryBound = memorySeconds(in.rates, out.weightBytes + out.kvBytes) >
                          out.flops / in.rates.matmulFlops;
    return out;
}

DecodeStep decodeStep(const ServingInput &in, std::int64_t context)
{
    DecodeStep step;
    step.context = context;
    const int stages = static_cast<int>(in.stageLayers.size());
    double trip = 0;
    double busiest = -1;
    // A stage of the same layers as the one before, neither end, costs the same: the middle
    // stages are costed once.
    DecodeCost cost;
    std::tuple<int, int, int, bool, bool> costed{-1, 0, 0, false, false};
    for (int i = 0; i < stages; ++i) {
        const auto at = static_cast<std::size_t>(i);
        const std::tuple key{in.stageLayers[at],
                             at < in.stageMoeLayers.size() ? in.stageMoeLayers[at] : 0,
                             at < in.stageSlidingLayers.size() ? in.stageSlidingLayers[at] : 0,
                             i == 0, i + 1 == stages};
        if (key != costed) {
            costed = key;
            cost = decodeStageCost(in, std::get<0>(key), std::get<1>(key), std::get<3>(key),
                                   std::get<4>(key), context, std::get<2>(key));
        }
        trip += cost.totalS;
        if (cost.totalS > busiest) {
            busiest = cost.totalS;
            step.busiest = cost;
            step.busiestStage = i;
        }
    }
    // One micro-batch's new hidden state to the next stage, whole on each tensor-parallel
    // rank (every rank holds it after the all-reduce).
    if (stages > 1 && in.ppLinks.size() == static_cast<std::size_t>(stages)) {
        const double bytes =
            static_cast<double>(in.microbatchSize) * in.model->hidden * in.activationBytes;
        for (int b = 0; b + 1 < stages; ++b) {
            const Link &link = in.ppLinks[static_cast<std::size_t>(b)];
            trip += messageLatencySeconds(link) + bytes / (link.gbPerS * kGB * link.efficiency);
        }
    }
    // A cyclic pipeline: micro-batch j's next token starts when its last one has left the
    // last stage, and every stage serves all m micro-batches once per token, so a round takes
    // the longer of one token's trip and m turns of the busiest stage.
    const double turns = static_cast<double>(in.microbatches) * busiest;
    step.stageBound = turns > trip;
    step.tokenS = std::max(trip, turns);
    return step;
}

ServingReport serving(const ServingInput &in)
{
    ServingReport r;
    r.batch = in.microbatches * in.microbatchSize;
    r.promptTokens = in.promptTokens;
    r.outputTokens = in.outputTokens;
    r.devicesPerReplica = in.tp * static_cast<int>(in.stageLayers.size());
    r.prefillS = in.prefillS;
    r.pipelineIdle = in.microbatches < static_cast<std::int64_t>(in.stageLayers.size());
    // The first token comes out of the prefill; each later one is a decode step whose
    // context holds the prompt and the tokens so far.
    const std::int64_t steps = std::max<std::int64_t>(in.outputTokens - 1, 0);
    const std::int64_t firstContext = in.promptTokens + 1;
    const std::int64_t lastContext = in.promptTokens + std::max<std::int64_t>(steps, 1);
    r.first = decodeStep(in, firstContext);
    r.last = decodeStep(in, lastContext);
    // Each step is the largest of sums of terms linear in the context: a convex function of
    // it. The trapezoid over eight spans is exact where one term rules throughout (the mean
    // of a linear function over evenly spaced contexts is its value halfway) and within a
    // fraction of a percent elsewhere.
    constexpr std::int64_t kSpans = 8;
    if (lastContext == firstContext) {
        r.decodeMeanS = r.first.tokenS;
    } else {
        double sum = 0;
        std::int64_t previousContext = firstContext;
        double previous = r.first.tokenS;
        for (std::int64_t i = 1; i <= kSpans; ++i) {
            const std::int64_t context = firstContext + (lastContext - firstContext) * i / kSpans;
            if (context == previousContext)
                continue;
            const double at = i == kSpans ? r.last.tokenS : decodeStep(in, context).tokenS;
            sum += (previous + at) / 2 * static_cast<double>(context - previousContext);
            previousContext = context;
            previous = at;
        }
        r.decodeMeanS = sum / static_cast<double>(lastContext - firstContext);
    }
    r.latencyS = r.prefillS + static_cast<double>(steps) * r.decodeMeanS;
    if (r.decodeMeanS > 0)
        r.decodeTokensPerS = static_cast<double>(r.batch) / r.decodeMeanS;
    if (in.outputTokens > 0 && r.latencyS > 0) {
        const double tokens = static_cast<double>(r.batch) * static_cast<double>(in.outputTokens);
        r.tokensPerS = tokens / r.latencyS;
        r.tokensPerSPerDevice = r.tokensPerS / r.devicesPerReplica;
        if (in.tdpW > 0)
            r.joulesPerMillionTokens = in.tdpW * r.devicesPerReplica * r.latencyS / tokens * 1e6;
    }
    return r;
}

} // namespace core
