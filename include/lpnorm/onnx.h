// ONNX ReduceL1 / ReduceL2 (opsets 1, 11, 13, 18) mapped onto lpnorm::reduce, LpPool
// (opsets 1, 2, 11, 18, 22) and GlobalLpPool (opsets 1, 2, 22) mapped onto lpnorm::pool, and
// LpNormalization (opsets 1, 22) mapped onto lpnorm::normalize. Attribute mapping only: the
// arithmetic is lpnorm's.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lpnorm/detail/adapter_text.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::onnx {

struct ReduceAttributes {
    // The model's opset for the ai.onnx domain. Versions in between behave as the latest
    // version at or below them: 1-10 as 1, 11-12 as 11, 13-17 as 13, 18+ as 18.
    int64_t opset = 18;
    // Opsets 1-13: the `axes` attribute; opset 18: the optional `axes` input.
    // Absent or empty means all axes, except under noop_with_empty_axes = 1 (opset 18).
    std::vector<int64_t> axes;
    int64_t keepdims = 1;
    // Opset 18 only: with no axes, return |x| instead of reducing everything.
    int64_t noop_with_empty_axes = 0;
};

namespace detail {

inline int version_of(int64_t opset) {
    return opset >= 18 ? 18 : opset >= 13 ? 13 : opset >= 11 ? 11 : 1;
}

inline Status to_params(const char *op, DType dtype, const ReduceAttributes &a, double p,
                        ReduceParams *params) {
    const std::string name = std::string(op) + "-" + std::to_string(version_of(a.opset));
    if (a.opset < 1) {
        return Status(ErrorCode::invalid_argument,
                      "opset = " + std::to_string(a.opset) + " is not an ONNX opset (>= 1)");
    }
    if (a.keepdims != 0 && a.keepdims != 1) {
        return Status(ErrorCode::invalid_argument,
                      "keepdims = " + std::to_string(a.keepdims) + " must be 0 or 1 for " + name);
    }
    if (a.noop_with_empty_axes != 0 && a.noop_with_empty_axes != 1) {
        return Status(ErrorCode::invalid_argument,
                      "noop_with_empty_axes = " + std::to_string(a.noop_with_empty_axes) +
                          " must be 0 or 1 for " + name);
    }
    if (a.noop_with_empty_axes != 0 && a.opset < 18) {
        return Status(
            ErrorCode::invalid_argument,
            "noop_with_empty_axes = 1 is not an attribute of " + name + " (added in opset 18)");
    }
    // Type constraint T: uint32, uint64, int32, int64, float16, float, double; + bfloat16 at 13.
    const bool allowed = dtype == DType::uint32 || dtype == DType::uint64 ||
                         dtype == DType::int32 || dtype == DType::int64 ||
                         dtype == DType::float16 || dtype == DType::float32 ||
                         dtype == DType::float64 || (dtype == DType::bfloat16 && a.opset >= 13);
    if (!allowed) {
        return Status(
            ErrorCode::invalid_argument,
            std::string("data.dtype = ") + dtype_name(dtype) + " is not allowed by ONNX " + name);
    }
    params->axes = a.axes;
    params->p = p;
    params->keep_dims = a.keepdims == 1;
    params->empty_axes =
        a.noop_with_empty_axes == 1 ? EmptyAxes::elementwise : EmptyAxes::reduce_all;
    return Status::Ok();
}

inline Status run(const char *op, double p, const Tensor &data, const Tensor &reduced,
                  const ReduceAttributes &a) {
    ReduceParams params;
    Status s = to_params(op, data.dtype, a, p, &params);
    return s.ok() ? reduce(data, reduced, params) : s;
}

}  // namespace detail

// reduced = sum(|data|) over the axes.
inline Status reduce_l1(const Tensor &data, const Tensor &reduced, const ReduceAttributes &a) {
    return detail::run("ReduceL1", 1.0, data, reduced, a);
}

// reduced = sqrt(sum(data^2)) over the axes (accumulated in a wider type; see lpnorm.h).
inline Status reduce_l2(const Tensor &data, const Tensor &reduced, const ReduceAttributes &a) {
    return detail::run("ReduceL2", 2.0, data, reduced, a);
}

// Output shape of ReduceL1/ReduceL2 for `shape` and `dtype`.
inline Status reduce_output_shape(const std::vector<int64_t> &shape, DType dtype,
                                  const ReduceAttributes &a, std::vector<int64_t> *out) {
    ReduceParams params;
    Status s = detail::to_params("ReduceL1/ReduceL2", dtype, a, 2.0, &params);
    return s.ok() ? lpnorm::reduce_output_shape(shape, params, out) : s;
}

// ---- LpPool / GlobalLpPool -----------------------------------------------------------------
//
// Y = (sum over the in-bounds taps of the window of |x|^p)^(1/p): taps in the padding
// contribute 0, and a ceil_mode window that runs past the input sums its in-bounds taps
// without rescaling (ONNX Runtime, and the spec text; the ONNX reference rescales by K/n).
//
// Output size: floor((in + pad_begin + pad_end - k_eff) / stride) + 1 with
// k_eff = (kernel - 1) * dilation + 1, or the ceiling under ceil_mode, where a last window that
// would start in the end padding is dropped. That start-in-padding rule is applied for opset 18
// too, as ONNX Runtime does; ONNX's opset-18 shape inference omits it (only opset 22 has it), so
// it can report one more output per axis than lpnorm and ONNX Runtime produce. SAME_UPPER and
// SAME_LOWER pad for the dilated kernel, as ONNX shape inference does.

struct LpPoolAttributes {
    // The model's opset for the ai.onnx domain. Versions in between behave as the latest version
    // at or below them: 1 as 1, 2-10 as 2, 11-17 as 11, 18-21 as 18, 22+ as 22.
    int64_t opset = 22;
    // NOTSET (explicit pads), SAME_UPPER, SAME_LOWER or VALID. An empty string reads as NOTSET,
    // as in ONNX Runtime. With SAME_*, pads must be absent; with VALID, absent or all 0.
    std::string auto_pad = "NOTSET";
    // kernel_shape is required: 1, 2 or 3 values, so X has rank 3, 4 or 5 (lpnorm pools at most
    // 3 spatial dims; ONNX allows more). strides and dilations: absent (all 1) or one value per
    // spatial dim. pads: absent (all 0) or all begins, then all ends. dilations from opset 18.
    std::vector<int64_t> kernel_shape, strides, pads, dilations;
    // 0 or 1; from opset 18.
    int64_t ceil_mode = 0;
    // > 0. A FLOAT attribute in opset 1, an INT from opset 2 (a non-integer p is then an error).
    double p = 2;
};

// GlobalLpPool: LpPool with the window covering every spatial dim; Y has shape N, C, 1, ..., 1.
// lpnorm supports X of rank 3 to 5 (1 to 3 spatial dims, each of size >= 1).
struct GlobalLpPoolAttributes {
    // Versions 1, 2 and 22 (bfloat16 added); 2-21 behave as 2.
    int64_t opset = 2;
    // > 0. A FLOAT attribute in opset 1, an INT from opset 2.
    double p = 2;
};

namespace detail {

inline int lp_pool_version(int64_t opset) {
    return opset >= 22 ? 22 : opset >= 18 ? 18 : opset >= 11 ? 11 : opset >= 2 ? 2 : 1;
}

inline int global_lp_pool_version(int64_t opset) { return opset >= 22 ? 22 : opset >= 2 ? 2 : 1; }

inline Status invalid(const std::string &message) {
    return Status(ErrorCode::invalid_argument, message);
}

inline Status check_opset(int64_t opset) {
    if (opset < 1) {
        return invalid("opset = " + std::to_string(opset) + " is not an ONNX opset (>= 1)");
    }
    return Status::Ok();
}

// T: float16, float, double; bfloat16 from opset 22.
inline Status check_pool_dtype(DType dtype, int64_t opset, const std::string &op) {
    const bool allowed = dtype == DType::float16 || dtype == DType::float32 ||
                         dtype == DType::float64 || (dtype == DType::bfloat16 && opset >= 22);
    if (allowed) {
        return Status::Ok();
    }
    return invalid(std::string("X.dtype = ") + dtype_name(dtype) + " is not allowed by ONNX " + op +
                   (dtype == DType::bfloat16 ? " (bfloat16 added in opset 22)" : ""));
}

// p: a FLOAT in opset 1, an INT from opset 2; lpnorm pools with a finite p > 0.
inline Status check_pool_p(double p, int64_t opset, const std::string &op) {
    if (!(p > 0) || std::isinf(p)) {
        return invalid("p = " + adapter_text::number(p) + " must be a finite value > 0 for " + op);
    }
    if (opset >= 2 && p != std::floor(p)) {
        return invalid("p = " + adapter_text::number(p) +
                       " is not an integer: p is an INT attribute of " + op +
                       " (a FLOAT only in opset 1)");
    }
    return Status::Ok();
}

// dilations and ceil_mode exist from opset 18.
inline Status check_opset18_attributes(const LpPoolAttributes &a, const std::string &op) {
    if (a.opset < 18 && !a.dilations.empty()) {
        return invalid("dilations = " + adapter_text::list(a.dilations) +
                       " is not an attribute of " + op + " (added in opset 18)");
    }
    if (a.opset < 18 && a.ceil_mode != 0) {
        return invalid("ceil_mode = " + std::to_string(a.ceil_mode) + " is not an attribute of " +
                       op + " (added in opset 18)");
    }
    if (a.ceil_mode != 0 && a.ceil_mode != 1) {
        return invalid("ceil_mode = " + std::to_string(a.ceil_mode) + " must be 0 or 1 for " + op);
    }
    return Status::Ok();
}

inline Status parse_auto_pad(const std::string &s, const std::string &op, AutoPad *out) {
    if (s == "NOTSET" || s.empty()) {
        *out = AutoPad::notset;
    } else if (s == "SAME_UPPER") {
        *out = AutoPad::same_upper;
    } else if (s == "SAME_LOWER") {
        *out = AutoPad::same_lower;
    } else if (s == "VALID") {
        *out = AutoPad::valid;
    } else {
        return invalid("auto_pad = \"" + s + "\" is not NOTSET, SAME_UPPER, SAME_LOWER or VALID (" +
                       op + ")");
    }
    return Status::Ok();
}

inline Status check_kernel_shape(const std::vector<int64_t> &kernel_shape, int rank,
                                 const std::string &op) {
    const size_t k = kernel_shape.size();
    if (k == 0) {
        return invalid("kernel_shape is missing: " + op +
                       " needs the window size (the attribute is required from opset 2)");
    }
    if (k > 3) {
        return invalid("kernel_shape = " + adapter_text::list(kernel_shape) + " has " +
                       std::to_string(k) + " spatial dims; lpnorm pools 1, 2 or 3 (" + op + ")");
    }
    if (rank != static_cast<int>(k) + 2) {
        return invalid("X.rank = " + std::to_string(rank) + " does not match kernel_shape = " +
                       adapter_text::list(kernel_shape) + ": " + op + " expects N, C and " +
                       std::to_string(k) + " spatial dims (rank " + std::to_string(k + 2) + ")");
    }
    return Status::Ok();
}

// An INTS attribute: absent, or `count` values, each >= `min`.
inline Status check_ints(const char *attr, const std::vector<int64_t> &v, size_t count, int64_t min,
                         const std::vector<int64_t> &kernel_shape, const std::string &op) {
    if (!v.empty() && v.size() != count) {
        return invalid(std::string(attr) + " = " + adapter_text::list(v) + " has " +
                       std::to_string(v.size()) + " values; " + op + " with kernel_shape = " +
                       adapter_text::list(kernel_shape) + " expects " + std::to_string(count));
    }
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i] < min) {
            return invalid(std::string(attr) + "[" + std::to_string(i) +
                           "] = " + std::to_string(v[i]) + " must be >= " + std::to_string(min) +
                           " (" + op + ")");
        }
    }
    return Status::Ok();
}

// "pads cannot be used simultaneously with auto_pad": SAME_* needs them absent, VALID absent or 0.
inline Status check_pads_with_auto_pad(const LpPoolAttributes &a, AutoPad auto_pad,
                                       const std::string &op) {
    const bool all_zero =
        std::all_of(a.pads.begin(), a.pads.end(), [](int64_t v) { return v == 0; });
    if (auto_pad == AutoPad::notset || a.pads.empty() || (auto_pad == AutoPad::valid && all_zero)) {
        return Status::Ok();
    }
    return invalid("pads = " + adapter_text::list(a.pads) + " cannot be used with auto_pad = \"" +
                   a.auto_pad + "\" (" + op + ")");
}

inline Status to_pool_params(int rank, DType dtype, const LpPoolAttributes &a, PoolParams *params) {
    const std::string op = "LpPool-" + std::to_string(lp_pool_version(a.opset));
    const std::vector<int64_t> &kernel = a.kernel_shape;
    const size_t k = kernel.size();
    AutoPad auto_pad = AutoPad::notset;
    Status s = check_opset(a.opset);
    if (s.ok()) s = check_pool_dtype(dtype, a.opset, op);
    if (s.ok()) s = check_pool_p(a.p, a.opset, op);
    if (s.ok()) s = check_opset18_attributes(a, op);
    if (s.ok()) s = parse_auto_pad(a.auto_pad, op, &auto_pad);
    if (s.ok()) s = check_kernel_shape(kernel, rank, op);
    if (s.ok()) s = check_ints("kernel_shape", kernel, k, 1, kernel, op);
    if (s.ok()) s = check_ints("strides", a.strides, k, 1, kernel, op);
    if (s.ok()) s = check_ints("dilations", a.dilations, k, 1, kernel, op);
    if (s.ok()) s = check_ints("pads", a.pads, 2 * k, 0, kernel, op);
    if (s.ok()) s = check_pads_with_auto_pad(a, auto_pad, op);
    if (!s.ok()) {
        return s;
    }
    params->kernel = kernel;
    params->strides = a.strides;
    params->dilations = a.dilations;
    params->pads = a.pads;
    params->auto_pad = auto_pad;
    params->ceil_mode = a.ceil_mode == 1;
    params->p = a.p;
    params->mode = PoolMode::abs;
    params->overhang = Overhang::sum;  // ONNX Runtime: the plain in-bounds sum
    return Status::Ok();
}

// `shape` holds X's dims when `rank` is a valid rank.
inline Status to_global_pool_params(int rank, const std::vector<int64_t> &shape, DType dtype,
                                    const GlobalLpPoolAttributes &a, PoolParams *params) {
    const std::string op = "GlobalLpPool-" + std::to_string(global_lp_pool_version(a.opset));
    Status s = check_opset(a.opset);
    if (s.ok()) s = check_pool_dtype(dtype, a.opset, op);
    if (s.ok()) s = check_pool_p(a.p, a.opset, op);
    if (!s.ok()) {
        return s;
    }
    if (rank < 3 || rank > 5) {
        return invalid("X.rank = " + std::to_string(rank) + " is not 3, 4 or 5: " + op +
                       " needs N, C and spatial dims, and lpnorm pools 1, 2 or 3 of them");
    }
    for (int i = 2; i < rank; i++) {
        if (shape[i] < 1) {
            return invalid("X.shape[" + std::to_string(i) + "] = " + std::to_string(shape[i]) +
                           ": lpnorm's " + op + " needs every spatial dim >= 1");
        }
    }
    params->kernel.assign(shape.begin() + 2, shape.end());
    params->p = a.p;
    params->mode = PoolMode::abs;
    params->overhang = Overhang::sum;
    return Status::Ok();
}

}  // namespace detail

// Y = LpPool(X); Y must be dense with the shape from lp_pool_output_shape().
inline Status lp_pool(const Tensor &X, const Tensor &Y, const LpPoolAttributes &a) {
    PoolParams params;
    Status s = detail::to_pool_params(X.rank, X.dtype, a, &params);
    return s.ok() ? pool(X, Y, params) : s;
}

// Output shape of LpPool for X of `shape` and `dtype`.
inline Status lp_pool_output_shape(const std::vector<int64_t> &shape, DType dtype,
                                   const LpPoolAttributes &a, std::vector<int64_t> *out) {
    PoolParams params;
    Status s = detail::to_pool_params(static_cast<int>(shape.size()), dtype, a, &params);
    return s.ok() ? pool_output_shape(shape, params, out) : s;
}

// Y = GlobalLpPool(X), Y of shape N, C, 1, ..., 1.
inline Status global_lp_pool(const Tensor &X, const Tensor &Y, const GlobalLpPoolAttributes &a) {
    PoolParams params;
    Status s = detail::to_global_pool_params(X.rank, X.shape_vector(), X.dtype, a, &params);
    return s.ok() ? pool(X, Y, params) : s;
}

// Output shape of GlobalLpPool for X of `shape` and `dtype`.
inline Status global_lp_pool_output_shape(const std::vector<int64_t> &shape, DType dtype,
                                          const GlobalLpPoolAttributes &a,
                                          std::vector<int64_t> *out) {
    PoolParams params;
    Status s =
        detail::to_global_pool_params(static_cast<int>(shape.size()), shape, dtype, a, &params);
    return s.ok() ? pool_output_shape(shape, params, out) : s;
}

// ---- LpNormalization ------------------------------------------------------------------------
//
// output = input / Lp_norm(input, axis), and 0 where the norm is 0 (all of the axis zero): the
// spec's rule since ONNX 1.21, ONNX Runtime's since 2020. No eps. Overflow-safe (lpnorm.h).

struct LpNormalizationAttributes {
    // The model's opset: 1-21 behave as LpNormalization-1, 22+ as LpNormalization-22 (which
    // adds bfloat16).
    int64_t opset = 22;
    int64_t axis = -1;
    // 1 or 2, the orders the spec allows (an INT).
    int64_t p = 2;
};

namespace detail {

inline Status to_normalize_params(DType dtype, const LpNormalizationAttributes &a,
                                  NormalizeParams *params) {
    const std::string op = std::string("LpNormalization-") + (a.opset >= 22 ? "22" : "1");
    Status s = check_opset(a.opset);
    if (!s.ok()) return s;
    const bool allowed = dtype == DType::float16 || dtype == DType::float32 ||
                         dtype == DType::float64 || (dtype == DType::bfloat16 && a.opset >= 22);
    if (!allowed) {
        return invalid(std::string("input.dtype = ") + dtype_name(dtype) +
                       " is not a type of ONNX " + op +
                       (dtype == DType::bfloat16 ? " (bfloat16 added in opset 22)" : ""));
    }
    if (a.p != 1 && a.p != 2) {
        return invalid("p = " + std::to_string(a.p) + " is not 1 or 2, the orders ONNX " + op +
                       " allows");
    }
    params->axes = {a.axis};
    params->p = double(a.p);
    params->eps = 0;
    params->eps_mode = EpsMode::none;
    return Status::Ok();
}

}  // namespace detail

// output = LpNormalization(input): the input's shape and dtype, dense.
inline Status lp_normalization(const Tensor &input, const Tensor &output,
                               const LpNormalizationAttributes &a) {
    NormalizeParams params;
    Status s = detail::to_normalize_params(input.dtype, a, &params);
    return s.ok() ? normalize(input, output, params) : s;
}

}  // namespace lpnorm::onnx
