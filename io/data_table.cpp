#include "io/data_table.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QStringList>
#include <cmath>

namespace io {

namespace {

// The shortest text that reads back as the same double: full precision, no display rounding.
QString number(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString csvField(const QString &text)
{
    static const QString special = QStringLiteral(",\"\r\n");
    bool quote = false;
    for (QChar c : text)
        quote = quote || special.contains(c);
    if (!quote)
        return text;
    QString escaped = text;
    escaped.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

QString csvCell(const DataValue &value)
{
    if (const auto *i = std::get_if<qint64>(&value))
        return QString::number(*i);
    if (const auto *d = std::get_if<double>(&value))
        return std::isfinite(*d) ? number(*d) : QString();
    if (const auto *text = std::get_if<QString>(&value))
        return csvField(*text);
    return {};
}

QJsonValue jsonCell(const DataValue &value)
{
    if (const auto *i = std::get_if<qint64>(&value))
        return QJsonValue(*i);
    if (const auto *d = std::get_if<double>(&value))
        return std::isfinite(*d) ? QJsonValue(*d) : QJsonValue(QJsonValue::Null);
    if (const auto *text = std::get_if<QString>(&value))
        return *text;
    return QJsonValue(QJsonValue::Null);
}

} // namespace

QString dataHeader(const DataColumn &column)
{
    return column.unit.isEmpty() ? column.name
                                 : QStringLiteral("%1 (%2)").arg(column.name, column.unit);
}

QByteArray toCsv(const DataTable &data)
{
    const QString crlf = QStringLiteral("\r\n");
    QStringList fields;
    for (const DataColumn &column : data.columns)
        fields << csvField(dataHeader(column));
    QString out = fields.join(QLatin1Char(',')) + crlf;
    for (const QList<DataValue> &row : data.rows) {
        fields.clear();
        for (const DataValue &value : row)
            fields << csvCell(value);
        out += fields.join(QLatin1Char(',')) + crlf;
    }
    return out.toUtf8();
}

QByteArray toJson(const DataTable &data, const QString &chartId)
{
    QJsonArray columns;
    for (const DataColumn &column : data.columns)
        columns.append(QJsonObject{{QStringLiteral("name"), column.name},
                                   {QStringLiteral("unit"), column.unit}});
    QJsonArray rows;
    for (const QList<DataValue> &row : data.rows) {
        QJsonArray cells;
        for (const DataValue &value : row)
            cells.append(jsonCell(value));
        rows.append(cells);
    }
    const QJsonObject root{{QStringLiteral("chart"), chartId},
                           {QStringLiteral("title"), data.title},
                           {QStringLiteral("columns"), columns},
                           {QStringLiteral("rows"), rows}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace io
