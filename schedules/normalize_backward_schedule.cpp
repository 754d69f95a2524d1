// CPU schedule of the normalization gradient.
//
// dx needs, per group, the forward's denominator (its peak, scale and sum passes) and the sum
// of dy y (one more pass, over x and dy): the forward's loops carry them, a block of groups at
// a time, and dx is written while the block is in cache. General p (pow per element) gets its
// own copy of dx's loop, so that the other kinds never evaluate pow.
#include "normalize_backward_schedule.h"

#include "cpu_normalize_schedule.h"
#include "kernel_abi.h"
#include "normalize_specializations.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_normalize_backward(NormalizePattern pattern,
                                 const gen::NormalizeBackwardStages &stages,
                                 const NormalizeBuffers &buffers, const GeneratorContext &context,
                                 const NormalizeKnobs &knobs) {
    const Target &target = context.target();
    if (target.has_gpu_feature()) {
        throw CompileError("normalization gradient kernels have CPU schedules only (x86, ARM)");
    }
    gen::NormalizeBackwardStages b = stages;
    gen::NormalizeStages s = b.forward;
    s.out = b.out;
    const LoopLevel group_level =
        schedule_normalize_loops_cpu(pattern, s, buffers, target, knobs,
                                     [&](Func out, const Expr &parallel, const VarOrRVar &loop) {
                                         // General p (pow per element) gets a copy of its own; the
                                         // other kinds share one, their slopes a select of a few
                                         // vector operations. A copy per kind (and per scaled call)
                                         // made the middle kernel take 185 s to compile: each copy
                                         // of dx's loops holds its own copies of the forward's
                                         // group stages.
                                         const Expr general = s.kind_conditions[abi::kLp];
                                         out.specialize(general && parallel).parallel(loop);
                                         out.specialize(general);
                                         out.specialize(parallel).parallel(loop);
                                     });
    const int lanes = target.natural_vector_size(s.compute_type);
    const Var k0 = s.vars[0];
    b.factors.compute_at(group_level);
    b.dot.compute_at(group_level);
    b.count.compute_at(group_level);
    if (pattern == NormalizePattern::middle) {
        for (Func f : {b.factors, b.dot, b.count}) {
            f.vectorize(k0, lanes, TailStrategy::GuardWithIf);
        }
        b.dot.update().reorder(k0, b.dot_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
        b.count.update().reorder(k0, b.count_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
        return;
    }
    // Rows: vector accumulators, one per lane, added up after the row.
    Var lane("lane");
    RVar dv("dot_rv"), dl("dot_rl"), cv("count_rv"), cl("count_rl");
    Func dot_lanes =
        b.dot.update().split(b.dot_r.x, dv, dl, lanes, TailStrategy::GuardWithIf).rfactor(dl, lane);
    dot_lanes.compute_at(group_level).vectorize(lane);
    dot_lanes.update().vectorize(lane);
    Func count_lanes = b.count.update()
                           .split(b.count_r.x, cv, cl, lanes, TailStrategy::GuardWithIf)
                           .rfactor(cl, lane);
    count_lanes.compute_at(group_level).vectorize(lane);
    count_lanes.update().vectorize(lane);
}

}  // namespace lpnorm::sched
