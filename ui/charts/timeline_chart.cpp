#include "ui/charts/timeline_chart.h"

#include "ui/charts/chart_style.h"

#include <QEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
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

// The block's colour with its pattern already laid over it, as one opaque 8 × 8 tile: one
// fill per block instead of a colour fill plus a translucent pattern fill, the same pixels.
QBrush kindFill(int kind)
{
    static const std::array<QBrush, 3> fills = [] {
        std::array<QBrush, 3> out;
        for (int k = 0; k < 3; ++k) {
            if (kindPattern(k) == Qt::NoBrush) {
                out[std::size_t(k)] = QBrush(kindColor(k));
                continue;
            }
            QImage tile(8, 8, QImage::Format_ARGB32_Premultiplied);
            tile.fill(kindColor(k));
            QPainter p(&tile);
            p.fillRect(tile.rect(), QBrush(QColor(0, 0, 0, 110), kindPattern(k)));
            p.end();
            out[std::size_t(k)] = QBrush(tile);
        }
        return out;
    }();
    return fills[std::size_t(kind)];
}

QColor kindText(int kind)
{
    return kind == 1 ? QColor(0, 0, 0) : QColor(255, 255, 255);
}

// A block's blocking send, darkening its end: at least two pixels wide, so that it shows before
// the view is zoomed in to its true width, and never more than a third of the block.
constexpr double kSendMinPx = 2.0;
QColor sendShade()
{
    return QColor(0, 0, 0, 150);
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

} // namespace

TimelineChart::TimelineChart(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_message = tr("No schedule to show.");
}

void TimelineChart::setReport(const core::Report &report)
{
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
        m_hasW = false;
        m_hasSends = false;
        m_busy = 0;
        // One pass: at K=64, m=1024 each pass over the blocks is a tenth of a frame.
        for (const auto &op : m_ops) {
            m_stages = std::max(m_stages, op.stage + 1);
            m_chunks = m_chunks || op.chunk > 0;
            m_hasW = m_hasW || op.kind == OpKind::weight;
            m_hasSends = m_hasSends || op.send > 0;
            m_busy += op.end - op.start;
        }
        m_makespan = report.makespanS;
        m_units = report.timeInLayerUnits;
    }
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

void TimelineChart::rebuild()
{
    Cache &c = m_cache;
    c.plot = plotRect();
    for (auto &f : c.fills)
        f.clear();
    for (auto &f : c.thin)
        f.clear();
    c.labels.clear();
    c.edges.clear();
    c.sends.clear();
    c.runs = 0;
    c.valid = true;
    if (m_ops.empty())
        return;

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
            c.fills[std::size_t(kind)].push_back(r);
            c.edges.push_back(QLineF(r.topLeft(), r.bottomLeft()));
            if (op.send > 0 && x1 > 0 && x1 <= columns + 1.0) {
                const double tail = std::min(std::max(op.send * scale, kSendMinPx), (x1 - x0) / 3);
                c.sends.push_back(QRectF(r.right() - tail, r.top(), tail, r.height()));
            }
            if (!roomForText)
                continue;
            const QString mb = m_chunks ? QStringLiteral("%1.%2").arg(op.microbatch).arg(op.chunk)
                                        : QString::number(op.microbatch);
            const QString full = QString::fromLatin1(core::opLetter(op.kind)) + mb;
            const double room = r.width() - 4;
            if (fm.horizontalAdvance(full) <= room)
                c.labels.push_back({r, full, kind});
            else if (fm.horizontalAdvance(mb) <= room)
                c.labels.push_back({r, mb, kind});
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

    // One owner per column: the kind covering most of it, or idle; equal
    // neighbours merge into one run.
    for (int s = 0; s < m_stages; ++s) {
        if (!stageHasCoverage[std::size_t(s)])
            continue;
        const float *cov = &m_coverage[(std::size_t(s) * std::size_t(columns)) * 3];
        const double top = plot.top() + s * rowHeight + gap / 2;
        int runKind = -1;
        int runStart = 0;
        auto flush = [&](int end) {
            if (runKind >= 0) {
                auto &into = end - runStart >= kPatternPx ? c.fills : c.thin;
                into[std::size_t(runKind)].push_back(
                    QRectF(plot.left() + runStart, top, end - runStart, rowHeight - gap));
                ++c.runs;
            }
        };
        for (int col = 0; col < columns; ++col) {
            const float *v = cov + col * 3;
            const float busy = v[0] + v[1] + v[2];
            int owner = -1;
            float best = std::max(0.0f, 1.0f - busy); // idle's share
            for (int k = 0; k < 3; ++k)
                if (v[k] > best) {
                    best = v[k];
                    owner = k;
                }
            if (owner != runKind) {
                flush(col);
                runKind = owner;
                runStart = col;
            }
        }
        flush(columns);
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
    if (!m_cache.valid)
        rebuild();
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
    const auto fillBlocks = [&] {
        for (int k = 0; k < 3; ++k) {
            const auto &fills = m_cache.fills[std::size_t(k)];
            const auto &thin = m_cache.thin[std::size_t(k)];
            p.setBrush(kindColor(k));
            if (!thin.isEmpty())
                p.drawRects(thin.constData(), int(thin.size()));
            if (fills.isEmpty())
                continue;
            p.setBrush(kindFill(k));
            p.drawRects(fills.constData(), int(fills.size()));
        }
        // Each block's send darkens its end, on whole pixels without antialiasing: a
        // translucent fraction-of-a-pixel rectangle takes the rasterizer's slow path.
        p.save();
        p.setRenderHint(QPainter::Antialiasing, false);
        for (const QRectF &strip : m_cache.sends)
            p.fillRect(strip.toAlignedRect(), sendShade());
        p.restore();
    };
    // Qt's raster engine hands a fill of kThreadedRows device rows or more to its thread pool
    // and waits for it, block by block: with a few tall stages that is hundreds of round trips
    // per paint, and hatching ten times slower than the same rows in shorter fills. Clipped
    // to bands of whole rows, the same fills cover the same pixels, each band's without the
    // pool. (An image exported at scale 2 has two device rows per row.) The send strips, as
    // tall as their blocks, too: on the pool they cost 7 ms of the default scenario's paint.
    const QTransform &device = p.deviceTransform();
    const double scale = device.m22();
    if (device.type() > QTransform::TxScale || device.m11() != scale ||
        scale != std::round(scale) || scale < 1 || rowHeight * scale < kThreadedRows) {
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
        p.setPen(kindText(label.kind));
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
}

void TimelineChart::paintAxis(QPainter &p, const QRect &plot) const
{
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const double span = m_viewEnd - m_viewStart;
    double unit = 1;
    QString unitName;
    if (m_units) {
        unitName = tr("layer-time units");
    } else if (m_viewEnd >= 1) {
        unitName = tr("s");
    } else if (m_viewEnd >= 1e-3) {
        unit = 1e-3;
        unitName = tr("ms");
    } else {
        unit = 1e-6;
        unitName = tr("µs");
    }
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
    const QString title = tr("Time (%1)").arg(unitName);
    p.drawText(QRect(plot.left(), y + 4 + fm.height() + kPad / 2, plot.width(), fm.height()),
               Qt::AlignHCenter | Qt::AlignTop, title);
}

void TimelineChart::paintLegend(QPainter &p) const
{
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int box = fm.height() - 4;
    const bool dark = isDark();
    struct Entry
    {
        QBrush fill;
        QBrush pattern;
        QString text;  // in full
        QString brief; // when the full texts do not fit the width
        bool send = false;
    };
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
    if (m_hasSends)
        entries.push_back(
            {kindColor(0), Qt::NoBrush, tr("send to the next stage"), tr("send"), true});
    const QColor idle = dark ? QColor(0x3C, 0x3C, 0x3C) : QColor(0xE8, 0xE8, 0xE8);
    entries.push_back({idle, Qt::NoBrush, tr("idle"), tr("idle"), false});
    if (isTeaching())
        entries.push_back({dark ? QColor(0x6A, 0x3A, 0x2A) : QColor(0xF7, 0xC9, 0xB5), Qt::NoBrush,
                           tr("idle so far"), tr("so far"), false});

    const int left = plotRect().left();
    int width = 0;
    for (const Entry &e : entries)
        width += box * 2 + 4 + fm.horizontalAdvance(e.text) + 14;
    const bool brief = left + width > this->width();
    int x = left;
    const int y = kPad;
    for (const Entry &e : entries) {
        const QRect swatch(x, y + 2, box * 2, box);
        p.fillRect(swatch, e.fill);
        if (e.pattern.style() != Qt::NoBrush)
            p.fillRect(swatch, e.pattern);
        if (e.send)
            p.fillRect(QRect(swatch.right() - box / 2, swatch.top(), box / 2 + 1, box),
                       sendShade());
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
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    zoomAround(timeAt(event->position().x()), std::pow(1.25, steps));
    event->accept();
}

void TimelineChart::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragging = true;
    m_dragX = event->position().x();
    m_dragStart = m_viewStart;
    setCursor(Qt::ClosedHandCursor);
}

void TimelineChart::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return;
    const double perPixel = (m_viewEnd - m_viewStart) / plotRect().width();
    const double start = m_dragStart - (event->position().x() - m_dragX) * perPixel;
    setVisibleRange(start, start + (m_viewEnd - m_viewStart));
}

void TimelineChart::mouseReleaseEvent(QMouseEvent *event)
{
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
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace ui
