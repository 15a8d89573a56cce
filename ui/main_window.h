#pragma once

#include "ui/charts/chart_page.h"

#include <QElapsedTimer>
#include <QList>
#include <QMainWindow>
#include <memory>
#include <optional>
#include <vector>

class QAction;
class QDockWidget;
class QFrame;
class QScrollArea;
class QLabel;
class QResizeEvent;
class QDragEnterEvent;
class QDropEvent;
class QTabWidget;

class QTimer;

namespace ui {

class ControlsPanel;
class DockToggle;
class FormulaPanel;
class ConfigActions;
class FileActions;
class PlannerPanel;
class ScenarioDocument;
class WrappedLabel;

// The explorer window: the controls dock on the left, the charts in tabs (one per
// ChartPage of ui/charts/chart_pages.cpp), a note for problems and warnings, the verdict
// in the status bar. It reads numbers only from the document's report.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(ScenarioDocument *document, QWidget *parent = nullptr);
    // Stops the planner dock's visibility notices, which QWidget's destructor would otherwise
    // deliver to a window that is no longer a MainWindow (UBSan: tst_planner_panel).
    ~MainWindow() override;

    ControlsPanel *controls() const { return m_controls; }
    FormulaPanel *formulas() const { return m_formulas; }
    // The page on the current tab, and the page with an id (null when there is none).
    const ChartPage *currentPage() const;
    const ChartPage *page(const QString &id) const;
    // The tab's widget of that class (StageMemoryChart, TimelinePanel, ...), or null.
    template <typename Widget> Widget *chart() const
    {
        for (const Tab &tab : m_tabs)
            if (auto *widget = qobject_cast<Widget *>(tab.widget))
                return widget;
        return nullptr;
    }
    // The Planner dock (View → Planner, Ctrl+Shift+P): hidden until asked for.
    PlannerPanel *planner() const { return m_planner; }
    QDockWidget *plannerDock() const { return m_plannerDock; }
    // View → Planner: opens the dock, brings it forward, or closes it when it is in front.
    QAction *plannerAction() const;
    QTabWidget *charts() const { return m_charts; }
    QLabel *note() const { return m_note; }
    QLabel *verdict() const;
    FileActions *fileActions() const { return m_files; }
    // File → Import… and Edit → Copy as … (docs/import.md).
    ConfigActions *configActions() const { return m_config; }
    // A file dropped on the window: a scenario opens, any other file is imported. Returns
    // the reason it was refused (also shown in a message box).
    std::optional<QString> openDropped(const QString &path);
    // View → Sizes in GiB.
    QAction *gibAction() const { return m_gibAction; }
    // View → Presentation mode (F11): full screen, larger text and lines.
    QAction *presentationAction() const { return m_presentAction; }
    // The text and line scale now in force (presentation × zoom).
    double textScale() const;
    // The explanation of the example on screen (hidden when none).
    QLabel *exampleText() const { return m_exampleText; }
    // Whether the scenario has changed since the example on screen was loaded: its
    // explanation is then marked as describing the example, not what the charts show.
    bool exampleIsStale() const { return m_exampleStale; }
    // Whether the charts and the status line show the last valid scenario, greyed, because
    // the current one cannot be evaluated.
    bool showsLastValid() const { return m_showsLastValid; }

    // Loads one of the worked examples (docs/worked-examples.md), shows its chart and explanation;
    // one with a deployment question also opens the Planner and searches.
    void loadExample(const QString &id);
    // File → Compare with…: a second plan drawn beside this one in the stage-memory,
    // bubble and step-time charts. Returns the reason when the file cannot be compared.
    std::optional<QString> compareWith(const QString &path);
    void stopComparing();
    bool isComparing() const { return m_comparison.has_value(); }

    // Brings a chart to the front by its page's id (memory, bubble, timeline, ...).
    void showChart(const QString &id);

    // View → Larger text / Smaller text: steps of 1.2× from -3 to +3; Normal text size
    // (Ctrl+0) goes back to step 0 and to the default layout.
    int zoomStep() const { return m_zoomStep; }
    static constexpr int kMaxZoomStep = 3;
    // Restores a saved geometry and dock layout when they fit the screen the window is on,
    // and keeps the default otherwise (a layout saved on a larger screen or at a text size
    // that left the charts no room). Returns whether the saved layout was used.
    bool restoreLayout(const QByteArray &geometry, const QByteArray &state);
    // The charts' share of the window the layout keeps at every text size.
    static constexpr double kChartWidthShare = 0.55;
    static constexpr double kChartHeightShare = 0.45;
    // Lines of warnings the fixed note above the tabs has room for.
    static constexpr int kNoteLines = 2;
    // Whether the charts have that share now.
    bool chartsHaveTheirShare() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Tab
    {
        std::unique_ptr<ChartPage> page;
        QWidget *widget = nullptr; // owned by the tab widget
        bool stale = true;         // the page's keys changed since it last drew
        // The text scale the page's charts were last laid out at: 1 as created.
        double laidOutScale = 1.0;
    };

    void updateTitle();
    void createMenus();
    void refresh();
    void showNote();
    void showVerdict();
    void holdVerdictHeight();
    void updateVisibleChart();
    void togglePlay();
    void redrawAll();
    void applyScale();
    // Sizes the docks for the window and the text: the controls at most 0.95 - kChartWidthShare
    // of the width (labels above the controls when beside them would not fit), the bottom
    // docks at most what leaves the charts kChartHeightShare of the height. With `reset`, the
    // default sizes within those limits; without, only what exceeds a limit shrinks.
    void fitLayout(bool reset);
    int maxBottomDockHeight() const;
    Tab *currentTab();
    ChartInputs chartInputs() const;

    ScenarioDocument *m_document;
    FileActions *m_files;
    ConfigActions *m_config;
    ControlsPanel *m_controls;
    QLabel *m_note;
    WrappedLabel *m_verdict;
    QTabWidget *m_charts;
    QFrame *m_example;
    QScrollArea *m_controlsScroll = nullptr;
    QAction *m_gibAction = nullptr;
    QAction *m_stopComparing = nullptr;
    std::optional<Comparison> m_comparison;
    QAction *m_presentAction = nullptr;
    int m_zoomStep = 0;              // Ctrl+= / Ctrl+-
    bool m_relayoutOnResize = false; // presentation mode toggled: the new size is coming
    QDockWidget *m_controlsDock = nullptr;
    QDockWidget *m_formulaDock = nullptr;
    QWidget *m_noteStrip = nullptr; // the note's fixed place above the tabs
    QLabel *m_exampleText;
    QString m_exampleHtml;                           // the explanation as loaded
    std::optional<core::Scenario> m_exampleScenario; // the example's scenario as loaded
    bool m_exampleStale = false;
    bool m_showsLastValid = false;
    void showExampleState();
    void showValidity();
    FormulaPanel *m_formulas;
    const ChartPage *m_formulasOf = nullptr; // the page whose formulas the panel shows
    // While the inputs keep changing (a slider drag) the chart redraws at every step and the
    // formulas at most every kFormulaIntervalMs: laying out their rich text costs 4-14 ms.
    static constexpr int kFormulaIntervalMs = 250;
    QTimer *m_formulaTimer = nullptr;
    QElapsedTimer m_formulasShown;
    void showFormulasNow();
    std::vector<Tab> m_tabs;               // in tab order
    std::optional<core::Scenario> m_drawn; // the last valid scenario the charts were told of
    PlannerPanel *m_planner;
    QDockWidget *m_plannerDock = nullptr;
    QList<DockToggle *> m_dockToggles; // View's dock items, in the menu's order
    DockToggle *m_plannerToggle = nullptr;
};

} // namespace ui
