// pipeline_layout: Megatron-LM's --pipeline-model-parallel-layout (megatron/core/transformer/
// pipeline_parallel_layer_layout.py), read as Megatron-core reads it and checked as it checks
// it (docs/DESIGN.md §3.3).
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/pipeline_layout.h"
#include "core/planner.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <map>

using namespace core;

namespace {

// A stage as "E4" (embedding and four layers), "1m1L" (a layer, an MTP layer, the loss), "0".
QString describe(const std::vector<LayoutStage> &stages)
{
    QStringList out;
    for (const LayoutStage &s : stages)
        out << QStringLiteral("%1%2%3%4")
                   .arg(s.embedding ? QStringLiteral("E") : QString())
                   .arg(s.decoders)
                   .arg(s.mtp > 0 ? QStringLiteral("m%1").arg(s.mtp) : QString())
                   .arg(s.loss ? QStringLiteral("L") : QString());
    return out.join(u'|');
}

QString repeated(const QString &stage, int n)
{
    QStringList out;
    for (int i = 0; i < n; ++i)
        out << stage;
    return out.join(u'|');
}

} // namespace

class TestPipelineLayout : public QObject
{
    Q_OBJECT

private:
    const Presets m_presets = io::builtinPresets();

private Q_SLOTS:
    // Each row's layout as parse_str_to_list reads it: commas dropped, (…)*n then x*n
    // unrolled, a stage per "|".
    void parses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("stages");
        QTest::addRow("parse_str_to_list's docstring") << "Ettt|(tt|)*29,m|L"
                                                       << "E3|" + repeated("2", 29) + "|0m1|0L";
        QTest::addRow("arguments.py's help: empty stages and MTP alone") << "E|(t|)*3,m|m||L"
                                                                         << "E0|1|1|1|0m1|0m1|0|0L";
        // Megatron-Bridge, recipes/deepseek/h100/deepseek_v3.py, the (16, 1) layout.
        QTest::addRow("DeepSeek-V3 on 16 stages") << "Et*4|(t*4|)*14,tmL"
                                                  << "E4|" + repeated("4", 14) + "|1m1L";
        QTest::addRow("a group inside a stage") << "E(tt)*2|t*3L"
                                                << "E4|3L";
    }
    void parses()
    {
        QFETCH(QString, text);
        QFETCH(QString, stages);
        const auto parsed = parsePipelineLayout(text.toStdString());
        const std::string *why = std::get_if<std::string>(&parsed);
        QVERIFY2(!why, why ? why->c_str() : "");
        const auto &layout = std::get<std::vector<LayoutStage>>(parsed);
        QCOMPARE(describe(layout), stages);
        // Written back in the same syntax, it reads as the same layout.
        const std::string written = pipelineLayoutText(layout);
        const auto again = parsePipelineLayout(written);
        QVERIFY2(std::holds_alternative<std::vector<LayoutStage>>(again), written.c_str());
        QCOMPARE(describe(std::get<std::vector<LayoutStage>>(again)), stages);
    }

    void writesMegatronsSyntax()
    {
        QCOMPARE(QString::fromStdString(pipelineLayoutText(layoutOfCounts({4, 4, 4, 1}))),
                 QStringLiteral("Et*4|(t*4|)*2,tL"));
        QCOMPARE(QString::fromStdString(pipelineLayoutText(layoutOfCounts({8}))),
                 QStringLiteral("Et*8L"));
    }

    void refusesWhatMegatronRefuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("words");
        QTest::addRow("a character that is no layer") << "Ex|L"
                                                      << "'x' is not a layer";
        QTest::addRow("a space") << "Et |L"
                                 << "' ' is not a layer";
        QTest::addRow("two embeddings in a stage") << "EEt|L"
                                                   << "'E' twice in one stage";
        QTest::addRow("a repeat past any pipeline") << "t*99999999999999999999"
                                                    << "unrolls to more than 8388608";
        QTest::addRow("a group repeated past any pipeline") << "(t|)*8000000"
                                                            << "unrolls to more";
    }
    void refusesWhatMegatronRefuses()
    {
        QFETCH(QString, text);
        QFETCH(QString, words);
        const auto parsed = parsePipelineLayout(text.toStdString());
        const auto *why = std::get_if<std::string>(&parsed);
        QVERIFY(why);
        QVERIFY2(QString::fromStdString(*why).contains(words), why->c_str());
    }

    // validate_layer_layout's checks and Parascope's own: each refused naming the key.
    void refusedLayouts_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("words");
        const QStringList base{"model=llama-3.1-8b", "pp=4", "dp=1", "microbatches=8"};
        QTest::addRow("31 of 32 layers placed")
            << base + QStringList{"pipeline_layout=Et*8|t*8|t*8|t*7L"}
            << "31 transformer layers (t), but the model has 32";
        QTest::addRow("two stages for four")
            << base + QStringList{"pipeline_layout=Et*16|t*16L"} << "2 stages, but pp = 4 needs 4";
        QTest::addRow("the embedding not first")
            << base + QStringList{"pipeline_layout=t*8|Et*8|t*8|t*8L"} << "embedding (E)";
        QTest::addRow("the loss not last")
            << base + QStringList{"pipeline_layout=Et*8|t*8L|t*8|t*8"} << "loss (L)";
        QTest::addRow("a middle stage without a layer")
            << base + QStringList{"pipeline_layout=Et*16||t*8|t*8L"} << "stage 1 holds no";
        QTest::addRow("interleaved: a stage per chunk")
            << base + QStringList{"schedule=interleaved", "virtual_stages=2",
                                  "pipeline_layout=Et*8|t*8|t*8|t*8L"}
            << "4 stages, but pp = 4 x virtual_stages = 2 makes 8";
        QTest::addRow("more stages than pp without interleaving")
            << base + QStringList{"pipeline_layout=Et*4|(t*4|)*6,t*4L"}
            << "need the interleaved schedule";
        QTest::addRow("DualPipe places its own copies")
            << base + QStringList{"schedule=dualpipe", "pipeline_layout=Et*4|(t*4|)*6,t*4L"}
            << "dualpipe places its own two copies";
        // DeepSpeed's engine runs one part a stage.
        QTest::addRow("parameters, interleaved")
            << base + QStringList{"schedule=interleaved", "virtual_stages=2",
                                  "pipeline_layout=parameters"}
            << "one part a stage";
        QTest::addRow("a word it does not take")
            << base + QStringList{"pipeline_layout=Parameters"}
            << "or a word: even (the even split) or parameters";
        QTest::addRow("parameters, dualpipev")
            << base + QStringList{"schedule=dualpipev", "pipeline_layout=parameters"}
            << "one part a stage";
    }
    void refusedLayouts()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, words);
        const Report r = evaluate(scenario(settings), m_presets);
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error->key), QStringLiteral("pipeline_layout"));
        QVERIFY2(QString::fromStdString(r.error->message).contains(words),
                 r.error->message.c_str());
    }
    void sizeOnlyModelHasNoLayersToPlace()
    {
        // Nor layer specs to weigh (parameters).
        for (const char *layout : {"pipeline_layout=Et*16|t*16L", "pipeline_layout=parameters"}) {
            Scenario s = scenario({"pp=2", layout});
            ModelSpec m;
            m.id = "size-only";
            m.params = 8'000'000'000;
            s.customModel = m;
            const Report r = evaluate(s, m_presets);
            QVERIFY2(!r.ok(), layout);
            QCOMPARE(QString::fromStdString(r.error->key), QStringLiteral("pipeline_layout"));
        }
    }

    // DeepSpeed's partition_balanced (deepspeed/runtime/utils.py) on cases worked by hand:
    // it minimises the heaviest run less the lightest, a later cut winning a tie, and with no
    // more items than parts gives one item a part (partition_uniform).
    void balancedPartitionByHand_data()
    {
        QTest::addColumn<QList<double>>("weights");
        QTest::addColumn<int>("parts");
        QTest::addColumn<QList<int>>("bounds");
        // 30 equal layers over 4: any split into 8, 8, 7, 7 costs 1, and the later cuts win.
        QTest::addRow("30 equal over 4")
            << QList<double>(30, 1.0) << 4 << QList<int>{0, 8, 16, 23, 30};
        // 2|1 1 2 costs 2, 2 1|1 2 costs 0, 2 1 1|2 costs 2.
        QTest::addRow("the balanced cut") << QList<double>{2, 1, 1, 2} << 2 << QList<int>{0, 2, 4};
        // 1|1 1 and 1 1|1 both cost 1: the later cut.
        QTest::addRow("a tie goes to the later cut")
            << QList<double>{1, 1, 1} << 2 << QList<int>{0, 2, 3};
        QTest::addRow("fewer items than parts")
            << QList<double>{5, 5, 5} << 5 << QList<int>{0, 1, 2, 3, 3, 3};
    }
    void balancedPartitionByHand()
    {
        QFETCH(QList<double>, weights);
        QFETCH(int, parts);
        QFETCH(QList<int>, bounds);
        const std::vector<int> got =
            balancedPartition(std::vector<double>(weights.begin(), weights.end()), parts);
        QCOMPARE(QList<int>(got.begin(), got.end()), bounds);
    }

    // pipeline_layout=parameters: DeepSpeed PipelineModule's default partition_method. Llama
    // 3.1 8B's layer specs weigh 525,336,576 (the embedding, 128,256 x 4,096), 218,112,000
    // each of 32 layers (4,096 x 6,144 attention in, 4,096² out, 3 x 4,096 x 14,336 MLP, two
    // norms), 4,096 (the final norm) and 525,336,576 (the untied head). Over 4 stages, 2,008M
    // each would be even: E + 7 layers and 7 + the head weigh 2,052.1M, 9 layers 1,963.0M, 89M
    // apart; E + 8 layers against 8 is 525M apart, and any other cut puts two stages a layer
    // or more apart besides. Over 8 the runs are E + 2, 5, 5, 5, 5, 4, 4 and 2 + the head:
    // 872.4M to 1,090.6M, a layer apart, as close as whole layers allow.
    void parametersIsDeepSpeedsPartition_data()
    {
        QTest::addColumn<int>("stages");
        QTest::addColumn<QList<int>>("layers");
        QTest::addRow("K = 4") << 4 << QList<int>{7, 9, 9, 7};
        QTest::addRow("K = 8") << 8 << QList<int>{2, 5, 5, 5, 5, 4, 4, 2};
    }
    void parametersIsDeepSpeedsPartition()
    {
        QFETCH(int, stages);
        QFETCH(QList<int>, layers);
        const Scenario s =
            scenario({"model=llama-3.1-8b", "tp=1", "dp=1", "microbatches=8",
                      QStringLiteral("pp=%1").arg(stages), "pipeline_layout=parameters"});
        const ParamCounts counts = countParams(*m_presets.model("llama-3.1-8b"));
        QCOMPARE(counts.embedding, std::int64_t{525'336'576});
        QCOMPARE(counts.perLayer, std::int64_t{218'112'000});
        QCOMPARE(counts.lmHead, std::int64_t{525'336'576});
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), layers);
        QVERIFY(!r.hasWarning("uneven-stages"));
        // The stages' parameters as the cut weighs them.
        QCOMPARE(r.stages.front().params, counts.embedding + layers.front() * counts.perLayer);
        QCOMPARE(r.stages.back().params,
                 layers.back() * counts.perLayer + counts.finalNorm + counts.lmHead);
        // Megatron-LM's flags for the same split: the layout written out.
        const auto written = pipelineLayoutStages(s, *m_presets.model("llama-3.1-8b"));
        QVERIFY(written);
        QCOMPARE(describe(*written).split(u'|').size(), stages);
        QVERIFY(describe(*written).startsWith(QStringLiteral("E%1|").arg(layers.front())));
    }

    // A layout places the ends itself: ends_in_pipeline_split (torchtitan's profile sets it)
    // is not used, and the report says so.
    void layoutOverridesTheEndsCounted()
    {
        const Report r =
            evaluate(scenario({"model=llama-3.1-8b", "pp=4", "dp=1", "microbatches=8",
                               "ends_in_pipeline_split=true", "pipeline_layout=Et*11|t*11|t*9|tL"}),
                     m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QVERIFY(r.hasWarning("ends-in-split-unused"));
        QCOMPARE(r.stages[0].layers, 11);
        QCOMPARE(r.stages[3].layers, 1);
    }

    // "even" and empty are the even split; anything else is kept as written.
    void evenIsTheUnsetWord()
    {
        Scenario s;
        QCOMPARE(QString::fromStdString(fieldText(s, "pipeline_layout")), QStringLiteral("even"));
        QVERIFY(!setField(s, "pipeline_layout", "Et*16|t*16L"));
        QCOMPARE(s.pipelineLayout, std::string("Et*16|t*16L"));
        QVERIFY(!setField(s, "pipeline_layout", "even"));
        QVERIFY(s.pipelineLayout.empty());
        QVERIFY(!setField(s, "pipeline_layout", ""));
        QVERIFY(s.pipelineLayout.empty());
    }

    // Llama 3.1 8B's 32 layers as 11, 11, 9 and 1: each stage holds and keeps what the layout
    // gives it, where the even split holds 8 each.
    void stagesHoldTheLayoutsLayers()
    {
        const Report r = evaluate(scenario({"model=llama-3.1-8b", "pp=4", "dp=1", "microbatches=8",
                                            "pipeline_layout=Et*11|t*11|t*9|tL"}),
                                  m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), (QList<int>{11, 11, 9, 1}));
        QVERIFY(!r.hasWarning("uneven-stages"));
        // Stage 1's parameters are 11 layers', stage 2's 9 layers'.
        const std::int64_t perLayer = (r.stages[1].params - r.stages[2].params) / 2;
        QCOMPARE(r.stages[1].params, 11 * perLayer);
        QCOMPARE(r.stages[2].params, 9 * perLayer);
    }

    // Megatron-Bridge's DeepSeek-V3 layout on 16 stages (recipes/deepseek/h100/deepseek_v3.py):
    // stage 0 holds layers 0-3, the three dense ones and one with experts, stages 1-14 four
    // each, stage 15 layer 60 with the LM head and the multi-token-prediction layer. Each
    // device keeps 256 / 64 = 4 experts of 3 x 7,168 x 2,048 a MoE layer, the MTP layer's too.
    // Beside layer 60 stage 15 holds the MTP layer: MLA attention (7,168 x 1,536 + 1,536 +
    // 1,536 x 128 x 192 + 7,168 x 576 + 512 + 512 x 128 x 256 + 128 x 128 x 7,168 =
    // 187,107,328), two norms, the router with its bias (256 x 7,168 + 256), the shared expert
    // (3 x 7,168 x 2,048) and its 4 routed experts; eh_proj (2 x 7,168^2) and three norms;
    // and an embedding of its own (129,280 x 7,168).
    void deepSeekV3OnSixteenStages()
    {
        const QStringList base{"model=deepseek-v3",
                               "device=h800-sxm",
                               "precision=fp8",
                               "tp=1",
                               "pp=16",
                               "dp=64",
                               "ep=64",
                               "zero=1",
                               "microbatches=32",
                               "recompute=full"};
        const Report r = evaluate(
            scenario(base + QStringList{"mtp_layers=1", "pipeline_layout=Et*4|(t*4|)*14,tmL"}),
            m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const Report none =
            evaluate(scenario(base + QStringList{"pipeline_layout=Et*4|(t*4|)*14,tL"}), m_presets);
        QVERIFY2(none.ok(), none.error ? none.error->message.c_str() : "");
        const std::int64_t experts = std::int64_t{4} * 3 * 7168 * 2048;
        QCOMPARE(r.stages[0].layers, 4);
        QCOMPARE(r.stages[0].expertParams, experts);
        QCOMPARE(r.stages[7].expertParams, 4 * experts);
        QCOMPARE(r.stages[15].layers, 1);
        QCOMPARE(r.stages[15].mtpLayers, 1);
        QCOMPARE(r.stages[15].expertParams, 2 * experts);
        const std::int64_t mtpLayer = std::int64_t{187107328} + 2 * 7168 + (256 * 7168 + 256) +
                                      std::int64_t{3} * 7168 * 2048 + experts;
        QCOMPARE(r.stages[15].params - none.stages[15].params,
                 mtpLayer + (std::int64_t{2} * 7168 * 7168 + 3 * 7168) +
                     std::int64_t{129280} * 7168);
        QCOMPARE(r.stages[14].params, none.stages[14].params);
    }

    // The DeepSeek-V3 model card: "685B, which includes 671B of the Main Model weights and 14B
    // of the Multi-Token Prediction (MTP) Module weights". The module as published holds its
    // own embedding and output head (129,280 x 7,168 each) beside a MoE layer (the one above
    // with all 256 experts: 11,507,286,272), eh_proj and three norms: 13,463,426,304, the
    // "14B" rounded.
    void deepSeekV3WithItsMtpModule()
    {
        const ModelSpec *model = m_presets.model("deepseek-v3");
        QVERIFY(model);
        const ParamCounts c = countParams(*model);
        QVERIFY(mtpLayerIsMoe(*model));
        QCOMPARE(c.perMoeLayer, std::int64_t{11507286272});
        QCOMPARE(c.perMoeLayer + c.perMtpExtra + c.embedding + c.lmHead, std::int64_t{13463426304});
    }

    // DualPipeV's 2K parts in the V's order: device i runs parts i and 2K - 1 - i
    // (dualpipev.py's two modules a rank, torchtitan's "v" placement). Parts of 3, 5, 4, 4, 4,
    // 4, 4, 4 layers on K = 4: devices hold 3 + 4, 5 + 4, 4 + 4 and 4 + 4.
    void dualPipeVTakesItsPartsInTheVsOrder()
    {
        const Report r =
            evaluate(scenario({"model=llama-3.1-8b", "pp=4", "dp=2", "microbatches=8",
                               "schedule=dualpipev", "pipeline_layout=Et*3|t*5|(t*4|)*5,t*4L"}),
                     m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), (QList<int>{7, 9, 8, 8}));
    }

    // In the interleaved schedule entry j of the layout is chunk j / K of stage j mod K
    // (pipeline_parallel_layer_layout.py: layout[vpp_rank * pp + pp_rank]). In layer-times
    // (a device without a peak) F is a chunk's layers and B twice that.
    void interleavedChunksRunTheirEntries()
    {
        const Scenario s = inLayerTimes(scenario(
            {"model=llama-3.1-8b", "pp=2", "dp=1", "microbatches=4", "schedule=interleaved",
             "virtual_stages=2", "pipeline_layout=Et*10|t*6|t*6|t*10L"}));
        EvaluateOptions options;
        options.timeline = true;
        const Report r = evaluate(s, m_presets, options);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QVERIFY(r.timeInLayerUnits);
        const std::map<std::pair<int, int>, double> layers{
            {{0, 0}, 10}, {{1, 0}, 6}, {{0, 1}, 6}, {{1, 1}, 10}};
        for (const ScheduleOp &o : r.timeline) {
            const double expected = layers.at({o.stage, o.chunk});
            QCOMPARE(o.end - o.start, o.kind == OpKind::forward ? expected : 2 * expected);
        }
        QCOMPARE(r.stages[0].layers, 16);
        QCOMPARE(r.stages[1].layers, 16);
    }

    // The planner splits every K it tries evenly: a layout in the base scenario, made for one
    // K, is not carried into its layouts.
    void plannerSplitsEvenly()
    {
        PlanRequest req;
        req.base = scenario({"model=llama-3.1-8b", "pipeline_layout=Et*11|t*11|t*9|tL", "pp=4"});
        req.devices = 8;
        req.globalBatch = 64;
        const PlanResult result = plan(req, m_presets);
        QVERIFY2(!result.error, result.error ? result.error->message.c_str() : "");
        QVERIFY(!result.candidates.empty());
        for (const PlanCandidate &c : result.candidates)
            QVERIFY(c.apply(req.base).pipelineLayout.empty());
    }
};

QTEST_APPLESS_MAIN(TestPipelineLayout)
#include "tst_pipeline_layout.moc"
