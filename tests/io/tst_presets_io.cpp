// Presets as data (docs/DESIGN.md §3.2): the built-in files and user files that add
// or override entries.
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/model.h"
#include "core/validate.h"
#include "io/input_file.h"
#include "io/presets_io.h"
#include "test_files.h"

#include <QFile>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
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
        for (const char *id :
             {"h800-sxm", "h100-pcie", "h100-nvl", "h200-nvl", "gb200-nvl72", "gb300-nvl72", "b300",
              "mi325x", "mi355x", "gaudi3", "tpu-v5p", "tpu-v6e", "trainium2"})
            QTest::addRow("docs/devices.md: device %s", id) << QString::fromLatin1(id) << false;
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

    // Every shipped device written as `parascope presets --format json` writes it reads back
    // as the same device, every key kept (GB200's job_devices_per_node among them).
    void devicesSurviveWritingAndReading_data()
    {
        QTest::addColumn<QString>("id");
        for (const DeviceSpec &d : io::builtinPresets().devices)
            QTest::addRow("%s", d.id.c_str()) << QString::fromStdString(d.id);
    }
    void devicesSurviveWritingAndReading()
    {
        QFETCH(QString, id);
        const Presets presets = io::builtinPresets();
        const DeviceSpec &shipped = *presets.device(id.toStdString());
        DeviceSpec read;
        const auto error = io::parseDevice(io::deviceToJson(shipped), read, "devices[0].");
        QVERIFY2(!error, error ? error->toString().c_str() : "");
        QVERIFY(read == shipped);
    }

    // Every shipped model reads back from what Parascope writes, and the window keys are
    // written only for a model with a window (gpt-oss-120b), so other files stay as they were.
    void modelsSurviveWritingAndReading_data()
    {
        QTest::addColumn<QString>("id");
        for (const ModelSpec &m : io::builtinPresets().models)
            QTest::addRow("%s", m.id.c_str()) << QString::fromStdString(m.id);
    }
    void modelsSurviveWritingAndReading()
    {
        QFETCH(QString, id);
        const Presets presets = io::builtinPresets();
        const ModelSpec &shipped = *presets.model(id.toStdString());
        const QJsonObject json = io::modelToJson(shipped);
        ModelSpec read;
        const auto error = io::parseModel(json, read, "models[0].");
        QVERIFY2(!error, error ? error->toString().c_str() : "");
        QVERIFY(read == shipped);
        QCOMPARE(json.contains(QStringLiteral("sliding_window")), shipped.slidingWindow > 0);
        QCOMPARE(json.contains(QStringLiteral("full_attention_period")),
                 shipped.fullAttentionPeriod > 0);
    }

    // openai/gpt-oss-120b config.json: sliding_window 128, layer_types from
    // "sliding_attention", alternating, so layers 2, 4, ... 36 (from 1) see the whole context.
    void gptOssWindow()
    {
        const Presets presets = io::builtinPresets();
        const ModelSpec &m = *presets.model("gpt-oss-120b");
        QCOMPARE(m.slidingWindow, 128);
        QCOMPARE(m.fullAttentionPeriod, 2);
        QVERIFY(isSlidingLayer(m, 0));
        QVERIFY(!isSlidingLayer(m, 1));
        QCOMPARE(slidingLayersIn(m, 0, m.layers), 18);
        QVERIFY(QString::fromStdString(m.source).contains(QStringLiteral("sliding_window 128")));
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

    // docs/devices.md, "Host links": each device's link to its host's memory, per direction,
    // from its datasheet (half the bidirectional figure), and the share a copy reaches.
    void hostLinks_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("gbPerS");
        QTest::addColumn<double>("efficiency");
        QTest::addColumn<double>("memoryGb"); // host memory a device, 0: not published
        // PCIe Gen4 x16, 64 GB/s bidirectional; 25.13 GB/s measured (NVIDIA/nvbandwidth#42).
        // DGX A100 640GB: 2 TB of system memory for 8 GPUs, 32 DIMMs of 64 GiB.
        QTest::addRow("A100: PCIe Gen4")
            << "a100-80gb" << 64.0 / 2 << 25.13 / 32 << 2048 * 1.073741824 / 8;
        // PCIe Gen5 x16, 128 GB/s bidirectional; 52.77 GB/s measured (NVIDIA/nvbandwidth#24).
        // DGX H100 and DGX H200: 2 TB for 8 GPUs, 2 TiB in DIMMs.
        QTest::addRow("H100 SXM: PCIe Gen5")
            << "h100-sxm" << 128.0 / 2 << 52.77 / 64 << 2048 * 1.073741824 / 8;
        QTest::addRow("H200: PCIe Gen5")
            << "h200" << 128.0 / 2 << 52.77 / 64 << 2048 * 1.073741824 / 8;
        // OEM servers: no reference host memory.
        QTest::addRow("H200 NVL: PCIe Gen5") << "h200-nvl" << 128.0 / 2 << 52.77 / 64 << 0.0;
        QTest::addRow("MI355X: PCIe Gen5") << "mi355x" << 128.0 / 2 << 52.77 / 64 << 0.0;
        // NVLink-C2C, 900 GB/s bidirectional a link; 346 GB/s on a GH200 (NVIDIA/nvbandwidth#23).
        // 480 GB of LPDDR5X a Grace for its two GPUs (GB200 NVL72 specifications); CoreWeave's
        // MLPerf Training v6.0 GB300 trays hold 960 GiB of it for four GPUs, the same Graces.
        QTest::addRow("GB200: NVLink-C2C") << "gb200-nvl72" << 900.0 / 2 << 0.77 << 480.0 / 2;
        QTest::addRow("GB300: NVLink-C2C") << "gb300-nvl72" << 900.0 / 2 << 0.77 << 480.0 / 2;
        // PCIe Gen5 x16 (Lambda's MLPerf Training v6.0 B200 system); DGX B200: 2 TB for 8, the
        // 32 DIMMs of 64 GiB Lambda's system lists.
        QTest::addRow("B200: PCIe Gen5")
            << "b200" << 128.0 / 2 << 52.77 / 64 << 2048 * 1.073741824 / 8;
        // No host link published for the B300 here.
        QTest::addRow("B300: none") << "b300" << 0.0 << 52.77 / 64 << 0.0;
    }
    void hostLinks()
    {
        QFETCH(QString, id);
        QFETCH(double, gbPerS);
        QFETCH(double, efficiency);
        QFETCH(double, memoryGb);
        const Presets presets = io::builtinPresets();
        const DeviceSpec *d = presets.device(id.toStdString());
        QVERIFY(d);
        QCOMPARE(d->hostGbPerS, gbPerS);
        QCOMPARE(d->hostMemoryGb, memoryGb);
        QVERIFY(std::abs(d->hostEfficiencyOrDefault() - efficiency) < 1e-3);
    }

    // docs/devices.md: the accelerators added with their datasheets. Every figure is typed from
    // the vendor's document: dense TFLOPS (half the sparse figure where only that is printed),
    // link bandwidth per direction (half the bidirectional figure), "80 GB" read as 80 GiB
    // (docs/DESIGN.md §3). 0 means the document publishes no such figure.
    void datasheetDevices_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("memoryGib");
        QTest::addColumn<double>("bf16");
        QTest::addColumn<double>("fp8");
        QTest::addColumn<double>("hbmGbPerS");
        QTest::addColumn<double>("intraGbPerS");
        QTest::addColumn<double>("interGbPerS");
        QTest::addColumn<int>("devicesPerNode");
        // NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: 80 GB, 2 TB/s, BF16 1,513 and FP8
        // 3,026 with sparsity (dense BF16 rounded down, as the H100 SXM's 1,979 gives 989),
        // NVLink bridge 600 GB/s joining two cards; no reference network.
        QTest::addRow("H100 PCIe datasheet")
            << "h100-pcie" << 80.0 << 756.0 << 3026.0 / 2 << 2000.0 << 600.0 / 2 << 0.0 << 2;
        // Same datasheet, H100 NVL: 94 GB, 3.9 TB/s, BF16 1,671 and FP8 3,341 with sparsity
        // (dense rounded down, as the H100 SXM's 1,979 gives 989), NVLink bridge 600 GB/s.
        QTest::addRow("H100 NVL datasheet")
            << "h100-nvl" << 94.0 << 835.0 << 1670.0 << 3900.0 << 600.0 / 2 << 0.0 << 2;
        // NVIDIA H200 Tensor Core GPU datasheet, H200 NVL: 141 GB, 4.8 TB/s, BF16 1,671 and
        // FP8 3,341 with sparsity (dense rounded down, as the H200 SXM's 1,979 gives 989), a
        // 4-way NVLink bridge at 900 GB/s bidirectional a GPU; no reference network.
        QTest::addRow("H200 NVL datasheet")
            << "h200-nvl" << 141.0 << 835.0 << 1670.0 << 4800.0 << 900.0 / 2 << 0.0 << 4;
        // NVIDIA GB200 NVL72 specifications, per rack of 72 GPUs: 13.4 TB (372 GB per 2-GPU
        // superchip), 576 TB/s, 360 PFLOPS BF16 and 720 FP8 with sparsity, NVLink 1.8 TB/s
        // bidirectional per GPU; DGX GB200 User Guide: one 400 Gb/s InfiniBand port per GPU.
        QTest::addRow("GB200 NVL72 specifications")
            << "gb200-nvl72" << 372.0 / 2 << 360e3 / 72 / 2 << 720e3 / 72 / 2 << 576e3 / 72
            << 1800.0 / 2 << 400.0 / 8 << 72;
        // GB300 NVL72: NVIDIA Technical Blog, "Inside NVIDIA Blackwell Ultra" (8 TB/s, NVLink
        // 1.8 TB/s bidirectional); BF16 and FP8 the GB200's; 284,208 MiB usable and four 800 Gb/s
        // ConnectX-8 ports per four-GPU tray (mlcommons/training_results_v5.1, NVIDIA's
        // theia_ngpu512 system description).
        QTest::addRow("GB300 NVL72, Blackwell Ultra")
            << "gb300-nvl72" << 284208.0 / 1024 << 2500.0 << 5000.0 << 8000.0 << 1800.0 / 2
            << 800.0 / 8 << 72;
        // B300: Blackwell Ultra (8 TB/s, NVLink 1.8 TB/s bidirectional) at the B200's BF16 and FP8;
        // 275,040 MiB usable and eight 800 Gb/s ConnectX-8 ports per 8-GPU node
        // (mlcommons/training_results_v5.1, Nebius's nebius_b300_n1 system description).
        QTest::addRow("B300, Blackwell Ultra HGX") << "b300" << 275040.0 / 1024 << 2250.0 << 4500.0
                                                   << 8000.0 << 1800.0 / 2 << 800.0 / 8 << 8;
        // AMD Instinct MI325X specifications: 256 GB, 6 TB/s, dense BF16 1,307.4, FP8 2,614.9,
        // 7 Infinity Fabric links of 128 GB/s; 400 Gb/s NIC per GPU, as the MI300X preset.
        QTest::addRow("MI325X specifications")
            << "mi325x" << 256.0 << 1307.4 << 2614.9 << 6000.0 << 7 * 128.0 / 2 << 400.0 / 8 << 8;
        // AMD Instinct MI355X specifications: 288 GB, 8 TB/s, dense BF16 2.5 PFLOPS, FP8 5,
        // 7 Infinity Fabric links of 153.6 GB/s.
        QTest::addRow("MI355X specifications")
            << "mi355x" << 288.0 << 2500.0 << 5000.0 << 8000.0 << 7 * 153.6 / 2 << 400.0 / 8 << 8;
        // Intel Gaudi 3 AI Accelerator white paper: 128 GB, 3.7 TB/s, 1,835 BF16 and FP8;
        // Intel Gaudi Network Configuration: 21 scale-up and 3 scale-out 200 Gb/s ports each.
        QTest::addRow("Gaudi 3 white paper") << "gaudi3" << 128.0 << 1835.0 << 1835.0 << 3700.0
                                             << 21 * 200.0 / 8 << 3 * 200.0 / 8 << 8;
        // Google Cloud TPU v5p: 95 GB, 2,765 GB/s, 459 BF16, ICI 4,800 Gbps (one direction, as
        // the v5e page's 1,600 Gbps = 400 GBps bidirectional shows), largest slice 16x16x24;
        // the data-centre network per chip is not published.
        QTest::addRow("TPU v5p documentation")
            << "tpu-v5p" << 95.0 << 459.0 << 0.0 << 2765.0 << 4800.0 / 8 << 0.0 << 16 * 16 * 24;
        // Google Cloud TPU v6e: 32 GB, 1,638 GBps, 918 BF16, ICI 800 GBps bidirectional, 256
        // chips per pod.
        QTest::addRow("TPU v6e documentation")
            << "tpu-v6e" << 32.0 << 918.0 << 0.0 << 1638.0 << 800.0 / 2 << 0.0 << 256;
        // AWS Neuron, Trainium2 Architecture: 96 GiB, 2.9 TB/s, 667 BF16, 1,299 FP8; Amazon EC2
        // Trn2 Architecture: 16 chips, NeuronLink 1,024 GB/s per chip (taken as both directions),
        // EFAv3 3,200 Gbps per instance.
        QTest::addRow("Trainium2 architecture") << "trainium2" << 96.0 << 667.0 << 1299.0 << 2900.0
                                                << 1024.0 / 2 << 3200.0 / 16 / 8 << 16;
    }
    void datasheetDevices()
    {
        QFETCH(QString, id);
        QFETCH(double, memoryGib);
        QFETCH(double, bf16);
        QFETCH(double, fp8);
        QFETCH(double, hbmGbPerS);
        QFETCH(double, intraGbPerS);
        QFETCH(double, interGbPerS);
        QFETCH(int, devicesPerNode);
        const Presets presets = io::builtinPresets();
        const DeviceSpec *d = presets.device(id.toStdString());
        QVERIFY(d);
        QCOMPARE(d->memoryGib, memoryGib);
        QCOMPARE(d->tflops.at(Precision::bf16), bf16);
        if (fp8 > 0)
            QCOMPARE(d->tflops.at(Precision::fp8), fp8);
        else
            QVERIFY(!d->tflops.contains(Precision::fp8));
        QCOMPARE(d->hbmGbPerS, hbmGbPerS);
        QCOMPARE(d->intraNodeGbPerS, intraGbPerS);
        QCOMPARE(d->interNodeGbPerS, interGbPerS);
        QCOMPARE(d->devicesPerNode, devicesPerNode);
        // An unpublished figure is said so where the preset names its sources.
        if (interGbPerS == 0)
            QVERIFY2(d->source.find("not published") != std::string::npos, d->source.c_str());
    }

    // docs/DESIGN.md §3.2: a link of 0 is "not published": traffic over it has no time and the
    // report warns. The H100 PCIe's NVLink bridge joins two cards, so T = 4 leaves it; a TPU
    // v6e pod holds 256 chips and a v5p slice at most 6,144, so a pipeline or data-parallel
    // group beyond them crosses the data-centre network.
    void unpublishedLinksWarn_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("warning");
        QTest::addRow("H100 PCIe: T = 4 beyond the bridged pair")
            << "device=h100-pcie,tp=4,pp=1,dp=1"
            << "tp-link-unknown";
        QTest::addRow("H100 PCIe: T = 2 inside the pair has a time")
            << "device=h100-pcie,tp=2,pp=1,dp=1"
            << "";
        QTest::addRow("GB200 NVL72: T = 64 inside the rack has a time")
            << "device=gb200-nvl72,model=llama-3.1-405b,tp=64,pp=1,dp=1"
            << "";
        QTest::addRow("TPU v6e: K = 2 over 512 chips, 2 pods of 256")
            << "device=tpu-v6e,tp=8,pp=2,dp=32"
            << "pp-link-unknown";
        QTest::addRow("TPU v5p: D = 1,024 of T = 8, beyond a 6,144-chip slice")
            << "device=tpu-v5p,tp=8,pp=1,dp=1024"
            << "dp-link-unknown";
    }
    void unpublishedLinksWarn()
    {
        QFETCH(QString, set);
        QFETCH(QString, warning);
        Scenario s;
        for (const QString &pair : set.split(u',')) {
            const auto e = setField(s, pair.section(u'=', 0, 0).toStdString(),
                                    pair.section(u'=', 1).toStdString());
            QVERIFY2(!e, e ? e->toString().c_str() : "");
        }
        const Report r = evaluate(s, io::builtinPresets());
        if (warning.isEmpty()) {
            for (const char *code : {"tp-link-unknown", "pp-link-unknown", "dp-link-unknown"})
                QVERIFY2(!r.hasWarning(code), code);
        } else {
            QVERIFY2(r.hasWarning(warning.toStdString()), set.toUtf8().constData());
        }
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
        // The scenario fuzzer's finding: the architecture beside params without layers was kept
        // in memory and dropped from the file written back.
        QTest::addRow("an architecture without layers beside params")
            << head + R"("models": [{"id": "m", "params": 4, "hidden": 256, "heads": 4}]})"
            << "models[0].hidden"
            << "an architecture needs layers";
        QTest::addRow("an architecture with 0 layers beside params")
            << head + R"("models": [{"id": "m", "layers": 0, "params": 4, "vocab": 1000}]})"
            << "models[0].vocab"
            << "an architecture needs layers";
        QTest::addRow("an architecture without layers or params")
            << head + R"("models": [{"id": "m", "experts": 8}]})"
            << "models[0].experts"
            << "add layers, or remove experts";
        QTest::addRow("params of 1e18") << head + R"("models": [{"id": "m", "params": 1e18}]})"
                                        << "models[0].params"
                                        << "1e18 is more than the limit of 9e15 parameters";
        QTest::addRow("memory of 2^20 GiB + 1")
            << head + R"("devices": [{"id": "d", "memory_gib": 1048577}]})"
            << "devices[0].memory_gib"
            << "must be at most 1048576 GiB (1 PiB), got 1048577 GiB";
        // docs/step_time.md, "Device data": a fraction of the peak, 0 for "as the forward".
        QTest::addRow("an attention backward efficiency above 1")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "attention_backward_efficiency": 1.5}]})"
            << "devices[0].attention_backward_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got 1.5";
        QTest::addRow("a FlashAttention-2 efficiency above 1")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "flash2_efficiency": 2}]})"
            << "devices[0].flash2_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got 2";
        QTest::addRow("a negative FP8 matmul efficiency")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "fp8_matmul_efficiency": -0.5}]})"
            << "devices[0].fp8_matmul_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got -0.5";
        QTest::addRow("a block-scaled FP8 matmul efficiency above 1")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "fp8_block_matmul_efficiency": 1.2}]})"
            << "devices[0].fp8_block_matmul_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got 1.2";
        QTest::addRow("an NVFP4 matmul efficiency above 1")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "nvfp4_matmul_efficiency": 4}]})"
            << "devices[0].nvfp4_matmul_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got 4";
        QTest::addRow("an eager memory efficiency above 1")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "eager_memory_efficiency": 2}]})"
            << "devices[0].eager_memory_efficiency"
            << "must be 0 (not published: the default) or from 0.001 to 1, got 2";
        // assumed_rates: notes on the rates a run's multiplies and attention take.
        QTest::addRow("a note on an unknown rate")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "assumed_rates": {"memory": "x"}}]})"
            << "devices[0].assumed_rates.memory"
            << "unknown rate; expected matmul, fp8_matmul, fp8_block_matmul, nvfp4_matmul or "
               "attention";
        QTest::addRow("a note as a number")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "assumed_rates": {"matmul": 0.8}}]})"
            << "devices[0].assumed_rates.matmul"
            << "expected a note as text, got 0.8";
        QTest::addRow("notes as a list")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "assumed_rates": ["x"]}]})"
            << "devices[0].assumed_rates"
            << "expected an object of rate: note, got an array";
        const QByteArray longNote = QByteArray(501, 'x');
        QTest::addRow("a note of 501 characters")
            << head + "\"devices\": [{\"id\": \"d\", \"memory_gib\": 8, \"assumed_rates\": " +
                   "{\"attention\": \"" + longNote + "\"}}]}"
            << "devices[0].assumed_rates.attention"
            << "must be at most 500 characters, got 501";
        // A collective holds some of the SMs; compute keeps at least one.
        QTest::addRow("collective units as many as the compute units")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "compute_units": 132, "collective_units": 132}]})"
            << "devices[0].collective_units"
            << "must be from 0 (not published) to one fewer than compute_units (132), got 132";
        QTest::addRow("collective units without compute units")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "collective_units": 24}]})"
            << "devices[0].collective_units"
            << "must be from 0 (not published) to one fewer than compute_units (0), got 24";
        // A job cannot fill more of a node than the node has.
        QTest::addRow("a job filling more of a node than it has")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "devices_per_node": 8, "job_devices_per_node": 9}]})"
            << "devices[0].job_devices_per_node"
            << "must be from 0 (all of them) to devices_per_node (8), got 9";
        // docs/step_time.md, "Attention shapes": the overhead scales from the measured length.
        QTest::addRow("an attention block overhead without its length")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "attention_block_overhead": 5.5}]})"
            << "devices[0].attention_tokens"
            << "attention_block_overhead and attention_tokens go together: give both, or "
               "neither for one attention efficiency at every length";
        QTest::addRow("a negative attention block overhead")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "attention_block_overhead": -1, "attention_tokens": 8192}]})"
            << "devices[0].attention_block_overhead"
            << "must be from 0 (not published) to 1024 key tiles, got -1";
        QTest::addRow("an attention length of half a token")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "attention_block_overhead": 1.5, "attention_tokens": 0.5}]})"
            << "devices[0].attention_tokens"
            << "must be 0 (not published) or from 1 to 16777216 tokens, got 0.5";
        // docs/step_time.md, "FP8 attention": a ratio to the BF16 kernel, forward and backward.
        QTest::addRow("an FP8 attention speedup without its backward")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "fp8_attention_speedup": 1.3}]})"
            << "devices[0].fp8_attention_backward_speedup"
            << "fp8_attention_speedup and fp8_attention_backward_speedup go together: give "
               "both, or neither";
        QTest::addRow("an FP8 attention speedup of 10")
            << head +
                   R"("devices": [{"id": "d", "memory_gib": 8, "fp8_attention_speedup": 10, "fp8_attention_backward_speedup": 1}]})"
            << "devices[0].fp8_attention_speedup"
            << "must be 0 (not measured) or from 0.25 to 4 times the BF16 kernel's rate, got 10";
        // docs/step_time.md, "Head width": curves of [width, factor] points, widths rising.
        const QByteArray widths =
            R"("devices": [{"id": "d", "memory_gib": 8, "attention_head_widths": )";
        QTest::addRow("head widths not an object")
            << head + widths + R"([[64, 0.7]]}]})"
            << "devices[0].attention_head_widths"
            << "expected an object of curves (forward, backward, fp8_forward, ...), got an array";
        QTest::addRow("an unknown head-width curve")
            << head + widths + R"({"sideways": [[64, 0.7]]}}]})"
            << "devices[0].attention_head_widths.sideways"
            << "unknown curve; expected forward, backward, fp8_forward, fp8_backward, "
               "flash2_forward, flash2_backward, flash3_forward or flash3_backward";
        QTest::addRow("a head-width curve that is a number")
            << head + widths + R"({"forward": 0.7}}]})"
            << "devices[0].attention_head_widths.forward"
            << "expected an array of [head width, factor] pairs, got 0.7";
        QTest::addRow("a head-width point of three numbers")
            << head + widths + R"({"forward": [[64, 0.7, 1]]}}]})"
            << "devices[0].attention_head_widths.forward[0]"
            << "expected a [head width, factor] pair of numbers, got an array";
        QTest::addRow("head widths that fall")
            << head + widths + R"({"backward": [[128, 1], [64, 0.8]]}}]})"
            << "devices[0].attention_head_widths.backward[1]"
            << "head widths must increase from one point to the next, got 64 after 128";
        QTest::addRow("a head-width factor of 0")
            << head + widths + R"({"fp8_forward": [[64, 0]]}}]})"
            << "devices[0].attention_head_widths.fp8_forward[0]"
            << "factor must be from 0.1 to 4 times the rate at the measured width, got 0";
        QTest::addRow("a compute capability of -1")
            << head + R"("devices": [{"id": "d", "memory_gib": 8, "compute_capability": -1}]})"
            << "devices[0].compute_capability"
            << "must be 0 (not given) or an NVIDIA compute capability such as 9.0 or 10.3, got -1";
        QTest::addRow("a FlashAttention-3 head-width factor of 5")
            << head + widths + R"({"flash3_backward": [[64, 0.8], [128, 5]]}}]})"
            << "devices[0].attention_head_widths.flash3_backward[1]"
            << "factor must be from 0.1 to 4 times the rate at the measured width, got 5";
        QTest::addRow("a head width of 0") << head + widths + R"({"fp8_backward": [[0, 1]]}}]})"
                                           << "devices[0].attention_head_widths.fp8_backward[0]"
                                           << "head width must be from 1 to 65536, got 0";
        // docs/experts.md, "Describing a model": a window of up to README "Limits"' longest
        // sequence, and a period among the layers of a windowed model.
        const QByteArray model = R"("models": [{"id": "m", "layers": 4, "hidden": 64, "heads": 4,
                                     "ffn_hidden": 128, "vocab": 100, )";
        QTest::addRow("a sliding window beyond 2^24 tokens")
            << head + model + R"("sliding_window": 16777217}]})"
            << "models[0].sliding_window"
            << "must be 0 (no window) or from 1 to 16777216 tokens, got 16777217";
        QTest::addRow("a negative sliding window")
            << head + model + R"("sliding_window": -1}]})"
            << "models[0].sliding_window"
            << "must be 0 (no window) or from 1 to 16777216 tokens, got -1";
        QTest::addRow("a full-attention period beyond the layers")
            << head + model + R"("sliding_window": 128, "full_attention_period": 5}]})"
            << "models[0].full_attention_period"
            << "must be from 0 (every layer windowed) to layers (4), got 5";
        QTest::addRow("a negative full-attention period")
            << head + model + R"("sliding_window": 128, "full_attention_period": -2}]})"
            << "models[0].full_attention_period"
            << "must be from 0 (every layer windowed) to layers (4), got -2";
        QTest::addRow("a full-attention period without a window")
            << head + model + R"("full_attention_period": 2}]})"
            << "models[0].full_attention_period"
            << "says which layers skip the sliding window, but sliding_window is 0";
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
