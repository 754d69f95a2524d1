#include "reduce_backward_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

Type reduce_backward_compute_type(const Type &input) {
    return Float(abi::pool_compute_bits(input.bits()));
}

// With s = sgn(x) (0 for 0 and NaN, as PyTorch takes it) and t = |x| / y, which lies in [0, 1]
// for the y of the forward pass, NaN where x or y is:
//   p = 1:      s dy
//   p = 2:      (x / y) dy, 0 where y = 0
//   other p:    s t^(p-1) dy (by products for integer p >= 4, else pow), 0 where y = 0;
//               where x = 0, 0 times y^(1-p) (p < 1) or 1 / y (p > 1): NaN where y is NaN,
//               or infinite for p < 1, as PyTorch's products
//   p = 0:      0
//   p = +-inf:  s (dy / n) [|x| = y or x is NaN], n the number of such elements of the group
// PyTorch's formulas, with the powers taken of t rather than of x and y apart: x^(p-1) and
// y^(p-1) overflow where the norm does not. The factor multiplies dy last, so a NaN or
// infinite dy reaches every element the way PyTorch's products carry it.
ReduceBackwardStages define_reduce_backward(const Func &x, const Func &y, const Func &dy,
                                            const std::vector<Var> &vars, int r_dim,
                                            const Expr &r_extent, const Type &output_type,
                                            const Expr &p_kind, const Expr &p) {
    ReduceBackwardStages s;
    s.vars = vars;
    for (int d = 0; d < int(vars.size()); d++) {
        if (d != r_dim) s.group.push_back(vars[d]);
    }
    s.input_type = x.type();
    s.compute_type = reduce_backward_compute_type(s.input_type);
    for (int k = 0; k < abi::kNumGradKinds; k++) {
        s.kind_conditions.push_back(p_kind == k);
    }
    const Type c = s.compute_type;
    const Expr zero = make_zero(c), one = make_one(c), inf = c.max();
    std::vector<Expr> at_group(vars.begin(), vars.end());
    at_group[r_dim] = 0;
    const Expr norm = cast(c, y(at_group)), grad = cast(c, dy(at_group));

    // The terms of x at reduced coordinate r.
    auto x_at = [&](const Expr &r) {
        std::vector<Expr> args(vars.begin(), vars.end());
        args[r_dim] = r;
        return cast(c, x(args));
    };
    auto attains = [&](const Expr &v) {
        return strict_float(magnitude(v) == norm) || is_nan_bits(v);
    };

    std::vector<Expr> group(s.group.begin(), s.group.end());
    s.count = Func("count");
    s.count_r = RDom(0, select(p_kind == abi::kGradExtreme, r_extent, 0), "count_r");
    s.count(group) = 0;
    s.count(group) += select(attains(x_at(s.count_r)), 1, 0);

    const Expr v = x_at(vars[r_dim]);
    const Expr a = magnitude(v);
    const Expr v_zero = magnitude_bits(v) == 0;
    const Expr sign = select(v_zero || is_nan_bits(v), zero, sign_bit_set(v), -one, one);
    const Expr norm_zero = magnitude_bits(norm) == 0;
    // t = |x| / y as (|x| lift) (1 / (y lift)), the reciprocal once per group: a division per
    // element bound the middle pattern (vdivps: 63% of the samples of [1, 512, 38, 38] p = 2,
    // Zen 3). lift = 2^64 for a subnormal y, whose reciprocal would overflow; products by it
    // are exact (|x| <= y). y = 0 gives inf (its groups are 0 by the selects below), y = inf
    // 0 and NaN NaN, as the division would.
    const int mantissa = mantissa_bits(c);
    const Expr smallest_normal_bits = make_const(UInt(c.bits()), uint64_t(1) << mantissa);
    const Expr lift_needed = magnitude_bits(norm) < smallest_normal_bits && !norm_zero;
    s.inverse = Func("inverse");
    const Expr lift_by = select(lift_needed, make_const(c, 0x1p64), one);
    s.inverse(group) = Tuple(lift_by, strict_float(one / (norm * lift_by)));
    const Expr lift = s.inverse(group)[0], reciprocal = s.inverse(group)[1];
    const Expr t = strict_float((a * lift) * reciprocal);
    // pow on finite, non-zero t only (Halide's float32 pow maps NaN to 0); its limits by hand.
    const Expr e = cast(c, p) - one;
    const Expr t_nan = is_nan_bits(t), t_inf = is_nan_or_inf_bits(t) && !t_nan;
    const Expr t_zero = magnitude_bits(t) == 0;
    const Expr usable = select(t_nan || t_inf || t_zero, one, t);
    // In a Func of its own, outside the strict-float expression of dx, so that its products and
    // adds fuse into FMAs. float32 by float32_pow on every target: Halide's float32 pow is wrong
    // on subnormal t, on CPUs and on CUDA alike (ReduceBackwardDtype.SubnormalRatios).
    Func general_power("general_power");
    general_power(vars) = c == Float(32) ? float32_pow(usable, e) : pow(usable, e);
    const Expr power = select(t_nan, t,                             //
                              t_zero, select(e < zero, inf, zero),  //
                              t_inf, select(e < zero, zero, inf),   //
                              general_power(vars));
    // At x = 0, PyTorch's products are 0 times dy / y^(p-1) (p > 1) or dy y^(1-p) (p < 1):
    // NaN where y is NaN, and for p < 1 where y is infinite.
    const Expr at_zero = select(e < zero, norm, reciprocal);
    const Expr ties = cast(c, s.count(group));
    // One (condition, value) pair per line (kGradExtreme's is the last value).
    // clang-format off
    const Expr dx = strict_float(select(
        p_kind == abi::kL1, sign * grad,
        p_kind == abi::kL2, select(norm_zero, zero, (v * lift) * reciprocal) * grad,
        p_kind == abi::kL3, select(norm_zero, zero, sign * (t * t)) * grad,
        p_kind == abi::kLp, select(norm_zero, zero, v_zero, zero * at_zero, sign * power) * grad,
        p_kind == abi::kGradInt, select(norm_zero, zero, v_zero, zero * at_zero,
                                        sign * integer_power(t, p - 1)) * grad,
        p_kind == abi::kCount, zero,
        sign * ((grad / ties) * select(attains(v), one, zero))));
    // clang-format on
    s.out = Func("dx");
    s.out(vars) =
        output_type.bits() == 16 ? to_output(dx, output_type) : strict_float(cast(output_type, dx));
    return s;
}

}  // namespace lpnorm::gen
