// The contract between the Halide generators and the runtime dispatch layer.
// Plain C++ (no Halide types): included by both sides.
#pragma once

namespace lpnorm::abi {

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

// p_kind for kernels built with reducer=extreme.
enum ExtremeKind : int {
    kMaxAbs = 0,  // p = +inf
    kMinAbs = 1,  // p = -inf
};
constexpr int kNumExtremeKinds = 2;

// Input dimensions of each pattern, innermost first (k = kept, r = reduced).
//   all:     (r)            -> ()
//   inner:   (r, k)         -> (k)
//   outer:   (k, r)         -> (k)
//   middle:  (k0, r, k1)    -> (k0, k1)
//   general: (d0, ..., d7)  -> (d0, ..., d7), reduced dims have output extent 1
constexpr int kGeneralRank = 8;

}  // namespace lpnorm::abi
