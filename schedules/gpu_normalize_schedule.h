#pragma once

#include "normalize_schedule.h"

namespace lpnorm::sched {

// The schedule shared by CUDA, OpenCL and D3D12 compute; see gpu_normalize_schedule.cpp.
void schedule_normalize_gpu(NormalizePattern pattern, const gen::NormalizeStages &stages,
                            const NormalizeBuffers &buffers, const Halide::Target &target,
                            const NormalizeKnobs &knobs);

}  // namespace lpnorm::sched
