#include "core/comm_cost.h"

#include "core/units.h"

#include <algorithm>
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

double collectiveSeconds(Collective kind, std::int64_t payloadBytes, int tp, const Link &link)
{
    if (tp <= 1)
        return 0;
    // Alpha-beta model (Thakur et al. 2005, "Optimization of collective communication
    // operations in MPICH"): steps x latency + bytes / achieved bandwidth.
    return ringSteps(kind, tp) * link.stepLatencyS +
           wireBytesPerDevice(kind, payloadBytes, tp) / (link.gbPerS * kGB * link.efficiency);
}

double computeSeconds(double flops, double tflops, double mfu)
{
    // Model FLOPs utilisation as defined by Chowdhery et al. 2022 ("PaLM"), Appendix B.
    return flops / (tflops * 1e12 * mfu);
}

} // namespace core
