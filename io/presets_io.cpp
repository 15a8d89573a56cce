#include "io/presets_io.h"

#include "core/echo.h"
#include "core/evaluate.h"
#include "core/validate.h"
#include "io/input_file.h"
#include "io/json_fields.h"
#include "io/save_file.h"
#include "io/text.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTextStream>

namespace io {

namespace {

// The models or the devices of a presets file: an array of objects, each read by
// `parse` as "models[3].".
template <typename Spec, typename Parse>
std::optional<core::InputError> parseList(const QJsonObject &root, const char *key,
                                          std::vector<Spec> &out, Parse parse)
{
    const QJsonValue list = root.value(QLatin1String(key));
    if (list.isUndefined())
        return std::nullopt;
    if (!list.isArray())
        return core::InputError{key, "expected an array of objects, got " + describe(list)};
    const QJsonArray array = list.toArray();
    out.reserve(static_cast<std::size_t>(array.size()));
    for (qsizetype i = 0; i < array.size(); ++i) {
        const std::string prefix = key + ("[" + std::to_string(i) + "].");
        if (!array.at(i).isObject())
            return core::InputError{prefix.substr(0, prefix.size() - 1),
                                    "expected an object, got " + describe(array.at(i))};
        Spec spec;
        if (auto e = parse(array.at(i).toObject(), spec, prefix))
            return e;
        out.push_back(std::move(spec));
    }
    return std::nullopt;
}

} // namespace

std::optional<core::InputError> parseModel(const QJsonObject &object, core::ModelSpec &m,
                                           const std::string &prefix)
{
    JsonFields f(object, prefix);
    f.text("id", m.id);
    f.text("name", m.name);
    f.integer("layers", m.layers);
    f.integer("hidden", m.hidden);
    f.integer("heads", m.heads);
    f.integer("kv_heads", m.kvHeads);
    f.integer("ffn_hidden", m.ffnHidden);
    f.integer("vocab", m.vocab);
    f.boolean("gated_mlp", m.gatedMlp);
    f.boolean("tied_embeddings", m.tiedEmbeddings);
    f.boolean("dropout", m.dropout);
    f.boolean("bias", m.bias);
    f.integer("learned_positions", m.learnedPositions);
    f.integer("context_window", m.contextWindow);
    f.integer("head_dim", m.headDimOverride);
    f.boolean("qk_norm", m.qkNorm);
    f.boolean("attention_bias", m.attentionBias);
    f.boolean("qkv_bias", m.qkvBias);
    f.boolean("attention_sinks", m.attentionSinks);
    f.integer("sliding_window", m.slidingWindow);
    f.integer("full_attention_period", m.fullAttentionPeriod);
    f.integer("kv_lora_rank", m.kvLoraRank);
    f.integer("q_lora_rank", m.qLoraRank);
    f.integer("rope_head_dim", m.ropeHeadDim);
    f.integer("v_head_dim", m.vHeadDim);
    f.integer("experts", m.experts);
    f.integer("experts_per_token", m.expertsPerToken);
    f.integer("shared_experts", m.sharedExperts);
    f.integer("expert_ffn_hidden", m.expertFfnHidden);
    f.integer("dense_layers", m.denseLayers);
    f.integer("moe_layer_period", m.moeLayerPeriod);
    f.boolean("router_bias", m.routerBias);
    f.integer("router_groups", m.routerGroups);
    f.integer("router_group_limit", m.routerGroupLimit);
    f.boolean("expert_bias", m.expertBias);
    f.integer64("params", m.params, core::limits::kParams, "parameters");
    f.integer64("nominal_params", m.nominalParams, core::limits::kParams, "parameters");
    f.text("source", m.source);
    if (!f.has("kv_heads"))
        m.kvHeads = m.heads; // multi-head attention unless said otherwise
    if (m.id.empty())
        m.id = m.name;
    if (m.id.empty())
        f.fail("name", "a model needs an id or a name");
    if (m.hasArchitecture() && m.params > 0)
        f.fail("params", "give either the architecture or params, not both");
    // A model without layers is its parameter count alone, which is all that is written back
    // (modelToJson): any part of an architecture beside it would be dropped unseen. (Negative
    // layers, validateModel names.)
    if (!m.hasArchitecture() && m.layers == 0)
        for (const char *key : {"hidden",
                                "heads",
                                "kv_heads",
                                "ffn_hidden",
                                "vocab",
                                "gated_mlp",
                                "tied_embeddings",
                                "dropout",
                                "bias",
                                "learned_positions",
                                "context_window",
                                "head_dim",
                                "qk_norm",
                                "attention_bias",
                                "qkv_bias",
                                "attention_sinks",
                                "sliding_window",
                                "full_attention_period",
                                "kv_lora_rank",
                                "q_lora_rank",
                                "rope_head_dim",
                                "v_head_dim",
                                "experts",
                                "experts_per_token",
                                "shared_experts",
                                "expert_ffn_hidden",
                                "dense_layers",
                                "moe_layer_period",
                                "router_bias",
                                "router_groups",
                                "router_group_limit",
                                "expert_bias"})
            if (f.has(key)) {
                f.fail(key, "an architecture needs layers; a model without them is given by "
                            "params alone: add layers, or remove " +
                                std::string(key));
                break;
            }
    if (auto e = f.finish())
        return e;
    if (auto e = core::validateModel(m)) {
        e->key = prefix + e->key.substr(e->key.find('.') + 1);
        return e;
    }
    return std::nullopt;
}

// The head-width curves: {"forward": [[width, factor], ...], "backward": ..., ...}, by the keys
// of HeadWidthScale::kCurves; what the numbers may be is validateDevice's to say.
std::optional<core::InputError> parseHeadWidths(const QJsonValue &value, core::HeadWidthScale &out,
                                                const std::string &key)
{
    if (!value.isObject())
        return core::InputError{key, "expected an object of curves (forward, backward, "
                                     "fp8_forward, ...), got " +
                                         describe(value)};
    out = {};
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string name = it.key().toStdString();
        core::WidthCurve *curve = out.curve(name);
        if (!curve)
            return core::InputError{key + "." + core::excerpt(name),
                                    "unknown curve; expected forward, backward, fp8_forward, "
                                    "fp8_backward, flash2_forward, flash2_backward, "
                                    "flash3_forward or flash3_backward"};
        const std::string where = key + "." + name;
        if (!it.value().isArray())
            return core::InputError{where, "expected an array of [head width, factor] pairs, got " +
                                               describe(it.value())};
        const QJsonArray points = it.value().toArray();
        for (qsizetype i = 0; i < points.size(); ++i) {
            const QJsonArray point = points.at(i).toArray();
            if (!points.at(i).isArray() || point.size() != 2 || !point.at(0).isDouble() ||
                !point.at(1).isDouble())
                return core::InputError{where + "[" + std::to_string(i) + "]",
                                        "expected a [head width, factor] pair of numbers, got " +
                                            describe(points.at(i))};
            curve->emplace_back(point.at(0).toDouble(), point.at(1).toDouble());
        }
    }
    return std::nullopt;
}

std::optional<core::InputError> parseDevice(const QJsonObject &object, core::DeviceSpec &d,
                                            const std::string &prefix)
{
    JsonFields f(object, prefix);
    f.text("id", d.id);
    f.text("name", d.name);
    f.number("memory_gib", d.memoryGib);
    f.known("tflops");
    f.integer("devices_per_node", d.devicesPerNode);
    f.integer("job_devices_per_node", d.jobDevicesPerNode);
    f.number("intra_node_gb_per_s", d.intraNodeGbPerS);
    f.number("inter_node_gb_per_s", d.interNodeGbPerS);
    f.number("tdp_w", d.tdpW);
    f.number("hbm_gb_per_s", d.hbmGbPerS);
    f.number("host_gb_per_s", d.hostGbPerS);
    f.number("host_memory_gb", d.hostMemoryGb);
    f.number("matmul_efficiency", d.matmulEfficiency);
    f.number("fp8_matmul_efficiency", d.fp8MatmulEfficiency);
    f.number("fp8_block_matmul_efficiency", d.fp8BlockMatmulEfficiency);
    f.number("nvfp4_matmul_efficiency", d.nvfp4MatmulEfficiency);
    f.number("attention_efficiency", d.attentionEfficiency);
    f.number("attention_backward_efficiency", d.attentionBackwardEfficiency);
    f.number("flash2_efficiency", d.flash2Efficiency);
    f.number("flash2_backward_efficiency", d.flash2BackwardEfficiency);
    f.number("flash3_efficiency", d.flash3Efficiency);
    f.number("flash3_backward_efficiency", d.flash3BackwardEfficiency);
    f.number("attention_block_overhead", d.attentionBlockOverhead);
    f.number("attention_tokens", d.attentionTokens);
    f.number("fp8_attention_speedup", d.fp8AttentionSpeedup);
    f.number("fp8_attention_backward_speedup", d.fp8AttentionBackwardSpeedup);
    f.known("attention_head_widths");
    f.number("memory_efficiency", d.memoryEfficiency);
    f.number("eager_memory_efficiency", d.eagerMemoryEfficiency);
    f.number("intra_node_efficiency", d.intraNodeEfficiency);
    f.number("inter_node_efficiency", d.interNodeEfficiency);
    f.number("host_efficiency", d.hostEfficiency);
    f.integer("compute_units", d.computeUnits);
    f.integer("collective_units", d.collectiveUnits);
    f.number("compute_capability", d.computeCapability);
    f.known("assumed_rates");
    f.text("process", d.process);
    f.text("source", d.source);
    if (d.id.empty())
        d.id = d.name;
    if (d.id.empty())
        f.fail("name", "a device needs an id or a name");
    if (auto e = f.finish())
        return e;
    if (object.contains(QStringLiteral("tflops"))) {
        const QJsonValue value = object.value(QStringLiteral("tflops"));
        if (!value.isObject())
            return core::InputError{prefix + "tflops", "expected an object of precision: TFLOPS, "
                                                       "got " +
                                                           describe(value)};
        d.tflops.clear();
        const QJsonObject table = value.toObject();
        for (auto it = table.begin(); it != table.end(); ++it) {
            const std::string key = it.key().toStdString();
            auto precision = core::parseEnum<core::Precision>(key);
            if (!precision)
                return core::InputError{prefix + "tflops." + core::excerpt(key),
                                        "unknown precision; expected " +
                                            core::allowedNames<core::Precision>()};
            if (!it.value().isDouble())
                return core::InputError{prefix + "tflops." + key,
                                        "expected a number, got " + describe(it.value())};
            d.tflops[*precision] = it.value().toDouble();
        }
    }
    if (object.contains(QStringLiteral("attention_head_widths")))
        if (auto e = parseHeadWidths(object.value(QStringLiteral("attention_head_widths")),
                                     d.attentionHeadWidths, prefix + "attention_head_widths"))
            return e;
    if (object.contains(QStringLiteral("assumed_rates"))) {
        const QJsonValue value = object.value(QStringLiteral("assumed_rates"));
        if (!value.isObject())
            return core::InputError{prefix + "assumed_rates",
                                    "expected an object of rate: note, got " + describe(value)};
        d.rateNotes.clear();
        const QJsonObject notes = value.toObject();
        for (auto it = notes.begin(); it != notes.end(); ++it) {
            if (!it.value().isString())
                return core::InputError{prefix + "assumed_rates." +
                                            core::excerpt(it.key().toStdString()),
                                        "expected a note as text, got " + describe(it.value())};
            d.rateNotes[it.key().toStdString()] = it.value().toString().toStdString();
        }
    }
    if (auto e = core::validateDevice(d)) {
        e->key = prefix + e->key.substr(e->key.find('.') + 1);
        return e;
    }
    return std::nullopt;
}

std::optional<core::InputError> mergePresets(core::Presets &presets, const QByteArray &json)
{
    QJsonObject root;
    if (auto e = parseJsonObject(json, root, "presets file"))
        return e;
    JsonFields f(root, "");
    std::string format;
    double version = 0;
    f.text("format", format);
    f.number("version", version);
    f.known("models");
    f.known("devices");
    if (auto e = f.finish())
        return e;
    if (format != kPresetsFormat)
        return core::InputError{"format", "expected \"" + std::string(kPresetsFormat) + "\", got " +
                                              describe(root.value(QStringLiteral("format")))};
    if (version != kPresetsVersion)
        return core::InputError{"version", "expected " + std::to_string(kPresetsVersion) +
                                               ", the version this Parascope reads, got " +
                                               describe(root.value(QStringLiteral("version")))};

    // Parse everything before changing anything: a bad file adds nothing.
    core::Presets incoming;
    if (auto e = parseList(root, "models", incoming.models, parseModel))
        return e;
    if (auto e = parseList(root, "devices", incoming.devices, parseDevice))
        return e;
    presets.merge(std::move(incoming));
    return std::nullopt;
}

std::optional<core::InputError> mergePresetsFile(core::Presets &presets, const QString &path)
{
    QByteArray json;
    if (auto e = readInputFile(path, json))
        return e;
    if (auto e = mergePresets(presets, json))
        return inFile(*e, path);
    return std::nullopt;
}

core::Presets builtinPresets()
{
    core::Presets presets;
    for (const auto *name : {":/presets/models.json", ":/presets/devices.json"}) {
        const QString path = QLatin1String(name);
        if (auto e = mergePresetsFile(presets, path))
            qFatal("built-in presets are broken: %s", e->toString().c_str());
    }
    return presets;
}

QString userPresetsPath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation))
        .filePath(QStringLiteral("presets.json"));
}

std::optional<core::InputError> addModelToPresetsFile(const core::ModelSpec &model,
                                                      const QString &path)
{
    core::Presets file;
    if (QFileInfo::exists(path))
        if (auto e = mergePresetsFile(file, path))
            return e;
    file.put(model);
    // As the file is read back: no derived keys such as presetsToJson's exact_params.
    const QJsonObject root = presetsDocument(file, false);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return core::InputError{{}, "cannot create the folder of " + describePath(path)};
    if (auto e = saveFile(path, QJsonDocument(root).toJson(QJsonDocument::Indented)))
        return core::InputError{{}, e->toStdString()};
    return std::nullopt;
}

std::optional<core::InputError> loadPresets(core::Presets &out, const QString &extraFile)
{
    core::Presets presets = builtinPresets();
    const QString user = userPresetsPath();
    if (QFileInfo::exists(user))
        if (auto e = mergePresetsFile(presets, user))
            return e;
    if (!extraFile.isEmpty())
        if (auto e = mergePresetsFile(presets, extraFile)) {
            if (e->key.empty())
                e->key = "--presets";
            return e;
        }
    out = std::move(presets);
    return std::nullopt;
}

QJsonObject modelToJson(const core::ModelSpec &m)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), qs(m.id));
    o.insert(QStringLiteral("name"), qs(m.name));
    if (m.hasArchitecture()) {
        o.insert(QStringLiteral("layers"), m.layers);
        o.insert(QStringLiteral("hidden"), m.hidden);
        o.insert(QStringLiteral("heads"), m.heads);
        o.insert(QStringLiteral("kv_heads"), m.kvHeads);
        o.insert(QStringLiteral("ffn_hidden"), m.ffnHidden);
        o.insert(QStringLiteral("vocab"), m.vocab);
        o.insert(QStringLiteral("gated_mlp"), m.gatedMlp);
        o.insert(QStringLiteral("tied_embeddings"), m.tiedEmbeddings);
        o.insert(QStringLiteral("dropout"), m.dropout);
        o.insert(QStringLiteral("bias"), m.bias);
        o.insert(QStringLiteral("learned_positions"), m.learnedPositions);
        if (m.contextWindow > 0)
            o.insert(QStringLiteral("context_window"), m.contextWindow);
        // Written only when set, so a dense model's file stays as it was.
        const auto nonZero = [&o](const char *key, int value) {
            if (value != 0)
                o.insert(QLatin1String(key), value);
        };
        const auto isTrue = [&o](const char *key, bool value) {
            if (value)
                o.insert(QLatin1String(key), true);
        };
        nonZero("head_dim", m.headDimOverride);
        isTrue("qk_norm", m.qkNorm);
        isTrue("attention_bias", m.attentionBias);
        isTrue("qkv_bias", m.qkvBias);
        isTrue("attention_sinks", m.attentionSinks);
        nonZero("sliding_window", m.slidingWindow);
        nonZero("full_attention_period", m.fullAttentionPeriod);
        nonZero("kv_lora_rank", m.kvLoraRank);
        nonZero("q_lora_rank", m.qLoraRank);
        nonZero("rope_head_dim", m.ropeHeadDim);
        nonZero("v_head_dim", m.vHeadDim);
        nonZero("experts", m.experts);
        nonZero("experts_per_token", m.expertsPerToken);
        nonZero("shared_experts", m.sharedExperts);
        nonZero("expert_ffn_hidden", m.expertFfnHidden);
        nonZero("dense_layers", m.denseLayers);
        if (m.moeLayerPeriod != 1)
            o.insert(QStringLiteral("moe_layer_period"), m.moeLayerPeriod);
        isTrue("router_bias", m.routerBias);
        nonZero("router_groups", m.routerGroups);
        nonZero("router_group_limit", m.routerGroupLimit);
        isTrue("expert_bias", m.expertBias);
    } else {
        o.insert(QStringLiteral("params"), qint64(m.params));
    }
    if (m.nominalParams > 0)
        o.insert(QStringLiteral("nominal_params"), qint64(m.nominalParams));
    if (!m.source.empty())
        o.insert(QStringLiteral("source"), qs(m.source));
    return o;
}

QJsonObject deviceToJson(const core::DeviceSpec &d)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), qs(d.id));
    o.insert(QStringLiteral("name"), qs(d.name));
    o.insert(QStringLiteral("memory_gib"), d.memoryGib);
    QJsonObject tflops;
    for (const auto &[precision, value] : d.tflops)
        tflops.insert(qs(core::toString(precision)), value);
    o.insert(QStringLiteral("tflops"), tflops);
    o.insert(QStringLiteral("devices_per_node"), d.devicesPerNode);
    if (d.jobDevicesPerNode != 0)
        o.insert(QStringLiteral("job_devices_per_node"), d.jobDevicesPerNode);
    o.insert(QStringLiteral("intra_node_gb_per_s"), d.intraNodeGbPerS);
    o.insert(QStringLiteral("inter_node_gb_per_s"), d.interNodeGbPerS);
    o.insert(QStringLiteral("tdp_w"), d.tdpW);
    // The step-time model's data: written only when given, 0 being "not published".
    if (d.hbmGbPerS != 0)
        o.insert(QStringLiteral("hbm_gb_per_s"), d.hbmGbPerS);
    if (d.hostGbPerS != 0)
        o.insert(QStringLiteral("host_gb_per_s"), d.hostGbPerS);
    if (d.hostMemoryGb != 0)
        o.insert(QStringLiteral("host_memory_gb"), d.hostMemoryGb);
    for (const auto &[key, value] : core::efficiencyFields(d))
        if (value != 0)
            o.insert(QLatin1String(key), value);
    if (d.attentionBlockOverhead != 0)
        o.insert(QStringLiteral("attention_block_overhead"), d.attentionBlockOverhead);
    if (d.attentionTokens != 0)
        o.insert(QStringLiteral("attention_tokens"), d.attentionTokens);
    if (d.fp8AttentionSpeedup != 0)
        o.insert(QStringLiteral("fp8_attention_speedup"), d.fp8AttentionSpeedup);
    if (d.fp8AttentionBackwardSpeedup != 0)
        o.insert(QStringLiteral("fp8_attention_backward_speedup"), d.fp8AttentionBackwardSpeedup);
    if (!d.attentionHeadWidths.empty()) {
        QJsonObject curves;
        for (const auto &[name, member] : core::HeadWidthScale::kCurves) {
            const core::WidthCurve &curve = d.attentionHeadWidths.*member;
            if (curve.empty())
                continue;
            QJsonArray points;
            for (const auto &[width, factor] : curve)
                points.append(QJsonArray{width, factor});
            curves.insert(QLatin1String(name.data(), qsizetype(name.size())), points);
        }
        o.insert(QStringLiteral("attention_head_widths"), curves);
    }
    if (d.computeUnits != 0)
        o.insert(QStringLiteral("compute_units"), d.computeUnits);
    if (d.collectiveUnits != 0)
        o.insert(QStringLiteral("collective_units"), d.collectiveUnits);
    if (d.computeCapability != 0)
        o.insert(QStringLiteral("compute_capability"), d.computeCapability);
    if (!d.rateNotes.empty()) {
        QJsonObject notes;
        for (const auto &[key, note] : d.rateNotes)
            notes.insert(qs(key), qs(note));
        o.insert(QStringLiteral("assumed_rates"), notes);
    }
    if (!d.process.empty())
        o.insert(QStringLiteral("process"), qs(d.process));
    if (!d.source.empty())
        o.insert(QStringLiteral("source"), qs(d.source));
    return o;
}

QJsonObject presetsToJson(const core::Presets &presets)
{
    return presetsDocument(presets, true);
}

QJsonObject presetsDocument(const core::Presets &presets, bool exactCounts)
{
    QJsonArray models;
    for (const auto &m : presets.models) {
        QJsonObject o = modelToJson(m);
        if (exactCounts)
            o.insert(QStringLiteral("exact_params"), qint64(core::exactParams(m)));
        models.append(o);
    }
    QJsonArray devices;
    for (const auto &d : presets.devices)
        devices.append(deviceToJson(d));
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kPresetsFormat));
    root.insert(QStringLiteral("version"), kPresetsVersion);
    root.insert(QStringLiteral("models"), models);
    root.insert(QStringLiteral("devices"), devices);
    return root;
}

QString presetsToText(const core::Presets &presets)
{
    QString out;
    QTextStream s(&out);
    s << "Models\n";
    for (const auto &m : presets.models) {
        s << QStringLiteral("  %1  %2  %3 parameters")
                 .arg(qs(m.id), -16)
                 .arg(qs(m.name), -16)
                 .arg(formatCount(core::exactParams(m)));
        if (m.hasArchitecture())
            s << QStringLiteral(" (%1 layers, hidden %2, %3 heads, %4 KV heads)")
                     .arg(m.layers)
                     .arg(m.hidden)
                     .arg(m.heads)
                     .arg(m.kvHeads);
        s << "\n";
    }
    s << "\nDevices\n";
    for (const auto &d : presets.devices) {
        QStringList tflops;
        for (const auto &[precision, value] : d.tflops)
            tflops << QStringLiteral("%1 %2").arg(qs(core::toString(precision))).arg(value);
        s << QStringLiteral("  %1  %2  %3 GiB, %4 W, TFLOPS: %5\n")
                 .arg(qs(d.id), -16)
                 .arg(qs(d.name), -22)
                 .arg(d.memoryGib)
                 .arg(d.tdpW)
                 .arg(tflops.join(QStringLiteral(", ")));
    }
    return out;
}

} // namespace io
