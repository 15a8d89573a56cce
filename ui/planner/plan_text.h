#pragma once

#include "core/planner.h"
#include "core/serving_plan.h"

#include <QString>
#include <QStringList>
#include <optional>

// How the planner's results read in the window: the words and numbers of the
// Planner panel's summary, messages and table, kept out of the widgets so that
// tests can check them directly.
namespace ui::plan_text {

// "none", "selective", "full".
QString recompute(core::Recompute recompute);
// The same for a layout, with the modules a selective one reruns when they are not the
// attention core alone: "selective (mla_up_proj moe_act)".
QString recompute(const core::PlanLayout &layout);
// "12.3 s", "850 ms".
QString duration(double seconds);
// A step time in seconds, precise enough to tell the top candidates apart.
QString stepSeconds(double seconds);

// "8,745 activations, 975 optimizer states, 3 global batch not divisible by D": most first.
QString rejected(const core::RejectionCounts &counts);
// One example of each reason, as rich text for a tooltip: "<p><b>optimizer states</b>, e.g.
// T=1 K=1 D=64, …: stage 0's weights, … most of it optimizer states</p>"; empty without any.
QString rejectionExamples(const core::RejectionCounts &counts);
// The reason most layouts were dropped for, with its count.
std::optional<std::pair<QString, qint64>> mostRejected(const core::RejectionCounts &counts);

// "64 devices, 32 sequences per step: 5,377 layouts considered — 978 evaluated in full, 247
// of them fit; 3,972 pruned; in 20 ms. Rejected: …". Only evaluated layouts are known to fit
// or not: a pruned one may fit too, it just cannot make the top.
QString summary(const core::PlanRequest &request, const core::PlanResult &result);
// What went wrong, when something did: the invalid field, or why nothing fits.
std::optional<QString> problem(const core::PlanRequest &request, const core::PlanResult &result);

// The deployment planner's summary: "Up to 64 devices: 560 replica shapes searched, 23 fit
// with 2 GiB free and meet the targets; 1,204 evaluations in 18 ms."
QString servingSummary(const core::ServingPlanRequest &request,
                       const core::ServingPlanResult &result);
// What went wrong, when something did: the invalid field, or that no shape of at most N
// devices will do and why most did not.
std::optional<QString> servingProblem(const core::ServingPlanRequest &request,
                                      const core::ServingPlanResult &result);

// The scenario fields, other than the layout the planner chooses, that differ between the
// scenario a plan was made for and the one now in the explorer: "model", "seq_len".
QStringList changedInputs(const core::Scenario &plannedFor, const core::Scenario &now);

// The layout fields of a scenario, as a candidate (no numbers).
core::PlanCandidate layoutOf(const core::Scenario &scenario);

} // namespace ui::plan_text
