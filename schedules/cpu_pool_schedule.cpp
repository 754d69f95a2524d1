// CPU schedule of the pooling generator.
//
// Work is split into tasks of (channel plane, strip of output rows of the outermost spatial
// dim). Inside a task the window sums slide: each output row computes only the rows of the
// inner sums it has not seen yet, and |x|^p is computed once per input row those need, so
// every input element is read and raised to p about once. Every stage is vectorised along
// the innermost spatial dim.
#include "cpu_pool_schedule.h"

#include "cpu_target.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::PoolStages;

// Gives each p_kind its own copy of `stage` (the general kind calls pow; the others must not
// pay for it) and applies `body` to each.
template <typename Body>
void for_each_kind(Stage stage, const PoolStages &s, Body body) {
    for (const Expr &condition : s.kind_conditions) {
        body(stage.specialize(condition));
    }
    stage.specialize_fail("lpnorm: unknown p_kind");
}

// Window sum along spatial dim d, vectorised along dim 0 with the taps outside the vector
// loop, so that the loop over dim 0 is the one split at the padding into an edge part and a
// steady part with dense loads (taps innermost put the padding clamp inside a vector loop:
// gathers: 3x3 s1 pad 1 on [32, 64, 112, 112] took 39 ms, now 32). Along dim 0 the
// common strides get their own copies with dense or two-way interleaved loads instead of
// gathers. Copies for the common windows (2x2 s2, 3x3 s1, 3x3 s2, 2x2x2 s2, 1-D k4 s2) with
// their taps unrolled inside the vector loop did not pay: 12.4, 37.0, 21.0, 10.1 and 6.8 ms
// against 12.5, 31.7, 20.9, 10.4 and 7.5 ms without (f32 p = 2, shapes of bench_pool.cpp), at
// four times the compile time of the 3-D kernel.
//
// The sums (and the root) are internal rows, so their vector loops round up instead of
// guarding a tail: their reads of `term` are clamped to the input, so the extra lanes stay
// in bounds. Guarded tails of 56-wide rows cost a branchy partial vector per row: 2x2 s2
// 12.4 -> 10.0 ms, 3x3 s2 20.9 -> 15.4 ms, 2x2x2 s2 10.4 -> 6.2 ms.
void schedule_window_sum(Func sum, const RDom &tap, int d, const PoolStages &s, int lanes) {
    Var s0 = s.vars[0];
    sum.vectorize(s0, lanes, TailStrategy::RoundUp);
    Stage update = sum.update();
    update.reorder(s0, tap.x);
    if (d == 0) {
        for (int stride : {1, 2}) {
            update.specialize(s.window.stride[0] == stride)
                .vectorize(s0, lanes, TailStrategy::RoundUp);
        }
    }
    update.vectorize(s0, lanes, TailStrategy::RoundUp);
}

}  // namespace

void schedule_pool_cpu(PoolStages s, const PoolBuffers &b, const Target &target,
                       const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.sums.size());
    // ARM64's 128-bit vectors hold half the lanes of AVX2's and its 32 registers afford two
    // per vector operation, so rows are vectorised as wide as on AVX2 (8 float32 lanes) and
    // the rounded-up tails of the common 56- and 112-wide rows are the ones measured there.
    const int arm_pairs = is_arm64(target) ? 2 : 1;
    const int lanes = target.natural_vector_size(s.compute_type) * arm_pairs *
                      std::max(1, knobs.vector_multiple);
    Var s0 = s.vars[0], c = s.vars[spatial], n = s.vars[spatial + 1];
    Var plane("plane"), strip("strip"), row("row"), task("task");

    Expr outputs = 1;
    for (const Expr &e : b.output_extent) {
        outputs *= cast<int64_t>(e);
    }
    Expr parallel = outputs >= knobs.parallel_min_elements;

    Func out = s.out;
    out.fuse(c, n, plane);
    Var at;  // the loop the outermost window sum is computed at
    if (spatial == 1) {
        task = plane;
        at = plane;
    } else {
        // Whole planes per task when there are enough planes for every core: a task then
        // slides once over its plane. Few planes (one image, few channels) are cut into
        // strips of rows so that both cores get work.
        Var outer = s.vars[spatial - 1];
        Expr planes = b.output_extent[spatial] * b.output_extent[spatial + 1];
        Expr rows = select(planes >= knobs.min_planes, b.output_extent[spatial - 1],
                           knobs.strip_rows);
        out.split(outer, strip, row, max(rows, 1), TailStrategy::GuardWithIf)
            .fuse(strip, plane, task);
        at = row;
    }
    // Specialisations of `out` copy everything computed inside it, so only the thread pool
    // choice is made there; the p_kind copies are made per output row, in `norm`. (p_kind
    // copies of `out` made the 2-D kernel take 5 minutes to compile.)
    out.specialize(parallel).parallel(task).vectorize(s0, lanes, TailStrategy::GuardWithIf);
    out.vectorize(s0, lanes, TailStrategy::GuardWithIf);
    s.norm.compute_at(out, at);
    for_each_kind(s.norm, s, [&](Stage kind) {
        // Without rescaling the factor K / n (an integer division per output and dim) goes:
        // 2x2 s2 on [32, 64, 112, 112] took 19 ms with it evaluated and discarded.
        kind.specialize(!s.rescale).vectorize(s0, lanes, TailStrategy::RoundUp);
        kind.vectorize(s0, lanes, TailStrategy::RoundUp);
    });

    // The outermost sum once per output row; each inner sum slides along the dim above it.
    // Buffers computed per row are allocated once per task (hoist_storage), not per row.
    s.sums[spatial - 1].compute_at(out, at);
    if (spatial >= 2) {
        s.norm.hoist_storage(out, task);
        s.sums[spatial - 1].hoist_storage(out, task);
        s.sums[spatial - 2].store_at(out, task).compute_at(out, at);
    }
    if (spatial == 3) {
        s.sums[0].store_at(s.sums[1], s.vars[2]).compute_at(s.sums[1], s.vars[1])
            .hoist_storage(out, task);
    }
    for (int d = 0; d < spatial; d++) {
        schedule_window_sum(s.sums[d], s.taps[d], d, s, lanes);
    }

    // |x|^p once per input row the first sum needs (per task for one spatial dim).
    if (spatial == 1) {
        s.term.compute_at(out, task);
    } else {
        s.term.compute_at(s.sums[0], s.vars[1]).hoist_storage(out, task);
    }
    for_each_kind(s.term, s, [&](Stage kind) {
        kind.specialize(b.input_stride0 == 1).vectorize(s0, lanes, TailStrategy::GuardWithIf);
        kind.vectorize(s0, lanes, TailStrategy::GuardWithIf);
    });
}

}  // namespace lpnorm::sched
