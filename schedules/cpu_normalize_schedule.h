#pragma once

#include "normalize_schedule.h"

namespace lpnorm::sched {

// The CPU schedule shared by the x86 families and ARM; see cpu_normalize_schedule.cpp.
void schedule_normalize_cpu(NormalizePattern pattern, const gen::NormalizeStages &stages,
                            const NormalizeBuffers &buffers, const Halide::Target &target,
                            const NormalizeKnobs &knobs);

}  // namespace lpnorm::sched
