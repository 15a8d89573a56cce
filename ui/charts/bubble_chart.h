#pragma once

#include "core/report.h"
#include "core/scenario.h"

#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QWidget>

class QChart;
class QGraphicsSimpleTextItem;
class QChartView;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace ui {

class WrappingLegend;

// Bubble fraction against the number of micro-batches m (log axis) for the
// current K, one closed-form curve per schedule, with the current scenario's
// simulated point marked and labelled. Qt Charts stays inside this class.
class BubbleChart : public QWidget
{
    Q_OBJECT

public:
    explicit BubbleChart(QWidget *parent = nullptr);

    // `compareReport`, when given, marks a second plan's simulated point too
    // (File → Compare with…).
    void setScenario(const core::Scenario &scenario, const core::Report &report,
                     const core::Scenario *compareScenario = nullptr,
                     const core::Report *compareReport = nullptr, const QString &compareName = {});
    // Plan B's point (m, percent); null when not comparing.
    QPointF compareMarker() const;

    // What is drawn, for tests: points in (m, percent).
    QList<QPointF> curve(core::Schedule schedule) const;
    QPointF marker() const;
    QString markerLabel() const;
    // Where the marker's label is drawn, in the chart's coordinates, and the curves' names
    // in the legend (GPipe's and 1F1B's curves are one: a single entry says so).
    QRectF markerLabelRect() const;
    QStringList legendNames() const;
    // The legend as drawn at the chart's present size (ui::WrappingLegend): every entry's
    // label in full and as shown, its rectangle in the chart's coordinates, its text size
    // against the chart's legend font and its rows.
    QStringList legendLabels() const;
    QStringList shownLegendLabels() const;
    QList<QRectF> legendRects() const;
    double legendScale() const;
    int legendRows() const;
    // A point (m, percent) in the chart's coordinates.
    QPointF positionOf(QPointF value) const;

private:
    void placeLabel();
    QChart *m_chart;
    QChartView *m_view;
    QHash<int, QLineSeries *> m_curves;
    QScatterSeries *m_marker;
    QScatterSeries *m_compare;
    QLogValueAxis *m_mAxis;
    QValueAxis *m_bubbleAxis;
    int m_stages = 0;
    int m_virtualStages = 0;
    QGraphicsSimpleTextItem *m_label;   // the marker's label, owned by the chart
    WrappingLegend *m_legend = nullptr; // owned by the chart
    QString m_labelText;                // the label in full; m_shortLabel without the simulation's
    QString m_shortLabel;
};

} // namespace ui
