#pragma once

#include <span>

namespace core {

// What one micro-batch's passes through a stage wait for Transformer Engine's CPU offloading
// of its first `offloaded` layers' activations (docs/activations.md, "Offloaded layers"):
// NVIDIA/TransformerEngine, transformer_engine/pytorch/cpu_offload.py,
// DefaultOffloadSynchronizer. Of L layers and s = L - offloaded, layer i's copy to the host
// starts with its forward on one copy stream and must end before layer s + i's forward; its
// copy back starts before layer s - 1 + i's backward, once the work before it is done, and
// must end before its own backward. `forward`, `backward` and `copy` give each layer's forward,
// backward and one-way copy in seconds (the same length); the waits are what the passes take
// beyond their layers' sums.
struct OffloadWait
{
    double forwardS = 0;
    double backwardS = 0;
};
OffloadWait offloadWait(std::span<const double> forward, std::span<const double> backward,
                        std::span<const double> copy, int offloaded);

} // namespace core
