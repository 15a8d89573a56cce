#include "core/step_time.h"

#include <algorithm>

namespace core {

DpSync dpGradientSync(int zero, std::int64_t gradBytes, std::int64_t weightBytes, int dp,
                      const Link &link, int microbatches, int buckets)
{
    DpSync out;
    out.microbatches = std::max(1, microbatches);
    if (dp <= 1)
        return out;
    buckets = std::max(1, buckets);
    const auto add = [&](Collective kind, std::int64_t payload, double &behind, int times) {
        out.bytesPerStep +=
            static_cast<std::int64_t>(times * wireBytesPerDevice(kind, payload, dp));
        // Each bucket is a collective of its own, with its own latency (NCCL's per call and
        // per ring step; Megatron-LM sizes its buckets with D for that reason:
        // distributed_data_parallel_config.py, bucket_size).
        const double seconds = buckets * collectiveSeconds(kind, payload / buckets, dp, link);
        out.seconds += times * seconds;
        behind += seconds;
    };
    const int m = out.microbatches;
    if (zero == 0) {
        // Rajbhandari et al. 2020, §7.1: plain data parallelism all-reduces the gradients (2Ψ).
        add(Collective::allReduce, gradBytes, out.stepBackwardS, 1);
        return out;
    }
    // Rajbhandari et al. 2020, §7.2.1: ZeRO-1/2 reduce-scatter gradients, all-gather parameters.
    // ZeRO-2 holds 1/D of the gradients, so each micro-batch's are reduced as they are made.
    if (zero == 1)
        add(Collective::reduceScatter, gradBytes, out.stepBackwardS, 1);
    else
        add(Collective::reduceScatter, gradBytes, out.microbatchBackwardS, m);
    // Rajbhandari et al. 2020, §7.2.2: ZeRO-3 holds 1/D of the parameters and gathers them for
    // each forward and each backward (3Ψ per micro-batch); 1 and 2 gather the update once.
    if (zero >= 3) {
        add(Collective::allGather, weightBytes, out.microbatchForwardS, m);
        add(Collective::allGather, weightBytes, out.microbatchBackwardS, m);
    } else {
        add(Collective::allGather, weightBytes, out.stepForwardS, 1);
    }
    return out;
}

DpSync replicaGradientSync(int zero, std::int64_t shardGradBytes, int replicas, const Link &link,
                           int microbatches, int buckets, bool deferred)
{
    DpSync out;
    out.microbatches = std::max(1, microbatches);
    if (replicas <= 1 || zero < 1)
        return out;
    buckets = std::max(1, buckets);
    // ZeRO-1 reduces once a step; ZeRO-2 and 3 keep only their shard, so each micro-batch's,
    // unless the all-reduce waits for the last (the shards accumulate meanwhile).
    const bool each = zero >= 2 && !deferred;
    const int times = each ? out.microbatches : 1;
    const double seconds = buckets * collectiveSeconds(Collective::allReduce,
                                                       shardGradBytes / buckets, replicas, link);
    out.bytesPerStep = static_cast<std::int64_t>(
        times * wireBytesPerDevice(Collective::allReduce, shardGradBytes, replicas));
    out.seconds = times * seconds;
    (each ? out.microbatchBackwardS : out.stepBackwardS) = seconds;
    return out;
}

namespace {

// A collective split into buckets hides behind a pass bucket by bucket: the last bucket
// reduced is made at the end of the backward, the first gathered is needed at the start of
// the forward, so that one runs outside the pass and the rest queue behind it (Megatron-LM,
// megatron/core/distributed/param_and_grad_buffer.py: a bucket's reduce-scatter starts when
// its last gradient is ready; the forward waits for each bucket's gather and starts the next).
// With share s of the whole in the edge bucket, a queue of equal buckets over a pass of W
// outlasts it by max(s·total, total − (1 − s)·W).
double outlasting(double total, double window, double edgeShare)
{
    if (total <= 0)
        return 0.0;
    return std::max(edgeShare * total, total - (1.0 - edgeShare) * window);
}

} // namespace

double dpEndSeconds(const DpSync &sync, std::optional<double> overlap, double backwardS,
                    bool gatherOverlapped, double edgeShare)
{
    if (overlap)
        return 0.0;
    // The step's last backward, as dpExposedSeconds counts it; DeepSpeed's gather at the end of
    // the optimizer step follows it.
    return outlasting(sync.stepBackwardS + sync.microbatchBackwardS, backwardS, edgeShare) +
           (gatherOverlapped ? 0.0 : sync.stepForwardS);
}

double dpExposedSeconds(const DpSync &sync, std::optional<double> overlap, double forwardS,
                        double backwardS, bool gatherOverlapped, double edgeShare)
{
    if (overlap)
        return (1.0 - *overlap) * sync.seconds;
    const auto piece = [edgeShare](double total, double window) {
        return outlasting(total, window, edgeShare);
    };
    // Megatron-LM's --overlap-grad-reduce starts each bucket's reduction as the last
    // micro-batch's backward produces it, --overlap-param-gather each bucket's gather in the
    // next step's first forward (Megatron-LM, docs/user-guide/parallelism-guide.md); PyTorch
    // FSDP prefetches alike (Zhao et al. 2023, §3.3). Whatever outlasts that pass is waited for.
    // The last backward carries the once-per-step reduction as well as its own; the first
    // forward the once-per-step gather as well as its own.
    const int others = sync.microbatches - 1;
    // The step's last backward carries the once-per-step reduction with its own; the earlier
    // micro-batches' edge buckets run on under the next forward, so only what outlasts them
    // shows.
    const auto exposedBackward = [&](double once, double each, double window) {
        return piece(once + each, window) + others * std::max(0.0, each - window);
    };
    // Every forward starts cold: its first bucket is gathered before it can begin (ZeRO-3
    // gathers in every micro-batch's forward; the step's first one also the update).
    const auto exposedForward = [&](double once, double each, double window) {
        return piece(once + each, window) + others * piece(each, window);
    };
    // DeepSpeed's ZeRO-1 and 2 gather the updated parameters at the end of the optimizer step
    // (deepspeed/runtime/zero/stage_1_and_2.py, step: all_gather_dp_groups): nothing overlaps.
    if (!gatherOverlapped)
        return exposedBackward(sync.stepBackwardS, sync.microbatchBackwardS, backwardS) +
               sync.stepForwardS + exposedForward(0.0, sync.microbatchForwardS, forwardS);
    return exposedBackward(sync.stepBackwardS, sync.microbatchBackwardS, backwardS) +
           exposedForward(sync.stepForwardS, sync.microbatchForwardS, forwardS);
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
    const double dpExposed = in.dpExposedS;
    r.dpCommTotalS = in.dpCommS;
    double busiest = -1;
    r.stages.reserve(in.stageWork.size());
    for (std::size_t i = 0; i < in.stageWork.size(); ++i) {
        TimeBreakdown b = in.stageWork[i];
        const double work = b.stageWork();
        // A gather the stage's first forward waited for, inside the pipeline.
        const double waited = b[TimePart::dpSync];
        // The stage's idle time in the schedule: what the simulation adds to its own work.
        // (Below a billionth of the makespan it is rounding, not waiting.)
        const double idle = in.makespanS - work - waited;
        b[TimePart::bubble] = idle > 1e-9 * in.makespanS ? idle : 0.0;
        b[TimePart::dpSync] = waited + dpExposed;
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
