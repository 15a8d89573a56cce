#pragma once

#include "core/model.h"
#include "core/scenario.h"

#include <cstdint>

namespace core {

// How one transformer layer's activations are kept for the backward pass
// (docs/activations.md derives every term).
struct ActivationConfig
{
    std::int64_t seqLen = 0;         // s
    std::int64_t microbatchSize = 0; // b
    int tp = 1;                      // T
    bool sequenceParallel = false;
    Recompute recompute = Recompute::none;
    // Under selective recomputation, the RecomputeModule bits it reruns.
    unsigned recomputeModules = kRecomputeCoreAttn;
    Attention attention = Attention::flash;
    bool fusedSwiglu = false;        // SwiGLU keeps its 2f-wide input only (docs/activations.md)
    bool fp8ActivationInput = false; // ... in FP8, one byte a value (fp8_activation_input)
    int bytesPerValue = 2;           // 16-bit activations; 4 in FP32 training
    int cp = 1;                      // context parallelism: each device keeps s / C of the tokens
    int expertTp = 1;                // devices that split each expert (docs/experts.md)
    // Routed copies an expert takes against its even share: 1 dropless, the capacity factor
    // with padding (expertLoad).
    double expertLoad = 1;
    bool moe = false; // the layer's MLP is a mixture of experts
    // A projection's input kept for its weight gradient, in 32nds of a byte a value: 0 keeps it
    // in the activations' own bytes; FP8 and NVFP4 training under Transformer Engine keep the
    // cast copy, 32 (FP8), 33 (MXFP8 and FP8 blocks: a scale per 32 values, or an FP32 one per
    // 128) or 18 (NVFP4: 4 bits and an FP8 scale per 16 values) (docs/activations.md, "FP8
    // and NVFP4").
    int savedInputBytes32 = 0;
    // The output projection keeps its cast input beside attention's 16-bit output, which
    // Megatron-LM avoids only for scalings other than delayed (docs/activations.md).
    bool projectionInputCopy = false;
    // LoRA in training (Scenario::loraRank): a frozen projection keeps no input, an adapter
    // beside one (the LoraModule bits) its own 16-bit copy (docs/activations.md, "LoRA").
    bool lora = false;
    unsigned loraModules = 0;
    // Scenario::loraDropout above 0: each adapter also keeps its dropout's one-byte mask, of its
    // input, or with loraDropoutPost (Scenario::loraDropoutPosition post) of B's output.
    bool loraDropout = false;
    bool loraDropoutPost = false;
    // Transformer Engine without its weight cache (fp8_weight_cache off): the cast copy of a
    // dense and of an MoE layer's weights each micro-batch's forward saves for its backward,
    // in bytes (docs/activations.md, "Cast weights"); kept unless the layer reruns under full
    // recomputation. Set by core::activationConfig with the device (core/evaluate.h).
    std::int64_t savedWeightBytes = 0;
    std::int64_t savedMoeWeightBytes = 0;
};

// Bytes of one activation, logit or KV-cache value: 16 bits, or 32 in FP32; FP8 and the
// weight-only formats compute and keep activations in 16 bits.
int activationValueBytes(Precision precision);

// ActivationConfig::savedInputBytes32 for a scenario: 0 unless FP8 or NVFP4 training keeps the
// projections' cast inputs (save_quantized_inputs).
int savedInputBytes32(const Scenario &scenario);

// Bytes of one KV-cache value: kv_precision's (2 for BF16 and FP16, 1 for FP8 and INT8), or
// for auto the activations' (docs/inference.md).
int kvBytesPerValue(const Scenario &scenario);

// The tokens a sequence holds when its last token is generated: the prompt (seq_len) and,
// in inference, every output token (output_len).
std::int64_t contextTokens(const Scenario &scenario);

// The RecomputeModule bits of the scenario's recompute_modules; the attention core where the
// list does not parse (validation refuses it).
unsigned recomputeModuleBits(const Scenario &scenario);

// The LoraModule bits of the scenario's lora_modules: 0 when LoRA is off or the list does not
// parse (validation refuses it).
unsigned loraModuleBits(const Scenario &scenario);

// How the scenario keeps its layers' activations; with the model, its experts' load under
// a capacity factor too (expertLoad).
ActivationConfig activationConfig(const Scenario &scenario);
ActivationConfig activationConfig(const Scenario &scenario, const ModelSpec &model);

// The routed copies the busiest expert-parallel rank's experts compute against the even share
// of a rank's tokens' top-k copies (docs/experts.md, "Capacity", "Routing imbalance"):
// expert_rank_load dropless; with a capacity factor cf, capacity = ceil(tokens x k / experts x
// cf) (Megatron-core moe_utils.py, get_capacity), so capacity / share padded, and at most
// that when only dropping.
double expertLoad(const Scenario &scenario, const ModelSpec &model);

// The copies routed to the busiest rank that it keeps, padding not counted: expert_rank_load,
// at most the capacity; what crosses the network to it.
double expertRoutedLoad(const Scenario &scenario, const ModelSpec &model);

// The routed experts one of the E expert-parallel ranks holds: ceil(experts / E).
int expertsPerRank(const Scenario &scenario, const ModelSpec &model);

// The most a rank can take: every token's copies for its ceil(experts / E) experts, at most
// k of them, over the even k / E: E x min(k, experts a rank) / k; 1 for a dense model.
double expertRankLoadLimit(const Scenario &scenario, const ModelSpec &model);

// Each byte count below comes twice, from one formula: exact in 64 bits, stopping at
// kTooLarge (core/units.h), for evaluate's report; and as a `...Bound` in floating point,
// which cannot overflow, for validate to compare with limits::kBytes before evaluate counts.
// The bound equals the exact count wherever that is below 2^53, and is never below it by
// more than a double's rounding.

// Bytes one layer keeps per micro-batch on one device of its tensor-parallel
// group. With MHA, GeLU, FFN = 4h, dropout, eager attention and 16-bit values
// this is Korthikanti et al. 2022, Table 2, exactly.
std::int64_t layerActivationBytes(const ModelSpec &model, const ActivationConfig &config);
double layerActivationBytesBound(const ModelSpec &model, const ActivationConfig &config);

// One micro-batch's bytes over a stage's `layers`, `moeLayers` of them with experts
// (docs/experts.md, "Memory"); and what full recomputation rebuilds at most, the larger kind of
// layer it holds, 0 when recomputation is not full.
std::int64_t stageActivationBytes(const ModelSpec &model, const ActivationConfig &config,
                                  int layers, int moeLayers);
// The same from one layer's bytes of each kind (layerActivationBytes with `moe` off and on):
// every stage of a layout multiplies the same two counts.
std::int64_t stageActivationBytes(std::int64_t denseLayerBytes, std::int64_t moeLayerBytes,
                                  int layers, int moeLayers);
std::int64_t stageRecomputePeakBytes(const ModelSpec &model, const ActivationConfig &config,
                                     int layers, int moeLayers);
// One layer of one micro-batch, the larger kind the stage holds (layerActivationBytes with
// `moe` off and on): what ep_overlap's paired forward keeps beyond the schedule's count, as
// its backward frees the other micro-batch's layers one by one (docs/activations.md).
std::int64_t stageLargestLayerBytes(std::int64_t denseLayerBytes, std::int64_t moeLayerBytes,
                                    int layers, int moeLayers);

// The same layer's bytes without recomputation: what a fully recomputed stage
// rebuilds, one layer and one micro-batch at a time, during its backward pass.
std::int64_t layerPeakRecomputeBytes(const ModelSpec &model, const ActivationConfig &config);
double layerPeakRecomputeBytesBound(const ModelSpec &model, const ActivationConfig &config);

// Bytes of the logits PyTorch's pipelining keeps for one micro-batch on the last
// stage (pytorch/pytorch#159251): b × s × vocab / T values (vocab-parallel logits).
std::int64_t cachedOutputBytesPerMicrobatch(const ModelSpec &model, std::int64_t seqLen,
                                            std::int64_t microbatchSize, int tp, int bytesPerValue);
double cachedOutputBytesPerMicrobatchBound(const ModelSpec &model, std::int64_t seqLen,
                                           std::int64_t microbatchSize, int tp, int bytesPerValue);

// Micro-batches whose logits the last stage holds at once with cache_outputs: under a pipeline
// schedule every one it runs (pytorch/pytorch#159251; DualPipe's end stages half each,
// `passedShare`); with one stage the training loop holds only the micro-batch in hand, until its
// loss (torchtitan trainer.py, forward_backward_step: del pred before loss.backward()).
double cachedMicrobatches(const Scenario &scenario, double passedShare);

// The cross-entropy loss's own buffers on the stage that computes it, in bytes per logit value
// (b × s/C × V/T a micro-batch and loss; docs/activations.md, "The loss"): what one
// micro-batch's loss keeps from its forward to its backward, and the most it holds at once,
// which is in its backward. The 16-bit logits themselves count here only where nothing else
// keeps them (cache_outputs off).
struct LossBuffers
{
    int held = 0;
    int peak = 0;
};
LossBuffers lossBuffersPerLogit(const Scenario &scenario, int bytesPerValue);

// The most bytes the loss's buffers take on a stage that computes `losses` losses a
// micro-batch (the model's and its multi-token-prediction depths'), `heldMicrobatches` of
// whose micro-batches wait between their loss and its backward at once (heldLosses): the
// others' held buffers and this one's peak in its first loss's backward, the rest of its
// losses still held. Zero outside training or without an LM head on the stage.
std::int64_t lossBufferBytes(const Scenario &scenario, const ModelSpec &model, int losses,
                             int heldMicrobatches, int bytesPerValue);
double lossBufferBytesBound(const Scenario &scenario, const ModelSpec &model, int losses,
                            int heldMicrobatches, int bytesPerValue);

// Inference: the working set of the prefill on one device of a stage, for one micro-batch of
// b prompts of s tokens (docs/inference.md, "Memory"): the residual stream and the widest
// pair of one layer's tensors, and on the last stage the larger of that and the final hidden
// states with the last positions' logits (vocab-parallel, and gathered in FP32).
std::int64_t prefillBufferBytes(const ModelSpec &model, bool hasLayers, bool lastStage,
                                std::int64_t seqLen, std::int64_t microbatchSize, int tp,
                                int bytesPerValue);
double prefillBufferBytesBound(const ModelSpec &model, bool hasLayers, bool lastStage,
                               std::int64_t seqLen, std::int64_t microbatchSize, int tp,
                               int bytesPerValue);

// KV cache of `layers` layers on one device (docs/DESIGN.md §3.7): K and V for every
// token of every sequence in flight, KV heads split over T (one each when T > kv_heads);
// `slidingLayers` of them keep the last sliding_window tokens only (docs/inference.md).
std::int64_t kvCacheBytes(const ModelSpec &model, int layers, std::int64_t seqLen,
                          std::int64_t sequences, int tp, int bytesPerValue, int slidingLayers = 0);
double kvCacheBytesBound(const ModelSpec &model, int layers, std::int64_t seqLen,
                         std::int64_t sequences, int tp, int bytesPerValue, int slidingLayers = 0);

// The keys one query attends to on average over a causal sequence of s tokens, through a
// window of w (0: none): s / 2 without, w - w^2 / 2s within s (Beltagy et al. 2020,
// "Longformer", §3.1: O(s·w) work).
double causalKeysPerQuery(double s, double w);

// KV heads one device keeps: split by T, one replicated head when T exceeds them.
std::int64_t kvHeadsPerDevice(const ModelSpec &model, int tp);

} // namespace core
