#include "thread_pool.h"

#include <atomic>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "x87_precision.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#ifdef __linux__
#include <sched.h>
#endif

namespace lpnorm::rt {
namespace {

using Clock = std::chrono::steady_clock;

// Set on the pool's workers, and on a caller while its loop runs: a loop started from inside
// a task goes to Halide's pool (std::mutex::try_lock by its owner is undefined).
thread_local bool t_in_pool_loop = false;

// How long an idle worker spins before it sleeps. A model runs its operators microseconds
// apart, so 50 us keeps the workers awake between the kernels of one run and lets them sleep
// between runs.
constexpr auto kSpinWindow = std::chrono::microseconds(50);

int default_threads() {
    const int hw = static_cast<int>(std::thread::hardware_concurrency());
    return hw > 0 ? hw : 1;
}

#ifdef __linux__
// The CPUs the process could run on when lpnorm was loaded. A worker takes them rather than
// the affinity of the thread that starts it: an engine that pins its own threads to one core
// each (OpenVINO pins its inference streams) would otherwise put every worker on the core of
// the caller that first ran a loop. Measured in OpenVINO 2026.4 with lpnorm's extension, 2
// threads, [8,256,28,28] 3x3 pooling: 1.9 ms with the workers pinned beside the caller, 0.95 ms
// with ENABLE_CPU_PINNING off, against 0.87 ms for the same call outside OpenVINO.
struct LoadTimeAffinity {
    cpu_set_t cpus;
    bool known;
    LoadTimeAffinity() {
        CPU_ZERO(&cpus);
        known = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
    }
};
const LoadTimeAffinity g_load_time_affinity;

void take_load_time_affinity() {
    if (g_load_time_affinity.known) {
        // Best effort: a refusal (a CPU set the caller may not widen) keeps the inherited one.
        (void)sched_setaffinity(0, sizeof(cpu_set_t), &g_load_time_affinity.cpus);
    }
}
#else
void take_load_time_affinity() {}
#endif

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#else
    std::this_thread::yield();
#endif
}

// One loop at a time. Each thread (the caller is thread 0) owns a contiguous range of the
// loop's tasks in its own slot and claims from its front; a thread whose range is spent takes
// tasks from the front of the others'. So a claim rarely moves a cache line between cores:
// with one shared counter, nine tasks on two threads cost 0.2 us more than three did.
//
// A slot's claim word holds the loop's generation (high 32 bits) and the range's next task
// (low 32). A claim must never pair one loop's claim word with another loop's fields or range
// end, which a thread still looking for work in a finished loop may read while the next loop
// writes them. So the next loop first closes every claim word (generation 0, never a loop's),
// then stores the fields and ends with release, read with acquire: a claimer that read any
// new value sees its word closed, and its claim fails. A claim that succeeds is of the loop
// whose fields the claimer read just before it.
class Pool {
public:
    int run(void *user_context, halide_task_t task, int min, int size, uint8_t *closure);
    void set_threads(int n) { wanted_threads_.store(n, std::memory_order_relaxed); }

private:
    struct alignas(64) Slot {
        std::atomic<uint64_t> claim{0};
        std::atomic<int> end{0};  // one past the range's last task
    };

    void resize(int workers);
    // `seen`: the generation before the loop that starts the worker, so that it joins that
    // loop (read at its own start, it could already be that loop's, which it would sit out).
    void worker_main(int home, uint32_t seen);
    // Runs tasks of generation `gen`, from slot `home` first, until none are left unclaimed
    // or a later loop has begun.
    void work(uint32_t gen, int home);

    std::mutex busy_;  // held by the one caller whose loop the pool runs
    std::vector<std::thread> threads_;
    std::atomic<int> wanted_threads_{default_threads()};
    std::unique_ptr<Slot[]> slots_{new Slot[1]};
    int slot_count_ = 1;  // the threads': changed only while no worker runs

    // Apart from the slots, three cache lines: the generation, which idle workers spin on; the
    // loop's fields, written once per loop; the completion count, which the caller spins on.
    alignas(64) std::atomic<uint32_t> generation_{0};
    alignas(64) std::atomic<halide_task_t> task_{nullptr};
    std::atomic<void *> user_context_{nullptr};
    std::atomic<uint8_t *> closure_{nullptr};
    std::atomic<int> min_{0};
    alignas(64) std::atomic<int> finished_{0};
    std::atomic<int> result_{0};
    char pad_[64 - 2 * sizeof(std::atomic<int>)];

    // Sleeping workers wait here; a caller takes the mutex only when `sleepers_` says one
    // sleeps. Both sides use sequentially consistent operations on `generation_` and
    // `sleepers_`, so either the caller sees the sleeper or the sleeper sees the new loop.
    std::mutex sleep_mutex_;
    std::condition_variable wake_;
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
};

inline uint32_t generation_of(uint64_t claim) { return uint32_t(claim >> 32); }
// The generation of a closed slot and of a new one: no loop has it.
constexpr uint32_t kClosed = 0;
inline uint32_t index_of(uint64_t claim) { return uint32_t(claim); }

void Pool::work(uint32_t gen, int home) {
    // Counted once on the way out: one shared write per thread and loop, not per task.
    int finished = 0;
    for (int k = 0; k < slot_count_; k++) {
        Slot &slot = slots_[(home + k) % slot_count_];
        uint64_t c = slot.claim.load(std::memory_order_acquire);
        while (true) {
            // A slot of another generation is closed or holds a later loop: this one is done.
            if (generation_of(c) != gen) goto done;
            // Read before the claim: if the claim succeeds, this loop was not done, so these
            // are its fields.
            if (int(index_of(c)) >= slot.end.load(std::memory_order_acquire)) break;
            const halide_task_t task = task_.load(std::memory_order_acquire);
            void *user_context = user_context_.load(std::memory_order_acquire);
            uint8_t *closure = closure_.load(std::memory_order_acquire);
            const int min = min_.load(std::memory_order_acquire);
            if (!slot.claim.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel,
                                                  std::memory_order_acquire)) {
                continue;  // `c` now holds the slot's current claim
            }
            const int code = task(user_context, min + int(index_of(c)), closure);
            if (code != 0) {
                int expected = 0;
                result_.compare_exchange_strong(expected, code, std::memory_order_relaxed);
            }
            finished++;
            c = slot.claim.load(std::memory_order_acquire);
        }
    }
done:
    if (finished > 0) finished_.fetch_add(finished, std::memory_order_release);
}

void Pool::worker_main(int home, uint32_t seen) {
    take_load_time_affinity();
    t_in_pool_loop = true;
    while (!stop_.load(std::memory_order_acquire)) {
        // Spin for the next loop, then sleep.
        const auto deadline = Clock::now() + kSpinWindow;
        uint32_t gen = seen;
        for (int spins = 0; gen == seen; spins++) {
            gen = generation_.load(std::memory_order_acquire);
            if (gen != seen || stop_.load(std::memory_order_relaxed)) break;
            cpu_relax();
            if ((spins & 63) == 63 && Clock::now() > deadline) {
                std::unique_lock<std::mutex> lock(sleep_mutex_);
                sleepers_.fetch_add(1);
                wake_.wait(lock, [&] { return generation_.load() != seen || stop_.load(); });
                sleepers_.fetch_sub(1);
                gen = generation_.load(std::memory_order_acquire);
                break;
            }
        }
        if (gen == seen) continue;  // woken to stop
        seen = gen;
        work(gen, home);
    }
}

void Pool::resize(int workers) {
    if (int(threads_.size()) == workers) return;
    if (!threads_.empty()) {
        {
            std::lock_guard<std::mutex> lock(sleep_mutex_);
            stop_.store(true);
        }
        wake_.notify_all();
        for (std::thread &t : threads_) t.join();
        threads_.clear();
        stop_.store(false);
    }
    // New slots start closed.
    slot_count_ = workers + 1;
    slots_.reset(new Slot[size_t(slot_count_)]);
    const uint32_t seen = generation_.load(std::memory_order_acquire);
    for (int i = 0; i < workers; i++) {
        threads_.emplace_back([this, i, seen] { worker_main(i + 1, seen); });
    }
}

int Pool::run(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
    if (wanted_threads_.load(std::memory_order_relaxed) <= 1) {
        // One thread: the tasks in order on this one, no pool (whose set-up was 4% of the
        // [6, 12, 10, 24] axes {2, 3} reduction's call); the first failing task's code.
        int result = 0;
        for (int i = 0; i < size; i++) {
            const int code = task(user_context, min + i, closure);
            if (result == 0) result = code;
        }
        return result;
    }
    std::unique_lock<std::mutex> lock(busy_, std::defer_lock);
    if (t_in_pool_loop || !lock.try_lock()) {
        return halide_default_do_par_for(user_context, task, min, size, closure);
    }
    struct InLoop {
        InLoop() { t_in_pool_loop = true; }
        ~InLoop() { t_in_pool_loop = false; }
    } in_loop;
    resize(wanted_threads_.load(std::memory_order_relaxed) - 1);

    for (int s = 0; s < slot_count_; s++) {
        slots_[s].claim.store(uint64_t(kClosed) << 32, std::memory_order_relaxed);
    }
    task_.store(task, std::memory_order_release);
    user_context_.store(user_context, std::memory_order_release);
    closure_.store(closure, std::memory_order_release);
    min_.store(min, std::memory_order_release);
    finished_.store(0, std::memory_order_relaxed);
    result_.store(0, std::memory_order_relaxed);
    uint32_t gen = generation_.load(std::memory_order_relaxed) + 1;
    if (gen == kClosed) gen++;
    for (int s = 0; s < slot_count_; s++) {
        const auto begin = uint32_t(int64_t(size) * s / slot_count_);
        slots_[s].end.store(int(int64_t(size) * (s + 1) / slot_count_), std::memory_order_release);
        slots_[s].claim.store(uint64_t(gen) << 32 | begin, std::memory_order_release);
    }
    generation_.store(gen);  // seq_cst: see sleepers_
    if (sleepers_.load() > 0) {
        { std::lock_guard<std::mutex> wake_lock(sleep_mutex_); }
        wake_.notify_all();
    }

    work(gen, 0);
    // Tasks other threads claimed may still be running.
    for (int spins = 0; finished_.load(std::memory_order_acquire) < size; spins++) {
        if (spins < 4096) {
            cpu_relax();
        } else {
            std::this_thread::yield();
        }
    }
    return result_.load(std::memory_order_relaxed);
}

Pool &pool() {
    // Never destroyed: workers may still be asleep in it when the process exits.
    static Pool *const instance = new Pool;
    return *instance;
}

// The engine's loop (set_external_parallel_for), read together under one pointer.
struct External {
    ExternalParallelFor parallel_for;
    void *pool;
};
std::atomic<const External *> g_external{nullptr};

// One Halide loop as the engine's tasks: the first failing task's code is the loop's.
struct ExternalLoop {
    void *user_context;
    halide_task_t task;
    int min;
    uint8_t *closure;
    std::atomic<int> code{0};
};

void run_external_task(void *context, int index) {
    auto *loop = static_cast<ExternalLoop *>(context);
    const int code = loop->task(loop->user_context, loop->min + index, loop->closure);
    if (code != 0) {
        int expected = 0;
        loop->code.compare_exchange_strong(expected, code);
    }
}

constexpr int kWatchedFlags = FE_OVERFLOW | FE_UNDERFLOW;

thread_local RangeWatch *t_range_watch = nullptr;

// The watched flags raised on this thread since they were last cleared. On x86-64 the kernels
// compute in SSE/AVX registers only, whose flags MXCSR holds (glibc's fetestexcept reads the x87
// status word too: about 16 ns a call against 8, Zen 3).
int raised_flags() {
#if defined(__x86_64__)
    const unsigned csr = _mm_getcsr();
    return ((csr & _MM_EXCEPT_OVERFLOW) ? FE_OVERFLOW : 0) |
           ((csr & _MM_EXCEPT_UNDERFLOW) ? FE_UNDERFLOW : 0);
#else
    return std::fetestexcept(kWatchedFlags);
#endif
}

// Sets the watched flags to `flags`. Not with fesetexceptflag: MinGW-w64's (Debian 12's
// 10.0) clears MXCSR's overflow and underflow masks with the flags, so that the next tiny or
// huge result traps (STATUS_FLOAT_UNDERFLOW under Wine). feraiseexcept sets flags only; it may
// set them in the x87 status word rather than MXCSR, which fetestexcept reads alike.
void restore_flags(int flags) {
    std::feclearexcept(kWatchedFlags);
    if (flags != 0) std::feraiseexcept(flags);
}

// A loop started under a RangeWatch: what each task raises goes to the watch, and is cleared.
// Flags a thread already had (its own earlier work) are set aside for the task and put back.
struct WatchedLoop {
    halide_task_t task;
    uint8_t *closure;
    RangeWatch *watch;
};

int run_watched_task(void *user_context, int index, uint8_t *closure) {
    const auto *loop = reinterpret_cast<const WatchedLoop *>(closure);
    const int before = raised_flags() != 0 ? std::fetestexcept(kWatchedFlags) : 0;
    if (before != 0) std::feclearexcept(kWatchedFlags);
    const int code = loop->task(user_context, index, loop->closure);
    if (const int raised = raised_flags()) {
        loop->watch->note(raised);
        std::feclearexcept(raised);
    }
    if (before != 0) restore_flags(before);
    return code;
}

#if LPNORM_X87_PRECISION_SCOPE
// A loop's tasks may run on threads whose x87 unit rounds to 53 bits (x87_precision.h).
struct PreciseLoop {
    halide_task_t task;
    uint8_t *closure;
};

int run_precise_task(void *user_context, int index, uint8_t *closure) {
    const ExtendedPrecision precision;
    const auto *loop = reinterpret_cast<const PreciseLoop *>(closure);
    return loop->task(user_context, index, loop->closure);
}
#endif

}  // namespace

RangeWatch::RangeWatch(bool active) : active_(active) {
    if (!active_) return;
    saved_ = std::fetestexcept(kWatchedFlags);
    std::feclearexcept(kWatchedFlags);
    previous_ = t_range_watch;
    t_range_watch = this;
}

RangeWatch::~RangeWatch() {
    if (!active_) return;
    t_range_watch = previous_;
    restore_flags(saved_);
}

bool RangeWatch::raised() const {
    return active_ && (tasks_raised_.load(std::memory_order_relaxed) || raised_flags() != 0);
}

int pool_do_par_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
    if (size <= 0) return 0;
    WatchedLoop watched{task, closure, t_range_watch};
    if (watched.watch != nullptr) {
        task = run_watched_task;
        closure = reinterpret_cast<uint8_t *>(&watched);
    }
#if LPNORM_X87_PRECISION_SCOPE
    PreciseLoop precise{task, closure};
    task = run_precise_task;
    closure = reinterpret_cast<uint8_t *>(&precise);
#endif
    if (size == 1) return task(user_context, min, closure);
    if (const External *external = g_external.load(std::memory_order_acquire)) {
        ExternalLoop loop{user_context, task, min, closure};
        external->parallel_for(external->pool, size, run_external_task, &loop);
        return loop.code.load();
    }
    return pool().run(user_context, task, min, size, closure);
}

void set_external_parallel_for(ExternalParallelFor parallel_for, void *pool) {
    // Every setting is kept for the process (a loop may still hold the previous one while it
    // is replaced), in a deque, which never moves its elements.
    static std::mutex mutex;
    static std::deque<External> settings;
    const External *next = nullptr;
    if (parallel_for) {
        std::lock_guard<std::mutex> lock(mutex);
        settings.push_back(External{parallel_for, pool});
        next = &settings.back();
    }
    g_external.store(next, std::memory_order_release);
}

void set_pool_threads(int n) { pool().set_threads(n > 0 ? n : 1); }

}  // namespace lpnorm::rt
