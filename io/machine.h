#pragma once

#include <optional>

namespace io {

// The memory installed in this computer, in bytes; nullopt where the system does not say.
std::optional<double> installedMemoryBytes();

// What a full-size numerical check of the sharding demonstrator may hold at once: half the
// installed memory, leaving the rest to the window and everything else that runs; the
// reduced check's allowance (core::kDefaultVerifyMemoryBytes) when the memory is unknown.
double fullCheckMemoryBytes();

} // namespace io
