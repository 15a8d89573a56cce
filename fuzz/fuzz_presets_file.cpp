// libFuzzer target: any bytes as a presets file, as `--presets FILE` or the user's
// presets.json adds it to the built-in presets (docs/TESTING.md). A refused file
// names the key and adds nothing; a read one holds only models and devices that
// validate, each writes back to JSON that reads the same, and the first few
// evaluate in the default scenario and on one device, with their feed-forward
// layer's sharding analysed.
#include "core/presets.h"
#include "core/scenario.h"
#include "core/sharding.h"
#include "core/validate.h"
#include "fuzz/fuzz_support.h"
#include "io/presets_io.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

// Scenarios evaluated per file: a file of many entries costs no more than a few, so
// the fuzzer keeps trying thousands of files a second.
constexpr std::size_t kEvaluatedEntries = 4;

template <typename Spec> void checkRoundTrip(const Spec &spec)
{
    Spec reread;
    if constexpr (std::is_same_v<Spec, core::ModelSpec>) {
        const QJsonObject json = io::modelToJson(spec);
        fuzz::require(!io::parseModel(json, reread, "model."), "a model Parascope wrote "
                                                               "does not read back");
        fuzz::require(io::modelToJson(reread) == json, "a model reads back different");
    } else {
        const QJsonObject json = io::deviceToJson(spec);
        fuzz::require(!io::parseDevice(json, reread, "device."), "a device Parascope wrote "
                                                                 "does not read back");
        fuzz::require(io::deviceToJson(reread) == json, "a device reads back different");
    }
}

// The layer's sharding as the window's Sharding tab analyses it, for a scenario that
// validates. The numerical check is fuzz_shard_request's; without it the analysis is
// instant.
void analyseSharding(const core::Scenario &scenario, const core::Presets &presets)
{
    const core::ModelSpec *model = core::resolveModel(scenario, presets);
    const core::DeviceSpec *device = core::resolveDevice(scenario, presets);
    if (!model || !device || core::validate(scenario, presets))
        return;
    auto request = core::shardRequestFor(scenario, *model);
    if (!request)
        return;
    request->verify = core::Verify::off;
    fuzz::checkShardReport(*request, core::analyzeSharding(*request, *device));
}

// The default scenario (docs/DESIGN.md §4), and the same on one device, which any model's
// heads divide and any layer count splits into.
void evaluateWith(core::Scenario scenario, const core::Presets &presets)
{
    fuzz::evaluateAndCheck(scenario, presets);
    analyseSharding(scenario, presets);
    scenario.tp = scenario.pp = scenario.dp = 1;
    fuzz::evaluateAndCheck(scenario, presets);
    analyseSharding(scenario, presets);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    core::Presets own;
    const auto ownError = io::mergePresets(own, bytes);
    core::Presets merged = fuzz::presets();
    const auto error = io::mergePresets(merged, bytes);
    fuzz::require(error == ownError, "a file reads differently over the built-in presets");
    if (error) {
        // Only an unreadable document (not JSON, not an object) has no key to name.
        fuzz::checkRefusal(*error, QJsonDocument::fromJson(bytes).isObject());
        fuzz::require(own.models.empty() && own.devices.empty() &&
                          merged.models == fuzz::presets().models &&
                          merged.devices == fuzz::presets().devices,
                      "a refused presets file added something");
        return 0;
    }

    for (const auto &model : own.models) {
        fuzz::require(merged.model(model.id) && *merged.model(model.id) == model,
                      "a model of the file is not the one the presets hold");
        fuzz::require(!core::validateModel(model), "a model read from a file does not validate");
        checkRoundTrip(model);
    }
    for (const auto &device : own.devices) {
        fuzz::require(merged.device(device.id) && *merged.device(device.id) == device,
                      "a device of the file is not the one the presets hold");
        fuzz::require(!core::validateDevice(device), "a device read from a file does not validate");
        checkRoundTrip(device);
    }
    fuzz::require(!io::presetsToText(merged).isEmpty(), "empty presets listing");
    fuzz::require(!io::presetsToJson(merged).isEmpty(), "empty presets JSON");

    for (std::size_t i = 0; i < std::min(own.models.size(), kEvaluatedEntries); ++i) {
        core::Scenario scenario;
        scenario.model = own.models[i].id;
        evaluateWith(scenario, merged);
    }
    for (std::size_t i = 0; i < std::min(own.devices.size(), kEvaluatedEntries); ++i) {
        core::Scenario scenario;
        scenario.device = own.devices[i].id;
        evaluateWith(scenario, merged);
    }
    return 0;
}
