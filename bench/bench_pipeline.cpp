// Speed of the pipeline engine (docs/DESIGN.md §3.3): evaluate() runs on every slider move,
// and the simulation must stay fast at the timeline's largest size.
#include "core/evaluate.h"
#include "core/schedule.h"
#include "io/presets_io.h"

#include <benchmark/benchmark.h>

namespace {

// docs/DESIGN.md §4's default scenario: Llama 3.1 70B, H100, T=8, K=4, D=2, m=16, 1F1B.
void evaluateDefault70B(benchmark::State &state)
{
    const core::Presets presets = io::builtinPresets();
    const core::Scenario scenario;
    for (auto _ : state)
        benchmark::DoNotOptimize(core::evaluate(scenario, presets));
}
BENCHMARK(evaluateDefault70B)->Unit(benchmark::kMicrosecond);

// Serving (docs/inference.md): Llama 3.1 70B on 4 H100s, a batch of 32, 2,048 tokens in and
// 512 out; K = 1 and K = 4 (the decode model runs nine contexts per stage).
void evaluateServing70B(benchmark::State &state)
{
    const core::Presets presets = io::builtinPresets();
    core::Scenario scenario;
    scenario.mode = core::Mode::inference;
    scenario.tp = 4;
    scenario.pp = static_cast<int>(state.range(0));
    scenario.dp = 1;
    scenario.microbatches = 1;
    scenario.microbatchSize = 32;
    scenario.seqLen = 2048;
    scenario.outputLen = 512;
    for (auto _ : state)
        benchmark::DoNotOptimize(core::evaluate(scenario, presets));
}
BENCHMARK(evaluateServing70B)->Arg(1)->Arg(4)->Unit(benchmark::kMicrosecond);

// The status line at the timeline's largest 1F1B case: Llama 3.1 405B, T=8, K=64, m=1024,
// evaluated without the timeline as the window does for every page but the Timeline.
void evaluate405BK64m1024(benchmark::State &state)
{
    const core::Presets presets = io::builtinPresets();
    core::Scenario scenario;
    scenario.model = "llama-3.1-405b";
    scenario.tp = 8;
    scenario.pp = 64;
    scenario.dp = 1;
    scenario.microbatches = 1024 + static_cast<int>(state.range(0));
    for (auto _ : state)
        benchmark::DoNotOptimize(core::evaluate(scenario, presets));
}
BENCHMARK(evaluate405BK64m1024)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// docs/DESIGN.md §2: the timeline's largest case, K=64, m=1024, interleaved with v=4.
void simulateInterleavedK64m1024v4(benchmark::State &state)
{
    const core::PipelineInput input =
        core::uniformPipeline(core::Schedule::interleaved, 64, 1024, 4);
    const bool timeline = state.range(0) != 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(core::simulatePipeline(input, timeline));
    state.SetLabel(timeline ? "with timeline" : "numbers only");
}
BENCHMARK(simulateInterleavedK64m1024v4)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
