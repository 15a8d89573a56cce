// libFuzzer target: any bytes as the KEY=VALUE of `--set` (docs/TESTING.md),
// through io::applySetting as the command line reads it and through
// core::setField as the window sets a field. A refused assignment names the key
// and changes nothing; an accepted one evaluates to a report whose numbers add
// up. Several lines are also applied one after another, like several --set.
#include "core/fields.h"
#include "core/scenario.h"
#include "fuzz/fuzz_support.h"
#include "io/scenario_io.h"

#include <QList>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

// One assignment as the command line applies it.
bool applyLikeTheCommandLine(core::Scenario &scenario, QStringView assignment)
{
    const core::Scenario before = scenario;
    if (const auto error = io::applySetting(scenario, assignment.toString())) {
        fuzz::checkRefusal(*error, true);
        fuzz::require(scenario == before, "a refused --set changed the scenario");
        return false;
    }
    return true;
}

// One field set directly, then its text set again: the value survives the round trip
// the window's undo stack and the scenario file rely on.
void setDirectly(std::string_view assignment)
{
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos)
        return;
    const std::string_view key = assignment.substr(0, eq);
    core::Scenario scenario;
    const core::Scenario before = scenario;
    if (const auto error = core::setField(scenario, key, assignment.substr(eq + 1))) {
        fuzz::checkRefusal(*error, true);
        fuzz::require(scenario == before, "a refused setField changed the scenario");
        return;
    }
    core::Scenario again;
    fuzz::require(!core::setField(again, key, core::fieldText(scenario, key)),
                  "fieldText gives a value setField refuses");
    fuzz::require(again == scenario, "fieldText and setField do not round-trip");
    fuzz::evaluateAndCheck(scenario);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const QString text = QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));

    core::Scenario single;
    if (applyLikeTheCommandLine(single, text))
        fuzz::evaluateAndCheck(single);
    setDirectly(bytes);

    if (!text.contains(QLatin1Char('\n')))
        return 0;
    core::Scenario several;
    for (QStringView line : QStringView(text).split(QLatin1Char('\n')))
        if (!applyLikeTheCommandLine(several, line))
            return 0;
    fuzz::evaluateAndCheck(several);
    return 0;
}
