// The ONNX and OpenVINO adapters map each framework's attributes onto lpnorm::reduce, and
// OpenVINO's NormalizeL2 onto lpnorm::normalize.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lpnorm/onnx.h"
#include "lpnorm/openvino.h"

namespace lpnorm {
namespace {

// data[2, 3] = {{-3, 0, 4}, {1, -2, 2}}
const std::vector<float> kData = {-3, 0, 4, 1, -2, 2};

Tensor data_tensor(const std::vector<float> &v, DType dtype = DType::float32) {
    return Tensor::contiguous(v.data(), dtype, {2, 3});
}

TEST(OnnxAdapter, ReduceL2Opset18DefaultsReduceEverythingAndKeepDims) {
    std::vector<float> y(1, -1);
    onnx::ReduceAttributes a;  // opset 18, no axes, keepdims 1
    ASSERT_TRUE(
        onnx::reduce_l2(data_tensor(kData), Tensor::contiguous(y.data(), DType::float32, {1, 1}), a)
            .ok());
    EXPECT_FLOAT_EQ(y[0], std::sqrt(9.f + 16 + 1 + 4 + 4));
}

TEST(OnnxAdapter, NoopWithEmptyAxesGivesAbsoluteValues) {
    std::vector<float> y(6, -1);
    onnx::ReduceAttributes a;
    a.noop_with_empty_axes = 1;
    ASSERT_TRUE(
        onnx::reduce_l2(data_tensor(kData), Tensor::contiguous(y.data(), DType::float32, {2, 3}), a)
            .ok());
    EXPECT_EQ(y, (std::vector<float>{3, 0, 4, 1, 2, 2}));
    ASSERT_TRUE(
        onnx::reduce_l1(data_tensor(kData), Tensor::contiguous(y.data(), DType::float32, {2, 3}), a)
            .ok());
    EXPECT_EQ(y, (std::vector<float>{3, 0, 4, 1, 2, 2}));
}

TEST(OnnxAdapter, NoopWithEmptyAxesIsAnOpset18Attribute) {
    std::vector<float> y(6, -1);
    onnx::ReduceAttributes a;
    a.opset = 13;
    a.noop_with_empty_axes = 1;
    Status s = onnx::reduce_l2(data_tensor(kData),
                               Tensor::contiguous(y.data(), DType::float32, {2, 3}), a);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("noop_with_empty_axes"), std::string::npos) << s.message();
    EXPECT_EQ(y[0], -1);
}

TEST(OnnxAdapter, AxesAttributeWithKeepdimsZero) {
    for (int64_t opset : {1, 11, 13, 18}) {
        std::vector<float> y(2, -1);
        onnx::ReduceAttributes a;
        a.opset = opset;
        a.axes = {-1};
        a.keepdims = 0;
        ASSERT_TRUE(onnx::reduce_l1(data_tensor(kData),
                                    Tensor::contiguous(y.data(), DType::float32, {2}), a)
                        .ok())
            << "opset " << opset;
        EXPECT_EQ(y, (std::vector<float>{7, 5})) << "opset " << opset;
    }
}

TEST(OnnxAdapter, TypeConstraintsFollowTheOpset) {
    std::vector<uint16_t> bf(6, 0x3f80);  // bfloat16 1.0
    std::vector<uint16_t> y(1, 0);
    onnx::ReduceAttributes a;
    a.opset = 11;
    Status s = onnx::reduce_l1(Tensor::contiguous(bf.data(), DType::bfloat16, {2, 3}),
                               Tensor::contiguous(y.data(), DType::bfloat16, {1, 1}), a);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("bfloat16"), std::string::npos) << s.message();
    a.opset = 13;
    ASSERT_TRUE(onnx::reduce_l1(Tensor::contiguous(bf.data(), DType::bfloat16, {2, 3}),
                                Tensor::contiguous(y.data(), DType::bfloat16, {1, 1}), a)
                    .ok());
    EXPECT_EQ(y[0], 0x40c0);  // bfloat16 6.0

    std::vector<int8_t> i8(6, 1);
    std::vector<int8_t> y8(1, 0);
    s = onnx::reduce_l1(Tensor::contiguous(i8.data(), DType::int8, {2, 3}),
                        Tensor::contiguous(y8.data(), DType::int8, {1, 1}), a);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument) << "int8 is not an ONNX ReduceL1 type";
}

TEST(OnnxAdapter, IntegerL2TruncatesAndSaturates) {
    std::vector<int32_t> y(2, -1);
    onnx::ReduceAttributes a;
    a.axes = {1};
    a.keepdims = 0;
    std::vector<int32_t> x3 = {3, 4, 1, 1, 1, 1};  // rows: sqrt(26) = 5.09.., sqrt(3) = 1.73..
    ASSERT_TRUE(onnx::reduce_l2(Tensor::contiguous(x3.data(), DType::int32, {2, 3}),
                                Tensor::contiguous(y.data(), DType::int32, {2}), a)
                    .ok());
    EXPECT_EQ(y, (std::vector<int32_t>{5, 1}));
    std::vector<int32_t> big = {INT32_MIN, INT32_MIN, INT32_MIN, 0, 0, 0};
    ASSERT_TRUE(onnx::reduce_l1(Tensor::contiguous(big.data(), DType::int32, {2, 3}),
                                Tensor::contiguous(y.data(), DType::int32, {2}), a)
                    .ok());
    EXPECT_EQ(y, (std::vector<int32_t>{INT32_MAX, 0}));
}

TEST(OnnxAdapter, OutputShapeAndBadAttributes) {
    std::vector<int64_t> shape;
    onnx::ReduceAttributes a;
    a.axes = {0};
    ASSERT_TRUE(onnx::reduce_output_shape({4, 5, 6}, DType::float32, a, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 5, 6}));
    a.keepdims = 2;
    Status s = onnx::reduce_output_shape({4, 5, 6}, DType::float32, a, &shape);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("keepdims = 2"), std::string::npos) << s.message();
    a.keepdims = 1;
    a.opset = 0;
    s = onnx::reduce_output_shape({4, 5, 6}, DType::float32, a, &shape);
    EXPECT_NE(s.message().find("opset = 0"), std::string::npos) << s.message();
}

TEST(OpenVinoAdapter, EmptyAxesIsIdentityAndKeepDimsDefaultsToFalse) {
    std::vector<float> y(6, -1);
    ASSERT_TRUE(openvino::reduce_l2(data_tensor(kData), {},
                                    Tensor::contiguous(y.data(), DType::float32, {2, 3}))
                    .ok());
    EXPECT_EQ(y, kData);  // x, not |x|
    std::vector<float> r(2, -1);
    ASSERT_TRUE(openvino::reduce_l1(data_tensor(kData), {1},
                                    Tensor::contiguous(r.data(), DType::float32, {2}))
                    .ok());
    EXPECT_EQ(r, (std::vector<float>{7, 5}));
    std::vector<int64_t> shape;
    ASSERT_TRUE(openvino::reduce_output_shape({6, 12, 10, 24}, {2, 3}, true, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{6, 12, 1, 1}));
}

TEST(OpenVinoAdapter, ReduceLpAcceptsOnlyOneAndTwo) {
    std::vector<float> r(2, -1);
    ASSERT_TRUE(openvino::reduce_lp(data_tensor(kData), {1}, 2,
                                    Tensor::contiguous(r.data(), DType::float32, {2}))
                    .ok());
    EXPECT_FLOAT_EQ(r[0], 5);
    EXPECT_FLOAT_EQ(r[1], 3);
    Status s = openvino::reduce_lp(data_tensor(kData), {1}, 3,
                                   Tensor::contiguous(r.data(), DType::float32, {2}));
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("p = 3"), std::string::npos) << s.message();
}

TEST(OpenVinoAdapter, RepeatedAxesAreRejected) {
    std::vector<float> r(2, -1);
    Status s = openvino::reduce_l2(data_tensor(kData), {1, -1},
                                   Tensor::contiguous(r.data(), DType::float32, {2}));
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("axes[1] = -1"), std::string::npos) << s.message();
    EXPECT_EQ(r[0], -1);
}

// ---- OpenVINO NormalizeL2-1 ----------------------------------------------------------------
//
// Expected values are the exactly rounded float32 quotients: each is computed in float64 (an eps
// of 1e-12 added to a sum moves it by about 1e-13 relative), and none lies within 1e-8 relative
// of a float32 rounding tie.

Tensor f32(const std::vector<float> &v, const std::vector<int64_t> &shape) {
    return Tensor::contiguous(v.data(), DType::float32, shape);
}

// {3, 4}: S = 25. eps = 11 under "add": sqrt(36) = 6; under "max": max(25, 11) = 25, sqrt 5.
TEST(OpenVinoNormalizeL2, EpsModeAddAndMaxDiffer) {
    std::vector<float> y(2, -1);
    ASSERT_TRUE(openvino::normalize_l2(f32({3, 4}, {1, 2}), {1}, 11, "add", f32(y, {1, 2})).ok());
    EXPECT_EQ(y, (std::vector<float>{0.5f, float(2.0 / 3)}));
    ASSERT_TRUE(openvino::normalize_l2(f32({3, 4}, {1, 2}), {1}, 11, "max", f32(y, {1, 2})).ok());
    EXPECT_EQ(y, (std::vector<float>{0.6f, 0.8f}));
    // eps above S under "max": max(25, 100) = 100, sqrt 10.
    ASSERT_TRUE(openvino::normalize_l2(f32({3, 4}, {1, 2}), {1}, 100, "max", f32(y, {1, 2})).ok());
    EXPECT_EQ(y, (std::vector<float>{0.3f, 0.4f}));
    // OpenVINO reads the enum in any letter case.
    ASSERT_TRUE(openvino::normalize_l2(f32({3, 4}, {1, 2}), {1}, 11, "ADD", f32(y, {1, 2})).ok());
    EXPECT_EQ(y[0], 0.5f);
}

TEST(OpenVinoNormalizeL2, AxesNegativeAndAll) {
    std::vector<float> y(6, -1);
    // Rows {-3, 0, 4} (norm 5) and {1, -2, 2} (norm 3).
    ASSERT_TRUE(
        openvino::normalize_l2(data_tensor(kData), {-1}, 1e-12f, "max", f32(y, {2, 3})).ok());
    EXPECT_EQ(y, (std::vector<float>{-0.6f, 0, 0.8f, 1.0f / 3, -2.0f / 3, 2.0f / 3}));
    // Every axis: one norm, sqrt(1 + 4 + 4 + 16) = 5.
    std::vector<float> y4(4, -1);
    ASSERT_TRUE(
        openvino::normalize_l2(f32({1, 2, 2, 4}, {2, 2}), {0, 1}, 1e-12f, "max", f32(y4, {2, 2}))
            .ok());
    EXPECT_EQ(y4, (std::vector<float>{0.2f, 0.4f, 0.4f, 0.8f}));
}

// An all-zero group gives zeros for eps > 0, NaN (0 / 0) for eps = 0 in either mode.
TEST(OpenVinoNormalizeL2, ZeroRows) {
    const std::vector<float> x = {0, 0, 0, 3, 0, 4};
    std::vector<float> y(6, -1);
    for (const char *mode : {"add", "max"}) {
        ASSERT_TRUE(openvino::normalize_l2(f32(x, {2, 3}), {1}, 1e-12f, mode, f32(y, {2, 3})).ok());
        EXPECT_EQ(y, (std::vector<float>{0, 0, 0, 0.6f, 0, 0.8f})) << mode;
        ASSERT_TRUE(openvino::normalize_l2(f32(x, {2, 3}), {1}, 0, mode, f32(y, {2, 3})).ok());
        EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2])) << mode;
        EXPECT_EQ(y[3], 0.6f) << mode;
    }
}

// Empty axes: each element divided by itself, 1 for every non-zero element (negative, NaN and
// inf included), 0 for a zero, whatever eps and eps_mode are (the spec's particular case 1).
TEST(OpenVinoNormalizeL2, EmptyAxesDivideEachElementByItself) {
    std::vector<float> y(6, -1);
    for (const char *mode : {"add", "max"}) {
        ASSERT_TRUE(openvino::normalize_l2(data_tensor(kData), {}, 100, mode, f32(y, {2, 3})).ok());
        EXPECT_EQ(y, (std::vector<float>{1, 0, 1, 1, 1, 1})) << mode;
    }
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> special = {std::nanf(""), -inf, -0.0f, 0, -5, 1e-30f};
    ASSERT_TRUE(openvino::normalize_l2(f32(special, {6}), {}, 1e-12f, "add", f32(y, {6})).ok());
    EXPECT_EQ(y, (std::vector<float>{1, 1, 0, 0, 1, 1}));
    // A strided view (the transpose of kData) and a rank-0 tensor.
    const Tensor transposed = Tensor::strided(kData.data(), DType::float32, {3, 2}, {1, 3});
    ASSERT_TRUE(openvino::normalize_l2(transposed, {}, 1e-12f, "max", f32(y, {3, 2})).ok());
    EXPECT_EQ(y, (std::vector<float>{1, 1, 0, 1, 1, 1}));
    const float x0 = -3;
    float y0 = -1;
    ASSERT_TRUE(openvino::normalize_l2(
                    Tensor::contiguous(&x0, DType::float32, std::vector<int64_t>{}), {}, 1e-12f,
                    "add", Tensor::contiguous(&y0, DType::float32, std::vector<int64_t>{}))
                    .ok());
    EXPECT_EQ(y0, 1);
}

// Rank 8 leaves no room for the size-1 dim the empty-axes rule reduces over: an existing one is
// used, and without one the call is refused.
TEST(OpenVinoNormalizeL2, EmptyAxesAtRankEight) {
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); i++) x[i] = float(int(i % 3) - 1);  // -1, 0, 1, ...
    std::vector<float> y(16, -1);
    const std::vector<int64_t> with_unit = {1, 2, 1, 2, 1, 2, 1, 2};
    ASSERT_TRUE(
        openvino::normalize_l2(f32(x, with_unit), {}, 1e-12f, "add", f32(y, with_unit)).ok());
    for (size_t i = 0; i < x.size(); i++) EXPECT_EQ(y[i], x[i] != 0 ? 1 : 0) << i;

    std::vector<float> x256(256, 2), y256(256, -1);
    const std::vector<int64_t> all_two(8, 2);
    Status s = openvino::normalize_l2(f32(x256, all_two), {}, 1e-12f, "add", f32(y256, all_two));
    EXPECT_EQ(s.code(), ErrorCode::unsupported) << s.message();
    EXPECT_NE(s.message().find("axes = [] with data.rank = 8 and no dim of size 1"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(y256, std::vector<float>(256, -1));
    std::vector<int64_t> shape = {-7};
    s = openvino::normalize_l2_output_shape(all_two, {}, 1e-12f, "add", &shape);
    EXPECT_EQ(s.code(), ErrorCode::unsupported) << s.message();
    EXPECT_EQ(shape, (std::vector<int64_t>{-7}));
}

TEST(OpenVinoNormalizeL2, OutputShape) {
    std::vector<int64_t> shape;
    ASSERT_TRUE(
        openvino::normalize_l2_output_shape({6, 12, 10, 24}, {1}, 1e-8f, "add", &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{6, 12, 10, 24}));
    ASSERT_TRUE(
        openvino::normalize_l2_output_shape({6, 12, 10, 24}, {}, 1e-8f, "max", &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{6, 12, 10, 24}));
    shape = {-7};
    Status s = openvino::normalize_l2_output_shape({6, 12}, {2}, 1e-8f, "add", &shape);
    EXPECT_NE(s.message().find("axes[0] = 2"), std::string::npos) << s.message();
    EXPECT_EQ(shape, (std::vector<int64_t>{-7}));
}

// Each bad attribute is named with its value, and nothing is written.
TEST(OpenVinoNormalizeL2, BadAttributes) {
    std::vector<float> y(6, -1);
    auto call = [&](const std::vector<int64_t> &axes, float eps, const char *mode) {
        return openvino::normalize_l2(data_tensor(kData), axes, eps, mode, f32(y, {2, 3}));
    };
    const float nan = std::nanf("");
    const struct {
        Status s;
        std::string fragment;
    } cases[] = {
        {call({1}, 1e-12f, "mean"), "eps_mode = \"mean\" is not add or max (NormalizeL2-1)"},
        {call({}, 1e-12f, ""), "eps_mode = \"\""},
        {call({1}, -1, "add"), "eps = -1"},
        {call({}, -1, "max"), "eps = -1"},
        {call({1}, nan, "max"), "eps = nan"},
        {call({2}, 1e-12f, "add"), "axes[0] = 2"},
        {call({1, -1}, 1e-12f, "add"), "axes[1] = -1"},
    };
    for (const auto &c : cases) {
        EXPECT_EQ(c.s.code(), ErrorCode::invalid_argument) << c.s.message();
        EXPECT_NE(c.s.message().find(c.fragment), std::string::npos) << c.s.message();
    }
    const std::vector<int32_t> xi = {1, 2, 3, 4, 5, 6};
    for (const std::vector<int64_t> &axes : {std::vector<int64_t>{1}, std::vector<int64_t>{}}) {
        Status s = openvino::normalize_l2(Tensor::contiguous(xi.data(), DType::int32, {2, 3}), axes,
                                          1e-12f, "add",
                                          Tensor::contiguous(y.data(), DType::int32, {2, 3}));
        EXPECT_EQ(s.code(), ErrorCode::invalid_argument) << s.message();
        EXPECT_NE(s.message().find("data.dtype = int32 is not a floating-point type"),
                  std::string::npos)
            << s.message();
    }
    for (const std::vector<int64_t> &axes : {std::vector<int64_t>{1}, std::vector<int64_t>{}}) {
        Status s = openvino::normalize_l2(data_tensor(kData), axes, 1e-12f, "add", f32(y, {3, 2}));
        EXPECT_EQ(s.code(), ErrorCode::shape_mismatch) << s.message();
    }
    EXPECT_EQ(y, std::vector<float>(6, -1));
}

}  // namespace
}  // namespace lpnorm
