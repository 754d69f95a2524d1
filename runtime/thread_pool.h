// The thread pool that runs the kernels' parallel loops, installed as the Halide runtime's
// do_par_for. Its workers spin for a short while after each loop before they sleep, so a
// caller that runs kernels back to back hands work over in well under a microsecond; Halide's
// own pool wakes its workers through a mutex and a condition variable every time.
#pragma once

#include <atomic>
#include <cfenv>

#include "HalideRuntime.h"

namespace lpnorm::rt {

// The floating-point overflow and underflow flags (FE_OVERFLOW, FE_UNDERFLOW) raised by kernel
// calls, collected from every thread that runs their tasks. While an active watch lives on a
// thread, the parallel loops that thread starts (pool_do_par_for, the engine's loop or Halide's
// own pool alike) read each task's flags after it (a thread's earlier flags are set aside for
// the task), and the watch notes what they raised; the calling thread's own flags before the
// watch are restored when it ends. A task pays two reads of the status register. The pooling
// runtime uses it to learn, at no cost to the kernels, whether a float32 power or sum left
// float32's range (runtime/range_repair.h).
class RangeWatch {
public:
    explicit RangeWatch(bool active);
    ~RangeWatch();
    RangeWatch(const RangeWatch &) = delete;
    RangeWatch &operator=(const RangeWatch &) = delete;

    // Whether a watched call's arithmetic overflowed, or rounded a result below the normal
    // range (tiny and inexact), on any thread.
    bool raised() const;
    void note(int flags) {
        if (flags != 0) tasks_raised_.store(true, std::memory_order_relaxed);
    }

private:
    bool active_;
    int saved_ = 0;  // the caller's watched flags (FE_OVERFLOW, FE_UNDERFLOW), put back after
    RangeWatch *previous_ = nullptr;
    std::atomic<bool> tasks_raised_{false};
};

// halide_do_par_for's contract: runs task(user_context, i, closure) for i in [min, min + size)
// and returns 0, or the non-zero code of one failing task. The calling thread runs tasks too.
// A loop that finds the pool busy (another thread's loop, or a loop inside a task) goes to
// Halide's own pool instead.
int pool_do_par_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure);

// Loops through an engine's parallel_for instead of the pool (lpnorm::set_parallel_for, whose
// ParallelFor this is; spelled out here because tools/autotune's harness includes this header
// without the public ones); nullptr: the pool.
using ExternalParallelFor = void (*)(void *pool, int count, void (*task)(void *context, int index),
                                     void *context);
void set_external_parallel_for(ExternalParallelFor parallel_for, void *pool);

// Threads a loop runs on, the caller's included (n >= 1; the hardware's thread count until
// set). The workers are started or stopped at the next loop.
void set_pool_threads(int n);

}  // namespace lpnorm::rt
