#pragma once

#include <cstdint>
#include <string>

namespace core {

// A transformer's architecture, or only its size. `layers == 0` marks a
// size-only model, whose `params` is given rather than derived.
struct ModelSpec
{
    std::string id;
    std::string name;
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kvHeads = 0; // grouped-query attention; equal to heads for multi-head attention
    int ffnHidden = 0;
    int vocab = 0;
    bool gatedMlp = false;       // SwiGLU: three FFN matrices instead of two
    bool tiedEmbeddings = false; // the LM head reuses the input embedding
    bool dropout = false;
    bool bias = false;        // biases on linear layers and LayerNorm (GPT-3), none in Llama
    int learnedPositions = 0; // learned absolute position embeddings; 0 for rotary
    int contextWindow = 0;    // the longest sequence the model takes, tokens; 0: unstated
    // Attention beyond hidden / heads (docs/experts.md, "Describing a model").
    int headDimOverride = 0;     // head_dim: each head's query/key width when not hidden/heads
    bool qkNorm = false;         // an RMSNorm over each head's queries and keys (Qwen3)
    bool attentionBias = false;  // biases on the QKV and output projections only (gpt-oss)
    bool qkvBias = false;        // biases on the Q, K and V projections only (Qwen2)
    bool attentionSinks = false; // a learned logit per head (gpt-oss)
    // Sliding-window attention (Mistral, Gemma 2 and 3, gpt-oss): a query attends to itself
    // and the slidingWindow - 1 tokens before it. 0: every layer attends to the whole context.
    int slidingWindow = 0;
    // With a window, layer i (from 1) attends to the whole context when i % period == 0 (gpt-oss
    // and Gemma 2: 2, Gemma 3: 6); 0: every layer uses the window (Mistral).
    int fullAttentionPeriod = 0;
    // Multi-head latent attention (DeepSeek-V2/V3): keys and values come from one compressed
    // latent of kv_lora_rank values plus a shared rotary key of rope_head_dim; head_dim is
    // then the query/key width without the rotary part.
    int kvLoraRank = 0; // 0: ordinary (grouped-query) attention
    int qLoraRank = 0;  // 0: queries projected straight from the hidden state
    int ropeHeadDim = 0;
    int vHeadDim = 0; // value width per head; 0: head_dim
    // Mixture of experts (docs/experts.md). experts == 0: every layer has the dense MLP.
    int experts = 0;         // routed experts in each MoE layer
    int expertsPerToken = 0; // top-k
    int sharedExperts = 0;   // experts every token goes through, each expert_ffn_hidden wide
    int expertFfnHidden = 0; // each expert's feed-forward width
    int denseLayers = 0;     // the first layers keep the dense MLP (DeepSeek first_k_dense)
    int moeLayerPeriod = 1;  // after those, layer i (from 1) is MoE when i % period == 0
    bool routerBias = false; // a bias on the router's logits
    // Group-limited routing (DeepSeek-V2/V3, docs/experts.md): the experts fall into
    // routerGroups equal groups in order, and a token's top-k come from at most
    // routerGroupLimit of them (n_group, topk_group; Megatron-LM --moe-router-num-groups,
    // --moe-router-group-topk). 0: no limit.
    int routerGroups = 0;
    int routerGroupLimit = 0;
    bool expertBias = false;        // biases on the experts' projections (gpt-oss)
    std::int64_t params = 0;        // size-only models
    std::int64_t nominalParams = 0; // the advertised size ("70B"); 0 = same as the exact count
    std::string source;

    bool hasArchitecture() const { return layers > 0; }
    // The query/key width of a head that attention scores use (with MLA, the rotary part too).
    int headDim() const
    {
        return headDimOverride > 0 ? headDimOverride + (kvLoraRank > 0 ? ropeHeadDim : 0)
               : heads > 0         ? hidden / heads
                                   : 0;
    }
    int valueHeadDim() const { return vHeadDim > 0 ? vHeadDim : headDim(); }
    bool hasExperts() const { return experts > 0; }
    bool latentAttention() const { return kvLoraRank > 0; }
    bool operator==(const ModelSpec &) const = default;
};

// How a model's parameters are distributed, on one device of a tensor-parallel
// group of `tp` (tp = 1 gives the model's own count).
struct ParamCounts
{
    std::int64_t embedding = 0; // word (+ learned position) embeddings: first stage
    std::int64_t perLayer = 0;  // one transformer layer with the dense MLP
    // One mixture-of-experts layer: attention, norms, router and shared experts, plus this
    // device's routed experts (experts / E of them, each split over the expert-tensor group).
    std::int64_t perMoeLayer = 0;
    std::int64_t perMoeLayerExperts = 0; // of perMoeLayer: the routed experts, sharded by ZeRO
                                         // over the expert data-parallel group
    std::int64_t finalNorm = 0;          // last stage
    // One multi-token-prediction depth beside its layer (one of the last layer's kind): its
    // three norms and its 2h-to-h projection.
    std::int64_t perMtpExtra = 0;
    std::int64_t lmHead = 0; // last stage; 0 when tied to the embedding
    std::int64_t total = 0;  // embedding + layers·perLayer + finalNorm + lmHead
};

// How the routed experts are spread: over E devices (expert parallelism), each expert split
// over `tp` more (expert tensor parallelism), as Megatron-core lays them out.
struct ExpertSplit
{
    int ep = 1;
    int tp = 1;
};

ParamCounts countParams(const ModelSpec &model, int tp = 1, ExpertSplit experts = {});

// Whether layer `index` (from 0) has experts: past the dense first layers, every
// moe_layer_period-th (Megatron-LM --moe-layer-freq; DeepSeek-V3 first_k_dense_replace).
bool isMoeLayer(const ModelSpec &model, int index);

// Whether multi-token prediction's layer has experts: it repeats the last layer's kind
// (Megatron-core get_gpt_mtp_block_spec, the decoder's last layer spec).
bool mtpLayerIsMoe(const ModelSpec &model);
// Of `depths` multi-token-prediction layers, those with experts: all or none.
inline int mtpMoeLayers(const ModelSpec &model, int depths)
{
    return mtpLayerIsMoe(model) ? depths : 0;
}

// How many of the `count` layers from `first` have experts: O(1).
int moeLayersIn(const ModelSpec &model, int first, int count);

// Whether layer `index` (from 0) attends through the sliding window, and how many of the
// layers [first, first + count) do.
bool isSlidingLayer(const ModelSpec &model, int index);
int slidingLayersIn(const ModelSpec &model, int first, int count);

// The parameter tensors of `count` layers from `first`, with the embedding and the output
// layer where the stage holds them, as Megatron-Core builds them with Transformer Engine: a
// layer's fused QKV, output, MLP-in and MLP-out weights and its two norms, their biases where
// the model has them; a mixture-of-experts layer its router and two weights for each of its
// experts on one of E devices. A data-parallel bucket closes at a tensor's end, so a stage has
// at most this many (megatron/core/distributed/param_and_grad_buffer.py).
int parameterTensors(const ModelSpec &model, int first, int count, bool embedding, bool head,
                     int ep = 1);

// Parameters one token's forward pass multiplies with: every layer's attention, norms,
// router, shared experts and the top-k routed experts, and the LM head; not the input
// embedding, which is a lookup (docs/experts.md, "Active parameters").
std::int64_t activeParams(const ModelSpec &model);

// The transformer layers' parameters a token multiplies with, without embedding or LM head:
// the N of Kaplan et al. 2020's 6N FLOPs per token.
std::int64_t activeLayerParams(const ModelSpec &model);

// Exact parameter count: derived from the architecture, or the given `params`.
std::int64_t exactParams(const ModelSpec &model);

// The advertised size (docs/worked-examples.md §1); the exact count when unset.
std::int64_t nominalParams(const ModelSpec &model);

} // namespace core
