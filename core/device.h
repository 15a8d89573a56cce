#pragma once

#include "core/precision.h"

#include <cstdint>
#include <map>
#include <string>

namespace core {

// An accelerator. Bandwidths are GB/s (10^9 B/s) per direction per device;
// 0 means "not published" (docs/DESIGN.md §3.2).
struct DeviceSpec
{
    std::string id;
    std::string name;
    double memoryGib = 0;               // an "80 GB" H100 has 80 GiB of HBM (docs/DESIGN.md §3)
    std::map<Precision, double> tflops; // dense peak by precision
    int devicesPerNode = 1;
    double intraNodeGbPerS = 0;
    double interNodeGbPerS = 0;
    double tdpW = 0;
    std::string process;
    std::string source;

    std::int64_t capacityBytes() const;
    bool operator==(const DeviceSpec &) const = default;
};

} // namespace core
