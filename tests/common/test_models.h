#pragma once

// Models the published runs used, described as their papers and code describe them.
#include "core/model.h"

#include <string>

// Megatron-LM's GPT (Narayanan et al. 2021, Table 1; Korthikanti et al. 2022, Table 3):
// multi-head attention, FFN = 4h, GeLU, biases, LayerNorm, dropout, learned positions for
// 2,048 tokens, GPT-2's vocabulary padded to 51,200 as Megatron-LM pads it, the output layer
// tied to the embedding (Megatron-LM's default).
inline core::ModelSpec megatronGpt(int layers, int hidden, int heads)
{
    core::ModelSpec m;
    m.id = "megatron-gpt-" + std::to_string(hidden);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = heads;
    m.ffnHidden = 4 * hidden;
    m.vocab = 51200;
    m.tiedEmbeddings = true;
    m.dropout = true;
    m.bias = true;
    m.learnedPositions = 2048;
    return m;
}
