// The expert-parallel demonstrator (docs/sharding.md, "Expert parallelism"): a
// mixture-of-experts layer executed on E simulated devices, checked against the unsharded
// layer, with every byte of its two all-to-alls counted.
#include "core/expert_routing.h"

#include <QTest>
#include <cmath>
#include <limits>
#include <numeric>

using namespace core;

namespace {

ExpertRoutingInputs layer(std::int64_t tokens, std::int64_t hidden, int experts, int topK,
                          int devices, double skew = 0, int bytes = 2)
{
    ExpertRoutingInputs in;
    in.tokens = tokens;
    in.hidden = hidden;
    in.expertFfn = 2 * hidden;
    in.experts = experts;
    in.topK = topK;
    in.devices = devices;
    in.skew = skew;
    in.bytesPerValue = bytes;
    return in;
}

QList<qint64> loads(const ExpertRoutingResult &r)
{
    QList<qint64> out;
    for (const ExpertDevice &d : r.devices)
        out << d.load;
    return out;
}

QList<qint64> dispatched(const ExpertRoutingResult &r)
{
    QList<qint64> out;
    for (const ExpertDevice &d : r.devices)
        out << d.dispatchBytes;
    return out;
}

QList<qint64> combined(const ExpertRoutingResult &r)
{
    QList<qint64> out;
    for (const ExpertDevice &d : r.devices)
        out << d.combineBytes;
    return out;
}

// What holds whatever the routing: every copy is run once, and every copy that left its
// token's device comes back.
void checkConservation(const ExpertRoutingResult &r)
{
    std::int64_t load = 0, sent = 0, returned = 0;
    for (const ExpertDevice &d : r.devices) {
        QCOMPARE(std::accumulate(d.receivedPerExpert.begin(), d.receivedPerExpert.end(),
                                 std::int64_t{0}),
                 d.load);
        QCOMPARE(std::accumulate(d.receivedFrom.begin(), d.receivedFrom.end(), std::int64_t{0}),
                 d.load);
        load += d.load;
        sent += d.dispatchBytes;
        returned += d.combineBytes;
    }
    QCOMPARE(load, r.inputs.tokens * r.inputs.topK);
    QCOMPARE(sent, returned);
}

} // namespace

class TestExpertRouting : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesTheUnshardedLayer_data()
    {
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("topK");
        QTest::addColumn<int>("devices");
        QTest::addColumn<double>("skew");
        QTest::addRow("Mixtral-like: 8 experts, top-2, E = 4") << 8 << 2 << 4 << 0.0;
        QTest::addRow("Mixtral-like, skewed router") << 8 << 2 << 4 << 3.0;
        QTest::addRow("Switch-like top-1, E = 8") << 8 << 1 << 8 << 0.0;
        QTest::addRow("fine-grained: 16 experts, top-4, E = 2") << 16 << 4 << 2 << 1.0;
        QTest::addRow("every expert, E = 4") << 4 << 4 << 4 << 0.0;
        QTest::addRow("one device") << 8 << 2 << 1 << 0.0;
        QTest::addRow("strongly skewed: one device does everything") << 8 << 2 << 4 << 100.0;
    }
    // Dispatch, expert compute and combine on E devices give the layer's output.
    void matchesTheUnshardedLayer()
    {
        QFETCH(int, experts);
        QFETCH(int, topK);
        QFETCH(int, devices);
        QFETCH(double, skew);
        const ExpertRoutingResult r =
            runExpertParallel(layer(64, 32, experts, topK, devices, skew));
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QCOMPARE(r.devices.size(), std::size_t(devices));
        QVERIFY2(r.maxRelError < kExpertTolerance, QByteArray::number(r.maxRelError));
        QVERIFY(r.maxAbsError > 0 || r.maxRelError == 0);
        QVERIFY(r.passed);
        checkConservation(r);
        for (int d = 0; d < devices; ++d)
            QCOMPARE(r.devices[std::size_t(d)].firstExpert, d * experts / devices);
    }

    void everyExpertChosen_data()
    {
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("bytes");
        QTest::addColumn<qint64>("load"); // per device
        QTest::addColumn<qint64>("perExpert");
        QTest::addColumn<qint64>("fromEach"); // copies from each device
        QTest::addColumn<qint64>("sent");     // bytes per device per direction
        // top_k = experts: each device's t/E tokens go to every expert, experts/E of which
        // are its own, so it sends t/E · experts · (E−1)/E rows of h values per direction.
        // 16 tokens, E 2: 8 per device × 4 experts = 32 copies, 16 to the other device,
        // 16 rows × 8 values × 2 B = 256 B. Each device runs 2 experts on all 16 tokens.
        QTest::addRow("4 experts, top-4, E 2, h 8, BF16")
            << qint64(16) << qint64(8) << 4 << 2 << 2 << qint64(32) << qint64(16) << qint64(16)
            << qint64(256);
        // 24 tokens, E 3: 8 per device × 6 experts = 48 copies, 32 leave; 32 × 16 × 2 = 1,024.
        // Each device: 2 experts × 24 tokens = 48 copies, 8 × 2 = 16 from each device.
        QTest::addRow("6 experts, top-6, E 3, h 16, BF16")
            << qint64(24) << qint64(16) << 6 << 3 << 2 << qint64(48) << qint64(24) << qint64(16)
            << qint64(1024);
        // 8 tokens, E 2: 4 per device × 2 experts, 4 leave; 4 rows × 4 values × 4 B = 64.
        QTest::addRow("2 experts, top-2, E 2, h 4, FP32")
            << qint64(8) << qint64(4) << 2 << 2 << 4 << qint64(8) << qint64(8) << qint64(4)
            << qint64(64);
        // 32 tokens, E 8, one expert each: 4 per device × 8 = 32 copies, 28 leave;
        // 28 × 8 × 1 B = 224.
        QTest::addRow("8 experts, top-8, E 8, h 8, FP8")
            << qint64(32) << qint64(8) << 8 << 8 << 1 << qint64(32) << qint64(32) << qint64(4)
            << qint64(224);
    }
    // With every expert chosen the routing is uniform: the bytes are the balanced formula's
    // exactly, and the load is even.
    void everyExpertChosen()
    {
        QFETCH(qint64, tokens);
        QFETCH(qint64, hidden);
        QFETCH(int, experts);
        QFETCH(int, devices);
        QFETCH(int, bytes);
        QFETCH(qint64, load);
        QFETCH(qint64, perExpert);
        QFETCH(qint64, fromEach);
        QFETCH(qint64, sent);
        const ExpertRoutingInputs in = layer(tokens, hidden, experts, experts, devices, 0, bytes);
        const ExpertRoutingResult r = runExpertParallel(in);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.passed);
        for (const ExpertDevice &d : r.devices) {
            QCOMPARE(d.load, load);
            for (std::int64_t n : d.receivedPerExpert)
                QCOMPARE(n, perExpert);
            for (std::int64_t n : d.receivedFrom)
                QCOMPARE(n, fromEach);
            QCOMPARE(d.dispatchBytes, sent);
            QCOMPARE(d.combineBytes, sent);
        }
        QCOMPARE(r.imbalance, 1.0);
        QCOMPARE(r.meanLoad, double(load));
        QCOMPARE(r.balancedBytesPerDevice, double(sent));
        QCOMPARE(balancedAllToAllBytes(in), double(sent));
    }

    // One device owns every expert: nothing leaves it.
    void oneDeviceSendsNothing()
    {
        const ExpertRoutingResult r = runExpertParallel(layer(64, 16, 8, 2, 1));
        QVERIFY(r.ok());
        QCOMPARE(r.devices.size(), std::size_t(1));
        QCOMPARE(r.devices[0].dispatchBytes, std::int64_t{0});
        QCOMPARE(r.devices[0].combineBytes, std::int64_t{0});
        QCOMPARE(r.devices[0].load, std::int64_t{64 * 2});
        QCOMPARE(r.imbalance, 1.0);
        QCOMPARE(r.balancedBytesPerDevice, 0.0);
        QVERIFY(r.passed);
    }

    void strongSkewConcentratesOnDeviceZero_data()
    {
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("devices");
        QTest::addColumn<QList<qint64>>("load");
        QTest::addColumn<QList<qint64>>("dispatch");
        QTest::addColumn<QList<qint64>>("combine");
        // |logit| < h · 1 · 3/√h = 3√h (X within ±1, W_r within ±3/√h), so two logits differ
        // by less than 6√h. A skew of 100 puts 100/(n−1) between neighbouring experts' biases:
        // when that exceeds 6√h every token picks experts 0 and 1, both on device 0.
        // 4 experts, h 16: 33.3 > 24. 32 tokens × top-2 = 64 copies, all on device 0; mean
        // 32, imbalance 2. Device 1 sends its 16 tokens × 2 = 32 rows × 16 × 2 B = 1,024 B
        // and device 0 sends them back.
        QTest::addRow("4 experts, E 2, h 16")
            << qint64(32) << qint64(16) << 4 << 2 << QList<qint64>{64, 0} << QList<qint64>{0, 1024}
            << QList<qint64>{1024, 0};
        // 8 experts, h 4: 14.3 > 12. 16 tokens × 2 = 32 copies on device 0; mean 8,
        // imbalance 4. Devices 1–3 each send 4 tokens × 2 = 8 rows × 4 × 2 B = 64 B; device 0
        // returns 24 rows × 8 B = 192 B.
        QTest::addRow("8 experts, E 4, h 4")
            << qint64(16) << qint64(4) << 8 << 4 << QList<qint64>{32, 0, 0, 0}
            << QList<qint64>{0, 64, 64, 64} << QList<qint64>{192, 0, 0, 0};
    }
    void strongSkewConcentratesOnDeviceZero()
    {
        QFETCH(qint64, tokens);
        QFETCH(qint64, hidden);
        QFETCH(int, experts);
        QFETCH(int, devices);
        QFETCH(QList<qint64>, load);
        QFETCH(QList<qint64>, dispatch);
        QFETCH(QList<qint64>, combine);
        const ExpertRoutingResult r =
            runExpertParallel(layer(tokens, hidden, experts, 2, devices, kExpertMaxSkew));
        QVERIFY(r.ok());
        QVERIFY(r.passed);
        QCOMPARE(loads(r), load);
        QCOMPARE(dispatched(r), dispatch);
        QCOMPARE(combined(r), combine);
        QCOMPARE(r.imbalance, double(devices)); // one device does all the work
        QCOMPARE(r.devices[0].receivedPerExpert[0], tokens);
        QCOMPARE(r.devices[0].receivedPerExpert[1], tokens);
    }

    // A router that favours the low-numbered experts loads device 0 more than a balanced one.
    void skewRaisesImbalance()
    {
        const ExpertRoutingResult balanced = runExpertParallel(layer(256, 64, 8, 2, 4, 0));
        const ExpertRoutingResult skewed = runExpertParallel(layer(256, 64, 8, 2, 4, 4));
        QVERIFY(balanced.ok() && skewed.ok());
        QVERIFY(skewed.passed);
        QVERIFY2(skewed.imbalance > 1, QByteArray::number(skewed.imbalance));
        QVERIFY(skewed.imbalance > balanced.imbalance);
        const QList<qint64> load = loads(skewed);
        QCOMPARE(*std::max_element(load.begin(), load.end()), load.front());
        // Balanced routing, counted copy by copy, sends about the closed form: each of a
        // device's 64 × 2 copies leaves with probability 3/4, so 96 rows of 64 values × 2 B
        // = 12,288 B per direction; the random router lands within a tenth of it.
        QCOMPARE(balanced.balancedBytesPerDevice, 12288.0);
        double sent = 0;
        for (const ExpertDevice &d : balanced.devices)
            sent += double(d.dispatchBytes);
        QVERIFY2(std::abs(sent / 4 / 12288.0 - 1) < 0.1, QByteArray::number(sent / 4));
        QVERIFY(balanced.imbalance < 1.25);
    }

    void routing_data()
    {
        QTest::addColumn<QList<double>>("logits");
        QTest::addColumn<int>("topK");
        QTest::addColumn<double>("skew");
        QTest::addColumn<QList<int>>("experts");
        QTest::addColumn<QList<double>>("weights");
        // Softmax ∝ 1 : 2 : 4 : 1; the top two, 4 and 2, renormalised to 4/6 and 2/6
        // (Jiang et al. 2024, §2.1: Softmax(TopK(logits))).
        QTest::addRow("top-2 of 1:2:4:1")
            << QList<double>{0, std::log(2.0), std::log(4.0), 0} << 2 << 0.0 << QList<int>{2, 1}
            << QList<double>{4.0 / 6, 2.0 / 6};
        // Equal logits: the lower index wins a tie.
        QTest::addRow("ties") << QList<double>{0, 0, 0, 0} << 2 << 0.0 << QList<int>{0, 1}
                              << QList<double>{0.5, 0.5};
        // Skew 3 over 4 experts adds 3, 2, 1, 0: softmax ∝ e^3 : e^2 : e : 1; top-1 weight 1.
        QTest::addRow("skew picks expert 0")
            << QList<double>{0, 0, 0, 0} << 1 << 3.0 << QList<int>{0} << QList<double>{1.0};
        // Skew 2 over 3 experts adds 2, 1, 0 to 0, 1, 2: all equal, ties to the lowest.
        QTest::addRow("skew cancels the logits")
            << QList<double>{0, 1, 2} << 3 << 2.0 << QList<int>{0, 1, 2}
            << QList<double>{1.0 / 3, 1.0 / 3, 1.0 / 3};
    }
    void routing()
    {
        QFETCH(QList<double>, logits);
        QFETCH(int, topK);
        QFETCH(double, skew);
        QFETCH(QList<int>, experts);
        QFETCH(QList<double>, weights);
        const Route route =
            routeToken(std::vector<double>(logits.begin(), logits.end()), topK, skew);
        QCOMPARE(QList<int>(route.experts.begin(), route.experts.end()), experts);
        QCOMPARE(route.weights.size(), std::size_t(weights.size()));
        for (qsizetype j = 0; j < weights.size(); ++j)
            QVERIFY2(std::abs(route.weights[std::size_t(j)] - weights[j]) < 1e-6,
                     QByteArray::number(route.weights[std::size_t(j)]));
    }

    void bias()
    {
        QCOMPARE(routerBias(0, 8, 7.0), 7.0);
        QCOMPARE(routerBias(7, 8, 7.0), 0.0);
        QCOMPARE(routerBias(3, 8, 7.0), 4.0);
        QCOMPARE(routerBias(0, 1, 7.0), 0.0);
    }

    void errorsNameTheField_data()
    {
        QTest::addColumn<ExpertRoutingInputs>("inputs");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("says");
        const ExpertRoutingInputs base;
        auto with = [&](auto change) {
            ExpertRoutingInputs in = base;
            change(in);
            return in;
        };
        QTest::addRow("E does not divide experts")
            << with([](auto &in) { in.devices = 3; }) << "devices"
            << "does not divide the 8";
        QTest::addRow("top-k above experts") << with([](auto &in) { in.topK = 9; }) << "top_k"
                                             << "at most the 8 experts";
        QTest::addRow("no tokens") << with([](auto &in) { in.tokens = 0; }) << "tokens"
                                   << "at least 1";
        QTest::addRow("no hidden") << with([](auto &in) { in.hidden = 0; }) << "hidden"
                                   << "at least 1";
        QTest::addRow("no expert ffn") << with([](auto &in) { in.expertFfn = 0; }) << "expert_ffn"
                                       << "at least 1";
        QTest::addRow("no experts") << with([](auto &in) { in.experts = 0; }) << "experts"
                                    << "at least 1";
        QTest::addRow("no top-k") << with([](auto &in) { in.topK = 0; }) << "top_k"
                                  << "at least 1";
        QTest::addRow("no devices") << with([](auto &in) { in.devices = 0; }) << "devices"
                                    << "at least 1";
        QTest::addRow("tokens not divisible by E")
            << with([](auto &in) { in.tokens = 255; }) << "tokens"
            << "do not split evenly";
        QTest::addRow("hidden too large") << with([](auto &in) { in.hidden = 2048; }) << "hidden"
                                          << "at most 1024";
        QTest::addRow("too many experts") << with([](auto &in) { in.experts = 512; }) << "experts"
                                          << "at most 256";
        // 8,192 tokens × top-8 = 65,536 copies, each through 3 matmuls of 2 × 64 × 128 FLOPs,
        // in both runs: 2 × 65,536 × 49,152 = 6.4 GFLOP, above the 0.25 GFLOP a change may take.
        QTest::addRow("too much work") << with([](auto &in) {
            in.tokens = 8192;
            in.topK = 8;
        }) << "tokens"
                                       << "runs at every change";
        // 256 experts × 3 × 1024 × 4096 floats = 12.9 GB of weights.
        QTest::addRow("weights too large") << with([](auto &in) {
            in.experts = 256;
            in.hidden = 1024;
            in.expertFfn = 4096;
        }) << "experts"
                                           << "weights of 256 experts";
        QTest::addRow("negative skew") << with([](auto &in) { in.skew = -1; }) << "skew"
                                       << "from 0 to 100";
        QTest::addRow("skew not a number")
            << with([](auto &in) { in.skew = std::numeric_limits<double>::quiet_NaN(); }) << "skew"
            << "from 0 to 100";
        QTest::addRow("no bytes per value")
            << with([](auto &in) { in.bytesPerValue = 0; }) << "bytes_per_value"
            << "from 1 to 8";
    }
    void errorsNameTheField()
    {
        QFETCH(ExpertRoutingInputs, inputs);
        QFETCH(QString, key);
        QFETCH(QString, says);
        const auto error = validateExpertRouting(inputs);
        QVERIFY(error);
        QCOMPARE(QString::fromStdString(error->key), key);
        QVERIFY2(QString::fromStdString(error->message).contains(says), error->message.c_str());
        const ExpertRoutingResult r = runExpertParallel(inputs);
        QVERIFY(!r.ok());
        QVERIFY(r.error == error);
        QVERIFY(r.devices.empty());
    }

    // The defaults the window starts from run, and pass.
    void defaultsRun()
    {
        const ExpertRoutingInputs in;
        QVERIFY(!validateExpertRouting(in));
        QVERIFY(expertRoutingFlops(in) <= kExpertFlopsCap);
        QVERIFY(runExpertParallel(in).passed);
    }
};

QTEST_MAIN(TestExpertRouting)
#include "tst_expert_routing.moc"
