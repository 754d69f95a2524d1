// Schedules for the pooling gradient generators (generators/pool_backward_generator.cpp).
#pragma once

#include <vector>

#include "Halide.h"
#include "pool_backward_algorithm.h"

namespace lpnorm::sched {

struct PoolBackwardKnobs {
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) int name = default_value;
#include "pool_backward_knobs.def"
#undef LPNORM_KNOB
};

struct PoolBackwardBuffers {
    Halide::Expr unit_strides;            // every buffer's innermost stride is 1
    std::vector<Halide::Expr> dx_extent;  // innermost first
};

// Schedules `stages` for the target of the generator's `context` (CPU targets: the x86 ISAs
// and ARM).
void schedule_pool_backward(const gen::PoolBackwardStages &stages,
                            const PoolBackwardBuffers &buffers,
                            const Halide::GeneratorContext &context,
                            const PoolBackwardKnobs &knobs);

}  // namespace lpnorm::sched
