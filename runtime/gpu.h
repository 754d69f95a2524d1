// GPU backends at run time: which are usable, which one a call runs on, and Halide buffers
// over device memory (wrapped in place) or host memory (copied in and out by the kernel call).
#pragma once

#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "HalideRuntime.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// The GPU backends, in the order of backends(), each with the memory its kernels read and
// write in place and the API's name. `handle`: that memory is named by a handle (a cl_mem, an
// ID3D12Resource) rather than an address, so element (0, ..., 0) is at offset 0 (no stride
// may be negative) and two tensors overlap only when they are the same handle.
struct GpuApi {
    Backend backend;
    Memory memory;
    const char *api;
    bool handle;
};
inline constexpr GpuApi kGpuApis[] = {
    {Backend::opencl, Memory::opencl, "OpenCL", true},
    {Backend::cuda, Memory::cuda, "CUDA", false},
    {Backend::d3d12, Memory::d3d12, "D3D12", true},
};

inline const GpuApi *gpu_api(Backend backend) {
    for (const GpuApi &a : kGpuApis) {
        if (a.backend == backend) return &a;
    }
    return nullptr;
}

inline bool is_gpu(Backend backend) { return gpu_api(backend) != nullptr; }

// The API's name for device memory ("OpenCL", "CUDA", "D3D12"), "host" for host memory.
inline const char *memory_api(Memory memory) {
    for (const GpuApi &a : kGpuApis) {
        if (a.memory == memory) return a.api;
    }
    return "host";
}

// A value of the Memory enum (host, cuda, opencl, d3d12).
inline bool is_memory(int memory) { return memory >= 0 && memory <= int(Memory::d3d12); }

// Device memory named by a handle (GpuApi::handle).
inline bool is_handle_memory(Memory memory) {
    for (const GpuApi &a : kGpuApis) {
        if (a.memory == memory) return a.handle;
    }
    return false;
}

// OK when `backend`'s driver loads and a device answers (probed once per process), else
// `unsupported` with the API's message.
Status backend_usable(Backend backend);

// The backend a call runs on: from the override, else from where the tensors live. Errors name
// the memory or the backend that cannot be used.
Status choose_backend(const Tensor &input, const Tensor &output, Backend *backend);

// The same for a call over `count` tensors, tensors[0] its input, named by `names`: every one
// must live in the input's memory.
Status choose_backend(const Tensor *const *tensors, const char *const *names, int count,
                      Backend *backend);

// One buffer of a GPU kernel call. attach() wraps device memory in place, or leaves host
// memory for the kernel to copy in (an input) or to compute on the device (an output);
// finish() copies a host output back or waits for a device output, and releases what the call
// made. The destructor releases without copying.
class GpuBinding {
public:
    // `name` names the tensor in errors.
    GpuBinding(halide_buffer_t *buffer, Memory memory, bool is_output, const char *name)
        : buffer_(buffer), memory_(memory), is_output_(is_output), name_(name) {}
    GpuBinding(const GpuBinding &) = delete;
    GpuBinding &operator=(const GpuBinding &) = delete;
    ~GpuBinding() { release(); }

    Status attach();
    Status finish();

private:
    void release();
    halide_buffer_t *buffer_;
    Memory memory_;
    bool is_output_;
    const char *name_;
    bool wrapped_ = false;
};

// The input and output buffers of one kernel call: bound as above on a GPU backend (`gpu`),
// left alone on the CPU. finish() runs after a successful kernel call.
class KernelBuffers {
public:
    KernelBuffers(bool gpu, Memory memory, halide_buffer_t *input, halide_buffer_t *output)
        : KernelBuffers(gpu, memory, {{input, "input"}}, output, "output") {}
    // Several inputs (a gradient's x, y, dy), each with its name for errors.
    KernelBuffers(bool gpu, Memory memory,
                  std::initializer_list<std::pair<halide_buffer_t *, const char *>> inputs,
                  halide_buffer_t *output, const char *output_name);

    Status attach();
    Status finish() { return gpu_ ? output_.finish() : Status::Ok(); }

private:
    bool gpu_;
    std::vector<std::unique_ptr<GpuBinding>> inputs_;
    GpuBinding output_;
};

// The `too_large` answer for a tensor that GPU `backend` would have to split along `axis`.
Status refuse_gpu_split(Backend backend, const Tensor &input, int axis);

// CUDA launches at most 65535 blocks along a grid's y and z. The pooling kernels' grids
// (schedules/gpu_pool_schedule.cpp) take N x C in one of them, and the spatial dims but the last
// (their product) in the other; a pooling of `input` into `output` (N, C, spatial...) beyond that
// on `backend` gets `too_large`, naming the dims, before any kernel runs.
Status check_gpu_pool_grid(Backend backend, const Tensor &input, const Tensor &output);
// The same for the `general` reduction's kernel (schedules/gpu_reduce_schedule.cpp), whose grid
// takes its output's dim 1 (Halide order, innermost first) in y and dims 2 and 3 in z; its
// output extents `out_extent` (kMaxRank of them).
Status check_gpu_general_grid(Backend backend, const int64_t *out_extent);

// Copies `input` (any strides, host memory) into dense row-major `dst`.
void copy_to_dense(const Tensor &input, void *dst);

// The input a kernel call on `backend` reads (*out): `input` itself, except a host tensor with
// a negative stride on a GPU backend, which is copied densely into `storage` first (the Halide
// runtime copies a host buffer to the device from its first element up).
Status host_input_for(Backend backend, const Tensor &input, std::vector<unsigned char> *storage,
                      Tensor *out);

// host_input_for for each of the `count` tensors `inputs` (storage[i] and out[i] for the i-th).
Status host_inputs_for(Backend backend, const Tensor *const *inputs, int count,
                       std::vector<unsigned char> *storage, Tensor *out);

// Device-memory versions of the copies reduce() and pool() make without a kernel: `output`
// (dense) = `input` (any strides), and `output` = 0.
Status device_copy(const Tensor &input, const Tensor &output);
Status device_zero(const Tensor &output);

}  // namespace lpnorm::rt
