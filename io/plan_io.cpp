#include "io/plan_io.h"

#include "io/report_io.h"
#include "io/text.h"

#include <QJsonArray>
#include <QTextStream>

namespace io {

namespace {

QJsonValue layoutValue(int value)
{
    return value;
}
QJsonValue layoutValue(bool value)
{
    return value;
}
template <typename E> QJsonValue layoutValue(E value)
{
    return qs(core::toString(value));
}

// Every layout key under its scenario key, as a scenario file writes it.
QJsonObject layoutToJson(const core::PlanLayout &l)
{
    QJsonObject o;
    core::forEachLayoutField([&](const auto &field) {
        o.insert(qs(std::string(field.key)), layoutValue(l.*field.layout));
    });
    return o;
}

QJsonObject candidateToJson(const core::PlanCandidate &c, int rank)
{
    QJsonObject o = layoutToJson(c);
    o.insert(QStringLiteral("rank"), rank);
    o.insert(QStringLiteral("step_time_s"), c.stepTimeS);
    o.insert(QStringLiteral("tokens_per_s"), c.tokensPerS);
    o.insert(QStringLiteral("mfu_achieved"), c.mfuAchieved);
    o.insert(QStringLiteral("bubble_fraction"), c.bubbleFraction);
    o.insert(QStringLiteral("peak_stage_bytes"), static_cast<qint64>(c.peakStageBytes));
    o.insert(QStringLiteral("fits"), c.fits);
    o.insert(QStringLiteral("time_breakdown"), timeBreakdownToJson(c.breakdown));
    return o;
}

} // namespace

QString scheduleText(const core::PlanLayout &l)
{
    const QString name = qs(core::toString(l.schedule));
    if (l.schedule == core::Schedule::interleaved)
        return QStringLiteral("%1 v=%2").arg(name).arg(l.virtualStages);
    return name;
}

QString layoutText(const core::PlanLayout &l)
{
    QString text = QStringLiteral("T=%1 K=%2 D=%3, ZeRO %4, %5, b=%6 m=%7")
                       .arg(l.tp)
                       .arg(l.pp)
                       .arg(l.dp)
                       .arg(l.zero)
                       .arg(scheduleText(l))
                       .arg(l.microbatchSize)
                       .arg(l.microbatches);
    if (l.recompute != core::Recompute::none)
        text += QStringLiteral(", %1 recompute").arg(qs(core::toString(l.recompute)));
    if (l.sequenceParallel)
        text += QStringLiteral(", SP");
    return text;
}

QStringList rejectionsText(const core::RejectionCounts &rejected)
{
    QStringList lines;
    for (const auto &[reason, group] : core::rejectionsByCount(rejected))
        lines << QStringLiteral("%1 %2; e.g. %3: %4")
                     .arg(formatCount(group.count), qs(reason), layoutText(group.layout),
                          qs(group.example));
    return lines;
}

QJsonObject planToJson(const core::PlanRequest &request, const core::PlanResult &result,
                       const QString &modelId, const QString &deviceId)
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kPlanFormat));
    root.insert(QStringLiteral("version"), kPlanVersion);
    root.insert(QStringLiteral("model"), modelId);
    root.insert(QStringLiteral("device"), deviceId);
    root.insert(QStringLiteral("precision"), qs(core::toString(request.base.precision)));
    root.insert(QStringLiteral("mode"), qs(core::toString(request.base.mode)));
    root.insert(QStringLiteral("seq_len"), request.base.seqLen);
    root.insert(QStringLiteral("devices"), request.devices);
    root.insert(QStringLiteral("global_batch"), request.globalBatch);
    root.insert(QStringLiteral("distinct"), request.distinct);
    root.insert(QStringLiteral("layouts"), static_cast<qint64>(result.layouts));
    root.insert(QStringLiteral("evaluated"), static_cast<qint64>(result.evaluated));
    root.insert(QStringLiteral("pruned"), static_cast<qint64>(result.pruned));
    root.insert(QStringLiteral("feasible"), static_cast<qint64>(result.feasible));
    root.insert(QStringLiteral("elapsed_s"), result.elapsedS);
    // Counts by reason, and one example of each: the layout and its message.
    QJsonObject rejected;
    QJsonObject examples;
    for (const auto &[reason, group] : result.rejected) {
        rejected.insert(qs(reason), static_cast<qint64>(group.count));
        QJsonObject example = layoutToJson(group.layout);
        example.insert(QStringLiteral("message"), qs(group.example));
        examples.insert(qs(reason), example);
    }
    root.insert(QStringLiteral("rejected"), rejected);
    root.insert(QStringLiteral("rejected_examples"), examples);
    QJsonArray candidates;
    int rank = 1;
    for (const auto &c : result.candidates)
        candidates.append(candidateToJson(c, rank++));
    root.insert(QStringLiteral("candidates"), candidates);
    return root;
}

QString planToText(const core::PlanRequest &request, const core::PlanResult &result,
                   const QString &modelName, const QString &deviceName)
{
    QString out;
    QTextStream s(&out);
    s << QStringLiteral("%1 on %2 × %3, %4 %5, global batch %6 × %7 tokens\n")
             .arg(modelName, formatCount(request.devices), deviceName,
                  qs(core::toString(request.base.precision)), qs(core::toString(request.base.mode)),
                  formatCount(request.globalBatch))
             .arg(request.base.seqLen);
    s << QStringLiteral("Layouts         %1 considered, %2 evaluated, %3 pruned by a step-time "
                        "bound, %4 fit; %5 ms\n")
             .arg(formatCount(result.layouts), formatCount(result.evaluated),
                  formatCount(result.pruned), formatCount(result.feasible))
             .arg(result.elapsedS * 1e3, 0, 'f', 0);
    const QStringList rejected = rejectionsText(result.rejected);
    for (qsizetype i = 0; i < rejected.size(); ++i)
        s << (i == 0 ? QStringLiteral("Rejected        ") : QString(16, QLatin1Char(' ')))
          << rejected.at(i) << '\n';
    if (request.distinct)
        s << QStringLiteral("Listed          the fastest layout of each T, K, D, schedule and "
                            "micro-batch size\n");
    if (result.candidates.empty()) {
        s << QStringLiteral("No layout of %1 devices fits.\n").arg(formatCount(request.devices));
        return out;
    }
    s << QStringLiteral("\n%1  %2  %3  %4  %5  %6\n")
             .arg(QStringLiteral("#"), 3)
             .arg(QStringLiteral("step s"), 8)
             .arg(QStringLiteral("tokens/s"), 10)
             .arg(QStringLiteral("MFU"), 6)
             .arg(QStringLiteral("peak"), 9)
             .arg(QStringLiteral("layout"));
    int rank = 1;
    for (const auto &c : result.candidates)
        s << QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                 .arg(rank++, 3)
                 .arg(c.stepTimeS, 8, 'f', 3)
                 .arg(c.tokensPerS, 10, 'f', 0)
                 .arg(QStringLiteral("%1 %").arg(100 * c.mfuAchieved, 0, 'f', 1), 6)
                 .arg(formatBytes(static_cast<double>(c.peakStageBytes)), 9)
                 .arg(layoutText(c));
    return out;
}

} // namespace io
