// Scenario files in the window's document: round trips, atomic saves, and a
// corpus of damaged files that must each be refused by name without harm.
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "modal_answerer.h"
#include "test_files.h"
#include "ui/config_actions.h"
#include "ui/file_actions.h"
#include "ui/main_window.h"
#include "ui/planner/planner_panel.h"
#include "ui/scenario_document.h"
#include "ui/widgets/slider_spin.h"
#include "widget_helpers.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <cerrno>
#include <optional>

using namespace ui;

class TestScenarioFiles : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void saveThenOpenIsTheSameScenario()
    {
        ScenarioDocument document(io::builtinPresets());
        document.setField("model", "llama-3.1-405b");
        document.setField("device", "b200");
        document.setField("precision", "fp8");
        document.setField("tp", "16");
        document.setField("reserve_gib", "3.5");
        document.setField("inter_node_gb_per_s", "12.5");
        QVERIFY(document.isModified());
        const core::Scenario saved = document.scenario();
        const QString path = m_dir.filePath("plan.parascope.json");
        QVERIFY(!document.save(path));
        QVERIFY(!document.isModified());
        QCOMPARE(document.filePath(), path);

        ScenarioDocument other(io::builtinPresets());
        QVERIFY(!other.open(path));
        QVERIFY(other.scenario() == saved);
        QCOMPARE(other.filePath(), path);
        QVERIFY(!other.isModified());
        other.setField("tp", "8");
        QVERIFY(other.isModified());
        other.undoStack()->undo();
        QVERIFY(!other.isModified());
    }

    // docs/DESIGN.md §6: Saving is atomic (QSaveFile): a failed save loses nothing.
    void failedSaveLeavesTheOldFileIntact()
    {
        const QString path = m_dir.filePath("keep.parascope.json");
        ScenarioDocument document(io::builtinPresets());
        QVERIFY(!document.save(path));
        const QByteArray before = readFile(path);
        QVERIFY(!before.isEmpty());

        document.setField("model", "llama-3.1-8b");
        // Make every write beyond 64 bytes fail (EFBIG) — even for root, unlike permissions.
        std::optional<QString> reason;
        {
            const FileSizeLimit limit(64);
            QVERIFY(limit.ok());
            reason = document.save(path);
        }

        QVERIFY(reason);
        // A failure names the path and the system's reason.
        QVERIFY2(reason->contains(path), qPrintable(*reason));
        QVERIFY2(reason->contains(systemReason(EFBIG)), qPrintable(*reason));
        QVERIFY(document.isModified()); // still unsaved
        QCOMPARE(readFile(path), before);
        // No temporary file is left behind.
        QCOMPARE(QDir(m_dir.path()).entryList({"keep*"}, QDir::Files).size(), 1);
    }

    // File → Save in the window, through FileActions: the message names the path and
    // the system's reason, and the old file and the unsaved mark stay.
    void failedSaveInTheWindowSaysWhy()
    {
        const QString path = m_dir.filePath("window.parascope.json");
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!document.save(path));
        const QByteArray before = readFile(path);
        QVERIFY(!before.isEmpty());
        document.setField("model", "llama-3.1-8b");

        ModalAnswerer answerer;
        bool saved = true;
        {
            const FileSizeLimit limit(64);
            QVERIFY(limit.ok());
            saved = window.fileActions()->save();
        }

        QVERIFY(!saved);
        QCOMPARE(answerer.messages.size(), 1);
        const QString shown = answerer.messages.constFirst();
        QVERIFY2(shown.startsWith("Cannot save scenario"), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(path)), qPrintable(shown));
        QVERIFY2(shown.contains(systemReason(EFBIG)), qPrintable(shown));
        QVERIFY(document.isModified());
        QVERIFY(window.isWindowModified());
        QCOMPARE(readFile(path), before);
        QCOMPARE(QDir(m_dir.path()).entryList({"window*"}, QDir::Files | QDir::Hidden).size(), 1);
    }

    void saveToAMissingFolderSaysWhy()
    {
        ScenarioDocument document(io::builtinPresets());
        const auto reason = document.save(m_dir.filePath("no/such/folder/plan.parascope.json"));
        QVERIFY(reason);
        QVERIFY(document.filePath().isEmpty());
    }

    void damagedFilesAreRefused_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        // The damaged files of tests/data/damaged/: truncated, wrong types, huge numbers, unknown
        // preset, newer version, not JSON — each with the words that explain it.
        QTest::addRow("truncated") << "truncated"
                                   << "not a valid scenario file";
        QTest::addRow("empty") << "empty"
                               << "not a valid scenario file";
        QTest::addRow("YAML, not JSON") << "yaml"
                                        << "not a valid scenario file";
        QTest::addRow("binary") << "binary"
                                << "not a valid scenario file";
        QTest::addRow("array for a count") << "wrong-type"
                                           << "microbatches: expected a whole number";
        QTest::addRow("1e300 for tp") << "huge-number"
                                      << "tp: 1e300 is more than the limit of 2147483647";
        QTest::addRow("count beyond int") << "huge-count"
                                          << "dp: 99999999999 is more than the limit of 2147483647";
        QTest::addRow("unknown preset") << "unknown-preset"
                                        << "model: unknown preset 'llama-9-1t'";
        QTest::addRow("newer version") << "newer-version"
                                       << "version: version 3 is newer";
        QTest::addRow("unknown key") << "unknown-key"
                                     << "pipeline: unknown key";
        QTest::addRow("a report, not a scenario") << "wrong-format"
                                                  << "format: expected";
        QTest::addRow("null model") << "null-model"
                                    << "model: expected a string";
        QTest::addRow("negative memory") << "negative-memory"
                                         << "device.memory_gib";
        QTest::addRow("64 stages for 32 layers") << "too-many-stages"
                                                 << "pp: 64 stages exceed";
    }
    void damagedFilesAreRefused()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const QString path =
            QFINDTESTDATA(QStringLiteral("../data/damaged/%1.parascope.json").arg(file));
        QVERIFY(!path.isEmpty());
        ScenarioDocument document(io::builtinPresets());
        document.setField("tp", "4");
        document.flush();
        const core::Scenario before = document.scenario();
        QSignalSpy fileState(&document, &ScenarioDocument::fileStateChanged);
        const auto reason = document.open(path);
        QVERIFY(reason);
        QVERIFY2(reason->contains(message), qPrintable(*reason));
        QVERIFY(document.scenario() == before); // never replaces the current scenario
        QCOMPARE(document.undoStack()->count(), 1);
        QCOMPARE(fileState.count(), 0);
    }

    // docs/import.md: File → Import… reads a model's config.json into the scenario as one
    // undoable step, and adds the model to the presets file.
    void importModelIntoTheWindow()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const core::Scenario before = document.scenario();
        const QString presets = m_dir.filePath(QStringLiteral("imported-presets.json"));
        const auto reason = window.configActions()->importFile(
            QStringLiteral(PARASCOPE_SOURCE_DIR
                           "/tests/data/configs/huggingface/mistral-7b-v0.1.json"),
            presets);
        QVERIFY2(!reason, qPrintable(reason.value_or(QString())));
        document.flush();
        const core::Scenario &s = document.scenario();
        QCOMPARE(s.model, std::string("mistral-7b-v0.1"));
        QVERIFY(s.customModel);
        // Mistral 7B v0.1's config.json: 32 layers of 4096, 32 heads, 8 KV heads, 14336 wide.
        QCOMPARE(s.customModel->layers, 32);
        QCOMPARE(s.customModel->kvHeads, 8);
        QCOMPARE(s.customModel->ffnHidden, 14336);
        QVERIFY(!document.report().error);
        QVERIFY(window.configActions()->lastSummary().contains(QStringLiteral("rope_theta")));
        QVERIFY2(window.configActions()->lastHeadline().contains(
                     QStringLiteral("(7,241,732,096 parameters)")),
                 qPrintable(window.configActions()->lastHeadline()));
        core::Presets saved;
        QVERIFY(!io::mergePresetsFile(saved, presets));
        QVERIFY(saved.model("mistral-7b-v0.1"));
        document.undoStack()->undo();
        QVERIFY(document.scenario() == before);
    }

    // A file that is no framework's, or contradicts itself, leaves the scenario as it was.
    void refusedImportChangesNothing_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("named");
        QTest::addRow("no framework's")
            << QByteArray("{\"colour\": \"blue\"}") << "not a configuration Parascope reads";
        QTest::addRow("DeepSpeed batch") << QByteArray(R"({"train_batch_size": 10,
            "train_micro_batch_size_per_gpu": 3, "gradient_accumulation_steps": 1})")
                                         << "train_batch_size";
    }
    void refusedImportChangesNothing()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, named);
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const QString path = m_dir.filePath(QStringLiteral("refused.json"));
        QVERIFY(writeFile(path, content));
        const core::Scenario before = document.scenario();
        const auto reason = window.configActions()->importFile(path);
        QVERIFY(reason);
        QVERIFY2(reason->contains(named), qPrintable(*reason));
        QVERIFY(document.scenario() == before);
        QCOMPARE(document.undoStack()->count(), 0);
    }

    // A scenario file dropped on the window opens as File → Open would: its path becomes the
    // document's.
    void droppedScenarioOpens()
    {
        const QString path = m_dir.filePath(QStringLiteral("dropped.parascope.json"));
        {
            ScenarioDocument saved(io::builtinPresets());
            saved.setField("tp", "4");
            saved.flush();
            QVERIFY(!saved.save(path));
        }
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        QVERIFY(!window.openDropped(path));
        QCOMPARE(document.filePath(), path);
        QCOMPARE(document.scenario().tp, 4);
        QVERIFY(!document.isModified());
    }

    // A Megatron-LM script beyond the controls' default ranges: GPT-3 175B's global batch of
    // 1,536 over micro-batch 1 and D = 1 is 1,536 micro-batches (the published
    // examples/gpt3/train_gpt3_175b_distributed.sh), and the box says so.
    void importedValuesBeyondTheControlsShow()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const auto reason = window.configActions()->importFile(QStringLiteral(
            PARASCOPE_SOURCE_DIR "/tests/data/configs/megatron/train_gpt3_175b_distributed.sh"));
        QVERIFY2(!reason, qPrintable(reason.value_or(QString())));
        document.flush();
        QCoreApplication::processEvents();
        QCOMPARE(document.scenario().microbatches, 1536);
        QCOMPARE(control<SliderSpin>(window, QStringLiteral("microbatches"))->value(), 1536);
    }

    // A DeepSpeed config dropped on the window merges into the scenario; Edit → Copy as
    // DeepSpeed config puts the layout back on the clipboard.
    void dropThenCopy()
    {
        ScenarioDocument document(io::builtinPresets());
        MainWindow window(&document);
        const QString path = m_dir.filePath(QStringLiteral("zero2.json"));
        // 64 sequences a step = 2 per device × 4 accumulation steps × D 8.
        QVERIFY(writeFile(path, R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
                                    "gradient_accumulation_steps": 4,
                                    "zero_optimization": {"stage": 1}, "bf16": {"enabled": true}})"));
        QVERIFY(!window.openDropped(path));
        document.flush();
        QCoreApplication::processEvents();
        QVERIFY(document.scenario().framework == core::Framework::deepspeed);
        QCOMPARE(document.scenario().dp, 8);
        QCOMPARE(document.scenario().microbatches, 4);
        QCOMPARE(document.scenario().microbatchSize, 2);
        QVERIFY(!ConfigActions::copyAs(document.lastValidScenario(), document.presets(),
                                       core::Framework::deepspeed));
        const QString copied = QGuiApplication::clipboard()->text();
        QVERIFY2(copied.contains(QStringLiteral("\"train_batch_size\": 64")), qPrintable(copied));
        // The Planner's row menu needs a row.
        QCOMPARE(window.planner()->copySelectedAs(core::Framework::megatron).value_or(QString()),
                 QStringLiteral("select a training layout first"));
    }
};

QTEST_MAIN(TestScenarioFiles)
#include "tst_scenario_files.moc"
