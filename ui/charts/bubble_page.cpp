#include "ui/charts/bubble_page.h"

#include "core/bubble_curves.h"
#include "core/schedule.h"
#include "io/text.h"
#include "ui/charts/bubble_chart.h"
#include "ui/formula_panel.h"

#include <QObject>

namespace ui {

QString BubblePage::title() const
{
    return QObject::tr("Bubble");
}

QString BubblePage::subject() const
{
    return QObject::tr("Pipeline bubble");
}

// The simulated point moves with every stage time, so with the whole scenario.
FieldMask BubblePage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *BubblePage::createWidget(ScenarioDocument *)
{
    return m_chart = new BubbleChart;
}

void BubblePage::update(const ChartInputs &inputs)
{
    const Comparison *b = inputs.comparison;
    m_chart->setScenario(inputs.scenario, inputs.report, b ? &b->scenario : nullptr,
                         b ? &b->report : nullptr, b ? b->name : QString());
}

std::unique_ptr<QWidget> BubblePage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<BubbleChart>(parent);
    chart->setScenario(inputs.scenario, inputs.report);
    return chart;
}

QString BubblePage::formulas(const ChartInputs &inputs) const
{
    return bubbleFormulas(inputs.scenario, inputs.report);
}

QString BubblePage::bubbleFormulas(const core::Scenario &s, const core::Report &r)
{
    const int k = s.pp, m = s.microbatches, v = s.virtualStages;
    // Inference runs the forward passes in order, GPipe's fill and drain without a backward.
    const bool training = s.mode == core::Mode::training;
    const core::Schedule schedule = training ? s.schedule : core::Schedule::gpipe;
    QString expression;
    QString source;
    switch (schedule) {
    case core::Schedule::gpipe:
    case core::Schedule::oneFOneB:
        expression = QStringLiteral("bubble = (K−1)/(K−1+m) = %1/%2").arg(k - 1).arg(k - 1 + m);
        source = QObject::tr(
            "Huang et al. 2019 (GPipe), §2.3; Narayanan et al. 2021, §2.2 (K=4, m=16 → 15.8 %)");
        break;
    case core::Schedule::interleaved:
        expression =
            QStringLiteral("bubble = (K−1)/(v·m+K−1) = %1/%2").arg(k - 1).arg(v * m + k - 1);
        source = QObject::tr("Narayanan et al. 2021, §2.2.2 (interleaved 1F1B)");
        break;
    case core::Schedule::zbH1:
        expression = QStringLiteral("bubble time = (K−1)(F+B−W) vs 1F1B's (K−1)(F+B+W)");
        source = QObject::tr("Qi et al. 2023, 'Zero Bubble Pipeline Parallelism', §3.1");
        break;
    case core::Schedule::dualPipeV:
        // PP = 2K chunks; F, B, W a chunk's, B the whole backward, F&B a forward and a
        // backward run overlapped as one pair.
        expression = QStringLiteral("bubble time = (PP/2−1)(F&B+B−3W) = %1(F&B+B−3W), PP = 2K "
                                    "= %2 chunks")
                         .arg(k - 1)
                         .arg(2 * k);
        source = QObject::tr(
            "deepseek-ai/DualPipe, README (DualPipeV: Sea AI Lab's cut-in-half), “Pipeline "
            "Bubbles and Memory Usage Comparison”: F, B, W a chunk's, B the whole backward, F&B "
            "a forward and a backward overlapped");
        break;
    case core::Schedule::dualPipe:
        // PP = K devices, each holding its stage of both directions; F, B, W a chunk's (one
        // stage's), B the whole backward, F&B a forward and a backward run as one pair.
        expression = QStringLiteral("bubble time = (PP/2−1)(F&B+B−3W) = %1(F&B+B−3W), PP = K "
                                    "= %2 devices")
                         .arg(k / 2 - 1)
                         .arg(k);
        source = QObject::tr(
            "deepseek-ai/DualPipe, README (DualPipe: DeepSeek-V3 Technical Report §3.2.1; "
            "dualpipe.py), “Pipeline Bubbles and Memory Usage Comparison”: F, B, W a chunk's, "
            "one of a device's two stages, B the whole backward, F&B a forward and a backward "
            "overlapped");
        break;
    }
    if (r.bubbleFractionClosedForm)
        expression += QStringLiteral(" = %1").arg(formula::percent(*r.bubbleFractionClosedForm));
    QString out =
        formula::block(training ? QObject::tr("Bubble (%1)").arg(io::qs(core::toString(schedule)))
                                : QObject::tr("Bubble (inference: the forward passes only)"),
                       expression, source);
    out += formula::block(
        QObject::tr("Simulated"),
        QStringLiteral("1 − busy ÷ (K × makespan) = %1").arg(formula::percent(r.bubbleFraction)),
        QObject::tr("Event simulation of the schedule, uneven stages included"));
    return out;
}

// The closed-form curves the chart draws, then the scenario's point and its simulation.
ChartData BubblePage::data(const ChartInputs &inputs) const
{
    const core::Scenario &s = inputs.scenario;
    ChartData d;
    d.title = QObject::tr("Pipeline bubble, K = %1 stages").arg(s.pp);
    d.columns << ChartColumn{QStringLiteral("series"), {}}
              << ChartColumn{QStringLiteral("schedule"), {}}
              << ChartColumn{QStringLiteral("virtual stages"), {}}
              << ChartColumn{QStringLiteral("micro-batches"), {}}
              << ChartColumn{QStringLiteral("bubble"), QStringLiteral("fraction")};
    for (const core::BubbleCurve &curve : core::bubbleCurves(s.pp, s.virtualStages))
        for (const core::BubblePoint &point : curve.points)
            d.rows << QList<ChartValue>{
                QStringLiteral("curve"), io::qs(core::toString(curve.schedule)),
                qint64(curve.virtualStages), qint64(point.microbatches), point.fraction};
    // The marker sits on the curve (the closed form where it holds); the simulation, with the
    // end stages' work and the sends, is named beside it.
    // Its chunks a stage as the schedule runs them: v interleaved, two in DualPipeV's V and
    // in DualPipe's two directions.
    const core::Report &r = inputs.report;
    const QString schedule = io::qs(core::toString(s.schedule));
    const auto chunks = qint64(core::chunksPerStage(s.schedule, s.virtualStages));
    d.rows << QList<ChartValue>{QStringLiteral("current"), schedule, chunks, qint64(s.microbatches),
                                r.bubbleFractionClosedForm.value_or(r.bubbleFraction)};
    d.rows << QList<ChartValue>{QStringLiteral("simulated"), schedule, chunks,
                                qint64(s.microbatches), r.bubbleFraction};
    return d;
}

} // namespace ui
