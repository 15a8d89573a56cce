// docs/DESIGN.md §4's table: what is refused (naming the key) and what is only warned about.
#include "core/echo.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <cmath>

using namespace core;

class TestValidate : public QObject
{
    Q_OBJECT

private:
    Presets presets = io::builtinPresets();

private Q_SLOTS:
    void refused_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("key");
        QTest::addRow("docs/DESIGN.md §4: unknown model preset")
            << QStringList{"model=gpt-5"} << "model";
        QTest::addRow("docs/DESIGN.md §4: unknown device preset")
            << QStringList{"device=tpu"} << "device";
        QTest::addRow("docs/DESIGN.md §4: tp = 0") << QStringList{"tp=0"} << "tp";
        QTest::addRow("docs/DESIGN.md §4: pp = -1") << QStringList{"pp=-1"} << "pp";
        QTest::addRow("docs/DESIGN.md §4: dp = 0") << QStringList{"dp=0"} << "dp";
        QTest::addRow("docs/DESIGN.md §4: microbatches = 0")
            << QStringList{"microbatches=0"} << "microbatches";
        QTest::addRow("docs/DESIGN.md §4: microbatch_size = 0")
            << QStringList{"microbatch_size=0"} << "microbatch_size";
        QTest::addRow("docs/DESIGN.md §4: seq_len = 0") << QStringList{"seq_len=0"} << "seq_len";
        QTest::addRow("docs/DESIGN.md §4: K > layers (70B has 80)")
            << QStringList{"pp=100"} << "pp";
        QTest::addRow("zero_replicas = 0") << QStringList{"zero_replicas=0"} << "zero_replicas";
        QTest::addRow("zero_replicas = 3 does not divide D = 2")
            << QStringList{"zero_replicas=3"} << "zero_replicas";
        QTest::addRow("zero_replicas with DualPipe's mirrored copies")
            << QStringList{"schedule=dualpipe", "pp=4", "microbatches=8", "zero_replicas=2"}
            << "zero_replicas";
        QTest::addRow("zero_replicas = 4 does not divide the experts' group of 2")
            << QStringList{"model=mixtral-8x7b", "tp=1", "pp=1", "dp=8", "ep=4", "zero_replicas=4"}
            << "zero_replicas";
        QTest::addRow("docs/DESIGN.md §4: 64 heads not divisible by 3")
            << QStringList{"tp=3"} << "tp";
        QTest::addRow("docs/DESIGN.md §4: interleaved, m not a multiple of K")
            << QStringList{"schedule=interleaved", "microbatches=6"} << "microbatches";
        QTest::addRow("docs/DESIGN.md §4: interleaved, 20 layers per stage into 3 chunks")
            << QStringList{"schedule=interleaved", "virtual_stages=3"} << "virtual_stages";
        // deepseek-ai/DualPipe, dualpipev.py: num_chunks >= num_ranks * 2; its V puts both ends
        // on stage 0; each of a stage's two chunks needs a layer (80 layers fill 80 chunks).
        QTest::addRow("dualpipev.py: m = 8 < 2 x 8 stages")
            << QStringList{"schedule=dualpipev", "pp=8", "microbatches=8"} << "microbatches";
        QTest::addRow("DualPipeV: 80 layers in 82 chunks")
            << QStringList{"schedule=dualpipev", "pp=41", "microbatches=82"} << "pp";
        // deepseek-ai/DualPipe, dualpipe.py: num_ranks % 2 == 0, num_chunks % 2 == 0 and
        // num_chunks >= num_ranks * 2; each end stage runs an embedding and a loss.
        QTest::addRow("dualpipe.py: 5 stages, odd")
            << QStringList{"schedule=dualpipe", "pp=5", "microbatches=10"} << "pp";
        QTest::addRow("dualpipe.py: m = 17, odd")
            << QStringList{"schedule=dualpipe", "pp=4", "microbatches=17"} << "microbatches";
        QTest::addRow("dualpipe.py: m = 6 < 2 x 4 stages")
            << QStringList{"schedule=dualpipe", "pp=4", "microbatches=6"} << "microbatches";
        QTest::addRow("DualPipe: an embedding and a loss on each end stage")
            << QStringList{"schedule=dualpipe", "microbatches=16", "ends_in_pipeline_split=true"}
            << "ends_in_pipeline_split";
        QTest::addRow("docs/DESIGN.md §4: int4 in training")
            << QStringList{"precision=int4"} << "precision";
        QTest::addRow("docs/DESIGN.md §4: q4_0 in training")
            << QStringList{"precision=q4_0"} << "precision";
        QTest::addRow("docs/DESIGN.md §4: zero = 4") << QStringList{"zero=4"} << "zero";
        QTest::addRow("docs/DESIGN.md §3.5: grad_precision fp8")
            << QStringList{"grad_precision=fp8"} << "grad_precision";
        QTest::addRow("negative reserve") << QStringList{"reserve_gib=-1"} << "reserve_gib";
        QTest::addRow("zero inter-node bandwidth")
            << QStringList{"inter_node_gb_per_s=0"} << "inter_node_gb_per_s";
        // Megatron-core transformer_config.py: padding needs a capacity factor to pad to.
        // Megatron-core transformer_config.py's checks on recompute_modules.
        QTest::addRow("recompute_modules: an unknown module")
            << QStringList{"recompute_modules=core_attn attention"} << "recompute_modules";
        QTest::addRow("recompute_modules: mla_up_proj without latent attention")
            << QStringList{"recompute_modules=mla_up_proj"} << "recompute_modules";
        QTest::addRow("recompute_modules: layernorm under FP8 delayed scaling")
            << QStringList{"precision=fp8", "fp8_scaling=delayed", "recompute_modules=layernorm"}
            << "recompute_modules";
        // Megatron-core validate_layer_layout: the layout's m as many as --mtp-num-layers.
        QTest::addRow("mtp_layers = -1") << QStringList{"mtp_layers=-1"} << "mtp_layers";
        QTest::addRow("mtp_layers = 17") << QStringList{"mtp_layers=17"} << "mtp_layers";
        QTest::addRow("a layout's m without mtp_layers")
            << QStringList{"pp=2", "pipeline_layout=Et*40|t*40mL"} << "pipeline_layout";
        QTest::addRow("mtp_layers without the layout's m")
            << QStringList{"pp=2", "mtp_layers=1", "pipeline_layout=Et*40|t*40L"}
            << "pipeline_layout";
        QTest::addRow("m away from the loss (Megatron-core's standalone MTP)")
            << QStringList{"pp=2", "mtp_layers=1", "pipeline_layout=Et*40m|t*40L"}
            << "pipeline_layout";
        QTest::addRow("pad_to_capacity, dropless")
            << QStringList{"model=qwen3-30b-a3b", "pad_to_capacity=true"} << "pad_to_capacity";
        // docs/experts.md, "Routing imbalance": 1 is balanced, and no rank takes less.
        QTest::addRow("rank load below balanced")
            << QStringList{"model=qwen3-30b-a3b", "expert_rank_load=0.9"} << "expert_rank_load";
        QTest::addRow("rank load beyond any E")
            << QStringList{"model=qwen3-30b-a3b", "expert_rank_load=20000"} << "expert_rank_load";
        // Megatron-core's transformer_config.py checks for CPU offloading, and a host link to
        // time it over (docs/activations.md, "Offloaded layers").
        QTest::addRow("offload_layers below 0")
            << QStringList{"offload_layers=-1"} << "offload_layers";
        QTest::addRow("offload_layers = the 70B's 80 layers")
            << QStringList{"pp=1", "recompute=none", "offload_layers=80"} << "offload_layers";
        QTest::addRow("offload_layers with pipeline stages")
            << QStringList{"pp=4", "recompute=none", "offload_layers=10"} << "offload_layers";
        QTest::addRow("offload_layers with recomputation")
            << QStringList{"pp=1", "recompute=selective", "offload_layers=10"} << "offload_layers";
        QTest::addRow("offload_layers on a device without a host link")
            << QStringList{"device=tpu-v5p", "pp=1", "recompute=none", "offload_layers=10"}
            << "offload_layers";
        QTest::addRow("capacity factor 0")
            << QStringList{"model=qwen3-30b-a3b", "expert_capacity_factor=0"}
            << "expert_capacity_factor";
        QTest::addRow("negative capacity factor")
            << QStringList{"model=qwen3-30b-a3b", "expert_capacity_factor=-1"}
            << "expert_capacity_factor";
        // An example is at most a sequence (docs/step_time.md, "Packed examples").
        QTest::addRow("packed examples longer than the sequence")
            << QStringList{"seq_len=4096", "packed_example_tokens=4097"} << "packed_example_tokens";
        QTest::addRow("negative packed examples")
            << QStringList{"packed_example_tokens=-1"} << "packed_example_tokens";
        // LoRA's rank is below the widths it adapts (Hu et al. 2021, §4): the default 70B is
        // 8,192 wide.
        QTest::addRow("LoRA rank wider than the model")
            << QStringList{"lora_rank=8193"} << "lora_rank";
        QTest::addRow("negative LoRA rank") << QStringList{"lora_rank=-1"} << "lora_rank";
        QTest::addRow("LoRA dropout of 1")
            << QStringList{"lora_rank=16", "lora_dropout=1"} << "lora_dropout";
        QTest::addRow("negative LoRA dropout")
            << QStringList{"lora_rank=16", "lora_dropout=-0.1"} << "lora_dropout";
        // Megatron-LM's block method counts a chunk's layers: at most the model's 80.
        QTest::addRow("more recomputed layers than the model has")
            << QStringList{"recompute=full", "recompute_layers=81"} << "recompute_layers";
        QTest::addRow("negative recomputed layers")
            << QStringList{"recompute=full", "recompute_layers=-1"} << "recompute_layers";
        // Megatron-core keeps an FP8 input for its fused SwiGLU only (transformer_config.py).
        QTest::addRow("FP8 activation input without a SwiGLU")
            << QStringList{"model=gpt-3-175b", "tp=8", "fused_swiglu=true",
                           "fp8_activation_input=true"}
            << "fp8_activation_input";
        QTest::addRow("FP8 activation input without the fused SwiGLU")
            << QStringList{"fused_swiglu=false", "fp8_activation_input=true"}
            << "fp8_activation_input";
        QTest::addRow("LoRA on a projection Megatron-Bridge does not name")
            << QStringList{"lora_rank=16", "lora_modules=q_proj"} << "lora_modules";
        QTest::addRow("LoRA beside no projection")
            << QStringList{"lora_rank=16", "lora_modules=,"} << "lora_modules";
    }
    void refused()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, key);
        const Report r = evaluate(scenario(settings), presets);
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error->key), key);
        QVERIFY(!r.error->message.empty());
        QVERIFY(r.stages.empty());
        // A search that validated the model and device once (the planner's) skips them, and
        // nothing else: every refusal of the scenario itself is the same.
        EvaluateOptions checked;
        checked.presetsValidated = true;
        const Report again = evaluate(scenario(settings), presets, checked);
        QVERIFY(!again.ok());
        QCOMPARE(QString::fromStdString(again.error->key), key);
        QCOMPARE(again.error->message, r.error->message);
        QVERIFY(!stepTimeLowerBound(scenario(settings), presets, checked));
    }

    // Module lists parse to their bits, or to what is wrong, whatever was parsed before: each
    // thread remembers its last list.
    void moduleListsParseAlike()
    {
        const auto bits = [](const std::variant<unsigned, std::string> &v) {
            return std::holds_alternative<unsigned>(v) ? std::get<unsigned>(v) : ~0u;
        };
        for (int round = 0; round < 2; ++round) {
            QCOMPARE(bits(parseRecomputeModules("core_attn")), unsigned{kRecomputeCoreAttn});
            QCOMPARE(bits(parseRecomputeModules("mla_up_proj, mlp")),
                     unsigned{kRecomputeMlaUpProj | kRecomputeMlp});
            QCOMPARE(bits(parseRecomputeModules("mlp mla_up_proj")),
                     unsigned{kRecomputeMlaUpProj | kRecomputeMlp});
            const auto wrong = parseRecomputeModules("core_attn attn");
            QVERIFY(std::holds_alternative<std::string>(wrong));
            QVERIFY(std::get<std::string>(wrong).find("'attn'") != std::string::npos);
            QCOMPARE(bits(parseRecomputeModules("")), 0u);
            QCOMPARE(bits(parseLoraModules("linear_qkv")), unsigned{kLoraQkv});
            QCOMPARE(bits(parseLoraModules(" linear_fc2 ,linear_proj")),
                     unsigned{kLoraFc2 | kLoraProj});
            QVERIFY(std::holds_alternative<std::string>(parseLoraModules("q_proj")));
        }
    }

    // What the presets' check skips changes no valid scenario's report.
    void presetsValidatedChangesNoReport()
    {
        EvaluateOptions checked;
        checked.presetsValidated = true;
        for (const QString &set :
             {QString(),
              QString("model=llama-3.1-405b,tp=8,pp=16,dp=8,microbatches=16,"
                      "schedule=interleaved,virtual_stages=4,ends_in_pipeline_split=true,"
                      "recompute=full")}) {
            const Scenario s = scenario(set);
            const Report full = evaluate(s, presets);
            const Report skipped = evaluate(s, presets, checked);
            QVERIFY(full.ok() && skipped.ok() && full.stepTime && skipped.stepTime);
            QCOMPARE(skipped.stepTime->stepTimeS, full.stepTime->stepTimeS);
            QCOMPARE(skipped.stages.back().totalBytes, full.stages.back().totalBytes);
            QCOMPARE(skipped.warnings.size(), full.warnings.size());
            QCOMPARE(*stepTimeLowerBound(s, presets, checked), *stepTimeLowerBound(s, presets));
        }
    }

    // README "Limits": inputs beyond them are refused with the field and the limit. Before,
    // they overflowed, ran out of memory or gave absurd times. Rows named after a fuzzer are
    // inputs it found (docs/TESTING.md); the others are the same overflows, found while
    // writing the fuzzers' properties. Each row's input is also in tests/data/fuzz/set/.
    void beyondTheLimits_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        QTest::addRow("fuzz_set_option: dp = 2042400205 overflowed T x K x D")
            << QStringList{"dp=2042400205"} << "dp"
            << "must be at most 1048576 (data-parallel degree), got 2042400205";
        QTest::addRow("T x C x K x D beyond 2^30 devices")
            << QStringList{"tp=64", "pp=64", "dp=1048576"} << "dp"
            << "T x C x K x D = 4294967296 devices, more than the 1073741824";
        QTest::addRow("fuzz_set_option: m = 147834647 ran out of memory in the simulation")
            << QStringList{"microbatches=147834647"} << "microbatches"
            << "must be at most 1048576 (micro-batches per step)";
        QTest::addRow("fuzz_set_option: m = 10251025 simulated for minutes")
            << QStringList{"microbatches=10251025"} << "microbatches"
            << "must be at most 1048576 (micro-batches per step)";
        QTest::addRow("fuzz_set_option: microbatch_size = 214748364 wrapped the TP bytes")
            << QStringList{"microbatch_size=214748364"} << "microbatch_size"
            << "must be at most 65536 (sequences per micro-batch)";
        QTest::addRow("K x m beyond the simulation's 2^21")
            << QStringList{"pp=4", "microbatches=1048576"} << "microbatches"
            << "pp x microbatches = 4194304, more than the 2097152";
        QTest::addRow("K x m x v beyond the simulation's 2^21, interleaved")
            << QStringList{"schedule=interleaved", "pp=8", "virtual_stages=2",
                           "microbatches=131080"}
            << "microbatches"
            << "pp x microbatches x virtual_stages = 2097280, more than the 2097152";
        QTest::addRow("pp beyond 4096") << QStringList{"pp=5000"} << "pp"
                                        << "at most 4096";
        QTest::addRow("tp beyond 65536") << QStringList{"tp=131072"} << "tp"
                                         << "at most 65536";
        QTest::addRow("microbatch_size beyond 65536")
            << QStringList{"microbatch_size=65537"} << "microbatch_size"
            << "at most 65536";
        QTest::addRow("seq_len beyond 2^24") << QStringList{"seq_len=16777217"} << "seq_len"
                                             << "at most 16777216";
        QTest::addRow("virtual_stages beyond 1024")
            << QStringList{"virtual_stages=1025"} << "virtual_stages"
            << "at most 1024";
        QTest::addRow("fuzz_set_option: reserve_gib = 48000000002035882 gave negative totals")
            << QStringList{"reserve_gib=48000000002035882"} << "reserve_gib"
            << "must be at most 1048576 GiB (1 PiB), got ";
        QTest::addRow("fuzz_scenario_file: reserve_gib = 14294967296.5 gave negative totals")
            << QStringList{"reserve_gib=14294967296.5"} << "reserve_gib"
            << "must be at most 1048576 GiB (1 PiB), got 14294967296.5 GiB";
        // The limit as written in README "Limits", 2^20 GiB, not rounded to 1.05e+06: a
        // value just above it was refused with a limit that looked larger than the value.
        QTest::addRow("reserve_gib one GiB beyond 2^20")
            << QStringList{"reserve_gib=1048577"} << "reserve_gib"
            << "must be at most 1048576 GiB (1 PiB), got 1048577 GiB";
        QTest::addRow("mfu = 1e-300 gave a step of 1e300 s") << QStringList{"mfu=1e-300"} << "mfu"
                                                             << "must be at least 0.001";
        QTest::addRow("inter_node_gb_per_s = 1e-300 gave a step of 1e302 s")
            << QStringList{"inter_node_gb_per_s=1e-300"} << "inter_node_gb_per_s"
            << "must be from 0.001 to 1e9 GB/s, or empty for the device's; got 1e-300 GB/s";
        QTest::addRow("mfu = 0.0005") << QStringList{"mfu=0.0005"} << "mfu"
                                      << "must be at least 0.001, got 0.0005";
        // Within the window's sliders: 405B, eager attention, s = 131072, b = 256, m = 1024
        // on one stage came to -9.2e18 bytes of activations. docs/activations.md at T = 8 with
        // sequence parallelism, per token: 4·2h/8 = 16,384 replicated; Q and O 8,192, repeated
        // K and V 8,192, the softmax output 2·(128/8)·s = 4,194,304, SwiGLU 4·2·53248/8 =
        // 53,248 sharded: 4,280,320 bytes × 33,554,432 tokens × 126 layers × 1024 (GPipe).
        QTest::addRow("activations beyond 64 bits")
            << QStringList{"model=llama-3.1-405b",
                           "pp=1",
                           "dp=1",
                           "microbatches=1024",
                           "microbatch_size=256",
                           "seq_len=131072",
                           "attention=eager",
                           "recompute=none",
                           "schedule=gpipe"}
            << "seq_len"
            << "the activations a stage keeps would come to about 1.85e19 bytes per device, "
               "more than the limit of 2^60 bytes (1 EiB) (seq_len 131072, microbatch_size 256, "
               "microbatches 1024)";
        // docs/activations.md, "The loss": GPipe keeps 1,023 micro-batches' FP32 softmaxes and
        // one in its backward, (1,023 × 4 + 6) × 128,256 bytes a token, over 2^32 tokens a
        // micro-batch: 2.26e18 bytes, where full recomputation keeps 1,024 × 32 layers' 8 kB
        // inputs a token, 1.2e18.
        QTest::addRow("loss buffers beyond 64 bits")
            << QStringList{"model=llama-3.1-8b",
                           "tp=1",
                           "pp=1",
                           "dp=1",
                           "microbatches=1024",
                           "microbatch_size=32768",
                           "seq_len=131072",
                           "recompute=full",
                           "schedule=gpipe"}
            << "seq_len"
            << "the loss's buffers would come to about 2.26e18 bytes per device";
        QTest::addRow("tensor-parallel traffic beyond 64 bits")
            << QStringList{"mode=inference", "microbatches=1024", "microbatch_size=65536",
                           "seq_len=131072"}
            << "seq_len"
            << "the tensor-parallel traffic of a step would come to about";
        QTest::addRow("KV cache beyond 64 bits") << QStringList{"model=llama-3.1-405b",
                                                                "mode=inference",
                                                                "precision=int4",
                                                                "pp=1",
                                                                "dp=1",
                                                                "microbatches=1024",
                                                                "microbatch_size=65536",
                                                                "seq_len=1048576"}
                                                 << "seq_len"
                                                 << "more than the limit of 2^60 bytes (1 EiB)";
    }
    void beyondTheLimits()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, key);
        QFETCH(QString, words);
        const Scenario s = scenario(settings);
        const auto e = validate(s, presets);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        QVERIFY2(QString::fromStdString(e->message).contains(words), e->message.c_str());
        QVERIFY(!evaluate(s, presets).ok());
    }

    // A value a message echoes is short and safe on a terminal: a file's or --set's value
    // once came back whole (100 MB) and with its escape sequences live.
    void echoedValues_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        QTest::addRow("ANSI clear screen and red in a model id")
            << QStringList{"model=\x1b[2J\x1b[31mred"} << "model"
            << "unknown preset '\\x1b[2J\\x1b[31mred'";
        QTest::addRow("a newline in a device id") << QStringList{"device=a\nb"} << "device"
                                                  << "unknown preset 'a\\nb'";
        QTest::addRow("a right-to-left override in a device id")
            << QStringList{QString::fromUtf8("device=\u202eevil")} << "device"
            << "unknown preset '\\u202eevil'";
        QTest::addRow("a model id of 100000 characters")
            << QStringList{"model=" + QString(100000, QLatin1Char('x'))} << "model"
            << "unknown preset '" + QString(int(kEchoChars), QLatin1Char('x')) +
                   QString::fromUtf8("\u2026' (100000 bytes)");
    }
    void echoedValues()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, key);
        QFETCH(QString, words);
        const auto e = validate(scenario(settings), presets);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        const QString message = QString::fromStdString(e->message);
        QVERIFY2(message.contains(words), e->message.c_str());
        QVERIFY(message.size() < 500);
        for (const QChar c : message)
            QVERIFY2(c.unicode() >= 0x20 && (c.unicode() < 0x7f || c.unicode() > 0x9f),
                     e->message.c_str());
    }

    void escapedAndShortened_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("echo");
        QTest::addRow("plain") << QByteArray("tp=4") << "tp=4";
        QTest::addRow("newline, tab, return") << QByteArray("a\nb\tc\r") << "a\\nb\\tc\\r";
        QTest::addRow("ANSI escape") << QByteArray("\x1b[31m") << "\\x1b[31m";
        QTest::addRow("NUL") << QByteArray("a\0b", 3) << "a\\x00b";
        QTest::addRow("DEL") << QByteArray("\x7f") << "\\x7f";
        QTest::addRow("C1 control sequence introducer") << QByteArray("\xc2\x9b") << "\\x9b";
        QTest::addRow("a byte that is not UTF-8") << QByteArray("a\xff"
                                                                "b")
                                                  << "a\\xffb";
        QTest::addRow("a truncated UTF-8 sequence") << QByteArray("\xe2\x80") << "\\xe2\\x80";
        QTest::addRow("right-to-left override") << QByteArray("\xe2\x80\xae") << "\\u202e";
        QTest::addRow("accents stay") << QByteArray("caf\xc3\xa9") << QString::fromUtf8("café");
        QTest::addRow("60 characters stay whole")
            << QByteArray(60, 'a') << QString(60, QLatin1Char('a'));
        QTest::addRow("61 characters are cut")
            << QByteArray(61, 'a')
            << QString(60, QLatin1Char('a')) + QString::fromUtf8("\u2026 (61 bytes)");
        QTest::addRow("cut between characters, not bytes")
            << QByteArray("\xc3\xa9").repeated(61)
            << QString(60, QChar(0xe9)) + QString::fromUtf8("\u2026 (122 bytes)");
    }
    void escapedAndShortened()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, echo);
        QCOMPARE(QString::fromStdString(excerpt(std::string_view(text.constData(), text.size()))),
                 echo);
    }

    // Numbers in messages are exact and read as people write them (README "Limits").
    void plainNumbers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("2^20 GiB") << 1048576.0 << "1048576";
        QTest::addRow("a TDP limit of 10^6 W") << 1e6 << "1000000";
        QTest::addRow("9 x 10^15 parameters") << 9e15 << "9e15";
        QTest::addRow("10^9 GB/s") << 1e9 << "1e9";
        QTest::addRow("0.001") << 0.001 << "0.001";
        QTest::addRow("0.0005") << 0.0005 << "0.0005";
        QTest::addRow("1.5") << 1.5 << "1.5";
        QTest::addRow("1e-300") << 1e-300 << "1e-300";
        QTest::addRow("-3 x 10^9") << -3e9 << "-3e9";
        QTest::addRow("2^63, exact") << 9223372036854775808.0 << "9223372036854775808";
        QTest::addRow("2^31 - 1") << 2147483647.0 << "2147483647";
        QTest::addRow("a fraction") << 14294967296.5 << "14294967296.5";
    }
    void plainNumbers()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(plainNumber(value)), text);
    }

    // Just within the limits the counts are exact: every stage adds up, nothing wrapped.
    void justWithinTheLimits_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("activations of GPipe, eager attention, s = 32768")
            << QStringList{"model=llama-3.1-405b",
                           "pp=2",
                           "dp=1",
                           "microbatches=64",
                           "microbatch_size=4",
                           "seq_len=32768",
                           "attention=eager",
                           "recompute=none",
                           "schedule=gpipe"};
        QTest::addRow("the tensor-parallel traffic of a step at s = 131072")
            << QStringList{"pp=4", "microbatches=256", "microbatch_size=8", "seq_len=131072"};
        QTest::addRow("the KV cache of 1024 x 64 sequences of 65536 tokens") << QStringList{
            "mode=inference",     "tp=1",         "pp=4", "dp=1", "microbatches=1024",
            "microbatch_size=64", "seq_len=65536"};
    }
    void justWithinTheLimits()
    {
        QFETCH(QStringList, settings);
        const Report r = evaluate(scenario(settings), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.tpComm.bytesPerStep >= 0);
        for (const auto &st : r.stages) {
            QVERIFY(st.activationsBytes >= 0 && st.kvCacheBytes >= 0);
            QVERIFY(st.totalBytes > st.capacityBytes); // far beyond any device
            std::int64_t sum = 0; // every row of core::kMemoryTerms, each exact
            for (const MemoryTerm &term : kMemoryTerms)
                sum += st.*term.bytes;
            QCOMPARE(st.totalBytes, sum);
        }
    }

    // Large but allowed data-parallel degrees evaluate without wrapping: the experts' sync
    // ranks once multiplied D by D (fuzz_set_option found it with dp = 220404 on the default,
    // dense model; tests/data/fuzz/set/regress-expert-sync-ranks.set).
    void largeDataParallelSyncs_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<int>("expertRanks");
        QTest::addRow("fuzz_set_option: dp = 220404, dense") << QStringList{"dp=220404"} << 0;
        // E = 4 of T x C x D = 220,404: 55,101 expert data-parallel ranks.
        QTest::addRow("dp = 220404, Mixtral over E = 4")
            << QStringList{"model=mixtral-8x7b", "tp=1", "pp=1", "dp=220404", "ep=4"} << 55101;
    }
    void largeDataParallelSyncs()
    {
        QFETCH(QStringList, settings);
        QFETCH(int, expertRanks);
        const Report r = evaluate(scenario(settings), presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->toString().c_str() : "no step time");
        QVERIFY(r.stepTime->dpCommTotalS > 0 && std::isfinite(r.stepTime->dpCommTotalS));
        QCOMPARE(r.stepTime->expertDpRanks, expertRanks);
    }

    void unparsable_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addRow("docs/DESIGN.md §4: unknown key") << "tensor_parallel"
                                                        << "4";
        QTest::addRow("docs/DESIGN.md §4: tp not a number") << "tp"
                                                            << "four";
        QTest::addRow("docs/DESIGN.md §4: tp with a fraction") << "tp"
                                                               << "4.5";
        QTest::addRow("docs/DESIGN.md §4: tp with trailing text") << "tp"
                                                                  << "4x";
        QTest::addRow("docs/DESIGN.md §4: unknown schedule") << "schedule"
                                                             << "pipedream";
        QTest::addRow("docs/DESIGN.md §4: unknown precision") << "precision"
                                                              << "fp4";
        QTest::addRow("docs/DESIGN.md §4: boolean spelled yes") << "sequence_parallel"
                                                                << "yes";
        QTest::addRow("docs/DESIGN.md §4: reserve not a number") << "reserve_gib"
                                                                 << "lots";
        QTest::addRow("docs/DESIGN.md §4: reserve is NaN") << "reserve_gib"
                                                           << "nan";
    }
    void unparsable()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        Scenario s;
        const Scenario before = s;
        auto e = setField(s, key.toStdString(), value.toStdString());
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        QVERIFY(s == before);
    }

    void warned_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("answer"); // the KEY=VALUE it carries, if any
        QTest::addRow("docs/DESIGN.md §4: does not fit")
            << QStringList{"tp=1", "pp=1", "dp=1"} << "does-not-fit"
            << "";
        QTest::addRow("ZeRO 1 at D x C = 1 under torchtitan, which then applies no FSDP")
            << QStringList{"framework=torchtitan", "dp=1", "zero=1"} << "zero-unused"
            << "zero=0";
        QTest::addRow("ZeRO 3 at D x C = 1 under torchtitan")
            << QStringList{"framework=torchtitan", "dp=1", "zero=3"} << "zero-unused"
            << "zero=0";
        QTest::addRow("ZeRO under torchtitan on a MoE model whose experts' group is one device")
            << QStringList{"framework=torchtitan",
                           "model=mixtral-8x7b",
                           "tp=8",
                           "ep=8",
                           "expert_tp=1",
                           "dp=1",
                           "zero=1"}
            << "zero-unused"
            << "zero=0";
        QTest::addRow("zero_replicas at ZeRO 0: nothing to shard")
            << QStringList{"zero=0", "zero_replicas=2"} << "zero-replicas-unused"
            << "zero_replicas=1";
        QTest::addRow("zero_replicas at ZeRO 0, not dividing D: unused, not refused")
            << QStringList{"zero=0", "zero_replicas=3"} << "zero-replicas-unused"
            << "zero_replicas=1";
        QTest::addRow("defer_replica_reduce without hybrid sharding")
            << QStringList{"zero=3", "defer_replica_reduce=true"} << "defer-replica-reduce-unused"
            << "defer_replica_reduce=false";
        QTest::addRow("defer_replica_reduce at ZeRO 1: once a step already")
            << QStringList{"zero=1", "zero_replicas=2", "defer_replica_reduce=true"}
            << "defer-replica-reduce-unused"
            << "defer_replica_reduce=false";
        QTest::addRow("zero_replicas in inference: no gradients")
            << QStringList{"mode=inference", "zero_replicas=2"} << "zero-replicas-unused"
            << "zero_replicas=1";
        QTest::addRow("recompute_modules without selective recomputation")
            << QStringList{"recompute=full", "recompute_modules=moe_act"}
            << "recompute-modules-unused"
            << "";
        QTest::addRow("recompute_modules: moe on a dense model")
            << QStringList{"recompute_modules=core_attn moe"} << "recompute-modules-unused"
            << "";
        QTest::addRow("mtp_layers in inference")
            << QStringList{"mode=inference", "mtp_layers=1"} << "mtp-unused"
            << "mtp_layers=0";
        QTest::addRow("docs/DESIGN.md §4: m < K")
            << QStringList{"microbatches=2"} << "pipe-never-fills"
            << "";
        QTest::addRow("docs/DESIGN.md §4: uneven stages (80 layers, K=3)")
            << QStringList{"pp=3"} << "uneven-stages"
            << "";
        QTest::addRow("docs/DESIGN.md §4: tp spans nodes (T=16 > 8 per node)")
            << QStringList{"tp=16"} << "tp-spans-nodes"
            << "";
        QTest::addRow("docs/DESIGN.md §4: tp > kv_heads (T=16 > 8)")
            << QStringList{"tp=16"} << "kv-heads-replicated"
            << "";
        QTest::addRow("a capacity for a dense model")
            << QStringList{"expert_capacity_factor=1.25", "pad_to_capacity=true"}
            << "capacity-unused"
            << "";
        QTest::addRow("offloaded layers in inference")
            << QStringList{"mode=inference", "pp=1", "offload_layers=10"} << "offload-layers-unused"
            << "offload_layers=0";
        QTest::addRow("a rank load for a dense model")
            << QStringList{"expert_rank_load=1.5"} << "expert-rank-load-unused"
            << "expert_rank_load=1";
        // Qwen3 30B-A3B: 128 experts, k = 8; at E = 8 a rank holds 16, so it takes at most
        // 8 of a token's 8 copies against an even 1: 8.
        QTest::addRow("a rank load beyond what E allows")
            << QStringList{"model=qwen3-30b-a3b", "tp=1", "pp=1", "dp=8", "ep=8",
                           "expert_rank_load=9"}
            << "expert-rank-load-capped"
            << "expert_rank_load=8";
        QTest::addRow("a rank load with every expert on one device")
            << QStringList{"model=qwen3-30b-a3b", "tp=1", "pp=1", "dp=8", "ep=1",
                           "expert_rank_load=1.2"}
            << "expert-rank-load-capped"
            << "expert_rank_load=1";
        // Below an even share and loaded too: one warning, the busiest rank's drop,
        // 1 - 0.5 / 2 = 75 %.
        QTest::addRow("a rank load over a capacity below an even share")
            << QStringList{"model=qwen3-30b-a3b",
                           "tp=1",
                           "pp=1",
                           "dp=8",
                           "ep=8",
                           "expert_capacity_factor=0.5",
                           "expert_rank_load=2"}
            << "tokens-dropped"
            << "expert_capacity_factor=2";
        QTest::addRow("a rank load above the capacity")
            << QStringList{"model=qwen3-30b-a3b",
                           "tp=1",
                           "pp=1",
                           "dp=8",
                           "ep=8",
                           "expert_capacity_factor=1.25",
                           "expert_rank_load=2"}
            << "tokens-dropped"
            << "expert_capacity_factor=2";
        QTest::addRow("a whole-step CUDA graph in inference")
            << QStringList{"mode=inference", "full_cuda_graph=true"} << "cuda-graph-unused"
            << "full_cuda_graph=false";
        QTest::addRow("capacity below an even share")
            << QStringList{"model=qwen3-30b-a3b",       "tp=1", "pp=1", "dp=8", "ep=8",
                           "expert_capacity_factor=0.5"}
            << "tokens-dropped"
            << "";
        QTest::addRow("virtual stages without interleaving")
            << QStringList{"virtual_stages=2"} << "virtual-stages-unused"
            << "virtual_stages=1";
        QTest::addRow("recomputed layers without full recomputation")
            << QStringList{"recompute_layers=5"} << "recompute-layers-unused"
            << "recompute_layers=0";
        QTest::addRow("tp_overlap without sequence parallelism")
            << QStringList{"tp_overlap=true", "sequence_parallel=false"} << "tp-overlap-unused"
            << "tp_overlap=false";
        QTest::addRow("lora_a2a without LoRA") << QStringList{"lora_a2a=true"} << "lora-a2a-unused"
                                               << "lora_a2a=false";
        QTest::addRow("lora_a2a with QKV adapted alone")
            << QStringList{"lora_a2a=true", "lora_rank=16", "lora_modules=linear_qkv"}
            << "lora-a2a-unused"
            << "lora_a2a=false";
        QTest::addRow("lora_dropout without LoRA")
            << QStringList{"lora_dropout=0.1"} << "lora-dropout-unused"
            << "lora_dropout=0";
        QTest::addRow("a dropout position without dropout")
            << QStringList{"lora_rank=16", "lora_dropout_position=post"}
            << "lora-dropout-position-unused"
            << "lora_dropout_position=pre";
        QTest::addRow("lora_dropout in inference")
            << QStringList{"lora_rank=16", "lora_dropout=0.1", "mode=inference"}
            << "lora-dropout-unused"
            << "lora_dropout=0";
        QTest::addRow("QKV's overlap off without tp_overlap")
            << QStringList{"tp_overlap_qkv=false"} << "tp-overlap-qkv-unused"
            << "tp_overlap_qkv=true";
        QTest::addRow("ep_overlap on a dense model")
            << QStringList{"ep_overlap=true"} << "ep-overlap-unused"
            << "ep_overlap=false";
        QTest::addRow("fp8_attention in BF16")
            << QStringList{"fp8_attention=true"} << "fp8-attention-unused"
            << "fp8_attention=false";
        QTest::addRow("fp8_lm_head in BF16")
            << QStringList{"fp8_lm_head=true"} << "fp8-lm-head-unused"
            << "fp8_lm_head=false";
    }
    // Where one setting answers the warning (Warning::setKey, the window's link, eval's
    // JSON `set`), applying it clears that warning and keeps the scenario valid.
    void warned()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, code);
        QFETCH(QString, answer);
        const Report r = evaluate(scenario(settings), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.hasWarning(code.toStdString()));
        for (const Warning &w : r.warnings) {
            if (w.code != code.toStdString())
                continue;
            QCOMPARE(QString::fromStdString(w.setKey.empty() ? "" : w.setKey + "=" + w.setValue),
                     answer);
            if (w.setKey.empty())
                continue;
            Scenario answered = scenario(settings);
            QVERIFY(!setField(answered, w.setKey, w.setValue));
            const Report after = evaluate(answered, presets);
            QVERIFY2(after.ok(), after.error ? after.error->toString().c_str() : "");
            QVERIFY2(!after.hasWarning(code.toStdString()), w.setKey.c_str());
        }
    }

    // torchtitan shards wherever two ranks hold the same parameters: D x C > 1, or a MoE
    // model's expert data-parallel group T x C x D / (E x expert T) > 1; other profiles' ZeRO at
    // D x C = 1 is what they run.
    void zeroShardsSomethingUnwarned_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("torchtitan, D = 2") << QStringList{"framework=torchtitan", "dp=2", "zero=1"};
        QTest::addRow("torchtitan, C = 2, D = 1")
            << QStringList{"framework=torchtitan", "dp=1", "cp=2", "zero=3"};
        QTest::addRow("torchtitan, MoE, D = 1, experts over 4 ranks")
            << QStringList{"framework=torchtitan",
                           "model=mixtral-8x7b",
                           "tp=8",
                           "ep=2",
                           "expert_tp=1",
                           "dp=1",
                           "zero=1"};
        QTest::addRow("torchtitan inference: no states to shard")
            << QStringList{"framework=torchtitan", "mode=inference", "dp=1", "zero=1"};
        QTest::addRow("Megatron-LM, D = 1") << QStringList{"framework=megatron", "dp=1", "zero=1"};
        QTest::addRow("DeepSpeed, D = 1: its ZeRO optimizer runs at world size 1")
            << QStringList{"framework=deepspeed", "dp=1", "zero=2"};
        QTest::addRow("custom, D = 1") << QStringList{"dp=1", "zero=3"};
    }
    void zeroShardsSomethingUnwarned()
    {
        QFETCH(QStringList, settings);
        const Report r = evaluate(scenario(settings), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(!r.hasWarning("zero-unused"));
    }

    void defaultScenarioHasNoWarnings()
    {
        const Report r = evaluate(Scenario{}, presets);
        QVERIFY(r.ok());
        QVERIFY(r.fits);
        QVERIFY(r.warnings.empty());
    }

    // docs/DESIGN.md §3.3: the first L mod K stages take one extra layer.
    void splitLayersGivesTheRemainderToTheFirst_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("stages");
        QTest::addColumn<QList<int>>("split");
        QTest::addRow("80 into 4") << 80 << 4 << QList<int>{20, 20, 20, 20};
        QTest::addRow("80 into 3") << 80 << 3 << QList<int>{27, 27, 26};
        QTest::addRow("126 into 8") << 126 << 8 << QList<int>{16, 16, 16, 16, 16, 16, 15, 15};
        QTest::addRow("5 into 5") << 5 << 5 << QList<int>{1, 1, 1, 1, 1};
    }
    void splitLayersGivesTheRemainderToTheFirst()
    {
        QFETCH(int, layers);
        QFETCH(int, stages);
        QFETCH(QList<int>, split);
        const std::vector<int> got = splitLayers(layers, stages);
        QCOMPARE(QList<int>(got.begin(), got.end()), split);
    }

    // Counting the embedding and the loss as a layer each (Megatron-LM arguments.py,
    // --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split):
    // Llama 3 405B's 126 layers and the two ends are 128 over 16 stages, 8 each, so the first
    // and last hold 7 (Dubey et al. 2024, §3.3.2: "one Transformer layer each" fewer).
    void splitLayersCountingTheEnds_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("stages");
        QTest::addColumn<QList<int>>("split");
        QList<int> llama(16, 8);
        llama.front() = 7;
        llama.back() = 7;
        QTest::addRow("126 into 16") << 126 << 16 << llama;
        QTest::addRow("126 into 8") << 126 << 8 << QList<int>{15, 16, 16, 16, 16, 16, 16, 15};
        QTest::addRow("30 into 4: 32 counted") << 30 << 4 << QList<int>{7, 8, 8, 7};
        QTest::addRow("one stage holds both ends anyway") << 32 << 1 << QList<int>{32};
    }
    void splitLayersCountingTheEnds()
    {
        QFETCH(int, layers);
        QFETCH(int, stages);
        QFETCH(QList<int>, split);
        const std::vector<int> got = splitLayers(layers, stages, true);
        QCOMPARE(QList<int>(got.begin(), got.end()), split);
    }

    // The interleaved schedule counts the ends in the chunks too: 128 counted layers over 16
    // stages split into 2 chunks of 4; a stage left no layer of its own is refused, naming
    // the key.
    void endsInPipelineSplitValidation_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("key"); // empty: valid
        QTest::addRow("405B, K = 16, v = 2")
            << "model=llama-3.1-405b,tp=8,pp=16,dp=1,microbatches=16,schedule=interleaved,"
               "virtual_stages=2,ends_in_pipeline_split=true"
            << "";
        QTest::addRow("405B, K = 16, v = 2, ends not counted: 126 do not split")
            << "model=llama-3.1-405b,tp=8,pp=16,dp=1,microbatches=16,schedule=interleaved,"
               "virtual_stages=2"
            << "virtual_stages";
        QTest::addRow("8B, K = 32: the last stage would hold only the loss")
            << "model=llama-3.1-8b,tp=1,pp=32,dp=1,microbatches=32,ends_in_pipeline_split=true"
            << "ends_in_pipeline_split";
    }
    void endsInPipelineSplitValidation()
    {
        QFETCH(QString, settings);
        QFETCH(QString, key);
        Scenario s;
        for (const QString &kv : settings.split(QLatin1Char(',')))
            QVERIFY(!setField(s, kv.section(QLatin1Char('='), 0, 0).toStdString(),
                              kv.section(QLatin1Char('='), 1).toStdString()));
        const auto error = validate(s, io::builtinPresets());
        if (key.isEmpty())
            QVERIFY2(!error, error ? error->message.c_str() : "");
        else {
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key), key);
        }
    }

    // 126 layers over 16 stages are uneven; with the two ends counted, 128 are not, and the
    // stages hold 7, 8, …, 8, 7 layers.
    void endsInPipelineSplitEvensTheStages()
    {
        const QString base = QStringLiteral("model=llama-3.1-405b,tp=8,pp=16,dp=1,microbatches=16");
        for (const bool ends : {false, true}) {
            const Report r = evaluate(scenario(base + (ends ? ",ends_in_pipeline_split=true" : "")),
                                      io::builtinPresets());
            QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
            const bool uneven =
                std::any_of(r.warnings.begin(), r.warnings.end(),
                            [](const Warning &w) { return w.code == "uneven-stages"; });
            QCOMPARE(uneven, !ends);
            QCOMPARE(r.stages.front().layers, ends ? 7 : 8);
            QCOMPARE(r.stages.back().layers, 7); // 126 = 14 × 8 + 2 × 7 either way
            QCOMPARE(r.stages[1].layers, 8);
        }
    }
};

QTEST_APPLESS_MAIN(TestValidate)
#include "tst_validate.moc"
