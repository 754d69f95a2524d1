// What the GPU schedules share: the target's device API and the thread-per-point layout.
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::sched {

// The device API of the target's GPU feature (CUDA, OpenCL or D3D12 compute).
inline Halide::DeviceAPI gpu_api(const Halide::Target &target) {
    return target.get_required_device_api();
}

// One GPU thread per point of `f` (pure definition): all of `vars` fused, innermost first so
// that neighbouring threads write neighbouring elements, and cut into blocks of `threads`.
// Returns the thread var to compute per-point producers at (Var::outermost() for a scalar,
// which gets one thread).
Halide::Var thread_per_point(Halide::Func f, const std::vector<Halide::Var> &vars, int threads,
                             const Halide::Target &target);

}  // namespace lpnorm::sched
