#include "ui/file_actions.h"

#include "ui/scenario_document.h"
#include "ui/settings.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

namespace ui {

FileActions::FileActions(ScenarioDocument *document, QWidget *window)
    : QObject(window), m_document(document), m_window(window), m_new(new QAction(tr("&New"), this)),
      m_open(new QAction(tr("&Open…"), this)), m_save(new QAction(tr("&Save"), this)),
      m_saveAs(new QAction(tr("Save &As…"), this)), m_recent(new QMenu(tr("Open &Recent"), window))
{
    m_new->setShortcut(QKeySequence::New);
    m_new->setToolTip(tr("Start again from the default scenario."));
    m_open->setShortcut(QKeySequence::Open);
    m_save->setShortcut(QKeySequence::Save);
    m_saveAs->setShortcut(QKeySequence::SaveAs);

    connect(m_new, &QAction::triggered, this, [this] {
        if (maybeSave())
            m_document->adopt(core::Scenario{}, QString(), false);
    });
    connect(m_open, &QAction::triggered, this, [this] {
        if (!maybeSave())
            return;
        const QString dir = QFileInfo(m_document->filePath()).absolutePath();
        const QString path =
            QFileDialog::getOpenFileName(m_window, tr("Open scenario"), dir, fileFilter());
        if (!path.isEmpty())
            open(path);
    });
    connect(m_save, &QAction::triggered, this, &FileActions::save);
    connect(m_saveAs, &QAction::triggered, this, &FileActions::saveAs);
    connect(m_recent, &QMenu::aboutToShow, this, &FileActions::updateRecentMenu);
}

QString FileActions::fileFilter()
{
    return tr("Parascope scenarios (*.parascope.json);;JSON files (*.json);;All files (*)");
}

void FileActions::addTo(QMenu *menu)
{
    menu->addAction(m_new);
    menu->addAction(m_open);
    menu->addMenu(m_recent);
    menu->addSeparator();
    menu->addAction(m_save);
    menu->addAction(m_saveAs);
}

bool FileActions::open(const QString &path)
{
    if (auto reason = m_document->open(path)) {
        showNotOpened(path, *reason);
        return false;
    }
    Settings().addRecentFile(QFileInfo(path).absoluteFilePath());
    return true;
}

void FileActions::showNotOpened(const QString &path, const QString &reason)
{
    QMessageBox::warning(m_window, tr("Cannot open scenario"),
                         tr("%1 was not opened; the current scenario is unchanged.\n\n%2")
                             .arg(QDir::toNativeSeparators(path), reason));
}

bool FileActions::save()
{
    return m_document->filePath().isEmpty() ? saveAs() : saveTo(m_document->filePath());
}

bool FileActions::saveAs()
{
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scenario"),
                                                m_document->filePath(), fileFilter());
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json")))
        path += QStringLiteral(".parascope.json");
    return saveTo(path);
}

bool FileActions::saveTo(const QString &path)
{
    if (auto reason = m_document->save(path)) {
        QMessageBox::warning(m_window, tr("Cannot save scenario"),
                             tr("%1 was not saved; any earlier version of it is intact.\n\n%2")
                                 .arg(QDir::toNativeSeparators(path), *reason));
        return false;
    }
    Settings().addRecentFile(QFileInfo(path).absoluteFilePath());
    return true;
}

bool FileActions::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::question(
        m_window, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void FileActions::updateRecentMenu()
{
    m_recent->clear();
    const QStringList files = Settings().recentFiles();
    for (const QString &path : files) {
        QAction *action = m_recent->addAction(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] {
            if (maybeSave())
                open(path);
        });
    }
    if (files.isEmpty())
        m_recent->addAction(tr("No recent scenarios"))->setEnabled(false);
}

} // namespace ui
