// The Lp normalization algorithm, y = x / ||x||_p over one reduced dim: what is computed, never
// how (schedules/normalize_schedule.h).
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::gen {

// The stages of one normalization pipeline, handed to schedules/. `group` names the kept
// coordinates (the input's vars without the reduced one), innermost first.
struct NormalizeStages {
    Halide::Func peak;       // peak(group): the largest |x| bits (scaled calls and p = inf only)
    Halide::Func scale;      // scale(group): Tuple(lo, hi, 1 / lo, 1 / a_peak, a_peak): powers
                             // of two with a_peak = lo * hi * max|x| in [1, 2) for scaled
                             // calls, 1 otherwise; the last two 1 unless general p's terms are
                             // relative to a_peak (abi::normalize_relative_terms_above)
    Halide::Func sum;        // sum(group): the sum of the terms of the scaled |x| over `r`
    Halide::Func root;       // root(group): the norm of the sum (plus eps for unscaled sum_add)
    Halide::Func pair_root;  // pair_root(group): scaled sum_add's norm of (n, eps^(1/p))
    Halide::Func halves;     // halves(group): Tuple(a, hi, lo), float32 with y = x a (hi + lo)
                             // for unscaled float32 on FMA targets; undefined elsewhere
    Halide::Func inverse;    // inverse(group): y = (x * hi) * inverse (scaled), x * inverse
    // slope_base(vars): a^(p - 1) for a = |x| lo hi (|x| unscaled), whose product with a is
    // general p's term; undefined unless shared (share_slope_base below). Written by an update
    // over slope_base_r: r for general p, else empty.
    Halide::Func slope_base;
    Halide::RDom slope_base_r;
    Halide::Func out;  // out(vars): the pipeline output
    Halide::RDom peak_r, sum_r;
    std::vector<Halide::Var> vars;              // output vars, innermost first
    std::vector<Halide::Var> group;             // vars without the reduced one
    std::vector<Halide::Expr> kind_conditions;  // one per p_kind, p = inf's last
    Halide::Expr pair_needed;                   // pair_root is read (scaled sum_add calls)
    // Per group, in units of 1 / hi (hi = 1 unscaled): the norm before eps clamps it, the
    // denominator d of y = (x hi) / d, and whether the group is all zeros.
    Halide::Expr norm, denominator, zero_group;
    Halide::Expr scaled;  // the runtime's `scaled` input, as a condition
    Halide::Type input_type;
    Halide::Type compute_type;
};

// Terms, sums and the scaling in float32 for 16-bit floats, float64 otherwise.
Halide::Type normalize_compute_type(const Halide::Type &input);

// Builds the stages for an input Func `in` of `vars.size()` dims whose dim `r_dim`, of extent
// `r_extent`, is normalized over. The other inputs are the kernel's (kernel_abi.h).
// `float16_keeps_nan`: the target converts float32 to float16 keeping NaN (the generator param
// of that name), so float16 outputs need no NaN test of their own. `has_fma`: the target has
// fused multiply-add instructions (the generator param of that name), so float32 outputs are
// scaled in float32 (see the .cpp) where they would take float64 otherwise. `vector_powers` as
// define_reduction's. `share_slope_base`: for the gradient, general p's terms come from
// `slope_base`, which the gradient's slopes reuse (taken only with narrow_pow: float32 inputs
// on CPUs, where every a^(p - 1) of a call whose terms are in range is in range too).
NormalizeStages define_normalize(const Halide::Func &in, const std::vector<Halide::Var> &vars,
                                 int r_dim, const Halide::Expr &r_extent,
                                 const Halide::Type &output_type, const Halide::Expr &p_kind,
                                 const Halide::Expr &p, const Halide::Expr &eps_kind,
                                 const Halide::Expr &eps, const Halide::Expr &eps_root,
                                 const Halide::Expr &scaled, bool float16_keeps_nan, bool has_fma,
                                 bool vector_powers, bool share_slope_base = false);

}  // namespace lpnorm::gen
