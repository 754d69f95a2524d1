// CPU schedule of the 1-D pooling kernels.
//
// A task per plane (or, below the thread threshold, one task for all planes: a specialisation
// of `out` for the thread choice would copy every stage inside it). Inside a plane the output
// is computed a vector at a time, the root in the same vector as its window sum, and stored:
//   - p = 1 to 4 in the abs mode without rescaling, on dense rows, for the windows of
//     unrolled_window_1d (define_pool's recomputed_sum0): the sum reads the input at each tap,
//     |x|^p by products, the taps unrolled under uniform conditions; each (kind, stride) has
//     its own copy of `out`, so that the loop over vectors holds no branch of its own and
//     Halide cuts it into border vectors (a select per tap) and interior ones
//     (deinterleaved loads). Loads from memory, arithmetic and stores share one loop.
//   - otherwise |x|^p is computed once per input element into a row with zero margins
//     (`padded`, per plane), and the sum adds its taps from that row.
//
// The schedule it replaced computed `padded` per plane for every kind, then the roots of the
// plane into a buffer, then copied them out: three passes, the first waiting on memory and
// the others on arithmetic and stores (perf: 50% of the time in the term's loop, 43% of it
// at the first use of a load; 16% at the output's stores). Zen 3, AVX2, float32 p = 2,
// 2 threads, tools/autotune's harness, [32,64,8192] k4 s2: 9.0-11.7 ms -> 5.7-6.5 ms (a loop
// written by hand with intrinsics, the same passes fused: 5.6-6.3 ms); k3 s1 pad 1, which
// keeps the stored row, 12.0-14.1 -> 10.7-13.3 ms (no copy pass).
#include "cpu_pool_schedule.h"

namespace lpnorm::sched {

using namespace Halide;
using gen::PoolStages;

Expr unrolled_window_1d(const gen::PoolWindow &window) {
    Expr stride = Internal::const_false();
    for (int s : kUnrolledStrides1d) {
        stride = stride || window.stride[0] == s;
    }
    return stride && window.kernel[0] <= kMaxUnrolledKernel1d;
}

void schedule_pool_cpu_1d(PoolStages s, const PoolBuffers &b, const Target &target,
                          const PoolKnobs &knobs) {
    const int lanes = pool_lanes(s.compute_type, target, knobs);
    Var s0 = s.vars[0], c = s.vars[1], n = s.vars[2];
    Var plane("plane"), task("task"), xo("xo"), xi("xi");

    Expr outputs = 1;
    for (const Expr &e : b.output_extent) {
        outputs *= cast<int64_t>(e);
    }
    Expr parallel = outputs >= knobs.parallel_min_elements;
    Expr planes = max(b.output_extent[1] * b.output_extent[2], 1);

    Func out = s.out;
    out.fuse(c, n, plane)
        .split(plane, task, plane, select(parallel, 1, planes), TailStrategy::GuardWithIf)
        .parallel(task);
    auto vectors = [&](Stage stage) {
        stage.split(s0, xo, xi, lanes, TailStrategy::GuardWithIf).vectorize(xi);
    };
    for_each_kind(out, s, [&](Stage kind, int p_kind) {
        // Without rescaling the factor K / n (an integer division per output) goes.
        Stage plain = kind.specialize(!s.rescale && !s.signed_pow);
        if (s.recomputed_sum0.defined() && p_kind < int(s.recomputed_kind_conditions.size())) {
            for (int stride : kUnrolledStrides1d) {
                vectors(plain.specialize(s.recomputed_kind_conditions[p_kind] &&
                                         s.window.stride[0] == stride));
            }
        }
        vectors(plain);
        vectors(kind);
    });

    // The window sums, per vector of outputs, in registers.
    Func sum0 = s.sums[0];
    sum0.compute_at(out, xo).vectorize(s0);
    Stage taps0 = sum0.update();
    taps0.reorder(s0, s.taps[0].x);
    for (int stride : {1, 2}) {
        taps0.specialize(s.window.stride[0] == stride).vectorize(s0);
    }
    taps0.vectorize(s0);
    if (s.recomputed_sum0.defined()) {
        // In the copies of `out` above the stride is known and the other branches fold away;
        // the taps are unrolled to kMaxUnrolledKernel1d, each under a uniform condition.
        Func sum = s.recomputed_sum0;
        RVar tap = s.recomputed_taps0.x, tap_group("tap_group"), tap_in_group("tap_in_group");
        sum.compute_at(out, xo).vectorize(s0);
        Stage taps = sum.update();
        taps.reorder(s0, tap);
        for (int stride : kUnrolledStrides1d) {
            taps.specialize(s.window.stride[0] == stride)
                .split(tap, tap_group, tap_in_group, kMaxUnrolledKernel1d,
                       TailStrategy::GuardWithIf)
                .vectorize(s0)
                .unroll(tap_in_group);
        }
        taps.vectorize(s0);
    }

    // `padded`, per plane: zeroed, then the term written over the input's row once per
    // element (the abs mode on dense rows has a copy with no signed branch).
    Func padded = s.padded;
    padded.compute_at(out, plane)
        .hoist_storage(out, task)
        .vectorize(s0, lanes, TailStrategy::RoundUp);
    RVar px = s.padded_x, pxo("pxo"), pxi("pxi");
    Stage fill = padded.update();
    fill.split(px, pxo, pxi, lanes, TailStrategy::GuardWithIf).vectorize(pxi);
    for_each_kind(fill, s,
                  [&](Stage kind) { kind.specialize(b.input_stride0 == 1 && !s.signed_pow); });
}

}  // namespace lpnorm::sched
