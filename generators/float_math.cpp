#include "float_math.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::make_const;
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
    return reinterpret(t, inf_bits(t) | make_const(UInt(t.bits()), uint64_t(1) << (mantissa_bits(t) - 1)));
}

Expr sign_bit_set(const Expr &x) {
    Type bits_t = UInt(x.type().bits());
    Expr sign = make_const(bits_t, uint64_t(1) << (x.type().bits() - 1));
    return (reinterpret(bits_t, x) & sign) != 0 && !is_nan_bits(x);
}

// Cube root of a finite s >= 0, in vector arithmetic only (pow is a scalar libm call per
// lane and made L3 on [32, 256, 56, 56] axis 1 take 1.5x as long as L2). The estimate divides
// the biased exponent by three on the bits (the high 32 bits for float64, about 5 correct
// bits), Halley steps triple the correct bits each, and a last Newton step makes exact cubes
// come out exact before integer truncation. Subnormal sums are scaled by 2^(3k) first, and sums
// within 2^(3k) of the largest finite value by 2^(-3k), so that 2 c^3 + s cannot overflow; each
// Halley step multiplies c by a ratio near 1, so that no product of c and s over- or underflows.
Expr cube_root(const Expr &s) {
    const Type t = s.type();
    const bool f64 = t.bits() == 64;
    const int k = f64 ? 18 : 8;  // 2^54 and 2^24 lift every subnormal into the normal range
    Expr small = s < make_const(t, f64 ? 2.2250738585072014e-308 : 1.17549435e-38);
    Expr large = s > make_const(t, std::ldexp(1.0, (f64 ? 1024 : 128) - 3 * k));
    Expr scaled = select(small, s * make_const(t, std::ldexp(1.0, 3 * k)),
                         large, s * make_const(t, std::ldexp(1.0, -3 * k)), s);
    Expr estimate;
    if (f64) {
        Expr hi = cast(UInt(32), reinterpret(UInt(64), scaled) >> 32);
        estimate = reinterpret(t, cast(UInt(64), hi / 3 + make_const(UInt(32), 0x2A9F7893)) << 32);
    } else {
        estimate = reinterpret(t, reinterpret(UInt(32), scaled) / 3 + make_const(UInt(32), 0x2A555555));
    }
    Expr c = estimate;
    for (int step = 0; step < (f64 ? 3 : 2); step++) {
        Expr c3 = c * c * c;
        c = c * ((c3 + 2 * scaled) / (2 * c3 + scaled));  // the ratio first: no c * s
    }
    c = c - (c * c * c - scaled) / (3 * c * c);
    c = select(small, c * make_const(t, std::ldexp(1.0, -k)),
               large, c * make_const(t, std::ldexp(1.0, k)), c);
    return select(s == make_zero(t), make_zero(t), c);
}

// Rounds a non-negative accumulator value to the output type: nearest for floats; for
// integers truncation toward zero, saturated at the type's maximum.
Expr to_output(const Expr &v, const Type &out_t) {
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
