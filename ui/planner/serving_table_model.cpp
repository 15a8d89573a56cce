#include "ui/planner/serving_table_model.h"

#include "io/serving_plan_io.h"
#include "io/text.h"
#include "ui/planner/table_look.h"
#include "ui/units.h"

#include <QApplication>
#include <QFont>
#include <QPalette>
#include <cmath>

namespace ui {

namespace {

// What an untimed shape shows for every number derived from time.
QString noTime()
{
    return QStringLiteral("—");
}

QString milliseconds(double seconds, int decimals)
{
    return QString::number(seconds * 1e3, 'f', decimals);
}

// The reason in a word or two, for a narrow column; the row's tooltip gives it in full.
QString limitText(core::BatchLimit limit)
{
    switch (limit) {
    case core::BatchLimit::memory:
        return ServingTableModel::tr("memory");
    case core::BatchLimit::tpotTarget:
        return ServingTableModel::tr("TPOT target");
    case core::BatchLimit::ttftTarget:
        return ServingTableModel::tr("TTFT target");
    case core::BatchLimit::batchLimit:
        return ServingTableModel::tr("batch limit");
    }
    return {};
}

} // namespace

ServingTableModel::ServingTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ServingTableModel::setCandidates(std::vector<core::ServingCandidate> candidates)
{
    beginResetModel();
    m_candidates = std::move(candidates);
    m_stale = false;
    endResetModel();
}

const core::ServingCandidate &ServingTableModel::candidate(int row) const
{
    return m_candidates.at(static_cast<std::size_t>(row));
}

void ServingTableModel::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                           {Qt::ForegroundRole, Qt::ToolTipRole});
}

core::PlanLayout ServingTableModel::layoutOf(const core::ServingCandidate &c)
{
    // apply() sets every layout key and nothing else: the base does not matter.
    return core::PlanLayout::of(c.apply(core::Scenario{}));
}

void ServingTableModel::setLoaded(const core::PlanLayout &inExplorer)
{
    // The deployment search keeps the scenario's ends_in_pipeline_split (it varies T, K, the
    // replicas and the batching only), which layoutOf leaves at its default.
    core::PlanLayout loaded = inExplorer;
    loaded.endsInPipelineSplit = core::PlanLayout{}.endsInPipelineSplit;
    if (m_loaded == loaded)
        return;
    m_loaded = loaded;
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                           {Qt::FontRole, Qt::ToolTipRole});
}

bool ServingTableModel::isLoaded(const core::ServingCandidate &c) const
{
    return m_loaded && layoutOf(c) == *m_loaded;
}

void ServingTableModel::unitsChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, peakMemory, peakMemory);
    if (!m_candidates.empty())
        Q_EMIT dataChanged(index(0, peakMemory), index(rowCount() - 1, peakMemory));
}

int ServingTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_candidates.size());
}

int ServingTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(columnsEnd);
}

bool ServingTableModel::hasTimes(const core::ServingCandidate &c)
{
    return c.timed || c.linkTimeExcluded;
}

QVariant ServingTableModel::display(const core::ServingCandidate &c, int row, int column) const
{
    // Exact, a bound ("≥ 562.31" for a time, "≤ 14" for a rate, as `parascope plan` writes
    // them) or unknown.
    const auto cell = [&c](const QString &value, const QString &sign) {
        return c.timed ? value : c.linkTimeExcluded ? sign + value : noTime();
    };
    const QString atLeast = QStringLiteral("≥ ");
    const QString atMost = QStringLiteral("≤ ");
    switch (column) {
    case rank:
        return row + 1;
    case tokensPerSPerDevice:
        return cell(io::formatCount(std::llround(c.tokensPerSPerDevice)), atMost);
    case tokensPerS:
        return cell(io::formatCount(std::llround(c.tokensPerS())), atMost);
    case tpot:
        return cell(milliseconds(c.tpotS, 2), atLeast);
    case ttft:
        // Tenths below 100 ms, where a prompt's prefill often is.
        return cell(milliseconds(c.ttftS, c.ttftS < 0.1 ? 1 : 0), atLeast);
    case peakMemory:
        return QString::number(units::large(static_cast<double>(c.peakStageBytes)), 'f', 1);
    case bound:
        return cell(c.memoryBound ? tr("memory") : tr("compute"), QString());
    case limit:
        return limitText(c.limit);
    case layout:
        return io::servingShapeText(c);
    default:
        return {};
    }
}

// The value a column sorts by: numbers as numbers, bounds as their bound; a shape without
// times has none there.
QVariant ServingTableModel::number(const core::ServingCandidate &c, int row, int column) const
{
    const auto timed = [&c](double value) { return hasTimes(c) ? QVariant(value) : QVariant(); };
    switch (column) {
    case rank:
        return row + 1;
    case tokensPerSPerDevice:
        return timed(c.tokensPerSPerDevice);
    case tokensPerS:
        return timed(c.tokensPerS());
    case tpot:
        return timed(c.tpotS);
    case ttft:
        return timed(c.ttftS);
    case peakMemory:
        return static_cast<double>(c.peakStageBytes);
    case bound:
        return hasTimes(c) ? QVariant(c.memoryBound ? tr("memory") : tr("compute")) : QVariant();
    case limit:
        return io::qs(core::toString(c.limit));
    case layout:
        // T, then K, then D, as the text reads, but 16 after 2.
        return (qint64(c.tp) << 40) | (qint64(c.pp) << 20) | qint64(c.replicas);
    default:
        return {};
    }
}

QString ServingTableModel::rowTooltip(const core::ServingCandidate &c) const
{
    QString text = tr("<p><b>%1</b></p>").arg(io::servingShapeText(c).toHtmlEscaped());
    text += tr("<p>%1 devices per replica × %2 replicas = %3 devices.</p>")
                .arg(io::formatCount(c.devicesPerReplica()), io::formatCount(c.replicas),
                     io::formatCount(c.devices()));
    if (c.timed) {
        text += tr("<p>First token after %1 ms, then %2 ms per token; a request of the "
                   "scenario's output length takes %3 s.<br>%4 output tokens/s per replica, "
                   "%5 per device.</p>")
                    .arg(c.ttftS * 1e3, 0, 'f', 1)
                    .arg(c.tpotS * 1e3, 0, 'f', 2)
                    .arg(c.latencyS, 0, 'f', 2)
                    .arg(io::formatCount(std::llround(c.tokensPerSPerReplica)),
                         io::formatCount(std::llround(c.tokensPerSPerDevice)));
        if (c.joulesPerMillionTokens > 0)
            text += tr("<p>%1 J per million output tokens, every device at its TDP.</p>")
                        .arg(io::formatCount(std::llround(c.joulesPerMillionTokens)));
    } else if (c.linkTimeExcluded) {
        text += tr("<p>Bounds only: a link the replica needs publishes no bandwidth, so its "
                   "transfers are left out. At least %1 ms to the first token and %2 ms per "
                   "token; at most %3 output tokens/s per device. It ranks after every timed "
                   "shape, fewest devices first.</p>")
                    .arg(c.ttftS * 1e3, 0, 'f', 1)
                    .arg(c.tpotS * 1e3, 0, 'f', 2)
                    .arg(io::formatCount(std::llround(c.tokensPerSPerDevice)));
    } else {
        text += tr("<p>Not timed: the device publishes no rates for this precision. It fits "
                   "memory, and ranks after every timed shape.</p>");
    }
    text += tr("<p>Fullest stage: %1 per device.<br>Batch limited by the %2.</p>")
                .arg(units::format(static_cast<double>(c.peakStageBytes)),
                     io::qs(core::toString(c.limit)));
    if (isLoaded(c))
        text += tr("<p>This shape is loaded in the explorer.</p>");
    if (m_stale)
        text += tr("<p><i>Computed for inputs that have changed since: Run again.</i></p>");
    else
        text += tr("<p>Double-click or press Enter to load it into the explorer.</p>");
    return text;
}

QVariant ServingTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::ServingCandidate &c = candidate(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(c, index.row(), column);
    case SortRole:
        return number(c, index.row(), column);
    case Qt::ToolTipRole:
        return rowTooltip(c);
    case Qt::TextAlignmentRole:
    case Qt::FontRole:
    case Qt::ForegroundRole:
        return rowLook(role, isLoaded(c), m_stale,
                       column == bound || column == limit || column == layout);
    default:
        return {};
    }
}

QVariant ServingTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case rank:
            return tr("#");
        // Two lines: the columns are as narrow as their numbers, and the layout fits beside.
        case tokensPerSPerDevice:
            return tr("Tokens/s\nper device");
        case tokensPerS:
            return tr("Tokens/s\nin all");
        case tpot:
            return tr("TPOT\n(ms)");
        case ttft:
            return tr("TTFT\n(ms)");
        case peakMemory:
            return tr("Peak\n(%1)").arg(units::largeName());
        case bound:
            return tr("Bound");
        case limit:
            return tr("Batch\nlimited by");
        case layout:
            return tr("Layout");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case rank:
            return tr("Rank by output tokens per second per device among the shapes that fit "
                      "and meet the targets (1 = most); untimed shapes after every timed one.");
        case tokensPerSPerDevice:
            return tr("Output tokens per second per device: one replica's output tokens over "
                      "the whole request (prefill and decode) ÷ its T × K devices. What the "
                      "shapes are ranked by.");
        case tokensPerS:
            return tr("Output tokens per second over all D replicas.");
        case tpot:
            return tr("Time per output token in milliseconds: the mean decode step after the "
                      "first token, at the row's batch. \"≥\": a lower bound, a link the shape "
                      "needs publishing no bandwidth (and \"≤\" for its tokens/s).");
        case ttft:
            return tr("Time to first token in milliseconds: the prefill of the whole batch's "
                      "prompts.");
        case peakMemory:
            return tr("Memory of one device of the fullest pipeline stage, in %1 (View → "
                      "Sizes in GiB switches units).")
                .arg(units::largeName());
        case bound:
            return tr("What bounds the first decode step of the busiest stage: memory "
                      "bandwidth (reading weights and KV cache) or compute.");
        case limit:
            return tr("Why the batch is not larger: one more sequence per micro-batch would "
                      "not fit the memory with the headroom (memory), would take longer than "
                      "the time per output token or time to first token target (TPOT target, "
                      "TTFT target), or the micro-batch is the largest Parascope takes (batch "
                      "limit).");
        case layout:
            return tr("The replica shape: T-way tensor parallel, K pipeline stages, D replicas; "
                      "the batch in flight per replica, m micro-batches of b sequences.");
        default:
            return {};
        }
    }
    return {};
}

} // namespace ui
