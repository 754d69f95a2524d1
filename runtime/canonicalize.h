// Turns a validated reduction into the fewest, innermost-first dimensions and picks the
// kernel pattern: size-1 dims are dropped, adjacent dims of the same kind merged where the
// strides allow, and the order reversed once into Halide's innermost-first convention.
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"
#include "registry.h"

namespace lpnorm::rt {

struct CanonicalReduce {
    Pattern pattern = Pattern::general;
    // Kernel buffers, innermost first, in the layout the pattern's generator declares.
    int in_dims = 0;
    int64_t in_extent[kMaxRank] = {};
    int64_t in_stride[kMaxRank] = {};
    int out_dims = 0;
    int64_t out_extent[kMaxRank] = {};
    int64_t out_stride[kMaxRank] = {};
    uint32_t reduce_mask = 0;  // general pattern only: bit i set when in dim i is reduced
};

// `reduced` has bit i set for logical axis i of `input` (outermost = 0). `out_strides[i]` is
// the output's element stride along kept axis i (nullptr: the output is dense over the kept
// axes). Returns too_large when a dimension or stride does not fit 32-bit kernel indexing.
// `forced`, when >= 0, asks for that Pattern if the shape allows it (general always does).
Status canonicalize_reduce(const Tensor &input, uint32_t reduced, const int64_t *out_strides,
                           int forced, CanonicalReduce *out);

}  // namespace lpnorm::rt
