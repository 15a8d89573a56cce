#pragma once

#include <cstdint>
#include <string>

namespace core {

// A transformer's architecture, or only its size. `layers == 0` marks a
// size-only model, whose `params` is given rather than derived.
struct ModelSpec
{
    std::string id;
    std::string name;
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kvHeads = 0; // grouped-query attention; equal to heads for multi-head attention
    int ffnHidden = 0;
    int vocab = 0;
    bool gatedMlp = false;       // SwiGLU: three FFN matrices instead of two
    bool tiedEmbeddings = false; // the LM head reuses the input embedding
    bool dropout = false;
    bool bias = false;              // biases on linear layers and LayerNorm (GPT-3), none in Llama
    int learnedPositions = 0;       // learned absolute position embeddings; 0 for rotary
    int contextWindow = 0;          // the longest sequence the model takes, tokens; 0: unstated
    std::int64_t params = 0;        // size-only models
    std::int64_t nominalParams = 0; // the advertised size ("70B"); 0 = same as the exact count
    std::string source;

    bool hasArchitecture() const { return layers > 0; }
    int headDim() const { return heads > 0 ? hidden / heads : 0; }
    bool operator==(const ModelSpec &) const = default;
};

// How a model's parameters are distributed, on one device of a tensor-parallel
// group of `tp` (tp = 1 gives the model's own count).
struct ParamCounts
{
    std::int64_t embedding = 0; // word (+ learned position) embeddings: first stage
    std::int64_t perLayer = 0;  // one transformer layer
    std::int64_t finalNorm = 0; // last stage
    std::int64_t lmHead = 0;    // last stage; 0 when tied to the embedding
    std::int64_t total = 0;     // embedding + layers·perLayer + finalNorm + lmHead
};

ParamCounts countParams(const ModelSpec &model, int tp = 1);

// Exact parameter count: derived from the architecture, or the given `params`.
std::int64_t exactParams(const ModelSpec &model);

// The advertised size (docs/worked-examples.md §1); the exact count when unset.
std::int64_t nominalParams(const ModelSpec &model);

} // namespace core
