#pragma once

#include "core/report.h"

#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLineSeries;
class QScatterSeries;
class QStackedBarSeries;
class QValueAxis;

namespace ui {

class BarLabels;

// Memory of one device per pipeline stage, as stacked bars by term, with a
// line at the device's capacity. Qt Charts stays inside this class.
class StageMemoryChart : public QWidget
{
    Q_OBJECT

public:
    explicit StageMemoryChart(QWidget *parent = nullptr);

    // `compare`, when given, is a second plan drawn over the first: its stage
    // totals as diamonds (File → Compare with…).
    void setReport(const core::Report &report, const core::Report *compare = nullptr,
                   const QString &compareName = {});
    // Plan B's stage totals as drawn (empty when not comparing).
    QList<qreal> comparison() const;

    // What is drawn, for tests: the bar set's values per stage, in GB.
    QList<qreal> values(const QString &term) const;
    qreal capacityGb() const;
    QStringList categories() const;
    QString axisTitle() const;
    QString capacityName() const;
    // The stage labels as shown: "Stage 3" where there is room, "3" where not, and every
    // n-th number (the others blank) where even numbers would not fit, as at K = 64.
    QStringList shownLabels() const;
    // Each stage's total above its bar ("38.4"), clear of the capacity line.
    const BarLabels *totals() const { return m_totals; }

private:
    void labelStages();
    void fitLegend();
    struct StageLabel
    {
        int index = 0;
        bool fits = true;
    };
    QList<StageLabel> m_stages; // what the axis labels, in order
    QChart *m_chart;
    QChartView *m_view;
    QStackedBarSeries *m_bars;
    QList<QBarSet *> m_sets;
    QLineSeries *m_capacity;
    QScatterSeries *m_compare;
    QLineSeries *m_compareCapacity;
    QBarCategoryAxis *m_stageAxis;
    QValueAxis *m_memoryAxis;
    QValueAxis *m_lineAxis;
    BarLabels *m_totals;
};

} // namespace ui
