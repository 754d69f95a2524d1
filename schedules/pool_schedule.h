// Schedules for the pooling generator. This directory is the only place that looks at the
// Halide Target; the generator hands its stages over and never chooses how they run.
#pragma once

#include <vector>

#include "Halide.h"
#include "pool_algorithm.h"

namespace lpnorm::sched {

// Tunable choices, with the hand-picked defaults. Each is a GeneratorParam of the pooling
// generator, so a build (or a tuner) can override it per variant.
struct PoolKnobs {
    // Vector width as a multiple of the target's natural width for the compute type.
    int vector_multiple = 1;
    // Below this many output elements a kernel runs on the calling thread only.
    int parallel_min_elements = 1 << 14;
    // With at least this many (n, c) planes, each task is a whole plane.
    int min_planes = 16;
    // Otherwise, output rows (of the outermost spatial dim) per parallel task; the
    // intermediate window sums slide down a strip, so each input row is read about once per
    // strip.
    int strip_rows = 8;
};

struct PoolBuffers {
    Halide::Expr input_stride0;              // element stride of the innermost input dim
    std::vector<Halide::Expr> output_extent;  // innermost first
};

// Schedules `stages` for the target of the generator's `context`.
void schedule_pool(const gen::PoolStages &stages, const PoolBuffers &buffers,
                   const Halide::GeneratorContext &context, const PoolKnobs &knobs);

}  // namespace lpnorm::sched
