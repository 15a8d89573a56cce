#include "io/compare.h"

#include "io/text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QRegularExpression>
#include <QTextStream>
#include <algorithm>
#include <cmath>

namespace io {

namespace {

void flatten(const QJsonValue &value, const QString &path, QMap<QString, QJsonValue> &out)
{
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            flatten(it.value(), path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key(),
                    out);
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            flatten(array.at(i), QStringLiteral("%1[%2]").arg(path).arg(i), out);
    } else {
        out.insert(path, value);
    }
}

QJsonArray toJson(const QList<Difference> &list)
{
    QJsonArray out;
    for (const auto &d : list) {
        QJsonObject o;
        o.insert(QStringLiteral("field"), d.field);
        o.insert(QStringLiteral("a"), d.a);
        o.insert(QStringLiteral("b"), d.b);
        out.append(o);
    }
    return out;
}

QString text(const QJsonValue &value)
{
    if (value.isNull() || value.isUndefined())
        return QStringLiteral("—");
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble()) {
        const double d = value.toDouble();
        return d == static_cast<double>(value.toInteger()) ? QString::number(value.toInteger())
                                                           : QString::number(d, 'g', 6);
    }
    return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
}

// The report's per-operation tables: in the JSON comparison, summed up in the text.
bool isOperationField(const QString &path)
{
    return path.startsWith(QLatin1String("layer_ops[")) ||
           path.startsWith(QLatin1String("end_ops[")) ||
           path.startsWith(QLatin1String("timeline["));
}

// Leaf names whose words are not their key's: the report's column headings (io/report_io.cpp).
QString leafLabel(const QString &key)
{
    static const QMap<QString, QString> labels{
        {QStringLiteral("grads_bytes"), QStringLiteral("gradients")},
        {QStringLiteral("optimizer_bytes"), QStringLiteral("optimizer states")},
        {QStringLiteral("step_time_s"), QStringLiteral("step time")},
        {QStringLiteral("tokens_per_s"), QStringLiteral("throughput")},
        {QStringLiteral("mfu_achieved"), QStringLiteral("MFU")},
        {QStringLiteral("bubble_fraction"), QStringLiteral("bubble")},
        {QStringLiteral("bubble_fraction_closed_form"), QStringLiteral("bubble, closed form")},
        {QStringLiteral("energy_j_per_step"), QStringLiteral("energy per step")},
        {QStringLiteral("energy_j_per_million_tokens"),
         QStringLiteral("energy per million tokens")},
        {QStringLiteral("tp"), QStringLiteral("T")},
        {QStringLiteral("pp"), QStringLiteral("K")},
        {QStringLiteral("dp"), QStringLiteral("D")},
    };
    if (auto found = labels.constFind(key); found != labels.cend())
        return *found;
    QString words = key;
    for (const char *unit : {"_bytes", "_s"})
        if (words.endsWith(QLatin1String(unit)))
            words.chop(qsizetype(qstrlen(unit)));
    return words.replace(QLatin1Char('_'), QLatin1Char(' '));
}

// "stages[3].weights_bytes" -> "stage 3 weights", "time_breakdown.matmul_s" -> "time breakdown
// matmul": the path in words.
QString label(const QString &path)
{
    QStringList words;
    for (const QString &part : path.split(QLatin1Char('.'))) {
        static const QRegularExpression indexed(QStringLiteral("^(\\w+)\\[(\\d+)\\]$"));
        const QRegularExpressionMatch m = indexed.match(part);
        if (m.hasMatch())
            words << (m.captured(1) == QLatin1String("stages")
                          ? QStringLiteral("stage %1").arg(m.captured(2))
                          : QStringLiteral("%1 %2").arg(leafLabel(m.captured(1)), m.captured(2)));
        else
            words << leafLabel(part);
    }
    return words.join(QLatin1Char(' '));
}

// A value with its unit, as the text report writes it: bytes in GB (docs/DESIGN.md §3),
// seconds, fractions as percentages, joules as MJ, whole numbers grouped.
QString valueText(const QString &path, const QJsonValue &value)
{
    if (!value.isDouble())
        return text(value);
    const QString key = path.section(QLatin1Char('.'), -1);
    const double d = value.toDouble();
    if (key.contains(QLatin1String("bytes")))
        return formatBytes(d, SizeUnit::gb, std::abs(d) >= 1e8 || d == 0 ? 1 : 4);
    if (key == QLatin1String("tokens_per_s"))
        return formatCount(std::llround(d)) + QStringLiteral(" tokens/s");
    if (key.startsWith(QLatin1String("bubble_fraction")) || key.startsWith(QLatin1String("mfu")))
        return QStringLiteral("%1 %").arg(100 * d, 0, 'f', 1);
    if (key.startsWith(QLatin1String("energy_j")))
        return QStringLiteral("%1 MJ").arg(QString::number(d / 1e6, 'g', 4));
    if (key.endsWith(QLatin1String("_s")) || key == QLatin1String("seconds"))
        return QStringLiteral("%1 s").arg(QString::number(d, 'g', 4));
    if (d == std::round(d) && std::abs(d) < 9e15)
        return formatCount(static_cast<qint64>(d));
    return QString::number(d, 'g', 4);
}

} // namespace

QList<Difference> differences(const QJsonObject &a, const QJsonObject &b)
{
    QMap<QString, QJsonValue> left;
    QMap<QString, QJsonValue> right;
    flatten(a, QString(), left);
    flatten(b, QString(), right);
    QMap<QString, QJsonValue> keys = left;
    keys.insert(right);
    QList<Difference> out;
    for (auto it = keys.cbegin(); it != keys.cend(); ++it) {
        const QJsonValue va = left.value(it.key(), QJsonValue(QJsonValue::Null));
        const QJsonValue vb = right.value(it.key(), QJsonValue(QJsonValue::Null));
        if (va != vb)
            out.append({it.key(), va, vb});
    }
    return out;
}

QJsonObject comparisonToJson(const QJsonObject &scenarioA, const QJsonObject &scenarioB,
                             const QJsonObject &reportA, const QJsonObject &reportB)
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QStringLiteral("parascope-comparison"));
    root.insert(QStringLiteral("version"), 1);
    root.insert(QStringLiteral("scenario_differences"), toJson(differences(scenarioA, scenarioB)));
    root.insert(QStringLiteral("report_differences"), toJson(differences(reportA, reportB)));
    root.insert(QStringLiteral("a"), reportA);
    root.insert(QStringLiteral("b"), reportB);
    return root;
}

QString comparisonToText(const QJsonObject &scenarioA, const QJsonObject &scenarioB,
                         const QJsonObject &reportA, const QJsonObject &reportB)
{
    QString out;
    QTextStream s(&out);
    auto table = [&s](const QString &title, const QList<Difference> &list) {
        s << title << "\n";
        qsizetype operations = 0;
        QList<Difference> shown;
        for (const auto &d : list)
            isOperationField(d.field) ? void(++operations) : shown.append(d);
        if (shown.isEmpty() && operations == 0)
            s << "  (none)\n";
        int width = 0;
        for (const auto &d : shown)
            width = std::max(width, int(label(d.field).size()));
        for (const auto &d : shown)
            s << QStringLiteral("  %1  %2  ->  %3\n")
                     .arg(label(d.field), -width)
                     .arg(valueText(d.field, d.a), valueText(d.field, d.b));
        if (operations > 0)
            s << QStringLiteral("  and %1 fields of the per-operation tables (--format json "
                                "lists them)\n")
                     .arg(formatCount(operations));
    };
    table(QStringLiteral("Scenario: what changed from A to B"), differences(scenarioA, scenarioB));
    s << "\n";
    table(QStringLiteral("Report: what follows"), differences(reportA, reportB));
    return out;
}

} // namespace io
