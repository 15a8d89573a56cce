#include "ui/sources_dialog.h"

#include "ui/charts/chart_pages.h"
#include "ui/formula_panel.h"
#include "ui/scenario_document.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ui {

namespace {

// Works the program relies on, cited without links (docs/DESIGN.md §3).
const char *const kSources[] = {
    "Parascope's design and worked examples: docs/DESIGN.md and docs/worked-examples.md in "
    "the source repository, every formula with its source and every reproduced number with "
    "the command that reproduces it.",
    "Huang et al. 2019, “GPipe: Efficient Training of Giant Neural Networks using "
    "Pipeline Parallelism”, §2.3: the bubble (K−1)/(K−1+m) as a share of the step.",
    "Narayanan et al. 2021, “Efficient Large-Scale Language Model Training on GPU Clusters "
    "Using Megatron-LM”: §2.2 bubble (K−1)/(K−1+m), §2.2.2 interleaved (K−1)/(v·m+K−1), "
    "eq. 2 parameter count, §5.1 backward = 2 × forward.",
    "Qi et al. 2023, “Zero Bubble Pipeline Parallelism”, §3.1: ZB-H1 bubble (K−1)(F+B−W).",
    "DeepSeek-AI 2024, “DeepSeek-V3 Technical Report”, §3.2.1: DualPipe, a forward and a "
    "backward chunk overlapped as one pair; deepseek-ai/DualPipe, dualpipe.py: DualPipe's "
    "micro-batches entering at both ends, each device holding its stage of both directions, "
    "and its order in eight steps; dualpipev.py: DualPipeV's two chunks a device in a V and "
    "its order; and its README, “Pipeline Bubbles and Memory Usage Comparison”: the bubble "
    "(PP/2−1)(F&B+B−3W) and PP + 1 chunks of activations for both.",
    "NVIDIA/Megatron-LM, megatron/core/transformer/transformer_layer.py, "
    "get_transformer_layer_offset: the interleaved schedule's chunk c of stage s holding part "
    "c·K + s of the model; pipeline_parallel_layer_layout.py: the --pipeline-model-parallel-"
    "layout string (pipeline_layout) and its checks; pytorch/torchtitan, "
    "distributed/pipeline_parallel.py, _generate_llm_fqn_per_model_part: the embedding and the "
    "output counted as a layer each.",
    "Korthikanti et al. 2022, “Reducing Activation Recomputation in Large Transformer Models”, "
    "Table 2: activations per layer sbh(34 + 5as/h) and its tensor-, sequence-parallel and "
    "recomputation forms; §4.2.2 sequence parallelism.",
    "Rajbhandari et al. 2020, “ZeRO: Memory Optimizations Toward Training Trillion Parameter "
    "Models”, §3.1 (2 + 2 + 12 bytes per parameter), §5 (stages 1–3), Figure 1.",
    "Shoeybi et al. 2019, “Megatron-LM”, §3: column- then row-parallel MLP, one all-reduce "
    "after attention and one after the MLP.",
    "Patarasuk & Yuan 2009, “Bandwidth optimal all-reduce algorithms for clusters of "
    "workstations”: ring all-reduce sends 2(T−1)/T of the payload per device. NVIDIA/nccl, "
    "src/graph/tuning.cc: a collective's latency, a call and its ring steps (nodes − 1 a phase "
    "across the network), in the fastest of the Simple, LL128 and LL protocols; an all-reduce "
    "across nodes also by the tree, a gather or a reduce-scatter over one GPU a node by PAT.",
    "Brown et al. 2020, “Language Models are Few-Shot Learners”, Table 2.1 (GPT-3 175B); "
    "Dubey et al. 2024, “The Llama 3 Herd of Models”, Table 3 (Llama 3.1).",
    "Beltagy et al. 2020, “Longformer”, §3.1: a sliding window of w keys costs O(s·w), "
    "w − w²/2s keys a causal query; Jiang et al. 2023, “Mistral 7B”, §2: the rolling buffer "
    "cache keeps a windowed layer's last w tokens (sliding_window, full_attention_period).",
    "pytorch/pytorch#159251 (pipelining caches every micro-batch's output on the last stage) "
    "and #165822 (return_outputs=False).",
    "The loss's buffers: NVIDIA/Megatron-LM, megatron/core/tensor_parallel/cross_entropy.py (the "
    "FP32 softmax kept for the backward); NVIDIA/TransformerEngine#3193 (its Triton loss's FP32 "
    "gradient); pytorch/torchtitan, torchtitan/components/loss.py (F.cross_entropy over an FP32 "
    "copy), compiled with the model since pytorch/torchtitan#1033; Dao-AILab/quack#48 (a "
    "compiled cross-entropy's memory).",
    "llama.cpp block formats Q8_0 and Q4_0: 32 weights and one FP16 scale (8.5 and 4.5 bits).",
    "NVIDIA, “Introducing NVFP4 for Efficient and Accurate Low-Precision Inference”: 16 FP4 "
    "values and one FP8 scale (4.5 bits); NVIDIA/TransformerEngine v2.8, NVFP4BlockScaling "
    "and NVFP4Quantizer: the casts, and the cast copies sequence parallelism gathers; "
    "deepseek-ai/DeepGEMM#348: cuBLASLt's block-scaled FP4 multiply on a B200 "
    "(nvfp4_matmul_efficiency).",
    "Dao 2023, “FlashAttention-2”, §3.1: causal attention's FLOPs and its backward's 2.5 ×; "
    "Shah et al. 2024, “FlashAttention-3”, Figures 5 and 6: cuDNN's, FlashAttention-2's and "
    "-3's rates on an H100 at head dimension 128 (attention flash, flash2, flash3), and at 64 "
    "and 256 (attention_head_widths); "
    "meta-pytorch/tritonbench#171: FlashAttention-2's on a B200; NVIDIA/cudnn-frontend, "
    "benchmark/sdpa_benchmark_training and benchmark/benchmark_results.csv: cuDNN's rates "
    "from 2,048 to 8,192 tokens on GB200, GB300 and H200, a block's fixed work "
    "(attention_block_overhead) that slows short key loops, and at latent attention's, "
    "256's and a windowed 64's head widths (attention_head_widths).",
    "pytorch/torchtitan, torchtitan/distributed/activation_checkpoint.py (SelectiveAC): the "
    "per-op recomputation (recompute=op), every second multiply rerun. NVIDIA/Megatron-LM, "
    "megatron/core/transformer/transformer_block.py (_checkpointed_forward): the block method, "
    "the first N layers of each chunk recomputed (recompute_layers).",
    "NVIDIA/TransformerEngine, docs/features/other_optimizations/cpu_offloading and "
    "transformer_engine/pytorch/cpu_offload.py (DefaultOffloadSynchronizer): activation "
    "offloading as Transformer Engine schedules it, the first N layers' saved tensors copied "
    "to host memory in the forward and back before their backward (offload_layers); "
    "NVIDIA/Megatron-LM, megatron/core/transformer/transformer_config.py: offloading refused "
    "with pipeline parallelism and with activation recomputation.",
    "NVIDIA/nvbandwidth#24: a GPU's copy to pinned host memory, 52.77 GB/s of PCIe Gen5 x16's "
    "64 GB/s a direction on an H100, the default host_efficiency.",
    "NVIDIA DGX A100, DGX H100, DGX H200 and DGX B200 datasheets (2 TB of system memory for 8 "
    "GPUs), Lambda's MLPerf Training v6.0 B200 system (PCIe Gen5 x16 to the host), the "
    "NVIDIA GB200 NVL72 specifications (480 GB of LPDDR5X a Grace CPU for two GPUs) and NVIDIA's "
    "MLPerf Training v6.0 system descriptions (CoreWeave's: 960 GiB of LPDDR5X a four-GPU GB300 "
    "tray): the host memory "
    "offloaded activations must fit in (host_memory_gb).",
    "Device data sheets: NVIDIA A100, H100, H200, DGX B200; AMD Instinct MI300X; SambaNova "
    "SN40L (Prabhakar et al. 2024) — see each preset's source. NVIDIA Technical Blog, "
    "“Inside NVIDIA Blackwell Ultra”: the B300's and GB300's GPU (160 SMs on the full die, "
    "15 PFLOPS dense NVFP4, 8 TB/s). facebookexperimental/triton#740 and #2023: cuBLAS "
    "multiplies on a GB300, and the clock its 1,400 W holds through them, so its kernels take "
    "their short-burst rates; the same repository's bitequiv/cublas_match/arch: 152 SMs on "
    "the GB200 and the GB300 (compute_units). NVIDIA/nccl#2421: NCCL's ring "
    "launches 32 blocks a kernel on Blackwell, the SMs a hidden collective holds there. NVIDIA, "
    "“CUDA GPU Compute Capability”: each NVIDIA preset's compute_capability; "
    "NVIDIA/TransformerEngine, pytorch/attention/dot_product_attention/utils.py: no FP8 "
    "attention with learned sinks below 10.0; NVIDIA/cudnn-frontend's H200 results: cuDNN "
    "9.19's FP8 attention at head dimension 128 only. AMD ROCm blog, “Measuring "
    "Max-Achievable FLOPs – Part 2”: the MI300X's and MI325X's BF16 and FP8 multiplies; "
    "ROCm/aiter, op_tests/cpp/mha/README.md: the FAv3 attention kernels on the MI300X and "
    "MI355X.",
    "NVIDIA/Megatron-LM, megatron/training/arguments.py: --fp8-param-gather (fp8_params), off "
    "by default, so FP8 training keeps BF16 weights unless it is given; "
    "megatron/training/initialize.py: rank order tp-cp-ep-dp-pp, or tp-cp-ep-pp-dp with "
    "--use-tp-pp-dp-mapping (rank_order).",
    "NVIDIA/TransformerEngine, transformer_engine/pytorch/module/linear.py (saved_inputmat): "
    "FP8 and NVFP4 projections keep their cast inputs for the weight gradient; "
    "pytorch/ao, torchao/float8/float8_linear.py: Float8Linear keeps 16-bit ones; "
    "NVIDIA/Megatron-LM, megatron/core/transformer/attention.py (set_save_original_input): "
    "the output projection's copy avoided except under delayed scaling "
    "(save_quantized_inputs).",
    "NVIDIA/TransformerEngine, transformer_engine/pytorch/module/linear.py and base.py "
    "(_fp8_workspaces, quantize_weight): a 16-bit weight's FP8 or NVFP4 cast kept from the "
    "step's first micro-batch when the caller passes is_first_microbatch, as Megatron-core's "
    "TELinear does (megatron/core/extensions/transformer_engine.py); csrc/quantizer.cpp: the "
    "transpose beside the data where FP8 multiplies take the TN layout only "
    "(nvte_is_non_tn_fp8_gemm_supported, common/transformer_engine.cpp), MXFP8's and NVFP4's "
    "row-wise and column-wise copies with their scales; tensor/utils.py "
    "(post_all_gather_processing): FP8 weights' transposes made after each gather on such "
    "devices (fp8_weight_cache). mlcommons/training_results_v4.0 to v5.1, each Llama 2 70B "
    "LoRA implementation's megatron_gpt_peft_tuning_config.yaml, and NVIDIA-NeMo/"
    "Megatron-Bridge's llama3_llm_finetune.py: disable_parameter_transpose_cache, the cache "
    "off.",
    "NVIDIA/TransformerEngine, tensor/storage/mxfp8_tensor_storage.py (update_usage): an MXFP8 "
    "weight's column-wise copy comes only from the quantizing kernel, so it is held from the "
    "start; NVIDIA/Megatron-LM, megatron/core/distributed/param_and_grad_buffer.py "
    "(reuse_grad_buf_for_mxfp8_param_ag, _post_param_sync): MXFP8 weights gathered in BF16 "
    "through the gradient buffer and quantized after each gather, in the first micro-batch's "
    "forward with Transformer Engine's cached casts (docs/step_time.md, “Weight casts”).",
    "NVIDIA/Megatron-LM, megatron/core/optimizer/optimizer_config.py "
    "(use_precision_aware_optimizer, exp_avg_dtype, exp_avg_sq_dtype): Adam's moments in BF16 "
    "beside FP32 master weights, as Megatron-Bridge's DeepSeek-V3 recipes run it; DeepSeek-AI "
    "2024, “DeepSeek-V3 Technical Report”, §3.3.3: AdamW's moments tracked in BF16 "
    "(optimizer_moments).",
    "NVIDIA/Megatron-LM, megatron/core/distributed/: the data-parallel group with context "
    "parallelism, buckets of max(40M, 1M × D·C) parameters (distributed_data_parallel.py) "
    "reduced and gathered one after another (param_and_grad_buffer.py): dp_bucket_params.",
    "NVIDIA/nccl#689 and #1703: a channel moves what one SM moves, two a link fill NVLink, so "
    "a collective capped to fewer CTAs (dp_collective_units) moves that share.",
    "Hu et al. 2021, “LoRA: Low-Rank Adaptation of Large Language Models”, §4.1: the frozen "
    "weights and the rank-r adapters beside them (lora_rank); NVIDIA-NeMo/Megatron-Bridge, "
    "src/megatron/bridge/peft/lora.py and utils.py (ParallelLinearAdapter): the projections "
    "they sit beside (lora_modules), their tensor-parallel collectives and all-to-all "
    "(lora_a2a), and the dropout of their inputs before A (lora_dropout), as MLPerf "
    "Training's Llama 2 70B LoRA runs it (mlcommons/training_results_v5.1, train.py); "
    "NVIDIA-NeMo/Automodel, nemo_automodel/components/_peft/lora.py: the dropout of B's output "
    "(lora_dropout_position post).",
    "pytorch/pytorch, torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py (foreach_reduce): "
    "hybrid sharding reduce-scatters within a replica, then all-reduces the shard across the "
    "replicas (zero_replicas; set_requires_all_reduce defers it: defer_replica_reduce); "
    "pytorch/torchtitan, torchtitan/distributed/parallel_dims.py: the dp_replicate × dp_shard "
    "× cp mesh; NVIDIA/Megatron-LM --num-distributed-optimizer-instances.",
    "The step time checked against published runs (docs/step_time.md, “Validation”): "
    "Narayanan et al. 2021, Table 1; Korthikanti et al. 2022, Tables 4 and 5; the Megatron-LM "
    "README; the Megatron-Bridge performance summary; NVIDIA/dgxc-benchmarking; the Nemotron-4 "
    "340B Technical Report, Table 2; MLPerf Training v3.0 to v5.1 results and logs "
    "(mlcommons/training_results_v3.0 to _v5.1).",
};

} // namespace

SourcesDialog::SourcesDialog(const ScenarioDocument *document, QWidget *parent)
    : QDialog(parent), m_browser(new QTextBrowser)
{
    setWindowTitle(tr("Formulas & sources"));
    resize(760, 640);
    const ChartInputs inputs{document->lastValidScenario(), document->presets(),
                             document->lastValidReport()};
    QString html = tr("<h2>Formulas, with the current scenario's numbers</h2>");
    for (const auto &page : createChartPages())
        html += QStringLiteral("<h3>%1</h3>%2").arg(page->subject(), formula::html(*page, inputs));
    html += tr("<h2>Sources</h2><ul>");
    for (const char *source : kSources)
        html += QStringLiteral("<li>%1</li>").arg(QString::fromUtf8(source).toHtmlEscaped());
    html += QStringLiteral("</ul>");
    m_browser->setHtml(html);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
}

QString SourcesDialog::text() const
{
    return m_browser->toPlainText();
}

} // namespace ui
