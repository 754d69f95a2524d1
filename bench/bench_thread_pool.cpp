// The fork/join cost of a parallel loop: lpnorm's pool (runtime/thread_pool.h), Halide's own
// pool, and a bare handoff between two threads spinning on one atomic, the floor for any pool.
// Each task is a dependent chain of `chain` float64 adds (2000 take about 1.1 us here), so the
// time per loop minus the longest thread's share of the chains is what the loop costs.
//
//   lpnorm_bench --benchmark_filter='^threads/'
// First: the Halide runtime's names as lpnorm's archive has them (lpnorm_halide_*,
// cmake/LpnormPrivateRuntime.cmake), for the runtime calls below.
#include "lpnorm_halide_runtime_names.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

#include "lpnorm/lpnorm.h"
#include "runtime/thread_pool.h"

namespace lpnorm_bench {
namespace {

double add_chain(int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += k * 1e-9;
    return s;
}

std::atomic<double> g_sink{0};

int chain_task(void *, int, uint8_t *closure) {
    const double s = add_chain(*reinterpret_cast<int *>(closure));
    g_sink.store(s, std::memory_order_relaxed);
    return 0;
}

template <halide_do_par_for_t do_par_for>
void loop(benchmark::State &state) {
    int chain = int(state.range(1));
    const int tasks = int(state.range(0));
    lpnorm::set_num_threads(2);
    for (auto _ : state) {
        do_par_for(nullptr, chain_task, 0, tasks, reinterpret_cast<uint8_t *>(&chain));
    }
    lpnorm::set_num_threads(0);
}

// Two tasks, one per thread, handed over through one atomic each way: no pool bookkeeping.
void spin_handoff(benchmark::State &state) {
    const int chain = int(state.range(1));
    std::atomic<int> go{0}, done{0};
    std::thread worker([&] {
        for (int seen = 0;;) {
            int g;
            while ((g = go.load(std::memory_order_acquire)) == seen) {
            }
            if (g < 0) return;
            seen = g;
            g_sink.store(add_chain(chain), std::memory_order_relaxed);
            done.store(g, std::memory_order_release);
        }
    });
    int round = 0;
    for (auto _ : state) {
        go.store(++round, std::memory_order_release);
        g_sink.store(add_chain(chain), std::memory_order_relaxed);
        while (done.load(std::memory_order_acquire) != round) {
        }
    }
    go.store(-1, std::memory_order_release);
    worker.join();
}

void loop_args(benchmark::internal::Benchmark *b) {
    b->ArgNames({"tasks", "chain"})->Args({2, 0})->Args({9, 0})->Args({2, 2000})->Args({9, 2000});
    b->UseRealTime();
}

BENCHMARK(loop<lpnorm::rt::pool_do_par_for>)->Name("threads/lpnorm_pool")->Apply(loop_args);
BENCHMARK(loop<halide_default_do_par_for>)->Name("threads/halide_pool")->Apply(loop_args);
BENCHMARK(spin_handoff)
    ->Name("threads/spin_handoff")
    ->ArgNames({"tasks", "chain"})
    ->Args({2, 0})
    ->Args({2, 2000})
    ->UseRealTime();

}  // namespace
}  // namespace lpnorm_bench
