#pragma once

#include "pool_schedule.h"

namespace lpnorm::sched {

// The GPU schedule shared by CUDA, OpenCL and D3D12 compute; see gpu_pool_schedule.cpp.
void schedule_pool_gpu(const gen::PoolStages &stages, const PoolBuffers &buffers,
                       const Halide::Target &target, const PoolKnobs &knobs);

}  // namespace lpnorm::sched
