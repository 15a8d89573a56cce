#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

// The command-line inputs that the window and the headless commands both read,
// declared once so that `parascope --help` and each command's help agree.
namespace io {

// --presets FILE: extra model and device presets, as io::loadPresets reads them.
QCommandLineOption presetsOption();

// What `parascope [options] [SCENARIO]` takes to open the window.
struct WindowOptions
{
    QCommandLineOption presets = presetsOption();

    // Adds --presets and the optional [SCENARIO] argument.
    void addTo(QCommandLineParser &parser) const;
};

} // namespace io
