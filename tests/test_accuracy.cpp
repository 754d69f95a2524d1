// The accuracy contract (docs/semantics.md), measured: for every dtype, reduction pattern,
// pooling rank and p kind, on random, huge, tiny and mixed-magnitude inputs, every output is
// compared with the exact result computed here in long double with a compensated sum, and
// must lie within
//   - 8 ulps of the exactly rounded result for float32, float16 and bfloat16 outputs,
//   - 1e-14 relative for float64 outputs,
//   - 1 of the truncated (and saturated) exact result for integer outputs, plus the float64
//     sum's roundings beyond 2^53 (int64/uint64),
// on every ISA this machine runs. For a general p (pow: non-integer p;
// integer p above 3 in reductions and above 4 in pooling, whose root is a pow) the bound
// reached is wider and grows with the magnitudes: pow's error and the rounding of the exponent
// 1/p scale with |ln| of the values, and a root 1/p > 1 multiplies the terms' errors, so the
// bound is (8 + 2L max(1, 1/p)) ulps, or max(1e-14, that times 2^-53) relative for float64,
// with L the largest |ln |x|| over the terms and the result (docs/semantics.md). Signed-mode
// pooling, whose sums can cancel, has its own (absolute) bound and is checked by the pooling
// sweeps; its range is checked here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "reference/reduce_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

using ld = long double;

enum class Magnitudes { ordinary, huge, tiny, mixed };

const char *magnitudes_name(Magnitudes m) {
    switch (m) {
    case Magnitudes::ordinary: return "ordinary";
    case Magnitudes::huge: return "huge";
    case Magnitudes::tiny: return "tiny";
    case Magnitudes::mixed: return "mixed";
    }
    return "?";
}

// log2 of the largest finite and of the smallest normal magnitude (1 for integers).
struct Range {
    int max_exp, min_exp;
};
Range dtype_range(DType d) {
    switch (d) {
    case DType::float32: return {127, -126};
    case DType::float64: return {1023, -1022};
    case DType::float16: return {15, -14};
    case DType::bfloat16: return {127, -126};
    case DType::int8: return {6, 0};
    case DType::uint8: return {7, 0};
    case DType::int16: return {14, 0};
    case DType::uint16: return {15, 0};
    case DType::int32: return {30, 0};
    case DType::uint32: return {31, 0};
    case DType::int64: return {62, 0};
    case DType::uint64: return {63, 0};
    }
    return {0, 0};
}

// Random values of `d` in a magnitude class; ~10% zeros, signs mixed where the dtype has them.
Array random_array(DType d, const std::vector<int64_t> &shape, Magnitudes m, uint64_t seed) {
    Array a = make_array(d, shape);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(1.0, 2.0);
    const Range r = dtype_range(d);
    const bool is_signed =
        d != DType::uint8 && d != DType::uint16 && d != DType::uint32 && d != DType::uint64;
    for (int64_t i = 0; i < a.storage_elements; i++) {
        if (rng() % 10 == 0) continue;
        int exponent = 0;
        switch (m) {
        case Magnitudes::ordinary: exponent = int(rng() % 5) - 2; break;
        case Magnitudes::huge: exponent = r.max_exp - 3 - int(rng() % 3); break;
        case Magnitudes::tiny: exponent = r.min_exp + int(rng() % 3); break;
        case Magnitudes::mixed:
            exponent = r.min_exp + int(rng() % uint64_t(r.max_exp - r.min_exp - 2));
            break;
        }
        ld v = std::ldexp(static_cast<ld>(unit(rng)), exponent);
        if (!is_floating(d))
            v = std::max<ld>(1, std::floor(std::min(v, std::ldexp(1.0L, r.max_exp))));
        if (is_signed && rng() % 2) v = -v;
        a.set_at(i, v);
    }
    return a;
}

// Exact norm of `terms` (values of the input dtype) in long double, compensated.
ld exact_norm(const std::vector<ld> &terms, double p) {
    if (std::isinf(p)) {
        ld best = p > 0 ? 0 : std::numeric_limits<ld>::infinity();
        for (ld v : terms)
            best = p > 0 ? std::max(best, std::fabs(v)) : std::min(best, std::fabs(v));
        return terms.empty() ? 0 : best;
    }
    if (p == 0) {
        return ld(std::count_if(terms.begin(), terms.end(), [](ld v) { return v != 0; }));
    }
    ld sum = 0, carry = 0;
    for (ld v : terms) {
        const ld y = std::pow(std::fabs(v), static_cast<ld>(p)) - carry;
        const ld s = sum + y;
        carry = (s - sum) - y;
        sum = s;
    }
    return p == 1 ? sum : std::pow(sum, 1 / static_cast<ld>(p));
}

// Output ulps of `d` at v (v > 0, finite): the spacing of the dtype there, subnormals included.
ld ulp_of(DType d, ld v) {
    int digits = 0, min_exp = 0;
    switch (d) {
    case DType::float64:
        digits = 53;
        min_exp = -1022;
        break;
    case DType::float32:
        digits = 24;
        min_exp = -126;
        break;
    case DType::float16:
        digits = 11;
        min_exp = -14;
        break;
    case DType::bfloat16:
        digits = 8;
        min_exp = -126;
        break;
    default: return 1;
    }
    return std::ldexp(1.0L, std::max(std::ilogb(v), min_exp) - (digits - 1));
}

// The largest |ln |v|| over the non-zero finite values and the result, for the general-p bound.
ld log_magnitude(const std::vector<ld> &values, ld result) {
    ld l = 0;
    for (ld v : values) {
        if (v != 0 && std::isfinite(v)) l = std::max(l, std::fabs(std::log(std::fabs(v))));
    }
    if (result != 0 && std::isfinite(result)) l = std::max(l, std::fabs(std::log(result)));
    return l;
}

// Empty when `got` meets the bound for exact value `exact` of n terms, else what is wrong.
// `general_l` >= 0 selects the general-p bound, 8 + 2 general_l ulps.
std::string bound_violation(DType d, ld exact, ld got, size_t n, ld general_l = -1) {
    const ld ulps = general_l < 0 ? 8 : 8 + 2 * general_l;
    const ld rounded = ref::round_to_dtype(d, exact);
    if (std::isinf(rounded)) return got == rounded ? "" : "expected inf";
    if (std::isnan(got)) return "NaN";
    ld err = 0, allowed = 0;
    if (!is_floating(d)) {
        // float64 sums: exact below 2^53, then n + 2 roundings of the result's size.
        // saturated at the dtype's maximum
        const ld max = std::ldexp(1.0L, dtype_range(d).max_exp + 1) - 1;
        err = std::fabs(got - std::min(std::trunc(exact), max));
        allowed = 1 + static_cast<ld>(n + 2) * std::ldexp(1.0L, -53) * std::fabs(exact);
    } else if (d == DType::float64) {
        err = std::fabs(got - exact);
        allowed = std::max(1e-14L, ulps * std::ldexp(1.0L, -53)) * std::fabs(exact);
    } else {
        err = std::fabs(got - rounded);
        allowed = rounded == 0 ? 0 : ulps * ulp_of(d, std::fabs(rounded));
    }
    if (err <= allowed) return "";
    char text[200];
    std::snprintf(text, sizeof text,
                  "error %.3Lg > allowed %.3Lg (%.1Lf ulps; exact %.9Lg, got %.9Lg)", err, allowed,
                  is_floating(d) ? err / ulp_of(d, std::fabs(exact)) : err, exact, got);
    return text;
}

// One reduction case: the input's terms per output, grouped on the host.
struct ReduceCase {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
};

::testing::AssertionResult check_reduction(DType d, const ReduceCase &c, double p, Magnitudes m,
                                           uint64_t seed) {
    const Array x = random_array(d, c.shape, m, seed);
    Status s;
    const Array y = run_reduce(x.t, params(c.axes, p), &s);
    if (!s.ok()) return ::testing::AssertionFailure() << s.message();
    // Group input elements by output index (row-major over the kept axes).
    const int rank = int(c.shape.size());
    std::vector<std::vector<ld>> groups(size_t(y.storage_elements));
    std::vector<int64_t> index(size_t(rank), 0);
    for (int64_t i = 0; i < x.storage_elements; i++) {
        int64_t rest = i, key = 0;
        for (int a = rank - 1; a >= 0; a--) {
            index[size_t(a)] = rest % c.shape[size_t(a)];
            rest /= c.shape[size_t(a)];
        }
        for (int a = 0; a < rank; a++) {
            if (std::find(c.axes.begin(), c.axes.end(), a) == c.axes.end()) {
                key = key * c.shape[size_t(a)] + index[size_t(a)];
            }
        }
        groups[size_t(key)].push_back(x.at(i));
    }
    for (size_t j = 0; j < groups.size(); j++) {
        const ld exact = exact_norm(groups[j], p);
        const bool general = !(p == 0 || p == 1 || p == 2 || p == 3 || std::isinf(p));
        const std::string why =
            bound_violation(d, exact, y.at(int64_t(j)), groups[j].size(),
                            general ? log_magnitude(groups[j], exact) * std::max(1.0, 1 / p) : -1);
        if (!why.empty()) {
            return ::testing::AssertionFailure()
                   << dtype_name(d) << " " << shape_string(c.shape) << " axes "
                   << shape_string(c.axes) << " p = " << p << " " << magnitudes_name(m) << ": out["
                   << j << "] " << why;
        }
    }
    return ::testing::AssertionSuccess();
}

const std::vector<ReduceCase> &reduce_cases() {
    static const std::vector<ReduceCase> cases = {
        {{3, 257}, {1}},           // inner
        {{300, 5}, {0}},           // outer
        {{4, 70, 6}, {1}},         // middle
        {{2, 3, 100}, {0, 1, 2}},  // all
        {{6, 5, 4, 7}, {0, 2}},    // general
    };
    return cases;
}

class AccuracyReduce : public ::testing::TestWithParam<DType> {};

TEST_P(AccuracyReduce, EveryPatternPKindAndMagnitude) {
    const DType d = GetParam();
    if (backend_lacks_dtype(d, "reduce")) GTEST_SKIP() << "no kernels of this dtype";
    FailureBudget budget;
    uint64_t seed = 1;
    for (Isa isa : all_isas()) {
        std::string why;
        if (!force_isa_for(isa, "reduce", d, &why)) continue;
        for (const ReduceCase &c : reduce_cases()) {
            for (double p : {1.0, 2.0, 3.0, 2.5, 0.5, 7.0, HUGE_VAL, -HUGE_VAL, 0.0}) {
                for (Magnitudes m : {Magnitudes::ordinary, Magnitudes::huge, Magnitudes::tiny,
                                     Magnitudes::mixed}) {
                    if (!budget.record(check_reduction(d, c, p, m, seed++))) {
                        set_isa(Isa::auto_detect);
                        return;
                    }
                }
            }
        }
    }
    set_isa(Isa::auto_detect);
}

// Long axes: 2^26 float32 terms in one sum (all) or 2^25 in each of two rows (inner), where a
// sum taken in order in float32 would drift by n ulps. The values are ordinary ones, each in
// [0.5, 2) with either sign, filled and summed here directly (the generic Array accessors take
// minutes over 2^26 elements).
// n values with magnitudes in [0.5, 2) and random signs (a fixed generator): the long axes'
// input.
template <typename T>
std::vector<T> long_axis_values(int64_t n) {
    constexpr int bits = std::numeric_limits<T>::digits;  // 24 or 53
    std::vector<T> x(static_cast<size_t>(n));
    uint64_t state = 12345;
    for (T &v : x) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v = (T(0.5) + T(1.5) * T(state >> (64 - bits)) / T(uint64_t(1) << bits)) *
            ((state >> 20) & 1 ? T(-1) : T(1));
    }
    return x;
}

// The norm (p = 1, 2, 3) of `count` values value(0), ..., value(count - 1), from a
// compensated long-double sum of their terms: the reference of the long axes.
template <typename Value>
ld compensated_norm(int64_t count, double p, Value value) {
    ld sum = 0, carry = 0;
    for (int64_t i = 0; i < count; i++) {
        const ld a = std::fabs(ld(value(i)));
        const ld term = (p == 1 ? a : p == 2 ? a * a : a * a * a) - carry;
        const ld next = sum + term;
        carry = (next - sum) - term;
        sum = next;
    }
    return p == 1 ? sum : p == 2 ? std::sqrt(sum) : std::cbrt(sum);
}

TEST(AccuracyLongAxes, Float32) {
    if (running_emulated()) GTEST_SKIP() << "2^26 terms take minutes under emulation";
    const int64_t n = int64_t(1) << 26;
    const std::vector<float> x = long_axis_values<float>(n);
    for (const std::vector<int64_t> &shape : {std::vector<int64_t>{n}, {2, n / 2}}) {
        const Tensor t =
            Tensor::contiguous(x.data(), DType::float32, shape.data(), int(shape.size()));
        const int64_t rows = shape.size() == 1 ? 1 : shape[0], row = n / rows;
        for (double p : {1.0, 2.0, 3.0}) {
            std::vector<float> y(static_cast<size_t>(rows));
            const int64_t out_shape[1] = {rows};
            const Tensor out =
                Tensor::contiguous(y.data(), DType::float32, out_shape, shape.size() == 1 ? 0 : 1);
            ReduceParams params;
            params.axes = {int64_t(shape.size()) - 1};
            params.p = p;
            const Status s = reduce(t, out, params);
            ASSERT_TRUE(s.ok()) << s.message();
            for (int64_t r = 0; r < rows; r++) {
                const ld exact =
                    compensated_norm(row, p, [&](int64_t i) { return x[size_t(r * row + i)]; });
                const std::string why =
                    bound_violation(DType::float32, exact, y[size_t(r)], size_t(row));
                EXPECT_TRUE(why.empty())
                    << shape_string(shape) << " p = " << p << ": out[" << r << "] " << why;
            }
        }
    }
}

// float64 sums of 2^19 and 2^22 terms down strided axes (the middle and outer patterns), held
// to the float64 bound of 1e-14 relative: one accumulator per output down every row gave
// 2.7e-14 at 2^19 terms (middle, p = 1) before the rows were cut into chunks of at most 16384
// (schedules/cpu_reduce_schedule.cpp, schedule_strided).
TEST(AccuracyLongAxes, Float64StridedAxes) {
    if (running_emulated()) GTEST_SKIP() << "2^24 terms take minutes under emulation";
    const int64_t n = int64_t(1) << 24;
    const std::vector<double> x = long_axis_values<double>(n);
    // (shape, reduced axis, outputs checked): middle [4, 2^19, 8] axis 1, outer [2^22, 4] axis 0.
    const std::vector<int64_t> middle = {4, int64_t(1) << 19, 8}, outer = {int64_t(1) << 22, 4};
    for (const std::vector<int64_t> &shape : {middle, outer}) {
        const bool is_middle = shape.size() == 3;
        const int64_t rows = is_middle ? shape[1] : shape[0];
        const int64_t inner = is_middle ? shape[2] : shape[1], outputs = n / rows;
        for (double p : {1.0, 2.0, 3.0}) {
            std::vector<double> y(static_cast<size_t>(outputs));
            const std::vector<int64_t> out_shape =
                is_middle ? std::vector<int64_t>{shape[0], shape[2]} : std::vector<int64_t>{inner};
            ReduceParams params;
            params.axes = {is_middle ? 1 : 0};
            params.p = p;
            const Status s = reduce(
                Tensor::contiguous(x.data(), DType::float64, shape.data(), int(shape.size())),
                Tensor::contiguous(y.data(), DType::float64, out_shape.data(),
                                   int(out_shape.size())),
                params);
            ASSERT_TRUE(s.ok()) << s.message();
            for (int64_t o = 0; o < outputs; o++) {
                const int64_t base = (o / inner) * rows * inner + o % inner;
                const ld exact = compensated_norm(
                    rows, p, [&](int64_t i) { return x[size_t(base + i * inner)]; });
                const std::string why =
                    bound_violation(DType::float64, exact, y[size_t(o)], size_t(rows));
                EXPECT_TRUE(why.empty())
                    << shape_string(shape) << " p = " << p << ": out[" << o << "] " << why;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, AccuracyReduce, ::testing::ValuesIn(all_dtypes()),
                         [](const auto &info) { return std::string(dtype_name(info.param)); });

// Pooling, abs mode: 1-, 2- and 3-D windows with strides, padding and dilation.
struct PoolCase {
    std::vector<int64_t> shape;
    PoolParams params;
};

std::vector<PoolCase> pool_cases() {
    std::vector<PoolCase> cases(4);
    cases[0].shape = {2, 3, 40};
    cases[0].params.kernel = {4};
    cases[0].params.strides = {2};
    cases[1].shape = {2, 3, 11, 13};
    cases[1].params.kernel = {3, 3};
    cases[1].params.pads = {1, 1, 1, 1};
    cases[2].shape = {1, 4, 12, 12};
    cases[2].params.kernel = {2, 2};
    cases[2].params.strides = {2, 2};
    cases[2].params.dilations = {2, 1};
    cases[3].shape = {1, 2, 5, 6, 7};
    cases[3].params.kernel = {2, 2, 2};
    return cases;
}

std::string taps_text(const std::vector<ld> &taps) {
    std::string text = ", taps";
    for (ld v : taps) text += " " + std::to_string(double(v));
    return text;
}

::testing::AssertionResult check_pooling(DType d, PoolCase c, double p, Magnitudes m,
                                         uint64_t seed) {
    c.params.p = p;
    const Array x = random_array(d, c.shape, m, seed);
    std::vector<int64_t> out_shape;
    std::vector<PoolAxis> axes;
    Status s = pool_output_shape(c.shape, c.params, &out_shape);
    if (s.ok()) s = pool_geometry(c.shape, c.params, &axes);
    if (!s.ok()) return ::testing::AssertionFailure() << s.message();
    Array y = make_array(d, out_shape);
    s = pool(x.t, y.t, c.params);
    if (!s.ok()) return ::testing::AssertionFailure() << s.message();
    const int spatial = int(axes.size());
    std::vector<int64_t> o(out_shape.size(), 0);
    for (int64_t j = 0; j < y.storage_elements; j++) {
        int64_t rest = j;
        for (int a = int(out_shape.size()) - 1; a >= 0; a--) {
            o[size_t(a)] = rest % out_shape[size_t(a)];
            rest /= out_shape[size_t(a)];
        }
        std::vector<ld> taps;
        // Every tap of the window (at most 2 x 3 x 3 here), in-bounds only.
        std::vector<int64_t> t(size_t(spatial), 0);
        for (;;) {
            std::vector<int64_t> at = {o[0], o[1]};
            bool inside = true;
            for (int dd = 0; dd < spatial; dd++) {
                const PoolAxis &a = axes[size_t(dd)];
                const int64_t i =
                    o[size_t(dd) + 2] * a.stride - a.pad_begin + t[size_t(dd)] * a.dilation;
                inside = inside && i >= 0 && i < a.input;
                at.push_back(i);
            }
            if (inside) taps.push_back(x.get(at));
            int dd = spatial - 1;
            for (; dd >= 0; dd--) {
                if (++t[size_t(dd)] < axes[size_t(dd)].kernel) break;
                t[size_t(dd)] = 0;
            }
            if (dd < 0) break;
        }
        const ld exact = exact_norm(taps, p);
        const bool general = !(p == 1 || p == 2 || p == 3 || p == 4);
        const std::string why =
            bound_violation(d, exact, y.at(j), taps.size(),
                            general ? log_magnitude(taps, exact) * std::max(1.0, 1 / p) : -1);
        if (!why.empty()) {
            return ::testing::AssertionFailure()
                   << dtype_name(d) << " pool " << shape_string(c.shape) << " kernel "
                   << shape_string(c.params.kernel) << " p = " << p << " " << magnitudes_name(m)
                   << ": out[" << j << "] " << why << taps_text(taps);
        }
    }
    return ::testing::AssertionSuccess();
}

class AccuracyPool : public ::testing::TestWithParam<DType> {};

TEST_P(AccuracyPool, EveryRankPKindAndMagnitude) {
    const DType d = GetParam();
    if (backend_lacks_dtype(d, "pool")) GTEST_SKIP() << "no kernels of this dtype";
    FailureBudget budget;
    uint64_t seed = 1000;
    for (Isa isa : all_isas()) {
        std::string why;
        if (!force_isa_for(isa, "pool", d, &why)) continue;
        for (const PoolCase &c : pool_cases()) {
            for (double p : {1.0, 2.0, 3.0, 4.0, 7.0, 2.5, 0.5}) {
                for (Magnitudes m : {Magnitudes::ordinary, Magnitudes::huge, Magnitudes::tiny,
                                     Magnitudes::mixed}) {
                    if (!budget.record(check_pooling(d, c, p, m, seed++))) {
                        set_isa(Isa::auto_detect);
                        return;
                    }
                }
            }
        }
    }
    set_isa(Isa::auto_detect);
}

INSTANTIATE_TEST_SUITE_P(FloatDTypes, AccuracyPool,
                         ::testing::Values(DType::float32, DType::float64, DType::float16,
                                           DType::bfloat16),
                         [](const auto &info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace lpnorm::test
