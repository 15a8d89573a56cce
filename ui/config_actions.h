#pragma once

#include "core/scenario.h"

#include <QObject>
#include <QString>
#include <optional>

class QAction;
class QMenu;
class QWidget;

namespace ui {

class ScenarioDocument;

// The frameworks' own files in the window (docs/import.md): File → Import… (and a file
// dropped on the window) reads a Hugging Face config.json, a torchtitan TOML, a Megatron-LM
// argument list or a DeepSpeed config into the scenario as one undoable step; Edit → Copy as
// … puts the layout on the clipboard as that framework's launch arguments or config.
class ConfigActions : public QObject
{
    Q_OBJECT

public:
    ConfigActions(ScenarioDocument *document, QWidget *window);

    void addImportTo(QMenu *menu);
    void addCopyTo(QMenu *menu);
    QAction *importAction() const { return m_import; }

    // Imports `path` into the document. An imported model is inlined in the scenario and
    // added to the user's presets file (`presetsFile`, the user's by default). Returns the
    // reason when the file is refused; the scenario is then unchanged. Shows nothing.
    std::optional<QString> importFile(const QString &path, const QString &presetsFile = {});
    // What the last import read, ignored and assumed, as importSummary writes it.
    QString lastSummary() const { return m_lastSummary; }
    // One sentence on it: what was read and ignored, and the model it added.
    QString lastHeadline() const { return m_lastHeadline; }

    // `scenario`'s layout as the framework's file, or the reason it cannot be written.
    static std::optional<QString> configText(const core::Scenario &scenario,
                                             const core::Presets &presets,
                                             core::Framework framework, QString &text);
    // Puts that text on the clipboard; the reason on failure.
    static std::optional<QString> copyAs(const core::Scenario &scenario,
                                         const core::Presets &presets, core::Framework framework);

private:
    void chooseAndImport();

    ScenarioDocument *m_document;
    QWidget *m_window;
    QAction *m_import;
    QString m_lastSummary;
    QString m_lastHeadline;
};

} // namespace ui
