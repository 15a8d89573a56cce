// io::writeAll, io::saveFile and io::SaveFiles: the one way Parascope writes a
// file. A failed write never replaces a good file, leaves no temporary file,
// and names the path and the system's reason.
#include "io/save_file.h"
#include "test_files.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <cerrno>

namespace {

// A device that takes at most `room` bytes, at most `chunk` of them per call,
// and then fails with `reason`, as a full disk does.
class FailingDevice : public QIODevice
{
public:
    FailingDevice(qint64 room, qint64 chunk, QString reason)
        : m_room(room), m_chunk(chunk), m_reason(std::move(reason))
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }

    QByteArray received;

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 len) override
    {
        if (m_room <= 0) {
            setErrorString(m_reason);
            return -1;
        }
        const qint64 n = std::min({len, m_room, m_chunk});
        received.append(data, n);
        m_room -= n;
        return n;
    }

private:
    qint64 m_room;
    qint64 m_chunk;
    QString m_reason;
};

} // namespace

class TestSaveFile : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void writeAllToADevice_data()
    {
        QTest::addColumn<qint64>("room");
        QTest::addColumn<qint64>("chunk");
        QTest::addColumn<bool>("fails");
        // A full disk as reported: a PNG cut at 36,864 bytes of 50,000.
        QTest::addRow("disk full after 36864 bytes") << qint64(36864) << qint64(1 << 20) << true;
        QTest::addRow("full before the first byte") << qint64(0) << qint64(1 << 20) << true;
        // Short writes that each succeed are continued, not taken for the whole.
        QTest::addRow("4 KiB at a time, room for all") << qint64(50000) << qint64(4096) << false;
        QTest::addRow("4 KiB at a time, then full") << qint64(40000) << qint64(4096) << true;
    }
    void writeAllToADevice()
    {
        QFETCH(qint64, room);
        QFETCH(qint64, chunk);
        QFETCH(bool, fails);
        const QByteArray bytes(50000, 'x');
        const QString reason = systemReason(ENOSPC);
        FailingDevice device(room, chunk, reason);
        const QString path = QStringLiteral("/media/stick/slides/memory.png");
        const auto error = io::writeAll(device, bytes, path);
        QCOMPARE(bool(error), fails);
        if (fails) {
            QVERIFY2(error->contains(path), qPrintable(*error));
            QVERIFY2(error->contains(reason), qPrintable(*error));
            QCOMPARE(device.received.size(), room);
        } else {
            QCOMPARE(device.received, bytes);
        }
    }

    void saveFileReplacesTheOldOne()
    {
        const QString path = m_dir.filePath("replace.json");
        QVERIFY(!io::saveFile(path, "old"));
        QVERIFY(!io::saveFile(path, "new content"));
        QCOMPARE(readFile(path), QByteArray("new content"));
        QCOMPARE(QDir(m_dir.path()).entryList({"replace*"}, QDir::Files),
                 QStringList{"replace.json"});
    }

    void failedSaveKeepsTheOldFile_data()
    {
        QTest::addColumn<int>("newBytes");
        QTest::addColumn<bool>("hadOldFile");
        QTest::addRow("large write, old file") << 100000 << true;
        QTest::addRow("large write, no old file") << 100000 << false;
        // Small enough for QFileDevice's buffer: the failure would surface only
        // when commit() flushes it.
        QTest::addRow("small write, old file") << 2000 << true;
    }
    void failedSaveKeepsTheOldFile()
    {
        QFETCH(int, newBytes);
        QFETCH(bool, hadOldFile);
        const QString name = QStringLiteral("keep-%1-%2.bin").arg(newBytes).arg(hadOldFile);
        const QString path = m_dir.filePath(name);
        const QByteArray old(1500, 'o');
        if (hadOldFile)
            QVERIFY(!io::saveFile(path, old));
        std::optional<QString> error;
        {
            const FileSizeLimit limit(1024);
            QVERIFY(limit.ok());
            error = io::saveFile(path, QByteArray(newBytes, 'n'));
        }
        QVERIFY(error);
        QVERIFY2(error->contains(path), qPrintable(*error));
        QVERIFY2(error->contains(systemReason(EFBIG)), qPrintable(*error));
        QCOMPARE(QFileInfo::exists(path), hadOldFile);
        if (hadOldFile)
            QCOMPARE(readFile(path), old);
        // No temporary file is left beside it.
        QCOMPARE(QDir(m_dir.path()).entryList({name + "*"}, QDir::Files).size(),
                 hadOldFile ? 1 : 0);
    }

    void missingFolderIsNamed()
    {
        const QString path = m_dir.filePath("no/such/folder/plan.json");
        const auto error = io::saveFile(path, "{}");
        QVERIFY(error);
        QVERIFY2(error->contains(path), qPrintable(*error));
        QVERIFY2(error->contains(systemReason(ENOENT)), qPrintable(*error));
    }

    // SaveFiles: all or none. A write that fails after others succeeded
    // replaces none of the old files.
    void batchIsAllOrNone()
    {
        const QDir dir(m_dir.filePath("batch"));
        QVERIFY(dir.mkpath("."));
        const QStringList names{"a.png", "b.png", "c.png"};
        for (const QString &name : names)
            QVERIFY(!io::saveFile(dir.filePath(name), "old " + name.toUtf8()));

        std::optional<QString> error;
        {
            const FileSizeLimit limit(1024);
            QVERIFY(limit.ok());
            io::SaveFiles files;
            QVERIFY(!files.add(dir.filePath("a.png"), QByteArray(1000, 'a')));
            error = files.add(dir.filePath("b.png"), QByteArray(5000, 'b'));
            QVERIFY(error);
            // The batch is cancelled: a later add or commit fails the same way.
            QCOMPARE(files.add(dir.filePath("c.png"), "c"), error);
            QCOMPARE(files.commit(), error);
            QVERIFY(files.committed().isEmpty());
        }
        QVERIFY2(error->contains(dir.filePath("b.png")), qPrintable(*error));
        QVERIFY2(error->contains(systemReason(EFBIG)), qPrintable(*error));
        for (const QString &name : names)
            QCOMPARE(readFile(dir.filePath(name)), "old " + name.toUtf8());
        QCOMPARE(dir.entryList(QDir::Files | QDir::Hidden), names);

        // Without a failure, every file is replaced when the batch commits, not before.
        io::SaveFiles files;
        for (const QString &name : names)
            QVERIFY(!files.add(dir.filePath(name), "new " + name.toUtf8()));
        QCOMPARE(readFile(dir.filePath("a.png")), QByteArray("old a.png"));
        QVERIFY(!files.commit());
        QCOMPARE(files.committed().size(), names.size());
        for (const QString &name : names)
            QCOMPARE(readFile(dir.filePath(name)), "new " + name.toUtf8());
        QCOMPARE(dir.entryList(QDir::Files | QDir::Hidden), names);
    }
};

QTEST_GUILESS_MAIN(TestSaveFile)
#include "tst_save_file.moc"
