#include "ui/application.h"

#include "core/validate.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/text.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/units.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
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

// After the first start, the window comes back with the scenario it closed
// on, and knows whether that still matches its file.
void restoreSession(ScenarioDocument &document, const Settings &settings)
{
    const QByteArray json = settings.lastScenario();
    core::Scenario scenario;
    if (json.isEmpty() || io::readScenario(json, scenario) ||
        core::validate(scenario, document.presets()))
        return; // first start, or a session that no longer reads: the default scenario
    const QString path = settings.lastFile();
    core::Scenario onDisk;
    const bool hasFile =
        !path.isEmpty() && QFileInfo::exists(path) && !io::readScenarioFile(path, onDisk);
    document.adopt(scenario, hasFile ? path : QString(), hasFile && !(onDisk == scenario));
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
    Settings settings;
    units::setCurrent(settings.sizesInGib() ? io::SizeUnit::gib : io::SizeUnit::gb);
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) {
        if (auto reason = document.open(files.constFirst())) {
            QTextStream(stderr) << "parascope: " << *reason << Qt::endl;
            return 2;
        }
        settings.addRecentFile(QFileInfo(files.constFirst()).absoluteFilePath());
    } else {
        restoreSession(document, settings);
    }

    MainWindow window(&document);
    window.restoreGeometry(settings.windowGeometry());
    window.restoreState(settings.windowState());
    window.show();
    return QApplication::exec();
}

} // namespace ui
