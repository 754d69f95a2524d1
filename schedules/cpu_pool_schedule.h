#pragma once

#include "pool_schedule.h"

namespace lpnorm::sched {

// The CPU schedules shared by the x86 families and ARM. Rows vectorised along the innermost
// spatial dim (cpu_pool_schedule.cpp), or, for the 2-D kernels built with channel_blocks,
// blocks of channels in the vector lanes (cpu_pool_channels_schedule.cpp).
void schedule_pool_cpu(gen::PoolStages stages, const PoolBuffers &buffers,
                       const Halide::Target &target, const PoolKnobs &knobs);
void schedule_pool_cpu_channels(gen::PoolStages stages, const PoolBuffers &buffers,
                                const Halide::Target &target, const PoolKnobs &knobs);

// The vector width of the pooling stages: the target's for the compute type, doubled on
// ARM64 (see cpu_pool_schedule.cpp), times the vector_multiple knob.
int pool_lanes(const gen::PoolStages &stages, const Halide::Target &target, const PoolKnobs &knobs);

// Gives each p_kind its own copy of `stage` (the general kind calls pow; the others must not
// pay for it) and applies `body` to each.
template <typename Body>
void for_each_kind(Halide::Stage stage, const gen::PoolStages &s, Body body) {
    for (const Halide::Expr &condition : s.kind_conditions) {
        body(stage.specialize(condition));
    }
    stage.specialize_fail("lpnorm: unknown p_kind");
}

}  // namespace lpnorm::sched
