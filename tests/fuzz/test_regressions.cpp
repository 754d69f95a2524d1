// Regression tests for bugs found by the sanitizer build and the fuzz targets. Each runs in
// every build; under the sanitizers the old code also failed with a UBSan report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "canonicalize.h"
#include "lpnorm/lpnorm.h"
#include "lpnorm/lpnorm_c.h"

namespace lpnorm {
namespace {

constexpr int64_t kMax = INT64_MAX;

// Tensor::contiguous multiplied the strides of a shape past 2^63 (signed overflow); they
// saturate now, and the tensor is rejected as too large, as before.
TEST(FuzzRegressions, ContiguousStridesSaturate) {
    const int64_t big = int64_t(1) << 32;
    const Tensor t = Tensor::contiguous(nullptr, DType::float32, {big / 2, big, big});
    EXPECT_EQ(t.strides[2], 1);
    EXPECT_EQ(t.strides[1], big);
    EXPECT_EQ(t.strides[0], kMax);
    float out = 0;
    ReduceParams params;
    params.axes = {0};
    const Status s = reduce(t, Tensor::contiguous(&out, DType::float32, {big, big}), params);
    EXPECT_EQ(s.code(), ErrorCode::too_large) << s.message();
    // is_contiguous() of such a shape with a 0 in it (no elements) overflowed the same way.
    const Tensor empty = Tensor::contiguous(nullptr, DType::float32, {0, big, big, big});
    EXPECT_TRUE(empty.is_contiguous());
}

// An output with a size-0 dim outside a larger one, made by Tensor::contiguous (or the C API
// with NULL strides), was rejected as "not dense row-major".
TEST(FuzzRegressions, EmptyOutputWithInnerDimsIsDense) {
    float in = 0, out = 0;
    ReduceParams params;
    params.axes = {3};
    Status s = reduce(Tensor::contiguous(&in, DType::float32, {2, 0, 3, 4}),
                      Tensor::contiguous(&out, DType::float32, {2, 0, 3}), params);
    EXPECT_TRUE(s.ok()) << s.message();
    // numpy's strides for shape (2, 0, 3) are (3, 3, 1) elements; (0, 3, 1) describes the same
    // empty tensor.
    s = reduce(Tensor::contiguous(&in, DType::float32, {2, 0, 3, 4}),
               Tensor::strided(&out, DType::float32, {2, 0, 3}, {0, 3, 1}), params);
    EXPECT_TRUE(s.ok()) << s.message();

    PoolParams pool_params;
    pool_params.kernel = {2, 2};
    s = pool(Tensor::contiguous(&in, DType::float32, {2, 0, 4, 4}),
             Tensor::contiguous(&out, DType::float32, {2, 0, 3, 3}), pool_params);
    EXPECT_TRUE(s.ok()) << s.message();

    const int64_t in_shape[] = {2, 0, 3, 4}, out_shape[] = {2, 0, 3}, axes[] = {3};
    const lpnorm_tensor ci{&in, LPNORM_FLOAT32, 4, in_shape, nullptr};
    const lpnorm_tensor co{&out, LPNORM_FLOAT32, 3, out_shape, nullptr};
    EXPECT_EQ(lpnorm_reduce(&ci, &co, axes, 1, 2.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
        << lpnorm_last_error();
}

// Merging adjacent dims multiplied the inner dim's stride by its extent, which overflows for
// views that validation accepts (int8 [2, 2] with strides [1, 2^62] spans 2^62 + 2 bytes).
// Tested on the internal step, since running such a view would read 2^62 bytes away.
TEST(FuzzRegressions, CanonicalizeHugeStrideDoesNotOverflow) {
    char x = 0;
    const Tensor t = Tensor::strided(&x, DType::int8, {2, 2}, {1, int64_t(1) << 62});
    for (uint32_t reduced : {0u, 1u, 2u, 3u}) {
        rt::CanonicalReduce c;
        const Status s = rt::canonicalize_reduce(t, reduced, nullptr, -1, &c);
        if (!s.ok()) {
            EXPECT_EQ(s.code(), ErrorCode::too_large) << s.message();
            continue;
        }
        for (int i = 0; i < c.in_dims; i++) EXPECT_LE(c.in_extent[i], 2) << "dims merged";
    }
}

// The window-reach check added the two pads in int64 before widening (signed overflow for pads
// near 2^63, found by fuzz_pool); such pads are refused as too large.
TEST(FuzzRegressions, PoolPadsNearInt64MaxAreTooLarge) {
    PoolParams params;
    params.kernel = {1};
    params.pads = {kMax, 2};
    std::vector<int64_t> shape;
    const Status s = pool_output_shape({1, 1, 1}, params, &shape);
    EXPECT_EQ(s.code(), ErrorCode::too_large) << s.message();
}

// An input dim near 2^63 plus pads gave an output size beyond int64 that wrapped negative
// (found by fuzz_pool once the 2^31 limit on pooled dims was lifted); it is refused.
TEST(FuzzRegressions, PoolOutputBeyondInt64IsTooLarge) {
    PoolParams params;
    params.kernel = {1};
    params.pads = {4, 4};
    std::vector<int64_t> shape;
    const Status s = pool_output_shape({1, 1, kMax - 2}, params, &shape);
    EXPECT_EQ(s.code(), ErrorCode::too_large) << s.message();
    EXPECT_NE(s.message().find("outputs"), std::string::npos) << s.message();
}

// num_elements() returned its saturated INT64_MAX as soon as the product overflowed, before a
// later 0 dim (found by fuzz_reduce): the empty tensor was refused as more than 2^63 bytes.
TEST(FuzzRegressions, ZeroDimAfterAnOverflowingProductIsEmpty) {
    const int64_t big = INT32_MAX;
    uint16_t in = 0, out = 0;
    const Tensor x = Tensor::contiguous(&in, DType::uint16, {1000, big, big, 0});
    EXPECT_EQ(x.num_elements(), 0);
    ReduceParams params;
    params.axes = {1};
    const Status s = reduce(x, Tensor::contiguous(&out, DType::uint16, {1000, big, 0}), params);
    EXPECT_TRUE(s.ok()) << s.message();
}

// The pooling gradient's window sums spanned every tap's reach, which grows with the dilation:
// this call (found by fuzz_gradients) asked for 64 GiB of scratch and failed out of memory. Only
// the taps that can reach a window are kept now; PoolBackward.HugeDilations checks the values.
TEST(FuzzRegressions, PoolGradientWithHugeDilations) {
    std::vector<float> x(1 * 3 * 9 * 11, 0.5f), y(x.size()), dy(x.size(), 1.0f), dx(x.size());
    PoolParams params;
    params.kernel = {2, 3};
    params.dilations = {65536, 65536};
    params.pads = {2, 3, 1, 0};
    params.auto_pad = AutoPad::same_lower;
    params.ceil_mode = true;
    const std::vector<int64_t> shape = {1, 3, 9, 11};
    std::vector<int64_t> out_shape;
    ASSERT_TRUE(pool_output_shape(shape, params, &out_shape).ok());
    ASSERT_EQ(out_shape, shape);
    const Tensor xt = Tensor::contiguous(x.data(), DType::float32, shape);
    const Tensor yt = Tensor::contiguous(y.data(), DType::float32, shape);
    ASSERT_TRUE(pool(xt, yt, params).ok());
    const Tensor dyt = Tensor::contiguous(dy.data(), DType::float32, shape);
    const Status s =
        pool_backward(xt, yt, dyt, Tensor::contiguous(dx.data(), DType::float32, shape), params);
    EXPECT_TRUE(s.ok()) << s.message();
}

// The window of both huge-dilation inputs below, over [1, 3, 9, 11]: kernel {1, 3} with
// dilations {2^63 - 1, 10} under auto_pad SAME_LOWER, 11 outputs along the last dim.
const std::vector<int64_t> kHugeDilationShape = {1, 3, 9, 11};
PoolParams huge_dilation_of_one_tap(std::vector<PoolAxis> *axes) {
    PoolParams params;
    params.kernel = {1, 3};
    params.dilations = {INT64_MAX, 10};
    params.auto_pad = AutoPad::same_lower;
    EXPECT_TRUE(pool_geometry(kHugeDilationShape, params, axes).ok());
    EXPECT_EQ(axes->at(1).output, 11);
    return params;
}

// fuzz_pool (regressions/fuzz_pool/pool_range_huge_dilation): a float32 pooling whose squares
// overflow, so the range repair rescans it, with a dilation of 2^63 - 1 along a dim of kernel
// 1. The repair multiplied that dilation by the input stride (signed overflow, UBSan) although
// a single tap takes no step.
TEST(FuzzRegressions, PoolRangeRepairWithHugeDilation) {
    const std::vector<int64_t> &shape = kHugeDilationShape;
    std::vector<float> x(1 * 3 * 9 * 11, 1e30f), y(x.size(), -1.0f);
    std::vector<PoolAxis> axes;
    const PoolParams params = huge_dilation_of_one_tap(&axes);
    const Status s = pool(Tensor::contiguous(x.data(), DType::float32, shape),
                          Tensor::contiguous(y.data(), DType::float32, shape), params);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int64_t w = 0; w < 11; w++) {
        int taps = 0;  // the window's taps inside the row along the last dim
        for (int64_t t = 0; t < 3; t++) {
            const int64_t at = w - axes[1].pad_begin + t * 10;
            taps += at >= 0 && at < 11 ? 1 : 0;
        }
        const float want = taps == 0 ? 0.0f : float(1e30 * std::sqrt(double(taps)));
        for (int64_t row = 0; row < 3 * 9; row++) {
            EXPECT_NEAR(y[size_t(row * 11 + w)], want, 4e-7 * want) << "w = " << w;
        }
    }
}

// fuzz_pool found negative outputs of p = 1 with Overhang::rescale and a dilation of 2^63 - 1
// along a dim of kernel 1: the kernels take dilations in 32 bits, where it arrived as -1, so
// the count of taps inside input and pads, n in K / n, went negative. A one-tap window's
// dilation is now 1 (pool_geometry.cpp).
TEST(FuzzRegressions, PoolRescaleWithHugeDilationOfOneTap) {
    const std::vector<int64_t> &shape = kHugeDilationShape;
    std::vector<float> x(1 * 3 * 9 * 11, 2.0f), y(x.size(), -1.0f);
    std::vector<PoolAxis> axes;
    PoolParams params = huge_dilation_of_one_tap(&axes);
    params.p = 1;
    params.overhang = Overhang::rescale;
    const Status s = pool(Tensor::contiguous(x.data(), DType::float32, shape),
                          Tensor::contiguous(y.data(), DType::float32, shape), params);
    ASSERT_TRUE(s.ok()) << s.message();
    const int64_t padded = 11 + axes[1].pad_begin + axes[1].pad_end;
    for (int64_t w = 0; w < 11; w++) {
        int inside = 0, counted = 0;  // taps inside the row; inside the row and its pads
        for (int64_t t = 0; t < 3; t++) {
            const int64_t at = w + t * 10;  // in the padded row
            counted += at < padded ? 1 : 0;
            inside += at >= axes[1].pad_begin && at < axes[1].pad_begin + 11 ? 1 : 0;
        }
        const float want = float(2.0 * inside * 3 / counted);  // the sum times K / n
        for (int64_t row = 0; row < 3 * 9; row++) {
            EXPECT_NEAR(y[size_t(row * 11 + w)], want, 1e-6f * want) << "w = " << w;
        }
    }
}

}  // namespace
}  // namespace lpnorm
