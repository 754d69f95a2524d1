#include "pool_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

namespace {

// m^n for an integer n in [1, kMaxChainPower] by binary powering: at most 2 log2(n)
// products, relative error at most (1+u)^(n-1) - 1, where pow's error grows with n.
Expr integer_power(const Expr &m, const Expr &p) {
    Expr n = cast<int>(p);
    Expr result = make_one(m.type()), square = m;
    for (int bit = 0; (1 << bit) <= abi::kMaxChainPower; bit++) {
        result = select(((n >> bit) & 1) == 1, result * square, result);
        square = square * square;
    }
    return result;
}

// |v|^e for the kinds' fixed exponents (1, 2, 3, 4), products for other integer p, or pow,
// for finite m >= 0. `root` selects 1/p instead of p.
Expr magnitude_power(const Expr &m, const Expr &p_kind, const Expr &p, bool root) {
    Type t = m.type();
    if (root) {
        return select(p_kind == abi::kPool1, m,
                      p_kind == abi::kPool2, sqrt(m),
                      p_kind == abi::kPool3, cube_root(m),
                      p_kind == abi::kPool4, sqrt(sqrt(m)),
                      pow(m, make_one(t) / cast(t, p)));
    }
    Expr m2 = m * m;
    return select(p_kind == abi::kPool1, m,
                  p_kind == abi::kPool2, m2,
                  p_kind == abi::kPool3, m2 * m,
                  p_kind == abi::kPool4, m2 * m2,
                  p_kind == abi::kPoolInt, integer_power(m, p),
                  pow(m, cast(t, p)));
}

// v^e for e = p (the term) or 1/p (the root), v of any sign, as lpnorm.h states it for the
// signed mode: a negative base keeps its sign for an odd integer e, loses it for an even one,
// and gives NaN otherwise (-inf included); the root exponent 1/p counts as an integer only
// for p = 1. NaN and inf are found on the bits, and pow only ever sees finite values >= 0.
Expr signed_power(const Expr &v, const Expr &p_kind, const Expr &p, bool root) {
    Type t = v.type();
    Expr m = abs(v);
    Expr non_finite = is_nan_or_inf_bits(v);
    Expr power = select(non_finite, m, magnitude_power(select(non_finite, make_one(t), m),
                                                       p_kind, p, root));
    Expr odd, integer;
    if (root) {
        odd = integer = p_kind == abi::kPool1;
    } else {
        Expr e = cast(t, p);
        Expr general_integer = floor(e) == e;
        Expr general_odd = general_integer && (e - 2 * floor(e / 2)) == make_one(t);
        Expr odd_kind = p_kind == abi::kPool1 || p_kind == abi::kPool3;
        Expr even_kind = p_kind == abi::kPool2 || p_kind == abi::kPool4;
        Expr general = p_kind == abi::kPoolInt || p_kind == abi::kPoolP;
        odd = select(general, general_odd, odd_kind);
        integer = select(general, general_integer, odd_kind || even_kind);
    }
    Expr negative = sign_bit_set(v) && v != make_zero(t);
    Expr neg_power = select(odd, -power, integer, power, quiet_nan(t));
    return select(negative, neg_power, power);
}

// Number of taps j in [0, kernel) of window `o` that fall inside input + pads.
Expr taps_inside_padded(const Expr &o, int d, const PoolWindow &w) {
    Expr padded = w.extent[d] + w.pad_begin[d] + w.pad_end[d];
    return min(w.kernel[d], (padded - 1 - o * w.stride[d]) / w.dilation[d] + 1);
}

std::vector<Expr> kind_conditions(const Expr &p_kind) {
    std::vector<Expr> conditions;
    for (int k = 0; k < abi::kNumPoolKinds; k++) {
        conditions.push_back(p_kind == k);
    }
    return conditions;
}

}  // namespace

Type pool_compute_type(const Type &input) {
    return input.bits() == 64 ? Float(64) : Float(32);
}

PoolStages define_pool(const Func &input, int spatial, const PoolWindow &window,
                       const Type &output_type, const Expr &p_kind, const Expr &p,
                       const Expr &signed_pow, const Expr &rescale) {
    PoolStages s;
    s.window = window;
    s.input_type = input.type();
    s.compute_type = pool_compute_type(input.type());
    s.kind_conditions = kind_conditions(p_kind);
    s.rescale = rescale != 0;
    for (int d = 0; d < spatial; d++) {
        s.vars.emplace_back("s" + std::to_string(d));
    }
    s.vars.emplace_back("c");
    s.vars.emplace_back("n");
    std::vector<Expr> args(s.vars.begin(), s.vars.end());
    const Type ct = s.compute_type;

    // The term, once per input element. Halide compiles float math with fast-math flags, so
    // it is marked strict: NaN and inf must propagate as IEEE says.
    Expr x = cast(ct, input(args));
    Expr abs_term = signed_power(abs(x), p_kind, p, false);
    s.term = Func("term");
    s.term(args) = strict_float(select(signed_pow != 0, signed_power(x, p_kind, p, false), abs_term));

    // The window sums, one spatial dim at a time. Taps outside the input read a clamped
    // coordinate and contribute 0: the padding is never materialised.
    Func previous = s.term;
    for (int d = 0; d < spatial; d++) {
        RDom tap(0, window.kernel[d], "tap" + std::to_string(d));
        Expr at = s.vars[d] * window.stride[d] - window.pad_begin[d] + tap * window.dilation[d];
        Expr inside = at >= 0 && at < window.extent[d];
        std::vector<Expr> from = args;
        from[d] = clamp(likely(at), 0, window.extent[d] - 1);
        Func sum("sum" + std::to_string(d));
        sum(args) = make_zero(ct);
        sum(args) += select(likely(inside), previous(from), make_zero(ct));
        s.sums.push_back(sum);
        s.taps.push_back(tap);
        previous = sum;
    }

    // Rescaled overhang: K / n, n = the taps inside input + pads.
    Expr total = previous(args);
    Expr kernel_size = make_one(ct), inside = make_one(ct);
    for (int d = 0; d < spatial; d++) {
        kernel_size *= cast(ct, window.kernel[d]);
        inside *= cast(ct, taps_inside_padded(s.vars[d], d, window));
    }
    total = select(rescale != 0, total * (kernel_size / inside), total);

    s.norm = Func("norm");
    s.norm(args) = strict_float(signed_power(total, p_kind, p, true));
    s.out = Func("out");
    s.out(args) = to_output(s.norm(args), output_type);
    return s;
}

}  // namespace lpnorm::gen
