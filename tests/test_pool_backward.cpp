// lpnorm::pool_backward against the reference (reference/pool_backward_reference.h): every ISA x
// dtype x spatial rank, windows with strides, dilations, pads, ceil_mode and auto_pad, both
// modes and overhang rules, zeros and windows whose output is 0, powers beyond the range,
// subnormal outputs, strided views, finite differences of lpnorm::pool in float64, and the C ABI.
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "lpnorm/lpnorm_c.h"
#include "reference/pool_backward_reference.h"
#include "reference/pool_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

Array run_pool(const Tensor &x, const PoolParams &p, Status *status) {
    std::vector<int64_t> shape;
    *status = pool_output_shape(x.shape_vector(), p, &shape);
    Array y = make_array(x.dtype, status->ok() ? shape : std::vector<int64_t>{0});
    if (status->ok()) *status = pool(x, y.t, p);
    return y;
}

// Runs pool_backward(x, y, dy) into a canary-filled dx and compares every element with the
// reference; `kernel` (when not empty) must appear in the symbol of the kernel that ran.
::testing::AssertionResult check_gradient(const Tensor &x, const Tensor &y, const Tensor &dy,
                                          const PoolParams &p, const std::string &kernel = "") {
    const ref::PoolGradientResult want = ref::pool_backward(x, y, dy, p);
    if (!want.ok) return ::testing::AssertionFailure() << "reference refused: " << want.error;
    Array dx = make_array(x.dtype, x.shape_vector());
    fill_bytes(&dx, 0xA5);
    const Status s = pool_backward(x, y, dy, dx.t, p);
    if (!s.ok()) return ::testing::AssertionFailure() << describe_pool(x, p) << ": " << s.message();
    if (!kernel.empty() && std::string(testing::last_kernel()).find(kernel) == std::string::npos) {
        return ::testing::AssertionFailure()
               << describe_pool(x, p) << ": ran " << testing::last_kernel() << ", not " << kernel;
    }
    for (size_t i = 0; i < want.values.size(); i++) {
        const long double got = dx.at(int64_t(i));
        if (!ref::normalize_gradient_matches(x.dtype, want.values[i], got)) {
            return ::testing::AssertionFailure()
                   << describe_pool(x, p) << ": dx element " << i << " is " << double(got)
                   << ", expected " << double(want.values[i].value) << " (error bound "
                   << double(want.values[i].error) << " plus the rounding)";
        }
    }
    return ::testing::AssertionSuccess();
}

// y from lpnorm::pool, dy random: the gradient of a call as a framework makes it.
::testing::AssertionResult check_call(const Tensor &x, const PoolParams &p, uint64_t seed,
                                      const std::string &kernel = "") {
    Status s;
    Array y = run_pool(x, p, &s);
    if (!s.ok()) return ::testing::AssertionFailure() << "forward: " << s.message();
    Array dy = make_array(x.dtype, y.t.shape_vector());
    fill_random(&dy, seed);
    return check_gradient(x, y.t, dy.t, p, kernel);
}

struct Geometry {
    std::vector<int64_t> spatial;
    PoolParams window;
};

// Widths around the vector sizes and primes; under emulation (qemu) fewer of them.
std::vector<Geometry> geometries(int spatial) {
    std::vector<Geometry> g;
    const std::vector<int64_t> widths = running_emulated()
                                            ? std::vector<int64_t>{2, 9, 17}
                                            : std::vector<int64_t>{1, 2, 7, 9, 17, 33};
    for (int64_t w : widths) {
        if (spatial == 1) {
            g.push_back({{w + 3}, window({4}, {2})});
            g.push_back({{w}, window({3}, {1}, {1, 1})});
            g.push_back({{w + 2}, window({3}, {2}, {}, {}, true)});
        } else if (spatial == 2) {
            g.push_back({{5, w + 1}, window({2, 2}, {2, 2})});
            g.push_back({{4, w}, window({3, 3}, {1, 1}, {1, 1, 1, 1})});
            g.push_back({{6, w + 2}, window({3, 3}, {2, 2}, {1, 1, 1, 1}, {}, true)});
        } else {
            g.push_back({{3, 4, w + 1}, window({2, 2, 2}, {2, 2, 2})});
        }
    }
    if (spatial == 1) {
        g.push_back({{40}, window({3}, {3}, {2, 0}, {4})});
        g.push_back({{23}, window({5}, {2}, {}, {3}, false, AutoPad::same_upper)});
        g.push_back({{9}, window({2}, {3}, {1, 1}, {}, true)});
        g.push_back({{12}, window({3}, {4}, {0, 2}, {2})});  // stride > kernel: gaps
    } else if (spatial == 2) {
        g.push_back({{9, 31}, window({3, 2}, {2, 3}, {1, 0, 2, 1}, {2, 3})});
        g.push_back({{7, 13}, window({4, 3}, {3, 2}, {}, {}, false, AutoPad::same_upper)});
        g.push_back({{6, 11}, window({2, 5}, {1, 4}, {1, 2, 0, 2}, {}, true)});
        g.push_back({{8, 10}, window({1, 1}, {}, {}, {}, false, AutoPad::valid)});
        g.push_back({{10, 12}, window({3, 3}, {2, 2}, {}, {2, 2}, false, AutoPad::same_lower)});
    } else {
        g.push_back({{5, 6, 19}, window({3, 2, 3}, {2, 1, 2}, {1, 0, 1, 1, 1, 2}, {1, 2, 1})});
        g.push_back({{4, 5, 9}, window({2, 3, 2}, {1, 2, 2}, {}, {}, true)});
    }
    return g;
}

std::vector<int64_t> with_batch(int64_t n, int64_t c, const std::vector<int64_t> &spatial) {
    std::vector<int64_t> s = {n, c};
    s.insert(s.end(), spatial.begin(), spatial.end());
    return s;
}

// Every p class (products for 2, 3, 4 and the chains, pow otherwise); under emulation one of
// each kind of arithmetic.
std::vector<double> orders() {
    return running_emulated() ? std::vector<double>{1, 2, 3, 2.5}
                              : std::vector<double>{1, 2, 3, 4, 2.5, 0.5, 7};
}

// The part of the symbol of the kernel that runs `p`: p = 1 to 4 take the rank's separable
// kernel (p = 1 only in float64: include/lpnorm/lpnorm.h, VariantInfo), every other p the other.
std::string kernel_of(int spatial, DType dtype, double p) {
    const bool separable = p == 1 || (dtype != DType::float64 && (p == 2 || p == 3 || p == 4));
    return "pool_backward_" + std::to_string(spatial) + (separable ? "d_separable_" : "d_") +
           dtype_name(dtype) + "_";
}

class PoolBackwardSweep : public ::testing::TestWithParam<std::tuple<Isa, DType, int>> {
protected:
    void TearDown() override { set_isa(Isa::auto_detect); }
    FailureBudget budget_;
};

TEST_P(PoolBackwardSweep, WindowsModesAndOrders) {
    const auto [isa, dtype, spatial] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "pool_backward", dtype, &why)) GTEST_SKIP() << why;
    uint64_t seed = 11;
    for (const Geometry &g : geometries(spatial)) {
        Array x = make_array(dtype, with_batch(2, 3, g.spatial));
        fill_random(&x, seed++);
        // Positive values too, so that the signed mode's fractional powers are not all NaN.
        Array positive = x;
        positive.t.data = positive.storage.data();
        for (int64_t i = 0; i < positive.t.num_elements(); i++) {
            positive.set_at(i, std::fabs(positive.at(i)));
        }
        for (double p : orders()) {
            const std::string kernel = kernel_of(spatial, dtype, p);
            for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                    PoolParams params = g.window;
                    params.p = p;
                    params.mode = mode;
                    params.overhang = overhang;
                    if (!budget_.record(check_call(x.t, params, seed++, kernel))) return;
                    if (mode == PoolMode::signed_pow &&
                        !budget_.record(check_call(positive.t, params, seed++, kernel))) {
                        return;
                    }
                }
            }
        }
    }
}

// Large calls run on the thread pool, in tasks of rows or planes.
TEST_P(PoolBackwardSweep, LargeShapes) {
    const auto [isa, dtype, spatial] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "pool_backward", dtype, &why)) GTEST_SKIP() << why;
    const int64_t n = running_emulated() ? 1 : 4;
    std::vector<Geometry> cases;
    if (spatial == 1) {
        cases = {{{300}, window({4}, {2})}, {{257}, window({3}, {1}, {1, 1})}};
    } else if (spatial == 2) {
        cases = {{{40, 41}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
                 {{28, 28}, window({2, 2}, {2, 2})},
                 {{29, 30}, window({3, 3}, {2, 2}, {1, 1, 1, 1})}};
    } else {
        cases = {{{9, 10, 31}, window({2, 2, 2}, {2, 2, 2})}};
    }
    const uint64_t seed = 5;
    for (size_t i = 0; i < cases.size(); i++) {
        const Geometry &g = cases[i];
        // Under an emulator one case per variant, a different one for each dtype.
        if (skipped_under_emulation(i, cases.size(), size_t(dtype))) continue;
        uint64_t case_seed = seed + 5 * i;  // one for x, one per p
        Array x = make_array(dtype, with_batch(n, 16, g.spatial));
        fill_random(&x, case_seed++);
        for (double p : {2.0, 1.0, 2.5, 3.0}) {
            PoolParams params = g.window;
            params.p = p;
            if (!budget_.record(check_call(x.t, params, case_seed++))) return;
        }
    }
}

std::string sweep_name(const ::testing::TestParamInfo<std::tuple<Isa, DType, int>> &info) {
    return std::string(isa_name(std::get<0>(info.param))) + "_" +
           dtype_name(std::get<1>(info.param)) + "_" + std::to_string(std::get<2>(info.param)) +
           "d";
}

INSTANTIATE_TEST_SUITE_P(FloatVariants, PoolBackwardSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::Values(DType::float32, DType::float16,
                                                              DType::bfloat16, DType::float64),
                                            ::testing::Values(1, 2, 3)),
                         sweep_name);

class PoolBackwardDtype : public ::testing::TestWithParam<DType> {};

// The definitions where PyTorch's formula gives NaN: a window whose output is 0 contributes 0,
// and so does x = 0 for p < 1; x = 0 contributes 0 for p > 1 as the formula gives.
TEST_P(PoolBackwardDtype, ZerosAndZeroWindows) {
    const DType d = GetParam();
    // Windows of 2 along a row of 6: [0, 0], [0, 3], [-2, 0] (overlapping, stride 1).
    Array x = make_from(d, {1, 1, 4}, {0, 0, 3, -2});
    for (double p : {0.5, 1.0, 1.5, 2.0, 3.0}) {
        for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
            PoolParams params = window({2}, {1});
            params.p = p;
            params.mode = mode;
            Status s;
            Array y = run_pool(x.t, params, &s);
            ASSERT_TRUE(s.ok()) << s.message();
            Array dy = make_from(d, {1, 1, 3}, {1, 1, 1});
            Array dx = make_array(d, {1, 1, 4});
            ASSERT_TRUE(pool_backward(x.t, y.t, dy.t, dx.t, params).ok());
            EXPECT_EQ(dx.at(0), 0) << "p = " << p;  // only in the zero window
            EXPECT_FALSE(std::isnan(double(dx.at(1)))) << "p = " << p;
            EXPECT_TRUE(check_gradient(x.t, y.t, dy.t, params)) << "p = " << p;
        }
    }
}

// NaN and infinities in x and dy: a window holding one gives its elements NaN (p = 2: r = x / y
// is NaN or inf / inf) or passes dy on (p = 1), as the reference's formula says; the kinds
// summed one dim at a time (kernel_abi.h) and the others alike.
TEST_P(PoolBackwardDtype, NonFiniteValues) {
    const DType d = GetParam();
    const long double inf = std::numeric_limits<long double>::infinity();
    uint64_t seed = 5;
    for (const PoolParams &w : {window({3, 3}, {1, 1}, {1, 1, 1, 1}), window({2, 2}, {2, 2}),
                                window({3, 3}, {2, 2}, {1, 1, 1, 1}), window({2, 3}, {3, 1})}) {
        Array x = make_array(d, {1, 2, 7, 9});
        fill_random(&x, seed++);
        x.set_at(10, std::numeric_limits<long double>::quiet_NaN());
        x.set_at(40, inf);
        x.set_at(75, -inf);
        x.set_at(100, 0);
        for (double p : {1.0, 2.0, 3.0}) {
            for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                PoolParams params = w;
                params.p = p;
                params.mode = mode;
                Status s;
                Array y = run_pool(x.t, params, &s);
                ASSERT_TRUE(s.ok()) << s.message();
                Array dy = make_array(d, y.t.shape_vector());
                fill_random(&dy, seed++);
                dy.set_at(3, inf);
                EXPECT_TRUE(check_gradient(x.t, y.t, dy.t, params)) << "p = " << p;
            }
        }
    }
}

// Values whose powers leave the type: the gradient from r = x / y, never from x^(p-1) and
// y^(p-1) apart.
TEST_P(PoolBackwardDtype, PowersBeyondTheRange) {
    const DType d = GetParam();
    const long double big = d == DType::float64 ? 1e200L : d == DType::float16 ? 3e4L : 1e30L;
    for (double p : {3.0, 4.0, 2.5, 7.0}) {
        Array x = make_from(d, {1, 1, 2, 2}, {big, -big, big / 2, big});
        PoolParams params = window({2, 2}, {1, 1}, {1, 1, 1, 1});
        params.p = p;
        // The exact outputs, rounded into the dtype (the forward's own float32 overflow is
        // issue 24's).
        const ref::Result exact = ref::pool(x.t, params);
        ASSERT_TRUE(exact.ok) << exact.error;
        Array y = make_array(d, exact.shape), dy = make_array(d, exact.shape);
        for (int64_t i = 0; i < y.t.num_elements(); i++) {
            y.set_at(i, ref::round_to_dtype(d, exact.values[size_t(i)].value));
            dy.set_at(i, 1);
        }
        EXPECT_TRUE(check_gradient(x.t, y.t, dy.t, params)) << "p = " << p;
        Array dx = make_array(d, {1, 1, 2, 2});
        ASSERT_TRUE(pool_backward(x.t, y.t, dy.t, dx.t, params).ok());
        for (int64_t i = 0; i < 4; i++) {
            EXPECT_TRUE(std::isfinite(double(dx.at(i))) && std::fabs(dx.at(i)) > 0.1)
                << "p = " << p << " element " << i << ": " << double(dx.at(i));
        }
    }
}

// Outputs below the normal range: the reciprocal of a subnormal y would overflow, so it is
// taken of y lifted by 2^64 (x with it), exactly.
TEST_P(PoolBackwardDtype, SubnormalOutputs) {
    const DType d = GetParam();
    const long double tiny = d == DType::float64 ? 1e-310L : d == DType::float16 ? 1e-7L : 1e-40L;
    uint64_t seed = 71;
    for (double p : {1.0, 2.0, 3.0, 4.0, 2.5}) {
        Array x = make_from(d, {1, 2, 3}, {tiny, -2 * tiny, 3 * tiny, -tiny, 0, tiny / 2});
        PoolParams params = window({2}, {1}, {1, 0});
        params.p = p;
        EXPECT_TRUE(check_call(x.t, params, seed++)) << "p = " << p;
    }
}

// x, y and dy as views with gaps and reversed axes.
TEST_P(PoolBackwardDtype, StridedViews) {
    const DType d = GetParam();
    Array x = make_strided(d, {2, 3, 7, 9}, {400, 130, 18, 2});
    fill_random(&x, 41);
    Array xr = make_strided(d, {2, 2, 6, 5}, {-60, 30, -5, 1});
    fill_random(&xr, 42);
    uint64_t seed = 43;
    for (const Array *a : {&x, &xr}) {
        for (const PoolParams &w : {window({3, 3}, {1, 1}, {1, 1, 1, 1}), window({2, 2}, {2, 2}),
                                    window({3, 2}, {2, 1}, {0, 1, 1, 0}, {1, 2})}) {
            for (double p : {1.0, 2.0, 2.5}) {
                PoolParams params = w;
                params.p = p;
                Status s;
                Array y = run_pool(a->t, params, &s);
                ASSERT_TRUE(s.ok()) << s.message();
                // y and dy reversed, every other element of a larger buffer.
                const std::vector<int64_t> ys = y.t.shape_vector();
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
                EXPECT_TRUE(check_gradient(a->t, yv.t, dyv.t, params));
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Floats, PoolBackwardDtype,
                         ::testing::Values(DType::float32, DType::float16, DType::bfloat16,
                                           DType::float64),
                         [](const ::testing::TestParamInfo<DType> &info) {
                             return std::string(dtype_name(info.param));
                         });

// The gradient is the derivative: central differences of sum(dy * pool(x)) in float64, at
// points where pooling is differentiable (no zeros; positive values in the signed mode, whose
// sums of odd powers must stay positive).
TEST(PoolBackward, FiniteDifferences) {
    const std::vector<Geometry> shapes = {
        {{9}, window({3}, {2}, {1, 1}, {}, true)},
        {{5, 6}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
        {{5, 7}, window({2, 3}, {2, 2}, {0, 1, 1, 0}, {2, 1}, true)},
        {{3, 4, 5}, window({2, 2, 2}, {1, 2, 2}, {1, 0, 0, 0, 1, 1})},
    };
    uint64_t seed = 61;
    for (const Geometry &c : shapes) {
        Array x = make_array(DType::float64, with_batch(1, 2, c.spatial));
        for (const bool mixed : {true, false}) {
            // Distinct magnitudes in [0.5, 8).
            for (int64_t i = 0; i < x.t.num_elements(); i++) {
                const long double m = 0.5L + std::fmod(1.618033988749895L * (i + 1) * 7.3L, 7.5L);
                x.set_at(i, mixed && (i * 5 + seed) % 3 == 0 ? -m : m);
            }
            for (double p : {1.0, 2.0, 3.0, 4.0, 2.5, 0.5, 7.0}) {
                for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                    if (mode == PoolMode::signed_pow && mixed && p != 2 && p != 4) continue;
                    for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                        PoolParams params = c.window;
                        params.p = p;
                        params.mode = mode;
                        params.overhang = overhang;
                        Status s;
                        Array y = run_pool(x.t, params, &s);
                        ASSERT_TRUE(s.ok()) << s.message();
                        Array dy = make_array(DType::float64, y.t.shape_vector());
                        fill_random(&dy, seed++);
                        Array dx = make_array(DType::float64, x.t.shape_vector());
                        ASSERT_TRUE(pool_backward(x.t, y.t, dy.t, dx.t, params).ok());
                        auto loss = [&](const Array &at) {
                            Status st;
                            Array out = run_pool(at.t, params, &st);
                            long double sum = 0;
                            for (int64_t k = 0; k < out.t.num_elements(); k++) {
                                sum += out.at(k) * dy.at(k);
                            }
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
                            EXPECT_NEAR(double(dx.at(i)), double(numeric),
                                        1e-6 * double(largest + 1))
                                << describe_pool(x.t, params) << " element " << i;
                        }
                    }
                }
            }
        }
    }
}

// Dilations far beyond the input: the kernels' window sums and coefficients span the output,
// not the taps' reach (65536 along both dims of a 9 x 11 input asked for 64 GiB of scratch: a
// fuzz input, tests/fuzz/regressions/fuzz_gradients). p = 1, 2, 3 take the separable sums, 2.5
// the per-element ones.
TEST(PoolBackward, HugeDilations) {
    Array x = make_array(DType::float32, {1, 3, 9, 11});
    fill_random(&x, 41);
    const std::vector<std::vector<int64_t>> dilations = {
        {65536, 65536}, {1 << 20, 1}, {1, 1 << 20}};
    for (const std::vector<int64_t> &d : dilations) {
        for (double p : {1.0, 2.0, 3.0, 2.5}) {
            PoolParams params;
            params.kernel = {2, 3};
            params.dilations = d;
            params.auto_pad = AutoPad::same_lower;
            params.ceil_mode = true;
            params.p = p;
            EXPECT_TRUE(check_call(x.t, params, 7)) << "dilations " << d[0] << ", " << d[1];
        }
    }
}

TEST(PoolBackward, EmptyTensorsWriteNothing) {
    float v = 7;
    const Tensor x = Tensor::contiguous(&v, DType::float32, {0, 3, 4});
    const Tensor y = Tensor::contiguous(&v, DType::float32, {0, 3, 2});
    float dx = 7;
    const Tensor dxt = Tensor::contiguous(&dx, DType::float32, {0, 3, 4});
    PoolParams params = window({2}, {2});
    EXPECT_TRUE(pool_backward(x, y, y, dxt, params).ok());
    EXPECT_EQ(dx, 7);
}

TEST(PoolBackward, CAbi) {
    // One row of 4, windows of 2 with stride 2: y = [5, sqrt(2)].
    const float x[4] = {3, -4, 1, -1};
    const float y[2] = {5, std::sqrt(2.0f)};
    const float dy[2] = {10, 1};
    float dx[4];
    const int64_t shape[3] = {1, 1, 4}, yshape[3] = {1, 1, 2}, kernel[1] = {2}, strides[1] = {2};
    const lpnorm_tensor in = {const_cast<float *>(x), LPNORM_FLOAT32, 3, shape, nullptr,
                              LPNORM_MEMORY_HOST};
    const lpnorm_tensor out = {const_cast<float *>(y), LPNORM_FLOAT32, 3, yshape, nullptr,
                               LPNORM_MEMORY_HOST};
    const lpnorm_tensor out_grad = {const_cast<float *>(dy), LPNORM_FLOAT32, 3, yshape, nullptr,
                                    LPNORM_MEMORY_HOST};
    const lpnorm_tensor in_grad = {dx, LPNORM_FLOAT32, 3, shape, nullptr, LPNORM_MEMORY_HOST};
    lpnorm_pool_params params = {1,
                                 kernel,
                                 strides,
                                 nullptr,
                                 nullptr,
                                 LPNORM_AUTO_PAD_NOTSET,
                                 0,
                                 2.0,
                                 LPNORM_POOL_ABS,
                                 LPNORM_OVERHANG_SUM};
    ASSERT_EQ(lpnorm_pool_backward(&in, &out, &out_grad, &in_grad, &params), LPNORM_OK);
    EXPECT_EQ(dx[0], 6.0f);  // 3 / 5 * 10
    EXPECT_EQ(dx[1], -8.0f);
    EXPECT_FLOAT_EQ(dx[2], 1 / std::sqrt(2.0f));
    EXPECT_FLOAT_EQ(dx[3], -1 / std::sqrt(2.0f));
    params.p = -1;
    EXPECT_EQ(lpnorm_pool_backward(&in, &out, &out_grad, &in_grad, &params),
              LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(lpnorm_last_error(), "p = -1"), nullptr);
}

}  // namespace
}  // namespace lpnorm::test
