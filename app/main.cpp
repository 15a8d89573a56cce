// parascope: the window, or a headless subcommand (DESIGN §4).
#include "app/cli.h"
#include "app/export_command.h"
#include "ui/application.h"

#include <QApplication>
#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    // export draws the window's charts: widgets need a QApplication, and without a
    // display the offscreen platform serves.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("export")) {
        if (!qEnvironmentVariableIsSet("DISPLAY") &&
            !qEnvironmentVariableIsSet("WAYLAND_DISPLAY") &&
            !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        QApplication::setApplicationName(QStringLiteral("parascope"));
        QApplication::setOrganizationName(QStringLiteral("Parascope"));
        arguments.removeAt(1);
        return cli::runExport(arguments);
    }
    // Subcommands, --help and --version never need a display.
    if (arguments.size() > 1 &&
        (cli::isCommand(arguments.at(1)) || cli::isInformational(arguments))) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("parascope"));
        QCoreApplication::setOrganizationName(QStringLiteral("Parascope"));
        return cli::run(arguments);
    }
    return ui::runApplication(argc, argv);
}
