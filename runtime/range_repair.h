// Range repair: the kernels sum |x|^p in float32 (float16/bfloat16/float32 pooling, float16/
// bfloat16 reductions, float32 rows of the CPU's inner pattern in float32 blocks) or float64
// (the rest). A power can leave that range although the norm is finite and normal: float64
// values near 1e200 squared overflow, near 1e-200 underflow to 0. Where a call's dtype, p and
// term count make that possible, every output that could carry such an error (inf, NaN in the
// signed mode, or a magnitude below `low`) is recomputed from its terms scaled by their largest
// |x|, in long double with compensated sums. Calls whose powers cannot leave the range (float32
// reductions in float64 with p <= 6, float16 with p <= 5, p = 1, 0 and +-inf) skip the scan;
// the others pay one pass over the output plus the recomputed outputs, which the common data
// never has. float32 pooling, whose scan would cost 9-23% of the kernel's time
// (docs/semantics.md), scans only when the kernel call raised the overflow or underflow flag
// (RangeWatch, thread_pool.h) for the p whose powers are products (1 to 4 and integer p), and
// always for the others (pow, which raises no flag).
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"
#include "registry.h"
#include "split_reduce.h"

namespace lpnorm::rt {

// Whether a sum of `terms` powers |x|^p of `input` values in accumulator `acc` (float32 or
// float64) can leave its range, and below which output magnitude a lost term may matter.
struct SumRange {
    bool can_overflow = false;
    bool can_underflow = false;
    double low = 0;  // outputs with |y| < low are recomputed when can_underflow
    bool needs_scan() const { return can_overflow || can_underflow; }
};
SumRange sum_range(DType input, DType acc, double p, int64_t terms);
// The same for any sum of powers, p = 1 included (whose overflowing sum is a reduction's
// right answer, inf, but not a normalization's).
SumRange power_sum_range(DType input, DType acc, double p, int64_t terms);

// The accumulator the pooling kernels of `input` sum in.
DType pool_accumulator(DType input);

// Whether a host pooling call of `input` with p kind `p_kind` learns from the FP flags
// (RangeWatch) whether its output needs the scan: float32 sums of products.
bool pool_range_watched(DType input, int p_kind);

// Recomputes the outputs of a finished reduction that SumRange flags. `input` is on the host;
// the output is dense over the kept axes (`out_strides` from dense_kept_strides). `ran` says
// whether its kernels summed in float32 (float32 blocks) where partial_dtype says float64.
void repair_reduction_range(const Tensor &input, void *output, const ReduceCall &call,
                            const ReduceRun &ran);

// Marks the start of a pool() call on this thread (testing::last_pool_scanned).
void begin_pool_range_check();

// The same for a finished pooling (host input, dense output) whose kernel summed in `acc`;
// for a watched call (pool_range_watched), call it only where the watch was raised.
void repair_pool_range(const Tensor &input, const Tensor &output, const PoolParams &params,
                       const std::vector<PoolAxis> &axes, DType acc);

}  // namespace lpnorm::rt
