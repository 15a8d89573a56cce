#include "io/framework_config.h"

#include "core/fields.h"
#include "io/json_fields.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace io {

namespace {

// A JSON object's top-level keys that only one kind of file has.
bool hasAnyKey(const QJsonObject &object, std::initializer_list<const char *> keys)
{
    for (const char *key : keys)
        if (object.contains(QLatin1String(key)))
            return true;
    return false;
}

} // namespace

std::optional<ConfigKind> recogniseConfig(const QByteArray &content)
{
    const QByteArray trimmed = content.trimmed();
    if (trimmed.startsWith('{')) {
        const QJsonObject object = QJsonDocument::fromJson(trimmed).object();
        // Hugging Face: PretrainedConfig writes model_type and the architecture's sizes.
        if (hasAnyKey(object, {"model_type", "architectures", "num_hidden_layers"}))
            return ConfigKind::huggingFace;
        // DeepSpeed: the batch keys and sections of its config reference.
        if (hasAnyKey(object, {"zero_optimization", "train_micro_batch_size_per_gpu",
                               "train_batch_size", "gradient_accumulation_steps", "bf16", "fp16",
                               "optimizer", "activation_checkpointing"}))
            return ConfigKind::deepspeed;
        return std::nullopt;
    }
    // Megatron-LM: its argument names, in a launch script or a bare list.
    static const QRegularExpression megatronFlag(QStringLiteral(
        R"(--(tensor-model-parallel-size|pipeline-model-parallel-size|num-layers|hidden-size|)"
        R"(micro-batch-size|global-batch-size|seq-length|num-attention-heads)\b)"));
    if (megatronFlag.match(QString::fromUtf8(content)).hasMatch())
        return ConfigKind::megatron;
    // torchtitan: a TOML job file has these tables.
    static const QRegularExpression titanTable(
        QStringLiteral(R"(^\s*\[(job|parallelism|training|model|activation_checkpoint)\]\s*$)"),
        QRegularExpression::MultilineOption);
    if (titanTable.match(QString::fromUtf8(content)).hasMatch())
        return ConfigKind::torchtitan;
    return std::nullopt;
}

std::variant<ImportedConfig, core::InputError> importConfig(const QByteArray &content,
                                                            const core::Scenario &base,
                                                            const core::Presets &presets,
                                                            const ImportOptions &options)
{
    const auto kind = recogniseConfig(content);
    // A JSON file that does not parse: where reading stopped, not "not a configuration".
    if (QJsonObject object; !kind && content.trimmed().startsWith('{'))
        if (auto e = parseJsonObject(content, object, "configuration file"))
            return *e;
    if (!kind)
        return core::InputError{
            {},
            "not a configuration Parascope reads: expected a Hugging Face config.json, a "
            "torchtitan job TOML, a Megatron-LM argument list or a DeepSpeed config JSON"};
    if (options.devices && *options.devices < 1)
        return core::InputError{"devices", "must be at least 1"};
    ImportedConfig out;
    out.kind = *kind;
    std::optional<core::InputError> error;
    switch (*kind) {
    case ConfigKind::huggingFace:
        error = importHuggingFace(content, presets, options, out);
        break;
    case ConfigKind::deepspeed:
        error = importDeepSpeed(content, base, presets, options, out);
        break;
    case ConfigKind::megatron:
        error = importMegatron(content, base, presets, options, out);
        break;
    case ConfigKind::torchtitan:
        error = importTorchtitan(content, base, presets, options, out);
        break;
    }
    if (error)
        return *error;
    return out;
}

std::variant<std::string, core::InputError>
emitConfig(const core::Scenario &scenario, const core::Presets &presets, core::Framework framework)
{
    const core::ModelSpec *model =
        scenario.customModel ? &*scenario.customModel : presets.model(scenario.model);
    if (!model)
        return core::InputError{"model", "'" + scenario.model + "' is not a preset"};
    if (!model->hasArchitecture())
        return core::InputError{"model", "'" + model->id +
                                             "' is a size-only model: a framework needs its "
                                             "layers, widths and heads"};
    switch (framework) {
    case core::Framework::megatron:
        return emitMegatron(scenario, *model);
    case core::Framework::torchtitan:
        return emitTorchtitan(scenario, *model);
    case core::Framework::deepspeed:
        return emitDeepSpeed(scenario, *model);
    case core::Framework::custom:
        break;
    }
    return core::InputError{"emit", "expected megatron, torchtitan or deepspeed"};
}

const core::ModelSpec *matchingPreset(const core::ModelSpec &model, const core::Presets &presets)
{
    const auto architecture = [](core::ModelSpec m) {
        m.id.clear();
        m.name.clear();
        m.source.clear();
        m.nominalParams = 0;
        m.contextWindow = 0;
        return m;
    };
    const core::ModelSpec wanted = architecture(model);
    for (const auto &preset : presets.models)
        if (architecture(preset) == wanted)
            return &preset;
    return nullptr;
}

PeriodFit closestFullAttentionPeriod(const std::vector<bool> &sliding)
{
    const int n = static_cast<int>(sliding.size());
    const int full = static_cast<int>(std::count(sliding.begin(), sliding.end(), false));
    const auto matches = [&](int period) {
        core::ModelSpec probe;
        probe.slidingWindow = 1;
        probe.fullAttentionPeriod = period;
        int same = 0;
        for (int i = 0; i < n; ++i)
            same += sliding[std::size_t(i)] == core::isSlidingLayer(probe, i);
        return same;
    };
    std::vector<int> tried{0};
    if (full > 0) {
        const auto first = std::find(sliding.begin(), sliding.end(), false) - sliding.begin();
        tried = {static_cast<int>(first) + 1, 0, std::max(1, (n + full / 2) / full), 1};
    }
    PeriodFit best{0, -1};
    for (int period : tried)
        if (const int same = matches(period); same > best.matching)
            best = {period, same};
    return best;
}

std::string fullAttentionText(int period)
{
    return period == 0   ? std::string("a window on every layer")
           : period == 1 ? std::string("no window")
                         : "the whole context every " + std::to_string(period) + " layers";
}

std::string rankLoadNote(const core::Scenario &s, const core::ModelSpec &model)
{
    if (!model.hasExperts() || s.expertRankLoad == 1)
        return {};
    return "expert_rank_load=" + core::fieldText(s, "expert_rank_load") +
           ": the busiest expert rank's share of routing as trained, which the router and its "
           "load-balancing loss decide and no flag sets; timed at that share";
}

std::string pythonWordList(std::string_view words)
{
    std::string out;
    for (const std::string_view word : core::moduleListWords(words))
        out += (out.empty() ? "'" : ", '") + std::string(word) + "'";
    return "[" + out + "]";
}

std::string importSummary(const ImportedConfig &imported)
{
    static constexpr const char *kKinds[]{"a Hugging Face config.json", "a torchtitan job TOML",
                                          "Megatron-LM arguments", "a DeepSpeed config"};
    std::string text = std::string("Read from ") + kKinds[static_cast<int>(imported.kind)] + ":\n";
    for (const auto &field : imported.read)
        text += "  " + field.name + " = " + field.value + "  ->  " + field.key + "\n";
    if (!imported.ignored.empty()) {
        text += "Ignored:\n";
        for (const auto &field : imported.ignored)
            text += "  " + field.name + ": " + field.why + "\n";
    }
    if (!imported.assumptions.empty()) {
        text += "Not in the file:\n";
        for (const auto &line : imported.assumptions)
            text += "  " + line + "\n";
    }
    return text;
}

} // namespace io
