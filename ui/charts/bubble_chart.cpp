#include "ui/charts/bubble_chart.h"

#include "core/bubble_curves.h"
#include "io/text.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/wrapping_legend.h"

#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

namespace ui {

namespace {

constexpr int kMaxMicrobatches = 1024;

QPen curvePen(core::Schedule schedule)
{
    switch (schedule) {
    case core::Schedule::gpipe: // the same bubble as 1F1B: dashed on top so both show
        return QPen(chart_style::black(), 1.5, Qt::DashLine);
    case core::Schedule::oneFOneB:
        return QPen(chart_style::blue(), 3.5);
    case core::Schedule::interleaved:
        return QPen(chart_style::orange(), 2.5);
    case core::Schedule::zbH1:
        return QPen(chart_style::green(), 2.5, Qt::DashDotLine);
    case core::Schedule::dualPipeV:
        return QPen(chart_style::purple(), 2.5, Qt::DotLine);
    case core::Schedule::dualPipe: // just below ZB-H1's and DualPipeV's: solid, in a colour apart
        return QPen(chart_style::skyBlue(), 2.5);
    }
    return {};
}

} // namespace

BubbleChart::BubbleChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)),
      m_marker(new QScatterSeries), m_compare(new QScatterSeries), m_mAxis(new QLogValueAxis),
      m_bubbleAxis(new QValueAxis), m_label(new QGraphicsSimpleTextItem(m_chart))
{
    m_view->setRenderHint(QPainter::Antialiasing);

    m_mAxis->setBase(2);
    m_mAxis->setRange(1, kMaxMicrobatches);
    m_mAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_mAxis->setMinorTickCount(-1);
    m_mAxis->setTitleText(tr("Micro-batches per step, m (log scale)"));
    chart_style::setPercentRange(m_bubbleAxis);
    m_bubbleAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_bubbleAxis->setTitleText(tr("Idle share of the step (%)"));
    m_chart->addAxis(m_mAxis, Qt::AlignBottom);
    m_chart->addAxis(m_bubbleAxis, Qt::AlignLeft);
    chart_style::keepAxesReadable(m_chart);
    chart_style::groupDigits(m_chart);

    // 1F1B first so GPipe's dashed line (the same values) is drawn over it.
    for (core::Schedule schedule :
         {core::Schedule::oneFOneB, core::Schedule::gpipe, core::Schedule::interleaved,
          core::Schedule::zbH1, core::Schedule::dualPipeV, core::Schedule::dualPipe}) {
        auto *series = new QLineSeries;
        series->setPen(curvePen(schedule));
        m_chart->addSeries(series);
        series->attachAxis(m_mAxis);
        series->attachAxis(m_bubbleAxis);
        m_curves.insert(int(schedule), series);
    }

    m_marker->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_marker->setMarkerSize(13);
    m_marker->setColor(chart_style::vermillion());
    m_marker->setBorderColor(Qt::white);
    // Its label is drawn beside it, not centred above it where the curve it sits on passes.
    m_marker->setPointLabelsVisible(false);
    m_marker->setPointLabelsClipping(false);
    QFont font = m_marker->pointLabelsFont();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    m_marker->setPointLabelsFont(font);
    m_chart->addSeries(m_marker);
    m_marker->attachAxis(m_mAxis);
    m_marker->attachAxis(m_bubbleAxis);

    m_compare->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
    m_compare->setMarkerSize(15);
    m_compare->setColor(chart_style::black());
    m_compare->setBorderColor(Qt::white);
    m_compare->setPointLabelsVisible(true);
    m_compare->setPointLabelsClipping(false);
    m_compare->setPointLabelsFont(font);
    m_chart->addSeries(m_compare);
    m_compare->attachAxis(m_mAxis);
    m_compare->attachAxis(m_bubbleAxis);
    m_compare->setVisible(false);

    m_label->setZValue(20);
    connect(m_chart, &QChart::plotAreaChanged, this, &BubbleChart::placeLabel,
            Qt::QueuedConnection);
    connect(m_marker, &QXYSeries::pointLabelsFontChanged, this, &BubbleChart::placeLabel);
    connect(m_marker, &QXYSeries::pointLabelsColorChanged, this, &BubbleChart::placeLabel);

    // Under the plot, in two rows or more where six names do not fit one (presentation
    // mode's largest text beside the docks), rather than one row of "1f1…".
    m_legend = new WrappingLegend(m_chart);
    // GPipe and 1F1B idle the same share of the step, (K-1)/(K-1+m) (Narayanan et al. 2021,
    // §2.2): one curve, one legend entry that says so; they differ in memory.
    m_legend->leaveOut(m_curves.value(int(core::Schedule::gpipe)));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void BubbleChart::placeLabel()
{
    if (m_marker->count() == 0 || m_label->text().isEmpty()) {
        m_label->hide();
        return;
    }
    m_label->setFont(m_marker->pointLabelsFont());
    m_label->setBrush(m_marker->pointLabelsColor());
    const QPointF at = m_chart->mapToPosition(m_marker->at(0), m_marker);
    const QRectF plot = m_chart->plotArea();
    // The simulated bubble beside the closed form where the plot has room for both (half its
    // width): at large text on a narrow plot the closed form alone, the rest on the status line.
    const QFontMetricsF metrics(m_label->font());
    m_label->setText(metrics.horizontalAdvance(m_labelText) <= plot.width() / 2 ? m_labelText
                                                                                : m_shortLabel);
    const QRectF text = m_label->boundingRect();
    const qreal gap = m_marker->markerSize() / 2 + 4;
    // Above and to the right, where the falling curve has already dropped; where that leaves
    // the plot, above and to the left, then below.
    const QPointF places[] = {{at.x() + gap, at.y() - gap - text.height()},
                              {at.x() - gap - text.width(), at.y() - gap - text.height()},
                              {at.x() + gap, at.y() + gap},
                              {at.x() - gap - text.width(), at.y() + gap}};
    QPointF topLeft = places[0];
    for (const QPointF &place : places)
        if (plot.contains(QRectF(place, text.size()))) {
            topLeft = place;
            break;
        }
    topLeft.setY(std::clamp(topLeft.y(), plot.top(), plot.bottom() - text.height()));
    topLeft.setX(std::clamp(topLeft.x(), plot.left(), plot.right() - text.width()));
    m_label->setPos(topLeft);
    m_label->show();
}

QRectF BubbleChart::markerLabelRect() const
{
    return m_label->isVisible() ? m_label->sceneBoundingRect() : QRectF();
}

QPointF BubbleChart::positionOf(QPointF value) const
{
    return m_chart->mapToPosition(value, m_marker);
}

QStringList BubbleChart::legendNames() const
{
    QStringList names;
    for (QLegendMarker *marker : m_legend->markers())
        if (qobject_cast<QLineSeries *>(marker->series()) &&
            !qobject_cast<QScatterSeries *>(marker->series()))
            names << marker->label();
    return names;
}

QStringList BubbleChart::legendLabels() const
{
    return m_legend->labels();
}

QStringList BubbleChart::shownLegendLabels() const
{
    return m_legend->shownLabels();
}

QList<QRectF> BubbleChart::legendRects() const
{
    return m_legend->entryRects();
}

double BubbleChart::legendScale() const
{
    return m_legend->scale();
}

int BubbleChart::legendRows() const
{
    return m_legend->rows();
}

void BubbleChart::setScenario(const core::Scenario &s, const core::Report &r,
                              const core::Scenario *compareScenario,
                              const core::Report *compareReport, const QString &compareName)
{
    const bool comparing = compareScenario && compareReport;
    m_compare->setVisible(comparing);
    if (comparing) {
        const double percent =
            100 * compareReport->bubbleFractionClosedForm.value_or(compareReport->bubbleFraction);
        m_compare->replace({QPointF(compareScenario->microbatches, percent)});
        m_compare->setPointLabelsFormat(tr("%1: %2 % at m = %3, K = %4")
                                            .arg(compareName)
                                            .arg(percent, 0, 'f', 1)
                                            .arg(compareScenario->microbatches)
                                            .arg(compareScenario->pp));
        m_compare->setName(compareName);
    }
    if (s.pp != m_stages || s.virtualStages != m_virtualStages) {
        m_stages = s.pp;
        m_virtualStages = s.virtualStages;
        for (const core::BubbleCurve &curve :
             core::bubbleCurves(s.pp, s.virtualStages, kMaxMicrobatches)) {
            QList<QPointF> points;
            points.reserve(static_cast<qsizetype>(curve.points.size()));
            for (const auto &p : curve.points)
                points.append(QPointF(p.microbatches, 100 * p.fraction));
            QLineSeries *series = m_curves.value(int(curve.schedule));
            if (!series)
                continue;
            series->replace(points);
            const QString name = io::qs(core::toString(curve.schedule));
            // DualPipeV's (K−1)(F&B+B−3W) over chunks of half the stage is ZB-H1's (K−1)(F+B−W)
            // when W = F, as these curves draw them (deepseek-ai/DualPipe, README): its dotted
            // line lies on ZB-H1's from m = 2K on.
            // DualPipe's (K/2−1)(F&B+B−3W) with F = B = W is (K−2)F idle beside 3mF: from
            // m = 2K, at even m only (dualpipe.py); an odd K has no order, and the legend says
            // why its line is missing. The names stay short enough for one row of six
            // entries at 1280 × 800; "=" says that 1F1B's line is GPipe's too.
            series->setName(curve.schedule == core::Schedule::interleaved
                                ? tr("%1, v = %2").arg(name).arg(curve.virtualStages)
                            : curve.schedule == core::Schedule::oneFOneB ? tr("1f1b = gpipe")
                            : curve.schedule == core::Schedule::dualPipeV
                                ? tr("dualpipev = zb-h1 at W = F")
                            : curve.schedule == core::Schedule::dualPipe && s.pp % 2 != 0
                                ? tr("dualpipe: needs an even K")
                                : name);
        }
        m_chart->setTitle(s.pp == 1 ? tr("Pipeline bubble with K = 1 stage: none")
                                    : tr("Pipeline bubble with K = %1 stages").arg(s.pp));
    }
    // On the curve: the closed form of this scenario's layers (docs/step_time.md); the
    // simulation, which adds the end stages' work and the sends, is named beside it.
    const double percent = 100 * r.bubbleFractionClosedForm.value_or(r.bubbleFraction);
    const double simulated = 100 * r.bubbleFraction;
    m_marker->replace({QPointF(s.microbatches, percent)});
    QString label = tr("%1 % at m = %2").arg(percent, 0, 'f', 1).arg(s.microbatches);
    if (r.bubbleFractionClosedForm && std::abs(simulated - percent) >= 0.05)
        label += tr(" (simulated %1 %)").arg(simulated, 0, 'f', 1);
    m_marker->setPointLabelsFormat(label);
    m_labelText = label;
    m_shortLabel = tr("%1 % at m = %2").arg(percent, 0, 'f', 1).arg(s.microbatches);
    m_label->setText(label);
    placeLabel();
    m_marker->setName(r.bubbleFractionClosedForm ? tr("This scenario")
                                                 : tr("This scenario (simulated)"));
}

QList<QPointF> BubbleChart::curve(core::Schedule schedule) const
{
    return m_curves.value(int(schedule))->points();
}

QPointF BubbleChart::compareMarker() const
{
    return m_compare->isVisible() && m_compare->count() > 0 ? m_compare->at(0) : QPointF();
}

QPointF BubbleChart::marker() const
{
    return m_marker->count() > 0 ? m_marker->at(0) : QPointF();
}

QString BubbleChart::markerLabel() const
{
    return m_label->text();
}

} // namespace ui
