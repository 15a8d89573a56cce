#include "core/schedule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_set>
#include <utility>

namespace core {

namespace {

int chunksOf(const PipelineInput &in)
{
    return chunksPerStage(in.schedule, in.virtualStages);
}

// The stage that runs virtual stage j: j mod K, or in DualPipeV's V, j on the way out and
// 2K - 1 - j on the way back (virtualStageOf); DualPipe's directions likewise.
int stageOfVirtual(Schedule schedule, int K, int j)
{
    if (isDualPipe(schedule))
        return j < K ? j : 2 * K - 1 - j;
    return K > 0 ? j % K : 0;
}

// Whether a micro-batch's forward starts at virtual stage j: j = 0, and DualPipe's reverse
// direction at j = K (device K - 1).
bool startsPipeline(Schedule schedule, int K, int j)
{
    return j == 0 || (schedule == Schedule::dualPipe && j == K);
}

// Whether virtual stage j of `virtualStages` ends a micro-batch's forward, where its loss is
// and its backward starts: the last, and DualPipe's forward direction at j = K - 1.
bool endsPipeline(Schedule schedule, int K, int virtualStages, int j)
{
    return j == virtualStages - 1 || (schedule == Schedule::dualPipe && j == K - 1);
}

// Whether the input gives each virtual stage's times of its own (PipelineInput::forward).
bool timedPerVirtualStage(const PipelineInput &in)
{
    const int v = chunksOf(in);
    return v > 1 && in.stages > 0 &&
           in.forward.size() == static_cast<std::size_t>(v) * static_cast<std::size_t>(in.stages);
}

// Whether the schedule has an order for K stages and m micro-batches: DualPipeV's needs
// m >= 2K (dualpipev.py asserts it), DualPipe's also an even K and m (dualpipe.py: num_ranks
// % 2 == 0, num_chunks % 2 == 0 and num_chunks >= num_ranks * 2).
bool hasOrder(Schedule schedule, int K, int m)
{
    if (K <= 0 || m <= 0)
        return false;
    switch (schedule) {
    case Schedule::dualPipeV:
        return m >= 2 * K;
    case Schedule::dualPipe:
        return m >= 2 * K && K % 2 == 0 && m % 2 == 0;
    case Schedule::gpipe:
    case Schedule::oneFOneB:
    case Schedule::interleaved:
    case Schedule::zbH1:
        break;
    }
    return true;
}

// One stage's ops in DualPipeV's order, as deepseek-ai/DualPipe's dualpipev.py `step` runs
// them on rank r of K with m micro-batches (m >= 2K): chunk 0 is the rank's stage on the way
// out, chunk 1 its stage on the way back. Its eight steps: nF0, nF0F1, nB1W1F1 (zero bubble),
// the main nF0B1F1B0, nB1F1B0, nB1B0 (zero bubble from the middle), nWB0, nW. A zero-bubble B
// queues its W, which the next W pass runs first in, first out (WeightGradStore); the other
// B's compute their weight gradients themselves. An F and the B after it marked paired run as
// one overlapped pair (`_forward_backward_chunk`); the last rank's first pair of the main
// step runs apart ("We don't overlap these two chunks to further reduce bubble size").
// One op of a listed order, packed: a stage of K = 64 with m = 16,384 lists 82,000 of them.
struct ListedOp
{
    std::int32_t microbatch = 0;
    OpKind kind = OpKind::forward;
    std::uint8_t chunk = 0;
    bool paired = false;
    bool fullBackward = false;

    ScheduleOp at(int stage) const
    {
        ScheduleOp o;
        o.stage = stage;
        o.kind = kind;
        o.chunk = chunk;
        o.microbatch = microbatch;
        o.paired = paired;
        o.fullBackward = fullBackward;
        return o;
    }
};

std::vector<ListedOp> dualPipeVOrder(int K, int m, int r)
{
    std::vector<ListedOp> ops;
    ops.reserve(static_cast<std::size_t>(5 * m));
    std::array<int, 2> forwards{}, backwards{};
    std::deque<std::pair<int, int>> deferred; // (chunk, micro-batch) of zero-bubble B's
    const auto push = [&](OpKind kind, int chunk, int microbatch, bool paired, bool full) {
        ops.push_back({microbatch, kind, static_cast<std::uint8_t>(chunk), paired, full});
    };
    const auto F = [&](int chunk) {
        push(OpKind::forward, chunk, forwards[static_cast<std::size_t>(chunk)]++, false, false);
    };
    const auto B = [&](int chunk, bool zeroBubble, bool pairedWithForward = false) {
        const int mb = backwards[static_cast<std::size_t>(chunk)]++;
        if (zeroBubble)
            deferred.emplace_back(chunk, mb);
        push(OpKind::backward, chunk, mb, pairedWithForward, !zeroBubble);
    };
    const auto W = [&]() {
        if (deferred.empty())
            return;
        const auto [chunk, mb] = deferred.front();
        deferred.pop_front();
        push(OpKind::weight, chunk, mb, false, false);
    };
    const int back = K - r - 1;        // the stages after r on the way out
    for (int i = 0; i < 2 * back; ++i) // step 1: nF0
        F(0);
    for (int i = 0; i < r + 1; ++i) { // step 2: nF0F1
        F(0);
        F(1);
    }
    for (int i = 0; i < back; ++i) { // step 3: nB1W1F1
        B(1, true);
        W();
        F(1);
    }
    for (int i = 0; i < m - 2 * K + r + 1; ++i) { // step 4: nF0B1F1B0
        F(0);
        B(1, false, !(i == 0 && r == K - 1));
        F(1);
        B(0, false, true);
    }
    for (int i = 0; i < back; ++i) { // step 5: nB1F1B0
        B(1, false);
        F(1);
        B(0, false, true);
    }
    bool zeroBubble = false; // step 6: nB1B0, zero bubble from the middle on
    for (int i = 0; i < r + 1; ++i) {
        if (i == (r + 1) / 2 && r % 2 == 1)
            zeroBubble = true;
        B(1, zeroBubble);
        if (i == (r + 1) / 2 && r % 2 == 0)
            zeroBubble = true;
        B(0, zeroBubble);
    }
    for (int i = 0; i < back; ++i) { // step 7: nWB0
        W();
        B(0, true);
    }
    while (!deferred.empty()) // step 8: nW
        W();
    return ops;
}

// One stage's ops in DualPipe's order, as deepseek-ai/DualPipe's dualpipe.py `step` runs them
// on rank r of K (even) with m (even, >= 2K) micro-batches, half entering at each end. Its
// eight steps are dualpipev.py's with half_rank = min(r, K - 1 - r) for r, K/2 ranks and m/2
// micro-batches a direction (step_1 = (K/2 - half_rank - 1) * 2, ..., step_4 = m/2 - K +
// half_rank + 1; the middle ranks, half_rank = K/2 - 1, run the first pair of the main step
// apart, as DualPipeV's last rank does). Its phase 0 is the forward direction on the first
// half of the ranks and the reverse one on the second (`phase ^= self.is_in_second_half`):
// here chunk is the direction, and the reverse direction's micro-batches are numbered
// m/2..m-1.
std::vector<ListedOp> dualPipeOrder(int K, int m, int r)
{
    const int half = std::min(r, K - 1 - r);
    const bool secondHalf = r >= K / 2;
    std::vector<ListedOp> ops = dualPipeVOrder(K / 2, m / 2, half);
    for (ListedOp &op : ops) {
        op.chunk = static_cast<std::uint8_t>(op.chunk ^ (secondHalf ? 1 : 0));
        if (op.chunk == 1)
            op.microbatch += m / 2;
    }
    return ops;
}

// One stage's ops in schedule order, generated one at a time so that a
// simulation of K=64, m=1024, v=4 (half a million ops) allocates nothing per op.
//
// Every schedule here but DualPipeV is "w warm-up forwards, then one forward and one
// backward in turn, then the remaining backwards":
// - GPipe (Huang et al. 2019): w = m, every forward then every backward.
// - 1F1B (Narayanan et al. 2021, §2.2, PipeDream-Flush): w = min(K-s-1, m).
// - ZB-H1 (Qi et al. 2023, §3.1): 1F1B's order with W split off; stage s runs
//   W(i-s) right after B(i), so later stages send input gradients back sooner
//   and the deferred W passes fill the tail, with at most K micro-batches alive.
// - Interleaved 1F1B (Narayanan et al. 2021, §2.2.2) in Megatron-LM's order
//   (schedules.py, forward_backward_pipelining_with_interleaving): micro-batches
//   go in groups of K through chunk 0, then chunk 1, ...; backwards take the
//   chunks in reverse; w = min(2(K-s-1) + (v-1)K, mv) at every m (get_pp_rank_microbatches;
//   every forward first when m = K only until ADLR/megatron-lm!2117, November 2024), as
//   torch.distributed.pipelining's ScheduleInterleaved1F1B warms up (get_rank_warmup_ops).
// DualPipeV's and DualPipe's orders are their own (dualPipeVOrder, dualPipeOrder), listed
// once per stage.
class StageCursor
{
public:
    StageCursor(const PipelineInput &in, int stage)
        : m_stage(stage), m_stages(in.stages), m_m(in.microbatches), m_v(chunksOf(in)),
          m_total(in.microbatches * m_v), m_split(splitsWeightGradients(in.schedule))
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
            m_warmup = std::min(2 * (K - stage - 1) + (m_v - 1) * K, m_total);
            break;
        case Schedule::dualPipeV:
        case Schedule::dualPipe:
            // Without an order (hasOrder), no ops.
            if (hasOrder(in.schedule, K, m_m))
                m_list = in.schedule == Schedule::dualPipe ? dualPipeOrder(K, m_m, stage)
                                                           : dualPipeVOrder(K, m_m, stage);
            m_listed = true;
            m_done = m_list.empty();
            if (!m_done)
                m_op = m_list.front().at(m_stage);
            return;
        }
        pick();
    }

    bool done() const { return m_done; }
    const ScheduleOp &current() const { return m_op; }
    // The op after the current one, in a schedule listed whole; else none.
    const ScheduleOp *following() const
    {
        if (!m_listed || m_next + 1 >= m_list.size())
            return nullptr;
        m_following = m_list[m_next + 1].at(m_stage);
        return &m_following;
    }
    std::size_t size() const
    {
        return m_listed ? m_list.size() : static_cast<std::size_t>((m_split ? 3 : 2) * m_total);
    }

    void advance()
    {
        if (m_listed) {
            m_done = ++m_next >= m_list.size();
            if (!m_done)
                m_op = m_list[m_next].at(m_stage);
            return;
        }
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
    // A schedule listed whole (DualPipe, DualPipeV): its ops and the next one's index.
    bool m_listed = false;
    std::vector<ListedOp> m_list;
    mutable ScheduleOp m_following;
    std::size_t m_next = 0;
};

} // namespace

bool splitsWeightGradients(Schedule schedule)
{
    return schedule == Schedule::zbH1 || isDualPipe(schedule);
}

bool isDualPipe(Schedule schedule)
{
    return schedule == Schedule::dualPipeV || schedule == Schedule::dualPipe;
}

int chunksPerStage(Schedule schedule, int virtualStages)
{
    switch (schedule) {
    case Schedule::interleaved:
        return std::max(virtualStages, 1);
    case Schedule::dualPipeV:
    case Schedule::dualPipe:
        return 2;
    case Schedule::gpipe:
    case Schedule::oneFOneB:
    case Schedule::zbH1:
        break;
    }
    return 1;
}

int headStage(Schedule schedule, int stages)
{
    return schedule == Schedule::dualPipeV ? 0 : std::max(stages, 1) - 1;
}

double stageSeconds(const PipelineInput &in, int stage, OpKind kind)
{
    const std::vector<double> &times = kind == OpKind::forward    ? in.forward
                                       : kind == OpKind::backward ? in.backward
                                                                  : in.weight;
    if (!timedPerVirtualStage(in)) {
        const auto s = static_cast<std::size_t>(stage);
        return s < times.size() ? times[s] : 0.0;
    }
    double total = 0;
    for (int chunk = 0; chunk < chunksOf(in); ++chunk) {
        const auto j =
            static_cast<std::size_t>(virtualStageOf(in.schedule, in.stages, stage, chunk));
        total += j < times.size() ? times[j] : 0.0;
    }
    return total;
}

double passedShare(Schedule schedule)
{
    return schedule == Schedule::dualPipe ? 0.5 : 1.0;
}

bool holdsEmbedding(Schedule schedule, int stages, int stage)
{
    return stage == 0 || (schedule == Schedule::dualPipe && stage == stages - 1);
}

bool holdsHead(Schedule schedule, int stages, int stage)
{
    return stage == headStage(schedule, stages) || (schedule == Schedule::dualPipe && stage == 0);
}

int virtualStageOf(Schedule schedule, int stages, int stage, int chunk)
{
    if (isDualPipe(schedule))
        return chunk == 0 ? stage : 2 * stages - 1 - stage;
    return chunk * stages + stage;
}

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
    const bool split = splitsWeightGradients(schedule);
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
    put(in.boundarySend.size());
    for (double t : in.boundarySend)
        put(t);
    put(in.firstChunkExtra);
    put(in.lastChunkExtra);
    put(in.firstForwardExtra.size());
    for (double t : in.firstForwardExtra)
        put(t);
    put(in.forwardOffloadWait);
    put(in.backwardOffloadWait);
    put(in.expertOverlap);
    if (in.expertOverlap) {
        put(in.expertCommShare);
        for (const auto *comm : {&in.forwardExpertComm, &in.backwardExpertComm}) {
            put(comm->size());
            for (double t : *comm)
                put(t);
        }
    }
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

namespace {

// What the order's counts depend on: the schedule, K, m and the chunks a stage.
std::string shapeKey(Schedule schedule, int stages, int microbatches, int chunks)
{
    std::string key;
    for (int value : {static_cast<int>(schedule), stages, microbatches, chunks})
        key.append(reinterpret_cast<const char *>(&value), sizeof value);
    return key;
}

std::string shapeKey(const PipelineInput &in)
{
    return shapeKey(in.schedule, in.stages, in.microbatches, chunksOf(in));
}

} // namespace

const std::vector<double> &PipelineCache::inflight(const PipelineInput &in)
{
    const int v = chunksOf(in);
    std::string key = shapeKey(in);
    auto found = inflight_.find(key);
    if (found != inflight_.end())
        return found->second;
    std::vector<double> counts;
    if (v > 1) {
        // The chunks' peaks, remembered too, give the counts: one walk of the order for both.
        for (const AlivePeaks &peaks : alivePeaks(in)) {
            int most = 0;
            for (const std::vector<int> &alive : peaks)
                most = std::max(most, std::accumulate(alive.begin(), alive.end(), 0));
            counts.push_back(static_cast<double>(most) / v);
        }
    } else {
        counts = inflightMicrobatches(in.schedule, in.stages, in.microbatches, v);
    }
    return inflight_.emplace(std::move(key), std::move(counts)).first->second;
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
        case Schedule::dualPipeV:
        case Schedule::dualPipe:
            break;
        }
        const PipelineInput in = uniformPipeline(schedule, K, m, v);
        const bool split = splitsWeightGradients(schedule);
        int alive = 0, peak = 0;
        for (StageCursor cursor(in, s); !cursor.done(); cursor.advance()) {
            const ScheduleOp &o = cursor.current();
            if (o.kind == OpKind::forward)
                peak = std::max(peak, ++alive);
            else if (o.kind == OpKind::weight || !split || o.fullBackward)
                --alive; // the last pass that reads the activations frees them
        }
        peakOut = static_cast<double>(peak) / chunksOf(in);
    }
    return out;
}

int heldLosses(Schedule schedule, int K, int m, int v)
{
    if (K <= 0 || m <= 0)
        return 0;
    switch (schedule) {
    case Schedule::gpipe:
        return m; // every forward before the first backward
    case Schedule::oneFOneB:
    case Schedule::zbH1:
        return 1; // the last stage warms up with no forward (Narayanan et al. 2021, §2.2)
    case Schedule::interleaved:
        // Whole groups of K (as validation requires): the last stage warms up with the (v-1)K
        // forwards of its earlier chunks, fewer than its mv, then runs each head F's B next.
        if (m % K == 0)
            return 1;
        break;
    case Schedule::dualPipeV:
    case Schedule::dualPipe:
        break;
    }
    const PipelineInput in = uniformPipeline(schedule, K, m, v);
    const int stage = headStage(schedule, K);
    // The chunk that ends in the head: the last, but in DualPipe the forward direction's,
    // which ends on stage K - 1.
    const int head = schedule == Schedule::dualPipe ? 0 : chunksOf(in) - 1;
    int held = 0, peak = 0;
    for (StageCursor cursor(in, stage); !cursor.done(); cursor.advance()) {
        const ScheduleOp &o = cursor.current();
        if (o.chunk != head)
            continue;
        if (o.kind == OpKind::forward)
            ++held;
        else if (o.kind == OpKind::backward)
            peak = std::max(peak, held--);
    }
    return peak;
}

namespace {

// A peak follows an F; of those, only the ones no other holds at least as many of every chunk
// of can be the heaviest, whatever the weights. A new peak takes the place of the first it
// covers, copied into its storage: a warm-up's run of forwards, each covering the last, then
// allocates nothing.
void addAlivePeak(AlivePeaks &peaks, const std::vector<int> &alive)
{
    const auto covers = [](const std::vector<int> &a, const std::vector<int> &b) {
        return std::equal(a.begin(), a.end(), b.begin(), std::greater_equal<>());
    };
    if (std::any_of(peaks.begin(), peaks.end(),
                    [&](const std::vector<int> &p) { return covers(p, alive); }))
        return;
    const auto coveredByAlive = [&](const std::vector<int> &p) { return covers(alive, p); };
    const auto first = std::find_if(peaks.begin(), peaks.end(), coveredByAlive);
    if (first == peaks.end()) {
        peaks.push_back(alive);
        return;
    }
    *first = alive;
    peaks.erase(std::remove_if(first + 1, peaks.end(), coveredByAlive), peaks.end());
}

// addAlivePeak for one stage's counts in turn, trying each count once: a count met before is
// a peak already or covered by one. A steady state meets the same few counts again and
// again (interleaved, K = 64, m = 1,024, v = 4: each of about 64 peaks a stage several times
// over), and trying one against the peaks is a pass over them all. Counts of up to four
// chunks below 65,536 are told apart exactly by a 64-bit key; others are tried every time.
class AlivePeakTracker
{
public:
    void add(AlivePeaks &peaks, const std::vector<int> &alive)
    {
        if (alive.size() <= 4 &&
            std::all_of(alive.begin(), alive.end(), [](int n) { return n >= 0 && n < 65536; })) {
            std::uint64_t key = 0;
            for (int n : alive)
                key = key << 16 | static_cast<std::uint64_t>(n);
            if (!m_seen.insert(key).second)
                return;
        }
        addAlivePeak(peaks, alive);
    }
    // For the next stage: its buckets stay allocated.
    void clear() { m_seen.clear(); }

private:
    std::unordered_set<std::uint64_t> m_seen;
};

} // namespace

std::vector<AlivePeaks> alivePeaks(Schedule schedule, int K, int m, int v)
{
    std::vector<AlivePeaks> out(static_cast<std::size_t>(std::max(K, 0)));
    if (K <= 0 || m <= 0)
        return out;
    const PipelineInput in = uniformPipeline(schedule, K, m, v);
    const int chunks = chunksOf(in);
    const bool split = splitsWeightGradients(schedule);
    AlivePeakTracker tracker;
    for (int s = 0; s < K; ++s) {
        AlivePeaks &peaks = out[static_cast<std::size_t>(s)];
        std::vector<int> alive(static_cast<std::size_t>(chunks), 0);
        // The count after an F that another F follows is covered by the next: only the last of
        // a run of forwards can be a peak.
        tracker.clear();
        const auto add = [&] { tracker.add(peaks, alive); };
        bool afterForward = false;
        for (StageCursor cursor(in, s); !cursor.done(); cursor.advance()) {
            const ScheduleOp &o = cursor.current();
            const auto c = static_cast<std::size_t>(std::clamp(o.chunk, 0, chunks - 1));
            if (o.kind != OpKind::forward) {
                if (afterForward)
                    add();
                afterForward = false;
                if (o.kind == OpKind::weight || !split || o.fullBackward)
                    --alive[c]; // the last pass that reads them frees them
                continue;
            }
            ++alive[c];
            afterForward = true;
        }
        if (afterForward)
            add();
    }
    return out;
}

std::vector<double> inflightWeighted(Schedule schedule, int K, const std::vector<AlivePeaks> &peaks,
                                     const std::vector<double> &weights)
{
    std::vector<double> out(peaks.size(), 0.0);
    for (std::size_t s = 0; s < peaks.size(); ++s)
        for (const std::vector<int> &alive : peaks[s]) {
            double bytes = 0;
            for (std::size_t c = 0; c < alive.size(); ++c) {
                const auto j = static_cast<std::size_t>(
                    virtualStageOf(schedule, K, static_cast<int>(s), static_cast<int>(c)));
                bytes += alive[c] * (j < weights.size() ? weights[j] : 0.0);
            }
            out[s] = std::max(out[s], bytes);
        }
    return out;
}

const std::vector<AlivePeaks> &PipelineCache::alivePeaks(const PipelineInput &in)
{
    const int v = chunksOf(in);
    std::string key = shapeKey(in);
    auto found = alive_.find(key);
    if (found == alive_.end())
        found = alive_
                    .emplace(std::move(key),
                             core::alivePeaks(in.schedule, in.stages, in.microbatches, v))
                    .first;
    return found->second;
}

int PipelineCache::heldLosses(Schedule schedule, int stages, int microbatches, int virtualStages)
{
    // Only the walks are worth remembering: the other schedules' counts are closed forms.
    if (schedule != Schedule::dualPipe && schedule != Schedule::dualPipeV &&
        !(schedule == Schedule::interleaved && stages > 0 && microbatches % stages != 0))
        return core::heldLosses(schedule, stages, microbatches, virtualStages);
    std::string key =
        shapeKey(schedule, stages, microbatches, chunksPerStage(schedule, virtualStages));
    if (const auto found = held_.find(key); found != held_.end())
        return found->second;
    const int held = core::heldLosses(schedule, stages, microbatches, virtualStages);
    held_.emplace(std::move(key), held);
    return held;
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
    // No table of its own: each simulation sets one up and asks it a few times per virtual
    // stage, less than allocating one would cost.
    explicit OpTimes(const PipelineInput &in)
        : m_in(in), m_K(in.stages), m_v(chunksOf(in)), m_virtualStages(m_v * in.stages),
          m_split(splitsWeightGradients(in.schedule)), m_send(in.stages > 1 ? in.p2pSend : 0.0),
          m_perChunk(timedPerVirtualStage(in))
    {}

    // The virtual stage an op runs (virtualStageOf).
    int virtualStage(const ScheduleOp &o) const
    {
        return virtualStageOf(m_in.schedule, m_K, o.stage, o.chunk);
    }

    double duration(const ScheduleOp &o) const
    {
        const auto kind = static_cast<std::size_t>(o.kind);
        const int j = virtualStage(o);
        const auto weight = static_cast<std::size_t>(OpKind::weight);
        const bool full = o.fullBackward && o.kind == OpKind::backward;
        return chunkTime(o.stage, j, o.kind) +
               (full ? chunkTime(o.stage, j, OpKind::weight) : 0.0) +
               (startsPipeline(m_in.schedule, m_K, j)
                    ? m_in.firstChunkExtra[kind] + (full ? m_in.firstChunkExtra[weight] : 0.0)
                    : 0.0) +
               (endsPipeline(m_in.schedule, m_K, m_virtualStages, j)
                    ? m_in.lastChunkExtra[kind] + (full ? m_in.lastChunkExtra[weight] : 0.0)
                    : 0.0);
    }

    // The blocking send of an F to the next virtual stage, of a B to the previous one, when
    // that one is on another stage (DualPipeV turns on its last stage without a send; no
    // micro-batch of DualPipe's crosses between its directions, both on its last stage).
    double send(const ScheduleOp &o) const
    {
        const int j = virtualStage(o);
        const int to = o.kind == OpKind::forward ? j + 1 : j - 1;
        const bool sends =
            (o.kind == OpKind::forward || (o.kind == OpKind::backward && duration(o) > 0)) &&
            to >= 0 && to < m_virtualStages && stageOfVirtual(m_in.schedule, m_K, to) != o.stage;
        if (!sends)
            return 0.0;
        // Boundary b joins stages b and b + 1; the interleaved schedule's last stage wraps to
        // the first (the next chunk) over boundary K - 1.
        const int next = stageOfVirtual(m_in.schedule, m_K, to);
        const int b = isDualPipe(m_in.schedule)   ? std::min(o.stage, next)
                      : o.kind == OpKind::forward ? o.stage
                                                  : (o.stage + m_K - 1) % m_K;
        const auto boundary = static_cast<std::size_t>(b);
        return boundary < m_in.boundarySend.size() && m_K > 1 ? m_in.boundarySend[boundary]
                                                              : m_send;
    }

    // The all-to-all inside one op: its stage's share, a chunk's 1/v of it, or its virtual
    // stage's own.
    double expertComm(const ScheduleOp &o) const
    {
        const auto &part = o.kind == OpKind::forward    ? m_in.forwardExpertComm
                           : o.kind == OpKind::backward ? m_in.backwardExpertComm
                                                        : m_noComm;
        if (m_perChunk) {
            const auto j = static_cast<std::size_t>(virtualStage(o));
            return j < part.size() ? part[j] : 0.0;
        }
        const auto s = static_cast<std::size_t>(o.stage);
        return s < part.size() ? part[s] / m_v : 0.0;
    }

    // Of a pair run together (expertOverlap: Megatron-LM's backward and the forward after it,
    // DualPipe(V)'s forward and the whole backward after it), what the all-to-all adds to the
    // pair's two computations, a chunk's share, charged to the forward: the part they
    // do not cover, and for the part they do, the share of the device its kernels hold
    // (PipelineInput::expertCommShare; docs/experts.md, "All-to-all overlap"). The ends'
    // extra work is left out of the computations, so this never hides more than the layers
    // can cover. The pair of a forward: DualPipe(V) runs it with the other chunk's whole
    // backward; Megatron-LM's chunks are a stage's equal shares.
    double pairExcess(const ScheduleOp &forward) const
    {
        const ScheduleOp backward = partnerOf(forward);
        const int jf = virtualStage(forward), jb = virtualStage(backward);
        const double comm = pairComm(forward);
        const double compute =
            chunkTime(forward.stage, jf, OpKind::forward) +
            chunkTime(backward.stage, jb, OpKind::backward) +
            (isDualPipe(m_in.schedule) ? chunkTime(backward.stage, jb, OpKind::weight) : 0.0) -
            comm;
        const double hidden = std::clamp(compute, 0.0, comm);
        return comm - hidden + hidden * m_in.expertCommShare;
    }

    // A pair's two all-to-alls: the forward's and its partner backward's.
    double pairComm(const ScheduleOp &forward) const
    {
        return expertComm(forward) + expertComm(partnerOf(forward));
    }

    // One op of a pair: its time without its all-to-all, the forward with the pair's excess.
    double pairedDuration(const ScheduleOp &o) const
    {
        return duration(o) - expertComm(o) + (o.kind == OpKind::forward ? pairExcess(o) : 0.0);
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
    // The backward a forward runs beside: of the other chunk in DualPipe(V), else its own.
    ScheduleOp partnerOf(const ScheduleOp &forward) const
    {
        ScheduleOp b = forward;
        b.kind = OpKind::backward;
        if (isDualPipe(m_in.schedule))
            b.chunk = 1 - forward.chunk;
        return b;
    }

    // One chunk's time of this kind: its virtual stage j's own, or its stage's 1/v; W only in
    // zero-bubble schedules.
    double chunkTime(int stage, int j, OpKind kind) const
    {
        const auto i = static_cast<std::size_t>(m_perChunk ? j : stage);
        const double share = m_perChunk ? 1.0 : 1.0 / m_v;
        switch (kind) {
        case OpKind::forward:
            return m_in.forward[i] * share;
        case OpKind::backward:
            return m_in.backward[i] * share;
        case OpKind::weight:
            return m_split && i < m_in.weight.size() ? m_in.weight[i] * share : 0.0;
        }
        return 0.0;
    }

    const PipelineInput &m_in;
    int m_K;
    int m_v;
    int m_virtualStages;
    bool m_split;
    double m_send;
    bool m_perChunk;
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

// An order of every op in which each op comes after the ops it waits for: the order the
// stages' cursors reach them when each stage runs as far as its inputs allow. Which ops are
// done never depends on how long they took, so the order depends on the schedule, K, m and v
// only, and one order times every scenario of that shape: the simulation is then one pass
// of max-plus arithmetic over it (Baccelli et al., "Synchronization and Linearity", 1992,
// §2.5: a timed event graph's finish times are a max-plus recurrence in any such order).
struct PlannedOp
{
    std::int32_t wait; // index in `ends` of the finish time the op waits for; -1: none
    std::int32_t out;  // index in `ends` it writes (F at j·m + mb, B at cells + j·m + mb); -1: W
    // kRows·j + kind (kFullBackward: a B with its W): its row in the per-(virtual stage, kind)
    // costs; the two ops of a pair (PipelineInput::expertOverlap: a backward and the forward
    // its stage runs next; DualPipeV's marked pairs) take the rows of a second block,
    // kRows·(virtual stages) on.
    std::int32_t cost;
    std::int16_t stage; // device
    std::uint8_t hop;   // kHop when `wait` is on a neighbouring device: add the p2p latency;
                        // kFirstForward on the step's first forward through a chunk
    std::uint8_t kind;  // OpKind, or kMarker
};

// A planned step that takes no time: it holds its stage until `wait` is done, or gives
// `out` the time its stage gets to it. DualPipeV's pairs start when both their inputs
// have arrived and hand both outputs on when both are done (dualpipev.py,
// `_forward_backward_chunk`: both receives, the overlapped computation, both sends), so a
// pair is planned as a marker waiting for the second op's input, the two ops, and a marker
// giving the first op's output the pair's end.
constexpr std::uint8_t kMarker = 3;
// PlannedOp::hop's bits.
constexpr std::uint8_t kHop = 1;
constexpr std::uint8_t kFirstForward = 2;

// Whether the plan runs Megatron-LM's backward-and-forward pairs as one step.
bool combinedPairs(const PipelineInput &in)
{
    return in.expertOverlap && !isDualPipe(in.schedule);
}

// Cost rows per virtual stage: F, B, W and a B that computes its W too.
constexpr int kRows = 4;
constexpr int kFullBackward = 3;

struct Plan
{
    int schedule = -1, stages = 0, microbatches = 0, chunks = 0;
    // Megatron-LM's backward-and-forward pairs run as one (PipelineInput::expertOverlap).
    bool combined = false;
    bool complete = false;
    std::vector<PlannedOp> ops;
    std::vector<int> peak; // per stage: most forwards alive at once, in chunks
    // Per stage, with more than one chunk a stage: the chunks' counts at its peaks (alivePeaks).
    std::vector<AlivePeaks> alive;
};

// Plans of at most this many ops (16 bytes each) are kept, the last 256 per thread up to
// kCachedOpsBudget ops in all: the default scenario's has 128 ops; the planner's 405B search
// on 16,384 devices meets 141 shapes on one thread, and 64 remembered shapes made it build
// 297 plans, 16 ten times as many.
constexpr std::size_t kCachedPlanOps = 1u << 16;
constexpr std::size_t kCachedPlans = 256;
constexpr std::size_t kCachedOpsBudget = std::size_t{1} << 21; // 32 MiB a thread

void buildPlan(const PipelineInput &in, Plan &plan)
{
    const int K = in.stages;
    const int m = in.microbatches;
    const int v = chunksOf(in);
    plan.schedule = static_cast<int>(in.schedule);
    plan.stages = K;
    plan.microbatches = m;
    plan.chunks = v;
    plan.combined = combinedPairs(in);
    plan.ops.clear();
    const bool split = splitsWeightGradients(in.schedule);
    const bool listedPairs = isDualPipe(in.schedule);
    const auto ks = static_cast<std::size_t>(K);
    const int virtualStages = v * K;
    const int cells = virtualStages * m;
    // Per virtual stage j, looked up for every op: its device, whether a micro-batch's forward
    // starts or ends there; and per device and chunk, its virtual stage.
    std::vector<int> stageOfJ(static_cast<std::size_t>(virtualStages));
    std::vector<char> startsAt(stageOfJ.size()), endsAt(stageOfJ.size());
    for (int j = 0; j < virtualStages; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        stageOfJ[jj] = stageOfVirtual(in.schedule, K, j);
        startsAt[jj] = startsPipeline(in.schedule, K, j);
        endsAt[jj] = endsPipeline(in.schedule, K, virtualStages, j);
    }
    std::vector<int> jOf(ks * static_cast<std::size_t>(v));
    for (int s = 0; s < K; ++s)
        for (int c = 0; c < v; ++c)
            jOf[static_cast<std::size_t>(s * v + c)] = virtualStageOf(in.schedule, K, s, c);
    const auto stageOf = [&](int j) { return stageOfJ[static_cast<std::size_t>(j)]; };
    const auto virtualStage = [&](const ScheduleOp &o) {
        return jOf[static_cast<std::size_t>(o.stage * v + o.chunk)];
    };
    std::vector<StageCursor> cursors;
    cursors.reserve(ks);
    for (int s = 0; s < K; ++s)
        cursors.emplace_back(in, s);
    plan.ops.reserve(ks * cursors.front().size());
    std::vector<char> done(2 * static_cast<std::size_t>(cells), 0);
    std::vector<int> alive(ks, 0);
    plan.peak.assign(ks, 0);
    // Per stage and chunk, with more than one chunk a stage, for the chunks' own bytes.
    std::vector<std::vector<int>> aliveByChunk(v > 1 ? ks : 0,
                                               std::vector<int>(static_cast<std::size_t>(v), 0));
    plan.alive.assign(v > 1 ? ks : 0, {});
    std::vector<AlivePeakTracker> trackers(v > 1 ? ks : 0);
    std::vector<char> queued(ks, 1);
    // Per stage, its last op in `plan.ops`, to pair a backward with the forward after it.
    std::vector<std::int32_t> last(ks, -1);
    const int pairedRows = kRows * virtualStages;
    std::vector<int> pending;
    for (int s = K - 1; s >= 0; --s)
        pending.push_back(s);
    auto wake = [&](int s) {
        if (!queued[static_cast<std::size_t>(s)]) {
            queued[static_cast<std::size_t>(s)] = 1;
            pending.push_back(s);
        }
    };
    const std::int32_t markerRow = 2 * pairedRows;
    // An op's place in the plan: what it waits for, what it writes, its cost row.
    const auto planned = [&](const ScheduleOp &o, int s) {
        const int j = virtualStage(o);
        const int cell = j * m + o.microbatch;
        const bool full = o.kind == OpKind::backward && o.fullBackward;
        PlannedOp p{-1,
                    -1,
                    kRows * j + (full ? kFullBackward : static_cast<int>(o.kind)),
                    static_cast<std::int16_t>(s),
                    0,
                    static_cast<std::uint8_t>(o.kind)};
        const bool ends = endsAt[static_cast<std::size_t>(j)];
        switch (o.kind) {
        case OpKind::forward:
            p.out = cell;
            if (!startsAt[static_cast<std::size_t>(j)]) {
                p.wait = cell - m;
                p.hop = stageOf(j - 1) != s ? kHop : 0;
            }
            // The step's first micro-batch through this chunk (DualPipe's reverse direction
            // numbers its own from m/2).
            if (o.microbatch == (in.schedule == Schedule::dualPipe && o.chunk == 1 ? m / 2 : 0))
                p.hop |= kFirstForward;
            break;
        case OpKind::backward:
            p.out = cells + cell;
            p.wait = ends ? cell : cells + cell + m;
            p.hop = ends || stageOf(j + 1) == s ? 0 : kHop;
            break;
        case OpKind::weight:
            p.wait = cells + cell;
            break;
        }
        return p;
    };
    // What an op planned changes: its output is there, its activations alive or freed, the
    // stage that waits for it woken.
    const auto finished = [&](const ScheduleOp &o, std::int32_t out, int s) {
        const auto si = static_cast<std::size_t>(s);
        const int j = virtualStage(o);
        if (out >= 0)
            done[static_cast<std::size_t>(out)] = 1;
        const auto byChunk = [&](int change) {
            if (v > 1)
                aliveByChunk[si][static_cast<std::size_t>(o.chunk)] += change;
        };
        if (o.kind == OpKind::forward) {
            plan.peak[si] = std::max(plan.peak[si], ++alive[si]);
            byChunk(+1);
            if (v > 1)
                trackers[si].add(plan.alive[si], aliveByChunk[si]);
            if (!endsAt[static_cast<std::size_t>(j)])
                wake(stageOf(j + 1));
        } else if (o.kind == OpKind::backward) {
            // Activations are freed by the last backward op that reads them:
            // B, or W in zero-bubble schedules (W needs the layer inputs).
            if (!split || o.fullBackward) {
                --alive[si];
                byChunk(-1);
            }
            if (!startsAt[static_cast<std::size_t>(j)])
                wake(stageOf(j - 1));
        } else {
            --alive[si];
            byChunk(-1);
        }
    };
    // Per stage, the op it stopped at, planned already: woken, it looks at it again.
    std::vector<PlannedOp> stoppedAt(ks);
    std::vector<char> stopped(ks, 0);
    // An op finishing wakes the stage that waits for it, so every op is looked at a bounded
    // number of times.
    while (!pending.empty()) {
        const int s = pending.back();
        pending.pop_back();
        const auto si = static_cast<std::size_t>(s);
        queued[si] = 0;
        for (StageCursor &cursor = cursors[si]; !cursor.done(); cursor.advance()) {
            const ScheduleOp &o = cursor.current();
            PlannedOp p = stopped[si] ? stoppedAt[si] : planned(o, s);
            stopped[si] = 0;
            const auto stop = [&] {
                stoppedAt[si] = p;
                stopped[si] = 1;
            };
            if (p.wait >= 0 && !done[static_cast<std::size_t>(p.wait)]) {
                stop();
                break;
            }
            // A pair: plan both ops at once, when the second's input is there too. DualPipe(V)
            // lists its pairs; under expertOverlap Megatron-core's combined step runs a backward
            // with the forward after it, both preprocesses, then the step, then both sends
            // (combined_1f1b.py, combined_1f1b_schedule_for_interleaved_pipelining).
            std::optional<ScheduleOp> partner;
            if (listedPairs) {
                if (const ScheduleOp *next = cursor.following(); next && next->paired)
                    partner = *next;
            } else if (plan.combined && o.kind == OpKind::backward) {
                StageCursor peek = cursor;
                peek.advance();
                if (!peek.done() && peek.current().kind == OpKind::forward)
                    partner = peek.current();
            }
            if (partner) {
                PlannedOp q = planned(*partner, s);
                if (q.wait >= 0 && !done[static_cast<std::size_t>(q.wait)]) {
                    stop();
                    break;
                }
                // The first op still writes its output (the timeline reads its micro-batch
                // from it); the closing marker, planned before anything that reads it,
                // moves it to the pair's end.
                const std::int32_t firstOut = p.out;
                p.cost += pairedRows;
                q.cost += pairedRows;
                plan.ops.push_back({q.wait, -1, markerRow, static_cast<std::int16_t>(s),
                                    static_cast<std::uint8_t>(q.hop & kHop), kMarker});
                plan.ops.push_back(p);
                plan.ops.push_back(q);
                plan.ops.push_back(
                    {-1, firstOut, markerRow, static_cast<std::int16_t>(s), 0, kMarker});
                last[si] = static_cast<std::int32_t>(plan.ops.size()) - 2;
                finished(o, firstOut, s);
                cursor.advance();
                finished(cursor.current(), q.out, s);
                continue;
            }
            // Megatron-LM's pairs without the overlap: a backward and the forward after it, in
            // turn, each at its own cost.
            if (!listedPairs && o.kind == OpKind::forward && last[si] >= 0) {
                PlannedOp &before = plan.ops[static_cast<std::size_t>(last[si])];
                if (before.kind == static_cast<std::uint8_t>(OpKind::backward)) {
                    before.cost += pairedRows;
                    p.cost += pairedRows;
                }
            }
            last[si] = static_cast<std::int32_t>(plan.ops.size());
            plan.ops.push_back(p);
            finished(o, p.out, s);
        }
    }
    plan.complete =
        std::all_of(cursors.begin(), cursors.end(), [](const StageCursor &c) { return c.done(); });
}

const Plan &planFor(const PipelineInput &in)
{
    thread_local std::vector<Plan> cached;
    thread_local std::size_t next = 0;
    // The last plan too large to keep among those: a drag of any slider but K, m and the
    // schedule's (T, D, the sequence, the precision, ...) at K = 64, m = 1,024 keeps asking
    // for the same 131,072 ops.
    thread_local Plan large;
    const int schedule = static_cast<int>(in.schedule);
    const int v = chunksOf(in);
    const auto isFor = [&](const Plan &plan) {
        return plan.schedule == schedule && plan.stages == in.stages &&
               plan.microbatches == in.microbatches && plan.chunks == v &&
               plan.combined == combinedPairs(in);
    };
    for (const Plan &plan : cached)
        if (isFor(plan))
            return plan;
    const std::size_t ops =
        static_cast<std::size_t>(in.stages) * static_cast<std::size_t>(in.microbatches) *
        static_cast<std::size_t>(v) * (splitsWeightGradients(in.schedule) ? 3u : 2u);
    if (ops > kCachedPlanOps) {
        if (!isFor(large))
            buildPlan(in, large);
        return large;
    }
    if (cached.size() < kCachedPlans) {
        cached.reserve(kCachedPlans); // a plan returned stays where it is
        cached.emplace_back();
    }
    Plan &slot = cached[next];
    next = (next + 1) % kCachedPlans;
    buildPlan(in, slot);
    // Over the budget, the oldest others go, from the next to be replaced on.
    std::size_t kept = 0;
    for (const Plan &plan : cached)
        kept += plan.ops.size();
    for (std::size_t i = next % cached.size(); kept > kCachedOpsBudget && &cached[i] != &slot;
         i = (i + 1) % cached.size()) {
        kept -= cached[i].ops.size();
        cached[i] = Plan{}; // schedule -1: for no shape
    }
    return slot;
}

// The simulation of every op: each starts when its input has arrived and its device is free.
// `ends` receives every F's finish time at j·m + micro-batch and every B's at cells + j·m +
// micro-batch, for virtual stage j (virtualStageOf).
PipelineResult simulateEveryOp(const PipelineInput &in, bool keepTimeline,
                               std::vector<double> &ends)
{
    PipelineResult r;
    const int K = in.stages;
    const int m = in.microbatches;
    const int v = chunksOf(in);
    // DualPipe(V) without an order (hasOrder): no result (validate refuses it).
    if (!hasOrder(in.schedule, K, m))
        return r;
    const Plan &plan = planFor(in);
    const auto ks = static_cast<std::size_t>(K);
    const int virtualStages = v * K;
    const auto cells = static_cast<std::size_t>(virtualStages) * static_cast<std::size_t>(m);
    ends.assign(2 * cells, -1.0);

    // Per virtual stage and kind: an op's time with its send, and the send alone.
    thread_local std::vector<double> cost;
    thread_local std::vector<double> sendOf;
    thread_local std::vector<double> freeAt;
    const OpTimes times(in);
    const auto rows = kRows * static_cast<std::size_t>(virtualStages);
    // Two blocks of rows (single ops, ops of a pair) and the markers' row, which costs nothing.
    cost.resize(2 * rows + 1);
    sendOf.resize(2 * rows + 1);
    cost[2 * rows] = 0.0;
    sendOf[2 * rows] = 0.0;
    // A B with its W only where the schedule also splits them: DualPipe(V).
    const int slots = isDualPipe(in.schedule) ? kRows : kFullBackward;
    for (int j = 0; j < virtualStages; ++j)
        for (int slot = 0; slot < slots; ++slot) {
            ScheduleOp o;
            o.stage = stageOfVirtual(in.schedule, K, j);
            o.chunk = j / K;
            o.kind = slot == kFullBackward ? OpKind::backward : static_cast<OpKind>(slot);
            o.fullBackward = slot == kFullBackward;
            const auto row = kRows * static_cast<std::size_t>(j) + static_cast<std::size_t>(slot);
            sendOf[row] = times.send(o);
            cost[row] = times.duration(o) + sendOf[row];
            // The same op as one of a pair: only expertOverlap makes it any cheaper.
            sendOf[rows + row] = sendOf[row];
            cost[rows + row] = in.expertOverlap ? times.pairedDuration(o) + sendOf[row] : cost[row];
        }
    freeAt.assign(ks, 0.0);
    r.busy.assign(ks, 0.0);
    if (keepTimeline)
        r.timeline.reserve(plan.ops.size());

    // Neighbouring virtual stages sit on different devices unless K = 1.
    const double latency = K > 1 ? in.p2pLatency : 0.0;
    // Per virtual stage, what its first forward adds: its stage's share.
    thread_local std::vector<double> firstExtra;
    firstExtra.assign(static_cast<std::size_t>(virtualStages), 0.0);
    if (in.firstForwardExtra.size() == ks)
        for (int j = 0; j < virtualStages; ++j)
            firstExtra[static_cast<std::size_t>(j)] =
                in.firstForwardExtra[static_cast<std::size_t>(stageOfVirtual(in.schedule, K, j))] /
                v;
    // One op: it starts when its input has arrived and its device is free.
    const auto run = [&](const PlannedOp &p) {
        const double ready =
            p.wait < 0 ? 0.0
                       : ends[static_cast<std::size_t>(p.wait)] + (p.hop & kHop ? latency : 0.0);
        const auto s = static_cast<std::size_t>(p.stage);
        double time = cost[static_cast<std::size_t>(p.cost)];
        if (p.hop & kFirstForward)
            time += firstExtra[static_cast<std::size_t>((p.cost % static_cast<int>(rows)) / kRows)];
        const double start = std::max(ready, freeAt[s]);
        const double end = start + time;
        freeAt[s] = end;
        r.busy[s] += time;
        if (p.out >= 0)
            ends[static_cast<std::size_t>(p.out)] = end;
        return std::pair{start, end};
    };
    // Without the timeline the loop is the ops alone: nothing in it may reallocate, so the
    // buffers stay in registers (this loop is most of evaluate()'s simulation).
    if (!keepTimeline)
        for (const PlannedOp &p : plan.ops)
            run(p);
    else
        for (const PlannedOp &p : plan.ops) {
            const auto [start, end] = run(p);
            if (p.kind == kMarker)
                continue;
            const bool paired = p.cost >= static_cast<int>(rows);
            const int row = p.cost % static_cast<int>(rows);
            const int j = row / kRows;
            ScheduleOp timed;
            timed.stage = p.stage;
            timed.kind = static_cast<OpKind>(p.kind);
            timed.fullBackward = row % kRows == kFullBackward;
            timed.chunk = j / K;
            // W has no `out`: its micro-batch is the B it waits for.
            const int cell = (p.out >= 0 ? p.out : p.wait) % static_cast<int>(cells);
            timed.microbatch = cell - j * m;
            timed.start = start;
            timed.end = end;
            timed.send = sendOf[static_cast<std::size_t>(p.cost)];
            timed.expertComm = times.expertComm(timed);
            if (timed.kind == OpKind::forward && timed.microbatch == 0 && timed.chunk == 0 &&
                in.firstForwardGather.size() == ks)
                timed.gatherWait = in.firstForwardGather[static_cast<std::size_t>(p.stage)];
            if (K == 1)
                timed.offloadWait = timed.kind == OpKind::forward    ? in.forwardOffloadWait
                                    : timed.kind == OpKind::backward ? in.backwardOffloadWait
                                                                     : 0.0;
            timed.paired = paired && isDualPipe(in.schedule);
            if (paired && in.expertOverlap) {
                timed.paired = true;
                timed.expertComm = timed.kind == OpKind::forward ? times.pairExcess(timed) : 0.0;
            }
            r.timeline.push_back(timed);
        }

    r.complete = plan.complete;
    r.inflight.resize(ks);
    for (std::size_t s = 0; s < ks; ++s) {
        r.makespan = std::max(r.makespan, freeAt[s]);
        // A chunk holds 1/v of the stage's layers: report micro-batch equivalents.
        r.inflight[s] = static_cast<double>(plan.peak[s]) / v;
    }
    r.tailIdle.resize(ks);
    for (std::size_t s = 0; s < ks; ++s)
        r.tailIdle[s] = r.makespan - freeAt[s];
    r.alivePeaks = plan.alive;
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
    // The first micro-batch's forwards take their stages' extra work: the longest path runs
    // along it to the stage j where it turns to the others, E_j = its extras up to j.
    double forwardPath = sumF + (m - 1) * maxF;
    if (in.firstForwardExtra.size() == static_cast<std::size_t>(K)) {
        double extras = 0;
        forwardPath = 0;
        for (int s = 0; s < K; ++s) {
            const double e = in.firstForwardExtra[static_cast<std::size_t>(s)];
            extras += e;
            forwardPath = std::max(forwardPath, extras + (m - 1) * times.busy(s, OpKind::forward));
            r.busy[static_cast<std::size_t>(s)] += e;
        }
        forwardPath += sumF;
    }
    r.makespan = forwardPath + sumB + (m - 1) * maxB + 2 * (K - 1) * hop;
    // The backwards start at stage K-1 when its forwards end and run to stage 0 the same way:
    // stage s's last ends after the stages from K-1 down to s, each once, the slowest of them
    // m-1 more times, and K-1-s hops. Stage 0's is the makespan.
    r.tailIdle.resize(static_cast<std::size_t>(K));
    const double backwardsStart = forwardPath + (K - 1) * hop;
    double downstream = 0, slowest = 0;
    for (int s = K - 1; s >= 0; --s) {
        const double b = times.busy(s, OpKind::backward);
        downstream += b;
        slowest = std::max(slowest, b);
        const double end = backwardsStart + downstream + (m - 1) * slowest + (K - 1 - s) * hop;
        r.tailIdle[static_cast<std::size_t>(s)] = std::max(0.0, r.makespan - end);
    }
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

std::optional<SteadyPeriod> steadyPeriod(const PipelineInput &in, const std::vector<double> &ends,
                                         double scale)
{
    const int K = in.stages;
    const int m = in.microbatches;
    // One chunk per stage: F's finish times first, then B's (simulateEveryOp).
    const std::size_t cells = static_cast<std::size_t>(K) * static_cast<std::size_t>(m);
    const double *endF = ends.data();
    const double *endB = ends.data() + cells;
    auto at = [m](const double *times, int stage, int microbatch) {
        return times[static_cast<std::size_t>(stage) * static_cast<std::size_t>(m) +
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

namespace {

// Each pair the stage's order runs together, given by its forward: DualPipe(V)'s marked ones
// (the mark is on the backward, the forward being of the other chunk), Megatron-LM's each
// backward with the forward after it.
template <typename Visit> void forEachPair(const PipelineInput &in, int stage, Visit visit)
{
    bool afterBackward = false;
    for (StageCursor cursor(in, stage); !cursor.done(); cursor.advance()) {
        const ScheduleOp &o = cursor.current();
        if (isDualPipe(in.schedule)) {
            if (o.paired) {
                ScheduleOp forward = o;
                forward.kind = OpKind::forward;
                forward.chunk = 1 - o.chunk;
                visit(forward);
            }
        } else if (o.kind == OpKind::forward && afterBackward) {
            visit(o);
        }
        afterBackward = o.kind == OpKind::backward;
    }
}

} // namespace

std::vector<int> expertOverlapPairs(const PipelineInput &in)
{
    std::vector<int> pairs(static_cast<std::size_t>(std::max(in.stages, 0)), 0);
    if (in.microbatches <= 0)
        return pairs;
    for (int s = 0; s < in.stages; ++s)
        forEachPair(in, s, [&](const ScheduleOp &) { ++pairs[static_cast<std::size_t>(s)]; });
    return pairs;
}

std::vector<double> hiddenExpertComm(const PipelineInput &in)
{
    std::vector<double> hidden(static_cast<std::size_t>(std::max(in.stages, 0)), 0.0);
    if (!in.expertOverlap || in.forwardExpertComm.empty() || in.microbatches <= 0)
        return hidden;
    const OpTimes times(in);
    for (int s = 0; s < in.stages; ++s)
        forEachPair(in, s, [&](const ScheduleOp &forward) {
            hidden[static_cast<std::size_t>(s)] +=
                times.pairComm(forward) - times.pairExcess(forward);
        });
    return hidden;
}

// The status line and the planner need the makespan, not every op: at K=64, m=1024 that is
// 131,072 ops. GPipe has a closed form; one-chunk 1F1B and ZB-H1 are simulated for a few
// rounds past their steady state and the remaining rounds added at the period, which gives
// the simulation's own numbers (tst_pipeline compares them).
PipelineResult simulatePipeline(const PipelineInput &in, bool keepTimeline)
{
    // The buffers are reused between calls: fresh pages cost more than the simulation.
    thread_local std::vector<double> ends;
    const int K = in.stages;
    const int m = in.microbatches;
    if (keepTimeline || K <= 0 || m <= 0)
        return simulateEveryOp(in, keepTimeline, ends);
    if (in.schedule == Schedule::gpipe)
        return gpipeFlowShop(in);
    // A run of pairs is no steady period of single ops: expertOverlap simulates every op.
    if (!in.expertOverlap && (in.schedule == Schedule::oneFOneB || in.schedule == Schedule::zbH1)) {
        // Stages whose end stages carry the embedding and the LM head settle by round K
        // with a period of one round; equal stages need 3K rounds (see steadyPeriod).
        for (int rounds = 2 * K + 4; 2 * rounds <= m;
             rounds = rounds < 3 * K + 16 ? 3 * K + 16 : 4 * rounds) {
            PipelineInput shorter = in;
            shorter.microbatches = rounds;
            PipelineResult r = simulateEveryOp(shorter, false, ends);
            const std::optional<SteadyPeriod> period =
                r.complete ? steadyPeriod(shorter, ends, r.makespan) : std::nullopt;
            if (!period)
                continue;
            // A whole number of periods from the shorter pipeline to this one.
            if (const int extra = (m - rounds) % period->rounds; extra != 0) {
                shorter.microbatches += extra;
                r = simulateEveryOp(shorter, false, ends);
            }
            const int more = m - shorter.microbatches;
            const OpTimes times(in);
            r.makespan += more / period->rounds * period->time;
            for (int s = 0; s < K; ++s)
                r.busy[static_cast<std::size_t>(s)] +=
                    more * (times.busy(s, OpKind::forward) + times.busy(s, OpKind::backward) +
                            (in.schedule == Schedule::zbH1 ? times.busy(s, OpKind::weight) : 0.0));
            finish(r);
            return r;
        }
    }
    return simulateEveryOp(in, false, ends);
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
    case Schedule::dualPipeV: {
        // deepseek-ai/DualPipe, README, "Pipeline Bubbles and Memory Usage Comparison": with
        // PP = 2K chunks, (PP/2 - 1)(F&B + B - 3W) idle, B the whole backward; F&B = F + B
        // unless a pair hides communication. As its figure draws it, F = B (input gradient)
        // and W no longer than F; other times and m < 2K only the simulation knows. Times
        // here are a stage's, two chunks.
        if (m < 2 * K || inputGrad != forward || weightGrad > forward)
            return std::nullopt;
        const double bubble = (K - 1) * (forward + 2 * inputGrad - weightGrad) / 2;
        return bubble / (m * (forward + inputGrad + weightGrad) + bubble);
    }
    case Schedule::dualPipe: {
        // The same README row with PP = K devices: (K/2 - 1)(F&B + B - 3W) idle per device,
        // F, B and W a chunk's (half the device's two stages). Each micro-batch passes one
        // chunk of each device, so a device is busy m chunk passes of each kind: in the
        // device's times here, m(F + B + W)/2 against (K/2 - 1)(F + 2B - W)/2.
        if (!hasOrder(schedule, K, m) || inputGrad != forward || weightGrad > forward)
            return std::nullopt;
        const double bubble = (K / 2 - 1) * (forward + 2 * inputGrad - weightGrad);
        return bubble / (m * (forward + inputGrad + weightGrad) + bubble);
    }
    }
    return std::nullopt;
}

ClosedFormBubble closedFormBubble(const PipelineInput &in)
{
    const auto k = static_cast<std::size_t>(std::max(in.stages, 0));
    const std::size_t entries = timedPerVirtualStage(in) ? k * chunksOf(in) : k;
    if (in.stages <= 0 || in.microbatches <= 0 || in.forward.size() != entries ||
        in.backward.size() != entries)
        return {std::nullopt, "there is no pipeline"};
    const bool split = splitsWeightGradients(in.schedule);
    const auto uniform = [](const std::vector<double> &t) {
        return std::adjacent_find(t.begin(), t.end(), std::not_equal_to<>()) == t.end();
    };
    // Every closed form counts the fill and drain of equal stages (Narayanan et al. 2021,
    // §2.2); with uneven ones the slowest stage sets the pace and only the simulation knows.
    if (!uniform(in.forward) || !uniform(in.backward) || (split && !uniform(in.weight)))
        return {std::nullopt, "the stages take different times; the closed form assumes "
                              "equal stages"};
    if ((in.p2pLatency > 0 || in.p2pSend > 0 || !in.boundarySend.empty()) && in.stages > 1)
        return {std::nullopt, "the closed form assumes free point-to-point communication"};
    // Per virtual stage, the times are a chunk's: the closed forms take a stage's.
    const double scale = timedPerVirtualStage(in) ? chunksOf(in) : 1.0;
    const double w = split && !in.weight.empty() ? scale * in.weight.front() : 0.0;
    const double f = scale * in.forward.front();
    const double b = scale * in.backward.front();
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
    case Schedule::dualPipeV:
        if (in.microbatches < 2 * in.stages)
            return {std::nullopt, "DualPipeV needs at least twice as many micro-batches as "
                                  "stages"};
        return {std::nullopt, "DualPipeV's closed form takes F = B and W no longer than F"};
    case Schedule::dualPipe:
        if (!hasOrder(in.schedule, in.stages, in.microbatches))
            return {std::nullopt, "DualPipe needs an even number of stages and an even number "
                                  "of micro-batches, at least twice the stages"};
        return {std::nullopt, "DualPipe's closed form takes F = B and W no longer than F"};
    case Schedule::gpipe:
    case Schedule::oneFOneB:
        break;
    }
    return {std::nullopt, "there is no pipeline"};
}

} // namespace core
