#pragma once

#include "core/enums.h"
#include "core/error.h"
#include "core/presets.h"
#include "core/scenario.h"

#include <QByteArray>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// The frameworks' own configuration files, read into Parascope and written back out
// (docs/import.md): a Hugging Face model config.json, a torchtitan job TOML, a Megatron-LM
// argument list and a DeepSpeed config JSON.
namespace io {

enum class ConfigKind
{
    huggingFace, // a model's config.json: a model preset
    torchtitan,  // a job TOML: a scenario under the torchtitan profile
    megatron,    // a launch script or argument list: a scenario under the megatron profile
    deepspeed    // a config JSON: its fields merged into the base scenario
};

constexpr auto enumNames(ConfigKind)
{
    using K = ConfigKind;
    return std::array{core::EnumName<K>{K::huggingFace, "huggingface"},
                      core::EnumName<K>{K::torchtitan, "torchtitan"},
                      core::EnumName<K>{K::megatron, "megatron"},
                      core::EnumName<K>{K::deepspeed, "deepspeed"}};
}

// One setting of the file that Parascope read.
struct ConfigField
{
    std::string name;  // as the file spells it: "--tensor-model-parallel-size",
                       // "parallelism.tensor_parallel_degree", "num_hidden_layers"
    std::string value; // as the file gives it
    std::string key;   // what it set: a scenario key ("tp") or a model key ("model.layers")
    bool operator==(const ConfigField &) const = default;
};

// One setting of the file that Parascope did not use, and why.
struct IgnoredField
{
    std::string name;
    std::string why; // "logging only", "no effect on memory or step time", ...
    bool operator==(const IgnoredField &) const = default;
};

struct ImportOptions
{
    // The number of devices, where the file leaves it to the launcher (torchtitan's -1
    // degrees, Megatron-LM's world size); unset: the base scenario's count.
    std::optional<int> devices;
    // The id of an imported model preset; empty: from the file ("_name_or_path", the
    // file's name).
    std::string modelId;
    // The file's name without folders, for ids and messages ("config.json").
    std::string fileName;
};

struct ImportedConfig
{
    ConfigKind kind = ConfigKind::huggingFace;
    // A model to put in the user's presets: always for a Hugging Face config; for a
    // Megatron-LM argument list whose model flags match no preset.
    std::optional<core::ModelSpec> model;
    // The scenario: every kind but a Hugging Face config. It names `model`'s id when a
    // model was imported, so it evaluates once that model is in the presets.
    std::optional<core::Scenario> scenario;
    std::vector<ConfigField> read;
    std::vector<IgnoredField> ignored;
    // What the file does not say and where Parascope took it from ("D = 2: the world size is
    // not in the file; give --devices").
    std::vector<std::string> assumptions;
};

// Which kind of file `content` is, by content alone; nullopt when none.
std::optional<ConfigKind> recogniseConfig(const QByteArray &content);

// Reads a framework file. `base` is the scenario the import starts from: its device and the
// keys the file does not set (a DeepSpeed config only merges its fields into it). Refuses,
// naming the file's field, what cannot be read or contradicts itself (a global batch that is
// not micro-batch x accumulation x D). Every setting is listed as read or ignored.
std::variant<ImportedConfig, core::InputError> importConfig(const QByteArray &content,
                                                            const core::Scenario &base,
                                                            const core::Presets &presets,
                                                            const ImportOptions &options = {});

// The readers by kind (config_*.cpp); `importConfig` recognises and calls one. `out.kind`
// is set by the caller.
std::optional<core::InputError> importHuggingFace(const QByteArray &content,
                                                  const core::Presets &presets,
                                                  const ImportOptions &options,
                                                  ImportedConfig &out);
std::optional<core::InputError> importDeepSpeed(const QByteArray &content,
                                                const core::Scenario &base,
                                                const core::Presets &presets,
                                                const ImportOptions &options, ImportedConfig &out);
std::optional<core::InputError> importMegatron(const QByteArray &content,
                                               const core::Scenario &base,
                                               const core::Presets &presets,
                                               const ImportOptions &options, ImportedConfig &out);
std::optional<core::InputError> importTorchtitan(const QByteArray &content,
                                                 const core::Scenario &base,
                                                 const core::Presets &presets,
                                                 const ImportOptions &options, ImportedConfig &out);

// The scenario's layout as a framework's launch arguments (megatron), job TOML (torchtitan)
// or config JSON (deepspeed), with comment lines naming what the framework has no setting
// for. Importing the result gives back the same scenario's keys that the framework sets.
// `custom` is refused.
std::variant<std::string, core::InputError>
emitConfig(const core::Scenario &scenario, const core::Presets &presets, core::Framework framework);

std::string emitMegatron(const core::Scenario &scenario, const core::ModelSpec &model);
std::string emitTorchtitan(const core::Scenario &scenario, const core::ModelSpec &model);
std::string emitDeepSpeed(const core::Scenario &scenario, const core::ModelSpec &model);

// The preset whose architecture `model` has (every field but id, name, source and
// nominal size equal); nullptr when none.
const core::ModelSpec *matchingPreset(const core::ModelSpec &model, const core::Presets &presets);

// The full_attention_period (core/model.h) whose layers attend as `sliding` says (one entry
// a layer, from the first; true: through the window), or the one that matches most of them,
// with how many it matches. Period 1 means every layer attends to the whole context: no
// window. Tried: the first full layer's position, a window on every layer, the share of full
// layers, no window.
struct PeriodFit
{
    int period = 0;
    int matching = 0;
};
PeriodFit closestFullAttentionPeriod(const std::vector<bool> &sliding);

// "the whole context every 2 layers", "a window on every layer", "no window" (period 1).
std::string fullAttentionText(int period);

// The emitters' note for routing as trained (docs/experts.md, "Routing imbalance"), which no
// framework's flag sets; empty when routing is taken as balanced or the model is dense.
std::string rankLoadNote(const core::Scenario &scenario, const core::ModelSpec &model);

// The words of a space- or comma-separated list (lora_modules) as a Python list of strings,
// for the emitters' notes: "['linear_qkv', 'linear_fc1']".
std::string pythonWordList(std::string_view words);

// What an import read, ignored and assumed, one line each, for the command line and the
// window.
std::string importSummary(const ImportedConfig &imported);

} // namespace io
