// The gradient of the Lp-norm reduction, dx = dy * d||x||_p / dx over one reduced dim: what is
// computed, never how (schedules/reduce_backward_schedule.h).
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::gen {

// The stages of one reduction gradient pipeline, handed to schedules/. `group` names the kept
// coordinates (the input's vars without the reduced one), innermost first.
struct ReduceBackwardStages {
    Halide::Func count;    // count(group): the elements whose |x| is y (p = +-inf only)
    Halide::Func inverse;  // inverse(group): Tuple(lift, 1 / (y lift)), lift a power of two
                           // that makes a subnormal y normal (1 otherwise)
    Halide::Func out;      // out(vars): dx
    Halide::RDom count_r;
    std::vector<Halide::Var> vars;
    std::vector<Halide::Var> group;
    std::vector<Halide::Expr> kind_conditions;  // one per p_kind (kernel_abi.h's gradient kinds)
    Halide::Type input_type;
    Halide::Type compute_type;
};

// float32 for 16- and 32-bit inputs (no sums: each element's result has a few roundings),
// float64 for float64.
Halide::Type reduce_backward_compute_type(const Halide::Type &input);

// Builds the stages for inputs x, y and dy of `vars.size()` dims whose dim `r_dim`, of extent
// `r_extent`, was reduced (y and dy are read at r = 0). p_kind and p are the kernel's
// (kernel_abi.h).
ReduceBackwardStages define_reduce_backward(const Halide::Func &x, const Halide::Func &y,
                                            const Halide::Func &dy,
                                            const std::vector<Halide::Var> &vars, int r_dim,
                                            const Halide::Expr &r_extent,
                                            const Halide::Type &output_type,
                                            const Halide::Expr &p_kind, const Halide::Expr &p);

}  // namespace lpnorm::gen
