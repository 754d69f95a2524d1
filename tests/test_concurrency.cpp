// Many threads calling lpnorm at once: every result equals, bit for bit, the same call made on
// one thread before the threads start; changing the worker count while kernels run changes no
// result; the C ABI's last error stays per thread.
//
// Sizes sit on both sides of the schedules' parallel thresholds (schedules/reduce_schedule.h:
// parallel_min_elements = 2^18 input elements; schedules/pool_schedule.h: 2^14 output
// elements, whole planes from 16 planes up, strips of rows below), so some kernels fan out to
// the thread pool (runtime/thread_pool.h) while others run on the calling thread.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "lpnorm/lpnorm_c.h"
#include "workload.h"

namespace lpnorm::test {
namespace {

constexpr int kThreads = 8;

struct Workload {
    std::vector<Case> cases;
    std::vector<std::vector<unsigned char>> expected;  // per case, from one thread
};

// Below every parallel threshold: the kernels run on the calling thread.
std::vector<Case> small_cases() {
    return {
        reduce_case(DType::float32, {1000}, {0}, 2, 1),
        reduce_case(DType::float16, {6, 12, 10, 24}, {2, 3}, 1, 2),
        reduce_case(DType::float64, {100, 37}, {0}, 3, 3),
        reduce_case(DType::int32, {3, 50, 7}, {1}, 0.5, 4),
        reduce_case(DType::float32, {30, 40}, {1}, HUGE_VAL, 5, {80, 2}),
        reduce_case(DType::bfloat16, {999}, {0}, -HUGE_VAL, 6),
        reduce_case(DType::uint8, {40, 33}, {1}, 2, 7),
        reduce_case(DType::int64, {5, 6, 7}, {0, 2}, 0, 8),
        pool_case(DType::float32, {2, 3, 50}, {3}, 2, 9,
                  [](PoolParams &p) {
                      p.strides = {2};
                      p.pads = {1, 1};
                  }),
        pool_case(DType::float16, {1, 3, 10, 12}, {3, 3}, 3, 10,
                  [](PoolParams &p) {
                      p.pads = {1, 1, 1, 1};
                  }),
        pool_case(DType::float64, {1, 2, 6, 6, 6}, {2, 2, 2}, 0.5, 11,
                  [](PoolParams &p) {
                      p.dilations = {2, 2, 2};
                  }),
        pool_case(DType::bfloat16, {1, 2, 9, 9}, {2, 2}, 1, 12,
                  [](PoolParams &p) {
                      p.strides = {2, 2};
                      p.ceil_mode = true;
                      p.mode = PoolMode::signed_pow;
                      p.overhang = Overhang::rescale;
                  }),
    };
}

// Above the thresholds: the kernels split into parallel tasks.
std::vector<Case> large_cases() {
    return {
        reduce_case(DType::float32, {600000}, {0}, 2, 21),                      // all
        reduce_case(DType::float16, {512, 1024}, {1}, 1, 22),                   // inner
        reduce_case(DType::float64, {1024, 300}, {0}, 0.5, 23),                 // outer
        reduce_case(DType::float32, {8, 200, 200}, {1}, 3, 24),                 // middle
        reduce_case(DType::float32, {600, 500}, {1}, HUGE_VAL, 25, {1000, 2}),  // general
        reduce_case(DType::int32, {400000}, {0}, 1, 26),                        // all
        pool_case(DType::float32, {4, 16, 1024}, {4}, 2, 27,
                  [](PoolParams &p) { p.strides = {2}; }),
        pool_case(DType::float32, {2, 16, 64, 64}, {3, 3}, 2, 28,
                  [](PoolParams &p) {
                      p.pads = {1, 1, 1, 1};
                  }),
        pool_case(DType::float16, {1, 4, 192, 192}, {3, 3}, 2.5, 29,
                  [](PoolParams &p) {
                      p.pads = {1, 1, 1, 1};
                  }),
        pool_case(DType::float32, {2, 8, 24, 24, 24}, {3, 3, 3}, 1, 30,
                  [](PoolParams &p) { p.auto_pad = AutoPad::same_lower; }),
        pool_case(DType::float64, {1, 8, 128, 129}, {2, 2}, 4, 31,
                  [](PoolParams &p) {
                      p.strides = {2, 2};
                      p.dilations = {2, 1};
                      p.ceil_mode = true;
                  }),
    };
}

// The single-threaded results, made before any other thread starts.
Workload prepare(std::vector<Case> cases) {
    Workload w;
    w.cases = std::move(cases);
    for (const Case &c : w.cases) {
        std::string error;
        w.expected.push_back(run_case(c, c.input->t, &error));
        EXPECT_TRUE(error.empty()) << error;
    }
    return w;
}

// Inputs up to this size get a per-thread copy (memory stays under ~100 MB with 8 threads).
constexpr size_t kCopyBytes = size_t(1) << 20;

// One caller thread: `rounds` passes over the cases in a thread-specific order, alternating
// between the shared input and, for inputs up to kCopyBytes, the thread's own copy of it.
// Returns the calls made.
int call_many(const Workload &w, int thread, int rounds, std::atomic<int> *failures) {
    std::vector<Array> own;
    for (const Case &c : w.cases)
        own.push_back(c.input->storage.size() <= kCopyBytes ? clone(*c.input) : Array{});
    int calls = 0;
    const size_t n = w.cases.size();
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < n; k++) {
            const size_t i = (k * 7 + size_t(thread) * 5 + size_t(r)) % n;
            const bool use_own = (r + thread) % 2 == 1 && !own[i].storage.empty();
            const Tensor &input = use_own ? own[i].t : w.cases[i].input->t;
            std::string error;
            const std::vector<unsigned char> got = run_case(w.cases[i], input, &error);
            calls++;
            if (got != w.expected[i] && failures->fetch_add(1) < 10) {
                ADD_FAILURE() << "thread " << thread << ", round " << r << ": " << w.cases[i].name
                              << (error.empty() ? ": differs from the single-threaded result"
                                                : ": " + error);
            }
        }
    }
    return calls;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Concurrency, ManyThreadsGiveTheSingleThreadedResults) {
    const auto t0 = std::chrono::steady_clock::now();
    const Workload small = prepare(small_cases()), large = prepare(large_cases());
    std::atomic<int> failures{0}, calls{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&, t] {
            calls += call_many(small, t, 40, &failures);
            calls += call_many(large, t, 3, &failures);
        });
    }
    for (std::thread &t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(calls.load(),
              kThreads * (40 * int(small.cases.size()) + 3 * int(large.cases.size())));
    std::printf(
        "[ info     ] %d calls (%d threads, %zu small and %zu parallel-sized cases, shared and "
        "per-thread inputs) in %.2f s\n",
        calls.load(), kThreads, small.cases.size(), large.cases.size(), seconds_since(t0));
}

// One thread keeps changing the worker count while seven call lpnorm. The reference results
// are made with one worker, so any dependence of a result on the worker count shows up.
TEST(Concurrency, ChangingTheThreadCountChangesNoResult) {
    const auto t0 = std::chrono::steady_clock::now();
    set_num_threads(1);
    const Workload small = prepare(small_cases()), large = prepare(large_cases());
    std::atomic<int> failures{0}, calls{0}, callers_left{kThreads - 1}, changes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads - 1; t++) {
        threads.emplace_back([&, t] {
            calls += call_many(large, t, 3, &failures);
            calls += call_many(small, t, 10, &failures);
            callers_left--;
        });
    }
    threads.emplace_back([&] {
        const int counts[] = {1, 2, 3, 8, 0, 4, 1, 16, 2};
        for (int i = 0; callers_left.load() > 0; i++) {
            set_num_threads(counts[i % 9]);
            changes++;
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        }
    });
    for (std::thread &t : threads) t.join();
    set_num_threads(0);
    EXPECT_EQ(failures.load(), 0);
    EXPECT_GT(changes.load(), 10);
    std::printf(
        "[ info     ] %d calls on 7 threads while the worker count changed %d times, in %.2f s\n",
        calls.load(), changes.load(), seconds_since(t0));
}

// An engine's parallel_for: runs the tasks on two threads of its own (odd indices on a helper
// thread, even ones on the caller), counting loops and tasks.
struct EnginePool {
    std::atomic<int> loops{0}, tasks{0};
};

void engine_parallel_for(void *pool, int count, void (*task)(void *, int), void *context) {
    auto *engine = static_cast<EnginePool *>(pool);
    engine->loops++;
    std::thread helper([&] {
        for (int i = 1; i < count; i += 2) task(context, i);
    });
    for (int i = 0; i < count; i += 2) task(context, i);
    helper.join();
    engine->tasks += count;
}

// With an engine's parallel_for installed (C++ and C entry points), the parallel kernels run
// their loops through it and give the same results as on lpnorm's pool; nullptr restores the
// pool.
TEST(Concurrency, AnEnginesParallelForRunsTheLoops) {
    const Workload large = prepare(large_cases());
    EnginePool engine;
    set_parallel_for(engine_parallel_for, &engine);
    std::atomic<int> failures{0};
    const int calls = call_many(large, 0, 1, &failures);
    set_parallel_for(nullptr, nullptr);
    EXPECT_EQ(failures.load(), 0);
    EXPECT_GT(engine.loops.load(), 0) << calls << " calls ran no loop through the engine";
    EXPECT_GE(engine.tasks.load(), 2 * engine.loops.load());

    EnginePool c_engine;
    lpnorm_set_parallel_for(engine_parallel_for, &c_engine);
    const int c_calls = call_many(large, 1, 1, &failures);
    lpnorm_set_parallel_for(nullptr, nullptr);
    EXPECT_EQ(failures.load(), 0);
    EXPECT_GT(c_engine.loops.load(), 0) << c_calls << " calls ran no loop through the engine";

    const int loops_before = engine.loops.load();
    call_many(large, 2, 1, &failures);
    EXPECT_EQ(engine.loops.load(), loops_before);  // back on lpnorm's pool
    EXPECT_EQ(failures.load(), 0);
}

// Spins until every thread has arrived `round` times.
void wait_for(std::atomic<int> &arrived, int round, int threads) {
    arrived++;
    while (arrived.load() < round * threads) std::this_thread::yield();
}

// Each thread fails with its own message; after every thread has made its own call (failing,
// and for half of them then succeeding), each still reads its own last error.
TEST(Concurrency, CLastErrorIsPerThread) {
    constexpr int kRounds = 100;
    std::atomic<int> arrived{0}, mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&, t] {
            const int64_t shape[2] = {4, 5};
            int32_t rank;
            int64_t out[8];
            for (int r = 0; r < kRounds; r++) {
                const int64_t axis = 100 + t * kRounds + r;
                const std::string isa = "isa-" + std::to_string(t) + "-" + std::to_string(r);
                const bool use_isa = (t + r) % 2 == 0;
                const int rc =
                    use_isa ? lpnorm_set_isa(isa.c_str())
                            : lpnorm_reduce_output_shape(2, shape, &axis, 1, 0, 1, &rank, out);
                const std::string mine =
                    use_isa ? "isa = " + isa + " is" : "axes[0] = " + std::to_string(axis) + " is";
                wait_for(arrived, 3 * r + 1, kThreads);
                const bool clear =
                    t % 2 == 1;  // these threads now succeed, clearing only their own
                if (clear &&
                    lpnorm_reduce_output_shape(2, shape, nullptr, 0, 0, 1, &rank, out) != LPNORM_OK)
                    mismatches++;
                wait_for(arrived, 3 * r + 2, kThreads);
                const std::string last = lpnorm_last_error();
                const bool ok = rc == LPNORM_INVALID_ARGUMENT &&
                                (clear ? last.empty() : last.find(mine) != std::string::npos);
                if (!ok && mismatches.fetch_add(1) < 5) {
                    ADD_FAILURE() << "thread " << t << " round " << r << " reads \"" << last
                                  << "\", expected " << (clear ? "\"\"" : "\"" + mine + "...\"");
                }
                wait_for(arrived, 3 * r + 3, kThreads);
            }
        });
    }
    for (std::thread &t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace lpnorm::test
