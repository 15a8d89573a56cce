#pragma once

#include "core/planner.h"

#include <QWidget>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QStackedWidget;

namespace ui {

// The planner's search as a scatter: every layout it evaluated in full, step time against
// the memory of its fullest stage (both on log scales: the cloud spans tens to thousands of
// GB and a hundredfold in time), with the device's capacity as a line. Layouts that fit
// and those that do not are two series; the top candidates and the selected one are marked
// on top. Qt Charts stays inside this class.
class PlanChart : public QWidget
{
    Q_OBJECT

public:
    // At most this many points per series: beyond it every k-th layout is drawn, in the
    // planner's order (fastest first), so the cloud keeps its shape and the chart its speed.
    static constexpr qsizetype kMaxPoints = 4000;
    // The factor the axes leave beyond the lowest and highest point, room for a marker.
    static constexpr double kMarkerRoom = 1.15;
    // How many of `total` layouts a series draws.
    static qsizetype drawnCount(qsizetype total);

    explicit PlanChart(QWidget *parent = nullptr);

    // Draws a search's evaluated layouts against a device's capacity (bytes).
    void setResult(const core::PlanResult &result, std::int64_t capacityBytes);
    // No search to show: `message` in the chart's place (no empty axes), no caption.
    void clear(const QString &message);
    // Rings the selected candidate's point, or nothing.
    void setSelected(const std::optional<core::PlanCandidate> &candidate);
    // The window switched between GB and GiB.
    void unitsChanged();

    // What is drawn, for tests.
    QScatterSeries *fittingSeries() const { return m_fitting; }
    QScatterSeries *overSeries() const { return m_over; }
    QScatterSeries *topSeries() const { return m_top; }
    QScatterSeries *selectedSeries() const { return m_selected; }
    QLineSeries *capacitySeries() const { return m_capacity; }
    QString caption() const;
    // The text shown in the chart's place, or empty while the chart is shown.
    QString message() const;
    QString memoryAxisTitle() const;

Q_SIGNALS:
    // A top candidate's point was clicked: its index in PlanResult::candidates.
    void candidateClicked(int index);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Point
    {
        double seconds = 0;
        double bytes = 0;
    };
    void redraw();
    // The log axes' ranges and bases for the points and the chart's size; the capacity line.
    void updateAxes();
    QList<QPointF> points(const std::vector<Point> &from) const;

    QChart *m_chart;
    QChartView *m_view;
    QScatterSeries *m_over;
    QScatterSeries *m_fitting;
    QScatterSeries *m_top;
    QScatterSeries *m_selected;
    QLineSeries *m_capacity;
    QLogValueAxis *m_memoryAxis;
    QLogValueAxis *m_timeAxis;
    QLabel *m_caption;
    QStackedWidget *m_stack;
    QLabel *m_message;

    std::vector<Point> m_fitPoints; // thinned
    std::vector<Point> m_overPoints;
    std::vector<Point> m_topPoints;
    std::optional<Point> m_selectedPoint;
    qint64 m_fitTotal = 0;
    qint64 m_overTotal = 0;
    double m_capacityBytes = 0;
};

} // namespace ui
