// lpnorm linked beside a second Halide AOT library (coexistence_scale, generated here with its
// own Halide runtime under Halide's names) in one process. Each library keeps its own runtime:
// the other library's error handler and parallel-loop hook stay its own after lpnorm has
// installed its handlers, lpnorm's kernels never reach the other library's hooks, and a
// failure inside lpnorm's runtime reaches lpnorm's status, not the other library's handler
// (cmake/LpnormPrivateRuntime.cmake).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "coexistence_scale.h"
#include "lpnorm/lpnorm.h"
#include "lpnorm_allocator.h"

namespace {

// The other library's hooks, as its user would install them: Halide's standard names.
std::mutex g_mutex;
std::string g_other_errors;
std::atomic<int> g_other_loops{0};

void record_other_error(void *, const char *message) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_other_errors += message;
}

int count_other_loop(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
    g_other_loops++;
    for (int i = min; i < min + size; i++) {
        if (int result = task(user_context, i, closure)) return result;
    }
    return 0;
}

std::string other_errors() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_other_errors;
}

class Coexistence : public ::testing::Test {
protected:
    void SetUp() override {
        halide_set_error_handler(record_other_error);
        halide_set_custom_do_par_for(count_other_loop);
        std::lock_guard<std::mutex> lock(g_mutex);
        g_other_errors.clear();
        g_other_loops = 0;
    }
};

// An L2 pooling of [n, c, 72, 72] by 3x3 windows, stride 1, pads of 1: threaded (2 x 64
// planes) and with a stored row per plane, which lpnorm's runtime allocates (the planes are
// over the flat kernels' bound of 64x64 padded, kernel_abi.h: their copies are on the stack).
constexpr int64_t kN = 2, kC = 64, kH = 72, kW = 72;

lpnorm::PoolParams l2_pool_3x3() {
    lpnorm::PoolParams params;
    params.kernel = {3, 3};
    params.pads = {1, 1, 1, 1};
    params.p = 2;
    return params;
}

std::vector<float> pool_input() {
    std::vector<float> x(kN * kC * kH * kW);
    for (size_t i = 0; i < x.size(); i++) x[i] = float(int(i * 7919 % 263) - 131) / 64.0f;
    return x;
}

// The L2 norm of the 3x3 window at (h, w) of plane `plane`, zero padded, in double.
double window_norm(const std::vector<float> &x, int64_t plane, int64_t h, int64_t w) {
    double sum = 0;
    for (int64_t i = h - 1; i <= h + 1; i++) {
        for (int64_t j = w - 1; j <= w + 1; j++) {
            if (i < 0 || i >= kH || j < 0 || j >= kW) continue;
            const double v = x[(plane * kH + i) * kW + j];
            sum += v * v;
        }
    }
    return std::sqrt(sum);
}

lpnorm::Status run_pool(const std::vector<float> &x, std::vector<float> *y) {
    y->assign(x.size(), -1.0f);
    return lpnorm::pool(
        lpnorm::Tensor::contiguous(x.data(), lpnorm::DType::float32, {kN, kC, kH, kW}),
        lpnorm::Tensor::contiguous(y->data(), lpnorm::DType::float32, {kN, kC, kH, kW}),
        l2_pool_3x3());
}

TEST_F(Coexistence, EachLibraryKeepsItsOwnHooks) {
    // lpnorm first: its first kernel call installs its error handler and thread pool into its
    // runtime. With one runtime for both libraries, that would replace the hooks set above.
    const std::vector<float> x = pool_input();
    std::vector<float> y;
    const lpnorm::Status status = run_pool(x, &y);
    ASSERT_TRUE(status.ok()) << status.message();
    for (int64_t plane = 0; plane < kN * kC; plane += 37) {
        for (int64_t h = 0; h < kH; h += 5) {
            for (int64_t w = 0; w < kW; w += 3) {
                const double want = window_norm(x, plane, h, w);
                EXPECT_NEAR(y[(plane * kH + h) * kW + w], want, 1e-6 * want + 1e-30)
                    << "plane " << plane << " at " << h << ", " << w;
            }
        }
    }
    EXPECT_EQ(g_other_loops.load(), 0) << "lpnorm's parallel loops went through the other "
                                          "library's halide_do_par_for";

    // The other library: its parallel loop through its own hook, its results.
    Halide::Runtime::Buffer<float> in(100, 40), out(100, 40);
    in.for_each_element([&](int i, int j) { in(i, j) = float(i - 2 * j); });
    ASSERT_EQ(coexistence_scale(in, 2.5f, out), 0) << other_errors();
    out.for_each_element([&](int i, int j) { ASSERT_EQ(out(i, j), 2.5f * float(i - 2 * j)); });
    EXPECT_GT(g_other_loops.load(), 0) << "the other library's parallel loop did not reach its "
                                          "own halide_do_par_for";

    // Its errors reach its own handler.
    Halide::Runtime::Buffer<int32_t> wrong_type(100, 40);
    EXPECT_NE(coexistence_scale(wrong_type, 2.5f, out), 0);
    EXPECT_NE(other_errors().find("type"), std::string::npos) << other_errors();
}

TEST_F(Coexistence, LpnormRuntimeErrorsStayLpnorms) {
    const std::vector<float> x = pool_input();
    std::vector<float> y;
    lpnorm_allocations_fail(true);
    const lpnorm::Status status = run_pool(x, &y);
    lpnorm_allocations_fail(false);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("Out of memory"), std::string::npos) << status.message();
    EXPECT_EQ(other_errors(), "") << "lpnorm's runtime reported to the other library's handler";

    // Both libraries run again afterwards.
    ASSERT_TRUE(run_pool(x, &y).ok());
    Halide::Runtime::Buffer<float> in(16, 4), out(16, 4);
    in.fill(1.0f);
    EXPECT_EQ(coexistence_scale(in, 3.0f, out), 0) << other_errors();
    EXPECT_EQ(out(15, 3), 3.0f);
}

}  // namespace
