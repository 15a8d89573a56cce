// The chart pages (ui/charts/chart_pages.cpp): one table that the window's tabs, the
// formula panel, File → Export and `parascope export --chart` all take, and redraws of
// only what an edit concerns, through the real window offscreen (docs/DESIGN.md §2, 7, 16).
#include "core/evaluate.h"
#include "core/memory_timeline.h"
#include "io/presets_io.h"
#include "io/text.h"
#include "modal_answerer.h"
#include "run_parascope.h"
#include "test_files.h"
#include "test_images.h"
#include "test_scenarios.h"
#include "ui/charts/bubble_page.h"
#include "ui/charts/chart_pages.h"
#include "ui/charts/expert_chart.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/serving_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/charts/step_time_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/export/chart_export.h"
#include "ui/export/export_actions.h"
#include "ui/formula_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "widget_helpers.h"

#include <QChartView>
#include <QComboBox>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>
#include <QXmlStreamReader>
#include <cmath>

using namespace ui;

class TestChartPages : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // The text of an SVG, every run of it, without white space (a label may wrap anywhere).
    static QString svgText(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        QXmlStreamReader xml(&file);
        QString text;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::Characters)
                text += xml.text().toString();
        return text.remove(QRegularExpression(QStringLiteral("\\s")));
    }

    // The window on the step-time tab, after `settings` (KEY=VALUE) are applied.
    struct StepTimeWindow
    {
        ScenarioDocument document{io::builtinPresets()};
        MainWindow window{&document};
        StepTimeChart *chart = nullptr;

        explicit StepTimeWindow(const QStringList &settings)
        {
            for (const QString &setting : settings) {
                const QString key = setting.section(u'=', 0, 0);
                if (!document.setField(key, setting.section(u'=', 1)))
                    qWarning("not set: %s", qPrintable(setting));
            }
            document.flush();
            window.resize(1280, 800);
            window.show();
            window.showChart(QStringLiteral("step-time"));
            chart = window.chart<StepTimeChart>();
        }
    };

    // The window shown on the sharding tab, the default scenario's.
    struct ShardingWindow
    {
        ScenarioDocument document{io::builtinPresets()};
        MainWindow window{&document};
        ShardingChart *chart = nullptr;
        bool exposed = false;

        ShardingWindow()
        {
            window.show();
            exposed = QTest::qWaitForWindowExposed(&window);
            window.showChart(QStringLiteral("sharding"));
            chart = window.chart<ShardingChart>();
        }
    };

private Q_SLOTS:
    // The tabs, their titles and ids as shipped (README, "Export for slides"): users type
    // the ids and examples name them, so a new table must keep them.
    void tabsAsShipped()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const QList<std::pair<QString, QString>> shipped{
            {"memory", "Stage memory"}, {"bubble", "Bubble"},
            {"timeline", "Timeline"},   {"memory-over-step", "Memory over the step"},
            {"step-time", "Step time"}, {"serving", "Serving"},
            {"sharding", "Sharding"},   {"model-size", "Model weights"},
        };
        QCOMPARE(window.charts()->count(), shipped.size());
        for (int i = 0; i < window.charts()->count(); ++i) {
            window.charts()->setCurrentIndex(i);
            QCOMPARE(window.currentPage()->id(), shipped[i].first);
            QCOMPARE(window.charts()->tabText(i), shipped[i].second);
        }
        QCOMPARE(chartPageIds(), QStringList({"memory", "bubble", "timeline", "memory-over-step",
                                              "step-time", "serving", "sharding", "model-size"}));
    }

    void everyPage_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString &id : chartPageIds())
            QTest::addRow("%s", qPrintable(id)) << id;
    }

    // Every page of the table is a tab with its title, shows formulas with its numbers, and
    // `parascope export --chart ID` draws it into a PNG that is not blank.
    void everyPage()
    {
        QFETCH(QString, id);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const ChartPage *page = window.page(id);
        QVERIFY(page);
        QCOMPARE(page->id(), id);
        window.showChart(id);
        QCOMPARE(window.currentPage(), page);
        QCOMPARE(window.charts()->tabText(window.charts()->currentIndex()), page->title());
        QVERIFY(window.charts()->currentWidget()->isVisible());
        QVERIFY(!page->subject().isEmpty());
        // Each page's formulas cite where they come from, with the scenario's numbers.
        const QString formulas = window.formulas()->toPlainText();
        QVERIFY2(formulas.contains(QStringLiteral("=")), qPrintable(formulas));
        QVERIFY2(formulas.size() > 100, qPrintable(formulas));

        // Serving draws for inference; for training it has nothing to export.
        const QString png = m_dir.filePath(id + ".png");
        QStringList arguments{"export", "--chart", id,        "--out",
                              png,      "--size",  "640x400", "--no-caption"};
        if (id == QLatin1String("serving"))
            arguments << "--set"
                      << "mode=inference";
        const ParascopeRun cli = runParascope(arguments, 60000);
        QVERIFY(!cli.timedOut);
        QVERIFY2(cli.status == 0, qPrintable(cli.err));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(640, 400));
        QVERIFY2(distinctColours(image) >= 20, qPrintable(QString::number(distinctColours(image))));
    }

    // docs/step_time.md: every stage's parts add up to the step time, so each bar, read back
    // from the chart's series, reaches it; one bar per stage, the busiest marked.
    void stepTimeBarsAddUpToTheStep_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("the default: 70B, T=8 K=4 D=2, 1f1b") << QStringList{};
        QTest::addRow("interleaved, v=2, K=8, m=32")
            << QStringList{"pp=8", "schedule=interleaved", "virtual_stages=2", "microbatches=32"};
        QTest::addRow("zb-h1") << QStringList{"schedule=zb-h1"};
        QTest::addRow("gpipe, full recomputation")
            << QStringList{"schedule=gpipe", "recompute=full"};
        QTest::addRow("inference, K=2") << QStringList{"mode=inference", "pp=2"};
        QTest::addRow("mfu forced to 0.5") << QStringList{"mfu=0.5"};
        QTest::addRow("one stage, one device")
            << QStringList{"model=llama-3.1-8b", "pp=1", "tp=1", "dp=1"};
        QTest::addRow("405B, K=63 (2 layers a stage), m=64")
            << QStringList{"model=llama-3.1-405b", "pp=63", "microbatches=64", "dp=1"};
    }
    void stepTimeBarsAddUpToTheStep()
    {
        QFETCH(QStringList, settings);
        StepTimeWindow w(settings);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const core::Report &r = w.document.lastValidReport();
        QVERIFY(r.ok());
        QVERIFY(r.stepTime);
        QVERIFY(w.chart->message().isEmpty());
        const double unit = w.chart->secondsPerUnit();
        std::vector<double> sums(static_cast<std::size_t>(r.pp), 0.0);
        for (const core::TimePartInfo &part : core::kTimeParts) {
            const QList<qreal> values = w.chart->values(part.part);
            QCOMPARE(values.size(), r.pp);
            for (int stage = 0; stage < r.pp; ++stage) {
                QVERIFY(values[stage] >= 0);
                sums[static_cast<std::size_t>(stage)] += values[stage] * unit;
            }
        }
        for (int stage = 0; stage < r.pp; ++stage)
            QVERIFY2(std::abs(sums[static_cast<std::size_t>(stage)] - r.stepTime->stepTimeS) <=
                         1e-9 * r.stepTime->stepTimeS,
                     qPrintable(QStringLiteral("stage %1: %2 s of %3 s")
                                    .arg(stage)
                                    .arg(sums[static_cast<std::size_t>(stage)], 0, 'g', 12)
                                    .arg(r.stepTime->stepTimeS, 0, 'g', 12)));
        // The value axis's unit keeps the step at 1 or more of it: s, ms or µs.
        QVERIFY(r.stepTime->stepTimeS / unit >= 1);
        QVERIFY(w.chart->axisTitle().endsWith(unit == 1 ? "(s)" : unit == 1e-3 ? "(ms)" : "(µs)"));
        QCOMPARE(w.chart->busiestStage(), r.stepTime->busiestStage);
        const QRegularExpression busiest(
            QStringLiteral("^(Stage )?%1 ★$").arg(r.stepTime->busiestStage));
        QVERIFY2(w.chart->stageLabels().indexOf(busiest) >= 0,
                 qPrintable(w.chart->stageLabels().join(u'|')));
    }

    // Only the parts a scenario has are in the legend: one device has no communication and,
    // with K = 1, no bubble ((K−1)/(K−1+m) = 0).
    void stepTimeLegendListsThePartsThereAre_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QStringList>("absent");
        QTest::addRow("one device") << QStringList{"model=llama-3.1-8b", "pp=1", "tp=1", "dp=1"}
                                    << QStringList{"tensor-parallel comm.", "pipeline sends",
                                                   "bubble", "data-parallel sync"};
        QTest::addRow("T=8, K=1, D=1, no recomputation")
            << QStringList{"pp=1", "dp=1", "model=llama-3.1-8b", "recompute=none"}
            << QStringList{"pipeline sends", "bubble", "data-parallel sync", "recomputation"};
        QTest::addRow("inference has no optimizer step")
            << QStringList{"mode=inference", "dp=1"}
            << QStringList{"optimizer step", "data-parallel sync", "recomputation"};
    }
    void stepTimeLegendListsThePartsThereAre()
    {
        QFETCH(QStringList, settings);
        QFETCH(QStringList, absent);
        StepTimeWindow w(settings);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const QStringList legend = w.chart->legendLabels();
        for (const QString &part : absent)
            QVERIFY2(!legend.contains(part), qPrintable(legend.join(u'|')));
        for (const char *always : {"matrix multiplies", "memory-bound", "attention"})
            QVERIFY2(legend.contains(QString::fromUtf8(always)), qPrintable(legend.join(u'|')));
        QVERIFY(legend.contains(QStringLiteral("Busiest stage: %1").arg(w.chart->busiestStage())));
    }

    // At the largest text beside the docks the legend's twelve rows do not fit the chart's
    // height: its text shrinks (to no less than 0.6 of the chart's) so that every row shows,
    // and at normal size it is the chart's own.
    void stepTimeLegendShrinksToFit()
    {
        StepTimeWindow w({});
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.chart->isVisible());
        QCOMPARE(w.chart->legendScale(), 1.0);
        QAction *larger = nullptr;
        for (QAction *action : w.window.findChildren<QAction *>())
            if (action->text() == QLatin1String("&Larger text"))
                larger = action;
        QVERIFY(larger);
        w.window.presentationAction()->trigger();
        for (int step = 0; step < 3; ++step)
            larger->trigger();
        w.window.resize(1280, 800);
        QApplication::processEvents();
        auto *bars = w.chart->findChild<QWidget *>(QStringLiteral("stepTimeBars"));
        QVERIFY(bars);
        QTRY_VERIFY2(w.chart->legendScale() < 1.0, qPrintable(QString::number(bars->height())));
        QVERIFY(w.chart->legendScale() >= 0.6);
        QFont font = bars->font();
        font.setPointSizeF(font.pointSizeF() * w.chart->legendScale());
        const double rows = static_cast<double>(w.chart->legendLabels().size()) *
                            (QFontMetricsF(font).height() + 4);
        QVERIFY2(rows <= bars->height(),
                 qPrintable(QStringLiteral("%1 of %2").arg(rows).arg(bars->height())));
    }

    // At K = 63 the stage axis names every n-th stage (n of 1, 2, 5, 10, …) and the busiest,
    // not 63 labels cut to "…".
    void stepTimeStageLabelsThinOut()
    {
        StepTimeWindow w({"model=llama-3.1-405b", "pp=63", "microbatches=64", "dp=1"});
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(!w.chart->stageLabels().isEmpty());
        const QStringList labels = w.chart->stageLabels();
        QVERIFY2(labels.size() < 63 && labels.size() >= 4, qPrintable(labels.join(u'|')));
        QList<int> plain;
        for (const QString &label : labels) {
            bool number = false;
            const int stage = QString(label).remove(QStringLiteral(" ★")).toInt(&number);
            QVERIFY2(number, qPrintable(label)); // bare numbers under "Pipeline stage"
            if (!label.endsWith(QStringLiteral(" ★")))
                plain << stage;
        }
        QCOMPARE(plain.front(), 0);
        const int every = plain[1] - plain[0];
        QVERIFY(every == 2 || every == 5 || every == 10 || every == 20);
        for (int stage : plain)
            QCOMPARE(stage % every, 0);
        QCOMPARE(labels.filter(QStringLiteral("★")).size(), 1);
    }

    // Hovering a segment names its stage and part with its seconds and share of the step.
    void stepTimeToolTips()
    {
        StepTimeWindow w({});
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const core::StepTimeReport &st = *w.document.lastValidReport().stepTime;
        for (int stage = 0; stage < w.document.lastValidReport().pp; ++stage) {
            const double s = st.stages[static_cast<std::size_t>(stage)][core::TimePart::matmul];
            const QString tip = w.chart->toolTipFor(stage, core::TimePart::matmul);
            QVERIFY2(tip.startsWith(QStringLiteral("Stage %1").arg(stage)), qPrintable(tip));
            QVERIFY2(tip.contains(QStringLiteral("matrix multiplies: %1 s").arg(s, 0, 'g', 3)),
                     qPrintable(tip));
            QVERIFY2(
                tip.contains(QStringLiteral("%1 % of the").arg(100 * s / st.stepTimeS, 0, 'f', 1)),
                qPrintable(tip));
            QCOMPARE(tip.contains("(busiest)"), stage == st.busiestStage);
        }
        // The real mouse over the middle of stage 0's bottom segment (the matrix multiplies).
        auto *bars = w.chart->findChild<QWidget *>(QStringLiteral("stepTimeBars"));
        QVERIFY(bars);
        const QPointF at = w.chart->positionOf(0, st.stages[0][core::TimePart::matmul] / 2 /
                                                      w.chart->secondsPerUnit());
        QTest::mouseMove(bars, at.toPoint());
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), w.chart->toolTipFor(0, core::TimePart::matmul));
    }

    // In inference the step is the prefill; without a published link (SN40L at T = 4) its time
    // is a lower bound, and the title and the legend say so (docs/step_time.md).
    void stepTimeAsALowerBound()
    {
        const QStringList settings{"mode=inference", "model=llama-3.1-405b",
                                   "device=sn40l",   "precision=int4",
                                   "tp=4",           "pp=1",
                                   "dp=1",           "microbatches=1"};
        StepTimeWindow w(settings);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const core::Report &r = w.document.lastValidReport();
        QVERIFY(r.stepTime && r.stepTime->linkTimeExcluded);
        QVERIFY2(w.chart->title().startsWith("Where the prefill's time goes"),
                 qPrintable(w.chart->title()));
        QVERIFY(w.chart->title().contains("at least"));
        QVERIFY2(!w.chart->legendLabels().filter("Step time ≥").isEmpty(),
                 qPrintable(w.chart->legendLabels().join(u'|')));
    }

    // Without seconds (a device without the precision's peak FLOPS: layer-time units) the
    // page says why, in the tab and its formulas, rather than drawing an empty chart; an
    // export of it is refused with the same reason, and writes nothing.
    void stepTimeWithoutSeconds()
    {
        const QStringList settings{"device=a100-80gb", "precision=fp8"};
        StepTimeWindow w(settings);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const core::Report &r = w.document.lastValidReport();
        QVERIFY(r.timeInLayerUnits);
        QVERIFY(!r.stepTime);
        const QString why = QStringLiteral("NVIDIA A100 80GB SXM publishes no fp8 peak FLOPS");
        QVERIFY2(w.chart->message().contains(why), qPrintable(w.chart->message()));
        QVERIFY(!w.chart->findChild<QWidget *>(QStringLiteral("stepTimeBars"))->isVisible());
        auto *label = w.chart->findChild<QLabel *>(QStringLiteral("stepTimeMessage"));
        QVERIFY(label && label->isVisible());
        QCOMPARE(label->text(), w.chart->message());
        QTRY_VERIFY(w.window.formulas()->toPlainText().contains(why));

        // Back to seconds: the bars return.
        QVERIFY(w.document.setField(QStringLiteral("device"), QStringLiteral("h100-sxm")));
        w.document.flush();
        QVERIFY(w.chart->message().isEmpty());
        QVERIFY(w.chart->findChild<QWidget *>(QStringLiteral("stepTimeBars"))->isVisible());

        const QString svg = m_dir.filePath("step-time-layer-units.svg");
        QStringList arguments{"export", "--chart", "step-time", "--out", svg, "--no-caption"};
        for (const QString &setting : settings)
            arguments << "--set" << setting;
        const ParascopeRun cli = runParascope(arguments);
        QCOMPARE(cli.status, 2);
        QVERIFY2(cli.err.startsWith("parascope: --chart: step-time has nothing to draw: No step "
                                    "time in seconds: " +
                                    why),
                 qPrintable(cli.err));
        QVERIFY(!QFileInfo::exists(svg));
    }

    // docs/inference.md: the Serving tab draws core::servingCurve, the memory-bound points
    // apart from the compute-bound ones, the scenario's batch where the report puts it, and
    // memory against the context from the fullest stage's terms; in training it says why it
    // draws nothing.
    void servingCurve()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const auto &[key, value] : {std::pair{"mode", "inference"},
                                         {"tp", "4"},
                                         {"pp", "1"},
                                         {"dp", "1"},
                                         {"microbatches", "1"},
                                         {"microbatch_size", "16"},
                                         {"seq_len", "2048"},
                                         {"output_len", "512"}})
            QVERIFY(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)));
        document.flush();
        window.resize(1280, 800);
        window.show();
        window.showChart(QStringLiteral("serving"));
        auto *chart = window.chart<ServingChart>();
        QVERIFY(chart);
        QVERIFY2(chart->message().isEmpty(), qPrintable(chart->message()));
        const core::Report &r = document.lastValidReport();
        QVERIFY(r.serving);
        const auto curve = core::servingCurve(document.scenario(), document.presets());
        QVERIFY(curve.size() >= 3);
        QCOMPARE(curve.front().batch, std::int64_t{1});
        QVERIFY(curve.front().memoryBound);
        const QList<QPointF> memory = chart->memoryBoundPoints();
        QVERIFY(!memory.isEmpty());
        QCOMPARE(memory.front(),
                 QPointF(1e3 * curve.front().timePerTokenS, curve.front().tokensPerSPerDevice));
        QCOMPARE(chart->currentPoint(),
                 QPointF(1e3 * r.serving->decodeMeanS, r.serving->decodeTokensPerS / 4));
        // A point's tooltip names its batch, time, throughput and bound; off the curve, none.
        QCOMPARE(chart->describe(memory.front()),
                 QStringLiteral("Batch 1: %1 ms a token, %2 tokens/s per device, memory-bound")
                     .arg(1e3 * curve.front().timePerTokenS, 0, 'f', 2)
                     .arg(std::llround(curve.front().tokensPerSPerDevice)));
        QVERIFY(chart->describe(QPointF(0, 1e9)).isEmpty());
        // Hovering the curve shows that text as a tooltip.
        auto *curveSeries = qobject_cast<QLineSeries *>(
            chart->findChildren<QChartView *>().constFirst()->chart()->series().constFirst());
        QVERIFY(curveSeries);
        Q_EMIT curveSeries->hovered(memory.front(), true);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), chart->describe(memory.front()));
        Q_EMIT curveSeries->hovered(memory.front(), false);
        const QList<QPointF> line = chart->memoryLine();
        QCOMPARE(line.size(), 2);
        const core::StageReport &stage = r.stages.front();
        QVERIFY(near(line.front().y(), double(stage.totalBytes - stage.kvCacheBytes) / 1e9, 1e-9));
        QVERIFY(near(chart->capacityGb(), double(stage.capacityBytes) / 1e9, 1e-9));

        const QList<QChartView *> views = chart->findChildren<QChartView *>();
        QCOMPARE(views.size(), 2);
        QVERIFY(views.at(1)->isVisible());
        // The legends name every series in full, also in a window as narrow as it goes, where
        // Qt Charts' single row cut them to "Mem…" and "Sta…".
        const QStringList names{QStringLiteral("Memory-bound"),
                                QStringLiteral("Compute-bound"),
                                QStringLiteral("This batch (16)"),
                                QStringLiteral("Stage %1").arg(core::highestStage(r)),
                                QStringLiteral("Capacity"),
                                QStringLiteral("This context")};
        QCOMPARE(chart->legendLabels(), names);
        QCOMPARE(chart->shownLegendLabels(), names);
        // Each plot's title the longest of its wordings that fits the plot's chart, where Qt
        // Charts would cut it with "…": at the window's narrowest, the shorter ones.
        const auto titlesFit = [chart] {
            const QList<QChartView *> charts = chart->findChildren<QChartView *>();
            for (qsizetype i = 0; i < charts.size(); ++i) {
                QChart *c = charts.at(i)->chart();
                const QFontMetricsF metrics(c->titleFont());
                if (metrics.horizontalAdvance(chart->titles().at(i)) >
                    c->size().width() - c->margins().left() - c->margins().right() -
                        metrics.height())
                    return false;
            }
            return true;
        };
        QVERIFY(titlesFit());
        QVERIFY2(chart->titles().at(0).endsWith(QStringLiteral(", the most that fit")),
                 qPrintable(chart->titles().at(0)));
        window.resize(window.minimumSizeHint());
        QTRY_COMPARE(chart->shownLegendLabels(), names);
        QTRY_VERIFY(titlesFit());
        QVERIFY2(chart->titles().at(0).startsWith(QStringLiteral("Batch 1 to ")),
                 qPrintable(chart->titles().at(0)));
        QVERIFY2(chart->titles().at(1).startsWith(QStringLiteral("Up to ")),
                 qPrintable(chart->titles().at(1)));
        window.resize(1280, 800);

        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("training")));
        document.flush();
        QTRY_VERIFY(chart->message().contains("inference"));
        // The message alone, not a blank memory chart beside it, nor a legend; back in
        // inference, both.
        QVERIFY(!views.at(1)->isVisible());
        QVERIFY(chart->legendLabels().isEmpty());
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        QTRY_VERIFY(chart->message().isEmpty());
        QVERIFY(views.at(1)->isVisible());
        QCOMPARE(chart->legendLabels(), names);
    }

    // A training scenario's Serving page offers the switch it asks for: one press sets the
    // mode to inference and draws the curve, one undo brings training and the button back.
    // An exported image has no button.
    void servingSwitchesToInference()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart(QStringLiteral("serving"));
        auto *chart = window.chart<ServingChart>();
        QVERIFY(chart);
        QTRY_VERIFY(chart->message().contains("inference"));
        QPushButton *button = chart->inferenceButton();
        QVERIFY(button->isVisible());
        // Under the message, on the page and clear of its title.
        QVERIFY(chart->rect().contains(button->geometry()));
        QVERIFY(button->geometry().top() >= 2 * button->fontMetrics().height());
        QTest::mouseClick(button, Qt::LeftButton);
        document.flush();
        QCOMPARE(document.fieldText(QStringLiteral("mode")), QStringLiteral("inference"));
        QTRY_VERIFY(chart->message().isEmpty());
        QVERIFY(!button->isVisible());
        QVERIFY(!chart->memoryBoundPoints().isEmpty());
        document.undoStack()->undo();
        document.flush();
        QCOMPARE(document.fieldText(QStringLiteral("mode")), QStringLiteral("training"));
        QTRY_VERIFY(button->isVisible());

        const core::Report &r = document.lastValidReport();
        ServingChart image;
        image.setReport(r, core::servingCurve(document.scenario(), document.presets()));
        image.resize(800, 500);
        image.show();
        QVERIFY(QTest::qWaitForWindowExposed(&image));
        QVERIFY(!image.inferenceButton()->isVisible());
    }

    // A plot's title is the longest of its wordings that fits: the memory plot, two fifths of
    // the page, says why the context stops ("the model's window") where there is room, and
    // the context alone where Qt Charts would cut it ("Up to 131,072 tokens: the model'…"
    // on a 1,600 × 1,000 export).
    void servingTitlesFitTheirPlots_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<QString>("memoryTitle");
        QTest::addRow("wide") << 1600 << "Up to 131,072 tokens: the model's window";
        QTest::addRow("narrow") << 640 << "Up to 131,072 tokens";
    }
    void servingTitlesFitTheirPlots()
    {
        QFETCH(int, width);
        QFETCH(QString, memoryTitle);
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s = scenario("mode=inference");
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.serving && r.serving->maxContextIsModelWindow);
        ServingChart chart;
        chart.setReport(r, core::servingCurve(s, presets));
        chart.resize(width, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QTRY_COMPARE(chart.titles().at(1), memoryTitle);
        for (QChartView *view : chart.findChildren<QChartView *>()) {
            const QChart *c = view->chart();
            const QFontMetricsF metrics(c->titleFont());
            QVERIFY2(metrics.horizontalAdvance(c->title()) <=
                         c->size().width() - c->margins().left() - c->margins().right() -
                             metrics.height(),
                     qPrintable(c->title()));
        }
    }

    // An unknown id is no page: nothing falls back to another chart.
    // Inference runs forward passes only: the bubble's formula names no training schedule,
    // and its closed form is GPipe's fill and drain, (K − 1)/(K − 1 + m).
    void inferenceBubbleIsTheForwardPipeline()
    {
        const core::Scenario s = scenario("mode=inference,pp=4,microbatches=8,schedule=zb-h1");
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok());
        const QString text = BubblePage::bubbleFormulas(s, r);
        QVERIFY2(text.contains("Bubble (inference: the forward passes only)"), qPrintable(text));
        QVERIFY2(text.contains("(K−1)/(K−1+m) = 3/11"), qPrintable(text));
        QVERIFY(!text.contains("zb-h1") && !text.contains("Qi et al."));
    }

    // The bubble's formula names each schedule's closed form and its source, with the
    // scenario's numbers. Untimed (an A100 has no FP8 peak: layer-time units) the stages are
    // equal and the sends free, so the closed forms hold. K = 4, m = 8, by hand:
    // GPipe and 1F1B 3/(3 + 8) = 27.3 % (Narayanan et al. 2021, §2.2); interleaved v = 2:
    // 3/(16 + 3) = 15.8 % (§2.2.2); ZB-H1 with B = W = F: 3F/(8 × 3F + 3F) = 11.1 % (Qi et al.
    // 2023, §3.1); DualPipeV with a chunk's F = B = W: (K − 1)(F&B + B − 3W) = 3 (3F + 2F − 3F)
    // = 6F idle beside 8 × 6F busy = 11.1 % (deepseek-ai/DualPipe, README); DualPipe, PP = K
    // devices, a chunk one of a device's two stages: (K/2 − 1)(F&B + B − 3W) = 1 × (3F + 2F −
    // 3F) = 2F idle beside 8 × 3F busy = 7.7 % (the same README row).
    void bubbleFormulaNamesTheSchedule_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QStringList>("expression");
        QTest::addColumn<QString>("source");
        const QString untimed =
            QStringLiteral("device=a100-80gb,precision=fp8,pp=4,microbatches=8,schedule=");
        QTest::addRow("gpipe") << untimed + "gpipe" << QStringList{"(K−1)/(K−1+m) = 3/11 = 27.3 %"}
                               << "Huang et al. 2019 (GPipe), §2.3";
        QTest::addRow("interleaved, v = 2")
            << untimed + "interleaved,virtual_stages=2"
            << QStringList{"(K−1)/(v·m+K−1) = 3/19 = 15.8 %"} << "Narayanan et al. 2021, §2.2.2";
        QTest::addRow("zb-h1") << untimed + "zb-h1" << QStringList{"(K−1)(F+B−W)", "= 11.1 %"}
                               << "Qi et al. 2023, 'Zero Bubble Pipeline Parallelism', §3.1";
        QTest::addRow("dualpipev")
            << untimed + "dualpipev"
            << QStringList{"bubble time = (PP/2−1)(F&B+B−3W) = 3(F&B+B−3W), PP = 2K = 8 chunks "
                           "= 11.1 %",
                           "1 − busy ÷ (K × makespan) = 11.1 %"}
            << "deepseek-ai/DualPipe, README (DualPipeV: Sea AI Lab's cut-in-half)";
        QTest::addRow("dualpipe")
            << untimed + "dualpipe"
            << QStringList{"bubble time = (PP/2−1)(F&B+B−3W) = 1(F&B+B−3W), PP = K = 4 devices "
                           "= 7.7 %",
                           "1 − busy ÷ (K × makespan) = 7.7 %"}
            << "deepseek-ai/DualPipe, README (DualPipe: DeepSeek-V3 Technical Report §3.2.1; "
               "dualpipe.py)";
    }
    void bubbleFormulaNamesTheSchedule()
    {
        QFETCH(QString, set);
        QFETCH(QStringList, expression);
        QFETCH(QString, source);
        const core::Scenario s = scenario(set);
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok() && r.timeInLayerUnits);
        const QString text = BubblePage::bubbleFormulas(s, r);
        QVERIFY2(
            text.contains(QStringLiteral("Bubble (%1)").arg(io::qs(core::toString(s.schedule)))),
            qPrintable(text));
        for (const QString &part : expression)
            QVERIFY2(text.contains(part), qPrintable(text));
        QVERIFY2(text.contains(source), qPrintable(text));
    }

    // Memory over the step says how many micro-batches' activations the schedule keeps at
    // most, and when an op frees them: GPipe all m on every stage (Huang et al. 2019, §2.3);
    // DualPipeV PP + 1 = 2K + 1 chunks of half the stage on every stage (deepseek-ai/DualPipe,
    // README), freed by a whole B or by the W a zero-bubble B deferred (dualpipev.py). The
    // formula shows the fullest stage: GPipe's last, which holds the LM head as the first holds
    // the embedding, and the cached outputs besides; DualPipeV's stage 0, which holds both
    // ends of the V, and with them the cached outputs. DualPipe keeps PP + 1 = K + 1 chunks of
    // one stage on every device, whose 40 layers are two stages of 20, its own of the forward
    // direction and the mirrored one of the reverse (dualpipe.py); its end stages hold the
    // same, stage 0 shown first, caching the logits of the reverse direction's m/2.
    void memoryStepFormulaCountsTheSchedule_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QStringList>("says");
        QTest::addRow("gpipe, K=4, m=8")
            << "pp=4,microbatches=8,schedule=gpipe"
            << QStringList{"8 micro-batches × 3.4 GB", "GPipe runs every forward first",
                           "− at each B (", "Cached outputs on the last stage"};
        QTest::addRow("dualpipev, K=4, m=8")
            << "pp=4,microbatches=8,schedule=dualpipev"
            << QStringList{
                   "9 chunks ÷ 2 = 4.5 micro-batches × ",
                   "DualPipeV: 2K + 1 = 9 chunks of half the stage at most",
                   "− at each whole B, or a zero-bubble B's W",
                   "20 layers × per layer ÷ 2 = ", "Cached outputs on stage 0, where the V ends"};
        QTest::addRow("dualpipev, K=2, m=4")
            << "pp=2,microbatches=4,schedule=dualpipev"
            << QStringList{"5 chunks ÷ 2 = 2.5 micro-batches × ", "2K + 1 = 5 chunks",
                           "40 layers × per layer ÷ 2 = "};
        QTest::addRow("dualpipe, K=4, m=8")
            << "pp=4,microbatches=8,schedule=dualpipe"
            << QStringList{"5 chunks ÷ 2 = 2.5 micro-batches × ",
                           "DualPipe: K + 1 = 5 chunks of one stage",
                           "− at each whole B, or a zero-bubble B's W",
                           "40 layers × per layer ÷ 2 = ",
                           "two stages' copies, its stage 0 of the forward direction and stage 3 "
                           "of the reverse one",
                           "Cached outputs on stage 0, where the reverse direction ends",
                           "m/2 = 4 of them"};
        QTest::addRow("dualpipe, K=2, m=4")
            << "pp=2,microbatches=4,schedule=dualpipe"
            << QStringList{"3 chunks ÷ 2 = 1.5 micro-batches × ", "K + 1 = 3 chunks",
                           "80 layers × per layer ÷ 2 = ", "m/2 = 2 of them"};
    }
    void memoryStepFormulaCountsTheSchedule()
    {
        QFETCH(QString, set);
        QFETCH(QStringList, says);
        const core::Scenario s = scenario(set);
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets, {.timeline = true});
        QVERIFY(r.ok());
        const QString text = createChartPage(QStringLiteral("memory-over-step"))
                                 ->formulas(ChartInputs{s, presets, r});
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text));
    }

    // The step's formula says how many collectives the data-parallel sync is split into:
    // MLPerf v5.1's Llama 3.1 8B on 256 B200s, buckets of 134,217,728 parameters, the
    // embedding's 525,336,576 in the first: 1 + ceil((8,030,261,248 − 525,336,576) / 134,217,728)
    // = 57 (docs/step_time.md, "Buckets").
    void stepFormulaCountsTheBuckets()
    {
        const core::Scenario s = scenario(
            "model=llama-3.1-8b,framework=megatron,device=b200,precision=fp8,fp8_params=true,"
            "zero=1,grad_precision=bf16,seq_len=8192,tp=1,pp=1,cp=2,dp=128,microbatches=1,"
            "microbatch_size=1,dp_bucket_params=134217728,dp_collective_units=8");
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        QCOMPARE(r.stepTime->dpBuckets, 57);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        QVERIFY2(text.contains("in 57 buckets, each a collective paying its ring's latency"),
                 qPrintable(text));
    }

    // The step's formula says where hybrid sharding's all-reduce runs: 16 replicas of 8 A100s,
    // each GPU's own NIC of 6.25 GB/s at 0.9, 5.6 GB/s (docs/step_time.md, "Hybrid sharding").
    void stepFormulaSaysWhereTheReplicasReduce()
    {
        const core::Scenario s =
            scenario("model=llama-3.1-8b,device=a100-80gb,inter_node_gb_per_s=6.25,tp=1,pp=1,"
                     "dp=128,zero=3,zero_replicas=16,seq_len=4096,microbatches=1");
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        QVERIFY2(text.contains("ZeRO shards over 8 devices and each shard's gradients are "
                               "all-reduced over the 16 replicas at 5.6 GB/s a device over the "
                               "NICs its members have in a node"),
                 qPrintable(text));
    }

    // The attention kernel's head-width factors in the formulas (docs/step_time.md, "Head
    // width"): gpt-oss's 64-wide heads on an H100 take cuDNN's 0.701 and 0.836 (Shah et al.
    // 2024, Figures 5 and 6); Llama's 128-wide ones no block.
    void stepFormulaGivesTheHeadWidth()
    {
        const core::Scenario oss = scenario("model=gpt-oss-120b,device=h100-sxm,precision=bf16,"
                                            "tp=1,pp=1,dp=8,ep=8,seq_len=4096");
        const core::Report r = core::evaluate(oss, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        const QString text = StepTimePage::stepTimeFormulas(oss, r);
        QVERIFY2(text.contains("Attention at head width 64"), qPrintable(text));
        QVERIFY2(text.contains("× 0.701 forward, × 0.836 backward"), qPrintable(text));
        const core::Scenario llama = scenario("model=llama-3.1-8b,device=h100-sxm");
        const core::Report l = core::evaluate(llama, io::builtinPresets());
        QVERIFY(!StepTimePage::stepTimeFormulas(llama, l).contains("head width"));
    }

    // The weights' casts that run once a step (docs/step_time.md, "Weight casts"): Llama 3.1
    // 70B's stage of 20 layers at T = 8, 20 × 106,971,136 parameters, read 2 and written 2
    // (Hopper's data and transpose) in FP8 with BF16 weights; nothing in BF16 training.
    void stepFormulaCastsOnceAStep()
    {
        const core::Scenario fp8 = scenario("precision=fp8,fp8_params=false");
        const core::Report r = core::evaluate(fp8, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        const QString text = StepTimePage::stepTimeFormulas(fp8, r);
        QVERIFY2(text.contains("Weights cast once a step"), qPrintable(text));
        QVERIFY2(text.contains("2,139,422,720 params × 4 B ÷ "), qPrintable(text));
        // The stage's own work counts them: 2,139,422,720 × 4 B at 0.9 of 3,350 GB/s, 2.838 ms.
        const core::Presets presets = io::builtinPresets();
        const QString stage =
            createChartPage(QStringLiteral("step-time"))->formulas(ChartInputs{fp8, presets, r});
        QVERIFY2(stage.contains("+ sends + casts once = ") && stage.contains(" + 0.002838 s = "),
                 qPrintable(stage));
        const core::Scenario bf16 = scenario("");
        const core::Report b = core::evaluate(bf16, io::builtinPresets());
        QVERIFY(!StepTimePage::stepTimeFormulas(bf16, b).contains("cast once"));
    }

    // The weights' formula divides by what ZeRO-3 shards over: D × C (docs/experts.md,
    // "Memory"), and under torchtitan's profile the FP32 parameters, 4 bytes each
    // (docs/frameworks.md, "torchtitan, FP32 parameters").
    void memoryFormulaShardsTheWeights_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("says");
        QTest::addRow("ZeRO-3 over D × C") << "zero=3,cp=2,seq_len=8192"
                                           << " params × 2 B ÷ D·C = ";
        QTest::addRow("torchtitan's FP32 parameters under FSDP2")
            << "framework=torchtitan,model=llama-3.1-8b,tp=1,pp=1,dp=8,zero=3"
            << "8,030,261,248 params × 4 B ÷ D = 4.0 GB";
        QTest::addRow("torchtitan under pipelining")
            << "framework=torchtitan,model=llama-3.1-8b,tp=1,pp=2,dp=4,zero=1"
            << " params × (2 B + 4 B ÷ D) = ";
        // FP8 weights are the layers' (32 × 218,112,000); the embedding, the final norm and the
        // LM head (2 × 525,336,576 + 4,096) stay in BF16: 9,080,938,496 bytes.
        QTest::addRow("FP8 weights, the layers' only")
            << "framework=megatron,model=llama-3.1-8b,tp=1,pp=1,dp=8,precision=fp8,fp8_params=true"
            << "6,979,584,000 params × 1 B + 1,050,677,248 × 2 B = 9.1 GB";
        // Adam's moments in BF16: 4 + 2 + 2 bytes of optimizer states, sharded by ZeRO-1.
        QTest::addRow("BF16 moments") << "optimizer_moments=bf16"
                                      << "2 B + 8 B ÷ D per parameter";
    }
    void memoryFormulaShardsTheWeights()
    {
        QFETCH(QString, set);
        QFETCH(QString, says);
        const core::Scenario s = scenario(set);
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        QVERIFY2(text.contains(says), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("÷ D=")), qPrintable(text));
    }

    // The step's formulas name the optimizer step's passes and their bytes a parameter, as the
    // framework runs them (docs/step_time.md, "Optimizer"): Megatron-LM's with BF16
    // gradients cast (2 + 4), read for the norm (4), Adam (4·4 + 3·4) and the BF16 weights
    // written from the master (4 + 2), and the held gradients zeroed (2); torchtitan's FP32
    // parameters with FP32 gradients scaled by the clip (8), normed (4), Adam (28), nothing
    // zeroed.
    void stepFormulaNamesTheOptimizerPasses_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QStringList>("says");
        QTest::addColumn<QString>("saysNot");
        QTest::addRow("custom: Megatron-LM's passes")
            << "grad_precision=bf16"
            << QStringList{"Optimizer step", "(cast 6 + norm 4 + Adam 28 + write-back 6) B × ",
                           " owned + zero 2 B × ", "Megatron-LM's passes"}
            << "scale";
        QTest::addRow("torchtitan's FP32 parameters")
            << "framework=torchtitan,grad_precision=fp32,zero=1"
            << QStringList{"(scale 8 + norm 4 + Adam 28) B × ", "torchtitan's passes"} << "zero ";
    }
    void stepFormulaNamesTheOptimizerPasses()
    {
        QFETCH(QString, set);
        QFETCH(QStringList, says);
        QFETCH(QString, saysNot);
        const core::Scenario s = scenario(set);
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text));
        QVERIFY2(!text.contains(saysNot), qPrintable(text));
        // The seconds shown are the breakdown's.
        const double seconds = r.stepTime->breakdown[core::TimePart::optimizer];
        QVERIFY2(text.contains(QStringLiteral("= %1 s").arg(seconds, 0, 'g', 4)), qPrintable(text));
    }

    // Where evaluate warns that a MoE step's wait for its token counts is not timed
    // (docs/step_time.md, "Fine-grained experts"), the Step time page shows the range on top of
    // the step: Qwen3 30B-A3B on 16 H100s, one stage of 48 MoE layers, 64 micro-batches,
    // 3,072 layer-micro-batches × 1.7 and 4.3 ms = 5.2224 and 13.2096 s. The chart's axis
    // reaches the high end, its legend names the range, the formula panel derives it. A dense
    // model shows none.
    void stepTimeShowsTheUntimedMoeWait_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<double>("lowS");
        QTest::addColumn<double>("highS");
        QTest::addRow("Qwen3 30B-A3B, E16, micro-batch 1") << QStringList{"framework=megatron",
                                                                          "model=qwen3-30b-a3b",
                                                                          "device=h100-sxm",
                                                                          "precision=bf16",
                                                                          "tp=1",
                                                                          "pp=1",
                                                                          "dp=16",
                                                                          "ep=16",
                                                                          "seq_len=4096",
                                                                          "microbatch_size=1",
                                                                          "microbatches=64",
                                                                          "recompute=none"}
                                                           << 5.2224 << 13.2096;
        QTest::addRow("dense") << QStringList{"model=llama-3.1-8b", "pp=1", "dp=8"} << 0.0 << 0.0;
    }
    void stepTimeShowsTheUntimedMoeWait()
    {
        QFETCH(QStringList, settings);
        QFETCH(double, lowS);
        QFETCH(double, highS);
        StepTimeWindow w(settings);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const auto [low, high] = w.chart->moeHostRange();
        QVERIFY2(std::abs(low - lowS) < 1e-9 && std::abs(high - highS) < 1e-9,
                 qPrintable(QStringLiteral("%1 %2").arg(low).arg(high)));
        const QStringList legend = w.chart->legendLabels();
        const QStringList named = legend.filter(QStringLiteral("MoE wait, not timed"));
        QCOMPARE(named.size(), highS > 0 ? 1 : 0);
        const core::Report &r = w.document.report();
        QVERIFY(r.stepTime);
        const QString formulas = StepTimePage::stepTimeFormulas(w.document.scenario(), r);
        QCOMPARE(formulas.contains(QStringLiteral("Not timed: the MoE layers")), highS > 0);
        if (highS == 0)
            return;
        const double step = r.stepTime->stepTimeS;
        QCOMPARE(named.front(), QStringLiteral("MoE wait, not timed: +%1–%2 %")
                                    .arg(100 * lowS / step, 0, 'f', 0)
                                    .arg(100 * highS / step, 0, 'f', 0));
        QVERIFY2(formulas.contains(QStringLiteral("3,072 MoE layer-micro-batches × 1.7–4.3 ms")),
                 qPrintable(formulas));
        // The axis reaches the range's top: the range's top is drawn inside the plot.
        const QWidget *bars = w.chart->findChild<QWidget *>(QStringLiteral("stepTimeBars"));
        QVERIFY(bars);
        const QPointF top = w.chart->positionOf(w.chart->busiestStage(),
                                                (step + highS) / w.chart->secondsPerUnit());
        QVERIFY2(top.y() > 0 && top.y() < bars->height(), qPrintable(QString::number(top.y())));
    }

    // The step's formula says what ep_overlap did to the all-to-all, and only where it ran.
    void stepFormulaSaysTheAllToAllOverlaps_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("said"); // empty: nothing said
        const QString moe = QStringLiteral("model=qwen3-30b-a3b,framework=megatron,device=b200,"
                                           "seq_len=4096,tp=1,pp=1,ep=8,dp=8,microbatches=8,");
        const QString megatron = QStringLiteral("ep_overlap runs each backward with the forward "
                                                "after it");
        QTest::addRow("overlapped") << moe + "ep_overlap=true" << megatron;
        QTest::addRow("not asked") << moe + "ep_overlap=false" << QString();
        QTest::addRow("refused with full recomputation")
            << moe + "ep_overlap=true,recompute=full" << QString();
        // DualPipeV's pairs are a forward and a whole backward, full recomputation or not.
        QTest::addRow("DualPipeV's pairs, full recomputation")
            << moe + "ep_overlap=true,recompute=full,schedule=dualpipev,microbatches=16"
            << QStringLiteral("ep_overlap overlaps DualPipeV's pairs, each a forward with a whole "
                              "backward");
        // DualPipe's pair a forward of one direction with a whole backward of the other
        // (dualpipe.py, _forward_backward_chunk(0, 1) and (1, 0)); it needs an even K.
        QTest::addRow("DualPipe's pairs, full recomputation")
            << moe + "ep_overlap=true,recompute=full,schedule=dualpipe,microbatches=16,pp=2"
            << QStringLiteral("ep_overlap overlaps DualPipe's pairs, each a forward of one "
                              "direction with a whole backward of the other");
    }
    void stepFormulaSaysTheAllToAllOverlaps()
    {
        QFETCH(QString, set);
        QFETCH(QString, said);
        const core::Scenario s = scenario(set);
        const core::Report r = core::evaluate(s, io::builtinPresets());
        QVERIFY(r.ok() && r.stepTime);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        if (said.isEmpty())
            QVERIFY2(!text.contains("ep_overlap"), qPrintable(text));
        else
            QVERIFY2(text.contains(said), qPrintable(text));
    }

    // The busiest stage's work in the step counts the passes of its layers and the ends it
    // holds: Llama 3.1 70B on K = 4, m = 16, 20 layers a stage. 1F1B's busiest is the last
    // stage, with the LM head and loss; DualPipeV's stage 0, where the V starts and ends
    // (dualpipev.py); DualPipe's end stages hold both ends and two stages of 20 layers, each
    // micro-batch passing one of them, m/2 passes of the device's 40 (dualpipe.py).
    void stepFormulaCountsTheStagesWork_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QStringList>("says");
        QTest::addColumn<QStringList>("saysNot");
        QTest::addRow("1f1b: the last stage's head")
            << "schedule=1f1b"
            << QStringList{"m × (layers × (F + B + W + rerun) + ends) + sends = 16 × (20 × (",
                           "around the layers: where the model ends"}
            << QStringList{"where the model starts"};
        QTest::addRow("dualpipev: both ends on stage 0")
            << "schedule=dualpipev"
            << QStringList{"Work of stage 0", "= 16 × (20 × (", "where the model starts",
                           "where the model ends"}
            << QStringList{"m/2"};
        QTest::addRow("dualpipe: m/2 passes, both ends")
            << "schedule=dualpipe"
            << QStringList{"m/2 × (layers × (F + B + W + rerun) + ends) + sends = 8 × (40 × (",
                           "where the model starts", "where the model ends"}
            << QStringList{};
        // recompute_layers: 5 of a stage's 20 layers rerun, so the rerun per layer is a quarter
        // of a recomputed layer's (docs/activations.md).
        QTest::addRow("5 of 20 layers recomputed")
            << "recompute=full,recompute_layers=5"
            << QStringList{"times 25.0 %, the share of the stage's layers recompute_layers = 5"}
            << QStringList{};
        QTest::addRow("every layer recomputed")
            << "recompute=full" << QStringList{} << QStringList{"the share of the stage's layers"};
        // offload_layers (docs/activations.md, "Offloaded layers"): 20 of 80 layers' copies fit
        // beside the other 60; with 79 of 80 nothing overlaps and the stage's work adds the waits.
        QTest::addRow("20 of 80 layers offloaded, hidden")
            << "pp=1,recompute=none,offload_layers=20"
            << QStringList{"Activation offload on stage 0", "20 layers offloaded",
                           "offloading costs no time here"}
            << QStringList{"offload waits"};
        QTest::addRow("79 of 80 layers offloaded, waited for")
            << "pp=1,recompute=none,offload_layers=79"
            << QStringList{"+ sends + offload waits =", "hold one layer's activations at once",
                           "these copies outlast those layers"}
            << QStringList{"costs no time"};
        // docs/experts.md, "Capacity": Qwen3-30B-A3B routes 8 of 128 experts; a rank's 4,096
        // tokens give each an even 256 copies, ⌈256 × 1.25⌉ = 320 padded; ⌈256 × 0.8⌉ = 205
        // kept, 19.9 % dropped; at 1.25 without padding balanced routing drops nothing.
        const QString qwen =
            QStringLiteral("model=qwen3-30b-a3b,device=h100-sxm,tp=1,pp=1,dp=8,ep=8,seq_len=4096,"
                           "microbatch_size=1,microbatches=8,recompute=none,");
        QTest::addRow("experts padded to capacity 1.25")
            << qwen + "expert_capacity_factor=1.25,pad_to_capacity=true"
            << QStringList{"⌈4096 tokens × k=8 ÷ 128 experts × 1.25⌉ = 320 copies",
                           "of an even 256", "carry × 1.25 the copies"}
            << QStringList{"dropped"};
        QTest::addRow("experts capped at 0.8")
            << qwen + "expert_capacity_factor=0.8"
            << QStringList{"= 205 copies", "19.9 % of the copies dropped"} << QStringList{};
        QTest::addRow("experts capped at 1.25, not padded")
            << qwen + "expert_capacity_factor=1.25"
            << QStringList{"nothing dropped with balanced routing"} << QStringList{};
        QTest::addRow("dropless: no capacity")
            << qwen << QStringList{} << QStringList{"Experts' capacity", "Busiest expert rank"};
        // docs/experts.md, "Routing imbalance": 16 experts a rank take at most all 8 of a
        // token's copies against an even 8 / 8, so E × 8 / 8 = 8.
        QTest::addRow("busiest rank 1.5, dropless")
            << qwen + "expert_rank_load=1.5"
            << QStringList{"expert_rank_load = 1.5 × its even share",
                           "E=8 × min(k=8, 16 experts a rank) ÷ k = 8", "carry × 1.5 the copies",
                           "s balanced, ", "% longer"}
            << QStringList{"Experts' capacity"};
        QTest::addRow("busiest rank 2 over capacity 1.25")
            << qwen + "expert_rank_load=2,expert_capacity_factor=1.25"
            << QStringList{"capacity keeps 1.25 of it", "= 320 copies", "nothing padded"}
            << QStringList{"balanced routing"};
        QTest::addRow("busiest rank 9 at E = 8")
            << qwen + "expert_rank_load=9" << QStringList{"more than a rank can take, timed at 8"}
            << QStringList{};
    }
    // docs/experts.md, "Routing imbalance": the formula gives what the busiest rank costs,
    // the step beside the same scenario balanced, and the step is longer for it.
    void stepFormulaSaysWhatTheBusiestRankCosts()
    {
        const core::Presets presets = io::builtinPresets();
        const QString qwen =
            QStringLiteral("model=qwen3-30b-a3b,device=h100-sxm,tp=1,pp=1,dp=8,ep=8,seq_len=4096,"
                           "microbatch_size=1,microbatches=8,recompute=none,");
        const core::Scenario loaded = scenario(qwen + "expert_rank_load=1.5");
        const core::Report r = core::evaluate(loaded, presets);
        const core::Report even = core::evaluate(scenario(qwen), presets);
        QVERIFY(r.ok() && r.stepTime && even.ok() && even.stepTime);
        QVERIFY(r.stepTime->stepTimeS > even.stepTime->stepTimeS);
        const QString text =
            createChartPage(QStringLiteral("step-time"))->formulas(ChartInputs{loaded, presets, r});
        const QString said =
            QStringLiteral("the step takes %1 s against %2 s balanced, %3 % longer")
                .arg(r.stepTime->stepTimeS, 0, 'g', 4)
                .arg(even.stepTime->stepTimeS, 0, 'g', 4)
                .arg(100 * (r.stepTime->stepTimeS / even.stepTime->stepTimeS - 1), 0, 'f', 1);
        QVERIFY2(text.contains(said), qPrintable(text));
    }

    void stepFormulaCountsTheStagesWork()
    {
        QFETCH(QString, set);
        QFETCH(QStringList, says);
        QFETCH(QStringList, saysNot);
        const core::Scenario s = scenario(set);
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok() && r.stepTime);
        const QString text =
            createChartPage(QStringLiteral("step-time"))->formulas(ChartInputs{s, presets, r});
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text));
        for (const QString &part : saysNot)
            QVERIFY2(!text.contains(part), qPrintable(text));
    }

    // offload_layers on the memory page: the layers the device keeps and the host's share.
    void memoryFormulaSaysWhatIsOffloaded()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s = scenario(QStringLiteral("pp=1,recompute=none,offload_layers=20"));
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        // The default device, an H100 of a DGX: 2 TiB for 8 GPUs (host_memory_gb 274.9).
        QVERIFY2(text.contains(QStringLiteral("80 layers, 20 offloaded to host memory (%1 there, "
                                              "within the %2 a device has): 60 layers' sets")
                                   .arg(formula::bytes(r.stages[0].offloadedBytes),
                                        formula::bytes(274'877'906'944))),
                 qPrintable(text));
        QVERIFY2(text.contains(
                     QStringLiteral("%1 of %2 in host memory → %3")
                         .arg(formula::bytes(r.stages[0].offloadedBytes),
                              formula::bytes(274'877'906'944),
                              r.fits ? QStringLiteral("fits") : QStringLiteral("does not fit"))),
                 qPrintable(text));
    }

    // The memory page's activations say when the projections' inputs are kept cast, and in how
    // many bytes (docs/activations.md, "FP8 and NVFP4").
    void memoryFormulaSaysWhatCastInputsTake_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("said"); // empty: nothing said
        QTest::addRow("FP8") << "precision=fp8"
                             << "kept as their FP8 casts, 1 B a value";
        QTest::addRow("MXFP8") << "precision=fp8,fp8_scaling=block"
                               << "kept as their FP8 casts, 1.031 B a value";
        QTest::addRow("NVFP4") << "device=b200,precision=nvfp4"
                               << "kept as their NVFP4 casts, 0.5625 B a value";
        QTest::addRow("BF16") << "precision=bf16"
                              << "";
        QTest::addRow("torchao") << "precision=fp8,save_quantized_inputs=false"
                                 << "";
    }
    void memoryFormulaSaysWhatCastInputsTake()
    {
        QFETCH(QString, set);
        QFETCH(QString, said);
        const core::Scenario s = scenario(set);
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const auto page = createChartPage(QStringLiteral("memory"));
        QVERIFY(page);
        const QString text = page->formulas(ChartInputs{s, presets, r});
        QVERIFY2(text.contains("Korthikanti et al. 2022, Table 2"), qPrintable(text));
        if (said.isEmpty())
            QVERIFY2(!text.contains("save_quantized_inputs"), qPrintable(text));
        else
            QVERIFY2(text.contains(said), qPrintable(text));
    }

    // The weights' cast copies: kept all step, a block of their own with the bytes a parameter;
    // without the cache, among each micro-batch's activations. Llama 3.1 70B at T = 8 on an
    // H100: a layer of 855,654,400 parameters, 106,971,136 on each device (its projections
    // split eight ways, its two norms of 8,192 whole), 2 bytes each.
    void memoryFormulaSaysWhereCastWeightsAre_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("said");
        QTest::addColumn<QString>("notSaid");
        const QString fp8 = QStringLiteral("framework=megatron,precision=fp8,fp8_params=false,");
        QTest::addRow("cached") << fp8 << "params × 2 B = "
                                << "each layer also keeps";
        QTest::addRow("per micro-batch")
            << fp8 + "fp8_weight_cache=false"
            << "each layer also keeps its weights' cast copy for its backward, 0.2 GB a "
               "micro-batch"
            << "Cast weights on a device";
        QTest::addRow("FP8 weights") << fp8 + "fp8_params=true"
                                     << "Korthikanti"
                                     << "cast copy";
        // MXFP8 weights hold their column-wise copy and both copies' scales whatever the cache.
        QTest::addRow("MXFP8 weights")
            << fp8 + "fp8_params=true,device=b200,fp8_scaling=block,fp8_weight_cache=false"
            << "params × 1.0625 B = "
            << "(fp8_weight_cache)";
        // LoRA's frozen NVFP4 weights: 9/16 byte the layers', the rest 2, and their
        // column-wise copy kept all step, not "BF16, cast for each multiply".
        QTest::addRow("LoRA's NVFP4 frozen weights")
            << "framework=megatron,precision=nvfp4,fp8_params=true,lora_rank=16,device=b200"
            << "LoRA's frozen weights held in NVFP4"
            << "holds them in BF16";
        QTest::addRow("NVFP4 training: BF16 weights")
            << "framework=megatron,precision=nvfp4,fp8_params=true,device=b200"
            << "NVFP4 training holds them in BF16"
            << "LoRA's frozen";
    }
    void memoryFormulaSaysWhereCastWeightsAre()
    {
        QFETCH(QString, set);
        QFETCH(QString, said);
        QFETCH(QString, notSaid);
        const core::Scenario s = scenario(set);
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const auto page = createChartPage(QStringLiteral("memory"));
        const QString text = page->formulas(ChartInputs{s, presets, r});
        QVERIFY2(text.contains(said), qPrintable(text));
        QVERIFY2(!text.contains(notSaid), qPrintable(text));
    }

    // The memory page's cached outputs are the logits kept on the stage with the LM head
    // (pytorch/pytorch#159251): the last stage's m of them, DualPipeV's stage 0's, where its V
    // ends (dualpipev.py), and on each of DualPipe's end stages the m/2 whose direction ends
    // there, beside the two stages' copies of the weights every DualPipe device holds
    // (dualpipe.py). Llama 3.1 70B, K = 4, m = 16.
    void memoryFormulaPlacesTheCachedOutputs_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("stage"); // where the logits are kept
        QTest::addColumn<QStringList>("says");
        QTest::addRow("1f1b: the last stage")
            << "schedule=1f1b" << 3
            << QStringList{"Cached outputs on the last stage", "m × b × s × V × 2 B ÷ T = 16 ×"};
        QTest::addRow("dualpipev: stage 0")
            << "schedule=dualpipev" << 0
            << QStringList{"Cached outputs on stage 0, where the V ends",
                           "m × b × s × V × 2 B ÷ T = 16 ×"};
        QTest::addRow("dualpipe: each end stage, half each")
            << "schedule=dualpipe" << 3
            << QStringList{"Cached outputs on each end stage, where a direction ends",
                           "m/2 × b × s × V × 2 B ÷ T = 8 ×",
                           "a device holds two stages' copies, stage 0 also the mirrored stage 3"};
    }
    void memoryFormulaPlacesTheCachedOutputs()
    {
        QFETCH(QString, set);
        QFETCH(int, stage);
        QFETCH(QStringList, says);
        const core::Scenario s = scenario(set + QStringLiteral(",cache_outputs=true"));
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const std::int64_t cached = r.stages[std::size_t(stage)].cachedOutputsBytes;
        QVERIFY(cached > 0);
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        for (const QString &part : says)
            QVERIFY2(text.contains(part), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("= %1").arg(formula::bytes(cached))),
                 qPrintable(text));
    }

    // The KV cache's formula counts the windowed layers' window when the model has one, and
    // its terms give the stage's bytes (docs/inference.md).
    void memoryFormulaCountsTheWindow()
    {
        const core::Scenario s =
            scenario("model=gpt-oss-120b,mode=inference,tp=4,pp=1,dp=1,seq_len=4096,"
                     "output_len=1024,microbatches=1,microbatch_size=8");
        const core::Presets presets = io::builtinPresets();
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const core::StageReport &st = r.stages.front();
        QCOMPARE(st.slidingLayers, 18);
        // 2 × 2 KV heads a device × 64 × (18 × 5,120 + 18 × 128) × 8 sequences × 2 bytes
        QCOMPARE(st.kvCacheBytes, qint64{2 * 2 * 64} * (18 * 5120 + 18 * 128) * 8 * 2);
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        QVERIFY2(text.contains("with 18 + 18 layers, 4096 + 1024 tokens, a window of 128"),
                 qPrintable(text));
    }

    // docs/experts.md, "Capacity": padded to 1.25 at 4,096 tokens, each of Qwen3-30B-A3B's
    // experts keeps ceil(256 × 1.25) = 320 of an even 256 copies; "Routing imbalance": the
    // busiest rank keeps expert_rank_load times its share, at most that capacity. The memory
    // formula says so; balanced and dropless, it says nothing of it.
    void memoryFormulaSaysTheExpertsLoad_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("said"); // empty: nothing said
        QTest::addRow("padded to 1.25") << "expert_capacity_factor=1.25,pad_to_capacity=true"
                                        << "the busiest expert rank keeps 1.25 × its even share";
        QTest::addRow("busiest rank 1.5") << "expert_rank_load=1.5"
                                          << "the busiest expert rank keeps 1.5 × its even share";
        QTest::addRow("busiest rank 2, capacity 1.25")
            << "expert_rank_load=2,expert_capacity_factor=1.25"
            << "the busiest expert rank keeps 1.25 × its even share";
        QTest::addRow("balanced, dropless") << "zero=1"
                                            << "";
    }
    void memoryFormulaSaysTheExpertsLoad()
    {
        QFETCH(QString, set);
        QFETCH(QString, said);
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s =
            scenario("model=qwen3-30b-a3b,tp=1,pp=1,dp=8,ep=8,seq_len=4096,recompute=none," + set);
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        if (said.isEmpty())
            QVERIFY2(!text.contains("busiest expert rank"), qPrintable(text));
        else
            QVERIFY2(text.contains(said), qPrintable(text));
    }

    // Llama 3.1 8B at T = 1 on K = 2 with one depth: a dense layer of 218,112,000 parameters
    // (4,096 × 6,144 + 4,096² + 3 × 4,096 × 14,336 and two norms), eh_proj and three norms
    // (2 × 4,096² + 3 × 4,096 = 33,566,720) and an embedding of its own (128,256 × 4,096).
    void memoryFormulaSaysTheMtpDepths()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s = scenario(
            QStringLiteral("model=llama-3.1-8b,tp=1,pp=2,dp=1,microbatches=4,mtp_layers=1"));
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok());
        const QString text =
            createChartPage(QStringLiteral("memory"))->formulas(ChartInputs{s, presets, r});
        QVERIFY2(text.contains(QStringLiteral("Multi-token prediction on stage 1")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("1 × (dense layer 218,112,000 + eh_proj 2h²÷T and "
                                              "three norms 33,566,720) + embedding 525,336,576 = "
                                              "777,015,296 parameters")),
                 qPrintable(text));
    }

    // Where the MoE layers' wait slows a stage other than the busiest, the formula says which and
    // by how much it outlasts the busiest (docs/step_time.md, "Fine-grained experts").
    void moeWaitFormulaNamesTheStage()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s = scenario(QStringLiteral(
            "model=qwen3-30b-a3b,framework=megatron,device=h100-sxm,precision=bf16,tp=1,pp=2,"
            "dp=8,ep=8,seq_len=4096,microbatch_size=1,microbatches=64,recompute=none,"
            "pipeline_layout=Et*26|t*22L"));
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok() && r.stepTime && r.stepTime->moeHostStage == 0);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        QVERIFY2(text.contains(QStringLiteral("1,664 MoE layer-micro-batches × 1.7–4.3 ms")) &&
                     text.contains(QStringLiteral("on stage 0, whose work")) &&
                     text.contains(QStringLiteral("outlasts stage 1's")),
                 qPrintable(text));
    }

    // The step's formula names the embedding group's all-reduce where a tied head keeps a copy.
    void stepFormulaSaysTheEmbeddingSync()
    {
        const core::Presets presets = io::builtinPresets();
        const core::Scenario s =
            scenario(QStringLiteral("model=gpt-3-175b,tp=8,pp=8,dp=1,microbatches=16"));
        const core::Report r = core::evaluate(s, presets);
        QVERIFY(r.ok() && r.stepTime && r.stepTime->embeddingSyncS > 0);
        const QString text = StepTimePage::stepTimeFormulas(s, r);
        QVERIFY2(text.contains(QStringLiteral("the embedding's gradients all-reduced between "
                                              "stage 0 and the stage whose LM head")),
                 qPrintable(text));
        const core::Scenario untied =
            scenario(QStringLiteral("model=llama-3.1-70b,tp=8,pp=8,dp=1,microbatches=16"));
        const core::Report u = core::evaluate(untied, presets);
        QVERIFY(u.ok());
        QVERIFY(!StepTimePage::stepTimeFormulas(untied, u).contains(
            QStringLiteral("embedding's gradients")));
    }

    void unknownIdIsNoPage()
    {
        QVERIFY(!createChartPage(QStringLiteral("pie")));
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(!window.page(QStringLiteral("pie")));
        window.showChart(QStringLiteral("pie"));
        QCOMPARE(window.currentPage()->id(), "memory");
    }

    // Ctrl+E (File → Export Chart…) exports the chart on screen, whichever tab that is: the
    // SVG it writes carries the page's id as its title, and the file name offered is the id.
    void ctrlEExportsTheTabOnScreen_data() { everyPage_data(); }
    void ctrlEExportsTheTabOnScreen()
    {
        QFETCH(QString, id);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        if (id == QLatin1String("serving")) // drawn, and so exported, in inference only
            QVERIFY(document.setField("mode", "inference"));
        window.showChart(id);
        auto *actions = window.findChild<ExportActions *>();
        QVERIFY(actions);
        QCOMPARE(actions->exportChartAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));

        const QString path = m_dir.filePath("tab-" + id + ".svg");
        QString offered;
        ModalAnswerer answerer([&](QWidget *modal) {
            if (auto *options = qobject_cast<ExportOptionsDialog *>(modal)) {
                options->findChild<QSpinBox *>("width")->setValue(640);
                options->findChild<QSpinBox *>("height")->setValue(400);
                options->accept();
            } else if (auto *files = qobject_cast<QFileDialog *>(modal)) {
                auto *name = files->findChild<QLineEdit *>("fileNameEdit");
                offered = name->text();
                files->setDirectory(QFileInfo(path).absolutePath());
                name->setText(QFileInfo(path).fileName());
                static_cast<QDialog *>(files)->accept();
            }
        });
        actions->exportChartAction()->trigger();
        QVERIFY2(answerer.messages.isEmpty(), qPrintable(answerer.messages.join('|')));
        QCOMPARE(offered, id + ".png");
        const QByteArray svg = readFile(path);
        QVERIFY2(svg.contains("<title>" + id.toUtf8() + "</title>"), svg.left(600).constData());
    }

    // An edit redraws the page on screen and only marks the hidden pages that depend on the
    // key; a hidden page is redrawn when its tab is shown.
    void hiddenPagesRedrawWhenShown()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *memory = window.chart<StageMemoryChart>();
        auto *weights = window.chart<ModelSizeChart>();
        QCOMPARE(window.currentPage()->id(), "memory");
        QCOMPARE(memory->categories().size(), 4); // K = 4 (the default scenario)

        // The model-weights tab, hidden, is not drawn for a key it depends on.
        window.showChart("model-size");
        QCOMPARE(weights->highlighted(), "bf16");
        window.showChart("memory");
        setAndEvaluate(document, "precision", "fp8");
        QCOMPARE(weights->highlighted(), "bf16");
        setAndEvaluate(document, "pp", "2");
        QCOMPARE(memory->categories().size(), 2); // on screen: drawn at once
        window.showChart("model-size");
        QCOMPARE(weights->highlighted(), "fp8");
        // …and the memory tab, hidden now, catches up with K when it is shown.
        setAndEvaluate(document, "pp", "8");
        QCOMPARE(memory->categories().size(), 2);
        window.showChart("memory");
        QCOMPARE(memory->categories().size(), 8);
    }

    // The sharding page declares the keys of its layer: a full-size check's note stays on
    // screen while another key changes, and goes (the page redrawn) when the layer changes.
    void shardingRedrawsForItsKeysOnly()
    {
        ShardingWindow f;
        QVERIFY(f.exposed && f.chart);
        ShardingChart *sharding = f.chart;
        sharding->setNote(QStringLiteral("Full-size check done in 1 s."));
        setAndEvaluate(f.document, "microbatches", "32");
        setAndEvaluate(f.document, "zero", "2");
        QVERIFY(sharding->summary().contains("Full-size check done"));
        setAndEvaluate(f.document, "tp", "4");
        QVERIFY(!sharding->summary().contains("Full-size check done"));
    }

    // The page says what its multiplies were timed at: with mfu auto the device's matrix-
    // multiply efficiency (the H100's 0.706), a forced mfu by its value. It said "the
    // scenario's MFU" for both.
    void shardingSaysItsMultiplyRate()
    {
        ShardingWindow f;
        QVERIFY(f.exposed && f.chart);
        ShardingChart *sharding = f.chart;
        QVERIFY2(sharding->summary().contains("matrix-multiply efficiency, 0.706 of its peak"),
                 qPrintable(sharding->summary()));
        setAndEvaluate(f.document, "mfu", "0.45");
        QVERIFY2(sharding->summary().contains("the scenario's MFU, 0.45"),
                 qPrintable(sharding->summary()));
    }

    // The expert-parallel demonstrator beside the feed-forward one (docs/sharding.md): reached
    // and driven from the keyboard, its bars are core::runExpertParallel's numbers for the
    // inputs its controls show, and a batch E does not divide is refused naming the field.
    void expertParallelFollowsItsControls()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart("sharding");
        auto *sharding = window.chart<ShardingChart>();
        ExpertChart *experts = sharding->experts();
        QVERIFY(!experts->isVisible());
        sharding->modeBar()->setFocus();
        QTest::keyClick(sharding->modeBar(), Qt::Key_Right);
        QCOMPARE(sharding->modeBar()->currentIndex(), 1);
        QVERIFY(experts->isVisible());
        QVERIFY(!sharding->verifyButton()->isVisible());

        // E from 4 to 2, then the router's skew up six steps of 0.5.
        QCOMPARE(experts->devicesBox()->currentText(), "4");
        chooseWithKeys(experts->devicesBox(), experts->devicesBox()->findText("2"));
        experts->skewBox()->setFocus();
        for (int i = 0; i < 6; ++i)
            QTest::keyClick(experts->skewBox(), Qt::Key_Up);
        QCOMPARE(experts->skewBox()->value(), 3.0);

        // The controls' defaults and the two changes, written out here rather than read back.
        core::ExpertRoutingInputs in;
        in.tokens = 256;
        in.hidden = 64;
        in.expertFfn = 128;
        in.experts = 8;
        in.topK = 2;
        in.devices = 2;
        in.skew = 3;
        QVERIFY(experts->inputs() == in);
        const core::ExpertRoutingResult r = core::runExpertParallel(in);
        QVERIFY(r.ok() && r.passed);
        const QList<qreal> loads = experts->loads();
        const QList<qreal> dispatch = experts->bytes(QStringLiteral("dispatch"));
        const QList<qreal> combine = experts->bytes(QStringLiteral("combine"));
        QCOMPARE(loads.size(), 2);
        QCOMPARE(dispatch.size(), 2);
        QCOMPARE(combine.size(), 2);
        for (int d = 0; d < 2; ++d) {
            QCOMPARE(loads[d], qreal(r.devices[std::size_t(d)].load));
            QCOMPARE(dispatch[d] * experts->bytesUnit(),
                     qreal(r.devices[std::size_t(d)].dispatchBytes));
            QCOMPARE(combine[d] * experts->bytesUnit(),
                     qreal(r.devices[std::size_t(d)].combineBytes));
        }
        // 256 tokens × top-2 over 2 devices: a mean of 256 copies. Balanced, each device's
        // 128 × 2 copies leave half the time: 128 rows of 64 values × 2 B = 16,384 B.
        QCOMPARE(loads[0] + loads[1], 512.0);
        QCOMPARE(experts->meanLine(), 256.0);
        QCOMPARE(experts->expectationLine() * experts->bytesUnit(), 16384.0);
        // Device 0 owns experts 0–3, the ones the skew favours.
        QVERIFY(loads[0] > loads[1]);
        QVERIFY(r.imbalance > 1);
        QVERIFY2(
            experts->verification().contains("Executed and checked</b> on 2 simulated devices"),
            qPrintable(experts->verification()));
        QVERIFY(experts->summary().contains("128 × 2 × 64 × 2 × 1/2"));

        // 255 tokens do not split over 2 devices: nothing drawn, and the field named.
        experts->tokensBox()->setFocus();
        QTest::keyClick(experts->tokensBox(), Qt::Key_Down);
        QCOMPARE(experts->tokensBox()->value(), 255);
        QVERIFY(experts->loads().isEmpty());
        QVERIFY2(experts->verification().contains("tokens: 255 do not split evenly"),
                 qPrintable(experts->verification()));
        // The scenario is not the demonstrator's: nothing was edited.
        QVERIFY(!document.undoStack()->canUndo());
    }

    // A scenario model with experts sets the demonstrator's layer (docs/sharding.md): Mixtral
    // 8x7B's 8 experts and top-2 at the scenario's E = 4; DeepSeek-V3's 256 experts become the
    // demonstrator's 64, its top-8 kept, E = 16 its largest of at most the scenario's 32; a
    // change of the page's own controls stays until the model or E changes.
    void expertDemonstratorFollowsTheModel_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("topK");
        QTest::addColumn<QString>("devices");
        QTest::addRow("Mixtral 8x7B, E = 4") << "mixtral-8x7b" << 4 << 8 << 2 << "4";
        QTest::addRow("DeepSeek-V3, E = 32") << "deepseek-v3" << 32 << 64 << 8 << "16";
    }
    void expertDemonstratorFollowsTheModel()
    {
        QFETCH(QString, model);
        QFETCH(int, ep);
        QFETCH(int, experts);
        QFETCH(int, topK);
        QFETCH(QString, devices);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart("sharding");
        auto *sharding = window.chart<ShardingChart>();
        ExpertChart *chart = sharding->experts();
        setAndEvaluate(document, "model", model.toUtf8().constData());
        setAndEvaluate(document, "tp", "8");
        setAndEvaluate(document, "dp", "8");
        setAndEvaluate(document, "expert_tp", "1");
        setAndEvaluate(document, "ep", QByteArray::number(ep).constData());
        QCOMPARE(chart->expertsBox()->value(), experts);
        QCOMPARE(chart->topKBox()->value(), topK);
        QCOMPARE(chart->devicesBox()->currentText(), devices);
        chart->topKBox()->setValue(1);
        setAndEvaluate(document, "seq_len", "8192"); // the page redraws, its layer stays
        QCOMPARE(chart->topKBox()->value(), 1);
    }
};

QTEST_MAIN(TestChartPages)
#include "tst_chart_pages.moc"
