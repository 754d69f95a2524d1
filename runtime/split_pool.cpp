#include "split_pool.h"

#include <algorithm>
#include <string>

#include "gpu.h"
#include "halide_glue.h"
#include "kernel_abi.h"
#include "split_limits.h"

namespace lpnorm::rt {
namespace {

bool fits(int64_t extent, int64_t stride, int64_t limit) {
    return extent <= 1 || (extent <= limit && stride <= limit && stride >= -limit);
}

// The outermost axis the kernel cannot index in one call, or a spatial axis of several outputs
// longer than a piece (the kernel's row temporaries grow with it), or -1.
int blocking_axis(const Tensor &in, const Tensor &out, const SplitLimits &limits) {
    for (int i = 0; i < in.rank; i++) {
        if (!fits(in.shape[i], in.strides[i], limits.index) ||
            !fits(out.shape[i], out.strides[i], limits.index) ||
            (i >= 2 && out.shape[i] > 1 &&
             (in.shape[i] > limits.chunk || out.shape[i] > limits.chunk))) {
            return i;
        }
    }
    return -1;
}

// Whether a piece cut from a larger call still fits its kernel: a channel-block kernel needs
// its minimum extents (kernel_abi.h), a flat kernel an output of the input's size along each
// spatial dim with the pad before within the window's span (a run of outputs cut along a
// spatial dim has neither).
bool piece_fits(const Tensor &input, const Tensor &output, const PoolCall &call) {
    const int last = input.rank - 1;
    switch (call.kernel->key.layout) {
    case PoolLayout::channels: {
        const int64_t min = abi::kChannelBlockMinExtent;
        return input.shape[1] >= min && input.shape[last] >= min && output.shape[last] >= min;
    }
    case PoolLayout::flat:
        for (size_t d = 0; d < call.axes.size(); d++) {
            const PoolAxis &a = call.axes[d];
            if (a.output != a.input || a.pad_begin > (a.kernel - 1) * a.dilation) return false;
        }
        return true;
    case PoolLayout::rows:
    case PoolLayout::direct: break;
    }
    return true;
}

// The kernel for one piece: its call's, or the row kernel where the piece no longer fits it.
const PoolKernel *kernel_for_piece(const Tensor &input, const Tensor &output,
                                   const PoolCall &call) {
    if (piece_fits(input, output, call)) return call.kernel;
    return find_kernel<PoolKernel>({call.kernel->key.spatial}, call.kernel->dtype,
                                   {Backend::cpu, call.kernel->isa});
}

Status call_kernel(const Tensor &input, const Tensor &output, const PoolCall &call) {
    const PoolKernel *kernel = kernel_for_piece(input, output, call);
    // Halide order is innermost first: (last spatial dim, ..., first, C, N).
    const int dims = input.rank;
    int64_t in_extent[kMaxRank], in_stride[kMaxRank], out_extent[kMaxRank], out_stride[kMaxRank];
    for (int i = 0; i < dims; i++) {
        in_extent[i] = input.shape[dims - 1 - i];
        in_stride[i] = input.strides[dims - 1 - i];
        out_extent[i] = output.shape[dims - 1 - i];
        out_stride[i] = output.strides[dims - 1 - i];
    }
    const int spatial = int(call.axes.size());
    int32_t window[5][abi::kMaxPoolSpatial] = {};  // kernel, stride, dilation, pad begin, end
    for (int d = 0; d < abi::kMaxPoolSpatial; d++) {
        const PoolAxis a = d < spatial ? call.axes[size_t(spatial - 1 - d)] : PoolAxis{};
        window[0][d] = int32_t(a.kernel);
        window[1][d] = int32_t(a.stride);
        window[2][d] = int32_t(a.dilation);
        window[3][d] = int32_t(a.pad_begin);
        window[4][d] = int32_t(a.pad_end);
    }
    const KernelScope kernel_scope;
    note_kernel_call(kernel->symbol);
    BufferView in_buf(input.data, input.dtype, dims, in_extent, in_stride);
    BufferView out_buf(output.data, output.dtype, dims, out_extent, out_stride);
    KernelBuffers buffers(is_gpu(call.backend), call.memory, in_buf.get(), out_buf.get());
    const Status attached = buffers.attach();
    if (!attached.ok()) return attached;
    const int code =
        kernel->fn(in_buf.get(), call.p_kind, call.p, call.signed_pow, call.rescale, window[0][0],
                   window[0][1], window[0][2], window[1][0], window[1][1], window[1][2],
                   window[2][0], window[2][1], window[2][2], window[3][0], window[3][1],
                   window[3][2], window[4][0], window[4][1], window[4][2], out_buf.get());
    if (code != 0) return kernel_failure(kernel->symbol, code);
    return buffers.finish();
}

Status run(const Tensor &in, const Tensor &out, const PoolCall &call, const SplitLimits &limits);

// Outputs [o0, o0 + count) of spatial axis `axis` (tensor axis) as their own pooling: the input
// rows their windows touch, [lo, hi), with the pads re-based so each window starts where it
// did, and pad_end covering the same taps for the rescale count.
Status run_output_run(const Tensor &in, const Tensor &out, int axis, int64_t o0, int64_t count,
                      const PoolCall &call, const SplitLimits &limits) {
    const PoolAxis &a = call.axes[size_t(axis - 2)];
    const int64_t k_eff = (a.kernel - 1) * a.dilation + 1;
    const int64_t first_start = o0 * a.stride - a.pad_begin;                     // in input coords
    const int64_t last_end = (o0 + count - 1) * a.stride - a.pad_begin + k_eff;  // exclusive
    // At least one row, so the sub-problem is never empty; rows outside every window add 0.
    const int64_t lo = std::min(std::max<int64_t>(0, first_start), a.input - 1);
    const int64_t hi = std::max(std::min(a.input, last_end), lo + 1);
    PoolCall sub = call;
    PoolAxis &s = sub.axes[size_t(axis - 2)];
    s.input = hi - lo;
    s.output = count;
    s.pad_begin = lo - first_start;
    // The taps of [0, input + pad_end) in the sub-problem's coordinates, capped at the end of
    // its last window (no window reads further).
    s.pad_end = std::max<int64_t>(0, std::min(a.input + a.pad_end - hi, last_end - lo - s.input));
    return run(slice_axis(in, axis, lo, hi - lo), slice_axis(out, axis, o0, count), sub, limits);
}

Status run(const Tensor &in, const Tensor &out, const PoolCall &call, const SplitLimits &limits) {
    const int axis = blocking_axis(in, out, limits);
    if (axis < 0) {
        return call_kernel(in, out, call);
    }
    if (is_gpu(call.backend)) return refuse_gpu_split(call.backend, in, axis);
    if (axis < 2) {  // N or C: independent slices
        const int64_t extent = in.shape[axis];
        const int64_t step = extent > limits.index ? limits.chunk : 1;
        for (int64_t start = 0; start < extent; start += step) {
            const int64_t n = std::min(step, extent - start);
            Status s =
                run(slice_axis(in, axis, start, n), slice_axis(out, axis, start, n), call, limits);
            if (!s.ok()) return s;
        }
        return Status::Ok();
    }
    // A spatial dim: runs of outputs whose windows span at most a piece of input rows, or
    // single outputs when a stride is beyond what the kernel indexes.
    const PoolAxis &a = call.axes[size_t(axis - 2)];
    const int64_t k_eff = (a.kernel - 1) * a.dilation + 1;
    const auto indexable = [&](int64_t stride) {
        return stride <= limits.index && stride >= -limits.index;
    };
    if (!indexable(in.strides[axis]) && k_eff > 1) {
        // One window reads rows further apart than a call can index.
        return Status(ErrorCode::too_large,
                      "input.strides[" + std::to_string(axis) +
                          "] = " + std::to_string(in.strides[axis]) + " with input.shape[" +
                          std::to_string(axis) + "] = " + std::to_string(in.shape[axis]) +
                          ": a window of " + std::to_string(k_eff) +
                          " rows along it is beyond what one kernel call indexes (2^31 - 1)");
    }
    const int64_t per_run = indexable(in.strides[axis]) && indexable(out.strides[axis])
                                ? std::max<int64_t>(1, (limits.chunk - k_eff) / a.stride + 1)
                                : 1;
    for (int64_t o0 = 0; o0 < a.output; o0 += per_run) {
        Status s =
            run_output_run(in, out, axis, o0, std::min(per_run, a.output - o0), call, limits);
        if (!s.ok()) return s;
    }
    return Status::Ok();
}

}  // namespace

Status run_pool(const Tensor &input, const Tensor &output, const PoolCall &call) {
    reset_kernel_calls();
    return run(input, output, call, current_split_limits(call.backend));
}

}  // namespace lpnorm::rt
