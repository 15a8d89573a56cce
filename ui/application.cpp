#include "ui/application.h"

#include "core/validate.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/shared_options.h"
#include "io/text.h"
#include "ui/file_actions.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/units.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QTextStream>
#include <QTimer>
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

// A file the window opened without, and why.
struct Unread
{
    QString path;
    QString reason;
};

// The built-in presets, the user's presets.json and `--presets FILE`, as
// io::loadPresets reads them; when one of the files is refused, the presets
// without it (each file adds all of its entries or none).
core::Presets readPresets(const QString &extraFile, QList<Unread> &unread)
{
    core::Presets presets;
    if (!io::loadPresets(presets, extraFile))
        return presets;
    presets = io::builtinPresets();
    QStringList files;
    if (QFileInfo::exists(io::userPresetsPath()))
        files << io::userPresetsPath();
    if (!extraFile.isEmpty())
        files << extraFile;
    for (const QString &file : std::as_const(files))
        if (auto e = io::mergePresetsFile(presets, file))
            unread.append({file, io::qs(e->toString())});
    return presets;
}

void showPresetsNotRead(QWidget *window, const Unread &file)
{
    QMessageBox::warning(window, QObject::tr("Cannot read presets"),
                         QObject::tr("%1 was not read; the window opens without the "
                                     "models and devices in it.\n\n%2")
                             .arg(QDir::toNativeSeparators(file.path), file.reason));
}

} // namespace

std::optional<StartedWindow> startWindow(const QStringList &arguments, QString &error)
{
    QCommandLineParser parser;
    const io::WindowOptions options;
    options.addTo(parser);
    if (!parser.parse(arguments)) {
        error = parser.errorText();
        return std::nullopt;
    }

    QList<Unread> presetsNotRead;
    StartedWindow started;
    started.document = std::make_unique<ScenarioDocument>(
        readPresets(parser.value(options.presets), presetsNotRead));
    ScenarioDocument &document = *started.document;
    Settings settings;
    units::setCurrent(settings.sizesInGib() ? io::SizeUnit::gib : io::SizeUnit::gb);
    const QStringList files = parser.positionalArguments();
    std::optional<Unread> scenarioNotRead;
    if (!files.isEmpty()) {
        const QString &path = files.constFirst();
        if (auto reason = document.open(path))
            scenarioNotRead = Unread{path, *reason};
        else
            settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    } else {
        restoreSession(document, settings);
    }

    started.window = std::make_unique<MainWindow>(&document);
    MainWindow *window = started.window.get();
    window->restoreLayout(settings.windowGeometry(), settings.windowState());
    window->show();
    // Once the window is on screen, so that the message sits over it.
    if (!presetsNotRead.isEmpty() || scenarioNotRead)
        QTimer::singleShot(0, window, [window, presetsNotRead, scenarioNotRead] {
            for (const Unread &file : presetsNotRead)
                showPresetsNotRead(window, file);
            if (scenarioNotRead)
                window->fileActions()->showNotOpened(scenarioNotRead->path,
                                                     scenarioNotRead->reason);
        });
    return started;
}

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

    QString error;
    const auto started = startWindow(QApplication::arguments(), error);
    if (!started) {
        QTextStream(stderr) << "parascope: " << error << Qt::endl;
        return 2;
    }
    return QApplication::exec();
}

} // namespace ui
