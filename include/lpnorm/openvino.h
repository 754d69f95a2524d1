// OpenVINO ReduceL1-4 / ReduceL2-4 (and ReduceLp with p in {1, 2}) mapped onto lpnorm::reduce.
// Attribute mapping only: the arithmetic is lpnorm::reduce's.
#pragma once

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

}  // namespace lpnorm::openvino
