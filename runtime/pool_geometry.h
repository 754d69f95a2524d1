// Pooling attributes -> the window geometry of each spatial dim (pads after auto_pad, output
// sizes), with a named error for every bad attribute.
#pragma once

#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// Checks `params` against `input_shape` (N, C, D1..Dk) and resolves every spatial dim.
Status resolve_pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                             std::vector<PoolAxis> *axes);

}  // namespace lpnorm::rt
