#include "gpu.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "halide_glue.h"
#include "registry.h"

#if LPNORM_HAVE_OPENCL
#include "HalideRuntimeOpenCL.h"
// The Halide runtime's OpenCL context, shared with callers through gpu_context().
extern "C" int halide_acquire_cl_context(void *user_context, void **ctx, void **queue, bool create);
extern "C" int halide_release_cl_context(void *user_context);
#endif
#if LPNORM_HAVE_CUDA
#include "HalideRuntimeCuda.h"
extern "C" int halide_cuda_acquire_context(void *user_context, void **ctx, bool create);
extern "C" int halide_cuda_release_context(void *user_context);
#endif
#if LPNORM_HAVE_D3D12
#include "HalideRuntimeD3D12Compute.h"
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <dxgi.h>
#include <windows.h>
#endif

namespace lpnorm {
namespace rt {
namespace {

std::atomic<int> g_backend_override{-1};  // -1: not read from the environment yet

// LPNORM_BACKEND=cpu|opencl|cuda|d3d12|auto_select sets the override when that backend is compiled
// (usable or not: a call then names why it cannot run); anything else is ignored.
int backend_from_environment() {
    const char *env = std::getenv("LPNORM_BACKEND");
    Backend backend;
    if (env && parse_backend(env, &backend) && backend_compiled(backend)) {
        return int(backend);
    }
    return int(Backend::auto_select);
}

// Acquires (creating on first use) and releases the backend's context; the Halide runtime
// keeps it for the process.
int acquire_context(Backend backend, void **context, void **queue) {
    *context = nullptr;
    *queue = nullptr;
    int code = -1;
#if LPNORM_HAVE_OPENCL
    if (backend == Backend::opencl) {
        code = halide_acquire_cl_context(nullptr, context, queue, true);
        halide_release_cl_context(nullptr);
    }
#endif
#if LPNORM_HAVE_CUDA
    if (backend == Backend::cuda) {
        code = halide_cuda_acquire_context(nullptr, context, true);
        halide_cuda_release_context(nullptr);
    }
#endif
#if LPNORM_HAVE_D3D12
    if (backend == Backend::d3d12) {
        halide_d3d12compute_device *device = nullptr;
        halide_d3d12compute_command_queue *command_queue = nullptr;
        code = halide_d3d12compute_acquire_context(nullptr, &device, &command_queue, true);
        halide_d3d12compute_release_context(nullptr);
        *context = device;
        *queue = command_queue;
    }
#endif
    return code;
}

const halide_device_interface_t *device_interface(Memory memory) {
#if LPNORM_HAVE_OPENCL
    if (memory == Memory::opencl) return halide_opencl_device_interface();
#endif
#if LPNORM_HAVE_CUDA
    if (memory == Memory::cuda) return halide_cuda_device_interface();
#endif
#if LPNORM_HAVE_D3D12
    if (memory == Memory::d3d12) return halide_d3d12compute_device_interface();
#endif
    (void)memory;
    return nullptr;
}

#if LPNORM_HAVE_D3D12
// Why D3D12 cannot run here before Halide's D3D12 module is asked (empty: it may). That module
// writes through a null pointer when DXGI lists no adapter (Wine without a display), and stops
// the process when the HLSL compiler refuses a kernel, which Wine 8.0's does for every one of
// them (docs/targets.md, "D3D12 compute"): neither may happen inside a call.
std::string d3d12_blocker() {
    const HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    if (ntdll != nullptr && GetProcAddress(ntdll, "wine_get_version") != nullptr) {
        return "running under Wine, whose HLSL compiler refuses the kernels (docs/targets.md)";
    }
    const HMODULE dxgi = LoadLibraryA("dxgi.dll");
    if (dxgi == nullptr) return "dxgi.dll does not load";
    using CreateFactory = HRESULT(WINAPI *)(REFIID, void **);
    const auto create = reinterpret_cast<CreateFactory>(GetProcAddress(dxgi, "CreateDXGIFactory1"));
    IDXGIFactory1 *factory = nullptr;
    if (create == nullptr ||
        FAILED(create(__uuidof(IDXGIFactory1), reinterpret_cast<void **>(&factory)))) {
        return "DXGI makes no factory";
    }
    IDXGIAdapter1 *adapter = nullptr;
    const bool found = factory->EnumAdapters1(0, &adapter) != DXGI_ERROR_NOT_FOUND;
    if (adapter != nullptr) adapter->Release();
    factory->Release();
    return found ? std::string() : "DXGI lists no adapter";
}
#endif

struct Probe {
    bool usable = false;
    std::string detail;
};

const Probe &probe(Backend backend) {
    static std::once_flag once[kNumBackends];
    static Probe probes[kNumBackends];
    const int b = int(backend);
    std::call_once(once[b], [&] {
        Probe &p = probes[b];
        if (!backend_compiled(backend)) {
            p.detail = std::string("no ") + backend_name(backend) +
                       " kernels in this build (CMake option LPNORM_GPU_BACKENDS)";
            return;
        }
#if LPNORM_HAVE_D3D12
        if (backend == Backend::d3d12) {
            const std::string blocker = d3d12_blocker();
            if (!blocker.empty()) {
                p.detail = "no usable d3d12 device: " + blocker;
                return;
            }
        }
#endif
        install_halide_handlers();
        // A one-element device allocation loads the driver library and creates the context
        // the way a kernel call does (acquiring the context alone does not load the library).
        const Memory memory = gpu_api(backend)->memory;
        uint8_t byte = 0;
        halide_dimension_t dim(0, 1, 1);
        halide_buffer_t probe_buffer{};
        probe_buffer.host = &byte;
        probe_buffer.type = halide_type_t(halide_type_uint, 8);
        probe_buffer.dimensions = 1;
        probe_buffer.dim = &dim;
        int code = halide_device_malloc(nullptr, &probe_buffer, device_interface(memory));
        halide_device_free(nullptr, &probe_buffer);
        void *context = nullptr, *queue = nullptr;
        if (code == 0) code = acquire_context(backend, &context, &queue);
        p.usable = code == 0 && context != nullptr;
        if (p.usable) {
            p.detail = std::string(gpu_api(backend)->api) + " device ready";
            // Host tensors on a GPU backend get device memory per call: reuse it.
            halide_reuse_device_allocations(nullptr, true);
        } else {
            const std::string why = take_halide_message();
            p.detail = std::string("no usable ") + backend_name(backend) +
                       " device (Halide error " + std::to_string(code) +
                       (why.empty() ? ")" : "): " + why);
        }
    });
    return probes[b];
}

// Halide dims (innermost first) of `t`, which must fit 32-bit extents and strides.
Status halide_dims(const Tensor &t, const char *name, int64_t *extent, int64_t *stride) {
    for (int i = 0; i < t.rank; i++) {
        const int64_t e = t.shape[t.rank - 1 - i], s = t.strides[t.rank - 1 - i];
        if (e > INT32_MAX || s > INT32_MAX || s < -INT32_MAX) {
            return Status(ErrorCode::too_large,
                          std::string(name) + " has shape " + std::to_string(e) + " or stride " +
                              std::to_string(s) + " beyond what GPU copies index (2^31 - 1)");
        }
        extent[i] = e;
        stride[i] = s;
    }
    return Status::Ok();
}

}  // namespace

Status backend_usable(Backend backend) {
    if (!is_gpu(backend)) return Status::Ok();
    const Probe &p = probe(backend);
    if (p.usable) return Status::Ok();
    return Status(ErrorCode::unsupported, std::string("backend ") + backend_name(backend) +
                                              " cannot run here: " + p.detail);
}

Status choose_backend(const Tensor &input, const Tensor &output, Backend *backend) {
    const Tensor *tensors[] = {&input, &output};
    const char *names[] = {"input", "output"};
    return choose_backend(tensors, names, 2, backend);
}

Status choose_backend(const Tensor *const *tensors, const char *const *names, int count,
                      Backend *backend) {
    const Tensor &input = *tensors[0];
    for (int i = 1; i < count; i++) {
        if (tensors[i]->memory != input.memory) {
            return Status(ErrorCode::invalid_argument,
                          std::string(names[i]) + ".memory = " + memory_name(tensors[i]->memory) +
                              " differs from input.memory = " + memory_name(input.memory) +
                              ": both must live in the same memory");
        }
    }
    const Memory memory = input.memory;
    Backend b = backend_override();
    if (b == Backend::auto_select) {
        b = Backend::cpu;
        for (const GpuApi &a : kGpuApis) {
            if (a.memory == memory) b = a.backend;
        }
    }
    const bool readable = memory == Memory::host || (is_gpu(b) && gpu_api(b)->memory == memory);
    if (!readable) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.memory = ") + memory_name(memory) +
                          " cannot be read by backend " + backend_name(b) +
                          " (set_backend or LPNORM_BACKEND)");
    }
    if (is_handle_memory(memory)) {
        for (int k = 0; k < count; k++) {
            const Tensor *t = tensors[k];
            for (int i = 0; i < t->rank; i++) {
                if (t->strides[i] < 0) {
                    return Status(ErrorCode::invalid_argument,
                                  std::string(names[k]) + ".strides[" + std::to_string(i) +
                                      "] = " + std::to_string(t->strides[i]) + " is negative: " +
                                      memory_api(memory) + " buffers start at element (0, ..., 0)");
                }
            }
        }
    }
    if (is_gpu(b)) {
        Status s = backend_usable(b);
        if (!s.ok()) return s;
    }
    *backend = b;
    return Status::Ok();
}

Status GpuBinding::attach() {
    if (memory_ == Memory::host) {
        // The kernel copies a dirty host input to the device; an output is computed there.
        if (!is_output_) buffer_->flags |= halide_buffer_flag_host_dirty;
        return Status::Ok();
    }
    const uint64_t handle = reinterpret_cast<uintptr_t>(buffer_->host);
    buffer_->host = nullptr;
    int code = -1;
#if LPNORM_HAVE_OPENCL
    if (memory_ == Memory::opencl) code = halide_opencl_wrap_cl_mem(nullptr, buffer_, handle);
#endif
#if LPNORM_HAVE_CUDA
    if (memory_ == Memory::cuda) code = halide_cuda_wrap_device_ptr(nullptr, buffer_, handle);
#endif
#if LPNORM_HAVE_D3D12
    if (memory_ == Memory::d3d12) code = halide_d3d12compute_wrap_buffer(nullptr, buffer_, handle);
#endif
    if (code != 0) {
        return halide_failure(std::string("wrapping ") + name_ + ".data", code);
    }
    wrapped_ = true;
    return Status::Ok();
}

Status GpuBinding::finish() {
    int code = 0;
    if (is_output_) {
        code = memory_ == Memory::host ? halide_copy_to_host(nullptr, buffer_)
                                       : halide_device_sync(nullptr, buffer_);
    }
    release();
    return code == 0 ? Status::Ok() : halide_failure("copying the output back", code);
}

void GpuBinding::release() {
    if (wrapped_) {
#if LPNORM_HAVE_OPENCL
        if (memory_ == Memory::opencl) halide_opencl_detach_cl_mem(nullptr, buffer_);
#endif
#if LPNORM_HAVE_CUDA
        if (memory_ == Memory::cuda) halide_cuda_detach_device_ptr(nullptr, buffer_);
#endif
#if LPNORM_HAVE_D3D12
        if (memory_ == Memory::d3d12) halide_d3d12compute_detach_buffer(nullptr, buffer_);
#endif
        wrapped_ = false;
    } else if (memory_ == Memory::host && buffer_->device != 0) {
        halide_device_free(nullptr, buffer_);
    }
}

KernelBuffers::KernelBuffers(
    bool gpu, Memory memory,
    std::initializer_list<std::pair<halide_buffer_t *, const char *>> inputs,
    halide_buffer_t *output, const char *output_name)
    : gpu_(gpu), output_(output, memory, true, output_name) {
    if (!gpu) return;  // host buffers need no binding (and a small call no allocation)
    for (const auto &[buffer, name] : inputs) {
        inputs_.push_back(std::make_unique<GpuBinding>(buffer, memory, false, name));
    }
}

Status KernelBuffers::attach() {
    if (!gpu_) return Status::Ok();
    for (const auto &input : inputs_) {
        Status s = input->attach();
        if (!s.ok()) return s;
    }
    return output_.attach();
}

Status refuse_gpu_split(Backend backend, const Tensor &in, int axis) {
    return Status(ErrorCode::too_large,
                  "input.shape[" + std::to_string(axis) + "] = " + std::to_string(in.shape[axis]) +
                      " (stride " + std::to_string(in.strides[axis]) + ") is beyond what backend " +
                      backend_name(backend) +
                      " indexes in one kernel call (2^31 - 1): use the cpu backend");
}

namespace {

// A grid dim of `blocks` blocks, described by `what`: refused on CUDA beyond its 65535.
struct GridDim {
    int64_t blocks;
    std::string what;
};
Status check_cuda_grid(Backend backend, std::initializer_list<GridDim> dims) {
    constexpr int64_t kCudaGridLimit = 65535;
    if (backend != Backend::cuda) return Status::Ok();
    for (const GridDim &d : dims) {
        if (d.blocks > kCudaGridLimit) {
            return Status(ErrorCode::too_large,
                          d.what + " = " + std::to_string(d.blocks) +
                              " is beyond the 65535 blocks a CUDA grid dim takes in one kernel "
                              "call: use the cpu backend");
        }
    }
    return Status::Ok();
}

}  // namespace

Status check_gpu_pool_grid(Backend backend, const Tensor &input, const Tensor &output) {
    // The stages before the last run over input rows as well (the 3-D sum along D has one
    // thread per input row of each output plane): the larger extent of each dim.
    int64_t rows = 1;
    for (int i = 2; i + 1 < output.rank; i++) rows *= std::max(input.shape[i], output.shape[i]);
    return check_cuda_grid(
        backend, {{output.shape[0] * output.shape[1], "output.shape[0] * output.shape[1] (N x C)"},
                  {rows,
                   "the product of the spatial dims but the last (of the input's or the "
                   "output's extent, the larger)"}});
}

Status check_gpu_general_grid(Backend backend, const int64_t *out_extent) {
    return check_cuda_grid(
        backend, {{out_extent[1], "the general reduction's second output dim (innermost first)"},
                  {out_extent[2] * out_extent[3],
                   "the product of the general reduction's third and fourth output dims"}});
}

void copy_to_dense(const Tensor &in, void *dst_data) {
    const size_t size = dtype_size(in.dtype);
    const int64_t n = in.num_elements();
    auto *dst = static_cast<uint8_t *>(dst_data);
    if (in.is_contiguous()) {
        std::memcpy(dst, in.data, static_cast<size_t>(n) * size);
        return;
    }
    int64_t index[kMaxRank] = {};
    for (int64_t e = 0; e < n; e++) {
        int64_t offset = 0;
        for (int d = 0; d < in.rank; d++) {
            offset += index[d] * in.strides[d];
        }
        std::memcpy(dst + e * size, static_cast<const uint8_t *>(in.data) + offset * int64_t(size),
                    size);
        for (int d = in.rank - 1; d >= 0; d--) {
            if (++index[d] < in.shape[d]) break;
            index[d] = 0;
        }
    }
}

Status host_input_for(Backend backend, const Tensor &input, std::vector<unsigned char> *storage,
                      Tensor *out) {
    *out = input;
    if (!is_gpu(backend) || input.memory != Memory::host) return Status::Ok();
    bool reversed = false;
    for (int i = 0; i < input.rank; i++) {
        reversed = reversed || (input.strides[i] < 0 && input.shape[i] > 1);
    }
    if (!reversed) return Status::Ok();
    const int64_t n = input.num_elements();
    try {
        storage->resize(size_t(n) * dtype_size(input.dtype));
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::too_large, "input has a negative stride and " + std::to_string(n) +
                                                " elements: its dense copy for backend " +
                                                backend_name(backend) + " does not fit in memory");
    }
    copy_to_dense(input, storage->data());
    *out = Tensor::contiguous(storage->data(), input.dtype, input.shape, input.rank);
    return Status::Ok();
}

Status host_inputs_for(Backend backend, const Tensor *const *inputs, int count,
                       std::vector<unsigned char> *storage, Tensor *out) {
    for (int i = 0; i < count; i++) {
        Status s = host_input_for(backend, *inputs[i], &storage[i], &out[i]);
        if (!s.ok()) return s;
    }
    return Status::Ok();
}

Status device_copy(const Tensor &input, const Tensor &output) {
    int64_t in_extent[kMaxRank], in_stride[kMaxRank], out_extent[kMaxRank], out_stride[kMaxRank];
    Status s = halide_dims(input, "input", in_extent, in_stride);
    if (s.ok()) s = halide_dims(output, "output", out_extent, out_stride);
    if (!s.ok()) return s;
    BufferView in(input.data, input.dtype, input.rank, in_extent, in_stride);
    BufferView out(output.data, output.dtype, output.rank, out_extent, out_stride);
    KernelBuffers buffers(true, output.memory, in.get(), out.get());
    s = buffers.attach();
    if (!s.ok()) return s;
    const int code =
        halide_buffer_copy(nullptr, in.get(), device_interface(output.memory), out.get());
    if (code != 0) return halide_failure("copying input to output on the device", code);
    return buffers.finish();
}

Status device_zero(const Tensor &output) {
    int64_t extent[kMaxRank], stride[kMaxRank];
    Status s = halide_dims(output, "output", extent, stride);
    if (!s.ok()) return s;
    std::vector<char> zeros(size_t(output.num_elements()) * dtype_size(output.dtype), 0);
    BufferView host(zeros.data(), output.dtype, output.rank, extent, stride);
    BufferView out(output.data, output.dtype, output.rank, extent, stride);
    GpuBinding out_binding(out.get(), output.memory, true, "output");
    s = out_binding.attach();
    if (!s.ok()) return s;
    const int code =
        halide_buffer_copy(nullptr, host.get(), device_interface(output.memory), out.get());
    if (code != 0) return halide_failure("zeroing output on the device", code);
    return out_binding.finish();
}

}  // namespace rt

const char *backend_name(Backend backend) {
    switch (backend) {
    case Backend::auto_select: return "auto_select";
    case Backend::cpu: return "cpu";
    case Backend::opencl: return "opencl";
    case Backend::cuda: return "cuda";
    case Backend::d3d12: return "d3d12";
    }
    return "unknown";
}

bool parse_backend(const char *name, Backend *out) {
    if (name == nullptr) return false;
    for (int i = 0; i < rt::kNumBackends; i++) {
        const Backend b = Backend(i);
        if (std::strcmp(name, backend_name(b)) == 0) {
            *out = b;
            return true;
        }
    }
    return false;
}

Backend backend_override() {
    int b = rt::g_backend_override.load();
    if (b < 0) {
        int expected = -1;
        rt::g_backend_override.compare_exchange_strong(expected, rt::backend_from_environment());
        b = rt::g_backend_override.load();
    }
    return Backend(b);
}

Status set_backend(Backend backend) {
    const int b = int(backend);
    if (b < 0 || b >= rt::kNumBackends) {
        return Status(ErrorCode::invalid_argument,
                      "backend = " + std::to_string(b) + " is not a Backend");
    }
    if (rt::is_gpu(backend)) {
        Status s = rt::backend_usable(backend);
        if (!s.ok()) return s;
    }
    rt::g_backend_override.store(b);
    return Status::Ok();
}

std::vector<BackendStatus> backends() {
    std::vector<BackendStatus> out;
    out.push_back(BackendStatus{Backend::cpu, true, true, "host CPU"});
    for (const rt::GpuApi &a : rt::kGpuApis) {
        const rt::Probe &p = rt::probe(a.backend);
        out.push_back(
            BackendStatus{a.backend, rt::backend_compiled(a.backend), p.usable, p.detail});
    }
    return out;
}

Status gpu_context(Backend backend, void **context, void **queue) {
    if (context == nullptr || queue == nullptr) {
        return Status(ErrorCode::null_pointer,
                      context == nullptr ? "context is null" : "queue is null");
    }
    if (!rt::is_gpu(backend)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("backend = ") + backend_name(backend) +
                          " has no GPU context: use opencl, cuda or d3d12");
    }
    Status s = rt::backend_usable(backend);
    if (!s.ok()) return s;
    const int code = rt::acquire_context(backend, context, queue);
    if (code != 0) return rt::halide_failure("acquiring the GPU context", code);
    return Status::Ok();
}

}  // namespace lpnorm
