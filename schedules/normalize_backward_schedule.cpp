// CPU schedule of the normalization gradient.
//
// dx needs, per group, the forward's denominator (its peak, scale and sum passes) and the sum
// of dy y (one more pass, over x and dy): the forward's loops carry them, a block of groups at
// a time, and dx is written while the block is in cache, by a copy of its loops per kind.
//
// GPU (CUDA, OpenCL): one kernel per group stage (the forward's peak, scale, sum, roots and
// reciprocal, then the ties, the sum of dy y and the factors), one thread per group, and dx with
// one thread per element. Checked on PoCL and CUDA for results; not tuned.
#include "normalize_backward_schedule.h"

#include "cpu_normalize_schedule.h"
#include "gpu_common.h"
#include "kernel_abi.h"
#include "normalize_specializations.h"

namespace lpnorm::sched {

using namespace Halide;

namespace {

// A copy of dx's loops per kind (threaded or not), so that no kind evaluates another's slope
// (general p: a power per element). With p = 1, 2, 3 and inf sharing one copy by a select, each
// paid for every kind's slope: [4096, 1024] float32 p = 2 took 0.95-1.09 ms against 0.58-0.60
// after (AVX-512, 2 threads; docs/benchmarks.md). The scaled calls share their kind's copy: a
// copy per kind and per scaled call took the middle kernel 185 s to compile (each copy of dx's
// loops holds its own copies of the forward's group stages); per kind it takes 4.6 s (float32,
// AVX-512; 2.3 s with the shared copy).
void specialize_dx_per_kind(const gen::NormalizeStages &s, Func out, const Expr &parallel,
                            const VarOrRVar &loop) {
    for (const Expr &kind : s.kind_conditions) {
        out.specialize(kind && parallel).parallel(loop);
        out.specialize(kind);
    }
    out.specialize_fail("p_kind is not a normalization kind");
}

}  // namespace

void schedule_normalize_backward(NormalizePattern pattern,
                                 const gen::NormalizeBackwardStages &stages,
                                 const NormalizeBuffers &buffers, const GeneratorContext &context,
                                 const NormalizeKnobs &knobs) {
    const Target &target = context.target();
    gen::NormalizeBackwardStages b = stages;
    gen::NormalizeStages s = b.forward;
    s.out = b.out;
    if (target.has_gpu_feature()) {
        // The factors read the roots as well as the reciprocal, so each group stage is a
        // kernel of its own (the forward computes its roots inside the reciprocal's threads).
        const int threads = knobs.gpu_threads;
        for (Func f :
             {s.peak, s.scale, s.sum, s.root, s.pair_root, s.inverse, b.count, b.dot, b.factors}) {
            f.compute_root();
            thread_per_point(f, s.group, threads, target);
        }
        for (Func f : {s.peak, s.sum, b.count, b.dot}) {
            thread_per_point(f.update(), s.group, threads, target);
        }
        specialize_roots(s);
        // Past the kinds, the sum stays general: a failure branch inside a GPU kernel could not
        // report anything (the runtime passes only valid kinds).
        specialize_terms(s.sum.update(), s, [](Stage) {});
        Func out = s.out;
        thread_per_point(out, s.vars, threads, target);
        out.specialize(s.scaled);
        return;
    }
    const LoopLevel group_level =
        schedule_normalize_loops_cpu(pattern, s, buffers, target, knobs,
                                     [&](Func out, const Expr &parallel, const VarOrRVar &loop) {
                                         specialize_dx_per_kind(s, out, parallel, loop);
                                     });
    const int lanes = target.natural_vector_size(s.compute_type);
    const Var k0 = s.vars[0];
    b.factors.compute_at(group_level);
    b.dot.compute_at(group_level);
    b.through.compute_at(group_level);
    b.count.compute_at(group_level);
    // General p's a^(p - 1), stored for the block: the sum's terms and dx's slopes read it.
    // Its update runs over r only for general p; the other kinds pay its allocation alone.
    const bool shared_slopes = s.slope_base.defined();
    const int power_lanes = lanes * knobs.power_vectors;
    if (shared_slopes) {
        s.slope_base.compute_at(group_level);
        b.slope_scale.compute_at(group_level);
        b.slope_scale.specialize(s.kind_conditions[abi::kLp]);
    }
    if (pattern == NormalizePattern::middle) {
        for (Func f : {b.factors, b.dot, b.through, b.count}) {
            f.vectorize(k0, lanes, TailStrategy::GuardWithIf);
        }
        if (shared_slopes) {
            b.slope_scale.vectorize(k0, lanes, TailStrategy::GuardWithIf);
            s.slope_base.update()
                .reorder(k0, s.slope_base_r.x)
                .vectorize(k0, power_lanes, TailStrategy::GuardWithIf);
        }
        b.dot.update().reorder(k0, b.dot_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
        b.count.update().reorder(k0, b.count_r.x).vectorize(k0, lanes, TailStrategy::GuardWithIf);
        return;
    }
    if (shared_slopes) {
        s.slope_base.update().vectorize(s.slope_base_r.x, power_lanes, TailStrategy::GuardWithIf);
    }
    // Rows: vector accumulators, one per lane, as many vectors as the forward's sums (unrolled,
    // so they stay in registers), added up after the row by a vector tree. With one vector, each
    // FMA of the sum of dy y waited for the one before: a quarter of the samples of
    // [4096, 1024] float32 p = 2 (AVX-512, 2 threads), which went from 1.07-1.09 to 0.94 ms;
    // [65536, 128] from 3.43-3.53 to 2.80-2.87 ms (with the forward's lane tree).
    Var lane("lane"), vector_in_lanes("vector_in_lanes");
    RVar dv("dot_rv"), dl("dot_rl"), cv("count_rv"), cl("count_rl");
    const int dot_lanes_n = target.natural_vector_size(s.input_type) * knobs.vector_multiple;
    Func dot_lanes = b.dot.update()
                         .split(b.dot_r.x, dv, dl, dot_lanes_n, TailStrategy::GuardWithIf)
                         .rfactor(dl, lane);
    dot_lanes.compute_at(group_level).bound(lane, 0, dot_lanes_n).vectorize(lane, lanes);
    dot_lanes.update()
        .split(lane, vector_in_lanes, lane, lanes)
        .vectorize(lane)
        .unroll(vector_in_lanes);
    b.dot.update().specialize(buffers.input_extent[0] >= dot_lanes_n).atomic().vectorize(dl);
    Func count_lanes = b.count.update()
                           .split(b.count_r.x, cv, cl, lanes, TailStrategy::GuardWithIf)
                           .rfactor(cl, lane);
    count_lanes.compute_at(group_level).vectorize(lane);
    count_lanes.update().vectorize(lane);
}

}  // namespace lpnorm::sched
