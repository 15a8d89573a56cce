#include "ui/sharding_verifier.h"

#include "core/validate.h"
#include "io/machine.h"
#include "io/text.h"
#include "ui/charts/sharding_chart.h"
#include "ui/scenario_document.h"

#include <QProgressBar>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

namespace ui {

namespace {

// bench_sharding's BM_ShardVerifyFullEighth (1/512 of the 70B layer, T 8): 37.6 GFLOP
// in 3.6 s of CPU time on the 2-core development machine, RelWithDebInfo, single
// thread. The 70B layer's 19 TFLOP then take about 31 min. Replaced by the rate of
// the last full-size run long enough to time.
constexpr double kBenchFlopsPerSecond = 10.3e9;

QString duration(double s)
{
    if (s < 90)
        return ShardingVerifier::tr("%1 s").arg(std::max(1.0, std::round(s)));
    if (s < 90 * 60)
        return ShardingVerifier::tr("%1 min").arg(std::round(s / 60));
    return ShardingVerifier::tr("%1 h").arg(s / 3600, 0, 'f', 1);
}

} // namespace

ShardingVerifier::ShardingVerifier(ScenarioDocument *document, ShardingChart *chart,
                                   FieldMask layerKeys)
    : QObject(chart), m_document(document), m_chart(chart), m_layerKeys(layerKeys),
      m_flopsPerSecond(kBenchFlopsPerSecond)
{
    setObjectName(QStringLiteral("shardingVerifier"));
    connect(chart->verifyButton(), &QPushButton::clicked, this, &ShardingVerifier::start);
    connect(chart->cancelButton(), &QPushButton::clicked, this, [this] {
        m_cancelReason = tr("cancelled");
        cancel();
    });
    connect(&m_watcher, &QFutureWatcher<core::ShardReport>::finished, this,
            &ShardingVerifier::onFinished);
    connect(document, &ScenarioDocument::changed, this, &ShardingVerifier::onDocumentChanged);
    updateTooltip();
}

ShardingVerifier::~ShardingVerifier()
{
    m_watcher.disconnect(this);
    cancel();
    m_watcher.waitForFinished();
}

std::optional<core::ShardRequest>
ShardingVerifier::currentRequest(const core::DeviceSpec **device) const
{
    const core::Scenario &s = m_document->lastValidScenario();
    const core::ModelSpec *model = core::resolveModel(s, m_document->presets());
    *device = core::resolveDevice(s, m_document->presets());
    auto request = model && *device ? core::shardRequestFor(s, *model) : std::nullopt;
    if (!request || core::validateShardRequest(*request, **device))
        return std::nullopt;
    request->verify = core::Verify::full;
    request->verifyMemoryBytes = io::fullCheckMemoryBytes();
    return request;
}

bool ShardingVerifier::start()
{
    const core::DeviceSpec *device = nullptr;
    const auto request = currentRequest(&device);
    if (!request || isRunning() || !m_chart ||
        !(core::verifyBytes(request->shape, request->tp) <= request->verifyMemoryBytes))
        return false;
    m_run = std::make_shared<Run>();
    const int generation = ++m_generation;
    m_modelName = io::qs(m_document->lastValidReport().modelName);
    m_cancelReason.clear();
    m_flops = core::checkFlops(request->shape);
    m_fraction = 0;
    m_clock.start();

    // The worker owns copies of the request and the device; `run` outlives it
    // through the shared pointer, `this` through the destructor's wait.
    core::ProgressFn progress = [this, run = m_run, generation](double fraction) {
        if (run->cancel.load(std::memory_order_relaxed))
            return false;
        // At most one queued call per 0.1 % of the work, however fine the blocks.
        const int permille = static_cast<int>(fraction * 1000);
        if (permille > run->permille.load(std::memory_order_relaxed)) {
            run->permille.store(permille, std::memory_order_relaxed);
            QMetaObject::invokeMethod(
                this, [this, generation, fraction] { onProgress(generation, fraction); },
                Qt::QueuedConnection);
        }
        return true;
    };
    m_watcher.setFuture(
        QtConcurrent::run([request = *request, device = *device, progress = std::move(progress)] {
            return core::analyzeSharding(request, device, progress);
        }));

    m_chart->setVerifying(true);
    m_chart->setVerifyProgress(0, tr("starting…"));
    Q_EMIT started();
    return true;
}

void ShardingVerifier::cancel()
{
    if (m_run)
        m_run->cancel.store(true);
}

void ShardingVerifier::onDocumentChanged(FieldMask keys)
{
    if (isRunning() && keys.intersects(m_layerKeys)) {
        m_cancelReason = tr("cancelled because the scenario changed");
        cancel();
    }
    updateTooltip();
}

void ShardingVerifier::onProgress(int generation, double fraction)
{
    if (generation != m_generation || !isRunning() || !m_chart)
        return;
    m_fraction = fraction;
    const double elapsed = m_clock.elapsed() / 1000.0;
    // The remaining time from this run's own pace once it has one, else from the rate.
    const double left = fraction > 0.02 ? elapsed * (1 - fraction) / fraction
                                        : m_flops * (1 - fraction) / m_flopsPerSecond;
    m_chart->setVerifyProgress(fraction, tr("about %1 left").arg(duration(left)));
}

void ShardingVerifier::onFinished()
{
    const bool cancelled = m_watcher.future().resultCount() == 0 || m_watcher.result().cancelled;
    const double elapsed = m_clock.elapsed() / 1000.0;
    if (m_chart) {
        m_chart->setVerifying(false);
        if (cancelled) {
            // The chart keeps the reduced-size check it showed before.
            m_chart->setNote(tr("Full-size check %1 at %2 %; the errors above are from the "
                                "reduced size.")
                                 .arg(m_cancelReason.isEmpty() ? tr("cancelled") : m_cancelReason)
                                 .arg(std::floor(100 * m_fraction)));
        } else if (const core::ShardReport &result = m_watcher.result(); !result.ok()) {
            // Out of memory on the way: the chart keeps the reduced-size check.
            m_chart->setNote(tr("Full-size check not run: %1.").arg(io::qs(result.error->message)));
        } else {
            m_chart->setReport(result, m_modelName);
            m_chart->setNote(tr("Full-size check done in %1.").arg(duration(elapsed)));
        }
    }
    // A run long enough to time tells the next estimate this computer's real rate.
    if (!cancelled && elapsed > 1)
        m_flopsPerSecond = m_flops / elapsed;
    updateTooltip();
    Q_EMIT finished(cancelled);
}

void ShardingVerifier::updateTooltip()
{
    if (!m_chart)
        return;
    const core::DeviceSpec *device = nullptr;
    const auto request = currentRequest(&device);
    QPushButton *button = m_chart->verifyButton();
    button->setEnabled(request && !isRunning());
    if (!request) {
        button->setToolTip(tr("Needs a model with a feed-forward layer that T divides."));
        return;
    }
    const core::FfnShape &shape = request->shape;
    const double bytes = core::verifyBytes(shape, request->tp);
    if (!(bytes <= request->verifyMemoryBytes)) {
        button->setEnabled(false);
        button->setToolTip(
            tr("<p>At this layer's full size (h %1, f %2, %3 tokens on %4 simulated devices) the "
               "check would hold <b>%5 GB</b> at once; Parascope lets it use at most %6 GB, %7."
               "</p><p>The reduced-size check above executes the same splits.</p>")
                .arg(shape.hidden)
                .arg(shape.ffn)
                .arg(shape.tokens)
                .arg(request->tp)
                .arg(bytes / 1e9, 0, 'f', 1)
                .arg(request->verifyMemoryBytes / 1e9, 0, 'f', 1)
                .arg(io::installedMemoryBytes()
                         ? tr("half of this computer's memory")
                         : tr("as this computer does not say how much memory it has")));
        return;
    }
    const double flops = core::checkFlops(shape);
    button->setToolTip(
        tr("<p>Executes the four splits on %1 simulated devices at this layer's full size "
           "(h %2, f %3, %4 tokens) instead of the reduced size, and compares each with the "
           "unsharded product.</p><p>That is %5 TFLOP: about <b>%6</b> at the %7 GFLOP/s this "
           "computer's processor reaches, so it can take minutes or hours. It runs in the "
           "background; the window stays usable, and Cancel stops it.</p>")
            .arg(request->tp)
            .arg(shape.hidden)
            .arg(shape.ffn)
            .arg(shape.tokens)
            .arg(flops / 1e12, 0, 'f', 1)
            .arg(duration(flops / m_flopsPerSecond))
            .arg(m_flopsPerSecond / 1e9, 0, 'f', 0));
}

} // namespace ui
