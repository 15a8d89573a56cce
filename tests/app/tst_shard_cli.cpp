// `parascope shard` (docs/DESIGN.md §4), run as users run it: the real binary, no display.
#include "run_parascope.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <cmath>

class TestShardCli : public QObject
{
    Q_OBJECT

private:
    static QStringList shard(const QString &rest)
    {
        return parascopeCommand(QStringLiteral("shard"), rest);
    }

    static QJsonObject json(const QString &rest) { return runParascopeJson(shard(rest)); }

    static QJsonObject strategy(const QJsonObject &root, const QString &name)
    {
        for (const QJsonValue &v : root.value(QStringLiteral("strategies")).toArray())
            if (v.toObject().value(QStringLiteral("name")).toString() == name)
                return v.toObject();
        return {};
    }

private Q_SLOTS:
    // docs/worked-examples.md §6: the 8192 × 32768 layer at T = 4.
    void doneWhen()
    {
        const QJsonObject r = json("--hidden 8192 --ffn 32768 --tp 4 --tokens 4096");
        QCOMPARE(r.value("format").toString(), "parascope-shard");
        const QJsonObject requested = r.value("requested").toObject();
        QCOMPARE(requested.value("hidden").toInteger(), 8192);
        QCOMPARE(requested.value("ffn").toInteger(), 32768);
        QCOMPARE(requested.value("tokens").toInteger(), 4096);
        // Reduced check: h ≤ 64 with f/h = 4 kept and T=4 dividing; tokens · 64/8192.
        const QJsonObject executed = r.value("executed").toObject();
        QCOMPARE(executed.value("hidden").toInteger(), 64);
        QCOMPARE(executed.value("ffn").toInteger(), 256);
        QCOMPARE(executed.value("tokens").toInteger(), 32);
        QCOMPARE(r.value("link").toString(), "intra-node"); // T=4 ≤ 8 per H100 node

        // docs/DESIGN.md §3.4: columns→rows one all-reduce, rows→rows two.
        const QJsonObject cr = strategy(r, "columns-rows");
        const QJsonObject rr = strategy(r, "rows-rows");
        QCOMPARE(cr.value("w1_split").toString(), "columns");
        QCOMPARE(cr.value("w2_split").toString(), "rows");
        QCOMPARE(cr.value("collectives").toObject().value("all_reduce").toInt(), 1);
        QCOMPARE(cr.value("collectives").toObject().value("all_gather").toInt(), 0);
        QCOMPARE(cr.value("collectives").toObject().value("reduce_scatter").toInt(), 0);
        QCOMPARE(rr.value("collectives").toObject().value("all_reduce").toInt(), 2);
        QCOMPARE(rr.value("collectives").toObject().value("all_gather").toInt(), 0);
        // 4096·8192 values x 2 bytes (BF16); rows→rows adds 4096·32768 x 2.
        QCOMPARE(cr.value("payload_bytes").toInteger(), 67'108'864);
        QCOMPARE(rr.value("payload_bytes").toInteger(), 67'108'864 + 268'435'456);
        // Ring all-reduce, T=4: 2·3/4 of the payload over 0.82 × 450 GB/s (NCCL's share of
        // NVLink, NVIDIA/nccl-tests#212), NCCL's 8.4 µs a call and 6 steps of 3.4 µs
        // (src/graph/tuning.cc).
        const double comm = 1.5 * 67'108'864 / (450e9 * 0.82) + 8.4e-6 + 6 * 3.4e-6;
        QVERIFY(std::abs(cr.value("comm_s").toDouble() - comm) < 1e-12);
        QCOMPARE(cr.value("total_s").toDouble(),
                 cr.value("compute_s").toDouble() + cr.value("comm_s").toDouble());
        QCOMPARE(r.value("best").toString(), "columns-rows");
        QVERIFY(r.value("speedup_best_over_worst").toDouble() > 1);
        const QJsonArray all = r.value("strategies").toArray();
        QCOMPARE(all.size(), 4);
        for (const QJsonValue &v : all) {
            const QJsonObject s = v.toObject();
            QVERIFY(s.value("max_abs_error").isDouble());
            QVERIFY2(s.value("max_rel_error").toDouble() < 1e-5,
                     qPrintable(s.value("name").toString()));
            QVERIFY(s.value("wire_bytes_per_device").isDouble());
        }
    }

    void verifyOff()
    {
        const QJsonObject r = json("--hidden 8192 --ffn 32768 --tp 4 --verify off");
        QVERIFY(r.value("executed").isNull());
        QVERIFY(strategy(r, "columns-rows").value("max_rel_error").isNull());
    }

    // Regression: a reduced check too large to hold (T = 65,536 keeps a [t, f] activation per
    // device) is not run, and both reports say why; the costs are still reported. Its
    // tokens are as few as the check's budget makes them (core::kVerifyBytesCap).
    void checkNotRun()
    {
        const QString arguments = "--hidden 65536 --ffn 65536 --tp 65536 --tokens 65536";
        const QJsonObject r = json(arguments);
        QVERIFY(r.value("executed").isNull());
        QVERIFY2(r.value("check_not_run").toString().contains("would hold"),
                 qPrintable(r.value("check_not_run").toString()));
        QVERIFY(strategy(r, "columns-rows").value("max_rel_error").isNull());
        QVERIFY(strategy(r, "columns-rows").value("total_s").toDouble() > 0);
        const ParascopeRun text = runParascope(shard(arguments));
        QCOMPARE(text.status, 0);
        QVERIFY2(
            text.out.contains(
                "Numerical check: not run, because the check at h = 65536, f = 65536, 1 token on"),
            qPrintable(text.out));
    }

    void interNode()
    {
        // devices.json: 8 H100 per node; T=16 crosses to NDR at 50 GB/s.
        const QJsonObject r = json("--hidden 8192 --ffn 32768 --tp 16 --verify off");
        QCOMPARE(r.value("link").toString(), "inter-node");
        QCOMPARE(r.value("link_gb_per_s").toDouble(), 50.0);
    }

    void textReport()
    {
        const ParascopeRun r = runParascope(shard("--hidden 8192 --ffn 32768 --tp 4"));
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("reduced size"), qPrintable(r.out));
        QVERIFY(r.out.contains("columns-rows"));
    }

    void invalidInput_data()
    {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("named");
        const QString ok = "--hidden 8192 --ffn 32768 --tp 4 --verify off ";
        QTest::addRow("docs/sharding.md: T does not divide h") << "--hidden 8190 --ffn 32760 --tp 4"
                                                               << "--tp:";
        QTest::addRow("docs/sharding.md: T does not divide f") << "--hidden 8192 --ffn 1002 --tp 4"
                                                               << "--tp:";
        QTest::addRow("docs/DESIGN.md §4: hidden = 0") << "--hidden 0 --ffn 32768 --tp 4"
                                                       << "--hidden:";
        QTest::addRow("docs/DESIGN.md §4: negative ffn") << "--hidden 8192 --ffn -8 --tp 4"
                                                         << "--ffn:";
        QTest::addRow("docs/DESIGN.md §4: tp = 0") << "--hidden 8192 --ffn 32768 --tp 0"
                                                   << "--tp:";
        QTest::addRow("docs/DESIGN.md §4: tokens = 0") << ok + "--tokens 0"
                                                       << "--tokens:";
        QTest::addRow("docs/DESIGN.md §4: not a number") << "--hidden big --ffn 32768 --tp 4"
                                                         << "--hidden:";
        QTest::addRow("docs/DESIGN.md §4: tp not a number") << "--hidden 8192 --ffn 32768 --tp four"
                                                            << "--tp:";
        QTest::addRow("missing --hidden") << "--ffn 32768 --tp 4"
                                          << "--hidden:";
        QTest::addRow("missing --tp") << "--hidden 8192 --ffn 32768"
                                      << "--tp:";
        QTest::addRow("docs/DESIGN.md §4: unknown device") << ok + "--device abacus"
                                                           << "--device:";
        QTest::addRow("docs/DESIGN.md §4: unknown precision") << ok + "--precision fp9"
                                                              << "--precision:";
        QTest::addRow("devices.json: a100 has no fp8") << ok + "--device a100-80gb --precision fp8"
                                                       << "--precision:";
        QTest::addRow("devices.json: sn40l links unpublished") << ok + "--device sn40l"
                                                               << "--device:";
        QTest::addRow("bad --verify") << ok + "--verify maybe"
                                      << "--verify:";
        QTest::addRow("docs/step_time.md: mfu above 1") << ok + "--mfu 2"
                                                        << "--mfu:";
        QTest::addRow("bad --seed") << ok + "--seed -1"
                                    << "--seed:";
        QTest::addRow("--format xml") << ok + "--format xml"
                                      << "--format:";
        // Regression: 25,841 GB at once; it aborted with std::bad_alloc.
        QTest::addRow("regression: full check beyond this computer's memory")
            << "--hidden 8192 --ffn 32768 --tp 8 --tokens 16777216 --verify full"
            << "--verify: the check at h = 8192, f = 32768, 16777216 tokens";
    }
    void invalidInput()
    {
        QFETCH(QString, arguments);
        QFETCH(QString, named);
        const ParascopeRun r = runParascope(shard(arguments));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QVERIFY(r.out.isEmpty());
    }

    // docs/sharding.md: eval's report carries tp_comm; docs/DESIGN.md §4 default scenario (T=8 on
    // H100, SP on): 4 all-reduces per layer become 4 reduce-scatters + 4 all-gathers, and
    // backward gathers the two layer inputs again (Korthikanti et al. 2022, §4.2.2).
    void evalReportsTpComm()
    {
        const ParascopeRun r = runParascope(
            {QStringLiteral("eval"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.status, 0);
        const QJsonObject tp =
            QJsonDocument::fromJson(r.out.toUtf8()).object().value("tp_comm").toObject();
        QCOMPARE(tp.value("collectives_per_layer").toInt(), 10);
        QCOMPARE(tp.value("link").toString(), "intra-node");
        // 20 layers x 16 micro-batches x (4 x 2·7/8 + 2 x 7/8) x (4096·8192·2 B) per device.
        QCOMPARE(tp.value("bytes_per_step").toInteger(),
                 20LL * 16 * (4 * 117'440'512LL + 2 * 58'720'256LL));
        QVERIFY(tp.value("time_per_step_s").toDouble() > 0);
        const ParascopeRun bad = runParascope(
            {QStringLiteral("eval"), QStringLiteral("--set"), QStringLiteral("mfu=0")});
        QCOMPARE(bad.status, 2);
        QVERIFY(bad.err.contains("mfu:"));
    }

    void help()
    {
        const ParascopeRun r = runParascope({QStringLiteral("shard"), QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.startsWith("Usage: parascope shard [options]"));
        QVERIFY(r.out.contains("--verify"));
        const ParascopeRun overview = runParascope({QStringLiteral("--help")});
        QVERIFY2(overview.out.contains("\n  shard  "), qPrintable(overview.out));
    }
};

QTEST_GUILESS_MAIN(TestShardCli)
#include "tst_shard_cli.moc"
