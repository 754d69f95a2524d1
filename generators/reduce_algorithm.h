// The Lp reduction algorithm, written once for every pattern: what is computed, never how.
#pragma once

#include <functional>
#include <vector>

#include "Halide.h"

namespace lpnorm::gen {

enum class Reducer { sum, extreme };

// The stages of one reduction pipeline, handed to schedules/.
struct ReduceStages {
    Halide::Func acc;               // acc(vars) accumulated over `r` (update 0)
    Halide::Func out;               // out(vars) = finish(acc(vars)), the pipeline output
    Halide::RDom r;                 // the reduction domain
    std::vector<Halide::Var> vars;  // output vars, innermost first
    std::vector<Halide::Expr> kind_conditions;  // one per p_kind, to specialise on
    Halide::Type input_type;
    Halide::Type accum_type;
    Reducer reducer;
    // Set by add_float32_blocks: the float32 partial sums of its blocks, block(j, b, k), over
    // their terms (block_terms[u] is update u's: the whole blocks, then a row's last, partial
    // block, its first vector masked and its others not), and the domain (lane x block) of
    // acc's update 1 that adds them.
    // `in_blocks` is true for the rows it sums (the other rows take `r`).
    Halide::Func block;
    std::vector<Halide::RDom> block_terms;
    Halide::RDom blocks;
    Halide::Expr in_blocks;
    int block_lanes = 0;  // the partial sums per block
};

// Accumulator of a sum-type reduction, abi::sum_accumulator_bits as a Halide type: float16/
// bfloat16 -> float32, everything else -> float64; with `float32_sums`, float32 too accumulates
// in float32 (devices without float64: D3D12's shader model 5.1). Its error bound:
// docs/targets.md, "D3D12 compute".
Halide::Type sum_accumulator_type(const Halide::Type &input, bool float32_sums = false);

// Builds acc and out for an element expression `x` (a value of the input type that depends on
// `vars` and `r`). `p_kind` selects the term and root (see kernel_abi.h); `p` is the real order
// used by the general-p kind. `float32_sums` picks the float32 accumulator (above). A `partial`
// reduction outputs the accumulator itself (the sum of terms, or the extreme's order key; see
// partial_output_type) for the runtime to combine across calls and finish: the split of tensors
// beyond 32-bit indexing. `vector_powers`: a general p's powers of float inputs of 32 bits or
// fewer by narrow_pow (float_math.h; sched::vector_powers says where). `more_sums`, where given,
// adds updates to acc (of a sum) before out reads it (add_float32_blocks).
ReduceStages define_reduction(const Halide::Expr &x, const std::vector<Halide::Var> &vars,
                              const Halide::RDom &r, const Halide::Type &output_type,
                              Reducer reducer, bool partial, bool float32_sums,
                              const Halide::Expr &p_kind, const Halide::Expr &p, bool vector_powers,
                              const std::function<void(ReduceStages &)> &more_sums = {});

// Whether a row of `n` terms of kind `p_kind` is summed in float32 blocks of lanes x
// kFloat32BlockTerms elements (kernel_abi.h): p = 1, 2, 3 and the count, on rows of a block
// at least.
Halide::Expr sums_in_float32_blocks(const Halide::Expr &p_kind, const Halide::Expr &n, int lanes);

// Adds float32 blocks to a row reduction `s` (define_reduction's more_sums, over x = row(r, k),
// r in [0, n) where `in_blocks` is false, else empty): where `in_blocks`, acc(k) takes, as its
// update 1, the float64 sum of partial sums that are float32. Block b holds span = lanes x
// kFloat32BlockTerms elements from b span on; the last one ends at n, and leaves out those of
// the block before. A block's partial sum j adds its kFloat32BlockTerms elements j, j + lanes,
// ... in order, in float32: within kFloat32BlockTerms - 1 roundings of the exact sum of its
// terms, which are rounded once each for p = 2 (or fused into the add) and twice for p = 3.
// The float64 additions after it add below 2^-30 of a float32 ulp for rows up to 2^26
// (docs/semantics.md). Float32 powers leave float32's range earlier than float64's: the
// runtime's range repair scans these outputs (runtime/range_repair.h).
void add_float32_blocks(ReduceStages &s, const Halide::Func &row, const Halide::Var &k,
                        const Halide::Expr &n, int lanes, const Halide::Expr &in_blocks,
                        const Halide::Expr &p_kind, const Halide::Expr &p);

// The term |x|^p of a sum-type p_kind (kernel_abi.h) in accumulator type `acc_t`, and the
// norm (root) of a sum of them; NaN and inf pass through both as IEEE says. `narrow`: a general
// p's powers by narrow_pow (float_math.h). `general_power`, where defined, is the general kind's
// power of finite_magnitude(x in acc_t), taken by the caller (for instance in a Func of its own,
// whose arithmetic is then not strict: strict float has no fused multiply-add).
Halide::Expr lp_term(const Halide::Expr &x, const Halide::Type &acc_t, const Halide::Expr &p_kind,
                     const Halide::Expr &p, bool narrow,
                     const Halide::Expr &general_power = Halide::Expr());
// |x|, or 1 where x is NaN or inf: what pow may be given (both sides of a select are evaluated).
Halide::Expr finite_magnitude(const Halide::Expr &x);
Halide::Expr norm_of_sum(const Halide::Expr &sum, const Halide::Expr &p_kind,
                         const Halide::Expr &p);

// The output type of a partial reduction of `input`.
Halide::Type partial_output_type(const Halide::Type &input, Reducer reducer);

}  // namespace lpnorm::gen
