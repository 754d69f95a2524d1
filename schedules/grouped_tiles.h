// What the CPU schedules of the grouped kernels (normalization, reduction gradients) share.
#pragma once

#include <vector>

#include "Halide.h"

namespace lpnorm::sched {

// The middle pattern (k0, r, k1), extents `extent`: how many blocks each k1 is cut into so that
// the call has at least `min_blocks` blocks (1 where k1 alone gives that many).
inline Halide::Expr blocks_per_outer(const std::vector<Halide::Expr> &extent, int min_blocks) {
    return Halide::max(1, (min_blocks + extent[2] - 1) / Halide::max(extent[2], 1));
}

// The middle pattern (k0, r, k1), extents `extent`: the width in vectors of `lanes` of a block
// of groups along k0, as many as fit `tile_kib` KiB of input (elements of `element_bytes`) over
// the block's r rows, and narrow enough that the call has at least `min_blocks` blocks: a
// [1, 512, 38, 38] normalization whose slab fit one block ran on one thread (0.28 ms against a
// 0.04 ms copy).
inline Halide::Expr group_tile_vectors(const std::vector<Halide::Expr> &extent, int lanes,
                                       int element_bytes, int tile_kib, int min_blocks) {
    using Halide::Expr;
    const Expr depth = Halide::max(extent[1], 1);
    const Expr width_vectors = (extent[0] + lanes - 1) / lanes;
    const Expr blocks_along_k0 = blocks_per_outer(extent, min_blocks);
    return Halide::clamp(Halide::min((tile_kib * 1024 / element_bytes) / depth / lanes,
                                     (width_vectors + blocks_along_k0 - 1) / blocks_along_k0),
                         1, width_vectors);
}

}  // namespace lpnorm::sched
