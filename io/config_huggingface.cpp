// A Hugging Face model config.json as a Parascope model preset (docs/import.md).
#include "core/echo.h"
#include "core/validate.h"
#include "io/framework_config.h"
#include "io/json_fields.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace io {

namespace huggingface_detail {

// What a model_type implies that its config.json does not spell out. Sources: each model's
// configuration_*.py (the tie_word_embeddings default) and modeling_*.py (the MLP) in
// huggingface/transformers.
struct Family
{
    const char *modelType;
    bool gated; // gate, up and down projections (SwiGLU, GeGLU)
    bool tiedByDefault;
    bool qkNorm; // q_norm and k_norm in every attention (Qwen3Attention)
    // Which layers sliding_window reaches when the file lists no layer_types: kNoWindow (the
    // modeling code has none), 0 every layer (MistralAttention), p all but every p-th from the
    // p-th (the layer_types defaults of Gemma2Config and GptOssConfig, 2; Gemma3TextConfig's
    // sliding_window_pattern, 6), kMaxWindowLayers the layers from max_window_layers
    // (Qwen2Config).
    int window;
};

// What a mixture-of-experts family's configuration class in huggingface/transformers
// gives a file without the key: the experts (under expertsKey), top-k, and the experts'
// width (0: intermediate_size, which the family's experts take).
struct MoeDefaults
{
    const char *modelType;
    const char *expertsKey;
    int experts;
    int topK;
    int expertWidth;
};

constexpr MoeDefaults kMoeDefaults[] = {
    // configuration_deepseek_v3.py, DeepseekV3Config; also n_shared_experts 1 and
    // first_k_dense_replace 3 (and n_group 8, topk_group 4: the routing below).
    {"deepseek_v3", "n_routed_experts", 256, 8, 2048},
    {"qwen3_moe", "num_experts", 128, 8, 768},   // configuration_qwen3_moe.py, Qwen3MoeConfig
    {"mixtral", "num_local_experts", 8, 2, 0},   // configuration_mixtral.py, MixtralConfig
    {"gpt_oss", "num_local_experts", 128, 4, 0}, // configuration_gpt_oss.py, GptOssConfig
};

constexpr int kNoWindow = -1;
constexpr int kMaxWindowLayers = -2;

constexpr Family kFamilies[] = {
    {"llama", true, false, false, kNoWindow},
    {"mistral", true, false, false, 0},
    {"mixtral", true, false, false, 0},
    {"qwen2", true, false, false, kMaxWindowLayers},
    {"qwen2_moe", true, false, false, kMaxWindowLayers},
    {"qwen3", true, false, true, kMaxWindowLayers},
    {"qwen3_moe", true, false, true, kMaxWindowLayers},
    {"gemma", true, true, false, kNoWindow},
    {"gemma2", true, true, false, 2},
    {"gemma3_text", true, true, false, 6},
    {"deepseek_v3", true, false, false, kNoWindow},
    {"gpt_oss", true, false, false, 2},
    {"gpt2", false, true, false, kNoWindow},
    {"opt", false, true, false, kNoWindow},
};

const Family *findFamily(const std::string &modelType)
{
    for (const Family &f : kFamilies)
        if (modelType == f.modelType)
            return &f;
    return nullptr;
}

// Keys Parascope leaves aside, and why. Any other unread key gets a generic reason.
struct IgnoredWhy
{
    const char *key;
    const char *why;
};

constexpr const char *kRope = "rotary position settings: no parameters, no effect on memory or "
                              "step time";
constexpr const char *kRouting = "routing and load-balancing detail: no parameters, no effect on "
                                 "memory or step time";
constexpr const char *kTokens = "a tokenizer setting: no effect on memory or step time";
constexpr const char *kStorage = "the checkpoint's storage format: Parascope takes the number "
                                 "format from the scenario's precision key";

constexpr IgnoredWhy kIgnored[] = {
    {"rope_theta", kRope},
    {"rope_scaling", kRope},
    {"rope_parameters", kRope},
    {"rope_interleave", kRope},
    {"partial_rotary_factor", kRope},
    {"rms_norm_eps", "a numerical constant: does not change memory or step time"},
    {"layer_norm_eps", "a numerical constant: does not change memory or step time"},
    {"layer_norm_epsilon", "a numerical constant: does not change memory or step time"},
    {"torch_dtype", kStorage},
    {"dtype", kStorage},
    {"quantization_config", kStorage},
    {"bos_token_id", kTokens},
    {"eos_token_id", kTokens},
    {"pad_token_id", kTokens},
    {"initializer_range", "initialisation only: no effect on memory or step time"},
    {"use_cache", "an inference switch of Transformers: Parascope's inference mode always keeps "
                  "the KV cache"},
    {"transformers_version", "the version of Transformers that wrote the file"},
    {"auto_map", "where Transformers finds the model's own code"},
    {"pretraining_tp", "a reproducibility switch of the original training: no effect on the "
                       "architecture"},
    {"initial_context_length", "the context before the rotary extension: "
                               "max_position_embeddings gives the model's context"},
    {"router_aux_loss_coef", kRouting},
    {"aux_loss_alpha", kRouting},
    {"seq_aux", kRouting},
    {"output_router_logits", kRouting},
    {"norm_topk_prob", kRouting},
    {"routed_scaling_factor", kRouting},
    {"scoring_func", kRouting},
    {"topk_method", kRouting},
    {"swiglu_limit", "a clamp inside the experts' activation: no effect on memory or step time"},
    {"ep_size", "the publisher's expert-parallel degree: Parascope's is the scenario's ep key"},
    {"num_nextn_predict_layers",
     "the multi-token-prediction module (README_WEIGHTS.md: 11.5B more in the checkpoint) is "
     "not part of the model's count, as the DeepSeek-V3 Technical Report's 671B leave it out: "
     "set the scenario's mtp_layers to this count to train it"},
    {"experts_per_token", "the same as num_experts_per_tok"},
};

// A JSON value as the file gives it, for the list of what was read.
std::string valueText(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool() ? "true" : "false";
    case QJsonValue::Double:
        return core::plainNumber(value.toDouble());
    case QJsonValue::String:
        return value.toString().toStdString();
    case QJsonValue::Array:
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact).toStdString();
    case QJsonValue::Object:
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact).toStdString();
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    }
    return "null";
}

// Reads typed keys of a config.json, remembering which were read and the first problem.
class HfReader
{
public:
    HfReader(const QJsonObject &object, ImportedConfig &out) : m_object(object), m_out(out) {}

    bool has(const char *key) const
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        return !v.isUndefined() && !v.isNull();
    }

    // Not in the file at all: a configuration class's default applies. A null is the file's
    // None, which the class keeps instead.
    bool absent(const char *key) const { return m_object.value(QLatin1String(key)).isUndefined(); }

    // A whole number of at least `least`; nullopt when absent (or null) or wrong.
    std::optional<int> integer(const char *key, const char *sets, int least = 0)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        const double d = v.toDouble(std::numeric_limits<double>::quiet_NaN());
        if (!v.isDouble() || d != std::floor(d) || d > std::numeric_limits<int>::max()) {
            fail(key, "expected a whole number, got " + describe(v));
            return std::nullopt;
        }
        if (d < least) {
            fail(key, "must be at least " + std::to_string(least) + ", got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return static_cast<int>(d);
    }

    std::optional<bool> boolean(const char *key, const char *sets)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!v.isBool()) {
            fail(key, "expected true or false, got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return v.toBool();
    }

    std::optional<double> number(const char *key, const char *sets)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!v.isDouble()) {
            fail(key, "expected a number, got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return v.toDouble();
    }

    std::optional<std::string> text(const char *key, const char *sets)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!v.isString()) {
            fail(key, "expected text, got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return v.toString().toStdString();
    }

    // A list of whole numbers (mlp_only_layers).
    std::optional<std::vector<int>> integers(const char *key, const char *sets)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        std::vector<int> out;
        if (v.isArray())
            for (const QJsonValue &item : v.toArray()) {
                const double d = item.toDouble(-1);
                if (!item.isDouble() || d != std::floor(d) || d < 0 || d > 1e9)
                    break;
                out.push_back(static_cast<int>(d));
            }
        if (!v.isArray() || out.size() != static_cast<std::size_t>(v.toArray().size())) {
            fail(key, "expected a list of layer numbers, got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return out;
    }

    // A list of texts (layer_types).
    std::optional<std::vector<std::string>> texts(const char *key, const char *sets)
    {
        if (!has(key))
            return std::nullopt;
        const QJsonValue v = m_object.value(QLatin1String(key));
        std::vector<std::string> out;
        if (v.isArray())
            for (const QJsonValue &item : v.toArray()) {
                if (!item.isString())
                    break;
                out.push_back(item.toString().toStdString());
            }
        if (!v.isArray() || out.size() != static_cast<std::size_t>(v.toArray().size())) {
            fail(key, "expected a list of texts, got " + describe(v));
            return std::nullopt;
        }
        note(key, sets);
        return out;
    }

    // Marks a key as read without a typed value (architectures, for the name).
    void note(const char *key, const char *sets)
    {
        if (m_read.insert(QLatin1String(key)).second)
            m_out.read.push_back(
                {key, valueText(m_object.value(QLatin1String(key))), std::string(sets)});
    }
    void ignore(const char *key, std::string why)
    {
        if (m_object.contains(QLatin1String(key)) && m_read.insert(QLatin1String(key)).second)
            m_out.ignored.push_back({key, std::move(why)});
    }

    void fail(const char *key, std::string message)
    {
        if (!m_error)
            m_error = core::InputError{key, std::move(message)};
    }
    const std::optional<core::InputError> &error() const { return m_error; }

    // Every key not read, with its reason, in the file's (alphabetical) order.
    void ignoreTheRest()
    {
        for (auto it = m_object.begin(); it != m_object.end(); ++it) {
            if (m_read.contains(it.key()))
                continue;
            const std::string key = it.key().toStdString();
            const auto known = std::find_if(std::begin(kIgnored), std::end(kIgnored),
                                            [&](const IgnoredWhy &i) { return key == i.key; });
            m_out.ignored.push_back(
                {key, known != std::end(kIgnored)
                          ? known->why
                          : "not part of Parascope's model description (docs/import.md)"});
        }
    }

private:
    const QJsonObject &m_object;
    ImportedConfig &m_out;
    std::set<QString> m_read;
    std::optional<core::InputError> m_error;
};

// "meta-llama/Llama-3.1-8B" -> "llama-3.1-8b": the last path component, lower-cased.
std::string pathTail(const std::string &path)
{
    std::string tail = path;
    while (!tail.empty() && tail.back() == '/')
        tail.pop_back();
    const auto slash = tail.find_last_of('/');
    return slash == std::string::npos ? tail : tail.substr(slash + 1);
}

std::string lowered(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Sliding-window attention (docs/import.md): the window, and which layers attend to the
// whole context instead, from layer_types, sliding_window_pattern, max_window_layers or the
// family.
std::optional<core::InputError> readWindow(HfReader &r, const std::string &modelType,
                                           const Family *family, core::ModelSpec &m,
                                           std::vector<std::string> &assumptions)
{
    const auto ignoreAll = [&r](const std::string &why) {
        for (const char *key : {"sliding_window", "use_sliding_window", "layer_types",
                                "sliding_window_pattern", "max_window_layers"})
            r.ignore(key, why);
    };
    const int familyWindow = family ? family->window : 0;
    if (familyWindow == kNoWindow) {
        ignoreAll(modelType + "'s attention in Transformers has no sliding window: every layer "
                              "attends to the whole context");
        return std::nullopt;
    }
    // Qwen2Config and Qwen3Config keep sliding_window only with use_sliding_window, false
    // by default.
    const auto use = r.boolean("use_sliding_window", "model.sliding_window");
    if (r.error())
        return r.error();
    if (use ? !*use : familyWindow == kMaxWindowLayers) {
        ignoreAll(use ? "use_sliding_window is false: every layer attends to the whole context"
                      : "use_sliding_window is not in the file: false, the default of " +
                            modelType + "'s configuration class");
        return std::nullopt;
    }
    const auto window = r.integer("sliding_window", "model.sliding_window", 0);
    if (r.error())
        return r.error();
    if (!window || *window == 0) {
        ignoreAll("without a sliding_window every layer attends to the whole context");
        return std::nullopt;
    }
    if (*window > core::limits::kSeqLen)
        return core::InputError{"sliding_window", "must be at most " +
                                                      std::to_string(core::limits::kSeqLen) +
                                                      " tokens, got " + std::to_string(*window)};
    m.slidingWindow = *window;
    // Period 1 (every layer attends to the whole context) is no window.
    const auto setPeriod = [&m](int period) {
        m.fullAttentionPeriod = period == 1 || period > m.layers ? 0 : period;
        m.slidingWindow = period == 1 ? 0 : m.slidingWindow;
    };
    const auto approximated = [&](const std::string &from, int period, int same) {
        assumptions.push_back(from + " gives no period of full-attention layers: taken as " +
                              fullAttentionText(period) + ", " + std::to_string(same) + " of the " +
                              std::to_string(m.layers) + " layers as the file has them");
    };

    if (const auto types = r.texts("layer_types", "model.full_attention_period")) {
        if (types->size() != static_cast<std::size_t>(m.layers))
            return core::InputError{"layer_types", "expected one entry for each of the " +
                                                       std::to_string(m.layers) + " layers, got " +
                                                       std::to_string(types->size())};
        std::vector<bool> sliding;
        std::string other;
        for (const std::string &type : *types) {
            sliding.push_back(type == "sliding_attention");
            if (other.empty() && type != "sliding_attention" && type != "full_attention")
                other = type;
        }
        if (!other.empty())
            assumptions.push_back("layer_types has " + core::quoted(other) +
                                  ", neither sliding_attention nor full_attention: counted as "
                                  "full attention");
        const auto [period, same] = closestFullAttentionPeriod(sliding);
        if (same != m.layers)
            approximated("layer_types", period, same);
        setPeriod(period);
        for (const char *key : {"sliding_window_pattern", "max_window_layers"})
            r.ignore(key, "layer_types gives each layer's attention");
        return std::nullopt;
    }
    if (r.error())
        return r.error();
    // Gemma3TextConfig: layer i (from 1) attends to the whole context when i % pattern == 0.
    if (const auto pattern =
            r.integer("sliding_window_pattern", "model.full_attention_period", 1)) {
        setPeriod(*pattern);
        r.ignore("max_window_layers", "sliding_window_pattern gives each layer's attention");
        return std::nullopt;
    }
    if (r.error())
        return r.error();
    if (familyWindow == kMaxWindowLayers || r.has("max_window_layers")) {
        // Qwen2Config: the layers from max_window_layers (from 0) are windowed, the ones before
        // attend to the whole context; Parascope keeps the kind most of them have.
        const auto given = r.integer("max_window_layers", "model.full_attention_period", 0);
        if (r.error())
            return r.error();
        const int full = std::min(given.value_or(28), m.layers);
        if (!given)
            assumptions.push_back("max_window_layers is not in the file: 28, the default of " +
                                  modelType + "'s configuration class");
        const int period = full > 0 && full >= m.layers - full ? 1 : 0;
        if (full > 0 && full < m.layers)
            approximated("max_window_layers " + std::to_string(full) + " (the first " +
                             std::to_string(full) + " layers attend to the whole context)",
                         period, std::max(full, m.layers - full));
        setPeriod(period);
        return std::nullopt;
    }
    // MistralConfig: every layer; Gemma2Config and GptOssConfig: every second from the first.
    setPeriod(familyWindow);
    if (!family)
        assumptions.push_back("sliding_window without layer_types: a window on every layer, as "
                              "MistralConfig has it");
    else if (familyWindow > 0)
        assumptions.push_back("layer_types is not in the file: " + fullAttentionText(familyWindow) +
                              ", the default of " + modelType + "'s configuration class");
    return std::nullopt;
}

} // namespace huggingface_detail

std::optional<core::InputError> importHuggingFace(const QByteArray &content,
                                                  const core::Presets &presets,
                                                  const ImportOptions &options, ImportedConfig &out)
{
    using namespace huggingface_detail;
    QJsonObject object;
    if (auto error = parseJsonObject(content, object, "Hugging Face config.json"))
        return error;
    HfReader r(object, out);
    core::ModelSpec m;

    const std::string modelType = r.text("model_type", "model family").value_or("");
    const Family *family = findFamily(modelType);
    if (!family)
        out.assumptions.push_back(
            "model_type " + (modelType.empty() ? std::string("missing") : "'" + modelType + "'") +
            " is not one Parascope knows: read as a decoder-only transformer from its generic "
            "fields");

    // GPT-2 spells the sizes its own way (GPT2Config.attribute_map in Transformers).
    const bool gpt2 = modelType == "gpt2";
    const char *layersKey = gpt2 ? "n_layer" : "num_hidden_layers";
    const char *hiddenKey = gpt2 ? "n_embd" : "hidden_size";
    const char *headsKey = gpt2 ? "n_head" : "num_attention_heads";
    const char *ffnKey = gpt2 ? "n_inner" : modelType == "opt" ? "ffn_dim" : "intermediate_size";
    const char *contextKey = gpt2 ? "n_positions" : "max_position_embeddings";

    m.layers = r.integer(layersKey, "model.layers", 1).value_or(0);
    m.hidden = r.integer(hiddenKey, "model.hidden", 1).value_or(0);
    m.heads = r.integer(headsKey, "model.heads", 1).value_or(0);
    m.vocab = r.integer("vocab_size", "model.vocab", 1).value_or(0);
    const auto ffn = r.integer(ffnKey, "model.ffn_hidden", 1);
    m.contextWindow = r.integer(contextKey, "model.context_window", 0).value_or(0);
    if (r.error())
        return r.error();
    for (const char *required : {layersKey, hiddenKey, headsKey, "vocab_size"})
        if (!r.has(required))
            return core::InputError{required, "missing: Parascope needs it to size the model"};
    if (ffn)
        m.ffnHidden = *ffn;
    else if (gpt2)
        m.ffnHidden = 4 * m.hidden; // GPT2MLP: n_inner None means 4 × n_embd
    else
        return core::InputError{ffnKey, "missing: Parascope needs it to size the model"};

    const auto kvHeads = r.integer("num_key_value_heads", "model.kv_heads", 1);
    m.kvHeads = kvHeads.value_or(m.heads);
    if (!kvHeads)
        out.assumptions.push_back("num_key_value_heads is not in the file: kv_heads = "
                                  "num_attention_heads = " +
                                  std::to_string(m.heads) + " (multi-head attention)");
    if (r.error())
        return r.error();
    if (m.heads % m.kvHeads != 0)
        return core::InputError{"num_key_value_heads", std::to_string(m.kvHeads) +
                                                           " does not divide " + headsKey + " " +
                                                           std::to_string(m.heads)};

    // Multi-head latent attention (DeepSeek-V3's configuration_deepseek.py).
    m.kvLoraRank = r.integer("kv_lora_rank", "model.kv_lora_rank", 1).value_or(0);
    if (m.latentAttention()) {
        m.qLoraRank = r.integer("q_lora_rank", "model.q_lora_rank", 1).value_or(0);
        if (!r.has("q_lora_rank") && object.contains(QLatin1String("q_lora_rank")))
            r.note("q_lora_rank", "model.q_lora_rank"); // null: queries straight from h
        m.ropeHeadDim = r.integer("qk_rope_head_dim", "model.rope_head_dim", 1).value_or(0);
        m.headDimOverride = r.integer("qk_nope_head_dim", "model.head_dim", 1).value_or(0);
        m.vHeadDim = r.integer("v_head_dim", "model.v_head_dim", 1).value_or(0);
        if (r.error())
            return r.error();
        for (const char *required : {"qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"})
            if (!r.has(required))
                return core::InputError{required, "missing: latent attention (kv_lora_rank) "
                                                  "needs it"};
        r.ignore("head_dim", "with latent attention the head widths are qk_nope_head_dim, "
                             "qk_rope_head_dim and v_head_dim");
    } else {
        const auto headDim = r.integer("head_dim", "model.head_dim", 1);
        if (r.error())
            return r.error();
        if (!headDim && m.hidden % m.heads != 0)
            return core::InputError{headsKey, std::to_string(m.heads) + " does not divide " +
                                                  hiddenKey + " " + std::to_string(m.hidden) +
                                                  " and head_dim is not given"};
        // Only a width other than hidden / heads needs saying (core/model.h, headDim()).
        if (headDim && (m.hidden % m.heads != 0 || *headDim != m.hidden / m.heads))
            m.headDimOverride = *headDim;
    }

    // The MLP: gated by family; for an unknown family, SiLU is taken as SwiGLU.
    const char *actKey = gpt2                         ? "activation_function"
                         : r.has("hidden_activation") ? "hidden_activation"
                                                      : "hidden_act";
    const auto act = r.text(actKey, "model.gated_mlp");
    if (family) {
        m.gatedMlp = family->gated;
    } else {
        m.gatedMlp = act && (*act == "silu" || *act == "swiglu");
        out.assumptions.push_back(std::string(m.gatedMlp ? "gated" : "plain") + " MLP taken from " +
                                  actKey + " " + (act ? "'" + *act + "'" : "(missing)") +
                                  ": SiLU as SwiGLU, anything else as two matrices");
    }
    const bool gpt2Family = gpt2 || modelType == "opt";
    if (gpt2Family) {
        // LayerNorm and linear biases, learned positions (GPT2Model.wpe; OPT's
        // OPTLearnedPositionalEmbedding keeps 2 rows more).
        m.bias = r.boolean("enable_bias", "model.bias").value_or(true);
        m.learnedPositions = m.contextWindow + (modelType == "opt" ? 2 : 0);
    }

    // Tied embeddings: PretrainedConfig's default is True; each family's class sets its own.
    const auto tied = r.boolean("tie_word_embeddings", "model.tied_embeddings");
    m.tiedEmbeddings = tied.value_or(family ? family->tiedByDefault : true);
    if (!tied)
        out.assumptions.push_back(std::string("tie_word_embeddings is not in the file: ") +
                                  (m.tiedEmbeddings ? "tied" : "untied") +
                                  (family
                                       ? ", the default of " + modelType + "'s configuration class"
                                       : ", PretrainedConfig's default"));

    // Dropout masks are kept when any dropout probability is above zero.
    for (const char *key : {"attention_dropout", "hidden_dropout", "resid_pdrop", "embd_pdrop",
                            "attn_pdrop", "dropout", "activation_dropout"})
        if (const auto p = r.number(key, "model.dropout"))
            m.dropout = m.dropout || *p > 0;

    // Attention extras (docs/experts.md, "Describing a model").
    if (const auto bias = r.boolean("attention_bias", "model.attention_bias"))
        m.attentionBias = *bias;
    // Qwen2Attention: q_proj, k_proj and v_proj have biases, o_proj none.
    if ((modelType == "qwen2" || modelType == "qwen2_moe") && !m.attentionBias)
        m.qkvBias = true;
    if (const auto mlpBias = r.boolean("mlp_bias", "model (MLP biases)"); mlpBias && *mlpBias)
        out.assumptions.push_back("mlp_bias is true: Parascope does not count biases on the MLP "
                                  "alone, so the count leaves them out");
    m.qkNorm = family && family->qkNorm;
    if (modelType == "gpt_oss") {
        // modeling_gpt_oss.py: GptOssAttention.sinks, a biased router, biased experts.
        m.attentionSinks = true;
        m.routerBias = true;
        m.expertBias = true;
    }
    if (auto error = readWindow(r, modelType, family, m, out.assumptions))
        return error;

    // Experts: Mixtral and gpt-oss (num_local_experts), Qwen (num_experts), DeepSeek
    // (n_routed_experts).
    const char *expertsKey = r.has("n_routed_experts") ? "n_routed_experts"
                             : r.has("num_experts")    ? "num_experts"
                                                       : "num_local_experts";
    // A mixture-of-experts family's configuration class builds its MoE layers from its
    // defaults where the file has no such key (kMoeDefaults); a null stays the file's None.
    const bool deepseekV3 = modelType == "deepseek_v3";
    const MoeDefaults *moeDefaults = nullptr;
    for (const MoeDefaults &d : kMoeDefaults)
        if (modelType == d.modelType)
            moeDefaults = &d;
    const auto classDefault = [&](const char *key, int value) -> std::optional<int> {
        if (!moeDefaults || !r.absent(key))
            return std::nullopt;
        out.assumptions.push_back(std::string(key) +
                                  " is not in the file: " + std::to_string(value) +
                                  ", the default of " + modelType + "'s configuration class");
        return value;
    };
    m.experts = r.integer(expertsKey, "model.experts", 0).value_or(0);
    if (moeDefaults && r.absent("n_routed_experts") && r.absent("num_experts") &&
        r.absent("num_local_experts"))
        if (const auto experts = classDefault(moeDefaults->expertsKey, moeDefaults->experts))
            m.experts = *experts;
    if (m.experts > 0) {
        const char *topKKey =
            r.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";
        m.expertsPerToken = r.integer(topKKey, "model.experts_per_token", 1).value_or(0);
        if (moeDefaults && r.absent("experts_per_token"))
            if (const auto topK = classDefault("num_experts_per_tok", moeDefaults->topK))
                m.expertsPerToken = *topK;
        if (!r.error() && m.expertsPerToken == 0)
            return core::InputError{"num_experts_per_tok",
                                    "missing: " + std::string(expertsKey) +
                                        " gives experts, so top-k is needed"};
        if (r.has("experts_per_token") && r.has("num_experts_per_tok"))
            r.ignore("experts_per_token", "the same as num_experts_per_tok");
        const auto expertWidth = r.integer("moe_intermediate_size", "model.expert_ffn_hidden", 1);
        m.expertFfnHidden = expertWidth.value_or(m.ffnHidden); // Mixtral: intermediate_size
        if (moeDefaults && moeDefaults->expertWidth > 0)
            if (const auto width = classDefault("moe_intermediate_size", moeDefaults->expertWidth))
                m.expertFfnHidden = *width;
        m.sharedExperts = r.integer("n_shared_experts", "model.shared_experts", 0).value_or(0);
        m.denseLayers = r.integer("first_k_dense_replace", "model.dense_layers", 0).value_or(0);
        if (deepseekV3) {
            if (const auto shared = classDefault("n_shared_experts", 1))
                m.sharedExperts = *shared;
            if (const auto dense = classDefault("first_k_dense_replace", 3))
                m.denseLayers = *dense;
        }
        if (const auto period = r.integer("moe_layer_freq", "model.moe_layer_period", 1)) {
            m.moeLayerPeriod = *period;
            if (*period > 1)
                out.assumptions.push_back(
                    "moe_layer_freq " + std::to_string(*period) +
                    ": DeepSeek makes layer i MoE when i % freq == 0, Parascope when (i + 1) % "
                    "period == 0; the count of MoE layers can differ by one");
        }
        if (const auto step = r.integer("decoder_sparse_step", "model.moe_layer_period", 1))
            m.moeLayerPeriod = *step; // Qwen3MoeDecoderLayer: (i + 1) % step == 0
        if (const auto dense = r.integers("mlp_only_layers", "model.dense_layers")) {
            bool prefix = true;
            for (std::size_t i = 0; i < dense->size(); ++i)
                prefix = prefix && (*dense)[i] == static_cast<int>(i);
            m.denseLayers = std::max(m.denseLayers, static_cast<int>(dense->size()));
            if (!prefix)
                out.assumptions.push_back(
                    "mlp_only_layers are not the first layers: Parascope counts " +
                    std::to_string(dense->size()) +
                    " dense layers at the start, the same number in other places");
        }
        // DeepSeek-V3's noaux_tc routing adds e_score_correction_bias to the router's scores
        // (modeling_deepseek.py, MoEGate).
        auto method = r.text("topk_method", "model.router_bias");
        // Transformers' DeepseekV3 model reads no topk_method: it always adds the bias and
        // limits the groups (modeling_deepseek_v3.py, DeepseekV3MoE.get_topk_indices), which a
        // deepseek_v3 file without the key therefore runs.
        const bool transformersRouting =
            modelType == "deepseek_v3" && r.absent("topk_method") && !r.error();
        if (transformersRouting)
            method = "noaux_tc";
        if (method)
            m.routerBias = m.routerBias || *method == "noaux_tc";
        // Group-limited routing (modeling_deepseek.py, MoEGate: the experts in n_group groups,
        // a token's top-k from its topk_group best groups), under the two methods that group
        // (group_limited_greedy, DeepSeek-V2; noaux_tc, DeepSeek-V3); greedy routes over all.
        auto groups = r.integer("n_group", "model.router_groups", 1);
        auto limit = r.integer("topk_group", "model.router_group_limit", 1);
        // Transformers' DeepseekV3Config gives n_group 8 and topk_group 4 where the file has
        // no such key; it has no topk_method, so none is taken.
        std::string defaults; // the defaults taken, for a refusal that names their key
        if (deepseekV3 && r.absent("n_group")) {
            groups = 8;
            defaults = "n_group 8";
            out.assumptions.push_back("n_group is not in the file: 8, the default of "
                                      "deepseek_v3's configuration class");
        }
        if (deepseekV3 && r.absent("topk_group")) {
            limit = 4;
            defaults += (defaults.empty() ? "" : ", ") + std::string("topk_group 4");
            out.assumptions.push_back("topk_group is not in the file: 4, the default of "
                                      "deepseek_v3's configuration class");
        }
        if (transformersRouting)
            out.assumptions.push_back(
                "topk_method is not in the file: routed as Transformers' DeepseekV3 model "
                "routes whatever it says, the score bias added and the groups limited "
                "(noaux_tc)");
        const std::string taken =
            defaults.empty() ? "" : " (not in the file: deepseek_v3's default " + defaults + ")";
        const bool grouping =
            method && (*method == "noaux_tc" || *method == "group_limited_greedy");
        // MoEGate takes torch.topk of topk_group among the n_group group scores: more groups
        // than there are fail there.
        if (!r.error() && groups && limit && grouping && *limit > *groups)
            return core::InputError{"topk_group", std::to_string(*limit) + " of only " +
                                                      std::to_string(*groups) + " groups" + taken};
        if (!r.error() && groups && limit && grouping && *limit < *groups) {
            if (m.experts % *groups != 0)
                return core::InputError{"n_group",
                                        std::to_string(*groups) + " groups do not divide the " +
                                            std::to_string(m.experts) + " experts" + taken};
            if (std::int64_t{*limit} * (m.experts / *groups) < m.expertsPerToken)
                return core::InputError{
                    "topk_group", std::to_string(*limit) + " of the " + std::to_string(*groups) +
                                      " groups hold fewer experts than the top-k" + taken};
            m.routerGroups = *groups;
            m.routerGroupLimit = *limit;
        } else if (groups && limit && grouping && *groups > 1) {
            out.assumptions.push_back("topk_group " + std::to_string(*limit) + " of n_group " +
                                      std::to_string(*groups) +
                                      " limits nothing: routing over every expert");
        } else if (groups && limit && *groups > 1 && *limit < *groups) {
            out.assumptions.push_back("n_group " + std::to_string(*groups) + " and topk_group " +
                                      std::to_string(*limit) + " limit nothing under topk_method " +
                                      (method ? *method : std::string("(none)")) +
                                      ": routing over every expert");
        } else if (grouping && groups.has_value() != limit.has_value() && !r.error()) {
            out.assumptions.push_back(
                std::string(groups ? "n_group without topk_group" : "topk_group without n_group") +
                ": no group limit read, routing over every expert");
        }
    }
    if (r.error())
        return r.error();
    if (m.denseLayers > m.layers)
        return core::InputError{
            r.has("first_k_dense_replace") ? "first_k_dense_replace" : "mlp_only_layers",
            "more dense layers than " + std::string(layersKey) + " " + std::to_string(m.layers)};

    // Identity: id and name from the file, its name, or its shape.
    const auto nameOrPath = r.text("_name_or_path", "model.id, model.name");
    if (r.error())
        return r.error();
    const std::string tail = nameOrPath ? pathTail(*nameOrPath) : std::string();
    const std::string stem =
        QFileInfo(QString::fromStdString(options.fileName)).completeBaseName().toStdString();
    if (!options.modelId.empty())
        m.id = options.modelId;
    else if (!tail.empty())
        m.id = lowered(tail);
    else if (!stem.empty() && lowered(stem) != "config")
        m.id = lowered(stem);
    else
        m.id = (modelType.empty() ? std::string("model") : modelType) + "-" +
               std::to_string(m.layers) + "x" + std::to_string(m.hidden);
    const QJsonArray architectures = object.value(QLatin1String("architectures")).toArray();
    // The name users gave the model (its path, the id asked for, the file's name) reads
    // better in the Model list than the Transformers class.
    if (!tail.empty()) {
        m.name = tail;
    } else if (!options.modelId.empty()) {
        m.name = options.modelId;
    } else if (!stem.empty() && lowered(stem) != "config") {
        m.name = stem;
    } else if (!architectures.isEmpty() && architectures.at(0).isString()) {
        m.name = architectures.at(0).toString().toStdString();
        r.note("architectures", "model.name");
    } else {
        m.name = m.id;
    }
    r.ignore("architectures", "the Transformers class: the model's family is model_type");
    m.source = "Imported from " +
               (options.fileName.empty() ? std::string("config.json") : options.fileName) +
               " (Hugging Face config.json)";
    r.ignoreTheRest();

    if (const core::ModelSpec *preset = matchingPreset(m, presets))
        out.assumptions.push_back("same architecture as preset " + preset->id);
    out.model = std::move(m);
    return std::nullopt;
}

} // namespace io
