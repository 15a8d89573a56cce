#include "ui/planner/plan_runner.h"

#include <QtConcurrent/QtConcurrentRun>

namespace ui {

PlanRunner::PlanRunner(QObject *parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &PlanRunner::onFinished);
}

PlanRunner::~PlanRunner()
{
    m_watcher.disconnect(this);
    cancel();
    m_watcher.waitForFinished();
    for (QFuture<Outcome> &old : m_superseded)
        old.waitForFinished();
}

void PlanRunner::start(const core::PlanRequest &request, const core::Presets &presets)
{
    m_request = request;
    m_serving = false;
    launch([request, presets](const core::PlanControl &control) -> Outcome {
        return core::plan(request, presets, control);
    });
}

void PlanRunner::start(const core::ServingPlanRequest &request, const core::Presets &presets)
{
    m_servingRequest = request;
    m_serving = true;
    launch([request, presets](const core::PlanControl &control) -> Outcome {
        return core::planServing(request, presets, control);
    });
}

void PlanRunner::launch(Search search)
{
    if (isRunning()) {
        cancel();
        m_superseded.append(m_watcher.future());
    }
    m_superseded.removeIf([](const QFuture<Outcome> &f) { return f.isFinished(); });

    m_run = std::make_shared<Run>();
    const int generation = ++m_generation;
    // The search owns copies of its inputs and the run's flags; `this` outlives it through
    // the destructor's wait.
    m_watcher.setFuture(QtConcurrent::run(
        &m_pool, [this, generation, run = m_run, search = std::move(search)]() -> Outcome {
            core::PlanControl control;
            control.cancel = &run->cancel;
            control.progress = [this, generation, run](double fraction) {
                const int permille = static_cast<int>(fraction * 1000);
                if (permille <= run->permille.load(std::memory_order_relaxed))
                    return;
                run->permille.store(permille, std::memory_order_relaxed);
                QMetaObject::invokeMethod(
                    this,
                    [this, generation, fraction] {
                        if (generation == m_generation && isRunning())
                            Q_EMIT progressChanged(fraction);
                    },
                    Qt::QueuedConnection);
            };
            return search(control);
        }));
}

void PlanRunner::cancel()
{
    if (m_run)
        m_run->cancel.store(true);
}

void PlanRunner::onFinished()
{
    // A superseded search's late notice: the newest one is still running.
    if (!m_watcher.isFinished())
        return;
    if (m_watcher.future().resultCount() == 0) {
        if (m_serving) {
            core::ServingPlanResult none;
            none.cancelled = true;
            Q_EMIT servingFinished(none);
        } else {
            core::PlanResult none;
            none.cancelled = true;
            Q_EMIT finished(none);
        }
        return;
    }
    const Outcome outcome = m_watcher.result();
    if (const auto *serving = std::get_if<core::ServingPlanResult>(&outcome))
        Q_EMIT servingFinished(*serving);
    else
        Q_EMIT finished(std::get<core::PlanResult>(outcome));
}

} // namespace ui
