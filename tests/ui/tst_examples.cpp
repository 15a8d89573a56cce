// Every Examples-menu entry loads and shows the number it teaches, as
// docs/worked-examples.md gives it.
#include "core/evaluate.h"
#include "core/units.h"
#include "io/examples_io.h"
#include "io/presets_io.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/chart_pages.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "widget_helpers.h"

#include <QDoubleSpinBox>
#include <QLabel>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>
#include <cmath>

using namespace ui;

class TestExamples : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyExampleIsInTheMenu()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QMenu *menu = menuTitled(window, "E&xamples");
        QVERIFY(menu);
        QCOMPARE(menu->actions().size(), io::builtinExamples().size());
        QVERIFY(io::builtinExamples().size() >= 12);
    }

    // An example's "chart" (resources/examples/examples.json) is the id of a chart page, and
    // loading the example brings that page to the front.
    void everyExampleNamesAChart()
    {
        const QStringList ids = chartPageIds();
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const io::Example &e : io::builtinExamples()) {
            QVERIFY2(ids.contains(e.chart), qPrintable(e.id + ": " + e.chart));
            window.loadExample(e.id);
            QCOMPARE(window.currentPage()->id(), e.chart);
        }
    }

    void teaches_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("chart");
        QTest::addRow("docs/worked-examples.md §4: K=4, m=16 → 15.8 %%") << "bubble-k4-m16"
                                                                         << "bubble";
        QTest::addRow("docs/worked-examples.md §4: K=4, m=4 → 42.9 %%") << "bubble-k4-m4"
                                                                        << "bubble";
        QTest::addRow("docs/worked-examples.md §2: 70B FP16 does not fit 80 GB") << "70b-one-device"
                                                                                 << "memory";
        QTest::addRow("docs/worked-examples.md §2: 70B FP16, T=4 → 35 GB each") << "70b-t4"
                                                                                << "memory";
        QTest::addRow("docs/worked-examples.md §5: 8B DP2-PP2, m=2") << "8b-dp2-pp2-m2"
                                                                     << "memory";
        QTest::addRow("docs/worked-examples.md §5: 8B DP2-PP2, m=16") << "8b-dp2-pp2-m16"
                                                                      << "memory";
        QTest::addRow("pytorch#165822: outputs not cached") << "8b-dp2-pp2-no-cache"
                                                            << "memory";
        QTest::addRow("docs/worked-examples.md §6: rows→rows vs columns→rows") << "ffn-split"
                                                                               << "sharding";
        QTest::addRow("docs/worked-examples.md §3: 405B FP16 on 16 SN40L") << "405b-sn40l-fp16"
                                                                           << "model-size";
        QTest::addRow("docs/worked-examples.md §3: 405B FP8 on 8 SN40L") << "405b-sn40l-fp8"
                                                                         << "model-size";
        QTest::addRow("docs/worked-examples.md §3: 405B INT4 on 4 SN40L") << "405b-sn40l-int4"
                                                                          << "model-size";
        QTest::addRow("docs/worked-examples.md §8: 70B, T=4, D=4 → 16 devices") << "70b-t4-d4"
                                                                                << "memory";
        QTest::addRow("DeepSeek-V3 Technical Report: PP16, EP64, 2,048 H800s") << "deepseek-v3-h800"
                                                                               << "step-time";
        QTest::addRow("Megatron-Bridge: DeepSeek-V3 on 256 GB300s") << "deepseek-v3-gb300-bridge"
                                                                    << "memory";
        QTest::addRow("Megatron-Bridge 26.08: DeepSeek-V3 under one CUDA graph")
            << "deepseek-v3-gb300-full-iteration"
            << "step-time";
        QTest::addRow("MLPerf v6.0: DeepSeek-V3 with routing as trained")
            << "deepseek-v3-gb300-routing"
            << "step-time";
        QTest::addRow("Megatron-Bridge 26.06: Llama 3 70B fine-tuned on packed examples")
            << "llama-70b-sft-h100-packed"
            << "step-time";
        QTest::addRow("Megatron-Bridge 26.06: Llama 3 70B fine-tuned with LoRA")
            << "llama-70b-lora-h100"
            << "memory";
        QTest::addRow("MLPerf v5.1: LoRA on 8 MI300X, 21 layers recomputed")
            << "llama-2-70b-lora-mi300x"
            << "step-time";
        QTest::addRow("PyTorch FSDP blog: hybrid sharding on 128 A100s") << "llama-8b-hsdp-a100"
                                                                         << "step-time";
        QTest::addRow("torchtitan's H100 benchmark: the loss's own memory")
            << "llama-8b-torchtitan-loss-h100"
            << "memory";
        QTest::addRow("Transformer Engine: FP8's cast weights") << "llama-70b-fp8-cast-weights-h100"
                                                                << "memory";
        QTest::addRow("Megatron-Bridge 26.04.01: activations offloaded on 64 GB200s")
            << "llama-70b-fsdp-offload-gb200"
            << "memory";
    }
    void teaches()
    {
        QFETCH(QString, id);
        QFETCH(QString, chart);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.loadExample(id);
        document.flush();
        QTRY_VERIFY(document.report().ok());
        QCOMPARE(document.undoStack()->count(), 1); // loading an example can be undone
        QVERIFY(window.exampleText()->isVisible());
        QVERIFY(!window.exampleText()->text().isEmpty());
        const QString verdict = window.verdict()->text();
        const auto memory = [&window](const char *term) {
            return window.chart<StageMemoryChart>()->values(QString::fromLatin1(term));
        };
        const double perMicrobatch =
            4096.0 * 128256 * 2 / 1e9; // 1.050673152 GB, docs/DESIGN.md §3.3

        if (chart == "bubble") {
            QCOMPARE(window.charts()->currentWidget(), window.chart<BubbleChart>());
            const QString expected = id.endsWith("m16") ? "15.8 % at m = 16" : "42.9 % at m = 4";
            // The closed form first; the simulation, with the end stages and sends, beside it.
            QTRY_VERIFY2(window.chart<BubbleChart>()->markerLabel().startsWith(expected),
                         qPrintable(window.chart<BubbleChart>()->markerLabel()));
        } else if (id == "deepseek-v3-h800") {
            // 16 × 128 devices; every device holds 256 / 64 = 4 experts of 3 × 7,168 × 2,048
            // in each MoE layer. Under DualPipe device i holds stages i and 15 - i of the
            // 61 layers split 4 × 13 then 3 × 3: device 0 layers 0-3 (one MoE, the first three
            // are dense) and 58-60, four MoE layers; device 1 layers 4-7 and 55-57, seven
            // (docs/experts.md).
            QVERIFY2(verdict.contains("2048 devices") && verdict.contains("E=64") &&
                         verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            const qint64 experts = qint64(4) * 3 * 7168 * 2048;
            QCOMPARE(r.stages[0].expertParams, 4 * experts);
            QCOMPARE(r.stages[1].expertParams, 7 * experts);
            QVERIFY(r.stepTime && r.stepTime->breakdown[core::TimePart::expertComm] > 0);
        } else if (id == "deepseek-v3-gb300-bridge") {
            // The layout's 16 chunks, chunk j = c·K + s on stage s: stage 0 holds chunks 0, 2,
            // …, 14 (4 layers each, the first with the embedding), 32 layers; stage 1 chunks 1,
            // 3, …, 15, 7 × 4 + 1 = 29 layers, the last chunk's beside the MTP layer and the loss.
            QVERIFY2(verdict.contains("256 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            QCOMPARE(r.stages[0].layers, 32);
            QCOMPARE(r.stages[1].layers, 29);
            QCOMPARE(r.stages[0].mtpLayers, 0);
            QCOMPARE(r.stages[1].mtpLayers, 1);
            QVERIFY(!r.hasWarning("recompute-modules-unused"));
        } else if (id == "llama-70b-sft-h100-packed") {
            // Examples of 512 tokens in 4,096-token sequences: 256 keys a query, not 2,048, an
            // eighth of the whole sequence's attention FLOPs (docs/step_time.md, "Packed
            // examples").
            QVERIFY2(verdict.contains("32 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            core::Scenario whole = document.scenario();
            whole.packedExampleTokens = 0;
            const core::Report unpacked = core::evaluate(whole, document.presets());
            const auto attention = [](const core::Report &report) {
                for (const core::LayerOp &op : report.layerOps)
                    if (op.key == "attention")
                        return op.forward.flops;
                return 0.0;
            };
            QVERIFY(attention(r) > 0);
            QCOMPARE(attention(r) * 8, attention(unpacked));
            QVERIFY(r.stepTime && unpacked.stepTime &&
                    r.stepTime->stepTimeS < unpacked.stepTime->stepTimeS);
            QVERIFY(!r.hasWarning("packed-unused"));
        } else if (id == "llama-8b-hsdp-a100") {
            // ZeRO-3 over a node's 8 GPUs: 12 bytes of Adam's states a parameter (Rajbhandari et
            // al. 2020, §3.1) over 8, not 128; each GPU's BF16 gradient shard, 2 × 8.03e9 / 8
            // bytes, all-reduced over the 16 nodes, 2 × 15/16 of it (Patarasuk & Yuan 2009, §3),
            // on one NIC of 6.25 GB/s at 0.9 (docs/step_time.md, "Hybrid sharding").
            QVERIFY2(verdict.contains("128 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            const double params = 8'030'261'248.0;
            QCOMPARE(r.stages[0].optimizerBytes, std::int64_t(12 * params / 8));
            QVERIFY(r.stepTime);
            QCOMPARE(r.stepTime->dpReplicas, 16);
            QCOMPARE(r.stepTime->dpReplicaBytesPerStep,
                     std::int64_t(2 * 15.0 / 16 * 2 * params / 8));
            QVERIFY(qAbs(r.stepTime->dpReplicaBusGbPerS - 6.25 * 0.9) < 1e-9);
            QCOMPARE(QString::fromStdString(r.stepTime->dpLink), QStringLiteral("intra-node"));
            // Sharded over all 128 the states are 16 times smaller and the gathers cross nodes.
            core::Scenario full = document.scenario();
            full.zeroReplicas = 1;
            const core::Report all = core::evaluate(full, document.presets());
            QVERIFY(all.stepTime);
            QCOMPARE(all.stages[0].optimizerBytes, std::int64_t(12 * params / 128));
            QCOMPARE(QString::fromStdString(all.stepTime->dpLink), QStringLiteral("inter-node"));
        } else if (id == "llama-8b-torchtitan-loss-h100") {
            // 2 × 8,192 × 128,256 logits (docs/activations.md, "The loss"): the eager loss's
            // 12 bytes a logit, 10 beyond the cached logits' 2; the warning's setting compiles
            // it, which keeps their gradient alone, 2.
            QVERIFY2(verdict.contains("8 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            const qint64 logits = 2LL * 8192 * 128256;
            QCOMPARE(r.stages[0].cachedOutputsBytes, 2 * logits);
            QCOMPARE(r.stages[0].lossBytes, 10 * logits);
            QVERIFY(r.hasWarning("loss-buffers"));
            QCOMPARE(memory("Loss buffers").value(0), 10 * logits / 1e9);
            core::Scenario compiled = document.scenario();
            compiled.fusedElementwise = true;
            const core::Report after = core::evaluate(compiled, document.presets());
            QCOMPARE(after.stages[0].lossBytes, 2 * logits);
            QVERIFY(!after.hasWarning("loss-buffers"));
        } else if (id == "llama-70b-fp8-cast-weights-h100") {
            // Llama 3.1 70B's layer at T = 8: (8192·(8192 + 2·1024) + 8192·8192 +
            // 3·8192·28672) / 8 + 2·8192 = 106,971,136 parameters; stage 0's 20 layers keep
            // their FP8 data and transpose, 2 bytes each; FP8 weights, their transposes alone
            // (1); without the cache each of 1F1B's K - 0 = 4 micro-batches in flight its own
            // copy among the activations (docs/activations.md, "Cast weights").
            QVERIFY2(verdict.contains("64 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const qint64 params = 20LL * 106'971'136;
            const core::Report &r = document.report();
            QCOMPARE(r.stages[0].castWeightsBytes, 2 * params);
            QCOMPARE(memory("Cast weights").value(0), 2 * params / 1e9);
            core::Scenario held = document.scenario();
            held.fp8Params = true;
            const core::Report fp8 = core::evaluate(held, document.presets());
            QCOMPARE(fp8.stages[0].castWeightsBytes, params);
            // FP8 weights are the layers'; the embedding, 128,256 / 8 × 8,192, stays in BF16.
            QCOMPARE(fp8.stages[0].weightsBytes, params + 2 * 16'032LL * 8192);
            core::Scenario uncached = document.scenario();
            uncached.fp8WeightCache = false;
            const core::Report off = core::evaluate(uncached, document.presets());
            QCOMPARE(off.stages[0].castWeightsBytes, 0LL);
            QCOMPARE(off.stages[0].activationsBytes - r.stages[0].activationsBytes, 4 * 2 * params);
        } else if (id == "llama-2-70b-lora-mi300x") {
            // The block method reruns 21 of the stage's 80 layers: 21/80 of what rerunning
            // every layer takes, and the 59 others keep everything (docs/activations.md).
            QVERIFY2(verdict.contains("8 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            core::Scenario every = document.scenario();
            every.recomputeLayers = 0;
            const core::Report all = core::evaluate(every, document.presets());
            QVERIFY(r.stepTime && all.stepTime);
            QVERIFY(qAbs(r.stepTime->stages[0][core::TimePart::recompute] -
                         all.stepTime->stages[0][core::TimePart::recompute] * 21 / 80) < 1e-9);
            QVERIFY(r.stages[0].activationsBytes > all.stages[0].activationsBytes);
            QVERIFY(!r.hasWarning("recompute-layers-unused"));
        } else if (id == "llama-70b-lora-h100") {
            // Rank-16 adapters beside QKV: 16 · (8,192 + 10,240) = 294,912 parameters a layer,
            // split over T = 2, 20 layers a stage; only they have gradients and Adam's states
            // (docs/step_time.md, "LoRA"). Trained in full, no stage fits its 80 GB.
            QVERIFY2(verdict.contains("8 devices") && verdict.contains("Fits"),
                     qPrintable(verdict));
            const core::Report &r = document.report();
            for (const core::StageReport &stage : r.stages)
                QCOMPARE(stage.trainableParams, std::int64_t{20 * 294'912 / 2});
            core::Scenario full = document.scenario();
            full.loraRank = 0;
            const core::Report trained = core::evaluate(full, document.presets());
            QVERIFY(trained.ok() && !trained.fits);
            QVERIFY(!r.hasWarning("lora-unused"));
        } else if (id == "deepseek-v3-gb300-full-iteration") {
            // The last stage's LM head, 4,096 tokens × 129,280 × 7,168, in FP8 with its casts;
            // nothing waits on the host under the graph, and the stage with the MTP layer and
            // the second head is the busiest.
            const core::Report &r = document.report();
            QVERIFY(r.stepTime);
            QVERIFY(!r.hasWarning("moe-host"));
            QVERIFY(!r.hasWarning("fp8-lm-head-unused"));
            const auto head =
                std::find_if(r.endOps.begin(), r.endOps.end(),
                             [](const core::LayerOp &o) { return o.key == "lm_head"; });
            QVERIFY(head != r.endOps.end());
            QCOMPARE(head->forward.flops, 2.0 * 4096 * 129280 * 7168);
            QVERIFY(std::any_of(r.endOps.begin(), r.endOps.end(),
                                [](const core::LayerOp &o) { return o.key == "fp8_cast"; }));
            QCOMPARE(r.stepTime->busiestStage, 1);
            QCOMPARE(window.currentPage()->id(), "step-time");
        } else if (id == "deepseek-v3-gb300-routing") {
            // docs/experts.md, "Routing imbalance": the busiest of the 32 expert ranks at 1.2
            // times its share (below its bound of 32 and uncapped: dropless) lengthens the
            // step against the same step balanced, and the control says so.
            const core::Report &r = document.report();
            QVERIFY(r.stepTime);
            QCOMPARE(r.expertLoad, 1.2);
            QVERIFY(!r.hasWarning("expert-rank-load-capped"));
            QVERIFY(!r.hasWarning("tokens-dropped"));
            core::Scenario even = document.scenario();
            even.expertRankLoad = 1;
            const core::Report balanced = core::evaluate(even, document.presets());
            QVERIFY(balanced.ok() && balanced.stepTime);
            QVERIFY(r.stepTime->stepTimeS > balanced.stepTime->stepTimeS);
            const auto *load =
                qobject_cast<QDoubleSpinBox *>(window.controls()->control("expert_rank_load"));
            QVERIFY(load && load->isEnabled());
            QCOMPARE(load->value(), 1.2);
            QCOMPARE(window.currentPage()->id(), "step-time");
        } else if (id == "llama-70b-fsdp-offload-gb200") {
            // docs/activations.md, "Offloaded layers": 40 of 80 layers offloaded keep 40 sets
            // on the device, which then fits; none offloaded does not fit; 79 waits for the
            // copies and overflows the host's 240 GB a GPU, where 63 does not. The control
            // holds the count.
            const core::Report &r = document.report();
            QVERIFY(r.fits && r.stepTime);
            QCOMPARE(r.stages[0].offloadedLayers, 40);
            QCOMPARE(r.stages[0].offloadedBytes, r.stages[0].activationsBytes);
            QCOMPARE(r.stepTime->stages[0][core::TimePart::offload], 0.0);
            core::Scenario none = document.scenario();
            none.offloadLayers = 0;
            const core::Report all = core::evaluate(none, document.presets());
            QVERIFY(all.ok() && !all.fits);
            QCOMPARE(all.stages[0].activationsBytes, 2 * r.stages[0].activationsBytes);
            core::Scenario most = document.scenario();
            most.offloadLayers = 79;
            const core::Report serial = core::evaluate(most, document.presets());
            QVERIFY(serial.ok() && serial.stepTime);
            QVERIFY(serial.stepTime->stages[0][core::TimePart::offload] > 1.7);
            QVERIFY(!serial.fits && serial.stages[0].hostOverflow);
            QCOMPARE(serial.stages[0].hostCapacityBytes, qint64{240'000'000'000});
            core::Scenario hostFull = document.scenario();
            hostFull.offloadLayers = 63;
            QVERIFY(core::evaluate(hostFull, document.presets()).fits);
            const auto *layers =
                qobject_cast<QDoubleSpinBox *>(window.controls()->control("offload_layers"));
            QVERIFY(layers && layers->isEnabled());
            QCOMPARE(layers->value(), 40.0);
            QCOMPARE(window.currentPage()->id(), "memory");
        } else if (id == "70b-one-device") {
            QVERIFY(verdict.contains("Does not fit"));
            QCOMPARE(memory("Weights")[0], 2 * 70'553'706'496.0 / 1e9); // 141.1 GB
        } else if (id == "70b-t4") {
            QVERIFY(verdict.contains("Fits"));
            QCOMPARE(qRound(memory("Weights")[0]), 35);
        } else if (id == "8b-dp2-pp2-m2") {
            QCOMPARE(memory("Cached outputs")[1], 2 * perMicrobatch);
            QCOMPARE(memory("Cached outputs")[0], 0.0);
        } else if (id == "8b-dp2-pp2-m16") {
            QCOMPARE(memory("Cached outputs")[1], 16 * perMicrobatch);
            QCOMPARE(memory("Cached outputs")[0], 0.0);
        } else if (id == "8b-dp2-pp2-no-cache") {
            QCOMPARE(memory("Cached outputs")[1], 0.0);
        } else if (id == "ffn-split") {
            QCOMPARE(window.charts()->currentWidget(), window.chart<ShardingChart>());
            QTRY_COMPARE(window.chart<ShardingChart>()->categories().size(), 4);
            // T = 4, BF16, 4096 tokens: a ring all-reduce sends 2(T−1)/T of its payload.
            const double tokensH = 4096.0 * 8192 * 2 * 1.5 / 1e6;  // 100.663296 MB
            const double tokensF = 4096.0 * 32768 * 2 * 1.5 / 1e6; // 402.653184 MB
            const QStringList names = window.chart<ShardingChart>()->categories();
            const QList<qreal> allReduce = window.chart<ShardingChart>()->values("all-reduce");
            QCOMPARE(allReduce[names.indexOf("columns → rows")], tokensH);
            QCOMPARE(allReduce[names.indexOf("rows → rows")], tokensH + tokensF);
        } else if (id.startsWith("405b-sn40l")) {
            QCOMPARE(window.charts()->currentWidget(), window.chart<ModelSizeChart>());
            const int devices = id.endsWith("fp16") ? 16 : id.endsWith("fp8") ? 8 : 4;
            QVERIFY(verdict.startsWith(QString::number(devices) + " devices"));
            QVERIFY(verdict.contains("Fits"));
            // The T devices together hold what one cannot: T × 64 GiB.
            QCOMPARE(window.chart<ModelSizeChart>()->groupCapacityGb(),
                     devices * 64.0 * core::kGiB / core::kGB);
        } else if (id == "70b-t4-d4") {
            QVERIFY(verdict.startsWith("16 devices"));
        } else {
            QFAIL("an example without a check");
        }
    }

    // An explanation that quotes what Parascope models ("Parascope models [the step at X s,]
    // N tokens/s a GPU") quotes the scenario's own evaluation, rounded as written: a change to
    // the model or a preset that moves the figure fails here until the text follows.
    void quotedModelFiguresMatch()
    {
        static const QRegularExpression quoted(QStringLiteral(
            "Parascope models (?:the step at ([0-9.]+) s, )?([0-9,]+) tokens/s a GPU"));
        int checked = 0;
        for (const io::Example &e : io::builtinExamples()) {
            const QRegularExpressionMatch m = quoted.match(e.explanation);
            if (!m.hasMatch())
                continue;
            const core::Report r = core::evaluate(e.scenario, io::builtinPresets());
            QVERIFY2(r.ok() && r.stepTime, qPrintable(e.id));
            const double perGpu = r.stepTime->tokensPerS / e.scenario.devices();
            QString tokens = m.captured(2);
            tokens.remove(QLatin1Char(','));
            QVERIFY2(std::abs(tokens.toDouble() - perGpu) < 0.5,
                     qPrintable(e.id + ": quotes " + m.captured(2) + ", models " +
                                QString::number(perGpu, 'f', 1)));
            if (!m.captured(1).isEmpty())
                QVERIFY2(std::abs(m.captured(1).toDouble() - r.stepTime->stepTimeS) < 0.05,
                         qPrintable(e.id + ": quotes " + m.captured(1) + " s, models " +
                                    QString::number(r.stepTime->stepTimeS, 'f', 2)));
            ++checked;
        }
        QVERIFY(checked >= 4); // the three DeepSeek-V3 GB300 examples and the offloading one
    }
};

QTEST_MAIN(TestExamples)
#include "tst_examples.moc"
