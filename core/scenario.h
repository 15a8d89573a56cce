#pragma once

#include "core/device.h"
#include "core/enums.h"
#include "core/model.h"
#include "core/precision.h"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace core {

enum class Mode
{
    training,
    inference
};
enum class Schedule
{
    gpipe,
    oneFOneB,
    interleaved,
    zbH1,
    // DeepSeek-AI's DualPipeV (deepseek-ai/DualPipe, dualpipev.py): two chunks a device in a
    // V, forward and backward chunks of different micro-batches run as overlapped pairs.
    dualPipeV,
    // DeepSeek-AI's DualPipe (DeepSeek-V3 Technical Report §3.2.1, deepseek-ai/DualPipe,
    // dualpipe.py): half the micro-batches enter at each end of the pipeline; each device
    // holds its stage of one direction and the mirrored stage of the other.
    dualPipe
};
// selective: the attention core (Korthikanti et al. 2022, §5); op: torchtitan's per-op
// selective checkpointing, which keeps the attention kernel's output and every second matrix
// multiply's and reruns the rest of the layer (docs/activations.md); full: whole layers.
enum class Recompute
{
    none,
    selective,
    full,
    op
};
// What selective recomputation reruns, as Megatron-LM's --recompute-modules names it
// (megatron/core/transformer/transformer_config.py, recompute_modules; default core_attn):
// bits of Scenario::recomputeModules once parsed (docs/activations.md, "Recomputed modules").
enum RecomputeModule : unsigned
{
    kRecomputeCoreAttn = 1u << 0,      // core_attn: the attention core
    kRecomputeLayernorm = 1u << 1,     // layernorm: the two norms' outputs
    kRecomputeMlaUpProj = 1u << 2,     // mla_up_proj: latent attention's up projections, RoPE
    kRecomputeMlp = 1u << 3,           // mlp: a dense layer's MLP
    kRecomputeMoe = 1u << 4,           // moe: a MoE layer's MLP, routing and all-to-alls
    kRecomputeSharedExperts = 1u << 5, // shared_experts
    kRecomputeMoeAct = 1u << 6,        // moe_act: the routed experts' activation
};

// The modules a --recompute-modules list names, separated by spaces or commas ("" none), or
// what is wrong with it, naming the modules Parascope knows.
std::variant<unsigned, std::string> parseRecomputeModules(std::string_view text);

// The projections LoRA adapters sit beside, as Megatron-Bridge's LoRA target_modules names them
// (src/megatron/bridge/peft/lora.py): bits of Scenario::loraModules once parsed
// (docs/step_time.md, "LoRA").
enum LoraModule : unsigned
{
    kLoraQkv = 1u << 0,  // linear_qkv: the QKV projection
    kLoraProj = 1u << 1, // linear_proj: the output projection
    kLoraFc1 = 1u << 2,  // linear_fc1: the MLP's up (gate and up) projection, each expert's too
    kLoraFc2 = 1u << 3,  // linear_fc2: the MLP's down projection, each expert's too
};

// The modules a LoRA target list names, separated by spaces or commas, or what is wrong with it,
// naming the modules Parascope knows.
std::variant<unsigned, std::string> parseLoraModules(std::string_view text);

// The words of a module list separated by spaces or commas (recompute_modules, lora_modules),
// empty ones left out.
std::vector<std::string_view> moduleListWords(std::string_view text);

// flash: the device's fused kernel (cuDNN's through Transformer Engine on Hopper); flash2:
// FlashAttention-2's (the flash-attn 2 package, and scaled_dot_product_attention's flash
// backend); flash3: FlashAttention-3's (Hopper); eager: the scores materialised
// (docs/step_time.md).
enum class Attention
{
    flash,
    eager,
    flash2,
    flash3
};
// The training framework whose defaults a scenario follows (docs/frameworks.md); custom
// follows none.
enum class Framework
{
    custom,
    megatron,
    torchtitan,
    deepspeed
};
// The buffers a ZeRO implementation allocates beside the model states.
enum class ZeroBuffers
{
    none,
    // DeepSpeed: ZeRO-3 4 bytes per parameter of the largest layer (its estimator); ZeRO-1
    // and 2 a gradient bucket of 5e8 values.
    deepspeed,
    // PyTorch FSDP2, one unit per transformer block: ZeRO-3 the backward's gathered block,
    // its prefetched successor, its 16-bit gradients and the previous unit's FP32
    // reduce-scatter input; ZeRO-1 (FSDP2 under pipelining) one unit's FP32 reduce-scatter
    // input or gathered pair.
    fsdp
};

// How context parallelism passes keys and values between the C devices of a sequence
// (docs/experts.md, "Context parallelism"): a ring of K/V blocks behind the attention of the
// block in hand (Megatron-LM's cp_comm_type p2p); one all-gather of every block behind the
// first local block (torchtitan's default rotate method); or all-to-alls that trade the
// sequence split for a head split around attention (DeepSpeed-Ulysses).
enum class CpExchange
{
    ring,
    allgather,
    alltoall
};

constexpr auto enumNames(CpExchange)
{
    using C = CpExchange;
    return std::array{EnumName<C>{C::ring, "ring"}, EnumName<C>{C::allgather, "allgather"},
                      EnumName<C>{C::alltoall, "alltoall"}};
}

// Where LoRA's adapter dropout zeroes values (docs/step_time.md, "LoRA"): the adapter's input
// before A (Megatron-Bridge's and NeMo 2.0's default, Hugging Face PEFT's only place), or B's
// output before it joins the projection's (NeMo AutoModel's default, NeMo 1.0's adapters').
enum class LoraDropoutPosition
{
    pre,
    post
};

constexpr auto enumNames(LoraDropoutPosition)
{
    using P = LoraDropoutPosition;
    return std::array{EnumName<P>{P::pre, "pre"}, EnumName<P>{P::post, "post"}};
}

// How the MoE layers' tokens reach the experts' devices (docs/experts.md, "Dispatchers"):
// alltoall sends every copy of a token to its expert's device on its own (NCCL's all-to-all,
// Megatron-LM's alltoall dispatcher); flex sends a token once to each node its experts are on
// and fans it out there over NVLink, and adds the experts' outputs in the node before sending
// them back (DeepEP and HybridEP, Megatron-LM's flex dispatcher; DeepSeek-V3 Technical Report,
// §3.2.2).
enum class EpDispatcher
{
    alltoall,
    flex
};

constexpr auto enumNames(EpDispatcher)
{
    using D = EpDispatcher;
    return std::array{EnumName<D>{D::alltoall, "alltoall"}, EnumName<D>{D::flex, "flex"}};
}

// How ranks are numbered, innermost first (Megatron-core parallel_state.py, RankGenerator):
// tensor, context, expert, data, then pipeline, so a stage's replicas sit together and its
// neighbour stage is T·C·D ranks away; or with --use-tp-pp-dp-mapping the pipeline before the
// data-parallel replicas, so one replica's stages sit together and its data-parallel peers
// T·C·K ranks apart (docs/step_time.md, "Rank order").
enum class RankOrder
{
    dataInner,
    pipelineInner
};

constexpr auto enumNames(RankOrder)
{
    using R = RankOrder;
    return std::array{EnumName<R>{R::dataInner, "tp-cp-ep-dp-pp"},
                      EnumName<R>{R::pipelineInner, "tp-cp-ep-pp-dp"}};
}

// The format of the KV cache in inference: auto keeps it in the activations' format (BF16,
// or FP16/FP32 when the model runs so); FP8 and INT8 halve it (docs/inference.md).
enum class KvPrecision
{
    automatic,
    bf16,
    fp16,
    fp8,
    int8
};

// How FP8 training scales each tensor before its cast (docs/step_time.md, "FP8"): from the
// maxima of earlier steps, taken inside the cast (Transformer Engine's DelayedScaling,
// Megatron-LM's --fp8-recipe delayed); from the tensor's own maximum, one more pass over it
// before the cast (Float8CurrentScaling, --fp8-recipe tensorwise; torchao's dynamic scaling);
// or per block of 32 or 128 values, each block's maximum taken inside the cast (MXFP8 and
// --fp8-recipe blockwise).
enum class Fp8Scaling
{
    delayed,
    current,
    block
};

constexpr auto enumNames(Fp8Scaling)
{
    using F = Fp8Scaling;
    return std::array{EnumName<F>{F::delayed, "delayed"}, EnumName<F>{F::current, "current"},
                      EnumName<F>{F::block, "block"}};
}

// The kernels of the cross-entropy loss over the last stage's logits (docs/step_time.md,
// "Loss kernels"): Megatron-LM's vocabulary-parallel loss as PyTorch operations, its default;
// Megatron-core's fused one (--cross-entropy-loss-fusion, the native implementation); or
// Transformer Engine's Triton kernels (--cross-entropy-fusion-impl te), which
// Megatron-Bridge's performance scripts set.
enum class LossFusion
{
    none,
    native,
    te
};

constexpr auto enumNames(LossFusion)
{
    using L = LossFusion;
    return std::array{EnumName<L>{L::none, "none"}, EnumName<L>{L::native, "native"},
                      EnumName<L>{L::te, "te"}};
}

constexpr auto enumNames(KvPrecision)
{
    using K = KvPrecision;
    return std::array{EnumName<K>{K::automatic, "auto"}, EnumName<K>{K::bf16, "bf16"},
                      EnumName<K>{K::fp16, "fp16"}, EnumName<K>{K::fp8, "fp8"},
                      EnumName<K>{K::int8, "int8"}};
}

constexpr auto enumNames(Mode)
{
    return std::array{EnumName<Mode>{Mode::training, "training"},
                      EnumName<Mode>{Mode::inference, "inference"}};
}
constexpr auto enumNames(Schedule)
{
    using S = Schedule;
    return std::array{EnumName<S>{S::gpipe, "gpipe"},
                      EnumName<S>{S::oneFOneB, "1f1b"},
                      EnumName<S>{S::interleaved, "interleaved"},
                      EnumName<S>{S::zbH1, "zb-h1"},
                      EnumName<S>{S::dualPipeV, "dualpipev"},
                      EnumName<S>{S::dualPipe, "dualpipe"}};
}
constexpr auto enumNames(Recompute)
{
    using R = Recompute;
    return std::array{EnumName<R>{R::none, "none"}, EnumName<R>{R::selective, "selective"},
                      EnumName<R>{R::op, "op"}, EnumName<R>{R::full, "full"}};
}
constexpr auto enumNames(Attention)
{
    return std::array{EnumName<Attention>{Attention::flash, "flash"},
                      EnumName<Attention>{Attention::flash2, "flash2"},
                      EnumName<Attention>{Attention::flash3, "flash3"},
                      EnumName<Attention>{Attention::eager, "eager"}};
}
constexpr auto enumNames(Framework)
{
    using F = Framework;
    return std::array{EnumName<F>{F::custom, "custom"}, EnumName<F>{F::megatron, "megatron"},
                      EnumName<F>{F::torchtitan, "torchtitan"},
                      EnumName<F>{F::deepspeed, "deepspeed"}};
}
constexpr auto enumNames(ZeroBuffers)
{
    return std::array{EnumName<ZeroBuffers>{ZeroBuffers::none, "none"},
                      EnumName<ZeroBuffers>{ZeroBuffers::deepspeed, "deepspeed"},
                      EnumName<ZeroBuffers>{ZeroBuffers::fsdp, "fsdp"}};
}

// Every input of an evaluation. The defaults are docs/DESIGN.md §4's default
// scenario: Llama 3.1 70B, BF16, training on H100 SXM, T=8, K=4, D=2.
struct Scenario
{
    // Set first: choosing a framework sets its profile's keys (core/framework.h).
    Framework framework = Framework::custom;
    std::string model = "llama-3.1-70b";
    std::optional<ModelSpec> customModel; // an inline model replaces the preset
    std::string device = "h100-sxm";
    std::optional<DeviceSpec> customDevice;
    Precision precision = Precision::bf16;
    Precision gradPrecision = Precision::bf16; // fp32: Megatron-style FP32 accumulation
    // Adam's two moments in training: FP32, or BF16 beside the FP32 master weights
    // (Megatron-core's precision-aware optimizer, --exp-avg-dtype and --exp-avg-sq-dtype bf16:
    // 8 bytes a parameter of optimizer states, not 12).
    Precision optimizerMoments = Precision::fp32;
    Fp8Scaling fp8Scaling = Fp8Scaling::delayed; // how FP8 casts find their scales
    Mode mode = Mode::training;
    int tp = 8;
    int pp = 4;
    int dp = 2;
    // Context parallelism C: each sequence split over C devices, attention exchanging keys and
    // values around them (docs/experts.md, "Context parallelism").
    int cp = 1;
    CpExchange cpExchange = CpExchange::ring;
    RankOrder rankOrder = RankOrder::dataInner;
    EpDispatcher epDispatcher = EpDispatcher::alltoall;
    // Each expert takes at most this many times its even share of a rank's routed copies, the
    // rest dropped (Megatron-LM --moe-expert-capacity-factor); unset: dropless (docs/experts.md,
    // "Capacity").
    std::optional<double> expertCapacityFactor;
    // Every expert computes exactly its capacity, padded where fewer copies arrive, and the
    // dispatcher needs no token counts from the device (--moe-pad-expert-input-to-capacity).
    bool padToCapacity = false;
    // Routing as trained: the routed copies the busiest of the E expert-parallel ranks
    // receives, over its even share (1: balanced, as a router forced to balance gives; at most
    // E x min(k, experts a rank) / k). Every rank waits for it at each all-to-all, so its
    // grouped multiplies, exchanges and kept activations set the layer's (docs/experts.md,
    // "Routing imbalance").
    double expertRankLoad = 1;
    // The training step is captured and replayed as one CUDA graph (Megatron-LM
    // --cuda-graph-impl full_iteration), which no read back to the host can be part of: MoE
    // layers in it dispatch with static shapes and launch nothing from the host.
    bool fullCudaGraph = false;
    // Expert parallelism E: the routed experts of every MoE layer spread over E devices of the
    // T x C x D ranks of a stage, as Megatron-core lays them out (docs/experts.md).
    int ep = 1;
    // Expert tensor parallelism: each expert split over this many devices; 0 follows T
    // (Megatron-LM's default for --expert-tensor-parallel-size).
    int expertTp = 0;
    int zero = 1;
    // Hybrid sharding: the D data-parallel replicas split into this many groups, ZeRO sharding
    // over the D x C / R ranks of each and the groups all-reducing their shards' gradients
    // (PyTorch FSDP's HYBRID_SHARD, torchtitan's data_parallel_replicate_degree, Megatron-LM
    // --num-distributed-optimizer-instances; docs/step_time.md, "Hybrid sharding"); 1: ZeRO
    // shards over all of D x C.
    int zeroReplicas = 1;
    // Hybrid sharding at ZeRO 2 and 3: the replicas all-reduce the accumulated gradient shards
    // once, after the last micro-batch (FSDP2's set_requires_all_reduce(False) before it, as
    // OLMo-core's HSDP does); false: after every micro-batch's reduce-scatter (FSDP2's default,
    // torchtitan's).
    bool deferReplicaReduce = false;
    int microbatches = 16;
    int microbatchSize = 1;
    int seqLen = 4096; // in inference, the prompt's tokens
    // Training on packed examples: the mean tokens of the examples packed into each sequence,
    // each attending only within itself (Transformer Engine's THD format with cu_seqlens, as
    // Megatron-Bridge packs fine-tuning data; torchtitan's block-causal mask); 0: a sequence
    // is one example (docs/step_time.md, "Packed examples").
    int packedExampleTokens = 0;
    // LoRA fine-tuning (Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models"):
    // the model's weights frozen, a rank-r pair of adapter matrices beside each projection
    // loraModules names, trained alone; 0: every weight trained (docs/step_time.md, "LoRA").
    int loraRank = 0;
    // The projections the adapters sit beside (parseLoraModules); Megatron-Bridge's default
    // is all four.
    std::string loraModules = "linear_qkv linear_proj linear_fc1 linear_fc2";
    // The adapters beside proj and fc2 under sequence parallelism hand B's hidden-split output
    // to the sequence-split layout by an all-to-all instead of gathering it whole and splitting
    // it (Megatron-Bridge's and NeMo's LoRA a2a_experimental: ParallelLinearAdapter use_a2a;
    // MLPerf's Llama 2 70B LoRA sets it).
    bool loraA2a = false;
    // The adapters' dropout probability, applied to each adapter's input before A ("pre", the
    // position Megatron-Bridge and NeMo default to; MLPerf's Llama 2 70B LoRA runs 0.1): a
    // PyTorch dropout pass forward and its mask backward (docs/step_time.md, "LoRA"); 0: none,
    // Megatron-Bridge's default.
    double loraDropout = 0;
    LoraDropoutPosition loraDropoutPosition = LoraDropoutPosition::pre;
    // Inference: tokens each sequence generates after its prompt; the KV cache holds
    // seq_len + output_len tokens when the last is generated (docs/inference.md).
    int outputLen = 0;
    KvPrecision kvPrecision = KvPrecision::automatic;
    Schedule schedule = Schedule::oneFOneB;
    int virtualStages = 1;
    Recompute recompute = Recompute::selective;
    // What selective recomputation reruns: Megatron-LM's --recompute-modules list
    // (parseRecomputeModules); core_attn, its default, is the attention core alone.
    std::string recomputeModules = "core_attn";
    // Full recomputation of the first N layers of each pipeline stage (each model chunk under
    // interleaving), the rest keeping their activations: Megatron-LM's --recompute-method
    // block --recompute-num-layers N. 0: every layer (docs/activations.md, "Recomputed layers").
    int recomputeLayers = 0;
    // Transformer Engine's CPU offloading of the first N layers' activations to host memory in
    // forward and back in backward (Megatron-LM --cpu-offloading-num-layers N); 0: none
    // (docs/activations.md, "Offloaded layers").
    int offloadLayers = 0;
    Attention attention = Attention::flash;
    bool sequenceParallel = true;
    // Overlap sequence parallelism's all-gathers and reduce-scatters with the projections
    // they feed (Megatron-LM --tp-comm-overlap; docs/step_time.md).
    bool tpOverlap = false;
    // With tpOverlap: the QKV projection's input gather overlapped too; false leaves it to
    // NCCL beside nothing (Megatron-core's tp_comm_overlap_disable_qkv, NeMo's
    // MC_TP_DISABLE_QKV default in MLPerf's LoRA), its backward's bulk overlaps kept.
    bool tpOverlapQkv = true;
    // Run each backward with the forward after it, one micro-batch's MoE all-to-all under the
    // other's computation (Megatron-LM --overlap-moe-expert-parallel-comm with
    // --delay-wgrad-compute; docs/experts.md, "All-to-all overlap").
    bool epOverlap = false;
    bool cacheOutputs = true; // PyTorch pipelining keeps every micro-batch's output
    // The embedding and the loss count as one layer each when the layers are split over the
    // stages, so the first and last stages take one transformer layer fewer (Megatron-LM
    // --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split).
    bool endsInPipelineSplit = false;
    // A custom placement of the layers, in Megatron-LM's --pipeline-model-parallel-layout
    // syntax (core/pipeline_layout.h): one "|"-separated entry a virtual stage, j = c·K + s;
    // empty: the even split above.
    std::string pipelineLayout;
    // Multi-token-prediction depths trained beside the model on the loss's virtual stage
    // (Megatron-LM --mtp-num-layers; DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §2.2):
    // each one more layer of the last layer's kind, its norms and projection, an embedding
    // lookup and the LM head with its loss (docs/step_time.md, "Multi-token prediction").
    int mtpLayers = 0;
    // A fused SwiGLU saves its 2f-wide input for backward, not four f-wide tensors
    // (docs/activations.md).
    bool fusedSwiglu = false;
    // The fused SwiGLU keeps that input in FP8, cast before the forward and back before the
    // backward (Megatron-LM --activation-func-fp8-input-store; docs/activations.md).
    bool fp8ActivationInput = false;
    // The weight-gradient multiply adds into the accumulated gradients (Megatron-LM's
    // gradient-accumulation fusion); false: a separate add per micro-batch (docs/step_time.md).
    bool fusedGradAccumulation = true;
    // The cross-entropy loss's kernels (LossFusion; docs/step_time.md, "Loss kernels").
    LossFusion lossFusion = LossFusion::none;
    // Norms, rotary embeddings and SwiGLU each run as one fused kernel (Transformer Engine,
    // torch.compile); false: as PyTorch's eager operations, each reading and writing memory
    // (docs/step_time.md, "Fused and eager element-wise work").
    bool fusedElementwise = true;
    // The once-per-step gather of the updated parameters (ZeRO-1 and 2) hides behind the next
    // step's first forward (Megatron-LM --overlap-param-gather); false: it runs in the
    // optimizer step and the step waits for it (DeepSpeed, stage_1_and_2.py).
    bool overlapParamGather = true;
    // FP8 training keeps its weights in FP8 (Megatron-LM --fp8-param-gather, NeMo's and
    // Megatron-Bridge's FP8 recipes, torchtitan's enable_fsdp_float8_all_gather): one byte a
    // parameter held, gathered and written by the optimizer; false: they stay in BF16 and are
    // cast for each step's FP8 multiplies, two bytes (docs/DESIGN.md §3.5).
    bool fp8Params = true;
    // FP8 and NVFP4 training with 16-bit weights keeps each weight's cast copy from the step's
    // first micro-batch to its last (Transformer Engine's weight workspace, which Megatron-LM
    // asks for with is_first_microbatch): a memory term of its own (docs/activations.md, "Cast
    // weights"); false: each multiply casts its weight afresh and holds nothing across
    // micro-batches (torchao's Float8Linear; Transformer Engine called without it).
    bool fp8WeightCache = true;
    // FP8 and NVFP4 training keep each projection's input for its weight gradient as the cast
    // copy the forward multiplied (Transformer Engine); false: in 16 bits, cast again in the
    // backward (torchao's Float8Linear, torchtitan) (docs/activations.md, "FP8 and NVFP4").
    bool saveQuantizedInputs = true;
    // FP8 and NVFP4 training run the fused attention kernel in FP8 too (Transformer Engine's
    // FP8 dot-product attention, Megatron-LM --fp8-dot-product-attention; docs/step_time.md,
    // "FP8 attention"); false: in BF16, Transformer Engine's default.
    bool fp8Attention = false;
    // FP8 training with block scaling runs the LM head's multiplies in FP8 too, with their
    // casts (Megatron-core fp8_output_proj, NVIDIA/Megatron-LM#4825: MXFP8 only; docs/
    // step_time.md, "FP8 LM head"); false: in 16 bits, Megatron-core's default.
    bool fp8LmHead = false;
    ZeroBuffers zeroBuffers = ZeroBuffers::none;
    double reserveGib = 2.0;
    std::optional<double> interNodeGbPerS; // overrides the device's network
    // One efficiency forced on every operation, as a fraction of peak FLOPS; empty ("auto")
    // for the per-operation model (docs/step_time.md).
    std::optional<double> mfu;
    // Fraction of the data-parallel sync hidden behind compute; unset ("auto"): whatever fits
    // behind the last micro-batch's backward and the first one's forward (docs/step_time.md).
    std::optional<double> dpOverlap;
    // Parameters per data-parallel bucket; unset ("auto"): the framework's buckets
    // (docs/step_time.md, "Buckets").
    std::optional<double> dpBucketParams;
    // The SMs (NCCL CTAs) a data-parallel collective may hold; unset ("auto"): the device's
    // collective_units, as many as reach its link (docs/step_time.md, "What hiding costs").
    std::optional<double> dpCollectiveUnits;

    int devices() const { return tp * cp * pp * dp; }
    int expertTpDegree() const { return expertTp > 0 ? expertTp : tp; }
    // The expert data-parallel degree: the T x C x D ranks of a stage over E x expert T
    // (Megatron-core parallel_state.py, expert_data_parallel_size).
    int expertDp() const { return tp * cp * dp / (expertTpDegree() * ep); }
    bool operator==(const Scenario &) const = default;
};

inline constexpr const char *kScenarioFormat = "parascope-scenario";
inline constexpr int kScenarioVersion = 1;

} // namespace core
