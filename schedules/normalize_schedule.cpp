// Chooses the schedule family for a normalization from the Halide Target, and the copies of
// the stages that every family makes.
#include "normalize_schedule.h"

#include "cpu_normalize_schedule.h"
#include "gpu_normalize_schedule.h"
#include "normalize_specializations.h"

namespace lpnorm::sched {

using namespace Halide;

void specialize_terms(Stage update, const gen::NormalizeStages &s,
                      const std::function<void(Stage)> &schedule_copy) {
    for (bool scaled : {true, false}) {
        Stage copy = update.specialize(scaled ? s.scaled : !s.scaled);
        for (const Expr &kind : s.kind_conditions) {
            schedule_copy(copy.specialize(kind));
        }
    }
}

// Selects evaluate every side: the general-p root's pow per group cost 5.6% of [4096, 1024]
// float32 p = 2 (perf) before the roots had a copy per kind.
void specialize_roots(gen::NormalizeStages &s) {
    for (const Expr &kind : s.kind_conditions) {
        s.root.specialize(kind);
    }
    Stage pair = s.pair_root.specialize(s.pair_needed);
    for (const Expr &kind : s.kind_conditions) {
        pair.specialize(kind);
    }
}

void schedule_normalize(NormalizePattern pattern, const gen::NormalizeStages &stages,
                        const NormalizeBuffers &buffers, const GeneratorContext &context,
                        const NormalizeKnobs &knobs) {
    const Target &target = context.target();
    if (target.has_gpu_feature()) {
        // CUDA, OpenCL and D3D12 compute share one schedule.
        schedule_normalize_gpu(pattern, stages, buffers, target, knobs);
        return;
    }
    // x86 (SSE4.1, AVX2, AVX-512) and ARM share the CPU schedule; they differ in vector
    // width, which comes from the target.
    schedule_normalize_cpu(pattern, stages, buffers, target, knobs);
}

}  // namespace lpnorm::sched
