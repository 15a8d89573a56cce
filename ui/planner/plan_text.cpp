#include "ui/planner/plan_text.h"

#include "core/fields.h"
#include "core/validate.h"
#include "io/plan_io.h"
#include "io/serving_plan_io.h"
#include "io/text.h"
#include "ui/scenario_document.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace ui::plan_text {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("PlanText", text);
}

} // namespace

QString recompute(core::Recompute r)
{
    return io::qs(core::toString(r));
}

QString recompute(const core::PlanLayout &l)
{
    if (l.recompute == core::Recompute::selective && l.recomputeModules != "core_attn")
        return QStringLiteral("selective (%1)").arg(io::qs(l.recomputeModules));
    if (const QString layers = io::recomputedLayersText(l); !layers.isEmpty())
        return QStringLiteral("full (%1)").arg(layers);
    if (const QString layers = io::offloadedLayersText(l); !layers.isEmpty())
        return QStringLiteral("%1 (%2 offloaded)").arg(recompute(l.recompute), layers);
    return recompute(l.recompute);
}

QString duration(double s)
{
    if (s < 1)
        return tr("%1 ms").arg(std::max(1.0, std::round(s * 1000)));
    return tr("%1 s").arg(s, 0, 'f', s < 10 ? 2 : 1);
}

QString stepSeconds(double s)
{
    return QString::number(s, 'f', s < 1 ? 4 : s < 100 ? 3 : 1);
}

QString rejected(const core::RejectionCounts &counts)
{
    QStringList parts;
    for (const auto &[reason, group] : core::rejectionsByCount(counts))
        parts << tr("%1 %2").arg(io::formatCount(group.count), io::qs(reason));
    return parts.join(QStringLiteral(", "));
}

QString rejectionExamples(const core::RejectionCounts &counts)
{
    QString text;
    for (const auto &[reason, group] : core::rejectionsByCount(counts))
        text +=
            tr("<p><b>%1</b>, e.g. %2: %3</p>")
                .arg(io::qs(reason).toHtmlEscaped(), io::layoutText(group.layout).toHtmlEscaped(),
                     io::qs(group.example).toHtmlEscaped());
    return text;
}

std::optional<std::pair<QString, qint64>> mostRejected(const core::RejectionCounts &counts)
{
    const auto sorted = core::rejectionsByCount(counts);
    if (sorted.empty())
        return std::nullopt;
    return std::make_pair(io::qs(sorted.front().first), qint64(sorted.front().second.count));
}

namespace {

// The device's rates every time of a search takes from an assumption, as a sentence after
// the summary's; nothing when every rate is measured.
QString assumedRatesText(const std::vector<std::string> &rates)
{
    QStringList assumed;
    for (const std::string &rate : rates)
        assumed << io::qs(rate);
    if (assumed.isEmpty())
        return {};
    return QLatin1Char(' ') + tr("Assumed, not measured on this device: %1 (docs/step_time.md, "
                                 "\"Device data\").")
                                  .arg(assumed.join(QStringLiteral("; ")));
}

} // namespace

QString summary(const core::PlanRequest &request, const core::PlanResult &r)
{
    QString text =
        tr("%1 devices, %2 sequences per step: %3 layouts considered, %4 fit with %5 GiB "
           "free — %6 evaluated in full, %7 pruned; in %8.")
            .arg(request.rank == core::PlanRank::time
                     ? io::formatCount(request.devices)
                     : tr("divisors of %1").arg(io::formatCount(request.devices)),
                 io::formatCount(request.globalBatch), io::formatCount(r.layouts),
                 io::formatCount(r.feasible), QString::number(request.headroomGib),
                 io::formatCount(r.evaluated), io::formatCount(r.pruned), duration(r.elapsedS));
    if (request.base.pipelineLayout == core::kParametersLayout)
        text += QLatin1Char(' ') + tr("Each K split by parameter count (DeepSpeed "
                                      "PipelineModule's partition_method='parameters').");
    if (request.rank != core::PlanRank::time)
        text += QLatin1Char(' ') + tr("Ranked by %1.").arg(io::rankText(request.rank));
    if (!r.rejected.empty())
        text += QLatin1Char(' ') + tr("Rejected: %1.").arg(rejected(r.rejected));
    return text + assumedRatesText(r.assumedRates);
}

std::optional<QString> problem(const core::PlanRequest &request, const core::PlanResult &r)
{
    if (r.error)
        return tr("Cannot plan — %1.").arg(io::qs(r.error->toString()));
    if (r.feasible > 0)
        return std::nullopt;
    const auto most = mostRejected(r.rejected);
    QString text =
        most ? tr("No layout of %1 devices fits: most were rejected for %2 (%3 of %4 layouts).")
                   .arg(io::formatCount(request.devices), most->first,
                        io::formatCount(most->second), io::formatCount(r.layouts))
             : tr("No layout of %1 devices fits.").arg(io::formatCount(request.devices));
    if (r.smallestFittingDevices && r.smallestFittingLayout)
        text += QLatin1Char(' ') + tr("The smallest device count with a layout that fits: %1 "
                                      "(%2).")
                                       .arg(io::formatCount(*r.smallestFittingDevices),
                                            io::layoutText(*r.smallestFittingLayout));
    else if (r.smallestSearched)
        text += QLatin1Char(' ') + tr("No device count up to %1 has one.")
                                       .arg(io::formatCount(core::limits::kPlanDevices));
    return text;
}

QString servingSummary(const core::ServingPlanRequest &request, const core::ServingPlanResult &r)
{
    const bool targets = !io::servingTargetsText(request).isEmpty();
    return tr("Up to %1 %2: %3 replica %4 searched, %5 fit with %6 GiB free%7; %8 evaluations "
              "in %9.")
               .arg(io::formatCount(request.devices),
                    request.devices == 1 ? tr("device") : tr("devices"), io::formatCount(r.shapes),
                    r.shapes == 1 ? tr("shape") : tr("shapes"), io::formatCount(r.feasible),
                    QString::number(request.headroomGib),
                    targets ? tr(" and meet the targets") : QString(),
                    io::formatCount(r.evaluations), duration(r.elapsedS)) +
           assumedRatesText(r.assumedRates);
}

std::optional<QString> servingProblem(const core::ServingPlanRequest &request,
                                      const core::ServingPlanResult &r)
{
    if (r.error)
        return tr("Cannot plan — %1.").arg(io::qs(r.error->toString()));
    if (r.feasible > 0)
        return std::nullopt;
    const bool targets = !io::servingTargetsText(request).isEmpty();
    const auto most = mostRejected(r.rejected);
    const QString none = tr("No replica shape of at most %1 devices fits%2")
                             .arg(io::formatCount(request.devices),
                                  targets ? tr(" and meets the targets") : QString());
    return most ? tr("%1: most were rejected for %2 (%3 of %4 shapes).")
                      .arg(none, most->first, io::formatCount(most->second),
                           io::formatCount(r.shapes))
                : none + QLatin1Char('.');
}

QStringList changedInputs(const core::Scenario &plannedFor, const core::Scenario &now)
{
    // The planner replaces the layout: only the rest of the scenario can make a plan stale.
    // Both sides take the same layout, which also drops a pipeline_layout the planner ignores
    // (PlanLayout::applyTo), so that a base scenario with one is not stale from the start.
    const core::PlanCandidate layout = layoutOf(plannedFor);
    const FieldMask changed = FieldMask::between(layout.apply(plannedFor), layout.apply(now));
    QStringList keys;
    for (const core::FieldInfo &field : core::scenarioFields()) {
        const QString key = io::qs(field.key);
        if (changed.contains(key))
            keys << key;
    }
    return keys;
}

core::PlanCandidate layoutOf(const core::Scenario &s)
{
    core::PlanCandidate c;
    c.PlanLayout::operator=(core::PlanLayout::of(s));
    return c;
}

} // namespace ui::plan_text
