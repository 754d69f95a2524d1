// CPU schedules of the normalization patterns.
//
// Normalization reads each element twice (for its group's norm, then to scale it) and writes
// it once. Both schedules read a block of groups for the norms, then scale the same block
// while it is still in cache (L2 for the inner pattern's rows, L3 for the middle pattern's
// slabs), so memory sees one read and one write per element: the copy probe's traffic.
#include "cpu_target.h"
#include "kernel_abi.h"
#include "normalize_schedule.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::NormalizeStages;

// Each p_kind of the sums (and the scaled and unscaled calls) gets its own copy of the sum's
// loop, so no copy evaluates another's term (general p calls pow; L1 must not pay for it).
// p = inf (the last kind) has no sum.
void specialize_terms(Stage update, const NormalizeStages &s,
                      const std::function<void(Stage)> &schedule_copy) {
    for (bool scaled : {true, false}) {
        Stage copy = update.specialize(scaled ? s.scaled : !s.scaled);
        for (size_t k = 0; k + 1 < s.kind_conditions.size(); k++) {
            schedule_copy(copy.specialize(s.kind_conditions[k]));
        }
    }
}

// The per-group roots, one copy per p_kind: selects evaluate every side, and the general-p
// root's pow per group cost 5.6% of [4096, 1024] float32 p = 2 (perf). The pair root (scaled
// sum_add only) is 0 in every other call.
void specialize_roots(NormalizeStages &s) {
    for (const Expr &kind : s.kind_conditions) {
        s.root.specialize(kind);
    }
    Stage pair = s.pair_root.specialize(s.pair_needed);
    for (const Expr &kind : s.kind_conditions) {
        pair.specialize(kind);
    }
}

// (r, k) -> (r, k): each row is one group. A task takes a block of rows; per row, the peak
// and the sum run over the row with vector accumulators, then the row is scaled.
void schedule_inner(NormalizeStages s, const NormalizeBuffers &b, const Target &target,
                    const NormalizeKnobs &knobs) {
    const Var r = s.vars[0], k = s.vars[1];
    const int lanes = target.natural_vector_size(s.input_type);
    const int sum_lanes = lanes * knobs.vector_multiple;
    const Expr row = max(b.input_extent[0], 1);
    const Expr rows_per_task = max(1, (knobs.task_kib * 1024 / s.input_type.bytes()) / row);
    Func out = s.out;
    Var task("task"), row_in_task("row_in_task");
    out.split(k, task, row_in_task, rows_per_task, TailStrategy::GuardWithIf)
        .vectorize(r, lanes, TailStrategy::GuardWithIf);
    out.specialize(b.input_extent[0] * b.input_extent[1] >= knobs.parallel_min_elements)
        .parallel(task);

    for (Func f : {s.scale, s.root, s.pair_root, s.inverse}) {
        f.compute_at(out, row_in_task);
    }
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
}

// (k0, r, k1) -> (k0, r, k1): groups side by side along k0. A block of groups spans a tile of
// k0 sized so that the tile's input (tile x r elements) fits tile_kib (the knob's comment has
// the measurement); per block, the peak and the sum sweep the tile row by row (contiguous runs
// of k0), vectorised across groups, then the block is scaled.
void schedule_middle(NormalizeStages s, const NormalizeBuffers &b, const Target &target,
                     const NormalizeKnobs &knobs) {
    const Var k0 = s.vars[0], r = s.vars[1], k1 = s.vars[2];
    const int lanes = target.natural_vector_size(s.input_type);
    const Expr width = b.input_extent[0], depth = max(b.input_extent[1], 1);
    const Expr width_vectors = (width + lanes - 1) / lanes;
    // At least min_blocks blocks in all: a [1, 512, 38, 38] slab that fit one block ran on
    // one thread (0.28 ms against a 0.04 ms copy).
    const Expr blocks_along_k0 =
        max(1, (knobs.min_blocks + b.input_extent[2] - 1) / max(b.input_extent[2], 1));
    const Expr tile_vectors =
        clamp(min((knobs.tile_kib * 1024 / s.input_type.bytes()) / depth / lanes,
                  (width_vectors + blocks_along_k0 - 1) / blocks_along_k0),
              1, width_vectors);
    const Expr tile = tile_vectors * lanes;
    Func out = s.out;
    Var tile_k0("tile_k0"), in_tile("in_tile"), block("block");
    out.split(k0, tile_k0, in_tile, tile, TailStrategy::GuardWithIf)
        .vectorize(in_tile, lanes, TailStrategy::GuardWithIf)
        .reorder(in_tile, r, tile_k0, k1)
        .fuse(tile_k0, k1, block);
    out.specialize(width * b.input_extent[1] * b.input_extent[2] >= knobs.parallel_min_elements)
        .parallel(block);

    for (Func f : {s.peak, s.scale, s.sum, s.root, s.pair_root, s.inverse}) {
        f.compute_at(out, block).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    }
    specialize_roots(s);
    s.peak.update().reorder(k0, s.peak_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
    specialize_terms(s.sum.update().reorder(k0, s.sum_r.x), s,
                     [&](Stage copy) { copy.vectorize(k0, lanes, TailStrategy::GuardWithIf); });
}

}  // namespace

void schedule_normalize(NormalizePattern pattern, const NormalizeStages &stages,
                        const NormalizeBuffers &buffers, const GeneratorContext &context,
                        const NormalizeKnobs &knobs) {
    const Target &target = context.target();
    _halide_user_assert(!target.has_gpu_feature())
        << "lpnorm: normalization has no GPU schedule yet (target " << target.to_string() << ")";
    if (pattern == NormalizePattern::inner) {
        schedule_inner(stages, buffers, target, knobs);
    } else {
        schedule_middle(stages, buffers, target, knobs);
    }
}

}  // namespace lpnorm::sched
