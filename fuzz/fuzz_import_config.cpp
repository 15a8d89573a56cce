// libFuzzer target: any bytes as a framework's file (docs/import.md). A file is refused with
// a message, or read: a model it brings has an architecture, and a scenario it brings either
// is refused by validation or evaluates to a report whose numbers add up (with that model
// among the presets); what Parascope then emits for the scenario's framework imports again
// without harm.
#include "core/evaluate.h"
#include "fuzz/fuzz_support.h"
#include "io/framework_config.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    io::ImportOptions options;
    options.fileName = "fuzzed";
    const auto result = io::importConfig(bytes, core::Scenario{}, fuzz::presets(), options);
    if (const auto *error = std::get_if<core::InputError>(&result)) {
        fuzz::require(!error->message.empty(), "a refused file is refused without a reason");
        return 0;
    }
    const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
    core::Presets with = fuzz::presets();
    if (imported.model) {
        fuzz::require(imported.model->hasArchitecture(), "an imported model has no layers");
        fuzz::require(!imported.model->id.empty(), "an imported model has no id");
        with.put(*imported.model);
    }
    if (!imported.scenario)
        return 0;
    const core::Scenario &scenario = *imported.scenario;
    if (core::evaluate(scenario, with).error)
        return 0; // a layout validation refuses, naming its key, as for any scenario
    fuzz::evaluateAndCheck(scenario, with);
    if (scenario.framework == core::Framework::custom)
        return 0;
    const auto emitted = io::emitConfig(scenario, with, scenario.framework);
    if (const auto *text = std::get_if<std::string>(&emitted)) {
        options.devices = scenario.devices();
        const auto again =
            io::importConfig(QByteArray::fromStdString(*text), scenario, with, options);
        if (const auto *error = std::get_if<core::InputError>(&again))
            fuzz::require(!error->message.empty(), "an emitted file is refused without a reason");
    }
    return 0;
}
