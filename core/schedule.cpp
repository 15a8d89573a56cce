#include "core/schedule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>

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

const std::vector<double> &PipelineCache::inflight(const PipelineInput &in)
{
    const int v = chunksOf(in);
    std::string key;
    for (int value : {static_cast<int>(in.schedule), in.stages, in.microbatches, v})
        key.append(reinterpret_cast<const char *>(&value), sizeof value);
    auto found = inflight_.find(key);
    if (found == inflight_.end())
        found = inflight_
                    .emplace(std::move(key),
                             inflightMicrobatches(in.schedule, in.stages, in.microbatches, v))
                    .first;
    return found->second;
}

std::vector<double> inflightMicrobatches(Schedule schedule, int K, int m, int v)
{
    std::vector<double> out(static_cast<std::size_t>(std::max(K, 0)), 0.0);
    if (K <= 0 || m <= 0)
        return out;
    for (int s = 0; s < K; ++s) {
        auto &peakOut = out[static_cast<std::size_t>(s)];
        switch (schedule) {
        case Schedule::gpipe:
            peakOut = m; // every forward before the first backward
            continue;
        case Schedule::oneFOneB:
            peakOut = std::min(K - s, m); // Narayanan et al. 2021, §2.2
            continue;
        case Schedule::zbH1:
        case Schedule::interleaved:
            break;
        }
        PipelineInput in;
        in.schedule = schedule;
        in.stages = K;
        in.microbatches = m;
        in.virtualStages = v;
        const bool split = schedule == Schedule::zbH1;
        int alive = 0, peak = 0;
        for (StageCursor cursor(in, s); !cursor.done(); cursor.advance()) {
            const OpKind kind = cursor.current().kind;
            if (kind == OpKind::forward)
                peak = std::max(peak, ++alive);
            else if ((kind == OpKind::backward) != split)
                --alive;
        }
        peakOut = static_cast<double>(peak) / chunksOf(in);
    }
    return out;
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

namespace {

// Per stage and op kind, one chunk's time and whether it ends with a blocking send: one
// description for the event simulation and for the shortcuts below.
class OpTimes
{
public:
    explicit OpTimes(const PipelineInput &in)
        : m_in(in), m_K(in.stages), m_virtualStages(chunksOf(in) * in.stages),
          m_send(in.stages > 1 ? in.p2pSend : 0.0)
    {
        const int v = chunksOf(in);
        const bool split = in.schedule == Schedule::zbH1;
        const auto ks = static_cast<std::size_t>(m_K);
        m_durations.resize(ks);
        for (std::size_t s = 0; s < ks; ++s)
            m_durations[s] = {in.forward[s] / v, in.backward[s] / v,
                              split && s < in.weight.size() ? in.weight[s] / v : 0.0};
    }

    double duration(const ScheduleOp &o) const
    {
        const auto kind = static_cast<std::size_t>(o.kind);
        const int j = o.chunk * m_K + o.stage;
        return m_durations[static_cast<std::size_t>(o.stage)][kind] +
               (j == 0 ? m_in.firstChunkExtra[kind] : 0.0) +
               (j == m_virtualStages - 1 ? m_in.lastChunkExtra[kind] : 0.0);
    }

    // The blocking send of an F to the next virtual stage, of a B to the previous one.
    double send(const ScheduleOp &o) const
    {
        const int j = o.chunk * m_K + o.stage;
        const bool sends = (o.kind == OpKind::forward && j + 1 < m_virtualStages) ||
                           (o.kind == OpKind::backward && j > 0 && duration(o) > 0);
        return sends ? m_send : 0.0;
    }

    // The all-to-all inside one op: its stage's share, a chunk's 1/v of it.
    double expertComm(const ScheduleOp &o) const
    {
        const auto &part = o.kind == OpKind::forward    ? m_in.forwardExpertComm
                           : o.kind == OpKind::backward ? m_in.backwardExpertComm
                                                        : m_noComm;
        const auto s = static_cast<std::size_t>(o.stage);
        return s < part.size() ? part[s] / chunksOf(m_in) : 0.0;
    }

    // Time the stage is busy with one op of this kind, micro-batch and chunk aside.
    double busy(int stage, OpKind kind) const
    {
        ScheduleOp o;
        o.stage = stage;
        o.kind = kind;
        return duration(o) + send(o);
    }

private:
    const PipelineInput &m_in;
    int m_K;
    int m_virtualStages;
    double m_send;
    std::vector<std::array<double, 3>> m_durations;
    std::vector<double> m_noComm;
};

// The bubble fraction from the stages' busy times: 1 - busy / (K × makespan).
void finish(PipelineResult &r)
{
    double busy = 0;
    for (double b : r.busy)
        busy += b;
    // A stage is never busier than the makespan: what is below 0 is rounding.
    r.bubbleFraction =
        r.makespan > 0
            ? std::max(0.0, 1.0 - busy / (static_cast<double>(r.busy.size()) * r.makespan))
            : 0.0;
}

// The event simulation of every op. endF and endB receive each (virtual stage, micro-batch)
// op's finish time at index j·m + micro-batch.
PipelineResult simulateEveryOp(const PipelineInput &in, bool keepTimeline,
                               std::vector<double> &endF, std::vector<double> &endB)
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
    // finish times per (virtual stage, micro-batch), negative until done.
    const int virtualStages = v * K;
    const auto cells = static_cast<std::size_t>(virtualStages) * static_cast<std::size_t>(m);
    endF.assign(cells, -1.0);
    endB.assign(cells, -1.0);
    auto cell = [m](int j, int mb) {
        return static_cast<std::size_t>(j) * static_cast<std::size_t>(m) +
               static_cast<std::size_t>(mb);
    };

    // Scratch reused between calls, like endF and endB: the default scenario's 128 ops cost
    // less than allocating these.
    thread_local std::vector<StageCursor> cursors;
    thread_local std::vector<double> freeAt;
    thread_local std::vector<int> alive;
    thread_local std::vector<int> peak;
    thread_local std::vector<int> pending;
    thread_local std::vector<char> queued;
    // Per virtual stage and kind: an op's time with its send, and the send alone.
    thread_local std::vector<std::array<double, 3>> cost;
    thread_local std::vector<std::array<double, 3>> sendOf;
    cursors.clear();
    for (int s = 0; s < K; ++s)
        cursors.emplace_back(in, s);
    freeAt.assign(ks, 0.0);
    alive.assign(ks, 0);
    peak.assign(ks, 0);
    queued.assign(ks, 1);
    pending.clear();
    r.busy.assign(ks, 0.0);
    r.inflight.assign(ks, 0.0);
    if (keepTimeline)
        r.timeline.reserve(ks * cursors.front().size());

    const OpTimes times(in);
    const auto vs = static_cast<std::size_t>(virtualStages);
    cost.resize(vs);
    sendOf.resize(vs);
    for (int j = 0; j < virtualStages; ++j)
        for (const OpKind kind : {OpKind::forward, OpKind::backward, OpKind::weight}) {
            ScheduleOp o;
            o.stage = j % K;
            o.chunk = j / K;
            o.kind = kind;
            const auto k = static_cast<std::size_t>(kind);
            const auto js = static_cast<std::size_t>(j);
            sendOf[js][k] = times.send(o);
            cost[js][k] = times.duration(o) + sendOf[js][k];
        }

    // Neighbouring virtual stages sit on different devices unless K = 1.
    const double latency = K > 1 ? in.p2pLatency : 0.0;
    // When the op's input is ready, or a negative number while it is not.
    auto readyAt = [&](const ScheduleOp &o, int j) {
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
        double free = freeAt[si];
        double busy = r.busy[si];
        for (; !cursor.done(); cursor.advance()) {
            const ScheduleOp &o = cursor.current();
            const int j = o.chunk * K + o.stage;
            const double ready = readyAt(o, j);
            if (ready < 0)
                break;
            const double start = std::max(ready, free);
            const auto k = static_cast<std::size_t>(o.kind);
            const double end = start + cost[static_cast<std::size_t>(j)][k];
            free = end;
            busy += end - start;
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
                timed.send = sendOf[static_cast<std::size_t>(j)][k];
                timed.expertComm = times.expertComm(o);
                r.timeline.push_back(timed);
            }
        }
        freeAt[si] = free;
        r.busy[si] = busy;
    }

    r.complete = true;
    for (std::size_t s = 0; s < ks; ++s) {
        r.complete = r.complete && cursors[s].done();
        r.makespan = std::max(r.makespan, freeAt[s]);
        // A chunk holds 1/v of the stage's layers: report micro-batch equivalents.
        r.inflight[s] = static_cast<double>(peak[s]) / v;
    }
    finish(r);
    r.simulatedMicrobatches = m;
    return r;
}

// GPipe without simulating its ops: every forward, then every backward, is a flow shop of m
// equal jobs through K machines, whose makespan is the longest path through the grid of
// (stage, micro-batch) ops: each stage's op once, the slowest stage's m-1 more times, and a
// hop between stages K-1 times (Johnson 1954's two-machine case, generalised by Conway,
// Maxwell and Miller, "Theory of Scheduling", 1967, §6). The backwards start when the
// last stage's forwards end and run the same way from stage K-1 to stage 0.
PipelineResult gpipeFlowShop(const PipelineInput &in)
{
    PipelineResult r;
    const int K = in.stages;
    const int m = in.microbatches;
    const OpTimes times(in);
    const double hop = K > 1 ? in.p2pLatency : 0.0;
    double sumF = 0, maxF = 0, sumB = 0, maxB = 0;
    r.busy.resize(static_cast<std::size_t>(K));
    r.inflight.assign(static_cast<std::size_t>(K), static_cast<double>(m));
    for (int s = 0; s < K; ++s) {
        const double f = times.busy(s, OpKind::forward);
        const double b = times.busy(s, OpKind::backward);
        sumF += f;
        sumB += b;
        maxF = std::max(maxF, f);
        maxB = std::max(maxB, b);
        r.busy[static_cast<std::size_t>(s)] = m * (f + b);
    }
    r.makespan = sumF + sumB + (m - 1) * (maxF + maxB) + 2 * (K - 1) * hop;
    r.complete = true;
    finish(r);
    return r;
}

// The period of a one-chunk 1F1B or ZB-H1 pipeline in its steady state, read off a
// simulation of m micro-batches. In round k every stage s runs F(k + K-s-1), B(k) (and
// ZB-H1's W(k-s)); each round's finish times are the same max-plus function of the round
// before (Baccelli et al., "Synchronization and Linearity", 1992, §3.7), so once a round
// ends exactly Λ after the round c before it on every stage, every later round does too.
// Equal stages repeat after c = K-2 rounds, not one: a wave runs around the pipeline.
struct SteadyPeriod
{
    int rounds = 0;    // c
    double time = 0.0; // Λ
};

std::optional<SteadyPeriod> steadyPeriod(const PipelineInput &in, const std::vector<double> &endF,
                                         const std::vector<double> &endB, double scale)
{
    const int K = in.stages;
    const int m = in.microbatches;
    auto at = [m](const std::vector<double> &ends, int stage, int microbatch) {
        return ends[static_cast<std::size_t>(stage) * static_cast<std::size_t>(m) +
                    static_cast<std::size_t>(microbatch)];
    };
    // Rounds from K on run every op (ZB-H1's W from round s); round m-K is the last before
    // the drain, and the drain looks back no further than it.
    const int last = m - K;
    const double tolerance = 1e-12 * scale;
    for (int c = 1; c <= 2 * K + 2 && last - c >= K; ++c) {
        const int k = last - c;
        const double period = at(endB, 0, last) - at(endB, 0, k);
        bool steady = true;
        for (int s = 0; s < K && steady; ++s) {
            const int f = K - s - 1;
            steady = std::abs(at(endF, s, last + f) - at(endF, s, k + f) - period) <= tolerance &&
                     std::abs(at(endB, s, last) - at(endB, s, k) - period) <= tolerance;
        }
        if (steady)
            return SteadyPeriod{c, period};
    }
    return std::nullopt;
}

} // namespace

// The status line and the planner need the makespan, not every op: at K=64, m=1024 that is
// 131,072 ops. GPipe has a closed form; one-chunk 1F1B and ZB-H1 are simulated for a few
// rounds past their steady state and the remaining rounds added at the period, which gives
// the simulation's own numbers (tst_pipeline compares them).
PipelineResult simulatePipeline(const PipelineInput &in, bool keepTimeline)
{
    // The buffers are reused between calls: fresh pages cost more than the simulation.
    thread_local std::vector<double> endF;
    thread_local std::vector<double> endB;
    const int K = in.stages;
    const int m = in.microbatches;
    if (keepTimeline || K <= 0 || m <= 0)
        return simulateEveryOp(in, keepTimeline, endF, endB);
    if (in.schedule == Schedule::gpipe)
        return gpipeFlowShop(in);
    if (in.schedule == Schedule::oneFOneB || in.schedule == Schedule::zbH1) {
        const OpTimes times(in);
        // Stages whose end stages carry the embedding and the LM head settle by round K
        // with a period of one round; equal stages need 3K rounds (see steadyPeriod).
        for (int rounds = 2 * K + 4; 2 * rounds <= m;
             rounds = rounds < 3 * K + 16 ? 3 * K + 16 : 4 * rounds) {
            PipelineInput shorter = in;
            shorter.microbatches = rounds;
            PipelineResult r = simulateEveryOp(shorter, false, endF, endB);
            const std::optional<SteadyPeriod> period =
                r.complete ? steadyPeriod(shorter, endF, endB, r.makespan) : std::nullopt;
            if (!period)
                continue;
            // A whole number of periods from the shorter pipeline to this one.
            if (const int extra = (m - rounds) % period->rounds; extra != 0) {
                shorter.microbatches += extra;
                r = simulateEveryOp(shorter, false, endF, endB);
            }
            const int more = m - shorter.microbatches;
            r.makespan += more / period->rounds * period->time;
            for (int s = 0; s < K; ++s)
                r.busy[static_cast<std::size_t>(s)] +=
                    more * (times.busy(s, OpKind::forward) + times.busy(s, OpKind::backward) +
                            (in.schedule == Schedule::zbH1 ? times.busy(s, OpKind::weight) : 0.0));
            finish(r);
            return r;
        }
    }
    return simulateEveryOp(in, false, endF, endB);
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
