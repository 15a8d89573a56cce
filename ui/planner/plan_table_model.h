#pragma once

#include "core/planner.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace ui {

// The planner's top candidates as a table: one row per layout, fastest first. Every cell
// also gives its number under SortRole, so that a sort proxy orders 9.5 before 10.2 rather
// than as text.
class PlanTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        rank,
        tp,
        cp,
        pp,
        dp,
        ep,
        zero,
        schedule,
        endsCounted,
        microbatchSize,
        microbatches,
        recompute,
        sequenceParallel,
        stepTime,
        tokensPerS,
        mfu,
        bubble,
        peakMemory,
        columnsEnd
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit PlanTableModel(QObject *parent = nullptr);

    // `experts`: the model has experts, so that E is shown even where every layout keeps E = 1.
    void setCandidates(std::vector<core::PlanCandidate> candidates, bool experts = false);
    // Whether the table shows a column: C only when a candidate splits sequences (C > 1), E
    // only for a model with experts or a candidate that spreads them, whether the split counts
    // the ends only when a candidate has a pipeline (K > 1); every other column always.
    bool isColumnShown(int column) const;
    const std::vector<core::PlanCandidate> &candidates() const { return m_candidates; }
    const core::PlanCandidate &candidate(int row) const;

    // Results for inputs that have changed since: drawn in the disabled text colour.
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    // The layout now in the explorer: its row, if it has one, is drawn in bold.
    void setLoaded(const std::optional<core::PlanCandidate> &layout);
    // The window switched between GB and GiB: the memory column and its header follow.
    void unitsChanged();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const core::PlanCandidate &c, int column) const;
    QVariant number(const core::PlanCandidate &c, int row, int column) const;
    QString rowTooltip(const core::PlanCandidate &c) const;

    std::vector<core::PlanCandidate> m_candidates;
    std::optional<core::PlanCandidate> m_loaded;
    bool m_stale = false;
    bool m_experts = false;
};

} // namespace ui
