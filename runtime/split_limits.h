// How far one kernel call can index, and how splits of larger tensors are sized. Tests lower
// the limits (testing::set_split_limits) so that small tensors take the split paths.
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

struct SplitLimits {
    int64_t index;         // largest extent or |stride| a kernel call takes (2^31 - 1)
    int64_t chunk;         // length of the pieces a longer axis is cut into, and the longest
                           // kept or pooled axis one call takes (2^20)
    int64_t accumulators;  // most partial sums a split reduction holds at once (2^22)
};

// The limits of a call on `backend`. GPU kernels keep no per-call row temporaries, so on a GPU
// backend only what they cannot index splits (chunk = index).
SplitLimits current_split_limits(Backend backend);

// Elements [start, start + length) of `t` along `axis`.
Tensor slice_axis(const Tensor &t, int axis, int64_t start, int64_t length);

// Counts kernel calls per thread for testing::last_kernel_calls(), and keeps the last one's
// symbol for testing::last_kernel().
void reset_kernel_calls();
void note_kernel_call(const char *symbol);

}  // namespace lpnorm::rt
