#pragma once

#include "core/planner.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <memory>

namespace ui {

// Runs core::plan off the GUI thread (docs/DESIGN.md §5: a large search must not block the window),
// posts its progress to the GUI thread, and cancels through the planner's atomic flag.
// Starting a search while one runs cancels the old one; only the newest reports.
//
// Searches take turns on a pool of their own with one thread: core::plan already spreads
// over every core, a cancelled search makes way for the next before it starts, and Qt's
// global pool, which painting uses too, stays free.
class PlanRunner : public QObject
{
    Q_OBJECT

public:
    explicit PlanRunner(QObject *parent = nullptr);
    // Asks every search still running to stop and waits for them: they post to this object.
    ~PlanRunner() override;

    bool isRunning() const { return m_watcher.isRunning(); }
    // Where searches run, one at a time.
    QThreadPool *threadPool() { return &m_pool; }
    // The request of the newest search.
    const core::PlanRequest &request() const { return m_request; }

    // Searches with copies of the request and the presets; the caller may change both.
    void start(const core::PlanRequest &request, const core::Presets &presets);
    // Makes the newest search stop at its next layout split or chunk of layouts.
    void cancel();

Q_SIGNALS:
    // Fraction of the newest search done, 0 … 1; at most once per 0.1 %.
    void progressChanged(double fraction);
    // The newest search ended: complete, or with `cancelled` set.
    void finished(const core::PlanResult &result);

private:
    struct Run
    {
        std::atomic<bool> cancel{false};
        std::atomic<int> permille{-1}; // the last progress posted to the GUI thread
    };

    void onFinished();

    QThreadPool m_pool;
    QFutureWatcher<core::PlanResult> m_watcher;
    std::shared_ptr<Run> m_run;
    QList<QFuture<core::PlanResult>> m_superseded; // cancelled by a newer search, stopping
    core::PlanRequest m_request;
    int m_generation = 0;
};

} // namespace ui
