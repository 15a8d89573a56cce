#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace core {

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30; // memory_gib, reserve_gib
inline constexpr double kGB = 1e9;                          // decimal GB, GB/s (docs/DESIGN.md §3)

// A byte count that does not fit the report's 64-bit integers (8 EiB). The controls reach
// it (GPT-3 in FP32 with eager attention keeps s x s scores: 1.5e21 bytes for GPipe's 4096
// micro-batches of 256 x 131072 tokens); the saturating helpers below stop there and pass
// it on, and evaluate refuses such a scenario rather than report a wrapped number.
inline constexpr std::int64_t kTooLarge = std::numeric_limits<std::int64_t>::max();

// Integer division rounding up, for sizes that cannot be split below one unit. kTooLarge
// stays kTooLarge.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    if (a == kTooLarge)
        return a;
    return a / b + (a % b > 0 ? 1 : 0);
}

// a × b and a + b of non-negative counts, or kTooLarge when they do not fit.
constexpr std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
{
    std::int64_t out = 0;
    return __builtin_mul_overflow(a, b, &out) ? kTooLarge : out;
}
constexpr std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t out = 0;
    return __builtin_add_overflow(a, b, &out) ? kTooLarge : out;
}

// The nearest whole count to x >= 0, or kTooLarge when it does not fit.
inline std::int64_t saturatingRound(double x)
{
    // 2^63 is exact in a double; anything at or above it (or NaN) does not fit.
    return x < 9223372036854775808.0 ? std::llround(x) : kTooLarge;
}

} // namespace core
