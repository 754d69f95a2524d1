// lpnorm_bench_gpu: the reduction, pooling and normalization shapes of the x86 benchmarks, and
// the reduction's and normalization's gradients, on a GPU backend, with tensors in device memory
// (no copies timed), beside a device-to-device copy of the same input in the same run: the
// bandwidth bar the kernels are held to.
//
//   LPNORM_BACKEND=cuda build/bench/lpnorm_bench_gpu      (or opencl; default: cuda, else
//                                                          opencl, whichever is usable)
// Counters: GB/s of the kernel (input + output bytes per second), copy_GB/s of the probe (read
// + write bytes per second), and of_copy = the kernel's GB/s over the probe's.
// First: the Halide runtime's names as lpnorm's archive has them (lpnorm_halide_*,
// cmake/LpnormPrivateRuntime.cmake), for the runtime calls below.
#include "lpnorm_halide_runtime_names.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#if LPNORM_BENCH_GPU_CUDA
#include "HalideRuntimeCuda.h"
#endif
#if LPNORM_BENCH_GPU_OPENCL
#include "HalideRuntimeOpenCL.h"
#endif

namespace {

using namespace lpnorm;

Backend g_backend = Backend::auto_select;

const halide_device_interface_t *interface_of(Backend b) {
#if LPNORM_BENCH_GPU_CUDA
    if (b == Backend::cuda) return halide_cuda_device_interface();
#endif
#if LPNORM_BENCH_GPU_OPENCL
    if (b == Backend::opencl) return halide_opencl_device_interface();
#endif
    (void)b;
    return nullptr;
}

// A 1-D byte buffer in device memory of the benchmarked backend, filled from the host once.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes) : host_(bytes) {
        dim_ = halide_dimension_t(0, int32_t(bytes), 1);
        buf_.type = halide_type_t(halide_type_uint, 8);
        buf_.dimensions = 1;
        buf_.dim = &dim_;
        buf_.host = host_.data();
        for (size_t i = 0; i < bytes; i += 4) {  // float32 values in [-8, 8)
            const float v = float(int((i / 4) * 2654435761u % 4096) - 2048) / 256.0f;
            std::memcpy(host_.data() + i, &v, std::min<size_t>(4, bytes - i));
        }
        buf_.flags = halide_buffer_flag_host_dirty;
        ok_ = halide_copy_to_device(nullptr, &buf_, interface_of(g_backend)) == 0;
    }
    ~DeviceBuffer() { halide_device_free(nullptr, &buf_); }
    bool ok() const { return ok_; }
    halide_buffer_t *raw() { return &buf_; }
    void *handle() {
#if LPNORM_BENCH_GPU_CUDA
        if (g_backend == Backend::cuda)
            return reinterpret_cast<void *>(halide_cuda_get_device_ptr(nullptr, &buf_));
#endif
#if LPNORM_BENCH_GPU_OPENCL
        if (g_backend == Backend::opencl)
            return reinterpret_cast<void *>(halide_opencl_get_cl_mem(nullptr, &buf_));
#endif
        return nullptr;
    }

private:
    std::vector<uint8_t> host_;
    halide_dimension_t dim_{};
    halide_buffer_t buf_{};
    bool ok_ = false;
};

Tensor device_tensor(DeviceBuffer &b, const std::vector<int64_t> &shape) {
    Tensor t = Tensor::contiguous(b.handle(), DType::float32, shape);
    t.memory = g_backend == Backend::cuda ? Memory::cuda : Memory::opencl;
    return t;
}

// Seconds per device-to-device copy of `bytes` (fastest of 20), measured once per size.
double copy_seconds(size_t bytes) {
    static std::map<size_t, double> cache;
    auto it = cache.find(bytes);
    if (it != cache.end()) return it->second;
    DeviceBuffer src(bytes), dst(bytes);
    double best = 1e30;
    for (int i = 0; i < 20; i++) {
        const auto t0 = std::chrono::steady_clock::now();
        halide_buffer_copy(nullptr, src.raw(), interface_of(g_backend), dst.raw());
        halide_device_sync(nullptr, dst.raw());
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return cache[bytes] = best;
}

// `seconds`: the kernel's total time over the state's iterations.
void report(benchmark::State &state, size_t in_bytes, size_t out_bytes, double seconds) {
    const double bytes = double(in_bytes + out_bytes);
    state.SetBytesProcessed(int64_t(bytes) * int64_t(state.iterations()));
    const double copy = copy_seconds(in_bytes);
    const double copy_rate = 2.0 * double(in_bytes) / copy;
    const double kernel_rate = bytes * double(state.iterations()) / seconds;
    state.counters["copy_GB/s"] = copy_rate / 1e9;
    state.counters["of_copy"] = kernel_rate / copy_rate;
}

// Runs `call` once per iteration and returns the total seconds.
template <typename Call>
double timed_loop(benchmark::State &state, Call call) {
    double seconds = 0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        const Status s = call();
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!s.ok()) {
            state.SkipWithError(s.message().c_str());
            return -1;
        }
    }
    return seconds;
}

int64_t count(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

void BM_Reduce(benchmark::State &state, std::vector<int64_t> shape, std::vector<int64_t> axes) {
    ReduceParams params;
    params.axes = axes;
    std::vector<int64_t> out_shape;
    reduce_output_shape(shape, params, &out_shape);
    const size_t in_bytes = size_t(count(shape)) * 4, out_bytes = size_t(count(out_shape)) * 4;
    DeviceBuffer in(in_bytes), out(out_bytes);
    if (!in.ok() || !out.ok()) return state.SkipWithError("device allocation failed");
    const Tensor x = device_tensor(in, shape), y = device_tensor(out, out_shape);
    const double seconds = timed_loop(state, [&] { return reduce(x, y, params); });
    if (seconds > 0) report(state, in_bytes, out_bytes, seconds);
}

void BM_Pool(benchmark::State &state, std::vector<int64_t> shape, PoolParams params) {
    std::vector<int64_t> out_shape;
    pool_output_shape(shape, params, &out_shape);
    const size_t in_bytes = size_t(count(shape)) * 4, out_bytes = size_t(count(out_shape)) * 4;
    DeviceBuffer in(in_bytes), out(out_bytes);
    if (!in.ok() || !out.ok()) return state.SkipWithError("device allocation failed");
    const Tensor x = device_tensor(in, shape), y = device_tensor(out, out_shape);
    const double seconds = timed_loop(state, [&] { return pool(x, y, params); });
    if (seconds > 0) report(state, in_bytes, out_bytes, seconds);
}

void BM_Normalize(benchmark::State &state, std::vector<int64_t> shape, int64_t axis) {
    NormalizeParams params;
    params.axes = {axis};
    const size_t bytes = size_t(count(shape)) * 4;
    DeviceBuffer in(bytes), out(bytes);
    if (!in.ok() || !out.ok()) return state.SkipWithError("device allocation failed");
    const Tensor x = device_tensor(in, shape), y = device_tensor(out, shape);
    const double seconds = timed_loop(state, [&] { return normalize(x, y, params); });
    if (seconds > 0) report(state, bytes, bytes, seconds);
}

// The gradient of a forward op whose output has `out_shape`: y from `forward` on the device
// once, dy arbitrary; bytes are x, y and dy read and dx written.
template <typename Forward, typename Backward>
void time_gradient(benchmark::State &state, const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &out_shape, Forward forward, Backward backward) {
    const size_t x_bytes = size_t(count(shape)) * 4, y_bytes = size_t(count(out_shape)) * 4;
    DeviceBuffer in(x_bytes), out(y_bytes), grad(y_bytes), in_grad(x_bytes);
    if (!in.ok() || !out.ok() || !grad.ok() || !in_grad.ok()) {
        return state.SkipWithError("device allocation failed");
    }
    const Tensor x = device_tensor(in, shape), y = device_tensor(out, out_shape);
    const Tensor dy = device_tensor(grad, out_shape), dx = device_tensor(in_grad, shape);
    const Status forward_status = forward(x, y);
    if (!forward_status.ok()) return state.SkipWithError(forward_status.message().c_str());
    const double seconds = timed_loop(state, [&] { return backward(x, y, dy, dx); });
    if (seconds > 0) report(state, x_bytes + 2 * y_bytes, x_bytes, seconds);
}

void BM_ReduceBackward(benchmark::State &state, std::vector<int64_t> shape,
                       std::vector<int64_t> axes) {
    ReduceParams params;
    params.axes = axes;
    std::vector<int64_t> out_shape;
    reduce_output_shape(shape, params, &out_shape);
    time_gradient(
        state, shape, out_shape,
        [&](const Tensor &x, const Tensor &y) { return reduce(x, y, params); },
        [&](const Tensor &x, const Tensor &y, const Tensor &dy, const Tensor &dx) {
            return reduce_backward(x, y, dy, dx, params);
        });
}

void BM_NormalizeBackward(benchmark::State &state, std::vector<int64_t> shape, int64_t axis) {
    NormalizeParams params;
    params.axes = {axis};
    const size_t bytes = size_t(count(shape)) * 4;
    DeviceBuffer in(bytes), grad(bytes), in_grad(bytes);
    if (!in.ok() || !grad.ok() || !in_grad.ok()) {
        return state.SkipWithError("device allocation failed");
    }
    const Tensor x = device_tensor(in, shape), dy = device_tensor(grad, shape);
    const Tensor dx = device_tensor(in_grad, shape);
    const double seconds = timed_loop(state, [&] { return normalize_backward(x, dy, dx, params); });
    if (seconds > 0) report(state, 2 * bytes, bytes, seconds);
}

PoolParams window(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                  std::vector<int64_t> pads = {}) {
    PoolParams p;
    p.kernel = kernel;
    p.strides = strides;
    p.pads = pads;
    return p;
}

void register_benchmarks() {
    const std::vector<int64_t> nchw = {32, 256, 56, 56};
    auto reduce_case = [](const char *name, std::vector<int64_t> shape, std::vector<int64_t> axes) {
        benchmark::RegisterBenchmark(name, BM_Reduce, shape, axes)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    };
    reduce_case("reduce_all/f32/[32,256,56,56]", nchw, {});
    reduce_case("reduce_inner/f32/[32,256,56,56]/axes{2,3}", nchw, {2, 3});
    reduce_case("reduce_middle/f32/[32,256,56,56]/axis1", nchw, {1});
    reduce_case("reduce_outer/f32/[8192,8192]/axis0", {8192, 8192}, {0});
    reduce_case("reduce_inner/f32/[8192,8192]/axis1", {8192, 8192}, {1});
    reduce_case("reduce_general/f32/[32,256,56,56]/axes{0,2}", nchw, {0, 2});
    auto pool_case = [](const char *name, std::vector<int64_t> shape, PoolParams p) {
        benchmark::RegisterBenchmark(name, BM_Pool, shape, p)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    };
    pool_case("pool_2d/f32/[32,64,112,112]/k2s2", {32, 64, 112, 112}, window({2, 2}, {2, 2}));
    pool_case("pool_2d/f32/[32,64,112,112]/k3s1p1", {32, 64, 112, 112},
              window({3, 3}, {1, 1}, {1, 1, 1, 1}));
    pool_case("pool_2d/f32/[32,64,112,112]/k3s2p1", {32, 64, 112, 112},
              window({3, 3}, {2, 2}, {1, 1, 1, 1}));
    pool_case("pool_1d/f32/[32,64,8192]/k4s2", {32, 64, 8192}, window({4}, {2}));
    pool_case("pool_3d/f32/[4,32,32,56,56]/k2s2", {4, 32, 32, 56, 56},
              window({2, 2, 2}, {2, 2, 2}));
    auto normalize_case = [](const char *name, std::vector<int64_t> shape, int64_t axis) {
        benchmark::RegisterBenchmark(name, BM_Normalize, shape, axis)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    };
    normalize_case("normalize_inner/f32/[4096,1024]/axis-1", {4096, 1024}, -1);
    normalize_case("normalize_middle/f32/[32,256,56,56]/axis1", nchw, 1);
    benchmark::RegisterBenchmark("reduce_backward_inner/f32/[4096,1024]/axis-1", BM_ReduceBackward,
                                 std::vector<int64_t>{4096, 1024}, std::vector<int64_t>{-1})
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("reduce_backward_middle/f32/[32,256,56,56]/axis1",
                                 BM_ReduceBackward, nchw, std::vector<int64_t>{1})
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("normalize_backward_inner/f32/[4096,1024]/axis-1",
                                 BM_NormalizeBackward, std::vector<int64_t>{4096, 1024}, -1)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("normalize_backward_middle/f32/[32,256,56,56]/axis1",
                                 BM_NormalizeBackward, nchw, 1)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    Backend chosen = backend_override();
    if (chosen != Backend::opencl && chosen != Backend::cuda) {
        chosen = Backend::auto_select;
        for (const BackendStatus &b : backends()) {
            if (b.usable && b.backend == Backend::cuda) chosen = Backend::cuda;
        }
        for (const BackendStatus &b : backends()) {
            if (chosen == Backend::auto_select && b.usable && b.backend == Backend::opencl)
                chosen = b.backend;
        }
    }
    for (const BackendStatus &b : backends()) {
        if (b.backend == chosen && !b.usable) {
            std::fprintf(stderr, "lpnorm_bench_gpu: backend %s cannot run here: %s\n",
                         backend_name(chosen), b.detail.c_str());
            return 1;
        }
    }
    if (chosen == Backend::auto_select || interface_of(chosen) == nullptr) {
        std::fprintf(stderr, "lpnorm_bench_gpu: no usable GPU backend (see lpnorm info)\n");
        return 1;
    }
    g_backend = chosen;
    std::printf("lpnorm_bench_gpu: backend %s\n", backend_name(chosen));
    benchmark::AddCustomContext("lpnorm_backend", backend_name(chosen));
    register_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
