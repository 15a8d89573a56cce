#pragma once

#include "ui/charts/chart_pages.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

// A chart's numbers (ChartPage::data) as CSV or JSON (io/data_table.h): the files of the window's
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

QByteArray encode(const ChartPage &page, const ChartInputs &inputs, Format format);

// The file of a page in a folder: "out/memory.csv".
QString dataPath(const QString &folder, const ChartPage &page, Format format);

// Writes pages[i]'s data to paths[i], all or none (io::SaveFiles), as
// chart_export::writeCharts writes images; `written` receives the paths replaced.
std::optional<QString> writeData(const QList<const ChartPage *> &pages, const ChartInputs &inputs,
                                 Format format, const QStringList &paths,
                                 QStringList *written = nullptr);

} // namespace ui::data_export
