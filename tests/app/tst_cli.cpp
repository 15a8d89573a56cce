// The command line (docs/DESIGN.md §4), run as users run it: the real binary, no display.
#include "core/report.h"
#include "core/units.h"
#include "run_parascope.h"
#include "test_files.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class TestCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString file(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        if (!writeFile(path, content))
            qFatal("cannot write test file");
        return path;
    }

    // `parascope eval` with `arguments`, as JSON.
    static QJsonObject json(const QStringList &arguments)
    {
        return runParascopeJson(QStringList{QStringLiteral("eval")} + arguments);
    }

private Q_SLOTS:
    // docs/activations.md, "Offloaded layers": the text report says what the device columns
    // leave out, the offloaded layers' bytes in host memory, against the host memory a device
    // has where the preset publishes it (a GB200's Grace: 480 GB for two GPUs) and unchecked
    // where it does not (the H200 NVL, sold in other makers' servers).
    void textSaysWhatIsOffloaded_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("said");
        const QString example = QStringLiteral(
            PARASCOPE_SOURCE_DIR "/resources/examples/llama-70b-fsdp-offload-gb200.parascope.json");
        QTest::addRow("40 of 80 on a GB200")
            << QStringList{example}
            << "40 of 80 layers' activations in host memory, %1 of the "
               "240.0 GB a device has there (host_memory_gb)\n";
        QTest::addRow("79 of 80: over the host")
            << QStringList{example, "--set", "offload_layers=79"}
            << "79 of 80 layers' activations in host memory, %1 of the 240.0 GB a device has "
               "there (host_memory_gb): does not fit\n";
        QTest::addRow("H200 NVL: not checked")
            << QStringList{"--set", "device=h200-nvl",
                           "--set", "framework=megatron",
                           "--set", "pp=1",
                           "--set", "recompute=none",
                           "--set", "offload_layers=10"}
            << "10 of 80 layers' activations in host memory, %1 GB a device (host_memory_gb "
               "not published: not checked)\n";
    }
    void textSaysWhatIsOffloaded()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, said);
        const QJsonObject report = json(arguments + QStringList{"--format", "json"});
        const double bytes = report.value("stages")
                                 .toArray()
                                 .at(0)
                                 .toObject()
                                 .value("offloaded_host_bytes")
                                 .toDouble();
        QVERIFY(bytes > 0);
        const ParascopeRun r = runParascope(QStringList{QStringLiteral("eval")} + arguments);
        QVERIFY(r.status == 0);
        const QString line =
            QStringLiteral("Offloaded       stage 0: ") + said.arg(bytes / 1e9, 0, 'f', 1);
        QVERIFY2(r.out.contains(line), qPrintable(r.out));
    }

    // The runs read no presets but the built-in ones and the files a test gives: none the
    // machine's user saved (QStandardPaths' config location, under XDG_CONFIG_HOME).
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
    }

    void invalidInput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        const QString newer =
            file(QStringLiteral("newer.json"), R"({"format": "parascope-scenario", "version": 7})");
        const QString broken = file(QStringLiteral("broken.json"), "{\"format\": ");
        const QString badPresets = file(QStringLiteral("presets.json"),
                                        R"({"format": "parascope-presets", "version": 1,
                                            "devices": [{"id": "x", "memory_gib": "big"}]})");
        const QString unknownKey = file(QStringLiteral("unknown.json"),
                                        R"({"format": "parascope-scenario", "version": 1,
                                            "gpus": 8})");
        auto eval = [](std::initializer_list<const char *> rest) {
            QStringList list{QStringLiteral("eval")};
            for (const char *a : rest)
                list << QString::fromUtf8(a);
            return list;
        };
        QTest::addRow("docs/DESIGN.md §4: unknown key")
            << eval({"--set", "gpus=8"}) << "gpus: unknown key";
        QTest::addRow("docs/DESIGN.md §4: unknown model")
            << eval({"--set", "model=gpt-9"}) << "model:";
        QTest::addRow("docs/DESIGN.md §4: unknown device")
            << eval({"--set", "device=abacus"}) << "device:";
        QTest::addRow("docs/DESIGN.md §4: unparsable value") << eval({"--set", "tp=four"}) << "tp:";
        QTest::addRow("docs/DESIGN.md §4: tp = 0") << eval({"--set", "tp=0"}) << "tp:";
        QTest::addRow("docs/DESIGN.md §4: dp = -2") << eval({"--set", "dp=-2"}) << "dp:";
        QTest::addRow("docs/DESIGN.md §4: microbatches = 0")
            << eval({"--set", "microbatches=0"}) << "microbatches:";
        QTest::addRow("docs/DESIGN.md §4: pp > layers") << eval({"--set", "pp=100"}) << "pp:";
        QTest::addRow("docs/DESIGN.md §4: heads not divisible by tp")
            << eval({"--set", "tp=3"}) << "tp:";
        QTest::addRow("docs/DESIGN.md §4: interleaved, m not a multiple of pp")
            << eval({"--set", "schedule=interleaved", "--set", "microbatches=10"})
            << "microbatches:";
        QTest::addRow("docs/DESIGN.md §4: interleaved, layers per stage not divisible by v")
            << eval({"--set", "schedule=interleaved", "--set", "virtual_stages=3"})
            << "virtual_stages:";
        QTest::addRow("docs/DESIGN.md §4: int8 in training")
            << eval({"--set", "precision=int8"}) << "precision:";
        QTest::addRow("docs/DESIGN.md §4: zero = 5") << eval({"--set", "zero=5"}) << "zero:";
        QTest::addRow("docs/DESIGN.md §4: a newer version")
            << (QStringList{QStringLiteral("eval"), newer}) << "version:";
        QTest::addRow("docs/DESIGN.md §6: malformed file")
            << (QStringList{QStringLiteral("eval"), broken}) << "not a valid scenario file";
        QTest::addRow("docs/DESIGN.md §4: unknown key in a file")
            << (QStringList{QStringLiteral("eval"), unknownKey}) << "gpus: unknown key";
        QTest::addRow("missing file")
            << eval({"/nonexistent/plan.parascope.json"}) << "cannot read";
        QTest::addRow("--set without =") << eval({"--set", "tp"}) << "--set:";
        QTest::addRow("--format xml") << eval({"--format", "xml"}) << "--format:";
        QTest::addRow("unknown option") << eval({"--frobnicate"}) << "frobnicate";
        QTest::addRow("bad --presets file")
            << (QStringList{QStringLiteral("eval"), QStringLiteral("--presets"), badPresets})
            << "devices[0].memory_gib";
        QTest::addRow("presets with an argument")
            << QStringList{QStringLiteral("presets"), QStringLiteral("extra")} << "no arguments";
        // README, "Limits": 6,291,432 blocks once took 98 s, 12.3 GB and 1.3 GB of JSON.
        QTest::addRow("a timeline beyond 2^20 blocks")
            << eval({"--timeline", "--format", "json", "--set", "model=llama-3.1-405b", "--set",
                     "pp=126", "--set", "microbatches=16644", "--set", "schedule=zb-h1"})
            << "microbatches: the timeline would hold pp x microbatches x 3 passes (F, B, W) = "
               "6291432 blocks, more than the 1048576";
    }
    void invalidInput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        const ParascopeRun r = runParascope(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QVERIFY(r.out.isEmpty());
    }

    // A scenario that reads but does not validate: the refusal names the file, unless
    // the key refused came from --set.
    void validationNamesTheFile_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named"); // the file the message names, or none
        const QString three = file(QStringLiteral("tp3.parascope.json"),
                                   R"({"format": "parascope-scenario", "version": 1, "tp": 3})");
        const QString two = file(QStringLiteral("tp2.parascope.json"),
                                 R"({"format": "parascope-scenario", "version": 1, "tp": 2})");
        QTest::addRow("tp = 3 in the file") << QStringList{"eval", three} << three;
        QTest::addRow("tp = 3 in the file, refused by export")
            << QStringList{"export", three,   "--chart",
                           "memory", "--out", m_dir.filePath("never.png")}
            << three;
        QTest::addRow("tp = 3 from --set over the file")
            << QStringList{"eval", two, "--set", "tp=3"} << QString();
        QTest::addRow("tp = 3 in the file compared with")
            << QStringList{"eval", "--compare", three} << three;
    }
    void validationNamesTheFile()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        const ParascopeRun r = runParascope(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QStringLiteral("tp: the model's 64 attention heads do not "
                                               "divide by 3")),
                 qPrintable(r.err));
        if (named.isEmpty())
            QVERIFY2(!r.err.contains(QStringLiteral(" (in ")), qPrintable(r.err));
        else
            QVERIFY2(r.err.contains(QStringLiteral(" (in %1)").arg(named)), qPrintable(r.err));
    }

    // The damaged files of tests/data/damaged/, on the command line: exit 2, one line, the reason.
    void damagedFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("named");
        QTest::addRow("truncated") << "truncated"
                                   << "not a valid scenario file";
        QTest::addRow("binary") << "binary"
                                << "not a valid scenario file";
        QTest::addRow("1e300 for tp") << "huge-number"
                                      << "tp:";
        QTest::addRow("unknown preset") << "unknown-preset"
                                        << "model: unknown preset";
        QTest::addRow("newer version") << "newer-version"
                                       << "version:";
        QTest::addRow("negative memory") << "negative-memory"
                                         << "device.memory_gib";
    }
    void damagedFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, named);
        const QString path =
            QFINDTESTDATA(QStringLiteral("../data/damaged/%1.parascope.json").arg(file));
        const ParascopeRun r = runParascope({QStringLiteral("eval"), path});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    }

    void checkExitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("status");
        const QString check = QStringLiteral("--check");
        const QStringList tooBig{QStringLiteral("--set"), QStringLiteral("tp=1"),
                                 QStringLiteral("--set"), QStringLiteral("pp=1"),
                                 QStringLiteral("--set"), QStringLiteral("dp=1")};
        // docs/DESIGN.md §4: eval --check exits 1 when the plan does not fit; plain eval exits 0.
        QTest::addRow("docs/DESIGN.md §4: default fits, --check") << QStringList{check} << 0;
        QTest::addRow("docs/DESIGN.md §4: 70B on one device, --check")
            << (tooBig + QStringList{check}) << 1;
        QTest::addRow("docs/DESIGN.md §4: 70B on one device, plain eval") << tooBig << 0;
    }
    void checkExitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, status);
        const ParascopeRun r = runParascope(QStringList{QStringLiteral("eval")} + arguments);
        QCOMPARE(r.status, status);
        QVERIFY(r.out.contains(QStringLiteral("Fits:")));
    }

    // docs/worked-examples.md §1: the report for 405B in FP16.
    void jsonReport()
    {
        const QJsonObject r = json({QStringLiteral("--set"), QStringLiteral("model=llama-3.1-405b"),
                                    QStringLiteral("--set"), QStringLiteral("precision=fp16")});
        QCOMPARE(r.value(QStringLiteral("format")).toString(), QStringLiteral("parascope-report"));
        const QJsonObject model = r.value(QStringLiteral("model")).toObject();
        QCOMPARE(model.value(QStringLiteral("name")).toString(), QStringLiteral("Llama 3.1 405B"));
        // docs/DESIGN.md §3.1: exact count; docs/worked-examples.md §1: 810 GB at FP16 from the
        // nominal size.
        QCOMPARE(model.value(QStringLiteral("params")).toInteger(), 405'853'388'800);
        QCOMPARE(model.value(QStringLiteral("nominal_params")).toInteger(), 405'000'000'000);
        QCOMPARE(r.value(QStringLiteral("nominal_weights_bytes")).toInteger(), 810'000'000'000);
        QCOMPARE(r.value(QStringLiteral("weights_bytes")).toInteger(), 2 * 405'853'388'800);
        QCOMPARE(r.value(QStringLiteral("devices")).toInt(), 64);
        QVERIFY(r.value(QStringLiteral("fits")).isBool());
        QVERIFY(r.value(QStringLiteral("warnings")).isArray());
        const QJsonArray stages = r.value(QStringLiteral("stages")).toArray();
        QCOMPARE(stages.size(), 4);
        const QStringList sizes{"weights_bytes",     "grads_bytes",          "optimizer_bytes",
                                "activations_bytes", "cached_outputs_bytes", "loss_bytes",
                                "reserve_bytes",     "total_bytes",          "capacity_bytes",
                                "headroom_bytes"};
        qint64 layers = 0;
        for (const QJsonValue &v : stages) {
            const QJsonObject st = v.toObject();
            QVERIFY(st.contains(QStringLiteral("index")));
            QVERIFY(st.value(QStringLiteral("fits")).isBool());
            layers += st.value(QStringLiteral("layers")).toInteger();
            qint64 sum = 0;
            for (const QString &key : sizes) {
                const QJsonValue value = st.value(key);
                QVERIFY2(value.isDouble(), qPrintable(key));
                QCOMPARE(value.toDouble(), double(value.toInteger())); // integers, in bytes
                if (key != QLatin1String("total_bytes") && key != QLatin1String("capacity_bytes") &&
                    key != QLatin1String("headroom_bytes"))
                    sum += value.toInteger();
            }
            QCOMPARE(st.value(QStringLiteral("total_bytes")).toInteger(), sum);
            QCOMPARE(st.value(QStringLiteral("capacity_bytes")).toInteger(), 80 * core::kGiB);
            QCOMPARE(st.value(QStringLiteral("reserve_bytes")).toInteger(), 2 * core::kGiB);
        }
        QCOMPARE(layers, 126);
    }

    // docs/worked-examples.md §5: the Llama 3-8B DP2-PP2 run with m = 16.
    void pipelineLlama8bReport_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<qint64>("lastStageCached");
        // docs/DESIGN.md §3.3 / pytorch/pytorch#159251: 16 × 4096 × 128256 × 2 bytes.
        QTest::addRow("#159251: cached outputs on the last stage")
            << QStringList{} << 16 * 1'050'673'152LL;
        QTest::addRow("#165822: cache_outputs=false")
            << QStringList{QStringLiteral("--set"), QStringLiteral("cache_outputs=false")} << 0LL;
    }
    void pipelineLlama8bReport()
    {
        QFETCH(QStringList, extra);
        QFETCH(qint64, lastStageCached);
        QStringList arguments;
        for (const char *kv : {"model=llama-3.1-8b", "tp=1", "pp=2", "dp=2", "microbatches=16",
                               "microbatch_size=1", "seq_len=4096"})
            arguments << QStringLiteral("--set") << QString::fromUtf8(kv);
        const QJsonObject r = json(arguments + extra);
        const QJsonArray stages = r.value(QStringLiteral("stages")).toArray();
        QCOMPARE(stages.size(), 2);
        const QJsonObject first = stages.at(0).toObject();
        const QJsonObject last = stages.at(1).toObject();
        QCOMPARE(first.value(QStringLiteral("cached_outputs_bytes")).toInteger(), 0);
        QCOMPARE(last.value(QStringLiteral("cached_outputs_bytes")).toInteger(), lastStageCached);
        // 1F1B keeps min(K-s, m) micro-batches: 2 on the first stage, 1 on the last.
        QCOMPARE(first.value(QStringLiteral("inflight_microbatches")).toDouble(), 2.0);
        QCOMPARE(last.value(QStringLiteral("inflight_microbatches")).toDouble(), 1.0);
        QVERIFY(first.value(QStringLiteral("activations_bytes")).toInteger() > 0);
        QCOMPARE(first.value(QStringLiteral("kv_cache_bytes")).toInteger(), 0);
        // docs/DESIGN.md §3.3: (K-1)/(K-1+m) = 1/17 for K = 2, m = 16, in the closed form. The
        // simulation adds the last stage's LM head (7.5 % of Llama 3 8B's FLOPs, a sixth of
        // that stage's work), which the first stage waits for: a larger bubble.
        QVERIFY(r.value(QStringLiteral("bubble_fraction")).toDouble() > 1.0 / 17);
        QVERIFY(std::abs(r.value(QStringLiteral("bubble_fraction_closed_form")).toDouble() -
                         1.0 / 17) < 1e-12);
        QVERIFY(r.value(QStringLiteral("makespan_s")).toDouble() > 0);
        QVERIFY(!r.contains(QStringLiteral("timeline")));
    }

    // docs/worked-examples.md §4 bubble numbers through the CLI, and the timeline only with
    // --timeline.
    void timelineOnRequest()
    {
        const QJsonObject r = json({QStringLiteral("--set"), QStringLiteral("microbatches=4"),
                                    QStringLiteral("--timeline")});
        // docs/worked-examples.md §4: K = 4, m = 4 -> 3/7 = 42.9 % in the closed form.
        QVERIFY(std::abs(r.value(QStringLiteral("bubble_fraction_closed_form")).toDouble() -
                         3.0 / 7) < 1e-12);
        const QJsonArray timeline = r.value(QStringLiteral("timeline")).toArray();
        QCOMPARE(timeline.size(), 4 * 4 * 2); // K × m × (F, B)
        int forwards = 0;
        for (const QJsonValue &v : timeline) {
            const QJsonObject op = v.toObject();
            for (const char *key : {"stage", "kind", "microbatch", "chunk", "start_s", "end_s"})
                QVERIFY2(op.contains(QString::fromUtf8(key)), key);
            QVERIFY(op.value(QStringLiteral("end_s")).toDouble() >
                    op.value(QStringLiteral("start_s")).toDouble());
            // 1F1B's B computes its weight gradients and runs alone: neither mark is written.
            QVERIFY(!op.contains(QStringLiteral("with_w")) &&
                    !op.contains(QStringLiteral("paired")));
            forwards += op.value(QStringLiteral("kind")).toString() == QStringLiteral("F");
        }
        QCOMPARE(forwards, 16);
        // DualPipeV (deepseek-ai/DualPipe, dualpipev.py) on K = 4, m = 8: every B of its
        // zero-bubble steps (3, 6 from the middle, 7) leaves a W, the others compute theirs,
        // so W + whole B = each stage's 2m backwards. Rank r runs 2(m - 2K + r + 1) pairs in
        // step 4 and K - r - 1 in step 5, K(2m - 3K + 1) + K(K - 1)/2 = 26 in all, but the
        // last rank's first (run apart): 25 pairs, two ops each.
        const QJsonObject dualPipeV = json(
            {QStringLiteral("--set"), QStringLiteral("schedule=dualpipev"), QStringLiteral("--set"),
             QStringLiteral("microbatches=8"), QStringLiteral("--timeline")});
        int weights = 0, whole = 0, paired = 0;
        for (const QJsonValue &value : dualPipeV.value(QStringLiteral("timeline")).toArray()) {
            const QJsonObject op = value.toObject();
            weights += op.value(QStringLiteral("kind")).toString() == QStringLiteral("W");
            whole += op.value(QStringLiteral("with_w")).toBool();
            paired += op.value(QStringLiteral("paired")).toBool();
        }
        QCOMPARE(weights + whole, 4 * 2 * 8);
        QCOMPARE(paired, 2 * 25);
        const QJsonObject zb = json({QStringLiteral("--set"), QStringLiteral("schedule=zb-h1"),
                                     QStringLiteral("--set"), QStringLiteral("recompute=none"),
                                     QStringLiteral("--timeline")});
        QCOMPARE(zb.value(QStringLiteral("timeline")).toArray().size(), 4 * 16 * 3); // F, B, W
        // Qi et al. (ICLR 2024) §2.1, ZB-H1: (K-1)(F+B-W) / (m(F+B+W) + (K-1)(F+B-W)), with
        // one layer's F, B (input gradients) and W (weight gradients) from its operations
        // (equal stages: the per-layer factor cancels).
        double f = 0, b = 0, w = 0;
        for (const QJsonValue &v : zb.value(QStringLiteral("layer_ops")).toArray()) {
            const QJsonObject op = v.toObject();
            f += op.value(QStringLiteral("forward"))
                     .toObject()
                     .value(QStringLiteral("seconds"))
                     .toDouble();
            b += op.value(QStringLiteral("backward"))
                     .toObject()
                     .value(QStringLiteral("seconds"))
                     .toDouble();
            w += op.value(QStringLiteral("weight_gradient"))
                     .toObject()
                     .value(QStringLiteral("seconds"))
                     .toDouble();
        }
        QVERIFY(f > 0 && b > 0 && w > 0);
        const double idle = 3 * (f + b - w);
        QVERIFY(std::abs(zb.value(QStringLiteral("bubble_fraction_closed_form")).toDouble() -
                         idle / (16 * (f + b + w) + idle)) < 1e-9);
    }

    // No number with the wrong unit: without a peak for the precision the schedule is timed in
    // layer-times, and neither report calls them seconds; both say there is no timing and why.
    void noTimingInTextAndJson_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("why");
        // INT4 weights compute in BF16 (docs/step_time.md), so the SN30, which publishes only an
        // FP16 peak, has no timing for BF16; nor has the SN40L for FP32.
        QTest::addRow("BF16 on the SN30") << QStringList{"model=llama-3.1-8b",
                                                         "mode=inference",
                                                         "precision=bf16",
                                                         "device=sn30",
                                                         "tp=1",
                                                         "pp=2",
                                                         "dp=1"}
                                          << "SambaNova SN30 publishes no bf16 peak FLOPS";
        QTest::addRow("FP32 training on the SN40L")
            << QStringList{"model=llama-3.1-8b",
                           "precision=fp32",
                           "device=sn40l",
                           "tp=1",
                           "pp=2",
                           "dp=1"}
            << "SambaNova SN40L publishes no fp32 peak FLOPS";
    }
    // A warning one setting answers gives it as --set takes it (recompute-layers-fewer), and
    // the setting clears the warning; the others have no "set".
    void warningsGiveTheSettingThatAnswers()
    {
        const QStringList full{"--set", "tp=1",           "--set", "pp=1",
                               "--set", "dp=64",          "--set", "zero=3",
                               "--set", "microbatches=8", "--set", "recompute=full"};
        QString set;
        for (const QJsonValue &w : json(full).value(QStringLiteral("warnings")).toArray()) {
            const QJsonObject o = w.toObject();
            if (o.value(QStringLiteral("code")).toString() ==
                QLatin1String("recompute-layers-fewer"))
                set = o.value(QStringLiteral("set")).toString();
            else
                QVERIFY(!o.contains(QStringLiteral("set")));
        }
        QVERIFY2(set.startsWith(QStringLiteral("recompute_layers=")), qPrintable(set));
        const QJsonObject applied = json(full + QStringList{QStringLiteral("--set"), set});
        QVERIFY(applied.value(QStringLiteral("fits")).toBool());
        for (const QJsonValue &w : applied.value(QStringLiteral("warnings")).toArray())
            QVERIFY(w.toObject().value(QStringLiteral("code")).toString() !=
                    QLatin1String("recompute-layers-fewer"));
    }

    void noTimingInTextAndJson()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, why);
        QStringList arguments;
        for (const QString &kv : settings)
            arguments << QStringLiteral("--set") << kv;
        const QJsonObject r = json(arguments + QStringList{QStringLiteral("--timeline")});
        QVERIFY(r.value(QStringLiteral("makespan_s")).isNull());
        QVERIFY(r.value(QStringLiteral("makespan_layer_times")).toDouble() > 0);
        QVERIFY(r.value(QStringLiteral("step_time_s")).isNull());
        QJsonObject warning;
        for (const QJsonValue &w : r.value(QStringLiteral("warnings")).toArray())
            if (w.toObject().value(QStringLiteral("code")).toString() == QLatin1String("no-timing"))
                warning = w.toObject();
        QVERIFY2(warning.value(QStringLiteral("message")).toString().contains(why),
                 qPrintable(warning.value(QStringLiteral("message")).toString()));
        const QJsonArray timeline = r.value(QStringLiteral("timeline")).toArray();
        QVERIFY(!timeline.isEmpty());
        for (const QJsonValue &v : timeline) {
            const QJsonObject op = v.toObject();
            QVERIFY(op.value(QStringLiteral("start_s")).isNull());
            QVERIFY(op.value(QStringLiteral("end_s")).isNull());
            QVERIFY(op.value(QStringLiteral("end_layer_times")).toDouble() >
                    op.value(QStringLiteral("start_layer_times")).toDouble());
        }

        const ParascopeRun text = runParascope(QStringList{QStringLiteral("eval")} + arguments);
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("layer-times, not seconds")),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("warning: no timing: ") + why),
                 qPrintable(text.out));
        QVERIFY(!text.out.contains(QStringLiteral("; step ")));
    }

    // With a peak, seconds, and no layer-times.
    void timedReportHasNoLayerTimes()
    {
        const QJsonObject r = json({});
        QVERIFY(r.value(QStringLiteral("makespan_s")).toDouble() > 0);
        QVERIFY(r.value(QStringLiteral("makespan_layer_times")).isNull());
        QVERIFY(r.value(QStringLiteral("bubble_closed_form_missing")).isNull());
    }

    // The optimizer step's passes in JSON add up to its time (docs/step_time.md, "Optimizer"):
    // the default scenario's BF16 gradients cast (2 + 4), normed (4), Adam (28), written back
    // (4 + 2), zeroed (2); in inference, null.
    void jsonOptimizerPasses()
    {
        const QJsonObject r = json({});
        const QJsonObject o = r.value(QStringLiteral("optimizer")).toObject();
        const QJsonObject owned = o.value(QStringLiteral("bytes_per_owned_param")).toObject();
        QCOMPARE(owned.value(QStringLiteral("cast")).toDouble(), 6.0);
        QCOMPARE(owned.value(QStringLiteral("scale")).toDouble(), 0.0);
        QCOMPARE(owned.value(QStringLiteral("norm")).toDouble(), 4.0);
        QCOMPARE(owned.value(QStringLiteral("adam")).toDouble(), 28.0);
        QCOMPARE(owned.value(QStringLiteral("write_back")).toDouble(), 6.0);
        QCOMPARE(o.value(QStringLiteral("bytes_per_held_grad")).toDouble(), 2.0);
        const double bytes = 44 * o.value(QStringLiteral("owned_params")).toDouble() +
                             2 * o.value(QStringLiteral("held_params")).toDouble();
        const double seconds = r.value(QStringLiteral("time_breakdown"))
                                   .toObject()
                                   .value(QStringLiteral("optimizer_s"))
                                   .toDouble();
        QVERIFY(seconds > 0);
        QVERIFY(std::abs(bytes / o.value(QStringLiteral("bytes_per_s")).toDouble() / seconds - 1) <
                1e-12);
        const QJsonObject inference =
            json({QStringLiteral("--set"), QStringLiteral("mode=inference")});
        QVERIFY(inference.value(QStringLiteral("optimizer")).isNull());
    }

    // The weights' casts that run once a step (docs/step_time.md, "Weight casts"): FP8 training
    // with BF16 weights on H100s keeps Transformer Engine's cached casts, made in the first
    // micro-batch's forward: read 2, write the data and its transpose (2), over the busiest
    // stage's cast parameters at 0.9 of 3,350 GB/s. None in BF16.
    void jsonWeightCastOnce()
    {
        const QJsonObject r = json({QStringLiteral("--set"), QStringLiteral("precision=fp8"),
                                    QStringLiteral("--set"), QStringLiteral("fp8_params=false")});
        const QJsonObject once = r.value(QStringLiteral("weight_cast_once")).toObject();
        QCOMPARE(once.value(QStringLiteral("bytes_per_param")).toDouble(), 4.0);
        const double params = once.value(QStringLiteral("params")).toDouble();
        QVERIFY(params > 0);
        QVERIFY(std::abs(once.value(QStringLiteral("seconds")).toDouble() /
                             (params * 4.0 / (3350e9 * 0.9)) -
                         1) < 1e-12);
        QVERIFY(json({}).value(QStringLiteral("weight_cast_once")).isNull());
    }

    // The MoE layers' untimed wait for their token counts (docs/step_time.md, "Fine-grained
    // experts"): Qwen3 30B-A3B on 16 H100s at micro-batch 1, 48 layers × 64 micro-batches ×
    // 1.3 and 4.0 ms; with it the moe-host warning. The default scenario, dense, has none.
    void jsonMoeHostWait()
    {
        QStringList args;
        for (const char *kv : {"framework=megatron", "model=qwen3-30b-a3b", "device=h100-sxm",
                               "tp=1", "pp=1", "dp=16", "ep=16", "seq_len=4096",
                               "microbatch_size=1", "microbatches=64", "recompute=none"})
            args << QStringLiteral("--set") << QString::fromLatin1(kv);
        const QJsonObject r = json(args);
        const QJsonObject wait = r.value(QStringLiteral("moe_host_untimed_s")).toObject();
        QVERIFY(std::abs(wait.value(QStringLiteral("low")).toDouble() - 48 * 64 * 1.7e-3) < 1e-9);
        QVERIFY(std::abs(wait.value(QStringLiteral("high")).toDouble() - 48 * 64 * 4.3e-3) < 1e-9);
        bool warned = false;
        for (const QJsonValue &w : r.value(QStringLiteral("warnings")).toArray())
            warned = warned || w.toObject().value(QStringLiteral("code")).toString() ==
                                   QStringLiteral("moe-host");
        QVERIFY(warned);
        QVERIFY(json({}).value(QStringLiteral("moe_host_untimed_s")).isNull());
    }

    // The factors the attention kernel took at the model's head width (docs/step_time.md,
    // "Head width"): gpt-oss's 64 on an H100, cuDNN at 363 / 518 forward and 417 / 499 backward
    // (Shah et al. 2024, Figures 5 and 6); the default 70B, 128 wide, 1; a forced mfu, 1.
    void jsonAttentionHeadWidth_data()
    {
        QTest::addColumn<QStringList>("set");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("forward");
        QTest::addColumn<double>("backward");
        const QStringList oss{"model=gpt-oss-120b",
                              "device=h100-sxm",
                              "precision=bf16",
                              "tp=1",
                              "pp=1",
                              "dp=8",
                              "ep=8",
                              "seq_len=4096"};
        QTest::addRow("gpt-oss on an H100") << oss << 64.0 << 363.0 / 518 << 417.0 / 499;
        QTest::addRow("the default scenario") << QStringList{} << 128.0 << 1.0 << 1.0;
        QTest::addRow("a forced mfu") << oss + QStringList{"mfu=0.5"} << 64.0 << 1.0 << 1.0;
    }
    void jsonAttentionHeadWidth()
    {
        QFETCH(QStringList, set);
        QFETCH(double, width);
        QFETCH(double, forward);
        QFETCH(double, backward);
        QStringList args;
        for (const QString &kv : set)
            args << QStringLiteral("--set") << kv;
        const QJsonObject w = json(args).value(QStringLiteral("attention_head_width")).toObject();
        QCOMPARE(w.value(QStringLiteral("width")).toDouble(), width);
        // The curves' points are the published ratios to three places.
        QVERIFY(std::abs(w.value(QStringLiteral("forward")).toDouble() - forward) < 1e-3);
        QVERIFY(std::abs(w.value(QStringLiteral("backward")).toDouble() - backward) < 1e-3);
    }

    // docs/experts.md, "Capacity" and "Gradient sync": Qwen3 30B-A3B padded to capacity 1.25
    // at 4,096 tokens computes ceil(256 x 1.25) = 320 of an even 256 copies an expert, and is
    // warned of the host cost as a dropless run is (the padded runs of docs/step_time.md,
    // "Fine-grained experts", missed by as much): its 48 layers x 64 micro-batches x 1.7 to
    // 4.3 ms; at E = 8 over 16 devices its experts reduce over 2 ranks, each alone in its node.
    // The text says the load too. Dense: 1, and no experts' ring.
    void jsonExpertLoadAndRing()
    {
        QStringList args;
        for (const char *kv :
             {"framework=megatron", "model=qwen3-30b-a3b", "device=h100-sxm", "tp=1", "pp=1",
              "dp=16", "ep=8", "seq_len=4096", "microbatch_size=1", "microbatches=64",
              "recompute=none", "expert_capacity_factor=1.25", "pad_to_capacity=true"})
            args << QStringLiteral("--set") << QString::fromLatin1(kv);
        const QJsonObject r = json(args);
        QCOMPARE(r.value(QStringLiteral("expert_load")).toDouble(), 320.0 / 256);
        const QJsonObject host = r.value(QStringLiteral("moe_host_untimed_s")).toObject();
        QVERIFY(std::abs(host.value(QStringLiteral("low")).toDouble() - 48 * 64 * 1.7e-3) < 1e-9);
        QVERIFY(std::abs(host.value(QStringLiteral("high")).toDouble() - 48 * 64 * 4.3e-3) < 1e-9);
        const QJsonObject experts = r.value(QStringLiteral("dp_comm"))
                                        .toObject()
                                        .value(QStringLiteral("experts"))
                                        .toObject();
        QCOMPARE(experts.value(QStringLiteral("ranks")).toInt(), 2);
        QCOMPARE(experts.value(QStringLiteral("link")).toString(), QStringLiteral("inter-node"));
        const QJsonObject dense = json({});
        QCOMPARE(dense.value(QStringLiteral("expert_load")).toDouble(), 1.0);
        QVERIFY(dense.value(QStringLiteral("dp_comm"))
                    .toObject()
                    .value(QStringLiteral("experts"))
                    .isNull());
        QStringList textArgs{QStringLiteral("eval")};
        textArgs << args;
        const ParascopeRun text = runParascope(textArgs);
        QVERIFY2(text.out.contains(QStringLiteral("each expert computes 1.25 x its even share")),
                 qPrintable(text.out));
    }

    // docs/step_time.md, "Hybrid sharding": Llama 3.1 8B on four nodes of 8 H100s at ZeRO-1 with
    // R = 4 all-reduces its 2P/8-byte BF16 gradient shard with the same rank of the other three
    // nodes, 2 × 3/4 of it (Patarasuk & Yuan 2009, §3), over one 50 GB/s NIC at 0.9; without
    // hybrid sharding there is no such ring.
    void jsonHybridShardingRing()
    {
        QStringList args;
        for (const char *kv :
             {"model=llama-3.1-8b", "device=h100-sxm", "tp=1", "pp=1", "dp=32", "zero=1",
              "zero_replicas=4", "precision=bf16", "grad_precision=bf16", "microbatches=4"})
            args << QStringLiteral("--set") << QString::fromLatin1(kv);
        const QJsonObject replicas = json(args)
                                         .value(QStringLiteral("dp_comm"))
                                         .toObject()
                                         .value(QStringLiteral("replicas"))
                                         .toObject();
        QCOMPARE(replicas.value(QStringLiteral("replicas")).toInt(), 4);
        QCOMPARE(replicas.value(QStringLiteral("link")).toString(), QStringLiteral("inter-node"));
        QVERIFY(std::abs(replicas.value(QStringLiteral("bus_gb_per_s")).toDouble() - 45) < 1e-9);
        const double params = 8'030'261'248.0;
        QVERIFY(std::abs(replicas.value(QStringLiteral("bytes_per_step")).toDouble() -
                         2 * 0.75 * 2 * params / 8) < 1);
        QVERIFY(json({})
                    .value(QStringLiteral("dp_comm"))
                    .toObject()
                    .value(QStringLiteral("replicas"))
                    .isNull());
    }

    // Multi-token prediction's depths beside the last stage's layers, in the JSON and the
    // text's stage table (the default 70B on K = 4: 20 layers a stage).
    void mtpLayersShown()
    {
        const QStringList args{QStringLiteral("--set"), QStringLiteral("mtp_layers=1")};
        const QJsonArray stages = json(args).value(QStringLiteral("stages")).toArray();
        QVERIFY(!stages.isEmpty());
        QCOMPARE(stages.last().toObject().value(QStringLiteral("mtp_layers")).toInt(), 1);
        QCOMPARE(stages.first().toObject().value(QStringLiteral("mtp_layers")).toInt(), 0);
        QStringList textArgs{QStringLiteral("eval")};
        textArgs << args;
        const ParascopeRun text = runParascope(textArgs);
        QVERIFY2(text.out.contains(QStringLiteral("    3  20+1m")), qPrintable(text.out));
    }

    // The text report's table has a column for each memory term some stage has, as the chart's
    // legend lists them; the JSON keeps every term.
    void textColumnsAreTheTermsTheStagesHave_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("columns");
        QTest::addColumn<QStringList>("absent");
        QTest::addRow("training: no KV cache or prefill")
            << QStringList{} << QStringList{"Grads", "Optim", "Activ.", "Cached", "Reserve", "Loss"}
            << QStringList{"KV", "Prefill", "ZeRO buf"};
        QTest::addRow("inference: no gradients, optimizer or loss")
            << QStringList{"--set", "mode=inference"} << QStringList{"KV", "Prefill", "Reserve"}
            << QStringList{"Grads", "Optim", "Activ.", "Loss"};
    }
    void textColumnsAreTheTermsTheStagesHave()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, columns);
        QFETCH(QStringList, absent);
        const ParascopeRun text = runParascope(QStringList{QStringLiteral("eval")} + args);
        const QString header = text.out.section(QStringLiteral("\nStage Layers"), 1, 1)
                                   .section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(!header.isEmpty(), qPrintable(text.out));
        const QStringList shown = header.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        for (const QString &c : columns)
            QVERIFY2(shown.contains(c), qPrintable(c + " not in" + header));
        for (const QString &c : absent)
            QVERIFY2(!header.contains(c), qPrintable(c + " in" + header));
        // The JSON has every term, zero or not.
        const QJsonObject stage =
            json(args).value(QStringLiteral("stages")).toArray().first().toObject();
        for (const core::MemoryTerm &term : core::kMemoryTerms)
            QVERIFY2(stage.contains(QLatin1String(term.key)), term.key);
    }

    // LoRA in the JSON and the text: the default 70B at T = 8, K = 4 with rank-16 adapters
    // beside QKV alone, 16 · (8,192 + 10,240) / 8 = 36,864 parameters a layer a device, 20
    // layers a stage (docs/step_time.md, "LoRA").
    void loraShown()
    {
        const QStringList args{QStringLiteral("--set"), QStringLiteral("tp=8"),
                               QStringLiteral("--set"), QStringLiteral("lora_rank=16"),
                               QStringLiteral("--set"), QStringLiteral("lora_modules=linear_qkv")};
        const QJsonObject report = json(args);
        const QJsonObject lora = report.value(QStringLiteral("lora")).toObject();
        QCOMPARE(lora.value(QStringLiteral("rank")).toInt(), 16);
        QCOMPARE(lora.value(QStringLiteral("modules")).toString(), QStringLiteral("linear_qkv"));
        const QJsonObject stage =
            report.value(QStringLiteral("stages")).toArray().first().toObject();
        QCOMPARE(stage.value(QStringLiteral("trainable_params")).toInteger(), 20 * 36'864);
        QVERIFY(!json({}).contains(QStringLiteral("lora")));
        QStringList textArgs{QStringLiteral("eval")};
        textArgs << args;
        const ParascopeRun text = runParascope(textArgs);
        QVERIFY2(text.out.contains(QStringLiteral("LoRA            rank 16 beside linear_qkv; the "
                                                  "model's weights frozen, 737,280 adapter")),
                 qPrintable(text.out));
    }

    // A closed form only where it holds: 80 layers over K = 3 take 27, 27 and 26 layers, so
    // the stages take different times; null, with the reason, in JSON and in text.
    void noClosedFormForUnevenStages()
    {
        const QJsonObject r = json({QStringLiteral("--set"), QStringLiteral("pp=3")});
        QVERIFY(r.value(QStringLiteral("bubble_fraction_closed_form")).isNull());
        QVERIFY(r.value(QStringLiteral("bubble_closed_form_missing"))
                    .toString()
                    .contains(QStringLiteral("different times")));
        const ParascopeRun text =
            runParascope({QStringLiteral("eval"), QStringLiteral("--set"), QStringLiteral("pp=3")});
        QVERIFY2(
            text.out.contains(QStringLiteral("no closed form (the stages take different times")),
            qPrintable(text.out));
    }

    void warningsInJson()
    {
        const QJsonObject r = json({QStringLiteral("--set"), QStringLiteral("pp=3")});
        QStringList codes;
        for (const QJsonValue &w : r.value(QStringLiteral("warnings")).toArray())
            codes << w.toObject().value(QStringLiteral("code")).toString();
        QVERIFY(codes.contains(QStringLiteral("uneven-stages")));
    }

    void scenarioFileAndSetCombine()
    {
        const QString path = file(QStringLiteral("plan.parascope.json"),
                                  R"({"format": "parascope-scenario", "version": 1,
                                      "model": "llama-3.1-8b", "tp": 2, "pp": 2, "dp": 2})");
        const QJsonObject r = json({path, QStringLiteral("--set"), QStringLiteral("dp=4")});
        QCOMPARE(
            r.value(QStringLiteral("model")).toObject().value(QStringLiteral("params")).toInteger(),
            8'030'261'248);
        QCOMPARE(r.value(QStringLiteral("devices")).toInt(), 16);
    }

    // docs/DESIGN.md §4: compare reports exactly the fields that differ.
    void compareTwoScenarios()
    {
        const QString a = QStringLiteral(
            PARASCOPE_SOURCE_DIR "/resources/examples/seed-70b-fp16-one-device.parascope.json");
        const QString b = QStringLiteral(PARASCOPE_SOURCE_DIR
                                         "/resources/examples/seed-70b-fp16-t4.parascope.json");
        const QJsonObject r = json({a, "--compare", b});
        QCOMPARE(r.value("format").toString(), QStringLiteral("parascope-comparison"));
        const QJsonArray scenario = r.value("scenario_differences").toArray();
        QCOMPARE(scenario.size(), 1);
        QCOMPARE(scenario[0].toObject().value("field").toString(), QStringLiteral("tp"));
        QCOMPARE(scenario[0].toObject().value("a").toInt(), 1);
        QCOMPARE(scenario[0].toObject().value("b").toInt(), 4);
        QStringList fields;
        for (const QJsonValue &d : r.value("report_differences").toArray())
            fields << d.toObject().value("field").toString();
        // T changes the device count, the per-device shard and the verdict; the model does not.
        QVERIFY(fields.contains("tp"));
        QVERIFY(fields.contains("devices"));
        QVERIFY(fields.contains("stages[0].weights_bytes"));
        QVERIFY(fields.contains("fits"));
        QVERIFY(!fields.contains("model.params"));
        QVERIFY(!fields.contains("weights_bytes"));
        QVERIFY(!fields.contains("stages[0].capacity_bytes"));
        // The same scenario twice differs nowhere.
        const QJsonObject same = json({a, "--compare", a});
        QVERIFY(same.value("scenario_differences").toArray().isEmpty());
        QVERIFY(same.value("report_differences").toArray().isEmpty());
    }

    // Issue #18 §6: the text comparison printed raw field names and byte counts
    // ("1.27307e+06"). Now labelled, with units: 70B's 70,553,706,496 parameters at 2 bytes
    // are 141.1 GB on one device, a quarter of it (35.3 GB) at T = 4; throughput grouped.
    void compareTextIsLabelled()
    {
        const QString a = QStringLiteral(
            PARASCOPE_SOURCE_DIR "/resources/examples/seed-70b-fp16-one-device.parascope.json");
        const QString b = QStringLiteral(PARASCOPE_SOURCE_DIR
                                         "/resources/examples/seed-70b-fp16-t4.parascope.json");
        const ParascopeRun r =
            runParascope({QStringLiteral("eval"), a, QStringLiteral("--compare"), b});
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        const auto line = [&lines](const QString &label) {
            const QRegularExpression start(QStringLiteral("^  %1  +").arg(label));
            for (const QString &l : lines)
                if (start.match(l).hasMatch())
                    return l.simplified();
            return QString();
        };
        QCOMPARE(line(QStringLiteral("T")), QStringLiteral("T 1 -> 4"));
        QCOMPARE(line(QStringLiteral("stage 0 weights")),
                 QStringLiteral("stage 0 weights 141.1 GB -> 35.3 GB"));
        QCOMPARE(line(QStringLiteral("devices")), QStringLiteral("devices 1 -> 4"));
        QVERIFY(line(QStringLiteral("stage 0 params")).contains(QStringLiteral("70,553,706,496")));
        QVERIFY(line(QStringLiteral("throughput"))
                    .contains(QRegularExpression(
                        QStringLiteral("^throughput \\d{1,3}(,\\d{3})* tokens/s -> "
                                       "\\d{1,3}(,\\d{3})* tokens/s$"))));
        QVERIFY(line(QStringLiteral("step time")).endsWith(QStringLiteral(" s")));
        // No raw keys, no exponents, no ungrouped numbers of four digits or more.
        QVERIFY2(!r.out.contains(QStringLiteral("_bytes")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("e+")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QRegularExpression(QStringLiteral("(^|[^\\d,.])\\d{4,}"))),
                 qPrintable(r.out));
    }

    // Issue #18 §6: the README's examples show what the program prints. A fenced block right
    // after a "<!-- checked -->" line holds commands ("$ parascope ...") each followed by its
    // output (standard output, then standard error); every one is run and compared line by
    // line. Only a time in milliseconds ("; 33 ms") is not compared.
    void readmeExamplesAreTheProgramsOutput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QStringList lines =
            QString::fromUtf8(readFile(QStringLiteral(PARASCOPE_README))).split(QLatin1Char('\n'));
        int commands = 0;
        for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
            if (lines.at(i).trimmed() != QLatin1String("<!-- checked -->"))
                continue;
            QVERIFY2(lines.at(i + 1).startsWith(QLatin1String("```")),
                     "<!-- checked --> must come right before a fenced block");
            QString command;
            QString output;
            auto add = [&] {
                if (command.isEmpty())
                    return;
                QTest::addRow("%s", qPrintable(command))
                    << command.mid(2).split(QLatin1Char(' '), Qt::SkipEmptyParts).mid(1) << output;
                ++commands;
            };
            for (i += 2; i < lines.size() && !lines.at(i).startsWith(QLatin1String("```")); ++i) {
                if (lines.at(i).startsWith(QLatin1String("$ parascope "))) {
                    add();
                    command = lines.at(i);
                    output.clear();
                } else {
                    output += lines.at(i) + QLatin1Char('\n');
                }
            }
            add();
        }
        QVERIFY2(commands >= 4, "the README's checked examples went missing");
    }
    void readmeExamplesAreTheProgramsOutput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const ParascopeRun r = runParascope(arguments);
        QVERIFY(!r.crashed && !r.timedOut);
        const auto normal = [](QString text) {
            static const QRegularExpression ms(QStringLiteral("\\b\\d+ ms\\b"));
            static const QRegularExpression trailing(QStringLiteral("[ \\t]+\\n"));
            text.replace(ms, QStringLiteral("# ms"));
            text.replace(trailing, QStringLiteral("\n"));
            while (text.endsWith(QLatin1Char('\n')))
                text.chop(1);
            return text;
        };
        QCOMPARE(normal(r.out + r.err), normal(expected));
    }

    // docs/worked-examples.md shows what the program prints: each ```sh block followed by an
    // output block is run by bash with the built parascope first on the PATH, and every line
    // the page shows must stand in the output, in order (a block may show an excerpt: a
    // table's rows, a grep's lines).
    void workedExamplesShowTheProgramsOutput_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QStringList>("shown");
        const QStringList lines =
            QString::fromUtf8(readFile(QStringLiteral(PARASCOPE_WORKED_EXAMPLES)))
                .split(QLatin1Char('\n'));
        const auto fence = [&lines](qsizetype i) {
            return i < lines.size() && lines.at(i).trimmed() == QLatin1String("```");
        };
        int blocks = 0;
        for (qsizetype i = 0; i < lines.size(); ++i) {
            if (lines.at(i).trimmed() != QLatin1String("```sh"))
                continue;
            QStringList script;
            qsizetype j = i + 1;
            while (j < lines.size() && !fence(j))
                script << lines.at(j++);
            if (!fence(j + 1))
                continue; // a command without its output
            QStringList shown;
            qsizetype k = j + 2;
            while (k < lines.size() && !fence(k))
                shown << lines.at(k++);
            QTest::addRow("line %lld", static_cast<long long>(i + 1))
                << script.join(QLatin1Char('\n')) << shown;
            ++blocks;
            i = k;
        }
        QVERIFY2(blocks >= 9, "docs/worked-examples.md's command blocks went missing");
    }
    void workedExamplesShowTheProgramsOutput()
    {
        QFETCH(QString, script);
        QFETCH(QStringList, shown);
        QProcess bash;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("PATH"),
                           QFileInfo(QStringLiteral(PARASCOPE_BIN)).absolutePath() +
                               QLatin1Char(':') + environment.value(QStringLiteral("PATH")));
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
        bash.setProcessEnvironment(environment);
        bash.setProcessChannelMode(QProcess::MergedChannels);
        bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), script});
        QVERIFY2(bash.waitForFinished(120000), "the block did not finish within two minutes");
        const QStringList out = QString::fromUtf8(bash.readAll()).split(QLatin1Char('\n'));
        const auto bare = [](const QString &line) {
            qsizetype end = line.size();
            while (end > 0 && line.at(end - 1).isSpace())
                --end;
            return line.left(end);
        };
        qsizetype at = 0;
        for (const QString &line : shown) {
            const QString wanted = bare(line);
            while (at < out.size() && bare(out.at(at)) != wanted)
                ++at;
            QVERIFY2(at < out.size(),
                     qPrintable(QStringLiteral("not in the output, in order: \"") + wanted +
                                QStringLiteral("\"\n--- output:\n") + out.join(QLatin1Char('\n'))));
            ++at;
        }
    }

    void presetsCommand()
    {
        const ParascopeRun text = runParascope({QStringLiteral("presets")});
        QCOMPARE(text.status, 0);
        QVERIFY(text.out.contains(QStringLiteral("sn40l")));
        const ParascopeRun js = runParascope(
            {QStringLiteral("presets"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(js.status, 0);
        const QJsonObject root = QJsonDocument::fromJson(js.out.toUtf8()).object();
        QCOMPARE(root.value(QStringLiteral("models")).toArray().size(), 11);  // docs/experts.md
        QCOMPARE(root.value(QStringLiteral("devices")).toArray().size(), 20); // docs/devices.md
    }

    // docs/import.md: a Hugging Face config.json becomes a model in the presets file named,
    // beside what the file held, and `eval` then finds it.
    void importModelIntoPresets()
    {
        const QString presets = file(QStringLiteral("mine.json"),
                                     R"({"format": "parascope-presets", "version": 1,
                                         "devices": [{"id": "lab", "name": "Lab card",
                                                      "memory_gib": 16, "devices_per_node": 4}]})");
        const ParascopeRun r =
            runParascope({QStringLiteral("import"),
                          QStringLiteral(PARASCOPE_SOURCE_DIR "/tests/data/configs/huggingface/"
                                                              "mistral-7b-v0.1.json"),
                          QStringLiteral("--save-model"), presets});
        QCOMPARE(r.status, 0);
        // Mistral 7B v0.1: 32 × (4096·(4096 + 2·1024 + 4096) + 3·4096·14336 + 2·4096) + 2 ×
        // 32000·4096 + 4096 = 7,241,732,096 parameters, counted by hand from its config.json.
        QVERIFY2(r.err.contains(QStringLiteral("7,241,732,096 parameters")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("hidden_size = 4096")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("rope_theta:")), qPrintable(r.err));
        QVERIFY(r.out.isEmpty()); // a model only: no scenario
        const QJsonObject evaluated =
            json({QStringLiteral("--presets"), presets, QStringLiteral("--set"),
                  QStringLiteral("model=mistral-7b-v0.1"), QStringLiteral("--set"),
                  QStringLiteral("device=lab"), QStringLiteral("--set"), QStringLiteral("tp=4"),
                  QStringLiteral("--set"), QStringLiteral("pp=1")});
        QCOMPARE(evaluated.value(QStringLiteral("model"))
                     .toObject()
                     .value(QStringLiteral("params"))
                     .toInteger(),
                 7241732096LL);
    }

    // A refused import names the file's field and writes nothing.
    void importRefusalWritesNothing()
    {
        const QString config = file(QStringLiteral("ds.json"),
                                    R"({"train_batch_size": 100, "gradient_accumulation_steps": 4,
                                        "train_micro_batch_size_per_gpu": 3})");
        const QString out = m_dir.filePath(QStringLiteral("never.parascope.json"));
        const ParascopeRun r =
            runParascope({QStringLiteral("import"), config, QStringLiteral("--output"), out});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.startsWith(QStringLiteral("parascope: train_batch_size: 100 is not a "
                                                 "multiple of")),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
    }

    // `eval --emit` writes what `import` reads back: the layout survives the round trip.
    void emitThenImport_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QStringList>("keys"); // those the framework's file carries
        QTest::addRow("megatron")
            << "megatron"
            << QStringList{"tp=4",
                           "pp=2",
                           "dp=8",
                           "microbatches=32",
                           "microbatch_size=2",
                           "recompute=full",
                           "zero=1",
                           "schedule=interleaved",
                           "virtual_stages=2"}
            << QStringList{"tp",        "pp",   "dp",       "microbatches",   "microbatch_size",
                           "recompute", "zero", "schedule", "virtual_stages", "precision",
                           "model"};
        QTest::addRow("torchtitan")
            << "torchtitan"
            << QStringList{"tp=8", "pp=4", "dp=4", "microbatches=16", "zero=1", "recompute=op"}
            << QStringList{"tp",        "pp",   "dp",        "microbatches", "microbatch_size",
                           "recompute", "zero", "precision", "model"};
        // torchtitan's pipeline_parallel_schedule = "DualPipeV" comes back as dualpipev.
        QTest::addRow("torchtitan DualPipeV")
            << "torchtitan"
            << QStringList{"tp=8", "pp=4", "dp=4", "microbatches=8", "zero=1", "schedule=dualpipev"}
            << QStringList{"tp",   "pp",        "dp",    "microbatches", "microbatch_size",
                           "zero", "precision", "model", "schedule"};
        QTest::addRow("deepspeed") << "deepspeed"
                                   << QStringList{"tp=1",
                                                  "pp=1",
                                                  "dp=64",
                                                  "microbatches=4",
                                                  "microbatch_size=2",
                                                  "zero=3",
                                                  "model=llama-3.1-8b",
                                                  "recompute=full"}
                                   << QStringList{"dp",   "microbatches", "microbatch_size",
                                                  "zero", "precision",    "recompute"};
    }
    void emitThenImport()
    {
        QFETCH(QString, framework);
        QFETCH(QStringList, settings);
        QFETCH(QStringList, keys);
        QStringList sets;
        for (const QString &setting : std::as_const(settings))
            sets << QStringLiteral("--set") << setting;
        const QStringList profile{QStringLiteral("--set"),
                                  QStringLiteral("framework=") + framework};
        const ParascopeRun emitted = runParascope(QStringList{QStringLiteral("eval")} + profile +
                                                  sets + QStringList{"--emit", framework});
        QVERIFY2(emitted.status == 0, qPrintable(emitted.err));
        const QString config = file(QStringLiteral("emitted-") + framework, emitted.out.toUtf8());
        // The import starts from the default scenario: only the file brings the layout back
        // (DeepSpeed's config has no T or K: those come in as the base).
        QStringList base;
        if (framework == QLatin1String("deepspeed"))
            base = QStringList{"--set", "tp=1", "--set", "pp=1", "--set", "model=llama-3.1-8b"};
        const ParascopeRun imported =
            runParascope(QStringList{QStringLiteral("import"), config} + base);
        QVERIFY2(imported.status == 0, qPrintable(imported.err + emitted.out));
        const QJsonObject scenario = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        // What each key was set to, or the default scenario's value (docs/DESIGN.md §4).
        QMap<QString, QString> expected{{QStringLiteral("precision"), QStringLiteral("bf16")},
                                        {QStringLiteral("model"), QStringLiteral("llama-3.1-70b")},
                                        {QStringLiteral("microbatch_size"), QStringLiteral("1")}};
        for (const QString &setting : std::as_const(settings))
            expected.insert(setting.section(QLatin1Char('='), 0, 0),
                            setting.section(QLatin1Char('='), 1));
        for (const QString &key : std::as_const(keys)) {
            const QString got = scenario.value(key).toVariant().toString();
            QVERIFY2(got == expected.value(key),
                     qPrintable(key + QStringLiteral(" imported as '") + got +
                                QStringLiteral("', set to '") + expected.value(key) +
                                QStringLiteral("'; emitted:\n") + emitted.out));
        }
        QCOMPARE(scenario.value(QStringLiteral("framework")).toString(), framework);
    }

    // A --devices that the base's T × C × K does not divide is the command line's mistake:
    // the message names where T and K came from, and not the file.
    void importDevicesRefusedWithoutTheFile()
    {
        const QString config =
            file(QStringLiteral("zero2.json"), R"({"zero_optimization": {"stage": 2}})");
        const ParascopeRun r = runParascope(
            {QStringLiteral("import"), config, QStringLiteral("--devices"), QStringLiteral("8")});
        QCOMPARE(r.status, 2); // invalid input
        QVERIFY2(r.err.contains(QStringLiteral("devices: 8 devices are not a multiple of T × C × "
                                               "K = 8 × 1 × 4 = 32")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("--set tp=")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("(in ")), qPrintable(r.err));
    }

    void extraPresetsFile()
    {
        const QString path = file(QStringLiteral("extra.json"),
                                  R"({"format": "parascope-presets", "version": 1,
                                      "devices": [{"id": "lab", "name": "Lab card",
                                                   "memory_gib": 16, "devices_per_node": 4}]})");
        const QJsonObject r = json({QStringLiteral("--presets"), path, QStringLiteral("--set"),
                                    QStringLiteral("device=lab")});
        QCOMPARE(
            r.value(QStringLiteral("device")).toObject().value(QStringLiteral("name")).toString(),
            QStringLiteral("Lab card"));
        QCOMPARE(r.value(QStringLiteral("fits")).toBool(), false);
    }

    void helpAndVersion_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("says");
        QTest::addRow("--help") << QStringList{QStringLiteral("--help")}
                                << "Run 'parascope COMMAND --help'";
        QTest::addRow("--version") << QStringList{QStringLiteral("--version")} << "parascope 0.";
        QTest::addRow("eval --help")
            << QStringList{QStringLiteral("eval"), QStringLiteral("--help")} << "sequence_parallel";
        QTest::addRow("presets --help")
            << QStringList{QStringLiteral("presets"), QStringLiteral("--help")} << "--format";
    }
    void helpAndVersion()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, says);
        const ParascopeRun r = runParascope(arguments);
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains(says), qPrintable(r.out));
    }

    // Each command's --help names the command in its usage line and lists exactly the
    // options the command takes.
    // Each command's options, from the README's "Command line" section: the
    // program's declarations are not consulted, so an option dropped from one
    // of them shows.
    static void addCommandOptions()
    {
        QTest::addColumn<QString>("command"); // empty: the window
        QTest::addColumn<QStringList>("options");
        const QStringList standard{"help", "version"};
        QTest::addRow("the window") << QString() << QStringList{"presets"} + standard;
        QTest::addRow("eval") << "eval"
                              << QStringList{"set",    "timeline", "compare", "check",
                                             "format", "emit",     "presets"} +
                                     standard;
        QTest::addRow("import") << "import"
                                << QStringList{"set",    "base",       "id",      "devices",
                                               "output", "save-model", "dry-run", "presets"} +
                                       standard;
        QTest::addRow("plan") << "plan"
                              << QStringList{"set",          "devices",  "global-batch",
                                             "top",          "distinct", "exhaustive",
                                             "headroom-gib", "rank",     "max-cp",
                                             "max-ep",       "mode",     "tpot-ms",
                                             "emit",         "ttft-ms",  "tokens-per-s",
                                             "format",       "presets",  "hybrid-sharding",
                                             "no-offloading"} +
                                     standard;
        QTest::addRow("presets") << "presets" << QStringList{"format", "presets"} + standard;
        QTest::addRow("shard") << "shard"
                               << QStringList{"hidden",    "ffn",
                                              "tp",        "tokens",
                                              "seed",      "device",
                                              "precision", "verify",
                                              "mfu",       "inter-node-gb-per-s",
                                              "format",    "presets"} +
                                      standard;
        QTest::addRow("export") << "export"
                                << QStringList{"set",        "chart", "out",    "image",
                                               "data",       "size",  "scale",  "units",
                                               "no-caption", "date",  "presets"} +
                                       standard;
    }

    void helpListsEveryOption_data() { addCommandOptions(); }
    void helpListsEveryOption()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, options);
        const ParascopeRun r =
            runParascope(command.isEmpty() ? QStringList{QStringLiteral("--help")}
                                           : QStringList{command, QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        const QString invocation = command.isEmpty() ? QStringLiteral("parascope")
                                                     : QStringLiteral("parascope ") + command;
        QVERIFY2(
            lines.constFirst().startsWith(QStringLiteral("Usage: %1 [options]").arg(invocation)),
            qPrintable(lines.constFirst()));
        // Qt lists each option at the start of a line, two spaces in: "  -h, --help".
        static const QRegularExpression optionLine(QStringLiteral("^  (?:-\\w, )?--([a-z-]+)"));
        QStringList listed;
        for (const QString &line : lines)
            if (const auto match = optionLine.match(line); match.hasMatch())
                listed << match.captured(1);
        listed.sort();
        options.sort();
        QCOMPARE(listed, options);
    }

    // The README's synopsis of each command names every option the command takes.
    void readmeListsEveryOption_data() { addCommandOptions(); }
    void readmeListsEveryOption()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, options);
        const QString readme = QString::fromUtf8(readFile(QStringLiteral(PARASCOPE_README)));
        const QString synopsis = readme.section(QStringLiteral("## Command line"), 1)
                                     .section(QStringLiteral("```"), 1, 1);
        QVERIFY(!synopsis.isEmpty());
        // The command's lines (a line starting "parascope COMMAND" and the indented
        // lines after it) and the line of options common to all.
        const QString start = command.isEmpty() ? QStringLiteral("parascope [")
                                                : QStringLiteral("parascope %1 ").arg(command);
        QString text;
        bool inCommand = false;
        for (const QString &line : synopsis.split(QLatin1Char('\n'))) {
            if (!line.startsWith(QLatin1Char(' ')))
                inCommand = line.startsWith(start);
            if (inCommand || line.startsWith(QLatin1String("common:")))
                text += line + QLatin1Char('\n');
        }
        for (const QString &option : std::as_const(options))
            QVERIFY2(text.contains(QRegularExpression(
                         QStringLiteral("--%1(?![a-z-])").arg(QRegularExpression::escape(option)))),
                     qPrintable(QStringLiteral("--%1 missing from:\n%2").arg(option, text)));
    }

    // `parascope --help` lists every command with a line saying what it does.
    void overviewListsEveryCommand_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *command : {"eval", "plan", "presets", "import", "shard", "export"})
            QTest::addRow("%s", command) << QString::fromLatin1(command);
    }
    void overviewListsEveryCommand()
    {
        QFETCH(QString, command);
        const ParascopeRun r = runParascope({QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        const QString commands = r.out.section(QStringLiteral("\nCommands:\n"), 1);
        const QRegularExpression row(QStringLiteral("^  %1 +\\S").arg(command),
                                     QRegularExpression::MultilineOption);
        QVERIFY2(row.match(commands).hasMatch(), qPrintable(r.out));
    }

    // `eval --help` lists each scenario key with the values it takes, as the README's
    // table of keys gives them.
    void helpListsKeyValues_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("values");
        QTest::addRow("grad_precision: bf16 or fp32 only") << "grad_precision"
                                                           << "bf16 or fp32";
        QTest::addRow("mode") << "mode"
                              << "training or inference";
        QTest::addRow("schedule") << "schedule"
                                  << "gpipe, 1f1b, interleaved, zb-h1, dualpipev or dualpipe";
        QTest::addRow("recompute") << "recompute"
                                   << "none, selective, op or full";
        QTest::addRow("attention") << "attention"
                                   << "flash, flash2, flash3 or eager";
        QTest::addRow("sequence_parallel") << "sequence_parallel"
                                           << "true or false";
    }
    void helpListsKeyValues()
    {
        QFETCH(QString, key);
        QFETCH(QString, values);
        const ParascopeRun r = runParascope({QStringLiteral("eval"), QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        const QRegularExpression line(
            QStringLiteral("^  %1 .*\\(([^()]*)\\)$").arg(QRegularExpression::escape(key)),
            QRegularExpression::MultilineOption);
        const QRegularExpressionMatch match = line.match(r.out);
        QVERIFY2(match.hasMatch(), qPrintable(r.out));
        QCOMPARE(match.captured(1), values);
    }

    // With no display the window does not open: Parascope says so and how to run headless.
    void windowWithoutDisplay()
    {
        const ParascopeRun r = runParascope({});
        QCOMPARE(r.status, 1);
        QVERIFY(r.err.contains(QStringLiteral("no display")));
        QVERIFY(r.err.contains(QStringLiteral("parascope eval")));
    }

    // Issue #18 §6: scripts/run passes every command through to the binary without a
    // display (it once evaluated the default scenario for `plan`, `shard` and `export`);
    // only the bare window start needs one. --no-build runs this build's binary.
    void scriptsRunPassesCommandsThrough_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("says");
        QTest::addRow("plan --help") << QStringList{"plan", "--help"} << "Usage: parascope plan";
        QTest::addRow("shard --help") << QStringList{"shard", "--help"} << "Usage: parascope shard";
        QTest::addRow("export --help")
            << QStringList{"export", "--help"} << "Usage: parascope export";
        QTest::addRow("eval --help") << QStringList{"eval", "--help"} << "Usage: parascope eval";
        QTest::addRow("presets") << QStringList{"presets"} << "h100-sxm";
        QTest::addRow("plan") << QStringList{"plan",      "--set", "model=llama-3.1-8b",
                                             "--devices", "8",     "--global-batch",
                                             "16",        "--top", "1"}
                              << "Llama 3.1 8B on 8 × NVIDIA H100 SXM";
        QTest::addRow("--version") << QStringList{"--version"} << "parascope 0.";
        QTest::addRow("the window") << QStringList{} << "No display found";
    }
    void scriptsRunPassesCommandsThrough()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, says);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QLatin1String(name));
        env.insert(QStringLiteral("PARASCOPE_BIN"), QStringLiteral(PARASCOPE_BIN));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral("bash"),
                QStringList{QStringLiteral(PARASCOPE_SOURCE_DIR "/scripts/run"),
                            QStringLiteral("--no-build")} +
                    arguments);
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(out.contains(says), qPrintable(out));
        if (!arguments.isEmpty()) {
            QVERIFY2(!out.contains(QStringLiteral("No display found")), qPrintable(out));
        } else { // and then the default scenario, evaluated
            QVERIFY2(out.contains(QStringLiteral("Fits: ")), qPrintable(out));
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
