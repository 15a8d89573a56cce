// parascope: the window, or a headless subcommand (DESIGN §4).
#include "app/cli.h"
#include "ui/application.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

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
