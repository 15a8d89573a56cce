// Scenario files (DESIGN §4): round trips, and every way a file can be refused.
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace core;

class TestScenarioIo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("DESIGN §4: default scenario") << QStringList{};
        QTest::addRow("every key changed") << QStringList{"model=llama-3.1-405b",
                                                          "device=sn40l",
                                                          "precision=fp8",
                                                          "grad_precision=fp32",
                                                          "mode=inference",
                                                          "tp=16",
                                                          "pp=8",
                                                          "dp=3",
                                                          "zero=3",
                                                          "microbatches=32",
                                                          "microbatch_size=2",
                                                          "seq_len=8192",
                                                          "schedule=interleaved",
                                                          "virtual_stages=2",
                                                          "recompute=full",
                                                          "attention=eager",
                                                          "sequence_parallel=false",
                                                          "cache_outputs=false",
                                                          "reserve_gib=1.5",
                                                          "inter_node_gb_per_s=12.5"};
    }
    void roundTrip()
    {
        QFETCH(QStringList, settings);
        Scenario s;
        for (const QString &setting : settings)
            QVERIFY(!io::applySetting(s, setting));
        Scenario back;
        back.tp = 99; // must be overwritten
        const auto e = io::readScenario(io::writeScenario(s), back);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QVERIFY(back == s);
        // The file names every key, so it reads the same with other defaults.
        QCOMPARE(QString::fromUtf8(io::writeScenario(back)),
                 QString::fromUtf8(io::writeScenario(s)));
    }

    void inlineModelAndDeviceRoundTrip()
    {
        const QByteArray json = R"({
            "format": "parascope-scenario", "version": 1,
            "model": {"name": "tiny", "layers": 4, "hidden": 256, "heads": 4, "kv_heads": 2,
                      "ffn_hidden": 1024, "vocab": 1000, "gated_mlp": true},
            "device": {"name": "lab card", "memory_gib": 24, "tflops": {"bf16": 100},
                       "devices_per_node": 4, "intra_node_gb_per_s": 32},
            "tp": 2, "pp": 2, "dp": 1
        })";
        Scenario s;
        auto e = io::readScenario(json, s);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QVERIFY(s.customModel);
        QCOMPARE(s.customModel->kvHeads, 2);
        QCOMPARE(s.customModel->id, std::string("tiny"));
        QVERIFY(s.customDevice);
        QCOMPARE(s.customDevice->tflops.at(Precision::bf16), 100.0);
        Scenario back;
        e = io::readScenario(io::writeScenario(s), back);
        QVERIFY(!e);
        QVERIFY(back == s);
    }

    void sizeOnlyModel()
    {
        Scenario s;
        QVERIFY(!io::readScenario(R"({"format": "parascope-scenario", "version": 1,
            "model": {"name": "mystery", "params": 13000000000}})",
                                  s));
        QCOMPARE(s.customModel->params, std::int64_t(13'000'000'000));
        QVERIFY(!s.customModel->hasArchitecture());
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        QTest::addRow("DESIGN §6: not JSON") << QByteArray("{\"format\": ") << ""
                                             << "valid";
        QTest::addRow("DESIGN §6: an array") << QByteArray("[]") << ""
                                             << "object";
        QTest::addRow("DESIGN §6: empty file") << QByteArray() << ""
                                               << "valid";
        QTest::addRow("DESIGN §4: another format")
            << QByteArray(R"({"format": "something-else", "version": 1})") << "format"
            << "parascope-scenario";
        QTest::addRow("DESIGN §4: no version")
            << QByteArray(R"({"format": "parascope-scenario"})") << "version"
            << "whole";
        QTest::addRow("DESIGN §4: a newer version")
            << QByteArray(R"({"format": "parascope-scenario", "version": 2})") << "version"
            << "newer";
        QTest::addRow("DESIGN §4: unknown key")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "gpus": 8})") << "gpus"
            << "unknown key";
        QTest::addRow("DESIGN §4: tp as a string")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "tp": "4"})") << "tp"
            << "whole number";
        QTest::addRow("DESIGN §4: tp with a fraction")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "tp": 2.5})") << "tp"
            << "whole number";
        QTest::addRow("DESIGN §4: boolean as a string")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "cache_outputs": "no"})")
            << "cache_outputs"
            << "true or false";
        QTest::addRow("DESIGN §4: unknown schedule")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "schedule": "chimera"})")
            << "schedule"
            << "1f1b";
        QTest::addRow("DESIGN §4: inline model with a bad field")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 2, "hidden": "wide"}})")
            << "model.hidden"
            << "whole number";
        QTest::addRow("DESIGN §4: inline model, heads not dividing hidden")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 2, "hidden": 100, "heads": 3,
                                        "ffn_hidden": 400, "vocab": 10}})")
            << "model.heads"
            << "divide";
        QTest::addRow("DESIGN §4: inline model with an unknown key")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "params": 10, "experts": 8}})")
            << "model.experts"
            << "unknown key";
        QTest::addRow("DESIGN §4: inline device with an unknown precision")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tflops": {"fp6": 1}}})")
            << "device.tflops.fp6"
            << "unknown precision";
        QTest::addRow("DESIGN §4: inline device without memory")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d"}})")
            << "device.memory_gib"
            << "above 0";
        // Rows named after a fuzzer are inputs it found; the others are the same kinds of
        // overflow, found while writing its properties. Each input is in
        // tests/data/fuzz/scenario/.
        QTest::addRow("fuzz_scenario_file: an empty key named nothing")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "": 4})") << ""
            << "empty key; the keys are model, device";
        QTest::addRow("an empty key in an inline model")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "params": 10, "": 1}})")
            << "model"
            << "empty key";
        QTest::addRow("fuzz_scenario_file: negative nominal_params, lost on saving")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "mystery", "params": 13000000000,
                                        "nominal_params": -3000000000}})")
            << "model.nominal_params"
            << "must be from 0 to 9e+15";
        QTest::addRow("an inline model beyond 64-bit counts")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 2000000000, "hidden": 65536,
                                        "heads": 64, "ffn_hidden": 65536, "vocab": 10}})")
            << "model.layers"
            << "2000000000 layers of hidden size 65536 and FFN size 65536 come to about";
        QTest::addRow("an inline model's vocabulary beyond 64-bit counts")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 1, "hidden": 4194304,
                                        "heads": 64, "ffn_hidden": 1, "vocab": 2000000000}})")
            << "model.vocab"
            << "embeddings of 2000000000 tokens at hidden size 4194304 come to about 1.68e+16 "
               "parameters, more than the 9e+15 Parascope evaluates";
        QTest::addRow("an inline device's memory beyond 1 PiB")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 1e300}})")
            << "device.memory_gib"
            << "at most 1.05e+06";
        QTest::addRow("a peak of 1e-300 TFLOPS gave a step of 1e300 s")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tflops": {"bf16": 1e-300}}})")
            << "device.tflops"
            << "bf16 must be from 0.001 to 1e+09";
        QTest::addRow("a link of 1e-300 GB/s")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8,
                                         "intra_node_gb_per_s": 1e-300}})")
            << "device.intra_node_gb_per_s"
            << "must be 0 (not published) or from 0.001 to 1e+09";
        QTest::addRow("a TDP of 1e308 W gave infinite energy")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tdp_w": 1e308}})")
            << "device.tdp_w"
            << "must be from 0 (not published) to 1e+06";
    }
    void refused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, key);
        QFETCH(QString, words);
        Scenario s;
        s.tp = 2;
        const Scenario before = s;
        const auto e = io::readScenario(json, s);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        QVERIFY2(QString::fromStdString(e->message).contains(words), e->message.c_str());
        QVERIFY(s == before); // a refused file changes nothing
    }

    // docs/scenario.schema.json describes exactly the keys the program reads.
    void schemaListsEveryKey()
    {
        QFile file(QStringLiteral(PARASCOPE_SOURCE_DIR "/docs/scenario.schema.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject schema = QJsonDocument::fromJson(file.readAll()).object();
        QStringList documented = schema.value("properties").toObject().keys();
        QStringList read{"format", "version"};
        for (const auto &field : scenarioFields())
            read << QString::fromUtf8(field.key.data(), field.key.size());
        documented.sort();
        read.sort();
        QCOMPARE(documented, read);
    }

    // Every shipped example reads and evaluates.
    void examplesEvaluate()
    {
        const core::Presets presets = io::builtinPresets();
        const QDir dir(QStringLiteral(PARASCOPE_SOURCE_DIR "/resources/examples"));
        const QStringList files = dir.entryList({"*.parascope.json"});
        QVERIFY(files.size() >= 10);
        for (const QString &name : files) {
            Scenario s;
            const auto e = io::readScenarioFile(dir.filePath(name), s);
            QVERIFY2(!e, qPrintable(name));
            QVERIFY2(evaluate(s, presets).ok(), qPrintable(name));
        }
    }

    void settingsFromTheCommandLine_data()
    {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        QTest::addRow("no equals sign") << "tp"
                                        << "--set"
                                        << "expected KEY=VALUE";
        QTest::addRow("empty key") << "=4"
                                   << "--set"
                                   << "expected KEY=VALUE";
        QTest::addRow("unknown key") << "gpus=8"
                                     << "gpus"
                                     << "unknown key";
        // fuzz_set_option: the refusal read "unknown key", naming nothing.
        QTest::addRow("fuzz_set_option: a key of spaces") << " =4"
                                                          << ""
                                                          << "empty key; the keys are model, "
                                                             "device, precision";
    }
    void settingsFromTheCommandLine()
    {
        QFETCH(QString, assignment);
        QFETCH(QString, key);
        QFETCH(QString, words);
        Scenario s;
        const Scenario before = s;
        const auto e = io::applySetting(s, assignment);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->key), key);
        QVERIFY2(QString::fromStdString(e->message).contains(words), e->message.c_str());
        QVERIFY(s == before);
    }
};

QTEST_APPLESS_MAIN(TestScenarioIo)
#include "tst_scenario_io.moc"
