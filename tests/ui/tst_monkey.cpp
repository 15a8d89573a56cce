// A monkey at the explorer window (docs/TESTING.md): thousands of random actions through
// the real widgets, offscreen — slider drags and keys, typed and stepped spin boxes, combo
// boxes, check boxes, undo and redo, the Examples menu, chart tabs, the View menu. After every
// action the chart on screen and the status line must show the document's report, and no Qt
// warning may have been printed; at the end, undoing everything gives back the first scenario.
//
// PARASCOPE_MONKEY_STEPS  how many actions (default 700; 500 under the sanitizers)
// PARASCOPE_MONKEY_SEED   the std::mt19937_64 seed (default 20240909)
// QtTest stops a test function after 5 minutes: for long runs raise QTEST_FUNCTION_TIMEOUT
// (milliseconds) as well.
#include "core/comm_cost.h"
#include "core/fields.h"
#include "core/sharding.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "test_random.h"
#include "test_scenarios.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/units.h"
#include "ui/widgets/slider_spin.h"
#include "widget_helpers.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

using namespace ui;

namespace {

// The sanitizers make every action several times slower: fewer of them by default.
#if defined(PARASCOPE_SANITIZED)
constexpr std::uint64_t kDefaultSteps = 500;
#else
constexpr std::uint64_t kDefaultSteps = 700;
#endif
constexpr std::uint64_t kDefaultSeed = 20240909;

// docs/DESIGN.md §2: the offscreen platform prints this for every top-level window; harmless.
constexpr const char *kHarmless = "This plugin does not support propagateSizeHints()";

// Every Qt warning, critical or fatal message since the last check, except the harmless one.
QStringList g_messages;
QtMessageHandler g_previousHandler = nullptr;

void collectWarnings(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (message.contains(QLatin1String(kHarmless)))
        return;
    if (type != QtDebugMsg && type != QtInfoMsg)
        g_messages << message;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

const char *const kSliders[] = {"pp",      "microbatches",  "tp", "dp", "microbatch_size",
                                "seq_len", "virtual_stages"};
const char *const kCombos[] = {"framework", "model",          "device",      "precision",
                               "mode",      "zero",           "schedule",    "recompute",
                               "attention", "grad_precision", "zero_buffers"};
const char *const kChecks[] = {"sequence_parallel",     "tp_overlap",
                               "fused_swiglu",          "cache_outputs",
                               "fused_elementwise",     "fused_grad_accumulation",
                               "overlap_param_gather",  "ep_overlap",
                               "save_quantized_inputs", "fp8_activation_input"};
const char *const kNumbers[] = {"reserve_gib", "inter_node_gb_per_s", "mfu", "dp_overlap"};

// One random user at the window.
class Monkey : private Dice
{
public:
    Monkey(MainWindow &window, ScenarioDocument &document, std::uint64_t seed)
        : Dice(seed), m_window(window), m_document(document)
    {
        if (QMenu *examples = menuTitled(m_window, QStringLiteral("E&xamples")))
            m_examples = examples->actions();
        if (QMenu *edit = menuTitled(m_window, QStringLiteral("&Edit")))
            m_edit = edit->actions();
    }

    int examples() const { return int(m_examples.size()); }

    // Does one thing a user might do; returns what, for the failure message.
    QString act()
    {
        const int choice = uniform(0, 99);
        if (choice < 22)
            return dragSlider();
        if (choice < 32)
            return keySlider();
        if (choice < 42)
            return editSpinBox();
        if (choice < 60)
            return chooseInCombo();
        if (choice < 66)
            return toggleCheck();
        if (choice < 71)
            return stepNumber();
        if (choice < 81)
            return undoOrRedo();
        if (choice < 85)
            return loadExample();
        if (choice < 95)
            return switchTab();
        return view();
    }

    // Undo through the Edit menu until nothing is left.
    void undoEverything()
    {
        QAction *undo = m_edit.value(0);
        while (m_document.undoStack()->canUndo()) {
            undo->trigger();
            settle();
        }
    }

    // Lets the document's coalesced evaluation run (a zero-length timer), as an event-loop
    // turn after a user's action would.
    void settle()
    {
        QCoreApplication::processEvents();
        m_document.flush();
        QCoreApplication::processEvents();
    }

private:
    // A slider the user can reach: the virtual-stages one is disabled outside interleaving.
    SliderSpin *enabledSlider(const char **key)
    {
        do
            *key = pick(kSliders);
        while (!m_window.controls()->control(QString::fromLatin1(*key))->isEnabled());
        return control<SliderSpin>(*key);
    }

    // A key whose control the user can reach: inference disables the training-only ones
    // (ControlsPanel), and every list keeps some that are always enabled.
    template <std::size_t N> const char *enabledKey(const char *const (&keys)[N])
    {
        const char *key = nullptr;
        do
            key = pick(keys);
        while (!m_window.controls()->control(QString::fromLatin1(key))->isEnabled());
        return key;
    }

    template <typename T> T *control(const char *key) const
    {
        T *w = ::control<T>(m_window, QString::fromLatin1(key));
        if (auto *scroll = m_window.findChild<QScrollArea *>())
            scroll->ensureWidgetVisible(w); // as a user scrolls to it
        return w;
    }

    QString dragSlider()
    {
        const char *key = nullptr;
        QSlider *slider = enabledSlider(&key)->slider();
        const double fraction = real(0, 1);
        ::dragSlider(slider, fraction, uniform(1, 8));
        return QStringLiteral("drag the %1 slider to %2 of its groove").arg(key).arg(fraction);
    }

    QString keySlider()
    {
        const char *key = nullptr;
        QSlider *slider = enabledSlider(&key)->slider();
        const std::pair<Qt::Key, const char *> keys[] = {
            {Qt::Key_PageUp, "PageUp"}, {Qt::Key_PageDown, "PageDown"}, {Qt::Key_Home, "Home"},
            {Qt::Key_End, "End"},       {Qt::Key_Left, "Left"},         {Qt::Key_Right, "Right"}};
        const auto [code, name] = pick(keys);
        slider->setFocus();
        QTest::keyClick(slider, code);
        return QStringLiteral("press %1 on the %2 slider").arg(name, key);
    }

    QString editSpinBox()
    {
        const char *key = nullptr;
        QSpinBox *spin = enabledSlider(&key)->spinBox();
        spin->setFocus();
        if (uniform(0, 1) == 0) {
            const Qt::Key code = uniform(0, 1) ? Qt::Key_Up : Qt::Key_Down;
            QTest::keyClick(spin, code);
            return QStringLiteral("step the %1 spin box %2")
                .arg(key, code == Qt::Key_Up ? "up" : "down");
        }
        const int value = uniform(spin->minimum(), spin->maximum());
        spin->selectAll();
        QTest::keyClicks(spin, QString::number(value));
        QTest::keyClick(spin, Qt::Key_Tab); // leaving the box commits the typed value
        return QStringLiteral("type %1 into the %2 spin box").arg(value).arg(key);
    }

    QString chooseInCombo()
    {
        const char *key = enabledKey(kCombos);
        auto *combo = control<QComboBox>(key);
        const int target = uniform(0, combo->count() - 1);
        chooseWithKeys(combo, target);
        return QStringLiteral("choose %1 = %2").arg(key, combo->itemData(target).toString());
    }

    QString toggleCheck()
    {
        const char *key = enabledKey(kChecks);
        auto *check = control<QCheckBox>(key);
        if (uniform(0, 1) == 0) {
            QStyleOptionButton option;
            option.initFrom(check);
            const QRect box =
                check->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, check);
            QTest::mouseClick(check, Qt::LeftButton, {}, box.center());
            return QStringLiteral("click the %1 check box").arg(key);
        }
        check->setFocus();
        QTest::keyClick(check, Qt::Key_Space);
        return QStringLiteral("press Space on the %1 check box").arg(key);
    }

    QString stepNumber()
    {
        const char *key = enabledKey(kNumbers);
        auto *spin = control<QDoubleSpinBox>(key);
        spin->setFocus();
        const std::pair<Qt::Key, const char *> keys[] = {{Qt::Key_Up, "Up"},
                                                         {Qt::Key_Down, "Down"},
                                                         {Qt::Key_PageUp, "PageUp"},
                                                         {Qt::Key_PageDown, "PageDown"}};
        const auto [code, name] = pick(keys);
        QTest::keyClick(spin, code);
        return QStringLiteral("press %1 in the %2 box").arg(name, key);
    }

    QString undoOrRedo()
    {
        const bool undo = uniform(0, 2) > 0; // more undo than redo, so the stack gets walked
        QUndoStack *stack = m_document.undoStack();
        const bool possible = undo ? stack->canUndo() : stack->canRedo();
        // A shortcut that nothing takes would be a key the window ignores: menu then.
        if (possible && uniform(0, 1) == 0) {
            QTest::keySequence(&m_window, undo ? QKeySequence::Undo : QKeySequence::Redo);
            return undo ? QStringLiteral("press Undo") : QStringLiteral("press Redo");
        }
        m_edit.value(undo ? 0 : 1)->trigger();
        return undo ? QStringLiteral("Edit → Undo") : QStringLiteral("Edit → Redo");
    }

    QString loadExample()
    {
        QAction *example = m_examples.value(uniform(0, int(m_examples.size()) - 1));
        example->trigger();
        return QStringLiteral("Examples → %1").arg(example->text());
    }

    QString switchTab()
    {
        QTabBar *bar = m_window.charts()->tabBar();
        const int tab = uniform(0, bar->count() - 1);
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(tab).center());
        QString what = QStringLiteral("show the %1 tab").arg(bar->tabText(tab));
        // On the timeline, now and then play or step it.
        if (m_window.charts()->currentWidget() == m_window.chart<TimelinePanel>()) {
            QToolButton *play = m_window.chart<TimelinePanel>()->playButton();
            QToolButton *step = m_window.chart<TimelinePanel>()->stepButton();
            if (const int button = uniform(0, 3); button == 1 && play->isEnabled()) {
                QTest::mouseClick(play, Qt::LeftButton);
                what += QStringLiteral(", press Play");
            } else if (button == 2 && step->isEnabled()) {
                QTest::mouseClick(step, Qt::LeftButton);
                what += QStringLiteral(", press Step");
            }
        }
        return what;
    }

    QString view()
    {
        switch (uniform(0, 3)) {
        case 0:
            m_window.gibAction()->trigger();
            return QStringLiteral("View → Sizes in GiB");
        case 1:
            QTest::keyClick(&m_window, Qt::Key_Equal, Qt::ControlModifier);
            return QStringLiteral("Ctrl+= (larger text)");
        case 2:
            QTest::keyClick(&m_window, Qt::Key_Minus, Qt::ControlModifier);
            return QStringLiteral("Ctrl+- (smaller text)");
        default:
            QTest::keyClick(&m_window, Qt::Key_F11);
            return QStringLiteral("F11 (presentation mode)");
        }
    }

    MainWindow &m_window;
    ScenarioDocument &m_document;
    QList<QAction *> m_examples;
    QList<QAction *> m_edit;
};

// Whether the window shows the document: the controls its scenario, the chart on screen and
// the status line its last valid report, the note its current problem. The first
// disagreement, or an empty string.
QString disagreement(const MainWindow &window, const ScenarioDocument &document)
{
    for (const char *key : kSliders) {
        const auto *slider = qobject_cast<SliderSpin *>(window.controls()->control(key));
        if (slider->value() != document.fieldText(key).toInt())
            return QStringLiteral("the %1 control shows %2, the scenario has %3")
                .arg(key)
                .arg(slider->value())
                .arg(document.fieldText(key));
    }
    for (const char *key : kCombos) {
        const auto *combo = qobject_cast<QComboBox *>(window.controls()->control(key));
        if (combo->currentData().toString() != document.fieldText(key))
            return QStringLiteral("the %1 control shows %2, the scenario has %3")
                .arg(key, combo->currentData().toString(), document.fieldText(key));
    }
    for (const char *key : kChecks) {
        const auto *check = qobject_cast<QCheckBox *>(window.controls()->control(key));
        if (check->isChecked() != (document.fieldText(key) == QLatin1String("true")))
            return QStringLiteral("the %1 check box disagrees with the scenario").arg(key);
    }

    const core::Report &current = document.report();
    if (!current.ok()) {
        const QString key = QString::fromStdString(current.error->key);
        if (!window.note()->isVisible() || !window.note()->text().contains(key + ':'))
            return QStringLiteral("the note does not name %1").arg(key);
    } else if (window.note()->isVisible() != !current.warnings.empty()) {
        return QStringLiteral("the note is %1 with %2 warnings")
            .arg(window.note()->isVisible() ? "shown" : "hidden")
            .arg(current.warnings.size());
    }

    const core::Report &r = document.lastValidReport();
    const core::Scenario &s = document.lastValidScenario();
    const QString verdict = window.verdict()->text();
    // C shows when it splits sequences, E when it spreads experts (docs/experts.md).
    const QString layout =
        (r.devices == 1 ? QStringLiteral("%1 device (T=%2%3 × K=%4 × D=%5%6)")
                        : QStringLiteral("%1 devices (T=%2%3 × K=%4 × D=%5%6)"))
            .arg(r.devices)
            .arg(r.tp)
            .arg(r.cp > 1 ? QStringLiteral(" × C=%1").arg(r.cp) : QString())
            .arg(r.pp)
            .arg(r.dp)
            .arg(r.ep > 1 ? QStringLiteral(", experts over E=%1").arg(r.ep) : QString());
    if (!verdict.contains(layout))
        return QStringLiteral("the status line '%1' lacks '%2'").arg(verdict, layout);
    const QString fits = r.fits
                             ? QStringLiteral("Fits:")
                             : QStringLiteral("Does not fit: stage %1 ").arg(r.firstOverflowStage);
    if (!verdict.contains(fits))
        return QStringLiteral("the status line '%1' lacks '%2'").arg(verdict, fits);

    QWidget *visible = window.charts()->currentWidget();
    if (visible == window.chart<StageMemoryChart>()) {
        const StageMemoryChart *chart = window.chart<StageMemoryChart>();
        if (chart->categories().size() != qsizetype(r.stages.size()))
            return QStringLiteral("%1 bars for %2 stages")
                .arg(chart->categories().size())
                .arg(r.stages.size());
        for (const core::MemoryTerm &term : core::kMemoryTerms) {
            const QList<qreal> values = chart->values(QString::fromLatin1(term.label));
            for (std::size_t i = 0; i < r.stages.size(); ++i)
                if (values.value(qsizetype(i), -1) != units::large(double(r.stages[i].*term.bytes)))
                    return QStringLiteral("stage %1's %2 bar is %3, the report says %4")
                        .arg(i)
                        .arg(QLatin1String(term.label))
                        .arg(values.value(qsizetype(i), -1))
                        .arg(units::large(double(r.stages[i].*term.bytes)));
        }
        for (std::size_t i = 0; i < r.stages.size(); ++i)
            if (chart->categories()[qsizetype(i)].contains(QStringLiteral("✗")) == r.stages[i].fits)
                return QStringLiteral("stage %1's label '%2' disagrees with fits")
                    .arg(i)
                    .arg(chart->categories()[qsizetype(i)]);
        if (chart->capacityGb() != units::large(double(r.stages.front().capacityBytes)))
            return QStringLiteral("the capacity line is at %1").arg(chart->capacityGb());
    } else if (visible == window.chart<BubbleChart>()) {
        const BubbleChart *chart = window.chart<BubbleChart>();
        // On the curve: the closed form where there is one (docs/step_time.md).
        const QPointF expected(s.microbatches,
                               100 * r.bubbleFractionClosedForm.value_or(r.bubbleFraction));
        if (chart->marker() != expected)
            return QStringLiteral("the bubble marker is at (%1, %2), the report at (%3, %4)")
                .arg(chart->marker().x())
                .arg(chart->marker().y())
                .arg(expected.x())
                .arg(expected.y());
        // The curves are drawn for the report's K: at m = 1, (K-1)/K.
        const QList<QPointF> curve = chart->curve(core::Schedule::oneFOneB);
        if (curve.isEmpty() || curve.front() != QPointF(1, 100.0 * (r.pp - 1) / r.pp))
            return QStringLiteral("the 1F1B curve is not K = %1's").arg(r.pp);
    } else if (visible == window.chart<TimelinePanel>()) {
        const TimelineChart *chart = window.chart<TimelinePanel>()->chart();
        if (chart->blocks().size() != r.timeline.size() || chart->makespan() != r.makespanS)
            return QStringLiteral("the timeline has %1 blocks over %2, the report %3 over %4")
                .arg(chart->blocks().size())
                .arg(chart->makespan())
                .arg(r.timeline.size())
                .arg(r.makespanS);
    } else if (visible == window.chart<ModelSizeChart>()) {
        const ModelSizeChart *chart = window.chart<ModelSizeChart>();
        const QList<qreal> values = chart->values();
        if (values.size() != qsizetype(r.sizeByPrecision.size()))
            return QStringLiteral("%1 precision bars").arg(values.size());
        for (std::size_t i = 0; i < r.sizeByPrecision.size(); ++i)
            if (values[qsizetype(i)] != units::large(double(r.sizeByPrecision[i].bytes)))
                return QStringLiteral("the %1 bar is %2, the report says %3")
                    .arg(io::qs(core::toString(r.sizeByPrecision[i].precision)))
                    .arg(values[qsizetype(i)])
                    .arg(units::large(double(r.sizeByPrecision[i].bytes)));
        if (chart->highlighted() != io::qs(core::toString(r.precision)))
            return QStringLiteral("%1 is highlighted, the scenario is in %2")
                .arg(chart->highlighted(), io::qs(core::toString(r.precision)));
        if (chart->deviceCapacityGb() != units::large(double(r.stages.front().capacityBytes)))
            return QStringLiteral("the device line is at %1").arg(chart->deviceCapacityGb());
    } else if (visible == window.chart<ShardingChart>()) {
        const core::ShardReport shard = core::analyzeScenarioSharding(s, document.presets());
        const ShardingChart *chart = window.chart<ShardingChart>();
        if (!shard.ok())
            return chart->categories().isEmpty()
                       ? QString()
                       : QStringLiteral("the sharding chart shows a layer it cannot analyse");
        if (chart->categories().size() != qsizetype(shard.strategies.size()))
            return QStringLiteral("%1 sharding strategies drawn").arg(chart->categories().size());
        const QList<qreal> allReduce = chart->values(QStringLiteral("all-reduce"));
        for (std::size_t i = 0; i < shard.strategies.size(); ++i) {
            double bytes = 0;
            for (const core::CollectiveCall &c : shard.strategies[i].collectives)
                if (c.kind == core::Collective::allReduce)
                    bytes += core::wireBytesPerDevice(c.kind, c.payloadBytes, shard.tp);
            if (allReduce.value(qsizetype(i), -1) != units::small(bytes))
                return QStringLiteral("strategy %1 all-reduces %2, the analysis says %3")
                    .arg(i)
                    .arg(allReduce.value(qsizetype(i), -1))
                    .arg(units::small(bytes));
        }
    }
    return {};
}

} // namespace

class TestMonkey : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        g_previousHandler = qInstallMessageHandler(collectWarnings);
        // A unit left by an earlier run must not change what the charts are compared with.
        Settings().setSizesInGib(false);
        units::setCurrent(io::SizeUnit::gb);
    }
    void cleanupTestCase() { qInstallMessageHandler(g_previousHandler); }

    void randomActions()
    {
        const auto steps = environmentNumber("PARASCOPE_MONKEY_STEPS", kDefaultSteps);
        const auto seed = environmentNumber("PARASCOPE_MONKEY_SEED", kDefaultSeed);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const core::Scenario first = document.scenario();
        Monkey monkey(window, document, seed);
        QVERIFY(monkey.examples() > 0);
        g_messages.clear();

        QStringList recent; // the last actions, to reproduce a failure by hand
        auto failure = [&](std::uint64_t step, const QString &what) {
            return QStringLiteral("step %1 of PARASCOPE_MONKEY_SEED=%2: %3\n   last actions: "
                                  "%4\n   scenario: %5")
                .arg(step)
                .arg(seed)
                .arg(what, recent.join(QStringLiteral("; ")), settingsLine(document.scenario()));
        };
        for (std::uint64_t step = 0; step < steps; ++step) {
            recent << monkey.act();
            if (recent.size() > 8)
                recent.removeFirst();
            monkey.settle();
            if (!g_messages.isEmpty())
                QFAIL(qPrintable(
                    failure(step, QStringLiteral("Qt warned: ") + g_messages.join('\n'))));
            if (const QString wrong = disagreement(window, document); !wrong.isEmpty())
                QFAIL(qPrintable(failure(step, wrong)));
        }

        monkey.undoEverything();
        QVERIFY2(g_messages.isEmpty(), qPrintable(g_messages.join('\n')));
        QVERIFY2(document.scenario() == first,
                 qPrintable(QString::fromUtf8(io::writeScenario(document.scenario())) +
                            QStringLiteral("\n   instead of\n") +
                            QString::fromUtf8(io::writeScenario(first))));
        const QString wrong = disagreement(window, document);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
    }
};

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
