#pragma once

#include <QMainWindow>

class QComboBox;
class QLabel;

namespace ui {

class ScenarioDocument;
class StageMemoryChart;

// The explorer window: choices along the top, the stage-memory chart in the
// middle, the verdict in the status bar. It reads numbers only from the
// document's report.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(ScenarioDocument *document, QWidget *parent = nullptr);

    StageMemoryChart *memoryChart() const { return m_memoryChart; }

private:
    QComboBox *addChoice(const QString &label, const QString &key, const QString &tooltip);
    void refresh();

    ScenarioDocument *m_document;
    QList<QComboBox *> m_choices;
    QLabel *m_summary;
    QLabel *m_problem;
    QLabel *m_verdict;
    StageMemoryChart *m_memoryChart;
    QWidget *m_bar;
};

} // namespace ui
