// Hooks for tests and benchmarks only: not part of the installed API.
#pragma once

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

}  // namespace lpnorm::testing
