#include "registry.h"

// Declarations of the generated kernels.
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)                          \
    extern "C" int symbol(halide_buffer_t *, int32_t, int32_t, double, halide_buffer_t *);
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)                  \
    LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_POOL_KERNEL(spatial, dtype, isa, symbol)                                     \
    extern "C" int symbol(halide_buffer_t *, int32_t, double, int32_t, int32_t, int32_t,      \
                          int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,      \
                          int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,      \
                          halide_buffer_t *);
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL

namespace lpnorm::rt {
namespace {

const ReduceKernel kReduceKernels[] = {
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)                          \
    {Pattern::pattern, Reducer::reducer, DType::dtype, Isa::isa, symbol, #symbol},
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_POOL_KERNEL(spatial, dtype, isa, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
};

constexpr int kNumReduceKernels = sizeof(kReduceKernels) / sizeof(kReduceKernels[0]);

// A null row first, so the table is never empty when no reduction dtype was built.
const ReduceKernel kPartialKernels[] = {
    {Pattern::general, Reducer::sum, DType::float32, Isa::auto_detect, nullptr, ""},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)                  \
    {Pattern::pattern, Reducer::reducer, DType::dtype, Isa::isa, symbol, #symbol},
#define LPNORM_POOL_KERNEL(spatial, dtype, isa, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
};

constexpr int kNumPartialKernels = sizeof(kPartialKernels) / sizeof(kPartialKernels[0]) - 1;

// A null row first, so the table is never empty when no pooling dtype was built.
const PoolKernel kPoolKernels[] = {
    {0, DType::float32, Isa::auto_detect, nullptr, ""},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_POOL_KERNEL(spatial, dtype, isa, symbol)                                     \
    {spatial, DType::dtype, Isa::isa, symbol, #symbol},
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
};

constexpr int kNumPoolKernels = sizeof(kPoolKernels) / sizeof(kPoolKernels[0]) - 1;

struct Index {
    const ReduceKernel *slot[kNumIsas][kNumPatterns][kNumReducers][kNumDTypes] = {};
    const ReduceKernel *partial_slot[kNumIsas][kNumPatterns][kNumReducers][kNumDTypes] = {};
    const PoolKernel *pool_slot[kNumIsas][4][kNumDTypes] = {};
    bool isa_present[kNumIsas] = {};

    Index() {
        for (const ReduceKernel &k : kReduceKernels) {
            slot[int(k.isa)][int(k.pattern)][int(k.reducer)][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumPartialKernels; i++) {
            const ReduceKernel &k = kPartialKernels[i];
            partial_slot[int(k.isa)][int(k.pattern)][int(k.reducer)][int(k.dtype)] = &k;
        }
        for (int i = 1; i <= kNumPoolKernels; i++) {
            const PoolKernel &k = kPoolKernels[i];
            pool_slot[int(k.isa)][k.spatial][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
    }
};

const Index &index() {
    static const Index idx;
    return idx;
}

}  // namespace

const char *pattern_name(Pattern pattern) {
    static const char *const names[] = {"all", "inner", "outer", "middle", "general"};
    return names[int(pattern)];
}

const char *reducer_name(Reducer reducer) {
    return reducer == Reducer::sum ? "sum" : "extreme";
}

const ReduceKernel *reduce_kernels(int *count) {
    *count = kNumReduceKernels;
    return kReduceKernels;
}

const ReduceKernel *find_reduce_kernel(Pattern pattern, Reducer reducer, DType dtype, Isa isa) {
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        if (const ReduceKernel *k = index().slot[i][int(pattern)][int(reducer)][int(dtype)]) {
            return k;
        }
    }
    return nullptr;
}

const ReduceKernel *partial_kernels(int *count) {
    *count = kNumPartialKernels;
    return kPartialKernels + 1;
}

const ReduceKernel *find_partial_kernel(Pattern pattern, Reducer reducer, DType dtype, Isa isa) {
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        if (const ReduceKernel *k =
                index().partial_slot[i][int(pattern)][int(reducer)][int(dtype)]) {
            return k;
        }
    }
    return nullptr;
}

const PoolKernel *pool_kernels(int *count) {
    *count = kNumPoolKernels;
    return kPoolKernels + 1;
}

const PoolKernel *find_pool_kernel(int spatial, DType dtype, Isa isa) {
    if (spatial < 1 || spatial > 3) return nullptr;
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        if (const PoolKernel *k = index().pool_slot[i][spatial][int(dtype)]) {
            return k;
        }
    }
    return nullptr;
}

Isa lower_isa(Isa isa) {
    switch (isa) {
    case Isa::avx512: return Isa::avx2;
    case Isa::avx2: return Isa::sse41;
    case Isa::neon_fp16: return Isa::neon;
    default: return Isa::auto_detect;
    }
}

bool isa_compiled(Isa isa) {
    int i = int(isa);
    return i >= 1 && i < kNumIsas && index().isa_present[i];
}

}  // namespace lpnorm::rt
