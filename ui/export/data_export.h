#pragma once

#include "ui/charts/chart_pages.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

// A chart's numbers (ChartPage::data) as CSV or JSON: the one writer of the window's
// File → Export Chart Data… and of `parascope export --out FILE.csv|.json`.
namespace ui::data_export {

enum class Format
{
    csv,
    json
};

QString suffix(Format format);
std::optional<Format> formatFromSuffix(const QString &suffix);
// The format a file name's extension names ("stages.CSV" -> csv).
std::optional<Format> formatOf(const QString &path);

// A column's header: "total (bytes)", or the bare name when it has no unit.
QString header(const ChartColumn &column);

// RFC 4180: a header line, then one line per row, CRLF-terminated; a field with a comma, a
// quote or a line break is quoted, its quotes doubled. Numbers at full precision (the
// shortest text that reads back as the same double); an empty cell is an empty field.
QByteArray toCsv(const ChartData &data);
// {"chart": id, "title": ..., "columns": [{"name", "unit"}], "rows": [[...]]}; an empty cell
// or a number that is not finite is null.
QByteArray toJson(const ChartData &data, const QString &chartId);

QByteArray encode(const ChartPage &page, const ChartInputs &inputs, Format format);

// The file of a page in a folder: "out/memory.csv".
QString dataPath(const QString &folder, const ChartPage &page, Format format);

// Writes pages[i]'s data to paths[i], all or none (io::SaveFiles), as
// chart_export::writeCharts writes images; `written` receives the paths replaced.
std::optional<QString> writeData(const QList<const ChartPage *> &pages, const ChartInputs &inputs,
                                 Format format, const QStringList &paths,
                                 QStringList *written = nullptr);

} // namespace ui::data_export
