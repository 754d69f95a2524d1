// lpnorm::pool_backward: validate -> resolve the window geometry -> one kernel call per phase of
// the strides the kernel does not take itself (kernel_abi.h): the elements i = io * stride +
// phase of a phased dim read the windows o = io + first - j * step, j < taps, so each call sees
// a unit-stride problem along that dim.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "halide_glue.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "pool_geometry.h"
#include "registry.h"
#include "split_limits.h"
#include "validate.h"

namespace lpnorm {
namespace {

// The windows the elements of one phase of a spatial dim read (kernel_abi.h): the taps k with
// phase + pad_begin - k * dilation a multiple of the stride form a progression of step
// stride / g, g = gcd(stride, dilation); window o = io + first - j * dilation / g.
struct Phase {
    int64_t phase = 0, count = 0;  // elements of the dim in this phase
    int64_t taps = 0, first_window = 0, window_step = 1, window_stride = 1;
};

// The whole dim in one call: element i reads windows (i + pad_begin - j * dilation) / stride.
Phase whole_dim(const PoolAxis &a) {
    Phase ph;
    ph.count = a.input;
    ph.taps = a.kernel;
    ph.first_window = a.pad_begin;
    ph.window_step = a.dilation;
    ph.window_stride = a.stride;
    return ph;
}

Phase phase_of(const PoolAxis &a, int64_t phase) {
    Phase ph;
    ph.phase = phase;
    ph.count = a.input > phase ? (a.input - phase + a.stride - 1) / a.stride : 0;
    const int64_t g = std::gcd(a.stride, a.dilation);
    ph.window_step = a.dilation / g;
    const int64_t base = phase + a.pad_begin;
    for (int64_t k = 0; k < a.kernel && k < a.stride / g; k++) {
        const int64_t q = base - k * a.dilation;
        if (((q % a.stride) + a.stride) % a.stride != 0) continue;
        ph.first_window = q >= 0 ? q / a.stride : -((-q) / a.stride);
        ph.taps = (a.kernel - 1 - k) / (a.stride / g) + 1;
        break;
    }
    return ph;
}

// floor(a / b) for b > 0.
int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

// Keeps the taps j whose windows (i + first - j step) / window_stride can lie in [0, windows)
// for an element i in [0, count): j step in [first - (windows - 1) window_stride,
// first + count - 1]. The others reach no window and add nothing, but the kernels' window
// sums span every tap's reach, (taps - 1) step + count: a dilation far beyond the input made
// that huge (65536 along both dims of a 9 x 11 input asked for 64 GiB of scratch, a fuzz
// input). Kept, the reach is below count + windows window_stride.
void keep_reachable_taps(Phase &ph, int64_t windows) {
    const int64_t lowest = ph.first_window - (windows - 1) * ph.window_stride;
    const int64_t j_min = std::max<int64_t>(0, -floor_div(-lowest, ph.window_step));
    const int64_t j_max =
        std::min(ph.taps - 1, floor_div(ph.first_window + ph.count - 1, ph.window_step));
    ph.taps = std::max<int64_t>(0, j_max - j_min + 1);
    if (ph.taps > 0) ph.first_window -= j_min * ph.window_step;
}

// Every extent and stride of a call must fit the kernels' 32-bit buffer fields.
bool fits_32_bits(int64_t v) { return std::llabs(v) <= std::numeric_limits<int32_t>::max(); }

Status too_large(const Tensor &t, const char *name) {
    return Status(ErrorCode::too_large,
                  std::string(name) + ".shape = " + rt::format_shape(t.shape, t.rank) +
                      ": a pooling gradient with a dim or stride beyond 2^31 elements does not "
                      "fit the kernels' 32-bit indexing");
}

struct Call {
    const rt::PoolBackwardKernel *kernel = nullptr;
    int p_kind = 0;
    double p = 2;
    int signed_pow = 0, rescale = 0;
    int32_t kernel_size[abi::kMaxPoolSpatial] = {1, 1, 1}, stride[abi::kMaxPoolSpatial] = {1, 1, 1},
            dilation[abi::kMaxPoolSpatial] = {1, 1, 1}, padded[abi::kMaxPoolSpatial] = {1, 1, 1};
};

// Halide's order (innermost first) of a tensor's extents and strides.
void halide_order(const Tensor &t, int64_t *extent, int64_t *stride) {
    for (int d = 0; d < t.rank; d++) {
        extent[d] = t.shape[t.rank - 1 - d];
        stride[d] = t.strides[t.rank - 1 - d];
    }
}

}  // namespace

Status pool_backward(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                     const Tensor &input_grad, const PoolParams &params) {
    const Tensor *tensors[] = {&input, &output, &output_grad, &input_grad};
    const char *names[] = {"input", "output", "output_grad", "input_grad"};
    for (int i = 0; i < 4; i++) {
        Status s = rt::validate_tensor(*tensors[i], names[i]);
        if (!s.ok()) return s;
        if (tensors[i]->memory != Memory::host) {
            return Status(ErrorCode::unsupported,
                          std::string(names[i]) + ".memory = " + memory_name(tensors[i]->memory) +
                              ": pool_backward runs on host (CPU) tensors only");
        }
    }
    if (!rt::is_gradient_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " has no gradient: use float32, float64, float16 or bfloat16");
    }
    const std::vector<int64_t> shape = input.shape_vector();
    std::vector<PoolAxis> axes;
    Status s = rt::resolve_pool_geometry(shape, params, &axes);
    if (!s.ok()) return s;
    rt::Shape forward;
    forward.dim[forward.rank++] = shape[0];
    forward.dim[forward.rank++] = shape[1];
    for (const PoolAxis &a : axes) forward.dim[forward.rank++] = a.output;
    s = rt::check_gradient_tensors(input, output, output_grad, input_grad, forward);
    if (!s.ok()) return s;

    const int64_t count = input_grad.num_elements();
    if (count == 0) return Status::Ok();
    if (output.num_elements() == 0) {  // no window: dx = 0
        std::memset(input_grad.data, 0, size_t(count) * dtype_size(input_grad.dtype));
        return Status::Ok();
    }
    const int spatial = int(axes.size());
    for (int t = 0; t < 4; t++) {
        for (int d = 0; d < tensors[t]->rank; d++) {
            const int64_t step = d >= 2 ? axes[size_t(d - 2)].stride : 1;
            if (!fits_32_bits(tensors[t]->shape[d]) ||
                !fits_32_bits(tensors[t]->strides[d] * step)) {
                return too_large(*tensors[t], names[t]);
            }
        }
    }
    const rt::Place place{Backend::cpu, active_isa()};  // host tensors only
    Call call;
    call.p_kind = abi::pool_kind(params.p);
    const bool separable =
        abi::pool_backward_separable(call.p_kind, int(dtype_size(input.dtype)) * 8);
    const rt::PoolBackwardKernel *kernel =
        rt::find_kernel<rt::PoolBackwardKernel>({spatial, separable}, input.dtype, place);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      "no " + std::to_string(spatial) + "-D pooling gradient kernel for dtype " +
                          dtype_name(input.dtype) + rt::place_phrase(place) + " in this build (" +
                          rt::pool_backward_pattern_name({spatial, separable}) +
                          ", the kernel of p = " + rt::format_number(params.p) + ")");
    }
    call.kernel = kernel;
    call.p = params.p;
    call.signed_pow = params.mode == PoolMode::signed_pow;
    call.rescale = params.overhang == Overhang::rescale;
    // Halide's order: the innermost spatial dim first.
    std::vector<PoolAxis> inner_first(axes.rbegin(), axes.rend());
    for (int d = 0; d < spatial; d++) {
        const PoolAxis &a = inner_first[size_t(d)];
        call.kernel_size[d] = int32_t(a.kernel);
        call.stride[d] = int32_t(a.stride);
        call.dilation[d] = int32_t(a.dilation);
        call.padded[d] = int32_t(a.input + a.pad_begin + a.pad_end);
    }
    const rt::KernelScope kernel_scope;
    rt::note_kernel_call(kernel->symbol);
    const int dims = input.rank;
    int64_t y_extent[kMaxRank], y_stride[kMaxRank], dy_extent[kMaxRank], dy_stride[kMaxRank];
    halide_order(output, y_extent, y_stride);
    halide_order(output_grad, dy_extent, dy_stride);
    rt::BufferView y(output.data, output.dtype, dims, y_extent, y_stride);
    rt::BufferView dy(output_grad.data, output_grad.dtype, dims, dy_extent, dy_stride);

    // The dims the kernel takes whole (kernel_abi.h), and every combination of the other dims'
    // phases, one call each.
    bool phased[abi::kMaxPoolSpatial] = {false, false, false};
    int64_t phases = 1;
    for (int d = 0; d < spatial; d++) {
        const PoolAxis &a = inner_first[size_t(d)];
        phased[d] = !separable || (d == 0 && a.stride > abi::kMaxSeparableStride0);
        if (phased[d]) phases *= std::min(a.stride, a.input);
    }
    const size_t size = dtype_size(input.dtype);
    for (int64_t combination = 0; combination < phases; combination++) {
        int64_t rest = combination;
        int64_t x_extent[kMaxRank], x_stride[kMaxRank], dx_extent[kMaxRank], dx_stride[kMaxRank];
        halide_order(input, x_extent, x_stride);
        halide_order(input_grad, dx_extent, dx_stride);
        int32_t taps[abi::kMaxPoolSpatial] = {0, 0, 0}, first[abi::kMaxPoolSpatial] = {0, 0, 0},
                step[abi::kMaxPoolSpatial] = {1, 1, 1},
                window_stride[abi::kMaxPoolSpatial] = {1, 1, 1};
        int64_t x_offset = 0, dx_offset = 0;
        bool empty = false;
        for (int d = 0; d < spatial; d++) {
            const PoolAxis &a = inner_first[size_t(d)];
            Phase ph = whole_dim(a);
            if (phased[d]) {  // every stride-th element, from the phase's first
                const int64_t n_phases = std::min(a.stride, a.input);
                ph = phase_of(a, rest % n_phases);
                rest /= n_phases;
                x_offset += ph.phase * x_stride[d];
                dx_offset += ph.phase * dx_stride[d];
                x_stride[d] *= a.stride;
                dx_stride[d] *= a.stride;
            }
            keep_reachable_taps(ph, a.output);
            x_extent[d] = dx_extent[d] = ph.count;
            taps[d] = int32_t(ph.taps);
            first[d] = int32_t(ph.first_window);
            step[d] = int32_t(ph.window_step);
            window_stride[d] = int32_t(ph.window_stride);
            empty = empty || ph.count == 0;
        }
        if (empty) continue;
        rt::BufferView x(static_cast<unsigned char *>(input.data) + x_offset * int64_t(size),
                         input.dtype, dims, x_extent, x_stride);
        rt::BufferView dx(static_cast<unsigned char *>(input_grad.data) + dx_offset * int64_t(size),
                          input.dtype, dims, dx_extent, dx_stride);
        const int code = kernel->fn(
            x.get(), y.get(), dy.get(), call.p_kind, call.p, call.signed_pow, call.rescale,
            call.kernel_size[0], call.kernel_size[1], call.kernel_size[2], call.stride[0],
            call.stride[1], call.stride[2], call.dilation[0], call.dilation[1], call.dilation[2],
            call.padded[0], call.padded[1], call.padded[2], taps[0], taps[1], taps[2], first[0],
            first[1], first[2], step[0], step[1], step[2], window_stride[0], window_stride[1],
            window_stride[2], dx.get());
        if (code != 0) return rt::kernel_failure(kernel->symbol, code);
    }
    return Status::Ok();
}

}  // namespace lpnorm
