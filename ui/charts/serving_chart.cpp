#include "ui/charts/serving_chart.h"

#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/wrapping_legend.h"
#include "ui/units.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

namespace ui {

namespace {

QChartView *newView(QChart *chart, QWidget *parent)
{
    auto *view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    return view;
}

void attach(QChart *chart, QAbstractSeries *series, QValueAxis *x, QValueAxis *y)
{
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
}

} // namespace

ServingChart::ServingChart(QWidget *parent)
    : QWidget(parent), m_curveChart(new QChart), m_curveView(newView(m_curveChart, this)),
      m_memoryBound(new QLineSeries), m_computeBound(new QLineSeries),
      m_current(new QScatterSeries), m_timeAxis(new QValueAxis), m_rateAxis(new QValueAxis),
      m_memoryChart(new QChart), m_memoryView(newView(m_memoryChart, this)),
      m_memory(new QLineSeries), m_capacity(new QLineSeries), m_context(new QScatterSeries),
      m_contextAxis(new QValueAxis), m_bytesAxis(new QValueAxis),
      // No mnemonic: the controls beside this page hold every letter of it (Tab reaches it).
      m_toInference(new QPushButton(tr("Switch to inference"), this))
{
    m_toInference->setObjectName(QStringLiteral("servingToInference"));
    m_toInference->setToolTip(
        tr("Sets the scenario's mode to inference: the prompt's prefill and one token at a "
           "time of decode, timed for this layout. Edit → Undo brings training back."));
    m_toInference->hide();
    connect(m_toInference, &QPushButton::clicked, this, &ServingChart::inferenceRequested);
    m_timeAxis->setTitleText(tr("Time per output token (ms)"));
    // Shortened to "Throughput (tokens/s)", then "tokens/s", on a short plot
    // (chart_style::keepAxesReadable).
    m_rateAxis->setTitleText(tr("Throughput per device (tokens/s)"));
    m_curveChart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_curveChart->addAxis(m_rateAxis, Qt::AlignLeft);
    m_memoryBound->setName(tr("Memory-bound"));
    m_computeBound->setName(tr("Compute-bound"));
    QPen pen(chart_style::blue(), 2.5);
    m_memoryBound->setPen(pen);
    pen.setColor(chart_style::orange());
    m_computeBound->setPen(pen);
    m_memoryBound->setPointsVisible(true);
    m_computeBound->setPointsVisible(true);
    m_current->setColor(chart_style::vermillion());
    m_current->setBorderColor(chart_style::black());
    m_current->setMarkerSize(13);
    for (QAbstractSeries *series :
         std::initializer_list<QAbstractSeries *>{m_memoryBound, m_computeBound, m_current})
        attach(m_curveChart, series, m_timeAxis, m_rateAxis);

    m_contextAxis->setTitleText(tr("Context (thousand tokens)"));
    m_memoryChart->addAxis(m_contextAxis, Qt::AlignBottom);
    m_memoryChart->addAxis(m_bytesAxis, Qt::AlignLeft);
    pen.setColor(chart_style::green());
    m_memory->setPen(pen);
    m_capacity->setPen(chart_style::capacityPen());
    m_context->setColor(chart_style::vermillion());
    m_context->setBorderColor(chart_style::black());
    m_context->setMarkerSize(13);
    for (QAbstractSeries *series :
         std::initializer_list<QAbstractSeries *>{m_memory, m_capacity, m_context})
        attach(m_memoryChart, series, m_contextAxis, m_bytesAxis);

    // Hovering a point of the curve names its batch and what bounds it.
    for (QLineSeries *line : {m_memoryBound, m_computeBound})
        connect(line, &QLineSeries::hovered, this, [this](const QPointF &at, bool entered) {
            if (entered)
                QToolTip::showText(QCursor::pos(), describe(at), m_curveView);
            else
                QToolTip::hideText();
        });
    for (QChart *chart : {m_curveChart, m_memoryChart}) {
        chart_style::keepAxesReadable(chart);
        chart_style::groupDigits(chart);
    }
    // Under each plot in rows that shrink, then wrap: side by side, Qt Charts' single row cut
    // the names to "Mem…" and "Sta…" on a 640-pixel export. A legend lists the series drawn,
    // so it empties with them when there is nothing to draw.
    m_curveLegend = new WrappingLegend(m_curveChart);
    m_memoryLegend = new WrappingLegend(m_memoryChart);
    for (QChart *chart : {m_curveChart, m_memoryChart})
        connect(chart, &QChart::plotAreaChanged, this, &ServingChart::fitTitles);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_curveView, 3);
    layout->addWidget(m_memoryView, 2);
}

void ServingChart::fitTitles()
{
    for (const auto &[chart, wordings] :
         {std::pair{m_curveChart, &m_curveTitles}, std::pair{m_memoryChart, &m_memoryTitles}}) {
        if (wordings->isEmpty())
            continue;
        // Qt Charts centres the title across the chart inside its margins and a line's room.
        const QFontMetricsF metrics(chart->titleFont());
        const double room = chart->size().width() - chart->margins().left() -
                            chart->margins().right() - metrics.height();
        QString shown = wordings->last();
        for (const QString &wording : *wordings)
            if (metrics.horizontalAdvance(wording) <= room) {
                shown = wording;
                break;
            }
        if (chart->title() != shown)
            chart->setTitle(shown);
    }
}

QStringList ServingChart::titles() const
{
    return {m_curveChart->title(), m_memoryChart->title()};
}

QStringList ServingChart::legendLabels() const
{
    return m_curveLegend->labels() + m_memoryLegend->labels();
}

QStringList ServingChart::shownLegendLabels() const
{
    return m_curveLegend->shownLabels() + m_memoryLegend->shownLabels();
}

void ServingChart::setOffersInference(bool offers)
{
    m_offersInference = offers;
    placeInferenceButton();
}

void ServingChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    placeInferenceButton();
}

void ServingChart::placeInferenceButton()
{
    const bool shown = m_offersInference && m_training;
    m_toInference->setVisible(shown);
    if (!shown)
        return;
    // Under the message, which is the curve's title, across the whole page: the memory plot
    // is hidden while there is nothing to draw.
    const QSize size = m_toInference->sizeHint();
    const int line = QFontMetrics(m_curveChart->titleFont()).height();
    m_toInference->setGeometry(QRect(QPoint((width() - size.width()) / 2, 5 * line), size));
    m_toInference->raise();
}

QString ServingChart::unavailableReason(const core::Report &report, bool noCurve)
{
    if (report.mode != core::Mode::inference)
        return tr("Serving is for inference: set Mode to inference");
    if (!report.serving || noCurve)
        return report.timeInLayerUnits
                   ? tr("No serving times: %1").arg(io::qs(report.untimedReason))
                   : tr("No serving times: a link this layout uses has no "
                        "published bandwidth (see the warnings)");
    return {};
}

void ServingChart::setReport(const core::Report &report,
                             const std::vector<core::ServingPoint> &curve)
{
    m_curve = curve;
    m_message = unavailableReason(report, curve.empty());
    m_training = report.mode != core::Mode::inference;
    placeInferenceButton();
    const bool drawn = m_message.isEmpty();
    for (QAbstractSeries *series : std::initializer_list<QAbstractSeries *>{
             m_memoryBound, m_computeBound, m_current, m_memory, m_capacity, m_context})
        series->setVisible(drawn);
    for (QValueAxis *axis : {m_timeAxis, m_rateAxis, m_contextAxis, m_bytesAxis})
        axis->setVisible(drawn);
    // Nothing to draw: the message takes the page's width, not a blank chart beside it.
    m_memoryView->setVisible(drawn);
    if (!drawn) {
        // The model and device are the caption's and the status line's: the title keeps to
        // what only this chart says.
        m_curveTitles = {m_message};
        m_memoryTitles = {QString()};
        fitTitles();
        return;
    }
    const core::ServingReport &sv = *report.serving;

    // The latency-throughput curve: the memory-bound points, then the compute-bound ones,
    // joined at the first compute-bound point.
    QList<QPointF> memory;
    QList<QPointF> compute;
    std::int64_t most = 0;
    double slowest = 0;
    double fastest = 0;
    for (const core::ServingPoint &p : curve) {
        const QPointF at(1e3 * p.timePerTokenS, p.tokensPerSPerDevice);
        (p.memoryBound ? memory : compute) << at;
        if (!p.memoryBound && compute.size() == 1 && !memory.isEmpty())
            memory << at;
        if (p.fits)
            most = std::max(most, p.batch);
        slowest = std::max(slowest, at.x());
        fastest = std::max(fastest, at.y());
    }
    m_memoryBound->replace(memory);
    m_computeBound->replace(compute);
    const QPointF here(1e3 * sv.decodeMeanS,
                       sv.decodeTokensPerS / std::max(sv.devicesPerReplica, 1));
    m_current->replace({here});
    m_current->setName(tr("This batch (%1)%2")
                           .arg(io::formatCount(sv.batch))
                           .arg(report.fits ? QString() : tr(", does not fit")));
    // The model and device are the caption's and the status line's: the title keeps to what
    // only this chart says.
    // Without a published link the times are lower bounds and the rates upper ones.
    const QString batches = tr("Batch 1 to %1").arg(io::formatCount(most));
    m_curveTitles = sv.linkTimeExcluded
                        ? QStringList{tr("%1; bounds: no link bandwidth published").arg(batches),
                                      tr("%1; bounds").arg(batches)}
                        : QStringList{tr("%1, the most that fit").arg(batches), batches};
    m_timeAxis->setTitleText(sv.linkTimeExcluded ? tr("Time per output token (ms, at least)")
                                                 : tr("Time per output token (ms)"));

    chart_style::setNiceRange(m_timeAxis, std::max(slowest, here.x()));
    chart_style::setNiceRange(m_rateAxis, std::max(fastest, here.y()));
    m_timeAxis->setLabelFormat(m_timeAxis->max() < 5 ? QStringLiteral("%.1f")
                                                     : QStringLiteral("%.0f"));
    m_rateAxis->setLabelFormat(QStringLiteral("%.0f"));

    // Memory against the context, for the stage that holds the most: everything but the
    // cache stays, the cache grows by the same bytes for every token.
    const auto fullest =
        std::max_element(report.stages.begin(), report.stages.end(),
                         [](const core::StageReport &a, const core::StageReport &b) {
                             return a.totalBytes < b.totalBytes;
                         });
    const double context = static_cast<double>(sv.promptTokens + sv.outputTokens);
    const double fixed = static_cast<double>(fullest->totalBytes - fullest->kvCacheBytes);
    const double perToken = static_cast<double>(fullest->kvCacheBytes) / context;
    const double end = 1.2 * std::max(context, static_cast<double>(sv.maxContext));
    const double capacity = units::large(static_cast<double>(fullest->capacityBytes));
    // Thousands of tokens on the axis: "120", not a cut "120,0…".
    m_memory->replace({QPointF(0, units::large(fixed)),
                       QPointF(end / 1e3, units::large(fixed + perToken * end))});
    m_memory->setName(tr("Stage %1").arg(fullest->index));
    m_capacity->replace({QPointF(0, capacity), QPointF(end / 1e3, capacity)});
    m_capacity->setName(tr("Capacity"));
    m_context->replace(
        {QPointF(context / 1e3, units::large(static_cast<double>(fullest->totalBytes)))});
    m_context->setName(tr("This context"));
    const QString upTo = tr("Up to %1 tokens").arg(io::formatCount(sv.maxContext));
    m_memoryTitles = {sv.maxContextIsModelWindow ? tr("%1: the model's window").arg(upTo)
                                                 : tr("%1 fit").arg(upTo),
                      upTo};
    fitTitles();
    m_bytesAxis->setTitleText(tr("Memory per device (%1)").arg(units::largeName()));
    chart_style::setNiceRange(m_contextAxis, end / 1e3);
    m_contextAxis->setLabelFormat(m_contextAxis->max() < 10 ? QStringLiteral("%.1f")
                                                            : QStringLiteral("%.0f"));
    m_bytesAxis->setLabelFormat(QStringLiteral("%.0f"));
    chart_style::setNiceRange(m_bytesAxis,
                              std::max(capacity, units::large(fixed + perToken * end)));
}

QList<QPointF> ServingChart::memoryBoundPoints() const
{
    return m_memoryBound->points();
}

QList<QPointF> ServingChart::computeBoundPoints() const
{
    return m_computeBound->points();
}

QPointF ServingChart::currentPoint() const
{
    return m_current->count() > 0 ? m_current->at(0) : QPointF();
}

QList<QPointF> ServingChart::memoryLine() const
{
    return m_memory->points();
}

qreal ServingChart::capacityGb() const
{
    return m_capacity->count() > 0 ? m_capacity->at(0).y() : 0;
}

QString ServingChart::describe(QPointF at) const
{
    const core::ServingPoint *nearest = nullptr;
    double best = 0;
    for (const core::ServingPoint &p : m_curve) {
        // Distance in each axis's own range, so that ms and tokens/s weigh alike.
        const double dx = (1e3 * p.timePerTokenS - at.x()) / std::max(m_timeAxis->max(), 1e-12);
        const double dy = (p.tokensPerSPerDevice - at.y()) / std::max(m_rateAxis->max(), 1e-12);
        const double d = dx * dx + dy * dy;
        if (!nearest || d < best) {
            nearest = &p;
            best = d;
        }
    }
    if (!nearest || best > 0.01)
        return {};
    return tr("Batch %1: %2 ms a token, %3 tokens/s per device, %4%5")
        .arg(io::formatCount(nearest->batch))
        .arg(1e3 * nearest->timePerTokenS, 0, 'f', 2)
        .arg(io::formatCount(std::llround(nearest->tokensPerSPerDevice)))
        .arg(nearest->memoryBound ? tr("memory-bound") : tr("compute-bound"))
        .arg(nearest->fits ? QString() : tr(" (does not fit)"));
}

QString ServingChart::message() const
{
    return m_message;
}

} // namespace ui
