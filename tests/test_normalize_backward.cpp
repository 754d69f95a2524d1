// lpnorm::normalize_backward against the reference (reference/normalize_reference.h,
// normalize_gradient): every ISA x dtype x pattern x p-class x eps mode, values at the ends of
// each dtype's range, strided views, finite differences of lpnorm::normalize in float64, the C
// ABI and the torch adapter.
#include <cmath>
#include <cstring>
#include <tuple>

#include "lpnorm/lpnorm_c.h"
#include "lpnorm/torch.h"
#include "reference/normalize_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

NormalizeParams nparams(std::vector<int64_t> axes, double p, EpsMode mode = EpsMode::none,
                        double eps = 0) {
    NormalizeParams params;
    params.axes = std::move(axes);
    params.p = p;
    params.eps = eps;
    params.eps_mode = mode;
    return params;
}

std::string describe(const Tensor &t, const NormalizeParams &params) {
    std::string axes;
    for (int64_t a : params.axes) axes += (axes.empty() ? "" : ",") + std::to_string(a);
    return std::string(dtype_name(t.dtype)) + " " +
           shape_string(std::vector<int64_t>(t.shape, t.shape + t.rank)) + " axes {" + axes +
           "} p = " + std::to_string(params.p) + " eps_mode = " + eps_mode_name(params.eps_mode) +
           " eps = " + std::to_string(params.eps);
}

// Runs normalize_backward into a canary-filled dx and compares every element with the
// reference; `kernel` (when not empty) must appear in the symbol of the kernel that ran.
::testing::AssertionResult check_gradient(const Tensor &x, const Tensor &dy,
                                          const NormalizeParams &params,
                                          const std::string &kernel = "") {
    const ref::NormalizeGradientResult want = ref::normalize_gradient(x, dy, params);
    if (!want.ok) return ::testing::AssertionFailure() << "reference refused: " << want.error;
    Array dx = make_array(x.dtype, std::vector<int64_t>(x.shape, x.shape + x.rank));
    fill_bytes(&dx, 0xA5);
    const Status s = normalize_backward(x, dy, dx.t, params);
    if (s.code() == ErrorCode::unsupported && backend_lacks_dtype(x.dtype, "normalize_backward")) {
        return ::testing::AssertionSuccess();  // the documented answer of a GPU backend
    }
    if (!s.ok()) {
        return ::testing::AssertionFailure() << describe(x, params) << ": " << s.message();
    }
    if (!kernel.empty() && std::string(testing::last_kernel()).find(kernel) == std::string::npos) {
        return ::testing::AssertionFailure()
               << describe(x, params) << ": ran " << testing::last_kernel() << ", not " << kernel;
    }
    for (size_t i = 0; i < want.values.size(); i++) {
        const long double got = dx.at(int64_t(i));
        if (!ref::normalize_gradient_matches(x.dtype, want.values[i], got)) {
            return ::testing::AssertionFailure()
                   << describe(x, params) << ": dx element " << i << " is " << (double)got
                   << ", expected " << (double)want.values[i].value << " within "
                   << (double)want.values[i].error << " and half an ulp";
        }
    }
    return ::testing::AssertionSuccess();
}

struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
    std::string kernel;  // the pattern it must run ("": through the reordered copies)
};

std::vector<Case> cases(int64_t s) {
    return {
        {{3, s}, {1}, s > 1 ? "normalize_backward_inner" : ""},
        {{2, s, 3}, {1}, "normalize_backward_middle"},
        {{s, 5}, {0}, "normalize_backward_middle"},
        {{2, 3, s}, {0, 1}, s > 1 ? "normalize_backward_middle" : ""},
        {{2, s, 3, 2}, {1, 3}, ""},  // normalized axes apart: the copies
        {{s, 4}, {}, ""},            // each element its own group
    };
}

struct ModeCase {
    double p;
    EpsMode mode;
    double eps;
};

// p-classes with each eps mode; eps large enough to clamp some groups of the random data.
const std::vector<ModeCase> kModes = {
    {1, EpsMode::none, 0},
    {2, EpsMode::none, 0},
    {3, EpsMode::none, 0},
    {2.5, EpsMode::none, 0},
    {0.5, EpsMode::none, 0},
    {7, EpsMode::none, 0},
    {INFINITY, EpsMode::none, 0},
    {2, EpsMode::norm_max, 4},
    {1, EpsMode::sum_add, 3},
    {2, EpsMode::sum_add, 9},
    {2, EpsMode::sum_max, 16},
    {2.5, EpsMode::sum_max, 1e-3},
    {INFINITY, EpsMode::norm_max, 5},
};

class NormalizeBackwardSweep : public ::testing::TestWithParam<std::tuple<Isa, DType>> {
protected:
    void TearDown() override { set_isa(Isa::auto_detect); }
    FailureBudget budget_;
};

TEST_P(NormalizeBackwardSweep, PatternsPClassesEpsModes) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "normalize_backward", dtype, &why)) GTEST_SKIP() << why;
    uint64_t seed = 101;
    for (int64_t s : {1, 2, 3, 5, 8, 9, 16, 17, 33, 64}) {
        for (const Case &c : cases(s)) {
            Array x = make_array(dtype, c.shape);
            fill_random(&x, seed++);
            Array dy = make_array(dtype, c.shape);
            fill_random(&dy, seed++);
            for (const ModeCase &m : kModes) {
                if (!budget_.record(
                        check_gradient(x.t, dy.t, nparams(c.axes, m.p, m.mode, m.eps), c.kernel))) {
                    return;
                }
            }
        }
    }
}

// Values near the ends of each dtype's range: the groups are scaled, as in the forward.
TEST_P(NormalizeBackwardSweep, ValuesAtTheEndsOfTheRange) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "normalize_backward", dtype, &why)) GTEST_SKIP() << why;
    std::vector<long double> scales;
    switch (dtype) {
    case DType::float32: scales = {1e30L, 3e38L, 1e-30L, 1e-40L}; break;
    case DType::float64: scales = {1e200L, 1e307L, 1e-200L, 1e-310L}; break;
    case DType::float16: scales = {6e4L, 1e-5L, 1e-7L}; break;
    default: scales = {1e38L, 1e-38L, 1e-40L}; break;
    }
    for (long double scale : scales) {
        for (const std::vector<int64_t> &shape :
             {std::vector<int64_t>{4, 37}, std::vector<int64_t>{3, 19, 10}}) {
            Array x = make_array(dtype, shape);
            for (int64_t i = 0; i < x.storage_elements; i++) {
                x.set_at(i, scale * (1 + (i * 7) % 13) / 13 * ((i % 3) ? 1 : -1));
            }
            Array dy = make_array(dtype, shape);
            fill_random(&dy, 7);
            for (double p : {1.0, 2.0, 3.0, 2.5, 7.0, 100.0, 3000.0, double(INFINITY)}) {
                for (EpsMode mode : {EpsMode::none, EpsMode::norm_max, EpsMode::sum_add}) {
                    if (std::isinf(p) && mode == EpsMode::sum_add) continue;
                    if (!budget_.record(check_gradient(x.t, dy.t, nparams({1}, p, mode, 1e-12)))) {
                        return;
                    }
                }
            }
        }
    }
}

std::string sweep_name(const ::testing::TestParamInfo<std::tuple<Isa, DType>> &info) {
    return std::string(isa_name(std::get<0>(info.param))) + "_" +
           dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(FloatVariants, NormalizeBackwardSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::Values(DType::float32, DType::float16,
                                                              DType::bfloat16, DType::float64)),
                         sweep_name);

// x and dy as views with gaps and reversed axes.
TEST(NormalizeBackward, StridedViews) {
    for (DType d : {DType::float32, DType::float64, DType::float16}) {
        Array x = make_strided(d, {6, 10}, {20, 2});
        fill_random(&x, 121);
        Array dy = make_strided(d, {6, 10}, {-10, -1});
        fill_random(&dy, 122);
        for (int64_t axis : {0, 1}) {
            for (double p : {1.0, 2.0, 2.5, double(INFINITY)}) {
                EXPECT_TRUE(check_gradient(x.t, dy.t, nparams({axis}, p)));
                EXPECT_TRUE(check_gradient(x.t, dy.t, nparams({axis}, p, EpsMode::norm_max, 3)));
            }
        }
    }
}

// The gradient is the derivative: central differences of sum(dy * normalize(x)) in float64, at
// points where it is differentiable (no zeros, no ties of max|x|, eps away from the norm).
TEST(NormalizeBackward, FiniteDifferences) {
    struct Shape {
        std::vector<int64_t> shape;
        std::vector<int64_t> axes;
    };
    const std::vector<Shape> shapes = {{{3, 7}, {1}}, {{4, 5, 3}, {1}}, {{2, 3, 4}, {0, 2}}};
    const std::vector<ModeCase> modes = {
        {1, EpsMode::none, 0},
        {2, EpsMode::none, 0},
        {3, EpsMode::none, 0},
        {2.5, EpsMode::none, 0},
        {0.5, EpsMode::none, 0},
        {INFINITY, EpsMode::none, 0},
        {2, EpsMode::norm_max, 1e-3},
        {2, EpsMode::norm_max, 1e3},
        {2, EpsMode::sum_add, 7},
        {1.5, EpsMode::sum_add, 0.5},
        {2, EpsMode::sum_max, 1e-3},
        {2, EpsMode::sum_max, 1e4},
        {INFINITY, EpsMode::norm_max, 1e3},
    };
    uint64_t seed = 131;
    for (const Shape &c : shapes) {
        Array x = make_array(DType::float64, c.shape);
        for (int64_t i = 0; i < x.t.num_elements(); i++) {
            const long double m = 0.5L + std::fmod(1.618033988749895L * (i + 1) * 7.3L, 7.5L);
            x.set_at(i, (i * 5 + seed) % 3 == 0 ? -m : m);
        }
        Array dy = make_array(DType::float64, c.shape);
        fill_random(&dy, seed++);
        for (const ModeCase &m : modes) {
            const NormalizeParams np = nparams(c.axes, m.p, m.mode, m.eps);
            Array dx = make_array(DType::float64, c.shape);
            ASSERT_TRUE(normalize_backward(x.t, dy.t, dx.t, np).ok());
            auto loss = [&](const Array &at) {
                Array y = make_array(DType::float64, c.shape);
                EXPECT_TRUE(normalize(at.t, y.t, np).ok());
                long double sum = 0;
                for (int64_t k = 0; k < y.t.num_elements(); k++) sum += y.at(k) * dy.at(k);
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
                EXPECT_NEAR(double(dx.at(i)), double(numeric), 1e-6 * double(largest + 1e-3))
                    << describe(x.t, np) << " element " << i;
            }
        }
    }
}

TEST(NormalizeBackward, CAbiAndTorchAdapter) {
    const float x[4] = {3, 4, 0, 0};
    const float dy[4] = {1, 0, 1, 1};
    float dx[4];
    const int64_t shape[2] = {2, 2}, axes[1] = {1};
    auto tensor = [&](const float *data) {
        return lpnorm_tensor{const_cast<float *>(data), LPNORM_FLOAT32, 2, shape, nullptr,
                             LPNORM_MEMORY_HOST};
    };
    const lpnorm_tensor in = tensor(x), grad = tensor(dy), out = tensor(dx);
    ASSERT_EQ(lpnorm_normalize_backward(&in, &grad, &out, axes, 1, 2.0, 0.0, LPNORM_EPS_NONE),
              LPNORM_OK);
    // y = (0.6, 0.8), c = 0.6: dx = (dy - y c) / 5.
    EXPECT_FLOAT_EQ(dx[0], (1 - 0.6f * 0.6f) / 5);
    EXPECT_FLOAT_EQ(dx[1], (0 - 0.8f * 0.6f) / 5);
    EXPECT_EQ(dx[2], 0.0f);  // an all-zero group of eps_mode none
    // torch's F.normalize (eps = 1e-12 clamps the zero row): dx = dy / eps there.
    const Tensor tx = Tensor::contiguous(const_cast<float *>(x), DType::float32, {2, 2});
    const Tensor tdy = Tensor::contiguous(const_cast<float *>(dy), DType::float32, {2, 2});
    const Tensor tdx = Tensor::contiguous(dx, DType::float32, {2, 2});
    ASSERT_TRUE(lpnorm::torch::normalize_backward(tx, tdy, tdx, 2.0, {1}, 1e-12).ok());
    EXPECT_FLOAT_EQ(dx[2], 1e12f);
    EXPECT_EQ(lpnorm_normalize_backward(&in, &grad, &out, axes, 1, -1.0, 0.0, LPNORM_EPS_NONE),
              LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(lpnorm_last_error(), "p = -1"), nullptr);
}

}  // namespace
}  // namespace lpnorm::test
