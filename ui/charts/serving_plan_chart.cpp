#include "ui/charts/serving_plan_chart.h"

#include "io/serving_plan_io.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

QPointF pointOf(const core::ServingCandidate &c)
{
    return {1e3 * c.tpotS, c.tokensPerSPerDevice};
}

// Drawn: exact times, or bounds without a link's transfers.
bool drawn(const core::ServingCandidate &c)
{
    return c.timed || c.linkTimeExcluded;
}

// From a round number below the fastest shape to one above the slowest, with a margin, in
// steps of 1, 2 or 5 × 10^k: the shapes often differ by a few milliseconds around tens of
// them, which an axis from 0 would crowd into one corner.
void setSpanRange(QValueAxis *axis, double low, double high)
{
    // One shape (or one time): from 0, as a single point has no spread to show.
    if (!(high > low))
        low = 0;
    const double span = high > low ? high - low : std::max(high, 1e-3);
    low = std::max(0.0, low - 0.08 * span);
    high += 0.08 * span;
    const double magnitude = std::pow(10.0, std::floor(std::log10((high - low) / 6)));
    double step = magnitude * 10;
    for (double factor : {1.0, 2.0, 5.0})
        if ((high - low) / (magnitude * factor) <= 8) {
            step = magnitude * factor;
            break;
        }
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(std::floor(low / step) * step, std::ceil(high / step) * step);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setLabelFormat(step < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
}

// The shapes no other beats on both counts: none is faster per token and delivers more per
// device. Sorted by time per token.
QList<QPointF> frontier(QList<QPointF> points)
{
    std::sort(points.begin(), points.end(), [](const QPointF &a, const QPointF &b) {
        return a.x() < b.x() || (a.x() == b.x() && a.y() > b.y());
    });
    QList<QPointF> out;
    for (const QPointF &p : points)
        if (out.isEmpty() || p.y() > out.back().y())
            out << p;
    return out;
}

QScatterSeries *scatter(const QColor &fill, qreal size, QScatterSeries::MarkerShape shape)
{
    auto *series = new QScatterSeries;
    series->setMarkerShape(shape);
    series->setMarkerSize(size);
    series->setColor(fill);
    series->setBorderColor(chart_style::black());
    return series;
}

} // namespace

ServingPlanChart::ServingPlanChart(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedWidget), m_chart(new QChart),
      m_view(new QChartView(m_chart)),
      m_message(chart_style::newChartMessage(QStringLiteral("servingPlanChartMessage"))),
      m_caption(new QLabel),
      m_memoryBound(scatter(chart_style::blue(), 11, QScatterSeries::MarkerShapeCircle)),
      m_computeBound(
          scatter(chart_style::orange(), 12, QScatterSeries::MarkerShapeRotatedRectangle)),
      m_selected(scatter(Qt::transparent, 22, QScatterSeries::MarkerShapeCircle)),
      m_bounds(scatter(Qt::transparent, 11, QScatterSeries::MarkerShapeCircle)),
      m_frontier(new QLineSeries), m_timeAxis(new QValueAxis), m_rateAxis(new QValueAxis)
{
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_view->setRenderHint(QPainter::Antialiasing);
    // Shorter than the training chart's: a few points, and an example's explanation above the
    // charts leaves the dock little height.
    m_view->setMinimumSize(280, 180);
    m_selected->setPen(QPen(chart_style::vermillion(), 3));
    m_memoryBound->setName(tr("Memory-bound"));
    m_computeBound->setName(tr("Compute-bound"));
    m_selected->setName(tr("Selected"));
    m_frontier->setName(tr("Best trade-offs"));
    // Hollow: the shape is at least this slow, at most this fast, somewhere down and right.
    m_bounds->setPen(QPen(chart_style::blue(), 2));
    m_frontier->setPen(QPen(chart_style::grey(), 1.5, Qt::DashLine));

    m_timeAxis->setTitleText(tr("Time per output token (ms)"));
    // Shortened to "Throughput (tokens/s)" on a short plot (chart_style::keepAxesReadable).
    m_rateAxis->setTitleText(tr("Throughput per device (tokens/s)"));
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_rateAxis, Qt::AlignLeft);
    // The frontier under the points, the ring on top.
    for (QXYSeries *series : std::initializer_list<QXYSeries *>{m_frontier, m_bounds, m_memoryBound,
                                                                m_computeBound, m_selected}) {
        m_chart->addSeries(series);
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_rateAxis);
    }
    // The ring needs no legend entry; the legend has little room.
    for (QLegendMarker *marker : m_chart->legend()->markers(m_selected))
        marker->setVisible(false);
    chart_style::keepAxesReadable(m_chart);
    chart_style::groupDigits(m_chart);

    for (QScatterSeries *series : {m_memoryBound, m_computeBound, m_bounds}) {
        connect(series, &QScatterSeries::clicked, this, [this](const QPointF &at) {
            if (const int index = nearest(at); index >= 0)
                Q_EMIT candidateClicked(index);
        });
        connect(series, &QScatterSeries::hovered, this, [this](const QPointF &at, bool entered) {
            if (entered)
                QToolTip::showText(QCursor::pos(), describe(at), m_view);
            else
                QToolTip::hideText();
        });
    }

    const QString explanation =
        tr("<p>Each point is one replica shape the deployment planner listed, at the largest "
           "batch that fits and meets the targets: its mean time per output token against the "
           "output tokens per second each device delivers. Up and to the left is better; a "
           "shape further right buys throughput with latency. Blue circles are memory-bound "
           "(decode reads the weights and the KV cache), orange diamonds compute-bound. The "
           "dashed line joins the best trade-offs: the shapes no other beats on both time per "
           "token and throughput per device. The ring is the selected row — click a point to "
           "select its row.</p>"
           "<p>Hollow circles are bounds: a link the shape needs publishes no bandwidth, so its "
           "transfers are left out; the shape takes at least this long per token and delivers "
           "at most this much. Shapes without any time are listed in the table but not "
           "drawn.</p>");
    m_view->setToolTip(explanation);
    m_caption->setObjectName(QStringLiteral("servingPlanChartCaption"));
    m_caption->setWordWrap(true);
    m_caption->setToolTip(explanation);
    m_caption->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_message);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_caption);
    clear(tr("Run a search to see each deployment's time per output token against its "
             "throughput per device."));
}

void ServingPlanChart::setResult(const core::ServingPlanResult &result)
{
    m_candidates = result.candidates;
    QList<QPointF> memory;
    QList<QPointF> compute;
    QList<QPointF> bounds;
    double quickest = std::numeric_limits<double>::infinity();
    double slowest = 0;
    double fastest = 0;
    qsizetype untimed = 0;
    for (const core::ServingCandidate &c : m_candidates) {
        if (!drawn(c)) {
            ++untimed;
            continue;
        }
        const QPointF at = pointOf(c);
        (!c.timed ? bounds : c.memoryBound ? memory : compute) << at;
        quickest = std::min(quickest, at.x());
        slowest = std::max(slowest, at.x());
        fastest = std::max(fastest, at.y());
    }
    if (memory.isEmpty() && compute.isEmpty() && bounds.isEmpty()) {
        clear(m_candidates.empty()
                  ? tr("No deployment to draw: no shape fits and meets the targets.")
                  : tr("No deployment to draw: none of the %1 listed shapes has a time, since "
                       "the device publishes no rates for this precision. The table lists "
                       "their memory.")
                        .arg(io::formatCount(untimed)));
        m_candidates = result.candidates; // still listed, and selectable from the table
        return;
    }
    m_memoryBound->replace(memory);
    m_computeBound->replace(compute);
    m_bounds->replace(bounds);
    // Among exact times only: a bound beats nothing for sure.
    m_frontier->replace(frontier(memory + compute));
    m_selected->clear();
    // The legend names only what is drawn: a narrow chart elides a crowded one.
    for (QXYSeries *series :
         std::initializer_list<QXYSeries *>{m_memoryBound, m_computeBound, m_bounds, m_frontier})
        for (QLegendMarker *marker : m_chart->legend()->markers(series))
            marker->setVisible(series->count() >= (series == m_frontier ? 2 : 1));
    m_memoryBound->setName(tr("Memory-bound (%1)").arg(memory.size()));
    m_computeBound->setName(tr("Compute-bound (%1)").arg(compute.size()));
    m_bounds->setName(tr("Bounds only (%1)").arg(bounds.size()));
    setSpanRange(m_timeAxis, quickest, slowest);
    // Throughput from 0: how far apart the shapes are is part of the answer.
    chart_style::setNiceRange(m_rateAxis, fastest);
    m_rateAxis->setLabelFormat(QStringLiteral("%.0f"));
    QString caption = m_candidates.size() == 1
                          ? tr("The listed shape, at its largest batch.")
                          : tr("The %1 listed shapes, each at its largest batch.")
                                .arg(io::formatCount(qint64(m_candidates.size())));
    if (untimed > 0)
        caption +=
            QLatin1Char(' ') + tr("%1 without a time are not drawn.").arg(io::formatCount(untimed));
    m_caption->setText(caption);
    m_message->clear();
    m_stack->setCurrentWidget(m_view);
}

void ServingPlanChart::clear(const QString &message)
{
    m_candidates.clear();
    for (QXYSeries *series : std::initializer_list<QXYSeries *>{m_memoryBound, m_computeBound,
                                                                m_bounds, m_selected, m_frontier})
        series->clear();
    m_message->setText(message);
    m_caption->clear();
    m_stack->setCurrentWidget(m_message);
}

void ServingPlanChart::setSelected(const std::optional<core::ServingCandidate> &candidate)
{
    if (candidate && drawn(*candidate) && m_stack->currentWidget() == m_view)
        m_selected->replace({pointOf(*candidate)});
    else
        m_selected->clear();
}

QString ServingPlanChart::message() const
{
    return m_stack->currentWidget() == m_message ? m_message->text() : QString();
}

QString ServingPlanChart::caption() const
{
    return m_caption->text();
}

int ServingPlanChart::nearest(QPointF at) const
{
    // Compared on screen: the axes' units differ by orders of magnitude.
    const QPointF target = m_chart->mapToPosition(at);
    int best = -1;
    double bestDistance = 0;
    for (std::size_t i = 0; i < m_candidates.size(); ++i) {
        if (!drawn(m_candidates[i]))
            continue;
        const QPointF d = m_chart->mapToPosition(pointOf(m_candidates[i])) - target;
        const double distance = QPointF::dotProduct(d, d);
        if (best < 0 || distance < bestDistance) {
            best = static_cast<int>(i);
            bestDistance = distance;
        }
    }
    return best;
}

QString ServingPlanChart::describe(QPointF at) const
{
    const int index = nearest(at);
    if (index < 0)
        return {};
    const core::ServingCandidate &c = m_candidates[std::size_t(index)];
    if (!c.timed)
        return tr("#%1 %2<br>at least %3 ms per output token, %4 to the first<br>at most %5 "
                  "tokens/s per device, %6 in all<br>(a link it needs publishes no bandwidth: "
                  "its transfers are left out)")
            .arg(index + 1)
            .arg(io::servingShapeText(c).toHtmlEscaped())
            .arg(c.tpotS * 1e3, 0, 'f', 2)
            .arg(QStringLiteral("%1 ms").arg(c.ttftS * 1e3, 0, 'f', 0))
            .arg(io::formatCount(std::llround(c.tokensPerSPerDevice)),
                 io::formatCount(std::llround(c.tokensPerS())));
    return tr("#%1 %2<br>%3 ms per output token, %4 to the first<br>%5 tokens/s per device, "
              "%6 in all; %7-bound")
        .arg(index + 1)
        .arg(io::servingShapeText(c).toHtmlEscaped())
        .arg(c.tpotS * 1e3, 0, 'f', 2)
        .arg(QStringLiteral("%1 ms").arg(c.ttftS * 1e3, 0, 'f', 0))
        .arg(io::formatCount(std::llround(c.tokensPerSPerDevice)),
             io::formatCount(std::llround(c.tokensPerS())),
             c.memoryBound ? tr("memory") : tr("compute"));
}

} // namespace ui
