#include "ui/widgets/dock_toggle.h"

#include <QDockWidget>

namespace ui {

DockToggle::DockToggle(QDockWidget *dock, QObject *parent) : QAction(parent), m_dock(dock)
{
    // The dock's own action knows its title (with '&' escaped), whether it may be closed, and
    // whether it is open: this one follows it.
    QAction *own = dock->toggleViewAction();
    setText(own->text());
    setCheckable(true);
    setChecked(own->isChecked());
    setEnabled(own->isEnabled());
    setMenuRole(QAction::NoRole);
    connect(own, &QAction::changed, this, [this, own] { setText(own->text()); });
    connect(own, &QAction::enabledChanged, this, &QAction::setEnabled);
    connect(own, &QAction::toggled, this, &QAction::setChecked);
    connect(this, &QAction::triggered, this, &DockToggle::toggle);
}

bool DockToggle::isInSight(const QDockWidget *dock)
{
    if (dock->isHidden())
        return false;
    // Nothing is in sight before the window is shown: then the toggle only opens and closes.
    if (!dock->window()->isVisible())
        return true;
    // A dock behind another tab stays "visible" to Qt, moved out of its window's area.
    return !dock->visibleRegion().isEmpty();
}

void DockToggle::toggle()
{
    if (isInSight(m_dock)) {
        m_dock->close();
    } else {
        m_dock->show();
        m_dock->raise();
        Q_EMIT broughtForward();
    }
    // Triggering flipped the check mark; the dock's state decides it.
    setChecked(!m_dock->isHidden());
}

} // namespace ui
