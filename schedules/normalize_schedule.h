// Schedules for the normalization generators (generators/normalize_generators.cpp).
#pragma once

#include <vector>

#include "Halide.h"
#include "normalize_algorithm.h"

namespace lpnorm::sched {

enum class NormalizePattern { inner, middle };

struct NormalizeKnobs {
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) int name = default_value;
#include "normalize_knobs.def"
#undef LPNORM_KNOB
};

// Input extents, innermost first.
struct NormalizeBuffers {
    std::vector<Halide::Expr> input_extent;
};

// Schedules `stages` for the target of the generator's `context`.
void schedule_normalize(NormalizePattern pattern, const gen::NormalizeStages &stages,
                        const NormalizeBuffers &buffers, const Halide::GeneratorContext &context,
                        const NormalizeKnobs &knobs);

}  // namespace lpnorm::sched
