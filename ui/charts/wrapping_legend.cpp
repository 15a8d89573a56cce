#include "ui/charts/wrapping_legend.h"

#include "ui/charts/chart_style.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QPainter>
#include <cmath>

namespace ui {

namespace {

// Above and below a row's text, as Qt Charts' legend.
constexpr double kLegendRowMargin = 3;

// Above and below the rows, half a line of their text: as far from the axis's title as
// Qt Charts' legend was.
double legendPadding(const QFontMetricsF &metrics)
{
    return metrics.height() / 2;
}

// An entry at a font `metrics.height()` high: a swatch of half that, a quarter of it before
// the label, then the label; entries three quarters of it apart, as Qt Charts' legend.
double swatchOf(const QFontMetricsF &metrics)
{
    return metrics.height() / 2;
}
double entryWidth(const QFontMetricsF &metrics, const QString &label)
{
    return 0.75 * metrics.height() + metrics.horizontalAdvance(label);
}
double entryGap(const QFontMetricsF &metrics)
{
    return 0.75 * metrics.height();
}

} // namespace

WrappingLegend::WrappingLegend(QChart *chart)
    : QGraphicsObject(chart), m_chart(chart), m_margins(chart->margins())
{
    setZValue(10);
    QLegend *legend = chart->legend();
    legend->setVisible(false);
    m_font = legend->font();
    connect(chart, &QGraphicsWidget::geometryChanged, this, &WrappingLegend::relayout);
    connect(legend, &QLegend::fontChanged, this, &WrappingLegend::relayout);
    connect(legend, &QLegend::labelColorChanged, this, [this] { update(); });
    relayout();
}

void WrappingLegend::leaveOut(QAbstractSeries *series)
{
    m_leftOut.insert(series);
    relayout();
}

void WrappingLegend::setChartMargins(const QMargins &margins)
{
    m_margins = margins;
    relayout();
}

QList<QLegendMarker *> WrappingLegend::markers() const
{
    QList<QLegendMarker *> out;
    for (const Entry &entry : m_entries)
        if (entry.marker)
            out << entry.marker;
    return out;
}

void WrappingLegend::watch()
{
    for (QAbstractSeries *series : m_chart->series())
        connect(series, &QAbstractSeries::visibleChanged, this, &WrappingLegend::relayout,
                Qt::UniqueConnection);
    for (QLegendMarker *marker : m_chart->legend()->markers()) {
        connect(marker, &QLegendMarker::labelChanged, this, &WrappingLegend::relayout,
                Qt::UniqueConnection);
        connect(marker, &QLegendMarker::penChanged, this, &WrappingLegend::relayout,
                Qt::UniqueConnection);
        connect(marker, &QLegendMarker::brushChanged, this, &WrappingLegend::relayout,
                Qt::UniqueConnection);
    }
}

void WrappingLegend::relayout()
{
    watch();
    // The markers of the series drawn, as Qt Charts' legend lists them (its markers' own
    // visibility follows the hidden legend's).
    QList<Entry> entries;
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (marker->series() && marker->series()->isVisible() &&
            !m_leftOut.contains(marker->series()) && !marker->label().isEmpty())
            entries.push_back({marker, marker->label(), marker->label(), {}});

    // The chart's width inside its margins, and the bottom of what it lays out.
    qreal left = 0, top = 0, right = 0, bottom = 0;
    if (QGraphicsLayout *layout = m_chart->layout())
        layout->getContentsMargins(&left, &top, &right, &bottom);
    const QRectF area = QRectF(QPointF(), m_chart->size())
                            .adjusted(left + m_margins.left(), top, -right - m_margins.right(),
                                      -bottom - m_margins.bottom());
    const double room = area.width();

    // One row where smaller text gives it one, as far as presentation mode's larger text may
    // shrink; rows of that text beyond it.
    const QFont full = m_chart->legend()->font();
    const QFontMetricsF fullMetrics(full);
    double text = 0;
    for (const Entry &entry : std::as_const(entries))
        text += entryWidth(fullMetrics, entry.label) + entryGap(fullMetrics);
    if (!entries.isEmpty())
        text -= entryGap(fullMetrics);
    m_scale = room > 0 ? chart_style::legendScale(
                             room, text, 0,
                             chart_style::legendLeastScale(chart_style::textScale(m_chart)))
                       : 1.0;
    m_font = full;
    if (m_scale < 1)
        m_font.setPointSizeF(full.pointSizeF() * m_scale);
    const QFontMetricsF metrics(m_font);
    const double gap = entryGap(metrics);
    const double rowHeight = metrics.height() + 2 * kLegendRowMargin;

    // Each row as full as it goes; an entry wider than the chart alone is elided to its width.
    QList<QList<qsizetype>> rows;
    QList<double> rowWidths;
    for (qsizetype i = 0; room > 0 && i < entries.size(); ++i) {
        Entry &entry = entries[i];
        double width = entryWidth(metrics, entry.label);
        if (width > room) {
            entry.shown = metrics.elidedText(entry.label, Qt::ElideRight,
                                             room - entryWidth(metrics, QString()));
            width = entryWidth(metrics, entry.shown);
        }
        entry.rect.setWidth(width);
        if (rows.isEmpty() || rowWidths.back() + gap + width > room) {
            rows.push_back({});
            rowWidths.push_back(-gap);
        }
        rows.back().push_back(i);
        rowWidths.back() += gap + width;
    }
    const double padding = rows.isEmpty() ? 0.0 : legendPadding(metrics);
    const double height = rowHeight * static_cast<double>(rows.size()) + 2 * padding;
    QRectF bounds;
    for (qsizetype r = 0; r < rows.size(); ++r) {
        double x = area.left() + (room - rowWidths[r]) / 2;
        const double y = area.bottom() - height + padding + rowHeight * static_cast<double>(r);
        for (qsizetype i : std::as_const(rows[r])) {
            Entry &entry = entries[i];
            entry.rect = QRectF(x, y, entry.rect.width(), rowHeight);
            x += entry.rect.width() + gap;
            bounds |= entry.rect;
        }
    }
    prepareGeometryChange();
    m_entries = entries;
    m_rows = static_cast<int>(rows.size());
    m_bounds = bounds;

    // The chart lays its plot and axes out above the rows.
    QMargins margins = m_margins;
    margins.setBottom(m_margins.bottom() + static_cast<int>(std::ceil(height)));
    if (m_chart->margins() != margins)
        m_chart->setMargins(margins);
    update();
}

QStringList WrappingLegend::labels() const
{
    QStringList out;
    for (const Entry &entry : m_entries)
        out << entry.label;
    return out;
}

QStringList WrappingLegend::shownLabels() const
{
    QStringList out;
    for (const Entry &entry : m_entries)
        out << entry.shown;
    return out;
}

QList<QRectF> WrappingLegend::entryRects() const
{
    QList<QRectF> out;
    for (const Entry &entry : m_entries)
        out << entry.rect;
    return out;
}

QRectF WrappingLegend::boundingRect() const
{
    return m_bounds;
}

void WrappingLegend::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    const QFontMetricsF metrics(m_font);
    const double swatch = swatchOf(metrics);
    const QColor text = m_chart->legend()->labelColor();
    painter->save();
    painter->setFont(m_font);
    for (const Entry &entry : std::as_const(m_entries)) {
        if (!entry.marker)
            continue;
        const double middle = entry.rect.center().y();
        painter->setPen(entry.marker->pen());
        painter->setBrush(entry.marker->brush());
        painter->drawRect(QRectF(entry.rect.left(), middle - swatch / 2, swatch, swatch));
        painter->setPen(text);
        painter->drawText(QPointF(entry.rect.left() + swatch + metrics.height() / 4,
                                  middle - metrics.height() / 2 + metrics.ascent()),
                          entry.shown);
    }
    painter->restore();
}

} // namespace ui
