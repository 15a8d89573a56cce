// The Planner dock (docs/planner.md) through its real widgets, offscreen: it lists what
// core::plan finds, sorts by number, loads a layout as one undo step, says why a request
// cannot be planned, cancels without touching the document, and draws every evaluated
// layout.
#include "core/planner.h"
#include "core/units.h"
#include "core/validate.h"
#include "io/plan_io.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "test_scenarios.h"
#include "ui/charts/plan_chart.h"
#include "ui/main_window.h"
#include "ui/planner/plan_runner.h"
#include "ui/planner/plan_table_model.h"
#include "ui/planner/plan_text.h"
#include "ui/planner/planner_panel.h"
#include "ui/scenario_document.h"
#include "ui/units.h"
#include "widget_helpers.h"

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
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
#include <QToolButton>
#include <QUndoStack>
#include <limits>
#include <optional>

using namespace ui;

namespace {

// Generous: a safety net for a hung search under the sanitizers, not a speed requirement.
constexpr int kPatienceMs = 15 * 60 * 1000;

// A number as the table writes it ("57,679", "2.2724").
double parse(QString text)
{
    return text.remove(QLatin1Char(',')).toDouble();
}

// An enumeration's identifier, for QCOMPARE's messages.
template <typename E> QString name(E value)
{
    return io::qs(core::toString(value));
}

// Holds the planner's only search thread until released, so that a search started
// meanwhile waits in the queue: cancelling it then happens before it starts, whatever the
// machine's speed.
class PoolGate
{
public:
    explicit PoolGate(PlannerPanel *panel) : m_pool(panel->runner()->threadPool())
    {
        m_pool->waitForDone();
        QCOMPARE_EQ(m_pool->maxThreadCount(), 1);
        m_pool->start([this] { m_open.acquire(); });
    }
    ~PoolGate()
    {
        release();
        m_pool->waitForDone(); // the gate's task still holds the semaphore until it returns
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

class TestPlannerPanel : public QObject
{
    Q_OBJECT

private:
    struct Window : ExplorerWindow
    {
        PlannerPanel *panel = window.planner();
    };

    // Opens the window and the Planner dock with its shortcut.
    static void open(Window &w)
    {
        showActive(w.window);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(!w.window.plannerDock()->isVisible());
        QTest::keyClick(&w.window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w.window.plannerDock()->isVisible());
        QVERIFY(w.panel->isVisible());
    }

    // Types a value into a spin box, as a user does.
    static void type(QSpinBox *box, int value)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, QString::number(value));
        QCOMPARE(box->value(), value);
    }

    static void setInputs(Window &w, int devices, int globalBatch, int top)
    {
        type(w.panel->devicesBox(), devices);
        type(w.panel->globalBatchBox(), globalBatch);
        type(w.panel->topBox(), top);
    }

    // Clicks Run and waits until the panel shows the outcome.
    static void runAndWait(Window &w)
    {
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        QTest::mouseClick(w.panel->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QVERIFY(!w.panel->isRunning());
        QVERIFY(!w.panel->progressBar()->isVisible());
    }

    static core::PlanRequest requestOf(const Window &w)
    {
        core::PlanRequest r;
        r.base = w.document.scenario();
        r.devices = w.panel->devicesBox()->value();
        r.globalBatch = w.panel->globalBatchBox()->value();
        r.top = w.panel->topBox()->value();
        r.distinct = w.panel->distinctBox()->isChecked();
        r.hybridSharding = w.panel->hybridBox()->isChecked();
        r.offloading = w.panel->offloadingBox()->isChecked();
        r.headroomGib = w.panel->headroomBox()->value();
        r.rank = static_cast<core::PlanRank>(w.panel->rankBox()->currentData().toInt());
        return r;
    }

    // The candidate on a table row as the user sees it (sorted).
    static const core::PlanCandidate &rowCandidate(const Window &w, int row)
    {
        const QSortFilterProxyModel *sorted = w.panel->sortModel();
        return w.panel->tableModel()->candidate(sorted->mapToSource(sorted->index(row, 0)).row());
    }

    static QString cell(const Window &w, int row, int column)
    {
        return w.panel->sortModel()->index(row, column).data().toString();
    }

    // The first table row (sorted) whose candidate `pick` takes; the row count when none does.
    template <typename Pick> static int firstRow(const Window &w, Pick pick)
    {
        int row = 0;
        while (row < w.panel->sortModel()->rowCount() && !pick(rowCandidate(w, row)))
            ++row;
        return row;
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

private Q_SLOTS:
    void init()
    {
        // Each test starts in GB, whatever a previous one left in the settings.
        units::setCurrent(io::SizeUnit::gb);
    }

    void inputsFollowTheScenario()
    {
        Window w;
        // docs/DESIGN.md §4's default: T=8 × K=4 × D=2 = 64 devices, m=16 × b=1 × D=2 = 32
        // sequences.
        QCOMPARE(w.panel->devicesBox()->value(), 64);
        QCOMPARE(w.panel->globalBatchBox()->value(), 32);
        QCOMPARE(w.panel->topBox()->value(), 20);
        QVERIFY(w.document.setField("dp", "4"));
        w.document.flush();
        QCOMPARE(w.panel->devicesBox()->value(), 128);
        QCOMPARE(w.panel->globalBatchBox()->value(), 64);

        open(w);
        type(w.panel->devicesBox(), 100);
        QVERIFY(w.document.setField("dp", "8"));
        w.document.flush();
        QCOMPARE(w.panel->devicesBox()->value(), 100); // the user's own number stays
        QTest::mouseClick(w.panel->fromScenarioButton(), Qt::LeftButton);
        QCOMPARE(w.panel->devicesBox()->value(), 256);
        QCOMPARE(w.panel->globalBatchBox()->value(), 128);
    }

    void everyInputExplainsItself()
    {
        Window w;
        for (QWidget *widget : std::initializer_list<QWidget *>{
                 w.panel->devicesBox(), w.panel->globalBatchBox(), w.panel->topBox(),
                 w.panel->distinctBox(), w.panel->hybridBox(), w.panel->offloadingBox(),
                 w.panel->headroomBox(), w.panel->rankBox(), w.panel->fromScenarioButton(),
                 w.panel->runButton(), w.panel->cancelButton(), w.panel->loadButton(),
                 w.panel->summaryLabel(), w.panel->table()})
            QVERIFY2(!widget->toolTip().isEmpty(), qPrintable(widget->objectName()));
        QVERIFY(w.panel->summaryLabel()->toolTip().contains("pruned"));
        QVERIFY(w.panel->summaryLabel()->toolTip().contains("lower bound"));
        QVERIFY(w.panel->runButton()->toolTip().contains("T × K × D = N"));
        const QAbstractItemModel *model = w.panel->tableModel();
        for (int column = 0; column < model->columnCount(); ++column)
            QVERIFY2(
                !model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(),
                qPrintable(model->headerData(column, Qt::Horizontal).toString()));
        QCOMPARE(model->headerData(PlanTableModel::stepTime, Qt::Horizontal).toString(),
                 QStringLiteral("Step (s)"));
        QCOMPARE(model->headerData(PlanTableModel::peakMemory, Qt::Horizontal).toString(),
                 QStringLiteral("Peak (GB)"));
        // The dock is one of View's toggles, with its shortcut.
        QAction *toggle = w.window.plannerAction();
        QCOMPARE(toggle->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    }

    void tableMatchesThePlanner_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<int>("top");
        QTest::addColumn<bool>("distinct");
        QTest::addColumn<bool>("hybrid");
        // docs/DESIGN.md §4's default scenario: its own 64 devices and 32 sequences.
        QTest::addRow("70B, 64 H100, 32 sequences") << "llama-3.1-70b"
                                                    << "h100-sxm"
                                                    << "bf16" << 64 << 32 << 20 << true << false;
        QTest::addRow("70B, 64 H100, 512 sequences, top 30")
            << "llama-3.1-70b"
            << "h100-sxm"
            << "bf16" << 64 << 512 << 30 << true << false;
        QTest::addRow("70B, 64 H100, 512 sequences, every variant")
            << "llama-3.1-70b"
            << "h100-sxm"
            << "bf16" << 64 << 512 << 10 << false << false;
        QTest::addRow("8B, 8 A100, 64 sequences") << "llama-3.1-8b"
                                                  << "a100-80gb"
                                                  << "bf16" << 8 << 64 << 10 << true << false;
        QTest::addRow("70B FP8, 32 MI300X, 128 sequences")
            << "llama-3.1-70b"
            << "mi300x"
            << "fp8" << 32 << 128 << 25 << true << false;
        // docs/planner.md, "Hybrid sharding": each layout at ZeRO 1 to 3 also within a node.
        QTest::addRow("8B, 128 A100, 256 sequences, hybrid sharding")
            << "llama-3.1-8b"
            << "a100-80gb"
            << "bf16" << 128 << 256 << 30 << false << true;
    }

    void tableMatchesThePlanner()
    {
        QFETCH(QString, model);
        QFETCH(QString, device);
        QFETCH(QString, precision);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(int, top);
        QFETCH(bool, distinct);
        QFETCH(bool, hybrid);
        Window w;
        QVERIFY(w.document.setField("model", model));
        QVERIFY(w.document.setField("device", device));
        QVERIFY(w.document.setField("precision", precision));
        w.document.flush();
        open(w);
        setInputs(w, devices, globalBatch, top);
        QVERIFY(w.panel->distinctBox()->isChecked()); // the default: one row per split
        if (!distinct)
            QTest::mouseClick(w.panel->distinctBox(), Qt::LeftButton, {},
                              QPoint(4, w.panel->distinctBox()->height() / 2));
        QCOMPARE(w.panel->distinctBox()->isChecked(), distinct);
        if (hybrid)
            QTest::mouseClick(w.panel->hybridBox(), Qt::LeftButton, {},
                              QPoint(4, w.panel->hybridBox()->height() / 2));
        QCOMPARE(w.panel->hybridBox()->isChecked(), hybrid);
        runAndWait(w);

        const core::PlanRequest request = requestOf(w);
        const core::PlanResult expected = core::plan(request, w.document.presets());
        QVERIFY(!expected.error);
        QVERIFY(!expected.candidates.empty());
        QTRY_VERIFY_WITH_TIMEOUT(w.panel->sortModel()->rowCount() > 0, kPatienceMs);
        const int rows = w.panel->sortModel()->rowCount();
        QCOMPARE(rows, static_cast<int>(expected.candidates.size()));
        QVERIFY(rows <= top);
        double previous = 0;
        for (int row = 0; row < rows; ++row) {
            const core::PlanCandidate &shown = rowCandidate(w, row);
            const core::PlanCandidate &want = expected.candidates[std::size_t(row)];
            QVERIFY2(shown.sameLayout(want), qPrintable(QString::number(row)));
            QCOMPARE(shown.stepTimeS, want.stepTimeS);
            QCOMPARE(shown.peakStageBytes, want.peakStageBytes);
            // What the cells say.
            QCOMPARE(cell(w, row, PlanTableModel::rank).toInt(), row + 1);
            QCOMPARE(cell(w, row, PlanTableModel::tp).toInt(), want.tp);
            QCOMPARE(cell(w, row, PlanTableModel::pp).toInt(), want.pp);
            QCOMPARE(cell(w, row, PlanTableModel::dp).toInt(), want.dp);
            QCOMPARE(cell(w, row, PlanTableModel::zero),
                     want.zeroReplicas > 1
                         ? QStringLiteral("%1 in %2").arg(want.zero).arg(want.zeroReplicas)
                         : QString::number(want.zero));
            QCOMPARE(cell(w, row, PlanTableModel::microbatchSize).toInt(), want.microbatchSize);
            QCOMPARE(cell(w, row, PlanTableModel::microbatches).toInt(), want.microbatches);
            QCOMPARE(want.microbatchSize * want.microbatches * want.dp, globalBatch);
            QCOMPARE(want.tp * want.pp * want.dp, devices);
            const QString schedule = cell(w, row, PlanTableModel::schedule);
            QVERIFY(schedule.startsWith(io::qs(core::toString(want.schedule))));
            QCOMPARE(schedule.contains(QStringLiteral("v=")),
                     want.schedule == core::Schedule::interleaved);
            QCOMPARE(cell(w, row, PlanTableModel::endsCounted), want.pp == 1 ? QStringLiteral("–")
                                                                : want.endsInPipelineSplit
                                                                    ? QStringLiteral("yes")
                                                                    : QStringLiteral("no"));
            // Sorted ascending by step time, as shown to four significant places.
            const double step = parse(cell(w, row, PlanTableModel::stepTime));
            QVERIFY(near(step, want.stepTimeS, 5e-4));
            QVERIFY(shown.stepTimeS >= previous);
            previous = shown.stepTimeS;
            QCOMPARE(parse(cell(w, row, PlanTableModel::peakMemory)),
                     std::round(double(want.peakStageBytes) / 1e8) / 10);
            QVERIFY(shown.fits);
        }
        // Hybrid sharding searched: some of the list shards within a node.
        if (hybrid) {
            bool within = false;
            for (int row = 0; row < rows; ++row)
                within |= cell(w, row, PlanTableModel::zero).contains(QStringLiteral(" in "));
            QVERIFY(within);
        }
        // One row per split when asked; every variant otherwise (this case has ties).
        bool repeatsASplit = false;
        for (int row = 0; row < rows; ++row)
            for (int other = 0; other < row; ++other)
                repeatsASplit |= rowCandidate(w, row).sameSplit(rowCandidate(w, other));
        QCOMPARE(repeatsASplit, !distinct);
        // The summary's counts are the search's.
        const core::PlanResult &shown = *w.panel->result();
        const QString summary = w.panel->summaryLabel()->text();
        QVERIFY2(summary.contains(
                     QStringLiteral("%1 layouts considered").arg(io::formatCount(shown.layouts))),
                 qPrintable(summary));
        QVERIFY(summary.contains(
            QStringLiteral("%1 evaluated in full").arg(io::formatCount(shown.evaluated))));
        QVERIFY(summary.contains(QStringLiteral("%1 pruned").arg(io::formatCount(shown.pruned))));
        QVERIFY(summary.contains(
            QStringLiteral("%1 fit with 2 GiB free").arg(io::formatCount(shown.feasible))));
        QVERIFY(summary.contains("Rejected: "));
        // One example of each reason in the summary's tooltip.
        const QString tooltip = w.panel->summaryLabel()->toolTip();
        for (const auto &[reason, group] : shown.rejected)
            QVERIFY2(tooltip.contains(QString::fromStdString(reason).toHtmlEscaped() +
                                      QStringLiteral("</b>, e.g. ")),
                     qPrintable(tooltip));
        // The same device limit as `plan --devices` (README, "Limits").
        QCOMPARE(w.panel->devicesBox()->maximum(), core::limits::kPlanDevices);
        QCOMPARE(shown.layouts, expected.layouts);
        QCOMPARE(shown.feasible > 0, true);
        QVERIFY(!w.panel->messageLabel()->isVisible());
        // The first row is selected and ringed in the chart; Load can take it.
        QCOMPARE(w.panel->table()->currentIndex().row(), 0);
        QVERIFY(w.panel->loadButton()->isEnabled());
        // Export CSV… writes the planner's candidates, as `parascope plan --format csv` does.
        QVERIFY(w.panel->exportCsvButton()->isEnabled());
        QTemporaryDir dir;
        const QString path = dir.filePath("plan.csv");
        QVERIFY(!w.panel->writeCsv(path));
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray csv = written.readAll();
        QCOMPARE(csv, io::toCsv(io::planTable(expected.candidates)));
        QCOMPARE(csv.count("\r\n"), rows + 1);
    }

    // Presentation mode, or a narrow window: the inputs wrap onto more rows instead of
    // widening the dock past the window's right edge (at 1280 pixels in presentation mode
    // Cancel and the summary were cut off).
    static void checkInputsInside(Window &w)
    {
        for (QWidget *input : std::initializer_list<QWidget *>{
                 w.panel->devicesBox(), w.panel->globalBatchBox(), w.panel->topBox(),
                 w.panel->distinctBox(), w.panel->headroomBox(), w.panel->rankBox(),
                 w.panel->fromScenarioButton(), w.panel->runButton(), w.panel->cancelButton()}) {
            const QPoint right = input->mapTo(&w.window, QPoint(input->width(), 0));
            QVERIFY2(right.x() <= w.window.width(), qPrintable(QStringLiteral("%1 ends at %2 of %3")
                                                                   .arg(input->objectName())
                                                                   .arg(right.x())
                                                                   .arg(w.window.width())));
        }
    }
    void inputsWrapInsteadOfRunningOffTheWindow()
    {
        Window w;
        open(w);
        // Presentation mode, then larger text twice: 1.5 × 1.2 × 1.2 = 2.16 times the size.
        w.window.presentationAction()->trigger();
        QTest::keyClick(&w.window, Qt::Key_Equal, Qt::ControlModifier);
        QTest::keyClick(&w.window, Qt::Key_Equal, Qt::ControlModifier);
        QCOMPARE(w.window.textScale(), 1.5 * 1.2 * 1.2);
        // Run moves to a row below Devices N once the larger text is laid out.
        QTRY_VERIFY(w.panel->runButton()->mapTo(w.panel, QPoint(0, 0)).y() >
                    w.panel->devicesBox()->mapTo(w.panel, QPoint(0, 0)).y());
        QVERIFY(w.panel->width() <= w.window.width());
        checkInputsInside(w);
        QTest::keyClick(&w.window, Qt::Key_Minus, Qt::ControlModifier);
        QTest::keyClick(&w.window, Qt::Key_Minus, Qt::ControlModifier);
        w.window.presentationAction()->trigger();
        QCOMPARE(w.window.textScale(), 1.0);
    }

    // The tick answers a different question of the same search: changing it searches again.
    void togglingOnePerSplitSearchesAgain()
    {
        Window w;
        open(w);
        setInputs(w, 64, 512, 10);
        runAndWait(w);
        const int distinctRows = w.panel->sortModel()->rowCount();
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        w.panel->distinctBox()->setFocus();
        QTest::keyClick(w.panel->distinctBox(), Qt::Key_Space);
        QVERIFY(!w.panel->distinctBox()->isChecked());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        const core::PlanResult expected = core::plan(requestOf(w), w.document.presets());
        QCOMPARE(w.panel->sortModel()->rowCount(), static_cast<int>(expected.candidates.size()));
        QCOMPARE(distinctRows, 10);
        for (int row = 0; row < w.panel->sortModel()->rowCount(); ++row)
            QVERIFY(rowCandidate(w, row).sameLayout(expected.candidates[std::size_t(row)]));
        // Without "one per split", variants of one split (ZeRO stage, recomputation, SP) are
        // listed side by side.
        bool repeated = false;
        for (int i = 0; i < w.panel->sortModel()->rowCount() && !repeated; ++i)
            for (int j = i + 1; j < w.panel->sortModel()->rowCount() && !repeated; ++j)
                repeated = rowCandidate(w, i).sameSplit(rowCandidate(w, j));
        QVERIFY(repeated);
    }

    void headerSortsByNumber_data()
    {
        QTest::addColumn<int>("column");
        QTest::addRow("m") << int(PlanTableModel::microbatches);
        QTest::addRow("step time") << int(PlanTableModel::stepTime);
        QTest::addRow("tokens/s") << int(PlanTableModel::tokensPerS);
        QTest::addRow("peak memory") << int(PlanTableModel::peakMemory);
        QTest::addRow("bubble") << int(PlanTableModel::bubble);
    }

    void headerSortsByNumber()
    {
        QFETCH(int, column);
        Window w;
        open(w);
        // 512 sequences on 64 devices: m runs from 8 to 128, "128" < "16" < "8" as text.
        setInputs(w, 64, 512, 60);
        runAndWait(w);
        const int rows = w.panel->sortModel()->rowCount();
        QVERIFY(rows > 10);
        QHeaderView *header = w.panel->table()->horizontalHeader();

        std::optional<Qt::SortOrder> firstOrder;
        for (int click = 0; click < 2; ++click) {
            clickHeader(w, column);
            QCOMPARE(header->sortIndicatorSection(), column);
            const Qt::SortOrder order = header->sortIndicatorOrder();
            if (firstOrder) // a second click reverses the first
                QVERIFY(order != *firstOrder);
            firstOrder = order;
            const bool ascending = order == Qt::AscendingOrder;
            QStringList texts;
            for (int row = 0; row < rows; ++row)
                texts << cell(w, row, column);
            for (int row = 1; row < rows; ++row) {
                const double a = parse(texts[row - 1]);
                const double b = parse(texts[row]);
                QVERIFY2(ascending ? a <= b : a >= b,
                         qPrintable(texts[row - 1] + QStringLiteral(" then ") + texts[row]));
            }
            if (column == PlanTableModel::microbatches) {
                // The order differs from the text's: the test can tell.
                QStringList asText = texts;
                asText.sort();
                if (!ascending)
                    std::reverse(asText.begin(), asText.end());
                QVERIFY(asText != texts);
            }
        }
        // Rank is fixed to the layout: sorting does not renumber.
        clickHeader(w, PlanTableModel::rank);
        if (header->sortIndicatorOrder() != Qt::AscendingOrder)
            clickHeader(w, PlanTableModel::rank);
        for (int row = 0; row < rows; ++row)
            QCOMPARE(cell(w, row, PlanTableModel::rank).toInt(), row + 1);
    }

    void loadingARowIsOneUndoStep()
    {
        Window w;
        open(w);
        runAndWait(w);
        const core::Scenario before = w.document.scenario();
        const QString beforeJson = io::writeScenario(before);
        QUndoStack *undo = w.document.undoStack();
        const int steps = undo->count();

        // A row whose layout is not the explorer's already.
        const int row =
            firstRow(w, [&](const core::PlanCandidate &c) { return !(c.apply(before) == before); });
        QVERIFY(row < w.panel->sortModel()->rowCount());
        clickRow(w, row);
        const core::PlanCandidate c = rowCandidate(w, row);
        QTest::mouseClick(w.panel->loadButton(), Qt::LeftButton);
        w.document.flush();

        const core::Scenario &now = w.document.scenario();
        QCOMPARE(now.tp, c.tp);
        QCOMPARE(now.pp, c.pp);
        QCOMPARE(now.dp, c.dp);
        QCOMPARE(now.zero, c.zero);
        QCOMPARE(name(now.schedule), name(c.schedule));
        QCOMPARE(now.virtualStages, c.virtualStages);
        QCOMPARE(now.microbatchSize, c.microbatchSize);
        QCOMPARE(now.microbatches, c.microbatches);
        QCOMPARE(name(now.recompute), name(c.recompute));
        QCOMPARE(now.sequenceParallel, c.sequenceParallel);
        QVERIFY(now == c.apply(before));
        QCOMPARE(undo->count(), steps + 1);
        QVERIFY2(undo->undoText().startsWith(
                     QStringLiteral("Planner: T=%1 K=%2 D=%3").arg(c.tp).arg(c.pp).arg(c.dp)),
                 qPrintable(undo->undoText()));
        // The explorer evaluates what the planner promised.
        QVERIFY(w.document.report().ok());
        QVERIFY(w.document.report().fits);
        QCOMPARE(w.document.report().stepTime->stepTimeS, c.stepTimeS);
        // The loaded row is bold, and loading did not make the results stale.
        const QModelIndex shown = w.panel->sortModel()->index(row, 0);
        QVERIFY(shown.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!w.panel->isStale());

        undo->undo();
        w.document.flush();
        QVERIFY(w.document.scenario() == before);
        QCOMPARE(io::writeScenario(w.document.scenario()), beforeJson);
        QVERIFY(!shown.data(Qt::FontRole).value<QFont>().bold());

        // A double-click loads too, and so does Enter on the table.
        const int other = row + 1;
        const QRect rect = w.panel->table()->visualRect(w.panel->sortModel()->index(other, 1));
        // What a double-click delivers: press, release, double-click, release.
        QWidget *viewport = w.panel->table()->viewport();
        QTest::mousePress(viewport, Qt::LeftButton, {}, rect.center());
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, rect.center());
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, rect.center());
        w.document.flush();
        QVERIFY(w.document.scenario() == rowCandidate(w, other).apply(before));
        undo->undo();
        w.document.flush();
        clickRow(w, row);
        QTest::keyClick(w.panel->table(), Qt::Key_Return);
        w.document.flush();
        QVERIFY(w.document.scenario() == rowCandidate(w, row).apply(before));
        undo->undo();
        w.document.flush();
        QCOMPARE(io::writeScenario(w.document.scenario()), beforeJson);
    }

    // DeepSpeed's partition by parameters in the explorer: the search splits every K so and
    // says it does, and a row loaded keeps it and evaluates as the planner promised.
    void parametersLayoutIsKeptByTheSearch()
    {
        Window w;
        w.document.setField(QStringLiteral("model"), QStringLiteral("llama-3.1-8b"));
        w.document.setField(QStringLiteral("pipeline_layout"), QStringLiteral("parameters"));
        w.document.flush();
        open(w);
        setInputs(w, 8, 16, 50);
        runAndWait(w);
        QVERIFY2(w.panel->summaryLabel()->text().contains(QStringLiteral("parameter count")),
                 qPrintable(w.panel->summaryLabel()->text()));
        const int row = firstRow(w, [](const core::PlanCandidate &c) { return c.pp > 1; });
        QVERIFY(row < w.panel->sortModel()->rowCount());
        clickRow(w, row);
        const core::PlanCandidate c = rowCandidate(w, row);
        QTest::mouseClick(w.panel->loadButton(), Qt::LeftButton);
        w.document.flush();
        QCOMPARE(w.document.fieldText("pipeline_layout"), QStringLiteral("parameters"));
        QCOMPARE(w.document.scenario().pp, c.pp);
        QVERIFY(w.document.report().ok());
        QCOMPARE(w.document.report().stepTime->stepTimeS, c.stepTimeS);
    }

    // Issue #18 §7 in the window: the headroom spin box and the ranking combo box feed the
    // search (an H100 SXM has 80 GiB: with 10 GiB free no row holds more than 70 GiB; by
    // cost, 8B's cheapest layout on up to 16 devices joined by a 40 Gb/s network, 5 GB/s a
    // NIC, takes fewer than 16), and when nothing
    // fits the message names the smallest device count with a layout that fits: 405B's
    // 6.49 TB of model states need at least 80 H100s.
    void headroomRankAndSmallestCount()
    {
        Window w;
        QVERIFY(w.document.setField("model", "llama-3.1-8b"));
        QVERIFY(w.document.setField("inter_node_gb_per_s", "5"));
        w.document.flush();
        open(w);
        QCOMPARE(w.panel->headroomBox()->value(), 2.0);
        QCOMPARE(w.panel->rankBox()->currentText(), QStringLiteral("Step time"));
        setInputs(w, 16, 64, 10);
        QDoubleSpinBox *headroom = w.panel->headroomBox();
        headroom->setFocus();
        headroom->selectAll();
        QTest::keyClicks(headroom, QStringLiteral("10"));
        QCOMPARE(headroom->value(), 10.0);
        w.panel->rankBox()->setFocus();
        QTest::keyClick(w.panel->rankBox(), Qt::Key_Down);
        QCOMPARE(w.panel->rankBox()->currentText(), QStringLiteral("Cost per token"));
        runAndWait(w);
        QCOMPARE(w.panel->resultRequest().headroomGib, 10.0);
        QVERIFY(w.panel->resultRequest().rank == core::PlanRank::cost);
        QVERIFY(w.panel->sortModel()->rowCount() > 0);
        for (int row = 0; row < w.panel->sortModel()->rowCount(); ++row)
            QVERIFY(rowCandidate(w, row).peakStageBytes <= 70LL << 30);
        const core::PlanCandidate &cheapest = rowCandidate(w, 0);
        QVERIFY(cheapest.tp * cheapest.pp * cheapest.dp < 16);
        QVERIFY(w.panel->summaryLabel()->text().contains(QStringLiteral("fit with 10 GiB free")));

        QVERIFY(w.document.setField("model", "llama-3.1-405b"));
        w.document.flush();
        w.panel->rankBox()->setCurrentIndex(0);
        headroom->setValue(2);
        setInputs(w, 64, 512, 10);
        runAndWait(w);
        const core::PlanResult expected = core::plan(requestOf(w), w.document.presets());
        QVERIFY(expected.smallestFittingDevices && expected.smallestFittingLayout);
        QVERIFY(*expected.smallestFittingDevices >= 80);
        const QString message = w.panel->messageLabel()->text();
        QVERIFY2(message.contains(QStringLiteral("The smallest device count with a layout that "
                                                 "fits: %1 (%2).")
                                      .arg(*expected.smallestFittingDevices)
                                      .arg(io::layoutText(*expected.smallestFittingLayout))
                                      .toHtmlEscaped()),
                 qPrintable(message));
    }

    // docs/planner.md, "Experts and long context": the table shows C when a listed layout
    // splits sequences and E for a model with experts, each cell the candidate's own, and
    // loading a row sets both in the explorer (and names them in the undo step). A dense
    // model at 4,096 tokens shows neither: its table reads as it did.
    void expertAndContextColumns_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<bool>("showsC");
        QTest::addColumn<bool>("showsE");
        QTest::addRow("Llama 3.1 70B, 4,096 tokens")
            << "model=llama-3.1-70b" << 64 << 32 << false << false;
        QTest::addRow("Mixtral 8x7B, 4,096 tokens")
            << "model=mixtral-8x7b" << 64 << 512 << false << true;
        QTest::addRow("Llama 3.1 8B, 131,072 tokens")
            << "model=llama-3.1-8b,seq_len=131072" << 64 << 64 << true << false;
    }
    void expertAndContextColumns()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(bool, showsC);
        QFETCH(bool, showsE);
        Window w;
        w.document.setScenario(scenario(set), QStringLiteral("test"));
        w.document.flush();
        open(w);
        setInputs(w, devices, globalBatch, 10);
        runAndWait(w);
        QVERIFY(w.panel->sortModel()->rowCount() > 0);
        QTableView *table = w.panel->table();
        QCOMPARE(!table->isColumnHidden(PlanTableModel::cp), showsC);
        QCOMPARE(!table->isColumnHidden(PlanTableModel::ep), showsE);
        QVERIFY(!table->isColumnHidden(PlanTableModel::tp));
        // Whether the split counts the ends: shown when a listed layout has a pipeline.
        const auto &listed = w.panel->result()->candidates;
        QCOMPARE(
            !table->isColumnHidden(PlanTableModel::endsCounted),
            std::ranges::any_of(listed, [](const core::PlanCandidate &c) { return c.pp > 1; }));
        QCOMPARE(w.panel->sortModel()->headerData(PlanTableModel::cp, Qt::Horizontal).toString(),
                 QStringLiteral("C"));
        QCOMPARE(w.panel->sortModel()->headerData(PlanTableModel::ep, Qt::Horizontal).toString(),
                 QStringLiteral("E"));
        int split = -1; // the first row with C or E above 1
        for (int row = 0; row < w.panel->sortModel()->rowCount(); ++row) {
            const core::PlanCandidate &c = rowCandidate(w, row);
            QCOMPARE(cell(w, row, PlanTableModel::cp).toInt(), c.cp);
            QCOMPARE(cell(w, row, PlanTableModel::ep).toInt(), c.ep);
            if (split < 0 && (c.cp > 1 || c.ep > 1))
                split = row;
        }
        QCOMPARE(split >= 0, showsC || showsE);
        if (split < 0)
            return;
        clickRow(w, split);
        const core::PlanCandidate c = rowCandidate(w, split);
        QTest::mouseClick(w.panel->loadButton(), Qt::LeftButton);
        w.document.flush();
        QCOMPARE(w.document.scenario().cp, c.cp);
        QCOMPARE(w.document.scenario().ep, c.ep);
        QCOMPARE(w.document.scenario().devices(), devices);
        QVERIFY(w.document.report().fits);
        QCOMPARE(w.document.report().stepTime->stepTimeS, c.stepTimeS);
        const QString undoText = w.document.undoStack()->undoText();
        QCOMPARE(undoText.contains(QStringLiteral(" C=%1 ").arg(c.cp)), c.cp > 1);
        QCOMPARE(undoText.contains(QStringLiteral(" E=%1,").arg(c.ep)), c.ep > 1);
    }

    void unplannableRequestsSayWhy_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("devices");
        QTest::addColumn<QStringList>("expected");
        // A model known only by its size has no layers to split.
        QTest::addRow("size-only model")
            << R"({"format":"parascope-scenario","version":1,
                  "model":{"name":"Seventy","params":70000000000}})"
            << 64 << QStringList{"Cannot plan — model:", "architecture"};
        // The sn30 preset gives 330 TFLOPS at FP16 only.
        QTest::addRow("SN30 in BF16")
            << R"({"format":"parascope-scenario","version":1,"device":"sn30"})" << 64
            << QStringList{"Cannot plan — ", "bf16"};
        // docs/DESIGN.md §3.5: 16 bytes per parameter; 70B ÷ 7 devices is 160 GB > 80 GiB.
        QTest::addRow("70B on 7 devices")
            << R"({"format":"parascope-scenario","version":1})" << 7
            << QStringList{"No layout of 7 devices fits: most were rejected for optimizer "
                           "states"};
    }

    void unplannableRequestsSayWhy()
    {
        QFETCH(QString, scenario);
        QFETCH(int, devices);
        QFETCH(QStringList, expected);
        core::Scenario s;
        QVERIFY(!io::readScenario(scenario.toUtf8(), s));
        Window w;
        w.document.setScenario(s, QStringLiteral("test"));
        w.document.flush();
        open(w);
        type(w.panel->devicesBox(), devices);
        type(w.panel->globalBatchBox(), 7 * 16);
        runAndWait(w);

        QVERIFY(w.panel->messageLabel()->isVisible());
        const QString message = w.panel->messageLabel()->text();
        for (const QString &part : expected)
            QVERIFY2(message.contains(part.toHtmlEscaped()), qPrintable(message));
        QCOMPARE(w.panel->sortModel()->rowCount(), 0);
        QVERIFY(!w.panel->loadButton()->isEnabled());
        QCOMPARE(w.panel->chart()->fittingSeries()->count(), 0);
        QCOMPARE(w.panel->chart()->topSeries()->count(), 0);
    }

    void cancelLeavesTheDocumentAlone()
    {
        Window w;
        open(w);
        runAndWait(w); // results to keep
        const auto shownBefore = w.panel->result()->candidates;
        const QString beforeJson = io::writeScenario(w.document.scenario());
        const int steps = w.document.undoStack()->count();
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        {
            PoolGate gate(w.panel);
            type(w.panel->devicesBox(), 128);
            QTest::mouseClick(w.panel->runButton(), Qt::LeftButton);
            QVERIFY(w.panel->isRunning());
            QVERIFY(w.panel->progressBar()->isVisible());
            QVERIFY(w.panel->cancelButton()->isEnabled());
            QTest::mouseClick(w.panel->cancelButton(), Qt::LeftButton);
            gate.release();
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        }
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY(!w.panel->isRunning());
        QVERIFY(!w.panel->progressBar()->isVisible());
        QVERIFY(!w.panel->cancelButton()->isEnabled());
        QVERIFY(w.panel->messageLabel()->text().contains("cancelled"));
        QCOMPARE(io::writeScenario(w.document.scenario()), beforeJson);
        QCOMPARE(w.document.undoStack()->count(), steps);
        // The previous search stays on screen.
        QCOMPARE(w.panel->resultRequest().devices, 64);
        QCOMPARE(w.panel->sortModel()->rowCount(), static_cast<int>(shownBefore.size()));
        QVERIFY(rowCandidate(w, 0).sameLayout(shownBefore.front()));
    }

    void aNewRunReplacesTheRunningOne()
    {
        Window w;
        open(w);
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        {
            PoolGate gate(w.panel);
            QTest::mouseClick(w.panel->runButton(), Qt::LeftButton);
            QVERIFY(w.panel->isRunning());
            type(w.panel->devicesBox(), 32);
            QTest::keyClick(w.panel->devicesBox(), Qt::Key_Return); // Enter runs too
            QVERIFY(w.panel->isRunning());
            gate.release();
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        }
        QCoreApplication::processEvents();
        // Only the newest search reports; the first was cancelled on the way.
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(w.panel->resultRequest().devices, 32);
        for (int row = 0; row < w.panel->sortModel()->rowCount(); ++row) {
            const core::PlanCandidate &c = rowCandidate(w, row);
            QCOMPARE(c.tp * c.pp * c.dp, 32);
        }
    }

    void chartDrawsEveryEvaluatedLayout_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<bool>("thinned");
        QTest::addRow("70B on 64, 512 sequences") << "llama-3.1-70b" << 4096 << 64 << 512 << false;
        // Llama 3 405B's batch (Llama 3 paper, Table 4: 2,048 × 8,192): thousands of layouts
        // overflow, of which the search times kPlanChartLayouts spread over their memory.
        QTest::addRow("405B on 1,024, 2,048 × 8,192")
            << "llama-3.1-405b" << 8192 << 1024 << 2048 << false;
    }

    void chartDrawsEveryEvaluatedLayout()
    {
        QFETCH(QString, model);
        QFETCH(int, seqLen);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(bool, thinned);
        Window w;
        QVERIFY(w.document.setField("model", model));
        QVERIFY(w.document.setField("seq_len", QString::number(seqLen)));
        w.document.flush();
        open(w);
        setInputs(w, devices, globalBatch, 20);
        // Before a search a sentence stands in the chart's place, not empty axes numbered 1
        // and 2; the search's points replace it.
        PlanChart *chart = w.panel->chart();
        auto *view = chart->findChild<QChartView *>();
        QVERIFY(view);
        QVERIFY2(chart->message().startsWith("Run a search"), qPrintable(chart->message()));
        QVERIFY(!view->isVisible());
        runAndWait(w);
        QVERIFY2(chart->message().isEmpty(), qPrintable(chart->message()));
        QVERIFY(view->isVisible());

        const core::PlanResult &r = *w.panel->result();
        qsizetype fits = 0;
        qsizetype over = 0;
        qsizetype fitsTheSearch = 0;
        for (const core::PlanCandidate &c : r.evaluatedLayouts) {
            ++(c.fits ? fits : over);
            fitsTheSearch += c.leavesHeadroom ? 1 : 0;
        }
        // The chart draws the evaluated layouts; the count of fitting ones covers the pruned
        // ones too (checked for memory only).
        QVERIFY(fitsTheSearch <= qsizetype(r.feasible));
        QVERIFY(fitsTheSearch <= fits);
        QCOMPARE(fits + over, qsizetype(r.evaluated));
        QCOMPARE(chart->fittingSeries()->count(), PlanChart::drawnCount(fits));
        QCOMPARE(chart->overSeries()->count(), PlanChart::drawnCount(over));
        QCOMPARE(chart->topSeries()->count(), qsizetype(r.candidates.size()));
        // Thinned exactly when more than the chart draws one by one.
        const bool thins = over > PlanChart::kMaxPoints;
        QCOMPARE(thins, thinned);
        // A pruned search times only the layouts that fit, but for the chart's share of those
        // that overflow, every k-th by peak memory: from just over the capacity to far
        // beyond it, not only those that nearly fit.
        // Both cases have thousands that overflow.
        QCOMPARE(over, qsizetype(core::kPlanChartLayouts));
        std::int64_t least = std::numeric_limits<std::int64_t>::max();
        std::int64_t most = 0;
        for (const core::PlanCandidate &c : r.evaluatedLayouts)
            if (!c.fits) {
                least = std::min(least, c.peakStageBytes);
                most = std::max(most, c.peakStageBytes);
            }
        const double capacityBytes = 80.0 * core::kGiB; // the H100 SXM's
        QVERIFY(double(least) < 1.1 * capacityBytes);
        QVERIFY(double(most) > 2 * capacityBytes);
        QCOMPARE(chart->overSeries()->count() < over, thins);
        QVERIFY(chart->overSeries()->count() <= PlanChart::kMaxPoints);
        QCOMPARE(chart->caption().contains("Drawing 1 in"), thins);
        // A pruned search says which layouts it drew.
        QVERIFY(r.pruned > 0);
        QVERIFY(chart->caption().startsWith("The layouts ranked, 500 more that fit and 500"));
        QVERIFY(chart->overSeries()->name().contains(io::formatCount(over)));
        QVERIFY(chart->fittingSeries()->name().contains(io::formatCount(fits)));
        // Its legend says these are the evaluated layouts, not the summary's count of all
        // that fit.
        QVERIFY(chart->fittingSeries()->name().startsWith("Evaluated, fit"));
        QVERIFY(chart->overSeries()->name().startsWith("Evaluated, overflow"));
        // The fastest layout that does not fit is always drawn, at its memory and time.
        for (const core::PlanCandidate &c : r.evaluatedLayouts)
            if (!c.fits) {
                QCOMPARE(chart->overSeries()->at(0),
                         QPointF(double(c.peakStageBytes) / 1e9, c.stepTimeS));
                break;
            }
        // Every marker is whole inside the plot: the axes leave room beyond the extreme points.
        double slowest = 0;
        double fastest = 1e300;
        for (const QScatterSeries *series : {chart->fittingSeries(), chart->overSeries()})
            for (const QPointF &p : series->points()) {
                slowest = std::max(slowest, p.y());
                fastest = std::min(fastest, p.y());
            }
        for (QAbstractAxis *axis : chart->fittingSeries()->attachedAxes())
            if (axis->orientation() == Qt::Vertical) {
                const auto *time = static_cast<QLogValueAxis *>(axis);
                QVERIFY2(
                    time->max() >= slowest * 1.15,
                    qPrintable(QStringLiteral("%1 s below %2 s").arg(time->max()).arg(slowest)));
                QVERIFY(time->min() <= fastest / 1.15);
            }
        // The device's capacity: 80 GiB of HBM, in GB.
        const QLineSeries *capacity = chart->capacitySeries();
        QCOMPARE(capacity->count(), 2);
        QCOMPARE(capacity->at(0).x(), 80.0 * core::kGiB / core::kGB);
        // The selected row is ringed; another row moves the ring.
        QCOMPARE(chart->selectedSeries()->count(), 1);
        const core::PlanCandidate &first = rowCandidate(w, 0);
        QCOMPARE(chart->selectedSeries()->at(0),
                 QPointF(double(first.peakStageBytes) / 1e9, first.stepTimeS));
        clickRow(w, 3);
        const core::PlanCandidate &fourth = rowCandidate(w, 3);
        QCOMPARE(chart->selectedSeries()->at(0),
                 QPointF(double(fourth.peakStageBytes) / 1e9, fourth.stepTimeS));
        // A click on a top candidate's diamond selects its row.
        const int last = static_cast<int>(r.candidates.size()) - 1;
        Q_EMIT chart->topSeries()->clicked(chart->topSeries()->at(last));
        QVERIFY(w.panel->selectedCandidate());
        QVERIFY(w.panel->selectedCandidate()->sameLayout(r.candidates.back()));
        QCOMPARE(w.panel->table()->currentIndex().row(), last);
    }

    // A point just below a power of two (62 s under 64) would have its marker cut by the plot's
    // top edge; the axes leave a marker's room (15 %) beyond the extreme points on both axes.
    void planChartLeavesMarkerRoom()
    {
        core::PlanResult result;
        for (const auto &[seconds, gb] : {std::pair{62.0, 31.0}, std::pair{2.1, 130.0}}) {
            core::PlanCandidate c;
            c.stepTimeS = seconds;
            c.peakStageBytes = static_cast<std::int64_t>(gb * 1e9);
            c.fits = gb < 80;
            c.leavesHeadroom = c.fits;
            result.evaluatedLayouts.push_back(c);
        }
        PlanChart chart;
        chart.resize(700, 300);
        chart.setResult(result, static_cast<std::int64_t>(80 * core::kGiB));
        for (QAbstractAxis *axis : chart.fittingSeries()->attachedAxes()) {
            const auto *log = static_cast<QLogValueAxis *>(axis);
            if (axis->orientation() == Qt::Vertical) {
                QVERIFY2(log->max() >= 62 * 1.15, qPrintable(QString::number(log->max())));
                QVERIFY2(log->min() <= 2.1 / 1.15, qPrintable(QString::number(log->min())));
            } else {
                QVERIFY2(log->max() >= 130 * 1.15, qPrintable(QString::number(log->max())));
                QVERIFY2(log->min() <= 31 / 1.15, qPrintable(QString::number(log->min())));
            }
        }
    }

    // A row whose step is under 250 ms says how far published steps that short ran from the
    // model: MLPerf v6.0's 8B on 512 GB300s 16 % shorter, NVIDIA/Megatron-LM#5438 twice as
    // long (docs/step_time.md). It said "1 %" where evaluate's warning said 9.
    void shortStepRowSaysTheRange()
    {
        core::PlanCandidate c;
        c.stepTimeS = 0.09;
        c.shortStep = true;
        PlanTableModel model;
        model.setCandidates({c});
        const QString tip =
            model.index(0, PlanTableModel::stepTime).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("ran from 16 % shorter to 100 % longer"), qPrintable(tip));
        c.shortStep = false;
        model.setCandidates({c});
        QVERIFY(!model.index(0, PlanTableModel::stepTime)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .contains("shorter"));
    }

    void staleWhenTheInputsChange()
    {
        Window w;
        open(w);
        runAndWait(w);
        QVERIFY(!w.panel->isStale());
        QVERIFY(w.document.setField("seq_len", "8192"));
        w.document.flush();
        QVERIFY(w.panel->isStale());
        const QString message = w.panel->messageLabel()->text();
        QVERIFY2(message.contains("seq_len") && message.contains("Run again"), qPrintable(message));
        QVERIFY(w.panel->messageLabel()->isVisible());
        const QModelIndex cell = w.panel->sortModel()->index(0, PlanTableModel::stepTime);
        QVERIFY(cell.data(Qt::ForegroundRole).isValid()); // greyed out

        w.document.undoStack()->undo();
        w.document.flush();
        QVERIFY(!w.panel->isStale());
        QVERIFY(!w.panel->messageLabel()->isVisible());

        // A layout change is what the planner chooses: not stale.
        QVERIFY(w.document.setField("tp", "2"));
        w.document.flush();
        QVERIFY(!w.panel->isStale());
        QVERIFY(w.document.setField("model", "llama-3.1-8b"));
        w.document.flush();
        QVERIFY(w.panel->isStale());
        QVERIFY(w.panel->messageLabel()->text().contains("model"));
        runAndWait(w);
        QVERIFY(!w.panel->isStale());
    }

    // docs/planner.md, "Offloaded layers": ticked by default, the search offloads one-stage
    // Megatron-LM layouts that fit only so, and the Recompute column says how many layers;
    // unticked, it searches again and no row offloads.
    void offloadingBoxSwitchesTheSearch()
    {
        Window w;
        for (const QString &s : megatronBridge70bOnGb200())
            QVERIFY2(w.document.setField(s.section(u'=', 0, 0), s.section(u'=', 1)), qPrintable(s));
        w.document.flush();
        open(w);
        setInputs(w, 64, 256, 10);
        QVERIFY(w.panel->offloadingBox()->isChecked());
        QVERIFY(w.panel->offloadingBox()->isVisible());
        runAndWait(w);
        // The rows that offload, each of them saying so in its Recompute cell; -1 where one
        // does not.
        const auto offloadedRows = [&w] {
            int rows = 0;
            for (int row = 0; row < w.panel->sortModel()->rowCount(); ++row) {
                if (rowCandidate(w, row).offloadLayers == 0)
                    continue;
                if (!cell(w, row, PlanTableModel::recompute).contains("layers offloaded)"))
                    return -1;
                ++rows;
            }
            return rows;
        };
        QVERIFY(offloadedRows() > 0);
        QSignalSpy finished(w.panel, &PlannerPanel::finished);
        QTest::mouseClick(w.panel->offloadingBox(), Qt::LeftButton, {},
                          QPoint(4, w.panel->offloadingBox()->height() / 2));
        QVERIFY(!w.panel->offloadingBox()->isChecked());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.panel->sortModel()->rowCount() > 0, kPatienceMs);
        QCOMPARE(offloadedRows(), 0);
    }

    // A selective layout's modules read beside the kind where they are not the attention core
    // alone, in the table and in the text output (docs/planner.md, "Recomputed modules").
    void recomputedModulesAreShown()
    {
        core::PlanLayout l;
        l.recompute = core::Recompute::selective;
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("selective"));
        QVERIFY(!io::layoutText(l).contains("("));
        l.recomputeModules = "mla_up_proj moe_act";
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("selective (mla_up_proj moe_act)"));
        QVERIFY(io::layoutText(l).endsWith("selective recompute (mla_up_proj moe_act)"));
        l.recompute = core::Recompute::full; // full reruns everything: no modules to name
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("full"));
    }

    // A layout that fits only with the first layers' activations offloaded reads so in the
    // Recompute column and the text output (docs/planner.md, "Offloaded layers").
    void offloadedLayersAreShown()
    {
        core::PlanLayout l;
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("none"));
        QVERIFY(!io::layoutText(l).contains("offloaded"));
        l.offloadLayers = 36;
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("none (36 layers offloaded)"));
        QVERIFY(io::layoutText(l).endsWith(", 36 layers offloaded"));
        l.offloadLayers = 1;
        QCOMPARE(ui::plan_text::recompute(l), QStringLiteral("none (1 layer offloaded)"));
    }

    // The device's assumed rates end both summaries, as the text reports' "Assumed rates" do
    // (docs/step_time.md, "Device data"); a search with measured rates says nothing of them.
    void summariesSayTheAssumedRates()
    {
        core::PlanRequest request;
        core::PlanResult result;
        QVERIFY(!ui::plan_text::summary(request, result).contains("Assumed"));
        result.assumedRates = {"FP8 multiplies at x", "fused attention at y"};
        QVERIFY(ui::plan_text::summary(request, result)
                    .endsWith(" Assumed, not measured on this device: FP8 multiplies at x; fused "
                              "attention at y (docs/step_time.md, \"Device data\")."));
        core::ServingPlanRequest serving;
        core::ServingPlanResult servingResult;
        QVERIFY(!ui::plan_text::servingSummary(serving, servingResult).contains("Assumed"));
        servingResult.assumedRates = {"FP8 multiplies at x"};
        QVERIFY(ui::plan_text::servingSummary(serving, servingResult)
                    .endsWith(" Assumed, not measured on this device: FP8 multiplies at x "
                              "(docs/step_time.md, \"Device data\")."));
    }

    // A base with a pipeline_layout, which the planner ignores (docs/planner.md, "Limits"),
    // is not stale the moment its search ends; changing the layout is a layout change.
    void pipelineLayoutDoesNotMakeItStale()
    {
        Window w;
        QVERIFY(w.document.setField("pp", "2"));
        QVERIFY(w.document.setField("pipeline_layout", "Et*40|t*40L"));
        w.document.flush();
        QVERIFY(w.document.report().ok());
        open(w);
        runAndWait(w);
        QVERIFY(!w.panel->isStale());
        QVERIFY(!w.panel->messageLabel()->text().contains("changed since this search"));
        QVERIFY(w.document.setField("pipeline_layout", "Et*39|t*41L"));
        w.document.flush();
        QVERIFY(!w.panel->isStale());
    }

    void memoryFollowsTheGibSetting()
    {
        Window w;
        open(w);
        runAndWait(w);
        const core::PlanCandidate &c = rowCandidate(w, 0);
        const auto header = [&w] {
            return w.panel->tableModel()
                ->headerData(PlanTableModel::peakMemory, Qt::Horizontal)
                .toString();
        };
        QCOMPARE(header(), QStringLiteral("Peak (GB)"));
        QVERIFY(w.panel->chart()->memoryAxisTitle().contains("(GB"));
        w.window.gibAction()->trigger();
        QCOMPARE(header(), QStringLiteral("Peak (GiB)"));
        QCOMPARE(parse(cell(w, 0, PlanTableModel::peakMemory)),
                 std::round(double(c.peakStageBytes) / double(core::kGiB) * 10) / 10);
        QVERIFY(w.panel->chart()->memoryAxisTitle().contains("(GiB"));
        QCOMPARE(w.panel->chart()->capacitySeries()->at(0).x(), 80.0);
        QCOMPARE(w.panel->chart()->selectedSeries()->at(0).x(),
                 double(c.peakStageBytes) / double(core::kGiB));
        w.window.gibAction()->trigger(); // back to GB for the other tests
        QCOMPARE(header(), QStringLiteral("Peak (GB)"));
    }
};

QTEST_MAIN(TestPlannerPanel)
#include "tst_planner_panel.moc"
