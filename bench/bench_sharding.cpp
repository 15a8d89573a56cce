// docs/sharding.md: the sharding cost model at the 8192 × 32768 layer's size, and the default
// numerical check.
#include "core/sharding.h"

#include <benchmark/benchmark.h>

namespace {

core::DeviceSpec h100()
{
    // devices.json's h100-sxm figures that the cost model reads.
    core::DeviceSpec d;
    d.id = "h100-sxm";
    d.memoryGib = 80;
    d.tflops = {{core::Precision::bf16, 989}};
    d.devicesPerNode = 8;
    d.intraNodeGbPerS = 450;
    d.interNodeGbPerS = 50;
    return d;
}

// Counts, payloads and times for the four splits at h=8192, f=32768 (no execution).
void BM_ShardCostsFfn8192(benchmark::State &state)
{
    const core::DeviceSpec device = h100();
    core::ShardRequest request;
    request.tp = static_cast<int>(state.range(0));
    request.verify = core::Verify::off;
    for (auto _ : state)
        benchmark::DoNotOptimize(core::analyzeSharding(request, device));
}
BENCHMARK(BM_ShardCostsFfn8192)->Arg(4)->Arg(16);

// The default check the GUI runs on every change: the default request (h 8192, f 32768), T=4,
// reduced size.
void BM_ShardVerifySmall(benchmark::State &state)
{
    const core::DeviceSpec device = h100();
    core::ShardRequest request;
    request.tp = static_cast<int>(state.range(0));
    for (auto _ : state)
        benchmark::DoNotOptimize(core::analyzeSharding(request, device));
}
BENCHMARK(BM_ShardVerifySmall)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond);

// docs/sharding.md: the full-size check of 70B's layer (h 8192, f 28672, 4096 tokens, T 8) with
// every dimension divided by 8: 1/512 of its FLOPs. The FLOP/s counter is the rate
// ShardingVerifier's time estimate starts from (ui/sharding_verifier.cpp).
void BM_ShardVerifyFullEighth(benchmark::State &state)
{
    const core::DeviceSpec device = h100();
    core::ShardRequest request;
    request.shape = {512, 1024, 3584};
    request.tp = 8;
    request.verify = core::Verify::full;
    for (auto _ : state)
        benchmark::DoNotOptimize(core::analyzeSharding(request, device));
    // The unsharded reference and the four splits: five times the layer's FLOPs.
    state.counters["FLOP/s"] = benchmark::Counter(5 * core::ffnFlops(request.shape),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ShardVerifyFullEighth)->Unit(benchmark::kSecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
