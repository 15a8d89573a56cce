#include "io/compare.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QTextStream>

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
        if (list.isEmpty())
            s << "  (none)\n";
        for (const auto &d : list)
            s << QStringLiteral("  %1  %2  ->  %3\n").arg(d.field, -34).arg(text(d.a), text(d.b));
    };
    table(QStringLiteral("Scenario: what changed from A to B"), differences(scenarioA, scenarioB));
    s << "\n";
    table(QStringLiteral("Report: what follows"), differences(reportA, reportB));
    return out;
}

} // namespace io
