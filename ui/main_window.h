#pragma once

#include "core/report.h"
#include "core/sharding.h"

#include <QList>
#include <QMainWindow>
#include <QSet>
#include <optional>

class QAction;
class QDockWidget;
class QFrame;
class QScrollArea;
class QLabel;
class QTabWidget;

namespace ui {

class BubbleChart;
class ControlsPanel;
class DockToggle;
class FormulaPanel;
class ShardingChart;
class FileActions;
class ModelSizeChart;
class PlannerPanel;
class ScenarioDocument;
class StageMemoryChart;
class TimelinePanel;

// The explorer window: the controls dock on the left, the charts in tabs, a
// note for problems and warnings, the verdict in the status bar. It reads
// numbers only from the document's report.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(ScenarioDocument *document, QWidget *parent = nullptr);

    ControlsPanel *controls() const { return m_controls; }
    StageMemoryChart *memoryChart() const { return m_memoryChart; }
    ModelSizeChart *modelSizeChart() const { return m_modelSizeChart; }
    BubbleChart *bubbleChart() const { return m_bubbleChart; }
    ShardingChart *shardingChart() const { return m_shardingChart; }
    FormulaPanel *formulas() const { return m_formulas; }
    TimelinePanel *timelinePanel() const { return m_timeline; }
    // The Planner dock (View → Planner, Ctrl+Shift+P): hidden until asked for.
    PlannerPanel *planner() const { return m_planner; }
    QDockWidget *plannerDock() const { return m_plannerDock; }
    // View → Planner: opens the dock, brings it forward, or closes it when it is in front.
    QAction *plannerAction() const;
    QTabWidget *charts() const { return m_charts; }
    QLabel *note() const { return m_note; }
    QLabel *verdict() const { return m_verdict; }
    FileActions *fileActions() const { return m_files; }
    // View → Sizes in GiB.
    QAction *gibAction() const { return m_gibAction; }
    // View → Presentation mode (F11): full screen, larger text and lines.
    QAction *presentationAction() const { return m_presentAction; }
    // The text and line scale now in force (presentation × zoom).
    double textScale() const;
    // The explanation of the example on screen (hidden when none).
    QLabel *exampleText() const { return m_exampleText; }

    // Loads one of the seed's worked cases, shows its chart and explanation.
    void loadExample(const QString &id);
    // File → Compare with…: a second plan drawn beside this one in the stage-memory
    // and bubble charts. Returns the reason when the file cannot be compared.
    std::optional<QString> compareWith(const QString &path);
    void stopComparing();
    bool isComparing() const { return m_comparison.has_value(); }

    // Brings a chart to the front by its id: bubble, memory, timeline, sharding, model-size.
    void showChart(const QString &id);

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void updateTitle();
    void createMenus();
    void refresh();
    void showNote();
    void showVerdict();
    void updateVisibleChart();
    void redrawAll();
    void applyScale();
    void updateSharding();
    void updateFormulas();

    ScenarioDocument *m_document;
    FileActions *m_files;
    ControlsPanel *m_controls;
    QLabel *m_note;
    QLabel *m_verdict;
    QTabWidget *m_charts;
    QFrame *m_example;
    QScrollArea *m_controlsScroll = nullptr;
    QAction *m_gibAction = nullptr;
    QAction *m_stopComparing = nullptr;
    struct Comparison
    {
        core::Scenario scenario;
        core::Report report;
        QString name;
    };
    std::optional<Comparison> m_comparison;
    QAction *m_presentAction = nullptr;
    double m_zoom = 1.0; // Ctrl+= / Ctrl+-
    QLabel *m_exampleText;
    StageMemoryChart *m_memoryChart;
    ModelSizeChart *m_modelSizeChart;
    BubbleChart *m_bubbleChart;
    ShardingChart *m_shardingChart;
    FormulaPanel *m_formulas;
    core::ShardReport m_shardReport;
    QSet<QWidget *> m_stale;               // charts whose report changed while they were hidden
    std::optional<core::Scenario> m_drawn; // the last valid scenario the charts were told of
    TimelinePanel *m_timeline;
    PlannerPanel *m_planner;
    QDockWidget *m_plannerDock = nullptr;
    QList<DockToggle *> m_dockToggles; // View's dock items, in the menu's order
    DockToggle *m_plannerToggle = nullptr;
};

} // namespace ui
