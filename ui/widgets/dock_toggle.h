#pragma once

#include <QAction>

class QDockWidget;

namespace ui {

// View → <dock>: like QDockWidget::toggleViewAction, except that a dock that is open but out
// of sight (behind another tab of its group) is brought forward instead of closed. Checked
// while the dock is open, whether in front or not.
class DockToggle : public QAction
{
    Q_OBJECT

public:
    explicit DockToggle(QDockWidget *dock, QObject *parent = nullptr);

    QDockWidget *dock() const { return m_dock; }

    // Whether the user can see the dock: open, in its window, and the front tab of its group.
    static bool isInSight(const QDockWidget *dock);

Q_SIGNALS:
    // The action opened the dock or brought it forward.
    void broughtForward();

private:
    void toggle();

    QDockWidget *m_dock;
};

} // namespace ui
