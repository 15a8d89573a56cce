// One device's memory through the step (core/memory_timeline.h): hand-derived steps on
// uniform pipelines, and the curve's peak against the report's stage terms.
#include "core/evaluate.h"
#include "core/memory_timeline.h"
#include "core/schedule.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <algorithm>

using namespace core;

Q_DECLARE_METATYPE(core::Schedule)
Q_DECLARE_METATYPE(core::Scenario)

namespace {

// A stage holding 100 bytes of weights and 1 of reserve, whose micro-batch keeps 10 bytes
// of activations: a total of 101 + 10 × micro-batches alive is easy to read.
StageReport stageOf(int index)
{
    StageReport st;
    st.index = index;
    st.weightsBytes = 100;
    st.reserveBytes = 1;
    st.capacityBytes = 1000;
    return st;
}

MemoryTimeline uniformTimeline(Schedule schedule, int K, int m, int stage,
                               MemoryStepSizes sizes = {.stageLayersBytes = 10})
{
    const PipelineResult pipe = simulatePipeline(uniformPipeline(schedule, K, m), true);
    sizes.freedAtWeight = splitsWeightGradients(schedule);
    sizes.chunks = chunksPerStage(schedule, 1);
    return memoryTimeline(pipe.timeline, stageOf(stage), sizes, pipe.makespan);
}

double highestMicrobatches(const MemoryTimeline &t)
{
    double peak = 0;
    for (const MemoryPoint &p : t.points)
        peak = std::max(peak, p.microbatches);
    return peak;
}

std::int64_t peakActivations(const MemoryTimeline &t)
{
    std::int64_t peak = 0;
    for (const MemoryPoint &p : t.points)
        peak = std::max(peak, p.activationsBytes);
    return peak;
}

} // namespace

class TestMemoryTimeline : public QObject
{
    Q_OBJECT

private:
    const Presets m_presets = io::builtinPresets();

private Q_SLOTS:
    // The peak count of micro-batches alive on a stage, by hand from the schedules' order.
    void peakMicrobatches_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("stage");
        QTest::addColumn<double>("peak");
        // GPipe runs every forward before the first backward (Huang et al. 2019, §2.3).
        QTest::addRow("GPipe K=2 m=4 stage 0: all 4") << Schedule::gpipe << 2 << 4 << 0 << 4.0;
        QTest::addRow("GPipe K=2 m=4 stage 1: all 4") << Schedule::gpipe << 2 << 4 << 1 << 4.0;
        QTest::addRow("GPipe K=4 m=8 stage 3: all 8") << Schedule::gpipe << 4 << 8 << 3 << 8.0;
        // 1F1B: K - s forwards of warm-up before the first backward (Narayanan et al. 2021,
        // §2.2), whatever m is beyond them.
        QTest::addRow("1F1B K=4 m=8 stage 0: K") << Schedule::oneFOneB << 4 << 8 << 0 << 4.0;
        QTest::addRow("1F1B K=4 m=8 stage 1: K-1") << Schedule::oneFOneB << 4 << 8 << 1 << 3.0;
        QTest::addRow("1F1B K=4 m=8 stage 3: 1") << Schedule::oneFOneB << 4 << 8 << 3 << 1.0;
        QTest::addRow("1F1B K=4 m=2 stage 0: m") << Schedule::oneFOneB << 4 << 2 << 0 << 2.0;
        // ZB-H1 keeps 1F1B's warm-up; activations live until W (Qi et al. 2023, §3.1).
        QTest::addRow("ZB-H1 K=4 m=8 stage 0: K") << Schedule::zbH1 << 4 << 8 << 0 << 4.0;
        // DualPipeV: PP + 1 chunks of half a stage on every device (deepseek-ai/DualPipe,
        // README), its whole backwards freeing them, its zero-bubble ones at their W.
        QTest::addRow("DualPipeV K=4 m=10 stage 1: (2K+1)/2")
            << Schedule::dualPipeV << 4 << 10 << 1 << 4.5;
        QTest::addRow("DualPipeV K=4 m=10 stage 3: (2K+1)/2")
            << Schedule::dualPipeV << 4 << 10 << 3 << 4.5;
        // DualPipe: PP + 1 = K + 1 chunks of one stage, half the device's two.
        QTest::addRow("DualPipe K=4 m=8 stage 0: (K+1)/2")
            << Schedule::dualPipe << 4 << 8 << 0 << 2.5;
        QTest::addRow("DualPipe K=8 m=20 stage 5: (K+1)/2")
            << Schedule::dualPipe << 8 << 20 << 5 << 4.5;
    }
    void peakMicrobatches()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, K);
        QFETCH(int, m);
        QFETCH(int, stage);
        QFETCH(double, peak);
        const MemoryTimeline t = uniformTimeline(schedule, K, m, stage);
        QCOMPARE(highestMicrobatches(t), peak);
        QCOMPARE(t.flatBytes, 101);
        QCOMPARE(t.points[t.peak].totalBytes, 101 + static_cast<std::int64_t>(10 * peak));
        // Nothing is alive before the first op (stage 0, and DualPipe's last stage, where its
        // reverse direction enters, start a forward of one chunk at 0) or after the last.
        const bool entry = stage == 0 || (schedule == Schedule::dualPipe && stage == K - 1);
        QCOMPARE(t.points.front().time, 0.0);
        QCOMPARE(t.points.front().totalBytes, entry ? 101 + 10 / chunksPerStage(schedule, 1) : 101);
        QCOMPARE(t.points.back().time, t.makespan);
        QCOMPARE(t.points.back().totalBytes, 101);
    }

    // GPipe K=2, m=4, F = 1, B = 2, no latency: stage 0 runs its forwards at 0, 1, 2, 3, so
    // the fourth micro-batch's activations make the peak at t = 3; stage 1's first backward
    // starts after its last forward, 1 + 4 = 5.
    void gpipeSteps()
    {
        const MemoryTimeline t = uniformTimeline(Schedule::gpipe, 2, 4, 0);
        QCOMPARE(t.points[t.peak].time, 3.0);
        // 0: one micro-batch from t = 0 (the empty state before it lasts no time).
        QCOMPARE(t.points[0].microbatches, 1.0);
        QCOMPARE(t.points[1].time, 1.0);
        QCOMPARE(t.points[1].microbatches, 2.0);
        QCOMPARE(t.points[2].time, 2.0);
        QCOMPARE(t.points[3].time, 3.0);
        QCOMPARE(t.points[3].microbatches, 4.0);
        // Then only backwards, each freeing one: 3, 2, 1, 0.
        for (int i = 4; i < 8; ++i)
            QCOMPARE(t.points[std::size_t(i)].microbatches, 7.0 - i);
        const MemoryTimeline last = uniformTimeline(Schedule::gpipe, 2, 4, 1);
        QCOMPARE(last.points[1].time, 1.0); // stage 1's first forward starts when stage 0's ends
    }

    // Full recomputation rebuilds one layer during each B on top of what is kept
    // (docs/activations.md): 1F1B K=2, m=2, stage 0 runs F0 F1 B0 B1; during B0 two
    // micro-batches are kept and a 3-byte layer is rebuilt, 2 × 10 + 3.
    void recomputeDuringBackward()
    {
        const MemoryTimeline t =
            uniformTimeline(Schedule::oneFOneB, 2, 2, 0,
                            MemoryStepSizes{.stageLayersBytes = 10, .recomputeBytes = 3});
        QCOMPARE(peakActivations(t), 23);
        QCOMPARE(t.points[t.peak].totalBytes, 101 + 23);
        // Stage 1 runs F0 1-2, B0 2-4, F1 4-5, B1 5-7, so stage 0 runs B0 4-6 and B1 7-9:
        // after B0 one micro-batch is kept, during B1 it and a rebuilt layer, then nothing.
        std::vector<std::int64_t> values;
        for (const MemoryPoint &p : t.points)
            values.push_back(p.activationsBytes);
        QCOMPARE(values, (std::vector<std::int64_t>{10, 20, 23, 10, 13, 0}));
    }

    // The last stage keeps each micro-batch's logits from the end of its forward to the end
    // of the step (pytorch/pytorch#159251): GPipe K=2, m=4, stage 1 runs its forwards from
    // 1 to 5 (F = 1), so 5 bytes of logits each step up at 2, 3, 4 and 5 and stay.
    void cachedOutputsStepUp()
    {
        const MemoryTimeline t =
            uniformTimeline(Schedule::gpipe, 2, 4, 1,
                            MemoryStepSizes{.stageLayersBytes = 10, .cachedOutputBytes = 5});
        for (int k = 1; k <= 4; ++k) {
            const auto at = std::find_if(t.points.begin(), t.points.end(),
                                         [&](const auto &p) { return p.time == 1.0 + k; });
            QVERIFY(at != t.points.end());
            QCOMPARE(at->cachedOutputsBytes, 5 * k);
        }
        QCOMPARE(t.points.back().cachedOutputsBytes, 20);
        QCOMPARE(t.points.back().activationsBytes, 0);
        // The peak: four micro-batches kept and four cached, at the first backward.
        QCOMPARE(t.points[t.peak].totalBytes, 101 + 40 + 20);
    }

    // Interleaved 1F1B keeps chunks of 1/v of the stage's layers: Megatron-LM's warm-up
    // on stage 0 at K = 4, v = 2 is 2(K - 1) + (v - 1)K + 1 = 11 chunks, 5.5 micro-batches
    // (docs/activations.md).
    void interleavedChunks()
    {
        const PipelineResult pipe =
            simulatePipeline(uniformPipeline(Schedule::interleaved, 4, 8, 2), true);
        const MemoryTimeline t =
            memoryTimeline(pipe.timeline, stageOf(0),
                           MemoryStepSizes{.stageLayersBytes = 10, .chunks = 2}, pipe.makespan);
        QCOMPARE(highestMicrobatches(t), 5.5);
        QCOMPARE(peakActivations(t), 55);
    }

    // For real scenarios the curve's highest activations are the report's activations term
    // to the byte, on every stage, and where the peaks of activations and cached outputs
    // meet (one chunk per stage) its highest total is the report's stage total.
    void peakIsTheReport_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::addColumn<bool>("totalsMeet");
        QTest::addRow("default: 70B 1F1B K=4 m=16, selective, cached outputs")
            << scenario({}) << true;
        QTest::addRow("GPipe K=4 m=8") << scenario({"schedule=gpipe", "microbatches=8"}) << true;
        QTest::addRow("1F1B full recomputation")
            << scenario({"recompute=full", "microbatches=8"}) << true;
        QTest::addRow("GPipe full recomputation, no cached outputs")
            << scenario({"schedule=gpipe", "recompute=full", "cache_outputs=false"}) << true;
        QTest::addRow("ZB-H1 K=4 m=8") << scenario({"schedule=zb-h1", "microbatches=8"}) << true;
        QTest::addRow("8B K=2 m=3 no recomputation")
            << scenario({"model=llama-3.1-8b", "pp=2", "tp=1", "microbatches=3", "recompute=none"})
            << true;
        // Interleaved: the last stage's logits are all kept only after the peak of its chunks.
        QTest::addRow("interleaved v=2 K=4 m=8")
            << scenario({"schedule=interleaved", "virtual_stages=2", "microbatches=8"}) << false;
        QTest::addRow("interleaved v=2, full recomputation, no cached outputs")
            << scenario({"schedule=interleaved", "virtual_stages=2", "microbatches=8",
                         "recompute=full", "cache_outputs=false"})
            << true;
        // DualPipeV: stage 0 keeps the logits, all of them only after its chunks' peak.
        QTest::addRow("DualPipeV K=4 m=16, logits on stage 0")
            << scenario({"schedule=dualpipev"}) << false;
        QTest::addRow("DualPipeV K=4 m=8, full recomputation, no cached outputs")
            << scenario({"schedule=dualpipev", "microbatches=8", "recompute=full",
                         "cache_outputs=false"})
            << true;
        // DualPipe: each end stage keeps the logits of the half whose direction ends there.
        QTest::addRow("DualPipe K=4 m=16, logits on both end stages")
            << scenario({"schedule=dualpipe"}) << false;
        QTest::addRow("DualPipe K=4 m=8, full recomputation, no cached outputs")
            << scenario(
                   {"schedule=dualpipe", "microbatches=8", "recompute=full", "cache_outputs=false"})
            << true;
        // Chunks that keep different bytes: the ends counted in an interleaved split, a
        // pipeline_layout, DualPipeV's uneven 2K chunks (80 layers over 6 chunks). Interleaved,
        // the chunks' weighted peak comes after another F than the head chunk's loss's backward.
        QTest::addRow("405B interleaved v=2 with the ends counted, chunks of 15 and 16 layers")
            << scenario({"model=llama-3.1-405b", "pp=4", "dp=1", "schedule=interleaved",
                         "virtual_stages=2", "microbatches=8", "ends_in_pipeline_split=true",
                         "cache_outputs=false"})
            << false;
        QTest::addRow("interleaved v=2, a layout of uneven chunks")
            << scenario({"schedule=interleaved", "virtual_stages=2", "microbatches=8",
                         "pipeline_layout=Et*4|(t*12|)*6,t*4L", "cache_outputs=false"})
            << false;
        QTest::addRow("DualPipeV K=3, chunks of 14 and 13 layers")
            << scenario({"schedule=dualpipev", "pp=3", "microbatches=12", "cache_outputs=false"})
            << true;
        // ep_overlap: a pair keeps one layer more than its two ops in turn, in the curve as in
        // the stage's term.
        const char *qwen[] = {"model=qwen3-30b-a3b",
                              "framework=megatron",
                              "device=b200",
                              "seq_len=4096",
                              "tp=1",
                              "ep=8",
                              "ep_overlap=true",
                              "recompute=none",
                              "cache_outputs=false"};
        QTest::addRow("ep_overlap, one stage")
            << scenario({qwen[0], qwen[1], qwen[2], qwen[3], qwen[4], qwen[5], qwen[6], qwen[7],
                         qwen[8], "pp=1", "dp=8", "microbatches=4"})
            << true;
        // offload_layers: the device's sets of one micro-batch at a time (docs/activations.md,
        // "Offloaded layers").
        QTest::addRow("one stage, 20 of 80 layers offloaded")
            << scenario({"pp=1", "tp=8", "dp=1", "microbatches=4", "recompute=none",
                         "offload_layers=20", "cache_outputs=false"})
            << true;
        QTest::addRow("ep_overlap, interleaved v=2 K=2")
            << scenario({qwen[0], qwen[1], qwen[2], qwen[3], qwen[4], qwen[5], qwen[6], qwen[7],
                         qwen[8], "pp=2", "dp=8", "microbatches=8", "schedule=interleaved",
                         "virtual_stages=2"})
            << true;
    }
    void peakIsTheReport()
    {
        QFETCH(Scenario, scenario);
        QFETCH(bool, totalsMeet);
        EvaluateOptions options;
        options.timeline = true;
        const Report r = evaluate(scenario, m_presets, options);
        QVERIFY2(r.ok(), settingsLine(scenario).toUtf8());
        QVERIFY(!r.timeline.empty());
        for (const StageReport &st : r.stages) {
            const MemoryTimeline t = memoryTimeline(scenario, m_presets, r, st.index);
            QVERIFY(!t.points.empty());
            QCOMPARE(peakActivations(t), st.activationsBytes);
            QCOMPARE(highestMicrobatches(t), st.inflightMicrobatches);
            QCOMPARE(t.points.back().cachedOutputsBytes, st.cachedOutputsBytes);
            // The loss's buffers at their peak: the report's term, on the head's stage only.
            std::int64_t loss = 0;
            for (const MemoryPoint &p : t.points)
                loss = std::max(loss, p.lossBytes);
            QCOMPARE(loss, st.lossBytes);
            QCOMPARE(st.lossBytes > 0, holdsHead(scenario.schedule, scenario.pp, st.index));
            QCOMPARE(t.flatBytes + st.activationsBytes + st.cachedOutputsBytes + st.lossBytes,
                     st.totalBytes);
            if (totalsMeet)
                QCOMPARE(t.points[t.peak].totalBytes, st.totalBytes);
            else
                QVERIFY(t.points[t.peak].totalBytes <= st.totalBytes);
        }
    }

    void highestStageIsTheLargestTotal()
    {
        Report r;
        for (std::int64_t total : {5, 9, 9, 7}) {
            StageReport st;
            st.index = static_cast<int>(r.stages.size());
            st.totalBytes = total;
            r.stages.push_back(st);
        }
        QCOMPARE(highestStage(r), 1);
    }
};

QTEST_APPLESS_MAIN(TestMemoryTimeline)
#include "tst_memory_timeline.moc"
