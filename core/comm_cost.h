#pragma once

#include "core/device.h"
#include "core/enums.h"
#include "core/error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

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

// NCCL's ring protocols as its own cost model times them (NVIDIA/nccl, src/graph/tuning.cc:
// baseLatencies, hwLatencies, and the bandwidth each keeps): a call's latency, a step's over
// NVLink and across the network, and the share of the link's bus bandwidth the protocol
// carries. LL's 8-byte stores hold 4 bytes of data (half); LL128's 128-byte lines 120 (NCCL
// counts 0.92). NCCL takes whichever is fastest for the size, LL128 on NVLink systems of
// compute capability 9.0 and later. A ring across nodes crosses the network in nodes − 1 of
// its steps a phase; the rest stay on NVLink. Across nodes LL's bus bandwidth is at most
// 39.0 GB/s at two nodes and 20.4 at more (llMaxBws, Intel and Arm hosts; AMD's are 22.5 and
// 19.0); in a node NCCL caps it by GPU generation (87.7 GB/s on A100, 141 on H100), which
// Parascope leaves out.
struct NcclProtocol
{
    std::string_view name;
    double callS;
    double nvlinkStepS;
    double networkStepS;
    double bandwidthShare;
};
inline constexpr double kLlTwoNodesGbPerS = 39.0;
inline constexpr double kLlManyNodesGbPerS = 20.4;
inline constexpr std::array<NcclProtocol, 3> kNcclProtocols{{
    {"LL", 6.6e-6, 0.6e-6, 2.7e-6, 0.5},
    {"LL128", 14.0e-6, 1.9e-6, 4.0e-6, 0.92},
    {"Simple", 8.4e-6, 3.4e-6, 14.0e-6, 1.0},
}};
// NCCL's tree, which an all-reduce across nodes may take instead of the ring (the same file):
// a reduce up and a broadcast down a tree of the nodes, each through the node's members in a
// chain, so 2 × ((members a node − 1) steps over NVLink + log2(nodes) across the network); it
// moves the whole payload twice at the tree's bus bandwidth (NCCL's algorithm bandwidth is
// half its bus bandwidth), which keeps 0.92 of the link in Simple, 120/128 in LL128 and
// 1/3.8 in LL.
inline constexpr std::array<NcclProtocol, 3> kNcclTreeProtocols{{
    {"LL", 6.8e-6, 0.6e-6, 5.0e-6, 1 / 3.8},
    {"LL128", 14.0e-6, 1.25e-6, 8.5e-6, 120.0 / 128},
    {"Simple", 8.4e-6, 4.0e-6, 14.0e-6, 0.92},
}};
// NCCL's PAT, which a gather or a reduce-scatter over one GPU a node may take (the same file,
// ncclPatEnable: nNodes == nRanks): 8 µs a call, log2(nodes) levels at a third and a half of
// the network step (14 µs / 3.5), and a part NCCL still counts as linear, 2.8 µs a rank; Simple
// only, at 0.75 of the bus bandwidth.
inline constexpr double kPatCallS = 8.0e-6;
inline constexpr double kPatLevelS = 14.0e-6 / 3.5;
inline constexpr double kPatRankS = 2.8e-6;
inline constexpr double kPatBandwidthShare = 0.75;
// Large transfers and point-to-point messages run Simple.
inline constexpr const NcclProtocol &kNcclSimple = kNcclProtocols[2];
inline constexpr const NcclProtocol &kNcclLl = kNcclProtocols[0];
inline constexpr const NcclProtocol &kNcclLl128 = kNcclProtocols[1];
inline constexpr double kIntraNodeStepLatencyS = kNcclSimple.nvlinkStepS;
inline constexpr double kInterNodeStepLatencyS = kNcclSimple.networkStepS;

// The link one tensor-parallel group talks over (docs/DESIGN.md §3.2: per direction).
struct Link
{
    LinkKind kind = LinkKind::intraNode;
    double gbPerS = 0;       // per direction per device, 10^9 B/s
    double stepLatencyS = 0; // one step over this link: a message from a member to the next
    double efficiency = 1;   // achieved bus bandwidth ÷ gbPerS (the device's link efficiency)
    // Across nodes: how many of the group's members share a node, whose steps between them
    // stay on NVLink; 0: one a node, every step crosses.
    int membersPerNode = 0;
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

// The latency of one ring collective over `n` members in `protocol`: a call and its steps,
// those that cross the network at the network's latency (NVIDIA/nccl src/graph/tuning.cc).
double ringLatencySeconds(Collective kind, int n, const Link &link,
                          const NcclProtocol &protocol = kNcclSimple);

// The latency of one point-to-point message over the link: a call and one step, Simple.
double messageLatencySeconds(const Link &link);

// Seconds for one collective: wire bytes over the link plus its latency, in the fastest of
// NCCL's protocols for its size.
double collectiveSeconds(Collective kind, std::int64_t payloadBytes, int tp, const Link &link);

// Seconds to do `flops` at a fraction `mfu` of the device's peak `tflops`.
double computeSeconds(double flops, double tflops, double mfu);

} // namespace core
