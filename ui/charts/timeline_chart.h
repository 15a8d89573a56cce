#pragma once

#include "core/report.h"

#include <QBrush>
#include <QHash>
#include <QImage>
#include <QLine>
#include <QRect>
#include <QStaticText>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <array>
#include <vector>

namespace ui {

// The simulated pipeline schedule, one row per stage, painted by hand: at K=64
// and m=1024 it has ~200,000 blocks, more than Qt Charts redraws in a frame
// (docs/DESIGN.md §2). Blocks narrower than a few
// pixels are aggregated per pixel column and stage into one image, each column's
// row split into an F, a B and a W band by their shares of it, so that a
// zoomed-out schedule shows both phases; the result is cached until the report,
// the zoom or the size changes. A playhead (teaching mode) hides what has not run
// yet. The chunks of an interleaved schedule, DualPipeV's two in a V or DualPipe's two
// directions, are shades of their phase's colour.
//
// Controls (controlsHelp(), the chart's tooltip): the wheel zooms about the
// pointer, Shift+wheel and a drag pan, a drag on the time axis or with the right
// button zooms to that range, + / - zoom, Left / Right pan, Home shows the whole
// step. Hovering a block shows its stage, micro-batch, phase, chunk, times and send.
class TimelineChart : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineChart(QWidget *parent = nullptr);

    // `schedule` is the one the report's timeline ran (inference: gpipe): it names
    // DualPipeV's chunks, DualPipe's directions and their pairs; the others' blocks read alike.
    void setReport(const core::Report &report, core::Schedule schedule = core::Schedule::oneFOneB);

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
    // The time axis's title: its unit, and when zoomed in the range shown.
    QString axisTitle() const;
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

    // Model chunks per stage: v when interleaved, 2 with DualPipeV and DualPipe, else 1.
    int chunkCount() const { return m_chunkCount; }
    // The fill of a block drawn on its own: its phase's colour, shaded by its chunk.
    QColor blockColor(core::OpKind kind, int chunk) const;

    // The legend's texts as drawn: in full, or each brief when the full ones do not fit.
    QStringList legendTexts() const;

    // The block drawn under `pos`, or null: the one covering that time on that stage's row, or
    // when zoomed out the nearest within a few pixels.
    const core::ScheduleOp *blockAt(QPointF pos) const;
    // What the tooltip at `pos` says: the block's details, or how to zoom and pan.
    QString toolTipAt(QPointF pos) const;
    // The other op of the pair `op` runs in (ScheduleOp::paired), on its stage, or null:
    // DualPipe(V) pairs a forward with the backward after it, ep_overlap a backward with the
    // forward after it.
    const core::ScheduleOp *partnerOf(const core::ScheduleOp &op) const;
    static QString controlsHelp();
    // A duration or a time, with its unit: s, ms, µs, or layer-times when untimed.
    static QString formatTime(double value, bool layerUnits, int digits = 4);

    // (stage, pixel column) cells drawn aggregated in the last paint, for tests.
    int aggregatedColumns() const { return m_cache.aggregated; }
    // The send strips drawn in the last paint, for tests: one at the end of each block drawn
    // one by one that ends in a blocking send (ScheduleOp::send).
    const QVector<QRectF> &sendStrips() const { return m_cache.sends; }
    // The all-to-all bands drawn in the last paint, for tests: along the bottom of each block
    // drawn one by one whose MoE layers dispatch tokens (ScheduleOp::expertComm).
    const QVector<QRectF> &expertCommBands() const { return m_cache.expertComms; }
    // The offload-wait bands drawn in the last paint, for tests: along the top of each block
    // drawn one by one that waits for its activation copies (ScheduleOp::offloadWait).
    const QVector<QRectF> &offloadWaitBands() const { return m_cache.offloadWaits; }
    // The plot's bands, after the last paint, of each stage's first forward drawn one by one
    // that waits for its parameters' gather (ScheduleOp::gatherWait).
    const QVector<QRectF> &gatherWaitBands() const { return m_cache.gatherWaits; }
    // Where the blocks are drawn: stage rows from the top, the visible range across.
    QRect plotArea() const { return plotRect(); }
    // Whether a range is being dragged out on the time axis (or with the right button).
    bool isSelectingRange() const { return m_selecting; }

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
    bool event(QEvent *event) override;

private:
    struct LegendEntry
    {
        QBrush fill;
        QBrush pattern;
        QString text;  // in full
        QString brief; // when the full texts do not fit the width
        bool send = false;
        bool expertComm = false;
        bool offloadWait = false;
        bool gatherWait = false;
    };
    struct Label
    {
        QRectF rect;
        QString text;
        QColor pen;
    };
    // What a paint needs, derived from the report, the range and the size.
    struct Cache
    {
        bool valid = false;
        QRect plot;
        int deviceScale = 1;
        std::vector<QVector<QRectF>> fills; // blocks drawn one by one, by fillIndex
        QImage aggregate; // the narrow blocks' bands over the plot, transparent where idle
        std::vector<Label> labels;
        QVector<QLineF> edges;        // left edges of blocks drawn one by one
        QVector<QRectF> sends;        // the blocking send at the end of a block drawn one by one
        QVector<QRectF> expertComms;  // each block's share of all-to-all, along its bottom
        QVector<QRectF> offloadWaits; // each block's wait for host copies, along its top
        QVector<QRectF> gatherWaits;  // a first forward's wait for its parameters, at its start
        int aggregated = 0;
    };

    int fillIndex(int kind, int chunk) const { return kind * m_chunkCount + chunk; }
    QRect plotRect() const;
    bool onTimeAxis(QPointF pos) const;
    double timeAt(double x) const;
    double xAt(double time) const;
    void zoomAround(double time, double factor);
    void pan(double dt);
    void invalidate();
    void rebuild(int deviceScale);
    double axisUnit(QString *name) const;
    void paintAxis(class QPainter &p, const QRect &plot) const;
    // The legend's entries; a chunk's shades of each phase into `shades`, when given.
    std::vector<LegendEntry> legendEntries(std::vector<std::vector<QColor>> *shades) const;
    bool legendIsBrief(const std::vector<LegendEntry> &entries) const;
    int legendLeft(const std::vector<LegendEntry> &entries, bool brief) const;
    void paintLegend(class QPainter &p) const;
    bool isDark() const;
    void indexStages() const;
    QString chunkText(const core::ScheduleOp &op) const;

    std::vector<core::ScheduleOp> m_ops;
    core::Schedule m_schedule = core::Schedule::oneFOneB;
    mutable std::vector<double> m_events; // sorted distinct starts and ends, once asked for
    int m_stages = 0;
    double m_makespan = 0;
    bool m_units = false;
    bool m_chunks = false;
    int m_chunkCount = 1;
    bool m_hasW = false;
    bool m_hasSends = false;
    bool m_hasExpertComm = false;
    bool m_hasOffloadWait = false;
    bool m_hasGatherWait = false;
    double m_busy = 0; // the blocks' total time
    QString m_message;

    double m_viewStart = 0;
    double m_viewEnd = 1;
    bool m_held = false;
    double m_playhead = 0;

    bool m_dragging = false;
    double m_dragX = 0;
    double m_dragStart = 0;
    bool m_selecting = false; // a range on the time axis, to zoom to
    double m_selectFrom = 0;
    double m_selectTo = 0;

    Cache m_cache;
    std::vector<float> m_coverage;     // K × columns × 3, reused between rebuilds
    std::vector<QBrush> m_fillBrushes; // by fillIndex: the shade with its phase's pattern
    // Each stage's blocks by start time, once a tooltip asks.
    mutable std::vector<std::vector<int>> m_byStage;
    // Block labels laid out once ("B12" shapes the same every frame); cleared on a font change.
    QHash<QString, QStaticText> m_labelText;
};

} // namespace ui
