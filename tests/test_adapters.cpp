// The ONNX and OpenVINO adapters map each framework's attributes onto lpnorm::reduce.
#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace lpnorm
