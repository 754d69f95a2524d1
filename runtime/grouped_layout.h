// The layout of the grouped kernels (normalization, reduction gradients): a call's axes split
// into the kept ones after the last grouped axis (inner), the grouped axes, and the other kept
// ones (outer), each merged into one dim of the kernels' (r, k) or (k0, r, k1) form
// (kernel_abi.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "registry.h"

namespace lpnorm::rt {

struct Grouping {
    std::vector<int> inner, reduced, outer;  // logical axes, each in logical order
};

Grouping group_axes(int rank, uint32_t mask);

// The tensors of one call: those with an element per element of the call (x, dx) and those
// with one per group (y, dy of a reduction gradient), which have x's rank with stride 0 along
// the grouped axes.
constexpr int kMaxGroupedTensors = 4;

struct GroupedPlan {
    GroupedPattern pattern = GroupedPattern::inner;
    int dims = 0;
    int64_t extent[3] = {};                      // r's extent is the group size
    int64_t stride[kMaxGroupedTensors][3] = {};  // per tensor
    bool per_group[kMaxGroupedTensors] = {};     // the tensor's extent along r is 1
    int r_dim = 0;
    int64_t group_size = 1;

    // The extents of tensor `t`'s buffer (r of extent 1 for per-group tensors).
    void extents_of(int t, int64_t *out) const;
};

// Plans a call over `shape` for `count` tensors with strides `strides[t]`, `per_group[t]`
// marking the tensors with one element per group. False when the strides do not merge into
// the kernels' form with a unit innermost stride.
bool plan_grouped(const int64_t *shape, int rank, uint32_t mask, const int64_t *const *strides,
                  const bool *per_group, int count, GroupedPlan *plan);

// `too_large` when a merged dim or stride exceeds the kernels' 32-bit indexing; `what` names
// the operation ("a normalization").
Status check_grouped_indexing(const GroupedPlan &plan, int count, const char *what);

// The axes of `rank` in (outer, grouped, inner) order: the order in which dense copies of a
// call's tensors always merge.
std::vector<int> grouped_order(int rank, uint32_t mask);

// The tensors of a call whose strides merge nowhere (grouped axes apart in memory, a strided
// innermost axis), copied densely with their axes in grouped_order: `tensors` (host memory,
// x's rank; per-group ones with extent 1 and stride 0 along the grouped axes) are copied in,
// except those marked `written`, which `run` fills and which are copied back into their own
// layout. `run` gets the dense tensors (all with x's shape, per-group ones with stride 0 along
// the grouped axes) and the mask of the grouped axes in the new order.
using DenseRun = std::function<Status(const Tensor *dense, uint32_t mask)>;
Status run_on_dense_copies(const Tensor *tensors, const bool *per_group, const bool *written,
                           int count, uint32_t mask, const DenseRun &run);

}  // namespace lpnorm::rt
