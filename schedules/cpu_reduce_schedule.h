#pragma once

#include "reduce_schedule.h"

namespace lpnorm::sched {

// The CPU schedule shared by the x86 families and ARM; see cpu_reduce_schedule.cpp.
void schedule_reduction_cpu(ReducePattern pattern, const gen::ReduceStages &stages,
                            const ReduceBuffers &buffers, const Halide::Target &target,
                            const ReduceKnobs &knobs);

}  // namespace lpnorm::sched
