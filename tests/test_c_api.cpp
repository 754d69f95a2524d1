// The C ABI: same results and error codes as the C++ API, with a thread-local last error.
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lpnorm/lpnorm_c.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

lpnorm_tensor view(void *data, lpnorm_dtype dtype, const std::vector<int64_t> &shape,
                   const std::vector<int64_t> *strides = nullptr) {
    return lpnorm_tensor{data, dtype, static_cast<int32_t>(shape.size()), shape.data(),
                         strides ? strides->data() : nullptr};
}

std::string last_error() { return lpnorm_last_error(); }

TEST(CApi, ReduceMatchesReference) {
    Array x = make_array(DType::float32, {4, 6});
    fill_random(&x, 3);
    const std::vector<int64_t> in_shape = {4, 6}, out_shape = {4};
    const int64_t axes[] = {-1};
    for (double p : p_classes()) {
        std::vector<float> out(4, -1.0f);
        const lpnorm_tensor in = view(x.storage.data(), LPNORM_FLOAT32, in_shape);
        const lpnorm_tensor o = view(out.data(), LPNORM_FLOAT32, out_shape);
        ASSERT_EQ(lpnorm_reduce(&in, &o, axes, 1, p, 0, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
            << last_error();
        const ref::Result r = ref::reduce(x.t, params({-1}, p));
        for (int i = 0; i < 4; ++i)
            EXPECT_TRUE(ref::matches(DType::float32, p, r.values[i], out[i]))
                << "p=" << p << " i=" << i;
    }
}

TEST(CApi, StridedAndEnumsMatchCpp) {
    // A transposed float16 view with keep_dims, through both APIs: identical bytes.
    Array x = make_strided(DType::float16, {5, 3}, {1, 5});
    fill_random(&x, 8);
    const std::vector<int64_t> shape = {5, 3}, strides = {1, 5}, out_shape = {1, 3};
    const int64_t axes[] = {0};
    std::vector<uint16_t> c_out(3, 0xffff);
    const lpnorm_tensor in = view(x.t.data, LPNORM_FLOAT16, shape, &strides);
    const lpnorm_tensor o = view(c_out.data(), LPNORM_FLOAT16, out_shape);
    ASSERT_EQ(lpnorm_reduce(&in, &o, axes, 1, 2.0, 1, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
        << last_error();
    Status s;
    const Array cpp = run_reduce(x.t, params({0}, 2, true), &s);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(std::memcmp(cpp.storage.data(), c_out.data(), 6), 0);
    // Enum values agree between the two headers.
    EXPECT_EQ(LPNORM_BFLOAT16, static_cast<int>(DType::bfloat16));
    EXPECT_EQ(LPNORM_UINT64, static_cast<int>(DType::uint64));
    EXPECT_EQ(LPNORM_ALIASING, static_cast<int>(ErrorCode::aliasing));
    EXPECT_EQ(LPNORM_EMPTY_AXES_ELEMENTWISE, static_cast<int>(EmptyAxes::elementwise));
}

TEST(CApi, EmptyAxesPoliciesAndNullAxes) {
    const std::vector<int64_t> shape = {2, 2};
    float x[4] = {-1, 2, -3, 4};
    float y[4] = {0, 0, 0, 0};
    const lpnorm_tensor in = view(x, LPNORM_FLOAT32, shape);
    const lpnorm_tensor o = view(y, LPNORM_FLOAT32, shape);
    ASSERT_EQ(lpnorm_reduce(&in, &o, nullptr, 0, 2.0, 0, LPNORM_EMPTY_AXES_IDENTITY), LPNORM_OK)
        << last_error();
    EXPECT_EQ(y[0], -1);
    ASSERT_EQ(lpnorm_reduce(&in, &o, nullptr, 0, 2.0, 0, LPNORM_EMPTY_AXES_ELEMENTWISE), LPNORM_OK)
        << last_error();
    EXPECT_EQ(y[2], 3);
    float scalar = -1;
    const int64_t unused = 0;  // rank 0: no shape entries are read
    const lpnorm_tensor s{&scalar, LPNORM_FLOAT32, 0, &unused, nullptr};
    ASSERT_EQ(lpnorm_reduce(&in, &s, nullptr, 0, 1.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
        << last_error();
    EXPECT_EQ(scalar, 10);
}

TEST(CApi, Errors) {
    const std::vector<int64_t> shape = {2, 3}, out_shape = {2};
    float x[6] = {1, 2, 3, 4, 5, 6};
    float y[2] = {-7, -7};
    const lpnorm_tensor in = view(x, LPNORM_FLOAT32, shape);
    const lpnorm_tensor o = view(y, LPNORM_FLOAT32, out_shape);
    const int64_t bad_axes[] = {1, 7};
    auto untouched = [&] { return y[0] == -7 && y[1] == -7; };

    EXPECT_EQ(lpnorm_reduce(&in, &o, bad_axes, 2, 2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("axes[1]"), std::string::npos) << last_error();
    EXPECT_NE(last_error().find("7"), std::string::npos) << last_error();
    EXPECT_TRUE(untouched());

    const int64_t one[] = {1};
    EXPECT_EQ(lpnorm_reduce(&in, &o, one, 1, -2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("p"), std::string::npos);
    EXPECT_EQ(lpnorm_reduce(&in, &o, one, 1, 2.0, 0, 9), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("9"), std::string::npos) << last_error();
    EXPECT_EQ(lpnorm_reduce(&in, &o, nullptr, 1, 2.0, 0, 1), LPNORM_NULL_POINTER);
    EXPECT_EQ(lpnorm_reduce(&in, &o, one, -1, 2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    EXPECT_EQ(lpnorm_reduce(nullptr, &o, one, 1, 2.0, 0, 1), LPNORM_NULL_POINTER);
    EXPECT_EQ(lpnorm_reduce(&in, nullptr, one, 1, 2.0, 0, 1), LPNORM_NULL_POINTER);

    const lpnorm_tensor wrong_dtype = view(y, LPNORM_INT32, out_shape);
    EXPECT_EQ(lpnorm_reduce(&in, &wrong_dtype, one, 1, 2.0, 0, 1), LPNORM_DTYPE_MISMATCH);
    lpnorm_tensor bad_dtype = in;
    bad_dtype.dtype = 42;
    EXPECT_EQ(lpnorm_reduce(&bad_dtype, &o, one, 1, 2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("42"), std::string::npos) << last_error();
    const std::vector<int64_t> three = {3};
    const lpnorm_tensor wrong_shape = view(y, LPNORM_FLOAT32, three);
    EXPECT_EQ(lpnorm_reduce(&in, &wrong_shape, one, 1, 2.0, 0, 1), LPNORM_SHAPE_MISMATCH);
    const lpnorm_tensor aliased = view(x, LPNORM_FLOAT32, out_shape);
    EXPECT_EQ(lpnorm_reduce(&in, &aliased, one, 1, 2.0, 0, 1), LPNORM_ALIASING);
    lpnorm_tensor rank9 = in;
    const std::vector<int64_t> nine(9, 1);
    rank9.rank = 9;
    rank9.shape = nine.data();
    EXPECT_EQ(lpnorm_reduce(&rank9, &o, one, 1, 2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    lpnorm_tensor null_shape = in;
    null_shape.shape = nullptr;
    EXPECT_EQ(lpnorm_reduce(&null_shape, &o, one, 1, 2.0, 0, 1), LPNORM_NULL_POINTER);
    EXPECT_TRUE(untouched());
    EXPECT_EQ(x[5], 6);

    EXPECT_EQ(lpnorm_reduce(&in, &o, one, 1, 2.0, 0, 1), LPNORM_OK) << last_error();
    EXPECT_EQ(last_error(), "");
}

TEST(CApi, LastErrorIsThreadLocal) {
    const std::vector<int64_t> shape = {2, 3}, out_shape = {2};
    float x[6] = {1, 2, 3, 4, 5, 6};
    float y[2];
    const lpnorm_tensor in = view(x, LPNORM_FLOAT32, shape);
    const lpnorm_tensor o = view(y, LPNORM_FLOAT32, out_shape);
    const int64_t bad[] = {5};
    ASSERT_EQ(lpnorm_reduce(&in, &o, bad, 1, 2.0, 0, 1), LPNORM_INVALID_ARGUMENT);
    const std::string mine = last_error();
    ASSERT_FALSE(mine.empty());
    std::string other_before, other_after;
    std::thread t([&] {
        other_before = last_error();
        const int64_t good[] = {1};
        lpnorm_reduce(&in, &o, good, 1, 2.0, 0, 1);
        const int64_t worse[] = {-9};
        lpnorm_reduce(&in, &o, worse, 1, 2.0, 0, 1);
        other_after = last_error();
    });
    t.join();
    EXPECT_EQ(other_before, "");
    EXPECT_NE(other_after.find("-9"), std::string::npos) << other_after;
    EXPECT_EQ(last_error(), mine);
}

TEST(CApi, OutputShapeAndIsa) {
    const int64_t shape[] = {6, 12, 10, 24};
    const int64_t axes[] = {2, 3};
    int32_t rank = -1;
    int64_t out[8] = {};
    ASSERT_EQ(lpnorm_reduce_output_shape(4, shape, axes, 2, 1, 1, &rank, out), LPNORM_OK)
        << last_error();
    EXPECT_EQ(rank, 4);
    EXPECT_EQ(out[0], 6);
    EXPECT_EQ(out[1], 12);
    EXPECT_EQ(out[2], 1);
    EXPECT_EQ(out[3], 1);
    const int64_t neg[] = {-2};
    ASSERT_EQ(lpnorm_reduce_output_shape(4, shape, neg, 1, 0, 1, &rank, out), LPNORM_OK);
    EXPECT_EQ(rank, 3);
    EXPECT_EQ(out[2], 24);
    const int64_t dup[] = {1, -3};
    EXPECT_EQ(lpnorm_reduce_output_shape(4, shape, dup, 2, 0, 1, &rank, out),
              LPNORM_INVALID_ARGUMENT);

    EXPECT_EQ(lpnorm_set_isa("no-such-isa"), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("no-such-isa"), std::string::npos) << last_error();
    EXPECT_EQ(lpnorm_set_isa("auto"), LPNORM_OK);
    EXPECT_STREQ(lpnorm_active_isa(), isa_name(active_isa()));
    EXPECT_NE(std::string(lpnorm_version()), "");
}

}  // namespace
}  // namespace lpnorm::test
