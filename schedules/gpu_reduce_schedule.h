#pragma once

#include "reduce_schedule.h"

namespace lpnorm::sched {

// The GPU schedule shared by CUDA, OpenCL and D3D12 compute; see gpu_reduce_schedule.cpp.
void schedule_reduction_gpu(ReducePattern pattern, const gen::ReduceStages &stages,
                            const ReduceBuffers &buffers, const Halide::Target &target,
                            const ReduceKnobs &knobs);

}  // namespace lpnorm::sched
