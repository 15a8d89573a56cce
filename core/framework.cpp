#include "core/framework.h"

#include "core/fields.h"
#include "core/schedule.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace core {

namespace {

constexpr std::array kMegatronSettings{
    ProfileSetting{"grad_precision", "fp32",
                   "BF16 parameters with FP32 main gradients, 18 bytes per parameter (6 + 12/D "
                   "with the distributed optimizer): Megatron-LM "
                   "docs/user-guide/features/dist_optimizer.md"},
    ProfileSetting{"optimizer_moments", "fp32",
                   "Adam's moments in FP32: --exp-avg-dtype and --exp-avg-sq-dtype default to "
                   "fp32 (megatron/core/optimizer/optimizer_config.py); Megatron-Bridge's "
                   "DeepSeek-V3 recipes keep them in BF16 with --use-precision-aware-optimizer"},
    ProfileSetting{"cache_outputs", "false",
                   "the last stage's output is the loss; the logits go with the micro-batch's "
                   "backward (megatron/core/pipeline_parallel/schedules.py)"},
    ProfileSetting{"ends_in_pipeline_split", "false",
                   "the layers split evenly over the stages; the embedding and the loss count as "
                   "layers only with --account-for-embedding-in-pipeline-split and "
                   "--account-for-loss-in-pipeline-split, off by default "
                   "(megatron/training/arguments.py)"},
    ProfileSetting{"fused_swiglu", "true",
                   "the fused bias-SwiGLU keeps its 2f-wide input, not four f-wide tensors "
                   "(megatron/core/fusions/fused_bias_swiglu.py)"},
    ProfileSetting{"fused_elementwise", "true",
                   "Transformer Engine's fused norms, fused RoPE (--apply-rope-fusion, on by "
                   "default) and the fused bias-SwiGLU"},
    ProfileSetting{"overlap_param_gather", "true",
                   "the distributed optimizer's gather overlaps the next forward "
                   "(--overlap-param-gather, as the README's runs and Megatron-Bridge's recipes "
                   "set it; a launch script without it imports as false)"},
    ProfileSetting{"fused_grad_accumulation", "true",
                   "the weight-gradient GEMM accumulates into main_grad "
                   "(--gradient-accumulation-fusion, on by default)"},
    ProfileSetting{"attention", "flash", "fused attention through Transformer Engine"},
    ProfileSetting{"cp_exchange", "ring",
                   "context parallelism passes K/V blocks around a ring (--cp-comm-type p2p, "
                   "the default)"},
    ProfileSetting{"zero_buffers", "none",
                   "the distributed optimizer's buckets are views of its gradient buffer"},
    ProfileSetting{"fp8_scaling", "delayed",
                   "FP8 through Transformer Engine's delayed scaling (--fp8-recipe delayed, the "
                   "default: megatron/core/transformer/transformer_config.py)"},
    ProfileSetting{"fp8_params", "false",
                   "BF16 weights cast for the FP8 multiplies: --fp8-param-gather is off by "
                   "default (megatron/training/arguments.py); NeMo's and Megatron-Bridge's FP8 "
                   "recipes turn it on (mixed_precision.py)"},
    ProfileSetting{"fp8_weight_cache", "true",
                   "Transformer Engine keeps each weight's cast copy from the step's first "
                   "micro-batch (is_first_microbatch; disable_parameter_transpose_cache, a "
                   "configuration field with no flag, turns it off: megatron/core/extensions/"
                   "transformer_engine.py)"},
    ProfileSetting{"save_quantized_inputs", "true",
                   "Transformer Engine's projections keep their cast inputs for the weight "
                   "gradient (transformer_engine/pytorch/module/linear.py, saved_inputmat)"},
};
// DDP, the distributed optimizer, and Megatron-FSDP's optim_grads and optim_grads_params
// (Megatron-LM docs/user-guide/features/megatron_fsdp.md, --data-parallel-sharding-strategy).
constexpr std::array kMegatronZero{0, 1, 2, 3};
constexpr std::array kMegatronSchedules{Schedule::oneFOneB, Schedule::interleaved};

constexpr std::array kTorchtitanSettings{
    ProfileSetting{"grad_precision", "fp32",
                   "FSDP2 reduces gradients in FP32 (MixedPrecisionPolicy reduce_dtype)"},
    ProfileSetting{"optimizer_moments", "fp32",
                   "torch.optim.AdamW keeps its moments in the FP32 parameters' own type"},
    ProfileSetting{"cache_outputs", "true",
                   "torch.distributed.pipelining keeps every micro-batch's output until the "
                   "step ends (pytorch/pytorch#159251) unless return_outputs=False "
                   "(pytorch/pytorch#165822)"},
    ProfileSetting{"ends_in_pipeline_split", "true",
                   "the generated model parts count the embedding and the output as a layer "
                   "each (pipeline_parallel_first_stage_less_layers and "
                   "_last_stage_less_layers, 1 by default; torchtitan "
                   "distributed/pipeline_parallel.py, _generate_llm_fqn_per_model_part)"},
    ProfileSetting{"fused_swiglu", "false",
                   "the Llama feed-forward is w2(silu(w1(x)) * w3(x)) in PyTorch operations"},
    ProfileSetting{"overlap_param_gather", "true",
                   "FSDP2 prefetches the next gather while the current block computes"},
    ProfileSetting{"fused_elementwise", "false",
                   "without torch.compile (compile.enable, off by default) nn.RMSNorm, the "
                   "complex-number RoPE and the feed-forward run as eager PyTorch operations"},
    ProfileSetting{"fused_grad_accumulation", "false",
                   "autograd's AccumulateGrad adds each micro-batch's gradients into .grad"},
    ProfileSetting{"attention", "flash",
                   "scaled_dot_product_attention with cuDNN's kernel first "
                   "(torchtitan models/common/attention.py, since pytorch/torchtitan#1776 in "
                   "October 2025; before it FlashAttention-2's on Hopper: attention=flash2)"},
    ProfileSetting{"cp_exchange", "allgather",
                   "context_parallel_rotate_method defaults to allgather: every K/V shard "
                   "gathered after the first local block (torchtitan job_config.py)"},
    ProfileSetting{"zero_buffers", "fsdp",
                   "FSDP2's gathered blocks, 16-bit gradients and FP32 reduce-scatter inputs "
                   "(torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py)"},
    ProfileSetting{"fp8_scaling", "current",
                   "float8 through torchao's Float8Linear, which scales each tensor by its own "
                   "maximum (dynamic scaling; torchtitan components/quantization/float8.md)"},
    ProfileSetting{"fp8_params", "false",
                   "Float8Linear keeps its weights in their own dtype and casts them for each "
                   "multiply; enable_fsdp_float8_all_gather, off by default, gathers them in FP8 "
                   "(torchtitan config/job_config.py, Float8Linear, before February 2026)"},
    ProfileSetting{"fp8_weight_cache", "false",
                   "Float8Linear casts the weight in each forward and again in the backward, "
                   "keeping none (torchao/float8/float8_linear.py, "
                   "matmul_with_hp_or_float8_args)"},
    ProfileSetting{"save_quantized_inputs", "false",
                   "Float8Linear keeps each input in 16 bits and casts it again for the weight "
                   "gradient (torchao/float8/float8_linear.py, matmul_with_hp_or_float8_args)"},
};
// DDP; FSDP2 under pipeline parallelism, which keeps the gathered parameters and the
// unsharded gradients for the whole step (reshard_after_forward off, one gradient sync):
// ZeRO-1 in memory; FSDP2 without it: ZeRO-3.
constexpr std::array kTorchtitanZero{0, 1, 3};
// torch.distributed.pipelining's schedules as torchtitan names them; ScheduleDualPipeV with
// the V placement (torchtitan/distributed/pipeline_parallel.py, style "v").
constexpr std::array kTorchtitanSchedules{Schedule::gpipe, Schedule::oneFOneB,
                                          Schedule::interleaved, Schedule::zbH1,
                                          Schedule::dualPipeV};

constexpr std::array kDeepSpeedSettings{
    ProfileSetting{"grad_precision", "fp32",
                   "18 bytes per parameter of model states (DeepSpeed's ZeRO estimators, "
                   "estimate_zero3_model_states_mem_needs)"},
    ProfileSetting{"optimizer_moments", "fp32",
                   "its Adam keeps FP32 moments beside the FP32 master weights (the 12 of the "
                   "ZeRO paper's K)"},
    ProfileSetting{"cache_outputs", "false",
                   "the pipeline engine keeps no outputs beyond each micro-batch's loss"},
    ProfileSetting{"ends_in_pipeline_split", "false",
                   "Megatron-DeepSpeed's GPT pipeline splits the transformer layers evenly, "
                   "the embedding and the head beside them (GPTModelPipe, partition_method "
                   "'type:transformer'); PipelineModule's own default, 'parameters', is not "
                   "modelled"},
    ProfileSetting{"fused_swiglu", "false", "Hugging Face Transformers models run SwiGLU unfused"},
    ProfileSetting{"overlap_param_gather", "false",
                   "ZeRO-1 and 2 gather the updated parameters at the end of the optimizer step "
                   "(deepspeed/runtime/zero/stage_1_and_2.py, step)"},
    ProfileSetting{"fused_elementwise", "false",
                   "Hugging Face Transformers models run LlamaRMSNorm, apply_rotary_pos_emb and "
                   "SwiGLU as eager PyTorch operations"},
    ProfileSetting{"fused_grad_accumulation", "false",
                   "autograd's AccumulateGrad adds each micro-batch's gradients into .grad"},
    ProfileSetting{"attention", "flash2",
                   "Transformers' sdpa attention (its default) and flash_attention_2 run "
                   "FlashAttention-2's kernel on Hopper: scaled_dot_product_attention puts it "
                   "before cuDNN's (huggingface/transformers#48163)"},
    ProfileSetting{"cp_exchange", "alltoall",
                   "DeepSpeed-Ulysses splits sequences by all-to-alls of Q, K, V and the "
                   "output between the sequence and the heads (Jacobs et al. 2023)"},
    ProfileSetting{"zero_buffers", "deepspeed",
                   "ZeRO-3 holds 4 bytes per parameter of the largest layer while gathering "
                   "(estimate_zero3_model_states_mem_needs); ZeRO-1 and 2 a bucket of 5e8 "
                   "gradient values (stage_1_and_2.py, setup_buckets)"},
    ProfileSetting{"fp8_scaling", "delayed",
                   "FP8 through Transformer Engine's modules, whose default recipe on Hopper is "
                   "delayed scaling (MXFP8 blocks on Blackwell: transformer_engine/pytorch/"
                   "quantization.py, get_default_fp8_recipe)"},
    ProfileSetting{"fp8_params", "false",
                   "Transformer Engine's modules keep 16-bit weights and cast them for the FP8 "
                   "multiplies unless built under fp8_model_init"},
    ProfileSetting{"fp8_weight_cache", "false",
                   "the engine calls Transformer Engine's modules without is_first_microbatch, "
                   "so each forward casts the weights afresh and saves its copy for its own "
                   "backward (transformer_engine/pytorch/module/linear.py, wt_save): a copy per "
                   "micro-batch in flight, among the activations"},
    ProfileSetting{"save_quantized_inputs", "true",
                   "Transformer Engine's modules keep their cast inputs for the weight gradient "
                   "(transformer_engine/pytorch/module/linear.py, saved_inputmat)"},
};
constexpr std::array kDeepSpeedZero{0, 1, 2, 3};
constexpr std::array kDeepSpeedSchedules{Schedule::oneFOneB}; // deepspeed.pipe TrainSchedule

const std::array kProfiles{
    FrameworkProfile{Framework::custom,
                     "custom",
                     {},
                     {},
                     {},
                     "Parascope's own defaults",
                     {"none", "optimizer states", "+ gradients", "+ parameters"},
                     {}},
    FrameworkProfile{
        Framework::megatron,
        "Megatron-LM",
        kMegatronSettings,
        kMegatronZero,
        kMegatronSchedules,
        "NVIDIA/Megatron-LM",
        {"DDP", "distributed optimizer", "Megatron-FSDP, optim_grads", "Megatron-FSDP"},
        {"", "--recompute-granularity selective", "--recompute-granularity full", ""}},
    FrameworkProfile{Framework::torchtitan,
                     "torchtitan",
                     kTorchtitanSettings,
                     kTorchtitanZero,
                     kTorchtitanSchedules,
                     "pytorch/torchtitan",
                     {"DDP", "FSDP2 with pipelining", "", "FSDP2"},
                     {"activation_checkpoint.mode = \"none\" (v0.1.0)", "",
                      "activation_checkpoint.mode = \"full\" (v0.1.0), FullAC since",
                      "activation_checkpoint.mode = \"selective\" with selective_ac_option = "
                      "\"op\" (v0.1.0), SelectiveAC since"},
                     0,
                     // torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py:
                     // foreach_all_gather_copy_out, foreach_reduce_scatter_copy_in.
                     true,
                     // torchtitan/distributed/activation_checkpoint.py, SelectiveAC.
                     Recompute::op,
                     DpBuckets::fsdpUnits,
                     0,
                     true,
                     // torchtitan/components/optimizer/optimizer.py (fused AdamW, zero_grad
                     // set_to_none), torchtitan/distributed/utils.py (clip_grad_norm_).
                     OptimizerStep::torch,
                     // torchtitan/distributed/activation_checkpoint.py: full AC wraps every
                     // layer (its layer-frequency option is every k-th, not the first N).
                     false},
    FrameworkProfile{Framework::deepspeed,
                     "DeepSpeed",
                     kDeepSpeedSettings,
                     kDeepSpeedZero,
                     kDeepSpeedSchedules,
                     "deepspeedai/DeepSpeed",
                     {"ZeRO off", "ZeRO-1", "ZeRO-2", "ZeRO-3"},
                     {"", "", "deepspeed.checkpointing", ""},
                     // deepspeed/runtime/engine.py, allreduce_gradients: with ZeRO off the
                     // engine all-reduces at the accumulation boundary, after the backward
                     // (buffered_allreduce_fallback); ZeRO-1 to 3 overlap with overlap_comm.
                     1,
                     false,
                     Recompute::selective,
                     // deepspeed/runtime/zero/config.py: reduce_bucket_size 5e8 elements.
                     DpBuckets::fixed,
                     5e8,
                     // Megatron-DeepSpeed's GPT pipeline: the ends beside the layers (the
                     // ends_in_pipeline_split setting above).
                     false,
                     OptimizerStep::deepspeed,
                     // deepspeed.checkpointing.checkpoint: the model's code chooses the layers.
                     false},
};

// A selective recomputation (the attention core's, or per op) that is not the kind the
// framework runs, when the framework runs one.
bool selectiveKindDiffers(const Scenario &s, const FrameworkProfile &p)
{
    const bool selectiveKind = s.recompute == Recompute::selective || s.recompute == Recompute::op;
    return p.framework != Framework::custom && selectiveKind &&
           s.recompute != p.selectiveRecompute &&
           !p.recomputeNames[std::size_t(p.selectiveRecompute)].empty();
}

} // namespace

const FrameworkProfile &frameworkProfile(Framework framework)
{
    for (const FrameworkProfile &p : kProfiles)
        if (p.framework == framework)
            return p;
    return kProfiles.front();
}

void applyFramework(Scenario &s, Framework framework)
{
    s.framework = framework;
    const FrameworkProfile &p = frameworkProfile(framework);
    for (const ProfileSetting &setting : p.settings)
        setField(s, setting.key, setting.value); // the table's own values always parse
    // Selective recomputation becomes the framework's own kind of it, where it has one.
    if (selectiveKindDiffers(s, p))
        s.recompute = p.selectiveRecompute;
}

std::optional<double> dpOverlapFor(const Scenario &s)
{
    if (s.dpOverlap)
        return s.dpOverlap;
    if (s.zero < frameworkProfile(s.framework).dpOverlapFromZero)
        return 0.0;
    return std::nullopt;
}

bool syncsInOneBucket(const Scenario &s, int stage)
{
    // Megatron-LM's own: the custom profile sizes its buckets alike but syncs as a framework
    // that starts each stage's collectives when they can would. Megatron-FSDP (ZeRO-2 and 3)
    // syncs by module; the interleaved schedule's chunks sync apart ("Interleaved chunks'
    // syncs"); Megatron-LM runs no other schedule.
    return stage > 0 && s.framework == Framework::megatron && s.zero < 2 &&
           (s.schedule == Schedule::oneFOneB || s.schedule == Schedule::gpipe);
}

bool gatherHoldsFirstForward(const Scenario &s, int stage)
{
    return s.mode == Mode::training && s.zero == 1 && s.overlapParamGather && !dpOverlapFor(s) &&
           syncsInOneBucket(s, stage);
}

double dpEdgeShare(const Scenario &s, int stage, std::int64_t stageParams,
                   std::int64_t embeddingParams)
{
    if (stageParams <= 0)
        return 0;
    // One bucket is its own edge: reduced after the stage's last backward, gathered before its
    // first forward.
    if (syncsInOneBucket(s, stage))
        return 1;
    // Only stage 0 has edges; a later stage's reduction runs in the pipeline's cooldown.
    if (stage > 0)
        return 0;
    const FrameworkProfile &p = frameworkProfile(s.framework);
    const double params = static_cast<double>(stageParams);
    // Megatron-LM's ZeRO-2 and 3 are Megatron-FSDP, which shards and communicates by module
    // as FSDP2 does (docs/user-guide/features/megatron_fsdp.md, fsdp_unit_modules:
    // TransformerLayer, LanguageModelEmbedding); torchtitan/distributed/fsdp.py makes the
    // embedding a unit of its own, the first gathered and the last reduced.
    const bool units =
        p.dpBuckets == DpBuckets::fsdpUnits || (p.dpBuckets == DpBuckets::megatron && s.zero >= 2);
    if (!s.dpBucketParams && units)
        return std::min(1.0, embeddingParams / params);
    const double bucket = s.dpBucketParams                  ? *s.dpBucketParams
                          : p.dpBuckets == DpBuckets::fixed ? p.dpBucketParams
                                                            : std::max(40e6, 1e6 * s.dp * s.cp);
    // param_and_grad_buffer.py: a bucket closes once it holds `bucket` parameters, at a
    // parameter's end, so the last one reduced holds the whole embedding.
    return std::min(1.0, std::max(bucket, static_cast<double>(embeddingParams)) / params);
}

int dpBucketCount(const Scenario &s, int stage, std::int64_t stageParams,
                  std::int64_t embeddingParams, int stageLayers, int stageTensors)
{
    if (stageParams <= 0)
        return 1;
    const FrameworkProfile &p = frameworkProfile(s.framework);
    const bool units =
        p.dpBuckets == DpBuckets::fsdpUnits || (p.dpBuckets == DpBuckets::megatron && s.zero >= 2);
    // torchtitan/distributed/fsdp.py, Megatron-FSDP's fsdp_unit_modules: a unit a layer, and
    // the embedding (with the rest of the root module) one more.
    if (!s.dpBucketParams && units)
        return std::max(1, stageLayers) + 1;
    const double params = static_cast<double>(stageParams);
    const auto count = [](double n, double bucket) {
        return static_cast<int>(std::min(1e6, std::ceil(n / bucket)));
    };
    const int tensors = std::max(1, stageTensors);
    if (p.dpBuckets == DpBuckets::fixed && !s.dpBucketParams)
        return std::clamp(count(params, p.dpBucketParams), 1, tensors);
    // Megatron-LM (distributed_data_parallel.py): bucket_size = None on a stage after the first
    // and on every model chunk after the first (training.py: disable_bucketing).
    const int chunks = chunksPerStage(s.schedule, s.virtualStages);
    if (stage > 0)
        return std::min(chunks, tensors);
    const double bucket = s.dpBucketParams ? *s.dpBucketParams : std::max(40e6, 1e6 * s.dp * s.cp);
    const double embedding = static_cast<double>(embeddingParams);
    const double first = (params - embedding) / chunks + embedding;
    const double edge = std::max(bucket, embedding); // a bucket closes at a parameter's end
    const int firstChunk =
        std::min(1 + count(std::max(0.0, first - edge), bucket), std::max(1, tensors / chunks));
    return std::min(firstChunk + (chunks - 1), tensors);
}

std::vector<std::string_view> changedFromProfile(const Scenario &s)
{
    std::vector<std::string_view> out;
    for (const ProfileSetting &setting : frameworkProfile(s.framework).settings)
        if (fieldText(s, setting.key) != setting.value)
            out.push_back(setting.key);
    return out;
}

std::string frameworkSummary(Framework framework, std::span<const std::string> changed)
{
    std::string out(frameworkProfile(framework).name);
    for (std::size_t i = 0; i < changed.size(); ++i)
        out += (i == 0 ? ", changed: " : ", ") + changed[i];
    return out;
}

std::string frameworkSummary(const Scenario &s)
{
    std::vector<std::string> changed;
    for (std::string_view key : changedFromProfile(s))
        changed.emplace_back(key);
    return frameworkSummary(s.framework, changed);
}

bool offersZero(Framework framework, int zero, int pp)
{
    // deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
    // parallelism".
    if (framework == Framework::deepspeed && pp > 1 && zero >= 2)
        return false;
    // torchtitan's ZeRO-1 is FSDP2 under pipelining; without pipelines FSDP2 reshards.
    if (framework == Framework::torchtitan && pp == 1 && zero == 1)
        return false;
    const auto stages = frameworkProfile(framework).zeroStages;
    return stages.empty() || std::find(stages.begin(), stages.end(), zero) != stages.end();
}

bool offersSchedule(Framework framework, Schedule schedule)
{
    const auto schedules = frameworkProfile(framework).schedules;
    return schedules.empty() ||
           std::find(schedules.begin(), schedules.end(), schedule) != schedules.end();
}

bool offersEndsInPipelineSplit(Framework framework, bool ends)
{
    return !ends || frameworkProfile(framework).countsEndsInSplit;
}

std::vector<std::string> unsupportedByFramework(const Scenario &s)
{
    std::vector<std::string> out;
    const FrameworkProfile &p = frameworkProfile(s.framework);
    const std::string name(p.name);
    // "a", "a or b", "a, b or c".
    const auto either = [](const std::vector<std::string> &items) {
        std::string text;
        for (std::size_t i = 0; i < items.size(); ++i)
            text += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
        return text;
    };
    if (!offersZero(s.framework, s.zero, s.pp)) {
        std::vector<std::string> stages;
        for (int z : p.zeroStages)
            if (offersZero(s.framework, z, s.pp))
                stages.push_back(std::to_string(z));
        // Say so when the pipeline (or its absence) rules the stage out.
        const bool elsewhere = offersZero(s.framework, s.zero, s.pp > 1 ? 1 : 2);
        out.push_back(
            name + " runs ZeRO stage " + either(stages) +
            (elsewhere ? (s.pp > 1 ? " with pipeline stages" : " without pipeline stages") : "") +
            ", not " + std::to_string(s.zero));
    }
    if (s.mode == Mode::training && selectiveKindDiffers(s, p))
        out.push_back(name + "'s selective recomputation is recompute=" +
                      std::string(toString(p.selectiveRecompute)) + ", not " +
                      std::string(toString(s.recompute)));
    if (s.mode == Mode::training && s.pp > 1 && !offersSchedule(s.framework, s.schedule)) {
        std::vector<std::string> schedules;
        for (Schedule sc : p.schedules)
            schedules.emplace_back(toString(sc));
        out.push_back(name + " runs the " + either(schedules) + " schedule, not " +
                      std::string(toString(s.schedule)));
    }
    if (s.mode == Mode::training && s.pp > 1 &&
        !offersEndsInPipelineSplit(s.framework, s.endsInPipelineSplit))
        out.push_back(name + " splits the layers without counting the embedding and the loss "
                             "as layers (ends_in_pipeline_split)");
    // Adam's moments in BF16 are Megatron-core's precision-aware optimizer
    // (megatron/core/optimizer/optimizer_config.py, exp_avg_dtype); torch.optim.AdamW keeps
    // them in the parameters' type, DeepSpeed's Adam in FP32.
    if (s.optimizerMoments == Precision::bf16 && s.mode == Mode::training &&
        (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed))
        out.push_back(name + "'s Adam keeps FP32 moments (optimizer_moments=bf16 is Megatron-LM's "
                             "--use-precision-aware-optimizer); counted in BF16 as set");
    // The batch-level overlap of the all-to-all is Megatron-core's combined 1F1B
    // (megatron/core/pipeline_parallel/combined_1f1b.py); neither torchtitan's nor DeepSpeed's
    // schedules pair a backward with a forward.
    if (s.epOverlap && s.mode == Mode::training &&
        (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed))
        out.push_back(name + " runs no micro-batch's all-to-all under another's computation "
                             "(ep_overlap is Megatron-LM's --overlap-moe-expert-parallel-comm)");
    // The LM head in FP8 is Megatron-core's fp8_output_proj (NVIDIA/Megatron-LM#4825);
    // torchtitan's converters skip the output layer (filter_fqns), and DeepSpeed has no such
    // setting.
    if (s.fp8LmHead && s.mode == Mode::training &&
        (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed))
        out.push_back(name + " keeps the LM head in 16 bits (fp8_lm_head is Megatron-core's "
                             "fp8_output_proj)");
    // The fused losses are Megatron-core's (--cross-entropy-loss-fusion); torchtitan and
    // DeepSpeed's models compute it with their own PyTorch operations.
    if (s.lossFusion != LossFusion::none && s.mode == Mode::training &&
        (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed))
        out.push_back(name + " computes the loss with its own operations (loss_fusion is "
                             "Megatron-LM's --cross-entropy-loss-fusion)");
    // torchtitan's device mesh (pp, dp_replicate, dp_shard, cp, tp:
    // torchtitan/distributed/parallel_dims.py) and DeepSpeed's topology (pipe, data, model:
    // deepspeed/runtime/pipe/topology.py) keep the pipeline outermost; only Megatron-LM takes
    // the other order (--use-tp-pp-dp-mapping).
    if (s.pp > 1 && s.rankOrder == RankOrder::pipelineInner &&
        (s.framework == Framework::torchtitan || s.framework == Framework::deepspeed))
        out.push_back(name + " numbers devices tp-cp-ep-dp-pp, the pipeline outermost, not "
                             "tp-cp-ep-pp-dp");
    return out;
}

} // namespace core
