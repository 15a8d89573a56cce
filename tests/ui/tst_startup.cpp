// The window as the command line starts it (ui::startWindow): a damaged
// scenario file or a broken presets file never keeps it from opening. It opens
// without the file and says why in a message box naming the file and the key.
#include "core/scenario.h"
#include "io/presets_io.h"
#include "modal_answerer.h"
#include "test_files.h"
#include "ui/application.h"
#include "ui/file_actions.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ui;

namespace {

QStringList ids(const std::vector<core::ModelSpec> &models)
{
    QStringList out;
    for (const auto &m : models)
        out << QString::fromStdString(m.id);
    return out;
}

// One model that reads and one that does not: a refused file adds neither.
const QByteArray kBrokenPresets = R"({"format": "parascope-presets", "version": 1,
    "models": [{"id": "mine-1b", "name": "Mine", "params": 1000000000},
               {"id": "bad", "layers": 2, "hidden": -1}]})";

const QByteArray kGoodPresets = R"({"format": "parascope-presets", "version": 1,
    "models": [{"id": "mine-1b", "name": "Mine", "params": 1000000000}]})";

} // namespace

class TestStartup : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_config;

    // The window started with `arguments` after the program's name, and what the
    // message boxes it showed once on screen said (each answered with OK).
    static std::optional<StartedWindow> start(const QStringList &arguments, QStringList &messages,
                                              int expectedMessages)
    {
        ModalAnswerer answerer;
        QString error;
        auto started = startWindow(QStringList{"parascope"} + arguments, error);
        if (!started || !QTest::qWaitForWindowExposed(started->window.get()))
            return std::nullopt;
        QDeadlineTimer deadline(10000);
        while (answerer.messages.size() < expectedMessages && !deadline.hasExpired())
            QTest::qWait(20);
        QTest::qWait(100); // and no more than those
        messages = answerer.messages;
        return started;
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Presets and settings of this test only: it writes a broken presets.json.
        QVERIFY(m_config.isValid());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_config.path()));
        QVERIFY(io::userPresetsPath().startsWith(m_config.path()));
    }

    void cleanup() { QFile::remove(io::userPresetsPath()); }

    void damagedScenario_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        // tests/data/damaged/ (see tst_scenario_files): read errors and a validation error.
        QTest::addRow("array for a count") << "wrong-type"
                                           << "microbatches: expected a whole number";
        QTest::addRow("unknown key") << "unknown-key"
                                     << "pipeline: unknown key";
        QTest::addRow("truncated") << "truncated"
                                   << "not a valid scenario file";
        QTest::addRow("64 stages for 32 layers") << "too-many-stages"
                                                 << "pp: 64 stages exceed";
    }

    // A double-click on a damaged file: the window opens on the default scenario
    // and shows File → Open's message, naming the file and the key.
    void damagedScenario()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const QString path =
            QFINDTESTDATA(QStringLiteral("../data/damaged/%1.parascope.json").arg(file));
        QVERIFY(!path.isEmpty());
        QStringList messages;
        auto started = start({path}, messages, 1);
        QVERIFY(started);
        QCOMPARE(messages.size(), 1);
        QVERIFY(started->window->isVisible());
        QVERIFY(started->document->scenario() == core::Scenario{});
        QVERIFY(started->document->filePath().isEmpty());
        QVERIFY(!started->document->isModified());
        const QString shown = messages.constFirst();
        QVERIFY2(shown.startsWith("Cannot open scenario: "), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(path)), qPrintable(shown));
        QVERIFY2(shown.contains(message), qPrintable(shown));

        // The same message as File → Open gives for that file.
        ModalAnswerer answerer;
        QVERIFY(!started->window->fileActions()->open(path));
        QCOMPARE(answerer.messages, QStringList{shown});
    }

    void missingScenario()
    {
        const QString path = m_config.filePath("gone.parascope.json");
        QStringList messages;
        auto started = start({path}, messages, 1);
        QVERIFY(started);
        QCOMPARE(messages.size(), 1);
        QVERIFY(started->document->scenario() == core::Scenario{});
        QVERIFY2(messages.constFirst().contains(QDir::toNativeSeparators(path)),
                 qPrintable(messages.constFirst()));
    }

    void brokenPresets_data()
    {
        QTest::addColumn<bool>("userFile");
        QTest::addRow("the user's presets.json") << true;
        QTest::addRow("--presets FILE") << false;
    }

    // The window opens with the presets it can read and names the file and the key
    // of the one it left out.
    void brokenPresets()
    {
        QFETCH(bool, userFile);
        const QString path =
            userFile ? io::userPresetsPath() : m_config.filePath("extra-presets.json");
        QVERIFY(writeFile(path, kBrokenPresets));
        QStringList messages;
        auto started =
            start(userFile ? QStringList{} : QStringList{"--presets", path}, messages, 1);
        QVERIFY(started);
        QCOMPARE(messages.size(), 1);
        QVERIFY(started->window->isVisible());
        QCOMPARE(ids(started->document->presets().models), ids(io::builtinPresets().models));
        const QString shown = messages.constFirst();
        QVERIFY2(shown.startsWith("Cannot read presets: "), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(path)), qPrintable(shown));
        QVERIFY2(shown.contains("models[1].hidden"), qPrintable(shown));
    }

    // Both broken: two messages, presets first; the window still opens.
    void brokenPresetsAndScenario()
    {
        QVERIFY(writeFile(io::userPresetsPath(), kBrokenPresets));
        const QString scenario =
            QFINDTESTDATA(QStringLiteral("../data/damaged/wrong-type.parascope.json"));
        QStringList messages;
        auto started = start({scenario}, messages, 2);
        QVERIFY(started);
        QCOMPARE(messages.size(), 2);
        QVERIFY(messages.at(0).startsWith("Cannot read presets: "));
        QVERIFY(messages.at(1).startsWith("Cannot open scenario: "));
    }

    // What reads still opens without a word.
    void goodFilesOpenSilently()
    {
        QVERIFY(writeFile(io::userPresetsPath(), kGoodPresets));
        const QString path = m_config.filePath("good.parascope.json");
        QVERIFY(writeFile(path, R"({"format": "parascope-scenario", "version": 1, "tp": 4})"));
        QStringList messages;
        auto started = start({path}, messages, 0);
        QVERIFY(started);
        QCOMPARE(messages, QStringList{});
        QVERIFY(ids(started->document->presets().models).contains("mine-1b"));
        QCOMPARE(started->document->scenario().tp, 4);
        QCOMPARE(started->document->filePath(), path);
    }

    // Only arguments that cannot be parsed keep the window closed (exit 2 in main).
    void unknownOption()
    {
        QString error;
        QVERIFY(!startWindow({"parascope", "--no-such-option"}, error));
        QVERIFY2(error.contains("no-such-option"), qPrintable(error));
    }
};

QTEST_MAIN(TestStartup)
#include "tst_startup.moc"
