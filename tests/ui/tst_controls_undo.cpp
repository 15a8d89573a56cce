// Undo steps of the scenario controls, through the real widgets and Edit's shortcuts (STYLE.md
// habit 4): holding an arrow key on a picker passes many items on the way to one choice, and
// that choice is one undo step, as a slider drag is.
#include "io/presets_io.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/widgets/step_burst.h"

#include <QApplication>
#include <QComboBox>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>

using namespace ui;

class TestControlsUndo : public QObject
{
    Q_OBJECT

private:
    struct Window
    {
        ScenarioDocument document{io::builtinPresets()};
        MainWindow window{&document};
    };

    static void open(Window &w)
    {
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        w.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
    }

    static QComboBox *picker(Window &w, const QString &key)
    {
        return qobject_cast<QComboBox *>(w.window.controls()->control(key));
    }

    // An arrow key held down: presses in quick succession, as auto-repeat sends them.
    static void hold(QComboBox *combo, Qt::Key key, int presses)
    {
        for (int i = 0; i < presses; ++i)
            QTest::keyClick(combo, key);
    }

private Q_SLOTS:
    void heldArrowKeyIsOneUndoStep_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Qt::Key>("arrow");
        QTest::addColumn<int>("presses");
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        // The default scenario (DESIGN §4) and the built-in presets' order
        // (resources/presets/*.json, core::enumNames).
        QTest::addRow("model: Down ×2, 70B → GPT-3")
            << "model" << Qt::Key_Down << 2 << "llama-3.1-70b"
            << "gpt-3-175b";
        QTest::addRow("model: Down ×6 runs into the last item")
            << "model" << Qt::Key_Down << 6 << "llama-3.1-70b"
            << "gpt-3-175b";
        QTest::addRow("device: Down ×4, H100 → SN40L")
            << "device" << Qt::Key_Down << 4 << "h100-sxm"
            << "sn40l";
        QTest::addRow("device: Up ×1, one item is one step too")
            << "device" << Qt::Key_Up << 1 << "h100-sxm"
            << "a100-80gb";
        QTest::addRow("precision: Down ×5, bf16 → q8_0 (invalid for training)")
            << "precision" << Qt::Key_Down << 5 << "bf16"
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
        open(w);
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
        open(w);
        QComboBox *device = picker(w, "device");
        device->setFocus();
        const QPointF centre = QRectF(device->rect()).center();
        for (int notch = 0; notch < 3; ++notch) {
            QWheelEvent wheel(centre, device->mapToGlobal(centre), QPoint(), QPoint(0, -120),
                              Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(device, &wheel);
        }
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
        open(w);
        QComboBox *device = picker(w, "device");
        device->setFocus();
        hold(device, Qt::Key_Down, 2); // H100 → H200 → B200
        if (between == "pause") {
            QTest::qWait(StepBurst::kPauseMs + 200);
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
        open(w);
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
};

QTEST_MAIN(TestControlsUndo)
#include "tst_controls_undo.moc"
