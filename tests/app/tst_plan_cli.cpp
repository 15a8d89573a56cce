// `parascope plan` (docs/DESIGN.md §4), run as users run it: the real binary, no display.
#include "run_parascope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <limits>

class TestPlanCli : public QObject
{
    Q_OBJECT

private:
    static QStringList plan(const QString &rest)
    {
        return parascopeCommand(QStringLiteral("plan"), rest);
    }

    static QJsonObject json(const QString &rest) { return runParascopeJson(plan(rest)); }

private Q_SLOTS:
    // docs/planner.md: 70B on 64 H100s, with the JSON fields the README lists.
    void doneWhen()
    {
        const QJsonObject r = json("--set model=llama-3.1-70b --set device=h100-sxm --devices 64 "
                                   "--global-batch 512");
        QCOMPARE(r.value("format").toString(), "parascope-plan");
        QCOMPARE(r.value("model").toString(), "llama-3.1-70b");
        QCOMPARE(r.value("device").toString(), "h100-sxm");
        QCOMPARE(r.value("devices").toInt(), 64);
        QCOMPARE(r.value("global_batch").toInt(), 512);
        QCOMPARE(r.value("pipeline_layout").toString(), "even");
        QCOMPARE(json("--set model=llama-3.1-8b --set pipeline_layout=parameters --devices 8 "
                      "--global-batch 16 --top 1")
                     .value("pipeline_layout")
                     .toString(),
                 "parameters");
        QVERIFY(r.value("evaluated").toInteger() > 0);
        QVERIFY(r.value("layouts").toInteger() >= r.value("evaluated").toInteger());
        QVERIFY(r.value("elapsed_s").toDouble() > 0);
        QVERIFY(r.value("rejected").toObject().value("activations").toInteger() > 0);
        const QJsonArray candidates = r.value("candidates").toArray();
        QCOMPARE(candidates.size(), 10); // --top defaults to 10
        double previous = 0;
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            for (const char *key :
                 {"tp", "pp", "dp", "zero", "schedule", "virtual_stages", "microbatch_size",
                  "microbatches", "recompute", "sequence_parallel", "step_time_s", "tokens_per_s",
                  "mfu_achieved", "peak_stage_bytes", "fits", "time_breakdown"})
                QVERIFY2(c.contains(QLatin1String(key)), key);
            QVERIFY(c.value("fits").toBool());
            QCOMPARE(c.value("tp").toInt() * c.value("pp").toInt() * c.value("dp").toInt(), 64);
            const double step = c.value("step_time_s").toDouble();
            QVERIFY(step >= previous);
            previous = step;
            // H100 SXM: 80 GiB.
            QVERIFY(c.value("peak_stage_bytes").toInteger() <= 80LL << 30);
        }
    }

    // Issue #18 §5: the candidates as CSV, a header with units and one row per candidate,
    // holding the JSON report's numbers exactly.
    void csvHoldsTheJsonNumbers()
    {
        const QString rest = QStringLiteral("--devices 64 --global-batch 512 --top 3");
        const ParascopeRun r = runParascope(plan(rest + QStringLiteral(" --format csv")));
        QCOMPARE(r.status, 0);
        const QStringList lines = r.out.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 3);
        const QStringList header = lines[0].split(',');
        const qsizetype tp = header.indexOf("tp");
        const qsizetype step = header.indexOf("step time (s)");
        const qsizetype peak = header.indexOf("peak stage memory (bytes)");
        QVERIFY2(tp >= 0 && step >= 0 && peak >= 0, qPrintable(lines[0]));
        const QJsonArray candidates = json(rest).value("candidates").toArray();
        QCOMPARE(candidates.size(), 3);
        for (qsizetype i = 0; i < candidates.size(); ++i) {
            const QStringList fields = lines[i + 1].split(',');
            QCOMPARE(fields.size(), header.size());
            const QJsonObject c = candidates[i].toObject();
            QCOMPARE(fields[0].toInt(), i + 1);
            QCOMPARE(fields[tp].toInt(), c.value("tp").toInt());
            QCOMPARE(fields[step].toDouble(), c.value("step_time_s").toDouble());
            QCOMPARE(fields[peak].toLongLong(), c.value("peak_stage_bytes").toInteger());
        }
        const ParascopeRun bad = runParascope(plan(rest + QStringLiteral(" --format xml")));
        QCOMPARE(bad.status, 2);
        QVERIFY(bad.err.contains("--format"));
    }

    // docs/import.md: `plan --emit` writes the fastest layout in the framework's terms, and
    // `import` reads back the layout `plan --format json` ranks first.
    void emitTheFastestLayout_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addRow("megatron") << "megatron";
        QTest::addRow("torchtitan") << "torchtitan";
    }
    void emitTheFastestLayout()
    {
        QFETCH(QString, framework);
        const QString question = QStringLiteral("--set model=llama-3.1-8b --devices 16 "
                                                "--global-batch 64 --set framework=") +
                                 framework;
        const QJsonObject best = json(question + QStringLiteral(" --top 1"))
                                     .value("candidates")
                                     .toArray()
                                     .first()
                                     .toObject();
        QVERIFY(!best.isEmpty());
        const ParascopeRun emitted =
            runParascope(plan(question + QStringLiteral(" --emit ") + framework));
        QVERIFY2(emitted.status == 0, qPrintable(emitted.err));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("emitted"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(emitted.out.toUtf8());
        file.close();
        const ParascopeRun imported = runParascope(
            {QStringLiteral("import"), path, QStringLiteral("--devices"), QStringLiteral("16")});
        QVERIFY2(imported.status == 0, qPrintable(imported.err + emitted.out));
        const QJsonObject scenario = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        for (const char *key : {"tp", "pp", "dp", "microbatch_size", "microbatches", "recompute"})
            QVERIFY2(scenario.value(QLatin1String(key)) == best.value(QLatin1String(key)),
                     qPrintable(QString::fromLatin1(key) + QStringLiteral("\n") + emitted.out));
        // A deployment has no launch arguments here.
        const ParascopeRun serving =
            runParascope(plan(QStringLiteral("--mode inference --emit megatron")));
        QCOMPARE(serving.status, 2);
        QVERIFY2(serving.err.contains(QStringLiteral("--emit: is for training")),
                 qPrintable(serving.err));
    }

    void textNamesTheBestLayout()
    {
        const ParascopeRun r = runParascope(plan("--devices 64 --global-batch 512 --top 3"));
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("Llama 3.1 70B on 64 × NVIDIA H100 SXM"));
        QVERIFY(r.out.contains("considered"));
        QVERIFY(r.out.contains("\n  1 "));
        QVERIFY(r.out.contains("\n  3 "));
        QVERIFY(!r.out.contains("\n  4 "));

        // Each line names its layout as the window does: "T=2 K=2 D=16, ZeRO 3, interleaved
        // v=4, b=1 m=32, SP", the micro-batch size b and count m as the controls call them.
        // Ten, among them full recomputation of the fewest layers that fit (recompute_layers:
        // "full recompute of 43 layers a stage").
        const QString ten = QStringLiteral("--devices 64 --global-batch 512 --top 10");
        const ParascopeRun all = runParascope(plan(ten));
        QCOMPARE(all.status, 0);
        const QJsonArray candidates = json(ten).value("candidates").toArray();
        QCOMPARE(candidates.size(), 10);
        int someLayers = 0;
        for (const QJsonValue &value : candidates) {
            const QJsonObject c = value.toObject();
            QString schedule = c.value("schedule").toString();
            if (schedule == QStringLiteral("interleaved"))
                schedule += QStringLiteral(" v=%1").arg(c.value("virtual_stages").toInt());
            QString layout = QStringLiteral("T=%1 K=%2 D=%3, ZeRO %4, %5, b=%6 m=%7")
                                 .arg(c.value("tp").toInt())
                                 .arg(c.value("pp").toInt())
                                 .arg(c.value("dp").toInt())
                                 .arg(c.value("zero").toInt())
                                 .arg(schedule)
                                 .arg(c.value("microbatch_size").toInt())
                                 .arg(c.value("microbatches").toInt());
            const int layers = c.value("recompute_layers").toInt();
            if (layers > 0) {
                QCOMPARE(c.value("recompute").toString(), QStringLiteral("full"));
                ++someLayers;
                layout += QStringLiteral(", full recompute of %1 layers a %2")
                              .arg(layers)
                              .arg(schedule.startsWith(QStringLiteral("interleaved"))
                                       ? QStringLiteral("chunk")
                                       : QStringLiteral("stage"));
            } else if (c.value("recompute").toString() != QStringLiteral("none")) {
                layout += QStringLiteral(", %1 recompute").arg(c.value("recompute").toString());
            }
            if (c.value("sequence_parallel").toBool())
                layout += QStringLiteral(", SP");
            if (c.value("ends_in_pipeline_split").toBool() && c.value("pp").toInt() > 1)
                layout += QStringLiteral(", ends counted");
            const QString line = QStringLiteral("\n%1 ").arg(c.value("rank").toInt(), 3);
            const qsizetype at = all.out.indexOf(line);
            QVERIFY(at >= 0);
            QVERIFY2(all.out.indexOf(layout + QLatin1Char('\n'), at) ==
                         all.out.indexOf(QLatin1Char('\n'), at + 1) - layout.size(),
                     qPrintable(layout));
        }
        QVERIFY(someLayers > 0);
    }

    // docs/planner.md, "Offloaded layers": Megatron-LM's Llama 3 70B on 64 GB200s fits one
    // stage only with activations offloaded; the JSON gives each layout's count and the text
    // line names it after the recomputation.
    void textNamesOffloadedLayers()
    {
        const QString rest = QStringLiteral(
            "--set model=llama-3.1-70b --set device=gb200-nvl72 --set framework=megatron "
            "--set precision=fp8 --set fp8_scaling=current --set fp8_params=true --set "
            "seq_len=8192 --devices 64 --global-batch 256 --top 5");
        const ParascopeRun text = runParascope(plan(rest));
        QCOMPARE(text.status, 0);
        const QJsonArray candidates = json(rest).value("candidates").toArray();
        QCOMPARE(candidates.size(), 5);
        int offloaded = 0;
        for (const QJsonValue &value : candidates) {
            const QJsonObject c = value.toObject();
            const int layers = c.value("offload_layers").toInt(-1);
            QVERIFY(layers >= 0);
            if (layers == 0)
                continue;
            ++offloaded;
            QCOMPARE(c.value("pp").toInt(), 1);
            QCOMPARE(c.value("recompute").toString(), QStringLiteral("none"));
            const QString line = QStringLiteral("\n%1 ").arg(c.value("rank").toInt(), 3);
            const qsizetype at = text.out.indexOf(line);
            QVERIFY(at >= 0);
            const QString row = text.out.mid(at + 1, text.out.indexOf('\n', at + 1) - at - 1);
            QVERIFY2(row.contains(QStringLiteral(", %1 layers offloaded").arg(layers)),
                     qPrintable(row));
        }
        QVERIFY(offloaded > 0);
        QCOMPARE(json(rest).value("offloading").toBool(false), true);
        // --no-offloading: no layout offloads, and the text says so.
        const QString none = rest + QStringLiteral(" --no-offloading");
        const QJsonObject off = json(none);
        QCOMPARE(off.value("offloading").toBool(true), false);
        for (const QJsonValue &value : off.value("candidates").toArray())
            QCOMPARE(value.toObject().value("offload_layers").toInt(-1), 0);
        const ParascopeRun said = runParascope(plan(none));
        QCOMPARE(said.status, 0);
        QVERIFY2(said.out.contains(QStringLiteral("Searched        no layout with activations "
                                                  "offloaded to host memory")),
                 qPrintable(said.out));
    }

    // A training step timed under 250 ms is a lower bound (evaluate's short-step warning,
    // docs/step_time.md): Llama 3.1 8B on 64 GB200s, one sequence a replica, is marked "≥" in
    // the text with a note saying why, and step_time_lower_bound in the JSON; 70B on 64 H100s
    // at 512 sequences is not.
    void shortStepsAreLowerBounds()
    {
        const QString small = QStringLiteral(
            "--set model=llama-3.1-8b --set device=gb200-nvl72 --devices 64 --global-batch 64 "
            "--top 3");
        const ParascopeRun r = runParascope(plan(small));
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains(QStringLiteral("\n  1    ≥")));
        QVERIFY(r.out.contains(QStringLiteral("≥ a lower bound")));
        for (const QJsonValue &v : json(small).value("candidates").toArray()) {
            const QJsonObject c = v.toObject();
            QCOMPARE(c.value("step_time_lower_bound").toBool(),
                     c.value("step_time_s").toDouble() < 0.25);
            QVERIFY(c.value("step_time_lower_bound").toBool());
        }
        const QString large = QStringLiteral("--devices 64 --global-batch 512 --top 3");
        QVERIFY(!runParascope(plan(large)).out.contains(QStringLiteral("≥")));
        for (const QJsonValue &v : json(large).value("candidates").toArray())
            QVERIFY(!v.toObject().value("step_time_lower_bound").toBool());
    }

    // The device's rates a time takes from an assumption are said once for the whole search
    // (evaluate's rates-assumed, docs/step_time.md, "Device data"): the Gaudi 3 preset gives no
    // FP8 or attention rate of its own, the MI355X's FP8 rate is borrowed (its preset's note
    // says from where); the H100 SXM's are measured.
    void assumedRatesAreSaid()
    {
        const QString gaudi3 = QStringLiteral("--set device=gaudi3 --set precision=fp8 "
                                              "--devices 64 --global-batch 256 --top 2");
        const ParascopeRun r = runParascope(plan(gaudi3));
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains(QStringLiteral(
            "Assumed rates   FP8 multiplies at the 16-bit multiplies' fraction of the FP8 peak (no "
            "fp8_matmul_efficiency)\n                fused attention at the 16-bit multiplies' "
            "fraction of the peak (no attention_efficiency)\n")));
        QCOMPARE(json(gaudi3).value("assumed_rates").toArray().size(), 2);
        const QString mi355x = QStringLiteral("--set device=mi355x --set precision=fp8 "
                                              "--devices 64 --global-batch 256 --top 2");
        QVERIFY(runParascope(plan(mi355x))
                    .out.contains(QStringLiteral("Assumed rates   FP8 multiplies at its BF16 "
                                                 "fraction times the ratio of the FP8 to the BF16 "
                                                 "fraction AMD measured")));
        QCOMPARE(json(mi355x).value("assumed_rates").toArray().size(), 1);
        const QString h100 =
            QStringLiteral("--set precision=fp8 --devices 64 --global-batch 256 --top 2");
        QVERIFY(!runParascope(plan(h100)).out.contains(QStringLiteral("Assumed rates")));
        QVERIFY(json(h100).value("assumed_rates").toArray().isEmpty());
        // The deployment planner says it too.
        const QString serving = QStringLiteral("--set device=gaudi3 --set precision=fp8 "
                                               "--devices 8 --mode inference --set output_len=64");
        QVERIFY(runParascope(plan(serving))
                    .out.contains(QStringLiteral("\nAssumed rates   FP8 multiplies at the 16-bit "
                                                 "multiplies' fraction")));
        QCOMPARE(json(serving).value("assumed_rates").toArray().size(), 2);
    }

    // A MoE layout whose layers' host cost is not timed is a lower bound too (evaluate's
    // moe-host warning, docs/step_time.md, "Fine-grained experts"): Qwen3
    // 30B-A3B under Megatron-LM on 16 H100s, 256 sequences, lists layouts of one micro-batch,
    // whose 48 layers add little, and of sixteen, which are marked "≥" with a note saying why,
    // and moe_host_untimed in the JSON.
    void moeHostWaitsAreLowerBounds()
    {
        const QString moe = QStringLiteral("--set framework=megatron --set model=qwen3-30b-a3b "
                                           "--set device=h100-sxm --devices 16 --global-batch 256 "
                                           "--top 8");
        const ParascopeRun r = runParascope(plan(moe));
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains(QStringLiteral("≥ a lower bound: the MoE layers' host cost")));
        int marked = 0;
        int unmarked = 0;
        for (const QJsonValue &v : json(moe).value("candidates").toArray()) {
            const QJsonObject c = v.toObject();
            const bool host = c.value("moe_host_untimed").toBool();
            QCOMPARE(c.value("step_time_lower_bound").toBool(),
                     host || c.value("step_time_s").toDouble() < 0.25);
            // With one stage, 48 layers x m micro-batches x 1.3 ms against the step: 5 % or more.
            if (c.value("pp").toInt() == 1) {
                const double low = 48 * c.value("microbatches").toInt() * 1.7e-3 /
                                   c.value("step_time_s").toDouble();
                QCOMPARE(host, low >= 0.05);
            }
            ++(host ? marked : unmarked);
        }
        QVERIFY(marked > 0 && unmarked > 0);
    }

    // FSDP2 on Hopper is a lower bound too (evaluate's fsdp-overlap warning, docs/step_time.md):
    // torchtitan's Llama 3.1 8B on 16 H100s lists ZeRO-3 layouts, marked "≥" with a note where
    // their collectives could add 5 % or more, and fsdp_overlap in the JSON only at ZeRO-3.
    void fsdpOverlapIsALowerBound()
    {
        const QString fsdp = QStringLiteral("--set framework=torchtitan --set model=llama-3.1-8b "
                                            "--set device=h100-sxm --devices 16 --global-batch 64 "
                                            "--top 12");
        const ParascopeRun r = runParascope(plan(fsdp));
        QCOMPARE(r.status, 0);
        int marked = 0;
        for (const QJsonValue &v : json(fsdp).value("candidates").toArray()) {
            const QJsonObject c = v.toObject();
            const bool overlap = c.value("fsdp_overlap").toBool();
            QVERIFY(!overlap || c.value("zero").toInt() == 3);
            QCOMPARE(c.value("step_time_lower_bound").toBool(),
                     overlap || c.value("moe_host_untimed").toBool() ||
                         c.value("step_time_s").toDouble() < 0.25);
            marked += overlap ? 1 : 0;
        }
        QVERIFY(marked > 0);
        QVERIFY(r.out.contains(QStringLiteral("≥ a lower bound: PyTorch FSDP2's published runs")));
    }

    // --distinct lists each T, K, D, schedule and micro-batch size once, fastest first.
    void distinctListsEachSplitOnce()
    {
        const QJsonObject r =
            json(QStringLiteral("--set model=llama-3.1-8b --devices 16 --global-batch 64 "
                                "--top 8 --distinct"));
        QCOMPARE(r.value("distinct").toBool(), true);
        const QJsonArray candidates = r.value("candidates").toArray();
        QCOMPARE(candidates.size(), 8);
        QSet<QString> splits;
        double previous = 0;
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            QStringList key;
            for (const char *field :
                 {"tp", "pp", "dp", "schedule", "virtual_stages", "microbatch_size"})
                key << c.value(QLatin1String(field)).toVariant().toString();
            QVERIFY2(!splits.contains(key.join(',')), qPrintable(key.join(',')));
            splits.insert(key.join(','));
            QVERIFY(c.value("step_time_s").toDouble() >= previous);
            previous = c.value("step_time_s").toDouble();
        }
        QCOMPARE(json(QStringLiteral("--set model=llama-3.1-8b --devices 16 --global-batch 64"))
                     .value("distinct")
                     .toBool(true),
                 false);
    }

    // --exhaustive evaluates every layout: the same ranking as the pruned search.
    void exhaustiveRanksTheSame()
    {
        const QString rest =
            QStringLiteral("--set model=llama-3.1-8b --devices 16 --global-batch 64");
        const QJsonObject pruned = json(rest);
        const QJsonObject all = json(rest + QStringLiteral(" --exhaustive"));
        QCOMPARE(all.value("pruned").toInt(), 0);
        QCOMPARE(
            all.value("evaluated").toInteger() +
                all.value("rejected").toObject().value("global batch smaller than D").toInteger() +
                all.value("rejected")
                    .toObject()
                    .value("global batch not divisible by D")
                    .toInteger(),
            all.value("layouts").toInteger());
        const QJsonArray a = pruned.value("candidates").toArray();
        const QJsonArray b = all.value("candidates").toArray();
        QCOMPARE(a.size(), b.size());
        for (qsizetype i = 0; i < a.size(); ++i) {
            QJsonObject x = a.at(i).toObject(), y = b.at(i).toObject();
            QCOMPARE(x.value("step_time_s").toDouble(), y.value("step_time_s").toDouble());
            QCOMPARE(x.value("tp"), y.value("tp"));
            QCOMPARE(x.value("pp"), y.value("pp"));
        }
    }

    // Rejections grouped by key and kind of problem, one example each: a global batch of 2^21
    // on one device refuses micro-batch sizes 2^17 ... 2^21 and the 2^21 micro-batches of
    // b = 1 for six different numbers, in two groups, each with the three recomputations; the
    // rest overflow memory by their largest term. (`--devices 64 --global-batch 1000000000`
    // once printed a 305 KB line.)
    void rejectionsAreGrouped()
    {
        const QString rest =
            QStringLiteral("--set model=llama-3.1-8b --set device=mi300x --set cache_outputs=false "
                           "--devices 1 --global-batch 2097152 --top 1");
        const QJsonObject r = json(rest);
        const QJsonObject rejected = r.value("rejected").toObject();
        const QJsonObject examples = r.value("rejected_examples").toObject();
        QCOMPARE(rejected.keys(), examples.keys());
        const QString tooLarge = QStringLiteral(
            "invalid microbatch_size: must be at most # (sequences per micro-batch), got #");
        QCOMPARE(rejected.value(tooLarge).toInteger(), 3 * 5); // b = 2^17 ... 2^21
        QCOMPARE(
            rejected
                .value(QStringLiteral("invalid microbatches: must be at most # (micro-batches per "
                                      "step), got #"))
                .toInteger(),
            3 * 1); // m = 2^21
        const QJsonObject example = examples.value(tooLarge).toObject();
        QCOMPARE(example.value("microbatch_size").toInt(), 1 << 17);
        QCOMPARE(example.value("microbatches").toInt(), 1 << 4);
        QCOMPARE(example.value("message").toString(),
                 QStringLiteral("microbatch_size: must be at most 65536 (sequences per "
                                "micro-batch), got 131072"));

        const ParascopeRun text = runParascope(plan(rest));
        QCOMPARE(text.status, 0);
        const QStringList lines = text.out.split(QLatin1Char('\n'));
        QVERIFY(std::any_of(lines.begin(), lines.end(), [](const QString &line) {
            return line.startsWith(QStringLiteral("Rejected "));
        }));
        // One line a group, each with its example, and none of them long.
        QCOMPARE(lines.filter(QStringLiteral("15 ") + tooLarge + QStringLiteral("; e.g. ")).size(),
                 1);
        QCOMPARE(lines.filter(QStringLiteral("; e.g. ")).size(), rejected.size());
        for (const QString &line : lines)
            QVERIFY2(line.size() < 300, qPrintable(line));
        QVERIFY(text.out.size() < 2000);
    }

    // Issue #18 §7: the count of fitting layouts is the question's, not the listing's: the same
    // for any --top, --distinct or --exhaustive.
    void fitCountIsTheQuestions_data()
    {
        QTest::addColumn<QString>("listing");
        QTest::newRow("--top 3") << "--top 3";
        QTest::newRow("--top 100") << "--top 100";
        QTest::newRow("--distinct") << "--distinct";
        QTest::newRow("--top 100 --distinct") << "--top 100 --distinct";
        QTest::newRow("--exhaustive") << "--exhaustive";
    }
    void fitCountIsTheQuestions()
    {
        QFETCH(QString, listing);
        const QString question = QStringLiteral("--set model=llama-3.1-8b --devices 16 "
                                                "--global-batch 64 ");
        const QJsonObject reference = json(question + QStringLiteral("--top 1"));
        const QJsonObject r = json(question + listing);
        QVERIFY(reference.value("feasible").toInteger() > 0);
        QCOMPARE(r.value("feasible").toInteger(), reference.value("feasible").toInteger());
        const ParascopeRun text = runParascope(plan(question + listing));
        QVERIFY2(
            text.out.contains(QStringLiteral(" %1 fit with 2 GiB free per device")
                                  .arg(QLocale(QLocale::English)
                                           .toString(reference.value("feasible").toInteger()))),
            qPrintable(text.out));
    }

    // --headroom-gib: an H100 SXM has 80 GiB; with 10 GiB left free no candidate's fullest
    // stage holds more than 70 GiB.
    void headroomOption()
    {
        const QString question =
            QStringLiteral("--set model=llama-3.1-70b --devices 16 --global-batch 32 "
                           "--set seq_len=2048 --top 50 ");
        QCOMPARE(json(question).value("headroom_gib").toDouble(), 2.0);
        const QJsonObject r = json(question + QStringLiteral("--headroom-gib 10"));
        QCOMPARE(r.value("headroom_gib").toDouble(), 10.0);
        const QJsonArray candidates = r.value("candidates").toArray();
        QVERIFY(!candidates.isEmpty());
        for (const QJsonValue &c : candidates)
            QVERIFY(c.toObject().value("peak_stage_bytes").toInteger() <= 70LL << 30);
        QVERIFY(r.value("feasible").toInteger() < json(question).value("feasible").toInteger());
    }

    // Issue #18 §7: nothing of 405B fits 64 H100s (6.49 TB of model states need 80 devices
    // at least); the text, the JSON and its layout say how many devices the smallest fitting
    // layout takes. When something fits there is no such search: null.
    void smallestDeviceCountWhenNothingFits()
    {
        const QString question =
            QStringLiteral("--set model=llama-3.1-405b --devices 64 --global-batch 512");
        const QJsonObject r = json(question);
        QCOMPARE(r.value("feasible").toInteger(), 0);
        const int smallest = r.value("smallest_fitting_devices").toInt();
        QVERIFY2(smallest >= 80, qPrintable(QString::number(smallest)));
        const QJsonObject layout = r.value("smallest_fitting_layout").toObject();
        QCOMPARE(layout.value("tp").toInt() * layout.value("pp").toInt() *
                     layout.value("dp").toInt(),
                 smallest);
        const ParascopeRun text = runParascope(plan(question));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("No layout of 64 devices fits with 2 GiB free "
                                                  "per device. The smallest device count with "
                                                  "one that does: %1 (T=%2 K=%3 D=%4,")
                                       .arg(smallest)
                                       .arg(layout.value("tp").toInt())
                                       .arg(layout.value("pp").toInt())
                                       .arg(layout.value("dp").toInt())),
                 qPrintable(text.out));
        // At that count it fits.
        const QJsonObject there = json(QStringLiteral("--set model=llama-3.1-405b --devices %1 "
                                                      "--global-batch 512")
                                           .arg(smallest));
        QVERIFY(there.value("feasible").toInteger() > 0);
        QVERIFY(there.value("smallest_fitting_devices").isNull());
    }

    // --rank cost: every candidate's device count divides N, and the list is cheapest first by
    // N × step time ÷ 3,600 per million tokens; the text shows the devices and the cost. Over
    // a 40 Gb/s network (5 GB/s a NIC) the cheapest of 8B's layouts stays in one node.
    void rankByCost()
    {
        const QString question =
            QStringLiteral("--set model=llama-3.1-8b --set inter_node_gb_per_s=5 --devices 16 "
                           "--global-batch 64 --distinct ");
        const QJsonObject r = json(question + QStringLiteral("--rank cost"));
        QCOMPARE(r.value("rank").toString(), QStringLiteral("cost"));
        double previous = 0;
        for (const QJsonValue &v : r.value("candidates").toArray()) {
            const QJsonObject c = v.toObject();
            const int n = c.value("devices").toInt();
            QCOMPARE(16 % n, 0);
            const double cost = n * c.value("step_time_s").toDouble() / 3600 / (64.0 * 4096) * 1e6;
            QVERIFY(qAbs(c.value("device_hours_per_million_tokens").toDouble() - cost) <=
                    1e-9 * cost);
            QVERIFY(cost >= previous);
            previous = cost;
        }
        const QJsonObject fastest = json(question).value("candidates").toArray()[0].toObject();
        const QJsonObject cheapest = r.value("candidates").toArray()[0].toObject();
        QVERIFY(cheapest.value("devices").toInt() < fastest.value("devices").toInt());
        const ParascopeRun text = runParascope(plan(question + QStringLiteral("--rank energy")));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("dev-h/Mtok")), qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("Ranked by       energy")));
    }

    // docs/inference.md, "Planning a deployment": the seed's 70B at INT4 (35 GB) on one 80 GB
    // GPU, as JSON with the fields the README lists, as CSV with the same numbers, and as text.
    void deploymentOnOneGpu()
    {
        const QString rest = QStringLiteral(
            "--mode inference --set model=llama-3.1-70b --set precision=int4 "
            "--set device=h100-sxm --set seq_len=1024 --set output_len=256 --devices 8 --top 4");
        const QJsonObject r = json(rest);
        QCOMPARE(r.value("format").toString(), "parascope-serving-plan");
        QCOMPARE(r.value("prompt_tokens").toInt(), 1024);
        QCOMPARE(r.value("output_tokens").toInt(), 256);
        QCOMPARE(r.value("devices").toInt(), 8);
        QVERIFY(r.value("tpot_target_s").isNull());
        const QJsonObject smallest = r.value("smallest").toObject();
        QCOMPARE(smallest.value("devices_per_replica").toInt(), 1);
        QCOMPARE(r.value("smallest_beyond_devices").toBool(), false);
        const QJsonArray candidates = r.value("candidates").toArray();
        QCOMPARE(candidates.size(), 4);
        double previous = std::numeric_limits<double>::infinity();
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            for (const char *key : {"rank",
                                    "tp",
                                    "pp",
                                    "dp",
                                    "microbatches",
                                    "microbatch_size",
                                    "batch",
                                    "devices_per_replica",
                                    "devices",
                                    "timed",
                                    "time_to_first_token_s",
                                    "time_per_output_token_s",
                                    "latency_s",
                                    "tokens_per_s_per_replica",
                                    "tokens_per_s",
                                    "tokens_per_s_per_device",
                                    "joules_per_million_tokens",
                                    "memory_bound",
                                    "peak_stage_bytes",
                                    "batch_limited_by"})
                QVERIFY2(c.contains(QLatin1String(key)), key);
            const double perDevice = c.value("tokens_per_s_per_device").toDouble();
            QVERIFY(perDevice <= previous);
            previous = perDevice;
            // Replicas fill the 8 devices.
            QCOMPARE(c.value("dp").toInt(), 8 / c.value("devices_per_replica").toInt());
            QCOMPARE(c.value("batch").toInt(),
                     c.value("microbatches").toInt() * c.value("microbatch_size").toInt());
            QVERIFY(c.value("peak_stage_bytes").toInteger() <= 80LL << 30);
        }

        const ParascopeRun csv = runParascope(plan(rest + QStringLiteral(" --format csv")));
        QCOMPARE(csv.status, 0);
        const QStringList lines = csv.out.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 4);
        const QStringList header = lines[0].split(',');
        const qsizetype tpot = header.indexOf("time per output token (s)");
        const qsizetype batch = header.indexOf("batch (sequences)");
        QVERIFY2(tpot >= 0 && batch >= 0, qPrintable(lines[0]));
        for (qsizetype i = 0; i < candidates.size(); ++i) {
            const QStringList fields = lines[i + 1].split(',');
            const QJsonObject c = candidates[i].toObject();
            QCOMPARE(fields[tpot].toDouble(), c.value("time_per_output_token_s").toDouble());
            QCOMPARE(fields[batch].toInt(), c.value("batch").toInt());
        }

        const ParascopeRun text = runParascope(plan(rest));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(
                     QStringLiteral("The smallest deployment that fits: 1 device per replica")),
                 qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("TPOT ms")));
    }

    // Targets reach the search: every candidate meets them, and a shape that cannot is
    // counted with an example.
    void deploymentTargets()
    {
        const QJsonObject r =
            json("--mode inference --set model=llama-3.1-70b --set precision=fp8 "
                 "--set seq_len=1024 --set output_len=256 --tpot-ms 20 --ttft-ms 1500 --top 100");
        QCOMPARE(r.value("tpot_target_s").toDouble(), 0.020);
        QCOMPARE(r.value("ttft_target_s").toDouble(), 1.5);
        const QJsonArray candidates = r.value("candidates").toArray();
        QVERIFY(!candidates.isEmpty());
        for (const QJsonValue &v : candidates) {
            QVERIFY(v.toObject().value("time_per_output_token_s").toDouble() <= 0.020);
            QVERIFY(v.toObject().value("time_to_first_token_s").toDouble() <= 1.5);
        }
        const QJsonObject rejected = r.value("rejected").toObject();
        QVERIFY(rejected.value("time per output token above the target").toInteger() > 0);
        QCOMPARE(
            r.value("feasible").toInteger() +
                [&rejected] {
                    qint64 n = 0;
                    for (const QJsonValue &count : rejected)
                        n += count.toInteger();
                    return n;
                }(),
            r.value("shapes").toInteger());
    }

    // docs/planner.md, "Experts and long context": every candidate names its C and E, in the
    // JSON, the CSV and the text, and T x C x K x D is the device count. Mixtral 8x7B has 8
    // experts, so E divides 8.
    void expertsAndContextColumns()
    {
        const QString rest = QStringLiteral("--set model=mixtral-8x7b --devices 64 "
                                            "--global-batch 512 --top 5");
        const QJsonArray candidates = json(rest).value("candidates").toArray();
        QCOMPARE(candidates.size(), 5);
        bool spread = false;
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            QVERIFY(c.contains("cp") && c.contains("ep"));
            QCOMPARE(c.value("tp").toInt() * c.value("cp").toInt() * c.value("pp").toInt() *
                         c.value("dp").toInt(),
                     64);
            QCOMPARE(c.value("devices").toInt(), 64);
            QCOMPARE(c.value("cp").toInt(), 1); // 4,096 tokens: C is not searched
            QCOMPARE(8 % c.value("ep").toInt(), 0);
            spread |= c.value("ep").toInt() > 1;
        }
        QVERIFY(spread);

        const ParascopeRun csv = runParascope(plan(rest + QStringLiteral(" --format csv")));
        QCOMPARE(csv.status, 0);
        const QStringList lines = csv.out.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 5);
        const QStringList header = lines[0].split(',');
        const qsizetype cp = header.indexOf("cp");
        const qsizetype ep = header.indexOf("ep");
        QVERIFY2(cp >= 0 && ep >= 0, qPrintable(lines[0]));
        for (qsizetype i = 0; i < candidates.size(); ++i) {
            const QStringList fields = lines[i + 1].split(',');
            QCOMPARE(fields[cp].toInt(), candidates[i].toObject().value("cp").toInt());
            QCOMPARE(fields[ep].toInt(), candidates[i].toObject().value("ep").toInt());
        }

        // The text names E where it is above 1, after D: "T=1 K=1 D=64 E=8, ZeRO 2, …".
        const ParascopeRun text = runParascope(plan(rest));
        QCOMPARE(text.status, 0);
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            if (c.value("ep").toInt() > 1)
                QVERIFY2(text.out.contains(QStringLiteral("K=%1 D=%2 E=%3,")
                                               .arg(c.value("pp").toInt())
                                               .arg(c.value("dp").toInt())
                                               .arg(c.value("ep").toInt())),
                         qPrintable(text.out));
        }
    }

    // --max-cp bounds C: at 131,072 tokens the search splits sequences (C > 1 among the
    // candidates, each C a power of two whose 2C chunks split them), not beyond the bound, and
    // not at all with --max-cp 1.
    void maxCpBoundsTheSearch_data()
    {
        QTest::addColumn<QString>("bound");
        QTest::addColumn<int>("most");
        QTest::newRow("default, 16") << QString() << 16;
        QTest::newRow("--max-cp 4") << "--max-cp 4" << 4;
        QTest::newRow("--max-cp 1") << "--max-cp 1" << 1;
    }
    void maxCpBoundsTheSearch()
    {
        QFETCH(QString, bound);
        QFETCH(int, most);
        const QString rest =
            QStringLiteral("--set model=llama-3.1-8b --set seq_len=131072 --devices 64 "
                           "--global-batch 64 --top 20 ") +
            bound;
        const QJsonArray candidates = json(rest).value("candidates").toArray();
        QVERIFY(!candidates.isEmpty());
        int largest = 0;
        for (const QJsonValue &v : candidates) {
            const QJsonObject c = v.toObject();
            const int cp = c.value("cp").toInt();
            QVERIFY(cp >= 1 && cp <= most);
            QCOMPARE(131072 % (2 * cp), 0);
            QCOMPARE(c.value("devices").toInt(), 64);
            largest = std::max(largest, cp);
        }
        QCOMPARE(largest > 1, most > 1);
        const ParascopeRun text = runParascope(plan(rest));
        QCOMPARE(text.status, 0);
        QCOMPARE(text.out.contains(QStringLiteral(" C=")), most > 1);
    }

    // docs/DESIGN.md §4: invalid input exits 2 with one line naming the key.
    void invalidInput_data()
    {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no devices") << "--global-batch 8"
                                    << "--devices: required";
        QTest::newRow("no batch") << "--devices 8"
                                  << "--global-batch: required";
        QTest::newRow("zero devices") << "--devices 0 --global-batch 8"
                                      << "--devices: expected";
        QTest::newRow("batch not a number") << "--devices 8 --global-batch many"
                                            << "--global-batch: expected";
        QTest::newRow("top 0") << "--devices 8 --global-batch 8 --top 0"
                               << "--top: expected";
        QTest::newRow("format") << "--devices 8 --global-batch 8 --format xml"
                                << "--format";
        QTest::newRow("unknown model") << "--devices 8 --global-batch 8 --set model=llama-9"
                                       << "model:";
        QTest::newRow("missing file")
            << "/nonexistent/plan.parascope.json --devices 8 --global-batch 8"
            << "nonexistent";
        QTest::newRow("device without the precision")
            << "--devices 8 --global-batch 8 --set device=sn30"
            << "device:";
        // README, "Limits": N up to 2^20, as in the window; 2^30 to 2^31 - 1 once crashed.
        QTest::newRow("2^20 + 1 devices") << "--devices 1048577 --global-batch 2048"
                                          << "--devices: expected a whole number from 1 to 1048576";
        QTest::newRow("2^30 devices (was SIGFPE)")
            << "--devices 1073741824 --global-batch 2048"
            << "--devices: expected a whole number from 1 to 1048576, got '1073741824'";
        QTest::newRow("negative headroom") << "--devices 8 --global-batch 8 --headroom-gib -1"
                                           << "--headroom-gib: expected GiB from 0 to";
        QTest::newRow("headroom not a number")
            << "--devices 8 --global-batch 8 --headroom-gib lots"
            << "--headroom-gib: expected GiB from 0 to 1048576, got 'lots'";
        QTest::newRow("headroom NaN") << "--devices 8 --global-batch 8 --headroom-gib nan"
                                      << "--headroom-gib: expected";
        QTest::newRow("rank") << "--devices 8 --global-batch 8 --rank speed"
                              << "--rank: expected time, cost or energy, got 'speed'";
        QTest::newRow("inference, nothing generated")
            << "--mode inference --set output_len=0"
            << "output_len: the deployment planner ranks by output tokens";
        QTest::newRow("inference, zero TPOT") << "--mode inference --set output_len=8 --tpot-ms 0"
                                              << "--tpot-ms: expected a positive number";
        QTest::newRow("inference, TTFT not a number")
            << "--mode inference --set output_len=8 --ttft-ms soon"
            << "--ttft-ms: expected a positive number of milliseconds, got 'soon'";
        QTest::newRow("inference, global batch")
            << "--mode inference --set output_len=8 --global-batch 8"
            << "--global-batch: is for training";
        QTest::newRow("training, TPOT target") << "--devices 8 --global-batch 8 --tpot-ms 20"
                                               << "--tpot-ms: is for inference";
        QTest::newRow("mode") << "--mode serving"
                              << "--mode: expected training or inference, got 'serving'";
        QTest::newRow("inference, headroom NaN")
            << "--mode inference --set output_len=8 --headroom-gib nan"
            << "--headroom-gib: expected";
        QTest::newRow("--max-cp 0") << "--devices 8 --global-batch 8 --max-cp 0"
                                    << "--max-cp: expected a whole number from 1 to 4096, got '0'";
        QTest::newRow("--max-cp beyond the limit")
            << "--devices 8 --global-batch 8 --max-cp 4097"
            << "--max-cp: expected a whole number from 1 to 4096";
        QTest::newRow("--max-ep not a number")
            << "--devices 8 --global-batch 8 --max-ep all"
            << "--max-ep: expected a whole number from 1 to 16384, got 'all'";
        QTest::newRow("inference, --max-cp") << "--mode inference --set output_len=8 --max-cp 2"
                                             << "--max-cp: is for training";
        QTest::newRow("2^31 - 1 devices (was SIGFPE)")
            << "--devices 2147483647 --global-batch 2048"
            << "--devices: expected a whole number from 1 to 1048576, got '2147483647'";
    }
    void invalidInput()
    {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        const ParascopeRun r = runParascope(plan(arguments));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestPlanCli)
#include "tst_plan_cli.moc"
