#include "ui/charts/serving_page.h"

#include "io/text.h"
#include "ui/charts/serving_chart.h"
#include "ui/formula_panel.h"
#include "ui/scenario_document.h"

#include <QObject>

namespace ui {

QString ServingPage::title() const
{
    return QObject::tr("Serving");
}

QString ServingPage::subject() const
{
    return QObject::tr("Serving");
}

// Every key can move the curve: the model, the device, the layout, the lengths, the formats.
FieldMask ServingPage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *ServingPage::createWidget(ScenarioDocument *document)
{
    m_chart = new ServingChart;
    if (document) {
        m_chart->setOffersInference(true);
        QObject::connect(m_chart, &ServingChart::inferenceRequested, document, [document] {
            document->setField(QStringLiteral("mode"), QStringLiteral("inference"));
        });
    }
    return m_chart;
}

void ServingPage::update(const ChartInputs &inputs)
{
    m_chart->setReport(inputs.report, core::servingCurve(inputs.scenario, inputs.presets));
}

std::unique_ptr<QWidget> ServingPage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<ServingChart>(parent);
    chart->setReport(inputs.report, core::servingCurve(inputs.scenario, inputs.presets));
    return chart;
}

std::optional<QString> ServingPage::unavailable(const ChartInputs &inputs) const
{
    const QString reason = ServingChart::unavailableReason(inputs.report);
    return reason.isEmpty() ? std::nullopt : std::optional(reason);
}

QString ServingPage::formulas(const ChartInputs &inputs) const
{
    using formula::block;
    const core::Report &r = inputs.report;
    if (!r.serving)
        return block(QObject::tr("Serving, in inference"),
                     QObject::tr("time per output token = max(one token's trip through the K "
                                 "stages, m turns of the busiest stage); tokens/s per device = "
                                 "batch ÷ time per output token ÷ (T × K). Set Mode to "
                                 "inference to draw them for this layout."),
                     QObject::tr("docs/inference.md"));
    const core::ServingReport &sv = *r.serving;
    const core::DecodeCost &c = sv.first.busiest;
    const QString bounds =
        sv.linkTimeExcluded
            ? block(QObject::tr("Lower bounds"),
                    QObject::tr("a link this layout needs publishes no bandwidth: its "
                                "all-reduces and sends take no time below, so every time is "
                                "at least what it shows"),
                    QObject::tr("docs/inference.md, \"Links without a published bandwidth\""))
            : QString();
    const auto ms = [](double s) { return QStringLiteral("%1 ms").arg(1e3 * s, 0, 'f', 3); };
    return bounds +
           block(QObject::tr("First token: the prefill"),
                 QObject::tr("the forward pipeline over every prompt = %1").arg(ms(sv.prefillS)),
                 QObject::tr("docs/inference.md, \"Prefill\"; the LM head projects each "
                             "sequence's last position only")) +
           block(
               QObject::tr("A decode step of stage %1, one micro-batch, %2 tokens of context")
                   .arg(sv.first.busiestStage)
                   .arg(io::formatCount(sv.first.context)),
               QObject::tr("multiplies %1 + attention %2 + norms and adds %3 + all-reduces %4 "
                           "= %5; reads %6 of weights and %7 of cache for %8 FLOPs: %9")
                   .arg(ms(c.matmulS), ms(c.attentionS), ms(c.memoryOpsS), ms(c.tpCommS),
                        ms(c.totalS), formula::bytes(std::llround(c.weightBytes)),
                        formula::bytes(std::llround(c.kvBytes)),
                        QStringLiteral("%1").arg(c.flops, 0, 'g', 3),
                        c.memoryBound ? QObject::tr("memory-bound") : QObject::tr("compute-bound")),
               QObject::tr("Each operation the longer of its FLOPs at the device's rate and its "
                           "bytes at the achieved bandwidth (Williams et al. 2009); each KV head "
                           "read once for its query heads (FlashDecoding, GQA)")) +
           block(QObject::tr("Time per output token"),
                 QObject::tr("max(one token's trip through %1 stages and their sends, m = %2 "
                             "turns of the busiest stage) = %3 at the first step, %4 at the last; "
                             "mean %5")
                     .arg(r.pp)
                     .arg(inputs.scenario.microbatches)
                     .arg(ms(sv.first.tokenS), ms(sv.last.tokenS), ms(sv.decodeMeanS)),
                 QObject::tr("docs/inference.md, \"Pipeline stages\": a cyclic pipeline")) +
           block(QObject::tr("The curve"),
                 QObject::tr("tokens/s per device = batch ÷ time per token ÷ (T × K) = %1 ÷ %2 ÷ "
                             "%3 = %4; up to batch %5 fits")
                     .arg(io::formatCount(sv.batch))
                     .arg(ms(sv.decodeMeanS))
                     .arg(sv.devicesPerReplica)
                     .arg(sv.decodeTokensPerS / sv.devicesPerReplica, 0, 'f', 1)
                     .arg(io::formatCount(sv.maxBatch)),
                 QObject::tr("The batch grows by powers of two with m fixed; the memory limit "
                             "is the KV cache's (docs/inference.md, \"Memory\")"));
}

// The curve's points: batch, time per output token, tokens per second per device, bound.
ChartData ServingPage::data(const ChartInputs &inputs) const
{
    ChartData d;
    d.title = QObject::tr("Serving %1: throughput against time per output token")
                  .arg(io::qs(inputs.report.modelName));
    d.columns << ChartColumn{QStringLiteral("batch"), QStringLiteral("sequences")}
              << ChartColumn{QStringLiteral("time_per_output_token"), QStringLiteral("s")}
              << ChartColumn{QStringLiteral("output_tokens_per_s_per_device"),
                             QStringLiteral("tokens/s")}
              << ChartColumn{QStringLiteral("bound"), {}}
              << ChartColumn{QStringLiteral("fits"), {}};
    for (const core::ServingPoint &p : core::servingCurve(inputs.scenario, inputs.presets))
        d.rows << QList<ChartValue>{qint64(p.batch), p.timePerTokenS, p.tokensPerSPerDevice,
                                    p.memoryBound ? QStringLiteral("memory")
                                                  : QStringLiteral("compute"),
                                    p.fits ? QStringLiteral("yes") : QStringLiteral("no")};
    return d;
}

} // namespace ui
