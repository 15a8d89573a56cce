#pragma once

class QWidget;

namespace ui {

// The mouse wheel over `control` (a combo box, spin box or slider in a scroll area) changes its
// value only while the control has the keyboard focus. Otherwise the control passes the turn on
// to its parents, and the scroll area it is in scrolls: turning the wheel to reach the lower
// controls of a panel no longer edits whichever control passes under the pointer (KDE's System
// Settings and Qt Creator's option pages behave so). Tab and a click still give the control
// focus; the wheel no longer does.
void wheelOnlyWhenFocused(QWidget *control);

} // namespace ui
