// libFuzzer target: any bytes as the fields of a sharding request, the inputs of
// `parascope shard` and of the window's Sharding tab (docs/TESTING.md), analysed
// on a built-in device with the numerical check at its reduced size or off, never
// full. A refused request names the field; an accepted one has finite,
// non-negative times and bytes, and a check in which every strategy agrees with
// the unsharded product.
//
// The bytes, little-endian, a missing tail read as zeros (tests/data/fuzz/shard/):
//   0 hidden int64 | 8 ffn int64 | 16 tokens int64 | 24 tp int32 | 28 mfu double
//   36 inter-node GB/s double | 44 precision uint8 (index into core::Precision)
//   45 flags uint8: bit 0 verify off (else small), bit 1 inter-node GB/s given
//   46 device uint8 (index into the built-in devices)
#include "core/precision.h"
#include "core/sharding.h"
#include "fuzz/fuzz_support.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

constexpr std::size_t kSize = 47;

using Fields = fuzz::Fields<kSize>;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > kSize)
        return -1; // bytes past the fields mean nothing: keep them out of the corpus
    const Fields in(data, size);
    core::ShardRequest request;
    request.shape = {in.at<std::int64_t>(16), in.at<std::int64_t>(0), in.at<std::int64_t>(8)};
    request.tp = in.at<std::int32_t>(24);
    request.mfu = in.at<double>(28);
    const auto flags = in.at<std::uint8_t>(45);
    if (flags & 2)
        request.interNodeGbPerS = in.at<double>(36);
    constexpr auto precisions = core::enumNames(core::Precision{});
    request.precision = precisions[in.at<std::uint8_t>(44) % precisions.size()].value;
    // Never Verify::full: at the requested size one check may take minutes and gigabytes
    // by design (it asks for the computer's memory); the reduced one must not.
    request.verify = flags & 1 ? core::Verify::off : core::Verify::small;

    const auto &devices = fuzz::presets().devices;
    const core::DeviceSpec &device = devices[in.at<std::uint8_t>(46) % devices.size()];
    fuzz::checkShardReport(request, core::analyzeSharding(request, device));
    return 0;
}
