#include "core/precision.h"

#include "core/units.h"

namespace core {

int halfBitsPerValue(Precision p)
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
    case Precision::int4:
        return 8; // two values per byte
    case Precision::q8_0:
        return 17; // llama.cpp Q8_0: 32 int8 weights + one FP16 scale = 34 bytes per 32 = 8.5 bits
    case Precision::q4_0:
        return 9; // llama.cpp Q4_0: 32 4-bit weights + one FP16 scale = 18 bytes per 32 = 4.5 bits
    }
    return 0;
}

double bitsPerValue(Precision p)
{
    return halfBitsPerValue(p) / 2.0;
}

bool isTrainable(Precision p)
{
    switch (p) {
    case Precision::fp32:
    case Precision::bf16:
    case Precision::fp16:
    case Precision::fp8:
        return true;
    default:
        return false;
    }
}

std::int64_t bytesFor(std::int64_t values, Precision p)
{
    // 16 half-bits per byte. Whole groups of 16 values first: values × half-bits overflows
    // 64 bits long before the bytes do (2^58 BF16 values, 2^59 bytes, are 2^63 half-bits;
    // fuzz_shard_request).
    const std::int64_t halfBits = halfBitsPerValue(p);
    return values / 16 * halfBits + ceilDiv(values % 16 * halfBits, 16);
}

} // namespace core
