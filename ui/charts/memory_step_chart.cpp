#include "ui/charts/memory_step_chart.h"

#include "ui/charts/chart_style.h"
#include "ui/units.h"

#include <QApplication>
#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <iterator>

namespace ui {

namespace {

constexpr int kMemoryStepPad = 8;

// 1, 2 or 5 × 10^k, the smallest at least `raw`.
double memoryStepNice(double raw)
{
    if (!(raw > 0))
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double f : {1.0, 2.0, 5.0})
        if (f * p >= raw * (1 - 1e-9))
            return f * p;
    return 10 * p;
}

enum : int
{
    kFilled = 0,
    kCapacityLine = 1,
    kPeakMarker = 2,
};

bool isVaryingTerm(const core::MemoryTerm &term)
{
    return term.bytes == &core::StageReport::activationsBytes ||
           term.bytes == &core::StageReport::cachedOutputsBytes ||
           term.bytes == &core::StageReport::lossBytes;
}

// The colour of a term: its place in kMemoryTerms, as in the Stage memory chart.
QColor termColour(std::int64_t core::StageReport::*bytes)
{
    for (std::size_t i = 0; i < std::size(core::kMemoryTerms); ++i)
        if (core::kMemoryTerms[i].bytes == bytes)
            return chart_style::series(i);
    return chart_style::grey();
}

} // namespace

MemoryStepChart::MemoryStepChart(QWidget *parent) : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void MemoryStepChart::setTimeline(core::MemoryTimeline timeline, const QString &title,
                                  bool layerUnits)
{
    m_timeline = std::move(timeline);
    m_title = title;
    m_layerUnits = layerUnits;
    m_message.clear();
    m_bands.clear();
    for (const core::MemoryTerm &term : core::kMemoryTerms)
        if (!isVaryingTerm(term) && m_timeline.terms.*term.bytes > 0)
            m_bands.push_back(
                {tr(term.label), termColour(term.bytes), m_timeline.terms.*term.bytes});
    m_viewStart = 0;
    m_viewEnd = m_timeline.makespan;
    m_playhead = m_timeline.makespan;
    m_sweeping = false;
    if (m_timeline.points.empty())
        m_message = tr("No schedule to show.");
    invalidate();
    update();
}

void MemoryStepChart::setMessage(const QString &message)
{
    m_timeline = {};
    m_bands.clear();
    m_message = message;
    invalidate();
    update();
}

void MemoryStepChart::setPlayhead(double time, bool sweeping)
{
    time = std::clamp(time, 0.0, std::max(m_timeline.makespan, 0.0));
    if (time == m_playhead && sweeping == m_sweeping)
        return;
    m_playhead = time;
    m_sweeping = sweeping;
    update(); // the cached polygons do not depend on the playhead: painting clips at it
}

void MemoryStepChart::setVisibleRange(double start, double end)
{
    const double makespan = m_timeline.makespan;
    if (!(end > start) || makespan <= 0) {
        start = 0;
        end = makespan;
    }
    start = std::clamp(start, 0.0, makespan);
    end = std::clamp(end, start, makespan);
    if (start == m_viewStart && end == m_viewEnd)
        return;
    m_viewStart = start;
    m_viewEnd = end;
    invalidate();
    update();
}

std::int64_t MemoryStepChart::peakBytes() const
{
    return m_timeline.points.empty() ? 0 : m_timeline.points[m_timeline.peak].totalBytes;
}

QString MemoryStepChart::peakLabel() const
{
    if (m_timeline.points.empty())
        return {};
    const core::MemoryPoint &peak = m_timeline.points[m_timeline.peak];
    QString text = tr("Peak %1").arg(units::format(static_cast<double>(peak.totalBytes)));
    if (peak.microbatches == 1)
        text += tr(": 1 micro-batch's activations");
    else if (peak.microbatches > 0)
        text +=
            tr(": %1 micro-batches' activations").arg(QString::number(peak.microbatches, 'g', 4));
    return text;
}

QString MemoryStepChart::shownPeakLabel() const
{
    const QString full = peakLabel();
    if (full.isEmpty() || fontMetrics().horizontalAdvance(full) + 8 <= plotRect().width())
        return full;
    return tr("Peak %1").arg(units::format(static_cast<double>(peakBytes())));
}

QString MemoryStepChart::shownCapacityLabel() const
{
    const QString size = units::format(static_cast<double>(m_timeline.capacityBytes));
    const QString full = tr("Device capacity %1").arg(size);
    return fontMetrics().horizontalAdvance(full) <= plotRect().width() - 2 * kMemoryStepPad ? full
                                                                                            : size;
}

int MemoryStepChart::drawnPoints() const
{
    if (!m_sweeping)
        return static_cast<int>(m_timeline.points.size());
    const auto end =
        std::upper_bound(m_timeline.points.begin(), m_timeline.points.end(), m_playhead,
                         [](double time, const core::MemoryPoint &p) { return time < p.time; });
    return static_cast<int>(std::distance(m_timeline.points.begin(), end));
}

double MemoryStepChart::timeUnit(QString *name) const
{
    return chart_style::timeAxisUnit(m_viewEnd, m_layerUnits, name);
}

QString MemoryStepChart::timeAxisTitle() const
{
    QString unit;
    timeUnit(&unit);
    return tr("Time in the step (%1)").arg(unit);
}

QString MemoryStepChart::memoryAxisTitle() const
{
    return tr("Memory of one device (%1)").arg(units::largeName());
}

QString MemoryStepChart::shownTitle() const
{
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics metrics(bold);
    const QString full = tr("Memory of one device through one step: %1").arg(m_title);
    const int across = width() - 2 * kMemoryStepPad;
    if (metrics.horizontalAdvance(full) <= across)
        return full;
    return metrics.elidedText(m_title, Qt::ElideRight, across);
}

QString MemoryStepChart::shownMemoryAxisTitle() const
{
    // The longest of "Memory of one device (GB)", "Memory (GB)" and "GB" that fits, as the
    // charts' vertical axes shorten theirs (chart_style::keepAxesReadable).
    const int room = plotRect().height();
    for (const QString &choice : {memoryAxisTitle(), tr("Memory (%1)").arg(units::largeName())})
        if (fontMetrics().horizontalAdvance(choice) <= room)
            return choice;
    return units::largeName();
}

std::vector<MemoryStepChart::LegendEntry> MemoryStepChart::legend() const
{
    std::vector<LegendEntry> out;
    if (m_timeline.points.empty())
        return out;
    // Top down, as the bands stack.
    if (m_timeline.terms.cachedOutputsBytes > 0)
        out.push_back({tr("Cached outputs, up to %1")
                           .arg(units::format(double(m_timeline.terms.cachedOutputsBytes))),
                       termColour(&core::StageReport::cachedOutputsBytes), kFilled});
    if (m_timeline.terms.lossBytes > 0)
        out.push_back(
            {tr("Loss buffers, up to %1").arg(units::format(double(m_timeline.terms.lossBytes))),
             termColour(&core::StageReport::lossBytes), kFilled});
    if (m_timeline.terms.activationsBytes > 0)
        out.push_back({tr("Activations, up to %1")
                           .arg(units::format(double(m_timeline.terms.activationsBytes))),
                       termColour(&core::StageReport::activationsBytes), kFilled});
    for (auto band = m_bands.rbegin(); band != m_bands.rend(); ++band)
        out.push_back({QStringLiteral("%1 %2").arg(band->label, units::format(double(band->bytes))),
                       band->colour, kFilled});
    out.push_back({tr("Device capacity %1").arg(units::format(double(m_timeline.capacityBytes))),
                   chart_style::capacityPen().color(), kCapacityLine});
    out.push_back({tr("Peak %1").arg(units::format(double(peakBytes()))),
                   palette().color(QPalette::WindowText), kPeakMarker});
    return out;
}

QStringList MemoryStepChart::legendEntries() const
{
    QStringList out;
    for (const LegendEntry &e : legend())
        out << e.text;
    return out;
}

QStringList MemoryStepChart::memoryAxisLabels() const
{
    QStringList out;
    const double top = topBytes();
    const auto [step, decimals] = memoryTicks(plotRect().height());
    for (double v = 0; v <= top * (1 + 1e-9); v += step)
        out << QString::number(v, 'f', decimals);
    return out;
}

void MemoryStepChart::invalidate()
{
    m_valid = false;
    m_layoutCache.reset();
    m_topCache.reset();
}

const MemoryStepChart::Layout &MemoryStepChart::layout() const
{
    // Measured once per size, font and timeline: every point's x and y ask for the plot.
    if (!m_layoutCache)
        m_layoutCache = measureLayout();
    return *m_layoutCache;
}

QFont MemoryStepChart::legendFont(double scale) const
{
    QFont f = font();
    if (scale < 1)
        f.setPointSizeF(f.pointSizeF() * scale);
    return f;
}

MemoryStepChart::Layout MemoryStepChart::measureLayout() const
{
    const QFontMetrics fm = fontMetrics();
    const int top = fm.height() * 2 + kMemoryStepPad;
    Layout out;
    // The ticks, their labels and the time axis's title; the title's line goes to a plot that
    // would be shorter than four lines without it.
    int bottom = 2 * fm.height() + 2 * kMemoryStepPad;
    if (height() - top - bottom < 4 * fm.height()) {
        out.timeTitle = false;
        bottom = fm.height() + kMemoryStepPad + 4;
    }
    const int plotHeight = std::max(10, height() - top - bottom);
    // Room for the memory axis's widest label, the top one, at the plot's full height: a
    // legend under the plot only makes it shorter, with fewer labels and no more decimals.
    const int decimals = memoryTicks(plotHeight).second;
    const int left = fm.height() + kMemoryStepPad +
                     fm.horizontalAdvance(QString::number(topBytes(), 'f', decimals)) +
                     kMemoryStepPad;
    const std::vector<LegendEntry> entries = legend();
    if (entries.empty()) {
        out.plot = QRect(left, top, std::max(10, width() - left - kMemoryStepPad), plotHeight);
        return out;
    }

    // Beside the plot, a swatch and a label a row, in a third of the width at most and from
    // under the title down: at presentation mode's larger text, smaller text, to
    // chart_style's least (at 1280×800 its full size took 60 % of the width, the plot 18 %).
    const auto widestOf = [&entries](const QFontMetrics &metrics) {
        int widest = 0;
        for (const LegendEntry &e : entries)
            widest = std::max(widest, metrics.horizontalAdvance(e.text));
        return widest;
    };
    const double count = static_cast<double>(entries.size());
    const double titleBottom = kMemoryStepPad / 2 + fm.height() + 4;
    const double applicationSize = QApplication::font().pointSizeF();
    const double least = chart_style::legendLeastScale(
        applicationSize > 0 && font().pointSizeF() > 0 ? font().pointSizeF() / applicationSize
                                                       : 1.0);
    const double third = width() / 3.0;
    out.legendScale = std::min(
        chart_style::legendScale(third, widestOf(fm) + fm.height(), 3 * kMemoryStepPad, least),
        chart_style::legendScale(height() - titleBottom, count * fm.height(), (count - 1) * 4,
                                 least));
    const QFontMetrics metrics(legendFont(out.legendScale));
    const int rowHeight = metrics.height() + 4;
    const int legendWidth = widestOf(metrics) + metrics.height() + 3 * kMemoryStepPad;

    // Where that is still more than a third, under the plot in columns, if the plot keeps four
    // lines of height there.
    if (legendWidth > third) {
        const int column = widestOf(metrics) + metrics.height() + 2 * kMemoryStepPad;
        const int across = width() - 2 * kMemoryStepPad;
        const int columns =
            std::clamp(across / std::max(column, 1), 1, static_cast<int>(entries.size()));
        const int rows = (static_cast<int>(entries.size()) + columns - 1) / columns;
        const int legendHeight = rows * rowHeight - 4 + kMemoryStepPad;
        const int above = height() - top - bottom - legendHeight;
        if (above >= 4 * fm.height()) {
            out.plot = QRect(left, top, std::max(10, width() - left - kMemoryStepPad), above);
            out.legendRows = rows;
            const int used = columns * column - kMemoryStepPad;
            out.legend =
                QRect((width() - used) / 2, height() - legendHeight, used, rows * rowHeight - 4);
            return out;
        }
    }
    out.plot =
        QRect(left, top, std::max(10, width() - left - legendWidth - kMemoryStepPad), plotHeight);
    // Level with the plot's top, or higher where its rows would run past the bottom, never
    // over the title. The rows are 4 pixels apart, with none after the last.
    const int legendHeight = static_cast<int>(count) * rowHeight - 4;
    int legendTop = out.plot.top();
    if (legendTop + legendHeight > height())
        legendTop = std::max(static_cast<int>(std::ceil(titleBottom)), height() - legendHeight);
    out.legend = QRect(out.plot.right() + 2 * kMemoryStepPad, legendTop,
                       legendWidth - 2 * kMemoryStepPad, legendHeight);
    return out;
}

double MemoryStepChart::topBytes() const
{
    if (!m_topCache)
        m_topCache = measureTop();
    return *m_topCache;
}

double MemoryStepChart::measureTop() const
{
    // 8 % above the higher of the peak and the capacity, rounded to a tick.
    const double highest = std::max(double(peakBytes()), double(m_timeline.capacityBytes));
    const double top = units::large(highest * 1.08);
    const double step = memoryStepNice(top / 8);
    return std::ceil(top / step) * step;
}

std::pair<double, int> MemoryStepChart::memoryTicks(int plotHeight) const
{
    // Labels at least 1.6 lines apart and at least two steps up the axis, at a round step.
    const double step =
        memoryStepNice(topBytes() / std::max(2.0, plotHeight / (1.6 * fontMetrics().height())));
    return {step, std::max(0, -int(std::floor(std::log10(step) + 1e-9)))};
}

double MemoryStepChart::xAt(double time) const
{
    const QRect plot = plotRect();
    const double span = m_viewEnd - m_viewStart;
    return plot.left() + (span > 0 ? (time - m_viewStart) / span : 0) * plot.width();
}

double MemoryStepChart::timeAt(double x) const
{
    const QRect plot = plotRect();
    return m_viewStart + (x - plot.left()) / std::max(1, plot.width()) * (m_viewEnd - m_viewStart);
}

double MemoryStepChart::yAt(double bytes) const
{
    const QRect plot = plotRect();
    const double top = topBytes();
    return plot.bottom() + 1 - units::large(bytes) / (top > 0 ? top : 1) * plot.height();
}

namespace {

// A step line in pixels, built a level at a time: a level that starts and ends inside one pixel
// column joins that column's run, and a column's run is drawn across the column at its highest
// level, with its lowest at the column's right edge: at m = 1024 a stage's thousands of levels
// become a few points a column, and no spike or dip is lost.
class StepLine
{
public:
    explicit StepLine(QPolygonF &out) : m_out(out) {}

    void add(double x0, double x1, double y)
    {
        const double column = std::floor(x0);
        if (std::floor(x1) == column && x1 - x0 < 1) {
            if (!m_run || m_column != column) {
                flush();
                m_run = true;
                m_column = column;
                m_first = m_high = m_low = y;
            }
            m_high = std::min(m_high, y); // pixels: the highest level has the smallest y
            m_low = std::max(m_low, y);
            m_last = y;
            return;
        }
        flush();
        append(x0, y);
        append(x1, y);
    }

    void flush()
    {
        if (!m_run)
            return;
        m_run = false;
        append(m_column, m_first);
        append(m_column, m_high);
        append(m_column + 1, m_high);
        append(m_column + 1, m_low);
        append(m_column + 1, m_last);
    }

private:
    void append(double x, double y)
    {
        if (m_out.isEmpty() || m_out.back() != QPointF(x, y))
            m_out << QPointF(x, y);
    }

    QPolygonF &m_out;
    bool m_run = false;
    double m_column = 0;
    double m_first = 0, m_high = 0, m_low = 0, m_last = 0;
};

} // namespace

// Steps in pixels: each point holds until the next one's time. Points that fall in the same
// pixel column keep their highest and lowest (StepLine), so that no spike is lost at m = 1024.
void MemoryStepChart::rebuild()
{
    m_valid = true;
    m_activations.clear();
    m_loss.clear();
    m_cached.clear();
    m_total.clear();
    const auto &points = m_timeline.points;
    if (points.empty() || m_viewEnd <= m_viewStart)
        return;
    const double flat = double(m_timeline.flatBytes);
    const double base = yAt(flat);
    QPolygonF actTop, lossTop, cachedTop;
    StepLine act(actTop), loss(lossTop), total(cachedTop);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const double t0 = points[i].time;
        const double t1 = i + 1 < points.size() ? points[i + 1].time : m_timeline.makespan;
        if (t1 < m_viewStart || t0 > m_viewEnd)
            continue;
        const double x0 = xAt(std::max(t0, m_viewStart));
        const double x1 = xAt(std::min(t1, m_viewEnd));
        act.add(x0, x1, yAt(flat + double(points[i].activationsBytes)));
        loss.add(x0, x1,
                 yAt(flat + double(points[i].activationsBytes) + double(points[i].lossBytes)));
        total.add(x0, x1, yAt(double(points[i].totalBytes)));
    }
    act.flush();
    loss.flush();
    total.flush();
    if (actTop.isEmpty())
        return;
    m_total = cachedTop;
    m_activations = actTop;
    m_activations << QPointF(actTop.back().x(), base) << QPointF(actTop.front().x(), base);
    // Each band between its own top and the one below it: the loss buffers above the
    // activations, the cached outputs above both.
    if (m_timeline.terms.lossBytes > 0) {
        m_loss = lossTop;
        for (auto p = actTop.rbegin(); p != actTop.rend(); ++p)
            m_loss << *p;
    }
    if (m_timeline.terms.cachedOutputsBytes > 0) {
        m_cached = cachedTop;
        for (auto p = lossTop.rbegin(); p != lossTop.rend(); ++p)
            m_cached << *p;
    }
}

void MemoryStepChart::resizeEvent(QResizeEvent *event)
{
    invalidate();
    QWidget::resizeEvent(event);
}

void MemoryStepChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        invalidate();
    QWidget::changeEvent(event);
}

QString MemoryStepChart::toolTipAt(double time) const
{
    const auto &points = m_timeline.points;
    if (points.empty())
        return {};
    auto after = std::upper_bound(points.begin(), points.end(), time,
                                  [](double t, const core::MemoryPoint &p) { return t < p.time; });
    const core::MemoryPoint &p = after == points.begin() ? points.front() : *std::prev(after);
    QString unit;
    const double scale = timeUnit(&unit);
    QString text =
        tr("t = %1 %2\nTotal %3\nActivations %4 (%5 micro-batches)")
            .arg(QString::number(time / scale, 'g', 4), unit, units::format(double(p.totalBytes)),
                 units::format(double(p.activationsBytes)),
                 QString::number(p.microbatches, 'g', 4));
    if (m_timeline.terms.lossBytes > 0)
        text += tr("\nLoss buffers %1").arg(units::format(double(p.lossBytes)));
    if (m_timeline.terms.cachedOutputsBytes > 0)
        text += tr("\nCached outputs %1").arg(units::format(double(p.cachedOutputsBytes)));
    text += tr("\nWeights, gradients, optimizer and the rest %1")
                .arg(units::format(double(m_timeline.flatBytes)));
    return text;
}

bool MemoryStepChart::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QRect plot = plotRect();
        if (plot.contains(help->pos()) && !m_timeline.points.empty()) {
            const double time = timeAt(help->pos().x());
            if (!m_sweeping || time <= m_playhead) {
                QToolTip::showText(help->globalPos(), toolTipAt(time), this);
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

void MemoryStepChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::WindowText));
    const QFontMetrics fm = fontMetrics();
    if (!m_message.isEmpty() || m_timeline.points.empty()) {
        p.drawText(rect(), Qt::AlignCenter, m_message);
        return;
    }
    if (!m_valid)
        rebuild();
    const QRect plot = plotRect();

    // The title.
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    // Over the plot when it fits there, else over the whole width.
    {
        const QString shown = shownTitle();
        QRect box(plot.left(), kMemoryStepPad / 2, plot.width(), fm.height() + 4);
        if (QFontMetrics(bold).horizontalAdvance(shown) > plot.width())
            box = QRect(kMemoryStepPad, kMemoryStepPad / 2, width() - 2 * kMemoryStepPad,
                        fm.height() + 4);
        p.drawText(box, Qt::AlignHCenter | Qt::AlignVCenter, shown);
    }
    p.setFont(font());

    paintAxes(p, plot);

    // What ran: the whole step, or up to the playhead during a sweep.
    p.save();
    QRectF drawn(plot);
    drawn.setTop(0);
    if (m_sweeping)
        drawn.setRight(std::clamp(xAt(m_playhead), double(plot.left()), double(plot.right() + 1)));
    p.setClipRect(
        drawn.intersected(QRectF(plot.left(), plot.top(), plot.width() + 1, plot.height() + 1)));
    double level = 0;
    for (const Band &band : m_bands) {
        const double y0 = yAt(level);
        level += double(band.bytes);
        const double y1 = yAt(level);
        p.fillRect(QRectF(QPointF(plot.left(), y1), QPointF(plot.right() + 1, y0)), band.colour);
    }
    p.setPen(Qt::NoPen);
    QColor act = termColour(&core::StageReport::activationsBytes);
    p.setBrush(act);
    p.drawPolygon(m_activations);
    if (!m_loss.isEmpty()) {
        p.setBrush(termColour(&core::StageReport::lossBytes));
        p.drawPolygon(m_loss);
    }
    if (!m_cached.isEmpty()) {
        p.setBrush(termColour(&core::StageReport::cachedOutputsBytes));
        p.drawPolygon(m_cached);
    }
    QPen outline(pal.color(QPalette::WindowText));
    outline.setWidthF(1.2);
    p.setPen(outline);
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(m_total);
    p.restore();

    p.setRenderHint(QPainter::Antialiasing);
    // The capacity, across the whole plot.
    const double capY = yAt(double(m_timeline.capacityBytes));
    p.setPen(chart_style::capacityPen());
    p.drawLine(QPointF(plot.left(), capY), QPointF(plot.right(), capY));
    p.setPen(chart_style::capacityPen().color());
    p.drawText(capacityLabelRect(), Qt::AlignRight | Qt::AlignVCenter, shownCapacityLabel());

    // The peak, once the sweep has reached it.
    const core::MemoryPoint &peak = m_timeline.points[m_timeline.peak];
    if ((!m_sweeping || peak.time <= m_playhead) && peak.time >= m_viewStart &&
        peak.time <= m_viewEnd) {
        const QPointF at(xAt(peak.time), yAt(double(peak.totalBytes)));
        p.setPen(QPen(pal.color(QPalette::WindowText), 2));
        p.setBrush(pal.color(QPalette::Base));
        p.drawEllipse(at, 5, 5);
        const QRectF box = peakLabelRect();
        QColor back = pal.color(QPalette::Base);
        back.setAlpha(220);
        p.fillRect(box, back);
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(box, Qt::AlignCenter, shownPeakLabel());
    }

    // The playhead.
    if (m_sweeping && m_playhead >= m_viewStart && m_playhead <= m_viewEnd) {
        const double x = xAt(m_playhead);
        p.setPen(QPen(pal.color(QPalette::Highlight), 2));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    paintLegend(p);
}

QRectF MemoryStepChart::capacityLabelRect() const
{
    if (m_timeline.points.empty())
        return {};
    const QRect plot = plotRect();
    const QFontMetrics fm = fontMetrics();
    const double capY = yAt(double(m_timeline.capacityBytes));
    // Right-aligned over the line, a pad in from the plot's right edge.
    const double right = plot.right() + 1 - kMemoryStepPad;
    const double width = std::min(double(fm.horizontalAdvance(shownCapacityLabel())),
                                  plot.width() - 2.0 * kMemoryStepPad);
    return {right - width, capY - fm.height() - 2, width, double(fm.height())};
}

QRectF MemoryStepChart::peakLabelRect() const
{
    if (m_timeline.points.empty())
        return {};
    const QRect plot = plotRect();
    const QFontMetrics fm = fontMetrics();
    const core::MemoryPoint &peak = m_timeline.points[m_timeline.peak];
    const QPointF at(xAt(peak.time), yAt(double(peak.totalBytes)));
    const double capY = yAt(double(m_timeline.capacityBytes));
    const double w = fm.horizontalAdvance(shownPeakLabel()) + 8;
    const double h = fm.height() + 2;
    const double left = std::clamp(at.x() + 8, double(plot.left()), double(plot.right()) - w);
    // On the marker's side of the capacity's dashed line (2 pixels wide), so that a peak under
    // the capacity does not read as over it, and clear of the line's label. A peak over the
    // capacity with too little headroom above it for the label has it under the line.
    const bool underCapacity = at.y() > capY;
    const auto clear = [&](double top) {
        const QRectF box(left, top, w, h);
        const bool sameSide = underCapacity ? top > capY + 2 : top + h + 2 < capY;
        return sameSide && !box.intersects(capacityLabelRect().adjusted(-1, -1, 1, 1));
    };
    // Above the marker (5 pixels in radius) where that is clear and inside the plot.
    const double above = at.y() - h - 8;
    if (above >= plot.top() && clear(above))
        return {left, above, w, h};
    // Else under it, and under the line where the line runs there.
    double below = at.y() + 8;
    if (!clear(below))
        below = std::max(below, capY + 4);
    below = std::clamp(below, double(plot.top()), plot.bottom() + 1 - h);
    return {left, below, w, h};
}

void MemoryStepChart::paintAxes(QPainter &p, const QRect &plot) const
{
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const QColor grid =
        chart_style::isDark(pal) ? QColor(0x55, 0x55, 0x55) : QColor(0xDD, 0xDD, 0xDD);
    // Memory, up the left.
    const double top = topBytes();
    const auto [step, decimals] = memoryTicks(plot.height());
    for (double v = 0; v <= top * (1 + 1e-9); v += step) {
        const double y = plot.bottom() + 1 - v / top * plot.height();
        p.setPen(grid);
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(pal.color(QPalette::WindowText));
        const QString text = QString::number(v, 'f', decimals);
        p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - kMemoryStepPad, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, text);
    }
    p.save();
    p.translate(kMemoryStepPad / 2.0, plot.center().y());
    p.rotate(-90);
    const QString memoryTitle = shownMemoryAxisTitle();
    p.drawText(QRectF(-plot.height() / 2.0, 0, plot.height(), fm.height()), Qt::AlignCenter,
               memoryTitle);
    p.restore();

    // Time, across the bottom.
    QString unitName;
    const double unit = timeUnit(&unitName);
    const int y = plot.bottom() + 1;
    p.drawLine(plot.left(), y, plot.right(), y);
    const double span = m_viewEnd - m_viewStart;
    const bool titled = layout().timeTitle;
    // Without the title, the last label carries the unit: the labels are spaced for it.
    const QString suffix = titled ? QString() : QStringLiteral(" ") + unitName;
    const double sample =
        fm.horizontalAdvance(QString::number(m_viewEnd / unit, 'f', 1) + suffix) + 24;
    const double tStep = memoryStepNice(span / unit * sample / std::max(1, plot.width())) * unit;
    const int tDecimals = std::max(0, -int(std::floor(std::log10(tStep / unit) + 1e-9)));
    const double first = std::ceil(m_viewStart / tStep) * tStep;
    const int ticks = static_cast<int>(std::floor((m_viewEnd + tStep * 1e-9 - first) / tStep));
    for (int i = 0; i <= ticks; ++i) {
        const double t = first + i * tStep;
        const double x = xAt(t);
        p.drawLine(QPointF(x, y), QPointF(x, y + 4));
        const QString text =
            QString::number(t / unit, 'f', tDecimals) + (i == ticks ? suffix : QString());
        const double w = fm.horizontalAdvance(text);
        const double left = std::clamp(x - w / 2, 0.0, width() - w - 1);
        p.drawText(QPointF(left, y + 4 + fm.ascent()), text);
    }
    if (titled)
        p.drawText(
            QRect(plot.left(), y + 4 + fm.height() + kMemoryStepPad / 2, plot.width(), fm.height()),
            Qt::AlignHCenter | Qt::AlignTop, timeAxisTitle());
}

void MemoryStepChart::paintLegend(QPainter &p) const
{
    const Layout &l = layout();
    p.save();
    p.setFont(legendFont(l.legendScale));
    const QFontMetrics fm(p.font());
    const int box = fm.height() - 4;
    const int rowHeight = fm.height() + 4;
    const std::vector<LegendEntry> entries = legend();
    // Beside the plot, one column; under it, down each column, then across.
    const int rows = l.legendRows > 0 ? l.legendRows : static_cast<int>(entries.size());
    int widest = 0;
    for (const LegendEntry &e : entries)
        widest = std::max(widest, fm.horizontalAdvance(e.text));
    const int column = widest + fm.height() + 2 * kMemoryStepPad;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const LegendEntry &e = entries[i];
        const int left = l.legend.left() + static_cast<int>(i) / rows * column;
        const int y = l.legend.top() + static_cast<int>(i) % rows * rowHeight;
        const QRectF marker(left, y + 2, box, box);
        switch (e.kind) {
        case kFilled:
            p.setPen(e.colour.darker(130));
            p.setBrush(e.colour);
            p.drawRect(marker);
            break;
        case kCapacityLine: {
            QPen pen = chart_style::capacityPen();
            pen.setWidthF(2);
            p.setPen(pen);
            p.drawLine(QPointF(marker.left(), marker.center().y()),
                       QPointF(marker.right(), marker.center().y()));
            break;
        }
        default:
            p.setPen(QPen(e.colour, 2));
            p.setBrush(palette().color(QPalette::Base));
            p.drawEllipse(marker.center(), 4, 4);
            break;
        }
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QPointF(left + box + kMemoryStepPad, y + fm.ascent()), e.text);
    }
    p.restore();
}

} // namespace ui
