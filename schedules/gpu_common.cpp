#include "gpu_common.h"

#include <string>

namespace lpnorm::sched {

using namespace Halide;

Var thread_per_point(Stage f, const std::vector<Var> &vars, int threads, const Target &target) {
    if (vars.empty()) {
        f.gpu_single_thread(gpu_api(target));
        return Var::outermost();
    }
    // Threads split the innermost dim only; every other dim is fused into the block index.
    // Fusing the thread index too would hide from bounds inference that a thread computes one
    // point: producers computed per thread then got a scratch row per thread in global memory
    // (1-D pooling of [32, 64, 8192] asked OpenCL for more than a buffer may hold).
    Var block("block"), thread("thread");
    f.split(vars[0], block, thread, threads, TailStrategy::GuardWithIf);
    for (size_t i = 1; i < vars.size(); i++) {
        Var next("block" + std::to_string(i));
        f.fuse(block, vars[i], next);
        block = next;
    }
    f.gpu_blocks(block, gpu_api(target)).gpu_threads(thread, gpu_api(target));
    return thread;
}

void compute_per_thread(Func producer, Func consumer, const Var &thread) {
    producer.compute_at(consumer, thread);
    for (const Var &v : producer.args()) {
        producer.bound_extent(v, 1);
    }
}

}  // namespace lpnorm::sched
