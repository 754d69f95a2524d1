// lpnorm::normalize: validate -> group the axes into the kernels' (k0, r, k1) form -> run.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "gpu.h"
#include "halide_glue.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "range_repair.h"
#include "registry.h"
#include "split_limits.h"
#include "split_reduce.h"
#include "validate.h"

namespace lpnorm {
namespace {

const char *const kEpsModeNames[] = {"none", "norm_max", "sum_add", "sum_max"};

bool is_normalize_dtype(DType d) {
    return d == DType::float32 || d == DType::float64 || d == DType::float16 ||
           d == DType::bfloat16;
}

Status validate_params(const NormalizeParams &params, int rank, uint32_t *mask) {
    const int mode = int(params.eps_mode);
    if (mode < 0 || mode > int(EpsMode::sum_max)) {
        return Status(ErrorCode::invalid_argument,
                      "eps_mode = " + std::to_string(mode) + " is not an EpsMode");
    }
    const double p = params.p;
    if (!(p > 0)) {
        return Status(
            ErrorCode::invalid_argument,
            "p = " + rt::format_number(p) + " is not a normalization order: use p > 0 or inf");
    }
    if (!(params.eps >= 0) || std::isinf(params.eps)) {
        return Status(ErrorCode::invalid_argument,
                      "eps = " + rt::format_number(params.eps) + " must be finite and >= 0");
    }
    if (std::isinf(p) &&
        (params.eps_mode == EpsMode::sum_add || params.eps_mode == EpsMode::sum_max)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("p = inf has no sum of powers for eps_mode = ") +
                          kEpsModeNames[mode] + ": use none or norm_max");
    }
    return rt::normalize_axes(params.axes, rank, mask);
}

int p_kind_of(double p) {
    if (std::isinf(p)) return abi::kNormalizeMaxAbs;
    if (p == 1) return abi::kL1;
    if (p == 2) return abi::kL2;
    if (p == 3) return abi::kL3;
    return abi::kLp;
}

// One dim of the kernels' form: the merge of logical axes whose strides allow it.
struct Dim {
    int64_t extent = 1, in_stride = 1, out_stride = 1;
};

// Merges `axes` (logical, outermost first) of `shape` with input and output strides into one
// dim; false when a stride does not continue the run inside.
bool merge(const std::vector<int> &axes, const int64_t *shape, const int64_t *in_strides,
           const int64_t *out_strides, Dim *dim) {
    *dim = Dim{};
    bool first = true;
    for (auto a = axes.rbegin(); a != axes.rend(); ++a) {
        if (shape[*a] == 1) continue;
        if (first) {
            *dim = Dim{shape[*a], in_strides[*a], out_strides[*a]};
            first = false;
            continue;
        }
        if (in_strides[*a] != dim->extent * dim->in_stride ||
            out_strides[*a] != dim->extent * dim->out_stride) {
            return false;
        }
        dim->extent *= shape[*a];
    }
    return true;
}

// The groups of a call: kept axes after the last reduced one (inner), the reduced axes, the
// other kept axes (outer), each in logical order.
struct Grouping {
    std::vector<int> inner, reduced, outer;
};

Grouping group_axes(int rank, uint32_t mask) {
    int last_reduced = -1;
    for (int a = 0; a < rank; a++) {
        if ((mask >> a) & 1) last_reduced = a;
    }
    Grouping g;
    for (int a = 0; a < rank; a++) {
        if ((mask >> a) & 1) {
            g.reduced.push_back(a);
        } else if (a > last_reduced) {
            g.inner.push_back(a);
        } else {
            g.outer.push_back(a);
        }
    }
    return g;
}

// A call in the kernels' form: (r, k) for the inner pattern, (k0, r, k1) for the middle one.
struct Plan {
    rt::NormalizePattern pattern = rt::NormalizePattern::inner;
    int dims = 0;
    int64_t extent[3] = {}, in_stride[3] = {}, out_stride[3] = {};
    int64_t group_size = 1;  // terms per group
};

// False when the strides do not merge into the kernels' form with a unit innermost stride.
bool plan_call(const Tensor &input, const int64_t *out_strides, uint32_t mask, Plan *plan) {
    const Grouping g = group_axes(input.rank, mask);
    Dim inner, reduced, outer;
    if (!merge(g.inner, input.shape, input.strides, out_strides, &inner) ||
        !merge(g.reduced, input.shape, input.strides, out_strides, &reduced) ||
        !merge(g.outer, input.shape, input.strides, out_strides, &outer)) {
        return false;
    }
    plan->group_size = reduced.extent;
    Dim dims[3];
    if (inner.extent == 1) {
        plan->pattern = rt::NormalizePattern::inner;
        plan->dims = 2;
        dims[0] = reduced;
        dims[1] = outer;
    } else {
        plan->pattern = rt::NormalizePattern::middle;
        plan->dims = 3;
        dims[0] = inner;
        dims[1] = reduced;
        dims[2] = outer;
    }
    if (dims[0].extent > 1 && (dims[0].in_stride != 1 || dims[0].out_stride != 1)) return false;
    for (int d = 0; d < plan->dims; d++) {
        // A dim of one element (or none) may have any stride; the kernels want the innermost 1.
        const bool single = dims[d].extent <= 1;
        plan->extent[d] = dims[d].extent;
        plan->in_stride[d] = single ? (d == 0 ? 1 : 0) : dims[d].in_stride;
        plan->out_stride[d] = single ? (d == 0 ? 1 : 0) : dims[d].out_stride;
    }
    return true;
}

struct KernelArgs {
    int p_kind = 0;
    double p = 2;
    int eps_kind = abi::kEpsNone;
    double eps = 0, eps_root = 0;
};

KernelArgs kernel_args(const NormalizeParams &params) {
    KernelArgs a;
    a.p_kind = p_kind_of(params.p);
    a.p = params.p;
    a.eps = params.eps;
    switch (params.eps_mode) {
    case EpsMode::none: break;
    case EpsMode::norm_max:
        a.eps_kind = abi::kEpsClamp;
        a.eps_root = params.eps;
        break;
    case EpsMode::sum_max:  // max(S, eps)^(1/p) = max(n, eps^(1/p))
        a.eps_kind = abi::kEpsClamp;
        a.eps_root = std::pow(params.eps, 1.0 / params.p);
        break;
    case EpsMode::sum_add:
        a.eps_kind = abi::kEpsAdd;
        a.eps_root = std::pow(params.eps, 1.0 / params.p);
        break;
    }
    return a;
}

// Where a call runs: the backend, and the memory its tensors live in.
struct Placement {
    Backend backend = Backend::cpu;
    Memory memory = Memory::host;
};

Status run_plan(const Plan &plan, void *in_data, void *out_data, DType dtype,
                const KernelArgs &args, const Placement &where) {
    for (int d = 0; d < plan.dims; d++) {
        const int64_t limit = std::numeric_limits<int32_t>::max();
        if (plan.extent[d] > limit || std::llabs(plan.in_stride[d]) > limit ||
            std::llabs(plan.out_stride[d]) > limit) {
            return Status(ErrorCode::too_large,
                          "input: a normalization with " + std::to_string(plan.extent[d]) +
                              " elements along one of its merged dims (stride " +
                              std::to_string(plan.in_stride[d]) +
                              ") does not fit the kernels' 32-bit indexing");
        }
    }
    const bool gpu = rt::is_gpu(where.backend);
    const rt::NormalizeKernel *kernel =
        gpu ? rt::find_gpu_normalize_kernel(plan.pattern, dtype, where.backend)
            : rt::find_normalize_kernel(plan.pattern, dtype, active_isa());
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      std::string("no ") + rt::normalize_pattern_name(plan.pattern) +
                          " normalization kernel for dtype " + dtype_name(dtype) +
                          (gpu ? std::string(" on backend ") + backend_name(where.backend)
                               : std::string(" at isa ") + isa_name(active_isa())) +
                          " in this build");
    }
    const DType compute =
        dtype_size(dtype) == 2 ? DType::float32 : DType::float64;  // normalize_compute_type
    // p = inf is always scaled: its pass for max|x| is already there, and the reciprocal of a
    // subnormal max|x| overflows.
    const bool scaled = args.p_kind == abi::kNormalizeMaxAbs ||
                        rt::power_sum_range(dtype, compute, args.p, plan.group_size).needs_scan();
    rt::install_halide_handlers();
    rt::note_kernel_call(kernel->symbol);
    rt::BufferView in_buf(in_data, dtype, plan.dims, plan.extent, plan.in_stride);
    rt::BufferView out_buf(out_data, dtype, plan.dims, plan.extent, plan.out_stride);
    rt::KernelBuffers buffers(gpu, where.memory, in_buf.get(), out_buf.get());
    const Status attached = buffers.attach();
    if (!attached.ok()) return attached;
    const int code = kernel->fn(in_buf.get(), args.p_kind, args.p, args.eps_kind, args.eps,
                                args.eps_root, scaled ? 1 : 0, out_buf.get());
    if (code != 0) return rt::kernel_failure(kernel->symbol, code);
    return buffers.finish();
}

// Strides that merge nowhere (reduced axes apart in memory, a strided innermost axis): the
// input is copied densely with its axes in (outer, reduced, inner) order, normalized there, and
// the result copied back into the output's order. Host memory only.
Status run_through_copies(const Tensor &input, const Tensor &output, uint32_t mask,
                          const KernelArgs &args, Backend backend) {
    const Grouping g = group_axes(input.rank, mask);
    std::vector<int> order = g.outer;
    order.insert(order.end(), g.reduced.begin(), g.reduced.end());
    order.insert(order.end(), g.inner.begin(), g.inner.end());
    const size_t bytes = size_t(input.num_elements()) * dtype_size(input.dtype);
    std::vector<unsigned char> in_copy, out_copy;
    try {
        in_copy.resize(bytes);
        out_copy.resize(bytes);
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::too_large,
                      "input has " + std::to_string(input.num_elements()) +
                          " elements: its reordered copies do not fit in memory");
    }
    Tensor permuted = input, back = input;
    for (int k = 0; k < input.rank; k++) {
        permuted.shape[k] = input.shape[order[size_t(k)]];
        permuted.strides[k] = input.strides[order[size_t(k)]];
    }
    int64_t dense[kMaxRank];
    rt::dense_kept_strides(permuted.shape, input.rank, 0, dense);
    rt::copy_to_dense(permuted, in_copy.data());
    uint32_t permuted_mask = 0;
    for (int k = 0; k < input.rank; k++) {
        if ((mask >> order[size_t(k)]) & 1) permuted_mask |= 1u << k;
    }
    Tensor dense_in = permuted;
    dense_in.data = in_copy.data();
    std::memcpy(dense_in.strides, dense, sizeof(dense));
    Plan plan;
    plan_call(dense_in, dense, permuted_mask, &plan);  // dense in this order: always merges
    Status s = run_plan(plan, in_copy.data(), out_copy.data(), input.dtype, args,
                        Placement{backend, Memory::host});
    if (!s.ok()) return s;
    back.data = out_copy.data();
    for (int k = 0; k < input.rank; k++) {
        back.strides[order[size_t(k)]] = dense[k];
    }
    rt::copy_to_dense(back, output.data);
    return Status::Ok();
}

}  // namespace

const char *eps_mode_name(EpsMode mode) {
    const int m = int(mode);
    return m >= 0 && m <= int(EpsMode::sum_max) ? kEpsModeNames[m] : "unknown";
}

bool parse_eps_mode(const char *name, EpsMode *out) {
    for (int m = 0; m <= int(EpsMode::sum_max); m++) {
        if (name != nullptr && std::strcmp(name, kEpsModeNames[m]) == 0) {
            *out = EpsMode(m);
            return true;
        }
    }
    return false;
}

Status normalize_output_shape(const std::vector<int64_t> &input_shape,
                              const NormalizeParams &params, std::vector<int64_t> *output_shape) {
    Status s = rt::validate_shape(input_shape);
    if (!s.ok()) return s;
    uint32_t mask = 0;
    s = validate_params(params, int(input_shape.size()), &mask);
    if (!s.ok()) return s;
    *output_shape = input_shape;
    return Status::Ok();
}

Status normalize(const Tensor &input, const Tensor &output, const NormalizeParams &params) {
    Status s = rt::validate_tensor(input, "input");
    if (!s.ok()) return s;
    s = rt::validate_tensor(output, "output");
    if (!s.ok()) return s;
    if (!is_normalize_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " is not normalized: use float32, float64, float16 or bfloat16");
    }
    uint32_t mask = 0;
    s = validate_params(params, input.rank, &mask);
    if (!s.ok()) return s;
    rt::Shape shape;
    shape.rank = input.rank;
    for (int i = 0; i < input.rank; i++) shape.dim[i] = input.shape[i];
    s = rt::validate_output(input, output, shape);
    if (!s.ok()) return s;
    Placement where;
    s = rt::choose_backend(input, output, &where.backend);
    if (!s.ok()) return s;
    where.memory = input.memory;
    if (output.num_elements() == 0) return Status::Ok();

    const KernelArgs args = kernel_args(params);
    std::vector<unsigned char> dense_storage;
    Tensor in;
    s = rt::host_input_for(where.backend, input, &dense_storage, &in);
    if (!s.ok()) return s;
    int64_t out_strides[kMaxRank];
    rt::dense_kept_strides(in.shape, in.rank, 0, out_strides);
    Plan plan;
    if (plan_call(in, out_strides, mask, &plan)) {
        return run_plan(plan, in.data, output.data, in.dtype, args, where);
    }
    if (where.memory != Memory::host) {
        return Status(
            ErrorCode::unsupported,
            std::string("input.strides: the normalized axes of this ") + memory_name(where.memory) +
                " tensor do not lie in one run of memory (or its innermost axis is "
                "strided); backend " +
                backend_name(where.backend) + " normalizes such layouts from host memory only");
    }
    return run_through_copies(in, output, mask, args, where.backend);
}

}  // namespace lpnorm
