#pragma once

#include <QDialog>

class QTextBrowser;

namespace ui {

class ScenarioDocument;

// Help → Formulas & sources: every formula Parascope uses, with the current
// scenario's numbers where it has them, and where each comes from.
class SourcesDialog : public QDialog
{
    Q_OBJECT

public:
    explicit SourcesDialog(const ScenarioDocument *document, QWidget *parent = nullptr);

    QString text() const;

private:
    QTextBrowser *m_browser;
};

} // namespace ui
