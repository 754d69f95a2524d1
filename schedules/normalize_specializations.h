// The copies of the normalization stages that every schedule makes, one per p_kind (and per
// scaled or unscaled call), so that no copy evaluates another's arithmetic.
#pragma once

#include <functional>

#include "normalize_algorithm.h"

namespace lpnorm::sched {

// Each p_kind of the sums (and the scaled and unscaled calls) gets its own copy of the sum's
// loop, so no copy evaluates another's term (general p calls pow; L1 must not pay for it).
// p = inf (the last kind) adds only zeros, which its copy drops. `schedule_copy` schedules each
// copy.
void specialize_terms(Halide::Stage update, const gen::NormalizeStages &s,
                      const std::function<void(Halide::Stage)> &schedule_copy);

// The per-group roots, one copy per p_kind. The pair root (scaled sum_add only) is 0 in every
// other call.
void specialize_roots(gen::NormalizeStages &s);

}  // namespace lpnorm::sched
