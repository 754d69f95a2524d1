// GPU backends as a user meets them: the backend list, choosing a backend, the errors when one
// cannot run, and OpenCL tensors passed as cl_mem without copies (run on PoCL in CI). The
// kernels themselves are checked by the whole reduction and pooling suite run again with
// LPNORM_BACKEND=opencl (ctest label opencl) and, on a CUDA machine, LPNORM_BACKEND=cuda.
// First: the Halide runtime's names as lpnorm's archive has them (lpnorm_halide_*,
// cmake/LpnormPrivateRuntime.cmake), for the runtime calls below.
#include "lpnorm_halide_runtime_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpu.h"
#include "lpnorm/lpnorm.h"
#include "lpnorm/lpnorm_c.h"
#include "test_util.h"
#include "testing.h"
#if LPNORM_TEST_CUDA
#include "HalideRuntimeCuda.h"
#endif

#if LPNORM_TEST_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif
#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace lpnorm {
namespace {

using test::backend_status;

// A GPU kernel's float32 gradient against the CPU kernel's: the same formulas, each rounded to
// float32 a few times, computed in another order (pow, divisions, sums of terms of either sign),
// so a few ulps of the element, or of the largest element where terms cancel.
void expect_gpu_matches(const std::vector<float> &got, const std::vector<float> &want,
                        const std::string &what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    float largest = 0;
    for (float w : want) largest = std::max(largest, std::fabs(w));
    for (size_t i = 0; i < got.size(); i++) {
        EXPECT_NEAR(got[i], want[i], std::fabs(want[i]) * 0x1p-20f + largest * 0x1p-22f)
            << what << ", element " << i;
    }
}

// A host float32 tensor over `v`.
Tensor host_f32(std::vector<float> &v, const std::vector<int64_t> &shape) {
    return Tensor::contiguous(v.data(), DType::float32, shape);
}

// Restores the backend override of the process when a test ends.
struct ScopedBackend {
    Backend saved = backend_override();
    ~ScopedBackend() { EXPECT_TRUE(set_backend(saved).ok() || saved == Backend::auto_select); }
};

TEST(GpuBackends, ListsEveryBackendWithItsState) {
    const std::vector<BackendStatus> list = backends();
    ASSERT_EQ(list.size(), 4u);
    EXPECT_EQ(list[0].backend, Backend::cpu);
    EXPECT_TRUE(list[0].compiled && list[0].usable);
    EXPECT_EQ(list[1].backend, Backend::opencl);
    EXPECT_EQ(list[2].backend, Backend::cuda);
    EXPECT_EQ(list[3].backend, Backend::d3d12);
    for (const BackendStatus &b : list) {
        EXPECT_FALSE(b.detail.empty()) << backend_name(b.backend);
        EXPECT_TRUE(b.compiled || !b.usable) << backend_name(b.backend);
        bool has_kernels = b.backend == Backend::cpu;
        for (const VariantInfo &v : compiled_variants()) {
            has_kernels = has_kernels || v.backend == b.backend;
        }
        EXPECT_EQ(b.compiled, has_kernels) << backend_name(b.backend);
    }
}

TEST(GpuBackends, NamesParseBack) {
    for (Backend b :
         {Backend::auto_select, Backend::cpu, Backend::opencl, Backend::cuda, Backend::d3d12}) {
        Backend parsed;
        ASSERT_TRUE(parse_backend(backend_name(b), &parsed));
        EXPECT_EQ(parsed, b);
    }
    Backend unused;
    EXPECT_FALSE(parse_backend("vulkan", &unused));
    EXPECT_FALSE(parse_backend(nullptr, &unused));
}

TEST(GpuBackends, AnUnusableBackendIsRefusedByName) {
    for (Backend b : {Backend::opencl, Backend::cuda, Backend::d3d12}) {
        if (backend_status(b).usable) continue;
        ScopedBackend restore;
        const Status s = set_backend(b);
        EXPECT_EQ(s.code(), ErrorCode::unsupported) << s.message();
        EXPECT_NE(s.message().find(backend_name(b)), std::string::npos) << s.message();
        void *context = nullptr, *queue = nullptr;
        EXPECT_EQ(gpu_context(b, &context, &queue).code(), ErrorCode::unsupported);
    }
}

// CUDA grids take at most 65535 blocks along y and z. The pooling kernels spend them on N x C
// and on the spatial dims but the last, the general reduction on its second output dim and on
// its third and fourth: beyond, the call is refused by name before any kernel runs (a launch
// would fail on the device). Checked without a device, on the functions that decide it; other
// backends have no such limit.
TEST(GpuBackends, CudaGridLimitsAreNamed) {
    auto pool = [](Backend b, std::vector<int64_t> out_shape, std::vector<int64_t> in_shape = {}) {
        if (in_shape.empty()) in_shape = out_shape;
        return rt::check_gpu_pool_grid(b, Tensor::contiguous(nullptr, DType::float32, in_shape),
                                       Tensor::contiguous(nullptr, DType::float32, out_shape));
    };
    EXPECT_TRUE(pool(Backend::cuda, {255, 257, 4, 4}).ok());        // 65535 planes
    EXPECT_TRUE(pool(Backend::cuda, {1, 1, 65535, 9}).ok());        // 65535 rows
    EXPECT_TRUE(pool(Backend::cuda, {1, 1, 1 << 20}).ok());         // 1-D: no rows
    EXPECT_TRUE(pool(Backend::opencl, {512, 512, 300, 300}).ok());  // OpenCL: no limit
    const Status planes = pool(Backend::cuda, {256, 257, 4, 4});
    EXPECT_EQ(planes.code(), ErrorCode::too_large);
    EXPECT_NE(planes.message().find("output.shape[0] * output.shape[1] (N x C) = 65792 is beyond"),
              std::string::npos)
        << planes.message();
    const Status rows = pool(Backend::cuda, {1, 2, 256, 257, 3});
    EXPECT_EQ(rows.code(), ErrorCode::too_large);
    EXPECT_NE(rows.message().find("the larger) = 65792"), std::string::npos) << rows.message();
    // A 3-D sum along D runs over the input's rows: [2 * 200, 170] input rows for [200, 170]
    // output rows (stride 2 along H).
    EXPECT_TRUE(pool(Backend::cuda, {1, 1, 200, 170, 8}).ok());
    EXPECT_EQ(pool(Backend::cuda, {1, 1, 200, 170, 8}, {1, 1, 400, 170, 8}).code(),
              ErrorCode::too_large);

    const int64_t fits[8] = {1 << 20, 65535, 255, 257, 9, 9, 9, 1};
    const int64_t wide[8] = {1, 65536, 1, 1, 1, 1, 1, 1};
    const int64_t deep[8] = {1, 1, 256, 257, 1, 1, 1, 1};
    EXPECT_TRUE(rt::check_gpu_general_grid(Backend::cuda, fits).ok());
    EXPECT_TRUE(rt::check_gpu_general_grid(Backend::opencl, wide).ok());
    const Status y = rt::check_gpu_general_grid(Backend::cuda, wide);
    EXPECT_EQ(y.code(), ErrorCode::too_large);
    EXPECT_NE(y.message().find("second output dim (innermost first) = 65536"), std::string::npos)
        << y.message();
    const Status z = rt::check_gpu_general_grid(Backend::cuda, deep);
    EXPECT_EQ(z.code(), ErrorCode::too_large);
    EXPECT_NE(z.message().find("third and fourth output dims = 65792"), std::string::npos)
        << z.message();
}

#ifdef _WIN32
// Halide's D3D12 module aborts the process when the HLSL compiler refuses a kernel, as Wine
// 8.0's does for all of them (docs/targets.md): under Wine the d3d12 backend is compiled but
// refused, saying why, before that module runs; its calls then fail by name.
TEST(GpuBackends, D3D12UnderWineIsRefusedBeforeHalideRuns) {
    const HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    if (ntdll == nullptr || GetProcAddress(ntdll, "wine_get_version") == nullptr) {
        GTEST_SKIP() << "not under Wine";
    }
    const BackendStatus b = backend_status(Backend::d3d12);
    if (!b.compiled) GTEST_SKIP() << "no d3d12 kernels in this build: " << b.detail;
    EXPECT_FALSE(b.usable);
    EXPECT_NE(b.detail.find("running under Wine"), std::string::npos) << b.detail;
    ScopedBackend restore;
    const Status s = set_backend(Backend::d3d12);
    EXPECT_EQ(s.code(), ErrorCode::unsupported);
    EXPECT_NE(s.message().find("backend d3d12 cannot run here: no usable d3d12 device: running "
                               "under Wine"),
              std::string::npos)
        << s.message();
}
#endif

TEST(GpuBackends, BadSettingsAreRefusedByName) {
    ScopedBackend restore;
    const Backend before = backend_override();
    Status s = set_backend(Backend(9));
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("backend = 9 is not a Backend"), std::string::npos) << s.message();
    EXPECT_EQ(backend_override(), before);

    int canary = 0;
    void *context = &canary, *queue = &canary;
    s = gpu_context(Backend::opencl, nullptr, &queue);
    EXPECT_EQ(s.code(), ErrorCode::null_pointer);
    EXPECT_NE(s.message().find("context is null"), std::string::npos) << s.message();
    s = gpu_context(Backend::cuda, &context, nullptr);
    EXPECT_EQ(s.code(), ErrorCode::null_pointer);
    EXPECT_NE(s.message().find("queue is null"), std::string::npos) << s.message();
    s = gpu_context(Backend::cpu, &context, &queue);
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("backend = cpu has no GPU context"), std::string::npos)
        << s.message();
    EXPECT_EQ(context, &canary);  // nothing written
    EXPECT_EQ(queue, &canary);
}

TEST(GpuBackends, DeviceMemoryOnAnotherBackendIsRefused) {
    ScopedBackend restore;
    ASSERT_TRUE(set_backend(Backend::cpu).ok());
    for (Memory memory : {Memory::cuda, Memory::opencl, Memory::d3d12}) {
        float x[4] = {1, 2, 3, 4}, y = -1;
        Tensor in = Tensor::contiguous(x, DType::float32, {4});
        Tensor out = Tensor::contiguous(&y, DType::float32, std::vector<int64_t>{});
        in.memory = out.memory = memory;
        ReduceParams params;
        Status s = reduce(in, out, params);
        EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
        const std::string name = memory_name(memory);
        EXPECT_NE(s.message().find("input.memory = " + name + " cannot be read by backend cpu"),
                  std::string::npos)
            << s.message();
        out.memory = Memory::host;
        s = reduce(in, out, params);
        EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
        EXPECT_NE(s.message().find("output.memory = host"), std::string::npos) << s.message();
        EXPECT_EQ(y, -1.0f);  // nothing written
    }
}

// A D3D12 buffer, like an OpenCL one, is a handle whose element (0, ..., 0) is at offset 0: a
// negative stride is refused by name before the backend is even probed, on any build.
TEST(GpuBackends, NegativeStridesOfAD3D12BufferAreRefusedByName) {
    ScopedBackend restore;
    ASSERT_TRUE(set_backend(Backend::auto_select).ok());
    float x[4] = {1, 2, 3, 4}, y = -1;
    Tensor in = Tensor::contiguous(x + 3, DType::float32, {4});
    in.strides[0] = -1;
    Tensor out = Tensor::contiguous(&y, DType::float32, std::vector<int64_t>{});
    in.memory = out.memory = Memory::d3d12;
    const Status s = reduce(in, out, ReduceParams{});
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("input.strides[0] = -1 is negative: D3D12 buffers start at "
                               "element (0, ..., 0)"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(y, -1.0f);  // nothing written
}

#if LPNORM_TEST_OPENCL
// A cl_mem in lpnorm's OpenCL context, filled from and read back to the host.
class ClBuffer {
public:
    ClBuffer(cl_context context, cl_command_queue queue, size_t bytes) : queue_(queue) {
        cl_int err = CL_SUCCESS;
        mem_ = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
        EXPECT_EQ(err, CL_SUCCESS);
    }
    ~ClBuffer() {
        if (mem_) clReleaseMemObject(mem_);
    }
    void write(const void *src, size_t bytes) {
        EXPECT_EQ(clEnqueueWriteBuffer(queue_, mem_, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
                  CL_SUCCESS);
    }
    void read(void *dst, size_t bytes) {
        EXPECT_EQ(clEnqueueReadBuffer(queue_, mem_, CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr),
                  CL_SUCCESS);
    }
    void *handle() const { return mem_; }
    // A float32 tensor of `shape` over the buffer.
    Tensor tensor(const std::vector<int64_t> &shape) const {
        Tensor t = Tensor::contiguous(mem_, DType::float32, shape);
        t.memory = Memory::opencl;
        return t;
    }

private:
    cl_command_queue queue_;
    cl_mem mem_ = nullptr;
};

class OpenClMemory : public ::testing::Test {
protected:
    void SetUp() override {
        const BackendStatus b = backend_status(Backend::opencl);
        if (!b.usable) GTEST_SKIP() << "OpenCL not usable here: " << b.detail;
        void *context = nullptr, *queue = nullptr;
        ASSERT_TRUE(gpu_context(Backend::opencl, &context, &queue).ok());
        context_ = static_cast<cl_context>(context);
        queue_ = static_cast<cl_command_queue>(queue);
    }
    cl_context context_ = nullptr;
    cl_command_queue queue_ = nullptr;
};

TEST_F(OpenClMemory, ReducesAClMemInPlaceWithoutTheOverride) {
    // [3, 5] float32, L2 over axis 1: rows 1..5, 6..10, 11..15.
    std::vector<float> x(15);
    for (int i = 0; i < 15; i++) x[size_t(i)] = float(i + 1);
    ClBuffer in_mem(context_, queue_, x.size() * sizeof(float));
    ClBuffer out_mem(context_, queue_, 3 * sizeof(float));
    in_mem.write(x.data(), x.size() * sizeof(float));
    Tensor in = Tensor::contiguous(in_mem.handle(), DType::float32, {3, 5});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, {3});
    in.memory = out.memory = Memory::opencl;
    ReduceParams params;
    params.axes = {1};
    const Status s = reduce(in, out, params);  // auto_select: the memory picks OpenCL
    ASSERT_TRUE(s.ok()) << s.message();
    float y[3];
    out_mem.read(y, sizeof(y));
    for (int r = 0; r < 3; r++) {
        double sum = 0;
        for (int c = 1; c <= 5; c++) sum += double(r * 5 + c) * double(r * 5 + c);
        // One float32 rounding of a float64 result.
        EXPECT_NEAR(y[r], std::sqrt(sum), std::sqrt(sum) * 0x1p-24) << "row " << r;
    }
}

// The C ABI: a cl_mem from lpnorm_gpu_context's context, passed as LPNORM_MEMORY_OPENCL.
TEST_F(OpenClMemory, TheCAbiReducesAClMemInPlace) {
    void *context = nullptr, *queue = nullptr;
    ASSERT_EQ(lpnorm_gpu_context("opencl", &context, &queue), LPNORM_OK) << lpnorm_last_error();
    EXPECT_EQ(context, static_cast<void *>(context_));
    const float x[6] = {3, -4, 0, 5, 12, 0};  // [2, 3], L2 over axis 1: 5 and 13
    ClBuffer in_mem(context_, queue_, sizeof(x));
    ClBuffer out_mem(context_, queue_, 2 * sizeof(float));
    in_mem.write(x, sizeof(x));
    const int64_t in_shape[2] = {2, 3}, out_shape[1] = {2}, axes[1] = {1};
    const lpnorm_tensor in = {in_mem.handle(), LPNORM_FLOAT32, 2,
                              in_shape,        nullptr,        LPNORM_MEMORY_OPENCL};
    const lpnorm_tensor out = {out_mem.handle(), LPNORM_FLOAT32, 1,
                               out_shape,        nullptr,        LPNORM_MEMORY_OPENCL};
    ASSERT_EQ(lpnorm_reduce(&in, &out, axes, 1, 2.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
        << lpnorm_last_error();
    float y[2];
    out_mem.read(y, sizeof(y));
    EXPECT_EQ(y[0], 5.0f);
    EXPECT_EQ(y[1], 13.0f);
}

// lpnorm_set_backend sends host tensors to OpenCL and back; "auto_select" undoes it.
TEST_F(OpenClMemory, TheCAbiSetsTheBackend) {
    ScopedBackend restore;
    ASSERT_EQ(lpnorm_set_backend("opencl"), LPNORM_OK) << lpnorm_last_error();
    EXPECT_EQ(backend_override(), Backend::opencl);
    const float x[4] = {1, -2, 2, 0};
    float y = -1;
    const int64_t shape[1] = {4}, axes[1] = {0};
    const lpnorm_tensor in = {const_cast<float *>(x), LPNORM_FLOAT32, 1, shape, nullptr};
    const lpnorm_tensor out = {&y, LPNORM_FLOAT32, 0, nullptr, nullptr};
    ASSERT_EQ(lpnorm_reduce(&in, &out, axes, 1, 2.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL), LPNORM_OK)
        << lpnorm_last_error();
    EXPECT_EQ(y, 3.0f);
    ASSERT_EQ(lpnorm_set_backend("auto_select"), LPNORM_OK) << lpnorm_last_error();
    EXPECT_EQ(backend_override(), Backend::auto_select);
}

TEST_F(OpenClMemory, PoolsAClMemInPlace) {
    // [1, 1, 4, 4] float32, 2x2 stride 2, p = 1 of |x|.
    std::vector<float> x(16);
    for (int i = 0; i < 16; i++) x[size_t(i)] = float(i % 2 ? -i : i);
    ClBuffer in_mem(context_, queue_, x.size() * sizeof(float));
    ClBuffer out_mem(context_, queue_, 4 * sizeof(float));
    in_mem.write(x.data(), x.size() * sizeof(float));
    Tensor in = Tensor::contiguous(in_mem.handle(), DType::float32, {1, 1, 4, 4});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, {1, 1, 2, 2});
    in.memory = out.memory = Memory::opencl;
    PoolParams params;
    params.kernel = {2, 2};
    params.strides = {2, 2};
    params.p = 1;
    const Status s = pool(in, out, params);
    ASSERT_TRUE(s.ok()) << s.message();
    float y[4];
    out_mem.read(y, sizeof(y));
    const float expected[4] = {0 + 1 + 4 + 5, 2 + 3 + 6 + 7, 8 + 9 + 12 + 13, 10 + 11 + 14 + 15};
    for (int i = 0; i < 4; i++) EXPECT_EQ(y[i], expected[i]) << "output " << i;
}

TEST_F(OpenClMemory, NormalizesAClMemInPlace) {
    // [2, 2] float32 rows {3, 4} and {0, 0}, L2 over axis 1: {0.6, 0.8} and (eps_mode none)
    // {0, 0}; then over axis 0 (the middle pattern): columns {3, 0} and {4, 0}.
    const float x[4] = {3, 4, 0, 0};
    ClBuffer in_mem(context_, queue_, sizeof(x));
    ClBuffer out_mem(context_, queue_, sizeof(x));
    in_mem.write(x, sizeof(x));
    Tensor in = Tensor::contiguous(in_mem.handle(), DType::float32, {2, 2});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, {2, 2});
    in.memory = out.memory = Memory::opencl;
    NormalizeParams params;
    Status s = normalize(in, out, params);
    ASSERT_TRUE(s.ok()) << s.message();
    float y[4];
    out_mem.read(y, sizeof(y));
    // 0.6 and 0.8: float32 roundings of the float64 quotients.
    EXPECT_EQ(y[0], float(3.0 / 5.0));
    EXPECT_EQ(y[1], float(4.0 / 5.0));
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], 0.0f);
    params.axes = {0};
    s = normalize(in, out, params);
    ASSERT_TRUE(s.ok()) << s.message();
    out_mem.read(y, sizeof(y));
    EXPECT_EQ(y[0], 1.0f);
    EXPECT_EQ(y[1], 1.0f);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], 0.0f);
}

// Normalized axes apart in device memory do not merge into one kernel dim, and a device
// tensor is not copied through the host: refused by name, nothing written.
TEST_F(OpenClMemory, NormalizedAxesApartAreRefusedByName) {
    std::vector<float> x(12, 1.0f);
    ClBuffer in_mem(context_, queue_, x.size() * sizeof(float));
    ClBuffer out_mem(context_, queue_, x.size() * sizeof(float));
    in_mem.write(x.data(), x.size() * sizeof(float));
    const std::vector<float> canary(12, -7.0f);
    out_mem.write(canary.data(), canary.size() * sizeof(float));
    Tensor in = Tensor::contiguous(in_mem.handle(), DType::float32, {2, 3, 2});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, {2, 3, 2});
    in.memory = out.memory = Memory::opencl;
    NormalizeParams params;
    params.axes = {0, 2};
    const Status s = normalize(in, out, params);
    EXPECT_EQ(s.code(), ErrorCode::unsupported);
    EXPECT_NE(s.message().find("from host memory only"), std::string::npos) << s.message();
    std::vector<float> y(12);
    out_mem.read(y.data(), y.size() * sizeof(float));
    EXPECT_EQ(y, canary);
}

// The gradients of reduce and normalize with every tensor a cl_mem agree with the CPU
// kernels' on the same host data: the same formulas, one float32 rounding each (a few ulps
// apart where pow or a division is computed differently).
TEST_F(OpenClMemory, GradientsOfClMemsAgreeWithTheCpu) {
    const std::vector<int64_t> shape = {3, 7};
    std::vector<float> x(21), dy(21), y(3), dy_reduced(3);
    for (int i = 0; i < 21; i++) {
        x[size_t(i)] = float((i * 37) % 11 - 5) / 4.0f;
        dy[size_t(i)] = float((i * 13) % 7 - 3) / 2.0f;
    }
    for (int i = 0; i < 3; i++) dy_reduced[size_t(i)] = float(i) - 1.5f;
    ClBuffer x_mem(context_, queue_, 21 * sizeof(float)), dy_mem(context_, queue_, 21 * 4);
    ClBuffer y_mem(context_, queue_, 3 * 4), dyr_mem(context_, queue_, 3 * 4);
    ClBuffer dx_mem(context_, queue_, 21 * sizeof(float));
    x_mem.write(x.data(), 21 * 4);
    dy_mem.write(dy.data(), 21 * 4);
    dyr_mem.write(dy_reduced.data(), 3 * 4);
    for (double p : {1.0, 2.0, 3.0, 2.5, double(INFINITY)}) {
        ReduceParams params;
        params.axes = {1};
        params.p = p;
        ASSERT_TRUE(reduce(host_f32(x, shape), host_f32(y, {3}), params).ok());
        y_mem.write(y.data(), 3 * 4);
        std::vector<float> want(21), got(21);
        Status s = reduce_backward(host_f32(x, shape), host_f32(y, {3}), host_f32(dy_reduced, {3}),
                                   host_f32(want, shape), params);
        ASSERT_TRUE(s.ok()) << s.message();
        s = reduce_backward(x_mem.tensor(shape), y_mem.tensor({3}), dyr_mem.tensor({3}),
                            dx_mem.tensor(shape), params);
        ASSERT_TRUE(s.ok()) << s.message();
        dx_mem.read(got.data(), 21 * 4);
        expect_gpu_matches(got, want, "reduce_backward p = " + std::to_string(p));

        NormalizeParams nparams;
        nparams.axes = {1};
        nparams.p = p;
        s = normalize_backward(host_f32(x, shape), host_f32(dy, shape), host_f32(want, shape),
                               nparams);
        ASSERT_TRUE(s.ok()) << s.message();
        s = normalize_backward(x_mem.tensor(shape), dy_mem.tensor(shape), dx_mem.tensor(shape),
                               nparams);
        ASSERT_TRUE(s.ok()) << s.message();
        dx_mem.read(got.data(), 21 * 4);
        expect_gpu_matches(got, want, "normalize_backward p = " + std::to_string(p));
    }
}

// A reduction gradient whose reduced axes lie apart in device memory is refused by name, as
// the forward's normalization is: nothing is written.
TEST_F(OpenClMemory, GradientAxesApartAreRefusedByName) {
    std::vector<float> ones(12, 1.0f), canary(12, -7.0f);
    ClBuffer x_mem(context_, queue_, 12 * 4), y_mem(context_, queue_, 3 * 4);
    ClBuffer dy_mem(context_, queue_, 3 * 4), dx_mem(context_, queue_, 12 * 4);
    x_mem.write(ones.data(), 12 * 4);
    y_mem.write(ones.data(), 3 * 4);
    dy_mem.write(ones.data(), 3 * 4);
    dx_mem.write(canary.data(), 12 * 4);
    Tensor x = Tensor::contiguous(x_mem.handle(), DType::float32, {2, 3, 2});
    Tensor y = Tensor::contiguous(y_mem.handle(), DType::float32, {3});
    Tensor dy = Tensor::contiguous(dy_mem.handle(), DType::float32, {3});
    Tensor dx = Tensor::contiguous(dx_mem.handle(), DType::float32, {2, 3, 2});
    x.memory = y.memory = dy.memory = dx.memory = Memory::opencl;
    ReduceParams params;
    params.axes = {0, 2};
    const Status s = reduce_backward(x, y, dy, dx, params);
    EXPECT_EQ(s.code(), ErrorCode::unsupported);
    EXPECT_NE(s.message().find("from host memory only"), std::string::npos) << s.message();
    std::vector<float> after(12);
    dx_mem.read(after.data(), 12 * 4);
    EXPECT_EQ(after, canary);
}

TEST_F(OpenClMemory, EmptyAxesIdentityCopiesOnTheDevice) {
    std::vector<float> x = {-1, 2, -3, 4, -5, 6};
    ClBuffer in_mem(context_, queue_, x.size() * sizeof(float));
    ClBuffer out_mem(context_, queue_, x.size() * sizeof(float));
    in_mem.write(x.data(), x.size() * sizeof(float));
    Tensor in = Tensor::contiguous(in_mem.handle(), DType::float32, {2, 3});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, {2, 3});
    in.memory = out.memory = Memory::opencl;
    ReduceParams params;
    params.empty_axes = EmptyAxes::identity;
    const Status s = reduce(in, out, params);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<float> y(6);
    out_mem.read(y.data(), y.size() * sizeof(float));
    EXPECT_EQ(y, x);
}

TEST_F(OpenClMemory, NegativeStridesAreRefusedByName) {
    ClBuffer in_mem(context_, queue_, 4 * sizeof(float));
    ClBuffer out_mem(context_, queue_, sizeof(float));
    const float canary = -7;
    out_mem.write(&canary, sizeof(canary));
    Tensor in = Tensor::strided(in_mem.handle(), DType::float32, {4}, {-1});
    Tensor out = Tensor::contiguous(out_mem.handle(), DType::float32, std::vector<int64_t>{});
    in.memory = out.memory = Memory::opencl;
    const Status s = reduce(in, out, ReduceParams{});
    EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
    EXPECT_NE(s.message().find("input.strides[0] = -1"), std::string::npos) << s.message();
    float y = 0;
    out_mem.read(&y, sizeof(y));
    EXPECT_EQ(y, canary);  // nothing written
}

// A tensor a GPU kernel cannot index in one call is refused, not split: here with the split
// limits lowered to 8 elements, so a 20-element host tensor stands for one beyond 2^31 - 1.
TEST_F(OpenClMemory, TensorsBeyondOneCallAreRefused) {
    ScopedBackend restore;
    ASSERT_TRUE(set_backend(Backend::opencl).ok());
    testing::set_split_limits(8);
    std::vector<float> x(20, 1.0f);
    float y = -1;
    ReduceParams reduce_params;
    Status s =
        reduce(Tensor::contiguous(x.data(), DType::float32, {20}),
               Tensor::contiguous(&y, DType::float32, std::vector<int64_t>{}), reduce_params);
    EXPECT_EQ(s.code(), ErrorCode::too_large);
    EXPECT_NE(s.message().find("input.shape[0] = 20"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("beyond what backend opencl indexes in one kernel call"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(y, -1.0f);  // nothing written
    std::vector<float> pooled(10, -1.0f);
    PoolParams pool_params;
    pool_params.kernel = {2};
    pool_params.strides = {2};
    s = pool(Tensor::contiguous(x.data(), DType::float32, {1, 1, 20}),
             Tensor::contiguous(pooled.data(), DType::float32, {1, 1, 10}), pool_params);
    testing::set_split_limits(0);
    EXPECT_EQ(s.code(), ErrorCode::too_large);
    EXPECT_NE(s.message().find("beyond what backend opencl indexes in one kernel call"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(pooled, std::vector<float>(10, -1.0f));  // nothing written
}
#endif

// On a CUDA machine: host tensors through the CUDA kernels against the CPU result.
TEST(CudaRun, HostTensorsMatchTheCpu) {
    const BackendStatus b = backend_status(Backend::cuda);
    if (!b.usable) GTEST_SKIP() << "no CUDA device: " << b.detail;
    ScopedBackend restore;
    std::vector<float> x(4096 * 33);
    for (size_t i = 0; i < x.size(); i++) x[i] = float(int(i * 2654435761u % 2001) - 1000) / 64;
    float gpu[33], cpu[33];
    const Tensor in = Tensor::contiguous(x.data(), DType::float32, {4096, 33});
    ReduceParams params;
    params.axes = {0};
    ASSERT_TRUE(set_backend(Backend::cuda).ok());
    Status s = reduce(in, Tensor::contiguous(gpu, DType::float32, {33}), params);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(set_backend(Backend::cpu).ok());
    s = reduce(in, Tensor::contiguous(cpu, DType::float32, {33}), params);
    ASSERT_TRUE(s.ok()) << s.message();
    // Both accumulate in float64 and round once to float32: they may differ by one rounding.
    for (int i = 0; i < 33; i++) EXPECT_NEAR(gpu[i], cpu[i], std::fabs(cpu[i]) * 0x1p-23) << i;
}

#if LPNORM_TEST_CUDA
// A float32 buffer in CUDA device memory (through the Halide runtime the library links), filled
// from and read back to the host.
class CudaFloats {
public:
    explicit CudaFloats(const std::vector<float> &values) : host_(values) {
        dim_ = halide_dimension_t(0, int32_t(host_.size()), 1);
        buf_.type = halide_type_t(halide_type_float, 32);
        buf_.dimensions = 1;
        buf_.dim = &dim_;
        buf_.host = reinterpret_cast<uint8_t *>(host_.data());
        buf_.flags = halide_buffer_flag_host_dirty;
        EXPECT_EQ(halide_copy_to_device(nullptr, &buf_, halide_cuda_device_interface()), 0);
    }
    ~CudaFloats() { halide_device_free(nullptr, &buf_); }
    Tensor tensor(std::vector<int64_t> shape) {
        Tensor t =
            Tensor::contiguous(reinterpret_cast<void *>(halide_cuda_get_device_ptr(nullptr, &buf_)),
                               DType::float32, shape);
        t.memory = Memory::cuda;
        return t;
    }
    std::vector<float> read() {
        buf_.flags = halide_buffer_flag_device_dirty;
        EXPECT_EQ(halide_copy_to_host(nullptr, &buf_), 0);
        return host_;
    }

private:
    std::vector<float> host_;
    halide_dimension_t dim_{};
    halide_buffer_t buf_{};
};

// The reduction and normalization gradients with every tensor a CUdeviceptr agree with the CPU
// kernels'.
TEST(CudaRun, GradientsOfDevicePointersAgreeWithTheCpu) {
    const BackendStatus b = backend_status(Backend::cuda);
    if (!b.usable) GTEST_SKIP() << "no CUDA device: " << b.detail;
    const std::vector<int64_t> shape = {2, 3, 9, 11};
    const int64_t n = 2 * 3 * 9 * 11;
    std::vector<float> x(static_cast<size_t>(n)), dy_full(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
        x[size_t(i)] = float(int(i * 2654435761u % 2001) - 1000) / 64;
        dy_full[size_t(i)] = float(int(i * 40503u % 17) - 8) / 4;
    }
    CudaFloats x_dev(x);
    for (double p : {1.0, 2.0, 3.0, 2.5, double(INFINITY)}) {
        // Reduction over axis 1 (the middle pattern).
        ReduceParams rp;
        rp.axes = {1};
        rp.p = p;
        std::vector<float> y(2 * 9 * 11), dy(y.size()), want(static_cast<size_t>(n));
        for (size_t i = 0; i < dy.size(); i++) dy[i] = dy_full[i];
        const std::vector<int64_t> reduced = {2, 9, 11};
        ASSERT_TRUE(reduce(host_f32(x, shape), host_f32(y, reduced), rp).ok());
        ASSERT_TRUE(reduce_backward(host_f32(x, shape), host_f32(y, reduced), host_f32(dy, reduced),
                                    host_f32(want, shape), rp)
                        .ok());
        CudaFloats y_dev(y), dy_dev(dy), dx_dev(std::vector<float>(size_t(n), -7.0f));
        Status s = reduce_backward(x_dev.tensor(shape), y_dev.tensor(reduced),
                                   dy_dev.tensor(reduced), dx_dev.tensor(shape), rp);
        ASSERT_TRUE(s.ok()) << s.message();
        expect_gpu_matches(dx_dev.read(), want, "reduce_backward");

        // Normalization over the last axis (the inner pattern).
        NormalizeParams np;
        np.p = p;
        ASSERT_TRUE(normalize_backward(host_f32(x, shape), host_f32(dy_full, shape),
                                       host_f32(want, shape), np)
                        .ok());
        CudaFloats dyn_dev(dy_full), dxn_dev(std::vector<float>(size_t(n), -7.0f));
        s = normalize_backward(x_dev.tensor(shape), dyn_dev.tensor(shape), dxn_dev.tensor(shape),
                               np);
        ASSERT_TRUE(s.ok()) << s.message();
        expect_gpu_matches(dxn_dev.read(), want, "normalize_backward");
    }
}
#endif

}  // namespace
}  // namespace lpnorm
