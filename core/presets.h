#pragma once

#include "core/device.h"
#include "core/model.h"

#include <string_view>
#include <vector>

namespace core {

// The models and devices a scenario may name. Plain data: core never reads
// files; the io layer fills this from resources/presets and user files.
struct Presets
{
    std::vector<ModelSpec> models;
    std::vector<DeviceSpec> devices;

    const ModelSpec *model(std::string_view id) const;
    const DeviceSpec *device(std::string_view id) const;

    // Adds an entry, or replaces the one with the same id.
    void put(ModelSpec model);
    void put(DeviceSpec device);

    // Puts every model and device of `other`, in order, in time linear in the number of
    // entries (a presets file may hold thousands).
    void merge(Presets other);
};

} // namespace core
