// Planning a deployment (docs/inference.md, "Planning a deployment"): the seed's smallest
// deployments, every candidate within its targets and its next batch not, the roofline no
// candidate beats, the ranking, the replicas a throughput target needs, and the errors.
#include "core/evaluate.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/serving_plan.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <cmath>

using namespace core;

namespace {

const Presets &presets()
{
    static const Presets p = io::builtinPresets();
    return p;
}

ServingPlanRequest request(const QString &settings, int devices = 64)
{
    ServingPlanRequest r;
    r.base = scenario(QStringLiteral("mode=inference,seq_len=1024,output_len=256,") + settings);
    r.devices = devices;
    return r;
}

// The candidate's scenario, one replica: what evaluate() says about the batch it chose.
Report evaluateCandidate(const ServingPlanRequest &req, const ServingCandidate &c, int m, int b)
{
    Scenario s = c.apply(req.base);
    s.dp = 1;
    s.microbatches = m;
    s.microbatchSize = b;
    return evaluate(s, presets());
}

bool leavesHeadroom(const Report &r, double headroomGib)
{
    if (r.error || !r.fits)
        return false;
    for (const StageReport &st : r.stages)
        if (static_cast<double>(st.headroomBytes) < headroomGib * static_cast<double>(kGiB))
            return false;
    return true;
}

// The rung after a candidate's batch: one more micro-batch up to K, then one more sequence
// in each of the K micro-batches.
std::pair<int, int> nextRung(const ServingCandidate &c)
{
    if (c.microbatchSize == 1 && c.microbatches < c.pp)
        return {c.microbatches + 1, 1};
    return {c.microbatches, c.microbatchSize + 1};
}

// Bytes of weights one token reads on its way through every stage of a replica, per
// tensor-parallel device: each layer's and the LM head's (not the input embedding, of which
// a decode step reads one row a sequence). Norms replicated over T only add to it.
double weightBytesReadPerDevice(const ModelSpec &m, int tp, double bytesPerWeight)
{
    const ParamCounts c = countParams(m, 1);
    const double head = c.lmHead > 0 ? c.lmHead : c.embedding;
    return (m.layers * static_cast<double>(c.perLayer) + head) * bytesPerWeight / tp;
}

} // namespace

class TestServingPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // docs/worked-examples.md §2–§3 (the seed): 70B is 35 GB at INT4, which one 80 GB GPU
    // holds; 140 GB at FP16 does not fit one but fits four with T = 4; 8B is 8 GB at FP8.
    // 405B is 810, 405 and 203 GB at FP16, FP8 and INT4 against 64 GB an SN40L: no fewer
    // devices than those bytes over one device's capacity, and no more than the T-only
    // layouts of the seed (16, 8 and 4 devices) that fit.
    void smallestDeploymentAnswersTheSeed_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<double>("seedBytes");
        QTest::addColumn<int>("most");
        QTest::newRow("70B INT4 on one 80 GB GPU")
            << "model=llama-3.1-70b,precision=int4,device=h100-sxm" << 35e9 << 1;
        QTest::newRow("70B FP16: not one 80 GB GPU, four with T = 4")
            << "model=llama-3.1-70b,precision=fp16,device=h100-sxm" << 140e9 << 4;
        QTest::newRow("8B FP8 on one device")
            << "model=llama-3.1-8b,precision=fp8,device=h100-sxm" << 8e9 << 1;
        QTest::newRow("405B FP16 on SN40L")
            << "model=llama-3.1-405b,precision=fp16,device=sn40l" << 810e9 << 16;
        QTest::newRow("405B FP8 on SN40L")
            << "model=llama-3.1-405b,precision=fp8,device=sn40l" << 405e9 << 8;
        QTest::newRow("405B INT4 on SN40L")
            << "model=llama-3.1-405b,precision=int4,device=sn40l" << 203e9 << 4;
    }
    void smallestDeploymentAnswersTheSeed()
    {
        QFETCH(QString, settings);
        QFETCH(double, seedBytes);
        QFETCH(int, most);
        const ServingPlanRequest req = request(settings);
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        QVERIFY(r.smallest);
        QVERIFY(!r.smallestBeyondDevices);
        const double capacity =
            static_cast<double>(resolveDevice(req.base, presets())->capacityBytes());
        const int least = static_cast<int>(std::ceil(seedBytes / capacity));
        QVERIFY2(r.smallest->devicesPerReplica() >= least &&
                     r.smallest->devicesPerReplica() <= most,
                 qPrintable(QStringLiteral("%1 devices, expected %2 … %3")
                                .arg(r.smallest->devicesPerReplica())
                                .arg(least)
                                .arg(most)));
        // It does fit: the shape at one sequence leaves the headroom free.
        const Report one = evaluateCandidate(req, *r.smallest, 1, 1);
        QVERIFY(leavesHeadroom(one, req.headroomGib));
        // And no shape with fewer devices does, at one sequence.
        const ModelSpec &model = *resolveModel(req.base, presets());
        for (int tp = 1; tp < r.smallest->devicesPerReplica(); tp *= 2) {
            for (int pp = 1; tp * pp < r.smallest->devicesPerReplica(); ++pp) {
                if (model.heads % tp != 0 || pp > model.layers)
                    continue;
                ServingCandidate shape;
                shape.tp = tp;
                shape.pp = pp;
                QVERIFY2(!leavesHeadroom(evaluateCandidate(req, shape, 1, 1), req.headroomGib),
                         qPrintable(QStringLiteral("T=%1 K=%2 fits").arg(tp).arg(pp)));
            }
        }
        for (const ServingCandidate &c : r.candidates)
            QVERIFY(c.devicesPerReplica() >= r.smallest->devicesPerReplica());
    }

    // Each candidate's batch fits with the headroom and meets the targets, as evaluate() of
    // its own scenario says; the next batch up fails for the reason the candidate names.
    void everyCandidateIsTheLargestBatchThatDoes_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<double>("tpotMs");
        QTest::addColumn<double>("ttftMs");
        QTest::newRow("70B FP8 on H100, 30 ms a token, 2 s to the first")
            << "model=llama-3.1-70b,precision=fp8,device=h100-sxm" << 30.0 << 2000.0;
        QTest::newRow("70B INT4 on H100, no targets")
            << "model=llama-3.1-70b,precision=int4,device=h100-sxm" << 0.0 << 0.0;
        QTest::newRow("8B BF16 on A100, 10 ms a token")
            << "model=llama-3.1-8b,precision=bf16,device=a100-80gb" << 10.0 << 0.0;
    }
    void everyCandidateIsTheLargestBatchThatDoes()
    {
        QFETCH(QString, settings);
        QFETCH(double, tpotMs);
        QFETCH(double, ttftMs);
        ServingPlanRequest req = request(settings, 16);
        req.top = 1000;
        if (tpotMs > 0)
            req.tpotTargetS = tpotMs / 1e3;
        if (ttftMs > 0)
            req.ttftTargetS = ttftMs / 1e3;
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        QVERIFY(!r.candidates.empty());
        for (const ServingCandidate &c : r.candidates) {
            const QByteArray where = QStringLiteral("T=%1 K=%2 m=%3 b=%4")
                                         .arg(c.tp)
                                         .arg(c.pp)
                                         .arg(c.microbatches)
                                         .arg(c.microbatchSize)
                                         .toUtf8();
            const Report at = evaluateCandidate(req, c, c.microbatches, c.microbatchSize);
            QVERIFY2(at.serving, where.constData());
            QVERIFY2(leavesHeadroom(at, req.headroomGib), where.constData());
            QCOMPARE(c.tpotS, at.serving->decodeMeanS);
            QCOMPARE(c.ttftS, at.serving->prefillS);
            QCOMPARE(c.tokensPerSPerDevice, at.serving->tokensPerSPerDevice);
            if (req.tpotTargetS)
                QVERIFY2(c.tpotS <= *req.tpotTargetS, where.constData());
            if (req.ttftTargetS)
                QVERIFY2(c.ttftS <= *req.ttftTargetS, where.constData());

            const auto [m, b] = nextRung(c);
            const Report next = evaluateCandidate(req, c, m, b);
            switch (c.limit) {
            case BatchLimit::memory:
                QVERIFY2(!leavesHeadroom(next, req.headroomGib), where.constData());
                break;
            case BatchLimit::tpotTarget:
                QVERIFY2(next.serving->decodeMeanS > *req.tpotTargetS, where.constData());
                break;
            case BatchLimit::ttftTarget:
                QVERIFY2(next.serving->prefillS > *req.ttftTargetS, where.constData());
                break;
            case BatchLimit::batchLimit:
                QCOMPARE(c.microbatchSize, limits::kMicrobatchSize);
                break;
            }
        }
    }

    // The roofline (Williams et al. 2009): a token reads every weight on its way through the
    // replica, so no time per output token is below the weights' bytes per tensor-parallel
    // device over the memory bandwidth.
    void noCandidateBeatsTheRoofline()
    {
        for (const char *precision : {"bf16", "fp8", "int4"}) {
            ServingPlanRequest req =
                request(QStringLiteral("model=llama-3.1-70b,device=h100-sxm,precision=") +
                            QLatin1String(precision),
                        16);
            req.top = 1000;
            const ServingPlanResult r = planServing(req, presets());
            QVERIFY(!r.candidates.empty());
            const ModelSpec &model = *resolveModel(req.base, presets());
            const double bandwidth = resolveDevice(req.base, presets())->hbmGbPerS * 1e9;
            const double bytes = bitsPerValue(req.base.precision) / 8.0;
            for (const ServingCandidate &c : r.candidates)
                QVERIFY2(c.tpotS >= weightBytesReadPerDevice(model, c.tp, bytes) / bandwidth,
                         qPrintable(QStringLiteral("%1 T=%2 K=%3: %4 s")
                                        .arg(QLatin1String(precision))
                                        .arg(c.tp)
                                        .arg(c.pp)
                                        .arg(c.tpotS)));
        }
    }

    // Most output tokens per second per device first; untimed shapes (no link bandwidth)
    // after every timed one.
    void rankedByTokensPerSecondPerDevice()
    {
        ServingPlanRequest req = request("model=llama-3.1-70b,precision=fp8,device=h100-sxm", 16);
        req.top = 1000;
        const ServingPlanResult r = planServing(req, presets());
        QCOMPARE(static_cast<std::int64_t>(r.candidates.size()), r.feasible);
        for (std::size_t i = 1; i < r.candidates.size(); ++i)
            QVERIFY(r.candidates[i - 1].tokensPerSPerDevice >= r.candidates[i].tokensPerSPerDevice);
        req.top = 3;
        QCOMPARE(planServing(req, presets()).candidates.size(), std::size_t{3});
    }

    // Replicas fill the devices; with a throughput target, just as many as reach it.
    void replicasFillTheDevicesOrReachTheTarget()
    {
        ServingPlanRequest req = request("model=llama-3.1-8b,precision=fp8,device=h100-sxm", 64);
        for (const ServingCandidate &c : planServing(req, presets()).candidates)
            QCOMPARE(c.replicas, 64 / c.devicesPerReplica());
        req.tokensPerSTarget = 50'000;
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY(!r.candidates.empty());
        for (const ServingCandidate &c : r.candidates) {
            QVERIFY(c.tokensPerS() >= 50'000);
            QVERIFY((c.replicas - 1) * c.tokensPerSPerReplica < 50'000);
            QVERIFY(c.devices() <= 64);
        }
    }

    // A training layout's E and C, loaded before, do not leak into the deployment search: its
    // shapes spread no experts (each replica splits them as its T does) and split no
    // sequences. Mixtral 8x7B in FP8 (46.7 GB of weights) fits one 80 GB H100, a shape that
    // E = 8 over T = 1 could not tile.
    void trainingExpertLayoutDoesNotLeak()
    {
        ServingPlanRequest req = request("model=mixtral-8x7b,precision=fp8,device=h100-sxm", 8);
        req.base.ep = 8;
        req.base.expertTp = 1;
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY(!r.candidates.empty());
        for (const auto &[reason, rejection] : r.rejected)
            QVERIFY2(reason.find("ep") == std::string::npos, reason.c_str());
        QVERIFY(std::any_of(r.candidates.begin(), r.candidates.end(),
                            [](const ServingCandidate &c) { return c.devicesPerReplica() == 1; }));
    }

    // A placement the loaded scenario carries (written for its own K, or DeepSpeed's by
    // parameters) is not asked of every shape: the search splits every K evenly and plans as
    // it does without one. It once refused the whole request ("2 stages, but pp = 1").
    void basePipelineLayoutDoesNotLeak_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::newRow("written for K = 2") << "Et*60|t*20L";
        QTest::newRow("DeepSpeed's by parameters") << "parameters";
    }
    void basePipelineLayoutDoesNotLeak()
    {
        QFETCH(QString, layout);
        const ServingPlanRequest even = request("model=llama-3.1-70b,pp=2", 8);
        ServingPlanRequest placed = even;
        placed.base.pipelineLayout = layout.toStdString();
        const ServingPlanResult a = planServing(even, presets());
        const ServingPlanResult b = planServing(placed, presets());
        QVERIFY2(!b.error, b.error ? b.error->toString().c_str() : "");
        QVERIFY(!a.candidates.empty());
        QCOMPARE(b.candidates.size(), a.candidates.size());
        for (std::size_t i = 0; i < a.candidates.size(); ++i) {
            QCOMPARE(b.candidates[i].tp, a.candidates[i].tp);
            QCOMPARE(b.candidates[i].pp, a.candidates[i].pp);
            QCOMPARE(b.candidates[i].microbatchSize, a.candidates[i].microbatchSize);
            QCOMPARE(b.candidates[i].tpotS, a.candidates[i].tpotS);
            QVERIFY(b.candidates[i].apply(placed.base).pipelineLayout.empty());
        }
    }

    // Nothing fits in N: the smallest deployment is found beyond it. The seed: 70B at FP16
    // (140 GB) does not fit one 80 GB device, and does four with T = 4.
    void smallestBeyondTheDevicesSearched()
    {
        const ServingPlanRequest req =
            request("model=llama-3.1-70b,precision=fp16,device=h100-sxm", 1);
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY(r.candidates.empty());
        QCOMPARE(r.shapes, 1);
        QCOMPARE(r.rejected.begin()->second.count, 1);
        QVERIFY(r.smallest);
        QVERIFY(r.smallestBeyondDevices);
        QVERIFY(r.smallest->devicesPerReplica() > 1 && r.smallest->devicesPerReplica() <= 4);
    }

    // SN40L publishes no link bandwidth (resources/presets/devices.json): shapes of more than
    // one device fit but have no time, so a target cannot be checked on them.
    void untimedShapesCannotMeetTargets()
    {
        ServingPlanRequest req = request("model=llama-3.1-405b,precision=int4,device=sn40l", 16);
        ServingPlanResult r = planServing(req, presets());
        QVERIFY(!r.candidates.empty());
        for (const ServingCandidate &c : r.candidates)
            QVERIFY(!c.timed);
        // Their times are lower bounds, with the links' transfers left out.
        for (const ServingCandidate &c : r.candidates) {
            QVERIFY(c.linkTimeExcluded);
            QCOMPARE(
                c.tpotS,
                evaluateCandidate(req, c, c.microbatches, c.microbatchSize).serving->decodeMeanS);
        }
        // A lower bound below a target proves nothing…
        req.tpotTargetS = 1.0;
        r = planServing(req, presets());
        QVERIFY(r.candidates.empty());
        QVERIFY(!r.smallest);
        QVERIFY(r.rejected.contains("link bandwidth not published"));
        // … one above it proves a miss: 203 GB over 16 devices' 1.6 TB/s is 7.9 ms at least.
        req.tpotTargetS = 0.005;
        r = planServing(req, presets());
        QVERIFY(r.candidates.empty());
        QVERIFY(!r.rejected.contains("link bandwidth not published"));
        QVERIFY(r.rejected.contains("time per output token above the target"));
    }

    void errorsNameTheField_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<int>("devices");
        QTest::addColumn<double>("tpotMs");
        QTest::addColumn<QString>("key");
        QTest::newRow("nothing generated") << "output_len=0" << 8 << 0.0 << "output_len";
        QTest::newRow("training") << "mode=training" << 8 << 0.0 << "mode";
        QTest::newRow("no devices") << "" << 0 << 0.0 << "devices";
        QTest::newRow("negative target") << "" << 8 << -1.0 << "tpot-ms";
        QTest::newRow("unknown model") << "model=llama-9" << 8 << 0.0 << "model";
        QTest::newRow("prompt beyond the limit") << "seq_len=100000000" << 8 << 0.0 << "seq_len";
    }
    void errorsNameTheField()
    {
        QFETCH(QString, settings);
        QFETCH(int, devices);
        QFETCH(double, tpotMs);
        QFETCH(QString, key);
        ServingPlanRequest req =
            request(settings.isEmpty() ? QStringLiteral("tp=1") : settings, devices);
        if (tpotMs != 0)
            req.tpotTargetS = tpotMs / 1e3;
        const ServingPlanResult r = planServing(req, presets());
        QVERIFY(r.error);
        QCOMPARE(QString::fromStdString(r.error->key), key);
        QVERIFY(r.candidates.empty());
    }
};

QTEST_MAIN(TestServingPlan)
#include "tst_serving_plan.moc"
