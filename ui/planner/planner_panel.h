#pragma once

#include "core/planner.h"

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
class QToolButton;

namespace ui {

class FieldMask;
class PlanChart;
class PlanRunner;
class PlanTableModel;
class ScenarioDocument;

// The Planner (docs/planner.md): searches every layout of N devices for the document's model,
// device, precision, mode and sequence length off the GUI thread, lists the fastest that
// fit, draws every evaluated layout's step time against its memory, and loads a chosen
// layout into the explorer as one undoable change. It reads the document and edits it only
// when a layout is loaded.
class PlannerPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PlannerPanel(ScenarioDocument *document, QWidget *parent = nullptr);

    QSpinBox *devicesBox() const { return m_devices; }
    QSpinBox *globalBatchBox() const { return m_globalBatch; }
    QSpinBox *topBox() const { return m_top; }
    QCheckBox *distinctBox() const { return m_distinct; }
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

    bool isRunning() const;
    // The last search that completed, and what it was asked.
    const std::optional<core::PlanResult> &result() const { return m_result; }
    const core::PlanRequest &resultRequest() const { return m_resultRequest; }
    // The document's inputs changed after the shown search: its numbers are for old ones.
    bool isStale() const { return m_stale; }
    // The candidate of the table's selected row, whatever the sort.
    std::optional<core::PlanCandidate> selectedCandidate() const;

    // Searches with the spin boxes' values; a search already running is cancelled.
    void run();
    void cancel();
    // Loads the selected row's layout into the explorer: one undo step. False when no row is
    // selected.
    bool loadSelected();
    void load(const core::PlanCandidate &candidate);
    // Writes the last search's candidates to `path` as `parascope plan --format csv` prints
    // them (io::planTable); the reason on failure.
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
    void onSelectionChanged();
    void setRunning(bool running);
    void showMessages();

    ScenarioDocument *m_document;
    PlanRunner *m_runner;
    QSpinBox *m_devices;
    QSpinBox *m_globalBatch;
    QSpinBox *m_top;
    QCheckBox *m_distinct;
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

    // N and the global batch follow the scenario until the user types their own.
    bool m_followScenario = true;
    std::optional<core::PlanResult> m_result;
    core::PlanRequest m_resultRequest;
    bool m_stale = false;
    QStringList m_changedInputs;
    QString m_cancelNote;
    double m_fraction = 0;
};

} // namespace ui
