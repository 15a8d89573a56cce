#pragma once

#include <QStringList>
#include <span>

namespace cli {

// Exit statuses (docs/DESIGN.md §4).
enum Exit
{
    ok = 0,
    doesNotFit = 1,
    invalidInput = 2
};

// A headless command: the row that `parascope --help` lists it from and that
// main() dispatches on. `run` gets the arguments after the command's name, the
// first being how it was invoked ("parascope eval").
struct Command
{
    const char *name;
    const char *summary; // one line, in `parascope --help`
    int (*run)(const QStringList &arguments);
    bool drawsWidgets; // needs a QApplication (the offscreen platform serves)
};

// The command that `arguments` (the program first) name, if any.
const Command *findCommand(std::span<const Command> commands, const QStringList &arguments);

// Runs `command` on `arguments` (the program first, then the command's name).
// Needs a QCoreApplication. Output goes to stdout, errors as one line to stderr.
int run(const Command &command, const QStringList &arguments);

// Whether the arguments ask only for help or the version, which never needs a display.
bool isInformational(const QStringList &arguments);

// `parascope --help` (the window's options, then `commands`) or --version.
int runInformational(const QStringList &arguments, std::span<const Command> commands);

int runEval(const QStringList &arguments);
int runPresets(const QStringList &arguments);

} // namespace cli
