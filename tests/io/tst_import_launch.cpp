// Megatron-LM argument lists and torchtitan job TOMLs, read into scenarios and written back
// (docs/import.md): the frameworks' published example files, refusals that name the file's
// field, and round trips through what Parascope emits.
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/framework.h"
#include "io/framework_config.h"
#include "io/presets_io.h"

#include <QFile>
#include <QTest>
#include <algorithm>
#include <optional>
#include <string>

using namespace core;

namespace {

QByteArray readData(const QString &relative)
{
    QFile file(QStringLiteral(PARASCOPE_SOURCE_DIR "/tests/data/configs/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

bool hasName(const std::vector<io::ConfigField> &fields, const QString &name)
{
    return std::any_of(fields.begin(), fields.end(),
                       [&](const io::ConfigField &f) { return f.name == name.toStdString(); });
}

bool hasName(const std::vector<io::IgnoredField> &fields, const QString &name)
{
    return std::any_of(fields.begin(), fields.end(),
                       [&](const io::IgnoredField &f) { return f.name == name.toStdString(); });
}

// Whether a line of `lines` has `part` in it.
bool contains(const std::vector<std::string> &lines, const QString &part)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &line) {
        return line.find(part.toStdString()) != std::string::npos;
    });
}

// The scenario keys each framework's file carries, so a round trip gives them back: the
// layout both carry, and what Megatron-LM's flags add.
const QStringList kTorchtitanKeys{"framework",
                                  "model",
                                  "tp",
                                  "pp",
                                  "cp",
                                  "dp",
                                  "ep",
                                  "expert_tp",
                                  "microbatches",
                                  "microbatch_size",
                                  "seq_len",
                                  "recompute",
                                  "zero",
                                  "schedule",
                                  "virtual_stages",
                                  "precision",
                                  "sequence_parallel",
                                  "tp_overlap",
                                  "cp_exchange",
                                  "ep_dispatcher",
                                  "pipeline_layout",
                                  "ends_in_pipeline_split",
                                  "zero_replicas"};
const QStringList kMegatronKeys =
    kTorchtitanKeys +
    QStringList{"grad_precision", "fused_swiglu",        "fused_grad_accumulation",
                "attention",      "dp_overlap",          "fp8_scaling",
                "rank_order",     "fp8_activation_input"};

} // namespace

class TestImportLaunch : public QObject
{
    Q_OBJECT

    Presets m_presets = io::builtinPresets();

    // Llama 3 8B's Megatron-LM arguments on 8 devices, with `flags` after them.
    std::variant<io::ImportedConfig, InputError> importLlama8b(const QByteArray &flags,
                                                               const Scenario &base = {}) const
    {
        const QByteArray args = "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
                                "--group-query-attention --num-query-groups 8 "
                                "--ffn-hidden-size 14336 --swiglu --vocab-size 128256 --bf16 "
                                "--position-embedding-type rope --normalization RMSNorm "
                                "--disable-bias-linear --untie-embeddings-and-output-weights " +
                                flags + "\n";
        io::ImportOptions options;
        options.devices = 8;
        return io::importConfig(args, base, m_presets, options);
    }

    // The same with 64 experts of 1,792, top-8, over E = 8.
    std::variant<io::ImportedConfig, InputError> importLlama8bExperts(const QByteArray &flags,
                                                                      const Scenario &base) const
    {
        return importLlama8b("--num-experts 64 --moe-router-topk 8 --moe-ffn-hidden-size 1792 "
                             "--expert-model-parallel-size 8 " +
                                 flags,
                             base);
    }

    // An import written back as Megatron-LM arguments on 8 devices (`script`), and the scenario
    // they read as from `start`; nothing when either step fails.
    std::optional<Scenario> writtenBackAndRead(const io::ImportedConfig &imported,
                                               const Scenario &start, std::string &script) const
    {
        io::ImportOptions options;
        options.devices = 8;
        if (!throughMegatron(imported, options, &script))
            return std::nullopt;
        const auto again =
            io::importConfig(QByteArray::fromStdString(script), start, m_presets, options);
        const auto *reread = std::get_if<io::ImportedConfig>(&again);
        if (!reread || !reread->scenario)
            return std::nullopt;
        return *reread->scenario;
    }

    // A refusal a row expects: the flag it names and a word of its message.
    static void expectRefusal(const InputError &error, const QString &flag, const QString &mention)
    {
        QVERIFY2(!flag.isEmpty(), error.toString().c_str());
        QCOMPARE(QString::fromStdString(error.key), flag);
        QVERIFY2(error.message.find(mention.toStdString()) != std::string::npos,
                 error.message.c_str());
    }

    // An imported scenario written back as Megatron-LM arguments with its model inline, and
    // read again: the model they describe (its source set to the original's), or nothing.
    std::optional<ModelSpec> throughMegatron(const io::ImportedConfig &imported,
                                             const io::ImportOptions &options,
                                             std::string *arguments = nullptr) const
    {
        Scenario s = *imported.scenario;
        s.customModel = *imported.model;
        const auto emitted = io::emitConfig(s, m_presets, Framework::megatron);
        const auto *text = std::get_if<std::string>(&emitted);
        if (!text)
            return std::nullopt;
        if (arguments)
            *arguments = *text;
        const auto again =
            io::importConfig(QByteArray::fromStdString(*text), Scenario{}, m_presets, options);
        const auto *back = std::get_if<io::ImportedConfig>(&again);
        if (!back || !back->model)
            return std::nullopt;
        ModelSpec model = *back->model;
        model.source = imported.model->source;
        return model;
    }

    // A scenario written as Megatron-LM arguments (empty when it cannot be), and the report of
    // the scenario they read back to (an error report when they do not read).
    std::pair<std::string, Report> megatronRoundTrip(const Scenario &s) const
    {
        const auto emitted = io::emitConfig(s, m_presets, Framework::megatron);
        const auto *text = std::get_if<std::string>(&emitted);
        if (!text)
            return {};
        const auto back =
            io::importConfig(QByteArray::fromStdString(*text), Scenario{}, m_presets, {});
        Report read;
        if (const auto *error = std::get_if<InputError>(&back))
            read.error = *error;
        else
            read = evaluate(*std::get<io::ImportedConfig>(back).scenario, m_presets);
        return {*text, read};
    }

private Q_SLOTS:
    void importFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("devices"); // 0: from the file or the starting scenario
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("microbatchSize");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<bool>("sequenceParallel");
        QTest::addColumn<bool>("tpOverlap");
        QTest::addColumn<QStringList>("read");
        QTest::addColumn<QStringList>("ignored");
        // A published run on the H100s the file names: it trained, so it fits one.
        QTest::addColumn<bool>("fitsH100");

        // examples/llama/train_llama3_8b_h100_fp8.sh: torchrun 8 x 1 = 8 devices, T1 C1 K1,
        // so D = 8 and m = 128 / (1 x 8) = 16; --sequence-parallel is off with T = 1
        // (arguments.py); the mock-data branch gives --vocab-size 128256.
        QTest::addRow("Megatron-LM Llama 3 8B FP8 script")
            << "megatron/train_llama3_8b_h100_fp8.sh" << 0 << "llama-3.1-8b" << 1 << 1 << 1 << 8
            << 16 << 1 << 8192 << "none" << 1 << "fp8"
            << "1f1b" << 1 << false << false
            << QStringList{"--fp8-format",          "--use-distributed-optimizer",
                           "--nproc_per_node",      "--global-batch-size",
                           "--vocab-size",          "--num-query-groups",
                           "--grad-reduce-in-bf16", "--fp8-param-gather",
                           "--overlap-param-gather"}
            << QStringList{"--use-mcore-models",     "--lr",       "--save", "--tokenizer-type",
                           "--fp8-amax-history-len", "--node_rank"}
            << true;
        // examples/gpt3/train_gpt3_175b_distributed.sh on 16 nodes: 128 devices, T8 K16,
        // D = 1, m = 1,536 / (1 x 1); FP16; the vocabulary is GPT-2's from --vocab-file.
        QTest::addRow("Megatron-LM GPT-3 175B script")
            << "megatron/train_gpt3_175b_distributed.sh" << 0 << "gpt-3-175b" << 8 << 16 << 1 << 1
            << 1536 << 1 << 2048 << "none" << 0 << "fp16"
            << "1f1b" << 1 << false << false
            << QStringList{"--fp16", "--pipeline-model-parallel-size", "--nnodes",
                           "--max-position-embeddings"}
            << QStringList{"--vocab-file", "--merge-file", "--lr", "--save", "--master_addr"}
            << false;
        // 512 devices over T8 K4: D = 16, m = 1,024 / (1 x 16) = 64; 80 layers / K4 / 5
        // per chunk = 4 chunks; --micro-batch-size given twice, the last (1) counts.
        QTest::addRow("Megatron-LM Llama 3.1 70B argument list")
            << "megatron/llama31_70b_args.txt" << 512 << "llama-3.1-70b" << 8 << 4 << 1 << 16 << 64
            << 1 << 4096 << "selective" << 1 << "bf16"
            << "interleaved" << 4 << true << false
            << QStringList{"--num-layers-per-virtual-pipeline-stage", "--micro-batch-size",
                           "--recompute-granularity", "--sequence-parallel"}
            << QStringList{"--micro-batch-size", "--tokenizer-model", "--transformer-impl",
                           "--log-interval"}
            << false;
        // torchtitan llama3_8b.toml, "a preset for 64 A100 GPUs": shard -1 = 64, FSDP2
        // without pipelining is ZeRO-3; b = local_batch_size 1, one step; op-level SAC.
        QTest::addRow("torchtitan llama3_8b.toml")
            << "torchtitan/llama3_8b.toml" << 64 << "llama-3.1-8b" << 1 << 1 << 1 << 64 << 1 << 1
            << 8192 << "op" << 3 << "bf16"
            << "1f1b" << 1 << false << false
            << QStringList{"model.flavor", "parallelism.data_parallel_shard_degree",
                           "training.local_batch_size", "activation_checkpoint.mode",
                           "compile.enable"}
            << QStringList{"optimizer.lr", "job.dump_folder", "metrics.log_freq",
                           "quantize.linear.float8.filter_fqns", "validation.freq"}
            << false;
        // torchtitan llama3_405b.toml, "a preset for 128 H100 GPUs": T8, shard -1 = 16,
        // local batch 2, full AC, float8 converter, async TP.
        QTest::addRow("torchtitan llama3_405b.toml")
            << "torchtitan/llama3_405b.toml" << 128 << "llama-3.1-405b" << 8 << 1 << 1 << 16 << 1
            << 2 << 8192 << "full" << 3 << "fp8"
            << "1f1b" << 1 << true << true
            << QStringList{"model.converters", "parallelism.enable_async_tensor_parallel",
                           "parallelism.tensor_parallel_degree",
                           "quantize.linear.float8.enable_fsdp_float8_all_gather"}
            << QStringList{"lr_scheduler.warmup_steps", "checkpoint.interval",
                           "model.hf_assets_path"}
            << false;
    }
    void importFile()
    {
        QFETCH(QString, file);
        QFETCH(int, devices);
        const QByteArray content = readData(file);
        QVERIFY2(!content.isEmpty(), qPrintable(file));
        io::ImportOptions options;
        if (devices > 0)
            options.devices = devices;
        options.fileName = file.section(QLatin1Char('/'), -1).toStdString();
        const auto result = io::importConfig(content, Scenario{}, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QVERIFY2(!imported.model, "a preset model is matched, not imported");
        const Scenario &s = *imported.scenario;
        const auto text = [&](const char *key) {
            return QString::fromStdString(fieldText(s, key));
        };
        QTEST(text("model"), "model");
        QTEST(s.tp, "tp");
        QTEST(s.pp, "pp");
        QTEST(s.cp, "cp");
        QTEST(s.dp, "dp");
        QTEST(s.microbatches, "microbatches");
        QTEST(s.microbatchSize, "microbatchSize");
        QTEST(s.seqLen, "seqLen");
        QTEST(text("recompute"), "recompute");
        QTEST(s.zero, "zero");
        QTEST(text("precision"), "precision");
        QTEST(text("schedule"), "schedule");
        QTEST(s.virtualStages, "virtualStages");
        QTEST(s.sequenceParallel, "sequenceParallel");
        QTEST(s.tpOverlap, "tpOverlap");
        // torchtitan's async TP is read as tp_overlap, with the caveat that the model times
        // Transformer Engine's userbuffers (docs/step_time.md).
        if (s.framework == Framework::torchtitan && s.tpOverlap)
            QVERIFY(std::any_of(
                imported.assumptions.begin(), imported.assumptions.end(),
                [](const std::string &a) { return a.find("userbuffers") != std::string::npos; }));
        QFETCH(QStringList, read);
        for (const QString &name : read)
            QVERIFY2(hasName(imported.read, name), qPrintable(name));
        QFETCH(QStringList, ignored);
        for (const QString &name : ignored)
            QVERIFY2(hasName(imported.ignored, name), qPrintable(name));
        // Every setting is accounted for, and the summary lists it.
        const std::string summary = io::importSummary(imported);
        for (const auto &field : imported.read)
            QVERIFY(summary.find(field.name) != std::string::npos);
        QFETCH(bool, fitsH100);
        if (fitsH100) {
            const Report r = evaluate(s, m_presets);
            QVERIFY(r.ok());
            QCOMPARE(text("device"), QStringLiteral("h100-sxm"));
            QVERIFY2(r.fits, r.warnings.empty() ? "" : r.warnings.front().message.c_str());
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("devices");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("mentions");

        // T2 on 4 devices: D = 2; b x D = 4 does not divide 6.
        QTest::addRow("global batch not whole micro-batches")
            << QByteArray("--tensor-model-parallel-size 2 --micro-batch-size 2 "
                          "--global-batch-size 6 --num-layers 2 --hidden-size 64 "
                          "--num-attention-heads 4 --vocab-size 100 "
                          "--max-position-embeddings 128\n")
            << 4 << "--global-batch-size"
            << "2 x 2 = 4";
        QTest::addRow("a flag without its value")
            << QByteArray("--tensor-model-parallel-size --pipeline-model-parallel-size 4\n") << 8
            << "--tensor-model-parallel-size"
            << "expects a value";
        QTest::addRow("the last flag without its value")
            << QByteArray("--pipeline-model-parallel-size 4 \\\n  --seq-length\n") << 8
            << "--seq-length"
            << "expects a value";
        QTest::addRow("unbalanced quote")
            << QByteArray("--tensor-model-parallel-size 8 \\\n  --split '99,1,0 \\\n"
                          "  --seq-length 4096\n")
            << 8 << "--split"
            << "unbalanced quote";
        QTest::addRow("world size not a multiple of T x C x K")
            << QByteArray("--tensor-model-parallel-size 8 --pipeline-model-parallel-size 1\n") << 12
            << "devices"
            << "T x C x K = 8 x 1 x 1 = 8";
        QTest::addRow("unknown torchtitan flavor")
            << QByteArray("[model]\nname = \"llama3\"\nflavor = \"7B\"\n") << 8 << "model.flavor"
            << "llama3 8B";
        QTest::addRow("TOML syntax error")
            << QByteArray("[model]\nname = \"llama3\"\n[parallelism]\n"
                          "tensor_parallel_degree = = 8\n")
            << 8 << "parallelism.tensor_parallel_degree"
            << "line 4";
        // local 2 x D 2 = 4 does not divide 5 (train.py's gradient accumulation check).
        QTest::addRow("torchtitan global batch")
            << QByteArray("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n"
                          "local_batch_size = 2\nglobal_batch_size = 5\n[parallelism]\n"
                          "data_parallel_shard_degree = 2\n")
            << 2 << "training.global_batch_size"
            << "2 x 2 = 4";
        QTest::addRow("torchtitan shard degree against the world")
            << QByteArray("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
                          "tensor_parallel_degree = 8\ndata_parallel_shard_degree = -1\n")
            << 12 << "parallelism.data_parallel_shard_degree"
            << "12";
    }
    void refusals()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, devices);
        io::ImportOptions options;
        options.devices = devices;
        const auto result = io::importConfig(content, Scenario{}, m_presets, options);
        const auto *error = std::get_if<InputError>(&result);
        QVERIFY(error);
        QTEST(QString::fromStdString(error->key), "key");
        QFETCH(QString, mentions);
        QVERIFY2(error->message.find(mentions.toStdString()) != std::string::npos,
                 error->message.c_str());
    }

    // torch.compile fuses the norms, RoPE and feed-forward of the model it compiles
    // (docs/frameworks.md): compile.enable, or the older training.compile, with "model" among
    // compile.components when they are listed; without compile torchtitan's profile runs them
    // eager.
    void torchtitanCompileFuses_data()
    {
        QTest::addColumn<QByteArray>("compile");
        QTest::addColumn<bool>("fused");
        QTest::addRow("no [compile]: the profile's eager model") << QByteArray() << false;
        QTest::addRow("compile.enable = true") << QByteArray("[compile]\nenable = true\n") << true;
        QTest::addRow("compile.enable = false")
            << QByteArray("[compile]\nenable = false\n") << false;
        QTest::addRow("the loss alone compiled")
            << QByteArray("[compile]\nenable = true\ncomponents = [\"loss\"]\n") << false;
        QTest::addRow("model and loss compiled")
            << QByteArray("[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n") << true;
        QTest::addRow("the older training.compile")
            << QByteArray("[training]\ncompile = true\n") << true;
    }
    void torchtitanCompileFuses()
    {
        QFETCH(QByteArray, compile);
        io::ImportOptions options;
        options.devices = 8;
        const QByteArray content = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n" + compile;
        const auto result = io::importConfig(content, Scenario{}, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QTEST(imported.scenario->fusedElementwise, "fused");
        if (!compile.isEmpty())
            QVERIFY(std::any_of(imported.read.begin(), imported.read.end(),
                                [](const auto &r) { return r.key == "fused_elementwise"; }));
    }

    // parallelism.pipeline_parallel_schedule on Llama 3 8B's 32 layers, K = 4 of 8 devices:
    // get_schedule_class's names (torch/distributed/pipelining/schedules.py), the stages
    // torchtitan builds (torchtitan/distributed/pipeline_parallel.py: ceil((layers + first less
    // + last less) / layers_per_stage), 2 a rank by default for a multi-stage schedule, exactly
    // 2 for the "v" placement of ZBVZeroBubble and DualPipeV) and ScheduleDualPipeV's "at least
    // as many microbatches as stages".
    void torchtitanSchedule_data()
    {
        QTest::addColumn<QByteArray>("parallelism"); // lines under [parallelism]
        QTest::addColumn<QByteArray>("training");    // lines under [training]
        QTest::addColumn<QString>("schedule");       // empty: refused
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<bool>("approximated");
        QTest::addColumn<QString>("key");     // refused: the field named
        QTest::addColumn<QString>("mention"); // refused: a word of the message
        QTest::addRow("1F1B") << QByteArray("pipeline_parallel_schedule = \"1F1B\"\n")
                              << QByteArray() << "1f1b" << 1 << false << ""
                              << "";
        QTest::addRow("Interleaved1F1B, 2 stages a rank by default")
            << QByteArray("pipeline_parallel_schedule = \"Interleaved1F1B\"\n") << QByteArray()
            << "interleaved" << 2 << false << ""
            << "";
        // ceil((32 + 1 + 1) / 3) = 12 stages, 3 a rank.
        QTest::addRow("Interleaved1F1B, 3 layers a stage")
            << QByteArray("pipeline_parallel_schedule = \"Interleaved1F1B\"\n"
                          "pipeline_parallel_layers_per_stage = 3\n")
            << QByteArray() << "interleaved" << 3 << false << ""
            << "";
        QTest::addRow("ZBVZeroBubble, read as ZB-H1")
            << QByteArray("pipeline_parallel_schedule = \"ZBVZeroBubble\"\n") << QByteArray()
            << "zb-h1" << 1 << true << ""
            << "";
        QTest::addRow("ZBVZeroBubble, 3 stages a rank")
            << QByteArray("pipeline_parallel_schedule = \"ZBVZeroBubble\"\n"
                          "pipeline_parallel_layers_per_stage = 3\n")
            << QByteArray() << "" << 0 << false << "parallelism.pipeline_parallel_layers_per_stage"
            << "makes 12 stages; ZBVZeroBubble places exactly two on each rank";
        // local_batch_size 8 / micro-batch 1 = 8 = 2K micro-batches.
        QTest::addRow("DualPipeV, exactly")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n")
            << QByteArray("local_batch_size = 8\n") << "dualpipev" << 1 << false << ""
            << "";
        // 32 / 4 = 8 stages with no lighter ends: 2 a rank.
        QTest::addRow("DualPipeV, 4 layers a stage, no lighter ends")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n"
                          "pipeline_parallel_layers_per_stage = 4\n"
                          "pipeline_parallel_first_stage_less_layers = 0\n"
                          "pipeline_parallel_last_stage_less_layers = 0\n")
            << QByteArray("local_batch_size = 16\n") << "dualpipev" << 1 << false << ""
            << "";
        QTest::addRow("DualPipeV, 3 stages a rank")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n"
                          "pipeline_parallel_layers_per_stage = 3\n")
            << QByteArray("local_batch_size = 16\n") << "" << 0 << false
            << "parallelism.pipeline_parallel_layers_per_stage"
            << "makes 12 stages; DualPipeV places exactly two on each rank: 2 x "
               "pipeline_parallel_degree = 8";
        QTest::addRow("DualPipeV, 4 micro-batches for 8 stages")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n")
            << QByteArray("local_batch_size = 4\n") << "" << 0 << false
            << "training.local_batch_size"
            << "4 micro-batches a pipeline; DualPipeV needs at least one a stage: 2 x "
               "pipeline_parallel_degree = 8";
        // Two accumulation steps (16 / (4 x D 2)) of 4 micro-batches each: Parascope's one
        // pipeline would have 8, each of torchtitan's has 4.
        QTest::addRow("DualPipeV, 4 micro-batches a step over two steps")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n")
            << QByteArray("local_batch_size = 4\nglobal_batch_size = 16\n") << "" << 0 << false
            << "training.local_batch_size"
            << "= 4 micro-batches a pipeline";
        QTest::addRow("DualPipeV, the older training.batch_size")
            << QByteArray("pipeline_parallel_schedule = \"DualPipeV\"\n")
            << QByteArray("batch_size = 6\n") << "" << 0 << false << "training.batch_size"
            << "6 micro-batches a pipeline";
    }
    void torchtitanSchedule()
    {
        QFETCH(QByteArray, parallelism);
        QFETCH(QByteArray, training);
        QFETCH(QString, schedule);
        io::ImportOptions options;
        options.devices = 8;
        const QByteArray content = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n" +
                                   training + "[parallelism]\npipeline_parallel_degree = 4\n" +
                                   parallelism;
        const auto result = io::importConfig(content, Scenario{}, m_presets, options);
        if (schedule.isEmpty()) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QTEST(QString::fromStdString(error->key), "key");
            QFETCH(QString, mention);
            QVERIFY2(error->message.find(mention.toStdString()) != std::string::npos,
                     error->message.c_str());
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(QString::fromStdString(fieldText(*imported.scenario, "schedule")), schedule);
        QTEST(imported.scenario->virtualStages, "virtualStages");
        QVERIFY(hasName(imported.read, "parallelism.pipeline_parallel_schedule"));
        // An approximated schedule is listed under "Not in the file", by its torchtitan name.
        const std::string name =
            fieldText(*imported.scenario, "schedule") == "zb-h1" ? "ZBVZeroBubble" : "DualPipeV";
        QTEST(std::any_of(imported.assumptions.begin(), imported.assumptions.end(),
                          [&](const std::string &a) { return a.find(name) != std::string::npos; }),
              "approximated");
    }

    // Imported settings (megatronSettingFlags) are written back: the emitted launch script has
    // --fp8-param-gather exactly when fp8_params is true, --activation-func-fp8-input-store
    // when fp8_activation_input is, and --ddp-bucket-size when dp_bucket_params is set.
    void settingsWrittenBack_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<QString>("written"); // in the emitted script
        QTest::addColumn<bool>("present");
        QTest::addRow("BF16 weights")
            << QByteArray("--fp8-format hybrid") << "--fp8-param-gather" << false;
        QTest::addRow("FP8 weights")
            << QByteArray("--fp8-format hybrid --fp8-param-gather") << "--fp8-param-gather" << true;
        QTest::addRow("the SwiGLU input in 16 bits")
            << QByteArray("") << "--activation-func-fp8-input-store" << false;
        QTest::addRow("the SwiGLU input in FP8") << QByteArray("--activation-func-fp8-input-store")
                                                 << "--activation-func-fp8-input-store" << true;
        QTest::addRow("the first 21 layers recomputed")
            << QByteArray("--recompute-granularity full --recompute-method block "
                          "--recompute-num-layers 21")
            << "--recompute-method block \\\n    --recompute-num-layers 21" << true;
        QTest::addRow("every layer recomputed")
            << QByteArray("--recompute-granularity full")
            << "--recompute-method uniform \\\n    --recompute-num-layers 1" << true;
        QTest::addRow("the framework's buckets")
            << QByteArray("--overlap-grad-reduce") << "--ddp-bucket-size" << false;
        QTest::addRow("768M-parameter buckets")
            << QByteArray("--overlap-grad-reduce --ddp-bucket-size 768000000")
            << "--ddp-bucket-size 768000000" << true;
        QTest::addRow("FP32 moments")
            << QByteArray("") << "--use-precision-aware-optimizer" << false;
        QTest::addRow("BF16 moments")
            << QByteArray("--use-precision-aware-optimizer --exp-avg-dtype bf16 "
                          "--exp-avg-sq-dtype bf16")
            << "--use-precision-aware-optimizer \\\n    --exp-avg-dtype bf16 \\\n    "
               "--exp-avg-sq-dtype bf16"
            << true;
    }
    void settingsWrittenBack()
    {
        QFETCH(QByteArray, flags);
        QFETCH(QString, written);
        QFETCH(bool, present);
        const auto result = importLlama8b(flags);
        const auto *imported = std::get_if<io::ImportedConfig>(&result);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        QVERIFY(imported && imported->scenario);
        std::string script;
        io::ImportOptions options;
        options.devices = 8;
        QVERIFY(throughMegatron(*imported, options, &script));
        QVERIFY2((script.find(written.toStdString()) != std::string::npos) == present,
                 script.c_str());
    }

    // parallelism.expert_parallel_comm_backend, torchtitan's dispatcher while jobs were TOML
    // files (job_config.py from pytorch/torchtitan#2107: "standard", PyTorch's all-to-all, by
    // default, or "deepep"; deepseek_v3/infra/parallelize.py refuses DeepEP with E = 1 or
    // expert tensor parallelism). DeepSeek-V3 on 512 devices, the layout of #2107's own run
    // (T 1, K 8, E 32, shard 64) unless a row changes it. The starting scenario has the flex
    // dispatcher, so each row's comes from the file.
    void torchtitanCommBackend_data()
    {
        QTest::addColumn<QByteArray>("parallelism"); // lines under [parallelism]
        QTest::addColumn<QString>("dispatcher");     // empty: refused
        QTest::addColumn<QString>("mention");        // refused: a word of the message; else a note
        QTest::addRow("pytorch/torchtitan#2107: deepep over E = 32")
            << QByteArray("expert_parallel_comm_backend = \"deepep\"\n") << "flex"
            << "";
        QTest::addRow("standard") << QByteArray("expert_parallel_comm_backend = \"standard\"\n")
                                  << "alltoall"
                                  << "";
        QTest::addRow("absent: standard") << QByteArray() << "alltoall"
                                          << "";
        QTest::addRow("deepep with E = 1")
            << QByteArray("expert_parallel_comm_backend = \"deepep\"\n"
                          "expert_parallel_degree = 1\n")
            << "flex"
            << "with expert_parallel_degree = 1: torchtitan refuses it";
        QTest::addRow("deepep with expert tensor parallelism")
            << QByteArray("expert_parallel_comm_backend = \"deepep\"\n"
                          "expert_tensor_parallel_degree = 2\ntensor_parallel_degree = 2\n"
                          "data_parallel_shard_degree = 32\n")
            << "flex"
            << "with expert_tensor_parallel_degree > 1: torchtitan refuses it";
        QTest::addRow("hybridep: not a TOML-era backend")
            << QByteArray("expert_parallel_comm_backend = \"hybridep\"\n") << ""
            << "expects standard or deepep";
    }
    void torchtitanCommBackend()
    {
        QFETCH(QByteArray, parallelism);
        QFETCH(QString, dispatcher);
        QFETCH(QString, mention);
        // A TOML table may not repeat a key: the run's degrees where the row gives none.
        QByteArray lines = parallelism;
        for (const auto &[key, value] :
             {std::pair{"tensor_parallel_degree", 1}, std::pair{"expert_parallel_degree", 32},
              std::pair{"expert_tensor_parallel_degree", 1},
              std::pair{"data_parallel_shard_degree", 64}})
            if (!parallelism.contains(QByteArray(key) + " ="))
                lines += QByteArray(key) + " = " + QByteArray::number(value) + "\n";
        const QByteArray content = "[model]\nname = \"deepseek_v3\"\nflavor = \"671B\"\n"
                                   "[training]\nlocal_batch_size = 16\nseq_len = 4096\n"
                                   "[parallelism]\npipeline_parallel_degree = 8\n"
                                   "pipeline_parallel_schedule = \"Interleaved1F1B\"\n" +
                                   lines;
        io::ImportOptions options;
        options.devices = 512;
        // A starting scenario with the flex dispatcher and a padded capacity, which torchtitan's
        // MoE does not have (docs/experts.md, "Capacity"): both come from the file.
        Scenario flex;
        flex.epDispatcher = EpDispatcher::flex;
        flex.expertCapacityFactor = 1.25;
        flex.padToCapacity = true;
        const auto result = io::importConfig(content, flex, m_presets, options);
        if (dispatcher.isEmpty()) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key),
                     QStringLiteral("parallelism.expert_parallel_comm_backend"));
            QVERIFY2(error->message.find(mention.toStdString()) != std::string::npos,
                     error->message.c_str());
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL((error->toString() + "\n" + content.toStdString()).c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(QString::fromUtf8(core::toString(imported.scenario->epDispatcher)), dispatcher);
        QVERIFY(!imported.scenario->expertCapacityFactor && !imported.scenario->padToCapacity);
        QCOMPARE(hasName(imported.read, QStringLiteral("parallelism.expert_parallel_comm_backend")),
                 !parallelism.isEmpty());
        QVERIFY(
            !hasName(imported.ignored, QStringLiteral("parallelism.expert_parallel_comm_backend")));
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        else
            QVERIFY2(
                !contains(imported.assumptions, QStringLiteral("expert_parallel_comm_backend")),
                io::importSummary(imported).c_str());
    }

    // parallelism.data_parallel_replicate_degree r beside data_parallel_shard_degree s, Llama 3
    // 8B: both above 1 is FSDP2's HSDP, FSDP over a (dp_replicate, fsdp) mesh whose fsdp
    // dimension is dp_shard x cp (torchtitan/distributed/parallel_dims.py,
    // llama3/infra/parallelize.py), each of the r replicas sharding over its s x C ranks:
    // Parascope's D x C / R with R = r. s = 1 is DDP over r (apply_ddp), s alone FSDP over all.
    // The ZeRO stage is reshard_after_forward's default: 3 without pipelining, 1 with it. The
    // starting scenario has zero_replicas 8, so each row's comes from the file.
    void torchtitanHybridSharding_data()
    {
        QTest::addColumn<QByteArray>("parallelism"); // lines under [parallelism]
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("replicas");
        QTest::addRow("HSDP: 4 replicas of 8")
            << QByteArray("data_parallel_replicate_degree = 4\ndata_parallel_shard_degree = 8\n")
            << 32 << 32 << 3 << 4;
        QTest::addRow("HSDP, shard -1: 2 replicas of the other 8")
            << QByteArray("data_parallel_replicate_degree = 2\n") << 16 << 16 << 3 << 2;
        QTest::addRow("HSDP with pipelining: ZeRO-1 in 2 replicas")
            << QByteArray("data_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 2\n"
                          "pipeline_parallel_degree = 2\n")
            << 8 << 4 << 1 << 2;
        QTest::addRow("HSDP with C 2: 2 replicas, each over s x C = 4")
            << QByteArray("data_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 2\n"
                          "context_parallel_degree = 2\n")
            << 8 << 4 << 3 << 2;
        QTest::addRow("DDP: replicate 8, shard 1")
            << QByteArray("data_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n")
            << 8 << 8 << 0 << 1;
        QTest::addRow("FSDP: shard 8")
            << QByteArray("data_parallel_shard_degree = 8\n") << 8 << 8 << 3 << 1;
        // parallel_dims.py, fsdp_enabled: dp_shard > 1 or cp > 1. Context parallelism alone
        // shards over its C ranks, and beside replicas it is HSDP.
        QTest::addRow("C 2 alone: FSDP over the 2 context-parallel ranks")
            << QByteArray("data_parallel_shard_degree = 1\ncontext_parallel_degree = 2\n") << 2 << 1
            << 3 << 1;
        QTest::addRow("replicate 4, shard 1, C 2: HSDP, each replica over its C ranks")
            << QByteArray("data_parallel_replicate_degree = 4\ndata_parallel_shard_degree = 1\n"
                          "context_parallel_degree = 2\n")
            << 8 << 4 << 3 << 4;
    }
    void torchtitanHybridSharding()
    {
        QFETCH(QByteArray, parallelism);
        QFETCH(int, devices);
        const QByteArray content =
            "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n" + parallelism;
        io::ImportOptions options;
        options.devices = devices;
        Scenario base;
        base.zeroReplicas = 8;
        const auto result = io::importConfig(content, base, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL((error->toString() + "\n" + content.toStdString()).c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        const Scenario &s = *imported.scenario;
        QTEST(s.dp, "dp");
        QTEST(s.zero, "zero");
        QTEST(s.zeroReplicas, "replicas");
        // The replicate degree says what it set; no line approximates the replicas any more.
        const auto replicate =
            std::find_if(imported.read.begin(), imported.read.end(), [](const auto &f) {
                return f.name == "parallelism.data_parallel_replicate_degree";
            });
        QCOMPARE(replicate != imported.read.end() &&
                     replicate->key.find("zero_replicas") != std::string::npos,
                 s.zeroReplicas > 1);
        QVERIFY2(!contains(imported.assumptions, QStringLiteral("replicate")),
                 io::importSummary(imported).c_str());
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
    }

    // Written back: HSDP, replicate R and shard D / R, at ZeRO 1 to 3; a comment where the
    // scenario's replicas are not torchtitan's: R = D without context parallelism, whose
    // one-device shards hold everything (DDP), and R at ZeRO 0.
    void torchtitanEmitsHybridSharding_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<int>("replicate");
        QTest::addColumn<int>("shard");
        QTest::addColumn<QString>("comment"); // empty: no comment names zero_replicas
        QTest::addRow("ZeRO-3, 4 replicas of D 32")
            << QStringList{"tp=1", "pp=1", "dp=32", "zero=3", "zero_replicas=4"} << 4 << 8 << "";
        QTest::addRow("ZeRO-1 with pipelining, 2 replicas of D 4")
            << QStringList{"tp=8", "pp=4", "dp=4", "zero=1", "zero_replicas=2"} << 2 << 2 << "";
        QTest::addRow("one replica: FSDP over all of D")
            << QStringList{"tp=1", "pp=1", "dp=8", "zero=3"} << 1 << 8 << "";
        QTest::addRow("R = D with C 2: each replica shards over its C ranks")
            << QStringList{"tp=1", "pp=1", "cp=2", "dp=4", "zero=3", "zero_replicas=4"} << 4 << 1
            << "";
        QTest::addRow("R = D with C 1: written as DDP")
            << QStringList{"tp=1", "pp=1", "dp=8", "zero=3", "zero_replicas=8"} << 8 << 1
            << "zero_replicas=8 = D";
        QTest::addRow("ZeRO 0: nothing to shard")
            << QStringList{"tp=1", "pp=1", "dp=8", "zero=0", "zero_replicas=2"} << 8 << 1
            << "zero_replicas=2 without ZeRO";
        QTest::addRow("D 1, C 2: FSDP over the context-parallel ranks")
            << QStringList{"tp=1", "pp=1", "cp=2", "dp=1", "zero=3"} << 1 << 1 << "";
    }
    void torchtitanEmitsHybridSharding()
    {
        QFETCH(QStringList, settings);
        QFETCH(int, replicate);
        QFETCH(int, shard);
        QFETCH(QString, comment);
        Scenario s;
        applyFramework(s, Framework::torchtitan);
        for (const QString &setting : settings)
            QVERIFY(!setField(s, setting.section(QLatin1Char('='), 0, 0).toStdString(),
                              setting.section(QLatin1Char('='), 1).toStdString()));
        const auto emitted = io::emitConfig(s, m_presets, Framework::torchtitan);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        const std::string degrees =
            "data_parallel_replicate_degree = " + std::to_string(replicate) +
            "\ndata_parallel_shard_degree = " + std::to_string(shard) + "\n";
        QVERIFY2(text.find(degrees) != std::string::npos, text.c_str());
        QCOMPARE(text.find("#   zero_replicas=") != std::string::npos, !comment.isEmpty());
        // torchtitan shards over D x C, context-parallel ranks included (fsdp_enabled).
        if (s.zero > 0 && s.dp * s.cp > 1)
            QVERIFY2(text.find("nothing to shard") == std::string::npos, text.c_str());
        if (!comment.isEmpty())
            QVERIFY2(text.find("#   " + comment.toStdString()) != std::string::npos, text.c_str());
    }

    // torchtitan's HSDP all-reduces after every micro-batch; holding it to the last is the
    // training loop's set_requires_all_reduce, which no torchtitan setting gives: a comment.
    void torchtitanSaysItCannotDeferTheReplicasReduce()
    {
        Scenario s;
        applyFramework(s, Framework::torchtitan);
        for (const char *kv :
             {"tp=1", "pp=1", "dp=32", "zero=3", "zero_replicas=4", "defer_replica_reduce=true"})
            QVERIFY(!setField(s, std::string_view(kv).substr(0, std::string_view(kv).find('=')),
                              std::string_view(kv).substr(std::string_view(kv).find('=') + 1)));
        const auto emitted = io::emitConfig(s, m_presets, Framework::torchtitan);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        QVERIFY2(text.find("#   defer_replica_reduce=true: torchtitan's HSDP all-reduces") !=
                     std::string::npos,
                 text.c_str());
        s.deferReplicaReduce = false;
        const auto plain = io::emitConfig(s, m_presets, Framework::torchtitan);
        QVERIFY(std::get<std::string>(plain).find("defer_replica_reduce") == std::string::npos);
    }

    // Group-limited routing and the dispatcher in Megatron-LM's flags (transformer_config.py:
    // moe_router_group_topk turns the limit on, needs moe_router_num_groups dividing the
    // experts and is at most that many; moe_router_num_groups alone limits nothing (moe_utils.py,
    // `if group_topk`); moe_token_dispatcher_type allgather (the default), alltoall or flex,
    // moe_flex_dispatcher_backend deepep, hybridep or ncclep, and moe_enable_deepep, refused
    // unless the type is flex), on Llama 3 8B's shape with 64 experts, top-8, over E = 8. The
    // starting scenario has the flex dispatcher, so each row's comes from the file.
    void megatronRouterGroupsAndDispatcher_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QString>("dispatcher");
        QTest::addColumn<QString>("flag");    // refused: the flag named
        QTest::addColumn<QString>("mention"); // refused: a word of the message; else a note
        QTest::addRow("node-limited: 8 groups, 4 of them, flex")
            << QByteArray("--moe-router-num-groups 8 --moe-router-group-topk 4 "
                          "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep")
            << 8 << 4 << "flex"
            << ""
            << "";
        QTest::addRow("flex with HybridEP")
            << QByteArray("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep")
            << 0 << 0 << "flex"
            << ""
            << "";
        QTest::addRow("flex with NCCL EP")
            << QByteArray("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend ncclep")
            << 0 << 0 << "flex"
            << ""
            << "";
        QTest::addRow("flex, the backend's default")
            << QByteArray("--moe-token-dispatcher-type flex") << 0 << 0 << "flex"
            << ""
            << "";
        QTest::addRow("the all-to-all dispatcher")
            << QByteArray("--moe-token-dispatcher-type alltoall") << 0 << 0 << "alltoall"
            << ""
            << "";
        QTest::addRow("older releases' DeepEP switch")
            << QByteArray("--moe-token-dispatcher-type flex --moe-enable-deepep") << 0 << 0
            << "flex"
            << ""
            << "";
        QTest::addRow("the DeepEP switch without the flex type")
            << QByteArray("--moe-enable-deepep") << 0 << 0 << "flex"
            << ""
            << "Megatron-core refuses it";
        QTest::addRow("a backend beside the all-to-all dispatcher")
            << QByteArray("--moe-token-dispatcher-type alltoall --moe-flex-dispatcher-backend "
                          "hybridep")
            << 0 << 0 << "alltoall"
            << ""
            << "only for the flex dispatcher";
        QTest::addRow("the all-gather dispatcher, timed as the all-to-all")
            << QByteArray("--moe-token-dispatcher-type allgather") << 0 << 0 << "alltoall"
            << ""
            << "the all-gather one moves every token";
        QTest::addRow("no dispatcher: Megatron-LM's all-gather default")
            << QByteArray() << 0 << 0 << "alltoall"
            << ""
            << "Megatron-LM's default is the all-gather dispatcher";
        QTest::addRow("4 of 4 groups limits nothing")
            << QByteArray("--moe-router-num-groups 4 --moe-router-group-topk 4") << 0 << 0
            << "alltoall"
            << ""
            << "limits nothing";
        QTest::addRow("groups without their top-k limit nothing")
            << QByteArray("--moe-router-num-groups 8") << 0 << 0 << "alltoall"
            << ""
            << "without --moe-router-group-topk limits nothing";
        QTest::addRow("a group top-k without groups")
            << QByteArray("--moe-router-group-topk 4") << 0 << 0 << ""
            << "--moe-router-num-groups"
            << "needs --moe-router-num-groups";
        QTest::addRow("5 of 4 groups")
            << QByteArray("--moe-router-num-groups 4 --moe-router-group-topk 5") << 0 << 0 << ""
            << "--moe-router-group-topk"
            << "5 of only 4 groups";
        QTest::addRow("a dispatcher Megatron-LM does not have")
            << QByteArray("--moe-token-dispatcher-type deepep") << 0 << 0 << ""
            << "--moe-token-dispatcher-type"
            << "allgather, alltoall or flex";
        QTest::addRow("a backend Megatron-LM does not have")
            << QByteArray("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend nccl")
            << 0 << 0 << ""
            << "--moe-flex-dispatcher-backend"
            << "deepep, hybridep or ncclep";
        QTest::addRow("groups that do not divide the experts")
            << QByteArray("--moe-router-num-groups 6 --moe-router-group-topk 2") << 0 << 0 << ""
            << "--moe-router-num-groups"
            << "do not divide the 64 experts";
        QTest::addRow("one group of 4 experts for a top-8")
            << QByteArray("--moe-router-num-groups 16 --moe-router-group-topk 1") << 0 << 0 << ""
            << "--moe-router-group-topk"
            << "fewer experts than --moe-router-topk";
    }
    void megatronRouterGroupsAndDispatcher()
    {
        QFETCH(QByteArray, flags);
        QFETCH(int, groups);
        QFETCH(int, limit);
        QFETCH(QString, dispatcher);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        Scenario flex;
        flex.epDispatcher = EpDispatcher::flex;
        const auto result = importLlama8bExperts(flags, flex);
        if (const auto *error = std::get_if<InputError>(&result))
            return expectRefusal(*error, flag, mention);
        QVERIFY2(flag.isEmpty(), qPrintable(flag));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.model && imported.scenario);
        QCOMPARE(imported.model->routerGroups, groups);
        QCOMPARE(imported.model->routerGroupLimit, limit);
        QCOMPARE(QString::fromUtf8(core::toString(imported.scenario->epDispatcher)), dispatcher);
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        // Written back, the groups and the dispatcher read the same: flex as DeepEP's backend.
        io::ImportOptions options;
        options.devices = 8;
        std::string script;
        const auto back = throughMegatron(imported, options, &script);
        QVERIFY2(back && *back == *imported.model, script.c_str());
        QVERIFY2(script.find("--moe-token-dispatcher-type " + dispatcher.toStdString()) !=
                     std::string::npos,
                 script.c_str());
        QCOMPARE(script.find("--moe-flex-dispatcher-backend deepep") != std::string::npos,
                 dispatcher == QLatin1String("flex"));
        QCOMPARE(script.find("--moe-router-num-groups") != std::string::npos, groups > 0);
        const auto again =
            io::importConfig(QByteArray::fromStdString(script), flex, m_presets, options);
        const auto *reread = std::get_if<io::ImportedConfig>(&again);
        QVERIFY2(reread && reread->scenario, script.c_str());
        QCOMPARE(QString::fromUtf8(core::toString(reread->scenario->epDispatcher)), dispatcher);
        QVERIFY2(!contains(reread->assumptions, QStringLiteral("dispatcher")),
                 io::importSummary(*reread).c_str());
    }

    // The experts' capacity in Megatron-LM's flags (transformer_config.py:
    // moe_expert_capacity_factor, None or negative for dropless; moe_pad_expert_input_to_capacity
    // needs a factor, and the flex dispatcher refuses it with DeepEP, its default backend), on
    // Llama 3 8B's shape with 64 experts, top-8, over E = 8. Written back and read again, each
    // reads the same.
    void megatronCapacity_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<double>("factor"); // 0: dropless
        QTest::addColumn<bool>("padded");
        QTest::addColumn<QString>("flag");    // refused: the flag named
        QTest::addColumn<QString>("mention"); // refused: a word of the message; else a note
        QTest::addRow("dropless") << QByteArray() << 0.0 << false << ""
                                  << "";
        QTest::addRow("capacity 1.25, dropping")
            << QByteArray("--moe-expert-capacity-factor 1.25") << 1.25 << false << ""
            << "";
        QTest::addRow("padded to capacity 1")
            << QByteArray("--moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity")
            << 1.0 << true << ""
            << "";
        QTest::addRow("padded under HybridEP")
            << QByteArray("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend "
                          "hybridep --moe-expert-capacity-factor 1.5 "
                          "--moe-pad-expert-input-to-capacity")
            << 1.5 << true << ""
            << "";
        QTest::addRow("a negative factor is dropless")
            << QByteArray("--moe-expert-capacity-factor -1") << 0.0 << false << ""
            << "negative factor as none";
        QTest::addRow("padding without a capacity")
            << QByteArray("--moe-pad-expert-input-to-capacity") << 0.0 << false
            << "--moe-pad-expert-input-to-capacity"
            << "needs --moe-expert-capacity-factor";
        QTest::addRow("padding under DeepEP")
            << QByteArray("--moe-token-dispatcher-type flex --moe-expert-capacity-factor 1 "
                          "--moe-pad-expert-input-to-capacity")
            << 0.0 << false << "--moe-pad-expert-input-to-capacity"
            << "DeepEP";
        QTest::addRow("a factor of 0") << QByteArray("--moe-expert-capacity-factor 0") << 0.0
                                       << false << "--moe-expert-capacity-factor"
                                       << "capacity of 0";
        QTest::addRow("a factor that is not a number")
            << QByteArray("--moe-expert-capacity-factor big") << 0.0 << false
            << "--moe-expert-capacity-factor"
            << "expects a number";
    }
    void megatronCapacity()
    {
        QFETCH(QByteArray, flags);
        QFETCH(double, factor);
        QFETCH(bool, padded);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        // The starting scenario's capacity is not the file's.
        Scenario start;
        start.expertCapacityFactor = 2.0;
        const auto result = importLlama8bExperts(flags, start);
        if (const auto *error = std::get_if<InputError>(&result))
            return expectRefusal(*error, flag, mention);
        QVERIFY2(flag.isEmpty(), qPrintable(flag));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->expertCapacityFactor.value_or(0), factor);
        QCOMPARE(imported.scenario->padToCapacity, padded);
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(imported, start, script);
        QVERIFY2(reread, script.c_str());
        QCOMPARE(script.find("--moe-expert-capacity-factor") != std::string::npos, factor > 0);
        QCOMPARE(script.find("--moe-pad-expert-input-to-capacity") != std::string::npos, padded);
        QCOMPARE(reread->expertCapacityFactor.value_or(0), factor);
        QCOMPARE(reread->padToCapacity, padded);
    }

    // Routing in Megatron-LM's flags (docs/experts.md, "Routing imbalance"): a router forced
    // to balance is expert_rank_load 1 whatever the starting scenario had; without the flag
    // the file does not say, so the starting scenario's load stays and the import says so.
    // Written back, a load above 1 is a comment, and the router is not forced.
    void megatronRouting_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<double>("load");
        QTest::addColumn<bool>("assumed");
        QTest::addRow("forced to balance")
            << QByteArray("--moe-router-force-load-balancing") << 1.0 << false;
        QTest::addRow("as trained") << QByteArray("--moe-aux-loss-coeff 0.01") << 1.4 << true;
    }
    void megatronRouting()
    {
        QFETCH(QByteArray, flags);
        QFETCH(double, load);
        QFETCH(bool, assumed);
        Scenario start;
        start.expertRankLoad = 1.4;
        const auto result = importLlama8bExperts(flags, start);
        const auto *imported = std::get_if<io::ImportedConfig>(&result);
        QVERIFY2(imported && imported->scenario,
                 imported ? "no scenario" : std::get<InputError>(result).message.c_str());
        QCOMPARE(imported->scenario->expertRankLoad, load);
        QCOMPARE(contains(imported->assumptions, "no --moe-router-force-load-balancing"), assumed);
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(*imported, start, script);
        QVERIFY2(reread, script.c_str());
        QVERIFY(script.find("--moe-router-force-load-balancing") == std::string::npos);
        QCOMPARE(script.find("expert_rank_load=1.4") != std::string::npos, load > 1);
        QCOMPARE(reread->expertRankLoad, 1.4);
    }

    // Transformer Engine's CPU offloading (arguments.py: --cpu-offloading-num-layers, 0 by
    // default; docs/activations.md, "Offloaded layers"), read and written back as the count.
    void megatronCpuOffloading()
    {
        Scenario start;
        start.pp = 1;
        start.recompute = Recompute::none;
        const auto result = importLlama8b("--tensor-model-parallel-size 1 "
                                          "--pipeline-model-parallel-size 1 "
                                          "--cpu-offloading-num-layers 12",
                                          start);
        const auto *imported = std::get_if<io::ImportedConfig>(&result);
        QVERIFY2(imported && imported->scenario,
                 imported ? "no scenario" : std::get<InputError>(result).message.c_str());
        QCOMPARE(imported->scenario->offloadLayers, 12);
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(*imported, start, script);
        QVERIFY2(reread, script.c_str());
        QVERIFY2(script.find("--cpu-offloading-num-layers 12") != std::string::npos,
                 script.c_str());
        QCOMPARE(reread->offloadLayers, 12);
        // Without the flag, none.
        const auto plain = importLlama8b("--tensor-model-parallel-size 1", start);
        const auto *none = std::get_if<io::ImportedConfig>(&plain);
        QVERIFY(none && none->scenario);
        QCOMPARE(none->scenario->offloadLayers, 0);
    }

    // CUDA graphs in Megatron-LM's flags (arguments.py, --cuda-graph-impl; older releases'
    // --cuda-graph-scope full_iteration): only a graph of the whole step is full_cuda_graph,
    // written back with the NaN check it requires off.
    void megatronCudaGraphs_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<bool>("full");
        QTest::addColumn<QString>("flag");    // refused: the flag named
        QTest::addColumn<QString>("mention"); // refused: a word of the message; else a note
        QTest::addRow("none") << QByteArray() << false << ""
                              << "";
        QTest::addRow("per-layer graphs of Transformer Engine")
            << QByteArray("--cuda-graph-impl transformer_engine --cuda-graph-modules attn "
                          "moe_router moe_preprocess")
            << false << ""
            << "";
        QTest::addRow("the whole step")
            << QByteArray("--cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad")
            << true << ""
            << "";
        QTest::addRow("the older spelling")
            << QByteArray("--cuda-graph-impl local --cuda-graph-scope full_iteration") << true << ""
            << "older spelling";
        QTest::addRow("an implementation Megatron-LM does not have")
            << QByteArray("--cuda-graph-impl everywhere") << false << "--cuda-graph-impl"
            << "none, local, transformer_engine or full_iteration";
    }
    void megatronCudaGraphs()
    {
        QFETCH(QByteArray, flags);
        QFETCH(bool, full);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        // The starting scenario's graph is not the file's.
        Scenario start;
        start.fullCudaGraph = true;
        const auto result = importLlama8bExperts(flags, start);
        if (const auto *error = std::get_if<InputError>(&result))
            return expectRefusal(*error, flag, mention);
        QVERIFY2(flag.isEmpty(), qPrintable(flag));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->fullCudaGraph, full);
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(imported, start, script);
        QVERIFY2(reread, script.c_str());
        QCOMPARE(script.find("--cuda-graph-impl full_iteration") != std::string::npos, full);
        QCOMPARE(script.find("--no-check-for-nan-in-loss-and-grad") != std::string::npos, full);
        QCOMPARE(reread->fullCudaGraph, full);
    }

    // Selective recomputation's modules in Megatron-LM's flags (arguments.py,
    // --recompute-modules, nargs='*', default core_attn), written back as read.
    void megatronRecomputeModules_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<QString>("modules");
        QTest::addColumn<QString>("flag");    // refused: the flag named
        QTest::addColumn<QString>("mention"); // a word of the refusal, or of a line
        QTest::addRow("the default")
            << QByteArray("--recompute-granularity selective") << "core_attn"
            << ""
            << "";
        QTest::addRow("Megatron-Bridge's MoE recipes")
            << QByteArray("--recompute-granularity selective --recompute-modules moe_act "
                          "layernorm core_attn --fp8-format hybrid --fp8-recipe tensorwise")
            << "moe_act layernorm core_attn"
            << ""
            << "";
        QTest::addRow("another attention variant's module")
            << QByteArray("--recompute-granularity selective --recompute-modules core_attn mhc")
            << "core_attn"
            << ""
            << "attention variants";
        QTest::addRow("a module Megatron-LM does not have")
            << QByteArray("--recompute-granularity selective --recompute-modules everything") << ""
            << "--recompute-modules"
            << "unknown module";
    }
    void megatronRecomputeModules()
    {
        QFETCH(QByteArray, flags);
        QFETCH(QString, modules);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        Scenario start;
        start.recomputeModules = "mlp"; // the starting scenario's are not the file's
        const auto result = importLlama8bExperts(flags, start);
        if (const auto *error = std::get_if<InputError>(&result))
            return expectRefusal(*error, flag, mention);
        QVERIFY2(flag.isEmpty(), qPrintable(flag));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(QString::fromStdString(imported.scenario->recomputeModules), modules);
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(imported, start, script);
        QVERIFY2(reread, script.c_str());
        QCOMPARE(script.find("--recompute-modules") != std::string::npos,
                 modules != QLatin1String("core_attn"));
        QCOMPARE(QString::fromStdString(reread->recomputeModules), modules);
    }

    // Multi-token prediction in Megatron-LM's flags (arguments.py, --mtp-num-layers, None by
    // default): the depths, beside a layout's m or on the last stage of an uneven split, and
    // written back with the layout's m where one is written.
    void megatronMultiTokenPrediction_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<int>("depths");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("flag"); // refused: the flag named
        QTest::addRow("none") << QByteArray() << 0 << ""
                              << "";
        QTest::addRow("one depth") << QByteArray("--mtp-num-layers 1") << 1 << ""
                                   << "";
        QTest::addRow("beside a layout's m")
            << QByteArray("--pipeline-model-parallel-size 2 --mtp-num-layers 1 "
                          "--pipeline-model-parallel-layout 'Et*16|t*16mL'")
            << 1 << "Et*16|t*16mL"
            << "";
        QTest::addRow("on the last stage of an uneven split")
            << QByteArray("--pipeline-model-parallel-size 2 --mtp-num-layers 2 "
                          "--decoder-last-pipeline-num-layers 14")
            << 2 << "Et*18|t*14m*2L"
            << "";
        QTest::addRow("a negative count") << QByteArray("--mtp-num-layers -1") << 0 << ""
                                          << "--mtp-num-layers";
    }
    void megatronMultiTokenPrediction()
    {
        QFETCH(QByteArray, flags);
        QFETCH(int, depths);
        QFETCH(QString, layout);
        QFETCH(QString, flag);
        Scenario start;
        start.mtpLayers = 3; // the starting scenario's depths are not the file's
        const auto result = importLlama8b(flags, start);
        if (const auto *error = std::get_if<InputError>(&result))
            return expectRefusal(*error, flag, QStringLiteral("whole number"));
        QVERIFY2(flag.isEmpty(), qPrintable(flag));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->mtpLayers, depths);
        QCOMPARE(QString::fromStdString(imported.scenario->pipelineLayout), layout);
        std::string script;
        const std::optional<Scenario> reread = writtenBackAndRead(imported, start, script);
        QVERIFY2(reread, script.c_str());
        QCOMPARE(script.find("--mtp-num-layers") != std::string::npos, depths > 0);
        QCOMPARE(reread->mtpLayers, depths);
        QCOMPARE(reread->pipelineLayout, imported.scenario->pipelineLayout);
    }

    // Sliding-window attention in Megatron-LM's flags: --window-size "before,after" around
    // each query (megatron/core/transformer/utils.py, get_sliding_window_causal_mask: keys from
    // q - before to q + after, -1 for no limit), so a causal window of w tokens is w - 1,0;
    // layer i (from 1) attends to the whole context when i % --window-attn-skip-freq == 0, or
    // where its list has a 0 (is_layer_window_attention). On Llama 3 8B's 32 layers.
    void megatronSlidingWindow_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<int>("window");
        QTest::addColumn<int>("period");
        QTest::addColumn<QString>("flag");    // refused: the flag named
        QTest::addColumn<QString>("mention"); // refused: a word of the message; else a note
        QTest::addRow("examples/gptoss/02_train.sh: 127,0 with skip frequency 2")
            << QByteArray("--window-size 127,0 --window-attn-skip-freq 2") << 128 << 2 << ""
            << "";
        QTest::addRow("Mistral 7B v0.1's 4096 on every layer")
            << QByteArray("--window-size 4095,0") << 4096 << 0 << ""
            << "";
        QTest::addRow("arguments.py tuple_type: a parenthesised pair")
            << QByteArray("--window-size '(4095, 0)' --window-attn-skip-freq 4") << 4096 << 4 << ""
            << "";
        QTest::addRow("-1,-1: no limit, no window")
            << QByteArray("--window-size -1,-1") << 0 << 0 << ""
            << "";
        QTest::addRow("skip frequency 1: every layer full")
            << QByteArray("--window-size 4095,0 --window-attn-skip-freq 1") << 0 << 0 << ""
            << "";
        QTest::addRow("skip frequency beyond the layers: every layer windowed")
            << QByteArray("--window-size 4095,0 --window-attn-skip-freq 64") << 4096 << 0 << ""
            << "";
        QTest::addRow("a list with one full layer in four")
            << QByteArray("--window-size 1023,0 --window-attn-skip-freq '([1]*3+[0])*8'") << 1024
            << 4 << ""
            << "";
        QTest::addRow("a list with the first four layers full")
            << QByteArray("--window-size 1023,0 --window-attn-skip-freq '([0]*4+[1]*28)'") << 1024
            << 0 << ""
            << "approximated as a window on every layer, 28 of the 32 layers as the list has "
               "them";
        QTest::addRow("a skip frequency without a window")
            << QByteArray("--window-attn-skip-freq 2") << 0 << 0 << "--window-attn-skip-freq"
            << "only beside a flag";
        QTest::addRow("one number") << QByteArray("--window-size 4096") << 0 << 0 << "--window-size"
                                    << "127,0 for a causal window of 128";
        QTest::addRow("tokens after the query")
            << QByteArray("--window-size 127,8") << 0 << 0 << "--window-size"
            << "after: 0 or -1";
        QTest::addRow("a window beyond 2^24 tokens")
            << QByteArray("--window-size 16777216,0") << 0 << 0 << "--window-size"
            << "-1 or 0 to 16777215";
        QTest::addRow("skip frequency 0")
            << QByteArray("--window-size 127,0 --window-attn-skip-freq 0") << 0 << 0
            << "--window-attn-skip-freq"
            << "1 or more";
        QTest::addRow("a list shorter than the layers")
            << QByteArray("--window-size 127,0 --window-attn-skip-freq [1,0]") << 0 << 0
            << "--window-attn-skip-freq"
            << "--num-layers 1s (window) and 0s";
    }
    void megatronSlidingWindow()
    {
        QFETCH(QByteArray, flags);
        QFETCH(int, window);
        QFETCH(int, period);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        const auto result = importLlama8b(flags);
        if (const auto *error = std::get_if<InputError>(&result)) {
            QVERIFY2(!flag.isEmpty() && window == 0, error->toString().c_str());
            QCOMPARE(QString::fromStdString(error->key), flag);
            QVERIFY2(error->message.find(mention.toStdString()) != std::string::npos,
                     error->message.c_str());
            return;
        }
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.model); // with dropout, not the Llama 3.1 8B preset
        const ModelSpec &model = *imported.model;
        QCOMPARE(model.slidingWindow, window);
        QCOMPARE(model.fullAttentionPeriod, period);
        if (!flag.isEmpty()) {
            const auto ignored = std::find_if(
                imported.ignored.begin(), imported.ignored.end(),
                [&flag](const auto &f) { return QString::fromStdString(f.name) == flag; });
            QVERIFY(ignored != imported.ignored.end());
            QVERIFY2(ignored->why.find(mention.toStdString()) != std::string::npos,
                     ignored->why.c_str());
        } else if (!mention.isEmpty()) {
            QVERIFY(std::any_of(imported.assumptions.begin(), imported.assumptions.end(),
                                [&](const std::string &a) {
                                    return a.find(mention.toStdString()) != std::string::npos;
                                }));
        }
        // Written back as the window's flags, it reads as the same model.
        io::ImportOptions options;
        options.devices = 8;
        std::string script;
        const auto back = throughMegatron(imported, options, &script);
        QVERIFY2(back && *back == model, script.c_str());
        const std::string written = "--window-size " + std::to_string(window - 1) + ",0";
        QCOMPARE(script.find(window > 0 ? written : "--window-size") != std::string::npos,
                 window > 0);
        QCOMPARE(script.find("--window-attn-skip-freq") != std::string::npos, period > 0);
    }

    // DeepSpeed's partition by parameters (pipeline_layout=parameters) has no Megatron-LM flag;
    // the emitter writes the layout it makes (Llama 3.1 8B over 4 stages: 7, 9, 9, 7 layers,
    // docs/DESIGN.md §3.3), which reads back to the same stages. The DeepSpeed file names the
    // partition_method its model code keeps.
    void parametersLayoutIsWrittenOut()
    {
        Scenario s;
        QVERIFY(!setField(s, "model", "llama-3.1-8b"));
        QVERIFY(!setField(s, "pp", "4"));
        QVERIFY(!setField(s, "tp", "1"));
        QVERIFY(!setField(s, "pipeline_layout", "parameters"));
        const auto [text, read] = megatronRoundTrip(s);
        QVERIFY2(text.find("--pipeline-model-parallel-layout 'Et*7|(t*9|)*2,t*7L'") !=
                     std::string::npos,
                 text.c_str());
        QVERIFY2(read.ok(), (read.error ? read.error->toString() + "\n" + text : text).c_str());
        QCOMPARE(read.stages.size(), std::size_t{4});
        const int want[] = {7, 9, 9, 7};
        for (std::size_t i = 0; i < 4; ++i)
            QCOMPARE(read.stages[i].layers, want[i]);
        const auto deepspeed = io::emitConfig(s, m_presets, Framework::deepspeed);
        QVERIFY(std::holds_alternative<std::string>(deepspeed));
        QVERIFY2(std::get<std::string>(deepspeed).find("partition_method='parameters'") !=
                     std::string::npos,
                 std::get<std::string>(deepspeed).c_str());
    }

    // torchtitan's interleaved parts may differ by a layer (its profile counts the ends:
    // Llama 3.1 8B's 32 + 2 layers over 8 parts); Megatron-LM's flags cannot say so, its layout
    // can: the emitter writes the parts Parascope runs, and they read back the same.
    void megatronEmitsUnevenPartsAsALayout()
    {
        Scenario s;
        applyFramework(s, Framework::torchtitan);
        for (const char *setting : {"model=llama-3.1-8b", "pp=4", "dp=2", "microbatches=8",
                                    "schedule=interleaved", "virtual_stages=2"})
            QVERIFY(!setField(s, std::string(setting).substr(0, std::string(setting).find('=')),
                              std::string(setting).substr(std::string(setting).find('=') + 1)));
        const auto emitted = io::emitConfig(s, m_presets, Framework::megatron);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        QVERIFY2(text.find("--pipeline-model-parallel-layout 'Et*4|t*5|(t*4|)*5,t*3L'") !=
                     std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("--account-for") == std::string::npos, text.c_str());
        const auto back =
            io::importConfig(QByteArray::fromStdString(text), Scenario{}, m_presets, {});
        if (const auto *error = std::get_if<InputError>(&back))
            QFAIL((error->toString() + "\n" + text).c_str());
        const Report original = evaluate(s, m_presets);
        const Report read = evaluate(*std::get<io::ImportedConfig>(back).scenario, m_presets);
        QVERIFY2(read.ok(), read.error ? read.error->message.c_str() : "");
        for (std::size_t i = 0; i < original.stages.size(); ++i)
            QCOMPARE(read.stages[i].layers, original.stages[i].layers);
    }

    // The gpt-oss-120b preset is emitted with the flags of Megatron-LM's own gpt-oss example
    // (examples/gptoss/02_train.sh: --window-attn-skip-freq 2, --window-size 127,0).
    void megatronEmitsGptOssWindow()
    {
        Scenario s;
        applyFramework(s, Framework::megatron);
        QVERIFY(!setField(s, "model", "gpt-oss-120b"));
        const auto emitted = io::emitConfig(s, m_presets, Framework::megatron);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        QVERIFY2(text.find("--window-size 127,0") != std::string::npos, text.c_str());
        QVERIFY2(text.find("--window-attn-skip-freq 2") != std::string::npos, text.c_str());
    }

    // torchtitan's float8 keeps the weights in their own dtype unless FSDP2 gathers them in FP8
    // (enable_fsdp_float8_all_gather): the 405B preset turns it on, the 8B one leaves it off.
    void torchtitanFp8Params_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("fp8Params");
        QTest::addRow("llama3_405b.toml") << "torchtitan/llama3_405b.toml" << true;
        QTest::addRow("llama3_8b.toml") << "torchtitan/llama3_8b.toml" << false;
    }
    // module_fqns_per_model_part (torchtitan/distributed/pipeline_parallel.py, pipeline_llm:
    // taken instead of the generated parts): read as the layout its parts make, a part per
    // virtual stage under a looped schedule; what Parascope cannot place is refused naming the
    // key.
    void torchtitanModuleParts_data()
    {
        QTest::addColumn<QByteArray>("parallelism");
        QTest::addColumn<QString>("layout"); // empty: refused
        QTest::addColumn<QString>("words");
        const auto parts = [](const QList<QPair<int, int>> &ranges) {
            QStringList out;
            for (qsizetype j = 0; j < ranges.size(); ++j) {
                QStringList names;
                if (j == 0)
                    names << QStringLiteral("\"tok_embeddings\"");
                for (int i = ranges[j].first; i < ranges[j].second; ++i)
                    names << QStringLiteral("\"layers.%1\"").arg(i);
                if (j + 1 == ranges.size())
                    names << QStringLiteral("\"norm\"") << QStringLiteral("\"lm_head\"");
                out << "[" + names.join(", ") + "]";
            }
            return ("module_fqns_per_model_part = [" + out.join(", ") + "]").toUtf8();
        };
        QTest::addRow("1F1B on four ranks, uneven")
            << "pipeline_parallel_degree = 4\n" + parts({{0, 11}, {11, 22}, {22, 31}, {31, 32}})
            << "Et*11|t*11|t*9|tL"
            << "";
        QTest::addRow("Interleaved1F1B, two parts a rank")
            << "pipeline_parallel_degree = 2\npipeline_parallel_schedule = \"Interleaved1F1B\"\n" +
                   parts({{0, 7}, {7, 16}, {16, 25}, {25, 32}})
            << "Et*7|(t*9|)*2,t*7L"
            << "";
        QTest::addRow("output, the pre-2026 name of the LM head, read; two layers of 32 refused")
            << QByteArray("pipeline_parallel_degree = 2\nmodule_fqns_per_model_part = "
                          "[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\", \"norm\", "
                          "\"output\"]]")
            << ""
            << "places 2 of the model's 32 layers";
        QTest::addRow("layers out of order")
            << "pipeline_parallel_degree = 2\n" +
                   parts({{0, 16}, {16, 32}}).replace("\"layers.16\"", "\"layers.17\"")
            << ""
            << "'layers.17' where layers.16 comes next";
        QTest::addRow("three parts on two ranks of 1F1B")
            << "pipeline_parallel_degree = 2\n" + parts({{0, 10}, {10, 20}, {20, 32}}) << ""
            << "3 parts for 2 ranks";
        QTest::addRow("DualPipeV, its V's parts")
            << "pipeline_parallel_degree = 2\npipeline_parallel_schedule = \"DualPipeV\"\n" +
                   parts({{0, 7}, {7, 16}, {16, 25}, {25, 32}})
            << "Et*7|(t*9|)*2,t*7L"
            << "";
        QTest::addRow("ZBVZeroBubble, read with one chunk a rank")
            << "pipeline_parallel_degree = 2\npipeline_parallel_schedule = \"ZBVZeroBubble\"\n" +
                   parts({{0, 8}, {8, 16}, {16, 24}, {24, 32}})
            << ""
            << "one chunk a rank";
    }
    void torchtitanModuleParts()
    {
        QFETCH(QByteArray, parallelism);
        QFETCH(QString, layout);
        QFETCH(QString, words);
        const QByteArray toml = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n"
                                "local_batch_size = 8\nseq_len = 8192\n[parallelism]\n"
                                "pipeline_parallel_microbatch_size = 1\n" +
                                parallelism + "\n";
        io::ImportOptions options;
        options.devices = 8;
        options.fileName = "job.toml";
        const auto result = io::importConfig(toml, Scenario{}, m_presets, options);
        if (layout.isEmpty()) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key),
                     QStringLiteral("parallelism.module_fqns_per_model_part"));
            QVERIFY2(QString::fromStdString(error->message).contains(words),
                     error->message.c_str());
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(QString::fromStdString(imported.scenario->pipelineLayout), layout);
        QVERIFY2(!evaluate(*imported.scenario, m_presets).error,
                 evaluate(*imported.scenario, m_presets).error->message.c_str());
    }

    // pipeline_parallel_first_stage_less_layers and _last_stage_less_layers (1 each by
    // default, torchtitan distributed/pipeline_parallel.py): the generated parts weigh the
    // embedding and the output so. One each is ends_in_pipeline_split; none is the plain
    // split; other weights make the parts _generate_llm_fqn_per_model_part makes, written out
    // as a layout: Llama 3.1 8B's 32 layers + 2 + 2 over 4 parts, 9 each, less 2 on the ends.
    void torchtitanStageWeights_data()
    {
        QTest::addColumn<QByteArray>("parallelism");
        QTest::addColumn<QString>("ends");
        QTest::addColumn<QString>("layout"); // "refused": naming the first weight's key
        QTest::addRow("the defaults: the ends count")
            << QByteArray("pipeline_parallel_degree = 4") << "true"
            << "even";
        QTest::addRow("no weight: the plain split")
            << QByteArray("pipeline_parallel_degree = 4\npipeline_parallel_first_stage_less_layers "
                          "= 0\npipeline_parallel_last_stage_less_layers = 0")
            << "false"
            << "even";
        QTest::addRow("two each")
            << QByteArray("pipeline_parallel_degree = 4\npipeline_parallel_first_stage_less_layers "
                          "= 2\npipeline_parallel_last_stage_less_layers = 2")
            << "false"
            << "Et*7|(t*9|)*2,t*7L";
        QTest::addRow("two each in a V")
            << QByteArray("pipeline_parallel_degree = 4\npipeline_parallel_schedule = "
                          "\"DualPipeV\"\npipeline_parallel_first_stage_less_layers = 2\n"
                          "pipeline_parallel_last_stage_less_layers = 2")
            << ""
            << "refused";
    }
    void torchtitanStageWeights()
    {
        QFETCH(QByteArray, parallelism);
        QFETCH(QString, ends);
        QFETCH(QString, layout);
        const QByteArray toml = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n"
                                "local_batch_size = 8\nseq_len = 8192\n[parallelism]\n"
                                "pipeline_parallel_microbatch_size = 1\n" +
                                parallelism + "\n";
        io::ImportOptions options;
        options.devices = 8;
        options.fileName = "job.toml";
        const auto result = io::importConfig(toml, Scenario{}, m_presets, options);
        if (layout == QLatin1String("refused")) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key),
                     QStringLiteral("parallelism.pipeline_parallel_first_stage_less_layers"));
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const Scenario &s = *std::get<io::ImportedConfig>(result).scenario;
        QCOMPARE(QString::fromStdString(fieldText(s, "ends_in_pipeline_split")), ends);
        QCOMPARE(QString::fromStdString(fieldText(s, "pipeline_layout")), layout);
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
    }

    void torchtitanFp8Params()
    {
        QFETCH(QString, file);
        QFETCH(bool, fp8Params);
        io::ImportOptions options;
        options.devices = 128;
        options.fileName = file.section(QLatin1Char('/'), -1).toStdString();
        const auto result = io::importConfig(readData(file), Scenario{}, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->fp8Params, fp8Params);
    }

    // Megatron-FSDP (Megatron-LM docs/user-guide/features/megatron_fsdp.md): --use-megatron-fsdp
    // shards what --data-parallel-sharding-strategy names, optim_grads_params (ZeRO-3) by
    // default; the strategy alone is not read by Megatron-LM. --fp8-recipe
    // (transformer_config.py): delayed is the default, tensorwise is current scaling, mxfp8
    // and blockwise scale per block. An unknown value is refused, naming its flag.
    void megatronSettingFlags_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");   // empty: refused
        QTest::addColumn<QString>("flag");    // refused: the flag named; else one listed ignored
        QTest::addColumn<QString>("mention"); // refused: a word of the message
        const QString zero = QStringLiteral("zero"), fp8 = QStringLiteral("fp8_scaling");
        const QString strategy = QStringLiteral("--data-parallel-sharding-strategy");
        QTest::addRow("the distributed optimizer")
            << QByteArray("--use-distributed-optimizer") << zero << "1"
            << ""
            << "";
        QTest::addRow("Megatron-FSDP's default") << QByteArray("--use-megatron-fsdp") << zero << "3"
                                                 << ""
                                                 << "";
        QTest::addRow("optim_grads")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads")
            << zero << "2"
            << ""
            << "";
        QTest::addRow("no_shard")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy no_shard") << zero
            << "0"
            << ""
            << "";
        QTest::addRow("a strategy without Megatron-FSDP")
            << QByteArray("--data-parallel-sharding-strategy optim_grads") << zero << "0"
            << strategy << "";
        QTest::addRow("an unknown strategy")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy zero3") << zero
            << "" << strategy << "optim_grads_params";
        // --overlap-param-gather is off by default (megatron/training/arguments.py).
        const QString gather = QStringLiteral("overlap_param_gather");
        QTest::addRow("the gradient reduce overlapped alone")
            << QByteArray("--use-distributed-optimizer --overlap-grad-reduce") << gather << "false"
            << ""
            << "";
        // Megatron-core's batch-level all-to-all overlap (megatron/core/model_parallel_config.py,
        // overlap_moe_expert_parallel_comm, off by default).
        QTest::addRow("the all-to-all overlapped")
            << QByteArray("--overlap-moe-expert-parallel-comm") << QStringLiteral("ep_overlap")
            << "true"
            << ""
            << "";
        QTest::addRow("delayed weight gradients without the overlap")
            << QByteArray("--delay-wgrad-compute") << QStringLiteral("ep_overlap") << "false"
            << ""
            << "";
        QTest::addRow("the parameter gather overlapped")
            << QByteArray(
                   "--use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather")
            << gather << "true"
            << ""
            << "";
        // --fp8-param-gather is off by default too: BF16 weights cast for the FP8 GEMMs.
        const QString params = QStringLiteral("fp8_params");
        QTest::addRow("BF16 weights") << QByteArray("--fp8-format hybrid") << params << "false"
                                      << ""
                                      << "";
        QTest::addRow("FP8 weights")
            << QByteArray("--fp8-format hybrid --fp8-param-gather") << params << "true"
            << ""
            << "";
        // --activation-func-fp8-input-store (transformer_config.py,
        // activation_func_fp8_input_store, off by default): mlp.py hands it to the fused SwiGLU
        // only, so beside
        // --no-bias-swiglu-fusion it keeps nothing in FP8.
        const QString fp8Input = QStringLiteral("fp8_activation_input");
        QTest::addRow("the SwiGLU input in 16 bits by default")
            << QByteArray("") << fp8Input << "false"
            << ""
            << "";
        QTest::addRow("the SwiGLU input in FP8")
            << QByteArray("--activation-func-fp8-input-store") << fp8Input << "true"
            << ""
            << "";
        QTest::addRow("the SwiGLU input in FP8, unfused")
            << QByteArray("--no-bias-swiglu-fusion --activation-func-fp8-input-store") << fp8Input
            << "false"
            << ""
            << "";
        // --ddp-bucket-size, parameters a bucket; absent, Megatron-LM's own (auto).
        const QString bucket = QStringLiteral("dp_bucket_params");
        QTest::addRow("the default buckets")
            << QByteArray("--overlap-grad-reduce") << bucket << "auto"
            << ""
            << "";
        QTest::addRow("768M-parameter buckets")
            << QByteArray("--overlap-grad-reduce --ddp-bucket-size 768000000") << bucket
            << "7.68e+08"
            << ""
            << "";
        QTest::addRow("a bucket of none") << QByteArray("--ddp-bucket-size 0") << bucket << ""
                                          << "--ddp-bucket-size"
                                          << "whole number";
        // The per-communicator NCCL config is a file the import does not open: listed as
        // ignored, dp_collective_units left at auto.
        QTest::addRow("the NCCL communicator config")
            << QByteArray("--nccl-communicator-config-path /x/cta.yaml")
            << QStringLiteral("dp_collective_units") << "auto"
            << "--nccl-communicator-config-path"
            << "dp_collective_units";
        // The interleaved schedule's gathers without alignment: listed as ignored, with what
        // Parascope assumes instead.
        QTest::addRow("gathers not aligned")
            << QByteArray("--overlap-param-gather --no-align-param-gather")
            << QStringLiteral("overlap_param_gather") << "true"
            << "--no-align-param-gather"
            << "A later stage's one bucket";
        QTest::addRow("the default recipe") << QByteArray("--fp8-format hybrid") << fp8 << "delayed"
                                            << ""
                                            << "";
        QTest::addRow("tensorwise")
            << QByteArray("--fp8-format hybrid --fp8-recipe tensorwise") << fp8 << "current"
            << ""
            << "";
        QTest::addRow("mxfp8") << QByteArray("--fp8-format hybrid --fp8-recipe mxfp8") << fp8
                               << "block"
                               << ""
                               << "";
        QTest::addRow("blockwise")
            << QByteArray("--fp8-format hybrid --fp8-recipe blockwise") << fp8 << "block"
            << ""
            << "";
        QTest::addRow("an unknown recipe")
            << QByteArray("--fp8-format hybrid --fp8-recipe rowwise") << fp8 << ""
            << "--fp8-recipe"
            << "tensorwise";
        // --recompute-method block reruns the first --recompute-num-layers of each chunk
        // (transformer_block.py, _checkpointed_forward): recompute_layers; uniform with one
        // layer a checkpoint is every layer on its own.
        const QString rerun = QStringLiteral("recompute_layers");
        QTest::addRow("the first 21 layers recomputed")
            << QByteArray("--recompute-granularity full --recompute-method block "
                          "--recompute-num-layers 21")
            << rerun << "21"
            << ""
            << "";
        QTest::addRow("every layer recomputed")
            << QByteArray("--recompute-granularity full --recompute-method uniform "
                          "--recompute-num-layers 1")
            << rerun << "0"
            << ""
            << "";
        QTest::addRow("a count of layers that is not one")
            << QByteArray("--recompute-granularity full --recompute-method block "
                          "--recompute-num-layers some")
            << rerun << ""
            << "--recompute-num-layers"
            << "some";
        // initialize.py: the rank order with --use-tp-pp-dp-mapping.
        QTest::addRow("the default rank order")
            << QByteArray("") << QStringLiteral("rank_order") << "tp-cp-ep-dp-pp"
            << ""
            << "";
        QTest::addRow("the pipeline inside the replica")
            << QByteArray("--use-tp-pp-dp-mapping") << QStringLiteral("rank_order")
            << "tp-cp-ep-pp-dp"
            << ""
            << "";
        // --fp4-format e2m1 trains in NVFP4 (transformer_config.py: fp4, fp4_recipe nvfp4 by
        // default); arguments.py refuses it beside --fp8-format.
        const QString precision = QStringLiteral("precision");
        QTest::addRow("NVFP4") << QByteArray("--bf16 --fp4-format e2m1") << precision << "nvfp4"
                               << ""
                               << "";
        QTest::addRow("an unknown FP4 format")
            << QByteArray("--bf16 --fp4-format e3m0") << precision << ""
            << "--fp4-format"
            << "e2m1";
        QTest::addRow("FP4 beside FP8")
            << QByteArray("--bf16 --fp4-format e2m1 --fp8-format hybrid") << precision << ""
            << "--fp4-format"
            << "--fp8-format";
        // Custom placements (arguments.py, transformer_config.py): the layout string as given;
        // uneven first and last stages as the layout they make, the middle stages sharing the
        // rest evenly and each stage's layers split evenly over its chunks. Each refused
        // beside another way to place the layers, naming the flag.
        const QString layout = QStringLiteral("pipeline_layout");
        QTest::addRow("a layout")
            << QByteArray("--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
                          "'Et*11|t*11|t*9|tL'")
            << layout << "Et*11|t*11|t*9|tL"
            << ""
            << "";
        QTest::addRow("a layout of eight entries on four stages interleaves")
            << QByteArray("--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
                          "'Et*3|(t*4|)*6,t*5L'")
            << QStringLiteral("virtual_stages") << "2"
            << ""
            << "";
        QTest::addRow("a layout beside the ends counted")
            << QByteArray("--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
                          "'Et*8|t*8|t*8|t*8L' --account-for-embedding-in-pipeline-split")
            << layout << ""
            << "--pipeline-model-parallel-layout"
            << "--account-for-embedding-in-pipeline-split";
        QTest::addRow("a layout of three entries on two stages")
            << QByteArray("--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
                          "'Et*10|t*11|t*11L'")
            << layout << ""
            << "--pipeline-model-parallel-layout"
            << "3 stages do not divide";
        QTest::addRow("a layout that does not parse")
            << QByteArray("--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
                          "'Et*16|t*16X'")
            << layout << ""
            << "--pipeline-model-parallel-layout"
            << "'X' is not a layer";
        QTest::addRow("uneven first and last stages")
            << QByteArray("--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 5 "
                          "--decoder-last-pipeline-num-layers 3")
            << layout << "Et*5|(t*12|)*2,t*3L"
            << ""
            << "";
        QTest::addRow("an uneven last stage, interleaved")
            << QByteArray(
                   "--pipeline-model-parallel-size 2 --virtual-pipeline-model-parallel-size 2 "
                   "--decoder-last-pipeline-num-layers 8")
            << layout << "Et*12|t*4|t*12|t*4L"
            << ""
            << "";
        QTest::addRow("a middle that does not share evenly")
            << QByteArray("--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 6")
            << layout << ""
            << "--decoder-first-pipeline-num-layers"
            << "26 of the 32 layers for 3 middle stages";
        // FP8 attention (Megatron-core's fp8_dot_product_attention, taken by the FP8 recipe in
        // fp8_utils.py and by NVFP4's in fp4_utils.py); fp8_multi_head_attention needs it. Off
        // by default, and without an FP8 or FP4 format it has no effect.
        const QString fp8Attention = QStringLiteral("fp8_attention");
        QTest::addRow("BF16 attention by default")
            << QByteArray("--fp8-format hybrid") << fp8Attention << "false"
            << ""
            << "";
        QTest::addRow("FP8 dot-product attention")
            << QByteArray("--fp8-format hybrid --fp8-dot-product-attention") << fp8Attention
            << "true"
            << ""
            << "";
        QTest::addRow("FP8 multi-head attention")
            << QByteArray("--fp8-format hybrid --fp8-multi-head-attention") << fp8Attention
            << "true"
            << ""
            << "";
        QTest::addRow("FP8 attention under NVFP4")
            << QByteArray("--bf16 --fp4-format e2m1 --fp8-dot-product-attention") << fp8Attention
            << "true"
            << ""
            << "";
        QTest::addRow("FP8 attention in a BF16 run")
            << QByteArray("--bf16 --fp8-dot-product-attention") << fp8Attention << "false"
            << ""
            << "";
        // The LM head in FP8 (transformer_config.py, fp8_output_proj; NVIDIA/Megatron-LM#4825):
        // Megatron-core takes it under the MXFP8 recipe only.
        const QString lmHead = QStringLiteral("fp8_lm_head");
        QTest::addRow("FP8 LM head under MXFP8")
            << QByteArray("--fp8-format e4m3 --fp8-recipe mxfp8 --fp8-output-proj") << lmHead
            << "true"
            << ""
            << "";
        QTest::addRow("FP8 LM head by default off")
            << QByteArray("--fp8-format e4m3 --fp8-recipe mxfp8") << lmHead << "false"
            << ""
            << "";
        QTest::addRow("FP8 LM head under blockwise scaling")
            << QByteArray("--fp8-format e4m3 --fp8-recipe blockwise --fp8-output-proj") << lmHead
            << "false"
            << ""
            << "";
        QTest::addRow("FP8 LM head in a BF16 run")
            << QByteArray("--bf16 --fp8-output-proj") << lmHead << "false"
            << ""
            << "";
        // The loss's kernels (model_parallel_config.py: cross_entropy_loss_fusion, off by default,
        // with cross_entropy_fusion_impl native or te).
        const QString loss = QStringLiteral("loss_fusion");
        QTest::addRow("the unfused loss by default") << QByteArray("--bf16") << loss << "none"
                                                     << ""
                                                     << "";
        QTest::addRow("Megatron-core's fused loss")
            << QByteArray("--cross-entropy-loss-fusion") << loss << "native"
            << ""
            << "";
        QTest::addRow("Transformer Engine's loss")
            << QByteArray("--cross-entropy-loss-fusion --cross-entropy-fusion-impl te") << loss
            << "te"
            << ""
            << "";
        QTest::addRow("an implementation without the fusion")
            << QByteArray("--cross-entropy-fusion-impl te") << loss << "none"
            << ""
            << "";
        QTest::addRow("an unknown implementation")
            << QByteArray("--cross-entropy-loss-fusion --cross-entropy-fusion-impl liger") << loss
            << ""
            << "--cross-entropy-fusion-impl"
            << "native or te";
        // --attention-backend (megatron/training/arguments.py): flash is Transformer Engine's
        // FlashAttention backend, the flash-attn package; fused its cuDNN kernels; unfused
        // and local materialise the scores.
        // --recompute-granularity takes Megatron-LM's two kinds; torchtitan's per-op is not one.
        const QString recompute = QStringLiteral("recompute");
        QTest::addRow("recompute granularity op")
            << QByteArray("--recompute-granularity op") << recompute << ""
            << "--recompute-granularity"
            << "full or selective";
        QTest::addRow("recompute modules, the attention core")
            << QByteArray("--recompute-granularity selective --recompute-modules core_attn")
            << recompute << "selective"
            << ""
            << "";
        const QString attention = QStringLiteral("attention");
        QTest::addRow("the FlashAttention backend")
            << QByteArray("--attention-backend flash") << attention << "flash2"
            << ""
            << "";
        QTest::addRow("the cuDNN backend")
            << QByteArray("--attention-backend fused") << attention << "flash"
            << ""
            << "";
        QTest::addRow("the unfused backend")
            << QByteArray("--attention-backend unfused") << attention << "eager"
            << ""
            << "";
        // Adam's moments (arguments.py: --exp-avg-dtype and --exp-avg-sq-dtype, fp32 by
        // default, used by --use-precision-aware-optimizer only).
        const QString moments = QStringLiteral("optimizer_moments");
        QTest::addRow("BF16 moments, precision-aware")
            << QByteArray("--use-precision-aware-optimizer --exp-avg-dtype bf16 "
                          "--exp-avg-sq-dtype bf16")
            << moments << "bf16"
            << ""
            << "";
        QTest::addRow("FP16 moments: two bytes each as well")
            << QByteArray("--use-precision-aware-optimizer --exp-avg-dtype fp16 "
                          "--exp-avg-sq-dtype fp16")
            << moments << "bf16"
            << ""
            << "";
        QTest::addRow("one moment narrowed: the larger count")
            << QByteArray("--use-precision-aware-optimizer --exp-avg-dtype bf16") << moments
            << "fp32"
            << ""
            << "";
        QTest::addRow("the dtypes without the precision-aware optimizer")
            << QByteArray("--exp-avg-dtype bf16 --exp-avg-sq-dtype bf16") << moments << "fp32"
            << ""
            << "";
        QTest::addRow("an unknown moment type")
            << QByteArray("--use-precision-aware-optimizer --exp-avg-dtype int8") << moments << ""
            << "--exp-avg-dtype"
            << "fp32, fp16, bf16 or fp8";
    }
    void megatronSettingFlags()
    {
        QFETCH(QByteArray, flags);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, flag);
        const auto result = importLlama8b(flags);
        if (value.isEmpty()) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key), flag);
            QFETCH(QString, mention);
            QVERIFY2(error->message.find(mention.toStdString()) != std::string::npos,
                     error->message.c_str());
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(QString::fromStdString(fieldText(*imported.scenario, key.toStdString())), value);
        const auto ignored =
            std::find_if(imported.ignored.begin(), imported.ignored.end(),
                         [&flag](const auto &f) { return QString::fromStdString(f.name) == flag; });
        QCOMPARE(ignored != imported.ignored.end(), !flag.isEmpty());
        // An ignored flag's reason names what to set instead, where the row says.
        QFETCH(QString, mention);
        if (ignored != imported.ignored.end() && !mention.isEmpty())
            QVERIFY2(QString::fromStdString(ignored->why).contains(mention), ignored->why.c_str());
    }

    // --num-distributed-optimizer-instances N (megatron/training/arguments.py, default 1) on
    // Llama 3 8B over 8 devices: the distributed optimizer shards over the D x C / N ranks of an
    // instance and the instances all-reduce their shards' gradients (param_and_grad_buffer.py,
    // start_grad_sync), Megatron-FSDP's HSDP the same (mcore_fsdp_adapter.py, enable_hsdp):
    // zero_replicas N. Megatron-core refuses N without the distributed optimizer
    // (distributed_data_parallel.py, "Partial DistOpt cannot be used without DistOpt") and N
    // not dividing D x C or the experts' data-parallel group (parallel_state.py); Megatron-FSDP
    // refuses --outer-dp-sharding-strategy optim (HFSDP) beside another strategy than
    // optim_grads_params (param_and_grad_buffer.py). Megatron-FSDP all-reduces across the
    // instances on the last micro-batch only (megatron_fsdp.py, outer_fsdp_group_grad_reduce):
    // defer_replica_reduce at ZeRO 2 and 3. The starting scenario has zero_replicas 4 and the
    // all-reduce deferred, so each row's comes from the file.
    void megatronOptimizerInstances_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<bool>("experts");    // 64 experts over E = 8: a data-parallel group of 1
        QTest::addColumn<int>("replicas");    // 0: refused
        QTest::addColumn<QString>("flag");    // refused: the flag named; else one listed ignored
        QTest::addColumn<QString>("mention"); // refused: a word of the message; else of a line
        const QString instances = QStringLiteral("--num-distributed-optimizer-instances");
        const QString outer = QStringLiteral("--outer-dp-sharding-strategy");
        QTest::addRow("the distributed optimizer, one instance by default")
            << QByteArray("--use-distributed-optimizer") << false << 1 << ""
            << "";
        QTest::addRow("the distributed optimizer in 2 instances of 4")
            << QByteArray("--use-distributed-optimizer --num-distributed-optimizer-instances 2")
            << false << 2 << ""
            << "";
        QTest::addRow("Megatron-FSDP's HSDP, 4 instances")
            << QByteArray("--use-megatron-fsdp --num-distributed-optimizer-instances 4") << false
            << 4 << ""
            << "";
        QTest::addRow("Megatron-FSDP's HSDP of optim_grads")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads "
                          "--num-distributed-optimizer-instances 2")
            << false << 2 << ""
            << "";
        QTest::addRow("HFSDP: the optimizer states over the instances too")
            << QByteArray("--use-megatron-fsdp --num-distributed-optimizer-instances 2 "
                          "--outer-dp-sharding-strategy optim")
            << false << 2 << ""
            << "HFSDP";
        QTest::addRow("instances of no_shard: nothing sharded")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy no_shard "
                          "--num-distributed-optimizer-instances 2")
            << false << 1 << ""
            << "no_shard";
        QTest::addRow("an outer strategy without instances")
            << QByteArray("--use-megatron-fsdp --outer-dp-sharding-strategy optim") << false << 1
            << outer << "";
        QTest::addRow("instances without the distributed optimizer")
            << QByteArray("--num-distributed-optimizer-instances 2") << false << 0 << instances
            << "needs --use-distributed-optimizer";
        QTest::addRow("3 instances of D x C = 8")
            << QByteArray("--use-distributed-optimizer --num-distributed-optimizer-instances 3")
            << false << 0 << instances << "does not divide D x C = 8";
        QTest::addRow("8 instances across C 2: a context-parallel group split")
            << QByteArray("--use-distributed-optimizer --context-parallel-size 2 "
                          "--num-distributed-optimizer-instances 8")
            << false << 0 << instances << "does not divide D = 4";
        QTest::addRow("2 instances of the experts' group of 1")
            << QByteArray("--use-distributed-optimizer --num-distributed-optimizer-instances 2")
            << true << 0 << instances << "experts' data-parallel group of 1";
        QTest::addRow("no instance")
            << QByteArray("--use-distributed-optimizer --num-distributed-optimizer-instances 0")
            << false << 0 << instances << "from 1";
        QTest::addRow("HFSDP beside optim_grads")
            << QByteArray("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads "
                          "--num-distributed-optimizer-instances 2 "
                          "--outer-dp-sharding-strategy optim")
            << false << 0 << outer << "optim_grads_params";
        QTest::addRow("an outer strategy Megatron-LM does not have")
            << QByteArray("--outer-dp-sharding-strategy full") << false << 0 << outer
            << "expects no_shard or optim";
    }
    void megatronOptimizerInstances()
    {
        QFETCH(QByteArray, flags);
        QFETCH(bool, experts);
        QFETCH(int, replicas);
        QFETCH(QString, flag);
        QFETCH(QString, mention);
        Scenario base;
        base.zeroReplicas = 4;
        base.deferReplicaReduce = true;
        const auto result =
            experts ? importLlama8bExperts(flags, base) : importLlama8b(flags, base);
        if (replicas == 0) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            expectRefusal(*error, flag, mention);
            return;
        }
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->zeroReplicas, replicas);
        QCOMPARE(imported.scenario->deferReplicaReduce,
                 replicas > 1 && imported.scenario->zero >= 2);
        QCOMPARE(hasName(imported.ignored, flag), !flag.isEmpty());
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention), io::importSummary(imported).c_str());
        // Parascope takes what it read: the model the flags describe, in these replicas.
        Scenario s = *imported.scenario;
        s.customModel = imported.model;
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
    }

    // --activation-func-fp8-input-store where Megatron-core keeps nothing in FP8: without
    // --swiglu transformer_config.py refuses it ("supported only for SwiGLU"), and beside
    // --no-bias-swiglu-fusion mlp.py runs the unfused SwiGLU, which ignores it. Either is read
    // as the input in 16 bits, with a line saying why.
    void megatronFp8ActivationInputUnused_data()
    {
        QTest::addColumn<QByteArray>("args");
        QTest::addColumn<QString>("assumption");
        QTest::addRow("a GeLU MLP") << QByteArray("--num-layers 4 --hidden-size 256 "
                                                  "--num-attention-heads 4 --vocab-size 1000 "
                                                  "--max-position-embeddings 512 "
                                                  "--activation-func-fp8-input-store\n")
                                    << "Megatron-core refuses it";
        QTest::addRow("the unfused SwiGLU")
            << QByteArray("--num-layers 4 --hidden-size 256 --num-attention-heads 4 "
                          "--vocab-size 1000 --max-position-embeddings 512 --swiglu "
                          "--no-bias-swiglu-fusion "
                          "--activation-func-fp8-input-store\n")
            << "no effect";
    }
    void megatronFp8ActivationInputUnused()
    {
        QFETCH(QByteArray, args);
        QFETCH(QString, assumption);
        io::ImportOptions options;
        options.devices = 8;
        options.modelId = "tiny";
        const auto result = io::importConfig(args, Scenario{}, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QVERIFY(!imported.scenario->fp8ActivationInput);
        QVERIFY(
            contains(imported.assumptions, QStringLiteral("--activation-func-fp8-input-store")));
        QVERIFY2(contains(imported.assumptions, assumption),
                 qPrintable(QString::fromStdString(imported.assumptions.back())));
    }

    // A model that is no preset: Megatron-LM's defaults fill what the flags leave out
    // (arguments.py: FFN 4h, learned positions, tied output layer, 0.1 dropout, biases).
    void megatronNewModel()
    {
        const QByteArray args("--num-layers 4 --hidden-size 256 --num-attention-heads 4 "
                              "--vocab-size 1000 --max-position-embeddings 512 "
                              "--tensor-model-parallel-size 2 --global-batch-size 8\n");
        io::ImportOptions options;
        options.devices = 4;
        options.modelId = "tiny";
        const auto result = io::importConfig(args, Scenario{}, m_presets, options);
        QVERIFY(std::holds_alternative<io::ImportedConfig>(result));
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.model);
        const ModelSpec &m = *imported.model;
        QCOMPARE(m.id, std::string("tiny"));
        QCOMPARE(m.layers, 4);
        QCOMPARE(m.ffnHidden, 1024);
        QCOMPARE(m.kvHeads, 4);
        QCOMPARE(m.learnedPositions, 512);
        QVERIFY(m.tiedEmbeddings);
        QVERIFY(m.dropout);
        QVERIFY(m.bias);
        QCOMPARE(imported.scenario->model, std::string("tiny"));
        QCOMPARE(imported.scenario->dp, 2);
        QCOMPARE(imported.scenario->microbatches, 4); // 8 / (1 x 2)

        // Written back with the model inline, it reads as the same model.
        const auto back = throughMegatron(imported, options);
        QVERIFY(back && *back == m);
    }

    // Qwen2's attention: biases on q, k and v, none on the output projection or the MLP, as
    // Megatron-LM's --disable-bias-linear with --add-qkv-bias (transformer_config.py,
    // add_qkv_bias). By hand, h 256, 4 heads of 64, 2 KV heads, SwiGLU 512, untied 1,000-token
    // vocabulary: a layer has Q and O 256·256 each, K and V 256·128 each, the QKV biases
    // (4 + 2·2)·64 = 512, 3·256·512 in the MLP and two RMSNorm weights of 256: 590,848;
    // two layers, 2·1000·256 embeddings and a 256 final norm: 1,693,952.
    void megatronQkvBias()
    {
        const QByteArray args("--num-layers 2 --hidden-size 256 --num-attention-heads 4 "
                              "--group-query-attention --num-query-groups 2 --ffn-hidden-size 512 "
                              "--swiglu --normalization RMSNorm --position-embedding-type rope "
                              "--disable-bias-linear --add-qkv-bias "
                              "--untie-embeddings-and-output-weights --vocab-size 1000 "
                              "--global-batch-size 8\n");
        io::ImportOptions options;
        options.devices = 4;
        options.modelId = "qkv";
        const auto result = io::importConfig(args, Scenario{}, m_presets, options);
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL(error->toString().c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.model);
        const ModelSpec &m = *imported.model;
        QVERIFY(m.qkvBias && !m.bias && !m.attentionBias);
        QCOMPARE(exactParams(m), std::int64_t{1'693'952});
        std::string arguments;
        const auto back = throughMegatron(imported, options, &arguments);
        QVERIFY(arguments.find("--add-qkv-bias") != std::string::npos);
        QVERIFY(back && *back == m);
    }

    void roundTrip_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<QStringList>("settings");

        const auto megatron = int(Framework::megatron), titan = int(Framework::torchtitan);
        QTest::addRow("megatron 70B T8 K4 D2 interleaved") << megatron
                                                           << QStringList{"model=llama-3.1-70b",
                                                                          "tp=8",
                                                                          "pp=4",
                                                                          "dp=2",
                                                                          "microbatches=16",
                                                                          "schedule=interleaved",
                                                                          "virtual_stages=4",
                                                                          "recompute=selective",
                                                                          "zero=1",
                                                                          "sequence_parallel=true",
                                                                          "tp_overlap=true"};
        QTest::addRow("megatron 8B FlashAttention-2")
            << megatron << QStringList{"model=llama-3.1-8b", "attention=flash2"};
        QTest::addRow("megatron 405B on GB200, the pipeline inside the replica")
            << megatron
            << QStringList{"model=llama-3.1-405b",
                           "device=gb200-nvl72",
                           "tp=4",
                           "pp=8",
                           "cp=2",
                           "dp=8",
                           "microbatches=16",
                           "schedule=interleaved",
                           "virtual_stages=8",
                           "rank_order=tp-cp-ep-pp-dp"};
        QTest::addRow("megatron 8B NVFP4 on B200")
            << megatron << QStringList{"model=llama-3.1-8b", "device=b200", "precision=nvfp4"};
        QTest::addRow("megatron 8B T2 C2 D4 full FP8") << megatron
                                                       << QStringList{"model=llama-3.1-8b",
                                                                      "tp=2",
                                                                      "pp=1",
                                                                      "cp=2",
                                                                      "dp=4",
                                                                      "microbatches=8",
                                                                      "microbatch_size=2",
                                                                      "recompute=full",
                                                                      "zero=0",
                                                                      "precision=fp8",
                                                                      "sequence_parallel=true",
                                                                      "seq_len=8192",
                                                                      "dp_overlap=0",
                                                                      "cp_exchange=alltoall"};
        QTest::addRow("megatron GPT-3 175B T8 K16 FP16") << megatron
                                                         << QStringList{"model=gpt-3-175b",
                                                                        "tp=8",
                                                                        "pp=16",
                                                                        "dp=1",
                                                                        "microbatches=1536",
                                                                        "recompute=none",
                                                                        "zero=0",
                                                                        "precision=fp16",
                                                                        "sequence_parallel=false",
                                                                        "seq_len=2048",
                                                                        "fused_swiglu=false"};
        // Megatron-FSDP (zero 2 and 3) and FP8's current and block scaling come back whole.
        QTest::addRow("megatron 8B Megatron-FSDP FP8 current scaling")
            << megatron
            << QStringList{
                   "model=llama-3.1-8b",     "tp=1",   "pp=1",          "dp=8",
                   "microbatches=16",        "zero=3", "precision=fp8", "fp8_scaling=current",
                   "sequence_parallel=false"};
        QTest::addRow("megatron 8B ZeRO-2 FP8 blockwise")
            << megatron
            << QStringList{"model=llama-3.1-8b",     "tp=1",   "pp=1",          "dp=8",
                           "microbatches=16",        "zero=2", "precision=fp8", "fp8_scaling=block",
                           "sequence_parallel=false"};
        // The distributed optimizer in instances, and Megatron-FSDP's HSDP over them.
        QTest::addRow("megatron 8B distributed optimizer in 4 instances")
            << megatron << QStringList{"model=llama-3.1-8b",
                                       "tp=1",
                                       "pp=1",
                                       "dp=32",
                                       "zero=1",
                                       "zero_replicas=4",
                                       "microbatches=4",
                                       "sequence_parallel=false"};
        QTest::addRow("megatron 8B Megatron-FSDP HSDP, 2 instances")
            << megatron
            << QStringList{"model=llama-3.1-8b",
                           "tp=1",
                           "pp=1",
                           "dp=8",
                           "zero=3",
                           "zero_replicas=2",
                           "defer_replica_reduce=true",
                           "microbatches=16",
                           "sequence_parallel=false"};
        QTest::addRow("megatron 8B with the SwiGLU input in FP8")
            << megatron
            << QStringList{"model=llama-3.1-8b", "precision=fp8", "fp8_activation_input=true"};
        QTest::addRow("megatron 8B with Megatron-core's fused loss")
            << megatron << QStringList{"model=llama-3.1-8b", "loss_fusion=native"};
        QTest::addRow("megatron 8B with Transformer Engine's loss")
            << megatron << QStringList{"model=llama-3.1-8b", "loss_fusion=te"};
        QTest::addRow("megatron 8B MXFP8 with the LM head in FP8")
            << megatron
            << QStringList{"model=llama-3.1-8b",
                           "device=b200",
                           "tp=1",
                           "pp=1",
                           "dp=8",
                           "precision=fp8",
                           "fp8_scaling=block",
                           "fp8_lm_head=true",
                           "sequence_parallel=false"};
        // Llama 3 405B as Meta split it: the embedding and the loss as layers, K = 16, v = 2.
        QTest::addRow("megatron 405B K16 v2, ends in the split")
            << megatron
            << QStringList{"model=llama-3.1-405b",
                           "tp=8",
                           "pp=16",
                           "dp=1",
                           "microbatches=16",
                           "schedule=interleaved",
                           "virtual_stages=2",
                           "ends_in_pipeline_split=true",
                           "recompute=full",
                           "seq_len=8192"};
        QTest::addRow("megatron Mixtral 8x7B E8") << megatron
                                                  << QStringList{"model=mixtral-8x7b",
                                                                 "tp=1",
                                                                 "pp=4",
                                                                 "dp=8",
                                                                 "ep=8",
                                                                 "expert_tp=1",
                                                                 "microbatches=32",
                                                                 "recompute=full",
                                                                 "sequence_parallel=false",
                                                                 "grad_precision=bf16"};
        QTest::addRow("megatron DeepSeek-V3 MLA E32") << megatron
                                                      << QStringList{"model=deepseek-v3",
                                                                     "tp=2",
                                                                     "pp=8",
                                                                     "dp=16",
                                                                     "ep=32",
                                                                     "expert_tp=1",
                                                                     "microbatches=16",
                                                                     "attention=eager",
                                                                     "schedule=interleaved",
                                                                     "virtual_stages=2",
                                                                     "ep_overlap=true"};
        // DeepSeek-V3 Technical Report §3.1-3.2 (docs/experts.md): T 1, K 16, E 64 of D 128,
        // ZeRO-1, its DeepEP-style dispatch.
        QTest::addRow("megatron DeepSeek-V3 E64 flex") << megatron
                                                       << QStringList{"model=deepseek-v3",
                                                                      "tp=1",
                                                                      "pp=16",
                                                                      "dp=128",
                                                                      "ep=64",
                                                                      "expert_tp=1",
                                                                      "zero=1",
                                                                      "microbatches=120",
                                                                      "recompute=full",
                                                                      "sequence_parallel=false",
                                                                      "ep_dispatcher=flex"};
        QTest::addRow("megatron Qwen3 30B-A3B") << megatron
                                                << QStringList{"model=qwen3-30b-a3b",
                                                               "tp=4",
                                                               "pp=2",
                                                               "dp=4",
                                                               "ep=4",
                                                               "microbatches=8",
                                                               "seq_len=4096",
                                                               "fused_grad_accumulation=false",
                                                               "cp_exchange=allgather"};
        QTest::addRow("torchtitan 8B FSDP2 D8") << titan
                                                << QStringList{"model=llama-3.1-8b",
                                                               "tp=1",
                                                               "pp=1",
                                                               "dp=8",
                                                               "zero=3",
                                                               "microbatches=4",
                                                               "microbatch_size=2",
                                                               "recompute=op",
                                                               "sequence_parallel=false"};
        // HSDP: FSDP2 in R replicas of D / R, written as data_parallel_replicate_degree R.
        QTest::addRow("torchtitan 8B HSDP, 4 replicas of D 32")
            << titan << QStringList{"model=llama-3.1-8b",
                                    "tp=1",
                                    "pp=1",
                                    "dp=32",
                                    "zero=3",
                                    "zero_replicas=4",
                                    "microbatches=4",
                                    "sequence_parallel=false"};
        QTest::addRow("torchtitan 70B HSDP with pipelining and C 2")
            << titan
            << QStringList{"model=llama-3.1-70b",
                           "tp=8",
                           "pp=4",
                           "cp=2",
                           "dp=4",
                           "zero=1",
                           "zero_replicas=2",
                           "microbatches=8",
                           "sequence_parallel=true"};
        QTest::addRow("torchtitan 405B T8 K8 interleaved v4")
            << titan
            << QStringList{"model=llama-3.1-405b",
                           "tp=8",
                           "pp=8",
                           "dp=2",
                           "zero=1",
                           "schedule=interleaved",
                           "virtual_stages=4",
                           "microbatches=16",
                           "sequence_parallel=true",
                           "tp_overlap=true",
                           "recompute=full"};
        // torchtitan shards over the context-parallel ranks even at shard 1 (fsdp_enabled):
        // each of the D = 2 replicas over its C = 2 (ZeRO 0 cannot be written with C > 1).
        QTest::addRow("torchtitan 70B HSDP of C2 alltoall FP8")
            << titan
            << QStringList{"model=llama-3.1-70b",
                           "tp=8",
                           "pp=4",
                           "cp=2",
                           "dp=2",
                           "zero=1",
                           "zero_replicas=2",
                           "microbatches=8",
                           "microbatch_size=2",
                           "cp_exchange=alltoall",
                           "recompute=none",
                           "precision=fp8",
                           "sequence_parallel=true"};
        QTest::addRow("torchtitan 70B GPipe ZeRO-3 with pipelining")
            << titan << QStringList{"model=llama-3.1-70b",
                                    "tp=4",
                                    "pp=4",
                                    "dp=4",
                                    "zero=3",
                                    "schedule=gpipe",
                                    "microbatches=8",
                                    "sequence_parallel=true"};
        QTest::addRow("torchtitan DeepSeek-V3 E64 ZB") << titan
                                                       << QStringList{"model=deepseek-v3",
                                                                      "tp=1",
                                                                      "pp=8",
                                                                      "dp=64",
                                                                      "ep=64",
                                                                      "expert_tp=1",
                                                                      "zero=1",
                                                                      "schedule=zb-h1",
                                                                      "microbatches=16",
                                                                      "recompute=full",
                                                                      "sequence_parallel=false"};
        // The same layout in DualPipeV's V: 2 x 8 stages, 16 micro-batches, the fewest it takes.
        QTest::addRow("torchtitan DeepSeek-V3 E64 DualPipeV")
            << titan
            << QStringList{"model=deepseek-v3",
                           "tp=1",
                           "pp=8",
                           "dp=64",
                           "ep=64",
                           "expert_tp=1",
                           "zero=1",
                           "schedule=dualpipev",
                           "microbatches=16",
                           "recompute=full",
                           "sequence_parallel=false"};
        // Megatron-Bridge's DeepSeek-V3 layout on 16 stages (recipes/deepseek/h100/
        // deepseek_v3.py), and the same model interleaved over 8 stages, two chunks each.
        QTest::addRow("megatron DeepSeek-V3 K16, its layout")
            << megatron
            << QStringList{"model=deepseek-v3",
                           "tp=1",
                           "pp=16",
                           "dp=64",
                           "ep=64",
                           "expert_tp=1",
                           "zero=1",
                           "microbatches=32",
                           "recompute=full",
                           "sequence_parallel=false",
                           "pipeline_layout=Et*4|(t*4|)*14,tmL"};
        // DeepSeek-V3 on 512 devices at K = 8 with two chunks a stage, under a layout.
        const QStringList deepseekK8v2{"model=deepseek-v3",
                                       "tp=1",
                                       "pp=8",
                                       "dp=64",
                                       "ep=64",
                                       "expert_tp=1",
                                       "zero=1",
                                       "microbatches=32",
                                       "recompute=full",
                                       "schedule=interleaved",
                                       "virtual_stages=2",
                                       "sequence_parallel=false"};
        QTest::addRow("megatron DeepSeek-V3 K8 v2, its layout")
            << megatron << deepseekK8v2 + QStringList{"pipeline_layout=Et*4|(t*4|)*14,tmL"};
        QTest::addRow("torchtitan 8B K4, the ends not counted")
            << titan << QStringList{"model=llama-3.1-8b",
                                    "tp=1",
                                    "pp=4",
                                    "dp=2",
                                    "microbatches=8",
                                    "ends_in_pipeline_split=false",
                                    "sequence_parallel=false"};
        QTest::addRow("torchtitan 8B K4 v2, uneven parts")
            << titan
            << QStringList{"model=llama-3.1-8b",
                           "tp=1",
                           "pp=4",
                           "dp=2",
                           "microbatches=8",
                           "schedule=interleaved",
                           "virtual_stages=2",
                           "sequence_parallel=false"};
        QTest::addRow("torchtitan DeepSeek-V3 K8 v2, a layout")
            << titan
            << deepseekK8v2 +
                   QStringList{"pipeline_layout=Et*4|(t*4|)*14,tL", "ends_in_pipeline_split=false"};
        // pytorch/torchtitan#2107's DeepEP run: 512 devices, K 8 interleaved, E 32, shard 64.
        QTest::addRow("torchtitan DeepSeek-V3 E32 DeepEP") << titan
                                                           << QStringList{"model=deepseek-v3",
                                                                          "tp=1",
                                                                          "pp=8",
                                                                          "dp=64",
                                                                          "ep=32",
                                                                          "expert_tp=1",
                                                                          "zero=1",
                                                                          "schedule=interleaved",
                                                                          "virtual_stages=2",
                                                                          "microbatches=16",
                                                                          "seq_len=4096",
                                                                          "recompute=full",
                                                                          "sequence_parallel=false",
                                                                          "ep_dispatcher=flex"};
        QTest::addRow("torchtitan Qwen3 235B-A22B ETP = T")
            << titan << QStringList{"model=qwen3-235b-a22b",
                                    "tp=4",
                                    "pp=1",
                                    "dp=8",
                                    "ep=8",
                                    "expert_tp=4",
                                    "zero=3",
                                    "microbatches=2",
                                    "precision=fp32",
                                    "sequence_parallel=true",
                                    "seq_len=4096"};
    }
    void roundTrip()
    {
        QFETCH(int, framework);
        QFETCH(QStringList, settings);
        const auto fw = Framework(framework);
        Scenario s;
        applyFramework(s, fw);
        for (const QString &setting : settings) {
            const auto error = setField(s, setting.section(QLatin1Char('='), 0, 0).toStdString(),
                                        setting.section(QLatin1Char('='), 1).toStdString());
            QVERIFY2(!error, qPrintable(setting));
        }
        const auto emitted = io::emitConfig(s, m_presets, fw);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        const auto result =
            io::importConfig(QByteArray::fromStdString(text), Scenario{}, m_presets, {});
        if (const auto *error = std::get_if<InputError>(&result))
            QFAIL((error->toString() + "\n" + text).c_str());
        const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(!imported.model);
        for (const QString &key : fw == Framework::megatron ? kMegatronKeys : kTorchtitanKeys)
            QVERIFY2(fieldText(*imported.scenario, key.toStdString()) ==
                         fieldText(s, key.toStdString()),
                     qPrintable(
                         key + QStringLiteral(": ") +
                         QString::fromStdString(fieldText(*imported.scenario, key.toStdString())) +
                         QStringLiteral(" != ") +
                         QString::fromStdString(fieldText(s, key.toStdString())) +
                         QStringLiteral("\n") + QString::fromStdString(text)));
    }

    // Each schedule as torchtitan's pipeline_parallel_schedule spells it (get_schedule_class in
    // torch/distributed/pipelining/schedules.py), a comment only where none is the scenario's.
    void torchtitanEmitsSchedule_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("comment"); // empty: no comment names the schedule
        QTest::addRow("1f1b") << "1f1b"
                              << "1F1B"
                              << "";
        QTest::addRow("gpipe") << "gpipe"
                               << "GPipe"
                               << "";
        QTest::addRow("interleaved") << "interleaved"
                                     << "Interleaved1F1B"
                                     << "";
        QTest::addRow("zb-h1") << "zb-h1"
                               << "ZBVZeroBubble"
                               << "schedule=zb-h1: ";
        QTest::addRow("dualpipev") << "dualpipev"
                                   << "DualPipeV"
                                   << "";
    }
    void torchtitanEmitsSchedule()
    {
        QFETCH(QString, schedule);
        QFETCH(QString, written);
        QFETCH(QString, comment);
        Scenario s;
        applyFramework(s, Framework::torchtitan);
        QVERIFY(!setField(s, "schedule", schedule.toStdString()));
        QVERIFY(s.pp > 1);
        const auto emitted = io::emitConfig(s, m_presets, Framework::torchtitan);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        const std::string line = "pipeline_parallel_schedule = \"" + written.toStdString() + "\"\n";
        QVERIFY2(text.find(line) != std::string::npos, text.c_str());
        QCOMPARE(text.find("#   schedule=") != std::string::npos, !comment.isEmpty());
        if (!comment.isEmpty())
            QVERIFY2(text.find("#   " + comment.toStdString()) != std::string::npos, text.c_str());
        // The V's two stages a rank are torchtitan's default: no layers_per_stage to write.
        if (schedule != QLatin1String("interleaved"))
            QVERIFY2(text.find("pipeline_parallel_layers_per_stage") == std::string::npos,
                     text.c_str());
    }

    // What the framework has no setting for is a comment, not silence.
    void emitComments_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("comment");
        QTest::addRow("megatron DeepSpeed's ZeRO buffers")
            << int(Framework::megatron) << QStringList{"zero_buffers=deepspeed"}
            << "zero_buffers=deepspeed";
        QTest::addRow("megatron hybrid sharding without ZeRO")
            << int(Framework::megatron) << QStringList{"zero=0", "zero_replicas=2"}
            << "zero_replicas=2 without ZeRO";
        QTest::addRow("megatron Megatron-FSDP's HSDP, all-reduced every micro-batch")
            << int(Framework::megatron)
            << QStringList{"tp=1", "pp=1", "dp=8", "zero=3", "zero_replicas=2"}
            << "defer_replica_reduce=false: Megatron-FSDP all-reduces across the instances once";
        QTest::addRow("deepspeed hybrid sharding at ZeRO-2")
            << int(Framework::deepspeed) << QStringList{"zero=2", "zero_replicas=2"}
            << "MiCS, is ZeRO-3's";
        QTest::addRow("deepspeed MiCS beside tensor parallelism")
            << int(Framework::deepspeed) << QStringList{"zero=3", "pp=1", "zero_replicas=2"}
            << "takes no tensor or pipeline parallelism";
        QTest::addRow("deepspeed MiCS, the model built under MiCS_Init")
            << int(Framework::deepspeed) << QStringList{"zero=3", "tp=1", "pp=1", "zero_replicas=2"}
            << "MiCS_Init";
        QTest::addRow("deepspeed MiCS, all-reduced every micro-batch")
            << int(Framework::deepspeed) << QStringList{"zero=3", "tp=1", "pp=1", "zero_replicas=2"}
            << "defer_replica_reduce=false: MiCS all-reduces across its replication groups";
        QTest::addRow("torchtitan activation offloading")
            << int(Framework::torchtitan)
            << QStringList{"pp=1", "recompute=none", "offload_layers=10"}
            << "offload_layers=10: torchtitan has no layer-by-layer activation offloading";
        QTest::addRow("deepspeed activation offloading")
            << int(Framework::deepspeed)
            << QStringList{"pp=1", "recompute=none", "offload_layers=10"}
            << "offload_layers=10: Transformer Engine's CPU offloading";
        QTest::addRow("megatron GPipe")
            << int(Framework::megatron) << QStringList{"schedule=gpipe"} << "schedule=gpipe";
        QTest::addRow("megatron DualPipeV")
            << int(Framework::megatron) << QStringList{"schedule=dualpipev"}
            << "schedule=dualpipev: Megatron-LM has no DualPipeV";
        QTest::addRow("megatron DualPipeV's parts")
            << int(Framework::megatron)
            << QStringList{"model=llama-3.1-8b", "pp=4", "schedule=dualpipev",
                           "pipeline_layout=Et*3|t*5|(t*4|)*5,t*4L"}
            << "pipeline_layout Et*3|t*5|(t*4|)*5,t*4L: DualPipeV's parts";
        QTest::addRow("megatron DualPipe")
            << int(Framework::megatron) << QStringList{"schedule=dualpipe"}
            << "schedule=dualpipe: Megatron-LM has no DualPipe";
        QTest::addRow("torchtitan DualPipe, written as DualPipeV")
            << int(Framework::torchtitan) << QStringList{"schedule=dualpipe"}
            << "schedule=dualpipe: torch.distributed.pipelining has no bidirectional DualPipe";
        QTest::addRow("megatron cached outputs")
            << int(Framework::megatron) << QStringList{"cache_outputs=true"}
            << "cache_outputs=true";
        // Packed examples are the data's (docs/step_time.md, "Packed examples").
        QTest::addRow("megatron packed examples")
            << int(Framework::megatron) << QStringList{"packed_example_tokens=512"}
            << "packed_example_tokens=512: packed sequences are the dataset's";
        QTest::addRow("torchtitan packed examples")
            << int(Framework::torchtitan) << QStringList{"packed_example_tokens=512"}
            << "packed_example_tokens=512: the examples' boundaries come from the data";
        QTest::addRow("deepspeed packed examples")
            << int(Framework::deepspeed)
            << QStringList{"packed_example_tokens=512", "tp=1", "pp=1", "dp=64"}
            << "packed_example_tokens=512: packing is the data loader's";
        // LoRA is the fine-tuning framework's, not the launch file's (docs/step_time.md, "LoRA").
        QTest::addRow("megatron LoRA")
            << int(Framework::megatron)
            << QStringList{"lora_rank=16", "lora_modules=linear_qkv,linear_proj"}
            << "lora_rank=16: Megatron-LM has no LoRA; Megatron-Bridge's PEFT has it, "
               "peft=LoRA(dim=16, target_modules=['linear_qkv', 'linear_proj'])";
        QTest::addRow("megatron LoRA with NVFP4 frozen weights")
            << int(Framework::megatron)
            << QStringList{"lora_rank=16", "precision=nvfp4", "device=b200", "fp8_params=true"}
            << "fp8_params=true: the frozen weights held in NVFP4, quantized once before training";
        QTest::addRow("megatron LoRA exchanged by all-to-all")
            << int(Framework::megatron)
            << QStringList{"lora_rank=16", "lora_modules=linear_qkv,linear_proj", "lora_a2a=true"}
            << "target_modules=['linear_qkv', 'linear_proj'], a2a_experimental=True)";
        // The adapters' dropout is PEFT's too: Megatron-Bridge's LoRA(dropout=...), PEFT's
        // LoraConfig(lora_dropout=...); torchtitan's converter has none.
        QTest::addRow("megatron LoRA dropout")
            << int(Framework::megatron)
            << QStringList{"lora_rank=16", "lora_modules=linear_qkv", "lora_dropout=0.1"}
            << "peft=LoRA(dim=16, target_modules=['linear_qkv'], dropout=0.1)";
        QTest::addRow("megatron LoRA dropout after B")
            << int(Framework::megatron)
            << QStringList{"lora_rank=16", "lora_modules=linear_qkv", "lora_dropout=0.1",
                           "lora_dropout_position=post"}
            << "dropout=0.1, dropout_position='post')";
        QTest::addRow("deepspeed LoRA dropout after B")
            << int(Framework::deepspeed) << QStringList{"lora_rank=8",
                                                        "lora_dropout=0.05",
                                                        "lora_dropout_position=post",
                                                        "tp=1",
                                                        "pp=1",
                                                        "dp=64"}
            << "(PEFT drops the adapters' input, not B's output)";
        QTest::addRow("deepspeed LoRA dropout")
            << int(Framework::deepspeed)
            << QStringList{"lora_rank=8", "lora_dropout=0.05", "tp=1", "pp=1", "dp=64"}
            << "LoraConfig(r=8, lora_dropout=0.05, target_modules=...)";
        QTest::addRow("torchtitan LoRA dropout")
            << int(Framework::torchtitan) << QStringList{"lora_rank=16", "lora_dropout=0.1"}
            << "with its own module names and no dropout (lora_dropout=0.1)";
        // Megatron-core's tp_comm_overlap_disable_qkv is a config field without a flag.
        QTest::addRow("megatron QKV's overlap off")
            << int(Framework::megatron)
            << QStringList{"tp=8", "sequence_parallel=true", "tp_overlap=true",
                           "tp_overlap_qkv=false"}
            << "tp_overlap_qkv=false: Megatron-core's tp_comm_overlap_disable_qkv has no flag";
        QTest::addRow("torchtitan QKV's overlap off")
            << int(Framework::torchtitan)
            << QStringList{"tp=8", "sequence_parallel=true", "tp_overlap=true",
                           "tp_overlap_qkv=false"}
            << "tp_overlap_qkv=false: torchtitan's async tensor parallelism has no switch";
        QTest::addRow("torchtitan LoRA")
            << int(Framework::torchtitan) << QStringList{"lora_rank=16"}
            << "lora_rank=16 on ['linear_qkv', 'linear_proj', 'linear_fc1', 'linear_fc2']: a "
               "TOML job has no LoRA";
        QTest::addRow("deepspeed LoRA")
            << int(Framework::deepspeed)
            << QStringList{"lora_rank=8", "lora_modules=linear_fc1 linear_fc2", "tp=1", "pp=1",
                           "dp=64"}
            << "lora_rank=8 on ['linear_fc1', 'linear_fc2']: DeepSpeed's config has no LoRA";
        QTest::addRow("torchtitan delayed FP8 scaling")
            << int(Framework::torchtitan) << QStringList{"precision=fp8", "fp8_scaling=delayed"}
            << "fp8_scaling=delayed";
        // Multi-token prediction and recomputed modules (docs/step_time.md, docs/activations.md).
        QTest::addRow("torchtitan multi-token prediction")
            << int(Framework::torchtitan) << QStringList{"mtp_layers=1"}
            << "mtp_layers=1: torchtitan builds multi-token prediction from its model registry";
        QTest::addRow("deepspeed multi-token prediction")
            << int(Framework::deepspeed) << QStringList{"mtp_layers=1"}
            << "mtp_layers=1: DeepSpeed has no multi-token-prediction module";
        QTest::addRow("torchtitan recomputed modules")
            << int(Framework::torchtitan)
            << QStringList{"recompute=selective", "recompute_modules=core_attn mlp"}
            << "recompute=selective of core_attn mlp: torchtitan has no module-by-module";
        QTest::addRow("megatron selective recomputation of nothing")
            << int(Framework::megatron)
            << QStringList{"recompute=selective", "recompute_modules=none"}
            << "recompute=selective with recompute_modules=none reruns nothing";
        // docs/experts.md, "Capacity": torchtitan's MoE has none; DeepSpeed-MoE's gate pads to
        // capacity with drop_tokens, to the group's largest load without (sharded_moe.py).
        QTest::addRow("torchtitan with a capacity")
            << int(Framework::torchtitan)
            << QStringList{"model=qwen3-30b-a3b",        "tp=1", "pp=1", "dp=8", "ep=8",
                           "expert_capacity_factor=1.25"}
            << "expert_capacity_factor=1.25: torchtitan's MoE routes every token";
        QTest::addRow("deepspeed with a padded capacity")
            << int(Framework::deepspeed) << QStringList{"model=qwen3-30b-a3b",
                                                        "tp=1",
                                                        "pp=1",
                                                        "dp=8",
                                                        "ep=8",
                                                        "expert_capacity_factor=1.25",
                                                        "pad_to_capacity=true"}
            << "MoE(capacity_factor=1.25, drop_tokens=True), which pads every expert to its "
               "capacity";
        // docs/experts.md, "Routing imbalance": no framework's flag sets it.
        for (const Framework f : {Framework::megatron, Framework::torchtitan, Framework::deepspeed})
            QTest::addRow("%s with the busiest expert rank at 1.5", core::toString(f).data())
                << int(f) << QStringList{"model=qwen3-30b-a3b", "tp=1", "pp=1", "dp=8", "ep=8",
                                         "expert_rank_load=1.5"}
                << "expert_rank_load=1.5: the busiest expert rank's share of routing as trained";
        QTest::addRow("deepspeed dropless")
            << int(Framework::deepspeed)
            << QStringList{"model=qwen3-30b-a3b", "tp=1", "pp=1", "dp=8", "ep=8"}
            << "dropless: deepspeed.moe.layer.MoE(drop_tokens=False)";
        QTest::addRow("torchtitan fused SwiGLU")
            << int(Framework::torchtitan) << QStringList{"fused_swiglu=true"}
            << "fused_swiglu=true";
        // Megatron-core's fused SwiGLU keeps its input in FP8 (fused_bias_swiglu.py); the
        // other frameworks keep it in 16 bits.
        QTest::addRow("torchtitan FP8 SwiGLU input")
            << int(Framework::torchtitan)
            << QStringList{"fused_swiglu=true", "fp8_activation_input=true"}
            << "fp8_activation_input=true: Megatron-core's fused SwiGLU keeps its input in FP8; "
               "torchtitan's feed-forward keeps it in 16 bits";
        QTest::addRow("deepspeed FP8 SwiGLU input")
            << int(Framework::deepspeed)
            << QStringList{"fused_swiglu=true", "fp8_activation_input=true", "tp=1", "pp=1",
                           "dp=64"}
            << "fp8_activation_input=true: Megatron-core's fused SwiGLU keeps its input in FP8; "
               "under DeepSpeed the model's own code";
        QTest::addRow("torchtitan FlashAttention-2")
            << int(Framework::torchtitan) << QStringList{"attention=flash2"} << "attention=flash2";
        QTest::addRow("megatron FlashAttention-3 installed")
            << int(Framework::megatron) << QStringList{"attention=flash3"} << "attention=flash3";
        QTest::addRow("megatron FP8 inputs kept in 16 bits")
            << int(Framework::megatron)
            << QStringList{"precision=fp8", "save_quantized_inputs=false"}
            << "save_quantized_inputs=false";
        QTest::addRow("megatron the weight cache off, a config field without a flag")
            << int(Framework::megatron)
            << QStringList{"precision=fp8", "fp8_params=false", "fp8_weight_cache=false"}
            << "fp8_weight_cache=false: Megatron-LM's arguments have no flag";
        QTest::addRow("torchtitan BF16 moments")
            << int(Framework::torchtitan) << QStringList{"optimizer_moments=bf16"}
            << "optimizer_moments=bf16: torchtitan's AdamW keeps its moments";
        QTest::addRow("deepspeed BF16 moments")
            << int(Framework::deepspeed)
            << QStringList{"optimizer_moments=bf16", "tp=1", "pp=1", "dp=64"}
            << "optimizer_moments=bf16: DeepSpeed's Adam keeps FP32 moments";
        QTest::addRow("torchtitan the weight cache on")
            << int(Framework::torchtitan)
            << QStringList{"precision=fp8", "fp8_params=false", "fp8_weight_cache=true"}
            << "fp8_weight_cache=true: torchao's Float8Linear casts the weights";
        QTest::addRow("megatron FP8 attention, a config field without a flag")
            << int(Framework::megatron) << QStringList{"precision=fp8", "fp8_attention=true"}
            << "fp8_attention=true: Megatron-LM's current arguments have no flag";
        QTest::addRow("deepspeed a pipeline layout")
            << int(Framework::deepspeed)
            << QStringList{"model=llama-3.1-8b", "pp=4", "pipeline_layout=Et*11|t*11|t*9|tL"}
            << "pipeline_layout Et*11|t*11|t*9|tL: PipelineModule places the layers";
        QTest::addRow("torchtitan FP8 attention")
            << int(Framework::torchtitan) << QStringList{"precision=fp8", "fp8_attention=true"}
            << "fp8_attention=true: torchao's float8 converter changes the linear layers only";
        QTest::addRow("torchtitan a fused loss")
            << int(Framework::torchtitan) << QStringList{"loss_fusion=te"}
            << "loss_fusion=te: a Megatron-LM loss kernel; torchtitan's loss is PyTorch's";
        QTest::addRow("deepspeed a fused loss")
            << int(Framework::deepspeed) << QStringList{"loss_fusion=native"}
            << "loss_fusion=native: a Megatron-LM loss kernel; the model's own code";
        QTest::addRow("torchtitan FP8 LM head")
            << int(Framework::torchtitan)
            << QStringList{"precision=fp8", "fp8_scaling=block", "fp8_lm_head=true"}
            << "fp8_lm_head=true: torchtitan's float8 and MX converters leave the output layer";
        QTest::addRow("megatron Transformer Engine's loss, refused at launch")
            << int(Framework::megatron) << QStringList{"loss_fusion=te"}
            << "loss_fusion=te: current Megatron-LM refuses --cross-entropy-fusion-impl te";
        QTest::addRow("torchtitan FP8 inputs kept cast")
            << int(Framework::torchtitan)
            << QStringList{"precision=fp8", "save_quantized_inputs=true"}
            << "save_quantized_inputs=true";
        QTest::addRow("torchtitan DeepEP beside expert tensor parallelism")
            << int(Framework::torchtitan)
            << QStringList{"model=qwen3-30b-a3b", "tp=2", "dp=4", "ep=4", "expert_tp=2",
                           "ep_dispatcher=flex"}
            << "ep_dispatcher=flex with expert_tp > 1";
        QTest::addRow("torchtitan model without a flavor")
            << int(Framework::torchtitan) << QStringList{"model=gpt-3-175b"}
            << "torchtitan has no flavor";
    }
    void emitComments()
    {
        QFETCH(int, framework);
        QFETCH(QStringList, settings);
        Scenario s;
        applyFramework(s, Framework(framework));
        for (const QString &setting : settings)
            QVERIFY(!setField(s, setting.section(QLatin1Char('='), 0, 0).toStdString(),
                              setting.section(QLatin1Char('='), 1).toStdString()));
        const auto emitted = io::emitConfig(s, m_presets, Framework(framework));
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string &text = std::get<std::string>(emitted);
        QFETCH(QString, comment);
        const std::size_t at = text.find(comment.toStdString());
        QVERIFY2(at != std::string::npos, text.c_str());
        // A DeepSpeed config is JSON: its comments are the "comment" list's lines, which
        // close with the first bracket on a line of its own.
        if (Framework(framework) == Framework::deepspeed)
            QVERIFY2(text.find("\"comment\": [") < at && at < text.find("\n  ]"), text.c_str());
        else
            QCOMPARE(text[text.rfind('\n', at) + 1], '#');
    }
};

QTEST_GUILESS_MAIN(TestImportLaunch)
#include "tst_import_launch.moc"
