#pragma once

namespace ui {

// Opens the window (on the scenario file given as the first positional
// argument, if any) and runs the event loop. Without a display it explains
// how to run headless instead and returns 1.
int runApplication(int argc, char *argv[]);

} // namespace ui
