// The per-operation step-time model against published measurements of real training runs
// (docs/step_time.md, "Validation"). Every expected value is the paper's; the model's
// constants come from datasheets and public benchmarks, none from these runs.
#include "core/evaluate.h"
#include "io/presets_io.h"
#include "test_models.h"
#include "test_scenarios.h"

#include <QCoreApplication>
#include <QMetaMethod>
#include <QTest>
#include <algorithm>
#include <array>
#include <cmath>

using namespace core;

namespace {

struct Run
{
    ModelSpec model;
    QString set; // the layout, as --set keys
};

// Relative error of the modelled against the published value.
double error(double modelled, double published)
{
    return modelled / published - 1;
}

// Every published run's difference, as each test asserts it, for meanOverEveryRun: the
// tables of docs/step_time.md ("What the tables say") count these.
std::vector<double> &runErrors()
{
    static std::vector<double> errors;
    return errors;
}
void counted(double e)
{
    runErrors().push_back(std::abs(e));
}

// Where evaluate's moe-host warning applies, the range it gives on top of the modelled step
// (docs/step_time.md, "Fine-grained experts"), beside the run's own difference.
void reportMoeWait(const core::Report &r)
{
    if (r.stepTime && r.stepTime->moeHostHighS > 0)
        qInfo("  untimed MoE wait: %.0f to %.0f percent on top of the modelled step",
              100 * r.stepTime->moeHostLowS / r.stepTime->stepTimeS,
              100 * r.stepTime->moeHostHighS / r.stepTime->stepTimeS);
}

// Llama 2 70B, the model of MLPerf's LoRA benchmark: Llama 3.1 70B's shape with a vocabulary
// of 32,000 (meta-llama/Llama-2-70b-hf, config.json), fine-tuned at 8,192 tokens.
ModelSpec llama2_70b(const core::Presets &presets)
{
    ModelSpec llama2 = *presets.model("llama-3.1-70b");
    llama2.id = "llama-2-70b";
    llama2.name = "Llama 2 70B";
    llama2.vocab = 32000;
    llama2.contextWindow = 8192;
    return llama2;
}

} // namespace

class TestStepTimeValidation : public QObject
{
    Q_OBJECT

private:
    static Report evaluateRun(const ModelSpec &model, const QString &set)
    {
        Scenario s = scenario(set);
        s.customModel = model;
        return evaluate(s, io::builtinPresets());
    }

private Q_SLOTS:
    // Korthikanti et al. 2022, Table 4: forward and backward time of ONE transformer layer of
    // the 22B model (Table 3: h 6144, 64 heads, s 2048, T = 8, micro-batch 4) on A100 80GB
    // in FP16, eager attention. "Backward" includes what recomputation reruns. This checks
    // the per-operation model beneath every end-to-end row below.
    void korthikantiTable4Layer_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("forwardMs");
        QTest::addColumn<double>("backwardMs");
        const QString common = QStringLiteral(
            "device=a100-80gb,precision=fp16,tp=8,pp=1,dp=1,seq_len=2048,microbatches=1,"
            "microbatch_size=4,zero=0,attention=eager,cache_outputs=false,");
        QTest::addRow("no recompute")
            << common + QStringLiteral("recompute=none,sequence_parallel=false") << 7.7 << 11.9;
        QTest::addRow("sequence parallel")
            << common + QStringLiteral("recompute=none,sequence_parallel=true") << 7.2 << 11.8;
        QTest::addRow("full recompute")
            << common + QStringLiteral("recompute=full,sequence_parallel=false") << 7.7 << 19.5;
        QTest::addRow("selective")
            << common + QStringLiteral("recompute=selective,sequence_parallel=false") << 7.7
            << 13.2;
        QTest::addRow("selective + SP")
            << common + QStringLiteral("recompute=selective,sequence_parallel=true") << 7.2 << 13.1;
    }
    void korthikantiTable4Layer()
    {
        QFETCH(QString, set);
        QFETCH(double, forwardMs);
        QFETCH(double, backwardMs);
        const Report r = evaluateRun(megatronGpt(48, 6144, 64), set);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(!r.layerOps.empty());
        // One layer's forward; its backward is B + W plus what recomputation reruns first.
        double forward = 0, backward = 0;
        std::array<double, kTimePartCount> fwdParts{}, bwdParts{};
        for (const LayerOp &op : r.layerOps) {
            const double rerun = op.rerun * op.forward.seconds;
            forward += op.forward.seconds;
            backward += op.backward.seconds + op.weight.seconds + rerun;
            fwdParts[static_cast<std::size_t>(op.part)] += op.forward.seconds;
            bwdParts[static_cast<std::size_t>(op.part)] +=
                op.backward.seconds + op.weight.seconds + rerun;
        }
        const auto ms = [](double s) { return 1e3 * s; };
        const double ef = error(ms(forward), forwardMs);
        const double eb = error(ms(backward), backwardMs);
        qInfo("%s: forward %.2f ms (published %.1f, %+.1f %%), backward %.2f ms (published %.1f, "
              "%+.1f %%)",
              QTest::currentDataTag(), ms(forward), forwardMs, 100 * ef, ms(backward), backwardMs,
              100 * eb);
        for (const TimePartInfo &info : kTimeParts) {
            const auto i = static_cast<std::size_t>(info.part);
            if (fwdParts[i] > 0 || bwdParts[i] > 0)
                qInfo("  %-22s F %.2f ms, B %.2f ms", info.label.data(), ms(fwdParts[i]),
                      ms(bwdParts[i]));
        }
        // docs/step_time.md: each pass of one layer within 10 %.
        QVERIFY2(std::abs(ef) <= 0.10, qPrintable(QString::number(100 * ef, 'f', 1)));
        QVERIFY2(std::abs(eb) <= 0.10, qPrintable(QString::number(100 * eb, 'f', 1)));
    }

    // Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
    // Models"), Table 5: end-to-end iteration time on A100 80GB, FP16, no data parallelism,
    // micro-batch 1 (22B: 4), eager attention; "full" recomputes whole layers without sequence
    // parallelism, "present work" is selective recomputation with sequence parallelism.
    // The interleaved schedule for 175B and 530B follows Calculon's validation inputs
    // (calculon-ai/calculon, validation/seqsel/tab5).
    void korthikantiTable5_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        const QString common = QStringLiteral(
            "device=a100-80gb,precision=fp16,tp=8,dp=1,seq_len=2048,zero=0,attention=eager,"
            "cache_outputs=false,");
        const QString full = QStringLiteral("recompute=full,sequence_parallel=false,");
        const QString present = QStringLiteral("recompute=selective,sequence_parallel=true,");
        const QString g22 = QStringLiteral("pp=1,microbatches=1,microbatch_size=4");
        const QString g175 = QStringLiteral(
            "pp=8,microbatches=64,microbatch_size=1,schedule=interleaved,virtual_stages=3");
        const QString g530 = QStringLiteral(
            "pp=35,microbatches=280,microbatch_size=1,schedule=interleaved,virtual_stages=3");
        const QString g1t = QStringLiteral("pp=64,microbatches=512,microbatch_size=1");
        QTest::addRow("22B full") << 48 << 6144 << 64 << common + full + g22 << 1.42;
        QTest::addRow("22B present") << 48 << 6144 << 64 << common + present + g22 << 1.10;
        QTest::addRow("175B full") << 96 << 12288 << 96 << common + full + g175 << 18.13;
        QTest::addRow("175B present") << 96 << 12288 << 96 << common + present + g175 << 13.75;
        QTest::addRow("530B full") << 105 << 20480 << 128 << common + full + g530 << 49.05;
        QTest::addRow("530B present") << 105 << 20480 << 128 << common + present + g530 << 37.83;
        QTest::addRow("1T full") << 128 << 25600 << 160 << common + full + g1t << 94.42;
        QTest::addRow("1T present") << 128 << 25600 << 160 << common + present + g1t << 71.49;
    }
    void korthikantiTable5()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        const Report r = evaluateRun(megatronGpt(layers, hidden, heads), set);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        const double e = error(r.stepTime->stepTimeS, publishedS);
        qInfo("%s: %.2f s modelled, %.2f s published, %+.1f %%", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        // docs/step_time.md: every listed run within 15 %.
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on GPU Clusters
    // Using Megatron-LM"), Table 1 (also NVIDIA/Megatron-LM v2.5 README,
    // images/cases_april2021.png): achieved TFLOP/s per A100 by their own count (§5.1:
    // 96·B·s·l·h²·(1 + s/6h + V/16lh) per iteration, full recomputation included), FP16,
    // data parallelism over the remaining GPUs. The runs as the paper's launch script made
    // them (NVIDIA/Megatron-LM v2.5, examples/sc21/run_table_1.sh and CONFIG.sh): T, the
    // micro-batch size, the interleaved schedule's chunks per stage (layers per stage ÷
    // --num-layers-per-virtual-pipeline-stage), full recomputation and the DDP kind. Local
    // DDP's gradient all-reduce runs after the pipeline flush (megatron/training.py,
    // train_step), not overlapped: dp_overlap = 0. PyTorch DDP (--DDP-impl torch, the
    // one-stage runs) all-reduces its buckets during the last micro-batch's backward, the
    // others under no_sync (megatron/schedules.py, forward_backward_no_pipelining):
    // dp_overlap = auto. Both add each micro-batch's FP16 weight gradients into the
    // accumulated ones in a pass of their own (the fusion into the weight-gradient multiply
    // came in 2022): fused_grad_accumulation = false.
    void narayananTable1_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("microbatchSize");
        QTest::addColumn<int>("virtualStages"); // 1: plain 1F1B
        QTest::addColumn<bool>("torchDdp");
        QTest::addColumn<double>("publishedTflops");
        QTest::addRow("1.7B") << 24 << 2304 << 24 << 1 << 1 << 32 << 512 << 16 << 1 << true
                              << 137.0;
        QTest::addRow("3.6B") << 30 << 3072 << 32 << 2 << 1 << 64 << 512 << 16 << 1 << true
                              << 138.0;
        QTest::addRow("7.5B") << 36 << 4096 << 32 << 4 << 1 << 128 << 512 << 16 << 1 << true
                              << 142.0;
        QTest::addRow("18.4B") << 40 << 6144 << 48 << 8 << 1 << 256 << 1024 << 8 << 1 << true
                               << 135.0;
        QTest::addRow("39.1B") << 48 << 8192 << 64 << 8 << 2 << 512 << 1536 << 4 << 1 << false
                               << 138.0;
        QTest::addRow("76.1B") << 60 << 10240 << 80 << 8 << 4 << 1024 << 1792 << 2 << 3 << false
                               << 140.0;
        QTest::addRow("145.6B") << 80 << 12288 << 96 << 8 << 8 << 1536 << 2304 << 2 << 2 << false
                                << 148.0;
        QTest::addRow("310.1B") << 96 << 16384 << 128 << 8 << 16 << 1920 << 2160 << 1 << 2 << false
                                << 155.0;
        QTest::addRow("529.6B") << 105 << 20480 << 128 << 8 << 35 << 2520 << 2520 << 1 << 3 << false
                                << 163.0;
        QTest::addRow("1008.0B") << 128 << 25600 << 160 << 8 << 64 << 3072 << 3072 << 1 << 1
                                 << false << 163.0;
    }
    void narayananTable1()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, gpus);
        QFETCH(int, batch);
        QFETCH(int, microbatchSize);
        QFETCH(int, virtualStages);
        QFETCH(bool, torchDdp);
        QFETCH(double, publishedTflops);
        const int dp = gpus / (tp * pp);
        const QString schedule =
            virtualStages > 1
                ? QStringLiteral("schedule=interleaved,virtual_stages=%1").arg(virtualStages)
                : QStringLiteral("schedule=1f1b");
        const QString set =
            QStringLiteral("device=a100-80gb,precision=fp16,tp=%1,pp=%2,dp=%3,microbatches=%4,"
                           "microbatch_size=%5,seq_len=2048,zero=0,attention=eager,"
                           "recompute=full,sequence_parallel=false,dp_overlap=%6,"
                           "fused_grad_accumulation=false,cache_outputs=false,%7")
                .arg(tp)
                .arg(pp)
                .arg(dp)
                .arg(batch / dp / microbatchSize)
                .arg(microbatchSize)
                .arg(torchDdp ? "auto" : "0")
                .arg(schedule) +
            // PyTorch DDP's buckets: bucket_cap_mb = 25 MiB of FP16 gradients
            // (torch/nn/parallel/distributed.py), 13,107,200 parameters.
            (torchDdp ? QStringLiteral(",dp_bucket_params=13107200") : QString());
        const Report r = evaluateRun(megatronGpt(layers, hidden, heads), set);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        // Their FLOP count per iteration, over GPUs and the modelled iteration time.
        const double l = layers, h = hidden, s = 2048, v = 51200;
        const double flops = 96.0 * batch * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
        const double tflops = flops / gpus / r.stepTime->stepTimeS / 1e12;
        const double e = error(tflops, publishedTflops);
        qInfo("%s: %.1f TFLOP/s modelled, %.0f published, %+.1f %%", QTest::currentDataTag(),
              tflops, publishedTflops, 100 * e);
        // docs/step_time.md: every listed run within 15 %. The same 1T layout measured a year
        // later (Korthikanti et al. 2022, full recomputation, D = 1: 94.42 s for 512
        // sequences) runs at 177 TFLOP/s by this count, 8.6 % above the 163 published here,
        // with the same hardware. Every row is modelled fast, the small ones most.
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The Megatron-LM README, "Training Speed and Scalability" (NVIDIA/Megatron-LM, model
    // table of July 2024, Megatron-Core r0.8.0): GPT models with a 131,072-token vocabulary and
    // 4,096-token sequences on H100, per-GPU TFLOP/s by Megatron-LM's count
    // (megatron/training/training.py, num_floating_point_operations: 72·B·s·l·h²·(1 + s/6h +
    // V/12lh) for these models, no recomputation counted). As the README says: the gradient
    // reduce and parameter gather overlapped (dp_overlap auto) and the tensor-parallel
    // collectives overlapped (tp_overlap). Megatron-LM's defaults for BF16: FP32 gradients
    // reduced in FP32 (megatron/training/arguments.py), the distributed optimizer (ZeRO-1);
    // Transformer Engine's fused attention (the H100 preset's attention efficiency).
    // The README lists the pipeline's communication among the overlaps its runs used, and
    // Megatron-LM overlaps pipeline sends only under the interleaved schedule
    // (megatron/training/arguments.py: "Overlap P2P communication is disabled if not using the
    // interleaved schedule"), so K > 1 runs interleave.
    // Not published, assumed: micro-batch 1, the fewest chunks per stage that interleave (the
    // smallest v >= 2 dividing the stage's layers), no recomputation (every row fits
    // without), sequence parallelism when T > 1.
    static Report readmeH100Run(int layers, int hidden, int heads, int tp, int pp, int dp,
                                int batch)
    {
        ModelSpec model = megatronGpt(layers, hidden, heads);
        model.vocab = 131072;
        model.learnedPositions = 4096;
        // The table's sizes count the output layer apart from the input embedding (1.7B is
        // 1.75B untied, 1.49B tied; 7.1B and 462B likewise): untied.
        model.tiedEmbeddings = false;
        int chunks = 1;
        if (pp > 1)
            for (chunks = 2; (layers / pp) % chunks != 0; ++chunks) {
            }
        QString set =
            QStringLiteral(
                "device=h100-sxm,precision=bf16,tp=%1,pp=%2,dp=%3,microbatches=%4,"
                "microbatch_size=1,seq_len=4096,zero=1,grad_precision=fp32,attention=flash,"
                "recompute=none,sequence_parallel=%5,tp_overlap=%5,cache_outputs=false")
                .arg(tp)
                .arg(pp)
                .arg(dp)
                .arg(batch / dp)
                .arg(tp > 1 ? "true" : "false");
        if (chunks > 1)
            set += QStringLiteral(",schedule=interleaved,virtual_stages=%1").arg(chunks);
        return evaluateRun(model, set);
    }
    // Megatron-LM's TFLOP/s per GPU for a run of the README's GPT models.
    static double readmeTflops(const Report &r, int layers, int hidden, int gpus, int batch)
    {
        const double l = layers, h = hidden, s = 4096, v = 131072;
        const double flops = 72.0 * batch * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
        return flops / gpus / r.stepTime->stepTimeS / 1e12;
    }

    // The README's weak scaling: D = 48, the model grown with the GPUs.
    void megatronReadmeH100_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("batch");
        QTest::addColumn<double>("publishedTflops");
        QTest::addRow("1.7B") << 24 << 2048 << 16 << 1 << 1 << 192 << 408.8;
        QTest::addRow("7.1B") << 30 << 4096 << 32 << 2 << 1 << 192 << 465.9;
        QTest::addRow("16B") << 32 << 6144 << 48 << 4 << 1 << 192 << 489.1;
        QTest::addRow("32B") << 48 << 7168 << 56 << 8 << 1 << 192 << 459.6;
        QTest::addRow("70B") << 84 << 8192 << 64 << 8 << 2 << 384 << 419.7;
        QTest::addRow("119B") << 92 << 10240 << 80 << 8 << 4 << 768 << 420.5;
        QTest::addRow("177B") << 96 << 12288 << 96 << 8 << 6 << 1152 << 432.8;
        QTest::addRow("314B") << 96 << 16384 << 128 << 8 << 8 << 1536 << 474.4;
        QTest::addRow("462B") << 112 << 18432 << 144 << 8 << 16 << 3072 << 459.9;
    }
    void megatronReadmeH100()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, batch);
        QFETCH(double, publishedTflops);
        const int dp = 48;
        const Report r = readmeH100Run(layers, hidden, heads, tp, pp, dp, batch);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        const double tflops = readmeTflops(r, layers, hidden, tp * pp * dp, batch);
        const double e = error(tflops, publishedTflops);
        qInfo("%s: %.1f TFLOP/s modelled, %.1f published, %+.1f %%", QTest::currentDataTag(),
              tflops, publishedTflops, 100 * e);
        QVERIFY(r.fits); // the run was measured, so it fitted: no recomputation is needed
        // docs/step_time.md: every listed run within 15 %, but for two with one stage. At one
        // micro-batch a step, where the backward hides the gradient sync, all four one-stage runs
        // are modelled 4-26 % fast: the H100 layers' compute is timed fast at these shapes, and
        // no public measurement yet says why. The 32B run's FP32 gradient sync over one NIC a
        // device is half its modelled step at the assumed micro-batch 1 (at 2, -15.1 %).
        QEXPECT_FAIL("1.7B",
                     "H100 layer compute modelled about 20 % fast at h = 2,048, cause not yet "
                     "measured (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("32B",
                     "about 28 % slow at the assumed micro-batch size 1, which the README does not "
                     "publish: there the FP32 gradient reduce-scatter (about 0.3 s a device) can "
                     "hide behind one micro-batch's backward (about 0.14 s) only, so the published "
                     "rate needs another setting (micro-batch 2: -15.1 %)",
                     Continue);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The README's strong scaling: the 177B model (GPT-3 with the larger vocabulary), 1,152
    // sequences on 96 to 4,608 GPUs, "MFU from 47% to 42%" (of the 989 TFLOPS dense BF16 peak,
    // by the count above). The 2,304-GPU point is the weak-scaling 177B row, T = 8, K = 6,
    // D = 48, interleaved; the others are taken to keep T, K and v and change D (not
    // published).
    void megatronReadmeStrongScaling_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("publishedMfu");
        QTest::addRow("96 GPUs") << 96 << 0.47;
        QTest::addRow("4,608 GPUs") << 4608 << 0.42;
    }
    void megatronReadmeStrongScaling()
    {
        QFETCH(int, gpus);
        QFETCH(double, publishedMfu);
        const int layers = 96, hidden = 12288, batch = 1152;
        const Report r = readmeH100Run(layers, hidden, 96, 8, 6, gpus / 48, batch);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        const double mfu = readmeTflops(r, layers, hidden, gpus, batch) / 989;
        const double e = error(mfu, publishedMfu);
        qInfo("%s: MFU %.1f %% modelled, %.0f %% published, %+.1f %%", QTest::currentDataTag(),
              100 * mfu, 100 * publishedMfu, 100 * e);
        QVERIFY(r.fits);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The columns of a Megatron-Bridge table: the model, the row's keys, its GPUs and the
    // published tokens per second per GPU.
    static void addBridgeColumns()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("publishedTokensPerGpu");
    }
    // The current row of a Megatron-Bridge table, on the table's base keys: its tokens per
    // second per GPU against the published figure, as the error `e`.
    static void bridgeRun(const QString &baseKeys, double &e)
    {
        QFETCH(QString, model);
        QFETCH(QString, set);
        QFETCH(int, gpus);
        QFETCH(double, publishedTokensPerGpu);
        const Report r = evaluate(
            scenario(baseKeys + QStringLiteral(",model=") + model + QLatin1Char(',') + set),
            io::builtinPresets());
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits); // the run was measured, so it fitted
        const double perGpu = r.stepTime->tokensPerS / gpus;
        e = error(perGpu, publishedTokensPerGpu);
        qInfo("%s: %.0f tokens/s per GPU modelled, %.0f published, %+.1f %%",
              QTest::currentDataTag(), perGpu, publishedTokensPerGpu, 100 * e);
        reportMoeWait(r);
    }

    // Megatron-Bridge's performance summary (NVIDIA-NeMo/Megatron-Bridge,
    // docs/performance-summary-archive.md): tokens per second per GPU of FP8 pre-training with
    // every layout key published, run by the recipes in src/megatron/bridge/perf_recipes
    // (Transformer Engine FP8, the distributed optimizer, gradients reduced in BF16:
    // perf_recipes/_common.py). Llama 3 has Llama 3.1's shapes.
    void megatronBridgeFp8_data()
    {
        addBridgeColumns();
        // 26.04.01 container: 64 H100, TP 4, PP 8, VP 5, GBS 256, MBS 1, 8,192 tokens, with
        // tensor-parallel overlap (perf_recipes/llama/h100/llama3.py).
        QTest::addRow("Llama 3 70B, 64 H100")
            << "llama-3.1-70b"
            << "device=h100-sxm,tp=4,pp=8,dp=2,microbatches=128,schedule=interleaved,"
               "virtual_stages=5,microbatch_size=1,sequence_parallel=true,tp_overlap=true"
            << 64 << 1664.0;
        // The same recipe at GBS 128 in the 25.11 container: 64 micro-batches, twice the bubble's
        // share.
        QTest::addRow("Llama 3 70B, 64 H100, 128 sequences")
            << "llama-3.1-70b"
            << "device=h100-sxm,tp=4,pp=8,dp=2,microbatches=64,schedule=interleaved,"
               "virtual_stages=5,microbatch_size=1,sequence_parallel=true,tp_overlap=true"
            << 64 << 1602.0;
        // Llama 3.1 405B on 1,024 H100, TP 8, PP 8, CP 2, VP 8, MBS 1, 8,192 tokens: GBS 1,536 in
        // the 26.06 container, 512 in 25.11; the recipe counts the embedding and the loss as
        // layers of the pipeline split (recipes/llama/h100/llama3.py,
        // account_for_*_in_pipeline_split), 128 "layers" in 2 per chunk.
        const QString big = QStringLiteral(
            "device=h100-sxm,tp=8,pp=8,cp=2,dp=8,schedule=interleaved,virtual_stages=8,"
            "microbatch_size=1,sequence_parallel=true,tp_overlap=true,ends_in_pipeline_split=true,"
            "microbatches=");
        QTest::addRow("Llama 3.1 405B, 1,024 H100, 1,536 sequences")
            << "llama-3.1-405b" << big + "192" << 1024 << 326.0;
        QTest::addRow("Llama 3.1 405B, 1,024 H100, 512 sequences")
            << "llama-3.1-405b" << big + "64" << 1024 << 292.0;
        // 25.11 container: 128 B200, TP 4, PP 8, CP 2, VP 8, GBS 64, MBS 1, 8,192 tokens (2
        // data-parallel replicas, 32 micro-batches each), the same split as on H100. Added
        // after the model was built, as a run it had not seen.
        QTest::addRow("Llama 3.1 405B, 128 B200")
            << "llama-3.1-405b"
            << "device=b200,tp=4,pp=8,cp=2,dp=2,schedule=interleaved,virtual_stages=8,"
               "microbatch_size=1,sequence_parallel=true,tp_overlap=true,"
               "ends_in_pipeline_split=true,microbatches=32"
            << 128 << 661.0;
        // The same run in MXFP8 (the table's parenthesised figure, 32-value blocks: fp8_mx).
        // Added after the model was built, as a run it had not seen.
        QTest::addRow("Llama 3.1 405B MXFP8, 128 B200")
            << "llama-3.1-405b"
            << "fp8_scaling=block,device=b200,tp=4,pp=8,cp=2,dp=2,schedule=interleaved,"
               "virtual_stages=8,microbatch_size=1,sequence_parallel=true,tp_overlap=true,"
               "ends_in_pipeline_split=true,microbatches=32"
            << 128 << 624.0;
        // 25.11 container: 8 H100 with Megatron-FSDP (FSDP 8, ZeRO-3), GBS 128, MBS 1, 8,192
        // tokens, FP8 current scaling.
        QTest::addRow("Llama 3 8B, 8 H100, Megatron-FSDP")
            << "llama-3.1-8b"
            << "device=h100-sxm,tp=1,pp=1,dp=8,zero=3,microbatches=16,microbatch_size=1" << 8
            << 14451.0;
        // 25.11 container: 8 GPUs, data-parallel only, GBS 128, MBS 2, 8,192 tokens.
        const QString eight =
            QStringLiteral("tp=1,pp=1,dp=8,microbatches=8,microbatch_size=2,device=");
        QTest::addRow("Llama 3 8B, 8 B200") << "llama-3.1-8b" << eight + "b200" << 8 << 30624.0;
        // The GB200's multiplies at its short-burst rate times the B200's sustained-to-burst
        // ratio (resources/presets/devices.json): no GB200 sustained rate is published.
        QTest::addRow("Llama 3 8B, 8 GB200")
            << "llama-3.1-8b" << eight + "gb200-nvl72" << 8 << 31508.0;
        // The same table's GB300 row at the same layout (micro-batch 2, as the table gives it),
        // and all three in MXFP8 (the parenthesised figures). Added after the model was built,
        // as runs it had not seen.
        QTest::addRow("Llama 3 8B, 8 GB300")
            << "llama-3.1-8b" << eight + "gb300-nvl72" << 8 << 37556.0;
        const QString eightMx = QStringLiteral("fp8_scaling=block,") + eight;
        QTest::addRow("Llama 3 8B MXFP8, 8 B200")
            << "llama-3.1-8b" << eightMx + "b200" << 8 << 29521.0;
        QTest::addRow("Llama 3 8B MXFP8, 8 GB200")
            << "llama-3.1-8b" << eightMx + "gb200-nvl72" << 8 << 29789.0;
        QTest::addRow("Llama 3 8B MXFP8, 8 GB300")
            << "llama-3.1-8b" << eightMx + "gb300-nvl72" << 8 << 36108.0;
        // 26.04.01 container, NVFP4: 64 GB200, TP 2, PP 4, VP 5, GBS 256, MBS 1, 8,192 tokens,
        // no tensor-parallel overlap (perf_recipes/llama/gb200/llama3.py,
        // llama3_70b_pretrain_64gpu_gb200_nvfp4_config: tp_comm_overlap = False; Transformer
        // Engine's CUDA graphs, not modelled). Added with the NVFP4 format, as a run the model
        // had not seen.
        QTest::addRow("Llama 3 70B NVFP4, 64 GB200")
            << "llama-3.1-70b"
            << "precision=nvfp4,device=gb200-nvl72,tp=2,pp=4,dp=8,microbatches=32,"
               "schedule=interleaved,virtual_stages=5,microbatch_size=1,sequence_parallel=true,"
               "tp_overlap=false"
            << 64 << 4864.0;
        // The same container on 64 GB300: TP 1, PP 4, VP 5, 16 data-parallel replicas
        // (perf_recipes/llama/gb300/llama3.py, llama3_70b_pretrain_64gpu_gb300_nvfp4_config).
        // Added after the GB300 preset was written, as a run it had not seen.
        QTest::addRow("Llama 3 70B NVFP4, 64 GB300")
            << "llama-3.1-70b"
            << "precision=nvfp4,device=gb300-nvl72,tp=1,pp=4,dp=16,microbatches=16,"
               "schedule=interleaved,virtual_stages=5,microbatch_size=1,sequence_parallel=false,"
               "tp_overlap=false"
            << 64 << 7296.0;
        // The same container's Blackwell-rack rows of Llama 3 70B in MXFP8 and Llama 3.1 405B,
        // with the v0.4.2 presets (scripts/performance/configs/llama/
        // llama3_workload_base_configs.py and llama31_workload_base_configs.py, V2: GBS 256 and
        // 1,536, MBS 1, 8,192 tokens): no CUDA graphs, no recomputation, tensor-parallel overlap
        // wherever T > 1 but in NVFP4 (llama3_llm_pretrain.py, llama31_llm_pretrain.py:
        // tp_comm_overlap = False for nvfp4), the 405B's embedding and loss counted in its split
        // (recipes/llama/llama3.py). "FP8" is current scaling, MXFP8 block scaling (fp8_mx).
        // The GB200 NVFP4 run also gathers its parameters without overlap
        // (disable_param_gather_overlap), milliseconds Parascope leaves hidden. The Megatron-FSDP
        // FP8 rows of the 70B offload activations to the host (below).
        // Added after the model was built, as runs it had not seen.
        QTest::addRow("Llama 3 70B MXFP8, 64 GB300")
            << "llama-3.1-70b"
            << "fp8_scaling=block,device=gb300-nvl72,tp=1,pp=4,dp=16,microbatches=16,"
               "schedule=interleaved,virtual_stages=5,microbatch_size=1,sequence_parallel=false,"
               "tp_overlap=false"
            << 64 << 4864.0;
        QTest::addRow("Llama 3 70B MXFP8, 64 GB200")
            << "llama-3.1-70b"
            << "fp8_scaling=block,device=gb200-nvl72,tp=2,pp=4,dp=8,microbatches=32,"
               "schedule=interleaved,virtual_stages=5,microbatch_size=1,sequence_parallel=true,"
               "tp_overlap=true"
            << 64 << 3712.0;
        // The 70B's FP8 rows on the racks: Megatron-FSDP over all 64 GPUs (ZeRO-3), two
        // sequences a micro-batch, and Transformer Engine's CPU offloading of the first 20 (GB300)
        // and 40 (GB200) layers' activations (v0.4.2, llama3_workload_base_configs.py,
        // LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_CS_V2 and _GB200_FP8_CS_V2: use_megatron_fsdp,
        // cpu_offloading_num_layers). Without offloading neither fits (332 GB a device); they
        // joined the test with offload_layers, as runs the model had not seen.
        const QString fsdp = QStringLiteral("tp=1,pp=1,dp=64,zero=3,microbatch_size=2,"
                                            "microbatches=2,sequence_parallel=false,");
        QTest::addRow("Llama 3 70B, 64 GB300, Megatron-FSDP, 20 layers offloaded")
            << "llama-3.1-70b" << fsdp + "device=gb300-nvl72,offload_layers=20" << 64 << 5248.0;
        QTest::addRow("Llama 3 70B, 64 GB200, Megatron-FSDP, 40 layers offloaded")
            << "llama-3.1-70b" << fsdp + "device=gb200-nvl72,offload_layers=40" << 64 << 4224.0;
        const QString rack =
            QStringLiteral("schedule=interleaved,microbatch_size=1,sequence_parallel=true,"
                           "ends_in_pipeline_split=true,");
        const QString gb300 =
            rack + "device=gb300-nvl72,pp=8,dp=8,virtual_stages=4,microbatches=192,";
        QTest::addRow("Llama 3.1 405B FP8, 256 GB300")
            << "llama-3.1-405b" << gb300 + "tp=4,tp_overlap=true" << 256 << 1024.0;
        QTest::addRow("Llama 3.1 405B MXFP8, 256 GB300")
            << "llama-3.1-405b" << gb300 + "fp8_scaling=block,tp=2,cp=2,tp_overlap=true" << 256
            << 960.0;
        QTest::addRow("Llama 3.1 405B NVFP4, 256 GB300")
            << "llama-3.1-405b" << gb300 + "precision=nvfp4,tp=4,tp_overlap=false" << 256 << 1440.0;
        const QString gb200 = rack + "device=gb200-nvl72,tp=4,pp=16,dp=4,microbatches=384,";
        QTest::addRow("Llama 3.1 405B FP8, 256 GB200")
            << "llama-3.1-405b" << gb200 + "virtual_stages=4,tp_overlap=true" << 256 << 864.0;
        QTest::addRow("Llama 3.1 405B MXFP8, 256 GB200")
            << "llama-3.1-405b" << gb200 + "fp8_scaling=block,virtual_stages=8,tp_overlap=true"
            << 256 << 800.0;
        QTest::addRow("Llama 3.1 405B NVFP4, 256 GB200")
            << "llama-3.1-405b" << gb200 + "precision=nvfp4,virtual_stages=8,tp_overlap=false"
            << 256 << 1184.0;
    }
    void megatronBridgeFp8()
    {
        // FP8 current scaling, as the archive's "FP8-CS" and the recipes' fp8_cs say
        // (scripts/performance/dump_perf_configs.py), with FP8 parameters
        // (training/mixed_precision.py, bf16_with_fp8_current_scaling_mixed: fp8_param_gather).
        double e = 0;
        bridgeRun(
            QStringLiteral("framework=megatron,precision=fp8,grad_precision=bf16,loss_fusion=te,"
                           "fp8_scaling=current,fp8_params=true,zero=1,recompute=none,"
                           "attention=flash,seq_len=8192,cache_outputs=false"),
            e);
        if (QTest::currentTestFailed())
            return;
        // docs/step_time.md: every listed run within 15 %, but one of the Blackwell racks'.
        QEXPECT_FAIL("Llama 3.1 405B NVFP4, 256 GB200",
                     "modelled about 21 % slow: its layers' compute alone, without a send or a "
                     "collective, is nearly the published step, where the same NVFP4 rate times "
                     "the 70B at T = 2 within 2 %; not found (docs/step_time.md)",
                     Continue);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The same archive's fine-tuning runs (26.06 container, "SFT Performance"): Llama 3 70B,
    // every weight trained, 32 GPUs, GBS 32, MBS 1, 4,096 tokens, FP8 current scaling and
    // MXFP8, with the presets of v0.5.1 (scripts/performance/configs/llama/
    // llama3_workload_base_configs.py, _LLAMA3_70B_SFT_CONFIG_*; llama3_llm_finetune.py:
    // gradients reduced in BF16, the distributed optimizer; sequence parallelism and its
    // overlap where T > 1, utils/utils.py and the finetune configs' CommOverlapConfig, which
    // overlaps the data-parallel reduce and gather, training/comm_overlap.py; Transformer
    // Engine's loss, utils/overrides.py). Their examples (SQuAD, recipes/common.py) are packed
    // into the 4,096 tokens and attend within themselves, but their mean length is not
    // published: timed over the whole 4,096 (packed_example_tokens = 0; a tenth of the
    // modelled step on GB300, 7 % on H100), an upper bound on theirs. Transformer Engine's
    // CUDA graphs of the MLP (GB300, GB200, H100 in FP8) are not modelled. Added after the
    // model was built, as runs it had not seen.
    void megatronBridgeSft_data()
    {
        addBridgeColumns();
        const QString gb300 = QStringLiteral("device=gb300-nvl72,tp=1,pp=2,dp=16,microbatches=2,"
                                             "virtual_stages=20");
        const QString gb200 = QStringLiteral("device=gb200-nvl72,tp=1,pp=8,dp=4,microbatches=8,"
                                             "virtual_stages=10");
        QTest::addRow("Llama 3 70B SFT, 32 GB300") << "llama-3.1-70b" << gb300 << 32 << 4819.0;
        QTest::addRow("Llama 3 70B SFT MXFP8, 32 GB300")
            << "llama-3.1-70b" << gb300 + ",fp8_scaling=block" << 32 << 4312.0;
        QTest::addRow("Llama 3 70B SFT, 32 GB200") << "llama-3.1-70b" << gb200 << 32 << 3864.0;
        QTest::addRow("Llama 3 70B SFT MXFP8, 32 GB200")
            << "llama-3.1-70b" << gb200 + ",fp8_scaling=block" << 32 << 3593.0;
        QTest::addRow("Llama 3 70B SFT, 32 H100")
            << "llama-3.1-70b"
            << "device=h100-sxm,tp=4,pp=4,dp=2,microbatches=16,virtual_stages=5,"
               "sequence_parallel=true,tp_overlap=true"
            << 32 << 1638.0;
    }
    void megatronBridgeSft()
    {
        double e = 0;
        // The finetune configs turn Transformer Engine's weight cache off
        // (llama3_llm_finetune.py: disable_parameter_transpose_cache = True).
        bridgeRun(
            QStringLiteral("framework=megatron,precision=fp8,grad_precision=bf16,loss_fusion=te,"
                           "fp8_scaling=current,fp8_params=true,fp8_weight_cache=false,zero=1,"
                           "recompute=none,"
                           "attention=flash,seq_len=4096,cache_outputs=false,"
                           "schedule=interleaved,microbatch_size=1"),
            e);
        if (QTest::currentTestFailed())
            return;
        counted(e);
        // docs/step_time.md: every listed run within 15 %. The MXFP8 row was 17 % fast until
        // its weights' quantization after each gather was timed ("Weight casts").
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The same table's LoRA runs (26.06 container, "LoRA Performance"): Llama 3 70B, its
    // weights frozen, rank-16 adapters beside the QKV projection alone (llama3_llm_finetune.py:
    // target_modules = ["linear_qkv"]; recipes/llama/llama3.py, llama3_70b_peft_config: dim 16),
    // 8 GPUs, GBS 32, MBS 1, 4,096 tokens, the v0.5.1 presets' layouts
    // (_LLAMA3_70B_LORA_CONFIG_*: GB200 MXFP8 at K4, the rest as the table gives them) and the
    // SFT rows' settings otherwise. Packed SQuAD examples, timed over the whole 4,096 as the SFT
    // rows are. Added after LoRA was built, as runs the model had not seen.
    void megatronBridgeLora_data()
    {
        addBridgeColumns();
        const QString gb300 = QStringLiteral("device=gb300-nvl72,tp=1,pp=2,dp=4,microbatches=8,"
                                             "virtual_stages=20");
        QTest::addRow("Llama 3 70B LoRA, 8 GB300") << "llama-3.1-70b" << gb300 << 8 << 7481.0;
        QTest::addRow("Llama 3 70B LoRA MXFP8, 8 GB300")
            << "llama-3.1-70b" << gb300 + ",fp8_scaling=block" << 8 << 7447.0;
        QTest::addRow("Llama 3 70B LoRA, 8 GB200")
            << "llama-3.1-70b"
            << "device=gb200-nvl72,tp=1,pp=2,dp=4,microbatches=8,virtual_stages=20" << 8 << 6206.0;
        QTest::addRow("Llama 3 70B LoRA MXFP8, 8 GB200")
            << "llama-3.1-70b"
            << "device=gb200-nvl72,tp=1,pp=4,dp=2,microbatches=16,virtual_stages=20,"
               "fp8_scaling=block"
            << 8 << 5958.0;
        QTest::addRow("Llama 3 70B LoRA, 8 H100")
            << "llama-3.1-70b"
            << "device=h100-sxm,tp=2,pp=4,dp=1,microbatches=32,virtual_stages=20,"
               "sequence_parallel=true,tp_overlap=true"
            << 8 << 2643.0;
    }
    void megatronBridgeLora()
    {
        double e = 0;
        bridgeRun(
            QStringLiteral("framework=megatron,precision=fp8,grad_precision=bf16,loss_fusion=te,"
                           "fp8_scaling=current,fp8_params=true,fp8_weight_cache=false,zero=1,"
                           "recompute=none,"
                           "attention=flash,seq_len=4096,cache_outputs=false,"
                           "schedule=interleaved,microbatch_size=1,lora_rank=16,"
                           "lora_modules=linear_qkv"),
            e);
        if (QTest::currentTestFailed())
            return;
        counted(e);
        // docs/step_time.md: every listed run within 15 %.
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // The same summary's mixture-of-experts runs (NVIDIA-NeMo/Megatron-Bridge,
    // docs/performance-summary.md and -archive.md): Qwen3's MoE models, 4,096 tokens, tokens per
    // second per GPU; nothing in the model was set from them (docs/experts.md showed the H100
    // rows as checks before they joined the test). The layouts the tables give,
    // the rest as scripts/performance/configs/qwen sets it for the container (v0.3.0 for
    // 26.02.01, v0.4.2 for 26.04.01; qwen3_llm_pretrain.py, qwen3_workload_base_configs.py):
    // no recomputation, BF16 gradient reduction, expert T = 1, the router forced to balance the
    // tokens (every benchmark dropless), FP8 with FP8 parameters (training/mixed_precision.py:
    // fp8_param_gather in bf16_with_fp8_current_scaling_mixed and bf16_with_mxfp8_mixed).
    void megatronBridgeMoe_data()
    {
        addBridgeColumns();
        // 26.02.01: K2 v12, E8 in each node, DeepEP's flex dispatcher, the all-to-alls
        // overlapped across micro-batches (moe_a2a_overlap), 1,024 sequences of 1.
        QTest::addRow("Qwen3 30B-A3B, 16 H100, K2 E8 (26.02.01)")
            << "qwen3-30b-a3b"
            << "device=h100-sxm,fp8_scaling=current,tp=1,pp=2,dp=8,ep=8,schedule=interleaved,"
               "virtual_stages=12,ep_dispatcher=flex,ep_overlap=true,microbatch_size=1,"
               "microbatches=128"
            << 16 << 9058.0;
        // 26.04.01: E16 over both nodes, HybridEP's flex dispatcher, nothing overlapped.
        QTest::addRow("Qwen3 30B-A3B, 16 H100, E16 (26.04.01)")
            << "qwen3-30b-a3b"
            << "device=h100-sxm,fp8_scaling=current,tp=1,pp=1,dp=16,ep=16,ep_dispatcher=flex,"
               "microbatch_size=1,microbatches=64"
            << 16 << 8960.0;
        // 26.04.01, MXFP8 on one node of each Blackwell system, 512 sequences, HybridEP:
        // micro-batch 4 on B200 and GB200, 8 on B300 and GB300.
        const QString blackwell =
            QStringLiteral("fp8_scaling=block,tp=1,pp=1,dp=8,ep=8,ep_dispatcher=flex,");
        QTest::addRow("Qwen3 30B-A3B, 8 B200")
            << "qwen3-30b-a3b" << blackwell + "device=b200,microbatch_size=4,microbatches=16" << 8
            << 27136.0;
        QTest::addRow("Qwen3 30B-A3B, 8 GB200")
            << "qwen3-30b-a3b" << blackwell + "device=gb200-nvl72,microbatch_size=4,microbatches=16"
            << 8 << 26112.0;
        QTest::addRow("Qwen3 30B-A3B, 8 B300")
            << "qwen3-30b-a3b" << blackwell + "device=b300,microbatch_size=8,microbatches=8" << 8
            << 30720.0;
        QTest::addRow("Qwen3 30B-A3B, 8 GB300")
            << "qwen3-30b-a3b" << blackwell + "device=gb300-nvl72,microbatch_size=8,microbatches=8"
            << 8 << 31744.0;
        // 26.04.01: T2 with sequence parallelism (no tensor-parallel overlap), K8 v4 with the
        // embedding and the loss counted in the split (recipes/qwen/qwen3_moe.py), E32, the
        // all-to-all dispatcher overlapped across micro-batches, 8,192 sequences of 1.
        QTest::addRow("Qwen3 235B-A22B, 256 H100")
            << "qwen3-235b-a22b"
            << "device=h100-sxm,fp8_scaling=current,tp=2,pp=8,dp=16,ep=32,expert_tp=1,"
               "sequence_parallel=true,tp_overlap=false,schedule=interleaved,virtual_stages=4,"
               "ends_in_pipeline_split=true,ep_dispatcher=alltoall,ep_overlap=true,"
               "microbatch_size=1,microbatches=512"
            << 256 << 1712.0;
        // 26.04.01, MXFP8 on 256 B300s and B200s: K8 without interleaving, the ends counted in
        // the split, E8 in each node, 8,192 sequences over D = 32; on the B300 micro-batches of
        // 2 and HybridEP's flex dispatcher, on the B200 of 1 and the all-to-all dispatcher
        // (qwen3_llm_pretrain.py, qwen3_235b_a22b_pretrain_config_b300 and _b200), neither
        // overlapped (moe_a2a_overlap = False). Added after a later stage's gather was waited
        // for, as runs nothing in the model was set from (docs/step_time.md, "A later stage's
        // one bucket").
        const QString k8 = QStringLiteral(
            "fp8_scaling=block,tp=1,pp=8,dp=32,ep=8,expert_tp=1,ends_in_pipeline_split=true,");
        QTest::addRow("Qwen3 235B-A22B, 256 B300, K8 E8")
            << "qwen3-235b-a22b"
            << k8 + "device=b300,ep_dispatcher=flex,microbatch_size=2,microbatches=128" << 256
            << 5936.0;
        QTest::addRow("Qwen3 235B-A22B, 256 B200, K8 E8")
            << "qwen3-235b-a22b"
            << k8 + "device=b200,ep_dispatcher=alltoall,microbatch_size=1,microbatches=256" << 256
            << 3776.0;
    }
    void megatronBridgeMoe()
    {
        double e = 0;
        bridgeRun(
            QStringLiteral("framework=megatron,precision=fp8,grad_precision=bf16,loss_fusion=te,"
                           "fp8_params=true,zero=1,recompute=none,attention=flash,"
                           "seq_len=4096,cache_outputs=false"),
            e);
        if (QTest::currentTestFailed())
            return;
        // docs/step_time.md, "Fine-grained experts": the smaller each micro-batch's expert
        // multiplies, the faster the model is against these runs, as a host-side cost per
        // layer would make it; none is modelled.
        QEXPECT_FAIL("Qwen3 30B-A3B, 16 H100, K2 E8 (26.02.01)",
                     "modelled about 84 % fast at micro-batch 1: 128 experts' small multiplies, "
                     "no host-side cost per layer modelled (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 30B-A3B, 16 H100, E16 (26.04.01)",
                     "modelled about 67 % fast at micro-batch 1: 128 experts' small multiplies, "
                     "no host-side cost per layer modelled (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 30B-A3B, 8 GB200",
                     "modelled about 24 % fast at micro-batch 4, where the B300 at 8 is within 8 % "
                     "(docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 30B-A3B, 8 GB300",
                     "modelled about 19 % fast at micro-batch 8 with Transformer Engine's loss, "
                     "inside the 9-24 % moe-host range of the untimed wait (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 30B-A3B, 8 B200",
                     "modelled about 16 % fast at micro-batch 4 with Transformer Engine's loss, "
                     "inside the 16-40 % moe-host range of the untimed wait (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 235B-A22B, 256 H100",
                     "modelled about 17 % fast with Transformer Engine's loss, inside the 15-37 % "
                     "moe-host range of the untimed wait (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Qwen3 235B-A22B, 256 B200, K8 E8",
                     "modelled about 50 % fast at micro-batch 1, where the B300's run at 2 is "
                     "within 1 %: Qwen3's many small experts' untimed wait on the host, as the "
                     "H100 rows at micro-batch 1 (docs/step_time.md)",
                     Continue);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // Megatron-Bridge's DeepSeek-V3 rows of the 26.04.01 container, and of the 26.04 container
    // where its layout differs (docs/performance-summary-archive.md): 256 GPUs, MXFP8, 4,096
    // sequences of 4,096 tokens, with the V2 presets of scripts/performance/configs/deepseek/
    // deepseek_workload_base_configs.py (v0.4.2; v0.4.0 for 26.04) on the recipe
    // (recipes/deepseek/deepseek_v3.py: one multi-token-prediction layer, selective recomputation
    // of the modules each preset names, the flex dispatcher, T = 1, expert T = 1) and the
    // performance scripts' common settings (deepseek_llm_pretrain.py: gradients reduced in BF16,
    // the router forced to balance the tokens), and the recipe's precision-aware optimizer with
    // BF16 moments (deepseek_v3.py: exp_avg_dtype, exp_avg_sq_dtype). Layouts: the presets' own, or
    // set_deepseek_v3_pipeline_model_parallel_ layout's for (K, v) = (4, 4) and (8, 1). Checked
    // after MTP and the recomputed modules were built, as runs nothing in the model was set from.
    void megatronBridgeDeepSeek_data()
    {
        addBridgeColumns();
        const QString layout16 = QStringLiteral("pipeline_layout=Et*4|(t*4|)*14tmL,");
        QTest::addRow("DeepSeek-V3, 256 GB300, K2 v8 E32")
            << "deepseek-v3"
            << "device=gb300-nvl72,pp=2,schedule=interleaved,virtual_stages=8,dp=128,ep=32,"
               "microbatch_size=2,microbatches=16,recompute_modules=mla_up_proj," +
                   layout16
            << 256 << 4992.0;
        QTest::addRow("DeepSeek-V3, 256 GB200, K4 v4 E64")
            << "deepseek-v3"
            << "device=gb200-nvl72,pp=4,schedule=interleaved,virtual_stages=4,dp=64,ep=64,"
               "microbatch_size=1,microbatches=64,recompute_modules=mlp," +
                   layout16
            << 256 << 4256.0;
        QTest::addRow("DeepSeek-V3, 256 B300, K8 E8")
            << "deepseek-v3"
            << "device=b300,pp=8,dp=32,ep=8,microbatch_size=2,microbatches=64,"
               "recompute_modules=mla_up_proj,pipeline_layout=Et*8|(t*8|)*6t*5mL"
            << 256 << 3456.0;
        // The 26.04 container's B300 and B200 rows ran v0.4.0's presets: K16, E8, micro-batch 1,
        // set_deepseek_v3_pipeline_model_parallel_layout's (16, 1) layout, mla_up_proj.
        QTest::addRow("DeepSeek-V3, 256 B300, K16 E8 (26.04)")
            << "deepseek-v3"
            << "device=b300,pp=16,dp=16,ep=8,microbatch_size=1,microbatches=256,"
               "recompute_modules=mla_up_proj," +
                   layout16
            << 256 << 3131.0;
        QTest::addRow("DeepSeek-V3, 256 B200, K16 E8 (26.04)")
            << "deepseek-v3"
            << "device=b200,pp=16,dp=16,ep=8,microbatch_size=1,microbatches=256,"
               "recompute_modules=mla_up_proj," +
                   layout16
            << 256 << 2815.0;
        // DeepEP's flex dispatcher with the all-to-alls overlapped (moe_a2a_overlap).
        QTest::addRow("DeepSeek-V3, 256 B200, K8 v2 E32")
            << "deepseek-v3"
            << "device=b200,pp=8,schedule=interleaved,virtual_stages=2,dp=32,ep=32,"
               "microbatch_size=1,microbatches=128,recompute_modules=mla_up_proj mlp,"
               "ep_overlap=true," +
                   layout16
            << 256 << 3328.0;
    }
    void megatronBridgeDeepSeek()
    {
        double e = 0;
        bridgeRun(QStringLiteral("framework=megatron,precision=fp8,fp8_scaling=block,"
                                 "grad_precision=bf16,fp8_params=true,zero=1,attention=flash,"
                                 "seq_len=4096,cache_outputs=false,tp=1,expert_tp=1,loss_fusion=te,"
                                 "ep_dispatcher=flex,mtp_layers=1,recompute=selective,"
                                 "optimizer_moments=bf16"),
                  e);
        if (QTest::currentTestFailed())
            return;
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // Megatron-Bridge's 26.08 container (NVIDIA-NeMo/Megatron-Bridge,
    // docs/performance-summary.md, the summary of 2026-08-11): the MoE rows on GB300 and GB200,
    // run by the recipes of v0.6.0 (src/megatron/bridge/perf_recipes/{deepseek,qwen}/<system>/,
    // with perf_recipes/deepseek/common.py, _enable_deepseek_full_iteration_mxfp8, and
    // perf_recipes/qwen/common.py, _enable_hybridep_full_iteration_mxfp8): MXFP8 with FP8
    // parameters and BF16 gradient reduction (_perf_precision), the whole iteration captured in
    // one CUDA graph (cuda_graph_impl = "full_iteration"), HybridEP's flex dispatcher with each
    // micro-batch's all-to-alls under another's computation (overlap_moe_expert_parallel_comm),
    // the router forced to balance (every benchmark dropless), T = 1. DeepSeek-V3: the recipe's
    // one MTP layer and `Et*4|(t*4|)*14tmL`, the LM head in FP8 (fp8_output_proj), FP8
    // attention on GB300 only, recomputation of nothing on GB300 and of `mla_up_proj` on GB200,
    // the base recipe's BF16 moments (recipes/deepseek/h100/deepseek_v3.py, exp_avg_dtype).
    // Qwen3: FP8 attention, no recomputation, the 235B's embedding and loss counted in its
    // split (recipes/qwen/h100/qwen3_moe.py). Added after fp8_lm_head was built, as runs nothing
    // in the model was set from.
    void megatronBridgeFullIteration_data()
    {
        addBridgeColumns();
        const QString deepSeek =
            QStringLiteral("mtp_layers=1,fp8_lm_head=true,pipeline_layout=Et*4|(t*4|)*14tmL,"
                           "optimizer_moments=bf16,");
        QTest::addRow("DeepSeek-V3, 256 GB300, K2 v8 E32")
            << "deepseek-v3"
            << deepSeek + "device=gb300-nvl72,pp=2,schedule=interleaved,virtual_stages=8,dp=128,"
                          "ep=32,microbatch_size=1,microbatches=32,recompute=none,"
                          "fp8_attention=true"
            << 256 << 6288.0;
        QTest::addRow("DeepSeek-V3, 256 GB200, K4 v4 E64")
            << "deepseek-v3"
            << deepSeek + "device=gb200-nvl72,pp=4,schedule=interleaved,virtual_stages=4,dp=64,"
                          "ep=64,microbatch_size=1,microbatches=64,recompute=selective,"
                          "recompute_modules=mla_up_proj"
            << 256 << 4912.0;
        QTest::addRow("Qwen3 30B-A3B, 8 GB300")
            << "qwen3-30b-a3b"
            << "device=gb300-nvl72,recompute=none,fp8_attention=true,pp=1,dp=8,ep=8,microbatch_"
               "size=8,"
               "microbatches=8"
            << 8 << 44544.0;
        QTest::addRow("Qwen3 30B-A3B, 8 GB200")
            << "qwen3-30b-a3b"
            << "device=gb200-nvl72,recompute=none,fp8_attention=true,pp=1,dp=8,ep=8,microbatch_"
               "size=4,"
               "microbatches=16"
            << 8 << 39936.0;
        QTest::addRow("Qwen3 235B-A22B, 256 GB300, K4 v12 E32")
            << "qwen3-235b-a22b"
            << "device=gb300-nvl72,recompute=none,fp8_attention=true,pp=4,schedule=interleaved,"
               "virtual_stages=12,ends_in_pipeline_split=true,dp=64,ep=32,microbatch_size=2,"
               "microbatches=64"
            << 256 << 8816.0;
        QTest::addRow("Qwen3 235B-A22B, 256 GB200, K8 v3 E32")
            << "qwen3-235b-a22b"
            << "device=gb200-nvl72,recompute=none,fp8_attention=true,pp=8,schedule=interleaved,"
               "virtual_stages=3,ends_in_pipeline_split=true,dp=32,ep=32,microbatch_size=1,"
               "microbatches=256"
            << 256 << 7280.0;
        // gpt-oss-120b (perf_recipes/gpt_oss/common.py and <system>/): FP8 attention and the LM
        // head in FP8 on both, 1,280 sequences, micro-batch 4, no recomputation; added once the
        // attention kernels took the head width, where they were +30.0 % and +41.3 %.
        QTest::addRow("GPT-OSS 120B, 64 GB300, E16")
            << "gpt-oss-120b"
            << "device=gb300-nvl72,recompute=none,fp8_attention=true,fp8_lm_head=true,pp=1,"
               "dp=64,ep=16,microbatch_size=4,microbatches=5"
            << 64 << 33024.0;
        QTest::addRow("GPT-OSS 120B, 64 GB200, E64")
            << "gpt-oss-120b"
            << "device=gb200-nvl72,recompute=none,fp8_attention=true,fp8_lm_head=true,pp=1,"
               "dp=64,ep=64,microbatch_size=4,microbatches=5"
            << 64 << 28672.0;
    }
    void megatronBridgeFullIteration()
    {
        double e = 0;
        bridgeRun(QStringLiteral(
                      "framework=megatron,precision=fp8,fp8_scaling=block,"
                      "grad_precision=bf16,fp8_params=true,zero=1,attention=flash,"
                      "seq_len=4096,cache_outputs=false,tp=1,expert_tp=1,"
                      "ep_dispatcher=flex,ep_overlap=true,full_cuda_graph=true,loss_fusion=te"),
                  e);
        if (QTest::currentTestFailed())
            return;
        const char *gptOss =
            "modelled fast with nothing left to wait on the host: its attention sinks, its "
            "2,880-wide experts in the fused grouped MLP and FP8's forward at head dimension 64 "
            "(taken as BF16's) are not measured (docs/experts.md)";
        // Both rows alike since the GB300's multiplies run at its short-burst rate
        // (docs/devices.md).
        QEXPECT_FAIL("GPT-OSS 120B, 64 GB200, E64", gptOss, Continue);
        QEXPECT_FAIL("GPT-OSS 120B, 64 GB300, E16", gptOss, Continue);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // NVIDIA/dgxc-benchmarking v25.04.01 (commit 85380ff), "Expected Performance" in
    // llama3.1/README.md, nemotron/README.md and nemo_megatron/README_175b.md: seconds per step
    // of pre-training on DGX Cloud H100 at the layouts the READMEs' tables give. Llama 3.1 and
    // Nemotron-4 run NeMo 2.0's performance recipes in the nemo:25.02.01 container (NeMo commit
    // d2b21556: nemo/collections/llm/recipes/llama3_8b.py, llama3_70b.py, llama31_405b.py,
    // nemotron4_15b.py and nemotron4_340b.py with performance_mode; the launch scripts set T,
    // K, v and the micro-batch): gradients reduced in BF16 (grad_reduce_in_fp32 = False in
    // every performance recipe), the distributed optimizer with the gradient reduce and
    // parameter gather overlapped, Transformer Engine's tensor-parallel overlap whenever T > 1,
    // the 405B's embedding and loss counted in its pipeline split. GPT-3 175B runs NeMo 1.0's
    // configuration in the nemo:24.12 container (nemo_megatron/cfg/gpt3_175b_hydra.yaml): Apex's
    // distributed Adam reducing BF16 gradients (optim.grad_sync_dtype: bf16), tensor-parallel
    // overlap. FP8 everywhere as
    // "hybrid" delayed scaling with an amax history of 1,024; no CUDA graphs (the scripts'
    // default). Added after the model was built, as runs it had not seen.
    void dgxcBenchmarking_data()
    {
        QTest::addColumn<QString>("model"); // a preset, or a model of test_models.h
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        // Each run published in BF16 and in FP8 at the same layout: two rows.
        const auto both = [](const char *name, const char *where, const char *model,
                             const QString &set, double bf16S, double fp8S) {
            QTest::addRow("%s BF16, %s", name, where) << model << set + "precision=bf16" << bf16S;
            QTest::addRow("%s FP8, %s", name, where) << model << set + "precision=fp8" << fp8S;
        };
        const QString eight =
            QStringLiteral("tp=1,pp=1,cp=2,dp=4,microbatches=32,loss_fusion=native,");
        both("Llama 3.1 8B", "8 H100", "llama-3.1-8b", eight, 12.27, 9.33);
        // Sequence parallelism and Transformer Engine's overlap wherever T > 1.
        const QString overlap = QStringLiteral("sequence_parallel=true,tp_overlap=true,");
        const QString seventy =
            overlap +
            "tp=4,dp=2,schedule=interleaved,virtual_stages=5,microbatches=64,loss_fusion=native,";
        QTest::addRow("Llama 3.1 70B BF16, 64 H100")
            << "llama-3.1-70b" << seventy + "precision=bf16,pp=4,cp=2" << 14.66;
        QTest::addRow("Llama 3.1 70B FP8, 64 H100")
            << "llama-3.1-70b" << seventy + "precision=fp8,pp=8,cp=1" << 9.86;
        const QString big = overlap +
                            "tp=8,pp=8,cp=2,dp=8,schedule=interleaved,virtual_stages=8,"
                            "ends_in_pipeline_split=true,microbatches=64,loss_fusion=native,";
        both("Llama 3.1 405B", "1,024 H100", "llama-3.1-405b", big, 19.84, 12.42);
        const QString fifteen =
            overlap +
            "seq_len=4096,tp=2,pp=1,dp=8,microbatch_size=2,microbatches=4,loss_fusion=native,";
        both("Nemotron-4 15B", "16 H100", "nemotron-4-15b", fifteen, 2.66, 1.98);
        const QString nemotron340 = overlap +
                                    "seq_len=4096,tp=8,pp=8,dp=4,schedule=interleaved,"
                                    "virtual_stages=12,microbatches=16,loss_fusion=native,";
        both("Nemotron-4 340B", "256 H100", "nemotron-4-340b", nemotron340, 4.36, 2.93);
        const QString gpt3 = overlap +
                             "seq_len=2048,tp=4,pp=8,dp=4,schedule=interleaved,virtual_stages=6,"
                             "microbatches=64,";
        both("GPT-3 175B", "128 H100", "gpt-3-175b", gpt3, 8.309, 5.626);
        // grok1/cfg/grok1_314b.yaml (NeMo 1.0, nemo:24.12) at 1,024 GPUs: T4 K8 C2, 8 experts
        // on 8 expert-parallel ranks (one each, so grouped multiplies do not arise), the
        // experts split over T as Megatron-Core then did, the all-to-all dispatcher with
        // capacity factor 1.0, tensor-parallel overlap (the yaml's ub_tp_comm_overlap: false is
        // overridden by grok1/configure.sh, model.ub_tp_comm_overlap=true), Megatron-Core's
        // distributed optimizer reducing BF16 gradients (optim.grad_sync_dtype: bf16, which NeMo
        // 1.0's megatron_gpt_model.py turns into grad_reduce_in_fp32 = False), 2,048 sequences
        // over D = 16.
        const QString grok = QStringLiteral(
            "sequence_parallel=true,tp_overlap=true,tp=4,pp=8,cp=2,ep=8,expert_tp=4,dp=16,"
            "schedule=interleaved,virtual_stages=8,microbatches=128,expert_capacity_factor=1,"
            "pad_to_capacity=true,");
        both("Grok-1 314B", "1,024 H100", "grok-1", grok, 21.20, 17.01);
        // v25.05.02 (commit dfc8039), llama3.1/README.md, "GB200 Performance" and "H100
        // Performance": NeMo 2.0 in the nemo:25.04.01 container (NeMo commit 6f2c6fda,
        // scripts/performance/llm/pretrain_llama31_405b.py and
        // recommended_model_configs/model_configs_gb200.csv: no CUDA graphs, no recomputation,
        // the B200 userbuffers configuration's tensor-parallel overlap on GB200), the smallest
        // scale of each system.
        const QString v2505 = overlap + "cp=2,pp=8,schedule=interleaved,virtual_stages=8,"
                                        "ends_in_pipeline_split=true,loss_fusion=native,";
        const QString h100 = v2505 + "tp=8,dp=4,microbatches=64,";
        both("Llama 3.1 405B", "512 H100 (v25.05.02)", "llama-3.1-405b", h100, 19.810, 13.020);
        const QString gb200 = v2505 + "device=gb200-nvl72,tp=4,dp=2,microbatches=32,";
        both("Llama 3.1 405B", "128 GB200", "llama-3.1-405b", gb200, 9.347, 6.131);
        // v25.05.02, nemotron/README.md, "GB200 Performance": Nemotron-4 340B on 128 GB200 in
        // the nemo:25.04.00 container, T8 K4 v12 as nemotron/launch.sh sets them for GB200
        // (with CUDA graphs, which Parascope has no host cost to remove), 32 sequences (weak
        // scaling) and 512 (strong scaling) over D = 4. Its head dimension, 192, is above
        // what Transformer Engine then let cuDNN's fused attention take on Blackwell
        // (transformer_engine/common/fused_attn/fused_attn.cpp, April 2025: head_dim > 128
        // refused on sm_100), so the attention ran FlashAttention-2 (flash2).
        const QString nemotronGb200 =
            overlap + "device=gb200-nvl72,seq_len=4096,tp=8,pp=4,dp=4,"
                      "schedule=interleaved,virtual_stages=12,attention=flash2,loss_fusion=native,";
        both("Nemotron-4 340B", "128 GB200, 32 sequences", "nemotron-4-340b",
             nemotronGb200 + "microbatches=8,", 2.189, 1.483);
        both("Nemotron-4 340B", "128 GB200, 512 sequences", "nemotron-4-340b",
             nemotronGb200 + "microbatches=128,", 32.66, 21.83);
        // v25.05.02, grok1/README.md: NeMo 2.0 in the nemo:25.04.00 container
        // (scripts/performance/llm/pretrain_grok1_314b.py at NeMo commit 6f2c6fda: its
        // performance options overlap the tensor-parallel collectives, reduce gradients in BF16
        // and drop and pad tokens to capacity 1.0, MegatronTokenDropCallback), with the layouts
        // grok1/launch.sh sets: on 128 GB200 T4, 8 expert-parallel ranks with the experts split
        // over T too, D = 32, 256 sequences (with CUDA graphs); on 512 H100 T4 K8 C2, v = 8,
        // the experts not split over T, D = 8, 1,024 sequences.
        const QString grokGb200 =
            overlap + "device=gb200-nvl72,tp=4,pp=1,ep=8,expert_tp=4,dp=32,microbatches=8,"
                      "expert_capacity_factor=1,pad_to_capacity=true,loss_fusion=native,";
        both("Grok-1 314B", "128 GB200", "grok-1", grokGb200, 7.325, 5.298);
        const QString grokH100 = overlap +
                                 "tp=4,pp=8,cp=2,ep=8,expert_tp=1,dp=8,schedule=interleaved,"
                                 "virtual_stages=8,microbatches=128,expert_capacity_factor=1,"
                                 "pad_to_capacity=true,loss_fusion=native,";
        both("Grok-1 314B", "512 H100 (v25.05.02)", "grok-1", grokH100, 15.933, 13.433);
    }
    void dgxcBenchmarking()
    {
        QFETCH(QString, model);
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        // Micro-batch 1 and 8,192 tokens unless the row says otherwise.
        // FP8 with FP8 parameters: NeMo 2.0's bf16_with_fp8_mixed (recipes/precision/
        // mixed_precision.py: fp8_params = True), NeMo 1.0's gpt3_175b_hydra.yaml (fp8_params:
        // true) and grok1/configure.sh (model.fp8_params with FP8).
        Scenario s = scenario(QStringLiteral("framework=megatron,device=h100-sxm,seq_len=8192,"
                                             "microbatch_size=1,zero=1,grad_precision=bf16,"
                                             "fp8_scaling=delayed,fp8_params=true,recompute=none,"
                                             "attention=flash,cache_outputs=false,") +
                              set);
        if (model == QLatin1String("nemotron-4-15b"))
            s.customModel = nemotron4(32, 6144, 48, 24576);
        else if (model == QLatin1String("nemotron-4-340b"))
            s.customModel = nemotron4(96, 18432, 96, 73728);
        else if (model == QLatin1String("grok-1"))
            s.customModel = grok1();
        else
            s.model = model.toStdString();
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits); // the run was measured, so it fitted
        // Throughput: the published step time over the modelled one.
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.2f s modelled, %.2f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        reportMoeWait(r);
        // docs/step_time.md: every listed run within 15 %, but Grok-1's FP8 run on 1,024 H100:
        // its three FP8 runs are 11-20 % fast where the BF16 ones are within 12 %.
        QEXPECT_FAIL("Grok-1 314B FP8, 1,024 H100",
                     "modelled 20 % fast: the model gives Grok-1's FP8 multiplies more speed-up "
                     "over BF16 than its runs measured, the dense models' within 6 % "
                     "(docs/step_time.md)",
                     Continue);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // Nemotron-4 340B Technical Report (NVIDIA, 2024), section 2.3 and Table 2: the model's
    // pre-training on DGX H100 at 8-way tensor and 12-way interleaved pipeline parallelism,
    // 4,096 tokens, BF16, the distributed optimizer, iteration times at three data-parallel
    // sizes of its batch ramp. Not published, taken from the same model's configuration in
    // NVIDIA/NeMo-Framework-Launcher (launcher_scripts/conf/training/nemotron/
    // nemotron_340b.yaml: 768 nodes and 2,304 sequences as the report's last stage):
    // micro-batch 1, selective recomputation, sequence parallelism with userbuffers overlap,
    // gradients reduced in BF16, one layer a model chunk (its K8 v12; K12 makes it v8).
    // Added after the model was built, as runs it had not seen.
    void nemotron4Report_data()
    {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("sequences");
        QTest::addColumn<double>("publishedS");
        QTest::addRow("Nemotron-4 340B, 1,536 H100") << 16 << 768 << 10.3;
        QTest::addRow("Nemotron-4 340B, 3,072 H100") << 32 << 1536 << 10.3;
        QTest::addRow("Nemotron-4 340B, 6,144 H100") << 64 << 2304 << 8.0;
    }
    void nemotron4Report()
    {
        QFETCH(int, dp);
        QFETCH(int, sequences);
        QFETCH(double, publishedS);
        Scenario s = scenario(
            QStringLiteral("framework=megatron,device=h100-sxm,precision=bf16,seq_len=4096,tp=8,"
                           "pp=12,schedule=interleaved,virtual_stages=8,microbatch_size=1,"
                           "sequence_parallel=true,tp_overlap=true,recompute=selective,zero=1,"
                           "grad_precision=bf16,attention=flash,dp=%1,microbatches=%2")
                .arg(dp)
                .arg(sequences / dp));
        s.customModel = nemotron4(96, 18432, 96, 73728);
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.2f s modelled, %.1f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // DeepSeek-AI, "DeepSeek-V3 Technical Report" (2024): pre-training on 2,048 H800 at 180K
    // GPU hours per trillion tokens (Table 1: 2,664K for 14.8T), 15,360 sequences of 4,096
    // tokens a step (§4.2) in about 19.9 s; 16-way pipeline parallelism with DualPipe, 64-way
    // expert parallelism over 8 nodes, ZeRO-1 over the rest, T = 1 (§3.2), each token sent to
    // at most 4 nodes once a node and forwarded over NVLink (§3.2.2, the flex dispatcher),
    // the forward's and backward's all-to-alls of each DualPipe pair overlapped (§3.2.1), FP8
    // with the weights kept in higher precision (§3.3), AdamW's moments in BF16 beside FP32
    // master weights and gradients (§3.3.3: optimizer_moments). Its recomputation, RMSNorm and the
    // MLA up-projections only (§3.3.1), has no key: full recomputation reruns more (an upper bound
    // on the step), selective keeps more (a lower bound, and does not fit in Parascope's
    // count). One micro-batch of one sequence a replica is assumed (not published). The step
    // sits between the bounds; with full recomputation it is within 15 % (docs/experts.md,
    // "DeepSeek-V3's published layout"). The run trained one multi-token-prediction depth,
    // left out here: Parascope's DualPipe splits the layers evenly, where the report balanced
    // its end stages for it in a way it does not publish (docs/step_time.md).
    void deepSeekV3Report()
    {
        const QString set = QStringLiteral(
            "framework=megatron,model=deepseek-v3,device=h800-sxm,precision=fp8,fp8_params=false,"
            "tp=1,pp=16,dp=128,ep=64,zero=1,microbatches=120,microbatch_size=1,seq_len=4096,"
            "schedule=dualpipe,ep_overlap=true,ep_dispatcher=flex,optimizer_moments=bf16,"
            "recompute=");
        const double publishedS = 15360.0 * 4096 / (1e12 / (180e3 * 3600 / 2048));
        const Report full = evaluate(scenario(set + "full"), io::builtinPresets());
        const Report selective = evaluate(scenario(set + "selective"), io::builtinPresets());
        QVERIFY2(full.ok() && full.stepTime && selective.ok() && selective.stepTime,
                 full.error ? full.error->message.c_str() : "no step time");
        QVERIFY(full.fits);
        const double e = error(publishedS / full.stepTime->stepTimeS, 1);
        qInfo("DeepSeek-V3, 2,048 H800: %.2f s modelled with full recomputation, %.2f s with "
              "selective, %.2f s published, %+.1f %% throughput",
              full.stepTime->stepTimeS, selective.stepTime->stepTimeS, publishedS, 100 * e);
        QVERIFY(selective.stepTime->stepTimeS < publishedS);
        QVERIFY(publishedS < full.stepTime->stepTimeS);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
        // The report's own recipe as the keys now say it: its recomputation (RMSNorm, the MLA
        // up-projections and the MoE SwiGLU's output, §3.3.1 and §3.3.3: layernorm,
        // mla_up_proj and moe_act), its tile- and block-wise FP8 (§3.3.2: block scaling) and
        // its MTP depth (§2.2, D = 1). Parascope counts more memory than its 80 GB (the report
        // also keeps SwiGLU's inputs and the attention output in 8 bits, §3.3.3), so the step
        // is checked, not the fit.
        const Report own = evaluate(
            scenario(QString(set).replace(QStringLiteral("precision=fp8,"),
                                          QStringLiteral("precision=fp8,fp8_scaling=block,")) +
                     "selective,recompute_modules=layernorm mla_up_proj moe_act,"
                     "mtp_layers=1"),
            io::builtinPresets());
        QVERIFY2(own.ok() && own.stepTime, own.error ? own.error->message.c_str() : "");
        const double ownE = error(publishedS / own.stepTime->stepTimeS, 1);
        qInfo("DeepSeek-V3, 2,048 H800, the report's recomputation and MTP: %.2f s, %+.1f %%",
              own.stepTime->stepTimeS, 100 * ownE);
        QVERIFY2(std::abs(ownE) <= 0.15, qPrintable(QString::number(100 * ownE, 'f', 1)));
    }

    // MLPerf Training, NVIDIA's submissions on DGX H100, DGX B200 and GB200 NVL72, and those that
    // ran NVIDIA's configuration elsewhere (CoreWeave, the University of Florida)
    // (mlcommons/training_results_v3.0 to _v5.1, <submitter>/benchmarks/<benchmark>/
    // implementations: each system's config_*.sh, config_common.sh and conf/*.yaml): NeMo
    // with Transformer Engine FP8 delayed scaling; sequence parallelism and userbuffers
    // tensor-parallel overlap; the interleaved schedule with overlapped P2P; the distributed
    // optimizer reducing BF16 gradients (GPT-3: Apex's distributed Adam, grad_sync_dtype bf16;
    // Llama 3.1: grad_reduce_in_fp32=False in pretrain.py) with the reduce and gather
    // overlapped; no recomputation. The step time is read from each run's logs
    // (<submitter>/results/<system>/<benchmark>/result_*.txt), the median over its files: v3.0
    // and v5.0 on log it (tracked_stats train_step_timing, train_step_time); v3.1 to v4.1 give
    // block_start to block_stop intervals over the steps they hold (epoch_count in tokens over
    // the logged global_batch_size x 2,048). From v4.0 the runs keep FP8 parameters
    // (FP8_PARAMS or FP8_PARAM_GATHER in config_common.sh): fp8_params; v3.0 and v3.1 kept
    // BF16 ones. From v4.0 NCCL_CFG_PATH points at conf/nccl/custom_communicator_cta.yaml, whose
    // dp and dp_cp communicators take at most 8 CTAs: dp_collective_units = 8. Not modelled: CUDA
    // graphs (the _cg systems; Parascope has no host cost for them to remove) and, for Llama 3.1,
    // the fused cross-entropy (timed unfused). Added after the model was built, as runs it had not
    // seen.
    void mlperfTraining_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        // GPT-3 175B, 2,048 tokens, no dropout (hidden_dropout and attention_dropout 0.0), T = 4.
        const auto row = [](const char *model, const char *name, const QString &set,
                            double publishedS) {
            QTest::newRow(name) << model << set << publishedS;
        };
        const char *gpt3 = "gpt-3-175b";
        // v3.0 (NeMo 23.04; NVIDIA's and CoreWeave's submissions, which log train_step_timing):
        // K = 8, v = 12 (INTERLEAVED_PIPELINE in config_common.sh), micro-batch 1, BF16 weights.
        const QString v30 =
            QStringLiteral("seq_len=2048,tp=4,pp=8,virtual_stages=12,microbatch_size=1,");
        row(gpt3, "GPT-3 v3.0, 512 H100", v30 + "dp=16,microbatches=128", 12.077);
        row(gpt3, "GPT-3 v3.0, 768 H100", v30 + "dp=24,microbatches=128", 12.126);
        row(gpt3, "GPT-3 v3.0, 768 H100 (CoreWeave)", v30 + "dp=24,microbatches=128", 12.299);
        row(gpt3, "GPT-3 v3.0, 1,536 H100 (CoreWeave)", v30 + "dp=48,microbatches=64", 6.338);
        row(gpt3, "GPT-3 v3.0, 3,584 H100 (CoreWeave)", v30 + "dp=112,microbatches=24", 2.598);
        // v3.1 (NeMo 23.09): the same layout.
        const QString v31 = v30;
        row(gpt3, "GPT-3 v3.1, 512 H100", v31 + "dp=16,microbatches=128", 11.071);
        row(gpt3, "GPT-3 v3.1, 768 H100", v31 + "dp=24,microbatches=128", 11.092);
        row(gpt3, "GPT-3 v3.1, 4,096 H100", v31 + "dp=128,microbatches=16", 1.629);
        row(gpt3, "GPT-3 v3.1, 6,144 H100", v31 + "dp=192,microbatches=16", 1.635);
        row(gpt3, "GPT-3 v3.1, 8,192 H100", v31 + "dp=256,microbatches=16", 1.641);
        row(gpt3, "GPT-3 v3.1, 10,240 H100", v31 + "dp=320,microbatches=8", 0.947);
        row(gpt3, "GPT-3 v3.1, 10,752 H100", v31 + "dp=336,microbatches=8", 0.952);
        // Azure's (Azure+NVIDIA/results/ND_H100_v5_n1344_pytorch, mlcommons/training_results_v3.1:
        // NVIDIA's configuration, config_DGXH100_1344x8x8x4x8_mbs1.sh, on Azure's ND H100 v5
        // nodes), its block intervals as NVIDIA's. Added as a run the model had not seen.
        row(gpt3, "GPT-3 v3.1, 10,752 H100 (Azure)", v31 + "dp=336,microbatches=8", 0.9796);
        // v4.0 (NeMo 24.04): 512 GPUs at K = 8, v = 4, micro-batch 2; 10,752 and 11,616 at
        // K = 6, v = 8, micro-batch 1, with CUDA graphs.
        row(gpt3, "GPT-3 v4.0, 512 H100",
            "dp_collective_units=8,fp8_params=true,seq_len=2048,tp=4,pp=8,virtual_stages=4,"
            "microbatch_size=2,dp=16,"
            "microbatches=72",
            10.98);
        const QString v40 = QStringLiteral(
            "dp_collective_units=8,fp8_params=true,seq_len=2048,tp=4,pp=6,virtual_stages=8,"
            "microbatch_size=1,");
        row(gpt3, "GPT-3 v4.0, 10,752 H100", v40 + "dp=448,microbatches=6", 0.921);
        row(gpt3, "GPT-3 v4.0, 11,616 H100", v40 + "dp=484,microbatches=6", 0.922);
        // v4.1 (NeMo 24.09): K = 8, v = 6, micro-batch 2, 2,048 sequences; the B200 preview
        // with CUDA graphs.
        const QString v41 = QStringLiteral(
            "dp_collective_units=8,fp8_params=true,seq_len=2048,tp=4,pp=8,virtual_stages=6,"
            "microbatch_size=2,");
        row(gpt3, "GPT-3 v4.1, 64 B200", v41 + "device=b200,dp=2,microbatches=512", 36.255);
        row(gpt3, "GPT-3 v4.1, 256 H100", v41 + "dp=8,microbatches=128", 18.41);
        row(gpt3, "GPT-3 v4.1, 512 H100", v41 + "dp=16,microbatches=64", 9.542);
        // Oracle's v4.1 runs on 1,536 and 3,072 H100s over RoCE (results/1536xBM.GPU.H100.8 and
        // 3072xBM.GPU.H100.8, whose logs print the configuration: T4 K8 v4, micro-batch 2,
        // 3,072 sequences, FP8 with FP8 parameters, userbuffers overlap, no CUDA graphs, the
        // NCCL configuration capping the data-parallel CTAs; train_step_timing, the median of
        // every step logged). Added as runs the model had not seen.
        const QString oracle = QStringLiteral(
            "dp_collective_units=8,fp8_params=true,seq_len=2048,tp=4,pp=8,virtual_stages=4,"
            "microbatch_size=2,");
        row(gpt3, "GPT-3 v4.1, 1,536 H100 (Oracle)", oracle + "dp=48,microbatches=32", 5.1667);
        row(gpt3, "GPT-3 v4.1, 3,072 H100 (Oracle)", oracle + "dp=96,microbatches=16", 3.0643);
        // v5.0, Llama 3.1 405B, 8,192 tokens, micro-batch 1, C = 2, K = 8, v = 8, the
        // embedding and the loss counted in the pipeline split (ASYM_PP_EMBED, ASYM_PP_LOSS):
        // on H100 (NeMo 25.01) T = 8; on GB200 (NeMo 25.04, CUDA graphs) T = 4.
        const QString v50 = QStringLiteral(
            "dp_collective_units=8,fp8_params=true,seq_len=8192,cp=2,pp=8,virtual_stages=8,"
            "microbatch_size=1,ends_in_pipeline_split=true,");
        const char *llama = "llama-3.1-405b";
        row(llama, "Llama 3.1 405B v5.0, 512 H100", v50 + "tp=8,dp=4,microbatches=288", 55.134);
        row(llama, "Llama 3.1 405B v5.0, 2,048 H100", v50 + "tp=8,dp=16,microbatches=72", 14.22);
        row(llama, "Llama 3.1 405B v5.0, 2,432 H100", v50 + "tp=8,dp=19,microbatches=64", 12.729);
        row(llama, "Llama 3.1 405B v5.0, 2,560 H100", v50 + "tp=8,dp=20,microbatches=56", 11.174);
        row(llama, "Llama 3.1 405B v5.0, 8,192 H100", v50 + "tp=8,dp=64,microbatches=24", 5.18);
        // Nebius's v5.0 runs on 512 and 1,024 H200s, submitted again to v5.1 with the same logs
        // (nebius_soperator_8xH200_n64 and _n128 in v5.0; its systems: NeMo 25.01, 8 × 400 Gb/s
        // NDR a node; Nebius/benchmarks/llama31_405b/implementations/nebius_h200_n64 and _n128,
        // config_DGXH200_64x8x144xtp4pp8cp2.sh and config_DGXH200_128x8x72xtp4pp8cp2.sh: the
        // v5.0 settings above at T = 4, 1,152 sequences a step, the data-parallel
        // communicators at 8 CTAs): the median train_step_time of each system's logs, 738
        // steps. Added as runs the model had not seen.
        row(llama, "Llama 3.1 405B v5.0, 512 H200 (Nebius)",
            v50 + "device=h200,tp=4,dp=8,microbatches=144", 50.016);
        row(llama, "Llama 3.1 405B v5.0, 1,024 H200 (Nebius)",
            v50 + "device=h200,tp=4,dp=16,microbatches=72", 25.356);
        const QString gb200 = v50 + "device=gb200-nvl72,tp=4,microbatches=112,";
        row(llama, "Llama 3.1 405B v5.0, 256 GB200", gb200 + "dp=4", 19.144);
        // The 512-GPU configuration keeps each replica's stages together
        // (config_GB200_128x4x112xtp4pp8cp2_cg_dplast.sh: TP_PP_DP_MAPPING=True).
        row(llama, "Llama 3.1 405B v5.0, 512 GB200", gb200 + "dp=8,rank_order=tp-cp-ep-pp-dp",
            19.474);
        // IBM, CoreWeave and NVIDIA's v5.0 runs on 512 to 2,496 GB200s (carina_ngpu*_ngc25.04_nemo:
        // config_GB200_{128x4x112,256x4x48,384x4x48,512x4x40,624x4x32}xtp4pp8cp2.sh, the
        // configuration above with each replica's stages together, 112 to 32 micro-batches):
        // the median train_step_time of each system's logs. Added as runs the model had not
        // seen.
        const QString carina = gb200 + "rank_order=tp-cp-ep-pp-dp,";
        row(llama, "Llama 3.1 405B v5.0, 512 GB200 (CoreWeave)", carina + "dp=8", 19.315);
        row(llama, "Llama 3.1 405B v5.0, 1,024 GB200 (CoreWeave)", carina + "dp=16,microbatches=48",
            8.448);
        row(llama, "Llama 3.1 405B v5.0, 1,536 GB200 (CoreWeave)", carina + "dp=24,microbatches=48",
            8.505);
        row(llama, "Llama 3.1 405B v5.0, 2,048 GB200 (CoreWeave)", carina + "dp=32,microbatches=40",
            7.164);
        row(llama, "Llama 3.1 405B v5.0, 2,496 GB200 (CoreWeave)", carina + "dp=39,microbatches=32",
            5.827);
        // v5.1, the University of Florida's DGX B200s (NeMo 25.09, NVIDIA's b200_nemo
        // configuration: config_common.sh sets FP8_RECIPE "tensorwise", Transformer Engine's
        // per-tensor current scaling; CUDA graphs; TP_PP_DP_MAPPING=True), 144 sequences per
        // replica.
        const QString b200 = v50 + "device=b200,fp8_scaling=current,tp=4,microbatches=144,"
                                   "rank_order=tp-cp-ep-pp-dp,";
        row(llama, "Llama 3.1 405B v5.1, 256 B200", b200 + "dp=4", 27.665);
        row(llama, "Llama 3.1 405B v5.1, 448 B200", b200 + "dp=7", 27.958);
        // Llama 3.1 8B at the two layouts whose configurations are published
        // (config_DGXB200_1x8x2xtp1pp1cp1_8b.sh, _8x8x1xtp1pp1cp2_8b.sh): one micro-batch a
        // step, full-step CUDA graphs, the fused cross-entropy; buckets of 134,217,728
        // parameters (conf/custom.yaml's bucket_size: this config_common_8b.sh sets no
        // BUCKET_SIZE): 57 buckets, the embedding's 525M parameters and 56 of 134M, each its own
        // collective; the embedding's, a fifteenth of the gradients, is reduced after the
        // backward and gathered before the forward.
        const QString eight =
            QStringLiteral("dp_collective_units=8,fp8_params=true,seq_len=8192,device=b200,"
                           "fp8_scaling=current,tp=1,"
                           "pp=1,schedule=1f1b,sequence_parallel=false,tp_overlap=false,"
                           "microbatches=1,dp_bucket_params=134217728,");
        QTest::newRow("Llama 3.1 8B v5.1, 8 B200")
            << "llama-3.1-8b" << eight + "cp=1,dp=8,microbatch_size=2" << 0.5444;
        QTest::newRow("Llama 3.1 8B v5.1, 64 B200")
            << "llama-3.1-8b" << eight + "cp=2,dp=32,microbatch_size=1" << 0.1894;
        // The same configuration at the University's other node counts
        // (implementations/hpg.dgxb200x8, config_DGXB200_{2x8x2xtp1pp1cp1,4x8x1xtp1pp1cp2,
        // 16x8x1xtp1pp1cp2,32x8x1xtp1pp1cp2}_8b.sh; results/hpg.dgxb200x8.n{2,4,16,32}), and
        // Oracle's and Verda's 64 B200s (Oracle's config_common_8b.sh sets BUCKET_SIZE 768M).
        QTest::newRow("Llama 3.1 8B v5.1, 16 B200")
            << "llama-3.1-8b" << eight + "cp=1,dp=16,microbatch_size=2" << 0.5742;
        QTest::newRow("Llama 3.1 8B v5.1, 32 B200")
            << "llama-3.1-8b" << eight + "cp=2,dp=16,microbatch_size=1" << 0.1883;
        QTest::newRow("Llama 3.1 8B v5.1, 128 B200")
            << "llama-3.1-8b" << eight + "cp=2,dp=64,microbatch_size=1" << 0.1927;
        QTest::newRow("Llama 3.1 8B v5.1, 256 B200")
            << "llama-3.1-8b" << eight + "cp=2,dp=128,microbatch_size=1" << 0.2211;
        QTest::newRow("Llama 3.1 8B v5.1, 64 B200 (Oracle)")
            << "llama-3.1-8b" << eight + "cp=2,dp=32,microbatch_size=1,dp_bucket_params=768e6"
            << 0.1903;
        QTest::newRow("Llama 3.1 8B v5.1, 64 B200 (Verda)")
            << "llama-3.1-8b" << eight + "cp=2,dp=32,microbatch_size=1" << 0.1911;
        // Dell's 8 B300 (PowerEdge XE9780, config_XE9780x8B300-SXM-270GB_1x8x2xtp1pp1cp1_8b.sh,
        // the layout of the 8-B200 row; its logs: FP8 tensorwise, bucket_size 134217728). Added
        // after the B300 preset was written, as a run it had not seen.
        QString eightB300 = eight;
        eightB300.replace(QLatin1String("device=b200"), QLatin1String("device=b300"));
        QTest::newRow("Llama 3.1 8B v5.1, 8 B300 (Dell)")
            << "llama-3.1-8b" << eightB300 + "cp=1,dp=8,microbatch_size=2" << 0.548;
        // NVIDIA's own v5.1 8B runs on GB200 (NVIDIA/benchmarks/llama31_8b/implementations/
        // nemo, config_GB200_18x4x1xtp1pp1cp2_8b.sh and _128x4x1xtp2pp1cp4_8b.sh, the ones the
        // systems' READMEs name; FP8 current scaling with FP8 parameters, CUDA graphs, buckets
        // of 768M parameters, BUCKET_SIZE in config_common_8b.sh and the 512-GPU config): one
        // sequence of 8,192 tokens a replica, over C = 2 on one NVL72 rack and over T = 2 and
        // C = 4 on 512 GPUs.
        const QString gb200Eight =
            QStringLiteral("dp_collective_units=8,fp8_params=true,seq_len=8192,device=gb200-nvl72,"
                           "fp8_scaling=current,"
                           "pp=1,schedule=1f1b,microbatches=1,microbatch_size=1,"
                           "dp_bucket_params=768e6,");
        QTest::newRow("Llama 3.1 8B v5.1, 72 GB200")
            << "llama-3.1-8b"
            << gb200Eight + "tp=1,cp=2,dp=36,sequence_parallel=false,tp_overlap=false" << 0.1711;
        QTest::newRow("Llama 3.1 8B v5.1, 512 GB200")
            << "llama-3.1-8b" << gb200Eight + "tp=2,cp=4,dp=64" << 0.0889;
        // The same configurations on GB300 NVL72 (theia_ngpu72 and theia_ngpu512, whose
        // READMEs name config_GB300_18x4x1xtp1pp1cp2_8b.sh and _128x4x1xtp2pp1cp4_8b.sh, line
        // for line the GB200 ones). Added after the GB300 preset was written, as runs it had
        // not seen.
        QString gb300Eight = gb200Eight;
        gb300Eight.replace(QLatin1String("gb200-nvl72"), QLatin1String("gb300-nvl72"));
        QTest::newRow("Llama 3.1 8B v5.1, 72 GB300")
            << "llama-3.1-8b"
            << gb300Eight + "tp=1,cp=2,dp=36,sequence_parallel=false,tp_overlap=false" << 0.1479;
        QTest::newRow("Llama 3.1 8B v5.1, 512 GB300")
            << "llama-3.1-8b" << gb300Eight + "tp=2,cp=4,dp=64" << 0.0854;
        // The v5.1 8B runs in NVFP4 (config_common_fp4.sh: FP4 with the nvfp4 recipe, no FP8
        // parameters; the Hadamard transform off, stochastic rounding and 2D weight scales
        // on again in config_common_8b.sh; FP8 attention: config_common_fp8attn.sh, FP8_DPA,
        // fp8_dot_product_attention true in every one of these runs' logs), buckets of 768M
        // parameters (config_common_8b.sh), one replica a GPU: on 8 B200 (1x8x2, two
        // sequences a micro-batch) at Nebius, Oracle, Lenovo and Supermicro, whose logs or
        // single configuration name the FP4 config; Nebius's 16 B200 (2x8x2, two micro-batches
        // of one) and 32 B200 (4x8x1); NVIDIA's 8 GB200 (tyche_ngpu8, 2x4x2).
        const QString fp4Eight = QStringLiteral(
            "precision=nvfp4,fp8_attention=true,dp_collective_units=8,seq_len=8192,tp=1,pp=1,"
            "cp=1,schedule=1f1b,sequence_parallel=false,tp_overlap=false,dp_bucket_params=768e6,");
        const QString fp4B200 = fp4Eight + "device=b200,dp=8,microbatches=1,microbatch_size=2";
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 B200 (Nebius)")
            << "llama-3.1-8b" << fp4B200 << 0.4560;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 B200 (Oracle)")
            << "llama-3.1-8b" << fp4B200 << 0.4533;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 B200 (Lenovo)")
            << "llama-3.1-8b" << fp4B200 << 0.4512;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 B200 (Supermicro)")
            << "llama-3.1-8b" << fp4B200 << 0.4508;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 16 B200")
            << "llama-3.1-8b" << fp4Eight + "device=b200,dp=16,microbatches=2,microbatch_size=1"
            << 0.4960;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 32 B200")
            << "llama-3.1-8b" << fp4Eight + "device=b200,dp=32,microbatches=1,microbatch_size=1"
            << 0.2681;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 GB200")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb200-nvl72,dp=8,microbatches=1,microbatch_size=2" << 0.4057;
        // Nebius's 8 B300 (nebius_b300_n1: its logs name DGXB200_1x8x2xtp1pp1cp1_8b and the
        // nvfp4 recipe), as its 8-B200 row.
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 B300 (Nebius)")
            << "llama-3.1-8b" << fp4Eight + "device=b300,dp=8,microbatches=1,microbatch_size=2"
            << 0.3942;
        QTest::newRow("Llama 3.1 8B v5.1 NVFP4, 8 GB300")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb300-nvl72,dp=8,microbatches=1,microbatch_size=2" << 0.3466;
        // NVIDIA's v5.1 405B on 512 GB300 (theia_ngpu512,
        // config_GB300_128x4x72xtp2pp8cp2_cg_fp4.sh, the one its README names): NVFP4
        // (config_common_fp4.sh: no FP8 parameters, "TP overlap not supported yet"), BF16 attention
        // (NVTE_DPA_FP8_RECIPE="F16"), T2 K8 v8 C2 D16, 72 micro-batches of one sequence, the
        // embedding and the loss in the pipeline split, each replica's stages together
        // (TP_PP_DP_MAPPING), CUDA graphs.
        // The same in NVFP4 on GB200 (tyche_ngpu512, hsg_ngpu2560 and hsg_ngpu5120:
        // config_GB200_128x4x144xtp4pp8cp2_cg_fp4.sh, 640x4x24 and 1280x4x16), T4 K8 v8 C2
        // without tensor-parallel overlap, BF16 attention, each replica's stages together.
        const QString fp4Gb200 = QStringLiteral(
            "precision=nvfp4,device=gb200-nvl72,dp_collective_units=8,seq_len=8192,tp=4,pp=8,"
            "virtual_stages=8,cp=2,microbatch_size=1,tp_overlap=false,"
            "ends_in_pipeline_split=true,rank_order=tp-cp-ep-pp-dp,");
        QTest::newRow("Llama 3.1 405B v5.1 NVFP4, 512 GB200")
            << "llama-3.1-405b" << fp4Gb200 + "dp=8,microbatches=144" << 17.296;
        QTest::newRow("Llama 3.1 405B v5.1 NVFP4, 2,560 GB200")
            << "llama-3.1-405b" << fp4Gb200 + "dp=40,microbatches=24" << 3.189;
        QTest::newRow("Llama 3.1 405B v5.1 NVFP4, 5,120 GB200")
            << "llama-3.1-405b" << fp4Gb200 + "dp=80,microbatches=16" << 2.228;
        QTest::newRow("Llama 3.1 405B v5.1 NVFP4, 512 GB300")
            << "llama-3.1-405b"
            << QStringLiteral("precision=nvfp4,device=gb300-nvl72,dp_collective_units=8,"
                              "seq_len=8192,tp=2,pp=8,virtual_stages=8,cp=2,dp=16,"
                              "microbatches=72,microbatch_size=1,tp_overlap=false,"
                              "ends_in_pipeline_split=true,rank_order=tp-cp-ep-pp-dp")
            << 13.147;
        // MLPerf Training v6.0 (mlcommons/training_results_v6.0, NeMo 26.04): the median of
        // the train_step_time values read from each system's logs (tracked_stats; steps within
        // ±0.5 % of one another, docs/step_time.md).
        // NVIDIA's 405B on 512 and 2,048 GB300 (theia-cmh_ngpu512 and _ngpu2048:
        // config_GB300_128x4x56xtp2pp8cp2_cg_fp4.sh and 512x4x16, whose README names them; the
        // logs' global_batch_size is MINIBS x D, 896 and 1,024 sequences) and CoreWeave's on
        // 4,096 (config_GB300_1024x4x8xtp2pp8cp2_cg_fp4.sh, NVIDIA's recipe): the v5.1 GB300
        // recipe above, its shared settings assumed unchanged where the v6.0 config_common
        // files are not at hand. Azure's 8,192 GB200 (2048xAzure_GB200: NVIDIA's
        // config_GB200_640x4x24xtp4pp8cp2_cg_fp4.sh with buckets of 134M parameters,
        // BUCKET_SIZE; 1,024 sequences a step in its logs, D = 128) has one 800 Gb/s ConnectX-8
        // port a GPU (systems/2048xAzure_GB200.json), not the preset's 400. Added after the
        // model was built, as runs it had not seen.
        const QString v60Gb300 = QStringLiteral(
            "precision=nvfp4,device=gb300-nvl72,dp_collective_units=8,seq_len=8192,tp=2,pp=8,"
            "virtual_stages=8,cp=2,microbatch_size=1,tp_overlap=false,"
            "ends_in_pipeline_split=true,rank_order=tp-cp-ep-pp-dp,");
        QTest::newRow("Llama 3.1 405B v6.0 NVFP4, 512 GB300")
            << "llama-3.1-405b" << v60Gb300 + "dp=16,microbatches=56" << 9.595;
        QTest::newRow("Llama 3.1 405B v6.0 NVFP4, 2,048 GB300")
            << "llama-3.1-405b" << v60Gb300 + "dp=64,microbatches=16" << 3.104;
        QTest::newRow("Llama 3.1 405B v6.0 NVFP4, 4,096 GB300 (CoreWeave)")
            << "llama-3.1-405b" << v60Gb300 + "dp=128,microbatches=8" << 1.747;
        QTest::newRow("Llama 3.1 405B v6.0 NVFP4, 8,192 GB200 (Azure)")
            << "llama-3.1-405b"
            << fp4Gb200 + "dp=128,microbatches=8,inter_node_gb_per_s=100,"
                          "dp_bucket_params=134217728"
            << 1.293;
        // NVIDIA's v6.0 8B runs (their logs give every 32nd step's train_step_time): NVFP4 on 8
        // GB300 (theia_ngpu8, config_GB300_2x4x2xtp1pp1cp1_8b_fp4.sh: two sequences a GPU)
        // and on 72 (theia_ngpu72, 18x4x1xtp1pp1cp1_8b_fp4: one a GPU, no context
        // parallelism, where v5.1 ran C2 in FP8), with the v5.1 NVFP4 rows' FP8 attention
        // and buckets; FP8 on 512 GB300 (theia_ngpu512, the v5.1 config's name and layout) and
        // on 1,024 GB200 (tyche-hsg_ngpu1024, config_GB200_256x4x1xtp4pp1cp4_8b.sh: T4 with
        // userbuffers overlap, C4, D64). Added as runs the model had not seen.
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 GB300")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb300-nvl72,dp=8,microbatches=1,microbatch_size=2" << 0.3442;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 72 GB300")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb300-nvl72,dp=72,microbatches=1,microbatch_size=1" << 0.1994;
        // Dell's v6.0 8B on 64 GB300s (results/16xXE9712x4GB300, llama31_8b): 64 sequences a
        // step, one a GPU; its log gives no layout or precision and its configuration is not
        // published, so NVIDIA's 72-GPU NVFP4 layout above is assumed; the median of the
        // train_step_time it gives five times a block (whole blocks' wall time gives 0.193-0.196).
        // Added as a run the model had not seen.
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 64 GB300 (Dell)")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb300-nvl72,dp=64,microbatches=1,microbatch_size=1" << 0.2001;
        // Other v6.0 submitters' 8B runs (their train_step_time medians; added as runs the
        // model had not seen). Lambda's 8 B200 (b200_n1_ngc25.09_nemo,
        // config_DGXB200_1x8x2xtp1pp1cp1_8b_fp4.sh, whose log names the nvfp4 recipe and
        // full-step CUDA graphs): the v5.1 NVFP4 rows' layout. Nebius's 64 B300
        // (nebius_b300_n8, config_DGXB300_8x8x1xtp1pp1cp1_8b_fp4.sh): one sequence a GPU.
        // Cisco's 16 H200 (2xC885A_M8-8xH200-SXM-141GB, config_C885A_H200_2x8x1xtp1pp1cp1_8b.sh,
        // whose log gives FP8 tensorwise with FP8 parameters and two micro-batches of one
        // sequence a replica): the v5.1 B200 FP8 rows' settings.
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 B200 (Lambda)")
            << "llama-3.1-8b" << fp4B200 << 0.4558;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 64 B300 (Nebius)")
            << "llama-3.1-8b" << fp4Eight + "device=b300,dp=64,microbatches=1,microbatch_size=1"
            << 0.2354;
        // More v6.0 8B runs in NVFP4 on NVIDIA's recipes, each named by its log's
        // configuration line or printed by its log (fp4 e2m1, nvfp4, FP8 attention, full-step
        // CUDA graphs): one sequence a GPU on 72 GB300s at Nebius (nebius_gb300_n18, whose run
        // script names config_GB300_18x4x1xtp1pp1cp1_8b_fp4.sh), Oracle (72GPU.GB300.4.NVL72),
        // Lambda (gb300_n18_ngc25.09_nemo) and Supermicro (ARS-121GL-NB3); two a GPU on 8
        // GB300s at Oracle (8GPU.GB300.4.NVL72, 2x4x2) and on 8 B300s at Nebius (b300_n1,
        // config_DGXB300_1x8x2xtp1pp1cp1_8b_fp4.sh), Supermicro (AS-4126GS-NB3RT-LCC-8xB300_SXM,
        // its 1x8x2 config) and Cisco (1xC880A_M8-8xB300-SXM-288GB, whose log gives micro-batch
        // 2 and no sequence parallelism). The median of every logged train_step_time but the
        // ones under 50 ms that follow an evaluation. Added as runs the model had not seen.
        const QString fp4Gb300Rack =
            fp4Eight + "device=gb300-nvl72,dp=72,microbatches=1,microbatch_size=1";
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 72 GB300 (Nebius)")
            << "llama-3.1-8b" << fp4Gb300Rack << 0.1999;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 72 GB300 (Oracle)")
            << "llama-3.1-8b" << fp4Gb300Rack << 0.2022;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 72 GB300 (Lambda)")
            << "llama-3.1-8b" << fp4Gb300Rack << 0.2003;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 72 GB300 (Supermicro)")
            << "llama-3.1-8b" << fp4Gb300Rack << 0.1987;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 GB300 (Oracle)")
            << "llama-3.1-8b"
            << fp4Eight + "device=gb300-nvl72,dp=8,microbatches=1,microbatch_size=2" << 0.3432;
        const QString fp4B300 = fp4Eight + "device=b300,dp=8,microbatches=1,microbatch_size=2";
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 B300 (Nebius)")
            << "llama-3.1-8b" << fp4B300 << 0.3918;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 B300 (Supermicro)")
            << "llama-3.1-8b" << fp4B300 << 0.3828;
        QTest::newRow("Llama 3.1 8B v6.0 NVFP4, 8 B300 (Cisco)")
            << "llama-3.1-8b" << fp4B300 << 0.4000;
        QString eightH200 = eight;
        eightH200.replace(QLatin1String("device=b200"), QLatin1String("device=h200"));
        QTest::newRow("Llama 3.1 8B v6.0, 16 H200 (Cisco)")
            << "llama-3.1-8b" << eightH200 + "cp=1,dp=16,microbatch_size=1,microbatches=2"
            << 1.1818;
        QTest::newRow("Llama 3.1 8B v6.0, 512 GB300")
            << "llama-3.1-8b" << gb300Eight + "tp=2,cp=4,dp=64" << 0.0758;
        QTest::newRow("Llama 3.1 8B v6.0, 1,024 GB200")
            << "llama-3.1-8b" << gb200Eight + "tp=4,cp=4,dp=64" << 0.0719;
    }
    void mlperfTraining()
    {
        QFETCH(QString, model);
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        const core::Presets presets = io::builtinPresets();
        // The Llama 3.1 runs are NeMo 2.0's, whose GPTConfig turns on Megatron-core's fused
        // loss (cross_entropy_loss_fusion, the native implementation by default); the GPT-3
        // runs' NeMo 1.0 configuration names no fused loss.
        const QString loss = model.startsWith(QLatin1String("llama"))
                                 ? QStringLiteral("loss_fusion=native,")
                                 : QString();
        Scenario s =
            scenario(QStringLiteral("framework=megatron,device=h100-sxm,precision=fp8,"
                                    "sequence_parallel=true,tp_overlap=true,"
                                    "schedule=interleaved,zero=1,grad_precision=bf16,"
                                    "fp8_scaling=delayed,recompute=none,attention=flash,") +
                     loss + set);
        ModelSpec spec = *presets.model(model.toStdString());
        if (model == QLatin1String("gpt-3-175b"))
            spec.dropout = false;
        s.customModel = spec;
        const Report r = evaluate(s, presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.3f s modelled, %.3f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        // docs/step_time.md: every listed run within 15 %, but two of NVIDIA's NVFP4 405B runs
        // on GB200. The University of Florida's 8B step grows from 0.193 s on 128 B200s to
        // 0.221 s on 256, as each of the sync's 57 buckets pays its ring's latency over twice
        // as many GPUs (docs/step_time.md, "Buckets").
        counted(e);
        const char *fp4T4 = "modelled slow as Megatron-Bridge's 405B NVFP4 run at T = 4 on 256 "
                            "GB200s is, the more the more replicas: NVFP4 at T = 4 without "
                            "tensor-parallel overlap, not found (docs/step_time.md)";
        QEXPECT_FAIL("Llama 3.1 405B v5.1 NVFP4, 2,560 GB200", fp4T4, Continue);
        QEXPECT_FAIL("Llama 3.1 405B v5.1 NVFP4, 5,120 GB200", fp4T4, Continue);
        QEXPECT_FAIL("Llama 3.1 8B v6.0, 512 GB300",
                     "modelled 16 % slow, a step under 250 ms (short-step) that is 58 % exposed "
                     "gradient sync: v6.0 ran v5.1's configuration of it 11 % faster (0.0854 to "
                     "0.0758 s, NeMo 26.04 for 25.09); what changed "
                     "is not found (docs/step_time.md)",
                     Continue);
        QEXPECT_FAIL("Llama 3.1 8B v6.0, 1,024 GB200",
                     "modelled 38 % fast, a step under 250 ms (short-step): 512 tokens a GPU at "
                     "T = 4 and C = 4 ran barely faster than T = 2 on 512 GB300s (0.0719 against "
                     "0.0758 s) where the model halves each GPU's work; what the smaller pieces "
                     "cost is not found (docs/step_time.md)",
                     Continue);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // MLPerf Training v5.0's and v5.1's Llama 2 70B LoRA (mlcommons/training_results_v5.0,
    // NVIDIA's submissions, NeMo 25.04: benchmarks/llama2_70b_lora/implementations/*/config_*.sh,
    // config_common.sh, conf/megatron_gpt_peft_tuning_config.yaml, train.py): rank-16 adapters
    // beside linear_qkv and linear_proj (train.py, LoRA(dim=16, target_modules=["linear_proj",
    // "linear_qkv"])), one packed sequence of 8,192 tokens a GPU per step (GovReport documents
    // fill it), T1 K1, FP8 with delayed scaling, FP8 weights and FP8 attention (FP8_DPA),
    // Megatron-core's loss unfused (cross_entropy_loss_fusion=False), the distributed optimizer
    // with nothing overlapped; the 8-GPU runs keep the SwiGLU input in FP8 (FP8_ACT), the CP8
    // runs exchange by all-to-all (cp_comm_type a2a) and capture each layer in a CUDA graph.
    // The step is the median of every train_step_time the system's logs give
    // (results/*/llama2_70b_lora/result_*.txt, tracked_stats). Llama 2 70B is Llama 3.1 70B's
    // shape with a vocabulary of 32,000 (meta-llama/Llama-2-70b-hf, config.json). Added after
    // LoRA was built, as runs the model had not seen.
    void mlperfLora_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        const QString one = QStringLiteral("fp8_activation_input=true,cp=1,");
        const QString cp8 = QStringLiteral("cp=8,cp_exchange=alltoall,device=gb200-nvl72,");
        QTest::newRow("Llama 2 70B LoRA v5.0, 8 B200") << one + "device=b200,dp=8" << 1.5124;
        QTest::newRow("Llama 2 70B LoRA v5.0, 8 GB200")
            << one + "device=gb200-nvl72,dp=8" << 1.4858;
        QTest::newRow("Llama 2 70B LoRA v5.0, 72 GB200, C8") << cp8 + "dp=9" << 0.2384;
        QTest::newRow("Llama 2 70B LoRA v5.0, 144 GB200, C8") << cp8 + "dp=18" << 0.2439;
        QTest::newRow("Llama 2 70B LoRA v5.0, 512 GB200, C8") << cp8 + "dp=64" << 0.2577;
        // Oracle's v5.0 runs on 8 and 64 B200s (Oracle/benchmarks/llama2_70b_lora/
        // implementations/1xBM.GPU.B200.8 and 8xBM.GPU.B200.8: NVIDIA's configurations, T1 C1
        // with the SwiGLU input in FP8, and T1 C8 over the 8 × 400 Gb/s NDR of its nodes): the
        // median train_step_time of each system's logs. Added as runs the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v5.0, 8 B200 (Oracle)")
            << one + "device=b200,dp=8" << 1.5266;
        QTest::newRow("Llama 2 70B LoRA v5.0, 64 B200, C8 (Oracle)")
            << QStringLiteral("cp=8,cp_exchange=alltoall,device=b200,dp=8") << 0.2558;
        // Oracle's v5.0 runs on 4, 8 and 72 GB200s (implementations/1xBM.GPU.GB200.4,
        // 2xBM.GPU.GB200.4 and 18xBM.GPU.GB200.4: NVIDIA's configurations, C2 D2 with four
        // sequences a replica, D8 with the SwiGLU input in FP8, C8 D9).
        QTest::newRow("Llama 2 70B LoRA v5.0, 4 GB200, C2 (Oracle)")
            << QStringLiteral("cp=2,cp_exchange=alltoall,device=gb200-nvl72,dp=2,microbatches=4")
            << 2.9742;
        QTest::newRow("Llama 2 70B LoRA v5.0, 8 GB200 (Oracle)")
            << one + "device=gb200-nvl72,dp=8" << 1.4842;
        QTest::newRow("Llama 2 70B LoRA v5.0, 72 GB200, C8 (Oracle)") << cp8 + "dp=9" << 0.2275;
        // Supermicro's v5.0 run on 72 GB200s (results/ARS-121GL-NBO_18, implementations/
        // b200_nemo/config_GB200_18x4x1xtp1pp1cp8.sh, NVIDIA's).
        QTest::newRow("Llama 2 70B LoRA v5.0, 72 GB200, C8 (Supermicro)") << cp8 + "dp=9" << 0.2296;
        // v5.1 (NeMo 25.09, mlcommons/training_results_v5.1, implementations/nemo): the same
        // C8 layouts on GB200 and GB300. Every MLPerf LoRA implementation builds the model
        // under Transformer Engine's fp8_model_init (custom_llama.py, configure_model), so the
        // frozen weights are held in FP8 whatever FP8_PARAM_GATHER says (it is 0 here: the
        // distributed optimizer's gather, which frozen weights do not take). Its 8-GPU runs
        // train in NVFP4 and switch to FP8 after 350 steps (HEALING_ITER): the rows below take
        // the blocks of steps before it.
        const QString v51 = QStringLiteral("cp=8,cp_exchange=alltoall,");
        QTest::newRow("Llama 2 70B LoRA v5.1, 72 GB200, C8")
            << v51 + "device=gb200-nvl72,dp=9" << 0.1994;
        QTest::newRow("Llama 2 70B LoRA v5.1, 512 GB200, C8")
            << v51 + "device=gb200-nvl72,dp=64" << 0.2107;
        QTest::newRow("Llama 2 70B LoRA v5.1, 72 GB300, C8")
            << v51 + "device=gb300-nvl72,dp=9" << 0.1723;
        QTest::newRow("Llama 2 70B LoRA v5.1, 512 GB300, C8")
            << v51 + "device=gb300-nvl72,dp=64" << 0.1834;
        // Lambda's 72 GB300s (results/gb300_n18_ngc25.04_nemo, PyTorch 25.09 by its system
        // file; implementations/gb300_1007/config_GB300_18x4x1xtp1pp1cp8.sh, line for line
        // NVIDIA's): the median of the 56 train_step_time values of its ten logs. Added after
        // the GB300 took its short-burst rates, as a run the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v5.1, 72 GB300, C8 (Lambda)")
            << v51 + "device=gb300-nvl72,dp=9" << 0.1807;
        // Supermicro's 72 GB300s (results/ARS-121GL-NB3, whose logs print the configuration:
        // C = 8, FP8 without FP4): the same layout, added as a run the model had
        // not seen.
        QTest::newRow("Llama 2 70B LoRA v5.1, 72 GB300, C8 (Supermicro)")
            << v51 + "device=gb300-nvl72,dp=9" << 0.1789;
        // MLPerf Training v6.0 (mlcommons/training_results_v6.0, NeMo 26.04 on
        // Megatron-Bridge): NVIDIA's C8 runs on 72 and 512 GB300 (theia_ngpu72 and
        // theia_ngpu512, config_GB300_18x4x1xtp1pp1cp8.sh and 128x4x1, v5.1's line for line)
        // and HPE's on 72 (HPE-GB300-ngpu72_ngc26.04, NVIDIA's file), the median of the
        // train_step_time their logs give every tenth step. HPE's log prints the recipe:
        // Transformer Engine's loss (cross_entropy_fusion_impl 'te'), no cached weight
        // transposes (disable_parameter_transpose_cache), the whole step in one CUDA graph
        // (cuda_graph_scope full_iteration), FP8 delayed scaling with FP8 attention. Added as
        // runs the model had not seen.
        const QString v60 = v51 + "device=gb300-nvl72,loss_fusion=te,full_cuda_graph=true,";
        QTest::newRow("Llama 2 70B LoRA v6.0, 72 GB300, C8") << v60 + "dp=9" << 0.1688;
        QTest::newRow("Llama 2 70B LoRA v6.0, 512 GB300, C8") << v60 + "dp=64" << 0.1746;
        QTest::newRow("Llama 2 70B LoRA v6.0, 72 GB300, C8 (HPE)") << v60 + "dp=9" << 0.1643;
        // Dell's on 64 GB300s (results/16xXE9712x4GB300): eight sequences a step over 64
        // GPUs and NVIDIA's C8 recipe's learning rate and 700 steps; its log gives no layout,
        // so C8 D8 is read from those. The median of every tenth step's train_step_time.
        // Added as a run the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v6.0, 64 GB300, C8 (Dell)") << v60 + "dp=8" << 0.1656;
        // QCT's 64 GB300 (D75U-1U_ngpu64, config_D75U-1U_16x4x1xtp1pp1cp8.sh: C8, CUDA
        // graphs), the same layout, added as a run the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v6.0, 64 GB300, C8 (QCT)") << v60 + "dp=8" << 0.1633;
        // Supermicro's 72 GB300 (ARS-121GL-NB3, whose log gives C8 with the all-to-all
        // exchange, FP8 delayed scaling, no FP4, full-step CUDA graphs, nine sequences) and
        // GigaComputing's (DLB2-CB3_pytorch: nine sequences, the C8 recipe's learning rate and
        // 800 steps). Added as runs the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v6.0, 72 GB300, C8 (Supermicro)") << v60 + "dp=9" << 0.1632;
        QTest::newRow("Llama 2 70B LoRA v6.0, 72 GB300, C8 (GigaComputing)")
            << v60 + "dp=9" << 0.1637;
        // NVIDIA's 8-GPU runs in NVFP4 (config_common_fp4.sh: FP4 with the nvfp4 recipe, FP8
        // attention in delayed scaling, no FP8 activation input), the frozen weights quantized
        // to NVFP4 in place before training (PRE_QUANTIZED_MODEL; custom_callbacks.py,
        // _pre_quantize_model: fp8_params), until step 350 (HEALING_ITER), after which they
        // train in FP8: the median of the train_step_time of the blocks before it. v5.1 on 8
        // GB300 (theia_ngpu8, config_GB300_2x4x1xtp1pp1cp1_fp4.sh: D8) and 8 GB200
        // (tyche_ngpu8, config_GB200_2x4x2xtp1pp1cp2_fp4.sh: C2 D4, two sequences a replica),
        // the first four blocks of each of their ten logs (steps 0 to 335); v6.0 on 8 GB300
        // (theia_ngpu8: D8), the steps its log gives every tenth before step 340. Added once
        // the frozen NVFP4 weights were held as the runs hold them, as runs the model had not
        // seen.
        const QString fp4 = QStringLiteral("precision=nvfp4,fp8_params=true,");
        QTest::newRow("Llama 2 70B LoRA v5.1 NVFP4, 8 GB300")
            << fp4 + "cp=1,device=gb300-nvl72,dp=8" << 0.7461;
        QTest::newRow("Llama 2 70B LoRA v5.1 NVFP4, 8 GB200, C2")
            << fp4 + "cp=2,cp_exchange=alltoall,device=gb200-nvl72,dp=4,microbatches=2" << 1.0383;
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 8 GB300")
            << fp4 + "cp=1,device=gb300-nvl72,dp=8,loss_fusion=te,full_cuda_graph=true" << 0.7255;
        // Oracle's 8 GB300 (8GPU.GB300.4.NVL72; its log names GB300_2x4x1xtp1pp1cp1_fp4, the
        // NVIDIA row's layout) and Cisco's 16 B300 (2xC880A_M8-8xB300-SXM-288GB,
        // config_c880_B300_2x8x1xtp1pp1cp1_fp4.sh and its log: C2 D8, full-step CUDA graphs),
        // the steps before step 350; added as runs the model had not seen.
        const QString fp4Eights = fp4 + "cp=1,dp=8,loss_fusion=te,full_cuda_graph=true,device=";
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 8 GB300 (Oracle)")
            << fp4Eights + "gb300-nvl72" << 0.7123;
        // The NVFP4 recipe one sequence a GPU on 8 B300s: Supermicro's
        // (AS-4126GS-NB3RT-LCC-8xB300_SXM, config_AS-4126GS-NB3RT-LCC_1x8x1xtp1pp1cp1_fp4.sh and
        // its log), ASUSTeK's (XA_NB3I_E12) and GigaComputing's (G894-SD3-AAX7_pytorch), whose
        // logs give the recipe's batch, learning rate, 550 steps and the healing phase's jump at
        // step 350. The steps before step 350. Added as runs the model had not seen.
        // (Supermicro's 8 B200s, AS-4126GS-NBR-LCC, whose log names the same layout, are not
        // here: Parascope puts it at about 235 GB of the B200's 193; docs/step_time.md, "MLPerf
        // Training v6.0".)
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 8 B300 (Supermicro)")
            << fp4Eights + "b300" << 0.8483;
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 8 B300 (ASUSTeK)")
            << fp4Eights + "b300" << 0.8380;
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 8 B300 (GigaComputing)")
            << fp4Eights + "b300" << 0.8651;
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 16 B300, C2 (Cisco)")
            << fp4 +
                   "cp=2,cp_exchange=alltoall,device=b300,dp=8,loss_fusion=te,full_cuda_graph=true"
            << 0.4864;
        // Dell's on 4 GB300s (results/1xXE9712x4GB300): eight sequences a step in two
        // accumulated micro-batches, so D4; the learning rate and 550 steps of NVIDIA's NVFP4
        // recipe, whose step grows from 1.45 to about 2.1 s at step 350 as the healing phase
        // begins: the median of the train_step_time both logs give every tenth step before it.
        // Added as a run the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v6.0 NVFP4, 4 GB300 (Dell)")
            << fp4 +
                   "cp=1,device=gb300-nvl72,dp=4,microbatches=2,loss_fusion=te,full_cuda_graph=true"
            << 1.4478;
        // Dell's 8 H200 (results/1xXE9680Lx8H200-SXM-141GB, whose logs print the
        // configuration): T2 with sequence parallelism and no userbuffers overlap
        // (tp_comm_overlap=False), D4, two micro-batches a step, FP8 weights (fp8_model_init,
        // above), FP8 attention and the SwiGLU input in FP8; the output
        // projection's adapters exchanged by all-to-all, as every MLPerf run's (train.py:
        // LoRA(..., a2a_experimental=True)).
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 H200 (Dell)")
            << QStringLiteral("device=h200,tp=2,sequence_parallel=true,tp_overlap=false,dp=4,"
                              "microbatches=2,fp8_activation_input=true,cp=1,"
                              "lora_a2a=true")
            << 3.1467;
        // Krai's v6.0 runs on 16, 32 and 64 H200s (Krai/results/Cray-XD670-H200-SXM5-141GB
        // n2, n4 and n8, on HPE's v5.0 code, whose logs print the configuration: T2, T4 and T4
        // with sequence parallelism and userbuffers overlap, C = 1, one sequence a replica, FP8
        // delayed scaling with FP8 attention, no CUDA graphs; QKV's overlap off as in every
        // NeMo MLPerf LoRA run, the adapters exchanged by all-to-all). Their logs give sequences
        // a second once a block; the step is the global batch over the median. Added as runs
        // the model had not seen.
        const QString krai =
            QStringLiteral("device=h200,cp=1,sequence_parallel=true,tp_overlap=true,"
                           "tp_overlap_qkv=false,lora_a2a=true,");
        QTest::newRow("Llama 2 70B LoRA v6.0 on v5.0 code, 16 H200 (Krai), T2")
            << krai + "tp=2,dp=8" << 8 / 4.7969;
        QTest::newRow("Llama 2 70B LoRA v6.0 on v5.0 code, 32 H200 (Krai), T4")
            << krai + "tp=4,dp=8" << 8 / 9.1090;
        QTest::newRow("Llama 2 70B LoRA v6.0 on v5.0 code, 64 H200 (Krai), T4")
            << krai + "tp=4,dp=16" << 16 / 18.0947;
        // Fujitsu's v6.0 run on 8 H200 NVL in a PCIe expansion chassis (Fujitsu/results/
        // PRIMERGY_CDI_H200_NVL_144GBx8, benchmarks/llama2_70b_lora/implementations/nemo/
        // configs/config_PGCDI_1x8x4xtp4pp1cp1.sh; its log prints the configuration): T4 in
        // each 4-way NVLink-bridged group with sequence parallelism and userbuffers overlap,
        // D2 across the groups over PCIe Gen5 (64 GB/s a direction, the datasheet's), four
        // sequences a replica, FP8 delayed scaling with FP8 attention, no CUDA graphs, and the
        // first 20 layers' activations offloaded to host memory (cpu_offloading_num_layers:
        // 20): the median train_step_time of its first log. Added as a run the model had not
        // seen; the H200 NVL takes the H200 SXM's measured fractions of its own peak.
        QTest::newRow("Llama 2 70B LoRA v6.0, 8 H200 NVL (Fujitsu), T4")
            << QStringLiteral("device=h200-nvl,cp=1,tp=4,dp=2,microbatches=4,"
                              "sequence_parallel=true,tp_overlap=true,tp_overlap_qkv=false,"
                              "lora_a2a=true,offload_layers=20,inter_node_gb_per_s=64")
            << 3.994;
        // Dell's 8 B300 (results/1xXE9780x8B300-SXM-270GB, whose logs print the configuration):
        // T1 D8, one micro-batch, FP8 weights, FP8 attention, the SwiGLU input in FP8, no
        // CUDA graphs (enable_cuda_graph=False).
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 B300 (Dell)")
            << QStringLiteral("device=b300,dp=8,fp8_activation_input=true,cp=1") << 1.2998;
        // Lenovo's 8 B300 (results/SR680aV4-8xB300_SXM; benchmarks/llama2_70b_lora/
        // config_SR780aV3_SR680aV3_SR680aV4.sh and config_common.sh: FP8, FP8 attention, the
        // SwiGLU input in FP8, no CUDA graphs, C = 1, eight sequences a step): the median
        // train_step_time of its logs. Added as a run the model had not seen.
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 B300 (Lenovo)")
            << QStringLiteral("device=b300,dp=8,fp8_activation_input=true,cp=1") << 1.2609;
        // Dell's 8 B200 (results/1xXE9685Lx8B200-SXM-180GB, NeMo 25.09, whose logs print the
        // configuration: FP8 delayed scaling without FP4, FP8 attention, the SwiGLU input in
        // FP8, no CUDA graphs, C = 1): the B300 rows' layout on the B200, added as a run the
        // model had not seen.
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 B200 (Dell)")
            << QStringLiteral("device=b200,dp=8,fp8_activation_input=true,cp=1") << 1.2956;
        // Cisco's 64 and 128 H100s (results/hpf_n8 and hpf_n16, nemo/configs/
        // config_DGXH100_8x8x1xtp4pp1cp2.sh and 16x8x1: T4 C2 with sequence parallelism and
        // userbuffers overlap, D8 and D16, one sequence a replica a step, FP8 weights, attention
        // in BF16, the adapters exchanged by all-to-all (LORA_A2A) and QKV's overlap off
        // (tp_comm_overlap_disable_qkv, MC_TP_DISABLE_QKV's default). Their logs give
        // sequences a second; the step is D over the median of them all. Added with lora_a2a
        // and tp_overlap_qkv, which their configuration sets.
        const QString cisco =
            QStringLiteral("device=h100-sxm,tp=4,cp=2,sequence_parallel=true,tp_overlap=true,"
                           "tp_overlap_qkv=false,lora_a2a=true,fp8_attention=false,");
        QTest::newRow("Llama 2 70B LoRA v5.1, 64 H100 (Cisco), T4 C2")
            << cisco + "dp=8" << 8 / 14.7295;
        QTest::newRow("Llama 2 70B LoRA v5.1, 128 H100 (Cisco), T4 C2")
            << cisco + "dp=16" << 16 / 29.4076;
        // MLPerf Training v4.0 (mlcommons/training_results_v4.0, NVIDIA's submissions, NeMo
        // 24.04: benchmarks/llama2_70b_lora/implementations/nemo, config_DGXH100_*.sh,
        // configs/config_common.sh, conf/megatron_gpt_peft_tuning_config.yaml): the same
        // adapters and sequences, FP8 weights (fp8_params: FP8), FP8 attention (FP8_DPA), T4
        // with sequence parallelism, userbuffers overlap but QKV's (tp_comm_disable_qkv), the
        // adapters exchanged by all-to-all (LORA_A2A), the context-parallel runs' ring
        // (Megatron-core's default p2p), Apex's fused Adam without the distributed optimizer,
        // its all-reduce after the backward, and no CUDA graphs. The logs give sequences a
        // second over each block between evaluations (tracked_stats, custom_callbacks.py: the
        // train batches' own time); the step is the global batch over the median of all of
        // them. Added as runs the model had not seen.
        const QString v40 =
            QStringLiteral("device=h100-sxm,tp=4,sequence_parallel=true,tp_overlap=true,"
                           "tp_overlap_qkv=false,lora_a2a=true,zero=0,");
        QTest::newRow("Llama 2 70B LoRA v4.0, 8 H100, T4")
            << v40 + "cp=1,dp=2,microbatches=4" << 8 / 2.1538;
        QTest::newRow("Llama 2 70B LoRA v4.0, 64 H100, T4 C2")
            << v40 + "cp=2,cp_exchange=ring,dp=8" << 8 / 12.5437;
        QTest::newRow("Llama 2 70B LoRA v4.0, 1,024 H100, T4 C2")
            << v40 + "cp=2,cp_exchange=ring,dp=128" << 128 / 189.5001;
        // The H200 system (config_DGXH200_1x8x2xtp2pp1cp1.sh): T2, two micro-batches a
        // replica, the SwiGLU input in FP8 (FP8_ACTIVATION).
        QTest::newRow("Llama 2 70B LoRA v4.0, 8 H200, T2")
            << QStringLiteral("device=h200,tp=2,sequence_parallel=true,tp_overlap=true,"
                              "tp_overlap_qkv=false,lora_a2a=true,zero=0,dp=4,microbatches=2,"
                              "fp8_activation_input=true")
            << 8 / 2.4738;
        // Fujitsu's 4 H100 (results/GX2560M7_H100_SXM_80GBx4, implementations/pytorch/configs/
        // config_GX2560M7_1x4x8xtp4pp1cp1.sh): T4 alone, eight micro-batches, the overlap off.
        QTest::newRow("Llama 2 70B LoRA v4.0, 4 H100 (Fujitsu), T4")
            << QStringLiteral("device=h100-sxm,tp=4,sequence_parallel=true,tp_overlap=false,"
                              "lora_a2a=true,zero=0,dp=1,microbatches=8")
            << 8 / 0.9807;
        // v4.1 (mlcommons/training_results_v4.1, NVIDIA's implementations/*_ngc24.09_nemo,
        // NeMo 24.09): Megatron-core's distributed optimizer with its reduce and gather
        // overlapped; the context-parallel runs capture each layer in a CUDA graph
        // (LAYER_CUDA_GRAPH) and attend in BF16 (FP8_DPA=0), the H200's and the B200's on one
        // node at T1 C2 with two micro-batches a replica. Dell's 16 and 32 H100 (results/
        // 2xXE9680x8H100-SXM-80GB, 4x...: the 64-GPU configuration, C2, with four and two
        // micro-batches a replica by their logs' batch and accumulation), Oracle's 512
        // (results/512xBM.GPU.H100.8, whose logs print T4 C2, the CUDA graphs and BF16
        // attention) and Azure's 512 H200 (results/ND_H200_v5_n64_nemo,
        // configs/config_DGXH200_64x8x2xtp4pp1cp2.sh) run the same software.
        const QString v41 =
            QStringLiteral("device=h100-sxm,tp=4,sequence_parallel=true,tp_overlap=true,"
                           "tp_overlap_qkv=false,lora_a2a=true,dp_overlap=auto,"
                           "overlap_param_gather=true,");
        const QString v41cp = v41 + "fp8_attention=false,cp=2,cp_exchange=ring,";
        QTest::newRow("Llama 2 70B LoRA v4.1, 8 H100, T4")
            << v41 + "cp=1,dp=2,microbatches=4" << 8 / 2.1829;
        QTest::newRow("Llama 2 70B LoRA v4.1, 64 H100, T4 C2") << v41cp + "dp=8" << 8 / 14.7767;
        QTest::newRow("Llama 2 70B LoRA v4.1, 1,024 H100, T4 C2")
            << v41cp + "dp=128" << 128 / 234.8273;
        QTest::newRow("Llama 2 70B LoRA v4.1, 16 H100 (Dell), T4 C2")
            << v41cp + "dp=2,microbatches=4" << 8 / 3.6567;
        QTest::newRow("Llama 2 70B LoRA v4.1, 32 H100 (Dell), T4 C2")
            << v41cp + "dp=4,microbatches=2" << 8 / 7.4415;
        QTest::newRow("Llama 2 70B LoRA v4.1, 512 H100 (Oracle), T4 C2")
            << v41cp + "dp=64" << 64 / 114.6302;
        QTest::newRow("Llama 2 70B LoRA v4.1, 512 H200 (Azure), T4 C2")
            << v41cp + "dp=64,device=h200" << 64 / 112.2577;
        const QString node41 = QStringLiteral("dp_overlap=auto,overlap_param_gather=true,cp=2,"
                                              "cp_exchange=ring,dp=4,microbatches=2,");
        QTest::newRow("Llama 2 70B LoRA v4.1, 8 H200, C2")
            << node41 + "device=h200,fp8_attention=false,fp8_activation_input=true" << 8 / 2.4767;
        QTest::newRow("Llama 2 70B LoRA v4.1, 8 B200, C2") << node41 + "device=b200" << 8 / 4.6961;
    }
    void mlperfLora()
    {
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        core::Presets presets = io::builtinPresets();
        const QString tag = QString::fromLatin1(QTest::currentDataTag());
        // Fujitsu's chassis holds 8 x 32 GiB of DDR5 for its 8 GPUs (Fujitsu/systems/
        // PRIMERGY_CDI_H200_NVL_144GBx8.json, host_memory_configuration): its offloaded
        // activations fit there, as the run shows (host_memory_gb; the H200 NVL, sold in other
        // makers' servers, publishes none).
        const bool fujitsuHost = tag.contains(QLatin1String("H200 NVL (Fujitsu)"));
        if (fujitsuHost) {
            DeviceSpec nvl = *presets.device("h200-nvl");
            nvl.hostMemoryGb = 8 * 32 * 1.073741824 / 8;
            presets.put(nvl);
        }
        // NeMo 1.0's megatron_gpt_peft_tuning_config.yaml, which v4.0's, v4.1's and Cisco's v5.1
        // runs read, sets disable_parameter_transpose_cache: True (fp8_weight_cache off); NeMo
        // 2.0's train.py of v5.0 and v5.1 passes False (implementations/nemo/train.py).
        Scenario s = scenario(
            QStringLiteral("framework=megatron,precision=fp8,fp8_scaling=delayed,fp8_params=true,"
                           "fp8_weight_cache=false,"
                           "fp8_attention=true,grad_precision=bf16,zero=1,dp_overlap=0,"
                           "overlap_param_gather=false,recompute=none,attention=flash,"
                           "seq_len=8192,microbatch_size=1,microbatches=1,tp=1,pp=1,"
                           "schedule=1f1b,sequence_parallel=false,loss_fusion=none,"
                           "fused_swiglu=true,lora_rank=16,lora_dropout=0.1,") +
            set);
        s.fp8WeightCache =
            tag.contains(QLatin1String(" v5.")) && !tag.contains(QLatin1String("Cisco"));
        s.loraModules = "linear_qkv linear_proj";
        s.customModel = llama2_70b(presets);
        s.model = s.customModel->id;
        const Report r = evaluate(s, presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        if (fujitsuHost)
            QVERIFY(r.stages[0].hostCapacityBytes > 0 && !r.stages[0].hostOverflow);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.4f s modelled, %.4f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        counted(e);
        // docs/step_time.md ("Fine-tuning"): every listed run within 15 %, but the three
        // context-parallel ones, steps under 250 ms.
        QEXPECT_FAIL("Llama 2 70B LoRA v5.0, 72 GB200, C8",
                     "modelled about 16 % fast: a step under 250 ms (short-step), 1,024 tokens "
                     "a GPU, where a third of the published step is not found "
                     "(docs/step_time.md, \"Fine-tuning\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v5.0, 144 GB200, C8",
                     "modelled about 18 % fast: the 72-GPU row's step, which grows to 0.244 s "
                     "at 18 replicas where the modelled one grows by the adapters' 0.4 ms more "
                     "of gradient sync",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v5.0, 512 GB200, C8",
                     "modelled about 24 % fast: the 72-GPU row's step, which grows to 0.258 s "
                     "at 64 replicas where the modelled one grows by 1.8 ms of gradient sync; "
                     "what grows with the replicas is not found",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v4.0, 64 H100, T4 C2",
                     "modelled about 23 % fast: NeMo 24.04's step of this layout is 18 % longer "
                     "than 24.09's, which captures each layer in a CUDA graph and is within "
                     "7 %: likely host-bound (docs/step_time.md, \"Fine-tuning\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v4.0, 1,024 H100, T4 C2",
                     "modelled about 30 % fast: the 64-GPU row's software, whose step grows "
                     "from 0.638 to 0.676 s at 128 replicas (docs/step_time.md, "
                     "\"Fine-tuning\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v4.1, 512 H200 (Azure), T4 C2",
                     "modelled about 19 % fast: on Azure's H200s the layout ran 2 % slower than "
                     "on Oracle's H100s, where the model has the H200 7 % faster for its "
                     "bandwidth; not found (docs/step_time.md, \"Fine-tuning\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 70B LoRA v5.0, 64 B200, C8 (Oracle)",
                     "modelled about 18 % fast: the GB200 rows' context-parallel layout and "
                     "software on B200s, which miss as they do (docs/step_time.md, "
                     "\"Fine-tuning\")",
                     Continue);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // MLPerf Training v6.0's gpt-oss-20b benchmark (mlcommons/training_results_v6.0, NVIDIA's
    // implementations/nemo: pretrain.py, conf/gpt_oss.yaml): gpt-oss-20b's shape with Llama 3's
    // 128,256-token vocabulary, trained from scratch, 8,192-token sequences, full-step CUDA
    // graphs, MXFP8 by its configurations' names (the common files that set the recipe are not
    // in the copy read: MXFP8 multiplies, FP8 parameters, BF16 attention, Transformer Engine's
    // loss, 768M buckets). Its router trains with no load-balancing loss, so only the run
    // without expert parallelism is here, where no rank waits for another's experts: NVIDIA's
    // 8 GB300s (theia_ngpu8, config_GB300_2x4x3xtp1pp1cp1ep1_mxfp8.sh: D8, three sequences a
    // replica), the median train_step_time of its first log. Added as a run the model had not
    // seen; the other runs are in docs/step_time.md, "gpt-oss-20b in MLPerf Training v6.0".
    void mlperfGptOss_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        QTest::newRow("gpt-oss-20b v6.0, 8 GB300, E1")
            << "device=gb300-nvl72,tp=1,cp=1,ep=1,dp=8,microbatch_size=1,microbatches=3" << 0.4927;
    }
    void mlperfGptOss()
    {
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        const core::Presets presets = io::builtinPresets();
        Scenario s = scenario(
            QStringLiteral("framework=megatron,precision=fp8,fp8_scaling=block,fp8_params=true,"
                           "grad_precision=bf16,zero=1,pp=1,schedule=1f1b,seq_len=8192,"
                           "recompute=none,attention=flash,fp8_attention=false,"
                           "full_cuda_graph=true,loss_fusion=te,ep_dispatcher=flex,expert_tp=1,"
                           "cache_outputs=false,dp_bucket_params=768e6,") +
            set);
        ModelSpec oss = *presets.model("gpt-oss-20b");
        oss.id = "gpt-oss-20b-mlperf";
        oss.vocab = 128256; // pretrain.py: Llama 3's tokenizer
        s.customModel = oss;
        s.model = oss.id;
        const Report r = evaluate(s, presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.3f s modelled, %.3f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // MLPerf Training v5.1, AMD's own submissions (mlcommons/training_results_v5.1, AMD/
    // benchmarks/*/implementations/*/config_*.sh; NeMo with ROCm Transformer Engine): one node of
    // 8 GPUs, D = 8, T1 K1, FP8 with delayed scaling (FP8_AMAX_ALGO most_recent) and FP8 weights,
    // attention in BF16 on aiter's FAv3 kernels (NVTE_CK_USES_FWD_V3, NVTE_CK_USES_BWD_V3,
    // NVTE_CK_IS_V3_ATOMIC_FP32=0: the presets' measured kernels), no recomputation but on the
    // MI300X. Llama 2 70B
    // LoRA as NVIDIA's (mlperfLora above: rank 16 beside linear_qkv and linear_proj, one
    // sequence of 8,192 tokens a GPU, FP8_ACTIVATION: the SwiGLU input in FP8); Llama 3.1 8B at
    // micro-batch 2, 32 sequences a step (2 micro-batches a GPU). The step is the global batch
    // over the median of every throughput the logs give (results/*/*/result_*.txt,
    // tracked_stats, samples a second over each block between evaluations). Added once the AMD
    // presets took AMD's measured multiply and attention rates, as runs those rates were not
    // set from.
    void mlperfAmd_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        // src/conf/megatron_gpt_peft_tuning_config.yaml: disable_parameter_transpose_cache:
        // True (and ENABLE_TRANSPOSE_CACHE=0 in config_MI300X_1x8x1.sh).
        const QString lora = QStringLiteral("lora_rank=16,lora_dropout=0.1,fp8_activation_input="
                                            "true,microbatch_size=1,microbatches=1,"
                                            "fp8_weight_cache=false,");
        // The MI300X's 192 GB keep 59 of the 80 layers' activations: the first 21 rerun in
        // full (ACG=full ACM=block ACL=21: recompute_layers).
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 MI300X")
            << "llama-2-70b" << lora + "device=mi300x,recompute=full,recompute_layers=21"
            << 8 / 2.1170;
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 MI325X")
            << "llama-2-70b" << lora + "device=mi325x" << 8 / 2.8357;
        QTest::newRow("Llama 2 70B LoRA v5.1, 8 MI355X")
            << "llama-2-70b" << lora + "device=mi355x" << 8 / 5.8756;
        QTest::newRow("Llama 3.1 8B v5.1, 8 MI355X")
            << "llama-3.1-8b"
            << QStringLiteral("device=mi355x,microbatch_size=2,microbatches=2,loss_fusion=native")
            << 32 / 30.6861;
    }
    void mlperfAmd()
    {
        QFETCH(QString, model);
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        const core::Presets presets = io::builtinPresets();
        Scenario s = scenario(
            QStringLiteral("framework=megatron,precision=fp8,fp8_scaling=delayed,fp8_params=true,"
                           "fp8_attention=false,grad_precision=bf16,zero=1,recompute=none,"
                           "attention=flash,seq_len=8192,tp=1,pp=1,cp=1,dp=8,schedule=1f1b,"
                           "sequence_parallel=false,tp_overlap=false,fused_swiglu=true,") +
            set);
        if (model == QLatin1String("llama-2-70b")) {
            s.loraModules = "linear_qkv linear_proj";
            s.customModel = llama2_70b(presets);
            s.model = s.customModel->id;
        } else {
            s.customModel = *presets.model(model.toStdString());
        }
        const Report r = evaluate(s, presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.4f s modelled, %.4f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        counted(e);
        // docs/step_time.md ("AMD in MLPerf"): every listed run within 15 %.
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // stas00/ml-engineering, insights/when-to-upgrade-gpus (README, "Where the dense-path
    // deficit comes from"; the run is bench_decompose.py): meta-llama/Llama-3.1-8B in Hugging
    // Face Transformers, BF16, DeepSpeed ZeRO-2 with overlap_comm, 8 GPUs of one node, one
    // sequence of 8,192 tokens per GPU, no gradient accumulation, no recomputation; TFLOP/s per
    // GPU by its count: 6 × (the layers' linear weights + the LM head) per token plus causal
    // attention, 6·s·d·heads·layers.
    void huggingFaceDeepSpeed_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<double>("publishedTflops");
        QTest::addRow("Llama 3.1 8B, 8 H200, FlashAttention-3") << "h200" << 461.0;
    }
    void huggingFaceDeepSpeed()
    {
        QFETCH(QString, device);
        QFETCH(double, publishedTflops);
        Scenario s =
            scenario(QStringLiteral("framework=deepspeed,model=llama-3.1-8b,precision=bf16,"
                                    "tp=1,pp=1,dp=8,zero=2,microbatches=1,"
                                    "microbatch_size=1,seq_len=8192,recompute=none,"
                                    "attention=flash3,device=") +
                     device);
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double linear =
            (4096.0 * 14336 * 3 + 4096.0 * (4096 + 1024 + 1024 + 4096)) * 32 + 128256.0 * 4096;
        const double perToken = 6 * linear + 6 * 8192.0 * 128 * 32 * 32;
        const double tflops = r.stepTime->tokensPerS / 8 * perToken / 1e12;
        const double e = error(tflops, publishedTflops);
        qInfo("%s: %.0f TFLOP/s per GPU modelled, %.0f published, %+.1f %%",
              QTest::currentDataTag(), tflops, publishedTflops, 100 * e);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // pytorch/torchtitan, benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md (June 2025):
    // Llama 3.1 8B on 4 and 8 nodes of 8 H200, FSDP (ZeRO-3), two sequences of 8,192 tokens a
    // GPU (llama3_8b.toml), torch.compile, torchao float8 with FP8 all-gathers, the per-op
    // selective checkpointing of that file; tokens/s per GPU and memory (GiB) at step 100.
    // torchtitan then put FlashAttention-2 first on Hopper (models/attention.py; cuDNN only
    // on Blackwell before pytorch/torchtitan#1776). Added after the model was built, as runs
    // it had not seen; the memory within 10 %, as it is what the per-op policy keeps.
    void torchtitanH200_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("publishedTokensPerGpu");
        QTest::addColumn<double>("publishedGib");
        QTest::addRow("Llama 3.1 8B, 32 H200") << 32 << 10938.0 << 47.96;
        QTest::addRow("Llama 3.1 8B, 64 H200") << 64 << 10753.0 << 46.97;
    }
    void torchtitanH200()
    {
        QFETCH(int, gpus);
        QFETCH(double, publishedTokensPerGpu);
        QFETCH(double, publishedGib);
        Scenario s = scenario(QStringLiteral("framework=torchtitan,model=llama-3.1-8b,device=h200,"
                                             "precision=fp8,fp8_params=true,tp=1,pp=1,zero=3,"
                                             "microbatches=1,"
                                             "microbatch_size=2,seq_len=8192,recompute=op,"
                                             "sequence_parallel=false,fused_elementwise=true,"
                                             "attention=flash2,dp=") +
                              QString::number(gpus));
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double perGpu = r.stepTime->tokensPerS / gpus;
        const double e = error(perGpu, publishedTokensPerGpu);
        const double gib = static_cast<double>(r.stages.front().totalBytes) / (1 << 30);
        const double m = error(gib, publishedGib);
        qInfo("%s: %.0f tokens/s per GPU modelled, %.0f published, %+.1f %%; %.1f GiB modelled, "
              "%.2f published, %+.1f %%",
              QTest::currentDataTag(), perGpu, publishedTokensPerGpu, 100 * e, gib, publishedGib,
              100 * m);
        counted(e);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
        QVERIFY2(std::abs(m) <= 0.10, qPrintable(QString::number(100 * m, 'f', 1)));
    }

    // pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md (December 2024, torchtitan
    // 9dec370): Llama 3.1 8B on 8 and 128 H100s under FSDP (ZeRO-3), the memory each run
    // reported (GiB, the largest over its GPUs), Tables 1 to 3: two sequences of 8,192 tokens
    // a GPU with the per-op selective checkpointing, or one of 32,768 tokens a GPU under
    // context parallelism with full checkpointing; eager, compiled, torchao float8 (dynamic
    // scaling). That commit's train.py computes the loss as F.cross_entropy over an FP32 copy
    // of the logits and leaves its torch.compile commented out, so every run's loss is the
    // eager one (fused_elementwise = false, which changes no other memory term). Memory only:
    // their H100s ran at 500 W (docs/step_time.md). Without the loss's buffers
    // (docs/activations.md, "The loss") the runs came out 30-52 % under. Added as runs the
    // memory model had not seen.
    void torchtitanH100Memory_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedGib");
        const QString fsdp = QStringLiteral("microbatch_size=2,seq_len=8192,recompute=op,");
        const QString float8 = QStringLiteral("precision=fp8,fp8_scaling=current,");
        QTest::addRow("Table 1, FSDP, 8 H100") << fsdp + "dp=8" << 82.4;
        QTest::addRow("Table 1, FSDP + compile, 8 H100") << fsdp + "dp=8" << 77.0;
        QTest::addRow("Table 1, FSDP + compile + Float8, 8 H100") << fsdp + float8 + "dp=8" << 76.8;
        const QString cp = QStringLiteral("microbatch_size=1,recompute=full,") + float8;
        QTest::addRow("Table 2, FSDP 8 CP 1, 32,768 tokens")
            << cp + "dp=8,cp=1,seq_len=32768" << 83.9;
        QTest::addRow("Table 2, FSDP 4 CP 2, 65,536 tokens")
            << cp + "dp=4,cp=2,seq_len=65536" << 84.2;
        QTest::addRow("Table 2, FSDP 2 CP 4, 131,072 tokens")
            << cp + "dp=2,cp=4,seq_len=131072" << 84.0;
        QTest::addRow("Table 2, FSDP 1 CP 8, 262,144 tokens")
            << cp + "dp=1,cp=8,seq_len=262144" << 84.5;
        QTest::addRow("Table 3, FSDP, 128 H100") << fsdp + "dp=128" << 67.0;
        QTest::addRow("Table 3, FSDP + compile, 128 H100") << fsdp + "dp=128" << 62.0;
        QTest::addRow("Table 3, FSDP + compile + Float8, 128 H100")
            << fsdp + float8 + "dp=128" << 61.8;
    }
    void torchtitanH100Memory()
    {
        QFETCH(QString, set);
        QFETCH(double, publishedGib);
        const Scenario s = scenario(
            QStringLiteral("framework=torchtitan,model=llama-3.1-8b,device=h100-sxm,tp=1,pp=1,"
                           "zero=3,microbatches=1,attention=flash2,fused_elementwise=false,") +
            set);
        EvaluateOptions options;
        options.memoryOnly = true;
        const Report r = evaluate(s, io::builtinPresets(), options);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const double gib = static_cast<double>(r.stages.front().totalBytes) / (1 << 30);
        const double m = error(gib, publishedGib);
        qInfo("%s: %.1f GiB modelled, %.1f published, %+.1f %%", QTest::currentDataTag(), gib,
              publishedGib, 100 * m);
        QVERIFY(r.stages.front().lossBytes > 0);
        QVERIFY2(std::abs(m) <= 0.10, qPrintable(QString::number(100 * m, 'f', 1)));
    }

    // allenai/OLMo-core's README (November 2024 to March 2025, e27ba7455 onwards): tokens/s per
    // H100 of its training scripts at that commit (src/scripts/train/OLMo-1B.py, OLMo-7B.py,
    // Llama-8B.py, OLMo-13B.py), BF16 and with torchao float8 (--model.float8_config.enabled:
    // dynamic scaling of inputs, weights and gradients, FP8 all-gathers, the LM head in BF16).
    // Each script: PyTorch FSDP2 over the job (ZeRO-3, BF16 parameters gathered, FP32
    // reduction), torch.compile (the model and the loss), no recomputation, PyTorch's SDPA
    // (FlashAttention-2 on Hopper) as compile turns flash-attn off, 4,096 tokens a sequence,
    // rank_microbatch_size and global_batch_size as below. The launch's default, which the
    // README's commands keep, is one node of 8 GPUs (src/olmo_core/launch/beaker.py:
    // num_nodes 1, num_gpus 8). Added as runs the model had not seen.
    void olmoCore_data()
    {
        QTest::addColumn<ModelSpec>("model");
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedTokensPerGpu");
        const ModelSpec olmo1b = olmoCoreModel("olmo-1b", 18, 2048, 16, 16, 5632, true);
        const ModelSpec olmo7b = olmoCoreModel("olmo-7b", 32, 4096, 32, 32, 11008, true);
        const ModelSpec llama8b = olmoCoreModel("llama-3-8b-dolma2", 32, 4096, 32, 8, 14336, false);
        const ModelSpec olmo13b = olmoCoreModel("olmo-13b", 40, 5120, 40, 40, 13824, true);
        const QString fp8 = QStringLiteral("precision=fp8,fp8_scaling=current,fp8_params=true,");
        // Micro-batches a step: the global batch over 8 GPUs' micro-batches (1,024 sequences
        // of 8 a GPU for the 1B, 1,024 of 2 for the 7B and 8B, 2,048 of 1 for the 13B).
        const QString b1 = QStringLiteral("microbatch_size=8,microbatches=16");
        const QString b7 = QStringLiteral("microbatch_size=2,microbatches=64");
        const QString b13 = QStringLiteral("microbatch_size=1,microbatches=256");
        QTest::addRow("OLMo 1B BF16, 8 H100") << olmo1b << b1 << 55000.0;
        QTest::addRow("OLMo 1B FP8, 8 H100") << olmo1b << fp8 + b1 << 65000.0;
        QTest::addRow("OLMo 7B BF16, 8 H100") << olmo7b << b7 << 10000.0;
        QTest::addRow("OLMo 7B FP8, 8 H100") << olmo7b << fp8 + b7 << 13000.0;
        QTest::addRow("Llama 3 8B BF16, 8 H100") << llama8b << b7 << 9500.0;
        QTest::addRow("Llama 3 8B FP8, 8 H100") << llama8b << fp8 + b7 << 12500.0;
        QTest::addRow("OLMo 13B BF16, 8 H100") << olmo13b << b13 << 4600.0;
        QTest::addRow("OLMo 13B FP8, 8 H100") << olmo13b << fp8 + b13 << 5500.0;
    }
    void olmoCore()
    {
        QFETCH(ModelSpec, model);
        QFETCH(QString, set);
        QFETCH(double, publishedTokensPerGpu);
        const Report r = evaluateRun(
            model, QStringLiteral("framework=torchtitan,device=h100-sxm,precision=bf16,tp=1,pp=1,"
                                  "zero=3,dp=8,seq_len=4096,recompute=none,"
                                  "sequence_parallel=false,fused_elementwise=true,"
                                  "attention=flash2,cache_outputs=false,") +
                       set);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double perGpu = r.stepTime->tokensPerS / 8;
        const double e = error(perGpu, publishedTokensPerGpu);
        qInfo("%s: %.0f tokens/s per GPU modelled, %.0f published, %+.1f %%",
              QTest::currentDataTag(), perGpu, publishedTokensPerGpu, 100 * e);
        counted(e);
        QEXPECT_FAIL("OLMo 13B BF16, 8 H100",
                     "modelled about 15 % fast: one sequence a micro-batch, so twice the 7B's "
                     "FSDP gathers and reduce-scatters for the same work, where the 7B is 8 % "
                     "fast; PyTorch's FSDP stacks lose part of their collectives' time that the "
                     "model hides, not found (docs/step_time.md, \"OLMo-core on 8 H100\")",
                     Continue);
        QEXPECT_FAIL("OLMo 13B FP8, 8 H100",
                     "modelled about 27 % fast: float8 published 1.20 times as fast as BF16 "
                     "where the model has 1.31 (the 7B's and 8B's 1.30 and 1.32 against 1.30 "
                     "and 1.30), and the gathers' share grows as the multiplies shrink; not "
                     "found (docs/step_time.md, \"OLMo-core on 8 H100\")",
                     Continue);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // NVIDIA-NeMo/Automodel's performance summary (docs/performance-summary.mdx, the row added
    // by #1711, April 2026): Llama 3.1 70B pre-trained on 64 H100s in NeMo AutoModel, PyTorch's
    // FSDP2 over all 64 (its dp_shard_cp mesh: ZeRO-3 over D x C, FP32 gradient reduction,
    // MixedPrecisionPolicy reduce_dtype float32), C = 2 on PyTorch's context parallelism, 8,192
    // tokens a sequence, one a micro-batch, four micro-batches a step (128 sequences), every
    // decoder layer checkpointed (activation_checkpointing: True), torch.compile, PyTorch's SDPA
    // (FlashAttention-2 on Hopper), Transformer Engine's fused Adam; 18.90 s a step
    // (examples/llm_benchmark/llama3_3/custom_llama3_1_70b_pretrain_benchmark_8nodes.yaml at
    // e45812012). Added as a run the model had not seen.
    void nemoAutomodel_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("publishedS");
        QTest::addRow("Llama 3.1 70B, 64 H100, FSDP2 C2")
            << QStringLiteral("model=llama-3.1-70b,seq_len=8192,cp=2,dp=32,microbatch_size=1,"
                              "microbatches=4,recompute=full")
            << 18.90;
    }
    void nemoAutomodel()
    {
        QFETCH(QString, set);
        QFETCH(double, publishedS);
        const core::Presets presets = io::builtinPresets();
        const Report r =
            evaluate(scenario(QStringLiteral("framework=torchtitan,device=h100-sxm,precision=bf16,"
                                             "grad_precision=fp32,tp=1,pp=1,zero=3,"
                                             "sequence_parallel=false,fused_elementwise=true,"
                                             "attention=flash2,cache_outputs=false,") +
                              set),
                     presets);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double e = error(publishedS / r.stepTime->stepTimeS, 1);
        qInfo("%s: %.2f s modelled, %.2f s published, %+.1f %% throughput", QTest::currentDataTag(),
              r.stepTime->stepTimeS, publishedS, 100 * e);
        counted(e);
        // docs/step_time.md ("NeMo AutoModel on 64 H100"): the fsdp-overlap warning, drawn from
        // OLMo-core's and torchtitan's FSDP2 runs, gives this step as longer than modelled; it
        // ran shorter.
        QVERIFY(r.hasWarning("fsdp-overlap"));
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // "Maximizing training throughput using PyTorch FSDP" (PyTorch blog, IBM and Meta, March
    // 2024), Table 1: tokens/s per GPU of Llama 2's shapes (foundation-model-stack/fms-fsdp,
    // fms_fsdp/utils/config_utils.py; the 34B is 48 layers of h 8,192, FFN 22,016, 8 KV heads)
    // in PyTorch's FSDP (flat parameters, fully sharded over every GPU for the 34B and 70B), BF16
    // mixed precision with BF16 reduction, every block checkpointed, SDPA's FlashAttention-2, no
    // torch.compile, eager PyTorch elsewhere, two sequences of 4,096 tokens a GPU and one
    // micro-batch a step; 128 A100 80GB over a 400 Gb/s network and 96 H100 80GB over 800 Gb/s,
    // read as a node's (6.25 and 12.5 GB/s a GPU; AWS's p4d nodes, whose EFA the scripts
    // configure, have 400 Gb/s a node). The 7B shards within a node and replicates across the
    // nodes (HSDP: fms-fsdp's README of the same day, zero_replicas = 16 and 12); the 13B shards
    // fully with every other block checkpointed (recompute_layers = 20 of 40: the table's
    // HFU/MFU, 0.59/0.51 and 0.40/0.35, gives 3 × (HFU/MFU − 1) = 0.41–0.53 and 0.34–0.52 of
    // the blocks rerun within their rounding; fms-fsdp's selective_checkpointing = 0.5 checkpoints
    // every second block, fms_fsdp/policies/ac_handler.py). Added as runs the model had not seen.
    void pytorchFsdpBlog_data()
    {
        QTest::addColumn<ModelSpec>("model");
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("publishedTokensPerGpu");
        const ModelSpec llama70b = llama2(80, 8192, 64, 8, 28672);
        const ModelSpec llama34b = llama2(48, 8192, 64, 8, 22016);
        const QString a100 = QStringLiteral("device=a100-80gb,inter_node_gb_per_s=6.25,dp=128");
        const QString h100 = QStringLiteral("device=h100-sxm,inter_node_gb_per_s=12.5,dp=96");
        QTest::addRow("Llama 2 70B, 128 A100") << llama70b << a100 << 128 << 370.0;
        QTest::addRow("Llama 2 34B, 128 A100") << llama34b << a100 << 128 << 700.0;
        QTest::addRow("Llama 2 70B, 96 H100") << llama70b << h100 << 96 << 800.0;
        QTest::addRow("Llama 2 34B, 96 H100") << llama34b << h100 << 96 << 1550.0;
        const ModelSpec llama13b = llama2(40, 5120, 40, 40, 13824);
        const ModelSpec llama7b = llama2(32, 4096, 32, 32, 11008);
        const QString everyOther = QStringLiteral(",recompute_layers=20");
        QTest::addRow("Llama 2 13B, 128 A100") << llama13b << a100 + everyOther << 128 << 1800.0;
        QTest::addRow("Llama 2 13B, 96 H100") << llama13b << h100 + everyOther << 96 << 3800.0;
        const QString a100Hsdp = a100 + ",recompute=none,zero_replicas=16";
        const QString h100Hsdp = h100 + ",recompute=none,zero_replicas=12";
        QTest::addRow("Llama 2 7B, 128 A100, HSDP") << llama7b << a100Hsdp << 128 << 3700.0;
        QTest::addRow("Llama 2 7B, 96 H100, HSDP") << llama7b << h100Hsdp << 96 << 7500.0;
        // fms-fsdp's README after the compiled post (May 2024, ed74fd5), the 7B compiled on the
        // same clusters, tokens/s per GPU as published.
        QTest::addRow("Llama 2 7B, 128 A100, HSDP, compiled")
            << llama7b << a100Hsdp + ",fused_elementwise=true" << 128 << 4550.0;
        QTest::addRow("Llama 2 7B, 96 H100, HSDP, compiled")
            << llama7b << h100Hsdp + ",fused_elementwise=true" << 96 << 9600.0;
        // "Maximizing Training Throughput Using PyTorch FSDP and Torch.compile" (PyTorch blog,
        // IBM and Meta, May 2024), Tables 1 and 2: the same runs' MFU without and with
        // torch.compile (fused_elementwise = true), by the first post's count, on the same 128
        // A100s and on 464 H100s over 3.2 Tb/s a node (50 GB/s a GPU, the preset's). Tokens/s is
        // the MFU times the first post's tokens/s per MFU of the same model and GPU (370 / 0.50
        // for the 70B on A100, 700 / 0.47 for the 34B; 800 / 0.34 and 1,550 / 0.32 on H100).
        const QString a100c = a100 + ",fused_elementwise=true";
        const QString h464 = QStringLiteral("device=h100-sxm,dp=464");
        QTest::addRow("Llama 2 70B, 128 A100, compiled")
            << llama70b << a100c << 128 << 0.55 * 370 / 0.50;
        QTest::addRow("Llama 2 34B, 128 A100, compiled")
            << llama34b << a100c << 128 << 0.54 * 700 / 0.47;
        QTest::addRow("Llama 2 70B, 464 H100") << llama70b << h464 << 464 << 0.32 * 800 / 0.34;
        QTest::addRow("Llama 2 70B, 464 H100, compiled")
            << llama70b << h464 + ",fused_elementwise=true" << 464 << 0.38 * 800 / 0.34;
        QTest::addRow("Llama 2 34B, 464 H100") << llama34b << h464 << 464 << 0.32 * 1550 / 0.32;
        QTest::addRow("Llama 2 34B, 464 H100, compiled")
            << llama34b << h464 + ",fused_elementwise=true" << 464 << 0.38 * 1550 / 0.32;
    }
    void pytorchFsdpBlog()
    {
        QFETCH(ModelSpec, model);
        QFETCH(QString, set);
        QFETCH(int, gpus);
        QFETCH(double, publishedTokensPerGpu);
        const Report r = evaluateRun(
            model, QStringLiteral("framework=custom,precision=bf16,grad_precision=bf16,tp=1,pp=1,"
                                  "zero=3,zero_buffers=fsdp,seq_len=4096,microbatch_size=2,"
                                  "microbatches=1,recompute=full,sequence_parallel=false,"
                                  "attention=flash2,fused_swiglu=false,fused_elementwise=false,"
                                  "fused_grad_accumulation=false,cache_outputs=false,") +
                       set);
        QVERIFY2(r.ok() && r.stepTime, r.error ? r.error->message.c_str() : "no step time");
        QVERIFY(r.fits);
        const double perGpu = r.stepTime->tokensPerS / gpus;
        const double e = error(perGpu, publishedTokensPerGpu);
        qInfo("%s: %.0f tokens/s per GPU modelled, %.0f published, %+.1f %%",
              QTest::currentDataTag(), perGpu, publishedTokensPerGpu, 100 * e);
        counted(e);
        QEXPECT_FAIL("Llama 2 70B, 464 H100",
                     "modelled about 23 % fast: eager PyTorch on H100, whose compiled run the "
                     "model has 13 % fast; compiling gained 19 % where the model gains 9 %, on "
                     "A100 10 % against 8 % (docs/step_time.md, \"PyTorch FSDP on 128 A100 and "
                     "96 H100\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 13B, 96 H100",
                     "modelled about 19 % fast: eager PyTorch on H100 again, the smaller the "
                     "model the faster (70B +8 %, 34B +10 %; on A100 the same 13B +9 %); the "
                     "blog's profiles show about 10 % of the step in collectives not hidden, "
                     "which the model hides (docs/step_time.md, \"PyTorch FSDP on 128 A100 and "
                     "96 H100\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 7B, 96 H100, HSDP",
                     "modelled about 26 % fast: the same pattern as the 13B, its gathers inside "
                     "a node and only the replicas' all-reduce across; compiled, the model has it "
                     "14 % fast, on A100 12 % eager and 5 % compiled (docs/step_time.md, "
                     "\"PyTorch FSDP on 128 A100 and 96 H100\")",
                     Continue);
        QEXPECT_FAIL("Llama 2 34B, 464 H100",
                     "modelled about 18 % fast: the 70B's pattern, compiling gaining 19 % where "
                     "the model gains 11 % (docs/step_time.md, \"PyTorch FSDP on 128 A100 and "
                     "96 H100\")",
                     Continue);
        QVERIFY2(std::abs(e) <= 0.15, qPrintable(QString::number(100 * e, 'f', 1)));
    }

    // Over every run above (the last function, so after all of them): the goal Parascope is
    // held to is a mean difference of at most 10 % with no run beyond 15 %; docs/step_time.md
    // ("How far to trust it") and the README count the runs and those beyond 15 % (each an
    // expected failure above, with its reason). A run added, or one that crosses 15 % either
    // way, changes those counts here and there.
    void meanOverEveryRun()
    {
        // Only when every function ran: a subset named on the command line sees a part.
        const QMetaObject &meta = staticMetaObject;
        const QStringList arguments = QCoreApplication::arguments();
        for (qsizetype i = 1; i < arguments.size(); ++i) {
            const QString name = arguments.at(i).section(QLatin1Char(':'), 0, 0);
            for (int m = meta.methodOffset(); m < meta.methodCount(); ++m)
                if (QLatin1String(meta.method(m).name()) == name)
                    QSKIP("a subset of the functions ran: the mean is over every run");
        }
        std::vector<double> errors = runErrors();
        QCOMPARE(errors.size(), std::size_t{290});
        std::sort(errors.begin(), errors.end());
        double sum = 0;
        for (double e : errors)
            sum += e;
        const double mean = sum / static_cast<double>(errors.size());
        const double median = errors[errors.size() / 2];
        const auto beyond =
            std::count_if(errors.begin(), errors.end(), [](double e) { return e > 0.15; });
        qInfo("%zu runs: mean %.1f %%, median %.1f %%, %td beyond 15 %%", errors.size(), 100 * mean,
              100 * median, beyond);
        QVERIFY2(mean <= 0.10, qPrintable(QString::number(100 * mean, 'f', 1)));
        QCOMPARE(beyond, std::ptrdiff_t{30});
    }
};

QTEST_GUILESS_MAIN(TestStepTimeValidation)
#include "tst_step_time_validation.moc"
