#pragma once

#include <functional>

#include "normalize_schedule.h"

namespace lpnorm::sched {

// Makes the copies of a consumer `out` of the normalization stages, each parallel over `loop`
// where `parallel` holds.
using SpecializeOut = std::function<void(Halide::Func out, const Halide::Expr &parallel,
                                         const Halide::VarOrRVar &loop)>;

// The CPU schedule shared by the x86 families and ARM; see cpu_normalize_schedule.cpp.
void schedule_normalize_cpu(NormalizePattern pattern, const gen::NormalizeStages &stages,
                            const NormalizeBuffers &buffers, const Halide::Target &target,
                            const NormalizeKnobs &knobs);

// The same loops and group stages for another consumer of them (stages.out: the gradient's
// dx), whose copies `specialize` makes. Returns the loop level of a row (inner) or a block of
// groups (middle), where the group stages are computed.
Halide::LoopLevel schedule_normalize_loops_cpu(
    NormalizePattern pattern, const gen::NormalizeStages &stages, const NormalizeBuffers &buffers,
    const Halide::Target &target, const NormalizeKnobs &knobs, const SpecializeOut &specialize);

}  // namespace lpnorm::sched
