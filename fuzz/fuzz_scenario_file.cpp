// libFuzzer target: any bytes as a scenario file (docs/TESTING.md). A file is
// either refused with a message naming the key, leaving the scenario as it was,
// or read; a read scenario writes back to a file that reads the same, and
// evaluates to a report whose numbers add up.
#include "core/scenario.h"
#include "fuzz/fuzz_support.h"
#include "io/scenario_io.h"

#include <QByteArray>
#include <QJsonDocument>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    core::Scenario scenario;
    scenario.tp = 2; // not the default, so that a refusal that resets it shows
    const core::Scenario before = scenario;
    if (const auto error = io::readScenario(bytes, scenario)) {
        // Only an unreadable document (not JSON, not an object) has no key to name.
        fuzz::checkRefusal(*error, QJsonDocument::fromJson(bytes).isObject());
        fuzz::require(scenario == before, "a refused file changed the scenario");
        return 0;
    }

    core::Scenario reread;
    const auto error = io::readScenario(io::writeScenario(scenario), reread);
    fuzz::require(!error, "a scenario Parascope wrote does not read back");
    fuzz::require(reread == scenario, "a scenario reads back different from what was written");

    fuzz::evaluateAndCheck(scenario);
    return 0;
}
