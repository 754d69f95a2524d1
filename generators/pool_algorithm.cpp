#include "pool_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::is_const_zero;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

namespace {

// m^(1/p) for a finite m >= 0, the general kind's root. In float32 by
// float32_pow (float_math.h), within (3 + 2 ln 2 |log2 m / p|) u: Halide's float32 pow is wrong on
// subnormal m, and with it as the root the accuracy suite's general-p bound failed on windows
// that mix magnitudes (311 against 269 ulps at p = 0.5 over values from 1e-6 to 1e31; the
// terms keep Halide's pow, which it passes with, subnormals aside: general_power). float32_pow in
// the terms too made [8, 256, 28, 28] 3x3 p = 2.5 16% slower than Halide's pow there (2.57
// against 2.21 ms, Zen 4: it is strict, without fused multiply-adds, and divides once); in the root
// alone, 11%. float64 keeps Halide's pow. The kind's calls are always scanned for range errors
// (range_repair.h), so float32_pow's 2^n may raise the overflow flag on the garbage of the
// lanes past the output; integer roots, scanned only where a flag was raised, keep Halide's
// pow, which builds 2^n from bits and raises none.
Expr general_root(const Expr &m, const Expr &p) {
    const Expr e = make_one(m.type()) / cast(m.type(), p);
    if (m.type().bits() != 32) {
        return pow(m, e);
    }
    return select(magnitude_bits(m) == 0, make_zero(m.type()), float32_pow(m, e));
}

// m^p for a finite m >= 0, the general kind's term. Halide's float32 pow is wrong on subnormal
// m (pow(1e-40, 0.5) gave 7.7e-20, not 1e-20; a sum of such terms was off by up to 4e7 ulps
// at p < 1, where no range flag is raised), so a subnormal m is taken as (m 2^24)^p 2^(-24 p):
// a compare, two selects and a product per term, 2^(-24 p) once per call (in float64 where
// `wide`, so rounded once). float64 keeps Halide's pow (libm's, right on subnormals).
Expr general_power(const Expr &m, const Expr &p, bool wide) {
    const Type t = m.type();
    if (t.bits() != 32) {
        return pow(m, cast(t, p));
    }
    const Expr tiny = m < make_const(t, 0x1p-126);
    // p capped at 5: from there (m 2^24)^p < 2^-510 is 0 whatever it is multiplied by, and an
    // uncapped 2^(-24 p) would itself underflow and raise the flag that makes the integer
    // kinds, which compute it too, scan their output (RangeWatch).
    const Expr capped = min(cast<double>(p), make_const(Float(64), 5.0));
    const Expr undo =
        wide ? cast(t, pow(make_const(Float(64), 2.0), capped * make_const(Float(64), -24.0)))
             : pow(make_const(t, 2.0), cast(t, capped) * make_const(t, -24.0));
    return pow(select(tiny, m * make_const(t, 0x1p24), m), cast(t, p)) *
           select(tiny, undo, make_one(t));
}

// m^(1/p) for an integer p of the kInt kind. pow in float32 is off by 7-10 ulp for the roots
// of p = 7 pools near 1e-2 (its error and the rounding of 1/p to float32 grow with |ln m|):
// with `wide`, one Newton step in float64 from it (m^(1/p) = y (1 + (m / y^p - 1) / p), y^p
// by products), then one rounding. Taking the whole pow in float64 instead made p = 7 pooling
// 3x as slow (a scalar libm call per lane).
Expr integer_root(const Expr &m, const Expr &p, bool wide) {
    const Type t = m.type();
    Expr y0 = pow(m, make_one(t) / cast(t, p));
    if (!wide || t.bits() != 32) {
        return y0;
    }
    Expr y = cast<double>(y0);
    Expr refined = y + y * (cast<double>(m) / integer_power(y, p) - 1) / cast<double>(p);
    return select(y0 == make_zero(t), y0, cast(t, refined));
}

// m^p for the kinds of a fixed p (1, 2, 3, 4; p_kind 4 and 5 give m^4), by products.
Expr fixed_kind_power(const Expr &m, const Expr &p_kind) {
    Expr m2 = m * m;
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kPool1, m,
                  p_kind == abi::kPool2, m2,
                  p_kind == abi::kPool3, m2 * m,
                  m2 * m2);
    // clang-format on
}

// |x|^p of any x for the same kinds: the even powers square x itself, which is |x|^2 bit for
// bit (a NaN's sign bit apart, which the output's NaN select drops): one AND fewer per term,
// taken at every tap in the direct kernels.
Expr fixed_kind_term(const Expr &x, const Expr &p_kind) {
    const Expr m = magnitude(x), x2 = x * x;
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kPool1, m,
                  p_kind == abi::kPool2, x2,
                  p_kind == abi::kPool3, x2 * m,
                  x2 * x2);
    // clang-format on
}

// m^(1/p) for the kinds of a fixed p (1, 2, 3, 4; p_kind 4 and 5 give m^(1/4)); the cube
// root is `cube_root_of_m`.
Expr fixed_kind_root(const Expr &m, const Expr &p_kind, const Expr &cube_root_of_m) {
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kPool1, m,
                  p_kind == abi::kPool2, sqrt(m),
                  p_kind == abi::kPool3, cube_root_of_m,
                  sqrt(sqrt(m)));
    // clang-format on
}

// |v|^e for the kinds' fixed exponents (1, 2, 3, 4), products for other integer p, or pow,
// for finite m >= 0. `root` selects 1/p instead of p; the cube root is `cube_root_of_m`.
Expr magnitude_power(const Expr &m, const Expr &p_kind, const Expr &p, bool root, bool wide,
                     const Expr &cube_root_of_m) {
    if (root) {
        return select(p_kind == abi::kPoolInt, integer_root(m, p, wide), p_kind == abi::kPoolP,
                      general_root(m, p), fixed_kind_root(m, p_kind, cube_root_of_m));
    }
    return select(p_kind == abi::kPoolInt, integer_power(m, p), p_kind == abi::kPoolP,
                  general_power(m, p, wide), fixed_kind_power(m, p_kind));
}

// |v|^e for e = p (the term) or 1/p (the root) of a magnitude m >= 0, NaN or inf included.
// Products, sqrt and the cube root take NaN and inf as IEEE says; pow is written for finite
// values only, so only its kinds test the bits.
Expr guarded_power(const Expr &m, const Expr &p_kind, const Expr &p, bool root, bool wide,
                   const Expr &cube_root_of_m = Expr()) {
    Expr guarded = root ? !(p_kind == abi::kPool1 || p_kind == abi::kPool2 ||
                            p_kind == abi::kPool3 || p_kind == abi::kPool4)
                        : (p_kind == abi::kPoolInt || p_kind == abi::kPoolP);
    Expr non_finite = guarded && is_nan_or_inf_bits(m);
    return select(non_finite, m,
                  magnitude_power(select(non_finite, make_one(m.type()), m), p_kind, p, root, wide,
                                  cube_root_of_m));
}

// v^e for e = p (the term) or 1/p (the root), v of any sign, as IEEE pow and so PyTorch's
// lp_pool formula give it (lpnorm.h, the signed mode): a negative base keeps its sign for an
// odd integer e and loses it for an even one; for any other e it gives NaN, except -inf,
// whose power is +inf, unless e = 0.5 (PyTorch's pow takes the square root).
Expr signed_power(const Expr &v, const Expr &p_kind, const Expr &p, bool root, bool wide,
                  const Expr &cube_root_of_m = Expr()) {
    Type t = v.type();
    Expr power = guarded_power(magnitude(v), p_kind, p, root, wide, cube_root_of_m);
    Expr general = p_kind == abi::kPoolInt || p_kind == abi::kPoolP;
    // 1/p in double, as PyTorch forms it (1.0 / norm_type), so p = 1/3 has e = 3.
    Expr e = root ? cast(t, make_const(Float(64), 1.0) / cast<double>(p)) : cast(t, p);
    Expr general_integer = floor(e) == e;
    Expr general_odd = general_integer && (e - 2 * floor(e / 2)) == make_one(t);
    Expr odd, integer;
    if (root) {  // e = 1, 1/2, 1/3, 1/4 for the fixed kinds
        odd = select(general, general_odd, p_kind == abi::kPool1);
        integer = select(general, general_integer, p_kind == abi::kPool1);
    } else {
        Expr odd_kind = p_kind == abi::kPool1 || p_kind == abi::kPool3;
        Expr even_kind = p_kind == abi::kPool2 || p_kind == abi::kPool4;
        odd = select(general, general_odd, odd_kind);
        integer = select(general, general_integer, odd_kind || even_kind);
    }
    Expr negative = sign_bit_set(v) && v != make_zero(t);
    // PyTorch raises to 0.5 by sqrt, which gives NaN for -inf too (pow gives +inf).
    Expr by_sqrt = root ? Internal::const_false() : e == make_const(t, 0.5);
    Expr neg_power = select(odd, -power, integer || (magnitude_bits(v) == inf_bits(t) && !by_sqrt),
                            power, quiet_nan(t));
    return select(negative, neg_power, power);
}

// Number of taps j in [0, kernel) of window `o` that fall inside input + pads.
Expr taps_inside_padded(const Expr &o, int d, const PoolWindow &w) {
    Expr padded = w.extent[d] + w.pad_begin[d] + w.pad_end[d];
    return min(w.kernel[d], (padded - 1 - o * w.stride[d]) / w.dilation[d] + 1);
}

// `f` read along spatial dim d with 0 outside the input, so that a window sum along d adds
// every tap of the kernel with no bound on its loop: a select per tap, whose condition is the
// same for a whole row of an outer dim. `likely_inside` (dim 0) marks the condition and the
// clamp likely, so that a loop over the dim is cut into border and interior parts.
Func zero_outside(const Func &f, int d, const std::vector<Var> &vars, const Expr &extent,
                  bool likely_inside = false) {
    std::vector<Expr> args(vars.begin(), vars.end()), clamped = args;
    Expr inside = args[d] >= 0 && args[d] < extent;
    clamped[d] = clamp(likely_inside ? likely(args[d]) : args[d], 0, extent - 1);
    Func z("zero_outside" + std::to_string(d));
    z(args) = select(likely_inside ? likely(inside) : inside, f(clamped), make_zero(f.type()));
    return z;
}

// The taps j of a window starting at input coordinate `start` along dim d that fall inside
// the input, as a range [first, end) of j: start + j * dilation in [0, extent). Stated as
// bounds on j (not as a condition on the coordinate) so that the tap loop is cut to them.
Expr first_tap_inside(const Expr &start, int d, const PoolWindow &w) {
    // ceil(-start / dilation) for start < 0; Halide's division rounds toward -inf.
    return max(0, (w.dilation[d] - 1 - start) / w.dilation[d]);
}
Expr end_tap_inside(const Expr &start, int d, const PoolWindow &w) {
    return min(w.kernel[d], (w.extent[d] - 1 - start) / w.dilation[d] + 1);
}

// The taps of dim 0: all of them, or (with the output range set) those that at least one
// output's window reads inside the input. The others read only the zero margins of `padded`,
// so leaving them out changes no sum, and `padded` then spans the input plus the outputs'
// strides rather than (kernel - 1) * dilation.
RDom taps_of_dim0(const PoolWindow &w) {
    if (!w.output_extent0.defined()) {
        return RDom(0, w.kernel[0], "tap0");
    }
    Expr first_start = w.output_min0 * w.stride[0] - w.pad_begin[0];
    Expr last_start = first_start + (w.output_extent0 - 1) * w.stride[0];
    Expr first = first_tap_inside(last_start, 0, w);
    Expr end = end_tap_inside(first_start, 0, w);
    return RDom(first, max(end - first, 0), "tap0");
}

// The cube root of |total| in a stage of its own, inlined, called at `args`: for float32
// outside the norm's strict_float (which applies to the expressions of its own definition
// only), so that its products and adds fuse. With the guards it no longer needs,
// [8,256,28,28] 3x3 s1 pad 1 p = 3 took 0.88 against 1.05 ms (Zen 4, AVX-512). float64 keeps
// it strict: the simplifier rewrites r + r t as r (t + 1), whose 4/3 an OpenCL compiler rounds
// to float (float_math.cpp).
Expr cube_root_stage(const Expr &total, const std::vector<Expr> &args) {
    Func cube_root_of_total("cube_root_of_total");
    const Expr root_of_magnitude = cube_root(magnitude(total));
    cube_root_of_total(args) =
        total.type().bits() == 32 ? root_of_magnitude : strict_float(root_of_magnitude);
    return cube_root_of_total(args);
}

std::vector<Expr> kind_conditions(const Expr &p_kind) {
    std::vector<Expr> conditions;
    for (int k = 0; k < abi::kNumPoolKinds; k++) {
        conditions.push_back(p_kind == k);
    }
    return conditions;
}

}  // namespace

Type pool_compute_type(const Type &input) { return Float(abi::pool_compute_bits(input.bits())); }

PoolStages define_pool(const Func &input, int spatial, const PoolWindow &window, Func output,
                       const Type &output_type, const Expr &p_kind, const Expr &p,
                       const Expr &signed_pow, const Expr &rescale, bool float64_powers,
                       const Expr &recompute_cheap_terms) {
    PoolStages s;
    s.input = input;
    s.window = window;
    s.input_type = input.type();
    s.compute_type = pool_compute_type(input.type());
    s.kind_conditions = kind_conditions(p_kind);
    s.signed_pow = signed_pow != 0;
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
    s.term = Func("term");
    const bool wide = float64_powers;
    s.term(args) = strict_float(select(s.signed_pow, signed_power(x, p_kind, p, false, wide),
                                       guarded_power(magnitude(x), p_kind, p, false, wide)));

    // The window sums, one spatial dim at a time from the outermost in, so that the last one
    // runs along the innermost dim. The stage the innermost sum reads, `padded`, is 0 outside
    // the input along the innermost dim: it is defined as 0 and then written over
    // [0, extent), so the innermost sum reads its taps with no condition and no clamp. For one
    // spatial dim it is a copy of the term; otherwise the sum along dim 1, whose update also runs
    // over that dim-0 range.
    s.sums.resize(spatial);
    s.taps.resize(spatial);
    Func previous = s.term;
    const bool recomputes = !is_const_zero(recompute_cheap_terms);
    Expr recompute = recompute_cheap_terms && !s.signed_pow;
    Expr recomputed = recompute && p_kind <= abi::kPool4;
    // The term's values for these kinds (guarded_power leaves them unguarded).
    Expr cheap = strict_float(fixed_kind_term(x, p_kind));
    if (recomputes) {
        for (int k = abi::kPool1; k <= abi::kPool4; k++) {
            s.recomputed_kind_conditions.push_back(recompute && p_kind == k);
        }
    }
    if (spatial >= 2 && recomputes) {
        Func term_or_recomputed("term_or_recomputed");
        term_or_recomputed(args) = select(recomputed, cheap, s.term(args));
        previous = term_or_recomputed;
    }
    if (spatial == 1) {
        RDom r(0, window.extent[0], "r_pad");
        std::vector<Expr> at = args;
        at[0] = r.x;
        s.padded = Func("padded");
        s.padded(args) = make_zero(ct);
        s.padded(at) = s.term(at);
        s.padded_x = r.x;
        previous = s.padded;
    }
    for (int d = spatial - 1; d >= 0; d--) {
        Func sum("sum" + std::to_string(d));
        sum(args) = make_zero(ct);
        std::vector<Expr> to = args, from = args;
        if (d == 0) {
            RDom tap = taps_of_dim0(window);
            from[0] = s.vars[0] * window.stride[0] - window.pad_begin[0] + tap * window.dilation[0];
            sum(to) += previous(from);
            s.taps[0] = tap;
        } else {
            // (x over the dim-0 extent when this sum is `padded`, then the tap of dim d)
            const bool pads = d == 1;
            RDom r = pads ? RDom(0, window.extent[0], 0, window.kernel[d], "r" + std::to_string(d))
                          : RDom(0, window.kernel[d], "r" + std::to_string(d));
            RVar tap = pads ? r.y : r.x;
            Expr start = s.vars[d] * window.stride[d] - window.pad_begin[d];
            Expr at = start + tap * window.dilation[d];
            if (pads) {
                // `padded`: every tap, those outside the input as 0 (the schedule unrolls
                // them).
                to[0] = from[0] = r.x;
                s.padded_x = r.x;
                from[d] = at;
                sum(to) += zero_outside(previous, d, s.vars, window.extent[d])(from);
            } else {
                // The taps outside the input are left out: the RDom's predicate bounds the tap
                // by the output row only, so the tap loop is cut to it (the clamp keeps bounds
                // inference within the input; where a tap is taken it is a no-op).
                r.where(tap >= first_tap_inside(start, d, window) &&
                        tap < end_tap_inside(start, d, window));
                from[d] = clamp(at, 0, window.extent[d] - 1);
                sum(to) += previous(from);
            }
            s.taps[d] = r;
        }
        s.sums[d] = sum;
        previous = sum;
        if (d == 1) {
            s.padded = sum;
        }
    }

    Expr total = previous(args);
    if (spatial == 1 && recomputes) {
        // 1-D: the cheap kinds' window sums straight from the input, |x|^p at each tap (0
        // outside the row, likely inside it), every tap of the kernel; `padded` and sums[0]
        // are then not read.
        RDom tap(0, window.kernel[0], "all_taps0");
        std::vector<Expr> from = args;
        from[0] = s.vars[0] * window.stride[0] - window.pad_begin[0] + tap * window.dilation[0];
        s.recomputed_sum0 = Func("recomputed_sum0");
        Func cheap_term("cheap_term");
        cheap_term(args) = cheap;
        s.recomputed_sum0(args) = make_zero(ct);
        s.recomputed_sum0(args) +=
            zero_outside(cheap_term, 0, s.vars, window.extent[0], true)(from);
        s.recomputed_taps0 = tap;
        total = select(recomputed, s.recomputed_sum0(args), total);
    }

    // Rescaled overhang: K / n, n = the taps inside input + pads.
    Expr kernel_size = make_one(ct), inside = make_one(ct);
    for (int d = 0; d < spatial; d++) {
        kernel_size *= cast(ct, window.kernel[d]);
        inside *= cast(ct, taps_inside_padded(s.vars[d], d, window));
    }
    total = select(rescale != 0, total * (kernel_size / inside), total);

    const Expr root3 = cube_root_stage(total, args);
    s.norm = Func("norm");
    s.norm(args) =
        strict_float(select(s.signed_pow, signed_power(total, p_kind, p, true, wide, root3),
                            guarded_power(total, p_kind, p, true, wide, root3)));
    s.out = output;
    s.out(args) = to_output(s.norm(args), output_type);
    return s;
}

PoolDirectStages define_pool_direct(const Func &input, int spatial, const PoolWindow &window,
                                    Func output, const Type &output_type, const Expr &p_kind) {
    PoolDirectStages s;
    s.window = window;
    s.compute_type = pool_compute_type(input.type());
    for (int d = 0; d < spatial; d++) {
        s.vars.emplace_back("s" + std::to_string(d));
    }
    s.vars.emplace_back("c");
    s.vars.emplace_back("n");
    for (int k = abi::kPool1; k <= abi::kPool4; k++) {
        s.kind_conditions.push_back(p_kind == k);
    }
    std::vector<Expr> args(s.vars.begin(), s.vars.end());
    const Type ct = s.compute_type;

    // |x|^p, read along dim 0 with no condition: these kernels take windows inside the rows
    // only (kernel_abi.h), and a call whose windows leave the row fails the input's bounds
    // check. Along the outer dims the taps outside the input are left out (the RDom's
    // predicate, one branch per tap and row; the clamp keeps bounds inference in the input,
    // and is a no-op where a tap is taken).
    Func term("direct_term");
    term(args) = strict_float(fixed_kind_term(cast(ct, input(args)), p_kind));
    Region taps;
    for (int d = 0; d < spatial; d++) {
        taps.emplace_back(0, window.kernel[d]);
    }
    s.taps = RDom(taps, "direct_taps");
    std::vector<Expr> from = args;
    for (int d = 0; d < spatial; d++) {
        const Expr start = s.vars[d] * window.stride[d] - window.pad_begin[d];
        from[d] = start + s.taps[d] * window.dilation[d];
        if (d > 0) {
            // Two comparisons per tap, not first_tap_inside's divisions: the taps are
            // unrolled, and the divisions stayed in the loop along the row.
            s.taps.where(from[d] >= 0 && from[d] < window.extent[d]);
            from[d] = clamp(from[d], 0, window.extent[d] - 1);
        }
    }
    s.sum = Func("direct_sum");
    s.sum(args) = make_zero(ct);
    s.sum(args) += term(from);

    const Expr total = s.sum(args);
    const Expr root3 = cube_root_stage(total, args);
    s.out = output;
    s.out(args) = to_output(strict_float(fixed_kind_root(total, p_kind, root3)), output_type);
    return s;
}

PoolFlatStages define_pool_flat(const Func &input, const PoolWindow &window, Func output,
                                const Type &output_type, const Expr &p_kind) {
    PoolFlatStages s;
    s.window = window;
    s.compute_type = pool_compute_type(input.type());
    s.vars = {Var("s0"), Var("s1"), Var("c"), Var("n")};
    s.flat = Var("j");
    for (int k = abi::kPool1; k <= abi::kPool4; k++) {
        s.kind_conditions.push_back(p_kind == k);
    }
    const Type ct = s.compute_type;
    const Var x = s.vars[0], y = s.vars[1], c = s.vars[2], n = s.vars[3], j = s.flat;
    // The padded row's length; the output's extents are the input's (stride 1, same pads).
    const Expr row = window.extent[0] + (window.kernel[0] - 1) * window.dilation[0];

    // |x|^p over the input plane, zeros over the margins.
    s.padded = Func("flat_padded");
    s.padded(j, c, n) = make_zero(ct);
    s.interior = RDom(0, window.extent[0], 0, window.extent[1], "interior");
    const RVar ix = s.interior.x, iy = s.interior.y;
    s.padded(ix + window.pad_begin[0] + (iy + window.pad_begin[1]) * row, c, n) =
        strict_float(fixed_kind_term(cast(ct, input(ix, iy, c, n)), p_kind));

    s.taps0 = RDom(0, window.kernel[0], "flat_tap0");
    s.rowsum = Func("flat_rowsum");
    s.rowsum(j, c, n) = make_zero(ct);
    s.rowsum(j, c, n) += s.padded(j + s.taps0 * window.dilation[0], c, n);

    s.taps1 = RDom(0, window.kernel[1], "flat_tap1");
    s.colsum = Func("flat_colsum");
    s.colsum(j, c, n) = make_zero(ct);
    s.colsum(j, c, n) += s.rowsum(j + s.taps1 * window.dilation[1] * row, c, n);

    const Expr total = s.colsum(x + y * row, c, n);
    const Expr root3 = cube_root_stage(total, {x, y, c, n});
    s.out = output;
    const Expr root = strict_float(fixed_kind_root(total, p_kind, root3));
    s.out(x, y, c, n) = to_output(root, output_type);
    return s;
}

}  // namespace lpnorm::gen
