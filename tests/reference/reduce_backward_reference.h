// Reference gradient of the Lp-norm reduction for the tests, written from the formulas of
// lpnorm::reduce_backward (lpnorm.h), which are PyTorch's autograd of linalg.vector_norm,
// independent of the kernels and of Halide, in long double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ref {

// One expected element of dx and the relative error its computation may add.
struct GradientValue {
    long double value = 0;  // the exact dx from the given x, y and dy (NaN where it is NaN)
    long double rel = 0;    // the compute type's roundings, relative to |value|
};

struct GradientResult {
    bool ok = false;
    std::string error;                  // why the request is invalid, when !ok
    std::vector<GradientValue> values;  // dense row-major over the input's shape
};

// dx for the forward's input x, its output y and the gradient dy of y (any strides).
GradientResult reduce_backward(const Tensor &x, const Tensor &y, const Tensor &dy,
                               const ReduceParams &params);

// True when `got` is `expected` in `dtype` within its relative bound and the rounding to
// dtype (NaN for NaN, infinities and zeros exactly).
bool gradient_matches(DType dtype, const GradientValue &expected, long double got);

}  // namespace lpnorm::ref
