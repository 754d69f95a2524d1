/* liblpnorm_c.so has no code of its own: its functions are lpnorm_c.h's, from the static
 * library linked whole (bench/CMakeLists.txt). */
#include "lpnorm/lpnorm_c.h"
