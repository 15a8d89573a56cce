#include "ui/planner/plan_text.h"

#include "core/fields.h"
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

std::vector<std::pair<std::string, std::int64_t>> byCount(const core::RejectionCounts &counts)
{
    std::vector<std::pair<std::string, std::int64_t>> sorted;
    for (const auto &[reason, group] : counts)
        sorted.emplace_back(reason, group.count);
    // Most first; ties in the map's (alphabetical) order, so the line never changes by chance.
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    return sorted;
}

} // namespace

QString schedule(const core::PlanCandidate &c)
{
    const QString name = io::qs(core::toString(c.schedule));
    if (c.schedule == core::Schedule::interleaved)
        return tr("%1 v=%2").arg(name).arg(c.virtualStages);
    return name;
}

QString recompute(core::Recompute r)
{
    return io::qs(core::toString(r));
}

QString layout(const core::PlanCandidate &c)
{
    QString text = tr("T=%1 K=%2 D=%3, ZeRO %4, %5, b=%6 m=%7")
                       .arg(c.tp)
                       .arg(c.pp)
                       .arg(c.dp)
                       .arg(c.zero)
                       .arg(schedule(c))
                       .arg(c.microbatchSize)
                       .arg(c.microbatches);
    if (c.recompute != core::Recompute::none)
        text += tr(", %1 recompute").arg(recompute(c.recompute));
    if (c.sequenceParallel)
        text += tr(", SP");
    return text;
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
    for (const auto &[reason, count] : byCount(counts))
        parts << tr("%1 %2").arg(io::formatCount(count), io::qs(reason));
    return parts.join(QStringLiteral(", "));
}

QString rejectionExamples(const core::RejectionCounts &counts)
{
    QString text;
    for (const auto &[reason, count] : byCount(counts)) {
        const core::RejectionGroup &group = counts.at(reason);
        core::PlanCandidate example;
        example.PlanLayout::operator=(group.layout);
        text += tr("<p><b>%1</b>, e.g. %2: %3</p>")
                    .arg(io::qs(reason).toHtmlEscaped(), layout(example).toHtmlEscaped(),
                         io::qs(group.example).toHtmlEscaped());
    }
    return text;
}

std::optional<std::pair<QString, qint64>> mostRejected(const core::RejectionCounts &counts)
{
    const auto sorted = byCount(counts);
    if (sorted.empty())
        return std::nullopt;
    return std::make_pair(io::qs(sorted.front().first), qint64(sorted.front().second));
}

QString summary(const core::PlanRequest &request, const core::PlanResult &r)
{
    QString text =
        tr("%1 devices, %2 sequences per step: %3 layouts considered — %4 evaluated "
           "in full, %5 of them fit; %6 pruned; in %7.")
            .arg(io::formatCount(request.devices), io::formatCount(request.globalBatch),
                 io::formatCount(r.layouts), io::formatCount(r.evaluated),
                 io::formatCount(r.feasible), io::formatCount(r.pruned), duration(r.elapsedS));
    if (!r.rejected.empty())
        text += QLatin1Char(' ') + tr("Rejected: %1.").arg(rejected(r.rejected));
    return text;
}

std::optional<QString> problem(const core::PlanRequest &request, const core::PlanResult &r)
{
    if (r.error)
        return tr("Cannot plan — %1.").arg(io::qs(r.error->toString()));
    if (r.feasible > 0)
        return std::nullopt;
    const auto most = mostRejected(r.rejected);
    if (!most)
        return tr("No layout of %1 devices fits.").arg(io::formatCount(request.devices));
    return tr("No layout of %1 devices fits: most were rejected for %2 (%3 of %4 layouts).")
        .arg(io::formatCount(request.devices), most->first, io::formatCount(most->second),
             io::formatCount(r.layouts));
}

QStringList changedInputs(const core::Scenario &plannedFor, const core::Scenario &now)
{
    // The planner replaces the layout: only the rest of the scenario can make a plan stale.
    const FieldMask changed = FieldMask::between(plannedFor, layoutOf(plannedFor).apply(now));
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
