#pragma once

#include "core/comm_cost.h"

#include <cstdint>
#include <optional>
#include <string>

namespace core {

// Where one training or inference step's time goes (docs/step_time.md). The parts add up
// to the step time exactly: compute + bubble is the simulated pipeline makespan, and the
// communication that is not overlapped comes after it.
struct TimeBreakdown
{
    double computeS = 0; // the busiest stage's forward, backward and recomputation work
    double bubbleS = 0;  // makespan - computeS: that stage's idle time in the schedule
    double tpCommS = 0;  // tensor-parallel collectives, not overlapped
    double dpCommS = 0;  // the exposed (not hidden) part of the gradient synchronisation
};

struct StepTimeReport
{
    double stepTimeS = 0;
    double tokensPerS = 0;                // global: m × microbatch_size × seq_len × D per step
    double mfuAchieved = 0;               // model FLOPs ÷ (devices × peak × step time)
    std::optional<double> energyJPerStep; // empty when the device publishes no TDP
    std::optional<double> energyJPerMillionTokens;
    TimeBreakdown breakdown;
    std::string dpLink = "intra-node"; // the link the data-parallel group talks over
    std::int64_t dpBytesPerStep = 0;   // sent by one device of the busiest stage, ring
    double dpCommTotalS = 0;           // before dp_overlap hides part of it
};

// Gradient synchronisation of one device over a data-parallel group of `dp`.
struct DpSync
{
    std::int64_t bytesPerStep = 0;
    double seconds = 0;
};

// ZeRO 0: an all-reduce of the gradients; 1 and 2: a reduce-scatter of the gradients and an
// all-gather of the updated parameters; 3: plus a parameter all-gather in forward and one in
// backward (Rajbhandari et al. 2020, §7.2).
DpSync dpGradientSync(int zero, std::int64_t gradBytes, std::int64_t weightBytes, int dp,
                      const Link &link);

// Devices a data-parallel group spans: D replicas T devices apart (Megatron-LM orders ranks
// T, then D, then K), so T·D consecutive devices; intra-node only when they fit one node.
int dpGroupSpan(int tp, int dp);

struct StepTimeInput
{
    double makespanS = 0;         // simulated pipeline step (compute + bubble)
    double busiestComputeS = 0;   // the busiest stage's own work in that step
    double tpCommS = 0;           // per step, not overlapped
    double dpCommS = 0;           // per step, before overlap
    double dpOverlap = 0;         // fraction of dpCommS hidden
    double tokensPerStep = 0;     // global
    double modelFlopsPerStep = 0; // 6·N·tokens (training) or 2·N·tokens (inference)
    int devices = 1;
    double peakFlops = 0; // one device, FLOP/s
    double tdpW = 0;      // one device; 0 = not published
};

StepTimeReport stepTime(const StepTimeInput &in);

} // namespace core
