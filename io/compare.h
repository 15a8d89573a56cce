#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace io {

// One field that differs between two JSON documents, by its path
// ("stages[3].total_bytes"); a side that lacks the field holds null.
struct Difference
{
    QString field;
    QJsonValue a;
    QJsonValue b;
};

// Every leaf that differs, in path order. Arrays compare element by element.
QList<Difference> differences(const QJsonObject &a, const QJsonObject &b);

// `parascope eval A --compare B`: both reports and what changed between
// the scenarios and between the reports.
QJsonObject comparisonToJson(const QJsonObject &scenarioA, const QJsonObject &scenarioB,
                             const QJsonObject &reportA, const QJsonObject &reportB);
QString comparisonToText(const QJsonObject &scenarioA, const QJsonObject &scenarioB,
                         const QJsonObject &reportA, const QJsonObject &reportB);

} // namespace io
