// The JSON configurations Parascope imports (docs/import.md): a Hugging Face model
// config.json becomes a model preset, a DeepSpeed config JSON is merged into a scenario, and
// a scenario is written back as a DeepSpeed config.
#include "core/fields.h"
#include "core/framework.h"
#include "core/model.h"
#include "core/validate.h"
#include "io/framework_config.h"
#include "io/presets_io.h"
#include "test_files.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace core;

namespace {

QString configPath(const QString &kind, const QString &file)
{
    return QStringLiteral(PARASCOPE_SOURCE_DIR "/tests/data/configs/") + kind + u'/' + file;
}

bool contains(const std::vector<std::string> &lines, const std::string &part)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &line) {
        return line.find(part) != std::string::npos;
    });
}

// The refusal's text, for a failure message; empty when the import succeeded.
std::string refusal(const std::variant<io::ImportedConfig, InputError> &result)
{
    const auto *error = std::get_if<InputError>(&result);
    return error ? error->toString() : std::string();
}

} // namespace

class TestImportJson : public QObject
{
    Q_OBJECT

    Presets presets = io::builtinPresets();

    std::variant<io::ImportedConfig, InputError> importFile(const QString &kind,
                                                            const QString &file,
                                                            const Scenario &base = {},
                                                            io::ImportOptions options = {})
    {
        options.fileName = file.toStdString();
        return io::importConfig(readFile(configPath(kind, file)), base, presets, options);
    }

private Q_SLOTS:
    // Every preset's published config.json gives the preset's architecture and its exact
    // count. `exact`: a count published or derived to the parameter (0: none); `publishedB`
    // and `digits`: the publisher's rounded total in billions, as tests/core/tst_model_size.cpp
    // checks it.
    void huggingFacePresets_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("exact");
        QTest::addColumn<double>("publishedB");
        QTest::addColumn<int>("digits");
        // docs/DESIGN.md §3.1: Llama 3.1 exact counts.
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 8B")
            << "llama-3.1-8b.json"
            << "llama-3.1-8b" << qint64(8'030'261'248) << 8.0 << 0;
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 70B")
            << "llama-3.1-70b.json"
            << "llama-3.1-70b" << qint64(70'553'706'496) << 71.0 << 0;
        QTest::addRow("docs/DESIGN.md §3.1: Llama 3.1 405B")
            << "llama-3.1-405b.json"
            << "llama-3.1-405b" << qint64(405'853'388'800) << 406.0 << 0;
        // tests/core/tst_model_size.cpp, Mixtral 8x7B by hand: 32 layers of attention
        // 41,943,040, norms 8,192, router 32,768 and 8 experts of 176,160,768, plus 2·32000·4096
        // embeddings and a 4096 final norm; Mistral AI 2023: 46.7B.
        QTest::addRow("Mistral AI 2023: Mixtral 8x7B 46.7B")
            << "mixtral-8x7b.json"
            << "mixtral-8x7b" << qint64(46'702'792'704) << 46.7 << 1;
        QTest::addRow("Mistral AI 2024: Mixtral 8x22B 141B")
            << "mixtral-8x22b.json"
            << "mixtral-8x22b" << qint64(0) << 141.0 << 0;
        QTest::addRow("Qwen3-30B-A3B model card: 30.5B")
            << "qwen3-30b-a3b.json"
            << "qwen3-30b-a3b" << qint64(0) << 30.5 << 1;
        QTest::addRow("Qwen3-235B-A22B model card: 235B")
            << "qwen3-235b-a22b.json"
            << "qwen3-235b-a22b" << qint64(0) << 235.0 << 0;
        QTest::addRow("DeepSeek-V3 Technical Report: 671B")
            << "deepseek-v3.json"
            << "deepseek-v3" << qint64(0) << 671.0 << 0;
        QTest::addRow("gpt-oss model card, Table 1: 116.83B")
            << "gpt-oss-120b.json"
            << "gpt-oss-120b" << qint64(0) << 116.83 << 2;
    }
    void huggingFacePresets()
    {
        QFETCH(QString, file);
        QFETCH(QString, preset);
        QFETCH(qint64, exact);
        QFETCH(double, publishedB);
        QFETCH(int, digits);
        const auto result = importFile(QStringLiteral("huggingface"), file);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.kind, io::ConfigKind::huggingFace);
        QVERIFY(imported.model);
        QVERIFY(!imported.scenario);
        const ModelSpec &model = *imported.model;
        const ModelSpec *expected = presets.model(preset.toStdString());
        QVERIFY(expected);
        const ModelSpec *match = io::matchingPreset(model, presets);
        QVERIFY2(match, QJsonDocument(io::modelToJson(model)).toJson().constData());
        QCOMPARE(QString::fromStdString(match->id), preset);
        QCOMPARE(model.contextWindow, expected->contextWindow);
        QVERIFY(contains(imported.assumptions, "same architecture as preset " + expected->id));
        QCOMPARE(model.id, expected->id); // the file's name, as no _name_or_path is given
        QCOMPARE(model.nominalParams, 0);
        QCOMPARE(exactParams(model), exactParams(*expected));
        if (exact > 0)
            QCOMPARE(exactParams(model), exact);
        // What the publisher would print: rounded, or cut, to its digits.
        const double scale = std::pow(10.0, digits);
        const double b = static_cast<double>(exactParams(model)) / 1e9 * scale;
        QVERIFY2(std::abs(std::round(b) - publishedB * scale) < 1e-6 ||
                     std::abs(std::floor(b) - publishedB * scale) < 1e-6,
                 QByteArray::number(b / scale, 'f', 4));
    }

    // Two models that are not presets, against counts written out by hand.
    void huggingFaceOthers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("params");
        QTest::addColumn<QString>("assumption");
        // Mistral 7B v0.1, by hand from its config.json: 32 layers of attention
        // 4096·(4096 + 1024 + 1024 + 4096) = 41,943,040, SwiGLU 3·4096·14336 = 176,160,768 and
        // two norms of 4096 (218,112,000 a layer), plus 2·32000·4096 untied embeddings and a
        // 4096 final norm: 7,241,732,096 (the model card's "7.24B params").
        QTest::addRow("Mistral 7B v0.1 by hand")
            << "mistral-7b-v0.1.json" << qint64(7'241'732'096) << "";
        // Qwen2.5-7B, by hand: 28 layers of q and o 3584·3584 each, k and v 3584·512 each, q/k/v
        // biases 3584 + 2·512 (none on o_proj: qkv_bias), SwiGLU 3·3584·18944 and two norms
        // (233,057,792 a layer), plus 2·152064·3584 untied embeddings and a 3584 final norm:
        // 7,615,616,512 (the model card: 7.61B, 6.53B non-embedding).
        QTest::addRow("Qwen2.5-7B by hand") << "qwen2.5-7b.json" << qint64(7'615'616'512) << "";
    }
    void huggingFaceOthers()
    {
        QFETCH(QString, file);
        QFETCH(qint64, params);
        QFETCH(QString, assumption);
        const auto result = importFile(QStringLiteral("huggingface"), file);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.model);
        QCOMPARE(exactParams(*imported.model), params);
        QVERIFY(!io::matchingPreset(*imported.model, presets));
        QVERIFY(!contains(imported.assumptions, "same architecture as preset"));
        if (!assumption.isEmpty())
            QVERIFY(contains(imported.assumptions, assumption.toStdString()));
    }

    // A mixture-of-experts family's configuration class in huggingface/transformers builds
    // its MoE layers from its own defaults where config.json has no such key: DeepseekV3Config
    // 256 experts, top-8, 2,048 wide, one shared, the first 3 layers dense; Qwen3MoeConfig
    // 128, top-8, 768; MixtralConfig 8, top-2; GptOssConfig 128, top-4, both at
    // intermediate_size. Each default taken is a line naming its key; a family without
    // experts takes none.
    void huggingFaceMoeClassDefaults_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QList<int>>("moe"); // experts, top-k, width, shared, dense layers
        QTest::addColumn<QStringList>("notes");
        QTest::addRow("deepseek_v3 without its MoE keys")
            << QByteArray(R"("model_type": "deepseek_v3")") << QList<int>{256, 8, 2048, 1, 3}
            << QStringList{"n_routed_experts is not in the file: 256, the default of "
                           "deepseek_v3's configuration class",
                           "num_experts_per_tok is not in the file: 8",
                           "moe_intermediate_size is not in the file: 2048",
                           "n_shared_experts is not in the file: 1",
                           "first_k_dense_replace is not in the file: 3"};
        QTest::addRow("deepseek_v3: the file's keys kept, the rest defaulted")
            << QByteArray(R"("model_type": "deepseek_v3", "n_routed_experts": 64, )"
                          R"("n_shared_experts": 2, "first_k_dense_replace": 1)")
            << QList<int>{64, 8, 2048, 2, 1}
            << QStringList{"num_experts_per_tok is not in the file: 8",
                           "moe_intermediate_size is not in the file: 2048"};
        QTest::addRow("qwen3_moe without its MoE keys")
            << QByteArray(R"("model_type": "qwen3_moe", "head_dim": 64)")
            << QList<int>{128, 8, 768, 0, 0}
            << QStringList{"num_experts is not in the file: 128, the default of qwen3_moe's",
                           "num_experts_per_tok is not in the file: 8",
                           "moe_intermediate_size is not in the file: 768"};
        QTest::addRow("mixtral without its MoE keys")
            << QByteArray(R"("model_type": "mixtral")") << QList<int>{8, 2, 512, 0, 0}
            << QStringList{"num_local_experts is not in the file: 8",
                           "num_experts_per_tok is not in the file: 2"};
        QTest::addRow("gpt_oss: experts_per_token is the file's top-k")
            << QByteArray(R"("model_type": "gpt_oss", "experts_per_token": 2, "head_dim": 64)")
            << QList<int>{128, 2, 512, 0, 0}
            << QStringList{"num_local_experts is not in the file: 128"};
        QTest::addRow("llama: no experts")
            << QByteArray(R"("model_type": "llama")") << QList<int>{0, 0, 0, 0, 0} << QStringList{};
    }
    void huggingFaceMoeClassDefaults()
    {
        QFETCH(QByteArray, file);
        QFETCH(QList<int>, moe);
        QFETCH(QStringList, notes);
        const QByteArray content =
            "{" + file +
            R"(, "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4, )"
            R"("intermediate_size": 512, "vocab_size": 1000})";
        const auto result = io::importConfig(content, {}, presets, {});
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        const core::ModelSpec &m = *imported.model;
        QCOMPARE((QList<int>{m.experts, m.experts > 0 ? m.expertsPerToken : 0,
                             m.experts > 0 ? m.expertFfnHidden : 0, m.sharedExperts,
                             m.experts > 0 ? m.denseLayers : 0}),
                 moe);
        for (const QString &note : notes)
            QVERIFY2(contains(imported.assumptions, note.toStdString()),
                     io::importSummary(imported).c_str());
        if (notes.isEmpty())
            QVERIFY2(!contains(imported.assumptions, "experts"),
                     io::importSummary(imported).c_str());
    }

    // Group-limited routing from config.json (modeling_deepseek.py, MoEGate: the experts in
    // n_group groups, a token's top-k from its topk_group best, under topk_method noaux_tc or
    // group_limited_greedy; greedy routes over every expert), on a deepseek_v3 file unless the
    // row gives its model_type. `key`: the field a refusal names; `notes`: parts of the import's
    // lines (or of the refusal's message); none: no line names n_group or topk_group.
    void huggingFaceRouterGroups_data()
    {
        QTest::addColumn<QByteArray>("routing");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QStringList>("notes");
        QTest::addRow("deepseek-ai/DeepSeek-V3 config.json: 4 of 8 groups")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8, "topk_group": 4)") << 8 << 4
            << "" << QStringList();
        QTest::addRow("DeepSeek-V2's group_limited_greedy: 3 of 8")
            << QByteArray(R"("topk_method": "group_limited_greedy", "n_group": 8, )"
                          R"("topk_group": 3)")
            << 8 << 3 << "" << QStringList();
        QTest::addRow("moonshotai/Kimi-K2 config.json: one group, no limit")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 1, "topk_group": 1)") << 0 << 0
            << "" << QStringList();
        QTest::addRow("MoEGate: 8 of 8 groups limits nothing")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8, "topk_group": 8)") << 0 << 0
            << "" << QStringList{"topk_group 8 of n_group 8 limits nothing"};
        // Transformers' DeepseekV3Config (huggingface/transformers,
        // src/transformers/models/deepseek_v3/configuration_deepseek_v3.py): n_group 8 and
        // topk_group 4 where the file has no such key; it has no topk_method at all, and its
        // model (modeling_deepseek_v3.py, DeepseekV3MoE.get_topk_indices) adds the bias and
        // limits the groups whatever the file says, so a file without one is routed so.
        QTest::addRow("DeepseekV3Config: topk_group left out, its 4")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8)") << 8 << 4 << ""
            << QStringList{"topk_group is not in the file: 4, the default of deepseek_v3's"};
        QTest::addRow("DeepseekV3Config: n_group left out, its 8")
            << QByteArray(R"("topk_method": "noaux_tc", "topk_group": 4)") << 8 << 4 << ""
            << QStringList{"n_group is not in the file: 8, the default of deepseek_v3's"};
        QTest::addRow("DeepseekV3Config: both left out, its 4 of 8")
            << QByteArray(R"("topk_method": "noaux_tc")") << 8 << 4 << ""
            << QStringList{"n_group is not in the file: 8", "topk_group is not in the file: 4"};
        QTest::addRow("DeepseekV3 model: no topk_method, grouped as Transformers runs it")
            << QByteArray(R"("n_group": 8, "topk_group": 4)") << 8 << 4 << ""
            << QStringList{"topk_method is not in the file: routed as Transformers' "
                           "DeepseekV3 model routes"};
        QTest::addRow("DeepseekV3Config: no routing keys at all")
            << QByteArray(R"("first_k_dense_replace": 1)") << 8 << 4 << ""
            << QStringList{"n_group is not in the file: 8", "topk_group is not in the file: 4",
                           "topk_method is not in the file"};
        QTest::addRow("DeepseekV3Config: a null topk_group is the file's None, not 4")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8, "topk_group": null)") << 0
            << 0 << "" << QStringList{"n_group without topk_group"};
        QTest::addRow("DeepseekV3Config: its 4 of the file's 2 groups")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 2)") << 0 << 0 << "topk_group"
            << QStringList{"4 of only 2 groups", "not in the file: deepseek_v3's default "
                                                 "topk_group 4"};
        QTest::addRow("DeepseekV3Config: its 8 groups do not divide 20 experts")
            << QByteArray(R"("topk_method": "noaux_tc", "topk_group": 4, )"
                          R"("n_routed_experts": 20, "num_experts_per_tok": 2)")
            << 0 << 0 << "n_group"
            << QStringList{"not in the file: deepseek_v3's default n_group 8"};
        // DeepseekV2Config (configuration_deepseek_v2.py) leaves n_group and topk_group None.
        QTest::addRow("deepseek_v2: n_group without topk_group")
            << QByteArray(R"("model_type": "deepseek_v2", "topk_method": "group_limited_greedy", )"
                          R"("n_group": 8)")
            << 0 << 0 << "" << QStringList{"n_group without topk_group"};
        QTest::addRow("MoEGate's torch.topk: 9 of 8 groups")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8, "topk_group": 9)") << 0 << 0
            << "topk_group" << QStringList();
        QTest::addRow("no groups: n_group 0")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 0, "topk_group": 4)") << 0 << 0
            << "n_group" << QStringList();
        QTest::addRow("greedy routing ignores the groups")
            << QByteArray(R"("topk_method": "greedy", "n_group": 8, "topk_group": 4)") << 0 << 0
            << "" << QStringList{"limit nothing under topk_method greedy"};
        QTest::addRow("7 groups of 64 experts")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 7, "topk_group": 4)") << 0 << 0
            << "n_group" << QStringList();
        QTest::addRow("one group of 8 for a top-8 of 16")
            << QByteArray(R"("topk_method": "noaux_tc", "n_group": 8, "topk_group": 1, )"
                          R"("num_experts_per_tok": 16)")
            << 0 << 0 << "topk_group" << QStringList();
    }
    void huggingFaceRouterGroups()
    {
        QFETCH(QByteArray, routing);
        QFETCH(int, groups);
        QFETCH(int, limit);
        QFETCH(QString, key);
        QFETCH(QStringList, notes);
        QByteArray content = "{";
        if (!routing.contains("model_type"))
            content += R"("model_type": "deepseek_v3", )";
        content +=
            R"("num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4, )"
            R"("intermediate_size": 512, "vocab_size": 1000, "moe_intermediate_size": 128, )";
        if (!routing.contains("n_routed_experts"))
            content += R"("n_routed_experts": 64, )";
        if (!routing.contains("num_experts_per_tok"))
            content += R"("num_experts_per_tok": 8, )";
        content += routing + "}";
        const auto result = io::importConfig(content, {}, presets, {});
        if (!key.isEmpty()) {
            const auto *error = std::get_if<InputError>(&result);
            QVERIFY(error);
            QCOMPARE(QString::fromStdString(error->key), key);
            for (const QString &note : notes)
                QVERIFY2(error->message.find(note.toStdString()) != std::string::npos,
                         error->message.c_str());
            return;
        }
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.model->routerGroups, groups);
        QCOMPARE(imported.model->routerGroupLimit, limit);
        QVERIFY(!validateModel(*imported.model));
        for (const QString &note : notes)
            QVERIFY2(contains(imported.assumptions, note.toStdString()),
                     io::importSummary(imported).c_str());
        if (notes.isEmpty())
            QVERIFY2(!contains(imported.assumptions, "n_group") &&
                         !contains(imported.assumptions, "topk_group"),
                     io::importSummary(imported).c_str());
    }

    // Sliding-window attention: the window and the layers that attend to the whole context
    // instead, as each family's configuration class in huggingface/transformers reads them
    // (docs/import.md). `note`: part of the line saying what was approximated or assumed;
    // empty when nothing was.
    void huggingFaceWindow_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("window");
        QTest::addColumn<int>("period");
        QTest::addColumn<QString>("note");
        const auto config = [](const char *type, int layers, const QByteArray &more) {
            return "{\"model_type\": \"" + QByteArray(type) +
                   "\", \"num_hidden_layers\": " + QByteArray::number(layers) +
                   ", \"hidden_size\": 256, \"num_attention_heads\": 4, "
                   "\"intermediate_size\": 512, \"vocab_size\": 1000, " +
                   more + "}";
        };
        // layer_types of `layers` entries, "f" full and "s" sliding, as `kinds` repeats.
        const auto layerTypes = [](const QByteArray &kinds, int layers) {
            QByteArray list = R"("layer_types": [)";
            for (int i = 0; i < layers; ++i)
                list += QByteArray(i ? ", " : "") + (kinds.at(i % kinds.size()) == 'f'
                                                         ? R"("full_attention")"
                                                         : R"("sliding_attention")");
            return list + "]";
        };
        QTest::addRow("mistralai/Mistral-7B-v0.1 config.json: 4096 on every layer")
            << config("mistral", 32, R"("sliding_window": 4096)") << 4096 << 0 << "";
        QTest::addRow("openai/gpt-oss-120b config.json: layer_types from sliding, alternating")
            << config("gpt_oss", 36, R"("sliding_window": 128, )" + layerTypes("sf", 36)) << 128
            << 2 << "";
        QTest::addRow("google/gemma-3-4b-it config.json: sliding_window_pattern 6")
            << config("gemma3_text", 34, R"("sliding_window": 1024, "sliding_window_pattern": 6)")
            << 1024 << 6 << "";
        QTest::addRow("Gemma2Config: every second layer without layer_types")
            << config("gemma2", 26, R"("sliding_window": 4096)") << 4096 << 2
            << "layer_types is not in the file: the whole context every 2 layers, the default "
               "of gemma2's configuration class";
        QTest::addRow("Qwen/Qwen2.5-7B config.json: use_sliding_window false")
            << config("qwen2", 28,
                      R"("sliding_window": 131072, "max_window_layers": 28, )"
                      R"("use_sliding_window": false)")
            << 0 << 0 << "";
        QTest::addRow("Qwen3 by Transformers 4.56: every layer full_attention, no window")
            << config("qwen3", 4,
                      R"("sliding_window": null, "use_sliding_window": false, )" +
                          layerTypes("f", 4))
            << 0 << 0 << "";
        QTest::addRow("Qwen2Config: the first 4 of 28 layers without the window")
            << config("qwen2", 28,
                      R"("sliding_window": 4096, "max_window_layers": 4, )"
                      R"("use_sliding_window": true)")
            << 4096 << 0
            << "max_window_layers 4 (the first 4 layers attend to the whole context) gives no "
               "period of full-attention layers: taken as a window on every layer, 24 of the 28 "
               "layers as the file has them";
        QTest::addRow("Qwen2Config: the first 21 of 28 layers without the window")
            << config("qwen2", 28,
                      R"("sliding_window": 4096, "max_window_layers": 21, )"
                      R"("use_sliding_window": true)")
            << 0 << 0 << "taken as no window, 21 of the 28 layers";
        // Full at layers 2, 4, 6, 7 and 8 (from 1): every second but layer 7.
        QTest::addRow("irregular layer_types: sfsfsfff read as every second")
            << config("gpt_oss", 8, R"("sliding_window": 128, )" + layerTypes("sfsfsfff", 8)) << 128
            << 2
            << "layer_types gives no period of full-attention layers: taken as the whole "
               "context every 2 layers, 7 of the 8 layers as the file has them";
        QTest::addRow("mistralai/Mixtral-8x7B-v0.1 config.json: sliding_window null")
            << config("mixtral", 32, R"("sliding_window": null)") << 0 << 0 << "";
        QTest::addRow("LlamaConfig has no window: sliding_window left aside")
            << config("llama", 32, R"("sliding_window": 4096)") << 0 << 0 << "";
        QTest::addRow("an unknown family: a window on every layer")
            << config("newmodel", 4, R"("sliding_window": 512, "hidden_act": "silu")") << 512 << 0
            << "sliding_window without layer_types: a window on every layer";
    }
    void huggingFaceWindow()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, window);
        QFETCH(int, period);
        QFETCH(QString, note);
        const auto result = io::importConfig(content, {}, presets, {});
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.model->slidingWindow, window);
        QCOMPARE(imported.model->fullAttentionPeriod, period);
        QVERIFY(!validateModel(*imported.model));
        const auto windowLine = [](const std::string &line) {
            return line.find("window") != std::string::npos ||
                   line.find("layer_types") != std::string::npos;
        };
        if (note.isEmpty())
            QVERIFY(
                std::none_of(imported.assumptions.begin(), imported.assumptions.end(), windowLine));
        else
            QVERIFY2(contains(imported.assumptions, note.toStdString()),
                     io::importSummary(imported).c_str());
        // Every window key is read or left aside with its own reason, none as unknown.
        for (const auto &field : imported.ignored)
            QVERIFY2(!windowLine(field.name) || field.why.find("not part of") == std::string::npos,
                     field.name.c_str());
    }

    // Where the id and name come from: the option, _name_or_path, the file's name, the shape.
    void huggingFaceIdentity_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("modelId");
        QTest::addColumn<QString>("nameOrPath");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("name");
        QTest::addRow("option") << "x.json"
                                << "mine"
                                << "meta-llama/Llama-3.1-8B"
                                << "mine"
                                << "Llama-3.1-8B";
        QTest::addRow("_name_or_path") << "x.json"
                                       << ""
                                       << "meta-llama/Llama-3.1-8B"
                                       << "llama-3.1-8b"
                                       << "Llama-3.1-8B";
        QTest::addRow("file name") << "My-Model.json"
                                   << ""
                                   << ""
                                   << "my-model"
                                   << "My-Model";
        QTest::addRow("option, no path") << "config.json"
                                         << "mine"
                                         << ""
                                         << "mine"
                                         << "mine";
        QTest::addRow("config.json") << "config.json"
                                     << ""
                                     << ""
                                     << "llama-32x4096"
                                     << "LlamaForCausalLM";
    }
    void huggingFaceIdentity()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, modelId);
        QFETCH(QString, nameOrPath);
        QFETCH(QString, id);
        QFETCH(QString, name);
        QByteArray content = readFile(
            configPath(QStringLiteral("huggingface"), QStringLiteral("llama-3.1-8b.json")));
        if (!nameOrPath.isEmpty())
            content.replace("{", "{\"_name_or_path\": \"" + nameOrPath.toUtf8() + "\",");
        io::ImportOptions options;
        options.fileName = fileName.toStdString();
        options.modelId = modelId.toStdString();
        const auto result = io::importConfig(content, {}, presets, options);
        QVERIFY(std::holds_alternative<io::ImportedConfig>(result));
        const ModelSpec &model = *std::get<io::ImportedConfig>(result).model;
        QCOMPARE(QString::fromStdString(model.id), id);
        QCOMPARE(QString::fromStdString(model.name), name);
        QCOMPARE(model.source,
                 "Imported from " + fileName.toStdString() + " (Hugging Face config.json)");
    }

    // Every test file is recognised as what it is, and imports.
    void recognisesEveryFile_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("file");
        for (const char *kind : {"huggingface", "deepspeed"}) {
            const QDir dir(configPath(QString::fromLatin1(kind), {}));
            const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
            QVERIFY(files.size() >= 3);
            for (const QString &file : files)
                QTest::addRow("%s/%s", kind, qPrintable(file)) << QString::fromLatin1(kind) << file;
        }
    }
    void recognisesEveryFile()
    {
        QFETCH(QString, kind);
        QFETCH(QString, file);
        const QByteArray content = readFile(configPath(kind, file));
        QVERIFY(!content.isEmpty());
        const auto recognised = io::recogniseConfig(content);
        QVERIFY(recognised);
        QCOMPARE(QString::fromLatin1(toString(*recognised)), kind);
        const auto result = importFile(kind, file);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.model.has_value(), kind == QLatin1String("huggingface"));
        QCOMPARE(imported.scenario.has_value(), kind == QLatin1String("deepspeed"));
        QVERIFY(!imported.read.empty());
        // Every top-level key is read or ignored, and none is both.
        const QJsonObject object = QJsonDocument::fromJson(content).object();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const std::string key = it.key().toStdString();
            const auto under = [&](const std::string &name) {
                return name == key || name.starts_with(key + ".");
            };
            const bool read = std::any_of(imported.read.begin(), imported.read.end(),
                                          [&](const io::ConfigField &f) { return under(f.name); });
            const bool ignored =
                std::any_of(imported.ignored.begin(), imported.ignored.end(),
                            [&](const io::IgnoredField &f) { return under(f.name); });
            QVERIFY2(read || ignored, key.c_str());
        }
        for (const auto &field : imported.ignored) {
            QVERIFY2(!field.why.empty(), field.name.c_str());
            QVERIFY2(std::none_of(imported.read.begin(), imported.read.end(),
                                  [&](const io::ConfigField &f) { return f.name == field.name; }),
                     field.name.c_str());
        }
    }

    // Bad files are refused naming the file's own field.
    void refusals_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("devices");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("message");
        const QByteArray llama = R"("model_type": "llama", "num_hidden_layers": 32, )"
                                 R"("num_attention_heads": 32, "num_key_value_heads": 8, )"
                                 R"("intermediate_size": 14336, "vocab_size": 128256)";
        QTest::addRow("hf: no hidden_size") << "{" + llama + "}" << 0 << "hidden_size"
                                            << "missing";
        QTest::addRow("hf: 0 layers")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": 0, "hidden_size": 4096,
                   "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})")
            << 0 << "num_hidden_layers"
            << "must be at least 1";
        QTest::addRow("hf: layers as text")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": "32", "hidden_size": 4096,
                   "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})")
            << 0 << "num_hidden_layers"
            << "expected a whole number, got '32'";
        QTest::addRow("hf: heads do not divide hidden")
            << "{" + llama + R"(, "hidden_size": 4100})" << 0 << "num_attention_heads"
            << "does not divide";
        QTest::addRow("hf: kv heads do not divide heads")
            << QByteArray(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 4096,
                   "num_attention_heads": 32, "num_key_value_heads": 5,
                   "intermediate_size": 14336, "vocab_size": 32000})")
            << 0 << "num_key_value_heads"
            << "does not divide";
        QTest::addRow("hf: layer_types one short of the layers")
            << QByteArray(R"({"model_type": "gpt_oss", "num_hidden_layers": 3, "hidden_size": 256,
                   "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
                   "sliding_window": 128,
                   "layer_types": ["sliding_attention", "full_attention"]})")
            << 0 << "layer_types"
            << "expected one entry for each of the 3 layers, got 2";
        QTest::addRow("hf: a window beyond 2^24 tokens")
            << QByteArray(R"({"model_type": "mistral", "num_hidden_layers": 2, "hidden_size": 256,
                   "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
                   "sliding_window": 16777217})")
            << 0 << "sliding_window"
            << "must be at most 16777216 tokens, got 16777217";
        QTest::addRow("hf: malformed")
            << QByteArray(R"({"model_type": "llama", "hidden_size": )") << 0 << "hidden_size"
            << "unterminated object at byte 39";
        QTest::addRow("json of no framework") << QByteArray(R"({"foo": 1})") << 0 << ""
                                              << "not a configuration Parascope reads";
        QTest::addRow("ds: stage as a word")
            << QByteArray(R"({"zero_optimization": {"stage": "three"}})") << 0
            << "zero_optimization.stage"
            << "expected a whole number, got 'three'";
        QTest::addRow("ds: bf16 not an object") << QByteArray(R"({"bf16": true})") << 0 << "bf16"
                                                << "expected an object";
        QTest::addRow("ds: micro batch 0") << QByteArray(R"({"train_micro_batch_size_per_gpu": 0})")
                                           << 0 << "train_micro_batch_size_per_gpu"
                                           << "must be at least 1";
        QTest::addRow("ds: global batch not a multiple")
            << QByteArray(R"({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 3,
                             "gradient_accumulation_steps": 4})")
            << 0 << "train_batch_size"
            << "100 is not a multiple of";
        // 64 devices over T 8 × K 4 is D = 2: 2 × 4 × 2 = 16, not 64.
        QTest::addRow("ds: global batch contradicts the devices")
            << QByteArray(R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
                             "gradient_accumulation_steps": 4})")
            << 64 << "train_batch_size"
            << "64 is not train_micro_batch_size_per_gpu × "
               "gradient_accumulation_steps × D = 2 × 4 × D 2 = 16";
        QTest::addRow("ds: devices not a multiple of T·C·K")
            << QByteArray(R"({"train_micro_batch_size_per_gpu": 2})") << 48 << "devices"
            << "not a multiple of T × C × K = 8 × 1 × 4 = 32, which a DeepSpeed config does not "
               "set";
        QTest::addRow("ds: bf16 and fp16")
            << QByteArray(R"({"bf16": {"enabled": true}, "fp16": {"enabled": true}})") << 0
            << "bf16.enabled"
            << "cannot both be enabled";
        QTest::addRow("ds: duplicate key")
            << QByteArray(R"({"train_batch_size": 8, "train_batch_size": 16})") << 0
            << "train_batch_size"
            << "duplicate key";
    }
    void refusals()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, devices);
        QFETCH(QString, key);
        QFETCH(QString, message);
        io::ImportOptions options;
        if (devices > 0)
            options.devices = devices;
        const auto result = io::importConfig(content, {}, presets, options);
        QVERIFY(std::holds_alternative<InputError>(result));
        const InputError &error = std::get<InputError>(result);
        QCOMPARE(QString::fromStdString(error.key), key);
        QVERIFY2(error.message.find(message.toStdString()) != std::string::npos,
                 error.message.c_str());
    }

    // A DeepSpeed config's keys land in the scenario under the deepspeed profile; the base
    // is docs/DESIGN.md §4's default scenario (T 8, K 4, D 2, micro-batch 1, 16 micro-batches).
    void deepSpeedFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("microbatchSize");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("dp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<QString>("assumption");
        // reduce_bucket_size: the gradient buckets (dp_bucket_params) when not the default 5e8
        // (the profile's auto, "auto" too); "auto" for auto.
        QTest::addColumn<QString>("bucket");
        // 256 = 4 × 8 × D: D = 8.
        QTest::addRow("ZeRO-2, offload, fp16")
            << "zero2-offload-fp16.json" << 0 << 2 << 4 << 8 << 8 << "fp16"
            << "selective"
            << "offload is not modelled"
            << "2e+08";
        // 256 devices over T 8 × K 4: D = 8; accumulation 1024 / (2 × 8) = 64 (DeepSpeed's
        // _set_batch_related_parameters).
        QTest::addRow("Megatron-DeepSpeed ZeRO-1, 256 devices")
            << "megatron-deepspeed-zero1.json" << 256 << 1 << 2 << 64 << 8 << "bf16"
            << "full"
            << "DeepSpeed derives it"
            << "auto";
        // Without the devices, the base's D = 2: 1024 / (2 × 2) = 256.
        QTest::addRow("Megatron-DeepSpeed ZeRO-1, base D")
            << "megatron-deepspeed-zero1.json" << 0 << 1 << 2 << 256 << 2 << "bf16"
            << "full"
            << "D = 2 from the base scenario"
            << "auto";
        // Every batch and precision key "auto": the base scenario's values.
        QTest::addRow("Hugging Face Trainer ZeRO-3")
            << "zero3-hf-trainer.json" << 0 << 3 << 1 << 16 << 2 << "bf16"
            << "selective"
            << "train_micro_batch_size_per_gpu is \"auto\""
            << "auto";
    }
    void deepSpeedFiles()
    {
        QFETCH(QString, file);
        QFETCH(int, devices);
        QFETCH(int, zero);
        QFETCH(int, microbatchSize);
        QFETCH(int, microbatches);
        QFETCH(int, dp);
        QFETCH(QString, precision);
        QFETCH(QString, recompute);
        QFETCH(QString, assumption);
        QFETCH(QString, bucket);
        io::ImportOptions options;
        if (devices > 0)
            options.devices = devices;
        const auto result = importFile(QStringLiteral("deepspeed"), file, {}, options);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.kind, io::ConfigKind::deepspeed);
        QVERIFY(imported.scenario);
        const Scenario &s = *imported.scenario;
        QVERIFY(s.framework == Framework::deepspeed);
        QVERIFY(changedFromProfile(s).empty());
        QCOMPARE(s.zero, zero);
        QCOMPARE(s.microbatchSize, microbatchSize);
        QCOMPARE(s.microbatches, microbatches);
        QCOMPARE(s.dp, dp);
        QCOMPARE(QString::fromStdString(fieldText(s, "precision")), precision);
        QCOMPARE(QString::fromStdString(fieldText(s, "recompute")), recompute);
        QCOMPARE(QString::fromStdString(fieldText(s, "dp_bucket_params")), bucket);
        QVERIFY2(contains(imported.assumptions, assumption.toStdString()),
                 io::importSummary(imported).c_str());
        QCOMPARE(s.tp, Scenario{}.tp);
        QCOMPARE(s.pp, Scenario{}.pp);
        QCOMPARE(s.model, Scenario{}.model);
    }

    // What is ignored, exactly, for one file of each kind.
    void ignoredExactly_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("ignored");
        QTest::addRow("Mistral 7B config.json")
            << "huggingface"
            << "mistral-7b-v0.1.json"
            // architectures: the file's name names the model (mistral-7b-v0.1).
            // sliding_window is read: a window of 4096 on every layer.
            << QStringList{"architectures",     "bos_token_id",         "eos_token_id",
                           "initializer_range", "rms_norm_eps",         "rope_theta",
                           "torch_dtype",       "transformers_version", "use_cache"};
        QTest::addRow("ZeRO-2 with offload")
            << "deepspeed"
            << "zero2-offload-fp16.json"
            << QStringList{"zero_optimization.offload_optimizer",
                           "zero_optimization.allgather_bucket_size",
                           "zero_optimization.allgather_partitions",
                           "zero_optimization.contiguous_gradients",
                           "zero_optimization.reduce_scatter",
                           "fp16.hysteresis",
                           "fp16.initial_scale_power",
                           "fp16.loss_scale",
                           "fp16.loss_scale_window",
                           "fp16.min_loss_scale",
                           "optimizer.params",
                           "gradient_clipping",
                           "steps_per_print",
                           "wall_clock_breakdown"};
    }
    void ignoredExactly()
    {
        QFETCH(QString, kind);
        QFETCH(QString, file);
        QFETCH(QStringList, ignored);
        const auto result = importFile(kind, file);
        QVERIFY(std::holds_alternative<io::ImportedConfig>(result));
        QStringList names;
        for (const auto &field : std::get<io::ImportedConfig>(result).ignored)
            names << QString::fromStdString(field.name);
        QCOMPARE(names.join(u','), ignored.join(u','));
    }

    // Emitting a scenario and importing it into a base that differs in every key the file
    // carries gives the scenario back.
    void deepSpeedRoundTrip_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("microbatchSize");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("dp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<int>("replicas"); // zero_replicas: MiCS, T = 1
        QTest::addRow("ZeRO off, bf16, full") << 0 << 1 << 16 << 2 << "bf16"
                                              << "full" << 1;
        QTest::addRow("ZeRO-1, fp16, none") << 1 << 2 << 8 << 4 << "fp16"
                                            << "none" << 1;
        QTest::addRow("ZeRO-2, fp32, full") << 2 << 4 << 1 << 16 << "fp32"
                                            << "full" << 1;
        QTest::addRow("ZeRO-3, bf16, none, D 64") << 3 << 8 << 4 << 64 << "bf16"
                                                  << "none" << 1;
        QTest::addRow("ZeRO-3, fp16, full, D 1") << 3 << 3 << 5 << 1 << "fp16"
                                                 << "full" << 1;
        QTest::addRow("ZeRO-3, bf16, MiCS: 4 replicas of D 64") << 3 << 8 << 4 << 64 << "bf16"
                                                                << "none" << 4;
        QTest::addRow("ZeRO-3, fp16, MiCS: groups of one, D 8") << 3 << 1 << 2 << 8 << "fp16"
                                                                << "full" << 8;
    }
    void deepSpeedRoundTrip()
    {
        QFETCH(int, zero);
        QFETCH(int, microbatchSize);
        QFETCH(int, microbatches);
        QFETCH(int, dp);
        QFETCH(QString, precision);
        QFETCH(QString, recompute);
        QFETCH(int, replicas);
        Scenario s;
        applyFramework(s, Framework::deepspeed);
        s.pp = 1;
        // MiCS groups consecutive ranks of the whole world: no tensor parallelism beside it.
        if (replicas > 1)
            s.tp = 1;
        s.zero = zero;
        s.zeroReplicas = replicas;
        // MiCS all-reduces across its replication groups once a step (mics.py).
        s.deferReplicaReduce = replicas > 1;
        s.microbatchSize = microbatchSize;
        s.microbatches = microbatches;
        s.dp = dp;
        QVERIFY(!setField(s, "precision", precision.toStdString()));
        QVERIFY(!setField(s, "recompute", recompute.toStdString()));
        const auto emitted = io::emitConfig(s, presets, Framework::deepspeed);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const QByteArray text = QByteArray::fromStdString(std::get<std::string>(emitted));
        QVERIFY2(!QJsonDocument::fromJson(text).isNull(), text.constData());

        // The base differs in every key the file carries.
        Scenario base = s;
        base.zero = (zero + 1) % 4;
        base.microbatchSize = microbatchSize + 1;
        base.microbatches = microbatches + 1;
        base.dp = dp + 1;
        base.zeroReplicas = replicas > 1 ? 1 : 2;
        base.precision = s.precision == Precision::bf16 ? Precision::fp16 : Precision::bf16;
        // recompute=full is the activation_checkpointing section; none has no DeepSpeed
        // setting, so the file does not carry it and the base's value stays.
        base.recompute = s.recompute == Recompute::full ? Recompute::none : s.recompute;
        const auto result = io::importConfig(text, base, presets);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QCOMPARE(imported.kind, io::ConfigKind::deepspeed);
        for (const FieldInfo &field : scenarioFields())
            QCOMPARE(fieldText(*imported.scenario, field.key), fieldText(s, field.key));
        QVERIFY(*imported.scenario == s);
        QVERIFY(std::any_of(imported.ignored.begin(), imported.ignored.end(),
                            [](const io::IgnoredField &f) {
                                return f.name == "comment" && f.why == "Parascope's comment";
                            }));
    }

    // zero_optimization.mics_shard_size S, MiCS (deepspeed/runtime/zero/mics.py): ZeRO-3 over
    // shard groups of S ranks whose shards' gradients the groups all-reduce (MiCS_Optimizer),
    // R = D x C / S; engine.py builds it at stage 3 only (_configure_zero_optimizer), and not
    // for S of 0 or below (-1, DeepSpeedZeroConfig's default); mics_utils.py asserts that S
    // divides the ranks it groups. ZeRO++'s hpZ (zero_hpz_partition_size) keeps a second copy
    // of the weights only: not hybrid sharding. The replication groups all-reduce at the
    // gradient accumulation boundary only (mics.py, allreduce_mics_shard_grads):
    // defer_replica_reduce. D = 32 from the batch keys; the starting scenario has zero_replicas
    // 4 and the all-reduce deferred, so each row's comes from the file.
    void deepSpeedMics_data()
    {
        QTest::addColumn<QByteArray>("keys"); // in zero_optimization, after the stage
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("replicas");    // 0: refused
        QTest::addColumn<QString>("key");     // refused: the key named; else one listed ignored
        QTest::addColumn<QString>("mention"); // refused: part of the message; else of a line
        const QString mics = QStringLiteral("zero_optimization.mics_shard_size");
        QTest::addRow("groups of 8 of D 32: 4 replicas")
            << QByteArray(R"("mics_shard_size": 8)") << 3 << 1 << 1 << 4 << ""
            << "";
        QTest::addRow("the hierarchical gather, not timed apart")
            << QByteArray(R"("mics_shard_size": 8, "mics_hierarchical_params_gather": true)") << 3
            << 1 << 1 << 4 << "zero_optimization.mics_hierarchical_params_gather"
            << "";
        QTest::addRow("C 2: groups of 16 of D x C 64, 4 replicas")
            << QByteArray(R"("mics_shard_size": 16)") << 3 << 1 << 2 << 4 << ""
            << "";
        QTest::addRow("T 2 from the base: the world's consecutive ranks")
            << QByteArray(R"("mics_shard_size": 8)") << 3 << 2 << 1 << 4 << ""
            << "mixes model-parallel ranks";
        QTest::addRow("-1, DeepSpeed's default: off")
            << QByteArray(R"("mics_shard_size": -1)") << 3 << 1 << 1 << 1 << ""
            << "not the base scenario's 4";
        QTest::addRow("ZeRO-2: DeepSpeed builds MiCS at stage 3 only")
            << QByteArray(R"("mics_shard_size": 8)") << 2 << 1 << 1 << 1 << mics << "";
        QTest::addRow("ZeRO++ hpZ: a copy of the weights, not replicas")
            << QByteArray(R"("zero_hpz_partition_size": 8)") << 3 << 1 << 1 << 1
            << "zero_optimization.zero_hpz_partition_size"
            << "not the base scenario's 4";
        QTest::addRow("12 does not divide D x C = 32")
            << QByteArray(R"("mics_shard_size": 12)") << 3 << 1 << 1 << 0 << mics
            << "does not divide the D × C = 32";
        QTest::addRow("groups of 2 split C 4") << QByteArray(R"("mics_shard_size": 2)") << 3 << 1
                                               << 4 << 0 << mics << "not a multiple of C = 4";
        QTest::addRow("\"auto\" is no size") << QByteArray(R"("mics_shard_size": "auto")") << 3 << 1
                                             << 1 << 0 << mics << "expected a whole number";
    }
    void deepSpeedMics()
    {
        QFETCH(QByteArray, keys);
        QFETCH(int, stage);
        QFETCH(int, replicas);
        QFETCH(QString, key);
        QFETCH(QString, mention);
        const QByteArray content =
            R"({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 1,
                "gradient_accumulation_steps": 1, "zero_optimization": {"stage": )" +
            QByteArray::number(stage) + ", " + keys + "}}";
        Scenario base;
        QFETCH(int, tp);
        QFETCH(int, cp);
        base.tp = tp;
        base.cp = cp;
        base.pp = 1;
        base.zeroReplicas = 4;
        base.deferReplicaReduce = true;
        const auto result = io::importConfig(content, base, presets);
        if (replicas == 0) {
            QVERIFY(std::holds_alternative<InputError>(result));
            const InputError &error = std::get<InputError>(result);
            QCOMPARE(QString::fromStdString(error.key), key);
            QVERIFY2(error.message.find(mention.toStdString()) != std::string::npos,
                     error.message.c_str());
            return;
        }
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const auto &imported = std::get<io::ImportedConfig>(result);
        QVERIFY(imported.scenario);
        QCOMPARE(imported.scenario->dp, 32);
        QCOMPARE(imported.scenario->zeroReplicas, replicas);
        QCOMPARE(imported.scenario->deferReplicaReduce, replicas > 1);
        const bool ignored =
            std::any_of(imported.ignored.begin(), imported.ignored.end(),
                        [&](const io::IgnoredField &f) { return f.name == key.toStdString(); });
        QCOMPARE(ignored, !key.isEmpty());
        if (!mention.isEmpty())
            QVERIFY2(contains(imported.assumptions, mention.toStdString()),
                     io::importSummary(imported).c_str());
        const auto invalid = validate(*imported.scenario, presets);
        QVERIFY2(!invalid, invalid ? invalid->toString().c_str() : "");
    }

    // data_types.grad_accum_dtype is grad_precision (deepspeed/runtime/engine.py,
    // get_data_types; DtypeEnum's spellings); FP32 accumulation of BF16 weights is DeepSpeed's
    // BF16_Optimizer, which it runs under ZeRO-1 only, so only such a file is written with it,
    // and reads back so. Other layouts with FP32 gradients get a line saying why not.
    void deepSpeedGradAccumulation_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("grads"); // empty: refused
        QTest::addRow("fp32") << "fp32"
                              << "fp32";
        QTest::addRow("float32") << "float32"
                                 << "fp32";
        QTest::addRow("bf16") << "bf16"
                              << "bf16";
        QTest::addRow("fp16") << "fp16"
                              << "bf16";
        QTest::addRow("int8 refused") << "int8"
                                      << "";
    }
    void deepSpeedGradAccumulation()
    {
        QFETCH(QString, dtype);
        QFETCH(QString, grads);
        const QByteArray content =
            QStringLiteral(R"({"zero_optimization": {"stage": 1}, "data_types": )"
                           R"({"grad_accum_dtype": "%1"}})")
                .arg(dtype)
                .toUtf8();
        Scenario base;
        applyFramework(base, Framework::deepspeed);
        base.gradPrecision = grads == QLatin1String("fp32") ? Precision::bf16 : Precision::fp32;
        const auto result = io::importConfig(content, base, presets);
        if (grads.isEmpty()) {
            QVERIFY(std::holds_alternative<core::InputError>(result));
            const auto &error = std::get<core::InputError>(result);
            QCOMPARE(error.key, std::string("data_types.grad_accum_dtype"));
            QVERIFY2(error.message.find("expected fp32, bf16 or fp16") != std::string::npos,
                     error.message.c_str());
            return;
        }
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        QCOMPARE(QString::fromStdString(
                     fieldText(*std::get<io::ImportedConfig>(result).scenario, "grad_precision")),
                 grads);
    }
    void deepSpeedWritesGradAccumulation_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("grads");
        QTest::addColumn<bool>("written");
        QTest::addColumn<bool>("line");
        QTest::addRow("ZeRO-1, FP32: BF16_Optimizer") << 1 << "fp32" << true << false;
        QTest::addRow("ZeRO-2, FP32: not DeepSpeed's") << 2 << "fp32" << false << true;
        QTest::addRow("ZeRO off, FP32: refused by DeepSpeed") << 0 << "fp32" << false << true;
        QTest::addRow("ZeRO-1, BF16: DeepSpeed's default") << 1 << "bf16" << false << false;
    }
    void deepSpeedWritesGradAccumulation()
    {
        QFETCH(int, zero);
        QFETCH(QString, grads);
        QFETCH(bool, written);
        QFETCH(bool, line);
        Scenario s;
        applyFramework(s, Framework::deepspeed);
        s.pp = 1;
        s.zero = zero;
        QVERIFY(!setField(s, "grad_precision", grads.toStdString()));
        const std::string text = io::emitDeepSpeed(s, *presets.model(s.model));
        const QJsonObject object =
            QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
        QCOMPARE(object.value(QLatin1String("data_types"))
                     .toObject()
                     .value(QLatin1String("grad_accum_dtype"))
                     .toString(),
                 written ? QStringLiteral("fp32") : QString());
        QCOMPARE(text.find("grad_precision fp32: DeepSpeed accumulates FP32 gradients") !=
                     std::string::npos,
                 line);
        if (!written)
            return;
        // Read back into a base accumulating in BF16: FP32 again.
        Scenario base = s;
        base.gradPrecision = Precision::bf16;
        const auto result = io::importConfig(QByteArray::fromStdString(text), base, presets);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        QVERIFY(*std::get<io::ImportedConfig>(result).scenario == s);
    }

    // overlap_comm is dp_overlap=auto. Unset, DeepSpeed turns it on for ZeRO-3 only
    // (deepspeed/runtime/zero/config.py, overlap_comm_valid): a ZeRO-1 or 2 file without it
    // hides nothing. A written file says which, so that it runs as it was timed.
    void deepSpeedOverlapComm_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("overlapComm"); // "" when the file has no such key
        QTest::addColumn<QString>("dpOverlap");
        QTest::addRow("ZeRO-1, unset") << 1 << ""
                                       << "0";
        QTest::addRow("ZeRO-2, unset") << 2 << ""
                                       << "0";
        QTest::addRow("ZeRO-3, unset") << 3 << ""
                                       << "auto";
        QTest::addRow("ZeRO-2, on") << 2 << "true"
                                    << "auto";
        QTest::addRow("ZeRO-3, off") << 3 << "false"
                                     << "0";
        QTest::addRow("ZeRO off, unset") << 0 << ""
                                         << "auto";
    }
    void deepSpeedOverlapComm()
    {
        QFETCH(int, zero);
        QFETCH(QString, overlapComm);
        QFETCH(QString, dpOverlap);
        QString zeroSection = QStringLiteral("\"stage\": %1").arg(zero);
        if (!overlapComm.isEmpty())
            zeroSection += QStringLiteral(", \"overlap_comm\": ") + overlapComm;
        const QByteArray text = QStringLiteral("{\"train_micro_batch_size_per_gpu\": 1, "
                                               "\"zero_optimization\": {%1}, "
                                               "\"bf16\": {\"enabled\": true}}")
                                    .arg(zeroSection)
                                    .toUtf8();
        const auto result = io::importConfig(text, {}, presets);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(result), refusal(result).c_str());
        const Scenario &s = *std::get<io::ImportedConfig>(result).scenario;
        QCOMPARE(s.zero, zero);
        QCOMPARE(QString::fromStdString(fieldText(s, "dp_overlap")), dpOverlap);
        if (overlapComm.isEmpty() && dpOverlap == QLatin1String("0"))
            QVERIFY(contains(std::get<io::ImportedConfig>(result).assumptions,
                             "overlap_comm is not in the file"));

        // Written back, the file carries the setting whenever ZeRO is on, and reads the same.
        const auto emitted = io::emitConfig(s, presets, Framework::deepspeed);
        QVERIFY(std::holds_alternative<std::string>(emitted));
        const std::string written = std::get<std::string>(emitted);
        if (zero >= 1)
            QVERIFY2(written.find(dpOverlap == QLatin1String("0")
                                      ? "\"overlap_comm\": false"
                                      : "\"overlap_comm\": true") != std::string::npos,
                     written.c_str());
        const auto again = io::importConfig(QByteArray::fromStdString(written), {}, presets);
        QVERIFY2(std::holds_alternative<io::ImportedConfig>(again), refusal(again).c_str());
        QCOMPARE(QString::fromStdString(
                     fieldText(*std::get<io::ImportedConfig>(again).scenario, "dp_overlap")),
                 dpOverlap);
    }

    // DeepSpeed's pipeline engine has one schedule, 1F1B (deepspeed/runtime/pipe/schedule.py,
    // TrainSchedule): any other is a line of the comment that says so.
    void deepSpeedScheduleComment_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("line"); // empty: no line names the schedule
        QTest::addRow("1f1b") << "1f1b"
                              << "";
        QTest::addRow("gpipe") << "gpipe"
                               << "schedule gpipe: DeepSpeed's pipeline engine runs 1F1B only";
        QTest::addRow("zb-h1") << "zb-h1"
                               << "schedule zb-h1: DeepSpeed's pipeline engine runs 1F1B only";
        QTest::addRow("dualpipev") << "dualpipev"
                                   << "schedule dualpipev: DeepSpeed's pipeline engine runs 1F1B "
                                      "only; it has no DualPipeV";
    }
    void deepSpeedScheduleComment()
    {
        QFETCH(QString, schedule);
        QFETCH(QString, line);
        Scenario s;
        applyFramework(s, Framework::deepspeed);
        QVERIFY(!setField(s, "schedule", schedule.toStdString()));
        QVERIFY(s.pp > 1);
        const QByteArray text =
            QByteArray::fromStdString(io::emitDeepSpeed(s, *presets.model(s.model)));
        const QJsonObject object = QJsonDocument::fromJson(text).object();
        QStringList found;
        for (const QJsonValue &comment : object.value(QLatin1String("comment")).toArray())
            if (comment.toString().startsWith(QLatin1String("schedule ")))
                found << comment.toString();
        QCOMPARE(found.size(), line.isEmpty() ? 0 : 1);
        if (!line.isEmpty())
            QVERIFY2(found.front().startsWith(line), qPrintable(found.front()));
    }

    // What DeepSpeed has no key for is written as comment lines.
    void deepSpeedComments()
    {
        Scenario s;
        applyFramework(s, Framework::deepspeed);
        s.cp = 2;
        s.ep = 2;
        const std::string text = io::emitDeepSpeed(s, *presets.model(s.model));
        for (const char *line :
             {"T = 8", "K = 4", "C = 2", "E = 2", "sequence_parallel", "recompute=selective"})
            QVERIFY2(text.find(line) != std::string::npos, line);
        // 1 × 16 × 2.
        QVERIFY(text.find("\"train_batch_size\": 32") != std::string::npos);
        // The profile's FlashAttention-2 is Transformers' default and needs no line; another
        // kernel says what the model code must load.
        QVERIFY(text.find("attention=") == std::string::npos);
        s.attention = Attention::flash;
        QVERIFY(io::emitDeepSpeed(s, *presets.model(s.model)).find("attention=flash: ") !=
                std::string::npos);
    }

    // DeepSpeed-MoE sends every (token, expert) copy in one all-to-all (deepspeed/moe/
    // sharded_moe.py, MOELayer and _AllToAll) and has no flex dispatcher (DeepEP, HybridEP:
    // docs/experts.md, "Dispatchers"): with experts spread, flex is a line naming the key and
    // what DeepSpeed runs instead; without expert parallelism nothing is dispatched.
    void deepSpeedDispatcherComment_data()
    {
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("dispatcher");
        QTest::addColumn<QString>("line"); // empty: no line names the dispatcher
        QTest::addRow("E 2, all-to-all: DeepSpeed's own") << 2 << "alltoall"
                                                          << "";
        QTest::addRow("E 2, flex: none in DeepSpeed-MoE")
            << 2 << "flex"
            << "ep_dispatcher=flex: DeepSpeed-MoE has no dispatcher that sends a token once to "
               "each node (DeepEP, HybridEP); it runs the all-to-all, each copy on its own "
               "(ep_dispatcher=alltoall)";
        QTest::addRow("E 1, flex: nothing dispatched") << 1 << "flex"
                                                       << "";
    }
    void deepSpeedDispatcherComment()
    {
        QFETCH(int, ep);
        QFETCH(QString, dispatcher);
        QFETCH(QString, line);
        Scenario s;
        applyFramework(s, Framework::deepspeed);
        QVERIFY(!setField(s, "model", "qwen3-30b-a3b"));
        s.ep = ep;
        QVERIFY(!setField(s, "ep_dispatcher", dispatcher.toStdString()));
        const QByteArray text =
            QByteArray::fromStdString(io::emitDeepSpeed(s, *presets.model(s.model)));
        const QJsonObject object = QJsonDocument::fromJson(text).object();
        QStringList found;
        for (const QJsonValue &comment : object.value(QLatin1String("comment")).toArray())
            if (comment.toString().contains(QLatin1String("ep_dispatcher")))
                found << comment.toString();
        QCOMPARE(found.size(), line.isEmpty() ? 0 : 1);
        if (!line.isEmpty())
            QVERIFY2(found.front().startsWith(line), qPrintable(found.front()));
    }
};

QTEST_GUILESS_MAIN(TestImportJson)
#include "tst_import_json.moc"
