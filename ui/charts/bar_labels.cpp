#include "ui/charts/bar_labels.h"

#include "io/text.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ui {

BarLabels::BarLabels(QChart *chart, QAbstractSeries *series, QValueAxis *axis)
    : QObject(chart), m_chart(chart), m_series(series), m_axis(axis)
{
    // Laid out again whenever the plot, the range or the font moves the bars.
    connect(chart, &QChart::plotAreaChanged, this, &BarLabels::place, Qt::QueuedConnection);
    connect(axis, &QValueAxis::rangeChanged, this, &BarLabels::place, Qt::QueuedConnection);
    connect(axis, &QAbstractAxis::labelsFontChanged, this, &BarLabels::place, Qt::QueuedConnection);
    connect(axis, &QAbstractAxis::labelsBrushChanged, this, &BarLabels::place,
            Qt::QueuedConnection);
}

void BarLabels::setLabels(const QList<QPointF> &tops, const QStringList &texts)
{
    m_tops = tops;
    while (m_items.size() > tops.size())
        delete m_items.takeLast();
    while (m_items.size() < tops.size()) {
        auto *item = new QGraphicsSimpleTextItem(m_chart);
        item->setZValue(100); // above the bars and the lines
        m_items.append(item);
    }
    for (qsizetype i = 0; i < texts.size() && i < m_items.size(); ++i)
        m_items[i]->setText(texts[i]);
    place();
}

void BarLabels::setLines(const QList<qreal> &values)
{
    m_lines = values;
    place();
}

QStringList BarLabels::texts() const
{
    QStringList out;
    for (const QGraphicsSimpleTextItem *item : m_items)
        if (item->isVisible())
            out << item->text();
    return out;
}

QList<QRectF> BarLabels::rects() const
{
    QList<QRectF> out;
    for (const QGraphicsSimpleTextItem *item : m_items)
        if (item->isVisible())
            out << item->mapRectToParent(item->boundingRect());
    return out;
}

qreal BarLabels::lineY(qreal value) const
{
    return m_chart->mapToPosition(QPointF(0, value), m_series).y();
}

void BarLabels::place()
{
    QFont font = m_axis->labelsFont();
    font.setBold(true);
    const QFontMetricsF metrics(font);
    const qreal gap = metrics.height() * 0.2;
    // The line's own width (2.5 px at scale 1) grows with the text; keep a margin of it.
    const qreal clearance = metrics.height() * 0.25;
    QList<qreal> lines;
    for (qreal value : std::as_const(m_lines))
        lines << lineY(value);
    std::sort(lines.begin(), lines.end(), std::greater<>()); // bottom first
    // Labels wider than a bar's slot would run into each other (K = 64): none then.
    qreal widest = 0;
    for (const QGraphicsSimpleTextItem *item : std::as_const(m_items))
        widest = std::max(widest, metrics.horizontalAdvance(item->text()));
    const qreal slot = m_chart->mapToPosition(QPointF(1, 0), m_series).x() -
                       m_chart->mapToPosition(QPointF(0, 0), m_series).x();
    const bool room = m_chart->plotArea().width() > 0 && widest <= 0.95 * slot;
    for (qsizetype i = 0; i < m_items.size() && i < m_tops.size(); ++i) {
        QGraphicsSimpleTextItem *item = m_items[i];
        item->setFont(font);
        item->setBrush(m_axis->labelsBrush());
        const QPointF top = m_chart->mapToPosition(m_tops[i], m_series);
        const qreal width = metrics.horizontalAdvance(item->text());
        qreal bottom = top.y() - gap;
        for (qreal y : std::as_const(lines))
            if (bottom + clearance > y && bottom - metrics.height() - clearance < y)
                bottom = y - clearance; // on the line: just above it
        item->setPos(top.x() - width / 2, bottom - metrics.height());
        item->setVisible(room);
    }
}

QString chartNumber(double value)
{
    if (!std::isfinite(value))
        return QString::number(value);
    const double magnitude = std::abs(value);
    const int decimals =
        magnitude < 1e-9 ? 0 : std::clamp(2 - int(std::floor(std::log10(magnitude))), 0, 3);
    const QString fixed = QString::number(magnitude, 'f', decimals);
    const qsizetype dot = fixed.indexOf(QLatin1Char('.'));
    QString out = io::formatCount(fixed.left(dot < 0 ? fixed.size() : dot).toLongLong());
    if (dot >= 0)
        out += fixed.mid(dot);
    return value < 0 && fixed.toDouble() != 0 ? QLatin1Char('-') + out : out;
}

} // namespace ui
