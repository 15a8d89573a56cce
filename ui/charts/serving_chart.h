#pragma once

#include "core/evaluate.h"
#include "core/report.h"

#include <QWidget>
#include <vector>

class QChart;
class QChartView;
class QLineSeries;
class QLogValueAxis;
class QPushButton;
class QScatterSeries;
class QValueAxis;

namespace ui {

class WrappingLegend;

// Serving (docs/inference.md), two charts side by side. Left: throughput per device against
// time per output token as the batch grows from 1 to the most that fit, the memory-bound
// part of the curve apart from the compute-bound part, the scenario's batch marked. Right:
// memory per device of the fullest stage against the context, with the capacity line and
// the longest context that fits. Qt Charts stays inside.
class ServingChart : public QWidget
{
    Q_OBJECT

public:
    explicit ServingChart(QWidget *parent = nullptr);

    // `curve` is core::servingCurve of the report's scenario; empty outside inference.
    void setReport(const core::Report &report, const std::vector<core::ServingPoint> &curve);
    // What the chart says instead of drawing, for this report; empty when it draws.
    static QString unavailableReason(const core::Report &report, bool noCurve = false);
    // In the window (not in an exported image): a training scenario gets a button under the
    // message that asks for inference (inferenceRequested).
    void setOffersInference(bool offers);
    // The button, for tests: visible while it is offered and the scenario trains.
    QPushButton *inferenceButton() const { return m_toInference; }

    // What is drawn, for tests: the curve's points (ms, tokens/s per device) in its memory-
    // and compute-bound series, the marked batch, and the memory line's ends and capacity.
    QList<QPointF> memoryBoundPoints() const;
    QList<QPointF> computeBoundPoints() const;
    QPointF currentPoint() const;
    QList<QPointF> memoryLine() const;
    qreal capacityGb() const;
    QString message() const; // why there is nothing to draw, or empty
    // Both legends' entries, the curve's then the memory's: in full, and as drawn.
    QStringList legendLabels() const;
    QStringList shownLegendLabels() const;
    // The two plots' titles as shown: the longest of each one's wordings that fits its width
    // (Qt Charts cut "Up to 131,072 tokens: the model's window" to "…: the model'…").
    QStringList titles() const;
    // The tooltip of the curve's point nearest `at` (ms, tokens/s per device): its batch,
    // time per token, throughput and bound; empty off the curve.
    QString describe(QPointF at) const;

Q_SIGNALS:
    // The "Switch to inference" button was pressed.
    void inferenceRequested();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QChart *m_curveChart;
    QChartView *m_curveView;
    QLineSeries *m_memoryBound;
    QLineSeries *m_computeBound;
    QScatterSeries *m_current;
    QValueAxis *m_timeAxis;
    QValueAxis *m_rateAxis;
    QChart *m_memoryChart;
    QChartView *m_memoryView;
    QLineSeries *m_memory;
    QLineSeries *m_capacity;
    QScatterSeries *m_context;
    QValueAxis *m_contextAxis;
    QValueAxis *m_bytesAxis;
    void fitTitles();
    // Shows the inference button, centred on the empty plot, when it applies.
    void placeInferenceButton();
    QPushButton *m_toInference;
    bool m_offersInference = false;
    bool m_training = false;

    QStringList m_curveTitles; // each plot's title, then shorter wordings of it
    QStringList m_memoryTitles;
    WrappingLegend *m_curveLegend = nullptr;
    WrappingLegend *m_memoryLegend = nullptr;
    QString m_message;
    std::vector<core::ServingPoint> m_curve;
};

} // namespace ui
