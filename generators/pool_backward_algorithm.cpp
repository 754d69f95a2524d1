#include "pool_backward_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::const_true;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

namespace {

// |r|^e for a = |r|, e = p - 1 of the general kind: 0 at a = 0 (the gradient's definition at
// x = 0, where PyTorch's p x^(p-1) is infinite for p < 1), IEEE's limits at inf and NaN (pow is
// written for finite, non-zero values; Halide's float32 pow maps NaN to 0).
Expr general_power(const Expr &a, const Expr &e) {
    const Type t = a.type();
    const Expr a_nan = is_nan_bits(a), a_inf = is_nan_or_inf_bits(a) && !a_nan;
    const Expr a_zero = magnitude_bits(a) == 0;
    const Expr usable = select(a_nan || a_inf || a_zero, make_one(t), a);
    return select(a_nan, a,                                                //
                  a_zero, make_zero(t),                                    //
                  a_inf, select(e < make_zero(t), make_zero(t), t.max()),  //
                  pow(usable, e));
}

// r^e in the signed mode (PyTorch's x^(p-1), as IEEE pow): a negative r keeps its sign for an
// odd integer e, loses it for an even one, and gives NaN for any other e, except -inf (+inf or
// 0 by the sign of e).
Expr signed_general_power(const Expr &r, const Expr &e) {
    const Type t = r.type();
    const Expr power = general_power(magnitude(r), e);
    const Expr integer = floor(e) == e;
    const Expr odd = integer && (e - 2 * floor(e / 2)) == make_one(t);
    const Expr negative = sign_bit_set(r) && magnitude_bits(r) != 0;
    return select(
        negative,
        select(odd, -power, integer || magnitude_bits(r) == inf_bits(t), power, quiet_nan(t)),
        power);
}

// Number of taps in [0, kernel) of window o that fall inside input + pads along dim d.
Expr taps_inside_padded(const Expr &o, int d, const PoolBackwardWindows &w) {
    return min(w.kernel[d], (w.padded[d] - 1 - o * w.stride[d]) / w.dilation[d] + 1);
}

// The separable kinds' stages (pool_backward_algorithm.h); sets s.separable_value (dx in
// s.compute_type). Every input type has at least p = 1.
void define_separable_sums(PoolBackwardStages &s, const Func &x, const Func &y, const Func &dy,
                           const PoolBackwardWindows &w, const Expr &p_kind, const Expr &rescale,
                           const Expr &kernel_size) {
    const int spatial = int(s.vars.size()) - 2;
    const Type f64 = Float(64);
    const std::vector<Expr> args(s.vars.begin(), s.vars.end());
    for (int kind = 0; kind < abi::kNumPoolKinds; kind++) {
        if (abi::pool_backward_separable(kind, s.input_type.bits())) {
            s.separable_kinds.push_back(s.kind_conditions[kind]);
        }
    }

    // F dy / y^(p - 1) per window, read at clamped coordinates so that any window can be asked
    // for (0 outside the output): the sums below then read dense rows without tests. The powers
    // of y are exact in float64 for p = 2, 3 (y has at most 24 significant bits) and rounded once
    // for p = 4; none leaves float64's range for 16- and 32-bit inputs (|y|^3 >= 2^-447).
    std::vector<Expr> clamped = args;
    Expr inside_output = const_true(), inside = make_one(f64);
    for (int d = 0; d < spatial; d++) {
        // likely: the loops are cut where it holds, so that rows read y and dy as vectors.
        clamped[d] = clamp(likely(args[d]), 0, w.output_extent[d] - 1);
        inside_output = inside_output && likely(args[d] >= 0 && args[d] < w.output_extent[d]);
        inside *= cast(f64, s.inside[size_t(d)](clamped[d]));
    }
    const Expr norm = cast(f64, y(clamped)), grad = cast(f64, dy(clamped));
    const Expr scaled = select(rescale != 0, grad * (cast(f64, kernel_size) / inside), grad);
    const Expr factor = select(p_kind == abi::kPool2, scaled / norm,                    //
                               p_kind == abi::kPool3, scaled / (norm * norm),           //
                               p_kind == abi::kPool4, scaled / ((norm * norm) * norm),  //
                               scaled);
    s.window_factors = Func("window_factors");
    s.window_factors(args) =
        strict_float(select(inside_output && magnitude_bits(norm) != 0, factor, make_zero(f64)));

    // Element i of dim d reads window (i + first - j step) / window_stride where that is exact.
    auto window_of = [&](const Expr &i, int d, const Expr &j) {
        return i + w.first_window[d] - j * w.window_step[d];
    };
    // Each sum below is defined by its first tap and the others are added to it: a sum started
    // at 0 and added to in memory waits on its own store once more per tap.
    Func inner = s.window_factors;
    for (int d = spatial - 1; d >= 1; d--) {
        auto tap = [&, d](const Expr &j) {
            const Expr numerator = window_of(args[d], d, j);
            std::vector<Expr> at = args;
            at[d] = numerator / w.window_stride[d];
            return strict_float(
                select(numerator % w.window_stride[d] == 0, inner(at), make_zero(f64)));
        };
        RDom j(1, max(w.taps[d] - 1, 0), "j" + std::to_string(d));
        s.outer_taps.insert(s.outer_taps.begin(), j);
        s.outer_window_strides.insert(s.outer_window_strides.begin(), w.window_stride[d]);
        Func sums("outer_sums" + std::to_string(d));
        sums(args) = select(w.taps[d] > 0, tap(0), make_zero(f64));
        sums(args) += tap(j);
        s.outer_sums.insert(s.outer_sums.begin(), sums);
        inner = sums;
    }

    // Dim 0 by phases of its stride: element q * stride + r reads window q + (r + first - j
    // step) / stride, a dense vector of windows for a vector of q.
    s.window_stride0 = w.window_stride[0];
    s.q = Var("q");
    s.r = Var("r");
    std::vector<Expr> phase_args = args;
    phase_args[0] = s.q;
    phase_args.insert(phase_args.begin() + 1, s.r);
    // Defined by the first tap as well: a sum started at 0 was stored as halves of a vector and
    // read back whole, which the store buffer cannot forward.
    auto tap = [&](const Expr &j) {
        const Expr offset = window_of(s.r, 0, j);
        std::vector<Expr> at = args;
        at[0] = s.q + offset / s.window_stride0;
        return strict_float(select(offset % s.window_stride0 == 0, inner(at), make_zero(f64)));
    };
    RDom j0(1, max(w.taps[0] - 1, 0), "j0");
    s.phase_sums = Func("phase_sums");
    s.phase_sums(phase_args) = select(w.taps[0] > 0, tap(0), make_zero(f64));
    s.phase_sums(phase_args) += tap(j0);

    // dx = h(x) S: h = sgn(x) |x|^(p - 1) (PyTorch's signed mode: x^(p - 1)), so for p = 1
    // sgn(x) (0 at 0 and NaN; 1 in the signed mode), x for p = 2, x |x| for p = 3 (x^2 signed),
    // x^3 for p = 4; in float64, where the powers of a 16- or 32-bit x are exact or rounded once.
    std::vector<Expr> element = args;
    element[0] = args[0] / s.window_stride0;
    element.insert(element.begin() + 1, args[0] % s.window_stride0);
    // The sign is taken in the compute type, whose lanes are twice float64's for float32.
    const Type c = s.compute_type;
    const Expr v = cast(c, x(args));
    const Expr sign = select(magnitude_bits(v) == 0 || is_nan_bits(v), make_zero(c),
                             sign_bit_set(v), make_const(c, -1), make_one(c));
    const Expr v64 = cast(f64, v);
    // One (condition, value) pair per line.
    // clang-format off
    const Expr h = select(
        p_kind == abi::kPool2, v64,
        p_kind == abi::kPool3, v64 * select(s.signed_pow, v64, abs(v64)),
        p_kind == abi::kPool4, (v64 * v64) * v64,
        cast(f64, select(s.signed_pow, make_one(c), sign)));
    // clang-format on
    s.separable_value = strict_float(cast(s.compute_type, h * s.phase_sums(element)));
}

// With y = (F S)^(1/p) over window o (S its sum of terms, F = K / n or 1), the derivative by an
// element x of the window is F sgn(x) |x|^(p-1) / y^(p-1) (abs mode; PyTorch's signed mode:
// F x^(p-1) / y^(p-1)). It is taken as F r^(p-1), r = x / y, which is at most F^(-1/p) <= 1 in
// magnitude in the abs mode: nothing overflows where dx does not. Per window:
//   p = 1:     sgn(x) F dy (signed: F dy)
//   p = 2:     r F dy
//   p = 3:     r |r| F dy (signed: r^2 F dy); p = 4: r^3 F dy
//   other p:   sgn(r) |r|^(p-1) F dy (signed: r^(p-1) as IEEE pow), by products for integer p
// A window whose y is 0 contributes 0 (PyTorch: NaN, from the root's infinite slope at 0), and
// so does x = 0 for p < 1 (PyTorch: NaN or inf). The per-window kinds' stages
// (pool_backward_algorithm.h): sets s.coefficients and s.sum, for the kinds the separable sums
// do not take.
void define_window_sums(PoolBackwardStages &s, const Func &x, const Func &y, const Func &dy,
                        const PoolBackwardWindows &w, const Expr &p_kind, const Expr &p,
                        const Expr &rescale, const Expr &kernel_size) {
    const int spatial = int(s.vars.size()) - 2;
    for (int kind = 0; kind < abi::kNumPoolKinds; kind++) {
        if (!abi::pool_backward_separable(kind, s.input_type.bits()))
            s.general_kinds.push_back(kind);
    }
    const std::vector<Expr> args(s.vars.begin(), s.vars.end());
    const Type c = s.compute_type;
    const Expr zero = make_zero(c), one = make_one(c);

    // The coefficients of each window, once per window. Defined for any window along dim 0 (y
    // and dy read clamped) so that a vector of elements reads a vector of them, where a clamp
    // of the window index would make it a gather; windows outside the output are never taken.
    std::vector<Expr> clamped = args;
    clamped[0] = clamp(likely(args[0]), 0, w.output_extent[0] - 1);
    const Expr norm = cast(c, y(clamped)), grad = cast(c, dy(clamped));
    const Expr norm_zero = magnitude_bits(norm) == 0;
    Expr inside = one;
    for (int d = 0; d < spatial; d++) {
        inside *= s.inside[size_t(d)](clamped[d]);
    }
    const Expr factor = select(rescale != 0, kernel_size / inside, one);
    const Expr smallest_normal_bits = make_const(UInt(c.bits()), uint64_t(1) << mantissa_bits(c));
    const Expr lift_needed = magnitude_bits(norm) < smallest_normal_bits && !norm_zero;
    const Expr lift = select(lift_needed, make_const(c, 0x1p64), one);
    s.coefficients = Func("coefficients");
    s.coefficients(args) = Tuple(lift, strict_float(select(norm_zero, zero, one / (norm * lift))),
                                 strict_float(select(norm_zero, zero, grad * factor)));

    // The windows of each element: j per spatial dim, those inside the output taken.
    Region taps;
    for (int d = 0; d < spatial; d++) {
        taps.emplace_back(0, w.taps[d]);
    }
    s.windows = RDom(taps, "window");
    std::vector<Expr> at = args;
    Expr inside_output = const_true();
    for (int d = 0; d < spatial; d++) {
        Expr o = s.vars[d] + w.first_window[d] - s.windows[d] * w.window_step[d];
        // likely: the loops are cut where it holds (a row's elements away from its ends).
        inside_output = inside_output && likely(o >= 0 && o < w.output_extent[d]);
        at[d] = d == 0 ? o : clamp(o, 0, w.output_extent[d] - 1);
    }
    const Expr v = cast(c, x(args));
    const Expr r = strict_float((v * s.coefficients(at)[0]) * s.coefficients(at)[1]);
    const Expr a = magnitude(r);
    const Expr e = cast(c, p) - one;
    const Expr sign =
        select(magnitude_bits(v) == 0 || is_nan_bits(v), zero, sign_bit_set(v), -one, one);
    const Expr chain = integer_power(a, p - 1);
    // One (condition, value) pair per line.
    // clang-format off
    const Expr slope = select(
        p_kind == abi::kPool1, select(s.signed_pow, one, sign),
        p_kind == abi::kPool2, r,
        p_kind == abi::kPool3, select(s.signed_pow, r * r, r * a),
        p_kind == abi::kPool4, (r * r) * r,
        p_kind == abi::kPoolInt, select(s.signed_pow, integer_power(r, p - 1),
                                                 select(sign_bit_set(r), -chain, chain)),
        select(s.signed_pow, signed_general_power(r, e),
               select(sign_bit_set(r), -general_power(a, e), general_power(a, e))));
    // clang-format on
    s.sum = Func("sum");
    s.sum(args) = zero;
    s.sum(args) += strict_float(select(inside_output, slope * s.coefficients(at)[2], zero));
}

}  // namespace

Type pool_backward_compute_type(const Type &input) {
    return Float(abi::pool_compute_bits(input.bits()));
}

// Two pipelines per rank: the separable kinds' or the per-window kinds'.
PoolBackwardStages define_pool_backward(const Func &x, const Func &y, const Func &dy, int spatial,
                                        bool separable, const PoolBackwardWindows &w, Func output,
                                        const Type &output_type, const Expr &p_kind, const Expr &p,
                                        const Expr &signed_pow, const Expr &rescale) {
    PoolBackwardStages s;
    s.input_type = x.type();
    s.compute_type = pool_backward_compute_type(s.input_type);
    s.signed_pow = signed_pow != 0;
    s.rescale = rescale != 0;
    for (int k = 0; k < abi::kNumPoolKinds; k++) {
        s.kind_conditions.push_back(p_kind == k);
    }
    for (int d = 0; d < spatial; d++) {
        s.vars.emplace_back("s" + std::to_string(d));
    }
    s.vars.emplace_back("c");
    s.vars.emplace_back("n");
    const Type c = s.compute_type;
    const Expr one = make_one(c);

    // The taps inside input + pads of window o, a product over the dims of counts that each
    // depend on o's coordinate along that dim only: one integer division per row and column
    // (per window, they were a scalar division per lane).
    Expr kernel_size = one;
    for (int d = 0; d < spatial; d++) {
        Var o("o");
        Func count("inside" + std::to_string(d));
        count(o) = cast(c, taps_inside_padded(o, d, w));
        s.inside.push_back(count);
        kernel_size *= cast(c, w.kernel[d]);
    }
    Expr dx;
    if (separable) {  // p = 1 to 4 (kernel_abi.h): the windows' factors summed one dim at a time
        define_separable_sums(s, x, y, dy, w, p_kind, rescale, kernel_size);
        dx = s.separable_value;
    } else {
        define_window_sums(s, x, y, dy, w, p_kind, p, rescale, kernel_size);
        dx = s.sum(s.vars);
    }
    s.out = output;
    s.out(s.vars) =
        output_type.bits() == 16 ? to_output(dx, output_type) : strict_float(cast(output_type, dx));
    return s;
}

}  // namespace lpnorm::gen
