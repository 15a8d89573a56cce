// The schedule timeline and its teaching mode (docs/DESIGN.md §5),
// through real widgets offscreen (docs/DESIGN.md §6).
#include "core/schedule.h"
#include "io/presets_io.h"
#include "test_scenarios.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "widget_helpers.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QToolTip>
#include <algorithm>
#include <map>
#include <tuple>

using namespace ui;
using core::OpKind;

class TestTimeline : public QObject
{
    Q_OBJECT

private:
    // The panel as the window's timeline tab fills it: the document's report, with the blocks
    // the document evaluates while a timeline is on screen.
    static void fill(TimelinePanel &panel, ScenarioDocument &document)
    {
        document.setTimelineWanted(true);
        const core::Scenario &s = document.lastValidScenario();
        panel.setReport(document.lastValidReport(),
                        s.mode == core::Mode::training ? s.schedule : core::Schedule::gpipe);
    }

    static int count(const std::vector<core::ScheduleOp> &ops, OpKind kind)
    {
        return int(
            std::count_if(ops.begin(), ops.end(), [kind](auto &o) { return o.kind == kind; }));
    }

    // A schedule of uniform stages (F = 1, B = 2 layer-times), as the simulation lays it out.
    static core::Report uniformReport(core::Schedule schedule, int stages, int microbatches)
    {
        const core::PipelineInput input =
            core::uniformPipeline(schedule, stages, microbatches, 1, 1.0);
        const core::PipelineResult result = core::simulatePipeline(input, true);
        core::Report r;
        r.pp = stages;
        r.makespanS = result.makespan;
        r.timeline = result.timeline;
        r.timeInLayerUnits = true;
        return r;
    }

    // What the tooltip says at `at`, as the application asks for it after a hover.
    static QString hover(TimelineChart *chart, QPoint at)
    {
        QHelpEvent help(QEvent::ToolTip, at, chart->mapToGlobal(at));
        QApplication::sendEvent(chart, &help);
        return QToolTip::isVisible() ? QToolTip::text() : QString();
    }

    // A point inside the block, away from its label: a quarter into its width, on its row.
    static QPoint inside(const TimelineChart *chart, const core::ScheduleOp &op)
    {
        const QRect plot = chart->plotArea();
        const double rowHeight = double(plot.height()) / chart->stageCount();
        const double span = chart->visibleEnd() - chart->visibleStart();
        const double x0 = plot.left() + (op.start - chart->visibleStart()) / span * plot.width();
        const double x1 = plot.left() + (op.end - chart->visibleStart()) / span * plot.width();
        return QPoint(int(x0 + (x1 - x0) / 4), int(plot.top() + (op.stage + 0.3) * rowHeight));
    }

    static void showPanel(TimelinePanel &panel, int width = 1000, int height = 500)
    {
        panel.resize(width, height);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
    }

    // Hovers the block of `schedule` on K = 4, m = 8 that the row names (stage, kind, chunk,
    // micro-batch) and checks what its tooltip says and does not.
    static void hoverOnFourStagesOfEight(const char *schedule)
    {
        QFETCH(int, stage);
        QFETCH(int, kind);
        QFETCH(int, chunk);
        QFETCH(int, microbatch);
        QFETCH(QStringList, says);
        QFETCH(QStringList, saysNot);
        ScenarioDocument document(io::builtinPresets());
        for (const char *setting : {"pp=4", "microbatches=8"})
            QVERIFY(document.setField(QString::fromLatin1(setting).section(u'=', 0, 0),
                                      QString::fromLatin1(setting).section(u'=', 1)));
        QVERIFY(document.setField(QStringLiteral("schedule"), QString::fromLatin1(schedule)));
        document.flush();
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        QCOMPARE(chart->chunkCount(), 2);
        const auto &blocks = chart->blocks();
        const auto it = std::find_if(blocks.begin(), blocks.end(), [&](auto &o) {
            return o.stage == stage && int(o.kind) == kind && o.chunk == chunk &&
                   o.microbatch == microbatch;
        });
        QVERIFY(it != blocks.end());
        const QString text = hover(chart, inside(chart, *it));
        QCOMPARE(chart->blockAt(inside(chart, *it)), &*it);
        QVERIFY2(
            text.contains(QStringLiteral("Stage %1, micro-batch %2").arg(stage).arg(microbatch)),
            qPrintable(text));
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text));
        for (const QString &part : saysNot)
            QVERIFY2(!text.contains(part), qPrintable(text));
    }

private Q_SLOTS:
    // Each block drawn is one op of the report's simulated schedule.
    void blocksMatchTheReport()
    {
        ScenarioDocument document(io::builtinPresets());
        setAndEvaluate(document, "pp", "4");
        setAndEvaluate(document, "microbatches", "8");
        setAndEvaluate(document, "schedule", "1f1b");
        TimelinePanel panel;
        fill(panel, document);
        panel.resize(1000, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));

        const TimelineChart *chart = panel.chart();
        const core::Report &r = document.lastValidReport();
        QCOMPARE(chart->stageCount(), 4);
        const std::vector<core::ScheduleOp> drawn = chart->visibleBlocks();
        // 1F1B: K = 4 stages × m = 8 micro-batches × (F, B).
        QCOMPARE(int(drawn.size()), 4 * 8 * 2);
        QCOMPARE(drawn.size(), r.timeline.size());
        std::map<std::tuple<int, int, int>, core::ScheduleOp> expected;
        for (const auto &op : r.timeline)
            expected[{op.stage, int(op.kind), op.microbatch}] = op;
        QCOMPARE(int(expected.size()), 64);
        for (const auto &op : drawn) {
            const auto it = expected.find({op.stage, int(op.kind), op.microbatch});
            QVERIFY(it != expected.end());
            QCOMPARE(op.start, it->second.start);
            QCOMPARE(op.end, it->second.end);
            QCOMPARE(op.chunk, it->second.chunk);
        }
        QCOMPARE(count(drawn, OpKind::weight), 0);
        // At this size every block is wide enough to be drawn on its own.
        panel.grab();
        QCOMPARE(chart->aggregatedColumns(), 0);
    }

    // Shift+wheel pans by a tenth of the range a notch, as a sideways wheel does; the plain
    // wheel still zooms (issue #18 §2).
    void shiftWheelPans()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel);
        TimelineChart *chart = panel.chart();
        chart->setVisibleRange(0, chart->makespan() / 4);
        const double span = chart->visibleEnd() - chart->visibleStart();
        const QPoint middle = chart->plotArea().center();

        QWheelEvent down(middle, chart->mapToGlobal(middle), QPoint(), QPoint(0, -120),
                         Qt::NoButton, Qt::ShiftModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart, &down);
        QVERIFY(std::abs(chart->visibleStart() - span / 10) < 1e-9 * span);
        QVERIFY(std::abs(chart->visibleEnd() - chart->visibleStart() - span) < 1e-9 * span);

        QWheelEvent sideways(middle, chart->mapToGlobal(middle), QPoint(), QPoint(120, 0),
                             Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart, &sideways);
        QVERIFY(std::abs(chart->visibleStart()) < 1e-9 * span);
        QVERIFY(std::abs(chart->visibleEnd() - chart->visibleStart() - span) < 1e-9 * span);
    }

    // Dragging over the time axis (or anywhere with the right button) zooms to the range
    // dragged over; a click is no range, and Escape cancels the drag.
    void dragOnTheAxisZoomsToTheRange_data()
    {
        QTest::addColumn<bool>("rightButton");
        QTest::addRow("left button on the axis") << false;
        QTest::addRow("right button on the rows") << true;
    }
    void dragOnTheAxisZoomsToTheRange()
    {
        QFETCH(bool, rightButton);
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel);
        TimelineChart *chart = panel.chart();
        const double makespan = chart->makespan();
        const QRect plot = chart->plotArea();
        const int y = rightButton ? plot.center().y() : plot.bottom() + 10;
        const Qt::MouseButton button = rightButton ? Qt::RightButton : Qt::LeftButton;
        const QPoint from(plot.left() + plot.width() / 4, y);
        const QPoint to(plot.left() + plot.width() / 2, y);

        QTest::mousePress(chart, button, {}, from);
        QVERIFY(chart->isSelectingRange());
        QMouseEvent move(QEvent::MouseMove, to, chart->mapToGlobal(to), Qt::NoButton, button,
                         Qt::NoModifier);
        QApplication::sendEvent(chart, &move);
        QVERIFY(!chart->grab().isNull()); // the band over the range, and the view unchanged
        QCOMPARE(chart->visibleEnd(), makespan);
        QTest::mouseRelease(chart, button, {}, to);
        QVERIFY(!chart->isSelectingRange());
        const auto timeAt = [&](QPoint at) {
            return double(at.x() - plot.left()) / plot.width() * makespan;
        };
        QVERIFY(std::abs(chart->visibleStart() - timeAt(from)) < 1e-9 * makespan);
        QVERIFY(std::abs(chart->visibleEnd() - timeAt(to)) < 1e-9 * makespan);
        // The axis says what part of the step is shown.
        QVERIFY2(chart->axisTitle().contains(QStringLiteral("of")) &&
                     chart->axisTitle().contains(QStringLiteral("Home")),
                 qPrintable(chart->axisTitle()));

        // A click is no range.
        const double start = chart->visibleStart();
        QTest::mouseClick(chart, button, {}, from);
        QCOMPARE(chart->visibleStart(), start);
        // Escape drops a range being dragged.
        QTest::mousePress(chart, button, {}, from);
        QApplication::sendEvent(chart, &move);
        chart->setFocus();
        QTest::keyClick(chart, Qt::Key_Escape);
        QVERIFY(!chart->isSelectingRange());
        QTest::mouseRelease(chart, button, {}, to);
        QCOMPARE(chart->visibleStart(), start);

        QTest::keyClick(chart, Qt::Key_Home);
        QCOMPARE(chart->axisTitle(), QStringLiteral("Time (s)"));
    }

    // Away from a block, the chart's tooltip says how to zoom and pan.
    void tooltipSaysHowToZoom()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel);
        TimelineChart *chart = panel.chart();
        const QRect plot = chart->plotArea();
        const QString text = hover(chart, QPoint(plot.center().x(), plot.bottom() + 10));
        for (const char *says : {"wheel", "Shift+wheel", "time axis", "right button", "Home"})
            QVERIFY2(text.contains(QLatin1String(says)), qPrintable(text));
        QCOMPARE(text, TimelineChart::controlsHelp());
    }

    // Hovering a block names it: stage, micro-batch, phase, chunk, start, duration and send,
    // with units (issue #18 §2).
    void hoverNamesTheBlock_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("phase");
        QTest::addRow("1f1b, B with its send")
            << QStringList{"pp=4", "microbatches=8", "schedule=1f1b"} << int(OpKind::backward)
            << "B, backward";
        QTest::addRow("interleaved, F of a chunk")
            << QStringList{"pp=4", "microbatches=8", "schedule=interleaved", "virtual_stages=2"}
            << int(OpKind::forward) << "F, forward";
        QTest::addRow("zb-h1, W sends nothing")
            << QStringList{"pp=4", "microbatches=8", "schedule=zb-h1"} << int(OpKind::weight)
            << "W, weight gradient";
    }
    void hoverNamesTheBlock()
    {
        QFETCH(QStringList, settings);
        QFETCH(int, kind);
        QFETCH(QString, phase);
        ScenarioDocument document(io::builtinPresets());
        for (const QString &setting : settings)
            QVERIFY(document.setField(setting.section(u'=', 0, 0), setting.section(u'=', 1)));
        document.flush();
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        // The last such block of stage 1 (a chunk 1 when interleaved), alone in view.
        const auto &blocks = chart->blocks();
        const auto it = std::find_if(blocks.rbegin(), blocks.rend(),
                                     [&](auto &o) { return o.stage == 1 && int(o.kind) == kind; });
        QVERIFY(it != blocks.rend());
        const core::ScheduleOp op = *it;
        const QString text = hover(chart, inside(chart, op));
        QVERIFY2(text.contains(phase), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Stage 1, micro-batch %1").arg(op.microbatch)),
                 qPrintable(text));
        QVERIFY2(text.contains(TimelineChart::formatTime(op.start, false, 6)), qPrintable(text));
        QVERIFY2(text.contains(TimelineChart::formatTime(op.end - op.start, false)),
                 qPrintable(text));
        const QString unit = TimelineChart::formatTime(op.end - op.start, false).section(u' ', 1);
        QVERIFY2(unit == QStringLiteral("s") || unit == QStringLiteral("ms") ||
                     unit == QStringLiteral("µs"),
                 qPrintable(unit));
        if (chart->chunkCount() > 1)
            QVERIFY2(text.contains(QStringLiteral("chunk %1 of 2").arg(op.chunk)),
                     qPrintable(text));
        else
            QVERIFY(!text.contains(QStringLiteral("chunk")));
        if (op.send > 0)
            QVERIFY2(text.contains(TimelineChart::formatTime(op.send, false)), qPrintable(text));
        else
            QVERIFY2(text.contains(QStringLiteral("No send")), qPrintable(text));
        QCOMPARE(chart->blockAt(inside(chart, op)), &*it);
    }

    // DualPipeV's blocks name their chunk as the V's way out or back, a whole B as "B with W",
    // and the pair each runs in. The blocks, by hand from deepseek-ai/DualPipe's dualpipev.py
    // for K = 4, m = 8: rank 1 runs nF0 ×4, nF0F1 ×2, nB1W1F1 ×2 (zero-bubble B1 0 and 1), then
    // nF0B1F1B0 ×2, its first pair F0 6 with the whole B1 2; nB1F1B0 ×2 starts with B1 4,
    // whole and alone. Rank 3 (the last) runs its first B1 (micro-batch 0) whole but apart:
    // "We don't overlap these two chunks". Chunk 0 of stage s is virtual stage s, chunk 1 is
    // 2K − 1 − s; an F sends to the next virtual stage, a B to the one before, none where
    // both are on one device (stage K − 1, where the V turns), and a W sends nothing.
    void hoverNamesDualPipeVsChunksAndPairs_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<int>("microbatch");
        QTest::addColumn<QStringList>("says");
        QTest::addColumn<QStringList>("saysNot");
        QTest::addRow("stage 1, F 6 on the way out, paired with a whole B")
            << 1 << int(OpKind::forward) << 0 << 6
            << QStringList{"F, forward", "chunk 0 of 2, the V's way out (virtual stage 1 of 8)",
                           "Paired with the B with W of micro-batch 2, chunk 1",
                           "Send of activations to stage 2"}
            << QStringList{"way back"};
        QTest::addRow("stage 1, its partner: the whole B 2 on the way back")
            << 1 << int(OpKind::backward) << 1 << 2
            << QStringList{"B with W, whole backward",
                           "chunk 1 of 2, the V's way back (virtual stage 6 of 8)",
                           "Paired with the F of micro-batch 6, chunk 0",
                           "Send of gradients to stage 2"}
            << QStringList{"way out"};
        QTest::addRow("stage 1, zero-bubble B 0, its W later")
            << 1 << int(OpKind::backward) << 1 << 0
            << QStringList{"B, backward (input gradient)", "the V's way back",
                           "Send of gradients to stage 2"}
            << QStringList{"B with W", "Paired"};
        QTest::addRow("stage 1, the W of that B")
            << 1 << int(OpKind::weight) << 1 << 0
            << QStringList{"W, weight gradient", "chunk 1 of 2", "No send"}
            << QStringList{"Paired"};
        QTest::addRow("stage 1, whole B 4, alone")
            << 1 << int(OpKind::backward) << 1 << 4 << QStringList{"B with W"}
            << QStringList{"Paired"};
        QTest::addRow("stage 3, its first whole B runs apart")
            << 3 << int(OpKind::backward) << 1 << 0
            << QStringList{"B with W", "chunk 1 of 2, the V's way back (virtual stage 4 of 8)",
                           "No send"}
            << QStringList{"Paired"};
    }
    void hoverNamesDualPipeVsChunksAndPairs() { hoverOnFourStagesOfEight("dualpipev"); }

    // DualPipe's blocks name their direction, a whole B as "B with W", and the pair each runs
    // in; the reverse direction's micro-batches are numbered m/2..m-1, as dualpipe.py
    // scatters each end's half. The blocks, by hand from deepseek-ai/DualPipe's dualpipe.py
    // for K = 4, m = 8 (4 each way): rank 0 (half_rank 0, phase 0 the forward direction) runs
    // nF0 ×2 (F 0, 1), nF0F1 ×1 (F 2, F 4), nB1W1F1 ×1 (zero-bubble B 4, its W, F 5), the main
    // step once: the pairs (F 3, whole B 5) and (F 6, whole B 0); nB1F1B0 ×1: whole B 6
    // alone, then (F 7, whole B 1); nB1B0: whole B 7, zero-bubble B 2. Rank 3 runs the same
    // with the directions swapped, entering the reverse one with F 4; rank 1, a middle rank,
    // runs its main step's first F 2 and B 4 apart, the B whole. Device s runs the model's
    // stage s going forward and its stage K − 1 − s in reverse; an F sends on in its
    // direction and a B back, none at either end of a direction.
    void hoverNamesDualPipesDirectionsAndPairs_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<int>("microbatch");
        QTest::addColumn<QStringList>("says");
        QTest::addColumn<QStringList>("saysNot");
        QTest::addRow("stage 0, F 3 going forward, paired with a whole B of the reverse")
            << 0 << int(OpKind::forward) << 0 << 3
            << QStringList{"F, forward",
                           "forward direction (stage 0 → 3), the model's stage 0 of 4",
                           "Paired with the B with W of micro-batch 5, reverse direction",
                           "Send of activations to stage 1"}
            << QStringList{"reverse direction (", "chunk"};
        QTest::addRow("stage 0, its partner: the whole B 5 of the reverse direction")
            << 0 << int(OpKind::backward) << 1 << 5
            << QStringList{"B with W, whole backward",
                           "reverse direction (stage 3 → 0), the model's stage 3 of 4",
                           "Paired with the F of micro-batch 3, forward direction",
                           "Send of gradients to stage 1"}
            << QStringList{"forward direction ("};
        QTest::addRow("stage 0, zero-bubble B 4, its W later")
            << 0 << int(OpKind::backward) << 1 << 4
            << QStringList{"B, backward (input gradient)", "reverse direction",
                           "Send of gradients to stage 1"}
            << QStringList{"B with W", "Paired"};
        QTest::addRow("stage 0, whole B 6, alone")
            << 0 << int(OpKind::backward) << 1 << 6 << QStringList{"B with W"}
            << QStringList{"Paired"};
        QTest::addRow("stage 3, F 4 entering the reverse direction")
            << 3 << int(OpKind::forward) << 1 << 4
            << QStringList{"reverse direction (stage 3 → 0), the model's stage 0 of 4",
                           "Send of activations to stage 2"}
            << QStringList{"Paired"};
        QTest::addRow("stage 3, F 0 where the forward direction ends: no send")
            << 3 << int(OpKind::forward) << 0 << 0
            << QStringList{"forward direction (stage 0 → 3), the model's stage 3 of 4", "No send"}
            << QStringList{"Paired"};
        QTest::addRow("stage 1, the middle: its first whole B runs apart")
            << 1 << int(OpKind::backward) << 1 << 4
            << QStringList{"B with W", "reverse direction (stage 3 → 0), the model's stage 2",
                           "Send of gradients to stage 2"}
            << QStringList{"Paired"};
    }
    void hoverNamesDualPipesDirectionsAndPairs() { hoverOnFourStagesOfEight("dualpipe"); }

    // With equal stages and free sends DualPipeV idles (PP/2 − 1)(F&B + B − 3W) a stage
    // (deepseek-ai/DualPipe, README, "Pipeline Bubbles and Memory Usage Comparison"; PP = 2K
    // chunks). Here a stage's F = B = W = 1 (core::uniformPipeline), a chunk's F = B = W = 1/2:
    // F&B = 3/2, a whole B = 1, 3W = 3/2, so K − 1 idle on every stage, beside m × 3 busy.
    // DualPipe idles the same row's (PP/2 − 1)(F&B + B − 3W) with PP = K devices, a chunk one
    // of a device's two stages, F = B = W = 1/2 likewise: K/2 − 1 idle, and each micro-batch
    // passes one chunk of a device, m × 3/2 busy; 8 devices and 20 micro-batches are the
    // README's figure.
    void dualPipesIdleTheReadmesBubble_data()
    {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<double>("idle");
        QTest::addColumn<double>("makespan");
        const int v = int(core::Schedule::dualPipeV), d = int(core::Schedule::dualPipe);
        QTest::addRow("DualPipeV, K=4, m=8") << v << 4 << 8 << 3.0 << 8 * 3.0 + 3.0;
        QTest::addRow("DualPipeV, K=4, m=12") << v << 4 << 12 << 3.0 << 12 * 3.0 + 3.0;
        QTest::addRow("DualPipeV, K=2, m=4") << v << 2 << 4 << 1.0 << 4 * 3.0 + 1.0;
        QTest::addRow("DualPipeV, K=8, m=16") << v << 8 << 16 << 7.0 << 16 * 3.0 + 7.0;
        QTest::addRow("DualPipe, K=4, m=8") << d << 4 << 8 << 1.0 << 8 * 1.5 + 1.0;
        QTest::addRow("DualPipe, K=4, m=12") << d << 4 << 12 << 1.0 << 12 * 1.5 + 1.0;
        QTest::addRow("DualPipe, K=2, m=4: no bubble") << d << 2 << 4 << 0.0 << 4 * 1.5;
        QTest::addRow("DualPipe, K=8, m=16") << d << 8 << 16 << 3.0 << 16 * 1.5 + 3.0;
        QTest::addRow("DualPipe, the README's figure") << d << 8 << 20 << 3.0 << 20 * 1.5 + 3.0;
    }
    void dualPipesIdleTheReadmesBubble()
    {
        QFETCH(int, schedule);
        QFETCH(int, stages);
        QFETCH(int, microbatches);
        QFETCH(double, idle);
        QFETCH(double, makespan);
        TimelineChart chart;
        chart.resize(1280, 400);
        const auto ran = core::Schedule(schedule);
        chart.setReport(uniformReport(ran, stages, microbatches), ran);
        QCOMPARE(chart.stageCount(), stages);
        QCOMPARE(chart.chunkCount(), 2);
        QVERIFY(std::abs(chart.makespan() - makespan) < 1e-9);
        std::vector<double> busy(std::size_t(stages), 0.0);
        for (const auto &op : chart.blocks())
            busy[std::size_t(op.stage)] += op.end - op.start;
        for (int s = 0; s < stages; ++s)
            QVERIFY2(std::abs(makespan - busy[std::size_t(s)] - idle) < 1e-9,
                     qPrintable(QStringLiteral("stage %1: %2 busy of %3")
                                    .arg(s)
                                    .arg(busy[std::size_t(s)])
                                    .arg(makespan)));
        QVERIFY(std::abs(chart.bubbleSoFar() - idle / makespan) < 1e-9);
    }

    // An untimed schedule (teaching mode's F = 1, B = 2) counts in layer-times.
    void hoverInLayerTimesWhenUntimed()
    {
        TimelineChart chart;
        chart.resize(900, 300);
        chart.setReport(uniformReport(core::Schedule::oneFOneB, 4, 4));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const core::ScheduleOp &op = chart.blocks().front();
        const QString text = hover(&chart, inside(&chart, op));
        QVERIFY2(text.contains(QStringLiteral("duration %1 layer-times")
                                   .arg(op.end - op.start == 1 ? QStringLiteral("1.000")
                                                               : QStringLiteral("2.000"))),
                 qPrintable(text));
        QVERIFY(chart.axisTitle().contains(QStringLiteral("layer-time")));
    }

    // Chunks are told apart by shade: each block drawn in its chunk's shade of its phase's
    // colour, and the legend has an entry per chunk. DualPipeV has two chunks a stage, the
    // V's way out and back; DualPipe two, its stage of each direction.
    void chunksHaveTheirOwnShade_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addRow("interleaved, v=2") << "interleaved";
        QTest::addRow("dualpipev") << "dualpipev";
        QTest::addRow("dualpipe") << "dualpipe";
    }
    void chunksHaveTheirOwnShade()
    {
        QFETCH(QString, schedule);
        ScenarioDocument document(io::builtinPresets());
        setAndEvaluate(document, "pp", "4");
        setAndEvaluate(document, "microbatches", "8");
        setAndEvaluate(document, "schedule", qPrintable(schedule));
        setAndEvaluate(document, "virtual_stages", "2");
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        QCOMPARE(chart->chunkCount(), 2);
        const QImage image = chart->grab().toImage();
        const QRect plot = chart->plotArea();
        for (OpKind kind : {OpKind::forward, OpKind::backward}) {
            QVERIFY(chart->blockColor(kind, 0) != chart->blockColor(kind, 1));
            for (int chunk = 0; chunk < 2; ++chunk) {
                const QColor shade = chart->blockColor(kind, chunk);
                // A pixel of that colour in the legend, above the rows...
                bool inLegend = false;
                for (int y = 0; y < plot.top() && !inLegend; ++y)
                    for (int x = 0; x < image.width() && !inLegend; ++x)
                        inLegend = image.pixelColor(x, y) == shade;
                QVERIFY2(inLegend, qPrintable(shade.name()));
            }
        }
        // ...and each block's first pixels in its shade (B is hatched: F is plain).
        const qreal dpr = image.devicePixelRatio();
        for (const auto &op : chart->blocks()) {
            if (op.kind != OpKind::forward || op.stage != 2)
                continue;
            const QPoint at = inside(chart, op);
            QCOMPARE(image.pixelColor(QPoint(int(at.x() * dpr), int(at.y() * dpr))),
                     chart->blockColor(op.kind, op.chunk));
        }
    }

    // The legend names each chunk as its schedule runs it: the interleaved schedule's by
    // number, DualPipeV's as the V's way out and back (dualpipev.py), DualPipe's as its two
    // directions, each entering at its own end (dualpipe.py); briefly where the full names do
    // not fit.
    void legendNamesTheChunks_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QStringList>("full");
        QTest::addColumn<QStringList>("brief");
        QTest::addRow("interleaved, v=2")
            << "interleaved" << QStringList{"chunk 0", "chunk 1"} << QStringList{"0", "1"};
        QTest::addRow("dualpipev")
            << "dualpipev" << QStringList{"chunk 0, the V's way out", "chunk 1, the V's way back"}
            << QStringList{"0 out", "1 back"};
        QTest::addRow("dualpipe") << "dualpipe"
                                  << QStringList{"forward direction, from stage 0",
                                                 "reverse direction, from stage 3"}
                                  << QStringList{"forward dir.", "reverse dir."};
    }
    void legendNamesTheChunks()
    {
        QFETCH(QString, schedule);
        QFETCH(QStringList, full);
        QFETCH(QStringList, brief);
        ScenarioDocument document(io::builtinPresets());
        setAndEvaluate(document, "pp", "4");
        setAndEvaluate(document, "microbatches", "8");
        setAndEvaluate(document, "schedule", qPrintable(schedule));
        setAndEvaluate(document, "virtual_stages", "2");
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        for (const QString &name : full)
            QVERIFY2(chart->legendTexts().contains(name),
                     qPrintable(chart->legendTexts().join(u'|')));
        panel.resize(500, 500);
        QTRY_COMPARE(chart->width() < 600, true);
        for (const QString &name : brief)
            QVERIFY2(chart->legendTexts().contains(name),
                     qPrintable(chart->legendTexts().join(u'|')));
    }

    // Zoomed out, with blocks far narrower than a pixel, both F and B show: each column's row
    // is split by their shares, not painted all in the longer B (issue #18 §2, K=64, m=1024).
    void zoomedOutShowsForwardAndBackward()
    {
        TimelineChart chart;
        chart.resize(1280, 800);
        chart.setReport(uniformReport(core::Schedule::oneFOneB, 64, 1024));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const QImage image = chart.grab().toImage();
        QVERIFY(chart.aggregatedColumns() > 0);
        const QRect plot = chart.plotArea();
        const auto hueOf = [](QColor c) { return c.hsvHue(); };
        const int forwardHue = hueOf(chart.blockColor(OpKind::forward, 0));
        const int backwardHue = hueOf(chart.blockColor(OpKind::backward, 0));
        qint64 forward = 0;
        qint64 backward = 0;
        const qreal dpr = image.devicePixelRatio();
        for (int y = int(plot.top() * dpr); y < int((plot.bottom() + 1) * dpr); ++y)
            for (int x = int(plot.left() * dpr); x < int((plot.right() + 1) * dpr); ++x) {
                const QColor c = image.pixelColor(x, y);
                if (c.hsvSaturation() < 100)
                    continue; // idle, or a gap between rows
                forward += std::abs(c.hsvHue() - forwardHue) < 8;
                backward += std::abs(c.hsvHue() - backwardHue) < 8;
            }
        // F is a third of the busy time (F = 1, B = 2).
        const double share = double(forward) / double(forward + backward);
        QVERIFY2(share > 0.25 && share < 0.42, qPrintable(QString::number(share)));
        // Zoomed in to a few blocks, each is drawn on its own again.
        chart.setVisibleRange(chart.makespan() / 2, chart.makespan() / 2 + 30);
        chart.grab();
        QCOMPARE(chart.aggregatedColumns(), 0);
    }

    // Zoomed in so far that a block's end lies past the right edge, the part of its send in
    // view is still drawn.
    void sendsShowWhenZoomedIn()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        const auto &blocks = chart->blocks();
        const auto sending =
            std::find_if(blocks.begin(), blocks.end(), [](auto &o) { return o.send > 0; });
        QVERIFY(sending != blocks.end());
        // The view ends half-way into the send.
        const double end = sending->end - sending->send / 2;
        chart->setVisibleRange(end - (sending->end - sending->start), end);
        chart->grab();
        const QRect plot = chart->plotArea();
        const double rowHeight = double(plot.height()) / chart->stageCount();
        const double top = plot.top() + sending->stage * rowHeight;
        // Other sends of that stage may lie wholly in view; the one cut by the right edge is
        // the block's (to within rounding of the view's end to pixels).
        const auto strip = std::find_if(
            chart->sendStrips().begin(), chart->sendStrips().end(), [&](const QRectF &r) {
                return r.center().y() > top && r.center().y() < top + rowHeight &&
                       r.right() >= plot.left() + plot.width() - 0.5;
            });
        QVERIFY(strip != chart->sendStrips().end());
        QVERIFY(strip->width() >= 2);
    }

    // Qi et al. 2023: zero-bubble schedules split the backward into B and W.
    void zeroBubbleShowsWeightGradients()
    {
        ScenarioDocument document(io::builtinPresets());
        setAndEvaluate(document, "pp", "4");
        setAndEvaluate(document, "microbatches", "8");
        setAndEvaluate(document, "schedule", "zb-h1");
        TimelinePanel panel;
        fill(panel, document);
        const std::vector<core::ScheduleOp> drawn = panel.chart()->visibleBlocks();
        QCOMPARE(count(drawn, OpKind::forward), 4 * 8);
        QCOMPARE(count(drawn, OpKind::backward), 4 * 8);
        QCOMPARE(count(drawn, OpKind::weight), 4 * 8);
    }

    void wheelZoomsAndHomeRestores()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        panel.resize(1000, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        TimelineChart *chart = panel.chart();
        const double makespan = document.lastValidReport().makespanS;
        QCOMPARE(chart->visibleStart(), 0.0);
        QCOMPARE(chart->visibleEnd(), makespan);

        const QPoint middle = chart->rect().center();
        turnWheel(chart, middle, 120);
        const double span = chart->visibleEnd() - chart->visibleStart();
        QVERIFY(span < makespan);
        // One notch zooms by 1.25 around the pointer, which stays inside the range.
        QVERIFY(std::abs(span - makespan / 1.25) < 1e-9 * makespan);
        QVERIFY(chart->visibleStart() > 0);
        QVERIFY(chart->visibleEnd() < makespan);
        QVERIFY(chart->visibleBlocks().size() < document.lastValidReport().timeline.size());

        chart->setFocus();
        QTest::keyClick(chart, Qt::Key_Home);
        QCOMPARE(chart->visibleStart(), 0.0);
        QCOMPARE(chart->visibleEnd(), makespan);

        QTest::keyClick(chart, Qt::Key_Plus);
        QVERIFY(chart->visibleEnd() - chart->visibleStart() < makespan);
        QTest::keyClick(chart, Qt::Key_Minus);
        QVERIFY(std::abs(chart->visibleEnd() - chart->visibleStart() - makespan) < 1e-9 * makespan);
    }

    void dragPans()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        panel.resize(1000, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        TimelineChart *chart = panel.chart();
        chart->setVisibleRange(0, chart->makespan() / 4);
        const double span = chart->visibleEnd() - chart->visibleStart();

        // Dragging the schedule to the left brings later times into view.
        const QPoint from = chart->rect().center();
        const QPoint to = from - QPoint(200, 0);
        QTest::mousePress(chart, Qt::LeftButton, {}, from);
        QMouseEvent move(QEvent::MouseMove, to, chart->mapToGlobal(to), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(chart, &move);
        QTest::mouseRelease(chart, Qt::LeftButton, {}, to);
        QVERIFY(chart->visibleStart() > 0);
        QVERIFY(std::abs(chart->visibleEnd() - chart->visibleStart() - span) < 1e-9 * span);

        chart->setFocus();
        const double before = chart->visibleStart();
        QTest::keyClick(chart, Qt::Key_Left);
        // Arrows pan by a tenth of the visible range.
        QVERIFY(std::abs(chart->visibleStart() - (before - span / 10)) < 1e-9 * span);
    }

    // docs/worked-examples.md §4: K = 4, m = 16 gives a bubble of 3/19 = 15.8 %; the sweep counts
    // up to it.
    void playCountsTheBubbleUp()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        panel.resize(1000, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        TimelineChart *chart = panel.chart();
        QVERIFY(!chart->isTeaching());
        panel.speedCombo()->setCurrentIndex(panel.speedCombo()->count() - 1); // 4×
        QCOMPARE(panel.speedCombo()->currentData().toDouble(), 4.0);

        QTest::mouseClick(panel.playButton(), Qt::LeftButton);
        QVERIFY(panel.isPlaying());
        QTRY_VERIFY(chart->playhead() > 0 && chart->isTeaching());
        panel.pause();
        const double at = chart->playhead();
        for (const auto &op : chart->visibleBlocks()) {
            QVERIFY(op.start < at);
            QVERIFY(op.end <= at);
        }
        QVERIFY(panel.bubbleText().contains("so far"));
        const int narrowest = panel.minimumSizeHint().width();

        panel.play();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlaying(), 60000);
        QCOMPARE(chart->playhead(), chart->makespan());
        // At the end, the bubble so far is the step's simulated bubble.
        const double bubble = document.report().bubbleFraction;
        QVERIFY(std::abs(chart->bubbleSoFar() - bubble) < 1e-9);
        QVERIFY(panel.bubbleText().contains(QString::number(100 * bubble, 'f', 1) + " %"));
        // The final frame is held: idle time still tinted, Step stopped at the end, and Play
        // sweeps again from the start.
        QVERIFY(chart->isTeaching());
        QVERIFY(chart->isHeldAtEnd());
        QVERIFY(panel.bubbleText().contains("whole step"));
        // docs/worked-examples.md §4: the closed form 3/19 = 15.8 %, named beside the simulated
        // bubble, which the end stages' embedding and LM head and the sends make larger.
        QVERIFY(bubble > 3.0 / 19 + 0.001);
        QVERIFY(panel.bubbleText().contains("closed form's 15.8 %"));
        // Where the bar has no room for the long line, a shorter one with its numbers, down to
        // the number alone, the line in the tooltip; either way it asks for no more width than
        // the bar's short one did.
        const QString value = QString::number(100 * bubble, 'f', 1);
        const auto numbersShown = [&] {
            const QString shown = panel.bubbleLabel()->text();
            return shown == "Bubble: " + value + " % (closed form 15.8 %)" ||
                   shown == "Bubble: " + value + " %" || shown == value + " %";
        };
        QVERIFY2(panel.bubbleLabel()->text() == panel.bubbleText() || numbersShown(),
                 qPrintable(panel.bubbleLabel()->text()));
        for (int width : {700, 600, 500}) {
            panel.resize(width, 500);
            QApplication::processEvents();
            QVERIFY2(numbersShown(), qPrintable(panel.bubbleLabel()->text()));
        }
        QCOMPARE(panel.bubbleLabel()->toolTip(), panel.bubbleText());
        panel.resize(1000, 500);
        QVERIFY2(panel.minimumSizeHint().width() <= narrowest,
                 qPrintable(QStringLiteral("%1 pixels at the end, %2 during the sweep")
                                .arg(panel.minimumSizeHint().width())
                                .arg(narrowest)));
        QVERIFY(!panel.stepButton()->isEnabled());
        panel.step();
        QCOMPARE(chart->playhead(), chart->makespan());
        panel.play();
        QVERIFY(chart->playhead() < chart->makespan());
        QVERIFY(!chart->isHeldAtEnd());
        panel.pause();
    }

    // Stepping walks to the end and stops there; it does not wrap to the start.
    void stepStopsAtTheEnd()
    {
        ScenarioDocument document(io::builtinPresets());
        setAndEvaluate(document, "pp", "2");
        setAndEvaluate(document, "microbatches", "2");
        TimelinePanel panel;
        fill(panel, document);
        TimelineChart *chart = panel.chart();
        int steps = 0;
        while (!chart->isHeldAtEnd() && steps < 100) {
            panel.step();
            ++steps;
            QVERIFY(chart->playhead() > 0);
        }
        QVERIFY(chart->isHeldAtEnd());
        QCOMPARE(chart->playhead(), chart->makespan());
        QVERIFY(steps > 4);
        panel.step();
        QCOMPARE(chart->playhead(), chart->makespan());
        QVERIFY(chart->isHeldAtEnd());
    }

    // Speed is how long a sweep of the step takes, from a minute to talk over down to four
    // seconds; the choice outlives the panel.
    void speedIsRemembered()
    {
        {
            TimelinePanel panel;
            QCOMPARE(panel.speedCombo()->count(), int(TimelinePanel::kSweepChoices.size()));
            panel.speedCombo()->setCurrentIndex(0);
            QCOMPARE(panel.sweepSeconds(), 60.0);
        }
        TimelinePanel again;
        QCOMPARE(again.sweepSeconds(), 60.0);
        again.speedCombo()->setCurrentIndex(2);
        QCOMPARE(TimelinePanel().sweepSeconds(), 15.0);
    }

    // Space plays and pauses when the chart has focus.
    void spaceTogglesPlay()
    {
        ScenarioDocument document(io::builtinPresets());
        TimelinePanel panel;
        fill(panel, document);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.chart()->setFocus();
        QTRY_VERIFY(panel.chart()->hasFocus());
        QTest::keyClick(panel.chart(), Qt::Key_Space);
        QVERIFY(panel.isPlaying());
        QTest::keyClick(panel.chart(), Qt::Key_Space);
        QVERIFY(!panel.isPlaying());
    }

    void stepMovesToTheNextEvent()
    {
        ScenarioDocument document(io::builtinPresets());
        // The default's selective recomputation lengthens B by the attention core
        // (docs/step_time.md, Korthikanti et al. 2022 §5); without it B = 2F exactly.
        setAndEvaluate(document, "recompute", "none");
        TimelinePanel panel;
        fill(panel, document);
        TimelineChart *chart = panel.chart();
        // Each step moves to the next time a block ends: first stage 0's F0 (the only block
        // then done), then the next end among all blocks.
        std::vector<double> ends;
        for (const auto &op : chart->blocks())
            ends.push_back(op.end);
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        QVERIFY(ends.size() > 2);
        QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
        QVERIFY(std::abs(chart->playhead() - ends[0]) < 1e-12 * chart->makespan());
        QVERIFY(panel.bubbleText().contains("so far"));
        // Stage 0 alone has worked: 1 - F / (4 F) = 75 %.
        QVERIFY(std::abs(chart->bubbleSoFar() - 0.75) < 1e-12);
        QCOMPARE(int(chart->visibleBlocks().size()), 1);
        QTest::mouseClick(panel.stepButton(), Qt::LeftButton);
        QVERIFY(std::abs(chart->playhead() - ends[1]) < 1e-12 * chart->makespan());
        const auto done =
            std::count_if(chart->blocks().begin(), chart->blocks().end(),
                          [&](const core::ScheduleOp &op) { return op.end <= ends[1]; });
        // Every block ended by then is drawn (a block under way is drawn up to the playhead).
        QVERIFY(qsizetype(chart->visibleBlocks().size()) >= qsizetype(done));
        QVERIFY(done >= 2);
    }

    // Through the window's timeline tab, which redraws on every new valid scenario.
    void newScenarioResetsThePlayhead()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.showChart("timeline");
        TimelinePanel &panel = *window.chart<TimelinePanel>();
        TimelineChart *chart = panel.chart();
        panel.step();
        panel.play();
        QVERIFY(chart->isTeaching());
        setAndEvaluate(document, "microbatches", "8");
        QVERIFY(!panel.isPlaying());
        QVERIFY(!chart->isTeaching());
        QCOMPARE(chart->playhead(), document.lastValidReport().makespanS);
        QCOMPARE(int(chart->blocks().size()), 4 * 8 * 2);
    }

    void invalidScenarioKeepsTheLastTimeline()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.showChart("timeline");
        TimelinePanel &panel = *window.chart<TimelinePanel>();
        TimelineChart *chart = panel.chart();
        panel.step();
        const double at = chart->playhead();
        // 128 stages for 80 layers is refused (docs/DESIGN.md §6).
        setAndEvaluate(document, "pp", "128");
        QVERIFY(!document.report().ok());
        QCOMPARE(int(chart->blocks().size()), 4 * 16 * 2);
        QCOMPARE(chart->playhead(), at);
        QCOMPARE(chart->stageCount(), 4);
    }

    // README, "Limits": a schedule of more than 2^20 blocks is evaluated but not drawn; the
    // chart says why and which keys to lower, and draws again once they are lowered.
    void tooManyBlocksDrawAMessage()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.showChart("timeline");
        TimelinePanel &panel = *window.chart<TimelinePanel>();
        TimelineChart *chart = panel.chart();
        setAndEvaluate(document, "pp", "64");
        setAndEvaluate(document, "microbatches", "8193"); // 64 × 8193 × 2 = 2^20 + 128 blocks
        QVERIFY(document.report().ok());
        QVERIFY(document.report().timelineRefused);
        QVERIFY(chart->blocks().empty());
        QVERIFY2(chart->message().contains(QStringLiteral("lower pp or microbatches")),
                 qPrintable(chart->message()));
        QVERIFY(!chart->grab().isNull());
        panel.step(); // nothing to step through: no crash
        setAndEvaluate(document, "microbatches", "16");
        QVERIFY(!document.report().timelineRefused);
        QCOMPARE(int(chart->blocks().size()), 64 * 16 * 2);
    }

    void emptyAndInvalidReportsDrawAMessage()
    {
        TimelineChart chart;
        chart.resize(400, 300);
        core::Report invalid;
        invalid.error = core::InputError{"pp", "too many stages"};
        chart.setReport(invalid);
        QVERIFY(chart.blocks().empty());
        QVERIFY(!chart.grab().isNull());
        chart.setReport(core::Report{});
        QVERIFY(chart.visibleBlocks().empty());
        QCOMPARE(chart.bubbleSoFar(), 0.0);
        QVERIFY(!chart.grab().isNull());
        QTest::keyClick(&chart, Qt::Key_Plus); // nothing to zoom: no crash
    }

    // Blocks narrower than a pixel become runs of pixel columns (docs/DESIGN.md §2).
    void narrowBlocksAreAggregated()
    {
        const core::PipelineInput input =
            core::uniformPipeline(core::Schedule::oneFOneB, 8, 512, 1, 1.0);
        const core::PipelineResult result = core::simulatePipeline(input, true);
        core::Report r;
        r.pp = 8;
        r.makespanS = result.makespan;
        r.timeline = result.timeline;
        TimelineChart chart;
        chart.resize(600, 300);
        chart.setReport(r);
        QCOMPARE(int(chart.blocks().size()), 8 * 512 * 2);
        chart.grab();
        QVERIFY(chart.aggregatedColumns() > 0);
        // Zoomed in far enough, every block is drawn on its own again.
        chart.setVisibleRange(0, 10);
        chart.grab();
        QCOMPARE(chart.aggregatedColumns(), 0);
    }

    // A block that ends in a blocking send to the next stage (ScheduleOp::send) is drawn with
    // a dark strip at its end. Megatron-LM's schedules send after every forward but the last
    // stage's and every backward but the first stage's, chunk by chunk when interleaved
    // (core/schedule.h): 2·(K·v·m − m) sends in training, K·m − m in inference.
    void sendTailsEndTheBlocks_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<int>("sends");
        QTest::addRow("K=1: no neighbour") << QStringList{"pp=1", "microbatches=8"} << 0;
        QTest::addRow("1f1b, K=4, m=8")
            << QStringList{"pp=4", "microbatches=8", "schedule=1f1b"} << 2 * (4 * 8 - 8);
        QTest::addRow("gpipe, K=4, m=8")
            << QStringList{"pp=4", "microbatches=8", "schedule=gpipe"} << 2 * (4 * 8 - 8);
        QTest::addRow("zb-h1, K=4, m=8: W sends nothing")
            << QStringList{"pp=4", "microbatches=8", "schedule=zb-h1"} << 2 * (4 * 8 - 8);
        QTest::addRow("interleaved, K=4, v=2, m=8")
            << QStringList{"pp=4", "microbatches=8", "schedule=interleaved", "virtual_stages=2"}
            << 2 * (4 * 2 * 8 - 8);
        QTest::addRow("inference, K=4, m=8: forward only")
            << QStringList{"pp=4", "microbatches=8", "mode=inference"} << 4 * 8 - 8;
        // The V: chunk 0's F from every stage but the last, where it turns without a send,
        // chunk 1's from every stage but stage 0, where the model ends; each B goes back the
        // way its F came: 4 (K − 1) m.
        QTest::addRow("dualpipev, K=4, m=8: none where the V turns")
            << QStringList{"pp=4", "microbatches=8", "schedule=dualpipev"} << 4 * (4 - 1) * 8;
        // DualPipe: each direction's m/2 micro-batches send their F's on from every stage but
        // the direction's last and their B's back from every stage but its first: 2 (K − 1) m.
        QTest::addRow("dualpipe, K=4, m=8: none at a direction's ends")
            << QStringList{"pp=4", "microbatches=8", "schedule=dualpipe"} << 2 * (4 - 1) * 8;
    }
    void sendTailsEndTheBlocks()
    {
        QFETCH(QStringList, settings);
        QFETCH(int, sends);
        ScenarioDocument document(io::builtinPresets());
        for (const QString &setting : settings)
            QVERIFY(document.setField(setting.section(u'=', 0, 0), setting.section(u'=', 1)));
        document.flush();
        TimelinePanel panel;
        fill(panel, document);
        panel.resize(1600, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        TimelineChart *chart = panel.chart();
        const auto &blocks = chart->blocks();
        QCOMPARE(
            int(std::count_if(blocks.begin(), blocks.end(), [](auto &o) { return o.send > 0; })),
            sends);
        chart->grab();
        QCOMPARE(chart->aggregatedColumns(), 0); // every block drawn on its own
        QCOMPARE(int(chart->sendStrips().size()), sends);
        for (const QRectF &strip : chart->sendStrips()) {
            QVERIFY(strip.width() >= 2); // visible before it is zoomed in to
            QVERIFY(chart->rect().contains(strip.toAlignedRect()));
        }
        if (sends == 0)
            return;
        // Zoomed to one block, its strip is the send's share of the block, at its end.
        const auto sending =
            std::find_if(blocks.begin(), blocks.end(), [](auto &o) { return o.send > 0; });
        chart->setVisibleRange(sending->start, sending->end);
        chart->grab();
        const QRect plot = chart->plotArea();
        const double rowHeight = double(plot.height()) / chart->stageCount();
        const double top = plot.top() + sending->stage * rowHeight;
        const auto strip = std::find_if(
            chart->sendStrips().begin(), chart->sendStrips().end(), [&](const QRectF &r) {
                return r.center().y() > top && r.center().y() < top + rowHeight;
            });
        QVERIFY(strip != chart->sendStrips().end());
        QCOMPARE(strip->right(), double(plot.left() + plot.width()));
        const double share = sending->send / (sending->end - sending->start);
        QVERIFY(share < 1.0 / 3);
        QVERIFY2(std::abs(strip->width() - std::max(2.0, share * plot.width())) < 1e-6,
                 qPrintable(QStringLiteral("%1 px for %2 of %3 px")
                                .arg(strip->width())
                                .arg(share)
                                .arg(plot.width())));
    }

    void windowHasATimelineTab()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(window.chart<TimelinePanel>());
        const int tab = window.charts()->indexOf(window.chart<TimelinePanel>());
        QVERIFY(tab >= 0);
        QCOMPARE(window.charts()->tabText(tab), "Timeline");
        window.showChart("timeline");
        QCOMPARE(int(window.chart<TimelinePanel>()->chart()->blocks().size()), 4 * 16 * 2);
    }

    // The schedule's blocks are evaluated only while the timeline is on screen (at K=64,
    // m=1024 they cost more than the rest of the evaluation); the other tabs and the status
    // line get the same numbers without them.
    void blocksOnlyWhileTheTimelineIsShown()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        TimelineChart *chart = window.chart<TimelinePanel>()->chart();
        QCOMPARE(window.currentPage()->id(), "memory");
        setAndEvaluate(document, "microbatches", "8");
        QVERIFY(document.lastValidReport().timeline.empty());
        QVERIFY(chart->blocks().empty()); // stale, not drawn
        const double bubble = document.lastValidReport().bubbleFraction;

        window.showChart("timeline");
        // 1F1B: K = 4 stages × m = 8 micro-batches × (F, B).
        QCOMPARE(int(document.lastValidReport().timeline.size()), 4 * 8 * 2);
        QCOMPARE(int(chart->blocks().size()), 4 * 8 * 2);
        QCOMPARE(document.lastValidReport().bubbleFraction, bubble);
        setAndEvaluate(document, "microbatches", "4");
        QCOMPARE(int(document.lastValidReport().timeline.size()), 4 * 4 * 2);
        QCOMPARE(int(chart->blocks().size()), 4 * 4 * 2);

        window.showChart("bubble");
        setAndEvaluate(document, "microbatches", "16");
        QVERIFY(document.lastValidReport().timeline.empty());
        QCOMPARE(int(chart->blocks().size()), 4 * 4 * 2); // hidden: still the old schedule
        window.showChart("timeline");
        QCOMPARE(int(chart->blocks().size()), 4 * 16 * 2);
    }

    // docs/experts.md: the MoE layers' all-to-all shows in every block of a Mixtral stage as a
    // band along its bottom, as wide as the all-to-all's share of the block: the step-time
    // model's all-to-all of a layer times the stage's MoE layers, one micro-batch. A dense
    // model's blocks have none.
    void expertAllToAllShowsInTheBlocks_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("bands");
        QTest::addRow("Mixtral 8x7B, E = 8: every block") << "mixtral-8x7b" << true;
        QTest::addRow("Llama 3.1 70B: none") << "llama-3.1-70b" << false;
    }
    void expertAllToAllShowsInTheBlocks()
    {
        QFETCH(QString, model);
        QFETCH(bool, bands);
        ScenarioDocument document(io::builtinPresets());
        for (const QString &setting :
             {QStringLiteral("model=") + model, QStringLiteral("tp=2"), QStringLiteral("pp=4"),
              QStringLiteral("dp=8"), QStringLiteral("microbatches=8")})
            QVERIFY(document.setField(setting.section(u'=', 0, 0), setting.section(u'=', 1)));
        if (bands)
            QVERIFY(document.setField(QStringLiteral("ep"), QStringLiteral("8")));
        document.flush();
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        const auto &blocks = chart->blocks();
        const core::Report &r = document.report();
        double perLayer = 0; // one MoE layer's forward all-to-all
        for (const core::LayerOp &op : r.layerOps)
            if (op.part == core::TimePart::expertComm)
                perLayer += op.forward.seconds;
        for (const auto &op : blocks)
            if (op.kind == core::OpKind::forward)
                QCOMPARE(op.expertComm, bands ? 8 * perLayer : 0.0); // 32 layers over K = 4
        chart->grab();
        QCOMPARE(chart->expertCommBands().isEmpty(), !bands);
        if (bands) {
            QCOMPARE(int(chart->expertCommBands().size()), int(blocks.size()));
            const double scale = chart->plotArea().width() / r.makespanS;
            const auto first = std::min_element(blocks.begin(), blocks.end(),
                                                [](auto &a, auto &b) { return a.start < b.start; });
            QVERIFY(std::abs(chart->expertCommBands().front().width() - first->expertComm * scale) <
                    1.0);
        }
    }

    // docs/activations.md, "Offloaded layers": each pass that waits for its activation copies
    // shows the wait as a band along the top of its block's end, as wide as the report's wait
    // (StepTimeReport::offloadForwardS and offloadBackwardS, one micro-batch). The 70B on 64
    // GB200s, one sequence a micro-batch: 40 of 80 layers hide their copies and show none; 79
    // leave nothing to overlap, and their 149 GB fit the host's 240 a GPU.
    void offloadWaitShowsInTheBlocks_data()
    {
        QTest::addColumn<int>("offloaded");
        QTest::addColumn<bool>("bands");
        QTest::addRow("40 of 80: hidden") << 40 << false;
        QTest::addRow("79 of 80: the passes wait") << 79 << true;
    }
    void offloadWaitShowsInTheBlocks()
    {
        QFETCH(int, offloaded);
        QFETCH(bool, bands);
        ScenarioDocument document(io::builtinPresets());
        for (const QString &s :
             megatronBridge70bOnGb200() +
                 QStringList{"pp=1", "zero=3", "microbatches=4", "microbatch_size=1"})
            QVERIFY2(document.setField(s.section(u'=', 0, 0), s.section(u'=', 1)), qPrintable(s));
        QVERIFY(document.setField(QStringLiteral("offload_layers"), QString::number(offloaded)));
        document.flush();
        const core::Report &r = document.report();
        QVERIFY(r.ok() && r.fits && r.stepTime);
        QCOMPARE(r.stepTime->offloadBackwardS > 0, bands);
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        const auto &blocks = chart->blocks();
        for (const auto &op : blocks)
            QCOMPARE(op.offloadWait, op.kind == core::OpKind::forward
                                         ? r.stepTime->offloadForwardS
                                         : r.stepTime->offloadBackwardS);
        chart->grab();
        QCOMPARE(chart->offloadWaitBands().isEmpty(), !bands);
        if (!bands)
            return;
        const double scale = chart->plotArea().width() / r.makespanS;
        const auto backward = std::find_if(blocks.begin(), blocks.end(), [](const auto &op) {
            return op.kind == core::OpKind::backward;
        });
        QVERIFY(backward != blocks.end());
        const double end = chart->plotArea().left() + backward->end * scale;
        QVERIFY(std::ranges::any_of(chart->offloadWaitBands(), [&](const QRectF &band) {
            return std::abs(band.right() - end) < 1.0 &&
                   std::abs(band.width() - backward->offloadWait * scale) < 1.0;
        }));
    }

    // docs/step_time.md, "A later stage's one bucket": under Megatron-LM's profile without
    // interleaving each stage after the first waits, in its first forward, for its one
    // bucket's parameter gather; the block shows the wait at its start, as wide as the wait,
    // which the Step time page counts as that stage's data-parallel sync. None under the
    // custom profile.
    void gatherWaitShowsInTheFirstForwards_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("bands");
        QTest::addRow("Megatron-LM") << "megatron" << true;
        QTest::addRow("custom") << "custom" << false;
    }
    void gatherWaitShowsInTheFirstForwards()
    {
        QFETCH(QString, framework);
        QFETCH(bool, bands);
        ScenarioDocument document(io::builtinPresets());
        for (const QString &s :
             QStringList{"framework=" + framework, "model=llama-3.1-8b", "device=h100-sxm",
                         "precision=bf16", "tp=1", "pp=4", "dp=8", "zero=1", "microbatches=8",
                         "seq_len=4096", "recompute=none"})
            QVERIFY2(document.setField(s.section(u'=', 0, 0), s.section(u'=', 1)), qPrintable(s));
        document.flush();
        const core::Report &r = document.report();
        QVERIFY(r.ok() && r.fits && r.stepTime);
        TimelinePanel panel;
        fill(panel, document);
        showPanel(panel, 1600, 500);
        TimelineChart *chart = panel.chart();
        int waiting = 0;
        for (const auto &op : chart->blocks()) {
            const bool first =
                op.stage > 0 && op.kind == core::OpKind::forward && op.microbatch == 0;
            QCOMPARE(op.gatherWait > 0, bands && first);
            if (op.gatherWait > 0) {
                ++waiting;
                // The stage's whole wait, which its breakdown shows past stage 0's sync.
                QVERIFY(
                    std::abs(op.gatherWait -
                             (r.stepTime->stages[std::size_t(op.stage)][core::TimePart::dpSync] -
                              r.stepTime->stages[0][core::TimePart::dpSync])) <
                    1e-9 * op.gatherWait);
            }
        }
        QCOMPARE(waiting, bands ? 3 : 0);
        chart->grab();
        QCOMPARE(chart->gatherWaitBands().size(), waiting);
        const double scale = chart->plotArea().width() / r.makespanS;
        for (const auto &op : chart->blocks())
            if (op.gatherWait > 0) {
                const double start = chart->plotArea().left() + op.start * scale;
                QVERIFY(std::ranges::any_of(chart->gatherWaitBands(), [&](const QRectF &band) {
                    return std::abs(band.left() - start) < 1.0 &&
                           std::abs(band.width() - op.gatherWait * scale) < 1.0;
                }));
            }
    }
};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
