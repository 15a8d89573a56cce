#include "ui/formula_panel.h"

#include "core/comm_cost.h"
#include "io/text.h"
#include "ui/units.h"

namespace ui {

namespace {

QString gb(std::int64_t bytes)
{
    return units::format(static_cast<double>(bytes));
}

QString percent(double fraction)
{
    return QStringLiteral("%1 %").arg(100 * fraction, 0, 'f', 1);
}

// One formula: a title, the expression with numbers, and where it comes from.
QString block(const QString &title, const QString &formula, const QString &source)
{
    return QStringLiteral("<p><b>%1</b><br><span style='font-family:monospace'>%2</span><br>"
                          "<small><i>%3</i></small></p>")
        .arg(title, formula, source);
}

QString memory(const core::Scenario &s, const core::Report &r)
{
    QString out;
    const core::StageReport &st = r.stages.front();
    const core::StageReport &last = r.stages.back();
    out += block(QObject::tr("Weights on a device of stage 0"),
                 QStringLiteral("%1 params × %2 B%3 = %4")
                     .arg(io::formatCount(st.params))
                     .arg(r.weightBytesPerParam)
                     .arg(s.zero >= 3 ? QStringLiteral(" ÷ D=%1").arg(s.dp) : QString(),
                          gb(st.weightsBytes)),
                 QObject::tr("Layers split over K, matrices over T (Megatron-LM); seed ¶1"));
    if (r.mode == core::Mode::training) {
        out +=
            block(QObject::tr("Gradients and optimizer states"),
                  QStringLiteral("%1 B%2 + %3 B%4 per parameter = %5 + %6")
                      .arg(r.gradBytesPerParam)
                      .arg(s.zero >= 2 ? QStringLiteral(" ÷ D") : QString())
                      .arg(r.optimizerBytesPerParam)
                      .arg(s.zero >= 1 ? QStringLiteral(" ÷ D") : QString(), gb(st.gradsBytes),
                           gb(st.optimizerBytes)),
                  QObject::tr("Mixed-precision Adam keeps 2 + 2 + 12 bytes per parameter; ZeRO-%1 "
                              "(Rajbhandari et al. 2020, §5)")
                      .arg(s.zero));
        out += block(QObject::tr("Activations of stage 0"),
                     QStringLiteral("%1 layers × %2 micro-batches in flight → %3")
                         .arg(st.layers)
                         .arg(st.inflightMicrobatches, 0, 'g', 4)
                         .arg(gb(st.activationsBytes)),
                     QObject::tr("Per layer sbh(34 + 5as/h), with T, sequence parallelism and "
                                 "recomputation (Korthikanti et al. 2022, Table 2); "
                                 "docs/activations.md"));
        if (s.cacheOutputs)
            out += block(QObject::tr("Cached outputs on the last stage"),
                         QStringLiteral("m × b × s × V × 2 B ÷ T = %1 × %2 × %3 × vocab × 2 ÷ %4 "
                                        "= %5")
                             .arg(s.microbatches)
                             .arg(s.microbatchSize)
                             .arg(s.seqLen)
                             .arg(s.tp)
                             .arg(gb(last.cachedOutputsBytes)),
                         QObject::tr("PyTorch's pipelining keeps every micro-batch's output "
                                     "(pytorch/pytorch#159251; switch: #165822)"));
    } else {
        out += block(QObject::tr("KV cache of stage 0"),
                     QStringLiteral("2 × layers × KV heads ÷ T × head dim × s × m·b × 2 B = %1")
                         .arg(gb(st.kvCacheBytes)),
                     QObject::tr("DESIGN §3.7; one KV head per device when T exceeds them"));
    }
    out += block(QObject::tr("Fit"),
                 QStringLiteral("%1 needed of %2 → %3")
                     .arg(gb(st.totalBytes), gb(st.capacityBytes),
                          st.fits ? QObject::tr("fits") : QObject::tr("does not fit")),
                 QObject::tr("Capacity = memory_gib × 2³⁰; reserve %1 GiB for the framework")
                     .arg(s.reserveGib));
    return out;
}

QString bubble(const core::Scenario &s, const core::Report &r)
{
    const int k = s.pp, m = s.microbatches, v = s.virtualStages;
    QString formula;
    QString source;
    switch (s.schedule) {
    case core::Schedule::gpipe:
    case core::Schedule::oneFOneB:
        formula = QStringLiteral("bubble = (K−1)/(K−1+m) = %1/%2").arg(k - 1).arg(k - 1 + m);
        source = QObject::tr("Seed ¶2; Narayanan et al. 2021, §2.2 (K=4, m=16 → 15.8 %)");
        break;
    case core::Schedule::interleaved:
        formula = QStringLiteral("bubble = (K−1)/(v·m+K−1) = %1/%2").arg(k - 1).arg(v * m + k - 1);
        source = QObject::tr("Narayanan et al. 2021, §2.2.2 (interleaved 1F1B)");
        break;
    case core::Schedule::zbH1:
        formula = QStringLiteral("bubble time = (K−1)(F+B−W) vs 1F1B's (K−1)(F+B+W)");
        source = QObject::tr("Qi et al. 2023, 'Zero Bubble Pipeline Parallelism', §3.1");
        break;
    }
    if (r.bubbleFractionClosedForm)
        formula += QStringLiteral(" = %1").arg(percent(*r.bubbleFractionClosedForm));
    QString out =
        block(QObject::tr("Bubble (%1)").arg(io::qs(core::toString(s.schedule))), formula, source);
    out += block(QObject::tr("Simulated"),
                 QStringLiteral("1 − busy ÷ (K × makespan) = %1").arg(percent(r.bubbleFraction)),
                 QObject::tr("Event simulation of the schedule, uneven stages included"));
    return out;
}

// The step-time model's sum (docs/step_time.md), with the current numbers.
QString stepTime(const core::Scenario &s, const core::Report &r)
{
    if (!r.stepTime)
        return {};
    const core::StepTimeReport &st = *r.stepTime;
    const core::TimeBreakdown &b = st.breakdown;
    auto sec = [](double t) { return QStringLiteral("%1 s").arg(t, 0, 'g', 4); };
    QString out =
        block(QObject::tr("Step time"),
              QStringLiteral("compute %1 + bubble %2 + TP %3 + DP %4 × (1 − %5) = %6")
                  .arg(sec(b.computeS), sec(b.bubbleS), sec(b.tpCommS), sec(st.dpCommTotalS))
                  .arg(s.dpOverlap)
                  .arg(sec(st.stepTimeS)),
              QObject::tr("Compute at peak × mfu = %1; dp_overlap hides part of the gradient "
                          "sync (docs/step_time.md)")
                  .arg(s.mfu));
    out += block(QObject::tr("Throughput"),
                 QStringLiteral("m·b·s·D ÷ step = %1 tokens/s; MFU = 6·N·tokens ÷ (devices × "
                                "peak × step) = %2")
                     .arg(st.tokensPerS, 0, 'f', 0)
                     .arg(percent(st.mfuAchieved)),
                 QObject::tr("Narayanan et al. 2021, §5.1 (2·N·tokens in inference)"));
    return out;
}

QString timeline(const core::Scenario &s, const core::Report &r)
{
    return stepTime(s, r) +
           block(
               QObject::tr("Pipeline makespan"),
               QStringLiteral("makespan = %1 %2 for m = %3 micro-batches on K = %4 stages")
                   .arg(r.makespanS, 0, 'g', 4)
                   .arg(r.timeInLayerUnits ? QObject::tr("layer-times") : QStringLiteral("s"))
                   .arg(s.microbatches)
                   .arg(s.pp),
               QObject::tr("Forward per layer = FLOPs ÷ (peak at the precision × mfu); backward = "
                           "2 × forward (Narayanan et al. 2021, §5.1); recomputation adds its "
                           "forward")) +
           bubble(s, r);
}

QString sharding(const core::Scenario &s, const core::ShardReport *r)
{
    QString out = block(
        QObject::tr("Ring all-reduce"),
        QStringLiteral("2(T−1)/T × payload = 2×%1/%2 × payload per device").arg(s.tp - 1).arg(s.tp),
        QObject::tr("Patarasuk & Yuan 2009; all-gather and reduce-scatter move (T−1)/T"));
    out += block(QObject::tr("Columns then rows"), QStringLiteral("one all-reduce of tokens × h"),
                 QObject::tr("Shoeybi et al. 2019 (Megatron-LM), §3; seed ¶3"));
    out += block(QObject::tr("Rows then rows"),
                 QStringLiteral("all-reduce(tokens × f) + all-reduce(tokens × h)"),
                 QObject::tr("Seed ¶3: splitting both matrices the same way needs more "
                             "all-reduces; docs/sharding.md"));
    if (r && r->ok())
        out += block(QObject::tr("Link"),
                     QStringLiteral("%1, %2 GB/s per direction; best split %3× faster")
                         .arg(io::qs(core::toString(r->link.kind)))
                         .arg(r->link.gbPerS)
                         .arg(r->speedupBestOverWorst, 0, 'f', 2),
                     QObject::tr("DESIGN §3.2: NVLink figures halved to per direction"));
    return out;
}

QString modelSize(const core::Report &r)
{
    QString rows;
    for (const auto &size : r.sizeByPrecision)
        rows += QStringLiteral("%1: %2<br>")
                    .arg(io::qs(core::toString(size.precision)), gb(size.nominalBytes));
    QString exact;
    for (const auto &size : r.sizeByPrecision)
        if (size.precision == r.precision)
            exact = block(QObject::tr("The bars: exact count × bytes per value"),
                          QStringLiteral("%1 × %2 B = %3")
                              .arg(io::formatCount(r.params))
                              .arg(r.weightBytesPerParam)
                              .arg(gb(size.bytes)),
                          QObject::tr("Parameters counted from the architecture (DESIGN §3.1)"));
    return exact +
           block(QObject::tr("The seed's table: nominal size × bytes per value"),
                 QStringLiteral("%1 × bytes =<br>%2").arg(io::formatCount(r.nominalParams), rows),
                 QObject::tr("Seed ¶1 (405B → 810 / 405 / 202.5 GB); q8_0 and q4_0 carry an FP16 "
                             "scale per 32 weights (llama.cpp)"));
}

} // namespace

FormulaPanel::FormulaPanel(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setObjectName(QStringLiteral("formulas"));
}

void FormulaPanel::show(Topic topic, const core::Scenario &scenario, const core::Report &report,
                        const core::ShardReport *shardReport)
{
    setHtml(html(topic, scenario, report, shardReport));
}

QString FormulaPanel::html(Topic topic, const core::Scenario &s, const core::Report &r,
                           const core::ShardReport *shardReport)
{
    if (!r.ok() || r.stages.empty())
        return {};
    switch (topic) {
    case Topic::memory:
        return memory(s, r);
    case Topic::bubble:
        return bubble(s, r);
    case Topic::timeline:
        return timeline(s, r);
    case Topic::sharding:
        return sharding(s, shardReport);
    case Topic::modelSize:
        return modelSize(r);
    }
    return {};
}

} // namespace ui
