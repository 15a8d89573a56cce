#pragma once

#include "core/enums.h"

#include <cstdint>

namespace core {

enum class Precision
{
    fp32,
    bf16,
    fp16,
    fp8,
    int8,
    int4,
    q8_0,
    q4_0
};

constexpr auto enumNames(Precision)
{
    using P = Precision;
    return std::array{EnumName<P>{P::fp32, "fp32"}, EnumName<P>{P::bf16, "bf16"},
                      EnumName<P>{P::fp16, "fp16"}, EnumName<P>{P::fp8, "fp8"},
                      EnumName<P>{P::int8, "int8"}, EnumName<P>{P::int4, "int4"},
                      EnumName<P>{P::q8_0, "q8_0"}, EnumName<P>{P::q4_0, "q4_0"}};
}

// Storage cost in half-bits per value, so that q4_0's 4.5 bits stay integral.
int halfBitsPerValue(Precision p);

// Bits per stored value (4.5 for q4_0).
double bitsPerValue(Precision p);

// Whether weights in this format can be trained (docs/DESIGN.md §3.5: INT8/INT4 and
// the quantized block formats are for inference only).
bool isTrainable(Precision p);

// Bytes needed for `values` values, rounded up to a whole byte.
std::int64_t bytesFor(std::int64_t values, Precision p);

} // namespace core
