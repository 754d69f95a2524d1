// The pooling adapters (ONNX LpPool / GlobalLpPool, DirectML LP_POOLING / LP_POOLING1, PyTorch
// lp_pool), torch vector_norm, and the normalization adapters of DirectML (LP_NORMALIZATION) and
// PyTorch (F.normalize): attribute acceptance and rejection per opset, output shapes, and a few
// small hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lpnorm/directml.h"
#include "lpnorm/onnx.h"
#include "lpnorm/torch.h"

namespace lpnorm {
namespace {

constexpr float kCanary = -7.25f;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f32(const std::vector<float> &v, const std::vector<int64_t> &shape) {
    return Tensor::contiguous(v.data(), DType::float32, shape);
}

// A rank-0 tensor.
Tensor scalar(const void *data, DType dtype) {
    return Tensor::contiguous(data, dtype, std::vector<int64_t>{});
}

// {1, 2, ..., n}
std::vector<float> iota(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++) v[i] = float(i + 1);
    return v;
}

// An output buffer of `n` canaries.
std::vector<float> canaries(size_t n) { return std::vector<float>(n, kCanary); }

bool untouched(const std::vector<float> &y) {
    for (float v : y) {
        if (std::memcmp(&v, &kCanary, sizeof v) != 0) return false;
    }
    return true;
}

// Fails unless `s` is an error with `code` whose message contains every one of `parts`.
::testing::AssertionResult fails_with(const Status &s, ErrorCode code,
                                      std::initializer_list<std::string> parts) {
    if (s.ok()) {
        return ::testing::AssertionFailure() << "succeeded; expected " << error_code_name(code);
    }
    if (s.code() != code) {
        return ::testing::AssertionFailure() << error_code_name(s.code()) << " instead of "
                                             << error_code_name(code) << ": " << s.message();
    }
    for (const std::string &part : parts) {
        if (s.message().find(part) == std::string::npos) {
            return ::testing::AssertionFailure()
                   << "message \"" << s.message() << "\" lacks \"" << part << "\"";
        }
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult invalid(const Status &s, std::initializer_list<std::string> parts) {
    return fails_with(s, ErrorCode::invalid_argument, parts);
}

// bfloat16 bits of a float exactly representable in bfloat16, and back.
uint16_t to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return static_cast<uint16_t>(bits >> 16);
}

float from_bf16(uint16_t h) {
    const uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

const float kSqrt30 = std::sqrt(30.f);  // L2 of the 2x2 window {1, 2, 3, 4}

// ---- ONNX LpPool ---------------------------------------------------------------------------

onnx::LpPoolAttributes lp_pool_attrs(int64_t opset, std::vector<int64_t> kernel_shape) {
    onnx::LpPoolAttributes a;
    a.opset = opset;
    a.kernel_shape = std::move(kernel_shape);
    return a;
}

// LpPool's output shape for X of `x_shape` and `dtype`, or the error.
Status lp_pool_shape(const std::vector<int64_t> &x_shape, const onnx::LpPoolAttributes &a,
                     std::vector<int64_t> *out, DType dtype = DType::float32) {
    return onnx::lp_pool_output_shape(x_shape, dtype, a, out);
}

// 1-D LpPool of `x` (shape 1, 1, x.size()) into an output of `out_size`.
std::vector<float> lp_pool_1d(const std::vector<float> &x, const onnx::LpPoolAttributes &a,
                              int64_t out_size) {
    std::vector<float> y = canaries(out_size);
    Status s = onnx::lp_pool(f32(x, {1, 1, int64_t(x.size())}), f32(y, {1, 1, out_size}), a);
    EXPECT_TRUE(s.ok()) << s.message();
    return y;
}

const int64_t kLpPoolOpsets[] = {1, 2, 11, 18, 22};

TEST(OnnxLpPool, TwoByTwoWindowIsTheL2NormInEveryOpset) {
    const std::vector<float> x = {1, 2, 3, 4};
    for (int64_t opset : kLpPoolOpsets) {
        std::vector<float> y = canaries(1);
        Status s =
            onnx::lp_pool(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), lp_pool_attrs(opset, {2, 2}));
        ASSERT_TRUE(s.ok()) << "opset " << opset << ": " << s.message();
        EXPECT_FLOAT_EQ(y[0], kSqrt30) << "opset " << opset;
    }
}

TEST(OnnxLpPool, RaisesAbsoluteValues) {
    const std::vector<float> x = {-1, 2, -3, 4};
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {2, 2});
    a.p = 1;
    std::vector<float> y = canaries(1);
    ASSERT_TRUE(onnx::lp_pool(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), a).ok());
    EXPECT_FLOAT_EQ(y[0], 10);
    a.p = 3;
    ASSERT_TRUE(onnx::lp_pool(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), a).ok());
    EXPECT_NEAR(y[0], std::cbrt(100.0), 1e-5);
}

TEST(OnnxLpPool, OpsetsInBetweenBehaveAsTheLatestVersionAtOrBelow) {
    const std::pair<int64_t, const char *> cases[] = {
        {1, "LpPool-1"},   {2, "LpPool-2"},   {10, "LpPool-2"},
        {11, "LpPool-11"}, {17, "LpPool-11"}, {18, "LpPool-18"},
        {21, "LpPool-18"}, {22, "LpPool-22"}, {30, "LpPool-22"},
    };
    std::vector<int64_t> shape;
    for (const auto &c : cases) {
        // int32 is never an LpPool type, so the error names the version.
        EXPECT_TRUE(
            invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(c.first, {2}), &shape, DType::int32),
                    {"X.dtype = int32", c.second}))
            << "opset " << c.first;
    }
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(0, {2}), &shape), {"opset = 0"}));
}

TEST(OnnxLpPool, DilationsAndCeilModeAreOpset18Attributes) {
    std::vector<int64_t> shape;
    const std::pair<int64_t, std::string> before18[] = {
        {1, "LpPool-1"}, {2, "LpPool-2"}, {10, "LpPool-2"}, {11, "LpPool-11"}, {17, "LpPool-11"},
    };
    for (const auto &[opset, op] : before18) {
        onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2, 2});
        a.dilations = {1, 1};
        EXPECT_TRUE(
            invalid(lp_pool_shape({1, 1, 5, 5}, a, &shape),
                    {"dilations = [1, 1] is not an attribute of " + op, "added in opset 18"}))
            << "opset " << opset;
        a.dilations = {};
        a.ceil_mode = 1;
        EXPECT_TRUE(
            invalid(lp_pool_shape({1, 1, 5, 5}, a, &shape),
                    {"ceil_mode = 1 is not an attribute of " + op + " (added in opset 18)"}))
            << "opset " << opset;
    }
    for (int64_t opset : {18, 21, 22}) {
        onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2, 2});
        a.dilations = {2, 2};
        ASSERT_TRUE(lp_pool_shape({1, 1, 5, 5}, a, &shape).ok()) << "opset " << opset;
        EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 3, 3}));
        a.dilations = {};
        a.strides = {2, 2};
        a.ceil_mode = 1;
        ASSERT_TRUE(lp_pool_shape({1, 1, 5, 5}, a, &shape).ok()) << "opset " << opset;
        EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 3, 3}));
    }
}

TEST(OnnxLpPool, CeilModeIsZeroOrOne) {
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {2});
    a.ceil_mode = 2;
    std::vector<int64_t> shape;
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, a, &shape),
                        {"ceil_mode = 2 must be 0 or 1 for LpPool-22"}));
}

TEST(OnnxLpPool, PIsAFloatInOpset1AndAnIntegerFromOpset2) {
    std::vector<int64_t> shape;
    onnx::LpPoolAttributes a = lp_pool_attrs(1, {2});
    a.p = 2.5;
    EXPECT_TRUE(lp_pool_shape({1, 1, 4}, a, &shape).ok());
    EXPECT_NEAR(lp_pool_1d({1, 2, 3, 4}, a, 3)[0], std::pow(1 + std::pow(2.0, 2.5), 1 / 2.5), 1e-5);
    for (int64_t opset : {2, 11, 18, 22}) {
        a.opset = opset;
        EXPECT_TRUE(
            invalid(lp_pool_shape({1, 1, 4}, a, &shape), {"p = 2.5 is not an integer", "INT"}))
            << "opset " << opset;
    }
    a.p = 3;
    EXPECT_TRUE(lp_pool_shape({1, 1, 4}, a, &shape).ok());
}

// Values no Lp pooling accepts, as the messages spell them.
const std::pair<double, std::string> kBadP[] = {
    {0.0, "0"}, {-1.0, "-1"}, {-2.5, "-2.5"}, {kInf, "inf"}, {kNaN, "nan"},
};

TEST(OnnxLpPool, PMustBeFiniteAndPositive) {
    std::vector<int64_t> shape;
    for (int64_t opset : kLpPoolOpsets) {
        for (const auto &[p, text] : kBadP) {
            onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2});
            a.p = p;
            EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, a, &shape),
                                {"p = " + text + " must be a finite value > 0"}))
                << "opset " << opset;
        }
    }
}

TEST(OnnxLpPool, AutoPadStrings) {
    std::vector<int64_t> shape;
    for (int64_t opset : kLpPoolOpsets) {
        for (const char *ok : {"NOTSET", "", "SAME_UPPER", "SAME_LOWER", "VALID"}) {
            onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2});
            a.auto_pad = ok;
            EXPECT_TRUE(lp_pool_shape({1, 1, 4}, a, &shape).ok()) << ok << ", opset " << opset;
        }
        for (const char *bad : {"SAME", "same_upper", "VALID ", "EXPLICIT"}) {
            onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2});
            a.auto_pad = bad;
            EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, a, &shape),
                                {"auto_pad = \"" + std::string(bad) + "\" is not NOTSET"}))
                << "opset " << opset;
        }
    }
}

TEST(OnnxLpPool, KernelShapeIsRequiredAndFixesTheRank) {
    std::vector<int64_t> shape;
    for (int64_t opset : kLpPoolOpsets) {
        EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(opset, {}), &shape),
                            {"kernel_shape is missing"}))
            << "opset " << opset;
    }
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(22, {2, 2}), &shape),
                        {"X.rank = 3", "kernel_shape = [2, 2]", "rank 4"}));
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4, 4, 4}, lp_pool_attrs(22, {2, 2, 2, 2}), &shape),
                        {"kernel_shape = [2, 2, 2, 2] has 4 spatial dims"}));
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, lp_pool_attrs(22, {2, 0}), &shape),
                        {"kernel_shape[1] = 0 must be >= 1"}));
}

TEST(OnnxLpPool, AttributeLengthsFollowKernelShape) {
    std::vector<int64_t> shape;
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {2, 2});
    a.strides = {1, 1, 1};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape),
                        {"strides = [1, 1, 1] has 3 values", "expects 2"}));
    a.strides = {0, 1};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape), {"strides[0] = 0 must be >= 1"}));
    a.strides = {};
    a.pads = {1, 1};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape),
                        {"pads = [1, 1] has 2 values", "expects 4"}));
    a.pads = {0, -1, 0, 0};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape), {"pads[1] = -1 must be >= 0"}));
    a.pads = {};
    a.dilations = {1};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape),
                        {"dilations = [1] has 1 values", "expects 2"}));
    a.dilations = {1, 0};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape), {"dilations[1] = 0 must be >= 1"}));
}

TEST(OnnxLpPool, PadsCannotBeUsedWithSameAutoPad) {
    std::vector<int64_t> shape;
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {2, 2});
    a.auto_pad = "SAME_UPPER";
    a.pads = {0, 0, 0, 0};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape),
                        {"pads = [0, 0, 0, 0] cannot be used with auto_pad = \"SAME_UPPER\""}));
    a.auto_pad = "VALID";
    EXPECT_TRUE(lp_pool_shape({1, 1, 4, 4}, a, &shape).ok());
    a.pads = {0, 1, 0, 0};
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4, 4}, a, &shape), {"auto_pad = \"VALID\""}));
}

TEST(OnnxLpPool, TypeConstraintsFollowTheOpset) {
    std::vector<int64_t> shape;
    for (int64_t opset : kLpPoolOpsets) {
        for (DType dtype : {DType::float16, DType::float32, DType::float64}) {
            EXPECT_TRUE(lp_pool_shape({1, 1, 4}, lp_pool_attrs(opset, {2}), &shape, dtype).ok())
                << dtype_name(dtype) << ", opset " << opset;
        }
        EXPECT_TRUE(
            invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(opset, {2}), &shape, DType::int64),
                    {"X.dtype = int64 is not allowed"}));
    }
    EXPECT_TRUE(invalid(lp_pool_shape({1, 1, 4}, lp_pool_attrs(18, {2}), &shape, DType::bfloat16),
                        {"X.dtype = bfloat16", "LpPool-18", "added in opset 22"}));

    const std::vector<uint16_t> x = {to_bf16(1), to_bf16(2), to_bf16(3), to_bf16(4)};
    std::vector<uint16_t> y = {0};
    ASSERT_TRUE(onnx::lp_pool(Tensor::contiguous(x.data(), DType::bfloat16, {1, 1, 2, 2}),
                              Tensor::contiguous(y.data(), DType::bfloat16, {1, 1, 1, 1}),
                              lp_pool_attrs(22, {2, 2}))
                    .ok());
    EXPECT_NEAR(from_bf16(y[0]), kSqrt30, 0.032);  // one bfloat16 ulp in [4, 8)
}

TEST(OnnxLpPool, OutputShapes) {
    std::vector<int64_t> shape;
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {3, 3});
    a.strides = {2, 2};
    a.pads = {1, 1, 1, 1};
    ASSERT_TRUE(lp_pool_shape({1, 3, 5, 7}, a, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 3, 3, 4}));

    ASSERT_TRUE(lp_pool_shape({2, 3, 4, 5, 6}, lp_pool_attrs(22, {2, 2, 2}), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 3, 3, 4, 5}));

    struct Case {
        const char *auto_pad;
        int64_t kernel, stride, dilation, ceil_mode, expected;
    };
    const Case cases[] = {
        {"SAME_UPPER", 2, 2, 1, 0, 3},  // ceil(5 / 2)
        {"SAME_LOWER", 2, 2, 1, 0, 3},
        {"SAME_UPPER", 2, 1, 2, 0, 5},  // dilated kernel, ceil(5 / 1)
        {"VALID", 2, 2, 1, 0, 2},
        {"NOTSET", 2, 2, 1, 0, 2},  // floor(3 / 2) + 1
        {"NOTSET", 2, 2, 1, 1, 3},  // ceil(3 / 2) + 1; the last window starts at 4 < 5
        {"NOTSET", 3, 1, 2, 0, 1},  // k_eff = 5
        {"NOTSET", 2, 1, 2, 0, 3},  // k_eff = 3
    };
    for (const Case &c : cases) {
        onnx::LpPoolAttributes b = lp_pool_attrs(22, {c.kernel});
        b.auto_pad = c.auto_pad;
        b.strides = {c.stride};
        b.dilations = {c.dilation};
        b.ceil_mode = c.ceil_mode;
        ASSERT_TRUE(lp_pool_shape({1, 1, 5}, b, &shape).ok()) << c.auto_pad;
        EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, c.expected}))
            << c.auto_pad << " k " << c.kernel << " s " << c.stride << " d " << c.dilation
            << " ceil " << c.ceil_mode;
    }
}

// ceil(3 / 2) + 1 = 3 windows, but the third would start at 4 = in + pad_begin, inside the end
// padding: dropped in opset 22 and, as in ONNX Runtime, in opset 18 (whose ONNX shape inference
// would say 3).
TEST(OnnxLpPool, CeilModeDropsAWindowStartingInTheEndPaddingFromOpset18) {
    for (int64_t opset : {18, 22}) {
        onnx::LpPoolAttributes a = lp_pool_attrs(opset, {2});
        a.strides = {2};
        a.pads = {0, 1};
        a.ceil_mode = 1;
        std::vector<int64_t> shape;
        ASSERT_TRUE(lp_pool_shape({1, 1, 4}, a, &shape).ok());
        EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 2})) << "opset " << opset;
    }
}

TEST(OnnxLpPool, SameUpperPadsTheEndAndSameLowerTheStart) {
    onnx::LpPoolAttributes a = lp_pool_attrs(11, {2});
    a.strides = {2};
    a.p = 1;
    a.auto_pad = "SAME_UPPER";
    EXPECT_EQ(lp_pool_1d({1, 2, 3, 4, 5}, a, 3), (std::vector<float>{3, 7, 5}));
    a.auto_pad = "SAME_LOWER";
    EXPECT_EQ(lp_pool_1d({1, 2, 3, 4, 5}, a, 3), (std::vector<float>{1, 5, 9}));
}

TEST(OnnxLpPool, PadsDilationsAndCeilModeValues) {
    onnx::LpPoolAttributes a = lp_pool_attrs(22, {2});
    a.p = 1;
    a.strides = {2};
    a.pads = {1, 1};  // [0, 1, 2, 3, 0]
    EXPECT_EQ(lp_pool_1d({1, 2, 3}, a, 2), (std::vector<float>{1, 5}));

    a.pads = {};
    a.ceil_mode = 1;  // the last window holds only x[4]: its plain sum, not rescaled
    EXPECT_EQ(lp_pool_1d({1, 2, 3, 4, 5}, a, 3), (std::vector<float>{3, 7, 5}));

    a.ceil_mode = 0;
    a.strides = {};
    a.dilations = {2};
    EXPECT_EQ(lp_pool_1d({1, 2, 3, 4, 5}, a, 3), (std::vector<float>{4, 6, 8}));
}

TEST(OnnxLpPool, ErrorsLeaveTheOutputUntouched) {
    const std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> y = canaries(1);
    onnx::LpPoolAttributes a = lp_pool_attrs(11, {2, 2});
    a.ceil_mode = 1;
    EXPECT_TRUE(invalid(onnx::lp_pool(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), a),
                        {"ceil_mode = 1 is not an attribute of LpPool-11 (added in opset 18)"}));
    EXPECT_TRUE(untouched(y));
    a.ceil_mode = 0;
    a.p = 1.5;
    EXPECT_TRUE(invalid(onnx::lp_pool(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), a), {"p = 1.5"}));
    EXPECT_TRUE(untouched(y));
}

// ---- ONNX GlobalLpPool ---------------------------------------------------------------------

onnx::GlobalLpPoolAttributes global_attrs(int64_t opset, double p = 2) {
    onnx::GlobalLpPoolAttributes a;
    a.opset = opset;
    a.p = p;
    return a;
}

// GlobalLpPool's output shape for X of `x_shape`, or the error.
Status global_shape(const std::vector<int64_t> &x_shape, DType dtype, int64_t opset, double p,
                    std::vector<int64_t> *out) {
    return onnx::global_lp_pool_output_shape(x_shape, dtype, global_attrs(opset, p), out);
}

TEST(OnnxGlobalLpPool, PoolsEverySpatialDimPerChannel) {
    const std::vector<float> x = {1, 2, 3, 4, 0, 0, -3, 4};
    std::vector<float> y = canaries(2);
    Status s = onnx::global_lp_pool(f32(x, {1, 2, 2, 2}), f32(y, {1, 2, 1, 1}), global_attrs(2));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_FLOAT_EQ(y[0], kSqrt30);
    EXPECT_FLOAT_EQ(y[1], 5);

    std::vector<int64_t> shape;
    ASSERT_TRUE(global_shape({2, 3, 7}, DType::float32, 2, 2, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 3, 1}));
    ASSERT_TRUE(global_shape({1, 4, 2, 3, 4}, DType::float64, 22, 2, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 4, 1, 1, 1}));
}

TEST(OnnxGlobalLpPool, PIsAFloatInOpset1AndAnIntegerFromOpset2) {
    std::vector<int64_t> shape;
    EXPECT_TRUE(global_shape({1, 1, 4}, DType::float32, 1, 2.5, &shape).ok());
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::float32, 2, 2.5, &shape),
                        {"p = 2.5 is not an integer", "GlobalLpPool-2"}));
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::float32, 22, 2.5, &shape),
                        {"p = 2.5", "GlobalLpPool-22"}));
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::float32, 1, 0, &shape),
                        {"p = 0", "GlobalLpPool-1"}));
}

TEST(OnnxGlobalLpPool, RankAndSpatialLimits) {
    std::vector<int64_t> shape;
    EXPECT_TRUE(invalid(global_shape({2, 3}, DType::float32, 2, 2, &shape), {"X.rank = 2"}));
    EXPECT_TRUE(
        invalid(global_shape({1, 1, 2, 2, 2, 2}, DType::float32, 2, 2, &shape), {"X.rank = 6"}));
    EXPECT_TRUE(
        invalid(global_shape({1, 1, 0, 3}, DType::float32, 2, 2, &shape), {"X.shape[2] = 0"}));

    const std::vector<float> x = {1, 2};
    std::vector<float> y = canaries(2);
    EXPECT_TRUE(invalid(onnx::global_lp_pool(f32(x, {1, 2}), f32(y, {1, 2}), global_attrs(2)),
                        {"X.rank = 2"}));
    EXPECT_TRUE(untouched(y));
}

TEST(OnnxGlobalLpPool, TypeConstraintsFollowTheOpset) {
    std::vector<int64_t> shape;
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::bfloat16, 21, 2, &shape),
                        {"X.dtype = bfloat16", "GlobalLpPool-2", "added in opset 22"}));
    EXPECT_TRUE(global_shape({1, 1, 4}, DType::bfloat16, 22, 2, &shape).ok());
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::int32, 22, 2, &shape), {"X.dtype = int32"}));
    EXPECT_TRUE(invalid(global_shape({1, 1, 4}, DType::float32, 0, 2, &shape), {"opset = 0"}));
}

// ---- DirectML ------------------------------------------------------------------------------

directml::LpPoolingOperatorDesc dml_desc(std::vector<uint32_t> window, uint32_t p) {
    directml::LpPoolingOperatorDesc d;
    d.DimensionCount = static_cast<uint32_t>(window.size());
    d.Strides.assign(window.size(), 1);
    d.StartPadding.assign(window.size(), 0);
    d.EndPadding.assign(window.size(), 0);
    d.WindowSize = std::move(window);
    d.P = p;
    return d;
}

directml::LpPooling1OperatorDesc dml1_desc(std::vector<uint32_t> window,
                                           std::vector<uint32_t> dilations, uint32_t p) {
    const directml::LpPoolingOperatorDesc d = dml_desc(window, p);
    return {d.DimensionCount,     d.Strides, d.WindowSize, d.StartPadding, d.EndPadding,
            std::move(dilations), d.P};
}

TEST(DirectMlLpPooling, TwoByTwoWindow) {
    std::vector<float> y = canaries(1);
    ASSERT_TRUE(directml::lp_pooling(f32({1, 2, 3, 4}, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}),
                                     dml_desc({2, 2}, 2))
                    .ok());
    EXPECT_FLOAT_EQ(y[0], kSqrt30);
    ASSERT_TRUE(directml::lp_pooling(f32({-1, 2, -3, 4}, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}),
                                     dml_desc({2, 2}, 1))
                    .ok());
    EXPECT_FLOAT_EQ(y[0], 10);
}

TEST(DirectMlLpPooling, FiveDimensionalTensors) {
    const std::vector<float> x = iota(8);
    std::vector<float> y = canaries(1);
    ASSERT_TRUE(directml::lp_pooling(f32(x, {1, 1, 2, 2, 2}), f32(y, {1, 1, 1, 1, 1}),
                                     dml_desc({2, 2, 2}, 1))
                    .ok());
    EXPECT_FLOAT_EQ(y[0], 36);
}

TEST(DirectMlLpPooling, Float16) {
    const std::vector<uint16_t> x = {0x3c00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
    std::vector<uint16_t> y = {0};
    ASSERT_TRUE(directml::lp_pooling(Tensor::contiguous(x.data(), DType::float16, {1, 1, 2, 2}),
                                     Tensor::contiguous(y.data(), DType::float16, {1, 1, 1, 1}),
                                     dml_desc({2, 2}, 1))
                    .ok());
    EXPECT_EQ(y[0], 0x4900);  // 10
}

TEST(DirectMlLpPooling, StartAndEndPaddingWithStrides) {
    directml::LpPoolingOperatorDesc d = dml_desc({1, 2}, 1);
    d.Strides = {1, 2};
    d.StartPadding = {0, 1};
    d.EndPadding = {0, 1};  // W: [0, 1, 2, 3, 0], windows at 0 and 2
    std::vector<float> y = canaries(2);
    ASSERT_TRUE(directml::lp_pooling(f32({1, 2, 3}, {1, 1, 1, 3}), f32(y, {1, 1, 1, 2}), d).ok());
    EXPECT_EQ(y, (std::vector<float>{1, 5}));
}

TEST(DirectMlLpPooling, OutputSizesMustMatchTheFloorFormula) {
    const std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> y = canaries(4);
    EXPECT_TRUE(fails_with(
        directml::lp_pooling(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 2, 2}), dml_desc({2, 2}, 2)),
        ErrorCode::shape_mismatch,
        {"OutputTensor.Sizes[2] = 2 differs from the expected 1", "WindowSize[0]",
         "DML_OPERATOR_LP_POOLING"}));
    EXPECT_TRUE(untouched(y));

    EXPECT_TRUE(fails_with(
        directml::lp_pooling(f32(x, {1, 1, 2, 2}), f32(y, {1, 2, 1, 1}), dml_desc({2, 2}, 2)),
        ErrorCode::shape_mismatch,
        {"OutputTensor.Sizes[1] = 2 differs from the expected 1", "InputTensor.Sizes[1]"}));
    EXPECT_TRUE(untouched(y));

    // A ceil-rounded size is not the documented one: W = 5, window 2, stride 2 gives 2, not 3.
    directml::LpPoolingOperatorDesc d = dml_desc({1, 2}, 1);
    d.Strides = {1, 2};
    std::vector<float> y3 = canaries(3);
    EXPECT_TRUE(fails_with(
        directml::lp_pooling(f32({1, 2, 3, 4, 5}, {1, 1, 1, 5}), f32(y3, {1, 1, 1, 3}), d),
        ErrorCode::shape_mismatch, {"OutputTensor.Sizes[3] = 3 differs from the expected 2"}));
    EXPECT_TRUE(untouched(y3));

    EXPECT_TRUE(fails_with(
        directml::lp_pooling(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1}), dml_desc({2, 2}, 2)),
        ErrorCode::shape_mismatch, {"OutputTensor has 3 dimensions"}));
    EXPECT_TRUE(untouched(y));
}

TEST(DirectMlLpPooling1, DilatedWindowsAndTheirOutputSize) {
    const std::vector<float> x = {1, 2, 3, 4, 5};
    std::vector<float> y = canaries(3);
    ASSERT_TRUE(directml::lp_pooling1(f32(x, {1, 1, 1, 5}), f32(y, {1, 1, 1, 3}),
                                      dml1_desc({1, 2}, {1, 2}, 1))
                    .ok());
    EXPECT_EQ(y, (std::vector<float>{4, 6, 8}));

    std::vector<float> y4 = canaries(4);  // the undilated size
    EXPECT_TRUE(fails_with(directml::lp_pooling1(f32(x, {1, 1, 1, 5}), f32(y4, {1, 1, 1, 4}),
                                                 dml1_desc({1, 2}, {1, 2}, 1)),
                           ErrorCode::shape_mismatch,
                           {"OutputTensor.Sizes[3] = 4 differs from the expected 3", "Dilations[1]",
                            "DML_OPERATOR_LP_POOLING1"}));
    EXPECT_TRUE(untouched(y4));

    EXPECT_TRUE(invalid(
        directml::lp_pooling1(f32(x, {1, 1, 1, 5}), f32(y, {1, 1, 1, 3}), dml1_desc({1, 2}, {}, 1)),
        {"Dilations = [] has 0 values", "DimensionCount = 2"}));
    EXPECT_TRUE(invalid(directml::lp_pooling1(f32(x, {1, 1, 1, 5}), f32(y, {1, 1, 1, 3}),
                                              dml1_desc({1, 2}, {1, 0}, 1)),
                        {"Dilations[1] = 0 must be >= 1"}));
}

TEST(DirectMlLpPooling, DescFieldsAreChecked) {
    const std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> y = canaries(1);
    const Tensor in = f32(x, {1, 1, 2, 2});
    const Tensor out = f32(y, {1, 1, 1, 1});

    directml::LpPoolingOperatorDesc d = dml_desc({2, 2}, 2);
    d.DimensionCount = 1;
    EXPECT_TRUE(invalid(directml::lp_pooling(in, out, d), {"DimensionCount = 1 must be 2"}));
    d = dml_desc({2, 2}, 2);
    d.Strides = {1};
    EXPECT_TRUE(invalid(directml::lp_pooling(in, out, d), {"Strides = [1] has 1 values"}));
    d = dml_desc({2, 2}, 2);
    d.WindowSize = {0, 2};
    EXPECT_TRUE(invalid(directml::lp_pooling(in, out, d), {"WindowSize[0] = 0 must be >= 1"}));
    d = dml_desc({2, 2}, 2);
    d.EndPadding = {0, 0, 0};
    EXPECT_TRUE(invalid(directml::lp_pooling(in, out, d), {"EndPadding = [0, 0, 0]"}));
    d = dml_desc({2, 2}, 0);
    EXPECT_TRUE(invalid(directml::lp_pooling(in, out, d), {"P = 0 must be >= 1"}));
    EXPECT_TRUE(untouched(y));
}

TEST(DirectMlLpPooling, TensorsAre4Or5DFloat32OrFloat16) {
    const std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> y = canaries(2);
    EXPECT_TRUE(
        invalid(directml::lp_pooling(f32(x, {1, 1, 4}), f32(y, {1, 1, 2}), dml_desc({2, 2}, 2)),
                {"InputTensor has 3 dimensions; DimensionCount = 2 needs 4"}));
    EXPECT_TRUE(invalid(
        directml::lp_pooling(f32(x, {1, 1, 2, 2}), f32(y, {1, 1, 1, 1}), dml_desc({1, 1, 1}, 2)),
        {"InputTensor has 4 dimensions; DimensionCount = 3 needs 5"}));

    const std::vector<double> xd = {1, 2, 3, 4};
    std::vector<double> yd = {0};
    EXPECT_TRUE(
        invalid(directml::lp_pooling(Tensor::contiguous(xd.data(), DType::float64, {1, 1, 2, 2}),
                                     Tensor::contiguous(yd.data(), DType::float64, {1, 1, 1, 1}),
                                     dml_desc({2, 2}, 2)),
                {"InputTensor.DataType = float64 is not FLOAT32 or FLOAT16"}));
    const std::vector<uint16_t> xb(4, to_bf16(1));
    std::vector<uint16_t> yb = {0};
    EXPECT_TRUE(
        invalid(directml::lp_pooling(Tensor::contiguous(xb.data(), DType::bfloat16, {1, 1, 2, 2}),
                                     Tensor::contiguous(yb.data(), DType::bfloat16, {1, 1, 1, 1}),
                                     dml_desc({2, 2}, 2)),
                {"InputTensor.DataType = bfloat16"}));
    EXPECT_TRUE(fails_with(
        directml::lp_pooling(f32(x, {1, 1, 2, 2}),
                             Tensor::contiguous(yb.data(), DType::float16, {1, 1, 1, 1}),
                             dml_desc({2, 2}, 2)),
        ErrorCode::dtype_mismatch,
        {"OutputTensor.DataType = float16 differs from InputTensor.DataType = float32"}));
    EXPECT_EQ(yb[0], 0);
    EXPECT_TRUE(untouched(y));
}

// ---- DirectML LP_NORMALIZATION ------------------------------------------------------------
//
// Expected values are exact: each is x times the float64 reciprocal of a small integer (or a power
// of two), rounded once to float32 (or float16), and none of them lies near a rounding tie.

directml::LpNormalizationOperatorDesc dml_norm_desc(uint32_t axis, uint32_t p, float epsilon) {
    directml::LpNormalizationOperatorDesc d;
    d.Axis = axis;
    d.P = p;
    d.Epsilon = epsilon;
    return d;
}

TEST(DirectMlLpNormalization, DefaultDescIsTheL2NormOfAxisZero) {
    const directml::LpNormalizationOperatorDesc d;
    EXPECT_EQ(d.Axis, 0u);
    EXPECT_EQ(d.P, 2u);
    EXPECT_EQ(d.Epsilon, 0.00001f);
    std::vector<float> y = canaries(4);
    // Columns {3, 4} and {6, 8}: norms 5 and 10.
    ASSERT_TRUE(directml::lp_normalization(f32({3, 6, 4, 8}, {2, 2}), f32(y, {2, 2}), d).ok());
    EXPECT_EQ(y, (std::vector<float>{0.6f, 0.6f, 0.8f, 0.8f}));
}

TEST(DirectMlLpNormalization, AxisAndP) {
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(directml::lp_normalization(f32({3, -4, 6, 8}, {2, 2}), f32(y, {2, 2}),
                                           dml_norm_desc(1, 1, 0.00001f))
                    .ok());
    EXPECT_EQ(y, (std::vector<float>{3.0f / 7, -4.0f / 7, 6.0f / 14, 8.0f / 14}));
    // 4-D, normalized over C: the two W positions hold {3, 4} and {0, 5}.
    std::vector<float> y4 = canaries(4);
    ASSERT_TRUE(directml::lp_normalization(f32({3, 0, 4, 5}, {1, 2, 1, 2}), f32(y4, {1, 2, 1, 2}),
                                           dml_norm_desc(1, 2, 0.00001f))
                    .ok());
    EXPECT_EQ(y4, (std::vector<float>{0.6f, 0, 0.8f, 1}));
}

// Epsilon is a floor on the norm (EpsMode::norm_max): the norm 0.5 of {0.3, 0.4} (0.7 for P = 1)
// under Epsilon = 2 divides by 2, an exact halving.
TEST(DirectMlLpNormalization, EpsilonIsAFloorOnTheNorm) {
    const std::vector<float> x = {0.3f, 0.4f};
    for (uint32_t p : {1u, 2u}) {
        std::vector<float> y = canaries(2);
        ASSERT_TRUE(
            directml::lp_normalization(f32(x, {2}), f32(y, {2}), dml_norm_desc(0, p, 2)).ok());
        EXPECT_EQ(y, (std::vector<float>{0.3f / 2, 0.4f / 2})) << "P = " << p;
    }
}

// An all-zero row gives zeros, and NaN (0 / 0) with Epsilon = 0; the other row is unaffected.
TEST(DirectMlLpNormalization, ZeroRows) {
    const std::vector<float> x = {0, 0, 3, 4};
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(
        directml::lp_normalization(f32(x, {2, 2}), f32(y, {2, 2}), dml_norm_desc(1, 2, 1e-5f))
            .ok());
    EXPECT_EQ(y, (std::vector<float>{0, 0, 0.6f, 0.8f}));
    ASSERT_TRUE(
        directml::lp_normalization(f32(x, {2, 2}), f32(y, {2, 2}), dml_norm_desc(1, 2, 0)).ok());
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]));
    EXPECT_EQ(y[2], 0.6f);
    EXPECT_EQ(y[3], 0.8f);
}

TEST(DirectMlLpNormalization, Float16) {
    const std::vector<uint16_t> x = {0x4200, 0x4400};  // 3, 4
    std::vector<uint16_t> y = {0, 0};
    ASSERT_TRUE(directml::lp_normalization(Tensor::contiguous(x.data(), DType::float16, {2}),
                                           Tensor::contiguous(y.data(), DType::float16, {2}),
                                           directml::LpNormalizationOperatorDesc{})
                    .ok());
    // 0.6 and 0.8 rounded to float16: 1.2 * 2^-1 (mantissa 204.8 -> 205) and 1.6 * 2^-1 (614.4 ->
    // 614).
    EXPECT_EQ(y, (std::vector<uint16_t>{0x38CD, 0x3A66}));
}

TEST(DirectMlLpNormalization, DescFieldsAreChecked) {
    const std::vector<float> x = {3, 4, 6, 8};
    std::vector<float> y = canaries(4);
    const Tensor in = f32(x, {2, 2}), out = f32(y, {2, 2});
    for (uint32_t p : {0u, 3u}) {
        EXPECT_TRUE(invalid(
            directml::lp_normalization(in, out, dml_norm_desc(1, p, 1e-5f)),
            {"P = " + std::to_string(p) + " is not 1 or 2", "(DML_OPERATOR_LP_NORMALIZATION)"}));
    }
    const std::pair<float, std::string> epsilons[] = {
        {-0.5f, "-0.5"}, {std::nanf(""), "nan"}, {HUGE_VALF, "inf"}};
    for (const auto &[eps, text] : epsilons) {
        EXPECT_TRUE(invalid(directml::lp_normalization(in, out, dml_norm_desc(1, 2, eps)),
                            {"Epsilon = " + text + " must be finite and >= 0"}));
    }
    EXPECT_TRUE(invalid(directml::lp_normalization(in, out, dml_norm_desc(2, 2, 1e-5f)),
                        {"Axis = 2 is out of range: InputTensor has 2 dimensions"}));
    EXPECT_TRUE(untouched(y));
}

TEST(DirectMlLpNormalization, TensorsAre1To8DOfOneTypeAndSize) {
    const std::vector<float> x = {3, 4, 6, 8};
    std::vector<float> y = canaries(4);
    const directml::LpNormalizationOperatorDesc d;
    float s = kCanary;
    EXPECT_TRUE(invalid(
        directml::lp_normalization(scalar(x.data(), DType::float32), scalar(&s, DType::float32), d),
        {"InputTensor has 0 dimensions", "takes 1 to 8"}));
    EXPECT_EQ(s, kCanary);
    EXPECT_TRUE(fails_with(directml::lp_normalization(f32(x, {2, 2}), f32(y, {2, 1, 2}), d),
                           ErrorCode::shape_mismatch,
                           {"OutputTensor has 3 dimensions; InputTensor has 2"}));
    EXPECT_TRUE(fails_with(directml::lp_normalization(f32(x, {2, 2}), f32(y, {4, 1}), d),
                           ErrorCode::shape_mismatch,
                           {"OutputTensor.Sizes[0] = 4 differs from InputTensor.Sizes[0] = 2",
                            "(DML_OPERATOR_LP_NORMALIZATION)"}));
    EXPECT_TRUE(
        fails_with(directml::lp_normalization(
                       f32(x, {2, 2}), Tensor::contiguous(y.data(), DType::float16, {2, 2}), d),
                   ErrorCode::dtype_mismatch,
                   {"OutputTensor.DataType = float16 differs from InputTensor.DataType"}));
    EXPECT_TRUE(untouched(y));
    const std::vector<double> xd = {3, 4};
    std::vector<double> yd = {-1, -1};
    EXPECT_TRUE(
        invalid(directml::lp_normalization(Tensor::contiguous(xd.data(), DType::float64, {2}),
                                           Tensor::contiguous(yd.data(), DType::float64, {2}), d),
                {"InputTensor.DataType = float64 is not FLOAT32 or FLOAT16"}));
    EXPECT_EQ(yd, (std::vector<double>{-1, -1}));
}

// ---- PyTorch lp_pool -----------------------------------------------------------------------

TEST(TorchLpPool, StrideDefaultsToKernelSize) {
    const std::vector<float> x = iota(16);  // 4 x 4
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(torch::lp_pool2d(f32(x, {1, 1, 4, 4}), f32(y, {1, 1, 2, 2}), 1, {2}).ok());
    EXPECT_EQ(y, (std::vector<float>{14, 22, 46, 54}));

    std::vector<float> y9 = canaries(9);
    ASSERT_TRUE(torch::lp_pool2d(f32(x, {1, 1, 4, 4}), f32(y9, {1, 1, 3, 3}), 1, {2}, {1}).ok());
    EXPECT_EQ(y9[0], 14);
    EXPECT_EQ(y9[8], 11 + 12 + 15 + 16);
    std::vector<float> y4 = canaries(4);
    EXPECT_TRUE(
        fails_with(torch::lp_pool2d(f32(x, {1, 1, 4, 4}), f32(y4, {1, 1, 2, 2}), 1, {2}, {1}),
                   ErrorCode::shape_mismatch, {}));
    EXPECT_TRUE(untouched(y4));
}

TEST(TorchLpPool, KernelSizeAndStrideArePerDimOrOneForAll) {
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(torch::lp_pool2d(f32(iota(8), {1, 1, 2, 4}), f32(y, {1, 1, 2, 2}), 1, {1, 2}).ok());
    EXPECT_EQ(y, (std::vector<float>{3, 7, 11, 15}));

    y = canaries(4);
    const std::vector<float> v = iota(16);
    const Tensor x = f32(v, {1, 1, 4, 4});
    EXPECT_TRUE(invalid(torch::lp_pool2d(x, f32(y, {1, 1, 2, 2}), 1, {2, 2, 2}),
                        {"kernel_size = [2, 2, 2] must be a single int or 2 ints (lp_pool2d)"}));
    EXPECT_TRUE(invalid(torch::lp_pool2d(x, f32(y, {1, 1, 2, 2}), 1, {}), {"kernel_size = []"}));
    EXPECT_TRUE(invalid(torch::lp_pool2d(x, f32(y, {1, 1, 2, 2}), 1, {2}, {1, 1, 1}),
                        {"stride = [1, 1, 1] must be a single int or 2 ints"}));
    EXPECT_TRUE(invalid(torch::lp_pool2d(x, f32(y, {1, 1, 2, 2}), 1, {0}), {"kernel_size[0] = 0"}));
    EXPECT_TRUE(
        invalid(torch::lp_pool2d(x, f32(y, {1, 1, 2, 2}), 1, {2}, {2, 0}), {"stride[1] = 0"}));
    EXPECT_TRUE(untouched(y));
}

TEST(TorchLpPool, PowersKeepTheSign) {
    std::vector<float> y = canaries(2);
    const std::vector<float> v = {-1, -2, 3, -4};
    const Tensor x = f32(v, {1, 1, 4});
    ASSERT_TRUE(torch::lp_pool1d(x, f32(y, {1, 1, 2}), 1, {2}).ok());
    EXPECT_EQ(y, (std::vector<float>{-3, -1}));
    ASSERT_TRUE(torch::lp_pool1d(x, f32(y, {1, 1, 2}), 2, {2}).ok());
    EXPECT_FLOAT_EQ(y[0], std::sqrt(5.f));
    EXPECT_FLOAT_EQ(y[1], 5);
    ASSERT_TRUE(torch::lp_pool1d(f32({-1, -2, 3, 4}, {1, 1, 4}), f32(y, {1, 1, 2}), 3, {2}).ok());
    EXPECT_TRUE(std::isnan(y[0])) << y[0];  // (-1 - 8)^(1/3)
    EXPECT_NEAR(y[1], std::cbrt(91.0), 1e-5);
}

TEST(TorchLpPool, CeilModeRescalesThePartialWindow) {
    std::vector<float> y = canaries(3);
    ASSERT_TRUE(
        torch::lp_pool1d(f32(iota(5), {1, 1, 5}), f32(y, {1, 1, 3}), 1, {2}, {}, true).ok());
    EXPECT_EQ(y, (std::vector<float>{3, 7, 10}));  // the last window: 5 * 2 / 1
}

TEST(TorchLpPool, ThreeDimensions) {
    std::vector<float> y = canaries(1);
    ASSERT_TRUE(
        torch::lp_pool3d(f32(iota(8), {1, 1, 2, 2, 2}), f32(y, {1, 1, 1, 1, 1}), 1, {2}).ok());
    EXPECT_EQ(y[0], 36);
}

TEST(TorchLpPool, UnbatchedInputs) {
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(torch::lp_pool1d(f32(iota(8), {2, 4}), f32(y, {2, 2}), 1, {2}).ok());
    EXPECT_EQ(y, (std::vector<float>{3, 7, 11, 15}));

    std::vector<float> y1 = canaries(1);
    ASSERT_TRUE(torch::lp_pool2d(f32(iota(4), {1, 2, 2}), f32(y1, {1, 1, 1}), 2, {2}).ok());
    EXPECT_FLOAT_EQ(y1[0], kSqrt30);

    std::vector<float> y3 = canaries(4);
    EXPECT_TRUE(fails_with(torch::lp_pool1d(f32(iota(8), {2, 4}), f32(y3, {1, 2, 2}), 1, {2}),
                           ErrorCode::shape_mismatch,
                           {"output.rank = 3 differs from input.rank = 2 (unbatched lp_pool1d)"}));
    EXPECT_TRUE(untouched(y3));
}

TEST(TorchLpPool, RankAndNormTypeChecks) {
    std::vector<float> y = canaries(4);
    EXPECT_TRUE(invalid(torch::lp_pool2d(f32(iota(4), {2, 2}), f32(y, {1, 1}), 1, {2}),
                        {"input.rank = 2: lp_pool2d expects 4 dims"}));
    EXPECT_TRUE(
        invalid(torch::lp_pool2d(f32(iota(8), {1, 1, 2, 2, 2}), f32(y, {1, 1, 1, 1, 1}), 1, {2}),
                {"input.rank = 5"}));
    EXPECT_TRUE(invalid(torch::lp_pool3d(f32(iota(4), {1, 1, 4}), f32(y, {1, 1, 2}), 1, {2}),
                        {"input.rank = 3: lp_pool3d"}));
    for (const auto &[norm_type, text] : kBadP) {
        EXPECT_TRUE(
            invalid(torch::lp_pool1d(f32(iota(4), {1, 1, 4}), f32(y, {1, 1, 2}), norm_type, {2}),
                    {"norm_type = " + text + " is not supported"}));
    }
    EXPECT_TRUE(untouched(y));
}

// ---- PyTorch vector_norm -------------------------------------------------------------------

// x[2, 3] = {{-3, 0, 4}, {1, -2, 2}}
const std::vector<float> kX = {-3, 0, 4, 1, -2, 2};

TEST(TorchVectorNorm, NoDimReducesEverything) {
    float y = kCanary;
    ASSERT_TRUE(torch::vector_norm(f32(kX, {2, 3}), scalar(&y, DType::float32)).ok());
    EXPECT_FLOAT_EQ(y, std::sqrt(34.f));
    std::vector<float> y11 = canaries(1);
    ASSERT_TRUE(torch::vector_norm(f32(kX, {2, 3}), f32(y11, {1, 1}), 1, {}, true).ok());
    EXPECT_EQ(y11[0], 12);
}

TEST(TorchVectorNorm, OrdAndDim) {
    std::vector<float> y = canaries(2);
    const Tensor x = f32(kX, {2, 3});
    const std::pair<double, std::vector<float>> cases[] = {
        {1, {7, 5}}, {kInf, {4, 2}}, {-kInf, {0, 1}}, {0, {2, 3}}, {2, {5, 3}},
    };
    for (const auto &c : cases) {
        ASSERT_TRUE(torch::vector_norm(x, f32(y, {2}), c.first, {1}).ok()) << c.first;
        EXPECT_EQ(y, c.second) << "ord " << c.first;
    }
    ASSERT_TRUE(torch::vector_norm(x, f32(y, {2, 1}), 1, {-1}, true).ok());
    EXPECT_EQ(y, (std::vector<float>{7, 5}));
    std::vector<float> y3 = canaries(3);
    ASSERT_TRUE(torch::vector_norm(x, f32(y3, {3}), 1, {0}).ok());
    EXPECT_EQ(y3, (std::vector<float>{4, 2, 6}));
}

TEST(TorchVectorNorm, FloatingDTypesOnly) {
    const std::vector<int32_t> xi = {1, 2};
    std::vector<int32_t> yi = {-1};
    EXPECT_TRUE(invalid(torch::vector_norm(Tensor::contiguous(xi.data(), DType::int32, {2}),
                                           scalar(yi.data(), DType::int32)),
                        {"Expected a floating point or complex tensor as input. Got int32"}));
    EXPECT_EQ(yi[0], -1);

    const std::vector<double> xd = {3, 4};
    double yd = 0;
    ASSERT_TRUE(torch::vector_norm(Tensor::contiguous(xd.data(), DType::float64, {2}),
                                   scalar(&yd, DType::float64))
                    .ok());
    EXPECT_EQ(yd, 5);
    const std::vector<uint16_t> xb = {to_bf16(3), to_bf16(4)};
    uint16_t yb = 0;
    ASSERT_TRUE(torch::vector_norm(Tensor::contiguous(xb.data(), DType::bfloat16, {2}),
                                   scalar(&yb, DType::bfloat16))
                    .ok());
    EXPECT_EQ(from_bf16(yb), 5);
}

TEST(TorchVectorNorm, NegativeOrdsAreUnsupported) {
    std::vector<float> y = canaries(2);
    const std::pair<double, std::string> cases[] = {{-1.0, "-1"}, {-2.5, "-2.5"}, {kNaN, "nan"}};
    for (const auto &[ord, text] : cases) {
        EXPECT_TRUE(invalid(torch::vector_norm(f32(kX, {2, 3}), f32(y, {2}), ord, {1}),
                            {"ord = " + text + " is not supported"}));
    }
    EXPECT_TRUE(untouched(y));
}

TEST(TorchVectorNorm, InfinityNormsOfEmptyReductionsHaveNoIdentity) {
    const std::vector<float> x = {0};  // storage for a [2, 0] view
    std::vector<float> y = canaries(2);
    float y0 = kCanary;
    const Tensor empty = f32(x, {2, 0});
    const Tensor scalar_out = scalar(&y0, DType::float32);
    EXPECT_TRUE(invalid(torch::vector_norm(empty, scalar_out, kInf),
                        {"cannot compute the inf norm on an empty tensor",
                         "the operation does not have an identity"}));
    EXPECT_TRUE(invalid(torch::vector_norm(empty, f32(y, {2}), -kInf, {1}),
                        {"cannot compute the -inf norm on the dimension 1"}));
    EXPECT_TRUE(
        invalid(torch::vector_norm(empty, f32(y, {2}), kInf, {-1}), {"on the dimension -1"}));
    EXPECT_EQ(y0, kCanary);
    EXPECT_TRUE(untouched(y));

    // Reducing the non-empty dim of an empty tensor is fine, and so are ords with an identity.
    EXPECT_TRUE(torch::vector_norm(empty, f32(y, {0}), kInf, {0}).ok());
    for (double ord : {2.0, 1.0, 0.5, 0.0}) {
        ASSERT_TRUE(torch::vector_norm(empty, f32(y, {2}), ord, {1}).ok()) << ord;
        EXPECT_EQ(y, (std::vector<float>{0, 0})) << ord;
        ASSERT_TRUE(torch::vector_norm(empty, scalar_out, ord).ok()) << ord;
        EXPECT_EQ(y0, 0) << ord;
    }
}

TEST(TorchVectorNorm, ZeroDimTensorsAcceptDimZeroOrMinusOne) {
    const float x = -3;
    for (const auto &dim :
         {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{-1}}) {
        float y = kCanary;
        ASSERT_TRUE(
            torch::vector_norm(scalar(&x, DType::float32), scalar(&y, DType::float32), 2, dim)
                .ok());
        EXPECT_EQ(y, 3);
    }
}

TEST(TorchVectorNorm, RepeatedDimsAreRejected) {
    std::vector<float> y = canaries(2);
    EXPECT_EQ(torch::vector_norm(f32(kX, {2, 3}), f32(y, {2}), 2, {1, -1}).code(),
              ErrorCode::invalid_argument);
    EXPECT_TRUE(untouched(y));
}

// ---- PyTorch F.normalize -------------------------------------------------------------------
//
// Expected values as for DirectML: exact, x times the float64 reciprocal of a small integer or a
// power of two, rounded once to float32, none near a rounding tie.

TEST(TorchNormalize, DefaultsAreTheL2NormOfDimOneWithEpsOneEMinusTwelve) {
    // Rows {3, 4} and {0, 0}: the zero row gives zeros (max(0, 1e-12) divides).
    std::vector<float> y = canaries(4);
    ASSERT_TRUE(torch::normalize(f32({3, 4, 0, 0}, {2, 2}), f32(y, {2, 2})).ok());
    EXPECT_EQ(y, (std::vector<float>{0.6f, 0.8f, 0, 0}));
    // eps = 0: 0 / 0.
    ASSERT_TRUE(torch::normalize(f32({3, 4, 0, 0}, {2, 2}), f32(y, {2, 2}), 2, {1}, 0).ok());
    EXPECT_EQ(y[0], 0.6f);
    EXPECT_TRUE(std::isnan(y[2]) && std::isnan(y[3]));
    // dim = 1 of a 1-D tensor is out of range, as in torch.
    std::vector<float> y2 = canaries(2);
    EXPECT_TRUE(invalid(torch::normalize(f32({3, 4}, {2}), f32(y2, {2})), {"axes[0] = 1"}));
    EXPECT_TRUE(untouched(y2));
}

// x / max(||x||, eps): {3, 4} has norm 5, so eps = 2 leaves it and eps = 10 replaces it.
TEST(TorchNormalize, EpsIsAFloorOnTheNorm) {
    std::vector<float> y = canaries(2);
    ASSERT_TRUE(torch::normalize(f32({3, 4}, {2}), f32(y, {2}), 2, {0}, 2).ok());
    EXPECT_EQ(y, (std::vector<float>{0.6f, 0.8f}));
    ASSERT_TRUE(torch::normalize(f32({3, 4}, {2}), f32(y, {2}), 2, {0}, 10).ok());
    EXPECT_EQ(y, (std::vector<float>{0.3f, 0.4f}));
}

TEST(TorchNormalize, POneAndInfinity) {
    std::vector<float> y = canaries(2);
    ASSERT_TRUE(torch::normalize(f32({3, -4}, {2}), f32(y, {2}), 1, {0}).ok());
    EXPECT_EQ(y, (std::vector<float>{3.0f / 7, -4.0f / 7}));
    ASSERT_TRUE(torch::normalize(f32({3, -4}, {2}), f32(y, {2}), kInf, {-1}).ok());
    EXPECT_EQ(y, (std::vector<float>{0.75f, -1}));
}

// dim: one dim, several, or none (every dim); {1, 2, 2, 4} has norm 5 over both dims.
TEST(TorchNormalize, DimsAsATuple) {
    const std::vector<float> x = {1, 2, 2, 4};
    std::vector<float> y = canaries(4);
    for (const auto &dim :
         {std::vector<int64_t>{0, 1}, std::vector<int64_t>{-1, 0}, std::vector<int64_t>{}}) {
        ASSERT_TRUE(torch::normalize(f32(x, {2, 2}), f32(y, {2, 2}), 2, dim).ok());
        EXPECT_EQ(y, (std::vector<float>{0.2f, 0.4f, 0.4f, 0.8f})) << dim.size() << " dims";
    }
    ASSERT_TRUE(torch::normalize(f32(x, {2, 2}), f32(y, {2, 2}), 1, {0}).ok());
    EXPECT_EQ(y, (std::vector<float>{1.0f / 3, 2.0f / 6, 2.0f / 3, 4.0f / 6}));
    EXPECT_TRUE(invalid(torch::normalize(f32(x, {2, 2}), f32(y, {2, 2}), 2, {1, -1}),
                        {"axes[1] = -1", "repeats axes[0]"}));
}

TEST(TorchNormalize, ZeroDimTensorsAcceptDimZeroOrMinusOne) {
    const float x = -3;
    for (const auto &dim :
         {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{-1}}) {
        float y = kCanary;
        ASSERT_TRUE(
            torch::normalize(scalar(&x, DType::float32), scalar(&y, DType::float32), 2, dim).ok());
        EXPECT_EQ(y, -1);
    }
    float y = kCanary;
    EXPECT_TRUE(
        invalid(torch::normalize(scalar(&x, DType::float32), scalar(&y, DType::float32), 2, {1}),
                {"axes[0] = 1", "rank 0"}));
    EXPECT_EQ(y, kCanary);
}

TEST(TorchNormalize, UnsupportedPAndBadArguments) {
    std::vector<float> y = canaries(4);
    const Tensor x = f32({3, 4, 6, 8}, {2, 2});
    const std::pair<double, std::string> ps[] = {
        {0.0, "0"}, {-1.0, "-1"}, {-kInf, "-inf"}, {kNaN, "nan"}};
    for (const auto &[p, text] : ps) {
        EXPECT_TRUE(invalid(torch::normalize(x, f32(y, {2, 2}), p),
                            {"p = " + text + " is not supported", "p > 0 or inf", "(normalize)"}));
    }
    EXPECT_TRUE(invalid(torch::normalize(x, f32(y, {2, 2}), 2, {1}, -1), {"eps = -1"}));
    EXPECT_TRUE(fails_with(torch::normalize(x, f32(y, {4})), ErrorCode::shape_mismatch,
                           {"output.shape = [4]"}));
    EXPECT_TRUE(untouched(y));
    const std::vector<int32_t> xi = {3, 4};
    std::vector<int32_t> yi = {-1, -1};
    EXPECT_TRUE(invalid(torch::normalize(Tensor::contiguous(xi.data(), DType::int32, {2}),
                                         Tensor::contiguous(yi.data(), DType::int32, {2}), 2, {0}),
                        {"input.dtype = int32"}));
    EXPECT_EQ(yi, (std::vector<int32_t>{-1, -1}));
}

}  // namespace
}  // namespace lpnorm
