#include "core/device.h"

#include "core/units.h"

#include <cmath>

namespace core {

std::int64_t DeviceSpec::capacityBytes() const
{
    return saturatingRound(memoryGib * static_cast<double>(kGiB));
}

} // namespace core
