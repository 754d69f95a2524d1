// Which instruction sets this CPU and its OS can run: the x86 levels, or NEON on ARM64.
#pragma once

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// True when the CPU reports every feature the Halide target of `isa` uses and (x86) the OS
// saves the matching register state (XCR0). Always false for another architecture's ISA.
bool cpu_can_run(Isa isa);

// True when `isa`'s kernels were tuned for this kind of CPU: avx512_zen5 only on AMD family
// 1Ah (Zen 5) and later, which it can run anywhere avx512 runs; every other ISA everywhere.
// Auto-detection takes only these.
bool cpu_is_tuned_for(Isa isa);

}  // namespace lpnorm::rt
