// OpenVINO ReduceL1-4 / ReduceL2-4 (and ReduceLp with p in {1, 2}) mapped onto lpnorm::reduce,
// and NormalizeL2-1 mapped onto lpnorm::normalize. Attribute mapping only: the arithmetic is
// lpnorm's.
#pragma once

#include <cctype>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::openvino {

namespace detail {

inline Status run(double p, const Tensor &data, const std::vector<int64_t> &axes,
                  const Tensor &output, bool keep_dims) {
    ReduceParams params;
    params.axes = axes;
    params.p = p;
    params.keep_dims = keep_dims;
    params.empty_axes = EmptyAxes::identity;  // "an empty list ... is an identity"
    return reduce(data, output, params);
}

}  // namespace detail

// ReduceL1-4: output = sum(|data|) over `axes` (unique, in [-r, r-1]; empty = identity).
inline Status reduce_l1(const Tensor &data, const std::vector<int64_t> &axes, const Tensor &output,
                        bool keep_dims = false) {
    return detail::run(1.0, data, axes, output, keep_dims);
}

// ReduceL2-4: output = sqrt(sum(data^2)) over `axes`.
inline Status reduce_l2(const Tensor &data, const std::vector<int64_t> &axes, const Tensor &output,
                        bool keep_dims = false) {
    return detail::run(2.0, data, axes, output, keep_dims);
}

// ReduceLp (the draft that became ReduceL1-4/ReduceL2-4): p must be 1 or 2.
inline Status reduce_lp(const Tensor &data, const std::vector<int64_t> &axes, int64_t p,
                        const Tensor &output, bool keep_dims = false) {
    if (p != 1 && p != 2) {
        return Status(ErrorCode::invalid_argument,
                      "p = " + std::to_string(p) + " is not 1 or 2 (ReduceLp accepts only those)");
    }
    return detail::run(double(p), data, axes, output, keep_dims);
}

// Output shape of ReduceL1/L2/Lp.
inline Status reduce_output_shape(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &axes, bool keep_dims,
                                  std::vector<int64_t> *out) {
    ReduceParams params;
    params.axes = axes;
    params.keep_dims = keep_dims;
    params.empty_axes = EmptyAxes::identity;
    return lpnorm::reduce_output_shape(shape, params, out);
}

// ---- NormalizeL2-1 (ov::op::v0::NormalizeL2) ----------------------------------------------
//
// output = data / sqrt(eps_mode(sum over `axes` of data^2, eps)): eps_mode "add" is
// EpsMode::sum_add, x / sqrt(S + eps); "max" is EpsMode::sum_max, x / sqrt(max(S, eps)).
// axes: unique, in [-r, r-1]; all axes give one norm for the whole tensor. eps: the spec asks for
// a positive value; lpnorm takes any finite eps >= 0 (OpenVINO does not check it), and eps = 0
// gives NaN (0 / 0) for an all-zero group. data: float32, float64, float16 or bfloat16.
//
// Empty axes: the specification's particular case 1 (normalize-l2-1.rst): "each input element
// is divided by itself", giving 1 for every non-zero element (negative, NaN and inf included)
// and 0 for a zero, whatever eps and eps_mode are. OpenVINO's reference
// (reference/normalize_l2.hpp) does the same, and so does its CPU plugin (2026.4) at rank >= 2;
// at rank 0 and 1 the plugin runs its decomposition instead, x / sqrt(eps_mode(x^2, eps)).
// That is the count of non-zeros (p = 0) of a one-element group, which lpnorm::reduce computes
// over a size-1 dim: a new trailing one, or at rank 8 an existing one (a rank-8 input without
// one is refused as `unsupported`).

namespace detail {

inline constexpr const char kNormalizeL2[] = "NormalizeL2-1";

// eps_mode as OpenVINO reads it: "add" or "max", in any letter case.
inline Status to_normalize_params(DType dtype, const std::vector<int64_t> &axes, float eps,
                                  const std::string &eps_mode, NormalizeParams *params) {
    std::string mode;
    for (char c : eps_mode) mode += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (mode != "add" && mode != "max") {
        return Status(ErrorCode::invalid_argument,
                      "eps_mode = \"" + eps_mode + "\" is not add or max (" + kNormalizeL2 + ")");
    }
    if (!is_floating(dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("data.dtype = ") + dtype_name(dtype) +
                          " is not a floating-point type (" + kNormalizeL2 + ")");
    }
    params->axes = axes;
    params->p = 2.0;
    params->eps = eps;
    params->eps_mode = mode == "add" ? EpsMode::sum_add : EpsMode::sum_max;
    return Status::Ok();
}

// The size-1 dim that particular case 1 reduces over, for data of `shape`: `rank` for a new
// trailing dim (rank < 8), else the last existing size-1 dim; an error when there is neither.
inline Status unit_axis(const std::vector<int64_t> &shape, int64_t *axis) {
    if (shape.size() < static_cast<size_t>(kMaxRank)) {
        *axis = static_cast<int64_t>(shape.size());
        return Status::Ok();
    }
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 1) {
            *axis = static_cast<int64_t>(i);
            return Status::Ok();
        }
    }
    return Status(ErrorCode::unsupported,
                  "axes = [] with data.rank = " + std::to_string(shape.size()) +
                      " and no dim of size 1: lpnorm divides each element by itself as a "
                      "reduction over one more dim, beyond its rank limit of " +
                      std::to_string(kMaxRank) + " (" + kNormalizeL2 + ")");
}

// Particular case 1: y = 1 where x != 0, 0 where x == 0.
inline Status divide_each_by_itself(const Tensor &data, const Tensor &output,
                                    const NormalizeParams &params) {
    std::vector<int64_t> shape;
    Status s = normalize_output_shape(data.shape_vector(), params, &shape);  // eps, as with axes
    ReduceParams count;
    count.p = 0.0;
    if (!s.ok() || data.rank < 0 || data.rank > kMaxRank) {
        return s.ok() ? reduce(data, output, count) : s;  // reduce names the bad rank
    }
    int64_t axis = 0;
    s = unit_axis(shape, &axis);
    if (!s.ok()) {
        return s;
    }
    Tensor x = data;
    if (axis == data.rank) {
        x.shape[axis] = 1;
        x.strides[axis] = 1;  // any stride would do: the dim has size 1
        x.rank = data.rank + 1;
    }
    count.axes = {axis};
    count.keep_dims = axis < data.rank;
    return reduce(x, output, count);
}

}  // namespace detail

// NormalizeL2-1: output = data / sqrt(eps_mode(sum(data^2) over `axes`, eps)), the input's shape
// and dtype, dense. eps_mode: "add" or "max" (both attributes are required, as in the spec).
inline Status normalize_l2(const Tensor &data, const std::vector<int64_t> &axes, float eps,
                           const std::string &eps_mode, const Tensor &output) {
    NormalizeParams params;
    Status s = detail::to_normalize_params(data.dtype, axes, eps, eps_mode, &params);
    if (!s.ok()) {
        return s;
    }
    return axes.empty() ? detail::divide_each_by_itself(data, output, params)
                        : normalize(data, output, params);
}

// Output shape of NormalizeL2-1 (the input's), or the error normalize_l2 would report for the
// attributes and the shape.
inline Status normalize_l2_output_shape(const std::vector<int64_t> &shape,
                                        const std::vector<int64_t> &axes, float eps,
                                        const std::string &eps_mode, std::vector<int64_t> *out) {
    NormalizeParams params;
    std::vector<int64_t> result;
    int64_t axis = 0;
    Status s = detail::to_normalize_params(DType::float32, axes, eps, eps_mode, &params);
    if (s.ok()) s = lpnorm::normalize_output_shape(shape, params, &result);
    if (s.ok() && axes.empty()) s = detail::unit_axis(shape, &axis);
    if (s.ok()) *out = result;
    return s;
}

}  // namespace lpnorm::openvino
