#pragma once

// The per-operation step-time model (docs/step_time.md): every operation of a transformer
// layer, and the work around the layers, timed from its own FLOPs and bytes on the device.
#include "core/comm_cost.h"
#include "core/device.h"
#include "core/framework.h"
#include "core/model.h"
#include "core/scenario.h"
#include "core/step_time.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// How fast one device does each kind of work, for one compute precision.
struct DeviceRates
{
    double peakFlops = 0;      // dense peak at the compute precision, FLOP/s
    double matmulFlops = 0;    // the largest matrix multiply's rate: peak × matmul efficiency
    double attentionFlops = 0; // fused attention's rate: peak × attention efficiency
    double attentionBackwardFlops = 0; // its backward's: peak × attention backward efficiency
    double flash2Flops = 0;            // FlashAttention-2's forward: peak × flash2 efficiency
    double flash2BackwardFlops = 0;    // and its backward's
    double flash3Flops = 0;            // FlashAttention-3's forward: peak × flash3 efficiency
    double flash3BackwardFlops = 0;    // and its backward's
    // The device's fused kernel's fixed work per block and the length its rates hold at
    // (DeviceSpec); 0: its rates at every length.
    double attentionBlockOverhead = 0;
    double attentionTokens = 0;
    // The fused kernel in FP8 over BF16, forward and backward (DeviceSpec); 0: not measured.
    double fp8AttentionSpeedup = 0;
    double fp8AttentionBackwardSpeedup = 0;
    // The head-width factors those rates took, forward and backward, for the kernel each names
    // (docs/step_time.md, "Head width"); 1 where the device gives no curve.
    struct WidthFactors
    {
        double forward = 1;
        double backward = 1;
    };
    WidthFactors fusedWidth, fp8Width, flash2Width, flash3Width;
    double memoryBytesPerS = 0; // achieved memory bandwidth; 0 when not published
    // The bandwidth chains of PyTorch's own kernels achieve: the loss, dropout, gradient adds
    // and, unfused, norms and activations (docs/step_time.md, "Device data").
    double eagerMemoryBytesPerS = 0;
    int computeUnits = 0; // SMs or CUs; 0: no wave quantization
    // A scenario `mfu`: every operation's FLOPs at peak × mfu, memory-bound work free, as
    // one fixed efficiency has always done; 0 for the per-operation model.
    double forcedMfu = 0;
    // FP8 or NVFP4: the layers' projections run narrow, each cast first; the LM head and the
    // router in 16 bits at these rates (the 16-bit peak and its matmul rate; equal to the
    // above otherwise).
    bool narrow = false;
    // Bytes one cast copy of a value takes: 1 in FP8; 0.5625 in NVFP4, 4 bits and an FP8 scale
    // for every 16 values.
    double castCopyBytes = 1;
    // NVFP4's casts: block-scaled 4-bit copies, a row-wise and a column-wise one a tensor.
    bool blockScaledFp4() const { return narrow && castCopyBytes < 1; }
    double halfPeakFlops = 0;
    double halfMatmulFlops = 0;
};

// The precision the multiplies run in: weight-only formats (INT8, INT4, q8_0, q4_0, and NVFP4
// on a device without an NVFP4 peak) store weights narrow and compute in BF16, or FP16 on a
// device without BF16.
// Training in NVFP4 multiplies in NVFP4 or not at all.
Precision computePrecision(Precision weights, const DeviceSpec &device, bool training = false);

// Nothing when the device has no peak at the compute precision. `headWidth`: the model's
// attention head width (the mean of its query/key and value head dimensions), which scales the
// fused kernel's rates by the device's head-width curves; 0: the rates as measured.
std::optional<DeviceRates> deviceRates(const DeviceSpec &device, Precision weights,
                                       std::optional<double> mfu, bool training = false,
                                       double headWidth = 0, bool blockScaled = false);

// Seconds of one M×K by K×N multiply (`batch` of them): its main loop, the larger of its
// FLOPs at the matmul rate (slowed by wave quantization) and its operands' `loadBytes` at the
// memory bandwidth, then its epilogue's `storeBytes` (the output written, and read too when
// it accumulates) at the memory bandwidth.
double matmulSeconds(const DeviceRates &rates, double m, double n, double k, double batch,
                     double loadBytes, double storeBytes);

// Seconds of memory-bound work moving `bytes`.
double memorySeconds(const DeviceRates &rates, double bytes);
// The same moved by a chain of PyTorch's own kernels.
double eagerMemorySeconds(const DeviceRates &rates, double bytes);

// One operation's cost for one micro-batch on one device.
struct OpCost
{
    double flops = 0;
    double bytes = 0; // memory traffic, or bytes on the wire for communication
    double seconds = 0;
};

// The operands' sizes: a batch of M×K by K×N multiplies, or (k = 0) a rows × columns tensor.
struct OpShape
{
    double m = 0;
    double n = 0;
    double k = 0;
    double batch = 1;
};

// "8192×1280×8192", "16 × (4096×4096×128)" or "4096×8192", as the reports write it.
std::string shapeText(const OpShape &shape);

// One row of the per-operation table (the Formulas panel shows it).
struct LayerOp
{
    std::string_view key;   // "qkv"
    std::string_view label; // "QKV projection"
    TimePart part = TimePart::matmul;
    OpShape shape;    // M×N×K for multiplies, rows × columns for the rest
    OpCost forward;   // F
    OpCost backward;  // B: input gradients (and all of it for non-matmuls)
    OpCost weight;    // W: weight gradients of a multiply
    double rerun = 0; // the share of its forward recomputed before the backward pass
    std::string_view source;
};

struct LayerConfig
{
    std::int64_t seqLen = 0;
    // Training on packed examples of this many tokens, each attending within itself: what a
    // fused attention kernel visits (Scenario::packedExampleTokens); 0: the whole sequence.
    std::int64_t packedExampleTokens = 0;
    std::int64_t microbatchSize = 1;
    // LoRA in training (Scenario::loraRank): the projections' weights frozen, with no weight
    // gradient; a rank-loraRank adapter beside each projection the LoraModule bits name. 0:
    // every weight trained.
    int loraRank = 0;
    unsigned loraModules = 0;
    bool loraA2a = false;         // Scenario::loraA2a
    bool loraDropout = false;     // Scenario::loraDropout above 0: each adapter drops values
    bool loraDropoutPost = false; // Scenario::loraDropoutPosition post: B's output, not A's input
    int tp = 1;
    bool sequenceParallel = false;
    bool training = true;
    Recompute recompute = Recompute::none;
    // Under selective recomputation, the RecomputeModule bits it reruns.
    unsigned recomputeModules = kRecomputeCoreAttn;
    Attention attention = Attention::flash;
    int activationBytes = 2;  // bytes per activation value
    double weightBytes = 2;   // bytes per stored weight (0.5 for INT4)
    int commBytes = 2;        // bytes per value on the tensor-parallel wire
    bool fp8AmaxPass = false; // FP8 current scaling: each cast first reads its tensor for the max
    // The fused attention kernel in FP8 (fp8_attention), at the device's measured FP8-over-BF16
    // rates where it has them.
    bool fp8Attention = false;
    // The LM head's multiplies in FP8 with their casts (fp8_lm_head), in training.
    bool fp8LmHead = false;
    LossFusion lossFusion = LossFusion::none; // the cross-entropy loss's kernels (loss_fusion)
    bool fusedElementwise = true; // norms, RoPE and SwiGLU fused; false: PyTorch eager ops
    // The SwiGLU's 2f-wide input kept in FP8 (fp8_activation_input): cast after the forward,
    // back before the backward.
    bool fp8ActivationInput = false;
    Link tpLink;              // with its efficiency; unused when tp = 1
    bool tpOverlap = false;   // sequence parallelism's collectives hidden behind the projections
    bool tpOverlapQkv = true; // with tpOverlap, QKV's input gather too (Scenario::tpOverlapQkv)
    // Bytes per weight that adding one micro-batch's weight gradients into the accumulated
    // ones moves when the add is a pass of its own (read both, write the sum); 0 when the
    // weight-gradient multiply accumulates in place (fused_grad_accumulation).
    double gradAccumulationBytes = 0;
    // Bytes per layer weight that casting the weights for FP8 or NVFP4 multiplies moves each
    // micro-batch, in its forward and in its backward: Transformer Engine without its weight
    // cache, or torchao's Float8Linear (docs/step_time.md, "Weight casts"); 0 where the cast
    // copies are kept all step, cast once a step and not timed.
    double weightCastForwardBytes = 0;
    // Training keeps each FP8 multiply's input in 16 bits and casts it again in the backward
    // (Scenario::saveQuantizedInputs off: torchao's Float8Linear).
    bool recastInputs = false;
    double weightCastBackwardBytes = 0;
    // Bytes per weight-gradient value the weight-gradient multiply's epilogue moves: with
    // the fused accumulation it reads and writes the accumulated gradient (Megatron-LM
    // main_grad: 2 × its bytes); otherwise it writes its own (0: the activation's bytes).
    double weightGradStoreBytes = 0;
    int cp = 1;  // context parallelism: s / C of each sequence on a device
    Link cpLink; // the T x C ranks of a sequence; unused when cp = 1
    // The share of the device a collective's kernels hold while hidden behind a pass, which
    // that pass loses (docs/step_time.md, "What hiding costs"); 0: hiding is free.
    double collectiveShare = 0;
    CpExchange cpExchange = CpExchange::ring;
    bool moe = false; // the layer's MLP is a mixture of experts (docs/experts.md)
    int ep = 1;       // experts spread over E devices
    int expertTp = 1; // each expert split over this many
    // Routed copies an expert takes against its even share (core/activations.h, expertLoad).
    double expertLoad = 1;
    // Of them, the copies routed to the busiest rank, padding not counted (expertRoutedLoad).
    double expertRoutedLoad = 1;
    Link epLink;       // the E x expert T ranks of the all-to-all: the network when they span nodes
    Link epNodeLink;   // inside a node, when the all-to-all spans nodes
    int epPerNode = 1; // of the E ranks, those in one node (E when the all-to-all fits one)
    Link expertTpLink; // the expert T ranks
    // The flex dispatcher (EpDispatcher::flex): a token crosses the network once for each of
    // the other nodes its copies go to, epRemoteNodes of them on average (remoteNodes).
    bool epFlex = false;
    double epRemoteNodes = 0;
};

// Of one token's top-k copies, the expected number of nodes other than its own that they
// go to, the E devices of the all-to-all `perNode` to a node and the routed experts in order
// over them: every node alike under uniform routing; with group-limited routing, only the
// token's groups' nodes, where the groups line up with whole nodes or nodes with whole
// groups (docs/experts.md, "Dispatchers").
double remoteNodes(const ModelSpec &model, int ep, int perNode);

// Tokens of one micro-batch on one device: b × s / C.
double localTokens(const LayerConfig &config);

// The tokens a query's causal attention spans: the sequence, or the packed example it is in
// (LayerConfig::packedExampleTokens).
double attentionSpan(const LayerConfig &config);

// The device's fused attention kernel's rate at this layout's sequence and context split,
// against its measured rate (1 without the device's block overhead and measured length).
// Through a sliding window of `window` tokens (0: none) each query tile visits the window's key
// tiles only.
double attentionShapeFactor(const DeviceRates &rates, const LayerConfig &config, double window = 0);

// Every operation of one transformer layer, and the sums the pipeline needs.
struct LayerTimes
{
    std::vector<LayerOp> ops;
    double forwardS = 0;     // F of one micro-batch
    double backwardS = 0;    // B (input gradients) of one micro-batch, without recomputation
    double weightS = 0;      // W (weight gradients)
    double recomputeS = 0;   // what recomputation reruns before B
    TimeBreakdown parts;     // F + B + W + recomputation of one micro-batch, by part
    int loraCollectives = 0; // the LoRA adapters' own collective calls, forward and backward
};

LayerTimes layerTimes(const ModelSpec &model, const LayerConfig &config, const DeviceRates &rates);

// The work around the layers for one micro-batch: the embedding on the first stage; the
// final norm, LM head and loss on the last.
struct EndTimes
{
    std::vector<LayerOp> ops;
    double forwardS = 0;
    double backwardS = 0;
    double weightS = 0;
};

EndTimes firstStageTimes(const ModelSpec &model, const LayerConfig &config,
                         const DeviceRates &rates);
EndTimes lastStageTimes(const ModelSpec &model, const LayerConfig &config,
                        const DeviceRates &rates);

// Multi-token prediction's `depths` on the last stage (docs/step_time.md, "Multi-token
// prediction"), added to `last` as one row a kind of work: each depth's two norms, eh_proj and
// its collectives, one `layer` (the last layer's kind), the `embedding`'s lookup and the
// `head`'s LM head and loss. Training only.
void addMultiTokenPrediction(EndTimes &last, const ModelSpec &model, const LayerConfig &config,
                             const DeviceRates &rates, const LayerTimes &layer,
                             const EndTimes &embedding, const EndTimes &head, int depths);

// What the optimizer step of a training scenario passes over (docs/step_time.md, "Optimizer").
struct OptimizerInput
{
    OptimizerStep step = OptimizerStep::megatron;
    int zero = 0;
    int optimizerBytes = 12; // per parameter: FP32 master weights (unless FP32 weights) and moments
    int gradBytes = 2;       // per gradient as accumulated
    double weightBytes = 2;  // per weight as held
    // Adam updates FP32 weights in place: FP32 training, or FP32 parameters the framework
    // casts for its multiplies (Report::fp32Parameters).
    bool fp32Weights = false;
    bool lossScaled = false; // FP16: gradients carry the dynamic loss scale
};

// Bytes the optimizer step reads and writes, pass by pass (OptimizerTraffic, core/step_time.h).
OptimizerTraffic optimizerTraffic(const OptimizerInput &in);

} // namespace core
