#pragma once

#include "core/report.h"

#include <QWidget>
#include <optional>
#include <utility>

class QLabel;
class QStackedLayout;

namespace ui {

// Where one step's time goes on each pipeline stage: a stacked bar per stage, one segment per
// part of core::kTimeParts, every bar reaching the step time (docs/step_time.md); the busiest
// stage, which sets the pace, marked. Without seconds (layer-time units, a link of unknown
// bandwidth) it says why instead. Painted by hand: at K = 64 Qt Charts' 640 bar items cost
// more than a frame on every edit.
class StepTimeChart : public QWidget
{
    Q_OBJECT

public:
    explicit StepTimeChart(QWidget *parent = nullptr);

    // `compare`, when given, is a second plan (File → Compare with…): per stage, plan A's bar
    // and plan B's side by side on one time axis, each plan's step time a line of its own.
    // Plan B is drawn only when it has a step time in seconds.
    void setReport(const core::Report &report, const core::Report *compare = nullptr,
                   const QString &compareName = {});

    // What is drawn, for tests. A part's bar values per stage, in the value axis's unit.
    QList<qreal> values(core::TimePart part) const;
    // Plan B's, per stage of B (empty when not comparing).
    QList<qreal> comparisonValues(core::TimePart part) const;
    bool isComparing() const { return !m_stagesB.empty(); }
    // Seconds per unit of the value axis: 1, 1e-3 (ms) or 1e-6 (µs).
    double secondsPerUnit() const { return m_secondsPerUnit; }
    QString axisTitle() const;
    QString title() const { return m_title; }
    // The stage axis's labels, left to right: every n-th stage when they do not all fit.
    QStringList stageLabels() const;
    // The legend's visible entries: the parts this scenario has, the step time, the busiest.
    QStringList legendLabels() const;
    // The legend's text size against the chart's at the bars' current size: below 1 where the
    // rows would not fit the chart's height at full size.
    double legendScale() const;
    int busiestStage() const { return m_busiest; }
    // Where evaluate warns of it (moe-host): the MoE layers' untimed wait, as seconds on top of
    // the step, drawn as a dashed range over the busiest stage's bar; {0, 0} elsewhere.
    std::pair<double, double> moeHostRange() const { return {m_moeHostLowS, m_moeHostHighS}; }
    // What the chart says instead of drawing bars; empty when it draws them.
    QString message() const { return m_message; }
    // That message for a report, before any chart is made.
    static QString unavailableReason(const core::Report &report);
    // The hover text of a bar segment of plan A's (plan 0) or plan B's (1).
    QString toolTipFor(int stage, core::TimePart part, int plan = 0) const;
    // Where `value` (in the axis's unit) on stage `stage`'s bar is drawn, in the bars
    // widget's coordinates; the widget is findChild<QWidget *>("stepTimeBars").
    QPointF positionOf(int stage, double value) const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    friend class StepTimeBars;
    struct Layout
    {
        QRectF plot;
        QRectF legend;
        double top = 1;  // the value axis's top, in its unit
        double tick = 1; // between ticks, in its unit
        // The legend's text size against the chart's: below 1 where its rows would run past
        // the chart's bottom (large text on a short chart), never below
        // chart_style::kLegendMinScale.
        double legendScale = 1;
    };
    QFont legendFont(const Layout &l) const;
    Layout layout(const QSize &size) const;
    void relabelStages();
    int stageCount() const;
    // A plan's bar in a stage's slot, as fractions of the slot's width.
    std::pair<double, double> barSpan(int plan) const;
    enum class Entry
    {
        part,
        stepA,
        stepB,
        busiest,
        moeHost,
    };
    QList<std::pair<QString, Entry>> legendEntries() const;
    struct Hit
    {
        int stage = -1;
        int plan = 0;
        std::optional<core::TimePart> part;
    };
    void paintBars(class QPainter &p, const QSize &size) const;
    // The stage, plan and part under a point of the bars widget; part is empty off the bars.
    Hit hit(const QPointF &at) const;

    QStackedLayout *m_stack;
    QLabel *m_messageLabel;
    QWidget *m_bars;

    QString m_message;
    std::vector<core::TimeBreakdown> m_stages; // seconds, as the report gives them
    double m_stepTimeS = 0;
    int m_busiest = -1;
    std::vector<core::TimeBreakdown> m_stagesB; // plan B's, empty when not comparing
    double m_stepTimeSB = 0;
    int m_busiestB = -1;
    QString m_compareName;
    double m_secondsPerUnit = 1;
    QString m_axisTitle;
    QString m_axisUnit; // its unit, shown alone where the title does not fit
    // "Where one step's time goes, by pipeline stage"; in inference the step is the prefill,
    // and without a published link its time is a lower bound.
    QString m_title;
    bool m_atLeast = false; // the step time is a lower bound (a link's time not published)
    double m_moeHostLowS = 0;
    double m_moeHostHighS = 0;
    QStringList m_stageLabels;
    QList<int> m_labelledStages;
};

} // namespace ui
