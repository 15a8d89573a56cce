// Speed of the planner (docs/planner.md): layouts evaluated per second and the wall time of a whole
// search for the cluster sizes the README quotes.
#include "core/framework.h"
#include "core/planner.h"
#include "core/serving_plan.h"
#include "io/presets_io.h"

#include <benchmark/benchmark.h>
#include <optional>

namespace {

// Llama 3 trained 405B with 16M-token batches (Llama 3 paper, Table 4: 2,048 × 8,192);
// 70B here with docs/DESIGN.md §4's default sequence length and 512 sequences.
core::PlanRequest request(const char *model, int devices, int globalBatch, int seqLen)
{
    core::PlanRequest r;
    r.base.model = model;
    r.base.device = "h100-sxm";
    r.base.seqLen = seqLen;
    r.devices = devices;
    r.globalBatch = globalBatch;
    return r;
}

void planSearch(benchmark::State &state, core::PlanRequest req)
{
    const core::Presets presets = io::builtinPresets();
    req.threads = static_cast<int>(state.range(0));
    core::PlanResult result;
    for (auto _ : state)
        result = core::plan(req, presets);
    const auto runs = static_cast<double>(state.iterations());
    state.counters["layouts"] = static_cast<double>(result.layouts);
    state.counters["evaluated"] = static_cast<double>(result.evaluated);
    state.counters["evaluated/s"] = benchmark::Counter(static_cast<double>(result.evaluated) * runs,
                                                       benchmark::Counter::kIsRate);
    state.counters["layouts/s"] =
        benchmark::Counter(static_cast<double>(result.layouts) * runs, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(planSearch, llama70b_64_devices, request("llama-3.1-70b", 64, 512, 4096))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(planSearch, llama405b_1024_devices, request("llama-3.1-405b", 1024, 2048, 8192))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(planSearch, llama405b_16384_devices, request("llama-3.1-405b", 16384, 2048, 8192))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Experts and long context (docs/planner.md, "Experts and long context"): Mixtral 8x7B and
// DeepSeek-V3 search E as well; 405B at 131,072 tokens searches C, with the Llama 3 paper's
// 16M-token batch (Table 4: 128 × 131,072 on 16,384 H100s).
BENCHMARK_CAPTURE(planSearch, mixtral8x7b_64_devices, request("mixtral-8x7b", 64, 512, 4096))
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(planSearch, deepseek_v3_2048_devices, request("deepseek-v3", 2048, 4096, 4096))
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Megatron-LM's one-stage layouts that fit only with activations offloaded (docs/planner.md,
// "Offloaded layers"): Megatron-Bridge's Llama 3 70B keys on 64 GB200s, 256 × 8,192 tokens.
core::PlanRequest offloadingRequest()
{
    core::PlanRequest r = request("llama-3.1-70b", 64, 256, 8192);
    r.base.device = "gb200-nvl72";
    core::applyFramework(r.base, core::Framework::megatron);
    r.base.precision = core::Precision::fp8;
    r.base.fp8Scaling = core::Fp8Scaling::current;
    r.base.fp8Params = true;
    r.base.gradPrecision = core::Precision::bf16;
    return r;
}
BENCHMARK_CAPTURE(planSearch, llama70b_gb200_offloading_64_devices, offloadingRequest())
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(planSearch, llama405b_131072_tokens_16384_devices,
                  request("llama-3.1-405b", 16384, 128, 131072))
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The deployment planner (docs/inference.md, "Planning a deployment"): every replica shape
// at its largest batch. 70B at FP8 with the README's targets; 405B with no limit on N, which
// searches every shape up to T = 128 and K = 126.
core::ServingPlanRequest servingRequest(const char *model, core::Precision precision, int devices,
                                        std::optional<double> tpotS)
{
    core::ServingPlanRequest r;
    r.base.model = model;
    r.base.device = "h100-sxm";
    r.base.mode = core::Mode::inference;
    r.base.precision = precision;
    r.base.seqLen = 1024;
    r.base.outputLen = 256;
    r.devices = devices;
    r.tpotTargetS = tpotS;
    return r;
}

void servingPlanSearch(benchmark::State &state, const core::ServingPlanRequest &req)
{
    const core::Presets presets = io::builtinPresets();
    core::ServingPlanResult result;
    for (auto _ : state)
        result = core::planServing(req, presets);
    const auto runs = static_cast<double>(state.iterations());
    state.counters["shapes"] = static_cast<double>(result.shapes);
    state.counters["evaluations"] = static_cast<double>(result.evaluations);
    state.counters["evaluations/s"] = benchmark::Counter(
        static_cast<double>(result.evaluations) * runs, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(servingPlanSearch, llama70b_fp8_64_devices_20ms,
                  servingRequest("llama-3.1-70b", core::Precision::fp8, 64, 0.020))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(servingPlanSearch, llama405b_bf16_every_shape,
                  servingRequest("llama-3.1-405b", core::Precision::bf16, 1 << 20, std::nullopt))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
