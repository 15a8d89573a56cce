#pragma once

#include <QStringList>

namespace cli {

// `parascope export`: renders charts to PNG or SVG files without a window
// (docs/DESIGN.md §4), through the same function as the window's File →
// Export. Needs a QApplication (the offscreen platform will do). `arguments`
// start with the program name, without the subcommand. Returns the exit status.
int runExport(const QStringList &arguments);

} // namespace cli
