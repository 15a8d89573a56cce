#pragma once

#include "core/report.h"

#include <QWidget>

class QBarSet;
class QCategoryAxis;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QStackedBarSeries;
class QStackedLayout;
class QValueAxis;

namespace ui {

// Where one step's time goes on each pipeline stage: a stacked bar per stage, one segment per
// part of core::kTimeParts, every bar reaching the step time (docs/step_time.md); the busiest
// stage, which sets the pace, marked. Without seconds (layer-time units, a link of unknown
// bandwidth) it says why instead. Qt Charts stays inside this class.
class StepTimeChart : public QWidget
{
    Q_OBJECT

public:
    explicit StepTimeChart(QWidget *parent = nullptr);

    void setReport(const core::Report &report);

    // What is drawn, for tests. A part's bar values per stage, in the value axis's unit.
    QList<qreal> values(core::TimePart part) const;
    // Seconds per unit of the value axis: 1, 1e-3 (ms) or 1e-6 (µs).
    double secondsPerUnit() const { return m_secondsPerUnit; }
    QString axisTitle() const;
    // The stage axis's labels, left to right: every n-th stage when they do not all fit.
    QStringList stageLabels() const;
    // The legend's visible entries: the parts this scenario has, the step time, the busiest.
    QStringList legendLabels() const;
    int busiestStage() const { return m_busiest; }
    // What the chart says instead of drawing bars; empty when it draws them.
    QString message() const { return m_message; }
    // The hover text of a bar segment.
    QString toolTipFor(int stage, core::TimePart part) const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void relabelStages();
    void hovered(bool status, int stage, core::TimePart part);

    QStackedLayout *m_stack;
    QLabel *m_messageLabel;
    QChart *m_chart;
    QChartView *m_view;
    QStackedBarSeries *m_bars;
    QList<QBarSet *> m_sets; // in core::kTimeParts order
    QLineSeries *m_stepLine;
    QScatterSeries *m_busiestMarker;
    QCategoryAxis *m_stageAxis;
    QValueAxis *m_timeAxis;

    QString m_message;
    std::vector<core::TimeBreakdown> m_stages; // seconds, as the report gives them
    double m_stepTimeS = 0;
    int m_busiest = -1;
    double m_secondsPerUnit = 1;
};

} // namespace ui
