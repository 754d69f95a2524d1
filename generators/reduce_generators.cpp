// Reduction generators: one per pattern of kept (k) and reduced (r) dimensions, see
// kernel_abi.h. Each declares its buffers and knobs, builds the algorithm with
// define_reduction(), and hands the stages to schedules/.
#include "Halide.h"
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
    // Schedule knobs (see schedules/reduce_schedule.h for their meaning).
    GP<int> vector_multiple{"vector_multiple", sched::ReduceKnobs{}.vector_multiple};
    GP<int> min_tasks{"min_tasks", sched::ReduceKnobs{}.min_tasks};
    GP<int> parallel_min_elements{"parallel_min_elements",
                                  sched::ReduceKnobs{}.parallel_min_elements};
    GP<int> task_elements{"task_elements", sched::ReduceKnobs{}.task_elements};
    GP<int> streams{"streams", sched::ReduceKnobs{}.streams};

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
    }

    void schedule() {
        sched::ReduceKnobs knobs;
        knobs.vector_multiple = vector_multiple;
        knobs.min_tasks = min_tasks;
        knobs.parallel_min_elements = parallel_min_elements;
        knobs.task_elements = task_elements;
        knobs.streams = streams;
        sched::ReduceBuffers buffers;
        for (int d = 0; d < InDims; d++) {
            buffers.input_extent.push_back(input.dim(d).extent());
        }
        for (int d = 0; d < OutDims; d++) {
            buffers.output_extent.push_back(output.dim(d).extent());
        }
        // The schedule reads the target from the context: only schedules/ looks at it.
        sched::schedule_reduction(Pattern, stages_, buffers, this->context(), knobs);
    }

protected:
    ReduceStages reduce(const Expr &x, const std::vector<Var> &vars, const RDom &r) {
        return define_reduction(x, vars, r, output.type(), reducer, partial, p_kind, p);
    }

    ReduceStages stages_;
};

class ReduceAll : public ReduceGenerator<ReduceAll, 1, 0, sched::ReducePattern::all> {
public:
    ReduceStages define() {
        RDom r(0, input.dim(0).extent(), "r");
        return reduce(input(r), {}, r);
    }
};

class ReduceInner : public ReduceGenerator<ReduceInner, 2, 1, sched::ReducePattern::inner> {
public:
    ReduceStages define() {
        Var k("k");
        RDom r(0, input.dim(0).extent(), "r");
        return reduce(input(r, k), {k}, r);
    }
};

class ReduceOuter : public ReduceGenerator<ReduceOuter, 2, 1, sched::ReducePattern::outer> {
public:
    ReduceStages define() {
        Var k("k");
        RDom r(0, input.dim(1).extent(), "r");
        return reduce(input(k, r), {k}, r);
    }
};

class ReduceMiddle : public ReduceGenerator<ReduceMiddle, 3, 2, sched::ReducePattern::middle> {
public:
    ReduceStages define() {
        Var k0("k0"), k1("k1");
        RDom r(0, input.dim(1).extent(), "r");
        return reduce(input(k0, r, k1), {k0, k1}, r);
    }
};

// Any pattern: dims whose reduce_mask bit is set are reduced (their output extent is 1), the
// others are kept. The input may have any strides, the innermost included.
class ReduceGeneral : public ReduceGenerator<ReduceGeneral, abi::kGeneralRank,
                                             abi::kGeneralRank, sched::ReducePattern::general> {
public:
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
