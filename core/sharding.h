#pragma once

#include "core/comm_cost.h"
#include "core/device.h"
#include "core/error.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/presets.h"
#include "core/scenario.h"

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace core {

// How a weight matrix is cut across the T devices of a tensor-parallel group.
enum class Split
{
    rows,
    columns
};

constexpr auto enumNames(Split)
{
    return std::array{EnumName<Split>{Split::rows, "rows"},
                      EnumName<Split>{Split::columns, "columns"}};
}

// The numerical check: at a reduced size (default), the requested size, or not at all.
enum class Verify
{
    small,
    full,
    off
};

constexpr auto enumNames(Verify)
{
    return std::array{EnumName<Verify>{Verify::small, "small"},
                      EnumName<Verify>{Verify::full, "full"}, EnumName<Verify>{Verify::off, "off"}};
}

// The feed-forward block Y = act(X·W1)·W2 with X [tokens, hidden], W1 [hidden, ffn],
// W2 [ffn, hidden] (docs/DESIGN.md §3.4).
struct FfnShape
{
    std::int64_t tokens = 0;
    std::int64_t hidden = 0;
    std::int64_t ffn = 0;
    bool operator==(const FfnShape &) const = default;
};

// One collective a strategy performs, with the size of the full tensor it carries.
struct CollectiveCall
{
    Collective kind = Collective::allReduce;
    std::int64_t values = 0;       // elements of the full tensor (e.g. tokens·ffn)
    std::int64_t payloadBytes = 0; // those values at the activation precision
    bool operator==(const CollectiveCall &) const = default;
};

struct CollectiveCounts
{
    int allReduce = 0;
    int allGather = 0;
    int reduceScatter = 0;
    bool operator==(const CollectiveCounts &) const = default;
};

CollectiveCounts countCollectives(const std::vector<CollectiveCall> &calls);

// The collectives a strategy needs so that Y ends replicated on every device,
// in the order they happen (docs/DESIGN.md §3.4). X starts replicated on every device,
// as in Megatron-LM (Shoeybi et al. 2019, §3: the block's input is the output
// of the previous all-reduce), so a device whose W1 shard is a row block takes
// the matching column slice of X locally, without communication.
std::vector<CollectiveCall> requiredCollectives(Split w1, Split w2, const FfnShape &shape, int tp,
                                                Precision activations);

// FLOPs of the block: two matmuls of 2·tokens·hidden·ffn each (Kaplan et al. 2020, §2.1:
// a multiply-add is two FLOPs).
double ffnFlops(const FfnShape &shape);

// The FLOPs of the numerical check at `shape`: the unsharded reference and the four
// strategies, each the layer's FLOPs once.
double checkFlops(const FfnShape &shape);

// The size the default numerical check runs at: the ratio ffn/hidden kept exactly,
// hidden and ffn still divisible by tp, hidden at most `hiddenCap` where that is
// possible, tokens scaled by the same factor, at most `tokensCap` and few enough for
// `flopsCap` and `bytesCap` (checkFlops, verifyBytes), but at least one. When hidden and
// ffn share no factor that allows it (h and f coprime, say), hidden becomes the smallest
// multiple of tp from `hiddenCap` and ffn the multiple of tp nearest the same ratio.
// Never larger than `requested`.
inline constexpr std::int64_t kVerifyHiddenCap = 64;
inline constexpr std::int64_t kVerifyTokensCap = 256;
// The window runs the reduced check on the GUI thread at every change, so it must take a
// fraction of a second whatever the layer. Its time follows its FLOPs and the bytes it
// holds and copies (measured at -O2 on one core: about 10 GFLOP/s, and 7 to 20 ms per MB
// held), so these caps keep it within about 0.3 s. Llama 3.1 70B at T = 8 needs 73 MFLOP
// and 3 MB; without the caps the 8192 × 32768 layer at T = 256 took 3.0 s, and h = 1,
// f = 262,144 8.7 s.
inline constexpr double kVerifyFlopsCap = 1e9;
inline constexpr double kVerifyBytesCap = 16.0 * 1024 * 1024;
FfnShape reducedShape(const FfnShape &requested, int tp, std::int64_t hiddenCap = kVerifyHiddenCap,
                      std::int64_t tokensCap = kVerifyTokensCap, double flopsCap = kVerifyFlopsCap,
                      double bytesCap = kVerifyBytesCap);

// The most bytes executeStrategies holds at once at this shape on `tp` simulated devices
// (an upper bound, counted from its matrices: X, W1, W2 and the reference, then every
// device's activations and outputs with one gathered or summed copy of each).
double verifyBytes(const FfnShape &shape, int tp);

// --- The demonstrator: every strategy really executed on T simulated devices ---

// Called with the fraction done (0..1); returning false cancels the run.
using ProgressFn = std::function<bool(double)>;

struct ExecutedStrategy
{
    Split w1 = Split::columns;
    Split w2 = Split::rows;
    std::vector<CollectiveCall> collectives; // what the simulated devices did
    double maxAbsError = 0;                  // over every device's replica of Y
    double maxRelError = 0;                  // maxAbsError / max |Y_reference|
};

struct Execution
{
    FfnShape shape;
    bool cancelled = false;
    std::vector<ExecutedStrategy> strategies; // complete ones only when cancelled
};

// Random X, W1, W2 from std::mt19937_64(seed); the unsharded product as the
// reference; then the four strategies, each on `tp` simulated devices.
Execution executeStrategies(const FfnShape &shape, int tp, std::uint64_t seed,
                            Precision activations, const ProgressFn &progress = {});

// Simulated collectives over one matrix per device (exposed for tests).
void allReduce(std::vector<Eigen::MatrixXf> &parts);
void allGatherColumns(std::vector<Eigen::MatrixXf> &shards);
void reduceScatterColumns(std::vector<Eigen::MatrixXf> &parts);

// GeLU, tanh form (Hendrycks & Gimpel 2016, §2); nonlinear, so partial sums
// must be reduced before it.
float gelu(float x);
// gelu() of every entry, vectorized.
void geluInPlace(Eigen::MatrixXf &m);

// --- The whole analysis behind `parascope shard` ---

inline constexpr double kDefaultVerifyMemoryBytes = 1024.0 * 1024 * 1024; // 1 GiB

struct ShardRequest
{
    FfnShape shape{4096, 8192, 32768}; // docs/worked-examples.md §6: h = 8192, f = 32768
    int tp = 4;
    std::uint64_t seed = 42;
    Precision precision = Precision::bf16;
    Verify verify = Verify::small;
    std::optional<double> mfu; // forced efficiency; empty: the device's matmul efficiency
    std::optional<double> interNodeGbPerS;
    // The numerical check may hold at most this many bytes (verifyBytes); a larger one is
    // refused before it allocates anything. The default suits any reduced check; a
    // full-size check asks its caller for the computer's memory.
    double verifyMemoryBytes = kDefaultVerifyMemoryBytes;
};

struct StrategyReport
{
    Split w1 = Split::columns;
    Split w2 = Split::rows;
    std::vector<CollectiveCall> collectives; // at the requested size
    CollectiveCounts counts;
    std::int64_t payloadBytes = 0;
    double wireBytesPerDevice = 0;
    double computeS = 0;
    double commS = 0;
    double totalS = 0;
    std::optional<double> maxAbsError; // empty when the check did not run
    std::optional<double> maxRelError;
};

struct ShardReport
{
    std::optional<InputError> error; // key names the request field ("hidden", "tp", ...)
    FfnShape requested;
    FfnShape executed; // all zero when the check is off or did not run
    // Why the reduced check did not run although asked (too much memory, or more than
    // kVerifyFlopsCap or kVerifyBytesCap at one token), else empty. A full-size check that cannot
    // run is an error naming "verify" instead.
    std::string checkNotRun;
    Verify verify = Verify::small;
    bool cancelled = false;
    int tp = 1;
    Precision precision = Precision::bf16;
    Link link;
    // The fraction of the peak the multiplies run at: the request's mfu, or the device's
    // matrix-multiply efficiency where that is auto (mfuForced false).
    double matmulEfficiency = 0;
    bool mfuForced = false;
    std::vector<StrategyReport>
        strategies; // columns→rows, rows→rows, columns→columns, rows→columns
    int best = 0;   // index into strategies
    int worst = 0;
    double speedupBestOverWorst = 1;

    bool ok() const { return !error; }
};

std::optional<InputError> validateShardRequest(const ShardRequest &request,
                                               const DeviceSpec &device);

// The request for one feed-forward layer of a scenario's model: its hidden and
// FFN sizes, tokens = micro-batch size × sequence length, the scenario's T,
// MFU and network; weight-only formats (int8, int4, q*) compute in BF16.
// Empty for a size-only model.
std::optional<ShardRequest> shardRequestFor(const Scenario &scenario, const ModelSpec &model);

ShardReport analyzeSharding(const ShardRequest &request, const DeviceSpec &device,
                            const ProgressFn &progress = {});

// The analysis of a scenario's feed-forward layer on its device, as the window's
// sharding tab and `parascope export` show it: one function, so both draw the
// same numbers. An error naming the model when it is known only by its size.
ShardReport analyzeScenarioSharding(const Scenario &scenario, const Presets &presets);

} // namespace core
