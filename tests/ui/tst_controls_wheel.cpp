// The mouse wheel over the scenario controls scrolls the panel; it changes a picker, a spin box
// or a slider only while that control has the keyboard focus, as in KDE's System Settings and
// Qt Creator's options. Turning the wheel to reach the lower controls no longer edits whichever
// control passes under the pointer.
#include "io/presets_io.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/widgets/slider_spin.h"
#include "widget_helpers.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <algorithm>

using namespace ui;

class TestControlsWheel : public QObject
{
    Q_OBJECT

private:
    // The part of a row's control the wheel turns over: a picker, a number box, or the slider
    // or the spin box of a slider's row.
    enum class Part
    {
        picker,
        box,
        slider,
        spin
    };

    static constexpr int kNotchDown = -120;

    static QWidget *part(ExplorerWindow &w, const QString &key, Part part)
    {
        QWidget *control = w.window.controls()->control(key);
        if (part == Part::slider)
            return qobject_cast<SliderSpin *>(control)->slider();
        if (part == Part::spin)
            return qobject_cast<SliderSpin *>(control)->spinBox();
        return control;
    }

    // The scroll area the scenario controls are in.
    static QScrollArea *panelScroll(ExplorerWindow &w)
    {
        for (QWidget *p = w.window.controls()->parentWidget(); p; p = p->parentWidget())
            if (auto *scroll = qobject_cast<QScrollArea *>(p))
                return scroll;
        return nullptr;
    }

    // Whether the pointer at `at` on `control` is over it rather than over something covering
    // it or past the scroll area's edge.
    static bool pointerIsOver(QWidget *control, QPoint at)
    {
        QWidget *window = control->window();
        QWidget *under = window->childAt(control->mapTo(window, at));
        return under == control || control->isAncestorOf(under);
    }

    // A control that shows a value the wheel can change.
    static bool isValueControl(const QWidget *widget)
    {
        return qobject_cast<const QComboBox *>(widget) ||
               qobject_cast<const QAbstractSpinBox *>(widget) ||
               (qobject_cast<const QAbstractSlider *>(widget) &&
                !qobject_cast<const QScrollBar *>(widget));
    }

    static QString valueOf(const QWidget *control)
    {
        if (auto *combo = qobject_cast<const QComboBox *>(control))
            return combo->currentText();
        if (auto *spin = qobject_cast<const QAbstractSpinBox *>(control))
            return spin->text();
        return QString::number(qobject_cast<const QAbstractSlider *>(control)->value());
    }

    // A name for a failure message: the control's, or its row's (a slider's parts have none).
    static QString nameOf(const QWidget *control)
    {
        for (const QWidget *w = control; w; w = w->parentWidget())
            if (!w->objectName().isEmpty())
                return QStringLiteral("%1 (%2)").arg(
                    w->objectName(), QString::fromLatin1(control->metaObject()->className()));
        return QString::fromLatin1(control->metaObject()->className());
    }

private Q_SLOTS:
    void wheelScrollsThePanelUntilTheControlHasFocus_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<Part>("part");
        // Notches that change the focused control: a logarithmic slider's three positions a
        // notch hold K at its power of two for a while.
        QTest::addColumn<int>("notches");
        QTest::addColumn<QString>("changed");
        QTest::addRow("precision picker") << "precision" << Part::picker << 1 << "fp16";
        QTest::addRow("recomputation picker") << "recompute" << Part::picker << 1 << "op";
        QTest::addRow("framework reserve box") << "reserve_gib" << Part::box << 1 << "1.5";
        QTest::addRow("K spin box") << "pp" << Part::spin << 1 << "3";
        QTest::addRow("K slider") << "pp" << Part::slider << 40 << "2";
    }
    void wheelScrollsThePanelUntilTheControlHasFocus()
    {
        QFETCH(QString, key);
        QFETCH(Part, part);
        QFETCH(int, notches);
        QFETCH(QString, changed);
        ExplorerWindow w;
        // Short, so that the controls are taller than their dock and scroll.
        w.window.resize(760, 420);
        showActive(w.window);
        QScrollArea *scroll = panelScroll(w);
        QVERIFY(scroll);
        QScrollBar *bar = scroll->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        QWidget *control = TestControlsWheel::part(w, key, part);
        QVERIFY(control->isEnabled());
        QVERIFY(!control->hasFocus());

        // Over the control without its focus: the panel scrolls, the scenario stays.
        scroll->ensureWidgetVisible(control);
        const QPoint centre = control->rect().center();
        QVERIFY(pointerIsOver(control, centre));
        const QString before = w.document.fieldText(key);
        const int scrolled = bar->value();
        QVERIFY(scrolled < bar->maximum());
        turnWheelFromMouse(control, centre, kNotchDown);
        QCOMPARE(w.document.fieldText(key), before);
        QCOMPARE(w.document.undoStack()->count(), 0);
        QVERIFY(!control->hasFocus());
        QVERIFY2(bar->value() > scrolled, "the panel did not scroll");

        // Focused (a click or Tab), the wheel changes it.
        control->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(control->hasFocus());
        scroll->ensureWidgetVisible(control);
        QVERIFY(pointerIsOver(control, centre));
        const int still = bar->value();
        for (int i = 0; i < notches; ++i)
            turnWheelFromMouse(control, centre, kNotchDown);
        QCOMPARE(w.document.fieldText(key), changed);
        QCOMPARE(bar->value(), still);
    }

    // Every picker, spin box and slider of the window (the scenario controls, the planner's
    // inputs, the experts page's, the Timeline's speed and the memory-over-the-step page's stage)
    // lets an unfocused wheel pass, and can still take the keyboard focus.
    void everyValueControlWaitsForFocus()
    {
        ExplorerWindow w;
        showActive(w.window);
        QStringList checked;
        QStringList failures;
        for (QWidget *control : w.window.findChildren<QWidget *>()) {
            if (!isValueControl(control))
                continue;
            checked << nameOf(control);
            if (!(control->focusPolicy() & Qt::TabFocus))
                failures << nameOf(control) + QStringLiteral(": the keyboard cannot focus it");
            if (control->hasFocus())
                continue;
            // Both ways, so that a control at either end of its range would still move.
            for (int angle : {kNotchDown, -kNotchDown}) {
                const QString before = valueOf(control);
                turnWheelFromMouse(control, control->rect().center(), angle);
                if (valueOf(control) != before)
                    failures << QStringLiteral("%1: %2 → %3")
                                    .arg(nameOf(control), before, valueOf(control));
                if (control->hasFocus())
                    failures << nameOf(control) + QStringLiteral(": the wheel focused it");
            }
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u'\n')));
        QCOMPARE(w.document.undoStack()->count(), 0);
        for (const char *name :
             {"precision", "reserve_gib", "plannerDevices", "plannerHeadroom", "plannerRank",
              "moeExperts", "moeDevices", "moeSkew", "speed", "memoryStage"})
            QVERIFY2(std::any_of(checked.cbegin(), checked.cend(),
                                 [name](const QString &c) {
                                     return c.startsWith(QString::fromLatin1(name) + u' ');
                                 }),
                     name);
    }

    // Tab goes through the enabled scenario controls top to bottom, a slider's row at its spin
    // box, as it did before the wheel needed focus.
    void tabReachesTheControlsInOrder()
    {
        ExplorerWindow w;
        showActive(w.window);
        ControlsPanel *panel = w.window.controls();
        const auto target = [](QWidget *row) {
            return row->focusProxy() ? row->focusProxy() : row;
        };
        QList<QWidget *> rows;
        for (QWidget *row : panel->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
            if (row->isEnabled() && row->isVisibleTo(panel) &&
                (target(row)->focusPolicy() & Qt::TabFocus))
                rows << row;
        std::stable_sort(rows.begin(), rows.end(),
                         [](const QWidget *a, const QWidget *b) { return a->y() < b->y(); });
        QVERIFY(rows.size() > 30);
        target(rows.first())->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(target(rows.first())->hasFocus());
        for (qsizetype i = 1; i < rows.size(); ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QVERIFY2(QApplication::focusWidget() == target(rows[i]), qPrintable(nameOf(rows[i])));
        }
    }
};

QTEST_MAIN(TestControlsWheel)
#include "tst_controls_wheel.moc"
