// lpnorm::normalize against the reference (reference/normalize_reference.h): every ISA x dtype
// x pattern x p-class x eps mode on ragged sizes, values at the ends of each dtype's range,
// NaN/inf/zero groups, strided views, large shapes on the thread pool, and the C ABI.
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "lpnorm/lpnorm_c.h"
#include "lpnorm/onnx.h"
#include "reference/normalize_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

const long double kInf = std::numeric_limits<long double>::infinity();
const long double kNaN = std::numeric_limits<long double>::quiet_NaN();

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

// Runs lpnorm::normalize into a canary-filled output and compares every element with the
// reference; `kernel` (when not empty) must appear in the symbol of the kernel that ran.
::testing::AssertionResult check_normalize(const Tensor &x, const NormalizeParams &params,
                                           const std::string &kernel = "") {
    const ref::NormalizeResult want = ref::normalize(x, params);
    if (!want.ok) return ::testing::AssertionFailure() << "reference refused: " << want.error;
    Array y = make_array(x.dtype, std::vector<int64_t>(x.shape, x.shape + x.rank));
    fill_bytes(&y, 0xA5);
    const Status s = normalize(x, y.t, params);
    if (s.code() == ErrorCode::unsupported && backend_lacks_dtype(x.dtype, "normalize")) {
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
        const long double got = y.at(int64_t(i));
        if (!ref::normalize_matches(x.dtype, params, want.values[i], got)) {
            return ::testing::AssertionFailure()
                   << describe(x, params) << ": element " << i << " is " << (double)got
                   << ", expected " << (double)want.values[i].value << " within "
                   << (double)ref::normalize_tolerance(x.dtype, params, want.values[i]);
        }
    }
    return ::testing::AssertionSuccess();
}

const std::vector<int64_t> kSizes = {1, 2, 3, 5, 8, 9, 16, 17, 33, 64, 127};

struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
    std::string kernel;  // the pattern it must run ("": through the reordered copies)
};

std::vector<Case> cases(int64_t s) {
    return {
        {{3, s}, {1}, s > 1 ? "normalize_inner" : ""},
        {{s}, {-1}, "normalize_inner"},
        {{2, s, 3}, {1}, "normalize_middle"},
        {{s, 5}, {0}, "normalize_middle"},
        {{2, 3, s}, {0, 1}, s > 1 ? "normalize_middle" : ""},
        {{2, s, 3, 2}, {1, 3}, ""},  // reduced axes apart: the copies
        {{s, 4}, {}, ""},            // each element its own group
    };
}

struct ModeCase {
    double p;
    EpsMode mode;
    double eps;
};

// p-classes (1, 2, 3: products; 2.5, 0.5: pow; 7: pow with scaled sums for float32; inf: max)
// with each eps mode; eps large enough to clamp some groups of the random data.
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

class NormalizeSweep : public ::testing::TestWithParam<std::tuple<Isa, DType>> {
protected:
    void TearDown() override { set_isa(Isa::auto_detect); }
    FailureBudget budget_;
};

TEST_P(NormalizeSweep, PatternsPClassesEpsModes) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "normalize", dtype, &why)) GTEST_SKIP() << why;
    uint64_t seed = 11;
    for (int64_t s : kSizes) {
        for (const Case &c : cases(s)) {
            Array x = make_array(dtype, c.shape);
            fill_random(&x, seed++);
            for (const ModeCase &m : kModes) {
                if (!budget_.record(
                        check_normalize(x.t, nparams(c.axes, m.p, m.mode, m.eps), c.kernel))) {
                    return;
                }
            }
        }
    }
}

// Values near the ends of each dtype's range, where the powers leave the compute type: the
// groups are scaled, and normalize to the right finite values. p = 100 and 3000 take the terms
// relative to the largest |x| (2^p overflows: before, 3000 gave zeros everywhere).
TEST_P(NormalizeSweep, ValuesAtTheEndsOfTheRange) {
    const auto [isa, dtype] = GetParam();
    std::string why;
    if (!force_isa_for(isa, "normalize", dtype, &why)) GTEST_SKIP() << why;
    std::vector<long double> scales;
    switch (dtype) {
    case DType::float32: scales = {1e30L, 3e38L, 1e-30L, 1e-40L, 1e-44L}; break;
    case DType::float64: scales = {1e200L, 1e307L, 1e-200L, 1e-310L, 1e-322L}; break;
    case DType::float16: scales = {6e4L, 1e-5L, 1e-7L}; break;
    default: scales = {1e38L, 3e38L, 1e-38L, 1e-40L}; break;
    }
    for (long double scale : scales) {
        for (const std::vector<int64_t> &shape :
             {std::vector<int64_t>{4, 37}, std::vector<int64_t>{3, 19, 10}}) {
            Array x = make_array(dtype, shape);
            for (int64_t i = 0; i < x.storage_elements; i++) {
                x.set_at(i, scale * (1 + (i * 7) % 13) / 13 * ((i % 3) ? 1 : -1));
            }
            for (double p : {1.0, 2.0, 3.0, 2.5, 7.0, 100.0, 3000.0, double(INFINITY)}) {
                for (EpsMode mode : {EpsMode::none, EpsMode::norm_max, EpsMode::sum_add}) {
                    if (std::isinf(p) && mode == EpsMode::sum_add) continue;
                    if (!budget_.record(check_normalize(x.t, nparams({1}, p, mode, 1e-12)))) {
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

INSTANTIATE_TEST_SUITE_P(FloatVariants, NormalizeSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::Values(DType::float32, DType::float16,
                                                              DType::bfloat16, DType::float64)),
                         sweep_name);

class NormalizeDtype : public ::testing::TestWithParam<DType> {};

// Groups with NaN, inf, only zeros: in every mode, against the rules of lpnorm.h.
TEST_P(NormalizeDtype, SpecialGroups) {
    const DType d = GetParam();
    // Rows: a NaN row, a row with +inf and -inf, a row with one inf, an all-zero row with a
    // negative zero, and an ordinary row.
    const std::vector<std::vector<long double>> rows = {
        {1, kNaN, 2, 3}, {kInf, 1, -kInf, 0}, {-2, 0, kInf, 5}, {0, -0.0L, 0, 0}, {3, 0, -4, 0}};
    std::vector<long double> flat;
    for (const auto &r : rows) flat.insert(flat.end(), r.begin(), r.end());
    Array x = make_from(d, {5, 4}, flat);
    Array xt = make_array(d, {4, 5});
    for (int64_t i = 0; i < 5; i++) {
        for (int64_t j = 0; j < 4; j++) xt.set({j, i}, x.get({i, j}));
    }
    for (double p : {1.0, 2.0, 3.0, 0.5, double(INFINITY)}) {
        for (EpsMode mode :
             {EpsMode::none, EpsMode::norm_max, EpsMode::sum_add, EpsMode::sum_max}) {
            if (std::isinf(p) && (mode == EpsMode::sum_add || mode == EpsMode::sum_max)) continue;
            for (double eps : {0.0, 1e-12, 1e-50}) {
                EXPECT_TRUE(check_normalize(x.t, nparams({1}, p, mode, eps), "normalize_inner"));
                EXPECT_TRUE(check_normalize(xt.t, nparams({0}, p, mode, eps), "normalize_middle"));
            }
        }
    }
}

// The all-zero row by the rules, spelled out: 0 in every mode, NaN for eps = 0 in the eps
// modes, and 0 for an eps that is 0 in the compute type (1e-50 in float32 for 16-bit inputs;
// PyTorch's float16 normalize rounds eps = 1e-12 to 0 and gives NaN).
TEST_P(NormalizeDtype, ZeroGroupByTheRules) {
    const DType d = GetParam();
    Array x = make_from(d, {1, 3}, {0, -0.0L, 0});
    Array y = make_array(d, {1, 3});
    auto run = [&](EpsMode mode, double eps) {
        EXPECT_TRUE(normalize(x.t, y.t, nparams({-1}, 2, mode, eps)).ok());
        return y.at(1);
    };
    EXPECT_EQ(run(EpsMode::none, 0), 0);
    EXPECT_TRUE(std::isnan(run(EpsMode::norm_max, 0)));
    EXPECT_TRUE(std::isnan(run(EpsMode::sum_add, 0)));
    EXPECT_TRUE(std::isnan(run(EpsMode::sum_max, 0)));
    for (double eps : {1e-12, 1e-50, 1e-320}) {
        EXPECT_EQ(run(EpsMode::norm_max, eps), 0) << eps;
        EXPECT_EQ(run(EpsMode::sum_add, eps), 0) << eps;
        EXPECT_EQ(run(EpsMode::sum_max, eps), 0) << eps;
    }
}

// Large inputs: the parallel paths, blocks of groups cut at tile edges. Under an emulator
// (LPNORM_TEST_EMULATED, the ARM64 suite under qemu) the shapes are about 20 times smaller,
// still above the kernels' parallel threshold (32768 elements): the long-double reference, in
// software on AArch64, took two minutes per dtype on the native shapes.
TEST_P(NormalizeDtype, LargeShapes) {
    const DType d = GetParam();
    const bool emulated = running_emulated();
    const std::vector<Case> large =
        emulated ? std::vector<Case>{{{40, 1000}, {-1}, "normalize_inner"},
                                     {{2, 64, 20, 20}, {1}, "normalize_middle"},
                                     {{1, 600, 70}, {1}, "normalize_middle"},
                                     {{12, 3, 1000}, {0, 1}, "normalize_middle"}}
                 : std::vector<Case>{{{512, 1000}, {-1}, "normalize_inner"},
                                     {{8, 64, 40, 40}, {1}, "normalize_middle"},
                                     {{3, 2000, 70}, {1}, "normalize_middle"},
                                     {{40, 3, 3000}, {0, 1}, "normalize_middle"}};
    uint64_t seed = 3;
    for (const Case &c : large) {
        Array x = make_array(d, c.shape);
        fill_random(&x, seed++);
        EXPECT_TRUE(check_normalize(x.t, nparams(c.axes, 2), c.kernel));
        EXPECT_TRUE(check_normalize(x.t, nparams(c.axes, 2.5, EpsMode::sum_add, 1), c.kernel));
    }
}

// Views: a strided innermost axis, negative strides, channels-last.
TEST_P(NormalizeDtype, StridedViews) {
    const DType d = GetParam();
    Array a = make_strided(d, {6, 10}, {20, 2});
    fill_random(&a, 21);
    EXPECT_TRUE(check_normalize(a.t, nparams({1}, 2)));
    EXPECT_TRUE(check_normalize(a.t, nparams({0}, 1)));
    Array b = make_strided(d, {5, 7}, {-7, -1});
    fill_random(&b, 22);
    EXPECT_TRUE(check_normalize(b.t, nparams({1}, 2)));
    EXPECT_TRUE(check_normalize(b.t, nparams({0}, 3)));
    // N, C, H, W over NHWC memory, normalized over C.
    Array c = make_strided(d, {2, 16, 5, 6}, {16 * 30, 1, 6 * 16, 16});
    fill_random(&c, 23);
    EXPECT_TRUE(check_normalize(c.t, nparams({1}, 2)));
    EXPECT_TRUE(check_normalize(c.t, nparams({2, 3}, 2, EpsMode::norm_max, 1e-12)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, NormalizeDtype,
                         ::testing::Values(DType::float32, DType::float16, DType::bfloat16,
                                           DType::float64),
                         [](const auto &info) { return std::string(dtype_name(info.param)); });

// Worked values: [3, 4] gives [0.6, 0.8] under L2, [3/7, 4/7] under L1, [0.75, 1] under max.
TEST(Normalize, WorkedValues) {
    const float x[2] = {3, 4};
    float y[2];
    const Tensor in = Tensor::contiguous(x, DType::float32, {2});
    const Tensor out = Tensor::contiguous(y, DType::float32, {2});
    ASSERT_TRUE(normalize(in, out, nparams({0}, 2)).ok());
    EXPECT_EQ(y[0], 0.6f);
    EXPECT_EQ(y[1], 0.8f);
    ASSERT_TRUE(normalize(in, out, nparams({0}, 1)).ok());
    EXPECT_EQ(y[0], 3.0f / 7);
    EXPECT_EQ(y[1], 4.0f / 7);
    ASSERT_TRUE(normalize(in, out, nparams({0}, INFINITY)).ok());
    EXPECT_EQ(y[0], 0.75f);
    EXPECT_EQ(y[1], 1.0f);
    // max(5, 10): x / 10; (25 + 11)^(1/2) = 6; max(25, 100)^(1/2) = 10.
    ASSERT_TRUE(normalize(in, out, nparams({0}, 2, EpsMode::norm_max, 10)).ok());
    EXPECT_EQ(y[0], 0.3f);
    ASSERT_TRUE(normalize(in, out, nparams({0}, 2, EpsMode::sum_add, 11)).ok());
    EXPECT_EQ(y[0], 0.5f);
    ASSERT_TRUE(normalize(in, out, nparams({0}, 2, EpsMode::sum_max, 100)).ok());
    EXPECT_EQ(y[0], 0.3f);
}

// A float32 L2 row of 1e30s, whose squares overflow float32 (and every peer's sums), comes
// out as 1/sqrt(n); a float64 row of 1e300s likewise (within the bound: its scaled sum of a
// thousand terms rounds), whose squares overflow float64.
TEST(Normalize, OverflowingRows) {
    std::vector<float> x(1000, 1e30f), y(1000);
    ASSERT_TRUE(normalize(Tensor::contiguous(x.data(), DType::float32, {1000}),
                          Tensor::contiguous(y.data(), DType::float32, {1000}), nparams({0}, 2))
                    .ok());
    EXPECT_FLOAT_EQ(y[999], float(1 / std::sqrt(1000.0)));
    Array xd = make_array(DType::float64, {1000});
    for (int64_t i = 0; i < 1000; i++) xd.set_at(i, 1e300L);
    EXPECT_TRUE(check_normalize(xd.t, nparams({0}, 2)));
}

// The ONNX backend node tests of LpNormalization, through lpnorm/onnx.h
// (onnx/backend/test/case/node/ lpnormalization.py, opset 22): inputs and attributes as there, the
// expected outputs as their output_0.pb files hold them, printed to 7 digits: within 1.2e-7 (half a
// unit in the 7th digit below 1, plus one float32 ulp).
TEST(Normalize, OnnxBackendNodeTests) {
    const std::vector<float> x3 = {1, 2, 2, 3, 4, 0, 0, 5, 5, 6, 8, 0};
    const std::vector<float> x22 = {3, 4, 6, 8};
    struct Case {
        const char *name;
        std::vector<float> x;
        std::vector<int64_t> shape;
        int64_t axis;
        double p;
        std::vector<float> y;
    };
    const std::vector<Case> cases = {
        {"test_l2normalization_axis_0",
         x3,
         {2, 2, 3},
         0,
         2,
         {1, 0.3713907f, 0.3713907f, 0.4472136f, 0.4472136f, 0, 0, 0.9284767f, 0.9284767f,
          0.8944272f, 0.8944272f, 0}},
        {"test_l2normalization_axis_1", x22, {2, 2}, 1, 2, {0.6f, 0.8f, 0.6f, 0.8f}},
        {"test_l1normalization_axis_0", {3, 4}, {2}, 0, 1, {0.4285714f, 0.5714286f}},
        {"test_l1normalization_axis_1",
         x22,
         {2, 2},
         1,
         1,
         {0.4285714f, 0.5714286f, 0.4285714f, 0.5714286f}},
        {"test_l1normalization_axis_last",
         x3,
         {2, 2, 3},
         -1,
         1,
         {0.2f, 0.4f, 0.4f, 0.4285714f, 0.5714286f, 0, 0, 0.5f, 0.5f, 0.4285714f, 0.5714286f, 0}},
        {"test_lpnormalization_default",
         x3,
         {2, 2, 3},
         -1,
         2,
         {0.3333333f, 0.6666667f, 0.6666667f, 0.6f, 0.8f, 0, 0, 0.7071068f, 0.7071068f, 0.6f, 0.8f,
          0}},
    };
    for (const Case &c : cases) {
        std::vector<float> y(c.x.size(), -1);
        onnx::LpNormalizationAttributes a;
        a.opset = 22;
        a.axis = c.axis;
        a.p = int64_t(c.p);
        ASSERT_TRUE(onnx::lp_normalization(Tensor::contiguous(c.x.data(), DType::float32, c.shape),
                                           Tensor::contiguous(y.data(), DType::float32, c.shape), a)
                        .ok())
            << c.name;
        for (size_t i = 0; i < y.size(); i++) {
            EXPECT_NEAR(y[i], c.y[i], 1.2e-7) << c.name << " element " << i;
        }
    }
}

TEST(Normalize, EmptyTensorsWriteNothing) {
    float y = 7;
    const Tensor in = Tensor::contiguous(&y, DType::float32, {0, 3});
    const Tensor out = Tensor::contiguous(&y, DType::float32, {0, 3});
    EXPECT_TRUE(normalize(in, out, nparams({1}, 2)).ok());
    EXPECT_EQ(y, 7);
}

TEST(Normalize, CAbi) {
    const float x[6] = {3, 4, 0, 0, 1, 0};
    float y[6];
    const int64_t shape[2] = {3, 2}, axes[1] = {1};
    const lpnorm_tensor in = {const_cast<float *>(x), LPNORM_FLOAT32, 2, shape, nullptr,
                              LPNORM_MEMORY_HOST};
    const lpnorm_tensor out = {y, LPNORM_FLOAT32, 2, shape, nullptr, LPNORM_MEMORY_HOST};
    ASSERT_EQ(lpnorm_normalize(&in, &out, axes, 1, 2.0, 0.0, LPNORM_EPS_NONE), LPNORM_OK);
    EXPECT_EQ(y[0], 0.6f);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[4], 1.0f);
    ASSERT_EQ(lpnorm_normalize(&in, &out, axes, 1, 2.0, 0.0, LPNORM_EPS_NORM_MAX), LPNORM_OK);
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(lpnorm_normalize(&in, &out, axes, 1, -1.0, 0.0, LPNORM_EPS_NONE),
              LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(lpnorm_last_error(), "p = -1"), nullptr);
}

}  // namespace
}  // namespace lpnorm::test
