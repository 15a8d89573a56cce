#pragma once

#include "core/enums.h"
#include "core/units.h"

#include <cstdint>

namespace core {

enum class Precision
{
    fp32,
    bf16,
    fp16,
    fp8,
    nvfp4,
    int8,
    int4,
    q8_0,
    q4_0
};

constexpr auto enumNames(Precision)
{
    using P = Precision;
    return std::array{
        EnumName<P>{P::fp32, "fp32"}, EnumName<P>{P::bf16, "bf16"},   EnumName<P>{P::fp16, "fp16"},
        EnumName<P>{P::fp8, "fp8"},   EnumName<P>{P::nvfp4, "nvfp4"}, EnumName<P>{P::int8, "int8"},
        EnumName<P>{P::int4, "int4"}, EnumName<P>{P::q8_0, "q8_0"},   EnumName<P>{P::q4_0, "q4_0"}};
}

// Storage cost in half-bits per value, so that q4_0's 4.5 bits stay integral. Inline, with
// bytesFor: evaluate() sizes every stage's terms and every precision with them.
constexpr int halfBitsPerValue(Precision p)
{
    switch (p) {
    case Precision::fp32:
        return 64; // IEEE 754 binary32
    case Precision::bf16:
    case Precision::fp16:
        return 32; // 16-bit floats
    case Precision::fp8:
    case Precision::int8:
        return 16; // one byte (FP8 E4M3/E5M2, INT8)
    case Precision::nvfp4:
        return 9; // NVIDIA NVFP4: 16 FP4 (E2M1) values + one FP8 (E4M3) scale = 9 bytes per 16
    case Precision::int4:
        return 8; // two values per byte
    case Precision::q8_0:
        return 17; // llama.cpp Q8_0: 32 int8 weights + one FP16 scale = 34 bytes per 32 = 8.5 bits
    case Precision::q4_0:
        return 9; // llama.cpp Q4_0: 32 4-bit weights + one FP16 scale = 18 bytes per 32 = 4.5 bits
    }
    return 0;
}

// Bits per stored value (4.5 for q4_0).
double bitsPerValue(Precision p);

// Whether weights in this format can be trained (docs/DESIGN.md §3.5: INT8/INT4 and
// the quantized block formats are for inference only; NVFP4 trains on a device with an NVFP4
// peak, docs/step_time.md "NVFP4").
bool isTrainable(Precision p);

// Whether activations are held and sent in this format: the trainable ones but NVFP4, whose
// training keeps 16-bit activations and casts 4-bit copies for its multiplies only.
bool isActivationFormat(Precision p);

// Bytes needed for `values` values, rounded up to a whole byte.
constexpr std::int64_t bytesFor(std::int64_t values, Precision p)
{
    // 16 half-bits per byte. Whole groups of 16 values first: values × half-bits overflows
    // 64 bits long before the bytes do (2^58 BF16 values, 2^59 bytes, are 2^63 half-bits;
    // fuzz_shard_request).
    const std::int64_t halfBits = halfBitsPerValue(p);
    return values / 16 * halfBits + ceilDiv(values % 16 * halfBits, 16);
}

} // namespace core
