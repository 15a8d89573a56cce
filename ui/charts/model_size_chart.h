#pragma once

#include "core/report.h"

#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace ui {
class BarLabels;
}

namespace ui {

// The model's weights at every precision against the capacity of one device
// and of T devices: the published size table (docs/worked-examples.md §1), live. Qt Charts stays
// inside.
class ModelSizeChart : public QWidget
{
    Q_OBJECT

public:
    explicit ModelSizeChart(QWidget *parent = nullptr);

    void setReport(const core::Report &report);

    // What is drawn, for tests: GB per precision, and the two capacity lines.
    QList<qreal> values() const;
    QStringList categories() const;
    // The precision whose bar is highlighted: the scenario's.
    QString highlighted() const;
    qreal deviceCapacityGb() const;
    qreal groupCapacityGb() const;
    // The value drawn above each bar ("1,620"), and where.
    const BarLabels *valueLabels() const { return m_labels; }

private:
    QChart *m_chart;
    QChartView *m_view;
    QBarSet *m_weights;
    QLineSeries *m_device;
    QLineSeries *m_group;
    QBarCategoryAxis *m_precisionAxis;
    QValueAxis *m_sizeAxis;
    QValueAxis *m_lineAxis;
    BarLabels *m_labels;
};

} // namespace ui
