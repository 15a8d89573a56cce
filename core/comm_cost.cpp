#include "core/comm_cost.h"

#include "core/units.h"

#include <algorithm>
#include <bit>
#include <string>

namespace core {

std::optional<InputError> chooseLink(const DeviceSpec &device, int tp,
                                     std::optional<double> interNodeGbPerS, Link &out,
                                     std::string_view traffic)
{
    const bool intra = tp <= device.devicesPerNode;
    out.kind = intra ? LinkKind::intraNode : LinkKind::interNode;
    out.stepLatencyS = intra ? kIntraNodeStepLatencyS : kInterNodeStepLatencyS;
    out.gbPerS = intra ? device.intraNodeGbPerS : interNodeGbPerS.value_or(device.interNodeGbPerS);
    out.efficiency = device.linkEfficiencyOrDefault(intra);
    out.membersPerNode = intra ? 0 : device.devicesPerNode;
    if (tp > 1 && !(out.gbPerS > 0)) {
        const std::string key = intra ? "device.intra_node_gb_per_s" : "device.inter_node_gb_per_s";
        std::string message = device.id + " publishes no " + std::string(toString(out.kind)) +
                              " bandwidth (0 = not published), so " + std::string(traffic) +
                              " traffic has no time";
        if (!intra)
            message += "; set inter_node_gb_per_s";
        return InputError{key, message};
    }
    return std::nullopt;
}

std::optional<InputError> ringLink(const DeviceSpec &device, int stride, int size,
                                   std::optional<double> interNodeGbPerS, Link &out,
                                   std::string_view traffic)
{
    stride = std::max(1, stride);
    return ringLinkSpread(device, size <= 1 ? 1 : stride * size, device.devicesPerNode / stride,
                          size, interNodeGbPerS, out, traffic);
}

std::optional<InputError> ringLinkSpread(const DeviceSpec &device, int span, int perNode, int size,
                                         std::optional<double> interNodeGbPerS, Link &out,
                                         std::string_view traffic)
{
    auto error = chooseLink(device, size <= 1 ? 1 : span, interNodeGbPerS, out, traffic);
    if (error || out.kind != LinkKind::interNode || size <= 1)
        return error;
    // NVIDIA/nccl#412: each member's NIC carries its own channels, up to NVLink's bandwidth.
    const int nics = std::clamp(perNode, 1, size);
    double gbPerS = nics * out.gbPerS;
    if (nics > 1 && device.intraNodeGbPerS > 0)
        gbPerS = std::min(gbPerS, device.intraNodeGbPerS * device.linkEfficiencyOrDefault(true) /
                                      out.efficiency);
    out.gbPerS = gbPerS;
    out.membersPerNode = nics;
    return std::nullopt;
}

double wireBytesPerDevice(Collective kind, std::int64_t payloadBytes, int tp)
{
    if (tp <= 1)
        return 0;
    const double share = static_cast<double>(tp - 1) / tp * static_cast<double>(payloadBytes);
    // Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms", §3: a ring all-reduce
    // is a reduce-scatter then an all-gather, each sending (T-1)/T of the data per device.
    return kind == Collective::allReduce ? 2 * share : share;
}

int ringSteps(Collective kind, int tp)
{
    if (tp <= 1)
        return 0;
    // Patarasuk & Yuan 2009 §3: T-1 steps per phase; all-reduce has two phases.
    return kind == Collective::allReduce ? 2 * (tp - 1) : tp - 1;
}

namespace {

// A ring's steps and how many of them cross the network (NVIDIA/nccl src/graph/tuning.cc:
// nInterSteps = nNodes − 1 a phase, 2 phases for all-reduce; the other steps stay on NVLink).
struct RingShape
{
    int steps = 0;
    int across = 0;
    int nodes = 1;
    int perNode = 1; // members a node
};

RingShape ringShape(Collective kind, int n, const Link &link)
{
    RingShape r;
    r.steps = ringSteps(kind, n);
    r.perNode = std::max(1, n);
    if (link.kind == LinkKind::intraNode || r.steps == 0)
        return r;
    r.perNode = std::clamp(link.membersPerNode, 1, n);
    r.nodes = (n + r.perNode - 1) / r.perNode;
    r.across = std::min(r.steps, (kind == Collective::allReduce ? 2 : 1) * (r.nodes - 1));
    return r;
}

double latency(const RingShape &r, const NcclProtocol &p)
{
    return p.callS + (r.steps - r.across) * p.nvlinkStepS + r.across * p.networkStepS;
}

} // namespace

double ringLatencySeconds(Collective kind, int n, const Link &link, const NcclProtocol &protocol)
{
    const RingShape r = ringShape(kind, n, link);
    return r.steps == 0 ? 0.0 : latency(r, protocol);
}

double messageLatencySeconds(const Link &link)
{
    return kNcclSimple.callS + link.stepLatencyS;
}

double collectiveSeconds(Collective kind, std::int64_t payloadBytes, int tp, const Link &link)
{
    if (tp <= 1)
        return 0;
    // Alpha-beta model (Thakur et al. 2005, "Optimization of collective communication
    // operations in MPICH"): latency + bytes / achieved bandwidth, in the protocol NCCL's
    // tuner would pick (src/graph/tuning.cc, ncclTopoGetAlgoTime: the least time).
    const RingShape r = ringShape(kind, tp, link);
    const double bytes = wireBytesPerDevice(kind, payloadBytes, tp);
    const double full = bytes / (link.gbPerS * kGB * link.efficiency);
    constexpr double ll128Slower = 1 / kNcclLl128.bandwidthShare;
    constexpr double llSlower = 1 / kNcclLl.bandwidthShare;
    // LL across nodes: NCCL's llMaxBws.
    const double llCap =
        r.nodes > 1 ? (r.nodes == 2 ? kLlTwoNodesGbPerS : kLlManyNodesGbPerS) * kGB : 0.0;
    double ll = full * llSlower;
    if (llCap > 0)
        ll = std::max(ll, bytes / llCap);
    double best = std::min({latency(r, kNcclSimple) + full,
                            latency(r, kNcclLl128) + full * ll128Slower, latency(r, kNcclLl) + ll});
    if (r.nodes <= 1)
        return best;
    const int depth = std::bit_width(static_cast<unsigned>(r.nodes)) - 1; // NCCL's log2i
    if (kind != Collective::allReduce) {
        if (r.perNode == 1) // PAT: one GPU a node
            best = std::min(best, kPatCallS + depth * kPatLevelS + tp * kPatRankS +
                                      full / kPatBandwidthShare);
        return best;
    }
    // The tree: up and down log2(nodes) levels, each node's members chained over NVLink.
    const double twice = 2.0 * static_cast<double>(payloadBytes);
    const double linkBw = link.gbPerS * kGB * link.efficiency;
    for (const NcclProtocol &p : kNcclTreeProtocols) {
        double move = twice / (linkBw * p.bandwidthShare);
        if (&p == &kNcclTreeProtocols[0])
            move = std::max(move, twice / llCap);
        best = std::min(
            best, p.callS + 2 * ((r.perNode - 1) * p.nvlinkStepS + depth * p.networkStepS) + move);
    }
    return best;
}

double computeSeconds(double flops, double tflops, double mfu)
{
    // Model FLOPs utilisation as defined by Chowdhery et al. 2022 ("PaLM"), Appendix B.
    return flops / (tflops * 1e12 * mfu);
}

} // namespace core
