#pragma once

#include "core/memory_timeline.h"

#include <QPolygonF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

namespace ui {

// One device's memory against time through one step (core::memoryTimeline), painted by
// hand: a stage has 2 × m × v steps (2,048 at m = 1024), redrawn on every frame of a sweep.
// The terms no op changes are flat bands; activations and cached outputs step on them; the
// device's capacity is a dashed line and the peak is marked and labelled. During a sweep of
// the Timeline (ui::Playhead) only what ran before the playhead shows.
class MemoryStepChart : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryStepChart(QWidget *parent = nullptr);

    // `title` names the stage ("Stage 2"); `layerUnits`: times are layer-time units, not s.
    void setTimeline(core::MemoryTimeline timeline, const QString &title, bool layerUnits);
    // Drawn instead of a curve when there is none: why.
    void setMessage(const QString &message);
    const core::MemoryTimeline &timeline() const { return m_timeline; }
    const QString &message() const { return m_message; }

    // The playhead, in the timeline's times: while `sweeping` only [0, time) is drawn.
    void setPlayhead(double time, bool sweeping);
    double playhead() const { return m_playhead; }
    bool isSweeping() const { return m_sweeping; }
    // The time range across (the Timeline's, zoomed or not); an empty range is the whole step.
    void setVisibleRange(double start, double end);
    double visibleStart() const { return m_viewStart; }
    double visibleEnd() const { return m_viewEnd; }

    // What is drawn, for tests: the highest total of the curve in bytes, its label, the
    // points at or before the playhead, the axes' titles and the legend's entries.
    std::int64_t peakBytes() const;
    QString peakLabel() const;
    int drawnPoints() const;
    QString timeAxisTitle() const;
    // Whether that title is drawn: on a plot it would leave shorter than four lines (the
    // largest text beside the docks) its line goes to the plot, and the last time label
    // carries the unit.
    bool timeAxisTitleShown() const { return layout().timeTitle; }
    QString memoryAxisTitle() const;
    // What the chart draws at its present size: the title, shortened to the widget's width,
    // and the memory axis's title, shortened to the plot's height (at the largest text on a
    // projector both were cut at their ends).
    QString shownTitle() const;
    QString shownMemoryAxisTitle() const;
    // The peak's and the capacity's labels on the plot, the size alone where the whole does
    // not fit its width (at the largest text they ran over the memory axis).
    QString shownPeakLabel() const;
    QString shownCapacityLabel() const;
    // Where those two labels are drawn, in pixels. The peak's box sits above its marker where
    // it clears the capacity's line and label, else under the marker and under the line: its
    // opaque box hid the line when the peak was a line's height below the capacity.
    QRectF capacityLabelRect() const;
    QRectF peakLabelRect() const;
    QStringList legendEntries() const;
    // The memory axis's labels at the present size, bottom up.
    QStringList memoryAxisLabels() const;
    // Where the curve is drawn, where a memory level is drawn, and the total's outline as
    // last drawn, in pixels.
    QRect plotArea() const { return plotRect(); }
    // The legend's text size against the chart's, and where its entries are drawn: beside the
    // plot in a third of the width at most, its text shrinking (to chart_style's least) at
    // presentation mode's larger text, or under the plot where even that is too wide and the
    // plot keeps its height.
    double legendScale() const { return layout().legendScale; }
    QRect legendArea() const { return layout().legend; }
    double yOfBytes(double bytes) const { return yAt(bytes); }
    const QPolygonF &outline() const { return m_total; }
    // The tooltip at a point of the plot: the time and what is held then.
    QString toolTipAt(double time) const;

    QSize sizeHint() const override { return {900, 480}; }
    QSize minimumSizeHint() const override { return {360, 220}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Band
    {
        QString label;
        QColor colour;
        std::int64_t bytes = 0;
    };
    struct LegendEntry
    {
        QString text;
        QColor colour;
        int kind = 0; // 0 a filled box, 1 the capacity's dashed line, 2 the peak's marker
    };

    struct Layout
    {
        QRect plot;
        QRect legend;
        double legendScale = 1;
        int legendRows = 0;    // under the plot its entries run down the rows, then across
        bool timeTitle = true; // the time axis's title under its labels, or the unit on the last
    };
    const Layout &layout() const;
    Layout measureLayout() const;
    QFont legendFont(double scale) const;
    QRect plotRect() const { return layout().plot; }
    std::vector<LegendEntry> legend() const;
    double xAt(double time) const;
    double yAt(double bytes) const;
    double timeAt(double x) const;
    double topBytes() const;
    // The memory axis's labels on a plot `plotHeight` pixels high: their spacing and decimals.
    std::pair<double, int> memoryTicks(int plotHeight) const;
    double timeUnit(QString *name) const;
    void rebuild();
    void paintAxes(class QPainter &p, const QRect &plot) const;
    void paintLegend(class QPainter &p) const;

    core::MemoryTimeline m_timeline;
    QString m_title;
    QString m_message;
    bool m_layerUnits = false;
    std::vector<Band> m_bands; // the flat terms, bottom up
    double m_playhead = 0;
    bool m_sweeping = false;
    double m_viewStart = 0;
    double m_viewEnd = 0;

    // In pixels, rebuilt when the timeline, the range or the size changes.
    bool m_valid = false;
    // The plot's and the legend's places and the memory axis's top, kept until the size, the
    // font or the timeline changes (invalidate()).
    mutable std::optional<Layout> m_layoutCache;
    mutable std::optional<double> m_topCache;
    void invalidate();
    double measureTop() const;
    QPolygonF m_activations; // the activations' area above the flat bands
    QPolygonF m_loss;        // the loss buffers' area above the activations
    QPolygonF m_cached;      // the cached outputs' area above the loss buffers
    QPolygonF m_total;       // the outline of the total
};

} // namespace ui
