#include "ui/widgets/choice_box.h"

#include <QFocusEvent>
#include <QKeyEvent>
#include <QWheelEvent>

namespace ui {

ChoiceBox::ChoiceBox(QWidget *parent) : QComboBox(parent) {}

template <typename Handle> void ChoiceBox::step(Handle handle)
{
    if (!m_lastStep.isValid() || m_lastStep.hasExpired(kBurstPauseMs))
        Q_EMIT burstStarted();
    m_lastStep.start();
    m_stepping = true;
    handle();
    m_stepping = false;
}

void ChoiceBox::keyPressEvent(QKeyEvent *event)
{
    step([&] { QComboBox::keyPressEvent(event); });
}

void ChoiceBox::wheelEvent(QWheelEvent *event)
{
    step([&] { QComboBox::wheelEvent(event); });
}

void ChoiceBox::focusOutEvent(QFocusEvent *event)
{
    // Includes the list popping up: a choice from it is a step of its own.
    m_lastStep.invalidate();
    QComboBox::focusOutEvent(event);
}

} // namespace ui
