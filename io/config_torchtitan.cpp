// A torchtitan job TOML, read into a scenario and written from one (docs/import.md).
//
// The keys are those of torchtitan's torchtitan/config/job_config.py as it stood while jobs
// were TOML files (up to pytorch/torchtitan#2386, which moved them to Python).
#include "core/echo.h"
#include "core/fields.h"
#include "core/framework.h"
#include "core/validate.h"
#include "io/framework_config.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

namespace io {

namespace torchtitan_detail {

// torchtitan's model flavors with a Parascope preset: torchtitan/models/*/__init__.py.
struct Flavor
{
    std::string_view name;
    std::string_view flavor;
    std::string_view preset;
};

constexpr std::array kFlavors{
    Flavor{"llama3", "8B", "llama-3.1-8b"},      Flavor{"llama3", "70B", "llama-3.1-70b"},
    Flavor{"llama3", "405B", "llama-3.1-405b"},  Flavor{"deepseek_v3", "671B", "deepseek-v3"},
    Flavor{"qwen3", "30B-A3B", "qwen3-30b-a3b"}, Flavor{"qwen3", "235B-A22B", "qwen3-235b-a22b"},
    Flavor{"gpt_oss", "120b", "gpt-oss-120b"},
};

std::string knownFlavors()
{
    std::string out;
    for (std::size_t i = 0; i < kFlavors.size(); ++i)
        out += (i == 0 ? "" : ", ") + std::string(kFlavors[i].name) + " " +
               std::string(kFlavors[i].flavor);
    return out;
}

// How a schedule places its stages on the ranks (torchtitan/distributed/pipeline_parallel.py,
// _get_pp_rank_to_stage_indices_mapping): one stage a rank (PipelineScheduleSingle); "loop",
// rank r holding stages r, r + K, ...; "v", rank r holding exactly two, r and 2K - 1 - r.
enum class Placement
{
    single,
    loop,
    v
};

// pipeline_parallel_schedule: the names of torch.distributed.pipelining's
// get_schedule_class, and how Parascope's schedules stand for them.
struct TitanSchedule
{
    std::string_view name;
    core::Schedule schedule;
    Placement placement;
    std::string_view approximation; // empty when exact
};

constexpr std::array kSchedules{
    TitanSchedule{"1F1B", core::Schedule::oneFOneB, Placement::single, {}},
    TitanSchedule{"GPipe", core::Schedule::gpipe, Placement::single, {}},
    TitanSchedule{"Interleaved1F1B", core::Schedule::interleaved, Placement::loop, {}},
    TitanSchedule{"LoopedBFS", core::Schedule::interleaved, Placement::loop,
                  "LoopedBFS runs each local stage's micro-batches breadth-first; read as "
                  "interleaved 1F1B"},
    TitanSchedule{"InterleavedZeroBubble", core::Schedule::interleaved, Placement::loop,
                  "InterleavedZeroBubble also splits the weight gradients off; read as "
                  "interleaved 1F1B"},
    TitanSchedule{"ZBVZeroBubble", core::Schedule::zbH1, Placement::v,
                  "ZBVZeroBubble runs two stages per rank in a V; read as ZB-H1 with one"},
    // ScheduleDualPipeV is deepseek-ai/DualPipe's dualpipev.py, Parascope's dualpipev.
    TitanSchedule{"DualPipeV", core::Schedule::dualPipeV, Placement::v, {}},
};

// Sections and keys Parascope reads nothing from, and why; the longest prefix wins.
struct Skipped
{
    std::string_view prefix;
    std::string_view why;
};

constexpr std::array kSkipped{
    Skipped{"job", "where the run writes its outputs"},
    Skipped{"profiling", "profiling only"},
    Skipped{"metrics", "logging only"},
    Skipped{"checkpoint", "checkpoint files: outside the training step"},
    Skipped{"optimizer", "an optimizer value: changes what is learned, not memory or step time "
                         "(Parascope counts AdamW's two FP32 states)"},
    Skipped{"lr_scheduler", "the learning-rate schedule: no effect on memory or step time"},
    Skipped{"validation", "evaluation runs outside the training step"},
    Skipped{"compile", "torch.compile's backend and options; what it fuses is fused_elementwise"},
    Skipped{"comm", "timeouts and traces of the collectives"},
    Skipped{"memory_estimation", "torchtitan's own estimate"},
    Skipped{"fault_tolerance", "fault tolerance: outside the training step"},
    Skipped{"experimental", "custom code torchtitan imports"},
    Skipped{"debug", "seeds and determinism"},
    Skipped{"float8", "float8 options: Parascope's fp8 is the format alone"},
    Skipped{"quantize", "quantisation options: Parascope's fp8 is the format alone"},
    Skipped{"model.hf_assets_path", "the tokenizer's and weights' folder"},
    Skipped{"model.tokenizer_path", "the tokenizer's folder"},
    Skipped{"model.print_after_conversion", "logging only"},
    Skipped{"training.dataset", "the data: not part of the step's memory or time"},
    Skipped{"training.dataset_path", "the data: not part of the step's memory or time"},
    Skipped{"training.dataloader", "the data loader's workers"},
    Skipped{"training.max_norm", "gradient clipping: no effect on memory or step time"},
    Skipped{"training.steps", "how long the run is, not the step"},
    Skipped{"training.gc_freq", "Python garbage collection timing"},
    Skipped{"training.gc_debug", "Python garbage collection timing"},
    Skipped{"training.enable_cpu_offload", "CPU offloading is not modelled"},

    Skipped{"parallelism.disable_loss_parallel", "the loss's layout: not modelled"},
    Skipped{"parallelism.pipeline_parallel_schedule_csv", "a schedule from a file: not read"},
    Skipped{"parallelism.context_parallel_load_balancer",
            "the load balancer of causal attention: Parascope assumes balanced shards"},
    Skipped{"parallelism.pipeline_parallel_expert_parallel_overlap", "a DualPipeV overlap"},
    Skipped{"activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns",
            "a detail of op-level selective checkpointing"},
    Skipped{"activation_checkpoint.early_stop", "a recomputation speed-up"},
    Skipped{"activation_checkpoint.preserve_rng_state", "random state bookkeeping"},
    Skipped{"activation_checkpoint.determinism_check", "a check"},
    Skipped{"activation_checkpoint.debug", "a check"},
    Skipped{"activation_checkpoint.visualize_memory_budget_pareto", "a plot"},
};

std::string skippedWhy(const std::string &path)
{
    std::size_t best = 0;
    std::string_view why = "not a setting Parascope models";
    for (const Skipped &s : kSkipped)
        if ((path == s.prefix || path.starts_with(std::string(s.prefix) + ".")) &&
            s.prefix.size() > best) {
            best = s.prefix.size();
            why = s.why;
        }
    return std::string(why);
}

std::string valueText(const toml::node &node)
{
    if (const auto *s = node.as_string())
        return s->get();
    std::ostringstream os;
    if (const auto *i = node.as_integer())
        os << i->get();
    else if (const auto *f = node.as_floating_point())
        os << f->get();
    else if (const auto *b = node.as_boolean())
        os << (b->get() ? "true" : "false");
    else if (const auto *a = node.as_array()) {
        os << "[";
        for (std::size_t k = 0; k < a->size(); ++k)
            os << (k ? ", " : "") << valueText(*a->get(k));
        os << "]";
    } else
        os << "(table)";
    return os.str();
}

// Every leaf key of the document, dotted.
void leaves(const toml::table &table, const std::string &prefix,
            std::vector<std::pair<std::string, const toml::node *>> &out)
{
    for (const auto &[key, node] : table) {
        const std::string path =
            prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
        if (const auto *t = node.as_table())
            leaves(*t, path, out);
        else
            out.emplace_back(path, &node);
    }
}

class Reader
{
public:
    Reader(const toml::table &doc, const core::Scenario &base, const core::Presets &presets,
           const ImportOptions &options, ImportedConfig &out)
        : m_doc(doc), m_base(base), m_presets(presets), m_options(options), m_out(out)
    {}

    std::optional<core::InputError> read()
    {
        core::Scenario s = m_base;
        core::applyFramework(s, core::Framework::torchtitan);
        // torchtitan's MoE routes every token (token-choice top-k, no capacity to drop or pad
        // to: docs/experts.md, "Capacity"), whatever the starting scenario had.
        s.expertCapacityFactor.reset();
        s.padToCapacity = false;
        // Multi-token prediction is a model-registry argument (num_mtp_layers), not a key of
        // the job's configuration: none unless the model says so.
        s.mtpLayers = 0;
        s.recomputeModules = "core_attn"; // Megatron-LM's list; torchtitan has its own modes
        for (auto step :
             {&Reader::readModel, &Reader::readParallelism, &Reader::readBatch,
              &Reader::readPipeline, &Reader::readCheckpointing, &Reader::readPrecision})
            if (auto error = (this->*step)(s))
                return error;
        std::vector<std::pair<std::string, const toml::node *>> all;
        leaves(m_doc, {}, all);
        for (const auto &[path, node] : all)
            if (!m_read.count(path))
                m_out.ignored.push_back({path, skippedWhy(path)});
        m_out.scenario = s;
        return std::nullopt;
    }

private:
    const toml::node *find(const std::string &path) const { return m_doc.at_path(path).node(); }

    void note(const std::string &path, const std::string &key)
    {
        if (const toml::node *n = find(path)) {
            m_read.insert(path);
            m_out.read.push_back({path, valueText(*n), key});
        }
    }

    std::variant<long long, core::InputError> integer(const std::string &path, long long fallback,
                                                      const std::string &key, long long min = 1)
    {
        const toml::node *n = find(path);
        if (!n)
            return fallback;
        note(path, key);
        const auto *v = n->as_integer();
        if (!v || v->get() < min || v->get() > 1'000'000'000)
            return core::InputError{path, "expects a whole number of at least " +
                                              std::to_string(min) + ", not " + valueText(*n)};
        return v->get();
    }

    std::variant<std::string, core::InputError> text(const std::string &path, std::string fallback,
                                                     const std::string &key)
    {
        const toml::node *n = find(path);
        if (!n)
            return fallback;
        note(path, key);
        if (!n->is_string())
            return core::InputError{path, "expects a string, not " + valueText(*n)};
        return n->as_string()->get();
    }

    std::variant<bool, core::InputError> boolean(const std::string &path, bool fallback,
                                                 const std::string &key)
    {
        const toml::node *n = find(path);
        if (!n)
            return fallback;
        note(path, key);
        if (!n->is_boolean())
            return core::InputError{path, "expects true or false, not " + valueText(*n)};
        return n->as_boolean()->get();
    }

    std::optional<core::InputError> readModel(core::Scenario &s)
    {
        // job_config.py: Model.name "llama3", Model.flavor "debugmodel".
        const auto name = text("model.name", "llama3", "model");
        if (auto *e = std::get_if<core::InputError>(&name))
            return *e;
        const auto flavor = text("model.flavor", "debugmodel", "model");
        if (auto *e = std::get_if<core::InputError>(&flavor))
            return *e;
        for (const Flavor &f : kFlavors)
            if (f.name == std::get<std::string>(name) &&
                f.flavor == std::get<std::string>(flavor)) {
                if (!m_presets.model(f.preset))
                    return core::InputError{"model.flavor", "the preset " + std::string(f.preset) +
                                                                " is not loaded"};
                core::setField(s, "model", f.preset);
                m_model = m_presets.model(f.preset);
                return std::nullopt;
            }
        return core::InputError{
            "model.flavor",
            "'" + std::get<std::string>(name) + "' '" + std::get<std::string>(flavor) +
                "' is not a flavor Parascope has a preset for; known: " + knownFlavors()};
    }

    std::optional<core::InputError> readParallelism(core::Scenario &s)
    {
        const auto degree = [&](const char *path, long long fallback, const char *key,
                                int &into) -> std::optional<core::InputError> {
            const auto v = integer(path, fallback, key);
            if (auto *e = std::get_if<core::InputError>(&v))
                return *e;
            into = int(std::get<long long>(v));
            return std::nullopt;
        };
        // job_config.py Parallelism: every degree 1 by default, data_parallel_shard_degree -1.
        int replicate = 1, tp = 1, pp = 1, cp = 1, ep = 1, etp = 1;
        for (const auto &[path, key, into] :
             {std::tuple{"parallelism.data_parallel_replicate_degree", "dp", &replicate},
              std::tuple{"parallelism.tensor_parallel_degree", "tp", &tp},
              std::tuple{"parallelism.pipeline_parallel_degree", "pp", &pp},
              std::tuple{"parallelism.context_parallel_degree", "cp", &cp},
              std::tuple{"parallelism.expert_parallel_degree", "ep", &ep},
              std::tuple{"parallelism.expert_tensor_parallel_degree", "expert_tp", &etp}})
            if (auto e = degree(path, 1, key, *into))
                return e;
        s.tp = tp;
        s.pp = pp;
        s.cp = cp;
        s.ep = ep;
        // Without expert parallelism the experts follow the tensor-parallel plan.
        s.expertTp = ep > 1 ? etp : 0;
        const std::string shardPath = "parallelism.data_parallel_shard_degree";
        const toml::node *shardNode = find(shardPath);
        long long shard = -1;
        if (shardNode) {
            note(shardPath, "dp");
            const auto *v = shardNode->as_integer();
            if (!v || v->get() == 0 || v->get() < -1 || v->get() > 1'000'000'000)
                return core::InputError{shardPath, "expects -1 or a whole number of at least "
                                                   "1, not " +
                                                       valueText(*shardNode)};
            shard = v->get();
        }
        const long long others = 1LL * replicate * tp * pp * cp;
        if (shard == -1) {
            // -1: the ranks left after the other degrees (job_config.py).
            long long world = 0;
            if (m_options.devices) {
                world = *m_options.devices;
            } else {
                world = m_base.devices();
                m_out.assumptions.push_back(
                    "data_parallel_shard_degree = -1 takes the world size, which is not in the "
                    "file: kept " +
                    std::to_string(world) + " devices from the starting scenario; give --devices");
            }
            if (world % others != 0)
                return core::InputError{
                    shardPath, "-1 needs a world size that is a multiple of replicate x "
                               "T x K x C = " +
                                   std::to_string(others) + ", not " + std::to_string(world)};
            shard = world / others;
        } else if (m_options.devices && others * shard != *m_options.devices) {
            return core::InputError{shardPath, "the degrees make " +
                                                   std::to_string(others * shard) +
                                                   " devices, not the " +
                                                   std::to_string(*m_options.devices) + " given"};
        }
        if (replicate * shard > 1'000'000'000)
            return core::InputError{shardPath, "more than a billion data-parallel replicas"};
        s.dp = int(replicate * shard);
        m_shard = int(shard);
        // FSDP2 shards over the fsdp mesh, dp_shard x cp, whenever either is above 1
        // (parallel_dims.py, fsdp_enabled): context parallelism alone shards over its C ranks.
        // HSDP: FSDP2 over a (dp_replicate, fsdp) mesh (llama3/infra/parallelize.py), each of
        // the r replicas sharding over its s x C ranks and the replicas all-reducing the shards'
        // gradients. With s = C = 1 it is DDP over r (apply_ddp).
        const bool fsdp = shard > 1 || cp > 1;
        s.zeroReplicas = fsdp && replicate > 1 ? replicate : 1;
        if (s.zeroReplicas > 1)
            for (ConfigField &field : m_out.read)
                if (field.name == "parallelism.data_parallel_replicate_degree")
                    field.key = "dp, zero_replicas";
        // FSDP2's reshard_after_forward (docs/frameworks.md): resharded after the forward
        // without pipelining (ZeRO-3), kept with it (ZeRO-1); llama3/infra/parallelize.py.
        const auto policy = text("parallelism.fsdp_reshard_after_forward", "default", "zero");
        if (auto *e = std::get_if<core::InputError>(&policy))
            return *e;
        const std::string &p = std::get<std::string>(policy);
        if (p != "default" && p != "always" && p != "never")
            return core::InputError{"parallelism.fsdp_reshard_after_forward",
                                    "expects default, always or never, not '" + p + "'"};
        const bool reshard = p == "always" || (p == "default" && pp == 1);
        s.zero = !fsdp ? 0 : reshard ? 3 : pp > 1 ? 1 : 2;
        if (fsdp && p == "never" && pp == 1)
            m_out.assumptions.push_back("fsdp_reshard_after_forward = never without pipelining: "
                                        "parameters stay gathered, gradients sharded: ZeRO-2");
        const auto async = boolean("parallelism.enable_async_tensor_parallel", false, "tp_overlap");
        if (auto *e = std::get_if<core::InputError>(&async))
            return *e;
        s.tpOverlap = std::get<bool>(async);
        // torchtitan's tensor-parallel plan shards the norms' sequence (SequenceParallel).
        s.sequenceParallel = tp > 1;
        const auto rotate =
            text("parallelism.context_parallel_rotate_method", "allgather", "cp_exchange");
        if (auto *e = std::get_if<core::InputError>(&rotate))
            return *e;
        const auto exchange = core::parseEnum<core::CpExchange>(std::get<std::string>(rotate));
        if (!exchange || *exchange == core::CpExchange::ring)
            return core::InputError{"parallelism.context_parallel_rotate_method",
                                    "expects allgather or alltoall"};
        s.cpExchange = *exchange;
        // job_config.py (from pytorch/torchtitan#2107): expert_parallel_comm_backend
        // "standard", PyTorch's all-to-all, or "deepep", DeepEP's kernels, which send a token
        // once to each node (ep_dispatcher=flex, docs/experts.md). deepseek_v3's
        // infra/parallelize.py refuses DeepEP with E = 1 or expert tensor parallelism.
        const auto backend =
            text("parallelism.expert_parallel_comm_backend", "standard", "ep_dispatcher");
        if (auto *e = std::get_if<core::InputError>(&backend))
            return *e;
        const std::string &b = std::get<std::string>(backend);
        if (b != "standard" && b != "deepep")
            return core::InputError{"parallelism.expert_parallel_comm_backend",
                                    "expects standard or deepep, not '" + b + "'"};
        s.epDispatcher = b == "deepep" ? core::EpDispatcher::flex : core::EpDispatcher::alltoall;
        if (b == "deepep" && (ep == 1 || etp > 1))
            m_out.assumptions.push_back(
                std::string("expert_parallel_comm_backend = \"deepep\" with ") +
                (ep == 1 ? "expert_parallel_degree = 1" : "expert_tensor_parallel_degree > 1") +
                ": torchtitan refuses it (DeepEP needs E > 1 and no expert tensor parallelism); "
                "read as asked");
        return std::nullopt;
    }

    std::optional<core::InputError> readBatch(core::Scenario &s)
    {
        // job_config.py: local_batch_size 8. Without pipelining it is the micro-batch.
        // Before pytorch/torchtitan#1238 (gradient accumulation) it was training.batch_size.
        const std::string localPath =
            find("training.local_batch_size") || !find("training.batch_size")
                ? "training.local_batch_size"
                : "training.batch_size";
        const auto local = integer(localPath, 8, s.pp > 1 ? "microbatches" : "microbatch_size");
        if (auto *e = std::get_if<core::InputError>(&local))
            return *e;
        const auto micro =
            integer("parallelism.pipeline_parallel_microbatch_size", 1, "microbatch_size");
        if (auto *e = std::get_if<core::InputError>(&micro))
            return *e;
        const long long perRank = std::get<long long>(local);
        const long long perStep = perRank * s.dp;
        // train.py: global batch = local x D x gradient accumulation steps; -1: one step.
        const auto global = integer("training.global_batch_size", -1, "microbatches", -1);
        if (auto *e = std::get_if<core::InputError>(&global))
            return *e;
        long long g = std::get<long long>(global);
        if (g == 0)
            return core::InputError{"training.global_batch_size", "expects -1 or at least 1"};
        if (g < 0)
            g = perStep;
        if (g % perStep != 0)
            return core::InputError{"training.global_batch_size",
                                    std::to_string(g) +
                                        " is not a multiple of local_batch_size "
                                        "x D = " +
                                        std::to_string(perRank) + " x " + std::to_string(s.dp) +
                                        " = " + std::to_string(perStep)};
        const long long accumulation = g / perStep;
        if (s.pp > 1) {
            // pipeline_parallel.py: n_microbatches = local_batch_size / microbatch size.
            const long long b = std::get<long long>(micro);
            if (perRank % b != 0)
                return core::InputError{"parallelism.pipeline_parallel_microbatch_size",
                                        "must divide training.local_batch_size (" +
                                            std::to_string(perRank) + ")"};
            if (perRank / b * accumulation > 1'000'000'000)
                return core::InputError{"training.global_batch_size",
                                        "more than a billion micro-batches per step"};
            s.microbatchSize = int(b);
            s.microbatches = int(perRank / b * accumulation);
            m_localPath = localPath;
            m_localBatch = perRank;
            m_pipelineMicrobatchSize = b;
            if (accumulation > 1)
                m_out.assumptions.push_back(std::to_string(accumulation) +
                                            " gradient accumulation steps, each a "
                                            "pipeline of " +
                                            std::to_string(perRank / b) +
                                            " micro-batches: Parascope runs one pipeline of all " +
                                            std::to_string(s.microbatches));
        } else {
            s.microbatchSize = int(perRank);
            s.microbatches = int(accumulation);
        }
        const auto seq = integer("training.seq_len", 2048, "seq_len");
        if (auto *e = std::get_if<core::InputError>(&seq))
            return *e;
        s.seqLen = int(std::get<long long>(seq));
        return std::nullopt;
    }

    std::optional<core::InputError> readPipeline(core::Scenario &s)
    {
        const auto name = text("parallelism.pipeline_parallel_schedule", "1F1B", "schedule");
        if (auto *e = std::get_if<core::InputError>(&name))
            return *e;
        s.schedule = core::Schedule::oneFOneB;
        s.virtualStages = 1;
        if (s.pp == 1)
            return std::nullopt;
        const TitanSchedule *schedule = nullptr;
        for (const TitanSchedule &t : kSchedules)
            if (t.name == std::get<std::string>(name))
                schedule = &t;
        if (!schedule) {
            std::string known;
            for (const TitanSchedule &t : kSchedules)
                known += (known.empty() ? "" : ", ") + std::string(t.name);
            return core::InputError{"parallelism.pipeline_parallel_schedule",
                                    "'" + std::get<std::string>(name) +
                                        "' is not a schedule Parascope models; known: " + known};
        }
        s.schedule = schedule->schedule;
        if (!schedule->approximation.empty())
            m_out.assumptions.push_back(std::string(schedule->approximation));
        // pipeline_llm takes the modules of each model part from module_fqns_per_model_part
        // instead of generating them (distributed/pipeline_parallel.py).
        if (const toml::node *parts = find("parallelism.module_fqns_per_model_part")) {
            // The V's parts are DualPipeV's virtual stages; ZBVZeroBubble, read as ZB-H1 with
            // one chunk a stage, has no place for two.
            if (schedule->placement == Placement::v && s.schedule != core::Schedule::dualPipeV)
                return core::InputError{"parallelism.module_fqns_per_model_part",
                                        "Parascope reads " + std::string(schedule->name) +
                                            " with one chunk a rank, which two parts a rank do "
                                            "not fit; remove it to import"};
            return readModuleParts(s, *parts, schedule->placement != Placement::single);
        }
        // The embedding's and the output's weights in the generated split.
        const std::string weightKey = "ends_in_pipeline_split";
        const auto first =
            integer("parallelism.pipeline_parallel_first_stage_less_layers", 1, weightKey, 0);
        if (auto *e = std::get_if<core::InputError>(&first))
            return *e;
        const auto last =
            integer("parallelism.pipeline_parallel_last_stage_less_layers", 1, weightKey, 0);
        if (auto *e = std::get_if<core::InputError>(&last))
            return *e;
        const int in = int(std::get<long long>(first)), out = int(std::get<long long>(last));
        if (schedule->placement == Placement::single)
            return readStageWeights(s, in, out, s.pp, schedule->placement);
        const std::string scheduleName(schedule->name);
        // torch.distributed.pipelining, ScheduleDualPipeV: at least as many micro-batches as
        // stages in the pipeline each accumulation step runs (pipeline_parallel.py:
        // n_microbatches = local_batch_size / pipeline_parallel_microbatch_size).
        if (const long long m = m_localBatch / m_pipelineMicrobatchSize;
            s.schedule == core::Schedule::dualPipeV && m < 2LL * s.pp)
            return core::InputError{m_localPath,
                                    "local batch " + std::to_string(m_localBatch) +
                                        " / pipeline_parallel_microbatch_size " +
                                        std::to_string(m_pipelineMicrobatchSize) + " = " +
                                        std::to_string(m) +
                                        " micro-batches a pipeline; DualPipeV needs at least one a "
                                        "stage: 2 x pipeline_parallel_degree = " +
                                        std::to_string(2 * s.pp)};
        // pipeline_parallel.py: stages = ceil((layers + first less + last less) / layers per
        // stage), or 2 per rank for a multi-stage schedule; the V takes exactly 2 per rank.
        const std::string key = schedule->placement == Placement::v ? "schedule" : "virtual_stages";
        int v = 2;
        const auto perStage = integer("parallelism.pipeline_parallel_layers_per_stage", 0, key, 0);
        if (auto *e = std::get_if<core::InputError>(&perStage))
            return *e;
        if (const long long lps = std::get<long long>(perStage); lps > 0) {
            const long long weighted = m_model->layers + in + out;
            const long long stages = (weighted + lps - 1) / lps;
            if (schedule->placement == Placement::v && stages != 2LL * s.pp)
                return core::InputError{"parallelism.pipeline_parallel_layers_per_stage",
                                        "makes " + std::to_string(stages) + " stages; " +
                                            scheduleName +
                                            " places exactly two on each rank: 2 x "
                                            "pipeline_parallel_degree = " +
                                            std::to_string(2 * s.pp)};
            if (stages % s.pp != 0 || stages / s.pp < 2)
                return core::InputError{"parallelism.pipeline_parallel_layers_per_stage",
                                        "makes " + std::to_string(stages) +
                                            " stages, not a multiple of at least 2 x "
                                            "pipeline_parallel_degree (" +
                                            std::to_string(s.pp) + ")"};
            v = int(stages / s.pp);
        }
        if (schedule->placement == Placement::loop)
            s.virtualStages = v;
        return readStageWeights(s, in, out, s.pp * v, schedule->placement);
    }

    // pipeline_parallel_first_stage_less_layers and _last_stage_less_layers (1 each by
    // default): the generated parts count the embedding and the output as that many layers
    // (_generate_llm_fqn_per_model_part). One each is ends_in_pipeline_split, none the plain
    // split; other weights make parts that a pipeline_layout writes out, where the V's two
    // chunks a rank, which Parascope places by its split, cannot take them.
    std::optional<core::InputError> readStageWeights(core::Scenario &s, int in, int out, int parts,
                                                     Placement placement)
    {
        if ((in == 1 && out == 1) || (in == 0 && out == 0)) {
            s.endsInPipelineSplit = in == 1;
            return std::nullopt;
        }
        const std::string key = "parallelism.pipeline_parallel_first_stage_less_layers";
        if (placement == Placement::v)
            return core::InputError{key, "weights of " + std::to_string(in) + " and " +
                                             std::to_string(out) +
                                             ": Parascope's V counts the ends as a layer each "
                                             "or not at all"};
        const int layers = m_model->layers;
        const int effective = layers + in + out;
        const int per = effective / parts, extra = effective % parts;
        // The generator's own checks: a layer a part, and no end heavier than a part.
        if (per == 0 || in > per || out > per)
            return core::InputError{key, std::to_string(parts) + " parts of " +
                                             std::to_string(effective) +
                                             " weighted layers leave an end heavier than a part "
                                             "(torchtitan refuses it)"};
        std::vector<int> decoders(static_cast<std::size_t>(parts));
        for (int i = 0; i < parts; ++i)
            decoders[static_cast<std::size_t>(i)] =
                per + (i < extra ? 1 : 0) - (i == 0 ? in : 0) - (i == parts - 1 ? out : 0);
        s.endsInPipelineSplit = false;
        s.pipelineLayout = core::pipelineLayoutText(core::layoutOfCounts(decoders));
        m_out.assumptions.push_back("the ends weighted " + std::to_string(in) + " and " +
                                    std::to_string(out) +
                                    " layers: written out as "
                                    "pipeline_layout " +
                                    s.pipelineLayout);
        return std::nullopt;
    }

    // The model parts as module names: tok_embeddings in the first, layers.N in order, norm
    // and lm_head (output before 2026) in the last; read as the layout they make, one entry a
    // part, j = c·K + s as the looped schedules place them.
    std::optional<core::InputError> readModuleParts(core::Scenario &s, const toml::node &node,
                                                    bool looped)
    {
        const std::string path = "parallelism.module_fqns_per_model_part";
        note(path, "pipeline_layout");
        const auto refuse = [&path](const std::string &why) { return core::InputError{path, why}; };
        const auto *outer = node.as_array();
        if (!outer || outer->empty())
            return refuse("expects a list of lists of module names, not " + valueText(node));
        std::vector<core::LayoutStage> stages;
        int next = 0;
        for (const toml::node &part : *outer) {
            const auto *inner = part.as_array();
            if (!inner)
                return refuse("expects a list of module names a part, not " + valueText(part));
            core::LayoutStage stage;
            for (const toml::node &module : *inner) {
                const auto *name = module.as_string();
                const std::string text = name ? name->get() : valueText(module);
                if (text == "tok_embeddings") {
                    stage.embedding = true;
                } else if (text == "lm_head" || text == "output") {
                    stage.loss = true;
                } else if (text == "norm") {
                    // the final norm, beside the LM head
                } else if (text == "layers." + std::to_string(next)) {
                    ++stage.decoders;
                    ++next;
                } else {
                    return refuse("'" + text + "' where layers." + std::to_string(next) +
                                  " comes next: Parascope places tok_embeddings, layers.N in "
                                  "order, norm and lm_head");
                }
            }
            stages.push_back(stage);
        }
        if (m_model && next != m_model->layers)
            return refuse("places " + std::to_string(next) + " of the model's " +
                          std::to_string(m_model->layers) + " layers");
        if (!stages.front().embedding || !stages.back().loss)
            return refuse("tok_embeddings goes in the first part and lm_head in the last");
        if (s.schedule == core::Schedule::dualPipeV &&
            stages.size() != 2 * static_cast<std::size_t>(s.pp))
            return refuse(std::to_string(stages.size()) + " parts for " + std::to_string(s.pp) +
                          " ranks; DualPipeV runs two a rank");
        if (stages.size() % static_cast<std::size_t>(s.pp) != 0 ||
            (!looped && stages.size() != static_cast<std::size_t>(s.pp)))
            return refuse(std::to_string(stages.size()) + " parts for " + std::to_string(s.pp) +
                          " ranks" + (looped ? "" : ", one a rank under this schedule"));
        s.pipelineLayout = core::pipelineLayoutText(stages);
        s.endsInPipelineSplit = false; // the parts place the ends themselves
        if (looped && s.schedule == core::Schedule::interleaved)
            s.virtualStages = static_cast<int>(stages.size()) / s.pp;
        return std::nullopt;
    }

    std::optional<core::InputError> readCheckpointing(core::Scenario &s)
    {
        // job_config.py: ActivationCheckpoint.mode "selective", selective_ac_option "2".
        const auto mode = text("activation_checkpoint.mode", "selective", "recompute");
        if (auto *e = std::get_if<core::InputError>(&mode))
            return *e;
        const auto option = text("activation_checkpoint.selective_ac_option", "2", "recompute");
        if (auto *e = std::get_if<core::InputError>(&option))
            return *e;
        std::string m = std::get<std::string>(mode);
        std::transform(m.begin(), m.end(), m.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        if (m == "none" || m == "noac") {
            s.recompute = core::Recompute::none;
        } else if (m == "full" || m == "fullac") {
            s.recompute = core::Recompute::full;
        } else if (m == "selectiveac") {
            // SelectiveAC is the per-op policy; it has no layer option.
            s.recompute = core::Recompute::op;
        } else if (m == "selective") {
            const std::string &o = std::get<std::string>(option);
            // "op" (the default since SelectiveAC) keeps every second multiply and the
            // attention output: recompute=op (docs/activations.md).
            s.recompute = o == "1"    ? core::Recompute::full
                          : o == "op" ? core::Recompute::op
                                      : core::Recompute::selective;
            if (o != "op" && o != "1")
                m_out.assumptions.push_back(
                    "selective_ac_option = \"" + o + "\": every " + o +
                    "th block fully checkpointed, the others not; read as selective");
        } else if (m == "memory_budget") {
            s.recompute = core::Recompute::selective;
            note("activation_checkpoint.memory_budget", "recompute");
            m_out.assumptions.push_back("mode = memory_budget: the compiler picks what to save; "
                                        "read as selective");
        } else {
            return core::InputError{"activation_checkpoint.mode",
                                    "expects none, selective, full or memory_budget, not '" + m +
                                        "'"};
        }
        if (!find("activation_checkpoint.mode"))
            m_out.assumptions.push_back("no activation_checkpoint.mode: torchtitan's default "
                                        "\"selective\"");
        return std::nullopt;
    }

    std::optional<core::InputError> readPrecision(core::Scenario &s)
    {
        const auto param = text("training.mixed_precision_param", "bfloat16", "precision");
        if (auto *e = std::get_if<core::InputError>(&param))
            return *e;
        const std::string &p = std::get<std::string>(param);
        if (p != "bfloat16" && p != "float32")
            return core::InputError{"training.mixed_precision_param",
                                    "expects bfloat16 or float32, not '" + p + "'"};
        s.precision = p == "float32" ? core::Precision::fp32 : core::Precision::bf16;
        const auto reduce = text("training.mixed_precision_reduce", "float32", "grad_precision");
        if (auto *e = std::get_if<core::InputError>(&reduce))
            return *e;
        if (std::get<std::string>(reduce) != "float32")
            return core::InputError{"training.mixed_precision_reduce", "expects float32"};
        s.gradPrecision = core::Precision::fp32;
        if (const toml::node *dtype = find("training.dtype")) {
            note("training.dtype", "precision");
            if (valueText(*dtype) == "bfloat16")
                m_out.assumptions.push_back(
                    "training.dtype = bfloat16 keeps no FP32 copy of the weights; Parascope "
                    "counts mixed precision's");
        }
        // A float8 converter swaps nn.Linear for Float8Linear (model.converters,
        // components/quantization/float8.py).
        bool fp8 = false;
        if (const toml::node *converters = find("model.converters")) {
            note("model.converters", "precision");
            if (const auto *a = converters->as_array())
                for (const toml::node &c : *a)
                    if (const auto *text = c.as_string();
                        text &&
                        (text->get() == "float8" || text->get() == "quantize.linear.float8"))
                        fp8 = true;
        }
        // Float8Linear keeps the weights in their own dtype; FSDP2 gathers them in FP8 with
        // enable_fsdp_float8_all_gather (off by default: config/job_config.py, Float8Linear,
        // before February 2026, under [float8] in older releases).
        s.fp8Params = false;
        for (const char *path : {"quantize.linear.float8.enable_fsdp_float8_all_gather",
                                 "float8.enable_fsdp_float8_all_gather"}) {
            if (!find(path))
                continue;
            const auto gather = boolean(path, false, "fp8_params");
            if (auto *e = std::get_if<core::InputError>(&gather))
                return *e;
            s.fp8Params = std::get<bool>(gather);
        }
        if (fp8)
            s.precision = core::Precision::fp8;
        else if (find("float8") || find("quantize.linear.float8")) {
            m_out.assumptions.push_back("float8 options without a float8 entry in "
                                        "model.converters: float8 is off");
        }
        // torch.compile fuses the norms, RoPE and feed-forward of what it compiles: the model
        // unless compile.components leaves it out (job_config.py); training.compile is the
        // older key.
        for (const std::string key : {"compile.enable", "training.compile"})
            if (const toml::node *on = find(key)) {
                note(key, "fused_elementwise");
                bool model = true;
                if (const toml::node *parts = find("compile.components");
                    parts && parts->as_array()) {
                    note("compile.components", "fused_elementwise");
                    model = false;
                    for (const toml::node &part : *parts->as_array())
                        model = model || (part.as_string() && part.as_string()->get() == "model");
                }
                s.fusedElementwise = on->is_boolean() && on->as_boolean()->get() && model;
            }
        // Async TP takes effect only under torch.compile (job_config.py).
        if (s.tpOverlap) {
            const toml::node *compile = find("compile.enable");
            if (!compile || !compile->is_boolean() || !compile->as_boolean()->get())
                m_out.assumptions.push_back("enable_async_tensor_parallel works only with "
                                            "compile.enable; read as asked");
            // docs/step_time.md, "torchtitan's tensor-parallel runs on 500 W H100s".
            m_out.assumptions.push_back(
                "enable_async_tensor_parallel: tp_overlap times Transformer Engine's "
                "userbuffers, which hide more than PyTorch's async TP did in torchtitan's own "
                "runs (4-16 % faster, benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md)");
        }
        return std::nullopt;
    }

    const toml::table &m_doc;
    const core::Scenario &m_base;
    const core::Presets &m_presets;
    const ImportOptions &m_options;
    ImportedConfig &m_out;
    std::set<std::string> m_read;
    const core::ModelSpec *m_model = nullptr;
    int m_shard = 1;
    // With pipelining: the local batch's key and size, and the micro-batch size; each
    // accumulation step runs a pipeline of local batch / micro-batch size.
    std::string m_localPath = "training.local_batch_size";
    long long m_localBatch = 1;
    long long m_pipelineMicrobatchSize = 1;
};

// The key a TOML syntax error sits in: the table above the line and the key on it.
std::string errorKey(const std::string &content, int line)
{
    std::istringstream in(content);
    std::string text, table;
    for (int n = 1; std::getline(in, text) && n <= line; ++n) {
        const std::size_t start = text.find_first_not_of(" \t");
        if (start == std::string::npos)
            continue;
        if (text[start] == '[' && n < line) {
            const std::size_t end = text.find(']', start);
            table = text.substr(start + 1, end == std::string::npos ? end : end - start - 1);
            table.erase(0, table.find_first_not_of("[ "));
            table.erase(table.find_last_not_of("] ") + 1);
        } else if (n == line) {
            const std::size_t eq = text.find('=');
            if (eq == std::string::npos)
                return "line " + std::to_string(line);
            std::string key = text.substr(start, eq - start);
            key.erase(key.find_last_not_of(" \t") + 1);
            return table.empty() ? key : table + "." + key;
        }
    }
    return "line " + std::to_string(line);
}

} // namespace torchtitan_detail

std::optional<core::InputError> importTorchtitan(const QByteArray &content,
                                                 const core::Scenario &base,
                                                 const core::Presets &presets,
                                                 const ImportOptions &options, ImportedConfig &out)
{
    using namespace torchtitan_detail;
    const std::string text = content.toStdString();
    toml::table doc;
    try {
        doc = toml::parse(text, options.fileName);
    } catch (const toml::parse_error &error) {
        const auto &at = error.source().begin;
        return core::InputError{errorKey(text, int(at.line)),
                                std::string(error.description()) + " (line " +
                                    std::to_string(at.line) + ", column " +
                                    std::to_string(at.column) + ")"};
    }
    return Reader(doc, base, presets, options, out).read();
}

namespace {

// The scenario's pipeline_layout as module_fqns_per_model_part: a list of module names a part
// (tok_embeddings, layers.N, and norm with lm_head, the names of models/common/decoder.py).
std::string moduleParts(const core::Scenario &s, const core::ModelSpec &model,
                        std::vector<std::string> &notes)
{
    const auto layout = core::pipelineLayoutStages(s, model);
    if (!layout)
        return "[]";
    std::string out = "[";
    int next = 0, mtp = 0;
    for (std::size_t j = 0; j < layout->size(); ++j) {
        const core::LayoutStage &stage = (*layout)[j];
        std::vector<std::string> names;
        if (stage.embedding)
            names.push_back("tok_embeddings");
        for (int i = 0; i < stage.decoders; ++i)
            names.push_back("layers." + std::to_string(next++));
        if (stage.loss) {
            names.push_back("norm");
            names.push_back("lm_head");
        }
        mtp += stage.mtp;
        out += (j ? ", [" : "[");
        for (std::size_t i = 0; i < names.size(); ++i)
            out += (i ? ", \"" : "\"") + names[i] + "\"";
        out += "]";
    }
    if (mtp > 0)
        notes.push_back("pipeline_layout's multi-token-prediction layers (m): torchtitan refuses "
                        "them under pipeline parallelism (models/deepseek_v3/MTP.md); left out");
    return out + "]";
}

} // namespace

std::string emitTorchtitan(const core::Scenario &s, const core::ModelSpec &model)
{
    using namespace torchtitan_detail;
    std::vector<std::string> notes;
    const auto quoted = [](std::string_view v) { return "\"" + std::string(v) + "\""; };
    const Flavor *flavor = nullptr;
    for (const Flavor &f : kFlavors)
        if (f.preset == model.id && !s.customModel)
            flavor = &f;
    std::string body = "[model]\n";
    if (flavor) {
        body += "name = " + quoted(flavor->name) + "\nflavor = " + quoted(flavor->flavor) + "\n";
    } else {
        notes.push_back("the model " + model.id +
                        ": torchtitan has no flavor of it; define one in torchtitan/models and "
                        "name it here");
        body += "name = \"\"\nflavor = " + quoted(model.id) + "\n";
    }
    if (s.precision == core::Precision::fp8)
        body += "converters = [\"quantize.linear.float8\"]\n";
    if (s.precision == core::Precision::fp8 && s.fp8Scaling != core::Fp8Scaling::current)
        notes.push_back("fp8_scaling=" + std::string(core::toString(s.fp8Scaling)) +
                        ": torchao's Float8Linear scales each tensor by its own maximum "
                        "(current)");

    // Batches: without pipelining each accumulation step is one micro-batch of
    // local_batch_size; with it, local_batch_size splits into pipeline micro-batches.
    const long long local = s.pp > 1 ? 1LL * s.microbatchSize * s.microbatches : s.microbatchSize;
    const long long global = s.pp > 1 ? local * s.dp : local * s.microbatches * s.dp;
    body += "\n[training]\nlocal_batch_size = " + std::to_string(local) +
            "\nglobal_batch_size = " + std::to_string(global) +
            "\nseq_len = " + std::to_string(s.seqLen) + "\nmixed_precision_param = " +
            quoted(s.precision == core::Precision::fp32 ? "float32" : "bfloat16") +
            "\nmixed_precision_reduce = \"float32\"\n";
    if (s.precision != core::Precision::fp32 && s.precision != core::Precision::bf16 &&
        s.precision != core::Precision::fp8)
        notes.push_back("precision=" + std::string(core::toString(s.precision)) +
                        ": torchtitan trains in bfloat16 or float32; written as bfloat16");
    if (s.gradPrecision != core::Precision::fp32)
        notes.push_back("grad_precision=" + std::string(core::toString(s.gradPrecision)) +
                        ": FSDP2 reduces in float32 (mixed_precision_reduce)");
    if (s.rankOrder == core::RankOrder::pipelineInner)
        notes.push_back("rank_order=tp-cp-ep-pp-dp: torchtitan's device mesh keeps the pipeline "
                        "outermost (pp, dp_replicate, dp_shard, cp, tp: "
                        "torchtitan/distributed/parallel_dims.py); it numbers devices its own way");

    // ZeRO: DDP is replicate, FSDP2 is shard, and hybrid sharding both (HSDP, each replica
    // sharding over its shard x C ranks: parallel_dims.py); reshard_after_forward follows the
    // pipeline.
    int replicate = s.dp, shard = 1;
    std::string reshard;
    const bool hybrid = s.zero > 0 && s.zeroReplicas > 1;
    if (hybrid && s.dp % s.zeroReplicas != 0)
        notes.push_back("zero_replicas=" + std::to_string(s.zeroReplicas) +
                        " does not divide D = " + std::to_string(s.dp) + ": written without");
    const int replicas = hybrid && s.dp % s.zeroReplicas == 0 ? s.zeroReplicas : 1;
    if (s.zero > 0 && s.dp > 1 && replicas == s.dp && s.cp == 1) {
        notes.push_back("zero_replicas=" + std::to_string(replicas) +
                        " = D: a replica's shard is one device, which holds everything: "
                        "written as DDP");
    } else if (s.zero > 0 && s.dp * s.cp > 1) {
        // With C > 1 torchtitan shards over the context-parallel ranks even at shard 1.
        replicate = replicas;
        shard = s.dp / replicas;
        if (s.pp > 1 && s.zero == 3)
            reshard = "always";
        else if (s.pp == 1 && s.zero < 3)
            reshard = "never";
        if (s.pp > 1 && s.zero == 2)
            notes.push_back("zero=2 with pipeline stages: FSDP2 keeps the gradients unsharded "
                            "until the step ends (ZeRO-1); written so");
        if (s.pp == 1 && s.zero == 1)
            notes.push_back("zero=1 without pipeline stages: FSDP2 shards the gradients too; "
                            "written as reshard_after_forward = never (ZeRO-2)");
    } else if (s.zero > 0) {
        notes.push_back("zero=" + std::to_string(s.zero) + " with D x C = 1: nothing to shard");
    }
    if (s.zero == 0 && s.cp > 1)
        notes.push_back("zero=0 with C > 1: torchtitan shards over the context-parallel ranks "
                        "whatever the data-parallel degrees (parallel_dims.py, fsdp_enabled), "
                        "as ZeRO does over D x C; written as DDP over D, which it runs as HSDP");
    if (s.deferReplicaReduce && replicas > 1 && s.zero >= 2)
        notes.push_back("defer_replica_reduce=true: torchtitan's HSDP all-reduces across the "
                        "replicas after every micro-batch (FSDP2's default); deferring it to the "
                        "last is set_requires_all_reduce in the training loop, which torchtitan "
                        "has no setting for");
    if (s.zero == 0 && s.zeroReplicas > 1)
        notes.push_back("zero_replicas=" + std::to_string(s.zeroReplicas) +
                        " without ZeRO: nothing to shard, DDP all-reduces over all of D");
    body += "\n[parallelism]\ndata_parallel_replicate_degree = " + std::to_string(replicate) +
            "\ndata_parallel_shard_degree = " + std::to_string(shard) + "\n";
    if (!reshard.empty())
        body += "fsdp_reshard_after_forward = " + quoted(reshard) + "\n";
    body += "tensor_parallel_degree = " + std::to_string(s.tp) + "\n";
    body += "enable_async_tensor_parallel = " + std::string(s.tpOverlap ? "true" : "false") + "\n";
    if (s.tpOverlap && !s.tpOverlapQkv)
        notes.push_back("tp_overlap_qkv=false: torchtitan's async tensor parallelism has no "
                        "switch for the QKV projection alone; written with it overlapped");
    body += "pipeline_parallel_degree = " + std::to_string(s.pp) + "\n";
    if (s.pp > 1) {
        const char *name = "1F1B";
        switch (s.schedule) {
        case core::Schedule::gpipe:
            name = "GPipe";
            break;
        case core::Schedule::oneFOneB:
            break;
        case core::Schedule::interleaved:
            name = "Interleaved1F1B";
            break;
        case core::Schedule::zbH1:
            name = "ZBVZeroBubble";
            notes.push_back("schedule=zb-h1: torch.distributed.pipelining's zero-bubble "
                            "schedule with one stage per rank is not offered; written as "
                            "ZBVZeroBubble (two stages per rank in a V)");
            break;
        case core::Schedule::dualPipeV:
            name = "DualPipeV";
            break;
        case core::Schedule::dualPipe:
            // torch.distributed.pipelining offers DualPipeV, the cut-in-half, not DualPipe.
            name = "DualPipeV";
            notes.push_back("schedule=dualpipe: torch.distributed.pipelining has no "
                            "bidirectional DualPipe; written as DualPipeV (two chunks a rank "
                            "in a V, one copy of the parameters, both ends on the first rank), "
                            "which times and fits differently");
            break;
        }
        body += "pipeline_parallel_schedule = " + quoted(name) + "\n";
        body += "pipeline_parallel_microbatch_size = " + std::to_string(s.microbatchSize) + "\n";
        // The generated parts weigh each end as a layer unless told otherwise
        // (pipeline_parallel_first_stage_less_layers and _last_stage_less_layers, 1 each).
        const int ends = s.endsInPipelineSplit ? 1 : 0;
        if (s.pipelineLayout.empty() && !ends)
            body += "pipeline_parallel_first_stage_less_layers = 0\n"
                    "pipeline_parallel_last_stage_less_layers = 0\n";
        if (!s.pipelineLayout.empty()) {
            body += "module_fqns_per_model_part = " + moduleParts(s, model, notes) + "\n";
        } else if (s.schedule == core::Schedule::interleaved && s.virtualStages != 2) {
            // pipeline_parallel.py: stages = ceil((layers + first + last) / layers per stage).
            const long long weighted = model.layers + 2 * ends;
            const long long stages = 1LL * s.pp * s.virtualStages;
            long long found = 0;
            for (long long lps = 1; lps <= weighted && !found; ++lps)
                if ((weighted + lps - 1) / lps == stages)
                    found = lps;
            if (found)
                body += "pipeline_parallel_layers_per_stage = " + std::to_string(found) + "\n";
            else
                notes.push_back("virtual_stages=" + std::to_string(s.virtualStages) +
                                ": no pipeline_parallel_layers_per_stage gives it; written as 2");
        }
    } else if (s.schedule != core::Schedule::oneFOneB || s.virtualStages > 1) {
        notes.push_back("schedule=" + std::string(core::toString(s.schedule)) +
                        " with one pipeline stage: nothing to schedule");
    }
    body += "context_parallel_degree = " + std::to_string(s.cp) + "\n";
    if (s.cpExchange == core::CpExchange::ring)
        notes.push_back("cp_exchange=ring: torchtitan rotates by allgather or alltoall; written "
                        "as allgather");
    body += "context_parallel_rotate_method = " +
            quoted(s.cpExchange == core::CpExchange::alltoall ? "alltoall" : "allgather") + "\n";
    body += "expert_parallel_degree = " + std::to_string(s.ep) + "\n";
    if (s.ep > 1)
        body += "expert_tensor_parallel_degree = " + std::to_string(s.expertTpDegree()) + "\n";
    else if (s.expertTp > 0 && s.expertTp != s.tp)
        notes.push_back("expert_tp without expert parallelism: the experts follow "
                        "tensor_parallel_degree");
    if (s.mtpLayers > 0 && s.mode == core::Mode::training)
        notes.push_back("mtp_layers=" + std::to_string(s.mtpLayers) +
                        ": torchtitan builds multi-token prediction from its model registry "
                        "(DeepSeek-V3's num_mtp_layers), not from this file, and refuses it with "
                        "pipeline or context parallelism (models/deepseek_v3/MTP.md)");
    if (const std::string note = rankLoadNote(s, model); !note.empty())
        notes.push_back(note);
    if (s.expertCapacityFactor)
        notes.push_back("expert_capacity_factor=" + core::fieldText(s, "expert_capacity_factor") +
                        ": torchtitan's MoE routes every token, with no capacity to drop or pad "
                        "to; written dropless");
    // DeepEP is torchtitan's flex dispatcher; it takes no expert tensor parallelism
    // (deepseek_v3/infra/parallelize.py).
    if (s.ep > 1 && s.epDispatcher == core::EpDispatcher::flex) {
        if (s.expertTpDegree() == 1)
            body += "expert_parallel_comm_backend = \"deepep\"\n";
        else
            notes.push_back("ep_dispatcher=flex with expert_tp > 1: torchtitan's DeepEP takes no "
                            "expert tensor parallelism; written as the standard all-to-all");
    }

    body += "\n[activation_checkpoint]\n";
    switch (s.recompute) {
    case core::Recompute::none:
        body += "mode = \"none\"\n";
        break;
    case core::Recompute::selective:
        body += "mode = \"selective\"\nselective_ac_option = \"op\"\n";
        notes.push_back("recompute=selective" +
                        (s.recomputeModules == "core_attn"
                             ? std::string()
                             : " of " + core::fieldText(s, "recompute_modules")) +
                        ": torchtitan has no module-by-module recomputation; written as its "
                        "per-op policy (recompute=op)");
        break;
    case core::Recompute::op:
        body += "mode = \"selective\"\nselective_ac_option = \"op\"\n";
        break;
    case core::Recompute::full:
        body += "mode = \"full\"\n";
        if (s.recomputeLayers > 0)
            notes.push_back("recompute_layers=" + std::to_string(s.recomputeLayers) +
                            ": torchtitan's full checkpointing wraps every layer; written as "
                            "every layer recomputed");
        break;
    }
    if (s.offloadLayers > 0 && s.mode == core::Mode::training)
        notes.push_back("offload_layers=" + std::to_string(s.offloadLayers) +
                        ": torchtitan has no layer-by-layer activation offloading (its "
                        "enable_cpu_offload is FSDP2's offload of parameters and optimizer "
                        "states); written without it");
    if (s.precision == core::Precision::fp8) {
        body += "\n[quantize.linear.float8]\nfilter_fqns = [\"output\"]\n";
        if (s.fp8Params)
            body += "enable_fsdp_float8_all_gather = true\n";
    }
    // torch.compile fuses the model's norms, RoPE and feed-forward (docs/frameworks.md).
    if (s.fusedElementwise)
        body += "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";

    if (s.sequenceParallel != (s.tp > 1))
        notes.push_back(std::string("sequence_parallel=") +
                        (s.sequenceParallel ? "true" : "false") +
                        ": torchtitan's tensor-parallel plan shards the sequence exactly when "
                        "T > 1");
    if (!s.cacheOutputs)
        notes.push_back("cache_outputs=false: return_outputs=False is set in code "
                        "(pytorch/pytorch#165822), not in the job file");
    if (s.packedExampleTokens > 0 && s.mode == core::Mode::training)
        notes.push_back("packed_example_tokens=" + std::to_string(s.packedExampleTokens) +
                        ": the examples' boundaries come from the data; attention within them "
                        "is the model's block-causal mask (FlexAttention), not a job-file key");
    // torchtitan's LoRA converter (torchtitan/components/lora.py, pytorch/torchtitan#3264)
    // came after its jobs moved from TOML to Python.
    if (s.loraRank > 0 && s.mode == core::Mode::training)
        notes.push_back(
            "lora_rank=" + std::to_string(s.loraRank) + " on " + pythonWordList(s.loraModules) +
            ": a TOML job has no LoRA; torchtitan's Python config has "
            "LoRAConverter.Config(rank=" +
            std::to_string(s.loraRank) + ", target_modules=...) with its own module names" +
            (s.loraDropout > 0
                 ? " and no dropout (lora_dropout=" + core::plainNumber(s.loraDropout) + ")"
                 : "") +
            "; this job trains every weight");
    if (s.fusedSwiglu)
        notes.push_back("fused_swiglu=true: torchtitan's feed-forward is unfused");
    if (s.fp8ActivationInput && s.mode == core::Mode::training)
        notes.push_back("fp8_activation_input=true: Megatron-core's fused SwiGLU keeps its input "
                        "in FP8; torchtitan's feed-forward keeps it in 16 bits");
    if (s.fp8Attention && s.precision == core::Precision::fp8)
        notes.push_back("fp8_attention=true: torchao's float8 converter changes the linear "
                        "layers only; attention runs in 16 bits");
    if (s.lossFusion != core::LossFusion::none && s.mode == core::Mode::training)
        notes.push_back("loss_fusion=" + core::fieldText(s, "loss_fusion") +
                        ": a Megatron-LM loss kernel; torchtitan's loss is PyTorch's "
                        "cross_entropy");
    if (s.fp8WeightCache && s.precision == core::Precision::fp8 && !s.fp8Params &&
        s.mode == core::Mode::training)
        notes.push_back("fp8_weight_cache=true: torchao's Float8Linear casts the weights in each "
                        "forward and keeps no copy");
    if (s.optimizerMoments == core::Precision::bf16 && s.mode == core::Mode::training)
        notes.push_back("optimizer_moments=bf16: torchtitan's AdamW keeps its moments in the "
                        "FP32 parameters' type; no option narrows them");
    if (s.fp8LmHead && s.precision == core::Precision::fp8)
        notes.push_back("fp8_lm_head=true: torchtitan's float8 and MX converters leave the "
                        "output layer in 16 bits (filter_fqns)");
    if (s.saveQuantizedInputs && s.precision == core::Precision::fp8 &&
        s.mode == core::Mode::training)
        notes.push_back("save_quantized_inputs=true: torchao's Float8Linear keeps 16-bit inputs "
                        "for the weight gradient");
    if (s.fusedGradAccumulation)
        notes.push_back("fused_grad_accumulation=true: autograd accumulates into .grad");
    if (s.zeroBuffers != core::ZeroBuffers::fsdp)
        notes.push_back("zero_buffers=" + std::string(core::toString(s.zeroBuffers)) +
                        ": FSDP2 allocates its own");
    if (s.attention == core::Attention::eager)
        notes.push_back("attention=eager: torchtitan runs scaled_dot_product_attention");
    else if (s.attention == core::Attention::flash2 || s.attention == core::Attention::flash3)
        notes.push_back("attention=" + std::string(core::toString(s.attention)) +
                        ": torchtitan's scaled_dot_product_attention tries cuDNN's kernel first "
                        "(pytorch/torchtitan#1776)");
    if (s.dpOverlap)
        notes.push_back("dp_overlap=" + core::fieldText(s, "dp_overlap") +
                        ": FSDP2 prefetches as far as it can");
    if (s.mode == core::Mode::inference)
        notes.push_back("mode=inference: torchtitan trains; the training layout is written");

    std::string out = "# Parascope: " + model.id + " on " + std::to_string(s.devices()) + " x " +
                      s.device + ", T=" + std::to_string(s.tp) + " C=" + std::to_string(s.cp) +
                      " K=" + std::to_string(s.pp) + " D=" + std::to_string(s.dp) +
                      "\n# torchtitan takes the world size from the launcher: NGPU=" +
                      std::to_string(s.devices()) + " ./run_train.sh\n";
    if (!notes.empty()) {
        out += "# torchtitan has no setting for:\n";
        for (const std::string &note : notes)
            out += "#   " + note + "\n";
    }
    return out + "\n" + body;
}

} // namespace io
