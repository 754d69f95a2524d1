// Float helpers shared by the algorithms: NaN and inf tests on the bits (Halide compiles
// float math with fast-math flags, under which LLVM may fold float NaN tests away), a vector
// cube root, and the rounding of a result to the output type.
#pragma once

#include "Halide.h"

namespace lpnorm::gen {

// The bits of |x| as an unsigned integer of x's width (for integers, the absolute value).
Halide::Expr magnitude_bits(const Halide::Expr &x);
// |x|: for floats x with its sign bit cleared, one AND (Halide's abs under strict_float is a
// compare and a blend, and for a float32 input widened to float64 also the widening of the
// compare's mask); for integers Halide's abs.
Halide::Expr magnitude(const Halide::Expr &x);
int mantissa_bits(const Halide::Type &t);
// All exponent bits set, mantissa zero. (Type::max() of a float type is inf itself.)
Halide::Expr inf_bits(const Halide::Type &t);
Halide::Expr is_nan_bits(const Halide::Expr &x);
Halide::Expr is_nan_or_inf_bits(const Halide::Expr &x);
// True for x < 0, -0 and -inf included, NaN excluded.
Halide::Expr sign_bit_set(const Halide::Expr &x);
Halide::Expr quiet_nan(const Halide::Type &t);

// m^n for an integer n = cast<int>(p) in [1, kMaxChainPower] by binary powering: at most
// 2 log2(n) products, relative error at most (1+u)^(n-1) - 1, where pow's error grows with n.
// No product over- or underflows unless m^n does.
Halide::Expr integer_power(const Halide::Expr &m, const Halide::Expr &p);

// m^e for a finite e and m = 0 or m > 0 normal in float64 (every float32 value is), in float64
// vector arithmetic (no libm call), returned in m's type. Relative error within
// (3 + 3 |e log2 m|) 2^-53, at most 3.6e-13 where the result is a normal float64: for results
// rounded to float32 or narrower, not for float64 ones. Where m^e leaves float64's range,
// inf or a subnormal or 0, as pow gives.
Halide::Expr narrow_pow(const Halide::Expr &m, const Halide::Expr &e);
// m^e for m > 0 finite (normal or subnormal) and a finite e, in float32 vector arithmetic, with
// float32's own precision: relative error within (3 + 2 ln 2 |e log2 m|) 2^-24, as Halide's pow,
// without its guards for the m and e excluded here. Over- and underflows to inf and 0 as pow.
Halide::Expr float32_pow(const Halide::Expr &m, const Halide::Expr &e);
// Whether an op on `input` may take narrow_pow for its powers: results of float types of 32 bits
// or fewer.
bool narrow_pow_suffices(const Halide::Type &input);
// a * b + c rounded once, for float32 or float64 scalars or vectors of one type. Only for
// targets with fused multiply-add instructions: elsewhere LLVM calls libm's fma per lane.
Halide::Expr fused_multiply_add(const Halide::Expr &a, const Halide::Expr &b,
                                const Halide::Expr &c);
// The float 2^e of type t (32 or 64 bits), for an int e in t's normal exponent range, from its
// bits.
Halide::Expr power_of_two(const Halide::Expr &e, const Halide::Type &t);
// m^e for a float64 m by narrow_pow where `narrow`, else by Halide's pow (float32 m: Halide's
// float32 pow is inline vector code, faster than narrow_pow's float64).
Halide::Expr lp_pow(const Halide::Expr &m, const Halide::Expr &e, bool narrow);

// Cube root of s >= 0 (sign bit clear) in vector arithmetic, within 0.95 ulp, exact on cubes of
// integers; 0, NaN and inf are their own roots. No step over- or underflows where the root
// does not, with or without fused multiply-adds, so it may be left out of strict_float.
Halide::Expr cube_root(const Halide::Expr &s);

// Rounds a non-negative accumulator value to the output type (none where they are the same):
// nearest for floats; for integers truncation toward zero, saturated at the type's maximum.
Halide::Expr to_output(const Halide::Expr &v, const Halide::Type &out_t);

}  // namespace lpnorm::gen
