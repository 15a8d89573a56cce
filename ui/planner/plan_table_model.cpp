#include "ui/planner/plan_table_model.h"

#include "core/step_time.h"
#include "io/plan_io.h"
#include "io/text.h"
#include "ui/planner/plan_text.h"
#include "ui/planner/table_look.h"
#include "ui/units.h"

#include <QApplication>
#include <QFont>
#include <QPalette>
#include <algorithm>
#include <cmath>

namespace ui {

PlanTableModel::PlanTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void PlanTableModel::setCandidates(std::vector<core::PlanCandidate> candidates, bool experts)
{
    beginResetModel();
    m_candidates = std::move(candidates);
    m_experts = experts;
    m_stale = false;
    endResetModel();
}

bool PlanTableModel::isColumnShown(int column) const
{
    const auto any = [this](auto above) { return std::ranges::any_of(m_candidates, above); };
    switch (column) {
    case cp:
        return any([](const core::PlanCandidate &c) { return c.cp > 1; });
    case ep:
        return m_experts || any([](const core::PlanCandidate &c) { return c.ep > 1; });
    case endsCounted:
        return any([](const core::PlanCandidate &c) { return c.pp > 1; });
    default:
        return true;
    }
}

const core::PlanCandidate &PlanTableModel::candidate(int row) const
{
    return m_candidates.at(static_cast<std::size_t>(row));
}

void PlanTableModel::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                           {Qt::ForegroundRole, Qt::ToolTipRole});
}

void PlanTableModel::setLoaded(const std::optional<core::PlanCandidate> &layout)
{
    const bool same =
        layout.has_value() == m_loaded.has_value() && (!layout || layout->sameLayout(*m_loaded));
    if (same)
        return;
    m_loaded = layout;
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                           {Qt::FontRole, Qt::ToolTipRole});
}

void PlanTableModel::unitsChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, peakMemory, peakMemory);
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, peakMemory), index(rowCount() - 1, peakMemory));
}

int PlanTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_candidates.size());
}

int PlanTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(columnsEnd);
}

QVariant PlanTableModel::display(const core::PlanCandidate &c, int column) const
{
    switch (column) {
    case zero:
        // Hybrid sharding's replicas beside the stage (docs/planner.md, "Hybrid sharding").
        if (c.zero > 0 && c.zeroReplicas > 1)
            return tr("%1 in %2").arg(c.zero).arg(c.zeroReplicas);
        return c.zero;
    case schedule:
        return io::scheduleText(c);
    case endsCounted:
        return c.pp == 1 ? QStringLiteral("–") : c.endsInPipelineSplit ? tr("yes") : tr("no");
    case recompute:
        return plan_text::recompute(c);
    case sequenceParallel:
        return c.sequenceParallel ? tr("yes") : tr("no");
    case stepTime:
        return (c.stepLowerBound ? QStringLiteral("≥") : QString()) +
               plan_text::stepSeconds(c.stepTimeS);
    case tokensPerS:
        return io::formatCount(std::llround(c.tokensPerS));
    case mfu:
        return QString::number(100 * c.mfuAchieved, 'f', 1);
    case bubble:
        return QString::number(100 * c.bubbleFraction, 'f', 1);
    case peakMemory:
        return QString::number(units::large(static_cast<double>(c.peakStageBytes)), 'f', 1);
    default:
        return {};
    }
}

// The value a column sorts by: numbers as numbers; the schedule by its name.
QVariant PlanTableModel::number(const core::PlanCandidate &c, int row, int column) const
{
    switch (column) {
    case rank:
        return row + 1;
    case tp:
        return c.tp;
    case cp:
        return c.cp;
    case pp:
        return c.pp;
    case dp:
        return c.dp;
    case ep:
        return c.ep;
    case zero:
        // Hybrid sharding holds more a device than the same stage over all D: before it.
        return c.zero - (c.zeroReplicas > 1 ? 1e-4 * std::min(c.zeroReplicas, 1000) : 0.0);
    case schedule:
        return io::scheduleText(c);
    case endsCounted:
        return c.pp > 1 && c.endsInPipelineSplit ? 1 : 0;
    case microbatchSize:
        return c.microbatchSize;
    case microbatches:
        return c.microbatches;
    case recompute:
        // None, selective, full of the fewest layers up, full of every layer: less memory
        // down the list.
        // None with the first layers offloaded sits between none and selective, the more
        // offloaded the lower.
        return static_cast<int>(c.recompute) -
               (c.recompute == core::Recompute::full && c.recomputeLayers > 0
                    ? 0.5 - 1e-4 * c.recomputeLayers
                    : 0.0) +
               (c.offloadLayers > 0 ? 0.1 + 1e-4 * c.offloadLayers : 0.0);
    case sequenceParallel:
        return c.sequenceParallel ? 1 : 0;
    case stepTime:
        return c.stepTimeS;
    case tokensPerS:
        return c.tokensPerS;
    case mfu:
        return c.mfuAchieved;
    case bubble:
        return c.bubbleFraction;
    case peakMemory:
        return static_cast<double>(c.peakStageBytes);
    default:
        return {};
    }
}

QString PlanTableModel::rowTooltip(const core::PlanCandidate &c) const
{
    const core::TimeBreakdown &b = c.breakdown;
    auto part = [&c](double s) {
        return tr("%1 s (%2 %)")
            .arg(plan_text::stepSeconds(s))
            .arg(c.stepTimeS > 0 ? 100 * s / c.stepTimeS : 0.0, 0, 'f', 1);
    };
    QString rows;
    for (const core::TimePartInfo &info : core::kTimeParts)
        if (b[info.part] > 0)
            rows +=
                tr("&nbsp;&nbsp;%1 %2<br>").arg(QString::fromUtf8(info.label), part(b[info.part]));
    QString text =
        tr("<p><b>%1</b></p><p>Step %2 s =<br>%3</p><p>Fullest stage: %4 per device.</p>")
            .arg(io::layoutText(c).toHtmlEscaped(), plan_text::stepSeconds(c.stepTimeS), rows,
                 units::format(static_cast<double>(c.peakStageBytes)));
    if (c.shortStep)
        text += tr("<p>Likely short: published training steps timed under %1 ms ran from %2 % "
                   "shorter to %3 % longer than modelled (docs/step_time.md).</p>")
                    .arg(1e3 * core::kShortStepS, 0, 'f', 0)
                    .arg(100 * core::kShortStepShorter, 0, 'f', 0)
                    .arg(100 * (core::kShortStepLonger - 1), 0, 'f', 0);
    if (c.moeHostUntimed)
        text += tr("<p>Likely short: published Megatron-LM MoE runs outside a CUDA graph of "
                   "the whole step, dropless or padded to capacity, took %1 to %2 ms longer a "
                   "MoE layer and micro-batch than modelled, which is not timed "
                   "(docs/step_time.md).</p>")
                    .arg(1e3 * core::kMoeHostGapMinS, 0, 'f', 1)
                    .arg(1e3 * core::kMoeHostGapMaxS, 0, 'f', 1);
    if (c.fsdpOverlap)
        text += tr("<p>Likely short: PyTorch FSDP2's published runs on Hopper took 28 to 66 % "
                   "of their gathers' and reduce-scatters' time beyond the model "
                   "(docs/step_time.md).</p>");
    if (m_loaded && c.sameLayout(*m_loaded))
        text += tr("<p>This layout is loaded in the explorer.</p>");
    if (m_stale)
        text += tr("<p><i>Computed for inputs that have changed since: Run again.</i></p>");
    else
        text += tr("<p>Double-click or press Enter to load it into the explorer.</p>");
    return text;
}

QVariant PlanTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::PlanCandidate &c = candidate(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: {
        const QVariant text = display(c, column);
        return text.isValid() ? text : number(c, index.row(), column);
    }
    case SortRole:
        return number(c, index.row(), column);
    case Qt::ToolTipRole:
        return rowTooltip(c);
    case Qt::TextAlignmentRole:
    case Qt::FontRole:
    case Qt::ForegroundRole:
        return rowLook(role, m_loaded && c.sameLayout(*m_loaded), m_stale,
                       column == schedule || column == endsCounted || column == recompute ||
                           column == sequenceParallel);
    default:
        return {};
    }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case rank:
            return tr("#");
        case tp:
            return tr("T");
        case cp:
            return tr("C");
        case pp:
            return tr("K");
        case dp:
            return tr("D");
        case ep:
            return tr("E");
        case zero:
            return tr("ZeRO");
        case schedule:
            return tr("Schedule");
        case endsCounted:
            return tr("Ends");
        case microbatchSize:
            return tr("b");
        case microbatches:
            return tr("m");
        case recompute:
            return tr("Recompute");
        case sequenceParallel:
            return tr("SP");
        case stepTime:
            return tr("Step (s)");
        case tokensPerS:
            return tr("Tokens/s");
        case mfu:
            return tr("MFU (%)");
        case bubble:
            return tr("Bubble (%)");
        case peakMemory:
            return tr("Peak (%1)").arg(units::largeName());
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case rank:
            return tr("Rank by step time among the layouts that fit (1 = fastest).");
        case tp:
            return tr("Tensor-parallel degree T: each layer's matrices split across T devices.");
        case cp:
            return tr("Context-parallel degree C: each sequence split across C devices, "
                      "attention passing keys and values around them.");
        case pp:
            return tr("Pipeline stages K: the layers split into K consecutive stages.");
        case dp:
            return tr("Data-parallel degree D: replicas, each taking global batch ÷ D "
                      "sequences per step. T × C × K × D is the device count.");
        case ep:
            return tr("Expert-parallel degree E: each MoE layer's routed experts shared out "
                      "over E of a stage's T × C × D devices.");
        case zero:
            return tr("ZeRO stage: 1 shards the optimizer states over D, 2 also the "
                      "gradients, 3 also the weights. \"3 in 16\": hybrid sharding, ZeRO-3 "
                      "within each of 16 replicas, which all-reduce their shards' gradients "
                      "(zero_replicas).");
        case schedule:
            return tr("Pipeline schedule; \"v\" is the number of model chunks per device of "
                      "the interleaved schedule.");
        case endsCounted:
            return tr("Whether the pipeline split counts the embedding and the loss as a layer "
                      "each (ends_in_pipeline_split): the first and last stages then hold a "
                      "layer fewer, as Megatron-LM's --account-for-embedding-in-pipeline-split "
                      "and --account-for-loss-in-pipeline-split do. – without a pipeline.");
        case microbatchSize:
            return tr("Micro-batch size b, in sequences.");
        case microbatches:
            return tr("Micro-batches per step m: b × m × D is the global batch.");
        case recompute:
            return tr("Activation recomputation: selective drops the attention scores, or "
                      "with the modules in brackets what they name (Megatron-LM's "
                      "--recompute-modules: latent attention's up projections, a MoE layer's "
                      "activation, the norms); op (torchtitan's per-op policy) keeps the "
                      "attention output and every second matrix multiply's and reruns the "
                      "rest; full keeps only each layer's input and recomputes the rest in "
                      "backward, or in brackets only the first layers of each stage or chunk, "
                      "the fewest with which the layout fits (Megatron-LM's --recompute-method "
                      "block --recompute-num-layers), the others kept whole. \"none (36 "
                      "layers offloaded)\": no recomputation, the first layers' activations "
                      "copied to host memory and back (Megatron-LM's "
                      "--cpu-offloading-num-layers), the fewest with which a layout of one "
                      "stage fits.");
        case sequenceParallel:
            return tr("Sequence parallelism: activations outside the tensor-parallel matrices "
                      "split over T as well.");
        case stepTime:
            return tr("Time of one training step in seconds (compute + pipeline bubble + "
                      "tensor-parallel collectives + exposed gradient sync); the row's "
                      "tooltip breaks it down.");
        case tokensPerS:
            return tr("Tokens per second over the whole cluster: global batch × sequence "
                      "length ÷ step time.");
        case mfu:
            return tr("Model FLOPs utilisation achieved, in %: the model's FLOPs per step ÷ "
                      "(devices × peak FLOPS × step time). Below the scenario's MFU by the "
                      "bubble, the communication and the recomputation.");
        case bubble:
            return tr("Share of the pipeline step a stage is idle, in %.");
        case peakMemory:
            return tr("Memory of one device of the fullest pipeline stage, in %1 (View → "
                      "Sizes in GiB switches units).")
                .arg(units::largeName());
        default:
            return {};
        }
    }
    return {};
}

} // namespace ui
