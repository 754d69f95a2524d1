#include "reduce_algorithm.h"

#include "float_math.h"
#include "kernel_abi.h"

namespace lpnorm::gen {

using namespace Halide;
using Halide::Internal::const_false;
using Halide::Internal::make_const;
using Halide::Internal::make_one;
using Halide::Internal::make_zero;

namespace {

// max|x| and min|x| as a min-reduction over unsigned keys of the input's width:
//  - max|x|: key = ~bits(|x|); NaN has the largest |x| bits, so it wins, as it must.
//  - min|x|: key = bits(|x|) + 1 with NaN mapped to 0, so NaN wins; decoding 0 - 1 gives a NaN.
// For integers bits(|x|) is the unsigned absolute value. Both keys are order-preserving.
Expr extreme_key(const Expr &x, const Expr &p_kind) {
    Type t = x.type();
    Type key_t = UInt(t.bits());
    Expr abs_bits = magnitude_bits(x);
    Expr is_nan_x = (t.is_float() || t.is_bfloat()) ? is_nan_bits(x) : const_false();
    Expr min_key = select(is_nan_x, make_zero(key_t), abs_bits + 1);
    if (!(t.is_float() || t.is_bfloat())) {
        min_key = abs_bits;
    }
    return select(p_kind == abi::kMaxAbs, ~abs_bits, min_key);
}

Expr extreme_finish(const Expr &key, const Type &in_t, const Type &out_t, const Expr &p_kind) {
    Type key_t = key.type();
    if (in_t.is_float() || in_t.is_bfloat()) {
        Expr sign_clear = make_const(key_t, (uint64_t(1) << (in_t.bits() - 1)) - 1);
        Expr bits = select(p_kind == abi::kMaxAbs, ~key, key - 1) & sign_clear;
        return reinterpret(out_t, bits);
    }
    Expr abs_value = select(p_kind == abi::kMaxAbs, ~key, key);
    return cast(out_t, min(abs_value, cast(key_t, out_t.max())));
}

std::vector<Expr> kind_conditions(Reducer reducer, const Expr &p_kind) {
    std::vector<Expr> conditions;
    int n = reducer == Reducer::sum ? abi::kNumSumKinds : abi::kNumExtremeKinds;
    for (int k = 0; k < n; k++) {
        conditions.push_back(p_kind == k);
    }
    return conditions;
}

// The term a sum-type reduction adds up, in the accumulator type, for the kinds lp_term does
// not write out itself (L1, general p and the count).
Expr strict_sum_term(const Expr &x, const Type &acc_t, const Expr &p_kind, const Expr &p,
                     bool narrow, const Expr &general_power) {
    Expr a = cast(acc_t, x);
    Expr m = magnitude(a);
    // Both sides of a select are evaluated, and fast-math code may misbehave on NaN or inf
    // even in the side not taken, so pow only ever sees finite values.
    Expr non_finite = is_nan_or_inf_bits(m);
    Expr finite_m = finite_magnitude(a);
    // Tested on the bits: fast-math float compares may treat NaN as equal to anything.
    Expr nonzero = cast(acc_t, select(magnitude_bits(x) != 0, 1, 0));
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kL1, m,
                  // Halide's own float32 pow maps NaN to 0: non-finite |x| is its own term.
                  p_kind == abi::kLp, select(non_finite, m, general_power.defined() ? general_power
                                                            : lp_pow(finite_m, cast(acc_t, p), narrow)),
                  nonzero);
    // clang-format on
}

// The value of the norm from the accumulated sum, still in the accumulator type.
Expr strict_sum_finish(const Expr &s, const Expr &p_kind, const Expr &p) {
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kL2, sqrt(s),
                  p_kind == abi::kL3, cube_root(s),
                  p_kind == abi::kLp, pow(s, make_one(s.type()) / cast(s.type(), p)),
                  s);  // L1 and count
    // clang-format on
}

}  // namespace

// The term a sum-type reduction adds up, in the accumulator type (the square left free to fuse
// with the add into an FMA: see define_reduction). p = 3's last product, |x| times the strict
// square, is left free too: [6, 12, 10, 24] axes {2, 3} float32 went from 1.38-1.39 to
// 1.27-1.29 us (AVX-512) and 1.64-1.67 to 1.50-1.51 us (AVX2 kernels; lpnorm_bench, Xeon,
// three alternating rounds), its sum loop being bound by the vector ports.
Expr lp_term(const Expr &x, const Type &acc_t, const Expr &p_kind, const Expr &p, bool narrow,
             const Expr &general_power) {
    Expr widened = cast(acc_t, x);
    // One (condition, value) pair per line.
    // clang-format off
    return select(p_kind == abi::kL2, widened * widened,
                  p_kind == abi::kL3, strict_float(widened * widened) * magnitude(widened),
                  strict_float(strict_sum_term(x, acc_t, p_kind, p, narrow, general_power)));
    // clang-format on
}

Expr finite_magnitude(const Expr &x) {
    const Expr m = magnitude(x);
    return select(is_nan_or_inf_bits(m), make_one(x.type()), m);
}

Expr norm_of_sum(const Expr &sum, const Expr &p_kind, const Expr &p) {
    // NaN and inf sums are their own norm (pow and the cube root need not handle them).
    Expr non_finite = is_nan_or_inf_bits(sum);
    Expr finite_sum = select(non_finite, make_one(sum.type()), sum);
    return select(non_finite, sum, strict_float(strict_sum_finish(finite_sum, p_kind, p)));
}

Type sum_accumulator_type(const Type &input, bool float32_sums) {
    return Float(abi::sum_accumulator_bits(input.is_float() || input.is_bfloat(), input.bits(),
                                           float32_sums));
}

Expr sums_in_float32_blocks(const Expr &p_kind, const Expr &n, int lanes) {
    const Expr kind =
        p_kind == abi::kL1 || p_kind == abi::kL2 || p_kind == abi::kL3 || p_kind == abi::kCount;
    return kind && n >= lanes * abi::kFloat32BlockTerms;
}

void add_float32_blocks(ReduceStages &s, const Func &row, const Var &k, const Expr &n, int lanes,
                        const Expr &in_blocks, const Expr &p_kind, const Expr &p) {
    const int span = lanes * abi::kFloat32BlockTerms;
    const Type f32 = Float(32);
    s.block_lanes = lanes;
    s.in_blocks = in_blocks;
    Var j("j"), b("b");
    // The general kind never sums in blocks: a zero in place of its power keeps pow out.
    const auto term = [&](const Expr &i) {
        return lp_term(row(i, k), f32, p_kind, p, false, make_zero(f32));
    };
    // Indices within the row wherever the loops run (rows of a block at least): promised, so
    // that bounds inference does not ask a short row's input for a block it never reads.
    const auto in_row = [&](const Expr &i) { return unsafe_promise_clamped(i, 0, n - 1); };
    const Expr full = n / span;
    s.block = Func("block");
    s.block(j, b, k) = make_zero(f32);
    // The whole blocks (update 0), unmasked: block b from b span on.
    RDom whole_terms(0, abi::kFloat32BlockTerms, "g");
    whole_terms.where(b < full);
    s.block(j, b, k) += term(in_row(b * span + whole_terms.x * lanes + j));
    // The last block of a row whose length is not a multiple of span (block `full`): it ends
    // at n, and leaves out the elements of the block before. Its terms start at the first
    // vector that holds any of its own elements; that vector is masked (update 1), the others
    // are not (update 2). Apart from the whole blocks, so that no mask reaches their loop
    // (schedules/cpu_reduce_schedule.cpp has the measurement).
    const Expr last_start = max(0, n - span);
    const Expr first_term = (full * span - last_start) / lanes;
    const auto last_index = [&](const RVar &g) { return in_row(last_start + g * lanes + j); };
    RDom first_terms(first_term, 1, "g_first");
    RDom other_terms(first_term + 1, max(0, abi::kFloat32BlockTerms - 1 - first_term), "g_last");
    first_terms.where(b >= full);
    other_terms.where(b >= full);
    const Expr i_first = last_index(first_terms.x);
    s.block(j, b, k) += select(i_first >= full * span, term(i_first), 0.0f);
    s.block(j, b, k) += term(last_index(other_terms.x));
    s.block_terms = {whole_terms, first_terms, other_terms};
    s.blocks = RDom(0, lanes, 0, select(in_blocks, (n + span - 1) / span, 0), "blocks");
    s.acc(k) += cast<double>(s.block(s.blocks.x, s.blocks.y, k));
}

Type partial_output_type(const Type &input, Reducer reducer) {
    return reducer == Reducer::sum ? sum_accumulator_type(input) : UInt(input.bits());
}

ReduceStages define_reduction(const Expr &x, const std::vector<Var> &vars, const RDom &r,
                              const Type &output_type, Reducer reducer, bool partial,
                              bool float32_sums, const Expr &p_kind, const Expr &p,
                              bool vector_powers,
                              const std::function<void(ReduceStages &)> &more_sums) {
    _halide_user_assert(!(partial && float32_sums))
        << "float32_sums is for whole reductions: partial outputs are float64 accumulators";
    if (partial) {
        _halide_user_assert(output_type == partial_output_type(x.type(), reducer))
            << "a partial reduction of " << x.type() << " outputs "
            << partial_output_type(x.type(), reducer) << ", not " << output_type;
    }
    ReduceStages s;
    s.acc = Func("acc");
    s.out = Func("out");
    s.r = r;
    s.vars = vars;
    s.input_type = x.type();
    s.reducer = reducer;
    s.kind_conditions = kind_conditions(reducer, p_kind);

    std::vector<Expr> args(vars.begin(), vars.end());
    if (reducer == Reducer::sum) {
        s.accum_type = sum_accumulator_type(x.type(), float32_sums);
        s.acc(args) = make_zero(s.accum_type);
        // Halide compiles float math with fast-math flags, which may assume no NaN or inf.
        // The term and the root are marked strict so that NaN and inf propagate as IEEE says
        // (pow(NaN, p), the cube root's refinement, float16 conversions); the accumulating
        // add stays free to be vectorised and reassociated by the schedule. The L2 term, a
        // plain square, stays free too, so that it fuses with the add into one FMA where the
        // target has one: NaN and inf pass through an FMA as through a multiply and an add,
        // and where the square is exact in the accumulator (16- and 32-bit floats) the bits
        // are the same. The small example [6, 12, 10, 24] axes {2, 3}, float32, went from
        // 2.9 us to 2.7 us (lpnorm_bench, AVX-512): conversion, multiply and add were 4 uops
        // per 8 floats on the two vector ports, now 3.
        s.acc(args) +=
            lp_term(x, s.accum_type, p_kind, p, vector_powers && narrow_pow_suffices(x.type()));
        if (more_sums) {
            more_sums(s);
        }
        if (partial) {
            s.out(args) = s.acc(args);
            return s;
        }
        s.out(args) = to_output(norm_of_sum(s.acc(args), p_kind, p), output_type);
    } else {
        s.accum_type = UInt(x.type().bits());
        s.acc(args) = s.accum_type.max();
        s.acc(args) = min(s.acc(args), extreme_key(x, p_kind));
        if (partial) {
            s.out(args) = s.acc(args);
            return s;
        }
        s.out(args) = extreme_finish(s.acc(args), x.type(), output_type, p_kind);
    }
    return s;
}

}  // namespace lpnorm::gen
