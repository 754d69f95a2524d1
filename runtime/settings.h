// Process-wide settings: the ISA override, the thread count, and test hooks.
#pragma once

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// -1 when no pattern is forced.
int forced_pattern();
void set_last_pattern(int pattern);

}  // namespace lpnorm::rt
