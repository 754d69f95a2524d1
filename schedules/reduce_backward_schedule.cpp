// CPU schedules of the reduction gradient patterns.
//
// dx is one pass over x (read) and dx (written), with y and dy read once per group: the copy
// probe's traffic. Each group's reciprocal is taken once, with its block of groups. Every p_kind
// gets its own copy of the loops, so that no copy evaluates another's arithmetic (general p calls
// pow per element; p = 1 must not pay for it). For p = +-inf, a block of groups is read first to
// count each group's ties, then again, from cache, for dx.
//
// GPU (CUDA, OpenCL): one kernel counts the ties, one thread per group (its loop is empty unless
// p = +-inf), and one computes dx, one thread per element, which takes its group's reciprocal
// itself (a division where the CPU's tiles share one). Neighbouring threads read and write
// neighbouring elements of x and dx. Checked on PoCL and CUDA for results; not tuned.
#include "reduce_backward_schedule.h"

#include "gpu_common.h"
#include "grouped_tiles.h"
#include "kernel_abi.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::ReduceBackwardStages;

// A copy of `out` per p_kind, each parallel over `loop` where the call is large enough.
void specialize_kinds(Func out, const ReduceBackwardStages &s, const Expr &parallel,
                      const VarOrRVar &loop) {
    for (const Expr &kind : s.kind_conditions) {
        out.specialize(kind && parallel).parallel(loop);
        out.specialize(kind);
    }
    out.specialize_fail("p_kind is not a reduction gradient kind");
}

// (r, k): each row is one group. A task takes a block of rows; per row, the count of ties
// (p = +-inf only) runs over the row with vector accumulators, then dx along the row.
void schedule_inner(ReduceBackwardStages s, const ReduceBackwardBuffers &b, const Target &target,
                    const ReduceBackwardKnobs &knobs) {
    const Var r = s.vars[0], k = s.vars[1];
    const int lanes = target.natural_vector_size(s.compute_type);
    const Expr row = max(b.x_extent[0], 1);
    const Expr rows_per_task = max(1, (knobs.task_kib * 1024 / s.input_type.bytes()) / row);
    Func out = s.out;
    Var task("task"), row_in_task("row_in_task"), lane("lane");
    out.split(k, task, row_in_task, rows_per_task, TailStrategy::GuardWithIf)
        .vectorize(r, lanes, TailStrategy::GuardWithIf);
    specialize_kinds(out, s, b.x_extent[0] * b.x_extent[1] >= knobs.parallel_min_elements, task);

    s.inverse.compute_at(out, row_in_task);
    RVar rv("count_rv"), rl("count_rl");
    Func count_lanes = s.count.update()
                           .split(s.count_r.x, rv, rl, lanes, TailStrategy::GuardWithIf)
                           .rfactor(rl, lane);
    s.count.compute_at(out, row_in_task);
    count_lanes.compute_at(out, row_in_task).vectorize(lane);
    count_lanes.update().vectorize(lane);
}

// (k0, r, k1): groups side by side along k0. For p = +-inf a block of groups spans a tile of k0
// of at most tile_kib of x; the counts of ties sweep the tile row by row, vectorised across
// groups, then dx. The other kinds take each element alone (dx from x and its group's y and
// dy), so their blocks are runs of whole rows of one k1, contiguous in memory, of about tile_kib
// of x and at least min_blocks per call. Tiles of k0 for every kind cut [1, 512, 38, 38] axis 1
// into 8 blocks of 512 runs of 0.7 KiB each: float32 p = 1 took 0.116 ms against a 0.033 ms
// copy of the same bytes, and PyTorch's autograd 0.095 ms; as 8 runs of 64 whole rows, 0.036-0.044
// ms at p = 1 and 2, [8, 256, 28, 28] and [32, 256, 56, 56] unchanged (their blocks were whole
// slabs already), p = +-inf unchanged (Zen 5, 2 threads, lpnorm_bench, three runs).
void schedule_middle(ReduceBackwardStages s, const ReduceBackwardBuffers &b, const Target &target,
                     const ReduceBackwardKnobs &knobs) {
    const Var k0 = s.vars[0], r = s.vars[1], k1 = s.vars[2];
    const int lanes = target.natural_vector_size(s.compute_type);
    const Expr width = b.x_extent[0];
    const Expr depth = max(b.x_extent[1], 1);
    const Expr ties = s.kind_conditions[abi::kGradExtreme];
    const Expr tile_vectors = select(ties,
                                     group_tile_vectors(b.x_extent, lanes, s.input_type.bytes(),
                                                        knobs.tile_kib, knobs.min_blocks),
                                     (width + lanes - 1) / lanes);
    const Expr blocks_along_r = blocks_per_outer(b.x_extent, knobs.min_blocks);
    const Expr rows = clamp(min((knobs.tile_kib * 1024 / s.input_type.bytes()) / max(width, 1),
                                (depth + blocks_along_r - 1) / blocks_along_r),
                            1, depth);
    Func out = s.out;
    Var tile_k0("tile_k0"), in_tile("in_tile"), rows_k("rows_k"), in_rows("in_rows"),
        tiles("tiles"), block("block");
    out.split(k0, tile_k0, in_tile, tile_vectors * lanes, TailStrategy::GuardWithIf)
        .vectorize(in_tile, lanes, TailStrategy::GuardWithIf)
        .split(r, rows_k, in_rows, select(ties, depth, rows), TailStrategy::GuardWithIf)
        .reorder(in_tile, in_rows, tile_k0, rows_k, k1)
        .fuse(tile_k0, rows_k, tiles)
        .fuse(tiles, k1, block);
    specialize_kinds(out, s, width * b.x_extent[1] * b.x_extent[2] >= knobs.parallel_min_elements,
                     block);

    s.inverse.compute_at(out, block).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    s.count.compute_at(out, block).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    s.count.update().reorder(k0, s.count_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
}

void schedule_gpu(ReduceBackwardStages s, const Target &target, const ReduceBackwardKnobs &knobs) {
    const int threads = knobs.gpu_threads;
    s.count.compute_root();
    thread_per_point(s.count, s.group, threads, target);
    thread_per_point(s.count.update(), s.group, threads, target);
    Func out = s.out;
    const Var at = thread_per_point(out, s.vars, threads, target);
    compute_per_thread(s.inverse, out, at);
    // A copy per kind but the last, which is the unspecialised stage: a failure branch inside a
    // GPU kernel could not report anything (the runtime passes only valid kinds).
    for (size_t k = 0; k + 1 < s.kind_conditions.size(); k++) {
        out.specialize(s.kind_conditions[k]);
    }
}

}  // namespace

void schedule_reduce_backward(ReduceBackwardPattern pattern, const ReduceBackwardStages &stages,
                              const ReduceBackwardBuffers &buffers, const GeneratorContext &context,
                              const ReduceBackwardKnobs &knobs) {
    const Target &target = context.target();
    if (target.has_gpu_feature()) {
        schedule_gpu(stages, target, knobs);
    } else if (pattern == ReduceBackwardPattern::inner) {
        schedule_inner(stages, buffers, target, knobs);
    } else {
        schedule_middle(stages, buffers, target, knobs);
    }
}

}  // namespace lpnorm::sched
