// GPU schedules of the reduction patterns (CUDA, OpenCL, D3D12 compute).
//
// Every pattern is memory-bound, so each schedule aims at one pass over the input in which
// neighbouring threads read neighbouring elements (coalesced loads), with enough threads in
// flight to cover the memory latency:
//   all:           blocks stride through contiguous chunks; a block's partial sums meet in
//                  shared memory as a two-level tree; one thread adds the blocks' results.
//   inner:         a block of lanes shares each reduced row and reads it coalesced; the
//                  lanes' sums meet in shared memory.
//   outer, middle: one thread per kept output and chunk of the reduced axis (the kept axis
//                  is innermost, so neighbouring threads read neighbouring columns); the
//                  chunks' partial sums are added by one thread per output.
//   general:       one thread per output walks its reduced elements.
// Each p_kind gets its own copy of the stage that computes the terms, so no kind pays for
// another's pow.
#include "gpu_reduce_schedule.h"

#include "gpu_common.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::ReduceStages;

// The last kind is the unspecialised stage: a failure branch inside a GPU kernel could not
// report anything (the runtime passes only valid kinds).
void specialize_kinds(Stage stage, const ReduceStages &s) {
    for (size_t k = 0; k + 1 < s.kind_conditions.size(); k++) {
        stage.specialize(s.kind_conditions[k]);
    }
}

// all: (r) -> (). Blocks of `gpu_threads` threads each take one contiguous chunk of the input
// (at most `gpu_blocks` chunks, each a whole number of block-wide rows); thread t adds
// elements t, t + threads, ... of its chunk. The block's thread sums meet in shared memory:
// 32 lanes add `threads / 32` each, then one thread adds the 32. One thread then adds the
// blocks' sums and finishes the norm.
void schedule_all(ReduceStages s, const ReduceBuffers &b, const Target &target,
                  const ReduceKnobs &knobs) {
    const int threads = knobs.gpu_threads;
    const int lanes = std::min(32, threads);
    Expr n = b.input_extent[0];
    Expr per_block = (n + knobs.gpu_blocks - 1) / knobs.gpu_blocks;
    Expr chunk = max(threads, (per_block + threads - 1) / threads * threads);

    RVar chunk_r("chunk_r"), in_chunk("in_chunk"), row_r("row_r"), thread_r("thread_r");
    RVar lane_group("lane_group"), lane_r("lane_r");
    Var block("block"), thread("thread"), lane("lane");
    Func block_sums = s.acc.update().split(s.r.x, chunk_r, in_chunk, chunk).rfactor(chunk_r, block);
    Func thread_sums =
        block_sums.update().split(in_chunk, row_r, thread_r, threads).rfactor(thread_r, thread);
    Func lane_sums =
        block_sums.update().split(thread_r, lane_group, lane_r, lanes).rfactor(lane_r, lane);

    Func block_out = block_sums.in();
    block_out.compute_root().gpu_blocks(block, gpu_api(target));
    block_sums.compute_at(block_out, block);
    thread_sums.compute_at(block_out, block).gpu_threads(thread, gpu_api(target));
    thread_sums.update().gpu_threads(thread, gpu_api(target));
    specialize_kinds(thread_sums.update(), s);
    lane_sums.compute_at(block_out, block).gpu_threads(lane, gpu_api(target));
    lane_sums.update().gpu_threads(lane, gpu_api(target));

    thread_per_point(s.out, s.vars, threads, target);
    s.acc.compute_at(s.out, Var::outermost());
}

// inner: (r, k) -> (k). A block of `gpu_row_lanes` lanes per row: lane l adds elements l,
// l + lanes, ... (coalesced), and one thread adds the lanes' sums from shared memory. (Blocks of
// several rows, lanes x rows threads, computed wrong sums on PoCL in the last, partial block of
// rows, whose idle rows are guarded inside the block; one row per block has no such tail.)
void schedule_inner(ReduceStages s, const Target &target, const ReduceKnobs &knobs) {
    const int lanes = knobs.gpu_row_lanes;
    Var k = s.vars[0], lane("lane");
    RVar pass("pass"), lane_r("lane_r");
    Func lane_sums = s.acc.update().split(s.r.x, pass, lane_r, lanes).rfactor(lane_r, lane);

    s.out.gpu_blocks(k, gpu_api(target));
    s.acc.compute_at(s.out, k);
    lane_sums.compute_at(s.out, k).gpu_threads(lane, gpu_api(target));
    lane_sums.update().reorder(pass, lane, k).gpu_threads(lane, gpu_api(target));
    specialize_kinds(lane_sums.update(), s);
}

// outer (k, r) and middle (k0, r, k1): the reduced axis is cut into chunks of rows so that
// outputs x chunks reach `gpu_min_threads` threads; one thread per (output, chunk) walks its
// rows, and one thread per output adds its chunks.
void schedule_strided(ReduceStages s, const ReduceBuffers &b, const Target &target,
                      const ReduceKnobs &knobs) {
    const int threads = knobs.gpu_threads;
    Expr rows_total = b.input_extent[1];
    Expr kept = cast<int64_t>(b.input_extent[0]);
    if (b.input_extent.size() == 3) {
        kept *= cast<int64_t>(b.input_extent[2]);
    }
    Expr chunks_wanted = cast<int>(clamp(knobs.gpu_min_threads / kept, 1, 1 << 16));
    Expr chunk_rows = max(1, (rows_total + chunks_wanted - 1) / chunks_wanted);

    RVar chunk_r("chunk_r"), in_chunk("in_chunk");
    Var chunk("chunk");
    Func partial =
        s.acc.update().split(s.r.x, chunk_r, in_chunk, chunk_rows).rfactor(chunk_r, chunk);
    // partial(k, chunk) or partial(k0, chunk, k1): computed once per point by its own thread.
    std::vector<Var> partial_vars = {s.vars[0], chunk};
    if (s.vars.size() == 2) {
        partial_vars.push_back(s.vars[1]);
    }
    Func partial_out = partial.in();
    partial_out.compute_root();
    Var at = thread_per_point(partial_out, partial_vars, threads, target);
    compute_per_thread(partial, partial_out, at);
    specialize_kinds(partial.update(), s);

    Var out_at = thread_per_point(s.out, s.vars, threads, target);
    compute_per_thread(s.acc, s.out, out_at);
}

// general: one thread per output point of dims 0-3, which walks dims 4 and up (extent 1 unless
// the kept dims are many) and, for each, the reduction domain in place. The block grid is dim
// 0's blocks, dim 1, and dims 2 and 3 fused. With all eight fused into one block index
// (thread_per_point), Halide bounded them by their whole range and the per-thread accumulator's
// extent-1 check trapped on CUDA (docs/targets.md, "Known fault"). CUDA takes at most 65535
// blocks along y and z: the runtime refuses larger calls (check_gpu_general_grid,
// runtime/gpu.h).
void schedule_general(ReduceStages s, const Target &target, const ReduceKnobs &knobs) {
    const DeviceAPI api = gpu_api(target);
    const std::vector<Var> &v = s.vars;
    Func out = s.out;
    Var block("block"), thread("thread"), plane("plane");
    out.split(v[0], block, thread, knobs.gpu_threads, TailStrategy::GuardWithIf)
        .fuse(v[2], v[3], plane);
    std::vector<VarOrRVar> order(v.begin() + 4, v.end());  // innermost first: the serial dims
    for (const VarOrRVar &loop : {thread, block, v[1], plane}) order.push_back(loop);
    out.reorder(order).gpu_blocks(block, v[1], plane, api).gpu_threads(thread, api);
    compute_per_thread(s.acc, out, v.size() > 4 ? v[4] : thread);
    specialize_kinds(s.out, s);
}

}  // namespace

void schedule_reduction_gpu(ReducePattern pattern, const ReduceStages &stages,
                            const ReduceBuffers &buffers, const Target &target,
                            const ReduceKnobs &knobs) {
    switch (pattern) {
    case ReducePattern::all: schedule_all(stages, buffers, target, knobs); break;
    case ReducePattern::inner: schedule_inner(stages, target, knobs); break;
    case ReducePattern::outer:
    case ReducePattern::middle: schedule_strided(stages, buffers, target, knobs); break;
    case ReducePattern::general: schedule_general(stages, target, knobs); break;
    }
}

}  // namespace lpnorm::sched
