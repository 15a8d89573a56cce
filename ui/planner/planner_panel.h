#pragma once

#include "core/planner.h"
#include "core/serving_plan.h"

#include <QWidget>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSplitter;
class QToolButton;

namespace io {
struct ExamplePlan;
}

namespace ui {

class FieldMask;
class FlowLayout;
class PlanChart;
class PlanRunner;
class PlanTableModel;
class ScenarioDocument;
class ServingPlanChart;
class ServingTableModel;

// The Planner (docs/planner.md): searches every layout of N devices for the document's model,
// device, precision, mode and sequence length off the GUI thread, lists the fastest that
// fit, draws every evaluated layout's step time against its memory, and loads a chosen
// layout into the explorer as one undoable change. It reads the document and edits it only
// when a layout is loaded.
//
// When the scenario is in inference mode it is the deployment planner (docs/inference.md,
// "Planning a deployment"): its inputs become the devices available and the latency and
// throughput targets, and it lists the replica shapes with the most output tokens per second
// per device, their latency against throughput beside them. Each mode keeps its own last
// search.
class PlannerPanel : public QWidget
{
    Q_OBJECT

public:
    // The inputs wrapped to the width, then the table and the chart at their minimum: what a
    // scroll area sizes the panel by. The layout's own answer takes the chart's preferred
    // height, and the dock scrolled at 1280×800 with room to spare for the table.
    int heightForWidth(int width) const override;

    explicit PlannerPanel(ScenarioDocument *document, QWidget *parent = nullptr);

    QSpinBox *devicesBox() const { return m_devices; }
    QLabel *devicesLabel() const { return m_devicesLabel; }
    QSpinBox *globalBatchBox() const { return m_globalBatch; }
    QSpinBox *topBox() const { return m_top; }
    QCheckBox *distinctBox() const { return m_distinct; }
    QCheckBox *hybridBox() const { return m_hybrid; }
    QCheckBox *offloadingBox() const { return m_offloading; }
    QDoubleSpinBox *headroomBox() const { return m_headroom; }
    QComboBox *rankBox() const { return m_rank; }
    QToolButton *fromScenarioButton() const { return m_fromScenario; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *loadButton() const { return m_load; }
    QPushButton *exportCsvButton() const { return m_exportCsv; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *messageLabel() const { return m_message; }
    QTableView *table() const { return m_table; }
    PlanTableModel *tableModel() const { return m_model; }
    QSortFilterProxyModel *sortModel() const { return m_sorted; }
    PlanChart *chart() const { return m_chart; }
    PlanRunner *runner() const { return m_runner; }
    // The deployment planner's targets: each off until its box is ticked.
    QCheckBox *tpotCheck() const { return m_tpotOn; }
    QDoubleSpinBox *tpotBox() const { return m_tpot; }
    QCheckBox *ttftCheck() const { return m_ttftOn; }
    QDoubleSpinBox *ttftBox() const { return m_ttft; }
    QCheckBox *tokensPerSCheck() const { return m_rateOn; }
    QDoubleSpinBox *tokensPerSBox() const { return m_rate; }
    ServingTableModel *servingModel() const { return m_servingModel; }
    ServingPlanChart *servingChart() const { return m_servingChart; }

    // Whether the panel plans deployments: the document's scenario is in inference mode.
    bool isServing() const { return m_serving; }

    bool isRunning() const;
    // The last search that completed, and what it was asked.
    const std::optional<core::PlanResult> &result() const { return m_result; }
    const core::PlanRequest &resultRequest() const { return m_resultRequest; }
    // The last deployment search that completed, and what it was asked.
    const std::optional<core::ServingPlanResult> &servingResult() const { return m_servingResult; }
    const core::ServingPlanRequest &servingRequest() const { return m_servingRequest; }
    // The document's inputs changed after the shown search (of the panel's mode): its numbers
    // are for old ones.
    bool isStale() const { return m_serving ? m_servingStale : m_stale; }
    // The candidate of the table's selected row, whatever the sort.
    std::optional<core::PlanCandidate> selectedCandidate() const;
    std::optional<core::ServingCandidate> selectedServingCandidate() const;

    // Searches with the spin boxes' values; a search already running is cancelled.
    void run();
    void cancel();
    // Loads the selected row's layout into the explorer: one undo step. False when no row is
    // selected.
    bool loadSelected();
    // The selected training layout, applied to the scenario, as the framework's launch
    // arguments or config on the clipboard (the row's context menu); the reason when there
    // is no such row or it cannot be written.
    std::optional<QString> copySelectedAs(core::Framework framework);
    void load(const core::PlanCandidate &candidate);
    void load(const core::ServingCandidate &candidate);
    // An example's deployment search: its targets (off where it sets none), N from the
    // scenario's T × K × D, then a search.
    void planExample(const io::ExamplePlan &plan);
    // Writes the last search's candidates to `path` as `parascope plan --format csv` prints
    // them (io::planTable, or io::servingPlanTable in inference); the reason on failure.
    std::optional<QString> writeCsv(const QString &path) const;
    // Asks for a file and writes the table to it; a failure is a message box with its reason.
    void exportCsv();
    // The window switched between GB and GiB.
    void unitsChanged();
    // Puts the keyboard focus on the device count.
    void focusInputs();

Q_SIGNALS:
    // A search ended and the panel shows its outcome (or kept the last one when cancelled).
    void finished(bool cancelled);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void takeInputsFromScenario();
    void onDocumentChanged();
    void onProgress(double fraction);
    void onFinished(const core::PlanResult &result);
    void onServingFinished(const core::ServingPlanResult &result);
    // A search of the panel's mode ended (or the mode changed): the table, the summary, the
    // buttons follow.
    void showResult();
    void onSelectionChanged();
    void setRunning(bool running);
    void showMessages();
    void showSummary();
    // Shows the inputs, the table and the chart of the scenario's mode.
    void followMode();
    core::ServingPlanRequest servingRequestFromInputs() const;

    ScenarioDocument *m_document;
    PlanRunner *m_runner;
    QSpinBox *m_devices;
    QSpinBox *m_globalBatch;
    QSpinBox *m_top;
    QCheckBox *m_distinct;
    QCheckBox *m_hybrid;
    QCheckBox *m_offloading;
    QDoubleSpinBox *m_headroom;
    QComboBox *m_rank;
    QToolButton *m_fromScenario;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QProgressBar *m_progress;
    QLabel *m_summary;
    QLabel *m_message;
    PlanTableModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QTableView *m_table;
    QPushButton *m_load;
    QPushButton *m_exportCsv;
    PlanChart *m_chart;
    QLabel *m_devicesLabel = nullptr;
    QLabel *m_topLabel = nullptr;
    QCheckBox *m_tpotOn;
    QDoubleSpinBox *m_tpot;
    QCheckBox *m_ttftOn;
    QDoubleSpinBox *m_ttft;
    QCheckBox *m_rateOn;
    QDoubleSpinBox *m_rate;
    ServingTableModel *m_servingModel;
    ServingPlanChart *m_servingChart;
    QWidget *m_charts; // the training chart or the deployments'

    QSplitter *m_splitter = nullptr;
    FlowLayout *m_inputs = nullptr;
    bool m_splitterMoved = false;      // the user's split stays
    QList<QWidget *> m_trainingInputs; // shown in training only
    QList<QWidget *> m_servingInputs;  // shown in inference only

    // N and the global batch follow the scenario until the user types their own.
    bool m_followScenario = true;
    std::optional<core::PlanResult> m_result;
    core::PlanRequest m_resultRequest;
    bool m_stale = false;
    QStringList m_changedInputs;
    bool m_serving = false;
    std::optional<core::ServingPlanResult> m_servingResult;
    core::ServingPlanRequest m_servingRequest;
    bool m_servingStale = false;
    QStringList m_servingChangedInputs;
    QString m_cancelNote;
    double m_fraction = 0;
};

} // namespace ui
