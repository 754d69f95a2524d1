// CPU schedule of the pooling gradient.
//
// dx is one pass over x (read) and dx (written). A task takes whole rows of one plane (or whole
// channels of 1-D pooling); it computes the coefficients of the windows its rows read once,
// then each row of dx, vector_multiple vectors of elements at a time, with the windows of those
// vectors in the loops inside, their sums in registers. Each p_kind (and the signed mode where
// it changes the slope) gets its own copy of the loops, so that no copy evaluates another's
// arithmetic.
//
// Measured with lpnorm_bench (pool_backward/f32/p2/k3x3_s1_p1/32x64x112x112, 2 threads, Zen 3,
// AVX2): 213 ms for the first schedule (coefficients gathered through a clamped index, a fused
// (c, n) task loop whose one-vector sums were allocated on the heap, a division per lane for the
// rescale counts), 37 ms for this one. The steps, in a standalone driver on Halide's own
// runtime: bounded storage and a loop per image 153 -> 106 ms, per-row counts 90, likely() 65
// (dense coefficient loads, no mask in the steady state), two vectors side by side 62 (four:
// 84). Tried and dropped: a window stride of 2 taken inside the kernel instead of the runtime's
// phases (the sums deinterleaved and reinterleaved per window): 2x2 s2 55 against 59 ms, but
// 3x3 s2 109 against 70 ms and 3x3 s1 53 ms. The steady state is three loads, three products
// and an add per window and vector; the limit this chases, x, y, dy and dx streamed once, is
// about 10 ms.
#include "pool_backward_schedule.h"

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
    out.vectorize(s0, width, TailStrategy::GuardWithIf).parallel(task);
    // Dense rows (unit strides) and strided ones (the phases of a stride along dim 0), each with
    // a copy per kind.
    for (Stage layout : {out.specialize(b.unit_strides), Stage(out)}) {
        for (int kind = 0; kind < abi::kNumPoolKinds; kind++) {
            const Expr is_kind = s.kind_conditions[kind];
            if (signed_mode_matters(kind)) {
                layout.specialize(is_kind && s.signed_pow);
                layout.specialize(is_kind && !s.signed_pow);
            } else {
                layout.specialize(is_kind);
            }
        }
        layout.specialize_fail("p_kind is not a pooling kind");
    }

    const Var coefficients_at = spatial == 1 ? in_task : task;
    s.coefficients.compute_at(out, coefficients_at).vectorize(s0, lanes, TailStrategy::GuardWithIf);
    for (Func count : s.inside) {
        count.compute_at(out, coefficients_at);
    }
    // The sums of `width` elements of dx in registers, the windows in the loops around them.
    // The storage is bounded to that: without a constant bound, Halide allocated it on the
    // heap per vector (malloc and free took 14% of a 3x3 call).
    s.sum.compute_at(out, s0).vectorize(s0);
    s.sum.update().vectorize(s0);
    for (const Var &v : s.vars) {
        s.sum.bound_storage(v, v.same_as(s0) ? width : 1);
    }
}

}  // namespace lpnorm::sched
