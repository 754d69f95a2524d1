// The table of compiled kernel variants, generated from the CMake variant list.
#pragma once

#include <cstdint>
#include <string>

#include "HalideRuntime.h"
#include "gpu.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

enum class Pattern : int { all = 0, inner = 1, outer = 2, middle = 3, general = 4 };
constexpr int kNumPatterns = 5;
enum class Reducer : int { sum = 0, extreme = 1 };
constexpr int kNumReducers = 2;
constexpr int kNumIsas = 7;  // indexed by Isa; slot 0 (auto_detect) stays empty

const char *pattern_name(Pattern pattern);
const char *reducer_name(Reducer reducer);

// Where a kernel runs: a GPU backend, else the CPU at `isa`.
struct Place {
    Backend backend = Backend::cpu;
    Isa isa = Isa::auto_detect;  // the CPU's; a GPU backend ignores it
    bool gpu() const { return is_gpu(backend); }
};

// " at isa <isa>" or " on backend <backend>", for the messages of calls no kernel can run.
std::string place_phrase(const Place &place);

// One compiled kernel: what it computes (its Key, beside the dtype), where it runs, its entry
// point and symbol. Every op's table is a list of these, generated from the variant list
// (cmake/LpnormKernels.cmake); the entry points' types are checked against the kernels'
// generated headers at compile time (registry.cpp).
template <typename Fn, typename Key>
struct Kernel {
    using Function = Fn;
    using KeyType = Key;
    Key key;
    DType dtype;
    Isa isa;          // Isa::auto_detect for GPU kernels
    Backend backend;  // cpu for the ISA variants
    Fn fn;
    const char *symbol;
};

// The kernel of `Row`'s table for (key, dtype) at `place`: on the CPU, compiled for place.isa or
// for the best ISA below it in the same family (lower_isa); on a GPU, for place.backend.
// nullptr when there is none.
template <typename Row>
const Row *find_kernel(const typename Row::KeyType &key, DType dtype, const Place &place);

// Every kernel of `Row`'s table, CPU and GPU, in the variant list's order.
template <typename Row>
struct KernelList {
    const Row *first;
    const Row *last;
    const Row *begin() const { return first; }
    const Row *end() const { return last; }
};
template <typename Row>
KernelList<Row> kernels();

// Reductions (generators/kernel_abi.h): the pattern and reducer; partial kernels, for the
// patterns `all` and `general`, leave accumulators of the type partial_dtype() gives.
struct ReduceKey {
    Pattern pattern;
    Reducer reducer;
    bool partial = false;
    static constexpr int kCount = kNumPatterns * kNumReducers * 2;
    int index() const { return (int(pattern) * kNumReducers + int(reducer)) * 2 + int(partial); }
};
using ReduceKernelFn = int (*)(halide_buffer_t *input, int32_t reduce_mask, int32_t p_kind,
                               double p, halide_buffer_t *output);
using ReduceKernel = Kernel<ReduceKernelFn, ReduceKey>;

// How a CPU pooling kernel vectorises: along the rows (every rank and shape), or 2-D only
// across a block of channels, for small planes (kernel_abi.h, kChannelBlockMinExtent), or
// 2-D only along the rows with each small window summed straight from the input
// (kernel_abi.h, pool_direct_window()), or 2-D only along each plane's rows laid end to end,
// for stride 1 and same-size windows (kernel_abi.h, pool_flat_window()).
enum class PoolLayout { rows, channels, direct, flat };
constexpr int kNumPoolLayouts = 4;

// Pooling: the spatial rank (1, 2, 3) and the layout.
struct PoolKey {
    int spatial;
    PoolLayout layout = PoolLayout::rows;
    static constexpr int kCount = 3 * kNumPoolLayouts;
    int index() const {
        return spatial >= 1 && spatial <= 3 ? (spatial - 1) * kNumPoolLayouts + int(layout) : -1;
    }
};
using PoolKernelFn = int (*)(halide_buffer_t *input, int32_t p_kind, double p, int32_t signed_pow,
                             int32_t rescale, int32_t kernel_0, int32_t kernel_1, int32_t kernel_2,
                             int32_t stride_0, int32_t stride_1, int32_t stride_2,
                             int32_t dilation_0, int32_t dilation_1, int32_t dilation_2,
                             int32_t pad_begin_0, int32_t pad_begin_1, int32_t pad_begin_2,
                             int32_t pad_end_0, int32_t pad_end_1, int32_t pad_end_2,
                             halide_buffer_t *output);
using PoolKernel = Kernel<PoolKernelFn, PoolKey>;

// The patterns of the grouped kernels (normalization, reduction gradients; kernel_abi.h): the
// grouped dim innermost, or between kept ones.
enum class GroupedPattern : int { inner = 0, middle = 1 };
constexpr int kNumGroupedPatterns = 2;
const char *grouped_pattern_name(GroupedPattern pattern);

struct GroupedKey {
    GroupedPattern pattern;
    static constexpr int kCount = kNumGroupedPatterns;
    int index() const { return int(pattern); }
};

using NormalizeKernelFn = int (*)(halide_buffer_t *input, int32_t p_kind, double p,
                                  int32_t eps_kind, double eps, double eps_root, int32_t scaled,
                                  halide_buffer_t *output);
using NormalizeKernel = Kernel<NormalizeKernelFn, GroupedKey>;

using ReduceBackwardKernelFn = int (*)(halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy,
                                       int32_t p_kind, double p, halide_buffer_t *dx);
using ReduceBackwardKernel = Kernel<ReduceBackwardKernelFn, GroupedKey>;

using NormalizeBackwardKernelFn = int (*)(halide_buffer_t *x, halide_buffer_t *dy, int32_t p_kind,
                                          double p, int32_t eps_kind, double eps, double eps_root,
                                          int32_t scaled, halide_buffer_t *dx);
using NormalizeBackwardKernel = Kernel<NormalizeBackwardKernelFn, GroupedKey>;

using PoolBackwardKernelFn = int (*)(
    halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy, int32_t p_kind, double p,
    int32_t signed_pow, int32_t rescale, int32_t kernel_0, int32_t kernel_1, int32_t kernel_2,
    int32_t stride_0, int32_t stride_1, int32_t stride_2, int32_t dilation_0, int32_t dilation_1,
    int32_t dilation_2, int32_t padded_0, int32_t padded_1, int32_t padded_2, int32_t taps_0,
    int32_t taps_1, int32_t taps_2, int32_t first_window_0, int32_t first_window_1,
    int32_t first_window_2, int32_t window_step_0, int32_t window_step_1, int32_t window_step_2,
    int32_t window_stride_0, int32_t window_stride_1, int32_t window_stride_2, halide_buffer_t *dx);
// The pooling gradient: the spatial rank (1, 2, 3) and whether the kernel takes the separable
// kinds (kernel_abi.h, pool_backward_separable) or the others. CPU only.
struct PoolBackwardKey {
    int spatial;
    bool separable = false;
    static constexpr int kCount = 3 * 2;
    int index() const { return spatial >= 1 && spatial <= 3 ? (spatial - 1) * 2 + separable : -1; }
};
using PoolBackwardKernel = Kernel<PoolBackwardKernelFn, PoolBackwardKey>;
// The pattern's name, as VariantInfo and the errors give it: "2d_separable", "2d".
std::string pool_backward_pattern_name(const PoolBackwardKey &key);

// True when at least one kernel was compiled for GPU `backend`.
bool backend_compiled(Backend backend);
constexpr int kNumBackends = int(Backend::d3d12) + 1;  // indexed by Backend

// The next ISA of the same architecture to fall back to (avx512_zen5 -> avx512 -> avx2 ->
// sse41, neon_fp16 -> neon), or Isa::auto_detect when there is none.
Isa lower_isa(Isa isa);

// True when at least one kernel was compiled for `isa`.
bool isa_compiled(Isa isa);

}  // namespace lpnorm::rt
