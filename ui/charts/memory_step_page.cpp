#include "ui/charts/memory_step_page.h"

#include "core/memory_timeline.h"
#include "core/schedule.h"
#include "ui/charts/memory_step_chart.h"
#include "ui/charts/memory_step_panel.h"
#include "ui/formula_panel.h"

#include <QObject>

namespace ui {

QString MemoryStepPage::title() const
{
    return QObject::tr("Memory over the step");
}

QString MemoryStepPage::subject() const
{
    return QObject::tr("Memory over the step");
}

// The schedule's times and every memory term follow from the whole scenario.
FieldMask MemoryStepPage::dependsOn() const
{
    return FieldMask::all();
}

QWidget *MemoryStepPage::createWidget(ScenarioDocument *document)
{
    return m_panel = new MemoryStepPanel(document ? document->playhead() : nullptr);
}

void MemoryStepPage::update(const ChartInputs &inputs)
{
    m_panel->setInputs(inputs);
}

std::unique_ptr<QWidget> MemoryStepPage::createImage(const ChartInputs &inputs,
                                                     QWidget *parent) const
{
    auto chart = std::make_unique<MemoryStepChart>(parent);
    MemoryStepPanel::draw(chart.get(), inputs, m_panel ? m_panel->pickedStage() : -1);
    return chart;
}

QString MemoryStepPage::formulas(const ChartInputs &inputs) const
{
    using formula::block;
    using formula::bytes;
    const core::Scenario &s = inputs.scenario;
    const core::Report &r = inputs.report;
    if (r.stages.empty())
        return {};
    int stage = m_panel ? m_panel->pickedStage() : -1;
    if (stage < 0 || stage >= static_cast<int>(r.stages.size()))
        stage = core::highestStage(r);
    const core::StageReport &st = r.stages[static_cast<std::size_t>(stage)];
    const core::MemoryStepSizes sizes = core::memoryStepSizes(s, inputs.presets, r, stage);
    // The terms no op changes, those this stage has, by the names the warnings use.
    std::int64_t flat = 0;
    QStringList flatTerms;
    for (const core::MemoryTerm &term : core::kMemoryTerms)
        if (term.bytes != &core::StageReport::activationsBytes &&
            term.bytes != &core::StageReport::cachedOutputsBytes &&
            term.bytes != &core::StageReport::lossBytes && st.*term.bytes > 0) {
            flat += st.*term.bytes;
            flatTerms << QString::fromUtf8(term.name);
        }
    // DualPipe's device holds its stage of each direction: two stages' copies of the weights,
    // their gradients and optimizer states (deepseek-ai/DualPipe, dualpipe.py).
    const bool dualPipe = s.mode == core::Mode::training && s.schedule == core::Schedule::dualPipe;
    QString out;
    out += block(QObject::tr("Flat through the step, stage %1").arg(stage),
                 QStringLiteral("%1 = %2").arg(flatTerms.join(QStringLiteral(" + ")), bytes(flat)),
                 dualPipe ? QObject::tr("No op of the schedule changes them; DualPipe's device "
                                        "holds two stages' copies, its stage %1 of the forward "
                                        "direction and stage %2 of the reverse one "
                                        "(deepseek-ai/DualPipe, dualpipe.py; Rajbhandari et al. "
                                        "2020, §5; docs/DESIGN.md §3.3, §3.5)")
                                .arg(stage)
                                .arg(r.pp - 1 - stage)
                          : QObject::tr("No op of the schedule changes them (Rajbhandari et al. "
                                        "2020, §5; docs/DESIGN.md §3.5)"));
    if (r.mode != core::Mode::training)
        return out +
               block(QObject::tr("Peak"),
                     QStringLiteral("%1 of %2").arg(bytes(st.totalBytes), bytes(st.capacityBytes)),
                     QObject::tr("Inference keeps no activations for a backward pass "
                                 "(docs/activations.md, \"Inference\")"));
    const int v = sizes.chunks;
    // DualPipeV's V and DualPipe's two directions: two chunks a device, each half of its layers.
    const bool twoChunks = core::isDualPipe(s.schedule);
    // DualPipe(V) frees a chunk at its B where the B computes the weight gradients too, else
    // at the W it deferred (deepseek-ai/DualPipe, dualpipev.py and dualpipe.py:
    // WeightGradStore).
    const QString freedAt = twoChunks             ? QObject::tr("whole B, or a zero-bubble B's W")
                            : sizes.freedAtWeight ? QStringLiteral("W")
                                                  : QStringLiteral("B");
    // Chunks whose layers differ each keep their own bytes (core::unequalChunkBytes).
    QStringList chunkBytes;
    for (std::size_t c = 0; c < sizes.chunkBytes.size(); ++c)
        chunkBytes << QObject::tr("chunk %1: %2").arg(c).arg(bytes(sizes.chunkBytes[c]));
    out += block(QObject::tr("Activations one op keeps or frees"),
                 !chunkBytes.isEmpty() ? QObject::tr("%1 layers, chunks of their own layers: %2")
                                             .arg(st.layers)
                                             .arg(chunkBytes.join(QStringLiteral(", ")))
                 : v > 1 ? QStringLiteral("%1 layers × per layer ÷ %2 = %3 ÷ %4 per chunk")
                               .arg(st.layers)
                               .arg(twoChunks ? QStringLiteral("2") : QStringLiteral("v"))
                               .arg(bytes(sizes.stageLayersBytes))
                               .arg(v)
                         : QStringLiteral("%1 layers × per layer = %2 per micro-batch")
                               .arg(st.layers)
                               .arg(bytes(sizes.stageLayersBytes)),
                 QObject::tr("+ at each F, − at each %1 (Korthikanti et al. 2022, Table 2; "
                             "docs/activations.md, \"Per stage\")")
                     .arg(freedAt));
    QString schedule;
    switch (s.schedule) {
    case core::Schedule::gpipe:
        schedule = QObject::tr("GPipe runs every forward first: m alive (Huang et al. 2019, §2.3)");
        break;
    case core::Schedule::oneFOneB:
        schedule = QObject::tr("1F1B: min(K − s, m) alive (Narayanan et al. 2021, §2.2)");
        break;
    case core::Schedule::interleaved:
        schedule = QObject::tr("Interleaved: 2(K − s − 1) + (v − 1)K + 1 chunks of warm-up "
                               "(Narayanan et al. 2021, §2.2; Megatron-LM's schedules.py)");
        break;
    case core::Schedule::zbH1:
        schedule = QObject::tr("ZB-H1: 1F1B's warm-up, freed at W (Qi et al. 2023, §3.1)");
        break;
    case core::Schedule::dualPipeV:
        schedule = QObject::tr("DualPipeV: 2K + 1 = %1 chunks of half the stage at most, on "
                               "every stage (deepseek-ai/DualPipe, README: PP + 1)")
                       .arg(2 * r.pp + 1);
        break;
    case core::Schedule::dualPipe:
        schedule = QObject::tr("DualPipe: K + 1 = %1 chunks of one stage, half the device's "
                               "two, at most, on every device (deepseek-ai/DualPipe, README: "
                               "PP + 1)")
                       .arg(r.pp + 1);
        break;
    }
    // DualPipe(V)'s count is in chunks of half a micro-batch's layers: shown as chunks first.
    const QString inflight =
        twoChunks ? QStringLiteral("%1 chunks ÷ 2 = %2 micro-batches")
                        .arg(2 * st.inflightMicrobatches, 0, 'g', 4)
                        .arg(st.inflightMicrobatches, 0, 'g', 4)
                  : QStringLiteral("%1 micro-batches").arg(st.inflightMicrobatches, 0, 'g', 4);
    // With chunks of their own bytes: the chunks alive at the peak, each count at its bytes
    // (core::alivePeaks, the one that weighs most).
    QString atPeak;
    if (!sizes.chunkBytes.empty() && st.index < r.pp) {
        const auto peaks = core::alivePeaks(s.schedule, s.pp, s.microbatches, s.virtualStages);
        double most = -1;
        for (const std::vector<int> &alive : peaks[static_cast<std::size_t>(st.index)]) {
            double weight = 0;
            QStringList terms;
            for (std::size_t c = 0; c < alive.size() && c < sizes.chunkBytes.size(); ++c) {
                weight += alive[c] * static_cast<double>(sizes.chunkBytes[c]);
                terms << QStringLiteral("%1 × %2").arg(alive[c]).arg(bytes(sizes.chunkBytes[c]));
            }
            if (weight > most) {
                most = weight;
                atPeak = terms.join(QStringLiteral(" + "));
            }
        }
    }
    out += block(
        QObject::tr("Highest activations"),
        QStringLiteral("%1%2%3 = %4")
            .arg(atPeak.isEmpty()
                     ? QStringLiteral("%1 × %2").arg(inflight, bytes(sizes.stageLayersBytes))
                     : QObject::tr("%1 (chunk by chunk: %2)").arg(inflight, atPeak))
            .arg(sizes.recomputeBytes > 0
                     ? QStringLiteral(" + %1 rebuilt during a B").arg(bytes(sizes.recomputeBytes))
                     : QString())
            .arg(sizes.pairLayerBytes > 0
                     ? (twoChunks ? QObject::tr(" + %1, one layer more in an F-and-B pair")
                                  : QObject::tr(" + %1, one layer more in a B-and-F pair"))
                           .arg(bytes(sizes.pairLayerBytes))
                     : QString())
            .arg(bytes(st.activationsBytes)),
        schedule +
            (sizes.recomputeBytes > 0 ? QObject::tr("; full recomputation rebuilds one layer at a "
                                                    "time (docs/activations.md)")
                                      : QString()) +
            (sizes.pairLayerBytes > 0
                 ? QObject::tr("; ep_overlap runs a forward's layers as its paired backward frees "
                               "the other micro-batch's, one at a time (docs/experts.md)")
                 : QString()));
    // DualPipe's end stages each end one direction: stage 0 the reverse one, stage K − 1 the
    // forward one, each caching its half of the micro-batches' logits.
    const QString cachedWhere =
        s.schedule == core::Schedule::dualPipeV ? QObject::tr("Cached outputs on stage 0, where "
                                                              "the V ends")
        : dualPipe && stage == 0
            ? QObject::tr("Cached outputs on stage 0, where the reverse direction ends")
        : dualPipe
            ? QObject::tr("Cached outputs on stage %1, where the forward direction ends").arg(stage)
            : QObject::tr("Cached outputs on the last stage");
    if (sizes.cachedOutputBytes > 0)
        out += block(cachedWhere,
                     (dualPipe ? QStringLiteral("+ %1 at the end of each of its micro-batches' "
                                                "last F, m/2 = %2 of them = %3")
                               : QStringLiteral("+ %1 at the end of each micro-batch's last F, "
                                                "m = %2 of them = %3"))
                         .arg(bytes(sizes.cachedOutputBytes))
                         .arg(dualPipe ? s.microbatches / 2 : s.microbatches)
                         .arg(bytes(st.cachedOutputsBytes)),
                     QObject::tr("b × s × vocab × 2 B ÷ T per micro-batch, kept to the step's "
                                 "end (pytorch/pytorch#159251)"));
    if (sizes.lossPeakBytes > 0)
        out += block(
            QObject::tr("Loss buffers on stage %1").arg(stage),
            QStringLiteral("+ %1 from each micro-batch's loss to its backward, %2 "
                           "through that backward; at most %3")
                .arg(bytes(sizes.lossHeldBytes), bytes(sizes.lossPeakBytes), bytes(st.lossBytes)),
            QObject::tr("The cross-entropy loss's own buffers, held from the head "
                        "chunk's F to its B and at their peak through that B "
                        "(docs/activations.md, \"The loss\")"));
    out +=
        block(QObject::tr("Peak of stage %1").arg(stage),
              QStringLiteral("%1 of %2 → %3")
                  .arg(bytes(st.totalBytes), bytes(st.capacityBytes),
                       st.fits ? QObject::tr("fits") : QObject::tr("does not fit")),
              QObject::tr(
                  "The report's stage total: flat + highest activations + cached "
                  "outputs + loss buffers (docs/DESIGN.md §3.3, §3.6); the curve reaches it where "
                  "their peaks meet"));
    return out;
}

// The stage on screen (or the fullest), as the exported image draws it; sizes in bytes.
ChartData MemoryStepPage::data(const ChartInputs &inputs) const
{
    const core::Report &r = inputs.report;
    ChartData d;
    d.columns << ChartColumn{QStringLiteral("time"), r.timeInLayerUnits
                                                         ? QStringLiteral("layer-times")
                                                         : QStringLiteral("s")}
              << ChartColumn{QStringLiteral("micro-batches alive"), {}}
              << ChartColumn{QStringLiteral("activations"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("cached outputs"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("loss buffers"), QStringLiteral("bytes")}
              << ChartColumn{QStringLiteral("total"), QStringLiteral("bytes")};
    if (r.stages.empty() || r.timeline.empty())
        return d;
    int stage = m_panel ? m_panel->pickedStage() : -1;
    if (stage < 0 || stage >= static_cast<int>(r.stages.size()))
        stage = core::highestStage(r);
    d.title = QObject::tr("Memory of a device of stage %1 over the step").arg(stage);
    const core::MemoryTimeline timeline =
        core::memoryTimeline(inputs.scenario, inputs.presets, r, stage);
    for (const core::MemoryPoint &point : timeline.points)
        d.rows << QList<ChartValue>{point.time,
                                    point.microbatches,
                                    qint64(point.activationsBytes),
                                    qint64(point.cachedOutputsBytes),
                                    qint64(point.lossBytes),
                                    qint64(point.totalBytes)};
    return d;
}

} // namespace ui
