// Training states and ZeRO (docs/DESIGN.md §3.5), on a parameter-only model so the
// numbers are the ZeRO paper's own.
#include "core/evaluate.h"
#include "core/units.h"
#include "io/presets_io.h"

#include <QTest>

using namespace core;

class TestTrainingMemory : public QObject
{
    Q_OBJECT

private:
    // Rajbhandari et al. 2020 (ZeRO), Figure 1: Ψ = 7.5B parameters, N_d = 64.
    static Scenario zeroPaper(int zero, int dp = 64)
    {
        ModelSpec model;
        model.id = "psi-7.5b";
        model.params = 7'500'000'000;
        DeviceSpec device;
        device.id = "large";
        device.memoryGib = 1024;
        device.devicesPerNode = 8;
        Scenario s;
        s.customModel = model;
        s.customDevice = device;
        s.precision = Precision::fp16;
        s.tp = 1;
        s.pp = 1;
        s.dp = dp;
        s.zero = zero;
        s.reserveGib = 0;
        return s;
    }

private Q_SLOTS:
    void zeroStages_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<double>("gb");
        // ZeRO paper, Figure 1: "Baseline 120GB, Pos 31.4GB, Pos+g 16.6GB, Pos+g+p 1.9GB".
        QTest::addRow("ZeRO Fig. 1: baseline (2+2+12)Ψ") << 0 << 120.0;
        QTest::addRow("ZeRO Fig. 1: P_os 2Ψ+2Ψ+12Ψ/N_d") << 1 << 31.40625;
        QTest::addRow("ZeRO Fig. 1: P_os+g 2Ψ+14Ψ/N_d") << 2 << 16.640625;
        QTest::addRow("ZeRO Fig. 1: P_os+g+p 16Ψ/N_d") << 3 << 1.875;
    }
    void zeroStages()
    {
        QFETCH(int, zero);
        QFETCH(double, gb);
        const Report r = evaluate(zeroPaper(zero), Presets{});
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.stages.size(), std::size_t(1));
        QCOMPARE(r.stages[0].totalBytes, std::llround(gb * kGB));
        QCOMPARE(r.devices, 64);
    }

    void bytesPerParameter_data()
    {
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("gradPrecision");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("grads");
        QTest::addColumn<double>("optimizer");
        QTest::addColumn<bool>("fp8Params");
        QTest::addColumn<int>("moments");
        const int bf16 = int(Precision::bf16), fp32 = int(Precision::fp32);
        // ZeRO §3.1: mixed-precision Adam, K = 12 (FP32 master, momentum, variance).
        QTest::addRow("ZeRO §3.1: BF16 mixed precision, 2+2+12")
            << bf16 << bf16 << 2.0 << 2.0 << 12.0 << true << fp32;
        // Megatron-LM keeps FP32 gradients for accumulation: 18 bytes per parameter.
        QTest::addRow("docs/DESIGN.md §3.5: FP32 gradient accumulation, 2+4+12")
            << bf16 << fp32 << 2.0 << 4.0 << 12.0 << true << fp32;
        // FP32 training: the weights are the master copy; Adam adds two FP32 moments.
        QTest::addRow("docs/DESIGN.md §3.5: FP32 training, 4+4+8")
            << fp32 << bf16 << 4.0 << 4.0 << 8.0 << true << fp32;
        // FP8 training keeps FP8 weights plus the same FP32 master and moments.
        QTest::addRow("docs/DESIGN.md §3.5: FP8 training, 1+2+12")
            << int(Precision::fp8) << bf16 << 1.0 << 2.0 << 12.0 << true << fp32;
        // Without FP8 parameters (Megatron-LM without --fp8-param-gather, its default:
        // megatron/training/arguments.py) the weights stay in BF16: 2+2+12.
        QTest::addRow("FP8 training with BF16 weights, 2+2+12")
            << int(Precision::fp8) << bf16 << 2.0 << 2.0 << 12.0 << false << fp32;
        // The choice is FP8 training's alone: BF16 training keeps 2-byte weights either way.
        QTest::addRow("BF16 training ignores fp8_params, 2+2+12")
            << bf16 << bf16 << 2.0 << 2.0 << 12.0 << false << fp32;
        // DeepSeek-V3's report (§3.3.3) keeps AdamW's two moments in BF16 beside the FP32
        // master weights, as Megatron-core's precision-aware optimizer does with
        // --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16: 4 + 2 + 2.
        QTest::addRow("DeepSeek-V3 §3.3.3: BF16 moments, 2+2+(4+2+2)")
            << bf16 << bf16 << 2.0 << 2.0 << 8.0 << true << bf16;
        // FP32 weights are the master copy: the two BF16 moments alone.
        QTest::addRow("FP32 training with BF16 moments, 4+4+(2+2)")
            << fp32 << bf16 << 4.0 << 4.0 << 4.0 << true << bf16;
    }
    void bytesPerParameter()
    {
        QFETCH(int, precision);
        QFETCH(int, gradPrecision);
        QFETCH(double, weights);
        QFETCH(double, grads);
        QFETCH(double, optimizer);
        QFETCH(bool, fp8Params);
        QFETCH(int, moments);
        Scenario s = zeroPaper(0, 1);
        s.precision = Precision(precision);
        s.gradPrecision = Precision(gradPrecision);
        s.fp8Params = fp8Params;
        s.optimizerMoments = Precision(moments);
        const Report r = evaluate(s, Presets{});
        QVERIFY(r.ok());
        QCOMPARE(r.weightBytesPerParam, weights);
        QCOMPARE(r.gradBytesPerParam, grads);
        QCOMPARE(r.optimizerBytesPerParam, optimizer);
        const auto &st = r.stages[0];
        QCOMPARE(st.weightsBytes, std::llround(7.5e9 * weights));
        QCOMPARE(st.gradsBytes, std::llround(7.5e9 * grads));
        QCOMPARE(st.optimizerBytes, std::llround(7.5e9 * optimizer));
    }

    // Inference keeps no gradients or optimizer states.
    void inferenceKeepsWeightsOnly()
    {
        Scenario s = zeroPaper(0, 1);
        s.mode = Mode::inference;
        const Report r = evaluate(s, Presets{});
        QCOMPARE(r.stages[0].gradsBytes, std::int64_t(0));
        QCOMPARE(r.stages[0].optimizerBytes, std::int64_t(0));
        QCOMPARE(r.stages[0].totalBytes, std::llround(15e9));
    }

    // docs/DESIGN.md §3.7: a per-device framework reserve, 2 GiB by default, in every stage.
    void reserveIsCountedOnEveryStage()
    {
        const Presets presets = io::builtinPresets();
        const Scenario s; // the default scenario
        const Report r = evaluate(s, presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.size(), std::size_t(4));
        for (const auto &st : r.stages) {
            QCOMPARE(st.reserveBytes, 2 * kGiB);
            QCOMPARE(st.capacityBytes, 80 * kGiB);
            QCOMPARE(st.headroomBytes, st.capacityBytes - st.totalBytes);
        }
        QCOMPARE(r.devices, 64);
        QVERIFY(r.fits);
    }
};

QTEST_APPLESS_MAIN(TestTrainingMemory)
#include "tst_training_memory.moc"
