// lpnorm::pool: validate -> resolve the window geometry -> select variant -> run
// (split_pool.h).
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "accumulators.h"
#include "gpu.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "pool_geometry.h"
#include "range_repair.h"
#include "registry.h"
#include "settings.h"
#include "split_pool.h"
#include "thread_pool.h"
#include "validate.h"

namespace lpnorm {
namespace {

bool is_pool_dtype(DType d) {
    return d == DType::float32 || d == DType::float64 || d == DType::float16 ||
           d == DType::bfloat16;
}

// Signed mode with an odd integer p adds terms of both signs, which can cancel.
bool sums_can_cancel(const PoolParams &params) {
    return params.mode == PoolMode::signed_pow && params.p == std::floor(params.p) &&
           std::fmod(params.p, 2.0) == 1.0;
}

// Pools a host input of a narrower float dtype through the float64 kernel `call` names, over a
// float64 copy, and rounds each result once to the output dtype (docs/semantics.md: signed
// sums that cancel are as exact as float64 makes them).
Status pool_in_float64(const Tensor &input, const Tensor &output, const rt::PoolCall &call,
                       const PoolParams &params) {
    const int64_t in_count = input.num_elements(), out_count = output.num_elements();
    const size_t in_size = dtype_size(input.dtype), out_size = dtype_size(output.dtype);
    std::vector<unsigned char> dense;
    std::vector<double> wide_in, wide_out;
    try {
        dense.resize(size_t(in_count) * in_size);
        wide_in.resize(size_t(in_count));
        wide_out.resize(size_t(out_count));
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::too_large,
                      "input has " + std::to_string(in_count) +
                          " elements: its float64 copy for the signed mode does not fit in memory");
    }
    rt::copy_to_dense(input, dense.data());
    for (int64_t i = 0; i < in_count; i++) {
        wide_in[size_t(i)] = rt::load_as_double(input.dtype, dense.data() + size_t(i) * in_size);
    }
    const Tensor wide_input =
        Tensor::contiguous(wide_in.data(), DType::float64, input.shape, input.rank);
    const Tensor wide_output =
        Tensor::contiguous(wide_out.data(), DType::float64, output.shape, output.rank);
    const Status s = rt::run_pool(wide_input, wide_output, call);
    if (!s.ok()) return s;
    rt::repair_pool_range(wide_input, wide_output, params, call.axes, DType::float64);
    auto *out = static_cast<unsigned char *>(output.data);
    for (int64_t j = 0; j < out_count; j++) {
        rt::store_norm(output.dtype, wide_out[size_t(j)], out + size_t(j) * out_size);
    }
    return Status::Ok();
}

// The 2-D kernels with a block of channels in the vector lanes beat the row kernels on small
// planes, whose rows are one to four vectors long with a masked tail (Zen 3, AVX2, float32
// p = 2, 2 threads, tools/autotune's harness: 28x28x256x8 3x3 s1 pad 1 1.18 -> 0.78 ms,
// 14x14x512x1 0.125 -> 0.061 ms, 28x28 2x2 s2 0.56 -> 0.42 ms), and lose on larger ones, whose
// stages no longer fit in L1/L2 (32x32x128x8 0.455 -> 0.485 ms, 56x56x64x8 0.59 -> 0.67 ms).
constexpr int64_t kChannelBlockMaxPlane = 32 * 32 - 1;

// Whether pooling `input` (N, C, H, W) along `axes` (H, W) takes the channel-block kernel:
// dense rows, kernel_abi.h's minimum extents, and small planes. The kernel holds whole planes
// of a block of channels: the input's, the output's, and the sums along H, whose rows span
// every tap of an output row ((out - 1) * stride + (kernel - 1) * dilation + 1), so each is
// bounded: a huge stride or dilation on a small plane would make that stage huge.
bool prefers_channel_blocks(const Tensor &input, const std::vector<PoolAxis> &axes) {
    if (input.rank != 4 || input.strides[3] != 1 || axes.size() != 2) return false;
    const PoolAxis &rows = axes[0], &cols = axes[1];
    const int64_t min = abi::kChannelBlockMinExtent;
    if (input.shape[1] < min || cols.input < min || cols.output < min) return false;
    const int64_t max = kChannelBlockMaxPlane;
    for (int64_t v : {rows.input, cols.input, rows.output, cols.output, cols.kernel, cols.dilation,
                      cols.stride}) {
        if (v > max) return false;  // (and the products below cannot overflow)
    }
    const int64_t sum_row = (cols.output - 1) * cols.stride + (cols.kernel - 1) * cols.dilation + 1;
    return rows.input * cols.input <= max && rows.output * cols.output <= max &&
           sum_row * rows.output <= 4 * max;
}

// Whether the direct_window kernel takes this call (kernel_abi.h, pool_direct_window()).
bool takes_direct_window(const Tensor &input, const std::vector<PoolAxis> &axes,
                         const rt::PoolCall &call) {
    const int spatial = static_cast<int>(axes.size());
    int64_t kernel[abi::kMaxPoolSpatial] = {};
    for (int d = 0; d < spatial; d++) {
        kernel[d] = axes[size_t(d)].kernel;
    }
    const PoolAxis &last = axes.back();
    const abi::PoolRow row{input.strides[input.rank - 1],
                           last.input,
                           last.output,
                           last.stride,
                           last.dilation,
                           last.pad_begin};
    return abi::pool_direct_window(call.p_kind, call.signed_pow, call.rescale,
                                   input.shape[0] * input.shape[1], spatial, kernel, row);
}

// Whether the flat_plane kernel takes this call (kernel_abi.h, pool_flat_window()).
bool takes_flat_window(const Tensor &input, const std::vector<PoolAxis> &axes,
                       const rt::PoolCall &call) {
    const int spatial = static_cast<int>(axes.size());
    abi::PoolFlatAxis flat[abi::kMaxPoolSpatial] = {};
    for (int d = 0; d < spatial; d++) {
        const PoolAxis &a = axes[size_t(spatial - 1 - d)];  // innermost first
        flat[d] = {a.input, a.output, a.kernel, a.stride, a.dilation};
    }
    // p = 3 on rows shorter than two channel blocks, where the channel-block kernels apply,
    // stays with them: they take the cube root of two positions of a vector of channels at a
    // time, where the flat kernels' rows are one short vector. [1,512,14,14] 3x3 s1 pad 1,
    // flat against channel blocks: Xeon AVX-512 0.083-0.095 against 0.074-0.076 ms, Zen 3
    // AVX2 0.89x; but Xeon AVX2 1.13x faster. On longer rows flat is faster where measured
    // but on Zen 3: [8,256,28,28] Xeon AVX-512 0.92-1.07 against 1.47-1.76 ms, AVX2 1.15x,
    // Zen 3 AVX2 0.94x (2 threads, medians of 101 calls of `lpnorm::pool`).
    if (call.p_kind == abi::kPool3 && prefers_channel_blocks(input, axes) &&
        axes.back().output < 2 * abi::kChannelBlockMinExtent) {
        return false;
    }
    return abi::pool_flat_window(call.p_kind, call.signed_pow, call.rescale,
                                 input.shape[0] * input.shape[1], spatial,
                                 input.strides[input.rank - 1], flat);
}

rt::Shape output_shape_of(const std::vector<int64_t> &input_shape,
                          const std::vector<PoolAxis> &axes) {
    rt::Shape out;
    out.dim[out.rank++] = input_shape[0];
    out.dim[out.rank++] = input_shape[1];
    for (const PoolAxis &a : axes) {
        out.dim[out.rank++] = a.output;
    }
    return out;
}

}  // namespace

Status pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                     std::vector<PoolAxis> *axes) {
    return rt::resolve_pool_geometry(input_shape, params, axes);
}

Status pool_output_shape(const std::vector<int64_t> &input_shape, const PoolParams &params,
                         std::vector<int64_t> *output_shape) {
    std::vector<PoolAxis> axes;
    Status s = rt::resolve_pool_geometry(input_shape, params, &axes);
    if (!s.ok()) return s;
    *output_shape = output_shape_of(input_shape, axes).to_vector();
    return Status::Ok();
}

Status pool(const Tensor &input, const Tensor &output, const PoolParams &params) {
    rt::begin_pool_range_check();
    Status s = rt::validate_tensor(input, "input");
    if (!s.ok()) return s;
    s = rt::validate_tensor(output, "output");
    if (!s.ok()) return s;
    if (!is_pool_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " is not pooled: use float32, float64, float16 or bfloat16");
    }
    const std::vector<int64_t> shape = input.shape_vector();
    std::vector<PoolAxis> axes;
    s = rt::resolve_pool_geometry(shape, params, &axes);
    if (!s.ok()) return s;
    s = rt::validate_output(input, output, output_shape_of(shape, axes));
    if (!s.ok()) return s;

    Backend backend = Backend::cpu;
    s = rt::choose_backend(input, output, &backend);
    if (!s.ok()) return s;

    if (output.num_elements() == 0) {
        return Status::Ok();
    }
    if (input.num_elements() == 0) {
        // Only padding under every window: the sum of no terms is 0 (all-zero bits).
        if (input.memory != Memory::host) return rt::device_zero(output);
        std::memset(output.data, 0, size_t(output.num_elements()) * dtype_size(output.dtype));
        return Status::Ok();
    }

    const int spatial = static_cast<int>(axes.size());
    const rt::Place place{backend, active_isa()};
    const bool gpu = place.gpu();
    const rt::PoolKernel *kernel = rt::find_kernel<rt::PoolKernel>({spatial}, input.dtype, place);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      "no " + std::to_string(spatial) + "-D pooling kernel for dtype " +
                          dtype_name(input.dtype) + rt::place_phrase(place) + " in this build");
    }

    if (gpu) {
        s = rt::check_gpu_pool_grid(backend, input, output);
        if (!s.ok()) return s;
    }
    rt::PoolCall call;
    call.kernel = kernel;
    call.backend = backend;
    call.memory = input.memory;
    call.p_kind = abi::pool_kind(params.p);
    call.p = params.p;
    call.signed_pow = params.mode == PoolMode::signed_pow;
    call.rescale = params.overhang == Overhang::rescale;
    call.axes = axes;
    std::vector<unsigned char> dense_storage;
    Tensor in;
    s = rt::host_input_for(backend, input, &dense_storage, &in);
    if (!s.ok()) return s;
    // The direct kernels before the channel blocks: on the small planes both take (2x2 s2),
    // direct was 2-2.7x faster (kernel_abi.h, kDirectMinRow).
    const rt::PoolLayout layout = gpu                                   ? rt::PoolLayout::rows
                                  : takes_flat_window(in, axes, call)   ? rt::PoolLayout::flat
                                  : takes_direct_window(in, axes, call) ? rt::PoolLayout::direct
                                  : prefers_channel_blocks(in, axes)    ? rt::PoolLayout::channels
                                                                        : rt::PoolLayout::rows;
    if (layout != rt::PoolLayout::rows) {
        if (const rt::PoolKernel *variant =
                rt::find_kernel<rt::PoolKernel>({spatial, layout}, input.dtype, place)) {
            call.kernel = variant;
        }
    }
    if (!gpu && input.dtype != DType::float64 && sums_can_cancel(params)) {
        const rt::PoolKernel *wide =
            rt::find_kernel<rt::PoolKernel>({spatial, layout}, DType::float64, place);
        call.kernel = wide != nullptr
                          ? wide
                          : rt::find_kernel<rt::PoolKernel>({spatial}, DType::float64, place);
        if (call.kernel != nullptr) return pool_in_float64(in, output, call, params);
        call.kernel = kernel;  // a build without float64 kernels: the narrow sums
    }
    // float32 sums of products: the FP flags tell whether any power or sum left float32's range
    // (ordinary data raises none); only then is the output scanned.
    const bool host = output.memory == Memory::host;
    const bool watched = host && !gpu && rt::pool_range_watched(input.dtype, call.p_kind);
    bool scan = host;
    {
        rt::RangeWatch watch(watched);
        s = rt::run_pool(in, output, call);
        if (watched) scan = watch.raised();
    }
    if (s.ok() && scan) {
        rt::repair_pool_range(in, output, params, axes, rt::pool_accumulator(input.dtype));
    }
    return s;
}

}  // namespace lpnorm
