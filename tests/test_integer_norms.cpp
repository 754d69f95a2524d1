// Integer reductions are exact up to the final truncation for p = 1, 2, 3, 4: the output is
// floor((sum |x|^p)^(1/p)), saturated to the dtype, also where the float64 sum rounds and the
// true norm is an integer or lies just below one (runtime/integer_norm.h). The expected values
// are exact: chosen identities, or roots found here from unsigned __int128 sums.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

using ld = long double;
using u128 = unsigned __int128;

// Reduces one row of `values` (all axes) and returns the single output (a norm: >= 0).
uint64_t norm_of(DType d, const std::vector<ld> &values, double p) {
    const Array x = make_from(d, {int64_t(values.size())}, values);
    Status s;
    const Array y = run_reduce(x.t, params({0}, p), &s);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok() ? uint64_t(y.at(0)) : 0;
}

// 2^e as an input value (exact in any long double) and as an expected output.
ld two(int e) { return std::ldexp(1.0L, e); }
uint64_t bit(int e) { return uint64_t(1) << e; }

TEST(IntegerNorms, RootsThatAreIntegers) {
    // 17519947540^2 + 18395944917^2 = 25403923933^2; the squares round in float64.
    EXPECT_EQ(norm_of(DType::int64, {17519947540.0L, -18395944917.0L}, 2), uint64_t(25403923933));
    // 3^3 + 4^3 + 5^3 = 6^3, scaled: the sum 2.16e20 lies beyond 2^53.
    EXPECT_EQ(norm_of(DType::int64, {3e6L, 4e6L, 5e6L}, 3), uint64_t(6000000));
    // 95800^4 + 217519^4 + 414560^4 = 422481^4 (Frye).
    EXPECT_EQ(norm_of(DType::int64, {95800, -217519, 414560}, 4), uint64_t(422481));
    // p = 1 beyond 2^53: float64 drops the ones.
    EXPECT_EQ(norm_of(DType::int64, {two(62), 1, -1, 1}, 1), bit(62) + 3);
    EXPECT_EQ(norm_of(DType::uint64, {two(63), two(53), 1}, 1), bit(63) + bit(53) + 1);
}

TEST(IntegerNorms, RootsJustBelowAnInteger) {
    // (2^29)^2 + (2^15)^2 = (2^29 + 1)^2 - 1: the norm is 2^29 + 1 - 1e-9, whose float64 root
    // rounds up to 2^29 + 1.
    EXPECT_EQ(norm_of(DType::int32, {two(29), two(15)}, 2), bit(29));
    EXPECT_EQ(norm_of(DType::int64, {two(39), -two(20)}, 2), bit(39));
    EXPECT_EQ(norm_of(DType::uint32, {two(31), two(16)}, 2), bit(31));
}

TEST(IntegerNorms, SaturatedOutputs) {
    const uint64_t int32_max = uint64_t(std::numeric_limits<int32_t>::max());
    EXPECT_EQ(norm_of(DType::int32, {ld(int32_max), -ld(int32_max) - 1}, 2), int32_max);
    const uint64_t int64_max = uint64_t(std::numeric_limits<int64_t>::max());
    EXPECT_EQ(norm_of(DType::int64, {-two(63), -two(63)}, 2), int64_max);
    EXPECT_EQ(norm_of(DType::int64, {-two(63), 0}, 3), int64_max);
    // 2^63 + 2^63 = 2^64; sixteen (2^63)^4 make 2^256, past the exact sum's 256 bits.
    const uint64_t uint64_max = std::numeric_limits<uint64_t>::max();
    EXPECT_EQ(norm_of(DType::uint64, {two(63), two(63)}, 1), uint64_max);
    EXPECT_EQ(norm_of(DType::uint64, std::vector<ld>(16, two(63)), 4), uint64_max);
    // Just fits: (2^32 - 1)^2 + 0 at uint32.
    EXPECT_EQ(norm_of(DType::uint32, {two(32) - 1, 0}, 2), bit(32) - 1);
}

// min(floor(S^(1/p)), max) for max < 2^63: a long double estimate, then exact steps with
// __int128.
uint64_t floor_root(u128 s, int p, uint64_t max) {
    const auto pow_of = [p](u128 t, bool *over) {
        u128 r = 1;
        for (int k = 0; k < p; k++) {
            if (t != 0 && r > (~u128(0)) / t) *over = true;
            r *= t;
        }
        return r;
    };
    bool max_over = false;
    const u128 max_power = pow_of(max, &max_over);
    if (!max_over && max_power <= s) return max;
    uint64_t t = uint64_t(std::min(ld(max), std::floor(std::pow(ld(s), 1.0L / p))));
    for (;;) {
        bool over = false;
        const u128 next = pow_of(u128(t) + 1, &over);
        if (over || next > s) break;
        t++;
    }
    for (;;) {
        bool over = false;
        const u128 power = pow_of(t, &over);
        if (!over && power <= s) break;
        t--;
    }
    return t;
}

// Random rows large enough that every output takes the exact path, over the inner, outer and
// general patterns.
TEST(IntegerNorms, RandomRowsEveryPattern) {
    std::mt19937_64 rng(20261203);
    struct Case {
        DType dtype;
        int p;
        int64_t magnitude;  // values in [-magnitude, magnitude]
    };
    const std::vector<Case> cases = {{DType::int32, 2, int64_t(1) << 30},
                                     {DType::int32, 3, int64_t(1) << 30},
                                     {DType::int64, 1, int64_t(1) << 60},
                                     {DType::int16, 4, 32767}};
    const std::vector<int64_t> shape = {5, 7, 9};
    for (const Case &c : cases) {
        std::uniform_int_distribution<int64_t> value(-c.magnitude, c.magnitude);
        std::vector<ld> values(5 * 7 * 9);
        for (ld &v : values) v = ld(value(rng));
        const Array x = make_from(c.dtype, shape, values);
        for (const std::vector<int64_t> &axes :
             std::vector<std::vector<int64_t>>{{2}, {0}, {1}, {0, 2}, {0, 1, 2}}) {
            Status s;
            const Array y = run_reduce(x.t, params(axes, c.p), &s);
            ASSERT_TRUE(s.ok()) << s.message();
            const auto reduced = [&](int i) {
                for (int64_t a : axes) {
                    if (a == i) return true;
                }
                return false;
            };
            // Output j in row-major order of the kept axes; sums by brute force.
            std::vector<u128> sums(size_t(y.storage_elements), 0);
            for (int64_t i = 0; i < 5 * 7 * 9; i++) {
                const int64_t idx[3] = {i / 63, (i / 9) % 7, i % 9};
                int64_t j = 0;
                for (int d = 0; d < 3; d++) {
                    if (!reduced(d)) j = j * shape[size_t(d)] + idx[d];
                }
                const auto m = u128(std::llabs(int64_t(values[size_t(i)])));
                u128 term = 1;
                for (int k = 0; k < c.p; k++) term *= m;
                sums[size_t(j)] += term;
            }
            for (size_t j = 0; j < sums.size(); j++) {
                const uint64_t max = c.dtype == DType::int16   ? 32767
                                     : c.dtype == DType::int32 ? 2147483647
                                                               : 9223372036854775807ull;
                const uint64_t want = floor_root(sums[j], c.p, max);
                EXPECT_EQ(uint64_t(y.at(int64_t(j))), want)
                    << dtype_name(c.dtype) << " p = " << c.p << " axes " << shape_string(axes)
                    << " out[" << j << "]";
            }
        }
    }
}

}  // namespace
}  // namespace lpnorm::test
