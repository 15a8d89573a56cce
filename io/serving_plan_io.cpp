#include "io/serving_plan_io.h"

#include "io/text.h"

#include <QJsonArray>
#include <QTextStream>
#include <cmath>

namespace io {

namespace {

QJsonValue optional(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QJsonObject candidateToJson(const core::ServingCandidate &c, int rank)
{
    QJsonObject o;
    if (rank > 0)
        o.insert(QStringLiteral("rank"), rank);
    o.insert(QStringLiteral("tp"), c.tp);
    o.insert(QStringLiteral("pp"), c.pp);
    o.insert(QStringLiteral("dp"), c.replicas);
    o.insert(QStringLiteral("microbatches"), c.microbatches);
    o.insert(QStringLiteral("microbatch_size"), c.microbatchSize);
    o.insert(QStringLiteral("batch"), static_cast<qint64>(c.batch));
    o.insert(QStringLiteral("devices_per_replica"), c.devicesPerReplica());
    o.insert(QStringLiteral("devices"), c.devices());
    o.insert(QStringLiteral("timed"), c.timed);
    // Times without a link's transfers are lower bounds (rates upper bounds), marked so.
    o.insert(QStringLiteral("link_time_excluded"), c.linkTimeExcluded);
    const bool hasTimes = c.timed || c.linkTimeExcluded;
    const auto timed = [hasTimes](double value) {
        return hasTimes ? QJsonValue(value) : QJsonValue();
    };
    o.insert(QStringLiteral("time_to_first_token_s"), timed(c.ttftS));
    o.insert(QStringLiteral("time_per_output_token_s"), timed(c.tpotS));
    o.insert(QStringLiteral("latency_s"), timed(c.latencyS));
    o.insert(QStringLiteral("tokens_per_s_per_replica"), timed(c.tokensPerSPerReplica));
    o.insert(QStringLiteral("tokens_per_s"), timed(c.tokensPerS()));
    o.insert(QStringLiteral("tokens_per_s_per_device"), timed(c.tokensPerSPerDevice));
    o.insert(QStringLiteral("joules_per_million_tokens"), c.timed && c.joulesPerMillionTokens > 0
                                                              ? QJsonValue(c.joulesPerMillionTokens)
                                                              : QJsonValue());
    o.insert(QStringLiteral("memory_bound"), timed(c.memoryBound));
    o.insert(QStringLiteral("peak_stage_bytes"), static_cast<qint64>(c.peakStageBytes));
    o.insert(QStringLiteral("batch_limited_by"), qs(core::toString(c.limit)));
    return o;
}

// "7.9 ms", "20 ms", "5000 ms": three significant digits, never an exponent.
QString ms(double seconds)
{
    const double milliseconds = seconds * 1e3;
    if (milliseconds >= 100)
        return QStringLiteral("%1 ms").arg(milliseconds, 0, 'f', 0);
    return QStringLiteral("%1 ms").arg(milliseconds, 0, 'g', 3);
}

} // namespace

QString servingShapeText(const core::ServingCandidate &c)
{
    return QStringLiteral("T=%1 K=%2 D=%3, batch %4 (b=%5 m=%6)")
        .arg(c.tp)
        .arg(c.pp)
        .arg(c.replicas)
        .arg(formatCount(c.batch))
        .arg(c.microbatchSize)
        .arg(c.microbatches);
}

QString servingTargetsText(const core::ServingPlanRequest &request)
{
    QStringList parts;
    if (request.tpotTargetS)
        parts << QStringLiteral("%1 per output token").arg(ms(*request.tpotTargetS));
    if (request.ttftTargetS)
        parts << QStringLiteral("%1 to the first token").arg(ms(*request.ttftTargetS));
    QString text;
    if (!parts.isEmpty())
        text = QStringLiteral("at most ") + parts.join(QStringLiteral(" and "));
    if (request.tokensPerSTarget)
        text += (text.isEmpty() ? QString() : QStringLiteral(", ")) +
                QStringLiteral("%1 output tokens/s in all")
                    .arg(formatCount(std::llround(*request.tokensPerSTarget)));
    return text;
}

QString smallestText(const core::ServingPlanRequest &request, const core::ServingPlanResult &result)
{
    const QString meeting = servingTargetsText(request).isEmpty()
                                ? QString()
                                : QStringLiteral(" and meets the targets");
    if (!result.smallest)
        return QStringLiteral("No replica shape fits%1 with %2 GiB free per device, however many "
                              "devices it takes (T up to the heads, K up to the layers).")
            .arg(meeting)
            .arg(request.headroomGib);
    const core::ServingCandidate &c = *result.smallest;
    QString text =
        QStringLiteral("The smallest deployment that fits%1: %2 %3 per replica (T=%4 "
                       "K=%5)")
            .arg(meeting, formatCount(c.devicesPerReplica()),
                 c.devicesPerReplica() == 1 ? QStringLiteral("device") : QStringLiteral("devices"))
            .arg(c.tp)
            .arg(c.pp);
    if (c.timed)
        text += QStringLiteral(", %1 sequences at %2 per output token")
                    .arg(formatCount(c.batch), ms(c.tpotS));
    else if (c.linkTimeExcluded)
        text += QStringLiteral(", up to %1 sequences at no less than %2 per output token (a link "
                               "it needs publishes no bandwidth, so its transfers are left out)")
                    .arg(formatCount(c.batch), ms(c.tpotS));
    else
        text += QStringLiteral(", up to %1 sequences; not timed").arg(formatCount(c.batch));
    if (result.smallestBeyondDevices)
        text +=
            QStringLiteral(", more than the %1 devices searched").arg(formatCount(request.devices));
    return text + QLatin1Char('.');
}

QStringList servingRejectionsText(const core::RejectionCounts &rejected)
{
    QStringList lines;
    for (const auto &[reason, group] : core::rejectionsByCount(rejected))
        lines << QStringLiteral("%1 %2; e.g. %3")
                     .arg(formatCount(group.count), qs(reason), qs(group.example));
    return lines;
}

QJsonObject servingPlanToJson(const core::ServingPlanRequest &request,
                              const core::ServingPlanResult &result, const QString &modelId,
                              const QString &deviceId)
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kServingPlanFormat));
    root.insert(QStringLiteral("version"), kServingPlanVersion);
    root.insert(QStringLiteral("model"), modelId);
    root.insert(QStringLiteral("device"), deviceId);
    root.insert(QStringLiteral("precision"), qs(core::toString(request.base.precision)));
    root.insert(QStringLiteral("kv_precision"), qs(core::toString(request.base.kvPrecision)));
    root.insert(QStringLiteral("mode"), qs(core::toString(request.base.mode)));
    root.insert(QStringLiteral("prompt_tokens"), request.base.seqLen);
    root.insert(QStringLiteral("output_tokens"), request.base.outputLen);
    root.insert(QStringLiteral("devices"), request.devices);
    root.insert(QStringLiteral("tpot_target_s"), optional(request.tpotTargetS));
    root.insert(QStringLiteral("ttft_target_s"), optional(request.ttftTargetS));
    root.insert(QStringLiteral("tokens_per_s_target"), optional(request.tokensPerSTarget));
    root.insert(QStringLiteral("headroom_gib"), request.headroomGib);
    root.insert(QStringLiteral("shapes"), static_cast<qint64>(result.shapes));
    root.insert(QStringLiteral("feasible"), static_cast<qint64>(result.feasible));
    root.insert(QStringLiteral("evaluations"), static_cast<qint64>(result.evaluations));
    root.insert(QStringLiteral("elapsed_s"), result.elapsedS);
    QJsonArray assumed;
    for (const std::string &rate : result.assumedRates)
        assumed.append(qs(rate));
    root.insert(QStringLiteral("assumed_rates"), assumed);
    QJsonObject rejected;
    QJsonObject examples;
    for (const auto &[reason, group] : result.rejected) {
        rejected.insert(qs(reason), static_cast<qint64>(group.count));
        examples.insert(qs(reason), qs(group.example));
    }
    root.insert(QStringLiteral("rejected"), rejected);
    root.insert(QStringLiteral("rejected_examples"), examples);
    QJsonArray candidates;
    int rank = 1;
    for (const auto &c : result.candidates)
        candidates.append(candidateToJson(c, rank++));
    root.insert(QStringLiteral("candidates"), candidates);
    root.insert(QStringLiteral("smallest"),
                result.smallest ? QJsonValue(candidateToJson(*result.smallest, 0)) : QJsonValue());
    root.insert(QStringLiteral("smallest_beyond_devices"), result.smallestBeyondDevices);
    return root;
}

QString servingPlanToText(const core::ServingPlanRequest &request,
                          const core::ServingPlanResult &result, const QString &modelName,
                          const QString &deviceName)
{
    QString out;
    QTextStream s(&out);
    const core::Scenario &b = request.base;
    s << QStringLiteral("%1 serving on up to %2 × %3, %4 weights, KV cache %5; prompts of %6 "
                        "tokens, %7 generated\n")
             .arg(modelName, formatCount(request.devices), deviceName,
                  qs(core::toString(b.precision)), qs(core::toString(b.kvPrecision)),
                  formatCount(b.seqLen), formatCount(b.outputLen));
    const QString targets = servingTargetsText(request);
    s << QStringLiteral("Targets         %1\n")
             .arg(targets.isEmpty() ? QStringLiteral("none: the largest batch that fits")
                                    : targets);
    s << QStringLiteral("Shapes          %1 replica shapes T × K: %2 fit with %3 GiB free per "
                        "device%4, %5 rejected; %6 evaluations, %7 ms\n")
             .arg(formatCount(result.shapes), formatCount(result.feasible))
             .arg(request.headroomGib)
             .arg(targets.isEmpty() ? QString() : QStringLiteral(" and meet the targets"))
             .arg(formatCount(result.shapes - result.feasible), formatCount(result.evaluations))
             .arg(result.elapsedS * 1e3, 0, 'f', 0);
    const QStringList rejected = servingRejectionsText(result.rejected);
    for (qsizetype i = 0; i < rejected.size(); ++i)
        s << (i == 0 ? QStringLiteral("Rejected        ") : QString(16, QLatin1Char(' ')))
          << rejected.at(i) << '\n';
    // The device's rates a time takes from an assumption (docs/step_time.md, "Device data").
    s << assumedRatesLines(result.assumedRates);
    s << smallestText(request, result) << '\n';
    if (result.candidates.empty())
        return out;
    s << QStringLiteral("\n%1  %2  %3  %4  %5  %6  %7  %8  %9\n")
             .arg(QStringLiteral("#"), 3)
             .arg(QStringLiteral("tok/s/dev"), 9)
             .arg(QStringLiteral("tok/s"), 9)
             .arg(QStringLiteral("TPOT ms"), 8)
             .arg(QStringLiteral("TTFT ms"), 8)
             .arg(QStringLiteral("peak"), 9)
             .arg(QStringLiteral("bound"), 7)
             .arg(QStringLiteral("batch limited by"), -28)
             .arg(QStringLiteral("layout"));
    int rank = 1;
    for (const auto &c : result.candidates) {
        // Exact, a bound ("≥ 35.65" for a time, "≤ 27" for a rate) or unknown ("—").
        const bool bound = !c.timed && c.linkTimeExcluded;
        const auto cell = [&](const QString &value, const QString &boundSign, int width) {
            if (c.timed)
                return QStringLiteral("%1").arg(value, width);
            return QStringLiteral("%1").arg(bound ? boundSign + value : QStringLiteral("—"), width);
        };
        const QString atLeast = QStringLiteral("≥");
        const QString atMost = QStringLiteral("≤");
        s << QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9\n")
                 .arg(rank++, 3)
                 .arg(cell(formatCount(std::llround(c.tokensPerSPerDevice)), atMost, 9))
                 .arg(cell(formatCount(std::llround(c.tokensPerS())), atMost, 9))
                 .arg(cell(QString::number(c.tpotS * 1e3, 'f', 2), atLeast, 8))
                 .arg(cell(QString::number(c.ttftS * 1e3, 'f', 0), atLeast, 8))
                 .arg(formatBytes(static_cast<double>(c.peakStageBytes)), 9)
                 .arg(cell(c.memoryBound ? QStringLiteral("memory") : QStringLiteral("compute"),
                           QString(), 7))
                 .arg(qs(core::toString(c.limit)), -28)
                 .arg(servingShapeText(c));
    }
    return out;
}

DataTable servingPlanTable(const std::vector<core::ServingCandidate> &candidates)
{
    DataTable table;
    table.title = QStringLiteral("Deployment candidates");
    table.columns << DataColumn{QStringLiteral("rank"), {}} << DataColumn{QStringLiteral("tp"), {}}
                  << DataColumn{QStringLiteral("pp"), {}} << DataColumn{QStringLiteral("dp"), {}}
                  << DataColumn{QStringLiteral("microbatches"), {}}
                  << DataColumn{QStringLiteral("microbatch_size"), {}}
                  << DataColumn{QStringLiteral("batch"), QStringLiteral("sequences")}
                  << DataColumn{QStringLiteral("time to first token"), QStringLiteral("s")}
                  << DataColumn{QStringLiteral("time per output token"), QStringLiteral("s")}
                  << DataColumn{QStringLiteral("tokens per second"), QStringLiteral("tokens/s")}
                  << DataColumn{QStringLiteral("tokens per second per device"),
                                QStringLiteral("tokens/s")}
                  << DataColumn{QStringLiteral("peak stage memory"), QStringLiteral("bytes")}
                  << DataColumn{QStringLiteral("energy"), QStringLiteral("J/Mtoken")}
                  << DataColumn{QStringLiteral("batch limited by"), {}}
                  << DataColumn{QStringLiteral("link time excluded"), {}};
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const core::ServingCandidate &c = candidates[i];
        // Lower bounds when a link's time is left out (the column "link time excluded" says so).
        const auto timed = [&c](double v) {
            return c.timed || c.linkTimeExcluded ? DataValue(v) : DataValue();
        };
        QList<DataValue> row{qint64(i + 1),      qint64(c.tp),           qint64(c.pp),
                             qint64(c.replicas), qint64(c.microbatches), qint64(c.microbatchSize),
                             qint64(c.batch)};
        row << timed(c.ttftS) << timed(c.tpotS) << timed(c.tokensPerS())
            << timed(c.tokensPerSPerDevice) << qint64(c.peakStageBytes)
            << (c.joulesPerMillionTokens > 0 ? timed(c.joulesPerMillionTokens) : DataValue())
            << qs(core::toString(c.limit))
            << (c.linkTimeExcluded ? QStringLiteral("true") : QStringLiteral("false"));
        table.rows << row;
    }
    return table;
}

} // namespace io
