// CPU schedules of the normalization patterns.
//
// Normalization reads each element twice (for its group's norm, then to scale it) and writes
// it once. Both schedules read a block of groups for the norms, then scale the same block
// while it is still in cache (L2 for the inner pattern's rows, L3 for the middle pattern's
// slabs), so memory sees one read and one write per element: the copy probe's traffic.
#include "cpu_normalize_schedule.h"

#include "cpu_target.h"
#include "grouped_tiles.h"
#include "kernel_abi.h"
#include "normalize_specializations.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::NormalizeStages;

// Parallel `loop` of `out` where the call is large enough, and its own copy of `out` for the
// scaled calls: y is x times the inverse, or (x hi) times it, and a select between the two
// evaluated both per element. Without it (float32 p = 2, 2 threads, interleaved runs on
// Zen 3): [4096, 1024] 4-6% slower, [1, 512, 38, 38] 15-19% slower.
void specialize_out(Func out, const NormalizeStages &s, const Expr &parallel,
                    const VarOrRVar &loop) {
    out.specialize(s.scaled && parallel).parallel(loop);
    out.specialize(s.scaled);
    out.specialize(parallel).parallel(loop);
}

// (r, k) -> (r, k): each row is one group. A task takes a block of rows; per row, the peak
// and the sum run over the row with vector accumulators, then the row is scaled.
LoopLevel schedule_inner(NormalizeStages s, const NormalizeBuffers &b, const Target &target,
                         const NormalizeKnobs &knobs, const SpecializeOut &specialize) {
    const Var r = s.vars[0], k = s.vars[1];
    const int lanes = target.natural_vector_size(s.input_type);
    const int sum_lanes = lanes * knobs.vector_multiple;
    const Expr row = max(b.input_extent[0], 1);
    const Expr rows_per_task = max(1, (knobs.task_kib * 1024 / s.input_type.bytes()) / row);
    Func out = s.out;
    Var task("task"), row_in_task("row_in_task");
    out.split(k, task, row_in_task, rows_per_task, TailStrategy::GuardWithIf)
        .vectorize(r, lanes, TailStrategy::GuardWithIf);
    specialize(out, b.input_extent[0] * b.input_extent[1] >= knobs.parallel_min_elements, task);

    for (Func f : {s.scale, s.root, s.pair_root, s.inverse}) {
        f.compute_at(out, row_in_task);
    }
    if (s.halves.defined()) s.halves.compute_at(out, row_in_task);
    specialize_roots(s);
    // Vector accumulators, one per lane, added up after the row.
    Var lane("lane");
    RVar rv("peak_rv"), rl("peak_rl");
    Func peak_lanes = s.peak.update()
                          .split(s.peak_r.x, rv, rl, lanes, TailStrategy::GuardWithIf)
                          .rfactor(rl, lane);
    s.peak.compute_at(out, row_in_task);
    peak_lanes.compute_at(out, row_in_task).vectorize(lane);
    peak_lanes.update().vectorize(lane);

    // The accumulator vectors are unrolled so that they live in registers: a loop over them
    // kept them on the stack, and each FMA waited for the previous one's store (a profile of
    // [4096, 1024] float32 had 23% of its samples on that FMA).
    RVar sv("sum_rv"), sl("sum_rl");
    Var vector_in_lanes("vector_in_lanes");
    Func sum_lanes_f = s.sum.update()
                           .split(s.sum_r.x, sv, sl, sum_lanes, TailStrategy::GuardWithIf)
                           .rfactor(sl, lane);
    s.sum.compute_at(out, row_in_task);
    sum_lanes_f.compute_at(out, row_in_task).bound(lane, 0, sum_lanes).vectorize(lane, lanes);
    specialize_terms(sum_lanes_f.update(), s, [&](Stage copy) {
        copy.split(lane, vector_in_lanes, lane, lanes).vectorize(lane).unroll(vector_in_lanes);
    });
    // After the row, a vector tree adds the lanes, where the row fills them all. One by one,
    // the chain of dependent float64 adds held 13% of the samples of [4096, 1024] float32
    // p = 2; with the tree, [65536, 128] went from 1.53-1.56 to 1.12-1.30 ms and [4096, 1024]
    // from 0.27 to 0.25 (AVX-512, 2 threads, interleaved runs). The sum's extent must not
    // depend on the kind for this (normalize_algorithm.cpp).
    s.sum.update().specialize(b.input_extent[0] >= sum_lanes).atomic().vectorize(sl);
    return LoopLevel(out, row_in_task);
}

// (k0, r, k1) -> (k0, r, k1): groups side by side along k0. A block of groups spans a tile of
// k0 sized so that the tile's input (tile x r elements) fits tile_kib (the knob's comment has
// the measurement); per block, the peak and the sum sweep the tile row by row (contiguous runs
// of k0), vectorised across groups, then the block is scaled.
LoopLevel schedule_middle(NormalizeStages s, const NormalizeBuffers &b, const Target &target,
                          const NormalizeKnobs &knobs, const SpecializeOut &specialize) {
    const Var k0 = s.vars[0], r = s.vars[1], k1 = s.vars[2];
    const int lanes = target.natural_vector_size(s.input_type);
    const Expr width = b.input_extent[0];
    const Expr tile_vectors = group_tile_vectors(b.input_extent, lanes, s.input_type.bytes(),
                                                 knobs.tile_kib, knobs.min_blocks);
    const Expr tile = tile_vectors * lanes;
    Func out = s.out;
    Var tile_k0("tile_k0"), in_tile("in_tile"), block("block");
    out.split(k0, tile_k0, in_tile, tile, TailStrategy::GuardWithIf)
        .vectorize(in_tile, lanes, TailStrategy::GuardWithIf)
        .reorder(in_tile, r, tile_k0, k1)
        .fuse(tile_k0, k1, block);
    specialize(out, width * b.input_extent[1] * b.input_extent[2] >= knobs.parallel_min_elements,
               block);

    for (Func f : {s.peak, s.scale, s.sum, s.root, s.pair_root, s.inverse}) {
        f.compute_at(out, block).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    }
    specialize_roots(s);
    s.peak.update().reorder(k0, s.peak_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    specialize_terms(s.sum.update().reorder(k0, s.sum_r.x), s,
                     [&](Stage copy) { copy.vectorize(k0, lanes, TailStrategy::GuardWithIf); });
    return LoopLevel(out, block);
}

}  // namespace

LoopLevel schedule_normalize_loops_cpu(NormalizePattern pattern, const NormalizeStages &stages,
                                       const NormalizeBuffers &buffers, const Target &target,
                                       const NormalizeKnobs &knobs,
                                       const SpecializeOut &specialize) {
    return pattern == NormalizePattern::inner
               ? schedule_inner(stages, buffers, target, knobs, specialize)
               : schedule_middle(stages, buffers, target, knobs, specialize);
}

void schedule_normalize_cpu(NormalizePattern pattern, const NormalizeStages &stages,
                            const NormalizeBuffers &buffers, const Target &target,
                            const NormalizeKnobs &knobs) {
    schedule_normalize_loops_cpu(pattern, stages, buffers, target, knobs,
                                 [&](Func out, const Expr &parallel, const VarOrRVar &loop) {
                                     specialize_out(out, stages, parallel, loop);
                                 });
}

}  // namespace lpnorm::sched
