// GPU schedule of the normalization patterns (CUDA, OpenCL, D3D12 compute).
//
// Four kernels per call, each over a whole tensor:
//   - one thread per group finds its peak |x| (its loop is empty unless the call is scaled or
//     p = inf), then one thread per group its scale factors;
//   - one thread per group adds its terms and finishes the reciprocal of the denominator;
//   - one thread per element multiplies it by its group's reciprocal.
// Groups lie along the innermost kept dim, so for the middle pattern neighbouring threads of
// the group kernels read neighbouring elements (coalesced); for the inner pattern each thread
// walks its own row. The output kernel's neighbouring threads read and write neighbouring
// elements in both. Nothing here has been timed on a GPU; CI runs the OpenCL kernels on PoCL
// (a CPU device) for their results only.
#include "gpu_normalize_schedule.h"

#include "gpu_common.h"
#include "normalize_specializations.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_normalize_gpu(NormalizePattern, const gen::NormalizeStages &stages,
                            const NormalizeBuffers &, const Target &target,
                            const NormalizeKnobs &knobs) {
    gen::NormalizeStages s = stages;
    const int threads = knobs.gpu_threads;

    // The peak and the scale factors are read by the reciprocal's kernel and (hi) the
    // output's: each is a kernel of its own, one thread per group.
    for (Func f : {s.peak, s.scale}) {
        f.compute_root();
        thread_per_point(f, s.group, threads, target);
    }
    thread_per_point(s.peak.update(), s.group, threads, target);

    Var at = thread_per_point(s.inverse, s.group, threads, target);
    s.inverse.compute_root();
    for (Func f : {s.sum, s.root, s.pair_root}) {
        compute_per_thread(f, s.inverse, at);
    }
    specialize_roots(s);
    // Past the kinds, the sum stays general: a failure branch inside a GPU kernel could not report
    // anything (the runtime passes only valid kinds).
    specialize_terms(s.sum.update(), s, [](Stage) {});

    Func out = s.out;
    thread_per_point(out, s.vars, threads, target);
    out.specialize(s.scaled);
}

}  // namespace lpnorm::sched
