#pragma once

#include "core/report.h"

#include <QHash>
#include <QLine>
#include <QRect>
#include <QStaticText>
#include <QString>
#include <QVector>
#include <QWidget>
#include <array>
#include <vector>

namespace ui {

// The simulated pipeline schedule, one row per stage, painted by hand: at K=64
// and m=1024 it has ~200,000 blocks, more than Qt Charts redraws in a frame
// (docs/DESIGN.md §2). Blocks narrower than a few
// pixels are aggregated per pixel column and stage, merged into runs and drawn
// with one call per kind; the result is cached until the report, the zoom or the
// size changes. A playhead (teaching mode) hides what has not run yet.
class TimelineChart : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineChart(QWidget *parent = nullptr);

    void setReport(const core::Report &report);

    // Every block of the current schedule (empty when there is none).
    const std::vector<core::ScheduleOp> &blocks() const { return m_ops; }
    // What is drawn: blocks inside the visible range that started before the
    // playhead, each cut at it.
    std::vector<core::ScheduleOp> visibleBlocks() const;
    int stageCount() const { return m_stages; }
    // Drawn instead of blocks when there are none: why.
    const QString &message() const { return m_message; }
    double makespan() const { return m_makespan; }

    // The visible time range; zoom and pan change it, Home restores it.
    double visibleStart() const { return m_viewStart; }
    double visibleEnd() const { return m_viewEnd; }
    void setVisibleRange(double start, double end);
    void fitAll();

    // The playhead: the time up to which the schedule is drawn; at or past the makespan the
    // whole schedule shows and teaching mode is off.
    double playhead() const { return m_playhead; }
    void setPlayhead(double time);
    bool isTeaching() const { return m_playhead < m_makespan || m_held; }
    // A sweep that reached the end holds its final frame: the idle time tinted and the
    // bubble so far (then the whole step's) shown, until the next sweep or scenario.
    void holdEnd();
    bool isHeldAtEnd() const { return m_held; }
    // 1 - busy so far / (K × playhead), over the blocks drawn (docs/DESIGN.md §5).
    double bubbleSoFar() const;
    // The next block start or end after `time`, or the makespan.
    double nextEvent(double time) const;

    // Pixel columns drawn as aggregated runs in the last paint, for tests.
    int aggregatedRuns() const { return m_cache.runs; }
    // The send strips drawn in the last paint, for tests: one at the end of each block drawn
    // one by one that ends in a blocking send (ScheduleOp::send).
    const QVector<QRectF> &sendStrips() const { return m_cache.sends; }
    // Where the blocks are drawn: stage rows from the top, the visible range across.
    QRect plotArea() const { return plotRect(); }

    QSize sizeHint() const override { return {900, 420}; }
    QSize minimumSizeHint() const override { return {320, 180}; }

Q_SIGNALS:
    void playheadChanged(double time);
    void visibleRangeChanged(double start, double end);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    struct Label
    {
        QRectF rect;
        QString text;
        int kind = 0;
    };
    // What a paint needs, derived from the report, the range and the size.
    struct Cache
    {
        bool valid = false;
        QRect plot;
        std::array<QVector<QRectF>, 3> fills; // by OpKind
        std::array<QVector<QRectF>, 3> thin;  // runs too narrow to show a pattern
        std::vector<Label> labels;
        QVector<QLineF> edges; // left edges of blocks drawn one by one
        QVector<QRectF> sends; // the blocking send at the end of a block drawn one by one
        int runs = 0;
    };

    QRect plotRect() const;
    double timeAt(double x) const;
    double xAt(double time) const;
    void zoomAround(double time, double factor);
    void pan(double dt);
    void invalidate();
    void rebuild();
    void paintAxis(class QPainter &p, const QRect &plot) const;
    void paintLegend(class QPainter &p) const;
    bool isDark() const;

    std::vector<core::ScheduleOp> m_ops;
    mutable std::vector<double> m_events; // sorted distinct starts and ends, once asked for
    int m_stages = 0;
    double m_makespan = 0;
    bool m_units = false;
    bool m_chunks = false;
    bool m_hasW = false;
    bool m_hasSends = false;
    double m_busy = 0; // the blocks' total time
    QString m_message;

    double m_viewStart = 0;
    double m_viewEnd = 1;
    bool m_held = false;
    double m_playhead = 0;

    bool m_dragging = false;
    double m_dragX = 0;
    double m_dragStart = 0;

    Cache m_cache;
    std::vector<float> m_coverage; // K × columns × 3, reused between rebuilds
    // Block labels laid out once ("B12" shapes the same every frame); cleared on a font change.
    QHash<QString, QStaticText> m_labelText;
};

} // namespace ui
