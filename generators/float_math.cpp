#include "float_math.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

// The bits of |x| as an unsigned integer of x's width (for integers, the absolute value).
Expr magnitude_bits(const Expr &x) {
    Type t = x.type();
    Type bits_t = UInt(t.bits());
    if (t.is_float() || t.is_bfloat()) {
        return reinterpret(bits_t, x) & make_const(bits_t, (uint64_t(1) << (t.bits() - 1)) - 1);
    }
    return t.is_uint() ? x : cast(bits_t, abs(x));
}

Expr magnitude(const Expr &x) {
    const Type t = x.type();
    return t.is_float() || t.is_bfloat() ? reinterpret(t, magnitude_bits(x)) : abs(x);
}

int mantissa_bits(const Type &t) {
    return t.is_bfloat() ? 7 : t.bits() == 16 ? 10 : t.bits() == 32 ? 23 : 52;
}
// All exponent bits set, mantissa zero. (Type::max() of a float type is inf itself.)
Expr inf_bits(const Type &t) {
    const uint64_t sign_clear = (uint64_t(1) << (t.bits() - 1)) - 1;
    const uint64_t mantissa = (uint64_t(1) << mantissa_bits(t)) - 1;
    return make_const(UInt(t.bits()), sign_clear & ~mantissa);
}
Expr is_nan_bits(const Expr &x) { return magnitude_bits(x) > inf_bits(x.type()); }
Expr is_nan_or_inf_bits(const Expr &x) { return magnitude_bits(x) >= inf_bits(x.type()); }
Expr quiet_nan(const Type &t) {
    return reinterpret(
        t, inf_bits(t) | make_const(UInt(t.bits()), uint64_t(1) << (mantissa_bits(t) - 1)));
}

Expr sign_bit_set(const Expr &x) {
    Type bits_t = UInt(x.type().bits());
    Expr sign = make_const(bits_t, uint64_t(1) << (x.type().bits() - 1));
    return (reinterpret(bits_t, x) & sign) != 0 && !is_nan_bits(x);
}

namespace {

// Values bound once as Lets and referred to by name, then wrapped around the expression that
// uses them, innermost last.
class Lets {
public:
    explicit Lets(char prefix) : prefix_(prefix) {}
    Expr bind(const Expr &value) {
        lets_.emplace_back(Internal::unique_name(prefix_), value);
        return Internal::Variable::make(value.type(), lets_.back().first);
    }
    Expr around(Expr body) const {
        for (auto let = lets_.rbegin(); let != lets_.rend(); ++let) {
            body = Internal::Let::make(let->first, let->second, body);
        }
        return body;
    }

private:
    char prefix_;
    std::vector<std::pair<std::string, Expr>> lets_;
};

// x 2^n for an int n within twice the normal exponent range of x's type, as two exact powers of
// two, 2^(n/2) and 2^(n - n/2), so that the product over- or underflows (and raises the flag)
// only where x 2^n does.
Expr times_power_of_two(const Expr &x, const Expr &n, Lets &lets) {
    const Expr half = lets.bind(n >> 1);
    return (x * power_of_two(half, x.type())) * power_of_two(n - half, x.type());
}

}  // namespace

Expr fused_multiply_add(const Expr &a, const Expr &b, const Expr &c) {
    // LLVM's fma intrinsic by name: Halide 21 has no operator for it, and simplifies a * b + c
    // freely (a * h + a * l became a * (h + l)). Vectorised, it is one vfmadd / fmla per vector.
    const std::string name = a.type().bits() == 32 ? "llvm.fma.f32" : "llvm.fma.f64";
    return Internal::Call::make(a.type(), name, {a, b, c}, Internal::Call::PureExtern);
}

Expr power_of_two(const Expr &e, const Type &t) {
    const int bias = t.bits() == 32 ? 127 : 1023;
    return reinterpret(t, cast(UInt(t.bits()), e + bias) << mantissa_bits(t));
}

// m^e = 2^(e log2 m) in float64 vector arithmetic: Halide's float64 pow is a scalar libm call
// per lane (its float32 pow is inline vector code).
//   - log2 m = k + ln(f) / ln 2 with m = 2^k f, f in [sqrt(1/2), sqrt(2)) (from the bits, as in
//     float32_pow), and ln f = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (f - 1) / (f + 1),
//     |s| <= 0.172: the terms past s^19 add less than 1e-16 to ln f.
//   - w = e log2 m, rounded once, with log2 m's own roundings (a few u relative where k = 0):
//     an absolute error of a few 2^-53 |w|, which is the result's relative error times ln 2
//     (|w| <= 1075 where the result is a normal or subnormal float64).
//   - 2^w = 2^n 2^g, n the nearest integer (by the 1.5 2^52 shifter), g = w - n exact in
//     [-1/2, 1/2]; 2^g by its Taylor series to g^12 (a remainder below 2e-16).
//   - 2^n is applied as two exact powers of two, 2^(n/2) and 2^(n - n/2), so that the result
//     over- or underflows (and raises the flag) only where m^e does.
//   - In all, within (3 + 3 |w|) 2^-53: at most 3.6e-13, 2.3e-13 measured at |w| = 995 with
//     m near 1 (tests/float_math checks the bound against long double powl over random float32
//     m and e, and m near 1 with large e).
//   - Both series by Estrin's scheme, as float32_pow's, f from the bits and n by the shifter:
//     the normalization gradient's loop (one power per element, a chain each) ran 1.2x faster
//     than with Horner's series, Halide's round and a compare for f (docs/benchmarks.md).
Expr narrow_pow(const Expr &m, const Expr &e) {
    const Type f64 = Float(64), u64 = UInt(64);
    // Each value taken more than once is a Let: the normalization's terms and roots, long
    // expressions already, with these values copied where used made its generator run out of
    // memory (14 GB).
    Lets lets('p');
    auto bind = [&](const Expr &value) { return lets.bind(value); };
    const Expr bits = bind(reinterpret(u64, cast(f64, m)));
    // The bits less those of sqrt(1/2): their exponent field is k, and their mantissa field
    // over sqrt(1/2)'s bits is f. k from the high word (an arithmetic shift of 32-bit lanes;
    // AVX2 has none for 64-bit ones).
    const uint64_t root_half = 0x3FE6A09E667F3BCDull;  // sqrt(1/2)
    const Expr offset = bind(bits - make_const(u64, root_half));
    const Expr k = cast<int>(offset >> 32) >> 20;
    const Expr f = bind(reinterpret(
        f64, (offset & make_const(u64, (uint64_t(1) << 52) - 1)) + make_const(u64, root_half)));
    const Expr s = bind((f - make_const(f64, 1.0)) / (f + make_const(f64, 1.0)));
    const Expr z = bind(s * s), z2 = bind(z * z), z4 = bind(z2 * z2);
    auto a = [&](int j) { return make_const(f64, 2.0 / ((2 * j + 1) * std::log(2.0))); };
    const Expr series =
        ((a(0) + a(1) * z) + z2 * (a(2) + a(3) * z)) +
        z4 * (((a(4) + a(5) * z) + z2 * (a(6) + a(7) * z)) + z4 * (a(8) + a(9) * z));
    const Expr log2_m = cast(f64, k) + s * series;
    const Expr e64 = bind(cast(f64, e));
    // Past +-1200 the result is inf or 0 either way; the clamp keeps n in int range.
    const Expr w = bind(clamp(e64 * log2_m, make_const(f64, -1200.0), make_const(f64, 1200.0)));
    // Strict, so that fast-math keeps the add and the subtract.
    const double shifter = 0x1.8p52;
    const Expr shifted = bind(strict_float(w + make_const(f64, shifter)));
    const Expr g = bind(w - strict_float(shifted - make_const(f64, shifter)));
    const Expr ni = bind(
        cast<int>(reinterpret(Int(64), shifted) - reinterpret(Int(64), make_const(f64, shifter))));
    double coefficient = 1.0;
    std::vector<Expr> c;  // (ln 2)^j / j!
    for (int j = 0; j <= 12; j++) {
        c.push_back(make_const(f64, coefficient));
        coefficient *= std::log(2.0) / (j + 1);
    }
    const Expr g2 = bind(g * g), g4 = bind(g2 * g2);
    Expr two_to_g = ((c[0] + c[1] * g) + g2 * (c[2] + c[3] * g)) +
                    g4 * (((c[4] + c[5] * g) + g2 * (c[6] + c[7] * g)) +
                          g4 * (((c[8] + c[9] * g) + g2 * (c[10] + c[11] * g)) + g4 * c[12]));
    two_to_g = bind(two_to_g);
    const Expr power = times_power_of_two(two_to_g, ni, lets);
    // m = 0 by pow's rule for a finite e. Strict: an overflow to inf stays inf (fast-math may
    // assume no inf).
    const Expr zero = make_zero(f64), inf = f64.max();
    Expr result = strict_float(select(
        bits == make_zero(u64), select(e64 > zero, zero, e64 == zero, make_one(f64), inf), power));
    return cast(m.type(), lets.around(result));
}

// m^e = 2^(e log2 m) in float32 vector arithmetic, as narrow_pow in float64, for results that
// carry float32's own precision (a gradient's factor, whose inputs are float32 already). Halide's
// float32 pow takes the same route with guards for negative, zero, NaN and infinite m and e, which
// the callers here exclude beforehand: the reduction gradient's loop ran about 100 vector
// instructions per 16 elements, a third of them the guards of both (perf annotate, Zen 4).
//   - Subnormal m are lifted by 2^24 first.
//   - log2 f for f in [sqrt(1/2), sqrt(2)) by the atanh series to s^9 (|s| <= 0.172: the rest
//     adds below 2^-28 of it), its coefficients 2 / ((2j + 1) ln 2).
//   - w = e log2 m rounded once, clamped to +-252 (beyond, the result is 0 or inf either way);
//     2^w = 2^n 2^g, n the nearest integer, g = w - n exact in [-1/2, 1/2], 2^g by its Taylor
//     series to g^7 (remainder below 2^-27), 2^n as in narrow_pow.
//   - The relative error is within (3 + 2 ln 2 |w|) u (u = 2^-24): w's absolute error, about
//     2u |w| from the roundings of log2 m and of the product, is the result's relative error
//     over ln 2. That is what Halide's float32 pow reaches (it also rounds e ln m to float32).
//     Measured against long double powl over 2^21 float32 m in (0, 1.5], subnormals included,
//     and e in [-3, 12]: within (3 + 1.25 |w|) u, with FMAs or without (SSE4.1).
Expr float32_pow(const Expr &m, const Expr &e) {
    const Type f32 = Float(32), u32 = UInt(32);
    Lets lets('q');
    auto bind = [&](const Expr &value) { return lets.bind(value); };
    const Expr m32 = bind(cast(f32, m));
    const Expr subnormal = bind(reinterpret(u32, m32) < make_const(u32, 0x00800000));
    const Expr bits = bind(reinterpret(u32, select(subnormal, m32 * make_const(f32, 0x1p24), m32)));
    // m = 2^k f with f in [sqrt(1/2), sqrt(2)), from the bits less those of sqrt(1/2): their
    // exponent field is k, and their mantissa field over sqrt(1/2)'s bits is f.
    const uint32_t root_half = 0x3f3504f3;  // sqrt(1/2)
    const Expr offset = bind(cast<int>(bits) - int32_t(root_half));
    const Expr k = (offset >> 23) - select(subnormal, 24, 0);
    const Expr f =
        bind(reinterpret(f32, cast(u32, offset & 0x007fffff) + make_const(u32, root_half)));
    const Expr s = bind((f - make_const(f32, 1.0f)) / (f + make_const(f32, 1.0f)));
    const Expr s2 = bind(s * s);
    // Both series by Estrin's scheme rather than Horner's, for a shorter dependency chain: the
    // reduction gradient's loop is one chain per vector, and its samples sat on the series'
    // FMAs. It gained within 3% there; f from the bits and the shifter below, 9-15%
    // (docs/benchmarks.md).
    const double to_log2 = 2.0 / std::log(2.0);
    auto a = [&](int odd) { return make_const(f32, to_log2 / odd); };
    const Expr s4 = s2 * s2;
    const Expr series = (a(1) + a(3) * s2) + s4 * ((a(5) + a(7) * s2) + s4 * a(9));
    const Expr log2_m = s * series + cast(f32, k);
    const Expr w =
        bind(clamp(cast(f32, e) * log2_m, make_const(f32, -252.0f), make_const(f32, 252.0f)));
    // The nearest integer by the 1.5 2^23 shifter, strict so that fast-math keeps the add and the
    // subtract: two operations and the integer from the sum's bits, where round() and a
    // conversion took five on AVX-512 (Halide rounds 16 lanes as two halves).
    const float shifter = 0x1.8p23f;
    const Expr shifted = bind(strict_float(w + make_const(f32, shifter)));
    const Expr n = bind(strict_float(shifted - make_const(f32, shifter)));
    const Expr g = bind(w - n);
    double coefficient = 1.0;
    std::vector<double> taylor;  // (ln 2)^j / j!
    for (int j = 0; j <= 7; j++) {
        taylor.push_back(coefficient);
        coefficient *= std::log(2.0) / (j + 1);
    }
    auto c = [&](int j) { return make_const(f32, taylor[j]); };
    const Expr g2 = bind(g * g);
    Expr two_to_g = ((c(0) + c(1) * g) + g2 * (c(2) + c(3) * g)) +
                    (g2 * g2) * ((c(4) + c(5) * g) + g2 * (c(6) + c(7) * g));
    // Bound outside the strict product below, whose strictness would reach the series and keep
    // its products and adds from fusing.
    two_to_g = bind(two_to_g);
    const Expr ni =
        bind(reinterpret(Int(32), shifted) - reinterpret(Int(32), make_const(f32, shifter)));
    // Strict: an overflow to inf stays inf (fast-math may assume no inf).
    const Expr result = strict_float(times_power_of_two(two_to_g, ni, lets));
    return cast(m.type(), lets.around(result));
}

bool narrow_pow_suffices(const Type &input) {
    return (input.is_float() || input.is_bfloat()) && input.bits() <= 32;
}

Expr lp_pow(const Expr &m, const Expr &e, bool narrow) {
    return narrow && m.type().bits() == 64 ? narrow_pow(m, e) : pow(m, e);
}

// Cube root of s >= 0 (sign bit clear), in vector arithmetic only, with no division. pow is a
// scalar libm call per lane; the Halley steps this replaced divided three times per lane, and
// made pooling with p = 3 take 3.1x as long as p = 2 on [8,256,28,28] 3x3 s1 (Zen 3, AVX2).
//   - The estimate r of s^(-1/3) divides the bits by three (the high 32 bits for float64), in
//     floating point (a conversion, a product and a conversion back: vector integer division
//     has no instruction), about 5 correct bits with the constants below (the least largest
//     error).
//   - float64: Newton steps r <- r + r (1/3 - (s/3) r^3), products only, each doubling the
//     correct bits, three of them; then c = s r^2.
//   - float32: c = s r^2 y^(-2/3), y = s r^3 (near 1), y^(-2/3) by a polynomial (below).
//   - Then one Newton step for the cube root itself, c - (c^3 - s) / (3 c^2), with 1/(3 c^2)
//     from r: its fixed point c^3 = s does not depend on how 1/3 is represented.
// Over 4e6 values of each type spanning every exponent, subnormals included, the largest
// error is 0.95 ulp as strict arithmetic (float32 0.947, float64 0.939) and 0.74 ulp with fused
// multiply-adds, and cubes of integers come out exact, so integer truncation is exact on them
// (tests/float_math checks both, and the flags below, on every x86 instruction set).
// No step over- or underflows where the root does not (the pooling runtime watches those flags:
// RangeWatch, runtime/thread_pool.h), whether or not products and adds fuse:
//   - s r (or (s/3) r) is formed first, about s^(2/3), so that no product forms r^3 alone (1/s,
//     below the normal range for s near the largest finite value); it is strict so that
//     Halide's simplifier and LLVM, which both reassociate products outside strict_float,
//     keep that order (in a variant tried, LLVM turned (s x) 3 into (3 s) x, which overflows
//     for s near the largest value).
//   - c is at most the largest value whose cube, rounded twice, is finite.
//   - Sums below 2^(emin + 3m) (emin the least normal exponent, m the mantissa bits) are scaled
//     by 2^(3k) first and their roots by 2^(-k): there the fused c^3 - s could round to a
//     subnormal, and the estimate from a subnormal's bits is wrong.
// 0, NaN and inf come out as themselves; they raise neither flag on the way (their steps give
// 0, NaN or inf, exactly), so neither do the lanes a vector computes past the output, whose
// sums may hold any bits.
Expr cube_root(const Expr &s) {
    const Type t = s.type(), bits_t = UInt(t.bits());
    const bool f64 = t.bits() == 64;
    const int k = f64 ? 70 : 31;  // 2^(3k) >= 2^(4m): the least subnormal to 2^(emin + 3m)
    const int scaled_below = (f64 ? -1022 : -126) + 3 * mantissa_bits(t);
    const Expr bits = reinterpret(bits_t, s);
    const Expr small = bits < reinterpret(bits_t, make_const(t, std::ldexp(1.0, scaled_below)));
    // The factor is selected, not the product: s 2^(3k) overflows for large s, on targets
    // that compute both sides of a select.
    const Expr scaled = s * select(small, make_const(t, std::ldexp(1.0, 3 * k)), make_one(t));
    // The bits of s >= 0 (its high word for float64) fit an int32 and a float.
    Expr high = f64 ? cast<int>(reinterpret(UInt(64), scaled) >> 32) : reinterpret(Int(32), scaled);
    Expr third_of_bits = cast<int>(cast(t, high) * make_const(t, 1.0 / 3.0));
    Expr r = f64 ? reinterpret(t, cast(UInt(64), 0x553EF0FF - third_of_bits) << 32)
                 : reinterpret(t, 0x54A2FA8C - third_of_bits);
    // The steps' Lets (r, s/3, y) are referred to by name in the strict products: strict_float
    // reaches into every expression it contains.
    Lets lets('c');
    const Expr third = make_const(t, 1.0 / 3.0);
    const double largest_cubed = f64 ? 0x1.428a2f98d728ap+341 : 0x1.965fe8p+42;
    Expr c, inverse_slope;  // c about s^(1/3), inverse_slope about 1/(3 c^2)
    if (f64) {
        // Written so that the fixed points (s r^3 = 1, then c^3 = s) do not depend on how
        // exactly 1/3 is represented: an OpenCL compiler that rounds double constants to
        // float made the form r (4/3 - (s/3) r^3) converge 2^-47 away from the root.
        const Expr s_third = lets.bind(scaled * third);
        for (int step = 0; step < 3; step++) {
            r = lets.bind(r);
            r = r + r * (third - strict_float(s_third * r) * (r * r));
        }
        const Expr r2 = lets.bind(r * r);
        c = scaled * r2;
        inverse_slope = r2 * third;
    } else {
        // float32: s^(1/3) = s r^2 y^(-2/3) with y = s r^3 in [0.91, 1.121] for the estimate
        // above, y^(-2/3) by a polynomial of degree 3 (least largest relative error, 7e-6),
        // which also gives 1/(3 c^2) = r^2 y^(-2/3) / 3: 15 products and fused adds where two
        // Newton steps on r took 18 (the root's, scaling included), and a shorter chain.
        r = lets.bind(r);
        const Expr r2 = lets.bind(r * r), s_r = lets.bind(strict_float(scaled * r));
        const Expr y = lets.bind(s_r * r2);
        auto a = [&](double v) { return make_const(t, v); };
        const Expr q = lets.bind(
            ((a(-0.4726640964522913) * y + a(1.978002742631135)) * y + a(-3.20480882603083)) * y +
            a(2.6994642537828435));
        const Expr r2_q = lets.bind(r2 * q);  // 1/c^2
        c = scaled * r2_q;
        inverse_slope = r2_q * third;
    }
    c = lets.bind(min(c, make_const(t, largest_cubed)));
    c = c - (c * c * c - scaled) * inverse_slope;
    c = select(small, c * make_const(t, std::ldexp(1.0, -k)), c);
    // Finite s > 0 (NaN and inf have the largest bits) take the root; the rest are their own,
    // selected as bits, which fast-math cannot take for a value that is never NaN.
    const Expr finite_positive = bits - make_one(bits_t) < inf_bits(t) - make_one(bits_t);
    return lets.around(reinterpret(t, select(finite_positive, reinterpret(bits_t, c), bits)));
}

Expr integer_power(const Expr &m, const Expr &p) {
    Expr n = cast<int>(p);
    Expr result = make_one(m.type()), square = m;
    for (int bit = 0; (1 << bit) <= abi::kMaxChainPower; bit++) {
        result = select(((n >> bit) & 1) == 1, result * square, result);
        // Squares past n's top bit are of 1: m^64 of an ordinary m over- or underflows where
        // m^n does not, raising the flags the pooling runtime watches (RangeWatch).
        Expr base = select((n >> (bit + 1)) != 0, square, make_one(m.type()));
        square = base * base;
    }
    return result;
}

// Rounds a non-negative accumulator value to the output type (none where they are the same):
// nearest for floats; for integers truncation toward zero, saturated at the type's maximum.
Expr to_output(const Expr &v, const Type &out_t) {
    if (out_t == v.type()) {
        // Nothing to round, and a NaN stays a NaN: no select per vector (4 operations on AVX2,
        // which the pooling kernels' output loops paid beside a sqrt).
        return v;
    }
    if (out_t.is_float() || out_t.is_bfloat()) {
        // NaN by its bits: emulated float16 conversions (no F16C) turn NaN into inf.
        return select(is_nan_bits(v), quiet_nan(out_t), strict_float(cast(out_t, v)));
    }
    // 2^(bits) for unsigned, 2^(bits-1) for signed: exactly representable, and every double
    // below it converts without overflow.
    int value_bits = out_t.is_int() ? out_t.bits() - 1 : out_t.bits();
    Expr limit = make_const(v.type(), std::ldexp(1.0, value_bits));
    return select(v >= limit, out_t.max(), cast(out_t, v));
}

}  // namespace lpnorm::gen
