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
namespace {

using namespace Halide;

// The block grid of a pooling stage whose threads split dim 0 (into `block` and `thread`): its
// other pure vars (s1.., c, n) with none taken from more than a two-way fuse, s0's blocks in x,
// s1 (or s1 and s2 fused) in y, c and n fused in z. With every var fused into one block index
// (thread_per_point), Halide bounded the vars taken from that fuse by their whole range: the
// producer computed per thread then failed its extent-1 check (a `trap` in the CUDA kernel,
// CUDA_ERROR_LAUNCH_FAILED on an H100) or, where the backend drops the check, indexed its
// one-element buffer out of range. From a two-way fuse they are bounded to the thread's point.
// CUDA takes at most 65535 blocks along y and z: the runtime refuses larger calls
// (check_gpu_pool_grid, runtime/gpu.h).
void pool_grid(Stage f, const VarOrRVar &block, const VarOrRVar &thread,
               const std::vector<Var> &vars, int spatial, const Target &target) {
    const DeviceAPI api = gpu_api(target);
    Var plane("plane");
    f.fuse(vars[spatial], vars[spatial + 1], plane);
    if (spatial == 1) {
        f.gpu_blocks(block, plane, api);
    } else {
        Var rows = vars[1];
        if (spatial == 3) {
            rows = Var("outer");
            f.fuse(vars[1], vars[2], rows);
        }
        f.gpu_blocks(block, rows, plane, api);
    }
    f.gpu_threads(thread, api);
}

// One thread per point of `f` over the pooling vars, in pool_grid's blocks. Returns the thread
// var.
Var thread_per_pool_point(Stage f, const std::vector<Var> &vars, int spatial, int threads,
                          const Target &target) {
    Var block("block"), thread("thread");
    f.split(vars[0], block, thread, threads, TailStrategy::GuardWithIf);
    pool_grid(f, block, thread, vars, spatial, target);
    return thread;
}

}  // namespace

void schedule_pool_gpu(const gen::PoolStages &s, const PoolBuffers &, const Target &target,
                       const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.sums.size());
    // 3-D: the sum along dim 2, stored.
    for (int d = spatial - 1; d >= 2; d--) {
        Func sum = s.sums[d];
        Func stored = sum.in();
        stored.compute_root();
        Var at = thread_per_pool_point(stored, s.vars, spatial, knobs.gpu_threads, target);
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
    // The update's pure vars (the spatial dims past 0, c and n) in the block index.
    pool_grid(fill, block, thread, s.vars, spatial, target);

    Func out = s.out;
    Var at = thread_per_pool_point(out, s.vars, spatial, knobs.gpu_threads, target);
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
