// Powers and logarithm ranges for the reference implementations, computed with as few calls
// to powl and logl as their error budgets allow. Those calls dominated the suites' time: a
// long-double powl is about 0.6 us on x86 (x87), and about 24 us under qemu-aarch64, where
// long double is binary128 in software (a product: under 2 us).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace lpnorm::ref {

// b^p in long double. A whole p from 1 to 8 by binary powering: at most 4 products, each
// rounded once (2^-64 relative on x86, 2^-113 on AArch64), within the 2^-63 per term each
// reference's tolerance allots to its own pow; their signs, zeros, infinities and NaN are
// pow's. Any other p: std::pow.
inline long double power(long double b, long double p) {
    if (!(p >= 1 && p <= 8 && p == std::floor(p))) return std::pow(b, p);
    long double result = 1, square = b;
    for (int k = static_cast<int>(p);; k >>= 1) {
        if (k & 1) result *= square;  // the first product, by 1, is exact
        if (k == 1) return result;
        square *= square;
    }
}

// The relative error the kernels' power of a general p carries: pow within 4 units of the
// compute type's roundoff u, except the float64 powers of float32 inputs (reductions and
// normalizations), which CPU kernels take from lpnorm's vector power, within
// (3 + 3 |p log2 |x||) 2^-53, at most 3.6e-13 where the power is normal (generators/float_math.h,
// narrow_pow): for those the larger of the two serves every backend.
inline long double pow_error(bool float32_input, long double u) {
    return float32_input ? std::max(4 * u, 3.6e-13L) : 4 * u;
}

// The relative error of a float32 partial sum of the CPU's inner kernels (float32 input,
// p = 1, 2, 3): the contract's at most 8 terms (docs/semantics.md, not the kernels' constant)
// added in float32, gamma_7 with u = 2^-24.
inline long double float32_block_gamma() {
    const long double k = 8 - 1, u = std::ldexp(1.0L, -24);
    return k * u / (1 - k * u);
}

// The largest |ln a| over the non-zero finite magnitudes a added (0 when there are none):
// |ln| grows away from 1 on both sides, so it is the larger of |ln| at the smallest and at
// the largest of them, two logarithms in all.
class LogRange {
public:
    void add(long double a) {
        if (a == 0 || !std::isfinite(a)) return;
        smallest_ = std::min(smallest_, a);
        largest_ = std::max(largest_, a);
    }
    long double max_abs_log() const {
        if (largest_ == 0) return 0;
        return std::max(std::fabs(std::log(smallest_)), std::fabs(std::log(largest_)));
    }

private:
    long double smallest_ = std::numeric_limits<long double>::infinity();
    long double largest_ = 0;
};

}  // namespace lpnorm::ref
