#pragma once

#include "core/scenario.h"

#include <vector>

namespace core {

struct BubblePoint
{
    int microbatches = 0;
    double fraction = 0;
};

// One schedule's closed-form bubble fraction against m, for uniform stages
// and free communication (F = B = W for zb-h1).
struct BubbleCurve
{
    Schedule schedule = Schedule::oneFOneB;
    int virtualStages = 1; // chunks a stage: the interleaved curve's v, DualPipeV's 2, else 1
    std::vector<BubblePoint> points;
};

// Curves for every schedule at K stages, m from 1 to maxMicrobatches on
// roughly logarithmic steps (every m up to 16, then ~24 per octave); the
// interleaved curve at m multiples of K with v = max(virtualStages, 2), so
// that it differs from 1F1B; points without a closed form are left out.
std::vector<BubbleCurve> bubbleCurves(int stages, int virtualStages, int maxMicrobatches = 1024);

} // namespace core
