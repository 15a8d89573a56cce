#pragma once

#include <QFont>
#include <QGraphicsObject>
#include <QList>
#include <QMargins>
#include <QPointer>
#include <QRectF>
#include <QSet>
#include <QStringList>

class QAbstractSeries;
class QChart;
class QLegendMarker;

namespace ui {

// A chart's legend under its plot in as many centred rows as its entries need, in place of
// Qt Charts' own, whose single row cuts every name to "1f1…" once they do not fit side by
// side (presentation mode's largest text beside the docks). Its text is the chart's legend
// font (chart_style::setScale scales it), shrunk to keep one row as far as
// chart_style::legendLeastScale allows; what still does not fit goes on to the next row. Its
// entries are the legend's markers of the series drawn, each a swatch in the marker's pen and
// brush and its label in full. Qt Charts' legend is hidden and keeps the markers, the font
// and the colour, which setScale and chart_style::applyPalette set.
class WrappingLegend : public QGraphicsObject
{
    Q_OBJECT

public:
    explicit WrappingLegend(QChart *chart);

    // A series drawn without an entry of its own (one whose line another's entry names).
    void leaveOut(QAbstractSeries *series);
    // The markers of the entries, in their order.
    QList<QLegendMarker *> markers() const;
    // Sets the chart's own margins, which the rows are added under (an export's tighter ones).
    void setChartMargins(const QMargins &margins);

    // What is drawn, for tests: the text size against the chart's legend font, the rows, and
    // each entry's label as drawn and its rectangle, swatch and label, in the chart's
    // coordinates.
    double scale() const { return m_scale; }
    int rows() const { return m_rows; }
    QStringList labels() const;
    QStringList shownLabels() const;
    QList<QRectF> entryRects() const;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    struct Entry
    {
        QPointer<QLegendMarker> marker;
        QString label; // in full
        QString shown; // as drawn: elided only where the entry alone is wider than the chart
        QRectF rect;
    };

    void watch();
    void relayout();

    QChart *m_chart;
    QMargins m_margins; // the chart's own, which the rows are added under
    QSet<QAbstractSeries *> m_leftOut;
    QList<Entry> m_entries;
    QFont m_font;
    double m_scale = 1;
    int m_rows = 0;
    QRectF m_bounds;
};

} // namespace ui
