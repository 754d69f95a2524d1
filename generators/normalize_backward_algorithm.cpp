#include "normalize_backward_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

// y = x / d, d = n (the norm) or eps where eps clamps it, (S + eps)^(1/p) for sum_add. With
// g = dd/dx (sgn(x) |y|^(p-1) wherever d follows the norm, p = inf's dy shared by the ties of
// max|x|, 0 where eps clamps) and c = the sum over the group of dy y:
//   dx = (dy - g c) / d
// which is PyTorch's autograd of x / max(n, eps) (clamp_min passes the gradient where n >= eps)
// and of OpenVINO's (S + eps)^(1/p): every quantity is a ratio of the group's own values, at
// most 1 in magnitude, so nothing overflows where y does not. In units of hi, as the forward:
// y = (x hi) / d_hi and 1 / d = hi / d_hi. An all-zero group of the eps mode none (y = 0 by
// definition) gives dx = 0.
NormalizeBackwardStages define_normalize_backward(
    const Func &in, const Func &grad, const std::vector<Var> &vars, int r_dim, const Expr &r_extent,
    const Type &output_type, const Expr &p_kind, const Expr &p, const Expr &eps_kind,
    const Expr &eps, const Expr &eps_root, const Expr &scaled, bool vector_powers) {
    NormalizeBackwardStages b;
    b.forward = define_normalize(in, vars, r_dim, r_extent, output_type, p_kind, p, eps_kind, eps,
                                 eps_root, scaled, true, /*has_fma=*/false, vector_powers, true);
    const NormalizeStages &s = b.forward;
    const Type c = s.compute_type;
    const Expr zero = make_zero(c), one = make_one(c);
    std::vector<Expr> group(s.group.begin(), s.group.end());
    auto at = [&](const Func &f, const Expr &r) {
        std::vector<Expr> args(vars.begin(), vars.end());
        args[r_dim] = r;
        return cast(c, f(args));
    };
    const Expr is_max = p_kind == abi::kNormalizeMaxAbs;
    const Expr hi = s.scale(group)[1];

    // max|x| by its bits (the forward's peak), and the elements that attain it.
    auto attains = [&](const Expr &r) {
        std::vector<Expr> args(vars.begin(), vars.end());
        args[r_dim] = r;
        return magnitude_bits(in(args)) == s.peak(group);
    };
    b.count = Func("count");
    b.count_r = RDom(0, select(is_max, r_extent, 0), "count_r");
    b.count(group) = 0;
    b.count(group) += select(attains(b.count_r), 1, 0);

    b.factors = Func("factors");
    const Expr none_zero = s.zero_group && eps_kind == abi::kEpsNone;
    const Expr ties = b.count(group);
    const Expr inverse_hi = strict_float(select(none_zero, zero, one / s.denominator));
    // 1 / d itself where it is a normal number: multiplying by it rounds once, where
    // (w inverse) hi underflowed (float64 groups of 1e-310 that eps dominates).
    const Expr reciprocal = strict_float(inverse_hi * hi);
    const Expr reciprocal_bits = magnitude_bits(reciprocal);
    const Type rbits = UInt(c.bits());
    const Expr normal = reciprocal_bits >= make_const(rbits, uint64_t(1) << mantissa_bits(c)) &&
                        !is_nan_or_inf_bits(reciprocal);
    // dx = (w first) second: w / d as w times 1 / d, or (w inverse_hi) hi; chosen per group, so
    // that dx's loop multiplies twice with no select (second = 1 is exact).
    b.factors(group) =
        Tuple(inverse_hi, select(strict_float(s.denominator == s.norm) && !none_zero, one, zero),
              strict_float(select(ties > 0, one / cast(c, ties), zero)),
              select(normal, reciprocal, inverse_hi), select(normal, one, hi));
    const Expr inverse = b.factors(group)[0], follows_norm = b.factors(group)[1];
    const Expr tie_share = b.factors(group)[2];
    const Expr first = b.factors(group)[3], second = b.factors(group)[4];
    auto y_of = [&](const Expr &x) { return strict_float((x * hi) * inverse); };

    b.dot = Func("dot");
    b.dot_r = RDom(0, r_extent, "dot_r");
    b.dot(group) = zero;
    // Where the compute type holds the product of any two inputs exactly and in range (float32
    // in float64, float16 in float32: 48 and 22 bits of mantissa, twice the exponent range), c
    // is (sum of dy x) hi inverse, the group's factors once per group instead of two products
    // per element: the sum's only rounding is its adds'. Otherwise (bfloat16, float64: dy x
    // may overflow where dy y does not) the sum of dy y itself. Not strict: a sum of vector
    // partial sums, rfactor reassociates it.
    const bool exact_products = (s.input_type == Float(32) && c == Float(64)) ||
                                (s.input_type == Float(16) && c == Float(32));
    Expr dot = b.dot(group);
    if (exact_products) {
        b.dot(group) += at(grad, b.dot_r) * at(in, b.dot_r);
        dot = strict_float((dot * hi) * inverse);
    } else {
        b.dot(group) += at(grad, b.dot_r) * y_of(at(in, b.dot_r));
    }
    // c where d follows the norm; where eps clamps d, the norm's branch has no gradient: 0,
    // whatever the slope (one select per group instead of per element).
    b.through = Func("through");
    b.through(group) = select(follows_norm != zero, dot, zero);

    const Expr x = at(in, vars[r_dim]), dy = at(grad, vars[r_dim]);
    const Expr y = y_of(x), m = magnitude(y);
    const Expr x_zero = magnitude_bits(x) == 0;
    const Expr sign = select(x_zero || is_nan_bits(x), zero, sign_bit_set(x), -one, one);
    const Expr e = cast(c, p) - one;
    const Expr m_nan = is_nan_bits(m), m_inf = is_nan_or_inf_bits(m) && !m_nan;
    // In a Func of its own, as the forward's terms: not strict float, so that its products and
    // adds fuse.
    Func slope_power("slope_power");
    if (s.slope_base.defined()) {
        // |y| = a / (d lo) for a = |x| lo hi, and the forward's base is a / a_peak (a_peak = 1
        // below the large-p threshold), so |y|^(p - 1) is its slope_base times
        // (a_peak / (d lo))^(p - 1), the latter one pow per group (libm's): the float32
        // gradient on [1, 512, 38, 38] at p = 2.5 took two float64 powers per element before.
        // Both factors are in range wherever |y|^(p - 1) is (float32 inputs: define_normalize).
        b.slope_scale = Func("slope_scale");
        const Expr lo_inverse = s.scale(group)[2], from_relative = s.scale(group)[4];
        b.slope_scale(group) = select(
            p_kind == abi::kLp, pow(strict_float((inverse * lo_inverse) * from_relative), e), zero);
        slope_power(vars) = s.slope_base(vars) * b.slope_scale(group);
    } else {
        const Expr usable = select(m_nan || m_inf || x_zero, one, m);
        slope_power(vars) = lp_pow(usable, e, vector_powers && narrow_pow_suffices(s.input_type));
    }
    const Expr power =
        select(m_nan, m, x_zero, zero, m_inf, select(e < zero, zero, m), slope_power(vars));
    // One (condition, value) pair per line.
    // clang-format off
    const Expr slope = select(
        p_kind == abi::kL1, sign,
        p_kind == abi::kL2, y,
        p_kind == abi::kL3, sign * (m * m),
        p_kind == abi::kLp, sign * power,
        sign * select(attains(vars[r_dim]), tie_share, zero));  // p = inf
    // clang-format on
    const Expr w = strict_float(dy - slope * b.through(group));
    const Expr dx = strict_float((w * first) * second);
    b.out = Func("dx");
    b.out(vars) =
        output_type.bits() == 16 ? to_output(dx, output_type) : strict_float(cast(output_type, dx));
    return b;
}

}  // namespace lpnorm::gen
