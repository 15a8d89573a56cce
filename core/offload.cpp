#include "core/offload.h"

#include <algorithm>
#include <vector>

namespace core {

OffloadWait offloadWait(std::span<const double> forward, std::span<const double> backward,
                        std::span<const double> copy, int offloaded)
{
    const int layers = static_cast<int>(forward.size());
    const int n = std::clamp(offloaded, 0, std::max(layers - 1, 0));
    if (n == 0 || backward.size() != forward.size() || copy.size() != forward.size())
        return {};
    const int slots = layers - n; // activation sets the device holds at once
    const auto at = [](std::span<const double> v, int i) { return v[static_cast<std::size_t>(i)]; };
    std::vector<double> copied(static_cast<std::size_t>(n), 0.0);

    // Forward: "Offloading starts as soon as tensors are saved for backward", so a layer's
    // copy runs beside its own forward and ends no sooner than it; the copies queue on one
    // stream; layer j waits for the copy of layer j - s (cpu_offload.py, finish_offload_map).
    double t = 0, stream = 0, sum = 0;
    for (int j = 0; j < layers; ++j) {
        if (const int i = j - slots; i >= 0 && i < n)
            t = std::max(t, copied[static_cast<std::size_t>(i)]);
        const double start = t;
        t += at(forward, j);
        sum += at(forward, j);
        if (j < n) {
            stream = std::max(std::max(stream, start) + at(copy, j), t);
            copied[static_cast<std::size_t>(j)] = stream;
        }
    }
    OffloadWait wait;
    wait.forwardS = t - sum;

    // Backward, from the last layer: before layer k's backward the copy back of layer
    // k - s + 1 starts once the work queued before it is done (start_reload_map,
    // offload_stream.wait_stream); layer k < n waits for its own.
    t = stream = sum = 0;
    for (int k = layers - 1; k >= 0; --k) {
        if (const int i = k - slots + 1; i >= 0 && i < n) {
            stream = std::max(stream, t) + at(copy, i);
            copied[static_cast<std::size_t>(i)] = stream;
        }
        if (k < n)
            t = std::max(t, copied[static_cast<std::size_t>(k)]);
        t += at(backward, k);
        sum += at(backward, k);
    }
    wait.backwardS = t - sum;
    return wait;
}

} // namespace core
