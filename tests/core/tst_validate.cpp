// DESIGN §4's table: what is refused (naming the key) and what is only warned about.
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"

#include <QTest>

using namespace core;

class TestValidate : public QObject
{
    Q_OBJECT

private:
    Presets presets = io::builtinPresets();

    Scenario with(const QStringList &settings)
    {
        Scenario s;
        for (const QString &setting : settings) {
            auto e = io::applySetting(s, setting);
            if (e)
                qFatal("bad test setting %s", e->toString().c_str());
        }
        return s;
    }

private Q_SLOTS:
    void refused_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("key");
        QTest::addRow("DESIGN §4: unknown model preset") << QStringList{"model=gpt-5"} << "model";
        QTest::addRow("DESIGN §4: unknown device preset") << QStringList{"device=tpu"} << "device";
        QTest::addRow("DESIGN §4: tp = 0") << QStringList{"tp=0"} << "tp";
        QTest::addRow("DESIGN §4: pp = -1") << QStringList{"pp=-1"} << "pp";
        QTest::addRow("DESIGN §4: dp = 0") << QStringList{"dp=0"} << "dp";
        QTest::addRow("DESIGN §4: microbatches = 0")
            << QStringList{"microbatches=0"} << "microbatches";
        QTest::addRow("DESIGN §4: microbatch_size = 0")
            << QStringList{"microbatch_size=0"} << "microbatch_size";
        QTest::addRow("DESIGN §4: seq_len = 0") << QStringList{"seq_len=0"} << "seq_len";
        QTest::addRow("DESIGN §4: K > layers (70B has 80)") << QStringList{"pp=100"} << "pp";
        QTest::addRow("DESIGN §4: 64 heads not divisible by 3") << QStringList{"tp=3"} << "tp";
        QTest::addRow("DESIGN §4: interleaved, m not a multiple of K")
            << QStringList{"schedule=interleaved", "microbatches=6"} << "microbatches";
        QTest::addRow("DESIGN §4: interleaved, 20 layers per stage into 3 chunks")
            << QStringList{"schedule=interleaved", "virtual_stages=3"} << "virtual_stages";
        QTest::addRow("DESIGN §4: int4 in training")
            << QStringList{"precision=int4"} << "precision";
        QTest::addRow("DESIGN §4: q4_0 in training")
            << QStringList{"precision=q4_0"} << "precision";
        QTest::addRow("DESIGN §4: zero = 4") << QStringList{"zero=4"} << "zero";
        QTest::addRow("DESIGN §3.5: grad_precision fp8")
            << QStringList{"grad_precision=fp8"} << "grad_precision";
        QTest::addRow("negative reserve") << QStringList{"reserve_gib=-1"} << "reserve_gib";
        QTest::addRow("zero inter-node bandwidth")
            << QStringList{"inter_node_gb_per_s=0"} << "inter_node_gb_per_s";
    }
    void refused()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, key);
        const Report r = evaluate(with(settings), presets);
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error->key), key);
        QVERIFY(!r.error->message.empty());
        QVERIFY(r.stages.empty());
    }

    void unparsable_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addRow("DESIGN §4: unknown key") << "tensor_parallel"
                                                << "4";
        QTest::addRow("DESIGN §4: tp not a number") << "tp"
                                                    << "four";
        QTest::addRow("DESIGN §4: tp with a fraction") << "tp"
                                                       << "4.5";
        QTest::addRow("DESIGN §4: tp with trailing text") << "tp"
                                                          << "4x";
        QTest::addRow("DESIGN §4: unknown schedule") << "schedule"
                                                     << "pipedream";
        QTest::addRow("DESIGN §4: unknown precision") << "precision"
                                                      << "fp4";
        QTest::addRow("DESIGN §4: boolean spelled yes") << "sequence_parallel"
                                                        << "yes";
        QTest::addRow("DESIGN §4: reserve not a number") << "reserve_gib"
                                                         << "lots";
        QTest::addRow("DESIGN §4: reserve is NaN") << "reserve_gib"
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
        QTest::addRow("DESIGN §4: does not fit")
            << QStringList{"tp=1", "pp=1", "dp=1"} << "does-not-fit";
        QTest::addRow("DESIGN §4: m < K") << QStringList{"microbatches=2"} << "pipe-never-fills";
        QTest::addRow("DESIGN §4: uneven stages (80 layers, K=3)")
            << QStringList{"pp=3"} << "uneven-stages";
        QTest::addRow("DESIGN §4: tp spans nodes (T=16 > 8 per node)")
            << QStringList{"tp=16"} << "tp-spans-nodes";
        QTest::addRow("DESIGN §4: tp > kv_heads (T=16 > 8)")
            << QStringList{"tp=16"} << "kv-heads-replicated";
    }
    void warned()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, code);
        const Report r = evaluate(with(settings), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.hasWarning(code.toStdString()));
    }

    void defaultScenarioHasNoWarnings()
    {
        const Report r = evaluate(Scenario{}, presets);
        QVERIFY(r.ok());
        QVERIFY(r.fits);
        QVERIFY(r.warnings.empty());
    }

    // DESIGN §3.3: "the first L mod K stages take one extra layer".
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
};

QTEST_APPLESS_MAIN(TestValidate)
#include "tst_validate.moc"
