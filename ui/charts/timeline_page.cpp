#include "ui/charts/timeline_page.h"

#include "ui/charts/bubble_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/timeline_panel.h"
#include "ui/formula_panel.h"

#include <QObject>

namespace ui {

namespace {

// The step-time model's sum (docs/step_time.md), with the current numbers.
QString stepTimeFormulas(const core::Scenario &s, const core::Report &r)
{
    if (!r.stepTime)
        return {};
    const core::StepTimeReport &st = *r.stepTime;
    const core::TimeBreakdown &b = st.breakdown;
    auto sec = [](double t) { return QStringLiteral("%1 s").arg(t, 0, 'g', 4); };
    QStringList parts;
    for (const core::TimePartInfo &part : core::kTimeParts)
        if (b[part.part] > 0)
            parts << QStringLiteral("%1 %2").arg(QString::fromUtf8(part.label), sec(b[part.part]));
    QString out = formula::block(
        QObject::tr("Step time (stage %1)").arg(st.busiestStage),
        QStringLiteral("%1 = %2").arg(parts.join(QStringLiteral(" + ")), sec(st.stepTimeS)),
        s.mfu ? QObject::tr("Every operation at peak × mfu = %1; dp_overlap = %2 hides part of "
                            "the gradient sync (docs/step_time.md)")
                    .arg(*s.mfu)
                    .arg(s.dpOverlap)
              : QObject::tr("Each operation timed from its FLOPs and bytes on the device; "
                            "dp_overlap = %1 hides part of the gradient sync (docs/step_time.md)")
                    .arg(s.dpOverlap));
    out += formula::block(QObject::tr("Throughput"),
                          QStringLiteral("m·b·s·D ÷ step = %1 tokens/s; MFU = 6·N·tokens ÷ "
                                         "(devices × peak × step) = %2")
                              .arg(st.tokensPerS, 0, 'f', 0)
                              .arg(formula::percent(st.mfuAchieved)),
                          QObject::tr("Narayanan et al. 2021, §5.1 (2·N·tokens in inference)"));
    return out;
}

} // namespace

QString TimelinePage::title() const
{
    return QObject::tr("T&imeline");
}

QString TimelinePage::subject() const
{
    return QObject::tr("Schedule");
}

// Every block's time follows from the whole scenario.
FieldMask TimelinePage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *TimelinePage::createWidget(ScenarioDocument *)
{
    return m_panel = new TimelinePanel;
}

void TimelinePage::update(const ChartInputs &inputs)
{
    if (m_drawn == inputs.scenario)
        return;
    m_drawn = inputs.scenario;
    m_panel->setReport(inputs.report);
}

std::unique_ptr<QWidget> TimelinePage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<TimelineChart>(parent);
    chart->setReport(inputs.report);
    return chart;
}

QString TimelinePage::formulas(const ChartInputs &inputs) const
{
    const core::Scenario &s = inputs.scenario;
    const core::Report &r = inputs.report;
    return stepTimeFormulas(s, r) +
           formula::block(
               QObject::tr("Pipeline makespan"),
               QStringLiteral("makespan = %1 %2 for m = %3 micro-batches on K = %4 stages")
                   .arg(r.makespanS, 0, 'g', 4)
                   .arg(r.timeInLayerUnits ? QObject::tr("layer-times") : QStringLiteral("s"))
                   .arg(s.microbatches)
                   .arg(s.pp),
               QObject::tr("Each block: its layers' operations (docs/step_time.md) plus the "
                           "blocking send to the next stage; recomputation runs before its "
                           "backward")) +
           BubblePage::bubbleFormulas(s, r);
}

} // namespace ui
