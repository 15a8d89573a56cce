// The Memory over the step page (ui/charts/memory_step_page.h) through the real window,
// offscreen: it follows m and the schedule, its peak is the report's, its stage picker, and
// the Timeline's sweep moving it through the shared playhead (ui::Playhead).
#include "core/memory_timeline.h"
#include "io/presets_io.h"
#include "ui/charts/memory_step_chart.h"
#include "ui/charts/memory_step_panel.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/formula_panel.h"
#include "ui/main_window.h"
#include "ui/playhead.h"
#include "ui/scenario_document.h"
#include "ui/units.h"
#include "widget_helpers.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <algorithm>

using namespace ui;

namespace {

double highestMicrobatches(const MemoryStepChart &chart)
{
    double peak = 0;
    for (const core::MemoryPoint &p : chart.timeline().points)
        peak = std::max(peak, p.microbatches);
    return peak;
}

void pickStage(MemoryStepPanel &panel, int stage)
{
    chooseWithKeys(panel.stagePicker(), panel.stagePicker()->findData(stage));
}

// The window shown on the Memory over the step page, the default scenario's.
MemoryStepPanel *showMemoryPage(ExplorerWindow &f)
{
    showActive(f.window);
    f.window.showChart(QStringLiteral("memory-over-step"));
    return f.window.chart<MemoryStepPanel>();
}

// `chart`'s text `textScale` times its own, as presentation mode scales it.
QFont scaleText(QWidget &chart, double textScale)
{
    QFont font = chart.font();
    font.setPointSizeF(font.pointSizeF() * textScale);
    chart.setFont(font);
    return font;
}

} // namespace

class TestMemoryStep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // GPipe keeps every micro-batch (Huang et al. 2019, §2.3), 1F1B at most K - s of them
    // (Narayanan et al. 2021, §2.2): the page redraws when m or the schedule changes.
    void followsMicrobatchesAndSchedule()
    {
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "pp", "4");
        setAndEvaluate(f.document, "schedule", "gpipe");
        setAndEvaluate(f.document, "microbatches", "8");
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        QVERIFY(panel);
        QCOMPARE(f.window.charts()->currentWidget(), panel);
        pickStage(*panel, 0);
        QCOMPARE(panel->stage(), 0);
        QCOMPARE(highestMicrobatches(*panel->chart()), 8.0);
        setAndEvaluate(f.document, "microbatches", "12");
        QCOMPARE(highestMicrobatches(*panel->chart()), 12.0);
        setAndEvaluate(f.document, "schedule", "1f1b");
        QCOMPARE(panel->stage(), 0);
        QCOMPARE(highestMicrobatches(*panel->chart()), 4.0);
        pickStage(*panel, 3);
        QCOMPARE(highestMicrobatches(*panel->chart()), 1.0);
        QVERIFY(panel->chart()->peakLabel().contains(QStringLiteral("1 micro-batch's")));
    }

    // At K = 64, m = 1024 stage 0 changes its memory 2,048 times and more across a plot a
    // thousand pixels wide: each pixel column's levels are drawn as its highest and lowest, a
    // few points a column, and the outline still reaches the step's peak.
    void outlineKeepsThePeakInAFewPointsAColumn()
    {
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "model", "llama-3.1-405b");
        setAndEvaluate(f.document, "tp", "8");
        setAndEvaluate(f.document, "dp", "1");
        setAndEvaluate(f.document, "pp", "64");
        setAndEvaluate(f.document, "microbatches", "1024");
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        QVERIFY(panel);
        pickStage(*panel, 0);
        MemoryStepChart &chart = *panel->chart();
        chart.grab(); // paints, which builds the outline
        const QRect plot = chart.plotArea();
        QVERIFY(plot.width() > 100);
        QVERIFY2(chart.timeline().points.size() > 2 * std::size_t(plot.width()),
                 qPrintable(QString::number(chart.timeline().points.size())));
        const QPolygonF &outline = chart.outline();
        QVERIFY2(outline.size() <= 5 * (plot.width() + 2),
                 qPrintable(QString::number(outline.size())));
        double top = outline.front().y();
        for (const QPointF &p : outline)
            top = std::min(top, p.y());
        QVERIFY2(std::abs(top - chart.yOfBytes(double(chart.peakBytes()))) < 1e-6,
                 qPrintable(QStringLiteral("%1 against %2")
                                .arg(top)
                                .arg(chart.yOfBytes(double(chart.peakBytes())))));
    }

    // The memory axis keeps the room its own labels take beside its title, at normal text and
    // at presentation mode's largest: it reserved the width of "0000.0" for labels of "0" to
    // "100", 48 pixels more than they take at the largest text, which the plot lost.
    void memoryAxisTakesItsLabelsRoom_data()
    {
        QTest::addColumn<double>("textScale");
        QTest::addRow("normal text") << 1.0;
        QTest::addRow("largest text") << 2.6;
    }
    void memoryAxisTakesItsLabelsRoom()
    {
        QFETCH(double, textScale);
        ExplorerWindow f;
        MemoryStepPanel *panel = showMemoryPage(f);
        QVERIFY(panel);
        MemoryStepChart &chart = *panel->chart();
        const QFontMetrics fm(scaleText(chart, textScale));
        chart.grab();
        const QStringList labels = chart.memoryAxisLabels();
        QVERIFY2(labels.size() >= 3, qPrintable(labels.join(u' ')));
        int widest = 0;
        for (const QString &label : labels)
            widest = std::max(widest, fm.horizontalAdvance(label));
        const int left = chart.plotArea().left();
        // Beside the axis's title, a line high, with the chart's two 8-pixel pads and no more
        // than half a line to spare.
        QVERIFY2(left - widest >= fm.height(),
                 qPrintable(QStringLiteral("plot at %1, labels %2 wide").arg(left).arg(widest)));
        QVERIFY2(left <= fm.height() + widest + 16 + fm.height() / 2,
                 qPrintable(QStringLiteral("plot at %1, labels %2 wide, a line %3")
                                .arg(left)
                                .arg(widest)
                                .arg(fm.height())));
    }

    // The time axis's title gives its line to a plot that would be shorter than four lines
    // with it (the largest text beside the docks: 56 pixels of plot at 1,280 × 800), and the
    // last time label carries the unit instead; a taller chart keeps the title.
    void timeTitleGivesWayOnAShortPlot_data()
    {
        QTest::addColumn<double>("textScale");
        QTest::addColumn<int>("chartHeight");
        QTest::addColumn<bool>("titled");
        QTest::addRow("normal text, 480 high") << 1.0 << 480 << true;
        QTest::addRow("normal text, 130 high") << 1.0 << 130 << false;
        QTest::addRow("largest text, 600 high") << 2.6 << 600 << true;
        QTest::addRow("largest text, 224 high") << 2.6 << 224 << false;
    }
    void timeTitleGivesWayOnAShortPlot()
    {
        QFETCH(double, textScale);
        QFETCH(int, chartHeight);
        QFETCH(bool, titled);
        ExplorerWindow f;
        MemoryStepPanel *panel = showMemoryPage(f);
        QVERIFY(panel);
        MemoryStepChart chart;
        chart.setTimeline(panel->chart()->timeline(), QStringLiteral("stage 0"), false);
        const int line = QFontMetrics(scaleText(chart, textScale)).height();
        chart.resize(900, chartHeight);
        chart.grab();
        QCOMPARE(chart.timeAxisTitleShown(), titled);
        // What the plot would have with the title: the chart less the title's two lines and
        // pad above, and the labels, the title and their pads below.
        const int withTitle = chartHeight - (2 * line + 8) - (2 * line + 16);
        if (titled)
            QVERIFY2(withTitle >= 4 * line, qPrintable(QString::number(withTitle)));
        else
            QVERIFY2(chart.plotArea().height() >= withTitle + line,
                     qPrintable(QStringLiteral("plot %1 high, %2 with the title")
                                    .arg(chart.plotArea().height())
                                    .arg(withTitle)));
    }

    // The peak's label keeps to its marker's side of the capacity's line and off the line's
    // label, at every distance between the two (the capacity from 0.9 to 1.3 times the peak):
    // a peak a line's height under the capacity had its opaque box drawn over the line.
    void peakLabelKeepsToItsSideOfTheCapacity_data()
    {
        QTest::addColumn<double>("textScale");
        QTest::addColumn<QSize>("size");
        QTest::addRow("normal text, 900 x 480") << 1.0 << QSize(900, 480);
        QTest::addRow("normal text, 640 x 300") << 1.0 << QSize(640, 300);
        QTest::addRow("largest text, 1,200 x 600") << 2.6 << QSize(1200, 600);
    }
    void peakLabelKeepsToItsSideOfTheCapacity()
    {
        QFETCH(double, textScale);
        QFETCH(QSize, size);
        ExplorerWindow f;
        MemoryStepPanel *panel = showMemoryPage(f);
        QVERIFY(panel);
        core::MemoryTimeline timeline = panel->chart()->timeline();
        QVERIFY(!timeline.points.empty());
        const double peakBytes = double(timeline.points[timeline.peak].totalBytes);
        MemoryStepChart chart;
        scaleText(chart, textScale);
        chart.resize(size);
        const double line = QFontMetrics(chart.font()).height();
        for (int percent = 90; percent <= 130; ++percent) {
            timeline.capacityBytes = static_cast<std::int64_t>(percent / 100.0 * peakBytes);
            chart.setTimeline(timeline, QStringLiteral("stage 0"), false);
            chart.grab();
            const QRectF box = chart.peakLabelRect();
            const double capY = chart.yOfBytes(double(timeline.capacityBytes));
            const double peakY = chart.yOfBytes(peakBytes);
            const QString where =
                QStringLiteral("capacity %1 %: label %2 to %3, line at %4, peak at %5")
                    .arg(percent)
                    .arg(box.top())
                    .arg(box.bottom())
                    .arg(capY)
                    .arg(peakY);
            QVERIFY2(QRectF(chart.plotArea()).adjusted(0, 0, 1, 1).contains(box),
                     qPrintable(where));
            QVERIFY2(!box.intersects(chart.capacityLabelRect()), qPrintable(where));
            // The dashed line is 2 pixels wide: off it, and a peak under the capacity labelled
            // under it too (over it, where the headroom above the peak is shorter than the
            // label, the label goes under the line and its figure says which side it is on).
            QVERIFY2(box.top() > capY + 1 || box.bottom() < capY - 1, qPrintable(where));
            if (peakY > capY)
                QVERIFY2(box.top() > capY + 1, qPrintable(where));
            // And beside the marker: within a line and a half of it.
            QVERIFY2(std::min(std::abs(box.top() - peakY), std::abs(box.bottom() - peakY)) <=
                         1.5 * line,
                     qPrintable(where));
        }
    }

    // In inference nothing is kept for a backward pass: the title names no training schedule,
    // the peak no activations, and the flat terms are the ones the stage has.
    void inferenceKeepsNoActivations()
    {
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "mode", "inference");
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        QVERIFY(panel);
        QCOMPARE(highestMicrobatches(*panel->chart()), 0.0);
        QVERIFY2(!panel->chart()->peakLabel().contains(QStringLiteral("activations")),
                 qPrintable(panel->chart()->peakLabel()));
        QVERIFY2(panel->chart()->shownTitle().contains(QStringLiteral("forward only (inference)")),
                 qPrintable(panel->chart()->shownTitle()));
        const QString formulas = f.window.formulas()->toPlainText();
        QVERIFY2(
            formulas.contains(QStringLiteral("weights + KV cache + prefill buffers + reserve")),
            qPrintable(formulas));
        QVERIFY(!formulas.contains(QStringLiteral("gradients")));
    }

    // An ep_overlap pair's layer is in the formula's sum and in the curve's peak, which is the
    // report's.
    void pairLayerInTheFormula()
    {
        ExplorerWindow f;
        showActive(f.window);
        for (const auto &[key, value] : {std::pair{"model", "qwen3-30b-a3b"},
                                         {"framework", "megatron"},
                                         {"device", "b200"},
                                         {"tp", "1"},
                                         {"pp", "1"},
                                         {"dp", "8"},
                                         {"ep", "8"},
                                         {"microbatches", "4"},
                                         {"recompute", "none"},
                                         {"ep_overlap", "true"}})
            setAndEvaluate(f.document, key, value);
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        QVERIFY(panel);
        const core::StageReport &st = f.document.lastValidReport().stages.front();
        QVERIFY(st.pairLayerBytes > 0);
        QCOMPARE(panel->chart()->peakBytes(), st.totalBytes);
        const QString formulas = f.window.formulas()->toPlainText();
        QVERIFY2(formulas.contains(QStringLiteral("one layer more in a B-and-F pair")),
                 qPrintable(formulas));
    }

    // The curve's peak is the report's stage total, on every stage the picker offers, and
    // the picker's first entry is the stage with the highest total.
    void peakIsTheReportsTotal_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("cacheOutputs");
        QTest::addRow("1F1B, cached outputs") << "1f1b" << true;
        QTest::addRow("GPipe") << "gpipe" << true;
        QTest::addRow("ZB-H1") << "zb-h1" << true;
        // Without cached outputs: DualPipeV's stage 0 holds its 2K + 1 chunks mid-step, before
        // the last micro-batches' logits are cached, so there the report's sum of the two
        // peaks is more than the curve ever reaches.
        QTest::addRow("DualPipeV, no cached outputs") << "dualpipev" << false;
        // DualPipe's end stages hold their K + 1 chunks mid-step too, and each caches the
        // logits of the direction ending there as it ends (dualpipe.py).
        QTest::addRow("DualPipe, no cached outputs") << "dualpipe" << false;
    }
    void peakIsTheReportsTotal()
    {
        QFETCH(QString, schedule);
        QFETCH(bool, cacheOutputs);
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "schedule", schedule.toLatin1().constData());
        setAndEvaluate(f.document, "microbatches", "8");
        setAndEvaluate(f.document, "cache_outputs", cacheOutputs ? "true" : "false");
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        const core::Report &r = f.document.lastValidReport();
        QCOMPARE(panel->stagePicker()->currentIndex(), 0);
        QCOMPARE(panel->stage(), core::highestStage(r));
        for (const core::StageReport &st : r.stages) {
            pickStage(*panel, st.index);
            QCOMPARE(panel->stage(), st.index);
            QCOMPARE(panel->chart()->peakBytes(), st.totalBytes);
            QCOMPARE(panel->chart()->timeline().capacityBytes, st.capacityBytes);
        }
        // Back to the highest.
        chooseWithKeys(panel->stagePicker(), 0);
        QCOMPARE(panel->stage(), core::highestStage(r));
    }

    // DualPipeV and DualPipe keep PP + 1 chunks of activations alive on every device
    // (deepseek-ai/DualPipe, README, "Pipeline Bubbles and Memory Usage Comparison"), each
    // half of the device's layers: DualPipeV's PP = 2K chunks, (2K + 1)/2 micro-batches;
    // DualPipe's PP = K devices, each chunk one of its two stages, (K + 1)/2; whatever m is,
    // and the summary says so.
    void dualPipesKeepPpPlusOneChunks_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<double>("alive");
        QTest::addColumn<int>("chunks");
        QTest::addRow("DualPipeV, K=2, m=4") << "dualpipev" << 2 << 4 << 2.5 << 5;
        QTest::addRow("DualPipeV, K=4, m=8") << "dualpipev" << 4 << 8 << 4.5 << 9;
        QTest::addRow("DualPipeV, K=4, m=16") << "dualpipev" << 4 << 16 << 4.5 << 9;
        QTest::addRow("DualPipe, K=2, m=4") << "dualpipe" << 2 << 4 << 1.5 << 3;
        QTest::addRow("DualPipe, K=4, m=8") << "dualpipe" << 4 << 8 << 2.5 << 5;
        QTest::addRow("DualPipe, K=4, m=16") << "dualpipe" << 4 << 16 << 2.5 << 5;
    }
    void dualPipesKeepPpPlusOneChunks()
    {
        QFETCH(QString, schedule);
        QFETCH(int, stages);
        QFETCH(int, microbatches);
        QFETCH(double, alive);
        QFETCH(int, chunks);
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "pp", qPrintable(QString::number(stages)));
        setAndEvaluate(f.document, "microbatches", qPrintable(QString::number(microbatches)));
        setAndEvaluate(f.document, "schedule", qPrintable(schedule));
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        QVERIFY(panel);
        for (int stage = 0; stage < stages; ++stage) {
            pickStage(*panel, stage);
            QCOMPARE(panel->stage(), stage);
            QCOMPARE(highestMicrobatches(*panel->chart()), alive);
            const QString summary =
                panel->findChild<QLabel *>(QStringLiteral("memorySummary"))->text();
            QVERIFY2(
                summary.contains(QStringLiteral("at most %1 of %2").arg(alive).arg(microbatches)),
                qPrintable(summary));
            QVERIFY2(summary.contains(QStringLiteral("= %1 chunks").arg(chunks)),
                     qPrintable(summary));
        }
        const QString name = schedule == QStringLiteral("dualpipev") ? QStringLiteral("DualPipeV")
                                                                     : QStringLiteral("DualPipe");
        QVERIFY2(panel->chart()->shownTitle().contains(QStringLiteral(" · %1 · ").arg(name)),
                 qPrintable(panel->chart()->shownTitle()));
    }

    // Axes and legend name their units, GB or GiB as View → Sizes in GiB says.
    void unitsFollowTheView()
    {
        ExplorerWindow f;
        showActive(f.window);
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        const bool gib = f.window.gibAction()->isChecked();
        const QString unit = gib ? QStringLiteral("GiB") : QStringLiteral("GB");
        QCOMPARE(panel->chart()->memoryAxisTitle(),
                 QStringLiteral("Memory of one device (%1)").arg(unit));
        QVERIFY(panel->chart()->timeAxisTitle().startsWith(QStringLiteral("Time in the step (")));
        QVERIFY(panel->chart()
                    ->legendEntries()
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral(" ") + unit));
        f.window.gibAction()->trigger();
        const QString other = gib ? QStringLiteral("GB") : QStringLiteral("GiB");
        QCOMPARE(panel->chart()->memoryAxisTitle(),
                 QStringLiteral("Memory of one device (%1)").arg(other));
        f.window.gibAction()->trigger();
    }

    // Play on this page (or F5) plays the Timeline's sweep without leaving the page, and the
    // curve is drawn up to the shared playhead.
    void playSweepsThisPage()
    {
        ExplorerWindow f;
        showActive(f.window);
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        auto *timeline = f.window.chart<TimelinePanel>();
        timeline->speedCombo()->setCurrentIndex(int(TimelinePanel::kSweepChoices.size()) - 1);
        QVERIFY(!panel->chart()->isSweeping());
        const int all = panel->chart()->drawnPoints();
        QTest::mouseClick(panel->playButton(), Qt::LeftButton);
        QCOMPARE(f.window.charts()->currentWidget(), panel); // the page stays in front
        QVERIFY(timeline->isPlaying());
        QCOMPARE(timeline->chart()->makespan(), panel->chart()->timeline().makespan);
        QTRY_VERIFY(panel->chart()->playhead() > 0);
        QVERIFY(panel->chart()->isSweeping());
        QVERIFY(panel->chart()->playhead() < panel->chart()->timeline().makespan);
        QVERIFY(panel->chart()->drawnPoints() < all);
        QCOMPARE(panel->chart()->playhead(), timeline->chart()->playhead());
        // F5 pauses it, still on this page.
        QTest::keyClick(&f.window, Qt::Key_F5);
        QVERIFY(!timeline->isPlaying());
        QCOMPARE(f.window.charts()->currentWidget(), panel);
        const double paused = panel->chart()->playhead();
        QTest::qWait(50);
        QCOMPARE(panel->chart()->playhead(), paused);
    }

    // Play on the Timeline tab moves this page's playhead too, through the document's
    // playhead; a new scenario shows the whole curve again.
    void timelinePlayMovesThisPage()
    {
        ExplorerWindow f;
        showActive(f.window);
        setAndEvaluate(f.document, "microbatches", "8");
        f.window.showChart(QStringLiteral("memory-over-step"));
        auto *panel = f.window.chart<MemoryStepPanel>();
        f.window.showChart(QStringLiteral("timeline"));
        auto *timeline = f.window.chart<TimelinePanel>();
        QSignalSpy moved(f.document.playhead(), &Playhead::moved);
        timeline->step(); // to the first block's end
        QVERIFY(moved.count() > 0);
        QVERIFY(f.document.playhead()->isSweeping());
        QCOMPARE(panel->chart()->playhead(), timeline->chart()->playhead());
        QVERIFY(panel->chart()->isSweeping());
        QTest::mouseClick(timeline->playButton(), Qt::LeftButton);
        QVERIFY(timeline->isPlaying());
        const double before = panel->chart()->playhead();
        QTRY_VERIFY(panel->chart()->playhead() > before);
        QCOMPARE(panel->chart()->playhead(), timeline->chart()->playhead());
        timeline->pause();
        f.window.showChart(QStringLiteral("memory-over-step"));
        QVERIFY(panel->chart()->isSweeping());
        // A new m: a new schedule, drawn whole.
        setAndEvaluate(f.document, "microbatches", "6");
        QVERIFY(!panel->chart()->isSweeping());
        QCOMPARE(panel->chart()->drawnPoints(), int(panel->chart()->timeline().points.size()));
    }
};

QTEST_MAIN(TestMemoryStep)
#include "tst_memory_step.moc"
