// Runs a validated reduction through the kernels. Tensors the kernels cannot index in one call
// (a dimension or a stride beyond 2^31-1: Halide extents and strides are 32-bit) are cut along
// the outermost such axis into calls that fit: a kept axis is sliced; a reduced axis is cut
// into chunks whose accumulators (the partial kernels' output) are combined in a fixed order
// and finished here, exactly as a kernel finishes them.
#pragma once

#include <cstdint>

#include "lpnorm/lpnorm.h"
#include "registry.h"

namespace lpnorm::rt {

// What every kernel call of one reduction shares.
struct ReduceCall {
    uint32_t reduced = 0;  // bit i: logical axis i of the input is reduced
    Reducer reducer = Reducer::sum;
    int p_kind = 0;  // kernel_abi.h SumKind or ExtremeKind
    double p = 2;
    Isa isa = Isa::auto_detect;
    Backend backend = Backend::cpu;  // a GPU backend runs only tensors that need no split
    Memory memory = Memory::host;
};

// The element strides of an output that is dense (row-major) over the kept axes of an input
// of shape `shape`; `strides[i]` is set for every axis (0 for reduced ones). Returns the number
// of output elements.
int64_t dense_kept_strides(const int64_t *shape, int rank, uint32_t reduced, int64_t *strides);

// What the kernels of one run_reduction did, for the range repair (range_repair.h).
struct ReduceRun {
    // A kernel summed float32 rows in float32 blocks (the CPU inner pattern's whole kernels,
    // generators/reduce_algorithm.h add_float32_blocks): powers that leave float32's range.
    bool float32_sums = false;
};

// Reduces `input` (non-empty, validated) into `output`, whose element stride along kept axis
// i is `out_strides[i]`. The output dtype is the input's. `ran`, where given, says what ran.
Status run_reduction(const Tensor &input, void *output, const int64_t *out_strides,
                     const ReduceCall &call, ReduceRun *ran = nullptr);

}  // namespace lpnorm::rt
