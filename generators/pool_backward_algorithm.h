// The gradient of Lp pooling, dx = sum over the windows containing x of dy * dy/dx: what is
// computed, never how (schedules/pool_backward_schedule.h). A gather: each element of dx visits
// the windows that read it, no scatter and no atomics.
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::gen {

// The windows one call visits per spatial dim, innermost first (runtime values, kernel_abi.h):
// element i of the call's x reads windows o = (i + first_window - j * window_step) /
// window_stride, j in [0, taps), those where the division is exact and 0 <= o < the output's
// extent. kernel, stride, dilation and padded (the input's extent plus both pads) count the
// taps of window o inside input + pads for the rescaled overhang.
struct PoolBackwardWindows {
    std::vector<Halide::Expr> taps, first_window, window_step, window_stride;
    std::vector<Halide::Expr> kernel, stride, dilation, padded;
    std::vector<Halide::Expr> output_extent;
};

// The stages of one pooling gradient pipeline, handed to schedules/. A pipeline takes either
// the separable kinds (kernel_abi.h, pool_backward_separable) or the others, the per-window
// kinds: two kernels per rank. (One kernel with both compiled in 71 s for 3-D float32 on AVX2,
// 16 of its 22 s of lowering in Halide's checks of the inputs' bounds over every copy of both
// kinds' loops; the two apart compile in 22 + 10 s.)
struct PoolBackwardStages {
    // inside[d](o): the taps of window coordinate o along dim d inside input + pads.
    std::vector<Halide::Func> inside;
    // The per-window kinds (each p_kind of general_kinds):
    //   coefficients(o.., c, n): Tuple(lift, 1 / (y lift), dy F) per window o, F = K / n for
    //     the rescaled overhang (else 1); 0, 0 where y = 0. lift is a power of two that makes a
    //     subnormal y normal (1 otherwise).
    //   sum(s.., c, n): the windows' contributions, compute type.
    std::vector<int> general_kinds;
    Halide::Func coefficients;
    Halide::Func sum;
    Halide::RDom windows;
    // The separable kinds (kernel_abi.h, pool_backward_separable), where dx = h(x) S with S a sum
    // of per-window factors, taken in float64 one spatial dim at a time, outermost first:
    //   window_factors(o.., c, n): F dy / y^(p - 1), 0 where y = 0 and outside the output;
    //   outer_sums[d - 1](o_0.., o_(d-1), s_d.., c, n): summed over the windows of dims >= d;
    //   phase_sums(q, r, s_1.., c, n): summed over every dim's windows, for element
    //     q * window_stride_0 + r of dim 0 (each phase of the stride a dense vector of windows).
    // p_kind is each one, where the input type has any (the modes of p = 1 and 3 share a copy
    // of the loops: a blend per element picks h).
    std::vector<Halide::Expr> separable_kinds;
    Halide::Func window_factors, phase_sums;
    std::vector<Halide::Func> outer_sums;
    std::vector<Halide::RDom> outer_taps;            // each of outer_sums' taps after its first
    std::vector<Halide::Expr> outer_window_strides;  // window_stride of each of outer_sums' dims
    Halide::Var q, r;
    Halide::Expr window_stride0;
    Halide::Expr separable_value;   // dx of the separable kinds, compute type
    Halide::Func out;               // out(s.., c, n) = sum or separable_value in the output type
    std::vector<Halide::Var> vars;  // s0.., c, n (innermost first)
    std::vector<Halide::Expr> kind_conditions;  // one per pool p_kind (kernel_abi.h)
    Halide::Expr signed_pow;
    Halide::Expr rescale;  // the rescaled overhang (kernel_abi.h)
    Halide::Type input_type;
    Halide::Type compute_type;
};

// float32 for 16- and 32-bit inputs, float64 for float64 (the forward's compute types).
Halide::Type pool_backward_compute_type(const Halide::Type &input);

// Builds the stages for x (the call's view of the forward's input), y (the forward's output)
// and dy (its gradient), each over `spatial` + 2 dims, and defines `output` (dx over x's view),
// for the separable kinds or for the others.
PoolBackwardStages define_pool_backward(const Halide::Func &x, const Halide::Func &y,
                                        const Halide::Func &dy, int spatial, bool separable,
                                        const PoolBackwardWindows &w, Halide::Func output,
                                        const Halide::Type &output_type, const Halide::Expr &p_kind,
                                        const Halide::Expr &p, const Halide::Expr &signed_pow,
                                        const Halide::Expr &rescale);

}  // namespace lpnorm::gen
