// The contract between the Halide generators and the runtime dispatch layer.
// Plain C++ (no Halide types): included by both sides. Each op's p_kind is chosen here, beside
// its kinds (the runtime passes what these functions give; the generators specialise on it).
#pragma once

#include <cmath>
#include <cstdint>

namespace lpnorm::abi {

// The largest integer p whose power is a chain of products (pooling's kPoolInt, the reduction
// gradient's kGradInt), and whether p is one.
constexpr int kMaxChainPower = 64;
inline bool chain_power(double p) { return p == std::floor(p) && p <= kMaxChainPower; }

// Every reduction kernel has the C signature
//   int fn(halide_buffer_t *input, int32_t reduce_mask, int32_t p_kind, double p,
//          halide_buffer_t *output);
// reduce_mask is read only by the general pattern (bit i: input dim i is reduced).

// p_kind for kernels built with reducer=sum: the term |x|^p and the root.
enum SumKind : int {
    kL1 = 0,     // sum |x|
    kL2 = 1,     // sqrt(sum x^2)
    kL3 = 2,     // cbrt(sum |x|^3), by multiplication
    kLp = 3,     // (sum |x|^p)^(1/p) for any other real p > 0
    kCount = 4,  // number of x != 0 (p = 0)
};
constexpr int kNumSumKinds = 5;

// The sum kind of p = 0 or a finite p > 0.
inline int sum_kind(double p) {
    if (p == 0) return kCount;
    if (p == 1) return kL1;
    if (p == 2) return kL2;
    if (p == 3) return kL3;
    return kLp;
}

// The accumulator of a sum, in bits: float32 for 16-bit floats (float16, bfloat16), and for
// float32 where a kernel is built with float32 sums (D3D12, which has no float64); float64 for
// every other input, integers included. Partial kernels output it (see below).
constexpr int sum_accumulator_bits(bool is_float, int input_bits, bool float32_sums = false) {
    return is_float && (input_bits == 16 || (float32_sums && input_bits == 32)) ? 32 : 64;
}

// The compute type of pooling and of the pooling and reduction gradients (float inputs), in
// bits: float64 for float64, float32 for float32, float16 and bfloat16. Normalization and its
// gradient compute in sum_accumulator_bits.
constexpr int pool_compute_bits(int input_bits) { return input_bits == 64 ? 64 : 32; }

// The CPU's inner kernels of float32 input sum the kinds kL1, kL2, kL3 and kCount in float32
// partial sums of at most this many terms each, added in float64 (reduce_algorithm.h,
// add_float32_blocks): the depth that keeps p = 1 within the 8-ulp bound (docs/semantics.md).
constexpr int kFloat32BlockTerms = 8;

// p_kind for kernels built with reducer=extreme.
enum ExtremeKind : int {
    kMaxAbs = 0,  // p = +inf
    kMinAbs = 1,  // p = -inf
};
constexpr int kNumExtremeKinds = 2;

// A reduction's p_kind: extreme for p = +-inf (its kernels' reducer), a sum kind otherwise.
inline int reduce_kind(double p) {
    if (std::isinf(p)) return p > 0 ? kMaxAbs : kMinAbs;
    return sum_kind(p);
}

// Input dimensions of each pattern, innermost first (k = kept, r = reduced).
//   all:     (r)            -> ()
//   inner:   (r, k)         -> (k)
//   outer:   (k, r)         -> (k)
//   middle:  (k0, r, k1)    -> (k0, k1)
//   general: (d0, ..., d7)  -> (d0, ..., d7), reduced dims have output extent 1; the
//            runtime puts its outermost reduced dim last (d7), whose rows the kernel reads
//            several at a time, side by side
constexpr int kGeneralRank = 8;
// Partial kernels (partial=true; patterns all and general) output the accumulator instead of the
// norm, for the runtime to combine over calls and finish when a tensor exceeds 32-bit indexing:
//   reducer=sum:     the sum of terms, float32 for float16/bfloat16 inputs, float64 otherwise;
//   reducer=extreme: the order key, an unsigned integer of the input's width: ~bits(|x|)
//                    (max|x|) or bits(|x|) + 1 with NaN as 0 (min|x|; integers: bits(|x|)),
//                    combined by unsigned min.

// ---- Pooling ----------------------------------------------------------------------------
// Every pooling kernel (one per spatial rank k = 1, 2, 3) has the C signature
//   int fn(halide_buffer_t *input, int32_t p_kind, double p, int32_t signed_pow,
//          int32_t rescale, int32_t kernel_0, kernel_1, kernel_2, int32_t stride_0, ...,
//          int32_t dilation_0, ..., int32_t pad_begin_0, ..., int32_t pad_end_0, ...,
//          halide_buffer_t *output);
// Buffers are (s0, ..., s{k-1}, c, n), innermost (the last spatial dim) first; array entries
// are in the same order, and entries past k are ignored. pad_end is read only to count the
// taps inside input + pads when rescale != 0.
constexpr int kMaxPoolSpatial = 3;

// 2-D pooling kernels built with channel_blocks (the "_channels" variants) put a block of
// this many channels (or fewer: the vector width of the compute type, where it is narrower)
// in the vector lanes. They have the same signature and compute the same values, but need c,
// s0 of the input and s0 of the output to be at least this long.
constexpr int kChannelBlockMinExtent = 8;

// 2-D pooling kernels built with direct_window (the "_direct" variants, CPU) sum each window
// straight from the input, |x|^p at every tap, with no stored term or partial sums. They have
// the same signature and compute the same values, for the windows pool_direct_window() takes
// only: p = 1 to 4 in the abs mode without rescaling, dense rows, a kernel of 2 taps in both
// dims, a stride of 2 along the rows and every window inside the row (no pad along it; any
// pads along the outer dims, dilations and outer strides), rows of at least kDirectMinRow
// outputs, on at least kDirectMinPlanes channel planes (N x C: a task per plane; fewer planes
// run on the row kernels, which cut planes into strips of rows). A call whose windows leave
// the row fails the kernel's check of the input's bounds. Shorter rows are one guarded vector
// (half of AVX-512's) summed tap by tap: [1,512,14,14] 2x2 s2 (rows of 7) took 0.096 ms
// against 0.053 on the row kernels (Xeon AVX-512, float32 p = 2, 2 threads); from 8 outputs
// on, whole or half vectors beat the row and channel-block kernels (direct against channel
// blocks, same host: [8,128,16,16] 0.050-0.056 against 0.107-0.113 ms, [8,256,28,28]
// 0.24-0.29 against 0.65-0.85 ms; AVX2 0.068 against 0.134 and 0.31 against 0.62 ms). What
// the row kernels keep, measured on [32,64,112,112]
// (AVX2, float32, 2 threads, medians of 15 calls, three alternating runs, direct against
// rows): 3x3 windows, which take the power at 9 taps per output instead of once per input
// element (s1 p = 2 20-25 against 15-17 ms; s2 p = 3 18-21 against 12-14 ms, p = 1, 2, 4
// no faster); a stride of 1 along the rows (2x2 s1 no faster); and windows over the row's
// ends, read by a gather per tap in the border vectors (3x3 s2 pad 1 no faster). 3-D kernels
// of the same form were no faster than the row kernels on [4,32,32,56,56] 2x2x2 s2 (p = 2:
// 4.5-5.2 against 4.5-5.6 ms; p = 3 10% slower) and took 37 s to generate.
constexpr int kDirectKernels[] = {2};
constexpr int kDirectStrides0[] = {2};
constexpr int kDirectMinPlanes = 16;
constexpr int kDirectMinRow = 8;

// The innermost spatial dim of a pooling call (its rows), as pool_direct_window() reads it.
struct PoolRow {
    int64_t input_stride;   // element stride of the input along the row
    int64_t input, output;  // extents
    int64_t stride, dilation, pad_begin;
};

// p_kind of pooling kernels: the term and the root.
enum PoolKind : int {
    kPool1 = 0,    // sum x
    kPool2 = 1,    // sqrt(sum x^2)
    kPool3 = 2,    // cbrt(sum x^3)
    kPool4 = 3,    // (sum x^4)^(1/4)
    kPoolInt = 4,  // integer p in [5, kMaxChainPower]: x^p by products, the root by pow
    kPoolP = 5,    // any other real p > 0, by pow
};
constexpr int kNumPoolKinds = 6;

// The pooling p_kind of a finite p > 0.
inline int pool_kind(double p) {
    if (p == 1) return kPool1;
    if (p == 2) return kPool2;
    if (p == 3) return kPool3;
    if (p == 4) return kPool4;
    if (chain_power(p)) return kPoolInt;
    return kPoolP;
}

// Whether the direct_window kernels take a pooling call of `planes` channel planes: `kernel`
// holds the kernel size of each of the `spatial` dims, `row` describes the innermost one.
constexpr bool pool_direct_window(int p_kind, bool signed_pow, bool rescale, int64_t planes,
                                  int spatial, const int64_t *kernel, const PoolRow &row) {
    bool kernel_ok = false;
    for (int k : kDirectKernels) {
        bool all = true;
        for (int d = 0; d < spatial; d++) all = all && kernel[d] == k;
        kernel_ok = kernel_ok || all;
    }
    bool stride_ok = false;
    for (int s : kDirectStrides0) stride_ok = stride_ok || row.stride == s;
    const bool inside_row =
        row.pad_begin == 0 &&
        (row.output - 1) * row.stride + (kernel[0] - 1) * row.dilation < row.input;
    return spatial == 2 && p_kind <= kPool4 && !signed_pow && !rescale && row.input_stride == 1 &&
           planes >= kDirectMinPlanes && row.output >= kDirectMinRow && kernel_ok && stride_ok &&
           inside_row;
}

// 2-D pooling kernels built with flat_plane (the "_flat" variants, CPU) write each plane's
// |x|^p into a copy with zero margins and sum the windows along its rows laid end to end, so
// that every vector is whole and reads no condition. They have the same signature and compute
// the same values, for the windows pool_flat_window() takes only: p = 1 to 4 in the abs mode
// without rescaling, dense rows, a stride of 1 and an output of the input's size along both
// dims (pad_begin + pad_end = (kernel - 1) * dilation; any kernel, dilation and split of the
// pads), a padded plane of at most kFlatMaxPlane elements (a task's stages hold two), on at
// least kFlatMinPlanes channel planes (tasks of whole planes). Larger planes were no faster than
// the row kernels ([32,64,112,112] 3x3 s1 pad 1 p = 2, AVX2: schedules/cpu_pool_flat_schedule.cpp).
constexpr int64_t kFlatMaxPlane = 64 * 64;
constexpr int64_t kFlatMinPlanes = 16;

// One spatial dim of a pooling call, as pool_flat_window() reads it.
struct PoolFlatAxis {
    int64_t input, output, kernel, stride, dilation;
};

// Whether the flat_plane kernels take a pooling call of `planes` channel planes whose rows
// have an element stride of `row_stride`; `axes` holds its `spatial` dims, innermost first.
constexpr bool pool_flat_window(int p_kind, bool signed_pow, bool rescale, int64_t planes,
                                int spatial, int64_t row_stride, const PoolFlatAxis *axes) {
    if (spatial != 2 || p_kind > kPool4 || signed_pow || rescale || row_stride != 1 ||
        planes < kFlatMinPlanes) {
        return false;
    }
    int64_t padded_plane = 1;
    for (int d = 0; d < spatial; d++) {
        const PoolFlatAxis &a = axes[d];
        if (a.stride != 1 || a.output != a.input || a.input > kFlatMaxPlane ||
            a.kernel > kFlatMaxPlane || a.dilation > kFlatMaxPlane) {
            return false;
        }
        padded_plane *= a.input + (a.kernel - 1) * a.dilation;
        if (padded_plane > kFlatMaxPlane) return false;
    }
    return true;
}

// ---- Gradient of pooling ------------------------------------------------------------------
// Every pooling gradient kernel (two per spatial rank k: the separable kinds' below and the
// other kinds') has the C signature
//   int fn(halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy, int32_t p_kind,
//          double p, int32_t signed_pow, int32_t rescale, int32_t kernel_0, .., kernel_2,
//          int32_t stride_0.., int32_t dilation_0.., int32_t padded_0.., int32_t taps_0..,
//          int32_t first_window_0.., int32_t window_step_0.., int32_t window_stride_0..,
//          halide_buffer_t *dx);
// with the pooling kernels' dims and p_kind. y and dy are the forward's output and its gradient;
// x and dx are views of the forward's input: along each spatial dim either the whole dim or one
// phase of its stride (every stride-th element). Element i of the view reads, per spatial dim,
// the windows o = (i + first_window - j * window_step) / window_stride, j < taps, those where
// the division is exact and 0 <= o < y's extent. A whole dim has taps = kernel, first_window =
// the pad at its start, window_step = dilation and window_stride = stride; a phase has
// window_stride = 1. kernel, stride, dilation and padded (input + both pads) count the taps
// inside input + pads for the rescaled overhang.
//
// The kinds pool_backward_separable() names sum the windows one spatial dim at a time and take
// whole dims, except a stride above kMaxSeparableStride0 along dim 0 (innermost), which takes
// its phases. Every other kind takes the phases of every dim (window_stride = 1 throughout).
constexpr int kMaxSeparableStride0 = 2;
constexpr bool pool_backward_separable(int p_kind, int input_bits) {
    // p = 2, 3, 4 divide by y^(p - 1) per window and take x^(p - 1) per element, both in
    // float64: exact enough and without overflow for 16- and 32-bit inputs only.
    return p_kind == kPool1 ||
           ((p_kind == kPool2 || p_kind == kPool3 || p_kind == kPool4) && input_bits <= 32);
}

// ---- Lp normalization ---------------------------------------------------------------------
// Every normalization kernel has the C signature
//   int fn(halide_buffer_t *input, int32_t p_kind, double p, int32_t eps_kind, double eps,
//          double eps_root, int32_t scaled, halide_buffer_t *output);
// and computes y = x / n over groups of the reduced dim r, n from the sum of terms of p_kind
// (kL1, kL2, kL3, kLp; kNormalizeMaxAbs for p = +inf, whose norm is max|x|) as below. Patterns:
//   inner:   (r, k)       -> (r, k)
//   middle:  (k0, r, k1)  -> (k0, r, k1)
// with a unit innermost stride in both buffers. Terms and sums are taken in float32 for 16-bit
// inputs and in float64 otherwise. `scaled` != 0 scales each group by a power of two from its
// max|x| first, so that no power over- or underflows (the runtime sets it where one could).
constexpr int kNormalizeMaxAbs = kNumSumKinds;  // after the SumKind values

// Above this p (kLp, scaled calls), the terms are (|x| / max|x|)^p instead: scaled by powers of
// two, max|x| lies in [1, 2) and its term reaches 2^p, so n 2^p overflows the compute type for
// p near its largest exponent; relative to max|x|, each term is at most 1 and the sum at most n.
// Below it, n 2^p stays finite for any group of fewer than 2^63 elements.
constexpr double normalize_relative_terms_above(int compute_bits) {
    return compute_bits == 32 ? 64 : 512;
}

// The normalization p_kind of p = +inf or a finite p > 0.
inline int normalize_kind(double p) { return std::isinf(p) ? kNormalizeMaxAbs : sum_kind(p); }

// An all-zero group gives zeros, except with eps = 0 in kEpsClamp and kEpsAdd (0 / 0 = NaN).
enum NormalizeEpsKind : int {
    kEpsNone = 0,   // y = x / n
    kEpsClamp = 1,  // y = x / max(n, eps_root)
    kEpsAdd = 2,    // y = x / (S + eps)^(1/p), S the sum of terms; eps_root = eps^(1/p)
};
constexpr int kNumNormalizeEpsKinds = 3;

// ---- Gradient of the reduction ------------------------------------------------------------
// Every reduction gradient kernel has the C signature
//   int fn(halide_buffer_t *x, halide_buffer_t *y, halide_buffer_t *dy, int32_t p_kind, double p,
//          halide_buffer_t *dx);
// and computes dx = dy * dy/dx of y = ||x||_p over groups of the reduced dim r, with the
// normalization patterns' layouts: x and dx (r, k) or (k0, r, k1); y (the forward's output) and
// dy (the gradient of y) the same dims with r of extent 1. p_kind: kL1, kL2, kL3 (p = 3), kLp,
// kCount (p = 0: dx = 0), kGradExtreme (p = +-inf: dy shared by the elements whose |x| is y)
// or kGradInt (an integer p in [4, kMaxChainPower]: the power by products). Taken in float32
// for 16- and 32-bit inputs, float64 for float64.
constexpr int kGradExtreme = kNumSumKinds;  // after the SumKind values
constexpr int kGradInt = kNumSumKinds + 1;
constexpr int kNumGradKinds = kNumSumKinds + 2;

// The reduction gradient's p_kind of any p the reduction takes.
inline int reduce_backward_kind(double p) {
    if (std::isinf(p)) return kGradExtreme;
    if (p > 3 && chain_power(p)) return kGradInt;
    return sum_kind(p);
}

}  // namespace lpnorm::abi
