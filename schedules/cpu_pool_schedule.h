#pragma once

#include <type_traits>

#include "pool_schedule.h"

namespace lpnorm::sched {

// The CPU schedules shared by the x86 families and ARM. Rows vectorised along the innermost
// spatial dim (2-D and 3-D: cpu_pool_schedule.cpp; 1-D: cpu_pool_1d_schedule.cpp), or, for
// the 2-D kernels built with channel_blocks, blocks of channels in the vector lanes
// (cpu_pool_channels_schedule.cpp).
void schedule_pool_cpu(gen::PoolStages stages, const PoolBuffers &buffers,
                       const Halide::Target &target, const PoolKnobs &knobs);
void schedule_pool_cpu_1d(gen::PoolStages stages, const PoolBuffers &buffers,
                          const Halide::Target &target, const PoolKnobs &knobs);
void schedule_pool_cpu_channels(gen::PoolStages stages, const PoolBuffers &buffers,
                                const Halide::Target &target, const PoolKnobs &knobs);
// The 2-D kernels built with direct_window: each window summed from the input in
// registers (cpu_pool_direct_schedule.cpp).
void schedule_pool_cpu_direct(gen::PoolDirectStages stages, const PoolBuffers &buffers,
                              const Halide::Target &target, const PoolKnobs &knobs);
// The 2-D kernels built with flat_plane: stride 1 and same-size windows summed along each
// plane's rows laid end to end (cpu_pool_flat_schedule.cpp).
void schedule_pool_cpu_flat(gen::PoolFlatStages stages, const PoolBuffers &buffers,
                            const Halide::Target &target, const PoolKnobs &knobs);

// The vector width of the pooling stages: the target's for the compute type, doubled on
// ARM64 (see cpu_pool_schedule.cpp), times the vector_multiple knob.
int pool_lanes(const Halide::Type &compute_type, const Halide::Target &target,
               const PoolKnobs &knobs);

// Whole planes per task where a task takes whole planes: small planes grouped into tasks of
// about knobs.task_elements outputs, never leaving fewer than knobs.min_tasks tasks.
Halide::Expr planes_per_task(const Halide::Expr &plane_outputs, const Halide::Expr &planes,
                             const PoolKnobs &knobs);

// The 1-D windows whose sum the CPU schedule unrolls (for the cheap kinds on dense rows):
// these strides, kernels of at most 4 taps. Each stride is a copy of the loop per kind;
// stride 1 too made a kernel take 21 s to generate instead of 10 (AVX2 float32).
inline constexpr int kUnrolledStrides1d[] = {2};
inline constexpr int kMaxUnrolledKernel1d = 4;
Halide::Expr unrolled_window_1d(const gen::PoolWindow &window);

// Gives each p_kind its own copy of `stage` (the general kind calls pow; the others must not
// pay for it) and applies `body` to each: body(copy), or body(copy, p_kind).
template <typename Body>
void for_each_kind(Halide::Stage stage, const gen::PoolStages &s, Body body) {
    for (size_t k = 0; k < s.kind_conditions.size(); k++) {
        if constexpr (std::is_invocable_v<Body, Halide::Stage, int>) {
            body(stage.specialize(s.kind_conditions[k]), static_cast<int>(k));
        } else {
            body(stage.specialize(s.kind_conditions[k]));
        }
    }
    stage.specialize_fail("lpnorm: unknown p_kind");
}

}  // namespace lpnorm::sched
