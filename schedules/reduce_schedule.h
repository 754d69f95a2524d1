// Schedules for the reduction generators. This directory is the only place that looks at
// the Halide Target; generators hand their stages over and never choose how they run.
#pragma once

#include <vector>

#include "Halide.h"
#include "reduce_algorithm.h"

namespace lpnorm::sched {

enum class ReducePattern { all, inner, outer, middle, general };

// Tunable choices, with the hand-picked defaults. Each is a GeneratorParam of every
// reduction generator, so a build (or a tuner) can override it per variant.
struct ReduceKnobs {
    // Vector width as a multiple of the target's natural width for the input type: more
    // independent accumulators hide the add latency.
    int vector_multiple = 2;
    // Below this many input elements a kernel runs on the calling thread only.
    int parallel_min_elements = 1 << 18;
    // Input elements per parallel task.
    int task_elements = 1 << 16;
    // Parallel tasks a strided reduction aims for (its rows are cut into chunks until the
    // kept dims and the chunks give this many).
    int min_tasks = 16;
    // Contiguous streams a contiguous reduction (all, inner) reads at once, each with its own
    // accumulators: one stream per core leaves DRAM bandwidth unused.
    int streams = 4;
};

// Extents of the pipeline's buffers, innermost first.
struct ReduceBuffers {
    std::vector<Halide::Expr> input_extent;
    std::vector<Halide::Expr> output_extent;
};

// Schedules `stages` for the target of the generator's `context`.
void schedule_reduction(ReducePattern pattern, const gen::ReduceStages &stages,
                        const ReduceBuffers &buffers, const Halide::GeneratorContext &context,
                        const ReduceKnobs &knobs);

}  // namespace lpnorm::sched
