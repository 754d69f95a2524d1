// Reference Lp normalization for the tests, written from the formulas of lpnorm::normalize
// (lpnorm.h, EpsMode), independent of the kernels and of Halide, in long double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ref {

// One expected output element and what its tolerance depends on.
struct NormalizedValue {
    long double value = 0;    // the exact y (NaN where the contract says NaN)
    int64_t terms = 0;        // the group's size
    long double max_log = 0;  // max |ln v| over the group's non-zero finite |x|, |x| / max|x|
                              // and its norm
};

struct NormalizeResult {
    bool ok = false;
    std::string error;                    // why the request is invalid, when !ok
    std::vector<NormalizedValue> values;  // dense row-major over the input's shape
};

NormalizeResult normalize(const Tensor &input, const NormalizeParams &params);

// The spacing of floating `dtype` values around magnitude v (subnormal spacing below the normal
// range).
long double ulp_at(DType dtype, long double v);

// The largest |got - value| a correct kernel may return for `expected` in `dtype`, derived in
// normalize_reference.cpp from docs/semantics.md's bound.
long double normalize_tolerance(DType dtype, const NormalizeParams &params,
                                const NormalizedValue &expected);

// True when `got` is `expected` within normalize_tolerance() (NaN for NaN, exact zeros).
bool normalize_matches(DType dtype, const NormalizeParams &params, const NormalizedValue &expected,
                       long double got);

// One expected element of the normalization gradient and its absolute error bound from the
// compute type's roundings (before the rounding to the dtype).
struct NormalizedGradient {
    long double value = 0;  // the exact dx (NaN where it is NaN)
    long double error = 0;
};

struct NormalizeGradientResult {
    bool ok = false;
    std::string error;
    std::vector<NormalizedGradient> values;  // dense row-major over the input's shape
};

// dx of normalize(input) for the gradient `output_grad` of its output (the input's shape).
// Finite inputs.
NormalizeGradientResult normalize_gradient(const Tensor &input, const Tensor &output_grad,
                                           const NormalizeParams &params);

// True when `got` is `expected` within its error bound and half an ulp of `dtype`.
bool normalize_gradient_matches(DType dtype, const NormalizedGradient &expected, long double got);

}  // namespace lpnorm::ref
