#pragma once

#include "core/error.h"
#include "core/presets.h"
#include "core/scenario.h"

#include <optional>
#include <vector>

namespace core {

// The model and device a scenario names: its inline definition, or a preset.
// Null when the id is unknown.
const ModelSpec *resolveModel(const Scenario &scenario, const Presets &presets);
const DeviceSpec *resolveDevice(const Scenario &scenario, const Presets &presets);

// The first reason the scenario cannot be evaluated (DESIGN §4, "exit 2"
// column), naming the key; nullopt when it can be.
std::optional<InputError> validate(const Scenario &scenario, const Presets &presets);

// Checks an inline or user-preset model definition on its own.
std::optional<InputError> validateModel(const ModelSpec &model);
std::optional<InputError> validateDevice(const DeviceSpec &device);

// Layers per pipeline stage: the first L mod K stages take one extra layer
// (DESIGN §3.3).
std::vector<int> splitLayers(int layers, int stages);

} // namespace core
