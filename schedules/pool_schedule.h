// Schedules for the pooling generator. This directory is the only place that looks at the
// Halide Target; the generator hands its stages over and never chooses how they run.
#pragma once

#include <vector>

#include "Halide.h"
#include "pool_algorithm.h"

namespace lpnorm::sched {

// Tunable choices, with the hand-picked defaults, from pool_knobs.def. Each is a
// GeneratorParam of the pooling generator, so a build (or a tuner) can override it per
// variant; schedules/tuned/ holds the tuned values the build passes.
struct PoolKnobs {
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) int name = default_value;
#include "pool_knobs.def"
#undef LPNORM_KNOB
};

struct PoolBuffers {
    bool channel_blocks = false;              // the generator's channel_blocks variant
    Halide::Expr input_stride0;               // element stride of the innermost input dim
    std::vector<Halide::Expr> output_extent;  // innermost first
};

// Where define_pool should recompute the cheap kinds' terms in the outermost window sum (its
// recompute_cheap_terms): on CPU targets (the context's), in the row kernels, for dense rows (a
// gathered load per tap would cost more than the stored term it saves), and for 1-D only
// without rescaling and for the windows whose taps the schedule unrolls; false elsewhere.
// schedules/cpu_pool_schedule.cpp and cpu_pool_1d_schedule.cpp say what they measured.
Halide::Expr pool_recompute_condition(const Halide::GeneratorContext &context, bool channel_blocks,
                                      const Halide::Expr &input_stride0, int spatial,
                                      const gen::PoolWindow &window, const Halide::Expr &rescale);

// Schedules `stages` for the target of the generator's `context`.
void schedule_pool(const gen::PoolStages &stages, const PoolBuffers &buffers,
                   const Halide::GeneratorContext &context, const PoolKnobs &knobs);
// Schedules the stages of a direct_window kernel (CPU targets only).
void schedule_pool_direct(const gen::PoolDirectStages &stages, const PoolBuffers &buffers,
                          const Halide::GeneratorContext &context, const PoolKnobs &knobs);
// Schedules the stages of a flat_plane kernel (CPU targets only).
void schedule_pool_flat(const gen::PoolFlatStages &stages, const PoolBuffers &buffers,
                        const Halide::GeneratorContext &context, const PoolKnobs &knobs);

}  // namespace lpnorm::sched
