// Reference Lp pooling for the tests, written from the spec texts and the contract in lpnorm.h,
// independent of the kernels and of Halide. Everything is computed in long double; the scalar
// helpers (load, round_to_dtype, ...) and the Value/Result structs are the reduction's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "lpnorm/tensor.h"
#include "reference/reduce_reference.h"

namespace lpnorm::ref {

// The resolved window geometry of every spatial dim (pads after auto_pad, output sizes), or
// false with *error naming the argument and its value. Malformed `pads` are rejected whatever
// auto_pad is; well-formed ones are ignored unless auto_pad is notset.
bool pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                   std::vector<PoolAxis> *axes, std::string *error);

// N, C, then the output size of each spatial dim; empty (with *error set) when invalid.
std::vector<int64_t> pool_output_shape_ref(const std::vector<int64_t> &input_shape,
                                           const PoolParams &params, std::string *error);

// Expected output of lpnorm::pool(input, output, params). Each Value holds the exact result,
// n = the number of in-bounds taps summed, max_log over them, and the window sum before the
// root (sum, abs_sum, scale) that pool_allowed_range() needs.
Result pool(const Tensor &input, const PoolParams &params);

// What a correct kernel may return for one output element, derived in pool_reference.cpp:
// the closed range [lo, hi] (in output-dtype values) when `range`, plus the listed specials.
struct PoolRange {
    bool range = true;
    long double lo = 0, hi = 0;
    bool nan = false;      // NaN is correct
    bool pos_inf = false;  // +inf is correct (a float32 accumulator may overflow)
    bool neg_inf = false;  // -inf is correct (signed mode, a float32 accumulator may overflow)
};
PoolRange pool_allowed_range(DType dtype, const PoolParams &params, const Value &expected);

// True when `got` (an output element read with load()) is allowed by pool_allowed_range().
bool pool_matches(DType dtype, const PoolParams &params, const Value &expected, long double got);

}  // namespace lpnorm::ref
