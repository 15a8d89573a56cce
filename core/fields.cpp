#include "core/fields.h"

#include "core/echo.h"
#include "core/framework.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>

namespace core {

namespace {

// Gradients are kept in bf16, or accumulated in fp32 as Megatron-LM does; nothing narrower.
constexpr std::array<std::string_view, 2> kGradPrecisions{"bf16", "fp32"};
// Adam's moments: FP32, or BF16 as Megatron-core's precision-aware optimizer keeps them.
constexpr std::array<std::string_view, 2> kMomentPrecisions{"fp32", "bf16"};

const std::array kFields{
    FieldInfo{"framework", &Scenario::framework,
              "The training framework whose defaults to follow: megatron, torchtitan or "
              "deepspeed set their profile's keys (docs/frameworks.md); custom sets none."},
    FieldInfo{"model", &Scenario::model,
              "The model to split: a preset id, or an inline definition as a JSON object "
              "with the keys of a models preset."},
    FieldInfo{"device", &Scenario::device,
              "The accelerator every stage runs on: a preset id, or an inline definition as a "
              "JSON object with the keys of a devices preset."},
    FieldInfo{"precision", &Scenario::precision, "Number format of the weights."},
    FieldInfo{"grad_precision", &Scenario::gradPrecision,
              "Gradient format in training; fp32 accumulates as Megatron-LM does (18 bytes per "
              "parameter).",
              kGradPrecisions},
    FieldInfo{"optimizer_moments", &Scenario::optimizerMoments,
              "Adam's two moments in training: fp32, or bf16 beside the FP32 master weights, "
              "8 bytes a parameter of optimizer states rather than 12, and less for the "
              "optimizer step to read and write (Megatron-LM --use-precision-aware-optimizer "
              "--exp-avg-dtype bf16 --exp-avg-sq-dtype bf16; docs/DESIGN.md §3.5).",
              kMomentPrecisions},
    FieldInfo{"fp8_scaling", &Scenario::fp8Scaling,
              "FP8 training: how each cast finds its scale. delayed takes earlier steps' maxima "
              "(Transformer Engine's default); current reads the tensor once more for its own "
              "maximum first (Megatron-LM --fp8-recipe tensorwise, torchao); block takes each "
              "block's maximum inside the cast (MXFP8, --fp8-recipe blockwise)."},
    FieldInfo{"mode", &Scenario::mode,
              "Training keeps gradients and optimizer states; "
              "inference keeps a KV cache."},
    FieldInfo{"tp", &Scenario::tp, "Tensor-parallel degree T: devices that split each matrix."},
    FieldInfo{"pp", &Scenario::pp, "Pipeline stages K: groups of consecutive layers."},
    FieldInfo{"dp", &Scenario::dp,
              "Data-parallel degree D: replicas that each see part of the "
              "batch."},
    FieldInfo{"cp", &Scenario::cp,
              "Context-parallel degree C: devices that split each sequence; attention passes "
              "keys and values around them. Devices = T x C x K x D."},
    FieldInfo{"cp_exchange", &Scenario::cpExchange,
              "How the C devices of a sequence pass keys and values: ring (Megatron-LM), "
              "allgather (torchtitan) or alltoall (DeepSpeed-Ulysses) (docs/experts.md)."},
    FieldInfo{"rank_order", &Scenario::rankOrder,
              "How devices are numbered, innermost first: tp-cp-ep-dp-pp (Megatron-LM's "
              "default) puts a replica's pipeline stages furthest apart; tp-cp-ep-pp-dp "
              "(--use-tp-pp-dp-mapping) keeps them together, the data-parallel peers apart "
              "(docs/step_time.md)."},
    FieldInfo{"ep", &Scenario::ep,
              "Expert-parallel degree E: devices that share out each MoE layer's routed "
              "experts, drawn from the T x C x D devices of a stage (docs/experts.md)."},
    FieldInfo{"expert_tp", &Scenario::expertTp,
              "Devices that split each expert's matrices; 0 follows T, as Megatron-LM does."},
    FieldInfo{"zero", &Scenario::zero,
              "ZeRO stage 0-3: shard optimizer states (1), gradients "
              "(2) and parameters (3) across D."},
    FieldInfo{"zero_replicas", &Scenario::zeroReplicas,
              "Hybrid sharding: ZeRO shards over D x C / R devices and the R groups all-reduce "
              "their shards' gradients (FSDP's HYBRID_SHARD, torchtitan's "
              "data_parallel_replicate_degree, Megatron-LM's distributed-optimizer "
              "instances); 1 shards over all D x C. Must divide D."},
    FieldInfo{"defer_replica_reduce", &Scenario::deferReplicaReduce,
              "Hybrid sharding at ZeRO 2 and 3: the replicas all-reduce the accumulated gradient "
              "shards once, after the last micro-batch (FSDP2's set_requires_all_reduce, as "
              "OLMo-core does); off: after every micro-batch, FSDP2's default."},
    FieldInfo{"microbatches", &Scenario::microbatches,
              "Micro-batches m per step; more shrink the pipeline bubble."},
    FieldInfo{"microbatch_size", &Scenario::microbatchSize, "Sequences per micro-batch."},
    FieldInfo{"seq_len", &Scenario::seqLen,
              "Tokens per sequence; in inference, the prompt's tokens."},
    FieldInfo{"packed_example_tokens", &Scenario::packedExampleTokens,
              "Training on packed examples (fine-tuning data packed into each sequence): their "
              "mean tokens, each example attending only within itself, so the fused attention "
              "visits an example's keys, not the sequence's (Transformer Engine's packed THD "
              "format); eager attention masks the whole sequence and saves nothing. 0: a "
              "sequence is one example (docs/step_time.md, \"Packed examples\")."},
    FieldInfo{"lora_rank", &Scenario::loraRank,
              "LoRA fine-tuning: the rank r of the adapters beside the projections lora_modules "
              "names; the model's weights stay frozen, so they take no weight gradients, "
              "gradient sync or optimizer states, and only the adapters train (Hu et al. 2021). "
              "0: every weight trained (docs/step_time.md, \"LoRA\")."},
    FieldInfo{"lora_modules", &Scenario::loraModules,
              "The projections LoRA adapters sit beside, as Megatron-Bridge's target_modules "
              "names them, separated by spaces or commas: linear_qkv, linear_proj, linear_fc1, "
              "linear_fc2 (each routed and shared expert's too); all four by default."},
    FieldInfo{"lora_a2a", &Scenario::loraA2a,
              "LoRA at T > 1 with sequence parallelism: the adapters beside linear_proj and "
              "linear_fc2 pass B's output to the sequence-split layout by an all-to-all, a T-th "
              "of the gather they run otherwise (Megatron-Bridge's and NeMo's "
              "a2a_experimental; docs/step_time.md, \"LoRA\")."},
    FieldInfo{"lora_dropout", &Scenario::loraDropout,
              "LoRA: the probability with which dropout zeroes each value of an adapter's input "
              "before A (Megatron-Bridge's and NeMo's dropout, position \"pre\"): one more pass "
              "over the input forward, one over its gradient backward, and a byte a value of "
              "mask kept between them. 0: none (docs/step_time.md, \"LoRA\")."},
    FieldInfo{"lora_dropout_position", &Scenario::loraDropoutPosition,
              "Where lora_dropout zeroes values: pre, the adapter's input before A "
              "(Megatron-Bridge's and NeMo 2.0's default, Hugging Face PEFT's); post, B's output "
              "before it is added to the projection's (NeMo AutoModel's default). Default pre."},
    FieldInfo{"output_len", &Scenario::outputLen,
              "Inference: tokens each sequence generates after its prompt; the KV cache ends "
              "with seq_len + output_len tokens (docs/inference.md)."},
    FieldInfo{"kv_precision", &Scenario::kvPrecision,
              "Inference: the KV cache's format; auto keeps the activations' (BF16, or FP16/FP32 "
              "when the model runs so), fp8 and int8 take one byte a value."},
    FieldInfo{"schedule", &Scenario::schedule,
              "Pipeline schedule: gpipe, 1f1b, interleaved (virtual_stages chunks a device), "
              "zb-h1 (weight gradients deferred), dualpipev (two chunks a device in a V, "
              "forward and backward pairs; needs microbatches >= 2 x pp) or dualpipe (half the "
              "micro-batches enter at each end, each device holding two stages' parameters; "
              "needs an even pp and an even microbatches >= 2 x pp)."},
    FieldInfo{"virtual_stages", &Scenario::virtualStages,
              "Model chunks v per device for the interleaved schedule."},
    FieldInfo{"recompute", &Scenario::recompute,
              "Activation recomputation: none, selective (the attention core), op "
              "(torchtitan's per-op policy: every second matrix multiply and the element-wise "
              "work rerun), or full layers."},
    FieldInfo{"recompute_modules",
              &Scenario::recomputeModules,
              "What selective recomputation reruns, as Megatron-LM's --recompute-modules names "
              "it, separated by spaces or commas: core_attn (the attention core, the default), "
              "layernorm (the two norms' outputs), mla_up_proj (latent attention's up "
              "projections and RoPE), mlp (a dense layer's MLP), moe (a MoE layer's MLP with its "
              "routing and all-to-alls), shared_experts, moe_act (the routed experts' "
              "activation); none: nothing (docs/activations.md, \"Recomputed modules\").",
              {},
              "none"},
    FieldInfo{"recompute_layers", &Scenario::recomputeLayers,
              "With full recomputation, how many layers of each pipeline stage (each model "
              "chunk under interleaving) rerun, counted from its first, as Megatron-LM's "
              "--recompute-method block --recompute-num-layers; the others keep their "
              "activations, each saving its rerun. 0: every layer; where fewer would fit with 2 "
              "GiB free, a warning names the fewest (docs/activations.md, \"Recomputed "
              "layers\")."},
    FieldInfo{"offload_layers", &Scenario::offloadLayers,
              "Training with one pipeline stage and no recomputation: how many layers, counted "
              "from the first, send their activations to host memory during the forward pass "
              "and fetch them back for the backward, as Transformer Engine's CPU offloading "
              "does for Megatron-LM's --cpu-offloading-num-layers. At most the layers less "
              "offload_layers stay on the device; a transfer that outlasts the layers it runs "
              "beside stalls them (host_gb_per_s of the device), and the host must hold the "
              "offloaded ones (host_memory_gb). 0: none (docs/activations.md, \"Offloaded "
              "layers\")."},
    FieldInfo{
        "attention", &Scenario::attention,
        "Attention kernel: flash is the device's fused one (cuDNN's through Transformer "
        "Engine on Hopper), flash2 FlashAttention-2's (flash-attn 2, and PyTorch's "
        "scaled_dot_product_attention by default on Hopper), flash3 FlashAttention-3's "
        "(written for Hopper; elsewhere timed as flash, with a warning); these keep no s-by-s "
        "matrices, eager does."},
    FieldInfo{"sequence_parallel", &Scenario::sequenceParallel,
              "Split norms and dropout along the sequence across T (Korthikanti et al. 2022)."},
    FieldInfo{"tp_overlap", &Scenario::tpOverlap,
              "Overlap sequence parallelism's all-gathers and reduce-scatters with the "
              "projections they feed, in chunks (Megatron-LM --tp-comm-overlap)."},
    FieldInfo{"tp_overlap_qkv", &Scenario::tpOverlapQkv,
              "With tp_overlap: the QKV projection's input all-gather overlapped too; false "
              "runs it exposed, its backward's overlaps kept, and a LoRA adapter beside QKV "
              "takes the gathered input (Megatron-core's tp_comm_overlap_disable_qkv; "
              "docs/step_time.md, \"Tensor-parallel overlap\")."},
    FieldInfo{"ep_overlap", &Scenario::epOverlap,
              "Run each backward together with the next micro-batch's forward, each one's MoE "
              "all-to-all under the other's computation (Megatron-LM "
              "--overlap-moe-expert-parallel-comm); needs E > 1, and the interleaved schedule "
              "when K > 1; under dualpipev and dualpipe it overlaps their own pairs."},
    FieldInfo{"ep_dispatcher", &Scenario::epDispatcher,
              "How tokens reach the experts' devices: alltoall sends each copy on its own "
              "(Megatron-LM's alltoall dispatcher); flex sends a token once to each node its "
              "experts are on and fans it out over NVLink there (DeepEP, HybridEP: "
              "--moe-token-dispatcher-type flex) (docs/experts.md)."},
    FieldInfo{"expert_capacity_factor",
              &Scenario::expertCapacityFactor,
              "Each expert takes at most this many times its even share of the routed tokens, "
              "the rest dropped (Megatron-LM --moe-expert-capacity-factor); dropless (the "
              "default) drops none (docs/experts.md, \"Capacity\").",
              {},
              "dropless"},
    FieldInfo{"pad_to_capacity", &Scenario::padToCapacity,
              "Pad every expert's input to its capacity: each computes and exchanges exactly "
              "expert_capacity_factor times its even share, and the MoE layers need no token "
              "counts from the device (Megatron-LM --moe-pad-expert-input-to-capacity); "
              "published padded runs still took as long as dropless ones (moe-host)."},
    FieldInfo{"expert_rank_load", &Scenario::expertRankLoad,
              "Routing as trained: the busiest expert-parallel rank's routed copies over its "
              "even share, 1 for balanced routing (a router forced to balance); every rank "
              "waits for it at each all-to-all, so its grouped multiplies, exchanges and "
              "activations scale by it, capped by expert_capacity_factor (docs/experts.md, "
              "\"Routing imbalance\")."},
    FieldInfo{"full_cuda_graph", &Scenario::fullCudaGraph,
              "Training: the whole step runs as one CUDA graph (Megatron-LM --cuda-graph-impl "
              "full_iteration), which reads nothing back on the host, so MoE layers in it need "
              "static shapes and launch nothing from it: the moe-host warning stands aside "
              "(docs/step_time.md, \"Fine-grained experts\")."},
    FieldInfo{"fused_swiglu", &Scenario::fusedSwiglu,
              "A fused SwiGLU keeps only its 2f-wide input for backward, not four f-wide "
              "tensors (docs/activations.md)."},
    FieldInfo{"fp8_activation_input", &Scenario::fp8ActivationInput,
              "Training: the fused SwiGLU keeps its 2f-wide input in FP8, one byte a value, cast "
              "after the forward and back before the backward (Megatron-LM "
              "--activation-func-fp8-input-store; docs/activations.md). Needs fused_swiglu and "
              "a SwiGLU MLP."},
    FieldInfo{"fused_elementwise", &Scenario::fusedElementwise,
              "Norms, rotary embeddings and SwiGLU run as fused kernels (Transformer Engine, "
              "torch.compile); off, as PyTorch's eager operations, each a pass over memory "
              "(Hugging Face Transformers, torchtitan without compile; docs/step_time.md)."},
    FieldInfo{"overlap_param_gather", &Scenario::overlapParamGather,
              "With dp_overlap auto, ZeRO-1 and 2 gather the updated parameters behind the next "
              "step's first forward (Megatron-LM --overlap-param-gather); off, inside the "
              "optimizer step, exposed (DeepSpeed's ZeRO-1 and 2)."},
    FieldInfo{"fp8_params", &Scenario::fp8Params,
              "FP8 training keeps the weights in FP8: one byte a parameter held (on Hopper their "
              "transposes too, among the cast weights: fp8_weight_cache), gathered by ZeRO and "
              "written by the optimizer (Megatron-LM --fp8-param-gather); off, in BF16, cast for "
              "each step's FP8 multiplies: two bytes. With NVFP4 and LoRA the frozen weights are "
              "held in NVFP4, as MLPerf's NVFP4 LoRA runs quantize them once (docs/DESIGN.md "
              "§3.5)."},
    FieldInfo{"fp8_weight_cache", &Scenario::fp8WeightCache,
              "FP8 and NVFP4 training keeps Transformer Engine's weight copies all step: with "
              "16-bit weights (fp8_params off) each weight's cast copy, 2 bytes a parameter on "
              "Hopper (the data and its transpose), 1 on Blackwell, 2.06 in MXFP8, 1.13 in "
              "NVFP4; with FP8 weights on Hopper their transpose, 1 byte (MXFP8 weights hold "
              "their column-wise copy either way, 1.06). Off "
              "(disable_parameter_transpose_cache), each forward casts the weights afresh: "
              "Transformer Engine saves that copy for the micro-batch's backward, among the "
              "activations (DeepSpeed), torchao's Float8Linear keeps none (torchtitan; "
              "docs/activations.md, \"Cast weights\")."},
    FieldInfo{"save_quantized_inputs", &Scenario::saveQuantizedInputs,
              "FP8 and NVFP4 training keep each projection's input for its weight gradient as "
              "the cast copy (Transformer Engine: 1 byte a value in FP8, about 0.56 in NVFP4); "
              "off, in 16 bits, cast again in the backward (torchao's Float8Linear, torchtitan; "
              "docs/activations.md)."},
    FieldInfo{"fp8_attention", &Scenario::fp8Attention,
              "FP8 and NVFP4 training run the fused attention kernel in FP8 too (Transformer "
              "Engine's FP8 dot-product attention, Megatron-LM --fp8-dot-product-attention), at "
              "the device's measured FP8-over-BF16 rates, though its backward through a sliding "
              "window takes the whole causal triangle's time; not on Hopper at head dimensions "
              "other than 128 or with learned sinks, where it is timed in BF16 with a warning; "
              "off, in BF16 (docs/step_time.md)."},
    FieldInfo{"fp8_lm_head", &Scenario::fp8LmHead,
              "FP8 training with block scaling (MXFP8) runs the LM head's multiplies in FP8 too, "
              "with their casts (Megatron-LM --fp8-output-proj); off, in 16 bits, as "
              "Megatron-core's output layer runs by default (docs/step_time.md)."},
    FieldInfo{
        "loss_fusion", &Scenario::lossFusion,
        "The cross-entropy loss's kernels: none, Megatron-LM's vocabulary-parallel loss as "
        "PyTorch operations (its default); native, Megatron-core's fused loss "
        "(--cross-entropy-loss-fusion); te, Transformer Engine's (--cross-entropy-fusion-impl "
        "te), which Megatron-Bridge's performance recipes run (docs/step_time.md)."},
    FieldInfo{"fused_grad_accumulation", &Scenario::fusedGradAccumulation,
              "The weight-gradient multiply adds into the accumulated gradients (Megatron-LM "
              "--gradient-accumulation-fusion); off, each micro-batch's gradients are added in "
              "a pass of their own (docs/step_time.md)."},
    FieldInfo{"zero_buffers", &Scenario::zeroBuffers,
              "Buffers the ZeRO implementation allocates beside the model states: none; "
              "deepspeed (ZeRO-3: 4 bytes per parameter of the largest layer; ZeRO-1 and 2: a "
              "bucket of 5e8 gradient values); fsdp (PyTorch FSDP2's gathered blocks and "
              "reduce-scatter inputs) (docs/frameworks.md)."},
    FieldInfo{"cache_outputs", &Scenario::cacheOutputs,
              "Keep every micro-batch's output on the last stage until the step ends "
              "(pytorch/pytorch#159251)."},
    FieldInfo{"ends_in_pipeline_split", &Scenario::endsInPipelineSplit,
              "Count the embedding and the loss as one layer each when splitting the layers "
              "over the stages: the first and last stages take one layer fewer (Megatron-LM "
              "--account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split; "
              "Llama 3 405B ran so)."},
    FieldInfo{"pipeline_layout",
              &Scenario::pipelineLayout,
              "Which layers each pipeline stage holds, in Megatron-LM's "
              "--pipeline-model-parallel-layout syntax: a stage per |, in the order chunk 0 of "
              "every stage, then chunk 1 (interleaved), or the V's 2K parts (dualpipev); E the "
              "embedding (first), t a transformer "
              "layer, m a multi-token-prediction layer (mtp_layers of them, beside L), L the LM "
              "head and loss (last), (..)*n and t*n repeat, e.g. "
              "Et*4|(t*4|)*14,tL; even: the even split; parameters: DeepSpeed PipelineModule's "
              "default partition_method, the stages balanced by parameter count with the "
              "embedding and the LM head (docs/DESIGN.md §3.3).",
              {},
              "even"},
    FieldInfo{"mtp_layers", &Scenario::mtpLayers,
              "Multi-token-prediction depths trained beside the model (Megatron-LM "
              "--mtp-num-layers; DeepSeek-V3 trains 1): each adds one layer of the last layer's "
              "kind, two norms, a 2h-to-h projection, an embedding lookup and the LM head with its "
              "loss to the stage holding the loss, with a copy of the embedding there. 0: none."},
    FieldInfo{"reserve_gib", &Scenario::reserveGib,
              "Memory per device lost to the framework (CUDA context, NCCL buffers), in GiB."},
    FieldInfo{"inter_node_gb_per_s", &Scenario::interNodeGbPerS,
              "Inter-node bandwidth per device per direction (its own NIC), in GB/s; a "
              "data-parallel ring runs over every NIC its members have in a node. Empty for the "
              "device's."},
    FieldInfo{"mfu",
              &Scenario::mfu,
              "auto times every operation from its own FLOPs and bytes; a number from 0.001 "
              "to 1 forces that fraction of peak compute on every operation.",
              {},
              "auto"},
    FieldInfo{"dp_overlap",
              &Scenario::dpOverlap,
              "auto hides the gradient synchronisation behind the last micro-batch's backward "
              "pass and the parameter all-gather behind the first one's forward, as far as they "
              "fit, where the framework overlaps them (DeepSpeed with ZeRO off all-reduces "
              "after the backward: nothing hidden); a number from 0 to 1 hides that fraction.",
              {},
              "auto"},
    FieldInfo{"dp_collective_units",
              &Scenario::dpCollectiveUnits,
              "SMs (NCCL CTAs) a data-parallel collective may hold, as NCCL_MAX_CTAS or a "
              "per-communicator config caps them: fewer take less from the passes they hide "
              "behind but move less, each as a share of the device's collective_units' bus "
              "bandwidth on NVLink. auto: the device's collective_units.",
              {},
              "auto"},
    FieldInfo{"dp_bucket_params",
              &Scenario::dpBucketParams,
              "Parameters per data-parallel bucket: the last bucket reduced and the first "
              "gathered run outside the passes they border. auto: the framework's (Megatron-LM "
              "max(40M, 1M × D·C), DeepSpeed 5e8, FSDP2 one module: the embedding).",
              {},
              "auto"},
};

template <typename T> std::optional<T> parseNumber(std::string_view text)
{
    T value{};
    const char *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end || text.empty())
        return std::nullopt;
    if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(value))
            return std::nullopt;
    }
    return value;
}

// Why `text`, a whole number, is not an int: "99999999999 is more than the limit of
// 2147483647". Nullopt when it is no whole number at all.
std::optional<std::string> beyondInt(std::string_view text)
{
    int value = 0;
    const char *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc::result_out_of_range || ptr != end)
        return std::nullopt;
    if (text.starts_with('-'))
        return excerpt(text) + " is less than the limit of " +
               std::to_string(std::numeric_limits<int>::min());
    return excerpt(text) + " is more than the limit of " +
           std::to_string(std::numeric_limits<int>::max());
}

template <typename E> std::string enumError(std::string_view text)
{
    return "unknown value " + quoted(text) + "; expected " + allowedNames<E>();
}

std::string numberText(double value)
{
    std::array<char, 32> buffer{};
    auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), ptr);
}

} // namespace

std::span<const FieldInfo> scenarioFields()
{
    return kFields;
}

InputError unknownKey(std::string_view key)
{
    if (!key.empty())
        return InputError{excerpt(key), "unknown key"};
    // The keys while the message stays short; the command's help lists them all.
    std::string keys;
    std::size_t listed = 0;
    for (const auto &field : kFields) {
        if (keys.size() + field.key.size() > 360)
            break;
        keys += (keys.empty() ? "" : ", ") + std::string(field.key);
        ++listed;
    }
    if (listed < kFields.size())
        keys += ", … (" + std::to_string(kFields.size()) +
                " in all: 'parascope eval --help' lists them)";
    return InputError{"", "empty key; the keys are " + keys};
}

const FieldInfo *findField(std::string_view key)
{
    for (const auto &field : kFields)
        if (field.key == key)
            return &field;
    return nullptr;
}

FieldKind fieldKind(const FieldInfo &field)
{
    return std::visit(
        [](auto member) {
            using T = std::remove_cvref_t<decltype(std::declval<Scenario>().*member)>;
            if constexpr (std::is_same_v<T, int>)
                return FieldKind::integer;
            else if constexpr (std::is_same_v<T, double> ||
                               std::is_same_v<T, std::optional<double>>)
                return FieldKind::number;
            else if constexpr (std::is_same_v<T, bool>)
                return FieldKind::boolean;
            else
                return FieldKind::text;
        },
        field.member);
}

std::string allowedText(const FieldInfo &field)
{
    if (!field.only.empty()) {
        std::string out;
        for (std::size_t i = 0; i < field.only.size(); ++i)
            out += (i == 0                       ? ""
                    : i + 1 == field.only.size() ? " or "
                                                 : ", ") +
                   std::string(field.only[i]);
        return out;
    }
    return std::visit(
        [](auto member) -> std::string {
            using T = std::remove_cvref_t<decltype(std::declval<Scenario>().*member)>;
            if constexpr (std::is_enum_v<T>)
                return allowedNames<T>();
            else if constexpr (std::is_same_v<T, bool>)
                return "true or false";
            else
                return {};
        },
        field.member);
}

bool allowedValue(const Scenario &scenario, const FieldInfo &field)
{
    if (field.only.empty())
        return true;
    const auto allows = [&field](std::string_view value) {
        return std::ranges::find(field.only, value) != field.only.end();
    };
    // An enumeration's name without a copy: every evaluation checks these.
    return std::visit(
        [&](auto member) {
            const auto &slot = scenario.*member;
            if constexpr (std::is_enum_v<std::remove_cvref_t<decltype(slot)>>)
                return allows(toString(slot));
            else
                return allows(fieldText(scenario, field.key));
        },
        field.member);
}

std::optional<InputError> setField(Scenario &s, std::string_view key, std::string_view text)
{
    const FieldInfo *field = findField(key);
    if (!field)
        return unknownKey(key);
    std::string message = std::visit(
        [&s, text, field](auto member) -> std::string {
            auto &slot = s.*member;
            using T = std::remove_cvref_t<decltype(slot)>;
            if constexpr (std::is_same_v<T, int>) {
                auto v = parseNumber<int>(text);
                if (!v)
                    return beyondInt(text).value_or("expected a whole number, got " + quoted(text));
                slot = *v;
            } else if constexpr (std::is_same_v<T, double>) {
                auto v = parseNumber<double>(text);
                if (!v)
                    return "expected a number, got " + quoted(text);
                slot = *v;
            } else if constexpr (std::is_same_v<T, std::optional<double>>) {
                if (text.empty() || (!field->unset.empty() && text == field->unset)) {
                    slot.reset();
                } else {
                    auto v = parseNumber<double>(text);
                    if (!v)
                        return "expected a number, got " + quoted(text);
                    slot = *v;
                }
            } else if constexpr (std::is_same_v<T, bool>) {
                if (text == "true")
                    slot = true;
                else if (text == "false")
                    slot = false;
                else
                    return "expected true or false, got " + quoted(text);
            } else if constexpr (std::is_same_v<T, std::string>) {
                // A text key with an unset word (pipeline_layout's "even") takes it, or nothing,
                // for none; the others must name something.
                const bool unset = text.empty() || (!field->unset.empty() && text == field->unset);
                if (unset && field->unset.empty())
                    return "must not be empty";
                slot = unset ? std::string() : std::string(text);
            } else {
                auto v = parseEnum<T>(text);
                if (!v)
                    return enumError<T>(text);
                slot = *v;
            }
            return {};
        },
        field->member);
    if (!message.empty())
        return InputError{std::string(key), message};
    if (key == "model")
        s.customModel.reset();
    else if (key == "device")
        s.customDevice.reset();
    else if (key == "framework")
        applyFramework(s, s.framework);
    return std::nullopt;
}

std::string fieldText(const Scenario &s, std::string_view key)
{
    const FieldInfo *field = findField(key);
    if (!field)
        return {};
    return std::visit(
        [&s, field](auto member) -> std::string {
            const auto &slot = s.*member;
            using T = std::remove_cvref_t<decltype(slot)>;
            if constexpr (std::is_same_v<T, int>)
                return std::to_string(slot);
            else if constexpr (std::is_same_v<T, double>)
                return numberText(slot);
            else if constexpr (std::is_same_v<T, std::optional<double>>)
                return slot ? numberText(*slot) : std::string(field->unset);
            else if constexpr (std::is_same_v<T, bool>)
                return slot ? "true" : "false";
            else if constexpr (std::is_same_v<T, std::string>)
                return slot.empty() ? std::string(field->unset) : slot;
            else
                return std::string(toString(slot));
        },
        field->member);
}

std::optional<double> fieldNumber(const Scenario &s, std::string_view key)
{
    const FieldInfo *field = findField(key);
    if (!field)
        return std::nullopt;
    return std::visit(
        [&s](auto member) -> std::optional<double> {
            const auto &slot = s.*member;
            using T = std::remove_cvref_t<decltype(slot)>;
            if constexpr (std::is_same_v<T, int> || std::is_same_v<T, double>)
                return static_cast<double>(slot);
            else if constexpr (std::is_same_v<T, std::optional<double>>)
                return slot;
            else
                return std::nullopt;
        },
        field->member);
}

namespace {

constexpr std::pair<std::string_view, RecomputeModule> kRecomputeModules[] = {
    {"core_attn", kRecomputeCoreAttn},
    {"layernorm", kRecomputeLayernorm},
    {"mla_up_proj", kRecomputeMlaUpProj},
    {"mlp", kRecomputeMlp},
    {"moe", kRecomputeMoe},
    {"shared_experts", kRecomputeSharedExperts},
    {"moe_act", kRecomputeMoeAct}};

constexpr std::pair<std::string_view, LoraModule> kLoraModules[] = {{"linear_qkv", kLoraQkv},
                                                                    {"linear_proj", kLoraProj},
                                                                    {"linear_fc1", kLoraFc1},
                                                                    {"linear_fc2", kLoraFc2}};

// Calls `f` with each word of a space- or comma-separated list, in order; stops early, with
// false, when `f` returns false. Builds nothing: every evaluation parses its module lists.
template <typename F> bool forEachModuleWord(std::string_view text, F &&f)
{
    std::size_t start = 0;
    for (std::size_t at = 0; at <= text.size(); ++at) {
        if (at < text.size() && text[at] != ' ' && text[at] != ',')
            continue;
        if (at > start && !f(text.substr(start, at - start)))
            return false;
        start = at + 1;
    }
    return true;
}

// The bits of a space- or comma-separated list of `known` names, or what is wrong with it.
template <typename Bits, std::size_t N>
std::variant<unsigned, std::string>
parseModuleList(std::string_view text, const std::pair<std::string_view, Bits> (&known)[N])
{
    unsigned out = 0;
    std::string_view unknown;
    forEachModuleWord(text, [&](std::string_view word) {
        const auto found = std::find_if(std::begin(known), std::end(known),
                                        [word](const auto &m) { return m.first == word; });
        if (found == std::end(known)) {
            unknown = word;
            return false;
        }
        out |= found->second;
        return true;
    });
    if (!unknown.empty()) {
        const std::string_view word = unknown;
        std::string names;
        for (const auto &m : known)
            names += (names.empty() ? "" : ", ") + std::string(m.first);
        return "unknown module '" + std::string(word.substr(0, 40)) + "'; Parascope models " +
               names;
    }
    return out;
}

} // namespace

std::vector<std::string_view> moduleListWords(std::string_view text)
{
    std::vector<std::string_view> words;
    forEachModuleWord(text, [&words](std::string_view word) {
        words.push_back(word);
        return true;
    });
    return words;
}

namespace {

// parseModuleList, remembering the last list each thread parsed against `known`: every
// evaluation validates and reads the same list or two again (a search's hundreds of
// thousands), and comparing the text is cheaper than splitting it.
template <typename Bits, std::size_t N>
std::variant<unsigned, std::string>
parseModuleListOnce(std::string_view text, const std::pair<std::string_view, Bits> (&known)[N])
{
    thread_local std::optional<std::pair<std::string, std::variant<unsigned, std::string>>> last;
    if (!last || last->first != text)
        last.emplace(std::string(text), parseModuleList(text, known));
    return last->second;
}

} // namespace

std::variant<unsigned, std::string> parseLoraModules(std::string_view text)
{
    return parseModuleListOnce(text, kLoraModules);
}

std::variant<unsigned, std::string> parseRecomputeModules(std::string_view text)
{
    return parseModuleListOnce(text, kRecomputeModules);
}

} // namespace core
