// parascope: the window, or a headless subcommand (docs/DESIGN.md §4).
#include "app/cli.h"
#include "app/export_command.h"
#include "app/import_command.h"
#include "app/plan_command.h"
#include "app/shard_command.h"
#include "ui/application.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>

namespace {

// The headless commands, in the order `parascope --help` lists them.
const cli::Command kCommands[]{
    {"eval", "Whether a scenario fits: memory per pipeline stage, and the step time.", cli::runEval,
     false},
    {"plan", "Rank the parallel layouts of a model on N devices by step time.", cli::runPlan,
     false},
    {"presets", "List the model and device presets.", cli::runPresets, false},
    {"import", "Read a config.json, torchtitan TOML, Megatron-LM arguments or DeepSpeed config.",
     cli::runImport, false},
    {"shard", "Split the feed-forward block over T devices four ways and check each split.",
     cli::runShard, false},
    {"export", "Render the window's charts to PNG or SVG files.", cli::runExport, true},
};

// Without XDG_RUNTIME_DIR (a container, a cron job) Qt picks /tmp/runtime-<user> and warns
// on every run; pick the same owner-only folder here, so a headless export prints only
// its own messages.
void useRuntimeFolder()
{
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    const QString user = qEnvironmentVariable("USER", QStringLiteral("parascope"));
    const QString path = QDir::tempPath() + QStringLiteral("/runtime-") + user;
    if (!QDir().mkpath(path) ||
        !QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
        return; // Qt says why itself
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(path));
}

} // namespace

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    const cli::Command *command = cli::findCommand(kCommands, arguments);
    // export draws the window's charts: widgets need a QApplication, and without a
    // display the offscreen platform serves.
    if (command && command->drawsWidgets) {
        if (!qEnvironmentVariableIsSet("DISPLAY") &&
            !qEnvironmentVariableIsSet("WAYLAND_DISPLAY") &&
            !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        useRuntimeFolder();
        QApplication app(argc, argv);
        QApplication::setApplicationName(QStringLiteral("parascope"));
        QApplication::setOrganizationName(QStringLiteral("Parascope"));
        return cli::run(*command, arguments);
    }
    // Subcommands, --help and --version never need a display.
    if (command || cli::isInformational(arguments)) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("parascope"));
        QCoreApplication::setOrganizationName(QStringLiteral("Parascope"));
        return command ? cli::run(*command, arguments)
                       : cli::runInformational(arguments, kCommands);
    }
    return ui::runApplication(argc, argv);
}
