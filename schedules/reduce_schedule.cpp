// Chooses the schedule family for a reduction from the Halide Target.
#include "reduce_schedule.h"

#include "cpu_reduce_schedule.h"
#include "gpu_reduce_schedule.h"

namespace lpnorm::sched {

void schedule_reduction(ReducePattern pattern, const gen::ReduceStages &stages,
                        const ReduceBuffers &buffers, const Halide::GeneratorContext &context,
                        const ReduceKnobs &knobs) {
    const Halide::Target &target = context.target();
    if (target.has_gpu_feature()) {
        // CUDA, OpenCL and D3D12 compute share one schedule.
        schedule_reduction_gpu(pattern, stages, buffers, target, knobs);
        return;
    }
    // x86 (SSE4.1, AVX2, AVX-512) and ARM share the CPU schedule; they differ in vector
    // width, which comes from the target.
    schedule_reduction_cpu(pattern, stages, buffers, target, knobs);
}

}  // namespace lpnorm::sched
