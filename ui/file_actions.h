#pragma once

#include <QObject>

class QAction;
class QMenu;
class QWidget;

namespace ui {

class ScenarioDocument;

// File → New, Open, Open Recent, Save, Save As for the document, with the
// dialogs and messages they need. Errors are shown, never swallowed; a file
// that cannot be read leaves the current scenario as it was.
class FileActions : public QObject
{
    Q_OBJECT

public:
    FileActions(ScenarioDocument *document, QWidget *window);

    void addTo(QMenu *menu);

    // Opens `path`, telling the user why not on failure.
    bool open(const QString &path);
    // The message box open() shows when `path` cannot be opened, naming the file
    // and, in `reason`, the key.
    void showNotOpened(const QString &path, const QString &reason);
    bool save();
    bool saveAs();
    // Asks to save unsaved changes. False when the user cancels.
    bool maybeSave();

    static QString fileFilter();

private:
    void updateRecentMenu();
    bool saveTo(const QString &path);

    ScenarioDocument *m_document;
    QWidget *m_window;
    QAction *m_new;
    QAction *m_open;
    QAction *m_save;
    QAction *m_saveAs;
    QMenu *m_recent;
};

} // namespace ui
