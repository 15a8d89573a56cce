#pragma once

#include "core/planner.h"
#include "core/serving_plan.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <variant>

namespace ui {

// Runs core::plan (training) or core::planServing (a deployment) off the GUI thread
// (docs/DESIGN.md §5: a large search must not block the window), posts its progress to the
// GUI thread, and cancels through the planner's atomic flag. Starting a search while one
// runs, of either kind, cancels the old one; only the newest reports.
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
    // The request of the newest training search.
    const core::PlanRequest &request() const { return m_request; }
    // The request of the newest deployment search.
    const core::ServingPlanRequest &servingRequest() const { return m_servingRequest; }

    // Searches with copies of the request and the presets; the caller may change both.
    void start(const core::PlanRequest &request, const core::Presets &presets);
    void start(const core::ServingPlanRequest &request, const core::Presets &presets);
    // Makes the newest search stop at its next layout split, chunk of layouts or shape.
    void cancel();

Q_SIGNALS:
    // Fraction of the newest search done, 0 … 1; at most once per 0.1 %.
    void progressChanged(double fraction);
    // The newest search ended: complete, or with `cancelled` set. One of the two, by the
    // kind of search.
    void finished(const core::PlanResult &result);
    void servingFinished(const core::ServingPlanResult &result);

private:
    struct Run
    {
        std::atomic<bool> cancel{false};
        std::atomic<int> permille{-1}; // the last progress posted to the GUI thread
    };
    using Outcome = std::variant<core::PlanResult, core::ServingPlanResult>;
    using Search = std::function<Outcome(const core::PlanControl &)>;

    void launch(Search search);
    void onFinished();

    QThreadPool m_pool;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<Run> m_run;
    QList<QFuture<Outcome>> m_superseded; // cancelled by a newer search, stopping
    core::PlanRequest m_request;
    core::ServingPlanRequest m_servingRequest;
    bool m_serving = false; // the newest search is a deployment's
    int m_generation = 0;
};

} // namespace ui
