// Whole-model tensor-parallel traffic in evaluate() (docs/DESIGN.md §3.4).
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <cmath>

using namespace core;

class TestTpComm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultScenario_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("collectives");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("link");
        QTest::addColumn<double>("seconds");
        // docs/DESIGN.md §4 default: Llama 3.1 70B (h = 8192, 80 layers), K=4 -> 20 layers per
        // stage, m=16, micro-batch 1, seq 4096, BF16. One collective's tensor: 4096·8192·2 =
        // 67,108,864 B. T=8 ring: all-reduce sends 2·7/8 of it = 117,440,512 B per device in
        // 14 steps; reduce-scatter or all-gather 7/8 = 58,720,256 B in 7 steps.
        // H100 NVLink 450 GB/s at NCCL's 0.82 of it (NVIDIA/nccl-tests#212); NDR 50 GB/s at 0.9
        // (NVIDIA/nccl-tests#119) (T=16: 2·15/16). NCCL's latencies (src/graph/tuning.cc, ring,
        // Simple): 8.4 µs a call, 3.4 µs a step over NVLink, 14 µs a step across the network.
        const double nvlink = 450e9 * 0.82;
        const double ar8 = 117'440'512 / nvlink + 8.4e-6 + 14 * 3.4e-6;
        const double half8 = 58'720'256 / nvlink + 8.4e-6 + 7 * 3.4e-6;
        const double calls = 20 * 16; // layers of the busiest stage x micro-batches
        // Sequence parallelism: each all-reduce becomes an RS + an AG, and backward gathers the
        // two layer inputs again for the weight gradients (Korthikanti et al. 2022, §4.2.2).
        QTest::addRow("Megatron §3 + Korthikanti §4.2.2: default, SP, 4 RS + 4 AG + 2 redone AG")
            << "" << 10 << qint64((4 * 117'440'512LL + 2 * 58'720'256LL) * 320) << "intra-node"
            << calls * 10 * half8;
        QTest::addRow("Megatron §3: no SP, 2 forward + 2 backward all-reduces")
            << "sequence_parallel=false" << 4 << qint64(4 * 117'440'512LL * 320) << "intra-node"
            << calls * 4 * ar8;
        QTest::addRow("Megatron §3: inference, forward only")
            << "mode=inference,sequence_parallel=false" << 2 << qint64(2 * 117'440'512LL * 320)
            << "intra-node" << calls * 2 * ar8;
        QTest::addRow("full recomputation reruns the forward all-reduces")
            << "recompute=full,sequence_parallel=false" << 6 << qint64(6 * 117'440'512LL * 320)
            << "intra-node" << calls * 6 * ar8;
        // T=16, K=4: 20 layers per stage still; 2·15/16·67,108,864 = 125,829,120 B, 30 steps, of
        // which one a phase crosses between the two nodes.
        QTest::addRow("docs/DESIGN.md §3.2: T=16 crosses nodes (NDR 50 GB/s)")
            << "tp=16,dp=1,sequence_parallel=false" << 4 << qint64(4 * 125'829'120LL * 320)
            << "inter-node"
            << calls * 4 * (125'829'120 / (50e9 * 0.9) + 8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6);
        QTest::addRow("docs/sharding.md: T=1 moves nothing")
            << "tp=1" << 0 << qint64(0) << "intra-node" << 0.0;
    }
    void defaultScenario()
    {
        QFETCH(QString, set);
        QFETCH(int, collectives);
        QFETCH(qint64, bytes);
        QFETCH(QString, link);
        QFETCH(double, seconds);
        const Report r = evaluate(scenario(set), io::builtinPresets());
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.tpComm.collectivesPerLayer, collectives);
        QCOMPARE(r.tpComm.bytesPerStep, bytes);
        QCOMPARE(QString::fromStdString(r.tpComm.link), link);
        QVERIFY(r.tpComm.timePerStepS);
        QVERIFY2(std::abs(*r.tpComm.timePerStepS - seconds) <= 1e-9 * std::max(seconds, 1e-9),
                 QByteArray::number(*r.tpComm.timePerStepS, 'g', 17));
    }

    // devices.json: SN40L publishes no link bandwidth; the bytes are known, the time is not.
    void unpublishedLink()
    {
        Scenario s;
        s.device = "sn40l";
        s.pp = 8;
        s.dp = 1;
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY(r.ok());
        QVERIFY(r.tpComm.bytesPerStep > 0);
        QVERIFY(!r.tpComm.timePerStepS);
        QVERIFY(r.hasWarning("tp-link-unknown"));
    }

    void mfuIsValidated_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("valid");
        QTest::addRow("docs/step_time.md: mfu = 0") << "0" << false;
        QTest::addRow("docs/step_time.md: mfu = 1.01") << "1.01" << false;
        QTest::addRow("docs/step_time.md: mfu = 1") << "1" << true;
        QTest::addRow("docs/step_time.md: mfu = 0.4") << "0.4" << true;
    }
    void mfuIsValidated()
    {
        QFETCH(QString, value);
        QFETCH(bool, valid);
        Scenario s;
        QVERIFY(!s.mfu); // auto: the per-operation model (docs/step_time.md)
        QVERIFY(!setField(s, "mfu", value.toStdString()));
        const Report r = evaluate(s, io::builtinPresets());
        QCOMPARE(r.ok(), valid);
        if (!valid)
            QCOMPARE(r.error->key, std::string("mfu"));
    }
};

QTEST_GUILESS_MAIN(TestTpComm)
#include "tst_tp_comm.moc"
