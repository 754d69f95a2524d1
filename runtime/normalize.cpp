// lpnorm::normalize and its gradient: validate -> group the axes into the kernels' (k0, r, k1)
// form -> run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu.h"
#include "grouped_layout.h"
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

// A call in plan_grouped's order: the forward's (input, output) or the gradient's (input,
// output_grad, input_grad); the last tensor is the one written. x's rank and shape throughout.
struct Call {
    Tensor t[3];
    int count = 2;
    bool gradient = false;
    uint32_t mask = 0;
};

// False when the strides do not merge into the kernels' form with a unit innermost stride.
bool plan_call(const Call &c, rt::GroupedPlan *plan) {
    const int64_t *strides[3] = {c.t[0].strides, c.t[1].strides, c.t[2].strides};
    const bool per_group[3] = {false, false, false};
    return rt::plan_grouped(c.t[0].shape, c.t[0].rank, c.mask, strides, per_group, c.count, plan);
}

struct KernelArgs {
    int p_kind = 0;
    double p = 2;
    int eps_kind = abi::kEpsNone;
    double eps = 0, eps_root = 0;
};

KernelArgs kernel_args(const NormalizeParams &params) {
    KernelArgs a;
    a.p_kind = abi::normalize_kind(params.p);
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

Status no_kernel(const rt::GroupedPlan &plan, const Call &c, const rt::Place &place) {
    return Status(ErrorCode::unsupported,
                  std::string("no ") + rt::grouped_pattern_name(plan.pattern) +
                      (c.gradient ? " normalization gradient" : " normalization") +
                      " kernel for dtype " + dtype_name(c.t[0].dtype) + rt::place_phrase(place) +
                      " in this build");
}

Status run_plan(const rt::GroupedPlan &plan, const Call &c, const KernelArgs &args,
                const Placement &where) {
    Status s = rt::check_grouped_indexing(
        plan, c.count, c.gradient ? "a normalization gradient" : "a normalization");
    if (!s.ok()) return s;
    const DType dtype = c.t[0].dtype;
    const rt::Place place{where.backend, active_isa()};
    const rt::NormalizeKernel *forward = nullptr;
    const rt::NormalizeBackwardKernel *gradient = nullptr;
    if (c.gradient) {
        gradient = rt::find_kernel<rt::NormalizeBackwardKernel>({plan.pattern}, dtype, place);
    } else {
        forward = rt::find_kernel<rt::NormalizeKernel>({plan.pattern}, dtype, place);
    }
    if (forward == nullptr && gradient == nullptr) return no_kernel(plan, c, place);
    const DType compute = abi::sum_accumulator_bits(true, 8 * dtype_size(dtype)) == 32
                              ? DType::float32
                              : DType::float64;  // normalize_compute_type
    // p = inf is always scaled: its pass for max|x| is already there, and the reciprocal of a
    // subnormal max|x| overflows.
    const bool scaled = args.p_kind == abi::kNormalizeMaxAbs ||
                        rt::power_sum_range(dtype, compute, args.p, plan.group_size).needs_scan();
    const char *symbol = forward != nullptr ? forward->symbol : gradient->symbol;
    const rt::KernelScope kernel_scope;
    rt::note_kernel_call(symbol);
    rt::BufferView in_buf(c.t[0].data, dtype, plan.dims, plan.extent, plan.stride[0]);
    rt::BufferView second(c.t[1].data, dtype, plan.dims, plan.extent, plan.stride[1]);
    if (gradient != nullptr) {
        rt::BufferView out_buf(c.t[2].data, dtype, plan.dims, plan.extent, plan.stride[2]);
        rt::KernelBuffers buffers(place.gpu(), where.memory,
                                  {{in_buf.get(), "input"}, {second.get(), "output_grad"}},
                                  out_buf.get(), "input_grad");
        const Status attached = buffers.attach();
        if (!attached.ok()) return attached;
        const int code =
            gradient->fn(in_buf.get(), second.get(), args.p_kind, args.p, args.eps_kind, args.eps,
                         args.eps_root, scaled ? 1 : 0, out_buf.get());
        if (code != 0) return rt::kernel_failure(symbol, code);
        return buffers.finish();
    }
    rt::KernelBuffers buffers(place.gpu(), where.memory, in_buf.get(), second.get());
    const Status attached = buffers.attach();
    if (!attached.ok()) return attached;
    const int code = forward->fn(in_buf.get(), args.p_kind, args.p, args.eps_kind, args.eps,
                                 args.eps_root, scaled ? 1 : 0, second.get());
    if (code != 0) return rt::kernel_failure(symbol, code);
    return buffers.finish();
}

// Runs a call in place where its strides merge, else (host memory) on dense copies of its
// tensors with the axes in (outer, normalized, inner) order, the result copied back.
Status run_call(const Call &c, const KernelArgs &args, const Placement &where) {
    rt::GroupedPlan plan;
    if (plan_call(c, &plan)) return run_plan(plan, c, args, where);
    if (where.memory != Memory::host) {
        return Status(
            ErrorCode::unsupported,
            std::string("input.strides: the normalized axes of this ") + memory_name(where.memory) +
                " tensor do not lie in one run of memory (or its innermost axis is "
                "strided); backend " +
                backend_name(where.backend) + " normalizes such layouts from host memory only");
    }
    const bool per_group[3] = {false, false, false};
    bool written[3] = {false, false, false};
    written[c.count - 1] = true;
    return rt::run_on_dense_copies(c.t, per_group, written, c.count, c.mask,
                                   [&](const Tensor *dense, uint32_t mask) {
                                       Call d = c;
                                       for (int i = 0; i < c.count; i++) d.t[i] = dense[i];
                                       d.mask = mask;
                                       rt::GroupedPlan dense_plan;
                                       plan_call(d, &dense_plan);  // dense: always merges
                                       return run_plan(dense_plan, d, args, where);
                                   });
}

// The checks shared by normalize and normalize_backward: the input's dtype, the params, and
// the written tensor (`output`, named `output_name`): dense, the input's shape and dtype.
Status validate_call(const Tensor &input, const Tensor &output, const char *output_name,
                     const NormalizeParams &params, uint32_t *mask) {
    Status s = rt::validate_tensor(input, "input");
    if (!s.ok()) return s;
    s = rt::validate_tensor(output, output_name);
    if (!s.ok()) return s;
    if (!is_normalize_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " is not normalized: use float32, float64, float16 or bfloat16");
    }
    s = validate_params(params, input.rank, mask);
    if (!s.ok()) return s;
    rt::Shape shape;
    shape.rank = input.rank;
    for (int i = 0; i < input.rank; i++) shape.dim[i] = input.shape[i];
    return rt::validate_output(input, output, shape, "input", output_name);
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
    uint32_t mask = 0;
    Status s = validate_call(input, output, "output", params, &mask);
    if (!s.ok()) return s;
    Placement where;
    s = rt::choose_backend(input, output, &where.backend);
    if (!s.ok()) return s;
    where.memory = input.memory;
    if (output.num_elements() == 0) return Status::Ok();

    std::vector<unsigned char> dense_storage;
    Call c;
    s = rt::host_input_for(where.backend, input, &dense_storage, &c.t[0]);
    if (!s.ok()) return s;
    c.t[1] = output;
    c.mask = mask;
    return run_call(c, kernel_args(params), where);
}

Status normalize_backward(const Tensor &input, const Tensor &output_grad, const Tensor &input_grad,
                          const NormalizeParams &params) {
    uint32_t mask = 0;
    Status s = validate_call(input, input_grad, "input_grad", params, &mask);
    if (!s.ok()) return s;
    s = rt::validate_tensor(output_grad, "output_grad");
    if (!s.ok()) return s;
    if (output_grad.dtype != input.dtype) {
        return Status(ErrorCode::dtype_mismatch,
                      std::string("output_grad.dtype = ") + dtype_name(output_grad.dtype) +
                          " differs from input.dtype = " + dtype_name(input.dtype));
    }
    if (output_grad.rank != input.rank ||
        !std::equal(input.shape, input.shape + input.rank, output_grad.shape)) {
        return Status(
            ErrorCode::shape_mismatch,
            "output_grad.shape = " + rt::format_shape(output_grad.shape, output_grad.rank) +
                " differs from input.shape = " + rt::format_shape(input.shape, input.rank));
    }
    s = rt::check_no_overlap(output_grad, "output_grad", input_grad, "input_grad");
    if (!s.ok()) return s;
    const Tensor *tensors[] = {&input, &output_grad, &input_grad};
    const char *names[] = {"input", "output_grad", "input_grad"};
    Placement where;
    s = rt::choose_backend(tensors, names, 3, &where.backend);
    if (!s.ok()) return s;
    where.memory = input.memory;
    if (input_grad.num_elements() == 0) return Status::Ok();
    std::vector<unsigned char> dense[2];
    Call c;
    s = rt::host_inputs_for(where.backend, tensors, 2, dense, c.t);
    if (!s.ok()) return s;
    c.t[2] = input_grad;
    c.count = 3;
    c.gradient = true;
    c.mask = mask;
    return run_call(c, kernel_args(params), where);
}

}  // namespace lpnorm
