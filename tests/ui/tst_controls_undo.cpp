// Undo steps of the scenario controls, through the real widgets and Edit's shortcuts
// (docs/DESIGN.md §5): holding an arrow key on a picker, a slider or a spin box, turning the wheel
// on one or clicking a spin box's arrows passes many values on the way to one, and that value is
// one undo step, as a slider drag is.
#include "io/presets_io.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/widgets/slider_spin.h"
#include "ui/widgets/step_burst.h"
#include "widget_helpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSpinBox>
#include <QTest>
#include <QUndoStack>
#include <memory>

using namespace ui;

class TestControlsUndo : public QObject
{
    Q_OBJECT

private:
    // The bursts' clock: a pause passes by moving it on, not by sleeping (StepBurst::setClock).
    static inline qint64 s_now = 0;
    static qint64 now() { return s_now; }
    static void pass(qint64 ms)
    {
        s_now += ms;
        QCoreApplication::processEvents();
    }

    using Window = ExplorerWindow;

    static QComboBox *picker(Window &w, const QString &key)
    {
        return ::control<QComboBox>(w.window, key);
    }

    // An arrow key held down: presses in quick succession, as auto-repeat sends them.
    static void hold(QComboBox *combo, Qt::Key key, int presses)
    {
        for (int i = 0; i < presses; ++i)
            QTest::keyClick(combo, key);
    }

    static SliderSpin *sliderSpin(Window &w, const QString &key)
    {
        return ::control<SliderSpin>(w.window, key);
    }

    // The control a row steps: a slider, the spin box beside it, or a spin box of its own.
    enum class Part
    {
        slider,
        spin,
        box
    };

    // The control, enabled: virtual stages only for the interleaved schedule, set as a file
    // opened would (no undo step).
    static QWidget *control(Window &w, const QString &key, Part part)
    {
        if (key == QLatin1String("virtual_stages")) {
            core::Scenario scenario = w.document.scenario();
            scenario.schedule = core::Schedule::interleaved;
            w.document.reset(scenario);
            w.document.flush();
        }
        QWidget *control = w.window.controls()->control(key);
        if (part == Part::slider)
            control = sliderSpin(w, key)->slider();
        else if (part == Part::spin)
            control = sliderSpin(w, key)->spinBox();
        return control;
    }

    // Notches of the mouse wheel over the control's centre, up when positive.
    static void turnNotches(QWidget *control, int notches)
    {
        const QPointF centre = QRectF(control->rect()).center();
        for (int i = 0; i < std::abs(notches); ++i)
            turnWheel(control, centre, notches > 0 ? 120 : -120);
    }

    static QRect arrowButton(QAbstractSpinBox *spin, QStyle::SubControl button)
    {
        QStyleOptionSpinBox option;
        option.initFrom(spin);
        option.subControls = QStyle::SC_SpinBoxUp | QStyle::SC_SpinBoxDown |
                             QStyle::SC_SpinBoxFrame | QStyle::SC_SpinBoxEditField;
        option.buttonSymbols = spin->buttonSymbols();
        option.frame = spin->hasFrame();
        option.stepEnabled = QAbstractSpinBox::StepUpEnabled | QAbstractSpinBox::StepDownEnabled;
        return spin->style()->subControlRect(QStyle::CC_SpinBox, &option, button, spin);
    }

    // Plays a row's script on a control, one action after another with no event-loop turn
    // between them, as auto-repeat sends keys: "Up×8" (a key, 8 times), "Wheel+×3" / "Wheel-"
    // (notches of the wheel), "Arrow+×2" / "Arrow-" (clicks on a spin box's arrow buttons),
    // "type:12" (select the text, type, Enter), "pause" (longer than a burst's pause),
    // "focus" (Tab to the next control and back).
    static void play(QWidget *control, const QString &script)
    {
        static const QHash<QString, Qt::Key> keys = {
            {QStringLiteral("Up"), Qt::Key_Up},
            {QStringLiteral("Down"), Qt::Key_Down},
            {QStringLiteral("Left"), Qt::Key_Left},
            {QStringLiteral("Right"), Qt::Key_Right},
            {QStringLiteral("PageUp"), Qt::Key_PageUp},
            {QStringLiteral("PageDown"), Qt::Key_PageDown},
            {QStringLiteral("Home"), Qt::Key_Home},
            {QStringLiteral("End"), Qt::Key_End},
        };
        control->setFocus();
        QTRY_VERIFY(control->hasFocus());
        for (const QString &token : script.split(u' ', Qt::SkipEmptyParts)) {
            const QStringList parts = token.split(u'×');
            const QString action = parts[0];
            const int times = parts.size() > 1 ? parts[1].toInt() : 1;
            for (int i = 0; i < times; ++i) {
                if (keys.contains(action)) {
                    QTest::keyClick(control, keys.value(action));
                } else if (action.startsWith(QLatin1String("Wheel"))) {
                    turnNotches(control, action.endsWith(u'+') ? 1 : -1);
                } else if (action.startsWith(QLatin1String("Arrow"))) {
                    auto *spin = qobject_cast<QAbstractSpinBox *>(control);
                    QVERIFY(spin);
                    const QRect button =
                        arrowButton(spin, action.endsWith(u'+') ? QStyle::SC_SpinBoxUp
                                                                : QStyle::SC_SpinBoxDown);
                    QTest::mouseClick(spin, Qt::LeftButton, {}, button.center());
                } else if (action.startsWith(QLatin1String("type:"))) {
                    auto *spin = qobject_cast<QAbstractSpinBox *>(control);
                    QVERIFY(spin);
                    spin->selectAll();
                    QTest::keyClicks(spin, action.mid(5));
                    QTest::keyClick(spin, Qt::Key_Return);
                } else if (action == QLatin1String("pause")) {
                    pass(StepBurst::kPauseMs + 200);
                } else if (action == QLatin1String("focus")) {
                    QTest::keyClick(control, Qt::Key_Tab);
                    QTRY_VERIFY(!control->hasFocus());
                    control->setFocus();
                    QTRY_VERIFY(control->hasFocus());
                } else {
                    QFAIL(qPrintable(QStringLiteral("unknown action ") + action));
                }
            }
        }
    }

    // Each undo step of `trail` (the values, first to last) back with Undo, then forward again
    // with Redo; the control shows each.
    static void walk(Window &w, const QString &key, const QStringList &trail)
    {
        const auto shows = [&w, &key](const QString &value) {
            QWidget *control = w.window.controls()->control(key);
            if (auto *slider = qobject_cast<SliderSpin *>(control))
                return slider->value() == value.toInt();
            auto *box = qobject_cast<QDoubleSpinBox *>(control);
            // An unset key ("auto") shows as the box's special value at its minimum.
            bool number = false;
            const double v = value.toDouble(&number);
            return number ? box->value() == v
                          : box->value() == box->minimum() && box->text() == value;
        };
        QCOMPARE(w.document.undoStack()->count(), trail.size() - 1);
        QCOMPARE(w.document.fieldText(key), trail.last());
        for (qsizetype i = trail.size() - 2; i >= 0; --i) {
            QTest::keySequence(&w.window, QKeySequence::Undo);
            QCOMPARE(w.document.fieldText(key), trail[i]);
            QTRY_VERIFY2(shows(trail[i]), qPrintable(trail[i]));
        }
        QVERIFY(!w.document.undoStack()->canUndo());
        for (qsizetype i = 1; i < trail.size(); ++i) {
            QTest::keySequence(&w.window, QKeySequence::Redo);
            QCOMPARE(w.document.fieldText(key), trail[i]);
            QTRY_VERIFY2(shows(trail[i]), qPrintable(trail[i]));
        }
    }

private Q_SLOTS:
    void initTestCase() { StepBurst::setClock(&now); }
    void cleanupTestCase() { StepBurst::setClock(nullptr); }

    void heldArrowKeyIsOneUndoStep_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Qt::Key>("arrow");
        QTest::addColumn<int>("presses");
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        // The default scenario (docs/DESIGN.md §4) and the built-in presets' order
        // (resources/presets/*.json, core::enumNames).
        QTest::addRow("model: Down ×2, 70B → GPT-3")
            << "model" << Qt::Key_Down << 2 << "llama-3.1-70b"
            << "gpt-3-175b";
        QTest::addRow("model: Down ×12 runs into the last item")
            << "model" << Qt::Key_Down << 12 << "llama-3.1-70b"
            << "gpt-oss-20b";
        QTest::addRow("device: Down ×4, H100 → SN40L")
            << "device" << Qt::Key_Down << 4 << "h100-sxm"
            << "sn40l";
        QTest::addRow("device: Up ×1, one item is one step too")
            << "device" << Qt::Key_Up << 1 << "h100-sxm"
            << "a100-80gb";
        QTest::addRow("precision: Down ×6, bf16 → q8_0 (invalid for training)")
            << "precision" << Qt::Key_Down << 6 << "bf16"
            << "q8_0";
        QTest::addRow("schedule: Down ×2, 1F1B → ZB-H1")
            << "schedule" << Qt::Key_Down << 2 << "1f1b"
            << "zb-h1";
        QTest::addRow("zero: End, 1 → 3") << "zero" << Qt::Key_End << 1 << "1"
                                          << "3";
    }
    void heldArrowKeyIsOneUndoStep()
    {
        QFETCH(QString, key);
        QFETCH(Qt::Key, arrow);
        QFETCH(int, presses);
        QFETCH(QString, before);
        QFETCH(QString, after);
        Window w;
        showActive(w.window);
        QComboBox *combo = picker(w, key);
        QCOMPARE(w.document.fieldText(key), before);
        combo->setFocus();
        hold(combo, arrow, presses);
        QCOMPARE(w.document.fieldText(key), after);
        QCOMPARE(w.document.undoStack()->count(), 1);

        // One Undo gives back the value before the key went down, one Redo the last one.
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText(key), before);
        QTRY_COMPARE(combo->currentData().toString(), before);
        QVERIFY(!w.document.undoStack()->canUndo());
        QTest::keySequence(&w.window, QKeySequence::Redo);
        QCOMPARE(w.document.fieldText(key), after);
        QTRY_COMPARE(combo->currentData().toString(), after);
    }

    // The wheel on a closed picker steps through its items as the arrow keys do.
    void wheelTurnIsOneUndoStep()
    {
        Window w;
        showActive(w.window);
        QComboBox *device = picker(w, "device");
        device->setFocus();
        turnNotches(device, -3);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("mi300x")); // H100 + 3
        QCOMPARE(w.document.undoStack()->count(), 1);
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("h100-sxm"));
    }

    // A burst ends at a pause or when the picker loses focus: the next press is a new step.
    void pauseOrFocusChangeEndsTheBurst_data()
    {
        QTest::addColumn<QString>("between");
        QTest::addRow("a pause longer than auto-repeat's delay") << "pause";
        QTest::addRow("Tab to the next control and back") << "focus";
    }
    void pauseOrFocusChangeEndsTheBurst()
    {
        QFETCH(QString, between);
        Window w;
        showActive(w.window);
        QComboBox *device = picker(w, "device");
        device->setFocus();
        hold(device, Qt::Key_Down, 2); // H100 → H200 → B200
        if (between == "pause") {
            pass(StepBurst::kPauseMs + 200);
        } else {
            QTest::keyClick(device, Qt::Key_Tab);
            QTRY_VERIFY(!device->hasFocus());
            device->setFocus();
            QTRY_VERIFY(device->hasFocus());
        }
        hold(device, Qt::Key_Down, 1); // → MI300X
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("mi300x"));
        QCOMPARE(w.document.undoStack()->count(), 2);
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("b200"));
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("h100-sxm"));
    }

    // A burst on one picker does not swallow the next picker's change, nor an undone step.
    void burstsStayWithTheirPicker()
    {
        Window w;
        showActive(w.window);
        QComboBox *device = picker(w, "device");
        QComboBox *precision = picker(w, "precision");
        device->setFocus();
        hold(device, Qt::Key_Down, 2); // → B200
        precision->setFocus();
        hold(precision, Qt::Key_Up, 1); // bf16 → fp32
        device->setFocus();
        hold(device, Qt::Key_Down, 1); // → MI300X
        QCOMPARE(w.document.undoStack()->count(), 3);
        // Undo in the middle of a burst, then go on: the step undone stays undone.
        hold(device, Qt::Key_Down, 1); // → SN40L, the same burst
        QCOMPARE(w.document.undoStack()->count(), 3);
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("b200"));
        QTRY_COMPARE(device->currentData().toString(), QStringLiteral("b200"));
        hold(device, Qt::Key_Up, 1); // B200 → H200: a step of its own
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("h200"));
        QCOMPARE(w.document.undoStack()->count(), 3);
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("b200"));
        QCOMPARE(w.document.fieldText("precision"), QStringLiteral("fp32"));
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("precision"), QStringLiteral("bf16"));
        QTest::keySequence(&w.window, QKeySequence::Undo);
        QCOMPARE(w.document.fieldText("device"), QStringLiteral("h100-sxm"));
        QVERIFY(!w.document.undoStack()->canUndo());
    }

    // Keys, the wheel and the arrow buttons on the sliders and spin boxes: a burst of steps on
    // one control is one undo step. `values` counts the values the burst passes: each was an
    // undo step of its own before bursts. Sliders: SliderSpin's logarithmic scale has 1000
    // positions from the minimum to the maximum (value = min·(max/min)^(p/1000), rounded, and
    // a power of two wherever that is within 0.2 octave of one), an
    // arrow key moves 1, PageUp 100, a wheel notch 3 (QApplication::wheelScrollLines()); spin
    // boxes step by their singleStep, PageUp by 10 of them. Values before: the default
    // scenario (docs/DESIGN.md §4, core/scenario.h).
    void stepBurstIsOneUndoStep_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Part>("part");
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("values");
        QTest::addColumn<QStringList>("trail");
        constexpr Part slider = Part::slider;
        constexpr Part spin = Part::spin;
        constexpr Part box = Part::box;
        // Sliders. K: positions 286 + 150 pass 5, 6, 7 and 8.
        QTest::addRow("K slider: Right ×150")
            << "pp" << slider << "Right×150" << 4 << QStringList{"4", "8"};
        QTest::addRow("K slider: PageUp ×2")
            << "pp" << slider << "PageUp×2" << 2 << QStringList{"4", "11"};
        QTest::addRow("K slider: End, Home")
            << "pp" << slider << "End Home" << 2 << QStringList{"4", "1"};
        QTest::addRow("K slider: wheel ×40")
            << "pp" << slider << "Wheel+×40" << 4 << QStringList{"4", "8"};
        // m: 16 holds from 13.9 to 18.4, so the first step down is 13, not 15.
        QTest::addRow("m slider: Left ×150")
            << "microbatches" << slider << "Left×150" << 9 << QStringList{"16", "6"};
        QTest::addRow("m slider: PageDown ×2")
            << "microbatches" << slider << "PageDown×2" << 2 << QStringList{"16", "4"};
        QTest::addRow("T slider: PageDown ×2")
            << "tp" << slider << "PageDown×2" << 2 << QStringList{"8", "3"};
        QTest::addRow("T slider: Home, End")
            << "tp" << slider << "Home End" << 2 << QStringList{"8", "128"};
        QTest::addRow("D slider: PageUp ×2")
            << "dp" << slider << "PageUp×2" << 2 << QStringList{"2", "8"};
        QTest::addRow("D slider: wheel ×40")
            << "dp" << slider << "Wheel+×40" << 2 << QStringList{"2", "4"};
        QTest::addRow("micro-batch size slider: PageUp ×2")
            << "microbatch_size" << slider << "PageUp×2" << 2 << QStringList{"1", "3"};
        QTest::addRow("sequence length slider: PageDown ×2")
            << "seq_len" << slider << "PageDown×2" << 2 << QStringList{"4096", "1024"};
        // 4096 holds down to 3566 (0.2 octave): eight notches pass 3541 and 3468.
        QTest::addRow("sequence length slider: wheel ×8 back")
            << "seq_len" << slider << "Wheel-×8" << 2 << QStringList{"4096", "3468"};
        // Virtual stages: a linear slider, 1..16, page step a tenth of that (at least 1).
        QTest::addRow("v slider: Up ×3")
            << "virtual_stages" << slider << "Up×3" << 3 << QStringList{"1", "4"};
        QTest::addRow("v slider: End, PageDown")
            << "virtual_stages" << slider << "End PageDown" << 2 << QStringList{"1", "15"};
        // The sliders' spin boxes. The defect: "holding Up on Pipeline stages K from 4 to 12
        // makes 8 undo steps".
        QTest::addRow("K box: Up ×8") << "pp" << spin << "Up×8" << 8 << QStringList{"4", "12"};
        QTest::addRow("K box: Down ×3") << "pp" << spin << "Down×3" << 3 << QStringList{"4", "1"};
        QTest::addRow("m box: PageUp ×2")
            << "microbatches" << spin << "PageUp×2" << 2 << QStringList{"16", "36"};
        QTest::addRow("sequence length box: Up ×3")
            << "seq_len" << spin << "Up×3" << 3 << QStringList{"4096", "4099"};
        QTest::addRow("T box: wheel ×3 back")
            << "tp" << spin << "Wheel-×3" << 3 << QStringList{"8", "5"};
        QTest::addRow("D box: up arrow ×3")
            << "dp" << spin << "Arrow+×3" << 3 << QStringList{"2", "5"};
        QTest::addRow("micro-batch size box: Up, up arrow, wheel")
            << "microbatch_size" << spin << "Up Arrow+ Wheel+" << 3 << QStringList{"1", "4"};
        QTest::addRow("v box: Up ×2")
            << "virtual_stages" << spin << "Up×2" << 2 << QStringList{"1", "3"};
        // The framework boxes: reserve in 0.5 GiB steps, MFU in 0.05 up from "auto" (its
        // minimum: core/fields.cpp), gradient sync in 0.1 up from "auto" (just below 0).
        QTest::addRow("reserve: Up ×3")
            << "reserve_gib" << box << "Up×3" << 3 << QStringList{"2", "3.5"};
        QTest::addRow("reserve: down arrow ×2")
            << "reserve_gib" << box << "Arrow-×2" << 2 << QStringList{"2", "1"};
        QTest::addRow("MFU: Up ×4") << "mfu" << box << "Up×4" << 4 << QStringList{"auto", "0.2"};
        QTest::addRow("MFU: wheel ×2")
            << "mfu" << box << "Wheel+×2" << 2 << QStringList{"auto", "0.1"};
        // Back where it started: the merged step is obsolete and goes (ScenarioDocument).
        QTest::addRow("MFU: Up ×2, Down ×2 back to auto")
            << "mfu" << box << "Up×2 Down×2" << 4 << QStringList{"auto"};
        QTest::addRow("gradient sync hidden: wheel ×3")
            << "dp_overlap" << box << "Wheel+×3" << 3 << QStringList{"auto", "0.2"};
        QTest::addRow("gradient sync hidden: up arrow ×2, PageDown back to auto")
            << "dp_overlap" << box << "Arrow+×2 PageDown" << 3 << QStringList{"auto"};
    }
    void stepBurstIsOneUndoStep()
    {
        QFETCH(QString, key);
        QFETCH(Part, part);
        QFETCH(QString, script);
        QFETCH(int, values);
        QFETCH(QStringList, trail);
        Window w;
        showActive(w.window);
        QWidget *stepped = control(w, key, part);
        QVERIFY(stepped->isEnabled());
        QCOMPARE(w.document.fieldText(key), trail.first());
        const SliderSpin *slider = sliderSpin(w, key);
        const auto passed =
            slider ? std::make_unique<QSignalSpy>(slider, &SliderSpin::valueEdited)
                   : std::make_unique<QSignalSpy>(qobject_cast<QDoubleSpinBox *>(stepped),
                                                  &QDoubleSpinBox::valueChanged);
        play(stepped, script);
        QCOMPARE(passed->count(), values);
        walk(w, key, trail);
    }

    // What else makes or ends a step on a slider or spin box. `trail`: the values, one per
    // undo step.
    void stepsAroundABurst_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Part>("part");
        QTest::addColumn<QString>("script");
        QTest::addColumn<QStringList>("trail");
        constexpr Part slider = Part::slider;
        constexpr Part spin = Part::spin;
        constexpr Part box = Part::box;
        // A typed value stays a step of its own, however quickly it follows a burst.
        QTest::addRow("K box: 12 typed") << "pp" << spin << "type:12" << QStringList{"4", "12"};
        QTest::addRow("K box: Up ×2, 12 typed")
            << "pp" << spin << "Up×2 type:12" << QStringList{"4", "6", "12"};
        QTest::addRow("K box: Up, 12 typed, Up")
            << "pp" << spin << "Up type:12 Up" << QStringList{"4", "5", "12", "13"};
        QTest::addRow("MFU: Up ×2, 0.9 typed")
            << "mfu" << box << "Up×2 type:0.9" << QStringList{"auto", "0.1", "0.9"};
        // 0, the box's minimum, is its special value: auto again.
        QTest::addRow("MFU: 0.5 typed, 0 typed")
            << "mfu" << box << "type:0.5 type:0" << QStringList{"auto", "0.5", "auto"};
        // A pause longer than auto-repeat's delay, or the control losing focus, ends a burst.
        QTest::addRow("K box: Up ×2, pause, Up")
            << "pp" << spin << "Up×2 pause Up" << QStringList{"4", "6", "7"};
        QTest::addRow("K box: Up ×2, Tab and back, Up")
            << "pp" << spin << "Up×2 focus Up" << QStringList{"4", "6", "7"};
        QTest::addRow("K slider: PageUp, pause, PageUp")
            << "pp" << slider << "PageUp pause PageUp" << QStringList{"4", "7", "11"};
        QTest::addRow("K slider: PageUp, Tab and back, PageUp")
            << "pp" << slider << "PageUp focus PageUp" << QStringList{"4", "7", "11"};
        QTest::addRow("reserve: up arrow, pause, up arrow ×2")
            << "reserve_gib" << box << "Arrow+ pause Arrow+×2" << QStringList{"2", "2.5", "3.5"};
        QTest::addRow("gradient sync hidden: wheel, Tab and back, wheel")
            << "dp_overlap" << box << "Wheel+ focus Wheel+" << QStringList{"auto", "0", "0.1"};
    }
    void stepsAroundABurst()
    {
        QFETCH(QString, key);
        QFETCH(Part, part);
        QFETCH(QString, script);
        QFETCH(QStringList, trail);
        Window w;
        showActive(w.window);
        QWidget *stepped = control(w, key, part);
        QVERIFY(stepped->isEnabled());
        play(stepped, script);
        walk(w, key, trail);
    }

    // A slider and its spin box are two controls: a step on one after a burst on the other
    // starts a step of its own. The wheel turns only the one with the focus (a click gives it;
    // tst_controls_wheel), so each is focused before its notches.
    void sliderAndItsSpinBoxAreTwoControls()
    {
        Window w;
        showActive(w.window);
        SliderSpin *k = sliderSpin(w, "pp");
        const auto turnFocused = [](QWidget *control, int notches) {
            control->setFocus(Qt::MouseFocusReason);
            QTRY_VERIFY(control->hasFocus());
            turnNotches(control, notches);
        };
        turnFocused(k->slider(), 40); // positions 286 → 406: 7.2, within 0.2 octave of 8
        turnFocused(k->spinBox(), 1); // 9
        turnFocused(k->slider(), 40); // positions 453 → 573: 16.1, so 16
        walk(w, "pp", {"4", "8", "9", "16"});
    }

    // A drag between key steps on a slider stays its own undo step, and the keys after it do
    // not merge into it.
    void dragBetweenKeyStepsIsAStepOfItsOwn()
    {
        Window w;
        showActive(w.window);
        QSlider *k = sliderSpin(w, "pp")->slider();
        play(k, "PageUp");  // 4 → 7
        dragSlider(k, 0.0); // to the start of the groove
        QCOMPARE(w.document.fieldText("pp"), QStringLiteral("1"));
        play(k, "PageUp"); // position 0 → 100: 2
        walk(w, "pp", {"4", "7", "1", "2"});
    }

    // An arrow button or an Up key held down on a spin box repeats the step from a timer
    // (QAbstractSpinBox's auto-repeat): the whole hold is one undo step.
    void heldArrowIsOneUndoStep_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Part>("part");
        QTest::addColumn<bool>("button");
        QTest::addColumn<bool>("up");
        QTest::addColumn<double>("step"); // the box's single step
        QTest::addRow("K box: up arrow held") << "pp" << Part::spin << true << true << 1.0;
        QTest::addRow("K box: Up held") << "pp" << Part::spin << false << true << 1.0;
        // Up from "auto", the box's minimum.
        QTest::addRow("MFU: up arrow held") << "mfu" << Part::box << true << true << 0.05;
        QTest::addRow("gradient sync hidden: up arrow held from auto")
            << "dp_overlap" << Part::box << true << true << 0.1;
    }
    void heldArrowIsOneUndoStep()
    {
        QFETCH(QString, key);
        QFETCH(Part, part);
        QFETCH(bool, button);
        QFETCH(bool, up);
        QFETCH(double, step);
        Window w;
        showActive(w.window);
        auto *spin = qobject_cast<QAbstractSpinBox *>(control(w, key, part));
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        const QString before = w.document.fieldText(key);
        if (button) {
            const QPoint arrow =
                arrowButton(spin, up ? QStyle::SC_SpinBoxUp : QStyle::SC_SpinBoxDown).center();
            QTest::mousePress(spin, Qt::LeftButton, {}, arrow);
            // Real time: the spin box's own timer repeats the step (its first repeat comes
            // after about half a second, then every tenth); the bursts' clock stands still
            // meanwhile.
            QTest::qWait(1000);
            QTest::mouseRelease(spin, Qt::LeftButton, {}, arrow);
        } else {
            const Qt::Key arrow = up ? Qt::Key_Up : Qt::Key_Down;
            QTest::keyPress(spin, arrow);
            for (int i = 0; i < 30; ++i) {
                QKeyEvent repeat(QEvent::KeyPress, arrow, Qt::NoModifier, QString(), true);
                QApplication::sendEvent(spin, &repeat);
                pass(50);
            }
            QTest::keyRelease(spin, arrow);
        }
        const QString after = w.document.fieldText(key);
        // More than one value went by: a step more than the press itself makes. "auto" is 0,
        // the MFU box's minimum.
        const double moved = (after.toDouble() - before.toDouble()) * (up ? 1 : -1);
        QVERIFY2(moved > 1.2 * step, qPrintable(before + QStringLiteral(" → ") + after));
        walk(w, key, {before, after});
    }

    // A logarithmic slider (m, 1 to 1024, as the scenario dock has it) holds each power of two
    // over the middle 40 % of its octave: aimed near 4 it gives 4, never 3 or 5; between two
    // powers of two the other whole numbers are still there.
    void logarithmicSliderSnapsToPowersOfTwo_data()
    {
        QTest::addColumn<double>("octaves"); // log2 of where the handle is
        QTest::addColumn<int>("value");
        QTest::addRow("at 4") << 2.0 << 4;
        QTest::addRow("0.15 octave below 4 (3.6)") << 1.85 << 4;
        QTest::addRow("0.15 octave above 4 (4.4)") << 2.15 << 4;
        QTest::addRow("0.4 octave above 2 (2.6)") << 1.4 << 3;
        QTest::addRow("0.3 octave below 8 (6.5)") << 2.7 << 6;
        QTest::addRow("0.1 octave below 1024") << 9.9 << 1024;
        QTest::addRow("0.45 octave above 16 (21.9)") << 4.45 << 22;
    }
    void logarithmicSliderSnapsToPowersOfTwo()
    {
        QFETCH(double, octaves);
        QFETCH(int, value);
        SliderSpin spin(1, 1024, SliderSpin::Scale::logarithmic);
        QSlider *slider = spin.slider();
        // Positions run linearly in log(m) from 1 to 1024: 10 octaves.
        slider->setValue(int(std::lround(octaves / 10.0 * slider->maximum())));
        QCOMPARE(spin.value(), value);
    }
};

QTEST_MAIN(TestControlsUndo)
#include "tst_controls_undo.moc"
