// The pooling generator: one per spatial rank (spatial=1, 2, 3), see kernel_abi.h. It declares
// the buffers, window inputs and knobs, builds the algorithm with define_pool(), and hands
// the stages to schedules/.
#include "Halide.h"
#include "kernel_abi.h"
#include "pool_algorithm.h"
#include "pool_schedule.h"

namespace lpnorm::gen {
namespace {

using namespace Halide;

class Pool : public Generator<Pool> {
public:
    GeneratorParam<int> spatial{"spatial", 2, 1, abi::kMaxPoolSpatial};
    // 2-D only: channels in the vector lanes (kernel_abi.h, kChannelBlockMinExtent).
    GeneratorParam<bool> channel_blocks{"channel_blocks", false};
    // 2-D only, CPU: each window summed from the input, for the windows that
    // abi::pool_direct_window() takes.
    GeneratorParam<bool> direct_window{"direct_window", false};
    // 2-D only, CPU: stride 1 and same-size windows summed along each plane's rows laid end to
    // end, for the windows that abi::pool_flat_window() takes.
    GeneratorParam<bool> flat_plane{"flat_plane", false};
    // The root of float32 sums for integer p >= 5 refined in float64 (false where the target
    // has no float64).
    GeneratorParam<bool> float64_powers{"float64_powers", true};
    // Schedule knobs, with their ranges (schedules/pool_knobs.def).
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning)                                 \
    GeneratorParam<int> name{#name, default_value, min, max};
#include "pool_knobs.def"
#undef LPNORM_KNOB

    // (s0, ..., s{spatial-1}, c, n), innermost first; the element type is set on the command
    // line (input.type=float32), the dimension count in configure().
    GeneratorInput<Buffer<void>> input{"input"};
    GeneratorInput<int> p_kind{"p_kind"};
    GeneratorInput<double> p{"p"};
    GeneratorInput<int> signed_pow{"signed_pow"};
    GeneratorInput<int> rescale{"rescale"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> kernel{"kernel"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> stride{"stride"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> dilation{"dilation"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> pad_begin{"pad_begin"};
    GeneratorInput<int[abi::kMaxPoolSpatial]> pad_end{"pad_end"};
    // Must be given the same type as the input (output.type=float32).
    GeneratorOutput<Buffer<void>> output{"output"};

    void configure() {
        input.set_dimensions(spatial + 2);
        output.set_dimensions(spatial + 2);
    }

    void generate() {
        // Any strides, the innermost included (channels-last views); schedules specialise
        // the dense case.
        // direct_window and flat_plane kernels take dense rows only.
        input.dim(0).set_stride(direct_window || flat_plane ? Expr(1) : Expr());
        PoolWindow window;
        for (int d = 0; d < spatial; d++) {
            window.extent.push_back(input.dim(d).extent());
            window.kernel.push_back(kernel[d]);
            window.stride.push_back(stride[d]);
            window.dilation.push_back(dilation[d]);
            window.pad_begin.push_back(pad_begin[d]);
            window.pad_end.push_back(pad_end[d]);
        }
        if (!channel_blocks) {
            // The channel-block schedule unrolls the taps of kernels 2 and 3; the runtime
            // calls it only where a window's span is small (runtime/pool.cpp).
            window.output_min0 = output.dim(0).min();
            window.output_extent0 = output.dim(0).extent();
        }
        Func in("in");
        in(_) = input(_);
        if (flat_plane) {
            if (spatial != 2) throw CompileError("flat_plane: 2-D kernels only");
            flat_stages_ = define_pool_flat(in, window, output, output.type(), p_kind);
            set_estimates();
            return;
        }
        if (direct_window) {
            direct_stages_ = define_pool_direct(in, spatial, window, output, output.type(), p_kind);
            set_estimates();
            return;
        }
        stages_ = define_pool(
            in, spatial, window, output, output.type(), p_kind, p, signed_pow, rescale,
            float64_powers,
            sched::pool_recompute_condition(this->context(), channel_blocks, input.dim(0).stride(),
                                            spatial, window, rescale));
        set_estimates();
    }

    void schedule() {
        if (using_autoscheduler()) {
            return;  // a baseline for tools/autotune: Halide's autoscheduler plans it all
        }
        sched::PoolKnobs knobs;
#define LPNORM_KNOB(name, default_value, min, max, scale, meaning) knobs.name = name;
#include "pool_knobs.def"
#undef LPNORM_KNOB
        sched::PoolBuffers buffers;
        buffers.channel_blocks = channel_blocks;
        buffers.input_stride0 = input.dim(0).stride();
        for (int d = 0; d < spatial + 2; d++) {
            buffers.output_extent.push_back(output.dim(d).extent());
        }
        // The schedule reads the target from the context: only schedules/ looks at it.
        if (flat_plane) {
            sched::schedule_pool_flat(flat_stages_, buffers, this->context(), knobs);
            return;
        }
        if (direct_window) {
            sched::schedule_pool_direct(direct_stages_, buffers, this->context(), knobs);
            return;
        }
        sched::schedule_pool(stages_, buffers, this->context(), knobs);
    }

private:
    // Sizes for Halide's autoschedulers: a benchmark case of each rank (bench/README.md), p = 2.
    //   1-D: k4 s2 on [32, 64, 8192]; 2-D: 3x3 s2 pad 1 on [32, 64, 112, 112];
    //   3-D: 2x2x2 s2 on [4, 32, 32, 56, 56].
    void set_estimates() {
        struct Case {
            std::vector<int> in;  // innermost first
            int kernel, stride, pad, out;
        };
        static const Case kCases[] = {{{8192, 64, 32}, 4, 2, 0, 4095},
                                      {{112, 112, 64, 32}, 3, 2, 1, 56},
                                      {{56, 56, 32, 32, 4}, 2, 2, 0, 28}};
        const Case &c = kCases[spatial - 1];
        Region in, out;
        for (int d = 0; d < spatial + 2; d++) {
            in.emplace_back(0, c.in[d]);
            out.emplace_back(0, d < spatial ? c.out : c.in[d]);
        }
        input.set_estimates(in);
        output.set_estimates(out);
        p_kind.set_estimate(abi::kPool2);
        p.set_estimate(2.0);
        signed_pow.set_estimate(0);
        rescale.set_estimate(0);
        for (int d = 0; d < abi::kMaxPoolSpatial; d++) {
            kernel.set_estimate(d, c.kernel);
            stride.set_estimate(d, c.stride);
            dilation.set_estimate(d, 1);
            pad_begin.set_estimate(d, c.pad);
            pad_end.set_estimate(d, c.pad);
        }
    }

    PoolStages stages_;
    PoolDirectStages direct_stages_;
    PoolFlatStages flat_stages_;
};

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::Pool, pool)
