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
    // Schedule knobs (see schedules/pool_schedule.h for their meaning).
    GeneratorParam<int> vector_multiple{"vector_multiple", sched::PoolKnobs{}.vector_multiple};
    GeneratorParam<int> parallel_min_elements{"parallel_min_elements",
                                              sched::PoolKnobs{}.parallel_min_elements};
    GeneratorParam<int> min_planes{"min_planes", sched::PoolKnobs{}.min_planes};
    GeneratorParam<int> strip_rows{"strip_rows", sched::PoolKnobs{}.strip_rows};

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
        input.dim(0).set_stride(Expr());
        PoolWindow window;
        for (int d = 0; d < spatial; d++) {
            window.extent.push_back(input.dim(d).extent());
            window.kernel.push_back(kernel[d]);
            window.stride.push_back(stride[d]);
            window.dilation.push_back(dilation[d]);
            window.pad_begin.push_back(pad_begin[d]);
            window.pad_end.push_back(pad_end[d]);
        }
        Func in("in");
        in(_) = input(_);
        stages_ = define_pool(in, spatial, window, output.type(), p_kind, p, signed_pow, rescale);
        output = stages_.out;
    }

    void schedule() {
        sched::PoolKnobs knobs;
        knobs.vector_multiple = vector_multiple;
        knobs.parallel_min_elements = parallel_min_elements;
        knobs.min_planes = min_planes;
        knobs.strip_rows = strip_rows;
        sched::PoolBuffers buffers;
        buffers.input_stride0 = input.dim(0).stride();
        for (int d = 0; d < spatial + 2; d++) {
            buffers.output_extent.push_back(output.dim(d).extent());
        }
        // The schedule reads the target from the context: only schedules/ looks at it.
        sched::schedule_pool(stages_, buffers, this->context(), knobs);
    }

private:
    PoolStages stages_;
};

}  // namespace
}  // namespace lpnorm::gen

HALIDE_REGISTER_GENERATOR(lpnorm::gen::Pool, pool)
