#include "ui/charts/step_time_chart.h"

#include "io/text.h"
#include "ui/charts/chart_style.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStackedLayout>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

// A colour per part, from the colour-blind-safe palette: the layer's compute in blues and
// greens, communication in warm colours and black, idle time light grey as on the timeline.
QBrush partBrush(core::TimePart part)
{
    switch (part) {
    case core::TimePart::matmul:
        return chart_style::blue();
    case core::TimePart::memoryBound:
        return chart_style::skyBlue();
    case core::TimePart::attention:
        return chart_style::green();
    case core::TimePart::recompute:
        return chart_style::orange();
    case core::TimePart::embeddingHead:
        return chart_style::purple();
    case core::TimePart::tpComm:
        return chart_style::vermillion();
    case core::TimePart::expertComm:
        return QBrush(chart_style::vermillion(), Qt::DiagCrossPattern); // a2a: crossed
    case core::TimePart::contextComm:
        return QBrush(chart_style::green(), Qt::Dense4Pattern);
    case core::TimePart::pipelineComm:
        return chart_style::yellow();
    case core::TimePart::offload:
        return QBrush(chart_style::yellow(), Qt::Dense4Pattern); // host copies: dotted
    case core::TimePart::bubble:
        return QBrush(chart_style::grey(), Qt::BDiagPattern); // nothing runs: hatched
    case core::TimePart::dpSync:
        return chart_style::black();
    case core::TimePart::optimizer:
        return chart_style::grey();
    }
    return chart_style::grey();
}

QString partLabel(core::TimePart part)
{
    return StepTimeChart::tr(core::timePartInfo(part).label.data());
}

// "2.39 s", "153 ms", "41.2 µs".
QString seconds(double s)
{
    if (s >= 1)
        return StepTimeChart::tr("%1 s").arg(s, 0, 'g', 3);
    if (s >= 1e-3)
        return StepTimeChart::tr("%1 ms").arg(s * 1e3, 0, 'g', 3);
    return StepTimeChart::tr("%1 µs").arg(s * 1e6, 0, 'g', 3);
}

// The smallest of 1, 2, 5 × 10^k stages at least `stages` apart.
int niceSpacing(double stages)
{
    for (int magnitude = 1;; magnitude *= 10)
        for (int factor : {1, 2, 5})
            if (factor * magnitude >= stages)
                return factor * magnitude;
}

constexpr double kBarPad = 8;
constexpr double kBarSwatch = 14;
constexpr int kBarIntervals = 10;

QFont boldFont(QFont font)
{
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    return font;
}

// A five-pointed star of outer radius r around c, as Qt Charts' star marker.
QPolygonF star(QPointF c, double r)
{
    QPolygonF out;
    for (int i = 0; i < 10; ++i) {
        const double angle = -M_PI / 2 + i * M_PI / 5;
        const double radius = i % 2 == 0 ? r : r * 0.4;
        out << c + QPointF(radius * std::cos(angle), radius * std::sin(angle));
    }
    return out;
}

// The MoE layers' untimed wait: a dashed outline, no fill, in the warning strip's amber, so
// that it reads as a range beyond the step rather than a part of it.
QPen moeHostRangePen(const QPalette &pal)
{
    QPen pen(chart_style::isDark(pal) ? QColor(0xE0, 0x9A, 0x3A) : QColor(0xA0, 0x5A, 0x00));
    pen.setWidthF(1.5);
    pen.setStyle(Qt::DashLine);
    return pen;
}

} // namespace

// The bars, axes and legend, painted from the chart's numbers.
class StepTimeBars : public QWidget
{
public:
    explicit StepTimeBars(StepTimeChart *chart) : m_chart(chart)
    {
        setObjectName(QStringLiteral("stepTimeBars"));
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        m_chart->paintBars(p, size());
    }
    void mouseMoveEvent(QMouseEvent *event) override
    {
        const auto at = m_chart->hit(event->position());
        if (at.part)
            QToolTip::showText(event->globalPosition().toPoint(),
                               m_chart->toolTipFor(at.stage, *at.part, at.plan), this);
        else
            QToolTip::hideText();
    }
    void leaveEvent(QEvent *) override { QToolTip::hideText(); }

private:
    StepTimeChart *m_chart;
};

StepTimeChart::StepTimeChart(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout(this)), m_messageLabel(new QLabel),
      m_bars(new StepTimeBars(this))
{
    m_messageLabel->setAlignment(Qt::AlignCenter);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setMargin(24);
    m_messageLabel->setObjectName(QStringLiteral("stepTimeMessage"));
    m_stack->addWidget(m_bars);
    m_stack->addWidget(m_messageLabel);
}

QString StepTimeChart::unavailableReason(const core::Report &report)
{
    if (!report.ok())
        return tr("The scenario is invalid: no step time to show.");
    if (report.timeInLayerUnits)
        return tr("No step time in seconds: %1, so the schedule is counted in layer-times "
                  "(one layer's forward = 1). The Timeline tab shows it in those units.")
            .arg(io::qs(report.untimedReason));
    if (!report.stepTime || report.stepTime->stages.empty()) {
        QStringList why;
        for (const core::Warning &w : report.warnings)
            if (w.code.ends_with("-link-unknown"))
                why << io::qs(w.message);
        return why.isEmpty() ? tr("No step time for this scenario.")
                             : tr("No step time: %1.").arg(why.join(QStringLiteral("; ")));
    }
    // Nothing to scale an axis to (an operation at a rate of zero would do it).
    if (!(std::isfinite(report.stepTime->stepTimeS) && report.stepTime->stepTimeS > 0))
        return tr("No finite step time for this scenario.");
    return {};
}

void StepTimeChart::setReport(const core::Report &report, const core::Report *compare,
                              const QString &compareName)
{
    const auto timed = [](const core::Report *r) {
        return r && r->ok() && !r->timeInLayerUnits && r->stepTime &&
               !r->stepTime->stages.empty() && std::isfinite(r->stepTime->stepTimeS) &&
               r->stepTime->stepTimeS > 0;
    };
    m_stagesB.clear();
    m_busiestB = -1;
    m_stepTimeSB = 0;
    m_compareName = compareName;
    if (timed(compare)) {
        m_stagesB = compare->stepTime->stages;
        m_stepTimeSB = compare->stepTime->stepTimeS;
        m_busiestB = compare->stepTime->busiestStage;
    }
    m_message = unavailableReason(report);
    if (!m_message.isEmpty()) {
        m_stages.clear();
        m_busiest = -1;
        m_moeHostLowS = m_moeHostHighS = 0;
        m_messageLabel->setText(m_message);
        m_stack->setCurrentWidget(m_messageLabel);
        return;
    }
    m_stack->setCurrentWidget(m_bars);
    const core::StepTimeReport &st = *report.stepTime;
    m_stages = st.stages;
    m_stepTimeS = st.stepTimeS;
    m_atLeast = st.linkTimeExcluded;
    m_busiest = st.busiestStage;
    // The untimed MoE wait, for plan A alone: comparing, the bars share one axis.
    m_moeHostLowS = isComparing() ? 0 : st.moeHostLowS;
    m_moeHostHighS = isComparing() ? 0 : st.moeHostHighS;
    const double longest = std::max(st.stepTimeS + m_moeHostHighS, m_stepTimeSB);
    m_secondsPerUnit = longest >= 1 ? 1 : longest >= 1e-3 ? 1e-3 : 1e-6;
    const QString unit = m_secondsPerUnit == 1      ? tr("s")
                         : m_secondsPerUnit == 1e-3 ? tr("ms")
                                                    : tr("µs");
    m_axisTitle = tr("Time per step (%1)").arg(unit);
    m_axisUnit = unit;
    const bool prefill = report.mode == core::Mode::inference;
    m_title = prefill ? tr("Where the prefill's time goes, by pipeline stage")
                      : tr("Where one step's time goes, by pipeline stage");
    if (st.linkTimeExcluded)
        m_title += tr(" (at least: link time not published)");
    relabelStages();
    m_bars->update();
}

StepTimeChart::Layout StepTimeChart::layout(const QSize &size) const
{
    const QFontMetricsF fm(font());
    const QFontMetricsF title(boldFont(font()));
    Layout out;
    // The legend's rows from the title down: where they would run past the chart's bottom,
    // smaller text, as far as chart_style::kLegendMinScale (beyond it the last rows are cut).
    const QStringList labels = legendLabels();
    const double count = static_cast<double>(labels.size());
    // Rows of s·h + pad/2.
    out.legendScale = chart_style::legendScale(size.height() - title.height() - kBarPad,
                                               count * fm.height(), count * kBarPad / 2);
    const QFontMetricsF legend(legendFont(out));
    double legendWidth = 0;
    for (const QString &label : labels)
        legendWidth = std::max(legendWidth, legend.horizontalAdvance(label));
    legendWidth += kBarSwatch + 3 * kBarPad;
    const double step = std::max(m_stepTimeS + m_moeHostHighS, m_stepTimeSB) / m_secondsPerUnit;
    const double top = title.height() + 2 * kBarPad;
    // Comparing, a row of plan letters ("A", "B") under the bars.
    const int rows = isComparing() ? 3 : 2;
    const double bottom = size.height() - rows * fm.height() - 3 * kBarPad;
    // Ticks at least two lines apart, at most ten intervals (chart_style::setNiceRange).
    const double height = std::max(bottom - top, 1.0);
    const int intervals =
        std::clamp(static_cast<int>(height / (2 * fm.height())), 1, kBarIntervals);
    const double peak = std::max(step, 1.0) * 1.1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(peak)));
    out.tick = magnitude * 10;
    for (double factor : {0.1, 0.2, 0.5, 1.0, 2.0, 5.0})
        if (peak / (magnitude * factor) <= intervals) {
            out.tick = magnitude * factor;
            break;
        }
    out.top = std::ceil(peak / out.tick - 1e-9) * out.tick;
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(out.tick))));
    double tickWidth = 0;
    for (double v = 0; v <= out.top + out.tick / 2; v += out.tick)
        tickWidth = std::max(tickWidth, fm.horizontalAdvance(QString::number(v, 'f', decimals)));
    const double left = fm.height() + 2 * kBarPad + tickWidth + kBarPad;
    const double right = size.width() - legendWidth;
    out.plot = QRectF(left, top, std::max(right - left, 1.0), height);
    out.legend = QRectF(right + kBarPad, top, legendWidth - kBarPad, height);
    return out;
}

double StepTimeChart::legendScale() const
{
    return layout(m_bars->size()).legendScale;
}

QFont StepTimeChart::legendFont(const Layout &l) const
{
    QFont f = font();
    if (l.legendScale < 1)
        f.setPointSizeF(f.pointSizeF() * l.legendScale);
    return f;
}

QPointF StepTimeChart::positionOf(int stage, double value) const
{
    const Layout l = layout(m_bars->size());
    const double slot = l.plot.width() / std::max(stageCount(), 1);
    const auto [from, to] = barSpan(0);
    return {l.plot.left() + (stage + (from + to) / 2) * slot,
            l.plot.bottom() - value / l.top * l.plot.height()};
}

int StepTimeChart::stageCount() const
{
    return static_cast<int>(std::max(m_stages.size(), m_stagesB.size()));
}

std::pair<double, double> StepTimeChart::barSpan(int plan) const
{
    if (!isComparing())
        return {0.1, 0.9};
    return plan == 0 ? std::pair{0.06, 0.48} : std::pair{0.52, 0.94};
}

StepTimeChart::Hit StepTimeChart::hit(const QPointF &at) const
{
    Hit out;
    if (m_stages.empty())
        return out;
    const Layout l = layout(m_bars->size());
    const double slot = l.plot.width() / stageCount();
    const int stage = static_cast<int>(std::floor((at.x() - l.plot.left()) / slot));
    if (stage < 0 || stage >= stageCount())
        return out;
    out.stage = stage;
    const double offset = (at.x() - l.plot.left() - stage * slot) / slot;
    out.plan = isComparing() && offset >= 0.5 ? 1 : 0;
    const auto [from, to] = barSpan(out.plan);
    const auto &stages = out.plan == 0 ? m_stages : m_stagesB;
    if (offset < from || offset > to || stage >= static_cast<int>(stages.size()))
        return out;
    double value = (l.plot.bottom() - at.y()) / l.plot.height() * l.top * m_secondsPerUnit;
    if (value < 0)
        return out;
    const core::TimeBreakdown &b = stages[static_cast<std::size_t>(stage)];
    for (const core::TimePartInfo &info : core::kTimeParts) {
        if (value < b[info.part]) {
            out.part = info.part;
            return out;
        }
        value -= b[info.part];
    }
    return out;
}

void StepTimeChart::paintBars(QPainter &p, const QSize &size) const
{
    const QPalette pal = palette();
    p.fillRect(QRect(QPoint(), size), pal.color(QPalette::Base));
    if (m_stages.empty())
        return;
    const Layout l = layout(size);
    const QFontMetricsF fm(font());
    const QColor text = pal.color(QPalette::Text);
    const QColor faint =
        chart_style::isDark(pal) ? QColor(0x50, 0x50, 0x50) : QColor(0xDD, 0xDD, 0xDD);

    p.setFont(boldFont(font()));
    p.setPen(text);
    p.drawText(QRectF(0, kBarPad, size.width(), QFontMetricsF(p.font()).height()), Qt::AlignCenter,
               QFontMetricsF(p.font()).elidedText(m_title, Qt::ElideRight, size.width()));
    p.setFont(font());

    // The value axis: grid lines, tick labels, its title turned up the left edge.
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(l.tick))));
    const auto y = [&](double value) { return l.plot.bottom() - value / l.top * l.plot.height(); };
    for (double v = 0; v <= l.top + l.tick / 2; v += l.tick) {
        p.setPen(faint);
        p.drawLine(QPointF(l.plot.left(), y(v)), QPointF(l.plot.right(), y(v)));
        p.setPen(text);
        p.drawText(QRectF(0, y(v) - fm.height() / 2, l.plot.left() - kBarPad, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(v, 'f', decimals));
    }
    p.save();
    p.translate(kBarPad, l.plot.center().y());
    p.rotate(-90);
    // The title, or where a short plot (large text) has no room for it, its unit alone.
    const QString axisTitle =
        fm.horizontalAdvance(m_axisTitle) <= l.plot.height() ? m_axisTitle : m_axisUnit;
    p.drawText(QRectF(-l.plot.height() / 2, 0, l.plot.height(), fm.height()), Qt::AlignCenter,
               fm.elidedText(axisTitle, Qt::ElideRight, l.plot.height()));
    p.restore();

    // The bars: whole pixels, no antialiasing; a border only where bars are wide enough.
    const double slot = l.plot.width() / static_cast<double>(stageCount());
    const double barWidth = (barSpan(0).second - barSpan(0).first) * slot;
    const bool borders = barWidth >= 6;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setClipRect(l.plot.adjusted(0, -1, 1, 1));
    for (int plan = 0; plan < (isComparing() ? 2 : 1); ++plan) {
        const auto &stages = plan == 0 ? m_stages : m_stagesB;
        for (std::size_t s = 0; s < stages.size(); ++s) {
            double base = 0;
            const double left =
                l.plot.left() + (static_cast<double>(s) + barSpan(plan).first) * slot;
            for (const core::TimePartInfo &info : core::kTimeParts) {
                const double v = stages[s][info.part] / m_secondsPerUnit;
                if (!(v > 0))
                    continue;
                const QRectF r(QPointF(left, y(base + v)), QPointF(left + barWidth, y(base)));
                const QBrush brush = partBrush(info.part);
                p.setBrush(brush);
                if (borders)
                    p.setPen(brush.style() == Qt::SolidPattern && brush.color() != Qt::black
                                 ? brush.color().darker(130)
                                 : chart_style::grey());
                else
                    p.setPen(Qt::NoPen);
                p.drawRect(r);
                base += v;
            }
        }
    }
    p.restore();
    p.setPen(text);
    p.drawLine(l.plot.bottomLeft(), l.plot.bottomRight());
    p.drawLine(l.plot.bottomLeft(), l.plot.topLeft());

    // The step time across every stage, and a star over the busiest.
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    QPen stepPen(QColor(0x44, 0x44, 0x44));
    if (chart_style::isDark(pal))
        stepPen.setColor(QColor(0xCC, 0xCC, 0xCC));
    stepPen.setWidthF(1.5);
    stepPen.setStyle(Qt::DashLine);
    QPen stepPenB = stepPen;
    stepPenB.setStyle(Qt::DotLine);
    stepPenB.setWidthF(2);
    const auto busiestStar = [&](int plan, int stage, double stepS) {
        const auto [from, to] = barSpan(plan);
        const QPointF at(l.plot.left() + (stage + (from + to) / 2) * slot,
                         y(1.04 * stepS / m_secondsPerUnit));
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(chart_style::black());
        p.drawPolygon(star(at, 9));
    };
    p.setPen(stepPen);
    p.drawLine(QPointF(l.plot.left(), y(m_stepTimeS / m_secondsPerUnit)),
               QPointF(l.plot.right(), y(m_stepTimeS / m_secondsPerUnit)));
    if (isComparing()) {
        p.setPen(stepPenB);
        p.drawLine(QPointF(l.plot.left(), y(m_stepTimeSB / m_secondsPerUnit)),
                   QPointF(l.plot.right(), y(m_stepTimeSB / m_secondsPerUnit)));
        busiestStar(1, m_busiestB, m_stepTimeSB);
    }
    busiestStar(0, m_busiest, m_stepTimeS);
    // The MoE layers' untimed wait over the busiest bar: a dashed box from the step plus its low
    // end to the step plus its high end, on the bar's right half, clear of the star.
    const QPen moeHostPen = moeHostRangePen(pal);
    if (m_moeHostHighS > 0) {
        const auto [from, to] = barSpan(0);
        const double right = l.plot.left() + (m_busiest + to) * slot;
        const double width = std::max(4.0, (to - from) * slot * 0.3);
        const QRectF range(
            QPointF(right - width, y((m_stepTimeS + m_moeHostHighS) / m_secondsPerUnit)),
            QPointF(right, y((m_stepTimeS + m_moeHostLowS) / m_secondsPerUnit)));
        p.setPen(moeHostPen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(range);
        p.drawLine(QPointF(range.center().x(), range.bottom()),
                   QPointF(range.center().x(), y(m_stepTimeS / m_secondsPerUnit)));
    }
    p.restore();

    // Comparing, each bar's plan under it, where the bars are wide enough for a letter.
    double labelTop = l.plot.bottom() + kBarPad / 2;
    if (isComparing()) {
        if (barWidth >= fm.horizontalAdvance(QStringLiteral("B")) + 2)
            for (int s = 0; s < stageCount(); ++s)
                for (int plan = 0; plan < 2; ++plan) {
                    const auto [from, to] = barSpan(plan);
                    p.drawText(QRectF(l.plot.left() + (s + from) * slot, labelTop,
                                      (to - from) * slot, fm.height()),
                               Qt::AlignHCenter | Qt::AlignTop,
                               plan == 0 ? QStringLiteral("A") : QStringLiteral("B"));
                }
        labelTop += fm.height();
    }

    // Stage labels under their bars, and the axis title.
    for (qsizetype i = 0; i < m_stageLabels.size(); ++i) {
        const double x = l.plot.left() + (m_labelledStages[i] + 0.5) * slot;
        p.drawText(QRectF(x - 200, labelTop, 400, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   m_stageLabels[i]);
    }
    p.drawText(
        QRectF(l.plot.left(), labelTop + fm.height() + kBarPad / 2, l.plot.width(), fm.height()),
        Qt::AlignCenter, tr("Pipeline stage"));

    // The legend: a swatch and a label per entry, centred beside the plot.
    const QList<std::pair<QString, Entry>> entries = legendEntries();
    p.setFont(legendFont(l));
    const QFontMetricsF legendMetrics(p.font());
    const double rowHeight = legendMetrics.height() + kBarPad / 2;
    // Centred beside the plot, but never over the title: a tall legend (presentation mode,
    // two plans compared) runs down past the plot's bottom instead.
    const double legendHeight = rowHeight * static_cast<double>(entries.size());
    const double highest = l.plot.top() - kBarPad;
    double top = std::max(l.legend.center().y() - legendHeight / 2, highest);
    if (top + legendHeight > size.height())
        top = std::max(highest, size.height() - legendHeight);
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const auto &[entry, kind] = entries[i];
        const QRectF swatch(l.legend.left(), top + (rowHeight - kBarSwatch) / 2, kBarSwatch,
                            kBarSwatch);
        p.save();
        p.setRenderHint(QPainter::Antialiasing, true);
        if (kind == Entry::stepA || kind == Entry::stepB) {
            p.setPen(kind == Entry::stepA ? stepPen : stepPenB);
            p.drawLine(QPointF(swatch.left(), swatch.center().y()),
                       QPointF(swatch.right(), swatch.center().y()));
        } else if (kind == Entry::moeHost) {
            p.setPen(moeHostPen);
            p.setBrush(Qt::NoBrush);
            p.drawRect(swatch.adjusted(2, 0, -2, 0));
        } else if (kind == Entry::busiest) {
            p.setPen(QPen(Qt::white, 1));
            p.setBrush(chart_style::black());
            p.drawPolygon(star(swatch.center(), kBarSwatch / 2));
        } else {
            for (const core::TimePartInfo &info : core::kTimeParts)
                if (partLabel(info.part) == entry) {
                    const QBrush brush = partBrush(info.part);
                    p.setPen(brush.style() == Qt::SolidPattern ? brush.color().darker(130)
                                                               : chart_style::grey());
                    p.setBrush(brush);
                    p.drawRect(swatch);
                }
        }
        p.restore();
        p.setPen(text);
        p.drawText(QRectF(swatch.right() + kBarPad, top, l.legend.width(), rowHeight),
                   Qt::AlignLeft | Qt::AlignVCenter, entry);
        top += rowHeight;
    }
}

void StepTimeChart::relabelStages()
{
    const int count = stageCount();
    m_stageLabels.clear();
    m_labelledStages.clear();
    if (count == 0)
        return;
    const double plot = layout(m_bars->size().isEmpty() ? size() : m_bars->size()).plot.width();
    const QFontMetricsF metrics(font());
    // "Stage 3 ★" under every bar while they fit, else bare numbers under every n-th stage
    // (1, 2, 5, 10, … apart) and the busiest, each with room for its label and a gap.
    struct Choice
    {
        QStringList labels;
        QList<int> stages;
    };
    const auto choose = [&](int every, bool named) {
        Choice c;
        for (int s = 0; s < count; ++s) {
            const bool busiest = s == m_busiest;
            if (!busiest && (s % every != 0 || std::abs(s - m_busiest) < every))
                continue;
            QString label = named ? tr("Stage %1").arg(s) : QString::number(s);
            if (busiest)
                label += QStringLiteral(" ★");
            c.labels << label;
            c.stages << s;
        }
        return c;
    };
    const auto fits = [&](const Choice &c) {
        const double slot = plot / count;
        for (qsizetype i = 0; i + 1 < c.stages.size(); ++i) {
            const double room = (c.stages[i + 1] - c.stages[i]) * slot - 12;
            if ((metrics.horizontalAdvance(c.labels[i]) +
                 metrics.horizontalAdvance(c.labels[i + 1])) /
                    2 >
                room)
                return false;
        }
        return true;
    };
    Choice chosen = choose(1, true);
    if (!fits(chosen)) {
        const double wide =
            metrics.horizontalAdvance(QString::number(count - 1) + QStringLiteral(" ★")) + 12;
        int every = niceSpacing(std::max(1.0, std::floor(wide * count / plot)));
        for (chosen = choose(every, false); !fits(chosen) && every < count;
             chosen = choose(every, false))
            every = niceSpacing(every + 1);
    }
    m_stageLabels = chosen.labels;
    m_labelledStages = chosen.stages;
}

void StepTimeChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    relabelStages();
}

QString StepTimeChart::toolTipFor(int stage, core::TimePart part, int plan) const
{
    const auto &stages = plan == 0 ? m_stages : m_stagesB;
    if (stage < 0 || stage >= static_cast<int>(stages.size()))
        return {};
    const double step = plan == 0 ? m_stepTimeS : m_stepTimeSB;
    const double s = stages[static_cast<std::size_t>(stage)][part];
    const QString who = !isComparing() ? QString()
                        : plan == 0    ? tr("A (current), ")
                                       : m_compareName + tr(", ");
    return tr("%8Stage %1%2\n%3: %4, %5 of the %6 step\n%7")
        .arg(stage)
        .arg(stage == (plan == 0 ? m_busiest : m_busiestB) ? tr(" (busiest)") : QString())
        .arg(partLabel(part), seconds(s),
             QStringLiteral("%1 %").arg(step > 0 ? 100 * s / step : 0.0, 0, 'f', 1), seconds(step),
             io::qs(core::timePartInfo(part).description), who);
}

QList<qreal> StepTimeChart::values(core::TimePart part) const
{
    QList<qreal> out;
    for (const core::TimeBreakdown &stage : m_stages)
        out << stage[part] / m_secondsPerUnit;
    return out;
}

QString StepTimeChart::axisTitle() const
{
    return m_axisTitle;
}

QStringList StepTimeChart::stageLabels() const
{
    return m_stageLabels;
}

QList<qreal> StepTimeChart::comparisonValues(core::TimePart part) const
{
    QList<qreal> out;
    for (const core::TimeBreakdown &stage : m_stagesB)
        out << stage[part] / m_secondsPerUnit;
    return out;
}

QList<std::pair<QString, StepTimeChart::Entry>> StepTimeChart::legendEntries() const
{
    QList<std::pair<QString, Entry>> out;
    const auto has = [](const std::vector<core::TimeBreakdown> &stages, core::TimePart part) {
        return std::any_of(stages.begin(), stages.end(),
                           [&](const core::TimeBreakdown &b) { return b[part] > 0; });
    };
    for (const core::TimePartInfo &info : core::kTimeParts)
        if (has(m_stages, info.part) || has(m_stagesB, info.part))
            out.append({partLabel(info.part), Entry::part});
    if (m_stages.empty())
        return out;
    if (!isComparing()) {
        out.append(
            {(m_atLeast ? tr("Step time ≥ %1") : tr("Step time %1")).arg(seconds(m_stepTimeS)),
             Entry::stepA});
        out.append({tr("Busiest stage: %1").arg(m_busiest), Entry::busiest});
        if (m_moeHostHighS > 0)
            out.append({tr("MoE wait, not timed: +%1–%2 %")
                            .arg(100 * m_moeHostLowS / m_stepTimeS, 0, 'f', 0)
                            .arg(100 * m_moeHostHighS / m_stepTimeS, 0, 'f', 0),
                        Entry::moeHost});
        return out;
    }
    // Comparing: each plan's step time on a line of its own, named as the status line does.
    out.append({tr("A (current): step %1").arg(seconds(m_stepTimeS)), Entry::stepA});
    out.append({tr("%1: step %2").arg(m_compareName, seconds(m_stepTimeSB)), Entry::stepB});
    out.append({tr("Busiest: A %1, B %2").arg(m_busiest).arg(m_busiestB), Entry::busiest});
    return out;
}

QStringList StepTimeChart::legendLabels() const
{
    QStringList out;
    for (const auto &entry : legendEntries())
        out << entry.first;
    return out;
}

} // namespace ui
