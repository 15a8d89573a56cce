// The planner (docs/planner.md): its ranking equals an exhaustive search written
// independently here, every candidate fits and every rejection does not, and the facts the
// issue names hold.
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/planner.h"
#include "core/validate.h"
#include "io/plan_io.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace core;

namespace {

// The sanitizer pass runs every search about ten times slower (docs/TESTING.md).
#ifdef PARASCOPE_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

PlanRequest request(const QString &set, int devices, int globalBatch, int top = 10)
{
    PlanRequest r;
    r.base = scenario(set);
    r.devices = devices;
    r.globalBatch = globalBatch;
    r.top = top;
    return r;
}

QString describe(const Scenario &s)
{
    return QStringLiteral(
               "T=%1 K=%2 D=%3 zero=%4 schedule=%5 v=%6 mbs=%7 m=%8 recompute=%9 sp=%10 layers=%11")
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.dp)
        .arg(s.zero)
        .arg(QString::fromLatin1(toString(s.schedule).data()))
        .arg(s.virtualStages)
        .arg(s.microbatchSize)
        .arg(s.microbatches)
        .arg(QString::fromLatin1(toString(s.recompute).data()))
        .arg(s.sequenceParallel)
        .arg(s.recomputeLayers);
}

// The exhaustive search, written from the issue's words rather than from the planner: every
// T (power of two) × K × D = N, every micro-batch size dividing the replica's batch, every
// ZeRO stage, recomputation, sequence parallelism and schedule (interleaved with v = 2…4),
// each evaluated by core::evaluate. Combinations evaluate() refuses are skipped. Full
// recomputation is also tried on the first N layers of each chunk (recompute_layers), N
// from 1 up to the first that fits: rerunning a layer more never makes a step shorter; and a
// Megatron-LM stage without recomputation that does not fit, with its first N layers'
// activations offloaded (offload_layers), N likewise.
struct BruteForce
{
    double best = std::numeric_limits<double>::infinity();
    Scenario bestScenario;
    std::int64_t fitting = 0;
};

BruteForce bruteForce(const PlanRequest &req, const Presets &presets)
{
    BruteForce out;
    const bool training = req.base.mode == Mode::training;
    const ModelSpec *model = resolveModel(req.base, presets);
    const int layers = model->layers;
    // Whether the layout fits with the headroom left free on every stage (docs/planner.md),
    // keeping the fastest that does.
    const auto consider = [&](const Scenario &s) {
        const Report r = evaluate(s, presets);
        if (r.error || !r.fits || !r.stepTime)
            return false;
        const auto headroom = static_cast<std::int64_t>(req.headroomGib * 1024 * 1024 * 1024);
        if (std::any_of(r.stages.begin(), r.stages.end(),
                        [headroom](const StageReport &st) { return st.headroomBytes < headroom; }))
            return false;
        ++out.fitting;
        if (r.stepTime->stepTimeS < out.best) {
            out.best = r.stepTime->stepTimeS;
            out.bestScenario = s;
        }
        return true;
    };
    const int n = req.devices;
    for (int t = 1; t <= n; t *= 2) {
        for (int k = 1; k <= n / t; ++k) {
            if (n % (t * k) != 0)
                continue;
            const int d = n / t / k;
            if (req.globalBatch % d != 0)
                continue;
            const int perReplica = req.globalBatch / d;
            for (int mbs = 1; mbs <= perReplica; ++mbs) {
                if (perReplica % mbs != 0)
                    continue;
                for (int zero = 0; zero <= (training ? 3 : 0); ++zero)
                    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full})
                        for (bool sp : {false, true})
                            for (Schedule sch :
                                 {Schedule::gpipe, Schedule::oneFOneB, Schedule::zbH1,
                                  Schedule::interleaved, Schedule::dualPipeV})
                                for (int v = 1; v <= 4; ++v)
                                    for (bool ends : {false, true}) {
                                        if ((sch == Schedule::interleaved) != (v > 1))
                                            continue;
                                        // The ends counted where the L + 2 counted layers split
                                        // evenly over K > 1 stages, as Megatron-LM needs them to.
                                        if (ends && (k == 1 || (layers + 2) % k != 0))
                                            continue;
                                        // Where it leaves the stages as they were, only the
                                        // chunks it moves make a layout of its own.
                                        if (ends && sch != Schedule::interleaved &&
                                            sch != Schedule::dualPipeV &&
                                            splitLayers(layers, k, true) == splitLayers(layers, k))
                                            continue;
                                        if (!training &&
                                            (rc != Recompute::none || sch != Schedule::gpipe))
                                            continue;
                                        Scenario s = req.base;
                                        s.tp = t;
                                        s.pp = k;
                                        s.dp = d;
                                        s.zero = zero;
                                        s.microbatchSize = mbs;
                                        s.microbatches = perReplica / mbs;
                                        s.recompute = rc;
                                        s.sequenceParallel = sp;
                                        s.schedule = sch;
                                        s.virtualStages = v;
                                        s.endsInPipelineSplit = ends;
                                        const bool fits = consider(s);
                                        // One Megatron-LM stage without recomputation that
                                        // does not fit: its first N layers' activations
                                        // offloaded, N from 1 up to the first that fits
                                        // (offload_layers; the copies only add waits).
                                        if (!fits && rc == Recompute::none && k == 1 && training &&
                                            s.framework == Framework::megatron) {
                                            for (int off = 1; off < layers; ++off) {
                                                s.offloadLayers = off;
                                                if (consider(s))
                                                    break;
                                            }
                                            s.offloadLayers = 0;
                                        }
                                        if (!fits || rc != Recompute::full)
                                            continue;
                                        int chunk = 0; // the most layers a chunk holds
                                        for (const LayerRun &run : virtualStageLayers(s, *model))
                                            chunk = std::max(chunk, run.count);
                                        for (int rerun = 1; rerun < chunk; ++rerun) {
                                            s.recomputeLayers = rerun;
                                            if (consider(s))
                                                break;
                                        }
                                    }
            }
        }
    }
    return out;
}

} // namespace

class TestPlanner : public QObject
{
    Q_OBJECT

    Presets presets = io::builtinPresets();

    void addCases()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::newRow("8B on 8 H100, batch 16") << "model=llama-3.1-8b" << 8 << 16;
        QTest::newRow("8B on 12 A100, batch 24 (N not a power of two)")
            << "model=llama-3.1-8b,device=a100-80gb" << 12 << 24;
        QTest::newRow("70B on 16 H100, batch 32, seq 2048")
            << "model=llama-3.1-70b,seq_len=2048" << 16 << 32;
        QTest::newRow("70B FP16 inference on 8 A100, batch 8")
            << "model=llama-3.1-70b,mode=inference,precision=fp16,device=a100-80gb" << 8 << 8;
        // The sanitizer pass, ten times slower, runs the same code on the four cases above;
        // this one, the largest search, is the normal pass's alone (docs/TESTING.md).
        // Megatron-LM at 8,192 tokens: one stage fits two sequences a micro-batch only with
        // activations offloaded (offload_layers).
        QTest::newRow("8B on 4 H100, batch 16, seq 8192, Megatron-LM")
            << "model=llama-3.1-8b,seq_len=8192,framework=megatron" << 4 << 16;
        if (!kSanitized)
            QTest::newRow("GPT-3 175B on 64 A100, batch 64, FP32 gradients")
                << "model=gpt-3-175b,device=a100-80gb,seq_len=2048,grad_precision=fp32" << 64 << 64;
    }

    // Multi-token prediction on the loss's stage and Megatron-LM's recomputed modules in the
    // selective layouts, with experts: the candidates are evaluate()'s and the bound a bound.
    static void addMtpAndModulesCase()
    {
        QTest::newRow("Qwen3-30B-A3B on 16 B200, batch 32, MTP and recomputed modules")
            << "model=qwen3-30b-a3b,device=b200,seq_len=2048,framework=megatron,mtp_layers=1,"
               "recompute_modules=moe_act layernorm"
            << 16 << 32;
    }

private Q_SLOTS:
    void bestEqualsBruteForce_data() { addCases(); }
    // docs/planner.md: on small cases the planner's best is the exhaustive search's best.
    void bestEqualsBruteForce()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        const PlanRequest req = request(set, devices, globalBatch);
        const PlanResult pruned = plan(req, presets);
        QVERIFY2(!pruned.error, pruned.error ? pruned.error->toString().c_str() : "");
        const BruteForce brute = bruteForce(req, presets);
        QVERIFY(brute.fitting > 0);
        QVERIFY(!pruned.candidates.empty());
        QVERIFY2(near(pruned.candidates.front().stepTimeS, brute.best),
                 qPrintable(QStringLiteral("planner %1 s, exhaustive %2 s (%3)")
                                .arg(pruned.candidates.front().stepTimeS)
                                .arg(brute.best)
                                .arg(describe(brute.bestScenario))));

        // Without pruning, the planner evaluates every layout: the same ranking, and as many
        // fitting layouts as the independent search found (it skips equivalent duplicates:
        // ZeRO with D = 1, SP with T = 1, schedules with K = 1, so at most as many).
        PlanRequest all = req;
        all.prune = false;
        const PlanResult full = plan(all, presets);
        QCOMPARE(full.pruned, 0);
        QVERIFY(full.feasible <= brute.fitting);
        QCOMPARE(pruned.candidates.size(), full.candidates.size());
        for (std::size_t i = 0; i < full.candidates.size(); ++i) {
            QVERIFY(pruned.candidates[i].sameLayout(full.candidates[i]));
            QCOMPARE(pruned.candidates[i].stepTimeS, full.candidates[i].stepTimeS);
        }
        // Every layout is accounted for: it fits, or it is rejected for a reason, pruned or not.
        for (const PlanResult *r : {&pruned, &full}) {
            std::int64_t rejected = 0;
            for (const auto &[reason, group] : r->rejected)
                rejected += group.count;
            QCOMPARE(rejected + r->feasible, r->layouts);
        }
    }

    // docs/planner.md, "Recomputed modules": a selective layout reruns the base scenario's
    // modules, and where the layers have more than the attention core worth rerunning, the
    // lists Megatron-LM's recipes run: a MoE layer's activation beside the attention core
    // (unless FP8 delayed scaling, which Megatron-core refuses it under), latent attention's up
    // projections alone, with the MoE activation and with the norms. Other frameworks'
    // selective kinds take no modules.
    void searchesRecomputedModules_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<QStringList>("modules"); // of the selective layouts searched
        const QString qwen =
            QStringLiteral("model=qwen3-30b-a3b,device=b200,seq_len=2048,framework=megatron,");
        QTest::newRow("dense: the attention core")
            << "model=llama-3.1-8b,device=h100-sxm,framework=megatron" << 8 << 16
            << QStringList{"core_attn"};
        QTest::newRow("experts: and their activation")
            << qwen + "precision=bf16" << 16 << 32 << QStringList{"core_attn", "core_attn moe_act"};
        QTest::newRow("experts under FP8 delayed scaling")
            << qwen + "precision=fp8,fp8_scaling=delayed" << 16 << 32 << QStringList{"core_attn"};
        QTest::newRow("the base's own list first")
            << qwen + "precision=bf16,recompute_modules=mlp" << 16 << 32
            << QStringList{"core_attn moe_act", "mlp"};
        QTest::newRow("latent attention and experts")
            << "model=deepseek-v3,device=gb300-nvl72,framework=megatron,precision=fp8,"
               "fp8_scaling=block,fp8_params=true,seq_len=4096"
            << 256 << 4096
            << QStringList{"core_attn", "core_attn moe_act", "layernorm mla_up_proj moe_act",
                           "mla_up_proj", "mla_up_proj moe_act"};
        QTest::newRow("torchtitan: per-op, no modules")
            << qwen + "framework=torchtitan,precision=bf16" << 16 << 32 << QStringList{};
    }
    void searchesRecomputedModules()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(QStringList, modules);
        PlanRequest req = request(set, devices, globalBatch, 1000);
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        QSet<QString> seen;
        const auto note = [&](const PlanLayout &l) {
            if (l.recompute == Recompute::selective)
                seen.insert(QString::fromStdString(l.recomputeModules));
            else // none, full and per-op keep the base's list
                QCOMPARE(l.recomputeModules, req.base.recomputeModules);
        };
        for (const auto &c : result.candidates)
            note(c);
        for (const auto &c : result.evaluatedLayouts)
            note(c);
        QStringList found = seen.values();
        found.sort();
        QCOMPARE(found, modules);
    }

    void candidatesFitAndRejectionsDoNot_data()
    {
        addCases();
        addMtpAndModulesCase();
    }
    // docs/planner.md: every returned candidate fits, every rejected one does not; the
    // numbers are evaluate()'s own, and the step-time pieces add up.
    void candidatesFitAndRejectionsDoNot()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest req = request(set, devices, globalBatch);
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        double previous = 0;
        for (const auto &c : result.candidates) {
            const Scenario s = c.apply(req.base);
            const Report r = evaluate(s, presets);
            QVERIFY2(!r.error && r.fits, qPrintable(describe(s)));
            QVERIFY(c.fits);
            QCOMPARE(r.stepTime->stepTimeS, c.stepTimeS);
            QVERIFY(c.stepTimeS >= previous); // fastest first
            previous = c.stepTimeS;
            const auto &b = c.breakdown;
            QVERIFY(near(b.total(), c.stepTimeS, 1e-12));
            QVERIFY(c.peakStageBytes <= r.stages.front().capacityBytes);
        }
        std::map<std::string, std::int64_t> rejectedSeen;
        for (const auto &c : result.evaluatedLayouts) {
            const Report r = evaluate(c.apply(req.base), presets);
            QCOMPARE(r.fits, c.fits);
            if (!c.fits) {
                QCOMPARE(c.overflowTerm, r.firstOverflowTerm);
                ++rejectedSeen[c.overflowTerm];
            }
        }
        for (const auto &[reason, count] : rejectedSeen)
            QCOMPARE(result.rejected.at(reason).count, count);
    }

    // docs/planner.md, "Offloaded layers": a layout of one Megatron-LM stage without
    // recomputation that does not fit is tried with the fewest first layers' activations
    // offloaded with which it fits; the base scenario's offload_layers is replaced. Megatron-
    // Bridge's Llama 3 70B on 64 GB200s (v0.4.2, Megatron-FSDP, two micro-batches of two
    // sequences) fits only with 40 layers offloaded (docs/step_time.md, "Offloaded
    // activations"): the planner finds that layout, at 40 or fewer.
    void offloadIsTheFewestThatFit()
    {
        PlanRequest req = request(QStringLiteral("model=llama-3.1-70b,device=gb200-nvl72,"
                                                 "framework=megatron,precision=fp8,"
                                                 "fp8_scaling=current,fp8_params=true,"
                                                 "grad_precision=bf16,loss_fusion=te,"
                                                 "seq_len=8192,offload_layers=3"),
                                  64, 256, 1000);
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        const auto headroom = static_cast<std::int64_t>(req.headroomGib * kGiB);
        const auto fitsSearch = [&](const Scenario &s) {
            const Report r = evaluate(s, presets);
            return r.ok() && r.fits &&
                   std::all_of(r.stages.begin(), r.stages.end(),
                               [&](const StageReport &st) { return st.headroomBytes >= headroom; });
        };
        bool published = false;
        int offloaded = 0;
        for (const PlanCandidate &c : result.candidates) {
            const Scenario s = c.apply(req.base);
            QVERIFY(fitsSearch(s));
            QCOMPARE(c.stepTimeS, evaluate(s, presets).stepTime->stepTimeS);
            if (c.offloadLayers == 0)
                continue;
            ++offloaded;
            QCOMPARE(c.pp, 1);
            QVERIFY(c.recompute == Recompute::none);
            Scenario fewer = s;
            fewer.offloadLayers = c.offloadLayers - 1;
            QVERIFY2(!fitsSearch(fewer), qPrintable(io::layoutText(c)));
            if (c.tp == 1 && c.dp == 64 && c.zero == 3 && c.microbatchSize == 2 &&
                c.microbatches == 2) {
                published = true;
                QVERIFY(c.offloadLayers <= 40);
            }
        }
        QVERIFY(offloaded > 0);
        QVERIFY(published);
        // Four sequences a micro-batch would need more host memory than a Grace has for its
        // two GPUs (480 GB): such layouts are rejected under "host memory", the example at the
        // fewest offloaded layers the device holds.
        const auto host = result.rejected.find("host memory");
        QVERIFY(host != result.rejected.end());
        QCOMPARE(host->second.layout.pp, 1);
        QVERIFY(host->second.layout.offloadLayers > 0);
        const Report overflow = evaluate(host->second.layout.apply(req.base), presets);
        QVERIFY(overflow.stages[0].hostOverflow && overflow.stages[0].headroomBytes >= headroom);
        // Nothing is rejected for the base's own offload_layers, which is not kept.
        QVERIFY(std::none_of(result.rejected.begin(), result.rejected.end(), [](const auto &g) {
            return g.first.starts_with("invalid offload_layers");
        }));
        // Asked not to offload (--no-offloading, the panel's Offloading unticked), no layout does.
        PlanRequest none = req;
        none.offloading = false;
        for (const PlanCandidate &c : plan(none, presets).candidates)
            QCOMPARE(c.offloadLayers, 0);
        // Other frameworks do not offload: the same request under torchtitan offloads nothing.
        req.base.framework = Framework::torchtitan;
        for (const PlanCandidate &c : plan(req, presets).candidates)
            QCOMPARE(c.offloadLayers, 0);
    }

    void boundNeverExceedsStepTime_data()
    {
        addCases();
        // Experts with ep_overlap: pairs that hide the all-to-all make a stage's own work less
        // than m·(F + B), which the bound must allow for.
        QTest::newRow("Qwen3-30B-A3B on 16 B200, batch 32, ep_overlap")
            << "model=qwen3-30b-a3b,device=b200,seq_len=2048,ep_overlap=true" << 16 << 32;
        // Routing as trained (docs/experts.md, "Routing imbalance"): the busiest rank's
        // copies lengthen the step at every E but 1, which the bound must not outrun.
        QTest::newRow("Qwen3-30B-A3B on 16 B200, batch 32, busiest rank 1.5")
            << "model=qwen3-30b-a3b,device=b200,seq_len=2048,expert_rank_load=1.5" << 16 << 32;
        // FP8 weights gather in their byte under ZeRO (docs/step_time.md, "FP8 weights"): the
        // bound must gather them so too, not in 16 bits (it did before it counted each
        // stage's cast parameters, and its bound exceeded the step).
        QTest::newRow("8B on 16 H100 in FP8 with FP8 weights, batch 64")
            << "model=llama-3.1-8b,device=h100-sxm,precision=fp8,fp8_params=true" << 16 << 64;
        addMtpAndModulesCase();
    }
    // docs/planner.md: pruning is exact only if the bound is a bound.
    void boundNeverExceedsStepTime()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest req = request(set, devices, globalBatch);
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.evaluatedLayouts.empty());
        for (const auto &c : result.evaluatedLayouts) {
            const Scenario s = c.apply(req.base);
            const auto bound = stepTimeLowerBound(s, presets);
            QVERIFY(bound);
            QVERIFY2(*bound <= c.stepTimeS, qPrintable(QStringLiteral("%1: bound %2 > %3")
                                                           .arg(describe(s))
                                                           .arg(*bound)
                                                           .arg(c.stepTimeS)));
        }
    }

    // docs/planner.md, "Hybrid sharding": the scenario's zero_replicas R is kept, so the search
    // takes only the D that R divides (validate); each such layout is timed as evaluate times it.
    // Without R, D = 2 (not a multiple of 4) is among the layouts of 16 devices.
    void hybridShardingKeepsItsReplicas()
    {
        PlanRequest req = request("model=llama-3.1-8b,device=h100-sxm,zero_replicas=4", 16, 64);
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY2(!result.error, result.error ? result.error->message.c_str() : "");
        QVERIFY(!result.evaluatedLayouts.empty());
        for (const auto &c : result.evaluatedLayouts)
            QCOMPARE(c.dp % 4, 0);
        QVERIFY(!result.candidates.empty());
        const PlanCandidate &best = result.candidates.front();
        Scenario s = best.apply(req.base);
        const Report r = evaluate(s, presets);
        QVERIFY(r.ok() && r.stepTime);
        QCOMPARE(r.stepTime->stepTimeS, best.stepTimeS);
        QCOMPARE(r.stepTime->dpReplicas, best.zero >= 1 ? 4 : 0);
        PlanRequest plain = request("model=llama-3.1-8b,device=h100-sxm", 16, 64);
        plain.prune = false;
        const PlanResult all = plan(plain, presets);
        QVERIFY(std::ranges::any_of(all.evaluatedLayouts, [](const auto &c) { return c.dp == 2; }));
    }

    // docs/planner.md, "Hybrid sharding": with hybridSharding each layout at ZeRO 1 to 3 is also
    // tried sharded within a node of 8 A100s, over S = min(D x C, 8 / T) devices, its R = D x C /
    // S replicas across the nodes: T = 1, D = 128 gives 16 replicas of 8; T = 2, D = 64 16 of 4;
    // T = 8 leaves one device of the group a node, nothing to shard within it. ZeRO 0 shards
    // nothing. Each is timed as evaluate times it; without the option none is tried.
    void hybridShardingSearchedWithinANode()
    {
        const QString set = "model=llama-3.1-8b,device=a100-80gb,inter_node_gb_per_s=6.25,"
                            "framework=custom,grad_precision=bf16";
        PlanRequest req = request(set, 128, 256, 1000);
        req.hybridSharding = true;
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY2(!result.error, result.error ? result.error->message.c_str() : "");
        std::set<std::pair<int, int>> hybrid; // (T, R) of every hybrid-sharded layout
        for (const auto &c : result.evaluatedLayouts) {
            if (c.zeroReplicas == 1)
                continue;
            QVERIFY(c.zero >= 1);
            const int group = c.dp * c.cp;
            // A node's share of the group, 8 / T devices, holds the 8B's states; at T = 8 a
            // node holds one device of the group, so the shard spans two nodes.
            QCOMPARE(c.zeroReplicas, group / (c.tp < 8 ? std::min(group, 8 / c.tp) : 2));
            hybrid.insert({c.tp, c.zeroReplicas});
        }
        QVERIFY(hybrid.count({1, 16}) == 1 && hybrid.count({2, 16}) == 1 &&
                hybrid.count({8, 8}) == 1);
        QVERIFY(std::ranges::any_of(result.candidates,
                                    [](const PlanCandidate &c) { return c.zeroReplicas > 1; }));
        for (const PlanCandidate &c : result.candidates) {
            const Report r = evaluate(c.apply(req.base), presets);
            QVERIFY(r.ok() && r.stepTime);
            QCOMPARE(r.stepTime->stepTimeS, c.stepTimeS);
            QCOMPARE(r.stepTime->dpReplicas, c.zeroReplicas > 1 ? c.zeroReplicas : 0);
        }
        req.hybridSharding = false;
        const PlanResult kept = plan(req, presets);
        QVERIFY(std::ranges::none_of(kept.evaluatedLayouts,
                                     [](const auto &c) { return c.zeroReplicas > 1; }));
    }

    // docs/planner.md, "Hybrid sharding": where a node's share of the group cannot hold the
    // model states, the shard spans the fewest whole nodes that can, doubling. Llama 3.1 70B
    // (70,553,706,496 parameters) at ZeRO 3 with BF16 gradients keeps 2 + 2 + 12 = 16 bytes a
    // parameter over S devices: 141.1 GB over a node's 8 (more than an H100's 85.9 GB), 70.6
    // GB over two nodes' 16, so on 64 H100s at T = 1 the replicas are 64 / 16 = 4; ZeRO 1 and
    // 2 keep whole weights and gradients or weights (4 or 2 bytes a parameter, 282 or 141 GB
    // at T = 1), which no shard holds.
    void hybridShardingSpansTheFewestNodesThatHoldTheStates()
    {
        PlanRequest req = request("model=llama-3.1-70b,device=h100-sxm,framework=custom,"
                                  "grad_precision=bf16",
                                  64, 64, 1000);
        req.hybridSharding = true;
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY2(!result.error, result.error ? result.error->message.c_str() : "");
        std::set<std::pair<int, int>> flat; // (ZeRO, R) of T = 1, K = 1
        for (const auto &c : result.evaluatedLayouts)
            if (c.tp == 1 && c.pp == 1)
                flat.insert({c.zero, c.zeroReplicas});
        // Within a node (R = 8) at every ZeRO stage, which the search then finds too large;
        // beyond it, at ZeRO 3 only, two nodes' share (R = 4), not four nodes' (R = 2).
        QCOMPARE(flat, (std::set<std::pair<int, int>>{
                           {0, 1}, {1, 1}, {1, 8}, {2, 1}, {2, 8}, {3, 1}, {3, 4}, {3, 8}}));
        QVERIFY(70'553'706'496.0 * 16 / 8 > 85.9e9 && 70'553'706'496.0 * 16 / 16 < 85.9e9);
    }

    // docs/planner.md: more micro-batches never increase the 1F1B bubble.
    void moreMicrobatchesNeverIncreaseTheBubble()
    {
        PlanRequest req = request("model=llama-3.1-8b", 16, 64);
        req.prune = false;
        const PlanResult result = plan(req, presets);
        std::map<std::tuple<int, int, int, int, int, bool>, std::map<int, double>> byLayout;
        for (const auto &c : result.evaluatedLayouts)
            if (c.schedule == Schedule::oneFOneB && c.pp > 1)
                byLayout[{c.tp, c.pp, c.dp, c.zero, static_cast<int>(c.recompute),
                          c.sequenceParallel}][c.microbatches] = c.bubbleFraction;
        int pairs = 0;
        for (const auto &[layout, bubbles] : byLayout) {
            double previous = 1;
            for (const auto &[m, bubble] : bubbles) {
                QVERIFY(bubble <= previous + 1e-12);
                previous = bubble;
                ++pairs;
            }
        }
        QVERIFY(pairs > 20);
    }

    // docs/planner.md, "Recomputed layers": where full recomputation fits and none does not, a
    // Megatron-LM layout reruns the fewest first layers of each chunk with which it fits (N
    // fits with the headroom free, N - 1 does not); torchtitan's and DeepSpeed's, whose full
    // recomputation wraps every layer, rerun every one.
    void fullRecomputationRerunsTheFewestThatFit_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<bool>("fewer");
        QTest::newRow("Megatron-LM, 70B on 64 H100")
            << "model=llama-3.1-70b,framework=megatron" << 64 << 512 << true;
        QTest::newRow("custom, 70B on 16 H100, 2,048 tokens")
            << "model=llama-3.1-70b,seq_len=2048" << 16 << 32 << true;
        QTest::newRow("torchtitan, 70B on 64 H100")
            << "model=llama-3.1-70b,framework=torchtitan" << 64 << 512 << false;
        QTest::newRow("DeepSpeed, 70B on 64 H100")
            << "model=llama-3.1-70b,framework=deepspeed" << 64 << 512 << false;
    }
    void fullRecomputationRerunsTheFewestThatFit()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(bool, fewer);
        PlanRequest req = request(set, devices, globalBatch, 50);
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        const auto headroom = static_cast<std::int64_t>(req.headroomGib * kGiB);
        const auto fits = [&](const Scenario &s) {
            return fitsWithHeadroom(evaluate(s, presets), headroom);
        };
        int partial = 0;
        int whole = 0;
        for (const PlanCandidate &c : result.evaluatedLayouts) {
            if (c.recompute != Recompute::full || !c.leavesHeadroom)
                continue;
            if (c.recomputeLayers == 0) {
                ++whole;
                continue;
            }
            ++partial;
            Scenario s = c.apply(req.base);
            QVERIFY(fits(s));
            QCOMPARE(evaluate(s, presets).stepTime->stepTimeS, c.stepTimeS);
            s.recomputeLayers = c.recomputeLayers - 1; // 0: every layer; otherwise fewer
            if (c.recomputeLayers > 1)
                QVERIFY2(!fits(s), qPrintable(describe(s)));
            s.recompute = Recompute::none;
            s.recomputeLayers = 0;
            QVERIFY2(!fits(s), qPrintable(describe(s)));
            // Fewer layers rerun: a shorter step than every layer's.
            s.recompute = Recompute::full;
            QVERIFY2(evaluate(s, presets).stepTime->stepTimeS > c.stepTimeS,
                     qPrintable(describe(s)));
        }
        QCOMPARE(partial > 0, fewer);
        if (!fewer)
            QVERIFY(whole > 0);
    }

    // docs/planner.md: the planner's full recomputation reruns every layer or the fewest that
    // fit, whatever count of layers (recompute_layers) the base scenario gives; its other
    // kinds take none.
    void fullRecomputationRerunsEveryLayer()
    {
        PlanRequest every = request("model=llama-3.1-8b", 16, 64);
        every.prune = false;
        PlanRequest some = every;
        some.base.recompute = Recompute::full;
        some.base.recomputeLayers = 5;
        const PlanResult a = plan(every, presets);
        const PlanResult b = plan(some, presets);
        QVERIFY(!a.error && !b.error);
        QCOMPARE(b.evaluatedLayouts.size(), a.evaluatedLayouts.size());
        int full = 0;
        for (std::size_t i = 0; i < a.evaluatedLayouts.size(); ++i) {
            QVERIFY(b.evaluatedLayouts[i].sameLayout(a.evaluatedLayouts[i]));
            QCOMPARE(b.evaluatedLayouts[i].stepTimeS, a.evaluatedLayouts[i].stepTimeS);
            full += a.evaluatedLayouts[i].recompute == Recompute::full;
        }
        QVERIFY(full > 0);
    }

    // docs/planner.md and docs/worked-examples.md §2: Llama 3.1 70B in FP16 is 141 GB of weights;
    // no single 80 GB device holds them, so no inference layout with T·K < 2 fits.
    void inference70BNeedsTwoDevicesPerReplica_data()
    {
        QTest::addColumn<QString>("device");
        QTest::newRow("A100 80GB") << "a100-80gb";
        QTest::newRow("H100 SXM") << "h100-sxm";
    }
    void inference70BNeedsTwoDevicesPerReplica()
    {
        QFETCH(QString, device);
        for (bool prune : {true, false}) {
            PlanRequest req = request(
                "model=llama-3.1-70b,mode=inference,precision=fp16,device=" + device, 8, 8, 100);
            req.prune = prune;
            const PlanResult result = plan(req, presets);
            QVERIFY(!result.candidates.empty());
            for (const auto &c : result.candidates)
                QVERIFY(c.tp * c.pp >= 2);
            for (const auto &c : result.evaluatedLayouts)
                if (c.tp * c.pp < 2) {
                    QVERIFY(!c.fits);
                    QCOMPARE(c.overflowTerm, std::string("weights"));
                }
            QVERIFY(result.rejected.count("weights") > 0);
        }
    }

    // The Llama 3 Herd of Models (2024), §3.3.2 and Table 4: Llama 3.1 405B was trained on
    // 16,384 H100s with T = 8, K = 16, D = 128 and 16M-token batches (2,048 × 8,192).
    // Tensor parallelism fills the 8-GPU NVLink domain and no more: every one of the planner's
    // five fastest splits does the same, and the production layout fits (docs/planner.md
    // compares its rank and MFU with the paper's).
    void publishedLlama3Layout()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): this 16,384-device search takes 6 s "
                  "here; the default pass "
                  "runs it (docs/TESTING.md)");
        PlanRequest req = request("model=llama-3.1-405b,device=h100-sxm,seq_len=8192", 16384, 2048);
        req.distinct = true;
        req.top = 1000;
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        QVERIFY(result.candidates.size() > 10);
        for (std::size_t i = 0; i < 5; ++i)
            QCOMPARE(result.candidates[i].tp, 8);
        const auto meta = std::find_if(
            result.candidates.begin(), result.candidates.end(),
            [](const PlanCandidate &c) { return c.tp == 8 && c.pp == 16 && c.dp == 128; });
        QVERIFY(meta != result.candidates.end());
        QVERIFY(meta->fits);
    }

    // As Meta ran it (§3.3.2: one layer fewer on the first and last stages): the planner
    // searches ends_in_pipeline_split both ways, 128 counted layers over K = 16 interleave,
    // and its best T = 8, K = 16, D = 128 counts the ends, interleaved, faster than that
    // split's best without them, which cannot interleave 126 layers (docs/planner.md).
    void publishedLlama3LayoutInterleaved()
    {
        if (kSanitized)
            QSKIP("under the sanitizers: a 16,384-device search; the default pass runs it");
        PlanRequest req = request("model=llama-3.1-405b,device=h100-sxm,seq_len=8192", 16384, 2048);
        req.top = 100000; // every layout that fits, ranked
        const PlanResult result = plan(req, presets);
        QCOMPARE(std::int64_t(result.candidates.size()), result.feasible);
        const auto fastest = [&result](bool ends) {
            const auto c = std::find_if(
                result.candidates.begin(), result.candidates.end(), [ends](const PlanCandidate &x) {
                    return x.tp == 8 && x.pp == 16 && x.dp == 128 && x.endsInPipelineSplit == ends;
                });
            return c == result.candidates.end() ? PlanCandidate{} : *c;
        };
        const PlanCandidate even = fastest(false);
        const PlanCandidate meta = fastest(true);
        QVERIFY(even.fits && meta.fits);
        QVERIFY(even.schedule != Schedule::interleaved); // 126 layers do not split into chunks
        QVERIFY(meta.schedule == Schedule::interleaved);
        QVERIFY(meta.mfuAchieved > even.mfuAchieved);
        // Among the splits, Meta's ranks in the first three (docs/planner.md).
        PlanRequest distinct = req;
        distinct.distinct = true;
        distinct.top = 3;
        const PlanResult top = plan(distinct, presets);
        QVERIFY(std::ranges::any_of(top.candidates, [](const PlanCandidate &c) {
            return c.tp == 8 && c.pp == 16 && c.dp == 128 && c.endsInPipelineSplit;
        }));
    }

    // docs/planner.md: 70B on 64 H100s with 512 sequences gives ranked, fitting layouts.
    void doneWhen()
    {
        const PlanRequest req = request("model=llama-3.1-70b,device=h100-sxm", 64, 512);
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        QCOMPARE(result.candidates.size(), std::size_t(10));
        for (const auto &c : result.candidates) {
            QVERIFY(c.fits);
            QCOMPARE(c.tp * c.pp * c.dp, 64);
            QCOMPARE(c.microbatches * c.microbatchSize * c.dp, 512);
            QVERIFY(c.stepTimeS > 0);
            QVERIFY(c.tokensPerS > 0);
        }
        QVERIFY(result.pruned > 0);
        QVERIFY(result.evaluated < result.layouts);
    }

    void distinctKeepsTheFastestOfEachSplit_data() { addCases(); }
    // With `distinct` the ranking is the full ranking with every layout dropped whose split
    // (T, K, D, schedule, micro-batch size) an earlier, faster one already has: computed
    // here from the unpruned planner's whole list; the pruned search must find the same.
    void distinctKeepsTheFastestOfEachSplit()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest everything = request(set, devices, globalBatch, 1000000);
        everything.prune = false;
        const PlanResult all = plan(everything, presets);
        QVERIFY(!all.error);
        std::vector<PlanCandidate> expected;
        for (const auto &c : all.candidates) {
            const bool seen = std::any_of(expected.begin(), expected.end(), [&](const auto &e) {
                return e.tp == c.tp && e.pp == c.pp && e.dp == c.dp && e.schedule == c.schedule &&
                       e.virtualStages == c.virtualStages && e.microbatchSize == c.microbatchSize;
            });
            if (!seen && expected.size() < 10)
                expected.push_back(c);
        }
        PlanRequest req = request(set, devices, globalBatch);
        req.distinct = true;
        const PlanResult distinct = plan(req, presets);
        QCOMPARE(distinct.candidates.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QVERIFY2(distinct.candidates[i].sameLayout(expected[i]),
                     qPrintable(QStringLiteral("rank %1").arg(i + 1)));
            QCOMPARE(distinct.candidates[i].stepTimeS, expected[i].stepTimeS);
        }
        QCOMPARE(distinct.layouts, all.layouts); // the same search space
    }

    // The result never depends on how many threads searched.
    void sameResultOnOneOrTwoThreads()
    {
        PlanRequest req = request("model=llama-3.1-70b", 32, 64, 20);
        req.threads = 1;
        const PlanResult one = plan(req, presets);
        req.threads = 2;
        const PlanResult two = plan(req, presets);
        QCOMPARE(one.candidates.size(), two.candidates.size());
        for (std::size_t i = 0; i < one.candidates.size(); ++i)
            QVERIFY(one.candidates[i].sameLayout(two.candidates[i]));
        QCOMPARE(one.layouts, two.layouts);
        // The counts too: how far a thread got past the final threshold is not reported.
        QCOMPARE(one.evaluated, two.evaluated);
        QCOMPARE(one.pruned, two.pruned);
        QCOMPARE(one.feasible, two.feasible);
        QVERIFY(one.rejected == two.rejected);
        for (int run = 0; run < 5; ++run) {
            const PlanResult again = plan(req, presets);
            QCOMPARE(again.evaluated, two.evaluated);
            QVERIFY(again.rejected == two.rejected);
        }
    }

    void cancelStopsTheSearch()
    {
        std::atomic<bool> cancel{true};
        PlanControl control;
        control.cancel = &cancel;
        const PlanResult result =
            plan(request("model=llama-3.1-405b,seq_len=8192", 1024, 2048), presets, control);
        QVERIFY(result.cancelled);
        QVERIFY(result.candidates.empty());
    }

    void progressReachesOne()
    {
        std::atomic<int> calls{0};
        std::atomic<double> last{0};
        PlanControl control;
        control.progress = [&](double f) {
            ++calls;
            last = f;
        };
        plan(request("model=llama-3.1-8b", 8, 16), presets, control);
        QVERIFY(calls > 1);
        QCOMPARE(last.load(), 1.0);
    }

    // Bad requests name the field (docs/DESIGN.md §6).
    void invalidRequests_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<int>("top");
        QTest::addColumn<QString>("key");
        QTest::newRow("no devices") << "" << 0 << 16 << 10 << "devices";
        QTest::newRow("no sequences") << "" << 8 << 0 << 10 << "global-batch";
        QTest::newRow("top 0") << "" << 8 << 16 << 0 << "top";
        QTest::newRow("unknown model") << "model=llama-9" << 8 << 16 << 10 << "model";
        QTest::newRow("int8 training") << "precision=int8" << 8 << 16 << 10 << "precision";
        QTest::newRow("no peak at the precision (SN30 has FP16 only)")
            << "device=sn30,precision=bf16" << 8 << 16 << 10 << "device";
    }
    void invalidRequests()
    {
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(int, top);
        QFETCH(QString, key);
        const PlanResult result = plan(request(set, devices, globalBatch, top), presets);
        QVERIFY(result.error);
        QCOMPARE(QString::fromStdString(result.error->key), key);
        QVERIFY(!result.error->message.empty());
    }

    // README, "Limits": N up to 2^20, as the window's spin box; beyond it the request is
    // refused naming the field, never searched (2^30 to 2^31 - 1 once overflowed the search
    // for tensor-parallel degrees into a division by zero).
    void devicesLimit_data()
    {
        QTest::addColumn<int>("devices");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("2^20, the limit") << limits::kPlanDevices << true;
        QTest::newRow("2^20 + 1") << limits::kPlanDevices + 1 << false;
        QTest::newRow("2^30 (was SIGFPE)") << (1 << 30) << false;
        QTest::newRow("2^30 + 2^29 (was SIGFPE)") << (1 << 30) + (1 << 29) << false;
        QTest::newRow("2^31 - 1 (was SIGFPE)") << std::numeric_limits<int>::max() << false;
        QTest::newRow("negative") << -64 << false;
    }
    void devicesLimit()
    {
        QFETCH(int, devices);
        QFETCH(bool, accepted);
        const PlanResult result = plan(request("model=llama-3.1-70b", devices, 2048), presets);
        if (accepted) {
            QVERIFY2(!result.error, result.error ? result.error->toString().c_str() : "");
            QVERIFY(!result.candidates.empty());
            for (const auto &c : result.candidates)
                QCOMPARE(std::int64_t{c.tp} * c.pp * c.dp, std::int64_t{devices});
            return;
        }
        QVERIFY(result.error);
        QCOMPARE(result.error->key, std::string("devices"));
        QVERIFY2(result.error->message.find(std::to_string(limits::kPlanDevices)) !=
                     std::string::npos,
                 result.error->message.c_str());
        QCOMPARE(result.layouts, 0);
    }

    // A global batch of 2^27 on one device: micro-batch sizes from 1 to 2^27, each refused
    // for a different number (m = 2^27, 2^26, ... beyond 2^20; b = 2^17, ... beyond 65,536).
    // Grouped by key and kind of problem, that is three reasons, not one per number, each
    // with an example that is a real layout's message.
    void rejectionsAreGroupedByKindOfProblem()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): this test plans 2^27 sequences, 8 s "
                  "here; the default pass runs "
                  "it and "
                  "fuzz_plan_request drives the same search under the sanitizers");
        const PlanRequest req = request("model=llama-3.1-8b,mode=inference", 1, 1 << 27);
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        const std::string tooLarge =
            "invalid microbatch_size: must be at most # (sequences per micro-batch), got #";
        const std::string tooMany =
            "invalid microbatches: must be at most # (micro-batches per step), got #";
        QVERIFY(result.rejected.contains(tooLarge));
        QVERIFY(result.rejected.contains(tooMany));
        // b = 2^17 ... 2^27: eleven sizes; m = 2^27 ... 2^21: seven counts.
        QCOMPARE(result.rejected.at(tooLarge).count, 11);
        QCOMPARE(result.rejected.at(tooMany).count, 7);
        QCOMPARE(result.rejected.size(), std::size_t(3)); // and the KV cache that overflows
        std::int64_t counted = 0;
        for (const auto &[reason, group] : result.rejected) {
            counted += group.count;
            QVERIFY(group.count > 0);
            const Report r = evaluate(group.layout.apply(req.base), presets);
            if (reason.starts_with("invalid ")) {
                QVERIFY(r.error);
                QCOMPARE(r.error->toString(), group.example);
            } else {
                QVERIFY(r.ok() && !r.fits);
                QCOMPARE(r.firstOverflowTerm, reason);
                QVERIFY(r.warnings.front().message == group.example);
            }
        }
        QCOMPARE(counted + result.feasible, result.layouts);
        // The example is the first layout of its group: the smallest micro-batch size that
        // is too large, the largest count that is too many.
        QCOMPARE(result.rejected.at(tooLarge).layout.microbatchSize, 1 << 17);
        QCOMPARE(result.rejected.at(tooMany).layout.microbatchSize, 1);
        QCOMPARE(result.rejected.at(tooMany).example,
                 std::string("microbatches: must be at most 1048576 (micro-batches per step), "
                             "got 134217728"));
    }

    // Mixed-precision Adam with ZeRO 1 over D >= 7 keeps weights and gradients at 2 bytes a
    // parameter each, more than the sharded optimizer states: an exact tie, named by the first
    // of the memory terms' fixed order, "weights", in every build (it once depended on where
    // the compiler put the string literals, and differed under AddressSanitizer).
    void tiesNameTheFirstMemoryTerm()
    {
        for (bool prune : {true, false}) {
            PlanRequest req = request("model=llama-3.1-405b", 64, 64);
            req.prune = prune;
            const PlanResult result = plan(req, presets);
            QVERIFY(!result.error);
            QVERIFY(result.rejected.contains("weights"));
            QVERIFY(!result.rejected.contains("gradients"));
            const RejectionGroup &weights = result.rejected.at("weights");
            const Report r = evaluate(weights.layout.apply(req.base), presets);
            QCOMPARE(r.firstOverflowTerm, std::string("weights"));
            const StageReport &stage = r.stages[std::size_t(r.firstOverflowStage)];
            QVERIFY(stage.optimizerBytes < stage.weightsBytes);
            if (weights.layout.zero == 1)
                QCOMPARE(stage.gradsBytes, stage.weightsBytes);
        }
    }

    // The planner's layout keys are keys of the scenario table, each bound to the same member
    // there, and between them they are the whole of PlanLayout: a layout with every field
    // away from its default survives a trip through a scenario, and applying it leaves every
    // other key of the base as it was.
    void layoutKeysAreScenarioFields_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        // docs/planner.md: T, K, D, ZeRO, the schedule with its chunks, the micro-batching,
        // recomputation, sequence parallelism, C, E and whether the split counts the ends.
        QTest::addRow("tp") << "tp"
                            << "2";
        QTest::addRow("pp") << "pp"
                            << "2";
        QTest::addRow("dp") << "dp"
                            << "4";
        QTest::addRow("zero") << "zero"
                              << "3";
        QTest::addRow("schedule") << "schedule"
                                  << "interleaved";
        QTest::addRow("virtual_stages") << "virtual_stages"
                                        << "2";
        QTest::addRow("microbatch_size") << "microbatch_size"
                                         << "2";
        QTest::addRow("microbatches") << "microbatches"
                                      << "8";
        QTest::addRow("recompute") << "recompute"
                                   << "full";
        QTest::addRow("sequence_parallel") << "sequence_parallel"
                                           << "false";
        QTest::addRow("cp") << "cp"
                            << "4";
        QTest::addRow("ep") << "ep"
                            << "8";
        QTest::addRow("ends_in_pipeline_split") << "ends_in_pipeline_split"
                                                << "true";
        QTest::addRow("recompute_modules") << "recompute_modules"
                                           << "mla_up_proj moe_act";
        QTest::addRow("recompute_layers") << "recompute_layers"
                                          << "3";
        QTest::addRow("zero_replicas") << "zero_replicas"
                                       << "2";
        QTest::addRow("offload_layers") << "offload_layers"
                                        << "5";
    }
    void layoutKeysAreScenarioFields()
    {
        QFETCH(QString, key);
        QFETCH(QString, text);
        const PlanLayout layout{2,     2, 4, 3,    Schedule::interleaved, 2, 2, 8, Recompute::full,
                                false, 4, 8, true, "mla_up_proj moe_act", 3, 2, 5};
        const Scenario base; // the default layout differs from `layout` in every field
        const Scenario applied = layout.apply(base);
        QVERIFY(PlanLayout::of(applied) == layout);
        QCOMPARE(QString::fromStdString(fieldText(applied, key.toStdString())), text);
        QVERIFY(fieldText(base, key.toStdString()) != text.toStdString());

        int rows = 0;
        int matches = 0;
        forEachLayoutField([&](const auto &field) {
            ++rows;
            const FieldInfo *info = findField(field.key);
            QVERIFY(info);
            using Member = std::remove_cvref_t<decltype(field.scenario)>;
            const Member *member = std::get_if<Member>(&info->member);
            QVERIFY(member && *member == field.scenario);
            if (field.key == key.toStdString())
                ++matches;
        });
        QCOMPARE(rows, 17); // one per row of the _data table
        QCOMPARE(matches, 1);
        for (const FieldInfo &field : scenarioFields()) {
            bool isLayoutKey = false;
            forEachLayoutField([&](const auto &f) { isLayoutKey |= f.key == field.key; });
            if (!isLayoutKey)
                QCOMPARE(fieldText(applied, field.key), fieldText(base, field.key));
        }
    }

    // Layouts are ordered field by field in PlanLayout's order (T first, sequence parallelism
    // last): the tie-break the ranking and the rejection examples use.
    void layoutsOrderFieldByField()
    {
        PlanLayout a;
        PlanLayout b;
        b.sequenceParallel = true;
        QVERIFY(a < b);
        a.tp = 2;
        QVERIFY(b < a);
        b.tp = 2;
        b.schedule = Schedule::interleaved;
        QVERIFY(a < b);
        QVERIFY(a.sameSplit(
            PlanLayout{2, 1, 1, 3, Schedule::oneFOneB, 1, 1, 1, Recompute::full, true}));
        // Counting the ends moves a layer off each end stage of the same split.
        QVERIFY(a.sameSplit(PlanLayout{2, 1, 1, 0, Schedule::oneFOneB, 1, 1, 1, Recompute::none,
                                       false, 1, 1, true}));
        QVERIFY(!a.sameSplit(b));
    }

    // Rejection groups, most first, ties alphabetical: the order of the text report's lines
    // and of the window's summary.
    void rejectionsByCountMostFirst()
    {
        RejectionCounts counts;
        counts["weights"].count = 5;
        counts["activations"].count = 5;
        counts["optimizer states"].count = 9;
        counts["KV cache"].count = 1;
        const auto sorted = rejectionsByCount(counts);
        QCOMPARE(sorted.size(), std::size_t(4));
        QCOMPARE(sorted[0].first, std::string("optimizer states"));
        QCOMPARE(sorted[1].first, std::string("activations"));
        QCOMPARE(sorted[2].first, std::string("weights"));
        QCOMPARE(sorted[3].first, std::string("KV cache"));
    }

    void sizeOnlyModelIsRefused()
    {
        PlanRequest req = request("", 8, 16);
        ModelSpec sizeOnly;
        sizeOnly.id = "mystery";
        sizeOnly.params = 7'000'000'000;
        req.base.customModel = sizeOnly;
        const PlanResult result = plan(req, presets);
        QVERIFY(result.error);
        QCOMPARE(result.error->key, std::string("model"));
    }

    // A batch that no D divides: the layouts are counted and the reason given.
    void indivisibleBatchesAreCounted()
    {
        const PlanResult result = plan(request("model=llama-3.1-8b", 8, 3), presets);
        QVERIFY(!result.error);
        QVERIFY(result.rejected.at("global batch smaller than D").count > 0);
        for (const auto &c : result.candidates)
            QCOMPARE(c.dp, 1);
    }
    // Issue #18 §7: "N fit" counted only the layouts that escaped pruning, so the same
    // question gave 4, 15, 100 or 1,636. The count and the rejections are now every layout's,
    // the same for any `top`, with or without `distinct`, and as the unpruned search counts
    // them (each layout evaluated in full there; pruned ones are checked for memory only here).
    void fitCountIsTheSameForEveryTopAndDistinct_data() { addCases(); }
    void fitCountIsTheSameForEveryTopAndDistinct()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): this test repeats each search for every "
                  "top and --distinct, 6 s "
                  "here; the default pass runs it and "
                  "fuzz_plan_request drives the same search under the sanitizers");
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest all = request(set, devices, globalBatch);
        all.prune = false;
        const PlanResult exhaustive = plan(all, presets);
        QVERIFY(exhaustive.feasible > 0);
        // Rejected unseen, a layout whose model states overflow is named by the largest of
        // them; evaluated, by the largest term: compare the reasons among pruned searches.
        const PlanResult reference = plan(request(set, devices, globalBatch), presets);
        for (int top : {1, 3, 10, 100}) {
            for (bool distinct : {false, true}) {
                PlanRequest req = request(set, devices, globalBatch, top);
                req.distinct = distinct;
                const PlanResult r = plan(req, presets);
                const QByteArray row = QStringLiteral("top %1%2")
                                           .arg(top)
                                           .arg(distinct ? QStringLiteral(", distinct") : QString())
                                           .toUtf8();
                QVERIFY2(r.feasible == exhaustive.feasible, row.constData());
                QVERIFY2(r.rejected == reference.rejected, row.constData());
                QCOMPARE(r.layouts, exhaustive.layouts);
            }
        }
    }

    // The in-flight micro-batches the fit count reads off the schedule's order are the event
    // simulation's. Hand-derived rows: GPipe keeps all m (Huang et al. 2019), 1F1B K - s
    // (Narayanan et al. 2021 §2.2), ZB-H1 K on every stage (Qi et al. 2023 §3.1: W(i - s)
    // runs after B(i), so stage s keeps s more than 1F1B's K - s).
    void inflightFromTheOrder_data()
    {
        QTest::addColumn<Schedule>("schedule");
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<QList<double>>("expected"); // empty: only the simulation's
        QTest::newRow("gpipe K=4 m=8")
            << Schedule::gpipe << 4 << 8 << 1 << QList<double>{8, 8, 8, 8};
        QTest::newRow("1f1b K=4 m=8")
            << Schedule::oneFOneB << 4 << 8 << 1 << QList<double>{4, 3, 2, 1};
        QTest::newRow("1f1b K=4 m=2")
            << Schedule::oneFOneB << 4 << 2 << 1 << QList<double>{2, 2, 2, 1};
        QTest::newRow("zb-h1 K=4 m=8")
            << Schedule::zbH1 << 4 << 8 << 1 << QList<double>{4, 4, 4, 4};
        QTest::newRow("zb-h1 K=8 m=3") << Schedule::zbH1 << 8 << 3 << 1 << QList<double>{};
        QTest::newRow("interleaved K=4 m=8 v=2")
            << Schedule::interleaved << 4 << 8 << 2 << QList<double>{};
        QTest::newRow("interleaved K=4 m=4 v=3")
            << Schedule::interleaved << 4 << 4 << 3 << QList<double>{};
        QTest::newRow("interleaved K=8 m=64 v=4")
            << Schedule::interleaved << 8 << 64 << 4 << QList<double>{};
        QTest::newRow("1f1b K=16 m=200 (simulated at its steady period)")
            << Schedule::oneFOneB << 16 << 200 << 1 << QList<double>{};
        QTest::newRow("zb-h1 K=16 m=200 (simulated at its steady period)")
            << Schedule::zbH1 << 16 << 200 << 1 << QList<double>{};
    }
    void inflightFromTheOrder()
    {
        QFETCH(Schedule, schedule);
        QFETCH(int, stages);
        QFETCH(int, microbatches);
        QFETCH(int, virtualStages);
        QFETCH(QList<double>, expected);
        const std::vector<double> order =
            inflightMicrobatches(schedule, stages, microbatches, virtualStages);
        const PipelineResult simulated =
            simulatePipeline(uniformPipeline(schedule, stages, microbatches, virtualStages));
        QCOMPARE(order, simulated.inflight);
        if (!expected.isEmpty())
            QCOMPARE(QList<double>(order.begin(), order.end()), expected);
    }

    // Issue #18 §7: the top pick used 84.2 of 85.9 GB. A layout fits the search only with the
    // headroom free on every stage: H100 SXM has 80 GiB (NVIDIA's datasheet), so at 2 GiB
    // every candidate's fullest stage holds at most 78 GiB, at 10 GiB 70 GiB; at 80 GiB
    // nothing fits, and the layouts that fit the device are counted under the headroom.
    void headroomIsLeftFree_data()
    {
        QTest::addColumn<double>("headroomGib");
        QTest::addColumn<std::int64_t>("maxPeakBytes");
        QTest::newRow("0 GiB") << 0.0 << (std::int64_t{80} << 30);
        QTest::newRow("2 GiB, the default") << 2.0 << (std::int64_t{78} << 30);
        QTest::newRow("10 GiB") << 10.0 << (std::int64_t{70} << 30);
        QTest::newRow("80 GiB: nothing") << 80.0 << std::int64_t{0};
    }
    void headroomIsLeftFree()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): a logic check of whole searches (3 s "
                  "here); the default "
                  "pass runs it and fuzz_plan_request drives the same code under the "
                  "sanitizers");
        QFETCH(double, headroomGib);
        QFETCH(std::int64_t, maxPeakBytes);
        PlanRequest req = request("model=llama-3.1-70b,seq_len=2048", 16, 32, 1000);
        QCOMPARE(req.headroomGib, 2.0); // the default docs/planner.md states
        req.headroomGib = headroomGib;
        const PlanResult r = plan(req, presets);
        QVERIFY(!r.error);
        QCOMPARE(r.candidates.size(), std::size_t(r.feasible));
        for (const auto &c : r.candidates) {
            QVERIFY(c.leavesHeadroom);
            QVERIFY2(c.peakStageBytes <= maxPeakBytes, qPrintable(describe(c.apply(req.base))));
        }
        // Less headroom never fits fewer layouts; the unpruned search counts the same.
        PlanRequest less = req;
        less.headroomGib = headroomGib / 2;
        QVERIFY(plan(less, presets).feasible >= r.feasible);
        PlanRequest all = req;
        all.prune = false;
        QCOMPARE(plan(all, presets).feasible, r.feasible);
        const std::string reason =
            "less than " + QString::number(headroomGib).toStdString() + " GiB headroom";
        if (maxPeakBytes == 0) {
            QCOMPARE(r.feasible, 0);
            QVERIFY(r.rejected.contains(reason));
            const Report example = evaluate(r.rejected.at(reason).layout.apply(req.base), presets);
            QVERIFY(example.fits); // it fits the device, not the headroom
        }
    }

    // Issue #18 §7: when nothing fits, the smallest device count that has a layout that fits.
    // Llama 3.1 405B (405,853,388,800 parameters) with mixed-precision Adam keeps 16 bytes a
    // parameter (ZeRO paper §3.1): 6.49 TB, and an H100 leaves 80 - 2 (reserve) - 2 (headroom)
    // = 76 GiB = 81.6 GB for them, so no fewer than 80 devices can hold them. The count found
    // has a layout that fits (evaluate says so, with the headroom free), and every count between
    // 64 and it that the planner accepts (T × K × D, D dividing the 512 sequences) has none.
    void smallestDeviceCountWhenNothingFits()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): this test searches 405B on growing "
                  "device counts, 10 s here; "
                  "the default pass runs it and "
                  "fuzz_plan_request drives the same search under the sanitizers");
        const PlanRequest req = request("model=llama-3.1-405b", 64, 512);
        const PlanResult r = plan(req, presets);
        QVERIFY(!r.error);
        QCOMPARE(r.feasible, 0);
        QVERIFY(r.candidates.empty());
        QVERIFY(r.smallestSearched);
        QVERIFY(r.smallestFittingDevices && r.smallestFittingLayout);
        const int smallest = *r.smallestFittingDevices;
        QVERIFY2(smallest >= 80, qPrintable(QString::number(smallest)));
        const Scenario layout = r.smallestFittingLayout->apply(req.base);
        QCOMPARE(layout.devices(), smallest);
        const Report fits = evaluate(layout, presets);
        QVERIFY(fits.ok() && fits.fits);
        for (const StageReport &st : fits.stages)
            QVERIFY(st.headroomBytes >= std::int64_t{2} << 30);
        // Every count between; the sanitizer pass, ten times slower, takes every eighth and
        // the one just below.
        constexpr int stride = kSanitized ? 8 : 1;
        std::vector<int> counts;
        for (int n = 65; n < smallest; n += stride)
            counts.push_back(n);
        if (counts.back() != smallest - 1)
            counts.push_back(smallest - 1);
        for (const int n : counts) {
            PlanRequest between = req;
            between.devices = n;
            const PlanResult none = plan(between, presets);
            QVERIFY2(none.feasible == 0, qPrintable(QString::number(n)));
        }
        PlanRequest at = req;
        at.devices = smallest;
        const PlanResult some = plan(at, presets);
        QVERIFY(some.feasible > 0);
        QVERIFY(!some.smallestSearched); // only searched when nothing fits
    }

    // Issue #18 §7: ranking by cost (device-hours per million tokens) or energy (joules per
    // million tokens at the TDP). On up to 16 H100s joined by a 40 Gb/s Ethernet network
    // (5 GB/s a NIC), 8B's fastest layout takes all 16, but half as many devices, in one node,
    // lose less to communication than they gain in step time: fewer device-hours per token. Energy
    // is cost × TDP × 3,600 s (H100 SXM: 700 W, NVIDIA's datasheet) with one device type, so it
    // ranks the same.
    void rankingByCostOrEnergy()
    {
        PlanRequest req = request("model=llama-3.1-8b,inter_node_gb_per_s=5", 16, 64, 5);
        req.distinct = true;
        const PlanResult byTime = plan(req, presets);
        req.rank = PlanRank::cost;
        const PlanResult byCost = plan(req, presets);
        req.rank = PlanRank::energy;
        const PlanResult byEnergy = plan(req, presets);
        for (const PlanResult *r : {&byTime, &byCost, &byEnergy})
            QVERIFY(!r->error && !r->candidates.empty());
        const PlanCandidate &fastest = byTime.candidates.front();
        const PlanCandidate &cheapest = byCost.candidates.front();
        QCOMPARE(fastest.tp * fastest.pp * fastest.dp, 16);
        const int n = cheapest.tp * cheapest.pp * cheapest.dp;
        QVERIFY2(n < 16, qPrintable(QString::number(n)));
        QCOMPARE(16 % n, 0); // the divisors of N are searched
        QVERIFY(cheapest.stepTimeS > fastest.stepTimeS);
        // Device-hours per million tokens: N × step time ÷ 3,600 ÷ (64 × 4,096 tokens) × 10^6.
        const auto deviceHours = [](const PlanCandidate &c) {
            return c.tp * c.pp * c.dp * c.stepTimeS / 3600 / (64.0 * 4096) * 1e6;
        };
        QVERIFY(near(cheapest.deviceHoursPerMTokens, deviceHours(cheapest)));
        QVERIFY(near(fastest.deviceHoursPerMTokens, deviceHours(fastest)));
        QVERIFY(cheapest.deviceHoursPerMTokens < fastest.deviceHoursPerMTokens);
        for (std::size_t i = 1; i < byCost.candidates.size(); ++i)
            QVERIFY(byCost.candidates[i - 1].deviceHoursPerMTokens <=
                    byCost.candidates[i].deviceHoursPerMTokens);
        // Energy ranks as cost does, 700 W × 3,600 s = 2.52 MJ per device-hour; and eval's
        // energy per million tokens for the same layout agrees.
        QCOMPARE(byEnergy.candidates.size(), byCost.candidates.size());
        for (std::size_t i = 0; i < byCost.candidates.size(); ++i) {
            const PlanCandidate &c = byEnergy.candidates[i];
            QVERIFY(c.sameLayout(byCost.candidates[i]));
            QVERIFY(c.energyJPerMTokens);
            QVERIFY(near(*c.energyJPerMTokens, c.deviceHoursPerMTokens * 2.52e6, 1e-9));
            const Report r = evaluate(c.apply(req.base), presets);
            QVERIFY(near(*c.energyJPerMTokens, *r.stepTime->energyJPerMillionTokens, 1e-9));
        }
        // A device without a TDP has no energy to rank by: the request names `rank`.
        Presets noTdp = presets;
        for (DeviceSpec &d : noTdp.devices)
            d.tdpW = 0;
        const PlanResult refused = plan(req, noTdp);
        QVERIFY(refused.error);
        QCOMPARE(refused.error->key, std::string("rank"));
    }

    void invalidHeadroom_data()
    {
        QTest::addColumn<double>("headroomGib");
        QTest::newRow("negative") << -1.0;
        QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("beyond 1 PiB") << 2e6;
    }
    void invalidHeadroom()
    {
        QFETCH(double, headroomGib);
        PlanRequest req = request("model=llama-3.1-8b", 8, 16);
        req.headroomGib = headroomGib;
        const PlanResult r = plan(req, presets);
        QVERIFY(r.error);
        QCOMPARE(r.error->key, std::string("headroom-gib"));
    }
    // docs/planner.md, "Experts and long context": for a dense model at a short sequence the
    // new keys add nothing. Searching E and C (the defaults) lists the same layouts in the same
    // order, with the same counts, as a search bounded to E = C = 1, and every layout keeps
    // C = E = 1 (C > 1 is not searched below 16,384 tokens; a dense model has no experts).
    void denseSearchIsUnchanged_data() { addCases(); }
    void denseSearchIsUnchanged()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): a logic check of whole searches (2 s "
                  "here); the default "
                  "pass runs it and fuzz_plan_request drives the same code under the "
                  "sanitizers");
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest searched = request(set, devices, globalBatch, 1000000);
        PlanRequest bounded = searched;
        bounded.maxContextParallel = 1;
        bounded.maxExpertParallel = 1;
        const PlanResult a = plan(searched, presets);
        const PlanResult b = plan(bounded, presets);
        QVERIFY(!a.error && !b.error);
        QCOMPARE(a.layouts, b.layouts);
        QCOMPARE(a.feasible, b.feasible);
        QCOMPARE(a.evaluated, b.evaluated);
        QVERIFY(a.rejected == b.rejected);
        QCOMPARE(a.candidates.size(), b.candidates.size());
        for (std::size_t i = 0; i < a.candidates.size(); ++i) {
            QVERIFY(a.candidates[i].sameLayout(b.candidates[i]));
            QCOMPARE(a.candidates[i].stepTimeS, b.candidates[i].stepTimeS);
            QCOMPARE(a.candidates[i].cp, 1);
            QCOMPARE(a.candidates[i].ep, 1);
        }
    }

    // docs/planner.md, "Experts and long context": the C values searched. Powers of two up to
    // the bound (16 by default) whose 2C chunks split the sequence (Megatron-LM's load-balanced
    // causal split), in training, from 16,384 tokens. 17,000 = 2^3 x 2,125 splits into 2C
    // chunks for C = 2 and 4 only; 16,386 = 2 x 8,193 for no C > 1.
    void contextParallelFollowsTheSequence_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("maxCp");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("4,096 tokens: too short") << "seq_len=4096" << 16 << QList<int>{1};
        QTest::newRow("8,192 tokens: too short") << "seq_len=8192" << 16 << QList<int>{1};
        QTest::newRow("16,384 tokens") << "seq_len=16384" << 16 << QList<int>{1, 2, 4, 8, 16};
        QTest::newRow("16,386 tokens: no 2C chunks") << "seq_len=16386" << 16 << QList<int>{1};
        QTest::newRow("17,000 tokens") << "seq_len=17000" << 16 << QList<int>{1, 2, 4};
        QTest::newRow("131,072 tokens, C at most 4")
            << "seq_len=131072" << 4 << QList<int>{1, 2, 4};
        QTest::newRow("131,072 tokens, C at most 1") << "seq_len=131072" << 1 << QList<int>{1};
        QTest::newRow("131,072 tokens, inference")
            << "seq_len=131072,mode=inference" << 16 << QList<int>{1};
    }
    void contextParallelFollowsTheSequence()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): a logic check of whole searches (3 s "
                  "here); the default "
                  "pass runs it and fuzz_plan_request drives the same code under the "
                  "sanitizers");
        QFETCH(QString, set);
        QFETCH(int, maxCp);
        QFETCH(QList<int>, expected);
        PlanRequest req = request("model=llama-3.1-8b," + set, 16, 16);
        req.maxContextParallel = maxCp;
        req.prune = false; // every layout evaluated: its C is in evaluatedLayouts
        const PlanResult r = plan(req, presets);
        QVERIFY(!r.error);
        std::set<int> seen;
        for (const PlanCandidate &c : r.evaluatedLayouts) {
            seen.insert(c.cp);
            QCOMPARE(c.apply(req.base).devices(), 16);
        }
        QCOMPARE(QList<int>(seen.begin(), seen.end()), expected);
    }

    // Megatron-core parallel_state.py: E devices share out the routed experts (experts / E each,
    // so E divides them) and E x expert T ranks tile a stage's T x C x D. Every layout the
    // planner considers is one evaluate accepts: no layout is refused for ep or expert_tp, and
    // the E values are exactly the powers of two and the expert count that divide the experts.
    // The six-expert model is Mixtral 8x7B with six experts: E = 1, 2, 6 (4 does not divide 6).
    void expertParallelTilesTheStage_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("experts"); // 0: the preset's
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("Mixtral 8x7B, 16 H100")
            << "model=mixtral-8x7b" << 0 << 16 << 16 << QList<int>{1, 2, 4, 8};
        QTest::newRow("Mixtral 8x7B, expert T = 1, 16 H100")
            << "model=mixtral-8x7b,expert_tp=1" << 0 << 16 << 16 << QList<int>{1, 2, 4, 8};
        QTest::newRow("Mixtral 8x7B, 32,768 tokens, 16 H100")
            << "model=mixtral-8x7b,seq_len=32768" << 0 << 16 << 8 << QList<int>{1, 2, 4, 8};
        QTest::newRow("Qwen3-30B-A3B, 16 H100")
            << "model=qwen3-30b-a3b" << 0 << 16 << 32 << QList<int>{1, 2, 4, 8, 16};
        QTest::newRow("six experts, 12 A100")
            << "model=mixtral-8x7b,device=a100-80gb" << 6 << 12 << 24 << QList<int>{1, 2, 6};
        QTest::newRow("Llama 3.1 8B (dense), 16 H100")
            << "model=llama-3.1-8b" << 0 << 16 << 16 << QList<int>{1};
    }
    void expertParallelTilesTheStage()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): the planner's expert and context search "
                  "is fuzzed there "
                  "(fuzz_plan_request); its 4 s of searches run in the default pass "
                  "(docs/TESTING.md)");
        QFETCH(QString, set);
        QFETCH(int, experts);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        QFETCH(QList<int>, expected);
        PlanRequest req = request(set, devices, globalBatch, 1000000);
        if (experts > 0) {
            ModelSpec model = *resolveModel(req.base, presets);
            model.id = "six-experts";
            model.experts = experts;
            req.base.customModel = model;
        }
        req.prune = false;
        const PlanResult r = plan(req, presets);
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        const ModelSpec &model = *resolveModel(req.base, presets);
        const int modelExperts = model.hasExperts() ? model.experts : 1;
        std::set<int> seen;
        for (const PlanCandidate &c : r.evaluatedLayouts) {
            const Scenario s = c.apply(req.base);
            seen.insert(c.ep);
            QCOMPARE(modelExperts % c.ep, 0);
            QCOMPARE((s.tp * s.cp * s.dp) % (s.ep * s.expertTpDegree()), 0);
            QCOMPARE(s.devices(), devices);
        }
        for (const PlanCandidate &c : r.candidates)
            QVERIFY(c.fits && c.leavesHeadroom);
        for (const auto &[reason, group] : r.rejected) {
            QVERIFY2(!reason.starts_with("invalid ep") && !reason.starts_with("invalid expert_tp"),
                     reason.c_str());
            QCOMPARE(modelExperts % group.layout.ep, 0);
        }
        QCOMPARE(QList<int>(seen.begin(), seen.end()), expected);
    }

    // Mixtral 8x7B holds 46,702,792,704 parameters (docs/experts.md): 93.4 GB of BF16 weights,
    // more than an H100's 80 GiB (85.9 GB, NVIDIA's datasheet). A device that keeps every layer
    // (T = K = 1) can hold them only if E shares out the experts or ZeRO-3 shards the weights;
    // so every such layout that fits has E > 1 or ZeRO 3, and with E = 1 instead its weights
    // alone overflow. The planner finds layouts with E > 1 among its candidates, each on
    // exactly the 64 devices.
    void mixtralSpreadsItsExperts()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): the planner's expert and context search "
                  "is fuzzed there "
                  "(fuzz_plan_request); its 4 s of searches run in the default pass "
                  "(docs/TESTING.md)");
        PlanRequest req = request("model=mixtral-8x7b,device=h100-sxm", 64, 512, 100);
        const PlanResult r = plan(req, presets);
        QVERIFY2(!r.error, r.error ? r.error->toString().c_str() : "");
        QVERIFY(!r.candidates.empty());
        QVERIFY(std::any_of(r.candidates.begin(), r.candidates.end(),
                            [](const PlanCandidate &c) { return c.ep > 1; }));
        const std::int64_t capacity = std::int64_t{80} << 30;
        int wholeStacks = 0;
        for (const PlanCandidate &c : r.candidates) {
            const Scenario s = c.apply(req.base);
            QCOMPARE(s.devices(), 64);
            QCOMPARE(8 % c.ep, 0);
            QCOMPARE((s.tp * s.cp * s.dp) % (s.ep * s.expertTpDegree()), 0);
            QCOMPARE(c.cp, 1); // 4,096 tokens: C is not searched
            if (c.tp * c.pp != 1)
                continue;
            QVERIFY2(c.ep > 1 || c.zero == 3, qPrintable(describe(s)));
            if (c.zero == 3)
                continue;
            ++wholeStacks;
            Scenario oneExpertGroup = s;
            oneExpertGroup.ep = 1;
            const Report all = evaluate(oneExpertGroup, presets);
            QVERIFY(all.ok() && !all.fits);
            QVERIFY(all.stages.front().weightsBytes >= std::int64_t{93'400'000'000});
            QVERIFY(all.stages.front().weightsBytes > capacity);
        }
        QVERIFY(wholeStacks > 0);
    }

    // Llama 3.1 8B at 131,072 tokens on 64 H100s, 64 sequences. One device holding a whole
    // sequence (T = C = 1) with every layer (K = 1) keeps, even with full recomputation
    // (docs/activations.md, Korthikanti et al. 2022 §5), each of the 32 layers' inputs, 2h
    // bytes a token: 34.4 GB; the one layer being rebuilt, 168,064 bytes a token at T = 1 with
    // flash attention and SwiGLU (docs/activations.md's table: 8h + 4h for Q and O, 4gd for K
    // and V, 4a, 8f): 22.0 GB; and the sequence's logits, 128,256 x 2 bytes a token: 33.6 GB.
    // That is 90.0 GB, more than an H100's 80 GiB (85.9 GB) before any weight. So T = K = 1
    // fits only when C splits the sequence: every such layout that fits has C > 1, and there
    // are some (ZeRO-3 over D x C leaves room for the rest).
    void longContextSplitsTheSequence()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): the planner's expert and context search "
                  "is fuzzed there "
                  "(fuzz_plan_request); its 4 s of searches run in the default pass "
                  "(docs/TESTING.md)");
        const PlanRequest req = request("model=llama-3.1-8b,seq_len=131072", 64, 64, 100000);
        Scenario whole = req.base;
        PlanLayout{1, 1, 64, 3, Schedule::oneFOneB, 1, 1, 1, Recompute::full, false, 1, 1}.applyTo(
            whole);
        const Report one = evaluate(whole, presets);
        QVERIFY(one.ok() && !one.fits);
        const StageReport &stage = one.stages.front();
        QVERIFY(stage.activationsBytes + stage.cachedOutputsBytes >= std::int64_t{90'000'000'000});

        const PlanResult r = plan(req, presets);
        QVERIFY(!r.error);
        QCOMPARE(std::int64_t(r.candidates.size()), r.feasible); // every layout that fits
        QVERIFY(std::any_of(r.candidates.begin(), r.candidates.end(),
                            [](const PlanCandidate &c) { return c.cp > 1; }));
        int wholeStacks = 0;
        for (const PlanCandidate &c : r.candidates) {
            QCOMPARE(c.apply(req.base).devices(), 64);
            QCOMPARE(131072 % (2 * c.cp), 0);
            if (c.tp == 1 && c.pp == 1) {
                ++wholeStacks;
                QVERIFY2(c.cp > 1, qPrintable(describe(c.apply(req.base))));
            }
        }
        QVERIFY(wholeStacks > 0);
    }

    // Searching C only adds layouts: the C = 1 layouts of a long-context search fit and take
    // the time they take in a search bounded to C = 1.
    void contextParallelOnlyAddsLayouts()
    {
        PlanRequest req = request("model=llama-3.1-8b,seq_len=32768", 16, 16, 1000000);
        req.prune = false;
        PlanRequest bounded = req;
        bounded.maxContextParallel = 1;
        const PlanResult all = plan(req, presets);
        const PlanResult one = plan(bounded, presets);
        QVERIFY(!all.error && !one.error);
        QVERIFY(all.layouts > one.layouts);
        std::vector<PlanCandidate> withoutC;
        for (const PlanCandidate &c : all.candidates)
            if (c.cp == 1)
                withoutC.push_back(c);
        QCOMPARE(withoutC.size(), one.candidates.size());
        for (std::size_t i = 0; i < withoutC.size(); ++i) {
            QVERIFY(withoutC[i].sameLayout(one.candidates[i]));
            QCOMPARE(withoutC[i].stepTimeS, one.candidates[i].stepTimeS);
        }
    }

    // docs/planner.md: the base scenario's ends_in_pipeline_split does not change what is
    // searched where there is a pipeline, so changing it in the explorer leaves a finished
    // search current. Llama 3.1 8B's 32 layers and two ends split evenly over K = 2 but not
    // K = 4 or 8: Megatron-LM and custom count the ends at K = 2 at most, torchtitan (whose parts
    // may differ by a layer) at every K, DeepSpeed (whose split cannot count them) never.
    void baseEndsDoNotChangeTheSearch_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QList<int>>("countedAt"); // the K > 1 searched with the ends counted
        QTest::newRow("custom") << "custom" << QList<int>{2}; // DualPipeV
        // Megatron-LM: at K = 2 only the interleaved schedule differs, and 17 counted layers a
        // stage split into no v = 2…4 chunks.
        QTest::newRow("Megatron-LM") << "megatron" << QList<int>{};
        QTest::newRow("torchtitan") << "torchtitan" << QList<int>{2, 4, 8};
        QTest::newRow("DeepSpeed") << "deepspeed" << QList<int>{};
    }
    void baseEndsDoNotChangeTheSearch()
    {
        QFETCH(QString, framework);
        QFETCH(QList<int>, countedAt);
        PlanRequest off = request("model=llama-3.1-8b,framework=" + framework, 8, 16, 100000);
        off.base.endsInPipelineSplit = false;
        off.prune = false; // every fitting layout timed and listed
        PlanRequest on = off;
        on.base.endsInPipelineSplit = true;
        const PlanResult a = plan(off, presets);
        const PlanResult b = plan(on, presets);
        QVERIFY(!a.error && !b.error);
        QCOMPARE(a.layouts, b.layouts);
        QCOMPARE(a.feasible, b.feasible);
        QCOMPARE(a.candidates.size(), b.candidates.size());
        QList<int> counted;
        for (std::size_t i = 0; i < a.candidates.size(); ++i) {
            const PlanCandidate &x = a.candidates[i];
            const PlanCandidate &y = b.candidates[i];
            // Without a pipeline the flag is the base's, and changes nothing.
            if (x.pp == 1) {
                QVERIFY(!x.endsInPipelineSplit && y.endsInPipelineSplit);
                PlanLayout same = y;
                same.endsInPipelineSplit = false;
                QVERIFY(same.sameLayout(x));
            } else {
                QVERIFY2(x.sameLayout(y), qPrintable(describe(x.apply(off.base))));
                if (x.endsInPipelineSplit && !counted.contains(x.pp))
                    counted << x.pp;
            }
            QCOMPARE(x.stepTimeS, y.stepTimeS);
        }
        std::sort(counted.begin(), counted.end());
        QCOMPARE(counted, countedAt);
    }

    // docs/planner.md: the search splits every K evenly. A placement the base scenario carries
    // for its own K changes nothing in it: the same layouts, counts and times as without, and
    // none refused for the placement. The search once asked it of every K and schedule.
    void baseLayoutDoesNotChangeTheSearch()
    {
        PlanRequest even = request("model=llama-3.1-8b,pp=2", 8, 16, 100000);
        even.prune = false;
        PlanRequest placed = even;
        placed.base.pipelineLayout = "Et*20|t*12L";
        const PlanResult a = plan(even, presets);
        const PlanResult b = plan(placed, presets);
        QVERIFY(!a.error && !b.error);
        QCOMPARE(b.layouts, a.layouts);
        QCOMPARE(b.feasible, a.feasible);
        QCOMPARE(b.candidates.size(), a.candidates.size());
        for (std::size_t i = 0; i < a.candidates.size(); ++i) {
            QVERIFY(b.candidates[i].sameLayout(a.candidates[i]));
            QCOMPARE(b.candidates[i].stepTimeS, a.candidates[i].stepTimeS);
        }
        for (const auto &[reason, group] : b.rejected)
            QVERIFY2(reason.find("pipeline_layout") == std::string::npos, reason.c_str());
        // What is applied is what was planned: the even split.
        QVERIFY(b.candidates.front().apply(placed.base).pipelineLayout.empty());
    }

    // DeepSpeed's partition by parameters places any K: with it in the base scenario, every K
    // the search tries is split so, each candidate is what evaluating it gives, and a row
    // applied keeps it. DeepSpeed's engine runs one part a stage: no interleaved or DualPipe
    // layout, and the ends are its weighing, never counted as layers.
    void parametersLayoutIsSearched()
    {
        PlanRequest req = request("model=llama-3.1-8b,pipeline_layout=parameters", 8, 16, 100000);
        req.prune = false;
        const PlanResult result = plan(req, presets);
        QVERIFY(!result.error);
        bool fourStages = false;
        for (const PlanCandidate &c : result.candidates) {
            QVERIFY(c.schedule == Schedule::gpipe || c.schedule == Schedule::oneFOneB ||
                    c.schedule == Schedule::zbH1);
            QVERIFY(!c.endsInPipelineSplit || c.pp == 1);
            const Scenario s = c.apply(req.base);
            QCOMPARE(s.pipelineLayout, std::string("parameters"));
            const Report r = evaluate(s, presets);
            QVERIFY2(r.ok() && r.stepTime, qPrintable(describe(s)));
            QCOMPARE(r.stepTime->stepTimeS, c.stepTimeS);
            // Llama 3.1 8B at T = 1 over 4 stages: 7, 9, 9, 7 (tst_pipeline_layout).
            if (c.pp == 4 && c.tp == 1) {
                QCOMPARE(stageLayers(r), (QList<int>{7, 9, 9, 7}));
                fourStages = true;
            }
        }
        QVERIFY(fourStages);
        for (const auto &[reason, group] : result.rejected)
            QVERIFY2(reason.find("pipeline_layout") == std::string::npos, reason.c_str());
    }

    // The bound on the step time stays a bound with experts and context parallelism: pruning
    // stays exact.
    void boundHoldsForExpertsAndContext_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("globalBatch");
        QTest::newRow("Mixtral 8x7B, 16 H100") << "model=mixtral-8x7b" << 16 << 16;
        QTest::newRow("Llama 3.1 8B, 32,768 tokens, 16 H100")
            << "model=llama-3.1-8b,seq_len=32768" << 16 << 16;
        QTest::newRow("Mixtral 8x7B, 32,768 tokens, 16 H100")
            << "model=mixtral-8x7b,seq_len=32768" << 16 << 8;
    }
    void boundHoldsForExpertsAndContext()
    {
        if (kSanitized)
            QSKIP("under the sanitizers (the asan preset): the planner's expert and context search "
                  "is fuzzed there "
                  "(fuzz_plan_request); its 6 s of searches run in the default pass "
                  "(docs/TESTING.md)");
        QFETCH(QString, set);
        QFETCH(int, devices);
        QFETCH(int, globalBatch);
        PlanRequest req = request(set, devices, globalBatch);
        req.prune = false;
        const PlanResult full = plan(req, presets);
        QVERIFY(!full.evaluatedLayouts.empty());
        for (const PlanCandidate &c : full.evaluatedLayouts) {
            const Scenario s = c.apply(req.base);
            const auto bound = stepTimeLowerBound(s, presets);
            QVERIFY(bound);
            QVERIFY2(*bound <= c.stepTimeS, qPrintable(describe(s)));
        }
        const PlanResult pruned = plan(request(set, devices, globalBatch), presets);
        QCOMPARE(pruned.candidates.size(), full.candidates.size());
        for (std::size_t i = 0; i < full.candidates.size(); ++i)
            QVERIFY(pruned.candidates[i].sameLayout(full.candidates[i]));
        QCOMPARE(pruned.feasible, full.feasible);
    }

    // Bad bounds name the request's field, as the command line's flag.
    void invalidSearchBounds_data()
    {
        QTest::addColumn<int>("maxCp");
        QTest::addColumn<int>("maxEp");
        QTest::addColumn<QString>("key");
        QTest::newRow("C at most 0") << 0 << 1 << "max-cp";
        QTest::newRow("C beyond the limit") << limits::kContextParallel + 1 << 1 << "max-cp";
        QTest::newRow("E at most 0") << 16 << 0 << "max-ep";
        QTest::newRow("E beyond the limit") << 16 << limits::kExpertParallel + 1 << "max-ep";
    }
    void invalidSearchBounds()
    {
        QFETCH(int, maxCp);
        QFETCH(int, maxEp);
        QFETCH(QString, key);
        PlanRequest req = request("model=mixtral-8x7b", 8, 16);
        req.maxContextParallel = maxCp;
        req.maxExpertParallel = maxEp;
        const PlanResult r = plan(req, presets);
        QVERIFY(r.error);
        QCOMPARE(QString::fromStdString(r.error->key), key);
    }
};

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
