// Schedules for the reduction gradient generators (generators/reduce_backward_generators.cpp).
#pragma once

#include <vector>

#include "Halide.h"
#include "reduce_backward_algorithm.h"

namespace lpnorm::sched {

enum class ReduceBackwardPattern { inner, middle };

struct ReduceBackwardKnobs {
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) int name = default_value;
#include "reduce_backward_knobs.def"
#undef LPNORM_KNOB
};

// Extents of x, innermost first.
struct ReduceBackwardBuffers {
    std::vector<Halide::Expr> x_extent;
};

// Schedules `stages` for the target of the generator's `context` (the x86 ISAs, ARM, CUDA and
// OpenCL).
void schedule_reduce_backward(ReduceBackwardPattern pattern,
                              const gen::ReduceBackwardStages &stages,
                              const ReduceBackwardBuffers &buffers,
                              const Halide::GeneratorContext &context,
                              const ReduceBackwardKnobs &knobs);

}  // namespace lpnorm::sched
