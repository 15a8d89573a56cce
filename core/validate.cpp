#include "core/validate.h"

#include "core/activations.h"
#include "core/echo.h"
#include "core/fields.h"
#include "core/schedule.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace core {

namespace {

// "1.2e21": an estimate far beyond what a person counts digit by digit, to three digits.
std::string roughly(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return plainNumber(std::strtod(buffer, nullptr));
}

// The ids a scenario may name, for a message: the first dozen, then how many more.
std::string joinIds(const auto &items)
{
    constexpr std::size_t kListed = 12;
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < kListed; ++i)
        out += (out.empty() ? "" : ", ") + excerpt(items[i].id);
    if (items.size() > kListed)
        out += " and " + std::to_string(items.size() - kListed) + " more";
    return out;
}

// The byte limit as checkSizes' message writes it.
static_assert(limits::kBytes == static_cast<double>(std::int64_t{1} << 60));

// "1048576 GiB": a limit or a value in the unit the user wrote it in.
std::string inUnit(double value, std::string_view unit)
{
    return plainNumber(value) + " " + std::string(unit);
}

// Literals, not string_views: nine counts are checked on every evaluate(), and a literal is
// only measured when a message is written.
std::optional<InputError> count(const char *key, int value, int maximum, const char *what)
{
    if (value <= 0)
        return InputError{std::string(key), "must be at least 1 (" + std::string(what) + ")"};
    if (value > maximum)
        return InputError{std::string(key), "must be at most " + std::to_string(maximum) + " (" +
                                                std::string(what) + "), got " +
                                                std::to_string(value)};
    return std::nullopt;
}

// A bandwidth or peak: tiny ones would make times infinite, huge ones peaks infinite.
bool plausibleRate(double value)
{
    return value >= limits::kMinRate && value <= limits::kMaxRate;
}

std::string rateRange(std::string_view unit)
{
    return "from " + plainNumber(limits::kMinRate) + " to " + inUnit(limits::kMaxRate, unit);
}

// Upper bounds of countParams(m, 1)'s layers and embeddings, in floating point: the
// exact count in 64 bits is only taken once these are known to be small enough.
struct ParamsBound
{
    double layers = 0;
    double embeddings = 0; // input and output embeddings, learned positions, final norm
};

ParamsBound paramsBound(const ModelSpec &m)
{
    const double h = m.hidden;
    const double f = m.ffnHidden;
    // Attention 4·h·(the wider of h and the heads' width) at most (KV heads <= heads), and the
    // latent projections; MLP 3hf, or every expert's 3·h·f_e and the router; biases and norms.
    const double width =
        std::max(h, static_cast<double>(m.heads) * std::max(m.headDim(), m.valueHeadDim()));
    const double latent =
        (static_cast<double>(m.qLoraRank) + m.kvLoraRank + m.ropeHeadDim) * (h + 2 * width + 1);
    const double fe = m.expertFfnHidden;
    const double experts = static_cast<double>(m.experts) + m.sharedExperts;
    const double moe = experts * (3 * h * fe + 2 * fe + h) + (h + 1) * m.experts;
    const double perLayer =
        4 * h * width + latent + std::max(3 * h * f + 2 * f, moe) + 9 * h + 2 * width + m.heads;
    return {m.layers * perLayer, (2.0 * m.vocab + m.learnedPositions) * h + 2 * h};
}

// The virtual stages a device runs: the interleaved schedule's v, DualPipe(V)'s two, else one.
int heldChunks(const Scenario &s)
{
    return s.mode == Mode::training ? chunksPerStage(s.schedule, s.virtualStages) : 1;
}

// Stage `stage`'s transformer layers under a layout of K x heldChunks entries.
int deviceDecoders(const Scenario &s, const std::vector<LayoutStage> &layout, int stage)
{
    int out = 0;
    for (int c = 0; c < heldChunks(s); ++c) {
        const auto j = static_cast<std::size_t>(virtualStageOf(s.schedule, s.pp, stage, c));
        out += j < layout.size() ? layout[j].decoders : 0;
    }
    return out;
}

// pipeline_layout against the model and the pipeline (Megatron-core's checks,
// pipeline_parallel_layer_layout.py, validate_layer_layout: the embedding first, the loss
// last, each once, and every decoder layer placed).
std::optional<InputError> checkPipelineLayout(const Scenario &s, const ModelSpec &m)
{
    const auto error = [](const std::string &why) { return InputError{"pipeline_layout", why}; };
    const bool parameters = s.pipelineLayout == kParametersLayout;
    // DeepSpeed's pipeline engine runs one part a stage, in its own 1F1B order.
    if (parameters && s.mode == Mode::training && chunksPerStage(s.schedule, s.virtualStages) > 1)
        return error("parameters is DeepSpeed's partition, one part a stage: it places no "
                     "interleaved chunks or DualPipe copies");
    const auto parsed = parameters ? parametersLayout(s, m) : parsePipelineLayout(s.pipelineLayout);
    if (const auto *why = std::get_if<std::string>(&parsed)) {
        // A word that is not a layout was meant as one of the two the key takes.
        const bool word = std::all_of(s.pipelineLayout.begin(), s.pipelineLayout.end(), [](char c) {
            return std::isalpha(static_cast<unsigned char>(c));
        });
        return error(!parameters && word && s.pipelineLayout.size() > 1
                         ? *why + "; or a word: even (the even split) or parameters (DeepSpeed's "
                                  "partition by parameter count)"
                         : *why);
    }
    const auto &layout = std::get<std::vector<LayoutStage>>(parsed);
    if (!m.hasArchitecture())
        return error("a model given by its size alone has no layers to place");
    // DualPipeV's 2K parts are its virtual stages in the V's order (device i runs parts i and
    // 2K - 1 - i); DualPipe's devices hold mirrored copies of K stages, which a layout of
    // virtual stages does not describe.
    if (s.mode == Mode::training && s.schedule == Schedule::dualPipe)
        return error("dualpipe places its own two copies a device; the layout is for gpipe, "
                     "1f1b, zb-h1, interleaved and dualpipev");
    const int chunks = heldChunks(s);
    if (layout.size() != static_cast<std::size_t>(s.pp) * static_cast<std::size_t>(chunks))
        return error(std::to_string(layout.size()) + " stages, but pp = " + std::to_string(s.pp) +
                     (chunks > 1 ? " x virtual_stages = " + std::to_string(chunks) + " makes " +
                                       std::to_string(s.pp * chunks)
                                 : " needs " + std::to_string(s.pp)) +
                     (s.mode == Mode::training && s.schedule != Schedule::interleaved &&
                              layout.size() % static_cast<std::size_t>(s.pp) == 0 &&
                              layout.size() > static_cast<std::size_t>(s.pp)
                          ? " (more stages than pp need the interleaved schedule)"
                          : ""));
    std::int64_t decoders = 0;
    for (std::size_t j = 0; j < layout.size(); ++j) {
        decoders += layout[j].decoders;
        if (layout[j].embedding != (j == 0))
            return error("the embedding (E) goes in the first stage, once");
        if (layout[j].loss != (j + 1 == layout.size()))
            return error("the loss (L) goes in the last stage, once");
    }
    if (decoders != m.layers)
        return error(std::to_string(decoders) + " transformer layers (t), but the model has " +
                     std::to_string(m.layers));
    // Megatron-core's validate_layer_layout: as many m as --mtp-num-layers. It also lets them
    // stand in another device's last chunk ("MTP standalone"), which Parascope does not time.
    int mtp = 0;
    for (const LayoutStage &stage : layout)
        mtp += stage.mtp;
    const int trained = s.mode == Mode::training ? s.mtpLayers : 0;
    if (mtp != trained)
        return error("places " + std::to_string(mtp) + " multi-token-prediction layer" +
                     (mtp == 1 ? "" : "s") + " (m), but mtp_layers is " + std::to_string(trained) +
                     (s.mode == Mode::training ? "" : " in inference") +
                     (mtp > trained && s.mode == Mode::training
                          ? ": set mtp_layers = " + std::to_string(mtp) + " or drop the m"
                          : "") +
                     " (Megatron-LM needs them equal)");
    if (mtp > 0 && layout.back().mtp != mtp)
        return error("the multi-token-prediction layers (m) go in the last stage, beside the "
                     "loss (L): Parascope does not time Megatron-core's standalone placement");
    for (int stage = 0; stage < s.pp; ++stage)
        if (deviceDecoders(s, layout, stage) == 0 && stage != 0 && stage != s.pp - 1)
            return error("stage " + std::to_string(stage) +
                         " holds no transformer layer; each stage between the ends needs one");
    return std::nullopt;
}

// Upper bounds, in floating point, of the largest byte counts evaluate makes in 64 bits:
// the activations a stage keeps, its cached outputs and its KV cache, from the formulas
// evaluate counts them with (core/activations.h), and the tensor-parallel traffic of a step
// (docs/DESIGN.md §3.4). Each stays under limits::kBytes, so that a stage's total, their
// sum, is exact too.
std::optional<InputError> checkSizes(const Scenario &s, const ModelSpec &m)
{
    if (!m.hasArchitecture())
        return std::nullopt; // a size-only model has parameters and nothing per token
    const bool training = s.mode == Mode::training;
    const ActivationConfig act = activationConfig(s, m);
    const double h = m.hidden;
    const double value = act.bytesPerValue;
    const double tokens = static_cast<double>(s.microbatchSize) * s.seqLen;
    const double microbatches = s.microbatches;
    // The first stages take the extra layers of an uneven split (splitLayers); a layout may
    // give any stage more.
    double stageLayers = (m.layers + s.pp - 1) / s.pp;
    if (const auto layout = pipelineLayoutStages(s, m))
        for (int stage = 0; stage < s.pp; ++stage)
            stageLayers =
                std::max(stageLayers, static_cast<double>(deviceDecoders(s, *layout, stage)));
    // The loss's stage keeps multi-token prediction's layers beside its own.
    if (training)
        stageLayers += s.mtpLayers;

    const char *what = ""; // a literal: no string is built unless the limit is passed
    double bytes = 0;
    auto consider = [&](const char *term, double termBytes) {
        if (termBytes > bytes) {
            bytes = termBytes;
            what = term;
        }
    };
    if (training) {
        // Micro-batches in flight on a stage: GPipe keeps all m; 1F1B at most K, ZB-H1
        // K + 1 and interleaved K(v+1)/v, all within 2K.
        const double inflight =
            s.schedule == Schedule::gpipe ? microbatches : std::min(microbatches, 2.0 * s.pp);
        // As evaluate adds them up: every layer of every micro-batch in flight, and with full
        // recomputation one layer rebuilt whole (docs/activations.md).
        // The larger of a dense and an expert layer (docs/experts.md, "Memory").
        ActivationConfig moeAct = act;
        moeAct.moe = m.hasExperts();
        const double rebuilt = s.recompute == Recompute::full || s.recompute == Recompute::op
                                   ? std::max(layerPeakRecomputeBytesBound(m, act),
                                              layerPeakRecomputeBytesBound(m, moeAct))
                                   : 0;
        // With recompute_layers some layers keep everything: bound every layer so.
        ActivationConfig kept = act;
        ActivationConfig keptMoe = moeAct;
        if (s.recompute == Recompute::full && s.recomputeLayers > 0)
            kept.recompute = keptMoe.recompute = Recompute::none;
        // Without Transformer Engine's weight cache each micro-batch keeps a cast copy of its
        // layers' weights too, at most 2 + 2/32 bytes a parameter (MXFP8; castWeightBytesPerParam).
        double copies = 0;
        if (!s.fp8WeightCache &&
            (s.precision == Precision::fp8 || s.precision == Precision::nvfp4)) {
            const ParamCounts counts = countParams(m, s.tp, ExpertSplit{s.ep, s.expertTpDegree()});
            copies =
                (2 + 2.0 / 32) * static_cast<double>(std::max(counts.perLayer, counts.perMoeLayer));
        }
        const double perLayer =
            std::max(layerActivationBytesBound(m, kept), layerActivationBytesBound(m, keptMoe)) +
            copies;
        consider("the activations a stage keeps", inflight * stageLayers * perLayer + rebuilt);
        if (s.cacheOutputs)
            consider("the cached outputs",
                     (s.pp > 1 ? microbatches : 1.0) *
                         cachedOutputBytesPerMicrobatchBound(m, s.seqLen, s.microbatchSize, s.tp,
                                                             act.bytesPerValue));
        // The loss's buffers: 1F1B and ZB-H1 one micro-batch's, the others' at most all m
        // (heldLosses).
        const bool oneWaits = s.schedule == Schedule::oneFOneB || s.schedule == Schedule::zbH1;
        consider("the loss's buffers",
                 lossBufferBytesBound(s, m, 1 + s.mtpLayers, oneWaits ? 1 : s.microbatches,
                                      act.bytesPerValue));
    } else {
        consider("the KV cache",
                 kvCacheBytesBound(m, static_cast<int>(stageLayers), contextTokens(s),
                                   std::int64_t{s.microbatches} * s.microbatchSize, s.tp,
                                   kvBytesPerValue(s)));
        consider("the prefill buffers",
                 prefillBufferBytesBound(m, true, true, s.seqLen, s.microbatchSize, s.tp,
                                         act.bytesPerValue));
    }
    if (s.tp > 1) {
        // Shoeybi et al. 2019 §3: two all-reduces per layer forward, two backward, two more
        // with full recomputation; a ring all-reduce sends twice its payload at most.
        // (Sequence parallelism's redone all-gathers add up to one all-reduce's traffic more:
        // within the 8x between this bound and what 64 bits count.)
        const double allReduces =
            training ? (s.recompute == Recompute::full || s.recompute == Recompute::op ? 6 : 4) : 2;
        consider("the tensor-parallel traffic of a step",
                 allReduces * 2 * tokens * h * value * stageLayers * microbatches);
    }
    if (bytes <= limits::kBytes)
        return std::nullopt;
    return InputError{"seq_len", std::string(what) + " would come to about " + roughly(bytes) +
                                     " bytes per device, more than the limit of 2^60 bytes "
                                     "(1 EiB) (seq_len " +
                                     std::to_string(s.seqLen) + ", microbatch_size " +
                                     std::to_string(s.microbatchSize) + ", microbatches " +
                                     std::to_string(s.microbatches) + ")"};
}

} // namespace

const ModelSpec *resolveModel(const Scenario &s, const Presets &presets)
{
    return s.customModel ? &*s.customModel : presets.model(s.model);
}

const DeviceSpec *resolveDevice(const Scenario &s, const Presets &presets)
{
    return s.customDevice ? &*s.customDevice : presets.device(s.device);
}

int countedLayers(int layers, int stages, bool endsCounted)
{
    return endsCounted && stages > 1 ? layers + 2 : layers;
}

std::optional<std::vector<LayoutStage>> pipelineLayoutStages(const Scenario &s,
                                                             const ModelSpec &model)
{
    if (s.pipelineLayout.empty())
        return std::nullopt;
    auto parsed = s.pipelineLayout == kParametersLayout ? parametersLayout(s, model)
                                                        : parsePipelineLayout(s.pipelineLayout);
    if (auto *stages = std::get_if<std::vector<LayoutStage>>(&parsed))
        return std::move(*stages);
    return std::nullopt;
}

std::variant<std::vector<LayoutStage>, std::string> parametersLayout(const Scenario &s,
                                                                     const ModelSpec &m)
{
    if (!m.hasArchitecture())
        return std::string("a model given by its size alone has no layers to place");
    const ParamCounts counts = countParams(m, s.tp, {s.ep, s.expertTpDegree()});
    // The layer specs in order: the embedding, the layers, the final norm, the LM head.
    std::vector<double> weights;
    weights.reserve(static_cast<std::size_t>(m.layers) + 3);
    weights.push_back(static_cast<double>(counts.embedding));
    for (int i = 0; i < m.layers; ++i)
        weights.push_back(
            static_cast<double>(isMoeLayer(m, i) ? counts.perMoeLayer : counts.perLayer));
    weights.push_back(static_cast<double>(counts.finalNorm));
    weights.push_back(static_cast<double>(counts.lmHead > 0 ? counts.lmHead : counts.embedding));
    if (balancedPartitionSteps(weights.size(), s.pp) > kParametersLayoutSteps)
        return "DeepSpeed's partition of " + std::to_string(weights.size()) + " layer specs over " +
               std::to_string(s.pp) +
               " stages searches items² × stages steps, more than Parascope takes in an "
               "evaluation; write the layout out instead";
    // The last searches, kept: a drag of any slider but the model, T, E and K asks again, and
    // the planner asks of a few T, E and K in turn.
    struct Search
    {
        std::vector<double> weights;
        int stages = 0;
        std::vector<int> bounds;
    };
    constexpr std::size_t kKeptSearches = 16;
    thread_local std::vector<Search> kept;
    thread_local std::size_t next = 0;
    const auto found = std::find_if(kept.begin(), kept.end(), [&](const Search &k) {
        return k.stages == s.pp && k.weights == weights;
    });
    const std::vector<int> *bounds = nullptr;
    if (found != kept.end()) {
        bounds = &found->bounds;
    } else {
        Search search{weights, s.pp, balancedPartition(weights, s.pp)};
        if (kept.size() < kKeptSearches) {
            kept.push_back(std::move(search));
            bounds = &kept.back().bounds;
        } else {
            kept[next] = std::move(search);
            bounds = &kept[next].bounds;
            next = (next + 1) % kKeptSearches;
        }
    }
    const std::vector<int> &cuts = *bounds;
    // Items 1 to L are the layers; the final norm (item L + 1) goes with the LM head.
    const int n = m.layers + 3;
    std::vector<LayoutStage> out(static_cast<std::size_t>(s.pp));
    for (int stage = 0; stage < s.pp; ++stage) {
        LayoutStage &st = out[static_cast<std::size_t>(stage)];
        const int from = cuts[static_cast<std::size_t>(stage)];
        const int to = cuts[static_cast<std::size_t>(stage) + 1];
        st.embedding = from == 0;
        st.loss = to == n;
        st.decoders = std::max(0, std::min(to, m.layers + 1) - std::max(from, 1));
    }
    // Multi-token prediction goes with the loss.
    if (s.mode == Mode::training)
        out.back().mtp = s.mtpLayers;
    return out;
}

std::vector<int> splitLayers(int layers, int stages, bool endsCounted)
{
    std::vector<int> out(static_cast<std::size_t>(std::max(stages, 0)), 0);
    if (stages <= 0)
        return out;
    // Megatron-LM (arguments.py): with --account-for-embedding-in-pipeline-split and
    // --account-for-loss-in-pipeline-split the split is of layers + 2, and the first and last
    // stages give one each to the embedding and the loss.
    const int counted = countedLayers(layers, stages, endsCounted);
    const bool ends = counted != layers;
    for (int s = 0; s < stages; ++s)
        out[static_cast<std::size_t>(s)] = counted / stages + (s < counted % stages ? 1 : 0);
    if (ends) {
        out.front() -= 1;
        out.back() -= 1;
    }
    return out;
}

namespace {

// head_dim and multi-head latent attention (docs/experts.md, "Describing a model").
std::optional<InputError> validateAttentionShape(const ModelSpec &m)
{
    constexpr int kWidth = 1 << 16;
    if (m.headDimOverride < 0 || m.headDimOverride > kWidth)
        return InputError{"head_dim", "must be 0 (hidden / heads) to " + std::to_string(kWidth)};
    for (const auto &[key, value] :
         {std::pair{"kv_lora_rank", m.kvLoraRank}, std::pair{"q_lora_rank", m.qLoraRank},
          std::pair{"rope_head_dim", m.ropeHeadDim}, std::pair{"v_head_dim", m.vHeadDim}})
        if (value < 0 || value > kWidth)
            return InputError{key, "must be from 0 to " + std::to_string(kWidth)};
    const bool latentOnly = m.qLoraRank > 0 || m.ropeHeadDim > 0;
    if (m.kvLoraRank == 0 && latentOnly)
        return InputError{"kv_lora_rank", "q_lora_rank and rope_head_dim describe multi-head "
                                          "latent attention, which needs kv_lora_rank above 0"};
    if (m.kvLoraRank > 0 && m.headDimOverride == 0)
        return InputError{"head_dim", "multi-head latent attention needs head_dim, the query and "
                                      "key width without the rotary part"};
    if (m.kvLoraRank > 0 && m.kvHeads != m.heads)
        return InputError{"kv_heads", "multi-head latent attention gives every head its own keys "
                                      "and values: kv_heads must equal heads (" +
                                          std::to_string(m.heads) + ")"};
    return std::nullopt;
}

// Sliding-window attention (docs/experts.md, "Describing a model"): a window no longer than
// the longest sequence Parascope takes, and a period among the layers.
std::optional<InputError> validateWindow(const ModelSpec &m)
{
    if (m.slidingWindow < 0 || m.slidingWindow > limits::kSeqLen)
        return InputError{"sliding_window", "must be 0 (no window) or from 1 to " +
                                                std::to_string(limits::kSeqLen) + " tokens, got " +
                                                std::to_string(m.slidingWindow)};
    if (m.fullAttentionPeriod < 0 || m.fullAttentionPeriod > m.layers)
        return InputError{"full_attention_period",
                          "must be from 0 (every layer windowed) to layers (" +
                              std::to_string(m.layers) + "), got " +
                              std::to_string(m.fullAttentionPeriod)};
    if (m.fullAttentionPeriod > 0 && m.slidingWindow == 0)
        return InputError{"full_attention_period", "says which layers skip the sliding window, "
                                                   "but sliding_window is 0"};
    return std::nullopt;
}

std::optional<InputError> validateExperts(const ModelSpec &m)
{
    constexpr int kMostExperts = 1 << 14;
    if (m.experts < 0 || m.experts > kMostExperts)
        return InputError{"experts",
                          "must be 0 (a dense model) to " + std::to_string(kMostExperts)};
    if (m.experts == 0) {
        for (const auto &[key, value] : {std::pair{"experts_per_token", m.expertsPerToken},
                                         std::pair{"shared_experts", m.sharedExperts},
                                         std::pair{"expert_ffn_hidden", m.expertFfnHidden},
                                         std::pair{"router_groups", m.routerGroups},
                                         std::pair{"router_group_limit", m.routerGroupLimit}})
            if (value != 0)
                return InputError{key, "describes experts, but experts is 0"};
        return std::nullopt;
    }
    if (m.expertsPerToken < 1 || m.expertsPerToken > m.experts)
        return InputError{"experts_per_token", "must be from 1 to experts (" +
                                                   std::to_string(m.experts) + "), got " +
                                                   std::to_string(m.expertsPerToken)};
    if (m.sharedExperts < 0 || m.sharedExperts > kMostExperts)
        return InputError{"shared_experts", "must be from 0 to " + std::to_string(kMostExperts)};
    if (m.expertFfnHidden < 1 || m.expertFfnHidden > (1 << 20))
        return InputError{"expert_ffn_hidden", "must be from 1 to " + std::to_string(1 << 20)};
    if (m.denseLayers < 0 || m.denseLayers >= m.layers)
        return InputError{"dense_layers", "must be from 0 to layers - 1 (" +
                                              std::to_string(m.layers - 1) +
                                              "), so that some layer has experts"};
    if (m.moeLayerPeriod < 1 || m.moeLayerPeriod > m.layers - m.denseLayers)
        return InputError{"moe_layer_period", "must be from 1 to the layers after dense_layers (" +
                                                  std::to_string(m.layers - m.denseLayers) + ")"};
    // Megatron-core moe_utils.py, group_limited_topk: equal groups, a top-k that fits them.
    if (m.routerGroups < 0 || m.routerGroups > m.experts ||
        (m.routerGroups > 0 && m.experts % m.routerGroups != 0))
        return InputError{"router_groups", "must be 0 (no group limit) or divide the " +
                                               std::to_string(m.experts) + " experts, got " +
                                               std::to_string(m.routerGroups)};
    if ((m.routerGroups == 0) != (m.routerGroupLimit == 0))
        return InputError{m.routerGroups == 0 ? "router_group_limit" : "router_groups",
                          "router_groups and router_group_limit go together: the groups, and how "
                          "many of them a token may use"};
    if (m.routerGroups > 0 &&
        (m.routerGroupLimit < 1 || m.routerGroupLimit > m.routerGroups ||
         std::int64_t{m.routerGroupLimit} * (m.experts / m.routerGroups) < m.expertsPerToken))
        return InputError{"router_group_limit",
                          "must be from 1 to router_groups (" + std::to_string(m.routerGroups) +
                              ") and leave at least experts_per_token experts to choose from"};
    return std::nullopt;
}

} // namespace

std::optional<InputError> validateModel(const ModelSpec &m)
{
    auto error = [](std::string key, std::string message) {
        return InputError{"model." + key, std::move(message)};
    };
    if (m.nominalParams < 0 || static_cast<double>(m.nominalParams) > limits::kParams)
        return error("nominal_params", "must be from 0 to " +
                                           inUnit(limits::kParams, "parameters") + ", got " +
                                           plainNumber(static_cast<double>(m.nominalParams)));
    if (!m.hasArchitecture()) {
        if (m.layers < 0)
            return error("layers", "must be at least 1");
        if (m.params <= 0)
            return error("params", "a model needs its architecture (layers, hidden, heads, "
                                   "kv_heads, ffn_hidden, vocab) or a parameter count above 0");
        if (static_cast<double>(m.params) > limits::kParams)
            return error("params", "must be at most " + inUnit(limits::kParams, "parameters") +
                                       ", got " + plainNumber(static_cast<double>(m.params)));
        return std::nullopt;
    }
    if (m.hidden <= 0)
        return error("hidden", "must be at least 1");
    if (m.heads <= 0)
        return error("heads", "must be at least 1");
    if (m.hidden % m.heads != 0)
        return error("heads", std::to_string(m.heads) + " heads do not divide hidden size " +
                                  std::to_string(m.hidden));
    if (m.kvHeads <= 0 || m.kvHeads > m.heads || m.heads % m.kvHeads != 0)
        return error("kv_heads", "must divide heads (" + std::to_string(m.heads) + ")");
    if (m.ffnHidden <= 0)
        return error("ffn_hidden", "must be at least 1");
    if (m.vocab <= 0)
        return error("vocab", "must be at least 1");
    if (m.learnedPositions < 0)
        return error("learned_positions", "must be 0 (rotary) or more");
    if (m.contextWindow < 0)
        return error("context_window", "must be 0 (not stated) or more tokens");
    if (auto e = validateAttentionShape(m))
        return error(e->key, e->message);
    if (auto e = validateWindow(m))
        return error(e->key, e->message);
    if (auto e = validateExperts(m))
        return error(e->key, e->message);
    const ParamsBound bound = paramsBound(m);
    if (bound.layers + bound.embeddings > limits::kParams) {
        // Written only when refused: every evaluate() validates its model first.
        const std::string beyond =
            " parameters, more than the limit of " + inUnit(limits::kParams, "parameters");
        if (bound.layers >= bound.embeddings)
            return error("layers", std::to_string(m.layers) + " layers of hidden size " +
                                       std::to_string(m.hidden) + " and FFN size " +
                                       std::to_string(m.ffnHidden) + " come to about " +
                                       roughly(bound.layers) + beyond);
        return error("vocab", "embeddings of " + std::to_string(m.vocab) +
                                  " tokens at hidden size " + std::to_string(m.hidden) +
                                  " come to about " + roughly(bound.embeddings) + beyond);
    }
    return std::nullopt;
}

constexpr std::size_t kRateNoteChars = 500;

std::optional<InputError> validateDevice(const DeviceSpec &d)
{
    auto error = [](std::string key, std::string message) {
        return InputError{"device." + key, std::move(message)};
    };
    if (!(d.memoryGib > 0))
        return error("memory_gib", "must be above 0");
    if (d.memoryGib > limits::kGib)
        return error("memory_gib", "must be at most " + inUnit(limits::kGib, "GiB") +
                                       " (1 PiB), got " + inUnit(d.memoryGib, "GiB"));
    if (!(d.hostMemoryGb >= 0) || d.hostMemoryGb > limits::kGib)
        return error("host_memory_gb", "must be 0 (not published) or at most " +
                                           inUnit(limits::kGib, "GB") + ", got " +
                                           inUnit(d.hostMemoryGb, "GB"));
    if (d.devicesPerNode <= 0)
        return error("devices_per_node", "must be at least 1");
    for (auto [key, value] : {std::pair{"intra_node_gb_per_s", d.intraNodeGbPerS},
                              std::pair{"inter_node_gb_per_s", d.interNodeGbPerS}}) {
        if (value < 0)
            return error(key, "must not be negative");
        if (value != 0 && !plausibleRate(value))
            return error(key, "must be 0 (not published) or " + rateRange("GB/s") + ", got " +
                                  inUnit(value, "GB/s"));
    }
    for (const auto &[precision, tflops] : d.tflops)
        if (!plausibleRate(tflops))
            return error("tflops", std::string(toString(precision)) + " must be " +
                                       rateRange("TFLOPS") + ", got " + inUnit(tflops, "TFLOPS"));
    for (auto [key, value] :
         {std::pair{"hbm_gb_per_s", d.hbmGbPerS}, std::pair{"host_gb_per_s", d.hostGbPerS}})
        if (value < 0 || (value != 0 && !plausibleRate(value)))
            return error(key, "must be 0 (not published) or " + rateRange("GB/s") + ", got " +
                                  inUnit(value, "GB/s"));
    for (auto [key, value] : efficiencyFields(d))
        if (!(value == 0 || (value >= limits::kMinMfu && value <= 1)))
            return error(key, "must be 0 (not published: the default) or from " +
                                  plainNumber(limits::kMinMfu) + " to 1, got " +
                                  plainNumber(value));
    if (!(d.attentionBlockOverhead >= 0 && d.attentionBlockOverhead <= limits::kBlockOverhead))
        return error("attention_block_overhead",
                     "must be from 0 (not published) to " + plainNumber(limits::kBlockOverhead) +
                         " key tiles, got " + plainNumber(d.attentionBlockOverhead));
    if (!(d.attentionTokens == 0 ||
          (d.attentionTokens >= 1 && d.attentionTokens <= limits::kSeqLen)))
        return error("attention_tokens", "must be 0 (not published) or from 1 to " +
                                             std::to_string(limits::kSeqLen) + " tokens, got " +
                                             plainNumber(d.attentionTokens));
    for (const auto &[key, value] :
         {std::pair{"fp8_attention_speedup", d.fp8AttentionSpeedup},
          std::pair{"fp8_attention_backward_speedup", d.fp8AttentionBackwardSpeedup}})
        if (!(value == 0 || (value >= 0.25 && value <= 4)))
            return error(key, "must be 0 (not measured) or from 0.25 to 4 times the BF16 "
                              "kernel's rate, got " +
                                  plainNumber(value));
    if ((d.fp8AttentionSpeedup > 0) != (d.fp8AttentionBackwardSpeedup > 0))
        return error(d.fp8AttentionSpeedup > 0 ? "fp8_attention_backward_speedup"
                                               : "fp8_attention_speedup",
                     "fp8_attention_speedup and fp8_attention_backward_speedup go together: "
                     "give both, or neither");
    for (const auto &[name, member] : HeadWidthScale::kCurves) {
        const WidthCurve &curve = d.attentionHeadWidths.*member;
        for (std::size_t i = 0; i < curve.size(); ++i) {
            const auto [width, factor] = curve[i];
            const bool rising = i == 0 || width > curve[i - 1].first;
            if (width >= 1 && width <= limits::kHeadWidth && rising && factor >= 0.1 && factor <= 4)
                continue;
            // The key is built only for the point refused: evaluate() checks every point.
            const std::string key =
                "attention_head_widths." + std::string(name) + "[" + std::to_string(i) + "]";
            if (!(width >= 1 && width <= limits::kHeadWidth))
                return error(key, "head width must be from 1 to " +
                                      std::to_string(limits::kHeadWidth) + ", got " +
                                      plainNumber(width));
            if (!rising)
                return error(key, "head widths must increase from one point to the next, got " +
                                      plainNumber(width) + " after " +
                                      plainNumber(curve[i - 1].first));
            return error(key, "factor must be from 0.1 to 4 times the rate at the measured "
                              "width, got " +
                                  plainNumber(factor));
        }
    }
    for (const auto &[key, note] : d.rateNotes) {
        if (std::find(kRateNoteKeys.begin(), kRateNoteKeys.end(), key) == kRateNoteKeys.end())
            return error(
                "assumed_rates." + excerpt(key),
                "unknown rate; expected matmul, fp8_matmul, fp8_block_matmul, nvfp4_matmul or "
                "attention");
        // A note is a line of a warning, not a document.
        if (note.size() > kRateNoteChars)
            return error("assumed_rates." + key,
                         "must be at most " + std::to_string(kRateNoteChars) + " characters, got " +
                             std::to_string(note.size()));
    }
    // One without the other would leave the shape model with nothing to scale from.
    if ((d.attentionBlockOverhead > 0) != (d.attentionTokens > 0))
        return error(d.attentionTokens > 0 ? "attention_block_overhead" : "attention_tokens",
                     "attention_block_overhead and attention_tokens go together: give both, "
                     "or neither for one attention efficiency at every length");
    if (d.jobDevicesPerNode < 0 || d.jobDevicesPerNode > d.devicesPerNode)
        return error("job_devices_per_node", "must be from 0 (all of them) to devices_per_node (" +
                                                 std::to_string(d.devicesPerNode) + "), got " +
                                                 std::to_string(d.jobDevicesPerNode));
    if (!(d.computeCapability == 0 || (d.computeCapability >= 1 && d.computeCapability < 100)))
        return error("compute_capability",
                     "must be 0 (not given) or an NVIDIA compute capability such as 9.0 or "
                     "10.3, got " +
                         plainNumber(d.computeCapability));
    if (d.computeUnits < 0 || d.computeUnits > limits::kComputeUnits)
        return error("compute_units", "must be from 0 (not published) to " +
                                          std::to_string(limits::kComputeUnits) + ", got " +
                                          std::to_string(d.computeUnits));
    if (d.collectiveUnits < 0 || (d.collectiveUnits > 0 && d.collectiveUnits >= d.computeUnits))
        return error("collective_units",
                     "must be from 0 (not published) to one fewer than compute_units (" +
                         std::to_string(d.computeUnits) + "), got " +
                         std::to_string(d.collectiveUnits));
    if (!(d.tdpW >= 0 && d.tdpW <= limits::kTdpW))
        return error("tdp_w", "must be from 0 (not published) to " + inUnit(limits::kTdpW, "W") +
                                  ", got " + inUnit(d.tdpW, "W"));
    return std::nullopt;
}

namespace {

std::optional<InputError> validateScenario(const Scenario &s, const Presets &presets,
                                           bool presetsChecked)
{
    const ModelSpec *model = resolveModel(s, presets);
    if (!model)
        return InputError{"model", "unknown preset " + quoted(s.model) +
                                       "; known: " + joinIds(presets.models)};
    if (!presetsChecked)
        if (auto e = validateModel(*model))
            return e;
    const DeviceSpec *device = resolveDevice(s, presets);
    if (!device)
        return InputError{"device", "unknown preset " + quoted(s.device) +
                                        "; known: " + joinIds(presets.devices)};
    if (!presetsChecked)
        if (auto e = validateDevice(*device))
            return e;

    for (auto [key, value, maximum, what] : {
             std::tuple{"tp", s.tp, limits::kTensorParallel, "tensor-parallel degree"},
             std::tuple{"pp", s.pp, limits::kPipelineStages, "pipeline stages"},
             std::tuple{"dp", s.dp, limits::kDataParallel, "data-parallel degree"},
             std::tuple{"cp", s.cp, limits::kContextParallel, "context-parallel degree"},
             std::tuple{"ep", s.ep, limits::kExpertParallel, "expert-parallel degree"},
             std::tuple{"microbatches", s.microbatches, limits::kMicrobatches,
                        "micro-batches per step"},
             std::tuple{"microbatch_size", s.microbatchSize, limits::kMicrobatchSize,
                        "sequences per micro-batch"},
             std::tuple{"seq_len", s.seqLen, limits::kSeqLen, "tokens per sequence"},
             std::tuple{"virtual_stages", s.virtualStages, limits::kVirtualStages,
                        "model chunks per device"},
         })
        if (auto e = count(key, value, maximum, what))
            return e;
    if (s.dpCollectiveUnits && device->computeUnits > 0 &&
        *s.dpCollectiveUnits >= device->computeUnits)
        return InputError{"dp_collective_units", "must be fewer than the device's " +
                                                     std::to_string(device->computeUnits) +
                                                     " SMs, got " +
                                                     plainNumber(*s.dpCollectiveUnits)};
    if (s.expertTp < 0 || s.expertTp > limits::kExpertParallel)
        return InputError{"expert_tp", "must be 0 (as T) to " +
                                           std::to_string(limits::kExpertParallel) + ", got " +
                                           std::to_string(s.expertTp)};
    if (const std::int64_t devices = std::int64_t{s.tp} * s.cp * s.pp * s.dp;
        devices > limits::kDevices)
        return InputError{"dp", "T x C x K x D = " + std::to_string(devices) +
                                    " devices, more than the " + std::to_string(limits::kDevices) +
                                    " Parascope evaluates"};
    // Megatron-core parallel_state.py: the expert ranks E x expert T tile the T x C x D ranks
    // of a stage, the rest being expert data parallelism.
    if (const std::int64_t stageRanks = std::int64_t{s.tp} * s.cp * s.dp,
        expertRanks = std::int64_t{s.ep} * s.expertTpDegree();
        stageRanks % expertRanks != 0)
        return InputError{s.ep > 1 ? "ep" : "expert_tp",
                          "E x expert T = " + std::to_string(expertRanks) +
                              " must divide the T x C x D = " + std::to_string(stageRanks) +
                              " devices of a stage, which the experts are spread over"};
    if (s.cp > 1 && s.mode == Mode::inference)
        return InputError{"cp", "context parallelism splits training sequences; inference "
                                "here runs each prompt on one C = 1 group"};
    if (s.mode == Mode::training && s.recompute == Recompute::op && s.attention == Attention::eager)
        return InputError{"recompute", "op keeps the attention kernel's output, which needs "
                                       "attention flash, flash2 or flash3: eager attention's "
                                       "multiplies and softmax are not one kernel"};
    // The simulation keeps a time per micro-batch and model chunk on every stage.
    const int chunks = chunksPerStage(s.schedule, s.virtualStages);
    if (const std::int64_t cells = std::int64_t{s.pp} * s.microbatches * chunks;
        cells > limits::kScheduleCells)
        return InputError{"microbatches",
                          "pp x microbatches" +
                              std::string(isDualPipe(s.schedule) ? " x 2 chunks"
                                          : chunks > 1           ? " x virtual_stages"
                                                                 : "") +
                              " = " + std::to_string(cells) + ", more than the " +
                              std::to_string(limits::kScheduleCells) +
                              " micro-batch passes the pipeline simulation follows"};
    if (s.packedExampleTokens < 0 || s.packedExampleTokens > s.seqLen)
        return InputError{"packed_example_tokens",
                          "must be from 0 (a sequence is one example) to seq_len (" +
                              std::to_string(s.seqLen) + "), got " +
                              std::to_string(s.packedExampleTokens)};
    // The context a sequence ends with: its prompt and every token it generates.
    if (s.outputLen < 0)
        return InputError{"output_len", "must not be negative (tokens generated per sequence)"};
    if (s.outputLen > limits::kSeqLen - s.seqLen)
        return InputError{"output_len", "seq_len + output_len must be at most " +
                                            std::to_string(limits::kSeqLen) +
                                            " (tokens a sequence ends with), got " +
                                            std::to_string(std::int64_t{s.seqLen} + s.outputLen)};
    if (s.zero < 0 || s.zero > 3)
        return InputError{"zero", "must be 0, 1, 2 or 3, got " + std::to_string(s.zero)};
    if (s.zeroReplicas < 1 || s.zeroReplicas > limits::kDataParallel)
        return InputError{"zero_replicas", "must be from 1 (ZeRO over all of D x C) to " +
                                               std::to_string(limits::kDataParallel) + ", got " +
                                               std::to_string(s.zeroReplicas)};
    // torchtitan's dp_replicate x dp_shard = D (parallel_dims.py), FSDP's hybrid mesh the same.
    // Where nothing is sharded (ZeRO 0, inference) R is unused, which evaluate warns of.
    const bool hybrid = s.zeroReplicas > 1 && s.zero >= 1 && s.mode == Mode::training;
    if (hybrid && s.dp % s.zeroReplicas != 0)
        return InputError{"zero_replicas",
                          "R = " + std::to_string(s.zeroReplicas) +
                              " must divide the data-parallel degree D = " + std::to_string(s.dp) +
                              ": each replica shards over D x C / R devices"};
    if (hybrid && s.schedule == Schedule::dualPipe)
        return InputError{"zero_replicas",
                          "hybrid sharding with DualPipe's mirrored copies is not modelled; "
                          "use 1, or another schedule"};
    if (hybrid && model->hasExperts() && s.expertDp() % s.zeroReplicas != 0)
        return InputError{"zero_replicas",
                          "R = " + std::to_string(s.zeroReplicas) +
                              " must divide the routed experts' data-parallel group, T x C x D / "
                              "(E x expert T) = " +
                              std::to_string(s.expertDp()) + " devices, which shards them too"};
    for (const FieldInfo &field : scenarioFields())
        if (!allowedValue(s, field))
            return InputError{std::string(field.key), "must be " + allowedText(field)};
    if (!(s.reserveGib >= 0))
        return InputError{"reserve_gib", "must not be negative"};
    if (s.reserveGib > limits::kGib)
        return InputError{"reserve_gib", "must be at most " + inUnit(limits::kGib, "GiB") +
                                             " (1 PiB), got " + inUnit(s.reserveGib, "GiB")};
    if (s.interNodeGbPerS && !(*s.interNodeGbPerS > 0))
        return InputError{"inter_node_gb_per_s", "must be above 0, or empty for the device's"};
    if (s.interNodeGbPerS && !plausibleRate(*s.interNodeGbPerS))
        return InputError{"inter_node_gb_per_s", "must be " + rateRange("GB/s") +
                                                     ", or empty for the device's; got " +
                                                     inUnit(*s.interNodeGbPerS, "GB/s")};
    if (s.mfu && !(*s.mfu > 0 && *s.mfu <= 1))
        return InputError{"mfu", "must be above 0 and at most 1, or auto"};
    if (s.mfu && *s.mfu < limits::kMinMfu)
        return InputError{"mfu", "must be at least " + plainNumber(limits::kMinMfu) + ", got " +
                                     plainNumber(*s.mfu)};
    if (s.expertCapacityFactor &&
        !(*s.expertCapacityFactor > 0 && *s.expertCapacityFactor <= limits::kCapacityFactor))
        return InputError{"expert_capacity_factor", "must be above 0 and at most " +
                                                        plainNumber(limits::kCapacityFactor) +
                                                        ", or dropless"};
    if (!(s.expertRankLoad >= 1 && s.expertRankLoad <= limits::kExpertParallel))
        return InputError{"expert_rank_load",
                          "must be from 1 (balanced routing) to " +
                              std::to_string(limits::kExpertParallel) +
                              ", the busiest expert rank's copies over its even share; got " +
                              plainNumber(s.expertRankLoad)};
    // Megatron-core refuses the padding without a capacity to pad to (transformer_config.py:
    // "moe_expert_capacity_factor must be set to use moe_pad_expert_input_to_capacity").
    if (s.padToCapacity && !s.expertCapacityFactor)
        return InputError{"pad_to_capacity",
                          "needs expert_capacity_factor: the capacity each expert is padded to"};
    if (s.dpOverlap && !(*s.dpOverlap >= 0 && *s.dpOverlap <= 1))
        return InputError{"dp_overlap", "must be between 0 and 1"};
    if (s.dpCollectiveUnits && !(*s.dpCollectiveUnits >= 1 && *s.dpCollectiveUnits <= 1024 &&
                                 *s.dpCollectiveUnits == std::floor(*s.dpCollectiveUnits)))
        return InputError{"dp_collective_units",
                          "must be a whole number of SMs from 1 to 1024, or auto for the device's"};
    if (s.dpBucketParams && !(*s.dpBucketParams >= 1 && *s.dpBucketParams <= 1e15))
        return InputError{"dp_bucket_params",
                          "must be from 1 to 1e15 parameters, or auto for the framework's"};
    if (s.mode == Mode::training && !isTrainable(s.precision))
        return InputError{"precision", std::string(toString(s.precision)) +
                                           " is for inference only; training needs fp32, bf16, "
                                           "fp16, fp8 or nvfp4"};

    if (model->hasArchitecture()) {
        if (s.pp > model->layers)
            return InputError{"pp", std::to_string(s.pp) + " stages exceed the model's " +
                                        std::to_string(model->layers) + " layers"};
        if (s.endsInPipelineSplit && s.pp > 1) {
            const auto layers = splitLayers(model->layers, s.pp, true);
            if (std::min(layers.front(), layers.back()) < 1)
                return InputError{"ends_in_pipeline_split",
                                  std::to_string(model->layers) + " layers and the two ends over " +
                                      std::to_string(s.pp) +
                                      " stages leave the first or last stage no layer of its own"};
        }
        if (model->heads % s.tp != 0)
            return InputError{"tp", "the model's " + std::to_string(model->heads) +
                                        " attention heads do not divide by " +
                                        std::to_string(s.tp)};
    }
    // Megatron-core's transformer_config.py checks on recompute_modules.
    {
        const auto modules = parseRecomputeModules(s.recomputeModules);
        if (const auto *why = std::get_if<std::string>(&modules))
            return InputError{"recompute_modules", *why};
        const unsigned bits = std::get<unsigned>(modules);
        const bool selective = s.mode == Mode::training && s.recompute == Recompute::selective;
        if (selective && (bits & kRecomputeMlaUpProj) != 0 && !model->latentAttention())
            return InputError{"recompute_modules", "mla_up_proj needs multi-head latent "
                                                   "attention, which the model does not have"};
        if (selective && (bits & (kRecomputeLayernorm | kRecomputeMoeAct)) != 0 &&
            s.precision == Precision::fp8 && s.fp8Scaling == Fp8Scaling::delayed)
            return InputError{"recompute_modules",
                              "layernorm and moe_act need current or block FP8 scaling: "
                              "Megatron-core refuses them under delayed scaling (fp8_scaling)"};
    }
    // Megatron-LM's block method counts the layers of a stage's chunk from its first.
    if (s.recomputeLayers < 0 || (model->hasArchitecture() && s.recomputeLayers > model->layers))
        return InputError{"recompute_layers",
                          (model->hasArchitecture()
                               ? "must be from 0 (every layer) to the model's " +
                                     std::to_string(model->layers) + " layers, got "
                               : std::string("must be 0 (every layer) or more, got ")) +
                              std::to_string(s.recomputeLayers)};
    // Transformer Engine's CPU offloading as Megatron-core wires it (transformer_config.py):
    // fewer layers than the model's, one pipeline stage, no recomputation; and a host link to
    // time it over (docs/activations.md, "Offloaded layers").
    if (s.offloadLayers < 0 || (model->hasArchitecture() && s.offloadLayers >= model->layers))
        return InputError{"offload_layers",
                          (model->hasArchitecture()
                               ? "must be from 0 (none) to one fewer than the model's " +
                                     std::to_string(model->layers) + " layers, got "
                               : std::string("must be 0 (none) or more, got ")) +
                              std::to_string(s.offloadLayers)};
    if (s.offloadLayers > 0 && s.mode == Mode::training) {
        if (s.pp > 1)
            return InputError{"offload_layers",
                              "needs one pipeline stage: Megatron-core has \"no support for "
                              "Pipeline parallelism with CPU offloading\"; set pp = 1 or "
                              "offload_layers = 0"};
        if (s.recompute != Recompute::none)
            return InputError{"offload_layers",
                              "needs recompute = none: in Megatron-core \"CPU offloading does not "
                              "work when activation recomputation is enabled\""};
        if (!model->hasArchitecture())
            return InputError{"offload_layers",
                              "needs the model's layers, which a parameter count alone does not "
                              "give"};
        if (!(device->hostGbPerS > 0))
            return InputError{"offload_layers", "needs the device's link to host memory, which " +
                                                    quoted(device->name) +
                                                    " does not publish: set its host_gb_per_s"};
    }
    // Megatron-core's transformer_config.py: "Storing activation input in FP8 is supported only
    // for SwiGLU", in its fused bias_swiglu_impl (mlp.py).
    if (s.fp8ActivationInput && s.mode == Mode::training) {
        if (!model->gatedMlp)
            return InputError{"fp8_activation_input",
                              "keeps a SwiGLU's input in FP8, and this model's MLP is not gated"};
        if (!s.fusedSwiglu)
            return InputError{"fp8_activation_input",
                              "needs fused_swiglu: Megatron-core keeps the FP8 copy in its fused "
                              "SwiGLU only"};
    }
    // LoRA's rank is below the widths it adapts (Hu et al. 2021, §4: r << min(d, k)).
    if (s.loraRank > 0 && !model->hasArchitecture())
        return InputError{"lora_rank", "LoRA adapters sit beside the model's projections, and "
                                       "this model gives only a parameter count"};
    if (s.loraRank < 0 || s.loraRank > model->hidden)
        return InputError{"lora_rank",
                          "must be from 0 (every weight trained) to the model's hidden "
                          "width (" +
                              std::to_string(model->hidden) + "), got " +
                              std::to_string(s.loraRank)};
    // A probability below 1: at 1 dropout would zero every input and scale it by 1/(1 - p).
    if (!(s.loraDropout >= 0 && s.loraDropout < 1))
        return InputError{"lora_dropout", "must be a probability from 0 (none) to below 1, got " +
                                              plainNumber(s.loraDropout)};
    {
        const auto modules = parseLoraModules(s.loraModules);
        if (const auto *why = std::get_if<std::string>(&modules))
            return InputError{"lora_modules", *why};
        if (s.loraRank > 0 && std::get<unsigned>(modules) == 0)
            return InputError{"lora_modules", "names no projection for the rank-" +
                                                  std::to_string(s.loraRank) +
                                                  " adapters (lora_rank) to sit beside"};
    }
    if (s.mtpLayers < 0 || s.mtpLayers > limits::kMtpLayers)
        return InputError{"mtp_layers",
                          "must be 0 (none) to " + std::to_string(limits::kMtpLayers) +
                              " multi-token-prediction depths, got " + std::to_string(s.mtpLayers)};
    if (s.mtpLayers > 0 && !model->hasArchitecture())
        return InputError{"mtp_layers", "a model given by its size alone has no layer for "
                                        "multi-token prediction to repeat"};
    if (!s.pipelineLayout.empty())
        if (auto error = checkPipelineLayout(s, *model))
            return error;
    if (s.schedule == Schedule::interleaved) {
        // Megatron-LM's interleaved schedule needs m to be a multiple of K.
        if (s.microbatches % s.pp != 0)
            return InputError{"microbatches", "the interleaved schedule needs a multiple of pp (" +
                                                  std::to_string(s.pp) + "), got " +
                                                  std::to_string(s.microbatches)};
        // Counting the embedding and the loss as layers, the first and last stages' chunks
        // count them too. A layout places the chunks itself, and torchtitan's generated
        // parts may differ by a layer (_generate_llm_fqn_per_model_part), where Megatron-LM
        // needs equal chunks.
        if (model->hasArchitecture() && s.pipelineLayout.empty() &&
            s.framework == Framework::torchtitan &&
            std::int64_t{s.pp} * s.virtualStages >
                countedLayers(model->layers, s.pp, s.endsInPipelineSplit))
            return InputError{"virtual_stages",
                              std::to_string(s.pp * s.virtualStages) + " model parts for " +
                                  std::to_string(model->layers) +
                                  " layers: torchtitan gives each part a layer at least"};
        if (model->hasArchitecture() && s.pipelineLayout.empty() &&
            s.framework != Framework::torchtitan)
            for (int layers :
                 splitLayers(countedLayers(model->layers, s.pp, s.endsInPipelineSplit), s.pp))
                if (layers % s.virtualStages != 0)
                    return InputError{"virtual_stages", "a stage of " + std::to_string(layers) +
                                                            " layers does not split into " +
                                                            std::to_string(s.virtualStages) +
                                                            " chunks"};
    }
    if (s.schedule == Schedule::dualPipeV && s.mode == Mode::training) {
        // deepseek-ai/DualPipe, dualpipev.py, step: num_chunks >= num_ranks * 2.
        if (s.microbatches < 2 * s.pp)
            return InputError{"microbatches",
                              "DualPipeV needs at least 2 x pp = " + std::to_string(2 * s.pp) +
                                  " micro-batches, got " + std::to_string(s.microbatches)};
        // With the ends counted, the V's first chunk and its last, both on stage 0, hold a
        // layer fewer each (torchtitan's V parts, _generate_llm_fqn_per_model_part).
        if (model->hasArchitecture() && model->layers < 2 * s.pp)
            return InputError{"pp", "DualPipeV gives each stage two chunks of at least one "
                                    "layer: " +
                                        std::to_string(model->layers) + " layers cannot fill " +
                                        std::to_string(2 * s.pp) + " chunks"};
    }
    if (s.schedule == Schedule::dualPipe && s.mode == Mode::training) {
        // deepseek-ai/DualPipe, dualpipe.py, step: num_ranks % 2 == 0, num_chunks % 2 == 0 and
        // num_chunks >= num_ranks * 2 (half the micro-batches enter at each end).
        if (s.pp % 2 != 0)
            return InputError{"pp", "DualPipe pairs stage i with stage pp - 1 - i: it needs an "
                                    "even number of stages, got " +
                                        std::to_string(s.pp)};
        if (s.microbatches < 2 * s.pp || s.microbatches % 2 != 0)
            return InputError{"microbatches",
                              "DualPipe sends half the micro-batches in from each end: it needs "
                              "an even number, at least 2 x pp = " +
                                  std::to_string(2 * s.pp) + ", got " +
                                  std::to_string(s.microbatches)};
        // Each end stage runs one direction's embedding and the other's loss.
        if (s.endsInPipelineSplit)
            return InputError{"ends_in_pipeline_split",
                              "counts the embedding on the first stage and the loss on the "
                              "last; DualPipe runs both on each end stage"};
    }
    return checkSizes(s, *model);
}

} // namespace

std::optional<InputError> validate(const Scenario &s, const Presets &presets)
{
    return validateScenario(s, presets, false);
}

std::optional<InputError> validateWithPresetsChecked(const Scenario &s, const Presets &presets)
{
    return validateScenario(s, presets, true);
}

} // namespace core
