#include "io/save_file.h"

#include <QDir>
#include <QFileDevice>
#include <QSaveFile>

namespace io {

namespace {

QString saveFailure(const char *what, const QString &path, QString reason)
{
    if (reason.isEmpty())
        reason = QStringLiteral("the system gave no reason");
    return QStringLiteral("cannot %1 '%2': %3")
        .arg(QLatin1String(what), QDir::toNativeSeparators(path), reason);
}

} // namespace

std::optional<QString> writeAll(QIODevice &device, const QByteArray &bytes, const QString &path)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        // A write that stops short (the disk filled up, a file-size limit) reports no
        // error; the next one fails with the system's reason.
        const qint64 written = device.write(bytes.constData() + done, bytes.size() - done);
        if (written <= 0)
            return saveFailure("write", path, device.errorString());
        done += written;
    }
    // Unflushed bytes could still fail to reach the file after it replaced the old one:
    // QSaveFile::commit() does not notice a failure while flushing its buffer.
    if (auto *file = qobject_cast<QFileDevice *>(&device); file && !file->flush())
        return saveFailure("write", path, file->errorString());
    return std::nullopt;
}

SaveFiles::SaveFiles() = default;

SaveFiles::~SaveFiles()
{
    cancel();
}

void SaveFiles::cancel()
{
    // QSaveFile removes its temporary file when it is destroyed without commit().
    for (auto &file : m_files)
        if (file)
            file->cancelWriting();
    m_files.clear();
}

std::optional<QString> SaveFiles::add(const QString &path, const QByteArray &bytes)
{
    if (m_failure)
        return m_failure;
    auto file = std::make_unique<QSaveFile>(path);
    // Unbuffered: every write reaches the system at once, and so does its error.
    std::optional<QString> reason;
    if (!file->open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        reason = saveFailure("write", path, file->errorString());
    else
        reason = writeAll(*file, bytes, path);
    if (reason) {
        file.reset();
        cancel();
        m_failure = reason;
        return reason;
    }
    m_files.push_back(std::move(file));
    return std::nullopt;
}

std::optional<QString> SaveFiles::commit()
{
    if (m_failure)
        return m_failure;
    for (auto &file : m_files) {
        const QString path = file->fileName();
        if (!file->commit()) {
            m_failure = saveFailure("replace", path, file->errorString());
            file.reset();
            cancel();
            return m_failure;
        }
        file.reset();
        m_committed << path;
    }
    m_files.clear();
    return std::nullopt;
}

std::optional<QString> saveFile(const QString &path, const QByteArray &bytes)
{
    SaveFiles files;
    if (auto reason = files.add(path, bytes))
        return reason;
    return files.commit();
}

} // namespace io
