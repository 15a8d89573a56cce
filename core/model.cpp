#include "core/model.h"

#include "core/units.h"

namespace core {

ParamCounts countParams(const ModelSpec &m, int tp)
{
    ParamCounts c;
    if (!m.hasArchitecture()) {
        c.perLayer = 0;
        c.total = ceilDiv(m.params, tp);
        return c;
    }
    const std::int64_t h = m.hidden;
    const std::int64_t hd = m.headDim();
    const std::int64_t t = tp;
    const std::int64_t qHeads = m.heads / tp;
    // Megatron-LM shards K/V by head; with more ranks than KV heads each rank
    // keeps one (replicated) KV head (docs/DESIGN.md §3.7).
    const std::int64_t kvHeads = m.kvHeads >= tp ? ceilDiv(m.kvHeads, t) : 1;
    const std::int64_t ffn = ceilDiv(m.ffnHidden, t);
    const std::int64_t normParams = m.bias ? 2 * h : h; // LayerNorm has a bias, RMSNorm does not

    // Attention: Q and O by query heads, K and V by KV heads (Megatron-LM column/row split).
    std::int64_t attention = h * qHeads * hd + 2 * h * kvHeads * hd + qHeads * hd * h;
    // MLP: SwiGLU has gate, up and down projections; GPT has up and down.
    std::int64_t mlp = (m.gatedMlp ? 3 : 2) * h * ffn;
    if (m.bias) {
        attention += (qHeads + 2 * kvHeads) * hd + h; // QKV bias split, output bias replicated
        mlp += (m.gatedMlp ? 2 : 1) * ffn + h;        // column biases split, row bias replicated
    }
    c.perLayer = attention + mlp + 2 * normParams;

    // Vocabulary-parallel embedding and LM head (Megatron-LM VocabParallelEmbedding).
    const std::int64_t vocabShard = ceilDiv(m.vocab, t) * h;
    c.embedding = vocabShard + static_cast<std::int64_t>(m.learnedPositions) * h;
    c.finalNorm = normParams;
    c.lmHead = m.tiedEmbeddings ? 0 : vocabShard;
    c.total = c.embedding + m.layers * c.perLayer + c.finalNorm + c.lmHead;
    return c;
}

std::int64_t exactParams(const ModelSpec &model)
{
    return countParams(model, 1).total;
}

std::int64_t nominalParams(const ModelSpec &model)
{
    return model.nominalParams > 0 ? model.nominalParams : exactParams(model);
}

} // namespace core
