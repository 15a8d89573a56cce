#pragma once

#include "core/error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace core {

// The expert-parallel demonstrator (docs/sharding.md, "Expert parallelism"): a
// mixture-of-experts layer executed unsharded and on E simulated devices, with the
// all-to-all traffic of its dispatch and combine counted copy by copy.
//
// X [tokens, hidden]; router W_r [hidden, experts]; each expert a SwiGLU feed-forward
// (W1, W3 [hidden, expertFfn], W2 [expertFfn, hidden]) with its own weights.
struct ExpertRoutingInputs
{
    std::int64_t tokens = 256;
    std::int64_t hidden = 64;
    std::int64_t expertFfn = 128;
    int experts = 8;
    int topK = 2;
    int devices = 4; // E: divides experts and tokens
    // Added to the router's logits: `skew` for expert 0, falling linearly to 0 for the last
    // (routerBias). 0 is a balanced random router; a few units send most tokens to the
    // low-numbered experts, which live on device 0.
    double skew = 0;
    std::uint64_t seed = 42;
    int bytesPerValue = 2; // an activation on the wire (BF16)
    bool operator==(const ExpertRoutingInputs &) const = default;
};

// The check runs at every change of the window's controls, so it stays within these:
// measured at -O2 on one core, the defaults (51 MFLOP) take 8-10 ms and 206 MFLOP 27-45 ms,
// so a run at the FLOP cap takes about 50 ms.
inline constexpr std::int64_t kExpertMaxTokens = 8192;
inline constexpr std::int64_t kExpertMaxHidden = 1024;
inline constexpr std::int64_t kExpertMaxFfn = 4096;
inline constexpr int kExpertMaxExperts = 256;
inline constexpr double kExpertMaxSkew = 100;
inline constexpr double kExpertFlopsCap = 2.5e8;
inline constexpr double kExpertBytesCap = 64.0 * 1024 * 1024;
// Float sums in another order: agreement to a few float epsilons, as tst_sharding asks of
// the feed-forward splits.
inline constexpr double kExpertTolerance = 1e-5;

// One simulated device after the run.
struct ExpertDevice
{
    int firstExpert = 0;                         // it owns experts [firstExpert, firstExpert + n)
    std::vector<std::int64_t> receivedPerExpert; // (token, expert) copies each of its experts ran
    std::vector<std::int64_t> receivedFrom;      // copies from each device, itself included
    std::int64_t load = 0;                       // all copies its experts ran
    std::int64_t dispatchBytes = 0;              // sent in the dispatch all-to-all
    std::int64_t combineBytes = 0;               // sent in the combine all-to-all
};

struct ExpertRoutingResult
{
    std::optional<InputError> error; // key names the field ("experts", "top_k", ...)
    ExpertRoutingInputs inputs;
    std::vector<ExpertDevice> devices;
    double meanLoad = 0;  // tokens · top_k / E
    double imbalance = 0; // max load / mean load: 1 when balanced, E when one device takes all
    // What each device sends per direction when routing is uniform (balancedAllToAllBytes).
    double balancedBytesPerDevice = 0;
    double maxAbsError = 0; // over every token of the combined output
    double maxRelError = 0; // maxAbsError / max |Y_reference|
    bool passed = false;    // maxRelError within kExpertTolerance

    bool ok() const { return !error; }
};

std::optional<InputError> validateExpertRouting(const ExpertRoutingInputs &inputs);

// FLOPs of the run: the reference and the expert-parallel layer, each tokens · top_k
// copies through a SwiGLU of three matmuls, plus routing every token twice.
double expertRoutingFlops(const ExpertRoutingInputs &inputs);
// Floats held at once: X, the weights, the reference and output, the dispatched copies
// and their expert outputs.
double expertRoutingBytes(const ExpertRoutingInputs &inputs);

// Each device's bytes per direction when every (token, expert) copy is equally likely to
// go to any device: tokens/E · top_k · hidden · bytes · (E−1)/E.
double balancedAllToAllBytes(const ExpertRoutingInputs &inputs);

// The bias `skew` adds to each expert's router logit: skew · (1 − e/(experts − 1)).
double routerBias(int expert, int experts, double skew);

// One token's choice of experts: indices in decreasing gate weight, and the weights,
// renormalised over the k chosen (they sum to 1).
struct Route
{
    std::vector<int> experts;
    std::vector<float> weights;
};
// Softmax over every expert's logit (plus routerBias), the k largest (ties: the lower
// index), renormalised. `logits` has one entry per expert.
Route routeToken(const std::vector<double> &logits, int topK, double skew);

// Random X, W_r and experts from std::mt19937_64(seed); the layer unsharded, token by token,
// as the reference; then on E simulated devices: each routes its tokens/E tokens,
// dispatches every (token, expert) copy to the device owning the expert, runs its experts
// on what it received, and returns the outputs to be weighted and summed.
ExpertRoutingResult runExpertParallel(const ExpertRoutingInputs &inputs);

} // namespace core
