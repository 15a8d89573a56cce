#include "core/model.h"

#include "core/units.h"

#include <algorithm>

namespace core {

namespace {

// Attention's parameters on one device of a tensor-parallel group of `tp`.
std::int64_t attentionParams(const ModelSpec &m, int tp)
{
    const std::int64_t h = m.hidden;
    const std::int64_t t = tp;
    const std::int64_t qHeads = m.heads / tp;
    if (m.latentAttention()) {
        // DeepSeek-V3 (DeepSeek-AI 2024, §2.1.1, eqs. 1-11) as Megatron-core builds MLA
        // (theoretical_memory_usage.py): the down projections and their norms are replicated,
        // the up projections and the output projection split by heads.
        const std::int64_t qk = m.headDim(); // nope + rope
        const std::int64_t v = m.valueHeadDim();
        const std::int64_t rmsNorm = 1;
        const std::int64_t q = m.qLoraRank > 0 ? h * m.qLoraRank + rmsNorm * m.qLoraRank +
                                                     std::int64_t{m.qLoraRank} * qHeads * qk
                                               : h * qHeads * qk;
        const std::int64_t kvDown = h * (m.kvLoraRank + m.ropeHeadDim) + m.kvLoraRank;
        const std::int64_t kvUp = std::int64_t{m.kvLoraRank} * qHeads * (qk - m.ropeHeadDim + v);
        return q + kvDown + kvUp + qHeads * v * h;
    }
    const std::int64_t hd = m.headDim();
    // Megatron-LM shards K/V by head; with more ranks than KV heads each rank
    // keeps one (replicated) KV head (docs/DESIGN.md §3.7).
    const std::int64_t kvHeads = m.kvHeads >= tp ? ceilDiv(m.kvHeads, t) : 1;
    // Q and O by query heads, K and V by KV heads (Megatron-LM column/row split).
    std::int64_t attention = h * qHeads * hd + 2 * h * kvHeads * hd + qHeads * hd * h;
    if (m.bias || m.attentionBias)
        attention += (qHeads + 2 * kvHeads) * hd + h; // QKV bias split, output bias replicated
    else if (m.qkvBias)
        attention += (qHeads + 2 * kvHeads) * hd; // Megatron-LM --add-qkv-bias: QKV's alone
    if (m.qkNorm)
        attention += 2 * hd; // Qwen3: one RMSNorm weight for queries, one for keys
    if (m.attentionSinks)
        attention += qHeads; // gpt-oss: one sink logit per head
    return attention;
}

// One feed-forward block of width `ffn` split over `tp`: SwiGLU has gate, up and down
// projections, GPT up and down.
std::int64_t mlpParams(const ModelSpec &m, std::int64_t ffn, int tp, bool bias)
{
    const std::int64_t h = m.hidden;
    const std::int64_t f = ceilDiv(ffn, std::int64_t{tp});
    std::int64_t mlp = (m.gatedMlp ? 3 : 2) * h * f;
    if (bias)
        mlp += (m.gatedMlp ? 2 : 1) * f + h; // column biases split, row bias replicated
    return mlp;
}

} // namespace

bool isMoeLayer(const ModelSpec &m, int index)
{
    return m.hasExperts() && index >= m.denseLayers &&
           (index + 1) % std::max(1, m.moeLayerPeriod) == 0;
}

int moeLayersIn(const ModelSpec &m, int first, int count)
{
    if (!m.hasExperts() || count <= 0)
        return 0;
    // Layers i in [max(first, dense), first + count) with (i + 1) % p == 0: multiples of p
    // in [lo + 1, hi].
    const int p = std::max(1, m.moeLayerPeriod);
    const int lo = std::max(first, m.denseLayers);
    const int hi = first + count;
    return hi <= lo ? 0 : hi / p - lo / p;
}

bool isSlidingLayer(const ModelSpec &m, int index)
{
    return m.slidingWindow > 0 &&
           (m.fullAttentionPeriod <= 0 || (index + 1) % m.fullAttentionPeriod != 0);
}

int slidingLayersIn(const ModelSpec &m, int first, int count)
{
    if (m.slidingWindow <= 0 || count <= 0)
        return 0;
    if (m.fullAttentionPeriod <= 0)
        return count;
    // All but the layers i with (i + 1) % p == 0: the multiples of p in [first + 1, first +
    // count].
    const int p = m.fullAttentionPeriod;
    return count - ((first + count) / p - first / p);
}

int parameterTensors(const ModelSpec &m, int first, int count, bool embedding, bool head, int ep)
{
    if (!m.hasArchitecture() || count < 0)
        return 1;
    // Attention: QKV and output weights, the norm before it (and the norm before the MLP).
    int attention = 2 + 2;
    if (m.bias)
        attention += 2 + 2; // the projections' and the norms' biases
    else if (m.attentionBias)
        attention += 2;
    else if (m.qkvBias)
        attention += 1;
    if (m.qkNorm)
        attention += 2;
    const int denseMlp = 2 + (m.bias ? 2 : 0);
    const int moe = moeLayersIn(m, first, count);
    const int localExperts = m.hasExperts() ? std::max(1, m.experts / std::max(1, ep)) : 0;
    const int moeMlp = 1 + (m.routerBias ? 1 : 0) + 2 * localExperts * (m.expertBias ? 2 : 1) +
                       2 * m.sharedExperts;
    const long long total = static_cast<long long>(count) * attention +
                            static_cast<long long>(count - moe) * denseMlp +
                            static_cast<long long>(moe) * moeMlp +
                            (embedding ? 1 + (m.learnedPositions > 0 ? 1 : 0) : 0) +
                            (head ? (m.bias ? 2 : 1) + (m.tiedEmbeddings ? 0 : 1) : 0);
    return static_cast<int>(std::clamp<long long>(total, 1, 1'000'000));
}

ParamCounts countParams(const ModelSpec &m, int tp, ExpertSplit split)
{
    ParamCounts c;
    if (!m.hasArchitecture()) {
        c.perLayer = 0;
        c.total = ceilDiv(m.params, tp);
        return c;
    }
    const std::int64_t h = m.hidden;
    const std::int64_t normParams = m.bias ? 2 * h : h; // LayerNorm has a bias, RMSNorm does not
    const std::int64_t attention = attentionParams(m, tp);
    c.perLayer = attention + mlpParams(m, m.ffnHidden, tp, m.bias) + 2 * normParams;
    if (m.hasExperts()) {
        // Megatron-core: the router is replicated, shared experts split like a dense MLP, and
        // routed experts spread over E devices and split over the expert-tensor group.
        const std::int64_t router = h * m.experts + (m.routerBias ? m.experts : 0);
        const std::int64_t shared =
            m.sharedExperts * mlpParams(m, m.expertFfnHidden, tp, m.expertBias);
        c.perMoeLayerExperts = ceilDiv(std::int64_t{m.experts}, std::int64_t{split.ep}) *
                               mlpParams(m, m.expertFfnHidden, split.tp, m.expertBias);
        c.perMoeLayer = attention + 2 * normParams + router + shared + c.perMoeLayerExperts;
    }
    const int moe = moeLayersIn(m, 0, m.layers);

    // Vocabulary-parallel embedding and LM head (Megatron-LM VocabParallelEmbedding).
    const std::int64_t vocabShard = ceilDiv(m.vocab, tp) * h;
    c.embedding = vocabShard + static_cast<std::int64_t>(m.learnedPositions) * h;
    c.finalNorm = normParams;
    c.lmHead = m.tiedEmbeddings ? 0 : vocabShard;
    // Megatron-core's MultiTokenPredictionLayer: enorm, hnorm and a final norm beside its
    // layer, and eh_proj, a column-parallel 2h-to-h projection without bias.
    c.perMtpExtra = 3 * normParams + ceilDiv(2 * h * h, tp);
    c.total =
        c.embedding + (m.layers - moe) * c.perLayer + moe * c.perMoeLayer + c.finalNorm + c.lmHead;
    return c;
}

namespace {

// activeLayerParams from the model's own counts (countParams(m, 1)), which activeParams
// needs as well.
std::int64_t activeLayerParamsOf(const ModelSpec &m, const ParamCounts &all)
{
    const int moe = moeLayersIn(m, 0, m.layers);
    // Top-k of the routed experts instead of all of them (Megatron-LM
    // theoretical_memory_usage.py, active_routed_expert_params).
    const std::int64_t activeMoe =
        m.hasExperts()
            ? all.perMoeLayer - all.perMoeLayerExperts +
                  std::int64_t{m.expertsPerToken} * mlpParams(m, m.expertFfnHidden, 1, m.expertBias)
            : 0;
    return (m.layers - moe) * all.perLayer + moe * activeMoe;
}

} // namespace

std::int64_t activeLayerParams(const ModelSpec &m)
{
    if (!m.hasArchitecture())
        return m.params;
    return activeLayerParamsOf(m, countParams(m, 1));
}

std::int64_t activeParams(const ModelSpec &m)
{
    if (!m.hasArchitecture())
        return m.params;
    const ParamCounts all = countParams(m, 1);
    // The LM head multiplies every token's hidden state; tied, it is the embedding matrix.
    const std::int64_t head = std::int64_t{m.vocab} * m.hidden;
    return activeLayerParamsOf(m, all) + all.finalNorm + head;
}

std::int64_t exactParams(const ModelSpec &model)
{
    return countParams(model, 1).total;
}

std::int64_t nominalParams(const ModelSpec &model)
{
    return model.nominalParams > 0 ? model.nominalParams : exactParams(model);
}

bool mtpLayerIsMoe(const ModelSpec &model)
{
    return model.hasArchitecture() && isMoeLayer(model, model.layers - 1);
}

} // namespace core
