#pragma once

#include "core/presets.h"
#include "core/report.h"
#include "core/scenario.h"

namespace core {

struct EvaluateOptions
{
    bool timeline = false; // fill Report::timeline (every op of the schedule; large at scale)
};

// The whole model: pure arithmetic over the scenario and the presets it names.
Report evaluate(const Scenario &scenario, const Presets &presets);
Report evaluate(const Scenario &scenario, const Presets &presets, const EvaluateOptions &options);

// Weight bytes of `params` parameters at a precision (DESIGN §3.1).
std::int64_t weightBytes(std::int64_t params, Precision precision);

} // namespace core
