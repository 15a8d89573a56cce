#pragma once

#include <cstdint>

namespace core {

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30; // memory_gib, reserve_gib
inline constexpr double kGB = 1e9;                          // decimal GB, GB/s (DESIGN §3)

// Integer division rounding up, for sizes that cannot be split below one unit.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

} // namespace core
