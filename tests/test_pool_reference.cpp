// The pooling reference itself, on cases computed by hand (no library kernels involved).
#include <cmath>
#include <limits>

#include "reference/pool_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

using ld = long double;
const ld kInf = std::numeric_limits<ld>::infinity();
const ld kNaN = std::numeric_limits<ld>::quiet_NaN();

PoolParams pool_params(std::vector<int64_t> kernel, double p, std::vector<int64_t> strides = {},
                       std::vector<int64_t> pads = {}, std::vector<int64_t> dilations = {}) {
    PoolParams r;
    r.kernel = std::move(kernel);
    r.p = p;
    r.strides = std::move(strides);
    r.pads = std::move(pads);
    r.dilations = std::move(dilations);
    return r;
}

// 1, 2, ..., count.
std::vector<ld> iota(int count) {
    std::vector<ld> v;
    for (int i = 1; i <= count; ++i) v.push_back(i);
    return v;
}

ref::Result run(const Array &x, const PoolParams &p) {
    const ref::Result r = ref::pool(x.t, p);
    EXPECT_TRUE(r.ok) << r.error;
    return r;
}

// Exact values, NaN and infinities compared as such; finite ones to long-double rounding.
void expect_values(const ref::Result &r, const std::vector<int64_t> &shape,
                   const std::vector<ld> &expected) {
    EXPECT_EQ(r.shape, shape);
    ASSERT_EQ(r.values.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const ld got = r.values[i].value, want = expected[i];
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(got)) << "out[" << i << "] = " << static_cast<double>(got);
        else if (std::isinf(want))
            EXPECT_EQ(got, want) << "out[" << i << "]";
        else
            EXPECT_LE(std::fabs(got - want), 1e-17L * std::fabs(want))
                << "out[" << i << "] = " << static_cast<double>(got) << ", expected "
                << static_cast<double>(want);
    }
}

std::vector<PoolAxis> geometry(const std::vector<int64_t> &shape, const PoolParams &p) {
    std::vector<PoolAxis> axes;
    std::string error;
    EXPECT_TRUE(ref::pool_geometry(shape, p, &axes, &error)) << error;
    return axes;
}

void expect_axis(const PoolAxis &a, int64_t output, int64_t pad_begin, int64_t pad_end) {
    EXPECT_EQ(a.output, output);
    EXPECT_EQ(a.pad_begin, pad_begin);
    EXPECT_EQ(a.pad_end, pad_end);
}

TEST(PoolReference, OneDim) {
    const Array x = make_from(DType::float32, {1, 1, 5}, iota(5));
    // Windows {1,2} {2,3} {3,4} {4,5}.
    expect_values(run(x, pool_params({2}, 1)), {1, 1, 4}, {3, 5, 7, 9});
    expect_values(run(x, pool_params({2}, 2)), {1, 1, 4},
                  {std::sqrt(5.0L), std::sqrt(13.0L), 5, std::sqrt(41.0L)});
    const ref::Result r = run(x, pool_params({2}, 2));
    EXPECT_EQ(r.values[0].n, 2);
    EXPECT_EQ(r.values[0].sum, 5);
    EXPECT_EQ(r.values[0].scale, 1);
}

TEST(PoolReference, TwoDimFourByFourStrideTwo) {
    const Array x = make_from(DType::float32, {1, 1, 4, 4}, iota(16));
    // Windows {1,2,5,6} {3,4,7,8} {9,10,13,14} {11,12,15,16}.
    expect_values(run(x, pool_params({2, 2}, 1, {2, 2})), {1, 1, 2, 2}, {14, 22, 46, 54});
    // 1+4+25+36 = 66, 9+16+49+64 = 138, 81+100+169+196 = 546, 121+144+225+256 = 746.
    expect_values(run(x, pool_params({2, 2}, 2, {2, 2})), {1, 1, 2, 2},
                  {std::sqrt(66.0L), std::sqrt(138.0L), std::sqrt(546.0L), std::sqrt(746.0L)});
}

TEST(PoolReference, ThreeByThreePadOne) {
    // out = floor((3 + 1 + 1 - 3) / 1) + 1 = 3; on ones the L1 value counts the in-bounds taps.
    const Array x = make_from(DType::float64, {1, 1, 3, 3}, std::vector<ld>(9, 1));
    const ref::Result r = run(x, pool_params({3, 3}, 1, {}, {1, 1, 1, 1}));
    expect_values(r, {1, 1, 3, 3}, {4, 6, 4, 6, 9, 6, 4, 6, 4});
    EXPECT_EQ(r.values[0].n, 4);
    EXPECT_EQ(r.values[4].n, 9);
    EXPECT_EQ(r.values[0].scale, 1);  // padded taps count as inside: nothing to rescale
    expect_values(
        run(x, pool_params({3, 3}, 2, {}, {1, 1, 1, 1})), {1, 1, 3, 3},
        {2, std::sqrt(6.0L), 2, std::sqrt(6.0L), 3, std::sqrt(6.0L), 2, std::sqrt(6.0L), 2});
}

TEST(PoolReference, DilationTwo) {
    // k_eff = (3 - 1) * 2 + 1 = 5, out = 7 - 5 + 1 = 3: taps {0,2,4} {1,3,5} {2,4,6}.
    const Array x = make_from(DType::float32, {1, 1, 7}, iota(7));
    expect_values(run(x, pool_params({3}, 1, {}, {}, {2})), {1, 1, 3}, {9, 12, 15});
}

TEST(PoolReference, ThreeDim) {
    const Array x = make_from(DType::float32, {1, 1, 2, 2, 2}, iota(8));
    expect_values(run(x, pool_params({2, 2, 2}, 1)), {1, 1, 1, 1, 1}, {36});
    expect_values(run(x, pool_params({2, 2, 2}, 2)), {1, 1, 1, 1, 1},
                  {std::sqrt(204.0L)});  // sum k^2, k <= 8
    // Window along H only: x[d][0][w] + x[d][1][w] = (4d+w+1) + (4d+w+3).
    expect_values(run(x, pool_params({1, 2, 1}, 1)), {1, 1, 2, 1, 2}, {4, 6, 12, 14});
}

TEST(PoolReference, BatchAndChannels) {
    std::vector<ld> v = iota(12);
    const Array x = make_from(DType::float32, {2, 3, 2}, v);
    expect_values(run(x, pool_params({2}, 1)), {2, 3, 1}, {3, 7, 11, 15, 19, 23});
}

TEST(PoolReference, CeilMode) {
    PoolParams p = pool_params({2}, 1, {2});
    p.ceil_mode = true;
    // in = 5: floor((5 - 2) / 2) + 1 = 2; ceil: ceil(3 / 2) + 1 = 3, and the last window starts
    // at (3 - 1) * 2 = 4 < 5 + 0, so it stays: taps {4, 5}, of which only 4 is in bounds.
    const Array x = make_from(DType::float32, {1, 1, 5}, iota(5));
    ref::Result r = run(x, p);
    expect_values(r, {1, 1, 3}, {3, 7, 5});
    EXPECT_EQ(r.values[2].n, 1);
    p.ceil_mode = false;
    expect_values(run(x, p), {1, 1, 2}, {3, 7});

    // in = 5, pads 1 + 1: padded 7; ceil: (7 - 2 + 1) / 2 + 1 = 4, but the 4th window would start
    // at 3 * 2 = 6 >= 5 + 1, in the end padding: dropped, 3 (= floor: 5 / 2 + 1).
    p = pool_params({2}, 1, {2}, {1, 1});
    p.ceil_mode = true;
    expect_axis(geometry({1, 1, 5}, p)[0], 3, 1, 1);
    // in = 4, pads 1 + 1: padded 6; ceil: (6 - 2 + 1) / 2 + 1 = 3 = floor: 4 / 2 + 1; the 3rd
    // window starts at 2 * 2 = 4 < 4 + 1, so the rule removes nothing.
    expect_axis(geometry({1, 1, 4}, p)[0], 3, 1, 1);
    // in = 4, pads 0 + 1: padded 5; ceil: (5 - 2 + 1) / 2 + 1 = 3, the 3rd window would start at
    // 2 * 2 = 4 >= 4 + 0: dropped, 2 (= floor: 3 / 2 + 1).
    p.pads = {0, 1};
    expect_axis(geometry({1, 1, 4}, p)[0], 2, 0, 1);
    // in = 6, k = 3, pads 1 + 1: padded 8; floor: 5 / 2 + 1 = 3; ceil: (8 - 3 + 1) / 2 + 1 = 4,
    // the 4th window starts at 3 * 2 = 6 < 6 + 1 and stays.
    p = pool_params({3}, 1, {2}, {1, 1});
    p.ceil_mode = true;
    expect_axis(geometry({1, 1, 6}, p)[0], 4, 1, 1);
}

TEST(PoolReference, OverhangRescale) {
    // in = 5, k = 2, s = 2, ceil: the last window has taps {4, 5}; 5 lies past input + pads
    // (5 + 0), so n = 1 and K / n = 2.
    PoolParams p = pool_params({2}, 1, {2});
    p.ceil_mode = true;
    const Array x = make_from(DType::float32, {1, 1, 5}, iota(5));
    p.overhang = Overhang::rescale;
    ref::Result r = run(x, p);
    expect_values(r, {1, 1, 3}, {3, 7, 10});
    EXPECT_EQ(r.values[2].scale, 2);
    EXPECT_EQ(r.values[2].n, 1);
    p.p = 2;
    expect_values(run(x, p), {1, 1, 3}, {std::sqrt(5.0L), 5, std::sqrt(50.0L)});  // 25 * 2

    // in = 6, k = 3, s = 2, pads 1 + 1, ceil: 4 windows with taps {-1,0,1} {1,2,3} {3,4,5}
    // {5,6,7}. The first overhangs the input but lies inside the pads: n = 3 = K, no rescale
    // (count_include_pad). The last has taps 5, 6 inside input + pads (< 6 + 1): K / n = 3 / 2.
    const Array y = make_from(DType::float32, {1, 1, 6}, iota(6));
    p = pool_params({3}, 1, {2}, {1, 1});
    p.ceil_mode = true;
    expect_values(run(y, p), {1, 1, 4}, {3, 9, 15, 6});
    p.overhang = Overhang::rescale;
    r = run(y, p);
    expect_values(r, {1, 1, 4}, {3, 9, 15, 9});
    EXPECT_EQ(r.values[0].scale, 1);
    EXPECT_EQ(r.values[3].scale, 1.5L);
}

TEST(PoolReference, SameUpperAndLower) {
    const Array x = make_from(DType::float32, {1, 1, 4}, iota(4));
    PoolParams p = pool_params({2}, 1);
    // in = 4, s = 1: out = 4, total = (4 - 1) * 1 + 2 - 4 = 1, odd.
    p.auto_pad = AutoPad::same_upper;  // extra pixel at the end: pads 0 + 1
    expect_axis(geometry({1, 1, 4}, p)[0], 4, 0, 1);
    expect_values(run(x, p), {1, 1, 4}, {3, 5, 7, 4});
    p.auto_pad = AutoPad::same_lower;  // at the start: pads 1 + 0
    expect_axis(geometry({1, 1, 4}, p)[0], 4, 1, 0);
    expect_values(run(x, p), {1, 1, 4}, {1, 3, 5, 7});
    // ceil_mode and explicit pads have no effect under SAME.
    p.ceil_mode = true;
    p.pads = {3, 3};
    expect_values(run(x, p), {1, 1, 4}, {1, 3, 5, 7});

    // in = 4, k = 3, s = 2: out = 2, total = 1 * 2 + 3 - 4 = 1.
    p = pool_params({3}, 1, {2});
    p.auto_pad = AutoPad::same_upper;
    expect_axis(geometry({1, 1, 4}, p)[0], 2, 0, 1);
    p.auto_pad = AutoPad::same_lower;
    expect_axis(geometry({1, 1, 4}, p)[0], 2, 1, 0);
    // Dilated: k = 2, d = 2, k_eff = 3, in = 5, s = 1: out = 5, total = 4 + 3 - 5 = 2, even.
    p = pool_params({2}, 1, {}, {}, {2});
    p.auto_pad = AutoPad::same_lower;
    expect_axis(geometry({1, 1, 5}, p)[0], 5, 1, 1);
    // k = 1, s = 3, in = 5: out = 2, total = max(0, 1 * 3 + 1 - 5) = 0.
    p = pool_params({1}, 1, {3});
    p.auto_pad = AutoPad::same_upper;
    expect_axis(geometry({1, 1, 5}, p)[0], 2, 0, 0);
}

TEST(PoolReference, Valid) {
    // Pads ignored: out = floor((5 - 2) / 2) + 1 = 2; with ceil_mode ceil(3 / 2) + 1 = 3 (the 3rd
    // window starts at 4 < 5).
    PoolParams p = pool_params({2}, 1, {2}, {1, 1});
    p.auto_pad = AutoPad::valid;
    expect_axis(geometry({1, 1, 5}, p)[0], 2, 0, 0);
    p.ceil_mode = true;
    expect_axis(geometry({1, 1, 5}, p)[0], 3, 0, 0);
}

TEST(PoolReference, OnnxBackendCases) {
    // Shapes of the ONNX LpPool backend tests (random inputs there).
    std::string error;
    EXPECT_EQ(ref::pool_output_shape_ref({1, 3, 32}, pool_params({2}, 3, {1}), &error),
              (std::vector<int64_t>{1, 3, 31}));
    EXPECT_EQ(ref::pool_output_shape_ref({1, 3, 32, 32}, pool_params({2, 2}, 4), &error),
              (std::vector<int64_t>{1, 3, 31, 31}));
    EXPECT_EQ(ref::pool_output_shape_ref({1, 3, 32, 32, 32}, pool_params({2, 2, 2}, 3), &error),
              (std::vector<int64_t>{1, 3, 31, 31, 31}));
    EXPECT_EQ(ref::pool_output_shape_ref({1, 3, 28, 28}, pool_params({3, 3}, 3, {}, {2, 2, 2, 2}),
                                         &error),
              (std::vector<int64_t>{1, 3, 30, 30}));
    EXPECT_EQ(ref::pool_output_shape_ref({1, 3, 32, 32}, pool_params({5, 5}, 2, {3, 3}), &error),
              (std::vector<int64_t>{1, 3, 10, 10}));
    PoolParams same = pool_params({2, 2}, 2);
    same.auto_pad = AutoPad::same_upper;  // pads [0, 0, 1, 1]
    std::vector<PoolAxis> axes = geometry({1, 3, 32, 32}, same);
    expect_axis(axes[0], 32, 0, 1);
    expect_axis(axes[1], 32, 0, 1);
    same.auto_pad = AutoPad::same_lower;  // pads [1, 1, 0, 0]
    axes = geometry({1, 3, 32, 32}, same);
    expect_axis(axes[0], 32, 1, 0);
    expect_axis(axes[1], 32, 1, 0);

    // test_lppool_2d_dilations: the only one with numbers. Taps (0,0) (0,2) (2,0) (2,2) of the
    // first window: 1 + 9 + 81 + 121 = 212.
    const Array x = make_from(DType::float32, {1, 1, 4, 4}, iota(16));
    const ref::Result r = run(x, pool_params({2, 2}, 2, {1, 1}, {}, {2, 2}));
    expect_values(r, {1, 1, 2, 2},
                  {std::sqrt(212.0L), std::sqrt(264.0L), std::sqrt(468.0L), std::sqrt(552.0L)});
    const std::vector<double> onnx = {14.560219778561036, 16.24807680927192, 21.633307652783937,
                                      23.49468024894146};
    for (size_t i = 0; i < onnx.size(); ++i)
        EXPECT_DOUBLE_EQ(static_cast<double>(r.values[i].value), onnx[i]);
}

TEST(PoolReference, SignedMode) {
    PoolParams p = pool_params({3}, 3);
    const Array a = make_from(DType::float32, {1, 1, 3}, {1, -2, 3});
    expect_values(run(a, p), {1, 1, 1}, {std::cbrt(36.0L)});  // abs: 1 + 8 + 27
    p.mode = PoolMode::signed_pow;
    expect_values(run(a, p), {1, 1, 1}, {std::cbrt(20.0L)});  // 1 - 8 + 27

    const Array b = make_from(DType::float32, {1, 1, 3}, {-1, 2, -3});
    ref::Result r = run(b, p);  // -1 + 8 - 27 = -20 < 0: NaN for p != 1
    expect_values(r, {1, 1, 1}, {kNaN});
    EXPECT_EQ(r.values[0].sum, -20);
    EXPECT_EQ(r.values[0].abs_sum, 36);
    p.p = 1;
    expect_values(run(b, p), {1, 1, 1}, {-2});  // the signed sum
    p.p = 2;
    expect_values(run(b, p), {1, 1, 1}, {std::sqrt(14.0L)});  // even p: as abs
    p.p = 2.5;
    expect_values(run(b, p), {1, 1, 1}, {kNaN});  // fractional p on a negative tap

    // A fractional power of a negative finite tap, and the cube root of a negative sum: NaN.
    const Array n = make_from(DType::float32, {1, 1, 3}, {-1, 0, 0});
    p.p = 1.0 / 3;  // the term (-1)^(1/3) is NaN (fractional exponent)
    expect_values(run(n, p), {1, 1, 1}, {kNaN});
    p.p = 3;
    const Array m = make_from(DType::float32, {1, 1, 3}, {-2, 1, 0});
    expect_values(run(m, p), {1, 1, 1}, {kNaN});  // -7: cube root of a negative sum
    p.p = 2.5;

    // -0 is not negative: (-0)^2.5 = 0, the window gives (1 + 32)^(1/2.5).
    const Array c = make_from(DType::float32, {1, 1, 3}, {-0.0L, 1, 4});
    expect_values(run(c, p), {1, 1, 1}, {std::pow(33.0L, 1 / 2.5L)});
}

TEST(PoolReference, NaNAndInf) {
    PoolParams p = pool_params({2}, 2);
    const Array a = make_from(DType::float32, {1, 1, 4}, {1, kNaN, 2, 3});
    expect_values(run(a, p), {1, 1, 3}, {kNaN, kNaN, std::sqrt(13.0L)});
    const Array b = make_from(DType::float32, {1, 1, 3}, {1, kInf, 2});
    expect_values(run(b, p), {1, 1, 2}, {kInf, kInf});
    const Array c = make_from(DType::float32, {1, 1, 2}, {-kInf, kNaN});
    expect_values(run(c, p), {1, 1, 1}, {kNaN});

    p.mode = PoolMode::signed_pow;
    const Array d = make_from(DType::float32, {1, 1, 3}, {kInf, -kInf, 1});
    p.p = 1;
    expect_values(run(d, p), {1, 1, 2}, {kNaN, -kInf});  // inf - inf; then -inf + 1
    p.p = 3;
    // inf - inf; then (-inf)^3 + 1 = -inf, whose 1/3 power is +inf (IEEE pow, as PyTorch)
    expect_values(run(d, p), {1, 1, 2}, {kNaN, kInf});
    p.p = 2.5;  // (-inf)^2.5 = +inf: the taps give +inf + inf
    expect_values(run(d, p), {1, 1, 2}, {kInf, kInf});
    p.p = 2;
    expect_values(run(d, p), {1, 1, 2}, {kInf, kInf});

    // Rescaled overhang of an infinite sum stays infinite.
    p = pool_params({2}, 2, {2});
    p.ceil_mode = true;
    p.overhang = Overhang::rescale;
    const Array e = make_from(DType::float32, {1, 1, 3}, {1, 2, kInf});
    expect_values(run(e, p), {1, 1, 2}, {std::sqrt(5.0L), kInf});
}

TEST(PoolReference, WindowsWithoutInputTaps) {
    // in = 1, pads 0 + 2, k = 1: out = 3; windows 1 and 2 lie in the padding and give 0.
    const Array x = make_from(DType::float32, {1, 1, 1}, {5});
    const ref::Result r = run(x, pool_params({1}, 2, {}, {0, 2}));
    expect_values(r, {1, 1, 3}, {5, 0, 0});
    EXPECT_EQ(r.values[1].n, 0);
    // An empty spatial dim that the pads make room for: in = 0, pads 1 + 1, k = 2 -> 1 window.
    const Array e = make_array(DType::float32, {1, 2, 0});
    expect_values(run(e, pool_params({2}, 2, {}, {1, 1})), {1, 2, 1}, {0, 0});
}

TEST(PoolReference, EmptyBatchOrChannels) {
    const Array n0 = make_array(DType::float32, {0, 3, 4});
    expect_values(run(n0, pool_params({2}, 2)), {0, 3, 3}, {});
    const Array c0 = make_array(DType::float32, {2, 0, 4, 4});
    expect_values(run(c0, pool_params({2, 2}, 2)), {2, 0, 3, 3}, {});
}

TEST(PoolReference, HalfPrecisionInputs) {
    // Values are read as stored: 0.1 rounds to 0.0999755859375 in float16.
    const Array h = make_from(DType::float16, {1, 1, 2}, {0.1L, 3});
    const ld stored = ref::half_value(ref::half_bits(0.1L));
    expect_values(run(h, pool_params({2}, 1)), {1, 1, 1}, {stored + 3});
    const Array b = make_from(DType::bfloat16, {1, 1, 2}, {3, 4});
    expect_values(run(b, pool_params({2}, 2)), {1, 1, 1}, {5});
}

TEST(PoolReference, ChannelsLastEqualsContiguous) {
    const std::vector<int64_t> shape = {2, 3, 5, 4};
    Array dense = make_array(DType::float32, shape);
    fill_random(&dense, 7);
    // NHWC storage seen as NCHW: strides (H*W*C, 1, W*C, C).
    Array nhwc = make_strided(DType::float32, shape, {60, 1, 12, 3});
    for (int64_t n = 0; n < 2; ++n)
        for (int64_t c = 0; c < 3; ++c)
            for (int64_t h = 0; h < 5; ++h)
                for (int64_t w = 0; w < 4; ++w) nhwc.set({n, c, h, w}, dense.get({n, c, h, w}));
    PoolParams p = pool_params({2, 3}, 3, {2, 1}, {1, 0, 0, 1});
    p.ceil_mode = true;
    p.overhang = Overhang::rescale;
    for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
        p.mode = mode;
        const ref::Result want = run(dense, p), got = run(nhwc, p);
        ASSERT_EQ(want.shape, got.shape);
        ASSERT_EQ(want.values.size(), got.values.size());
        for (size_t i = 0; i < want.values.size(); ++i) {
            const ld a = want.values[i].value, b = got.values[i].value;
            EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << "out[" << i << "]";
            EXPECT_EQ(want.values[i].n, got.values[i].n);
        }
    }
}

// Each bad request fails with a message naming the argument and its value.
struct BadCase {
    std::vector<int64_t> shape;
    PoolParams params;
    std::vector<std::string> fragments;
};

PoolParams with(PoolParams p, void (*edit)(PoolParams *)) {
    edit(&p);
    return p;
}

TEST(PoolReference, GeometryErrors) {
    const PoolParams k22 = pool_params({2, 2}, 2);
    const int64_t big = std::numeric_limits<int64_t>::max() / 2;
    const std::vector<BadCase> cases = {
        {{1, 1, 4}, pool_params({}, 2), {"kernel has 0 values", "1, 2 or 3"}},
        {{1, 1, 4, 4, 4, 4}, pool_params({1, 1, 1, 1}, 2), {"kernel has 4 values"}},
        {{1, 3, 5}, k22, {"input rank 3", "expected rank 4"}},
        {{1, 3, -1, 4}, k22, {"input shape[2] = -1", ">= 0"}},
        {{1, 3, 4, 4}, pool_params({2, 0}, 2), {"kernel[1] = 0 must be >= 1"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 2, {1}), {"strides has 1 values", "expected 0 or 2"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 2, {1, 0}), {"strides[1] = 0 must be >= 1"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 2, {}, {}, {1, 2, 3}), {"dilations has 3 values"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 2, {}, {}, {-1, 1}), {"dilations[0] = -1 must be >= 1"}},
        {{1, 3, 4, 4},
         pool_params({2, 2}, 2, {}, {1, 1, 1}),
         {"pads has 3 values; expected 0 or 4 (2 per spatial dim)"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 2, {}, {0, 0, -1, 0}), {"pads[2] = -1 must be >= 0"}},
        {{1, 3, 4, 4},
         with(pool_params({2, 2}, 2, {}, {1}),
              [](PoolParams *p) { p->auto_pad = AutoPad::same_upper; }),
         {"pads has 1 values"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, 0), {"p = 0"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, -1.5), {"p = -1.5"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, NAN), {"p = nan"}},
        {{1, 3, 4, 4}, pool_params({2, 2}, HUGE_VAL), {"p = inf"}},
        {{1, 3, 4, 4},
         with(k22, [](PoolParams *p) { p->auto_pad = static_cast<AutoPad>(7); }),
         {"auto_pad = 7"}},
        {{1, 3, 4, 4},
         with(k22, [](PoolParams *p) { p->mode = static_cast<PoolMode>(5); }),
         {"mode = 5"}},
        {{1, 3, 4, 4},
         with(k22, [](PoolParams *p) { p->overhang = static_cast<Overhang>(9); }),
         {"overhang = 9"}},
        // Window larger than the padded input.
        {{1, 1, 2},
         pool_params({3}, 2),
         {"input shape[2] = 2", "dilated kernel 3", "kernel[0] = 3"}},
        {{1, 1, 4},
         pool_params({2}, 2, {}, {}, {4}),
         {"input shape[2] = 4", "dilated kernel 5", "dilations[0] = 4"}},
        {{1, 1, 5, 1},
         pool_params({1, 2}, 2, {}, {0, 0, 0, 0}),
         {"input shape[3] = 1", "kernel[1] = 2"}},
        {{1, 1, 1},
         with(pool_params({2}, 2, {}, {1, 1}), [](PoolParams *p) { p->auto_pad = AutoPad::valid; }),
         {"input shape[2] = 1", "pads 0 + 0"}},
        // Empty spatial dims that no padding fills.
        {{1, 1, 0}, pool_params({1}, 2), {"input shape[2] = 0"}},
        {{1, 1, 0},
         with(pool_params({1}, 2), [](PoolParams *p) { p->auto_pad = AutoPad::same_upper; }),
         {"input shape[2] = 0", "same_upper"}},
        // in = 0, pads 0 + 2, k = 2: floor gives one window (all padding); ceil_mode drops it.
        {{1, 1, 0},
         with(pool_params({2}, 2, {}, {0, 2}), [](PoolParams *p) { p->ceil_mode = true; }),
         {"input shape[2] = 0", "ceil_mode"}},
        {{1, 1, 8},
         pool_params({big}, 2, {}, {}, {4}),
         {"kernel[0] = " + std::to_string(big), "overflows int64"}},
    };
    for (const BadCase &c : cases) {
        std::vector<PoolAxis> axes;
        std::string error;
        EXPECT_FALSE(ref::pool_geometry(c.shape, c.params, &axes, &error)) << shape_string(c.shape);
        for (const std::string &f : c.fragments)
            EXPECT_NE(error.find(f), std::string::npos)
                << "message \"" << error << "\" lacks \"" << f << "\"";
        std::string shape_error;
        EXPECT_TRUE(ref::pool_output_shape_ref(c.shape, c.params, &shape_error).empty());
        EXPECT_EQ(shape_error, error);
    }
    // The floor-mode twin of the last ceil_mode case is valid.
    expect_axis(geometry({1, 1, 0}, pool_params({2}, 2, {}, {0, 2}))[0], 1, 0, 2);

    const Array ints = make_array(DType::int8, {1, 1, 4});
    const ref::Result r = ref::pool(ints.t, pool_params({2}, 2));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("dtype int8"), std::string::npos) << r.error;
}

// ---- Tolerance -----------------------------------------------------------------------------

ref::Value single(const Array &x, const PoolParams &p) {
    const ref::Result r = run(x, p);
    EXPECT_EQ(r.values.size(), 1u);
    return r.values.empty() ? ref::Value{} : r.values[0];
}

TEST(PoolReference, ToleranceFloat32Accumulation) {
    // 3x3 ones, p = 2: sum 9 of n = 9 terms in float32, error <= 9 * ((1+u)(1+gamma_8) - 1) ~ 81u;
    // sqrt halves it (4.5u) and adds u: 3(1 +- 5.5u) = 3 +- 16.5u, u = 2^-24. One float32 ulp at 3
    // is 4u, so the range rounds to 3 -+ 4 ulps.
    const Array x = make_from(DType::float32, {1, 1, 3, 3}, std::vector<ld>(9, 1));
    const PoolParams p = pool_params({3, 3}, 2);
    const ref::Value v = single(x, p);
    const ref::PoolRange r = ref::pool_allowed_range(DType::float32, p, v);
    const ld ulp = std::ldexp(1.0L, -22);
    EXPECT_TRUE(r.range);
    EXPECT_FALSE(r.nan || r.pos_inf || r.neg_inf);
    EXPECT_EQ(r.lo, 3 - 4 * ulp);
    EXPECT_EQ(r.hi, 3 + 4 * ulp);
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, 3 + 5 * ulp));
    // float64 accumulates in float64: the same bound in 2^-53 units stays within 4 ulps there.
    const Array y = make_from(DType::float64, {1, 1, 3, 3}, std::vector<ld>(9, 1));
    const ref::PoolRange r64 = ref::pool_allowed_range(DType::float64, p, single(y, p));
    EXPECT_EQ(r64.hi, 3 + 4 * std::ldexp(1.0L, -51));
}

TEST(PoolReference, ToleranceHalfOutputsAreTight) {
    // 3^2 + 4^2 = 25 in float32, sqrt 5 exactly: float16/bfloat16 admit only 5.
    for (DType d : {DType::float16, DType::bfloat16}) {
        const Array x = make_from(d, {1, 1, 2}, {3, 4});
        PoolParams p = pool_params({2}, 2);
        const ref::PoolRange r = ref::pool_allowed_range(d, p, single(x, p));
        EXPECT_EQ(r.lo, 5);
        EXPECT_EQ(r.hi, 5);
        // Rescaled: in = 3, k = 2, s = 2, ceil: last window {x2} = 3 scaled by 2: sqrt(18).
        const Array z = make_from(d, {1, 1, 3}, {3, 4, 3});
        p = pool_params({2}, 2, {2});
        p.ceil_mode = true;
        p.overhang = Overhang::rescale;
        const ref::Value v = run(z, p).values[1];
        EXPECT_EQ(v.scale, 2);
        const ref::PoolRange rs = ref::pool_allowed_range(d, p, v);
        EXPECT_EQ(rs.lo, ref::round_to_dtype(d, std::sqrt(18.0L)));
        EXPECT_EQ(rs.hi, rs.lo);
    }
}

TEST(PoolReference, ToleranceSignedCancellation) {
    PoolParams p = pool_params({2}, 3);
    p.mode = PoolMode::signed_pow;
    // 8 - 8 = 0 exactly, but a kernel's rounded sum could fall either side of 0: NaN or a small
    // positive root are both correct.
    const Array a = make_from(DType::float32, {1, 1, 2}, {2, -2});
    ref::Value v = single(a, p);
    EXPECT_EQ(v.value, 0);
    ref::PoolRange r = ref::pool_allowed_range(DType::float32, p, v);
    EXPECT_TRUE(r.nan);
    EXPECT_TRUE(r.range);
    EXPECT_EQ(r.lo, 0);
    // sum|t| = 16, terms 2u (two products) and the sum u: D ~ 16 * 3u = 48u, cbrt(48u) ~ 0.0142.
    EXPECT_GT(r.hi, 0.0141L);
    EXPECT_LT(r.hi, 0.0143L);
    // -1 + 8 - 27 = -20, far below the error bound: NaN only.
    p = pool_params({3}, 3);
    p.mode = PoolMode::signed_pow;
    const Array b = make_from(DType::float32, {1, 1, 3}, {-1, 2, -3});
    r = ref::pool_allowed_range(DType::float32, p, single(b, p));
    EXPECT_TRUE(r.nan);
    EXPECT_FALSE(r.range);
    // 1 - 8 + 27 = 20: the error bound scales with 36, not 20, but is still far from 0.
    const Array c = make_from(DType::float32, {1, 1, 3}, {1, -2, 3});
    v = single(c, p);
    r = ref::pool_allowed_range(DType::float32, p, v);
    EXPECT_FALSE(r.nan);
    EXPECT_TRUE(ref::pool_matches(DType::float32, p, v,
                                  ref::round_to_dtype(DType::float32, std::cbrt(20.0L))));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, std::cbrt(20.0L) * (1 + 1e-5L)));
    // p = 1 keeps the sign: -2, within a few ulps.
    p.p = 1;
    v = single(b, p);
    EXPECT_TRUE(ref::pool_matches(DType::float32, p, v, -2));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, kNaN));
}

TEST(PoolReference, ToleranceSpecialValues) {
    PoolParams p = pool_params({2}, 2);
    const Array n = make_from(DType::float32, {1, 1, 2}, {1, kNaN});
    ref::Value v = single(n, p);
    EXPECT_TRUE(ref::pool_matches(DType::float32, p, v, kNaN));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, 1));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, kInf));

    const Array i = make_from(DType::float32, {1, 1, 2}, {1, kInf});
    v = single(i, p);
    EXPECT_TRUE(ref::pool_matches(DType::float32, p, v, kInf));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, std::numeric_limits<float>::max()));
    EXPECT_FALSE(ref::pool_matches(DType::float32, p, v, kNaN));
}

TEST(PoolReference, ToleranceOverflowAndUnderflow) {
    // 1e30^2 overflows a float32 accumulator. lpnorm repairs such outputs for float64, float16
    // and bfloat16 inputs (and signed odd p, summed in float64): only the true value is
    // correct there. float32 sums in float32 are repaired on the CPU only, and the reference
    // also judges the GPU backends: inf is allowed besides it.
    PoolParams p = pool_params({2}, 2);
    const Array big = make_from(DType::float32, {1, 1, 2}, {1e30L, 1e30L});
    ref::Value v = single(big, p);
    ref::PoolRange r = ref::pool_allowed_range(DType::float32, p, v);
    EXPECT_TRUE(r.pos_inf);
    EXPECT_FALSE(r.nan);
    EXPECT_TRUE(
        ref::pool_matches(DType::float32, p, v, ref::round_to_dtype(DType::float32, v.value)));
    const Array big16 = make_from(DType::bfloat16, {1, 1, 2}, {1e30L, 1e30L});
    v = single(big16, p);
    EXPECT_FALSE(ref::pool_matches(DType::bfloat16, p, v, kInf));
    EXPECT_TRUE(
        ref::pool_matches(DType::bfloat16, p, v, ref::round_to_dtype(DType::bfloat16, v.value)));
    const Array big64 = make_from(DType::float64, {1, 1, 2}, {1e200L, 1e200L});
    v = single(big64, p);
    EXPECT_FALSE(ref::pool_matches(DType::float64, p, v, kInf));
    EXPECT_TRUE(
        ref::pool_matches(DType::float64, p, v, ref::round_to_dtype(DType::float64, v.value)));

    // 1e-30^2 = 1e-60 is below float32's subnormals: for float32, 0 up to the true value is
    // allowed; float64's 1e-200 is repaired, and 0 is wrong.
    const Array tiny = make_from(DType::float32, {1, 1, 2}, {1e-30L, 0});
    v = single(tiny, p);
    EXPECT_TRUE(ref::pool_matches(DType::float32, p, v, 0));
    EXPECT_TRUE(
        ref::pool_matches(DType::float32, p, v, ref::round_to_dtype(DType::float32, v.value)));
    const Array tiny64 = make_from(DType::float64, {1, 1, 2}, {1e-200L, 0});
    v = single(tiny64, p);
    EXPECT_FALSE(ref::pool_matches(DType::float64, p, v, 0));
    EXPECT_TRUE(
        ref::pool_matches(DType::float64, p, v, ref::round_to_dtype(DType::float64, v.value)));

    // Ordinary magnitudes add no absolute slack: an all-zero window admits only 0.
    const Array zeros = make_from(DType::float32, {1, 1, 2}, {0, 0});
    p.p = 0.5;
    r = ref::pool_allowed_range(DType::float32, p, single(zeros, p));
    EXPECT_EQ(r.lo, 0);
    EXPECT_EQ(r.hi, 0);
}

}  // namespace
}  // namespace lpnorm::test
