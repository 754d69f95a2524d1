// What a reduction's params resolve to, shared by reduce() and reduce_backward().
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"
#include "validate.h"

namespace lpnorm::rt {

// The reduced-axes mask and p after applying the empty-axes policy. `identity` is set when
// the result is a plain copy.
struct ResolvedReduce {
    uint32_t reduced = 0;
    double p = 2;
    bool identity = false;
};

// Checks the policy, p and axes for `rank`, and resolves them.
Status resolve_reduce(int rank, const ReduceParams &params, ResolvedReduce *r);

// The output shape of a reduction of `shape` over the axes of `reduced`.
Shape reduce_output_shape_of(const int64_t *shape, int rank, uint32_t reduced, bool keep_dims);

}  // namespace lpnorm::rt
