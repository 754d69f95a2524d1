// The gradient of the Lp normalization y = x / d over one reduced dim: what is computed, never
// how (schedules/normalize_backward_schedule.h).
#pragma once

#include <vector>

#include "Halide.h"
#include "normalize_algorithm.h"

namespace lpnorm::gen {

// The stages of one normalization gradient pipeline, handed to schedules/.
struct NormalizeBackwardStages {
    NormalizeStages forward;  // the forward's stages up to each group's denominator
    Halide::Func count;       // count(group): the elements whose |x| is max|x| (p = inf only)
    Halide::Func factors;     // factors(group): Tuple(1 / d in units of hi, 1 if d follows the
                              // norm (the norm's branch has a gradient) else 0, 1 / count,
                              // then dx = (w first) second: 1 / d and 1 where 1 / d is
                              // normal, else 1 / d in units of hi and hi)
    Halide::Func dot;         // dot(group): the sum over the group of dy y, or of dy x where
                              // products of inputs are exact (`through` scales it)
    Halide::Func through;     // through(group): dot where d follows the norm, else 0
    // slope_scale(group): (a_peak / (d lo))^(p - 1) for general p where the forward shares its
    // slope_base (a_peak = 1 below the large-p threshold), else undefined.
    Halide::Func slope_scale;
    Halide::Func out;  // out(vars): dx
    Halide::RDom count_r, dot_r;
};

// Builds the stages for inputs x (`in`) and dy (`grad`) of `vars.size()` dims whose dim
// `r_dim`, of extent `r_extent`, is normalized over; the scalar inputs are the forward's, and so
// is `vector_powers`.
NormalizeBackwardStages define_normalize_backward(
    const Halide::Func &in, const Halide::Func &grad, const std::vector<Halide::Var> &vars,
    int r_dim, const Halide::Expr &r_extent, const Halide::Type &output_type,
    const Halide::Expr &p_kind, const Halide::Expr &p, const Halide::Expr &eps_kind,
    const Halide::Expr &eps, const Halide::Expr &eps_root, const Halide::Expr &scaled,
    bool vector_powers);

}  // namespace lpnorm::gen
