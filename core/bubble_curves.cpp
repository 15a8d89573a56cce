#include "core/bubble_curves.h"

#include "core/schedule.h"

#include <cmath>

namespace core {

namespace {

std::vector<int> logSpaced(int step, int maximum)
{
    std::vector<int> out;
    for (int i = 0;; ++i) {
        const int m =
            i < 16 ? (i + 1) * step
                   : step * static_cast<int>(std::lround(16 * std::pow(2.0, (i - 15) / 24.0)));
        if (m > maximum)
            break;
        if (out.empty() || m > out.back())
            out.push_back(m);
    }
    return out;
}

} // namespace

std::vector<BubbleCurve> bubbleCurves(int stages, int virtualStages, int maxMicrobatches)
{
    std::vector<BubbleCurve> curves;
    if (stages <= 0 || maxMicrobatches <= 0)
        return curves;
    for (const auto &entry : enumNames(Schedule{})) {
        BubbleCurve curve;
        curve.schedule = entry.value;
        const bool interleaved = entry.value == Schedule::interleaved;
        // The chunks a stage runs: v (at least 2, so that it differs from 1F1B) interleaved,
        // two in DualPipeV's V and DualPipe's two directions, else one.
        curve.virtualStages =
            interleaved ? std::max(virtualStages, 2) : chunksPerStage(entry.value, 1);
        // Megatron-LM's interleaved schedule needs m to be a multiple of K, DualPipe an even
        // m (and K: with an odd K its curve has no points).
        const int step = interleaved ? stages : entry.value == Schedule::dualPipe ? 2 : 1;
        for (int m : logSpaced(step, maxMicrobatches))
            if (auto f = closedFormBubble(entry.value, stages, m, curve.virtualStages))
                curve.points.push_back({m, *f});
        curves.push_back(std::move(curve));
    }
    return curves;
}

} // namespace core
