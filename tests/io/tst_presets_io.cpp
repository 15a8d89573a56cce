// Presets as data (issue 2, item 4): the built-in files and user files that add
// or override entries.
#include "core/evaluate.h"
#include "io/presets_io.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace core;

class TestPresetsIo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtinIds_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("isModel");
        // DESIGN §4: identifiers users type, kept stable once shipped.
        for (const char *id : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "gpt-3-175b"})
            QTest::addRow("DESIGN §4: model %s", id) << QString::fromLatin1(id) << true;
        for (const char *id : {"a100-80gb", "h100-sxm", "h200", "b200", "mi300x", "sn40l", "sn30"})
            QTest::addRow("DESIGN §4: device %s", id) << QString::fromLatin1(id) << false;
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

    void seedDeviceTable_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("precision");
        QTest::addColumn<double>("tflops");
        QTest::addColumn<double>("memoryGib");
        QTest::addColumn<double>("tdp");
        QTest::addColumn<QString>("process");
        // Seed table: SN40L 1,024 TFLOPS FP8, 64 GB, 800 W, 5 nm; SN30 330 TFLOPS FP16,
        // 32 GB, 400 W, 7 nm.
        QTest::addRow("seed table: SN40L")
            << "sn40l" << int(Precision::fp8) << 1024.0 << 64.0 << 800.0 << "5 nm";
        QTest::addRow("seed table: SN30")
            << "sn30" << int(Precision::fp16) << 330.0 << 32.0 << 400.0 << "7 nm";
    }
    void seedDeviceTable()
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

    // DESIGN §3.2: NVLink is quoted bidirectional; the model uses per direction.
    // Seed ¶3: "NVLink provides 600 GB/s ... InfiniBand is 10 to 30 times slower".
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

    void userConfigLocationIsRead()
    {
        // Tests run with XDG_CONFIG_HOME pointing into the build folder.
        const QString path = io::userPresetsPath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "parascope-presets", "version": 1,
            "devices": [{"id": "lab-card", "memory_gib": 24}]})");
        file.close();
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
