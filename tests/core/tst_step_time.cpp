// The step-time model (docs/step_time.md): breakdown, throughput, MFU, energy and
// the data-parallel gradient synchronisation.
#include "core/activations.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/step_time.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <cmath>

using namespace core;

class TestStepTime : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void breakdownSumsToStepTime_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addRow("docs/DESIGN.md §4 default: 1F1B, ZeRO-1, selective") << "";
        QTest::addRow("Rajbhandari §7.2.2: ZeRO-3") << "zero=3";
        QTest::addRow("Rajbhandari §7.1: ZeRO-0 all-reduce") << "zero=0";
        QTest::addRow("Qi et al. 2023: zb-h1") << "schedule=zb-h1";
        QTest::addRow("Narayanan §2.2.2: interleaved v=2")
            << "schedule=interleaved,virtual_stages=2";
        QTest::addRow("Korthikanti 2022: full recomputation") << "recompute=full";
        QTest::addRow("inference: forwards only, no gradients") << "mode=inference";
        QTest::addRow("uneven stages: 80 layers over K=3") << "pp=3";
    }
    void breakdownSumsToStepTime()
    {
        QFETCH(QString, set);
        const Report r = evaluate(scenario(set), io::builtinPresets());
        QVERIFY(r.ok());
        QVERIFY(r.stepTime);
        const auto &b = r.stepTime->breakdown;
        QVERIFY(b.computeS > 0 && b.bubbleS >= 0 && b.tpCommS >= 0 && b.dpCommS >= 0);
        QVERIFY(near(b.computeS + b.bubbleS + b.tpCommS + b.dpCommS, r.stepTime->stepTimeS));
        // compute + bubble is the simulated makespan.
        QVERIFY(near(b.computeS + b.bubbleS, r.makespanS, 1e-9));
    }

    // Hand arithmetic for docs/DESIGN.md §4's default: Llama 3.1 70B, T=8, K=4 (20 layers per
    // stage), D=2, m=16, micro-batch 1, seq 4096, H100 SXM (989 TFLOPS BF16, 700 W TDP), mfu 0.5.
    void defaultByHand()
    {
        const Scenario s;
        const Presets presets = io::builtinPresets(); // outlives the model it resolves
        const Report r = evaluate(s, presets);
        QVERIFY(r.ok() && r.stepTime);
        const auto &st = *r.stepTime;
        const ModelSpec &model = *resolveModel(s, presets);
        // Per layer and micro-batch: F, B = 2F (Narayanan §5.1), plus the attention core again
        // for selective recomputation (Korthikanti §5); 20 layers x 16 micro-batches.
        const double f = layerForwardFlops(model, 4096, 1, 8) / (989e12 * 0.5);
        const double extra = attentionCoreFlops(model, 4096, 1, 8) / (989e12 * 0.5);
        QVERIFY(near(st.breakdown.computeS, 20 * 16 * (3 * f + extra), 1e-9));
        // 1F1B with uniform stages: the bubble is (K-1)/m of the work (Narayanan §2.2).
        QVERIFY(near(st.breakdown.bubbleS, st.breakdown.computeS * 3 / 16, 1e-9));
        // Tokens per step: m · b · s · D = 16 · 1 · 4096 · 2 = 131,072.
        QVERIFY(near(st.tokensPerS, 131'072 / st.stepTimeS));
        // Energy: T·K·D = 64 devices x 700 W x the step.
        QVERIFY(st.energyJPerStep);
        QVERIFY(near(*st.energyJPerStep, 64 * 700 * st.stepTimeS));
        QVERIFY(near(*st.energyJPerMillionTokens, 64 * 700 * st.stepTimeS / 131'072 * 1e6));
        // DP groups span T·D = 16 devices > 8 per node: InfiniBand.
        QCOMPARE(st.dpLink, std::string("inter-node"));
        QVERIFY(st.dpCommTotalS > 0);
        QVERIFY(near(st.breakdown.dpCommS, 0.5 * st.dpCommTotalS));
    }

    void dpGradientSyncByHand_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<double>("seconds");
        // 1 GB of gradients (and of BF16 weights) over D=2 at 50 GB/s, 6.6 µs per ring step.
        // Ring all-reduce: 2·(D-1)/D·1 GB = 1 GB in 2(D-1) = 2 steps (Patarasuk & Yuan 2009).
        QTest::addRow("Rajbhandari §7.1: ZeRO-0 all-reduce, 2Ψ")
            << 0 << qint64(1'000'000'000) << 1e9 / 50e9 + 2 * 6.6e-6;
        // Reduce-scatter + all-gather: 0.5 GB in 1 step each, the same as the all-reduce.
        QTest::addRow("Rajbhandari §7.2.1: ZeRO-1 RS + AG, 2Ψ")
            << 1 << qint64(1'000'000'000) << 1e9 / 50e9 + 2 * 6.6e-6;
        QTest::addRow("Rajbhandari §7.2.1: ZeRO-2 RS + AG, 2Ψ")
            << 2 << qint64(1'000'000'000) << 1e9 / 50e9 + 2 * 6.6e-6;
        // Plus a second all-gather of the parameters: 3 x 0.5 GB in 3 steps.
        QTest::addRow("Rajbhandari §7.2.2: ZeRO-3 adds an all-gather, 3Ψ")
            << 3 << qint64(1'500'000'000) << 1.5e9 / 50e9 + 3 * 6.6e-6;
    }
    void dpGradientSyncByHand()
    {
        QFETCH(int, zero);
        QFETCH(qint64, bytes);
        QFETCH(double, seconds);
        const Link link{LinkKind::interNode, 50, 6.6e-6};
        const DpSync sync = dpGradientSync(zero, 1'000'000'000, 1'000'000'000, 2, link);
        QCOMPARE(sync.bytesPerStep, bytes);
        QVERIFY(near(sync.seconds, seconds));
        QCOMPARE(dpGradientSync(zero, 1'000'000'000, 1'000'000'000, 1, link).seconds, 0.0);
    }

    void dpCommZero_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<bool>("anyTraffic");
        QTest::addRow("D=1: no data-parallel group") << "dp=1" << false;
        QTest::addRow("dp_overlap=1: fully hidden behind backward") << "dp_overlap=1" << true;
        QTest::addRow("inference: no gradients") << "mode=inference" << false;
    }
    void dpCommZero()
    {
        QFETCH(QString, set);
        QFETCH(bool, anyTraffic);
        const Report r = evaluate(scenario(set), io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        QCOMPARE(r.stepTime->breakdown.dpCommS, 0.0);
        QCOMPARE(r.stepTime->dpCommTotalS > 0, anyTraffic);
    }

    // Narayanan §5.1: model FLOPs count no recomputation, attention or bubble, so the
    // achieved MFU never exceeds the compute efficiency the kernels are given.
    void mfuAchievedBelowSetting_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("mfu");
        QTest::addRow("default, mfu 0.5") << "" << 0.5;
        QTest::addRow("mfu 1, no recomputation") << "mfu=1,recompute=none" << 1.0;
        QTest::addRow("mfu 1, one stage, free DP") << "mfu=1,pp=1,dp=1,recompute=none" << 1.0;
        QTest::addRow("inference, 2·N·tokens") << "mode=inference,mfu=0.8" << 0.8;
        QTest::addRow("short sequences: attention is small") << "seq_len=128,mfu=1" << 1.0;
    }
    void mfuAchievedBelowSetting()
    {
        QFETCH(QString, set);
        QFETCH(double, mfu);
        const Report r = evaluate(scenario(set), io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        QVERIFY(r.stepTime->mfuAchieved > 0);
        QVERIFY2(r.stepTime->mfuAchieved <= mfu,
                 qPrintable(QString::number(r.stepTime->mfuAchieved)));
    }

    // Narayanan §2.2: the 1F1B bubble (K-1)/(m+K-1) shrinks with m, and the step's other
    // parts grow with m or stay, so the bubble's share of the step never grows.
    void moreMicrobatchesNeverGrowBubbleShare()
    {
        double previous = 1;
        for (int m : {1, 2, 4, 8, 16, 32, 64, 128}) {
            Scenario s;
            s.microbatches = m;
            const Report r = evaluate(s, io::builtinPresets());
            QVERIFY(r.ok() && r.stepTime);
            const double share = r.stepTime->breakdown.bubbleS / r.stepTime->stepTimeS;
            QVERIFY2(share <= previous + 1e-12, qPrintable(QString::number(m)));
            previous = share;
        }
    }

    void dpOverlapIsValidated_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("valid");
        QTest::addRow("docs/step_time.md: dp_overlap = -0.1") << "-0.1" << false;
        QTest::addRow("docs/step_time.md: dp_overlap = 1.5") << "1.5" << false;
        QTest::addRow("docs/step_time.md: dp_overlap = 0") << "0" << true;
        QTest::addRow("docs/step_time.md: dp_overlap = 1") << "1" << true;
    }
    void dpOverlapIsValidated()
    {
        QFETCH(QString, value);
        QFETCH(bool, valid);
        Scenario s;
        QCOMPARE(s.dpOverlap, 0.5);
        QVERIFY(!setField(s, "dp_overlap", value.toStdString()));
        const Report r = evaluate(s, io::builtinPresets());
        QCOMPARE(r.ok(), valid);
        if (!valid)
            QCOMPARE(r.error->key, std::string("dp_overlap"));
    }

    // Layer-time units (no peak FLOPS for the precision) have no seconds to report.
    void noStepTimeInLayerUnits()
    {
        DeviceSpec device;
        device.id = "no-peak";
        device.memoryGib = 80;
        device.devicesPerNode = 8;
        device.intraNodeGbPerS = 450;
        device.interNodeGbPerS = 50;
        Scenario s;
        s.device = device.id;
        s.customDevice = device;
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY(r.ok());
        QVERIFY(r.timeInLayerUnits);
        QVERIFY(!r.stepTime);
    }
};

QTEST_GUILESS_MAIN(TestStepTime)
#include "tst_step_time.moc"
