#pragma once

#include "core/sharding.h"
#include "ui/scenario_document.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <memory>

namespace ui {

class ShardingChart;

// The numerical check of the sharding demonstrator at the layer's full size
// (docs/DESIGN.md §3.4, §5): core::analyzeSharding with Verify::full on the global
// thread pool, progress and cancel through the chart's controls. It reads the
// document and never edits it; a change of the layer cancels the run, whose
// result would be for an old scenario.
class ShardingVerifier : public QObject
{
    Q_OBJECT

public:
    // Wires the chart's "Verify at full size" and "Cancel" buttons; parented to the chart.
    // A change of one of `layerKeys` (the sharding page's) cancels a running check.
    ShardingVerifier(ScenarioDocument *document, ShardingChart *chart, FieldMask layerKeys);
    // Asks a running check to stop and waits for it: it reads only its own copies.
    ~ShardingVerifier() override;

    bool isRunning() const { return m_watcher.isRunning(); }
    // The FLOP rate estimates are based on: measured by bench_sharding, then by each full run.
    double flopsPerSecond() const { return m_flopsPerSecond; }

    // Starts the full-size check of the current scenario's layer; false when
    // there is no layer to check or a check is already running.
    bool start();
    // Makes the running check stop at its next block of work.
    void cancel();

Q_SIGNALS:
    void started();
    // After the chart shows the outcome (complete or cancelled).
    void finished(bool cancelled);

private:
    struct Run
    {
        std::atomic<bool> cancel{false};
        std::atomic<int> permille{-1}; // the last progress posted to the GUI thread
    };

    std::optional<core::ShardRequest> currentRequest(const core::DeviceSpec **device) const;
    void onDocumentChanged(FieldMask keys);
    void onProgress(int generation, double fraction);
    void onFinished();
    void updateTooltip();

    ScenarioDocument *m_document;
    QPointer<ShardingChart> m_chart;
    FieldMask m_layerKeys;
    QFutureWatcher<core::ShardReport> m_watcher;
    std::shared_ptr<Run> m_run;
    int m_generation = 0;
    QString m_modelName;
    QString m_cancelReason;
    double m_flops = 0;
    double m_fraction = 0;
    QElapsedTimer m_clock;
    double m_flopsPerSecond;
};

} // namespace ui
