// Hooks for tests and benchmarks only: not part of the installed API.
#pragma once

#include <cstdint>

namespace lpnorm::testing {

// Names of the reduction patterns, in registry order.
enum class Pattern : int { all = 0, inner = 1, outer = 2, middle = 3, general = 4, automatic = -1 };

// Routes every following reduction (on all threads) through `pattern` when that pattern can
// express it, or through the general kernel when forced to Pattern::general.
// Pattern::automatic restores normal selection.
void force_pattern(Pattern pattern);

// The pattern the last reduce() call on this thread dispatched to (automatic when no kernel ran,
// e.g. identity copies and empty outputs).
Pattern last_pattern();

// Makes reductions split (split_reduce.h) as if the kernels indexed only `index_limit`
// elements per dimension and stride, cutting long axes into chunks of `chunk` and holding at
// most `max_accumulators` partial sums at once, so that small tensors exercise the split of
// huge ones (chunk 0: index_limit / 2; max_accumulators 0: the real 2^22). index_limit = 0
// restores the real limits (2^31 - 1, 2^20, 2^22).
void set_split_limits(int64_t index_limit, int64_t chunk = 0, int64_t max_accumulators = 0);

// How many kernel calls the last reduce() or pool() on this thread that ran kernels made (1
// unless it was split).
int64_t last_kernel_calls();

// The symbol of the kernel the last reduce() or pool() on this thread called last ("" when
// none ran).
const char *last_kernel();

// Turns the range check after the kernels (runtime/range_repair.h) off (false) or back on, for
// every thread: benchmarks time the kernels alone beside the full call with it.
void set_range_checks(bool on);

// Whether the last pool() on this thread scanned its output for range errors (float32 calls
// only after a watched kernel raised the overflow or underflow flag).
bool last_pool_scanned();

}  // namespace lpnorm::testing
