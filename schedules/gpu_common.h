// What the GPU schedules share: the target's device API and the thread-per-point layout.
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::sched {

// The device API of the target's GPU feature (CUDA, OpenCL or D3D12 compute).
inline Halide::DeviceAPI gpu_api(const Halide::Target &target) {
    return target.get_required_device_api();
}

// One GPU thread per point of `f` (a definition; its pure vars `vars`): blocks of `threads` threads
// along the innermost of `vars`, so that neighbouring threads write neighbouring elements, and one
// block index for the rest. Returns the thread var to compute per-point producers at
// (Var::outermost() for a scalar, which gets one thread). Check the PTX of kernels that compute
// a producer per thread here (cuda_ptx_assembles): in 2-D and 3-D pooling and the general
// reduction, Halide bounded the vars of that one block index by their whole range, and the
// per-thread extent-1 check trapped (docs/targets.md, "Known fault"); those schedules lay out
// grids of their own.
Halide::Var thread_per_point(Halide::Stage f, const std::vector<Halide::Var> &vars, int threads,
                             const Halide::Target &target);

// Computes `producer` at `thread` of `consumer`, one point per thread, kept in the thread's
// registers: its extent along every dim is bounded to 1, which bounds inference cannot prove
// through clamped or masked coordinates (it then asks for a constant bound, or with fused
// thread indices gave every thread a scratch row in global memory).
void compute_per_thread(Halide::Func producer, Halide::Func consumer, const Halide::Var &thread);

}  // namespace lpnorm::sched
