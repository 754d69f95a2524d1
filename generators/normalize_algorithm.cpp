#include "normalize_algorithm.h"

#include <cmath>

#include "float_math.h"
#include "kernel_abi.h"
#include "reduce_algorithm.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

namespace {

// Powers of two lo and hi with m * lo * hi in [1, 2) for a finite m > 0 when `use`, else 1 and
// 1, and 1 / lo. Their product can lie outside t's range (m subnormal or near the largest
// finite value), each factor does not: all three are normal, and multiplying by them is exact.
Tuple scale_factors(const Expr &m, const Expr &use) {
    const Type t = m.type();
    const Type bits_t = UInt(t.bits());
    const int mantissa = mantissa_bits(t);
    const int bias = t.bits() == 32 ? 127 : 1023;
    Expr field = cast<int>(reinterpret(bits_t, m) >> mantissa);  // m >= 0: no sign bit
    Expr subnormal = field == 0;
    // A subnormal m times 2^mantissa is normal, exactly.
    Expr lifted = select(subnormal, m * make_const(t, std::ldexp(1.0, mantissa)), m);
    Expr exponent =
        cast<int>(reinterpret(bits_t, lifted) >> mantissa) - bias - select(subnormal, mantissa, 0);
    Expr finite_nonzero = reinterpret(bits_t, m) != make_zero(bits_t) && field < 2 * bias + 1;
    Expr k = select(use && finite_nonzero, -exponent, 0);
    Expr k_lo = k / 2;  // floor: k_lo, -k_lo and k - k_lo all within [-bias, bias]
    return Tuple(power_of_two(k_lo, t), power_of_two(k - k_lo, t), power_of_two(-k_lo, t));
}

}  // namespace

Type normalize_compute_type(const Type &input) {
    return Float(abi::sum_accumulator_bits(true, input.bits()));
}

NormalizeStages define_normalize(const Func &in, const std::vector<Var> &vars, int r_dim,
                                 const Expr &r_extent, const Type &output_type, const Expr &p_kind,
                                 const Expr &p, const Expr &eps_kind, const Expr &eps,
                                 const Expr &eps_root, const Expr &scaled, bool float16_keeps_nan,
                                 bool has_fma, bool vector_powers, bool share_slope_base) {
    NormalizeStages s;
    s.vars = vars;
    for (int d = 0; d < int(vars.size()); d++) {
        if (d != r_dim) s.group.push_back(vars[d]);
    }
    s.input_type = in.type();
    s.compute_type = normalize_compute_type(s.input_type);
    s.scaled = scaled != 0;
    for (int k :
         {int(abi::kL1), int(abi::kL2), int(abi::kL3), int(abi::kLp), abi::kNormalizeMaxAbs}) {
        s.kind_conditions.push_back(p_kind == k);
    }
    const Type c = s.compute_type;
    const bool narrow = vector_powers && narrow_pow_suffices(s.input_type);
    const Expr is_max = p_kind == abi::kNormalizeMaxAbs;
    auto element_at = [&](const Expr &r) {
        std::vector<Expr> args(vars.begin(), vars.end());
        args[r_dim] = r;
        return in(args);
    };
    std::vector<Expr> group(s.group.begin(), s.group.end());

    // max|x| by its bits: NaN's are the largest, so a NaN anywhere makes the peak NaN. Read only
    // where it is used: scaled calls, and p = inf, whose norm it is.
    s.peak = Func("peak");
    s.peak_r = RDom(0, select(s.scaled || is_max, r_extent, 0), "peak_r");
    s.peak(group) = make_zero(UInt(s.input_type.bits()));
    s.peak(group) = max(s.peak(group), magnitude_bits(element_at(s.peak_r)));
    Expr peak = cast(c, reinterpret(s.input_type, s.peak(group)));

    // Large p: each term relative to the group's largest, b = a / a_peak (a = |x| lo hi, a_peak
    // its largest, in [1, 2)), taken as a times 1 / a_peak (two roundings: b within 2u), and
    // the norm a_peak times the root of the sum of b^p (abi::normalize_relative_terms_above).
    const Tuple factors = scale_factors(peak, s.scaled);
    const Expr a_peak = strict_float((peak * factors[0]) * factors[1]);
    const Expr relative =
        s.scaled && p_kind == abi::kLp &&
        cast<double>(p) > make_const(Float(64), abi::normalize_relative_terms_above(c.bits())) &&
        magnitude_bits(peak) != make_zero(UInt(c.bits())) && !is_nan_or_inf_bits(peak);
    s.scale = Func("scale");
    s.scale(group) = Tuple(factors[0], factors[1], factors[2],
                           select(relative, strict_float(make_one(c) / a_peak), make_one(c)),
                           select(relative, a_peak, make_one(c)));
    Expr lo = s.scale(group)[0], hi = s.scale(group)[1], lo_inverse = s.scale(group)[2];
    const Expr to_relative = s.scale(group)[3], from_relative = s.scale(group)[4];

    // The terms of |x| lo hi: the specialisation on `scaled` (schedules/) drops the products
    // from the unscaled copy.
    s.sum = Func("sum");
    // Over the whole group for every kind, p = inf's terms 0: an extent that depends on the kind
    // left the lane sums' merge a serial chain (schedules/cpu_normalize_schedule.cpp), while
    // p = inf's copy of the loop adds nothing and compiles to no loop at all.
    s.sum_r = RDom(0, r_extent, "sum_r");
    // The element itself: lp_term takes |.| where the kind needs it (a square does not).
    Expr value = cast(c, element_at(s.sum_r));
    s.sum(group) = make_zero(c);
    // Strict: reassociated as value * (lo * hi), the product of the factors can overflow.
    auto scale_by = [&](const Expr &v) { return strict_float((v * lo) * hi); };
    // A general p's powers in a Func of their own, so that they are not strict float and
    // narrow_pow's products and adds fuse into FMAs (strict float has none): the float32
    // forward on [4096, 1024] at p = 2.5 went from 5.1 to 3.3 ms, the gradient from 10.5 to
    // 8.5 ms (Zen 4).
    auto scaled_value = [&](const Expr &v) { return select(s.scaled, scale_by(v), v); };
    // General p's base: a, or b = a / a_peak for large p (to_relative is 1 otherwise, exactly).
    auto scaled_magnitude = [&](const std::vector<Expr> &at) {
        return strict_float(finite_magnitude(scaled_value(cast(c, in(at)))) * to_relative);
    };
    std::vector<Expr> at_vars(vars.begin(), vars.end());
    Func general_power("general_power");
    if (share_slope_base && narrow) {
        // The gradient needs a^(p - 1) per element for its slopes: a^p as a times it, one power
        // per element where the two took two (a product more, u, beside narrow_pow's 3.6e-13).
        // Written over r only for general p, so that no other kind pays the powers.
        s.slope_base = Func("slope_base");
        s.slope_base(vars) = undef(c);
        s.slope_base_r = RDom(0, select(p_kind == abi::kLp, r_extent, 0), "slope_base_r");
        std::vector<Expr> at_r = at_vars;
        at_r[r_dim] = s.slope_base_r;
        const Expr a = scaled_magnitude(at_r);
        // 0 as 1: its term is 0 either way, and 0^(p - 1) is inf for p < 1.
        s.slope_base(at_r) =
            lp_pow(select(magnitude_bits(a) == make_zero(UInt(c.bits())), make_one(c), a),
                   cast(c, p) - make_one(c), narrow);
        general_power(vars) = s.slope_base(vars) * scaled_magnitude(at_vars);
    } else {
        general_power(vars) = lp_pow(scaled_magnitude(at_vars), cast(c, p), narrow);
    }
    std::vector<Expr> at_sum_r(vars.begin(), vars.end());
    at_sum_r[r_dim] = s.sum_r;
    s.sum(group) +=
        select(is_max, make_zero(c),
               lp_term(scaled_value(value), c, p_kind, p, narrow, general_power(at_sum_r)));

    // The denominator d of y = (x hi) / d: the norm in units of 1 / hi (the scaled norm times
    // 1 / lo; unscaled, lo = hi = 1), and eps with it. Each member stays in range where y is:
    // forming eps s (s = lo hi) overflowed where eps dominates a group of tiny values.
    // Unscaled, sum_add adds eps to the sum; scaled, (S + eps s^p)^(1/p) is the p-norm of the
    // pair (n, eps^(1/p)) taken from its larger member.
    Expr eps_c = cast(c, eps), root_c = cast(c, eps_root);
    Expr sum = s.sum(group);
    Expr add = eps_kind == abi::kEpsAdd;
    // One root per stage, each in a Func of its own: the roots are long expressions (pow, the
    // cube root), which selects between copies of them made the generator run out of memory.
    s.root = Func("root");
    s.root(group) = norm_of_sum(select(add && !s.scaled, sum + eps_c, sum), p_kind, p);
    Expr norm =
        strict_float(select(is_max, peak * hi, (s.root(group) * from_relative) * lo_inverse));
    Expr bound = strict_float(root_c * hi);
    Expr larger = max(norm, bound), smaller = min(norm, bound);
    s.pair_root = Func("pair_root");
    s.pair_needed = s.scaled && add;
    s.pair_root(group) = select(
        s.pair_needed,
        strict_float(
            larger *
            norm_of_sum(make_one(c) + lp_term(smaller / larger, c, p_kind, p, narrow), p_kind, p)),
        make_zero(c));
    // max() and min() of a NaN could return the other operand: NaN stays the norm.
    Expr use_pair = s.pair_needed && !is_nan_bits(norm);
    norm = select(use_pair, s.pair_root(group), norm);
    Expr clamped = select(is_nan_bits(norm), norm, max(norm, bound));
    Expr denominator = select(eps_kind == abi::kEpsClamp, clamped, norm);
    // An all-zero group gives 0 (x is +-0), whatever eps is (the reciprocal of an eps below
    // the type's range would be inf, and 0 * inf NaN), except for eps = 0 in the eps modes:
    // there the formula is 0 / 0.
    Expr zero_group = select(is_max, s.peak(group) == make_zero(UInt(s.input_type.bits())),
                             magnitude_bits(sum) == make_zero(UInt(c.bits())));
    Expr to_zero = zero_group && (eps_kind == abi::kEpsNone || eps > 0);
    // Scaled: y = (x hi) / d. x hi is exact, and at most 2 where hi >= 1. Multiplying x by lo
    // and the reciprocal first underflowed where eps dominates (bfloat16 values near 1e-38
    // with eps = 1e-12 gave 0).
    s.norm = norm;
    s.denominator = denominator;
    s.zero_group = zero_group;
    s.inverse = Func("inverse");
    s.inverse(group) = strict_float(select(to_zero, make_zero(c), make_one(c) / denominator));

    // An infinite norm gives inverse 0: finite x become +-0 and infinite ones NaN (inf * 0).
    Expr x = cast(c, in(vars));
    Expr inverse = s.inverse(group);
    Expr y = select(s.scaled, (x * hi) * inverse, x * inverse);
    s.out = Func("normalized");
    // 32- and 64-bit outputs convert in hardware, NaN included, and so do float16 ones where
    // the target has the conversion; to_output's NaN test is for the others (emulated
    // conversions turn NaN into inf). It costs a compare, a pack and a blend per vector: float16
    // [4096, 1024] p = 2 ran 25-35% slower with it on AVX2 (F16C).
    const bool hardware = output_type.is_float() && float16_keeps_nan;
    Expr result = output_type.bits() == 16 && !hardware ? to_output(strict_float(y), output_type)
                                                        : strict_float(cast(output_type, y));
    if (has_fma && c.bits() == 64 && s.input_type == Float(32) && output_type == Float(32)) {
        // Unscaled float32: y = x (hi + lo), hi and lo the reciprocal's float32 halves, by one
        // FMA of float32 vectors, within 2^-47 relative of the float64 product x * inverse
        // before its rounding to float32 (lo's rounding, and that of x lo; 2^-150 absolute
        // where x lo underflows, below 2^-24 of a y under 2^-102). Where the reciprocal leaves
        // [2^-100, 2^100], x is scaled by a = 2^64 or 2^-64 first and the reciprocal the other
        // way, so that hi and lo stay normal float32: x a is exact (scaling down only loses
        // bits of an x whose y is below 2^-162, which rounds to 0 either way), and y rounds
        // once. In float64 (two conversions each way and two products per 16 floats on
        // AVX-512), [65536, 128] p = 2 took 1.16-1.19 ms, now 0.90-1.15; [4096, 1024]
        // 0.26-0.30, now 0.22-0.29 (2 threads, docs/benchmarks.md).
        const Expr up = (inverse < make_const(c, 0x1p-100));
        const Expr down = (inverse > make_const(c, 0x1p100));
        const Expr part =
            inverse * select(down, make_const(c, 0x1p-64), up, make_const(c, 0x1p64), make_one(c));
        const Expr hi = cast<float>(part);
        // Per group, in a Func of its own beside the reciprocal, not per vector of x.
        s.halves = Func("halves");
        s.halves(group) = Tuple(select(down, 0x1p64f, up, 0x1p-64f, 1.0f), hi,
                                cast<float>(strict_float(part - cast(c, hi))));
        const Expr a = s.halves(group)[0], hi_of_group = s.halves(group)[1],
                   lo_of_group = s.halves(group)[2];
        const Expr xa = strict_float(in(vars)*a);
        result = select(s.scaled, result,
                        fused_multiply_add(xa, hi_of_group, strict_float(xa * lo_of_group)));
    }
    s.out(vars) = result;
    return s;
}

}  // namespace lpnorm::gen
