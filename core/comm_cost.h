#pragma once

#include "core/device.h"
#include "core/enums.h"
#include "core/error.h"

#include <cstdint>
#include <optional>

namespace core {

enum class Collective
{
    allReduce,
    allGather,
    reduceScatter
};

constexpr auto enumNames(Collective)
{
    using C = Collective;
    return std::array{EnumName<C>{C::allReduce, "all_reduce"},
                      EnumName<C>{C::allGather, "all_gather"},
                      EnumName<C>{C::reduceScatter, "reduce_scatter"}};
}

enum class LinkKind
{
    intraNode,
    interNode
};

constexpr auto enumNames(LinkKind)
{
    return std::array{EnumName<LinkKind>{LinkKind::intraNode, "intra-node"},
                      EnumName<LinkKind>{LinkKind::interNode, "inter-node"}};
}

// Per-step latency of a ring collective. NCCL's own cost model
// (src/graph/tuning.cc, hwLat[...][Ring][Simple]) charges 5.7 µs per step over
// NVLink and 6.6 µs over the network; we take those as defaults.
inline constexpr double kIntraNodeStepLatencyS = 5.7e-6;
inline constexpr double kInterNodeStepLatencyS = 6.6e-6;

// The link one tensor-parallel group talks over (docs/DESIGN.md §3.2: per direction).
struct Link
{
    LinkKind kind = LinkKind::intraNode;
    double gbPerS = 0;       // per direction per device, 10^9 B/s
    double stepLatencyS = 0; // added once per ring step
    double efficiency = 1;   // achieved bus bandwidth ÷ gbPerS (the device's link efficiency)
    bool operator==(const Link &) const = default;
};

// The link for a group of `tp` devices: intra-node when the group fits in one
// node of the device (docs/DESIGN.md §3.4), inter-node otherwise. `interNodeGbPerS`
// overrides the device's network (scenario key inter_node_gb_per_s). A
// bandwidth of 0 means "not published"; that is an error only when the group
// actually communicates (tp > 1), keyed by the device field that is missing; `traffic`
// names what the group sends in that message ("pipeline").
std::optional<InputError> chooseLink(const DeviceSpec &device, int tp,
                                     std::optional<double> interNodeGbPerS, Link &out,
                                     std::string_view traffic = "tensor-parallel");

// The link a ring collective over `size` devices `stride` ranks apart runs at (rank order
// T, C, E, D, K: a data-parallel group is T·C apart). Across nodes every member's own NIC
// carries a share of the ring, so the group's bandwidth per device is the NICs its members
// have in one node, min(size, devices per node ÷ stride), times one NIC, and at most what
// NVLink carries inside the node (NVIDIA/nccl#412: inter-node bus bandwidth grows with the
// NICs, "up to ... the NVLink intra-node bandwidth"; NVIDIA/nccl-tests#309: 365.84 GB/s on
// 4 nodes of 8 H100 with 8 NDR NICs each). Used for the data-parallel sync; groups that
// run beside it on the same NICs (tensor, context, expert parallelism across nodes) and
// point-to-point sends keep chooseLink's one NIC per device (docs/step_time.md).
std::optional<InputError> ringLink(const DeviceSpec &device, int stride, int size,
                                   std::optional<double> interNodeGbPerS, Link &out,
                                   std::string_view traffic = "tensor-parallel");

// The same for a group laid out unevenly: `span` ranks from its first member to past its
// last (inside one node when it fits one), `perNode` of its `size` members in each node.
std::optional<InputError> ringLinkSpread(const DeviceSpec &device, int span, int perNode, int size,
                                         std::optional<double> interNodeGbPerS, Link &out,
                                         std::string_view traffic);

// Bytes one device sends (= receives) in a ring collective over `tp` devices,
// for a collective whose full tensor is `payloadBytes`.
double wireBytesPerDevice(Collective kind, std::int64_t payloadBytes, int tp);

// Sequential steps of the ring algorithm.
int ringSteps(Collective kind, int tp);

// Seconds for one collective: wire bytes over the link plus per-step latency.
double collectiveSeconds(Collective kind, std::int64_t payloadBytes, int tp, const Link &link);

// Seconds to do `flops` at a fraction `mfu` of the device's peak `tflops`.
double computeSeconds(double flops, double tflops, double mfu);

} // namespace core
