#pragma once

#include "core/error.h"
#include "core/scenario.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

// What every headless subcommand shares: errors, --help / --version, and
// reading a scenario from [SCENARIO] and --set.
namespace cli {

// One line on stderr, "parascope: KEY: message" (docs/DESIGN.md §4), with control characters
// escaped so that no input reaches the terminal raw; returns exit status 2.
int fail(const QString &key, const QString &message);
int fail(const core::InputError &error);

// --help and --version, added to a parser.
struct StandardOptions
{
    QCommandLineOption help{{QStringLiteral("h"), QStringLiteral("help")},
                            QStringLiteral("Show this help.")};
    QCommandLineOption version{{QStringLiteral("v"), QStringLiteral("version")},
                               QStringLiteral("Show the version.")};

    void addTo(QCommandLineParser &parser) const;
};

// The options several commands take, each declared here once.
// --set KEY=VALUE (repeatable); `more` follows the shared help.
QCommandLineOption setOption(const QString &more = {});
// --format text|json, text by default; read it with `isJson`.
QCommandLineOption formatOption();

// Parses and answers --help (the parser's help with `arguments`' first
// element in its usage line, then `extraHelp`) and --version. Returns -1 to go
// on, else the exit status.
int parseStandard(QCommandLineParser &parser, const StandardOptions &options,
                  const QStringList &arguments, const QString &extraHelp = {});

// Whether --format asks for JSON; refuses a format other than text or json.
// Returns -1 to go on, else the exit status.
int isJson(const QCommandLineParser &parser, const QCommandLineOption &format, bool &json);

// The scenario of [SCENARIO] (at most one file; the default scenario without
// one) with every --set KEY=VALUE applied. Returns -1 to go on, else the exit status.
int readScenario(const QCommandLineParser &parser, const QCommandLineOption &set,
                 core::Scenario &scenario);

// A refusal of the scenario read from `file` with --set applied, naming the file
// unless a --set gave the key refused.
core::InputError fromScenario(core::InputError error, const QString &file,
                              const QStringList &assignments);

} // namespace cli
