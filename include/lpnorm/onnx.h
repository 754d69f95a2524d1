// ONNX ReduceL1 / ReduceL2 (opsets 1, 11, 13, 18) mapped onto lpnorm::reduce.
// Attribute mapping only: the arithmetic is lpnorm::reduce's.
#pragma once

#include <string>
#include <vector>

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
        return Status(ErrorCode::invalid_argument, "noop_with_empty_axes = " +
                                                       std::to_string(a.noop_with_empty_axes) +
                                                       " must be 0 or 1 for " + name);
    }
    if (a.noop_with_empty_axes != 0 && a.opset < 18) {
        return Status(ErrorCode::invalid_argument,
                      "noop_with_empty_axes = 1 is not an attribute of " + name +
                          " (added in opset 18)");
    }
    // Type constraint T: uint32, uint64, int32, int64, float16, float, double; + bfloat16 at 13.
    const bool allowed = dtype == DType::uint32 || dtype == DType::uint64 ||
                         dtype == DType::int32 || dtype == DType::int64 ||
                         dtype == DType::float16 || dtype == DType::float32 ||
                         dtype == DType::float64 || (dtype == DType::bfloat16 && a.opset >= 13);
    if (!allowed) {
        return Status(ErrorCode::invalid_argument, std::string("data.dtype = ") +
                                                       dtype_name(dtype) +
                                                       " is not allowed by ONNX " + name);
    }
    params->axes = a.axes;
    params->p = p;
    params->keep_dims = a.keepdims == 1;
    params->empty_axes = a.noop_with_empty_axes == 1 ? EmptyAxes::elementwise : EmptyAxes::reduce_all;
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
    Status s = detail::to_params("ReduceL2", dtype, a, 2.0, &params);
    return s.ok() ? lpnorm::reduce_output_shape(shape, params, out) : s;
}

}  // namespace lpnorm::onnx
