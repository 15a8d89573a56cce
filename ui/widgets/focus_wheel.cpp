#include "ui/widgets/focus_wheel.h"

#include <QEvent>
#include <QWidget>

namespace ui {

namespace {

class UnfocusedWheelFilter : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::Wheel || static_cast<QWidget *>(watched)->hasFocus())
            return QObject::eventFilter(watched, event);
        // Filtered and ignored: QApplication offers the turn to the parents in turn, up to the
        // scroll area's viewport (QApplication::notify, QEvent::Wheel).
        event->ignore();
        return true;
    }
};

} // namespace

void wheelOnlyWhenFocused(QWidget *control)
{
    // The wheel would otherwise focus the control before the filter sees the turn.
    if (control->focusPolicy() == Qt::WheelFocus)
        control->setFocusPolicy(Qt::StrongFocus);
    control->installEventFilter(new UnfocusedWheelFilter(control));
}

} // namespace ui
