#pragma once

#include "core/precision.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core {

// A measured factor by attention head width: (width, factor) points in increasing width,
// linear between them, the nearest point's factor outside them; empty: 1 at every width.
using WidthCurve = std::vector<std::pair<double, double>>;
double curveAt(const WidthCurve &curve, double width);

// The attention kernels' rates at other head widths over their rates at the width their
// efficiencies were measured at, forward and backward (docs/step_time.md, "Head width"): the
// device's fused kernel in 16 bits and in FP8, FlashAttention-2's and -3's. The width is the
// mean of the query/key and value head dimensions (a tile's two multiplies). FP8 curves left
// empty take the 16-bit ones; FlashAttention's left empty take none, unless the device gives no
// rate of its own for that kernel (it is then timed as the fused kernel, curves and all).
struct HeadWidthScale
{
    WidthCurve forward;
    WidthCurve backward;
    WidthCurve fp8Forward;
    WidthCurve fp8Backward;
    WidthCurve flash2Forward;
    WidthCurve flash2Backward;
    WidthCurve flash3Forward;
    WidthCurve flash3Backward;
    // Each curve's key in attention_head_widths, for reading, checking and writing.
    static constexpr std::array<std::pair<std::string_view, WidthCurve HeadWidthScale::*>, 8>
        kCurves{{{"forward", &HeadWidthScale::forward},
                 {"backward", &HeadWidthScale::backward},
                 {"fp8_forward", &HeadWidthScale::fp8Forward},
                 {"fp8_backward", &HeadWidthScale::fp8Backward},
                 {"flash2_forward", &HeadWidthScale::flash2Forward},
                 {"flash2_backward", &HeadWidthScale::flash2Backward},
                 {"flash3_forward", &HeadWidthScale::flash3Forward},
                 {"flash3_backward", &HeadWidthScale::flash3Backward}}};
    // The curve a key names; nothing for another key.
    WidthCurve *curve(std::string_view key)
    {
        for (const auto &[name, member] : kCurves)
            if (key == name)
                return &(this->*member);
        return nullptr;
    }
    bool empty() const
    {
        for (const auto &[name, member] : kCurves)
            if (!(this->*member).empty())
                return false;
        return true;
    }
    bool operator==(const HeadWidthScale &) const = default;
};

// An accelerator. Bandwidths are GB/s (10^9 B/s) per direction per device;
// 0 means "not published" (docs/DESIGN.md §3.2).
struct DeviceSpec
{
    std::string id;
    std::string name;
    double memoryGib = 0;               // an "80 GB" H100 has 80 GiB of HBM (docs/DESIGN.md §3)
    std::map<Precision, double> tflops; // dense peak by precision
    int devicesPerNode = 1;
    // Of a node's devices, how many one job's consecutive ranks fill before the next node,
    // where a job does not take them all (GB200 NVL72: 64 of 72); 0: devices_per_node.
    int jobDevicesPerNode = 0;
    double intraNodeGbPerS = 0;
    double interNodeGbPerS = 0;
    double tdpW = 0;
    // The per-operation step-time model (docs/step_time.md). 0 means "not published": memory
    // bandwidth then leaves memory-bound operations untimed, the efficiencies take the
    // defaults below, and no compute units means no wave quantization.
    double hbmGbPerS = 0; // memory bandwidth, GB/s
    // The link to the host's memory, GB/s per direction (PCIe, or NVLink-C2C on Grace
    // superchips): what activation offloading moves over (docs/activations.md, "Offloaded
    // layers"). 0: not published.
    double hostGbPerS = 0;
    // The host memory one device can count on, GB (10^9 bytes): its node's or superchip's CPU
    // memory over the devices that share it, what offloaded activations must fit in
    // (docs/devices.md, "Host links"). 0: not published, not checked.
    double hostMemoryGb = 0;
    double matmulEfficiency = 0; // largest matrix multiply's fraction of peak (MAMF ÷ peak)
    // The FP8 multiplies' fraction of the FP8 peak, where measured; 0: as matmul_efficiency.
    double fp8MatmulEfficiency = 0;
    // The block-scaled FP8 multiplies' (fp8_scaling = block: MXFP8 on Blackwell) fraction of
    // the FP8 peak, where measured; 0: as the per-tensor FP8 one.
    double fp8BlockMatmulEfficiency = 0;
    // The NVFP4 multiplies' fraction of the NVFP4 peak, where measured; 0: as the FP8 one.
    double nvfp4MatmulEfficiency = 0;
    double attentionEfficiency = 0; // fused attention kernels' fraction of peak; 0: as matmul
    // The backward kernel's fraction, where it differs from the forward's; 0: as the forward.
    double attentionBackwardEfficiency = 0;
    // FlashAttention-2's kernels (the flash-attn 2 package, PyTorch's flash backend of
    // scaled_dot_product_attention), forward and backward, where the device's fused kernel
    // differs; 0: as attention_efficiency and attention_backward_efficiency.
    double flash2Efficiency = 0;
    double flash2BackwardEfficiency = 0;
    // FlashAttention-3's (Hopper only), the same way.
    double flash3Efficiency = 0;
    double flash3BackwardEfficiency = 0;
    // The fused kernel's fixed work per block, in 128-key iterations of its loop, and the causal
    // sequence length its efficiencies were measured at: with both, a kernel over other
    // lengths runs at the efficiency its blocks' loops allow (docs/step_time.md, "Attention
    // shapes"); 0: one efficiency at every length.
    double attentionBlockOverhead = 0;
    double attentionTokens = 0;
    // The fused kernel in FP8 (Transformer Engine's FP8 dot-product attention) over the same
    // kernel in BF16, forward and backward, measured at one length by one release; 0: not
    // measured (docs/step_time.md, "FP8 attention").
    double fp8AttentionSpeedup = 0;
    double fp8AttentionBackwardSpeedup = 0;
    HeadWidthScale attentionHeadWidths;
    double memoryEfficiency = 0; // achieved ÷ datasheet memory bandwidth
    // The same for chains of a framework's own kernels (PyTorch's element-wise and reduction
    // operations: the loss, eager norms and activations, dropout, gradient adds), where
    // measured; 0: as memory_efficiency.
    double eagerMemoryEfficiency = 0;
    double intraNodeEfficiency = 0; // collective bus bandwidth ÷ link bandwidth, in a node
    double interNodeEfficiency = 0; // the same between nodes
    double hostEfficiency = 0;      // the same over the host link; 0: kDefaultHostEfficiency
    int computeUnits = 0;           // SMs or CUs a matrix multiply's tiles spread over
    // SMs or CUs a collective's kernels hold while compute runs beside it (NCCL runs one
    // block per channel), where measured; 0: a hidden collective costs the compute nothing.
    int collectiveUnits = 0;
    // NVIDIA's compute capability (9.0 Hopper, 10.0 B200 and GB200, 10.3 B300 and GB300), for
    // what Transformer Engine and cuDNN run on each generation; 0: not an NVIDIA GPU, or not
    // given.
    double computeCapability = 0;
    // Why a rate the preset gives is an assumption rather than a measurement of this device,
    // by the rate's key without "_efficiency" (kRateNoteKeys): a run that takes that rate is
    // warned with the note (rates-assumed; docs/step_time.md, "Device data").
    std::map<std::string, std::string> rateNotes;
    std::string process;
    std::string source;

    std::int64_t capacityBytes() const;
    int jobDevicesPerNodeOrDefault() const
    {
        return jobDevicesPerNode > 0 ? jobDevicesPerNode : devicesPerNode;
    }
    // The efficiencies with their defaults applied (docs/step_time.md, "Device data").
    double matmulEfficiencyOrDefault() const;
    double fp8MatmulEfficiencyOrDefault() const;
    double fp8BlockMatmulEfficiencyOrDefault() const;
    double nvfp4MatmulEfficiencyOrDefault() const;
    double attentionEfficiencyOrDefault() const;
    double attentionBackwardEfficiencyOrDefault() const;
    double flash2EfficiencyOrDefault() const;
    double flash2BackwardEfficiencyOrDefault() const;
    double flash3EfficiencyOrDefault() const;
    double flash3BackwardEfficiencyOrDefault() const;
    double memoryEfficiencyOrDefault() const;
    double eagerMemoryEfficiencyOrDefault() const;
    double linkEfficiencyOrDefault(bool intraNode) const;
    double hostEfficiencyOrDefault() const;
    bool operator==(const DeviceSpec &) const = default;
};

// The step-time model's fractions a preset may give, by key: one list for reading, checking
// and writing them (docs/step_time.md, "Device data").
std::array<std::pair<const char *, double>, 15> efficiencyFields(const DeviceSpec &device);

// The keys of assumed_rates (DeviceSpec::rateNotes): the rates a run's multiplies and its fused
// attention take.
inline constexpr std::array<std::string_view, 5> kRateNoteKeys{
    "matmul", "fp8_matmul", "fp8_block_matmul", "nvfp4_matmul", "attention"};

// What a run whose multiplies are in `compute` precision (block-scaled FP8 with
// `blockScaled`) takes on this device from an
// assumption rather than a measurement: the default or another precision's fraction where the
// preset gives no efficiency, and the preset's own notes (rateNotes) on the rates it borrowed.
// `fusedAttention`: the run's attention is a fused kernel (its rate is then one of them).
// Empty: every such rate is the device's own measurement (docs/step_time.md, "Device data").
std::vector<std::string> assumedRates(const DeviceSpec &device, Precision compute,
                                      bool fusedAttention, bool blockScaled = false);

} // namespace core
