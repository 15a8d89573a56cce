// Pipeline schedules (docs/DESIGN.md §3.3): closed forms, the event simulation
// against them, and the micro-batches each schedule keeps alive per stage.
#include "core/activations.h"
#include "core/bubble_curves.h"
#include "core/evaluate.h"
#include "core/schedule.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <array>
#include <map>
#include <random>
#include <tuple>

using namespace core;

Q_DECLARE_METATYPE(core::Schedule)

namespace {

PipelineInput ratios(Schedule schedule, int K, int m, double f, double b, double w)
{
    PipelineInput in = uniformPipeline(schedule, K, m, 1, f);
    in.backward.assign(std::size_t(K), b);
    in.weight.assign(std::size_t(K), w);
    return in;
}

// deepseek-ai/DualPipe's README count for DualPipe(V) with a chunk's F, B (input gradient) and
// W: (ranks - 1)(F&B + B - 3W) idle on every device, F&B = F + B unpaired, B the whole
// backward; ranks are DualPipeV's devices, or half of DualPipe's. A device holds two chunks
// (its times twice a chunk's) and is busy two chunk passes of each kind a micro-batch in
// DualPipeV's V, one in DualPipe. The closed form agrees with the simulation.
void checkReadmeIdle(Schedule schedule, int K, int m, double f, double b, double w,
                     PipelineResult &r)
{
    const bool v = schedule == Schedule::dualPipeV;
    r = simulatePipeline(ratios(schedule, K, m, 2 * f, 2 * b, 2 * w));
    QVERIFY(r.complete);
    const double work = (v ? 2 : 1) * m * (f + b + w);
    const double idle = ((v ? K : K / 2) - 1) * ((f + b + w) + (b + w) - 3 * w);
    for (int s = 0; s < K; ++s) {
        QCOMPARE(r.busy[std::size_t(s)], work);
        QVERIFY2(std::abs(r.makespan - work - idle) < 1e-9,
                 qPrintable(QStringLiteral("%1 K=%2 m=%3: idle %4, published %5")
                                .arg(toString(schedule).data())
                                .arg(K)
                                .arg(m)
                                .arg(r.makespan - work)
                                .arg(idle)));
    }
    QVERIFY(std::abs(r.bubbleFraction - *closedFormBubble(schedule, K, m, 1, 2 * f, 2 * b, 2 * w)) <
            1e-12);
}

// Each stage's ops of a simulated timeline, in the order the stage runs them.
std::vector<std::vector<const ScheduleOp *>> opsByStage(const PipelineResult &r, int stages)
{
    std::vector<std::vector<const ScheduleOp *>> byStage(static_cast<std::size_t>(stages));
    for (const ScheduleOp &o : r.timeline)
        byStage[std::size_t(o.stage)].push_back(&o);
    for (auto &ops : byStage)
        std::sort(ops.begin(), ops.end(),
                  [](const ScheduleOp *a, const ScheduleOp *b) { return a->start < b->start; });
    return byStage;
}

} // namespace

class TestPipeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bubbleWorkedExamples_data()
    {
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("roundedValue");
        QTest::addColumn<double>("exact");
        // docs/worked-examples.md §4: K=4, m=16 rounds to 16 %; docs/DESIGN.md §3.3: 15.8 %.
        QTest::addRow("docs/worked-examples.md §4: K=4 m=16 -> 15.8 %%")
            << 4 << 16 << 0.158 << 3.0 / 19.0;
        // docs/worked-examples.md §4: K=4, m=4 rounds to 43 %; docs/DESIGN.md §3.3: 42.9 %.
        QTest::addRow("docs/worked-examples.md §4: K=4 m=4 -> 42.9 %%")
            << 4 << 4 << 0.429 << 3.0 / 7.0;
    }
    void bubbleWorkedExamples()
    {
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(double, roundedValue);
        QFETCH(double, exact);
        for (Schedule s : {Schedule::gpipe, Schedule::oneFOneB}) {
            const double closed = *closedFormBubble(s, K, m, 1);
            QCOMPARE(closed, exact);
            QVERIFY(std::abs(closed - roundedValue) < 0.0005); // rounded to 0.1 %
            QVERIFY(std::abs(simulatePipeline(uniformPipeline(s, K, m)).bubbleFraction - exact) <
                    1e-12);
        }
        // The default scenario is 1F1B with K=4: evaluate() reports the closed form for its
        // layers and the simulated bubble, which the first stage's embedding, the last
        // stage's LM head and the pipeline sends move by a little.
        Scenario scenario;
        scenario.microbatches = m;
        const Report r = evaluate(scenario, io::builtinPresets());
        QVERIFY(r.ok());
        QVERIFY(r.bubbleFractionClosedForm);
        QCOMPARE(*r.bubbleFractionClosedForm, exact);
        QVERIFY2(std::abs(r.bubbleFraction - exact) < 0.03,
                 qPrintable(QString::number(r.bubbleFraction)));
    }

    // docs/DESIGN.md §3.3: with uniform stages and free communication the simulation must
    // equal the closed forms (Narayanan et al. 2021 §2.2 and §2.2.2; Qi et al. 2023 §3.1).
    void simulationEqualsClosedForm_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("v");
        for (int K : {1, 2, 3, 4, 8, 16})
            for (int m : {1, 2, 3, 4, 8, 16, 32, 64}) {
                QTest::addRow("Narayanan §2.2 GPipe (K-1)/(K-1+m): K=%d m=%d", K, m)
                    << Schedule::gpipe << K << m << 1;
                QTest::addRow("Narayanan §2.2 1F1B (K-1)/(K-1+m): K=%d m=%d", K, m)
                    << Schedule::oneFOneB << K << m << 1;
                if (m >= K)
                    QTest::addRow("Qi §3.1 ZB-H1 (K-1)F/(3mF+(K-1)F): K=%d m=%d", K, m)
                        << Schedule::zbH1 << K << m << 1;
                if (m % K == 0)
                    for (int v : {1, 2, 3, 4})
                        QTest::addRow("Narayanan §2.2.2 interleaved (K-1)/(vm+K-1): K=%d m=%d v=%d",
                                      K, m, v)
                            << Schedule::interleaved << K << m << v;
                if (m >= 2 * K)
                    QTest::addRow("DualPipe README DualPipeV (PP/2-1)(F&B+B-3W): K=%d m=%d", K, m)
                        << Schedule::dualPipeV << K << m << 1;
            }
    }
    void simulationEqualsClosedForm()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(int, v);
        const PipelineResult r = simulatePipeline(uniformPipeline(schedule, K, m, v, 0.25));
        QVERIFY(r.complete);
        const std::optional<double> closed = closedFormBubble(schedule, K, m, v);
        QVERIFY(closed);
        QVERIFY2(std::abs(r.bubbleFraction - *closed) < 1e-12,
                 qPrintable(QString::number(r.bubbleFraction - *closed)));
    }

    // Plans too large for the per-thread cache (more than 65,536 ops) are remembered one at
    // a time, by shape: shapes met in turn, and met again, each simulate to their closed form
    // (Narayanan et al. 2021: (K-1)/(m+K-1) for 1F1B, (K-1)/(vm+K-1) interleaved).
    void largePlansAreRememberedByShape()
    {
        struct Shape
        {
            Schedule schedule;
            int K, m, v;
        };
        const Shape shapes[] = {
            {Schedule::oneFOneB, 64, 1024, 1},    {Schedule::oneFOneB, 64, 1088, 1},
            {Schedule::oneFOneB, 64, 1024, 1},    {Schedule::oneFOneB, 64, 1024, 1},
            {Schedule::interleaved, 64, 1024, 2}, {Schedule::zbH1, 64, 512, 1},
            {Schedule::oneFOneB, 64, 1024, 1}};
        for (const Shape &s : shapes) {
            const PipelineResult r =
                simulatePipeline(uniformPipeline(s.schedule, s.K, s.m, s.v, 0.25), true);
            QVERIFY(r.complete);
            const std::optional<double> closed = closedFormBubble(s.schedule, s.K, s.m, s.v);
            QVERIFY(closed);
            QVERIFY2(std::abs(r.bubbleFraction - *closed) < 1e-12,
                     qPrintable(QStringLiteral("K=%1 m=%2 v=%3: %4")
                                    .arg(s.K)
                                    .arg(s.m)
                                    .arg(s.v)
                                    .arg(r.bubbleFraction - *closed)));
        }
    }

    // Qi et al. 2023, §3.1: ZB-H1's bubble is (K-1)(F+B-W) against 1F1B's (K-1)(F+B+W),
    // over a grid of F/B/W ratios (W no longer than F or B, as the paper's count assumes).
    void zeroBubbleRatios_data()
    {
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("w");
        const std::initializer_list<std::array<double, 3>> grid{
            {1, 1, 1}, {1, 2, 1}, {2, 1, 1}, {1, 1, 0.5}, {2, 3, 1}, {1.5, 1.5, 1}};
        for (const auto &[f, b, w] : grid)
            QTest::addRow("Qi §3.1: F=%g B=%g W=%g", f, b, w) << f << b << w;
    }
    void zeroBubbleRatios()
    {
        QFETCH(double, f);
        QFETCH(double, b);
        QFETCH(double, w);
        for (int K : {2, 3, 4, 8})
            for (int m : {K, 2 * K, 24}) {
                const PipelineResult zb = simulatePipeline(ratios(Schedule::zbH1, K, m, f, b, w));
                const PipelineResult ofob =
                    simulatePipeline(ratios(Schedule::oneFOneB, K, m, f, b + w, 0));
                const double work = m * (f + b + w);
                // Every stage does the same work, so each idles makespan - work.
                QVERIFY(std::abs((zb.makespan - work) - (K - 1) * (f + b - w)) < 1e-9);
                QVERIFY(std::abs((ofob.makespan - work) - (K - 1) * (f + b + w)) < 1e-9);
                QVERIFY(std::abs(zb.bubbleFraction -
                                 *closedFormBubble(Schedule::zbH1, K, m, 1, f, b, w)) < 1e-12);
            }
    }

    // docs/DESIGN.md §3.3: a third of it when F=B=W.
    void zeroBubbleIsAThirdOf1F1B()
    {
        for (int K : {2, 4, 8})
            for (int m : {8, 16, 32}) {
                const double zb = simulatePipeline(ratios(Schedule::zbH1, K, m, 1, 1, 1)).makespan;
                const double ofob =
                    simulatePipeline(ratios(Schedule::oneFOneB, K, m, 1, 2, 0)).makespan;
                QVERIFY(std::abs((zb - 3 * m) * 3 - (ofob - 3 * m)) < 1e-9);
            }
    }

    void inflightPerStage_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("v");
        QTest::addColumn<QList<double>>("inflight");
        // docs/DESIGN.md §3.3: 1F1B keeps min(K-s, m) micro-batches on stage s.
        QTest::addRow("docs/DESIGN.md §3.3 1F1B min(K-s,m): K=4 m=16")
            << Schedule::oneFOneB << 4 << 16 << 1 << QList<double>{4, 3, 2, 1};
        QTest::addRow("docs/DESIGN.md §3.3 1F1B min(K-s,m): K=4 m=2")
            << Schedule::oneFOneB << 4 << 2 << 1 << QList<double>{2, 2, 2, 1};
        // docs/DESIGN.md §3.3: GPipe keeps all m.
        QTest::addRow("docs/DESIGN.md §3.3 GPipe m: K=3 m=5")
            << Schedule::gpipe << 3 << 5 << 1 << QList<double>{5, 5, 5};
        // Qi et al. 2023 §3.1: ZB-H1 keeps at most K on every stage, 1F1B's peak.
        QTest::addRow("Qi §3.1 ZB-H1 K on every stage: K=4 m=16")
            << Schedule::zbH1 << 4 << 16 << 1 << QList<double>{4, 4, 4, 4};
        // Megatron-LM interleaved warm-up: 2(K-s-1) + (v-1)K forwards, +1 in steady
        // state, in chunks of 1/v of the stage: K=4, v=2 -> (6+4+1)/2, (4+4+1)/2, ...
        QTest::addRow("Megatron interleaved warm-up: K=4 m=16 v=2")
            << Schedule::interleaved << 4 << 16 << 2 << QList<double>{5.5, 4.5, 3.5, 2.5};
        // deepseek-ai/DualPipe README: DualPipeV keeps PP + 1 chunks' activations per device,
        // PP = 2K chunks of half a stage each: (2K + 1)/2 on every stage.
        QTest::addRow("DualPipe README DualPipeV PP+1: K=4 m=10")
            << Schedule::dualPipeV << 4 << 10 << 1 << QList<double>{4.5, 4.5, 4.5, 4.5};
        QTest::addRow("DualPipe README DualPipeV PP+1: K=2 m=32")
            << Schedule::dualPipeV << 2 << 32 << 1 << QList<double>{2.5, 2.5};
    }
    void inflightPerStage()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(int, v);
        QFETCH(QList<double>, inflight);
        const PipelineResult r = simulatePipeline(uniformPipeline(schedule, K, m, v));
        QCOMPARE(QList<double>(r.inflight.begin(), r.inflight.end()), inflight);
    }

    // The micro-batches whose loss waits for its backward at once on the head's stage: GPipe
    // runs every F first (m); 1F1B's and ZB-H1's last stage warms up with none (Narayanan et
    // al. 2021 §2.2, Qi et al. 2023 §3.1), so each F's B comes next; Megatron-core's and
    // PyTorch's interleaved last stage warms up with (v-1)K forwards of the earlier chunks,
    // then runs each head F's B next, at m = K too (it warmed up every F there before
    // ADLR/megatron-lm!2117).
    void heldLossesOnTheHeadsStage_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("held");
        QTest::addRow("GPipe K=4 m=8") << Schedule::gpipe << 4 << 8 << 1 << 8;
        QTest::addRow("1F1B K=4 m=8") << Schedule::oneFOneB << 4 << 8 << 1 << 1;
        QTest::addRow("ZB-H1 K=4 m=8") << Schedule::zbH1 << 4 << 8 << 1 << 1;
        QTest::addRow("1F1B K=1 m=8") << Schedule::oneFOneB << 1 << 8 << 1 << 1;
        QTest::addRow("interleaved K=4 v=2 m=8") << Schedule::interleaved << 4 << 8 << 2 << 1;
        QTest::addRow("interleaved K=4 v=3 m=16") << Schedule::interleaved << 4 << 16 << 3 << 1;
        QTest::addRow("interleaved K=4 v=2 m=4") << Schedule::interleaved << 4 << 4 << 2 << 1;
    }
    void heldLossesOnTheHeadsStage()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(int, v);
        QFETCH(int, held);
        QCOMPARE(heldLosses(schedule, K, m, v), held);
        PipelineCache cache; // as the planner asks, twice: counted, then remembered
        QCOMPARE(cache.heldLosses(schedule, K, m, v), held);
        QCOMPARE(cache.heldLosses(schedule, K, m, v), held);
    }

    // The walks the cache remembers give each shape its own count, not another's.
    void heldLossesRememberedByShape()
    {
        PipelineCache cache;
        for (const auto &[schedule, K, m, v] :
             {std::tuple{Schedule::dualPipeV, 4, 8, 1}, std::tuple{Schedule::dualPipeV, 4, 16, 1},
              std::tuple{Schedule::dualPipe, 4, 8, 1}, std::tuple{Schedule::dualPipe, 8, 16, 1},
              std::tuple{Schedule::interleaved, 4, 6, 2},
              std::tuple{Schedule::interleaved, 4, 6, 3}})
            for (int pass = 0; pass < 2; ++pass)
                QCOMPARE(cache.heldLosses(schedule, K, m, v), heldLosses(schedule, K, m, v));
    }

    // Hand-simulated: GPipe, K=2, m=1, F=1, B=2, 0.5 per hop. F on stage 0 [0,1],
    // F on stage 1 [1.5,2.5], B on stage 1 [2.5,4.5], B on stage 0 [5,7]; each
    // stage busy 3 of 7 -> bubble 1 - 6/14 = 4/7.
    void latencyDelaysNeighbours()
    {
        PipelineInput in = uniformPipeline(Schedule::gpipe, 2, 1);
        in.p2pLatency = 0.5;
        const PipelineResult r = simulatePipeline(in, true);
        QCOMPARE(r.makespan, 7.0);
        QCOMPARE(r.bubbleFraction, 4.0 / 7.0);
        QCOMPARE(r.timeline.size(), std::size_t(4));
        for (const ScheduleOp &op : r.timeline)
            if (op.stage == 0 && op.kind == OpKind::backward) {
                QCOMPARE(op.start, 5.0);
                QCOMPARE(op.end, 7.0);
            }
    }

    // Hand-simulated uneven 1F1B, K=2, m=2, stage 0 twice as slow (F 2, B 4; stage 1
    // F 1, B 2): s0 F0 [0,2] F1 [2,4] B0 [5,9] B1 [9,13]; s1 F0 [2,3] B0 [3,5]
    // F1 [5,6] B1 [6,8]. Makespan 13, busy 12 + 6 -> bubble 1 - 18/26 = 4/13.
    void unevenStages()
    {
        PipelineInput in = uniformPipeline(Schedule::oneFOneB, 2, 2);
        in.forward = {2, 1};
        in.backward = {4, 2};
        const PipelineResult r = simulatePipeline(in);
        QCOMPARE(r.makespan, 13.0);
        QCOMPARE(r.busy, (std::vector<double>{12, 6}));
        QVERIFY(std::abs(r.bubbleFraction - 4.0 / 13.0) < 1e-12);
    }

    // The simulation remembers each shape's op order (schedule, K, m, v), never its times:
    // the same shape timed three ways in a row gives each its own hand-simulated makespan.
    // Equal 1F1B stages, K=2, m=2, F=1, B=2: (m + K - 1)(F + B) = 9 (Narayanan et al. 2021,
    // §2.2); the uneven stages above: 13; with a 0.5 hop on equal stages: s0 F0 [0,1]
    // F1 [1,2]; s1 F0 [1.5,2.5] B0 [2.5,4.5] F1 [4.5,5.5] B1 [5.5,7.5]; s0 B0 [5,7]
    // B1 [8,10]: 10.
    void oneOrderServesEveryTiming()
    {
        const PipelineInput equal = uniformPipeline(Schedule::oneFOneB, 2, 2);
        PipelineInput uneven = equal;
        uneven.forward = {2, 1};
        uneven.backward = {4, 2};
        PipelineInput hop = equal;
        hop.p2pLatency = 0.5;
        for (const bool timeline : {false, true}) {
            QCOMPARE(simulatePipeline(equal, timeline).makespan, 9.0);
            QCOMPARE(simulatePipeline(uneven, timeline).makespan, 13.0);
            QCOMPARE(simulatePipeline(hop, timeline).makespan, 10.0);
            QCOMPARE(simulatePipeline(equal, timeline).makespan, 9.0);
        }
        const PipelineResult r = simulatePipeline(hop, true);
        for (const ScheduleOp &op : r.timeline)
            if (op.stage == 0 && op.kind == OpKind::backward && op.microbatch == 1) {
                QCOMPARE(op.start, 8.0);
                QCOMPARE(op.end, 10.0);
            }
    }

    // The shortcuts without a timeline (GPipe's flow-shop closed form, the steady period of
    // one-chunk 1F1B and ZB-H1) give what simulating every op gives, on uneven stages with
    // end-stage extras, sends and latency; the steady ones simulate only a few rounds.
    void shortcutsMatchEveryOp_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<unsigned>("seed"); // 0: equal stages, else random stage times
        QTest::addColumn<bool>("shortened");
        // Random stages may stay in their transient for hundreds of rounds (then every op
        // is simulated); equal stages with the end stages' extra work settle within K.
        for (const unsigned seed : {1u, 2u, 3u}) {
            QTest::addRow("GPipe K=7 m=300 random %u", seed)
                << Schedule::gpipe << 7 << 300 << seed << true;
            QTest::addRow("1F1B K=8 m=1024 random %u", seed)
                << Schedule::oneFOneB << 8 << 1024 << seed << false;
            QTest::addRow("1F1B K=64 m=1024 random %u", seed)
                << Schedule::oneFOneB << 64 << 1024 << seed << false;
            QTest::addRow("ZB-H1 K=16 m=777 random %u", seed)
                << Schedule::zbH1 << 16 << 777 << seed << false;
        }
        QTest::addRow("GPipe K=1 m=50") << Schedule::gpipe << 1 << 50 << 0u << true;
        QTest::addRow("1F1B K=64 m=1024") << Schedule::oneFOneB << 64 << 1024 << 0u << true;
        QTest::addRow("1F1B K=64 m=1023") << Schedule::oneFOneB << 64 << 1023 << 0u << true;
        QTest::addRow("1F1B K=5 m=301") << Schedule::oneFOneB << 5 << 301 << 0u << true;
        QTest::addRow("ZB-H1 K=32 m=1000") << Schedule::zbH1 << 32 << 1000 << 0u << true;
        QTest::addRow("1F1B K=8 m=30: too short to shorten")
            << Schedule::oneFOneB << 8 << 30 << 0u << false;
    }
    void shortcutsMatchEveryOp()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(unsigned, seed);
        QFETCH(bool, shortened);
        const bool zb = schedule == Schedule::zbH1;
        PipelineInput in = uniformPipeline(schedule, K, m);
        std::mt19937 random(seed);
        std::uniform_real_distribution<double> time(0.5, 2.0);
        for (int s = 0; seed != 0 && s < K; ++s) {
            in.forward[std::size_t(s)] = time(random);
            in.backward[std::size_t(s)] = 2 * time(random);
            in.weight[std::size_t(s)] = zb ? time(random) : 0.0;
        }
        in.p2pLatency = 0.001;
        in.p2pSend = 0.02;
        in.firstChunkExtra = {0.05, 0.1, 0.0};
        in.lastChunkExtra = {0.3, 0.6, zb ? 0.2 : 0.0};
        // The once-a-step casts in each stage's first forward.
        std::uniform_real_distribution<double> cast(0.0, 0.3);
        for (int s = 0; s < K; ++s)
            in.firstForwardExtra.push_back(seed != 0 ? cast(random) : 0.1);
        const PipelineResult everyOp = simulatePipeline(in, true);
        const PipelineResult quick = simulatePipeline(in);
        QCOMPARE(everyOp.simulatedMicrobatches, m);
        if (schedule == Schedule::gpipe)
            QCOMPARE(quick.simulatedMicrobatches, 0);
        else if (shortened)
            QVERIFY2(quick.simulatedMicrobatches <= m / 2,
                     qPrintable(QString::number(quick.simulatedMicrobatches)));
        else if (seed == 0)
            QCOMPARE(quick.simulatedMicrobatches, m);
        QVERIFY(quick.complete);
        const auto near = [](double a, double b) {
            return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
        };
        QVERIFY2(near(quick.makespan, everyOp.makespan),
                 qPrintable(QStringLiteral("%1 vs %2")
                                .arg(quick.makespan, 0, 'g', 17)
                                .arg(everyOp.makespan, 0, 'g', 17)));
        QVERIFY(near(quick.bubbleFraction, everyOp.bubbleFraction));
        QCOMPARE(quick.busy.size(), everyOp.busy.size());
        for (std::size_t s = 0; s < quick.busy.size(); ++s)
            QVERIFY(near(quick.busy[s], everyOp.busy[s]));
        QCOMPARE(quick.inflight, everyOp.inflight);
    }

    // Work the step's first micro-batch adds to its forward on each stage (the weights' casts
    // that run once a step) lies on the path the whole step waits on: in GPipe and 1F1B the
    // first forward passes every stage before the last stage can start, and from there the
    // last stage is never idle, so on equal stages (F = 1, B = 2, K = 4, m = 8) the step grows
    // by the extras' sum, 0.1 + 0.2 + 0.3 + 0.4 = 1.0; the timeline's first forward on each
    // stage is that much longer, and each stage is busy that much more.
    void firstForwardExtraOnThePath_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addRow("GPipe") << Schedule::gpipe;
        QTest::addRow("1F1B") << Schedule::oneFOneB;
    }
    void firstForwardExtraOnThePath()
    {
        QFETCH(Schedule, schedule);
        PipelineInput in = uniformPipeline(schedule, 4, 8);
        const PipelineResult plain = simulatePipeline(in, true);
        in.firstForwardExtra = {0.1, 0.2, 0.3, 0.4};
        const PipelineResult cast = simulatePipeline(in, true);
        const PipelineResult quick = simulatePipeline(in);
        QVERIFY(std::abs(cast.makespan - plain.makespan - 1.0) < 1e-12);
        QVERIFY(std::abs(quick.makespan - cast.makespan) < 1e-12);
        for (const ScheduleOp &o : cast.timeline)
            if (o.kind == OpKind::forward)
                QVERIFY(std::abs(o.end - o.start -
                                 (o.microbatch == 0 ? 1.1 + 0.1 * o.stage : 1.0)) < 1e-12);
        for (std::size_t s = 0; s < 4; ++s)
            QVERIFY(std::abs(cast.busy[s] - plain.busy[s] - 0.1 * double(s + 1)) < 1e-12);
    }

    // Each stage's idle time in the drain, where its last gradient reduction runs alone
    // (docs/step_time.md, "Data-parallel sync"). 1F1B on equal stages, F = 1, B = 2, K = 4: the
    // last micro-batch's backward leaves stage s s backwards before the makespan, at any m,
    // whether simulated op by op (the timeline) or extended at its steady period (m = 64).
    void drainIdleByHand_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<bool>("timeline");
        QTest::addRow("m = 8") << 8 << true;
        QTest::addRow("m = 64, at the steady period") << 64 << false;
    }
    void drainIdleByHand()
    {
        QFETCH(int, m);
        QFETCH(bool, timeline);
        const PipelineResult r =
            simulatePipeline(uniformPipeline(Schedule::oneFOneB, 4, m), timeline);
        QCOMPARE(r.tailIdle.size(), std::size_t{4});
        for (std::size_t stage = 0; stage < 4; ++stage)
            QVERIFY(std::abs(r.tailIdle[stage] - 2.0 * double(stage)) < 1e-12);
    }

    // GPipe's closed form gives each stage's drain as the simulation of every op does: the
    // backwards' flow shop from stage K-1 down to stage s. Unequal stages with the ends' work,
    // sends and a hop.
    void gpipeDrainClosedForm_data()
    {
        QTest::addColumn<int>("m");
        QTest::addRow("m = 1") << 1;
        QTest::addRow("m = 5") << 5;
        QTest::addRow("m = 32") << 32;
    }
    void gpipeDrainClosedForm()
    {
        QFETCH(int, m);
        PipelineInput in = uniformPipeline(Schedule::gpipe, 4, m);
        in.forward = {1.0, 0.8, 1.3, 1.1};
        in.backward = {2.1, 1.5, 2.6, 2.4};
        in.firstChunkExtra = {0.3, 0.2, 0};
        in.lastChunkExtra = {0.7, 1.4, 0};
        in.firstForwardExtra = {0.1, 0.2, 0.3, 0.4};
        in.p2pSend = 0.05;
        in.p2pLatency = 0.01;
        const PipelineResult closed = simulatePipeline(in);
        const PipelineResult everyOp = simulatePipeline(in, true);
        QCOMPARE(closed.tailIdle.size(), everyOp.tailIdle.size());
        for (std::size_t stage = 0; stage < closed.tailIdle.size(); ++stage)
            QVERIFY2(std::abs(closed.tailIdle[stage] - everyOp.tailIdle[stage]) <
                         1e-12 * everyOp.makespan,
                     qPrintable(QStringLiteral("stage %1: %2 against %3")
                                    .arg(stage)
                                    .arg(closed.tailIdle[stage])
                                    .arg(everyOp.tailIdle[stage])));
    }

    // Stage 0 ends the step in GPipe, 1F1B and interleaving (not always in ZB-H1, whose
    // deferred weight gradients can end later on another stage): a lower bound on the step
    // (core::stepTimeLowerBound) lets every stage but the first hide its last reduction in the
    // drain, never the first. Unequal stages with the last stage's work and sends, where the
    // last stage is the busiest.
    void firstStageEndsTheStep_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("v");
        QTest::addRow("GPipe") << Schedule::gpipe << 1;
        QTest::addRow("1F1B") << Schedule::oneFOneB << 1;
        QTest::addRow("interleaved") << Schedule::interleaved << 2;
    }
    void firstStageEndsTheStep()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, v);
        PipelineInput in = uniformPipeline(schedule, 4, 8, v);
        in.forward = {1.0, 0.8, 1.3, 1.1};
        in.backward = {2.1, 1.5, 2.6, 2.4};
        in.lastChunkExtra = {0.7, 1.4, 0.6};
        in.p2pSend = 0.05;
        in.p2pLatency = 0.01;
        const PipelineResult r = simulatePipeline(in, true);
        QVERIFY(r.complete);
        QVERIFY(r.tailIdle.front() < 1e-12 * r.makespan);
        for (std::size_t stage = 1; stage < 4; ++stage)
            QVERIFY(r.tailIdle[stage] > 0);
    }

    // Megatron-LM's combined 1F1B (megatron/core/pipeline_parallel/combined_1f1b.py): with one
    // stage the first forward runs alone, then each backward with the next forward, then the
    // last backward alone; a pair takes max(its computations, its all-to-alls). By hand, per
    // micro-batch F = 3 s of which 1 s all-to-all and B = 6 s of which 2 s: m = 4 gives
    // 3 + 3 x max(2 + 4, 1 + 2) + 6 = 27 s against 4 x 9 = 36 s in turn, 9 s hidden. When the
    // all-to-alls are the longer (F = 2 s of which 1.5, B = 3 s of which 2.5): 2 + 3 x
    // max(0.5 + 0.5, 1.5 + 2.5) + 3 = 17 s against 20 s, 1 s a pair hidden.
    void expertOverlapByHand_data()
    {
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("fComm");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("bComm");
        QTest::addColumn<double>("share");
        QTest::addColumn<double>("makespan");
        QTest::addColumn<double>("hidden");
        // m = 4 on one stage: F alone, 3 pairs, B alone. A pair of computations C = 2 + 4 and
        // all-to-alls A = 1 + 2 takes max(C, A) = 6: 3 + 3 × 6 + 6 = 27, 3 × 3 hidden.
        QTest::addRow("computation the longer") << 3.0 << 1.0 << 6.0 << 2.0 << 0.0 << 27.0 << 9.0;
        // C = 0.5 + 0.5, A = 1.5 + 2.5: 2 + 3 × 4 + 3 = 17, 3 × 1 hidden.
        QTest::addRow("all-to-all the longer") << 2.0 << 1.5 << 3.0 << 2.5 << 0.0 << 17.0 << 3.0;
        // The all-to-all's kernels holding a quarter of the device while hidden: a pair takes
        // max(C, A) + 0.25 min(C, A), 6.75 (3 + 20.25 + 6) and 4.25 (2 + 12.75 + 3); of each
        // pair's min(C, A) three quarters stay hidden.
        QTest::addRow("computation the longer, a quarter held")
            << 3.0 << 1.0 << 6.0 << 2.0 << 0.25 << 29.25 << 6.75;
        QTest::addRow("all-to-all the longer, a quarter held")
            << 2.0 << 1.5 << 3.0 << 2.5 << 0.25 << 17.75 << 2.25;
    }
    void expertOverlapByHand()
    {
        QFETCH(double, f);
        QFETCH(double, fComm);
        QFETCH(double, b);
        QFETCH(double, bComm);
        QFETCH(double, share);
        QFETCH(double, makespan);
        QFETCH(double, hidden);
        PipelineInput in = ratios(Schedule::oneFOneB, 1, 4, f, b, 0);
        in.forwardExpertComm = {fComm};
        in.backwardExpertComm = {bComm};
        in.expertCommShare = share;
        QCOMPARE(simulatePipeline(in).makespan, 4 * (f + b)); // off: in turn
        in.expertOverlap = true;
        QCOMPARE(expertOverlapPairs(in), std::vector<int>{3});
        const PipelineResult r = simulatePipeline(in, true);
        QCOMPARE(r.makespan, makespan);
        QCOMPARE(simulatePipeline(in).makespan, makespan); // no shortcut takes it elsewhere
        QCOMPARE(hiddenExpertComm(in), std::vector<double>{hidden});
        QCOMPARE(r.busy, std::vector<double>{makespan});
        // The timeline shows what stays exposed: all of the lone ops', the pairs' excess.
        double shown = 0;
        for (const ScheduleOp &o : r.timeline)
            shown += o.expertComm;
        QCOMPARE(shown, 4 * (fComm + bComm) - hidden);
    }

    // The pairs of an interleaved stage, by hand from Megatron-LM's warm-up: K = 2, v = 2,
    // m = 4 is 8 chunk-forwards a stage; stage 0 warms up with 2(K - 1) + (v - 1)K = 4 of
    // them, stage 1 with 2, and Megatron-LM adds one more under the overlap
    // (megatron/core/pipeline_parallel/schedules.py: "we schedule one extra micro-batch
    // forward step before the 1f1b stages"), leaving 8 - 5 = 3 and 8 - 3 = 5 steady steps,
    // each a backward with a forward.
    void expertOverlapInterleavedPairs()
    {
        PipelineInput in = uniformPipeline(Schedule::interleaved, 2, 4, 2);
        QCOMPARE(expertOverlapPairs(in), (std::vector<int>{3, 5}));
    }

    // deepseek-ai/DualPipe, README, "Pipeline Bubbles and Memory Usage Comparison": DualPipeV
    // on PP = 2K chunks idles (PP/2 - 1)(F&B + B - 3W) per device, F, B and W a chunk's, B
    // the whole backward (input and weight gradients), F&B a forward and a backward run
    // together: F + B when nothing is overlapped. Its figure (4 devices, 10 micro-batches,
    // F = B = W one cell) leaves device 0 six idle cells: (4 - 1)(3 + 2 - 3). The count holds
    // as the figure draws it, B's input gradient as long as F and W no longer.
    void dualPipeVBubbleAsPublished_data()
    {
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("w");
        QTest::addRow("the figure: F = B = W") << 1.0 << 1.0 << 1.0;
        QTest::addRow("W half of F = B") << 1.0 << 1.0 << 0.5;
        QTest::addRow("W a quarter of F = B") << 2.0 << 2.0 << 0.5;
    }
    void dualPipeVBubbleAsPublished()
    {
        QFETCH(double, f);
        QFETCH(double, b);
        QFETCH(double, w);
        for (int K : {1, 2, 3, 4, 8, 16})
            for (int m : {2 * K, 2 * K + 1, 10, 40, 120}) {
                if (m < 2 * K)
                    continue;
                PipelineResult r;
                checkReadmeIdle(Schedule::dualPipeV, K, m, f, b, w, r);
            }
        // The figure itself: 4 devices, 10 micro-batches, one cell a pass.
        const PipelineResult figure = simulatePipeline(ratios(Schedule::dualPipeV, 4, 10, 2, 2, 2));
        QCOMPARE(figure.makespan - figure.busy[0], 6.0);
    }

    // DualPipe (deepseek-ai/DualPipe, README, "Pipeline Bubbles and Memory Usage Comparison"):
    // (PP/2 - 1)(F&B + B - 3W) idle on each of PP = K devices, F, B (whole) and W a chunk's,
    // F&B = F + B unpaired; each device passes m chunks of each kind. Simulated for every
    // even K and even m >= 2K where the figure draws it (F = B, W <= F), and the figure
    // itself: 8 devices, 20 micro-batches, one cell a pass: 3(3 + 2 - 3) = 6 cells.
    void dualPipeBubbleAsPublished_data() { dualPipeVBubbleAsPublished_data(); }
    void dualPipeBubbleAsPublished()
    {
        QFETCH(double, f);
        QFETCH(double, b);
        QFETCH(double, w);
        for (int K : {2, 4, 6, 8, 16})
            for (int m : {2 * K, 2 * K + 2, 20, 40, 120}) {
                if (m < 2 * K)
                    continue;
                PipelineResult r;
                checkReadmeIdle(Schedule::dualPipe, K, m, f, b, w, r);
                // README: PP + 1 chunks of activations a device, (K + 1)/2 of its two stages.
                for (double alive : r.inflight)
                    QCOMPARE(alive, (K + 1) / 2.0);
            }
        const PipelineResult figure = simulatePipeline(ratios(Schedule::dualPipe, 8, 20, 2, 2, 2));
        QCOMPARE(figure.makespan - figure.busy[0], 6.0);
        // No order for an odd K or m, or fewer than 2K micro-batches (dualpipe.py asserts).
        for (auto [K, m] : {std::pair{3, 12}, std::pair{4, 9}, std::pair{4, 6}}) {
            QVERIFY(!simulatePipeline(uniformPipeline(Schedule::dualPipe, K, m)).complete);
            QVERIFY(!closedFormBubble(Schedule::dualPipe, K, m, 1));
        }
    }

    // dualpipe.py's `step` on 8 ranks with 20 micro-batches (10 each way), rank 0: step 1,
    // (K/2 - half_rank - 1)·2 = 6 forwards of phase 0; step 2, half_rank + 1 = 1 forward of
    // each phase; step 3, 3 times a zero-bubble B of phase 1, its W and a forward of phase 1;
    // step 4, m/2 - K + half_rank + 1 = 3 times the pairs (F0, B1) and (F1, B0). On the first
    // half of the ranks phase 0 is the forward direction (chunk 0, micro-batches 0..9), on the
    // second the reverse one (`phase ^= self.is_in_second_half`; chunk 1, micro-batches
    // 10..19): rank 7 runs rank 0's order in the other direction. The middle ranks (3 and 4,
    // half_rank = 3) run the main step's first F0 and B1 apart, whole.
    void dualPipeOrderAsDualpipePy()
    {
        const int K = 8, m = 20;
        const auto orders = scheduleOrder(uniformPipeline(Schedule::dualPipe, K, m));
        QCOMPARE(orders.size(), std::size_t(K));
        const auto text = [](const std::vector<ScheduleOp> &order, std::size_t count) {
            QStringList ops;
            for (std::size_t i = 0; i < count && i < order.size(); ++i) {
                const ScheduleOp &o = order[i];
                const QString kind = o.kind == OpKind::weight    ? QStringLiteral("W")
                                     : o.kind == OpKind::forward ? QStringLiteral("F")
                                     : o.fullBackward            ? QStringLiteral("B+W")
                                                                 : QStringLiteral("Bz");
                ops << QStringLiteral("%1%2%3:%4")
                           .arg(o.paired ? QStringLiteral("&") : QString(), kind)
                           .arg(o.chunk)
                           .arg(o.microbatch);
            }
            return ops.join(' ');
        };
        QCOMPARE(text(orders[0], 24),
                 QStringLiteral("F0:0 F0:1 F0:2 F0:3 F0:4 F0:5 F0:6 F1:10 "
                                "Bz1:10 W1:10 F1:11 Bz1:11 W1:11 F1:12 Bz1:12 W1:12 F1:13 "
                                "F0:7 &B+W1:13 F1:14 &B+W0:0 F0:8 &B+W1:14 F1:15"));
        QCOMPARE(text(orders[7], 8),
                 QStringLiteral("F1:10 F1:11 F1:12 F1:13 F1:14 F1:15 F1:16 F0:0"));
        // Rank 3, the middle: steps 1 and 3 are empty, step 2 runs 4 pairs of forwards, and
        // the main step's first F0 and B1 run apart, the B whole.
        QCOMPARE(text(orders[3], 11),
                 QStringLiteral("F0:0 F1:10 F0:1 F1:11 F0:2 F1:12 F0:3 F1:13 F0:4 B+W1:10 F1:14"));
        // Every rank runs each direction's m/2 forwards and backwards once, in order, and a W
        // for each zero-bubble B, after it, first in first out.
        for (std::size_t s = 0; s < orders.size(); ++s) {
            std::array<int, 2> forwards{}, backwards{};
            std::vector<std::pair<int, int>> deferred, weights;
            for (const ScheduleOp &o : orders[s]) {
                const auto c = std::size_t(o.chunk);
                const int first = o.chunk == 0 ? 0 : m / 2;
                if (o.kind == OpKind::forward)
                    QCOMPARE(o.microbatch, first + forwards[c]++);
                else if (o.kind == OpKind::backward) {
                    QCOMPARE(o.microbatch, first + backwards[c]++);
                    QVERIFY(o.microbatch < first + forwards[c]);
                    if (!o.fullBackward)
                        deferred.emplace_back(o.chunk, o.microbatch);
                } else {
                    weights.emplace_back(o.chunk, o.microbatch);
                    QVERIFY(weights.size() <= deferred.size());
                }
            }
            QCOMPARE(forwards, (std::array<int, 2>{m / 2, m / 2}));
            QCOMPARE(backwards, (std::array<int, 2>{m / 2, m / 2}));
            QCOMPARE(weights, deferred);
        }
    }

    // Where a device's two chunks hold different layers (DualPipe's stage and its mirror,
    // DualPipeV's two halves of the V), the input gives each virtual stage its own times:
    // every op takes its virtual stage's, and a stage's time is its chunks' sum.
    void perVirtualStageTimes_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addRow("dualpipe") << Schedule::dualPipe;
        QTest::addRow("dualpipev") << Schedule::dualPipeV;
    }
    void perVirtualStageTimes()
    {
        QFETCH(Schedule, schedule);
        const int K = 2, m = 4;
        PipelineInput in = uniformPipeline(schedule, K, m);
        in.forward = {1, 2, 3, 4}; // virtual stages 0..3: device 0, 1, then 1, 0
        in.backward = {10, 20, 30, 40};
        in.weight = {100, 200, 300, 400};
        const PipelineResult r = simulatePipeline(in, true);
        QVERIFY(r.complete);
        for (const ScheduleOp &o : r.timeline) {
            const auto j = std::size_t(virtualStageOf(schedule, K, o.stage, o.chunk));
            const double expected = o.kind == OpKind::forward ? in.forward[j]
                                    : o.kind == OpKind::weight
                                        ? in.weight[j]
                                        : in.backward[j] + (o.fullBackward ? in.weight[j] : 0.0);
            QCOMPARE(o.end - o.start, expected);
        }
        QCOMPARE(stageSeconds(in, 0, OpKind::forward), 1.0 + 4.0);
        QCOMPARE(stageSeconds(in, 1, OpKind::backward), 20.0 + 30.0);
        // Per stage, a chunk is half its stage's time.
        PipelineInput perStage = uniformPipeline(schedule, K, m, 1, 6.0);
        QCOMPARE(stageSeconds(perStage, 1, OpKind::forward), 6.0);
        for (const ScheduleOp &o : simulatePipeline(perStage, true).timeline)
            if (o.kind == OpKind::forward)
                QCOMPARE(o.end - o.start, 3.0);
    }

    // DualPipe's two directions never meet: a forward-direction micro-batch runs virtual
    // stages 0..K-1 (devices 0..K-1), a reverse one K..2K-1 (devices K-1..0), each F after
    // the F before it in its direction, each B after the B after it or, at its direction's
    // end, its own F; a pair hands both outputs on at its end.
    void dualPipeTimelineDependencies()
    {
        const int K = 6, m = 14;
        PipelineInput in = uniformPipeline(Schedule::dualPipe, K, m, 1, 1.0);
        in.p2pLatency = 0.1;
        const PipelineResult r = simulatePipeline(in, true);
        QVERIFY(r.complete);
        // Each device runs m forwards and m backwards, half of each direction.
        QCOMPARE(std::count_if(r.timeline.begin(), r.timeline.end(),
                               [](const ScheduleOp &o) { return o.kind == OpKind::forward; }),
                 std::ptrdiff_t(K * m));
        std::map<std::tuple<int, int, int>, double> ready; // (kind, j, micro-batch): output
        for (const auto &ops : opsByStage(r, K))
            for (std::size_t i = 0; i < ops.size(); ++i) {
                const ScheduleOp &o = *ops[i];
                const bool pairedForward =
                    o.paired && o.kind == OpKind::forward && i + 1 < ops.size();
                ready[{int(o.kind), virtualStageOf(Schedule::dualPipe, K, o.stage, o.chunk),
                       o.microbatch}] = pairedForward ? ops[i + 1]->end : o.end;
            }
        for (const ScheduleOp &o : r.timeline) {
            const int j = virtualStageOf(Schedule::dualPipe, K, o.stage, o.chunk);
            // The direction's micro-batches only, entering at its own end.
            QCOMPARE(o.microbatch < m / 2, o.chunk == 0);
            QCOMPARE(j < K, o.chunk == 0);
            const int f = int(OpKind::forward), b = int(OpKind::backward);
            const bool starts = j == 0 || j == K, ends = j == K - 1 || j == 2 * K - 1;
            double input = 0;
            if (o.kind == OpKind::forward && !starts)
                input = ready.at({f, j - 1, o.microbatch}) + 0.1;
            else if (o.kind == OpKind::backward)
                input = ends ? ready.at({f, j, o.microbatch})
                             : ready.at({b, j + 1, o.microbatch}) + 0.1;
            else if (o.kind == OpKind::weight)
                input = ready.at({b, j, o.microbatch});
            QVERIFY(o.start >= input - 1e-12);
        }
    }

    // The Bubble chart's curves (core::bubbleCurves) name the chunks a stage each runs: the
    // interleaved curve's v, DualPipeV's two, one otherwise; DualPipeV's starts where its
    // order does, at m = 2K, with the README's idle (K - 1)(F&B + B - 3W) = 2(K - 1) chunk
    // times over 6m of work: 6/(48 + 6) at K = 4, m = 8.
    void bubbleCurvesCountTheirChunks()
    {
        for (const BubbleCurve &curve : bubbleCurves(4, 3, 64)) {
            const int chunks = curve.schedule == Schedule::interleaved ? 3
                               : isDualPipe(curve.schedule)            ? 2
                                                                       : 1;
            QCOMPARE(curve.virtualStages, chunks);
            QVERIFY(!curve.points.empty());
            if (curve.schedule == Schedule::dualPipeV) {
                QCOMPARE(curve.points.front().microbatches, 8);
                QVERIFY(std::abs(curve.points.front().fraction - 6.0 / 54) < 1e-12);
            }
            // DualPipe's at even m from 2K: (K/2 - 1)(F&B + B - 3W) = 2 chunk times over 3m.
            if (curve.schedule == Schedule::dualPipe) {
                QCOMPARE(curve.points.front().microbatches, 8);
                QVERIFY(std::abs(curve.points.front().fraction - 2.0 / 26) < 1e-12);
                for (const BubblePoint &p : curve.points)
                    QCOMPARE(p.microbatches % 2, 0);
            }
        }
        // An odd K has no DualPipe order: an empty curve.
        for (const BubbleCurve &curve : bubbleCurves(5, 2, 64))
            if (curve.schedule == Schedule::dualPipe)
                QVERIFY(curve.points.empty());
    }

    // Rank 0's order in deepseek-ai/DualPipe's dualpipev.py for 4 ranks and 10 micro-batches,
    // as the README's figure draws device 0: step 1, 2(K - r - 1) = 6 forwards of chunk 0;
    // step 2, r + 1 = 1 forward of each chunk; step 3, K - r - 1 = 3 times a zero-bubble B of
    // chunk 1, its W and a forward of chunk 1; step 4 (the main step), m - 2K + r + 1 = 3 times
    // a forward of chunk 0 with a whole backward of chunk 1, then a forward of chunk 1 with a
    // whole backward of chunk 0, each pair run together. "Bz" is a zero-bubble B, "B+W" a
    // whole one, "&" marks the second op of a pair.
    void dualPipeVOrderAsDualpipevPy()
    {
        const auto orders = scheduleOrder(uniformPipeline(Schedule::dualPipeV, 4, 10));
        QCOMPARE(orders.size(), std::size_t(4));
        QStringList first;
        for (std::size_t i = 0; i < 20; ++i) {
            const ScheduleOp &o = orders[0][i];
            const QString kind = o.kind == OpKind::weight    ? QStringLiteral("W")
                                 : o.kind == OpKind::forward ? QStringLiteral("F")
                                 : o.fullBackward            ? QStringLiteral("B+W")
                                                             : QStringLiteral("Bz");
            first << QStringLiteral("%1%2%3:%4")
                         .arg(o.paired ? QStringLiteral("&") : QString(), kind)
                         .arg(o.chunk)
                         .arg(o.microbatch);
        }
        QCOMPARE(first.join(' '), QStringLiteral("F0:0 F0:1 F0:2 F0:3 F0:4 F0:5 F0:6 F1:0 "
                                                 "Bz1:0 W1:0 F1:1 Bz1:1 W1:1 F1:2 Bz1:2 W1:2 F1:3 "
                                                 "F0:7 &B+W1:3 F1:4"));
        // Every stage runs each chunk's m forwards and m backwards once, in order, and a W for
        // each zero-bubble B, after it, first in first out (WeightGradStore).
        for (std::size_t s = 0; s < orders.size(); ++s) {
            std::array<int, 2> forwards{}, backwards{};
            std::vector<std::pair<int, int>> deferred, weights;
            for (const ScheduleOp &o : orders[s]) {
                const auto c = std::size_t(o.chunk);
                if (o.kind == OpKind::forward)
                    QCOMPARE(o.microbatch, forwards[c]++);
                else if (o.kind == OpKind::backward) {
                    QCOMPARE(o.microbatch, backwards[c]++);
                    QVERIFY(o.microbatch < forwards[c]);
                    if (!o.fullBackward)
                        deferred.emplace_back(o.chunk, o.microbatch);
                } else {
                    weights.emplace_back(o.chunk, o.microbatch);
                    QVERIFY(weights.size() <= deferred.size());
                }
            }
            QCOMPARE(forwards, (std::array<int, 2>{10, 10}));
            QCOMPARE(backwards, (std::array<int, 2>{10, 10}));
            QCOMPARE(weights, deferred);
            // Steps 3, 6 and 7 defer K - r - 1, r + 1 and K - r - 1 weight gradients.
            QCOMPARE(int(weights.size()), 2 * (4 - int(s) - 1) + int(s) + 1);
        }
    }

    // A DualPipeV pair starts when both its inputs are in and hands both outputs on at its
    // end (dualpipev.py, _forward_backward_chunk: both receives, the computation, both
    // sends), and every op waits for its input: the F of the virtual stage before, the B of
    // the one after, its own B for a W.
    void dualPipeVTimelineDependencies()
    {
        const int K = 4, m = 10;
        PipelineInput in = uniformPipeline(Schedule::dualPipeV, K, m, 1, 1.0);
        in.p2pLatency = 0.1;
        const PipelineResult r = simulatePipeline(in, true);
        QVERIFY(r.complete);
        std::map<std::tuple<int, int, int>, double> ready; // (kind, j, micro-batch): output
        int pairs = 0;
        for (const auto &ops : opsByStage(r, K)) {
            for (std::size_t i = 0; i < ops.size(); ++i) {
                const ScheduleOp &o = *ops[i];
                if (i > 0)
                    QVERIFY(o.start >= ops[i - 1]->end - 1e-12);
                // A pair's F hands its output on when its B ends.
                const bool pairedForward =
                    o.paired && o.kind == OpKind::forward && i + 1 < ops.size();
                if (pairedForward) {
                    ++pairs;
                    QCOMPARE(ops[i + 1]->start, o.end);
                }
                const double out = pairedForward ? ops[i + 1]->end : o.end;
                ready[{int(o.kind), virtualStageOf(Schedule::dualPipeV, K, o.stage, o.chunk),
                       o.microbatch}] = out;
            }
        }
        QVERIFY(pairs > 0);
        for (const ScheduleOp &o : r.timeline) {
            const int j = virtualStageOf(Schedule::dualPipeV, K, o.stage, o.chunk);
            const int f = int(OpKind::forward), b = int(OpKind::backward);
            double input = 0;
            if (o.kind == OpKind::forward && j > 0)
                input = ready.at({f, j - 1, o.microbatch});
            else if (o.kind == OpKind::backward)
                input = j == 2 * K - 1 ? ready.at({f, j, o.microbatch})
                                       : ready.at({b, j + 1, o.microbatch});
            else if (o.kind == OpKind::weight)
                input = ready.at({b, j, o.microbatch});
            QVERIFY(o.start >= input - 1e-12);
        }
    }

    // One stage, m = 2: dualpipev.py runs F0 F0 F1, the last rank's first main-step pair apart
    // (F0, B1 whole), then F1 with B0 whole as a pair, B1 whole, B0 zero-bubble and its W.
    // Per chunk F = f, B = b, W = w, of which the all-to-alls fComm and bComm: in turn
    // 4(f + b + w); as a pair, C = f + b + w - A of computation beside A = fComm + bComm of
    // all-to-all take max(C, A) + share × min(C, A), of which min(C, A)(1 - share) is hidden.
    void dualPipeVPairByHand_data()
    {
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("fComm");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("bComm");
        QTest::addColumn<double>("w");
        QTest::addColumn<double>("share");
        QTest::addColumn<double>("makespan");
        QTest::addColumn<double>("hidden");
        // C = 3 + 4 + 2 - 3 = 6 > A = 3: 36 - 9 + 6 = 33, 3 hidden.
        QTest::addRow("computation the longer")
            << 3.0 << 1.0 << 4.0 << 2.0 << 2.0 << 0.0 << 33.0 << 3.0;
        // C = 2 + 3 + 0.5 - 4 = 1.5 < A = 4: 22 - 5.5 + 4 = 20.5, 1.5 hidden.
        QTest::addRow("all-to-all the longer")
            << 2.0 << 1.5 << 3.0 << 2.5 << 0.5 << 0.0 << 20.5 << 1.5;
        // A quarter of the device held while hidden: + 0.25 × 3 and + 0.25 × 1.5.
        QTest::addRow("computation the longer, a quarter held")
            << 3.0 << 1.0 << 4.0 << 2.0 << 2.0 << 0.25 << 33.75 << 2.25;
        QTest::addRow("all-to-all the longer, a quarter held")
            << 2.0 << 1.5 << 3.0 << 2.5 << 0.5 << 0.25 << 20.875 << 1.125;
    }
    void dualPipeVPairByHand()
    {
        QFETCH(double, f);
        QFETCH(double, fComm);
        QFETCH(double, b);
        QFETCH(double, bComm);
        QFETCH(double, w);
        QFETCH(double, share);
        QFETCH(double, makespan);
        QFETCH(double, hidden);
        PipelineInput in = ratios(Schedule::dualPipeV, 1, 2, 2 * f, 2 * b, 2 * w);
        in.forwardExpertComm = {2 * fComm};
        in.backwardExpertComm = {2 * bComm};
        in.expertCommShare = share;
        QCOMPARE(simulatePipeline(in).makespan, 4 * (f + b + w)); // off: in turn
        in.expertOverlap = true;
        QCOMPARE(expertOverlapPairs(in), std::vector<int>{1});
        const PipelineResult r = simulatePipeline(in, true);
        QCOMPARE(r.makespan, makespan);
        QCOMPARE(hiddenExpertComm(in), std::vector<double>{hidden});
        QCOMPARE(r.timeline.size(), std::size_t(9));
    }

    // Megatron-core's combined step (combined_1f1b.py, combined_1f1b_schedule_for_interleaved_
    // pipelining: both preprocesses, the combined forward and backward, then both
    // postprocesses) starts when the backward's and the forward's inputs are both in and
    // sends both outputs when it ends: under ep_overlap the backward's gradient reaches the
    // stage before only at its pair's end, and the pair waits for its forward's input. Every
    // shape of 1F1B and the interleaved schedule up to K = 8, m = 40, v = 4 still completes.
    void expertOverlapPairsRunAsOne()
    {
        for (int K = 1; K <= 8; ++K)
            for (int m = K; m <= 40; m += K)
                for (int v : {1, 2, 4}) {
                    PipelineInput in = uniformPipeline(
                        v > 1 ? Schedule::interleaved : Schedule::oneFOneB, K, m, v);
                    in.forwardExpertComm.assign(std::size_t(K), 0.3);
                    in.backwardExpertComm.assign(std::size_t(K), 0.5);
                    in.expertOverlap = true;
                    in.p2pLatency = 0.01;
                    QVERIFY2(simulatePipeline(in).complete,
                             qPrintable(QStringLiteral("K=%1 m=%2 v=%3").arg(K).arg(m).arg(v)));
                }
        const int K = 2, m = 4, v = 2;
        PipelineInput in = uniformPipeline(Schedule::interleaved, K, m, v);
        in.forwardExpertComm.assign(K, 0.3);
        in.backwardExpertComm.assign(K, 0.5);
        in.expertOverlap = true;
        const PipelineResult r = simulatePipeline(in, true);
        QVERIFY(r.complete);
        // When each backward's gradient reaches the virtual stage before it.
        std::map<std::pair<int, int>, double> gradient; // (j, micro-batch)
        std::map<std::pair<int, int>, double> forwardEnd;
        int pairs = 0;
        for (const auto &ops : opsByStage(r, K)) {
            for (std::size_t i = 0; i < ops.size(); ++i) {
                const ScheduleOp &o = *ops[i];
                const int j = virtualStageOf(Schedule::interleaved, K, o.stage, o.chunk);
                const bool pairsNext = o.kind == OpKind::backward && o.paired &&
                                       i + 1 < ops.size() && ops[i + 1]->paired &&
                                       ops[i + 1]->kind == OpKind::forward;
                if (pairsNext)
                    ++pairs;
                if (o.kind == OpKind::backward)
                    gradient[{j, o.microbatch}] = pairsNext ? ops[i + 1]->end : o.end;
                else
                    forwardEnd[{j, o.microbatch}] = o.end;
            }
        }
        QVERIFY(pairs > 0);
        for (const ScheduleOp &o : r.timeline) {
            const int j = virtualStageOf(Schedule::interleaved, K, o.stage, o.chunk);
            if (o.kind == OpKind::backward && j + 1 < K * v)
                QVERIFY(o.start >= gradient.at({j + 1, o.microbatch}) - 1e-12);
            if (o.kind == OpKind::forward && j > 0)
                QVERIFY(o.start >= forwardEnd.at({j - 1, o.microbatch}) - 1e-12);
        }
    }

    // Every op appears once, stages never overlap themselves, and dependencies hold.
    void timelineIsConsistent_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("opsPerMicrobatch");
        QTest::addRow("docs/DESIGN.md §3.3: GPipe F+B") << Schedule::gpipe << 1 << 2;
        QTest::addRow("docs/DESIGN.md §3.3: 1F1B F+B") << Schedule::oneFOneB << 1 << 2;
        QTest::addRow("docs/DESIGN.md §3.3: interleaved v=2, 2 chunks x F+B")
            << Schedule::interleaved << 2 << 4;
        QTest::addRow("docs/DESIGN.md §3.3: ZB-H1 F+B+W") << Schedule::zbH1 << 1 << 3;
    }
    void timelineIsConsistent()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, v);
        QFETCH(int, opsPerMicrobatch);
        const int K = 4, m = 8;
        const PipelineResult r = simulatePipeline(uniformPipeline(schedule, K, m, v), true);
        QCOMPARE(r.timeline.size(), std::size_t(K * m * opsPerMicrobatch));
        for (const ScheduleOp &op : r.timeline) {
            QVERIFY(op.end > op.start);
            QVERIFY(op.end <= r.makespan + 1e-12);
        }
        // Per stage, ops in the timeline do not overlap.
        for (int s = 0; s < K; ++s) {
            std::vector<std::pair<double, double>> spans;
            for (const ScheduleOp &op : r.timeline)
                if (op.stage == s)
                    spans.emplace_back(op.start, op.end);
            std::sort(spans.begin(), spans.end());
            for (std::size_t i = 1; i < spans.size(); ++i)
                QVERIFY(spans[i].first >= spans[i - 1].second - 1e-12);
        }
    }

    // docs/DESIGN.md §3.3: v only shapes the interleaved schedule; elsewhere it is pointed out.
    void virtualStagesOutsideInterleavedWarn()
    {
        Scenario s;
        s.virtualStages = 2;
        const Report r = evaluate(s, io::builtinPresets());
        QVERIFY(r.ok());
        QVERIFY(r.hasWarning("virtual-stages-unused"));
        s.schedule = Schedule::interleaved;
        const Report interleaved = evaluate(s, io::builtinPresets());
        QVERIFY(!interleaved.hasWarning("virtual-stages-unused"));
        // Narayanan §2.2.2: (K-1)/(vm+K-1) = 3/35 for K = 4, m = 16, v = 2.
        QVERIFY(interleaved.bubbleFractionClosedForm);
        QVERIFY(std::abs(*interleaved.bubbleFractionClosedForm - 3.0 / 35) < 1e-12);
    }

    // alivePeaks keeps, per stage, exactly the chunk counts after a forward that no other such
    // count covers (as many of every chunk or more): taken here from scheduleOrder's ops one by
    // one, every count kept and the covered ones dropped at the end, for every schedule at
    // K <= 8, m <= 16 and v <= 4 that validate accepts; the simulation keeps the same.
    void alivePeaksAreTheUncoveredCounts_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("chunks"); // v, or DualPipeV's two
        QTest::newRow("GPipe") << Schedule::gpipe << 1;
        QTest::newRow("1F1B") << Schedule::oneFOneB << 1;
        QTest::newRow("ZB-H1") << Schedule::zbH1 << 1;
        QTest::newRow("interleaved v = 2") << Schedule::interleaved << 2;
        QTest::newRow("interleaved v = 3") << Schedule::interleaved << 3;
        QTest::newRow("interleaved v = 4") << Schedule::interleaved << 4;
        QTest::newRow("DualPipeV") << Schedule::dualPipeV << 2;
    }
    void alivePeaksAreTheUncoveredCounts()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, chunks);
        const int v = schedule == Schedule::interleaved ? chunks : 1;
        const auto covers = [](const std::vector<int> &a, const std::vector<int> &b) {
            return a != b && std::equal(a.begin(), a.end(), b.begin(), std::greater_equal<>());
        };
        int checked = 0;
        for (int K = 1; K <= 8; ++K)
            for (int m = 1; m <= 16; ++m) {
                if ((schedule == Schedule::interleaved && m % K != 0) ||
                    (schedule == Schedule::dualPipeV && m < 2 * K))
                    continue;
                const auto peaks = alivePeaks(schedule, K, m, v);
                const PipelineInput in = uniformPipeline(schedule, K, m, v);
                const auto orders = scheduleOrder(in);
                // The simulation keeps the same peaks as it runs, with more than a chunk a stage.
                const PipelineResult simulated = simulatePipeline(in);
                QCOMPARE(int(peaks.size()), K);
                for (int s = 0; s < K; ++s) {
                    std::vector<int> alive(std::size_t(chunks), 0);
                    std::vector<std::vector<int>> counts;
                    for (const ScheduleOp &o : orders[std::size_t(s)]) {
                        const auto c = std::size_t(std::clamp(o.chunk, 0, chunks - 1));
                        if (o.kind == OpKind::forward) {
                            ++alive[c];
                            counts.push_back(alive);
                        } else if (o.kind == OpKind::weight || !splitsWeightGradients(schedule) ||
                                   o.fullBackward) {
                            --alive[c];
                        }
                    }
                    std::vector<std::vector<int>> uncovered;
                    for (const auto &a : counts)
                        if (std::none_of(counts.begin(), counts.end(),
                                         [&](const auto &b) { return covers(b, a); }))
                            uncovered.push_back(a);
                    std::sort(uncovered.begin(), uncovered.end());
                    uncovered.erase(std::unique(uncovered.begin(), uncovered.end()),
                                    uncovered.end());
                    const QString where = QStringLiteral("K=%1 m=%2 stage %3").arg(K).arg(m).arg(s);
                    auto got = peaks[std::size_t(s)];
                    std::sort(got.begin(), got.end());
                    QVERIFY2(got == uncovered, qPrintable(where));
                    if (chunks > 1) {
                        auto kept = simulated.alivePeaks.at(std::size_t(s));
                        std::sort(kept.begin(), kept.end());
                        QVERIFY2(kept == uncovered, qPrintable(where));
                    }
                    ++checked;
                }
            }
        QVERIFY(checked > 100);
    }

    // Each chunk alive weighed by its own bytes (inflightWeighted), from the order's counts.
    // Megatron-core's interleaved schedule warms up min(2(K - s - 1) + (v - 1)K, mv)
    // forwards (schedules.py, get_pp_rank_microbatches), the weights by virtual stage
    // j = c·K + s: with K = m = v = 2, stage 0 all four, 2 of each chunk, 2 w(0) + 2 w(2);
    // stage 1 two of chunk 0, then one of chunk 1 before its first B, 2 w(1) + w(3).
    // With K = 4, m = 8, v = 2, stage 0 warms up 2(K - 1) + (v - 1)K = 10 forwards, chunk
    // k / K mod v of the k-th: 0-3 chunk 0, 4-7 chunk 1, 8-9 chunk 0, and the steady state's
    // first forward (k = 10, chunk 0) peaks at 7 of chunk 0 and 4 of chunk 1; a later one
    // holds 8 and 3. Llama 3.1 405B with the ends counted over K·v = 8 parts of 16 gives its
    // stage 0 chunks of 15 and 16 layers: 7 x 15 + 4 x 16 = 169 layers at the peak, where
    // 11 chunks at the stage's mean would be 170.5.
    void inflightWeighedByChunk()
    {
        const auto warm =
            inflightWeighted(Schedule::interleaved, 2, alivePeaks(Schedule::interleaved, 2, 2, 2),
                             {1, 10, 100, 1000});
        QCOMPARE(warm, (std::vector<double>{2 * 1 + 2 * 100, 2 * 10 + 1 * 1000}));
        const auto peaks = alivePeaks(Schedule::interleaved, 4, 8, 2);
        QVERIFY(std::find(peaks[0].begin(), peaks[0].end(), std::vector<int>{7, 4}) !=
                peaks[0].end());
        QVERIFY(std::find(peaks[0].begin(), peaks[0].end(), std::vector<int>{8, 3}) !=
                peaks[0].end());
        const auto layers =
            inflightWeighted(Schedule::interleaved, 4, peaks, {15, 16, 16, 16, 16, 16, 16, 15});
        QCOMPARE(layers[0], 169.0);
        // Equal weights: inflightMicrobatches' count, in chunks.
        const auto ones =
            inflightWeighted(Schedule::interleaved, 4, peaks, std::vector<double>(8, 1.0));
        const auto counts = inflightMicrobatches(Schedule::interleaved, 4, 8, 2);
        for (std::size_t s = 0; s < 4; ++s)
            QCOMPARE(ones[s], 2 * counts[s]);
        // The report keeps the same peak: 169 layers' activations on stage 0.
        const Report r = evaluate(
            scenario({"model=llama-3.1-405b", "tp=8", "pp=4", "dp=1", "microbatches=8",
                      "schedule=interleaved", "virtual_stages=2", "ends_in_pipeline_split=true",
                      "recompute=none", "sequence_parallel=true"}),
            io::builtinPresets());
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        ActivationConfig c = activationConfig(
            scenario({"model=llama-3.1-405b", "tp=8", "recompute=none", "sequence_parallel=true"}));
        const std::int64_t perLayer =
            layerActivationBytes(*io::builtinPresets().model("llama-3.1-405b"), c);
        QCOMPARE(r.stages[0].activationsBytes, 169 * perLayer);
    }

    // Megatron-core places the interleaved schedule's chunks as parts of the model cut v·K
    // ways, chunk c of stage s being part c·K + s (transformer_layer.py,
    // get_transformer_layer_offset), and with the embedding and the loss counted in the split
    // (arguments.py) part 0 and part v·K - 1 give one layer each to them. Llama 3.1 405B,
    // 126 layers + 2 over K = 4, v = 2: parts of 16, so stage 0 runs 15 layers in its first
    // chunk and 16 in its second, stage 3 16 and then 15: in layer-times F = layers, B = 2F.
    // A contiguous split halved would give stage 0's chunks 15.5 each.
    void interleavedChunksRunMegatronsParts()
    {
        const Scenario s = inLayerTimes(
            scenario({"model=llama-3.1-405b", "tp=8", "pp=4", "dp=1", "microbatches=8",
                      "schedule=interleaved", "virtual_stages=2", "ends_in_pipeline_split=true"}));
        EvaluateOptions options;
        options.timeline = true;
        const Report r = evaluate(s, io::builtinPresets(), options);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QVERIFY(r.timeInLayerUnits);
        QCOMPARE(r.stages[0].layers, 31);
        QCOMPARE(r.stages[1].layers, 32);
        const std::map<std::pair<int, int>, double> layers{{{0, 0}, 15}, {{0, 1}, 16}, {{1, 0}, 16},
                                                           {{1, 1}, 16}, {{2, 0}, 16}, {{2, 1}, 16},
                                                           {{3, 0}, 16}, {{3, 1}, 15}};
        int checked = 0;
        for (const ScheduleOp &o : r.timeline) {
            const double expected = layers.at({o.stage, o.chunk});
            QCOMPARE(o.end - o.start, o.kind == OpKind::forward ? expected : 2 * expected);
            ++checked;
        }
        QCOMPARE(checked, 2 * 4 * 2 * 8); // F and B of 8 micro-batches through 8 chunks
    }

    // core/evaluate.cpp: a device without a peak for the precision times the schedule in
    // layer-times, and the report says so (the timeline's axis labels units, not seconds).
    void layerTimeUnits()
    {
        Scenario s;
        const Report seconds = evaluate(s, io::builtinPresets());
        QVERIFY(seconds.ok());
        QVERIFY(!seconds.timeInLayerUnits);
        const Report units = evaluate(inLayerTimes(s), io::builtinPresets());
        QVERIFY(units.ok());
        QVERIFY(units.timeInLayerUnits);
        // 80 layers over K=4: F = 20 layer-times, B = 2F = 40; 1F1B takes (m + K - 1)(F + B)
        // = 19 x 60 (Narayanan et al. 2021 §2.2).
        QCOMPARE(units.makespanS, 19.0 * 60.0);
        QVERIFY(!units.stepTime);
    }

    // No number with the wrong unit: without a peak for the precision, or without layers to
    // time, the report says there is no timing and why, naming the device and precision.
    void noTimingSaysWhy_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("reason");
        // INT4 weights compute in BF16 (core/op_model.h), so only a missing BF16 peak is left.
        QTest::addRow("INT4 weights on a device without a BF16 or FP16 peak")
            << "mode=inference,precision=int4,device=no-peak"
            << "no-peak publishes no fp16 peak FLOPS";
        QTest::addRow("a device that publishes none") << "device=no-peak"
                                                      << "no-peak publishes no bf16 peak FLOPS";
        QTest::addRow("a size-only model") << "model=mystery"
                                           << "mystery gives only its size";
    }
    void noTimingSaysWhy()
    {
        QFETCH(QString, set);
        QFETCH(QString, reason);
        Presets presets = io::builtinPresets();
        DeviceSpec device;
        device.id = "no-peak";
        device.memoryGib = 80;
        device.devicesPerNode = 8;
        presets.devices.push_back(device);
        ModelSpec sizeOnly;
        sizeOnly.id = "mystery";
        sizeOnly.params = 7'000'000'000;
        presets.models.push_back(sizeOnly);
        const Report r = evaluate(scenario(set), presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.timeInLayerUnits);
        QVERIFY(!r.stepTime);
        QVERIFY2(r.untimedReason.starts_with(reason.toStdString()), r.untimedReason.c_str());
        QVERIFY(r.hasWarning("no-timing"));
        for (const Warning &w : r.warnings)
            if (w.code == "no-timing") {
                QVERIFY2(w.message.find(reason.toStdString()) != std::string::npos,
                         w.message.c_str());
                QVERIFY(w.message.find("layer-times") != std::string::npos);
            }
        // With a peak there is timing, and no such warning.
        const Report timed = evaluate(Scenario{}, presets);
        QVERIFY(!timed.timeInLayerUnits && !timed.hasWarning("no-timing"));
        QVERIFY(timed.untimedReason.empty());
    }

    // The report's closed form is the one of the stages as simulated, with their own F, B and
    // W: where it is given it equals the simulation, and where the stages differ there is none,
    // with the reason. Reported once with F = B = W = 1 whatever the stages took, it was 49 %
    // off for ZB-H1 with full recomputation.
    void closedFormOfTheSimulatedStages_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<bool>("holds");
        const QString quoted = QStringLiteral("model=gpt-3-175b,precision=fp8,tp=16,pp=4,dp=4,"
                                              "microbatches=64,schedule=zb-h1");
        for (const char *recompute : {"none", "selective", "full"}) {
            const QString r = QStringLiteral(",recompute=") + QLatin1String(recompute);
            QTest::addRow("ZB-H1, gpt-3-175b fp8 T=16 K=4 D=4 m=64, %s recomputation", recompute)
                << quoted + r << true;
            QTest::addRow("1F1B, 70B K=4 m=16, %s recomputation", recompute)
                << QStringLiteral("schedule=1f1b") + r << true;
            QTest::addRow("GPipe, 70B K=4 m=8, %s recomputation", recompute)
                << QStringLiteral("schedule=gpipe,microbatches=8") + r << true;
            QTest::addRow("interleaved v=2, 70B K=4 m=16, %s recomputation", recompute)
                << QStringLiteral("schedule=interleaved,virtual_stages=2") + r << true;
            QTest::addRow("ZB-H1 m=16 K=8, 405B (126 layers: 16 or 15 a stage), %s", recompute)
                << QStringLiteral("model=llama-3.1-405b,pp=8,schedule=zb-h1") + r << false;
            QTest::addRow("1F1B, 70B K=3 (80 layers: 27, 27, 26), %s recomputation", recompute)
                << QStringLiteral("pp=3") + r << false;
        }
        QTest::addRow("inference, 70B K=4 m=16")
            << QStringLiteral("mode=inference,precision=int8") << true;
        QTest::addRow("inference, 405B K=8 (126 layers: 16 or 15 a stage)")
            << QStringLiteral("model=llama-3.1-405b,mode=inference,pp=8") << false;
    }
    void closedFormOfTheSimulatedStages()
    {
        QFETCH(QString, set);
        QFETCH(bool, holds);
        const Report r = evaluate(scenario(set), io::builtinPresets());
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        if (!holds) {
            QVERIFY(!r.bubbleFractionClosedForm);
            QVERIFY(r.bubbleClosedFormMissing.find("different times") != std::string::npos);
            return;
        }
        QVERIFY2(r.bubbleFractionClosedForm, r.bubbleClosedFormMissing.c_str());
        QVERIFY(r.bubbleClosedFormMissing.empty());
        // The closed form is that of the layers' own F, B and W on equal stages with free
        // sends: the simulation of exactly those stages (docs/step_time.md).
        const Scenario sc = scenario(set);
        const bool training = sc.mode == Mode::training;
        const bool split = training && sc.schedule == Schedule::zbH1;
        double f = 0, b = 0, w = 0, rerun = 0;
        for (const LayerOp &op : r.layerOps) {
            f += op.forward.seconds;
            b += op.backward.seconds;
            w += op.weight.seconds;
            rerun += op.rerun * op.forward.seconds;
        }
        PipelineInput in;
        in.schedule = training ? sc.schedule : Schedule::gpipe;
        in.stages = sc.pp;
        in.microbatches = sc.microbatches;
        in.virtualStages = sc.virtualStages;
        const double n = r.stages.front().layers;
        in.forward.assign(std::size_t(sc.pp), n * f);
        in.backward.assign(std::size_t(sc.pp), training ? n * (b + rerun + (split ? 0 : w)) : 0);
        in.weight.assign(std::size_t(sc.pp), split ? n * w : 0);
        const double ideal = simulatePipeline(in).bubbleFraction;
        QVERIFY2(near(*r.bubbleFractionClosedForm, ideal, 1e-9),
                 qPrintable(QStringLiteral("closed %1, simulated %2")
                                .arg(*r.bubbleFractionClosedForm)
                                .arg(ideal)));
        // The end stages' embedding and LM head and the sends move the real one a little.
        QVERIFY2(std::abs(r.bubbleFraction - ideal) < 0.03,
                 qPrintable(QString::number(r.bubbleFraction)));
    }

    // The quoted case by hand: full recomputation reruns the forward before the input
    // gradient, so F = 1, B = 1 + 1, W = 1 per layer; Qi et al. (ICLR 2024, §2.1) idle
    // (K-1)(F+B-W) = 3 × 2 against m(F+B+W) = 64 × 4 of work: 6/262 = 2.29 %, the simulated
    // number, where F = B = W gave 3/195 = 1.54 %.
    void zeroBubbleWithFullRecomputation()
    {
        // K = 4, m = 64, per-layer units: F = 1, B = 2 (input gradient after the rerun), W = 1.
        PipelineInput in = uniformPipeline(Schedule::zbH1, 4, 64);
        in.backward.assign(4, 2.0);
        const ClosedFormBubble closed = closedFormBubble(in);
        QVERIFY(closed.fraction);
        QVERIFY(near(*closed.fraction, 6.0 / 262.0, 1e-12));
        QVERIFY(near(simulatePipeline(in).bubbleFraction, 6.0 / 262.0, 1e-9));
    }

    // The pipeline's own closed form: none for stages of different times, or with latency.
    void closedFormNeedsEqualStages()
    {
        PipelineInput in = uniformPipeline(Schedule::oneFOneB, 2, 2);
        QVERIFY(closedFormBubble(in).fraction);
        in.forward = {2, 1};
        in.backward = {4, 2};
        ClosedFormBubble uneven = closedFormBubble(in);
        QVERIFY(!uneven.fraction);
        QVERIFY(!uneven.missing.empty());
        PipelineInput late = uniformPipeline(Schedule::gpipe, 2, 1);
        late.p2pLatency = 0.5;
        QVERIFY(!closedFormBubble(late).fraction);
        QVERIFY(!closedFormBubble(late).missing.empty());
        // ZB-H1 with m < K: none, whatever the stages.
        const ClosedFormBubble early = closedFormBubble(uniformPipeline(Schedule::zbH1, 4, 2));
        QVERIFY(!early.fraction);
        QVERIFY(early.missing.find("micro-batches") != std::string::npos);
    }

    // README, "Limits": a timeline holds at most 2^20 blocks (K × m × v × passes). Beyond it
    // evaluate() keeps none and says why, naming the keys to lower; the rest of the report is
    // whole. The case asked for 6,291,432 blocks (1.3 GB of JSON).
    void timelineLimit_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<qint64>("blocks");
        QTest::addColumn<bool>("kept");
        QTest::addRow("issue: 405B zb-h1 K=126 m=16644, 3 passes")
            << "model=llama-3.1-405b,pp=126,microbatches=16644,schedule=zb-h1"
            << qint64(126) * 16644 * 3 << false;
        QTest::addRow("the window's largest: 405B zb-h1 K=64 m=1024")
            << "model=llama-3.1-405b,pp=64,microbatches=1024,schedule=zb-h1"
            << qint64(64) * 1024 * 3 << true;
        QTest::addRow("1F1B K=64 m=8192: 2^20, the limit")
            << "pp=64,microbatches=8192" << (qint64(1) << 20) << true;
        QTest::addRow("1F1B K=64 m=8193: one micro-batch more")
            << "pp=64,microbatches=8193" << qint64(64) * 8193 * 2 << false;
        QTest::addRow("interleaved K=4 v=4 m=32772")
            << "pp=4,schedule=interleaved,virtual_stages=4,microbatches=32772"
            << qint64(4) * 32772 * 4 * 2 << false;
        QTest::addRow("inference K=64 m=16384: forwards only, 2^20")
            << "mode=inference,precision=int8,pp=64,microbatches=16384" << (qint64(1) << 20)
            << true;
        QTest::addRow("inference K=64 m=16385")
            << "mode=inference,precision=int8,pp=64,microbatches=16385" << qint64(64) * 16385
            << false;
    }
    void timelineLimit()
    {
        QFETCH(QString, set);
        QFETCH(qint64, blocks);
        QFETCH(bool, kept);
        const Scenario s = scenario(set);
        QCOMPARE(timelineBlocks(s), blocks);
        EvaluateOptions options;
        options.timeline = true;
        const Report r = evaluate(s, io::builtinPresets(), options);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.bubbleFraction > 0 && r.makespanS > 0);
        if (kept) {
            QVERIFY(!r.timelineRefused);
            QCOMPARE(qint64(r.timeline.size()), blocks);
            return;
        }
        QVERIFY(r.timeline.empty());
        QVERIFY(r.timelineRefused);
        QCOMPARE(r.timelineRefused->key, std::string("microbatches"));
        const std::string &message = r.timelineRefused->message;
        QVERIFY2(message.find(std::to_string(blocks)) != std::string::npos, message.c_str());
        QVERIFY(message.find(std::to_string(limits::kTimelineBlocks)) != std::string::npos);
        QVERIFY(message.find("lower pp") != std::string::npos);
        if (s.schedule == Schedule::interleaved)
            QVERIFY(message.find("virtual_stages") != std::string::npos);
        QVERIFY(checkTimeline(s) == r.timelineRefused);
        // Without a timeline asked for, nothing is refused.
        QVERIFY(!evaluate(s, io::builtinPresets()).timelineRefused);
    }

    void closedFormAbsent_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("w");
        QTest::addRow("docs/DESIGN.md §3.3: interleaved needs m a multiple of K")
            << Schedule::interleaved << 4 << 6 << 1.0;
        QTest::addRow("Qi §3.1: ZB-H1 with m < K never reaches steady state")
            << Schedule::zbH1 << 4 << 2 << 1.0;
        QTest::addRow("Qi §3.1: ZB-H1 count assumes W <= F (F=B=1, W=2)")
            << Schedule::zbH1 << 4 << 8 << 2.0;
    }
    void closedFormAbsent()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(double, w);
        QVERIFY(!closedFormBubble(schedule, K, m, 2, 1.0, 1.0, w));
    }

    // Each thread keeps the op orders of its last shapes within a budget of ops: past it the
    // oldest go. Forty interleaved shapes of about 63,000 ops each pass it; each shape's
    // simulation is the same built fresh, kept or built again after it went.
    void orderCacheGivesEachShapeItsOwnOrder()
    {
        std::vector<double> first;
        const auto makespan = [](int m) {
            return simulatePipeline(uniformPipeline(Schedule::interleaved, 16, m, 2, 0.25))
                .makespan;
        };
        for (int m = 985; m <= 1024; ++m)
            first.push_back(makespan(m));
        for (int m = 1024; m >= 985; --m)
            QCOMPARE(makespan(m), first[static_cast<std::size_t>(m - 985)]);
        // Distinct shapes: a stale order would give another's makespan.
        QVERIFY(std::adjacent_find(first.begin(), first.end()) == first.end());
    }
};

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
