// Chooses the schedule family for pooling from the Halide Target.
#include "pool_schedule.h"

#include "cpu_pool_schedule.h"
#include "gpu_pool_schedule.h"

namespace lpnorm::sched {

Halide::Expr pool_recompute_condition(const Halide::GeneratorContext &context, bool channel_blocks,
                                      const Halide::Expr &input_stride0, int spatial,
                                      const gen::PoolWindow &window, const Halide::Expr &rescale) {
    if (context.target().has_gpu_feature() || channel_blocks) {
        return Halide::Internal::const_false();
    }
    if (spatial == 1) {
        return input_stride0 == 1 && rescale == 0 && unrolled_window_1d(window);
    }
    return input_stride0 == 1;
}

void schedule_pool(const gen::PoolStages &stages, const PoolBuffers &buffers,
                   const Halide::GeneratorContext &context, const PoolKnobs &knobs) {
    const Halide::Target &target = context.target();
    if (target.has_gpu_feature()) {
        if (buffers.channel_blocks) {
            throw Halide::CompileError("channel_blocks: CPU targets only");
        }
        schedule_pool_gpu(stages, buffers, target, knobs);
    } else if (stages.sums.size() == 1) {
        schedule_pool_cpu_1d(stages, buffers, target, knobs);
    } else if (buffers.channel_blocks) {
        schedule_pool_cpu_channels(stages, buffers, target, knobs);
    } else {
        schedule_pool_cpu(stages, buffers, target, knobs);
    }
}

void schedule_pool_direct(const gen::PoolDirectStages &stages, const PoolBuffers &buffers,
                          const Halide::GeneratorContext &context, const PoolKnobs &knobs) {
    if (context.target().has_gpu_feature()) {
        throw Halide::CompileError("direct_window: CPU targets only");
    }
    schedule_pool_cpu_direct(stages, buffers, context.target(), knobs);
}

void schedule_pool_flat(const gen::PoolFlatStages &stages, const PoolBuffers &buffers,
                        const Halide::GeneratorContext &context, const PoolKnobs &knobs) {
    if (context.target().has_gpu_feature()) {
        throw Halide::CompileError("flat_plane: CPU targets only");
    }
    schedule_pool_cpu_flat(stages, buffers, context.target(), knobs);
}

}  // namespace lpnorm::sched
