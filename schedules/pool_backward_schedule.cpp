// CPU schedule of the pooling gradient.
//
// dx is one pass over x (read) and dx (written). A task takes whole rows of one plane (or whole
// channels of 1-D pooling); it computes what its rows' windows need once, then each row of dx,
// a few vectors of elements at a time. Each p_kind (and, on the general path, the signed mode
// where it changes the slope) gets its own copy of the loops, so that no copy evaluates
// another's arithmetic.
//
// The separable kinds (p = 1 to 4: kernel_abi.h) take each window's factor (F dy / y^(p - 1))
// once per task, sum those over the outer dims' windows a row at a time, then per vector of dx over
// dim 0's windows in registers, and multiply by h(x): about two loads and adds per element and
// tap instead of the general path's three loads, three products and an add. With a stride of 2
// along dim 0 a step takes both phases of a vector of windows, so x is read and dx written in
// whole vectors (the general path's phases read and wrote every other element). Measured with
// lpnorm_bench, float32 p = 2, 2 threads, Zen 4 (AVX-512), the binaries before and after run
// alternately (docs/benchmarks.md): [32,64,112,112] 2x2 s2 42-47 -> 13.7-13.9 ms, 3x3 s1 pad 1
// 31-32 -> 16.6-16.9, 3x3 s2 pad 1 44 -> 15.5-15.7; [8,256,28,28] 3x3 s1 4.2-4.9 -> 1.48-1.53, 2x2
// s2 6.1 -> 1.29-1.37; [1,512,14,14] 0.33 -> 0.145; [4,32,32,56,56] 2x2x2 s2 30-31 -> 8.4-8.7;
// [32,64,8192] 4 s2 19 -> 7.7. On the way: without the rescale's copy of the factors (a count
// lookup, a gather, per window) 3x3 s1 17.2 against 19.9 ms; the factors and sums computed per row
// of dx instead of per task (a sliding window) 32 ms; tasks of 2048 or 4096 elements instead of
// 16384, 19-28% slower; one copy for p = 1 and 2 instead of one each, the stride-2 shapes 35-50%
// slower. p = 3 moved from the general path to these copies in the same way (float32, same
// bench, alternately, twice each): [32,64,112,112] 2x2 s2 39 -> 13.7-14.0 ms, 3x3 s1 pad 1
// 33 -> 17.2-17.6, 3x3 s2 pad 1 44 -> 15.5-15.7; [8,256,28,28] 3x3 s1 4.4-4.7 -> 1.38-1.63,
// 2x2 s2 5.5-5.6 -> 1.37; [1,512,14,14] 0.32 -> 0.136; [4,32,32,56,56] 31 -> 9.7-9.8;
// [32,64,8192] 17.6-17.7 -> 7.0-7.1, each within 3% of p = 2 but the 3-D shape (16%).
//
// On Zen 5 (AVX-512, 2 threads) `perf annotate` of these copies showed the stride-2 phases
// stored to dx one element at a time (16 scalar stores per vector; the phases are now one
// interleaved vector), a gather of the second phase's sums (the buffers' mins are now 0, so an
// element's phase is known), the sums started at 0 and added to in memory (a vector stored as two
// halves and read back whole, which the store buffer cannot forward; each sum now starts from
// its first tap), and two integer divisions per row and tap of the outer dims (window strides 1
// and 2 now have copies without them). A program calling lpnorm::pool_backward, float32 p = 2,
// medians of 5 alternating runs of the builds before and after: [8,256,28,28] 2x2 s2 2.45 ->
// 1.30 ms, 3x3 s1 pad 1 2.35 -> 1.79; [1,512,14,14] 0.192 -> 0.161; [32,64,112,112] 2x2 s2
// 18.3 -> 12.2, 3x3 s2 pad 1 20.9 -> 12.8, 3x3 s1 pad 1 22.0 -> 21.2; [4,32,32,56,56] 20.8 ->
// 18.0; [32,64,8192] 8.8 -> 7.3. Tried and dropped: the last vector of a row shifted inwards
// instead of guarded (no faster; the 3-D kernel compiled in 5 minutes), several small planes
// per task (3x3 s1 4x slower).
//
// The general path, measured with lpnorm_bench (pool_backward/f32/p2/k3x3_s1_p1/32x64x112x112, 2
// threads, Zen 3, AVX2): 213 ms for the first schedule (coefficients gathered through a clamped
// index, a fused (c, n) task loop whose one-vector sums were allocated on the heap, a division per
// lane for the rescale counts), 37 ms for this one. The steps, in a standalone driver on Halide's
// own runtime: bounded storage and a loop per image 153 -> 106 ms, per-row counts 90, likely() 65
// (dense coefficient loads, no mask in the steady state), two vectors side by side 62 (four: 84).
// Tried and dropped: a window stride of 2 taken inside the kernel instead of the runtime's phases
// (the sums deinterleaved and reinterleaved per window): 2x2 s2 55 against 59 ms, but 3x3 s2 109
// against 70 ms and 3x3 s1 53 ms. The steady state is three loads, three products and an add per
// window and vector; the limit this chases, x, y, dy and dx streamed once, is about 10 ms.
#include "pool_backward_schedule.h"

#include <algorithm>

#include "kernel_abi.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::PoolBackwardStages;
using Halide::Internal::const_true;

// The slope differs between the modes for p = 1, 3, the chains and general p.
bool signed_mode_matters(int kind) { return kind != abi::kPool2 && kind != abi::kPool4; }

}  // namespace

void schedule_pool_backward(const PoolBackwardStages &stages, const PoolBackwardBuffers &b,
                            const GeneratorContext &context, const PoolBackwardKnobs &knobs) {
    PoolBackwardStages s = stages;  // Funcs are handles: scheduling a copy schedules them
    const Target &target = context.target();
    if (target.has_gpu_feature()) {
        throw CompileError("pooling gradient kernels have CPU schedules only (x86, ARM)");
    }
    const int spatial = int(s.vars.size()) - 2;
    const int lanes = target.natural_vector_size(s.compute_type);
    const Var s0 = s.vars[0], c = s.vars[spatial];
    Func out = s.out;
    Var task("task"), in_task("in_task");
    // Rows of the outermost spatial dim (planes for 1-D) per task.
    Expr row = 1;
    for (int d = 0; d + 1 < spatial; d++) {
        row *= b.dx_extent[d];
    }
    if (spatial == 1) row = b.dx_extent[0];
    Expr elements = b.dx_extent[0];
    for (int d = 1; d < spatial + 2; d++) elements *= b.dx_extent[d];
    // Below parallel_min_elements a task takes whole planes (whole rows of planes for 1-D).
    const Expr rows = spatial == 1 ? b.dx_extent[1] * b.dx_extent[2] : b.dx_extent[spatial - 1];
    const Expr per_task = select(elements < knobs.parallel_min_elements, max(rows, 1),
                                 max(1, knobs.task_elements / max(row, 1)));
    // Tasks of rows (or of channels, for 1-D) within one image at a time: a fused (c, n) loop
    // left the channel of a vector to bounds inference as the range from it to the last one,
    // and its one-vector sum was allocated on the heap.
    if (spatial == 1) {
        out.split(c, task, in_task, per_task, TailStrategy::GuardWithIf);
    } else {
        out.split(s.vars[spatial - 1], task, in_task, per_task, TailStrategy::GuardWithIf)
            .reorder(in_task, c, task)
            .fuse(c, task, task);
    }
    const int width = lanes * knobs.vector_multiple;
    const int separable_width = lanes * knobs.separable_vector_multiple;
    out.parallel(task);
    if (s.sum.defined() && spatial >= 2) {
        // The per-window kinds test the windows' rows and planes against the output's bounds
        // per row, not in a loop of their own at each end of the dims above dim 0: every such
        // loop held its copy of the window loops. Alternately, float32 p = 2.5, 3x3 s1 pad 1,
        // AVX-512, 2 threads: [8,64,56,56] 17.6-17.9 ms either way, 3x3 s2 p = 5 12.4 against
        // 13.0, [2,16,32,32,32] 29.2 against 28.9; the 3-D kernel compiled in 13 s, not 25.
        std::vector<VarOrRVar> rows;
        for (int d = 1; d < spatial; d++) {
            rows.push_back(d == spatial - 1 ? in_task : s.vars[d]);
        }
        out.never_partition(rows);
    }
    // Dense rows (unit strides) and strided ones (the phases of a stride along dim 0), each with
    // a copy per kind, `n` elements of dx per vector.
    auto vectorized = [&](Stage leaf, int n) { leaf.vectorize(s0, n, TailStrategy::GuardWithIf); };
    for (int dense = 1; dense >= 0; dense--) {
        Stage layout = dense ? out.specialize(b.unit_strides) : Stage(out);
        for (const Expr &is_kind : s.separable_kinds) {
            if (dense) {
                // A stride of 2 along dim 0: both phases of a vector of windows in one step, x
                // read and dx written in whole vectors (interleaved in registers).
                Var phase("phase");
                Stage leaf = layout.specialize(is_kind && s.window_stride0 == 2)
                                 .split(s0, s0, phase, 2, TailStrategy::GuardWithIf);
                vectorized(leaf, separable_width);
                leaf.vectorize(phase);
                // No stride along dim 0: element i reads the windows' sums at i.
                vectorized(layout.specialize(is_kind && s.window_stride0 == 1), separable_width);
            }
            vectorized(layout.specialize(is_kind), separable_width);
        }
        for (int kind : s.general_kinds) {
            const Expr is_kind = s.kind_conditions[kind];
            if (signed_mode_matters(kind)) {
                vectorized(layout.specialize(is_kind && s.signed_pow), width);
                vectorized(layout.specialize(is_kind && !s.signed_pow), width);
            } else {
                vectorized(layout.specialize(is_kind), width);
            }
        }
        layout.specialize_fail("p_kind is not a pooling kind");
    }

    // The per-window stages computed once per task keep Halide's loops per side of their
    // boundary conditions: without them (never_partition_all), window_factors made
    // [8,64,56,56] 3x3 s1 pad 1 p = 2 1.9-2.1 -> 2.7-3.4 ms (AVX-512, 2 threads) and
    // coefficients p = 2.5 16.5 -> 17.6 ms, for a fifth less compile time. The counts per row
    // and column (inside) do without: a few integers per task.
    const Var coefficients_at = spatial == 1 ? in_task : task;
    if (!s.separable_kinds.empty()) {
        // The separable kinds' per-window factors and the sums over the outer dims' windows,
        // once per task, float64 rows; the sums over dim 0's windows per vector of dx, in
        // registers.
        const int lanes64 = target.natural_vector_size(Float(64));
        // A copy without the rescale's counts (a lookup per window, a gather, and a division).
        s.window_factors.compute_at(out, coefficients_at)
            .vectorize(s0, lanes64, TailStrategy::RoundUp);
        s.window_factors.specialize(!s.rescale);
        for (size_t d = 0; d < s.outer_sums.size(); d++) {
            Func sums = s.outer_sums[d];
            sums.compute_at(out, coefficients_at).vectorize(s0, lanes64, TailStrategy::RoundUp);
            // A tap's window (an integer division) once per row, not per vector.
            sums.update()
                .reorder(s0, s.outer_taps[d])
                .vectorize(s0, lanes64, TailStrategy::RoundUp);
            // Window strides of 1 and 2 (3x3 s1, 2x2 s2, 3x3 s2) without the division.
            for (int stride : {1, 2}) {
                sums.specialize(s.outer_window_strides[d] == stride);
                sums.update().specialize(s.outer_window_strides[d] == stride);
            }
        }
        const int n = separable_width;
        s.phase_sums.compute_at(out, s0).vectorize(s.q, n, TailStrategy::RoundUp);
        s.phase_sums.update().vectorize(s.q, n, TailStrategy::RoundUp);
        s.phase_sums.bound_storage(s.q, n).bound_storage(s.r, abi::kMaxSeparableStride0);
        for (size_t d = 1; d < s.vars.size(); d++) {
            s.phase_sums.bound_storage(s.vars[d], 1);
        }
    }
    for (Func count : s.inside) {
        count.compute_at(out, coefficients_at).never_partition_all();
    }
    if (s.sum.defined()) {
        s.coefficients.compute_at(out, coefficients_at)
            .vectorize(s0, lanes, TailStrategy::GuardWithIf);
        // The sums of `width` elements of dx in registers, the windows in the loops around
        // them. The storage is bounded to that: without a constant bound, Halide allocated it on
        // the heap per vector (malloc and free took 14% of a 3x3 call).
        s.sum.compute_at(out, s0).vectorize(s0);
        s.sum.update().vectorize(s0);
        for (const Var &v : s.vars) {
            s.sum.bound_storage(v, v.same_as(s0) ? width : 1);
        }
    }
}

}  // namespace lpnorm::sched
