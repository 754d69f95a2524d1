// GPU schedule of the pooling generator (CUDA, OpenCL, D3D12 compute).
//
// The window is summed one spatial dim at a time, as the algorithm states it: each window sum
// but the last is a kernel of its own with one thread per point of its (partly pooled)
// output, which adds its taps in a register and stores once; the last sum and the root are
// computed by one thread per output. |x|^p is recomputed per tap of the first sum, which
// reads the input. Neighbouring threads handle neighbouring points of the innermost dim, so
// loads and stores are coalesced for dense rows. GPU kernels cannot hold a per-thread array
// of runtime size, which rules out the CPU schedule's sliding window.
#include "gpu_pool_schedule.h"

#include "gpu_common.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_pool_gpu(const gen::PoolStages &s, const PoolBuffers &, const Target &target,
                       const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.sums.size());
    std::vector<Func> sums = s.sums;
    Func out = s.out;
    for (int d = 0; d + 1 < spatial; d++) {
        Func stored = sums[d].in();
        stored.compute_root();
        Var at = thread_per_point(stored, s.vars, knobs.gpu_threads, target);
        compute_per_thread(sums[d], stored, at);
    }
    Var at = thread_per_point(out, s.vars, knobs.gpu_threads, target);
    compute_per_thread(sums[spatial - 1], out, at);
    // Each p_kind gets its own copy of the stages that raise to p or take the root; the last
    // kind is the unspecialised stage (a failure branch inside a GPU kernel could not report
    // anything, and the runtime passes only valid kinds).
    for (Stage stage : {sums[0].update(), Stage(out)}) {
        for (size_t k = 0; k + 1 < s.kind_conditions.size(); k++) {
            stage.specialize(s.kind_conditions[k]);
        }
    }
}

}  // namespace lpnorm::sched
