#include "core/schedule.h"

#include <algorithm>
#include <array>
#include <functional>

namespace core {

namespace {

int chunksOf(const PipelineInput &in)
{
    return in.schedule == Schedule::interleaved ? std::max(in.virtualStages, 1) : 1;
}

// One stage's ops in schedule order, generated one at a time so that a
// simulation of K=64, m=1024, v=4 (half a million ops) allocates nothing per op.
//
// Every schedule here is "w warm-up forwards, then one forward and one backward
// in turn, then the remaining backwards":
// - GPipe (Huang et al. 2019): w = m, every forward then every backward.
// - 1F1B (Narayanan et al. 2021, §2.2, PipeDream-Flush): w = min(K-s-1, m).
// - ZB-H1 (Qi et al. 2023, §3.1): 1F1B's order with W split off; stage s runs
//   W(i-s) right after B(i), so later stages send input gradients back sooner
//   and the deferred W passes fill the tail, with at most K micro-batches alive.
// - Interleaved 1F1B (Narayanan et al. 2021, §2.2.2) in Megatron-LM's order
//   (schedules.py, forward_backward_pipelining_with_interleaving): micro-batches
//   go in groups of K through chunk 0, then chunk 1, ...; backwards take the
//   chunks in reverse; w = 2(K-s-1) + (v-1)K, or every forward when m = K.
class StageCursor
{
public:
    StageCursor(const PipelineInput &in, int stage)
        : m_stage(stage), m_stages(in.stages), m_m(in.microbatches), m_v(chunksOf(in)),
          m_total(in.microbatches * m_v), m_split(in.schedule == Schedule::zbH1)
    {
        const int K = in.stages;
        switch (in.schedule) {
        case Schedule::gpipe:
            m_warmup = m_total;
            break;
        case Schedule::oneFOneB:
        case Schedule::zbH1:
            m_warmup = std::min(K - stage - 1, m_m);
            break;
        case Schedule::interleaved:
            m_warmup = m_m == K ? m_total : std::min(2 * (K - stage - 1) + (m_v - 1) * K, m_total);
            break;
        }
        pick();
    }

    bool done() const { return m_done; }
    const ScheduleOp &current() const { return m_op; }
    std::size_t size() const { return static_cast<std::size_t>((m_split ? 3 : 2) * m_total); }

    void advance()
    {
        switch (m_op.kind) {
        case OpKind::forward:
            ++m_forwards;
            m_forwardPos.next(m_stages, m_v);
            break;
        case OpKind::backward:
            ++m_backwards;
            m_backwardPos.next(m_stages, m_v);
            break;
        case OpKind::weight:
            ++m_weights;
            break;
        }
        pick();
    }

private:
    void pick()
    {
        m_done = false;
        if (m_split && m_weights <= m_backwards - 1 - m_stage)
            return set(OpKind::weight, m_weights, 0);
        const bool forwardTurn =
            m_forwards < m_warmup || (m_forwards < m_total && m_forwards - m_warmup == m_backwards);
        if (forwardTurn)
            return set(OpKind::forward, m_forwardPos.microbatch(), m_forwardPos.chunk);
        if (m_backwards < m_total)
            return set(OpKind::backward, m_backwardPos.microbatch(), m_v - 1 - m_backwardPos.chunk);
        if (m_split && m_weights < m_total)
            return set(OpKind::weight, m_weights, 0);
        m_done = true;
    }

    void set(OpKind kind, int microbatch, int chunk)
    {
        m_op.kind = kind;
        m_op.microbatch = microbatch;
        m_op.chunk = chunk;
        m_op.stage = m_stage;
    }

    // Position in "groups of K micro-batches per chunk" order, kept incrementally
    // (the k-th op is micro-batch (k / Kv)·K + k mod K in chunk (k / K) mod v).
    struct Position
    {
        int base = 0;    // first micro-batch of the current group
        int inGroup = 0; // 0..K-1
        int chunk = 0;
        int microbatch() const { return base + inGroup; }
        void next(int K, int v)
        {
            if (v == 1) {
                ++inGroup;
                return;
            }
            if (++inGroup < K)
                return;
            inGroup = 0;
            if (++chunk < v)
                return;
            chunk = 0;
            base += K;
        }
    };

    int m_stage;
    int m_stages;
    int m_m;
    int m_v;
    int m_total;
    bool m_split;
    int m_warmup = 0;
    int m_forwards = 0;
    int m_backwards = 0;
    int m_weights = 0;
    Position m_forwardPos;
    Position m_backwardPos;
    bool m_done = false;
    ScheduleOp m_op;
};

} // namespace

const char *opLetter(OpKind kind)
{
    switch (kind) {
    case OpKind::forward:
        return "F";
    case OpKind::backward:
        return "B";
    case OpKind::weight:
        return "W";
    }
    return "?";
}

PipelineInput uniformPipeline(Schedule schedule, int stages, int microbatches, int virtualStages,
                              double forward)
{
    PipelineInput in;
    in.schedule = schedule;
    in.stages = stages;
    in.microbatches = microbatches;
    in.virtualStages = virtualStages;
    const auto k = static_cast<std::size_t>(stages);
    in.forward.assign(k, forward);
    const bool split = schedule == Schedule::zbH1;
    in.backward.assign(k, split ? forward : 2 * forward);
    in.weight.assign(k, split ? forward : 0.0);
    return in;
}

const PipelineResult &PipelineCache::simulate(const PipelineInput &in)
{
    std::string key;
    auto put = [&key](const auto &value) {
        key.append(reinterpret_cast<const char *>(&value), sizeof value);
    };
    put(in.schedule);
    put(in.stages);
    put(in.microbatches);
    put(in.virtualStages);
    put(in.p2pLatency);
    put(in.p2pSend);
    put(in.firstChunkExtra);
    put(in.lastChunkExtra);
    for (const auto *times : {&in.forward, &in.backward, &in.weight}) {
        put(times->size());
        for (double t : *times)
            put(t);
    }
    auto found = results_.find(key);
    if (found == results_.end())
        found = results_.emplace(std::move(key), simulatePipeline(in)).first;
    return found->second;
}

std::vector<std::vector<ScheduleOp>> scheduleOrder(const PipelineInput &in)
{
    std::vector<std::vector<ScheduleOp>> orders;
    orders.reserve(static_cast<std::size_t>(std::max(in.stages, 0)));
    for (int s = 0; s < in.stages; ++s) {
        StageCursor cursor(in, s);
        std::vector<ScheduleOp> order;
        order.reserve(cursor.size());
        for (; !cursor.done(); cursor.advance())
            order.push_back(cursor.current());
        orders.push_back(std::move(order));
    }
    return orders;
}

PipelineResult simulatePipeline(const PipelineInput &in, bool keepTimeline)
{
    PipelineResult r;
    const int K = in.stages;
    const int m = in.microbatches;
    const int v = chunksOf(in);
    if (K <= 0 || m <= 0)
        return r;
    const bool split = in.schedule == Schedule::zbH1;
    const auto ks = static_cast<std::size_t>(K);

    // Virtual stage j = chunk·K + stage (Megatron-LM's model-chunk numbering);
    // finish times per (virtual stage, micro-batch), negative until done. The
    // buffers are reused between calls: fresh pages cost more than the simulation.
    const int virtualStages = v * K;
    const auto cells = static_cast<std::size_t>(virtualStages) * static_cast<std::size_t>(m);
    thread_local std::vector<double> endF;
    thread_local std::vector<double> endB;
    endF.assign(cells, -1.0);
    endB.assign(cells, -1.0);
    auto cell = [m](int j, int mb) {
        return static_cast<std::size_t>(j) * static_cast<std::size_t>(m) +
               static_cast<std::size_t>(mb);
    };

    std::vector<StageCursor> cursors;
    cursors.reserve(ks);
    for (int s = 0; s < K; ++s)
        cursors.emplace_back(in, s);
    std::vector<double> freeAt(ks, 0.0);
    r.busy.assign(ks, 0.0);
    r.inflight.assign(ks, 0.0);
    std::vector<int> alive(ks, 0);
    std::vector<int> peak(ks, 0);
    if (keepTimeline)
        r.timeline.reserve(ks * cursors.front().size());

    // Per stage and op kind, one chunk's time.
    std::vector<std::array<double, 3>> durations(ks);
    for (std::size_t s = 0; s < ks; ++s)
        durations[s] = {in.forward[s] / v, in.backward[s] / v,
                        split && s < in.weight.size() ? in.weight[s] / v : 0.0};
    auto duration = [&](const ScheduleOp &o) {
        const auto kind = static_cast<std::size_t>(o.kind);
        const int j = o.chunk * K + o.stage;
        return durations[static_cast<std::size_t>(o.stage)][kind] +
               (j == 0 ? in.firstChunkExtra[kind] : 0.0) +
               (j == virtualStages - 1 ? in.lastChunkExtra[kind] : 0.0);
    };
    // The blocking send of an F to the next virtual stage, of a B to the previous one.
    const double send = K > 1 ? in.p2pSend : 0.0;
    auto sends = [&](const ScheduleOp &o) {
        const int j = o.chunk * K + o.stage;
        return (o.kind == OpKind::forward && j + 1 < virtualStages) ||
               (o.kind == OpKind::backward && j > 0 && duration(o) > 0);
    };
    // Neighbouring virtual stages sit on different devices unless K = 1.
    const double latency = K > 1 ? in.p2pLatency : 0.0;
    // When the op's input is ready, or a negative number while it is not.
    auto readyAt = [&](const ScheduleOp &o) {
        const int j = o.chunk * K + o.stage;
        switch (o.kind) {
        case OpKind::forward: {
            if (j == 0)
                return 0.0;
            const double t = endF[cell(j - 1, o.microbatch)];
            return t < 0 ? t : t + latency;
        }
        case OpKind::backward: {
            if (j == virtualStages - 1)
                return endF[cell(j, o.microbatch)];
            const double t = endB[cell(j + 1, o.microbatch)];
            return t < 0 ? t : t + latency;
        }
        case OpKind::weight:
            return endB[cell(j, o.microbatch)];
        }
        return -1.0;
    };

    // Stages that may be able to advance; an op finishing wakes the stage that
    // waits for it, so every op is looked at a bounded number of times.
    std::vector<int> pending;
    std::vector<char> queued(ks, 1);
    pending.reserve(ks);
    for (int s = K - 1; s >= 0; --s)
        pending.push_back(s);
    auto wake = [&](int s) {
        if (!queued[static_cast<std::size_t>(s)]) {
            queued[static_cast<std::size_t>(s)] = 1;
            pending.push_back(s);
        }
    };
    while (!pending.empty()) {
        const int s = pending.back();
        pending.pop_back();
        const auto si = static_cast<std::size_t>(s);
        queued[si] = 0;
        StageCursor &cursor = cursors[si];
        for (; !cursor.done(); cursor.advance()) {
            const ScheduleOp &o = cursor.current();
            const double ready = readyAt(o);
            if (ready < 0)
                break;
            const double start = std::max(ready, freeAt[si]);
            const double sent = sends(o) ? send : 0.0;
            const double end = start + duration(o) + sent;
            freeAt[si] = end;
            r.busy[si] += end - start;
            const int j = o.chunk * K + o.stage;
            if (o.kind == OpKind::forward) {
                endF[cell(j, o.microbatch)] = end;
                peak[si] = std::max(peak[si], ++alive[si]);
                if (j + 1 < virtualStages)
                    wake(s + 1 == K ? 0 : s + 1);
            } else if (o.kind == OpKind::backward) {
                endB[cell(j, o.microbatch)] = end;
                // Activations are freed by the last backward op that reads them:
                // B, or W in zero-bubble schedules (W needs the layer inputs).
                if (!split)
                    --alive[si];
                if (j > 0)
                    wake(s == 0 ? K - 1 : s - 1);
            } else {
                --alive[si];
            }
            if (keepTimeline) {
                ScheduleOp timed = o;
                timed.start = start;
                timed.end = end;
                timed.send = sent;
                r.timeline.push_back(timed);
            }
        }
    }

    r.complete = true;
    for (std::size_t s = 0; s < ks; ++s) {
        r.complete = r.complete && cursors[s].done();
        r.makespan = std::max(r.makespan, freeAt[s]);
        // A chunk holds 1/v of the stage's layers: report micro-batch equivalents.
        r.inflight[s] = static_cast<double>(peak[s]) / v;
    }
    double busy = 0;
    for (double b : r.busy)
        busy += b;
    r.bubbleFraction = r.makespan > 0 ? 1.0 - busy / (K * r.makespan) : 0.0;
    return r;
}

std::optional<double> closedFormBubble(Schedule schedule, int K, int m, int v, double forward,
                                       double inputGrad, double weightGrad)
{
    if (K <= 0 || m <= 0)
        return std::nullopt;
    switch (schedule) {
    case Schedule::gpipe:
    case Schedule::oneFOneB:
        // Narayanan et al. 2021, §2.2: bubble fraction (K-1)/(K-1+m) (docs/DESIGN.md §3.3).
        return double(K - 1) / (K - 1 + m);
    case Schedule::interleaved:
        if (v <= 0 || m % K != 0)
            return std::nullopt;
        // Narayanan et al. 2021, §2.2.2: bubble time (K-1)(F+B)/v, fraction (K-1)/(v·m+K-1).
        return double(K - 1) / (double(v) * m + K - 1);
    case Schedule::zbH1: {
        // The count holds while each deferred W fits the gap it fills, W <= min(F, B) (the
        // paper takes F = B = W); beyond that the simulation is the answer.
        if (m < K || weightGrad > std::min(forward, inputGrad))
            return std::nullopt;
        // Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.1: (K-1)(F+B-W) idle.
        const double bubble = (K - 1) * (forward + inputGrad - weightGrad);
        return bubble / (m * (forward + inputGrad + weightGrad) + bubble);
    }
    }
    return std::nullopt;
}

ClosedFormBubble closedFormBubble(const PipelineInput &in)
{
    const auto k = static_cast<std::size_t>(std::max(in.stages, 0));
    if (in.stages <= 0 || in.microbatches <= 0 || in.forward.size() != k || in.backward.size() != k)
        return {std::nullopt, "there is no pipeline"};
    const bool split = in.schedule == Schedule::zbH1;
    const auto uniform = [](const std::vector<double> &t) {
        return std::adjacent_find(t.begin(), t.end(), std::not_equal_to<>()) == t.end();
    };
    // Every closed form counts the fill and drain of equal stages (Narayanan et al. 2021,
    // §2.2); with uneven ones the slowest stage sets the pace and only the simulation knows.
    if (!uniform(in.forward) || !uniform(in.backward) || (split && !uniform(in.weight)))
        return {std::nullopt, "the stages take different times; the closed form assumes "
                              "equal stages"};
    if ((in.p2pLatency > 0 || in.p2pSend > 0) && in.stages > 1)
        return {std::nullopt, "the closed form assumes free point-to-point communication"};
    const double w = split && !in.weight.empty() ? in.weight.front() : 0.0;
    const double f = in.forward.front();
    const double b = in.backward.front();
    if (auto fraction =
            closedFormBubble(in.schedule, in.stages, in.microbatches, in.virtualStages, f, b, w))
        return {fraction, {}};
    switch (in.schedule) {
    case Schedule::zbH1:
        if (in.microbatches < in.stages)
            return {std::nullopt, "ZB-H1's closed form needs at least as many micro-batches as "
                                  "stages"};
        return {std::nullopt, "ZB-H1's closed form needs W no longer than F or B"};
    case Schedule::interleaved:
        return {std::nullopt, "the interleaved closed form needs micro-batches a multiple of "
                              "the stages"};
    case Schedule::gpipe:
    case Schedule::oneFOneB:
        break;
    }
    return {std::nullopt, "there is no pipeline"};
}

} // namespace core
