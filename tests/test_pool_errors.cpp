// Bad pooling input: each error path returns its code, names the argument and value, and
// leaves the (canary-filled) output untouched; the C ABI reports the same errors.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "lpnorm/lpnorm_c.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

PoolParams pool2x2() {
    PoolParams p;
    p.kernel = {2, 2};
    p.strides = {2, 2};
    return p;
}

struct PoolErrors : public ::testing::Test {
    Array in = make_array(DType::float32, {2, 3, 6, 8});
    Array out = make_array(DType::float32, {2, 3, 6, 8});  // large enough for every output
    void SetUp() override {
        fill_random(&in, 3);
        fill_bytes(&out, 0xA5);
    }
    Tensor out_as(const std::vector<int64_t> &shape, DType d = DType::float32) {
        return Tensor::contiguous(out.storage.data(), d, shape);
    }
    // pool() fails with `code`, its message holds every fragment, the output is untouched,
    // and pool_output_shape agrees for attribute errors.
    void expect(const Tensor &x, const Tensor &y, const PoolParams &p, ErrorCode code,
                const std::vector<std::string> &fragments, bool attribute_error = true) {
        const std::vector<unsigned char> before = out.storage;
        const Status s = pool(x, y, p);
        EXPECT_EQ(s.code(), code) << error_code_name(s.code()) << ": " << s.message();
        for (const std::string &f : fragments) {
            EXPECT_NE(lower(s.message()).find(lower(f)), std::string::npos)
                << "message \"" << s.message() << "\" lacks \"" << f << "\"";
        }
        EXPECT_TRUE(before == out.storage) << "output written on error: " << s.message();
        if (attribute_error) {
            std::vector<int64_t> shape;
            const Status shape_status = pool_output_shape(x.shape_vector(), p, &shape);
            EXPECT_EQ(shape_status.code(), code) << shape_status.message();
        }
    }
    Tensor good_out() { return out_as({2, 3, 3, 4}); }
};

TEST_F(PoolErrors, KernelAndRank) {
    PoolParams p = pool2x2();
    p.kernel = {};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"kernel", "0 values"});
    p.kernel = {2, 2, 2, 2};
    p.strides = {};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"kernel", "4 values"});
    p = pool2x2();
    p.kernel = {2, 0};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"kernel[1] = 0"});
    p = pool2x2();
    p.kernel = {2};
    p.strides = {2};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"input.rank = 4", "expected rank 3"});
}

TEST_F(PoolErrors, StridesDilationsPads) {
    PoolParams p = pool2x2();
    p.strides = {2};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"strides has 1 values"});
    p.strides = {2, 0};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"strides[1] = 0"});
    p = pool2x2();
    p.dilations = {-1, 1};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"dilations[0] = -1"});
    p = pool2x2();
    p.pads = {1, 1, 1};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument,
           {"pads has 3 values", "expected 0 or 4"});
    p.pads = {0, 0, -2, 0};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"pads[2] = -2"});
}

TEST_F(PoolErrors, PAndEnums) {
    for (double bad : {0.0, -1.0, double(NAN), double(HUGE_VAL), -double(HUGE_VAL)}) {
        PoolParams p = pool2x2();
        p.p = bad;
        expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"p = "});
    }
    PoolParams p = pool2x2();
    p.auto_pad = static_cast<AutoPad>(9);
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"auto_pad = 9"});
    p = pool2x2();
    p.mode = static_cast<PoolMode>(-1);
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"mode = -1"});
    p = pool2x2();
    p.overhang = static_cast<Overhang>(2);
    expect(in.t, good_out(), p, ErrorCode::invalid_argument, {"overhang = 2"});
}

TEST_F(PoolErrors, WindowLargerThanInput) {
    PoolParams p = pool2x2();
    p.kernel = {7, 2};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument,
           {"input.shape[2] = 6", "kernel[0] = 7"});
    p = pool2x2();
    p.dilations = {1, 8};
    expect(in.t, good_out(), p, ErrorCode::invalid_argument,
           {"input.shape[3] = 8", "dilations[1] = 8"});
}

TEST_F(PoolErrors, TensorsAndDtypes) {
    Array ints = make_array(DType::int32, {2, 3, 6, 8});
    expect(ints.t, out_as({2, 3, 3, 4}, DType::int32), pool2x2(), ErrorCode::invalid_argument,
           {"input.dtype = int32"}, false);
    expect(in.t, out_as({2, 3, 3, 5}), pool2x2(), ErrorCode::shape_mismatch,
           {"output.shape = [2, 3, 3, 5]", "[2, 3, 3, 4]"}, false);
    expect(in.t, out_as({2, 3, 3, 4}, DType::float64), pool2x2(), ErrorCode::dtype_mismatch,
           {"output.dtype = float64"}, false);
    Tensor null_in = in.t;
    null_in.data = nullptr;
    expect(null_in, good_out(), pool2x2(), ErrorCode::null_pointer, {"input.data is null"}, false);
    // The output inside the input's memory.
    const Tensor inside = Tensor::contiguous(in.storage.data(), DType::float32, {2, 3, 3, 4});
    const std::vector<unsigned char> before = in.storage;
    EXPECT_EQ(pool(in.t, inside, pool2x2()).code(), ErrorCode::aliasing);
    EXPECT_TRUE(before == in.storage);
}

TEST_F(PoolErrors, CApiReportsTheSameErrors) {
    const int64_t shape[4] = {2, 3, 6, 8}, out_shape[4] = {2, 3, 3, 4};
    lpnorm_tensor x{in.storage.data(), LPNORM_FLOAT32, 4, shape, nullptr};
    lpnorm_tensor y{out.storage.data(), LPNORM_FLOAT32, 4, out_shape, nullptr};
    const int64_t kernel[2] = {2, 2}, strides[2] = {2, 0};
    lpnorm_pool_params p{2,
                         kernel,
                         strides,
                         nullptr,
                         nullptr,
                         LPNORM_AUTO_PAD_NOTSET,
                         0,
                         2.0,
                         LPNORM_POOL_ABS,
                         LPNORM_OVERHANG_SUM};
    const std::vector<unsigned char> before = out.storage;
    EXPECT_EQ(lpnorm_pool(&x, &y, &p), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lpnorm_last_error()).find("strides[1] = 0"), std::string::npos)
        << lpnorm_last_error();
    EXPECT_EQ(lpnorm_pool(&x, &y, nullptr), LPNORM_NULL_POINTER);
    p.spatial_dims = 4;
    EXPECT_EQ(lpnorm_pool(&x, &y, &p), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lpnorm_last_error()).find("spatial_dims = 4"), std::string::npos);
    EXPECT_TRUE(before == out.storage);

    // A valid call through the C ABI matches the C++ one, and the output shape query works.
    const int64_t good_strides[2] = {2, 2};
    p.spatial_dims = 2;
    p.strides = good_strides;
    int32_t rank = 0;
    int64_t got_shape[8] = {};
    ASSERT_EQ(lpnorm_pool_output_shape(4, shape, &p, &rank, got_shape), LPNORM_OK);
    EXPECT_EQ(std::vector<int64_t>(got_shape, got_shape + rank),
              std::vector<int64_t>(out_shape, out_shape + 4));
    ASSERT_EQ(lpnorm_pool(&x, &y, &p), LPNORM_OK) << lpnorm_last_error();
    Array expected = make_array(DType::float32, {2, 3, 3, 4});
    ASSERT_TRUE(pool(in.t, expected.t, pool2x2()).ok());
    EXPECT_TRUE(std::equal(expected.storage.begin(), expected.storage.end(), out.storage.begin()));
}

}  // namespace
}  // namespace lpnorm::test
