// Normalization generators and their gradients: one per pattern of the normalized dim r among
// the kept ones k (kernel_abi.h). Each declares its buffers and knobs, builds the algorithm with
// define_normalize(), and hands the stages to schedules/.
#include "Halide.h"
#include "cpu_target.h"
#include "kernel_abi.h"
#include "normalize_algorithm.h"
#include "normalize_backward_algorithm.h"
#include "normalize_backward_schedule.h"
#include "normalize_schedule.h"

namespace lpnorm::gen {
namespace {

using namespace Halide;

template <typename Self, int Dims, int RDim, sched::NormalizePattern Pattern>
class NormalizeGenerator : public Generator<Self> {
public:
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GeneratorParam<int> name{#name, default_value, min, max};
#include "normalize_knobs.def"
#undef LPNORM_KNOB
    // The target converts float32 to float16 in hardware, NaN kept (set per ISA family by
    // cmake/LpnormTargets.cmake: F16C on x86, FP16 on ARM64).
    GeneratorParam<bool> float16_keeps_nan{"float16_keeps_nan", false};
    // The target has fused multiply-add instructions (set per ISA family as above: AVX2 and
    // AVX-512 on x86, every ARM64 core). Only the inner pattern scales float32 with them: the
    // middle one reads the groups' three float32 factors per vector of x, and its short tile
    // rows lost more to that than the conversions cost ([1, 512, 38, 38] p = 2 took 64-67
    // against 59-62 us; [8, 256, 28, 28] 5-8% less; AVX-512, 2 threads, interleaved runs).
    GeneratorParam<bool> has_fma{"has_fma", false};

    // Element type set on the command line (input.type=float32); dims innermost first.
    GeneratorInput<Buffer<void, Dims>> input{"input"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    GeneratorInput<int> eps_kind{"eps_kind"};
    GeneratorInput<double> eps{"eps"};
    GeneratorInput<double> eps_root{"eps_root"};
    GeneratorInput<int> scaled{"scaled"};
    // The input's type (output.type=float32).
    GeneratorOutput<Buffer<void, Dims>> output{"output"};

    void generate() {
        std::vector<Var> vars;
        for (int d = 0; d < Dims; d++) {
            vars.emplace_back(d == RDim ? "r" : "k" + std::to_string(d));
        }
        stages_ = define_normalize(input, vars, RDim, input.dim(RDim).extent(), output.type(),
                                   p_kind, p, eps_kind, eps, eps_root, scaled, float16_keeps_nan,
                                   has_fma && Pattern == sched::NormalizePattern::inner,
                                   sched::vector_powers(this->context()));
        output = stages_.out;
        Region region;
        for (int extent : Self::kEstimateExtents) {
            region.emplace_back(0, extent);
        }
        input.set_estimates(region);
        output.set_estimates(region);
        p_kind.set_estimate(abi::kL2);
        p.set_estimate(2.0);
        eps_kind.set_estimate(abi::kEpsNone);
        eps.set_estimate(0.0);
        eps_root.set_estimate(0.0);
        scaled.set_estimate(0);
    }

    void schedule() {
        if (this->using_autoscheduler()) return;
        sched::NormalizeKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "normalize_knobs.def"
#undef LPNORM_KNOB
        sched::NormalizeBuffers buffers;
        for (int d = 0; d < Dims; d++) {
            buffers.input_extent.push_back(input.dim(d).extent());
        }
        sched::schedule_normalize(Pattern, stages_, buffers, this->context(), knobs);
    }

private:
    NormalizeStages stages_;
};

// The gradient: dx from x and dy (input.type=, dy.type= and output.type= the same dtype), with
// the forward's scalar inputs.
template <typename Self, int Dims, int RDim, sched::NormalizePattern Pattern>
class NormalizeBackwardGenerator : public Generator<Self> {
public:
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GeneratorParam<int> name{#name, default_value, min, max};
#include "normalize_knobs.def"
#undef LPNORM_KNOB

    GeneratorInput<Buffer<void, Dims>> input{"input"};
    GeneratorInput<Buffer<void, Dims>> dy{"dy"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    GeneratorInput<int> eps_kind{"eps_kind"};
    GeneratorInput<double> eps{"eps"};
    GeneratorInput<double> eps_root{"eps_root"};
    GeneratorInput<int> scaled{"scaled"};
    GeneratorOutput<Buffer<void, Dims>> output{"output"};

    void generate() {
        std::vector<Var> vars;
        for (int d = 0; d < Dims; d++) {
            vars.emplace_back(d == RDim ? "r" : "k" + std::to_string(d));
        }
        stages_ = define_normalize_backward(input, dy, vars, RDim, input.dim(RDim).extent(),
                                            output.type(), p_kind, p, eps_kind, eps, eps_root,
                                            scaled, sched::vector_powers(this->context()));
        output = stages_.out;
        Region region;
        for (int extent : Self::kEstimateExtents) {
            region.emplace_back(0, extent);
        }
        input.set_estimates(region);
        dy.set_estimates(region);
        output.set_estimates(region);
        p_kind.set_estimate(abi::kL2);
        p.set_estimate(2.0);
        eps_kind.set_estimate(abi::kEpsNone);
        eps.set_estimate(0.0);
        eps_root.set_estimate(0.0);
        scaled.set_estimate(0);
    }

    void schedule() {
        if (this->using_autoscheduler()) return;
        sched::NormalizeKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "normalize_knobs.def"
#undef LPNORM_KNOB
        sched::NormalizeBuffers buffers;
        for (int d = 0; d < Dims; d++) {
            buffers.input_extent.push_back(input.dim(d).extent());
        }
        sched::schedule_normalize_backward(Pattern, stages_, buffers, this->context(), knobs);
    }

private:
    NormalizeBackwardStages stages_;
};

class NormalizeInner
    : public NormalizeGenerator<NormalizeInner, 2, 0, sched::NormalizePattern::inner> {
public:
    // [4096, 1024] axis -1
    inline static const std::vector<int> kEstimateExtents = {1024, 4096};
};

class NormalizeMiddle
    : public NormalizeGenerator<NormalizeMiddle, 3, 1, sched::NormalizePattern::middle> {
public:
    // [32, 256, 56, 56] axis 1
    inline static const std::vector<int> kEstimateExtents = {56 * 56, 256, 32};
};

class NormalizeBackwardInner : public NormalizeBackwardGenerator<NormalizeBackwardInner, 2, 0,
                                                                 sched::NormalizePattern::inner> {
public:
    inline static const std::vector<int> kEstimateExtents = NormalizeInner::kEstimateExtents;
};

class NormalizeBackwardMiddle : public NormalizeBackwardGenerator<NormalizeBackwardMiddle, 3, 1,
                                                                  sched::NormalizePattern::middle> {
public:
    inline static const std::vector<int> kEstimateExtents = NormalizeMiddle::kEstimateExtents;
};

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::NormalizeInner, normalize_inner)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::NormalizeMiddle, normalize_middle)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::NormalizeBackwardInner, normalize_backward_inner)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::NormalizeBackwardMiddle, normalize_backward_middle)
