// lpnorm::reduce_backward against the reference (reference/reduce_backward_reference.h): every
// ISA x dtype x layout x p-class, ties of p = +-inf, NaN/inf/zero elements and gradients as
// PyTorch's autograd gives them, values whose powers overflow, strided views, the empty-axes
// policies, finite differences of lpnorm::reduce in float64, and the C ABI.
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "lpnorm/lpnorm_c.h"
#include "reference/reduce_backward_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

const long double kInf = std::numeric_limits<long double>::infinity();
const long double kNaN = std::numeric_limits<long double>::quiet_NaN();

std::vector<int64_t> shape_of(const Tensor &t) {
    return std::vector<int64_t>(t.shape, t.shape + t.rank);
}

// y = lpnorm::reduce(x) on the CPU backend: the gradient under test runs on the process's
// backend (LPNORM_BACKEND), and the forward GPU kernels are held to their own suites.
Array forward(const Tensor &x, const ReduceParams &p, Status *s) {
    const Backend saved = backend_override();
    EXPECT_TRUE(set_backend(Backend::cpu).ok());
    Array y = run_reduce(x, p, s);
    EXPECT_TRUE(set_backend(saved).ok());
    return y;
}

// Runs reduce_backward(x, y, dy) into a canary-filled dx and compares every element with the
// reference; `kernel` (when not empty) must appear in the symbol of the kernel that ran.
::testing::AssertionResult check_gradient(const Tensor &x, const Tensor &y, const Tensor &dy,
                                          const ReduceParams &p, const std::string &kernel = "") {
    const ref::GradientResult want = ref::reduce_backward(x, y, dy, p);
    if (!want.ok) return ::testing::AssertionFailure() << "reference refused: " << want.error;
    Array dx = make_array(x.dtype, shape_of(x));
    fill_bytes(&dx, 0xA5);
    const Status s = reduce_backward(x, y, dy, dx.t, p);
    if (s.code() == ErrorCode::unsupported && backend_lacks_dtype(x.dtype, "reduce_backward")) {
        return ::testing::AssertionSuccess();  // the documented answer of a GPU backend
    }
    if (!s.ok()) return ::testing::AssertionFailure() << describe(x, p) << ": " << s.message();
    if (!kernel.empty() && std::string(testing::last_kernel()).find(kernel) == std::string::npos) {
        return ::testing::AssertionFailure()
               << describe(x, p) << ": ran " << testing::last_kernel() << ", not " << kernel;
    }
    for (size_t i = 0; i < want.values.size(); i++) {
        const long double got = dx.at(int64_t(i));
        if (!ref::gradient_matches(x.dtype, want.values[i], got)) {
            return ::testing::AssertionFailure()
                   << describe(x, p) << ": dx element " << i << " is " << (double)got
                   << ", expected " << (double)want.values[i].value << " (relative bound "
                   << (double)want.values[i].rel << " plus the rounding)";
        }
    }
    return ::testing::AssertionSuccess();
}

// y from lpnorm::reduce, dy random: the gradient of a call as a framework makes it.
::testing::AssertionResult check_call(const Tensor &x, const ReduceParams &p, uint64_t seed,
                                      const std::string &kernel = "") {
    Status s;
    Array y = forward(x, p, &s);
    if (!s.ok()) return ::testing::AssertionFailure() << "forward: " << s.message();
    Array dy = make_array(x.dtype, shape_of(y.t));
    fill_random(&dy, seed);
    return check_gradient(x, y.t, dy.t, p, kernel);
}

struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
    std::string kernel;  // the pattern it must run ("": through the reordered copies)
};

std::vector<Case> cases(int64_t s) {
    return {
        {{3, s}, {1}, s > 1 ? "reduce_backward_inner" : ""},
        {{s}, {-1}, "reduce_backward_inner"},
        {{2, s, 3}, {1}, "reduce_backward_middle"},
        {{s, 5}, {0}, "reduce_backward_middle"},
        {{2, 3, s}, {0, 1}, s > 1 ? "reduce_backward_middle" : ""},
        {{2, s, 3, 2}, {1, 3}, ""},  // reduced axes apart: the copies
    };
}

const std::vector<int64_t> kSizes = {1, 2, 3, 5, 8, 9, 16, 17, 33, 64, 127};
const std::vector<double> kOrders = {1, 2, 3, 4, 2.5, 0.5, 7, INFINITY, -INFINITY, 0};

class ReduceBackwardSweep : public ::testing::TestWithParam<std::tuple<Isa, DType>> {
protected:
    void TearDown() override { set_isa(Isa::auto_detect); }
    FailureBudget budget_;
};

TEST_P(ReduceBackwardSweep, LayoutsAndOrders) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "reduce_backward", dtype, &why)) GTEST_SKIP() << why;
    uint64_t seed = 31;
    for (int64_t s : kSizes) {
        for (const Case &c : cases(s)) {
            Array x = make_array(dtype, c.shape);
            fill_random(&x, seed++);
            for (double p : kOrders) {
                for (bool keep : {false, true}) {
                    const std::string kernel = p == 0 ? "" : c.kernel;
                    if (!budget_.record(check_call(x.t, params(c.axes, p, keep), seed++, kernel))) {
                        return;
                    }
                }
            }
        }
    }
}

// Large calls run on the thread pool, in tasks of rows or blocks of groups.
TEST_P(ReduceBackwardSweep, LargeShapes) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "reduce_backward", dtype, &why)) GTEST_SKIP() << why;
    const bool emulated = running_emulated();
    const int64_t n = emulated ? 24 : 96;
    uint64_t seed = 5;
    for (const Case &c : {Case{{n, 1000}, {1}, "reduce_backward_inner"},
                          Case{{4, n, 300}, {1}, "reduce_backward_middle"},
                          Case{{n * 300, 3}, {0}, "reduce_backward_middle"}}) {
        Array x = make_array(dtype, c.shape);
        fill_random(&x, seed++);
        for (double p : {2.0, 1.5, double(INFINITY)}) {
            if (!budget_.record(check_call(x.t, params(c.axes, p), seed++, c.kernel))) return;
        }
    }
}

std::string sweep_name(const ::testing::TestParamInfo<std::tuple<Isa, DType>> &info) {
    return std::string(isa_name(std::get<0>(info.param))) + "_" +
           dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(FloatVariants, ReduceBackwardSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::Values(DType::float32, DType::float16,
                                                              DType::bfloat16, DType::float64)),
                         sweep_name);

class ReduceBackwardDtype : public ::testing::TestWithParam<DType> {};

// Rows of 4 reduced along axis 1, dy = 1 unless given: the values PyTorch 2.15's autograd of
// torch.linalg.vector_norm gives for each (checked by hand against the formulas of lpnorm.h).
struct SpecialRow {
    std::vector<long double> x;
    double p;
    long double dy;
    std::vector<long double> dx;
};

TEST_P(ReduceBackwardDtype, SpecialValuesAsPyTorch) {
    const DType d = GetParam();
    const std::vector<SpecialRow> rows = {
        {{3, -3, 1, 2}, INFINITY, 1, {0.5, -0.5, 0, 0}},       // ties share dy
        {{3, -1, 1, 2}, -INFINITY, 1, {0, -0.5, 0.5, 0}},      // min |x| ties
        {{3, kNaN, 1, 1}, INFINITY, 1, {0, 0, 0, 0}},          // y NaN: sgn(NaN) = 0
        {{0, 0, 1, 2}, -INFINITY, 1, {0, 0, 0, 0}},            // ties at 0: sgn(0) = 0
        {{kInf, 1, 1, 1}, INFINITY, 1, {1, 0, 0, 0}},          //
        {{0, -4, 1, 0}, 1, 1, {0, -1, 1, 0}},                  // sgn(0) = 0
        {{kNaN, -4, 1, 0}, 1, 1, {0, -1, 1, 0}},               // sgn(NaN) = 0
        {{kNaN, -4, 1, 0}, 2, 1, {kNaN, kNaN, kNaN, kNaN}},    // y NaN
        {{kNaN, -4, 1, 0}, 1.5, 1, {kNaN, kNaN, kNaN, kNaN}},  //
        {{0, 0, 0, 0}, 2, 1, {0, 0, 0, 0}},                    // y = 0
        {{0, 0, 0, 0}, 0.5, 1, {0, 0, 0, 0}},                  //
        {{kInf, 1, 0, 0}, 2, 1, {kNaN, 0, 0, 0}},              // inf / inf
        {{kInf, 1, 0, 0}, 3, 1, {kNaN, 0, 0, 0}},              //
        {{kInf, 1, 0, 0}, 0.5, 1, {kNaN, kInf, kNaN, kNaN}},   // 0^(-1/2); 0 * y^(1/2)
        {{0, kInf, 1, 0}, 1.5, 1, {0, kNaN, 0, 0}},            // 0 / y^(1/2)
        {{kNaN, -4, 1, 0}, 0.5, 1, {kNaN, kNaN, kNaN, kNaN}},  //
        {{kNaN, -4, 1, 0}, 3, 1, {kNaN, kNaN, kNaN, kNaN}},    //
        {{kInf, -kInf, 0, 0}, 1, 1, {1, -1, 0, 0}},            //
        {{0, 3, 4, 0}, 2, kInf, {kNaN, kInf, kInf, kNaN}},     // 0 * inf
        {{0, 3, 4, 0}, 1, kInf, {kNaN, kInf, kInf, kNaN}},     //
        {{0, 3, 4, 0}, 0.5, kNaN, {kNaN, kNaN, kNaN, kNaN}},   // NaN dy everywhere
        {{0, 3, 4, 0}, 0, 1, {0, 0, 0, 0}},                    // p = 0: no gradient
    };
    for (const SpecialRow &r : rows) {
        Array x = make_from(d, {1, 4}, r.x);
        Status s;
        Array y = forward(x.t, params({1}, r.p), &s);
        ASSERT_TRUE(s.ok()) << s.message();
        Array dy = make_from(d, {1}, {r.dy});
        Array dx = make_array(d, {1, 4});
        ASSERT_TRUE(reduce_backward(x.t, y.t, dy.t, dx.t, params({1}, r.p)).ok());
        for (int64_t i = 0; i < 4; i++) {
            const long double want = ref::round_to_dtype(d, r.dx[size_t(i)]);
            const long double got = dx.at(i);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << "p = " << r.p << " element " << i;
            } else {
                EXPECT_EQ(got, want) << "p = " << r.p << " element " << i;
            }
        }
    }
}

// Norms whose powers leave the type: dx from t = |x| / y, never from x^(p-1) and y^(p-1).
TEST_P(ReduceBackwardDtype, PowersBeyondTheRange) {
    const DType d = GetParam();
    const long double big = d == DType::float64 ? 1e200L : d == DType::float16 ? 3e4L : 1e30L;
    for (double p : {3.0, 4.0, 2.5}) {
        Array x = make_from(d, {2}, {big, -big});
        const long double v = ref::round_to_dtype(d, big);
        // The exact norm, rounded into the dtype (the forward's own overflow is issue 24's).
        Array y = make_from(d, {}, {v * std::pow(2.0L, 1.0L / p)});
        Array dy = make_from(d, {}, {1});
        EXPECT_TRUE(check_gradient(x.t, y.t, dy.t, params({0}, p))) << "p = " << p;
        Array dx = make_array(d, {2});
        ASSERT_TRUE(reduce_backward(x.t, y.t, dy.t, dx.t, params({0}, p)).ok());
        EXPECT_TRUE(std::isfinite(double(dx.at(0))) && dx.at(0) > 0.3) << double(dx.at(0));
    }
}

// Norms below the normal range: the reciprocal of a subnormal y would overflow, so it is
// taken of y lifted by 2^64 (x with it), exactly.
TEST_P(ReduceBackwardDtype, SubnormalNorms) {
    const DType d = GetParam();
    const long double tiny = d == DType::float64 ? 1e-310L : d == DType::float16 ? 1e-7L : 1e-40L;
    uint64_t seed = 71;
    for (double p : {1.0, 2.0, 3.0, 4.0, 2.5, double(INFINITY)}) {
        Array x = make_from(d, {2, 3}, {tiny, -2 * tiny, 3 * tiny, -tiny, 0, tiny / 2});
        EXPECT_TRUE(check_call(x.t, params({1}, p), seed++)) << "p = " << p;
        EXPECT_TRUE(check_call(x.t, params({0}, p), seed++)) << "p = " << p;
    }
}

// Ratios t = |x| / y below the normal range of the compute type (float32 for 16- and 32-bit
// dtypes) beside an ordinary norm: a general p's power of a subnormal t. Halide's float32 pow,
// which the CPU kernels took before float32_pow (generators/float_math.h), was off by orders of
// magnitude there.
TEST_P(ReduceBackwardDtype, SubnormalRatios) {
    const DType d = GetParam();
    // Below 2^-126 (2^-1022) relative to 1, and representable in the dtype (float16 cannot).
    const long double tiny = d == DType::float64 ? 1e-310L : 1e-40L;
    if (d == DType::float16) GTEST_SKIP() << "float16 has no values 2^-126 apart";
    uint64_t seed = 91;
    for (double p : {1.2, 2.5, 0.5}) {
        Array x = make_from(d, {2, 4}, {1, tiny, -2 * tiny, 3 * tiny, -1, tiny / 2, 0, 5 * tiny});
        EXPECT_TRUE(check_call(x.t, params({1}, p), seed++)) << "p = " << p;
    }
}

// x, y, dy as views with gaps and reversed axes; y and dy of keep_dims = true and false.
TEST_P(ReduceBackwardDtype, StridedViews) {
    const DType d = GetParam();
    Array x = make_strided(d, {6, 10}, {20, 2});
    fill_random(&x, 41);
    Array xr = make_strided(d, {5, 7}, {-7, -1});
    fill_random(&xr, 42);
    uint64_t seed = 43;
    for (const Array *a : {&x, &xr}) {
        for (int64_t axis : {0, 1}) {
            for (bool keep : {false, true}) {
                for (double p : {1.0, 2.0, 2.5, double(INFINITY)}) {
                    const ReduceParams rp = params({axis}, p, keep);
                    Status s;
                    Array y = forward(a->t, rp, &s);
                    ASSERT_TRUE(s.ok()) << s.message();
                    // y and dy reversed, every other element of a larger buffer.
                    const std::vector<int64_t> ys = shape_of(y.t);
                    std::vector<int64_t> strides(ys.size());
                    int64_t stride = -2;
                    for (size_t k = ys.size(); k-- > 0;) {
                        strides[k] = stride;
                        stride *= std::max<int64_t>(ys[k], 1);
                    }
                    Array yv = make_strided(d, ys, strides), dyv = make_strided(d, ys, strides);
                    Array dy = make_array(d, ys);
                    fill_random(&dy, seed++);
                    for (int64_t i = 0; i < y.t.num_elements(); i++) {
                        std::vector<int64_t> index(ys.size());
                        int64_t rest = i;
                        for (size_t k = ys.size(); k-- > 0;) {
                            index[k] = rest % ys[k];
                            rest /= ys[k];
                        }
                        yv.set(index, y.at(i));
                        dyv.set(index, dy.at(i));
                    }
                    EXPECT_TRUE(check_gradient(a->t, yv.t, dyv.t, rp));
                }
            }
        }
    }
}

// Empty axes: identity gives dy, elementwise sgn(x) dy, reduce_all the gradient over every axis.
TEST_P(ReduceBackwardDtype, EmptyAxesPolicies) {
    const DType d = GetParam();
    Array x = make_array(d, {3, 5});
    fill_random(&x, 51);
    uint64_t seed = 52;
    for (EmptyAxes policy : {EmptyAxes::identity, EmptyAxes::elementwise, EmptyAxes::reduce_all}) {
        for (double p : {1.0, 2.0, 0.5, double(INFINITY)}) {
            EXPECT_TRUE(check_call(x.t, params({}, p, false, policy), seed++));
            EXPECT_TRUE(check_call(x.t, params({}, p, true, policy), seed++));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Floats, ReduceBackwardDtype,
                         ::testing::Values(DType::float32, DType::float16, DType::bfloat16,
                                           DType::float64),
                         [](const ::testing::TestParamInfo<DType> &info) {
                             return std::string(dtype_name(info.param));
                         });

// The gradient is the derivative: central differences of sum(dy * reduce(x)) in float64, at
// points where the norm is differentiable (no zeros, no ties).
TEST(ReduceBackward, FiniteDifferences) {
    struct Shape {
        std::vector<int64_t> shape;
        std::vector<int64_t> axes;
    };
    const std::vector<Shape> shapes = {
        {{3, 7}, {1}}, {{4, 5, 3}, {1}}, {{2, 3, 4}, {0, 2}}, {{6}, {}}, {{3, 4}, {0}}};
    uint64_t seed = 61;
    for (const Shape &c : shapes) {
        Array x = make_array(DType::float64, c.shape);
        // Distinct magnitudes in [0.5, 8), either sign.
        for (int64_t i = 0; i < x.t.num_elements(); i++) {
            const long double m = 0.5L + std::fmod(1.618033988749895L * (i + 1) * 7.3L, 7.5L);
            x.set_at(i, (i * 5 + seed) % 3 == 0 ? -m : m);
        }
        for (double p : {1.0, 2.0, 3.0, 2.5, 0.5, 7.0, double(INFINITY), double(-INFINITY)}) {
            const ReduceParams rp = params(c.axes, p);
            Status s;
            Array y = forward(x.t, rp, &s);
            ASSERT_TRUE(s.ok()) << s.message();
            Array dy = make_array(DType::float64, shape_of(y.t));
            fill_random(&dy, seed++);
            Array dx = make_array(DType::float64, c.shape);
            ASSERT_TRUE(reduce_backward(x.t, y.t, dy.t, dx.t, rp).ok());
            auto loss = [&](const Array &at) {
                Status st;
                Array out = forward(at.t, rp, &st);
                long double sum = 0;
                for (int64_t k = 0; k < out.t.num_elements(); k++) sum += out.at(k) * dy.at(k);
                return sum;
            };
            long double largest = 0;
            for (int64_t i = 0; i < x.t.num_elements(); i++) {
                largest = std::max(largest, std::fabs(dx.at(i)));
            }
            for (int64_t i = 0; i < x.t.num_elements(); i++) {
                const long double v = x.at(i), h = 1e-5L * std::fabs(v);
                Array plus = x, minus = x;
                plus.t.data = plus.storage.data();
                minus.t.data = minus.storage.data();
                plus.set_at(i, v + h);
                minus.set_at(i, v - h);
                const long double numeric = (loss(plus) - loss(minus)) / (2 * h);
                EXPECT_NEAR(double(dx.at(i)), double(numeric), 1e-6 * double(largest + 1))
                    << describe(x.t, rp) << " element " << i;
            }
        }
    }
}

TEST(ReduceBackward, EmptyTensorsWriteNothing) {
    float v = 7;
    const Tensor x = Tensor::contiguous(&v, DType::float32, {0, 3});
    const Tensor y = Tensor::contiguous(&v, DType::float32, {0});
    float dx = 7;
    const Tensor dxt = Tensor::contiguous(&dx, DType::float32, {0, 3});
    EXPECT_TRUE(reduce_backward(x, y, y, dxt, params({1}, 2)).ok());
    EXPECT_EQ(dx, 7);
}

TEST(ReduceBackward, CAbi) {
    const float x[6] = {3, 4, 0, 0, 1, -1};
    const float y[3] = {5, 0, std::sqrt(2.0f)};
    const float dy[3] = {10, 1, 1};
    float dx[6];
    const int64_t shape[2] = {3, 2}, yshape[1] = {3}, axes[1] = {1};
    const lpnorm_tensor in = {const_cast<float *>(x), LPNORM_FLOAT32, 2, shape, nullptr,
                              LPNORM_MEMORY_HOST};
    const lpnorm_tensor out = {const_cast<float *>(y), LPNORM_FLOAT32, 1, yshape, nullptr,
                               LPNORM_MEMORY_HOST};
    const lpnorm_tensor out_grad = {const_cast<float *>(dy), LPNORM_FLOAT32, 1, yshape, nullptr,
                                    LPNORM_MEMORY_HOST};
    const lpnorm_tensor in_grad = {dx, LPNORM_FLOAT32, 2, shape, nullptr, LPNORM_MEMORY_HOST};
    ASSERT_EQ(lpnorm_reduce_backward(&in, &out, &out_grad, &in_grad, axes, 1, 2.0, 0,
                                     LPNORM_EMPTY_AXES_REDUCE_ALL),
              LPNORM_OK);
    EXPECT_EQ(dx[0], 6.0f);  // 3 / 5 * 10
    EXPECT_EQ(dx[1], 8.0f);
    EXPECT_EQ(dx[2], 0.0f);  // y = 0
    EXPECT_EQ(dx[4], 1 / std::sqrt(2.0f));
    EXPECT_EQ(lpnorm_reduce_backward(&in, &out, &out_grad, &in_grad, axes, 1, -1.0, 0,
                                     LPNORM_EMPTY_AXES_REDUCE_ALL),
              LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(lpnorm_last_error(), "p = -1"), nullptr);
}

}  // namespace
}  // namespace lpnorm::test
