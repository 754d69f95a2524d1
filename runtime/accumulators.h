// Accumulators of the partial reduction kernels (generators/kernel_abi.h): their dtype, how two
// are combined, and how one is finished into the norm of the input dtype. The finish mirrors
// the kernels' own (generators/reduce_algorithm.cpp): root in the accumulator type, one
// rounding to a float output, truncation toward zero and saturation to an integer one.
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"
#include "registry.h"

namespace lpnorm::rt {

// float32 (sums of float16/bfloat16), float64 (other sums), uint<bits of input> (extremes).
DType partial_dtype(Reducer reducer, DType input);

// acc[i] = combine(acc[i], more[i]) for i < n: + for sums (float accumulators), unsigned min
// for extreme keys (unsigned ones).
void combine_partials(DType acc_dtype, void *acc, const void *more, int64_t n);

// The value of one element of dtype `d` (int64/uint64 beyond 2^53 rounded).
double load_as_double(DType d, const void *data);

// Writes norm `v` to `out` as the kernels do: one rounding to a float dtype (any sign, NaN),
// truncation toward zero and saturation to an integer one.
void store_norm(DType output, double v, void *out);

// Writes the norm of accumulator `acc` (of partial_dtype(reducer, output)) to `out`.
void finish_partial(Reducer reducer, int p_kind, double p, DType output, const void *acc,
                    void *out);

}  // namespace lpnorm::rt
