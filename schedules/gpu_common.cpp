#include "gpu_common.h"

#include <string>

namespace lpnorm::sched {

using namespace Halide;

Var thread_per_point(Func f, const std::vector<Var> &vars, int threads, const Target &target) {
    if (vars.empty()) {
        f.gpu_single_thread(gpu_api(target));
        return Var::outermost();
    }
    Var fused = vars[0];
    for (size_t i = 1; i < vars.size(); i++) {
        Var next("fused" + std::to_string(i));
        f.fuse(fused, vars[i], next);
        fused = next;
    }
    Var block("block"), thread("thread");
    f.gpu_tile(fused, block, thread, threads, TailStrategy::GuardWithIf, gpu_api(target));
    return thread;
}

}  // namespace lpnorm::sched
