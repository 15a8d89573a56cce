#include "core/activations.h"

#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>

namespace core {

namespace {

constexpr std::int64_t kMaskBytes = 1; // dropout masks: one byte per element (Korthikanti §4.1)
constexpr std::int64_t kLogSumExpBytes = 4; // flash attention keeps an FP32 log-sum-exp per row

// The arithmetic the byte counts below are written in, once for both: Count = std::int64_t
// gives evaluate's exact counts, which stop at kTooLarge; Count = double gives validate's
// bound, which cannot overflow. Small per-token terms use plain operators in both.
template <typename Count> Count mulBytes(Count a, Count b)
{
    if constexpr (std::is_floating_point_v<Count>)
        return a * b;
    else
        return saturatingMul(a, b);
}
template <typename Count> Count addBytes(Count a, Count b)
{
    if constexpr (std::is_floating_point_v<Count>)
        return a + b;
    else
        return saturatingAdd(a, b);
}
template <typename Count> Count divBytesUp(Count a, Count b)
{
    if constexpr (std::is_floating_point_v<Count>)
        return std::ceil(a / b);
    else
        return ceilDiv(a, b);
}

template <typename Count> struct PerToken
{
    Count replicated = 0; // split across T only under sequence parallelism
    Count sharded = 0;    // split across T by heads or FFN columns
};

// torchtitan's per-op selective checkpointing (torchtitan/distributed/activation_checkpoint.py,
// SelectiveAC; selective_ac_option = "op" before it): each block keeps its input, the outputs
// of the compute-intensive operations but every second matrix multiply in forward order, the
// attention kernel's output (with its log-sum-exp) and the reduce-scatters' outputs, and reruns
// everything else. A Llama block multiplies wq, wk, wv, wo, w1, w3, w2 and keeps Q, V, W1's
// output and W2's (row-parallel, before its reduction: h wide); latent attention multiplies
// wq_a, wq_b (or wq), wkv_a, wkv_b, wo. A mixture of experts keeps its all-to-alls' outputs,
// each token's k dispatched copies and their combined outputs, reruns the router and the
// grouped expert multiplies, and counts its shared experts' on (docs/activations.md).
template <typename Count>
PerToken<Count> opCheckpointed(const ModelSpec &m, const ActivationConfig &c)
{
    const Count a = c.bytesPerValue;
    const Count h = m.hidden;
    const Count hd = m.headDim();
    const Count qHeads = m.heads / c.tp;
    PerToken<Count> t;
    // The block input; with sequence parallelism the two reduce-scatters' outputs too.
    t.replicated = a * h * (c.sequenceParallel && c.tp > 1 ? 3 : 1);
    // The multiplies in forward order, each output kept when it is an odd one.
    int multiplies = 0;
    const auto multiply = [&](Count width) {
        if (++multiplies % 2 == 1)
            t.sharded += a * width;
    };
    if (m.latentAttention()) {
        // DeepSeek-V3's projections (the step-time model's): the down projections whole on
        // every device, the up projections by heads.
        const Count rope = m.ropeHeadDim;
        if (m.qLoraRank > 0)
            multiply(m.qLoraRank);
        multiply(qHeads * hd);
        multiply(static_cast<Count>(m.kvLoraRank) + rope);
        multiply(qHeads * (hd - rope + static_cast<Count>(m.valueHeadDim())));
    } else {
        const Count kv = static_cast<Count>(kvHeadsPerDevice(m, c.tp)) * hd;
        multiply(qHeads * hd);
        multiply(kv);
        multiply(kv);
    }
    // The attention kernel's output and its FP32 log-sum-exp, then the output projection.
    t.sharded += a * qHeads * static_cast<Count>(m.valueHeadDim()) + qHeads * kLogSumExpBytes;
    multiply(h);
    const auto mlp = [&](Count f) {
        multiply(f);
        if (m.gatedMlp)
            multiply(f);
        multiply(h);
    };
    if (!c.moe) {
        mlp(divBytesUp<Count>(m.ffnHidden, c.tp));
        return t;
    }
    if (m.sharedExperts > 0)
        mlp(static_cast<Count>(m.sharedExperts) * divBytesUp<Count>(m.expertFfnHidden, c.tp));
    const double copies = static_cast<double>(m.expertsPerToken) * c.expertTp / c.tp * c.expertLoad;
    t.sharded += static_cast<Count>(std::ceil(copies * static_cast<double>(2 * a * h)));
    return t;
}

// Bytes per token of one layer, term by term as docs/activations.md lists them.
template <typename Count>
PerToken<Count> perToken(const ModelSpec &m, const ActivationConfig &c, Recompute recompute)
{
    const Count a = c.bytesPerValue;
    const Count h = m.hidden;
    const Count hd = m.headDim();
    const Count qHeads = m.heads / c.tp;
    const Count ffn = divBytesUp<Count>(m.ffnHidden, c.tp);
    const Count mask = m.dropout ? kMaskBytes : 0;
    // Selective recomputation's modules (docs/activations.md, "Recomputed modules").
    const auto rerun = [&](unsigned module) {
        return recompute == Recompute::selective && (c.recomputeModules & module) != 0;
    };
    PerToken<Count> t;
    if (recompute == Recompute::full) {
        // Full recomputation keeps only the layer input (Korthikanti §4.3: 2sbh).
        t.replicated = a * h;
        return t;
    }
    if (recompute == Recompute::op)
        return opCheckpointed<Count>(m, c);
    // Korthikanti §4.1: two norm inputs, the QKV and first-MLP inputs (norm
    // outputs), and the two residual dropout masks are not split by T (10sbh).
    // docs/activations.md, "FP8 and NVFP4": under Transformer Engine a projection keeps its
    // cast input, not the 16-bit one (module/linear.py, saved_inputmat); two projections of
    // one norm's output (latent attention's down projections) keep a copy each, and a mixture
    // of experts' router keeps the 16-bit output its shared experts cast again.
    const bool quantized = c.savedInputBytes32 > 0;
    const auto savedInput = [&](Count width) {
        return quantized ? divBytesUp<Count>(width * c.savedInputBytes32, 32) : a * width;
    };
    // LoRA: Transformer Engine keeps no input for a projection whose weight takes no gradient
    // (module/linear.py and layernorm_linear.py: backward_needs_input = weight.requires_grad);
    // an adapter beside it keeps the 16-bit input its own weight gradients need (a Megatron-core
    // linear; Megatron-Bridge's ParallelLinearAdapter), the dropped input where a dropout
    // precedes A, and that dropout's one-byte mask (torch's native_dropout).
    const bool dropsInput = c.loraDropout && !c.loraDropoutPost;
    const auto projectionInput = [&](unsigned module, Count width) -> Count {
        if (!c.lora)
            return savedInput(width);
        return (c.loraModules & module) != 0 ? (a + (dropsInput ? kMaskBytes : 0)) * width : 0;
    };
    // A dropout after B keeps the one-byte mask of B's output instead (NeMo AutoModel's
    // "post"), as wide as the projection's output.
    const auto outputMask = [&](unsigned module, Count width) -> Count {
        return c.lora && c.loraDropoutPost && (c.loraModules & module) != 0 ? kMaskBytes * width
                                                                            : 0;
    };
    const Count attentionInput = m.latentAttention() ? (c.lora      ? 0
                                                        : quantized ? 2 * savedInput(h)
                                                                    : savedInput(h))
                                                     : projectionInput(kLoraQkv, h);
    const Count mlpInput = !c.moe ? projectionInput(kLoraFc1, h)
                                  : a * h + (quantized && m.sharedExperts > 0 ? savedInput(h) : 0);
    // layernorm: Megatron-core discards the two norms' outputs once their projections (and a
    // MoE layer's router) have read them, and has those keep no cast copy either
    // (set_save_original_input): the norms rerun before the backward (transformer_layer.py,
    // CheckpointWithoutOutput).
    const bool normsRerun = rerun(kRecomputeLayernorm);
    t.replicated = 2 * a * h + (normsRerun ? 0 : attentionInput + mlpInput) + 2 * mask * h +
                   outputMask(kLoraProj, h) + (c.moe ? 0 : outputMask(kLoraFc2, h));
    // Latent attention's compressed query and key/value (q_lora_rank and kv_lora_rank wide), each
    // the input of its norm, which Transformer Engine fuses into the up projection
    // (LayerNormLinear keeps the norm's input and its output, cast under FP8). Every
    // tensor-parallel rank computes them whole (the down projections are duplicated), split by
    // sequence under SP (multi_latent_attention.py). mla_up_proj keeps its checkpoint's inputs
    // instead: both latents and the rotary key, 16-bit (qkv_up_checkpoint).
    const bool upProjectionsRerun = m.latentAttention() && rerun(kRecomputeMlaUpProj);
    if (m.latentAttention()) {
        const Count latents = static_cast<Count>(m.qLoraRank) + static_cast<Count>(m.kvLoraRank);
        t.replicated += upProjectionsRerun ? a * (latents + static_cast<Count>(m.ropeHeadDim))
                                           : a * latents + savedInput(latents);
    }

    // Q and the output projection's input (the attention output, which is also
    // what flash attention keeps as O) are split by query heads; the projection's cast copy
    // of O comes on top. mla_up_proj discards Q, K and V, the up projections' outputs with
    // RoPE applied, and rebuilds them from the latents (multi_latent_attention.py,
    // qkv_up_checkpoint).
    // O is v_head_dim wide a head, as V is (latent attention's 128 beside Q and K's 192).
    const Count vd = m.valueHeadDim();
    t.sharded = a * qHeads * vd + (upProjectionsRerun ? 0 : a * qHeads * hd);
    if (c.projectionInputCopy && !c.lora)
        t.sharded += savedInput(qHeads * vd);
    // LoRA: the adapter beside the output projection keeps that output as its input, unless a
    // dropout precedes A: then its dropped copy and the mask besides.
    if (c.lora && dropsInput && (c.loraModules & kLoraProj) != 0)
        t.sharded += (a + kMaskBytes) * qHeads * vd;
    if (!m.latentAttention())
        t.sharded +=
            outputMask(kLoraQkv, (qHeads + 2 * static_cast<Count>(kvHeadsPerDevice(m, c.tp))) * hd);
    // Eager attention repeats K and V to every query head before the matmuls
    // (Hugging Face repeat_kv), so they are kept at full size; flash attention and
    // the inputs of a recomputed core attention keep them at the grouped size.
    const bool attentionKept = recompute == Recompute::none ||
                               (recompute == Recompute::selective && !rerun(kRecomputeCoreAttn));
    const bool repeatedKv = c.attention == Attention::eager && attentionKept;
    if (!upProjectionsRerun)
        t.sharded +=
            a * (repeatedKv ? qHeads : static_cast<Count>(kvHeadsPerDevice(m, c.tp))) * (hd + vd);
    if (attentionKept) {
        if (c.attention == Attention::eager)
            // Korthikanti §4.1: softmax output 2as²b, its dropout mask as²b and dropout
            // output 2as²b; without dropout the matmul reuses the softmax output.
            t.sharded =
                addBytes<Count>(t.sharded, mulBytes<Count>(mulBytes<Count>(qHeads, c.seqLen),
                                                           a + (m.dropout ? kMaskBytes + a : 0)));
        else
            t.sharded += qHeads * kLogSumExpBytes;
    }
    // MLP: GeLU's input and output (8sbh each for f = 4h, Korthikanti §4.1); SwiGLU
    // keeps the gate output, its SiLU, the up output and their product (the down
    // projection's input), 4 × 2sbf; fused, its 2f-wide input and the down projection's
    // input, 3 × 2sbf (Megatron-LM megatron/core/fusions/fused_bias_swiglu.py).
    // The last of them is the down projection's input, kept cast like the others.
    const Count mlpTensors = m.gatedMlp ? (c.fusedSwiglu ? 3 : 4) : 2;
    // fp8_activation_input: the fused SwiGLU's 2f-wide input in FP8, one byte a value
    // (Megatron-core fused_bias_swiglu.py: input.to(torch.float8_e4m3fn) for the backward).
    const bool fp8Input = c.fp8ActivationInput && m.gatedMlp && c.fusedSwiglu;
    const auto mlpBytes = [&](Count f) {
        return (fp8Input ? 2 * f : (mlpTensors - 1) * a * f) + projectionInput(kLoraFc2, f) +
               outputMask(kLoraFc1, (m.gatedMlp ? 2 : 1) * f);
    };
    if (!c.moe) {
        // mlp: the dense MLP checkpointed whole, keeping its input (the norm's output above).
        if (!rerun(kRecomputeMlp))
            t.sharded += mlpBytes(ffn);
        return t;
    }
    // moe: the MoE layer checkpointed whole, routing and all-to-alls too, keeping its input.
    if (rerun(kRecomputeMoe))
        return t;
    // docs/experts.md, "Memory": shared experts are a dense MLP of their own; every token's
    // top-k copies go to the experts, and a device gets k x expert T / T copies per token of
    // its group (the copies of C x D token sets shared over T x C x D / expert T groups). Each
    // copy keeps its dispatched input and expert output (for the combine), h wide, and the
    // MLP's tensors at f_e / expert T.
    const Count fe = divBytesUp<Count>(m.expertFfnHidden, c.tp);
    const Count feShard = divBytesUp<Count>(m.expertFfnHidden, c.expertTp);
    if (!rerun(kRecomputeSharedExperts))
        t.sharded += static_cast<Count>(m.sharedExperts) * (mlpBytes(fe) + outputMask(kLoraFc2, h));
    // moe_act: each copy keeps its first projection's output (gate and up, 2 f wide) and
    // reruns the activation from it; the down projection keeps no cast copy of its input
    // (experts.py, activation_checkpoint; set_save_original_input on linear_fc2).
    const Count expertMlp =
        rerun(kRecomputeMoeAct) ? (m.gatedMlp ? 2 : 1) * a * feShard : mlpBytes(feShard);
    const double copies = static_cast<double>(m.expertsPerToken) * c.expertTp / c.tp * c.expertLoad;
    t.sharded += static_cast<Count>(std::ceil(
        copies * static_cast<double>(savedInput(h) + a * h + expertMlp + outputMask(kLoraFc2, h))));
    return t;
}

template <typename Count>
Count layerBytes(const ModelSpec &m, const ActivationConfig &c, Recompute recompute)
{
    if (!m.hasArchitecture())
        return 0;
    const PerToken<Count> t = perToken<Count>(m, c, recompute);
    // Context parallelism: each device keeps its s / C of every sequence (Megatron-LM
    // context_parallel, load-balanced chunks of s / 2C).
    const Count tokens =
        mulBytes<Count>(divBytesUp<Count>(c.seqLen, std::max(1, c.cp)), c.microbatchSize);
    // Korthikanti §4.2.2: sequence parallelism splits the remaining terms by T too.
    const Count all = mulBytes<Count>(tokens, t.replicated);
    const Count replicated = c.sequenceParallel ? divBytesUp<Count>(all, c.tp) : all;
    // The weights' cast copies Transformer Engine saves without its cache, which a layer that
    // reruns under full recomputation does not keep (its forward runs without gradients).
    const Count weights = recompute == Recompute::full ? Count{0}
                          : c.moe                      ? static_cast<Count>(c.savedMoeWeightBytes)
                                                       : static_cast<Count>(c.savedWeightBytes);
    return addBytes<Count>(addBytes<Count>(replicated, mulBytes<Count>(tokens, t.sharded)),
                           weights);
}

template <typename Count>
Count cachedOutputBytes(const ModelSpec &m, std::int64_t seqLen, std::int64_t microbatchSize,
                        int tp, int bytesPerValue)
{
    // pytorch/pytorch#159251: the pipeline keeps each micro-batch's logits, b × s × V,
    // vocab-parallel under tensor parallelism (Megatron-LM's parallel LM head).
    return mulBytes<Count>(mulBytes<Count>(microbatchSize, seqLen),
                           divBytesUp<Count>(m.vocab, tp) * bytesPerValue);
}

template <typename Count>
Count prefillBytes(const ModelSpec &m, bool hasLayers, bool lastStage, std::int64_t seqLen,
                   std::int64_t microbatchSize, int tp, int bytesPerValue)
{
    if (!m.hasArchitecture())
        return 0;
    const Count h = m.hidden;
    const Count q = static_cast<Count>(m.heads / tp) * m.headDim();
    const Count qkv = q + 2 * static_cast<Count>(kvHeadsPerDevice(m, tp)) * m.headDim();
    const Count f = divBytesUp<Count>(m.ffnHidden, tp);
    const Count up = (m.gatedMlp ? 2 : 1) * f;
    // docs/inference.md, "Memory": one layer's forward keeps nothing for a backward; at any
    // moment the residual stream x and the widest pair of tensors in flight are alive: the
    // normed input and QKV, QKV and attention's output, the normed input and the up (and
    // gate) projection, that and the activation, the activation and the down projection.
    Count widest = 0;
    for (const Count pair : {h + qkv, qkv + q, h + up, up + f, f + h})
        widest = std::max(widest, pair);
    if (m.hasExperts()) {
        // docs/experts.md, "Serving": an expert layer's MLP holds each token's k dispatched
        // copies and their experts' tensors, expert_ffn_hidden / T wide; shared experts are a
        // dense MLP of their own on each token once.
        const Count k = m.expertsPerToken;
        const Count fe = divBytesUp<Count>(m.expertFfnHidden, tp);
        const Count upE = (m.gatedMlp ? 2 : 1) * fe;
        const Count shared = m.sharedExperts;
        for (const Count pair : {h + k * h, k * h + k * upE, k * upE + k * fe, k * fe + k * h,
                                 h + shared * upE, shared * (upE + fe), shared * fe + h})
            widest = std::max(widest, pair);
    }
    const Count tokens = mulBytes<Count>(microbatchSize, seqLen);
    const Count layer = hasLayers ? mulBytes<Count>(tokens, (h + widest) * bytesPerValue) : 0;
    if (!lastStage)
        return layer;
    // The last stage then projects each sequence's last position onto its share of the
    // vocabulary and gathers the logits in FP32 for sampling (vLLM's sampler casts them),
    // beside the final hidden states.
    const Count vocab = divBytesUp<Count>(m.vocab, tp);
    const Count head = addBytes<Count>(
        mulBytes<Count>(tokens, h * bytesPerValue),
        mulBytes<Count>(microbatchSize, vocab * bytesPerValue + static_cast<Count>(m.vocab) * 4));
    return std::max(layer, head);
}

template <typename Count>
Count kvBytes(const ModelSpec &m, int layers, std::int64_t seqLen, std::int64_t sequences, int tp,
              int bytesPerValue, int slidingLayers)
{
    // docs/DESIGN.md §3.7: 2 (K and V) × layers × KV heads × head dim × seq × batch × bytes.
    // Multi-head latent attention caches the compressed latent and the shared rotary key
    // instead, kv_lora_rank + rope_head_dim values per token and layer on every device
    // (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §2.1.1).
    const Count layerBytesPerToken =
        m.latentAttention()
            ? static_cast<Count>(m.kvLoraRank + m.ropeHeadDim) * bytesPerValue
            : Count{2} * static_cast<Count>(kvHeadsPerDevice(m, tp)) * m.headDim() * bytesPerValue;
    // A sliding-window layer keeps the last sliding_window tokens of each sequence
    // (Jiang et al. 2023, "Mistral 7B", §2: the rolling buffer cache).
    const int sliding = m.slidingWindow > 0 ? std::clamp(slidingLayers, 0, layers) : 0;
    const std::int64_t windowed = std::min<std::int64_t>(seqLen, m.slidingWindow);
    const Count tokens = addBytes<Count>(mulBytes<Count>(layers - sliding, seqLen),
                                         mulBytes<Count>(sliding, windowed));
    return mulBytes<Count>(layerBytesPerToken, mulBytes<Count>(tokens, sequences));
}

} // namespace

int activationValueBytes(Precision p)
{
    return p == Precision::fp32 ? 4 : 2;
}

int kvBytesPerValue(const Scenario &s)
{
    switch (s.kvPrecision) {
    case KvPrecision::automatic:
        return activationValueBytes(s.precision);
    case KvPrecision::bf16:
    case KvPrecision::fp16:
        return 2;
    case KvPrecision::fp8:
    case KvPrecision::int8:
        return 1;
    }
    return activationValueBytes(s.precision);
}

std::int64_t contextTokens(const Scenario &s)
{
    return std::int64_t{s.seqLen} + (s.mode == Mode::inference ? s.outputLen : 0);
}

unsigned recomputeModuleBits(const Scenario &s)
{
    const auto modules = parseRecomputeModules(s.recomputeModules);
    return std::holds_alternative<unsigned>(modules) ? std::get<unsigned>(modules)
                                                     : kRecomputeCoreAttn;
}

unsigned loraModuleBits(const Scenario &s)
{
    if (s.loraRank <= 0)
        return 0;
    const auto modules = parseLoraModules(s.loraModules);
    return std::holds_alternative<unsigned>(modules) ? std::get<unsigned>(modules) : 0u;
}

ActivationConfig activationConfig(const Scenario &s)
{
    ActivationConfig c;
    c.seqLen = s.seqLen;
    c.microbatchSize = s.microbatchSize;
    c.tp = s.tp;
    c.sequenceParallel = s.sequenceParallel;
    c.recompute = s.recompute;
    c.recomputeModules = recomputeModuleBits(s);
    c.lora = s.mode == Mode::training && s.loraRank > 0;
    c.loraModules = loraModuleBits(s);
    c.loraDropout = c.lora && s.loraDropout > 0;
    c.loraDropoutPost = c.loraDropout && s.loraDropoutPosition == LoraDropoutPosition::post;
    c.attention = s.attention;
    c.fusedSwiglu = s.fusedSwiglu;
    c.fp8ActivationInput = s.fp8ActivationInput;
    c.bytesPerValue = activationValueBytes(s.precision);
    c.cp = s.cp;
    c.expertTp = s.expertTpDegree();
    c.savedInputBytes32 = savedInputBytes32(s);
    // Megatron-LM lets the output projection keep attention's 16-bit output instead, but not
    // under delayed scaling (megatron/core/transformer/attention.py, set_save_original_input);
    // Transformer Engine alone, under DeepSpeed, keeps both.
    c.projectionInputCopy =
        c.savedInputBytes32 > 0 &&
        ((s.precision == Precision::fp8 && s.fp8Scaling == Fp8Scaling::delayed) ||
         s.framework == Framework::deepspeed);
    return c;
}

ActivationConfig activationConfig(const Scenario &s, const ModelSpec &m)
{
    ActivationConfig c = activationConfig(s);
    c.expertLoad = expertLoad(s, m);
    return c;
}

int expertsPerRank(const Scenario &s, const ModelSpec &m)
{
    const int ep = std::max(1, s.ep);
    return (m.experts + ep - 1) / ep;
}

double expertRankLoadLimit(const Scenario &s, const ModelSpec &m)
{
    if (!m.hasExperts() || m.expertsPerToken < 1)
        return 1;
    // Each token sends k copies to k different experts, so a rank holding n of them takes at
    // most min(k, n) of its copies, against an even share of k / E.
    return static_cast<double>(std::max(1, s.ep)) *
           std::min(m.expertsPerToken, expertsPerRank(s, m)) / m.expertsPerToken;
}

namespace {

// The busiest rank's routed copies and each expert's capacity, both over the even share of
// a rank's tokens' top-k copies; the capacity 0 when dropless.
struct ExpertShare
{
    double routed = 1;
    double capacity = 0;
};

ExpertShare expertShare(const Scenario &s, const ModelSpec &m)
{
    ExpertShare out;
    if (!m.hasExperts())
        return out;
    // docs/experts.md, "Routing imbalance": the rank every other waits for at the all-to-all.
    out.routed = std::clamp(s.expertRankLoad, 1.0, expertRankLoadLimit(s, m));
    if (!s.expertCapacityFactor)
        return out;
    // A rank routes its s·b / (C·T) tokens (sequence parallelism splits them over T) and
    // sizes each expert's capacity from them: dispatcher preprocess, num_tokens =
    // routing_map.size(0) × topk.
    const double tokens =
        static_cast<double>(s.seqLen) / std::max(1, s.cp) * s.microbatchSize / std::max(1, s.tp);
    const double share = tokens * m.expertsPerToken / m.experts;
    if (!(share > 0))
        return out;
    out.capacity = std::ceil(share * *s.expertCapacityFactor) / share;
    // Megatron-core moe_utils.py, get_capacity: what an expert takes beyond it is dropped.
    out.routed = std::min(out.routed, out.capacity);
    return out;
}

} // namespace

double expertRoutedLoad(const Scenario &s, const ModelSpec &m)
{
    return expertShare(s, m).routed;
}

double expertLoad(const Scenario &s, const ModelSpec &m)
{
    const ExpertShare share = expertShare(s, m);
    return s.padToCapacity && share.capacity > 0 ? share.capacity : share.routed;
}

int savedInputBytes32(const Scenario &s)
{
    if (s.mode != Mode::training || !s.saveQuantizedInputs)
        return 0;
    // docs/activations.md, "FP8 and NVFP4": Transformer Engine's column-wise copy, 1 byte a
    // value; MXFP8 adds an E8M0 scale per 32 and FP8 blocks an FP32 scale per 128 (1/32 byte
    // either way); NVFP4 4 bits and an E4M3 scale per 16.
    if (s.precision == Precision::fp8)
        return s.fp8Scaling == Fp8Scaling::block ? 33 : 32;
    if (s.precision == Precision::nvfp4)
        return 18;
    return 0;
}

std::int64_t kvHeadsPerDevice(const ModelSpec &m, int tp)
{
    // docs/DESIGN.md §3.7: with more ranks than KV heads each rank keeps one replicated head.
    return m.kvHeads >= tp ? ceilDiv(m.kvHeads, tp) : 1;
}

std::int64_t layerActivationBytes(const ModelSpec &m, const ActivationConfig &c)
{
    return layerBytes<std::int64_t>(m, c, c.recompute);
}

double layerActivationBytesBound(const ModelSpec &m, const ActivationConfig &c)
{
    return layerBytes<double>(m, c, c.recompute);
}

std::int64_t stageActivationBytes(const ModelSpec &m, const ActivationConfig &c, int layers,
                                  int moeLayers)
{
    ActivationConfig dense = c;
    dense.moe = false;
    ActivationConfig moe = c;
    moe.moe = true;
    return stageActivationBytes(layerActivationBytes(m, dense),
                                moeLayers > 0 ? layerActivationBytes(m, moe) : 0, layers,
                                moeLayers);
}

std::int64_t stageActivationBytes(std::int64_t denseLayerBytes, std::int64_t moeLayerBytes,
                                  int layers, int moeLayers)
{
    const std::int64_t experts = moeLayers > 0 ? saturatingMul(moeLayers, moeLayerBytes) : 0;
    return saturatingAdd(saturatingMul(layers - moeLayers, denseLayerBytes), experts);
}

std::int64_t stageRecomputePeakBytes(const ModelSpec &m, const ActivationConfig &c, int layers,
                                     int moeLayers)
{
    // What a recomputing layer rebuilds during its backward: at most its activations without
    // recomputation, one layer and one micro-batch at a time.
    if ((c.recompute != Recompute::full && c.recompute != Recompute::op) || layers == 0)
        return 0;
    ActivationConfig dense = c;
    dense.moe = false;
    ActivationConfig moe = c;
    moe.moe = true;
    const std::int64_t denseBytes = layers > moeLayers ? layerPeakRecomputeBytes(m, dense) : 0;
    return moeLayers > 0 ? std::max(denseBytes, layerPeakRecomputeBytes(m, moe)) : denseBytes;
}

std::int64_t stageLargestLayerBytes(std::int64_t denseLayerBytes, std::int64_t moeLayerBytes,
                                    int layers, int moeLayers)
{
    const std::int64_t dense = layers > moeLayers ? denseLayerBytes : 0;
    return moeLayers > 0 ? std::max(dense, moeLayerBytes) : dense;
}

std::int64_t layerPeakRecomputeBytes(const ModelSpec &m, const ActivationConfig &c)
{
    return layerBytes<std::int64_t>(m, c, Recompute::none);
}

double layerPeakRecomputeBytesBound(const ModelSpec &m, const ActivationConfig &c)
{
    return layerBytes<double>(m, c, Recompute::none);
}

namespace {

template <typename Count>
Count lossBuffers(const Scenario &s, const ModelSpec &m, int losses, int heldMicrobatches,
                  int bytesPerValue)
{
    if (s.mode != Mode::training || losses <= 0 || heldMicrobatches <= 0 || !m.hasArchitecture())
        return 0;
    const LossBuffers perLogit = lossBuffersPerLogit(s, bytesPerValue);
    // One loss's logits on a device: b × s/C tokens × V/T (vocabulary-parallel).
    const Count logits =
        mulBytes<Count>(mulBytes<Count>(s.microbatchSize, divBytesUp<Count>(s.seqLen, s.cp)),
                        divBytesUp<Count>(m.vocab, s.tp));
    // The other waiting micro-batches' losses held, this one's others held, its first at peak.
    const Count heldLosses = static_cast<Count>(heldMicrobatches) * losses - 1;
    return mulBytes<Count>(logits, heldLosses * perLogit.held + perLogit.peak);
}

} // namespace

LossBuffers lossBuffersPerLogit(const Scenario &s, int e)
{
    // With one stage and cache_outputs the 16-bit logits are the cached term, held through
    // the backward, where an eager loss has let them go: the training loop drops them before
    // the backward (torchtitan trainer.py, del pred) and Megatron-core's loss keeps only its
    // FP32 copy. Its backward's peak then counts them among its own bytes.
    const int dropped = s.cacheOutputs && s.pp == 1 ? e : 0;
    // torchtitan's and Hugging Face Transformers' loss, F.cross_entropy over an FP32 copy
    // (torchtitan components/loss.py, cross_entropy_loss; transformers loss_utils.py,
    // ForCausalLMLoss). Eager: log_softmax's FP32 output kept for the backward (4), which holds
    // it, nll_loss's FP32 gradient and log_softmax's at once (12), the forward its copy and
    // output beside the 16-bit logits (8 + e; the cached term counts those where it keeps them).
    // Compiled with the model (torchtitan compiles the loss too since pytorch/torchtitan#1033),
    // nothing beyond the 16-bit logits it saves and, in the backward, their gradient
    // (Dao-AILab/quack#48: "~0 for just fwd and ~d_input for fw+bw").
    if (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed) {
        if (s.framework == Framework::torchtitan && s.fusedElementwise) {
            const int logits = s.cacheOutputs ? 0 : e;
            return {logits, logits + e};
        }
        // torchtitan's vocabulary-parallel loss at T > 1 (components/loss.py,
        // _LossParallelCrossEntropy): the forward holds the FP32 copy, the shifted logits and
        // the log-probabilities it keeps beside the 16-bit logits (12 + e), the backward the
        // log-probabilities, the one-hot gradient, exp(log-probabilities) and their sum (16).
        const int forward = (s.framework == Framework::torchtitan && s.tp > 1 ? 12 : 8) + e;
        const int backward = s.framework == Framework::torchtitan && s.tp > 1 ? 16 : 12;
        return {4, std::max(backward - dropped, forward - (s.cacheOutputs ? e : 0))};
    }
    // Megatron-core's vocabulary-parallel loss, unfused or fused (megatron/core/tensor_parallel/
    // cross_entropy.py, fusions/fused_cross_entropy.py): the FP32 copy of the logits becomes
    // the softmax it keeps (4); the forward holds it beside the 16-bit logits, the backward
    // beside the gradient cast back to 16 bits (4 + e). Transformer Engine's Triton loss keeps
    // an FP32 gradient from its forward the same way (transformer_engine/pytorch/triton/
    // cross_entropy.py, cross_entropy_forward, since NVIDIA/TransformerEngine#3193; before it,
    // the gradient overwrote the logits).
    return {4, 4 + e - dropped};
}

std::int64_t lossBufferBytes(const Scenario &s, const ModelSpec &m, int losses,
                             int heldMicrobatches, int bytesPerValue)
{
    return lossBuffers<std::int64_t>(s, m, losses, heldMicrobatches, bytesPerValue);
}

double lossBufferBytesBound(const Scenario &s, const ModelSpec &m, int losses, int heldMicrobatches,
                            int bytesPerValue)
{
    return lossBuffers<double>(s, m, losses, heldMicrobatches, bytesPerValue);
}

double cachedMicrobatches(const Scenario &s, double passedShare)
{
    return s.pp > 1 ? s.microbatches * passedShare : 1.0;
}

std::int64_t cachedOutputBytesPerMicrobatch(const ModelSpec &m, std::int64_t seqLen,
                                            std::int64_t microbatchSize, int tp, int bytesPerValue)
{
    return cachedOutputBytes<std::int64_t>(m, seqLen, microbatchSize, tp, bytesPerValue);
}

double cachedOutputBytesPerMicrobatchBound(const ModelSpec &m, std::int64_t seqLen,
                                           std::int64_t microbatchSize, int tp, int bytesPerValue)
{
    return cachedOutputBytes<double>(m, seqLen, microbatchSize, tp, bytesPerValue);
}

std::int64_t prefillBufferBytes(const ModelSpec &m, bool hasLayers, bool lastStage,
                                std::int64_t seqLen, std::int64_t microbatchSize, int tp,
                                int bytesPerValue)
{
    return prefillBytes<std::int64_t>(m, hasLayers, lastStage, seqLen, microbatchSize, tp,
                                      bytesPerValue);
}

double prefillBufferBytesBound(const ModelSpec &m, bool hasLayers, bool lastStage,
                               std::int64_t seqLen, std::int64_t microbatchSize, int tp,
                               int bytesPerValue)
{
    return prefillBytes<double>(m, hasLayers, lastStage, seqLen, microbatchSize, tp, bytesPerValue);
}

std::int64_t kvCacheBytes(const ModelSpec &m, int layers, std::int64_t seqLen,
                          std::int64_t sequences, int tp, int bytesPerValue, int slidingLayers)
{
    return kvBytes<std::int64_t>(m, layers, seqLen, sequences, tp, bytesPerValue, slidingLayers);
}

double kvCacheBytesBound(const ModelSpec &m, int layers, std::int64_t seqLen,
                         std::int64_t sequences, int tp, int bytesPerValue, int slidingLayers)
{
    return kvBytes<double>(m, layers, seqLen, sequences, tp, bytesPerValue, slidingLayers);
}

double causalKeysPerQuery(double s, double w)
{
    // Query i (from 1) sees min(i, w) keys: over s queries, w·s - w²/2 for w < s (to
    // O(1/s)), s²/2 without a window, as the causal mask's half.
    return w > 0 && w < s ? w - w * w / (2 * s) : s / 2;
}

} // namespace core
