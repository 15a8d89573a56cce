#include "ui/charts/step_time_page.h"

#include "core/activations.h"
#include "core/evaluate.h"
#include "core/framework.h"
#include "core/schedule.h"
#include "core/validate.h"
#include "io/text.h"
#include "ui/charts/step_time_chart.h"
#include "ui/formula_panel.h"
#include "ui/units.h"

#include <QObject>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace ui {

namespace {

QString sec(double t)
{
    return QStringLiteral("%1 s").arg(t, 0, 'g', 4);
}

QString ms(double t)
{
    return QString::number(t * 1e3, 'f', 3);
}

QString cell(const QString &text, bool right = true)
{
    return QStringLiteral("<td%1>%2</td>")
        .arg(right ? QStringLiteral(" align='right'") : QString(), text);
}

// The operations a stage runs for one micro-batch, as rows of the table: F, B and W in ms,
// FLOPs and bytes of all three, the part each is counted in, and a note to its source.
class OpTable
{
public:
    void heading(const QString &text)
    {
        m_rows += QStringLiteral("<tr><td colspan='8'><i>%1</i></td></tr>").arg(text);
    }

    // ↻ marks what recomputation reruns; a part of it, with its share.
    static QString rerunMark(double share)
    {
        if (share <= 0)
            return {};
        if (share >= 1)
            return QStringLiteral(" ↻");
        return QStringLiteral(" ↻ %1 %").arg(QString::number(100 * share, 'f', 0));
    }

    void add(const core::LayerOp &op)
    {
        const QString source = io::qs(op.source);
        qsizetype note = m_sources.indexOf(source);
        if (note < 0) {
            m_sources << source;
            note = m_sources.size() - 1;
        }
        const double flops = op.forward.flops + op.backward.flops + op.weight.flops;
        const double bytes = op.forward.bytes + op.backward.bytes + op.weight.bytes;
        m_rows += QStringLiteral("<tr>") +
                  cell(io::qs(op.label).toHtmlEscaped() + rerunMark(op.rerun) +
                           QStringLiteral("<sup>%1</sup>").arg(note + 1),
                       false) +
                  cell(QString::fromStdString(core::shapeText(op.shape)).toHtmlEscaped()) +
                  cell(ms(op.forward.seconds)) + cell(ms(op.backward.seconds)) +
                  cell(ms(op.weight.seconds)) + cell(QString::number(flops / 1e9, 'f', 1)) +
                  cell(QString::number(units::small(bytes), 'f', 1)) +
                  cell(QObject::tr(core::timePartInfo(op.part).label.data()), false) +
                  QStringLiteral("</tr>");
    }

    void total(const QString &label, double f, double b, double w)
    {
        m_rows += QStringLiteral("<tr><td><b>%1</b></td><td></td>").arg(label) +
                  cell(QStringLiteral("<b>%1</b>").arg(ms(f))) +
                  cell(QStringLiteral("<b>%1</b>").arg(ms(b))) +
                  cell(QStringLiteral("<b>%1</b>").arg(ms(w))) +
                  QStringLiteral("<td colspan='3'></td></tr>");
    }

    QString html(const QString &title) const
    {
        QString out = QStringLiteral("<p><b>%1</b></p><table cellspacing='0' cellpadding='2'>"
                                     "<tr><th align='left'>%2</th><th align='right'>%3</th>"
                                     "<th align='right'>F ms</th><th align='right'>B ms</th>"
                                     "<th align='right'>W ms</th><th align='right'>GFLOP</th>"
                                     "<th align='right'>%4</th><th align='left'>%5</th></tr>")
                          .arg(title, QObject::tr("operation"), QObject::tr("shape"),
                               units::smallName(), QObject::tr("part"));
        out += m_rows + QStringLiteral("</table><p><small><i>");
        for (qsizetype i = 0; i < m_sources.size(); ++i)
            out += QStringLiteral("%1 %2<br>").arg(i + 1).arg(m_sources[i].toHtmlEscaped());
        return out + QStringLiteral("</i></small></p>");
    }

private:
    QString m_rows;
    QStringList m_sources;
};

} // namespace

QString StepTimePage::title() const
{
    return QObject::tr("Step time");
}

QString StepTimePage::subject() const
{
    return QObject::tr("Step time by stage and operation");
}

// Every operation's time follows from the whole scenario.
FieldMask StepTimePage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *StepTimePage::createWidget(ScenarioDocument *)
{
    return m_chart = new StepTimeChart;
}

void StepTimePage::update(const ChartInputs &inputs)
{
    const Comparison *b = inputs.comparison;
    m_chart->setReport(inputs.report, b ? &b->report : nullptr, b ? b->name : QString());
}

std::optional<QString> StepTimePage::unavailable(const ChartInputs &inputs) const
{
    const QString reason = StepTimeChart::unavailableReason(inputs.report);
    return reason.isEmpty() ? std::nullopt : std::optional(reason);
}

std::unique_ptr<QWidget> StepTimePage::createImage(const ChartInputs &inputs, QWidget *parent) const
{
    auto chart = std::make_unique<StepTimeChart>(parent);
    chart->setReport(inputs.report);
    return chart;
}

namespace {

// A ring's bus bandwidth in GB/s: whole above 10, else to a tenth (a slow NIC's 5.6, not 6).
QString busText(double gbPerS)
{
    return QString::number(gbPerS, 'f', gbPerS < 10 ? 1 : 0);
}

// How the data-parallel sync shows in a training step, for the step's formula.
QString dpSyncNote(const core::Scenario &s, const core::StepTimeReport &st)
{
    QString how;
    if (s.dpOverlap)
        how = QObject::tr("dp_overlap = %1 hides that fraction of the data-parallel sync")
                  .arg(*s.dpOverlap);
    else if (core::dpOverlapFor(s))
        how = QObject::tr("dp_overlap = auto hides nothing here: %1 runs the sync after the "
                          "backward at ZeRO %2")
                  .arg(io::qs(std::string(core::frameworkProfile(s.framework).name)))
                  .arg(s.zero);
    else if (s.overlapParamGather)
        how = QObject::tr("dp_overlap = auto hides the data-parallel sync behind one "
                          "micro-batch's backward (gradients) and forward (parameters), but for "
                          "the last bucket reduced and the first gathered");
    else
        how = QObject::tr("dp_overlap = auto hides the gradient sync behind one micro-batch's "
                          "backward; the parameter gather waits in the optimizer step "
                          "(overlap_param_gather = false)");
    // A pipeline's stages idle in its drain: their last reduction runs there.
    if (!s.dpOverlap && !core::dpOverlapFor(s) && s.pp > 1)
        how += QObject::tr("; a stage that idles after its last pass (the pipeline's drain) "
                           "runs its last reduction there, and the step waits for the stage "
                           "that exposes most");
    // Megatron-LM's later stages without interleaving: one bucket, waited for in the pipeline.
    // The shown stage's wait is its sync past stage 0's, which waits for none.
    if (s.pp > 1 && core::gatherHoldsFirstForward(s, 1)) {
        how += QObject::tr("; each stage after the first gathers its parameters as one bucket, "
                           "which its first forward waits for whole inside the pipeline");
        const auto busiest = static_cast<std::size_t>(st.busiestStage);
        if (busiest > 0 && busiest < st.stages.size()) {
            const double waited = st.stages[busiest][core::TimePart::dpSync] -
                                  st.stages.front()[core::TimePart::dpSync];
            if (waited > 0)
                how += QObject::tr(", %1 on stage %2").arg(sec(waited)).arg(st.busiestStage);
        }
        how += QObject::tr(" (docs/step_time.md, “A later stage's one bucket”)");
    }
    how += QObject::tr("; %1 of %2 shows in the step: what is not hidden, and what the hidden "
                       "part costs the passes in the SMs it holds (docs/step_time.md)")
               .arg(sec(st.breakdown[core::TimePart::dpSync]), sec(st.dpCommTotalS));
    if (st.dpBusGbPerS > 0) {
        how += QObject::tr("; the sync's ring runs at %1 GB/s a device, %2")
                   .arg(busText(st.dpBusGbPerS))
                   .arg(io::qs(st.dpLink) == QStringLiteral("inter-node")
                            ? QObject::tr("over the NICs its members have in a node")
                            : QObject::tr("inside a node"));
        if (s.dpCollectiveUnits)
            how += QObject::tr(", on %1 CTAs (dp_collective_units)").arg(*s.dpCollectiveUnits);
        if (st.dpBuckets > 1)
            how += QObject::tr(", in %1 buckets, each a collective paying its ring's latency")
                       .arg(st.dpBuckets);
    }
    if (st.expertDpRanks > 1)
        how += QObject::tr("; the routed experts reduce apart, over their %1 expert data-parallel "
                           "ranks at %2 GB/s a device %3 (docs/experts.md, “Gradient sync”)")
                   .arg(st.expertDpRanks)
                   .arg(busText(st.expertDpBusGbPerS))
                   .arg(io::qs(st.expertDpLink) == QStringLiteral("inter-node")
                            ? QObject::tr("over the NICs its members have in a node")
                            : QObject::tr("inside a node"));
    if (st.dpReplicas > 1)
        how += QObject::tr("; hybrid sharding: ZeRO shards over %1 devices and each shard's "
                           "gradients are all-reduced over the %2 replicas at %3 GB/s a device %4 "
                           "(docs/step_time.md, “Hybrid sharding”)")
                   .arg(s.dp * s.cp / st.dpReplicas)
                   .arg(st.dpReplicas)
                   .arg(busText(st.dpReplicaBusGbPerS))
                   .arg(io::qs(st.dpReplicaLink) == QStringLiteral("inter-node")
                            ? QObject::tr("over the NICs its members have in a node")
                            : QObject::tr("inside a node"));
    if (st.embeddingSyncS > 0)
        how += QObject::tr("; of the sync, %1 is the embedding's gradients all-reduced between "
                           "stage 0 and the stage whose LM head or MTP layers keep a copy, after "
                           "both stages' own sync (docs/step_time.md, “Embedding gradients”)")
                   .arg(sec(st.embeddingSyncS));
    return how;
}

// What ep_overlap does to the all-to-all in the step, where it applies.
QString expertOverlapNote(const core::Scenario &s, const core::Report &r)
{
    const bool unused = std::any_of(r.warnings.begin(), r.warnings.end(),
                                    [](const auto &w) { return w.code == "ep-overlap-unused"; });
    if (!s.epOverlap || unused || r.stages.empty() || r.stages.front().moeLayers == 0)
        return {};
    const QString pairs = s.schedule == core::Schedule::dualPipeV
                              ? QObject::tr("overlaps DualPipeV's pairs, each a forward with a "
                                            "whole backward")
                          : s.schedule == core::Schedule::dualPipe
                              ? QObject::tr("overlaps DualPipe's pairs, each a forward of one "
                                            "direction with a whole backward of the other")
                              : QObject::tr("runs each backward with the forward after it");
    return QObject::tr("; ep_overlap %1, so the expert all-to-all shows only where it outlasts "
                       "the pair's computation, for the SMs its kernels hold while hidden, and in "
                       "the passes that run alone (docs/experts.md, “All-to-all overlap”)")
        .arg(pairs);
}

// The optimizer step's passes, each named with its bytes a parameter (docs/step_time.md,
// "Optimizer"): "(cast 6 + norm 4 + Adam 28 + write-back 6) B × 1.1e9 owned + zero 2 B ×
// 2.2e9 held".
QString optimizerFormula(const core::StepTimeReport &st)
{
    const core::OptimizerTraffic &o = st.optimizer;
    QStringList passes;
    const auto add = [&passes](const QString &name, double bytes) {
        if (bytes > 0)
            passes << QStringLiteral("%1 %2").arg(name).arg(bytes, 0, 'g', 4);
    };
    add(QObject::tr("cast"), o.cast);
    add(QObject::tr("scale"), o.scale);
    add(QObject::tr("norm"), o.norm);
    add(QObject::tr("Adam"), o.adam);
    add(QObject::tr("write-back"), o.writeBack);
    QString text = QStringLiteral("(%1) B × %2 owned")
                       .arg(passes.join(QStringLiteral(" + ")))
                       .arg(io::formatCount(std::llround(st.optimizerOwnedParams)));
    if (o.zero > 0)
        text += QObject::tr(" + zero %1 B × %2 held")
                    .arg(o.zero, 0, 'g', 4)
                    .arg(io::formatCount(std::llround(st.optimizerHeldParams)));
    const double bytes = o.owned() * st.optimizerOwnedParams + o.zero * st.optimizerHeldParams;
    return text + QStringLiteral(" = %1 ÷ %2 %3/s = %4")
                      .arg(units::format(bytes))
                      .arg(io::formatCount(std::llround(units::large(st.memoryBytesPerS))))
                      .arg(units::largeName())
                      .arg(sec(bytes / st.memoryBytesPerS));
}

} // namespace

QString StepTimePage::stepTimeFormulas(const core::Scenario &s, const core::Report &r)
{
    if (!r.stepTime)
        return {};
    const core::StepTimeReport &st = *r.stepTime;
    const core::TimeBreakdown &b = st.breakdown;
    const bool training = s.mode == core::Mode::training;
    QStringList parts;
    for (const core::TimePartInfo &part : core::kTimeParts)
        if (b[part.part] > 0)
            parts << QStringLiteral("%1 %2").arg(QString::fromUtf8(part.label), sec(b[part.part]));
    QString out = formula::block(
        QObject::tr("Step time (stage %1)").arg(st.busiestStage),
        QStringLiteral("%1 = %2").arg(parts.join(QStringLiteral(" + ")), sec(st.stepTimeS)),
        (s.mfu ? QObject::tr("Every operation at peak × mfu = %1").arg(*s.mfu)
               : QObject::tr("Each operation timed from its FLOPs and bytes on the device")) +
            (training ? QStringLiteral("; ") + dpSyncNote(s, st) + expertOverlapNote(s, r)
                      : QStringLiteral(" (docs/step_time.md)")));
    // LoRA: the frozen layers' forward and input gradients, and the adapters' three passes.
    const bool lora = training && s.loraRank > 0;
    out += formula::block(
        QObject::tr("Throughput"),
        QStringLiteral("m·b·s·D ÷ step = %1 tokens/s; MFU = %2·tokens ÷ "
                       "(devices × peak × step) = %3")
            .arg(st.tokensPerS, 0, 'f', 0)
            .arg(lora       ? QStringLiteral("(4·N + 6·N_adapters)")
                 : training ? QStringLiteral("6·N")
                            : QStringLiteral("2·N"))
            .arg(formula::percent(st.mfuAchieved)),
        lora       ? QObject::tr("Narayanan et al. 2021, §5.1, less the frozen weights' gradients "
                                       "(docs/step_time.md, \"LoRA\")")
        : training ? QObject::tr("Narayanan et al. 2021, §5.1")
                   : QObject::tr("Narayanan et al. 2021, §5.1: 2·N·tokens, the "
                                 "forward alone, in inference"));
    if (st.attentionWidthForward != 1 || st.attentionWidthBackward != 1)
        out += formula::block(
            QObject::tr("Attention at head width %1").arg(st.headWidth, 0, 'g', 4),
            QObject::tr("the kernel's measured rates × %1 forward, × %2 backward")
                .arg(st.attentionWidthForward, 0, 'f', 3)
                .arg(st.attentionWidthBackward, 0, 'f', 3),
            QObject::tr("A tile's multiplies grow with the head width and its softmax does not: "
                        "the device's attention_head_widths, from kernels measured at other "
                        "widths (docs/step_time.md, “Head width”)"));
    if (training && b[core::TimePart::optimizer] > 0 && st.memoryBytesPerS > 0)
        out += formula::block(
            QObject::tr("Optimizer step"), optimizerFormula(st),
            QObject::tr("%1's passes over each parameter this device updates (1/D from ZeRO-1) "
                        "and each gradient it holds (1/D from ZeRO-2), for the stage with the "
                        "most parameters, at the achieved memory bandwidth (docs/step_time.md, "
                        "“Optimizer”)")
                .arg(s.framework == core::Framework::custom
                         ? QObject::tr("Megatron-LM")
                         : io::qs(core::frameworkProfile(s.framework).name)));
    if (training && st.weightCastOnceS > 0 && st.memoryBytesPerS > 0)
        out += formula::block(
            QObject::tr("Weights cast once a step"),
            QStringLiteral("%1 params × %2 B ÷ %3 %4/s = %5")
                .arg(io::formatCount(std::llround(st.weightCastOnceParams)))
                .arg(st.weightCastOnceBytesPerParam, 0, 'g', 6)
                .arg(io::formatCount(std::llround(units::large(st.memoryBytesPerS))))
                .arg(units::largeName())
                .arg(sec(st.weightCastOnceS)),
            QObject::tr("The stage where they take longest: Transformer Engine's cached casts, "
                        "FP8 weights' transposes or MXFP8 weights' quantization after their "
                        "gather, in the first micro-batch's forward, among the memory-bound "
                        "time; that forward passes every stage before the last can start, so "
                        "the step grows by their sum along the pipeline (docs/step_time.md, "
                        "“Weight casts”)"));
    if (st.moeHostHighS > 0) {
        const double layerMicrobatches = st.moeHostLayerMicrobatches;
        const QString wait = QStringLiteral("%1 MoE layer-micro-batches × %2–%3 ms = %4–%5")
                                 .arg(io::formatCount(std::llround(layerMicrobatches)))
                                 .arg(1e3 * core::kMoeHostGapMinS, 0, 'f', 1)
                                 .arg(1e3 * core::kMoeHostGapMaxS, 0, 'f', 1)
                                 .arg(sec(layerMicrobatches * core::kMoeHostGapMinS),
                                      sec(layerMicrobatches * core::kMoeHostGapMaxS));
        // The stage the wait slows most, where it is not the busiest: its own work with the
        // wait against the busiest stage's work.
        const QString through =
            st.moeHostStage == st.busiestStage
                ? QString()
                : QObject::tr(" on stage %1, whose work (%2) with it outlasts stage %3's (%4) by "
                              "%5–%6")
                      .arg(st.moeHostStage)
                      .arg(sec(st.stages[std::size_t(st.moeHostStage)].stageWork()))
                      .arg(st.busiestStage)
                      .arg(sec(st.stages[std::size_t(st.busiestStage)].stageWork()))
                      .arg(sec(st.moeHostLowS), sec(st.moeHostHighS));
        out += formula::block(
            QObject::tr("Not timed: the MoE layers' host cost"),
            QStringLiteral("%1%2 on top of the step (+%3–%4 %)")
                .arg(wait, through)
                .arg(100 * st.moeHostLowS / st.stepTimeS, 0, 'f', 0)
                .arg(100 * st.moeHostHighS / st.stepTimeS, 0, 'f', 0),
            QObject::tr("published Megatron-LM MoE runs outside a CUDA graph of the whole step, "
                        "dropless (each layer waiting on the device for its token counts) or "
                        "padded to capacity, took this much longer a layer and micro-batch than "
                        "the device time modelled (docs/step_time.md, “Fine-grained experts”)"));
    }
    return out;
}

namespace {

// What the busiest expert rank takes under routing as trained (docs/experts.md, "Routing
// imbalance"), or nothing when routing is balanced or the model dense.
QString rankLoadFormula(const core::Scenario &s, const core::ModelSpec &model,
                        const core::Presets &presets, const core::Report &r)
{
    if (s.expertRankLoad == 1)
        return {};
    // What the imbalance costs: the same scenario with balanced routing, evaluated beside it
    // (microseconds; docs/DESIGN.md, "Performance").
    QString cost;
    if (r.stepTime && r.stepTime->stepTimeS > 0) {
        core::Scenario balanced = s;
        balanced.expertRankLoad = 1;
        const core::Report even = core::evaluate(balanced, presets);
        if (even.ok() && even.stepTime && even.stepTime->stepTimeS > 0)
            cost =
                QObject::tr("; %1 %2 s against %3 s balanced, %4 % longer")
                    .arg(s.mode == core::Mode::inference ? QObject::tr("the prefill takes")
                                                         : QObject::tr("the step takes"))
                    .arg(r.stepTime->stepTimeS, 0, 'g', 4)
                    .arg(even.stepTime->stepTimeS, 0, 'g', 4)
                    .arg(100 * (r.stepTime->stepTimeS / even.stepTime->stepTimeS - 1), 0, 'f', 1);
    }
    const double limit = core::expertRankLoadLimit(s, model);
    const double routed = core::expertRoutedLoad(s, model);
    const QString kept =
        s.expertRankLoad > limit
            ? QObject::tr("more than a rank can take, timed at %1").arg(limit, 0, 'g', 4)
        : routed < s.expertRankLoad
            ? QObject::tr("its experts' capacity keeps %1 of it, the rest dropped")
                  .arg(routed, 0, 'g', 4)
            : QObject::tr("its experts' multiplies, permutation, activations and all-to-all "
                          "carry × %1 the copies, and every rank waits for them")
                  .arg(routed, 0, 'g', 4);
    return formula::block(
        QObject::tr("Busiest expert rank"),
        QStringLiteral("expert_rank_load = %1 × its even share, of at most E=%2 × min(k=%3, "
                       "%4 experts a rank) ÷ k = %5: %6")
            .arg(s.expertRankLoad, 0, 'g', 4)
            .arg(s.ep)
            .arg(model.expertsPerToken)
            .arg(core::expertsPerRank(s, model))
            .arg(limit, 0, 'g', 4)
            .arg(kept + cost),
        QObject::tr("the all-to-all ends when its busiest member does (docs/experts.md, "
                    "“Routing imbalance”)"));
}

// What a capacity factor makes each expert take (docs/experts.md, "Capacity"), and what
// the busiest rank takes, or nothing when routing is balanced and dropless or the model dense.
QString capacityFormula(const core::Scenario &s, const core::Presets &presets,
                        const core::Report &r)
{
    const core::ModelSpec *model = core::resolveModel(s, presets);
    if (!model || !model->hasExperts())
        return {};
    const QString rank = rankLoadFormula(s, *model, presets, r);
    if (!s.expertCapacityFactor)
        return rank;
    const double tokens =
        static_cast<double>(s.seqLen) / std::max(1, s.cp) * s.microbatchSize / std::max(1, s.tp);
    const double share = tokens * model->expertsPerToken / model->experts;
    const double capacity = std::ceil(share * *s.expertCapacityFactor);
    const double load = core::expertLoad(s, *model);
    const QString effect =
        s.padToCapacity
            ? QObject::tr("padded to it, the experts' multiplies, permutation and all-to-all carry "
                          "× %1 the copies")
                  .arg(load, 0, 'g', 4)
        : load < 1 ? QObject::tr("%1 % of the copies dropped").arg(100 * (1 - load), 0, 'f', 1)
        : s.expertRankLoad == 1
            ? QObject::tr("nothing dropped with balanced routing, nothing padded")
            : QObject::tr("nothing padded");
    return rank +
           formula::block(
               QObject::tr("Experts' capacity"),
               QStringLiteral("⌈%1 tokens × k=%2 ÷ %3 experts × %4⌉ = %5 copies an expert takes "
                              "from each rank, of an even %6: %7")
                   .arg(tokens, 0, 'g', 8)
                   .arg(model->expertsPerToken)
                   .arg(model->experts)
                   .arg(*s.expertCapacityFactor, 0, 'g', 4)
                   .arg(capacity, 0, 'f', 0)
                   .arg(share, 0, 'g', 6)
                   .arg(effect),
               QObject::tr("s·b ÷ (C·T) tokens a rank routes; Megatron-core moe_utils.py, "
                           "get_capacity (docs/experts.md, “Capacity”)"));
}

} // namespace

QString StepTimePage::formulas(const ChartInputs &inputs) const
{
    const core::Scenario &s = inputs.scenario;
    const core::Report &r = inputs.report;
    QString out = stepTimeFormulas(s, r) + capacityFormula(s, inputs.presets, r);
    if (r.layerOps.empty()) {
        return out + formula::block(QObject::tr("Step time"),
                                    r.timeInLayerUnits
                                        ? QObject::tr("no seconds: %1; makespan = %2 layer-times")
                                              .arg(io::qs(r.untimedReason))
                                              .arg(r.makespanS, 0, 'g', 4)
                                        : QObject::tr("no seconds = no operation timed"),
                                    QObject::tr("docs/step_time.md"));
    }
    const int stage = r.stepTime ? r.stepTime->busiestStage : 0;
    const auto &report = r.stages[static_cast<std::size_t>(stage)];

    // One layer's operations, then the ends this stage runs.
    OpTable table;
    double f = 0, b = 0, w = 0, rerun = 0;
    for (const core::LayerOp &op : r.layerOps) {
        table.add(op);
        f += op.forward.seconds;
        b += op.backward.seconds;
        w += op.weight.seconds;
        rerun += op.rerun * op.forward.seconds;
    }
    table.total(QObject::tr("one layer"), f, b, w);
    const std::size_t first = std::min(r.firstStageEndOps, r.endOps.size());
    double ends = 0;
    const auto addEnds = [&](std::size_t from, std::size_t to, const QString &heading) {
        if (from < to)
            table.heading(heading);
        for (std::size_t i = from; i < to; ++i) {
            const core::LayerOp &op = r.endOps[i];
            table.add(op);
            ends += op.forward.seconds + op.backward.seconds + op.weight.seconds;
        }
    };
    // The stages that hold the ends (core::holdsEmbedding, holdsHead): the first and the last,
    // DualPipeV's stage 0 both, where its V starts and ends, DualPipe's end stages both, one
    // direction starting and the other ending on each. A DualPipe micro-batch passes one of
    // its device's two stages (core::passedShare): m/2 passes of the device's layers and ends.
    const core::Schedule schedule =
        s.mode == core::Mode::training ? s.schedule : core::Schedule::gpipe;
    if (core::holdsEmbedding(schedule, r.pp, stage))
        addEnds(0, first, QObject::tr("around the layers: where the model starts"));
    if (core::holdsHead(schedule, r.pp, stage))
        addEnds(first, r.endOps.size(), QObject::tr("around the layers: where the model ends"));
    const bool half = core::passedShare(schedule) < 1;
    const double passes = s.microbatches * core::passedShare(schedule);
    // recompute_layers: the stage reruns the first layers of each chunk only, the rest of its
    // layers none (docs/activations.md, "Recomputed layers").
    const core::ModelSpec *model = core::resolveModel(s, inputs.presets);
    const double share =
        model && core::recomputesSomeLayers(s) ? core::stageRecomputedShare(s, *model, stage) : 1;
    rerun *= share;
    const double layer = f + b + w + rerun;
    // The weights' casts that run once a step, in its first forward (docs/step_time.md,
    // "Weight casts").
    const double castOnce =
        r.stepTime && r.stepTime->weightCastOnceBytesPerParam > 0 && r.stepTime->memoryBytesPerS > 0
            ? static_cast<double>(report.castParams) * r.stepTime->weightCastOnceBytesPerParam /
                  r.stepTime->memoryBytesPerS
            : 0.0;
    // offload_layers' waits (below), part of the stage's work.
    const double offloadS =
        r.stepTime ? r.stepTime->stages[static_cast<std::size_t>(stage)][core::TimePart::offload]
                   : 0.0;
    out += formula::block(
        QObject::tr("Work of stage %1 in one step").arg(stage),
        (castOnce > 0
             ? QStringLiteral("%1 × (layers × (F + B + W + rerun) + ends) + sends + casts once") +
                   (offloadS > 0 ? QStringLiteral(" + offload waits") : QString()) +
                   QStringLiteral(" = %2 × (%3 × (%4 + %5 + %6 + %7 ms) + %8 ms) + %9 + ") +
                   sec(castOnce) +
                   (offloadS > 0 ? QStringLiteral(" + ") + sec(offloadS) : QString()) +
                   QStringLiteral(" = %10")
         : offloadS > 0
             ? QStringLiteral("%1 × (layers × (F + B + W + rerun) + ends) + sends + offload "
                              "waits = %2 × (%3 × (%4 + %5 + %6 + %7 ms) + %8 ms) + %9 + ") +
                   sec(offloadS) + QStringLiteral(" = %10")
             : QStringLiteral("%1 × (layers × (F + B + W + rerun) + ends) + sends = %2 × (%3 × "
                              "(%4 + %5 + %6 + %7 ms) + %8 ms) + %9 = %10"))
            .arg(half ? QStringLiteral("m/2") : QStringLiteral("m"))
            .arg(passes, 0, 'g', 10)
            .arg(report.layers)
            .arg(ms(f), ms(b), ms(w), ms(rerun), ms(ends),
                 sec(r.stepTime ? r.stepTime->stages[static_cast<std::size_t>(stage)]
                                                    [core::TimePart::pipelineComm]
                                : 0.0),
                 r.stepTime ? sec(r.stepTime->stages[static_cast<std::size_t>(stage)].stageWork())
                            : sec(passes * (report.layers * layer + ends))),
        QObject::tr("One micro-batch's operations on one device, below; the rest of the step "
                    "is the stage's bubble, the exposed gradient sync and the optimizer step "
                    "(docs/step_time.md)") +
            (share < 1 ? QObject::tr("; the rerun is a layer's ↻ work times %1 %, the share of "
                                     "the stage's layers recompute_layers = %2 reruns "
                                     "(docs/activations.md)")
                             .arg(100 * share, 0, 'f', 1)
                             .arg(s.recomputeLayers)
                       : QString()));
    // offload_layers: what each micro-batch's passes wait for the copies to and from the host
    // (core/offload.h; docs/activations.md, "Offloaded layers").
    if (r.stepTime && s.offloadLayers > 0 && r.stepTime->offloadCopyS > 0) {
        const core::StepTimeReport &t = *r.stepTime;
        const double waits = t.offloadForwardS + t.offloadBackwardS;
        out += formula::block(
            QObject::tr("Activation offload on stage %1").arg(stage),
            QObject::tr("%1 layers offloaded, each copy %2 ÷ %3 GB/s = %4 a way; per micro-batch "
                        "the forward waits %5 and the backward %6: m × %7 = %8")
                .arg(s.offloadLayers)
                .arg(formula::bytes(report.activationsBytes /
                                    std::max(1, report.layers - s.offloadLayers)))
                .arg(t.hostBytesPerS / 1e9, 0, 'f', 1)
                .arg(ms(t.offloadCopyS) + QStringLiteral(" ms"), sec(t.offloadForwardS),
                     sec(t.offloadBackwardS), sec(waits), sec(passes * waits)),
            waits > 0
                ? QObject::tr("Transformer Engine lets the device hold %1 at once: a copy out "
                              "must end before the layer %2 further on starts, a copy back runs "
                              "beside the backward of the layers after it; these copies outlast "
                              "those layers (docs/activations.md, \"Offloaded layers\")")
                      .arg(report.layers - s.offloadLayers == 1
                               ? QObject::tr("one layer's activations")
                               : QObject::tr("%1 layers' activations")
                                     .arg(report.layers - s.offloadLayers))
                      .arg(report.layers - s.offloadLayers)
                : QObject::tr("Every copy fits beside the layers it runs with: offloading costs "
                              "no time here, only host memory (docs/activations.md, "
                              "\"Offloaded layers\")"));
    }
    out += table.html(QObject::tr("Operations of stage %1: one layer, one micro-batch, one device "
                                  "(↻ rerun before the backward pass; ↻ n % that share of it)")
                          .arg(stage));
    return out;
}

// Seconds per stage and part; the parts of a stage add up to the step time.
ChartData StepTimePage::data(const ChartInputs &inputs) const
{
    ChartData d;
    d.title = QObject::tr("Step time by stage");
    const QString s = QStringLiteral("s");
    d.columns << ChartColumn{QStringLiteral("stage"), {}};
    for (const core::TimePartInfo &info : core::kTimeParts)
        d.columns << ChartColumn{io::qs(info.label), s};
    d.columns << ChartColumn{QStringLiteral("total"), s};
    if (!inputs.report.stepTime)
        return d;
    const std::vector<core::TimeBreakdown> &stages = inputs.report.stepTime->stages;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        QList<ChartValue> row{qint64(i)};
        for (double seconds : stages[i].seconds)
            row << seconds;
        row << stages[i].total();
        d.rows << row;
    }
    return d;
}

} // namespace ui
