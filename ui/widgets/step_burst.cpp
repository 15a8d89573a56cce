#include "ui/widgets/step_burst.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QKeyEvent>

namespace ui {

namespace {

bool isStepKey(const QWidget *control, int key)
{
    // A closed combo box also picks an item by the letters typed; Tab leaves it.
    if (qobject_cast<const QComboBox *>(control))
        return key != Qt::Key_Tab && key != Qt::Key_Backtab;
    // Any other key in a spin box is typing, whose value Enter or leaving the box commits.
    if (qobject_cast<const QAbstractSpinBox *>(control))
        return key == Qt::Key_Up || key == Qt::Key_Down || key == Qt::Key_PageUp ||
               key == Qt::Key_PageDown;
    if (qobject_cast<const QAbstractSlider *>(control))
        return key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Up ||
               key == Qt::Key_Down || key == Qt::Key_PageUp || key == Qt::Key_PageDown ||
               key == Qt::Key_Home || key == Qt::Key_End;
    return false;
}

qint64 steadyClock()
{
    static const QElapsedTimer started = [] {
        QElapsedTimer timer;
        timer.start();
        return timer;
    }();
    return started.elapsed();
}

StepBurst::Clock g_clock = &steadyClock;

} // namespace

void StepBurst::setClock(Clock clock)
{
    g_clock = clock ? clock : &steadyClock;
}

bool StepBurst::isStep(const QWidget *control, const QEvent *event)
{
    switch (event->type()) {
    case QEvent::KeyPress:
        return isStepKey(control, static_cast<const QKeyEvent *>(event)->key());
    case QEvent::Wheel:
        return true;
    // A spin box's text field takes the presses on it: those that reach the box are on its
    // arrow buttons. Its timers repeat a step while an arrow button or key is held.
    case QEvent::MouseButtonPress:
    case QEvent::Timer:
        return qobject_cast<const QAbstractSpinBox *>(control) != nullptr;
    default:
        return false;
    }
}

void StepBurst::begin(const QWidget *control)
{
    const qint64 now = g_clock();
    if (control != m_control || !m_lastStep || now - *m_lastStep > kPauseMs) {
        m_control = control;
        Q_EMIT started();
    }
    m_lastStep = now;
}

void StepBurst::end(const QWidget *control)
{
    // Includes a combo box's list popping up: a choice from it is a step of its own.
    if (control == m_control)
        m_lastStep.reset();
}

} // namespace ui
