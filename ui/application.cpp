#include "ui/application.h"

#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTextStream>
#include <cstdlib>

namespace ui {

namespace {

bool hasDisplay()
{
    return qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
           qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
}

} // namespace

int runApplication(int argc, char *argv[])
{
    if (!hasDisplay()) {
        QTextStream err(stderr);
        err << "parascope: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the "
               "window cannot open.\n"
               "Run headless instead, for example:\n"
               "  parascope eval --set model=llama-3.1-70b --set tp=4 --format text\n"
               "  parascope presets\n"
               "or give the window a virtual display: xvfb-run -a parascope\n";
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("parascope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Parascope"));
    QApplication::setOrganizationName(QStringLiteral("Parascope"));

    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QStringLiteral("A .parascope.json scenario file to open."),
                                 QStringLiteral("[SCENARIO]"));
    QCommandLineOption presetsOption(QStringLiteral("presets"),
                                     QStringLiteral("Extra model/device presets (JSON)."),
                                     QStringLiteral("FILE"));
    parser.addOption(presetsOption);
    if (!parser.parse(QApplication::arguments())) {
        QTextStream(stderr) << "parascope: " << parser.errorText() << Qt::endl;
        return 2;
    }

    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsOption))) {
        QTextStream(stderr) << "parascope: " << io::qs(e->toString()) << Qt::endl;
        return 2;
    }
    ScenarioDocument document(std::move(presets));
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) {
        core::Scenario scenario;
        if (auto e = io::readScenarioFile(files.constFirst(), scenario)) {
            QTextStream(stderr) << "parascope: " << io::qs(e->toString()) << Qt::endl;
            return 2;
        }
        document.reset(scenario);
    }

    MainWindow window(&document);
    window.show();
    return QApplication::exec();
}

} // namespace ui
