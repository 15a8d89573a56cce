// Presets as data (docs/DESIGN.md §3.2): the built-in files and user files that add
// or override entries.
#include "core/evaluate.h"
#include "core/validate.h"
#include "io/input_file.h"
#include "io/presets_io.h"
#include "test_files.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace core;

class TestPresetsIo : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCOMPARE(mkfifo(QFile::encodeName(m_dir.filePath("pipe.json")).constData(), 0600), 0);
        QVERIFY(writeSparse(m_dir.filePath("large.json"), {}, 100 * 1024 * 1024));
    }

    void builtinIds_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("isModel");
        // docs/DESIGN.md §4: identifiers users type, kept stable once shipped.
        for (const char *id : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "gpt-3-175b"})
            QTest::addRow("docs/DESIGN.md §4: model %s", id) << QString::fromLatin1(id) << true;
        for (const char *id : {"a100-80gb", "h100-sxm", "h200", "b200", "mi300x", "sn40l", "sn30"})
            QTest::addRow("docs/DESIGN.md §4: device %s", id) << QString::fromLatin1(id) << false;
    }
    void builtinIds()
    {
        QFETCH(QString, id);
        QFETCH(bool, isModel);
        const Presets presets = io::builtinPresets();
        if (isModel) {
            const ModelSpec *m = presets.model(id.toStdString());
            QVERIFY(m);
            QVERIFY(!m->source.empty());
        } else {
            const DeviceSpec *d = presets.device(id.toStdString());
            QVERIFY(d);
            QVERIFY(!d->source.empty());
        }
    }

    void sambaNovaDeviceTable_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("precision");
        QTest::addColumn<double>("tflops");
        QTest::addColumn<double>("memoryGib");
        QTest::addColumn<double>("tdp");
        QTest::addColumn<QString>("process");
        // docs/worked-examples.md §3: SN40L 1,024 TFLOPS FP8, 64 GB, 800 W, 5 nm; SN30 330 TFLOPS
        // FP16, 32 GB, 400 W, 7 nm.
        QTest::addRow("SambaNova preset: SN40L")
            << "sn40l" << int(Precision::fp8) << 1024.0 << 64.0 << 800.0 << "5 nm";
        QTest::addRow("SambaNova preset: SN30")
            << "sn30" << int(Precision::fp16) << 330.0 << 32.0 << 400.0 << "7 nm";
    }
    void sambaNovaDeviceTable()
    {
        QFETCH(QString, id);
        QFETCH(int, precision);
        QFETCH(double, tflops);
        QFETCH(double, memoryGib);
        QFETCH(double, tdp);
        QFETCH(QString, process);
        const Presets presets = io::builtinPresets();
        const DeviceSpec *d = presets.device(id.toStdString());
        QVERIFY(d);
        QCOMPARE(d->tflops.at(Precision(precision)), tflops);
        QCOMPARE(d->memoryGib, memoryGib);
        QCOMPARE(d->tdpW, tdp);
        QCOMPARE(QString::fromStdString(d->process), process);
    }

    // docs/DESIGN.md §3.2: NVLink is quoted bidirectional; the model uses per direction.
    // docs/worked-examples.md §7: NVLink's 600 GB/s counts both directions; HDR InfiniBand is 12
    // times slower.
    void a100Links()
    {
        const Presets presets = io::builtinPresets();
        const DeviceSpec *a100 = presets.device("a100-80gb");
        QCOMPARE(a100->intraNodeGbPerS * 2, 600.0);
        const double ratio = a100->intraNodeGbPerS * 2 / a100->interNodeGbPerS;
        QVERIFY(ratio >= 10 && ratio <= 30);
    }

    void userFileAddsAndOverrides()
    {
        Presets presets = io::builtinPresets();
        const std::size_t models = presets.models.size();
        const QByteArray json = R"({"format": "parascope-presets", "version": 1,
            "models": [{"id": "my-13b", "name": "Mine", "params": 13000000000}],
            "devices": [{"id": "h100-sxm", "name": "H100 lab", "memory_gib": 94,
                         "tflops": {"bf16": 989}, "devices_per_node": 8}]})";
        QVERIFY(!io::mergePresets(presets, json));
        QCOMPARE(presets.models.size(), models + 1);
        QCOMPARE(presets.device("h100-sxm")->memoryGib, 94.0);
        QCOMPARE(exactParams(*presets.model("my-13b")), std::int64_t(13'000'000'000));
    }

    void badFileChangesNothing()
    {
        Presets presets = io::builtinPresets();
        const Presets before = presets;
        const QByteArray json = R"({"format": "parascope-presets", "version": 1,
            "models": [{"id": "ok", "params": 1}, {"id": "bad", "layers": 2, "hidden": -1}]})";
        const auto e = io::mergePresets(presets, json);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), QStringLiteral("models[1].hidden"));
        QCOMPARE(presets.models.size(), before.models.size());
    }

    // README "Presets": "models" and "devices" are arrays of objects, and a file gives
    // each key once. Before, a wrong container was read as an empty list and a key
    // given twice kept its last value, silently.
    void refused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        const QByteArray head = R"({"format": "parascope-presets", "version": 1, )";
        QTest::addRow("models as an object") << head + R"("models": {"id": "m", "params": 10}})"
                                             << "models"
                                             << "expected an array of objects, got an object";
        QTest::addRow("models as a string") << head + R"("models": "llama"})"
                                            << "models"
                                            << "expected an array of objects, got 'llama'";
        QTest::addRow("devices as an object")
            << head + R"("devices": {"id": "d", "memory_gib": 8}})"
            << "devices"
            << "expected an array of objects, got an object";
        QTest::addRow("devices as null") << head + R"("devices": null})"
                                         << "devices"
                                         << "expected an array of objects, got null";
        QTest::addRow("a number among the models") << head + R"("models": [7]})"
                                                   << "models[0]"
                                                   << "expected an object, got 7";
        QTest::addRow("models twice")
            << head + R"("models": [], "models": [{"id": "m", "params": 10}]})"
            << "models"
            << "duplicate key";
        QTest::addRow("a key twice in the second model")
            << head + R"("models": [{"id": "a", "params": 10},
                                   {"id": "b", "params": 10, "params": 20}]})"
            << "models[1].params"
            << "duplicate key";
        QTest::addRow("a precision twice in a device's peaks")
            << head + R"("devices": [{"id": "d", "memory_gib": 8,
                                     "tflops": {"fp8": 1, "fp8": 2}}]})"
            << "devices[0].tflops.fp8"
            << "duplicate key";
        QTest::addRow("params of 1e18") << head + R"("models": [{"id": "m", "params": 1e18}]})"
                                        << "models[0].params"
                                        << "1e18 is more than the limit of 9e15 parameters";
        QTest::addRow("memory of 2^20 GiB + 1")
            << head + R"("devices": [{"id": "d", "memory_gib": 1048577}]})"
            << "devices[0].memory_gib"
            << "must be at most 1048576 GiB (1 PiB), got 1048577 GiB";
        QTest::addRow("an ANSI escape in a model id")
            << head + "\"models\": [{\"id\": \"\x1b[2J\", \"params\": 10}]}"
            << "models[0].id"
            << "must not contain control characters, got '\\x1b[2J'";
        QTest::addRow("a newline in a device name")
            << head + R"("devices": [{"id": "d", "name": "a\nb", "memory_gib": 8}]})"
            << "devices[0].name"
            << "must not contain control characters, got 'a\\nb'";
        QTest::addRow("an escape as a precision")
            << head + "\"devices\": [{\"id\": \"d\", \"memory_gib\": 8, "
                      "\"tflops\": {\"\x1b[31m\": 1}}]}"
            << "devices[0].tflops.\\x1b[31m"
            << "unknown precision";
        QTest::addRow("NaN for params") << head + R"("models": [{"id": "m", "params": NaN}]})"
                                        << "models[0].params"
                                        << "not a valid presets file";
        QTest::addRow("another format")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1})") << "format"
            << "expected \"parascope-presets\", got 'parascope-scenario'";
        QTest::addRow("version 2")
            << QByteArray(R"({"format": "parascope-presets", "version": 2})") << "version"
            << "expected 1, the version this Parascope reads, got 2";
        QTest::addRow("no version") << QByteArray(R"({"format": "parascope-presets"})") << "version"
                                    << "got nothing";
    }
    void refused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, key);
        QFETCH(QString, words);
        Presets presets = io::builtinPresets();
        const Presets before = presets;
        const auto e = io::mergePresets(presets, json);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        QVERIFY2(QString::fromStdString(e->message).contains(words), e->message.c_str());
        QVERIFY(presets.models == before.models && presets.devices == before.devices);
    }

    // A presets file's refusal names the file, and only regular files up to the limit
    // are read (README "Limits").
    void refusedFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("words");
        const QString bad = m_dir.filePath("bad.json");
        if (!writeFile(bad, R"({"format": "parascope-presets", "version": 1, "models": {}})"))
            qFatal("cannot write %s", qPrintable(bad));
        QTest::addRow("a wrong container") << bad << "models: expected an array";
        QTest::addRow("/dev/zero") << "/dev/zero"
                                   << "not a regular file";
        QTest::addRow("a named pipe") << m_dir.filePath("pipe.json") << "not a regular file";
        QTest::addRow("a folder") << m_dir.path() << "folder";
        QTest::addRow("100 MB") << m_dir.filePath("large.json")
                                << "104857600 bytes, more than the 4 MiB";
    }
    void refusedFiles()
    {
        QFETCH(QString, path);
        QFETCH(QString, words);
        Presets presets;
        const auto e = io::loadPresets(presets, path);
        QVERIFY(e);
        const QString message = QString::fromStdString(e->toString());
        QVERIFY2(message.contains(path), qPrintable(message));
        QVERIFY2(message.contains(words), qPrintable(message));
        QVERIFY(presets.models.empty());
    }

    // 100,000 models (by size) fit the file-size limit and merge in linear time: putting
    // them one by one searched every earlier entry, 21 s for this file. Later entries
    // with an id replace earlier ones where they stand.
    void manyModels()
    {
        constexpr int kCount = 100'000;
        QByteArray json = R"({"format": "parascope-presets", "version": 1, "models": [)";
        for (int i = 0; i < kCount; ++i)
            json += QStringLiteral(R"({"id": "m%1", "params": %2},)").arg(i).arg(i + 1).toUtf8();
        // Two that replace: a built-in model and one of the file's own.
        json += R"({"id": "llama-3.1-8b", "params": 8}, {"id": "m7", "params": 77}]})";
        QVERIFY(json.size() <= io::kMaxInputFileBytes);

        Presets presets = io::builtinPresets();
        const std::size_t builtin = presets.models.size();
        const auto e = io::mergePresets(presets, json);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QCOMPARE(presets.models.size(), builtin + kCount);
        QCOMPARE(presets.models[builtin].id, std::string("m0"));
        QCOMPARE(presets.models.back().id, "m" + std::to_string(kCount - 1));
        QCOMPARE(presets.model("m99999")->params, std::int64_t(kCount));
        QCOMPARE(presets.model("m7")->params, std::int64_t(77));
        QCOMPARE(presets.models[builtin + 7].id, std::string("m7"));
        QCOMPARE(presets.model("llama-3.1-8b")->params, std::int64_t(8));

        // A refusal lists a dozen of them, not all.
        Scenario s;
        s.model = "m-missing";
        const auto refused = validate(s, presets);
        QVERIFY(refused);
        QVERIFY2(
            refused->message.ends_with(" and " + std::to_string(builtin + kCount - 12) + " more"),
            refused->message.c_str());
        QVERIFY(refused->message.size() < 500);
    }

    void userConfigLocationIsRead()
    {
        // Tests run with XDG_CONFIG_HOME pointing into the build folder.
        const QString path = io::userPresetsPath();
        QVERIFY(writeFile(path, R"({"format": "parascope-presets", "version": 1,
            "devices": [{"id": "lab-card", "memory_gib": 24}]})"));
        Presets presets;
        const auto e = io::loadPresets(presets);
        QFile::remove(path);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QVERIFY(presets.device("lab-card"));
        QVERIFY(presets.device("h100-sxm"));
    }
};

QTEST_GUILESS_MAIN(TestPresetsIo)
#include "tst_presets_io.moc"
