#pragma once

#include "pool_schedule.h"

namespace lpnorm::sched {

// The CPU schedule shared by the x86 families and ARM; see cpu_pool_schedule.cpp.
void schedule_pool_cpu(gen::PoolStages stages, const PoolBuffers &buffers,
                       const Halide::Target &target, const PoolKnobs &knobs);

}  // namespace lpnorm::sched
