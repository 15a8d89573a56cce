#pragma once

// Serving (docs/inference.md): one replica of T × K devices answering a batch of
// sequences, timed by the per-operation model's roofline: the prefill of every prompt,
// then one decode step per output token, in which every weight and the whole KV cache are
// read once.
#include "core/comm_cost.h"
#include "core/model.h"
#include "core/op_model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace core {

// One decode step of one micro-batch on one device of a stage: each of its sequences
// advances one token.
struct DecodeCost
{
    double matmulS = 0;    // the projections and the LM head: weight reads, or their FLOPs
    double attentionS = 0; // attending over the KV cache: its reads, or its FLOPs
    double memoryOpsS = 0; // norms, residual adds, rotary, activation, cache append, embedding
    double tpCommS = 0;    // the tensor-parallel all-reduces (and the logits' all-gather)
    double totalS = 0;
    double flops = 0;
    double weightBytes = 0; // weights read
    double kvBytes = 0;     // KV cache read
    double otherBytes = 0;  // activations read and written, the cache append
    // The multiplies' and attention's bytes at the achieved bandwidth take longer than their
    // FLOPs at the matmul rate: below the roofline's ridge (Williams et al. 2009).
    bool memoryBound = false;
};

// Every micro-batch advancing one token at one context length.
struct DecodeStep
{
    std::int64_t context = 0; // tokens each sequence attends to, its newest included
    double tokenS = 0;        // time per output token of one sequence
    int busiestStage = 0;
    DecodeCost busiest; // the busiest stage's work for one micro-batch
    // The round is set by the stages' work (m × the busiest stage), not by one token's trip
    // through all K stages and their sends.
    bool stageBound = false;
};

// What serving needs from the scenario and the device, per replica.
struct ServingInput
{
    const ModelSpec *model = nullptr;
    std::vector<int> stageLayers;        // layers of each of the K stages
    std::vector<int> stageMoeLayers;     // of those, the layers with experts (docs/experts.md)
    std::vector<int> stageSlidingLayers; // of those, the layers with a sliding window
    std::int64_t microbatches = 1;
    std::int64_t microbatchSize = 1;
    std::int64_t promptTokens = 1;
    std::int64_t outputTokens = 0;
    int tp = 1;
    double activationBytes = 2; // bytes per activation value
    double weightBytes = 2;     // bytes per stored weight (0.5 for INT4)
    double kvBytes = 2;         // bytes per KV-cache value
    double commBytes = 2;       // bytes per value on the tensor-parallel wire
    DeviceRates rates;
    Link tpLink; // a bandwidth of 0 (not published): its collectives are left out
    // Per pipeline boundary, stage b to b + 1 (the last back to the first, unused here):
    // K > 1 with published links only.
    std::vector<Link> ppLinks;
    double prefillS = 0; // the forward pipeline's makespan over every prompt
    double tdpW = 0;     // per device; 0 when not published
};

struct ServingReport
{
    std::int64_t batch = 0; // sequences in flight per replica: m × b
    std::int64_t promptTokens = 0;
    std::int64_t outputTokens = 0;
    int devicesPerReplica = 1;
    int replicas = 1;    // D: independent copies, each serving its own batch
    double prefillS = 0; // time to first token, for the last micro-batch's sequences
    // The decode steps after the first token: the first (context prompt + 1) and the last
    // (prompt + output - 1); both at prompt + 1 when one token or none is generated.
    DecodeStep first;
    DecodeStep last;
    double decodeMeanS = 0; // mean time per output token after the first
    double latencyS = 0;    // prefill + (output - 1) × mean: the last token of the batch
    double tokensPerS = 0;  // output tokens per second per replica, over the whole request
    double tokensPerSPerDevice = 0;
    double tokensPerSAllReplicas = 0;  // D × tokens per second per replica
    double decodeTokensPerS = 0;       // while decoding: batch ÷ mean time per token
    double joulesPerMillionTokens = 0; // at TDP over the whole request; 0 when unknown
    bool pipelineIdle = false;         // m < K: stages wait for each other every token
    // A link the replica needs publishes no bandwidth (the SN40L's): its transfers are left
    // out, so every time is a lower bound, as if the link were infinitely fast.
    bool linkTimeExcluded = false;
    // Memory: the most sequences (m × b, b growing) whose cache fits at this context, and
    // the longest context (prompt + output tokens) whose cache fits at this batch; 0 when not
    // even one fits.
    std::int64_t maxBatch = 0;
    std::int64_t maxContext = 0;
    bool maxContextIsModelWindow = false; // the model's context window, not memory, sets it
};

// One micro-batch's decode step on one device of a stage with `layers` layers, at `context`.
DecodeCost decodeStageCost(const ServingInput &in, int layers, int moeLayers, bool firstStage,
                           bool lastStage, std::int64_t context, int slidingLayers = 0);

// One output token for every micro-batch at `context`: a sequence's token passes through
// the K stages and their sends; each stage serves all m micro-batches in turn.
DecodeStep decodeStep(const ServingInput &in, std::int64_t context);

ServingReport serving(const ServingInput &in);

} // namespace core
