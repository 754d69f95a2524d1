// The thread pool behind the kernels' parallel loops (runtime/thread_pool.h), called the way
// the Halide runtime calls it: every task of a loop runs exactly once, on any worker count; a
// failing task's code comes back; loops from several threads at once, and a loop inside a task,
// run to completion.
#include <gtest/gtest.h>
#ifdef __linux__
#include <sched.h>
#endif

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "thread_pool.h"

namespace lpnorm::test {
namespace {

// The closure of a counting loop: one counter per task index.
struct Counts {
    int min = 0;
    std::vector<std::atomic<int>> runs;
    explicit Counts(int min_, int size) : min(min_), runs(size_t(size)) {}
};

int count_task(void *, int i, uint8_t *closure) {
    auto *counts = reinterpret_cast<Counts *>(closure);
    counts->runs[size_t(i - counts->min)].fetch_add(1, std::memory_order_relaxed);
    return 0;
}

void expect_each_ran_once(const Counts &counts) {
    for (size_t i = 0; i < counts.runs.size(); i++) {
        ASSERT_EQ(counts.runs[i].load(), 1) << "task " << counts.min + int(i);
    }
}

class ThreadPoolTest : public ::testing::TestWithParam<int> {
protected:
    void SetUp() override { rt::set_pool_threads(GetParam()); }
    // Back to the library's setting.
    void TearDown() override { set_num_threads(num_threads()); }
};

TEST_P(ThreadPoolTest, EveryTaskRunsOnce) {
    for (int size : {0, 1, 2, 3, 17, 1000}) {
        for (int min : {0, -5, 1 << 20}) {
            Counts counts(min, size);
            ASSERT_EQ(rt::pool_do_par_for(nullptr, count_task, min, size,
                                          reinterpret_cast<uint8_t *>(&counts)),
                      0);
            expect_each_ran_once(counts);
        }
    }
}

// Back-to-back loops: a worker that is late for one loop must not run a task of the next with
// the earlier loop's closure.
TEST_P(ThreadPoolTest, BackToBackLoopsKeepTheirClosures) {
    for (int round = 0; round < 2000; round++) {
        Counts counts(round, 1 + round % 7);
        ASSERT_EQ(rt::pool_do_par_for(nullptr, count_task, round, 1 + round % 7,
                                      reinterpret_cast<uint8_t *>(&counts)),
                  0);
        expect_each_ran_once(counts);
    }
}

int fail_on_seven(void *, int i, uint8_t *closure) {
    count_task(nullptr, i, closure);
    return i == 7 ? -42 : 0;
}

TEST_P(ThreadPoolTest, FailingTaskCodeComesBack) {
    Counts counts(0, 20);
    EXPECT_EQ(
        rt::pool_do_par_for(nullptr, fail_on_seven, 0, 20, reinterpret_cast<uint8_t *>(&counts)),
        -42);
    expect_each_ran_once(counts);  // the other tasks still ran
}

// A task that starts a loop of its own: the inner loop goes to Halide's pool.
int nested_task(void *, int, uint8_t *closure) {
    auto *inner = reinterpret_cast<std::vector<std::unique_ptr<Counts>> *>(closure);
    static std::atomic<int> next{0};
    Counts &counts = *(*inner)[size_t(next.fetch_add(1)) % inner->size()];
    return rt::pool_do_par_for(nullptr, count_task, 0, int(counts.runs.size()),
                               reinterpret_cast<uint8_t *>(&counts));
}

TEST_P(ThreadPoolTest, LoopInsideATask) {
    std::vector<std::unique_ptr<Counts>> inner;
    for (int i = 0; i < 4; i++) inner.push_back(std::make_unique<Counts>(0, 9));
    ASSERT_EQ(rt::pool_do_par_for(nullptr, nested_task, 0, 4, reinterpret_cast<uint8_t *>(&inner)),
              0);
    for (const auto &counts : inner) expect_each_ran_once(*counts);
}

TEST_P(ThreadPoolTest, LoopsFromManyThreads) {
    constexpr int kCallers = 4;
    std::vector<std::thread> callers;
    std::atomic<int> failures{0};
    for (int t = 0; t < kCallers; t++) {
        callers.emplace_back([&failures, t] {
            for (int round = 0; round < 3000; round++) {
                const int size = 2 + (round + t) % 30;
                Counts counts(t * 1000, size);
                if (rt::pool_do_par_for(nullptr, count_task, t * 1000, size,
                                        reinterpret_cast<uint8_t *>(&counts)) != 0) {
                    failures++;
                }
                for (const auto &runs : counts.runs) {
                    if (runs.load() != 1) failures++;
                }
            }
        });
    }
    for (auto &caller : callers) caller.join();
    EXPECT_EQ(failures.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 4),
                         [](const auto &info) { return "threads" + std::to_string(info.param); });

#ifdef __linux__
// What the tasks of a loop saw: how many CPUs the threads other than the caller may run on.
struct Affinities {
    std::thread::id caller;
    std::chrono::steady_clock::time_point give_up;
    std::atomic<int> worker_tasks{0};
    std::atomic<int> widest{0};
};

// The caller's tasks wait (up to a deadline) until a worker has run one, so that the workers,
// however late they start, take part in the loop.
int record_affinity(void *, int, uint8_t *closure) {
    auto *seen = reinterpret_cast<Affinities *>(closure);
    if (std::this_thread::get_id() == seen->caller) {
        while (seen->worker_tasks.load() == 0 && std::chrono::steady_clock::now() < seen->give_up) {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        return 0;
    }
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) return 1;
    int widest = seen->widest.load();
    while (CPU_COUNT(&cpus) > widest &&
           !seen->widest.compare_exchange_weak(widest, CPU_COUNT(&cpus))) {
    }
    seen->worker_tasks++;
    return 0;
}

// An engine that pins its threads to one core each (OpenVINO's inference streams) calls
// lpnorm from a pinned thread: the workers that call starts run on every CPU the process had,
// not on the caller's core.
TEST(ThreadPoolAffinity, WorkersStartedByAPinnedCallerAreNotPinned) {
    cpu_set_t all;
    CPU_ZERO(&all);
    ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
    if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "the process may run on one CPU only";
    int first = 0;
    while (!CPU_ISSET(first, &all)) first++;
    Affinities seen;
    int code = -1;
    std::thread pinned([&] {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
        seen.caller = std::this_thread::get_id();
        seen.give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        rt::set_pool_threads(3);  // new workers, started by this thread's next loop
        code = rt::pool_do_par_for(nullptr, record_affinity, 0, 60,
                                   reinterpret_cast<uint8_t *>(&seen));
    });
    pinned.join();
    set_num_threads(num_threads());
    ASSERT_EQ(code, 0);
    ASSERT_GT(seen.worker_tasks.load(), 0) << "no task ran on a worker";
    EXPECT_EQ(seen.widest.load(), CPU_COUNT(&all));
}
#endif

}  // namespace
}  // namespace lpnorm::test
