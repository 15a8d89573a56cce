// Model size and precision: docs/worked-examples.md §1–3 and docs/DESIGN.md §3.1.
#include "core/evaluate.h"
#include "core/units.h"
#include "io/presets_io.h"

#include <QTest>
#include <cmath>

using namespace core;

class TestModelSize : public QObject
{
    Q_OBJECT

private:
    Presets presets = io::builtinPresets();

    Scenario inference(const char *model, Precision precision, int tp = 1)
    {
        Scenario s;
        s.model = model;
        s.precision = precision;
        s.mode = Mode::inference;
        s.tp = tp;
        s.pp = 1;
        s.dp = 1;
        s.schedule = Schedule::oneFOneB;
        return s;
    }

private Q_SLOTS:
    void nominalSizeTable_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("precision");
        QTest::addColumn<double>("gb");
        QTest::addColumn<int>("roundedGb");
        const int fp16 = int(Precision::fp16), fp8 = int(Precision::fp8),
                  int4 = int(Precision::int4);
        // docs/worked-examples.md §1: 405B is 810 / 405 / 202.5 GB at FP16 / FP8 / INT4 (tables
        // round to 203).
        QTest::addRow("docs/worked-examples.md §1: 405B FP16")
            << "llama-3.1-405b" << fp16 << 810.0 << 810;
        QTest::addRow("docs/worked-examples.md §1: 405B FP8")
            << "llama-3.1-405b" << fp8 << 405.0 << 405;
        QTest::addRow("docs/worked-examples.md §1: 405B INT4")
            << "llama-3.1-405b" << int4 << 202.5 << 203;
        // docs/worked-examples.md §1: 70B is 140 / 70 / 35 GB.
        QTest::addRow("docs/worked-examples.md §1: 70B FP16")
            << "llama-3.1-70b" << fp16 << 140.0 << 140;
        QTest::addRow("docs/worked-examples.md §1: 70B FP8")
            << "llama-3.1-70b" << fp8 << 70.0 << 70;
        QTest::addRow("docs/worked-examples.md §1: 70B INT4")
            << "llama-3.1-70b" << int4 << 35.0 << 35;
        // docs/worked-examples.md §1: 8B is 16 / 8 / 4 GB.
        QTest::addRow("docs/worked-examples.md §1: 8B FP16")
            << "llama-3.1-8b" << fp16 << 16.0 << 16;
        QTest::addRow("docs/worked-examples.md §1: 8B FP8") << "llama-3.1-8b" << fp8 << 8.0 << 8;
        QTest::addRow("docs/worked-examples.md §1: 8B INT4") << "llama-3.1-8b" << int4 << 4.0 << 4;
    }
    void nominalSizeTable()
    {
        QFETCH(QString, model);
        QFETCH(int, precision);
        QFETCH(double, gb);
        QFETCH(int, roundedGb);
        const Report r =
            evaluate(inference(model.toUtf8().constData(), Precision(precision)), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.nominalWeightsBytes, std::llround(gb * kGB));
        QCOMPARE(std::lround(static_cast<double>(r.nominalWeightsBytes) / kGB), roundedGb);
    }

    void exactCounts_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("params");
        // docs/DESIGN.md §3.1: Llama 3.1 exact counts (vocab 128256, untied, head dim 128, 8 KV
        // heads).
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 8B")
            << "llama-3.1-8b" << qint64(8'030'261'248);
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 70B")
            << "llama-3.1-70b" << qint64(70'553'706'496);
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 405B")
            << "llama-3.1-405b" << qint64(405'853'388'800);
        // Narayanan et al. 2021 (Megatron-LM at scale), eq. 2: P = 12lh^2 (1 + 13/(12h) +
        // (V+s)/(12lh)) with l=96, h=12288, V=50257, s=2048 gives 174,604,234,752; the
        // formula leaves out the final LayerNorm's 2h = 24,576.
        QTest::addRow("Narayanan et al. 2021 eq. 2: GPT-3 175B")
            << "gpt-3-175b" << qint64(174'604'234'752 + 2 * 12288);
    }
    void exactCounts()
    {
        QFETCH(QString, model);
        QFETCH(qint64, params);
        const ModelSpec *spec = presets.model(model.toStdString());
        QVERIFY(spec);
        QCOMPARE(exactParams(*spec), params);
        const Report r = evaluate(inference(spec->id.c_str(), Precision::bf16), presets);
        QCOMPARE(r.params, params);
        QCOMPARE(r.weightsBytes, 2 * params);
    }

    // Mixture-of-experts presets against their publishers' stated sizes (docs/experts.md,
    // "Active parameters"). A publisher rounds (or cuts) to the digits it prints; `digits` is
    // how many decimals of billions it gives. `withEmbedding`: the publisher's active count
    // includes the input embedding (Mistral and Qwen do; DeepSeek and OpenAI count only what
    // a token multiplies with, their totals minus unused experts minus the lookup table).
    void expertModelSizes_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("totalB");
        QTest::addColumn<double>("activeB");
        QTest::addColumn<int>("digits");
        QTest::addColumn<bool>("withEmbedding");
        QTest::addRow("Mistral AI 2023: Mixtral 8x7B 46.7B, 12.9B per token")
            << "mixtral-8x7b" << 46.7 << 12.9 << 1 << true;
        QTest::addRow("Mistral AI 2024: Mixtral 8x22B 141B, 39B active")
            << "mixtral-8x22b" << 141.0 << 39.0 << 0 << true;
        QTest::addRow("Qwen3-30B-A3B model card: 30.5B, 3.3B activated")
            << "qwen3-30b-a3b" << 30.5 << 3.3 << 1 << true;
        QTest::addRow("Qwen3-235B-A22B model card: 235B, 22B activated")
            << "qwen3-235b-a22b" << 235.0 << 22.0 << 0 << true;
        QTest::addRow("DeepSeek-V3 Technical Report: 671B, 37B activated")
            << "deepseek-v3" << 671.0 << 37.0 << 0 << false;
        QTest::addRow("gpt-oss model card, Table 1: 116.83B, 5.13B active")
            << "gpt-oss-120b" << 116.83 << 5.13 << 2 << false;
        QTest::addRow("gpt-oss model card, Table 1: 20.91B, 3.61B active")
            << "gpt-oss-20b" << 20.91 << 3.61 << 2 << false;
    }
    void expertModelSizes()
    {
        QFETCH(QString, model);
        QFETCH(double, totalB);
        QFETCH(double, activeB);
        QFETCH(int, digits);
        QFETCH(bool, withEmbedding);
        const ModelSpec *spec = presets.model(model.toStdString());
        QVERIFY(spec);
        QVERIFY(spec->hasExperts());
        const double scale = std::pow(10.0, digits);
        // What the publisher would print: rounded, or cut to its digits.
        const auto prints = [scale](double params, double published) {
            const double b = params / 1e9 * scale;
            const double target = published * scale;
            return std::abs(std::round(b) - target) < 1e-6 ||
                   std::abs(std::floor(b) - target) < 1e-6;
        };
        const double total = static_cast<double>(exactParams(*spec));
        QVERIFY2(prints(total, totalB), QByteArray::number(total / 1e9, 'f', 4).constData());
        const double lookup = static_cast<double>(spec->vocab) * spec->hidden;
        const double active =
            static_cast<double>(activeParams(*spec)) + (withEmbedding ? lookup : 0);
        QVERIFY2(prints(active, activeB), QByteArray::number(active / 1e9, 'f', 4).constData());
    }

    // Exact counts derived by hand from each configuration (docs/experts.md works them out).
    void expertModelExactCounts_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("nonEmbedding");
        // Mixtral 8x7B: per layer attention 4096·(4096 + 2·1024 + 4096) = 41,943,040, norms
        // 8,192, router 32,768, 8 experts of 3·4096·14336 = 176,160,768; 32 layers plus
        // 2·32000·4096 embeddings and a 4096 final norm.
        QTest::addRow("Mixtral 8x7B by hand")
            << "mixtral-8x7b" << qint64(46'702'792'704) << qint64(46'702'792'704 - 262'144'000);
        // Qwen3 model cards: 29.9B and 234B without the two 151936-row embeddings.
        QTest::addRow("Qwen3-30B-A3B model card: 29.9B non-embedding")
            << "qwen3-30b-a3b" << qint64(0) << qint64(29'900'000'000);
        QTest::addRow("Qwen3-235B-A22B model card: 234B non-embedding")
            << "qwen3-235b-a22b" << qint64(0) << qint64(234'000'000'000);
    }
    void expertModelExactCounts()
    {
        QFETCH(QString, model);
        QFETCH(qint64, total);
        QFETCH(qint64, nonEmbedding);
        const ModelSpec *spec = presets.model(model.toStdString());
        QVERIFY(spec);
        const ParamCounts c = countParams(*spec);
        if (total > 0) {
            QCOMPARE(c.total, total);
            QCOMPARE(c.total - c.embedding - c.lmHead, nonEmbedding);
        } else {
            // Published to three significant figures: within half of the last digit.
            const double halfDigit = nonEmbedding >= 100'000'000'000 ? 0.5e9 : 0.05e9;
            QVERIFY(std::abs(static_cast<double>(c.total - c.embedding - c.lmHead) -
                             static_cast<double>(nonEmbedding)) <= halfDigit);
        }
    }

    // Expert parallelism and expert tensor parallelism divide only the routed experts
    // (Megatron-core's layout); attention, norms and the router stay as T splits them.
    void expertSplitDividesRoutedExperts()
    {
        const ModelSpec *spec = presets.model("mixtral-8x7b");
        QVERIFY(spec);
        const ParamCounts one = countParams(*spec, 1);
        const ParamCounts split = countParams(*spec, 1, ExpertSplit{4, 2});
        // 8 experts over E = 4: two each, each expert's 14336 columns over 2.
        QCOMPARE(one.perMoeLayerExperts, qint64(8) * 3 * 4096 * 14336);
        QCOMPARE(split.perMoeLayerExperts, qint64(2) * 3 * 4096 * 7168);
        QCOMPARE(one.perMoeLayer - one.perMoeLayerExperts,
                 split.perMoeLayer - split.perMoeLayerExperts);
        QCOMPARE(moeLayersIn(*spec, 0, spec->layers), 32);
    }

    // DeepSeek-V3's first three layers are dense (first_k_dense_replace = 3); a period of 2
    // makes every second layer MoE (Megatron-LM --moe-layer-freq 2).
    void denseAndMoeLayersCount_data()
    {
        QTest::addColumn<int>("dense");
        QTest::addColumn<int>("period");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("moe");
        QTest::addRow("first 3 dense, all of 61") << 3 << 1 << 0 << 61 << 58;
        QTest::addRow("first 3 dense, stage of layers 0-3") << 3 << 1 << 0 << 4 << 1;
        QTest::addRow("first 3 dense, stage of layers 3-6") << 3 << 1 << 3 << 4 << 4;
        QTest::addRow("period 2: layers 2, 4, 6, 8 of 1-8") << 0 << 2 << 0 << 8 << 4;
        QTest::addRow("period 2: layers 1-3 hold layer 2") << 0 << 2 << 1 << 2 << 1;
        QTest::addRow("period 2 after 3 dense: 4 and 6 of 1-7") << 3 << 2 << 0 << 7 << 2;
    }
    void denseAndMoeLayersCount()
    {
        QFETCH(int, dense);
        QFETCH(int, period);
        QFETCH(int, first);
        QFETCH(int, count);
        QFETCH(int, moe);
        ModelSpec m = *presets.model("deepseek-v3");
        m.denseLayers = dense;
        m.moeLayerPeriod = period;
        QCOMPARE(moeLayersIn(m, first, count), moe);
        int byLayer = 0;
        for (int i = first; i < first + count; ++i)
            byLayer += isMoeLayer(m, i) ? 1 : 0;
        QCOMPARE(byLayer, moe);
    }

    // Megatron-Core's tensors with Transformer Engine, counted by hand from its state dict:
    // a Llama layer holds linear_qkv.weight with its layer_norm_weight, linear_proj.weight,
    // linear_fc1.weight with its layer_norm_weight, linear_fc2.weight (6); the first stage adds
    // the word embeddings, the last the final norm and the untied output layer. GPT-3 adds a
    // bias to each projection and norm (12 a layer), learned positions, the final norm's bias,
    // and ties the output layer. Mixtral's expert layer: the router and w1, w2 of each of its 8
    // experts (or 2 on one of E = 4).
    void parameterTensorsByHand_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("count");
        QTest::addColumn<bool>("ends");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("tensors");
        QTest::addRow("Llama 3.1 8B, one stage") << "llama-3.1-8b" << 32 << true << 1 << 32 * 6 + 3;
        QTest::addRow("Llama 3.1 8B, a middle stage of 8")
            << "llama-3.1-8b" << 8 << false << 1 << 8 * 6;
        QTest::addRow("GPT-3 175B, one stage")
            << "gpt-3-175b" << 96 << true << 1 << 96 * 12 + 2 + 2;
        QTest::addRow("Mixtral 8x7B, middle, E = 1")
            << "mixtral-8x7b" << 4 << false << 1 << 4 * (4 + 1 + 16);
        QTest::addRow("Mixtral 8x7B, middle, E = 4")
            << "mixtral-8x7b" << 4 << false << 4 << 4 * (4 + 1 + 4);
    }
    void parameterTensorsByHand()
    {
        QFETCH(QString, model);
        QFETCH(int, count);
        QFETCH(bool, ends);
        QFETCH(int, ep);
        const ModelSpec m = *presets.model(model.toStdString());
        QTEST(parameterTensors(m, 0, count, ends, ends, ep), "tensors");
    }

    void quantizedFormats_data()
    {
        QTest::addColumn<int>("precision");
        QTest::addColumn<qint64>("bytes");
        const qint64 params = 405'853'388'800;
        // llama.cpp block formats: 32 weights + one FP16 scale (docs/DESIGN.md §3.1).
        QTest::addRow("docs/DESIGN.md §3.1: 405B q4_0 at 4.5 bits")
            << int(Precision::q4_0) << qint64(params * 9 / 16);
        QTest::addRow("docs/DESIGN.md §3.1: 405B q8_0 at 8.5 bits")
            << int(Precision::q8_0) << qint64(params * 17 / 16);
    }
    void quantizedFormats()
    {
        QFETCH(int, precision);
        QFETCH(qint64, bytes);
        const Report r = evaluate(inference("llama-3.1-405b", Precision(precision)), presets);
        QVERIFY(r.ok());
        QCOMPARE(r.weightsBytes, bytes);
    }

    // docs/worked-examples.md §1: a 405B q4_0 file is a little larger than its 4.5 bits per weight:
    // q4_0 comes to about 228 GB; the remaining ~3 GB are the few tensors a GGUF file keeps at
    // higher precision.
    void q4_0IsNearTheDiskSize()
    {
        const Report r = evaluate(inference("llama-3.1-405b", Precision::q4_0), presets);
        QCOMPARE(std::lround(static_cast<double>(r.weightsBytes) / kGB), 228);
        QVERIFY(r.weightsBytes < 231 * kGB);
        QVERIFY(231 * kGB - static_cast<double>(r.weightsBytes) < 3 * kGB);
    }

    // docs/worked-examples.md §2: 70B in FP16 does not fit one 80 GB device; with T = 4 it does.
    void tensorParallelismDividesWeights()
    {
        Scenario one = inference("llama-3.1-70b", Precision::fp16, 1);
        one.device = "h100-sxm";
        const Report alone = evaluate(one, presets);
        QVERIFY(alone.ok());
        QVERIFY(!alone.fits);
        QVERIFY(alone.hasWarning("does-not-fit"));
        QCOMPARE(alone.firstOverflowStage, 0);
        QVERIFY(alone.stages[0].headroomBytes < 0);

        Scenario four = one;
        four.tp = 4;
        const Report split = evaluate(four, presets);
        QVERIFY(split.fits);
        // 35 GB each: the nominal 140 GB divided by T = 4.
        QCOMPARE(split.nominalWeightsBytes / 4, std::llround(35 * kGB));
        // The exact per-device shard is the exact total over four, plus 3/4 of the
        // replicated RMSNorm weights: (80 × 2 + 1) × 8192 × 2 B × 3/4 = 1,978,368 B.
        const double perDevice = static_cast<double>(split.stages[0].weightsBytes);
        QCOMPARE(perDevice - split.weightsBytes / 4.0, 1'978'368.0);
        QCOMPARE(std::lround(perDevice / kGB), 35);
        QCOMPARE(split.devices, 4);
    }

    // docs/worked-examples.md §8: 70B at T = 4 with four data-parallel replicas takes 16 devices.
    void dataParallelDevices()
    {
        Scenario s = inference("llama-3.1-70b", Precision::fp16, 4);
        s.dp = 4;
        const Report r = evaluate(s, presets);
        QVERIFY(r.ok());
        QCOMPARE(r.devices, 16);
        // Each replica holds the full model: D does not divide the weights without ZeRO-3.
        QCOMPARE(r.stages[0].weightsBytes,
                 evaluate(inference("llama-3.1-70b", Precision::fp16, 4), presets)
                     .stages[0]
                     .weightsBytes);
    }

    // The smallest power-of-two T whose weights fit: 70B FP16 is 141 GB exact, so T=2
    // (70.6 GB + 2 GiB reserve < 80 GiB); the worked example's T=4 is enough, not the least.
    void smallestTensorParallelDegree_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("tp");
        QTest::addRow("docs/worked-examples.md §2: 70B FP16 on 80 GB")
            << "llama-3.1-70b"
            << "h100-sxm" << int(Precision::fp16) << 2;
        QTest::addRow("docs/worked-examples.md §2: 8B FP16 on 80 GB")
            << "llama-3.1-8b"
            << "h100-sxm" << int(Precision::fp16) << 1;
        // 810 GB over 64 GiB SN40L devices: 16 × 51 GB fits, 8 × 101 GB does not.
        QTest::addRow("docs/worked-examples.md §3: 405B FP16 on SN40L")
            << "llama-3.1-405b"
            << "sn40l" << int(Precision::fp16) << 16;
        QTest::addRow("docs/worked-examples.md §3: 405B FP8 on SN40L")
            << "llama-3.1-405b"
            << "sn40l" << int(Precision::fp8) << 8;
        QTest::addRow("docs/worked-examples.md §3: 405B INT4 on SN40L")
            << "llama-3.1-405b"
            << "sn40l" << int(Precision::int4) << 4;
    }
    void smallestTensorParallelDegree()
    {
        QFETCH(QString, model);
        QFETCH(QString, device);
        QFETCH(int, precision);
        QFETCH(int, tp);
        Scenario s = inference(model.toUtf8().constData(), Precision(precision));
        s.device = device.toStdString();
        QCOMPARE(evaluate(s, presets).minTpForWeights, tp);
    }

    // docs/DESIGN.md §3.3: the first L mod K stages take one extra layer; the first stage adds
    // the embedding, the last the final norm and LM head.
    void stagesSplitLayers()
    {
        Scenario s = inference("llama-3.1-8b", Precision::bf16);
        s.pp = 3;
        const Report r = evaluate(s, presets);
        QCOMPARE(r.stages.size(), std::size_t(3));
        QCOMPARE(r.stages[0].layers, 11);
        QCOMPARE(r.stages[1].layers, 11);
        QCOMPARE(r.stages[2].layers, 10);
        QVERIFY(r.hasWarning("uneven-stages"));
        std::int64_t params = 0;
        for (const auto &st : r.stages)
            params += st.params;
        QCOMPARE(params, r.params);
        const std::int64_t embedding = 128256LL * 4096;
        QCOMPARE(r.stages[0].params - r.stages[1].params, embedding);
    }
};

QTEST_APPLESS_MAIN(TestModelSize)
#include "tst_model_size.moc"
