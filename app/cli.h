#pragma once

#include <QStringList>

namespace cli {

// Exit statuses (DESIGN §4).
enum Exit
{
    ok = 0,
    doesNotFit = 1,
    invalidInput = 2
};

// Whether `argument` names a headless subcommand ("eval", "presets").
bool isCommand(const QString &argument);

// Whether the arguments ask only for help or the version, which never needs a display.
bool isInformational(const QStringList &arguments);

// Runs a headless subcommand, or --help / --version. Needs a QCoreApplication.
// Output goes to stdout, errors as one line to stderr.
int run(const QStringList &arguments);

} // namespace cli
