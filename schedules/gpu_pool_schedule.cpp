// GPU schedule of the pooling generator (CUDA, OpenCL, D3D12 compute).
//
// The window is summed one spatial dim at a time, as the algorithm states it, from the
// outermost dim in. Every sum along an outer dim is a kernel of its own that stores its
// result: for 3-D the sum along dim 2 has one thread per point, which adds its taps in a
// register; `padded` (the sum along dim 1, or for 1-D a copy of the term) is zeroed by one
// kernel and written over the input's dim-0 range by a second, one thread per point with the
// taps in a register. The sum along dim 0 and the root are computed by one thread per output.
// |x|^p is recomputed per tap of the first sum, which reads the input. Neighbouring threads
// handle neighbouring points of the innermost dim, so loads and stores are coalesced for
// dense rows. GPU kernels cannot hold a per-thread array of runtime size, which rules out the
// CPU schedule's sliding window.
#include "gpu_pool_schedule.h"

#include "gpu_common.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_pool_gpu(const gen::PoolStages &s, const PoolBuffers &, const Target &target,
                       const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.sums.size());
    const DeviceAPI api = gpu_api(target);
    // 3-D: the sum along dim 2, stored.
    for (int d = spatial - 1; d >= 2; d--) {
        Func sum = s.sums[d];
        Func stored = sum.in();
        stored.compute_root();
        Var at = thread_per_point(stored, s.vars, knobs.gpu_threads, target);
        compute_per_thread(sum, stored, at);
    }

    // `padded`: its zeroing kernel, then its update with one thread per point of the input's
    // dim-0 range (the update's pure vars are the other dims) and the taps inside the thread.
    Func padded = s.padded;
    padded.compute_root();
    thread_per_point(padded, s.vars, knobs.gpu_threads, target);
    Stage fill = padded.update();
    RVar rx = s.padded_x, block("rx_block"), thread("rx_thread");
    fill.split(rx, block, thread, knobs.gpu_threads, TailStrategy::GuardWithIf);
    if (spatial >= 2) {
        fill.reorder(s.taps[1].y, thread, block);
    }
    // The update's pure vars in the block index: c and n fused, and the spatial dims past 0
    // (for 3-D fused too: a kernel has at most 3 block dims).
    Var plane("plane");
    fill.fuse(s.vars[spatial], s.vars[spatial + 1], plane);
    if (spatial == 1) {
        fill.gpu_blocks(block, plane, api);
    } else {
        Var rows = s.vars[1];
        if (spatial == 3) {
            rows = Var("outer");
            fill.fuse(s.vars[1], s.vars[2], rows);
        }
        fill.gpu_blocks(block, rows, plane, api);
    }
    fill.gpu_threads(thread, api);

    Func out = s.out;
    Var at = thread_per_point(out, s.vars, knobs.gpu_threads, target);
    compute_per_thread(s.sums[0], out, at);

    // Each p_kind gets its own copy of the stages that raise to p or take the root; the last
    // kind is the unspecialised stage (a failure branch inside a GPU kernel could not report
    // anything, and the runtime passes only valid kinds).
    Func outermost = s.sums[spatial - 1];
    Stage first_sum = spatial <= 2 ? fill : outermost.update();
    for (Stage stage : {first_sum, Stage(out)}) {
        for (size_t k = 0; k + 1 < s.kind_conditions.size(); k++) {
            stage.specialize(s.kind_conditions[k]);
        }
    }
}

}  // namespace lpnorm::sched
