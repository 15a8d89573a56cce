#pragma once

// What the window's tests do to it, as a user would, through its real widgets: open it,
// set a field, find a control or a menu, drag a slider, choose in a combo box, turn the
// wheel.
#include "io/presets_io.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QApplication>
#include <QComboBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTest>
#include <QWheelEvent>
#include <QtTest/qtestspontaneevent.h>

// The document and the window over it, as the program makes them, with the built-in presets.
struct ExplorerWindow
{
    ui::ScenarioDocument document{io::builtinPresets()};
    ui::MainWindow window{&document};
};

// Shows the window and makes it the active one, so that it takes keys and shortcuts.
inline void showActive(QWidget &window)
{
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
}

// Sets a field as a control does, and evaluates at once instead of on the next turn of the
// event loop.
inline void setAndEvaluate(ui::ScenarioDocument &document, const char *key, const char *value)
{
    QVERIFY(document.setField(QString::fromLatin1(key), QString::fromLatin1(value)));
    document.flush();
}

// The scenario dock's control for `key`, as the widget it is; null when it is not one.
template <typename T> T *control(ui::MainWindow &window, const QString &key)
{
    return qobject_cast<T *>(window.controls()->control(key));
}

// The window's menu titled `title` as the menu bar shows it ("&View"), or null.
inline QMenu *menuTitled(QMainWindow &window, const QString &title)
{
    for (QAction *menu : window.menuBar()->actions())
        if (menu->text() == title)
            return menu->menu();
    return nullptr;
}

// Drags a slider's handle with the mouse to `fraction` of its groove, in `moves` moves.
inline void dragSlider(QSlider *slider, double fraction, int moves = 8)
{
    QStyleOptionSlider option;
    option.initFrom(slider);
    option.orientation = slider->orientation();
    option.minimum = slider->minimum();
    option.maximum = slider->maximum();
    option.sliderPosition = slider->sliderPosition();
    option.sliderValue = slider->value();
    const QRect handle = slider->style()->subControlRect(QStyle::CC_Slider, &option,
                                                         QStyle::SC_SliderHandle, slider);
    const QPoint start = handle.center();
    const int span = slider->width() - handle.width();
    const QPoint end(handle.width() / 2 + int(span * fraction), start.y());
    QTest::mousePress(slider, Qt::LeftButton, {}, start);
    for (int i = 1; i <= moves; ++i)
        QTest::mouseMove(slider, start + (end - start) * i / moves);
    QTest::mouseRelease(slider, Qt::LeftButton, {}, end);
}

// Arrow keys on the closed combo box, one item at a time, until item `index` is current.
inline void chooseWithKeys(QComboBox *combo, int index)
{
    combo->setFocus();
    while (combo->currentIndex() != index)
        QTest::keyClick(combo, combo->currentIndex() < index ? Qt::Key_Down : Qt::Key_Up);
}

// The mouse wheel turned by `angle` eighths of a degree (120 a notch; up is positive) at
// `at`, in the widget's coordinates.
inline void turnWheel(QWidget *widget, QPointF at, int angle)
{
    QWheelEvent event(at, widget->mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

// The mouse wheel turned by `angle` with the pointer at `at` on `widget`, as the platform
// delivers it: to the innermost widget there, marked spontaneous. Only then does Qt give focus to
// a control that takes it from the wheel, and offer an ignored turn to the parents, up to the
// scroll area; it does neither for turnWheel's synthesized event (QApplication::notify,
// "Synthesized events shouldn't propagate").
inline void turnWheelFromMouse(QWidget *widget, QPoint at, int angle)
{
    QWidget *under = widget->childAt(at);
    if (!under)
        under = widget;
    const QPointF local = under->mapFrom(widget, QPointF(at));
    QWheelEvent event(local, under->mapToGlobal(local), QPoint(), QPoint(0, angle), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    // As QTest delivers its key and mouse events: sendEvent() would clear the mark.
    QSpontaneKeyEvent::setSpontaneous(&event);
    QApplication::instance()->notify(under, &event);
}
