// Runs a validated pooling through its kernel. Tensors the kernel cannot index in one call (an
// extent or stride beyond 2^31-1: Halide extents and strides are 32-bit) are cut: N and C into
// slices, a spatial dim into runs of outputs, each with the input range its windows read and
// the pads that keep every window, and its count of taps for the overhang rescale, unchanged.
#pragma once

#include <vector>

#include "lpnorm/lpnorm.h"
#include "registry.h"

namespace lpnorm::rt {

struct PoolCall {
    const PoolKernel *kernel = nullptr;
    Backend backend = Backend::cpu;  // a GPU backend runs only tensors that need no split
    Memory memory = Memory::host;
    int p_kind = 0;  // kernel_abi.h PoolKind
    double p = 2;
    bool signed_pow = false;
    bool rescale = false;
    std::vector<PoolAxis> axes;  // resolved geometry, outermost spatial dim first
};

// Pools `input` (N, C, D1..Dk, non-empty) into `output` (validated shape).
Status run_pool(const Tensor &input, const Tensor &output, const PoolCall &call);

}  // namespace lpnorm::rt
