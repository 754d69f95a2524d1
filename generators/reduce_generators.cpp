// Reduction generators: one per pattern of kept (k) and reduced (r) dimensions, see
// kernel_abi.h. Each declares its buffers and knobs, builds the algorithm with
// define_reduction(), and hands the stages to schedules/.
#include "Halide.h"
#include "cpu_target.h"
#include "kernel_abi.h"
#include "reduce_algorithm.h"
#include "reduce_schedule.h"

namespace lpnorm::gen {
namespace {

using namespace Halide;

const std::map<std::string, Reducer> kReducerNames = {{"sum", Reducer::sum},
                                                      {"extreme", Reducer::extreme}};

template <typename Self, int InDims, int OutDims, sched::ReducePattern Pattern>
class ReduceGenerator : public Generator<Self> {
public:
    template <typename T>
    using GP = GeneratorParam<T>;

    GP<Reducer> reducer{"reducer", Reducer::sum, kReducerNames};
    // Output the accumulator instead of the norm (output.type = partial_output_type()).
    GP<bool> partial{"partial", false};
    // float32 inputs accumulate in float32, for devices without float64 (D3D12 compute).
    GP<bool> float32_sums{"float32_sums", false};
    // Schedule knobs, with their ranges (schedules/reduce_knobs.def).
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GP<int> name{#name, default_value, min, max};
#include "reduce_knobs.def"
#undef LPNORM_KNOB

    // Element type set on the command line (input.type=float32); dims innermost first.
    GeneratorInput<Buffer<void, InDims>> input{"input"};
    GeneratorInput<int> reduce_mask{"reduce_mask"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    // The input type (output.type=float32), or the accumulator type when `partial`.
    GeneratorOutput<Buffer<void, OutDims>> output{"output"};

    void generate() {
        stages_ = static_cast<Self *>(this)->define();
        output = stages_.out;
        set_estimates(Self::kEstimateExtents, Self::kEstimateMask);
    }

    void schedule() {
        if (this->using_autoscheduler()) {
            return;  // a baseline for tools/autotune: Halide's autoscheduler plans it all
        }
        sched::ReduceKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "reduce_knobs.def"
#undef LPNORM_KNOB
        sched::ReduceBuffers buffers;
        for (int d = 0; d < InDims; d++) {
            buffers.input_extent.push_back(input.dim(d).extent());
        }
        for (int d = 0; d < OutDims; d++) {
            buffers.output_extent.push_back(output.dim(d).extent());
        }
        buffers.input_inner_stride = input.dim(0).stride();
        // The schedule reads the target from the context: only schedules/ looks at it.
        sched::schedule_reduction(Pattern, stages_, buffers, this->context(), knobs);
    }

protected:
    // Sizes for Halide's autoschedulers (the largest benchmark shape of each pattern, see
    // bench/README.md), L2: input extents innermost first, and the reduced dims as a mask.
    void set_estimates(const std::vector<int> &extents, int mask) {
        Region in, out;
        for (int d = 0; d < InDims; d++) {
            const bool reduced = ((mask >> d) & 1) != 0;
            in.emplace_back(0, extents[d]);
            if (!reduced) {
                out.emplace_back(0, extents[d]);
            } else if (OutDims == InDims) {
                out.emplace_back(0, 1);  // the general pattern keeps reduced dims as size 1
            }
        }
        input.set_estimates(in);
        output.set_estimates(out);
        reduce_mask.set_estimate(mask);
        p_kind.set_estimate(abi::kL2);
        p.set_estimate(2.0);
    }

    ReduceStages reduce(const Expr &x, const std::vector<Var> &vars, const RDom &r,
                        const std::function<void(ReduceStages &)> &more_sums = {}) {
        return define_reduction(x, vars, r, output.type(), reducer, partial, float32_sums, p_kind,
                                p, sched::vector_powers(this->context()), more_sums);
    }

    ReduceStages stages_;
};

class ReduceAll : public ReduceGenerator<ReduceAll, 1, 0, sched::ReducePattern::all> {
public:
    // [32, 256, 56, 56], all axes
    inline static const std::vector<int> kEstimateExtents = {32 * 256 * 56 * 56};
    static constexpr int kEstimateMask = 1;

    ReduceStages define() {
        RDom r(0, input.dim(0).extent(), "r");
        return reduce(input(r), {}, r);
    }
};

class ReduceInner : public ReduceGenerator<ReduceInner, 2, 1, sched::ReducePattern::inner> {
public:
    // [32, 256, 56, 56] axes {2, 3}
    inline static const std::vector<int> kEstimateExtents = {56 * 56, 32 * 256};
    static constexpr int kEstimateMask = 1;

    ReduceStages define() {
        Var k("k");
        const Expr n = input.dim(0).extent();
        // float32 rows of whole kernels sum in float32 blocks where the schedule gives them
        // lanes (add_float32_blocks); the rest, and every row too short for a block, in float64.
        const int lanes = sched::float32_block_lanes(this->context());
        if (reducer != Reducer::sum || input.type() != Float(32) || partial || float32_sums ||
            lanes == 0) {
            RDom r(0, n, "r");
            return reduce(input(r, k), {k}, r);
        }
        const Expr in_blocks = sums_in_float32_blocks(p_kind, n, lanes);
        RDom r(0, select(in_blocks, 0, n), "r");
        return reduce(input(r, k), {k}, r, [&](ReduceStages &s) {
            add_float32_blocks(s, input, k, n, lanes, in_blocks, p_kind, p);
        });
    }
};

class ReduceOuter : public ReduceGenerator<ReduceOuter, 2, 1, sched::ReducePattern::outer> {
public:
    // [8192, 8192] axis 0
    inline static const std::vector<int> kEstimateExtents = {8192, 8192};
    static constexpr int kEstimateMask = 2;

    ReduceStages define() {
        Var k("k");
        RDom r(0, input.dim(1).extent(), "r");
        return reduce(input(k, r), {k}, r);
    }
};

class ReduceMiddle : public ReduceGenerator<ReduceMiddle, 3, 2, sched::ReducePattern::middle> {
public:
    // [32, 256, 56, 56] axis 1
    inline static const std::vector<int> kEstimateExtents = {56 * 56, 256, 32};
    static constexpr int kEstimateMask = 2;

    ReduceStages define() {
        Var k0("k0"), k1("k1");
        RDom r(0, input.dim(1).extent(), "r");
        return reduce(input(k0, r, k1), {k0, k1}, r);
    }
};

// Any pattern: dims whose reduce_mask bit is set are reduced (their output extent is 1), the
// others are kept. The input may have any strides, the innermost included.
class ReduceGeneral : public ReduceGenerator<ReduceGeneral, abi::kGeneralRank, abi::kGeneralRank,
                                             sched::ReducePattern::general> {
public:
    // [32, 256, 56, 56] axes {0, 2}
    inline static const std::vector<int> kEstimateExtents = {56, 56, 256, 32, 1, 1, 1, 1};
    static constexpr int kEstimateMask = 0b1010;

    ReduceStages define() {
        input.dim(0).set_stride(Expr());
        std::vector<Var> vars;
        Region extents;
        for (int d = 0; d < abi::kGeneralRank; d++) {
            vars.emplace_back("d" + std::to_string(d));
            Expr reduced = ((reduce_mask >> d) & 1) == 1;
            extents.emplace_back(0, select(reduced, input.dim(d).extent(), 1));
        }
        RDom r(extents, "r");
        std::vector<Expr> coords;
        for (int d = 0; d < abi::kGeneralRank; d++) {
            coords.push_back(vars[d] + r[d]);
        }
        return reduce(input(coords), vars, r);
    }
};

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceAll, reduce_all)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceInner, reduce_inner)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceOuter, reduce_outer)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceMiddle, reduce_middle)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceGeneral, reduce_general)
