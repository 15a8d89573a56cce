// The explorer window through its real widgets, offscreen (docs/DESIGN.md §6).
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/units.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "test_scenarios.h"
#include "ui/charts/bubble_chart.h"
#include "ui/charts/chart_pages.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/model_size_chart.h"
#include "ui/charts/sharding_chart.h"
#include "ui/charts/stage_memory_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/controls_panel.h"
#include "ui/formula_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/sources_dialog.h"
#include "ui/units.h"
#include "ui/widgets/slider_spin.h"
#include "widget_helpers.h"

#include <QAbstractButton>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QFormLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLogValueAxis>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>
#include <QValueAxis>

using namespace ui;

namespace {

// Counts the resize events of the widgets it watches.
class ResizeCounter : public QObject
{
public:
    explicit ResizeCounter(int *count) : m_count(count) {}
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Resize)
            ++*m_count;
        return QObject::eventFilter(watched, event);
    }

private:
    int *m_count;
};

// View → Larger text, its three steps (the largest text it offers), as the menu runs them:
// without a window manager the shortcuts need a focused window.
bool largestText(MainWindow &window)
{
    QAction *larger = nullptr;
    for (QAction *action : window.findChildren<QAction *>())
        if (action->text() == QLatin1String("&Larger text"))
            larger = action;
    if (!larger)
        return false;
    for (int step = 0; step < 3; ++step)
        larger->trigger();
    return true;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    // The current tab of the visible tab bar that groups the bottom docks, empty when no
    // two of them are open side by side in tabs.
    static QString frontDockTab(MainWindow &window)
    {
        for (QTabBar *bar : window.findChildren<QTabBar *>(Qt::FindDirectChildrenOnly))
            if (bar->isVisible() && bar->count() > 1)
                return bar->tabText(bar->currentIndex());
        return {};
    }

    // Clicks a dock's tab, as a user brings it to the front.
    static void clickDockTab(MainWindow &window, const QString &title)
    {
        for (QTabBar *bar : window.findChildren<QTabBar *>(Qt::FindDirectChildrenOnly))
            for (int i = 0; bar->isVisible() && i < bar->count(); ++i)
                if (bar->tabText(i) == title) {
                    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
                    return;
                }
        QFAIL(qPrintable("no tab " + title));
    }

    static QAction *viewItem(MainWindow &window, const QString &text)
    {
        if (QMenu *view = menuTitled(window, "&View"))
            for (QAction *item : view->actions())
                if (item->text() == text)
                    return item;
        return nullptr;
    }

    // Chooses the item whose data is `data` with the arrow keys.
    static void choose(QComboBox *combo, const QString &data)
    {
        const int target = combo->findData(data);
        QVERIFY(target >= 0);
        chooseWithKeys(combo, target);
    }

    // A control enabled where `greyedBecause` is empty, else greyed with a tooltip that starts
    // by saying why.
    static void greyedSaysWhy(QWidget *w, const QString &greyedBecause)
    {
        QVERIFY(w);
        QCOMPARE(w->isEnabled(), greyedBecause.isEmpty());
        if (greyedBecause.isEmpty())
            QVERIFY2(!w->toolTip().startsWith("Not used"), qPrintable(w->toolTip()));
        else
            QVERIFY2(w->toolTip().startsWith(greyedBecause), qPrintable(w->toolTip()));
    }

private Q_SLOTS:
    // docs/DESIGN.md §2: without a font package text renders as empty boxes.
    void fontsAreInstalled() { QVERIFY(!QFontInfo(QFont()).family().isEmpty()); }

    void chartShowsTheDefaultScenario()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        StageMemoryChart *chart = window.chart<StageMemoryChart>();
        // docs/DESIGN.md §4 default: K = 4 stages on an 80 GiB H100.
        QCOMPARE(chart->categories().size(), 4);
        QCOMPARE(chart->capacityGb(), 80.0 * core::kGiB / core::kGB);
        const core::Report &r = document.report();
        const QList<qreal> weights = chart->values("Weights");
        QCOMPARE(weights.size(), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(weights[i], static_cast<double>(r.stages[std::size_t(i)].weightsBytes) / 1e9);
        QCOMPARE(chart->values("Reserve").constFirst(), 2.0 * core::kGiB / 1e9);
        QVERIFY(window.verdict()->text().contains("64 devices"));
        QVERIFY(window.verdict()->text().contains("Fits"));
        QVERIFY(!window.note()->isVisible()); // the default has nothing to warn about
    }

    void everyControlExplainsItself()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const core::FieldInfo &field : core::scenarioFields()) {
            const QString key = QString::fromUtf8(field.key.data(), qsizetype(field.key.size()));
            QWidget *w = window.controls()->control(key);
            QVERIFY2(w, qPrintable(key));
            QVERIFY2(!w->toolTip().isEmpty(), qPrintable(key));
        }
    }

    // The warnings tell users to set the inter-node bandwidth: its box sets the key, and its
    // minimum, which names the device's own figure, empties it.
    // The framework picker comes first and sets its profile as one undoable edit; the note
    // under it names what differs, and the pickers speak the framework's words
    // (docs/frameworks.md).
    void frameworkPicker()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        auto *framework = qobject_cast<QComboBox *>(window.controls()->control("framework"));
        QVERIFY(framework);
        auto *form = window.controls()->findChild<QFormLayout *>();
        QVERIFY(form);
        int row = -1;
        QFormLayout::ItemRole role{};
        form->getWidgetPosition(framework, &row, &role);
        QCOMPARE(row, 0);
        QCOMPARE(framework->currentData().toString(), QStringLiteral("custom"));
        QVERIFY(window.controls()->profileNote()->isHidden());

        QVERIFY(document.setField(QStringLiteral("framework"), QStringLiteral("torchtitan")));
        document.flush();
        auto *zero = qobject_cast<QComboBox *>(window.controls()->control("zero"));
        QCOMPARE(zero->itemText(3), QStringLiteral("3 — FSDP2"));
        QVERIFY(zero->itemText(2).contains("not in torchtitan"));
        auto *recompute = qobject_cast<QComboBox *>(window.controls()->control("recompute"));
        const auto tip = [recompute](const char *kind) {
            return recompute
                ->itemData(recompute->findData(QString::fromLatin1(kind)), Qt::ToolTipRole)
                .toString();
        };
        QVERIFY(tip("full").contains("mode = \"full\""));
        QVERIFY(tip("op").contains("selective_ac_option = \"op\""));
        QVERIFY(tip("selective").isEmpty()); // torchtitan has no attention-only recomputation
        // Choosing torchtitan made the default selective recomputation its own, per op.
        QCOMPARE(recompute->currentData().toString(), QStringLiteral("op"));
        QVERIFY(document.setField(QStringLiteral("cache_outputs"), QStringLiteral("false")));
        document.flush();
        QVERIFY(!window.controls()->profileNote()->isHidden());
        QCOMPARE(window.controls()->profileNote()->text(),
                 QStringLiteral("changed: cache_outputs"));
        // Undo the change, then the framework: the note goes, the names come back.
        document.undoStack()->undo();
        document.flush();
        QVERIFY(window.controls()->profileNote()->isHidden());
        document.undoStack()->undo();
        document.flush();
        QCOMPARE(framework->currentData().toString(), QStringLiteral("custom"));
        QCOMPARE(zero->itemText(3), QStringLiteral("3 — + parameters"));
        QVERIFY(document.scenario().cacheOutputs);
    }

    // The ZeRO picker shows each framework's name for the chosen stage whole, not clipped at
    // the panel's default width (a stage the framework lacks may elide: the list shows it).
    void zeroStageNamesAreWhole_data()
    {
        QTest::addColumn<QString>("framework");
        for (const char *framework : {"custom", "megatron", "torchtitan", "deepspeed"})
            QTest::newRow(framework) << QString::fromLatin1(framework);
    }
    void zeroStageNamesAreWhole()
    {
        QFETCH(QString, framework);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(document.setField(QStringLiteral("framework"), framework));
        document.flush();
        auto *zero = qobject_cast<QComboBox *>(window.controls()->control("zero"));
        QVERIFY(zero);
        for (int stage = 0; stage < zero->count(); ++stage) {
            const QString text = zero->itemText(stage);
            if (text.contains(QStringLiteral("not in")))
                continue;
            QStyleOptionComboBox option;
            option.initFrom(zero);
            const QRect field = zero->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                              QStyle::SC_ComboBoxEditField, zero);
            QVERIFY2(field.width() >= zero->fontMetrics().horizontalAdvance(text),
                     qPrintable(QStringLiteral("%1: %2 px for %3 px of text")
                                    .arg(text)
                                    .arg(field.width())
                                    .arg(zero->fontMetrics().horizontalAdvance(text))));
        }
    }

    // Inference runs forward passes only: the controls about gradients, optimizer states,
    // backward schedules and saved activations are disabled and say why; training brings
    // them back (virtual stages only with the interleaved schedule).
    void inferenceDisablesTrainingControls()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const QStringList trainingOnly{
            "zero",         "schedule",     "recompute",     "grad_precision",         "dp_overlap",
            "fused_swiglu", "zero_buffers", "cache_outputs", "fused_grad_accumulation"};
        for (const QString &key : trainingOnly)
            QVERIFY2(window.controls()->control(key)->isEnabled(), qPrintable(key));
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        for (const QString &key : trainingOnly + QStringList{"virtual_stages"}) {
            QWidget *w = window.controls()->control(key);
            QVERIFY2(!w->isEnabled(), qPrintable(key));
            QVERIFY2(w->toolTip().startsWith("Not used in inference"), qPrintable(key));
        }
        // Still enabled: what inference uses.
        for (const char *key : {"tp", "pp", "microbatches", "precision", "tp_overlap"})
            QVERIFY2(window.controls()->control(key)->isEnabled(), key);
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("training")));
        document.flush();
        QVERIFY(window.controls()->control("zero")->isEnabled());
        QVERIFY(!window.controls()->control("zero")->toolTip().startsWith("Not used"));
        QVERIFY(!window.controls()->control("virtual_stages")->isEnabled()); // 1f1b
    }

    // FP8's scaling and weight format are greyed at other precisions, and say why; the value
    // stays the scenario's (a framework profile may have set it).
    void fp8ControlsExplainWhenGreyed()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("precision"), QStringLiteral("bf16")));
        document.flush();
        for (const char *key : {"fp8_scaling", "fp8_params"}) {
            QWidget *w = window.controls()->control(QString::fromLatin1(key));
            QVERIFY2(!w->isEnabled(), key);
            QVERIFY2(w->toolTip().startsWith("Not used at bf16 precision"), key);
        }
        QVERIFY(document.setField(QStringLiteral("precision"), QStringLiteral("fp8")));
        document.flush();
        for (const char *key : {"fp8_scaling", "fp8_params"}) {
            QWidget *w = window.controls()->control(QString::fromLatin1(key));
            QVERIFY2(w->isEnabled(), key);
            QVERIFY2(!w->toolTip().startsWith("Not used"), key);
        }
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        QVERIFY(window.controls()->control("fp8_scaling")->isEnabled());
        QVERIFY(!window.controls()->control("fp8_params")->isEnabled());
        QVERIFY(window.controls()
                    ->control("fp8_params")
                    ->toolTip()
                    .startsWith("Not used in inference"));
        // NVFP4 holds 16-bit weights but LoRA's frozen ones, which fp8_params holds in NVFP4.
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("training")));
        QVERIFY(document.setField(QStringLiteral("device"), QStringLiteral("b200")));
        QVERIFY(document.setField(QStringLiteral("precision"), QStringLiteral("nvfp4")));
        document.flush();
        QWidget *params = window.controls()->control("fp8_params");
        QVERIFY(!params->isEnabled());
        QVERIFY2(params->toolTip().startsWith("Not used in NVFP4 training of every weight"),
                 qPrintable(params->toolTip()));
        QVERIFY(document.setField(QStringLiteral("lora_rank"), QStringLiteral("16")));
        document.flush();
        QVERIFY(params->isEnabled());
        QVERIFY(!params->toolTip().startsWith("Not used"));
        QVERIFY(!window.controls()->control("fp8_scaling")->isEnabled());
    }

    // The FP8 LM head applies to FP8 training with block scaling only, and says why when greyed.
    void fp8LmHeadExplainsWhenGreyed_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("scaling");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("greyedBecause"); // empty: enabled
        QTest::addRow("MXFP8 training") << "fp8"
                                        << "block"
                                        << "training"
                                        << "";
        QTest::addRow("current scaling") << "fp8"
                                         << "current"
                                         << "training"
                                         << "Not used with current scaling";
        QTest::addRow("bf16") << "bf16"
                              << "block"
                              << "training"
                              << "Not used at bf16 precision";
        QTest::addRow("inference") << "fp8"
                                   << "block"
                                   << "inference"
                                   << "Not used in inference";
    }
    void fp8LmHeadExplainsWhenGreyed()
    {
        QFETCH(QString, precision);
        QFETCH(QString, scaling);
        QFETCH(QString, mode);
        QFETCH(QString, greyedBecause);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("mode"), mode));
        QVERIFY(document.setField(QStringLiteral("precision"), precision));
        QVERIFY(document.setField(QStringLiteral("fp8_scaling"), scaling));
        document.flush();
        QWidget *w = window.controls()->control(QStringLiteral("fp8_lm_head"));
        QVERIFY(w);
        greyedSaysWhy(w, greyedBecause);
        if (QTest::currentTestFailed())
            return;
        // Ticked, the scenario takes it.
        if (greyedBecause.isEmpty()) {
            auto *box = qobject_cast<QCheckBox *>(w);
            QVERIFY(box);
            box->click();
            document.flush();
            QVERIFY(document.scenario().fp8LmHead);
        }
    }

    // Keeping cast inputs and FP8 attention apply to FP8 and NVFP4 training only, and say so
    // when greyed.
    void castInputsExplainWhenGreyed_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("greyedBecause"); // empty: enabled
        QTest::addRow("bf16") << "bf16"
                              << "training"
                              << "Not used at bf16 precision";
        QTest::addRow("fp8") << "fp8"
                             << "training"
                             << "";
        QTest::addRow("nvfp4") << "nvfp4"
                               << "training"
                               << "";
        QTest::addRow("fp8 inference") << "fp8"
                                       << "inference"
                                       << "Not used in inference";
    }
    void castInputsExplainWhenGreyed()
    {
        QFETCH(QString, precision);
        QFETCH(QString, mode);
        QFETCH(QString, greyedBecause);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("mode"), mode));
        QVERIFY(document.setField(QStringLiteral("precision"), precision));
        document.flush();
        for (const char *key : {"save_quantized_inputs", "fp8_attention"}) {
            greyedSaysWhy(window.controls()->control(QString::fromLatin1(key)), greyedBecause);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The weights' cast copies and FP8 weights' transposes (fp8_weight_cache) exist in FP8 or
    // NVFP4 training only, and not at ZeRO-3, whose gathers bring the weights anew.
    void castWeightsExplainWhenGreyed_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("greyedBecause"); // empty: enabled
        QTest::addRow("bf16") << QStringList{"precision=bf16"} << "Not used at bf16 precision";
        QTest::addRow("fp8, BF16 weights")
            << QStringList{"precision=fp8", "fp8_params=false"} << "";
        QTest::addRow("fp8, FP8 weights: their transposes")
            << QStringList{"precision=fp8", "fp8_params=true"} << "";
        QTest::addRow("nvfp4") << QStringList{"precision=nvfp4"} << "";
        QTest::addRow("fp8 inference")
            << QStringList{"mode=inference", "precision=fp8"} << "Not used in inference";
        QTest::addRow("ZeRO-3") << QStringList{"precision=fp8", "fp8_params=false", "zero=3"}
                                << "Not used at ZeRO-3";
    }
    void castWeightsExplainWhenGreyed()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, greyedBecause);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const QString &setting : settings)
            QVERIFY(document.setField(setting.section(QLatin1Char('='), 0, 0),
                                      setting.section(QLatin1Char('='), 1)));
        document.flush();
        greyedSaysWhy(window.controls()->control(QStringLiteral("fp8_weight_cache")),
                      greyedBecause);
    }

    // The fused SwiGLU's input in FP8 (Megatron-LM --activation-func-fp8-input-store; Megatron-
    // core refuses it outside SwiGLU, and keeps it in its fused kernel only) applies to
    // training a gated MLP with fused_swiglu, and says why when greyed. Ticked, the input is
    // kept at one byte a value: the stage's activations shrink.
    void fp8ActivationInputExplainsWhenGreyed_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("fused");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("greyedBecause"); // empty: enabled
        QTest::addRow("Llama, fused SwiGLU") << "llama-3.1-8b"
                                             << "true"
                                             << "training"
                                             << "";
        QTest::addRow("Llama, unfused SwiGLU") << "llama-3.1-8b"
                                               << "false"
                                               << "training"
                                               << "Used with Fused SwiGLU only";
        QTest::addRow("GPT-3's GeLU MLP") << "gpt-3-175b"
                                          << "true"
                                          << "training"
                                          << "The model's MLP is not gated";
        QTest::addRow("inference") << "llama-3.1-8b"
                                   << "true"
                                   << "inference"
                                   << "Not used in inference";
    }
    void fp8ActivationInputExplainsWhenGreyed()
    {
        QFETCH(QString, model);
        QFETCH(QString, fused);
        QFETCH(QString, mode);
        QFETCH(QString, greyedBecause);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("model"), model));
        QVERIFY(document.setField(QStringLiteral("fused_swiglu"), fused));
        QVERIFY(document.setField(QStringLiteral("mode"), mode));
        document.flush();
        QWidget *w = window.controls()->control(QStringLiteral("fp8_activation_input"));
        greyedSaysWhy(w, greyedBecause);
        if (QTest::currentTestFailed() || !greyedBecause.isEmpty())
            return;
        auto *box = qobject_cast<QCheckBox *>(w);
        QVERIFY(box);
        const std::int64_t before = document.report().stages.front().activationsBytes;
        box->click();
        document.flush();
        QVERIFY(document.scenario().fp8ActivationInput);
        QVERIFY(document.report().ok());
        QVERIFY(document.report().stages.front().activationsBytes < before);
    }

    // Unticking the fused SwiGLU turns its FP8 input off in the same undo step, so the edit
    // leaves no scenario validation refuses; one undo brings both back.
    void unfusingTurnsTheFp8InputOff()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("model"), QStringLiteral("llama-3.1-8b")));
        QVERIFY(document.setField(QStringLiteral("fused_swiglu"), QStringLiteral("true")));
        QVERIFY(document.setField(QStringLiteral("fp8_activation_input"), QStringLiteral("true")));
        document.flush();
        QVERIFY(document.report().ok());
        auto *fused = qobject_cast<QCheckBox *>(window.controls()->control("fused_swiglu"));
        auto *fp8 = qobject_cast<QCheckBox *>(window.controls()->control("fp8_activation_input"));
        QVERIFY(fused && fp8 && fp8->isChecked());
        const int steps = document.undoStack()->count();
        fused->click();
        document.flush();
        QVERIFY(!document.scenario().fusedSwiglu);
        QVERIFY(!document.scenario().fp8ActivationInput);
        QVERIFY(document.report().ok());
        QVERIFY(!fp8->isChecked() && !fp8->isEnabled());
        QCOMPARE(document.undoStack()->count(), steps + 1);
        document.undoStack()->undo();
        document.flush();
        QVERIFY(document.scenario().fusedSwiglu && document.scenario().fp8ActivationInput);
        QVERIFY(fp8->isChecked() && fp8->isEnabled());
    }

    // The expert dispatcher applies to models with experts, and differs from the all-to-all
    // only when E x expert T spans nodes (8 H100s a node): it says which, and sets its key.
    void expertDispatcherSaysWhenItMatters_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("ep");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("tooltipStart");
        QTest::addRow("dense") << "llama-3.1-70b"
                               << "1" << false << "The model is dense";
        QTest::addRow("E = 8: one node") << "qwen3-30b-a3b"
                                         << "8" << true << "The all-to-all stays in one node";
        QTest::addRow("E = 16: two nodes") << "qwen3-30b-a3b"
                                           << "16" << true << "How tokens reach";
    }
    void expertDispatcherSaysWhenItMatters()
    {
        QFETCH(QString, model);
        QFETCH(QString, ep);
        QFETCH(bool, enabled);
        QFETCH(QString, tooltipStart);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("model"), model));
        QVERIFY(document.setField(QStringLiteral("tp"), QStringLiteral("1")));
        QVERIFY(document.setField(QStringLiteral("pp"), QStringLiteral("1")));
        QVERIFY(document.setField(QStringLiteral("dp"), ep));
        QVERIFY(document.setField(QStringLiteral("ep"), ep));
        document.flush();
        auto *dispatcher = qobject_cast<QComboBox *>(window.controls()->control("ep_dispatcher"));
        QVERIFY(dispatcher);
        QCOMPARE(dispatcher->isEnabled(), enabled);
        QVERIFY2(dispatcher->toolTip().startsWith(tooltipStart), qPrintable(dispatcher->toolTip()));
        if (enabled) {
            choose(dispatcher, QStringLiteral("flex"));
            QTRY_VERIFY(document.scenario().epDispatcher == core::EpDispatcher::flex);
        }
    }

    // The experts' capacity: padding is greyed, and says why, until a capacity is set; going
    // back to dropless turns padding off in the same undo step, so no edit leaves the scenario
    // refused (pad_to_capacity needs expert_capacity_factor).
    void expertCapacityControls()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("model"), QStringLiteral("qwen3-30b-a3b")));
        document.flush();
        auto *capacity =
            qobject_cast<QDoubleSpinBox *>(window.controls()->control("expert_capacity_factor"));
        auto *pad = qobject_cast<QCheckBox *>(window.controls()->control("pad_to_capacity"));
        QVERIFY(capacity && pad);
        QVERIFY(capacity->isEnabled());
        QCOMPARE(capacity->text(), QStringLiteral("dropless"));
        QVERIFY(!pad->isEnabled());
        QVERIFY2(pad->toolTip().startsWith("Set an expert capacity factor first"),
                 qPrintable(pad->toolTip()));
        capacity->setValue(1.25);
        document.flush();
        QCOMPARE(document.scenario().expertCapacityFactor.value_or(0), 1.25);
        QVERIFY(pad->isEnabled());
        pad->click();
        document.flush();
        QVERIFY(document.scenario().padToCapacity);
        QVERIFY(document.report().ok());
        capacity->setValue(capacity->minimum());
        document.flush();
        QVERIFY(!document.scenario().expertCapacityFactor);
        QVERIFY(!document.scenario().padToCapacity);
        QVERIFY(document.report().ok());
        QVERIFY(!pad->isChecked() && !pad->isEnabled());
        document.undoStack()->undo();
        document.flush();
        QCOMPARE(document.scenario().expertCapacityFactor.value_or(0), 1.25);
        QVERIFY(document.scenario().padToCapacity);
        // A dense model has no experts to size.
        QVERIFY(document.setField(QStringLiteral("model"), QStringLiteral("llama-3.1-8b")));
        document.flush();
        QVERIFY(!capacity->isEnabled());
        QVERIFY(capacity->toolTip().startsWith("The model is dense"));
    }

    // The busiest expert rank's load: "balanced" at 1, greyed and saying why where no rank
    // can take more than another (a dense model, or E = 1), and an edit reaches the experts'
    // multiplies (docs/experts.md, "Routing imbalance").
    void expertRankLoadControl()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        document.flush();
        auto *load = qobject_cast<QDoubleSpinBox *>(window.controls()->control("expert_rank_load"));
        QVERIFY(load);
        QVERIFY(!load->isEnabled());
        QVERIFY2(load->toolTip().startsWith("The model is dense"), qPrintable(load->toolTip()));
        core::Scenario moe = document.scenario();
        for (const auto &[key, value] : {std::pair{"model", "qwen3-30b-a3b"},
                                         {"tp", "1"},
                                         {"pp", "1"},
                                         {"dp", "8"},
                                         {"ep", "1"}})
            QVERIFY(!core::setField(moe, key, value));
        document.setScenario(moe, QStringLiteral("Qwen3 at E = 1"));
        document.flush();
        QVERIFY(!load->isEnabled());
        QVERIFY2(load->toolTip().startsWith("E = 1"), qPrintable(load->toolTip()));
        QVERIFY(document.setField(QStringLiteral("ep"), QStringLiteral("8")));
        document.flush();
        QVERIFY(load->isEnabled());
        QCOMPARE(load->text(), QStringLiteral("balanced"));
        const double balanced = document.report().stepTime->stepTimeS;
        load->setValue(1.5);
        document.flush();
        QCOMPARE(document.scenario().expertRankLoad, 1.5);
        QCOMPARE(document.report().expertLoad, 1.5);
        QVERIFY(document.report().stepTime->stepTimeS > balanced);
    }

    // Offloaded layers ("none" at 0): Transformer Engine's CPU offloading applies in training
    // with one pipeline stage and no recomputation, as Megatron-core's transformer_config.py
    // allows it, over a device's published host link (docs/activations.md, "Offloaded
    // layers"); elsewhere the box is greyed and says why, and while set there it stays enabled,
    // to be set back to none.
    void offloadLayersControl_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("tooltipStart");
        QTest::addRow("K = 4") << QStringList{"recompute=none"} << false
                               << "K = 4: Megatron-core offloads activations";
        QTest::addRow("selective recomputation")
            << QStringList{"pp=1"} << false
            << "Used without recomputation only: Megatron-core's CPU offloading does not work "
               "with selective recomputation.";
        QTest::addRow("full recomputation")
            << QStringList{"pp=1", "recompute=full"} << false
            << "Used without recomputation only: Megatron-core's CPU offloading does not work "
               "with full recomputation.";
        QTest::addRow("inference") << QStringList{"mode=inference", "pp=1", "recompute=none"}
                                   << false << "Not used in inference";
        QTest::addRow("B300: no host link published")
            << QStringList{"device=b300", "pp=1", "recompute=none"} << false
            << "NVIDIA B300 (HGX 8-GPU) publishes no link to host memory";
        QTest::addRow("H100: one stage, no recomputation")
            << QStringList{"pp=1", "recompute=none"} << true << "Training with one pipeline stage";
        QTest::addRow("GB200 NVL72: one stage, no recomputation")
            << QStringList{"device=gb200-nvl72", "pp=1", "recompute=none"} << true
            << "Training with one pipeline stage";
    }
    // A stage whose device holds its share but whose offloaded activations overflow the host's
    // memory (host_memory_gb: a GB200's Grace has 480 GB for two GPUs) is said to overflow the
    // host, not the device it fits (docs/activations.md, "Offloaded layers").
    void hostOverflowIsSaid()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const QString &s :
             megatronBridge70bOnGb200() + QStringList{"pp=1", "zero=3", "microbatches=2",
                                                      "microbatch_size=2", "offload_layers=79"})
            QVERIFY2(document.setField(s.section(u'=', 0, 0), s.section(u'=', 1)), qPrintable(s));
        document.flush();
        const core::Report &r = document.report();
        QVERIFY(r.ok() && !r.fits && r.stages[0].hostOverflow);
        const QString verdict = window.verdict()->text();
        QVERIFY2(verdict.contains(QStringLiteral("Does not fit: stage 0's offloaded activations "
                                                 "need %1 of host memory, of %2.")
                                      .arg(units::format(double(r.stages[0].offloadedBytes)),
                                           units::format(240e9))),
                 qPrintable(verdict));
        const QString note = window.note()->text() + window.note()->toolTip();
        QVERIFY2(note.contains(QStringLiteral("its 79 offloaded layers' activations need %1 of "
                                              "host memory")
                                   .arg(units::format(double(r.stages[0].offloadedBytes)))),
                 qPrintable(note));
    }

    void offloadLayersControl()
    {
        QFETCH(QStringList, settings);
        QFETCH(bool, enabled);
        QFETCH(QString, tooltipStart);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const QString &setting : settings)
            QVERIFY(document.setField(setting.section(u'=', 0, 0), setting.section(u'=', 1)));
        document.flush();
        auto *box = qobject_cast<QDoubleSpinBox *>(window.controls()->control("offload_layers"));
        QVERIFY(box);
        QCOMPARE(box->text(), QStringLiteral("none"));
        QCOMPARE(box->isEnabled(), enabled);
        QVERIFY2(box->toolTip().startsWith(tooltipStart), qPrintable(box->toolTip()));
        // The key's help follows any reason.
        QVERIFY2(box->toolTip().contains(QStringLiteral("--cpu-offloading-num-layers")),
                 qPrintable(box->toolTip()));
        if (!enabled)
            return;
        // Typed as a user does: the value lands when Enter is pressed.
        QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(box, QStringLiteral("20"));
        QTest::keyClick(box, Qt::Key_Return);
        document.flush();
        QCOMPARE(document.scenario().offloadLayers, 20);
        QVERIFY(document.report().ok());
        QCOMPARE(document.report().stages.front().offloadedLayers, 20);
        // Set where Megatron-core refuses it, it stays enabled to be set back to none.
        QVERIFY(document.setField(QStringLiteral("pp"), QStringLiteral("4")));
        document.flush();
        QVERIFY(!document.report().ok());
        QCOMPARE(document.report().error->key, std::string("offload_layers"));
        QVERIFY(box->isEnabled());
        QVERIFY2(box->toolTip().startsWith("K = 4"), qPrintable(box->toolTip()));
        box->setValue(box->minimum());
        document.flush();
        QCOMPARE(document.scenario().offloadLayers, 0);
        QVERIFY(document.report().ok());
        QVERIFY(!box->isEnabled());
    }

    // Megatron-LM's recompute modules as a line of words: core_attn by default, a change
    // reaches the report's activations, and it is greyed outside selective recomputation.
    void recomputeModulesControl()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        document.flush();
        auto *line = qobject_cast<QLineEdit *>(window.controls()->control("recompute_modules"));
        QVERIFY(line);
        QCOMPARE(line->text(), QStringLiteral("core_attn"));
        QVERIFY(line->isEnabled());
        const std::int64_t before = document.report().stages.front().activationsBytes;
        line->setText(QStringLiteral("core_attn mlp"));
        Q_EMIT line->editingFinished();
        document.flush();
        QCOMPARE(document.fieldText("recompute_modules"), QStringLiteral("core_attn mlp"));
        QVERIFY(document.report().ok());
        QVERIFY(document.report().stages.front().activationsBytes < before);
        QVERIFY(document.setField(QStringLiteral("recompute"), QStringLiteral("full")));
        document.flush();
        QVERIFY(!line->isEnabled());
        QVERIFY2(line->toolTip().startsWith("Used with selective recomputation only"),
                 qPrintable(line->toolTip()));
    }

    // LoRA's rank ("off" at 0) and the projections its adapters sit beside: a rank trains the
    // adapters alone, so the optimizer states shrink (docs/step_time.md, "LoRA"); the modules are
    // greyed while the rank is off, an emptied line shows the scenario's list again, and both
    // are greyed in inference.
    void loraControls()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        document.flush();
        auto *rank = qobject_cast<QDoubleSpinBox *>(window.controls()->control("lora_rank"));
        auto *modules = qobject_cast<QLineEdit *>(window.controls()->control("lora_modules"));
        QVERIFY(rank && modules);
        QCOMPARE(rank->text(), QStringLiteral("off"));
        QVERIFY(rank->isEnabled());
        QCOMPARE(modules->text(), QStringLiteral("linear_qkv linear_proj linear_fc1 linear_fc2"));
        QVERIFY(!modules->isEnabled());
        QVERIFY2(modules->toolTip().startsWith("Used with a LoRA rank only"),
                 qPrintable(modules->toolTip()));
        const std::int64_t before = document.report().stages.front().optimizerBytes;
        rank->setValue(16);
        document.flush();
        QCOMPARE(document.scenario().loraRank, 16);
        QVERIFY(document.report().ok());
        QVERIFY(document.report().stages.front().optimizerBytes < before / 10);
        QVERIFY(modules->isEnabled());
        modules->setText(QStringLiteral("linear_qkv linear_proj"));
        Q_EMIT modules->editingFinished();
        document.flush();
        QCOMPARE(document.fieldText("lora_modules"), QStringLiteral("linear_qkv linear_proj"));
        modules->clear();
        Q_EMIT modules->editingFinished();
        QCOMPARE(document.fieldText("lora_modules"), QStringLiteral("linear_qkv linear_proj"));
        QCOMPARE(modules->text(), QStringLiteral("linear_qkv linear_proj"));
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        for (QWidget *w : {static_cast<QWidget *>(rank), static_cast<QWidget *>(modules)}) {
            QVERIFY2(!w->isEnabled(), qPrintable(w->objectName()));
            QVERIFY2(w->toolTip().startsWith("Not used in inference"), qPrintable(w->toolTip()));
        }
    }

    // Under hybrid sharding the ZeRO replicas R must divide D: the D slider lands on multiples
    // of R only, its box steps by R, and its tooltip says why; at ZeRO 0, where R is unused,
    // every D again.
    void dataParallelMovesInMultiplesOfTheReplicas()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        for (const auto &[key, value] :
             {std::pair{"zero", "3"}, {"dp", "64"}, {"zero_replicas", "16"}})
            QVERIFY(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)));
        document.flush();
        auto *dp = qobject_cast<SliderSpin *>(window.controls()->control("dp"));
        QVERIFY(dp);
        QCOMPARE(dp->multiple(), 16);
        QCOMPARE(dp->spinBox()->singleStep(), 16);
        QVERIFY2(dp->toolTip().startsWith("Moves in multiples of R = 16"),
                 qPrintable(dp->toolTip()));
        // Every slider position gives a D that R divides, from 16 to 1,024.
        QSlider *slider = dp->slider();
        for (int position = slider->minimum(); position <= slider->maximum(); position += 7) {
            slider->setValue(position);
            QVERIFY2(dp->value() % 16 == 0 && dp->value() >= 16 && dp->value() <= 1024,
                     qPrintable(QString::number(dp->value())));
        }
        document.flush();
        QVERIFY(document.report().ok());
        QCOMPARE(document.scenario().dp % 16, 0);
        QVERIFY(document.setField(QStringLiteral("zero"), QStringLiteral("0")));
        document.flush();
        QCOMPARE(dp->multiple(), 1);
        QCOMPARE(dp->spinBox()->singleStep(), 1);
        QVERIFY(!dp->toolTip().startsWith("Moves in multiples"));
    }

    // Where the adapters' dropout acts: greyed until there is a rank and a dropout, each place
    // explained, and choosing B's output sets lora_dropout_position (docs/step_time.md, "LoRA").
    void loraDropoutPositionChoice()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *picker =
            qobject_cast<QComboBox *>(window.controls()->control("lora_dropout_position"));
        QVERIFY(picker);
        QVERIFY(!picker->isEnabled());
        QVERIFY(picker->itemData(0, Qt::ToolTipRole).toString().contains("Hugging Face PEFT"));
        QVERIFY(picker->itemData(1, Qt::ToolTipRole).toString().contains("NeMo AutoModel"));
        for (const auto &[key, value] : {std::pair{"lora_rank", "16"}, {"lora_dropout", "0.1"}})
            QVERIFY(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)));
        document.flush();
        QVERIFY(picker->isEnabled());
        choose(picker, QStringLiteral("post"));
        QTRY_VERIFY(document.scenario().loraDropoutPosition == core::LoraDropoutPosition::post);
    }

    // The adapters' all-to-all and QKV's overlap act only where there is something to
    // exchange or hide: enabled there, or while set so that they can be cleared; the tooltip
    // says when they act.
    void exchangeAndOverlapChecks()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        document.flush();
        auto *a2a = qobject_cast<QCheckBox *>(window.controls()->control("lora_a2a"));
        auto *qkv = qobject_cast<QCheckBox *>(window.controls()->control("tp_overlap_qkv"));
        QVERIFY(a2a && qkv);
        QVERIFY(!a2a->isEnabled());
        QVERIFY2(a2a->toolTip().startsWith("Used with a LoRA rank, T > 1"),
                 qPrintable(a2a->toolTip()));
        QVERIFY(!qkv->isEnabled());
        QVERIFY(qkv->isChecked()); // on by default
        for (const auto &[key, value] : {std::pair{"lora_rank", "16"},
                                         {"tp", "4"},
                                         {"sequence_parallel", "true"},
                                         {"tp_overlap", "true"}})
            QVERIFY(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)));
        document.flush();
        QVERIFY(a2a->isEnabled() && qkv->isEnabled());
        QVERIFY(!a2a->toolTip().startsWith("Used with"));
        const double gathered = document.report().stepTime->stepTimeS;
        a2a->click();
        document.flush();
        QVERIFY(document.scenario().loraA2a);
        QVERIFY(document.report().stepTime->stepTimeS < gathered);
        qkv->click();
        document.flush();
        QVERIFY(!document.scenario().tpOverlapQkv);
        // Set, then made useless: still enabled, to be cleared, and warned.
        QVERIFY(document.setField(QStringLiteral("tp_overlap"), QStringLiteral("false")));
        document.flush();
        QVERIFY(qkv->isEnabled());
        QVERIFY(qkv->toolTip().startsWith("Used with Overlap TP communication"));
        QVERIFY(document.report().hasWarning("tp-overlap-qkv-unused"));
    }

    // Multi-token prediction's depths: "none" at 0, a depth adds to the last stage's
    // parameters; greyed in inference, where it trains nothing.
    void multiTokenPredictionControl()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        document.flush();
        auto *depths = qobject_cast<QDoubleSpinBox *>(window.controls()->control("mtp_layers"));
        QVERIFY(depths);
        QVERIFY(depths->isEnabled());
        QCOMPARE(depths->text(), QStringLiteral("none"));
        const std::int64_t before = document.report().stages.back().params;
        depths->setValue(1);
        document.flush();
        QCOMPARE(document.scenario().mtpLayers, 1);
        QVERIFY(document.report().ok());
        QCOMPARE(document.report().stages.back().mtpLayers, 1);
        QVERIFY(document.report().stages.back().params > before);
        depths->setValue(0);
        document.flush();
        QCOMPARE(document.scenario().mtpLayers, 0);
        // A count's special value is the count (expert_tp's "as T" is 0), not an unset key.
        auto *expertTp = qobject_cast<QDoubleSpinBox *>(window.controls()->control("expert_tp"));
        QVERIFY(document.setField(QStringLiteral("model"), QStringLiteral("qwen3-30b-a3b")));
        QVERIFY(document.setField(QStringLiteral("expert_tp"), QStringLiteral("1")));
        document.flush();
        QVERIFY(expertTp && expertTp->isEnabled());
        expertTp->setValue(expertTp->minimum());
        document.flush();
        QCOMPARE(document.scenario().expertTp, 0);
        QCOMPARE(expertTp->text(), QStringLiteral("as T"));
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        QVERIFY(!depths->isEnabled());
        QVERIFY2(depths->toolTip().startsWith("Not used in inference"),
                 qPrintable(depths->toolTip()));
    }

    // The rank order only moves devices between stages: with one stage it is greyed and says
    // so; with more it sets the scenario's key.
    void rankOrderExplainsWhenGreyed()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(document.setField(QStringLiteral("pp"), QStringLiteral("1")));
        document.flush();
        auto *order = qobject_cast<QComboBox *>(window.controls()->control("rank_order"));
        QVERIFY(order);
        QVERIFY(!order->isEnabled());
        QVERIFY(order->toolTip().startsWith("Not used with one pipeline stage"));
        QVERIFY(document.setField(QStringLiteral("pp"), QStringLiteral("4")));
        document.flush();
        QVERIFY(order->isEnabled());
        QVERIFY(order->toolTip().startsWith("How devices are numbered"));
        choose(order, QStringLiteral("tp-cp-ep-pp-dp"));
        QTRY_VERIFY(document.scenario().rankOrder == core::RankOrder::pipelineInner);
    }

    // Each schedule the picker offers says what it does; the virtual stages are the
    // interleaved schedule's alone, and DualPipeV's two chunks are fixed (deepseek-ai/DualPipe,
    // dualpipev.py: two chunks a rank, the V), as DualPipe's are (dualpipe.py: a stage of each
    // direction a rank, asserting an even number of ranks and an even num_chunks of at least
    // twice the ranks). The all-to-all overlap stays offered under DualPipeV and DualPipe with
    // experts: it hides their pairs' all-to-all (DeepSeek-V3 report, §3.2.1).
    void scheduleChoiceExplainsItself_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QStringList>("itemSays"); // the item's tooltip
        QTest::addColumn<bool>("virtualStages");   // the spin box enabled
        QTest::addColumn<QString>("virtualSays");  // its tooltip starts so; empty: its help
        QTest::addRow("gpipe") << "gpipe" << QStringList{"Huang et al. 2019"} << false
                               << "Used by the interleaved schedule only";
        QTest::addRow("1f1b") << "1f1b" << QStringList{"K − s"} << false
                              << "Used by the interleaved schedule only";
        QTest::addRow("interleaved")
            << "interleaved" << QStringList{"v model chunks a device"} << true << "";
        QTest::addRow("zb-h1") << "zb-h1" << QStringList{"Qi et al. 2023", "(W)"} << false
                               << "Used by the interleaved schedule only";
        QTest::addRow("dualpipev")
            << "dualpipev"
            << QStringList{"two model chunks a device in a V",
                           "both sit on stage 0",
                           "m ≥ 2K",
                           "overlapped pair",
                           "ep_overlap",
                           "DeepSeek-V3"}
            << false << "Not used by dualpipev: it always runs two chunks a device";
        QTest::addRow("dualpipe") << "dualpipe"
                                  << QStringList{"DeepSeek-V3 Technical Report §3.2.1",
                                                 "dualpipe.py",
                                                 "the other half at stage K − 1",
                                                 "two copies of the parameters",
                                                 "an even K and an even m ≥ 2K",
                                                 "ep_overlap",
                                                 "only custom"}
                                  << false
                                  << "Not used by dualpipe: it always runs two chunks a device";
    }
    void scheduleChoiceExplainsItself()
    {
        QFETCH(QString, schedule);
        QFETCH(QStringList, itemSays);
        QFETCH(bool, virtualStages);
        QFETCH(QString, virtualSays);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *picker = qobject_cast<QComboBox *>(window.controls()->control("schedule"));
        QVERIFY(picker);
        const int item = picker->findData(schedule);
        QVERIFY(item >= 0);
        const QString tip = picker->itemData(item, Qt::ToolTipRole).toString();
        for (const QString &says : itemSays)
            QVERIFY2(tip.contains(says), qPrintable(tip));
        choose(picker, schedule);
        QTRY_COMPARE(QString::fromLatin1(core::toString(document.scenario().schedule)), schedule);
        document.flush();
        QWidget *v = window.controls()->control("virtual_stages");
        QCOMPARE(v->isEnabled(), virtualStages);
        if (virtualSays.isEmpty())
            QVERIFY2(v->toolTip().startsWith("Model chunks v per device"),
                     qPrintable(v->toolTip()));
        else
            QVERIFY2(v->toolTip().startsWith(virtualSays), qPrintable(v->toolTip()));
    }

    // ep_overlap is offered with experts in training, under DualPipeV and DualPipe too (K = 4,
    // m = 16 by default: DualPipe's even K and even m ≥ 2K).
    void expertOverlapOfferedUnderDualPipes_data()
    {
        QTest::addColumn<QString>("schedule");
        QTest::addRow("dualpipev") << "dualpipev";
        QTest::addRow("dualpipe") << "dualpipe";
    }
    void expertOverlapOfferedUnderDualPipes()
    {
        QFETCH(QString, schedule);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QWidget *overlap = window.controls()->control("ep_overlap");
        QVERIFY(!overlap->isEnabled()); // the default Llama 3.1 70B is dense
        for (const auto &[key, value] :
             {std::pair{QStringLiteral("model"), QStringLiteral("qwen3-30b-a3b")},
              {QStringLiteral("ep"), QStringLiteral("8")},
              {QStringLiteral("schedule"), schedule}})
            QVERIFY(document.setField(key, value));
        document.flush();
        QVERIFY(overlap->isEnabled());
        QVERIFY2(!overlap->toolTip().startsWith("Not used"), qPrintable(overlap->toolTip()));
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        QVERIFY(!overlap->isEnabled());
    }

    void interNodeBandwidthHasAControl()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        auto *box =
            qobject_cast<QDoubleSpinBox *>(window.controls()->control("inter_node_gb_per_s"));
        QVERIFY(box);
        QCOMPARE(box->value(), box->minimum());
        QVERIFY2(box->text().contains("GB/s"), qPrintable(box->text())); // the H100's, named
        box->setValue(12.5);
        QCOMPARE(document.fieldText("inter_node_gb_per_s"), QStringLiteral("12.5"));
        box->setValue(box->minimum());
        QCOMPARE(document.fieldText("inter_node_gb_per_s"), QString());
    }

    // pipeline_layout is a line of Megatron-LM's layout syntax: empty is the even split, which
    // the placeholder names; a layout typed in places the stages' layers, one undo step; one
    // that does not fit the pipeline is refused naming the key.
    void pipelineLayoutLine()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        auto *line = qobject_cast<QLineEdit *>(window.controls()->control("pipeline_layout"));
        QVERIFY(line);
        QVERIFY(line->text().isEmpty());
        QVERIFY(!line->placeholderText().isEmpty());
        QVERIFY(line->toolTip().contains("--pipeline-model-parallel-layout"));
        document.setField(QStringLiteral("model"), QStringLiteral("llama-3.1-8b"));
        document.setField(QStringLiteral("pp"), QStringLiteral("4"));
        document.flush();
        const int steps = document.undoStack()->count();
        line->setText(QStringLiteral("Et*11|t*11|t*9|tL"));
        Q_EMIT line->editingFinished();
        QCOMPARE(document.fieldText("pipeline_layout"), QStringLiteral("Et*11|t*11|t*9|tL"));
        QCOMPARE(document.undoStack()->count(), steps + 1);
        document.flush();
        QVERIFY(document.report().ok());
        QCOMPARE(stageLayers(document.report()), (QList<int>{11, 11, 9, 1}));
        // Finishing the edit again without a change is no new step.
        Q_EMIT line->editingFinished();
        QCOMPARE(document.undoStack()->count(), steps + 1);
        // Two stages' worth for four stages: refused, naming the key.
        line->setText(QStringLiteral("Et*16|t*16L"));
        Q_EMIT line->editingFinished();
        document.flush();
        QVERIFY(document.report().error);
        QCOMPARE(QString::fromStdString(document.report().error->key),
                 QStringLiteral("pipeline_layout"));
        // Cleared, the even split again, shown as the placeholder.
        line->clear();
        Q_EMIT line->editingFinished();
        QCOMPARE(document.fieldText("pipeline_layout"), QStringLiteral("even"));
        document.flush();
        QVERIFY(document.report().ok());
        QCOMPARE(document.report().stages[3].layers, 8);
        document.undoStack()->undo();
        document.flush();
        QCOMPARE(line->text(), QStringLiteral("Et*16|t*16L"));
        // The completer offers the two words besides a layout; DeepSpeed's partition by
        // parameters places Llama 3.1 8B's layers 7, 9, 9, 7 (tst_pipeline_layout).
        QVERIFY(line->completer());
        line->completer()->setCompletionPrefix(QStringLiteral("par"));
        QCOMPARE(line->completer()->currentCompletion(), QStringLiteral("parameters"));
        document.setField(QStringLiteral("tp"), QStringLiteral("1"));
        line->setText(QStringLiteral("parameters"));
        Q_EMIT line->editingFinished();
        document.flush();
        QVERIFY2(document.report().ok(),
                 document.report().error ? document.report().error->message.c_str() : "");
        QCOMPARE(stageLayers(document.report()), (QList<int>{7, 9, 9, 7}));
    }

    // mfu is auto unless a number forces it (core/fields.cpp): its box shows "auto" at its
    // minimum, and auto and a forced value come back through undo, redo, saving and opening.
    void mfuBoxShowsAuto_data()
    {
        QTest::addColumn<double>("forced");
        QTest::addRow("0.5") << 0.5;
        QTest::addRow("0.001, the least allowed") << 0.001;
        QTest::addRow("1") << 1.0;
    }
    void mfuBoxShowsAuto()
    {
        QFETCH(double, forced);
        const auto box = [](MainWindow &window) {
            return qobject_cast<QDoubleSpinBox *>(window.controls()->control("mfu"));
        };
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(box(window));
        QCOMPARE(document.fieldText("mfu"), QStringLiteral("auto"));
        QCOMPARE(box(window)->value(), box(window)->minimum());
        QCOMPARE(box(window)->text(), QStringLiteral("auto"));
        QVERIFY(box(window)->toolTip().contains("auto"));

        box(window)->setValue(forced);
        QCOMPARE(document.fieldText("mfu"), QString::number(forced));
        document.flush();
        QVERIFY(document.lastValidReport().stepTime);
        // The controls follow the document once it has evaluated (ScenarioDocument::changed).
        document.undoStack()->undo();
        QCOMPARE(document.fieldText("mfu"), QStringLiteral("auto"));
        QTRY_COMPARE(box(window)->text(), QStringLiteral("auto"));
        document.undoStack()->redo();
        QTRY_COMPARE(box(window)->value(), forced);

        // Saved and opened again, in another window: the forced value, then auto.
        QTemporaryDir dir;
        const QString path = dir.filePath("mfu.parascope.json");
        QVERIFY(!document.save(path));
        {
            ScenarioDocument reopened(io::builtinPresets());
            MainWindow other(&reopened);
            QVERIFY(!reopened.open(path));
            QCOMPARE(reopened.scenario().mfu, std::optional<double>(forced));
            QTRY_COMPARE(box(other)->value(), forced);
        }
        box(window)->setValue(box(window)->minimum());
        QCOMPARE(document.fieldText("mfu"), QStringLiteral("auto"));
        QVERIFY(!document.save(path));
        ScenarioDocument reopened(io::builtinPresets());
        MainWindow other(&reopened);
        QVERIFY(reopened.setField("mfu", "0.7")); // not the default: opening must reset it
        reopened.flush();
        QCOMPARE(box(other)->value(), 0.7);
        QVERIFY(!reopened.open(path));
        QVERIFY(!reopened.scenario().mfu);
        QTRY_COMPARE(box(other)->text(), QStringLiteral("auto"));
    }

    // docs/DESIGN.md §5: drag the K slider with mouse events and check the stage-memory bar count.
    void draggingTheStageSlider()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *k = control<SliderSpin>(window, "pp");
        QVERIFY(k);
        // docs/worked-examples.md §4: K = 4, m = 16 → 3/19 = 15.8 %.
        window.charts()->setCurrentWidget(window.chart<BubbleChart>());
        QCOMPARE(window.chart<BubbleChart>()->marker(), QPointF(16, 300.0 / 19));
        QVERIFY(window.chart<BubbleChart>()->markerLabel().startsWith(
            QStringLiteral("15.8 % at m = 16")));
        window.charts()->setCurrentWidget(window.chart<StageMemoryChart>());
        dragSlider(k->slider(), 0.0);
        QTRY_COMPARE(document.scenario().pp, 1);
        QTRY_COMPARE(window.chart<StageMemoryChart>()->categories().size(), 1);
        // One stage has no bubble: (K−1)/(K−1+m) = 0.
        window.charts()->setCurrentWidget(window.chart<BubbleChart>());
        QCOMPARE(window.chart<BubbleChart>()->marker(), QPointF(16, 0));
        QCOMPARE(window.chart<BubbleChart>()->markerLabel(), QStringLiteral("0.0 % at m = 16"));
        window.charts()->setCurrentWidget(window.chart<StageMemoryChart>());
        // The whole drag is one undo step.
        QCOMPARE(document.undoStack()->count(), 1);
        dragSlider(k->slider(), 1.0);
        QTRY_COMPARE(document.scenario().pp, 128);
        // 128 stages exceed the 80 layers: refused, named, last valid chart kept.
        QTRY_VERIFY(window.note()->text().contains("pp:"));
        QVERIFY(window.note()->isVisible());
        QCOMPARE(window.chart<StageMemoryChart>()->categories().size(), 1);
        QCOMPARE(k->spinBox()->value(), 128); // nothing silently corrected
        // The charts and the status line say they show the last valid scenario, greyed.
        QVERIFY(window.showsLastValid());
        QVERIFY(window.charts()->graphicsEffect());
        QVERIFY(!window.verdict()->isEnabled());
        QVERIFY(window.verdict()->text().startsWith("Last valid scenario: "));
        QVERIFY(window.verdict()->text().contains("K=1 "));
        dragSlider(k->slider(), 0.0);
        QTRY_COMPARE(document.scenario().pp, 1);
        QTRY_VERIFY(!window.showsLastValid());
        QVERIFY(!window.charts()->graphicsEffect());
        QVERIFY(window.verdict()->isEnabled());
        QVERIFY(!window.verdict()->text().startsWith("Last valid"));
    }

    // Every menu item can be reached from the keyboard: no two items of one menu share a
    // mnemonic (View had Presentation mode and Play both on P: Alt+V, P reached neither).
    void menuMnemonicsAreUnique()
    {
        ExplorerWindow w;
        for (QAction *menuAction : w.window.menuBar()->actions()) {
            QMenu *menu = menuAction->menu();
            QVERIFY(menu);
            QHash<QChar, QString> seen;
            for (QAction *item : menu->actions()) {
                const QString text = item->text();
                const qsizetype amp = text.indexOf(QRegularExpression(QStringLiteral("&[^&]")));
                if (item->isSeparator() || amp < 0)
                    continue;
                const QChar key = text.at(amp + 1).toLower();
                QVERIFY2(!seen.contains(key),
                         qPrintable(QStringLiteral("%1: %2 and %3 share &%4")
                                        .arg(menuAction->text(), seen[key], text, QString(key))));
                seen.insert(key, text);
            }
        }
    }

    // One device is "1 device", not "1 devices".
    void statusLineCountsOneDevice()
    {
        ExplorerWindow w;
        setAndEvaluate(w.document, "mode", "inference");
        for (const char *key : {"tp", "pp", "dp"})
            setAndEvaluate(w.document, key, "1");
        QVERIFY2(w.window.verdict()->text().startsWith("1 device (T=1 × K=1 × D=1)"),
                 qPrintable(w.window.verdict()->text()));
        setAndEvaluate(w.document, "tp", "2");
        QVERIFY2(w.window.verdict()->text().startsWith("2 devices (T=2 × K=1 × D=1)"),
                 qPrintable(w.window.verdict()->text()));
    }

    // The status line is as tall as its text at its width: a verdict of one line takes one
    // line, not the four QLabel's hint gave it by wrapping the text at 80 characters. During
    // a drag it keeps the tallest height it has needed, so that a step whose numbers wrap onto
    // one more or one less line does not resize the charts above it and lay them out again
    // (bench_window: the Stage memory tab at K = 64, m = 1024 took 19 ms a step so, 7 without).
    void statusLineKeepsItsHeightDuringADrag()
    {
        ExplorerWindow w;
        w.window.resize(1280, 800);
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.charts()->setCurrentWidget(w.window.chart<StageMemoryChart>());
        for (const auto &[key, value] : {std::pair{"model", "llama-3.1-405b"},
                                         {"tp", "8"},
                                         {"dp", "1"},
                                         {"pp", "64"},
                                         {"microbatches", "1024"}})
            setAndEvaluate(w.document, key, value);
        QApplication::processEvents();
        QLabel *verdict = w.window.verdict();
        const int line = QFontMetrics(verdict->font()).lineSpacing();
        const int needed = verdict->heightForWidth(verdict->width());
        QVERIFY2(needed <= 2 * line, qPrintable(verdict->text())); // at 1,280 pixels
        // No more than the line it needs, beside the size grip.
        QTRY_VERIFY2(
            verdict->height() >= needed && verdict->height() < needed + line,
            qPrintable(QStringLiteral("%1 pixels for %2").arg(verdict->height()).arg(needed)));
        // A drag between two m whose verdicts differ: the charts keep their size.
        int resizes = 0;
        ResizeCounter counter(&resizes);
        w.window.charts()->installEventFilter(&counter);
        for (int step = 0; step < 10; ++step) {
            setAndEvaluate(w.document, "microbatches", step % 2 ? "1024" : "1088");
            QApplication::processEvents();
        }
        QCOMPARE(resizes, 0);
        // A narrower window wraps it anew: the held height follows the width. Where the two
        // verdicts wrap onto different numbers of lines, the taller holds through the drag.
        int narrow = 0;
        for (int width = 1200; width >= 600 && narrow == 0; width -= 8) {
            w.window.resize(width, 800);
            QApplication::processEvents();
            QTRY_VERIFY(verdict->height() >= verdict->heightForWidth(verdict->width()) &&
                        verdict->height() < verdict->heightForWidth(verdict->width()) + line);
            const int first = verdict->heightForWidth(verdict->width());
            setAndEvaluate(w.document, "microbatches", "1088");
            const int second = verdict->heightForWidth(verdict->width());
            setAndEvaluate(w.document, "microbatches", "1024");
            if (first != second)
                narrow = width;
        }
        qInfo("the verdicts wrap differently at a window %d pixels wide", narrow);
        QVERIFY(narrow > 0);
        // The first steps of a drag at a new width may grow it, once.
        for (const char *m : {"1088", "1024"}) {
            setAndEvaluate(w.document, "microbatches", m);
            QApplication::processEvents();
        }
        resizes = 0;
        const int held = verdict->height();
        for (int step = 0; step < 10; ++step) {
            setAndEvaluate(w.document, "microbatches", step % 2 ? "1024" : "1088");
            QApplication::processEvents();
            QCOMPARE(verdict->height(), held);
        }
        QCOMPARE(resizes, 0);
    }

    // Alt+letter reaches one thing only, on whichever tab: the menu bar's titles, the controls'
    // labels and the buttons of the page on screen share no mnemonic (Alt+V opened the View
    // menu, the Serving tab and Virtual stages in turn; Alt+E the Edit menu or the reserve).
    // The tabs take Ctrl+1 … Ctrl+8 instead.
    void mnemonicsAreUnique()
    {
        ExplorerWindow w;
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.plannerDock()->show();
        static const QRegularExpression mnemonic(QStringLiteral("&([^&])"));
        const auto keyOf = [](const QString &text) {
            const QRegularExpressionMatch m = mnemonic.match(text);
            return m.hasMatch() ? m.captured(1).at(0).toLower() : QChar();
        };
        // Every tab, and the sharding tab with each of its demonstrators (the expert one has
        // controls of its own).
        ShardingChart *sharding = w.window.chart<ShardingChart>();
        QList<std::pair<int, int>> states;
        for (int tab = 0; tab < w.window.charts()->count(); ++tab) {
            states.append({tab, 0});
            if (w.window.charts()->widget(tab) == sharding)
                states.append({tab, 1});
        }
        // Named, not bound: clang 14 does not let the lambda below capture a structured binding.
        for (const std::pair<int, int> &state : std::as_const(states)) {
            const int tab = state.first;
            const int mode = state.second;
            w.window.charts()->setCurrentIndex(tab);
            sharding->modeBar()->setCurrentIndex(mode);
            QCoreApplication::processEvents();
            QHash<QChar, QString> seen;
            const auto add = [&](const QString &text) {
                const QChar key = keyOf(text);
                if (key.isNull())
                    return true;
                if (seen.contains(key)) {
                    qWarning("%s: '%s' and '%s' share &%s",
                             qPrintable(w.window.charts()->tabText(tab)), qPrintable(seen[key]),
                             qPrintable(text), qPrintable(QString(key)));
                    return false;
                }
                seen.insert(key, text);
                return true;
            };
            bool unique = true;
            for (QAction *menu : w.window.menuBar()->actions())
                unique = add(menu->text()) && unique;
            for (QWidget *widget : w.window.findChildren<QWidget *>()) {
                if (!widget->isVisibleTo(&w.window))
                    continue;
                if (auto *label = qobject_cast<QLabel *>(widget); label && label->buddy())
                    unique = add(label->text()) && unique;
                else if (auto *button = qobject_cast<QAbstractButton *>(widget))
                    unique = add(button->text()) && unique;
                else if (auto *group = qobject_cast<QGroupBox *>(widget))
                    unique = add(group->title()) && unique;
                else if (auto *bar = qobject_cast<QTabBar *>(widget))
                    for (int i = 0; i < bar->count(); ++i)
                        unique = add(bar->tabText(i)) && unique;
            }
            QVERIFY2(unique, qPrintable(w.window.charts()->tabText(tab)));
            QVERIFY(seen.size() >= 20); // the controls keep theirs
        }
        // Ctrl+N shows the N-th tab.
        for (int tab = 0; tab < w.window.charts()->count(); ++tab) {
            QTest::keyClick(&w.window, static_cast<Qt::Key>(Qt::Key_1 + tab), Qt::ControlModifier);
            QCOMPARE(w.window.charts()->currentIndex(), tab);
            QVERIFY(w.window.charts()->tabToolTip(tab).endsWith(
                QStringLiteral("(Ctrl+%1)").arg(tab + 1)));
        }
    }

    // An example's explanation quotes the example's numbers: once the scenario departs from
    // it, it says so; back at the example's scenario (undo), it stands as loaded.
    void exampleExplanationMarkedWhenTheScenarioDeparts()
    {
        ExplorerWindow w;
        w.window.loadExample("bubble-k4-m16");
        QVERIFY(w.window.exampleText()->text().contains("15.8"));
        QVERIFY(!w.window.exampleIsStale());
        setAndEvaluate(w.document, "microbatches", "3");
        QVERIFY(w.window.exampleIsStale());
        QVERIFY(w.window.exampleText()->text().contains("the scenario has changed since"));
        w.document.undoStack()->undo();
        w.document.flush();
        QVERIFY(!w.window.exampleIsStale());
        QVERIFY(!w.window.exampleText()->text().contains("changed since"));
    }

    void undoAndRedoRestoreScenarioAndCharts()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const core::Scenario before = document.scenario();
        const QList<qreal> weightsBefore = window.chart<StageMemoryChart>()->values("Weights");

        auto *t = control<SliderSpin>(window, "tp");
        t->spinBox()->setFocus();
        t->spinBox()->selectAll();
        QTest::keyClicks(t->spinBox(), "4");
        QTest::keyClick(t->spinBox(), Qt::Key_Return);
        QTRY_COMPARE(document.scenario().tp, 4);
        QTRY_VERIFY(window.chart<StageMemoryChart>()->values("Weights") != weightsBefore);
        const core::Scenario after = document.scenario();
        const QList<qreal> weightsAfter = window.chart<StageMemoryChart>()->values("Weights");

        QTest::keySequence(&window, QKeySequence::Undo);
        QTRY_VERIFY(document.scenario() == before);
        QTRY_COMPARE(window.chart<StageMemoryChart>()->values("Weights"), weightsBefore);
        QCOMPARE(t->spinBox()->value(), 8);
        QTest::keySequence(&window, QKeySequence::Redo);
        QTRY_VERIFY(document.scenario() == after);
        QTRY_COMPARE(window.chart<StageMemoryChart>()->values("Weights"), weightsAfter);
    }

    // The size table of docs/worked-examples.md §1, live: the model-size chart follows the model
    // and T.
    void modelSizeChartFollowsTheModel()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.charts()->setCurrentWidget(window.chart<ModelSizeChart>());
        choose(control<QComboBox>(window, "model"), "llama-3.1-405b");
        QTRY_COMPARE(document.scenario().model, std::string("llama-3.1-405b"));
        QTRY_VERIFY(window.chart<ModelSizeChart>()->values().constFirst() > 1000);
        QCOMPARE(window.chart<ModelSizeChart>()->categories().size(), 9);
        const QList<qreal> gb = window.chart<ModelSizeChart>()->values();
        const QStringList names = window.chart<ModelSizeChart>()->categories();
        // docs/DESIGN.md §3.1: 405,853,388,800 parameters × 2 bytes at FP16, × 0.5 at INT4.
        QCOMPARE(gb[names.indexOf("fp16")], 811.7067776);
        QCOMPARE(gb[names.indexOf("int4")], 202.9266944);
        // NVFP4: 16 four-bit values and one FP8 scale in 9 bytes, 4.5 bits a value (NVIDIA,
        // "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference").
        QCOMPARE(gb[names.indexOf("nvfp4")], 228.2925312);
        // One 80 GiB device, and T = 8 of them.
        QCOMPARE(window.chart<ModelSizeChart>()->deviceCapacityGb(), 80.0 * core::kGiB / core::kGB);
        QCOMPARE(window.chart<ModelSizeChart>()->groupCapacityGb(),
                 8 * 80.0 * core::kGiB / core::kGB);
        // docs/DESIGN.md §5: changing the precision moves the highlighted bar.
        QCOMPARE(window.chart<ModelSizeChart>()->highlighted(), QStringLiteral("bf16"));
        choose(control<QComboBox>(window, "precision"), "fp8");
        QTRY_COMPARE(window.chart<ModelSizeChart>()->highlighted(), QStringLiteral("fp8"));
        // The highlighted bar's formula takes the format's bytes, one a value in FP8 and 9/16
        // in NVFP4, though training holds BF16 weights for both here.
        QTRY_VERIFY(window.formulas()->toPlainText().contains(
            QStringLiteral("405,853,388,800 × 1 B = 405.9 GB")));
        choose(control<QComboBox>(window, "device"), "b200");
        choose(control<QComboBox>(window, "precision"), "nvfp4");
        QTRY_COMPARE(window.chart<ModelSizeChart>()->highlighted(), QStringLiteral("nvfp4"));
        QTRY_VERIFY(window.formulas()->toPlainText().contains(
            QStringLiteral("405,853,388,800 × 0.5625 B = 228.3 GB")));
    }

    // docs/worked-examples.md §4 on the bubble chart: the curves are the closed forms, the marker
    // follows m.
    void bubbleChartFollowsMicrobatches()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.charts()->setCurrentWidget(window.chart<BubbleChart>());
        const QList<QPointF> curve = window.chart<BubbleChart>()->curve(core::Schedule::oneFOneB);
        auto at = [&curve](int m) {
            for (const QPointF &p : curve)
                if (p.x() == m)
                    return p.y();
            return -1.0;
        };
        QCOMPARE(at(16), 300.0 / 19); // 15.8 %
        QCOMPARE(at(4), 300.0 / 7);   // 42.9 %
        QCOMPARE(at(1024), 300.0 / 1027);
        auto *m = control<SliderSpin>(window, "microbatches");
        m->spinBox()->setFocus();
        m->spinBox()->selectAll();
        QTest::keyClicks(m->spinBox(), "4");
        QTest::keyClick(m->spinBox(), Qt::Key_Return);
        QTRY_COMPARE(window.chart<BubbleChart>()->marker(), QPointF(4, 300.0 / 7));
        QVERIFY(window.chart<BubbleChart>()->markerLabel().startsWith(
            QStringLiteral("42.9 % at m = 4")));
        // The label sits beside the marker, clear of the curve it is on; GPipe's curve, the
        // same as 1F1B's, has one legend entry that says so.
        BubbleChart *chart = window.chart<BubbleChart>();
        QTRY_VERIFY(!chart->markerLabelRect().isEmpty());
        for (const QPointF &p : chart->curve(core::Schedule::oneFOneB))
            QVERIFY2(!chart->markerLabelRect().contains(chart->positionOf(p)),
                     qPrintable(QStringLiteral("m = %1").arg(p.x())));
        const QStringList legend = chart->legendNames();
        QVERIFY(legend.contains("1f1b = gpipe"));
        QVERIFY(!legend.contains("gpipe"));
        // DualPipeV from m = 2K = 8 on: with a chunk's F = B = W, (K−1)(F&B + B − 3W) = 3F of
        // a stage idle beside m × 3F busy, ZB-H1's 3F/(3F·m + 3F) (deepseek-ai/DualPipe,
        // README; Qi et al. 2023, §3.1), and the legend says they are one line.
        const QList<QPointF> dualPipeV = chart->curve(core::Schedule::dualPipeV);
        QVERIFY(!dualPipeV.isEmpty());
        QCOMPARE(dualPipeV.front(), QPointF(8, 300.0 / 27));
        for (const QPointF &p : chart->curve(core::Schedule::zbH1))
            if (p.x() >= 8)
                QVERIFY2(dualPipeV.contains(p), qPrintable(QStringLiteral("m = %1").arg(p.x())));
        QVERIFY2(legend.contains("dualpipev = zb-h1 at W = F"), qPrintable(legend.join(u'|')));
        // DualPipe at even m from 2K = 8 on: a chunk's F = B = W, (K/2 − 1)(F&B + B − 3W) =
        // 1 × (3F + 2F − 3F) = 2F of a device idle beside m × 3F busy, 2/26 at m = 8
        // (deepseek-ai/DualPipe, README, PP = K devices).
        const QList<QPointF> dualPipe = chart->curve(core::Schedule::dualPipe);
        QVERIFY(!dualPipe.isEmpty());
        QCOMPARE(dualPipe.front(), QPointF(8, 200.0 / 26));
        for (const QPointF &p : dualPipe) {
            QCOMPARE(int(p.x()) % 2, 0);
            QCOMPARE(p.y(), 200.0 / (3 * p.x() + 2));
        }
        QVERIFY2(legend.contains("dualpipe"), qPrintable(legend.join(u'|')));
        // The formula panel writes the formula with these numbers.
        QTRY_VERIFY(window.formulas()->toPlainText().contains("(K−1)/(K−1+m) = 3/7 = 42.9 %"));
    }

    // DualPipe's curve for each K: with a chunk's F = B = W, (K/2 − 1)(F&B + B − 3W) =
    // (K − 2)F of a device idle beside 3mF busy (deepseek-ai/DualPipe, README, PP = K devices),
    // at even m from 2K, as dualpipe.py asserts; an odd K has no order, and the legend says so.
    void bubbleChartDrawsDualPipeAtEvenK_data()
    {
        QTest::addColumn<int>("stages");
        QTest::addColumn<QPointF>("first"); // null: no curve
        QTest::addColumn<QString>("name");
        QTest::addRow("K=2: no bubble") << 2 << QPointF(4, 0) << "dualpipe";
        QTest::addRow("K=4") << 4 << QPointF(8, 200.0 / 26) << "dualpipe";
        QTest::addRow("K=8") << 8 << QPointF(16, 600.0 / 54) << "dualpipe";
        QTest::addRow("K=5: odd") << 5 << QPointF() << "dualpipe: needs an even K";
    }
    void bubbleChartDrawsDualPipeAtEvenK()
    {
        QFETCH(int, stages);
        QFETCH(QPointF, first);
        QFETCH(QString, name);
        core::Scenario s;
        s.pp = stages;
        BubbleChart chart;
        chart.setScenario(s, core::Report{});
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QVERIFY2(chart.legendNames().contains(name), qPrintable(chart.legendNames().join(u'|')));
        const QList<QPointF> curve = chart.curve(core::Schedule::dualPipe);
        if (first.isNull()) {
            QVERIFY(curve.isEmpty());
            return;
        }
        QCOMPARE(curve.front(), first);
        for (const QPointF &p : curve) {
            QCOMPARE(int(p.x()) % 2, 0);
            QCOMPARE(p.y(), 100.0 * (stages - 2) / (3 * p.x() + stages - 2));
        }
    }

    // A drag changes m at every step: the chart follows each one, the formulas at most a few
    // times a second, and always end on the last value.
    void formulasCatchUpAfterABurst()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.charts()->setCurrentWidget(window.chart<BubbleChart>());
        for (const char *m : {"5", "6", "7", "8", "9", "4"}) {
            setAndEvaluate(document, "microbatches", m);
            QCOMPARE(window.chart<BubbleChart>()->marker().x(), QByteArray(m).toDouble());
        }
        QTRY_VERIFY(window.formulas()->toPlainText().contains("(K−1)/(K−1+m) = 3/7 = 42.9 %"));
    }

    // docs/step_time.md: the timeline's and the step-time page's formulas write the busiest
    // stage's sum, one term per part of core::kTimeParts with the report's seconds.
    void formulasShowTheStepTime_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addRow("timeline") << "timeline";
        QTest::addRow("step time") << "step-time";
    }
    void formulasShowTheStepTime()
    {
        QFETCH(QString, chart);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart(chart);
        const core::Report &r = document.lastValidReport();
        QVERIFY(r.stepTime);
        const auto sec = [](double t) { return QStringLiteral("%1 s").arg(t, 0, 'g', 4); };
        const QString total = QStringLiteral("= %1").arg(sec(r.stepTime->stepTimeS));
        QTRY_VERIFY(window.formulas()->toPlainText().contains(total));
        const QString text = window.formulas()->toPlainText();
        QVERIFY(
            text.contains(QStringLiteral("Step time (stage %1)").arg(r.stepTime->busiestStage)));
        int terms = 0;
        for (const core::TimePartInfo &part : core::kTimeParts) {
            const double seconds = r.stepTime->breakdown[part.part];
            const QString term = QString::fromUtf8(part.label) + QLatin1Char(' ') + sec(seconds);
            QCOMPARE(text.contains(term), seconds > 0);
            terms += seconds > 0;
        }
        QVERIFY(terms >= 5); // matmuls, memory-bound, attention, TP comm., bubble at least
        // The default: the sync hides behind the passes it overlaps, and the part left is named;
        // K = 4 stages also hide their last reduction in the pipeline's drain.
        QVERIFY(text.contains("dp_overlap = auto"));
        QVERIFY(text.contains("the pipeline's drain"));
        QVERIFY(text.contains(QStringLiteral("%1 of %2 shows in the step")
                                  .arg(sec(r.stepTime->breakdown[core::TimePart::dpSync]),
                                       sec(r.stepTime->dpCommTotalS))));
        // The default times every operation (mfu auto), not one fixed efficiency.
        QVERIFY(text.contains("timed from its FLOPs and bytes"));
        // The status line gives the same total, not the pipeline's makespan alone.
        QVERIFY(window.verdict()->text().contains(
            QStringLiteral("step %1 s").arg(r.stepTime->stepTimeS, 0, 'g', 3)));
        // The custom profile hides a later stage's gather; Megatron-LM's one bucket is waited
        // for by that stage's first forward (docs/step_time.md, "A later stage's one bucket").
        QVERIFY(!text.contains("as one bucket"));
        QVERIFY(document.setField(QStringLiteral("framework"), QStringLiteral("megatron")));
        document.flush();
        QTRY_VERIFY(window.formulas()->toPlainText().contains(
            "each stage after the first gathers its parameters as one bucket"));
        {
            // The shown stage's wait: its data-parallel sync past stage 0's.
            const core::StepTimeReport &st = *document.lastValidReport().stepTime;
            QVERIFY(st.busiestStage > 0);
            const double waited = st.stages[std::size_t(st.busiestStage)][core::TimePart::dpSync] -
                                  st.stages.front()[core::TimePart::dpSync];
            QVERIFY(waited > 0);
            const QString wait =
                QStringLiteral("%1 on stage %2").arg(sec(waited)).arg(st.busiestStage);
            QVERIFY2(window.formulas()->toPlainText().contains(wait),
                     qPrintable(wait + " / " + window.formulas()->toPlainText()));
        }
        QVERIFY(document.setField(QStringLiteral("framework"), QStringLiteral("custom")));
        // DeepSpeed's ZeRO-1 and 2 gather in the optimizer step: the formula says so.
        QVERIFY(document.setField(QStringLiteral("overlap_param_gather"), QStringLiteral("false")));
        document.flush();
        QTRY_VERIFY(window.formulas()->toPlainText().contains(
            "the parameter gather waits in the optimizer step"));
        // DeepSpeed with ZeRO off all-reduces after the backward: auto hides nothing, and the
        // formula says so rather than describing an overlap that does not happen.
        QVERIFY(document.setField(QStringLiteral("framework"), QStringLiteral("deepspeed")));
        QVERIFY(document.setField(QStringLiteral("pp"), QStringLiteral("1")));
        QVERIFY(document.setField(QStringLiteral("zero"), QStringLiteral("0")));
        document.flush();
        QTRY_VERIFY(window.formulas()->toPlainText().contains(
            "dp_overlap = auto hides nothing here: DeepSpeed runs the sync after the backward at "
            "ZeRO 0"));
        // Per-op checkpointing reruns part of a projection: the table gives the share, wk's
        // 1/10 of the 70B's QKV at T = 8 (docs/activations.md).
        if (chart == QStringLiteral("step-time")) {
            QVERIFY(document.setField(QStringLiteral("framework"), QStringLiteral("custom")));
            QVERIFY(document.setField(QStringLiteral("recompute"), QStringLiteral("op")));
            document.flush();
            QTRY_VERIFY(
                window.formulas()->toPlainText().contains(QStringLiteral("QKV projection ↻ 10 %")));
            QVERIFY(
                window.formulas()->toPlainText().contains(QStringLiteral("output projection ↻")));
        }
        // In inference there is no sync to hide, and MFU counts the forward alone: 2·N·tokens.
        QVERIFY(document.setField(QStringLiteral("mode"), QStringLiteral("inference")));
        document.flush();
        QTRY_VERIFY(window.formulas()->toPlainText().contains("MFU = 2·N·tokens"));
        QVERIFY(!window.formulas()->toPlainText().contains("dp_overlap"));
        QVERIFY(!window.formulas()->toPlainText().contains("6·N·tokens"));
    }

    // docs/DESIGN.md §3.4 on the sharding chart: the default's 70B layer (h = 8192, f = 28672,
    // 4096 tokens, T = 8, BF16). Ring all-reduce sends 2(T−1)/T of its payload.
    void shardingChartShowsTheCollectives()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.charts()->setCurrentWidget(window.chart<ShardingChart>());
        QTRY_COMPARE(window.chart<ShardingChart>()->categories().size(), 4);
        const double tokensH = 4096.0 * 8192 * 2 * 2 * 7 / 8 / 1e6;  // 117.440512 MB
        const double tokensF = 4096.0 * 28672 * 2 * 2 * 7 / 8 / 1e6; // 411.041792 MB
        const QStringList names = window.chart<ShardingChart>()->categories();
        const QList<qreal> allReduce = window.chart<ShardingChart>()->values("all-reduce");
        QCOMPARE(allReduce[names.indexOf("columns → rows")], tokensH);
        QCOMPARE(allReduce[names.indexOf("rows → rows")], tokensH + tokensF);
        const QString summary = window.chart<ShardingChart>()->summary();
        QVERIFY(summary.contains("columns → rows (best)"));
        QVERIFY(summary.contains("2 all-reduce"));
        QVERIFY(summary.contains("Every split really executed on 8 simulated devices"));
        QVERIFY(window.formulas()->toPlainText().contains("2(T−1)/T"));
    }

    // docs/DESIGN.md §5: the GB/GiB toggle changes a label's unit and value consistently.
    void unitsToggle()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRegularExpression free(QStringLiteral("at least ([0-9.]+) (GB|GiB) free"));
        auto headroom = [&] {
            const auto match = free.match(window.verdict()->text());
            return std::pair{match.captured(1).toDouble(), match.captured(2)};
        };
        const auto [gb, gbUnit] = headroom();
        QCOMPARE(gbUnit, QStringLiteral("GB"));
        QCOMPARE(window.chart<StageMemoryChart>()->axisTitle(),
                 QStringLiteral("Memory per device (GB)"));
        QCOMPARE(window.chart<StageMemoryChart>()->capacityName(),
                 QStringLiteral("Capacity 85.9 GB"));

        window.gibAction()->trigger();
        const auto [gib, gibUnit] = headroom();
        QCOMPARE(gibUnit, QStringLiteral("GiB"));
        // The same bytes: GB × 10⁹ = GiB × 2³⁰, up to the one-decimal rounding.
        QVERIFY(std::abs(gib * core::kGiB - gb * core::kGB) < 0.06 * core::kGiB);
        QCOMPARE(window.chart<StageMemoryChart>()->axisTitle(),
                 QStringLiteral("Memory per device (GiB)"));
        QCOMPARE(window.chart<StageMemoryChart>()->capacityName(),
                 QStringLiteral("Capacity 80.0 GiB"));
        QCOMPARE(window.chart<StageMemoryChart>()->capacityGb(), 80.0);        // 80 GiB of HBM
        QCOMPARE(window.chart<StageMemoryChart>()->values("Reserve")[0], 2.0); // reserve_gib = 2
        window.charts()->setCurrentWidget(window.chart<ModelSizeChart>());
        QCOMPARE(window.chart<ModelSizeChart>()->deviceCapacityGb(), 80.0);
        window.gibAction()->trigger(); // back to GB for the other tests
        QCOMPARE(headroom().second, QStringLiteral("GB"));
    }

    // Presentation mode at its largest text fits a 1,280 × 800 projector: no page of the
    // charts, control panel or bar asks for more width than the screen has (a page wider than
    // the rest widens the whole window, whichever tab shows).
    void largestTextFitsA1280Screen()
    {
        ExplorerWindow w;
        w.window.resize(1280, 800);
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.presentationAction()->trigger();
        QVERIFY(largestText(w.window));
        QApplication::processEvents();
        QCOMPARE(w.window.textScale(), 1.5 * 1.2 * 1.2 * 1.2);
        // Each page shown once: a page lays itself out at the new text size when it shows.
        for (int i = 0; i < w.window.charts()->count(); ++i) {
            w.window.charts()->setCurrentIndex(i);
            QApplication::processEvents();
            QVERIFY2(w.window.minimumSizeHint().width() <= 1280,
                     qPrintable(QStringLiteral("%1 pixels with %2 shown")
                                    .arg(w.window.minimumSizeHint().width())
                                    .arg(w.window.charts()->tabText(i))));
        }
        w.window.plannerAction()->trigger(); // the Planner below the charts
        QApplication::processEvents();
        QVERIFY2(w.window.minimumSizeHint().width() <= 1280,
                 qPrintable(QString::number(w.window.minimumSizeHint().width())));
    }

    // The Bubble chart at the largest text in a 1,280 × 800 window: its m axis labels every
    // power of a power of 2 that fits ("1, 4, 16, …" rather than each label cut to "…"), the
    // marker's label keeps the closed form alone where the whole does not fit; at normal size
    // every power of 2 and the whole label again.
    void bubbleChartKeepsItsLabelsAtLargeText()
    {
        ExplorerWindow w;
        w.window.resize(1280, 800);
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        auto *bubble = w.window.chart<BubbleChart>();
        w.window.charts()->setCurrentWidget(bubble);
        QApplication::processEvents();
        QChart *chart = bubble->findChild<QChartView *>()->chart();
        auto *axis = qobject_cast<QLogValueAxis *>(chart->axes(Qt::Horizontal).constFirst());
        QVERIFY(axis);
        QTRY_COMPARE(axis->base(), 2.0);
        QVERIFY(axis->isTitleVisible());
        QVERIFY2(bubble->markerLabel().contains("(simulated"), qPrintable(bubble->markerLabel()));
        QVERIFY(largestText(w.window));
        w.window.resize(1280, 800);
        QTRY_VERIFY(axis->base() > 2.0);
        // Each label with a label's width of room beside it.
        const double label =
            QFontMetricsF(axis->labelsFont()).horizontalAdvance(QString::number(axis->max()));
        const double labels =
            std::floor(std::log(axis->max() / axis->min()) / std::log(axis->base()) + 1e-9) + 1;
        QVERIFY2(labels * 2 * label <= chart->plotArea().width(),
                 qPrintable(QStringLiteral("%1 labels of %2 pixels on %3")
                                .arg(labels)
                                .arg(label)
                                .arg(chart->plotArea().width())));
        // On a plot too narrow for the whole marker label, the closed form alone.
        w.window.resize(900, 700);
        QTRY_COMPARE(bubble->markerLabel(), QStringLiteral("15.8 % at m = 16"));
        w.window.resize(1280, 800);
        for (int step = 0; step < 3; ++step)
            QTest::keyClick(&w.window, Qt::Key_Minus, Qt::ControlModifier);
        QTRY_COMPARE(axis->base(), 2.0);
        QTRY_VERIFY(axis->isTitleVisible());
        QTRY_VERIFY(bubble->markerLabel().contains("(simulated"));
    }

    // A refused scenario's note names the field at any text size: where the sentence does not
    // fit the strip, the error alone (the tooltip has the sentence); the strip at a new width
    // or text size elides it anew.
    void refusalNamesTheFieldAtLargeText()
    {
        ExplorerWindow w;
        w.window.resize(900, 700);
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTest::keyClick(&w.window, Qt::Key_F11); // presentation mode: half as large again
        for (int step = 0; step < 3; ++step)
            QTest::keyClick(&w.window, Qt::Key_Equal, Qt::ControlModifier);
        QApplication::processEvents();
        // 80 layers and the two ends over 80 stages leave an end stage no layer.
        setAndEvaluate(w.document, "pp", "80");
        setAndEvaluate(w.document, "ends_in_pipeline_split", "true");
        QTRY_VERIFY2(w.window.note()->text().contains("ends_in_pipeline_split:"),
                     qPrintable(w.window.note()->text()));
        QVERIFY(w.window.note()->toolTip().contains("Cannot evaluate"));
        QTest::keyClick(&w.window, Qt::Key_F11);
        QTest::keyClick(&w.window, Qt::Key_0, Qt::ControlModifier); // normal text size
        w.window.resize(1600, 1000);
        QTRY_VERIFY2(w.window.note()->text().contains(
                         "Cannot evaluate — ends_in_pipeline_split: 80 layers and the two ends"),
                     qPrintable(w.window.note()->text()));
    }

    // docs/DESIGN.md §5: presentation mode and Ctrl+= / Ctrl+- scale the charts' text and lines.
    void presentationMode()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *view = window.chart<StageMemoryChart>()->findChild<QChartView *>();
        QVERIFY(view);
        const double title = view->chart()->titleFont().pointSizeF();
        const double axis = view->chart()->axes().constFirst()->labelsFont().pointSizeF();
        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(window.presentationAction()->isChecked());
        QCOMPARE(window.textScale(), 1.5);
        QCOMPARE(view->chart()->titleFont().pointSizeF(), 1.5 * title);
        QCOMPARE(view->chart()->axes().constFirst()->labelsFont().pointSizeF(), 1.5 * axis);
        QTest::keyClick(&window, Qt::Key_Equal, Qt::ControlModifier);
        QCOMPARE(window.textScale(), 1.5 * 1.2);
        QCOMPARE(view->chart()->titleFont().pointSizeF(), 1.8 * title);
        QTest::keyClick(&window, Qt::Key_Minus, Qt::ControlModifier);
        QTest::keyClick(&window, Qt::Key_F11);
        QCOMPARE(window.textScale(), 1.0);
        QCOMPARE(view->chart()->titleFont().pointSizeF(), title);
        QVERIFY(view->chart()->titleFont().bold());
    }

    // Every page's title in one look: the Qt Charts pages' titles were in the regular weight
    // of their axis labels, where Memory over the step and Step time paint theirs bold.
    void everyChartTitleIsBold()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        int titled = 0;
        for (const QString &id : chartPageIds()) {
            window.showChart(id);
            for (QChartView *view : window.findChildren<QChartView *>())
                if (view->isVisible() && !view->chart()->title().isEmpty()) {
                    ++titled;
                    QVERIFY2(view->chart()->titleFont().bold(),
                             qPrintable(id + QStringLiteral(": ") + view->chart()->title()));
                }
        }
        QVERIFY(titled >= 4); // Stage memory, Bubble, Sharding, Model weights at least
    }

    // A chart squeezed short (presentation mode with a dock below it) keeps its memory axis
    // readable: no more tick intervals than 1.6 label lines each, and a title short enough
    // not to be cut to "Memory per …", restored in full when there is room again.
    void shortChartsKeepTheirAxesReadable_data()
    {
        QTest::addColumn<int>("height");
        QTest::addColumn<bool>("fullTitle");
        QTest::addRow("tall: the whole title, ticks every 10 GB") << 700 << true;
        QTest::addRow("short") << 260 << false;
        QTest::addRow("shorter") << 190 << false;
    }
    void shortChartsKeepTheirAxesReadable()
    {
        QFETCH(int, height);
        QFETCH(bool, fullTitle);
        ScenarioDocument document(io::builtinPresets());
        StageMemoryChart chart;
        chart.setReport(document.report());
        chart_style::setScale(chart.findChild<QChartView *>()->chart(), 1.5);
        chart.resize(900, height);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QChart *c = chart.findChild<QChartView *>()->chart();
        QValueAxis *axis = nullptr;
        for (QAbstractAxis *a : c->axes(Qt::Vertical))
            if (auto *values = qobject_cast<QValueAxis *>(a))
                axis = values;
        QVERIFY(axis);
        const QString full = QStringLiteral("Memory per device (GB)");
        QTRY_VERIFY(c->plotArea().height() > 0);
        const double plot = c->plotArea().height();
        const double line = QFontMetricsF(axis->labelsFont()).height();
        const double intervals = (axis->max() - axis->min()) / axis->tickInterval();
        QVERIFY2(intervals <= std::max(1.0, std::floor(plot / (1.6 * line))) + 1e-9,
                 qPrintable(QStringLiteral("%1 intervals in %2 px").arg(intervals).arg(plot)));
        QVERIFY(QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText()) < plot);
        QVERIFY2(axis->titleText().endsWith(QLatin1String("GB")) ||
                     axis->titleText().endsWith(QLatin1String("GB)")),
                 qPrintable(axis->titleText()));
        QCOMPARE(axis->titleText() == full, fullTitle);
        if (fullTitle)
            QCOMPARE(axis->tickInterval(), 10.0); // docs/DESIGN.md §4's default peaks under 100 GB
        // Room again: the whole title and the finest ticks come back.
        chart.resize(900, 700);
        QTRY_COMPARE(axis->titleText(), full);
        QTRY_COMPARE(axis->tickInterval(), 10.0);
    }

    // docs/DESIGN.md §5: a dark system palette gives dark charts (decided from the window's
    // lightness).
    void followsADarkPalette()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
        dark.setColor(QPalette::WindowText, QColor(0xEE, 0xEE, 0xEE));
        window.setPalette(dark);
        auto *view = window.chart<StageMemoryChart>()->findChild<QChartView *>();
        QVERIFY(view->chart()->backgroundBrush().color().lightness() < 64);
        QVERIFY(view->chart()->titleBrush().color().lightness() > 192);
        window.setPalette(QApplication::style()->standardPalette());
        QVERIFY(view->chart()->backgroundBrush().color().lightness() > 192);
    }

    void formulasAndSources()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::keySequence(&window, QKeySequence::HelpContents);
        SourcesDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<SourcesDialog *>()) != nullptr);
        const QString text = dialog->text();
        QVERIFY(text.contains(
            "(K−1)/(K−1+m) = 3/19 = 15.8 %")); // docs/worked-examples.md §4, live numbers
        for (const char *source :
             {"Korthikanti et al. 2022", "Narayanan et al. 2021", "Qi et al. 2023",
              "Rajbhandari et al. 2020", "pytorch/pytorch#159251", "Patarasuk & Yuan 2009",
              "Shah et al. 2024", "SelectiveAC", "“DeepSeek-V3 Technical Report”, §3.2.1",
              "deepseek-ai/DualPipe, dualpipe.py", "dualpipev.py", "Hu et al. 2021",
              "(lora_dropout)", "Dao-AILab/quack#48"})
            QVERIFY2(text.contains(source), source);
        dialog->close();
    }

    // docs/DESIGN.md §4: File → Compare with… draws plan B beside plan A.
    void compareTwoPlans()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString b = QStringLiteral(PARASCOPE_SOURCE_DIR
                                         "/resources/examples/seed-bubble-k4-m4.parascope.json");
        QVERIFY(!window.compareWith(b));
        QVERIFY(window.isComparing());
        // Plan B's stage totals, as evaluated, over plan A's bars.
        core::Scenario scenarioB;
        QVERIFY(!io::readScenarioFile(b, scenarioB));
        const core::Report reportB = core::evaluate(scenarioB, document.presets());
        const QList<qreal> totals = window.chart<StageMemoryChart>()->comparison();
        QCOMPARE(totals.size(), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(totals[i], double(reportB.stages[std::size_t(i)].totalBytes) / 1e9);
        // docs/worked-examples.md §4 both ways: A at m = 16 (15.8 %), B at m = 4 (42.9 %).
        window.charts()->setCurrentWidget(window.chart<BubbleChart>());
        QCOMPARE(window.chart<BubbleChart>()->marker(), QPointF(16, 300.0 / 19));
        QCOMPARE(window.chart<BubbleChart>()->compareMarker(), QPointF(4, 300.0 / 7));
        QVERIFY(window.verdict()->text().contains(
            QStringLiteral("bubble %1 %").arg(100 * reportB.bubbleFraction, 0, 'f', 1)));
        // Editing plan A keeps plan B.
        document.setField("pp", "2");
        QTRY_COMPARE(window.chart<BubbleChart>()->marker(), QPointF(16, 100.0 / 17));
        QCOMPARE(window.chart<BubbleChart>()->compareMarker(), QPointF(4, 300.0 / 7));
        window.stopComparing();
        QCOMPARE(window.chart<BubbleChart>()->compareMarker(), QPointF());
        window.charts()->setCurrentWidget(window.chart<StageMemoryChart>());
        QVERIFY(window.chart<StageMemoryChart>()->comparison().isEmpty());
        // A damaged file is refused with its reason.
        const auto reason = window.compareWith(QStringLiteral(
            PARASCOPE_SOURCE_DIR "/tests/data/damaged/newer-version.parascope.json"));
        QVERIFY(reason);
        QVERIFY(reason->contains("version"));
        QVERIFY(!window.isComparing());
    }

    // Issue #18 §5: plan B's stacked bars beside plan A's, per stage, with both capacity
    // lines and both plans named in the legend; Stop comparing draws plan A alone again.
    void compareSideBySide()
    {
        ScenarioDocument document(io::builtinPresets());
        QCOMPARE(document.scenario().pp, 4);
        core::Scenario scenarioB = document.scenario();
        scenarioB.pp = 2;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("k2.parascope.json"));
        QVERIFY(!io::writeScenarioFile(path, scenarioB));
        const core::Report reportA = core::evaluate(document.scenario(), document.presets());
        const core::Report reportB = core::evaluate(scenarioB, document.presets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.charts()->setCurrentWidget(window.chart<StageMemoryChart>());
        QVERIFY(!window.compareWith(path));
        auto *chart = window.chart<StageMemoryChart>();
        const auto gb = [](std::int64_t bytes) { return static_cast<double>(bytes) / 1e9; };
        // Every term of plan B as evaluating B's scenario gives it, beside plan A's.
        for (const core::MemoryTerm &term : core::kMemoryTerms) {
            const QString label = QString::fromUtf8(term.label);
            const QList<qreal> a = chart->values(label);
            const QList<qreal> b = chart->comparisonValues(label);
            QCOMPARE(a.size(), 4);
            QCOMPARE(b.size(), 2);
            for (int i = 0; i < 4; ++i)
                QCOMPARE(a[i], gb(reportA.stages[std::size_t(i)].*term.bytes));
            for (int i = 0; i < 2; ++i)
                QCOMPARE(b[i], gb(reportB.stages[std::size_t(i)].*term.bytes));
        }
        // Stages 2 and 3 are plan A's only: still shown, plan B's slots empty.
        QCOMPARE(chart->categories(),
                 QStringList({"A 0", "B 0", "A 1", "B 1", "A 2", "B 2", "A 3", "B 3"}));
        QCOMPARE(chart->lighterSlots(QStringLiteral("Weights")), QList<int>({1, 3, 5, 7}));
        // A longer sequence changes plan A's activations on every stage, which refills the
        // bars rather than replacing them one by one: plan B's stay beside them, lighter.
        QVERIFY(document.setField(QStringLiteral("seq_len"), QStringLiteral("8192")));
        document.flush();
        const core::Report longer = core::evaluate(document.scenario(), document.presets());
        for (const core::MemoryTerm &term : core::kMemoryTerms) {
            const QString label = QString::fromUtf8(term.label);
            const QList<qreal> a = chart->values(label);
            const QList<qreal> b = chart->comparisonValues(label);
            QCOMPARE(a.size(), 4);
            for (int i = 0; i < 4; ++i)
                QCOMPARE(a[i], gb(longer.stages[std::size_t(i)].*term.bytes));
            for (int i = 0; i < 2; ++i)
                QCOMPARE(b[i], gb(reportB.stages[std::size_t(i)].*term.bytes));
            QCOMPARE(chart->lighterSlots(label), QList<int>({1, 3, 5, 7}));
        }
        QVERIFY(longer.stages[0].activationsBytes > reportA.stages[0].activationsBytes);
        QCOMPARE(chart->comparison().size(), 2);
        QCOMPARE(chart->capacityGb(), gb(reportA.stages.front().capacityBytes));
        QCOMPARE(chart->comparisonCapacityGb(), gb(reportB.stages.front().capacityBytes));
        const QStringList legend = chart->legendLabels();
        QVERIFY2(legend.filter(QStringLiteral("A (current):<br>capacity")).size() == 1,
                 qPrintable(legend.join(u'|')));
        QVERIFY2(legend.filter(QStringLiteral("B (k2.parascope.json):<br>capacity")).size() == 1,
                 qPrintable(legend.join(u'|')));
        QVERIFY(legend.contains(QStringLiteral("Weights")));
        QVERIFY(window.verdict()->text().contains(QStringLiteral("B (k2.parascope.json)")));

        // Step time: both plans' breakdowns on one time axis, each plan's step named.
        auto *step = window.chart<StepTimeChart>();
        window.charts()->setCurrentWidget(step);
        QTRY_VERIFY(step->isComparing());
        QVERIFY(reportA.stepTime && reportB.stepTime);
        const double unit = step->secondsPerUnit();
        const double b0Matmul = reportB.stepTime->stages[0][core::TimePart::matmul];
        for (const core::TimePartInfo &info : core::kTimeParts) {
            const QList<qreal> a = step->values(info.part);
            const QList<qreal> b = step->comparisonValues(info.part);
            QCOMPARE(a.size(), 4);
            QCOMPARE(b.size(), 2);
            for (int i = 0; i < 2; ++i)
                QCOMPARE(b[i], reportB.stepTime->stages[std::size_t(i)][info.part] / unit);
        }
        const QStringList stepLegend = step->legendLabels();
        QVERIFY2(stepLegend.filter(QStringLiteral("A (current): step")).size() == 1,
                 qPrintable(stepLegend.join(u'|')));
        QVERIFY2(stepLegend.filter(QStringLiteral("B (k2.parascope.json): step")).size() == 1,
                 qPrintable(stepLegend.join(u'|')));
        // The real mouse over plan B's bar (right of plan A's in stage 0's slot) names plan B.
        auto *bars = step->findChild<QWidget *>(QStringLiteral("stepTimeBars"));
        QVERIFY(bars);
        QPointF at = step->positionOf(0, b0Matmul / unit / 2);
        at.rx() += (step->positionOf(1, 0).x() - step->positionOf(0, 0).x()) * 0.46;
        QTest::mouseMove(bars, at.toPoint());
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), step->toolTipFor(0, core::TimePart::matmul, 1));
        QVERIFY(QToolTip::text().startsWith(QStringLiteral("B (k2.parascope.json), Stage 0")));

        window.stopComparing();
        QTRY_VERIFY(!step->isComparing());
        QVERIFY(step->legendLabels().filter(QStringLiteral("k2.parascope.json")).isEmpty());
        window.charts()->setCurrentWidget(chart);
        QTRY_COMPARE(chart->categories(),
                     QStringList({"Stage 0", "Stage 1", "Stage 2", "Stage 3"}));
        QVERIFY(chart->comparisonValues(QStringLiteral("Weights")).isEmpty());
        QCOMPARE(chart->comparisonCapacityGb(), 0.0);
        QVERIFY(chart->legendLabels().filter(QStringLiteral("(k2.parascope.json)")).isEmpty());
        QVERIFY(chart->capacityName().startsWith(QStringLiteral("Capacity ")));
    }

    void choosingADeviceRedrawsOnce()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy changed(&document, &ScenarioDocument::changed);
        choose(control<QComboBox>(window, "device"), "mi300x");
        // Several key presses in one event-loop turn are evaluated once.
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(document.scenario().device, std::string("mi300x"));
        QCOMPARE(window.chart<StageMemoryChart>()->capacityGb(), 192.0 * core::kGiB / core::kGB);
    }

    // The status line and the note name the stage furthest over its capacity when it is not
    // the first one over (core::Report::worstOverflowStage), in the window's unit.
    void furthestOverIsNamed()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const auto &[key, value] : {std::pair{"model", "llama-3.1-405b"},
                                         {"pp", "64"},
                                         {"tp", "8"},
                                         {"dp", "1"},
                                         {"microbatches", "1024"},
                                         {"seq_len", "8192"}})
            QVERIFY2(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)), key);
        document.flush();
        const core::Report &r = document.report();
        QCOMPARE(r.worstOverflowStage, 63);
        const QString furthest =
            QStringLiteral("stages do not fit, the furthest over stage 63 with %1, most of it "
                           "cached outputs")
                .arg(units::format(double(r.stages.back().totalBytes)));
        QTRY_VERIFY2(window.verdict()->text().contains(QStringLiteral("Does not fit: stage 0 ")),
                     qPrintable(window.verdict()->text()));
        QVERIFY2(window.verdict()->text().contains(furthest), qPrintable(window.verdict()->text()));
        // The note's line is cut to the window's width; its tooltip has it whole.
        QVERIFY2(window.note()->toolTip().contains(furthest), qPrintable(window.note()->toolTip()));
    }

    // A single warning longer than the note's width is cut short; its tooltip has it whole.
    void aSingleLongWarningHasItsTooltip()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.resize(900, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const auto &[key, value] : {std::pair{"tp", "1"},
                                         {"pp", "1"},
                                         {"dp", "64"},
                                         {"zero", "3"},
                                         {"microbatches", "8"},
                                         {"recompute", "full"}})
            QVERIFY2(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)), key);
        document.flush();
        const core::Report &r = document.report();
        QCOMPARE(r.warnings.size(), std::size_t(1));
        QCOMPARE(r.warnings.front().code, std::string("recompute-layers-fewer"));
        QTRY_VERIFY(window.note()->isVisible());
        QVERIFY(window.note()->text().contains(QStringLiteral("…")));
        QCOMPARE(window.note()->toolTip(), QString::fromStdString(r.warnings.front().message));

        // Its Apply link comes first and sets what the warning names, as one undoable edit.
        const core::Warning warning = r.warnings.front();
        QCOMPARE(warning.setKey, std::string("recompute_layers"));
        const QString href =
            QStringLiteral("set:recompute_layers=%1").arg(QString::fromStdString(warning.setValue));
        const QString text = window.note()->text();
        QVERIFY2(text.contains(QStringLiteral("<a href='%1'>").arg(href)), qPrintable(text));
        QVERIFY(text.indexOf(QLatin1String("<a href")) < text.indexOf(QLatin1String("also fits")));
        Q_EMIT window.note()->linkActivated(href);
        document.flush();
        QCOMPARE(std::to_string(document.scenario().recomputeLayers), warning.setValue);
        QVERIFY(document.report().fits);
        QTRY_VERIFY(!window.note()->isVisible()); // nothing left to warn about
        document.undoStack()->undo();
        document.flush();
        QCOMPARE(document.scenario().recomputeLayers, 0);
    }

    void trainingInInt4IsExplained()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QList<qreal> before = window.chart<StageMemoryChart>()->values("Weights");
        choose(control<QComboBox>(window, "precision"), "int4");
        QTRY_VERIFY(!document.report().ok());
        QTRY_VERIFY(window.note()->isVisible());
        QVERIFY(window.note()->text().contains("precision"));
        QVERIFY(window.note()->text().contains("inference only"));
        QCOMPARE(window.chart<StageMemoryChart>()->values("Weights"), before);
        // Switching to inference makes it valid: the error goes, the charts follow. INT4
        // weights multiply in BF16 (docs/step_time.md), so serving has seconds: the status
        // line gives the first token's wait and each later token's (docs/inference.md).
        choose(control<QComboBox>(window, "mode"), "inference");
        QTRY_VERIFY(document.report().ok());
        QTRY_VERIFY(!window.note()->text().contains("inference only"));
        QVERIFY(!window.note()->text().contains("no timing"));
        QVERIFY(document.report().serving);
        const core::ServingReport &serving = *document.report().serving;
        QVERIFY(window.verdict()->text().contains(
            QStringLiteral("first token %1 ms, then %2 ms a token")
                .arg(1e3 * serving.prefillS, 0, 'f', 1)
                .arg(1e3 * serving.decodeMeanS, 0, 'f', 1)));
    }

    // Found by tst_monkey: an example's 405B layer after a small one on the Sharding tab
    // froze the window for minutes. The axis took the new range (0 to 100,000 MB) at the old
    // tick interval (0.5 MB): 200,000 tick labels laid out before the interval followed.
    void niceRangeNeverAsksForThousandsOfTicks_data()
    {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::addColumn<double>("top");
        QTest::addRow("tst_monkey: 4 MB layer, then the 405B layer's 89,018 MB")
            << 4.0 << 89018.0 << 100000.0;
        QTest::addRow("and back") << 89018.0 << 4.0 << 4.5;
        QTest::addRow("one device's 85.9 GB, then 10^12 GB") << 85.9 << 1e12 << 1.2e12;
    }
    void niceRangeNeverAsksForThousandsOfTicks()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(double, top);
        QValueAxis axis;
        chart_style::setNiceRange(&axis, from);
        double most = 0;
        auto count = [&] {
            if (axis.tickType() == QValueAxis::TicksDynamic)
                most = std::max(most, (axis.max() - axis.min()) / axis.tickInterval());
        };
        connect(&axis, &QValueAxis::rangeChanged, this, count);
        connect(&axis, &QValueAxis::tickIntervalChanged, this, count);
        connect(&axis, &QValueAxis::tickTypeChanged, this, count);
        chart_style::setNiceRange(&axis, to);
        QVERIFY2(most <= 10, qPrintable(QString::number(most)));
        QCOMPARE(axis.max(), top);
    }

    // Whole-number labels stay whole, but a step below 1 gets its decimals: a sharding chart
    // with nothing sent (T = 1) labelled 0.5 MB steps "%.0f", 0, 0, 1, 2.
    void niceRangeLabelsShowTheirStep_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<double>("peak");
        QTest::addColumn<QString>("shown");
        QTest::addRow("whole steps stay whole") << "%.0f" << 70.0 << "%.0f";
        QTest::addRow("0.2 steps get one decimal") << "%.0f" << 0.0 << "%.1f";
        QTest::addRow("a format's own decimals are kept") << "%.2f" << 70.0 << "%.2f";
        QTest::addRow("other formats are left alone") << "%g" << 0.0 << "%g";
    }
    void niceRangeLabelsShowTheirStep()
    {
        QFETCH(QString, format);
        QFETCH(double, peak);
        QFETCH(QString, shown);
        QValueAxis axis;
        axis.setLabelFormat(format);
        chart_style::setNiceRange(&axis, peak);
        QCOMPARE(axis.labelFormat(), shown);
        chart_style::setNiceRange(&axis, 70.0); // back to whole steps: the given format
        QCOMPARE(axis.labelFormat(), format);
    }

    // Found by tst_monkey: the feed-forward example defines its model inline; the model
    // picker went blank instead of naming it.
    void inlineModelIsNamedByThePicker()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *model = control<QComboBox>(window, "model");
        const int presets = model->count();
        window.loadExample("ffn-split");
        QTRY_VERIFY(document.scenario().customModel.has_value());
        // resources/examples/seed-ffn-8192x32768.parascope.json
        const QString name = "Feed-forward layer (h 8192, f 32768)";
        QTRY_COMPARE(model->count(), presets + 1);
        QVERIFY(model->currentText().contains(name));
        QCOMPARE(model->currentData().toString(), name);
        // Clicking the entry it already shows in the popup changes nothing.
        const int undoSteps = document.undoStack()->count();
        Q_EMIT model->activated(model->currentIndex());
        QCOMPARE(document.undoStack()->count(), undoSteps);
        QVERIFY(document.scenario().customModel.has_value());
        // A preset takes its place, and the extra entry goes.
        choose(model, "llama-3.1-8b");
        QTRY_COMPARE(document.scenario().model, std::string("llama-3.1-8b"));
        QTRY_COMPARE(model->count(), presets);
        // The arrow keys on the way are one step.
        QCOMPARE(document.undoStack()->index(), undoSteps + 1);
        QTest::keySequence(&window, QKeySequence::Undo);
        QTRY_VERIFY(model->currentText().contains(name));
        QVERIFY(document.scenario().customModel.has_value());
    }

    // Found by tst_monkey: the model changed while the scenario was invalid (K = 40 > the 8B
    // model's 32 layers); the edit that made it valid again (K = 4) is not one the model-weights
    // and sharding charts redraw for, and they kept showing the 70B model.
    void chartsFollowWhatChangedWhileInvalid_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addRow("model weights") << "model-size";
        QTest::addRow("sharding") << "sharding";
    }
    void chartsFollowWhatChangedWhileInvalid()
    {
        QFETCH(QString, chart);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showChart(chart);
        document.setField("pp", "40");
        QTRY_COMPARE(document.lastValidScenario().pp, 40);
        document.setField("model", "llama-3.1-8b");
        QTRY_VERIFY(!document.report().ok());
        document.setField("pp", "4");
        QTRY_VERIFY(document.report().ok());
        if (chart == "model-size") {
            // docs/DESIGN.md §3.1: Llama 3.1 8B has 8,030,261,248 parameters, 2 bytes each in BF16.
            const QStringList names = window.chart<ModelSizeChart>()->categories();
            QCOMPARE(window.chart<ModelSizeChart>()->values()[names.indexOf("bf16")], 16.060522496);
        } else {
            // docs/DESIGN.md §3.4: columns → rows all-reduces tokens·h = 4096 · 4096 BF16 values
            // over T = 8, sending 2(T−1)/T of them.
            const QStringList names = window.chart<ShardingChart>()->categories();
            QCOMPARE(window.chart<ShardingChart>()->values(
                         "all-reduce")[names.indexOf("columns → rows")],
                     4096.0 * 4096 * 2 * 2 * 7 / 8 / 1e6);
        }
    }

    // A term that appears between two reports gets its own line in the legend, labelled, and no
    // label lies over another's (Qt Charts, left to itself, keeps the old places: the new entry
    // unlabelled in a corner, the next over another), whether the chart is on screen then or
    // is shown later. Every visible entry has its label on screen.
    void legendLinesDoNotOverlapWhenTermsChange_data()
    {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        // LoRA at K = 4 with neither ZeRO buffers nor cached outputs, then torchtitan's one
        // stage with both: on screen throughout, and shown after from the Step time page.
        QTest::addRow("on screen") << "llama-70b-lora-h100"
                                   << "llama-8b-torchtitan-loss-h100";
        QTest::addRow("shown after") << "llama-70b-lora-h100"
                                     << "llama-8b-hsdp-a100";
    }
    void legendLinesDoNotOverlapWhenTermsChange()
    {
        QFETCH(QString, first);
        QFETCH(QString, second);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.loadExample(first);
        document.flush();
        QCoreApplication::processEvents();
        window.loadExample(second);
        document.flush();
        window.charts()->setCurrentWidget(window.chart<StageMemoryChart>());
        QCoreApplication::processEvents();
        const core::Report &r = document.report();
        QVERIFY(r.stages[0].zeroBuffersBytes > 0);
        StageMemoryChart *chart = window.chart<StageMemoryChart>();
        QGraphicsScene *scene = chart->findChild<QChartView *>()->scene();
        QList<QRectF> lines;
        QStringList labels;
        for (QGraphicsItem *item : scene->items()) {
            auto *text = dynamic_cast<QGraphicsTextItem *>(item);
            if (!text || !text->isVisible())
                continue;
            for (const QString &label : chart->legendLabels())
                if (text->toPlainText() == label) {
                    labels << label;
                    lines << text->sceneBoundingRect();
                }
        }
        QCOMPARE(labels.size(), chart->legendLabels().size());
        QVERIFY2(labels.contains("ZeRO buffers"), qPrintable(labels.join(", ")));
        for (qsizetype i = 0; i < lines.size(); ++i)
            for (qsizetype j = i + 1; j < lines.size(); ++j)
                QVERIFY2(lines[i].intersected(lines[j]).height() < 1,
                         qPrintable(labels[i] + " over " + labels[j]));
    }

    // Every memory term has a colour of its own in the charts, which colour them by their place
    // in core::kMemoryTerms (a new term needs a new colour in chart_style::series).
    void memoryTermsHaveColoursOfTheirOwn()
    {
        QSet<QRgb> colours;
        for (std::size_t i = 0; i < std::size(core::kMemoryTerms); ++i)
            colours.insert(chart_style::series(i).rgb());
        QCOMPARE(colours.size(), qsizetype(std::size(core::kMemoryTerms)));
    }

    // The legend lists only the terms the scenario has: training keeps gradients, optimizer
    // states and activations and no KV cache; inference the reverse (docs/activations.md).
    // Drawn before the chart is first shown, as an exported image is, and redrawn after.
    void legendListsTheScenariosTerms()
    {
        const core::Presets presets = io::builtinPresets();
        core::Scenario training;
        core::Scenario inference;
        inference.mode = core::Mode::inference;
        StageMemoryChart chart;
        chart.setReport(core::evaluate(training, presets));
        chart.resize(900, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const auto shown = [&chart] {
            QStringList terms;
            for (QLegendMarker *marker :
                 chart.findChild<QChartView *>()->chart()->legend()->markers())
                if (marker->isVisible())
                    terms << marker->label();
            return terms;
        };
        QCOMPARE(shown(),
                 QStringList({"Weights", "Gradients", "Optimizer", "Activations", "Cached outputs",
                              "Reserve", "Loss buffers", "Capacity 85.9 GB"}));
        chart.setReport(core::evaluate(inference, presets));
        QCOMPARE(shown(), QStringList({"Weights", "KV cache", "Prefill buffers", "Reserve",
                                       "Capacity 85.9 GB"}));
        chart.setReport(core::evaluate(training, presets));
        QVERIFY(!shown().contains("KV cache"));
        QVERIFY(shown().contains("Optimizer"));
    }

    void warningsAreShown()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        document.setField("pp", "3"); // 80 layers over 3 stages (docs/DESIGN.md §4: a warning)
        QTRY_VERIFY(window.note()->isVisible());
        QVERIFY(window.note()->text().contains("take one more"));
        QCOMPARE(window.chart<StageMemoryChart>()->categories().size(), 3);
    }

    // View → Planner (Ctrl+Shift+P) and View → Formulas with both docks tabbed below the
    // charts: a dock behind the other tab comes forward instead of closing (it was closed);
    // one in front closes; a closed one opens in front. The menu item stays checked while the
    // dock is open.
    void viewTogglesBringABackTabForward_data()
    {
        QTest::addColumn<QString>("dock");
        QTest::addColumn<QString>("before"); // "closed", "behind" or "in front"
        QTest::addColumn<bool>("openAfter");
        for (const char *dock : {"Planner", "Formulas"}) {
            QTest::addRow("%s closed: opens in front", dock) << dock << "closed" << true;
            QTest::addRow("%s behind the other tab: comes forward", dock)
                << dock << "behind" << true;
            QTest::addRow("%s in front: closes", dock) << dock << "in front" << false;
        }
    }
    void viewTogglesBringABackTabForward()
    {
        QFETCH(QString, dock);
        QFETCH(QString, before);
        QFETCH(bool, openAfter);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        showActive(window);
        auto *formulas = window.findChild<QDockWidget *>("formulas");
        QDockWidget *planner = window.plannerDock();
        QDockWidget *target = dock == "Planner" ? planner : formulas;
        const QString other = dock == "Planner" ? "Formulas" : "Planner";
        QAction *item = viewItem(window, dock);
        QVERIFY(item);

        planner->show();
        QTRY_COMPARE_NE(frontDockTab(window), QString());
        clickDockTab(window, before == "behind" ? other : dock);
        QTRY_COMPARE(frontDockTab(window), before == "behind" ? other : dock);
        if (before == "closed")
            target->close();
        QCOMPARE(item->isChecked(), before != "closed");

        auto toggle = [&] {
            if (dock == "Planner")
                QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
            else
                item->trigger();
        };
        toggle();
        QCOMPARE(!target->isHidden(), openAfter);
        QCOMPARE(item->isChecked(), openAfter);
        QTRY_COMPARE(frontDockTab(window), openAfter ? dock : QString());
        QCOMPARE(target->isVisible(), openAfter);

        // Now in front or closed: the same key or item does the opposite.
        toggle();
        QCOMPARE(!target->isHidden(), !openAfter);
        QCOMPARE(item->isChecked(), !openAfter);
        QTRY_COMPARE(frontDockTab(window), openAfter ? QString() : dock);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
