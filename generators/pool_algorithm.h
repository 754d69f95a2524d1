// The Lp pooling algorithm, written once for 1, 2 and 3 spatial dims: what is computed,
// never how. |x|^p is computed once per input element, then the (dilated) window is summed
// one spatial dim at a time (the innermost last, over a copy with zero margins), then the
// root is taken.
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::gen {

// The window of each spatial dim, innermost first (runtime values).
struct PoolWindow {
    std::vector<Halide::Expr> extent;  // input size
    std::vector<Halide::Expr> kernel, stride, dilation, pad_begin, pad_end;
    // The output's range along dim 0 (min, extent). When set, the taps of dim 0 are cut to
    // those that some window of that range reads inside the input, so that a huge dilated
    // kernel over a small input does not make the zero-padded row it reads huge. Left unset
    // where a schedule unrolls the taps by a constant count and the caller bounds the span.
    Halide::Expr output_min0, output_extent0;
};

// The stages of one pooling pipeline, handed to schedules/.
struct PoolStages {
    Halide::Func input;  // the input as the term reads it
    Halide::Func term;   // term(s0.., c, n): |x|^p (or x^p), compute type
    // Where recompute_cheap_terms may hold: the conditions (it, the abs mode and p_kind 1, 2,
    // 3 or 4) under which the outermost window sum takes |x|^p from the input at each tap
    // instead of reading `term`, which is then not read at all; empty otherwise.
    std::vector<Halide::Expr> recomputed_kind_conditions;
    // 1-D, where recompute_cheap_terms may hold: under those conditions the window sum is
    // this one, straight from the input over every tap (recomputed_taps0), and `padded` and
    // sums[0] are not read. Undefined otherwise.
    Halide::Func recomputed_sum0;
    Halide::RDom recomputed_taps0;
    // sums[d]: the window sum along spatial dim d of sums[d + 1] (of the term for the
    // outermost); sums[0] is the last, along the innermost dim.
    std::vector<Halide::Func> sums;
    // taps[d]: the RDom of sums[d]'s update: the taps of dim d, or for sums[1] (dim-0 x, tap).
    std::vector<Halide::RDom> taps;
    // What sums[0] reads: sums[1], or a copy of the term for one spatial dim. It is 0 outside
    // the input along dim 0 (pure definition) and written over the input's dim-0 range by its
    // update, whose RVar along dim 0 is padded_x.
    Halide::Func padded;
    Halide::RVar padded_x;
    Halide::Func norm;                          // norm(s0.., c, n): the root of the window sum
    Halide::Func out;                           // out(s0.., c, n) = norm in the output type
    std::vector<Halide::Var> vars;              // s0.., c, n (innermost first)
    std::vector<Halide::Expr> kind_conditions;  // one per p_kind, to specialise on
    Halide::Expr signed_pow;                    // true in the signed mode (x^p instead of |x|^p)
    Halide::Expr rescale;                       // true when overhanging windows are rescaled
    PoolWindow window;
    Halide::Type input_type;
    Halide::Type compute_type;
};

// The stages of a direct_window pipeline (kernel_abi.h, pool_direct_window()): each window
// summed from the input, |x|^p at every tap, 0 outside the input.
struct PoolDirectStages {
    Halide::Func sum;               // sum(s0.., c, n): the window's sum of |x|^p, compute type
    Halide::RDom taps;              // its update's taps, one RVar per spatial dim, innermost first
    Halide::Func out;               // out(s0.., c, n): the root, in the output type
    std::vector<Halide::Var> vars;  // s0.., c, n (innermost first)
    std::vector<Halide::Expr> kind_conditions;  // p_kind == kPool1 .. kPool4, to specialise on
    PoolWindow window;
    Halide::Type compute_type;
};

// The stages of a flat_plane pipeline (kernel_abi.h, pool_flat_window()): a stride of 1 and
// an output of the input's size along both dims. Each plane's |x|^p is written into a copy
// with zero margins (the pads), whose rows are then read as one flat row: a window's sum
// along dim 0 at flat position j is sum_t padded(j + t d0), along dim 1
// sum_t rowsum(j + t d1 Wp) (Wp the padded row's length), with no condition at any tap and
// vectors that run across the ends of the rows (the lanes past a row's end are never read).
struct PoolFlatStages {
    Halide::Func padded;    // padded(j, c, n): |x|^p at j = (y + pad_begin1) Wp + x + pad_begin0
    Halide::RDom interior;  // padded's update: (x, y) over the input plane
    Halide::Func rowsum;    // rowsum(j, c, n): the sum along dim 0 of the window starting at j
    Halide::RDom taps0;     // rowsum's update: the taps along dim 0
    Halide::Func colsum;    // colsum(j, c, n): the whole window's sum
    Halide::RDom taps1;     // colsum's update: the taps along dim 1
    Halide::Func out;       // out(s0, s1, c, n): the root of colsum(s1 Wp + s0), output type
    Halide::Var flat;       // j
    std::vector<Halide::Var> vars;              // s0, s1, c, n (innermost first)
    std::vector<Halide::Expr> kind_conditions;  // p_kind == kPool1 .. kPool4, to specialise on
    PoolWindow window;
    Halide::Type compute_type;
};

// float16/bfloat16/float32 -> float32, float64 -> float64.
Halide::Type pool_compute_type(const Halide::Type &input);

// Builds the stages for `input` (a Func over the vars), `spatial` dims, and defines `output`
// (the pipeline's output Func, so that the window may refer to its bounds). `p_kind` selects the
// term and the root (see kernel_abi.h), `p` is the real order of the general kind,
// `signed_pow` != 0 raises x instead of |x|, `rescale` != 0 scales windows that overhang the
// padded input by K / n. `float64_powers`: the root of float32 sums for integer p >= 5 is
// refined in float64 (targets without float64, D3D12, pass false). Where
// `recompute_cheap_terms` holds (sched::pool_recompute_condition says where), the outermost
// window sum computes the terms of p = 1 to 4 in the abs mode from the input, a few products
// per tap, rather than reading them from `term` (see recomputed_kind_conditions); for 1-D
// that sum is recomputed_sum0.
PoolStages define_pool(const Halide::Func &input, int spatial, const PoolWindow &window,
                       Halide::Func output, const Halide::Type &output_type,
                       const Halide::Expr &p_kind, const Halide::Expr &p,
                       const Halide::Expr &signed_pow, const Halide::Expr &rescale,
                       bool float64_powers, const Halide::Expr &recompute_cheap_terms);

// Builds the direct_window stages for the windows pool_direct_window() takes (the p_kind of
// p = 1 to 4, the abs mode, no rescaling) and defines `output`.
PoolDirectStages define_pool_direct(const Halide::Func &input, int spatial,
                                    const PoolWindow &window, Halide::Func output,
                                    const Halide::Type &output_type, const Halide::Expr &p_kind);

// Builds the flat_plane stages for the windows pool_flat_window() takes (2-D, the p_kind of
// p = 1 to 4, the abs mode, no rescaling) and defines `output`.
PoolFlatStages define_pool_flat(const Halide::Func &input, const PoolWindow &window,
                                Halide::Func output, const Halide::Type &output_type,
                                const Halide::Expr &p_kind);

}  // namespace lpnorm::gen
