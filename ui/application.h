#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

namespace ui {

class MainWindow;
class ScenarioDocument;

// Opens the window (on the scenario file given as the first positional
// argument, if any) and runs the event loop. Without a display it explains
// how to run headless instead and returns 1.
int runApplication(int argc, char *argv[]);

// The document and its window, as `parascope [SCENARIO] [--presets FILE]`
// opens them.
struct StartedWindow
{
    std::unique_ptr<ScenarioDocument> document;
    std::unique_ptr<MainWindow> window; // destroyed before the document it shows
};

// Reads the presets and the scenario that `arguments` (the program's name
// first) name, and shows the window. A file that cannot be read never keeps
// the window from opening, since a double-click in a file manager has no
// terminal to read an error in: the window opens without it (on the default
// scenario, or without those presets) and, once it is on screen, says why in a
// message box that names the file and the key; for a scenario, the one File →
// Open shows. Returns nothing, with the parser's message in `error`, only when
// the arguments themselves cannot be parsed.
std::optional<StartedWindow> startWindow(const QStringList &arguments, QString &error);

} // namespace ui
