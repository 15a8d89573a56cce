#pragma once

// Planning a deployment (docs/inference.md, "Planning a deployment"): every replica shape
// T × K for a model, device and precisions, each at the largest batch that fits memory and
// meets the latency targets, ranked by output tokens per second per device; and the
// smallest deployment that fits.
#include "core/error.h"
#include "core/planner.h"
#include "core/presets.h"
#include "core/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core {

struct ServingPlanRequest
{
    // The model, the device, the precisions, the prompt (seq_len) and output (output_len)
    // lengths, the reserve and the framework; its layout keys are what the search sets.
    Scenario base;
    // Devices available: replica shapes of at most N devices are searched, and replicas of a
    // shape fill them (or as many as the throughput target needs).
    int devices = 64;
    std::optional<double> tpotTargetS;      // mean time per output token after the first
    std::optional<double> ttftTargetS;      // time to first token
    std::optional<double> tokensPerSTarget; // output tokens per second over every replica
    int top = 10;
    double headroomGib = 2.0; // free on every device beyond the reserve, as the planner's
};

// Why a larger batch would not do: what the candidate's batch is the largest under.
enum class BatchLimit
{
    memory,     // one more sequence per micro-batch does not fit (with the headroom)
    tpotTarget, // ... takes longer than the time-per-output-token target
    ttftTarget, // ... takes longer than the time-to-first-token target
    batchLimit, // limits::kMicrobatchSize sequences per micro-batch
};
constexpr auto enumNames(BatchLimit)
{
    using B = BatchLimit;
    return std::array{EnumName<B>{B::memory, "memory"},
                      EnumName<B>{B::tpotTarget, "time per output token target"},
                      EnumName<B>{B::ttftTarget, "time to first token target"},
                      EnumName<B>{B::batchLimit, "batch limit"}};
}

// One replica shape at the batch the search chose for it.
struct ServingCandidate
{
    int tp = 1;
    int pp = 1;
    int microbatches = 1;   // K: every stage has a micro-batch to serve (1 when K = 1)
    int microbatchSize = 1; // b
    std::int64_t batch = 1; // m × b sequences in flight per replica
    int replicas = 1;       // D
    // False: a link the replica needs publishes no bandwidth, so it ranks after every timed
    // shape, fewest devices first. Its times are then lower bounds, with the link's
    // transfers left out (linkTimeExcluded), or absent when the device gives no rates.
    bool timed = false;
    bool linkTimeExcluded = false;
    double ttftS = 0;                  // prefill of the whole batch: time to first token
    double tpotS = 0;                  // mean time per output token after the first
    double latencyS = 0;               // prefill + (output − 1) × the mean
    double tokensPerSPerReplica = 0;   // output tokens over the whole request
    double tokensPerSPerDevice = 0;    // what the shapes are ranked by
    double joulesPerMillionTokens = 0; // at TDP; 0 when unknown
    bool memoryBound = false;          // the first decode step's busiest stage
    std::int64_t peakStageBytes = 0;
    BatchLimit limit = BatchLimit::memory;

    int devicesPerReplica() const { return tp * pp; }
    int devices() const { return devicesPerReplica() * replicas; }
    double tokensPerS() const { return tokensPerSPerReplica * replicas; }
    // The base scenario with this shape and batch: what "load into the explorer" sets.
    Scenario apply(const Scenario &base) const;
};

struct ServingPlanResult
{
    std::optional<InputError> error; // the request itself is invalid; nothing else is set
    // Shapes that fit and meet the targets, most tokens per second per device first (the
    // untimed after, fewest devices first), at most `top`.
    std::vector<ServingCandidate> candidates;
    // The fewest devices per replica that fit (and meet the targets): within N when any
    // shape does, else the smallest beyond N; empty when none up to T = heads, K = layers.
    std::optional<ServingCandidate> smallest;
    bool smallestBeyondDevices = false;
    RejectionCounts rejected; // shapes dropped, grouped by reason, with an example each
    std::int64_t shapes = 0;  // replica shapes searched within N
    std::int64_t feasible = 0;
    std::int64_t evaluations = 0; // evaluate() calls
    // The device's rates every shape's time takes from an assumption (core::assumedRates).
    std::vector<std::string> assumedRates;
    double elapsedS = 0;
    bool cancelled = false;
};

ServingPlanResult planServing(const ServingPlanRequest &request, const Presets &presets,
                              const PlanControl &control = {});

} // namespace core
