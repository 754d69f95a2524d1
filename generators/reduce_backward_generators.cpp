// Reduction gradient generators: one per pattern of the reduced dim r among the kept ones k
// (kernel_abi.h), in the layouts of the normalization kernels. Each declares its buffers and
// knobs, builds the algorithm with define_reduce_backward(), and hands the stages to schedules/.
#include "Halide.h"
#include "kernel_abi.h"
#include "reduce_backward_algorithm.h"
#include "reduce_backward_schedule.h"

namespace lpnorm::gen {
namespace {

using namespace Halide;

template <typename Self, int Dims, int RDim, sched::ReduceBackwardPattern Pattern>
class ReduceBackwardGenerator : public Generator<Self> {
public:
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GeneratorParam<int> name{#name, default_value, min, max};
#include "reduce_backward_knobs.def"
#undef LPNORM_KNOB

    // Element types set on the command line (input.type=float32 y.type=float32 ...), all the
    // same; dims innermost first. x is the forward's input, y its output and dy the gradient of
    // y, with x's dims and r of extent 1; dx, the gradient of x, is the output.
    GeneratorInput<Buffer<void, Dims>> x{"input"};
    GeneratorInput<Buffer<void, Dims>> y{"y"};
    GeneratorInput<Buffer<void, Dims>> dy{"dy"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    GeneratorOutput<Buffer<void, Dims>> dx{"output"};

    void generate() {
        std::vector<Var> vars;
        for (int d = 0; d < Dims; d++) {
            vars.emplace_back(d == RDim ? "r" : "k" + std::to_string(d));
        }
        stages_ = define_reduce_backward(x, y, dy, vars, RDim, x.dim(RDim).extent(), dx.type(),
                                         p_kind, p);
        dx = stages_.out;
        Region region, group_region;
        for (int d = 0; d < Dims; d++) {
            region.emplace_back(0, Self::kEstimateExtents[d]);
            group_region.emplace_back(0, d == RDim ? 1 : Self::kEstimateExtents[d]);
        }
        x.set_estimates(region);
        dx.set_estimates(region);
        y.set_estimates(group_region);
        dy.set_estimates(group_region);
        p_kind.set_estimate(abi::kL2);
        p.set_estimate(2.0);
    }

    void schedule() {
        if (this->using_autoscheduler()) return;
        sched::ReduceBackwardKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "reduce_backward_knobs.def"
#undef LPNORM_KNOB
        sched::ReduceBackwardBuffers buffers;
        for (int d = 0; d < Dims; d++) {
            buffers.x_extent.push_back(x.dim(d).extent());
        }
        sched::schedule_reduce_backward(Pattern, stages_, buffers, this->context(), knobs);
    }

private:
    ReduceBackwardStages stages_;
};

class ReduceBackwardInner : public ReduceBackwardGenerator<ReduceBackwardInner, 2, 0,
                                                           sched::ReduceBackwardPattern::inner> {
public:
    // [4096, 1024] axis -1
    inline static const std::vector<int> kEstimateExtents = {1024, 4096};
};

class ReduceBackwardMiddle : public ReduceBackwardGenerator<ReduceBackwardMiddle, 3, 1,
                                                            sched::ReduceBackwardPattern::middle> {
public:
    // [32, 256, 56, 56] axis 1
    inline static const std::vector<int> kEstimateExtents = {56 * 56, 256, 32};
};

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceBackwardInner, reduce_backward_inner)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::ReduceBackwardMiddle, reduce_backward_middle)
