// The C ABI: thin conversions onto the C++ API, with a per-thread last-error message.
#include <string>
#include <type_traits>

#include "gpu.h"
#include "lpnorm/lpnorm.h"
#include "lpnorm/lpnorm_c.h"

namespace {

thread_local std::string t_last_error;

int record(const lpnorm::Status &s) {
    t_last_error = s.ok() ? std::string() : s.message();
    return static_cast<int>(s.code());
}

// Converts a C tensor; null pointers and bad ranks become named errors.
lpnorm::Status to_tensor(const lpnorm_tensor *t, const char *name, lpnorm::Tensor *out) {
    using lpnorm::ErrorCode;
    if (t == nullptr) {
        return lpnorm::Status(ErrorCode::null_pointer, std::string(name) + " is null");
    }
    if (t->rank < 0 || t->rank > lpnorm::kMaxRank) {
        return lpnorm::Status(ErrorCode::invalid_argument,
                              std::string(name) + ".rank = " + std::to_string(t->rank) +
                                  " is outside [0, " + std::to_string(lpnorm::kMaxRank) + "]");
    }
    if (t->dtype < 0 || t->dtype >= lpnorm::kNumDTypes) {
        return lpnorm::Status(
            ErrorCode::invalid_argument,
            std::string(name) + ".dtype = " + std::to_string(t->dtype) + " is not an lpnorm_dtype");
    }
    if (!lpnorm::rt::is_memory(t->memory)) {
        return lpnorm::Status(ErrorCode::invalid_argument,
                              std::string(name) + ".memory = " + std::to_string(t->memory) +
                                  " is not an lpnorm_memory");
    }
    if (t->rank > 0 && t->shape == nullptr) {
        return lpnorm::Status(
            ErrorCode::null_pointer,
            std::string(name) + ".shape is null for rank " + std::to_string(t->rank));
    }
    *out = lpnorm::Tensor::contiguous(t->data, static_cast<lpnorm::DType>(t->dtype), t->shape,
                                      t->rank);
    if (t->strides != nullptr) {
        for (int i = 0; i < t->rank; i++) {
            out->strides[i] = t->strides[i];
        }
    }
    out->memory = static_cast<lpnorm::Memory>(t->memory);
    return lpnorm::Status::Ok();
}

// A backend name of the C ABI.
lpnorm::Status to_backend(const char *name, lpnorm::Backend *out) {
    if (!lpnorm::parse_backend(name, out)) {
        return lpnorm::Status(lpnorm::ErrorCode::invalid_argument,
                              std::string("backend = ") + (name ? name : "(null)") +
                                  " is not one of auto_select, cpu, opencl, cuda, d3d12");
    }
    return lpnorm::Status::Ok();
}

// The arguments every *_output_shape query shares.
lpnorm::Status check_shape_query(int32_t rank, const int64_t *shape, const int32_t *out_rank,
                                 const int64_t *out_shape) {
    using lpnorm::ErrorCode;
    if (rank < 0 || rank > lpnorm::kMaxRank) {
        return lpnorm::Status(ErrorCode::invalid_argument,
                              "rank = " + std::to_string(rank) + " is outside [0, 8]");
    }
    if ((rank > 0 && shape == nullptr) || out_rank == nullptr || out_shape == nullptr) {
        const char *which = out_rank == nullptr    ? "out_rank"
                            : out_shape == nullptr ? "out_shape"
                                                   : "shape";
        return lpnorm::Status(ErrorCode::null_pointer,
                              std::string(which) + " is null (rank = " + std::to_string(rank) +
                                  "): shape, out_rank and out_shape must not be null");
    }
    return lpnorm::Status::Ok();
}

void write_shape(const std::vector<int64_t> &result, int32_t *out_rank, int64_t *out_shape) {
    *out_rank = static_cast<int32_t>(result.size());
    for (size_t i = 0; i < result.size(); i++) out_shape[i] = result[i];
}

// Converts C pooling attributes; null or mis-sized arrays become named errors.
lpnorm::Status to_pool_params(const lpnorm_pool_params *c, lpnorm::PoolParams *out) {
    using lpnorm::ErrorCode;
    if (c == nullptr) {
        return lpnorm::Status(ErrorCode::null_pointer, "params is null");
    }
    if (c->spatial_dims < 1 || c->spatial_dims > 3) {
        return lpnorm::Status(
            ErrorCode::invalid_argument,
            "params.spatial_dims = " + std::to_string(c->spatial_dims) + " is not 1, 2 or 3");
    }
    if (c->kernel == nullptr) {
        return lpnorm::Status(ErrorCode::null_pointer, "params.kernel is null");
    }
    const size_t k = size_t(c->spatial_dims);
    auto copy = [](const int64_t *values, size_t count, std::vector<int64_t> *to) {
        if (values != nullptr) to->assign(values, values + count);
    };
    copy(c->kernel, k, &out->kernel);
    copy(c->strides, k, &out->strides);
    copy(c->dilations, k, &out->dilations);
    copy(c->pads, 2 * k, &out->pads);
    out->auto_pad = static_cast<lpnorm::AutoPad>(c->auto_pad);
    out->ceil_mode = c->ceil_mode != 0;
    out->p = c->p;
    out->mode = static_cast<lpnorm::PoolMode>(c->mode);
    out->overhang = static_cast<lpnorm::Overhang>(c->overhang);
    return lpnorm::Status::Ok();
}

// The axes array of lpnorm_reduce, lpnorm_reduce_backward and lpnorm_normalize.
lpnorm::Status check_axes_array(const int64_t *axes, int32_t num_axes) {
    if (num_axes < 0) {
        return lpnorm::Status(lpnorm::ErrorCode::invalid_argument,
                              "num_axes = " + std::to_string(num_axes) + " is negative");
    }
    if (num_axes > 0 && axes == nullptr) {
        return lpnorm::Status(lpnorm::ErrorCode::null_pointer,
                              "axes is null but num_axes = " + std::to_string(num_axes));
    }
    return lpnorm::Status::Ok();
}

// The attributes of lpnorm_reduce and lpnorm_reduce_backward (axes checked already).
lpnorm::ReduceParams reduce_params_of(const int64_t *axes, int32_t num_axes, double p,
                                      int32_t keep_dims, int32_t empty_axes) {
    lpnorm::ReduceParams params;
    params.axes.assign(axes, axes + num_axes);
    params.p = p;
    params.keep_dims = keep_dims != 0;
    params.empty_axes = static_cast<lpnorm::EmptyAxes>(empty_axes);
    return params;
}

// The attributes of lpnorm_normalize and lpnorm_normalize_backward (axes checked already).
lpnorm::NormalizeParams normalize_params_of(const int64_t *axes, int32_t num_axes, double p,
                                            double eps, int32_t eps_mode) {
    lpnorm::NormalizeParams params;
    params.axes.assign(axes, axes + num_axes);
    params.p = p;
    params.eps = eps;
    params.eps_mode = static_cast<lpnorm::EpsMode>(eps_mode);
    return params;
}

}  // namespace

extern "C" {

int lpnorm_reduce(const lpnorm_tensor *input, const lpnorm_tensor *output, const int64_t *axes,
                  int32_t num_axes, double p, int32_t keep_dims, int32_t empty_axes) {
    lpnorm::Tensor in, out;
    lpnorm::Status s = to_tensor(input, "input", &in);
    if (s.ok()) s = to_tensor(output, "output", &out);
    if (s.ok()) s = check_axes_array(axes, num_axes);
    if (!s.ok()) return record(s);
    return record(
        lpnorm::reduce(in, out, reduce_params_of(axes, num_axes, p, keep_dims, empty_axes)));
}

int lpnorm_reduce_backward(const lpnorm_tensor *input, const lpnorm_tensor *output,
                           const lpnorm_tensor *output_grad, const lpnorm_tensor *input_grad,
                           const int64_t *axes, int32_t num_axes, double p, int32_t keep_dims,
                           int32_t empty_axes) {
    lpnorm::Tensor x, y, dy, dx;
    lpnorm::Status s = to_tensor(input, "input", &x);
    if (s.ok()) s = to_tensor(output, "output", &y);
    if (s.ok()) s = to_tensor(output_grad, "output_grad", &dy);
    if (s.ok()) s = to_tensor(input_grad, "input_grad", &dx);
    if (s.ok()) s = check_axes_array(axes, num_axes);
    if (!s.ok()) return record(s);
    return record(lpnorm::reduce_backward(
        x, y, dy, dx, reduce_params_of(axes, num_axes, p, keep_dims, empty_axes)));
}

int lpnorm_reduce_output_shape(int32_t rank, const int64_t *shape, const int64_t *axes,
                               int32_t num_axes, int32_t keep_dims, int32_t empty_axes,
                               int32_t *out_rank, int64_t *out_shape) {
    using lpnorm::ErrorCode;
    using lpnorm::Status;
    Status s = check_shape_query(rank, shape, out_rank, out_shape);
    if (s.ok() && num_axes > 0 && axes == nullptr) {
        s = Status(ErrorCode::null_pointer,
                   "axes is null but num_axes = " + std::to_string(num_axes));
    }
    if (s.ok() && num_axes < 0) {
        s = Status(ErrorCode::invalid_argument,
                   "num_axes = " + std::to_string(num_axes) + " is negative");
    }
    if (!s.ok()) return record(s);
    lpnorm::ReduceParams params;
    params.axes.assign(axes, axes + num_axes);
    params.keep_dims = keep_dims != 0;
    params.empty_axes = static_cast<lpnorm::EmptyAxes>(empty_axes);
    std::vector<int64_t> result;
    s = lpnorm::reduce_output_shape(std::vector<int64_t>(shape, shape + rank), params, &result);
    if (s.ok()) write_shape(result, out_rank, out_shape);
    return record(s);
}

int lpnorm_normalize(const lpnorm_tensor *input, const lpnorm_tensor *output, const int64_t *axes,
                     int32_t num_axes, double p, double eps, int32_t eps_mode) {
    lpnorm::Tensor in, out;
    lpnorm::Status s = to_tensor(input, "input", &in);
    if (s.ok()) s = to_tensor(output, "output", &out);
    if (s.ok()) s = check_axes_array(axes, num_axes);
    if (!s.ok()) return record(s);
    return record(
        lpnorm::normalize(in, out, normalize_params_of(axes, num_axes, p, eps, eps_mode)));
}

int lpnorm_normalize_backward(const lpnorm_tensor *input, const lpnorm_tensor *output_grad,
                              const lpnorm_tensor *input_grad, const int64_t *axes,
                              int32_t num_axes, double p, double eps, int32_t eps_mode) {
    lpnorm::Tensor x, dy, dx;
    lpnorm::Status s = to_tensor(input, "input", &x);
    if (s.ok()) s = to_tensor(output_grad, "output_grad", &dy);
    if (s.ok()) s = to_tensor(input_grad, "input_grad", &dx);
    if (s.ok()) s = check_axes_array(axes, num_axes);
    if (!s.ok()) return record(s);
    return record(lpnorm::normalize_backward(
        x, dy, dx, normalize_params_of(axes, num_axes, p, eps, eps_mode)));
}

int lpnorm_normalize_output_shape(int32_t rank, const int64_t *shape, const int64_t *axes,
                                  int32_t num_axes, double p, double eps, int32_t eps_mode,
                                  int32_t *out_rank, int64_t *out_shape) {
    lpnorm::Status s = check_shape_query(rank, shape, out_rank, out_shape);
    if (s.ok()) s = check_axes_array(axes, num_axes);
    if (!s.ok()) return record(s);
    lpnorm::NormalizeParams params;
    params.axes.assign(axes, axes + num_axes);
    params.p = p;
    params.eps = eps;
    params.eps_mode = static_cast<lpnorm::EpsMode>(eps_mode);
    std::vector<int64_t> result;
    s = lpnorm::normalize_output_shape(std::vector<int64_t>(shape, shape + rank), params, &result);
    if (s.ok()) write_shape(result, out_rank, out_shape);
    return record(s);
}

int lpnorm_pool(const lpnorm_tensor *input, const lpnorm_tensor *output,
                const lpnorm_pool_params *params) {
    lpnorm::Tensor in, out;
    lpnorm::PoolParams p;
    lpnorm::Status s = to_tensor(input, "input", &in);
    if (s.ok()) s = to_tensor(output, "output", &out);
    if (s.ok()) s = to_pool_params(params, &p);
    return record(s.ok() ? lpnorm::pool(in, out, p) : s);
}

int lpnorm_pool_backward(const lpnorm_tensor *input, const lpnorm_tensor *output,
                         const lpnorm_tensor *output_grad, const lpnorm_tensor *input_grad,
                         const lpnorm_pool_params *params) {
    lpnorm::Tensor x, y, dy, dx;
    lpnorm::PoolParams p;
    lpnorm::Status s = to_tensor(input, "input", &x);
    if (s.ok()) s = to_tensor(output, "output", &y);
    if (s.ok()) s = to_tensor(output_grad, "output_grad", &dy);
    if (s.ok()) s = to_tensor(input_grad, "input_grad", &dx);
    if (s.ok()) s = to_pool_params(params, &p);
    return record(s.ok() ? lpnorm::pool_backward(x, y, dy, dx, p) : s);
}

int lpnorm_pool_output_shape(int32_t rank, const int64_t *shape, const lpnorm_pool_params *params,
                             int32_t *out_rank, int64_t *out_shape) {
    lpnorm::PoolParams p;
    lpnorm::Status s = check_shape_query(rank, shape, out_rank, out_shape);
    if (s.ok()) s = to_pool_params(params, &p);
    std::vector<int64_t> result;
    if (s.ok())
        s = lpnorm::pool_output_shape(std::vector<int64_t>(shape, shape + rank), p, &result);
    if (s.ok()) write_shape(result, out_rank, out_shape);
    return record(s);
}

const char *lpnorm_last_error(void) { return t_last_error.c_str(); }

int lpnorm_set_isa(const char *isa) {
    lpnorm::Isa parsed;
    if (!lpnorm::parse_isa(isa, &parsed)) {
        return record(lpnorm::Status(
            lpnorm::ErrorCode::invalid_argument,
            std::string("isa = ") + (isa ? isa : "(null)") +
                " is not one of auto, sse41, avx2, avx512, avx512_zen5, neon, neon_fp16"));
    }
    return record(lpnorm::set_isa(parsed));
}

const char *lpnorm_active_isa(void) { return lpnorm::isa_name(lpnorm::active_isa()); }

void lpnorm_set_num_threads(int32_t num_threads) { lpnorm::set_num_threads(num_threads); }

void lpnorm_set_parallel_for(void (*parallel_for)(void *pool, int32_t count,
                                                  void (*task)(void *context, int32_t index),
                                                  void *context),
                             void *pool) {
    static_assert(std::is_same_v<int32_t, int>, "the C and C++ hooks share one signature");
    lpnorm::set_parallel_for(parallel_for, pool);
}

int lpnorm_set_backend(const char *backend) {
    lpnorm::Backend parsed;
    lpnorm::Status s = to_backend(backend, &parsed);
    return record(s.ok() ? lpnorm::set_backend(parsed) : s);
}

int lpnorm_gpu_context(const char *backend, void **context, void **queue) {
    lpnorm::Backend parsed;
    lpnorm::Status s = to_backend(backend, &parsed);
    return record(s.ok() ? lpnorm::gpu_context(parsed, context, queue) : s);
}

const char *lpnorm_version(void) { return lpnorm::version(); }

}  // extern "C"
