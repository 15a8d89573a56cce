#include "ui/config_actions.h"

#include "core/framework.h"
#include "io/framework_config.h"
#include "io/input_file.h"
#include "io/presets_io.h"
#include "io/text.h"
#include "ui/scenario_document.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenu>
#include <QMessageBox>

namespace ui {

ConfigActions::ConfigActions(ScenarioDocument *document, QWidget *window)
    : QObject(window), m_document(document), m_window(window),
      m_import(new QAction(tr("&Import…"), this))
{
    m_import->setShortcut(QKeySequence(tr("Ctrl+I")));
    m_import->setToolTip(tr("Read a Hugging Face config.json (a model), a torchtitan TOML, a "
                            "Megatron-LM launch script or a DeepSpeed config into the scenario; "
                            "you can also drop the file on the window."));
    connect(m_import, &QAction::triggered, this, &ConfigActions::chooseAndImport);
}

void ConfigActions::addImportTo(QMenu *menu)
{
    menu->addAction(m_import);
}

void ConfigActions::addCopyTo(QMenu *menu)
{
    const struct
    {
        core::Framework framework;
        QString text;
        QString tip;
    } entries[]{
        {core::Framework::megatron, tr("Copy as &Megatron-LM arguments"),
         tr("The layout as pretrain_gpt.py's command-line arguments.")},
        {core::Framework::torchtitan, tr("Copy as &torchtitan TOML"),
         tr("The layout as a torchtitan job file.")},
        {core::Framework::deepspeed, tr("Copy as &DeepSpeed config"),
         tr("The layout's batch, ZeRO and precision as a DeepSpeed config JSON.")},
    };
    for (const auto &entry : entries) {
        QAction *action = menu->addAction(entry.text);
        action->setToolTip(entry.tip + tr(" Comment lines name what the framework has no "
                                          "setting for."));
        const core::Framework framework = entry.framework;
        connect(action, &QAction::triggered, this, [this, framework] {
            if (auto reason =
                    copyAs(m_document->lastValidScenario(), m_document->presets(), framework))
                QMessageBox::warning(m_window, tr("Cannot copy"), *reason);
        });
    }
}

std::optional<QString> ConfigActions::configText(const core::Scenario &scenario,
                                                 const core::Presets &presets,
                                                 core::Framework framework, QString &text)
{
    auto result = io::emitConfig(scenario, presets, framework);
    if (auto *error = std::get_if<core::InputError>(&result))
        return io::qs(error->toString());
    text = io::qs(std::get<std::string>(result));
    return std::nullopt;
}

std::optional<QString> ConfigActions::copyAs(const core::Scenario &scenario,
                                             const core::Presets &presets,
                                             core::Framework framework)
{
    QString text;
    if (auto reason = configText(scenario, presets, framework, text))
        return reason;
    QGuiApplication::clipboard()->setText(text);
    return std::nullopt;
}

std::optional<QString> ConfigActions::importFile(const QString &path, const QString &presetsFile)
{
    QByteArray content;
    if (auto e = io::readInputFile(path, content))
        return io::qs(e->toString());
    io::ImportOptions options;
    options.fileName = io::ss(QFileInfo(path).fileName());
    auto result = io::importConfig(content, m_document->scenario(), m_document->presets(), options);
    if (auto *error = std::get_if<core::InputError>(&result))
        return io::qs(error->toString());
    const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);
    core::Scenario scenario = imported.scenario.value_or(m_document->scenario());
    if (imported.model) {
        // Inline, so the scenario evaluates now; in the presets file, so the model is in the
        // Model list from the next start.
        scenario.model = imported.model->id;
        scenario.customModel = *imported.model;
        const QString file = presetsFile.isEmpty() ? io::userPresetsPath() : presetsFile;
        if (auto e = io::addModelToPresetsFile(*imported.model, file))
            return tr("the model was not added to %1: %2")
                .arg(QDir::toNativeSeparators(file), io::qs(e->toString()));
    }
    m_lastSummary = io::qs(io::importSummary(imported));
    m_lastHeadline =
        tr("%1 settings read, %2 ignored.").arg(imported.read.size()).arg(imported.ignored.size());
    if (imported.model)
        m_lastHeadline +=
            QLatin1Char(' ') + tr("Model %1 (%2 parameters) added to your presets.")
                                   .arg(io::qs(imported.model->name),
                                        io::formatCount(core::exactParams(*imported.model)));
    m_document->setScenario(scenario, tr("Import %1").arg(QFileInfo(path).fileName()));
    return std::nullopt;
}

void ConfigActions::chooseAndImport()
{
    const QString path = QFileDialog::getOpenFileName(
        m_window, tr("Import a framework's file"), QFileInfo(m_document->filePath()).absolutePath(),
        tr("Framework files (*.json *.toml *.sh *.txt *.args);;All files (*)"));
    if (path.isEmpty())
        return;
    if (auto reason = importFile(path)) {
        QMessageBox::warning(m_window, tr("Cannot import"),
                             tr("%1 was not imported; the scenario is unchanged.\n\n%2")
                                 .arg(QDir::toNativeSeparators(path), *reason));
        return;
    }
    QMessageBox box(QMessageBox::Information, tr("Imported"),
                    tr("%1 was read into the scenario (Edit → Undo takes it back).\n\n%2 "
                       "Show Details lists every setting, what was ignored and why, and what "
                       "the file does not say.")
                        .arg(QDir::toNativeSeparators(path), m_lastHeadline),
                    QMessageBox::Ok, m_window);
    box.setDetailedText(m_lastSummary);
    box.exec();
}

} // namespace ui
