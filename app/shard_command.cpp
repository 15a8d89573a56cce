#include "app/shard_command.h"

#include "app/cli.h"
#include "app/command_line.h"
#include "core/precision.h"
#include "core/scenario.h"
#include "core/sharding.h"
#include "io/machine.h"
#include "io/presets_io.h"
#include "io/shard_io.h"
#include "io/shared_options.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QTextStream>

namespace cli {

namespace {

// The flag a core request field came from ("device.intra_node_gb_per_s" -> "--device").
QString flagFor(const std::string &key)
{
    const QString k = io::qs(key);
    if (k.startsWith(QLatin1String("device")))
        return QStringLiteral("--device");
    if (k == QLatin1String("inter_node_gb_per_s"))
        return QStringLiteral("--inter-node-gb-per-s");
    return QStringLiteral("--") + k;
}

// "fp32, bf16, fp16 or fp8": the precisions activations can take, those
// core::analyzeSharding accepts.
QString activationPrecisions()
{
    QStringList names;
    for (const auto &entry : core::enumNames(core::Precision{}))
        if (core::isActivationFormat(entry.value))
            names << io::qs(entry.name);
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") +
           names.constLast();
}

template <typename T> bool parseInteger(const QString &text, T &out)
{
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (!ok)
        return false;
    out = static_cast<T>(v);
    return static_cast<qlonglong>(out) == v;
}

} // namespace

int runShard(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Split the feed-forward block Y = act(X·W1)·W2 over T devices four ways: "
                       "collectives, bytes and times from the cost model, and a numerical check "
                       "of every split against the unsharded product."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    auto option = [&parser](const char *name, const char *help, const char *value,
                            const QString &fallback = {}) {
        QCommandLineOption o(QString::fromLatin1(name), QString::fromUtf8(help),
                             QString::fromLatin1(value), fallback);
        parser.addOption(o);
        return o;
    };
    const core::ShardRequest defaults;
    const auto hidden = option("hidden", "Hidden size h (columns of X).", "H");
    const auto ffn = option("ffn", "Feed-forward size f.", "F");
    const auto tp = option("tp", "Tensor-parallel degree T; must divide h and f.", "T");
    const auto tokens =
        option("tokens", "Tokens in X (rows).", "N", QString::number(defaults.shape.tokens));
    const auto seed = option("seed", "Seed of the random inputs (std::mt19937_64).", "S",
                             QString::number(defaults.seed));
    const auto device =
        option("device", "Device preset id.", "ID", io::qs(core::Scenario{}.device));
    const QCommandLineOption precision(
        QStringLiteral("precision"),
        QStringLiteral("Activation precision: %1.").arg(activationPrecisions()),
        QStringLiteral("P"), io::qs(core::toString(defaults.precision)));
    parser.addOption(precision);
    const auto verify =
        option("verify",
               "Numerical check: small (a reduced size with the same f/h, the default), full "
               "(the requested size; slow) or off.",
               "small|full|off", io::qs(core::toString(defaults.verify)));
    const auto mfu = option("mfu",
                            "Fraction of peak FLOPS achieved, from 0.001 to 1, or auto for the "
                            "device's matrix-multiply efficiency.",
                            "M", QStringLiteral("auto"));
    const auto interNode =
        option("inter-node-gb-per-s",
               "Inter-node bandwidth per direction, overriding the device's.", "GB/s");
    const QCommandLineOption presetsFile = io::presetsOption(), format = formatOption();
    parser.addOption(presetsFile);
    parser.addOption(format);
    const StandardOptions standard;
    standard.addTo(parser);
    if (int status = parseStandard(parser, standard, arguments); status >= 0)
        return status;
    QTextStream out(stdout);
    if (!parser.positionalArguments().isEmpty())
        return fail(QString(), QStringLiteral("shard takes no arguments, got '%1'")
                                   .arg(parser.positionalArguments().constFirst()));
    bool json = false;
    if (int status = isJson(parser, format, json); status >= 0)
        return status;

    core::ShardRequest request;
    for (const auto &[o, slot] :
         {std::pair{&hidden, &request.shape.hidden}, std::pair{&ffn, &request.shape.ffn},
          std::pair{&tokens, &request.shape.tokens}}) {
        const QString flag = QStringLiteral("--") + o->names().constFirst();
        if (!parser.isSet(*o) && o->defaultValues().isEmpty())
            return fail(flag, QStringLiteral("required"));
        if (!parseInteger(parser.value(*o), *slot))
            return fail(flag,
                        QStringLiteral("expected a whole number, got '%1'").arg(parser.value(*o)));
    }
    if (!parser.isSet(tp))
        return fail(QStringLiteral("--tp"), QStringLiteral("required"));
    if (!parseInteger(parser.value(tp), request.tp))
        return fail(QStringLiteral("--tp"),
                    QStringLiteral("expected a whole number, got '%1'").arg(parser.value(tp)));
    bool ok = false;
    request.seed = parser.value(seed).toULongLong(&ok);
    if (!ok)
        return fail(
            QStringLiteral("--seed"),
            QStringLiteral("expected a whole number ≥ 0, got '%1'").arg(parser.value(seed)));
    if (parser.value(mfu) != QLatin1String("auto")) {
        request.mfu = parser.value(mfu).toDouble(&ok);
        if (!ok)
            return fail(
                QStringLiteral("--mfu"),
                QStringLiteral("expected a number or auto, got '%1'").arg(parser.value(mfu)));
    }
    if (parser.isSet(interNode)) {
        request.interNodeGbPerS = parser.value(interNode).toDouble(&ok);
        if (!ok)
            return fail(QStringLiteral("--inter-node-gb-per-s"),
                        QStringLiteral("expected a number, got '%1'").arg(parser.value(interNode)));
    }
    const auto p = core::parseEnum<core::Precision>(io::ss(parser.value(precision)));
    if (!p)
        return fail(QStringLiteral("--precision"),
                    QStringLiteral("unknown precision '%1'; expected %2")
                        .arg(parser.value(precision), activationPrecisions()));
    request.precision = *p;
    const auto v = core::parseEnum<core::Verify>(io::ss(parser.value(verify)));
    if (!v)
        return fail(QStringLiteral("--verify"),
                    QStringLiteral("expected %1, got '%2'")
                        .arg(io::qs(core::allowedNames<core::Verify>()), parser.value(verify)));
    request.verify = *v;
    if (request.verify == core::Verify::full)
        request.verifyMemoryBytes = io::fullCheckMemoryBytes();

    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsFile)))
        return fail(QString(), io::qs(e->toString()));
    const core::DeviceSpec *spec = presets.device(io::ss(parser.value(device)));
    if (!spec) {
        QStringList known;
        for (const auto &d : presets.devices)
            known << io::qs(d.id);
        return fail(QStringLiteral("--device"),
                    QStringLiteral("unknown preset '%1'; known: %2")
                        .arg(parser.value(device), known.join(QStringLiteral(", "))));
    }

    const core::ShardReport report = core::analyzeSharding(request, *spec);
    if (report.error && report.error->key == "verify") {
        const auto installed = io::installedMemoryBytes();
        const QString allowance =
            installed
                ? QStringLiteral("half of this computer's %1 GB").arg(*installed / 1e9, 0, 'f', 1)
                : QStringLiteral("this computer does not say how much memory it has");
        return fail(
            QStringLiteral("--verify"),
            QStringLiteral("%1 (%2); --verify small checks a reduced size with the same f/h")
                .arg(io::qs(report.error->message), allowance));
    }
    if (report.error)
        return fail(flagFor(report.error->key), io::qs(report.error->message));
    if (json)
        out << QJsonDocument(io::shardToJson(report, io::qs(spec->id)))
                   .toJson(QJsonDocument::Indented);
    else
        out << io::shardToText(report, io::qs(spec->name.empty() ? spec->id : spec->name));
    return cli::ok;
}

} // namespace cli
