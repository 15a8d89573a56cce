// Tensor parallelism of the feed-forward block (docs/DESIGN.md §3.4): the four
// splits executed on simulated devices, their collectives, and the cost model.
#include "core/comm_cost.h"
#include "core/sharding.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <cmath>

using namespace core;

namespace {

// A data row's inter_node_gb_per_s: unset, or the override.
std::optional<double> overrideOf(const QVariant &v)
{
    return v.isValid() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

// "all_reduce:tf,all_gather:th": a list of collectives in docs/DESIGN.md §3.4's notation,
// t = tokens, h = hidden, f = ffn.
std::vector<CollectiveCall> parseCalls(const QString &text, const FfnShape &shape, Precision p)
{
    std::vector<CollectiveCall> calls;
    if (text.isEmpty())
        return calls;
    for (const QString &item : text.split(QLatin1Char(','))) {
        const QStringList parts = item.split(QLatin1Char(':'));
        const auto kind = parseEnum<Collective>(parts.at(0).toStdString());
        if (!kind)
            qFatal("bad collective in test table");
        const std::int64_t values =
            shape.tokens * (parts.at(1) == QLatin1String("tf") ? shape.ffn : shape.hidden);
        calls.push_back({*kind, values, bytesFor(values, p)});
    }
    return calls;
}

DeviceSpec preset(const char *id)
{
    static const Presets presets = io::builtinPresets();
    const DeviceSpec *d = presets.device(id);
    if (!d)
        qFatal("missing preset");
    return *d;
}

// reducedShapes' table: the requested shape and T, then the reduced shape expected.
void shapeColumns()
{
    QTest::addColumn<qint64>("tokens");
    QTest::addColumn<qint64>("hidden");
    QTest::addColumn<qint64>("ffn");
    QTest::addColumn<int>("tp");
    QTest::addColumn<qint64>("rTokens");
    QTest::addColumn<qint64>("rHidden");
    QTest::addColumn<qint64>("rFfn");
}

// The current row's reduced shape into `r`, checked against the row and for divisibility by T.
void fetchAndReduce(FfnShape &r)
{
    QFETCH(qint64, tokens);
    QFETCH(qint64, hidden);
    QFETCH(qint64, ffn);
    QFETCH(int, tp);
    QFETCH(qint64, rTokens);
    QFETCH(qint64, rHidden);
    QFETCH(qint64, rFfn);
    r = reducedShape({tokens, hidden, ffn}, tp);
    QVERIFY(r == (FfnShape{rTokens, rHidden, rFfn}));
    QCOMPARE(r.hidden % tp, 0);
    QCOMPARE(r.ffn % tp, 0);
}

} // namespace

class TestSharding : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void collectives_data()
    {
        QTest::addColumn<Split>("w1");
        QTest::addColumn<Split>("w2");
        QTest::addColumn<int>("tp");
        QTest::addColumn<QString>("expected");
        const auto C = Split::columns;
        const auto R = Split::rows;
        for (int tp : {2, 4, 8}) {
            QTest::addRow("docs/DESIGN.md §3.4: columns→rows, T=%d", tp)
                << C << R << tp << "all_reduce:th";
            QTest::addRow("docs/DESIGN.md §3.4: rows→rows, T=%d", tp)
                << R << R << tp << "all_reduce:tf,all_reduce:th";
            QTest::addRow("docs/DESIGN.md §3.4: columns→columns, T=%d", tp)
                << C << C << tp << "all_gather:tf,all_gather:th";
            QTest::addRow("docs/DESIGN.md §3.4: rows→columns, T=%d", tp)
                << R << C << tp << "all_reduce:tf,all_gather:th";
        }
    }
    // The arithmetic and the execution agree, and the execution is right.
    void collectives()
    {
        QFETCH(Split, w1);
        QFETCH(Split, w2);
        QFETCH(int, tp);
        QFETCH(QString, expected);
        const FfnShape shape{12, 32, 128}; // small: T = 2, 4, 8 divide h and f
        const auto want = parseCalls(expected, shape, Precision::bf16);
        QVERIFY(requiredCollectives(w1, w2, shape, tp, Precision::bf16) == want);

        const Execution run = executeStrategies(shape, tp, 7, Precision::bf16);
        QVERIFY(!run.cancelled);
        QCOMPARE(run.strategies.size(), std::size_t(4));
        bool found = false;
        for (const auto &s : run.strategies) {
            if (s.w1 != w1 || s.w2 != w2)
                continue;
            found = true;
            QVERIFY(s.collectives == want);
            // Float sums in a different order: agreement to a few float epsilons.
            QVERIFY2(s.maxRelError < 1e-5, QByteArray::number(s.maxRelError));
        }
        QVERIFY(found);
    }

    // act() is nonlinear: summing after it (the wrong order) is visibly wrong, which is what
    // the check would catch.
    void activationNeedsReducedSums()
    {
        const float a = 0.8f, b = -1.3f;
        QVERIFY(std::abs(gelu(a + b) - (gelu(a) + gelu(b))) > 0.1f);
        QCOMPARE(gelu(0.0f), 0.0f);
    }

    // Hendrycks & Gimpel 2016, §2, with the standard library's tanh in double precision:
    // the vectorized form stays within a few float epsilons of it, and a matrix gets, entry by
    // entry, exactly what one value gets (the sharded and unsharded layers must agree).
    void geluMatchesItsFormula()
    {
        Eigen::MatrixXf m(7, 13);
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            for (Eigen::Index i = 0; i < m.rows(); ++i)
                m(i, j) = -6.0f + 12.0f * float(j * m.rows() + i) / float(m.size() - 1);
        const Eigen::MatrixXf x = m;
        geluInPlace(m);
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            for (Eigen::Index i = 0; i < m.rows(); ++i) {
                const double v = x(i, j);
                const double want =
                    0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                QCOMPARE(m(i, j), gelu(x(i, j)));
                QVERIFY2(std::abs(m(i, j) - want) <= 4e-7 * std::max(1.0, std::abs(want)),
                         qPrintable(QStringLiteral("gelu(%1) = %2, formula %3")
                                        .arg(v)
                                        .arg(m(i, j), 0, 'g', 9)
                                        .arg(want, 0, 'g', 9)));
            }
    }

    void singleDeviceNeedsNoCollective()
    {
        const FfnShape shape{4, 8, 32};
        for (auto w1 : {Split::rows, Split::columns})
            for (auto w2 : {Split::rows, Split::columns})
                QVERIFY(requiredCollectives(w1, w2, shape, 1, Precision::bf16).empty());
        const Execution run = executeStrategies(shape, 1, 1, Precision::bf16);
        for (const auto &s : run.strategies) {
            QVERIFY(s.collectives.empty());
            QVERIFY(s.maxRelError < 1e-6);
        }
        ShardRequest request;
        request.shape = shape;
        request.tp = 1;
        const ShardReport r = analyzeSharding(request, preset("sn40l")); // no published links
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        for (const auto &s : r.strategies) {
            QCOMPARE(s.commS, 0.0);
            QCOMPARE(s.wireBytesPerDevice, 0.0);
        }
    }

    // Sequence parallelism's identity (Korthikanti et al. 2022 §4.2.2): reduce-scatter then
    // all-gather gives every device what one all-reduce gives it.
    void reduceScatterThenAllGatherIsAllReduce()
    {
        std::vector<Eigen::MatrixXf> a, b;
        for (int i = 0; i < 4; ++i)
            a.push_back(Eigen::MatrixXf::Constant(3, 8, float(i + 1)));
        b = a;
        allReduce(a);
        reduceScatterColumns(b);
        QCOMPARE(b.front().cols(), Eigen::Index(2));
        allGatherColumns(b);
        for (std::size_t i = 0; i < a.size(); ++i) {
            QVERIFY(a[i] == b[i]);
            QCOMPARE(a[i](0, 0), 10.0f); // 1 + 2 + 3 + 4
        }
    }

    void ringFactors_data()
    {
        QTest::addColumn<Collective>("kind");
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("wire");
        QTest::addColumn<int>("steps");
        // Patarasuk & Yuan 2009 §3, payload 800 bytes.
        QTest::addRow("P&Y 2009: all-reduce T=4, 2(T-1)/T")
            << Collective::allReduce << 4 << 1200.0 << 6;
        QTest::addRow("P&Y 2009: all-gather T=4, (T-1)/T")
            << Collective::allGather << 4 << 600.0 << 3;
        QTest::addRow("P&Y 2009: reduce-scatter T=8, (T-1)/T")
            << Collective::reduceScatter << 8 << 700.0 << 7;
        QTest::addRow("T=1 moves nothing") << Collective::allReduce << 1 << 0.0 << 0;
    }
    void ringFactors()
    {
        QFETCH(Collective, kind);
        QFETCH(int, tp);
        QFETCH(double, wire);
        QFETCH(int, steps);
        QCOMPARE(wireBytesPerDevice(kind, 800, tp), wire);
        QCOMPARE(ringSteps(kind, tp), steps);
    }

    void linkAtNodeBoundary_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<QVariant>("override");
        QTest::addColumn<LinkKind>("kind");
        QTest::addColumn<double>("gbPerS");
        // devices.json: h100-sxm has 8 per node, NVLink 450 GB/s per direction, NDR 50 GB/s.
        QTest::addRow("docs/DESIGN.md §3.2: h100-sxm T=8 in one node")
            << 8 << QVariant() << LinkKind::intraNode << 450.0;
        QTest::addRow("docs/DESIGN.md §3.2: h100-sxm T=16 spans nodes")
            << 16 << QVariant() << LinkKind::interNode << 50.0;
        QTest::addRow("docs/DESIGN.md §3.2: inter_node_gb_per_s overrides, T=16")
            << 16 << QVariant(100.0) << LinkKind::interNode << 100.0;
        QTest::addRow("docs/DESIGN.md §3.2: override ignored inside a node, T=8")
            << 8 << QVariant(100.0) << LinkKind::intraNode << 450.0;
    }
    void linkAtNodeBoundary()
    {
        QFETCH(int, tp);
        QFETCH(QVariant, override);
        QFETCH(LinkKind, kind);
        QFETCH(double, gbPerS);
        Link link;
        QVERIFY(!chooseLink(preset("h100-sxm"), tp, overrideOf(override), link));
        QVERIFY(link.kind == kind);
        QCOMPARE(link.gbPerS, gbPerS);
        QCOMPARE(link.stepLatencyS,
                 kind == LinkKind::intraNode ? kIntraNodeStepLatencyS : kInterNodeStepLatencyS);
    }

    // A data-parallel ring across nodes runs over every NIC its members have in a node, up to
    // NVLink's achieved bandwidth (NVIDIA/nccl#412). h100-sxm: 8 per node, one 50 GB/s NIC
    // each, NVLink 450 GB/s at 0.82, the network at 0.9: the cap is 450 × 0.82 / 0.9 = 410.
    void ringAcrossNodes_data()
    {
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("size");
        QTest::addColumn<QVariant>("override");
        QTest::addColumn<LinkKind>("kind");
        QTest::addColumn<double>("gbPerS");
        QTest::addRow("T=1 D=48: 8 members a node, 8 × 50")
            << 1 << 48 << QVariant() << LinkKind::interNode << 400.0;
        QTest::addRow("T=2 D=48: 4 members a node")
            << 2 << 48 << QVariant() << LinkKind::interNode << 200.0;
        QTest::addRow("T=4 D=48: 2 members a node")
            << 4 << 48 << QVariant() << LinkKind::interNode << 100.0;
        QTest::addRow("T=8 D=48: one member a node")
            << 8 << 48 << QVariant() << LinkKind::interNode << 50.0;
        QTest::addRow("T=16 D=4: one member a node")
            << 16 << 4 << QVariant() << LinkKind::interNode << 50.0;
        QTest::addRow("T=4 D=2: one node, NVLink")
            << 4 << 2 << QVariant() << LinkKind::intraNode << 450.0;
        QTest::addRow("T=8 D=2: two nodes, one member each")
            << 8 << 2 << QVariant() << LinkKind::interNode << 50.0;
        QTest::addRow("T=4 D=3: 2 members in the first node")
            << 4 << 3 << QVariant() << LinkKind::interNode << 100.0;
        QTest::addRow("T=1 D=16 on a 100 GB/s network: NVLink caps 800 at 410")
            << 1 << 16 << QVariant(100.0) << LinkKind::interNode << 410.0;
    }
    void ringAcrossNodes()
    {
        QFETCH(int, stride);
        QFETCH(int, size);
        QFETCH(QVariant, override);
        QFETCH(LinkKind, kind);
        QFETCH(double, gbPerS);
        Link link;
        QVERIFY(!ringLink(preset("h100-sxm"), stride, size, overrideOf(override), link,
                          "data-parallel"));
        QVERIFY(link.kind == kind);
        QVERIFY(qAbs(link.gbPerS - gbPerS) <= 1e-9 * gbPerS);
    }
    // NVIDIA/nccl-tests#309: all_reduce_perf on 4 nodes of 8 H100, each GPU with its own
    // 400 Gb/s NIC, peaks at 365.84 GB/s of bus bandwidth. A ring of all 32 runs at 8 NICs ×
    // 50 GB/s × 0.9 = 360 GB/s here: within 2 %.
    void ringMatchesPublishedBusBandwidth()
    {
        Link link;
        QVERIFY(!ringLink(preset("h100-sxm"), 1, 32, std::nullopt, link, "data-parallel"));
        const double busGbPerS = link.gbPerS * link.efficiency;
        QVERIFY2(qAbs(busGbPerS / 365.84 - 1) <= 0.02, qPrintable(QString::number(busGbPerS)));
    }

    // A collective runs in whichever of NCCL's protocols and algorithms its tuner finds fastest
    // (NVIDIA/nccl src/graph/tuning.cc): a call's latency, each ring step's (NVLink, or the
    // network in nodes − 1 steps a phase), and the share of the bus bandwidth the protocol
    // keeps. Ring: Simple 8.4 µs, 3.4 µs (network 14), all of it; LL128 14, 1.9 (4.0), 0.92;
    // LL 6.6, 0.6 (2.7), half, and across nodes at most 39.0 GB/s (two) or 20.4 (more)
    // (llMaxBws). An all-reduce across nodes may take the tree: 2 × ((members a node − 1) NVLink
    // steps + log2(nodes) network steps), the payload twice at the tree's share (Simple 8.4,
    // 4.0 (14), 0.92; LL128 14, 1.25 (8.5), 120/128; LL 6.8, 0.6 (5.0), 1/3.8). A gather or a
    // reduce-scatter over one GPU a node may take PAT: 8 µs, 14/3.5 µs a level of log2(nodes),
    // 2.8 µs a rank, at 0.75 of the bandwidth.
    // h100-sxm: NVLink at 450 × 0.82 GB/s; a ring over whole nodes 8 NICs × 50 GB/s at 0.9,
    // one a device 50 GB/s at 0.9.
    void collectiveInTheFastestProtocol_data()
    {
        QTest::addColumn<Collective>("kind");
        QTest::addColumn<int>("stride"); // ranks between members: one a node at 8
        QTest::addColumn<int>("members");
        QTest::addColumn<qint64>("payload");
        QTest::addColumn<double>("seconds");
        const double nvlink = 450e9 * 0.82, nics = 400e9 * 0.9, nic = 50e9 * 0.9;
        // A decode step's all-reduce at T = 2: one token's 8,192 BF16 values, 16 KiB each way.
        QTest::addRow("T=2 all-reduce of 16 KiB: ring LL")
            << Collective::allReduce << 1 << 2 << qint64(16384)
            << 6.6e-6 + 2 * 0.6e-6 + 16384 / (nvlink * 0.5);
        // A layer's sequence-parallel gather at T = 8: 4,096 × 8,192 BF16 values.
        QTest::addRow("T=8 all-gather of 64 MiB: ring Simple")
            << Collective::allGather << 1 << 8 << qint64(67108864)
            << 8.4e-6 + 7 * 3.4e-6 + 7.0 / 8 * 67108864 / nvlink;
        // Two nodes: the tree's 7 NVLink steps and one network step each way beat the ring's
        // 28 and 2, LL held to 39.0 GB/s.
        QTest::addRow("16 members all-reduce 256 KiB: tree LL, capped")
            << Collective::allReduce << 1 << 16 << qint64(262144)
            << 6.8e-6 + 2 * (7 * 0.6e-6 + 1 * 5.0e-6) + 2.0 * 262144 / 39e9;
        // A data-parallel bucket over 256 GPUs in 32 nodes: 255 steps, 31 across the network.
        QTest::addRow("256 members reduce-scatter 64 MiB: ring LL128")
            << Collective::reduceScatter << 1 << 256 << qint64(67108864)
            << 14e-6 + 224 * 1.9e-6 + 31 * 4.0e-6 + 255.0 / 256 * 67108864 / (nics * 0.92);
        // Large enough that Simple's bandwidth outweighs LL128's shorter steps.
        QTest::addRow("256 members reduce-scatter 8 GiB: ring Simple")
            << Collective::reduceScatter << 1 << 256 << qint64(8589934592)
            << 8.4e-6 + 224 * 3.4e-6 + 31 * 14e-6 + 255.0 / 256 * 8589934592 / nics;
        // One GPU in each of 2,048 nodes: the ring's 4,094 network steps against the tree's
        // 2 × 11.
        // The same ring reduce-scatters in PAT: 11 levels and 2,048 ranks against LL128's 2,047
        // network steps (8.2 ms) or LL's (5.5 ms at 20.4 GB/s).
        QTest::addRow("2,048 nodes reduce-scatter 64 MiB: PAT")
            << Collective::reduceScatter << 8 << 2048 << qint64(67108864)
            << 8e-6 + 11 * 4e-6 + 2048 * 2.8e-6 + 2047.0 / 2048 * 67108864 / (nic * 0.75);
        QTest::addRow("2,048 nodes all-reduce 64 MiB: tree LL128")
            << Collective::allReduce << 8 << 2048 << qint64(67108864)
            << 14e-6 + 2 * 11 * 8.5e-6 + 2.0 * 67108864 / (nic * 120 / 128);
    }
    void collectiveInTheFastestProtocol()
    {
        QFETCH(Collective, kind);
        QFETCH(int, stride);
        QFETCH(int, members);
        QFETCH(qint64, payload);
        QFETCH(double, seconds);
        Link link;
        QVERIFY(
            !ringLink(preset("h100-sxm"), stride, members, std::nullopt, link, "data-parallel"));
        const double got = collectiveSeconds(kind, payload, members, link);
        QVERIFY2(qAbs(got - seconds) <= 1e-9 * seconds,
                 qPrintable(QStringLiteral("%1 s, by hand %2 s").arg(got).arg(seconds)));
    }

    void unpublishedBandwidth()
    {
        Link link;
        // devices.json: sn40l's links are 0, "not published".
        const auto e = chooseLink(preset("sn40l"), 4, std::nullopt, link);
        QVERIFY(e);
        QCOMPARE(e->key, std::string("device.intra_node_gb_per_s"));
        QVERIFY(!chooseLink(preset("sn40l"), 16, 25.0, link)); // an override makes it usable
    }

    void ffnPayloads_data()
    {
        QTest::addColumn<Split>("w1");
        QTest::addColumn<Split>("w2");
        QTest::addColumn<qint64>("payload");
        QTest::addColumn<double>("wire");
        QTest::addColumn<double>("comm");
        // docs/worked-examples.md §6: h = 8192, f = 32768; tokens = 4096, BF16 (2 bytes), T = 4.
        // t·h = 4096·8192 = 33,554,432 values = 67,108,864 B;
        // t·f = 4096·32768 = 134,217,728 values = 268,435,456 B.
        // Ring at T=4: all-reduce sends 2·3/4 = 1.5x, all-gather 3/4 = 0.75x, per device;
        // 6 steps per all-reduce, 3 per all-gather, at NCCL's 3.4 µs a step over NVLink and 8.4 µs
        // a call (src/graph/tuning.cc, ring, Simple); NVLink 450 GB/s per direction, of which
        // NCCL achieves 0.82 (NVIDIA/nccl-tests#212, devices.json).
        const double th = 67'108'864, tf = 268'435'456, bw = 450e9 * 0.82, lat = 3.4e-6,
                     call = 8.4e-6;
        const auto C = Split::columns;
        const auto R = Split::rows;
        QTest::addRow("docs/DESIGN.md §3.4: columns→rows")
            << C << R << qint64(67'108'864) << 1.5 * th << 1.5 * th / bw + call + 6 * lat;
        QTest::addRow("docs/DESIGN.md §3.4: rows→rows")
            << R << R << qint64(268'435'456 + 67'108'864) << 1.5 * (tf + th)
            << 1.5 * (tf + th) / bw + 2 * call + 12 * lat;
        QTest::addRow("docs/DESIGN.md §3.4: columns→columns")
            << C << C << qint64(268'435'456 + 67'108'864) << 0.75 * (tf + th)
            << 0.75 * (tf + th) / bw + 2 * call + 6 * lat;
        QTest::addRow("docs/DESIGN.md §3.4: rows→columns")
            << R << C << qint64(268'435'456 + 67'108'864) << 1.5 * tf + 0.75 * th
            << (1.5 * tf + 0.75 * th) / bw + 2 * call + 9 * lat;
    }
    void ffnPayloads()
    {
        QFETCH(Split, w1);
        QFETCH(Split, w2);
        QFETCH(qint64, payload);
        QFETCH(double, wire);
        QFETCH(double, comm);
        ShardRequest request; // defaults: h = 8192, f = 32768; 4096 tokens, T=4, BF16
        request.verify = Verify::off;
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QVERIFY(r.ok());
        QVERIFY(r.link.kind == LinkKind::intraNode);
        // Per device: 2·2·4096·8192·32768 / 4 FLOPs at 989 TFLOPS BF16 x the largest matmul's
        // efficiency, 0.706 (mfu auto; devices.json, ml-engineering's sustained MSMF).
        const double compute = 4.0 * 4096 * 8192 * 32768 / 4 / (989e12 * 0.706);
        for (const auto &s : r.strategies) {
            if (s.w1 != w1 || s.w2 != w2)
                continue;
            QCOMPARE(s.payloadBytes, payload);
            QCOMPARE(s.wireBytesPerDevice, wire);
            QVERIFY(near(s.commS, comm));
            QVERIFY(near(s.computeS, compute));
            QCOMPARE(s.totalS, s.computeS + s.commS);
            QVERIFY(!s.maxAbsError);
            return;
        }
        QFAIL("strategy missing");
    }

    // Claim (docs/sharding.md): fixing row-row to column-row improves the FF layer by 30–50 %. At
    // the 8192 × 32768 layer's size with 4096 tokens on H100 NVLink the model's ratio is, by the
    // hand arithmetic above, (compute + 1.5(tf+th)/bw + 2 call + 12 lat) / (compute + 1.5 th/bw +
    // call + 6 lat).
    void ffnSpeedup()
    {
        ShardRequest request;
        request.verify = Verify::off;
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        const double th = 67'108'864, tf = 268'435'456, bw = 450e9 * 0.82, lat = 3.4e-6,
                     call = 8.4e-6;
        const double compute = 4.0 * 4096 * 8192 * 32768 / 4 / (989e12 * 0.706);
        const double expected = (compute + 1.5 * (tf + th) / bw + 2 * call + 12 * lat) /
                                (compute + 1.5 * th / bw + call + 6 * lat);
        QVERIFY(r.strategies.at(std::size_t(r.best)).w1 == Split::columns);
        QVERIFY(r.strategies.at(std::size_t(r.best)).w2 == Split::rows);
        QVERIFY(r.strategies.at(std::size_t(r.worst)).w1 == Split::rows);
        QVERIFY(r.strategies.at(std::size_t(r.worst)).w2 == Split::rows);
        QVERIFY(near(r.speedupBestOverWorst, expected));
        // 30–50 % of the time saved (docs/sharding.md): 1 - 1/speed-up, 40 % here.
        QVERIFY(1 - 1 / expected > 0.3 && 1 - 1 / expected < 0.5);
    }

    // The report says what the multiplies were timed at: the device's matrix-multiply
    // efficiency (the H100's 0.706, docs/step_time.md, "Device data") where mfu is auto, the
    // request's mfu where one is given; the compute time follows it.
    void computeAtTheStatedEfficiency_data()
    {
        QTest::addColumn<QVariant>("mfu"); // invalid: auto
        QTest::addColumn<double>("efficiency");
        QTest::addRow("auto") << QVariant() << 0.706;
        QTest::addRow("mfu 0.5") << QVariant(0.5) << 0.5;
    }
    void computeAtTheStatedEfficiency()
    {
        QFETCH(QVariant, mfu);
        QFETCH(double, efficiency);
        ShardRequest request;
        request.verify = Verify::off;
        request.mfu = overrideOf(mfu);
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QCOMPARE(r.mfuForced, mfu.isValid());
        QVERIFY(near(r.matmulEfficiency, efficiency));
        // 4·tokens·h·f FLOPs of the two multiplies, 1/T of them a device, at the H100's 989
        // TFLOPS of BF16 times that fraction.
        const double compute = 4.0 * 4096 * 8192 * 32768 / 4 / (989e12 * efficiency);
        for (const StrategyReport &s : r.strategies)
            QVERIFY(near(s.computeS, compute));
    }

    void reducedShapes_data()
    {
        shapeColumns();
        // f/h kept exactly, h capped at 64 where T allows; tokens scaled by h'/h, at most 256.
        QTest::addRow("FFN 8192/32768, T=4 -> 64/256, 4096·64/8192 = 32 tokens")
            << qint64(4096) << qint64(8192) << qint64(32768) << 4 << qint64(32) << qint64(64)
            << qint64(256);
        QTest::addRow("Llama 3.1 8B: 4096/14336 (2:7), T=4 -> 64/224")
            << qint64(4096) << qint64(4096) << qint64(14336) << 4 << qint64(64) << qint64(64)
            << qint64(224);
        // 128 tokens on 257 simulated devices held 171 MB and took 3.0 s at every change;
        // 11 tokens fit kVerifyBytesCap, (16 MiB - 4·2hf) / 4(2h + (T+1)(h+f)) = 11.1.
        QTest::addRow("FFN 8192/32768, T=256: h' must be a multiple of 256, 11 tokens fit 16 MiB")
            << qint64(4096) << qint64(8192) << qint64(32768) << 256 << qint64(11) << qint64(256)
            << qint64(1024);
        QTest::addRow("already small: unchanged") << qint64(10) << qint64(64) << qint64(256) << 4
                                                  << qint64(10) << qint64(64) << qint64(256);
        // Found by tst_monkey: the Sharding tab at the window's largest micro-batch took
        // 33,554,432·64/8192 = 262,144 tokens, 90 s per change; tokens stop at 256.
        QTest::addRow("Llama 3.1 70B at 256 x 131072 tokens, T=8 -> 64/224, 256 tokens")
            << qint64(256 * 131072) << qint64(8192) << qint64(28672) << 8 << qint64(256)
            << qint64(64) << qint64(224);
        QTest::addRow("small h, many tokens: tokens stop at 256")
            << qint64(1000000) << qint64(64) << qint64(256) << 4 << qint64(256) << qint64(64)
            << qint64(256);
        // FLOPs and bytes that grow with f rather than with the tokens (the fuzz corpus's
        // regress-check-*.bin).
        QTest::addRow("f/h = 64: 1 GFLOP / (5·4·64·4096 per token) = 190 tokens")
            << qint64(4096) << qint64(64) << qint64(4096) << 1 << qint64(190) << qint64(64)
            << qint64(4096);
        QTest::addRow("h = 1, f = 262,144 (8.7 s): 6 tokens fit 16 MiB")
            << qint64(4096) << qint64(1) << qint64(262144) << 1 << qint64(6) << qint64(1)
            << qint64(262144);
    }
    void reducedShapes()
    {
        QFETCH(qint64, hidden);
        QFETCH(qint64, ffn);
        FfnShape r;
        fetchAndReduce(r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(r.ffn * hidden, ffn * r.hidden);
    }

    // Regression: when h and f share no factor that keeps f/h exactly at a small size, the
    // check used to run at the full size (h = 100,003 meant a 40 GB W1 on every change).
    // h' is T·⌊64/T⌋, f' the multiple of T nearest f/h·h', tokens scaled by h'/h, at most 256.
    void reducedShapesWithoutACommonFactor_data()
    {
        shapeColumns();
        QTest::addRow("4096/4100 share only 4 = T -> 64/64, 4096·64/4096 = 64 tokens")
            << qint64(4096) << qint64(4096) << qint64(4100) << 4 << qint64(64) << qint64(64)
            << qint64(64);
        QTest::addRow("coprime 100003/100019, T=1 -> 64/64, 4096·64/100003 = 3 tokens")
            << qint64(4096) << qint64(100003) << qint64(100019) << 1 << qint64(3) << qint64(64)
            << qint64(64);
        QTest::addRow("coprime 1001/30013, T=1 -> 64/(30013/1001·64 = 1918.9), 256 tokens")
            << qint64(4096) << qint64(1001) << qint64(30013) << 1 << qint64(256) << qint64(64)
            << qint64(1919);
        // The exact pair 8191/8192 made a 344 GFLOP check: 33 s at -O2 at every change
        // (regress-check-exact-pair-too-big.bin).
        QTest::addRow("16382/16384 share only 2, T=1 -> 64/64, 16 tokens")
            << qint64(4096) << qint64(16382) << qint64(16384) << 1 << qint64(16) << qint64(64)
            << qint64(64);
        // The exact pair needs h' = 4·128 = 512 (3.3 s at every change in the window).
        QTest::addRow("Llama 3.1 405B: 16384/53248 (4:13), T=128 -> 128/384, 32 tokens")
            << qint64(4096) << qint64(16384) << qint64(53248) << 128 << qint64(32) << qint64(128)
            << qint64(384);
    }
    void reducedShapesWithoutACommonFactor()
    {
        QFETCH(qint64, hidden);
        QFETCH(qint64, ffn);
        FfnShape r;
        fetchAndReduce(r);
        if (QTest::currentTestFailed())
            return;
        QFETCH(int, tp);
        // f' is within T/2 of the exact ratio.
        QVERIFY(std::abs(double(r.ffn) - double(ffn) / double(hidden) * double(r.hidden)) <=
                tp / 2.0);
    }

    // Regression: tokens are limited by what the byte counts hold (a collective's values, tokens
    // times h or f, at most 2^58), not by 2^24: the window reaches 256 × 131,072 = 2^25.
    void tokenLimits_data()
    {
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<bool>("accepted");
        QTest::addRow("Llama 3.1 70B layer, 256 x 131072 tokens") << qint64(256) * 131072 << true;
        QTest::addRow("2^58 / 32768 = 2^43 tokens") << (qint64(1) << 43) << true;
        QTest::addRow("2^43 + 1 tokens") << (qint64(1) << 43) + 1 << false;
    }
    void tokenLimits()
    {
        QFETCH(qint64, tokens);
        QFETCH(bool, accepted);
        ShardRequest request;
        request.shape = {tokens, 8192, 32768};
        request.tp = 8;
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QCOMPARE(r.ok(), accepted);
        if (accepted) {
            QVERIFY(r.checkNotRun.empty());
            QCOMPARE(r.executed.tokens, qint64(256)); // the reduced check still ran
        } else {
            QCOMPARE(QString::fromStdString(r.error->key), QStringLiteral("tokens"));
        }
    }

    // Regression: a check that needs more memory than it may use is refused before it allocates:
    // `shard --verify full` at 2^24 tokens aborted with std::bad_alloc (or met the OOM killer).
    void checkBeyondItsMemory()
    {
        ShardRequest full;
        full.shape = {4096, 8192, 32768}; // 8192 × 32768: W1 and W2 alone are 2.1 GB in float
        full.tp = 4;
        full.verify = Verify::full;
        full.verifyMemoryBytes = 1e9;
        const ShardReport refused = analyzeSharding(full, preset("h100-sxm"));
        QVERIFY(refused.error);
        QCOMPARE(QString::fromStdString(refused.error->key), QStringLiteral("verify"));
        QVERIFY(refused.executed == FfnShape{});

        // The reduced check at T = 65,536 still holds a [t, f] activation per device: the
        // analysis stands, the check says why it did not run.
        ShardRequest wide;
        wide.shape = {65536, 65536, 65536};
        wide.tp = 65536;
        const ShardReport skipped = analyzeSharding(wide, preset("h100-sxm"));
        QVERIFY(skipped.ok());
        QVERIFY(QString::fromStdString(skipped.checkNotRun).contains("would hold"));
        QVERIFY(skipped.executed == FfnShape{});
        QCOMPARE(skipped.strategies.size(), std::size_t(4));
        for (const auto &strategy : skipped.strategies) {
            QVERIFY(strategy.totalS > 0);
            QVERIFY(!strategy.maxRelError);
        }
    }

    // The reduced check runs at every change in the window: within kVerifyFlopsCap and
    // kVerifyBytesCap, or not at all, saying why. Before, these layers' reduced checks took
    // the times given (-O2, one core; the fuzz corpus's regress-check-*.bin).
    void checkWithinItsBudget_data()
    {
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<qint64>("ffn");
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("runs");
        QTest::addRow("16382/16384, T=1 (33 s) runs at 64/64")
            << qint64(16382) << qint64(16384) << 1 << true;
        QTest::addRow("64/409600, T=1 (1.4 s; 213 MB at 1 token) not run")
            << qint64(64) << qint64(409600) << 1 << false;
        QTest::addRow("FFN 8192/32768, T=256 (3.0 s) runs")
            << qint64(8192) << qint64(32768) << 256 << true;
        QTest::addRow("Llama 3.1 405B, T=128 (3.3 s) runs")
            << qint64(16384) << qint64(53248) << 128 << true;
        QTest::addRow("4096/4096, T=4096 (4.4 s; 269 MB at 1 token) not run")
            << qint64(4096) << qint64(4096) << 4096 << false;
    }
    void checkWithinItsBudget()
    {
        QFETCH(qint64, hidden);
        QFETCH(qint64, ffn);
        QFETCH(int, tp);
        QFETCH(bool, runs);
        ShardRequest request;
        request.shape = {4096, hidden, ffn};
        request.tp = tp;
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error->toString().c_str());
        QCOMPARE(r.checkNotRun.empty(), runs);
        QCOMPARE(r.executed != FfnShape{}, runs);
        if (runs) {
            QVERIFY(checkFlops(r.executed) <= kVerifyFlopsCap);
            QVERIFY(verifyBytes(r.executed, tp) <= kVerifyBytesCap);
            for (const auto &s : r.strategies)
                QVERIFY2(*s.maxRelError < 1e-5, QByteArray::number(*s.maxRelError));
        } else {
            QVERIFY2(
                QString::fromStdString(r.checkNotRun).contains("more than a reduced check may"),
                r.checkNotRun.c_str());
            for (const auto &s : r.strategies)
                QVERIFY(s.totalS > 0 && !s.maxRelError);
        }
    }

    // Found by fuzz_shard_request: a collective's bytes are exact up to the largest
    // payload the analysis takes (2^58 values); values x half-bits overflowed 64 bits first.
    void payloadsAtTheLimit_data()
    {
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<qint64>("ffn");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<qint64>("bytesPerValue");
        QTest::addRow("tokenLimits: 2^43 tokens x f = 2^15 = 2^58 BF16 values")
            << (qint64(1) << 43) << qint64(8192) << qint64(32768) << "bf16" << qint64(2);
        QTest::addRow("fuzz_shard_request: 2^34 tokens x h = 2^23 = 2^57 FP32 values")
            << (qint64(1) << 34) << (qint64(1) << 23) << qint64(1024) << "fp32" << qint64(4);
    }
    void payloadsAtTheLimit()
    {
        QFETCH(qint64, tokens);
        QFETCH(qint64, hidden);
        QFETCH(qint64, ffn);
        QFETCH(QString, precision);
        QFETCH(qint64, bytesPerValue);
        ShardRequest request;
        request.shape = {tokens, hidden, ffn};
        request.tp = 4;
        request.precision = *parseEnum<Precision>(precision.toStdString());
        request.verify = Verify::off;
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error->toString().c_str());
        for (const auto &s : r.strategies)
            for (const auto &call : s.collectives)
                QCOMPARE(call.payloadBytes, call.values * bytesPerValue);
    }

    // The default check runs at the reduced size and says so; every strategy agrees.
    void defaultRequestVerifiedSmall()
    {
        ShardRequest request;
        request.shape = {4096, 8192, 32768};
        const ShardReport r = analyzeSharding(request, preset("h100-sxm"));
        QVERIFY(r.ok());
        QVERIFY(r.executed == (FfnShape{32, 64, 256}));
        QVERIFY(r.requested == request.shape);
        for (const auto &s : r.strategies) {
            QVERIFY(s.maxRelError);
            QVERIFY2(*s.maxRelError < 1e-5, QByteArray::number(*s.maxRelError));
        }
    }

    void progressAndCancel()
    {
        std::vector<double> seen;
        const Execution full =
            executeStrategies({4, 16, 64}, 4, 3, Precision::bf16, [&seen](double p) {
                seen.push_back(p);
                return true;
            });
        QVERIFY(!full.cancelled);
        QVERIFY(!seen.empty());
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);
        int calls = 0;
        const Execution stopped =
            executeStrategies({4, 16, 64}, 4, 3, Precision::bf16, [&calls](double) {
                return ++calls < 12; // cancel inside the second strategy
            });
        QVERIFY(stopped.cancelled);
        QCOMPARE(stopped.strategies.size(), std::size_t(1));
    }

    void sameSeedSameResult()
    {
        const Execution a = executeStrategies({8, 16, 64}, 2, 99, Precision::bf16);
        const Execution b = executeStrategies({8, 16, 64}, 2, 99, Precision::bf16);
        for (std::size_t i = 0; i < a.strategies.size(); ++i)
            QCOMPARE(a.strategies[i].maxAbsError, b.strategies[i].maxAbsError);
    }

    // The Sharding page's request for a scenario: activations in the scenario's format where it
    // is one, BF16 where the scenario's weights are narrower (INT4, or NVFP4's training, which
    // keeps 16-bit activations).
    void requestTakesTheActivationFormat_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("activations");
        QTest::addRow("fp8") << "fp8"
                             << "fp8";
        QTest::addRow("nvfp4") << "nvfp4"
                               << "bf16";
        QTest::addRow("int4") << "int4"
                              << "bf16";
    }
    void requestTakesTheActivationFormat()
    {
        QFETCH(QString, precision);
        QFETCH(QString, activations);
        const core::Presets presets = io::builtinPresets();
        const Scenario s = scenario(QStringLiteral("device=b200,precision=") + precision);
        const auto request = shardRequestFor(s, *presets.model(s.model));
        QVERIFY(request);
        QCOMPARE(QString::fromLatin1(toString(request->precision)), activations);
    }

    void invalidRequests_data()
    {
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<qint64>("ffn");
        QTest::addColumn<int>("tp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("device");
        QTest::addColumn<double>("mfu");
        QTest::addColumn<double>("interNode"); // GB/s; 0 = the device's own
        QTest::addColumn<QString>("key");
        QTest::addRow("docs/DESIGN.md §4: hidden = 0") << qint64(0) << qint64(64) << 2 << "bf16"
                                                       << "h100-sxm" << 0.5 << 0.0 << "hidden";
        QTest::addRow("docs/DESIGN.md §4: ffn < 0") << qint64(64) << qint64(-4) << 2 << "bf16"
                                                    << "h100-sxm" << 0.5 << 0.0 << "ffn";
        QTest::addRow("docs/DESIGN.md §4: tp = 0") << qint64(64) << qint64(64) << 0 << "bf16"
                                                   << "h100-sxm" << 0.5 << 0.0 << "tp";
        QTest::addRow("docs/sharding.md: T does not divide h")
            << qint64(66) << qint64(96) << 4 << "bf16"
            << "h100-sxm" << 0.5 << 0.0 << "tp";
        QTest::addRow("docs/sharding.md: T does not divide f")
            << qint64(64) << qint64(90) << 4 << "bf16"
            << "h100-sxm" << 0.5 << 0.0 << "tp";
        QTest::addRow("devices.json: a100 has no fp8") << qint64(64) << qint64(64) << 2 << "fp8"
                                                       << "a100-80gb" << 0.5 << 0.0 << "precision";
        QTest::addRow("docs/DESIGN.md §3.5: int4 is no activation format")
            << qint64(64) << qint64(64) << 2 << "int4"
            << "h100-sxm" << 0.5 << 0.0 << "precision";
        // NVFP4 training keeps 16-bit activations: its 4-bit copies feed the multiplies only.
        QTest::addRow("docs/step_time.md: nvfp4 is no activation format")
            << qint64(64) << qint64(64) << 2 << "nvfp4"
            << "b200" << 0.5 << 0.0 << "precision";
        QTest::addRow("docs/step_time.md: mfu = 0") << qint64(64) << qint64(64) << 2 << "bf16"
                                                    << "h100-sxm" << 0.0 << 0.0 << "mfu";
        QTest::addRow("docs/step_time.md: mfu > 1") << qint64(64) << qint64(64) << 2 << "bf16"
                                                    << "h100-sxm" << 1.5 << 0.0 << "mfu";
        QTest::addRow("devices.json: sn40l links unpublished")
            << qint64(64) << qint64(64) << 2 << "bf16"
            << "sn40l" << 0.5 << 0.0 << "device.intra_node_gb_per_s";
        // fuzz_shard_request: validate.h's limits, which a scenario has; below them the
        // times were infinite.
        QTest::addRow("fuzz_shard_request: mfu = 2.6e-318")
            << qint64(64) << qint64(64) << 2 << "bf16"
            << "h100-sxm" << 2.6e-318 << 0.0 << "mfu";
        QTest::addRow("validate.h: mfu below 0.001") << qint64(64) << qint64(64) << 2 << "bf16"
                                                     << "h100-sxm" << 0.0009 << 0.0 << "mfu";
        QTest::addRow("validate.h: inter-node 1e-300 GB/s")
            << qint64(64) << qint64(64) << 16 << "bf16"
            << "h100-sxm" << 0.5 << 1e-300 << "inter_node_gb_per_s";
        QTest::addRow("validate.h: inter-node beyond 1e9 GB/s")
            << qint64(64) << qint64(64) << 16 << "bf16"
            << "h100-sxm" << 0.5 << 2e9 << "inter_node_gb_per_s";
    }
    void invalidRequests()
    {
        QFETCH(qint64, hidden);
        QFETCH(qint64, ffn);
        QFETCH(int, tp);
        QFETCH(QString, precision);
        QFETCH(QString, device);
        QFETCH(double, mfu);
        QFETCH(double, interNode);
        QFETCH(QString, key);
        ShardRequest request;
        request.shape = {16, hidden, ffn};
        request.tp = tp;
        request.precision = *parseEnum<Precision>(precision.toStdString());
        request.mfu = mfu;
        if (interNode > 0)
            request.interNodeGbPerS = interNode;
        const ShardReport r = analyzeSharding(request, preset(device.toUtf8().constData()));
        QVERIFY(r.error);
        QCOMPARE(QString::fromStdString(r.error->key), key);
    }
};

QTEST_GUILESS_MAIN(TestSharding)
#include "tst_sharding.moc"
