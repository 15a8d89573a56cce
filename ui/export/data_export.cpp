#include "ui/export/data_export.h"

#include "io/save_file.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <cmath>

namespace ui::data_export {

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

QString csvCell(const ChartValue &value)
{
    if (const auto *i = std::get_if<qint64>(&value))
        return QString::number(*i);
    if (const auto *d = std::get_if<double>(&value))
        return std::isfinite(*d) ? number(*d) : QString();
    if (const auto *text = std::get_if<QString>(&value))
        return csvField(*text);
    return {};
}

QJsonValue jsonCell(const ChartValue &value)
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

QString suffix(Format format)
{
    switch (format) {
    case Format::csv:
        return QStringLiteral("csv");
    case Format::json:
        return QStringLiteral("json");
    }
    return {};
}

std::optional<Format> formatFromSuffix(const QString &text)
{
    for (Format format : {Format::csv, Format::json})
        if (text.compare(suffix(format), Qt::CaseInsensitive) == 0)
            return format;
    return std::nullopt;
}

std::optional<Format> formatOf(const QString &path)
{
    const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
    if (dot < 0 || path.indexOf(QLatin1Char('/'), dot) >= 0)
        return std::nullopt;
    return formatFromSuffix(path.mid(dot + 1));
}

QString header(const ChartColumn &column)
{
    return column.unit.isEmpty() ? column.name
                                 : QStringLiteral("%1 (%2)").arg(column.name, column.unit);
}

QByteArray toCsv(const ChartData &data)
{
    const QString crlf = QStringLiteral("\r\n");
    QStringList fields;
    for (const ChartColumn &column : data.columns)
        fields << csvField(header(column));
    QString out = fields.join(QLatin1Char(',')) + crlf;
    for (const QList<ChartValue> &row : data.rows) {
        fields.clear();
        for (const ChartValue &value : row)
            fields << csvCell(value);
        out += fields.join(QLatin1Char(',')) + crlf;
    }
    return out.toUtf8();
}

QByteArray toJson(const ChartData &data, const QString &chartId)
{
    QJsonArray columns;
    for (const ChartColumn &column : data.columns)
        columns.append(QJsonObject{{QStringLiteral("name"), column.name},
                                   {QStringLiteral("unit"), column.unit}});
    QJsonArray rows;
    for (const QList<ChartValue> &row : data.rows) {
        QJsonArray cells;
        for (const ChartValue &value : row)
            cells.append(jsonCell(value));
        rows.append(cells);
    }
    const QJsonObject root{{QStringLiteral("chart"), chartId},
                           {QStringLiteral("title"), data.title},
                           {QStringLiteral("columns"), columns},
                           {QStringLiteral("rows"), rows}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray encode(const ChartPage &page, const ChartInputs &inputs, Format format)
{
    const ChartData data = page.data(inputs);
    switch (format) {
    case Format::csv:
        return toCsv(data);
    case Format::json:
        return toJson(data, page.id());
    }
    return {};
}

QString dataPath(const QString &folder, const ChartPage &page, Format format)
{
    return QDir(folder).filePath(page.id() + QLatin1Char('.') + suffix(format));
}

std::optional<QString> writeData(const QList<const ChartPage *> &pages, const ChartInputs &inputs,
                                 Format format, const QStringList &paths, QStringList *written)
{
    Q_ASSERT(pages.size() == paths.size());
    if (written)
        written->clear();
    io::SaveFiles files;
    for (qsizetype i = 0; i < pages.size(); ++i)
        if (auto reason = files.add(paths[i], encode(*pages[i], inputs, format)))
            return reason;
    auto reason = files.commit();
    if (written)
        *written = files.committed();
    return reason;
}

} // namespace ui::data_export
