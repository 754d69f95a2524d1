// Which x86 instruction sets this CPU and its OS can run.
#pragma once

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// True when the CPU reports every feature the Halide target of `isa` uses and the OS saves
// the matching register state (XCR0).
bool cpu_can_run(Isa isa);

}  // namespace lpnorm::rt
