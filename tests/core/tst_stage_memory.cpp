// What a pipeline stage holds besides its weights (docs/DESIGN.md §3.3, §3.6, §3.7):
// activations in flight, the last stage's cached outputs, the inference KV cache.
#include "core/activations.h"
#include "core/evaluate.h"
#include "core/fields.h"
#include "core/framework.h"
#include "core/memory_timeline.h"
#include "core/validate.h"
#include "io/presets_io.h"
#include "test_scenarios.h"

#include <QTest>
#include <algorithm>

using namespace core;

Q_DECLARE_METATYPE(core::Recompute)
Q_DECLARE_METATYPE(core::Scenario)

class TestStageMemory : public QObject
{
    Q_OBJECT

private:
    // The offloading hints' scenario (test_scenarios.h), as --set text.
    static QString fsdp70bOnGb200() { return megatronBridge70bOnGb200().join(u',') + u','; }

    const Presets m_presets = io::builtinPresets();

    // An evaluation with the timeline kept, for the memory over the step.
    Report evaluatedWithTimeline(const Scenario &s) const
    {
        EvaluateOptions options;
        options.timeline = true;
        return evaluate(s, m_presets, options);
    }

    // docs/worked-examples.md §5: Llama 3-8B (Llama 3.1 8B's architecture), DP2-PP2, seq 4096, b=1,
    // BF16.
    Scenario llama8bDp2Pp2(int microbatches) const
    {
        Scenario s;
        s.model = "llama-3.1-8b";
        s.tp = 1;
        s.pp = 2;
        s.dp = 2;
        s.microbatches = microbatches;
        s.microbatchSize = 1;
        s.seqLen = 4096;
        return s;
    }

    // One layer of the scenario's model (with experts where it has them) keeps `bytes` for a
    // micro-batch, exactly and as the bound validation uses.
    void layerKeeps(const QString &set, qint64 bytes)
    {
        const Scenario s = scenario(set);
        const ModelSpec *model = resolveModel(s, m_presets);
        QVERIFY(model);
        ActivationConfig c = activationConfig(s, *model);
        c.moe = model->hasExperts();
        QCOMPARE(layerActivationBytes(*model, c), bytes);
        QCOMPARE(layerActivationBytesBound(*model, c), double(bytes));
    }

private Q_SLOTS:
    // Korthikanti et al. 2022, Table 2, for GPT-3 175B's layer (Table 3: a = 96,
    // h = 12288) at s = 2048, b = 1, T = 8: MHA, GeLU, FFN = 4h, dropout, eager
    // attention, 16-bit. sbh = 2048·12288 = 25,165,824 and 5as/h = 5·96·2048/12288 = 80.
    void korthikantiTable2_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<qint64>("bytes");
        const qint64 sbh = 2048LL * 12288;
        // sbh(34 + 5as/h) = sbh(34 + 80)
        QTest::addRow("Korthikanti Table 2: no parallelism, sbh(34+5as/h)")
            << 1 << false << Recompute::none << sbh * 114;
        // sbh(10 + 24/t + 5as/(ht)) = sbh(10 + 3 + 10)
        QTest::addRow("Korthikanti Table 2: tensor parallel, sbh(10+24/t+5as/ht)")
            << 8 << false << Recompute::none << sbh * 23;
        // sbh(34/t + 5as/(ht)) = sbh(4.25 + 10)
        QTest::addRow("Korthikanti Table 2: tensor + sequence parallel, sbh(34/t+5as/ht)")
            << 8 << true << Recompute::none << sbh * 57 / 4;
        // sbh(10 + 24/t) = sbh·13
        QTest::addRow("Korthikanti Table 2: tensor parallel + selective, sbh(10+24/t)")
            << 8 << false << Recompute::selective << sbh * 13;
        // sbh·34/t = sbh·4.25
        QTest::addRow("Korthikanti Table 2: tensor + sequence parallel + selective, sbh·34/t")
            << 8 << true << Recompute::selective << sbh * 17 / 4;
        // sbh(34 + 5as/h) without the 5as/h term
        QTest::addRow("Korthikanti Table 2: selective, no parallelism, 34sbh")
            << 1 << false << Recompute::selective << sbh * 34;
        // Full recomputation keeps the layer input, 2sbh
        QTest::addRow("Korthikanti Table 2: full recompute, 2sbh")
            << 1 << false << Recompute::full << sbh * 2;
    }
    void korthikantiTable2()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(Recompute, recompute);
        QFETCH(qint64, bytes);
        ModelSpec gpt = *m_presets.model("gpt-3-175b");
        QVERIFY(gpt.dropout && !gpt.gatedMlp && gpt.kvHeads == gpt.heads);
        QCOMPARE(gpt.ffnHidden, 4 * gpt.hidden);
        ActivationConfig c;
        c.seqLen = 2048;
        c.microbatchSize = 1;
        c.tp = tp;
        c.sequenceParallel = sp;
        c.recompute = recompute;
        c.attention = Attention::eager;
        QCOMPARE(layerActivationBytes(gpt, c), bytes);
    }

    // docs/activations.md, "FP8 and NVFP4": Transformer Engine keeps a projection's input as
    // its cast copy, q bytes a value. GPT-3 175B as in Table 2 above (T = 8, eager, no SP,
    // no recomputation), per sbh: the norm inputs 4, the QKV and first-MLP inputs 2q, masks
    // 2; by T: Q and O 4, K and V 4, GeLU's input 8 and its output (the second projection's
    // input) 4q, and under delayed scaling the output projection's own copy of O, q; the
    // attention core 10. q = 1 (FP8), 33/32 (FP8 blocks), 9/16 (NVFP4).
    void castInputsKept_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<qint64>("bytes");
        const qint64 sbh = 2048LL * 12288;
        const QString gpt = "model=gpt-3-175b,tp=8,pp=8,dp=1,seq_len=2048,attention=eager,"
                            "recompute=none,sequence_parallel=false,";
        // 4 + 2 + 2 + (16 + 4 + 1) / 8 + 10 = 20.625
        QTest::addRow("FP8 delayed: sbh(8 + 21/t + 5as/ht)")
            << gpt + "precision=fp8,fp8_scaling=delayed" << sbh * 165 / 8;
        // 8 + 20 / 8 + 10 = 20.5
        QTest::addRow("FP8 current: O kept once")
            << gpt + "precision=fp8,fp8_scaling=current" << sbh * 41 / 2;
        // 4 + 2·33/32 + 2 + (16 + 4·33/32) / 8 + 10 = 20.578125
        QTest::addRow("MXFP8 blocks: a scale per 32")
            << gpt + "precision=fp8,fp8_scaling=block" << sbh * 1317 / 64;
        // 4 + 2·9/16 + 2 + (16 + 4·9/16) / 8 + 10 = 19.40625
        QTest::addRow("NVFP4: 4 bits and a scale per 16")
            << gpt + "precision=nvfp4" << sbh * 621 / 32;
        // torchao's Float8Linear keeps 16-bit inputs: Table 2's sbh(10 + 24/t + 5as/ht)
        QTest::addRow("16-bit inputs kept")
            << gpt + "precision=fp8,save_quantized_inputs=false" << sbh * 23;
        QTest::addRow("torchtitan profile")
            << "framework=torchtitan," + gpt + "precision=fp8" << sbh * 23;
        // Transformer Engine under DeepSpeed keeps O's copy whatever the scaling
        QTest::addRow("DeepSpeed, FP8 current: O kept twice")
            << "framework=deepspeed," + gpt + "precision=fp8,fp8_scaling=current" << sbh * 165 / 8;
        // Qwen3-30B-A3B (h 2048, 32 query heads of 128, 4 KV heads, 8 of 128 experts of 768,
        // SwiGLU unfused) at s = 4096, T = 1, per token. BF16: norm inputs and the QKV and
        // router inputs 4·2·2048, Q and O 2·2·4096, K and V 2·2·512, log-sum-exp 4·32, and 8
        // copies of the dispatched input and expert output 2·2·2048 and SwiGLU's 4·2·768.
        const QString qwen = "model=qwen3-30b-a3b,tp=1,pp=1,dp=8,ep=8,seq_len=4096,"
                             "attention=flash,recompute=none,sequence_parallel=false,";
        QTest::addRow("Qwen3-30B-A3B BF16")
            << qwen + "precision=bf16" << 4096LL * (16384 + 16384 + 2048 + 128 + 114688);
        // Padded to capacity 1.25, each of a token's 8 copies is 1.25 copies of its expert's
        // input (capacity = ceil(4096 x 8 / 128 x 1.25) = 320 of an even 256): 10 x 14,336.
        QTest::addRow("Qwen3-30B-A3B BF16, padded to capacity 1.25")
            << qwen + "precision=bf16,expert_capacity_factor=1.25,pad_to_capacity=true"
            << 4096LL * (16384 + 16384 + 2048 + 128 + 143360);
        // Capacity 0.5 drops half of each expert's 256 copies (128 kept): 4 x 14,336.
        QTest::addRow("Qwen3-30B-A3B BF16, capacity 0.5 dropping")
            << qwen + "precision=bf16,expert_capacity_factor=0.5"
            << 4096LL * (16384 + 16384 + 2048 + 128 + 57344);
        // Above an even share without padding, balanced routing drops nothing and pads nothing.
        QTest::addRow("Qwen3-30B-A3B BF16, capacity 1.25, not padded")
            << qwen + "precision=bf16,expert_capacity_factor=1.25"
            << 4096LL * (16384 + 16384 + 2048 + 128 + 114688);
        // The busiest of the 8 expert ranks takes 1.5 times its even share of the copies
        // (docs/experts.md, "Routing imbalance"): 12 x 14,336 kept on it.
        QTest::addRow("Qwen3-30B-A3B BF16, busiest rank 1.5")
            << qwen + "precision=bf16,expert_rank_load=1.5"
            << 4096LL * (16384 + 16384 + 2048 + 128 + 172032);
        // ... but at most its experts' capacity of 1.25: 10 x 14,336, the rest dropped.
        QTest::addRow("Qwen3-30B-A3B BF16, busiest rank 1.5, capacity 1.25")
            << qwen + "precision=bf16,expert_rank_load=1.5,expert_capacity_factor=1.25"
            << 4096LL * (16384 + 16384 + 2048 + 128 + 143360);
        // FP8 current: the QKV input 2048 (the router keeps its own 16-bit one), the copies'
        // dispatched inputs 2048 and down-projection inputs 768: 8 × (2048 + 4096 + 3·1536 +
        // 768).
        QTest::addRow("Qwen3-30B-A3B FP8 current")
            << qwen + "precision=fp8,fp8_scaling=current"
            << 4096LL * (8192 + 2048 + 4096 + 16384 + 2048 + 128 + 8 * 11520);
    }
    void castInputsKept()
    {
        QFETCH(QString, set);
        QFETCH(qint64, bytes);
        layerKeeps(set, bytes);
    }

    // offload_layers (docs/activations.md, "Offloaded layers"): Transformer Engine's
    // synchronizer lets the device hold L - N layers' sets; the N offloaded sit in host
    // memory. Qwen3-30B-A3B's 48 layers in BF16 at s = 4,096 as castInputsKept counts them,
    // 4,096 x 149,632 bytes a layer.
    void offloadedLayersKept_data()
    {
        QTest::addColumn<int>("offloaded");
        QTest::addColumn<qint64>("deviceBytes");
        QTest::addColumn<qint64>("hostBytes");
        const qint64 layer = 4096LL * (16384 + 16384 + 2048 + 128 + 114688);
        QTest::addRow("none") << 0 << 48 * layer << qint64{0};
        QTest::addRow("12 of 48") << 12 << 36 * layer << 12 * layer;
        QTest::addRow("47 of 48: one set on the device") << 47 << layer << 47 * layer;
    }
    void offloadedLayersKept()
    {
        QFETCH(int, offloaded);
        QFETCH(qint64, deviceBytes);
        QFETCH(qint64, hostBytes);
        const Report r = evaluate(
            scenario(QStringLiteral("model=qwen3-30b-a3b,device=h100-sxm,tp=1,pp=1,dp=8,ep=8,"
                                    "seq_len=4096,microbatches=4,attention=flash,recompute=none,"
                                    "sequence_parallel=false,precision=bf16,offload_layers=%1")
                         .arg(offloaded)),
            m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages[0].activationsBytes, deviceBytes);
        QCOMPARE(r.stages[0].offloadedBytes, hostBytes);
        QCOMPARE(r.stages[0].offloadedLayers, offloaded);
    }

    // Offloaded activations live in host memory: a DGX H100's 2 TiB for 8 GPUs, 274.9 GB each
    // (host_memory_gb, docs/devices.md "Host links"). Llama 3.1 8B with 31 of its 32 layers
    // offloaded: seven sequences a micro-batch the host holds, eight it does not, and that
    // stage does not fit though the device holds its own, the term "host memory".
    void offloadedLayersNeedHostMemory_data()
    {
        QTest::addColumn<int>("sequences");
        QTest::addColumn<bool>("hostHolds");
        QTest::addRow("7 sequences") << 7 << true;
        QTest::addRow("8 sequences") << 8 << false;
    }
    void offloadedLayersNeedHostMemory()
    {
        QFETCH(int, sequences);
        QFETCH(bool, hostHolds);
        const Report r = evaluate(
            scenario(QStringLiteral("model=llama-3.1-8b,device=h100-sxm,framework=megatron,tp=1,"
                                    "pp=1,dp=8,zero=3,seq_len=8192,microbatches=1,"
                                    "microbatch_size=%1,attention=flash,recompute=none,"
                                    "sequence_parallel=false,precision=bf16,loss_fusion=te,"
                                    "offload_layers=31")
                         .arg(sequences)),
            m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const StageReport &st = r.stages[0];
        QCOMPARE(st.hostCapacityBytes, qint64{274'877'906'944});
        QCOMPARE(st.offloadedBytes <= st.hostCapacityBytes, hostHolds);
        QVERIFY(st.headroomBytes >= 0); // the device holds its share either way
        QCOMPARE(st.hostOverflow, !hostHolds);
        QCOMPARE(r.fits, hostHolds);
        const auto overflow =
            std::find_if(r.warnings.begin(), r.warnings.end(),
                         [](const Warning &w) { return w.code == "does-not-fit"; });
        QCOMPARE(overflow != r.warnings.end(), !hostHolds);
        if (hostHolds)
            return;
        QCOMPARE(r.firstOverflowTerm, std::string("host memory"));
        QVERIFY2(overflow->message.find("31 offloaded layers' activations need") !=
                         std::string::npos &&
                     overflow->message.find("of the 274.9 GB a device has (host_memory_gb)") !=
                         std::string::npos,
                 overflow->message.c_str());
        // Where the host publishes no memory it is not checked.
        Presets unpublished = m_presets;
        DeviceSpec device = *unpublished.device("h100-sxm");
        device.hostMemoryGb = 0;
        unpublished.put(device);
        const Report unchecked = evaluate(
            scenario(QStringLiteral("model=llama-3.1-8b,device=h100-sxm,framework=megatron,tp=1,"
                                    "pp=1,dp=8,zero=3,seq_len=8192,microbatches=1,"
                                    "microbatch_size=8,attention=flash,recompute=none,"
                                    "sequence_parallel=false,precision=bf16,loss_fusion=te,"
                                    "offload_layers=31")),
            unpublished);
        QVERIFY(unchecked.fits);
        QCOMPARE(unchecked.stages[0].hostCapacityBytes, qint64{0});
    }

    // The offload-fits hint (docs/activations.md, "Offloaded layers"): Llama 3.1 70B on 64
    // GB200s under Megatron-FSDP keeps 332 GB a device without offloading; the hint names the
    // fewest offloaded layers that leave 2 GiB free, so one fewer does not, and its Set link
    // gives that count. With pipeline stages Megatron-core cannot offload: no hint.
    void offloadHintIsTheFewestThatFit()
    {
        const QString base = fsdp70bOnGb200() + "zero=3,microbatches=2,microbatch_size=2,";
        const Report r = evaluate(scenario(base + "pp=1"), m_presets);
        QVERIFY(r.ok() && !r.fits);
        const auto hint = std::find_if(r.warnings.begin(), r.warnings.end(),
                                       [](const Warning &w) { return w.code == "offload-fits"; });
        QVERIFY(hint != r.warnings.end());
        QCOMPARE(hint->setKey, std::string("offload_layers"));
        const int n = std::stoi(hint->setValue);
        const std::int64_t headroom = 2 * kGiB;
        const auto freeOnEveryStage = [&](int layers) {
            const Report f = evaluate(
                scenario(base + QStringLiteral("pp=1,offload_layers=%1").arg(layers)), m_presets);
            return f.ok() && f.fits && std::ranges::all_of(f.stages, [&](const StageReport &st) {
                       return st.headroomBytes >= headroom;
                   });
        };
        QVERIFY(freeOnEveryStage(n));
        QVERIFY(!freeOnEveryStage(n - 1));
        const Report staged = evaluate(scenario(base + "pp=2"), m_presets);
        QVERIFY(std::none_of(staged.warnings.begin(), staged.warnings.end(),
                             [](const Warning &w) { return w.code == "offload-fits"; }));
    }

    // Where the device would hold the stage with layers offloaded but the host cannot hold
    // them (a GB200's Grace has 480 GB for two GPUs, 240 each), the hint says so instead:
    // the N it names is the fewest the device holds with 2 GiB free, whose sets overflow the
    // host, and no offload-fits is given.
    void offloadHintSaysWhenTheHostCannot()
    {
        const QString base = fsdp70bOnGb200() + "pp=1,zero=2,microbatches=1,microbatch_size=4,";
        const Report r = evaluate(scenario(base + "offload_layers=0"), m_presets);
        QVERIFY(r.ok() && !r.fits);
        const auto code = [&r](const char *c) {
            return std::find_if(r.warnings.begin(), r.warnings.end(),
                                [c](const Warning &w) { return w.code == c; });
        };
        QVERIFY(code("offload-fits") == r.warnings.end());
        const auto hint = code("offload-host-memory");
        QVERIFY(hint != r.warnings.end());
        QVERIFY(hint->setKey.empty()); // nothing to set that would fit
        const QString text = QString::fromStdString(hint->message);
        QVERIFY2(text.contains("of the 240.0 GB a device has (host_memory_gb)"), qPrintable(text));
        const int n = text.section(QLatin1Char(' '), 2, 2).toInt();
        QVERIFY2(n > 0, qPrintable(text));
        const std::int64_t headroom = 2 * kGiB;
        const auto at = [&](int layers) {
            return evaluate(scenario(base + QStringLiteral("offload_layers=%1").arg(layers)),
                            m_presets);
        };
        const Report named = at(n);
        QVERIFY(named.stages[0].headroomBytes >= headroom && named.stages[0].hostOverflow);
        QVERIFY(text.contains(
            QStringLiteral("need %1 GB of host memory")
                .arg(static_cast<double>(named.stages[0].offloadedBytes) / 1e9, 0, 'f', 1)));
        QVERIFY(at(n - 1).stages[0].headroomBytes < headroom);
    }

    // Selective recomputation by Megatron-LM's --recompute-modules (docs/activations.md,
    // "Recomputed modules"), per token at s = 4,096, T = 1, BF16, flash attention. Qwen3-30B-A3B
    // as above: the norm inputs and the QKV and router inputs 4·2·2048 = 16,384, Q and O
    // 2·2·4096 = 16,384, K and V 2·2·512 = 2,048, the log-sum-exp 4·32 = 128, and 8 copies of
    // the dispatched input and expert output (2·2·2048) and SwiGLU's four tensors (4·2·768):
    // 114,688. Llama 3.1 8B: 32,768 of norms and inputs, Q and O 16,384, K and V 4,096,
    // SwiGLU's 4·2·14,336 = 114,688.
    void recomputedModules_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<qint64>("perToken");
        const QString qwen = "model=qwen3-30b-a3b,tp=1,pp=1,dp=8,ep=8,seq_len=4096,precision=bf16,"
                             "attention=flash,recompute=selective,sequence_parallel=false,";
        QTest::addRow("core_attn: the log-sum-exp rebuilt")
            << qwen + "recompute_modules=core_attn" << 16384LL + 16384 + 2048 + 114688;
        QTest::addRow("nothing: as without recomputation")
            << qwen + "recompute_modules=" << 16384LL + 16384 + 2048 + 128 + 114688;
        QTest::addRow("layernorm: the QKV and router inputs dropped")
            << qwen + "recompute_modules=core_attn layernorm" << 8192LL + 16384 + 2048 + 114688;
        QTest::addRow("moe_act: each copy keeps gate and up only, 8 x (8,192 + 2·2·768)")
            << qwen + "recompute_modules=core_attn moe_act" << 16384LL + 16384 + 2048 + 90112;
        QTest::addRow("moe: the routed copies dropped")
            << qwen + "recompute_modules=core_attn moe" << 16384LL + 16384 + 2048;
        QTest::addRow("shared_experts without shared experts")
            << qwen + "recompute_modules=core_attn shared_experts"
            << 16384LL + 16384 + 2048 + 114688;
        const QString llama = "model=llama-3.1-8b,tp=1,pp=1,dp=8,seq_len=4096,precision=bf16,"
                              "attention=flash,recompute=selective,sequence_parallel=false,";
        QTest::addRow("mlp: the dense MLP's tensors dropped")
            << llama + "recompute_modules=core_attn mlp" << 32768LL + 16384 + 4096;
        QTest::addRow("mlp and layernorm")
            << llama + "recompute_modules=core_attn mlp layernorm" << 16384LL + 16384 + 4096;
        // DeepSeek-V3's MoE layer (h 7,168, 128 heads, Q and K 192 wide, V and O 128, one shared
        // expert and 8 of 256 routed of 2,048): norm inputs and the latent and router inputs
        // 4·2·7,168 = 57,344; the query and key/value latents, each its norm's input and output,
        // 2·2·(1,536 + 512) = 8,192, or with mla_up_proj the checkpoint's inputs, the two latents
        // and the 64-wide rotary key, 2·(1,536 + 512 + 64) = 4,224; O 2·128·128 = 32,768; Q
        // 2·128·192 = 49,152; K and V 2·128·(192 + 128) = 81,920; the shared expert's SwiGLU
        // 4·2·2,048 = 16,384; 8 copies of (2·2·7,168 + 16,384) = 360,448.
        const QString deepseek = "model=deepseek-v3,tp=1,pp=1,dp=64,ep=64,seq_len=4096,"
                                 "precision=bf16,attention=flash,recompute=selective,"
                                 "sequence_parallel=false,";
        QTest::addRow("DeepSeek-V3: V and O v_head_dim wide")
            << deepseek + "recompute_modules=core_attn"
            << 57344LL + 8192 + 32768 + 49152 + 81920 + 16384 + 360448;
        QTest::addRow("DeepSeek-V3: mla_up_proj keeps O only")
            << deepseek + "recompute_modules=core_attn mla_up_proj"
            << 57344LL + 4224 + 32768 + 16384 + 360448;
    }
    void recomputedModules()
    {
        QFETCH(QString, set);
        QFETCH(qint64, perToken);
        layerKeeps(set, 4096 * perToken);
    }

    // mla_up_proj drops DeepSeek-V3's Q (128 heads of 192: 2·128·192 = 49,152 B a token) and its
    // expanded K and V (2·128·(192 + 128) = 81,920: V is v_head_dim wide) and rebuilds them from
    // the latents, whose norms' outputs it drops too (2·(1,536 + 512) = 4,096) while keeping the
    // rotary key (2·64 = 128): 131,072 + 3,968.
    void mlaUpProjectionsRebuilt()
    {
        const QString set = "model=deepseek-v3,tp=1,pp=1,dp=64,ep=64,seq_len=4096,precision=bf16,"
                            "recompute=selective,sequence_parallel=false,recompute_modules=";
        const auto bytes = [&](const char *modules) {
            const Scenario s = scenario(set + modules);
            ActivationConfig c = activationConfig(s, *resolveModel(s, m_presets));
            c.moe = true;
            return layerActivationBytes(*resolveModel(s, m_presets), c);
        };
        QCOMPARE(bytes("core_attn") - bytes("core_attn mla_up_proj"),
                 4096LL * (49152 + 81920 + 3968));
    }

    // The query latent alone: DeepSeek-V3 against itself with queries projected straight from
    // the hidden state (q_lora_rank 0), which changes nothing else a layer keeps. Its 1,536
    // values a token are its norm's input (16-bit) and output (16-bit, or cast: 1 byte a value
    // under FP8 scaling, 33/32 under MXFP8), whole on every tensor-parallel rank (the down
    // projection is duplicated) unless sequence parallelism splits them by T
    // (multi_latent_attention.py; Transformer Engine's LayerNormLinear).
    void queryLatentKept_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<qint64>("perToken");
        QTest::addRow("BF16: the norm's input and output") << "precision=bf16" << 2LL * 2 * 1536;
        QTest::addRow("FP8: the output cast")
            << "precision=fp8,fp8_scaling=current" << 2LL * 1536 + 1536;
        QTest::addRow("MXFP8: a scale per 32 values")
            << "precision=fp8,fp8_scaling=block" << 2LL * 1536 + 1536 * 33 / 32;
        QTest::addRow("T = 8 without SP: whole on every rank")
            << "precision=bf16,tp=8,sequence_parallel=false" << 2LL * 2 * 1536;
        QTest::addRow("T = 8 with SP: an eighth of the sequence")
            << "precision=bf16,tp=8,sequence_parallel=true" << 2LL * 2 * 1536 / 8;
        QTest::addRow("mla_up_proj: the checkpoint's input only")
            << "precision=bf16,recompute_modules=core_attn mla_up_proj" << 2LL * 1536;
    }
    void queryLatentKept()
    {
        QFETCH(QString, set);
        QFETCH(qint64, perToken);
        const Scenario s = scenario("model=deepseek-v3,tp=1,pp=1,dp=64,ep=64,seq_len=4096,"
                                    "recompute=selective,recompute_modules=core_attn,"
                                    "sequence_parallel=false," +
                                    set);
        const ModelSpec *model = resolveModel(s, m_presets);
        QVERIFY(model && model->qLoraRank == 1536);
        ModelSpec direct = *model;
        direct.qLoraRank = 0;
        ActivationConfig c = activationConfig(s, *model);
        c.moe = true;
        QCOMPARE(layerActivationBytes(*model, c) - layerActivationBytes(direct, c),
                 4096 * perToken);
    }

    // ep_overlap runs a pair's forward layer i with its backward's layer L - 1 - i and frees
    // each backward layer after it (Megatron-LM megatron/core/models/common/
    // model_chunk_schedule_plan.py, run): one layer of one micro-batch more than the schedule
    // keeps, on every stage that runs a pair, not the forward's whole chunk.
    void epOverlapKeepsOneLayerMore_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<bool>("ran"); // a published run: it fitted
        const QString qwen = "model=qwen3-30b-a3b,framework=megatron,device=b200,seq_len=4096,"
                             "tp=1,ep=8,dp=8,recompute=none,cache_outputs=false,";
        QTest::addRow("one stage, m = 4") << qwen + "pp=1,microbatches=4" << false;
        QTest::addRow("interleaved K = 2, v = 2, m = 8")
            << qwen + "pp=2,microbatches=8,schedule=interleaved,virtual_stages=2" << false;
        // Megatron-Bridge's MXFP8 Qwen3-30B-A3B recipes, 512 sequences of 4,096 on 8 GPUs with
        // the overlap and no recomputation (src/megatron/bridge/perf_recipes/qwen/; their
        // throughput is in docs/experts.md): they ran, so they fit.
        const QString recipe = "model=qwen3-30b-a3b,framework=megatron,precision=fp8,"
                               "fp8_scaling=block,fp8_params=true,grad_precision=bf16,tp=1,pp=1,"
                               "dp=8,ep=8,seq_len=4096,recompute=none,";
        QTest::addRow("Qwen3 MXFP8 recipe, 8 GB300, micro-batch 8")
            << recipe + "device=gb300-nvl72,microbatch_size=8,microbatches=8" << true;
        QTest::addRow("Qwen3 MXFP8 recipe, 8 GB200, micro-batch 4")
            << recipe + "device=gb200-nvl72,microbatch_size=4,microbatches=16" << true;
        QTest::addRow("Qwen3 MXFP8 recipe, 8 B300, micro-batch 8")
            << recipe + "device=b300,microbatch_size=8,microbatches=8" << true;
    }
    void epOverlapKeepsOneLayerMore()
    {
        QFETCH(QString, set);
        QFETCH(bool, ran);
        const Report off = evaluate(scenario(set + ",ep_overlap=false"), m_presets);
        const Report on = evaluate(scenario(set + ",ep_overlap=true"), m_presets);
        QVERIFY(off.ok() && on.ok());
        QVERIFY(on.warnings.empty() || on.warnings.front().code != "ep-overlap-unused");
        ActivationConfig c = activationConfig(scenario(set));
        c.moe = true;
        const qint64 layer = layerActivationBytes(*m_presets.model("qwen3-30b-a3b"), c);
        QCOMPARE(on.stages.size(), off.stages.size());
        for (std::size_t i = 0; i < on.stages.size(); ++i) {
            QCOMPARE(on.stages[i].inflightMicrobatches, off.stages[i].inflightMicrobatches);
            QCOMPARE(on.stages[i].activationsBytes, off.stages[i].activationsBytes + layer);
        }
        if (ran)
            QVERIFY(on.fits);
    }

    // docs/activations.md, applied by hand to Llama 3.1 8B (h 4096, 32 heads of 128,
    // 8 KV heads, SwiGLU FFN 14336, no dropout), s = 4096, b = 1, T = 1, per token:
    // norms' inputs and the QKV/MLP inputs 4·2h = 32,768; Q and O 2·2·4096 = 16,384;
    // K and V, flash: 2·2·8·128 = 4,096, eager (repeated): 2·2·4096 = 16,384;
    // flash log-sum-exp 4·32 = 128; eager softmax output 2·32·s = 262,144;
    // SwiGLU 4·2·14336 = 114,688.
    void gatedGroupedQueryLayer_data()
    {
        QTest::addColumn<int>("attention");
        QTest::addColumn<qint64>("perToken");
        QTest::addRow("docs/activations.md: flash, GQA kept at 8 heads")
            << int(Attention::flash) << qint64(32768 + 16384 + 4096 + 128 + 114688);
        QTest::addRow("docs/DESIGN.md §3.6: eager repeats K/V, keeps the softmax")
            << int(Attention::eager) << qint64(32768 + 16384 + 16384 + 262144 + 114688);
    }
    void gatedGroupedQueryLayer()
    {
        QFETCH(int, attention);
        QFETCH(qint64, perToken);
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.attention = Attention(attention);
        QCOMPARE(layerActivationBytes(*m_presets.model("llama-3.1-8b"), c), 4096 * perToken);
    }

    // torchtitan's per-op checkpointing (torchtitan/distributed/activation_checkpoint.py,
    // SelectiveAC) on Llama 3.1 8B, s = 4096, b = 1, per token: the block input 2·4096; of
    // the multiplies wq, wk, wv, wo, w1, w3, w2 the odd ones' outputs, Q 2·4096, V 2·1024,
    // W1 2·14336 and W2's 2·4096; the attention output 2·4096 and its log-sum-exp 4·32.
    // With T = 2 and sequence parallelism the block input and the two reduce-scatters'
    // outputs split by T (3·2·4096 / 2), the rest by heads and FFN columns: Q and the output
    // 2·2·2048, V 2·512, W1 2·7168 and W2's pre-reduction 2·4096.
    void perOpCheckpointing_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<qint64>("perToken");
        QTest::addRow("T = 1") << 1 << qint64(8192 + 8192 + 2048 + 28672 + 8192 + 8192 + 128);
        QTest::addRow("T = 2, sequence parallel")
            << 2 << qint64(3 * 8192 / 2 + 2 * 4096 + 1024 + 14336 + 8192 + 64);
    }
    void perOpCheckpointing()
    {
        QFETCH(int, tp);
        QFETCH(qint64, perToken);
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.tp = tp;
        c.sequenceParallel = tp > 1;
        c.recompute = Recompute::op;
        const ModelSpec llama = *m_presets.model("llama-3.1-8b");
        QCOMPARE(layerActivationBytes(llama, c), 4096 * perToken);
        // During the backward one layer is rebuilt whole, as with full recomputation.
        QCOMPARE(stageRecomputePeakBytes(llama, c, 32, 0), layerPeakRecomputeBytes(llama, c));
    }

    // The same policy on DeepSeek-V3's dense layers (h 7168, 128 heads, q_lora_rank 1536,
    // kv_lora_rank 512, rope 64, value width 128, FFN 18432), T = 1, per token: the input
    // 2·7168; the multiplies wq_a, wq_b, wkv_a, wkv_b, wo, w1, w3, w2 keep the odd ones,
    // wq_a 2·1536, wkv_a 2·(512 + 64), wo 2·7168 and w3 2·18432 (w1 now even); the attention
    // output 2·128·128 and its log-sum-exp 4·128.
    void perOpCheckpointingLatentAttention()
    {
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.recompute = Recompute::op;
        const qint64 perToken = 14336 + 3072 + 1152 + 14336 + 36864 + 32768 + 512;
        QCOMPARE(layerActivationBytes(*m_presets.model("deepseek-v3"), c), 4096 * perToken);
    }

    // docs/DESIGN.md §3.3 / pytorch/pytorch#159251: 4096 × 128256 × 2 = 1,050,673,152 bytes per
    // micro-batch on the last stage only; pytorch/pytorch#165822's switch removes it.
    void cachedOutputs_data()
    {
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<bool>("cache");
        QTest::addColumn<qint64>("lastStage");
        QTest::addRow("docs/worked-examples.md §5 / #159251: m=2")
            << 2 << true << 2 * 1'050'673'152LL;
        QTest::addRow("docs/worked-examples.md §5 / #159251: m=16")
            << 16 << true << 16 * 1'050'673'152LL;
        QTest::addRow("#165822: return_outputs=False") << 16 << false << 0LL;
    }
    void cachedOutputs()
    {
        QFETCH(int, microbatches);
        QFETCH(bool, cache);
        QFETCH(qint64, lastStage);
        Scenario s = llama8bDp2Pp2(microbatches);
        s.cacheOutputs = cache;
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.size(), std::size_t(2));
        QCOMPARE(r.stages[0].cachedOutputsBytes, 0LL);
        QCOMPARE(r.stages[1].cachedOutputsBytes, lastStage);
    }

    // With one stage no pipeline schedule caches outputs: the training loop holds the logits of
    // the micro-batch in hand until its loss (torchtitan trainer.py, forward_backward_step:
    // del pred before loss.backward()), one micro-batch's 1,050,673,152 bytes whatever m, and
    // the memory over the step holds them from each forward to its backward only.
    void oneStageHoldsOneMicrobatchsLogits_data()
    {
        QTest::addColumn<int>("microbatches");
        QTest::addRow("m=1") << 1;
        QTest::addRow("m=16") << 16;
    }
    void oneStageHoldsOneMicrobatchsLogits()
    {
        QFETCH(int, microbatches);
        Scenario s = llama8bDp2Pp2(microbatches);
        s.pp = 1;
        EvaluateOptions options;
        options.timeline = true;
        const Report r = evaluate(s, m_presets, options);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.size(), std::size_t(1));
        QCOMPARE(r.stages[0].cachedOutputsBytes, 1'050'673'152LL);
        const MemoryTimeline t = memoryTimeline(s, m_presets, r, 0);
        std::int64_t most = 0;
        for (const MemoryPoint &p : t.points)
            most = std::max(most, p.cachedOutputsBytes);
        QCOMPARE(most, 1'050'673'152LL);
        QCOMPARE(t.points.back().cachedOutputsBytes, 0LL); // dropped before the last backward
    }

    // The loss's own buffers on the head's stage (docs/activations.md, "The loss"), for Llama
    // 3.1 8B's 4,096 × 128,256 = 525,336,576 logits a micro-batch (T = 1, one sequence) in
    // BF16 (e = 2). Megatron-core's loss keeps the FP32 softmax (4 bytes a logit) and, in the
    // backward, the gradient cast back beside it (6); PyTorch's eager F.cross_entropy over an
    // FP32 copy holds log_softmax's output, NLL's gradient and its own at once (12: the
    // 5.87 GiB of docs/frameworks.md at 4,096 tokens); compiled, the 16-bit gradient alone.
    // With one stage and the logits cached, an eager loss's backward counts their 2 bytes
    // among its own, as the loop has dropped them before it.
    // Transformer Engine keeps a 16-bit weight's FP8 or NVFP4 cast from the step's first
    // micro-batch to the next step (linear.py, _fp8_workspaces): the data and, where FP8
    // multiplies take the TN layout only (compute capability below 10.0), its transpose; MXFP8
    // and NVFP4 a row-wise and a column-wise copy with their scales. By hand for Llama 3.1 8B:
    // a layer's projections q 4096², k and v 4096 × 1024 each, o 4096², gate, up and down
    // 3 × 4096 × 14,336, with its two norms 218,112,000 parameters; 32 layers 6,979,584,000
    // (the embedding and the LM head, 4096 × 128,256 each, are not cast).
    void castWeightsKeptAllStep_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("stage");
        QTest::addColumn<qint64>("castBytes");
        constexpr qint64 layer = 218112000;
        constexpr qint64 layers = 32 * layer;
        constexpr qint64 head = 4096LL * 128256;
        const QString base =
            QStringLiteral("model=llama-3.1-8b,tp=1,pp=1,dp=1,microbatches=4,seq_len=4096,"
                           "precision=fp8,fp8_params=false,fp8_scaling=delayed,");
        QTest::addRow("H100, FP8: the data and its transpose")
            << base + "device=h100-sxm" << 0 << 2 * layers;
        QTest::addRow("B200, FP8: the data alone") << base + "device=b200" << 0 << layers;
        QTest::addRow("GB300 (10.3), FP8: the data alone")
            << base + "device=gb300-nvl72" << 0 << layers;
        // MXFP8: two copies of one byte and an E8M0 scale per 32 values: 2 + 2/32.
        QTest::addRow("B200, MXFP8: two copies and their scales")
            << base + "device=b200,fp8_scaling=block" << 0 << 2 * layers + layers / 16;
        // Hopper's FP8 blocks: two copies, an FP32 scale per 128 × 128 weights each.
        QTest::addRow("H100, FP8 blocks: two copies and their scales")
            << base + "device=h100-sxm,fp8_scaling=block" << 0 << 2 * layers + 8 * layers / 16384;
        // MXFP8 with fp8_lm_head: the LM head is cast too.
        QTest::addRow("B200, MXFP8 with the LM head in FP8")
            << base + "device=b200,fp8_scaling=block,fp8_lm_head=true" << 0
            << 2 * (layers + head) + (layers + head) / 16;
        // NVFP4: two copies of half a byte and an FP8 scale per 16 values: 1 + 2/16.
        QTest::addRow("GB200, NVFP4: two 4-bit copies and their scales")
            << base + "device=gb200-nvl72,precision=nvfp4" << 0 << layers + layers / 8;
        // ROCm's Transformer Engine keeps the transpose by default
        // (ROCm/TransformerEngine#248, keep_fp8_weight_transpose_cache).
        QTest::addRow("MI300X, ROCm's fork: the data and its transpose")
            << base + "device=mi300x" << 0 << 2 * layers;
        // T = 2 halves every projection; the norms stay whole on each device.
        QTest::addRow("H100, T = 2")
            << base + "device=h100-sxm,tp=2" << 0 << 2 * 32 * ((layer - 2 * 4096) / 2 + 2 * 4096);
        // K = 2: each stage its 16 layers, the embedding and the head beside them not cast.
        QTest::addRow("H100, K = 2, stage 0")
            << base + "device=h100-sxm,pp=2" << 0 << 2 * 16 * layer;
        QTest::addRow("H100, K = 2, stage 1")
            << base + "device=h100-sxm,pp=2" << 1 << 2 * 16 * layer;
        // LoRA: the frozen weights are cast as before; the adapters stay in 16 bits.
        QTest::addRow("H100, LoRA") << base + "device=h100-sxm,lora_rank=16" << 0 << 2 * layers;
        // FP8 weights: after each gather of the updated weights Transformer Engine makes the
        // transpose Hopper's backward multiplies (post_all_gather_processing), or FP8 blocks'
        // column-wise copy with an FP32 scale per 128 × 128; Blackwell needs none.
        QTest::addRow("H100, FP8 weights: their transpose")
            << base + "device=h100-sxm,fp8_params=true" << 0 << layers;
        QTest::addRow("H100, FP8 block weights: their column-wise copy")
            << base + "device=h100-sxm,fp8_params=true,fp8_scaling=block" << 0
            << layers + 4 * layers / 16384;
        QTest::addRow("B200, FP8 weights: none")
            << base + "device=b200,fp8_params=true" << 0 << 0LL;
        // MXFP8 weights hold both usages from the start (Transformer Engine quantizes them so
        // while gradients are on, and only that kernel makes the column-wise copy:
        // mxfp8_tensor_storage.py, update_usage): the data's E8M0 scales per 32 values, the
        // column-wise copy and its scales, 1/32 + 1 + 1/32, the cache on or off.
        QTest::addRow("B200, MXFP8 weights: the scales and the column-wise copy")
            << base + "device=b200,fp8_params=true,fp8_scaling=block" << 0 << layers + layers / 16;
        QTest::addRow("B200, MXFP8 weights, the cache off: kept all the same")
            << base + "device=b200,fp8_params=true,fp8_scaling=block,fp8_weight_cache=false" << 0
            << layers + layers / 16;
        // torchao's MX weights are not Transformer Engine's: nothing beside them.
        QTest::addRow("B200, MXFP8 weights under torchtitan: none")
            << "framework=torchtitan," + base + "device=b200,fp8_params=true,fp8_scaling=block" << 0
            << 0LL;
        QTest::addRow("H100, FP8 weights, the cache off: made and freed in each backward")
            << base + "device=h100-sxm,fp8_params=true,fp8_weight_cache=false" << 0 << 0LL;
        // LoRA's frozen weights quantized to NVFP4 in place, as MLPerf's NVFP4 LoRA runs do
        // (custom_callbacks.py, _pre_quantize_model): the weights count the row-wise half a byte
        // and its scales, this term the column-wise copy, 1/2 + 1/16, the cache on or off.
        QTest::addRow("GB200, LoRA's NVFP4 frozen weights: their column-wise copy")
            << base + "device=gb200-nvl72,precision=nvfp4,fp8_params=true,lora_rank=16" << 0
            << layers / 2 + layers / 16;
        QTest::addRow("GB200, LoRA's NVFP4 frozen weights, the cache off: kept all the same")
            << base + "device=gb200-nvl72,precision=nvfp4,fp8_params=true,lora_rank=16,"
                      "fp8_weight_cache=false"
            << 0 << layers / 2 + layers / 16;
        // Full NVFP4 training keeps its 16-bit weights and casts them, fp8_params or not.
        QTest::addRow("GB200, NVFP4 training with fp8_params: the cast copies")
            << base + "device=gb200-nvl72,precision=nvfp4,fp8_params=true" << 0
            << layers + layers / 8;
        QTest::addRow("the cache off")
            << base + "device=h100-sxm,fp8_weight_cache=false" << 0 << 0LL;
        QTest::addRow("ZeRO-3: gathered anew") << base + "device=h100-sxm,dp=8,zero=3" << 0 << 0LL;
        QTest::addRow("BF16: nothing cast") << base + "device=h100-sxm,precision=bf16" << 0 << 0LL;
        QTest::addRow("FP8 inference: FP8 weights")
            << base + "device=h100-sxm,mode=inference,microbatches=1" << 0 << 0LL;
    }
    void castWeightsKeptAllStep()
    {
        QFETCH(QString, set);
        QFETCH(int, stage);
        QFETCH(qint64, castBytes);
        const Scenario s = scenario(set);
        const Report r = evaluatedWithTimeline(s);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const StageReport &st = r.stages.at(static_cast<std::size_t>(stage));
        QCOMPARE(st.castWeightsBytes, castBytes);
        QCOMPARE(st.totalBytes, memoryTermsTotal(st));
        if (s.mode == Mode::training) {
            // Kept all step: the same at every point of the memory over the step.
            const MemoryTimeline t = memoryTimeline(s, m_presets, r, stage);
            QCOMPARE(t.points.at(t.peak).totalBytes, st.totalBytes);
        }
    }

    // FP8 weights (fp8_params: Megatron-LM --fp8-param-gather) are Transformer Engine's modules'
    // alone: the embedding, the final norm and an LM head outside fp8_lm_head stay in BF16. By
    // hand for Llama 3.1 8B: 32 layers of 218,112,000 parameters at 1 byte, the embedding and the
    // LM head 4096 × 128,256 = 525,336,576 each and the final norm 4,096 at 2.
    void fp8WeightsAreTheLayers_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("stage");
        QTest::addColumn<qint64>("weightsBytes");
        constexpr qint64 layer = 218112000;
        constexpr qint64 table = 4096LL * 128256;
        const QString base =
            QStringLiteral("model=llama-3.1-8b,tp=1,dp=1,microbatches=4,seq_len=4096,"
                           "device=h100-sxm,precision=fp8,fp8_params=true,");
        QTest::addRow("one stage") << base + "pp=1" << 0 << 32 * layer + 2 * (2 * table + 4096);
        // fp8_lm_head runs with MXFP8 only, as Megatron-core's fp8_output_proj does.
        QTest::addRow("MXFP8 on a B200 with the LM head in FP8")
            << base + "pp=1,device=b200,fp8_scaling=block,fp8_lm_head=true" << 0
            << 32 * layer + table + 2 * (table + 4096);
        QTest::addRow("K = 2, stage 0: the embedding")
            << base + "pp=2" << 0 << 16 * layer + 2 * table;
        QTest::addRow("K = 2, stage 1: the final norm and the LM head")
            << base + "pp=2" << 1 << 16 * layer + 2 * (table + 4096);
        QTest::addRow("BF16 weights: every parameter at 2")
            << base + "pp=1,fp8_params=false" << 0 << 2 * (32 * layer + 2 * table + 4096);
        // LoRA's frozen weights in NVFP4 (MLPerf's NVFP4 LoRA runs quantize the TE modules'
        // weights in place: custom_callbacks.py, _pre_quantize_model): half a byte and an E4M3
        // scale per 16 values, 9/16; the embedding, the final norm, the LM head and QKV's
        // adapters, 16 × (4,096 + 6,144) = 163,840 a layer, at 2.
        QTest::addRow("LoRA on a B200, the frozen weights in NVFP4")
            << base + "pp=1,device=b200,precision=nvfp4,lora_rank=16,lora_modules=linear_qkv" << 0
            << 32 * layer * 9 / 16 + 2 * (2 * table + 4096 + 32 * 163840LL);
        QTest::addRow("NVFP4 training: BF16 weights, fp8_params or not")
            << base + "pp=1,device=b200,precision=nvfp4" << 0
            << 2 * (32 * layer + 2 * table + 4096);
    }
    void fp8WeightsAreTheLayers()
    {
        QFETCH(QString, set);
        QFETCH(int, stage);
        QFETCH(qint64, weightsBytes);
        const Report r = evaluate(scenario(set), m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages.at(static_cast<std::size_t>(stage)).weightsBytes, weightsBytes);
    }

    // Transformer Engine called without is_first_microbatch (DeepSpeed's engine; Megatron-core
    // with disable_parameter_transpose_cache) casts the weights in every forward and saves the
    // copy for that micro-batch's backward (linear.py, wt_save): among the activations, a copy
    // per micro-batch in flight, none for a layer that reruns under full recomputation but the
    // one rebuilt. By hand, against the same run with FP8 weights (nothing cast, the same
    // activations otherwise): Llama 3.1 8B's layer of 218,112,000 parameters, 2 bytes each on
    // an H100.
    void savedCastWeightsPerMicrobatch_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("stage");
        QTest::addColumn<qint64>("copies");
        constexpr qint64 layer = 218112000;
        const QString base =
            QStringLiteral("model=llama-3.1-8b,device=h100-sxm,tp=1,pp=1,dp=1,microbatches=4,"
                           "seq_len=4096,precision=fp8,fp8_weight_cache=false,recompute=none,"
                           "framework=deepspeed,");
        QTest::addRow("one stage: one micro-batch's copies") << base << 0 << 2 * 32 * layer;
        QTest::addRow("B200: the data alone") << base + "device=b200" << 0 << 32 * layer;
        // 1F1B keeps min(K - s, m) micro-batches in flight: 2 on stage 0, 1 on stage 1.
        QTest::addRow("K = 2, stage 0: two in flight") << base + "pp=2" << 0 << 2 * 2 * 16 * layer;
        QTest::addRow("K = 2, stage 1: one in flight") << base + "pp=2" << 1 << 2 * 16 * layer;
        QTest::addRow("full recomputation: the rebuilt layer's")
            << base + "recompute=full" << 0 << 2 * layer;
        QTest::addRow("the first 8 rerun: the other 24 and the rebuilt one")
            << base + "recompute=full,recompute_layers=8" << 0 << 2 * (24 + 1) * layer;
        QTest::addRow("torchtitan's Float8Linear: the 16-bit weight saved")
            << base + "framework=torchtitan" << 0 << 0LL;
        QTest::addRow("the cache on: a term of its own")
            << base + "fp8_weight_cache=true" << 0 << 0LL;
    }
    void savedCastWeightsPerMicrobatch()
    {
        QFETCH(QString, set);
        QFETCH(int, stage);
        QFETCH(qint64, copies);
        const Scenario s = scenario(set + ",fp8_params=false");
        const Report r = evaluatedWithTimeline(s);
        const Report held = evaluate(scenario(set + ",fp8_params=true"), m_presets);
        QVERIFY2(r.ok() && held.ok(), r.error ? r.error->message.c_str() : "");
        const auto i = static_cast<std::size_t>(stage);
        QCOMPARE(r.stages.at(i).activationsBytes - held.stages.at(i).activationsBytes, copies);
        if (!s.fp8WeightCache)
            QCOMPARE(r.stages.at(i).castWeightsBytes, 0LL);
        // The memory over the step reaches the same activations.
        const MemoryTimeline t = memoryTimeline(s, m_presets, r, stage);
        QCOMPARE(t.points.at(t.peak).totalBytes, r.stages.at(i).totalBytes);
    }

    // The profiles: Megatron-LM passes is_first_microbatch; DeepSpeed's engine does not, and
    // torchao's Float8Linear keeps no copy.
    void castWeightCacheByProfile()
    {
        for (const auto &[framework, cached] :
             {std::pair{Framework::megatron, true}, std::pair{Framework::deepspeed, false},
              std::pair{Framework::torchtitan, false}}) {
            Scenario profiled;
            applyFramework(profiled, framework);
            QCOMPARE(profiled.fp8WeightCache, cached);
        }
    }

    // Micro-batches waiting between their loss and its backward hold 4 each: GPipe's m; the
    // interleaved last stage runs each head F's B next.
    void theLossKeepsItsBuffersOnTheHeadsStage_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<qint64>("lossBytes");
        constexpr qint64 n = 4096LL * 128256;
        const QString base =
            QStringLiteral("model=llama-3.1-8b,tp=1,pp=2,dp=1,microbatches=4,microbatch_size=1,"
                           "seq_len=4096,recompute=none,");
        QTest::addRow("Megatron-core, 1F1B: the softmax and the gradient")
            << base + "framework=megatron" << 6 * n;
        QTest::addRow("T = 2: half the vocabulary") << base + "framework=megatron,tp=2" << 3 * n;
        QTest::addRow("C = 2: half the tokens") << base + "framework=megatron,cp=2" << 3 * n;
        QTest::addRow("Transformer Engine's loss: an FP32 gradient kept")
            << base + "framework=megatron,loss_fusion=te" << 6 * n;
        QTest::addRow("GPipe, m = 4: three softmaxes waiting")
            << base + "framework=megatron,schedule=gpipe" << (3 * 4 + 6) * n;
        QTest::addRow("interleaved, m = K: each head F's B next")
            << base + "framework=megatron,schedule=interleaved,virtual_stages=2,microbatches=2"
            << 6 * n;
        QTest::addRow("interleaved, m = 2K: each head F's B next")
            << base + "framework=megatron,schedule=interleaved,virtual_stages=2" << 6 * n;
        QTest::addRow("multi-token prediction, one depth: two losses a micro-batch")
            << base + "framework=megatron,mtp_layers=1" << (4 + 6) * n;
        QTest::addRow("torchtitan, eager: 12 bytes a logit")
            << base + "framework=torchtitan" << 12 * n;
        // torchtitan's own vocabulary-parallel loss at T > 1: its backward holds the
        // log-probabilities, the one-hot gradient, their exponential and the sum, 16 bytes a
        // logit of half the vocabulary.
        QTest::addRow("torchtitan, eager, T = 2: 16 bytes a logit")
            << base + "framework=torchtitan,tp=2" << 8 * n;
        QTest::addRow("torchtitan, compiled, logits cached: their gradient")
            << base + "framework=torchtitan,fused_elementwise=true" << 2 * n;
        QTest::addRow("torchtitan, compiled, logits not cached: they and their gradient")
            << base + "framework=torchtitan,fused_elementwise=true,cache_outputs=false" << 4 * n;
        // With one stage the cached term holds the logits through the backward, where the
        // loop has dropped them (del pred): the backward's peak counts them among its bytes.
        QTest::addRow("one stage, Megatron-core's loss, logits cached: 4 beyond them")
            << base + "pp=1" << 4 * n;
        QTest::addRow("one stage, torchtitan eager, logits cached: 12 - 2 beyond them")
            << base + "framework=torchtitan,pp=1" << 10 * n;
        QTest::addRow("DeepSpeed with Transformers' loss: as eager torchtitan")
            << base + "framework=deepspeed,pp=1" << 12 * n;
    }
    void theLossKeepsItsBuffersOnTheHeadsStage()
    {
        QFETCH(QString, set);
        QFETCH(qint64, lossBytes);
        const Scenario s = scenario(set);
        const Report r = evaluatedWithTimeline(s);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages.back().lossBytes, lossBytes);
        for (std::size_t i = 0; i + 1 < r.stages.size(); ++i)
            QCOMPARE(r.stages[i].lossBytes, 0LL);
        QCOMPARE(r.stages.back().totalBytes, memoryTermsTotal(r.stages.back()));
        // The memory over the step reaches the same buffers, in a backward of the head's chunk.
        const MemoryTimeline t = memoryTimeline(s, m_presets, r, s.pp - 1);
        std::int64_t most = 0;
        for (const MemoryPoint &p : t.points)
            most = std::max(most, p.lossBytes);
        QCOMPARE(most, lossBytes);
        QCOMPARE(t.points.back().lossBytes, 0LL); // none waits past the step
    }

    // torchtitan's eager loss is named where its buffers take a tenth of a stage, with what the
    // compiled loss would keep and the setting that compiles it (docs/activations.md, "The
    // loss"). Llama 3.1 8B, two sequences of 8,192 tokens on one stage under FSDP over 8
    // (torchtitan's December 2024 Table 1 layout), 2 × 8,192 × 128,256 logits: eager 10 bytes
    // a logit beyond the cached ones, 21.0 GB; compiled 2, their gradient, 4.2 GB.
    void eagerLossBuffersAreNamed_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<bool>("named");
        const QString layout = QStringLiteral("model=llama-3.1-8b,tp=1,pp=1,dp=8,zero=3,"
                                              "microbatches=1,microbatch_size=2,seq_len=8192,"
                                              "recompute=op,");
        QTest::addRow("torchtitan, eager") << layout + "framework=torchtitan" << true;
        QTest::addRow("torchtitan, compiled")
            << layout + "framework=torchtitan,fused_elementwise=true" << false;
        QTest::addRow("Megatron-LM's loss, 6 bytes a logit")
            << layout + "framework=megatron" << false;
        QTest::addRow("torchtitan, eager, 70B at T = 8: a sliver of the stage")
            << QStringLiteral("framework=torchtitan,model=llama-3.1-70b,tp=8,pp=1,dp=8,zero=3,"
                              "microbatches=1,microbatch_size=1,seq_len=4096,recompute=full")
            << false;
    }
    void eagerLossBuffersAreNamed()
    {
        QFETCH(QString, set);
        QFETCH(bool, named);
        const Scenario s = scenario(set);
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        const auto w = std::find_if(r.warnings.begin(), r.warnings.end(),
                                    [](const Warning &x) { return x.code == "loss-buffers"; });
        QCOMPARE(w != r.warnings.end(), named);
        if (!named)
            return;
        constexpr qint64 n = 2LL * 8192 * 128256;
        QCOMPARE(r.stages[0].lossBytes, 10 * n);
        QVERIFY2(QString::fromStdString(w->message).contains("21.0 GB"), w->message.c_str());
        QVERIFY2(QString::fromStdString(w->message).contains("holds 12 bytes a logit"),
                 w->message.c_str());
        QVERIFY2(QString::fromStdString(w->message).contains("keeps 4.2 GB"), w->message.c_str());
        QCOMPARE(w->setKey, std::string("fused_elementwise"));
        QCOMPARE(w->setValue, std::string("true"));
        // Applied, the loss keeps what the warning said, and the warning goes.
        Scenario applied = s;
        QVERIFY(!setField(applied, w->setKey, w->setValue));
        const Report after = evaluate(applied, m_presets);
        QCOMPARE(after.stages[0].lossBytes, 2 * n);
        QVERIFY(std::none_of(after.warnings.begin(), after.warnings.end(),
                             [](const Warning &x) { return x.code == "loss-buffers"; }));
    }

    // Inference computes no loss.
    void inferenceKeepsNoLossBuffers()
    {
        const Report r = evaluate(scenario({"model=llama-3.1-8b", "tp=1", "pp=1", "dp=1",
                                            "mode=inference", "microbatches=1"}),
                                  m_presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages[0].lossBytes, 0LL);
    }

    // DualPipeV's V (deepseek-ai/DualPipe; torchtitan's "v" placement) brings the model's last
    // chunk back to stage 0: the embedding, the final norm and the LM head are all there, and
    // so are the cached logits. Llama 3.1 8B at K = 4 (8 layers a stage), m = 8: stage 0 holds
    // 128,256 × 4,096 × 2 + 4,096 = 1,050,677,248 parameters more than the others, which hold
    // the same; every stage keeps 2K + 1 = 9 chunks of half its layers alive (the DualPipe
    // README's PP + 1), 4.5 micro-batches; stage 0 keeps m = 8 micro-batches' logits of 4,096
    // × 128,256 BF16 values (1,050,673,152 bytes each, as cachedOutputs above).
    void dualPipeVEndsOnStageZero()
    {
        Scenario s = scenario({"model=llama-3.1-8b", "tp=1", "pp=4", "dp=1", "microbatches=8",
                               "microbatch_size=1", "seq_len=4096", "schedule=dualpipev",
                               "cache_outputs=true", "recompute=none"});
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.size(), std::size_t(4));
        QCOMPARE(r.stages[0].params - r.stages[1].params, 1'050'677'248LL);
        QCOMPARE(r.stages[3].params, r.stages[1].params);
        QCOMPARE(r.stages[2].params, r.stages[1].params);
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.recompute = Recompute::none;
        const std::int64_t perLayer = layerActivationBytes(*m_presets.model("llama-3.1-8b"), c);
        for (const StageReport &st : r.stages) {
            QCOMPARE(st.inflightMicrobatches, 4.5);
            QCOMPARE(st.activationsBytes, std::int64_t(4.5 * 8 * perLayer));
        }
        QCOMPARE(r.stages[0].cachedOutputsBytes, 8 * 1'050'673'152LL);
        QCOMPARE(r.stages[3].cachedOutputsBytes, 0LL);
        // A tied LM head on stage 0 shares the embedding there: GPT-3's second copy of its
        // 50,257 × 12,288 = 617,558,016 embedding values, which 1F1B's last stage keeps,
        // is gone.
        Scenario tied = scenario(
            {"model=gpt-3-175b", "tp=8", "pp=4", "dp=1", "microbatches=8", "schedule=1f1b"});
        const Report oneFOneB = evaluate(tied, m_presets);
        tied.schedule = Schedule::dualPipeV;
        const Report v = evaluate(tied, m_presets);
        QVERIFY(oneFOneB.ok() && v.ok());
        const auto sum = [](const Report &rep) {
            std::int64_t total = 0;
            for (const StageReport &st : rep.stages)
                total += st.params;
            return total;
        };
        QCOMPARE(sum(oneFOneB) - sum(v), (50'257LL + 7) / 8 * 12'288);
    }

    // DualPipe (deepseek-ai/DualPipe, examples/example_dualpipe.py): device i holds stage i
    // and the mirrored stage K - 1 - i, so every device two stages' layers (README: 2x the
    // parameters), and each end stage an embedding and an LM head: Llama 3.1 8B on K = 4,
    // 8 layers a stage, 16 a device, and its 525,336,576-value embedding, its 525,336,576-value
    // head and 4,096-value final norm (1,050,677,248) on stages 0 and 3. The model's
    // 8,030,261,248 parameters are held twice. README: PP + 1 = 5 chunks of 8 layers alive, 2.5
    // of a device's 16. Each end stage keeps the logits of the half of the micro-batches whose
    // direction ends there: 4 of 8, 4,096 x 128,256 BF16 values each.
    void dualPipeHoldsTwoStagesAndBothEnds()
    {
        Scenario s = scenario({"model=llama-3.1-8b", "tp=1", "pp=4", "dp=1", "microbatches=8",
                               "microbatch_size=1", "seq_len=4096", "schedule=dualpipe",
                               "cache_outputs=true", "recompute=none"});
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.size(), std::size_t(4));
        std::int64_t total = 0;
        for (const StageReport &st : r.stages) {
            QCOMPARE(st.layers, 16);
            total += st.params;
        }
        QCOMPARE(total, 2 * 8'030'261'248LL);
        QCOMPARE(r.stages[0].params - r.stages[1].params, 1'050'677'248LL);
        QCOMPARE(r.stages[3].params, r.stages[0].params);
        QCOMPARE(r.stages[2].params, r.stages[1].params);
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.recompute = Recompute::none;
        const std::int64_t perLayer = layerActivationBytes(*m_presets.model("llama-3.1-8b"), c);
        for (const StageReport &st : r.stages) {
            QCOMPARE(st.inflightMicrobatches, 2.5);
            QCOMPARE(st.activationsBytes, std::int64_t(2.5 * 16 * perLayer));
        }
        QCOMPARE(r.stages[0].cachedOutputsBytes, 4 * 1'050'673'152LL);
        QCOMPARE(r.stages[3].cachedOutputsBytes, 4 * 1'050'673'152LL);
        QCOMPARE(r.stages[1].cachedOutputsBytes, 0LL);
        // An uneven split pairs a long stage with a short one: 32 layers over 6 stages are
        // 6, 6, 5, 5, 5, 5 (splitLayers), and device i holds stages i and 5 - i.
        s.pp = 6;
        s.microbatches = 12;
        const Report uneven = evaluate(s, m_presets);
        QVERIFY(uneven.ok());
        QCOMPARE(stageLayers(uneven), (QList<int>{11, 11, 10, 10, 11, 11}));
        // A tied LM head on an end stage shares the embedding there: GPT-3 keeps no second
        // copy of its 50,257 x 12,288 embedding values (6,283 x 12,288 a device at T = 8), which
        // 1F1B's last stage keeps; DualPipe holds everything else twice.
        Scenario tied = scenario(
            {"model=gpt-3-175b", "tp=8", "pp=4", "dp=1", "microbatches=8", "schedule=1f1b"});
        const Report oneFOneB = evaluate(tied, m_presets);
        tied.schedule = Schedule::dualPipe;
        const Report dual = evaluate(tied, m_presets);
        QVERIFY(oneFOneB.ok() && dual.ok());
        const auto sum = [](const Report &rep) {
            std::int64_t all = 0;
            for (const StageReport &st : rep.stages)
                all += st.params;
            return all;
        };
        QCOMPARE(2 * sum(oneFOneB) - sum(dual), 2 * ((50'257LL + 7) / 8 * 12'288));
    }

    // DualPipeV cuts the model into 2K chunks and gives device i chunks i and 2K - 1 - i
    // (torchtitan's "v" placement): DeepSeek-V3's 61 layers in 32 chunks are 29 of two and
    // 3 of one (splitLayers), so devices 0-2 hold 2 + 1 layers and the rest 2 + 2. Device 0's
    // are layers 0-1 (dense: the first three are) and 60, one MoE layer; device 1's 2-3 and 59,
    // two. Each device keeps 256 / 64 = 4 experts of 3 x 7,168 x 2,048 a MoE layer.
    void dualPipeVCutsTheModelInTwiceTheStages()
    {
        Scenario s = scenario({"model=deepseek-v3", "device=h800-sxm", "precision=fp8", "tp=1",
                               "pp=16", "dp=128", "ep=64", "zero=1", "microbatches=120",
                               "schedule=dualpipev", "recompute=full"});
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), (QList<int>{3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}));
        const std::int64_t experts = std::int64_t{4} * 3 * 7168 * 2048;
        QCOMPARE(r.stages[0].expertParams, experts);
        QCOMPARE(r.stages[1].expertParams, 2 * experts);
        QCOMPARE(r.stages[3].expertParams, 4 * experts);
    }

    // torchtitan counts the embedding and the output as a layer each in its V too
    // (_generate_llm_fqn_per_model_part over 2K parts): Llama 3.1 8B's 32 layers + 2 over 8
    // parts are 5, 5, 4, 4, 4, 4, 4, 4, less one on the first and the last, both on stage 0:
    // stage 0 holds parts 0 and 7 (4 + 3), stage 1 parts 1 and 6 (5 + 4), stages 2 and 3 eight.
    void dualPipeVCountsTheEndsOnStageZero()
    {
        const Report r = evaluate(scenario({"model=llama-3.1-8b", "pp=4", "dp=2", "microbatches=8",
                                            "schedule=dualpipev", "ends_in_pipeline_split=true"}),
                                  m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), (QList<int>{7, 9, 8, 8}));
    }

    // torchtitan's generated parts may differ by a layer where Megatron-LM needs equal chunks
    // (_generate_llm_fqn_per_model_part): Llama 3.1 8B's 32 layers + 2 over 8 parts are 5, 5,
    // 4, 4, 4, 4, 4, 4 less one on the first and the last; stage s holds parts s and s + 4:
    // 4 + 4, 5 + 4, 4 + 4, 4 + 3. The custom profile refuses the same split (9 layers on
    // stage 0 do not make two equal chunks).
    void torchtitanInterleavesUnevenParts()
    {
        Scenario s =
            scenario({"model=llama-3.1-8b", "pp=4", "dp=2", "microbatches=8",
                      "schedule=interleaved", "virtual_stages=2", "ends_in_pipeline_split=true"});
        QCOMPARE(evaluate(s, m_presets).error->key, std::string("virtual_stages"));
        s.framework = Framework::torchtitan;
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        QCOMPARE(stageLayers(r), (QList<int>{8, 9, 8, 7}));
    }

    // Megatron-core's interleaved chunk c of stage s holds part c·K + s of the model cut v·K
    // ways (transformer_layer.py, get_transformer_layer_offset). DeepSeek-V3's layers cut to
    // 32, the first 5 dense, K = 4, v = 2: parts of 4 layers; stage 0 holds layers 0-3 and
    // 16-19 (4 with experts), stage 1 4-7 and 20-23 (7), stages 2 and 3 8 each. A contiguous
    // split would give stage 0 layers 0-7 (3 with experts) and stage 1 8-15 (8).
    void interleavedChunksHoldMegatronsParts()
    {
        Scenario s = scenario({"model=deepseek-v3", "device=h800-sxm", "precision=fp8", "tp=1",
                               "pp=4", "dp=64", "ep=64", "zero=1", "microbatches=8",
                               "schedule=interleaved", "virtual_stages=2", "recompute=full"});
        ModelSpec model = *m_presets.model("deepseek-v3");
        model.layers = 32;
        model.denseLayers = 5;
        s.customModel = model;
        const Report r = evaluate(s, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->message.c_str() : "");
        const std::int64_t experts = std::int64_t{4} * 3 * 7168 * 2048; // 256 / 64 a device
        QList<std::int64_t> held;
        for (const StageReport &st : r.stages)
            held << st.expertParams / experts;
        QCOMPARE(held, (QList<std::int64_t>{4, 7, 8, 8}));
    }

    // docs/worked-examples.md §5: the first stage stays flat as m grows: 1F1B keeps min(K-s, m) = 2
    // micro-batches on stage 0 at both m = 2 and m = 16, while the last stage
    // grows by 14 cached outputs.
    void firstStageFlatLastStageGrows()
    {
        const Report small = evaluate(llama8bDp2Pp2(2), m_presets);
        const Report large = evaluate(llama8bDp2Pp2(16), m_presets);
        QCOMPARE(small.stages[0].inflightMicrobatches, 2.0);
        QCOMPARE(large.stages[0].inflightMicrobatches, 2.0);
        QCOMPARE(large.stages[0].totalBytes, small.stages[0].totalBytes);
        QCOMPARE(large.stages[1].totalBytes - small.stages[1].totalBytes, 14 * 1'050'673'152LL);
    }

    // docs/DESIGN.md §3.3: activations = per-layer bytes × layers in the stage × in-flight count.
    void activationsScaleWithInflight()
    {
        Scenario s = llama8bDp2Pp2(16);
        const Report r = evaluate(s, m_presets);
        ActivationConfig c;
        c.seqLen = 4096;
        c.microbatchSize = 1;
        c.recompute = s.recompute;
        const std::int64_t perLayer = layerActivationBytes(*m_presets.model("llama-3.1-8b"), c);
        QCOMPARE(r.stages[0].activationsBytes, 16 * 2 * perLayer);
        QCOMPARE(r.stages[1].activationsBytes, 16 * 1 * perLayer);
        // Full recomputation keeps 2sbh per layer and micro-batch (Korthikanti Table 2),
        // plus one layer's full activations while it is rebuilt (docs/activations.md).
        s.recompute = Recompute::full;
        const Report full = evaluate(s, m_presets);
        c.recompute = Recompute::none;
        const std::int64_t oneLayer = layerActivationBytes(*m_presets.model("llama-3.1-8b"), c);
        QCOMPARE(full.stages[1].activationsBytes, 16 * 1 * (2LL * 4096 * 4096) + oneLayer);
    }

    // docs/DESIGN.md §3.7, Llama 3.1 70B (80 layers, 8 KV heads of 128), BF16 inference,
    // seq 8192, m = 4 micro-batches of 2 sequences (8 in flight), K = 4 (20 layers each).
    void inferenceKvCache_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<qint64>("perStage");
        // T = 1: 2 × 20 × 8 × 128 × 8192 × 8 × 2 = 5,368,709,120 (5 GiB; 20 GiB for all 80)
        QTest::addRow("docs/DESIGN.md §3.7: 70B, T=1") << 1 << 5'368'709'120LL;
        // T = 8: one KV head per device, 2 × 20 × 1 × 128 × 8192 × 8 × 2 = 671,088,640
        QTest::addRow("docs/DESIGN.md §3.7: 70B, T=8, KV heads / T") << 8 << 671'088'640LL;
        // T = 16 > 8 KV heads: each device keeps one (replicated), as at T = 8
        QTest::addRow("docs/DESIGN.md §3.7: 70B, T=16 > kv_heads, one each") << 16 << 671'088'640LL;
    }
    void inferenceKvCache()
    {
        QFETCH(int, tp);
        QFETCH(qint64, perStage);
        Scenario s;
        s.mode = Mode::inference;
        s.tp = tp;
        s.pp = 4;
        s.dp = 1;
        s.seqLen = 8192;
        s.microbatches = 4;
        s.microbatchSize = 2;
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        for (const StageReport &st : r.stages) {
            QCOMPARE(st.kvCacheBytes, perStage);
            QCOMPARE(st.activationsBytes, 0LL);
            QCOMPARE(st.cachedOutputsBytes, 0LL);
            QCOMPARE(st.gradsBytes, 0LL);
            QCOMPARE(st.totalBytes,
                     st.weightsBytes + st.kvCacheBytes + st.prefillBuffersBytes + st.reserveBytes);
        }
    }

    // A sliding-window layer keeps the last sliding_window tokens (Jiang et al. 2023,
    // "Mistral 7B", §2, the rolling buffer cache). Llama 3.1 8B given a window of 1,024 on all
    // but every second layer, K = 2 (16 layers a stage, 8 windowed), 8 sequences of 8,192
    // tokens, T = 1: per stage 2 × 8 KV heads × 128 × 2 bytes × 8 × (8 × 8,192 + 8 × 1,024).
    void slidingWindowKvCache_data()
    {
        QTest::addColumn<int>("period");
        QTest::addColumn<qint64>("perStage");
        const qint64 perToken = 2 * 8 * 128 * 2 * 8;
        QTest::addRow("every second layer windowed (gpt-oss, Gemma 2)")
            << 2 << perToken * (8 * 8192 + 8 * 1024);
        QTest::addRow("every layer windowed (Mistral)") << 0 << perToken * 16 * 1024;
        // Full at layers 6, 12 (stage 0: 2 of 16) and 18, 24, 30 (stage 1: 3): not equal.
        QTest::addRow("every sixth full (Gemma 3), stage 0")
            << 6 << perToken * (2 * 8192 + 14 * 1024);
    }
    void slidingWindowKvCache()
    {
        QFETCH(int, period);
        QFETCH(qint64, perStage);
        Scenario s = scenario("model=llama-3.1-8b,mode=inference,tp=1,pp=2,dp=1,seq_len=8192,"
                              "microbatches=2,microbatch_size=4");
        ModelSpec model = *m_presets.model("llama-3.1-8b");
        model.slidingWindow = 1024;
        model.fullAttentionPeriod = period;
        s.customModel = model;
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QCOMPARE(r.stages.front().kvCacheBytes, perStage);
        if (period == 6)
            QCOMPARE(r.stages.back().kvCacheBytes,
                     qint64{2 * 8 * 128 * 2 * 8} * (3 * 8192 + 13 * 1024));
        QCOMPARE(
            double(kvCacheBytesBound(model, 16, 8192, 8, 1, 2, r.stages.front().slidingLayers)),
            double(perStage));
    }

    // Found by tst_invariants, fuzz_set_option: byte counts past 2^63 wrapped round to
    // negative totals (and signed overflow). validate refuses such a scenario first, from
    // upper bounds of each term against 2^60, naming the key to lower; evaluate's saturating
    // counts stay behind it as a second line.
    void refusedBeyondCounting_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("term");
        // Korthikanti §4.1 with eager attention: 5·a·s/h per sbh; GPT-3 in FP32 at T = 1 keeps
        // 114,057,216 bytes per token and layer, × 33,554,432 tokens × 96 layers × 4096
        // micro-batches in flight (GPipe) = 1.5e21 > 2^63.
        QTest::addRow("GPT-3 FP32, eager, GPipe m=4096, b=256, seq 131072: activations")
            << QStringList{"model=gpt-3-175b",
                           "precision=fp32",
                           "attention=eager",
                           "recompute=none",
                           "schedule=gpipe",
                           "microbatches=4096",
                           "microbatch_size=256",
                           "seq_len=131072",
                           "tp=1",
                           "pp=1",
                           "sequence_parallel=false",
                           "cache_outputs=false"}
            << "seq_len"
            << "activations";
        // docs/DESIGN.md §3.4: 6 all-reduces (forward, backward, recomputed forward) of b·s·h FP32
        // values, 2·7/8 of 2,199,023,255,552 bytes each, × 126 layers × 4096 = 1.19e19 > 2^63.
        QTest::addRow("405B FP32, T=8, full recomputation, m=4096, b=256, seq 131072: TP traffic")
            << QStringList{"model=llama-3.1-405b",
                           "precision=fp32",
                           "recompute=full",
                           "microbatches=4096",
                           "microbatch_size=256",
                           "seq_len=131072",
                           "tp=8",
                           "pp=1",
                           "cache_outputs=false"}
            << "seq_len"
            << "tensor-parallel traffic";
        // 10^10 GiB = 1.07e19 bytes > 2^63 (reachable from a file or --set).
        QTest::addRow("reserve_gib = 1e10") << QStringList{"reserve_gib=1e10"} << "reserve_gib"
                                            << "at most";
    }
    void refusedBeyondCounting()
    {
        QFETCH(QStringList, settings);
        QFETCH(QString, key);
        QFETCH(QString, term);
        const Report r = evaluate(scenario(settings), m_presets);
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error->key), key);
        const QString message = QString::fromStdString(r.error->message);
        QVERIFY2(message.contains(term), qPrintable(message));
        QVERIFY(r.stages.empty());
    }

    // Close to the limit the counts stay exact: docs/DESIGN.md §3.7 for GPT-3 (96 layers, 96 KV
    // heads of 128) in FP32 inference, T = 1, 2048 micro-batches of 256 sequences of 131072 tokens:
    // 2 × 96 × 96 × 128 × 131072 × 524,288 × 4 = 648,518,346,341,351,424 bytes (< 2^60).
    void largestKvCacheIsExact()
    {
        const Report r = evaluate(
            scenario({"model=gpt-3-175b", "mode=inference", "precision=fp32", "microbatches=2048",
                      "microbatch_size=256", "seq_len=131072", "tp=1", "pp=1", "dp=1"}),
            m_presets);
        QVERIFY(r.ok());
        const StageReport &st = r.stages.front();
        QCOMPARE(st.kvCacheBytes, 648'518'346'341'351'424LL);
        QCOMPARE(st.totalBytes,
                 st.weightsBytes + st.kvCacheBytes + st.prefillBuffersBytes + st.reserveBytes);
        QVERIFY(!r.fits);
    }

    // docs/DESIGN.md §3.3: the default scenario must still fit with activations counted.
    void defaultScenarioStillFits()
    {
        const Report r = evaluate(Scenario{}, m_presets);
        QVERIFY(r.ok());
        QVERIFY(r.fits);
        QVERIFY(r.stages[0].activationsBytes > 0);
        QVERIFY(r.stages[3].cachedOutputsBytes > 0);
        QVERIFY(r.timeline.empty()); // only built on request
        EvaluateOptions withTimeline;
        withTimeline.timeline = true;
        // 1F1B, K = 4, m = 16: one F and one B per micro-batch and stage.
        QCOMPARE(evaluate(Scenario{}, m_presets, withTimeline).timeline.size(),
                 std::size_t(4 * 16 * 2));
    }

    // validate refuses a scenario from floating-point bounds of the byte counts evaluate then
    // makes in 64 bits; both come from the same formulas (core/activations.h). The bound repeats
    // every rounding up (FFN columns, vocabulary, KV heads over T), so below 2^53 it equals the
    // exact count: a change to one that the other does not follow fails here.
    void boundsFollowExactCounts_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::addRow("Korthikanti Table 2: GPT-3, eager, T=8, no SP, no recomputation")
            << scenario("model=gpt-3-175b,tp=8,pp=8,dp=1,seq_len=2048,attention=eager,"
                        "recompute=none,sequence_parallel=false");
        QTest::addRow("Korthikanti Table 2: GPT-3, eager, T=8, SP, selective")
            << scenario("model=gpt-3-175b,tp=8,pp=8,dp=1,seq_len=2048,attention=eager,"
                        "recompute=selective,sequence_parallel=true");
        QTest::addRow("docs/activations.md: 70B, flash, SP, full recomputation")
            << scenario("recompute=full");
        QTest::addRow("docs/activations.md: 70B, flash, no SP, full recomputation, GPipe")
            << scenario("recompute=full,sequence_parallel=false,schedule=gpipe");
        QTest::addRow("docs/activations.md: 8B FP32, eager, T=1, no recomputation")
            << scenario("model=llama-3.1-8b,precision=fp32,tp=1,pp=2,dp=1,attention=eager,"
                        "recompute=none,sequence_parallel=false,microbatch_size=2");
        QTest::addRow("docs/activations.md: 405B, eager, selective, interleaved")
            << scenario("model=llama-3.1-405b,tp=8,pp=9,dp=1,schedule=interleaved,"
                        "virtual_stages=2,microbatches=18,attention=eager,recompute=selective");
        QTest::addRow("docs/DESIGN.md §3.7: 70B inference, T=16 > 8 KV heads")
            << scenario("mode=inference,tp=16,pp=4,dp=1,seq_len=8192,microbatches=4,"
                        "microbatch_size=2");
        QTest::addRow("docs/DESIGN.md §3.7: 8B inference, FP32, T=1")
            << scenario("model=llama-3.1-8b,mode=inference,precision=fp32,tp=1,pp=1,dp=1,"
                        "microbatches=8");
        // FFN 11001 and vocabulary 32001 over T = 8: 1375.125 → 1376 columns, 4000.125 → 4001
        // logits each.
        Scenario rounded = scenario("tp=8,pp=2,dp=1,attention=eager,recompute=none");
        ModelSpec model;
        model.id = "rounded";
        model.name = "Rounded";
        model.layers = 6;
        model.hidden = 2048;
        model.heads = 16;
        model.kvHeads = 4;
        model.ffnHidden = 11001;
        model.vocab = 32001;
        model.gatedMlp = true;
        model.dropout = true;
        rounded.customModel = model;
        QTest::addRow("FFN and vocabulary not divisible by T, rounded up") << rounded;
    }
    void boundsFollowExactCounts()
    {
        QFETCH(Scenario, scenario);
        if (const auto e = validate(scenario, m_presets))
            QFAIL(e->toString().c_str());
        const ModelSpec &m = *resolveModel(scenario, m_presets);
        const ActivationConfig c = activationConfig(scenario);
        const int b = c.bytesPerValue;
        const int layers = splitLayers(m.layers, scenario.pp).front();
        const std::int64_t sequences =
            std::int64_t{scenario.microbatches} * scenario.microbatchSize;
        const auto follows = [](double bound, std::int64_t exact) {
            return exact > 0 && bound >= double(exact) && near(bound, double(exact), 1e-9);
        };
        const auto why = [](double bound, std::int64_t exact) {
            return QByteArray::number(bound, 'g', 17) + " for " + QByteArray::number(exact);
        };
        const auto check = [&](const char *term, double bound, std::int64_t exact) {
            return follows(bound, exact) ? QByteArray() : term + (": " + why(bound, exact));
        };
        for (const QByteArray &failed :
             {check("layer", layerActivationBytesBound(m, c), layerActivationBytes(m, c)),
              check("rebuilt layer", layerPeakRecomputeBytesBound(m, c),
                    layerPeakRecomputeBytes(m, c)),
              check("cached outputs",
                    cachedOutputBytesPerMicrobatchBound(m, c.seqLen, c.microbatchSize, c.tp, b),
                    cachedOutputBytesPerMicrobatch(m, c.seqLen, c.microbatchSize, c.tp, b)),
              check("KV cache", kvCacheBytesBound(m, layers, c.seqLen, sequences, c.tp, b),
                    kvCacheBytes(m, layers, c.seqLen, sequences, c.tp, b))})
            QVERIFY2(failed.isEmpty(), failed.constData());

        // What evaluate reports is what the bounds say of the scenario's own configuration.
        const Report r = evaluate(scenario, m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        const StageReport &first = r.stages.front();
        QCOMPARE(first.layers, layers);
        if (scenario.mode == Mode::inference) {
            const double kv = kvCacheBytesBound(m, layers, c.seqLen, sequences, c.tp, b);
            QVERIFY2(follows(kv, first.kvCacheBytes), why(kv, first.kvCacheBytes));
            return;
        }
        const double rebuilt =
            c.recompute == Recompute::full ? layerPeakRecomputeBytesBound(m, c) : 0;
        const double activations =
            first.inflightMicrobatches * layers * layerActivationBytesBound(m, c) + rebuilt;
        QVERIFY2(follows(activations, first.activationsBytes),
                 why(activations, first.activationsBytes));
        const double cached = scenario.microbatches * cachedOutputBytesPerMicrobatchBound(
                                                          m, c.seqLen, c.microbatchSize, c.tp, b);
        QVERIFY2(follows(cached, r.stages.back().cachedOutputsBytes),
                 why(cached, r.stages.back().cachedOutputsBytes));
    }

    // The largest term of a stage, with ties settled by the terms' fixed order (weights,
    // gradients, optimizer states, activations, cached outputs, KV cache, reserve), never by
    // where the string literals happen to lie: the answer is the same in every build.
    void largestTermTies_data()
    {
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("second");
        const int n = int(std::size(kMemoryTerms));
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                QTest::addRow("%s = %s", kMemoryTerms[a].name, kMemoryTerms[b].name) << a << b;
    }
    void largestTermTies()
    {
        QFETCH(int, first);
        QFETCH(int, second);
        StageReport stage;
        for (const MemoryTerm &term : kMemoryTerms)
            stage.*term.bytes = 1'000;
        stage.*kMemoryTerms[first].bytes = 5'000'000'000;
        stage.*kMemoryTerms[second].bytes = 5'000'000'000;
        QCOMPARE(std::string(largestMemoryTerm(stage)), std::string(kMemoryTerms[first].name));
        // One byte more decides it.
        stage.*kMemoryTerms[second].bytes += 1;
        QCOMPARE(std::string(largestMemoryTerm(stage)), std::string(kMemoryTerms[second].name));
        // Every term equal: the first of all.
        for (const MemoryTerm &term : kMemoryTerms)
            stage.*term.bytes = 7;
        QCOMPARE(std::string(largestMemoryTerm(stage)), std::string("weights"));
    }

    // The table of memory terms is the whole of a stage: its terms add up to the stage's
    // total and to capacity minus headroom, each term is a different member with its own JSON
    // key, label and column, and each is non-zero in some scenario below (training with and
    // without cached outputs, inference, a reserve), so none is a row that nothing fills.
    void termsMakeTheTotal_data()
    {
        QTest::addColumn<QStringList>("settings");
        QTest::addRow("8B DP2-PP2 (pytorch/pytorch#159251), cached outputs")
            << QStringList{"model=llama-3.1-8b", "pp=2", "dp=2", "microbatches=4"};
        QTest::addRow("70B T=8 K=4 D=2 ZeRO 2, interleaved, reserve 2.5 GiB")
            << QStringList{"tp=8",
                           "pp=4",
                           "dp=2",
                           "zero=2",
                           "schedule=interleaved",
                           "virtual_stages=2",
                           "microbatches=16",
                           "reserve_gib=2.5"};
        QTest::addRow("405B inference T=8 K=2, KV cache")
            << QStringList{"model=llama-3.1-405b", "mode=inference",   "tp=8", "pp=2", "dp=1",
                           "microbatches=4",       "microbatch_size=2"};
        QTest::addRow("70B no cached outputs, full recomputation")
            << QStringList{"tp=4", "pp=2", "dp=1", "cache_outputs=false", "recompute=full"};
        QTest::addRow("8B ZeRO-3 with DeepSpeed's gather buffer")
            << QStringList{"model=llama-3.1-8b", "framework=deepspeed", "zero=3", "pp=1", "dp=8"};
    }
    void termsMakeTheTotal()
    {
        QFETCH(QStringList, settings);
        const Report r = evaluate(scenario(settings), m_presets);
        QVERIFY2(r.ok(), r.error ? r.error->toString().c_str() : "");
        for (const StageReport &st : r.stages) {
            std::int64_t sum = 0;
            for (const MemoryTerm &term : kMemoryTerms)
                sum += st.*term.bytes;
            QCOMPARE(sum, st.totalBytes);
            QCOMPARE(st.capacityBytes - st.headroomBytes, st.totalBytes);
            QCOMPARE(memoryTermsTotal(st), st.totalBytes);
        }
    }
    void termsAreDistinctAndFilled()
    {
        const std::size_t n = std::size(kMemoryTerms);
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = a + 1; b < n; ++b) {
                QVERIFY(kMemoryTerms[a].bytes != kMemoryTerms[b].bytes);
                QVERIFY(std::string_view(kMemoryTerms[a].key) != kMemoryTerms[b].key);
                QVERIFY(std::string_view(kMemoryTerms[a].name) != kMemoryTerms[b].name);
                QVERIFY(std::string_view(kMemoryTerms[a].label) != kMemoryTerms[b].label);
            }
        for (const MemoryTerm &term : kMemoryTerms)
            QVERIFY(std::string_view(term.column).size() <= 8); // the text report's column
        std::vector<bool> filled(n, false);
        for (const char *set : {"model=llama-3.1-8b,pp=2,dp=2,microbatches=4,reserve_gib=1",
                                "model=llama-3.1-8b,mode=inference,microbatches=4",
                                "model=llama-3.1-8b,zero=3,zero_buffers=deepspeed",
                                "model=llama-3.1-8b,precision=fp8,fp8_params=false"}) {
            const Report r = evaluate(scenario(QString::fromLatin1(set)), m_presets);
            QVERIFY(r.ok());
            for (const StageReport &st : r.stages)
                for (std::size_t i = 0; i < n; ++i)
                    if (st.*kMemoryTerms[i].bytes > 0)
                        filled[i] = true;
        }
        for (std::size_t i = 0; i < n; ++i)
            QVERIFY2(filled[i], kMemoryTerms[i].name);
    }

    // An exact tie from a real scenario: 70B in BF16 with ZeRO 1 over D = 8 keeps 2 bytes of
    // weights and 2 of gradients per parameter (ZeRO paper §3.1), 12 ÷ 8 of optimizer states.
    void overflowTieNamesWeights()
    {
        Scenario s;
        s.tp = 1;
        s.pp = 1;
        s.dp = 8;
        s.zero = 1;
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QVERIFY(!r.fits);
        const StageReport &stage = r.stages.front();
        QCOMPARE(stage.gradsBytes, stage.weightsBytes);
        for (const MemoryTerm &term : kMemoryTerms)
            QVERIFY(stage.*term.bytes <= stage.weightsBytes);
        QCOMPARE(r.firstOverflowTerm, std::string("weights"));
        QVERIFY(r.hasWarning("does-not-fit"));
        QVERIFY(r.warnings.front().message.ends_with("most of it weights"));
    }

    // The first stage over its capacity is not always the one to fix first. Llama 3.1 405B on
    // K = 64, T = 8, m = 1,024 micro-batches of 8,192 tokens: the first stages hold the most
    // micro-batches' activations under 1F1B, but the last keeps every micro-batch's logits
    // (pytorch/pytorch#159251): m × s × ⌈V/T⌉ × 2 bytes = 1,024 × 8,192 × 16,032 × 2.
    void furthestOverIsNamed()
    {
        Scenario s = scenario(
            {"model=llama-3.1-405b", "pp=64", "tp=8", "dp=1", "microbatches=1024", "seq_len=8192"});
        const Report r = evaluate(s, m_presets);
        QVERIFY(r.ok());
        QVERIFY(!r.fits);
        QCOMPARE(r.stages.back().cachedOutputsBytes, std::int64_t(1024) * 8192 * 16032 * 2);
        int over = 0;
        for (const StageReport &st : r.stages)
            over += st.totalBytes > st.capacityBytes;
        QVERIFY(over > 1);
        QCOMPARE(r.overflowStages, over);
        QCOMPARE(r.firstOverflowStage, 0);
        QCOMPARE(r.firstOverflowTerm, std::string("activations"));
        QCOMPARE(r.worstOverflowStage, 63);
        QCOMPARE(r.worstOverflowTerm, std::string("cached outputs"));
        const std::string &message = r.warnings.front().message;
        QVERIFY2(message.find("; " + std::to_string(over) +
                              " stages do not fit, the furthest over stage 63 with ") !=
                     std::string::npos,
                 message.c_str());
        QVERIFY2(message.ends_with("most of it cached outputs"), message.c_str());

        // Where the first stage over is also the furthest, only the count is added; one stage
        // over, nothing.
        s.cacheOutputs = false;
        const Report first = evaluate(s, m_presets);
        QCOMPARE(first.worstOverflowStage, 0);
        QVERIFY(first.overflowStages > 1);
        QVERIFY2(first.warnings.front().message.ends_with("most of it activations; " +
                                                          std::to_string(first.overflowStages) +
                                                          " stages do not fit"),
                 first.warnings.front().message.c_str());
        s.pp = 1;
        s.microbatches = 1;
        s.seqLen = 4096;
        const Report one = evaluate(s, m_presets);
        QCOMPARE(one.overflowStages, 1);
        QCOMPARE(one.worstOverflowStage, 0);
        QVERIFY(one.warnings.front().message.find("stages do not fit") == std::string::npos);
    }

    // The planner counts what fits from memory-only reports (EvaluateOptions::memoryOnly), which
    // time no operation: every stage's terms, the verdict and the memory's warnings are the full
    // evaluation's, for each kind of pipeline and for ep_overlap's pairs, the one place where
    // memory follows the timing (an all-to-all that takes time).
    void memoryOnlyIsTheFullReportsMemory_data()
    {
        QTest::addColumn<QString>("set");
        QTest::newRow("default 70B") << QString();
        QTest::newRow("405B interleaved, ends counted")
            << "model=llama-3.1-405b,tp=8,pp=16,dp=8,microbatches=16,schedule=interleaved,"
               "virtual_stages=4,ends_in_pipeline_split=true,recompute=full,zero=1";
        QTest::newRow("does not fit: 70B at T = 1")
            << "tp=1,pp=4,dp=2,recompute=none,microbatches=32";
        QTest::newRow("zb-h1") << "schedule=zb-h1,microbatches=8";
        QTest::newRow("DualPipeV") << "schedule=dualpipev,microbatches=16,tp=4,pp=4,dp=4";
        QTest::newRow("layout") << "pp=4,pipeline_layout=Et*19|t*21|t*21|t*19L";
        QTest::newRow("Mixtral 8x7B with ep_overlap")
            << "model=mixtral-8x7b,tp=1,pp=4,dp=16,ep=8,microbatches=8,schedule=interleaved,"
               "virtual_stages=2,ep_overlap=true,recompute=selective";
        QTest::newRow("inference") << "mode=inference,tp=4,pp=2,dp=1,microbatches=4";
    }
    void memoryOnlyIsTheFullReportsMemory()
    {
        QFETCH(QString, set);
        const Scenario s = scenario(set);
        EvaluateOptions options;
        options.memoryOnly = true;
        const Report memory = evaluate(s, m_presets, options);
        const Report full = evaluate(s, m_presets);
        QVERIFY2(full.ok(), full.error ? full.error->message.c_str() : "");
        QVERIFY(memory.ok());
        QVERIFY(!memory.stepTime);
        QCOMPARE(memory.fits, full.fits);
        QCOMPARE(memory.firstOverflowStage, full.firstOverflowStage);
        QCOMPARE(memory.firstOverflowTerm, full.firstOverflowTerm);
        QCOMPARE(memory.stages.size(), full.stages.size());
        for (std::size_t i = 0; i < full.stages.size(); ++i) {
            QCOMPARE(memory.stages[i].inflightMicrobatches, full.stages[i].inflightMicrobatches);
            QCOMPARE(memory.stages[i].pairLayerBytes, full.stages[i].pairLayerBytes);
            for (const MemoryTerm &term : kMemoryTerms)
                QCOMPARE(memory.stages[i].*term.bytes, full.stages[i].*term.bytes);
            QCOMPARE(memory.stages[i].totalBytes, full.stages[i].totalBytes);
        }
        QCOMPARE(memory.hasWarning("does-not-fit"), full.hasWarning("does-not-fit"));
        if (s.epOverlap) // the row means to hold a pair's layer
            QVERIFY(std::ranges::any_of(full.stages, &StageReport::pairLayerBytes));

        // The planner's checks format no warnings about the scenario, and lose nothing else:
        // the verdict, the overflowing term, the memory and the step time stay.
        options.warnings = false;
        const Report silent = evaluate(s, m_presets, options);
        QVERIFY(!silent.hasWarning("does-not-fit"));
        QCOMPARE(silent.fits, full.fits);
        QCOMPARE(silent.firstOverflowStage, full.firstOverflowStage);
        QCOMPARE(silent.firstOverflowTerm, full.firstOverflowTerm);
        QCOMPARE(silent.stages.back().totalBytes, full.stages.back().totalBytes);
        EvaluateOptions timed;
        timed.warnings = false;
        const Report silentTimed = evaluate(s, m_presets, timed);
        QCOMPARE(silentTimed.stepTime.has_value(), full.stepTime.has_value());
        if (full.stepTime)
            QCOMPARE(silentTimed.stepTime->stepTimeS, full.stepTime->stepTimeS);
        QCOMPARE(silentTimed.hasWarning("short-step"), full.hasWarning("short-step"));
    }
};

QTEST_APPLESS_MAIN(TestStageMemory)
#include "tst_stage_memory.moc"
