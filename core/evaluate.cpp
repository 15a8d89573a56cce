#include "core/evaluate.h"

#include "core/activations.h"
#include "core/comm_cost.h"
#include "core/echo.h"
#include "core/framework.h"
#include "core/offload.h"
#include "core/op_model.h"
#include "core/schedule.h"
#include "core/step_time.h"
#include "core/units.h"
#include "core/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <tuple>

namespace core {

namespace {

// The share of the device a collective's kernels hold while hidden behind a pass, which the
// pass loses for as long: collective_units of compute_units (NVIDIA Developer Forums,
// "Compute-Communication Overlap Causes Severe GEMM Performance Degradation because of Tail
// Effect"; Lee et al. 2025). None with one forced efficiency (mfu), as the model was.
double collectiveShare(const DeviceSpec &device, const Scenario &s)
{
    if (s.mfu || device.collectiveUnits <= 0 || device.computeUnits <= 0)
        return 0;
    return static_cast<double>(device.collectiveUnits) / device.computeUnits;
}

// Whether a step's MoE layers carry the host-side cost Parascope does not time
// (docs/step_time.md, "Fine-grained experts"). Published Megatron-LM runs outside a CUDA graph of
// the whole step took 1.7 to 4.3 ms longer a MoE layer and micro-batch than modelled: dropless
// ones, whose routing waits on the device for its token counts (the grouped multiply's and the
// all-to-all's splits read on the host; NVIDIA, "Boosting MoE Training Throughput with Advanced
// Fusion Kernels"), and ones padded to capacity alike, which wait on nothing (Megatron-core
// moe/token_dispatcher.py: cuda_sync_point = "no_sync"; Megatron-Bridge's 25.09 Qwen3 rows, 1.6
// to 4.3 ms). torchtitan's all-to-all over E > 1 waits as dropless Megatron-LM does
// (token_dispatcher.py, input_splits.tolist()). DeepSpeed's MoE and a custom framework's have
// no published run to say (DeepSeek-V3's own ran within 2 % of the model).
bool moeHostCostUntimed(const Scenario &s)
{
    // Inside a CUDA graph of the whole step nothing is launched from the host and the MoE layers
    // run with static shapes (Megatron-LM docs/user-guide/features/cuda_graph.md, "MoE Model
    // Training": expert dispatch "cannot be captured" unless its shapes are static); Qwen3's and
    // DeepSeek-V3's 26.08 runs under one are within 6 %.
    if (s.fullCudaGraph && s.mode == Mode::training)
        return false;
    switch (s.framework) {
    case Framework::megatron:
        return true;
    case Framework::torchtitan:
        return s.ep > 1;
    case Framework::deepspeed:
    case Framework::custom:
        break;
    }
    return false;
}

// Why fp8_attention cannot apply here, or nothing when it does: the FP8 kernel is Transformer
// Engine's fused attention in FP8 and NVFP4 training, timed from the device's measured
// FP8-over-BF16 rates (docs/step_time.md, "FP8 attention").
std::optional<std::string> fp8AttentionUnused(const Scenario &s, const DeviceSpec &device,
                                              const ModelSpec &model)
{
    if (s.mode != Mode::training)
        return std::string("inference is timed with BF16 attention");
    if (s.precision != Precision::fp8 && s.precision != Precision::nvfp4)
        return "it needs FP8 or NVFP4 training, not " + std::string(toString(s.precision));
    if (s.attention != Attention::flash)
        return "it is the device's fused kernel (attention=flash), not " +
               std::string(toString(s.attention));
    if (!(device.fp8AttentionSpeedup > 0))
        return device.name + " has no measured FP8 attention rate (fp8_attention_speedup)";
    // Hopper (compute capability 9.x) runs no FP8 attention Transformer Engine can train with
    // but cuDNN's, and Transformer Engine then has no other backend: the run stops.
    const bool hopper =
        device.computeCapability >= 9 && device.computeCapability < 10 && model.hasArchitecture();
    // cuDNN 9.19 on an H200 refuses FP8 attention at head dimension 64 and at latent
    // attention's 192 / 128: "hidden_dim should be equal to 128" (NVIDIA/cudnn-frontend,
    // benchmark/sdpa_benchmark_training/results/h200_919_only_cudnn, gpt_oss and dsv3).
    if (hopper && (model.headDim() != 128 || model.valueHeadDim() != 128))
        return "cuDNN runs FP8 attention on " + device.name +
               " (compute capability 9.x) at head dimension 128 only, and this model's is " +
               std::to_string(model.headDim()) +
               (model.valueHeadDim() != model.headDim()
                    ? " / " + std::to_string(model.valueHeadDim())
                    : std::string()) +
               " (cuDNN 9.19 on an H200: \"hidden_dim should be equal to 128\"); Transformer "
               "Engine has no other FP8 attention to train with, so such a run stops";
    // Transformer Engine disables cuDNN's attention for learnable sinks in FP8 below compute
    // capability 10.0 or cuDNN 9.21 (transformer_engine/pytorch/attention/dot_product_attention/
    // utils.py, "Filter: Softmax type"), and every other backend for FP8.
    if (model.attentionSinks && hopper)
        return "Transformer Engine runs FP8 attention with learned sinks only from compute "
               "capability 10.0 (Blackwell) and cuDNN 9.21, and " +
               device.name + " is " + plainNumber(device.computeCapability) +
               "; it has no other FP8 attention backend, so such a run stops";
    return std::nullopt;
}

bool fp8AttentionRuns(const Scenario &s, const DeviceSpec &device, const ModelSpec &model)
{
    return s.fp8Attention && !s.mfu && !fp8AttentionUnused(s, device, model);
}

// Why fp8_lm_head cannot apply here, or nothing when it does: Megatron-core runs the LM head
// under the FP8 autocast only with the MXFP8 recipe (transformer_config.py: fp8_output_proj
// requires fp8_recipe='mxfp8'), in Parascope FP8 training with block scaling.
std::optional<std::string> fp8LmHeadUnused(const Scenario &s)
{
    if (s.mode != Mode::training)
        return std::string("inference times the LM head at the precision's own rate already");
    if (s.precision != Precision::fp8)
        return "it needs FP8 training, not " + std::string(toString(s.precision));
    if (s.fp8Scaling != Fp8Scaling::block)
        return "Megatron-core runs it with MXFP8 only (fp8_scaling=block), not fp8_scaling=" +
               std::string(toString(s.fp8Scaling));
    return std::nullopt;
}

// The same for the data-parallel collectives, which dp_collective_units may cap (NCCL_MAX_CTAS,
// or Megatron-LM's per-communicator NCCL config: --nccl-communicator-config-path).
double dpCollectiveShare(const DeviceSpec &device, const Scenario &s)
{
    if (!s.dpCollectiveUnits || s.mfu || device.computeUnits <= 0)
        return collectiveShare(device, s);
    return *s.dpCollectiveUnits / device.computeUnits;
}

// NCCL launches one CTA a channel, each on an SM of its own, and a channel's bandwidth is what
// one SM moves, so NCCL launches as many as reach the link (NVIDIA/nccl#689; two a link on
// NVLink: NVIDIA/nccl#1703). Capped below the device's collective_units, a ring through NVLink
// moves that share of NVLink's bus bandwidth at most.
void capDpLink(const DeviceSpec &device, const Scenario &s, Link &link)
{
    if (!s.dpCollectiveUnits || device.collectiveUnits <= 0 || device.intraNodeGbPerS <= 0 ||
        *s.dpCollectiveUnits >= device.collectiveUnits)
        return;
    const double cap = *s.dpCollectiveUnits / device.collectiveUnits * device.intraNodeGbPerS *
                       device.linkEfficiencyOrDefault(true);
    link.gbPerS = std::min(link.gbPerS, cap / link.efficiency);
}

std::string gb(std::int64_t bytes)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GB", static_cast<double>(bytes) / kGB);
    return buffer;
}

// Bytes per parameter for gradients and optimizer states (docs/DESIGN.md §3.5, ZeRO paper §3.1:
// mixed-precision Adam keeps 2 + 2 + K with K = 12).
struct TrainingStates
{
    int gradBytes = 0;
    int optimizerBytes = 0;
    bool fp32Parameters = false; // Report::fp32Parameters
};

TrainingStates trainingStates(const Scenario &s)
{
    if (s.mode != Mode::training)
        return {};
    const bool fp32Weights = s.precision == Precision::fp32;
    // torchtitan trains FP32 parameters (training.dtype float32), cast by FSDP2's
    // MixedPrecisionPolicy or torch.autocast (torchtitan/config/configs.py,
    // mixed_precision_param): they are the master copy.
    const bool fp32Parameters =
        !fp32Weights && frameworkProfile(s.framework).optimizerStep == OptimizerStep::torch;
    // FP32 weights or parameters: the weights are the master copy, so only two FP32 moments
    // (4 + 4 + 8). Otherwise an FP32 master copy plus two FP32 moments (12), as in ZeRO's
    // K = 12. BF16 moments (optimizer_moments; Megatron-core's precision-aware optimizer,
    // megatron/core/optimizer/optimizer_config.py, exp_avg_dtype) take 2 bytes each.
    const int moments = s.optimizerMoments == Precision::bf16 ? 2 + 2 : 4 + 4;
    const int optimizer = (fp32Weights || fp32Parameters ? 0 : 4) + moments;
    // Gradients in the training precision, or FP32 when accumulated so (Megatron-LM's 18 B).
    const int grads = fp32Weights || s.gradPrecision == Precision::fp32 ? 4 : 2;
    return {grads, optimizer, fp32Parameters};
}

// The multi-token-prediction depths a stage trains: the loss's stage's, in training only.
int stageMtpDepths(const Scenario &s, Schedule schedule, int stage)
{
    return s.mode == Mode::training && holdsHead(schedule, s.pp, stage) ? s.mtpLayers : 0;
}

std::int64_t stageParams(const ModelSpec &model, const ParamCounts &perDevice, int stage,
                         int stages, Schedule schedule, int layers, int moeLayers, int tp, int mtp)
{
    if (!model.hasArchitecture())
        return ceilDiv(ceilDiv(model.params, tp), stages);
    std::int64_t params =
        (layers - moeLayers) * perDevice.perLayer + moeLayers * perDevice.perMoeLayer;
    const bool embedding = holdsEmbedding(schedule, stages, stage);
    if (embedding)
        params += perDevice.embedding;
    if (holdsHead(schedule, stages, stage)) {
        params += perDevice.finalNorm + perDevice.lmHead;
        // Multi-token prediction looks its tokens up in an embedding of its own stage
        // (Megatron-core GPTModel builds one where pre_process or mtp_process); a tied LM
        // head on its own stage keeps a copy of the embedding too, as Megatron-LM does.
        if (!embedding && mtp > 0)
            params += perDevice.embedding;
        else if (model.tiedEmbeddings && !embedding)
            params += ceilDiv(model.vocab, tp) * static_cast<std::int64_t>(model.hidden);
        params += mtp * ((mtpLayerIsMoe(model) ? perDevice.perMoeLayer : perDevice.perLayer) +
                         perDevice.perMtpExtra);
    }
    return params;
}

} // namespace

// The precision the weights are held in: FP8 training without FP8 parameters keeps them in
// BF16 and casts them for each step's FP8 multiplies (Megatron-LM's default, without
// --fp8-param-gather: megatron/training/arguments.py); NVFP4 training does too, as without
// Megatron-LM's --fp4-param-gather (its default, and MLPerf v5.1's pre-training runs'), but
// for LoRA's frozen weights with fp8_params, which MLPerf's NVFP4 LoRA runs quantize in place
// once (mlcommons/training_results_v5.1, NVIDIA llama2_70b_lora custom_callbacks.py,
// _pre_quantize_model: each TE module's weight replaced by its NVFP4 tensor).
Precision heldWeightPrecision(const Scenario &s)
{
    const bool nvfp4Frozen = s.precision == Precision::nvfp4 && s.fp8Params && s.loraRank > 0;
    const bool castEachStep = (s.precision == Precision::nvfp4 && !nvfp4Frozen) ||
                              (s.precision == Precision::fp8 && !s.fp8Params);
    return s.mode == Mode::training && castEachStep ? Precision::bf16 : s.precision;
}

namespace {

// Whether the device's FP8 multiplies take the TN layout only: any layout from compute
// capability 10.0 to 11.x and from 13.0, only TN before (Transformer Engine,
// nvte_is_non_tn_fp8_gemm_supported); ROCm's fork, on the devices of no NVIDIA capability,
// keeps the weights' transposes by default (ROCm/TransformerEngine#248,
// keep_fp8_weight_transpose_cache), as TN-only devices need them.
bool fp8TnOnly(const DeviceSpec &device)
{
    const double cc = device.computeCapability;
    return !(cc > 0) || cc < 10 || (cc >= 12 && cc < 13);
}

// Bytes a parameter of a 16-bit weight's cast copy for FP8 or NVFP4 training, cached or not; 0
// where the weights are held in their format already, under ZeRO-3 or in inference.
// Training holds Transformer Engine's MXFP8 weights as Megatron-core builds them: FP8
// parameters scaled per block on a device that multiplies FP8 in every layout (Blackwell's
// MXFP8; Hopper's blocks are FP8 blocks of 128), below ZeRO-3 (Megatron-FSDP holds and gathers
// them its own way, not read here), outside torchtitan's and DeepSpeed's engines.
bool mxfp8Weights(const Scenario &s, const DeviceSpec &device)
{
    return s.mode == Mode::training && s.precision == Precision::fp8 && s.fp8Params &&
           s.fp8Scaling == Fp8Scaling::block && !fp8TnOnly(device) && s.zero < 3 &&
           (s.framework == Framework::megatron || s.framework == Framework::custom);
}

double castCopyBytesPerParam(const Scenario &s, const DeviceSpec &device)
{
    if (s.mode != Mode::training || s.zero >= 3 || heldWeightPrecision(s) != Precision::bf16 ||
        (s.precision != Precision::fp8 && s.precision != Precision::nvfp4))
        return 0;
    // NVFP4: 4-bit row-wise and column-wise data, an FP8 scale per 16 values of each
    // (transformer_engine/pytorch/csrc/quantizer.cpp, NVFP4Quantizer::create_tensor).
    if (s.precision == Precision::nvfp4)
        return 2 * (0.5 + 1.0 / 16);
    // Where FP8 multiplies take the TN layout only the weight keeps its transpose beside the
    // data for the backward's multiply (quantizer.cpp, with_transpose).
    const bool tnOnly = fp8TnOnly(device);
    if (s.fp8Scaling == Fp8Scaling::block)
        // MXFP8 on Blackwell: row-wise and column-wise copies, an E8M0 scale per 32 values of
        // each; FP8 blocks on Hopper: the same two, an FP32 scale per 128 x 128 block of
        // weights (MXFP8Quantizer, Float8BlockQuantizer::create_tensor).
        return tnOnly ? 2 * (1 + 4.0 / (128 * 128)) : 2 * (1 + 1.0 / 32);
    return tnOnly ? 2 : 1;
}

// Bytes the data-parallel all-gather moves for `params` weights, `quantized` of them the layers'
// FP8 ones: FP8 weights travel as their byte (Megatron-core's uint8 parameter buffer), the rest
// of the model in BF16; MXFP8 weights, which Megatron-core cannot map into that buffer, travel
// in BF16 through the gradient buffer and are quantized after (param_and_grad_buffer.py: the
// shared buffer of reuse_grad_buf_for_mxfp8_param_ag, "only half of the buffer is used to store
// params in bf16" under FP32 gradients).
std::int64_t gatheredWeightBytes(const Scenario &s, const DeviceSpec &device, std::int64_t params,
                                 std::int64_t quantized)
{
    const Precision held = heldWeightPrecision(s);
    if (s.mode != Mode::training || (held != Precision::fp8 && held != Precision::nvfp4))
        return weightBytes(params, held);
    if (mxfp8Weights(s, device))
        return weightBytes(params, Precision::bf16);
    const std::int64_t narrow = std::clamp<std::int64_t>(quantized, 0, params);
    return saturatingAdd(weightBytes(narrow, held), weightBytes(params - narrow, Precision::bf16));
}

// What casting the weights moves each micro-batch, in bytes per layer weight
// (LayerConfig::weightCastForwardBytes; docs/step_time.md, "Weight casts").
struct WeightCasts
{
    double forward = 0;
    double backward = 0;
};

// Transformer Engine's cast of a 16-bit weight: read 2 bytes, 2 more for current scaling's (or
// NVFP4's) maximum, write the copy (castCopyBytesPerParam).
double sixteenBitCastBytes(const Scenario &s, const DeviceSpec &device)
{
    const bool amaxPass = s.precision == Precision::nvfp4 || s.fp8Scaling == Fp8Scaling::current;
    return 2.0 + (amaxPass ? 2.0 : 0.0) + castCopyBytesPerParam(s, device);
}

WeightCasts weightCastsPerMicrobatch(const Scenario &s, const DeviceSpec &device)
{
    if (s.mode != Mode::training ||
        (s.precision != Precision::fp8 && s.precision != Precision::nvfp4))
        return {};
    const bool fp8Held = heldWeightPrecision(s) != Precision::bf16;
    // torchao keeps no cast (whatever fp8_weight_cache says), under FSDP2 too, whose gathered
    // weights it casts.
    if (s.framework == Framework::torchtitan) {
        // torchao's Float8Linear scales each cast by its tensor's maximum: the forward reads the
        // 16-bit weight twice and writes FP8 (2 + 2 + 1), the backward casts it again for its
        // column-major operand (matmul_with_hp_or_float8_args); gathered in FP8
        // (enable_fsdp_float8_all_gather) only the backward's column-major copy (read 1,
        // write 1), torch._scaled_mm taking its second operand column-major.
        return fp8Held ? WeightCasts{0, 2} : WeightCasts{5, 5};
    }
    // With the cache the casts are once a step, not timed; under ZeRO-3 what Megatron-FSDP
    // casts for each use is not read here.
    if (s.fp8WeightCache || s.zero >= 3)
        return {};
    // Transformer Engine without is_first_microbatch: each forward casts the 16-bit weight into
    // its copy (read 2, and 2 more for current scaling's maximum; write the copy) and the
    // backward reads that copy; FP8 weights on a TN-only device have their transpose made in
    // each backward (read 1, write 1: Float8Tensor.update_usage).
    // NVFP4 reads its tensor for the maximum first too (addFp8Casts).
    if (!fp8Held)
        return {sixteenBitCastBytes(s, device), 0};
    return {0, fp8TnOnly(device) ? 2.0 : 0.0};
}

// What the casts that run once a step move, in bytes a cast parameter, in the first
// micro-batch's forward of each layer (docs/step_time.md, "Weight casts"); 0 where every cast
// is each micro-batch's (weightCastsPerMicrobatch) or none is made.
double weightCastsOncePerStep(const Scenario &s, const DeviceSpec &device)
{
    if (s.mode != Mode::training ||
        (s.precision != Precision::fp8 && s.precision != Precision::nvfp4) || s.zero >= 3 ||
        s.framework == Framework::torchtitan)
        return 0;
    // MXFP8 weights the distributed optimizer gathered in BF16 are quantized after each gather
    // into both usages (param_and_grad_buffer.py, _post_param_sync: read 2, write 1 + 1 and a
    // scale per 32 values of each); without it the optimizer's write-back makes them.
    if (mxfp8Weights(s, device))
        return s.zero >= 1 ? 2.0 + 2 * (1 + 1.0 / 32) : 0.0;
    if (!s.fp8WeightCache)
        return 0;
    // FP8 weights on a TN-only device: the transpose made after each gather of the updated
    // weights (post_all_gather_processing): read 1, write 1.
    if (heldWeightPrecision(s) != Precision::bf16)
        return fp8TnOnly(device) ? 2.0 : 0.0;
    // 16-bit weights with the cache: the cast each micro-batch makes without it, once
    // (linear.py, _fp8_workspaces, on is_first_microbatch).
    return sixteenBitCastBytes(s, device);
}

// Per stage, the seconds the casts that run once a step take in the first micro-batch's
// forward (PipelineInput::firstForwardExtra): its cast parameters at weightCastsOncePerStep's
// bytes each; empty where there are none.
template <typename Stages>
std::vector<double> onceCastSeconds(const Scenario &s, const DeviceSpec &device,
                                    const DeviceRates *rates, const Stages &stages)
{
    const double bytes = weightCastsOncePerStep(s, device);
    if (!rates || !(bytes > 0))
        return {};
    std::vector<double> out;
    out.reserve(stages.size());
    for (const auto &stage : stages)
        out.push_back(memorySeconds(*rates, bytes * static_cast<double>(stage.castParams)));
    return out;
}

int minTpForWeights(const ModelSpec &model, const Scenario &s, std::int64_t capacity,
                    std::int64_t reserve)
{
    const int limit = model.hasArchitecture() ? model.heads : 1 << 16;
    for (int t = 1; t <= limit; t *= 2) {
        if (model.hasArchitecture() && model.heads % t != 0)
            continue;
        if (saturatingAdd(weightBytes(countParams(model, t, ExpertSplit{s.ep, t}).total,
                                      heldWeightPrecision(s)),
                          reserve) <= capacity)
            return t;
    }
    return 0;
}

// Activations cross the wire in 16 bits unless the model runs in FP32: FP8 training keeps
// BF16 activations between layers (NVIDIA Transformer Engine, "Using FP8"), and weight-only
// quantized inference computes in 16 bits.
Precision tpActivationPrecision(Precision p)
{
    return p == Precision::fp32 || p == Precision::fp16 ? p : Precision::bf16;
}

// Whether some rank of `width` consecutive ones from `first` and the rank `shift` past it lie
// in different nodes of `node` consecutive ranks: r and r + shift do when r's place in its
// node is past node - shift.
bool crossesNode(std::int64_t first, std::int64_t width, std::int64_t shift, std::int64_t node)
{
    return first % node + width + shift > node;
}

// Which of a pipeline's K boundaries cross a node of `devicesPerNode` consecutive ranks (the
// job's share of a node: job_devices_per_node) (docs/step_time.md, "Pipeline sends"):
// boundary b carries stage b's sends to stage b + 1, and boundary K - 1 the last stage's to the
// first (the interleaved schedule's next chunk). In Megatron-core's default rank order a stage
// is T·C·D consecutive ranks, its neighbour the next T·C·D; with the pipeline before the
// data-parallel replicas (rank_order) a stage of a replica is T·C ranks, its replica T·C·K
// consecutive ones, and a boundary crosses when it does in any replica (docs/step_time.md,
// "Rank order"). Empty when every boundary is alike, `allAcross` saying which: the common case,
// kept free of allocations for the planner.
std::vector<char> pipelineCrossings(const Scenario &s, int devicesPerNode, bool &allAcross)
{
    const auto k = static_cast<std::size_t>(std::max(1, s.pp));
    const std::int64_t node = std::max(1, devicesPerNode);
    const bool inner = s.rankOrder == RankOrder::pipelineInner;
    const std::int64_t stage = inner ? std::int64_t{s.tp} * s.cp : s.devices() / s.pp;
    const std::int64_t replica = stage * s.pp;
    // Two stages wider than a node never share one; replicas that each fill whole parts of a
    // node never leave it.
    allAcross = 2 * stage > node;
    if (allAcross || (replica <= node && (!inner || node % replica == 0)))
        return {};
    // Replicas' offsets repeat, modulo a node, after node / gcd(replica, node) of them.
    const std::int64_t copies =
        inner ? std::min<std::int64_t>(s.dp, node / std::gcd(replica, node)) : 1;
    std::vector<char> crosses(k, 0);
    for (std::size_t b = 0; b < k; ++b)
        for (std::int64_t d = 0; d < copies && !crosses[b]; ++d) {
            const std::int64_t from = d * replica;
            crosses[b] = b + 1 < k ? crossesNode(from + static_cast<std::int64_t>(b) * stage, stage,
                                                 stage, node)
                                   : crossesNode(from, stage, (s.pp - 1) * stage, node);
        }
    if (std::adjacent_find(crosses.begin(), crosses.end(), std::not_equal_to<>()) ==
        crosses.end()) {
        allAcross = crosses.front() != 0;
        crosses.clear();
    }
    return crosses;
}

// The replicas hybrid sharding splits the D x C ranks into (zero_replicas); without ZeRO there
// is nothing to shard, and every rank all-reduces with every other; inference has no gradients
// to all-reduce (zero-replicas-unused).
int zeroReplicasOf(const Scenario &s)
{
    return s.zero >= 1 && s.mode == Mode::training ? std::max(1, s.zeroReplicas) : 1;
}

// The ranks ZeRO shards the dense parameters' states over: the D x C that hold the same
// parameters, under hybrid sharding the D x C / R of one replica (torchtitan's dp_shard x cp,
// parallel_dims.py; Megatron-core's intra_distributed_optimizer_instance_group).
int zeroShardRanks(const Scenario &s)
{
    return std::max(1, s.dp * s.cp / zeroReplicasOf(s));
}

// The routed experts' alike: the expert data-parallel group, split the same way.
int expertShardRanks(const Scenario &s)
{
    return std::max(1, s.expertDp() / zeroReplicasOf(s));
}

// The ranks that reduce each parameter's gradients together: the D x C that hold the same
// parameters (Megatron-core distributed_data_parallel.py, the data-parallel group with context
// parallelism), under hybrid sharding the D x C / R of a replica, and in DualPipe the mirrored
// copies on stage K - 1 - i too, whose gradients add to stage i's (deepseek-ai/DualPipe,
// examples/example_dualpipe.py, "Check grads").
int gradientSyncRanks(const Scenario &s)
{
    const bool mirrored = s.mode == Mode::training && s.schedule == Schedule::dualPipe && s.pp > 1;
    return zeroShardRanks(s) * (mirrored ? 2 : 1);
}

// The ring a rank's gradient shard is all-reduced over under hybrid sharding: the same rank of
// each of the R replicas, `stride` ranks apart, as many in a node as fit the stride (FSDP's
// hybrid mesh, the replicas outside the shards).
std::optional<InputError> replicaLink(const DeviceSpec &device, const Scenario &s, int stride,
                                      Link &link)
{
    const int replicas = zeroReplicasOf(s);
    const int perNode = std::max(1, device.devicesPerNode / std::max(1, stride));
    return ringLinkSpread(device, stride * replicas, perNode, replicas, s.interNodeGbPerS, link,
                          "data-parallel replica");
}

// The ring the D x C ranks holding the same parameters reduce over: the C ranks T apart, then
// the D replicas, next to each other in the default rank order; with the pipeline inside,
// T·C·K apart, a node holding a replica's C ranks and as many whole replicas as fit it.
std::optional<InputError> dataParallelLink(const DeviceSpec &device, const Scenario &s, Link &link)
{
    // Under hybrid sharding, the shard group of one replica: the first D / R of the D.
    const int ranks = zeroShardRanks(s);
    const int dp = s.dp / zeroReplicasOf(s);
    if (gradientSyncRanks(s) > ranks) {
        // DualPipe's mirrored copies sit on another stage: the ring spans the pipeline, a
        // node holding the D x C group's members it held before.
        const int node = std::max(1, device.devicesPerNode);
        const int perNode = std::clamp(node / std::max(1, s.tp), 1, ranks);
        return ringLinkSpread(device, s.tp * ranks * s.pp, perNode, 2 * ranks, s.interNodeGbPerS,
                              link, "data-parallel");
    }
    if (s.rankOrder != RankOrder::pipelineInner || s.pp <= 1)
        return ringLink(device, s.tp, ranks, s.interNodeGbPerS, link, "data-parallel");
    const int node = std::max(1, device.devicesPerNode);
    const int replica = s.tp * s.cp * s.pp;
    const int perNode = std::min(s.cp, std::max(1, node / s.tp)) *
                        (replica <= node ? std::min(dp, node / replica) : 1);
    return ringLinkSpread(device, dp > 1 ? replica * dp : s.tp * s.cp, perNode, ranks,
                          s.interNodeGbPerS, link, "data-parallel");
}

// The stride between a dense gradient shard's replicas: one replica's ranks.
int replicaStride(const Scenario &s)
{
    const int stride = s.tp * zeroShardRanks(s);
    return s.rankOrder == RankOrder::pipelineInner ? stride * s.pp : stride;
}

// The ranks that reduce a routed expert's gradients together: the expert data-parallel group,
// T x C x D / (E x expert T) of them (Megatron-core parallel_state.py,
// expert_data_parallel_size), doubled by DualPipe's mirrored copies as gradientSyncRanks is.
int expertSyncRanks(const Scenario &s)
{
    const bool mirrored = gradientSyncRanks(s) > zeroShardRanks(s);
    return expertShardRanks(s) * (mirrored ? 2 : 1);
}

// Their ring: Megatron-core orders a stage's expert ranks expert T, E, then expert D
// (parallel_state.py, the expert RankGenerator's "tp-ep-dp-pp", "tp-ep-pp-dp" with
// --use-tp-pp-dp-mapping), so its members are E x expert T apart (times K with the pipeline
// inside), each node holding as many as fit the stride.
std::optional<InputError> expertDataParallelLink(const DeviceSpec &device, const Scenario &s,
                                                 Link &link)
{
    const int ranks = expertSyncRanks(s);
    int stride = s.ep * s.expertTpDegree();
    if (s.rankOrder == RankOrder::pipelineInner && s.pp > 1)
        stride *= s.pp;
    const int perNode = std::max(1, device.devicesPerNode / std::max(1, stride));
    return ringLinkSpread(device, stride * ranks, perNode, ranks, s.interNodeGbPerS, link,
                          "expert data-parallel");
}

// The stride between a routed expert's gradient shard's replicas: one replica's expert ranks.
int expertReplicaStride(const Scenario &s)
{
    int stride = s.ep * s.expertTpDegree() * expertShardRanks(s);
    if (s.rankOrder == RankOrder::pipelineInner && s.pp > 1)
        stride *= s.pp;
    return stride;
}

// The two syncs of one stage run over the same network in the same backward: their times add.
DpSync plus(DpSync a, const DpSync &b)
{
    a.bytesPerStep += b.bytesPerStep;
    a.seconds += b.seconds;
    a.stepBackwardS += b.stepBackwardS;
    a.stepForwardS += b.stepForwardS;
    a.microbatchBackwardS += b.microbatchBackwardS;
    a.microbatchForwardS += b.microbatchForwardS;
    return a;
}

// Everything the per-operation model (docs/step_time.md) derives for one scenario: one
// layer's operations, the work around the layers and the pipeline's sends.
struct Timing
{
    std::optional<DeviceRates> rates; // nothing: the schedule runs in layer-time units
    double collectiveShare = 0;       // of the device, a hidden collective's kernels hold
    bool fp8Attention = false;        // the fused attention kernel runs in FP8 (fp8AttentionRuns)
    LayerTimes layer;
    LayerTimes moeLayer;        // a layer with experts (docs/experts.md)
    std::vector<int> moeLayers; // per stage, of its layers
    // Sliding windows on some layers only: the layers above time attention as the model's
    // mix; each stage counts its own windowed and full layers instead, a windowed layer being
    // the mix plus windowedOverMix and a full one the mix plus fullOverMix (docs/step_time.md,
    // "Attention shapes"). Both, as the context-parallel exchange hidden behind the attention
    // is not linear in it. Null for every other model: the common case stays cheap.
    struct Windows
    {
        std::vector<int> slidingLayers; // per stage, of its layers
        LayerTimes windowedOverMix;
        LayerTimes fullOverMix;
    };
    std::unique_ptr<Windows> windows;
    // Per stage, the share of its layers full recomputation reruns (recomputedShares); empty:
    // every layer's recomputation runs, as the layer times count it.
    std::vector<double> recomputedShare;
    double rerunShare(std::size_t i) const
    {
        return i < recomputedShare.size() ? recomputedShare[i] : 1.0;
    }
    // `layers` of stage i, by the member of LayerTimes given: F, B, W or recomputation.
    double stageLayers(std::size_t i, int layers, double LayerTimes::*part) const
    {
        const int moe = i < moeLayers.size() ? moeLayers[i] : 0;
        const double mix = (layers - moe) * layer.*part + moe * moeLayer.*part;
        const double all = windows ? mix + windowedLayers(i, layers, part) : mix;
        return part == &LayerTimes::recomputeS ? rerunShare(i) * all : all;
    }
    double stagePart(std::size_t i, int layers, std::size_t p) const
    {
        const int moe = i < moeLayers.size() ? moeLayers[i] : 0;
        const double mix =
            (layers - moe) * layer.parts.seconds[p] + moe * moeLayer.parts.seconds[p];
        const double all = windows ? mix + windowedPart(i, layers, p) : mix;
        return p == static_cast<std::size_t>(TimePart::recompute) ? rerunShare(i) * all : all;
    }
    // A run of `layers` consecutive layers, `moe` with experts and `sliding` windowed.
    double runLayers(int layers, int moe, int sliding, double LayerTimes::*part) const
    {
        const double mix = (layers - moe) * layer.*part + moe * moeLayer.*part;
        return windows ? mix + sliding * windows->windowedOverMix.*part +
                             (layers - sliding) * windows->fullOverMix.*part
                       : mix;
    }
    // What stage i's windowed and full layers add to the mix (out of line: most models have
    // no window, and the two above stay small enough to inline).
    double windowedLayers(std::size_t i, int layers, double LayerTimes::*part) const;
    double windowedPart(std::size_t i, int layers, std::size_t p) const;
    EndTimes first;
    EndTimes last;
    // The blocking send of one micro-batch's activations over a pipeline boundary inside a
    // node and across nodes, and which boundaries cross (pipelineCrossings: empty when all
    // are alike, allAcross saying which).
    Link ppInside;
    Link ppAcross;
    double sendInsideS = 0;
    double sendAcrossS = 0;
    std::vector<char> crosses;
    bool allAcross = true;
    bool crossesAt(std::size_t boundary) const
    {
        return crosses.empty() ? allAcross : crosses[boundary] != 0;
    }
    double sendS(std::size_t boundary) const
    {
        return crossesAt(boundary) ? sendAcrossS : sendInsideS;
    }
    std::optional<InputError> tpLinkError;
    std::optional<InputError> ppLinkError;
    Link tpLink;
    // offload_layers: what one micro-batch's forward and backward wait for the copies (one
    // stage only), one layer's copy (the first's) and the host link's sustained rate.
    OffloadWait offload;
    double offloadCopyS = 0;
    double hostBytesPerS = 0;
};

double Timing::windowedLayers(std::size_t i, int layers, double LayerTimes::*part) const
{
    const int n = windows->slidingLayers[i];
    return n * windows->windowedOverMix.*part + (layers - n) * windows->fullOverMix.*part;
}

double Timing::windowedPart(std::size_t i, int layers, std::size_t p) const
{
    const int n = windows->slidingLayers[i];
    return n * windows->windowedOverMix.parts.seconds[p] +
           (layers - n) * windows->fullOverMix.parts.seconds[p];
}

// The share of a run of `layers` consecutive layers that full recomputation reruns:
// Megatron-LM's block method reruns the first recompute_layers of each chunk and keeps the
// others' activations (transformer_block.py, _checkpointed_forward; docs/activations.md,
// "Recomputed layers").
double recomputedShare(const Scenario &s, int layers)
{
    if (s.recompute != Recompute::full || s.recomputeLayers <= 0 || layers <= 0)
        return 1.0;
    return static_cast<double>(std::min(s.recomputeLayers, layers)) / layers;
}

// Each stage's share over its chunks (recomputedShare); empty where every layer reruns.
std::vector<double> recomputedShares(const Scenario &s, const ModelSpec &model)
{
    if (s.mode != Mode::training || s.recompute != Recompute::full || s.recomputeLayers <= 0 ||
        !model.hasArchitecture() || s.pp <= 0)
        return {};
    const std::vector<LayerRun> runs = virtualStageLayers(s, model);
    const int chunks = chunksPerStage(s.schedule, s.virtualStages);
    std::vector<double> out(static_cast<std::size_t>(s.pp), 1.0);
    for (int stage = 0; stage < s.pp; ++stage) {
        double rerun = 0, layers = 0;
        for (int c = 0; c < chunks; ++c) {
            const auto j = static_cast<std::size_t>(virtualStageOf(s.schedule, s.pp, stage, c));
            if (j >= runs.size())
                continue;
            rerun += std::min(s.recomputeLayers, runs[j].count);
            layers += runs[j].count;
        }
        out[static_cast<std::size_t>(stage)] = layers > 0 ? rerun / layers : 1.0;
    }
    return out;
}

// Each layer's forward, backward and one-way copy of its activations over the host link, and
// what one micro-batch waits for offload_layers' copies (core/offload.h). A layer copies what
// the memory model keeps of it (docs/activations.md, "Offloaded layers").
OffloadWait offloadWaitOf(const Scenario &s, const ModelSpec &model, const DeviceSpec &device,
                          Timing &t)
{
    ActivationConfig act = activationConfig(s, model, device);
    const double dense = static_cast<double>(layerActivationBytes(model, act));
    act.moe = true;
    const double moe =
        model.hasExperts() ? static_cast<double>(layerActivationBytes(model, act)) : dense;
    const double rate = device.hostGbPerS * kGB * device.hostEfficiencyOrDefault();
    const auto n = static_cast<std::size_t>(model.layers);
    std::vector<double> forward(n), backward(n), copy(n);
    for (int i = 0; i < model.layers; ++i) {
        const int expert = moeLayersIn(model, i, 1);
        const int sliding = t.windows ? slidingLayersIn(model, i, 1) : 0;
        const auto u = static_cast<std::size_t>(i);
        forward[u] = t.runLayers(1, expert, sliding, &LayerTimes::forwardS);
        backward[u] = t.runLayers(1, expert, sliding, &LayerTimes::backwardS) +
                      t.runLayers(1, expert, sliding, &LayerTimes::weightS);
        copy[u] = (expert > 0 ? moe : dense) / rate;
    }
    t.offloadCopyS = copy.empty() ? 0.0 : copy.front();
    t.hostBytesPerS = rate;
    return offloadWait(forward, backward, copy, s.offloadLayers);
}

Timing timing(const Scenario &s, const ModelSpec &model, const DeviceSpec &device,
              std::vector<int> moeLayers, std::vector<int> slidingLayers)
{
    Timing t;
    t.moeLayers = std::move(moeLayers);
    t.recomputedShare = recomputedShares(s, model);
    t.tpLinkError = chooseLink(device, s.tp, s.interNodeGbPerS, t.tpLink);
    if (!model.hasArchitecture())
        return t;
    t.rates = deviceRates(device, s.precision, s.mfu, s.mode == Mode::training,
                          (model.headDim() + model.valueHeadDim()) / 2.0,
                          s.fp8Scaling == Fp8Scaling::block);
    if (!t.rates)
        return t;
    LayerConfig c;
    c.seqLen = s.seqLen;
    c.microbatchSize = s.microbatchSize;
    c.tp = s.tp;
    c.sequenceParallel = s.sequenceParallel && s.tp > 1;
    c.tpOverlap = s.tpOverlap && c.sequenceParallel;
    c.tpOverlapQkv = s.tpOverlapQkv;
    c.training = s.mode == Mode::training;
    // Packed examples change only what a fused kernel visits (packed-unused otherwise).
    c.packedExampleTokens =
        c.training && s.attention != Attention::eager ? s.packedExampleTokens : 0;
    c.recompute = c.training ? s.recompute : Recompute::none;
    c.recomputeModules = recomputeModuleBits(s);
    // LoRA: frozen projections with adapters beside them (docs/step_time.md, "LoRA").
    c.loraRank = c.training ? s.loraRank : 0;
    c.loraModules = loraModuleBits(s);
    c.loraA2a = s.loraA2a;
    c.loraDropout = s.loraDropout > 0;
    c.loraDropoutPost = s.loraDropoutPosition == LoraDropoutPosition::post;
    c.attention = s.attention;
    c.activationBytes = activationValueBytes(s.precision);
    c.weightBytes = bitsPerValue(s.precision) / 8.0;
    c.commBytes = static_cast<int>(bitsPerValue(tpActivationPrecision(s.precision)) / 8);
    c.fp8AmaxPass = s.fp8Scaling == Fp8Scaling::current;
    c.fp8Attention = t.fp8Attention = fp8AttentionRuns(s, device, model);
    c.fp8LmHead = s.fp8LmHead && !fp8LmHeadUnused(s);
    c.lossFusion = s.lossFusion;
    c.fusedElementwise = s.fusedElementwise;
    c.fp8ActivationInput = c.training && s.fp8ActivationInput && model.gatedMlp && s.fusedSwiglu;
    c.tpLink = t.tpLink;
    // Megatron-core orders ranks T, C, E, D, K: a sequence's C ranks span T x C devices, an
    // all-to-all E x expert T (parallel_state.py, RankGenerator order "tp-cp-ep-dp-pp").
    c.cp = s.cp;
    c.cpExchange = s.cpExchange;
    if (s.cp > 1)
        chooseLink(device, s.tp * s.cp, s.interNodeGbPerS, c.cpLink);
    c.collectiveShare = collectiveShare(device, s);
    t.collectiveShare = c.collectiveShare;
    c.ep = s.ep;
    c.expertTp = s.expertTpDegree();
    if (model.hasExperts()) {
        chooseLink(device, s.ep * c.expertTp, s.interNodeGbPerS, c.epLink);
        // E ranks expert T apart: those in one node exchange over NVLink, the rest over
        // each device's own NIC.
        c.epPerNode = c.epLink.kind == LinkKind::interNode
                          ? std::clamp(device.devicesPerNode / std::max(1, c.expertTp), 1, s.ep)
                          : s.ep;
        chooseLink(device, 1, s.interNodeGbPerS, c.epNodeLink);
        chooseLink(device, c.expertTp, s.interNodeGbPerS, c.expertTpLink);
        c.epFlex = s.epDispatcher == EpDispatcher::flex;
        c.expertLoad = expertLoad(s, model);
        c.expertRoutedLoad = expertRoutedLoad(s, model);
        c.epRemoteNodes = c.epFlex ? remoteNodes(model, s.ep, c.epPerNode) : 0.0;
    }
    // A separate add reads the accumulated and the new gradient and writes the sum.
    if (!s.fusedGradAccumulation)
        c.gradAccumulationBytes = 2.0 * trainingStates(s).gradBytes + c.weightBytes;
    // The fused weight-gradient multiply adds into the accumulated gradient in its epilogue,
    // reading and writing it (Megatron-LM, wgrad_gemm_accum_fp32 / Transformer Engine
    // general_gemm with accumulate=True into main_grad).
    else
        c.weightGradStoreBytes = 2.0 * trainingStates(s).gradBytes;
    const WeightCasts casts = weightCastsPerMicrobatch(s, device);
    c.weightCastForwardBytes = casts.forward;
    c.recastInputs = c.training && !s.saveQuantizedInputs;
    c.weightCastBackwardBytes = casts.backward;
    t.layer = layerTimes(model, c, *t.rates);
    if (model.hasExperts()) {
        LayerConfig moe = c;
        moe.moe = true;
        t.moeLayer = layerTimes(model, moe, *t.rates);
    }
    // A windowed and a full layer against the mix: the attention (and what hides behind it)
    // alone differs.
    const int windowed = slidingLayersIn(model, 0, model.layers);
    if (windowed > 0 && windowed < model.layers) {
        const auto overMix = [&](const ModelSpec &m) {
            const LayerTimes x = layerTimes(m, c, *t.rates);
            LayerTimes d;
            d.forwardS = x.forwardS - t.layer.forwardS;
            d.backwardS = x.backwardS - t.layer.backwardS;
            d.weightS = x.weightS - t.layer.weightS;
            d.recomputeS = x.recomputeS - t.layer.recomputeS;
            for (std::size_t p = 0; p < kTimePartCount; ++p)
                d.parts.seconds[p] = x.parts.seconds[p] - t.layer.parts.seconds[p];
            return d;
        };
        ModelSpec allWindowed = model;
        allWindowed.fullAttentionPeriod = 0;
        ModelSpec noWindow = model;
        noWindow.slidingWindow = 0;
        t.windows = std::make_unique<Timing::Windows>(
            Timing::Windows{std::move(slidingLayers), overMix(allWindowed), overMix(noWindow)});
    }
    t.first = firstStageTimes(model, c, *t.rates);
    t.last = lastStageTimes(model, c, *t.rates);
    if (c.training && s.mtpLayers > 0) {
        // Megatron-core skips the block method's recomputation in its MTP layers
        // (multi_token_prediction.py: "recompute_method == 'block' is not supported for MTP
        // yet. Skipping recompute."): with recompute_layers they run as without.
        LayerConfig mc = c;
        if (recomputesSomeLayers(s))
            mc.recompute = Recompute::none;
        const bool moe = mtpLayerIsMoe(model);
        const LayerTimes *layer = moe ? &t.moeLayer : &t.layer;
        LayerTimes own;
        if (t.windows || mc.recompute != c.recompute) {
            // The last layer's own attention, not the windowed mix.
            ModelSpec last = model;
            if (t.windows && isSlidingLayer(model, model.layers - 1))
                last.fullAttentionPeriod = 0;
            else if (t.windows)
                last.slidingWindow = 0;
            LayerConfig lc = mc;
            lc.moe = moe;
            own = layerTimes(last, lc, *t.rates);
            layer = &own;
        }
        const EndTimes head = t.last;
        addMultiTokenPrediction(t.last, model, mc, *t.rates, *layer, t.first, head, s.mtpLayers);
    }
    if (s.pp > 1) {
        // One micro-batch's hidden state, 1/T of it per device: with sequence parallelism
        // it is already split; without, Megatron-LM sends 1/T and all-gathers it over the
        // node (Narayanan et al. 2021, §4.1, "scatter/gather").
        const double values = localTokens(c) * model.hidden;
        const double bytes = values * c.commBytes / s.tp;
        // The receiver all-gathers the T pieces over NVLink before using them (Narayanan et
        // al. 2021, §4.1; Megatron-LM p2p_communication.py, gather_split_1d_tensor); the send
        // blocks until then, so it is timed as part of the send.
        const double gather =
            s.tp > 1 && !c.sequenceParallel && t.tpLink.gbPerS > 0
                ? collectiveSeconds(Collective::allGather,
                                    static_cast<std::int64_t>(values * c.commBytes), s.tp, t.tpLink)
                : 0.0;
        t.crosses = pipelineCrossings(s, device.jobDevicesPerNodeOrDefault(), t.allAcross);
        const bool anyInside = !t.crosses.empty() || !t.allAcross;
        const bool anyAcross = !t.crosses.empty() || t.allAcross;
        auto insideError = chooseLink(device, 2, s.interNodeGbPerS, t.ppInside, "pipeline");
        // A group one device wider than a node takes the network (a node as large as an int
        // holds any job, and nothing crosses it).
        const int wider = device.devicesPerNode < std::numeric_limits<int>::max()
                              ? std::max(2, device.devicesPerNode + 1)
                              : device.devicesPerNode;
        auto acrossError = chooseLink(device, wider, s.interNodeGbPerS, t.ppAcross, "pipeline");
        if (anyAcross && acrossError)
            t.ppLinkError = std::move(acrossError);
        else if (anyInside && insideError)
            t.ppLinkError = std::move(insideError);
        const auto send = [&](const Link &link) {
            return t.ppLinkError ? 0.0
                                 : messageLatencySeconds(link) +
                                       bytes / (link.gbPerS * kGB * link.efficiency) + gather;
        };
        t.sendInsideS = anyInside ? send(t.ppInside) : 0.0;
        t.sendAcrossS = anyAcross ? send(t.ppAcross) : 0.0;
    }
    if (s.mode == Mode::training && s.offloadLayers > 0 && s.pp == 1 && device.hostGbPerS > 0)
        t.offload = offloadWaitOf(s, model, device, t);
    return t;
}

// Why the schedule has no seconds, for the "no-timing" warning; nullopt when it has.
std::optional<std::string> noTimingReason(const Scenario &s, const ModelSpec &model,
                                          const DeviceSpec &device)
{
    const std::string &deviceName = device.name.empty() ? device.id : device.name;
    const std::string &modelName = model.name.empty() ? model.id : model.name;
    if (!model.hasArchitecture())
        return modelName + " gives only its size, no layers whose FLOPs could be timed";
    const Precision compute = computePrecision(s.precision, device, s.mode == Mode::training);
    if (!device.tflops.contains(compute))
        return deviceName + " publishes no " + std::string(toString(compute)) + " peak FLOPS";
    return std::nullopt;
}

// Why ep_overlap cannot apply to this scenario, or nothing when it does: Megatron-LM's
// combined 1F1B needs expert parallelism and, with a pipeline, the interleaved schedule, and
// refuses full recomputation (megatron/core/transformer/transformer_config.py,
// overlap_moe_expert_parallel_comm).
std::optional<std::string> epOverlapUnused(const Scenario &s, const ModelSpec &model)
{
    if (s.mode != Mode::training)
        return "inference runs no backward to pair with";
    if (!model.hasExperts() || s.ep <= 1)
        return "it needs experts spread over E > 1 devices";
    // DualPipe and DualPipeV run their own forward-and-backward pairs (deepseek-ai/DualPipe,
    // dualpipe.py and dualpipev.py).
    if (isDualPipe(s.schedule))
        return std::nullopt;
    if (s.pp > 1 && s.schedule != Schedule::interleaved)
        return "with K > 1 Megatron-LM runs it in the interleaved schedule only (DualPipe and "
               "DualPipeV pair their own)";
    if (s.pp == 1 && s.schedule != Schedule::oneFOneB && s.schedule != Schedule::interleaved)
        return "it runs forwards and backwards in turn, as 1F1B does";
    if (s.recompute == Recompute::full)
        return "Megatron-LM refuses it with full recomputation";
    return std::nullopt;
}

// The pipeline's shape without its times: what the schedule's order, and so the in-flight
// micro-batches and the activations alive, depend on.
PipelineInput pipelineShape(const Scenario &s)
{
    PipelineInput in;
    in.schedule = s.mode == Mode::training ? s.schedule : Schedule::gpipe;
    in.stages = s.pp;
    in.microbatches = s.microbatches;
    in.virtualStages = s.virtualStages;
    return in;
}

PipelineInput pipelineInput(const Scenario &s, const ModelSpec &model, const Timing &t,
                            const std::vector<int> &layers)
{
    const bool training = s.mode == Mode::training;
    PipelineInput in = pipelineShape(s);
    const bool split = training && splitsWeightGradients(s.schedule);
    // The layers each entry times: a stage's, or where a stage holds chunks, each virtual
    // stage's own run (virtualStageLayers), so that a device's chunks may differ: DeepSeek-V3's
    // dense first layers share a device with MoE ones, and Megatron-LM's interleaved chunk c
    // of stage s runs the model's part c·K + s.
    struct Run
    {
        int layers = 0, moe = 0, sliding = 0;
    };
    std::vector<Run> runs;
    if (training && chunksPerStage(s.schedule, s.virtualStages) > 1 && model.hasArchitecture()) {
        const std::vector<LayerRun> held = virtualStageLayers(s, model);
        runs.reserve(held.size());
        for (const LayerRun &r : held)
            runs.push_back({r.count, moeLayersIn(model, r.first, r.count),
                            slidingLayersIn(model, r.first, r.count)});
    } else {
        runs.resize(layers.size());
        for (std::size_t i = 0; i < layers.size(); ++i)
            runs[i] = {layers[i], i < t.moeLayers.size() ? t.moeLayers[i] : 0,
                       t.windows ? t.windows->slidingLayers[i] : 0};
    }
    in.forward.reserve(runs.size());
    in.backward.reserve(runs.size());
    in.weight.reserve(runs.size());
    for (const Run &run : runs) {
        if (!t.rates) {
            // Layer-time units (teaching mode): F = 1 per layer, B = 2F (Narayanan et al.
            // 2021, §5.1), zb-h1 and dualpipe(v) B = W = F (Qi et al. 2023, §2), no
            // recomputation.
            const double f = model.hasArchitecture() ? run.layers : 1;
            in.forward.push_back(f);
            in.backward.push_back(training ? (split ? f : 2 * f) : 0.0);
            in.weight.push_back(split ? f : 0.0);
            continue;
        }
        const auto time = [&](double LayerTimes::*part) {
            return t.runLayers(run.layers, run.moe, run.sliding, part);
        };
        const double f = time(&LayerTimes::forwardS);
        // Recomputation reruns its part of the forward just before the backward that needs it.
        const double b = time(&LayerTimes::backwardS) +
                         recomputedShare(s, run.layers) * time(&LayerTimes::recomputeS);
        const double w = time(&LayerTimes::weightS);
        in.forward.push_back(f);
        in.backward.push_back(training ? (split ? b : b + w) : 0.0);
        in.weight.push_back(split ? w : 0.0);
    }
    // offload_layers (one stage): each micro-batch's passes wait for their copies.
    if (in.forward.size() == 1 && training) {
        in.forward[0] += t.offload.forwardS;
        in.backward[0] += t.offload.backwardS;
        in.forwardOffloadWait = t.offload.forwardS;
        in.backwardOffloadWait = t.offload.backwardS;
    }
    // The MoE layers' all-to-all inside each entry's passes, for the timeline to show.
    if (t.rates && !t.moeLayers.empty()) {
        double forward = 0, backward = 0, rerun = 0;
        for (const LayerOp &op : t.moeLayer.ops)
            if (op.part == TimePart::expertComm) {
                forward += op.forward.seconds;
                backward += op.backward.seconds;
                rerun += op.rerun * op.forward.seconds;
            }
        if (forward + backward + rerun > 0)
            for (const Run &run : runs) {
                in.forwardExpertComm.push_back(run.moe * forward);
                in.backwardExpertComm.push_back(
                    training ? run.moe * (backward + recomputedShare(s, run.layers) * rerun) : 0.0);
            }
    }
    in.expertOverlap =
        s.epOverlap && t.rates && !in.forwardExpertComm.empty() && !epOverlapUnused(s, model);
    in.expertCommShare = t.collectiveShare;
    // The embedding belongs to the model's first chunk, the LM head and loss to its last.
    if (t.rates) {
        const auto extra = [&](const EndTimes &end) {
            return std::array<double, 3>{
                end.forwardS,
                training ? (split ? end.backwardS : end.backwardS + end.weightS) : 0.0,
                split ? end.weightS : 0.0};
        };
        in.firstChunkExtra = extra(t.first);
        in.lastChunkExtra = extra(t.last);
    }
    // One send time for every boundary, or each its own when some stay in a node.
    if (s.pp > 1) {
        in.p2pSend = t.sendS(0);
        if (!t.crosses.empty()) {
            in.p2pSend = std::max(t.sendInsideS, t.sendAcrossS);
            in.boundarySend.reserve(t.crosses.size());
            for (std::size_t b = 0; b < t.crosses.size(); ++b)
                in.boundarySend.push_back(t.sendS(b));
        }
    }
    return in;
}

// The layers only, without the end stages' embedding and LM head or the sends: the equal
// stages and free communication the closed forms assume (Narayanan et al. 2021, §2.2).
// Taken from the simulated input, whose per-stage times are the layers' own.
PipelineInput layersOnly(PipelineInput in)
{
    in.forwardExpertComm.clear();
    in.backwardExpertComm.clear();
    in.firstChunkExtra = {};
    in.lastChunkExtra = {};
    in.firstForwardExtra.clear();
    in.firstForwardGather.clear();
    in.p2pSend = 0.0;
    in.boundarySend.clear();
    return in;
}

// Each stage's MoE layers, with its multi-token-prediction depths where they have experts.
std::vector<int> waitingMoeLayers(const ModelSpec &model,
                                  const std::vector<StageModelStates> &stages)
{
    std::vector<int> moe;
    moe.reserve(stages.size());
    for (const StageModelStates &st : stages)
        moe.push_back(st.moeLayers + mtpMoeLayers(model, st.mtpLayers));
    return moe;
}

// The published runs' untimed host cost per MoE layer and micro-batch (kMoeHostGapMinS to
// kMoeHostGapMaxS), kept in the step time's report with a warning where its low end reaches
// kMoeHostWarnShare of the step. Every stage waits for its own MoE layers, and the pipeline
// runs at the pace of its slowest stage: the stage the wait slows most is the one whose own
// work plus its wait is longest, and what the wait adds is that less the busiest stage's work
// (on one stage, or where the busiest holds the most MoE layers, its MoE layers × micro-batches
// × the gap).
// `moeLayers`: each stage's MoE layers that wait, a multi-token-prediction depth with experts
// among them (DeepSeek-V3's MTP layer routes as its other layers do).
std::optional<Warning> addMoeHostWait(const Scenario &s, const std::vector<int> &moeLayers,
                                      StepTimeReport &st)
{
    const auto busiest = static_cast<std::size_t>(st.busiestStage);
    if (busiest >= st.stages.size() || !moeHostCostUntimed(s) || !(st.stepTimeS > 0))
        return std::nullopt;
    const double busiestWork = st.stages[busiest].stageWork();
    std::size_t stage = busiest;
    double low = -1;
    for (std::size_t i = 0; i < st.stages.size() && i < moeLayers.size(); ++i) {
        if (moeLayers[i] == 0)
            continue;
        const double waited = st.stages[i].stageWork() +
                              static_cast<double>(moeLayers[i]) * s.microbatches * kMoeHostGapMinS -
                              busiestWork;
        if (waited > low + 1e-12 || (i == busiest && waited >= low - 1e-12)) {
            low = waited;
            stage = i;
        }
    }
    if (low < 0 || low < kMoeHostWarnShare * st.stepTimeS)
        return std::nullopt;
    const double layerMicrobatches = static_cast<double>(moeLayers[stage]) * s.microbatches;
    st.moeHostLowS = low;
    st.moeHostHighS = low + layerMicrobatches * (kMoeHostGapMaxS - kMoeHostGapMinS);
    st.moeHostStage = static_cast<int>(stage);
    st.moeHostLayerMicrobatches = layerMicrobatches;
    char text[640];
    std::snprintf(text, sizeof text,
                  "the step likely takes %.0f to %.0f %% longer: published Megatron-LM MoE runs "
                  "outside a CUDA graph of the whole step took %.1f to %.1f ms longer a MoE layer "
                  "and micro-batch than modelled, dropless ones (whose routing waits on the "
                  "device for its token counts) and ones padded to capacity alike, which is not "
                  "timed; here %d MoE layers x %d micro-batches on stage %d (full_cuda_graph "
                  "removes it; docs/step_time.md, \"Fine-grained experts\")",
                  100 * st.moeHostLowS / st.stepTimeS, 100 * st.moeHostHighS / st.stepTimeS,
                  1e3 * kMoeHostGapMinS, 1e3 * kMoeHostGapMaxS, moeLayers[stage], s.microbatches,
                  st.moeHostStage);
    return Warning{"moe-host", text};
}

// Each stage's own work in one step, by part: m micro-batches of its layers and ends, and
// the sends its ops make (every F but the model's last, every B but its first).
std::vector<TimeBreakdown> stageWork(const Scenario &s, const Timing &t,
                                     const std::vector<int> &layers)
{
    const bool training = s.mode == Mode::training;
    const double m = s.microbatches;
    const Schedule schedule = training ? s.schedule : Schedule::gpipe;
    const double v = chunksPerStage(schedule, s.virtualStages);
    // DualPipe's micro-batches each pass one of a device's two stages, and meet an end stage's
    // embedding or LM head in one direction only.
    const double passes = m * passedShare(schedule);
    std::vector<TimeBreakdown> out;
    out.reserve(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        TimeBreakdown b;
        for (std::size_t p = 0; p < kTimePartCount; ++p)
            b.seconds[p] = passes * t.stagePart(i, layers[i], p);
        const int stage = static_cast<int>(i);
        for (const EndTimes *end : {holdsEmbedding(schedule, s.pp, stage) ? &t.first : nullptr,
                                    holdsHead(schedule, s.pp, stage) ? &t.last : nullptr})
            if (end)
                for (const LayerOp &op : end->ops)
                    b[op.part] +=
                        passes * (op.forward.seconds + op.backward.seconds + op.weight.seconds);
        if (training)
            b[TimePart::offload] = passes * (t.offload.forwardS + t.offload.backwardS);
        if (s.pp > 1) {
            const std::size_t k = layers.size();
            if (schedule == Schedule::dualPipe) {
                // Each boundary carries the forward direction's m/2 F's and the reverse one's
                // m/2 B's one way, and the others back: m each way, from the end stages
                // inward only.
                b[TimePart::pipelineComm] =
                    (i + 1 < k ? m * t.sendS(i) : 0.0) + (i > 0 ? m * t.sendS(i - 1) : 0.0);
            } else if (schedule == Schedule::dualPipeV) {
                // The V: chunk 0 passes on over boundary i (not from the last stage, where
                // it turns), chunk 1 over boundary i - 1 (not from stage 0, where it ends);
                // each B goes back the way its F came.
                const double out0 = i + 1 < k ? m : 0;
                const double out1 = i > 0 ? m : 0;
                const double ways = training ? 2 : 1; // F out, B back
                b[TimePart::pipelineComm] =
                    ways * (out0 * t.sendS(i) + (i > 0 ? out1 * t.sendS(i - 1) : 0.0));
            } else {
                // F sends go over the stage's own boundary, B sends over the one before it.
                const double forwardSends = m * v - (i + 1 == k ? m : 0);
                const double backwardSends = training ? m * v - (i == 0 ? m : 0) : 0;
                b[TimePart::pipelineComm] =
                    forwardSends * t.sendS(i) + backwardSends * t.sendS((i + k - 1) % k);
            }
        }
        out.push_back(b);
    }
    return out;
}

// The warnings about the scenario itself; Report::firstOverflowTerm is set.
void addWarnings(Report &r, const Scenario &s, const ModelSpec &model, const DeviceSpec &device)
{
    if (!r.fits && r.firstOverflowStage >= 0) {
        const auto &st = r.stages[static_cast<std::size_t>(r.firstOverflowStage)];
        std::string message =
            st.headroomBytes >= 0 // only its offloaded activations overflow, in host memory
                ? "stage " + std::to_string(st.index) + " does not fit: its " +
                      std::to_string(st.offloadedLayers) + " offloaded layers' activations need " +
                      gb(st.offloadedBytes) + " of host memory, of the " +
                      gb(st.hostCapacityBytes) + " a device has (host_memory_gb)"
                : "stage " + std::to_string(st.index) + " does not fit: it needs " +
                      gb(st.totalBytes) + " of " + gb(st.capacityBytes) + ", most of it " +
                      r.firstOverflowTerm;
        // The first stage over is not always the one to fix first: name the furthest over.
        if (r.overflowStages > 1) {
            message += "; " + std::to_string(r.overflowStages) + " stages do not fit";
            if (r.worstOverflowStage != r.firstOverflowStage) {
                const auto &worst = r.stages[static_cast<std::size_t>(r.worstOverflowStage)];
                message += ", the furthest over stage " + std::to_string(worst.index) + " with " +
                           gb(worst.totalBytes) + ", most of it " + r.worstOverflowTerm;
            }
        }
        r.warnings.push_back({"does-not-fit", std::move(message)});
    }
    if (s.pp > 1 && s.microbatches < s.pp)
        r.warnings.push_back({"pipe-never-fills", "m = " + std::to_string(s.microbatches) +
                                                      " < K = " + std::to_string(s.pp) +
                                                      ": the pipeline never fills"});
    // Counting the embedding and the loss as layers, the split is even when L + 2 divides.
    const int counted = countedLayers(model.layers, s.pp, s.endsInPipelineSplit);
    if (model.hasArchitecture() && counted % s.pp != 0 && s.pipelineLayout.empty())
        r.warnings.push_back(
            {"uneven-stages",
             std::to_string(model.layers) +
                 (counted != model.layers ? " layers and the two ends" : " layers") +
                 " do not divide into " + std::to_string(s.pp) + " stages; the first " +
                 std::to_string(counted % s.pp) + " take one more"});
    if (const auto layout = pipelineLayoutStages(s, model)) {
        if (s.endsInPipelineSplit && s.pp > 1)
            r.warnings.push_back({"ends-in-split-unused",
                                  "pipeline_layout places the embedding and the loss itself; "
                                  "ends_in_pipeline_split is not used",
                                  "ends_in_pipeline_split", "false"});
    }
    if (s.mtpLayers > 0 && s.mode != Mode::training)
        r.warnings.push_back({"mtp-unused",
                              "mtp_layers trains multi-token prediction beside the "
                              "model; inference here runs the model alone (its "
                              "use as a speculative draft is not modelled)",
                              "mtp_layers", "0"});
    if (s.tp > device.devicesPerNode)
        r.warnings.push_back({"tp-spans-nodes", "tp = " + std::to_string(s.tp) + " exceeds the " +
                                                    std::to_string(device.devicesPerNode) +
                                                    " devices of a node: tensor parallelism "
                                                    "crosses the slower inter-node network"});
    if (model.hasArchitecture() && s.tp > model.kvHeads)
        r.warnings.push_back(
            {"kv-heads-replicated", "tp = " + std::to_string(s.tp) + " exceeds the " +
                                        std::to_string(model.kvHeads) +
                                        " KV heads: each device keeps a replicated KV head"});
    if (r.timeInLayerUnits)
        r.warnings.push_back({"no-timing", "no timing: " + r.untimedReason +
                                               ", so times are in layer-times (relative units), "
                                               "not seconds"});
    for (const std::string &why : unsupportedByFramework(s))
        r.warnings.push_back({"framework-unsupported", why});
    // torchtitan refuses weight tying with pipeline stages (models/common/decoder.py:
    // "Weight tying is not supported with Pipeline Parallel").
    if (s.framework == Framework::torchtitan && s.mode == Mode::training && s.pp > 1 &&
        model.tiedEmbeddings)
        r.warnings.push_back({"framework-unsupported",
                              "torchtitan ties no weights across pipeline stages; the LM head's "
                              "copy of the embedding and its gradients' all-reduce are timed as "
                              "Megatron-LM runs them"});
    if (s.epOverlap)
        if (const auto why = epOverlapUnused(s, model))
            r.warnings.push_back({"ep-overlap-unused",
                                  "ep_overlap pairs one micro-batch's "
                                  "all-to-all with another's computation; " +
                                      *why,
                                  "ep_overlap", "false"});
    // FlashAttention-3 is written for Hopper: "Requirements: H100 / H800 GPU"
    // (Dao-AILab/flash-attention, README, "FlashAttention-3"). Elsewhere its rates default to
    // the device's fused kernel's (DeviceSpec::flash3EfficiencyOrDefault).
    if (s.attention == Attention::flash3 && device.computeCapability > 0 &&
        !(device.computeCapability >= 9 && device.computeCapability < 10))
        r.warnings.push_back(
            {"flash3-not-hopper",
             "attention=flash3: FlashAttention-3 is written for Hopper GPUs (its README's "
             "requirement: H100 / H800, compute capability 9.0), and " +
                 device.name + " is " + plainNumber(device.computeCapability) +
                 "; it is timed as the device's fused kernel (attention=flash)"});
    if (s.fp8Attention)
        if (const auto why = fp8AttentionUnused(s, device, model))
            r.warnings.push_back({"fp8-attention-unused",
                                  "fp8_attention runs the fused attention kernel in FP8; "
                                  "here it is timed in BF16: " +
                                      *why,
                                  "fp8_attention", "false"});
    // docs/step_time.md, "FP8 attention": cuDNN's FP8 backward visits the whole causal
    // triangle through a sliding window, as op_model.cpp times it where FP8 attention runs.
    if (s.mode == Mode::training && fp8AttentionRuns(s, device, model) && model.slidingWindow > 0 &&
        model.slidingWindow < s.seqLen)
        if (const int windowed = slidingLayersIn(model, 0, model.layers); windowed > 0)
            r.warnings.push_back(
                {"fp8-attention-window",
                 "FP8 attention's backward through the sliding window takes as long as the "
                 "whole causal triangle's (cuDNN 9.22 on a GB300: 25 ms at 16,384 tokens where "
                 "BF16's takes 1.7 ms), and the " +
                     std::to_string(windowed) +
                     " windowed layers' backward is timed so; in BF16 it keeps the window's "
                     "saving (docs/step_time.md, \"FP8 attention\")"});
    if (s.fp8LmHead)
        if (const auto why = fp8LmHeadUnused(s))
            r.warnings.push_back({"fp8-lm-head-unused",
                                  "fp8_lm_head runs the LM head's multiplies in FP8; here they "
                                  "are timed as without it: " +
                                      *why,
                                  "fp8_lm_head", "false"});
    if (s.tpOverlap && !(s.sequenceParallel && s.tp > 1))
        r.warnings.push_back({"tp-overlap-unused",
                              "tp_overlap hides sequence parallelism's collectives; it has none "
                              "to hide without sequence_parallel and T > 1",
                              "tp_overlap", "false"});
    if (!s.tpOverlapQkv && !(s.tpOverlap && s.sequenceParallel && s.tp > 1))
        r.warnings.push_back({"tp-overlap-qkv-unused",
                              "tp_overlap_qkv = false exposes QKV's gather that tp_overlap "
                              "would hide; without tp_overlap, sequence_parallel and T > 1 "
                              "nothing is hidden",
                              "tp_overlap_qkv", "true"});
    if (model.contextWindow > 0 && contextTokens(s) > model.contextWindow)
        r.warnings.push_back(
            {"beyond-context-window",
             (s.mode == Mode::inference ? "seq_len + output_len = " : "seq_len = ") +
                 std::to_string(contextTokens(s)) + " tokens exceed " +
                 (model.name.empty() ? model.id : model.name) + "'s context window of " +
                 std::to_string(model.contextWindow)});
    if (s.packedExampleTokens > 0 && (s.mode == Mode::inference || s.attention == Attention::eager))
        r.warnings.push_back(
            {"packed-unused",
             s.mode == Mode::inference
                 ? "packed_example_tokens describes training data; a prompt is timed as one "
                   "sequence"
                 : "eager attention computes every score of the sequence under the examples' "
                   "mask, so packing saves it nothing; a fused kernel (flash, flash2, flash3) "
                   "visits each example's keys only"});
    if (s.loraRank > 0 && s.mode == Mode::inference)
        r.warnings.push_back({"lora-unused",
                              "lora_rank describes fine-tuning; served, adapters merged into the "
                              "weights cost nothing, so inference is timed as the model alone"});
    else if (s.loraRank > 0 && model.hasArchitecture() && loraParams(s, model).perLayer == 0 &&
             loraParams(s, model).perMoeLayer == 0)
        r.warnings.push_back(
            {"lora-unused", "lora_modules '" + s.loraModules.substr(0, 80) +
                                "' adapts no projection this model has (latent attention "
                                "has no linear_qkv): every weight is frozen and nothing "
                                "trains"});
    // lora_a2a changes only the exchange of the adapters beside proj and fc2 under sequence
    // parallelism (docs/step_time.md, "LoRA").
    if (s.loraA2a && !(s.mode == Mode::training && s.loraRank > 0 && s.tp > 1 &&
                       s.sequenceParallel && (loraModuleBits(s) & (kLoraProj | kLoraFc2)) != 0))
        r.warnings.push_back({"lora-a2a-unused",
                              "lora_a2a exchanges the output of the LoRA adapters beside "
                              "linear_proj and linear_fc2 under sequence parallelism (T > 1, "
                              "sequence_parallel); this scenario has none to exchange",
                              "lora_a2a", "false"});
    // lora_dropout is the adapters' own (docs/step_time.md, "LoRA").
    if (s.loraDropout > 0 && !(s.mode == Mode::training && s.loraRank > 0))
        r.warnings.push_back({"lora-dropout-unused",
                              "lora_dropout drops the input of LoRA's adapters in training; "
                              "this scenario has none, so it changes nothing",
                              "lora_dropout", "0"});
    else if (s.loraDropoutPosition != LoraDropoutPosition::pre && !(s.loraDropout > 0))
        r.warnings.push_back({"lora-dropout-position-unused",
                              "lora_dropout_position says where lora_dropout zeroes values; "
                              "with lora_dropout 0 nothing is dropped",
                              "lora_dropout_position", "pre"});
    if (s.mode == Mode::inference && s.fullCudaGraph)
        r.warnings.push_back({"cuda-graph-unused",
                              "full_cuda_graph captures a training step; inference is timed "
                              "without it",
                              "full_cuda_graph", "false"});
    if (s.mode == Mode::training && (s.outputLen != 0 || s.kvPrecision != KvPrecision::automatic))
        r.warnings.push_back({"inference-keys-unused",
                              "output_len and kv_precision only apply in inference; training "
                              "generates no tokens and keeps no KV cache"});
    const std::string &name = model.name.empty() ? model.id : model.name;
    if ((s.ep > 1 || s.expertTp > 0) && !model.hasExperts())
        r.warnings.push_back({"experts-unused", "ep and expert_tp spread experts; " + name +
                                                    " is dense, so they change nothing"});
    // Below an even share, an expert drops copies however balanced the routing (with the
    // busiest rank loaded, the warning below says what that rank drops).
    if (const double kept = std::min(1.0, expertLoad(s, model)); kept < 1 && s.expertRankLoad <= 1)
        r.warnings.push_back(
            {"tokens-dropped", "expert_capacity_factor " + plainNumber(*s.expertCapacityFactor) +
                                   " is below 1: even with balanced routing each expert drops " +
                                   plainNumber(std::round(1000 * (1 - kept)) / 10) +
                                   " % of the copies routed to it, which skip its MLP"});
    if (model.hasExperts() && s.expertRankLoad > 1) {
        const double limit = expertRankLoadLimit(s, model);
        const double routed = expertRoutedLoad(s, model);
        if (s.expertRankLoad > limit)
            r.warnings.push_back(
                {"expert-rank-load-capped",
                 "expert_rank_load " + plainNumber(s.expertRankLoad) +
                     " is more than a rank can take at E = " + std::to_string(s.ep) +
                     (s.ep == 1 ? " (one device holds every expert)"
                                : ", every copy for its experts, E x min(k, experts a rank) / k") +
                     ": timed at " + plainNumber(std::round(1000 * limit) / 1000),
                 "expert_rank_load", plainNumber(limit)});
        else if (routed < s.expertRankLoad)
            r.warnings.push_back(
                {"tokens-dropped",
                 "expert_rank_load " + plainNumber(s.expertRankLoad) +
                     " is above what expert_capacity_factor " +
                     plainNumber(*s.expertCapacityFactor) +
                     " lets an expert take: the busiest rank's experts drop about " +
                     plainNumber(std::round(1000 * (1 - routed / s.expertRankLoad)) / 10) +
                     " % of the copies routed to them, which skip their MLP; a capacity of the "
                     "load drops none",
                 "expert_capacity_factor", plainNumber(s.expertRankLoad)});
    }
    if (!model.hasExperts() && s.expertRankLoad != 1)
        r.warnings.push_back({"expert-rank-load-unused",
                              "expert_rank_load sets the busiest expert rank's share of the "
                              "routed tokens; " +
                                  name + " is dense, so it changes nothing",
                              "expert_rank_load", "1"});
    if (s.offloadLayers > 0 && s.mode != Mode::training)
        r.warnings.push_back({"offload-layers-unused",
                              "offload_layers moves activations kept for the backward pass to "
                              "host memory; inference keeps none, so it changes nothing",
                              "offload_layers", "0"});
    if ((s.expertCapacityFactor || s.padToCapacity) && !model.hasExperts())
        r.warnings.push_back(
            {"capacity-unused", "expert_capacity_factor and pad_to_capacity size each expert's "
                                "tokens; " +
                                    name + " is dense, so they change nothing"});
    if (model.hasExperts() && model.experts % s.ep != 0)
        r.warnings.push_back(
            {"experts-uneven",
             "E = " + std::to_string(s.ep) + " does not divide the " +
                 std::to_string(model.experts) +
                 " experts: some devices hold one more (Megatron-LM refuses this)"});
    // Megatron-core orders expert ranks expert T first, then E: the all-to-all of a group of
    // E x expert T consecutive ranks stays in a node when they fit one.
    if (model.hasExperts() && s.ep > 1 &&
        std::int64_t{s.ep} * s.expertTpDegree() > device.devicesPerNode)
        r.warnings.push_back({"all-to-all-spans-nodes",
                              "E x expert T = " + std::to_string(s.ep * s.expertTpDegree()) +
                                  " exceeds the " + std::to_string(device.devicesPerNode) +
                                  " devices of a node: every MoE layer's all-to-all crosses the "
                                  "slower inter-node network"});
    if (s.cp > 1 && s.cpExchange == CpExchange::alltoall && model.hasArchitecture() &&
        (model.heads / s.tp) % s.cp != 0)
        r.warnings.push_back(
            {"cp-heads-uneven",
             std::to_string(model.heads / s.tp) +
                 " heads per device of T do not divide over C = " + std::to_string(s.cp) +
                 ": the all-to-all exchange gives some devices one more head "
                 "(DeepSpeed-Ulysses needs them to divide)"});
    if (s.cp > 1 && s.seqLen % (2 * s.cp) != 0)
        r.warnings.push_back(
            {"cp-uneven", "seq_len = " + std::to_string(s.seqLen) +
                              " does not split into 2C = " + std::to_string(2 * s.cp) +
                              " equal chunks, as load-balanced context parallelism needs "
                              "(Megatron-LM requires it)"});
    if (s.virtualStages > 1 && s.schedule != Schedule::interleaved)
        r.warnings.push_back({"virtual-stages-unused",
                              "virtual_stages = " + std::to_string(s.virtualStages) +
                                  " only applies to the interleaved schedule",
                              "virtual_stages", "1"});
    // torchtitan applies FSDP only where two or more ranks shard (parallel_dims.py,
    // fsdp_enabled: dp_shard > 1 or cp > 1, and a MoE model's experts over their own group):
    // at D x C = 1 it trains without it, so the FSDP units' gradient copies and gather buffers a
    // ZeRO stage charges here are not held (the planner searches ZeRO 0 alone there). Other
    // profiles' ZeRO changes nothing at D x C = 1 (Megatron-LM) or runs its optimizer as it is
    // (DeepSpeed's buffers at world size 1).
    if (s.mode == Mode::training && s.framework == Framework::torchtitan && s.zero > 0 &&
        s.dp * s.cp == 1 && !(model.hasExperts() && expertShardRanks(s) > 1))
        r.warnings.push_back({"zero-unused",
                              "zero = " + std::to_string(s.zero) +
                                  " under torchtitan with D x C = 1: torchtitan applies FSDP "
                                  "only over two or more ranks, so the run holds no FSDP "
                                  "gradient copies or gather buffers; the memory here counts "
                                  "them",
                              "zero", "0"});
    // Hybrid sharding splits what ZeRO shards; without ZeRO nothing is sharded.
    if (s.zeroReplicas > 1 && (s.zero == 0 || s.mode != Mode::training))
        r.warnings.push_back(
            {"zero-replicas-unused",
             "zero_replicas = " + std::to_string(s.zeroReplicas) +
                 (s.mode != Mode::training
                      ? std::string(" only applies to training")
                      : std::string(" only applies from ZeRO 1: at ZeRO 0 every device holds "
                                    "everything and all D x C all-reduce together")),
             "zero_replicas", "1"});
    // Deferring the replicas' all-reduce changes something only where they reduce after every
    // micro-batch: hybrid sharding at ZeRO 2 and 3 in training.
    if (s.deferReplicaReduce && (zeroReplicasOf(s) <= 1 || s.zero < 2))
        r.warnings.push_back({"defer-replica-reduce-unused",
                              "defer_replica_reduce only applies to hybrid sharding "
                              "(zero_replicas > 1) at ZeRO 2 and 3 in training, whose replicas "
                              "otherwise all-reduce after every micro-batch",
                              "defer_replica_reduce", "false"});
    // A count of recomputed layers is full recomputation's only.
    if (s.mode == Mode::training && s.recompute != Recompute::full && s.recomputeLayers > 0)
        r.warnings.push_back({"recompute-layers-unused",
                              "recompute_layers = " + std::to_string(s.recomputeLayers) +
                                  " only applies to recompute = full",
                              "recompute_layers", "0"});
    // What a recompute_modules list names that reruns nothing here.
    const unsigned modules = recomputeModuleBits(s);
    if (s.mode == Mode::training && s.recompute != Recompute::selective &&
        modules != kRecomputeCoreAttn)
        r.warnings.push_back(
            {"recompute-modules-unused", "recompute_modules '" + s.recomputeModules.substr(0, 80) +
                                             "' only applies to recompute = selective"});
    else if (s.mode == Mode::training && s.recompute == Recompute::selective) {
        std::string idle;
        const auto check = [&](unsigned module, const char *word, bool applies) {
            if ((modules & module) != 0 && !applies)
                idle += (idle.empty() ? "" : ", ") + std::string(word);
        };
        const bool experts = model.hasExperts();
        check(kRecomputeMoe, "moe", experts);
        check(kRecomputeMoeAct, "moe_act", experts);
        check(kRecomputeSharedExperts, "shared_experts", experts && model.sharedExperts > 0);
        check(kRecomputeMlp, "mlp",
              model.hasArchitecture() && moeLayersIn(model, 0, model.layers) < model.layers);
        if (!idle.empty())
            r.warnings.push_back(
                {"recompute-modules-unused",
                 "recompute_modules names " + idle + ", which the model has nothing to rerun for"});
    }
}

// The tensor-parallel traffic of the busiest stage in one step, from the layer's own
// collectives (core/op_model.cpp), for the report's "tp_comm" block.
TpCommReport tpComm(Report &r, const Scenario &s, const ModelSpec &model, const Timing &t,
                    const std::vector<int> &layers)
{
    // The stage with the most layers; of those, the one with the most dense layers, whose
    // MLP half gathers over T as well (docs/experts.md, "Time").
    std::size_t busiest = 0;
    const auto moeAt = [&t](std::size_t i) { return i < t.moeLayers.size() ? t.moeLayers[i] : 0; };
    for (std::size_t i = 1; i < layers.size(); ++i)
        if (layers[i] > layers[busiest] ||
            (layers[i] == layers[busiest] && moeAt(i) < moeAt(busiest)))
            busiest = i;
    const int busiestLayers = layers.empty() ? 0 : layers[busiest];
    const int busiestMoe = layers.empty() ? 0 : moeAt(busiest);
    // Routed experts take their tokens by the all-to-all: an MoE layer without shared experts
    // has only attention's half of the collectives.
    const double moeShare = model.hasExperts() && model.sharedExperts == 0 ? 0.5 : 1.0;
    const double layerEquivalents = (busiestLayers - busiestMoe) + moeShare * busiestMoe;
    TpCommReport out;
    out.link = std::string(toString(t.tpLink.kind));
    if (s.tp <= 1)
        return out;
    const bool training = s.mode == Mode::training;
    // Shoeybi et al. 2019 §3: two all-reduces forward, two backward; full recomputation
    // reruns the forward's (Chen et al. 2016). Korthikanti et al. 2022 §4.2.2: sequence
    // parallelism makes each a reduce-scatter plus an all-gather, and backward gathers the
    // input of each of the two again.
    // Per-op checkpointing reruns the forward's all-gathers and keeps its reduce-scatters,
    // or reruns both all-reduces without sequence parallelism (docs/activations.md).
    const bool perOp = training && s.recompute == Recompute::op;
    const int allReduces = 2 + (training ? 2 : 0) +
                           (training && s.recompute == Recompute::full ? 2 : 0) +
                           (perOp && !s.sequenceParallel ? 2 : 0);
    // LoRA's frozen projections take no weight gradient, so nothing gathers their input again
    // (op_model's tp op).
    const bool frozen = training && s.loraRank > 0;
    const int regathers = (training && !frozen ? 2 : 0) + (perOp ? 2 : 0);
    out.collectivesPerLayer = s.sequenceParallel ? 2 * allReduces + regathers : allReduces;
    if (!model.hasArchitecture())
        return out; // a size-only model has no hidden size to move
    const std::int64_t values =
        std::int64_t{s.microbatchSize} * s.seqLen * static_cast<std::int64_t>(model.hidden);
    const std::int64_t payload = bytesFor(values, tpActivationPrecision(s.precision));
    // DualPipe's micro-batches pass half of a device's layers.
    const double calls =
        layerEquivalents * s.microbatches * (training ? passedShare(s.schedule) : 1.0);
    // Wire bytes, not payloads: a reduce-scatter plus an all-gather moves what one
    // all-reduce moves (Korthikanti et al. 2022 §4.2.2); the redone all-gathers half of one.
    // Full recomputation's two rerun all-reduces, on the share of the stage's layers it reruns
    // (recompute_layers); collectivesPerLayer counts a recomputed layer's.
    const double rerun = t.rerunShare(busiest);
    const double reducesRun =
        allReduces - (training && s.recompute == Recompute::full ? 2 * (1 - rerun) : 0.0);
    double wirePerLayer = reducesRun * wireBytesPerDevice(Collective::allReduce, payload, s.tp);
    if (s.sequenceParallel && training)
        wirePerLayer += regathers * wireBytesPerDevice(Collective::allGather, payload, s.tp);
    // The LoRA adapters' own collectives (op_model's lora_tp), as each layer times them.
    const auto loraWire = [rerun](const LayerTimes &layer) {
        for (const LayerOp &op : layer.ops)
            if (op.key == "lora_tp")
                return op.forward.bytes + op.backward.bytes + rerun * op.rerun * op.forward.bytes;
        return 0.0;
    };
    const double passes = s.microbatches * (training ? passedShare(s.schedule) : 1.0);
    const double loraPerStep =
        ((busiestLayers - busiestMoe) * loraWire(t.layer) + busiestMoe * loraWire(t.moeLayer)) *
        passes;
    // and their calls, a layer of the busiest stage's commoner kind.
    out.collectivesPerLayer +=
        busiestMoe * 2 > busiestLayers ? t.moeLayer.loraCollectives : t.layer.loraCollectives;
    out.bytesPerStep = saturatingRound(wirePerLayer * static_cast<double>(calls) + loraPerStep);
    if (t.tpLinkError) {
        out.timePerStepS.reset();
        r.warnings.push_back({"tp-link-unknown", t.tpLinkError->message});
        return out;
    }
    const auto tpSeconds = [rerun](const LayerTimes &layer) {
        double seconds = 0;
        for (const LayerOp &op : layer.ops)
            if (op.part == TimePart::tpComm)
                seconds += op.forward.seconds + op.backward.seconds +
                           rerun * op.rerun * op.forward.seconds;
        return seconds;
    };
    out.timePerStepS =
        ((busiestLayers - busiestMoe) * tpSeconds(t.layer) + busiestMoe * tpSeconds(t.moeLayer)) *
        passes;
    return out;
}

// The embedding group's gradient all-reduce (stepTimeReport): the stage with the LM head and
// its seconds, where that stage keeps a copy of the first stage's embedding; nothing where
// one stage holds both ends or neither is shared.
struct EmbeddingSync
{
    int headStage = 0;
    double seconds = 0;
};
std::optional<EmbeddingSync> embeddingGroupSync(const Scenario &s, const ModelSpec &model,
                                                const TrainingStates &states, const Timing &t)
{
    // Under LoRA the embedding is frozen: no gradient to reduce.
    if (s.mode != Mode::training || s.pp < 2 || !model.hasArchitecture() ||
        !(model.tiedEmbeddings || s.mtpLayers > 0) || s.loraRank > 0)
        return std::nullopt;
    int head = -1;
    for (int i = 0; i < s.pp && head < 0; ++i)
        if (holdsHead(s.schedule, s.pp, i))
            head = i;
    if (head <= 0 || holdsEmbedding(s.schedule, s.pp, head))
        return std::nullopt;
    // The vocabulary's share of this rank of T, in the gradients' type; ZeRO-2 and 3 hold
    // 1/(D x C) of it, under hybrid sharding 1/(D x C / R) (Megatron-FSDP reduces its local
    // shard).
    double bytes = static_cast<double>(ceilDiv(std::int64_t{model.vocab}, s.tp)) * model.hidden *
                   states.gradBytes;
    if (s.zero >= 2)
        bytes /= zeroShardRanks(s);
    // Two ranks K - 1 stages apart: across nodes where the pipeline's ends are (the boundary
    // from the last stage to the first, pipelineCrossings).
    const bool across = t.crossesAt(static_cast<std::size_t>(s.pp - 1));
    Link link = across ? t.ppAcross : t.ppInside;
    if (across)
        link.membersPerNode = 0; // one of the two in each node: both steps cross
    if (!(link.gbPerS > 0))
        return std::nullopt;
    return EmbeddingSync{
        head, collectiveSeconds(Collective::allReduce, static_cast<std::int64_t>(bytes), 2, link)};
}

// The adapters' parameters a token passes through (LoRA): every layer's, of a MoE layer's
// routed experts its top-k's.
double activeLoraParams(const Scenario &s, const ModelSpec &m)
{
    Scenario whole = s;
    whole.tp = 1;
    whole.ep = std::max(1, m.experts); // one expert's adapters in perMoeLayerExperts
    whole.expertTp = 1;
    const ParamCounts c = loraParams(whole, m);
    const int moe = moeLayersIn(m, 0, m.layers);
    return static_cast<double>(m.layers - moe) * c.perLayer +
           static_cast<double>(moe) *
               (c.perMoeLayer - c.perMoeLayerExperts +
                static_cast<double>(m.expertsPerToken) * c.perMoeLayerExperts);
}

// Whether a training step syncs anything over data parallelism: the dense parameters' D x C
// ranks (gradientSyncRanks), the replicas of hybrid sharding, or the routed experts' own
// group, which has peers at D x C = 1 too where T exceeds E x expert T (Megatron-core
// parallel_state.py, expert_data_parallel_size).
bool syncsData(const Scenario &s, const ModelSpec &model)
{
    return gradientSyncRanks(s) > 1 || zeroReplicasOf(s) > 1 ||
           (model.hasExperts() && expertSyncRanks(s) > 1);
}

// The rings a stage's data-parallel sync runs over: the dense parameters' over the D x C ranks
// (gradientSyncRanks), the routed experts' over their own group where the stages hold any and
// it has peers (expertRanks 0 or 1: none). The error names the link without a bandwidth.
struct DpRings
{
    Link dense;
    int denseRanks = 1;
    Link experts;
    int expertRanks = 0;
};

std::optional<InputError> dpRings(const DeviceSpec &device, const Scenario &s,
                                  const ModelSpec &model, DpRings &out)
{
    out.denseRanks = gradientSyncRanks(s);
    if (auto error = dataParallelLink(device, s, out.dense))
        return error;
    capDpLink(device, s, out.dense);
    out.expertRanks = model.hasExperts() ? expertSyncRanks(s) : 0;
    if (out.expertRanks > 1) {
        if (auto error = expertDataParallelLink(device, s, out.experts))
            return error;
        capDpLink(device, s, out.experts);
    }
    return std::nullopt;
}

// A stage's gradient reduction and parameter gathers before hiding (dpGradientSync), its dense
// parameters' and, in `expertPart` too, its routed experts'. `held` is a StageReport or
// StageModelStates: what trains reduces (under LoRA the adapters alone).
template <typename Stage>
DpSync stageDpSync(const Scenario &s, const DeviceSpec &device, const TrainingStates &states,
                   const Stage &held, const DpRings &rings, int passes, int denseBuckets,
                   int expertBuckets, DpSync &expertPart)
{
    const std::int64_t experts = held.trainableExpertParams;
    const std::int64_t dense = held.trainableParams - experts;
    // ZeRO-3 gathers every weight it shards, frozen or not; ZeRO-1 and 2 gather what the
    // optimizer updated.
    const bool gatherAll = s.zero >= 3;
    const std::int64_t gatheredExperts = gatherAll ? held.expertParams : experts;
    const std::int64_t gatheredDense = gatherAll ? held.params - held.expertParams : dense;
    // Of what is gathered, the layers' FP8 weights (castParams): not LoRA's adapters, which
    // are all ZeRO-1 and 2 gather under it.
    const bool adaptersOnly = s.loraRank > 0 && !gatherAll;
    const std::int64_t baseExperts =
        held.expertParams - (s.loraRank > 0 ? held.trainableExpertParams : 0);
    DpSync sync =
        dpGradientSync(s.zero, dense * states.gradBytes,
                       gatheredWeightBytes(s, device, gatheredDense,
                                           adaptersOnly ? 0 : held.castParams - baseExperts),
                       rings.denseRanks, rings.dense, passes, denseBuckets);
    expertPart = {};
    if (rings.expertRanks > 1 && gatheredExperts > 0) {
        expertPart = dpGradientSync(
            s.zero, experts * states.gradBytes,
            gatheredWeightBytes(s, device, gatheredExperts, adaptersOnly ? 0 : baseExperts),
            rings.expertRanks, rings.experts, passes, expertBuckets);
        sync = plus(sync, expertPart);
    }
    return sync;
}

// Per stage, the once-per-step gather its first forward waits for whole
// (gatherHoldsFirstForward: one bucket, dense and experts, each a collective); empty where no
// stage waits, or a link has no bandwidth (stepTimeReport says so).
std::vector<double> firstForwardGathers(const Scenario &s, const ModelSpec &model,
                                        const DeviceSpec &device,
                                        const std::vector<StageModelStates> &stages)
{
    if (s.pp < 2 || !gatherHoldsFirstForward(s, 1) || !syncsData(s, model))
        return {};
    DpRings rings;
    if (dpRings(device, s, model, rings))
        return {};
    const TrainingStates states = trainingStates(s);
    std::vector<double> out(stages.size(), 0.0);
    for (std::size_t i = 1; i < stages.size(); ++i) {
        DpSync experts;
        out[i] = stageDpSync(s, device, states, stages[i], rings, s.microbatches, 1, 1, experts)
                     .stepForwardS;
    }
    return out;
}

// The step-time model (docs/step_time.md): the simulated makespan of every stage's
// per-operation work and sends, then the exposed data-parallel sync and the optimizer step.
// `hiddenExpertCommS`: per stage, the all-to-all ep_overlap's pairs hide (hiddenExpertComm of
// the simulated pipeline); empty where it does not apply. `gatherWaits`: per stage, the
// gather its first forward waited for in the pipeline (firstForwardGathers); may be empty.
std::optional<StepTimeReport> stepTimeReport(Report &r, const Scenario &s, const ModelSpec &model,
                                             const DeviceSpec &device, const TrainingStates &states,
                                             const Timing &t, const std::vector<int> &layers,
                                             const std::vector<double> &hiddenExpertCommS,
                                             const std::vector<double> &tailIdle,
                                             const std::vector<double> &gatherWaits)
{
    const bool training = s.mode == Mode::training;
    if (r.timeInLayerUnits || !t.rates)
        return std::nullopt;
    if (t.ppLinkError)
        r.warnings.push_back({"pp-link-unknown", t.ppLinkError->message});
    // Training needs every link's time; an inference forward without a published link is
    // still bounded from below by the stages' own work (its transfers taking no time).
    const bool linksUnknown = t.tpLinkError || t.ppLinkError;
    if (linksUnknown && training)
        return std::nullopt;
    StepTimeInput st;
    st.makespanS = r.makespanS;
    st.stageWork = stageWork(s, t, layers);
    // What the pairs of ep_overlap hide is no longer the stage's own time. The pairs hide the
    // all-to-alls recomputation reruns too, which the breakdown counts with the
    // recomputation: each part gives up its share.
    double rerunComm = 0, ownComm = 0; // one MoE layer's, per micro-batch
    for (const LayerOp &op : t.moeLayer.ops)
        if (op.part == TimePart::expertComm) {
            rerunComm += op.rerun * op.forward.seconds;
            ownComm += op.forward.seconds + op.backward.seconds + op.weight.seconds;
        }
    const double rerunShare = rerunComm + ownComm > 0 ? rerunComm / (rerunComm + ownComm) : 0.0;
    // The gathers a stage's first forward waited for, inside the simulated pipeline.
    for (std::size_t i = 0; i < st.stageWork.size() && i < gatherWaits.size(); ++i)
        st.stageWork[i][TimePart::dpSync] = gatherWaits[i];
    for (std::size_t i = 0; i < st.stageWork.size() && i < hiddenExpertCommS.size(); ++i) {
        st.stageWork[i][TimePart::expertComm] -= (1 - rerunShare) * hiddenExpertCommS[i];
        st.stageWork[i][TimePart::recompute] -= rerunShare * hiddenExpertCommS[i];
    }

    // The stage with the most parameters updates and synchronises longest; every stage runs
    // at once. ZeRO shards the dense parameters over D x C and the routed experts over the
    // expert data-parallel group, each over 1/R of it under hybrid sharding (Megatron-core's
    // distributed optimizer; the memory model's zeroShard).
    std::int64_t params = 0;
    double shard = 0;
    // Under LoRA, the adapters alone (StageReport::trainableParams).
    for (const auto &stage : r.stages) {
        params = std::max(params, stage.trainableParams);
        shard = std::max(
            shard, static_cast<double>(stage.trainableParams - stage.trainableExpertParams) /
                           zeroShardRanks(s) +
                       static_cast<double>(stage.trainableExpertParams) / expertShardRanks(s));
    }
    StepTimeReport out;
    if (training) {
        // Adam's update of the parameters this device owns, 1/D of them from ZeRO-1 on, and
        // the gradients it holds, 1/D from ZeRO-2 (Rajbhandari et al. 2020, §5), at memory
        // bandwidth.
        const double owned = s.zero >= 1 ? shard : params;
        const double held = s.zero >= 2 ? shard : params;
        OptimizerInput in;
        in.step = frameworkProfile(s.framework).optimizerStep;
        in.zero = s.zero;
        in.optimizerBytes = states.optimizerBytes;
        in.gradBytes = states.gradBytes;
        // MXFP8 weights: the master copy staged in BF16 for the gather, quantized after it
        // (distrib_optimizer.py, _copy_main_params_to_param_buffer).
        in.weightBytes = mxfp8Weights(s, device) ? 2.0 : bitsPerValue(heldWeightPrecision(s)) / 8.0;
        in.fp32Weights = s.precision == Precision::fp32 || states.fp32Parameters;
        in.lossScaled = s.precision == Precision::fp16;
        out.optimizer = optimizerTraffic(in);
        out.optimizerOwnedParams = owned;
        out.optimizerHeldParams = held;
        out.memoryBytesPerS = t.rates->memoryBytesPerS;
        st.optimizerS =
            memorySeconds(*t.rates, owned * out.optimizer.owned() + held * out.optimizer.zero);
        // The casts that run once a step, in the first micro-batch's forward: each stage's
        // own memory-bound work, which the simulation times where it runs.
        out.weightCastOnceBytesPerParam = weightCastsOncePerStep(s, device);
        const std::vector<double> casts =
            onceCastSeconds(s, device, t.rates ? &*t.rates : nullptr, r.stages);
        for (std::size_t i = 0; i < casts.size() && i < st.stageWork.size(); ++i)
            st.stageWork[i][TimePart::memoryBound] += casts[i];
        if (const auto busiest = std::ranges::max_element(casts); busiest != casts.end()) {
            const auto i = static_cast<std::size_t>(busiest - casts.begin());
            out.weightCastOnceS = casts[i];
            out.weightCastOnceParams = static_cast<double>(r.stages[i].castParams);
        }
    }
    // The D x C ranks T apart hold the same parameters and reduce their gradients together
    // (Megatron-core distributed_data_parallel.py: the data-parallel group with context
    // parallelism), as the ZeRO shards in the memory model are D x C; DualPipe's mirrored
    // copies join them (gradientSyncRanks).
    // What each stage's own sync leaves exposed, for the embedding group's all-reduce below.
    std::vector<double> stageExposed(layers.size(), 0.0);
    const int replicas = zeroReplicasOf(s);
    if (training && syncsData(s, model)) {
        DpRings rings;
        const auto linkError = dpRings(device, s, model, rings);
        out.dpLink = std::string(toString(rings.dense.kind));
        if (linkError) {
            r.warnings.push_back({"dp-link-unknown", linkError->message});
            return std::nullopt;
        }
        out.dpBusGbPerS = rings.dense.gbPerS * rings.dense.efficiency;
        if (rings.expertRanks > 1) {
            out.expertDpRanks = rings.expertRanks;
            out.expertDpLink = std::string(toString(rings.experts.kind));
            out.expertDpBusGbPerS = rings.experts.gbPerS * rings.experts.efficiency;
        }
        // Hybrid sharding: the replicas' rings, the dense shards' and the experts'.
        Link denseReplicaLink;
        Link expertReplicaLink;
        if (replicas > 1) {
            for (auto [stride, target] : {std::pair{replicaStride(s), &denseReplicaLink},
                                          std::pair{expertReplicaStride(s), &expertReplicaLink}})
                if (const auto replicaError = replicaLink(device, s, stride, *target)) {
                    r.warnings.push_back({"dp-link-unknown", replicaError->message});
                    return std::nullopt;
                }
            capDpLink(device, s, denseReplicaLink);
            capDpLink(device, s, expertReplicaLink);
            out.dpReplicas = replicas;
            out.dpReplicaLink = std::string(toString(denseReplicaLink.kind));
            out.dpReplicaBusGbPerS = denseReplicaLink.gbPerS * denseReplicaLink.efficiency;
        }
        // The embedding on stage 0: a bucket holds it whole; under LoRA it is frozen.
        const std::int64_t embeddingParams =
            s.loraRank > 0
                ? 0
                : countParams(model, s.tp, ExpertSplit{s.ep, s.expertTpDegree()}).embedding;
        // Each stage syncs its own parameters behind its own passes; the step waits for the
        // stage that exposes most.
        const std::vector<LayerRun> runs = virtualStageLayers(s, model);
        const int chunks = chunksPerStage(s.schedule, s.virtualStages);
        // A stage's sync depends on the stage only through what the key holds: the middle
        // stages of an even split are computed once.
        struct StageSync
        {
            std::tuple<bool, std::int64_t, std::int64_t, int, int, double, double, bool, bool> key;
            double exposed = 0;
            double end = 0; // of `exposed`, what runs after the last backward
        };
        // What the stage's idle time after its last op hides of what follows its last backward:
        // there its collectives run with nothing else on the device.
        const auto idleHides = [&tailIdle](std::size_t stage, double end) {
            return std::min(end, stage < tailIdle.size() ? tailIdle[stage] : 0.0);
        };
        std::vector<StageSync> done;
        for (std::size_t i = 0; i < layers.size() && i < r.stages.size(); ++i) {
            // What trains reduces its gradients: under LoRA, the adapters alone.
            const std::int64_t own = r.stages[i].trainableParams;
            const int stage = static_cast<int>(i);
            const bool embedding = holdsEmbedding(s.schedule, s.pp, stage);
            const bool head = holdsHead(s.schedule, s.pp, stage);
            // The stage's chunks' tensors, the embedding and the head counted with its first.
            int tensors = 0;
            for (int c = 0; c < chunks; ++c) {
                const LayerRun &run =
                    runs[static_cast<std::size_t>(virtualStageOf(s.schedule, s.pp, stage, c))];
                if (c == 0 || run.count > 0)
                    tensors += parameterTensors(model, run.first, run.count, c == 0 && embedding,
                                                c == 0 && head, s.ep);
            }
            // Multi-token prediction: a layer of the last one's kind, three norms and eh_proj
            // each depth, and the stage's own embedding.
            if (const int mtp = r.stages[i].mtpLayers; mtp > 0)
                tensors +=
                    mtp * (parameterTensors(model, model.layers - 1, 1, false, false, s.ep) + 4) +
                    (embedding ? 0 : 1);
            // The stage's own passes enter through its layer times: forward and the rest.
            const double layerForward = t.stageLayers(i, layers[i], &LayerTimes::forwardS);
            const double layerBackward = t.stageLayers(i, layers[i], &LayerTimes::backwardS) +
                                         t.stageLayers(i, layers[i], &LayerTimes::recomputeS) +
                                         t.stageLayers(i, layers[i], &LayerTimes::weightS);
            const auto key = std::make_tuple(i == 0, own, r.stages[i].expertParams, layers[i],
                                             tensors, layerForward, layerBackward, embedding, head);
            if (const auto same = std::ranges::find(done, key, &StageSync::key);
                same != done.end()) {
                const double exposed = same->exposed - idleHides(i, same->end);
                st.dpExposedS = std::max(st.dpExposedS, exposed);
                stageExposed[i] = exposed;
                continue; // the same sync as a stage before it, which already counted its bytes
            }
            // The routed experts reduce apart from the rest, over their own group (Megatron-core
            // param_and_grad_buffer.py: a buffer for the expert-parallel parameters, reduced
            // over the expert data-parallel group), in buckets of their own.
            const std::int64_t experts = r.stages[i].trainableExpertParams;
            const std::int64_t dense = own - experts;
            const int buckets =
                dpBucketCount(s, static_cast<int>(i), dense, embeddingParams, layers[i], tensors);
            // ZeRO-2's and 3's collectives each micro-batch: in DualPipe, of the stage it
            // passes, half the device's parameters, as m/2 collectives of all of them.
            const int passes = static_cast<int>(s.microbatches * passedShare(s.schedule));
            DpSync expertPart;
            DpSync sync = stageDpSync(
                s, device, states, r.stages[i], rings, passes, buckets,
                dpBucketCount(s, static_cast<int>(i), experts, 0, layers[i], tensors), expertPart);
            // Hybrid sharding: each shard's gradients all-reduced over the R replicas.
            DpSync replicaPart;
            if (replicas > 1) {
                replicaPart = replicaGradientSync(
                    s.zero, dense * states.gradBytes / zeroShardRanks(s), replicas,
                    denseReplicaLink, passes, buckets, s.deferReplicaReduce);
                if (experts > 0)
                    replicaPart = plus(
                        replicaPart,
                        replicaGradientSync(
                            s.zero, experts * states.gradBytes / expertShardRanks(s), replicas,
                            expertReplicaLink, passes,
                            dpBucketCount(s, static_cast<int>(i), experts, 0, layers[i], tensors),
                            s.deferReplicaReduce));
                sync = plus(sync, replicaPart);
            }
            // FSDP2 copies each gradient, in the reduce precision, into the reduce-scatter's
            // input on the collective's own stream, which so runs that much longer, and each
            // gathered parameter out of the all-gather's buffer on the compute stream, which
            // nothing hides (foreach_reduce_scatter_copy_in, foreach_all_gather_copy_out).
            double copyOut = 0;
            if (frameworkProfile(s.framework).copiesThroughCollectiveBuffers && s.zero >= 1) {
                const double value = activationValueBytes(s.precision); // 16-bit copies
                const double copyIn =
                    eagerMemorySeconds(*t.rates, own * (value + states.gradBytes));
                const int gathers = s.zero >= 3 ? 2 * passes : 1;
                if (s.zero >= 2)
                    sync.microbatchBackwardS += copyIn;
                else
                    sync.stepBackwardS += copyIn;
                sync.seconds += copyIn * (s.zero >= 2 ? passes : 1);
                copyOut = gathers * eagerMemorySeconds(*t.rates, own * 2 * value);
            }
            // One micro-batch's passes: DualPipe's pass one of a device's two stages.
            const double share = passedShare(s.schedule);
            double forward = share * layerForward;
            double backward = share * layerBackward;
            for (const EndTimes *end : {embedding ? &t.first : nullptr, head ? &t.last : nullptr})
                if (end) {
                    forward += end->forwardS;
                    backward += end->backwardS + end->weightS;
                }
            // Stage 0 runs the step's first forward and last backward; a later stage's
            // reduction runs while stage 0 still works (the cooldown), and Megatron-LM gives
            // it one bucket for that reason (distributed_data_parallel.py): all of it after the
            // stage's last backward, where the drain's idle time hides what it can.
            const double edgeShare = dpEdgeShare(s, static_cast<int>(i), own, embeddingParams);
            // That bucket's gather, where it holds the stage's first forward, is waited for in
            // the pipeline (firstForwardGathers): nothing of it runs beside a pass.
            const double whole = sync.seconds;
            if (gatherHoldsFirstForward(s, stage)) {
                sync.seconds -= sync.stepForwardS;
                sync.stepForwardS = 0;
            }
            double exposed = dpExposedSeconds(sync, dpOverlapFor(s), forward, backward,
                                              s.overlapParamGather, edgeShare);
            exposed += (sync.seconds - exposed) * dpCollectiveShare(device, s) + copyOut;
            const double end =
                dpEndSeconds(sync, dpOverlapFor(s), backward, s.overlapParamGather, edgeShare);
            done.push_back({key, exposed, end});
            exposed -= idleHides(i, end);
            stageExposed[i] = exposed;
            st.dpExposedS = std::max(st.dpExposedS, exposed);
            if (whole > st.dpCommS) {
                st.dpCommS = whole;
                out.dpBytesPerStep = sync.bytesPerStep;
                out.expertDpBytesPerStep = expertPart.bytesPerStep;
                out.dpReplicaBytesPerStep = replicaPart.bytesPerStep;
                out.dpBuckets = buckets;
            }
        }
    }
    // The word embedding's copy on the stage with the LM head, tied to it or looked up by the
    // MTP layers, has its gradients all-reduced with the first stage's after both stages'
    // data-parallel sync and before the optimizer (Megatron-core finalize_model_grads.py,
    // _allreduce_word_embedding_grads over the embedding group; DeepSpeed's pipeline engine,
    // allreduce_tied_weight_gradients): nothing hides it.
    double embeddingSyncS = 0;
    if (const auto sync = embeddingGroupSync(s, model, states, t); training && sync) {
        embeddingSyncS = sync->seconds;
        const auto head = static_cast<std::size_t>(sync->headStage);
        const double before =
            head < stageExposed.size() ? std::max(stageExposed.front(), stageExposed[head]) : 0.0;
        st.dpExposedS = std::max(st.dpExposedS, before + embeddingSyncS);
    }
    const double tokens = static_cast<double>(s.microbatches) * s.microbatchSize * s.seqLen * s.dp;
    st.tokensPerStep = tokens;
    // Kaplan et al. 2020, §2.1: N counts the transformer layers' parameters, not embeddings;
    // of a mixture of experts, those a token uses (its top-k experts).
    const double n = static_cast<double>(activeLayerParams(model));
    // Narayanan et al. 2021, §5.1: 6·N·tokens in training (backward = 2 × forward), 2· inference.
    st.modelFlopsPerStep = (training ? 6.0 : 2.0) * n * tokens;
    if (training && s.loraRank > 0)
        // LoRA: the frozen weights' forward and input gradients, 4·N, and the adapters' 6·N_a
        // (of a MoE layer's, a token's top-k experts').
        st.modelFlopsPerStep = (4.0 * n + 6.0 * activeLoraParams(s, model)) * tokens;
    st.devices = s.devices();
    st.peakFlops = t.rates->peakFlops;
    st.tdpW = device.tdpW;
    StepTimeReport computed = stepTime(st);
    computed.dpLink = out.dpLink;
    computed.dpBusGbPerS = out.dpBusGbPerS;
    computed.dpBytesPerStep = out.dpBytesPerStep;
    computed.dpBuckets = out.dpBuckets;
    computed.expertDpRanks = out.expertDpRanks;
    computed.expertDpLink = out.expertDpLink;
    computed.expertDpBusGbPerS = out.expertDpBusGbPerS;
    computed.expertDpBytesPerStep = out.expertDpBytesPerStep;
    computed.dpReplicas = out.dpReplicas;
    computed.dpReplicaLink = out.dpReplicaLink;
    computed.dpReplicaBusGbPerS = out.dpReplicaBusGbPerS;
    computed.dpReplicaBytesPerStep = out.dpReplicaBytesPerStep;
    computed.linkTimeExcluded = linksUnknown;
    computed.optimizer = out.optimizer;
    computed.optimizerOwnedParams = out.optimizerOwnedParams;
    computed.optimizerHeldParams = out.optimizerHeldParams;
    computed.weightCastOnceS = out.weightCastOnceS;
    computed.weightCastOnceBytesPerParam = out.weightCastOnceBytesPerParam;
    computed.weightCastOnceParams = out.weightCastOnceParams;
    computed.memoryBytesPerS = out.memoryBytesPerS;
    computed.embeddingSyncS = embeddingSyncS;
    computed.offloadForwardS = t.offload.forwardS;
    computed.offloadBackwardS = t.offload.backwardS;
    computed.offloadCopyS = t.offloadCopyS;
    computed.hostBytesPerS = t.hostBytesPerS;
    // The factors the attention kernel in use took for the head width (op_model.cpp times it).
    computed.headWidth = (model.headDim() + model.valueHeadDim()) / 2.0;
    if (!s.mfu && s.attention != Attention::eager) {
        const DeviceRates &rates = *t.rates;
        const DeviceRates::WidthFactors width = s.attention == Attention::flash2 ? rates.flash2Width
                                                : s.attention == Attention::flash3
                                                    ? rates.flash3Width
                                                : t.fp8Attention ? rates.fp8Width
                                                                 : rates.fusedWidth;
        computed.attentionWidthForward = width.forward;
        computed.attentionWidthBackward = width.backward;
    }
    return computed;
}

// Serving (docs/inference.md): the prefill is the forward pipeline just simulated; decode and
// the memory limits follow from the stages' terms.
ServingReport servingReport(const Report &r, const Scenario &s, const ModelSpec &model,
                            const DeviceSpec &device, const Timing &t,
                            const std::vector<int> &layers)
{
    ServingInput in;
    in.model = &model;
    in.stageLayers = layers;
    in.stageMoeLayers = t.moeLayers;
    for (const StageReport &st : r.stages)
        in.stageSlidingLayers.push_back(st.slidingLayers);
    in.microbatches = s.microbatches;
    in.microbatchSize = s.microbatchSize;
    in.promptTokens = s.seqLen;
    in.outputTokens = s.outputLen;
    in.tp = s.tp;
    in.activationBytes = activationValueBytes(s.precision);
    in.weightBytes = bitsPerValue(s.precision) / 8.0;
    in.kvBytes = kvBytesPerValue(s);
    in.commBytes = bitsPerValue(tpActivationPrecision(s.precision)) / 8.0;
    in.rates = *t.rates;
    in.tpLink = t.tpLink;
    if (s.pp > 1 && !t.ppLinkError)
        for (std::size_t b = 0; b < static_cast<std::size_t>(s.pp); ++b)
            in.ppLinks.push_back(t.crossesAt(b) ? t.ppAcross : t.ppInside);
    in.prefillS = r.makespanS;
    in.tdpW = device.tdpW;
    ServingReport out = serving(in);
    out.linkTimeExcluded = t.tpLinkError || t.ppLinkError;
    // Replicas share nothing while serving: each answers its own batch.
    out.replicas = s.dp;
    out.tokensPerSAllReplicas = out.tokensPerS * s.dp;

    // The cache grows with m × b sequences and with the context, the prefill buffers with the
    // b prompts of one micro-batch; weights and the reserve stay. Both grow linearly, so the
    // largest b is the free memory over their growth per sequence; the longest context keeps
    // the prompt (and so the buffers) and grows the cache alone.
    const std::int64_t context = contextTokens(s);
    const std::int64_t sequences = std::int64_t{s.microbatches} * s.microbatchSize;
    std::int64_t maxSize = std::numeric_limits<std::int64_t>::max();
    std::int64_t maxContext = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const StageReport &st = r.stages[i];
        const int kvBytes = kvBytesPerValue(s);
        // A token's cache in every layer, and in the layers that keep the whole context: past
        // the sliding window only those grow.
        const std::int64_t perToken =
            kvCacheBytes(model, layers[i], 1, 1, s.tp, kvBytes, st.slidingLayers);
        if (perToken <= 0)
            continue;
        const std::int64_t perTokenPastWindow =
            kvCacheBytes(model, layers[i] - st.slidingLayers, 1, 1, s.tp, kvBytes);
        const std::int64_t buffersPerSequence =
            prefillBufferBytes(model, st.layers > 0, st.index == s.pp - 1, s.seqLen, 1, s.tp,
                               activationValueBytes(s.precision));
        const std::int64_t fixed = st.totalBytes - st.kvCacheBytes - st.prefillBuffersBytes;
        const std::int64_t growth =
            saturatingAdd(saturatingMul(kvCacheBytes(model, layers[i], context, 1, s.tp, kvBytes,
                                                     st.slidingLayers),
                                        s.microbatches),
                          buffersPerSequence);
        maxSize = std::min(maxSize, std::max<std::int64_t>(st.capacityBytes - fixed, 0) / growth);
        const std::int64_t free =
            std::max<std::int64_t>(st.capacityBytes - (st.totalBytes - st.kvCacheBytes), 0) /
            sequences;
        const std::int64_t window = st.slidingLayers > 0 ? model.slidingWindow : 0;
        if (window == 0 || free <= perToken * window)
            maxContext = std::min(maxContext, free / perToken);
        else if (perTokenPastWindow > 0)
            maxContext =
                std::min(maxContext, window + (free - perToken * window) / perTokenPastWindow);
    }
    if (maxSize != std::numeric_limits<std::int64_t>::max()) {
        out.maxBatch = saturatingMul(maxSize, s.microbatches);
        out.maxContext = maxContext;
        // No longer than the model takes, however much memory is free.
        if (model.contextWindow > 0 && maxContext > model.contextWindow) {
            out.maxContext = model.contextWindow;
            out.maxContextIsModelWindow = true;
        }
    }
    return out;
}

// A stage or a step whose bytes do not fit 64 bits (kTooLarge): refused, naming the key
// that drives the term, rather than reported wrapped round to a negative number.
std::optional<InputError> beyondCounting(const Report &r)
{
    // Literals, so that a report that fits builds no string.
    const char *const beyond = "more than 2^63 bytes (8 EiB)";
    const char *const uncounted = ", beyond what Parascope counts";
    const char *const lower = "; lower microbatches, microbatch_size or seq_len";
    for (const StageReport &st : r.stages) {
        if (st.reserveBytes == kTooLarge)
            return InputError{"reserve_gib",
                              std::string("must be less than 2^63 bytes (8 EiB) per device") +
                                  uncounted};
        if (st.totalBytes == kTooLarge)
            return InputError{"microbatches", "stage " + std::to_string(st.index) + "'s " +
                                                  largestMemoryTerm(st) + " would take " + beyond +
                                                  " per device" + uncounted + lower};
    }
    if (r.tpComm.bytesPerStep == kTooLarge)
        return InputError{"microbatches", std::string("tensor-parallel traffic would be ") +
                                              beyond + " per step" + uncounted + lower};
    return std::nullopt;
}

} // namespace

std::int64_t weightBytes(std::int64_t params, Precision precision)
{
    return bytesFor(params, precision);
}

std::int64_t timelineBlocks(const Scenario &s)
{
    const bool training = s.mode == Mode::training;
    // A micro-batch passes every chunk of a stage, but one of DualPipe's two.
    const std::int64_t chunks = training && s.schedule != Schedule::dualPipe
                                    ? chunksPerStage(s.schedule, s.virtualStages)
                                    : std::int64_t{1};
    const int passes = !training ? 1 : splitsWeightGradients(s.schedule) ? 3 : 2;
    return std::int64_t{s.pp} * s.microbatches * chunks * passes;
}

std::optional<InputError> checkTimeline(const Scenario &s)
{
    const std::int64_t blocks = timelineBlocks(s);
    if (blocks <= limits::kTimelineBlocks)
        return std::nullopt;
    const bool training = s.mode == Mode::training;
    const bool interleaved = training && s.schedule == Schedule::interleaved;
    const bool dualPipeV = training && s.schedule == Schedule::dualPipeV;
    const std::string passes = !training                           ? ""
                               : splitsWeightGradients(s.schedule) ? " x 3 passes (F, B, W)"
                                                                   : " x 2 passes (F, B)";
    return InputError{
        "microbatches",
        "the timeline would hold pp x microbatches" +
            std::string(interleaved ? " x virtual_stages"
                        : dualPipeV ? " x 2 chunks"
                                    : "") +
            passes + " = " + std::to_string(blocks) + " blocks, more than the " +
            std::to_string(limits::kTimelineBlocks) + " Parascope draws or writes; lower " +
            (interleaved ? "pp, microbatches or virtual_stages" : "pp or microbatches")};
}

std::vector<ServingPoint> servingCurve(const Scenario &s, const Presets &presets)
{
    const Report base = evaluate(s, presets);
    if (!base.serving)
        return {};
    const std::int64_t most =
        std::min<std::int64_t>(base.serving->maxBatch / s.microbatches, limits::kMicrobatchSize);
    std::vector<std::int64_t> sizes;
    for (std::int64_t b = 1; b <= most; b *= 2)
        sizes.push_back(b);
    sizes.push_back(std::max<std::int64_t>(most, 1));
    sizes.push_back(s.microbatchSize);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<ServingPoint> out;
    for (const std::int64_t b : sizes) {
        Scenario at = s;
        at.microbatchSize = static_cast<int>(b);
        const Report r = b == s.microbatchSize ? base : evaluate(at, presets);
        if (!r.serving)
            continue;
        ServingPoint p;
        p.batch = r.serving->batch;
        p.timePerTokenS = r.serving->decodeMeanS;
        p.tokensPerSPerDevice = r.serving->decodeTokensPerS / r.serving->devicesPerReplica;
        p.memoryBound = r.serving->first.busiest.memoryBound;
        p.fits = r.fits;
        out.push_back(p);
    }
    return out;
}

std::optional<double> stepTimeLowerBound(const Scenario &s, const Presets &presets,
                                         const EvaluateOptions &options)
{
    if (options.presetsValidated ? validateWithPresetsChecked(s, presets) : validate(s, presets))
        return std::nullopt;
    const ModelSpec &model = *resolveModel(s, presets);
    const DeviceSpec &device = *resolveDevice(s, presets);
    Report r; // only what the step-time model reads: stage parameters and the TP traffic
    std::vector<int> layers;
    std::vector<int> moeLayers;
    std::vector<int> slidingLayers;
    for (const auto &st : stageModelStates(s, model)) {
        StageReport stage;
        stage.params = st.params;
        stage.expertParams = st.expertParams;       // synced over the expert data-parallel group
        stage.trainableParams = st.trainableParams; // what syncs and updates (LoRA: adapters)
        stage.trainableExpertParams = st.trainableExpertParams;
        stage.castParams = st.castParams; // FP8 weights gathered in their byte
        stage.mtpLayers = st.mtpLayers;   // each depth's tensors in the sync's buckets
        r.stages.push_back(stage);
        layers.push_back(st.layers);
        moeLayers.push_back(st.moeLayers);
        if (model.slidingWindow > 0)
            slidingLayers.push_back(st.slidingLayers);
    }
    const Timing t = timing(s, model, device, std::move(moeLayers), std::move(slidingLayers));
    const PipelineInput in = pipelineInput(s, model, t, layers);
    // The busiest stage must do its own work: the makespan is at least that, less what
    // ep_overlap's pairs hide.
    const std::vector<double> hidden =
        in.expertOverlap ? hiddenExpertComm(in) : std::vector<double>{};
    double makespan = 0;
    const double passes = s.microbatches * passedShare(in.schedule);
    for (int i = 0; i < in.stages; ++i)
        makespan = std::max(
            makespan,
            passes * (stageSeconds(in, i, OpKind::forward) + stageSeconds(in, i, OpKind::backward) +
                      stageSeconds(in, i, OpKind::weight)) -
                (static_cast<std::size_t>(i) < hidden.size() ? hidden[static_cast<std::size_t>(i)]
                                                             : 0.0));
    // Equal stages under GPipe or 1F1B: (m + K - 1)(F + B) exactly (Narayanan et al. 2021,
    // §2.2) for the layers alone; the end stages' work and the sends only lengthen ops of a
    // fixed order, which never ends the schedule sooner. Shaved by a rounding margin so that
    // the bound never exceeds the simulation. The per-stage times are the layers' alone (the
    // ends and the sends are apart), as layersOnly() keeps them.
    const auto uniform = [](const std::vector<double> &times) {
        return std::adjacent_find(times.begin(), times.end(), std::not_equal_to<>()) == times.end();
    };
    if ((in.schedule == Schedule::gpipe || in.schedule == Schedule::oneFOneB) &&
        !in.expertOverlap && uniform(in.forward) && uniform(in.backward) && !in.forward.empty())
        makespan = std::max(makespan, (1 - 1e-9) * (s.microbatches + s.pp - 1) *
                                          (in.forward[0] + in.backward[0]));
    r.makespanS = makespan;
    r.timeInLayerUnits = !t.rates;
    r.tpComm = tpComm(r, s, model, t, layers);
    // Without a simulation each stage may idle as long as it likes after its last op, but for
    // stage 0, which in GPipe, 1F1B and interleaving runs the step's last backward (ZB-H1's
    // deferred weight gradients can end later elsewhere): a bound must let every other stage
    // hide its reduction whole.
    std::vector<double> tailIdle(static_cast<std::size_t>(s.pp),
                                 std::numeric_limits<double>::infinity());
    if (!tailIdle.empty() && (s.schedule == Schedule::gpipe || s.schedule == Schedule::oneFOneB ||
                              s.schedule == Schedule::interleaved))
        tailIdle.front() = 0;
    const auto st =
        stepTimeReport(r, s, model, device, trainingStates(s), t, layers, hidden, tailIdle, {});
    // Shaved by a rounding margin: with one stage the bound is the step itself, summed in
    // another order. A step without its links' time is not one the planner ranks.
    return st && !st->linkTimeExcluded ? std::optional<double>((1 - 1e-9) * st->stepTimeS)
                                       : std::nullopt;
}

namespace {

// DeepSpeed's default reduce_bucket_size, in values (deepspeed/runtime/zero/config.py).
constexpr std::int64_t kDeepSpeedReduceBucket = 500'000'000;

// The parameters of the largest single module on one device of a stage, as DeepSpeed's
// estimator counts a layer (a module's own parameters): a projection matrix, the embedding
// on the first stage, the LM head on the last; split by T.
std::int64_t largestModuleParams(const ModelSpec &m, int tp, bool first, bool last, bool hasLayers)
{
    if (!m.hasArchitecture())
        return 0;
    const std::int64_t h = m.hidden;
    const std::int64_t vocabShare = ceilDiv(std::int64_t{m.vocab}, tp) * h;
    std::int64_t largest = 0;
    if (hasLayers) {
        const std::int64_t q = std::int64_t{m.heads} * m.headDim();
        const std::int64_t kv = std::int64_t{m.kvHeads} * m.headDim();
        // The query, key, value and output projections and the feed-forward matrices.
        for (std::int64_t cols : {q, kv, std::int64_t{m.ffnHidden}})
            largest = std::max(largest, ceilDiv(h * cols, std::int64_t{tp}));
    }
    if (first || (last && !m.tiedEmbeddings))
        largest = std::max(largest, vocabShare);
    return largest;
}

} // namespace

std::vector<LayerRun> virtualStageLayers(const Scenario &s, const ModelSpec &model)
{
    const Schedule schedule = s.mode == Mode::training ? s.schedule : Schedule::gpipe;
    const int chunks = chunksPerStage(schedule, s.virtualStages);
    // DualPipe keeps the model's K stages, each on two devices; every other schedule cuts
    // the model into as many parts as it has virtual stages.
    const bool mirrored = schedule == Schedule::dualPipe;
    const int parts = mirrored ? s.pp : chunks * s.pp;
    std::vector<int> split;
    // A custom layout (validate checked it: K x chunks entries, every layer placed).
    if (const auto layout = pipelineLayoutStages(s, model);
        layout && layout->size() == static_cast<std::size_t>(parts) && model.hasArchitecture())
        for (const LayoutStage &stage : *layout)
            split.push_back(stage.decoders);
    else
        split = model.hasArchitecture() ? splitLayers(model.layers, parts, s.endsInPipelineSplit)
                                        : std::vector<int>(static_cast<std::size_t>(parts), 0);
    std::vector<LayerRun> part(split.size());
    for (std::size_t i = 0; i < split.size(); ++i)
        part[i] = {i == 0 ? 0 : part[i - 1].first + part[i - 1].count, split[i]};
    std::vector<LayerRun> runs(static_cast<std::size_t>(chunks) *
                               static_cast<std::size_t>(std::max(s.pp, 0)));
    for (std::size_t j = 0; j < runs.size(); ++j)
        runs[j] = part[mirrored && j >= part.size() ? j - part.size() : j];
    return runs;
}

bool recomputesSomeLayers(const Scenario &s)
{
    return s.mode == Mode::training && s.recompute == Recompute::full && s.recomputeLayers > 0;
}

double stageRecomputedShare(const Scenario &s, const ModelSpec &model, int stage)
{
    const std::vector<double> shares = recomputedShares(s, model);
    return stage >= 0 && static_cast<std::size_t>(stage) < shares.size()
               ? shares[static_cast<std::size_t>(stage)]
               : 1.0;
}

namespace {

// One layer's activation bytes of each kind under recompute_layers: a rerun layer's (its
// input, as full recomputation keeps) and a kept one's (everything), dense and MoE.
struct PartlyRecomputedLayers
{
    std::int64_t rerunDense = 0, rerunMoe = 0, keptDense = 0, keptMoe = 0;
};

PartlyRecomputedLayers partlyRecomputedLayers(const ActivationConfig &act, const ModelSpec &model)
{
    ActivationConfig rerun = act;
    ActivationConfig kept = rerun;
    kept.recompute = Recompute::none;
    PartlyRecomputedLayers out;
    out.rerunDense = layerActivationBytes(model, rerun);
    out.keptDense = layerActivationBytes(model, kept);
    if (model.hasExperts()) {
        rerun.moe = kept.moe = true;
        out.rerunMoe = layerActivationBytes(model, rerun);
        out.keptMoe = layerActivationBytes(model, kept);
    }
    return out;
}

// A run of layers of which the first min(recompute_layers, count) keep only their inputs and
// the rest everything, with `mtp` multi-token-prediction layers after them (kept whole).
std::int64_t partlyRecomputedRunBytes(const Scenario &s, const ModelSpec &model,
                                      const PartlyRecomputedLayers &bytes, LayerRun run, int mtp)
{
    const int rerun = std::min(s.recomputeLayers, run.count);
    const int moe = moeLayersIn(model, run.first, run.count) + mtpMoeLayers(model, mtp);
    const int moeRerun = moeLayersIn(model, run.first, rerun);
    return saturatingAdd(stageActivationBytes(bytes.rerunDense, bytes.rerunMoe, rerun, moeRerun),
                         stageActivationBytes(bytes.keptDense, bytes.keptMoe,
                                              run.count + mtp - rerun, moe - moeRerun));
}

} // namespace

std::vector<std::int64_t> partlyRecomputedStageBytes(const Scenario &s, const ModelSpec &model,
                                                     const ActivationConfig &act)
{
    const Schedule schedule = s.mode == Mode::training ? s.schedule : Schedule::gpipe;
    const int chunks = chunksPerStage(schedule, s.virtualStages);
    const std::vector<LayerRun> runs = virtualStageLayers(s, model);
    const PartlyRecomputedLayers layer = partlyRecomputedLayers(act, model);
    std::vector<std::int64_t> bytes(static_cast<std::size_t>(std::max(s.pp, 0)), 0);
    for (int stage = 0; stage < s.pp; ++stage)
        for (int c = 0; c < chunks; ++c) {
            const auto j = static_cast<std::size_t>(virtualStageOf(schedule, s.pp, stage, c));
            if (j >= runs.size())
                continue;
            // The model's last virtual stage holds the loss, and with it multi-token
            // prediction.
            const int mtp = j + 1 == runs.size() ? s.mtpLayers : 0;
            auto &stageBytes = bytes[static_cast<std::size_t>(stage)];
            stageBytes =
                saturatingAdd(stageBytes, partlyRecomputedRunBytes(s, model, layer, runs[j], mtp));
        }
    return bytes;
}

namespace {

// Whether the scenario fits with `headroomBytes` free on every stage, as the planner asks.
bool fitsWithHeadroom(const Scenario &s, const Presets &presets, std::int64_t headroomBytes,
                      const EvaluateOptions &options)
{
    const Report r = evaluate(s, presets, options);
    return !r.error && r.fits &&
           std::ranges::all_of(r.stages, [headroomBytes](const StageReport &st) {
               return st.headroomBytes >= headroomBytes;
           });
}

} // namespace

std::optional<int> fewestRecomputedLayers(Scenario s, const Presets &presets,
                                          std::int64_t headroomBytes,
                                          const EvaluateOptions &options)
{
    const ModelSpec *model = resolveModel(s, presets);
    if (!model || s.recompute != Recompute::full || s.mode != Mode::training)
        return std::nullopt;
    int all = 0; // the most layers a chunk holds: every layer reruns from this count up
    for (const LayerRun &run : virtualStageLayers(s, *model))
        all = std::max(all, run.count);
    const auto fits = [&](int n) {
        s.recomputeLayers = n;
        return fitsWithHeadroom(s, presets, headroomBytes, options);
    };
    int fit = all;     // the fewest known to fit
    int overflows = 0; // the most known not to, or none
    while (fit - overflows > 1) {
        const int n = overflows + (fit - overflows) / 2;
        (fits(n) ? fit : overflows) = n;
    }
    return fit < all ? std::optional<int>(fit) : std::nullopt;
}

bool offloadsActivations(const Scenario &s, const ModelSpec &model, const DeviceSpec &device)
{
    return s.mode == Mode::training && s.pp == 1 && s.recompute == Recompute::none &&
           s.framework == Framework::megatron && model.hasArchitecture() && model.layers >= 2 &&
           device.hostGbPerS > 0;
}

OffloadedLayers fewestOffloadedLayers(Scenario s, const Presets &presets,
                                      std::int64_t headroomBytes, const EvaluateOptions &options)
{
    const ModelSpec *model = resolveModel(s, presets);
    const DeviceSpec *device = resolveDevice(s, presets);
    if (!model || !device || !offloadsActivations(s, *model, *device) ||
        s.offloadLayers >= model->layers - 1)
        return {};
    // The device's sets only fall as more layers are offloaded and the host's only grow: the
    // fewest that the device holds is the one host memory must hold too.
    const auto deviceFits = [&](int n) {
        s.offloadLayers = n;
        const Report r = evaluate(s, presets, options);
        return !r.error && std::ranges::all_of(r.stages, [headroomBytes](const StageReport &st) {
            return st.headroomBytes >= headroomBytes;
        });
    };
    int overflows = std::max(s.offloadLayers, 0); // known not to fit
    int fit = model->layers - 1;                  // all but the last layer, the most allowed
    if (!deviceFits(fit))
        return {};
    while (fit - overflows > 1) {
        const int n = overflows + (fit - overflows) / 2;
        (deviceFits(n) ? fit : overflows) = n;
    }
    s.offloadLayers = fit;
    return {fitsWithHeadroom(s, presets, headroomBytes, options) ? fit : 0, fit};
}

std::vector<std::int64_t> unequalChunkBytes(const Scenario &s, const ModelSpec &model,
                                            const ActivationConfig &act,
                                            std::int64_t denseLayerBytes,
                                            std::int64_t moeLayerBytes)
{
    const Schedule schedule = s.mode == Mode::training ? s.schedule : Schedule::gpipe;
    const int chunks = chunksPerStage(schedule, s.virtualStages);
    if (chunks <= 1 || !model.hasArchitecture())
        return {};
    const std::vector<LayerRun> runs = virtualStageLayers(s, model);
    std::vector<std::int64_t> bytes(runs.size());
    const bool partly = recomputesSomeLayers(s);
    const PartlyRecomputedLayers layer =
        partly ? partlyRecomputedLayers(act, model) : PartlyRecomputedLayers{};
    for (std::size_t j = 0; j < runs.size(); ++j) {
        // The model's last virtual stage holds the loss, and with it multi-token prediction.
        const int mtp = j + 1 == runs.size() && s.mode == Mode::training ? s.mtpLayers : 0;
        bytes[j] = partly
                       ? partlyRecomputedRunBytes(s, model, layer, runs[j], mtp)
                       : stageActivationBytes(denseLayerBytes, moeLayerBytes, runs[j].count + mtp,
                                              moeLayersIn(model, runs[j].first, runs[j].count) +
                                                  mtpMoeLayers(model, mtp));
        if (bytes[j] == kTooLarge)
            return {}; // the stage's own count says so
    }
    for (int stage = 0; stage < s.pp; ++stage) {
        const auto first =
            bytes[static_cast<std::size_t>(virtualStageOf(schedule, s.pp, stage, 0))];
        for (int c = 1; c < chunks; ++c)
            if (bytes[static_cast<std::size_t>(virtualStageOf(schedule, s.pp, stage, c))] != first)
                return bytes;
    }
    return {};
}

namespace {

// Each stage's peak activation bytes with its chunks weighed by their own (inflightWeighted),
// or nothing where every stage's chunks are alike.
std::vector<double> weightedChunkPeaks(const Scenario &s, const ModelSpec &model,
                                       const ActivationConfig &act, std::int64_t denseLayerBytes,
                                       std::int64_t moeLayerBytes, const PipelineResult &pipe,
                                       PipelineCache *cache)
{
    const std::vector<std::int64_t> bytes =
        unequalChunkBytes(s, model, act, denseLayerBytes, moeLayerBytes);
    if (bytes.empty())
        return {};
    const std::vector<double> weights(bytes.begin(), bytes.end());
    // The simulation counted them on its way (the plan it remembers), or the cache did.
    if (pipe.alivePeaks.size() == static_cast<std::size_t>(s.pp))
        return inflightWeighted(s.schedule, s.pp, pipe.alivePeaks, weights);
    if (cache) {
        // The counts depend on the schedule, K, m and v alone.
        const PipelineInput shape =
            uniformPipeline(s.schedule, s.pp, s.microbatches, s.virtualStages);
        return inflightWeighted(s.schedule, s.pp, cache->alivePeaks(shape), weights);
    }
    return inflightWeighted(s.schedule, s.pp,
                            alivePeaks(s.schedule, s.pp, s.microbatches, s.virtualStages), weights);
}

} // namespace

ParamCounts loraParams(const Scenario &s, const ModelSpec &m)
{
    ParamCounts c;
    const unsigned modules = loraModuleBits(s);
    if (modules == 0 || !m.hasArchitecture())
        return c;
    // Hu et al. 2021, §4.1: A is r×k and B is n×r; Megatron-Bridge splits each pair over the
    // projection's T (ParallelLinearAdapter: A's outputs or inputs, B's outputs).
    const auto pair = [r = std::int64_t{s.loraRank}](std::int64_t k, std::int64_t n, int tp) {
        return ceilDiv(r * (k + n), std::int64_t{tp});
    };
    const std::int64_t h = m.hidden;
    const auto has = [modules](unsigned bit) { return (modules & bit) != 0; };
    std::int64_t attention = 0;
    // Latent attention has no linear_qkv (its own down and up projections instead).
    if (has(kLoraQkv) && !m.latentAttention())
        attention +=
            pair(h,
                 (std::int64_t{m.heads} + 2 * std::int64_t{m.kvHeads > 0 ? m.kvHeads : m.heads}) *
                     m.headDim(),
                 s.tp);
    if (has(kLoraProj))
        attention += pair(std::int64_t{m.heads} * m.valueHeadDim(), h, s.tp);
    const auto mlp = [&](std::int64_t ffn, int tp) {
        return (has(kLoraFc1) ? pair(h, (m.gatedMlp ? 2 : 1) * ffn, tp) : 0) +
               (has(kLoraFc2) ? pair(ffn, h, tp) : 0);
    };
    c.perLayer = attention + mlp(m.ffnHidden, s.tp);
    if (m.hasExperts()) {
        c.perMoeLayerExperts = ceilDiv(std::int64_t{m.experts}, std::int64_t{s.ep}) *
                               mlp(m.expertFfnHidden, s.expertTpDegree());
        c.perMoeLayer =
            attention + m.sharedExperts * mlp(m.expertFfnHidden, s.tp) + c.perMoeLayerExperts;
    }
    return c;
}

std::vector<StageModelStates> stageModelStates(const Scenario &s, const ModelSpec &model)
{
    const TrainingStates states = trainingStates(s);
    const ParamCounts perDevice = countParams(model, s.tp, ExpertSplit{s.ep, s.expertTpDegree()});
    const ParamCounts adapters = loraParams(s, model);
    const bool training = s.mode == Mode::training;
    const std::vector<LayerRun> runs = virtualStageLayers(s, model);
    // ZeRO-1 shards optimizer states over D, ZeRO-2 also gradients, ZeRO-3 also
    // parameters (Rajbhandari et al. 2020, §5). Megatron-core shards the dense parameters over
    // the D x C ranks that hold the same ones, and the routed experts over the expert
    // data-parallel group (distributed_data_parallel.py, expert_data_parallel_group); hybrid
    // sharding over 1/R of each (zeroShardRanks).
    const std::int64_t d = zeroShardRanks(s);
    const std::int64_t ed = expertShardRanks(s);
    auto zeroShard = [d, ed](std::int64_t dense, std::int64_t expert, bool sharded) {
        return sharded ? saturatingAdd(ceilDiv(dense, d), ceilDiv(expert, ed))
                       : saturatingAdd(dense, expert);
    };
    std::vector<StageModelStates> out;
    out.reserve(static_cast<std::size_t>(std::max(s.pp, 0)));
    const Schedule schedule = s.mode == Mode::training ? s.schedule : Schedule::gpipe;
    const int chunks = chunksPerStage(schedule, s.virtualStages);
    // What makes a stage's states differ from another's: a stage like the one before it (the
    // middle stages of most splits) copies its states.
    std::tuple<int, int, int, int, bool, bool> previous{-1, 0, 0, 0, false, false};
    for (int i = 0; i < s.pp; ++i) {
        StageModelStates st;
        for (int c = 0; c < chunks; ++c) {
            const LayerRun &run =
                runs[static_cast<std::size_t>(virtualStageOf(schedule, s.pp, i, c))];
            st.layers += run.count;
            st.moeLayers += moeLayersIn(model, run.first, run.count);
            st.slidingLayers += slidingLayersIn(model, run.first, run.count);
        }
        st.mtpLayers = stageMtpDepths(s, schedule, i);
        const bool embedding = holdsEmbedding(schedule, s.pp, i);
        const bool head = holdsHead(schedule, s.pp, i);
        const std::tuple key{st.layers,    st.moeLayers, st.slidingLayers,
                             st.mtpLayers, embedding,    head};
        if (key == previous) {
            out.push_back(out.back());
            continue;
        }
        previous = key;
        st.params = stageParams(model, perDevice, i, s.pp, schedule, st.layers, st.moeLayers, s.tp,
                                st.mtpLayers);
        st.expertParams =
            (st.moeLayers + mtpMoeLayers(model, st.mtpLayers)) * perDevice.perMoeLayerExperts;
        st.trainableParams = st.params;
        st.trainableExpertParams = st.expertParams;
        // What the FP8 and NVFP4 multiplies cast: every projection of the layers (their norms
        // and routers, a thousandth of a layer, among them), not the embedding, the LM head
        // unless fp8_lm_head runs it in FP8 (Builder::sixteenBitProjection), nor the adapters.
        if (!model.hasArchitecture()) {
            st.castParams = st.params;
        } else {
            const int mtpMoe = mtpMoeLayers(model, st.mtpLayers);
            const int dense = st.layers - st.moeLayers + st.mtpLayers - mtpMoe;
            st.castParams =
                saturatingAdd(saturatingMul(dense, perDevice.perLayer),
                              saturatingMul(st.moeLayers + mtpMoe, perDevice.perMoeLayer));
            if (head && s.fp8LmHead && !fp8LmHeadUnused(s))
                st.castParams = saturatingAdd(st.castParams, perDevice.lmHead);
        }
        if (training && s.loraRank > 0) {
            // LoRA: the adapters beside the stage's layers (a multi-token-prediction depth's
            // layer among them) train alone; the model's weights stay as they are held.
            const int moe = st.moeLayers + mtpMoeLayers(model, st.mtpLayers);
            const int denseLayers = st.layers + st.mtpLayers - moe;
            st.trainableExpertParams = moe * adapters.perMoeLayerExperts;
            st.trainableParams = denseLayers * adapters.perLayer + moe * adapters.perMoeLayer;
            st.params += st.trainableParams;
            st.expertParams += st.trainableExpertParams;
        }
        const std::int64_t dense = st.params - st.expertParams;
        const std::int64_t trainedDense = st.trainableParams - st.trainableExpertParams;
        const std::int64_t trainedExperts = st.trainableExpertParams;
        const Precision held = heldWeightPrecision(s);
        std::int64_t denseWeightBytes = weightBytes(dense, held);
        std::int64_t expertWeightBytes = weightBytes(st.expertParams, held);
        if (training && (held == Precision::fp8 || held == Precision::nvfp4) &&
            model.hasArchitecture()) {
            // FP8 parameters are Transformer Engine's modules' weights alone (castParams:
            // Megatron-core builds the model under te.quantized_model_init, and only its TE
            // layers quantize their weights): the embedding, an LM head outside fp8_lm_head
            // and LoRA's adapters stay in BF16 (megatron/core/distributed/
            // param_and_grad_buffer.py keeps them in a buffer of their own type). LoRA's
            // NVFP4 frozen weights likewise: MLPerf's pre-quantization replaces the TE
            // modules' weights only (custom_callbacks.py, _get_quantized_params_cpu).
            const std::int64_t expertAdapters = s.loraRank > 0 ? st.trainableExpertParams : 0;
            const std::int64_t baseExperts = st.expertParams - expertAdapters;
            const std::int64_t narrowDense = std::min(dense, st.castParams - baseExperts);
            denseWeightBytes = saturatingAdd(weightBytes(narrowDense, held),
                                             weightBytes(dense - narrowDense, Precision::bf16));
            expertWeightBytes =
                saturatingAdd(weightBytes(baseExperts, held),
                              weightBytes(st.expertParams - baseExperts, Precision::bf16));
        }
        st.weightsBytes = zeroShard(denseWeightBytes, expertWeightBytes, s.zero >= 3);
        st.gradsBytes = zeroShard(trainedDense * states.gradBytes,
                                  trainedExperts * states.gradBytes, s.zero >= 2);
        st.optimizerBytes = zeroShard(trainedDense * states.optimizerBytes,
                                      trainedExperts * states.optimizerBytes, s.zero >= 1);
        if (states.fp32Parameters) {
            // The FP32 parameters themselves, sharded from ZeRO-1 (FSDP2's sharded
            // parameters). Beside them, below ZeRO-3, the 16-bit copies the multiplies use:
            // FSDP2's gathered ones, kept all step under pipelining (reshard_after_forward
            // off), or torch.autocast's casts, saved for the backward under DDP; ZeRO-3's
            // come and go in the ZeRO buffers.
            const std::int64_t fp32 = zeroShard(4 * dense, 4 * st.expertParams, s.zero >= 1);
            st.weightsBytes = saturatingAdd(s.zero >= 3 ? 0 : st.weightsBytes, fp32);
            // Under pipelining FSDP2 accumulates the unsharded gradients in the reduce type
            // and keeps the reduce-scatter's sharded result for the optimizer too
            // (torch/distributed/fsdp/_fully_shard/_fsdp_param.py,
            // unsharded_accumulated_grad).
            if (s.zero == 1 || s.zero == 2)
                st.gradsBytes = saturatingAdd(zeroShard(trainedDense * states.gradBytes,
                                                        trainedExperts * states.gradBytes, false),
                                              zeroShard(trainedDense * states.gradBytes,
                                                        trainedExperts * states.gradBytes, true));
        }
        if (s.mode == Mode::training && s.zeroBuffers == ZeroBuffers::deepspeed) {
            if (s.zero >= 3)
                // DeepSpeed's estimate_zero3_model_states_mem_needs: 4 bytes (16-bit
                // parameters and gradients) per parameter of the largest layer, beside the 18
                // per sharded one.
                st.zeroBuffersBytes =
                    4 * largestModuleParams(model, s.tp, embedding, head, st.layers > 0);
            else if (s.zero >= 1)
                // deepspeed/runtime/zero/stage_1_and_2.py, setup_buckets: one contiguous
                // gradient bucket of reduce_bucket_size (5e8) values in the model's type.
                st.zeroBuffersBytes = weightBytes(kDeepSpeedReduceBucket, s.precision);
        }
        if (s.mode == Mode::training && s.zeroBuffers == ZeroBuffers::fsdp && s.zero >= 1) {
            // PyTorch FSDP2 (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py), one
            // unit per block, the embedding and the output layer units of their own.
            const std::int64_t block = st.layers == 0      ? 0
                                       : st.moeLayers == 0 ? perDevice.perLayer
                                       : st.moeLayers == st.layers
                                           ? perDevice.perMoeLayer
                                           : std::max(perDevice.perLayer, perDevice.perMoeLayer);
            const std::int64_t unit =
                std::max(block, largestModuleParams(model, s.tp, embedding, head, false));
            st.zeroBuffersBytes =
                s.zero >= 3
                    // Backward: the block gathered in 16 bits (2), the next one prefetched
                    // (2), its 16-bit gradients (2), and the previous unit's FP32
                    // reduce-scatter input (4) kept until this one's post-backward.
                    ? 6 * block + 4 * unit
                    // Under pipelining the gathered parameters stay all step; what comes
                    // and goes is one unit's FP32 reduce-scatter input at the step's end.
                    : 4 * unit;
        }
        out.push_back(st);
    }
    return out;
}

double castWeightBytesPerParam(const Scenario &s, const DeviceSpec &device)
{
    // LoRA's frozen weights held in NVFP4: each quantized with both usages, its 4-bit
    // column-wise copy and an E4M3 scale per 16 values beside the data the weights count
    // (custom_callbacks.py asserts both _rowwise_data and _columnwise_data;
    // transformer_engine/pytorch/csrc/quantizer.cpp, NVFP4Quantizer::create_tensor).
    if (s.mode == Mode::training && s.precision == Precision::nvfp4 &&
        heldWeightPrecision(s) == Precision::nvfp4 && s.zero < 3)
        return 0.5 + 1.0 / 16;
    if (s.mode == Mode::training && s.precision == Precision::fp8 && s.fp8Params && s.zero < 3) {
        // MXFP8 weights hold their column-wise copy from the start, cache or not: Transformer
        // Engine quantizes each with both usages while gradients are on, and only the
        // quantizing kernel makes the column-wise one ("columnwise scaled output is only
        // produced by x2 scaling kernels": tensor/storage/mxfp8_tensor_storage.py,
        // update_usage), so it is never rebuilt from the data: its E8M0 scales per 32 values
        // and that copy with its scales (docs/activations.md, "Cast weights"); torchao's MX
        // weights are not Transformer Engine's.
        if (s.fp8Scaling == Fp8Scaling::block && !fp8TnOnly(device) &&
            s.framework != Framework::torchtitan)
            return 1.0 / 32 + 1 + 1.0 / 32;
        // FP8 weights on a device whose FP8 multiplies take the TN layout only keep a transpose
        // for the backward beside the data, made after each gather of the updated weights
        // (transformer_engine/pytorch/tensor/utils.py, post_all_gather_processing:
        // Float8Tensor._create_transpose; FP8 blocks' _create_columnwise).
        if (!s.fp8WeightCache || !fp8TnOnly(device))
            return 0;
        return s.fp8Scaling == Fp8Scaling::block ? 1 + 4.0 / (128 * 128) : 1;
    }
    if (!s.fp8WeightCache)
        return 0;
    // Transformer Engine caches the cast weight under the name "weight" when Megatron-LM passes
    // is_first_microbatch (transformer_engine/pytorch/module/linear.py, _fp8_workspaces;
    // megatron/core/extensions/transformer_engine.py); ZeRO-3 gathers the weights anew.
    return castCopyBytesPerParam(s, device);
}

ActivationConfig activationConfig(const Scenario &s, const ModelSpec &model,
                                  const DeviceSpec &device)
{
    ActivationConfig c = activationConfig(s, model);
    // Without the cache each forward's copy is saved for its backward (linear.py, wt_save);
    // torchao's Float8Linear saves the 16-bit weight instead (matmul_with_hp_or_float8_args).
    if (s.fp8WeightCache || s.framework == Framework::torchtitan || !model.hasArchitecture())
        return c;
    const double perParam = castCopyBytesPerParam(s, device);
    if (!(perParam > 0))
        return c;
    const ParamCounts counts = countParams(model, s.tp, ExpertSplit{s.ep, s.expertTpDegree()});
    c.savedWeightBytes = saturatingRound(perParam * static_cast<double>(counts.perLayer));
    c.savedMoeWeightBytes = saturatingRound(perParam * static_cast<double>(counts.perMoeLayer));
    return c;
}

std::vector<std::string> assumedRates(const Scenario &s, const DeviceSpec &device)
{
    if (s.mfu)
        return {};
    return assumedRates(device, computePrecision(s.precision, device, s.mode == Mode::training),
                        s.attention != Attention::eager, s.fp8Scaling == Fp8Scaling::block);
}

namespace {

// What the recomputation hints probe with: the planner's headroom (kRecomputeHintHeadroomGib)
// and evaluations without warnings, timed or memory only, on the caller's pipeline cache.
struct HintProbes
{
    explicit HintProbes(const EvaluateOptions &options)
    {
        timed.pipelineCache = options.pipelineCache;
        timed.warnings = false;
        timed.presetsValidated = true; // the evaluation that probes validated them
        memory = timed;
        memory.memoryOnly = true;
    }
    std::int64_t headroom = saturatingRound(kRecomputeHintHeadroomGib * static_cast<double>(kGiB));
    EvaluateOptions timed;
    EvaluateOptions memory;
};

// Full recomputation of every layer where the first N of each chunk would fit as well, with the
// planner's headroom free on every stage (kRecomputeHintHeadroomGib): what Megatron-LM's
// --recompute-method block --recompute-num-layers N saves, the rest of the layers keeping
// their activations (docs/activations.md, "Recomputed layers"). Under the frameworks whose
// full recomputation can rerun only some layers.
std::optional<Warning> fewerRecomputedLayersFit(const Scenario &s, const Presets &presets,
                                                const Report &r, const EvaluateOptions &options)
{
    if (s.recompute != Recompute::full || s.recomputeLayers != 0 || !r.fits ||
        !frameworkProfile(s.framework).recomputesFirstLayers)
        return std::nullopt;
    const HintProbes probe(options);
    if (!std::ranges::all_of(r.stages, [&probe](const StageReport &st) {
            return st.headroomBytes >= probe.headroom;
        }))
        return std::nullopt;
    const std::optional<int> fewest =
        fewestRecomputedLayers(s, presets, probe.headroom, probe.memory);
    if (!fewest)
        return std::nullopt;
    // One layer a chunk fits: no recomputation may fit too, and runs faster still.
    Scenario fewer = s;
    fewer.recomputeLayers = *fewest;
    if (*fewest == 1) {
        Scenario none = s;
        none.recompute = Recompute::none;
        none.recomputeLayers = 0;
        if (fitsWithHeadroom(none, presets, probe.headroom, probe.memory))
            fewer = none;
    }
    const Report partly = evaluate(fewer, presets, probe.timed);
    if (!partly.stepTime || !(partly.stepTime->stepTimeS < r.stepTime->stepTimeS))
        return std::nullopt;
    char text[320];
    if (fewer.recompute == Recompute::none)
        std::snprintf(text, sizeof text,
                      "recompute = none also fits with %.0f GiB free on every stage: a step of "
                      "%.4g s instead of %.4g s",
                      kRecomputeHintHeadroomGib, partly.stepTime->stepTimeS, r.stepTime->stepTimeS);
    else
        std::snprintf(text, sizeof text,
                      "recompute_layers = %d also fits with %.0f GiB free on every stage: a step "
                      "of %.4g s instead of %.4g s, rerunning the first %d layer%s of each %s "
                      "and keeping the others' activations",
                      *fewest, kRecomputeHintHeadroomGib, partly.stepTime->stepTimeS,
                      r.stepTime->stepTimeS, *fewest, *fewest == 1 ? "" : "s",
                      chunksPerStage(s.schedule, s.virtualStages) > 1 ? "chunk" : "stage");
    return fewer.recompute == Recompute::none
               ? Warning{"recompute-layers-fewer", text, "recompute", "none"}
               : Warning{"recompute-layers-fewer", text, "recompute_layers",
                         std::to_string(*fewest)};
}

// A training scenario that does not fit, where recomputing more would fit with the planner's
// headroom free on every stage (kRecomputeHintHeadroomGib): the framework's selective
// recomputation for a scenario without any where that fits, else full recomputation of every
// layer, or, for one rerunning the first layers of each chunk, the fewest that fit
// (docs/activations.md, "Recomputed layers"). One key each: with full recomputation set,
// recompute-layers-fewer then names the fewest layers.
std::optional<Warning> recomputationWouldFit(const Scenario &s, const Presets &presets,
                                             const Report &r, const EvaluateOptions &options)
{
    if (r.fits || (s.recompute == Recompute::full && s.recomputeLayers == 0) ||
        (s.recompute != Recompute::full && s.recomputeLayers != 0))
        return std::nullopt;
    const HintProbes probe(options);
    Scenario more = s;
    // Without recomputation, the framework's selective kind first: it reruns the least.
    bool fits = false;
    if (s.recompute == Recompute::none) {
        more.recompute = frameworkProfile(s.framework).selectiveRecompute;
        fits = fitsWithHeadroom(more, presets, probe.headroom, probe.memory);
    }
    if (!fits) {
        more.recompute = Recompute::full;
        more.recomputeLayers = 0;
        fits = fitsWithHeadroom(more, presets, probe.headroom, probe.memory);
    }
    if (!fits)
        return std::nullopt;
    std::string key = "recompute";
    std::string value(toString(more.recompute));
    if (s.recompute == Recompute::full) { // rerunning too few layers: the fewest that fit
        more.recomputeLayers =
            fewestRecomputedLayers(more, presets, probe.headroom, probe.memory).value_or(0);
        key = "recompute_layers";
        value = std::to_string(more.recomputeLayers);
    }
    const Report fitted = evaluate(more, presets, probe.timed);
    if (!fitted.stepTime)
        return std::nullopt;
    char text[240];
    std::snprintf(text, sizeof text,
                  "%s = %s%s fits with %.0f GiB free on every stage: a step of %.4g s", key.c_str(),
                  value.c_str(),
                  key == "recompute_layers" && more.recomputeLayers == 0 ? " (every layer)" : "",
                  kRecomputeHintHeadroomGib, fitted.stepTime->stepTimeS);
    return Warning{"recompute-fits", text, key, value};
}

// Megatron-LM training of one stage without recomputation that does not fit where offloading
// the first N layers' activations would, with the planner's headroom free (docs/activations.md,
// "Offloaded layers"): the fewest such N, found by halving (the device's sets only fall as N
// grows), with the step it gives.
std::optional<Warning> offloadWouldFit(const Scenario &s, const Presets &presets,
                                       const ModelSpec &model, const DeviceSpec &device,
                                       const Report &r, const EvaluateOptions &options)
{
    if (r.fits || !offloadsActivations(s, model, device))
        return std::nullopt;
    const HintProbes probe(options);
    const OffloadedLayers offloaded =
        fewestOffloadedLayers(s, presets, probe.headroom, probe.memory);
    if (offloaded.fewest == 0 && offloaded.deviceFewest > 0) {
        // The device would hold it, the host not: say why offloading is no way out.
        Scenario more = s;
        more.offloadLayers = offloaded.deviceFewest;
        const Report host = evaluate(more, presets, probe.memory);
        if (host.stages.empty())
            return std::nullopt;
        char text[320];
        std::snprintf(text, sizeof text,
                      "offload_layers = %d would leave %.0f GiB free on the device, but its "
                      "offloaded activations need %s of host memory, of the %s a device has "
                      "(host_memory_gb)",
                      offloaded.deviceFewest, kRecomputeHintHeadroomGib,
                      gb(host.stages.front().offloadedBytes).c_str(),
                      gb(host.stages.front().hostCapacityBytes).c_str());
        return Warning{"offload-host-memory", text};
    }
    if (offloaded.fewest == 0)
        return std::nullopt;
    const int fit = offloaded.fewest;
    Scenario more = s;
    more.offloadLayers = fit;
    const Report fitted = evaluate(more, presets, probe.timed);
    if (!fitted.stepTime)
        return std::nullopt;
    char text[240];
    std::snprintf(text, sizeof text,
                  "offload_layers = %d fits with %.0f GiB free on every stage: a step of %.4g s, "
                  "the device keeping %d layers' activations and host memory the rest",
                  fit, kRecomputeHintHeadroomGib, fitted.stepTime->stepTimeS, model.layers - fit);
    return Warning{"offload-fits", text, "offload_layers", std::to_string(fit)};
}

// torchtitan with an eager loss whose buffers take kLossBuffersWarnShare or more of a stage:
// compiled with the model, the loss keeps only the logits' gradient (docs/activations.md, "The
// loss"), fused_elementwise being how Parascope spells torch.compile.
std::optional<Warning> eagerLossBuffers(const Scenario &s, const ModelSpec &model, const Report &r)
{
    if (s.framework != Framework::torchtitan || s.fusedElementwise)
        return std::nullopt;
    for (const StageReport &st : r.stages) {
        if (!(st.lossBytes > 0) ||
            static_cast<double>(st.lossBytes) < kLossBuffersWarnShare * st.totalBytes)
            continue;
        Scenario compiled = s;
        compiled.fusedElementwise = true;
        const int e = activationConfig(s, model).bytesPerValue;
        const std::int64_t kept =
            lossBufferBytes(compiled, model, 1 + st.mtpLayers,
                            heldLosses(s.schedule, s.pp, s.microbatches, s.virtualStages), e);
        const std::string text =
            "the loss's buffers take " + gb(st.lossBytes) + " of stage " +
            std::to_string(st.index) + "'s " + gb(st.totalBytes) + ": the eager loss holds " +
            std::to_string(s.tp > 1 ? 16 : 12) +
            " bytes a logit in its backward; compiled with the model (fused_elementwise = true: "
            "torch.compile, which torchtitan applies to the loss too) it keeps " +
            gb(kept) + " (docs/activations.md, \"The loss\")";
        return Warning{"loss-buffers", text, "fused_elementwise", "true"};
    }
    return std::nullopt;
}

} // namespace

Report evaluate(const Scenario &s, const Presets &presets)
{
    return evaluate(s, presets, EvaluateOptions{});
}

Report evaluate(const Scenario &s, const Presets &presets, const EvaluateOptions &options)
{
    Report r;
    if (auto e = options.presetsValidated ? validateWithPresetsChecked(s, presets)
                                          : validate(s, presets)) {
        r.error = std::move(e);
        return r;
    }
    const ModelSpec &model = *resolveModel(s, presets);
    const DeviceSpec &device = *resolveDevice(s, presets);

    r.modelId = model.id;
    r.modelName = model.name.empty() ? model.id : model.name;
    r.deviceId = device.id;
    r.deviceName = device.name.empty() ? device.id : device.name;
    r.precision = s.precision;
    r.mode = s.mode;
    r.framework = s.framework;
    if (s.mode == Mode::training && s.loraRank > 0) {
        r.loraRank = s.loraRank;
        r.loraModules = s.loraModules;
    }
    // What describes the scenario to a reader, which no search reads (EvaluateOptions::
    // warnings): the keys changed from the profile, the model's size in every precision and the
    // smallest T for its weights (below).
    const bool described = options.warnings;
    if (described)
        for (std::string_view key : changedFromProfile(s))
            r.frameworkChanged.emplace_back(key);
    r.params = exactParams(model);
    r.nominalParams = nominalParams(model);
    r.weightsBytes = weightBytes(r.params, heldWeightPrecision(s));
    r.nominalWeightsBytes = weightBytes(r.nominalParams, heldWeightPrecision(s));
    if (described) {
        r.sizeByPrecision.reserve(enumNames(Precision{}).size());
        for (const auto &entry : enumNames(Precision{}))
            r.sizeByPrecision.push_back({entry.value, weightBytes(r.params, entry.value),
                                         weightBytes(r.nominalParams, entry.value)});
    }
    r.tp = s.tp;
    r.pp = s.pp;
    r.dp = s.dp;
    r.cp = s.cp;
    r.ep = s.ep;
    r.expertTp = s.expertTpDegree();
    r.expertDp = s.expertDp();
    r.expertLoad = expertLoad(s, model);
    r.activeParams = activeParams(model);
    r.devices = s.devices();

    const TrainingStates states = trainingStates(s);
    r.weightBytesPerParam = bitsPerValue(heldWeightPrecision(s)) / 8.0;
    r.gradBytesPerParam = states.gradBytes;
    r.optimizerBytesPerParam = states.optimizerBytes;
    r.fp32Parameters = states.fp32Parameters;
    r.castWeightBytesPerParam = castWeightBytesPerParam(s, device);

    const std::int64_t capacity = device.capacityBytes();
    const std::int64_t reserve = saturatingRound(s.reserveGib * static_cast<double>(kGiB));
    if (described)
        r.minTpForWeights = minTpForWeights(model, s, capacity, reserve);

    const std::vector<StageModelStates> modelStates = stageModelStates(s, model);
    std::vector<int> layers;
    std::vector<int> moeLayers;
    std::vector<int> slidingLayers;
    layers.reserve(modelStates.size());
    moeLayers.reserve(modelStates.size());
    for (const auto &st : modelStates) {
        layers.push_back(st.layers);
        moeLayers.push_back(st.moeLayers);
        if (model.slidingWindow > 0) // only models with a window need the counts
            slidingLayers.push_back(st.slidingLayers);
    }

    const bool training = s.mode == Mode::training;
    // Memory needs the pipeline's shape only, but for ep_overlap's pairs, which exist where
    // the all-to-all takes time (pipelineInput).
    const bool shapeOnly = options.memoryOnly && !(s.epOverlap && model.hasExperts());
    // Not const: its operation tables move into the report at the end.
    Timing t = shapeOnly ? Timing{}
                         : timing(s, model, device, std::move(moeLayers), std::move(slidingLayers));
    PipelineInput pipeIn = shapeOnly ? pipelineShape(s) : pipelineInput(s, model, t, layers);
    // What a stage's first forward waits for beside its own work: the casts that run once a
    // step, and a later stage's gather that Megatron-LM's one bucket holds it for.
    std::vector<double> gatherWaits;
    if (!shapeOnly && training) {
        pipeIn.firstForwardExtra =
            onceCastSeconds(s, device, t.rates ? &*t.rates : nullptr, modelStates);
        if (t.rates)
            gatherWaits = firstForwardGathers(s, model, device, modelStates);
        if (!gatherWaits.empty()) {
            pipeIn.firstForwardExtra.resize(gatherWaits.size(), 0.0);
            for (std::size_t i = 0; i < gatherWaits.size(); ++i)
                pipeIn.firstForwardExtra[i] += gatherWaits[i];
            if (options.timeline)
                pipeIn.firstForwardGather = gatherWaits;
        }
    }
    if (options.timeline)
        r.timelineRefused = checkTimeline(s);
    const bool keepTimeline = options.timeline && !r.timelineRefused;
    PipelineResult pipe;
    if (options.memoryOnly)
        pipe.inflight = options.pipelineCache
                            ? options.pipelineCache->inflight(pipeIn)
                            : inflightMicrobatches(pipeIn.schedule, pipeIn.stages,
                                                   pipeIn.microbatches, pipeIn.virtualStages);
    else if (options.pipelineCache && !keepTimeline)
        pipe = options.pipelineCache->simulate(pipeIn);
    else // moved, not copied: at K=64, m=1024 the timeline is 131,072 blocks
        pipe = simulatePipeline(pipeIn, keepTimeline);
    // The all-to-all ep_overlap's pairs hide, for the step's breakdown: taken before the input
    // moves into the closed form below.
    const std::vector<double> hiddenExpertCommS =
        pipeIn.expertOverlap ? hiddenExpertComm(pipeIn) : std::vector<double>{};
    // The stages where ep_overlap runs a pair: its forward keeps each layer's activations
    // as its backward frees the other micro-batch's, one layer at a time
    // (megatron/core/models/common/model_chunk_schedule_plan.py, run: forward layer i with
    // backward layer L - 1 - i, then release_state), so one layer more is alive there.
    // DualPipe(V)'s pairs are forward first, counted alive before their backward frees.
    std::vector<int> pairs;
    if (s.epOverlap && !epOverlapUnused(s, model) && !isDualPipe(s.schedule))
        pairs = expertOverlapPairs(pipeIn);
    r.bubbleFraction = pipe.bubbleFraction;
    r.makespanS = pipe.makespan;
    if (auto why = noTimingReason(s, model, device)) {
        r.timeInLayerUnits = true;
        r.untimedReason = std::move(*why);
    }
    // With the stage times simulated, not F = B = W = 1: the closed form only where it holds.
    // The textbook closed form: the layers' own times on equal stages with free sends; the
    // simulation above adds the end stages' work and the sends.
    if (!options.memoryOnly) {
        ClosedFormBubble closed = closedFormBubble(layersOnly(std::move(pipeIn)));
        r.bubbleFractionClosedForm = closed.fraction;
        r.bubbleClosedFormMissing = std::move(closed.missing);
    }
    if (keepTimeline) {
        // Inference has no backward: drop its zero-length B ops.
        std::erase_if(pipe.timeline, [](const ScheduleOp &o) { return o.end <= o.start; });
        r.timeline = std::move(pipe.timeline);
    }

    const ActivationConfig act = activationConfig(s, model, device);
    const int actBytes = act.bytesPerValue;
    // One layer's activations per micro-batch, dense (activationConfig's) and with experts:
    // every stage multiplies the same two by its layers.
    ActivationConfig moeAct = act;
    moeAct.moe = true;
    const std::int64_t denseLayerBytes = training ? layerActivationBytes(model, act) : 0;
    const std::int64_t moeLayerBytes =
        training && model.hasExperts() ? layerActivationBytes(model, moeAct) : 0;

    // Where a stage's chunks keep different bytes (the ends counted in the split, a
    // pipeline_layout, dense and MoE layers in different chunks), its peak weighs each chunk
    // alive by its own bytes, along the schedule's order (inflightWeighted); otherwise the
    // stage's chunks are alike and the in-flight count times the stage's bytes is exact.
    const std::vector<double> chunkPeaks =
        training ? weightedChunkPeaks(s, model, act, denseLayerBytes, moeLayerBytes, pipe,
                                      options.pipelineCache)
                 : std::vector<double>{};

    r.fits = true;
    r.stages.reserve(static_cast<std::size_t>(s.pp));
    const std::vector<std::int64_t> partlyRecomputed =
        training && recomputesSomeLayers(s) ? partlyRecomputedStageBytes(s, model, act)
                                            : std::vector<std::int64_t>{};
    // The micro-batches whose loss waits for its backward at once on the head's stage.
    const int waitingLosses =
        !training || !model.hasArchitecture() ? 0
        : options.pipelineCache
            ? options.pipelineCache->heldLosses(s.schedule, s.pp, s.microbatches, s.virtualStages)
            : heldLosses(s.schedule, s.pp, s.microbatches, s.virtualStages);
    std::pair<int, int> rebuiltFor{-1, -1}; // the layers and MoE layers rebuiltBytes is for
    std::int64_t rebuiltBytes = 0;
    for (int i = 0; i < s.pp; ++i) {
        StageReport &st = r.stages.emplace_back(); // built in place: K of them a layout
        st.index = i;
        const StageModelStates &ms = modelStates[static_cast<std::size_t>(i)];
        st.layers = ms.layers;
        st.moeLayers = ms.moeLayers;
        st.slidingLayers = ms.slidingLayers;
        st.mtpLayers = ms.mtpLayers;
        st.params = ms.params;
        st.expertParams = ms.expertParams;
        st.trainableParams = ms.trainableParams;
        st.trainableExpertParams = ms.trainableExpertParams;
        st.castParams = ms.castParams;
        st.weightsBytes = ms.weightsBytes;
        // The weights' cast copies, kept from the step's first micro-batch to the next step
        // (docs/activations.md, "Cast weights").
        st.castWeightsBytes =
            saturatingRound(r.castWeightBytesPerParam * static_cast<double>(st.castParams));
        st.gradsBytes = ms.gradsBytes;
        st.optimizerBytes = ms.optimizerBytes;
        st.zeroBuffersBytes = ms.zeroBuffersBytes;
        if (training) {
            // Activations of every micro-batch the schedule keeps alive on this stage
            // (docs/DESIGN.md §3.3: GPipe m, 1F1B min(K-s, m), interleaved and zb-h1 simulated).
            st.inflightMicrobatches = pipe.inflight[static_cast<std::size_t>(i)];
            // Multi-token prediction's layers keep what a layer of their kind keeps.
            const int held = st.layers + st.mtpLayers;
            const int heldMoe = st.moeLayers + mtpMoeLayers(model, st.mtpLayers);
            std::int64_t stageLayers =
                !partlyRecomputed.empty()
                    ? partlyRecomputed[static_cast<std::size_t>(i)]
                    : stageActivationBytes(denseLayerBytes, moeLayerBytes, held, heldMoe);
            // offload_layers (one stage, validate): the device holds at most the s = L - n
            // sets of activations TE's synchronizer allows, the last s layers' (and the MTP
            // depths') at the end of the forward, or the first s layers' early in it
            // (docs/activations.md, "Offloaded layers").
            if (s.offloadLayers > 0 && s.pp == 1 && model.hasArchitecture()) {
                const int n = std::min(s.offloadLayers, st.layers - 1);
                const int slots = st.layers - n;
                const int mtpMoe = heldMoe - st.moeLayers;
                const std::int64_t last =
                    stageActivationBytes(denseLayerBytes, moeLayerBytes, slots + st.mtpLayers,
                                         moeLayersIn(model, n, slots) + mtpMoe);
                const std::int64_t first = stageActivationBytes(
                    denseLayerBytes, moeLayerBytes, slots, moeLayersIn(model, 0, slots));
                stageLayers = std::max(last, first);
                st.offloadedLayers = n;
                st.offloadedBytes = stageActivationBytes(denseLayerBytes, moeLayerBytes, n,
                                                         moeLayersIn(model, 0, n));
            }
            // Full recomputation rebuilds one layer of one micro-batch at a time: that layer's
            // activations are alive on top of the kept inputs (docs/activations.md). Stages of
            // the same layers rebuild the same (the middle stages: computed once).
            if (held != rebuiltFor.first || heldMoe != rebuiltFor.second) {
                rebuiltFor = {held, heldMoe};
                rebuiltBytes = stageRecomputePeakBytes(model, act, held, heldMoe);
            }
            const std::int64_t rebuilt = rebuiltBytes;
            const bool paired = static_cast<std::size_t>(i) < pairs.size() &&
                                pairs[static_cast<std::size_t>(i)] > 0;
            st.pairLayerBytes =
                paired ? stageLargestLayerBytes(denseLayerBytes, moeLayerBytes, held, heldMoe) : 0;
            const std::int64_t kept =
                stageLayers == kTooLarge ? kTooLarge
                : !chunkPeaks.empty()
                    ? saturatingRound(chunkPeaks[static_cast<std::size_t>(i)])
                    : saturatingRound(st.inflightMicrobatches * static_cast<double>(stageLayers));
            st.activationsBytes = saturatingAdd(saturatingAdd(kept, rebuilt), st.pairLayerBytes);
            // Context parallelism: the last stage's logits for its s / C tokens. DualPipe's
            // two end stages each cache the half of the micro-batches whose loss is theirs.
            // Only a pipeline schedule caches every micro-batch's: with one stage the training
            // loop holds the micro-batch's logits in hand until its loss and drops them before
            // its backward (torchtitan trainer.py, forward_backward_step: del pred), so one.
            if (s.cacheOutputs && holdsHead(s.schedule, s.pp, i) && model.hasArchitecture())
                st.cachedOutputsBytes = saturatingMul(
                    static_cast<std::int64_t>(cachedMicrobatches(s, passedShare(s.schedule))),
                    cachedOutputBytesPerMicrobatch(model, ceilDiv(std::int64_t{s.seqLen}, s.cp),
                                                   s.microbatchSize, s.tp, actBytes));
            // The cross-entropy loss's FP32 buffers, the model's and each multi-token
            // prediction depth's (docs/activations.md, "The loss").
            if (holdsHead(s.schedule, s.pp, i))
                st.lossBytes = lossBufferBytes(s, model, 1 + st.mtpLayers, waitingLosses, actBytes);
        } else if (model.hasArchitecture()) {
            // docs/DESIGN.md §3.7: a pipeline keeps the cache of every micro-batch in flight.
            st.kvCacheBytes =
                kvCacheBytes(model, st.layers, contextTokens(s),
                             static_cast<std::int64_t>(s.microbatches) * s.microbatchSize, s.tp,
                             kvBytesPerValue(s), st.slidingLayers);
            st.prefillBuffersBytes = prefillBufferBytes(model, st.layers > 0, i == s.pp - 1,
                                                        s.seqLen, s.microbatchSize, s.tp, actBytes);
        }
        st.reserveBytes = reserve;
        st.totalBytes = memoryTermsTotal(st);
        st.capacityBytes = capacity;
        st.headroomBytes = capacity - st.totalBytes;
        st.fits = st.headroomBytes >= 0;
        // offload_layers: the offloaded sets live in host memory, of which one device counts on
        // its share of its node's or superchip's (host_memory_gb; docs/devices.md, "Host
        // links"); unpublished, it is not checked.
        if (st.offloadedBytes > 0 && device.hostMemoryGb > 0) {
            st.hostCapacityBytes = std::llround(device.hostMemoryGb * kGB);
            st.hostOverflow = st.offloadedBytes > st.hostCapacityBytes;
            st.fits = st.fits && !st.hostOverflow;
        }
        if (!st.fits) {
            if (r.fits) {
                r.fits = false;
                r.firstOverflowStage = i;
            }
            ++r.overflowStages;
            if (r.worstOverflowStage < 0 ||
                st.headroomBytes < r.stages[std::size_t(r.worstOverflowStage)].headroomBytes)
                r.worstOverflowStage = i;
        }
    }
    if (!r.fits && r.firstOverflowStage >= 0) {
        r.firstOverflowTerm =
            overflowTerm(r.stages[static_cast<std::size_t>(r.firstOverflowStage)]);
        r.worstOverflowTerm =
            overflowTerm(r.stages[static_cast<std::size_t>(r.worstOverflowStage)]);
    }
    if (options.warnings)
        addWarnings(r, s, model, device);
    if (!options.memoryOnly)
        r.tpComm = tpComm(r, s, model, t, layers);
    if (t.rates && !(t.rates->forcedMfu > 0) && !(device.hbmGbPerS > 0))
        r.warnings.push_back(
            {"memory-untimed", r.deviceName + " publishes no memory bandwidth (hbm_gb_per_s), so "
                                              "norms, activations, the loss and the optimizer "
                                              "step take no time; the step time is too short"});
    // Rates the device's preset does not measure: the step time is only as good as they are.
    // The planners say it once for their search (PlanResult::assumedRates), not per layout.
    if (t.rates && options.warnings) {
        const std::vector<std::string> assumed = assumedRates(s, device);
        if (!assumed.empty()) {
            std::string text = r.deviceName + ": ";
            for (std::size_t i = 0; i < assumed.size(); ++i)
                text += (i ? "; " : "") + assumed[i];
            text += ". Assumed, not measured on it: its times are less certain than the "
                    "validated devices' (docs/step_time.md, \"Device data\")";
            r.warnings.push_back({"rates-assumed", std::move(text)});
        }
    }
    if (auto e = beyondCounting(r)) {
        r = Report{}; // nothing else is meaningful; `r` still, so that the report is not copied
        r.error = std::move(e);
        return r;
    }
    if (options.memoryOnly)
        return r;
    r.stepTime = stepTimeReport(r, s, model, device, states, t, layers, hiddenExpertCommS,
                                pipe.tailIdle, gatherWaits);
    // Serving needs no data-parallel link; without a published tensor- or pipeline-parallel
    // one the step time, and so serving, is a lower bound (docs/inference.md).
    if (!training && r.stepTime && model.hasArchitecture())
        r.serving = servingReport(r, s, model, device, t, layers);
    // Published training steps the per-operation model times under a quarter of a second ran
    // from 16 % shorter to twice as long as modelled: MLPerf Training v5.1's and v6.0's Llama
    // 3.1 8B on 8 to 1,024 Blackwell GPUs from 16 % shorter (512 GB300s, v6.0) to 38 % longer
    // (1,024 GB200s, v6.0), and NVIDIA/Megatron-LM#5438 twice as long (docs/step_time.md).
    if (training && r.stepTime && t.rates && !(t.rates->forcedMfu > 0) &&
        r.stepTime->stepTimeS < kShortStepS) {
        char text[256];
        std::snprintf(text, sizeof text,
                      "a step of %.0f ms may be short: published training steps timed under "
                      "%.0f ms ran from %.0f %% shorter to %.0f %% longer than modelled (many "
                      "small kernels, a sync the step cannot hide; docs/step_time.md)",
                      1e3 * r.stepTime->stepTimeS, 1e3 * kShortStepS, 100 * kShortStepShorter,
                      100 * (kShortStepLonger - 1));
        r.warnings.push_back({"short-step", text});
    }
    // PyTorch's FSDP2 (the torchtitan profile, ZeRO-3) on Hopper: its published runs took
    // kFsdpOverlapMinShare to kFsdpOverlapMaxShare of their gathers' and reduce-scatters'
    // modelled time beyond the modelled step (docs/step_time.md, "OLMo-core on 8 H100").
    if (training && r.stepTime && t.rates && !(t.rates->forcedMfu > 0) && s.zero >= 3 &&
        frameworkProfile(s.framework).copiesThroughCollectiveBuffers &&
        std::floor(device.computeCapability) == 9) {
        const double comm = r.stepTime->dpCommTotalS;
        const double step = r.stepTime->stepTimeS;
        if (step > 0 && kFsdpOverlapMaxShare * comm >= kFsdpOverlapWarnShare * step) {
            char text[400];
            std::snprintf(text, sizeof text,
                          "the step is likely %.0f to %.0f %% longer: PyTorch FSDP2's published "
                          "runs on Hopper took %.0f to %.0f %% of their gathers' and "
                          "reduce-scatters' time (%.3g s a step here) beyond the model; timed "
                          "with dp_overlap = 0 they were up to 12 %% slow (docs/step_time.md)",
                          100 * kFsdpOverlapMinShare * comm / step,
                          100 * kFsdpOverlapMaxShare * comm / step, 100 * kFsdpOverlapMinShare,
                          100 * kFsdpOverlapMaxShare, comm);
            r.warnings.push_back({"fsdp-overlap", text});
        }
    }
    if (training && model.hasArchitecture())
        if (auto w = eagerLossBuffers(s, model, r))
            r.warnings.push_back(std::move(*w));
    if (training && options.warnings && r.stepTime)
        if (auto w = fewerRecomputedLayersFit(s, presets, r, options))
            r.warnings.push_back(std::move(*w));
    if (training && options.warnings)
        if (auto w = recomputationWouldFit(s, presets, r, options))
            r.warnings.push_back(std::move(*w));
    if (training && options.warnings)
        if (auto w = offloadWouldFit(s, presets, model, device, r, options))
            r.warnings.push_back(std::move(*w));
    // Dense models wait on nothing: their step builds no per-stage counts.
    if (training && model.hasExperts() && r.stepTime && t.rates && !(t.rates->forcedMfu > 0))
        if (auto w = addMoeHostWait(s, waitingMoeLayers(model, modelStates), *r.stepTime))
            r.warnings.push_back(std::move(*w));
    // A model with experts shows its expert layer, the kind most of its layers are.
    r.layerOps = std::move(model.hasExperts() ? t.moeLayer.ops : t.layer.ops);
    r.firstStageEndOps = t.first.ops.size();
    r.endOps.reserve(t.first.ops.size() + t.last.ops.size());
    for (const EndTimes *end : {&t.first, &t.last})
        r.endOps.insert(r.endOps.end(), end->ops.begin(), end->ops.end());
    return r;
}

} // namespace core
