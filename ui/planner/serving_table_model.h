#pragma once

#include "core/planner.h"
#include "core/serving_plan.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace ui {

// The deployment planner's candidates as a table: one row per replica shape at its batch,
// most tokens per second per device first. Every cell also gives its number under SortRole
// (PlanTableModel's), so that a sort proxy orders 9.5 before 10.2 rather than as text. A
// shape whose links publish no bandwidth shows bounds ("≥ 562.31" ms, "≤ 14" tokens/s),
// sorted by the bound; one without any time shows "—", sorted after every number.
class ServingTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        rank,
        tokensPerSPerDevice,
        tokensPerS,
        tpot,
        ttft,
        peakMemory,
        bound,
        limit,
        layout,
        columnsEnd
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit ServingTableModel(QObject *parent = nullptr);

    void setCandidates(std::vector<core::ServingCandidate> candidates);
    const std::vector<core::ServingCandidate> &candidates() const { return m_candidates; }
    const core::ServingCandidate &candidate(int row) const;

    // Results for inputs that have changed since: drawn in the disabled text colour.
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    // The layout now in the explorer: its row, if it has one, is drawn in bold.
    void setLoaded(const core::PlanLayout &layout);
    // The window switched between GB and GiB: the memory column and its header follow.
    void unitsChanged();

    // Whether a candidate has times: exact, or lower bounds without a link's transfers.
    static bool hasTimes(const core::ServingCandidate &candidate);
    // The scenario keys a candidate's "load" sets, to compare with the explorer's.
    static core::PlanLayout layoutOf(const core::ServingCandidate &candidate);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const core::ServingCandidate &c, int row, int column) const;
    QVariant number(const core::ServingCandidate &c, int row, int column) const;
    QString rowTooltip(const core::ServingCandidate &c) const;
    bool isLoaded(const core::ServingCandidate &c) const;

    std::vector<core::ServingCandidate> m_candidates;
    std::optional<core::PlanLayout> m_loaded;
    bool m_stale = false;
};

} // namespace ui
