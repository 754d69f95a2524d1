// Reference Lp-norm reduction for the tests, written from the spec texts and the contract in
// lpnorm.h, independent of the kernels and of Halide. Everything is computed in long double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "lpnorm/tensor.h"

namespace lpnorm::ref {

// ---- Scalars -------------------------------------------------------------------------------

// IEEE binary16 and bfloat16 bit patterns <-> values (round to nearest even, with subnormals,
// overflow to inf, NaN kept NaN).
uint16_t half_bits(long double value);
long double half_value(uint16_t bits);
uint16_t bfloat16_bits(long double value);
long double bfloat16_value(uint16_t bits);

// The value of `v` once stored in `dtype` the way the library must store a result:
// floating types round to nearest (ties to even) in that type; integer types truncate toward
// zero, then saturate to the type's range (NaN gives 0).
long double round_to_dtype(DType dtype, long double v);

// Element of `dtype` at `ptr` as long double (exact for every dtype on x86-64).
long double load(DType dtype, const void *ptr);
// Stores round_to_dtype(dtype, v) at `ptr`.
void store(DType dtype, void *ptr, long double v);

// ---- Reduction -----------------------------------------------------------------------------

// One expected output element: the exact value (before rounding to the output dtype) and what
// the tolerance needs to know about how it was formed.
struct Value {
    long double value = 0;    // exact real result, NaN or +inf
    int64_t n = 0;            // number of reduced elements (terms summed)
    long double max_log = 0;  // max |ln |x|| over the non-zero finite reduced elements
    bool exact = false;       // a copy or |x| (identity / elementwise policies): no arithmetic
    // Pooling only (pool_reference.h); the reduction leaves them at their defaults.
    long double sum = 0;      // the window sum before the root, rescale applied (signed)
    long double abs_sum = 0;  // sum of |term| over the window, rescale applied
    long double scale = 1;    // the overhang factor K / n applied to the sum (1: none)
};

struct Result {
    bool ok = false;
    std::string error;           // why the request is invalid, when !ok
    std::vector<int64_t> shape;  // output shape
    std::vector<Value> values;   // dense row-major over `shape`
};

// Which dims of `shape` `params` reduces (the empty-axes policy reduce_all applied), or an
// error (same rules as lpnorm.h).
bool reduced_dims(const std::vector<int64_t> &shape, const ReduceParams &params,
                  std::vector<bool> *reduced, std::string *error);

// The output shape for `input_shape` under `params`, or an error (same rules as lpnorm.h).
bool output_shape(const std::vector<int64_t> &input_shape, const ReduceParams &params,
                  std::vector<int64_t> *shape, std::string *error);

// Expected output of lpnorm::reduce(input, output, params).
Result reduce(const Tensor &input, const ReduceParams &params);

// ---- Tolerance -----------------------------------------------------------------------------

// The closed range [lo, hi] (in output-dtype values) that a correct kernel may return for
// `expected`, derived in reduce_reference.cpp. `nan` means only NaN is correct.
struct Range {
    long double lo = 0, hi = 0;
    bool nan = false;
};
// `float32_sums`: float32 accumulates in float32 too (the D3D12 kernels). `float32_blocks`:
// float32 p = 1, 2, 3 may sum in float32 blocks (the CPU's inner kernels; see the derivation).
Range allowed_range(DType dtype, double p, const Value &expected, bool float32_sums = false,
                    bool float32_blocks = false);

// True when `got` (an output element read with load()) is in allowed_range().
bool matches(DType dtype, double p, const Value &expected, long double got,
             bool float32_sums = false, bool float32_blocks = false);

}  // namespace lpnorm::ref
