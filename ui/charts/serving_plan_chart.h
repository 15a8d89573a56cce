#pragma once

#include "core/serving_plan.h"

#include <QWidget>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QStackedWidget;
class QValueAxis;

namespace ui {

// The deployment planner's candidates as the latency–throughput trade-off of their shapes:
// each timed candidate a point of time per output token (ms) against output tokens per
// second per device, memory-bound and compute-bound shapes apart, the selected row ringed.
// A shape whose links publish no bandwidth is a hollow point at its bounds. Without any
// time to draw it shows why in words instead of an empty plot. Qt Charts stays
// inside this class.
class ServingPlanChart : public QWidget
{
    Q_OBJECT

public:
    explicit ServingPlanChart(QWidget *parent = nullptr);

    // Draws a search's candidates (ServingPlanResult::candidates, at most Top of them).
    void setResult(const core::ServingPlanResult &result);
    // Nothing to draw: `message` in the chart's place.
    void clear(const QString &message);
    // Rings the selected candidate's point, or nothing.
    void setSelected(const std::optional<core::ServingCandidate> &candidate);

    // What is drawn, for tests.
    QScatterSeries *memoryBoundSeries() const { return m_memoryBound; }
    QScatterSeries *computeBoundSeries() const { return m_computeBound; }
    QScatterSeries *selectedSeries() const { return m_selected; }
    // Shapes whose links publish no bandwidth: their times are lower bounds.
    QScatterSeries *boundsSeries() const { return m_bounds; }
    // The shapes no other beats on both time per token and throughput per device.
    QLineSeries *frontierSeries() const { return m_frontier; }
    QValueAxis *timeAxis() const { return m_timeAxis; }
    QValueAxis *rateAxis() const { return m_rateAxis; }
    // Why there is no plot; empty while one is shown.
    QString message() const;
    QString caption() const;
    // The tooltip of the candidate nearest `at` (ms, tokens/s per device).
    QString describe(QPointF at) const;

Q_SIGNALS:
    // A candidate's point was clicked: its index in ServingPlanResult::candidates.
    void candidateClicked(int index);

private:
    // The candidate nearest `at` on screen, or -1.
    int nearest(QPointF at) const;

    QStackedWidget *m_stack;
    QChart *m_chart;
    QChartView *m_view;
    QLabel *m_message;
    QLabel *m_caption;
    QScatterSeries *m_memoryBound;
    QScatterSeries *m_computeBound;
    QScatterSeries *m_selected;
    QScatterSeries *m_bounds;
    QLineSeries *m_frontier;
    QValueAxis *m_timeAxis;
    QValueAxis *m_rateAxis;
    std::vector<core::ServingCandidate> m_candidates; // as the result holds them
};

} // namespace ui
