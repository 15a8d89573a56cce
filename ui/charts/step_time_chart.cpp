#include "ui/charts/step_time_chart.h"

#include "io/text.h"
#include "ui/charts/chart_style.h"

#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QStackedLayout>
#include <QToolTip>
#include <QValueAxis>
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
    case core::TimePart::pipelineComm:
        return chart_style::yellow();
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

} // namespace

StepTimeChart::StepTimeChart(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout(this)), m_messageLabel(new QLabel),
      m_chart(new QChart), m_view(new QChartView(m_chart)), m_bars(new QStackedBarSeries),
      m_stepLine(new QLineSeries), m_busiestMarker(new QScatterSeries),
      m_stageAxis(new QCategoryAxis), m_timeAxis(new QValueAxis)
{
    m_chart->setTitle(tr("Where one step's time goes, by pipeline stage"));
    m_chart->legend()->setAlignment(Qt::AlignRight); // ten parts do not fit in a row
    m_view->setRenderHint(QPainter::Antialiasing);

    for (const core::TimePartInfo &info : core::kTimeParts) {
        auto *set = new QBarSet(partLabel(info.part));
        const QBrush brush = partBrush(info.part);
        set->setBrush(brush);
        set->setBorderColor(brush.style() == Qt::SolidPattern && brush.color() != Qt::black
                                ? brush.color().darker(130)
                                : chart_style::grey());
        connect(set, &QBarSet::hovered, this,
                [this, part = info.part](bool status, int index) { hovered(status, index, part); });
        m_bars->append(set);
        m_sets.append(set);
    }
    m_bars->setBarWidth(0.8);
    m_chart->addSeries(m_bars);

    QPen stepPen(QColor(0x44, 0x44, 0x44));
    stepPen.setWidthF(1.5);
    stepPen.setStyle(Qt::DashLine);
    m_stepLine->setPen(stepPen);
    m_chart->addSeries(m_stepLine);
    m_busiestMarker->setMarkerShape(QScatterSeries::MarkerShapeStar);
    m_busiestMarker->setMarkerSize(18);
    m_busiestMarker->setColor(chart_style::black());
    m_busiestMarker->setBorderColor(Qt::white);
    m_chart->addSeries(m_busiestMarker);

    // Stages on a value axis labelled by hand: at K = 64 every n-th stage is named.
    m_stageAxis->setTitleText(tr("Pipeline stage"));
    m_stageAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_stageAxis->setGridLineVisible(false);
    m_chart->addAxis(m_stageAxis, Qt::AlignBottom);
    m_chart->addAxis(m_timeAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    for (QAbstractSeries *series : m_chart->series()) {
        series->attachAxis(m_stageAxis);
        series->attachAxis(m_timeAxis);
    }
    connect(m_chart, &QChart::plotAreaChanged, this, &StepTimeChart::relabelStages);

    m_messageLabel->setAlignment(Qt::AlignCenter);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setMargin(24);
    m_messageLabel->setObjectName(QStringLiteral("stepTimeMessage"));
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_messageLabel);
}

void StepTimeChart::setReport(const core::Report &report)
{
    m_message.clear();
    if (!report.ok()) {
        m_message = tr("The scenario is invalid: no step time to show.");
    } else if (report.timeInLayerUnits) {
        m_message = tr("No step time in seconds: %1, so the schedule is counted in layer-times "
                       "(one layer's forward = 1). The Timeline tab shows it in those units.")
                        .arg(io::qs(report.untimedReason));
    } else if (!report.stepTime || report.stepTime->stages.empty()) {
        QStringList why;
        for (const core::Warning &w : report.warnings)
            if (w.code.ends_with("-link-unknown"))
                why << io::qs(w.message);
        m_message = why.isEmpty() ? tr("No step time for this scenario.")
                                  : tr("No step time: %1.").arg(why.join(QStringLiteral("; ")));
    } else if (!(std::isfinite(report.stepTime->stepTimeS) && report.stepTime->stepTimeS > 0)) {
        // Nothing to scale an axis to (an operation at a rate of zero would do it).
        m_message = tr("No finite step time for this scenario.");
    }
    if (!m_message.isEmpty()) {
        m_stages.clear();
        m_busiest = -1;
        m_messageLabel->setText(m_message);
        m_stack->setCurrentWidget(m_messageLabel);
        return;
    }
    m_stack->setCurrentWidget(m_view);
    const core::StepTimeReport &st = *report.stepTime;
    m_stages = st.stages;
    m_stepTimeS = st.stepTimeS;
    m_busiest = st.busiestStage;
    m_secondsPerUnit = st.stepTimeS >= 1 ? 1 : st.stepTimeS >= 1e-3 ? 1e-3 : 1e-6;
    const QString unit = m_secondsPerUnit == 1      ? tr("s")
                         : m_secondsPerUnit == 1e-3 ? tr("ms")
                                                    : tr("µs");

    // Only what changed: at K = 64 every new bar costs Qt Charts a layout of all of them.
    for (std::size_t p = 0; p < core::kTimePartCount; ++p) {
        QBarSet *set = m_sets[static_cast<qsizetype>(p)];
        QList<qreal> values;
        for (const core::TimeBreakdown &stage : m_stages)
            values << stage.seconds[p] / m_secondsPerUnit;
        qsizetype changed = 0;
        if (set->count() == values.size())
            for (int j = 0; j < set->count(); ++j)
                changed += set->at(j) != values[j];
        else
            changed = values.size();
        if (changed == 0)
            continue;
        // One value: replace it. More: every replace() lays the series out again, so swap
        // the whole row in two calls.
        if (changed == 1 && set->count() == values.size()) {
            for (int j = 0; j < set->count(); ++j)
                if (set->at(j) != values[j])
                    set->replace(j, values[j]);
            continue;
        }
        set->remove(0, set->count());
        set->append(values);
    }
    // Only the parts this scenario has are listed in the legend.
    const auto markers = m_chart->legend()->markers(m_bars);
    for (qsizetype i = 0; i < m_sets.size() && i < markers.size(); ++i) {
        const std::size_t p = static_cast<std::size_t>(i);
        const bool shown =
            std::any_of(m_stages.begin(), m_stages.end(),
                        [p](const core::TimeBreakdown &b) { return b.seconds[p] > 0; });
        // Each setVisible() lays the whole chart out again; the marker keeps what it was told.
        QLegendMarker *marker = markers[i];
        if (const QVariant was = marker->property("shownPart"); !was.isValid() || was != shown) {
            marker->setVisible(shown);
            marker->setProperty("shownPart", shown);
        }
    }

    const double stages = static_cast<double>(m_stages.size());
    const double step = st.stepTimeS / m_secondsPerUnit;
    if (m_stageAxis->min() != -0.5 || m_stageAxis->max() != stages - 0.5) {
        m_stageAxis->setRange(-0.5, stages - 0.5);
        m_stageAxis->setStartValue(-0.5);
    }
    m_stepLine->replace({QPointF(-0.5, step), QPointF(stages - 0.5, step)});
    m_stepLine->setName(tr("Step time %1").arg(seconds(st.stepTimeS)));
    m_busiestMarker->replace({QPointF(m_busiest, step * 1.04)});
    m_busiestMarker->setName(tr("Busiest stage: %1").arg(m_busiest));
    if (const QString title = tr("Time per step (%1)").arg(unit); m_timeAxis->titleText() != title)
        m_timeAxis->setTitleText(title);
    chart_style::setNiceRange(m_timeAxis, step);
    // Decimals for the finest step setNiceRange may choose (ten intervals).
    const double finest = std::max(step, 1.0) * 1.1 / 10;
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(finest))));
    if (const QString format = QStringLiteral("%.%1f").arg(decimals);
        m_timeAxis->labelFormat() != format)
        m_timeAxis->setLabelFormat(format);
    relabelStages();
}

void StepTimeChart::relabelStages()
{
    const int count = static_cast<int>(m_stages.size());
    if (count == 0)
        return;
    // Before the first layout the plot area is empty: the widget's width is near enough.
    const double plot = m_chart->plotArea().width() > 0 ? m_chart->plotArea().width()
                                                        : std::max(width() - 200, 100);
    const QFontMetricsF metrics(m_stageAxis->labelsFont());
    // "Stage 3 ★" under every bar while they fit, else bare numbers under every n-th stage
    // (1, 2, 5, 10, … apart) and the busiest. Qt Charts gives each label of a category axis
    // the plot's width ÷ (labels + 1), less its padding, and cuts a longer one to "...".
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
        const double room = plot / static_cast<double>(c.labels.size() + 1) - 14;
        return std::all_of(c.labels.begin(), c.labels.end(), [&](const QString &label) {
            return metrics.horizontalAdvance(label) <= room;
        });
    };
    Choice chosen = choose(1, true);
    int every = 1;
    if (!fits(chosen)) {
        // The widest bare label and a gap: the spacing to start from.
        const double wide =
            metrics.horizontalAdvance(QString::number(count - 1) + QStringLiteral(" ★")) + 14;
        every = niceSpacing(std::max(1.0, std::floor(wide * count / plot)));
        for (chosen = choose(every, false); !fits(chosen) && every < count;
             chosen = choose(every, false))
            every = niceSpacing(every + 1);
    }
    if (chosen.labels == m_stageAxis->categoriesLabels())
        return;
    for (const QString &label : m_stageAxis->categoriesLabels())
        m_stageAxis->remove(label);
    for (qsizetype i = 0; i < chosen.labels.size(); ++i)
        m_stageAxis->append(chosen.labels[i], chosen.stages[i]);
}

void StepTimeChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    relabelStages();
}

QString StepTimeChart::toolTipFor(int stage, core::TimePart part) const
{
    if (stage < 0 || stage >= static_cast<int>(m_stages.size()))
        return {};
    const double s = m_stages[static_cast<std::size_t>(stage)][part];
    return tr("Stage %1%2\n%3: %4, %5 of the %6 step\n%7")
        .arg(stage)
        .arg(stage == m_busiest ? tr(" (busiest)") : QString())
        .arg(partLabel(part), seconds(s),
             QStringLiteral("%1 %").arg(m_stepTimeS > 0 ? 100 * s / m_stepTimeS : 0.0, 0, 'f', 1),
             seconds(m_stepTimeS), io::qs(core::timePartInfo(part).description));
}

void StepTimeChart::hovered(bool status, int stage, core::TimePart part)
{
    if (status)
        QToolTip::showText(QCursor::pos(), toolTipFor(stage, part), m_view);
    else
        QToolTip::hideText();
}

QList<qreal> StepTimeChart::values(core::TimePart part) const
{
    const QBarSet *set = m_sets[static_cast<qsizetype>(part)];
    QList<qreal> out;
    for (int i = 0; i < set->count(); ++i)
        out << set->at(i);
    return out;
}

QString StepTimeChart::axisTitle() const
{
    return m_timeAxis->titleText();
}

QStringList StepTimeChart::stageLabels() const
{
    return m_stageAxis->categoriesLabels();
}

QStringList StepTimeChart::legendLabels() const
{
    QStringList out;
    // A part's marker says whether it is shown; the step time and the busiest always are.
    for (QLegendMarker *marker : m_chart->legend()->markers())
        if (const QVariant shown = marker->property("shownPart");
            !shown.isValid() || shown.toBool())
            out << marker->label();
    return out;
}

} // namespace ui
