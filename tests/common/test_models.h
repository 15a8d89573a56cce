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

// Llama 2 (Touvron et al. 2023, Table 1 and the released config.json): SwiGLU, RMSNorm,
// rotary, 32,000-token vocabulary, untied; 70B with 8 KV heads, 7B with multi-head attention.
inline core::ModelSpec llama2(int layers, int hidden, int heads, int kvHeads, int ffn)
{
    core::ModelSpec m;
    m.id = "llama-2-" + std::to_string(layers);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.ffnHidden = ffn;
    m.vocab = 32000;
    m.gatedMlp = true;
    return m;
}

// The 13B of llm-analysis's FasterTransformer comparison (llm_analysis/model_configs/
// test-13b.json): 40 layers, h 5,120, 40 heads, FFN 20,480, vocabulary 50,272, GeLU, biases,
// learned positions, the head tied to the embedding.
inline core::ModelSpec test13b()
{
    core::ModelSpec m;
    m.id = "test-13b";
    m.layers = 40;
    m.hidden = 5120;
    m.heads = 40;
    m.kvHeads = 40;
    m.ffnHidden = 20480;
    m.vocab = 50272;
    m.tiedEmbeddings = true;
    m.bias = true;
    m.learnedPositions = 2048;
    return m;
}

// Nemotron-4 as NeMo 2.0 builds it (NVIDIA/NeMo, nemo/collections/llm/gpt/model/nemotron.py,
// Nemotron4Config15B and Nemotron4Config340B; Parmar et al. 2024, "Nemotron-4 15B Technical
// Report", §2): grouped-query attention with 8 KV heads, a squared-ReLU MLP (not gated), rotary
// positions, no biases, no dropout, a 256,000-token vocabulary, the output layer apart from
// the embedding.
inline core::ModelSpec nemotron4(int layers, int hidden, int heads, int ffn)
{
    core::ModelSpec m;
    m.id = "nemotron-4-" + std::to_string(hidden);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = 8;
    m.ffnHidden = ffn;
    m.vocab = 256000;
    return m;
}

// Grok-1 as NVIDIA/dgxc-benchmarking's recipes train it (grok1/cfg/grok1_314b.yaml; the
// released xai-org/grok-1 has the same layers): 64 layers, h 6,144, 48 heads with 8 KV
// heads, 8 experts of FFN 32,768 with 2 routed per token, a gated MLP, rotary positions, no
// biases, untied; the recipes tokenize with Llama 3's 128,256-token vocabulary (tokenizer
// meta-llama/Meta-Llama-3-70B), not Grok-1's own 131,072.
inline core::ModelSpec grok1()
{
    core::ModelSpec m;
    m.id = "grok-1";
    m.layers = 64;
    m.hidden = 6144;
    m.heads = 48;
    m.kvHeads = 8;
    m.ffnHidden = 32768;
    m.vocab = 128256;
    m.gatedMlp = true;
    m.experts = 8;
    m.expertsPerToken = 2;
    m.expertFfnHidden = 32768;
    return m;
}

// OLMo-core's models as its November 2024 training scripts build them (allenai/OLMo-core
// e27ba7455, src/olmo_core/nn/transformer/config.py, llama_like): SwiGLU of 8h/3 rounded up to
// a multiple of 256, RMSNorm, rotary, no biases, untied, the dolma2 tokenizer's 100,278 tokens
// padded to a multiple of 128; the OLMo models normalise queries and keys (qk_norm) and apply
// each block's norms to its outputs (reordered_norm, the same work).
inline core::ModelSpec olmoCoreModel(const std::string &id, int layers, int hidden, int heads,
                                     int kvHeads, int ffn, bool qkNorm)
{
    core::ModelSpec m = llama2(layers, hidden, heads, kvHeads, ffn);
    m.id = id;
    m.name = id;
    m.vocab = 100352;
    m.qkNorm = qkNorm;
    m.contextWindow = 4096;
    return m;
}
