#include "integer_norm.h"

namespace lpnorm::rt {

bool exact_integer_p(double p) { return p == 1 || p == 2 || p == 3 || p == 4; }

// With output t, the true norm is below t + 1, so the sum below (t + 1)^p: every term and
// partial sum is an integer the kernel's float64 holds exactly while (t + 1)^p <= 2^53. The
// root of an exact sum S that is not a p-th power then stays below the next integer m + 1 by
// at least (m + 1) - ((m + 1)^p - 1)^(1/p) > 1 / (p (m + 1)^(p - 1)), which must exceed the
// root's own error (sqrt: half an ulp; the cube root and pow: a few ulps) at m + 1:
//   p = 1: the sum itself, exact below 2^53;
//   p = 2: below 2^25, a gap over 2^-26 against half an ulp of 2^-29;
//   p = 3: below 2^14, a gap over 2^-29.6 against ulps of 2^-38;
//   p = 4: below 2^10, a gap over 2^-32 against ulps of 2^-42 (the powers x^4 < 2^40 exact).
uint64_t inexact_integer_outputs_from(double p) {
    if (p == 1) return uint64_t(1) << 53;
    if (p == 2) return uint64_t(1) << 25;
    if (p == 3) return uint64_t(1) << 14;
    return uint64_t(1) << 10;
}

ExactIntegerNorm::Wide ExactIntegerNorm::power(uint64_t x, int p) {
    Wide r;
    r.limb[0] = x;
    for (int k = 1; k < p; k++) {
        unsigned __int128 carry = 0;
        for (uint64_t &limb : r.limb) {
            const unsigned __int128 v = static_cast<unsigned __int128>(limb) * x + carry;
            limb = static_cast<uint64_t>(v);
            carry = v >> 64;
        }
        if (carry != 0) r.over = true;
    }
    return r;
}

void ExactIntegerNorm::add_to(Wide *a, const Wide &b) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned __int128 v = static_cast<unsigned __int128>(a->limb[i]) + b.limb[i] + carry;
        a->limb[i] = static_cast<uint64_t>(v);
        carry = v >> 64;
    }
    a->over = a->over || b.over || carry != 0;
}

bool ExactIntegerNorm::less_equal(const Wide &a, const Wide &b) {
    if (a.over != b.over) return b.over;
    for (int i = 3; i >= 0; i--) {
        if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
    }
    return true;
}

void ExactIntegerNorm::add(uint64_t magnitude) { add_to(&sum_, power(magnitude, p_)); }

uint64_t ExactIntegerNorm::floor_root(uint64_t cap) const {
    if (sum_.over) return cap;
    // The largest t in [0, cap] with t^p <= sum (0^p = 0 always is).
    uint64_t lo = 0, hi = cap;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2 + (hi - lo) % 2;
        if (less_equal(power(mid, p_), sum_)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

}  // namespace lpnorm::rt
