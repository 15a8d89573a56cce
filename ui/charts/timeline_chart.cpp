#include "ui/charts/timeline_chart.h"

#include "core/schedule.h"
#include "ui/charts/chart_style.h"

#include <QEvent>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

using core::OpKind;

// Blocks at least this wide are drawn one by one; narrower ones are aggregated.
constexpr double kDetailPx = 3.0;
constexpr int kPad = 6;
// Hatching and dots need a few pixels to show; narrower runs are drawn plain.
constexpr int kPatternPx = 4;
// Qt's raster engine fills this many pixel rows or more on its thread pool (qdrawhelper.cpp,
// QT_THREAD_PARALLEL_FILLS); bands of kBandRows stay below it.
constexpr double kThreadedRows = 96;
constexpr int kBandRows = 64;

int kindIndex(OpKind kind)
{
    return static_cast<int>(kind);
}

QColor kindColor(int kind)
{
    switch (kind) {
    case 0:
        return chart_style::blue();
    case 1:
        return chart_style::orange();
    default:
        return chart_style::green();
    }
}

// Without colour: F plain, B hatched, W dotted.
Qt::BrushStyle kindPattern(int kind)
{
    switch (kind) {
    case 0:
        return Qt::NoBrush;
    case 1:
        return Qt::BDiagPattern;
    default:
        return Qt::Dense6Pattern;
    }
}

// A colour with its phase's pattern already laid over it, as one opaque 8 × 8 tile: one
// fill per block instead of a colour fill plus a translucent pattern fill, the same pixels.
QImage patternTile(const QColor &color, int kind)
{
    QImage tile(8, 8, QImage::Format_ARGB32_Premultiplied);
    tile.fill(color);
    if (kindPattern(kind) != Qt::NoBrush) {
        QPainter p(&tile);
        p.fillRect(tile.rect(), QBrush(QColor(0, 0, 0, 110), kindPattern(kind)));
    }
    return tile;
}

QBrush patternFill(const QColor &color, int kind)
{
    return kindPattern(kind) == Qt::NoBrush ? QBrush(color) : QBrush(patternTile(color, kind));
}

// The phases' tiles' pixels, row by row, for the aggregated bands.
using TilePixels = std::array<QRgb, 64>;
const std::array<TilePixels, 3> &kindTiles()
{
    static const std::array<TilePixels, 3> tiles = [] {
        std::array<TilePixels, 3> out{};
        for (int k = 0; k < 3; ++k) {
            const QImage tile = patternTile(kindColor(k), k);
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x)
                    out[std::size_t(k)][std::size_t(8 * y + x)] = tile.pixel(x, y);
        }
        return out;
    }();
    return tiles;
}

// On whole 8-bit channels, as the pixels drawn are.
QColor mixed(const QColor &a, const QColor &b, double t)
{
    const auto channel = [t](int x, int y) { return int(std::lround(x + (y - x) * t)); };
    return QColor(channel(a.red(), b.red()), channel(a.green(), b.green()),
                  channel(a.blue(), b.blue()));
}

// Black on light fills (orange, the light chunks), white on dark ones; brightness as
// ITU-R BT.601 weighs it.
QColor textOn(const QColor &fill)
{
    const double brightness =
        (0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()) / 255;
    return brightness > 0.55 ? QColor(0, 0, 0) : QColor(255, 255, 255);
}

// A block's blocking send, darkening its end: at least two pixels wide, so that it shows before
// the view is zoomed in to its true width, and never more than a third of the block.
constexpr double kSendMinPx = 2.0;
QColor sendShade()
{
    return QColor(0, 0, 0, 150);
}

// A block's MoE all-to-all (docs/experts.md): a crossed band along its bottom quarter, as wide
// as the all-to-all's share of the block, the step-time chart's pattern for it.
QBrush expertCommBrush()
{
    return QBrush(QColor(0, 0, 0, 170), Qt::DiagCrossPattern);
}

// A block's wait for its activation copies to or from host memory (offload_layers): a dotted
// band along its top quarter at its end, as wide as the wait, the step-time chart's pattern for
// it.
QBrush offloadWaitBrush()
{
    return QBrush(QColor(0, 0, 0, 190), Qt::Dense4Pattern);
}

// A first forward's wait for its stage's one-bucket parameter gather (Megatron-LM's later
// stages): sparse dots over the block's start, full height, as wide as the wait.
QBrush gatherWaitBrush()
{
    return QBrush(QColor(0, 0, 0, 200), Qt::Dense6Pattern);
}

// A step of 1, 2 or 5 × 10^k giving ticks at least `minStep` apart.
double niceStep(double minStep)
{
    const double magnitude = std::pow(10.0, std::floor(std::log10(minStep)));
    for (double factor : {1.0, 2.0, 5.0, 10.0})
        if (magnitude * factor >= minStep)
            return magnitude * factor;
    return magnitude * 10;
}

// A number of the axis unit with enough decimals to tell `span` apart.
QString axisNumber(double value, double span)
{
    const int decimals = std::clamp(2 - int(std::floor(std::log10(span))), 0, 6);
    return QString::number(value, 'f', decimals);
}

} // namespace

TimelineChart::TimelineChart(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    // The right button drags out a range to zoom to.
    setContextMenuPolicy(Qt::PreventContextMenu);
    m_message = tr("No schedule to show.");
}

QColor TimelineChart::blockColor(OpKind kind, int chunk) const
{
    const QColor base = kindColor(kindIndex(kind));
    if (m_chunkCount <= 1)
        return base;
    // From a darker shade for the first chunk to a lighter one for the last; the middle
    // of an odd count is the phase's own colour.
    const double t = double(std::clamp(chunk, 0, m_chunkCount - 1)) / (m_chunkCount - 1);
    return t < 0.5 ? mixed(base, QColor(0, 0, 0), 0.35 * (1 - 2 * t))
                   : mixed(base, QColor(255, 255, 255), 0.5 * (2 * t - 1));
}

QString TimelineChart::formatTime(double value, bool layerUnits, int digits)
{
    const auto number = [digits](double v) {
        if (v == 0)
            return QStringLiteral("0");
        const int decimals =
            std::clamp(digits - 1 - int(std::floor(std::log10(std::abs(v)))), 0, digits);
        return QString::number(v, 'f', decimals);
    };
    if (layerUnits)
        return tr("%1 layer-times").arg(number(value));
    const double magnitude = std::abs(value);
    if (magnitude >= 1 || magnitude == 0)
        return tr("%1 s").arg(number(value));
    if (magnitude >= 1e-3)
        return tr("%1 ms").arg(number(value * 1e3));
    if (magnitude >= 1e-6)
        return tr("%1 µs").arg(number(value * 1e6));
    return tr("%1 ns").arg(number(value * 1e9));
}

QString TimelineChart::controlsHelp()
{
    return tr("<b>Zoom</b>: the wheel (about the pointer), + and −, or drag over a range on the "
              "time axis (or with the right button)<br>"
              "<b>Pan</b>: drag, Shift+wheel, ← and →<br>"
              "<b>The whole step</b>: Home<br>"
              "Hover a block for its details; Space plays the schedule.");
}

void TimelineChart::setReport(const core::Report &report, core::Schedule schedule)
{
    m_schedule = schedule;
    m_ops.clear();
    m_events.clear();
    m_stages = 0;
    m_makespan = 0;
    m_message.clear();
    if (!report.ok()) {
        m_message = tr("The scenario is invalid: no schedule to show.");
    } else if (report.timelineRefused) {
        m_message = tr("Too many blocks to draw: %1.")
                        .arg(QString::fromStdString(report.timelineRefused->toString()));
    } else if (report.timeline.empty() || report.makespanS <= 0) {
        m_message = tr("No schedule to show.");
    } else {
        m_ops = report.timeline;
        m_stages = std::max(report.pp, 1);
        m_chunks = false;
        m_chunkCount = 1;
        m_hasW = false;
        m_hasSends = false;
        m_hasExpertComm = false;
        m_hasOffloadWait = false;
        m_hasGatherWait = false;
        m_busy = 0;
        // One pass: at K=64, m=1024 each pass over the blocks is a tenth of a frame.
        for (const auto &op : m_ops) {
            m_stages = std::max(m_stages, op.stage + 1);
            m_chunks = m_chunks || op.chunk > 0;
            m_chunkCount = std::max(m_chunkCount, op.chunk + 1);
            m_hasW = m_hasW || op.kind == OpKind::weight;
            m_hasSends = m_hasSends || op.send > 0;
            m_hasExpertComm = m_hasExpertComm || op.expertComm > 0;
            m_hasOffloadWait = m_hasOffloadWait || op.offloadWait > 0;
            m_hasGatherWait = m_hasGatherWait || op.gatherWait > 0;
            m_busy += op.end - op.start;
        }
        m_makespan = report.makespanS;
        m_units = report.timeInLayerUnits;
    }
    m_byStage.clear();
    m_fillBrushes.clear();
    for (int k = 0; k < 3; ++k)
        for (int chunk = 0; chunk < m_chunkCount; ++chunk)
            m_fillBrushes.push_back(patternFill(blockColor(OpKind(k), chunk), k));
    m_selecting = false;
    m_viewStart = 0;
    m_viewEnd = m_makespan > 0 ? m_makespan : 1;
    m_playhead = m_makespan;
    m_held = false;
    invalidate();
    Q_EMIT visibleRangeChanged(m_viewStart, m_viewEnd);
    Q_EMIT playheadChanged(m_playhead);
}

std::vector<core::ScheduleOp> TimelineChart::visibleBlocks() const
{
    std::vector<core::ScheduleOp> out;
    for (const auto &op : m_ops) {
        if (op.start >= m_playhead || op.end <= m_viewStart || op.start >= m_viewEnd)
            continue;
        core::ScheduleOp drawn = op;
        drawn.end = std::min(op.end, m_playhead);
        out.push_back(drawn);
    }
    return out;
}

void TimelineChart::setVisibleRange(double start, double end)
{
    if (m_makespan <= 0)
        return;
    const double minSpan = m_makespan * 1e-5;
    double span = std::clamp(end - start, minSpan, m_makespan);
    start = std::clamp(start, 0.0, m_makespan - span);
    if (start == m_viewStart && start + span == m_viewEnd)
        return;
    m_viewStart = start;
    m_viewEnd = start + span;
    invalidate();
    Q_EMIT visibleRangeChanged(m_viewStart, m_viewEnd);
}

void TimelineChart::fitAll()
{
    setVisibleRange(0, m_makespan);
}

void TimelineChart::holdEnd()
{
    m_held = true;
    setPlayhead(m_makespan);
    update();
    Q_EMIT playheadChanged(m_playhead);
}

void TimelineChart::setPlayhead(double time)
{
    time = std::clamp(time, 0.0, m_makespan);
    if (time < m_makespan)
        m_held = false;
    if (time == m_playhead)
        return;
    m_playhead = time;
    update(); // the cache does not depend on the playhead: painting clips at it
    Q_EMIT playheadChanged(m_playhead);
}

double TimelineChart::bubbleSoFar() const
{
    if (m_playhead <= 0 || m_stages == 0)
        return 0;
    if (m_playhead >= m_makespan)
        return 1.0 - m_busy / (m_stages * m_playhead);
    double busy = 0;
    for (const auto &op : m_ops)
        if (op.start < m_playhead)
            busy += std::min(op.end, m_playhead) - op.start;
    return 1.0 - busy / (m_stages * m_playhead);
}

double TimelineChart::nextEvent(double time) const
{
    // Sorted on the first step, not on every new report: at K=64, m=1024 sorting the
    // 262,144 starts and ends takes longer than drawing them.
    if (m_events.empty() && !m_ops.empty()) {
        m_events.reserve(2 * m_ops.size());
        for (const auto &op : m_ops) {
            m_events.push_back(op.start);
            m_events.push_back(op.end);
        }
        std::sort(m_events.begin(), m_events.end());
        m_events.erase(std::unique(m_events.begin(), m_events.end()), m_events.end());
    }
    const auto it = std::upper_bound(m_events.begin(), m_events.end(), time);
    return it == m_events.end() ? m_makespan : *it;
}

QRect TimelineChart::plotRect() const
{
    const QFontMetrics fm = fontMetrics();
    const int labelWidth =
        fm.horizontalAdvance(tr("Stage %1").arg(std::max(m_stages - 1, 0))) + 2 * kPad;
    const int legendHeight = fm.height() + 2 * kPad;
    const int axisHeight = 2 * fm.height() + 3 * kPad;
    return QRect(labelWidth, legendHeight, std::max(width() - labelWidth - 2 * kPad, 1),
                 std::max(height() - legendHeight - axisHeight, 1));
}

double TimelineChart::timeAt(double x) const
{
    const QRect plot = plotRect();
    return m_viewStart + (x - plot.left()) / plot.width() * (m_viewEnd - m_viewStart);
}

double TimelineChart::xAt(double time) const
{
    const QRect plot = plotRect();
    return plot.left() + (time - m_viewStart) / (m_viewEnd - m_viewStart) * plot.width();
}

void TimelineChart::zoomAround(double time, double factor)
{
    const double start = time - (time - m_viewStart) / factor;
    const double end = time + (m_viewEnd - time) / factor;
    setVisibleRange(start, end);
}

void TimelineChart::pan(double dt)
{
    setVisibleRange(m_viewStart + dt, m_viewEnd + dt);
}

void TimelineChart::invalidate()
{
    m_cache.valid = false;
    update();
}

bool TimelineChart::isDark() const
{
    return palette().color(QPalette::Window).lightness() < 128;
}

bool TimelineChart::onTimeAxis(QPointF pos) const
{
    const QRect plot = plotRect();
    return pos.y() > plot.bottom() && pos.x() >= plot.left() - kPad &&
           pos.x() <= plot.right() + kPad;
}

void TimelineChart::rebuild(int deviceScale)
{
    Cache &c = m_cache;
    c.plot = plotRect();
    c.deviceScale = deviceScale;
    c.fills.resize(std::size_t(3 * m_chunkCount));
    for (auto &f : c.fills)
        f.clear();
    c.labels.clear();
    c.edges.clear();
    c.sends.clear();
    c.expertComms.clear();
    c.offloadWaits.clear();
    c.gatherWaits.clear();
    c.aggregated = 0;
    c.valid = true;
    if (m_ops.empty()) {
        c.aggregate = QImage();
        return;
    }

    const QRect plot = c.plot;
    const int columns = plot.width();
    const double rowHeight = double(plot.height()) / m_stages;
    const double gap = rowHeight >= 8 ? 2 : 0;
    const double scale = columns / (m_viewEnd - m_viewStart);
    m_coverage.assign(std::size_t(m_stages) * std::size_t(columns) * 3, 0.0f);
    std::vector<char> stageHasCoverage(std::size_t(m_stages), false);
    const QFontMetrics fm = fontMetrics();
    const bool roomForText = rowHeight - gap >= fm.height();

    for (const auto &op : m_ops) {
        if (op.end <= m_viewStart || op.start >= m_viewEnd)
            continue;
        const double x0 = (op.start - m_viewStart) * scale;
        const double x1 = (op.end - m_viewStart) * scale;
        const int kind = kindIndex(op.kind);
        if (x1 - x0 >= kDetailPx) {
            const double left = std::max(x0, -1.0) + plot.left();
            const double right = std::min(x1, columns + 1.0) + plot.left();
            const QRectF r(left, plot.top() + op.stage * rowHeight + gap / 2, right - left,
                           rowHeight - gap);
            c.fills[std::size_t(fillIndex(kind, op.chunk))].push_back(r);
            c.edges.push_back(QLineF(r.topLeft(), r.bottomLeft()));
            // The send's strip, also when the block's end lies past the right edge: zoomed in,
            // the send may be all that is in view of it.
            if (op.send > 0) {
                const double tail = std::min(std::max(op.send * scale, kSendMinPx), (x1 - x0) / 3);
                const double from = std::max(x1 - tail, -1.0);
                const double to = std::min(x1, columns + 1.0);
                if (to > from)
                    c.sends.push_back(QRectF(plot.left() + from, r.top(), to - from, r.height()));
            }
            if (op.expertComm > 0) {
                const double width = op.expertComm * scale;
                const double from = std::max(x0, -1.0);
                const double to = std::min(x0 + width, columns + 1.0);
                if (to > from)
                    c.expertComms.push_back(QRectF(plot.left() + from, r.bottom() - r.height() / 4,
                                                   to - from, r.height() / 4));
            }
            if (op.offloadWait > 0) {
                const double width = std::max(op.offloadWait * scale, kSendMinPx);
                const double from = std::max(x1 - width, -1.0);
                const double to = std::min(x1, columns + 1.0);
                if (to > from)
                    c.offloadWaits.push_back(
                        QRectF(plot.left() + from, r.top(), to - from, r.height() / 4));
            }
            if (op.gatherWait > 0) {
                const double width = std::max(op.gatherWait * scale, kSendMinPx);
                const double from = std::max(x0, -1.0);
                const double to = std::min(x0 + width, columns + 1.0);
                if (to > from)
                    c.gatherWaits.push_back(
                        QRectF(plot.left() + from, r.top(), to - from, r.height()));
            }
            if (!roomForText)
                continue;
            // DualPipe's reverse direction numbers its micro-batches m/2..m-1 (dualpipe.py):
            // the number alone names the direction, which the shade shows too.
            const QString mb = m_chunks && m_schedule != core::Schedule::dualPipe
                                   ? QStringLiteral("%1.%2").arg(op.microbatch).arg(op.chunk)
                                   : QString::number(op.microbatch);
            const QString full = QString::fromLatin1(core::opLetter(op.kind)) + mb;
            const double room = r.width() - 4;
            const QColor pen = textOn(blockColor(op.kind, op.chunk));
            if (fm.horizontalAdvance(full) <= room)
                c.labels.push_back({r, full, pen});
            else if (fm.horizontalAdvance(mb) <= room)
                c.labels.push_back({r, mb, pen});
            continue;
        }
        // Spread the block's time over the pixel columns it touches. The columns by hand, not
        // std::floor and std::ceil: they are calls, and a third of the time at K=64, m=1024.
        float *cov = &m_coverage[(std::size_t(op.stage) * std::size_t(columns)) * 3];
        stageHasCoverage[std::size_t(op.stage)] = true;
        const int first = x0 > 0 ? int(x0) : 0; // x0 < columns: the block starts in view
        const double right = std::min(x1, double(columns));
        int end = int(right); // x1 > 0: the block ends in view
        end += end < right;
        const int last = end - 1;
        for (int col = first; col <= last; ++col) {
            const double share = std::min(x1, col + 1.0) - std::max(x0, double(col));
            cov[col * 3 + kind] += float(share);
        }
    }

    if (std::find(stageHasCoverage.begin(), stageHasCoverage.end(), true) ==
        stageHasCoverage.end()) {
        c.aggregate = QImage();
        return;
    }
    // Each column of a stage's row is split into bands, F on top, then B, then W, each as tall
    // as its share of the column's time; the rest is idle. One owner per column would paint a
    // zoomed-out 1F1B all B, which is twice as long as F (issue #18 §2). The bands are written
    // into an image pixel by pixel, row after row: at K=64, m=1024 every column of every stage
    // differs from its neighbour, too many rectangles to fill one by one.
    const QSize size(columns * deviceScale, plot.height() * deviceScale);
    if (c.aggregate.size() != size)
        c.aggregate = QImage(size, QImage::Format_ARGB32_Premultiplied);
    c.aggregate.setDevicePixelRatio(deviceScale);
    c.aggregate.fill(Qt::transparent);
    const auto &tiles = kindTiles();
    std::array<QRgb, 3> plain{};
    for (int k = 0; k < 3; ++k)
        plain[std::size_t(k)] = kindColor(k).rgba();
    // The band's patterns line up with the blocks' (the brush's origin is the widget's).
    const int tileX = plot.left() * deviceScale;
    const int tileY = plot.top() * deviceScale;
    const int patternRows = kPatternPx * deviceScale;
    auto *const pixels = reinterpret_cast<QRgb *>(c.aggregate.bits());
    const qsizetype stride = c.aggregate.bytesPerLine() / qsizetype(sizeof(QRgb));
    for (int s = 0; s < m_stages; ++s) {
        if (!stageHasCoverage[std::size_t(s)])
            continue;
        const int y0 = int(std::lround((s * rowHeight + gap / 2) * deviceScale));
        const int y1 = int(std::lround(((s + 1) * rowHeight - gap / 2) * deviceScale));
        const int h = y1 - y0;
        if (h <= 0)
            continue;
        const float *cov = &m_coverage[(std::size_t(s) * std::size_t(columns)) * 3];
        // Column by column: a stage's rows of the image are a few tens of kilobytes, in cache.
        for (int col = 0; col < columns; ++col) {
            const float *v = cov + col * 3;
            const double busy = double(v[0]) + v[1] + v[2];
            if (busy <= 0)
                continue;
            ++c.aggregated;
            const double norm = h / std::max(busy, 1.0);
            double sum = 0;
            int from = 0;
            for (int k = 0; k < 3; ++k) {
                sum += v[k];
                const int to = int(sum * norm + 0.5); // not std::lround: a call, per band
                if (to == from)
                    continue;
                const bool pattern = to - from >= patternRows;
                const QRgb *tile = tiles[std::size_t(k)].data();
                for (int y = y0 + from; y < y0 + to; ++y) {
                    QRgb *line = pixels + y * stride;
                    const QRgb *tileLine = tile + 8 * ((tileY + y) & 7);
                    for (int x = col * deviceScale; x < (col + 1) * deviceScale; ++x)
                        line[x] = pattern ? tileLine[(tileX + x) & 7] : plain[std::size_t(k)];
                }
                from = to;
            }
        }
    }
}

void TimelineChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    if (m_ops.empty()) {
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    // The aggregated bands are drawn at the device's resolution (an export at scale 2).
    const QTransform &device = p.deviceTransform();
    const double scale = device.m22();
    const bool wholeScale = device.type() <= QTransform::TxScale && device.m11() == scale &&
                            scale == std::round(scale) && scale >= 1 && scale <= 4;
    const int deviceScale = wholeScale ? int(scale) : 1;
    if (!m_cache.valid || m_cache.deviceScale != deviceScale)
        rebuild(deviceScale);
    const QRect plot = m_cache.plot;
    const double rowHeight = double(plot.height()) / m_stages;
    const double gap = rowHeight >= 8 ? 2 : 0;
    const bool dark = isDark();

    // Rows: a light neutral background, so that gaps read as idle.
    const QColor idle = dark ? QColor(0x3C, 0x3C, 0x3C) : QColor(0xE8, 0xE8, 0xE8);
    const QColor idleSoFar = dark ? QColor(0x6A, 0x3A, 0x2A) : QColor(0xF7, 0xC9, 0xB5);
    const double playheadX =
        std::clamp(xAt(m_playhead), double(plot.left()), double(plot.right() + 1));
    const bool teaching = isTeaching();
    const QFontMetrics fm = fontMetrics();
    for (int s = 0; s < m_stages; ++s) {
        const QRectF row(plot.left(), plot.top() + s * rowHeight + gap / 2, plot.width(),
                         rowHeight - gap);
        p.fillRect(row, idle);
        if (teaching && playheadX > plot.left())
            p.fillRect(QRectF(row.left(), row.top(), playheadX - row.left(), row.height()),
                       idleSoFar);
    }
    // Stage labels, thinned out when rows are shorter than the text.
    const int every = std::max(1, int(std::ceil(fm.height() / std::max(rowHeight, 1.0))));
    p.setPen(pal.color(QPalette::WindowText));
    for (int s = 0; s < m_stages; s += every) {
        const QRectF label(0, plot.top() + s * rowHeight, plot.left() - kPad,
                           std::max(rowHeight, double(fm.height())));
        p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, tr("Stage %1").arg(s));
    }

    // Blocks, cut at the playhead.
    p.save();
    p.setClipRect(QRectF(plot.left(), plot.top(), playheadX - plot.left(), plot.height()));
    p.setPen(Qt::NoPen);
    if (!m_cache.aggregate.isNull())
        p.drawImage(QPointF(plot.topLeft()), m_cache.aggregate);
    const auto fillBlocks = [&] {
        for (std::size_t i = 0; i < m_cache.fills.size(); ++i) {
            const auto &fills = m_cache.fills[i];
            if (fills.isEmpty())
                continue;
            p.setBrush(m_fillBrushes[i]);
            p.drawRects(fills.constData(), int(fills.size()));
        }
        // Each block's send darkens its end, on whole pixels without antialiasing: a
        // translucent fraction-of-a-pixel rectangle takes the rasterizer's slow path.
        p.save();
        p.setRenderHint(QPainter::Antialiasing, false);
        for (const QRectF &strip : m_cache.sends)
            p.fillRect(strip.toAlignedRect(), sendShade());
        for (const QRectF &band : m_cache.expertComms)
            p.fillRect(band.toAlignedRect(), expertCommBrush());
        for (const QRectF &band : m_cache.offloadWaits)
            p.fillRect(band.toAlignedRect(), offloadWaitBrush());
        for (const QRectF &band : m_cache.gatherWaits)
            p.fillRect(band.toAlignedRect(), gatherWaitBrush());
        p.restore();
    };
    // Qt's raster engine hands a fill of kThreadedRows device rows or more to its thread pool
    // and waits for it, block by block: with a few tall stages that is hundreds of round trips
    // per paint, and hatching ten times slower than the same rows in shorter fills. Clipped
    // to bands of whole rows, the same fills cover the same pixels, each band's without the
    // pool. (An image exported at scale 2 has two device rows per row.) The send strips, as
    // tall as their blocks, too: on the pool they cost 7 ms of the default scenario's paint.
    if (!wholeScale || rowHeight * scale < kThreadedRows) {
        fillBlocks();
    } else {
        const int band = std::max(1, kBandRows / int(scale));
        for (int top = plot.top(); top <= plot.bottom(); top += band) {
            p.save();
            p.setClipRect(QRect(plot.left(), top, plot.width(), band), Qt::IntersectClip);
            fillBlocks();
            p.restore();
        }
    }
    // Outlines separate neighbouring wide blocks.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(pal.color(QPalette::Window), 1));
    p.drawLines(m_cache.edges);
    for (const auto &label : m_cache.labels) {
        // A label cut by the playhead would read as another number.
        if (teaching && label.rect.right() > playheadX)
            continue;
        p.setPen(label.pen);
        auto text = m_labelText.find(label.text);
        if (text == m_labelText.end()) {
            if (m_labelText.size() > 4096)
                m_labelText.clear();
            QStaticText laidOut(label.text);
            laidOut.setTextFormat(Qt::PlainText);
            laidOut.prepare(QTransform(), font());
            text = m_labelText.insert(label.text, laidOut);
        }
        const QSizeF size = text->size();
        p.drawStaticText(label.rect.center() - QPointF(size.width() / 2, size.height() / 2), *text);
    }
    p.restore();

    if (teaching) {
        p.setPen(QPen(chart_style::vermillion(), 2));
        p.drawLine(QPointF(playheadX, plot.top() - 2), QPointF(playheadX, plot.bottom() + 3));
    }
    paintAxis(p, plot);
    paintLegend(p);

    if (m_selecting) {
        // The range dragged out so far, over the rows and the axis, with its times.
        const double left = std::min(m_selectFrom, m_selectTo);
        const double right = std::max(m_selectFrom, m_selectTo);
        QColor shade = pal.color(QPalette::Highlight);
        shade.setAlpha(60);
        const QRectF band(left, plot.top(), right - left, height() - plot.top() - 1);
        p.fillRect(band, shade);
        p.setPen(QPen(pal.color(QPalette::Highlight), 1));
        p.drawLine(QPointF(left, band.top()), QPointF(left, band.bottom()));
        p.drawLine(QPointF(right, band.top()), QPointF(right, band.bottom()));
        const QString text =
            tr("%1 to %2")
                .arg(formatTime(timeAt(left), m_units), formatTime(timeAt(right), m_units));
        const QRectF box(
            std::clamp(left, 0.0, std::max(0.0, width() - fm.horizontalAdvance(text) - 8.0)),
            plot.top(), fm.horizontalAdvance(text) + 8, fm.height() + 4);
        p.fillRect(box, pal.color(QPalette::ToolTipBase));
        p.setPen(pal.color(QPalette::ToolTipText));
        p.drawText(box, Qt::AlignCenter, text);
    }
}

double TimelineChart::axisUnit(QString *name) const
{
    return chart_style::timeAxisUnit(m_viewEnd, m_units, name);
}

QString TimelineChart::axisTitle() const
{
    QString unitName;
    const double unit = axisUnit(&unitName);
    const double span = m_viewEnd - m_viewStart;
    if (m_makespan <= 0 || span >= m_makespan * (1 - 1e-9))
        return tr("Time (%1)").arg(unitName);
    // Zoomed in, the title says which part of the step is shown, and how to see all of it.
    return tr("Time (%1): %2 to %3 of %4, zoomed %5× (Home: the whole step)")
        .arg(unitName, axisNumber(m_viewStart / unit, span / unit),
             axisNumber(m_viewEnd / unit, span / unit), axisNumber(m_makespan / unit, span / unit))
        .arg(m_makespan / span, 0, 'f', m_makespan / span < 10 ? 1 : 0);
}

void TimelineChart::paintAxis(QPainter &p, const QRect &plot) const
{
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const double span = m_viewEnd - m_viewStart;
    QString unitName;
    const double unit = axisUnit(&unitName);
    p.setPen(pal.color(QPalette::WindowText));
    const int y = plot.bottom() + 1;
    p.drawLine(plot.left(), y, plot.right(), y);
    // Ticks at least a label and a bit apart.
    const double sample = fm.horizontalAdvance(QString::number(m_viewEnd / unit, 'f', 1)) + 24;
    const double step = niceStep(span / unit * sample / plot.width()) * unit;
    const int decimals = std::max(0, -int(std::floor(std::log10(step / unit) + 1e-9)));
    for (double t = std::ceil(m_viewStart / step) * step; t <= m_viewEnd + step * 1e-9; t += step) {
        const double x = xAt(t);
        p.drawLine(QPointF(x, y), QPointF(x, y + 4));
        const QString text = QString::number(t / unit, 'f', decimals);
        const double w = fm.horizontalAdvance(text);
        const double left = std::clamp(x - w / 2, 0.0, width() - w - 1);
        p.drawText(QPointF(left, y + 4 + fm.ascent()), text);
    }
    const QString title = fm.elidedText(axisTitle(), Qt::ElideRight, plot.width());
    p.drawText(QRect(plot.left(), y + 4 + fm.height() + kPad / 2, plot.width(), fm.height()),
               Qt::AlignHCenter | Qt::AlignTop, title);
}

std::vector<TimelineChart::LegendEntry>
TimelineChart::legendEntries(std::vector<std::vector<QColor>> *shades) const
{
    using Entry = LegendEntry;
    const bool dark = isDark();
    std::vector<Entry> entries;
    for (int k = 0; k < 3; ++k) {
        if (k == 2 && !m_hasW)
            continue;
        const QBrush pattern(QColor(0, 0, 0, 110), kindPattern(k));
        if (k == 0)
            entries.push_back({kindColor(k), pattern, tr("F forward"), tr("F"), false});
        else if (k == 1)
            entries.push_back(
                {kindColor(k), pattern, tr("B backward / input gradient"), tr("B"), false});
        else
            entries.push_back({kindColor(k), pattern, tr("W weight gradient"), tr("W"), false});
    }
    // A chunk's entry shows its shade of each phase, side by side.
    if (m_chunkCount > 1) {
        for (int chunk = 0; chunk < m_chunkCount; ++chunk) {
            std::vector<QColor> colors;
            for (int k = 0; k < (m_hasW ? 3 : 2); ++k)
                colors.push_back(blockColor(OpKind(k), chunk));
            if (shades)
                shades->push_back(colors);
            // DualPipe's chunks are its directions, each entering at its own end (dualpipe.py).
            if (m_schedule == core::Schedule::dualPipe && chunk == 0)
                entries.push_back({Qt::NoBrush, Qt::NoBrush, tr("forward direction, from stage 0"),
                                   tr("forward dir."), false});
            else if (m_schedule == core::Schedule::dualPipe)
                entries.push_back({Qt::NoBrush, Qt::NoBrush,
                                   tr("reverse direction, from stage %1").arg(m_stages - 1),
                                   tr("reverse dir."), false});
            else if (m_schedule != core::Schedule::dualPipeV)
                entries.push_back({Qt::NoBrush, Qt::NoBrush, tr("chunk %1").arg(chunk),
                                   QString::number(chunk), false});
            else if (chunk == 0)
                entries.push_back(
                    {Qt::NoBrush, Qt::NoBrush, tr("chunk 0, the V's way out"), tr("0 out"), false});
            else
                entries.push_back({Qt::NoBrush, Qt::NoBrush, tr("chunk 1, the V's way back"),
                                   tr("1 back"), false});
        }
    }
    if (m_hasSends)
        entries.push_back(
            {kindColor(0), Qt::NoBrush, tr("send to the next stage"), tr("send"), true});
    if (m_hasExpertComm)
        entries.push_back({kindColor(0), Qt::NoBrush, tr("expert all-to-all (its share)"),
                           tr("all-to-all"), false, true});
    if (m_hasOffloadWait)
        entries.push_back({kindColor(0), Qt::NoBrush, tr("wait for host copies"), tr("host copies"),
                           false, false, true});
    if (m_hasGatherWait)
        entries.push_back({kindColor(0), Qt::NoBrush, tr("parameter gather"), tr("gather"), false,
                           false, false, true});
    const QColor idle = dark ? QColor(0x3C, 0x3C, 0x3C) : QColor(0xE8, 0xE8, 0xE8);
    entries.push_back({idle, Qt::NoBrush, tr("idle"), tr("idle"), false});
    if (isTeaching())
        entries.push_back({dark ? QColor(0x6A, 0x3A, 0x2A) : QColor(0xF7, 0xC9, 0xB5), Qt::NoBrush,
                           tr("idle so far"), tr("so far"), false});
    return entries;
}

namespace {

// The width the legend's entries take in one row, with their full or their brief texts.
template <typename Entries>
int legendWidth(const Entries &entries, const QFontMetrics &fm, bool brief)
{
    const int box = fm.height() - 4;
    int width = 0;
    for (const auto &e : entries)
        width += box * 2 + 4 + fm.horizontalAdvance(brief ? e.brief : e.text) + 14;
    return width;
}

} // namespace

bool TimelineChart::legendIsBrief(const std::vector<LegendEntry> &entries) const
{
    return plotRect().left() + legendWidth(entries, fontMetrics(), false) > this->width();
}

int TimelineChart::legendLeft(const std::vector<LegendEntry> &entries, bool brief) const
{
    // Above the plot where it fits there; else from the widget's left edge, over the stage
    // labels' column (large text in a narrow window: presentation mode at 1,280 pixels).
    const int width = legendWidth(entries, fontMetrics(), brief);
    const int left = plotRect().left();
    return left + width <= this->width() ? left : std::max(kPad, this->width() - width);
}

QStringList TimelineChart::legendTexts() const
{
    if (m_ops.empty())
        return {};
    const std::vector<LegendEntry> entries = legendEntries(nullptr);
    const bool brief = legendIsBrief(entries);
    QStringList texts;
    for (const LegendEntry &e : entries)
        texts << (brief ? e.brief : e.text);
    return texts;
}

void TimelineChart::paintLegend(QPainter &p) const
{
    using Entry = LegendEntry;
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int box = fm.height() - 4;
    std::vector<std::vector<QColor>> shades;
    const std::vector<Entry> entries = legendEntries(&shades);
    const bool brief = legendIsBrief(entries);
    int x = legendLeft(entries, brief);
    const int y = kPad;
    std::size_t chunk = 0;
    for (const Entry &e : entries) {
        const QRect swatch(x, y + 2, box * 2, box);
        if (e.fill.style() == Qt::NoBrush && chunk < shades.size()) {
            const auto &colors = shades[chunk++];
            const int part = swatch.width() / int(colors.size());
            for (std::size_t i = 0; i < colors.size(); ++i)
                p.fillRect(QRect(swatch.left() + int(i) * part, swatch.top(),
                                 i + 1 == colors.size() ? swatch.width() - int(i) * part : part,
                                 swatch.height()),
                           colors[i]);
        }
        p.fillRect(swatch, e.fill);
        if (e.pattern.style() != Qt::NoBrush)
            p.fillRect(swatch, e.pattern);
        if (e.send)
            p.fillRect(QRect(swatch.right() - box / 2, swatch.top(), box / 2 + 1, box),
                       sendShade());
        if (e.expertComm)
            p.fillRect(
                QRect(swatch.left(), swatch.bottom() - box / 2, swatch.width() / 2, box / 2 + 1),
                expertCommBrush());
        if (e.offloadWait)
            p.fillRect(QRect(swatch.right() - swatch.width() / 2, swatch.top(),
                             swatch.width() / 2 + 1, box / 2 + 1),
                       offloadWaitBrush());
        if (e.gatherWait)
            p.fillRect(QRect(swatch.left(), swatch.top(), swatch.width() / 2, box),
                       gatherWaitBrush());
        x += swatch.width() + 4;
        const QString &text = brief ? e.brief : e.text;
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QPoint(x, y + fm.ascent()), text);
        x += fm.horizontalAdvance(text) + 14;
    }
}

void TimelineChart::resizeEvent(QResizeEvent *event)
{
    m_cache.valid = false;
    QWidget::resizeEvent(event);
}

void TimelineChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange)
        m_labelText.clear();
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        invalidate();
    QWidget::changeEvent(event);
}

void TimelineChart::wheelEvent(QWheelEvent *event)
{
    if (m_ops.empty())
        return;
    const QPoint delta = event->angleDelta();
    // Shift+wheel pans, as a horizontal wheel or a touchpad's sideways swipe does.
    if (event->modifiers() & Qt::ShiftModifier || (delta.y() == 0 && delta.x() != 0)) {
        const int turned = delta.y() != 0 ? delta.y() : delta.x();
        pan(-turned / 120.0 * (m_viewEnd - m_viewStart) / 10);
        event->accept();
        return;
    }
    const double steps = delta.y() / 120.0;
    if (steps == 0)
        return;
    zoomAround(timeAt(event->position().x()), std::pow(1.25, steps));
    event->accept();
}

void TimelineChart::mousePressEvent(QMouseEvent *event)
{
    if (m_ops.empty())
        return QWidget::mousePressEvent(event);
    const QRect plot = plotRect();
    const double x =
        std::clamp(event->position().x(), double(plot.left()), double(plot.left() + plot.width()));
    if (event->button() == Qt::RightButton ||
        (event->button() == Qt::LeftButton && onTimeAxis(event->position()))) {
        m_selecting = true;
        m_selectFrom = m_selectTo = x;
        setCursor(Qt::SizeHorCursor);
        update();
        return;
    }
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragging = true;
    m_dragX = event->position().x();
    m_dragStart = m_viewStart;
    setCursor(Qt::ClosedHandCursor);
}

void TimelineChart::mouseMoveEvent(QMouseEvent *event)
{
    if (m_selecting) {
        const QRect plot = plotRect();
        m_selectTo = std::clamp(event->position().x(), double(plot.left()),
                                double(plot.left() + plot.width()));
        update(); // the band only: the cache stays
        return;
    }
    if (!m_dragging)
        return;
    const double perPixel = (m_viewEnd - m_viewStart) / plotRect().width();
    const double start = m_dragStart - (event->position().x() - m_dragX) * perPixel;
    setVisibleRange(start, start + (m_viewEnd - m_viewStart));
}

void TimelineChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_selecting && (event->button() == Qt::LeftButton || event->button() == Qt::RightButton)) {
        m_selecting = false;
        unsetCursor();
        update();
        const double left = std::min(m_selectFrom, m_selectTo);
        const double right = std::max(m_selectFrom, m_selectTo);
        // A click, or a range of a pixel or two, is no range.
        if (right - left >= 3)
            setVisibleRange(timeAt(left), timeAt(right));
        return;
    }
    if (event->button() == Qt::LeftButton && m_dragging) {
        m_dragging = false;
        unsetCursor();
    }
}

void TimelineChart::keyPressEvent(QKeyEvent *event)
{
    const double span = m_viewEnd - m_viewStart;
    const double centre = m_viewStart + span / 2;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAround(centre, 1.5);
        break;
    case Qt::Key_Minus:
        zoomAround(centre, 1 / 1.5);
        break;
    case Qt::Key_Left:
        pan(-span / 10);
        break;
    case Qt::Key_Right:
        pan(span / 10);
        break;
    case Qt::Key_Home:
        fitAll();
        break;
    case Qt::Key_Escape:
        if (m_selecting) {
            m_selecting = false;
            unsetCursor();
            update();
            break;
        }
        QWidget::keyPressEvent(event);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

bool TimelineChart::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

// Built on the first hover, not on every report: a field change must stay within a frame.
void TimelineChart::indexStages() const
{
    if (!m_byStage.empty())
        return;
    m_byStage.resize(std::size_t(m_stages));
    for (std::size_t i = 0; i < m_ops.size(); ++i)
        m_byStage[std::size_t(m_ops[i].stage)].push_back(int(i));
    for (auto &row : m_byStage)
        std::stable_sort(row.begin(), row.end(), [this](int a, int b) {
            return m_ops[std::size_t(a)].start < m_ops[std::size_t(b)].start;
        });
}

const core::ScheduleOp *TimelineChart::partnerOf(const core::ScheduleOp &op) const
{
    if (!op.paired || m_ops.empty() || &op < m_ops.data() || &op >= m_ops.data() + m_ops.size())
        return nullptr;
    indexStages();
    const auto &row = m_byStage[std::size_t(op.stage)];
    const int index = int(&op - m_ops.data());
    const auto at = std::find(
        std::lower_bound(row.begin(), row.end(), op.start,
                         [this](int i, double t) { return m_ops[std::size_t(i)].start < t; }),
        row.end(), index);
    if (at == row.end())
        return nullptr;
    // DualPipe(V)'s pairs are a forward and the backward after it (dualpipev.py and
    // dualpipe.py, _forward_backward_chunk); ep_overlap's a backward and the forward after it.
    const bool firstOfPair = core::isDualPipe(m_schedule) == (op.kind == OpKind::forward);
    const auto other = firstOfPair ? at + 1 : at;
    if (firstOfPair ? other == row.end() : other == row.begin())
        return nullptr;
    const core::ScheduleOp &partner = m_ops[std::size_t(firstOfPair ? *other : *(other - 1))];
    return partner.paired && partner.kind != op.kind ? &partner : nullptr;
}

QString TimelineChart::chunkText(const core::ScheduleOp &op) const
{
    // DualPipe's chunk 0 is the forward direction, entering at stage 0 and running the model's
    // stages on devices 0..K − 1; chunk 1 the reverse one, entering at stage K − 1, so device s
    // runs the copy of the model's stage K − 1 − s (dualpipe.py).
    if (m_schedule == core::Schedule::dualPipe)
        return (op.chunk == 0 ? tr(", forward direction (stage 0 → %1), the model's stage %2 of %3")
                                    .arg(m_stages - 1)
                                    .arg(op.stage)
                              : tr(", reverse direction (stage %1 → 0), the model's stage %2 of %3")
                                    .arg(m_stages - 1)
                                    .arg(m_stages - 1 - op.stage))
            .arg(m_stages);
    if (m_schedule != core::Schedule::dualPipeV)
        return tr(", chunk %1 of %2").arg(op.chunk).arg(m_chunkCount);
    // Chunk 0 takes the model out from stage 0 to K − 1, chunk 1 back (core::virtualStageOf).
    const int j = core::virtualStageOf(m_schedule, m_stages, op.stage, op.chunk);
    return (op.chunk == 0 ? tr(", chunk 0 of 2, the V's way out (virtual stage %1 of %2)")
                          : tr(", chunk 1 of 2, the V's way back (virtual stage %1 of %2)"))
        .arg(j)
        .arg(2 * m_stages);
}

const core::ScheduleOp *TimelineChart::blockAt(QPointF pos) const
{
    const QRect plot = plotRect();
    if (m_ops.empty() || pos.x() < plot.left() || pos.x() >= plot.left() + plot.width() ||
        pos.y() < plot.top() || pos.y() >= plot.top() + plot.height())
        return nullptr;
    indexStages();
    const double rowHeight = double(plot.height()) / m_stages;
    const int stage = std::clamp(int((pos.y() - plot.top()) / rowHeight), 0, m_stages - 1);
    const double time = timeAt(pos.x());
    if (time >= m_playhead)
        return nullptr; // not drawn yet
    const auto &row = m_byStage[std::size_t(stage)];
    // The stage's blocks do not overlap: the last to start at or before `time` is the one
    // covering it, if any.
    const auto next = std::upper_bound(row.begin(), row.end(), time, [this](double t, int i) {
        return t < m_ops[std::size_t(i)].start;
    });
    const core::ScheduleOp *before =
        next == row.begin() ? nullptr : &m_ops[std::size_t(*(next - 1))];
    if (before && before->end > time)
        return before;
    // Zoomed out, a block a pixel or two away is what the pointer is over.
    const double slack = 2 * (m_viewEnd - m_viewStart) / plot.width();
    const core::ScheduleOp *after = next == row.end() ? nullptr : &m_ops[std::size_t(*next)];
    const double gapBefore = before ? time - before->end : slack + 1;
    const double gapAfter = after && after->start < m_playhead ? after->start - time : slack + 1;
    if (std::min(gapBefore, gapAfter) > slack)
        return nullptr;
    return gapBefore <= gapAfter ? before : after;
}

QString TimelineChart::toolTipAt(QPointF pos) const
{
    if (m_ops.empty())
        return {};
    const core::ScheduleOp *op = blockAt(pos);
    if (!op)
        return controlsHelp();
    QString phase;
    switch (op->kind) {
    case OpKind::forward:
        phase = tr("F, forward");
        break;
    case OpKind::backward:
        // DualPipeV's B computes its weight gradients too outside its zero-bubble steps.
        phase = op->fullBackward ? tr("B with W, whole backward (input and weight gradients)")
                : m_hasW         ? tr("B, backward (input gradient)")
                                 : tr("B, backward");
        break;
    case OpKind::weight:
        phase = tr("W, weight gradient");
        break;
    }
    // One line per fact, unwrapped: a time wrapped in two reads as two.
    QString text = tr("<p style=\"white-space:nowrap\"><b>%1</b><br>Stage %2, micro-batch %3")
                       .arg(phase)
                       .arg(op->stage)
                       .arg(op->microbatch);
    if (m_chunkCount > 1)
        text += chunkText(*op);
    text += tr("<br>Start %1, duration %2 (ends at %3)")
                .arg(formatTime(op->start, m_units, 6), formatTime(op->end - op->start, m_units),
                     formatTime(op->end, m_units, 6));
    if (op->send > 0 && core::isDualPipe(m_schedule)) {
        // The V's way back, and DualPipe's reverse direction, run from stage K − 1 to 0: its F
        // sends to the stage before, its B to the stage after.
        const int to = op->stage + ((op->kind == OpKind::forward) == (op->chunk == 0) ? 1 : -1);
        text += (op->kind == OpKind::forward
                     ? tr("<br>Send of activations to stage %1: %2, the block's last %3 %")
                     : tr("<br>Send of gradients to stage %1: %2, the block's last %3 %"))
                    .arg(to)
                    .arg(formatTime(op->send, m_units))
                    .arg(100 * op->send / (op->end - op->start), 0, 'f', 1);
    } else if (op->send > 0) {
        text += (op->kind == OpKind::forward
                     ? tr("<br>Send of activations to the next stage: %1, the block's last %2 %")
                     : tr("<br>Send of gradients to the previous stage: %1, the block's last %2 %"))
                    .arg(formatTime(op->send, m_units))
                    .arg(100 * op->send / (op->end - op->start), 0, 'f', 1);
    } else {
        text += tr("<br>No send");
    }
    if (const core::ScheduleOp *partner = partnerOf(*op)) {
        const QString other =
            tr("%1 of micro-batch %2")
                .arg(partner->fullBackward ? tr("B with W")
                                           : QString::fromLatin1(core::opLetter(partner->kind)))
                .arg(partner->microbatch) +
            (m_schedule == core::Schedule::dualPipe
                 ? (partner->chunk == 0 ? tr(", forward direction") : tr(", reverse direction"))
             : m_chunkCount > 1 ? tr(", chunk %1").arg(partner->chunk)
                                : QString());
        text += core::isDualPipe(m_schedule)
                    ? tr("<br>Paired with the %1: the two run overlapped, from when both inputs "
                         "are in until both outputs leave")
                          .arg(other)
                    : tr("<br>Paired with the %1: ep_overlap runs each one's all-to-all under "
                         "the other's computation")
                          .arg(other);
    }
    if (op->expertComm > 0)
        text += tr("<br>Of which expert all-to-all: %1 (%2 %), spread over its MoE layers")
                    .arg(formatTime(op->expertComm, m_units))
                    .arg(100 * op->expertComm / (op->end - op->start), 0, 'f', 1);
    if (op->offloadWait > 0)
        text += tr("<br>Of which waiting for activation copies to or from host memory: %1 (%2 "
                   "%), the copies outlasting the layers beside them (offload_layers)")
                    .arg(formatTime(op->offloadWait, m_units))
                    .arg(100 * op->offloadWait / (op->end - op->start), 0, 'f', 1);
    if (op->gatherWait > 0)
        text += tr("<br>Of which waiting for the stage's parameters to be gathered: %1 (%2 %), "
                   "Megatron-LM's one bucket for a stage after the first, gathered once its "
                   "input has arrived")
                    .arg(formatTime(op->gatherWait, m_units))
                    .arg(100 * op->gatherWait / (op->end - op->start), 0, 'f', 1);
    return text + tr("<br><small>Wheel: zoom · Shift+wheel or drag: pan · drag on the axis: zoom "
                     "to a range · Home: the whole step</small></p>");
}

} // namespace ui
