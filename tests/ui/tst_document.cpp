// The document (docs/DESIGN.md §2, §5): every edit undoable, drags merged,
// bursts evaluated once, changes named.
#include "core/fields.h"
#include "io/presets_io.h"
#include "ui/scenario_document.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace ui;

class TestDocument : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void burstIsEvaluatedOnce()
    {
        ScenarioDocument document(io::builtinPresets());
        QSignalSpy changed(&document, &ScenarioDocument::changed);
        QVERIFY(document.setField("pp", "2"));
        QVERIFY(document.setField("tp", "4"));
        QVERIFY(document.setField("microbatches", "32"));
        QCOMPARE(changed.count(), 0);
        QTRY_COMPARE(changed.count(), 1);
        const auto keys = changed.takeFirst().at(0).value<FieldMask>();
        QVERIFY(keys.contains("pp"));
        QVERIFY(keys.contains("tp"));
        QVERIFY(keys.contains("microbatches"));
        QVERIFY(!keys.contains("model"));
        QCOMPARE(document.report().stages.size(), std::size_t(2));
    }

    // A change names its keys one bit each: every key of the table has its bit, the last one
    // included, and all() holds them all (the mask once held 64, with 53 keys in use).
    void everyKeyHasItsBit()
    {
        const auto fields = core::scenarioFields();
        QVERIFY(fields.size() <= FieldMask::kCapacity);
        const FieldMask all = FieldMask::all();
        for (const core::FieldInfo &field : fields) {
            const QString key = QString::fromUtf8(field.key.data(), qsizetype(field.key.size()));
            QVERIFY2(all.contains(key), qPrintable(key));
        }
        const core::FieldInfo &last = fields.back();
        const QString lastKey = QString::fromUtf8(last.key.data(), qsizetype(last.key.size()));
        const FieldMask one = FieldMask::of({std::string(last.key).c_str()});
        QVERIFY(one.contains(lastKey) && !one.contains("tp") && all.intersects(one));
    }

    void unparsableValueChangesNothing()
    {
        ScenarioDocument document(io::builtinPresets());
        QVERIFY(!document.setField("tp", "four"));
        QVERIFY(!document.setField("gpus", "8"));
        QCOMPARE(document.undoStack()->count(), 0);
        QVERIFY(document.scenario() == core::Scenario{});
    }

    void everyEditIsOneUndoStep()
    {
        ScenarioDocument document(io::builtinPresets());
        const core::Scenario start = document.scenario();
        document.setField("pp", "2");
        document.setField("precision", "fp8");
        QCOMPARE(document.undoStack()->count(), 2);
        document.undoStack()->undo();
        QVERIFY(document.scenario().precision == core::Precision::bf16);
        QCOMPARE(document.scenario().pp, 2);
        document.undoStack()->undo();
        QVERIFY(document.scenario() == start);
        document.undoStack()->redo();
        document.undoStack()->redo();
        QVERIFY(document.scenario().precision == core::Precision::fp8);
    }

    void aDragMergesIntoOneStep()
    {
        ScenarioDocument document(io::builtinPresets());
        const int drag = document.beginGesture();
        for (int m : {17, 20, 40, 64, 100})
            document.setField("microbatches", QString::number(m), drag);
        QCOMPARE(document.undoStack()->count(), 1);
        QCOMPARE(document.scenario().microbatches, 100);
        // A second drag of the same slider is a step of its own.
        const int again = document.beginGesture();
        document.setField("microbatches", "8", again);
        document.setField("microbatches", "4", again);
        QCOMPARE(document.undoStack()->count(), 2);
        document.undoStack()->undo();
        QCOMPARE(document.scenario().microbatches, 100);
        document.undoStack()->undo();
        QCOMPARE(document.scenario().microbatches, 16);
    }

    // A drag that returns to its start leaves no step and no unsaved mark (docs/DESIGN.md §5).
    void aDragBackToItsStartLeavesNoStep_data()
    {
        QTest::addColumn<bool>("saved");
        QTest::addRow("untitled") << false;
        QTest::addRow("saved file") << true;
    }
    void aDragBackToItsStartLeavesNoStep()
    {
        QFETCH(bool, saved);
        ScenarioDocument document(io::builtinPresets());
        QTemporaryDir dir;
        if (saved)
            QVERIFY(!document.save(dir.filePath("s.parascope.json")));
        document.setField("pp", "2");
        const int steps = document.undoStack()->count();
        const int drag = document.beginGesture();
        for (int m : {20, 40, 33, 16})
            document.setField("microbatches", QString::number(m), drag);
        QCOMPARE(document.undoStack()->count(), steps);
        QCOMPARE(document.scenario().microbatches, 16);
        document.undoStack()->undo(); // the pp edit, not an empty step
        QCOMPARE(document.scenario().pp, 4);
        QVERIFY(!document.isModified());
    }

    // Loading an example into an untitled, untouched document is nothing to save; into edited
    // work or a file it is an edit like any other.
    void anExampleIsNotUnsavedWork_data()
    {
        QTest::addColumn<bool>("edited");
        QTest::addColumn<bool>("modified");
        QTest::addRow("untouched") << false << false;
        QTest::addRow("after an edit") << true << true;
    }
    void anExampleIsNotUnsavedWork()
    {
        QFETCH(bool, edited);
        QFETCH(bool, modified);
        ScenarioDocument document(io::builtinPresets());
        if (edited)
            document.setField("pp", "2");
        core::Scenario example;
        example.model = "llama-3.1-8b";
        document.loadExample(example, "Example");
        QCOMPARE(document.isModified(), modified);
        QCOMPARE(document.scenario().model, std::string("llama-3.1-8b"));
        document.undoStack()->undo(); // still undoable
        QVERIFY(document.scenario().model != "llama-3.1-8b");
    }

    void invalidScenarioKeepsTheLastValidReport()
    {
        ScenarioDocument document(io::builtinPresets());
        document.setField("pp", "100"); // more stages than the 80 layers (docs/DESIGN.md §4)
        document.flush();
        QVERIFY(!document.report().ok());
        QCOMPARE(QString::fromStdString(document.report().error->key), QStringLiteral("pp"));
        QVERIFY(document.lastValidReport().ok());
        QCOMPARE(document.lastValidReport().stages.size(), std::size_t(4));
    }

    void resetClearsHistory()
    {
        ScenarioDocument document(io::builtinPresets());
        document.setField("pp", "2");
        core::Scenario other;
        other.model = "llama-3.1-8b";
        document.reset(other);
        document.flush();
        QCOMPARE(document.undoStack()->count(), 0);
        QCOMPARE(document.report().modelId, std::string("llama-3.1-8b"));
    }
};

QTEST_MAIN(TestDocument)
#include "tst_document.moc"
