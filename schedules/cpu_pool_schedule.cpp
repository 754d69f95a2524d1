// CPU schedule of the 2-D and 3-D pooling kernels (1-D: cpu_pool_1d_schedule.cpp).
//
// Work is split into tasks: a group of whole channel planes (small planes are grouped, so that
// a task's start and its buffers are paid once per group), or when there are few planes a
// strip of output rows of the outermost spatial dim. Inside a task the output is produced in
// blocks of rows (for 2-D; a row runs along the innermost dim), each stage running over a
// whole block:
//   - |x|^p is computed once per input element, in rows that slide with the blocks (stored
//     for the task, computed as the rows come into a window), except for p = 1 to 4 in the
//     abs mode on dense rows, where the outermost sum computes it at each tap instead;
//   - the sums along the outer dims add every tap (those outside the input read 0): for 3-D
//     the sum along dim 2 a row at a time, its taps inside each vector; the sum along dim 1
//     a vector at a time, its taps unrolled for kernels of 2 and 3 and summed in a register;
//   - the last of them is `padded`, zero outside the row,
//     so the sum along the innermost dim is one vector of outputs at a time, its taps added in
//     registers from dense (stride 1) or deinterleaved (stride 2) loads with no condition;
//   - the root follows in the same vector, and the block is stored.
// Every intermediate is a block of rows (or for 3-D a plane) of one task, in L1 or L2; every
// loop is vectorised along the innermost dim.
//
// Measured against the schedule before it (every sum a vector at a time with clamped,
// masked taps, the innermost first; one row at a time, a task per plane) on Zen 4 AVX-512,
// float32 p = 2, 2 threads, tools/autotune's harness: [32,64,112,112] 2x2 s2 5.7 -> 4.0 ms,
// 3x3 s1 pad 1 17.1 -> 9.0 ms, 3x3 s2 pad 1 9.2 -> 4.9 ms; [8,256,28,28] 3x3 s1 pad 1
// 3.77 -> 0.67 ms, 2x2 s2 1.08 -> 0.30 ms; [1,512,14,14] 3x3 s1 pad 1 0.37 -> 0.08 ms. In
// cache (one thread, [1,8,112,112]) the 3x3 s1 kernel runs 0.51 ns per input element, about
// 30 cycles per vector of 16 outputs, against about 15 for its loads, stores and square root
// alone: the stages' stores (the term, the zeroed and summed rows, the output) bound it, not
// memory. Unrolling the innermost taps (k = 2, 3) did not change it.
#include "cpu_pool_schedule.h"

#include "cpu_target.h"

namespace lpnorm::sched {

using namespace Halide;
using gen::PoolStages;

int pool_lanes(const Type &compute_type, const Target &target, const PoolKnobs &knobs) {
    // ARM64's 128-bit vectors hold half the lanes of AVX2's and its 32 registers afford two
    // per vector operation, so rows are vectorised as wide as on AVX2 (8 float32 lanes).
    const int arm_pairs = is_arm64(target) ? 2 : 1;
    return target.natural_vector_size(compute_type) * arm_pairs *
           std::max(1, knobs.vector_multiple);
}

Expr planes_per_task(const Expr &plane_outputs, const Expr &planes, const PoolKnobs &knobs) {
    return clamp(knobs.task_elements / max(plane_outputs, 1), 1, max(planes / knobs.min_tasks, 1));
}

void schedule_pool_cpu(PoolStages s, const PoolBuffers &b, const Target &target,
                       const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.sums.size());
    if (spatial < 2) {
        throw CompileError("schedule_pool_cpu: 2-D and 3-D kernels (1-D: schedule_pool_cpu_1d)");
    }
    const int lanes = pool_lanes(s.compute_type, target, knobs);
    Var s0 = s.vars[0], c = s.vars[spatial], n = s.vars[spatial + 1];
    Var plane("plane"), strip("strip"), row("row"), task("task"), xo("xo"), xi("xi");

    Expr outputs = 1;
    for (const Expr &e : b.output_extent) {
        outputs *= cast<int64_t>(e);
    }
    Expr parallel = outputs >= knobs.parallel_min_elements;

    // The loops of `out`: s0 (vectorised), the inner spatial dims, then the task: one or
    // several planes, or a strip of rows of the outermost dim.
    Func out = s.out;
    out.fuse(c, n, plane);
    // Whole planes per task when there are enough planes for every core: a task then
    // slides once over its plane. Few planes (one image, few channels) are cut into
    // strips of rows so that both cores get work.
    Var outer = s.vars[spatial - 1];
    Expr planes = b.output_extent[spatial] * b.output_extent[spatial + 1];
    Expr whole = planes >= knobs.min_planes;
    Expr rows = select(whole, b.output_extent[spatial - 1], knobs.strip_rows);
    Var tile("tile"), unit_in_task("unit_in_task");
    out.split(outer, strip, row, max(rows, 1), TailStrategy::GuardWithIf).fuse(strip, plane, tile);
    // Small whole planes are grouped: a task then starts (and allocates its rows) once
    // per group. [1,512,14,14] 3x3 s1 took 0.145 ms with a task per plane.
    Expr plane_outputs = 1;
    for (int d = 0; d < spatial; d++) {
        plane_outputs *= b.output_extent[d];
    }
    Expr group = select(whole, planes_per_task(plane_outputs, planes, knobs), 1);
    out.split(tile, task, unit_in_task, group, TailStrategy::GuardWithIf);
    Var unit = unit_in_task;  // one plane, or one strip of a plane: the term slides inside it
    Var slide = row;  // the loop the term slides along (one step: new rows or planes of the term)
    Var out_row = spatial == 2 ? row : s.vars[1];  // its iteration computes a block of output rows
    if (spatial == 2) {
        // Blocks of rows: every stage below runs once per block, over its rows. One row
        // at a time, [8,256,28,28] 3x3 s1 spent about 150 cycles a row outside the
        // vector loops (1.39 ms).
        Var block("block"), row_in_block("row_in_block");
        Expr block_rows = max(knobs.block_elements / max(b.output_extent[0], 1), 1);
        out.split(row, block, row_in_block, block_rows, TailStrategy::GuardWithIf);
        slide = out_row = block;
    }
    // Specialisations of `out` copy everything computed inside it, so only the thread pool
    // choice is made there; the p_kind copies are made per block of rows, in `norm`.
    out.specialize(parallel).parallel(task).vectorize(s0, lanes, TailStrategy::GuardWithIf);
    out.vectorize(s0, lanes, TailStrategy::GuardWithIf);

    // The root, per block of output rows; the innermost window sum per vector of it, in
    // registers. Buffers computed per block are allocated once per task (hoist_storage).
    s.norm.compute_at(out, out_row).hoist_storage(out, task);
    for_each_kind(s.norm, s, [&](Stage kind) {
        // Without rescaling the factor K / n (an integer division per output and dim) goes.
        for (const Expr &mode : {!s.rescale && !s.signed_pow, !s.signed_pow}) {
            kind.specialize(mode).split(s0, xo, xi, lanes, TailStrategy::RoundUp).vectorize(xi);
        }
        kind.split(s0, xo, xi, lanes, TailStrategy::RoundUp).vectorize(xi);
    });
    Func sum0 = s.sums[0];
    sum0.compute_at(s.norm, xo).vectorize(s0);
    Stage taps0 = sum0.update();
    taps0.reorder(s0, s.taps[0].x);
    for (int stride : {1, 2}) {
        taps0.specialize(s.window.stride[0] == stride).vectorize(s0);
    }
    taps0.vectorize(s0);

    // `padded`, a block of output rows' worth: zeroed (rounded-up vectors are fine: nothing
    // reads them), then written over the input's rows, tap by tap of dim 1 (below).
    Func padded = s.padded;
    Stage fill = padded.update();
    padded.compute_at(out, out_row)
        .hoist_storage(out, task)
        .vectorize(s0, lanes, TailStrategy::RoundUp);
    RVar px = s.padded_x, pxo("pxo"), pxi("pxi");
    fill.split(px, pxo, pxi, lanes, TailStrategy::GuardWithIf);
    // The taps of dim 1 inside each vector, unrolled for kernels of 2 and 3, so that a vector
    // is summed in a register and stored once; every tap is added (zero_outside), so the
    // unrolled taps carry no condition. Against the taps outside the row loop, a row of the
    // term added into the stored row per tap (Zen 3 AVX2, 2 threads, tools/autotune's harness,
    // float32 p = 2): [8,256,28,28] 3x3 s1 1.62 -> 1.24 ms, [1,512,14,14] 0.183 -> 0.128 ms,
    // [32,64,112,112] 3x3 s1 14.9 -> 13.5 ms, 3x3 s2 7.8 -> 7.3 ms, 2x2 s2 unchanged (6.5 ms).
    // Unrolled without zero_outside (the taps' bounds tested per tap) it was slower than
    // before (1.94 ms on [8,256,28,28]), and with a tap loop not unrolled slower still.
    // For p = 1 to 4 in the abs mode on dense rows (s.recomputed_kind_conditions), the
    // outermost sum takes |x|^p from the input at each tap, and the term is never stored:
    // against reading the stored term, 2 threads, tools/autotune's harness, float32 p = 2,
    // Zen 3 AVX2, fastest (median) of 8 interleaved rounds on a noisy host:
    // [32,64,112,112] 2x2 s2 9.40 (11.2) -> 9.20 (10.2) ms, 3x3 s1 pad 1 19.1 (21.5) -> 15.3
    // (19.5) ms, 3x3 s2 pad 1 10.2 (11.3) -> 9.55 (10.2) ms; [8,256,28,28] 3x3 s1 pad 1
    // 1.83 (2.10) -> 1.35 (1.78) ms; [1,512,14,14] 0.170 (0.216) -> 0.155 (0.160) ms;
    // 3-D [4,32,32,56,56] 2x2x2 s2, 6 rounds: 5.92 (7.71) -> 4.52 (5.97) ms.
    fill.reorder(pxi, s.taps[1].y, pxo).vectorize(pxi);
    auto unroll_small_kernels = [&](Stage taps) {
        for (int k : {2, 3}) {
            taps.specialize(s.window.kernel[1] == k).unroll(s.taps[1].y);
        }
    };
    if (spatial == 2) {
        for (const Expr &recomputed : s.recomputed_kind_conditions) {
            unroll_small_kernels(fill.specialize(recomputed));
        }
    }
    unroll_small_kernels(fill);

    // 3-D: the sum along dim 2 over whole planes, one per output plane.
    for (int d = spatial - 1; d >= 2; d--) {
        s.sums[d]
            .compute_at(out, slide)
            .hoist_storage(out, task)
            .vectorize(s0, lanes, TailStrategy::GuardWithIf);
        Stage taps = s.sums[d].update();
        Var vo("vo" + std::to_string(d)), vi("vi" + std::to_string(d));
        taps.split(s0, vo, vi, lanes, TailStrategy::GuardWithIf)
            .reorder(vi, s.taps[d].x, vo)
            .vectorize(vi);
        if (d == spatial - 1) {
            for (const Expr &recomputed : s.recomputed_kind_conditions) {
                taps.specialize(recomputed);
            }
        }
    }

    // |x|^p once per input element: rows (planes for 3-D) slide with the blocks of rows.
    s.term.store_at(out, unit).hoist_storage(out, task).compute_at(out, slide);
    for_each_kind(s.term, s, [&](Stage kind) {
        // The abs mode on dense rows is the common case: its copy computes no signed branch.
        kind.specialize(b.input_stride0 == 1 && !s.signed_pow)
            .vectorize(s0, lanes, TailStrategy::GuardWithIf);
        kind.vectorize(s0, lanes, TailStrategy::GuardWithIf);
    });
}

}  // namespace lpnorm::sched
