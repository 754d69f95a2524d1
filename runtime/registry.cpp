#include "registry.h"

#include <type_traits>

#include "lpnorm_kernel_headers.h"  // each kernel's prototype, as Halide generated it

namespace lpnorm::rt {
namespace {

// A generator whose inputs no longer match the call the dispatch makes fails here, at compile
// time, rather than as a call with misplaced arguments.
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)                                 \
    static_assert(std::is_same_v<decltype(&symbol), ReduceKernelFn>,                               \
                  #symbol ": its generated signature is not ReduceKernelFn");
#define LPNORM_REDUCE_PARTIAL_KERNEL LPNORM_REDUCE_KERNEL
#define LPNORM_GPU_REDUCE_KERNEL LPNORM_REDUCE_KERNEL
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)                                    \
    static_assert(std::is_same_v<decltype(&symbol), PoolKernelFn>,                                 \
                  #symbol ": its generated signature is not PoolKernelFn");
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)                                    \
    LPNORM_POOL_KERNEL(spatial, rows, dtype, backend, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_GPU_POOL_KERNEL

// CPU and GPU rows alike.
const ReduceKernel kReduceKernels[] = {
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)                                 \
    {Pattern::pattern, Reducer::reducer, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#define LPNORM_GPU_REDUCE_KERNEL(pattern, reducer, dtype, backend, symbol)                         \
    {Pattern::pattern, Reducer::reducer, DType::dtype,    Isa::auto_detect,                        \
     symbol,           #symbol,          Backend::backend},
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_POOL_KERNEL
};

constexpr int kNumReduceKernels = sizeof(kReduceKernels) / sizeof(kReduceKernels[0]);

// A null row first, so the table is never empty when no reduction dtype was built.
const ReduceKernel kPartialKernels[] = {
    {Pattern::general, Reducer::sum, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_GPU_REDUCE_KERNEL(pattern, reducer, dtype, backend, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)                         \
    {Pattern::pattern, Reducer::reducer, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_POOL_KERNEL
};

constexpr int kNumPartialKernels = sizeof(kPartialKernels) / sizeof(kPartialKernels[0]) - 1;

// A null row first, so the table is never empty when no pooling dtype was built.
const PoolKernel kPoolKernels[] = {
    {0, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu, PoolLayout::rows},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_GPU_REDUCE_KERNEL(pattern, reducer, dtype, backend, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)                                    \
    {spatial, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu, PoolLayout::layout},
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)                                    \
    {spatial, DType::dtype, Isa::auto_detect, symbol, #symbol, Backend::backend, PoolLayout::rows},
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_POOL_KERNEL
};

constexpr int kNumPoolKernels = sizeof(kPoolKernels) / sizeof(kPoolKernels[0]) - 1;

#define LPNORM_NORMALIZE_KERNEL(pattern, dtype, isa, symbol)                                       \
    static_assert(std::is_same_v<decltype(&symbol), NormalizeKernelFn>,                            \
                  #symbol ": its generated signature is not NormalizeKernelFn");
#define LPNORM_GPU_NORMALIZE_KERNEL LPNORM_NORMALIZE_KERNEL
#include "lpnorm_normalize_table.inc"
#undef LPNORM_NORMALIZE_KERNEL
#undef LPNORM_GPU_NORMALIZE_KERNEL

// A null row first, so the table is never empty when no normalization dtype was built.
const NormalizeKernel kNormalizeKernels[] = {
    {GroupedPattern::inner, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu},
#define LPNORM_NORMALIZE_KERNEL(pattern, dtype, isa, symbol)                                       \
    {GroupedPattern::pattern, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#define LPNORM_GPU_NORMALIZE_KERNEL(pattern, dtype, backend, symbol)                               \
    {GroupedPattern::pattern, DType::dtype, Isa::auto_detect, symbol, #symbol, Backend::backend},
#include "lpnorm_normalize_table.inc"
#undef LPNORM_NORMALIZE_KERNEL
#undef LPNORM_GPU_NORMALIZE_KERNEL
};

constexpr int kNumNormalizeKernels = sizeof(kNormalizeKernels) / sizeof(kNormalizeKernels[0]) - 1;

#define LPNORM_REDUCE_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                                 \
    static_assert(std::is_same_v<decltype(&symbol), ReduceBackwardKernelFn>,                       \
                  #symbol ": its generated signature is not ReduceBackwardKernelFn");
#define LPNORM_GPU_REDUCE_BACKWARD_KERNEL LPNORM_REDUCE_BACKWARD_KERNEL
#include "lpnorm_reduce_backward_table.inc"
#undef LPNORM_REDUCE_BACKWARD_KERNEL
#undef LPNORM_GPU_REDUCE_BACKWARD_KERNEL

// A null row first, so the table is never empty when no gradient dtype was built.
const ReduceBackwardKernel kReduceBackwardKernels[] = {
    {GroupedPattern::inner, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu},
#define LPNORM_REDUCE_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                                 \
    {GroupedPattern::pattern, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#define LPNORM_GPU_REDUCE_BACKWARD_KERNEL(pattern, dtype, backend, symbol)                         \
    {GroupedPattern::pattern, DType::dtype, Isa::auto_detect, symbol, #symbol, Backend::backend},
#include "lpnorm_reduce_backward_table.inc"
#undef LPNORM_REDUCE_BACKWARD_KERNEL
#undef LPNORM_GPU_REDUCE_BACKWARD_KERNEL
};

constexpr int kNumReduceBackwardKernels =
    sizeof(kReduceBackwardKernels) / sizeof(kReduceBackwardKernels[0]) - 1;

#define LPNORM_NORMALIZE_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                              \
    static_assert(std::is_same_v<decltype(&symbol), NormalizeBackwardKernelFn>,                    \
                  #symbol ": its generated signature is not NormalizeBackwardKernelFn");
#define LPNORM_GPU_NORMALIZE_BACKWARD_KERNEL LPNORM_NORMALIZE_BACKWARD_KERNEL
#include "lpnorm_normalize_backward_table.inc"
#undef LPNORM_NORMALIZE_BACKWARD_KERNEL
#undef LPNORM_GPU_NORMALIZE_BACKWARD_KERNEL

// A null row first, so the table is never empty when no gradient dtype was built.
const NormalizeBackwardKernel kNormalizeBackwardKernels[] = {
    {GroupedPattern::inner, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu},
#define LPNORM_NORMALIZE_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                              \
    {GroupedPattern::pattern, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#define LPNORM_GPU_NORMALIZE_BACKWARD_KERNEL(pattern, dtype, backend, symbol)                      \
    {GroupedPattern::pattern, DType::dtype, Isa::auto_detect, symbol, #symbol, Backend::backend},
#include "lpnorm_normalize_backward_table.inc"
#undef LPNORM_NORMALIZE_BACKWARD_KERNEL
#undef LPNORM_GPU_NORMALIZE_BACKWARD_KERNEL
};

constexpr int kNumNormalizeBackwardKernels =
    sizeof(kNormalizeBackwardKernels) / sizeof(kNormalizeBackwardKernels[0]) - 1;

#define LPNORM_POOL_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                                   \
    static_assert(std::is_same_v<decltype(&symbol), PoolBackwardKernelFn>,                         \
                  #symbol ": its generated signature is not PoolBackwardKernelFn");
#include "lpnorm_pool_backward_table.inc"
#undef LPNORM_POOL_BACKWARD_KERNEL

// The table's patterns (1d, 2d, 3d) as spatial ranks.
constexpr int kSpatial1d = 1, kSpatial2d = 2, kSpatial3d = 3;

// A null row first, so the table is never empty when no gradient dtype was built.
const PoolBackwardKernel kPoolBackwardKernels[] = {
    {0, DType::float32, Isa::auto_detect, nullptr, "", Backend::cpu},
#define LPNORM_POOL_BACKWARD_KERNEL(pattern, dtype, isa, symbol)                                   \
    {kSpatial##pattern, DType::dtype, Isa::isa, symbol, #symbol, Backend::cpu},
#include "lpnorm_pool_backward_table.inc"
#undef LPNORM_POOL_BACKWARD_KERNEL
};

constexpr int kNumPoolBackwardKernels =
    sizeof(kPoolBackwardKernels) / sizeof(kPoolBackwardKernels[0]) - 1;

struct Index {
    const ReduceKernel *slot[kNumIsas][kNumPatterns][kNumReducers][kNumDTypes] = {};
    const ReduceKernel *partial_slot[kNumIsas][kNumPatterns][kNumReducers][kNumDTypes] = {};
    const PoolKernel *pool_slot[kNumIsas][4][kNumDTypes] = {};
    const PoolKernel *pool_channels_slot[kNumIsas][kNumDTypes] = {};
    const NormalizeKernel *normalize_slot[kNumIsas][kNumGroupedPatterns][kNumDTypes] = {};
    const ReduceBackwardKernel *reduce_backward_slot[kNumIsas][kNumGroupedPatterns][kNumDTypes] =
        {};
    const NormalizeBackwardKernel
        *normalize_backward_slot[kNumIsas][kNumGroupedPatterns][kNumDTypes] = {};
    const PoolBackwardKernel *pool_backward_slot[kNumIsas][4][kNumDTypes] = {};
    bool isa_present[kNumIsas] = {};
    const ReduceKernel *gpu_slot[kNumBackends][kNumPatterns][kNumReducers][kNumDTypes] = {};
    const PoolKernel *gpu_pool_slot[kNumBackends][4][kNumDTypes] = {};
    const NormalizeKernel *gpu_normalize_slot[kNumBackends][kNumGroupedPatterns][kNumDTypes] = {};
    const ReduceBackwardKernel
        *gpu_reduce_backward_slot[kNumBackends][kNumGroupedPatterns][kNumDTypes] = {};
    const NormalizeBackwardKernel
        *gpu_normalize_backward_slot[kNumBackends][kNumGroupedPatterns][kNumDTypes] = {};
    bool backend_present[kNumBackends] = {};

    Index() {
        for (const ReduceKernel &k : kReduceKernels) {
            if (k.backend != Backend::cpu) {
                gpu_slot[int(k.backend)][int(k.pattern)][int(k.reducer)][int(k.dtype)] = &k;
                backend_present[int(k.backend)] = true;
                continue;
            }
            slot[int(k.isa)][int(k.pattern)][int(k.reducer)][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumPartialKernels; i++) {
            const ReduceKernel &k = kPartialKernels[i];
            partial_slot[int(k.isa)][int(k.pattern)][int(k.reducer)][int(k.dtype)] = &k;
        }
        for (int i = 1; i <= kNumPoolKernels; i++) {
            const PoolKernel &k = kPoolKernels[i];
            if (k.backend != Backend::cpu) {
                gpu_pool_slot[int(k.backend)][k.spatial][int(k.dtype)] = &k;
                backend_present[int(k.backend)] = true;
                continue;
            }
            if (k.layout == PoolLayout::channels) {
                pool_channels_slot[int(k.isa)][int(k.dtype)] = &k;
            } else {
                pool_slot[int(k.isa)][k.spatial][int(k.dtype)] = &k;
            }
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumNormalizeKernels; i++) {
            const NormalizeKernel &k = kNormalizeKernels[i];
            if (k.backend != Backend::cpu) {
                gpu_normalize_slot[int(k.backend)][int(k.pattern)][int(k.dtype)] = &k;
                backend_present[int(k.backend)] = true;
                continue;
            }
            normalize_slot[int(k.isa)][int(k.pattern)][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumNormalizeBackwardKernels; i++) {
            const NormalizeBackwardKernel &k = kNormalizeBackwardKernels[i];
            if (k.backend != Backend::cpu) {
                gpu_normalize_backward_slot[int(k.backend)][int(k.pattern)][int(k.dtype)] = &k;
                backend_present[int(k.backend)] = true;
                continue;
            }
            normalize_backward_slot[int(k.isa)][int(k.pattern)][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumReduceBackwardKernels; i++) {
            const ReduceBackwardKernel &k = kReduceBackwardKernels[i];
            if (k.backend != Backend::cpu) {
                gpu_reduce_backward_slot[int(k.backend)][int(k.pattern)][int(k.dtype)] = &k;
                backend_present[int(k.backend)] = true;
                continue;
            }
            reduce_backward_slot[int(k.isa)][int(k.pattern)][int(k.dtype)] = &k;
            isa_present[int(k.isa)] = true;
        }
        for (int i = 1; i <= kNumPoolBackwardKernels; i++) {
            const PoolBackwardKernel &k = kPoolBackwardKernels[i];
            pool_backward_slot[int(k.isa)][k.pattern][int(k.dtype)] = &k;
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

const char *reducer_name(Reducer reducer) { return reducer == Reducer::sum ? "sum" : "extreme"; }

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

const PoolKernel *find_pool_kernel(int spatial, DType dtype, Isa isa, PoolLayout layout) {
    if (spatial < 1 || spatial > 3) return nullptr;
    if (layout == PoolLayout::channels && spatial != 2) return nullptr;
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        const PoolKernel *k = layout == PoolLayout::channels
                                  ? index().pool_channels_slot[i][int(dtype)]
                                  : index().pool_slot[i][spatial][int(dtype)];
        if (k != nullptr) return k;
    }
    return nullptr;
}

const char *grouped_pattern_name(GroupedPattern pattern) {
    return pattern == GroupedPattern::inner ? "inner" : "middle";
}

const NormalizeKernel *normalize_kernels(int *count) {
    *count = kNumNormalizeKernels;
    return kNormalizeKernels + 1;
}

// The grouped kernel of `slots` for (pattern, dtype) at `isa`, or at the best ISA below it.
template <typename Kernel>
const Kernel *find_grouped(const Kernel *const (&slots)[kNumIsas][kNumGroupedPatterns][kNumDTypes],
                           GroupedPattern pattern, DType dtype, Isa isa) {
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        if (const Kernel *k = slots[i][int(pattern)][int(dtype)]) return k;
    }
    return nullptr;
}

const NormalizeKernel *find_normalize_kernel(GroupedPattern pattern, DType dtype, Isa isa) {
    return find_grouped(index().normalize_slot, pattern, dtype, isa);
}

const ReduceBackwardKernel *reduce_backward_kernels(int *count) {
    *count = kNumReduceBackwardKernels;
    return kReduceBackwardKernels + 1;
}

const ReduceBackwardKernel *find_reduce_backward_kernel(GroupedPattern pattern, DType dtype,
                                                        Isa isa) {
    return find_grouped(index().reduce_backward_slot, pattern, dtype, isa);
}

const NormalizeBackwardKernel *normalize_backward_kernels(int *count) {
    *count = kNumNormalizeBackwardKernels;
    return kNormalizeBackwardKernels + 1;
}

const NormalizeBackwardKernel *find_normalize_backward_kernel(GroupedPattern pattern, DType dtype,
                                                              Isa isa) {
    return find_grouped(index().normalize_backward_slot, pattern, dtype, isa);
}

const PoolBackwardKernel *pool_backward_kernels(int *count) {
    *count = kNumPoolBackwardKernels;
    return kPoolBackwardKernels + 1;
}

const PoolBackwardKernel *find_pool_backward_kernel(int spatial, DType dtype, Isa isa) {
    if (spatial < 1 || spatial > 3) return nullptr;
    for (int i = int(isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
        if (const PoolBackwardKernel *k = index().pool_backward_slot[i][spatial][int(dtype)]) {
            return k;
        }
    }
    return nullptr;
}

const ReduceKernel *find_gpu_reduce_kernel(Pattern pattern, Reducer reducer, DType dtype,
                                           Backend backend) {
    if (int(backend) < 0 || int(backend) >= kNumBackends) return nullptr;
    return index().gpu_slot[int(backend)][int(pattern)][int(reducer)][int(dtype)];
}

const PoolKernel *find_gpu_pool_kernel(int spatial, DType dtype, Backend backend) {
    if (spatial < 1 || spatial > 3 || int(backend) < 0 || int(backend) >= kNumBackends) {
        return nullptr;
    }
    return index().gpu_pool_slot[int(backend)][spatial][int(dtype)];
}

const NormalizeKernel *find_gpu_normalize_kernel(GroupedPattern pattern, DType dtype,
                                                 Backend backend) {
    if (int(backend) < 0 || int(backend) >= kNumBackends) return nullptr;
    return index().gpu_normalize_slot[int(backend)][int(pattern)][int(dtype)];
}

const ReduceBackwardKernel *find_gpu_reduce_backward_kernel(GroupedPattern pattern, DType dtype,
                                                            Backend backend) {
    if (int(backend) < 0 || int(backend) >= kNumBackends) return nullptr;
    return index().gpu_reduce_backward_slot[int(backend)][int(pattern)][int(dtype)];
}

const NormalizeBackwardKernel *find_gpu_normalize_backward_kernel(GroupedPattern pattern,
                                                                  DType dtype, Backend backend) {
    if (int(backend) < 0 || int(backend) >= kNumBackends) return nullptr;
    return index().gpu_normalize_backward_slot[int(backend)][int(pattern)][int(dtype)];
}

bool backend_compiled(Backend backend) {
    if (backend == Backend::cpu) return true;
    return int(backend) > 0 && int(backend) < kNumBackends && index().backend_present[int(backend)];
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
