#include "ui/charts/plan_chart.h"

#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/units.h"

#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

// A log axis labels every power of its base. Base 2 labels every doubling; when the chart is
// small (a dock, presentation mode's larger text) or the cloud spans a thousandfold, a larger
// base keeps at most `maxLabels` labels, which Qt Charts would otherwise elide to "…".
void setLogRange(QLogValueAxis *axis, double low, double high, int maxLabels)
{
    if (!(low > 0) || !(high > 0) || high < low) {
        low = 1;
        high = 2;
    }
    double bottom = 1;
    double top = 2;
    double base = 2;
    for (double candidate : {2.0, 4.0, 10.0, 100.0, 1000.0}) {
        base = candidate;
        const double logBase = std::log(base);
        bottom = std::pow(base, std::floor(std::log(low) / logBase + 1e-9));
        top = std::pow(base, std::ceil(std::log(high) / logBase - 1e-9));
        if (top <= bottom)
            top = bottom * base;
        if (std::lround(std::log(top / bottom) / logBase) + 1 <= maxLabels)
            break;
    }
    axis->setBase(base);
    axis->setRange(bottom, top);
}

QScatterSeries *scatter(const QColor &fill, const QColor &border, qreal size,
                        QScatterSeries::MarkerShape shape = QScatterSeries::MarkerShapeCircle)
{
    auto *series = new QScatterSeries;
    series->setMarkerShape(shape);
    series->setMarkerSize(size);
    series->setColor(fill);
    series->setBorderColor(border);
    return series;
}

QColor withAlpha(QColor colour, int alpha)
{
    colour.setAlpha(alpha);
    return colour;
}

} // namespace

qsizetype PlanChart::drawnCount(qsizetype total)
{
    if (total <= kMaxPoints)
        return total;
    const qsizetype stride = (total + kMaxPoints - 1) / kMaxPoints;
    return (total + stride - 1) / stride;
}

PlanChart::PlanChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart)),
      m_over(scatter(withAlpha(chart_style::grey(), 150), Qt::transparent, 6)),
      m_fitting(scatter(withAlpha(chart_style::skyBlue(), 200), chart_style::blue(), 7)),
      m_top(scatter(chart_style::orange(), chart_style::black(), 10,
                    QScatterSeries::MarkerShapeRotatedRectangle)),
      m_selected(scatter(Qt::transparent, chart_style::vermillion(), 20)),
      m_capacity(new QLineSeries), m_memoryAxis(new QLogValueAxis), m_timeAxis(new QLogValueAxis),
      m_caption(new QLabel), m_stack(new QStackedWidget),
      m_message(chart_style::newChartMessage(QStringLiteral("planChartMessage")))
{
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_view->setRenderHint(QPainter::Antialiasing);
    // Room for the plot between the axes and the legend; at 1440×900 the Planner dock then
    // holds the inputs, the table and this chart without scrolling.
    m_view->setMinimumSize(280, 190);

    m_over->setPen(Qt::NoPen);
    QPen ring(chart_style::vermillion(), 3);
    m_selected->setPen(ring);
    m_capacity->setPen(chart_style::capacityPen());

    for (QLogValueAxis *axis : {m_memoryAxis, m_timeAxis}) {
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(-1);
    }
    m_timeAxis->setTitleText(tr("Step time (s)"));
    m_chart->addAxis(m_memoryAxis, Qt::AlignBottom);
    m_chart->addAxis(m_timeAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    // Drawn in this order: the cloud, the capacity, then the marks on top.
    for (QXYSeries *series :
         std::initializer_list<QXYSeries *>{m_over, m_fitting, m_capacity, m_top, m_selected}) {
        m_chart->addSeries(series);
        series->attachAxis(m_memoryAxis);
        series->attachAxis(m_timeAxis);
    }

    connect(m_top, &QScatterSeries::clicked, this, [this](const QPointF &point) {
        // The nearest top candidate to the click, in the series' own coordinates.
        const QList<QPointF> points = m_top->points();
        int best = -1;
        double bestDistance = 0;
        for (qsizetype i = 0; i < points.size(); ++i) {
            const double dx = std::log(points[i].x() / point.x());
            const double dy = std::log(points[i].y() / point.y());
            const double distance = dx * dx + dy * dy;
            if (best < 0 || distance < bestDistance) {
                best = static_cast<int>(i);
                bestDistance = distance;
            }
        }
        if (best >= 0)
            Q_EMIT candidateClicked(best);
    });

    // The ring needs no legend entry; the legend has little room.
    for (QLegendMarker *marker : m_chart->legend()->markers(m_selected))
        marker->setVisible(false);
    const QString explanation =
        tr("<p>Each point is one layout the planner evaluated in full: its step time against "
           "the memory of one device of its fullest pipeline stage, both on log scales. Blue "
           "points fit the device, grey ones overflow it; the dashed line is the device's "
           "capacity. Orange diamonds are the listed top candidates, the ring is the selected "
           "row — click a diamond to select its row.</p>"
           "<p>The planner times in full the layouts that fit and can reach the top, then "
           "%1 more that fit (the lowest step-time bounds) and %1 of those that overflow, "
           "spread evenly over their memory. "
           "The others are counted, not drawn: the rest that overflow, and the pruned ones "
           "(their step time cannot reach the top). Beyond %2 points per series, every k-th "
           "layout in step-time order is drawn, and the caption says so.</p>")
            .arg(core::kPlanChartLayouts)
            .arg(kMaxPoints);
    m_view->setToolTip(explanation);
    m_caption->setToolTip(explanation);
    m_caption->setObjectName(QStringLiteral("planChartCaption"));
    m_caption->setWordWrap(true);
    m_caption->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    // Before a search, and after one that failed, a sentence in the chart's place: empty log
    // axes numbered 1 and 2 said nothing.
    m_message->setToolTip(explanation);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_message);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_caption);
    clear(tr("Run a search to see each layout it evaluated: its step time against the memory "
             "of its fullest stage."));
}

void PlanChart::setResult(const core::PlanResult &result, std::int64_t capacityBytes)
{
    m_fitPoints.clear();
    m_overPoints.clear();
    m_topPoints.clear();
    m_selectedPoint.reset();
    m_fitTotal = m_overTotal = 0;
    for (const core::PlanCandidate &c : result.evaluatedLayouts)
        ++(c.fits ? m_fitTotal : m_overTotal);
    // Every k-th in the planner's order (fastest first): the same shape, fewer markers.
    const qsizetype fitStride = std::max<qsizetype>(1, (m_fitTotal + kMaxPoints - 1) / kMaxPoints);
    const qsizetype overStride =
        std::max<qsizetype>(1, (m_overTotal + kMaxPoints - 1) / kMaxPoints);
    qsizetype fitSeen = 0;
    qsizetype overSeen = 0;
    m_fitPoints.reserve(static_cast<std::size_t>(drawnCount(m_fitTotal)));
    m_overPoints.reserve(static_cast<std::size_t>(drawnCount(m_overTotal)));
    for (const core::PlanCandidate &c : result.evaluatedLayouts) {
        const Point p{c.stepTimeS, static_cast<double>(c.peakStageBytes)};
        if (c.fits) {
            if (fitSeen++ % fitStride == 0)
                m_fitPoints.push_back(p);
        } else if (overSeen++ % overStride == 0) {
            m_overPoints.push_back(p);
        }
    }
    for (const core::PlanCandidate &c : result.candidates)
        m_topPoints.push_back({c.stepTimeS, static_cast<double>(c.peakStageBytes)});
    m_capacityBytes = static_cast<double>(capacityBytes);

    QStringList caption;
    if (result.pruned > 0)
        caption << tr("The layouts ranked, %1 more that fit and %1 that overflow, each "
                      "evaluated in full; log scales.")
                       .arg(core::kPlanChartLayouts);
    else
        caption << tr("Every layout evaluated in full; log scales.");
    if (m_overTotal > kMaxPoints)
        caption << tr("Drawing 1 in %1 of the %2 that overflow.")
                       .arg(overStride)
                       .arg(io::formatCount(m_overTotal));
    if (m_fitTotal > kMaxPoints)
        caption << tr("Drawing 1 in %1 of the %2 that fit.")
                       .arg(fitStride)
                       .arg(io::formatCount(m_fitTotal));
    m_caption->setText(caption.join(QLatin1Char(' ')));
    m_message->clear();
    m_stack->setCurrentWidget(m_view);
    redraw();
}

void PlanChart::clear(const QString &message)
{
    m_fitPoints.clear();
    m_overPoints.clear();
    m_topPoints.clear();
    m_selectedPoint.reset();
    m_fitTotal = m_overTotal = 0;
    m_capacityBytes = 0;
    m_caption->clear();
    m_message->setText(message);
    m_stack->setCurrentWidget(m_message);
    redraw();
}

void PlanChart::setSelected(const std::optional<core::PlanCandidate> &candidate)
{
    if (candidate)
        m_selectedPoint =
            Point{candidate->stepTimeS, static_cast<double>(candidate->peakStageBytes)};
    else
        m_selectedPoint.reset();
    m_selected->replace(m_selectedPoint ? points({*m_selectedPoint}) : QList<QPointF>());
}

void PlanChart::unitsChanged()
{
    redraw();
}

QList<QPointF> PlanChart::points(const std::vector<Point> &from) const
{
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(from.size()));
    for (const Point &p : from)
        out.append(QPointF(units::large(p.bytes), p.seconds));
    return out;
}

void PlanChart::redraw()
{
    m_over->replace(points(m_overPoints));
    m_fitting->replace(points(m_fitPoints));
    m_top->replace(points(m_topPoints));
    m_selected->replace(m_selectedPoint ? points({*m_selectedPoint}) : QList<QPointF>());
    m_memoryAxis->setTitleText(tr("Peak stage memory per device (%1)").arg(units::largeName()));
    const double capacity = units::large(m_capacityBytes);
    m_capacity->setName(tr("Capacity %1 %2").arg(capacity, 0, 'f', 1).arg(units::largeName()));
    // The points drawn are the layouts evaluated in full; the planner's summary counts every
    // layout that fits, pruned or not.
    m_fitting->setName(tr("Evaluated, fit (%1)").arg(io::formatCount(m_fitTotal)));
    m_over->setName(tr("Evaluated, overflow (%1)").arg(io::formatCount(m_overTotal)));
    m_top->setName(tr("Top %1").arg(m_topPoints.size()));
    m_selected->setName(tr("Selected"));
    // Before a search there is nothing to name: no "Capacity 0.0 GB", no empty counts.
    m_chart->legend()->setVisible(m_capacityBytes > 0);
    updateAxes();
}

void PlanChart::updateAxes()
{
    double lowBytes = m_capacityBytes;
    double highBytes = m_capacityBytes;
    double lowSeconds = 0;
    double highSeconds = 0;
    for (const auto *set : {&m_overPoints, &m_fitPoints, &m_topPoints})
        for (const Point &p : *set) {
            lowBytes = lowBytes > 0 ? std::min(lowBytes, p.bytes) : p.bytes;
            highBytes = std::max(highBytes, p.bytes);
            lowSeconds = lowSeconds > 0 ? std::min(lowSeconds, p.seconds) : p.seconds;
            highSeconds = std::max(highSeconds, p.seconds);
        }
    // The plot is the view less about six lines of text (legend, axis title and labels,
    // margins) until it is laid out; Qt elides every label of a vertical log axis once they
    // come closer than about two lines apart (seen at 1.7: "…" all down the axis). Along the
    // bottom a label takes about six characters.
    const QFontMetricsF labels(m_timeAxis->labelsFont());
    // Once laid out, the plot's own height says how many gaps fit: n labels have n − 1.
    const QRectF plot = m_chart->plotArea();
    const double plotHeight =
        plot.height() > 0 ? plot.height() : m_view->height() - 6 * labels.height();
    const int rows = static_cast<int>(plotHeight / (2 * labels.height())) + 1;
    const int columns = static_cast<int>(0.8 * m_view->width() / (6 * labels.averageCharWidth()));
    // A marker is drawn around its point: the range leaves it room at both ends, so that a
    // point just below a power of the base is not cut by the plot's edge.
    setLogRange(m_memoryAxis, units::large(lowBytes) / kMarkerRoom,
                units::large(highBytes) * kMarkerRoom, std::max(2, columns));
    setLogRange(m_timeAxis, lowSeconds / kMarkerRoom, highSeconds * kMarkerRoom, std::max(2, rows));

    const double capacity = units::large(m_capacityBytes);
    if (capacity > 0)
        m_capacity->replace(
            {QPointF(capacity, m_timeAxis->min()), QPointF(capacity, m_timeAxis->max())});
    else
        m_capacity->clear();
}

void PlanChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateAxes();
}

void PlanChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // Presentation mode scales the labels' font (chart_style::setScale) right after the
    // window's: read it once that is done.
    if (event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &PlanChart::updateAxes);
}

QString PlanChart::caption() const
{
    return m_caption->text();
}

QString PlanChart::message() const
{
    return m_stack->currentWidget() == m_message ? m_message->text() : QString();
}

QString PlanChart::memoryAxisTitle() const
{
    return m_memoryAxis->titleText();
}

} // namespace ui
