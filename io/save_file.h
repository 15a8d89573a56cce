#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

class QIODevice;
class QSaveFile;

// Every file Parascope writes (scenario files, exported charts) goes through
// here: a new file replaces the old one only once all of it is written, and a
// failure names the path and the system's reason ("No space left on device",
// "File too large").
namespace io {

// Writes all of `bytes` to the open `device`, then flushes it if it is a file.
// A short write is followed by another, so that the error reported is the
// system's, not a count. On failure: "cannot write 'PATH': REASON".
std::optional<QString> writeAll(QIODevice &device, const QByteArray &bytes, const QString &path);

// Files that are written together: each goes to a temporary file beside its
// path (QSaveFile), and commit() replaces the old files only after every new
// one was written. A failed add() cancels the whole batch (later calls return
// the same reason), and so does destroying it before commit(): no old file is
// touched and no temporary file remains.
class SaveFiles
{
public:
    SaveFiles();
    ~SaveFiles();
    SaveFiles(const SaveFiles &) = delete;
    SaveFiles &operator=(const SaveFiles &) = delete;

    // Writes `bytes` as the new content of `path`. The reason on failure.
    std::optional<QString> add(const QString &path, const QByteArray &bytes);
    // Moves each new file into place, in the order added. Should one of these
    // renames fail (the system refuses it, which the writes before could not
    // foresee), the files before it are already replaced by complete new ones
    // (committed() lists them) and the files after it are left as they were.
    std::optional<QString> commit();

    // The paths replaced so far, in order.
    const QStringList &committed() const { return m_committed; }

private:
    void cancel();

    std::vector<std::unique_ptr<QSaveFile>> m_files;
    QStringList m_committed;
    std::optional<QString> m_failure;
};

// One file: SaveFiles with a single add() and commit().
std::optional<QString> saveFile(const QString &path, const QByteArray &bytes);

} // namespace io
