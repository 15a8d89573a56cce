#include "core/validate.h"

#include <string>

namespace core {

namespace {

std::string joinIds(const auto &items)
{
    std::string out;
    for (const auto &item : items)
        out += (out.empty() ? "" : ", ") + item.id;
    return out;
}

std::optional<InputError> positive(std::string_view key, double value, std::string_view what)
{
    if (value > 0)
        return std::nullopt;
    return InputError{std::string(key), "must be at least 1 (" + std::string(what) + ")"};
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

std::vector<int> splitLayers(int layers, int stages)
{
    std::vector<int> out(static_cast<std::size_t>(std::max(stages, 0)), 0);
    if (stages <= 0)
        return out;
    for (int s = 0; s < stages; ++s)
        out[static_cast<std::size_t>(s)] = layers / stages + (s < layers % stages ? 1 : 0);
    return out;
}

std::optional<InputError> validateModel(const ModelSpec &m)
{
    auto error = [](std::string key, std::string message) {
        return InputError{"model." + key, std::move(message)};
    };
    if (!m.hasArchitecture()) {
        if (m.layers < 0)
            return error("layers", "must be at least 1");
        if (m.params <= 0)
            return error("params", "a model needs its architecture (layers, hidden, heads, "
                                   "kv_heads, ffn_hidden, vocab) or a parameter count above 0");
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
    if (m.nominalParams < 0)
        return error("nominal_params", "must not be negative");
    return std::nullopt;
}

std::optional<InputError> validateDevice(const DeviceSpec &d)
{
    auto error = [](std::string key, std::string message) {
        return InputError{"device." + key, std::move(message)};
    };
    if (!(d.memoryGib > 0))
        return error("memory_gib", "must be above 0");
    if (d.devicesPerNode <= 0)
        return error("devices_per_node", "must be at least 1");
    if (d.intraNodeGbPerS < 0)
        return error("intra_node_gb_per_s", "must not be negative");
    if (d.interNodeGbPerS < 0)
        return error("inter_node_gb_per_s", "must not be negative");
    for (const auto &[precision, tflops] : d.tflops)
        if (!(tflops > 0))
            return error("tflops", std::string(toString(precision)) + " must be above 0");
    return std::nullopt;
}

std::optional<InputError> validate(const Scenario &s, const Presets &presets)
{
    const ModelSpec *model = resolveModel(s, presets);
    if (!model)
        return InputError{"model",
                          "unknown preset '" + s.model + "'; known: " + joinIds(presets.models)};
    if (auto e = validateModel(*model))
        return e;
    const DeviceSpec *device = resolveDevice(s, presets);
    if (!device)
        return InputError{"device",
                          "unknown preset '" + s.device + "'; known: " + joinIds(presets.devices)};
    if (auto e = validateDevice(*device))
        return e;

    for (auto [key, value, what] : {
             std::tuple{"tp", s.tp, "tensor-parallel degree"},
             std::tuple{"pp", s.pp, "pipeline stages"},
             std::tuple{"dp", s.dp, "data-parallel degree"},
             std::tuple{"microbatches", s.microbatches, "micro-batches per step"},
             std::tuple{"microbatch_size", s.microbatchSize, "sequences per micro-batch"},
             std::tuple{"seq_len", s.seqLen, "tokens per sequence"},
             std::tuple{"virtual_stages", s.virtualStages, "model chunks per device"},
         })
        if (auto e = positive(key, value, what))
            return e;
    if (s.zero < 0 || s.zero > 3)
        return InputError{"zero", "must be 0, 1, 2 or 3, got " + std::to_string(s.zero)};
    if (s.gradPrecision != Precision::bf16 && s.gradPrecision != Precision::fp32)
        return InputError{"grad_precision", "must be bf16 or fp32"};
    if (!(s.reserveGib >= 0))
        return InputError{"reserve_gib", "must not be negative"};
    if (s.interNodeGbPerS && !(*s.interNodeGbPerS > 0))
        return InputError{"inter_node_gb_per_s", "must be above 0, or empty for the device's"};
    if (!(s.mfu > 0 && s.mfu <= 1))
        return InputError{"mfu", "must be above 0 and at most 1"};
    if (!(s.dpOverlap >= 0 && s.dpOverlap <= 1))
        return InputError{"dp_overlap", "must be between 0 and 1"};
    if (s.mode == Mode::training && !isTrainable(s.precision))
        return InputError{"precision", std::string(toString(s.precision)) +
                                           " is for inference only; training needs fp32, bf16, "
                                           "fp16 or fp8"};

    if (model->hasArchitecture()) {
        if (s.pp > model->layers)
            return InputError{"pp", std::to_string(s.pp) + " stages exceed the model's " +
                                        std::to_string(model->layers) + " layers"};
        if (model->heads % s.tp != 0)
            return InputError{"tp", "the model's " + std::to_string(model->heads) +
                                        " attention heads do not divide by " +
                                        std::to_string(s.tp)};
    }
    if (s.schedule == Schedule::interleaved) {
        // Megatron-LM's interleaved schedule needs m to be a multiple of K.
        if (s.microbatches % s.pp != 0)
            return InputError{"microbatches", "the interleaved schedule needs a multiple of pp (" +
                                                  std::to_string(s.pp) + "), got " +
                                                  std::to_string(s.microbatches)};
        if (model->hasArchitecture())
            for (int layers : splitLayers(model->layers, s.pp))
                if (layers % s.virtualStages != 0)
                    return InputError{"virtual_stages", "a stage of " + std::to_string(layers) +
                                                            " layers does not split into " +
                                                            std::to_string(s.virtualStages) +
                                                            " chunks"};
    }
    return std::nullopt;
}

} // namespace core
