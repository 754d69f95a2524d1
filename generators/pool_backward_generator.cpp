// Pooling gradient generators: two per spatial rank (kernel_abi.h), pool_backward_<rank>d for
// the per-window kinds and pool_backward_<rank>d_separable for the separable ones
// (pool_backward_algorithm.h). Each declares its buffers, window inputs and knobs, builds the
// algorithm with define_pool_backward(), and hands the stages to schedules/.
#include "Halide.h"
#include "kernel_abi.h"
#include "pool_backward_algorithm.h"
#include "pool_backward_schedule.h"

namespace lpnorm::gen {
namespace {

using namespace Halide;

template <int Spatial, bool Separable>
class PoolBackwardGenerator : public Generator<PoolBackwardGenerator<Spatial, Separable>> {
public:
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GeneratorParam<int> name{#name, default_value, min, max};
#include "pool_backward_knobs.def"
#undef LPNORM_KNOB

    // Element types set on the command line (input.type=float32 y.type=float32 ...), all the
    // same; dims (s0, .., c, n), innermost first, any strides. x is the call's view of the
    // forward's input, y the forward's output and dy its gradient; dx, over x's view, is the
    // output.
    GeneratorInput<Buffer<void, Spatial + 2>> x{"input"};
    GeneratorInput<Buffer<void, Spatial + 2>> y{"y"};
    GeneratorInput<Buffer<void, Spatial + 2>> dy{"dy"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    GeneratorInput<int> signed_pow{"signed_pow"};
    GeneratorInput<int> rescale{"rescale"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> kernel{"kernel"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> stride{"stride"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> dilation{"dilation"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> padded{"padded"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> taps{"taps"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> first_window{"first_window"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> window_step{"window_step"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> window_stride{"window_stride"};
    GeneratorOutput<Buffer<void, Spatial + 2>> dx{"output"};

    void generate() {
        // Every buffer's dims start at 0 (the runtime's views): the phases of a stride along
        // dim 0 are then known at compile time (element 2q + r of a vector of q is phase r).
        for (auto *b : {&x, &y, &dy}) {
            (*b).dim(0).set_stride(Expr());
            for (int d = 0; d < Spatial + 2; d++) (*b).dim(d).set_min(0);
        }
        PoolBackwardWindows w;
        for (int d = 0; d < Spatial; d++) {
            w.taps.push_back(taps[d]);
            w.first_window.push_back(first_window[d]);
            w.window_step.push_back(window_step[d]);
            w.window_stride.push_back(window_stride[d]);
            w.kernel.push_back(kernel[d]);
            w.stride.push_back(stride[d]);
            w.dilation.push_back(dilation[d]);
            w.padded.push_back(padded[d]);
            w.output_extent.push_back(y.dim(d).extent());
        }
        Func out("dx");
        stages_ = define_pool_backward(x, y, dy, Spatial, Separable, w, out, dx.type(), p_kind, p,
                                       signed_pow, rescale);
        dx = stages_.out;
        dx.dim(0).set_stride(Expr());  // the phases of a stride along dim 0 write every s-th
        for (int d = 0; d < Spatial + 2; d++) dx.dim(d).set_min(0);
        set_estimates();
    }

    void schedule() {
        if (this->using_autoscheduler()) return;
        sched::PoolBackwardKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "pool_backward_knobs.def"
#undef LPNORM_KNOB
        sched::PoolBackwardBuffers buffers;
        buffers.unit_strides = x.dim(0).stride() == 1 && dx.dim(0).stride() == 1 &&
                               y.dim(0).stride() == 1 && dy.dim(0).stride() == 1;
        for (int d = 0; d < Spatial + 2; d++) {
            buffers.dx_extent.push_back(dx.dim(d).extent());
        }
        sched::schedule_pool_backward(stages_, buffers, this->context(), knobs);
    }

private:
    // The bench's case of each rank (bench/README.md), p = 2, stride 1 along each dim.
    void set_estimates() {
        const std::vector<int> in = Spatial == 1   ? std::vector<int>{8192, 64, 32}
                                    : Spatial == 2 ? std::vector<int>{112, 112, 64, 32}
                                                   : std::vector<int>{56, 56, 32, 32, 4};
        Region region;
        for (int d = 0; d < Spatial + 2; d++) {
            region.emplace_back(0, in[d]);
        }
        x.set_estimates(region);
        y.set_estimates(region);
        dy.set_estimates(region);
        dx.set_estimates(region);
        p_kind.set_estimate(abi::kPool2);
        p.set_estimate(2.0);
        signed_pow.set_estimate(0);
        rescale.set_estimate(0);
        for (int d = 0; d < abi::kMaxPoolSpatial; d++) {
            kernel.set_estimate(d, 3);
            stride.set_estimate(d, 1);
            dilation.set_estimate(d, 1);
            padded.set_estimate(d, d < Spatial ? in[d] + 2 : 1);
            taps.set_estimate(d, 3);
            first_window.set_estimate(d, 1);
            window_step.set_estimate(d, 1);
            window_stride.set_estimate(d, 1);
        }
    }

    PoolBackwardStages stages_;
};

using PoolBackward1d = PoolBackwardGenerator<1, false>;
using PoolBackward2d = PoolBackwardGenerator<2, false>;
using PoolBackward3d = PoolBackwardGenerator<3, false>;
using PoolBackward1dSeparable = PoolBackwardGenerator<1, true>;
using PoolBackward2dSeparable = PoolBackwardGenerator<2, true>;
using PoolBackward3dSeparable = PoolBackwardGenerator<3, true>;

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward1d, pool_backward_1d)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward2d, pool_backward_2d)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward3d, pool_backward_3d)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward1dSeparable, pool_backward_1d_separable)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward2dSeparable, pool_backward_2d_separable)
HALIDE_REGISTER_GENERATOR(lpnorm::gen::PoolBackward3dSeparable, pool_backward_3d_separable)
