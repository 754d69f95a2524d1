// CPU schedule of the 2-D pooling kernels built with channel_blocks: a block of channels in
// the vector lanes, for planes too small to fill vectors along their rows.
//
// The row schedule (cpu_pool_schedule.cpp) vectorises along the innermost spatial dim. On
// small planes its rows are one or two vectors long, and the loop overhead and masked tails
// per row bound it: [1,512,14,14] 3x3 s1 pad 1 ran at 0.53 us a plane (about 125 cycles a row)
// and [8,256,28,28] at 8% of the read probe (Zen 3, AVX2, float32, 2 threads). Here a task
// is one block of `lanes` channels of one image, whole planes:
//   - |x|^p is computed into a plane of vectors of channels: each tile of lanes x lanes is
//     read as rows of one channel (dense loads), then transposed in registers;
//   - the sum along dim 1 and the sum along dim 0 add whole vectors (every tap is one vector
//     of channels at one position, padding is a zero vector), and the root follows, two
//     positions per vector operation;
//   - the output is transposed back by tiles of lanes x lanes and stored as rows.
// No stage has a tail: the channel blocks and the row tiles at the ends overlap the previous
// ones (ShiftInwards), which needs channels, input width and output width of at least `lanes`
// (at most abi::kChannelBlockMinExtent; the runtime calls these kernels only then).
//
// Measured against the row kernel (Zen 3, AVX2, float32 p = 2, 2 threads, tools/autotune's
// harness): [8,256,28,28] 3x3 s1 pad 1 1.18 -> 0.78 ms, 2x2 s2 0.56 -> 0.42 ms,
// [1,512,14,14] 3x3 s1 pad 1 0.125 -> 0.061 ms; but [8,128,32,32] 0.455 -> 0.485 ms (rows of
// four whole vectors have no tail) and [8,64,56,56] 0.59 -> 0.67 ms (a stage of a block is
// 100 KB), so the runtime keeps the row kernels for planes of 32x32 and more. In cache (one
// thread, 28x28) the root's loop (sqrt-bound) takes 17% of the time, the two transposes 47%,
// the sum along dim 1 13%.
#include <algorithm>

#include "cpu_pool_schedule.h"
#include "kernel_abi.h"

namespace lpnorm::sched {

using namespace Halide;
using gen::PoolStages;

void schedule_pool_cpu_channels(PoolStages s, const PoolBuffers &b, const Target &target,
                                const PoolKnobs &knobs) {
    if (s.sums.size() != 2) {
        throw CompileError("channel_blocks: only 2-D pooling kernels");
    }
    // At most kChannelBlockMinExtent channels a block: the width of AVX2 (float32) and of two
    // NEON vectors; AVX-512 float32 computes in half vectors, so that planes of 8 to 15
    // positions (14x14 and its 2x2 s2 output) take these kernels on every ISA.
    const int lanes =
        std::min(pool_lanes(s.compute_type, target, knobs), abi::kChannelBlockMinExtent);
    Var s0 = s.vars[0], s1 = s.vars[1], c = s.vars[2], n = s.vars[3];
    Var co("co"), ci("ci"), task("task"), xo("xo"), xi("xi"), txo("txo"), txi("txi");

    Expr outputs = 1;
    for (const Expr &e : b.output_extent) {
        outputs *= cast<int64_t>(e);
    }
    Expr parallel = outputs >= knobs.parallel_min_elements;

    // `out`: a task per block of channels of one image; inside it, tiles of lanes x lanes
    // (output positions x channels) are transposed from the stored roots and stored as rows.
    Func out = s.out;
    out.split(c, co, ci, lanes, TailStrategy::ShiftInwards)
        .fuse(co, n, task)
        .split(s0, xo, xi, lanes, TailStrategy::ShiftInwards)
        .reorder(xi, ci, xo, s1, task)
        .vectorize(xi)
        .unroll(ci);
    out.specialize(parallel).parallel(task);

    // Every stage below is stored with the channels innermost.
    auto channels_inner = [&](Func f) { f.reorder_storage(c, s0, s1, n); };

    // The transpose back: a tile of the roots loaded as vectors of channels (one per
    // position), read by `out` across them.
    Func root_tile = s.norm.in(out);
    channels_inner(root_tile);
    root_tile.compute_at(out, xo).reorder(c, s0, s1, n).vectorize(c).unroll(s0);

    // The roots of a whole block, two positions of a vector of channels at a time; the sum along
    // dim 0 in registers per pair, its taps unrolled for kernels of 2 and 3.
    channels_inner(s.norm);
    s.norm.compute_at(out, task);
    // Two positions per vector operation (2 x lanes lanes): the cube root's chain of about 20
    // dependent products is latency-bound one vector of channels at a time; two at a time,
    // [8,256,28,28] 3x3 s1 pad 1 p = 3 took 0.64 against 0.88 ms and [1,512,14,14] 0.048
    // against 0.060 ms, p = 2 unchanged (Zen 4, AVX-512, 2 threads). The pairs at the end of a
    // row overlap (the output width is at least `lanes`).
    auto two_positions = [&](Stage stage) {
        stage.reorder(c, s0, s1, n)
            .vectorize(c)
            .split(s0, xo, xi, 2, TailStrategy::ShiftInwards)
            .vectorize(xi);
    };
    for_each_kind(s.norm, s, [&](Stage kind) {
        // Without rescaling the factor K / n (an integer division per output and dim) goes.
        for (const Expr &mode : {!s.rescale && !s.signed_pow, !s.signed_pow}) {
            two_positions(kind.specialize(mode));
        }
        two_positions(kind);
    });
    Func sum0 = s.sums[0];
    channels_inner(sum0);
    sum0.compute_at(s.norm, xo).reorder(c, s0, s1, n).vectorize(c).vectorize(s0);
    Stage taps0 = sum0.update();
    taps0.reorder(c, s0, s.taps[0].x, s1, n).vectorize(c).vectorize(s0);
    for (int k : {2, 3}) {
        taps0.specialize(s.window.kernel[0] == k).unroll(s.taps[0].x);
    }

    // `padded`, the sum along dim 1 of a whole block: zero vectors over the margins along
    // dim 0, then every tap added (those outside the input read 0) inside each vector.
    Func padded = s.padded;
    channels_inner(padded);
    padded.compute_at(out, task).reorder(c, s0, s1, n).vectorize(c);
    Stage fill = padded.update();
    fill.reorder(c, s.taps[1].y, s.padded_x, s1, n).vectorize(c);
    for (int k : {2, 3}) {
        fill.specialize(s.window.kernel[1] == k).unroll(s.taps[1].y);
    }

    // |x|^p of a whole block, by tiles of lanes positions: the tile is read as one row of
    // each channel, and the term computed across channels (the transpose in registers).
    channels_inner(s.term);
    s.term.compute_at(out, task)
        .split(s0, txo, txi, lanes, TailStrategy::ShiftInwards)
        .reorder(c, txi, txo, s1, n)
        .vectorize(c)
        .unroll(txi);
    Func input_tile = s.input.in(s.term);
    const std::vector<Var> at = input_tile.args();
    input_tile.compute_at(s.term, txo).vectorize(at[0]).unroll(at[2]);
    for_each_kind(s.term, s, [&](Stage kind) {
        kind.specialize(!s.signed_pow);  // the abs mode computes no signed branch
    });
}

}  // namespace lpnorm::sched
