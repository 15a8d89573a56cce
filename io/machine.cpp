#include "io/machine.h"

#include "core/sharding.h"

#include <algorithm>
#include <unistd.h>

namespace io {

std::optional<double> installedMemoryBytes()
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
        return static_cast<double>(pages) * static_cast<double>(pageSize);
#endif
    return std::nullopt;
}

double fullCheckMemoryBytes()
{
    const auto installed = installedMemoryBytes();
    return installed ? std::max(core::kDefaultVerifyMemoryBytes, *installed / 2)
                     : core::kDefaultVerifyMemoryBytes;
}

} // namespace io
