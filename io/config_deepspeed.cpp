// A DeepSpeed config JSON, read into a scenario and written from one (docs/import.md).
#include "core/echo.h"
#include "core/fields.h"
#include "core/framework.h"
#include "core/validate.h"
#include "io/framework_config.h"
#include "io/json_fields.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

namespace io {

namespace deepspeed_detail {

// DeepSpeed's default gradient bucket (deepspeed/runtime/zero/config.py,
// ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT), the one Parascope's ZeRO buffers count.
constexpr double kDefaultReduceBucket = 5e8;

// The top-level key Parascope writes its notes under; DeepSpeed reads its config through
// get_* look-ups and leaves other top-level keys alone (deepspeed/runtime/config.py).
constexpr const char *kCommentKey = "comment";

constexpr const char *kLogging = "logging only: no effect on memory or step time";
constexpr const char *kOffload =
    "offload is not modelled: Parascope keeps every state in device memory";

// A value of the file: a number, "auto" (the Hugging Face Trainer fills it in), or absent.
struct DsValue
{
    bool present = false;
    bool automatic = false;
    double number = 0;
    bool known() const { return present && !automatic; }
};

// Reads typed keys of a DeepSpeed config by their dotted names, remembering which were
// read or ignored and the first problem.
class DsReader
{
public:
    DsReader(const QJsonObject &root, ImportedConfig &out) : m_root(root), m_out(out) {}

    // The value at a dotted path ("zero_optimization.stage"); Undefined when absent.
    QJsonValue at(const std::string &path) const
    {
        QJsonValue v = m_root;
        std::size_t start = 0;
        while (start <= path.size()) {
            const std::size_t dot = path.find('.', start);
            const std::string part =
                path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            if (!v.isObject())
                return QJsonValue(QJsonValue::Undefined);
            v = v.toObject().value(QString::fromStdString(part));
            if (dot == std::string::npos)
                break;
            start = dot + 1;
        }
        return v;
    }

    // A whole number of at least `least`, or "auto".
    DsValue integer(const std::string &path, int least)
    {
        return typed(path, [&](const QJsonValue &v) -> std::optional<std::string> {
            const double d = v.toDouble(std::numeric_limits<double>::quiet_NaN());
            if (!v.isDouble() || d != std::floor(d) || d > std::numeric_limits<int>::max())
                return "expected a whole number, got " + describe(v);
            if (d < least)
                return "must be at least " + std::to_string(least) + ", got " + describe(v);
            return std::nullopt;
        });
    }

    // A number (a bucket size), or "auto".
    DsValue number(const std::string &path)
    {
        return typed(path, [](const QJsonValue &v) -> std::optional<std::string> {
            if (!v.isDouble())
                return "expected a number, got " + describe(v);
            return std::nullopt;
        });
    }

    // true or false, or "auto" (number 1 or 0).
    DsValue boolean(const std::string &path)
    {
        return typed(path, [](const QJsonValue &v) -> std::optional<std::string> {
            if (!v.isBool())
                return "expected true or false, got " + describe(v);
            return std::nullopt;
        });
    }

    std::optional<std::string> text(const std::string &path)
    {
        const QJsonValue v = at(path);
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        m_handled.insert(path);
        if (!v.isString()) {
            fail(path, "expected text, got " + describe(v));
            return std::nullopt;
        }
        return v.toString().toStdString();
    }

    // A section that must be an object when present.
    bool section(const std::string &path)
    {
        const QJsonValue v = at(path);
        if (v.isUndefined() || v.isNull())
            return false;
        if (!v.isObject()) {
            fail(path, "expected an object, got " + describe(v));
            return false;
        }
        return true;
    }

    void read(const std::string &path, std::string key)
    {
        m_handled.insert(path);
        m_listed.insert(path);
        m_out.read.push_back({path, valueText(at(path)), std::move(key)});
    }
    void ignore(const std::string &path, std::string why)
    {
        if (at(path).isUndefined() || !m_listed.insert(path).second)
            return;
        m_handled.insert(path);
        m_out.ignored.push_back({path, std::move(why)});
    }
    // Every key under `path` (or the top level) not yet read or ignored, with `why`.
    void ignoreRest(const std::string &path, const std::string &why)
    {
        const QJsonObject object = path.empty() ? m_root : at(path).toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const std::string full = (path.empty() ? "" : path + ".") + it.key().toStdString();
            if (m_handled.contains(full) || m_sections.contains(full))
                continue;
            ignore(full, why);
        }
    }
    // A section whose keys are read or ignored one by one.
    void open(const std::string &path) { m_sections.insert(path); }

    void fail(const std::string &path, std::string message)
    {
        if (!m_error)
            m_error = core::InputError{path, std::move(message)};
    }
    const std::optional<core::InputError> &error() const { return m_error; }

    static std::string valueText(const QJsonValue &v)
    {
        if (v.isString())
            return v.toString().toStdString();
        if (v.isDouble())
            return core::plainNumber(v.toDouble());
        if (v.isBool())
            return v.toBool() ? "true" : "false";
        if (v.isObject())
            return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact).toStdString();
        if (v.isArray())
            return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact).toStdString();
        return "null";
    }

private:
    // The value at `path` when `refusal` finds nothing wrong with it (a boolean as 1 or 0),
    // "auto", or absent; a refusal is remembered as the first problem.
    template <typename Refusal> DsValue typed(const std::string &path, Refusal refusal)
    {
        DsValue out;
        const QJsonValue v = at(path);
        if (v.isUndefined() || v.isNull())
            return out;
        out.present = true;
        m_handled.insert(path);
        if (v.isString() && v.toString() == QLatin1String("auto")) {
            out.automatic = true;
            return out;
        }
        if (auto message = refusal(v)) {
            fail(path, std::move(*message));
            return {};
        }
        out.number = v.isBool() ? (v.toBool() ? 1 : 0) : v.toDouble();
        return out;
    }

    const QJsonObject &m_root;
    ImportedConfig &m_out;
    std::set<std::string> m_handled; // typed, read or ignored
    std::set<std::string> m_listed;  // in the list of what was read or ignored
    std::set<std::string> m_sections;
    std::optional<core::InputError> m_error;
};

std::string whole(double value)
{
    return core::plainNumber(value);
}

constexpr const char *kMicsShardSize = "zero_optimization.mics_shard_size";

// MiCS, DeepSpeed's hybrid sharding (deepspeed/runtime/zero/mics.py): ZeRO-3 over shard groups
// of mics_shard_size ranks, each group a replica whose shards' gradients the groups all-reduce
// (MiCS_Optimizer). Parascope's shard group of D x C / R ranks is one of them: R = D x C / S.
// engine.py (_configure_zero_optimizer) builds it at stage 3 only, and not for 0 or below.
std::optional<core::InputError> readMics(DsReader &r, const DsValue &mics,
                                         const core::Scenario &base, core::Scenario &s,
                                         ImportedConfig &out)
{
    s.zeroReplicas = 1;
    s.deferReplicaReduce = false;
    const bool on = mics.known() && mics.number > 0;
    if (on && s.zero != 3) {
        r.ignore(kMicsShardSize, "MiCS is ZeRO-3's: DeepSpeed builds it at stage 3 only "
                                 "(engine.py, _configure_zero_optimizer), and ZeRO " +
                                     std::to_string(s.zero) + " shards over all D × C");
    } else if (on) {
        const int size = static_cast<int>(mics.number);
        const long long ranks = 1LL * s.dp * s.cp;
        // mics_utils.py, _generate_mics_config: "dp group size is not dividable by
        // dp_shard_size".
        if (ranks % size != 0)
            return core::InputError{kMicsShardSize,
                                    whole(mics.number) +
                                        " does not divide the D × C = " + std::to_string(ranks) +
                                        " ranks ZeRO-3 shards over (DeepSpeed asserts it)"};
        const long long replicas = ranks / size;
        if (s.dp % replicas != 0)
            return core::InputError{kMicsShardSize,
                                    whole(mics.number) +
                                        " is not a multiple of C = " + std::to_string(s.cp) +
                                        ": its groups would split a replica's "
                                        "sequence-parallel ranks, which Parascope's "
                                        "zero_replicas keeps together"};
        r.read(kMicsShardSize, "zero_replicas, defer_replica_reduce");
        s.zeroReplicas = static_cast<int>(replicas);
        // mics.py, allreduce_mics_shard_grads: the replication groups all-reduce at the
        // gradient accumulation boundary only.
        s.deferReplicaReduce = replicas > 1;
        // mics_utils.py groups consecutive ranks of the whole world, not of the
        // data-parallel group.
        if (s.tp * s.pp > 1)
            out.assumptions.push_back(
                std::string(kMicsShardSize) + " " + whole(mics.number) +
                ": MiCS groups consecutive ranks of the whole world (mics_utils.py), which "
                "with T × K = " +
                std::to_string(s.tp * s.pp) +
                " from the base scenario mixes model-parallel ranks; read as " +
                whole(mics.number) + " of the D × C ranks that hold the same parameters");
    } else if (mics.known()) {
        r.read(kMicsShardSize, "zero_replicas");
    }
    r.ignore("zero_optimization.mics_hierarchical_params_gather",
             s.zeroReplicas > 1 ? "MiCS's gather inside each node, then across: Parascope "
                                  "times one ring over the shard group"
                                : "used only with MiCS");
    if (base.zeroReplicas > 1 && s.zeroReplicas == 1 && s.zero > 0)
        out.assumptions.push_back("ZeRO-" + std::to_string(s.zero) +
                                  " without MiCS shards over all D × C: zero_replicas 1, not the "
                                  "base scenario's " +
                                  std::to_string(base.zeroReplicas));
    return std::nullopt;
}

// A JSON string literal.
std::string quotedJson(const std::string &text)
{
    const QByteArray array =
        QJsonDocument(QJsonArray{QString::fromStdString(text)}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2).toStdString();
}

} // namespace deepspeed_detail

std::optional<core::InputError> importDeepSpeed(const QByteArray &content,
                                                const core::Scenario &base, const core::Presets &,
                                                const ImportOptions &options, ImportedConfig &out)
{
    using namespace deepspeed_detail;
    QJsonObject root;
    if (auto error = parseJsonObject(content, root, "DeepSpeed config"))
        return error;
    DsReader r(root, out);
    core::Scenario s = base;
    core::applyFramework(s, core::Framework::deepspeed);

    // The batch (deepspeed/runtime/config.py, _set_batch_related_parameters and
    // _batch_assertion: train_batch_size = micro × accumulation × data-parallel size).
    const DsValue global = r.integer("train_batch_size", 1);
    const DsValue micro = r.integer("train_micro_batch_size_per_gpu", 1);
    const DsValue accumulation = r.integer("gradient_accumulation_steps", 1);

    // ZeRO (deepspeed/runtime/zero/config.py).
    DsValue stage;
    DsValue bucket;
    DsValue overlap;
    DsValue mics;
    if (r.section("zero_optimization")) {
        r.open("zero_optimization");
        stage = r.integer("zero_optimization.stage", 0);
        bucket = r.number("zero_optimization.reduce_bucket_size");
        overlap = r.boolean("zero_optimization.overlap_comm");
        // DeepSpeedZeroConfig.mics_shard_size: an int, -1 (off) by default.
        mics = r.integer(kMicsShardSize, std::numeric_limits<int>::min());
        if (mics.automatic)
            r.fail(kMicsShardSize, "expected a whole number, got 'auto'");
    }
    // Precision (bf16 and fp16 sections, each with "enabled").
    DsValue bf16;
    DsValue fp16;
    if (r.section("bf16")) {
        r.open("bf16");
        bf16 = r.boolean("bf16.enabled");
    }
    if (r.section("fp16")) {
        r.open("fp16");
        fp16 = r.boolean("fp16.enabled");
    }
    const bool checkpointing = r.section("activation_checkpointing");
    if (checkpointing)
        r.open("activation_checkpointing");
    std::optional<std::string> optimizer;
    if (r.section("optimizer")) {
        r.open("optimizer");
        optimizer = r.text("optimizer.type");
    }
    if (r.error())
        return r.error();

    // The data-parallel degree D.
    const int ranksPerReplica = s.tp * s.cp * s.pp;
    int dp = s.dp;
    bool dpFromFile = false;
    if (options.devices) {
        if (*options.devices % ranksPerReplica != 0)
            // DeepSpeed's config holds no T, C or K: they are the base scenario's.
            return core::InputError{
                "devices", std::to_string(*options.devices) +
                               " devices are not a multiple of T × C × K = " +
                               std::to_string(s.tp) + " × " + std::to_string(s.cp) + " × " +
                               std::to_string(s.pp) + " = " + std::to_string(ranksPerReplica) +
                               ", which a DeepSpeed config does not set: they come from the base "
                               "scenario (set them with --set tp=… --set pp=… or --base)"};
        dp = *options.devices / ranksPerReplica;
        out.assumptions.push_back("D = " + std::to_string(dp) + ": " +
                                  std::to_string(*options.devices) +
                                  " devices over T × C × K = " + std::to_string(ranksPerReplica));
    } else if (global.known() && micro.known() && accumulation.known()) {
        const double perReplica = micro.number * accumulation.number;
        if (std::fmod(global.number, perReplica) != 0)
            return core::InputError{"train_batch_size",
                                    whole(global.number) +
                                        " is not a multiple of train_micro_batch_size_per_gpu × "
                                        "gradient_accumulation_steps = " +
                                        whole(micro.number) + " × " + whole(accumulation.number) +
                                        " = " + whole(perReplica)};
        dp = static_cast<int>(global.number / perReplica);
        dpFromFile = true;
    } else {
        out.assumptions.push_back("D = " + std::to_string(dp) +
                                  " from the base scenario: the file does not give the batch "
                                  "in full; give --devices");
    }

    // The keys DeepSpeed derives when the file leaves them out, for this D.
    int b = micro.known() ? static_cast<int>(micro.number) : s.microbatchSize;
    int m = accumulation.known() ? static_cast<int>(accumulation.number) : s.microbatches;
    const auto perDevice = [&](double total, double divisor, const char *what) {
        if (std::fmod(total, divisor) != 0 || total < divisor)
            return std::optional<int>();
        out.assumptions.push_back(std::string(what) +
                                  " is not in the file: DeepSpeed derives it from "
                                  "train_batch_size " +
                                  whole(total) + " over " + whole(divisor));
        return std::optional<int>(static_cast<int>(total / divisor));
    };
    if (global.known() && !dpFromFile) {
        const std::string product = " × D " + std::to_string(dp);
        if (micro.known() && accumulation.known()) {
            if (global.number != micro.number * accumulation.number * dp)
                return core::InputError{"train_batch_size",
                                        whole(global.number) +
                                            " is not train_micro_batch_size_per_gpu × "
                                            "gradient_accumulation_steps × D = " +
                                            whole(micro.number) + " × " +
                                            whole(accumulation.number) + product + " = " +
                                            whole(micro.number * accumulation.number * dp)};
        } else if (micro.known() && !accumulation.present) {
            const auto derived =
                perDevice(global.number, micro.number * dp, "gradient_accumulation_steps");
            if (!derived)
                return core::InputError{"train_batch_size",
                                        whole(global.number) +
                                            " is not a multiple of "
                                            "train_micro_batch_size_per_gpu × D = " +
                                            whole(micro.number) + product};
            m = *derived;
        } else if (accumulation.known() && !micro.present) {
            const auto derived = perDevice(global.number, accumulation.number * dp,
                                           "train_micro_batch_size_per_gpu");
            if (!derived)
                return core::InputError{"train_batch_size",
                                        whole(global.number) +
                                            " is not a multiple of gradient_accumulation_steps "
                                            "× D = " +
                                            whole(accumulation.number) + product};
            b = *derived;
        } else if (!micro.present && !accumulation.present) {
            const auto derived = perDevice(global.number, dp, "train_micro_batch_size_per_gpu");
            if (!derived)
                return core::InputError{"train_batch_size",
                                        whole(global.number) +
                                            " is not a multiple of D = " + std::to_string(dp)};
            b = *derived;
            m = 1;
            out.assumptions.push_back("gradient_accumulation_steps is not in the file: 1, as "
                                      "DeepSpeed sets it");
        }
    } else if (!global.present && micro.known() && !accumulation.present) {
        m = 1;
        out.assumptions.push_back("gradient_accumulation_steps is not in the file: 1, as "
                                  "DeepSpeed sets it");
    }
    if (global.present)
        r.read("train_batch_size", global.automatic ? "(auto)" : "dp");
    if (micro.present)
        r.read("train_micro_batch_size_per_gpu", micro.automatic ? "(auto)" : "microbatch_size");
    if (accumulation.present)
        r.read("gradient_accumulation_steps", accumulation.automatic ? "(auto)" : "microbatches");
    for (const auto &[value, name, key] :
         {std::tuple{global, "train_batch_size", "dp"},
          std::tuple{micro, "train_micro_batch_size_per_gpu", "microbatch_size"},
          std::tuple{accumulation, "gradient_accumulation_steps", "microbatches"}})
        // With --devices, D comes from the devices (said above), not the base scenario.
        if (value.automatic && !(options.devices && key == std::string_view("dp")))
            out.assumptions.push_back(
                std::string(name) + " is \"auto\" (the Hugging Face Trainer fills it in): " + key +
                " stays " + core::fieldText(s, key) + " from the base scenario");
    if (!global.present && !micro.present)
        out.assumptions.push_back("neither train_batch_size nor train_micro_batch_size_per_gpu "
                                  "is in the file: microbatch_size and microbatches stay the "
                                  "base scenario's");
    s.microbatchSize = b;
    s.microbatches = m;
    s.dp = dp;

    // ZeRO stage.
    if (stage.present) {
        r.read("zero_optimization.stage", stage.automatic ? "(auto)" : "zero");
        if (stage.automatic)
            out.assumptions.push_back("zero_optimization.stage is \"auto\": zero stays " +
                                      std::to_string(s.zero) + " from the base scenario");
        else
            s.zero = static_cast<int>(stage.number);
    } else {
        // deepspeed/runtime/zero/config.py: stage defaults to 0 (ZeRO off).
        s.zero = 0;
        out.assumptions.push_back("zero_optimization.stage is not in the file: 0, DeepSpeed's "
                                  "default (ZeRO off)");
    }
    // The bucket sets how the gradient reduction hides (dp_bucket_params; the default 5e8 is
    // the DeepSpeed profile's auto) and the ZeRO buffers' size, which counts 5e8 values.
    if (bucket.known() && bucket.number == kDefaultReduceBucket) {
        r.read("zero_optimization.reduce_bucket_size", "zero_buffers");
    } else if (bucket.known() && bucket.number >= 1 && bucket.number <= 1e15) {
        r.read("zero_optimization.reduce_bucket_size", "dp_bucket_params");
        s.dpBucketParams = bucket.number;
        out.assumptions.push_back(
            "zero_optimization.reduce_bucket_size " +
            DsReader::valueText(r.at("zero_optimization.reduce_bucket_size")) +
            ": the gradient buckets for the step time; the ZeRO buffers still count DeepSpeed's "
            "default 5e8 values");
    } else if (bucket.present) {
        r.ignore("zero_optimization.reduce_bucket_size",
                 bucket.automatic ? "\"auto\" (the Hugging Face Trainer sets hidden_size²) is "
                                    "not modelled: the ZeRO buffers count 5e8 values"
                                  : "not a bucket size from 1 to 1e15: DeepSpeed's default "
                                    "5e8 is kept");
        out.assumptions.push_back(
            "zero_optimization.reduce_bucket_size " +
            DsReader::valueText(r.at("zero_optimization.reduce_bucket_size")) +
            ": Parascope counts the default bucket of 5e8 values");
    }
    if (overlap.present) {
        // docs/frameworks.md, "What each framework calls it": overlap_comm is dp_overlap=auto.
        r.read("zero_optimization.overlap_comm", overlap.automatic ? "(auto)" : "dp_overlap");
        if (overlap.known())
            s.dpOverlap = overlap.number > 0 ? std::nullopt : std::optional<double>(0.0);
        if (overlap.known() && overlap.number > 0 && s.zero > 0 && s.zero < 3)
            out.assumptions.push_back("overlap_comm: DeepSpeed's ZeRO-1 and 2 keep a second "
                                      "gradient bucket, which Parascope does not count");
        if (overlap.known() && overlap.number > 0 && s.zero == 0)
            out.assumptions.push_back("overlap_comm has no effect with ZeRO off: the engine "
                                      "all-reduces after the backward, nothing hidden");
    } else if (s.zero == 1 || s.zero == 2) {
        // deepspeed/runtime/zero/config.py, overlap_comm_valid: unset, it is on for ZeRO-3
        // only. Without it ZeRO-1 reduces after the backward and ZeRO-2 on the compute stream.
        s.dpOverlap = 0.0;
        out.assumptions.push_back("zero_optimization.overlap_comm is not in the file: off below "
                                  "ZeRO-3, DeepSpeed's default, so dp_overlap=0 (the gradient "
                                  "reduction is not hidden)");
    }
    if (auto error = readMics(r, mics, base, s, out))
        return error;
    for (const char *key :
         {"offload_optimizer", "offload_param", "cpu_offload", "cpu_offload_params"}) {
        const std::string path = std::string("zero_optimization.") + key;
        if (r.at(path).isUndefined())
            continue;
        r.ignore(path, kOffload);
        const QJsonValue device = r.at(path + ".device");
        if (!(device.isString() && device.toString() == QLatin1String("none")))
            out.assumptions.push_back(path + ": offload is not modelled, so the memory shown "
                                             "over-states device memory");
    }
    r.ignoreRest("zero_optimization", "ZeRO's communication tuning: not modelled");

    // Precision: bf16 or fp16 enabled; neither is FP32 training.
    if (bf16.present)
        r.read("bf16.enabled", bf16.automatic ? "(auto)" : "precision");
    if (fp16.present)
        r.read("fp16.enabled", fp16.automatic ? "(auto)" : "precision");
    if (bf16.known() && fp16.known() && bf16.number > 0 && fp16.number > 0)
        return core::InputError{"bf16.enabled", "bf16 and fp16 cannot both be enabled "
                                                "(DeepSpeed's config.py refuses it)"};
    if (bf16.automatic || fp16.automatic) {
        out.assumptions.push_back("bf16.enabled or fp16.enabled is \"auto\": precision stays " +
                                  core::fieldText(s, "precision") + " from the base scenario");
    } else if (bf16.known() && bf16.number > 0) {
        s.precision = core::Precision::bf16;
    } else if (fp16.known() && fp16.number > 0) {
        s.precision = core::Precision::fp16;
    } else {
        s.precision = core::Precision::fp32;
        if (!bf16.present && !fp16.present)
            out.assumptions.push_back("neither bf16 nor fp16 is enabled: precision fp32, "
                                      "DeepSpeed's default");
    }
    // The gradients' accumulation type (deepspeed/runtime/engine.py, get_data_types: the
    // model's type when absent). FP32 for BF16 weights under ZeRO-1 runs BF16_Optimizer
    // (_do_optimizer_sanity_check; docs/step_time.md, "Optimizer").
    if (r.section("data_types")) {
        r.open("data_types");
        if (const auto dtype = r.text("data_types.grad_accum_dtype")) {
            const QString lower = QString::fromStdString(*dtype).toLower();
            // DeepSpeed's DtypeEnum spellings (deepspeed/runtime/config_utils.py).
            if (lower == QLatin1String("fp32") || lower == QLatin1String("float32") ||
                lower == QLatin1String("float"))
                s.gradPrecision = core::Precision::fp32;
            else if (lower == QLatin1String("bf16") || lower == QLatin1String("bfloat16") ||
                     lower == QLatin1String("fp16") || lower == QLatin1String("float16") ||
                     lower == QLatin1String("half"))
                s.gradPrecision = core::Precision::bf16;
            else
                return core::InputError{"data_types.grad_accum_dtype",
                                        "expected fp32, bf16 or fp16, got " + core::quoted(*dtype)};
            out.read.push_back({"data_types.grad_accum_dtype", *dtype, "grad_precision"});
        }
        r.ignoreRest("data_types", "not modelled by Parascope");
    }
    if (r.at("data_types.grad_accum_dtype").isUndefined())
        out.assumptions.push_back(
            "data_types.grad_accum_dtype is not in the file: grad_precision stays " +
            core::fieldText(s, "grad_precision") +
            " from the base scenario (the DeepSpeed profile's fp32 follows its memory "
            "estimators; DeepSpeed itself accumulates in the model's type: grad_precision=bf16)");
    r.ignoreRest("bf16", "loss scaling and master-weight options: not modelled");
    r.ignoreRest("fp16", "loss scaling: no effect on memory or step time");

    // Activation checkpointing: the section configures deepspeed.checkpointing, which the
    // model's code calls (deepspeed/runtime/activation_checkpointing/checkpointing.py).
    if (checkpointing) {
        s.recompute = core::Recompute::full;
        out.read.push_back({"activation_checkpointing", "present", "recompute"});
        out.assumptions.push_back(
            "activation_checkpointing configures deepspeed.checkpointing: recompute=full, each "
            "layer's input kept (the model's code calls checkpoint())");
        r.ignore("activation_checkpointing.partition_activations",
                 "splitting the kept inputs over the tensor-parallel ranks is not modelled");
        r.ignore("activation_checkpointing.cpu_checkpointing", kOffload);
        r.ignoreRest("activation_checkpointing",
                     "tuning of deepspeed.checkpointing: no effect Parascope models");
    } else {
        out.assumptions.push_back("activation_checkpointing is not in the file: recompute stays " +
                                  core::fieldText(s, "recompute") + " from the base scenario");
    }

    // Optimizer: Parascope counts Adam's two moments.
    if (optimizer) {
        const std::string lower = QString::fromStdString(*optimizer).toLower().toStdString();
        out.read.push_back({"optimizer.type", *optimizer, "(Adam's states)"});
        if (lower != "adam" && lower != "adamw" && lower != "fusedadam" && lower != "cpuadam")
            out.assumptions.push_back("optimizer.type " + *optimizer +
                                      ": Parascope counts Adam's two FP32 moments per parameter");
    }
    r.ignoreRest("optimizer", "learning rate and betas: no effect on memory or step time");

    r.ignore("gradient_clipping",
             "no memory; ZeRO's optimizer scales every gradient whatever its value, and the "
             "optimizer step times that pass (docs/step_time.md, \"Optimizer\")");
    r.ignore("steps_per_print", kLogging);
    r.ignore("wall_clock_breakdown", kLogging);
    r.ignore("scheduler", "the learning-rate schedule: no effect on memory or step time");
    r.ignore(kCommentKey, "Parascope's comment");
    r.ignoreRest({}, "not modelled by Parascope");
    if (r.error())
        return r.error();

    out.scenario = std::move(s);
    return std::nullopt;
}

std::string emitDeepSpeed(const core::Scenario &s, const core::ModelSpec &model)
{
    using namespace deepspeed_detail;
    std::vector<std::string> notes;
    notes.push_back("Written by Parascope for " + model.id + " on " + std::to_string(s.devices()) +
                    " devices: D = " + std::to_string(s.dp) +
                    " is the launcher's world size / (T × C × K)");
    // What DeepSpeed's config has no key for, and where each is set instead.
    if (s.tp > 1)
        notes.push_back("T = " + std::to_string(s.tp) +
                        ": tensor parallelism is the model code's (Megatron-DeepSpeed "
                        "--tensor-model-parallel-size), not this file's");
    if (s.pp > 1)
        notes.push_back("K = " + std::to_string(s.pp) +
                        ": deepspeed.pipe.PipelineModule(num_stages=" + std::to_string(s.pp) +
                        "), 1F1B (deepspeed/runtime/pipe/schedule.py, TrainSchedule)");
    if (s.pp > 1 && s.pipelineLayout == core::kParametersLayout)
        notes.push_back("pipeline_layout parameters: PipelineModule(partition_method="
                        "'parameters'), its default (deepspeed/runtime/pipe/module.py), set in "
                        "the model code, not this file");
    else if (s.pp > 1 && (!s.pipelineLayout.empty() || s.endsInPipelineSplit))
        notes.push_back((s.pipelineLayout.empty() ? std::string("ends_in_pipeline_split")
                                                  : "pipeline_layout " + s.pipelineLayout) +
                        ": PipelineModule places the layers by its partition_method "
                        "(deepspeed/runtime/pipe/module.py), set in the model code, not this "
                        "file");
    if (s.cp > 1)
        notes.push_back("C = " + std::to_string(s.cp) +
                        ": DeepSpeed-Ulysses sequence parallelism over " + std::to_string(s.cp) +
                        " devices (deepspeed.sequence.layer.DistributedAttention)");
    if (s.ep > 1)
        notes.push_back("E = " + std::to_string(s.ep) +
                        ": deepspeed.moe.layer.MoE(ep_size=" + std::to_string(s.ep) + ")");
    if (s.mtpLayers > 0 && s.mode == core::Mode::training)
        notes.push_back("mtp_layers=" + std::to_string(s.mtpLayers) +
                        ": DeepSpeed has no multi-token-prediction module; the model's own code "
                        "would build it");
    if (s.lossFusion != core::LossFusion::none && s.mode == core::Mode::training)
        notes.push_back("loss_fusion=" + core::fieldText(s, "loss_fusion") +
                        ": a Megatron-LM loss kernel; the model's own code computes the loss "
                        "under DeepSpeed");
    if (s.fp8ActivationInput && s.mode == core::Mode::training)
        notes.push_back("fp8_activation_input=true: Megatron-core's fused SwiGLU keeps its input "
                        "in FP8; under DeepSpeed the model's own code keeps the SwiGLU's input");
    if (s.packedExampleTokens > 0 && s.mode == core::Mode::training)
        notes.push_back("packed_example_tokens=" + std::to_string(s.packedExampleTokens) +
                        ": packing is the data loader's, with a varlen attention kernel in the "
                        "model's code");
    if (s.loraRank > 0 && s.mode == core::Mode::training)
        notes.push_back(
            "lora_rank=" + std::to_string(s.loraRank) + " on " + pythonWordList(s.loraModules) +
            ": DeepSpeed's config has no LoRA; the model's code adds the adapters, "
            "usually with Hugging Face PEFT's LoraConfig(r=" +
            std::to_string(s.loraRank) +
            (s.loraDropout > 0 ? ", lora_dropout=" + core::plainNumber(s.loraDropout) : "") +
            ", target_modules=...) in the model's own module names" +
            (s.loraDropout > 0 && s.loraDropoutPosition == core::LoraDropoutPosition::post
                 ? " (PEFT drops the adapters' input, not B's output)"
                 : "") +
            "; without them this config trains every weight");
    if (s.recompute == core::Recompute::full && s.recomputeLayers > 0 &&
        s.mode == core::Mode::training)
        notes.push_back("recompute_layers=" + std::to_string(s.recomputeLayers) +
                        ": the model's code chooses which layers it checkpoints "
                        "(deepspeed.checkpointing.checkpoint); recompute only the first " +
                        std::to_string(s.recomputeLayers) + " of each stage to match");
    if (s.offloadLayers > 0 && s.mode == core::Mode::training)
        notes.push_back("offload_layers=" + std::to_string(s.offloadLayers) +
                        ": Transformer Engine's CPU offloading of the first layers' activations "
                        "is not a DeepSpeed setting; wrap those layers in "
                        "transformer_engine.pytorch.get_cpu_offload_context to match");
    if (const std::string note = rankLoadNote(s, model); !note.empty())
        notes.push_back(note);
    // DeepSpeed-MoE's gate pads every expert to a capacity: ceil(tokens x k / experts x factor)
    // with drop_tokens, else the largest load in its group (deepspeed/moe/sharded_moe.py,
    // topkgating), the even share under Parascope's balanced routing.
    if (model.hasExperts()) {
        if (!s.expertCapacityFactor)
            notes.push_back("dropless: deepspeed.moe.layer.MoE(drop_tokens=False), every expert "
                            "padded to the largest load of its group");
        else
            notes.push_back(
                "expert_capacity_factor=" + core::fieldText(s, "expert_capacity_factor") +
                ": deepspeed.moe.layer.MoE(capacity_factor=" +
                core::fieldText(s, "expert_capacity_factor") +
                ", drop_tokens=True), which pads every expert to its capacity" +
                (s.padToCapacity ? "" : " (timed here without the padding)"));
    }
    // DeepSpeed-MoE dispatches with one all-to-all of every copy (deepspeed/moe/sharded_moe.py,
    // _AllToAll); it has no dispatcher that sends a token once a node.
    if (s.ep > 1 && s.epDispatcher == core::EpDispatcher::flex)
        notes.push_back("ep_dispatcher=flex: DeepSpeed-MoE has no dispatcher that sends a token "
                        "once to each node (DeepEP, HybridEP); it runs the all-to-all, each copy "
                        "on its own (ep_dispatcher=alltoall), which Parascope times slower "
                        "across nodes");
    if (s.tp > 1 && s.sequenceParallel)
        notes.push_back("sequence_parallel: the model code's (Megatron-DeepSpeed "
                        "--sequence-parallel)");
    // The attention kernel is the model code's: Transformers' attn_implementation.
    switch (s.attention) {
    case core::Attention::flash:
        notes.push_back("attention=flash: timed at the device's fused kernel (cuDNN's on "
                        "Hopper), which Transformers' sdpa runs only with CUDNN_ATTENTION first "
                        "(torch.nn.attention.sdpa_kernel); by default it runs FlashAttention-2");
        break;
    case core::Attention::flash3:
        notes.push_back("attention=flash3: timed with FlashAttention-3 loaded into the model");
        break;
    case core::Attention::eager:
        notes.push_back("attention=eager: Transformers' attn_implementation=\"eager\"");
        break;
    case core::Attention::flash2:
        break; // Transformers' default sdpa on Hopper, and flash_attention_2
    }
    if (s.recompute == core::Recompute::selective || s.recompute == core::Recompute::op)
        notes.push_back("recompute=" + std::string(core::toString(s.recompute)) +
                        " has no DeepSpeed setting: the model code's own");
    if (s.overlapParamGather && s.zero >= 1 && s.zero <= 2)
        notes.push_back("overlap_param_gather: DeepSpeed's ZeRO-1 and 2 gather the updated "
                        "parameters in the optimizer step");
    if (s.dpOverlap && *s.dpOverlap > 0 && *s.dpOverlap < 1 && s.zero >= 1)
        notes.push_back("dp_overlap=" + core::fieldText(s, "dp_overlap") +
                        " has no DeepSpeed setting: written as overlap_comm true");
    if (s.dpOverlap && *s.dpOverlap > 0 && s.zero == 0)
        notes.push_back("dp_overlap=" + core::fieldText(s, "dp_overlap") +
                        ": with ZeRO off DeepSpeed all-reduces after the backward, nothing "
                        "hidden");
    if (s.fusedElementwise)
        notes.push_back("fused_elementwise: the model code's (Liger-Kernel or torch.compile), "
                        "not a DeepSpeed setting");
    if (s.precision != core::Precision::bf16 && s.precision != core::Precision::fp16 &&
        s.precision != core::Precision::fp32)
        notes.push_back("precision " + core::fieldText(s, "precision") +
                        " has no DeepSpeed setting: written as bf16");
    if (s.schedule != core::Schedule::oneFOneB && s.pp > 1)
        notes.push_back("schedule " + core::fieldText(s, "schedule") +
                        ": DeepSpeed's pipeline engine runs 1F1B only" +
                        (s.schedule == core::Schedule::dualPipeV
                             ? "; it has no DualPipeV and runs one chunk a stage, the LM head on "
                               "the last, not two in a V with both ends on stage 0"
                             : ""));
    if (s.rankOrder == core::RankOrder::pipelineInner)
        notes.push_back("rank_order tp-cp-ep-pp-dp: DeepSpeed's topology keeps the pipeline "
                        "outermost (axes pipe, data, model: deepspeed/runtime/pipe/topology.py)");

    // Hybrid sharding is MiCS, ZeRO-3's (engine.py, _configure_zero_optimizer), over shard
    // groups of consecutive ranks of the whole world (mics_utils.py), the model built under
    // MiCS_Init (mics.py).
    int micsShardSize = 0;
    const std::string replicas = "zero_replicas=" + std::to_string(s.zeroReplicas);
    if (s.zeroReplicas > 1 && s.zero == 0)
        notes.push_back(replicas + " without ZeRO: nothing to shard");
    else if (s.zeroReplicas > 1 && s.zero < 3)
        notes.push_back(replicas + ": DeepSpeed's hybrid sharding, MiCS, is ZeRO-3's; ZeRO-" +
                        std::to_string(s.zero) + " shards over all D × C");
    else if (s.zeroReplicas > 1 && s.dp % s.zeroReplicas != 0)
        notes.push_back(replicas + " does not divide D = " + std::to_string(s.dp) +
                        ": written without MiCS");
    else if (s.zeroReplicas > 1 && s.tp * s.pp > 1)
        notes.push_back(replicas + ": MiCS groups consecutive ranks of the whole world, not of "
                                   "the data-parallel group, so it takes no tensor or pipeline "
                                   "parallelism; written without, ZeRO-3 over all D × C");
    else if (s.zeroReplicas > 1) {
        micsShardSize = s.dp * s.cp / s.zeroReplicas;
        notes.push_back(replicas + ": MiCS over shard groups of D × C / " +
                        std::to_string(s.zeroReplicas) + " = " + std::to_string(micsShardSize) +
                        " ranks; build the model under deepspeed.zero.MiCS_Init("
                        "config_dict_or_path=this file)");
        if (!s.deferReplicaReduce)
            notes.push_back("defer_replica_reduce=false: MiCS all-reduces across its "
                            "replication groups at the gradient accumulation boundary only "
                            "(mics.py, allreduce_mics_shard_grads)");
    }

    const bool fp16 = s.precision == core::Precision::fp16;
    const bool bf16 = !fp16 && s.precision != core::Precision::fp32;
    // FP32 accumulation of BF16 gradients is DeepSpeed's BF16_Optimizer, which it runs under
    // ZeRO-1 only (deepspeed/runtime/engine.py, _do_optimizer_sanity_check; without ZeRO it
    // refuses the mix).
    const bool fp32Accumulation = bf16 && s.gradPrecision == core::Precision::fp32 && s.zero == 1;
    if (s.gradPrecision == core::Precision::fp32 && (bf16 || fp16) && !fp32Accumulation)
        notes.push_back("grad_precision fp32: DeepSpeed accumulates FP32 gradients of BF16 "
                        "weights under ZeRO-1 only (BF16_Optimizer, data_types.grad_accum_dtype), "
                        "so this file leaves the accumulation in the model's type");
    if (s.optimizerMoments == core::Precision::bf16 && s.mode == core::Mode::training)
        notes.push_back("optimizer_moments=bf16: DeepSpeed's Adam keeps FP32 moments beside the "
                        "FP32 master weights; no configuration key narrows them");
    const std::int64_t global =
        std::int64_t{s.microbatchSize} * s.microbatches * std::int64_t{s.dp};
    std::string text = "{\n  \"" + std::string(kCommentKey) + "\": [\n";
    for (std::size_t i = 0; i < notes.size(); ++i)
        text += "    " + quotedJson(notes[i]) + (i + 1 < notes.size() ? ",\n" : "\n");
    text += "  ],\n";
    text += "  \"train_batch_size\": " + std::to_string(global) + ",\n";
    text += "  \"train_micro_batch_size_per_gpu\": " + std::to_string(s.microbatchSize) + ",\n";
    text += "  \"gradient_accumulation_steps\": " + std::to_string(s.microbatches) + ",\n";
    text += "  \"zero_optimization\": {\n    \"stage\": " + std::to_string(s.zero);
    // dp_overlap=auto is overlap_comm, which DeepSpeed leaves off below ZeRO-3 unless the
    // file says otherwise (deepspeed/runtime/zero/config.py, overlap_comm_valid).
    if (s.zero >= 1)
        text += std::string(",\n    \"overlap_comm\": ") +
                (!s.dpOverlap || *s.dpOverlap > 0 ? "true" : "false");
    if (s.dpBucketParams)
        text += ",\n    \"reduce_bucket_size\": " +
                std::to_string(static_cast<long long>(std::llround(*s.dpBucketParams)));
    if (micsShardSize > 0)
        text += ",\n    \"mics_shard_size\": " + std::to_string(micsShardSize);
    text += "\n  },\n";
    text +=
        std::string("  \"bf16\": {\n    \"enabled\": ") + (bf16 ? "true" : "false") + "\n  },\n";
    text += std::string("  \"fp16\": {\n    \"enabled\": ") + (fp16 ? "true" : "false") + "\n  }";
    if (fp32Accumulation)
        text += ",\n  \"data_types\": {\n    \"grad_accum_dtype\": \"fp32\"\n  }";
    if (s.recompute == core::Recompute::full)
        text += ",\n  \"activation_checkpointing\": {\n    \"partition_activations\": false,\n"
                "    \"cpu_checkpointing\": false\n  }";
    text += "\n}\n";
    return text;
}

} // namespace io
