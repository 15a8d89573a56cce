#include "core/op_model.h"

#include "core/activations.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <tuple>
#include <utility>

namespace core {

namespace {

// A dropout mask keeps one byte a value (PyTorch's native_dropout: a bool mask; Korthikanti
// et al. 2022, §4.1).
constexpr double kDropoutMaskBytes = 1;

// The thread-block tile a large multiply runs in, 256 × 128 outputs: one tile per SM at a
// time, so a wave is `computeUnits` tiles (NVIDIA, "Matrix Multiplication Background User's
// Guide", "Wave Quantization").
constexpr double kTileRows = 256;
constexpr double kTileCols = 128;

// Bytes per value an element-wise operation moves, forward and backward, with e bytes per
// activation (docs/step_time.md, "Fused and eager element-wise work").
struct PassBytes
{
    double forward = 0;
    double backward = 0;
};

// A norm: fused, it reads x and writes y, and backward reads x and dy and writes dx. Eager
// RMSNorm is Hugging Face Transformers' LlamaRMSNorm (and ATen's composite rms_norm): cast to
// FP32 (e + 4), square (8), mean (4), scale by the reciprocal root (8), cast back (4 + e),
// weight (2e); backward, autograd's formula for each of those in reverse: 6e + 44. PyTorch's
// LayerNorm is one kernel either way.
PassBytes normBytes(double e, bool fused, bool rms)
{
    if (fused || !rms)
        return {2 * e, 3 * e};
    return {4 * e + 28, 6 * e + 44};
}

// Rotary embedding of Q and K: fused, one read and one write; eager (Transformers'
// apply_rotary_pos_emb: q·cos + rotate_half(q)·sin) a multiply, a negated half, a
// concatenation, a multiply and an add, 10e forward, and their gradients 14e backward.
PassBytes ropeBytes(double e, bool fused)
{
    return fused ? PassBytes{2 * e, 2 * e} : PassBytes{10 * e, 14 * e};
}

// SwiGLU per f-wide value: fused, reads gate and up and writes the product, backward reads
// both and dy and writes two gradients (Shazeer 2020); eager, silu(gate) is written and read
// back before the multiply (5e), and backward adds the multiply's and silu's passes (9e).
PassBytes swigluBytes(double e, bool fused)
{
    return fused ? PassBytes{3 * e, 5 * e} : PassBytes{5 * e, 9 * e};
}

// fp8_activation_input: the 2f-wide input cast to FP8 after the forward (read 2e, write 2) and
// back before the backward (read 2, write 2e), per f-wide value (Megatron-core
// fused_bias_swiglu.py, BiasSwiGLUFunction: input.to(torch.float8_e4m3fn), .to(dtype)).
PassBytes withFp8InputStore(PassBytes swiglu, double e, bool store)
{
    if (store) {
        swiglu.forward += 2 * (e + 1);
        swiglu.backward += 2 * (1 + e);
    }
    return swiglu;
}

OpShape dims(double m, double n, double k, double batch = 1)
{
    return {m, n, k, batch};
}

OpShape elements(double rows, double cols)
{
    return {rows, cols, 0, 1};
}

// A row of the table with its name, part and shape; costs and source follow.
LayerOp newOp(std::string_view key, std::string_view label, TimePart part, OpShape shape)
{
    LayerOp op;
    op.key = key;
    op.label = label;
    op.part = part;
    op.shape = shape;
    return op;
}

OpCost plus(OpCost a, const OpCost &b);

struct Builder
{
    const DeviceRates &rates;
    std::vector<LayerOp> ops;
    // The operation of that key added so far; null when the layer has none of that name.
    const LayerOp *find(std::string_view key) const
    {
        const auto found =
            std::find_if(ops.begin(), ops.end(), [key](const LayerOp &o) { return o.key == key; });
        return found == ops.end() ? nullptr : &*found;
    }
    // Values the FP8 projections so far cast before their multiplies: inputs (forward) and
    // output gradients (backward); see addFp8Casts.
    double fp8Inputs = 0;
    double fp8OutputGradients = 0;

    // Bytes per weight-gradient value the W multiply's epilogue moves: its own gradient
    // written, or, accumulating in place, the accumulated gradient read and written.
    double weightGradStore = 0;
    // Of fp8Inputs, the values of multiplies recomputation reruns, cast again.
    double fp8RerunInputs = 0;
    // Multiplies counted so far in forward order, for per-op checkpointing.
    int multiplies = 0;
    // LoRA: the projections' weights are frozen and take no weight-gradient multiply.
    bool frozen = false;

    // torchtitan's per-op checkpointing keeps every odd multiply's output in forward order and
    // reruns every even one (torchtitan/distributed/activation_checkpoint.py, SelectiveAC:
    // "recomputes every second matmul"). A projection runs one multiply per output width
    // given (Q, K and V; gate and up); the share of its work rerun.
    double everySecondRerun(std::initializer_list<double> widths)
    {
        double rerun = 0, all = 0;
        for (const double width : widths) {
            ++multiplies;
            all += width;
            if (multiplies % 2 == 0)
                rerun += width;
        }
        return all > 0 ? rerun / all : 0;
    }
    // The share of a projection's forward that `recompute` reruns, its multiplies' output
    // widths given in forward order.
    double rerunOf(Recompute recompute, std::initializer_list<double> widths)
    {
        if (recompute == Recompute::full)
            return 1;
        return recompute == Recompute::op ? everySecondRerun(widths) : 0;
    }

    OpCost matmul(double m, double n, double k, double batch, double weightBytes, int actBytes,
                  double storePerOutput = 0)
    {
        // A (m×k activations) × B (k×n weights) = C (m×n activations), each read or written once.
        const double loads = batch * (m * k * actBytes + k * n * weightBytes);
        const double bytes = loads + batch * m * n * actBytes;
        const double store = batch * m * n * (storePerOutput > 0 ? storePerOutput : actBytes);
        return {2 * m * n * k * batch, bytes, matmulSeconds(rates, m, n, k, batch, loads, store)};
    }
    OpCost memory(double bytes) { return {0, bytes, memorySeconds(rates, bytes)}; }
    // Bytes a chain of PyTorch's own kernels moves, at the bandwidth those reach.
    OpCost eagerMemory(double bytes) { return {0, bytes, eagerMemorySeconds(rates, bytes)}; }

    // A projection of `tokens` rows from k to n columns: forward C = A·B, backward dA = dC·Bᵀ
    // (tokens×k×n) and dB = Aᵀ·dC (k×n×tokens), the same FLOPs each (Narayanan et al. 2021,
    // §5.1: backward = 2 × forward).
    // `batch` such multiplies at once, each with its own weights: the experts' grouped GEMM.
    void projection(std::string_view key, std::string_view label, double tokens, double n, double k,
                    double weightBytes, int actBytes, double rerun, double batch = 1)
    {
        LayerOp op = newOp(key, label, TimePart::matmul, dims(tokens, n, k, batch));
        op.forward = matmul(tokens, n, k, batch, weightBytes, actBytes);
        op.backward = matmul(tokens, k, n, batch, weightBytes, actBytes);
        if (!frozen)
            op.weight = matmul(k, n, tokens, batch, actBytes, actBytes, weightGradStore);
        op.rerun = rerun;
        op.source = frozen ? "Narayanan et al. 2021, §5.1: 2·m·n·k FLOPs forward, the same "
                             "backward for the input gradient; frozen, no weight gradient"
                           : "Narayanan et al. 2021, §5.1: 2·m·n·k FLOPs forward, twice that "
                             "backward";
        ops.push_back(std::move(op));
        if (rates.narrow) {
            fp8Inputs += batch * tokens * k;
            fp8RerunInputs += rerun * batch * tokens * k;
            fp8OutputGradients += batch * tokens * n;
        }
    }
    // A projection that stays in 16 bits when the layers' multiplies run in FP8: its own
    // rates, the 16-bit peak and matmul rate, and 16-bit weights.
    void sixteenBitProjection(std::string_view key, std::string_view label, double tokens, double n,
                              double k, double weightBytes, int actBytes, double rerun)
    {
        if (!rates.narrow) {
            projection(key, label, tokens, n, k, weightBytes, actBytes, rerun);
            return;
        }
        Builder own{sixteenBit(), {}};
        own.weightGradStore = weightGradStore;
        own.frozen = frozen;
        own.projection(key, label, tokens, n, k, actBytes, actBytes, rerun);
        ops.push_back(std::move(own.ops.front()));
    }
    // The rates of 16-bit multiplies: the 16-bit peak and matmul rate, nothing to cast.
    DeviceRates sixteenBit() const
    {
        DeviceRates sixteen = rates;
        if (rates.narrow) {
            sixteen.narrow = false;
            sixteen.peakFlops = rates.halfPeakFlops;
            sixteen.matmulFlops = rates.halfMatmulFlops;
        }
        return sixteen;
    }
    // A rank-`rank` LoRA adapter beside a projection of `tokens` rows from k to n columns on
    // this device (`batch` of them, one an expert), after it in forward order (Hu et al. 2021,
    // §4.1: h = W0·x + (α/r)·B·A·x). Megatron-Bridge's adapters are Megatron-core linears, so
    // they multiply in 16 bits whatever the projection runs in (src/megatron/bridge/peft/
    // utils.py, ParallelLinearAdapter). Beside a projection that splits its outputs over T
    // (`column`: QKV, fc1) A's r outputs are split and gathered and B's outputs split as the
    // projection's; beside one that splits its inputs (proj, fc2) A takes the device's inputs
    // and B's outputs are split and gathered. Forward: x·A, then ·B, the product scaled by α/r
    // (read, write) and added to the projection's output (read both, write); backward: both
    // multiplies' input gradients, the scale's (read, write) and x's gradient added to the
    // projection's (read both, write); their weight gradients as W.
    //
    // `droppedValues`: the values the adapter's dropout zeroes (loraDroppedValues), 0 without
    // one (Scenario::loraDropout): PyTorch's native_dropout reads them and writes its output and
    // a one-byte mask; backward reads the gradient and the mask and writes the gradient through,
    // both PyTorch's own kernels (Megatron-Bridge peft/utils.py, ParallelLinearAdapter.forward:
    // nn.Dropout on x before linear_in, or on B's output; NeMo AutoModel _peft/lora.py,
    // F.dropout likewise).
    void loraAdapter(std::string_view key, std::string_view label, double tokens, double n,
                     double k, double rank, int tp, bool column, int actBytes, double rerun,
                     double batch, double droppedValues)
    {
        const double rIn = column ? rank / tp : rank; // A's outputs on this device
        const double nOut = column ? n : n / tp;      // B's outputs on this device
        Builder own{sixteenBit(), {}};
        LayerOp op = newOp(key, label, TimePart::matmul, dims(tokens, rank, k, batch));
        const double e = actBytes;
        op.forward = plus(plus(own.matmul(tokens, rIn, k, batch, e, actBytes),
                               own.matmul(tokens, nOut, rank, batch, e, actBytes)),
                          memory(batch * tokens * n * 5 * e));
        op.backward = plus(plus(own.matmul(tokens, rank, nOut, batch, e, actBytes),
                                own.matmul(tokens, k, rIn, batch, e, actBytes)),
                           memory(batch * tokens * (2 * n + 3 * k) * e));
        op.weight = plus(own.matmul(rank, nOut, tokens, batch, actBytes, actBytes),
                         own.matmul(k, rIn, tokens, batch, actBytes, actBytes));
        if (droppedValues > 0) {
            const double dropout = batch * droppedValues * (2 * e + kDropoutMaskBytes);
            op.forward = plus(op.forward, eagerMemory(dropout));
            op.backward = plus(op.backward, eagerMemory(dropout));
        }
        op.rerun = rerun;
        op.source = "Hu et al. 2021 (LoRA), §4.1: x·A·B beside W0·x, scaled by α/r and added; "
                    "16-bit multiplies as Megatron-Bridge's adapters run";
        ops.push_back(std::move(op));
    }
    // `eager`: PyTorch's own kernels run it, at their bandwidth rather than a fused kernel's.
    void memoryOp(std::string_view key, std::string_view label, double rows, double cols,
                  double forwardBytes, double backwardBytes, double rerun, std::string_view source,
                  bool eager = false)
    {
        LayerOp op = newOp(key, label, TimePart::memoryBound, elements(rows, cols));
        op.forward = eager ? eagerMemory(forwardBytes) : memory(forwardBytes);
        op.backward = eager ? eagerMemory(backwardBytes) : memory(backwardBytes);
        op.rerun = rerun;
        op.source = source;
        ops.push_back(std::move(op));
    }
};

// Beside a projection that splits its outputs (QKV, fc1, a shared expert's fc1), under sequence
// parallelism, the adapter gathers its input itself, so it arrives as the device's 1/T of the
// tokens: beside the layer-norm-fused QKV and fc1 only under tp_overlap (and beside QKV not
// with tp_overlap_qkv off), as Transformer Engine otherwise hands over the gathered norm
// output (Megatron-Bridge peft/utils.py, get_adapter_attributes_from_linear:
// return_layernorm_output_gathered unless ub_overlap_ag); beside a shared expert's fc1,
// which no norm is fused into, always. `normFused`: the projection is QKV or a dense fc1.
bool adapterGathersInput(const LayerConfig &c, std::string_view key, bool normFused)
{
    return c.sequenceParallel && c.tp > 1 &&
           (!normFused || (c.tpOverlap && (key != "qkv_lora" || c.tpOverlapQkv)));
}

// The values a LoRA adapter's dropout zeroes on this device for a micro-batch of `rows` tokens,
// beside a projection of k inputs and n outputs here (n whole beside proj and fc2, whose B
// gathers its outputs): before A ("pre"), the input as it arrives, 1/T of the tokens where the
// adapter gathers it itself (adapterGathersInput); after B ("post"), B's output as it joins the
// projection's, split along the sequence again beside proj and fc2 under sequence parallelism
// (ParallelLinearAdapter.forward: the dropout after scatter_to_sequence_parallel_region).
// Routed experts' adapters have no sequence-parallel exchange of their own.
double loraDroppedValues(const LayerConfig &c, std::string_view key, bool column, bool normFused,
                         double rows, double n, double k)
{
    if (!c.loraDropout)
        return 0;
    const bool expert = key.starts_with("expert_");
    if (!c.loraDropoutPost)
        return (column && !expert && adapterGathersInput(c, key, normFused) ? rows / c.tp : rows) *
               k;
    const bool split = !column && !expert && c.sequenceParallel && c.tp > 1;
    return (split ? rows / c.tp : rows) * n;
}

// A link with no published bandwidth times nothing; the caller reports the step untimed.
OpCost collective(Collective kind, double payload, int n, const Link &link, int times)
{
    const auto bytes = static_cast<std::int64_t>(payload);
    const double seconds = link.gbPerS > 0 ? collectiveSeconds(kind, bytes, n, link) : 0.0;
    return {0, times * wireBytesPerDevice(kind, bytes, n), times * seconds};
}

OpCost plus(OpCost a, const OpCost &b)
{
    a.flops += b.flops;
    a.bytes += b.bytes;
    a.seconds += b.seconds;
    return a;
}

void sum(LayerTimes &t)
{
    for (const LayerOp &op : t.ops) {
        t.forwardS += op.forward.seconds;
        t.backwardS += op.backward.seconds;
        t.weightS += op.weight.seconds;
        t.parts[op.part] += op.forward.seconds + op.backward.seconds + op.weight.seconds;
        t.recomputeS += op.rerun * op.forward.seconds;
        t.parts[TimePart::recompute] += op.rerun * op.forward.seconds;
    }
}

} // namespace

std::string shapeText(const OpShape &shape)
{
    char buffer[96];
    if (shape.k == 0)
        std::snprintf(buffer, sizeof buffer, "%.0f×%.0f", shape.m, shape.n);
    else if (shape.batch > 1)
        std::snprintf(buffer, sizeof buffer, "%.0f × (%.0f×%.0f×%.0f)", shape.batch, shape.m,
                      shape.n, shape.k);
    else
        std::snprintf(buffer, sizeof buffer, "%.0f×%.0f×%.0f", shape.m, shape.n, shape.k);
    return buffer;
}

Precision computePrecision(Precision weights, const DeviceSpec &device, bool training)
{
    switch (weights) {
    case Precision::nvfp4:
        // NVFP4 multiplies where the tensor cores take it (Blackwell); elsewhere its weights
        // are dequantized as the weight-only formats' are (vLLM's FP4 Marlin kernels on Hopper).
        if (training || device.tflops.contains(Precision::nvfp4))
            return weights;
        [[fallthrough]];
    case Precision::int8:
    case Precision::int4:
    case Precision::q8_0:
    case Precision::q4_0:
        // Weight-only quantization dequantizes to 16 bits and multiplies there (Frantar et
        // al. 2023, "GPTQ", §5; Lin et al. 2024, "AWQ", §3).
        return device.tflops.contains(Precision::bf16) ? Precision::bf16 : Precision::fp16;
    default:
        return weights;
    }
}

std::optional<DeviceRates> deviceRates(const DeviceSpec &device, Precision weights,
                                       std::optional<double> mfu, bool training, double headWidth,
                                       bool blockScaled)
{
    const Precision compute = computePrecision(weights, device, training);
    const auto peak = device.tflops.find(compute);
    if (peak == device.tflops.end())
        return std::nullopt;
    DeviceRates r;
    r.peakFlops = peak->second * 1e12;
    // FP8 and NVFP4 multiplies reach a smaller fraction of their doubled peaks
    // (docs/step_time.md, "Device data").
    const bool narrow = compute == Precision::fp8 || compute == Precision::nvfp4;
    r.matmulFlops =
        r.peakFlops * (compute == Precision::fp8 && blockScaled
                           // Block-scaled FP8 (MXFP8) multiplies' own fraction: Transformer
                           // Engine's GEMM profiling guide measured them 5.1 % slower than
                           // per-tensor ones on a B300 (docs/step_time.md, "FP8 scaling").
                           ? device.fp8BlockMatmulEfficiencyOrDefault()
                           : compute == Precision::fp8     ? device.fp8MatmulEfficiencyOrDefault()
                             : compute == Precision::nvfp4 ? device.nvfp4MatmulEfficiencyOrDefault()
                                                           : device.matmulEfficiencyOrDefault());
    // Fused attention runs in 16 bits whatever the multiplies do (FP8 training keeps BF16
    // attention: NVIDIA Transformer Engine, "Using FP8"); its own efficiency of that peak.
    const auto half = device.tflops.find(Precision::bf16) != device.tflops.end()
                          ? device.tflops.find(Precision::bf16)
                          : device.tflops.find(Precision::fp16);
    const double attentionPeak =
        narrow && half != device.tflops.end() ? half->second * 1e12 : r.peakFlops;
    r.attentionFlops = attentionPeak * device.attentionEfficiencyOrDefault();
    r.attentionBackwardFlops = attentionPeak * device.attentionBackwardEfficiencyOrDefault();
    r.flash2Flops = attentionPeak * device.flash2EfficiencyOrDefault();
    r.flash2BackwardFlops = attentionPeak * device.flash2BackwardEfficiencyOrDefault();
    r.flash3Flops = attentionPeak * device.flash3EfficiencyOrDefault();
    r.flash3BackwardFlops = attentionPeak * device.flash3BackwardEfficiencyOrDefault();
    r.attentionBlockOverhead = device.attentionBlockOverhead;
    r.attentionTokens = device.attentionTokens;
    r.fp8AttentionSpeedup = device.fp8AttentionSpeedup;
    r.fp8AttentionBackwardSpeedup = device.fp8AttentionBackwardSpeedup;
    if (headWidth > 0 && !device.attentionHeadWidths.empty()) {
        // The fused kernel at the model's head width: a tile's multiplies grow with it and its
        // softmax does not (Shah et al. 2024, "FlashAttention-3", Figures 5 and 6: cuDNN at head
        // dimension 64 runs 0.70 and 0.84 of its rate at 128; docs/step_time.md, "Head width").
        const HeadWidthScale &w = device.attentionHeadWidths;
        const double forward = curveAt(w.forward, headWidth);
        const double backward = curveAt(w.backward, headWidth);
        r.attentionFlops *= forward;
        r.attentionBackwardFlops *= backward;
        // FP8 keeps its measured speed-up over BF16 at the measured width; elsewhere its own
        // curve's factor over the 16-bit one's.
        r.fusedWidth = {forward, backward};
        r.fp8Width = {curveAt(w.fp8Forward.empty() ? w.forward : w.fp8Forward, headWidth),
                      curveAt(w.fp8Backward.empty() ? w.backward : w.fp8Backward, headWidth)};
        r.fp8AttentionSpeedup *= r.fp8Width.forward / forward;
        r.fp8AttentionBackwardSpeedup *= r.fp8Width.backward / backward;
        // FlashAttention-2 and -3 by their own curves; timed as the fused kernel where the
        // device gives them no rate, by its curves too.
        const auto kernel = [&](const WidthCurve &own, double efficiency, double fused) {
            return !own.empty() ? curveAt(own, headWidth) : efficiency > 0 ? 1.0 : fused;
        };
        r.flash2Width = {kernel(w.flash2Forward, device.flash2Efficiency, forward),
                         kernel(w.flash2Backward,
                                device.flash2BackwardEfficiency + device.flash2Efficiency,
                                backward)};
        r.flash3Width = {kernel(w.flash3Forward, device.flash3Efficiency, forward),
                         kernel(w.flash3Backward,
                                device.flash3BackwardEfficiency + device.flash3Efficiency,
                                backward)};
        r.flash2Flops *= r.flash2Width.forward;
        r.flash2BackwardFlops *= r.flash2Width.backward;
        r.flash3Flops *= r.flash3Width.forward;
        r.flash3BackwardFlops *= r.flash3Width.backward;
    }
    r.narrow = narrow;
    r.castCopyBytes = bitsPerValue(compute) / 8;
    r.halfPeakFlops = attentionPeak;
    r.halfMatmulFlops = attentionPeak * device.matmulEfficiencyOrDefault();
    r.memoryBytesPerS = device.hbmGbPerS * 1e9 * device.memoryEfficiencyOrDefault();
    r.eagerMemoryBytesPerS = device.hbmGbPerS * 1e9 * device.eagerMemoryEfficiencyOrDefault();
    r.computeUnits = device.computeUnits;
    r.forcedMfu = mfu.value_or(0.0);
    return r;
}

double matmulSeconds(const DeviceRates &rates, double m, double n, double k, double batch,
                     double loadBytes, double storeBytes)
{
    const double flops = 2 * m * n * k * batch;
    if (rates.forcedMfu > 0)
        return flops / (rates.peakFlops * rates.forcedMfu);
    // Tile and wave quantization (NVIDIA, "Matrix Multiplication Background User's Guide"):
    // an edge tile computes its whole 256 × 128 outputs however few are in the matrix, and
    // tiles run in waves of one per compute unit, a last partial wave as long as a full one.
    double utilisation = 1;
    if (rates.computeUnits > 0) {
        const auto waveUse = [&](double rows, double cols) {
            const double tiles = batch * std::ceil(m / rows) * std::ceil(n / cols);
            const double waves = std::ceil(tiles / rates.computeUnits);
            return batch * m * n / (waves * rates.computeUnits * rows * cols);
        };
        utilisation = std::max(waveUse(kTileRows, kTileCols), waveUse(kTileCols, kTileRows));
    }
    const double compute = flops / (rates.matmulFlops * utilisation);
    if (!(rates.memoryBytesPerS > 0))
        return compute;
    // Roofline (Williams et al. 2009): the main loop is never faster than its operands' loads.
    const double mainLoop = std::max(compute, loadBytes / rates.memoryBytesPerS);
    // The epilogue stores each output tile after its main loop, every SM at once, so the
    // store adds to the multiply instead of hiding behind it: time = a + b·K at fixed M×N
    // (tile-ai/tilelang, benchmark/matmul_fp8/README.md: 8192² outputs on an H800, K = 256
    // to 16,384, an intercept of about the outputs' store at the memory bandwidth).
    return mainLoop + storeBytes / rates.memoryBytesPerS;
}

double memorySeconds(const DeviceRates &rates, double bytes)
{
    if (rates.forcedMfu > 0 || !(rates.memoryBytesPerS > 0))
        return 0;
    return bytes / rates.memoryBytesPerS;
}

double eagerMemorySeconds(const DeviceRates &rates, double bytes)
{
    if (rates.forcedMfu > 0 || !(rates.eagerMemoryBytesPerS > 0))
        return 0;
    return bytes / rates.eagerMemoryBytesPerS;
}

// Megatron-LM before its gradient-accumulation fusion (2022) and PyTorch autograd's
// AccumulateGrad add each micro-batch's weight gradients into the accumulated ones in a pass
// of their own: read the sum and the new gradients, write the sum, for every weight the
// device holds (Megatron-LM v2.5, megatron/model/distributed.py, main_grad.add_; PyTorch,
// torch/csrc/autograd/functions/accumulate_grad.h). Part of the weight-gradient pass.
void addGradAccumulation(Builder &b, double weights, const LayerConfig &c)
{
    LayerOp op = newOp("grad_accumulation", "gradient accumulation", TimePart::memoryBound,
                       elements(weights, 1));
    op.weight = b.eagerMemory(weights * c.gradAccumulationBytes);
    op.source = "a separate add of each micro-batch's weight gradients: read both, write the sum";
    b.ops.push_back(std::move(op));
}

// The weights cast for the FP8 or NVFP4 multiplies each micro-batch (LayerConfig::
// weightCastForwardBytes; docs/step_time.md, "Weight casts"), at memory bandwidth: the casts of
// a forward that full recomputation reruns run again with it.
void addWeightCasts(Builder &b, double weights, const LayerConfig &c)
{
    LayerOp op = newOp("weight_cast", "weight casts", TimePart::memoryBound, elements(weights, 1));
    op.forward = b.memory(weights * c.weightCastForwardBytes);
    op.backward = b.memory(weights * c.weightCastBackwardBytes);
    op.rerun = c.recompute == Recompute::full ? 1 : 0;
    op.source = "each micro-batch's casts of the layer's weights: Transformer Engine without its "
                "weight cache, or torchao's Float8Linear";
    b.ops.push_back(std::move(op));
}

namespace {

// A fused attention kernel's work for one head, in tiles of 128 queries × 128 keys: one block a
// query tile, looping over the key tiles it attends to (Dao 2023, "FlashAttention-2", §3.1-3.2;
// the backward the same way round a key tile).
struct AttentionTiles
{
    double useful = 0;   // tiles of unmasked scores
    double computed = 0; // tiles the loops visit: a causal diagonal tile whole
    double blocks = 0;
};

constexpr double kAttentionTile = 128;

AttentionTiles causalTiles(double tiles)
{
    return {tiles * tiles / 2, tiles * (tiles + 1) / 2, tiles};
}

// The kernels a device runs for its part of one sequence's heads.
AttentionTiles attentionTiles(double seqLen, int cp, CpExchange exchange)
{
    const double n = seqLen / kAttentionTile;
    // Whole sequences (DeepSpeed-Ulysses passes heads, not tokens).
    if (cp <= 1 || exchange == CpExchange::alltoall)
        return causalTiles(n);
    // Megatron-LM's load-balanced ring (Transformer Engine, AttnFuncWithCPAndKVP2P), and
    // PyTorch's context parallelism (torchtitan) whichever way its keys rotate, all-gather
    // included (torch.distributed.tensor.experimental._context_parallel: one kernel a chunk
    // in _templated_ring_attention, head-tail load balancing): 2C chunks of l tiles, a device
    // holding chunks r and 2C - 1 - r; the first step is causal over its own two, each of the
    // C - 1 others full over one chunk of the keys (2l query blocks) or of the queries (l), on
    // half of the devices each.
    const double l = n / (2 * cp);
    AttentionTiles t = causalTiles(2 * l);
    t.useful += (cp - 1) * 2 * l * l;
    t.computed += (cp - 1) * 2 * l * l;
    t.blocks += (cp - 1) * 1.5 * l;
    return t;
}

double attentionTileUse(const AttentionTiles &t, double blockOverhead)
{
    return t.useful / (t.computed + blockOverhead * t.blocks);
}

// A causal kernel through a sliding window of w tokens: query tile i visits key tiles
// i - w/128 to i, the first and last partly masked (FlashAttention-2's window_size; Beltagy et
// al. 2020, §3.1). Context parallelism splits the same work over C devices: the shares, not
// the tiles, set the rate.
AttentionTiles windowTiles(double seqLen, double window)
{
    const double n = seqLen / kAttentionTile;
    const double w = window / kAttentionTile;
    if (w >= n)
        return causalTiles(n);
    return {n * w - w * w / 2, w * (w + 1) / 2 + (n - w) * (w + 1), n};
}

} // namespace

double attentionSpan(const LayerConfig &c)
{
    const auto s = c.seqLen;
    return static_cast<double>(
        c.packedExampleTokens > 0 && c.packedExampleTokens < s ? c.packedExampleTokens : s);
}

// The fused kernel's rate at this layout against the one measured (docs/step_time.md,
// "Attention shapes"): each block pays a fixed prologue and epilogue, the causal diagonal is
// computed whole, so short key loops run below the measured length's efficiency.
double attentionShapeFactor(const DeviceRates &rates, const LayerConfig &c, double window)
{
    if (!(rates.attentionBlockOverhead > 0) || !(rates.attentionTokens > 0) || c.seqLen <= 0)
        return 1;
    const double measured = attentionTileUse(causalTiles(rates.attentionTokens / kAttentionTile),
                                             rates.attentionBlockOverhead);
    // Packed examples: each is a causal run of its own, its blocks looping over its keys
    // (Transformer Engine's THD format: one block per query tile of an example).
    const double s = attentionSpan(c);
    const AttentionTiles tiles =
        window > 0 && window < s ? windowTiles(s, window) : attentionTiles(s, c.cp, c.cpExchange);
    return attentionTileUse(tiles, rates.attentionBlockOverhead) / measured;
}

namespace {

// C(n, r) for the small counts of groups and nodes, as a double.
double choose(int n, int r)
{
    if (r < 0 || r > n)
        return 0;
    double out = 1;
    for (int i = 0; i < r; ++i)
        out = out * (n - i) / (i + 1);
    return out;
}

// The chance that k picks without replacement from `pool` experts all miss `held` of them:
// C(pool - held, k) / C(pool, k).
double allMiss(double pool, double held, int k)
{
    double p = 1;
    for (int i = 0; i < k; ++i) {
        const double left = pool - held - i;
        if (left <= 0)
            return 0;
        p *= left / (pool - i);
    }
    return p;
}

} // namespace

double remoteNodes(const ModelSpec &model, int ep, int perNode)
{
    const int n = std::max(1, perNode);
    const int nodes = (std::max(1, ep) + n - 1) / n;
    if (nodes <= 1 || !model.hasExperts())
        return 0;
    const double experts = model.experts;
    const int k = model.expertsPerToken;
    const int groups = model.routerGroups;
    const int limit = model.routerGroupLimit;
    const bool limited = groups > 0 && limit < groups;
    double hit = 0; // the chance that a given node gets at least one of the k copies
    if (limited && groups % nodes == 0) {
        // Megatron-core's group_limited_topk: the token's `limit` groups, then its k experts
        // among their experts. A node holds q whole groups, of which the token's hold j with
        // hypergeometric odds (DeepSeek-V3 Technical Report, §2.1.2: 8 groups on 8 nodes, 4).
        const int q = groups / nodes;
        const double groupExperts = experts / groups;
        for (int j = 1; j <= std::min(q, limit); ++j)
            hit += choose(q, j) * choose(groups - q, limit - j) / choose(groups, limit) *
                   (1 - allMiss(limit * groupExperts, j * groupExperts, k));
    } else if (limited && nodes % groups == 0) {
        // A group spans nodes / groups whole nodes: a node is hit only through its group.
        hit = static_cast<double>(limit) / groups *
              (1 - allMiss(limit * experts / groups, experts / nodes, k));
    } else {
        // Uniform routing over every expert (and group limits that cut across nodes).
        hit = 1 - allMiss(experts, experts / nodes, k);
    }
    return (nodes - 1) * hit;
}

double localTokens(const LayerConfig &c)
{
    return std::ceil(static_cast<double>(c.seqLen) / std::max(1, c.cp)) *
           static_cast<double>(c.microbatchSize);
}

namespace {

// A mixture-of-experts MLP on one device (docs/experts.md, "Time"): the router, shared
// experts, the all-to-all dispatch of every token's top-k copies, the local experts' grouped
// multiplies, and the combine back.
void addExperts(Builder &b, const ModelSpec &model, const LayerConfig &c, double tokens,
                double spTokens, double rerunAll)
{
    // Per-op checkpointing reruns the router (force_recompute_mm_shapes_by_fqns, its default
    // "moe.router.gate"), every second of the shared experts' multiplies and the grouped
    // expert multiplies and keeps what the all-to-alls return (docs/activations.md).
    const bool full = c.recompute == Recompute::full;
    // Selective recomputation's modules (docs/activations.md, "Recomputed modules"): moe
    // reruns the whole MoE layer, shared_experts the shared experts, moe_act the routed
    // experts' activation.
    const auto module = [&](unsigned m) {
        return c.recompute == Recompute::selective && (c.recomputeModules & m) != 0 ? 1.0 : 0.0;
    };
    const double wholeLayer = std::max(rerunAll, module(kRecomputeMoe));
    const auto rerunOf = [&](std::initializer_list<double> widths) {
        return std::max(wholeLayer, b.rerunOf(c.recompute, widths));
    };
    const double e = c.activationBytes;
    const double h = model.hidden;
    const double k = model.expertsPerToken;
    // Routed experts' adapters drop the copies they are dispatched; a shared expert's beside
    // fc1 gathers its input under sequence parallelism (loraDroppedValues).
    const auto adapt = [&b, &c](unsigned target, std::string_view key, std::string_view label,
                                double rows, double n, double width, bool column, double rerun,
                                int tp, double batch = 1) {
        if (!b.frozen || (c.loraModules & target) == 0)
            return;
        b.loraAdapter(key, label, rows, n, width, c.loraRank, tp, column, c.activationBytes, rerun,
                      batch, loraDroppedValues(c, key, column, false, rows, n, width));
    };
    // The router's gate stays in 16 bits under FP8 (Megatron-core moe/router.py,
    // router_gating_linear: not a Transformer Engine module).
    b.sixteenBitProjection("router", "router", spTokens, model.experts, h, c.weightBytes,
                           c.activationBytes, wholeLayer);
    if (model.sharedExperts > 0) {
        const double f = static_cast<double>(model.sharedExperts) * model.expertFfnHidden / c.tp;
        const double shared = module(kRecomputeSharedExperts);
        const double fc1Rerun = std::max(shared, model.gatedMlp ? rerunOf({f, f}) : rerunOf({f}));
        b.projection("shared_fc1", "shared experts' up projections", tokens,
                     (model.gatedMlp ? 2 : 1) * f, h, c.weightBytes, c.activationBytes, fc1Rerun);
        adapt(kLoraFc1, "shared_fc1_lora", "shared experts' up LoRA adapter", tokens,
              (model.gatedMlp ? 2 : 1) * f, h, true, fc1Rerun, c.tp);
        const double fc2Rerun = std::max(shared, rerunOf({h}));
        b.projection("shared_fc2", "shared experts' down projections", tokens, h, f, c.weightBytes,
                     c.activationBytes, fc2Rerun);
        adapt(kLoraFc2, "shared_fc2_lora", "shared experts' down LoRA adapter", tokens, h, f, false,
              fc2Rerun, c.tp);
    }
    // Megatron-core's all-to-all dispatcher: each device sends its s·b / (C·T) tokens' top-k
    // copies to the experts' owners and gathers them over expert T; a device computes
    // R = s·b/C · k · expert T / T copies, which the combine returns. Under a capacity factor
    // each expert takes its capacity, padded or dropped to it (docs/experts.md, "Capacity").
    const double sent = tokens / c.tp * k * c.expertLoad;
    const double received = tokens * k * c.expertTp / c.tp * c.expertLoad;
    {
        LayerOp op = newOp("dispatch", "all-to-all dispatch and combine", TimePart::expertComm,
                           elements(sent, h));
        // Each device keeps the copies for its own experts, 1/E of them, and sends the rest:
        // sent · h · bytes · (E − 1)/E each way (Lepikhin et al. 2021, "GShard", §2.2). Of
        // those, the copies for the E − n ranks outside its node leave through its own NIC
        // and the n − 1 inside go over NVLink at the same time (NCCL's all-to-all is a send
        // and a receive to every peer, each over its own path: NVIDIA/nccl, "Point-to-point
        // communication", all-to-all).
        const double perNode = std::clamp(c.epPerNode, 1, c.ep);
        double wire = sent * h * c.commBytes * (c.ep - 1) / c.ep;
        double offNode = sent * h * c.commBytes * (c.ep - perNode) / c.ep;
        double onNode = wire - offNode;
        if (c.epFlex && perNode < c.ep) {
            // The flex dispatcher (DeepEP, HybridEP; DeepSeek-V3 Technical Report, §3.2.2):
            // a token crosses the network once to each other node its experts are on, to the
            // device of its own local rank there, which passes the copies on over NVLink; the
            // combine adds them in the node and sends one back. Over NVLink go the copies for
            // the other devices of its own node and, of those arriving from other nodes, the
            // ones for another device than the receiver.
            // The busiest rank's node takes its load's share of them (docs/experts.md,
            // "Routing imbalance"), taken at the rank's own.
            offNode = tokens / c.tp * h * c.commBytes * c.epRemoteNodes * c.expertRoutedLoad;
            onNode = sent * h * c.commBytes *
                     ((perNode - 1) / c.ep + (c.ep - perNode) / c.ep * (perNode - 1) / perNode);
            wire = offNode + onNode;
        }
        const auto seconds = [](double bytes, const Link &link) {
            return bytes > 0 && link.gbPerS > 0 ? bytes / (link.gbPerS * kGB * link.efficiency)
                                                : 0.0;
        };
        const Link &nodeLink = offNode > 0 ? c.epNodeLink : c.epLink;
        const double a2a = c.ep > 1 && c.epLink.gbPerS > 0
                               ? messageLatencySeconds(c.epLink) +
                                     std::max(seconds(offNode, c.epLink), seconds(onNode, nodeLink))
                               : 0.0;
        OpCost one{0, c.ep > 1 ? wire : 0.0, a2a};
        OpCost both = plus(one, one); // dispatch and combine
        if (c.expertTp > 1) {
            // The copies gathered over expert T before the experts, reduce-scattered after.
            const double payload = received * h * c.commBytes;
            both =
                plus(both,
                     plus(collective(Collective::allGather, payload, c.expertTp, c.expertTpLink, 1),
                          collective(Collective::reduceScatter, payload, c.expertTp, c.expertTpLink,
                                     1)));
        }
        op.forward = both;
        op.backward = both; // the gradients travel the same way back
        op.rerun = full ? 1 : module(kRecomputeMoe);
        op.source = "Lepikhin et al. 2021 (GShard), §2.2: two all-to-alls per MoE layer each way";
        b.ops.push_back(std::move(op));
    }
    // Permute before the dispatch and unpermute after the combine: read and write each copy.
    b.memoryOp("permute", "token permutation", received, h, 4 * received * h * e,
               4 * received * h * e, wholeLayer,
               "gathers each token's copies into expert order and back, reading and writing h");
    const double local = std::ceil(static_cast<double>(model.experts) / c.ep);
    const double perExpert = received / local;
    const double f = static_cast<double>(model.expertFfnHidden) / c.expertTp;
    b.projection("expert_fc1", "experts' up projections", perExpert, (model.gatedMlp ? 2 : 1) * f,
                 h, c.weightBytes, c.activationBytes, wholeLayer, local);
    adapt(kLoraFc1, "expert_fc1_lora", "experts' up LoRA adapters", perExpert,
          (model.gatedMlp ? 2 : 1) * f, h, true, wholeLayer, c.expertTp, local);
    const PassBytes swiglu =
        withFp8InputStore(swigluBytes(e, c.fusedElementwise), e, c.fp8ActivationInput);
    const double act = std::max(wholeLayer, module(kRecomputeMoeAct));
    if (model.gatedMlp)
        b.memoryOp("expert_act", "experts' SwiGLU", received, f, swiglu.forward * received * f,
                   swiglu.backward * received * f, act,
                   "as the dense SwiGLU, over every routed copy");
    else
        b.memoryOp("expert_act", "experts' GeLU", received, f, 2 * received * f * e,
                   3 * received * f * e, act, "as the dense GeLU, over every routed copy");
    b.projection("expert_fc2", "experts' down projections", perExpert, h, f, c.weightBytes,
                 c.activationBytes, wholeLayer, local);
    adapt(kLoraFc2, "expert_fc2_lora", "experts' down LoRA adapters", perExpert, h, f, false,
          wholeLayer, c.expertTp, local);
}

// What a transfer overlapped with `window` of computation adds to the pass: the part that
// outlasts the window, and, for the part hidden, the share of the device its kernels hold
// (docs/step_time.md, "What hiding costs").
double shownOfHidden(double transfer, double window, double share)
{
    const double hidden = std::min(transfer, window);
    return transfer - hidden + hidden * share;
}

// How the C devices of a sequence exchange keys and values (docs/experts.md, "Context
// parallelism"), on the link of its T x C ranks; `kvWidth` values a token of K and V,
// `qkvoWidth` of Q, K, V and the output; only what outlasts the attention it overlaps shows.
LayerOp contextExchange(const LayerConfig &c, double tokens, double qkvoWidth, double kvWidth,
                        const OpCost &attentionForward, const OpCost &attentionBackward)
{
    LayerOp op = newOp("cp_exchange", "context-parallel exchange", TimePart::contextComm,
                       elements(tokens, kvWidth));
    const double block = tokens * kvWidth * c.commBytes; // this device's K and V
    const double steps = c.cp - 1;
    const double bandwidth = c.cpLink.gbPerS * kGB * c.cpLink.efficiency;
    const auto transfer = [&](double bytes, double messages) {
        return bandwidth > 0 ? messages * messageLatencySeconds(c.cpLink) + bytes / bandwidth : 0.0;
    };
    switch (c.cpExchange) {
    case CpExchange::ring: {
        // Ring attention (Liu et al. 2023, §3; Megatron-LM --cp-comm-type p2p): C − 1 steps
        // pass a K/V block to the neighbour behind the attention of the block in hand;
        // backward passes K, V and their gradients.
        const double hidden = steps / c.cp;
        op.forward = {0, steps * block,
                      shownOfHidden(transfer(steps * block, steps),
                                    hidden * attentionForward.seconds, c.collectiveShare)};
        op.backward = {0, 2 * steps * block,
                       shownOfHidden(transfer(2 * steps * block, 2 * steps),
                                     hidden * attentionBackward.seconds, c.collectiveShare)};
        op.source = "Liu et al. 2023 (Ring Attention), §3: C − 1 K/V blocks per pass, each "
                    "behind the attention of the block before";
        break;
    }
    case CpExchange::allgather: {
        // torchtitan's allgather rotation: every K/V shard gathered behind the first local
        // block's attention (1/C of it); backward gathers again and reduce-scatters dK, dV.
        const double gathered = block * c.cp; // the whole sequence's K and V
        const OpCost gather = collective(Collective::allGather, gathered, c.cp, c.cpLink, 1);
        const OpCost scatter = collective(Collective::reduceScatter, gathered, c.cp, c.cpLink, 1);
        op.forward = {
            0, gather.bytes,
            shownOfHidden(gather.seconds, attentionForward.seconds / c.cp, c.collectiveShare)};
        op.backward = {0, gather.bytes + scatter.bytes,
                       shownOfHidden(gather.seconds + scatter.seconds,
                                     attentionBackward.seconds / c.cp, c.collectiveShare)};
        op.source = "torchtitan context_parallel_rotate_method allgather: K and V gathered "
                    "once, behind the first local block";
        break;
    }
    case CpExchange::alltoall: {
        // DeepSpeed-Ulysses (Jacobs et al. 2023, §3.1): an all-to-all turns the sequence split
        // of Q, K and V into a head split before attention and one turns the output back;
        // backward mirrors both. A device keeps 1/C of what it holds and sends the rest.
        const double bytes = tokens * qkvoWidth * c.commBytes * steps / c.cp;
        op.forward = {0, bytes, transfer(bytes, 2)};
        op.backward = op.forward;
        op.source = "Jacobs et al. 2023 (DeepSpeed-Ulysses), §3.1: all-to-alls of Q, K, V "
                    "before attention and of the output after, not overlapped";
        break;
    }
    }
    return op;
}

// Transformer Engine's FP8 multiplies quantize their 16-bit operands first: each projection's
// input before the forward multiply, fused with the transpose the weight-gradient multiply
// reads (NVIDIA/TransformerEngine v1.9, pytorch/module/linear.py, fp8_cast_transpose_fused),
// and its output gradient before the backward ones, the same way (module/base.py,
// grad_output_preprocess). Each reads e bytes and writes two FP8 copies. Inference casts only
// the input, with no transpose (vLLM, quantization/utils/w8a8_utils.py, apply_fp8_linear:
// scaled_fp8_quant before the multiply). The weights' own casts are addWeightCasts' (once a step
// with Transformer Engine's cache, not timed); the
// projections that stay in 16 bits (Builder::sixteenBitProjection) cast nothing. NVFP4 casts
// the same tensors into row-wise and column-wise copies of 4-bit values and an FP8 scale per
// 16, each from the 16-bit tensor after a pass for its maximum, whose per-tensor scale the
// block scales sit under (NVIDIA/TransformerEngine v2.8, pytorch/csrc/quantizer.cpp,
// NVFP4Quantizer::quantize_impl without the Hadamard transform: nvte_compute_amax, then one
// kernel writing both copies).
void addFp8Casts(Builder &b, const LayerConfig &c)
{
    const double e = c.activationBytes;
    const bool nvfp4 = b.rates.blockScaledFp4();
    // A row-wise copy for the forward (and the input gradient), a column-wise one for the
    // weight gradient; a frozen projection (LoRA) takes none (Transformer Engine,
    // module/linear.py: columnwise usage only where backward_needs_input).
    const double written = (c.training && !b.frozen ? 2 : 1) * b.rates.castCopyBytes;
    // An input kept in 16 bits (save_quantized_inputs off: torchao's Float8Linear,
    // matmul_with_hp_or_float8_args) is cast for the forward's multiply alone, and again in the
    // backward, column-major, for the weight gradient.
    const bool recast = c.recastInputs && c.training && !b.frozen;
    const double inputWritten = recast ? b.rates.castCopyBytes : written;
    // Current scaling reads each tensor for its maximum before the cast reads it again
    // (NVIDIA/TransformerEngine, pytorch/csrc/quantizer.cpp, Float8CurrentScalingQuantizer:
    // nvte_compute_amax, then nvte_quantize); NVFP4 always does.
    const bool amaxPass = c.fp8AmaxPass || nvfp4;
    const double read = amaxPass ? 2 * e : e;
    // Shown as the micro-batch's tokens by the input widths cast, summed over the multiplies.
    const double tokens = localTokens(c);
    LayerOp op = newOp("fp8_cast", nvfp4 ? "NVFP4 casts" : "FP8 casts and transposes",
                       TimePart::memoryBound, elements(tokens, b.fp8Inputs / tokens));
    op.forward = b.memory(b.fp8Inputs * (read + inputWritten));
    if (c.training)
        op.backward = b.memory(b.fp8OutputGradients * (read + written) +
                               (recast ? b.fp8Inputs * (read + b.rates.castCopyBytes) : 0.0));
    // The casts of the multiplies recomputation reruns run again with them.
    op.rerun = b.fp8Inputs > 0 ? b.fp8RerunInputs / b.fp8Inputs : 0;
    op.source = nvfp4      ? "Transformer Engine, NVFP4: each multiply's input and output gradient "
                             "read for its maximum, then cast to row-wise and column-wise 4-bit "
                             "copies with an FP8 scale per 16 values (read 2e, write 1.125 bytes)"
                : amaxPass ? "Transformer Engine, current scaling: each FP8 multiply's input "
                             "and output gradient read for its maximum, then cast and "
                             "transposed (read 2e, write 2 bytes)"
                           : "Transformer Engine: each FP8 multiply's input and output "
                             "gradient cast and transposed (read e, write 2 bytes)";
    if (recast)
        op.source = "torchao's Float8Linear: each FP8 multiply's input cast for the forward alone "
                    "(one copy written), and again in the backward for the weight gradient; its "
                    "output gradient as Transformer Engine's";
    if (b.frozen)
        op.source = "Transformer Engine, frozen weights (LoRA): each multiply's input and output "
                    "gradient cast once, row-wise only, with no weight gradient to transpose "
                    "for (read e, or 2e with an amax pass; write one copy)";
    b.ops.push_back(std::move(op));
}

// The LoRA adapters' own tensor-parallel collectives (T > 1), after the adapters the layer
// holds. Megatron-Bridge's ParallelLinearAdapter (src/megatron/bridge/peft/utils.py) builds A
// and B as Megatron-core linears with sequence parallelism off inside, and the adapters run
// them synchronously, outside Transformer Engine's overlap. Beside a projection that splits
// its outputs (QKV, fc1: input_is_parallel false) A is column-parallel with its r outputs
// gathered (forward: all-gather of t·r) and B column-parallel on the replicated r (backward:
// all-reduce of its input's t·r gradient); A's input gradient is all-reduced over T (t·h)
// without sequence parallelism, and with it, where the adapter gathers its input itself, that
// gather (t·h) and its backward reduce-scatter: beside the layer-norm-fused QKV and fc1 only
// under --tp-comm-overlap, and beside QKV not with tp_comm_overlap_disable_qkv
// (get_adapter_attributes_from_linear: otherwise Transformer Engine hands over the gathered
// norm output), beside shared experts' fc1 always. Beside one that
// splits its inputs (proj, fc2: input_is_parallel true) A is row-parallel (forward:
// all-reduce of t·r) and B column-parallel with its outputs gathered (forward: all-gather of
// t·h, then split again along the sequence under sequence parallelism, whose backward
// gathers the gradient, t·h); B's input gradient is all-reduced (t·r). `payloadPerWidth`:
// bytes of one column over the micro-batch's tokens; `h` the hidden width. Routed experts'
// adapters run in the experts' own communication (explicit_expert_comm): none here.
int addLoraCollectives(Builder &b, const LayerConfig &c, double payloadPerWidth, double h)
{
    const double r = c.loraRank;
    const auto once = [&](Collective kind, double width) {
        return collective(kind, payloadPerWidth * width, c.tp, c.tpLink, 1);
    };
    LayerOp op = newOp("lora_tp", "LoRA adapters' tensor-parallel collectives", TimePart::tpComm,
                       elements(payloadPerWidth / c.commBytes, h));
    double rerunSeconds = 0;
    int adapters = 0;
    int calls = 0; // collective calls, forward and backward
    for (const auto &[key, column, normFused] :
         {std::tuple{"qkv_lora", true, true}, std::tuple{"fc1_lora", true, true},
          std::tuple{"shared_fc1_lora", true, false}, std::tuple{"proj_lora", false, false},
          std::tuple{"fc2_lora", false, false}, std::tuple{"shared_fc2_lora", false, false}}) {
        const LayerOp *a = b.find(key);
        if (!a)
            continue;
        ++adapters;
        OpCost forward, backward;
        if (column) {
            forward = once(Collective::allGather, r);
            backward = once(Collective::allReduce, r);
            calls += 2;
            if (!c.sequenceParallel) {
                backward = plus(backward, once(Collective::allReduce, h));
                calls += 1;
            } else if (adapterGathersInput(c, key, normFused)) {
                forward = plus(forward, once(Collective::allGather, h));
                backward = plus(backward, once(Collective::reduceScatter, h));
                calls += 2;
            }
        } else if (c.sequenceParallel && c.loraA2a) {
            // use_a2a: B's outputs stay split over the hidden width, and all2all_hp2sp hands
            // each device its share of the sequence: of its t·h/T it keeps a T-th and sends the
            // rest, one message to each peer (NCCL's all-to-all: a send and a receive each);
            // the backward the reverse.
            const double wire = payloadPerWidth * h / c.tp * (c.tp - 1) / c.tp;
            const OpCost exchange{0, wire,
                                  c.tpLink.gbPerS > 0
                                      ? messageLatencySeconds(c.tpLink) +
                                            wire / (c.tpLink.gbPerS * kGB * c.tpLink.efficiency)
                                      : 0.0};
            forward = plus(once(Collective::allReduce, r), exchange);
            backward = plus(once(Collective::allReduce, r), exchange);
            calls += 4;
        } else {
            forward = plus(once(Collective::allReduce, r), once(Collective::allGather, h));
            backward = once(Collective::allReduce, r);
            calls += 3;
            if (c.sequenceParallel) {
                backward = plus(backward, once(Collective::allGather, h));
                calls += 1;
            }
        }
        op.forward = plus(op.forward, forward);
        op.backward = plus(op.backward, backward);
        rerunSeconds += a->rerun * forward.seconds; // rerun as its adapter is
    }
    if (adapters == 0)
        return 0;
    op.rerun = op.forward.seconds > 0 ? rerunSeconds / op.forward.seconds : 0;
    op.source = "Megatron-Bridge ParallelLinearAdapter: A and B as Megatron-core linears, "
                "their collectives outside the overlap";
    b.ops.push_back(std::move(op));
    return calls;
}

} // namespace

LayerTimes layerTimes(const ModelSpec &model, const LayerConfig &c, const DeviceRates &rates)
{
    LayerTimes out;
    if (!model.hasArchitecture())
        return out;
    Builder b{rates, {}};
    b.ops.reserve(32); // a layer's operations: no reallocation while they are added
    b.weightGradStore = c.weightGradStoreBytes;
    b.frozen = c.training && c.loraRank > 0;
    // LoRA's adapter beside a projection lora_modules names (docs/step_time.md, "LoRA").
    // Its dropout zeroes the input as it arrives or B's output (loraDroppedValues).
    const auto adapt = [&b, &c](unsigned target, std::string_view key, std::string_view label,
                                double rows, double n, double k, bool column, double rerun) {
        if (!b.frozen || (c.loraModules & target) == 0)
            return;
        b.loraAdapter(key, label, rows, n, k, c.loraRank, c.tp, column, c.activationBytes, rerun, 1,
                      loraDroppedValues(c, key, column, true, rows, n, k));
    };
    const double e = c.activationBytes;
    const double h = model.hidden;
    const double d = model.headDim();
    const double heads = static_cast<double>(model.heads) / c.tp;
    const double kvHeads = static_cast<double>(kvHeadsPerDevice(model, c.tp));
    const double f = static_cast<double>(model.ffnHidden) / c.tp;
    const double s = static_cast<double>(c.seqLen);
    // Context parallelism: a device holds s / C of each sequence's queries and attends to all
    // s keys (Megatron-LM context parallelism, ring attention: Liu et al. 2023).
    const double tokens = localTokens(c);
    const double sq = tokens / static_cast<double>(c.microbatchSize);
    // Norms, dropout and residual adds see 1/T of the tokens with sequence parallelism
    // (Korthikanti et al. 2022, §4.2.2).
    const double spTokens = c.sequenceParallel ? tokens / c.tp : tokens;
    const bool full = c.recompute == Recompute::full;
    const bool selective = c.recompute == Recompute::selective;
    // torchtitan's per-op checkpointing (docs/activations.md): the element-wise work rerun
    // whole, the attention kernel kept, and every second multiply rerun.
    const bool perOp = c.recompute == Recompute::op;
    const double rerunAll = full || perOp ? 1 : 0;
    const auto rerunOf = [&](std::initializer_list<double> widths) {
        return b.rerunOf(c.recompute, widths);
    };
    // Selective recomputation's modules (docs/activations.md, "Recomputed modules").
    const auto module = [&](unsigned m) {
        return selective && (c.recomputeModules & m) != 0 ? 1.0 : 0.0;
    };
    const double normRerun = std::max(rerunAll, module(kRecomputeLayernorm));
    const double upRerun = module(kRecomputeMlaUpProj);
    const double mlpRerun = c.moe ? 0.0 : module(kRecomputeMlp);
    const double mask = model.dropout ? 1 : 0; // a one-byte dropout mask per value
    // Models without biases are the RMSNorm ones (Llama, Mistral, Qwen, DeepSeek, gpt-oss).
    const PassBytes norm = normBytes(e, c.fusedElementwise, !model.bias);
    const std::string_view normSource =
        c.fusedElementwise || model.bias
            ? "reads x and writes y; backward reads x and dy, writes dx"
            : "eager RMSNorm in FP32: six passes forward, their gradients backward "
              "(Transformers' LlamaRMSNorm)";
    constexpr std::string_view residualSource =
        "reads the branch and the residual, writes the sum (and the dropout mask)";
    const PassBytes rotary = ropeBytes(e, c.fusedElementwise);

    // Unfused, PyTorch's own kernels run the element-wise work at their lower bandwidth.
    const bool eager = !c.fusedElementwise;
    b.memoryOp("norm1", "attention norm", spTokens, h, norm.forward * spTokens * h,
               norm.backward * spTokens * h, normRerun, normSource, eager);
    // The value width of a head: head_dim, or v_head_dim with multi-head latent attention.
    const double dv = model.valueHeadDim();
    if (model.latentAttention()) {
        // DeepSeek-V3 Technical Report, §2.1.1: queries through a q_lora_rank latent, keys and
        // values expanded from one kv_lora_rank latent plus a shared rotary key. The down
        // projections run on every device of T (replicated), the up projections by heads.
        const double rope = model.ropeHeadDim;
        const double latent = model.kvLoraRank;
        if (model.qLoraRank > 0) {
            b.projection("q_down", "query down-projection", tokens, model.qLoraRank, h,
                         c.weightBytes, c.activationBytes, rerunOf({double(model.qLoraRank)}));
            b.projection("q_up", "query up-projection", tokens, heads * d, model.qLoraRank,
                         c.weightBytes, c.activationBytes, std::max(upRerun, rerunOf({heads * d})));
        } else {
            b.projection("q_proj", "query projection", tokens, heads * d, h, c.weightBytes,
                         c.activationBytes, std::max(upRerun, rerunOf({heads * d})));
        }
        b.projection("kv_down", "key/value down-projection", tokens, latent + rope, h,
                     c.weightBytes, c.activationBytes, rerunOf({latent + rope}));
        b.projection("kv_up", "key/value up-projection", tokens, heads * (d - rope + dv), latent,
                     c.weightBytes, c.activationBytes,
                     std::max(upRerun, rerunOf({heads * (d - rope + dv)})));
        b.memoryOp("rope", "rotary embedding", tokens, (heads + 1) * rope,
                   rotary.forward * tokens * (heads + 1) * rope,
                   rotary.backward * tokens * (heads + 1) * rope, std::max(rerunAll, upRerun),
                   "reads and writes the rotary parts of Q and the shared K (Su et al. 2021)",
                   eager);
    } else {
        const double qkvRerun = rerunOf({heads * d, kvHeads * d, kvHeads * d});
        b.projection("qkv", "QKV projection", tokens, (heads + 2 * kvHeads) * d, h, c.weightBytes,
                     c.activationBytes, qkvRerun);
        adapt(kLoraQkv, "qkv_lora", "QKV LoRA adapter", tokens, (heads + 2 * kvHeads) * d, h, true,
              qkvRerun);
        if (model.learnedPositions == 0)
            b.memoryOp("rope", "rotary embedding", tokens, (heads + kvHeads) * d,
                       rotary.forward * tokens * (heads + kvHeads) * d,
                       rotary.backward * tokens * (heads + kvHeads) * d, rerunAll,
                       "reads and writes Q and K (Su et al. 2021, RoFormer)", eager);
    }

    {
        LayerOp op = newOp("attention", "attention core", TimePart::attention,
                           dims(sq, s, d, heads * static_cast<double>(c.microbatchSize)));
        const double batch = heads * static_cast<double>(c.microbatchSize);
        if (c.attention != Attention::eager) {
            // Causal flash attention skips the masked half of QKᵀ and attention × V
            // (Dao 2023, "FlashAttention-2", §3.1); its backward does 5 multiplies of the
            // forward's 2, 2.5 × the FLOPs (ibid. §3.1.2). Through a sliding window it visits
            // the window's keys only (causalKeysPerQuery); a model whose layers alternate
            // is timed as their mix, each layer the same (docs/step_time.md).
            // QKᵀ over the query/key width d, attention × V over the value width.
            const double window = model.slidingWindow;
            const double windowed =
                window > 0 && model.layers > 0
                    ? static_cast<double>(slidingLayersIn(model, 0, model.layers)) / model.layers
                    : 0.0;
            // Packed examples attend within themselves: an example's keys, not the sequence's
            // (Transformer Engine's THD format with cu_seqlens; the same FLOP count per query
            // as a sequence of the example's length).
            const double span = attentionSpan(c);
            const double fullFlops = 2 * batch * sq * (d + dv) * causalKeysPerQuery(span, 0);
            const double windowFlops = 2 * batch * sq * (d + dv) * causalKeysPerQuery(span, window);
            const double flops = (1 - windowed) * fullFlops + windowed * windowFlops;
            const double forced = rates.forcedMfu > 0 ? rates.peakFlops * rates.forcedMfu : 0;
            // The kernel the scenario names (the device's fused one, FlashAttention-2's or
            // -3's) at its measured rates; the backward at its own (docs/step_time.md).
            const auto [kernelRate, kernelBackwardRate] = [&]() -> std::pair<double, double> {
                switch (c.attention) {
                case Attention::flash2:
                    return {rates.flash2Flops, rates.flash2BackwardFlops};
                case Attention::flash3:
                    return {rates.flash3Flops, rates.flash3BackwardFlops};
                default:
                    // In FP8, at the measured FP8-over-BF16 rates (docs/step_time.md, "FP8
                    // attention").
                    return c.fp8Attention
                               ? std::pair{rates.attentionFlops * rates.fp8AttentionSpeedup,
                                           rates.attentionBackwardFlops *
                                               rates.fp8AttentionBackwardSpeedup}
                               : std::pair{rates.attentionFlops, rates.attentionBackwardFlops};
                }
            }();
            // The device's fused kernel at this layout's key loops (docs/step_time.md).
            const bool shaped = c.attention == Attention::flash;
            const double shape = shaped ? attentionShapeFactor(rates, c, 0) : 1.0;
            const double windowShape =
                shaped && windowed > 0 ? attentionShapeFactor(rates, c, window) : shape;
            // Seconds of `fullF` forward FLOPs' worth at the kernel's rate (or `backward`'s);
            // `wholeWindow`: the sliding-window layers take the whole causal triangle's time.
            const auto seconds = [&](double rate, double fullF, double windowF, bool wholeWindow) {
                if (forced > 0)
                    return ((1 - windowed) * fullF + windowed * windowF) / forced;
                const double causal = fullF / (rate * shape);
                return (1 - windowed) * causal +
                       windowed * (wholeWindow ? causal : windowF / (rate * windowShape));
            };
            // cuDNN's FP8 backward through a sliding window visits every key tile of the causal
            // triangle: on a GB300 (cuDNN 9.22, 128-token window, head dim 64) 1.87, 6.65, 25.0
            // and 96.9 ms at 4,096 to 32,768 tokens, growing as s² where its forward grows as s
            // and the BF16 backward takes 0.44 to 3.45 ms (NVIDIA/cudnn-frontend,
            // benchmark/sdpa_benchmark_training/results/gpt_oss/gb300; GB200 alike).
            const bool wholeWindowBackward = shaped && c.fp8Attention;
            const double bytes = 2 * tokens * heads * (d + dv) * e; // Q, K, V in, O out
            op.forward = {flops, bytes, seconds(kernelRate, fullFlops, windowFlops, false)};
            op.backward = {2.5 * flops, 2 * bytes,
                           seconds(kernelBackwardRate, 2.5 * fullFlops, 2.5 * windowFlops,
                                   wholeWindowBackward)};
            op.source = windowed > 0
                            ? "Dao 2023 (FlashAttention-2): causal 2·b·s²·h/T FLOPs, backward "
                              "2.5×; the sliding-window layers' w − w²/2s keys a query instead of "
                              "s/2 (Beltagy et al. 2020); the fused kernel at its key loops' and "
                              "head width's rate (docs/step_time.md)"
                            : "Dao 2023 (FlashAttention-2): causal 2·b·s²·h/T FLOPs, backward "
                              "2.5×; the fused kernel at its key loops' and head width's rate "
                              "(docs/step_time.md)";
        } else {
            // Eager attention (Megatron-LM's fused scale-mask-softmax): QKᵀ and attention × V
            // as batched multiplies over the full s × s scores, softmax (and dropout) read and
            // write every score (Korthikanti et al. 2022, §4.1).
            const double scores = batch * sq * s;
            const OpCost qk = b.matmul(sq, s, d, batch, e, c.activationBytes);
            const OpCost av = b.matmul(sq, dv, s, batch, e, c.activationBytes);
            // Megatron-LM's scale-mask-softmax is a kernel of its own; the dropout after it
            // is PyTorch's (unfused, the softmax is too).
            const auto elementWise = [&](double bytes) {
                return c.fusedElementwise ? b.memory(bytes) : b.eagerMemory(bytes);
            };
            const OpCost softmax =
                plus(elementWise(scores * 2 * e), b.eagerMemory(scores * mask * (2 * e + 1)));
            op.forward = plus(plus(qk, av), softmax);
            // The gradient of the dropped probabilities dO·Vᵀ has QKᵀ's shape; dV = Pᵀ·dO,
            // dQ = dS·K and dK = dSᵀ·Q have attention × V's (s × d outputs, s deep). Softmax
            // backward reads y and dy and writes dx; dropout's reads dy and the mask.
            const OpCost softmaxBack =
                plus(elementWise(scores * 3 * e), b.eagerMemory(scores * mask * (e + 1)));
            op.backward = plus(plus(plus(qk, av), plus(av, av)), softmaxBack);
            op.source = "Korthikanti et al. 2022, §4.1: 4·b·s²·h/T FLOPs and the s² scores";
        }
        const double attentionRerun = full ? 1.0 : module(kRecomputeCoreAttn);
        op.rerun = attentionRerun;
        const OpCost attentionForward = op.forward;
        const OpCost attentionBackward = op.backward;
        b.ops.push_back(std::move(op));
        // The keys and values a device holds per token: K and V per KV head, or with latent
        // attention every head's expanded K (d) and V (dv).
        const double kvWidth = model.latentAttention() ? heads * (d + dv) : 2 * kvHeads * d;
        if (c.cp > 1) {
            // Q, K, V and the output, for an exchange that moves them all.
            LayerOp exchange = contextExchange(c, tokens, heads * (d + dv) + kvWidth, kvWidth,
                                               attentionForward, attentionBackward);
            exchange.rerun = attentionRerun;
            b.ops.push_back(std::move(exchange));
        }
    }
    const double projRerun = rerunOf({h});
    b.projection("proj", "output projection", tokens, h, heads * dv, c.weightBytes,
                 c.activationBytes, projRerun);
    adapt(kLoraProj, "proj_lora", "output projection's LoRA adapter", tokens, h, heads * dv, false,
          projRerun);
    b.memoryOp("residual1", "attention residual", spTokens, h, spTokens * h * (3 * e + mask),
               spTokens * h * (2 * e + mask), rerunAll, residualSource, eager);
    b.memoryOp("norm2", "MLP norm", spTokens, h, norm.forward * spTokens * h,
               norm.backward * spTokens * h, normRerun, normSource, eager);
    if (c.moe) {
        addExperts(b, model, c, tokens, spTokens, rerunAll);
    } else {
        const double fc1Rerun = std::max(mlpRerun, model.gatedMlp ? rerunOf({f, f}) : rerunOf({f}));
        b.projection("fc1", model.gatedMlp ? "gate and up projection" : "MLP up projection", tokens,
                     (model.gatedMlp ? 2 : 1) * f, h, c.weightBytes, c.activationBytes, fc1Rerun);
        adapt(kLoraFc1, "fc1_lora", "MLP up projection's LoRA adapter", tokens,
              (model.gatedMlp ? 2 : 1) * f, h, true, fc1Rerun);
        const PassBytes swiglu =
            withFp8InputStore(swigluBytes(e, c.fusedElementwise), e, c.fp8ActivationInput);
        const double act = std::max(rerunAll, mlpRerun);
        if (model.gatedMlp)
            b.memoryOp("act", "SwiGLU", tokens, f, swiglu.forward * tokens * f,
                       swiglu.backward * tokens * f, act,
                       c.fp8ActivationInput
                           ? "reads gate and up, writes their product and an FP8 copy of both; "
                             "backward casts them back, reads dy, writes two gradients (Shazeer "
                             "2020; Megatron-core fp8_input_store)"
                           : "reads gate and up, writes their product; backward reads both and "
                             "dy, writes two gradients (Shazeer 2020)",
                       eager);
        else
            b.memoryOp("act", "GeLU", tokens, f, 2 * tokens * f * e, 3 * tokens * f * e, act,
                       "reads x, writes y; backward reads x and dy, writes dx", eager);
        const double fc2Rerun = std::max(mlpRerun, rerunOf({h}));
        b.projection("fc2", "MLP down projection", tokens, h, f, c.weightBytes, c.activationBytes,
                     fc2Rerun);
        adapt(kLoraFc2, "fc2_lora", "MLP down projection's LoRA adapter", tokens, h, f, false,
              fc2Rerun);
    }
    b.memoryOp("residual2", "MLP residual", spTokens, h, spTokens * h * (3 * e + mask),
               spTokens * h * (2 * e + mask), rerunAll, residualSource, eager);
    if (rates.narrow)
        addFp8Casts(b, c);

    if (c.tp > 1) {
        LayerOp op =
            newOp("tp", "tensor-parallel collectives", TimePart::tpComm, elements(tokens, h));
        const double payload = tokens * h * c.commBytes;
        // Attention's half and the MLP's; an MoE layer's routed experts take their tokens by
        // the all-to-all instead (Megatron-core's token dispatcher keeps them sequence-split),
        // so only shared experts need the MLP half.
        const int halves = c.moe && model.sharedExperts == 0 ? 1 : 2;
        // The share of the forward's collectives per-op checkpointing reruns: the gathers.
        double gatherShare = 0.5;
        if (c.sequenceParallel) {
            // Korthikanti et al. 2022, §4.2.2: an all-gather before and a reduce-scatter after
            // each of attention and MLP; backward reverses them and gathers the input again
            // for the weight gradients, as Megatron-LM does rather than keeping it.
            // Narrow multiplies gather their cast copies, not the 16-bit tensors (NVIDIA/
            // TransformerEngine v2.8, pytorch/module/layernorm_linear.py and linear.py:
            // gather_along_first_dim with the quantizer): the input in its row-wise copy
            // forward and its column-wise one again for the weight gradient; the output
            // gradient in both an NVFP4 run needs, or FP8's one, transposed after the gather
            // (distributed.py, _all_gather_fp8 and _all_gather_nvfp4). The reduce-scatters
            // stay in 16 bits.
            const double narrowShare = rates.narrow ? rates.castCopyBytes / c.commBytes : 1;
            const double gradShare = rates.blockScaledFp4() ? 2 * narrowShare : narrowShare;
            const OpCost gathers =
                collective(Collective::allGather, payload * narrowShare, c.tp, c.tpLink, halves);
            const OpCost scatters =
                collective(Collective::reduceScatter, payload, c.tp, c.tpLink, halves);
            op.forward = plus(gathers, scatters);
            // A frozen projection (LoRA) has no weight gradient to gather its input again for;
            // the adapters keep their own gathered input.
            op.backward =
                plus(collective(Collective::allGather, payload * gradShare, c.tp, c.tpLink, halves),
                     scatters);
            if (!b.frozen)
                op.backward = plus(op.backward, gathers);
            gatherShare = op.forward.seconds > 0 ? gathers.seconds / op.forward.seconds : 0.5;
            op.source = rates.narrow ? "Korthikanti et al. 2022, §4.2.2: g and ḡ, with the "
                                       "all-gather redone in backward; Transformer Engine "
                                       "gathers the cast copies"
                                     : "Korthikanti et al. 2022, §4.2.2: g and ḡ, with the "
                                       "all-gather redone in backward";
            if (c.tpOverlap) {
                // Transformer Engine's defaults for Megatron-LM's --tp-comm-overlap
                // (NVIDIA/TransformerEngine, transformer_engine/pytorch/module/base.py,
                // initialize_ub): gathers before QKV and fc1 and of the gradients into proj
                // and fc2 are ring exchanges on the copy engines, hidden behind the multiply
                // except what outlasts it; the reduce-scatters after proj and fc2 are
                // pipelined in 4 splits on 16 SMs, so the multiply runs on the rest and the
                // last split's transfer is exposed; QKV's and fc1's backward collectives run
                // in bulk on 16 SMs beside the input- and weight-gradient multiplies.
                // The projection a collective overlaps (b.find); nothing where the layer has
                // none of that name (latent attention's, an MoE layer's MLP).
                const double units = rates.computeUnits > 16 ? rates.computeUnits : 0;
                const double slower = units > 0 ? units / (units - 16) : 1;
                const auto ring = [](double comm, double gemm) {
                    return std::max(0.0, comm - gemm);
                };
                const auto pipelined = [slower](double comm, double gemm) {
                    const double g = gemm * slower;
                    return g - gemm + std::max(0.0, comm - g) + std::min(comm, g) / 4;
                };
                const auto bulk = [slower](double comm, double gemm) {
                    const double g = gemm * slower;
                    return g - gemm + std::max(0.0, comm - g);
                };
                const double gather =
                    collective(Collective::allGather, payload * narrowShare, c.tp, c.tpLink, 1)
                        .seconds;
                const double gradGather =
                    collective(Collective::allGather, payload * gradShare, c.tp, c.tpLink, 1)
                        .seconds;
                const double scatter =
                    collective(Collective::reduceScatter, payload, c.tp, c.tpLink, 1).seconds;
                double forward = 0, backward = 0;
                // Latent attention's first head-split projection is q_up (or q_proj); an MoE
                // layer's MLP half has shared_fc1/shared_fc2, or no collectives at all.
                for (std::string_view key : {"qkv", "q_up", "q_proj", "fc1", "shared_fc1"}) {
                    const LayerOp *p = b.find(key);
                    if (!p)
                        continue;
                    // tp_comm_overlap_disable_qkv: Megatron-core turns off QKV's ub_overlap_ag
                    // (and ub_overlap_rs_dgrad), so its input gather runs on its own; the bulk
                    // overlaps of its backward stay (extensions/transformer_engine.py).
                    forward +=
                        key == "qkv" && !c.tpOverlapQkv ? gather : ring(gather, p->forward.seconds);
                    // The input gathered again beside dgrad; dgrad reduce-scattered beside
                    // wgrad (frozen, with no wgrad to hide behind and no input to gather).
                    backward += (b.frozen ? 0.0 : bulk(gather, p->backward.seconds)) +
                                bulk(scatter, p->weight.seconds);
                }
                for (std::string_view key : {"proj", "fc2", "shared_fc2"}) {
                    const LayerOp *p = b.find(key);
                    if (!p)
                        continue;
                    forward += pipelined(scatter, p->forward.seconds);
                    // The incoming gradient gathered behind dgrad, wgrad ("external") too.
                    backward += ring(gradGather, p->backward.seconds + p->weight.seconds);
                }
                op.forward.seconds = forward;
                op.backward.seconds = backward;
                op.source = "Korthikanti et al. 2022, §4.2.2, overlapped as Transformer Engine's "
                            "userbuffers do by default";
            }
        } else {
            // Shoeybi et al. 2019, §3, Fig. 4: one all-reduce after attention and one after
            // the MLP in forward (g), the same two in backward (f).
            op.forward = collective(Collective::allReduce, payload, c.tp, c.tpLink, halves);
            op.backward = op.forward;
            op.source = "Shoeybi et al. 2019, §3: two all-reduces forward, two backward";
        }
        // Per-op checkpointing keeps the reduce-scatters' outputs and reruns the all-gathers,
        // half the forward's collectives; it keeps no all-reduce (docs/activations.md).
        op.rerun = full ? 1 : perOp ? (c.sequenceParallel ? gatherShare : 1) : 0;
        // A checkpointed MLP (mlp, or a MoE layer's shared experts under moe or
        // shared_experts) reruns its forward with its collectives: the MLP's half.
        const bool mlpHalfRerun =
            halves == 2 && (mlpRerun > 0 || (c.moe && (module(kRecomputeMoe) > 0 ||
                                                       module(kRecomputeSharedExperts) > 0)));
        if (mlpHalfRerun)
            op.rerun = std::max(op.rerun, 0.5);
        b.ops.push_back(std::move(op));
        if (b.frozen)
            out.loraCollectives = addLoraCollectives(b, c, tokens * c.commBytes, h);
    }
    if (c.training && c.gradAccumulationBytes > 0 && !b.frozen) {
        const ParamCounts counts = countParams(model, c.tp, ExpertSplit{c.ep, c.expertTp});
        addGradAccumulation(b, static_cast<double>(c.moe ? counts.perMoeLayer : counts.perLayer),
                            c);
    }
    if (c.training && (c.weightCastForwardBytes > 0 || c.weightCastBackwardBytes > 0)) {
        const ParamCounts counts = countParams(model, c.tp, ExpertSplit{c.ep, c.expertTp});
        addWeightCasts(b, static_cast<double>(c.moe ? counts.perMoeLayer : counts.perLayer), c);
    }
    if (!c.training)
        for (LayerOp &op : b.ops) {
            op.backward = {};
            op.weight = {};
            op.rerun = 0;
        }
    out.ops = std::move(b.ops);
    sum(out);
    return out;
}

namespace {

EndTimes endTimes(std::vector<LayerOp> ops, bool training)
{
    EndTimes out;
    for (LayerOp &op : ops) {
        op.part = op.part == TimePart::tpComm ? TimePart::tpComm : TimePart::embeddingHead;
        if (!training) {
            op.backward = {};
            op.weight = {};
        }
        out.forwardS += op.forward.seconds;
        out.backwardS += op.backward.seconds;
        out.weightS += op.weight.seconds;
    }
    out.ops = std::move(ops);
    return out;
}

} // namespace

EndTimes firstStageTimes(const ModelSpec &model, const LayerConfig &c, const DeviceRates &rates)
{
    if (!model.hasArchitecture())
        return {};
    Builder b{rates, {}};
    b.ops.reserve(8); // the embedding's few operations: no reallocation
    b.weightGradStore = c.weightGradStoreBytes;
    const double e = c.activationBytes;
    const double h = model.hidden;
    const double tokens = localTokens(c);
    // A lookup gathers one row per token (plus a learned position row); backward adds the
    // gradients into the rows.
    const double rows = model.learnedPositions > 0 ? 2 : 1;
    b.memoryOp("embedding", "embedding lookup", tokens, h, (rows + 1) * tokens * h * e,
               (rows + 1) * tokens * h * e, false,
               "reads a row per token, writes the hidden state");
    if (c.tp > 1) {
        // Megatron-LM's vocabulary-parallel embedding sums the partial lookups over T (a
        // reduce-scatter into the sequence-parallel layout).
        LayerOp op =
            newOp("embedding_comm", "embedding all-reduce", TimePart::tpComm, elements(tokens, h));
        op.forward =
            collective(c.sequenceParallel ? Collective::reduceScatter : Collective::allReduce,
                       tokens * h * c.commBytes, c.tp, c.tpLink, 1);
        op.source = "Shoeybi et al. 2019, §3: the embedding is split along the vocabulary";
        b.ops.push_back(std::move(op));
    }
    const double embeddingWeights = static_cast<double>(countParams(model, c.tp).embedding);
    // LoRA freezes the embedding, and nothing before it wants a gradient: no backward at all.
    const bool backward = c.training && c.loraRank == 0;
    if (backward) {
        // The lookup's gradient is dense: PyTorch's embedding backward zero-fills a gradient
        // for every row of the table and adds each token's into its row
        // (aten/src/ATen/native/cuda/Embedding.cu, embedding_dense_backward_cuda). No
        // multiply accumulates it in place, so the add into the accumulated gradient is a pass
        // of its own in every framework (Megatron-LM's data-parallel hook,
        // param.main_grad.add_(param.grad); autograd's AccumulateGrad): read both, write the
        // sum, counted below when every weight's add is separate.
        LayerOp op = newOp("embedding_grad", "embedding's dense gradient", TimePart::memoryBound,
                           elements(embeddingWeights, 1));
        const double add = c.gradAccumulationBytes > 0 ? 0 : c.weightGradStoreBytes + e;
        op.weight = b.eagerMemory(embeddingWeights * (e + add));
        op.source = "PyTorch's embedding backward writes the whole table's gradient; added into "
                    "the accumulated one";
        b.ops.push_back(std::move(op));
    }
    if (backward && c.gradAccumulationBytes > 0)
        addGradAccumulation(b, embeddingWeights, c);
    return endTimes(std::move(b.ops), backward);
}

namespace {

// The cross-entropy loss's kernels against Megatron-LM's unfused loss, forward and backward, as
// measured on one H100 over 8,192 × 131,072 BF16 logits (linkedin/Liger-Kernel,
// benchmark/data/all_benchmark_data.csv, megatron_cross_entropy; forward and forward +
// backward, median of 50): unfused 15.81 / 21.25 ms, Megatron-core's fused 11.81 / 18.23,
// Liger's kernel 2.97 / 7.96 (docs/step_time.md, "Loss kernels").
struct LossKernels
{
    double forward = 1;
    double backward = 1;
    const char *source = "";
};
const LossKernels &lossKernels(LossFusion fusion)
{
    static const LossKernels kUnfused{
        1, 1,
        "FP32 cast, max, subtract, exp, sum and divide over the logits; backward scales the "
        "softmax and casts the gradient back"};
    // 11.81 / 15.81 and (18.23 - 11.81) / (21.25 - 15.81).
    static const LossKernels kNative{
        0.747, 1.182,
        "Megatron-core's fused loss (fused_cross_entropy.py): the unfused passes' time × 0.747 "
        "forward, × 1.182 backward, as measured"};
    // Transformer Engine's Triton loss before 2.18 makes Liger's passes: the logits read twice
    // and the gradient written over them, then scaled in place (transformer_engine/common/
    // triton/cross_entropy.py); 2.97 / 15.81 and (7.96 - 2.97) / (21.25 - 15.81).
    static const LossKernels kTe{
        0.188, 0.918,
        "Transformer Engine's fused loss: the logits read twice and the gradient written over "
        "them, then scaled: the unfused passes' time × 0.188 forward, × 0.918 backward, as "
        "Liger-Kernel's kernel of the same passes measured"};
    switch (fusion) {
    case LossFusion::native:
        return kNative;
    case LossFusion::te:
        return kTe;
    case LossFusion::none:
        break;
    }
    return kUnfused;
}

} // namespace

EndTimes lastStageTimes(const ModelSpec &model, const LayerConfig &c, const DeviceRates &rates)
{
    if (!model.hasArchitecture())
        return {};
    Builder b{rates, {}};
    b.ops.reserve(12); // the final norm, the LM head, the loss and their casts
    b.weightGradStore = c.weightGradStoreBytes;
    b.frozen = c.training && c.loraRank > 0; // LoRA: the LM head frozen too
    const double e = c.activationBytes;
    const double h = model.hidden;
    const double tokens = localTokens(c);
    const double spTokens = c.sequenceParallel ? tokens / c.tp : tokens;
    const double vocab = std::ceil(static_cast<double>(model.vocab) / c.tp);
    const PassBytes norm = normBytes(e, c.fusedElementwise, !model.bias);
    b.memoryOp("final_norm", "final norm", spTokens, h, norm.forward * spTokens * h,
               norm.backward * spTokens * h, false,
               c.fusedElementwise || model.bias
                   ? "reads x and writes y; backward reads x and dy, writes dx"
                   : "eager RMSNorm in FP32 (Transformers' LlamaRMSNorm)",
               !c.fusedElementwise);
    if (c.tp > 1 && c.sequenceParallel) {
        LayerOp op =
            newOp("head_comm", "LM head all-gather", TimePart::tpComm, elements(tokens, h));
        const double payload = tokens * h * c.commBytes;
        op.forward = collective(Collective::allGather, payload, c.tp, c.tpLink, 1);
        op.backward = collective(Collective::reduceScatter, payload, c.tp, c.tpLink, 1);
        op.source = "Korthikanti et al. 2022, §4.2.2: gathered before the vocabulary projection";
        b.ops.push_back(std::move(op));
    }
    if (!c.training) {
        // Generation projects only each sequence's last position onto the vocabulary (Hugging
        // Face generate's logits_to_keep = 1, vLLM's logits indices), and computes no loss.
        b.projection("lm_head", "LM head", static_cast<double>(c.microbatchSize), vocab, h,
                     c.weightBytes, c.activationBytes, false);
        return endTimes(std::move(b.ops), c.training);
    }
    if (c.fp8LmHead && rates.narrow) {
        // Megatron-core's fp8_output_proj: the head is Transformer Engine's column-parallel
        // linear under the MXFP8 autocast (NVIDIA/Megatron-LM#4825, TELMHeadColumnParallelLinear),
        // its input and the logits' gradient cast as every FP8 multiply's are.
        b.projection("lm_head", "LM head", tokens, vocab, h, c.weightBytes, c.activationBytes,
                     false);
        addFp8Casts(b, c);
    } else {
        // FP8 training otherwise keeps the LM head in 16 bits: Megatron-core's output layer is
        // its own ColumnParallelLinear outside Transformer Engine's fp8_autocast
        // (models/gpt/gpt_model.py, transformer/transformer_block.py), and torchtitan's float8
        // converter is shown filtering "output" (torchtitan/components/quantization/float8.md).
        b.sixteenBitProjection("lm_head", "LM head", tokens, vocab, h, c.weightBytes,
                               c.activationBytes, false);
    }
    // Vocabulary-parallel cross-entropy, one pass over the logits per PyTorch operation
    // (NVIDIA/Megatron-LM, megatron/core/tensor_parallel/cross_entropy.py): forward casts them
    // to FP32 (e + 4 bytes each), takes the max (4), subtracts it (8), exponentiates (8), sums
    // (4) and divides (8), all in place; backward scales the saved softmax (8) and casts the
    // gradient back (4 + e). The fused kernels take the unfused passes' time in the ratio
    // measured at one shape (lossKernels).
    const LossKernels &kernels = lossKernels(c.lossFusion);
    b.memoryOp("loss", "cross-entropy loss", tokens, vocab,
               kernels.forward * tokens * vocab * (e + 36),
               kernels.backward * tokens * vocab * (12 + e), false, kernels.source, true);
    // The last stage's head: its own weights, or with tied embeddings its copy of the
    // embedding's (Megatron-LM keeps one there and all-reduces their gradients).
    if (c.training && c.gradAccumulationBytes > 0 && !b.frozen) {
        const ParamCounts counts = countParams(model, c.tp);
        addGradAccumulation(
            b,
            static_cast<double>(counts.finalNorm + (counts.lmHead > 0 ? counts.lmHead : vocab * h)),
            c);
    }
    return endTimes(std::move(b.ops), c.training);
}

namespace {

// The multi-token-prediction rows of the end table, one a kind of work (TimePart order).
constexpr std::array<std::string_view, kTimePartCount> kMtpKeys{"mtp_matmul",
                                                                "mtp_memory",
                                                                "mtp_attention",
                                                                "mtp_recompute",
                                                                "mtp_embedding_head",
                                                                "mtp_tp_comm",
                                                                "mtp_expert_comm",
                                                                "mtp_context_comm",
                                                                "",
                                                                "",
                                                                "",
                                                                ""};
constexpr std::array<std::string_view, kTimePartCount> kMtpLabels{
    "MTP: multiplies (layer, eh_proj)",
    "MTP: memory-bound (layer, norms)",
    "MTP: attention",
    "MTP: recomputation",
    "MTP: embedding, LM head and loss",
    "MTP: tensor-parallel comm.",
    "MTP: expert all-to-all",
    "MTP: context-parallel exchange",
    "",
    "",
    "",
    ""};

} // namespace

void addMultiTokenPrediction(EndTimes &last, const ModelSpec &model, const LayerConfig &c,
                             const DeviceRates &rates, const LayerTimes &layer,
                             const EndTimes &embedding, const EndTimes &head, int depths)
{
    if (depths <= 0 || !c.training || !model.hasArchitecture())
        return;
    // Megatron-core's MultiTokenPredictionLayer (transformer/multi_token_prediction.py):
    // enorm over the embedding of the tokens one further on, hnorm over the hidden state
    // before it, their concatenation through eh_proj (2h to h, column-parallel), one
    // transformer layer, a final norm, then the shared LM head and a loss of its own
    // (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §2.2, Figure 3). Full recomputation
    // checkpoints the whole depth.
    Builder b{rates, {}};
    b.weightGradStore = c.weightGradStoreBytes;
    const double e = c.activationBytes;
    const double h = model.hidden;
    const double tokens = localTokens(c);
    const double spTokens = c.sequenceParallel ? tokens / c.tp : tokens;
    const double rerun = c.recompute == Recompute::full ? 1 : 0;
    const PassBytes norm = normBytes(e, c.fusedElementwise, !model.bias);
    b.memoryOp("mtp_norms", "MTP enorm and hnorm", 2 * spTokens, h, 2 * norm.forward * spTokens * h,
               2 * norm.backward * spTokens * h, rerun,
               "two norms: each reads x and writes y; backward reads x and dy, writes dx",
               !c.fusedElementwise);
    // Timed at the 16-bit rate, its FP8 casts (if any) not counted: a 2h² projection beside
    // the layer's.
    b.sixteenBitProjection("mtp_eh_proj", "MTP eh_proj", tokens, std::ceil(h / c.tp), 2 * h,
                           c.weightBytes, c.activationBytes, rerun);
    if (c.tp > 1) {
        // Sequence parallelism gathers eh_proj's 2h input and, after it, its h/T outputs
        // (gather_from_tensor_model_parallel_region), then scatters them back along the
        // sequence; backward reduce-scatters the input's gradient and gathers the outputs'.
        // Without it the input's gradient is all-reduced.
        LayerOp op = newOp("mtp_eh_comm", "MTP eh_proj collectives", TimePart::tpComm,
                           elements(tokens, 3 * h));
        const OpCost outputs =
            collective(Collective::allGather, tokens * h * c.commBytes, c.tp, c.tpLink, 1);
        op.forward = c.sequenceParallel
                         ? plus(collective(Collective::allGather, tokens * 2 * h * c.commBytes,
                                           c.tp, c.tpLink, 1),
                                outputs)
                         : outputs;
        op.backward = c.sequenceParallel
                          ? plus(collective(Collective::reduceScatter, tokens * 2 * h * c.commBytes,
                                            c.tp, c.tpLink, 1),
                                 outputs)
                          : collective(Collective::allReduce, tokens * 2 * h * c.commBytes, c.tp,
                                       c.tpLink, 1);
        op.rerun = rerun;
        op.source = "Megatron-core MultiTokenPredictionLayer._concat_embeddings";
        b.ops.push_back(std::move(op));
    }
    // One row a kind of work for each depth: its own ops, a layer of the last layer's kind,
    // the embedding lookup and the LM head with its loss (the head's gradient accumulates
    // into the one the main loss already adds to).
    std::array<LayerOp, kTimePartCount> rows;
    for (std::size_t p = 0; p < kTimePartCount; ++p) {
        rows[p].key = kMtpKeys[p];
        rows[p].label = kMtpLabels[p];
        rows[p].part = static_cast<TimePart>(p);
        rows[p].shape = elements(tokens, h);
        rows[p].source = "Megatron-core MultiTokenPredictionLayer: its ops, a layer of the "
                         "last layer's kind, an embedding lookup, the LM head and a loss";
    }
    const auto add = [&](const LayerOp &op, TimePart part) {
        LayerOp &row = rows[static_cast<std::size_t>(part)];
        row.forward = plus(row.forward, op.forward);
        row.backward = plus(row.backward, op.backward);
        row.weight = plus(row.weight, op.weight);
        if (op.rerun > 0) {
            // Rerun before the backward that needs it.
            LayerOp &again = rows[static_cast<std::size_t>(TimePart::recompute)];
            again.backward.flops += op.rerun * op.forward.flops;
            again.backward.bytes += op.rerun * op.forward.bytes;
            again.backward.seconds += op.rerun * op.forward.seconds;
        }
    };
    const std::vector<LayerOp> *own = &b.ops;
    for (const std::vector<LayerOp> *ops : {own, &layer.ops})
        for (const LayerOp &op : *ops)
            add(op, op.part);
    for (const EndTimes *end : {&embedding, &head})
        for (const LayerOp &op : end->ops)
            if (op.key != "grad_accumulation")
                add(op, op.part);
    for (LayerOp &row : rows) {
        if (row.key.empty() ||
            !(row.forward.seconds + row.backward.seconds + row.weight.seconds > 0))
            continue;
        for (OpCost *cost : {&row.forward, &row.backward, &row.weight}) {
            cost->flops *= depths;
            cost->bytes *= depths;
            cost->seconds *= depths;
        }
        last.forwardS += row.forward.seconds;
        last.backwardS += row.backward.seconds;
        last.weightS += row.weight.seconds;
        last.ops.push_back(std::move(row));
    }
}

OptimizerTraffic optimizerTraffic(const OptimizerInput &in)
{
    const bool fp32Grads = in.gradBytes >= 4;
    // DeepSpeed runs BF16_Optimizer for BF16 weights accumulating in FP32 under ZeRO-1, its
    // ZeRO optimizer otherwise (deepspeed/runtime/engine.py, _do_optimizer_sanity_check);
    // without ZeRO, taken as BF16_Optimizer.
    const bool deepSpeedZero = in.step == OptimizerStep::deepspeed && in.zero >= 1 &&
                               !(fp32Grads && in.zero == 1 && !in.fp32Weights);
    OptimizerTraffic t;
    // 16-bit gradients cast to the FP32 the update reads (Megatron-LM
    // _copy_model_grads_to_main_grads, main_grad.float(); DeepSpeed ZeRO's
    // flat_grad_partition.to(FP32); FSDP2 casting the reduced gradient to the parameter's).
    if (!fp32Grads)
        t.cast = in.gradBytes + 4.0;
    // A pass that scales every FP32 gradient in place: FP16's loss scale (Megatron-LM
    // _unscale_main_grads_and_check_for_nan), or the clipping coefficient applied whatever
    // it is (torch clip_grads_with_norm_; DeepSpeed ZeRO's unscale_and_clip_grads).
    if (in.lossScaled || in.step == OptimizerStep::torch || deepSpeedZero)
        t.scale = 8;
    // The global norm reads each gradient: the FP32 ones (apex multi_tensor_l2norm in
    // clip_grad_norm_fp32, torch get_total_norm), or DeepSpeed ZeRO's 16-bit ones before the
    // cast (stage_1_and_2.py, scaled_global_norm).
    t.norm = deepSpeedZero ? in.gradBytes : 4.0;
    // Adam (Kingma & Ba 2015), fused (apex multi_tensor_adam, torch _fused_adamw_): reads the
    // FP32 gradient, parameter and moments, writes the parameter and moments; the FP32
    // parameter is the master copy in optimizerBytes, or the weight itself.
    t.adam = 2.0 * in.optimizerBytes + 4 + (in.fp32Weights ? 8.0 : 0.0);
    // The master copy written back to the weights as held (Micikevicius et al. 2018; Megatron-LM
    // _copy_main_params_to_model_params; DeepSpeed bit16_partitions[...].copy_); FSDP2 casts
    // at the next gather instead.
    if (!in.fp32Weights && in.step != OptimizerStep::torch)
        t.writeBack = 4 + in.weightBytes;
    // Gradients zeroed for the next step's accumulation: Megatron-LM's gradient buffer
    // (zero_grad_buffer), DeepSpeed BF16_Optimizer's FP32 one (clear_hp_grads); freed
    // (set_to_none) otherwise.
    if (in.step == OptimizerStep::megatron)
        t.zero = in.gradBytes;
    else if (in.step == OptimizerStep::deepspeed && !deepSpeedZero && fp32Grads)
        t.zero = in.gradBytes;
    return t;
}

} // namespace core
