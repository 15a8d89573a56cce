#include "ui/export/data_export.h"

#include "io/save_file.h"

#include <QDir>

namespace ui::data_export {

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

QByteArray encode(const ChartPage &page, const ChartInputs &inputs, Format format)
{
    const ChartData data = page.data(inputs);
    switch (format) {
    case Format::csv:
        return io::toCsv(data);
    case Format::json:
        return io::toJson(data, page.id());
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
