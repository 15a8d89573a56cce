#pragma once

#include "core/report.h"

#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLineSeries;
class QStackedBarSeries;
class QValueAxis;

namespace ui {

// Memory of one device per pipeline stage, as stacked bars by term, with a
// line at the device's capacity. Qt Charts stays inside this class.
class StageMemoryChart : public QWidget
{
    Q_OBJECT

public:
    explicit StageMemoryChart(QWidget *parent = nullptr);

    void setReport(const core::Report &report);

    // What is drawn, for tests: the bar set's values per stage, in GB.
    QList<qreal> values(const QString &term) const;
    qreal capacityGb() const;
    QStringList categories() const;
    QString axisTitle() const;
    QString capacityName() const;

private:
    QChart *m_chart;
    QChartView *m_view;
    QStackedBarSeries *m_bars;
    QList<QBarSet *> m_sets;
    QLineSeries *m_capacity;
    QBarCategoryAxis *m_stageAxis;
    QValueAxis *m_memoryAxis;
    QValueAxis *m_lineAxis;
};

} // namespace ui
