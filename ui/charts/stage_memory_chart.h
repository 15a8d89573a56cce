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

class BarLabels;

// Memory of one device per pipeline stage, as stacked bars by term, with a
// line at the device's capacity. Qt Charts stays inside this class.
class StageMemoryChart : public QWidget
{
    Q_OBJECT

public:
    explicit StageMemoryChart(QWidget *parent = nullptr);

    // `compare`, when given, is a second plan drawn beside the first (File → Compare with…):
    // per stage, plan A's stacked bar ("A 3") and plan B's ("B 3") next to each other on
    // one value axis, each plan's capacity line named in the legend. A stage only one plan
    // has keeps an empty slot for the other.
    void setReport(const core::Report &report, const core::Report *compare = nullptr,
                   const QString &compareName = {});
    // Plan B's stage totals as drawn (empty when not comparing).
    QList<qreal> comparison() const;
    // Plan B's bar values of one term per stage of B, in GB (empty when not comparing).
    QList<qreal> comparisonValues(const QString &term) const;
    // Plan B's capacity line, in GB (0 when not comparing), and its legend entry.
    qreal comparisonCapacityGb() const;
    QString comparisonCapacityName() const;
    // The legend's visible entries, in order.
    QStringList legendLabels() const;

    // What is drawn, for tests: plan A's bar values per stage, in GB.
    QList<qreal> values(const QString &term) const;
    // The slots of one term drawn lighter, as plan B's.
    QList<int> lighterSlots(const QString &term) const;
    qreal capacityGb() const;
    QStringList categories() const;
    QString axisTitle() const;
    QString capacityName() const;
    // The stage labels as shown: "Stage 3" where there is room, "3" where not, and every
    // n-th number (the others blank) where even numbers would not fit, as at K = 64.
    QStringList shownLabels() const;
    // Each stage's total above its bar ("38.4"), clear of the capacity line.
    const BarLabels *totals() const { return m_totals; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    void labelStages();
    void fitLegend();
    void relayoutLegend();
    // The values of one term in the bars of plan `plan` (0: A, 1: B), per stage it has.
    QList<qreal> planValues(const QString &term, int plan) const;
    struct StageLabel
    {
        int index = 0;
        bool fits = true;
        int plan = -1;       // -1: not comparing; 0: plan A's bar; 1: plan B's
        bool present = true; // false: an empty slot, the stage is the other plan's only
    };
    QList<StageLabel> m_stages; // the bars' slots as the axis labels them, in order
    int m_plans = 1;            // slots per stage
    // A legend entry was shown or hidden while the chart was not on screen: Qt Charts lays
    // the legend out with the entries it had, so it is laid out again when shown.
    bool m_legendStale = false;
    QList<qreal> m_totalsB; // plan B's stage totals, in GB
    QChart *m_chart;
    QChartView *m_view;
    QStackedBarSeries *m_bars;
    QList<QBarSet *> m_sets;
    QLineSeries *m_capacity;
    QLineSeries *m_compareCapacity;
    QBarCategoryAxis *m_stageAxis;
    QValueAxis *m_memoryAxis;
    QValueAxis *m_lineAxis;
    BarLabels *m_totals;
};

} // namespace ui
