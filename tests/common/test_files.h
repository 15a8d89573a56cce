#pragma once

// Files as the tests make and read them: whole files, sparse ones, a folder's files, and a
// file-size limit under which writes fail with a real system error (EFBIG), as a full
// disk's fail with ENOSPC, for root too (unlike permissions).
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QString>
#include <csignal>
#include <cstring>
#include <sys/resource.h>

// The file's bytes; empty when it cannot be read.
inline QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Writes `bytes` as the whole file, making its folder; whether every byte was written.
inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// A file of `size` bytes that starts with `head`; the rest is a hole of zeros, so that a
// file of 100 MB costs no disk.
inline bool writeSparse(const QString &path, const QByteArray &head, qint64 size)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(head) == head.size() && file.resize(size);
}

// Every file of a folder with its bytes, hidden ones included.
inline QMap<QString, QByteArray> filesIn(const QString &folder)
{
    QMap<QString, QByteArray> files;
    const QDir dir(folder);
    for (const QString &name : dir.entryList(QDir::Files | QDir::Hidden))
        files.insert(name, readFile(dir.filePath(name)));
    return files;
}

// The system's words for an errno value, as a message quotes them ("File too large").
inline QString systemReason(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// From now on, every write past `bytes` bytes of a file fails with EFBIG instead of
// stopping the process with SIGXFSZ; whether the limit was set. For a child process, from
// QProcess::setChildProcessModifier, before the program starts.
inline bool limitFileSize(rlim_t bytes)
{
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit r{};
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = bytes;
    return setrlimit(RLIMIT_FSIZE, &r) == 0;
}

// limitFileSize for the test itself while it lives; the old limit comes back after.
class FileSizeLimit
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_ok = limitFileSize(bytes);
    }
    ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &m_old); }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;
    bool ok() const { return m_ok; }

private:
    rlimit m_old{};
    bool m_ok = false;
};
