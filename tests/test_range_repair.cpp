// Outputs whose powers leave the accumulator's range although the norm itself is finite and
// normal (runtime/range_repair.h): float64 near 1e+-200, float32 pooling near 1e+-30,
// bfloat16 and float16 with large p, int64 with p = 20, signed-mode pooling whose opposite
// powers overflow. The expected values are the exact norms, computed here in long double
// (whose range holds every power below), and the results must round them as a single rounding
// would, within one ulp of the output dtype.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "reference/reduce_reference.h"
#include "test_util.h"
#include "testing.h"

namespace lpnorm::test {
namespace {

using ld = long double;

// One unit in the last place of the output dtype at |v| (v finite, non-zero), or 1 for
// integers (the truncation of a value computed in double).
ld ulp(DType d, ld v) {
    int digits = 0;
    switch (d) {
    case DType::float64: digits = 53; break;
    case DType::float32: digits = 24; break;
    case DType::float16: digits = 11; break;
    case DType::bfloat16: digits = 8; break;
    default: return std::ldexp(1.0L, std::max(0, std::ilogb(v) - 52));
    }
    return std::ldexp(1.0L, std::ilogb(v) - (digits - 1));
}

// (sum |x|^p)^(1/p), or the signed form (x^p summed, odd p) when `signed_mode`.
ld exact_norm(const std::vector<ld> &x, ld p, bool signed_mode = false) {
    ld s = 0;
    for (ld v : x) {
        const ld t = std::pow(std::fabs(v), p);
        s += signed_mode && v < 0 ? -t : t;
    }
    return s < 0 ? -std::pow(-s, 1 / p) : std::pow(s, 1 / p);
}

void expect_near_exact(ld got, ld want, DType d, const std::string &what) {
    ASSERT_TRUE(std::isfinite(static_cast<double>(got)))
        << what << ": got " << double(got) << ", exact " << double(want);
    EXPECT_LE(std::fabs(got - want), ulp(d, want))
        << what << ": got " << double(got) << ", exact " << double(want);
}

// Reduces `values` (one row of `shape`, axes) and compares output j against exact[j].
void check_reduce_rows(DType d, const std::vector<int64_t> &shape, std::vector<int64_t> axes,
                       const std::vector<ld> &values, double p, const std::vector<ld> &exact) {
    const Array x = make_from(d, shape, values);
    Status s;
    const Array y = run_reduce(x.t, params(std::move(axes), p), &s);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(size_t(y.storage_elements), exact.size());
    for (size_t j = 0; j < exact.size(); j++) {
        expect_near_exact(y.at(int64_t(j)), exact[j], d,
                          std::string(dtype_name(d)) + " p = " + std::to_string(p) + " out[" +
                              std::to_string(j) + "]");
    }
}

TEST(RangeRepair, Float64ReductionOverflowAndUnderflow) {
    for (double p : {2.0, 3.0, 2.5, 8.0}) {
        const std::vector<ld> big = {1e200L, -2e200L, 3e200L}, tiny = {1e-200L, -2e-200L, 3e-200L};
        check_reduce_rows(DType::float64, {3}, {0}, big, p, {exact_norm(big, p)});
        check_reduce_rows(DType::float64, {3}, {0}, tiny, p, {exact_norm(tiny, p)});
        // Mixed rows: the largest dominates, the tiny ones add nothing visible.
        const std::vector<ld> mixed = {1e300L, 1e-300L, 0, -4e299L};
        check_reduce_rows(DType::float64, {4}, {0}, mixed, p, {exact_norm(mixed, p)});
    }
    // Close to the largest double: the norm of two 1e308 is 1.414e308, still finite.
    const std::vector<ld> edge = {1e308L, 1e308L};
    check_reduce_rows(DType::float64, {2}, {0}, edge, 2, {exact_norm(edge, 2)});
    // The smallest subnormals: 4.9e-324 * sqrt(4) = 9.9e-324, two subnormal ulps.
    const ld denorm = std::numeric_limits<double>::denorm_min();
    check_reduce_rows(DType::float64, {4}, {0}, {denorm, denorm, denorm, denorm}, 2, {2 * denorm});
}

TEST(RangeRepair, Float64ReductionEveryPattern) {
    // [2, 3, 4] with values 1e200 * (1 + index): all (0,1,2), inner (2), outer (0), middle (1),
    // general (0, 2). Each output's exact norm from its own terms.
    const std::vector<int64_t> shape = {2, 3, 4};
    std::vector<ld> values(24);
    for (size_t i = 0; i < values.size(); i++) values[i] = 1e200L * ld(i + 1) * (i % 3 ? 1 : -1);
    const auto exact_of = [&](const std::vector<int64_t> &axes) {
        std::vector<std::vector<ld>> groups;
        std::vector<int64_t> kept_index;
        for (int64_t i = 0; i < 24; i++) {
            const int64_t c[3] = {i / 12, (i / 4) % 3, i % 4};
            int64_t key = 0;
            for (int a = 0; a < 3; a++) {
                if (std::find(axes.begin(), axes.end(), a) == axes.end())
                    key = key * shape[size_t(a)] + c[a];
            }
            if (size_t(key) >= groups.size()) groups.resize(size_t(key) + 1);
            groups[size_t(key)].push_back(values[size_t(i)]);
        }
        std::vector<ld> exact;
        for (const auto &g : groups) exact.push_back(exact_norm(g, 2));
        return exact;
    };
    for (const std::vector<int64_t> &axes :
         std::vector<std::vector<int64_t>>{{0, 1, 2}, {2}, {0}, {1}, {0, 2}}) {
        check_reduce_rows(DType::float64, shape, axes, values, 2, exact_of(axes));
    }
}

TEST(RangeRepair, NarrowAccumulators) {
    // bfloat16 sums in float32: 1e30^2 overflows it.
    const std::vector<ld> big = {1e30L, 2e30L};
    std::vector<ld> rounded;
    const Array b = make_from(DType::bfloat16, {2}, big);
    for (int64_t i = 0; i < 2; i++) rounded.push_back(b.at(i));
    check_reduce_rows(DType::bfloat16, {2}, {0}, big, 2, {exact_norm(rounded, 2)});
    // float16 with p = 16: 1000^16 = 1e48 overflows float32; the norm, 1000 * 2^(1/16), does
    // not overflow float16.
    check_reduce_rows(DType::float16, {2}, {0}, {1000, 1000}, 16, {exact_norm({1000, 1000}, 16)});
    // int64 with p = 20: (2^62)^20 overflows double; the norm 2^62 * 2^(1/20) fits int64.
    const ld two62 = std::ldexp(1.0L, 62);
    check_reduce_rows(DType::int64, {2}, {0}, {two62, -two62}, 20,
                      {std::floor(exact_norm({two62, two62}, 20))});
}

// Pools a 1-D window of `values` (kernel = their count) and returns the one output.
ld pool_one(DType d, const std::vector<ld> &values, double p, PoolMode mode = PoolMode::abs) {
    const Array x = make_from(d, {1, 1, int64_t(values.size())}, values);
    Array y = make_array(d, {1, 1, 1});
    PoolParams params;
    params.kernel = {int64_t(values.size())};
    params.p = p;
    params.mode = mode;
    const Status s = pool(x.t, y.t, params);
    EXPECT_TRUE(s.ok()) << s.message();
    return y.at(0);
}

// bfloat16 pooling sums in float32 too, float64 in float64: their outputs are scanned
// wherever sum_range allows an error (float32: see PoolingFloat32 below).
TEST(RangeRepair, PoolingBfloat16AndFloat64) {
    for (double p : {2.0, 3.0, 4.0, 2.5}) {
        for (const std::vector<ld> &w : std::vector<std::vector<ld>>{
                 {1e30L, -2e30L, 3e30L, 1e30L}, {1e-30L, -2e-30L, 3e-30L, 0}}) {
            const Array rounded = make_from(DType::bfloat16, {4}, w);
            const std::vector<ld> v = {rounded.at(0), rounded.at(1), rounded.at(2), rounded.at(3)};
            expect_near_exact(pool_one(DType::bfloat16, v, p), exact_norm(v, p), DType::bfloat16,
                              "bfloat16 pool p = " + std::to_string(p));
        }
        for (const std::vector<ld> &w : std::vector<std::vector<ld>>{
                 {1e200L, -2e200L, 3e200L}, {1e-200L, -2e-200L, 3e-200L}}) {
            expect_near_exact(pool_one(DType::float64, w, p), exact_norm(w, p), DType::float64,
                              "float64 pool p = " + std::to_string(p));
        }
    }
    // A 3x3 window with padding in 2-D, rows of huge values: the repair walks the taps inside.
    Array x = make_array(DType::float64, {1, 1, 3, 3});
    for (int64_t i = 0; i < 9; i++) x.set_at(i, 1e250L * ld(i + 1));
    Array y = make_array(DType::float64, {1, 1, 3, 3});
    PoolParams params;
    params.kernel = {3, 3};
    params.pads = {1, 1, 1, 1};
    params.p = 2;
    ASSERT_TRUE(pool(x.t, y.t, params).ok());
    for (int64_t oy = 0; oy < 3; oy++) {
        for (int64_t ox = 0; ox < 3; ox++) {
            std::vector<ld> taps;
            for (int64_t iy = oy - 1; iy <= oy + 1; iy++) {
                for (int64_t ix = ox - 1; ix <= ox + 1; ix++) {
                    if (iy >= 0 && iy < 3 && ix >= 0 && ix < 3) taps.push_back(x.at(iy * 3 + ix));
                }
            }
            expect_near_exact(y.at(oy * 3 + ox), exact_norm(taps, 2), DType::float64,
                              "3x3 pad 1 out[" + std::to_string(oy * 3 + ox) + "]");
        }
    }
}

// Pools `x` (float32, host) and compares every output with the exact norm of its window,
// within the contract's bound (docs/semantics.md): 8 ulps, for a general p (pow) 8 + 2L
// max(1, 1/p) with L the largest |ln| of a tap or the result. Repaired outputs are within one.
void check_float32_pool(const Array &x, const PoolParams &params, const std::string &what) {
    std::vector<int64_t> shape(x.t.shape, x.t.shape + x.t.rank), out_shape;
    std::vector<PoolAxis> axes;
    ASSERT_TRUE(pool_output_shape(shape, params, &out_shape).ok());
    ASSERT_TRUE(pool_geometry(shape, params, &axes).ok());
    Array y = make_array(DType::float32, out_shape);
    const Status s = pool(x.t, y.t, params);
    ASSERT_TRUE(s.ok()) << s.message();
    int bad = 0;
    for (int64_t j = 0; j < y.storage_elements && bad < 3; j++) {
        std::vector<int64_t> o(out_shape.size());
        int64_t rest = j;
        for (size_t a = out_shape.size(); a-- > 0;) {
            o[a] = rest % out_shape[a];
            rest /= out_shape[a];
        }
        std::vector<ld> taps;
        std::vector<int64_t> t(axes.size(), 0);
        for (;;) {
            std::vector<int64_t> at = {o[0], o[1]};
            bool inside = true;
            for (size_t d = 0; d < axes.size(); d++) {
                const int64_t i = o[d + 2] * axes[d].stride - axes[d].pad_begin + t[d];
                inside = inside && i >= 0 && i < axes[d].input;
                at.push_back(i);
            }
            if (inside) taps.push_back(x.get(at));
            size_t d = axes.size();
            while (d-- > 0 && ++t[d] == axes[d].kernel) t[d] = 0;
            if (d == size_t(-1)) break;
        }
        const ld want = exact_norm(taps, params.p), got = y.at(j);
        ld ulps = 8;
        if (params.p != 1 && params.p != 2 && params.p != 3 && params.p != 4) {
            ld log_range = want > 0 ? std::fabs(std::log(want)) : 0;
            for (ld v : taps) {
                if (v != 0) log_range = std::max(log_range, std::fabs(std::log(std::fabs(v))));
            }
            ulps += 2 * log_range * std::max<ld>(1, 1 / params.p);
        }
        const ld tolerance = want == 0 ? 0 : ulps * ulp(DType::float32, want);
        if (!(std::fabs(got - want) <= tolerance)) {
            ADD_FAILURE() << what << ": out[" << j << "] = " << double(got) << ", exact "
                          << double(want);
            bad++;
        }
    }
}

// Fills `x` with values of `scale` times [0.5, 2) of both signs, a fifth of them 0.
void fill_scaled(Array *x, ld scale, uint64_t seed) {
    for (int64_t i = 0; i < x->storage_elements; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const ld u = ld(seed >> 11) / ld(uint64_t(1) << 53);
        const ld v = (0.5L + 1.5L * u) * scale * ((seed >> 7) & 1 ? -1 : 1);
        x->set_at(i, (seed >> 9) % 5 == 0 ? 0 : v);
    }
}

struct PoolShape {
    const char *layout;
    std::vector<int64_t> shape, kernel, strides, pads;
};

const PoolShape kThreaded = {"2-D threaded", {4, 32, 56, 56}, {3, 3}, {2, 2}, {1, 1, 1, 1}};

// One shape per float32 kernel layout: 1-D (unrolled stride 2 and the stored row), 2-D rows
// and channel blocks, 3-D, and (natively: its reference takes minutes under emulation) a 2-D
// shape large enough for every thread to take planes.
std::vector<PoolShape> float32_layouts() {
    std::vector<PoolShape> shapes = {{"1-D k4 s2", {2, 3, 40}, {4}, {2}, {}},
                                     {"1-D k3 pad 1", {2, 3, 40}, {3}, {1}, {1, 1}},
                                     {"2-D rows", {1, 2, 40, 40}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
                                     {"2-D channel blocks", {2, 16, 14, 14}, {2, 2}, {2, 2}, {}},
                                     {"3-D", {1, 2, 6, 7, 8}, {2, 2, 2}, {1, 1, 1}, {}}};
    if (!running_emulated()) shapes.push_back(kThreaded);
    return shapes;
}

PoolParams params_of(const PoolShape &c, double p) {
    PoolParams params;
    params.kernel = c.kernel;
    params.strides = c.strides;
    params.pads = c.pads;
    params.p = p;
    return params;
}

// float32 sums in float32: powers of 1e+-25 leave its range although the norms fit (inf, or
// 0 and lost bits). The kernels' overflow and underflow flags send
// such calls through the scan, on every layout and on worker threads; the repaired outputs
// are the exact norms rounded once.
TEST(RangeRepair, PoolingFloat32) {
    for (const PoolShape &c : float32_layouts()) {
        for (double p : {2.0, 3.0, 4.0, 7.0, 2.5}) {
            for (ld scale : {1e25L, 1e-25L}) {
                Array x = make_array(DType::float32, c.shape);
                fill_scaled(&x, scale, 7);
                if (c.layout == kThreaded.layout) {
                    // Ordinary values except in the last image, which a worker thread takes.
                    const int64_t image = x.storage_elements / c.shape[0];
                    for (int64_t i = 0; i < x.storage_elements - image; i++) {
                        x.set_at(i, x.at(i) / scale);
                    }
                }
                check_float32_pool(x, params_of(c, p),
                                   std::string(c.layout) + " p = " + std::to_string(p) + " scale " +
                                       std::to_string(double(scale)));
                EXPECT_TRUE(testing::last_pool_scanned()) << c.layout << " p = " << p;
            }
        }
    }
}

// Ordinary values (with zeros and whole windows of zeros) raise neither flag: the kernels
// compute no product that leaves the range where the result does not (the cube root of 0,
// the unused squares of integer powers), and the output is not scanned. That includes p = 3
// on the threaded row kernel, whose lanes past the output take the cube root of uninitialised
// storage: any bits, which the root takes without a flag (float_math.h).
TEST(RangeRepair, PoolingFloat32OrdinaryDataIsNotScanned) {
    for (const PoolShape &c : float32_layouts()) {
        for (double p : {1.0, 2.0, 3.0, 4.0, 5.0, 7.0}) {
            Array x = make_array(DType::float32, c.shape);
            fill_scaled(&x, 1, 11);
            for (int64_t i = 0; i < x.storage_elements / 3; i++) x.set_at(i, 0);
            check_float32_pool(x, params_of(c, p),
                               std::string(c.layout) + " p = " + std::to_string(p));
            EXPECT_FALSE(testing::last_pool_scanned()) << c.layout << " p = " << p;
        }
    }
}

// The caller's own floating-point flags are left as they were: set ones stay set, clear ones
// stay clear, whatever the kernels raised.
TEST(RangeRepair, CallersFloatingPointFlagsAreKept) {
    const PoolShape c = float32_layouts()[2];
    Array x = make_array(DType::float32, c.shape);
    fill_scaled(&x, 1e25L, 3);
    Array y = make_array(DType::float32, {1, 2, 40, 40});
    std::feclearexcept(FE_ALL_EXCEPT);
    ASSERT_TRUE(pool(x.t, y.t, params_of(c, 2)).ok());
    EXPECT_TRUE(testing::last_pool_scanned());
    EXPECT_EQ(std::fetestexcept(FE_OVERFLOW | FE_UNDERFLOW), 0);
    fill_scaled(&x, 1, 3);
    std::feraiseexcept(FE_UNDERFLOW);
    ASSERT_TRUE(pool(x.t, y.t, params_of(c, 2)).ok());
    EXPECT_FALSE(testing::last_pool_scanned());
    EXPECT_NE(std::fetestexcept(FE_UNDERFLOW), 0);
    std::feclearexcept(FE_ALL_EXCEPT);
}

// An engine's parallel_for runs the tasks on its own threads: their flags reach the call too.
void two_thread_parallel_for(void *, int count, void (*task)(void *, int), void *context) {
    std::thread helper([&] {
        for (int i = 1; i < count; i += 2) task(context, i);
    });
    for (int i = 0; i < count; i += 2) task(context, i);
    helper.join();
}

TEST(RangeRepair, PoolingFloat32OnAnEnginesThreads) {
    if (running_emulated()) GTEST_SKIP() << "the reference takes minutes under emulation";
    const PoolShape &c = kThreaded;
    Array x = make_array(DType::float32, c.shape);
    fill_scaled(&x, 1, 5);
    // One huge plane in the last image: a task of the helper thread or of the caller.
    const int64_t plane = c.shape[2] * c.shape[3];
    for (int64_t i = x.storage_elements - plane; i < x.storage_elements; i++) {
        x.set_at(i, x.at(i) * 1e25L);
    }
    set_parallel_for(two_thread_parallel_for, nullptr);
    check_float32_pool(x, params_of(c, 2), "engine threads");
    const bool scanned = testing::last_pool_scanned();
    set_parallel_for(nullptr, nullptr);
    EXPECT_TRUE(scanned);
}

TEST(RangeRepair, WindowsWhollyInThePaddingReadNothing) {
    // Dilation 2 and 3 padded columns: the last window's taps (4 and 6) both lie past the
    // 4-element input, so its sum is empty and 0 is exact. Zero is below the underflow bound of
    // float64 squares, so the repair visits it and must find no tap; the storage past the view
    // holds huge values that a stray read would turn into a non-zero result.
    std::vector<double> storage = {1e-200, 2e-200, 3e-200, 4e-200, 1e300, 1e300, 1e300, 1e300};
    const int64_t shape[] = {1, 1, 4};
    const Tensor x = Tensor::contiguous(storage.data(), DType::float64, shape, 3);
    PoolParams params;
    params.kernel = {2};
    params.dilations = {2};
    params.pads = {0, 3};
    params.p = 2;
    std::vector<int64_t> out_shape;
    ASSERT_TRUE(pool_output_shape({1, 1, 4}, params, &out_shape).ok());
    ASSERT_EQ(out_shape, (std::vector<int64_t>{1, 1, 5}));
    Array y = make_array(DType::float64, out_shape);
    ASSERT_TRUE(pool(x, y.t, params).ok());
    const std::vector<std::vector<ld>> taps = {
        {1e-200L, 3e-200L}, {2e-200L, 4e-200L}, {3e-200L}, {4e-200L}};
    for (size_t o = 0; o < taps.size(); o++) {
        expect_near_exact(y.at(int64_t(o)), exact_norm(taps[o], 2), DType::float64,
                          "out[" + std::to_string(o) + "]");
    }
    EXPECT_EQ(y.at(4), 0);
}

TEST(RangeRepair, PoolingSignedMode) {
    // 3e20^3 - 1e20^3 = 2.6e61: each cube overflows float32 (inf - inf), the result does not.
    const std::vector<ld> w = {3e20L, -1e20L};
    expect_near_exact(pool_one(DType::float32, w, 3, PoolMode::signed_pow), exact_norm(w, 3, true),
                      DType::float32, "signed p = 3");
    // p = 1 keeps the sign of the sum and has no power to overflow.
    EXPECT_EQ(pool_one(DType::float32, {-3e38L, -3e38L}, 1, PoolMode::signed_pow),
              -std::numeric_limits<ld>::infinity());
    // ... but its float64 partial sums can: 1.7e308 + 1e308 overflows, the window's sum
    // 1.1e308 does not (float32 inputs sum these in float64 and never overflow).
    const std::vector<ld> big = {1.7e308L, 1e308L, -1.6e308L};
    expect_near_exact(pool_one(DType::float64, big, 1, PoolMode::signed_pow),
                      exact_norm(big, 1, true), DType::float64, "float64 signed p = 1");
    const std::vector<ld> negative = {-1.7e308L, -1e308L, 1.6e308L};
    expect_near_exact(pool_one(DType::float64, negative, 1, PoolMode::signed_pow),
                      exact_norm(negative, 1, true), DType::float64, "float64 signed p = 1, < 0");
}

// Terms of subnormal |x| with p < 1 raise no range flag (their powers are larger than x), so
// the kernel's own power must be right there: Halide's float32 pow is not on subnormals
// (pow(1e-40, 0.5) gave 7.7e-20; these windows came out at 5.9e-39 for 1e-40, 3.0e-36 for
// 2.77e-36). The bound is the general kind's (docs/semantics.md): the term's 4u, which the
// root multiplies by 1/p, and the root's (3 + 2 ln 2 |log2 S / p|) u, u = 2^-24, then half an
// ulp of the output dtype (at least its smallest subnormal's).
TEST(RangeRepair, PoolingGeneralPOfSubnormals) {
    for (DType d : {DType::float32, DType::bfloat16}) {
        const ld smallest = d == DType::float32 ? std::ldexp(1.0L, -149) : std::ldexp(1.0L, -133);
        for (double p : {0.5, 0.25, 0.75}) {
            for (const std::vector<ld> &w : std::vector<std::vector<ld>>{
                     {1e-40L}, {1e-39L, 1e-40L}, {2.7655601e-36L, 4.2e-45L}, {1e-20L, 3e-44L}}) {
                const Array x = make_from(d, {int64_t(w.size())}, w);
                std::vector<ld> v;
                for (size_t i = 0; i < w.size(); i++) v.push_back(x.at(int64_t(i)));
                const ld want = exact_norm(v, p);
                if (want == 0) continue;  // every value rounded to 0 in this dtype
                const ld sum = std::pow(want, ld(p));
                const ld bound_u = 4 / p + 3 + 2 * std::log(2.0L) * std::fabs(std::log2(sum) / p);
                const ld tolerance =
                    want * bound_u * std::ldexp(1.0L, -24) + std::max(ulp(d, want), smallest) / 2;
                const ld got = pool_one(d, v, p);
                EXPECT_LE(std::fabs(got - want), tolerance)
                    << dtype_name(d) << " p = " << p << " window of " << w.size() << ": got "
                    << double(got) << ", exact " << double(want);
            }
        }
    }
}

TEST(RangeRepair, SignedCancellationSumsInFloat64) {
    // 1000^3 - 999.9^3 + 0.1^3: float32 sums of cubes near 1e9 carry errors of ~64, the
    // difference is ~3e5; summed in float64 (odd p, signed mode) the result is within one
    // float32 rounding of the exact one. float16 and bfloat16 take the same path.
    for (DType d : {DType::float32, DType::bfloat16, DType::float16}) {
        const Array x = make_from(d, {1, 1, 3}, {1000, -999.9L, 0.1L});
        std::vector<ld> rounded = {x.at(0), x.at(1), x.at(2)};
        const ld exact = exact_norm(rounded, 3, true);
        if (exact <= 0) continue;  // float16/bfloat16 may round -999.9 to -1000: NaN (negative)
        expect_near_exact(pool_one(d, rounded, 3, PoolMode::signed_pow), exact, d,
                          std::string(dtype_name(d)) + " signed p = 3");
    }
    // p = 1, a plain signed sum: 2^24 + 1 - 2^24 is 0 when added in float32 in this order.
    const std::vector<ld> w = {16777216, 1, -16777216};
    EXPECT_EQ(pool_one(DType::float32, w, 1, PoolMode::signed_pow), 1);
}

TEST(RangeRepair, LegitimateSpecialsStay) {
    const ld inf = std::numeric_limits<ld>::infinity();
    // An infinite tap, a NaN tap and an all-zero window are the kernels' own exact results.
    EXPECT_EQ(pool_one(DType::float64, {1e200L, inf}, 2), inf);
    EXPECT_TRUE(std::isnan(pool_one(DType::float64, {1e200L, std::nanl("")}, 2)));
    EXPECT_EQ(pool_one(DType::float64, {0, 0}, 2), 0);
    // A norm beyond the largest double is +inf.
    EXPECT_EQ(pool_one(DType::float64, {1.7e308L, 1.7e308L}, 2), inf);
    // IEEE pow in the signed mode: (-inf)^3 + 1 = -inf, and (-inf)^(1/3) = +inf; (-inf)^2.5 =
    // +inf; PyTorch takes x^0.5 as sqrt(x): NaN for -inf.
    EXPECT_EQ(pool_one(DType::float32, {-inf, 1}, 3, PoolMode::signed_pow), inf);
    EXPECT_EQ(pool_one(DType::float32, {-inf, 1}, 2.5, PoolMode::signed_pow), inf);
    EXPECT_TRUE(std::isnan(pool_one(DType::float32, {-inf, 1}, 0.5, PoolMode::signed_pow)));
    EXPECT_TRUE(std::isnan(pool_one(DType::float64, {-inf, 0}, 0.5, PoolMode::signed_pow)));
}

}  // namespace
}  // namespace lpnorm::test
