// CPU schedule of the 2-D pooling kernels built with flat_plane
// (generators/kernel_abi.h, pool_flat_window()): tasks of whole channel planes, in each plane
//   - |x|^p is written into a copy of the plane with zero margins (the pads), whose rows are
//     laid end to end, after zeroing the copy;
//   - the sums along dim 0 and then dim 1 run along that flat row of rows, whole vectors from
//     its first element to its last, with no tail, border or condition inside a plane's rows
//     (the lanes past the end of a row compute sums that no output reads);
//   - the output is stored by rows, the last vector of each shifted inwards.
// The taps of kernels of 2 and 3 are unrolled; each p kind has its own copy of the loops.
//
// Why: on small planes the row kernels' rows are a few vectors long with a masked tail, and
// the channel-block kernels spend their time transposing (`perf annotate`, [8,256,28,28] 3x3
// s1 pad 1 p = 2, AVX2, float32: the transposes in and out about 60% of the samples, read
// element by element). Against the kernel each call took before (AVX2, float32, 2 threads,
// medians of 41 calls of a program calling `lpnorm::pool`, the two alternating in one
// process), flat was faster by: [8,256,28,28] 3x3 s1 pad 1 (channel blocks) p = 1, 2, 4
// 1.19-1.35x, p = 3 0.94-1.03x; [1,512,14,14] (channel blocks) 0.98-1.10x, p = 3 0.89x;
// [4,64,28,28] 5x5 pad 2 (channel blocks) 1.27-1.62x; [8,64,56,56] 3x3 pad 1 (rows)
// 1.13-1.36x. Planes over kFlatMaxPlane stay on the rows: [32,64,112,112] 3x3 s1 pad 1 took
// 13.9-15.7 ms flat against 15.0-15.4 on the rows (lpnorm_bench, two alternating runs).
// In `perf annotate` on [8,256,28,28] p = 2 the output loop (three loads, the sqrt) holds
// about 40% of the samples, the terms' loop (a masked load and store per row: an update's
// RVar cannot be shifted inwards) about 25%, zeroing the copy about 10%; the copies are on the
// stack (a heap allocation per plane took 10% of the samples).
#include "cpu_pool_schedule.h"
#include "kernel_abi.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_pool_cpu_flat(gen::PoolFlatStages s, const PoolBuffers &b, const Target &target,
                            const PoolKnobs &knobs) {
    const int lanes = pool_lanes(s.compute_type, target, knobs);
    const Var s0 = s.vars[0], c = s.vars[2], n = s.vars[3], j = s.flat;
    Var planes_fused("planes_fused"), task("task"), plane("plane"), xo("xo"), xi("xi");
    RVar rxo("rxo"), rxi("rxi");
    Func out = s.out;
    // Small planes grouped into tasks of about task_elements outputs (never fewer than
    // min_tasks tasks), as the row kernels group them; the copies stay per plane. Against a
    // task per plane (Zen 5 AVX-512, float32 p = 2, 2 threads, medians of 301-3001 calls of
    // `lpnorm::pool` with the flat kernel forced, three alternating rounds): [1,512,14,14]
    // 3x3 s1 pad 1 0.035-0.037 -> 0.032 ms, [8,256,28,28] 0.302-0.309 -> 0.263-0.265 ms,
    // [8,64,56,56] 0.299-0.308 -> 0.245-0.248 ms. (`perf annotate`, a task per plane of
    // [1,512,14,14]: a fifth of the samples on the thread pool's claim of each task and the
    // status-register reads around it, each waiting for the task's last stores and
    // arithmetic.)
    out.fuse(c, n, planes_fused);
    const Expr plane_outputs = b.output_extent[0] * b.output_extent[1];
    const Expr planes = b.output_extent[2] * b.output_extent[3];
    out.split(planes_fused, task, plane, planes_per_task(plane_outputs, planes, knobs),
              TailStrategy::GuardWithIf)
        .parallel(task);
    // Rows of at least a vector: every vector full, the last one shifted inwards; rows of half
    // a vector to a vector: half vectors, so shifted; shorter rows: one vector with its loads
    // and stores masked. A copy of the loops per p kind; the cube root's, a chain of about 20
    // dependent operations, takes two vectors at a time where the row holds them.
    auto vectors_and_kinds = [&](Stage copy, TailStrategy tail, int width, int p3_width) {
        for (size_t k = 0; k < s.kind_conditions.size(); k++) {
            copy.specialize(s.kind_conditions[k])
                .split(s0, xo, xi, k == size_t(abi::kPool3) ? p3_width : width, tail)
                .vectorize(xi);
        }
        copy.specialize_fail("lpnorm: flat_plane pooling kernels take p = 1 to 4 only");
    };
    // The windows the kernels compute (the algorithm assumes them): a stride of 1, an output
    // of the input's size, the pad before within the window's span, a bounded padded plane
    // (its copies are on the stack). Other calls fail with an error.
    const Expr too_large = Expr(abi::kFlatMaxPlane + 1);  // an int64 constant
    Expr padded_plane = cast<int64_t>(1);
    for (int d = 0; d < 2; d++) {
        const gen::PoolWindow &w = s.window;
        const Expr span = cast<int64_t>(w.kernel[d] - 1) * w.dilation[d];
        padded_plane *= min(cast<int64_t>(w.extent[d]) + span, too_large);
        padded_plane = select(w.stride[d] == 1 && b.output_extent[d] == w.extent[d] &&
                                  w.pad_begin[d] >= 0 && w.pad_begin[d] <= span,
                              padded_plane, too_large);
    }
    const Expr flat_window = padded_plane < too_large;
    // Half vectors, the masked vector and colsum's bound below, against one vector guarded
    // (GuardWithIf) with colsum on the heap (2 threads, medians of 101 calls of
    // `lpnorm::pool`, float32 p = 2, 3x3 s1 pad 1): [1,512,14,14] on AVX-512 (16 lanes)
    // 0.068-0.072 against 0.132-0.134 ms (the bound alone 0.078, the half vectors alone
    // 0.083-0.090); [8,512,7,7] 0.38-0.39 against 0.66-0.72 ms, on AVX2 0.32-0.33 against
    // 0.78-0.99.
    vectors_and_kinds(out.specialize(flat_window && b.output_extent[0] >= 2 * lanes),
                      TailStrategy::ShiftInwards, lanes, 2 * lanes);
    vectors_and_kinds(out.specialize(flat_window && b.output_extent[0] >= lanes),
                      TailStrategy::ShiftInwards, lanes, lanes);
    vectors_and_kinds(out.specialize(flat_window && b.output_extent[0] >= lanes / 2),
                      TailStrategy::ShiftInwards, lanes / 2, lanes / 2);
    vectors_and_kinds(out.specialize(flat_window), TailStrategy::Predicate, lanes, lanes);
    out.specialize_fail("lpnorm: a window or plane the flat_plane pooling kernels lack");

    // The window sums of a vector of `out`: the taps along dim 1 in one register.
    // At most two vectors (p = 3's): a constant size keeps it in registers, where the masked
    // vector's bounds would otherwise allocate it on the heap for every row (a quarter of the
    // samples of [1,512,14,14] on AVX-512 went to malloc and free).
    s.colsum.compute_at(out, xo)
        .vectorize(j, lanes, TailStrategy::RoundUp)
        .bound_storage(j, 2 * lanes);
    Stage taps1 = s.colsum.update().vectorize(j, lanes, TailStrategy::RoundUp);
    // The plane's sums along dim 0, a vector at a time in a register (its taps unrolled),
    // then stored along the flat row (the copy that colsum reads).
    Func rowsums = s.rowsum.in(s.colsum);
    rowsums.compute_at(out, plane)
        .store_in(MemoryType::Stack)
        .vectorize(j, lanes, TailStrategy::RoundUp);
    s.rowsum.compute_at(rowsums, j).vectorize(j);
    Stage taps0 = s.rowsum.update().vectorize(j);
    for (int k : {2, 3}) {
        taps0.specialize(s.window.kernel[0] == k).unroll(s.taps0);
        taps1.specialize(s.window.kernel[1] == k).unroll(s.taps1);
    }
    // The padded terms: zeros, then the terms of each row of the input, stored at distinct
    // positions (the race check cannot see that through the flat index); each row's last vector
    // masked.
    s.padded.compute_at(out, plane)
        .store_in(MemoryType::Stack)
        .vectorize(j, lanes, TailStrategy::RoundUp);
    s.padded.update()
        .allow_race_conditions()
        .split(s.interior.x, rxo, rxi, lanes, TailStrategy::GuardWithIf)
        .vectorize(rxi);
}

}  // namespace lpnorm::sched
