#include "split_limits.h"

#include <algorithm>
#include <atomic>
#include <climits>

#include "gpu.h"
#include "testing.h"

namespace lpnorm::rt {
namespace {

constexpr int64_t kIndexLimit = INT32_MAX;
// Pieces of 2^20: a kernel call over one (milliseconds) dwarfs the per-call overhead
// (microseconds), and the kernels' per-call temporaries sized by a kept axis or a pooled row
// stay small (the outer pattern's partial rows, float64, times up to 16 chunks: 128 MiB; a
// pooled row's |x|^p and window sums: a few MiB). Uncut, [2^31 + 5, 1] int8 reduced over its
// last axis took 10 GiB of temporaries, and a 1-D pool over 2^31 + 9 elements 8.6 GiB.
constexpr int64_t kChunk = int64_t(1) << 20;
// Two buffers of float64 accumulators: 64 MiB.
constexpr int64_t kAccumulators = int64_t(1) << 22;

std::atomic<int64_t> g_index{kIndexLimit};
std::atomic<int64_t> g_chunk{kChunk};
std::atomic<int64_t> g_accumulators{kAccumulators};
thread_local int64_t t_kernel_calls = 0;
thread_local const char *t_last_kernel = "";

}  // namespace

SplitLimits current_split_limits(Backend backend) {
    SplitLimits limits{g_index.load(std::memory_order_relaxed),
                       g_chunk.load(std::memory_order_relaxed),
                       g_accumulators.load(std::memory_order_relaxed)};
    if (is_gpu(backend)) limits.chunk = limits.index;
    return limits;
}

Tensor slice_axis(const Tensor &t, int axis, int64_t start, int64_t length) {
    Tensor s = t;
    s.data = static_cast<char *>(t.data) + start * t.strides[axis] * int64_t(dtype_size(t.dtype));
    s.shape[axis] = length;
    return s;
}

void reset_kernel_calls() {
    t_kernel_calls = 0;
    t_last_kernel = "";
}
void note_kernel_call(const char *symbol) {
    t_kernel_calls++;
    t_last_kernel = symbol;
}

}  // namespace lpnorm::rt

namespace lpnorm::testing {

int64_t last_kernel_calls() { return rt::t_kernel_calls; }
const char *last_kernel() { return rt::t_last_kernel; }

void set_split_limits(int64_t index_limit, int64_t chunk, int64_t max_accumulators) {
    const bool reset = index_limit <= 0;
    rt::g_index.store(reset ? rt::kIndexLimit : index_limit);
    rt::g_chunk.store(reset       ? rt::kChunk
                      : chunk > 0 ? chunk
                                  : std::max<int64_t>(1, index_limit / 2));
    rt::g_accumulators.store(reset || max_accumulators <= 0 ? rt::kAccumulators : max_accumulators);
}

}  // namespace lpnorm::testing
