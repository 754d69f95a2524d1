#include "grouped_layout.h"

#include <cstdlib>
#include <limits>
#include <new>
#include <string>

#include "gpu.h"
#include "split_reduce.h"

namespace lpnorm::rt {
namespace {

// One dim of the kernels' form: the merge of logical axes, with each tensor's stride.
struct Dim {
    int64_t extent = 1;
    int64_t stride[kMaxGroupedTensors] = {};
};

// Merges `axes` (logical, outermost first) of `shape` into one dim; false when a tensor's
// stride does not continue the run inside.
bool merge(const std::vector<int> &axes, const int64_t *shape, const int64_t *const *strides,
           int count, Dim *dim) {
    *dim = Dim{};
    bool first = true;
    for (auto a = axes.rbegin(); a != axes.rend(); ++a) {
        if (shape[*a] == 1) continue;
        if (first) {
            dim->extent = shape[*a];
            for (int t = 0; t < count; t++) dim->stride[t] = strides[t][*a];
            first = false;
            continue;
        }
        for (int t = 0; t < count; t++) {
            if (strides[t][*a] != dim->extent * dim->stride[t]) return false;
        }
        dim->extent *= shape[*a];
    }
    return true;
}

}  // namespace

Grouping group_axes(int rank, uint32_t mask) {
    int last_reduced = -1;
    for (int a = 0; a < rank; a++) {
        if ((mask >> a) & 1) last_reduced = a;
    }
    Grouping g;
    for (int a = 0; a < rank; a++) {
        if ((mask >> a) & 1) {
            g.reduced.push_back(a);
        } else if (a > last_reduced) {
            g.inner.push_back(a);
        } else {
            g.outer.push_back(a);
        }
    }
    return g;
}

std::vector<int> grouped_order(int rank, uint32_t mask) {
    const Grouping g = group_axes(rank, mask);
    std::vector<int> order = g.outer;
    order.insert(order.end(), g.reduced.begin(), g.reduced.end());
    order.insert(order.end(), g.inner.begin(), g.inner.end());
    return order;
}

void GroupedPlan::extents_of(int t, int64_t *out) const {
    for (int d = 0; d < dims; d++) {
        out[d] = per_group[t] && d == r_dim ? 1 : extent[d];
    }
}

bool plan_grouped(const int64_t *shape, int rank, uint32_t mask, const int64_t *const *strides,
                  const bool *per_group, int count, GroupedPlan *plan) {
    const Grouping g = group_axes(rank, mask);
    Dim inner, reduced, outer;
    if (!merge(g.inner, shape, strides, count, &inner) ||
        !merge(g.reduced, shape, strides, count, &reduced) ||
        !merge(g.outer, shape, strides, count, &outer)) {
        return false;
    }
    plan->group_size = reduced.extent;
    Dim dims[3];
    if (inner.extent == 1) {
        plan->pattern = GroupedPattern::inner;
        plan->dims = 2;
        plan->r_dim = 0;
        dims[0] = reduced;
        dims[1] = outer;
    } else {
        plan->pattern = GroupedPattern::middle;
        plan->dims = 3;
        plan->r_dim = 1;
        dims[0] = inner;
        dims[1] = reduced;
        dims[2] = outer;
    }
    for (int t = 0; t < count; t++) {
        plan->per_group[t] = per_group[t];
        const bool r_innermost = per_group[t] && plan->r_dim == 0;
        if (dims[0].extent > 1 && !r_innermost && dims[0].stride[t] != 1) return false;
        for (int d = 0; d < plan->dims; d++) {
            // A dim of one element (or none) may have any stride; the kernels want the
            // innermost 1.
            const bool single = dims[d].extent <= 1 || (per_group[t] && d == plan->r_dim);
            plan->stride[t][d] = single ? (d == 0 ? 1 : 0) : dims[d].stride[t];
        }
    }
    for (int d = 0; d < plan->dims; d++) plan->extent[d] = dims[d].extent;
    return true;
}

Status check_grouped_indexing(const GroupedPlan &plan, int count, const char *what) {
    const int64_t limit = std::numeric_limits<int32_t>::max();
    for (int d = 0; d < plan.dims; d++) {
        bool fits = plan.extent[d] <= limit;
        for (int t = 0; t < count; t++) fits = fits && std::llabs(plan.stride[t][d]) <= limit;
        if (!fits) {
            return Status(ErrorCode::too_large,
                          std::string("input: ") + what + " with " +
                              std::to_string(plan.extent[d]) +
                              " elements along one of its merged dims (stride " +
                              std::to_string(plan.stride[0][d]) +
                              ") does not fit the kernels' 32-bit indexing");
        }
    }
    return Status::Ok();
}

Status run_on_dense_copies(const Tensor *tensors, const bool *per_group, const bool *written,
                           int count, uint32_t mask, const DenseRun &run) {
    const Tensor &x = tensors[0];
    const int rank = x.rank;
    const std::vector<int> order = grouped_order(rank, mask);
    uint32_t permuted_mask = 0;
    for (int k = 0; k < rank; k++) {
        if ((mask >> order[size_t(k)]) & 1) permuted_mask |= 1u << k;
    }
    std::vector<unsigned char> storage[kMaxGroupedTensors];
    Tensor dense[kMaxGroupedTensors];
    for (int i = 0; i < count; i++) {
        Tensor permuted = tensors[i];
        for (int k = 0; k < rank; k++) {
            permuted.shape[k] = tensors[i].shape[order[size_t(k)]];
            permuted.strides[k] = tensors[i].strides[order[size_t(k)]];
        }
        const size_t bytes = size_t(permuted.num_elements()) * dtype_size(permuted.dtype);
        try {
            storage[i].resize(bytes);
        } catch (const std::bad_alloc &) {
            return Status(ErrorCode::too_large,
                          "input has " + std::to_string(x.num_elements()) +
                              " elements: its reordered copies do not fit in memory");
        }
        int64_t strides[kMaxRank];
        dense_kept_strides(permuted.shape, rank, 0, strides);
        if (!written[i]) copy_to_dense(permuted, storage[i].data());
        dense[i] = permuted;
        dense[i].data = storage[i].data();
        for (int k = 0; k < rank; k++) {
            dense[i].shape[k] = x.shape[order[size_t(k)]];
            dense[i].strides[k] = per_group[i] && ((permuted_mask >> k) & 1) ? 0 : strides[k];
        }
    }
    Status s = run(dense, permuted_mask);
    if (!s.ok()) return s;
    for (int i = 0; i < count; i++) {
        if (!written[i]) continue;
        Tensor back = tensors[i];
        back.data = storage[i].data();
        int64_t strides[kMaxRank];
        dense_kept_strides(dense[i].shape, rank, 0, strides);
        for (int k = 0; k < rank; k++) back.strides[order[size_t(k)]] = strides[k];
        copy_to_dense(back, tensors[i].data);
    }
    return Status::Ok();
}

}  // namespace lpnorm::rt
