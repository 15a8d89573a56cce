#include "core/step_time.h"

#include <algorithm>

namespace core {

DpSync dpGradientSync(int zero, std::int64_t gradBytes, std::int64_t weightBytes, int dp,
                      const Link &link)
{
    DpSync out;
    if (dp <= 1)
        return out;
    auto add = [&](Collective kind, std::int64_t payload, int times) {
        out.bytesPerStep +=
            static_cast<std::int64_t>(times * wireBytesPerDevice(kind, payload, dp));
        out.seconds += times * collectiveSeconds(kind, payload, dp, link);
    };
    if (zero == 0) {
        // Rajbhandari et al. 2020, §7.1: plain data parallelism all-reduces the gradients (2Ψ).
        add(Collective::allReduce, gradBytes, 1);
        return out;
    }
    // Rajbhandari et al. 2020, §7.2.1: ZeRO-1/2 reduce-scatter gradients, all-gather parameters.
    add(Collective::reduceScatter, gradBytes, 1);
    // Rajbhandari et al. 2020, §7.2.2: ZeRO-3 all-gathers parameters in forward and backward (3Ψ).
    add(Collective::allGather, weightBytes, zero >= 3 ? 2 : 1);
    return out;
}

int dpGroupSpan(int tp, int dp)
{
    return dp <= 1 ? 1 : tp * dp;
}

const TimePartInfo &timePartInfo(TimePart part)
{
    return kTimeParts[static_cast<std::size_t>(part)];
}

double TimeBreakdown::total() const
{
    double sum = 0;
    for (double s : seconds)
        sum += s;
    return sum;
}

double TimeBreakdown::stageWork() const
{
    const TimeBreakdown &b = *this;
    return total() - b[TimePart::bubble] - b[TimePart::dpSync] - b[TimePart::optimizer];
}

StepTimeReport stepTime(const StepTimeInput &in)
{
    StepTimeReport r;
    r.makespanS = in.makespanS;
    // dp_overlap: the fraction of the gradient sync hidden behind backward (docs/step_time.md).
    const double dpExposed = (1.0 - in.dpOverlap) * in.dpCommS;
    r.dpCommTotalS = in.dpCommS;
    double busiest = -1;
    for (std::size_t i = 0; i < in.stageWork.size(); ++i) {
        TimeBreakdown b = in.stageWork[i];
        const double work = b.stageWork();
        // The stage's idle time in the schedule: what the simulation adds to its own work.
        // (Below a billionth of the makespan it is rounding, not waiting.)
        const double idle = in.makespanS - work;
        b[TimePart::bubble] = idle > 1e-9 * in.makespanS ? idle : 0.0;
        b[TimePart::dpSync] = dpExposed;
        b[TimePart::optimizer] = in.optimizerS;
        if (work > busiest) {
            busiest = work;
            r.busiestStage = static_cast<int>(i);
        }
        r.stages.push_back(b);
    }
    if (!r.stages.empty())
        r.breakdown = r.stages[static_cast<std::size_t>(r.busiestStage)];
    r.stepTimeS = r.breakdown.total();
    if (!(r.stepTimeS > 0))
        return r;
    r.tokensPerS = in.tokensPerStep / r.stepTimeS;
    // Narayanan et al. 2021, §5.1: MFU = model FLOPs ÷ (devices × peak × time).
    if (in.peakFlops > 0)
        r.mfuAchieved = in.modelFlopsPerStep / (in.devices * in.peakFlops * r.stepTimeS);
    if (in.tdpW > 0) {
        // Every device drawing its TDP for the whole step: an upper bound on board power.
        r.energyJPerStep = in.devices * in.tdpW * r.stepTimeS;
        if (in.tokensPerStep > 0)
            r.energyJPerMillionTokens = *r.energyJPerStep / in.tokensPerStep * 1e6;
    }
    return r;
}

} // namespace core
