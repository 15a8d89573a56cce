#include "core/device.h"

#include "core/units.h"

#include <cmath>
#include <cstdio>

namespace core {

double curveAt(const WidthCurve &curve, double width)
{
    if (curve.empty())
        return 1;
    if (width <= curve.front().first)
        return curve.front().second;
    for (std::size_t i = 1; i < curve.size(); ++i) {
        const auto [w1, f1] = curve[i];
        if (width <= w1) {
            const auto [w0, f0] = curve[i - 1];
            return f0 + (f1 - f0) * (width - w0) / (w1 - w0);
        }
    }
    return curve.back().second;
}

std::int64_t DeviceSpec::capacityBytes() const
{
    return saturatingRound(memoryGib * static_cast<double>(kGiB));
}

// Defaults for a device that publishes no efficiency (docs/step_time.md, "Device data").
// 0.8: the middle of the measured largest-matmul efficiencies of 60-86 % (ml-engineering,
// "Maximum Achievable Matmul FLOPS comparison table"); 0.9 of the memory bandwidth is an
// assumption; NCCL loses about 20 % of NVLink's line rate to its protocol
// (NVIDIA/nccl-tests#212) and about 10 % of InfiniBand's (NVIDIA/nccl-tests#119).
constexpr double kDefaultMatmulEfficiency = 0.8;
constexpr double kDefaultMemoryEfficiency = 0.9;
constexpr double kDefaultIntraNodeEfficiency = 0.8;
constexpr double kDefaultInterNodeEfficiency = 0.9;
// A GPU's copy of pinned host memory over PCIe Gen5 x16: 52.77 GB/s device to host of the
// link's 64 GB/s a direction on an H100 cluster (NVIDIA/nvbandwidth#24, device_to_host).
constexpr double kDefaultHostEfficiency = 52.77 / 64;

double DeviceSpec::matmulEfficiencyOrDefault() const
{
    return matmulEfficiency > 0 ? matmulEfficiency : kDefaultMatmulEfficiency;
}

double DeviceSpec::fp8MatmulEfficiencyOrDefault() const
{
    return fp8MatmulEfficiency > 0 ? fp8MatmulEfficiency : matmulEfficiencyOrDefault();
}

double DeviceSpec::fp8BlockMatmulEfficiencyOrDefault() const
{
    return fp8BlockMatmulEfficiency > 0 ? fp8BlockMatmulEfficiency : fp8MatmulEfficiencyOrDefault();
}

double DeviceSpec::nvfp4MatmulEfficiencyOrDefault() const
{
    return nvfp4MatmulEfficiency > 0 ? nvfp4MatmulEfficiency : fp8MatmulEfficiencyOrDefault();
}

double DeviceSpec::attentionEfficiencyOrDefault() const
{
    return attentionEfficiency > 0 ? attentionEfficiency : matmulEfficiencyOrDefault();
}

double DeviceSpec::attentionBackwardEfficiencyOrDefault() const
{
    return attentionBackwardEfficiency > 0 ? attentionBackwardEfficiency
                                           : attentionEfficiencyOrDefault();
}

namespace {

// A named attention kernel's backward efficiency: its own, else its forward's, else the
// device's fused kernel's backward.
double kernelBackward(double backward, double forward, double fusedBackward)
{
    if (backward > 0)
        return backward;
    return forward > 0 ? forward : fusedBackward;
}

} // namespace

double DeviceSpec::flash2EfficiencyOrDefault() const
{
    return flash2Efficiency > 0 ? flash2Efficiency : attentionEfficiencyOrDefault();
}

double DeviceSpec::flash2BackwardEfficiencyOrDefault() const
{
    return kernelBackward(flash2BackwardEfficiency, flash2Efficiency,
                          attentionBackwardEfficiencyOrDefault());
}

double DeviceSpec::flash3EfficiencyOrDefault() const
{
    return flash3Efficiency > 0 ? flash3Efficiency : attentionEfficiencyOrDefault();
}

double DeviceSpec::flash3BackwardEfficiencyOrDefault() const
{
    return kernelBackward(flash3BackwardEfficiency, flash3Efficiency,
                          attentionBackwardEfficiencyOrDefault());
}

std::array<std::pair<const char *, double>, 15> efficiencyFields(const DeviceSpec &d)
{
    return {{{"matmul_efficiency", d.matmulEfficiency},
             {"fp8_matmul_efficiency", d.fp8MatmulEfficiency},
             {"fp8_block_matmul_efficiency", d.fp8BlockMatmulEfficiency},
             {"nvfp4_matmul_efficiency", d.nvfp4MatmulEfficiency},
             {"attention_efficiency", d.attentionEfficiency},
             {"attention_backward_efficiency", d.attentionBackwardEfficiency},
             {"flash2_efficiency", d.flash2Efficiency},
             {"flash2_backward_efficiency", d.flash2BackwardEfficiency},
             {"flash3_efficiency", d.flash3Efficiency},
             {"flash3_backward_efficiency", d.flash3BackwardEfficiency},
             {"memory_efficiency", d.memoryEfficiency},
             {"eager_memory_efficiency", d.eagerMemoryEfficiency},
             {"intra_node_efficiency", d.intraNodeEfficiency},
             {"inter_node_efficiency", d.interNodeEfficiency},
             {"host_efficiency", d.hostEfficiency}}};
}

std::vector<std::string> assumedRates(const DeviceSpec &d, Precision compute, bool fusedAttention,
                                      bool blockScaled)
{
    std::vector<std::string> assumed;
    const auto note = [&](const char *key) {
        if (auto it = d.rateNotes.find(key); it != d.rateNotes.end() && !it->second.empty())
            assumed.push_back(it->second);
    };
    // The multiplies: each precision's own fraction, else the fallbacks of
    // fp8MatmulEfficiencyOrDefault and nvfp4MatmulEfficiencyOrDefault.
    const char *name = compute == Precision::fp8     ? "FP8"
                       : compute == Precision::nvfp4 ? "NVFP4"
                                                     : nullptr;
    const auto borrowed = [&](const char *from) {
        assumed.push_back(std::string(name) + " multiplies at the " + from +
                          " multiplies' fraction of the " + name + " peak (no " +
                          (compute == Precision::fp8 ? "fp8" : "nvfp4") + "_matmul_efficiency)");
    };
    const auto assumedDefault = [&] {
        char text[128];
        std::snprintf(text, sizeof text,
                      "%s multiplies at %.1f of the peak, the default (no matmul_efficiency)",
                      name ? name : "its", kDefaultMatmulEfficiency);
        assumed.push_back(text);
    };
    const bool block = blockScaled && compute == Precision::fp8;
    if (block && d.fp8BlockMatmulEfficiency > 0)
        note("fp8_block_matmul");
    else if (block && d.fp8MatmulEfficiency > 0) {
        assumed.push_back("block-scaled FP8 multiplies at the per-tensor ones' fraction of the FP8 "
                          "peak (no fp8_block_matmul_efficiency)");
        note("fp8_matmul");
    } else if (compute == Precision::nvfp4 && d.nvfp4MatmulEfficiency > 0)
        note("nvfp4_matmul");
    else if (compute == Precision::nvfp4 && d.fp8MatmulEfficiency > 0) {
        borrowed("FP8");
        note("fp8_matmul");
    } else if (name && compute == Precision::fp8 && d.fp8MatmulEfficiency > 0)
        note("fp8_matmul");
    else if (name && d.matmulEfficiency > 0) {
        borrowed("16-bit");
        note("matmul");
    } else if (d.matmulEfficiency > 0)
        note("matmul");
    else
        assumedDefault();
    if (fusedAttention) {
        if (d.attentionEfficiency > 0)
            note("attention");
        else
            assumed.push_back(d.matmulEfficiency > 0
                                  ? "fused attention at the 16-bit multiplies' fraction of the "
                                    "peak (no attention_efficiency)"
                                  : "fused attention at the default fraction too (no "
                                    "attention_efficiency)");
    }
    return assumed;
}

double DeviceSpec::memoryEfficiencyOrDefault() const
{
    return memoryEfficiency > 0 ? memoryEfficiency : kDefaultMemoryEfficiency;
}

double DeviceSpec::eagerMemoryEfficiencyOrDefault() const
{
    return eagerMemoryEfficiency > 0 ? eagerMemoryEfficiency : memoryEfficiencyOrDefault();
}

double DeviceSpec::hostEfficiencyOrDefault() const
{
    return hostEfficiency > 0 ? hostEfficiency : kDefaultHostEfficiency;
}

double DeviceSpec::linkEfficiencyOrDefault(bool intraNode) const
{
    const double given = intraNode ? intraNodeEfficiency : interNodeEfficiency;
    if (given > 0)
        return given;
    return intraNode ? kDefaultIntraNodeEfficiency : kDefaultInterNodeEfficiency;
}

} // namespace core
