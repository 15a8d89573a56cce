#pragma once

#include "core/error.h"
#include "core/presets.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace io {

inline constexpr const char *kPresetsFormat = "parascope-presets";
inline constexpr int kPresetsVersion = 1;

// The presets compiled into the program (resources/presets).
core::Presets builtinPresets();

// Adds or replaces the models and devices of a presets document.
std::optional<core::InputError> mergePresets(core::Presets &presets, const QByteArray &json);
std::optional<core::InputError> mergePresetsFile(core::Presets &presets, const QString &path);

// The user's own presets: presets.json in the standard config location.
QString userPresetsPath();

// Adds `model` to the presets file at `path` (the user's file by default), replacing an entry
// with its id and keeping every other entry; creates the file when there is none. A file that
// does not read is left as it was and refused. Written atomically (io::saveFile).
std::optional<core::InputError> addModelToPresetsFile(const core::ModelSpec &model,
                                                      const QString &path);

// Built-in presets, then the user's file if it exists, then `extraFile` if
// given (`--presets FILE`); later entries replace earlier ones with the same id.
std::optional<core::InputError> loadPresets(core::Presets &out, const QString &extraFile = {});

// One model or device object; `prefix` names it in errors ("model.").
std::optional<core::InputError> parseModel(const QJsonObject &object, core::ModelSpec &out,
                                           const std::string &prefix);
std::optional<core::InputError> parseDevice(const QJsonObject &object, core::DeviceSpec &out,
                                            const std::string &prefix);

QJsonObject modelToJson(const core::ModelSpec &model);
QJsonObject deviceToJson(const core::DeviceSpec &device);
QJsonObject presetsToJson(const core::Presets &presets);
// A presets document; with `exactCounts` each model also has its derived exact_params
// (`parascope presets --format json`), which a presets file may not hold.
QJsonObject presetsDocument(const core::Presets &presets, bool exactCounts);
QString presetsToText(const core::Presets &presets);

} // namespace io
