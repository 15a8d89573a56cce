#pragma once

#include <QList>
#include <QObject>
#include <QPointF>
#include <QRectF>
#include <QStringList>

class QAbstractSeries;
class QChart;
class QGraphicsSimpleTextItem;
class QValueAxis;

namespace ui {

// A value above each bar, placed by hand: Qt Charts formats bar labels with %g ("1.62e+03"
// for Llama 3.1 405B in FP32) and puts them where the bar ends, on a capacity line when
// one is there (issue #18 §5). A label that would touch one of the horizontal lines
// (setLines) moves up until it is clear of them. The labels take the value axis's font and
// colour, so presentation mode and exports (chart_style::setScale) scale them too.
class BarLabels : public QObject
{
public:
    // `series` maps a bar's (category index, value) to the chart; `axis` is its value axis.
    BarLabels(QChart *chart, QAbstractSeries *series, QValueAxis *axis);

    // One label per bar: tops[i] = (category index, the bar's top value), texts[i] its text.
    void setLabels(const QList<QPointF> &tops, const QStringList &texts);
    // Values of horizontal lines drawn across the plot (device capacity).
    void setLines(const QList<qreal> &values);

    // The labels shown: none when the widest is wider than a bar's slot (K = 64).
    QStringList texts() const;
    // Where each label shown is drawn, in the chart's coordinates; for tests.
    QList<QRectF> rects() const;
    // Where a line is drawn, in the chart's coordinates.
    qreal lineY(qreal value) const;

private:
    void place();

    QChart *m_chart;
    QAbstractSeries *m_series;
    QValueAxis *m_axis;
    QList<QPointF> m_tops;
    QList<qreal> m_lines;
    QList<QGraphicsSimpleTextItem *> m_items; // the chart's children: it deletes them
};

// "1,620", "282", "70.6", "2.36": three significant digits, thousands separated, never an
// exponent; for values drawn in a chart.
QString chartNumber(double value);

} // namespace ui
