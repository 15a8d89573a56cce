// Scenario files (docs/DESIGN.md §4): round trips, and every way a file can be refused.
#include "core/evaluate.h"
#include "core/fields.h"
#include "io/input_file.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "test_files.h"
#include "test_scenarios.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace core;

class TestScenarioIo : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCOMPARE(mkfifo(QFile::encodeName(m_dir.filePath("pipe.parascope.json")).constData(), 0600),
                 0);
        QVERIFY(
            writeSparse(m_dir.filePath("large.parascope.json"), {}, io::kMaxInputFileBytes + 1));
    }

    void roundTrip_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("docs/DESIGN.md §4: default scenario") << QStringList{};
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
                                                          "inter_node_gb_per_s=12.5",
                                                          "mfu=0.25",
                                                          "dp_overlap=0.75"};
        // core/fields.cpp: mfu is auto unless a number forces it; the file says null.
        QTest::addRow("mfu auto, set back from a number") << QStringList{"mfu=0.5", "mfu=auto"};
    }
    void roundTrip()
    {
        QFETCH(QStringList, settings);
        const Scenario s = scenario(settings);
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
        // A document that is not JSON names the key whose value it broke off in.
        QTest::addRow("docs/DESIGN.md §6: not JSON") << QByteArray("{\"format\": ") << "format"
                                                     << "not a valid scenario file";
        QTest::addRow("docs/DESIGN.md §6: an array") << QByteArray("[]") << ""
                                                     << "object";
        QTest::addRow("docs/DESIGN.md §6: empty file") << QByteArray() << ""
                                                       << "valid";
        QTest::addRow("docs/DESIGN.md §4: another format")
            << QByteArray(R"({"format": "something-else", "version": 1})") << "format"
            << "parascope-scenario";
        QTest::addRow("docs/DESIGN.md §4: no version")
            << QByteArray(R"({"format": "parascope-scenario"})") << "version"
            << "whole";
        QTest::addRow("docs/DESIGN.md §4: a newer version")
            << QByteArray(R"({"format": "parascope-scenario", "version": 2})") << "version"
            << "newer";
        QTest::addRow("docs/DESIGN.md §4: unknown key")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "gpus": 8})") << "gpus"
            << "unknown key";
        QTest::addRow("docs/DESIGN.md §4: tp as a string")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "tp": "4"})") << "tp"
            << "whole number";
        QTest::addRow("docs/DESIGN.md §4: tp with a fraction")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "tp": 2.5})") << "tp"
            << "whole number";
        QTest::addRow("docs/DESIGN.md §4: boolean as a string")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "cache_outputs": "no"})")
            << "cache_outputs"
            << "true or false";
        QTest::addRow("docs/DESIGN.md §4: unknown schedule")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "schedule": "chimera"})")
            << "schedule"
            << "1f1b";
        QTest::addRow("docs/DESIGN.md §4: inline model with a bad field")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 2, "hidden": "wide"}})")
            << "model.hidden"
            << "whole number";
        QTest::addRow("docs/DESIGN.md §4: inline model, heads not dividing hidden")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 2, "hidden": 100, "heads": 3,
                                        "ffn_hidden": 400, "vocab": 10}})")
            << "model.heads"
            << "divide";
        QTest::addRow("docs/DESIGN.md §4: inline model with an unknown key")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "params": 10, "num_experts": 8}})")
            << "model.num_experts"
            << "unknown key";
        QTest::addRow("docs/DESIGN.md §4: inline device with an unknown precision")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tflops": {"fp6": 1}}})")
            << "device.tflops.fp6"
            << "unknown precision";
        QTest::addRow("docs/DESIGN.md §4: inline device without memory")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d"}})")
            << "device.memory_gib"
            << "above 0";
        // Rows named after a fuzzer are inputs it found; the others are the same kinds of
        // overflow, found while writing its properties. Each input is in
        // tests/data/fuzz/scenario/.
        QTest::addRow("fuzz_scenario_file: an empty key named nothing")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "": 4})") << ""
            << "empty key; the keys are framework, model, device";
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
            << "must be from 0 to 9e15 parameters, got -3e9";
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
            << "embeddings of 2000000000 tokens at hidden size 4194304 come to about 1.68e16 "
               "parameters, more than the limit of 9e15 parameters";
        QTest::addRow("an inline device's memory beyond 1 PiB")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 1e300}})")
            << "device.memory_gib"
            << "must be at most 1048576 GiB (1 PiB), got 1e300 GiB";
        QTest::addRow("a peak of 1e-300 TFLOPS gave a step of 1e300 s")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tflops": {"bf16": 1e-300}}})")
            << "device.tflops"
            << "bf16 must be from 0.001 to 1e9 TFLOPS, got 1e-300 TFLOPS";
        QTest::addRow("a link of 1e-300 GB/s")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8,
                                         "intra_node_gb_per_s": 1e-300}})")
            << "device.intra_node_gb_per_s"
            << "must be 0 (not published) or from 0.001 to 1e9 GB/s, got 1e-300 GB/s";
        QTest::addRow("a TDP of 1e308 W gave infinite energy")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8, "tdp_w": 1e308}})")
            << "device.tdp_w"
            << "must be from 0 (not published) to 1000000 W, got 1e308 W";

        // Numbers beyond what a key holds say so, with the limit, not "expected a whole
        // number" (they are whole).
        QTest::addRow("params of 1e18")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "params": 1e18}})")
            << "model.params"
            << "1e18 is more than the limit of 9e15 parameters";
        QTest::addRow("tp of 1e18") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                                                      "tp": 1e18})")
                                    << "tp"
                                    << "1e18 is more than the limit of 2147483647";
        QTest::addRow("tp of 2^63") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "tp": 9223372036854775808})")
                                    << "tp"
                                    << "9223372036854775808 is more than the limit of 2147483647";
        QTest::addRow("dp of -1e18") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                                                       "dp": -1e18})")
                                     << "dp"
                                     << "-1e18 is less than the limit of -2147483648";
        QTest::addRow("layers of 3e9")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": 3e9}})")
            << "model.layers"
            << "3e9 is more than the limit of 2147483647";
        QTest::addRow("version 2^63")
            << QByteArray(R"({"format": "parascope-scenario", "version": 9223372036854775808})")
            << "version"
            << "version 9223372036854775808 is newer";

        // A key given twice: QJsonDocument keeps the last one silently.
        QTest::addRow("tp twice") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                                                    "tp": 4, "tp": 8})")
                                  << "tp"
                                  << "duplicate key";
        QTest::addRow("tp twice, once escaped")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "tp": 4, "\u0074p": 8})")
            << "tp"
            << "duplicate key";
        QTest::addRow("format twice")
            << QByteArray(R"({"format": "parascope-scenario", "format": "parascope-scenario",
                              "version": 1})")
            << "format"
            << "duplicate key";
        QTest::addRow("a key twice in an inline model")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "params": 10, "params": 20}})")
            << "model.params"
            << "duplicate key";
        QTest::addRow("a precision twice in an inline device's peaks")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "device": {"name": "d", "memory_gib": 8,
                                         "tflops": {"bf16": 1, "bf16": 2}}})")
            << "device.tflops.bf16"
            << "duplicate key";
        QTest::addRow("an empty key twice")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "": 1, "": 2})") << ""
            << "empty key, given twice";

        QTest::addRow("mfu: a word other than auto")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "mfu": "fast"})")
            << "mfu"
            << "expected a number, got 'fast'";

        // Not JSON: the message names the key whose value broke off.
        QTest::addRow("NaN") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                                               "mfu": NaN})")
                             << "mfu"
                             << "not a valid scenario file: illegal number";
        QTest::addRow("Infinity") << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                                                    "reserve_gib": Infinity})")
                                  << "reserve_gib"
                                  << "not a valid scenario file";
        QTest::addRow("truncated inside an inline model")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1,
                              "model": {"name": "m", "layers": )")
            << "model.layers"
            << "not a valid scenario file";
        QTest::addRow("nested 2000 deep")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "model": )") +
                   QByteArray(2000, '[')
            // The path is cut once longer than 120 characters: "model" and 39 levels.
            << "model" + QString("[0]").repeated(39) + QString::fromUtf8("\u2026")
            << "too deeply nested";

        // Control characters are refused in what becomes a label, and escaped when echoed.
        QTest::addRow("an ANSI escape in an inline model's name")
            << QByteArray("{\"format\": \"parascope-scenario\", \"version\": 1, "
                          "\"model\": {\"name\": \"a\x1b[2Jb\", \"params\": 10}}")
            << "model.name"
            << "must not contain control characters, got 'a\\x1b[2Jb'";
        QTest::addRow("an ANSI escape in an unknown key")
            << QByteArray("{\"format\": \"parascope-scenario\", \"version\": 1, "
                          "\"\\u001b[31mred\": 1}")
            << "\\x1b[31mred"
            << "unknown key";
        QTest::addRow("an unknown key of 10000 characters")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, ")") +
                   QByteArray(10000, 'k') + QByteArray(R"(": 1})")
            << QString(60, QLatin1Char('k')) + QString::fromUtf8("\u2026 (10000 bytes)")
            << "unknown key";
        QTest::addRow("a string of 1 MiB for tp")
            << QByteArray(R"({"format": "parascope-scenario", "version": 1, "tp": ")") +
                   QByteArray(1 << 20, 's') + QByteArray(R"("})")
            << "tp"
            << "expected a whole number, got '" + QString(60, QLatin1Char('s')) +
                   QString::fromUtf8("\u2026' (1048576 bytes)");
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
        QVERIFY(e->message.size() < 500);
        QVERIFY(s == before); // a refused file changes nothing
    }

    // An optional number is unset by null (what writeScenario writes) or its word, "auto" for
    // mfu (core/fields.cpp), and forced by a number.
    void unsetOptionalNumbers_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("unset");
        QTest::addRow("null") << QByteArray("null") << true;
        QTest::addRow("auto") << QByteArray("\"auto\"") << true;
        QTest::addRow("a number") << QByteArray("0.4") << false;
    }
    void unsetOptionalNumbers()
    {
        QFETCH(QByteArray, value);
        QFETCH(bool, unset);
        Scenario s;
        s.mfu = 0.9;
        const auto e = io::readScenario(
            R"({"format": "parascope-scenario", "version": 1, "mfu": )" + value + "}", s);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QCOMPARE(s.mfu.has_value(), !unset);
        if (!unset)
            QCOMPARE(*s.mfu, 0.4);
        // inter_node_gb_per_s has no word: null only.
        Scenario t;
        const QByteArray bandwidth =
            R"({"format": "parascope-scenario", "version": 1, "inter_node_gb_per_s": )" + value +
            "}";
        QCOMPARE(bool(io::readScenario(bandwidth, t)), value == "\"auto\"");
    }

    // The same key in different objects is no duplicate.
    void sameKeyInTwoObjects()
    {
        Scenario s;
        const auto e = io::readScenario(R"({"format": "parascope-scenario", "version": 1,
            "model": {"name": "m", "params": 10},
            "device": {"name": "d", "memory_gib": 8, "tflops": {"bf16": 1}}})",
                                        s);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QCOMPARE(s.customModel->name, std::string("m"));
        QCOMPARE(s.customDevice->name, std::string("d"));
    }

    // Only regular files of at most io::kMaxInputFileBytes are read, and the refusal names
    // the path; a device or a pipe is never opened (/dev/zero grew memory without end, a
    // named pipe waited for a writer for ever).
    void refusedFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("words");
        QTest::addRow("/dev/zero") << "/dev/zero"
                                   << "not a regular file";
        QTest::addRow("a named pipe")
            << m_dir.filePath("pipe.parascope.json") << "not a regular file";
        QTest::addRow("a folder") << m_dir.path() << "folder";
        QTest::addRow("missing") << m_dir.filePath("missing.parascope.json") << "no such file";
        QTest::addRow("one byte beyond the limit")
            << m_dir.filePath("large.parascope.json")
            << QString::number(io::kMaxInputFileBytes + 1) + " bytes, more than the 4 MiB";
    }
    void refusedFiles()
    {
        QFETCH(QString, path);
        QFETCH(QString, words);
        Scenario s;
        s.tp = 2;
        const Scenario before = s;
        const auto e = io::readScenarioFile(path, s);
        QVERIFY(e);
        const QString message = QString::fromStdString(e->toString());
        QVERIFY2(message.contains(path), qPrintable(message));
        QVERIFY2(message.contains(words), qPrintable(message));
        QVERIFY(s == before);
    }

    // A file at the limit is read; the same file with a refusal inside names the file.
    void fileAtTheLimit()
    {
        QByteArray json = R"({"format": "parascope-scenario", "version": 1, "tp": 4})";
        json += QByteArray(io::kMaxInputFileBytes - json.size(), ' ');
        const QString path = m_dir.filePath("at-limit.parascope.json");
        QVERIFY(writeFile(path, json));
        QCOMPARE(qint64(json.size()), io::kMaxInputFileBytes);
        Scenario s;
        const auto e = io::readScenarioFile(path, s);
        QVERIFY2(!e, e ? e->toString().c_str() : "");
        QCOMPARE(s.tp, 4);

        QVERIFY(writeFile(path, R"({"format": "parascope-scenario", "version": 1, "tp": "four"})"));
        const auto refused = io::readScenarioFile(path, s);
        QVERIFY(refused);
        QCOMPARE(QString::fromStdString(refused->key), QStringLiteral("tp"));
        QVERIFY(QString::fromStdString(refused->message).endsWith(" (in " + path + ")"));
    }

    // docs/scenario.schema.json describes exactly the keys the program reads.
    void schemaListsEveryKey()
    {
        const QJsonObject schema =
            QJsonDocument::fromJson(readFile(PARASCOPE_SOURCE_DIR "/docs/scenario.schema.json"))
                .object();
        QVERIFY(!schema.isEmpty());
        QStringList documented = schema.value("properties").toObject().keys();
        QStringList read{"format", "version"};
        for (const auto &field : scenarioFields())
            read << QString::fromUtf8(field.key.data(), field.key.size());
        documented.sort();
        read.sort();
        QCOMPARE(documented, read);
        // And each choice key's names, as the program accepts them.
        const QJsonObject properties = schema.value("properties").toObject();
        for (const auto &field : scenarioFields()) {
            const QString key = QString::fromUtf8(field.key.data(), field.key.size());
            const QJsonArray names = properties.value(key).toObject().value("enum").toArray();
            if (names.isEmpty())
                continue;
            QStringList listed;
            for (const QJsonValue &name : names)
                listed << name.toString();
            // allowedText gives "a, b or c".
            QString accepted = QString::fromStdString(allowedText(field));
            accepted.replace(QStringLiteral(" or "), QStringLiteral(", "));
            QCOMPARE(listed.join(QStringLiteral(", ")), accepted);
        }
    }

    // The schema's inline device lists exactly the keys a device is written with when every
    // one is given, and the presets reader takes each of them back.
    void schemaListsEveryDeviceKey()
    {
        const QJsonObject schema =
            QJsonDocument::fromJson(readFile(PARASCOPE_SOURCE_DIR "/docs/scenario.schema.json"))
                .object();
        QStringList documented = schema.value("$defs")
                                     .toObject()
                                     .value("device")
                                     .toObject()
                                     .value("properties")
                                     .toObject()
                                     .keys();
        // GB200 NVL72 sets every key but a few; those are given here.
        DeviceSpec full = *io::builtinPresets().device("gb200-nvl72");
        full.process = "4N";
        full.attentionBackwardEfficiency = 0.5;
        full.flash2BackwardEfficiency = 0.5;
        full.flash3Efficiency = 0.5;
        full.flash3BackwardEfficiency = 0.5;
        full.memoryEfficiency = 0.9;
        full.eagerMemoryEfficiency = 0.9;
        full.intraNodeEfficiency = 0.8;
        full.interNodeEfficiency = 0.9;
        full.rateNotes["attention"] = "measured on its sibling";
        const QJsonObject written = io::deviceToJson(full);
        QStringList keys = written.keys();
        documented.sort();
        keys.sort();
        QCOMPARE(documented, keys);
        DeviceSpec read;
        QVERIFY(!io::parseDevice(written, read, "device."));
        QVERIFY(read == full);
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
        QTest::addRow("fuzz_set_option: a key of spaces")
            << " =4"
            << ""
            << "empty key; the keys are framework, model, "
               "device, precision";
        QTest::addRow("tp beyond what an int holds")
            << "tp=99999999999"
            << "tp"
            << "99999999999 is more than the limit of 2147483647";
        QTest::addRow("dp below what an int holds")
            << "dp=-99999999999"
            << "dp"
            << "-99999999999 is less than the limit of -2147483648";
        QTest::addRow("an ANSI escape for tp") << "tp=\x1b[2J"
                                               << "tp"
                                               << "expected a whole number, got '\\x1b[2J'";
        QTest::addRow("an ANSI escape as the key") << "\x1b[2J=4"
                                                   << "\\x1b[2J"
                                                   << "unknown key";
        QTest::addRow("an ANSI escape without =") << "\x1b]0;title\x07"
                                                  << "--set"
                                                  << "got '\\x1b]0;title\\x07'";
        // Two settings in one --set: the first key's value is refused, naming the fix.
        QTest::addRow("tp=4,pp=2 in one --set") << "tp=4,pp=2"
                                                << "tp"
                                                << "got '4,pp=2'; give each key its own --set";
        QTest::addRow("framework=megatron, model=... in one --set")
            << "framework=megatron, model=llama-3.1-8b"
            << "framework"
            << "expected custom, megatron, torchtitan or deepspeed; give each key its own --set";
        QTest::addRow("100000 digits for tp")
            << "tp=" + QString(100000, QLatin1Char('9')) << "tp"
            << QString(60, QLatin1Char('9')) +
                   QString::fromUtf8("\u2026 (100000 bytes) is more than the limit of 2147483647");
    }
    // --set model={...} and device={...}: the inline definitions a scenario file holds, read
    // by the same parser; a bad one names its field and leaves the scenario as it was.
    void inlineDefinitionsFromTheCommandLine()
    {
        Scenario s;
        QVERIFY(!io::applySetting(
            s, QStringLiteral(R"(model={"id": "tiny", "layers": 4, "hidden": 256, "heads": 4,
                "kv_heads": 4, "ffn_hidden": 1024, "vocab": 1000})")));
        QVERIFY(s.customModel);
        QCOMPARE(s.model, std::string("tiny"));
        QCOMPARE(s.customModel->layers, 4);
        QCOMPARE(s.customModel->hidden, 256);
        QVERIFY(!io::applySetting(s, QStringLiteral(R"(device={"id": "card", "memory_gib": 24,
                "tflops": {"bf16": 100}})")));
        QVERIFY(s.customDevice);
        QCOMPARE(s.device, std::string("card"));
        // A preset named afterwards replaces the inline model.
        QVERIFY(!io::applySetting(s, QStringLiteral("model=llama-3.1-8b")));
        QVERIFY(!s.customModel);

        const Scenario before = s;
        const auto truncated =
            io::applySetting(s, QStringLiteral(R"(model={"id": "x", "layers": 2)"));
        QVERIFY(truncated);
        QVERIFY2(truncated->key.starts_with("model"), truncated->key.c_str());
        QVERIFY2(truncated->message.find("not a valid inline model") != std::string::npos,
                 truncated->message.c_str());
        const auto negative =
            io::applySetting(s, QStringLiteral(R"(model={"id": "x", "layers": -2, "hidden": 64})"));
        QVERIFY(negative);
        QCOMPARE(negative->key, std::string("model.layers"));
        QVERIFY(s == before);
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
        QVERIFY(e->toString().size() < 500);
        QVERIFY(s == before);
    }
};

QTEST_APPLESS_MAIN(TestScenarioIo)
#include "tst_scenario_io.moc"
