#include "io/input_file.h"

#include "core/echo.h"

#include <QFile>
#include <QFileInfo>

namespace io {

namespace {

// Paths are echoed longer than values: the end of one names the file.
constexpr std::size_t kEchoedPathChars = 240;

core::InputError cannotRead(const QString &path, const std::string &reason)
{
    return core::InputError{"", "cannot read " + describePath(path) + ": " + reason};
}

std::string tooLarge(qint64 bytes)
{
    return std::to_string(bytes) + " bytes, more than the " +
           std::to_string(kMaxInputFileBytes / (1024 * 1024)) +
           " MiB a scenario or presets file may have";
}

} // namespace

std::string describePath(const QString &path)
{
    return core::excerpt(path.toStdString(), kEchoedPathChars);
}

core::InputError inFile(core::InputError error, const QString &path)
{
    error.message += " (in " + describePath(path) + ")";
    return error;
}

std::optional<core::InputError> readInputFile(const QString &path, QByteArray &out)
{
    // Look before opening: opening a named pipe waits for a writer, and a device
    // such as /dev/zero never ends.
    const QFileInfo info(path);
    if (!info.exists())
        return cannotRead(path, "no such file");
    if (info.isDir())
        return cannotRead(path, "it is a folder, not a file");
    if (!info.isFile())
        return cannotRead(path, "not a regular file (a device, a named pipe or a socket); "
                                "Parascope reads scenario and presets files only");
    if (info.size() > kMaxInputFileBytes)
        return cannotRead(path, tooLarge(info.size()));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return cannotRead(path, file.errorString().toStdString());
    // One byte more than the limit: a file that grew since it was looked at is refused too.
    QByteArray bytes = file.read(kMaxInputFileBytes + 1);
    if (bytes.size() > kMaxInputFileBytes)
        return cannotRead(path, tooLarge(qMax(file.size(), qint64(bytes.size()))) +
                                    " (it grew while being read)");
    if (file.error() != QFileDevice::NoError)
        return cannotRead(path, file.errorString().toStdString());
    out = std::move(bytes);
    return std::nullopt;
}

} // namespace io
