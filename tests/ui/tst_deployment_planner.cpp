// The Planner dock in inference mode (docs/inference.md, "Planning a deployment") through its
// real widgets, offscreen: the inputs swap with the mode, the table lists what
// core::planServing finds for the same request, the targets reach it, numbers sort as
// numbers, a row loads as one undo step, an invalid request names its key, the chart draws
// latency against throughput, and an example with a deployment question opens the panel
// and answers it.
#include "core/serving_plan.h"
#include "core/units.h"
#include "io/examples_io.h"
#include "io/scenario_io.h"
#include "io/serving_plan_io.h"
#include "test_scenarios.h"
#include "ui/charts/serving_plan_chart.h"
#include "ui/main_window.h"
#include "ui/planner/plan_runner.h"
#include "ui/planner/planner_panel.h"
#include "ui/planner/serving_table_model.h"
#include "ui/scenario_document.h"
#include "ui/units.h"
#include "widget_helpers.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>
#include <QValueAxis>
#include <optional>

using namespace ui;

namespace {

// Generous: a safety net for a hung search under the sanitizers, not a speed requirement.
constexpr int kPatienceMs = 15 * 60 * 1000;

using Column = ServingTableModel::Column;

// A number as the table writes it ("57,679", "12.25").
double parse(QString text)
{
    return text.remove(QLatin1Char(',')).toDouble();
}

// A target as a data row gives it: 0 for none.
std::optional<double> target(double value, double scale)
{
    return value > 0 ? std::optional<double>(value * scale) : std::nullopt;
}

// Holds the planner's only search thread until released, so that a search started
// meanwhile waits in the queue: cancelling it then happens before it starts.
class PoolGate
{
public:
    explicit PoolGate(PlannerPanel *panel) : m_pool(panel->runner()->threadPool())
    {
        m_pool->waitForDone();
        m_pool->start([this] { m_open.acquire(); });
    }
    ~PoolGate()
    {
        release();
        m_pool->waitForDone();
    }
    void release()
    {
        if (!m_released)
            m_open.release();
        m_released = true;
    }

private:
    QThreadPool *m_pool;
    QSemaphore m_open;
    bool m_released = false;
};

} // namespace

class TestDeploymentPlanner : public QObject
{
    Q_OBJECT

private:
    struct Window : ExplorerWindow
    {
        PlannerPanel *panel = window.planner();
    };

    static void open(Window &w)
    {
        showActive(w.window);
        if (QTest::currentTestFailed())
            return;
        QTest::keyClick(&w.window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w.window.plannerDock()->isVisible());
    }

    // The scenario the deployment is planned for, as the scenario dock would set it.
    static void serve(Window &w, const QString &model, const QString &device,
                      const QString &precision, int seqLen, int outputLen)
    {
        for (const auto &[key, value] :
             {std::pair{"mode", QStringLiteral("inference")}, std::pair{"model", model},
              std::pair{"device", device}, std::pair{"precision", precision},
              std::pair{"seq_len", QString::number(seqLen)},
              std::pair{"output_len", QString::number(outputLen)}})
            QVERIFY2(w.document.setField(QString::fromLatin1(key), value), key);
        w.document.flush();
        QVERIFY(w.panel->isServing());
    }

    static void type(QAbstractSpinBox *box, const QString &text)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        box->interpretText();
    }

    // Ticks a target with the keyboard and types its value; 0 leaves it off.
    static void setTarget(QCheckBox *check, QDoubleSpinBox *box, double value)
    {
        if (check->isChecked() != (value > 0)) {
            check->setFocus();
            QTest::keyClick(check, Qt::Key_Space);
        }
        QCOMPARE(check->isChecked(), value > 0);
        QCOMPARE(box->isEnabled(), value > 0);
        if (value > 0) {
            type(box, QString::number(value));
            QCOMPARE(box->value(), value);
        }
    }

    static void runAndWait(Window &w)
    {
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        QTest::mouseClick(w.panel->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QVERIFY(!w.panel->isRunning());
        QVERIFY(!w.panel->progressBar()->isVisible());
    }

    // What the widgets ask for, read back from them rather than from the panel.
    static core::ServingPlanRequest requestOf(const Window &w)
    {
        core::ServingPlanRequest r;
        r.base = w.document.scenario();
        r.devices = w.panel->devicesBox()->value();
        r.top = w.panel->topBox()->value();
        r.headroomGib = w.panel->headroomBox()->value();
        if (w.panel->tpotCheck()->isChecked())
            r.tpotTargetS = w.panel->tpotBox()->value() * 1e-3;
        if (w.panel->ttftCheck()->isChecked())
            r.ttftTargetS = w.panel->ttftBox()->value() * 1e-3;
        if (w.panel->tokensPerSCheck()->isChecked())
            r.tokensPerSTarget = w.panel->tokensPerSBox()->value();
        return r;
    }

    static const core::ServingCandidate &rowCandidate(const Window &w, int row)
    {
        const QSortFilterProxyModel *sorted = w.panel->sortModel();
        return w.panel->servingModel()->candidate(sorted->mapToSource(sorted->index(row, 0)).row());
    }

    static QString cell(const Window &w, int row, int column)
    {
        return w.panel->sortModel()->index(row, column).data().toString();
    }

    static void clickRow(Window &w, int row)
    {
        QTableView *table = w.panel->table();
        const QRect rect = table->visualRect(w.panel->sortModel()->index(row, 1));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(table->currentIndex().row(), row);
    }

    static void clickHeader(Window &w, int column)
    {
        QHeaderView *header = w.panel->table()->horizontalHeader();
        const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                        header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    }

    // Every row as core::planServing ranks the same request, cell by cell.
    static void checkRows(const Window &w, const core::ServingPlanResult &expected)
    {
        const int rows = w.panel->sortModel()->rowCount();
        QCOMPARE(rows, static_cast<int>(expected.candidates.size()));
        for (int row = 0; row < rows; ++row) {
            const core::ServingCandidate &want = expected.candidates[std::size_t(row)];
            const core::ServingCandidate &shown = rowCandidate(w, row);
            const QByteArray where = QByteArray::number(row);
            QCOMPARE(shown.tp, want.tp);
            QCOMPARE(shown.pp, want.pp);
            QCOMPARE(shown.replicas, want.replicas);
            QCOMPARE(shown.microbatches, want.microbatches);
            QCOMPARE(shown.microbatchSize, want.microbatchSize);
            QCOMPARE(shown.peakStageBytes, want.peakStageBytes);
            QCOMPARE(cell(w, row, Column::rank).toInt(), row + 1);
            QCOMPARE(cell(w, row, Column::layout), io::servingShapeText(want));
            QVERIFY(w.panel->sortModel()
                        ->index(row, Column::limit)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(io::qs(core::toString(want.limit))));
            QCOMPARE(parse(cell(w, row, Column::peakMemory)),
                     std::round(double(want.peakStageBytes) / 1e8) / 10);
            if (!want.timed && !want.linkTimeExcluded) {
                for (int column : {Column::tokensPerSPerDevice, Column::tokensPerS, Column::tpot,
                                   Column::ttft, Column::bound})
                    QVERIFY2(cell(w, row, column) == QStringLiteral("—"), where);
                continue;
            }
            // Exact times, or bounds when a link's transfers are left out: at least this
            // long, at most this many tokens (as `parascope plan` writes them).
            const auto number = [&](int column, const char *sign) {
                QString text = cell(w, row, column);
                const QString bound = QString::fromUtf8(sign) + QLatin1Char(' ');
                if (!want.timed) {
                    if (!text.startsWith(bound))
                        return std::nan("");
                    text.remove(0, bound.size());
                }
                return parse(text);
            };
            QCOMPARE(number(Column::tokensPerSPerDevice, "≤"),
                     double(std::llround(want.tokensPerSPerDevice)));
            QCOMPARE(number(Column::tokensPerS, "≤"), double(std::llround(want.tokensPerS())));
            QVERIFY2(std::abs(number(Column::tpot, "≥") - want.tpotS * 1e3) <= 0.0051, where);
            QVERIFY2(std::abs(number(Column::ttft, "≥") - want.ttftS * 1e3) <= 0.51, where);
            QCOMPARE(cell(w, row, Column::bound),
                     want.memoryBound ? QStringLiteral("memory") : QStringLiteral("compute"));
        }
    }

private Q_SLOTS:
    void init() { units::setCurrent(io::SizeUnit::gb); }

    // The inputs of the mode, and only those; each explains itself, and every target is off
    // until ticked.
    void inputsSwapWithTheMode()
    {
        Window w;
        open(w);
        PlannerPanel *p = w.panel;
        const QList<QWidget *> training{p->globalBatchBox(), p->distinctBox(), p->hybridBox(),
                                        p->offloadingBox(), p->rankBox()};
        const QList<QWidget *> serving{p->tpotCheck(), p->tpotBox(),         p->ttftCheck(),
                                       p->ttftBox(),   p->tokensPerSCheck(), p->tokensPerSBox()};
        const auto check = [&](bool inference) {
            QCOMPARE(p->isServing(), inference);
            for (QWidget *widget : training)
                QVERIFY2(widget->isVisible() != inference, qPrintable(widget->objectName()));
            for (QWidget *widget : serving)
                QVERIFY2(widget->isVisible() == inference, qPrintable(widget->objectName()));
            QCOMPARE(p->devicesLabel()->text(), inference ? QStringLiteral("Devices available:")
                                                          : QStringLiteral("Devices N:"));
            QCOMPARE(p->sortModel()->sourceModel() == p->servingModel(), inference);
        };
        check(false);
        setAndEvaluate(w.document, "mode", "inference");
        check(true);
        for (QCheckBox *target : {p->tpotCheck(), p->ttftCheck(), p->tokensPerSCheck()})
            QVERIFY(!target->isChecked());
        for (QDoubleSpinBox *box : {p->tpotBox(), p->ttftBox(), p->tokensPerSBox()})
            QVERIFY(!box->isEnabled());
        QCOMPARE(p->tpotBox()->suffix(), QStringLiteral(" ms"));
        QCOMPARE(p->ttftBox()->suffix(), QStringLiteral(" ms"));
        QCOMPARE(p->tokensPerSBox()->suffix(), QStringLiteral(" tokens/s"));
        for (QWidget *widget :
             serving + QList<QWidget *>{p->devicesBox(), p->devicesLabel(), p->topBox(),
                                        p->headroomBox(), p->runButton(), p->loadButton(),
                                        p->exportCsvButton(), p->summaryLabel(), p->table()})
            QVERIFY2(!widget->toolTip().isEmpty(), qPrintable(widget->objectName()));
        QVERIFY(p->devicesBox()->toolTip().contains("replicas"));
        QVERIFY(p->tpotBox()->toolTip().contains("milliseconds"));
        QVERIFY(p->tokensPerSBox()->toolTip().contains("tokens per second"));
        QVERIFY(p->runButton()->toolTip().contains("replica shape"));
        const QAbstractItemModel *model = p->servingModel();
        for (int column = 0; column < model->columnCount(); ++column)
            QVERIFY2(
                !model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(),
                qPrintable(model->headerData(column, Qt::Horizontal).toString()));
        // Tab goes through the inputs in reading order: each target's box right after its tick.
        p->tpotCheck()->setChecked(true);
        QList<QWidget *> order;
        p->devicesBox()->setFocus();
        for (int i = 0; i < 6; ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            order << QApplication::focusWidget();
        }
        const QList<QWidget *> expected{p->tpotCheck(),       p->tpotBox(), p->ttftCheck(),
                                        p->tokensPerSCheck(), p->topBox(),  p->headroomBox()};
        QCOMPARE(order.size(), expected.size());
        for (qsizetype i = 0; i < order.size(); ++i)
            QVERIFY2(
                order[i] == expected[i] || (order[i] && order[i]->parentWidget() == expected[i]),
                qPrintable(QStringLiteral("%1: %2").arg(i).arg(order[i] ? order[i]->objectName()
                                                                        : QString())));
        p->tpotCheck()->setChecked(false);
        // Undo takes the mode back, and the panel with it.
        w.document.undoStack()->undo();
        w.document.flush();
        check(false);
    }

    // Presentation mode with larger text still: the deployment planner's inputs wrap onto more
    // rows rather than run off the window.
    void inputsStayInsideTheWindow()
    {
        Window w;
        open(w);
        setAndEvaluate(w.document, "mode", "inference");
        w.window.presentationAction()->trigger();
        QTest::keyClick(&w.window, Qt::Key_Equal, Qt::ControlModifier);
        QCOMPARE(w.window.textScale(), 1.5 * 1.2);
        PlannerPanel *p = w.panel;
        QTRY_VERIFY(p->runButton()->mapTo(p, QPoint(0, 0)).y() >
                    p->tokensPerSBox()->mapTo(p, QPoint(0, 0)).y());
        for (QWidget *input : std::initializer_list<QWidget *>{
                 p->devicesBox(), p->tpotCheck(), p->tpotBox(), p->ttftCheck(), p->ttftBox(),
                 p->tokensPerSCheck(), p->tokensPerSBox(), p->topBox(), p->headroomBox(),
                 p->runButton(), p->cancelButton()}) {
            QVERIFY(input->isVisible());
            const QPoint right = input->mapTo(&w.window, QPoint(input->width(), 0));
            QVERIFY2(right.x() <= w.window.width(), qPrintable(QStringLiteral("%1 ends at %2 of %3")
                                                                   .arg(input->objectName())
                                                                   .arg(right.x())
                                                                   .arg(w.window.width())));
        }
        QTest::keyClick(&w.window, Qt::Key_Minus, Qt::ControlModifier);
        w.window.presentationAction()->trigger();
        QCOMPARE(w.window.textScale(), 1.0);
    }

    void tableMatchesPlanServing_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<int>("outputLen");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("top");
        QTest::addColumn<double>("tpotMs"); // 0: no target
        QTest::addColumn<double>("ttftMs");
        QTest::addColumn<double>("tokensPerS");
        // README's `plan --mode inference` example.
        QTest::addRow("70B INT4 on 64, TPOT ≤ 40 ms")
            << "llama-3.1-70b"
            << "h100-sxm"
            << "int4" << 1024 << 256 << 64 << 10 << 40.0 << 0.0 << 0.0;
        QTest::addRow("70B INT4 on 64, no targets")
            << "llama-3.1-70b"
            << "h100-sxm"
            << "int4" << 1024 << 256 << 64 << 20 << 0.0 << 0.0 << 0.0;
        QTest::addRow("8B FP8 on 8, TTFT ≤ 500 ms, 20,000 tokens/s")
            << "llama-3.1-8b"
            << "h100-sxm"
            << "fp8" << 2048 << 512 << 8 << 10 << 0.0 << 500.0 << 20000.0;
        QTest::addRow("70B BF16 on 1,048,576 A100s, every target")
            << "llama-3.1-70b"
            << "a100-80gb"
            << "bf16" << 4096 << 512 << (1 << 20) << 5 << 60.0 << 5000.0 << 100000.0;
        // SambaNova publishes no chip-to-chip bandwidth: shapes of T > 1 or K > 1 have only
        // lower bounds on their times (the seed's 405B examples, in BF16) …
        QTest::addRow("405B BF16 on 16 SN40L, bounds")
            << "llama-3.1-405b"
            << "sn40l"
            << "bf16" << 4096 << 256 << 16 << 10 << 0.0 << 0.0 << 0.0;
        // … and at FP16 the SN40L preset gives no rate at all: memory only, "—" for times.
        QTest::addRow("405B FP16 on 16 SN40L, no times")
            << "llama-3.1-405b"
            << "sn40l"
            << "fp16" << 4096 << 256 << 16 << 10 << 0.0 << 0.0 << 0.0;
    }

    void tableMatchesPlanServing()
    {
        QFETCH(QString, model);
        QFETCH(QString, device);
        QFETCH(QString, precision);
        QFETCH(int, seqLen);
        QFETCH(int, outputLen);
        QFETCH(int, devices);
        QFETCH(int, top);
        QFETCH(double, tpotMs);
        QFETCH(double, ttftMs);
        QFETCH(double, tokensPerS);
        Window w;
        open(w);
        serve(w, model, device, precision, seqLen, outputLen);
        type(w.panel->devicesBox(), QString::number(devices));
        QCOMPARE(w.panel->devicesBox()->value(), devices);
        type(w.panel->topBox(), QString::number(top));
        setTarget(w.panel->tpotCheck(), w.panel->tpotBox(), tpotMs);
        setTarget(w.panel->ttftCheck(), w.panel->ttftBox(), ttftMs);
        setTarget(w.panel->tokensPerSCheck(), w.panel->tokensPerSBox(), tokensPerS);
        runAndWait(w);

        // The targets reach the request, in seconds.
        const core::ServingPlanRequest &asked = w.panel->servingRequest();
        QCOMPARE(asked.devices, devices);
        QCOMPARE(asked.top, top);
        QCOMPARE(asked.tpotTargetS, target(tpotMs, 1e-3));
        QCOMPARE(asked.ttftTargetS, target(ttftMs, 1e-3));
        QCOMPARE(asked.tokensPerSTarget, target(tokensPerS, 1));
        QVERIFY(asked.base == w.document.scenario());

        const core::ServingPlanResult expected =
            core::planServing(requestOf(w), w.document.presets());
        QVERIFY(!expected.error);
        QVERIFY(!expected.candidates.empty());
        checkRows(w, expected);
        QCOMPARE(w.panel->servingResult()->shapes, expected.shapes);
        QCOMPARE(w.panel->servingResult()->feasible, expected.feasible);

        // The summary: shapes searched and how many fit; the smallest deployment; one line
        // per reason of rejection.
        const QString summary = w.panel->summaryLabel()->text();
        QVERIFY2(summary.contains(QStringLiteral("%1 replica shape%2 searched, %3 fit")
                                      .arg(io::formatCount(expected.shapes),
                                           expected.shapes == 1 ? "" : "s",
                                           io::formatCount(expected.feasible))),
                 qPrintable(summary));
        QVERIFY2(summary.contains(io::smallestText(requestOf(w), expected).toHtmlEscaped()),
                 qPrintable(summary));
        for (const QString &line : io::servingRejectionsText(expected.rejected))
            QVERIFY2(summary.contains(line.toHtmlEscaped()), qPrintable(line));
        QVERIFY(!w.panel->messageLabel()->isVisible());

        // The chart: every timed candidate at (TPOT ms, tokens/s per device), by its bound.
        ServingPlanChart *chart = w.panel->servingChart();
        QList<QPointF> memory;
        QList<QPointF> compute;
        QList<QPointF> bounds;
        for (const core::ServingCandidate &c : expected.candidates) {
            const QPointF at(c.tpotS * 1e3, c.tokensPerSPerDevice);
            if (c.timed)
                (c.memoryBound ? memory : compute) << at;
            else if (c.linkTimeExcluded)
                bounds << at;
        }
        QCOMPARE(chart->memoryBoundSeries()->points(), memory);
        QCOMPARE(chart->computeBoundSeries()->points(), compute);
        QCOMPARE(chart->boundsSeries()->points(), bounds);
        if (memory.isEmpty() && compute.isEmpty() && bounds.isEmpty()) {
            QVERIFY2(chart->message().contains("no rates"), qPrintable(chart->message()));
        } else {
            QVERIFY(chart->message().isEmpty());
            QCOMPARE(chart->timeAxis()->titleText(), QStringLiteral("Time per output token (ms)"));
            QVERIFY(chart->rateAxis()->titleText().contains("tokens/s"));
            // Every point inside the axes.
            for (const QPointF &p : memory + compute + bounds)
                QVERIFY(p.x() >= chart->timeAxis()->min() && p.x() <= chart->timeAxis()->max() &&
                        p.y() <= chart->rateAxis()->max());
            // The dashed frontier: drawn points that no drawn point beats on both counts,
            // among them the fastest and the one with the most tokens/s per device.
            const QList<QPointF> front = chart->frontierSeries()->points();
            QCOMPARE(front.isEmpty(), memory.isEmpty() && compute.isEmpty());
            for (const QPointF &f : front) {
                QVERIFY((memory + compute).contains(f));
                for (const QPointF &p : memory + compute)
                    QVERIFY(!(p.x() <= f.x() && p.y() > f.y()));
            }
            double most = 0;
            for (const QPointF &p : memory + compute)
                most = std::max(most, p.y());
            if (!front.isEmpty())
                QCOMPARE(front.back().y(), most);
        }

        // Export CSV… writes what `parascope plan --mode inference --format csv` does.
        QVERIFY(w.panel->exportCsvButton()->isEnabled());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("deployments.csv"));
        QVERIFY(!w.panel->writeCsv(path));
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), io::toCsv(io::servingPlanTable(expected.candidates)));
    }

    void numbersSortAsNumbers()
    {
        Window w;
        open(w);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        type(w.panel->topBox(), QStringLiteral("30"));
        runAndWait(w);
        const int rows = w.panel->sortModel()->rowCount();
        QVERIFY(rows >= 10);
        const auto value = [&w](int row, int column) {
            return w.panel->sortModel()->index(row, column).data(ServingTableModel::SortRole);
        };
        for (int column : {Column::tpot, Column::tokensPerS, Column::peakMemory, Column::layout}) {
            clickHeader(w, column);
            QCOMPARE(w.panel->table()->horizontalHeader()->sortIndicatorSection(), column);
            const bool ascending =
                w.panel->table()->horizontalHeader()->sortIndicatorOrder() == Qt::AscendingOrder;
            for (int row = 1; row < rows; ++row) {
                const double before = value(row - 1, column).toDouble();
                const double after = value(row, column).toDouble();
                QVERIFY2(ascending ? before <= after : before >= after,
                         qPrintable(QStringLiteral("column %1, rows %2, %3: %4, %5")
                                        .arg(column)
                                        .arg(row - 1)
                                        .arg(row)
                                        .arg(cell(w, row - 1, column), cell(w, row, column))));
            }
        }
    }

    // With the ends counted in the scenario's split too, which the deployment search keeps
    // (torchtitan's profile counts them): the loaded row is still found.
    void loadingARowIsOneUndoStep_data()
    {
        QTest::addColumn<bool>("ends");
        QTest::addRow("the even split") << false;
        QTest::addRow("the ends counted") << true;
    }
    void loadingARowIsOneUndoStep()
    {
        QFETCH(bool, ends);
        Window w;
        open(w);
        if (ends) {
            QVERIFY(w.document.setField("ends_in_pipeline_split", "true"));
            w.document.flush();
        }
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        setTarget(w.panel->tpotCheck(), w.panel->tpotBox(), 40);
        runAndWait(w);
        QVERIFY(w.panel->sortModel()->rowCount() >= 2);
        const core::Scenario before = w.document.scenario();
        QUndoStack *undo = w.document.undoStack();
        const int steps = undo->count();
        clickRow(w, 1);
        const core::ServingCandidate chosen = rowCandidate(w, 1);
        QVERIFY(w.panel->loadButton()->isEnabled());
        QTest::mouseClick(w.panel->loadButton(), Qt::LeftButton);
        w.document.flush();
        QCOMPARE(undo->count(), steps + 1);
        const core::Scenario &now = w.document.scenario();
        QCOMPARE(now.tp, chosen.tp);
        QCOMPARE(now.pp, chosen.pp);
        QCOMPARE(now.dp, chosen.replicas);
        QCOMPARE(now.microbatches, chosen.microbatches);
        QCOMPARE(now.microbatchSize, chosen.microbatchSize);
        QVERIFY(now == chosen.apply(before));
        QVERIFY(undo->undoText().contains(io::servingShapeText(chosen)));
        // The loaded row is bold, and the result is not stale: the layout is the planner's.
        QVERIFY(!w.panel->isStale());
        QVERIFY(w.panel->sortModel()->index(1, 0).data(Qt::FontRole).value<QFont>().bold());
        // Enter on another row loads that one, as another step.
        clickRow(w, 0);
        QTest::keyClick(w.panel->table(), Qt::Key_Return);
        w.document.flush();
        QCOMPARE(undo->count(), steps + 2);
        QVERIFY(w.document.scenario() == rowCandidate(w, 0).apply(before));
        undo->undo();
        undo->undo();
        w.document.flush();
        QVERIFY(w.document.scenario() == before);
    }

    void anInvalidRequestNamesItsKey()
    {
        Window w;
        open(w);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 0);
        runAndWait(w);
        QVERIFY(w.panel->servingResult()->error);
        QVERIFY(w.panel->messageLabel()->isVisible());
        const QString message = w.panel->messageLabel()->text();
        QVERIFY2(message.contains("Cannot plan — output_len:"), qPrintable(message));
        QCOMPARE(w.panel->sortModel()->rowCount(), 0);
        QVERIFY(!w.panel->loadButton()->isEnabled());
        QVERIFY(!w.panel->exportCsvButton()->isEnabled());
        QVERIFY(!w.panel->servingChart()->message().isEmpty());
        QCOMPARE(w.panel->servingChart()->memoryBoundSeries()->count(), 0);
    }

    // Each mode keeps its own search; the other mode's is stale until the mode comes back.
    void switchingModeSwitchesTheResult()
    {
        Window w;
        open(w);
        runAndWait(w); // training, the default scenario on its 64 devices
        QVERIFY(w.panel->result());
        const int trainingRows = w.panel->sortModel()->rowCount();
        QVERIFY(trainingRows > 0);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        QCOMPARE(w.panel->sortModel()->rowCount(), 0); // no deployment searched yet
        QVERIFY(!w.panel->messageLabel()->isVisible());
        QVERIFY(!w.panel->loadButton()->isEnabled());
        runAndWait(w);
        const int servingRows = w.panel->sortModel()->rowCount();
        QVERIFY(servingRows > 0);
        QVERIFY(!w.panel->isStale());

        setAndEvaluate(w.document, "mode", "training");
        QVERIFY(!w.panel->isServing());
        QCOMPARE(w.panel->sortModel()->rowCount(), trainingRows);
        QVERIFY(w.panel->isStale()); // its precision and lengths changed since
        QVERIFY(w.panel->selectedCandidate());
        setAndEvaluate(w.document, "mode", "inference");
        QVERIFY(w.panel->isServing());
        QCOMPARE(w.panel->sortModel()->rowCount(), servingRows);
        QVERIFY(!w.panel->isStale());
        QVERIFY(w.panel->selectedServingCandidate());

        setAndEvaluate(w.document, "seq_len", "8192");
        QVERIFY(w.panel->isStale());
        const QString message = w.panel->messageLabel()->text();
        QVERIFY2(message.contains("seq_len") && message.contains("Run again"), qPrintable(message));
        QVERIFY(w.panel->sortModel()->index(0, Column::tpot).data(Qt::ForegroundRole).isValid());
    }

    void cancelLeavesTheDocumentAlone()
    {
        Window w;
        open(w);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        const QString beforeJson = io::writeScenario(w.document.scenario());
        const int steps = w.document.undoStack()->count();
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        {
            PoolGate gate(w.panel);
            QTest::mouseClick(w.panel->runButton(), Qt::LeftButton);
            QVERIFY(w.panel->isRunning());
            QVERIFY(w.panel->progressBar()->isVisible());
            QTest::mouseClick(w.panel->cancelButton(), Qt::LeftButton);
            gate.release();
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        }
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY(!w.panel->servingResult());
        QVERIFY(w.panel->messageLabel()->text().contains("cancelled"));
        QCOMPARE(io::writeScenario(w.document.scenario()), beforeJson);
        QCOMPARE(w.document.undoStack()->count(), steps);
    }

    void chartRingsTheSelectedRow()
    {
        Window w;
        open(w);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        runAndWait(w);
        ServingPlanChart *chart = w.panel->servingChart();
        const auto ringAt = [chart](const core::ServingCandidate &c) {
            return chart->selectedSeries()->count() == 1 &&
                   chart->selectedSeries()->at(0) == QPointF(c.tpotS * 1e3, c.tokensPerSPerDevice);
        };
        QVERIFY(ringAt(rowCandidate(w, 0)));
        clickRow(w, 2);
        QVERIFY(ringAt(rowCandidate(w, 2)));
        // A click on a point selects its row.
        const core::ServingCandidate &last = w.panel->servingResult()->candidates.back();
        const QPointF at(last.tpotS * 1e3, last.tokensPerSPerDevice);
        Q_EMIT(last.memoryBound ? chart->memoryBoundSeries() : chart->computeBoundSeries())
            ->clicked(at);
        QVERIFY(ringAt(last));
        QVERIFY(w.panel->selectedServingCandidate()->tp == last.tp &&
                w.panel->selectedServingCandidate()->pp == last.pp);
        QVERIFY(chart->describe(at).contains(io::servingShapeText(last).toHtmlEscaped()));
    }

    void memoryFollowsTheGibSetting()
    {
        Window w;
        open(w);
        serve(w, "llama-3.1-70b", "h100-sxm", "int4", 1024, 256);
        runAndWait(w);
        const auto header = [&w] {
            return w.panel->servingModel()
                ->headerData(Column::peakMemory, Qt::Horizontal)
                .toString();
        };
        QCOMPARE(header(), QStringLiteral("Peak\n(GB)"));
        w.window.gibAction()->trigger();
        QCOMPARE(header(), QStringLiteral("Peak\n(GiB)"));
        QCOMPARE(parse(cell(w, 0, Column::peakMemory)),
                 std::round(double(rowCandidate(w, 0).peakStageBytes) / double(core::kGiB) * 10) /
                     10);
        w.window.gibAction()->trigger();
        QCOMPARE(header(), QStringLiteral("Peak\n(GB)"));
    }

    // The seed's serving examples ask how many devices a deployment needs: opening one opens
    // the Planner on its answer. 70B at INT4 is 35 GB of weights, so one 80 GB GPU holds it
    // (docs/worked-examples.md §2); SambaNova publishes no chip-to-chip bandwidth, so the
    // 405B shapes have lower bounds on their times, drawn hollow.
    void anExampleOpensThePlanner_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("smallest"); // devices per replica; 0: as core::planServing says
        QTest::addColumn<bool>("exact");   // false: bounds, links left out
        QTest::addRow("70B INT4 on one GPU") << "70b-int4-one-gpu-serving" << 1 << true;
        QTest::addRow("405B on 16 SN40L") << "405b-sn40l-fp16" << 0 << false;
    }

    void anExampleOpensThePlanner()
    {
        QFETCH(QString, id);
        QFETCH(int, smallest);
        QFETCH(bool, exact);
        std::optional<io::Example> example;
        for (const io::Example &e : io::builtinExamples())
            if (e.id == id)
                example = e;
        QVERIFY2(example, qPrintable(id));
        QVERIFY2(example->plan, qPrintable(id + " has no \"plan\" in examples.json"));
        Window w;
        showActive(w.window);
        QVERIFY(!w.window.plannerDock()->isVisible());
        // The user set a target of their own before: the example's (none) replaces it.
        setAndEvaluate(w.document, "mode", "inference");
        w.panel->tpotCheck()->setChecked(true);
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        w.window.loadExample(id);
        QVERIFY(w.window.plannerDock()->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QVERIFY(w.panel->isServing());
        const core::Scenario &s = w.document.scenario();
        QCOMPARE(w.panel->devicesBox()->value(), s.tp * s.pp * s.dp);
        const core::ServingPlanRequest &asked = w.panel->servingRequest();
        QCOMPARE(asked.devices, s.tp * s.pp * s.dp);
        QCOMPARE(asked.tpotTargetS, example->plan->tpotMs
                                        ? std::optional<double>(*example->plan->tpotMs * 1e-3)
                                        : std::nullopt);
        QCOMPARE(asked.ttftTargetS, example->plan->ttftMs
                                        ? std::optional<double>(*example->plan->ttftMs * 1e-3)
                                        : std::nullopt);
        QCOMPARE(w.panel->tpotCheck()->isChecked(), example->plan->tpotMs.has_value());
        QVERIFY(!asked.tokensPerSTarget);

        const core::ServingPlanResult expected = core::planServing(asked, w.document.presets());
        const core::ServingPlanResult &shown = *w.panel->servingResult();
        QVERIFY(shown.smallest);
        QCOMPARE(shown.smallest->devicesPerReplica(), expected.smallest->devicesPerReplica());
        if (smallest > 0)
            QCOMPARE(shown.smallest->devicesPerReplica(), smallest);
        QVERIFY(w.panel->summaryLabel()->text().contains(
            io::smallestText(asked, shown).toHtmlEscaped()));
        checkRows(w, expected);
        // Drawn either way: exact points, or hollow bounds.
        ServingPlanChart *chart = w.panel->servingChart();
        QVERIFY(chart->message().isEmpty());
        QCOMPARE(chart->boundsSeries()->count() == 0, exact);
        QCOMPARE(chart->memoryBoundSeries()->count() + chart->computeBoundSeries()->count() > 0,
                 exact);
        if (!exact)
            QVERIFY(chart->boundsSeries()->name().startsWith("Bounds only"));
        // Undo takes back the example, not a planner step: the search changed nothing.
        QVERIFY(w.document.undoStack()->undoText().startsWith("Example: "));
    }
};

QTEST_MAIN(TestDeploymentPlanner)
#include "tst_deployment_planner.moc"
