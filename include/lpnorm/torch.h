// PyTorch torch.nn.functional.lp_pool1d/2d/3d mapped onto lpnorm::pool,
// (their gradient onto lpnorm::pool_backward), torch.linalg.vector_norm mapped onto lpnorm::reduce
// (its gradient onto lpnorm::reduce_backward),
// and torch.nn.functional.normalize mapped
// onto lpnorm::normalize. Attribute mapping only: the arithmetic is lpnorm's.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "lpnorm/detail/adapter_text.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::torch {

namespace detail {

inline Status invalid(const std::string &message) {
    return Status(ErrorCode::invalid_argument, message);
}

// torch's _single/_pair/_triple: one value for every spatial dim, or one value per dim.
inline Status expand(const char *fn, const char *name, const std::vector<int64_t> &v, size_t k,
                     std::vector<int64_t> *out) {
    if (v.size() != 1 && v.size() != k) {
        return invalid(std::string(name) + " = " + adapter_text::list(v) +
                       " must be a single int or " + std::to_string(k) + " ints (" + fn + ")");
    }
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i] < 1) {
            return invalid(std::string(name) + "[" + std::to_string(i) +
                           "] = " + std::to_string(v[i]) + " must be >= 1 (" + fn + ")");
        }
    }
    out->assign(k, v[0]);
    if (v.size() == k) {
        *out = v;
    }
    return Status::Ok();
}

inline Status to_pool_params(const char *fn, size_t k, double norm_type,
                             const std::vector<int64_t> &kernel_size,
                             const std::vector<int64_t> &stride, bool ceil_mode,
                             PoolParams *params) {
    if (!(norm_type > 0) || std::isinf(norm_type)) {
        return invalid("norm_type = " + adapter_text::number(norm_type) +
                       " is not supported: lpnorm pools with a finite norm_type > 0 (" + fn + ")");
    }
    Status s = expand(fn, "kernel_size", kernel_size, k, &params->kernel);
    const std::vector<int64_t> &strides = stride.empty() ? kernel_size : stride;
    if (s.ok()) s = expand(fn, "stride", strides, k, &params->strides);
    if (!s.ok()) {
        return s;
    }
    params->ceil_mode = ceil_mode;
    params->p = norm_type;
    params->mode = PoolMode::signed_pow;   // input.pow(norm_type), no abs
    params->overhang = Overhang::rescale;  // avg_pool's divisor times prod(kernel_size)
    return Status::Ok();
}

// The (1, C, D...) view of an unbatched (C, D...) tensor.
inline Tensor with_batch_dim(const Tensor &t) {
    Tensor b = t;
    b.rank = t.rank + 1;
    b.shape[0] = 1;
    b.strides[0] = t.shape[0] * t.strides[0];  // any stride would do: the dim has size 1
    for (int i = 0; i < t.rank; i++) {
        b.shape[i + 1] = t.shape[i];
        b.strides[i + 1] = t.strides[i];
    }
    return b;
}

// Whether `input` has lp_pool*d's batched rank (N, C and k spatial dims), or the error when it
// has neither that nor the unbatched one (C and k spatial dims).
inline Status batched_rank(const char *fn, size_t k, const Tensor &input, bool *batched) {
    const int rank = static_cast<int>(k) + 2;
    *batched = input.rank == rank;
    if (*batched || input.rank == rank - 1) {
        return Status::Ok();
    }
    return invalid("input.rank = " + std::to_string(input.rank) + ": " + fn + " expects " +
                   std::to_string(rank) + " dims (N, C and " + std::to_string(k) + " spatial) or " +
                   std::to_string(rank - 1) + " unbatched (C and " + std::to_string(k) +
                   " spatial)");
}

// An unbatched tensor must keep the input's rank.
inline Status same_rank(const Tensor &t, const char *name, const Tensor &input, const char *fn) {
    if (t.rank == input.rank) {
        return Status::Ok();
    }
    return Status(ErrorCode::shape_mismatch,
                  std::string(name) + ".rank = " + std::to_string(t.rank) +
                      " differs from input.rank = " + std::to_string(input.rank) + " (unbatched " +
                      fn + ")");
}

inline Status lp_pool(const char *fn, size_t k, const Tensor &input, const Tensor &output,
                      double norm_type, const std::vector<int64_t> &kernel_size,
                      const std::vector<int64_t> &stride, bool ceil_mode) {
    PoolParams params;
    bool batched = false;
    Status s = to_pool_params(fn, k, norm_type, kernel_size, stride, ceil_mode, &params);
    if (s.ok()) s = batched_rank(fn, k, input, &batched);
    if (!s.ok() || batched) {
        return s.ok() ? pool(input, output, params) : s;
    }
    s = same_rank(output, "output", input, fn);
    return s.ok() ? pool(with_batch_dim(input), with_batch_dim(output), params) : s;
}

inline Status lp_pool_backward(const char *fn, size_t k, const Tensor &input, const Tensor &output,
                               const Tensor &output_grad, const Tensor &input_grad,
                               double norm_type, const std::vector<int64_t> &kernel_size,
                               const std::vector<int64_t> &stride, bool ceil_mode) {
    PoolParams params;
    bool batched = false;
    Status s = to_pool_params(fn, k, norm_type, kernel_size, stride, ceil_mode, &params);
    if (s.ok()) s = batched_rank(fn, k, input, &batched);
    if (!s.ok() || batched) {
        return s.ok() ? pool_backward(input, output, output_grad, input_grad, params) : s;
    }
    s = same_rank(output, "output", input, fn);
    if (s.ok()) s = same_rank(output_grad, "output_grad", input, fn);
    if (s.ok()) s = same_rank(input_grad, "input_grad", input, fn);
    return s.ok() ? pool_backward(with_batch_dim(input), with_batch_dim(output),
                                  with_batch_dim(output_grad), with_batch_dim(input_grad), params)
                  : s;
}

inline bool is_empty_dim(const Tensor &t, int64_t d) {
    return d >= -t.rank && d < t.rank && t.shape[d < 0 ? d + t.rank : d] == 0;
}

// torch's checks, in its order: floating dtype; lpnorm's ord set; an identity for the
// reduction when it is empty (ord = inf or -inf has none).
inline Status check_vector_norm(const Tensor &input, double ord, const std::vector<int64_t> &dim) {
    if (!is_floating(input.dtype)) {
        return invalid(std::string("linalg.vector_norm: Expected a floating point or complex ") +
                       "tensor as input. Got " + dtype_name(input.dtype));
    }
    const std::string o = adapter_text::number(ord);
    if (std::isnan(ord) || (ord < 0 && !std::isinf(ord))) {
        return invalid("linalg.vector_norm: ord = " + o +
                       " is not supported (lpnorm computes ord > 0, 0, inf and -inf)");
    }
    if (!std::isinf(ord) || input.rank < 0 || input.rank > kMaxRank) {
        return Status::Ok();
    }
    if (dim.empty() && input.num_elements() == 0) {
        return invalid("linalg.vector_norm cannot compute the " + o +
                       " norm on an empty tensor because the operation does not have an identity");
    }
    for (int64_t d : dim) {
        if (is_empty_dim(input, d)) {
            return invalid("linalg.vector_norm cannot compute the " + o +
                           " norm on the dimension " + std::to_string(d) +
                           " because this dimension is empty and the operation does not have an "
                           "identity");
        }
    }
    return Status::Ok();
}

// torch accepts dim = 0 or -1 for a 0-d tensor and reduces the tensor itself.
inline std::vector<int64_t> axes_of(const Tensor &input, const std::vector<int64_t> &dim) {
    const bool scalar_dim = input.rank == 0 && dim.size() == 1 && (dim[0] == 0 || dim[0] == -1);
    return scalar_dim ? std::vector<int64_t>{} : dim;
}

// linalg.vector_norm's attributes as lpnorm's: an empty dim reduces every dim.
inline ReduceParams vector_norm_params(const Tensor &input, double ord,
                                       const std::vector<int64_t> &dim, bool keepdim) {
    ReduceParams params;
    params.axes = axes_of(input, dim);
    params.p = ord;
    params.keep_dims = keepdim;
    params.empty_axes = EmptyAxes::reduce_all;
    return params;
}

// F.normalize's dims: input.norm(p, dim) reduces every dim for an empty dim list, and a 0-d
// tensor itself for dim 0 or -1.
inline std::vector<int64_t> normalize_axes(const Tensor &input, const std::vector<int64_t> &dim) {
    if (!dim.empty()) {
        return axes_of(input, dim);
    }
    std::vector<int64_t> all;
    for (int i = 0; i < input.rank && i < kMaxRank; i++) all.push_back(i);
    return all;
}

// F.normalize's attributes as lpnorm's (eps_mode norm_max), or torch's refusal of p.
inline Status normalize_params(const Tensor &input, double p, const std::vector<int64_t> &dim,
                               double eps, NormalizeParams *params) {
    if (!(p > 0)) {  // 0, negative, -inf or NaN
        return invalid("p = " + adapter_text::number(p) +
                       " is not supported: lpnorm normalizes with p > 0 or inf (normalize)");
    }
    params->axes = normalize_axes(input, dim);
    params->p = p;
    params->eps = eps;
    params->eps_mode = EpsMode::norm_max;
    return Status::Ok();
}

}  // namespace detail

// torch.nn.functional.lp_pool1d/2d/3d(input, norm_type, kernel_size, stride, ceil_mode).
//
// out = (sign(s) * relu(|s|) * prod(kernel_size))^(1/norm_type), s = avg_pool(input^norm_type)
// without padding: x^p without |.| and the root, each as IEEE pow (PoolMode::signed_pow), and
// a ceil_mode window
// that runs past the input has its in-bounds sum scaled by K / n (Overhang::rescale).
// input: (N, C, spatial...) or unbatched (C, spatial...), output the same rank. kernel_size and
// stride: one value for every spatial dim or one per dim; an empty stride means kernel_size.
// norm_type: finite and > 0 (torch also runs other values; lpnorm does not).
inline Status lp_pool1d(const Tensor &input, const Tensor &output, double norm_type,
                        const std::vector<int64_t> &kernel_size,
                        const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool("lp_pool1d", 1, input, output, norm_type, kernel_size, stride,
                           ceil_mode);
}

inline Status lp_pool2d(const Tensor &input, const Tensor &output, double norm_type,
                        const std::vector<int64_t> &kernel_size,
                        const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool("lp_pool2d", 2, input, output, norm_type, kernel_size, stride,
                           ceil_mode);
}

inline Status lp_pool3d(const Tensor &input, const Tensor &output, double norm_type,
                        const std::vector<int64_t> &kernel_size,
                        const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool("lp_pool3d", 3, input, output, norm_type, kernel_size, stride,
                           ceil_mode);
}

// The gradients of lp_pool1d/2d/3d: input_grad from the forward's input, its output and
// output_grad (the gradient of the output), as torch's autograd of its lp_pool formula gives it
// (lpnorm::pool_backward, signed mode, rescaled overhang), except where a window's output is 0
// (torch: NaN; here that window contributes 0). The same checks as lp_pool*d.
inline Status lp_pool1d_backward(const Tensor &input, const Tensor &output,
                                 const Tensor &output_grad, const Tensor &input_grad,
                                 double norm_type, const std::vector<int64_t> &kernel_size,
                                 const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool_backward("lp_pool1d", 1, input, output, output_grad, input_grad,
                                    norm_type, kernel_size, stride, ceil_mode);
}

inline Status lp_pool2d_backward(const Tensor &input, const Tensor &output,
                                 const Tensor &output_grad, const Tensor &input_grad,
                                 double norm_type, const std::vector<int64_t> &kernel_size,
                                 const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool_backward("lp_pool2d", 2, input, output, output_grad, input_grad,
                                    norm_type, kernel_size, stride, ceil_mode);
}

inline Status lp_pool3d_backward(const Tensor &input, const Tensor &output,
                                 const Tensor &output_grad, const Tensor &input_grad,
                                 double norm_type, const std::vector<int64_t> &kernel_size,
                                 const std::vector<int64_t> &stride = {}, bool ceil_mode = false) {
    return detail::lp_pool_backward("lp_pool3d", 3, input, output, output_grad, input_grad,
                                    norm_type, kernel_size, stride, ceil_mode);
}

// torch.linalg.vector_norm(input, ord, dim, keepdim) without the dtype argument: the output has
// the input's dtype (float32, float64, float16 or bfloat16).
//
// ord: > 0, inf (max |x|), -inf (min |x|) or 0 (count of non-zeros); torch's negative ords are
// not supported. dim: empty means every dim (torch's None or ()). Reductions over an empty set
// give 0, except for ord = inf or -inf, which are errors as in torch.
inline Status vector_norm(const Tensor &input, const Tensor &output, double ord = 2,
                          const std::vector<int64_t> &dim = {}, bool keepdim = false) {
    Status s = detail::check_vector_norm(input, ord, dim);
    if (!s.ok()) {
        return s;
    }
    return reduce(input, output, detail::vector_norm_params(input, ord, dim, keepdim));
}

// The gradient of vector_norm: input_grad from the forward's input, its output and output_grad
// (the gradient of the output, of the output's shape), as torch's autograd of
// linalg.vector_norm gives it (lpnorm::reduce_backward). The same checks as vector_norm.
inline Status vector_norm_backward(const Tensor &input, const Tensor &output,
                                   const Tensor &output_grad, const Tensor &input_grad,
                                   double ord = 2, const std::vector<int64_t> &dim = {},
                                   bool keepdim = false) {
    Status s = detail::check_vector_norm(input, ord, dim);
    if (!s.ok()) {
        return s;
    }
    return reduce_backward(input, output, output_grad, input_grad,
                           detail::vector_norm_params(input, ord, dim, keepdim));
}

// torch.nn.functional.normalize(input, p, dim, eps) without `out`: input / max(||input||_p, eps)
// along `dim` (EpsMode::norm_max), the input's shape and dtype (float32, float64, float16 or
// bfloat16), dense.
//
// p: > 0 or inf (torch also takes 0, negative p and -inf; lpnorm does not). dim: one dim or
// several (torch's int or tuple); empty means every dim. eps: finite and >= 0. An all-zero
// group gives zeros, NaN with eps = 0 (0 / 0, as torch). For float16 inputs eps is taken in
// float32: torch rounds eps = 1e-12 to 0 in float16 and gives NaN on an all-zero group, lpnorm
// gives zeros.
inline Status normalize(const Tensor &input, const Tensor &output, double p = 2.0,
                        const std::vector<int64_t> &dim = {1}, double eps = 1e-12) {
    NormalizeParams params;
    Status s = detail::normalize_params(input, p, dim, eps, &params);
    return s.ok() ? lpnorm::normalize(input, output, params) : s;
}

// The gradient of normalize: input_grad from the input and output_grad (the input's shape), as
// torch's autograd of F.normalize gives it (lpnorm::normalize_backward). The same checks.
inline Status normalize_backward(const Tensor &input, const Tensor &output_grad,
                                 const Tensor &input_grad, double p = 2.0,
                                 const std::vector<int64_t> &dim = {1}, double eps = 1e-12) {
    NormalizeParams params;
    Status s = detail::normalize_params(input, p, dim, eps, &params);
    return s.ok() ? lpnorm::normalize_backward(input, output_grad, input_grad, params) : s;
}

}  // namespace lpnorm::torch
