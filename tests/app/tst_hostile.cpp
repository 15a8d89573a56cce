// Hostile inputs (tests/data/hostile/README.md) through the real binary: each one is
// refused within a bounded time, with exit status 2, one short line on stderr naming
// the file and the field, and nothing on the terminal that is not text.
#include "run_parascope.h"
#include "test_files.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

namespace {

const QString kHostileDir = QStringLiteral(PARASCOPE_SOURCE_DIR "/tests/data/hostile");
constexpr int kHangGuardMs = 60'000;
constexpr qsizetype kMaxOutput = 2048;
const QString kExpect = QStringLiteral("# expect: ");

// One `.args` or `.expect` file: its arguments, the texts stderr must contain, and
// what is wrong with it, if anything.
struct CaseFile
{
    QStringList arguments;
    QStringList expects;
    QStringList problems;
};

CaseFile readCase(const QString &path, bool argumentsAllowed)
{
    CaseFile c;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        c.problems << path + QStringLiteral(": cannot read");
        return c;
    }
    const QString dir = QDir(kHostileDir).absolutePath();
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        line.replace(QStringLiteral("{dir}"), dir);
        if (line.startsWith(kExpect))
            c.expects << line.mid(kExpect.size());
        else if (line.startsWith(QLatin1Char('#')) || line.isEmpty())
            continue;
        else if (argumentsAllowed)
            c.arguments << line;
        else
            c.problems << path + QStringLiteral(": not a comment: ") + line;
    }
    if (c.expects.isEmpty())
        c.problems << path + QStringLiteral(": no '# expect: ' line");
    return c;
}

// The sidecar of a file case: NAME.parascope.json or NAME.json -> NAME.expect.
QString sidecarOf(const QString &name)
{
    QString base = name;
    base.chop(name.endsWith(QLatin1String(".parascope.json")) ? 15 : 5);
    return base + QStringLiteral(".expect");
}

bool isScenarioFile(const QString &name)
{
    return name.endsWith(QLatin1String(".parascope.json"));
}

bool isPresetsFile(const QString &name)
{
    return name.startsWith(QLatin1String("presets-")) && name.endsWith(QLatin1String(".json")) &&
           !isScenarioFile(name);
}

// A character that must not reach a terminal raw.
bool isControl(QChar c)
{
    const char16_t u = c.unicode();
    return (u < 0x20 && u != u'\n') || (u >= 0x7f && u <= 0x9f) || (u >= 0x202a && u <= 0x202e) ||
           (u >= 0x2066 && u <= 0x2069) || u == 0x2028 || u == 0x2029;
}

} // namespace

class TestHostile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_made;

    QString made(const QString &name) const { return m_made.filePath(name); }

private Q_SLOTS:
    // Files are written with plain string literals: moc misreads raw ones that end in '"'.
    void initTestCase()
    {
        QVERIFY(m_made.isValid());
        const QByteArray scenario = R"({"format": "parascope-scenario", "version": 1, )";
        const QByteArray presets = R"({"format": "parascope-presets", "version": 1, )";
        QCOMPARE(mkfifo(QFile::encodeName(made("pipe.parascope.json")).constData(), 0600), 0);
        constexpr qint64 k100MB = 100 * 1024 * 1024;
        QVERIFY(writeSparse(made("large.parascope.json"), scenario + "\"model\": \"", k100MB));
        QVERIFY(writeSparse(made("presets-large.json"), presets + "\"models\": [", k100MB));
        QVERIFY(writeFile(made("long-string.parascope.json"),
                          scenario + "\"model\": \"" + QByteArray(3 << 20, 's') + "\"}"));
        QVERIFY(writeFile(made("long-key.parascope.json"),
                          scenario + "\"" + QByteArray(1 << 20, 'k') + "\": 1}"));
    }

    // Every file in the folder is a case, or a case's sidecar, or the README.
    void folderIsWellFormed()
    {
        const QDir dir(kHostileDir);
        const QStringList names = dir.entryList(QDir::Files, QDir::Name);
        QVERIFY(names.size() > 1);
        QStringList problems;
        QStringList sidecars;
        for (const QString &name : names) {
            if (name == QLatin1String("README.md") || name.endsWith(QLatin1String(".expect")))
                continue;
            if (name.endsWith(QLatin1String(".args"))) {
                problems << readCase(dir.filePath(name), true).problems;
            } else if (isScenarioFile(name) || isPresetsFile(name)) {
                sidecars << sidecarOf(name);
                if (!dir.exists(sidecarOf(name)))
                    problems << name + QStringLiteral(": no ") + sidecarOf(name);
                else
                    problems << readCase(dir.filePath(sidecarOf(name)), false).problems;
            } else {
                problems << name + QStringLiteral(": neither a case nor a sidecar");
            }
        }
        for (const QString &name : names)
            if (name.endsWith(QLatin1String(".expect")) && !sidecars.contains(name))
                problems << name + QStringLiteral(": a sidecar without its file");
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void refused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("expects");
        QTest::addColumn<QString>("file"); // a path stderr must name, if any

        const QDir dir(kHostileDir);
        for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
            const QString path = dir.absoluteFilePath(name);
            if (name.endsWith(QLatin1String(".args"))) {
                const CaseFile c = readCase(path, true);
                QTest::newRow(qPrintable(name)) << c.arguments << c.expects << QString();
            } else if (isScenarioFile(name)) {
                QTest::newRow(qPrintable(name))
                    << QStringList{QStringLiteral("eval"), path}
                    << readCase(dir.filePath(sidecarOf(name)), false).expects << path;
            } else if (isPresetsFile(name)) {
                QTest::newRow(qPrintable(name))
                    << QStringList{QStringLiteral("eval"), QStringLiteral("--presets"), path}
                    << readCase(dir.filePath(sidecarOf(name)), false).expects << path;
            }
        }

        // Made at run time (README.md, "Made at run time").
        const QString eval = QStringLiteral("eval");
        const QString pipe = made("pipe.parascope.json");
        const QStringList notRegular{QStringLiteral("not a regular file")};
        QTest::newRow("made: a named pipe as the scenario")
            << QStringList{eval, pipe} << notRegular << pipe;
        QTest::newRow("made: a named pipe as --presets")
            << QStringList{eval, QStringLiteral("--presets"), pipe}
            << QStringList{QStringLiteral("--presets: cannot read"), notRegular[0]} << pipe;
        QTest::newRow("made: a named pipe as --compare")
            << QStringList{eval, QStringLiteral("--compare"), pipe}
            << QStringList{QStringLiteral("--compare: cannot read"), notRegular[0]} << pipe;
        const QStringList tooLarge{QStringLiteral("104857600 bytes, more than the 4 MiB")};
        QTest::newRow("made: a 100 MB scenario") << QStringList{eval, made("large.parascope.json")}
                                                 << tooLarge << made("large.parascope.json");
        QTest::newRow("made: 100 MB of presets")
            << QStringList{eval, QStringLiteral("--presets"), made("presets-large.json")}
            << tooLarge << made("presets-large.json");
        QTest::newRow("made: a 3 MiB model id")
            << QStringList{eval, made("long-string.parascope.json")}
            << QStringList{QStringLiteral("model: unknown preset '") + QString(60, u's') +
                           QStringLiteral("\u2026' (3145728 bytes)")}
            << made("long-string.parascope.json");
        QTest::newRow("made: a 1 MiB key")
            << QStringList{eval, made("long-key.parascope.json")}
            << QStringList{QString(60, u'k') +
                           QStringLiteral("\u2026 (1048576 bytes): unknown key")}
            << made("long-key.parascope.json");
        QTest::newRow("made: a --set value of 100000 characters")
            << QStringList{eval, QStringLiteral("--set"),
                           QStringLiteral("model=") + QString(100'000, u'x')}
            << QStringList{QStringLiteral("model: unknown preset '") + QString(60, u'x') +
                           QStringLiteral("\u2026' (100000 bytes)")}
            << QString();
    }
    void refused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, expects);
        QFETCH(QString, file);
        QVERIFY(!arguments.isEmpty());
        const ParascopeRun r = runParascope(arguments, kHangGuardMs);
        QVERIFY2(!r.timedOut, "still running after 60 s");
        QVERIFY2(!r.crashed, qPrintable(r.err.left(kMaxOutput)));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.size() < kMaxOutput, qPrintable(r.err.left(kMaxOutput)));
        QVERIFY2(r.out.size() < kMaxOutput, qPrintable(r.out.left(kMaxOutput)));
        QVERIFY2(r.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(r.err));
        for (const QChar c : r.err)
            QVERIFY2(!isControl(c), qPrintable(QStringLiteral("U+%1 in: %2")
                                                   .arg(c.unicode(), 4, 16, QLatin1Char('0'))
                                                   .arg(r.err)));
        for (const QString &text : expects)
            QVERIFY2(
                r.err.contains(text),
                qPrintable(QStringLiteral("'%1' not in: %2").arg(text, r.err.toHtmlEscaped())));
        if (!file.isEmpty())
            QVERIFY2(r.err.contains(file), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
