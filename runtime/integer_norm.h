// Exact Lp norms of integer terms, for the reductions of integer tensors.
//
// The kernels sum integer inputs in float64 and truncate the root to the output type. While the
// sum stays below 2^53 it is exact, and so is the truncation; above, the sum rounds, and where
// the true norm is an integer or lies just below one (||[2^39, 2^20]||_2 = sqrt((2^39 + 1)^2 -
// 1)), the float64 root can land on the wrong side of it. The runtime recomputes those outputs
// with integer arithmetic (range_repair.cpp).
#pragma once

#include <cstdint>

namespace lpnorm::rt {

// Whether integer reductions of order p get exact outputs here: p = 1, 2, 3, 4.
bool exact_integer_p(double p);

// The smallest output at which a kernel's truncated result of order p (exact_integer_p) may be
// wrong: below it every partial sum is an integer under 2^53 and the root cannot cross an
// integer (see integer_norm.cpp).
uint64_t inexact_integer_outputs_from(double p);

// floor((sum over i of |x_i|^p)^(1/p)) for integer p in [1, 4], exactly, saturated at `cap`.
class ExactIntegerNorm {
public:
    explicit ExactIntegerNorm(int p) : p_(p) {}
    void add(uint64_t magnitude);
    uint64_t floor_root(uint64_t cap) const;

private:
    // An unsigned integer of 256 bits, 4 limbs least significant first; `over` once a value
    // reached 2^256 (every norm of such a sum saturates a 64-bit output).
    struct Wide {
        uint64_t limb[4] = {0, 0, 0, 0};
        bool over = false;
    };
    static Wide power(uint64_t x, int p);
    static void add_to(Wide *a, const Wide &b);
    static bool less_equal(const Wide &a, const Wide &b);

    int p_;
    Wide sum_;
};

}  // namespace lpnorm::rt
