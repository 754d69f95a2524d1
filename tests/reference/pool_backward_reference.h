// Reference gradient of Lp pooling for the tests, written from the formulas of
// lpnorm::pool_backward (lpnorm.h) as a scatter over the windows (the kernels gather),
// independent of the kernels and of Halide, in long double.
#pragma once

#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "reference/normalize_reference.h"

namespace lpnorm::ref {

struct PoolGradientResult {
    bool ok = false;
    std::string error;  // why the request is invalid, when !ok
    // Dense row-major over the input's shape: each exact dx and the absolute error bound of
    // the compute type's roundings (a sum over windows whose terms may cancel), compared with
    // normalize_gradient_matches().
    std::vector<NormalizedGradient> values;
};

// dx for the forward's input x, its output y and the gradient dy of y (any strides).
PoolGradientResult pool_backward(const Tensor &x, const Tensor &y, const Tensor &dy,
                                 const PoolParams &params);

}  // namespace lpnorm::ref
