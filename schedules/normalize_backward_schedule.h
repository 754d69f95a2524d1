// Schedules for the normalization gradient generators (generators/normalize_generators.cpp).
#pragma once

#include "Halide.h"
#include "normalize_backward_algorithm.h"
#include "normalize_schedule.h"

namespace lpnorm::sched {

// Schedules `stages` for the target of the generator's `context` (the x86 ISAs, ARM, CUDA and
// OpenCL); on CPUs, on the loops of the forward's CPU schedule.
void schedule_normalize_backward(NormalizePattern pattern,
                                 const gen::NormalizeBackwardStages &stages,
                                 const NormalizeBuffers &buffers,
                                 const Halide::GeneratorContext &context,
                                 const NormalizeKnobs &knobs);

}  // namespace lpnorm::sched
