// The table of compiled kernel variants, generated from the CMake variant list.
#pragma once

#include <cstdint>

#include "HalideRuntime.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

enum class Pattern : int { all = 0, inner = 1, outer = 2, middle = 3, general = 4 };
constexpr int kNumPatterns = 5;
enum class Reducer : int { sum = 0, extreme = 1 };
constexpr int kNumReducers = 2;
constexpr int kNumIsas = 6;  // indexed by Isa; slot 0 (auto_detect) stays empty

const char *pattern_name(Pattern pattern);
const char *reducer_name(Reducer reducer);

using ReduceKernelFn = int (*)(halide_buffer_t *input, int32_t reduce_mask, int32_t p_kind,
                               double p, halide_buffer_t *output);

struct ReduceKernel {
    Pattern pattern;
    Reducer reducer;
    DType dtype;
    Isa isa;
    ReduceKernelFn fn;
    const char *symbol;
    Backend backend;  // cpu for the ISA variants; isa is auto_detect for GPU ones
};

// All compiled reduction kernels.
const ReduceKernel *reduce_kernels(int *count);

// The kernel for (pattern, reducer, dtype) compiled for `isa`, or for the best ISA below it
// in the same family (lower_isa) when `isa` was not compiled for that combination; nullptr
// when none exists.
const ReduceKernel *find_reduce_kernel(Pattern pattern, Reducer reducer, DType dtype, Isa isa);

// The partial kernels (generators/kernel_abi.h), patterns `all` and `general`: same signature,
// the output holds accumulators of the type partial_dtype() gives.
const ReduceKernel *partial_kernels(int *count);
const ReduceKernel *find_partial_kernel(Pattern pattern, Reducer reducer, DType dtype, Isa isa);

using PoolKernelFn = int (*)(halide_buffer_t *input, int32_t p_kind, double p, int32_t signed_pow,
                             int32_t rescale, int32_t kernel_0, int32_t kernel_1, int32_t kernel_2,
                             int32_t stride_0, int32_t stride_1, int32_t stride_2,
                             int32_t dilation_0, int32_t dilation_1, int32_t dilation_2,
                             int32_t pad_begin_0, int32_t pad_begin_1, int32_t pad_begin_2,
                             int32_t pad_end_0, int32_t pad_end_1, int32_t pad_end_2,
                             halide_buffer_t *output);

// How a CPU pooling kernel vectorises: along the rows (every rank and shape), or 2-D only
// across a block of channels, for small planes (kernel_abi.h, kChannelBlockMinExtent).
enum class PoolLayout { rows, channels };

struct PoolKernel {
    int spatial;  // 1, 2 or 3
    DType dtype;
    Isa isa;
    PoolKernelFn fn;
    const char *symbol;
    Backend backend;
    PoolLayout layout;
};

// All compiled pooling kernels.
const PoolKernel *pool_kernels(int *count);

// The pooling kernel for (spatial, dtype, layout) compiled for `isa`, or for the best ISA
// below it; nullptr when none exists.
const PoolKernel *find_pool_kernel(int spatial, DType dtype, Isa isa,
                                   PoolLayout layout = PoolLayout::rows);

using NormalizeKernelFn = int (*)(halide_buffer_t *input, int32_t p_kind, double p,
                                  int32_t eps_kind, double eps, double eps_root, int32_t scaled,
                                  halide_buffer_t *output);

// The patterns of the grouped kernels (normalization, reduction gradients; kernel_abi.h): the
// grouped dim innermost, or between kept ones.
enum class GroupedPattern : int { inner = 0, middle = 1 };
constexpr int kNumGroupedPatterns = 2;
const char *grouped_pattern_name(GroupedPattern pattern);

struct NormalizeKernel {
    GroupedPattern pattern;
    DType dtype;
    Isa isa;  // Isa::auto_detect for GPU kernels
    NormalizeKernelFn fn;
    const char *symbol;
    Backend backend;
};

// All compiled normalization kernels, CPU and GPU.
const NormalizeKernel *normalize_kernels(int *count);

// The kernel for (pattern, dtype) compiled for `isa`, or for the best ISA below it; nullptr
// when none exists.
const NormalizeKernel *find_normalize_kernel(GroupedPattern pattern, DType dtype, Isa isa);

using ReduceBackwardKernelFn = int (*)(halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy,
                                       int32_t p_kind, double p, halide_buffer_t *dx);

// A gradient kernel: its pattern (grouped pattern, or spatial rank for pooling), dtype, ISA
// (Isa::auto_detect for GPU kernels), entry point, symbol and backend.
template <typename Fn, typename Pattern = GroupedPattern>
struct GradientKernel {
    Pattern pattern;
    DType dtype;
    Isa isa;
    Fn fn;
    const char *symbol;
    Backend backend;
};

using ReduceBackwardKernel = GradientKernel<ReduceBackwardKernelFn>;

// All compiled reduction gradient kernels, CPU and GPU.
const ReduceBackwardKernel *reduce_backward_kernels(int *count);

// The kernel for (pattern, dtype) compiled for `isa`, or for the best ISA below it; nullptr
// when none exists.
const ReduceBackwardKernel *find_reduce_backward_kernel(GroupedPattern pattern, DType dtype,
                                                        Isa isa);

using NormalizeBackwardKernelFn = int (*)(halide_buffer_t *x, halide_buffer_t *dy, int32_t p_kind,
                                          double p, int32_t eps_kind, double eps, double eps_root,
                                          int32_t scaled, halide_buffer_t *dx);

using NormalizeBackwardKernel = GradientKernel<NormalizeBackwardKernelFn>;

// All compiled normalization gradient kernels, CPU and GPU.
const NormalizeBackwardKernel *normalize_backward_kernels(int *count);

// The kernel for (pattern, dtype) compiled for `isa`, or for the best ISA below it; nullptr
// when none exists.
const NormalizeBackwardKernel *find_normalize_backward_kernel(GroupedPattern pattern, DType dtype,
                                                              Isa isa);

using PoolBackwardKernelFn = int (*)(
    halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy, int32_t p_kind, double p,
    int32_t signed_pow, int32_t rescale, int32_t kernel_0, int32_t kernel_1, int32_t kernel_2,
    int32_t stride_0, int32_t stride_1, int32_t stride_2, int32_t dilation_0, int32_t dilation_1,
    int32_t dilation_2, int32_t padded_0, int32_t padded_1, int32_t padded_2, int32_t taps_0,
    int32_t taps_1, int32_t taps_2, int32_t first_window_0, int32_t first_window_1,
    int32_t first_window_2, int32_t window_step_0, int32_t window_step_1, int32_t window_step_2,
    int32_t window_stride_0, int32_t window_stride_1, int32_t window_stride_2, halide_buffer_t *dx);

// Pooling gradient kernels have the spatial rank (1, 2, 3) as their pattern.
using PoolBackwardKernel = GradientKernel<PoolBackwardKernelFn, int>;

// All compiled pooling gradient kernels (CPU only).
const PoolBackwardKernel *pool_backward_kernels(int *count);

// The kernel for (spatial rank, dtype) compiled for `isa`, or for the best ISA below it;
// nullptr when none exists.
const PoolBackwardKernel *find_pool_backward_kernel(int spatial, DType dtype, Isa isa);

// The GPU kernels of `backend` (opencl, cuda): nullptr when not compiled for that combination.
const ReduceKernel *find_gpu_reduce_kernel(Pattern pattern, Reducer reducer, DType dtype,
                                           Backend backend);
const PoolKernel *find_gpu_pool_kernel(int spatial, DType dtype, Backend backend);
const NormalizeKernel *find_gpu_normalize_kernel(GroupedPattern pattern, DType dtype,
                                                 Backend backend);
const ReduceBackwardKernel *find_gpu_reduce_backward_kernel(GroupedPattern pattern, DType dtype,
                                                            Backend backend);
const NormalizeBackwardKernel *find_gpu_normalize_backward_kernel(GroupedPattern pattern,
                                                                  DType dtype, Backend backend);
const PoolBackwardKernel *find_gpu_pool_backward_kernel(int spatial, DType dtype, Backend backend);
// True when at least one kernel was compiled for GPU `backend`.
bool backend_compiled(Backend backend);
constexpr int kNumBackends = int(Backend::d3d12) + 1;  // indexed by Backend

// The next ISA of the same architecture to fall back to (avx512 -> avx2 -> sse41,
// neon_fp16 -> neon), or Isa::auto_detect when there is none.
Isa lower_isa(Isa isa);

// True when at least one kernel was compiled for `isa`.
bool isa_compiled(Isa isa);

}  // namespace lpnorm::rt
