#include "io/shard_io.h"

#include "io/text.h"

#include <QJsonArray>
#include <QTextStream>

namespace io {

namespace {

QJsonObject shapeToJson(const core::FfnShape &shape)
{
    QJsonObject o;
    o.insert(QStringLiteral("hidden"), qint64(shape.hidden));
    o.insert(QStringLiteral("ffn"), qint64(shape.ffn));
    o.insert(QStringLiteral("tokens"), qint64(shape.tokens));
    return o;
}

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QString seconds(double s)
{
    return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 3);
}

} // namespace

QString strategyName(const core::StrategyReport &strategy)
{
    return qs(core::toString(strategy.w1)) + QLatin1Char('-') + qs(core::toString(strategy.w2));
}

QJsonObject shardToJson(const core::ShardReport &r, const QString &deviceId)
{
    QJsonArray strategies;
    for (const auto &s : r.strategies) {
        QJsonObject counts;
        counts.insert(QStringLiteral("all_reduce"), s.counts.allReduce);
        counts.insert(QStringLiteral("all_gather"), s.counts.allGather);
        counts.insert(QStringLiteral("reduce_scatter"), s.counts.reduceScatter);
        QJsonArray calls;
        for (const auto &c : s.collectives) {
            QJsonObject call;
            call.insert(QStringLiteral("kind"), qs(core::toString(c.kind)));
            call.insert(QStringLiteral("values"), qint64(c.values));
            call.insert(QStringLiteral("payload_bytes"), qint64(c.payloadBytes));
            calls.append(call);
        }
        QJsonObject o;
        o.insert(QStringLiteral("name"), strategyName(s));
        o.insert(QStringLiteral("w1_split"), qs(core::toString(s.w1)));
        o.insert(QStringLiteral("w2_split"), qs(core::toString(s.w2)));
        o.insert(QStringLiteral("collectives"), counts);
        o.insert(QStringLiteral("calls"), calls);
        o.insert(QStringLiteral("payload_bytes"), qint64(s.payloadBytes));
        o.insert(QStringLiteral("wire_bytes_per_device"), s.wireBytesPerDevice);
        o.insert(QStringLiteral("compute_s"), s.computeS);
        o.insert(QStringLiteral("comm_s"), s.commS);
        o.insert(QStringLiteral("total_s"), s.totalS);
        o.insert(QStringLiteral("max_abs_error"), optionalNumber(s.maxAbsError));
        o.insert(QStringLiteral("max_rel_error"), optionalNumber(s.maxRelError));
        strategies.append(o);
    }
    const bool verified = r.verify != core::Verify::off;
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kShardFormat));
    root.insert(QStringLiteral("version"), kShardVersion);
    root.insert(QStringLiteral("device"), deviceId);
    root.insert(QStringLiteral("precision"), qs(core::toString(r.precision)));
    root.insert(QStringLiteral("tp"), r.tp);
    root.insert(QStringLiteral("matmul_efficiency"), r.matmulEfficiency);
    root.insert(QStringLiteral("mfu_forced"), r.mfuForced);
    root.insert(QStringLiteral("requested"), shapeToJson(r.requested));
    const bool executed = verified && r.checkNotRun.empty();
    root.insert(QStringLiteral("executed"),
                executed ? QJsonValue(shapeToJson(r.executed)) : QJsonValue(QJsonValue::Null));
    if (!r.checkNotRun.empty())
        root.insert(QStringLiteral("check_not_run"), qs(r.checkNotRun));
    root.insert(QStringLiteral("verify"), qs(core::toString(r.verify)));
    root.insert(QStringLiteral("link"), qs(core::toString(r.link.kind)));
    root.insert(QStringLiteral("link_gb_per_s"), r.link.gbPerS);
    root.insert(QStringLiteral("step_latency_s"), r.link.stepLatencyS);
    root.insert(QStringLiteral("strategies"), strategies);
    root.insert(QStringLiteral("best"),
                strategyName(r.strategies.at(static_cast<qsizetype>(r.best))));
    root.insert(QStringLiteral("worst"),
                strategyName(r.strategies.at(static_cast<qsizetype>(r.worst))));
    root.insert(QStringLiteral("speedup_best_over_worst"), r.speedupBestOverWorst);
    return root;
}

QString shardToText(const core::ShardReport &r, const QString &deviceName)
{
    QString out;
    QTextStream s(&out);
    s << QStringLiteral("Feed-forward block Y = act(X·W1)·W2, h=%1, f=%2, tokens=%3, T=%4\n")
             .arg(r.requested.hidden)
             .arg(r.requested.ffn)
             .arg(r.requested.tokens)
             .arg(r.tp);
    s << QStringLiteral("%1, %2 activations, %3 link at %4 GB/s per direction\n")
             .arg(deviceName, qs(core::toString(r.precision)), qs(core::toString(r.link.kind)))
             .arg(r.link.gbPerS);
    s << QStringLiteral("Multiplies at %1 of the peak (%2)\n")
             .arg(r.matmulEfficiency, 0, 'g', 3)
             .arg(r.mfuForced ? QStringLiteral("--mfu")
                              : QStringLiteral("the device's matrix-multiply efficiency"));
    if (r.verify == core::Verify::off)
        s << QStringLiteral("Numerical check: off\n");
    else if (!r.checkNotRun.empty())
        s << QStringLiteral("Numerical check: not run, because %1\n").arg(qs(r.checkNotRun));
    else
        s << QStringLiteral("Numerical check at h=%1, f=%2, tokens=%3 (%4)\n")
                 .arg(r.executed.hidden)
                 .arg(r.executed.ffn)
                 .arg(r.executed.tokens)
                 .arg(r.executed == r.requested ? QStringLiteral("full size")
                                                : QStringLiteral("reduced size"));
    s << QStringLiteral("\nW1 -> W2          AR  AG  RS      Payload   Wire/device      Compute"
                        "         Comm        Total   Max rel error\n");
    for (const auto &st : r.strategies) {
        s << QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9  %10\n")
                 .arg(strategyName(st), -15)
                 .arg(st.counts.allReduce, 2)
                 .arg(st.counts.allGather, 2)
                 .arg(st.counts.reduceScatter, 2)
                 .arg(formatBytes(static_cast<double>(st.payloadBytes), SizeUnit::gb, 3), 11)
                 .arg(formatBytes(st.wireBytesPerDevice, SizeUnit::gb, 3), 12)
                 .arg(seconds(st.computeS), 11)
                 .arg(seconds(st.commS), 11)
                 .arg(seconds(st.totalS), 11)
                 .arg(st.maxRelError ? QString::number(*st.maxRelError, 'e', 2)
                                     : QStringLiteral("-"),
                      14);
    }
    s << QStringLiteral("\nBest %1, worst %2: %3x faster\n")
             .arg(strategyName(r.strategies.at(static_cast<qsizetype>(r.best))),
                  strategyName(r.strategies.at(static_cast<qsizetype>(r.worst))))
             .arg(r.speedupBestOverWorst, 0, 'f', 2);
    return out;
}

} // namespace io
