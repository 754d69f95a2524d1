// Pieces shared by the lpnorm_bench translation units: the problem description handed to
// every implementation, cached input buffers, float16 conversions, the bandwidth probe and
// the baselines' entry points.
//
// This header uses only the standard library: the Eigen baseline is compiled with its own
// instruction-set flags and must not share inline code with the rest of the binary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace lpnorm_bench {

enum class Elem : int { f32 = 0, f16 = 1 };

inline size_t elem_size(Elem e) { return e == Elem::f32 ? 4 : 2; }
inline const char *elem_name(Elem e) { return e == Elem::f32 ? "f32" : "f16"; }

// One reduction: dense row-major input, output shaped like the input without the reduced
// axes (keep_dims = false), same element type. `axes` are sorted and non-negative.
struct Problem {
    int rank = 0;
    int64_t shape[8] = {};
    int num_axes = 0;
    int axes[8] = {};
    Elem elem = Elem::f32;
    double p = 2.0;
    const void *input = nullptr;
    void *output = nullptr;
    int threads = 2;

    int64_t input_elements() const;
    int64_t output_elements() const;
    bool reduced(int dim) const;
};

// 64-byte aligned memory, zero-filled (so every page is touched) and freed on destruction.
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(size_t bytes);
    ~Buffer();
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    Buffer(Buffer &&other) noexcept;
    Buffer &operator=(Buffer &&other) noexcept;
    void *data() const { return data_; }
    size_t bytes() const { return bytes_; }

private:
    void *data_ = nullptr;
    size_t bytes_ = 0;
};

// Deterministic pseudo-random values in [-1, 1), the same for every run. The buffer for a
// given (shape, element type) is created once and shared by every benchmark that reads it.
const void *cached_input(const int64_t *shape, int rank, Elem elem);

// `n` ones of `elem` at `data`: the gradient dy the gradient benchmarks feed.
void fill_ones(void *data, size_t n, Elem elem);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even

// ---- Bandwidth probe ---------------------------------------------------------------------

// Reads `bytes` from `data` `passes` times with `threads` threads, each thread streaming its
// own contiguous share with the widest vector loads the CPU has (AVX-512, AVX2 or SSE2, chosen
// at run time through GCC target attributes). Thread start-up is not timed. Returns seconds.
double timed_read(const void *data, size_t bytes, int threads, int passes);

// Runs work(t) on `threads` threads (t = 0 on the calling thread), all started together.
// Returns the seconds from the start to the last thread's end; thread start-up is not timed.
double timed_threads(int threads, const std::function<void(int)> &work);

struct ProbeResult {
    double bytes_per_second = 0;  // best of the 1-thread and the N-thread medians
    int threads = 0;              // which of the two won
    int passes = 1;               // passes per timed_read: about 20 ms of reading
};

// Median of 5 runs with 1 and with `threads` threads, the better kept; cached per buffer.
// Measured again when older than 30 s, keeping the best result so far (the machine may be
// shared).
ProbeResult probe_bandwidth(const void *data, size_t bytes, int threads);

// Raises the cached probe result to a faster rate measured by the probe benchmarks.
void probe_observed(const void *data, size_t bytes, int threads, double bytes_per_second);

// Name of the vector width timed_read uses on this CPU: "avx512", "avx2" or "sse2".
const char *probe_isa();

// ---- Baselines -----------------------------------------------------------------------------

// A baseline prepared for one problem: run() computes the output once.
class Runner {
public:
    virtual ~Runner() = default;
    virtual void run() = 0;
    // A note for the benchmark's label, e.g. the implementation a peer picked.
    virtual const char *label() const { return ""; }
};

// Single-threaded scalar loop over every input element, accumulating in double.
// Handles any rank and axes set. Never fails.
Runner *make_naive(const Problem &problem);

// Each returns nullptr and points *why at a reason when the peer cannot run the problem.
Runner *make_onednn(const Problem &problem, const char **why);
Runner *make_eigen(const Problem &problem, const char **why);

// One pooling problem for a baseline: dense NC<spatial> input of `rank` dims (2-D windows on
// rank 4 only), zero padding counted in every window (sum / kernel size), same element type.
struct PoolProblem {
    int rank = 0;
    int64_t shape[5] = {}, out_shape[5] = {};
    int64_t kernel[3] = {}, strides[3] = {}, pad_begin[3] = {}, pad_end[3] = {};
    Elem elem = Elem::f32;
    const void *input = nullptr;
    void *output = nullptr;
};

// oneDNN's average pooling (pooling_avg_include_padding): on the plain NCHW layout
// (`channel_block` 0), or on a blocked one its kernels prefer (channels in blocks of
// `channel_block`, nChw8c or nChw16c), the input reordered into it once when the runner is
// made (not timed).
Runner *make_onednn_avg_pool(const PoolProblem &problem, int channel_block, const char **why);

// Registers the pooling benchmarks (bench_pool.cpp); `threads` is used for the probe.
void register_pool_benchmarks(int threads);

// Registers the normalization benchmarks and their copy probes (bench_normalize.cpp).
void register_normalize_benchmarks(int threads);

// Registers the hand-written sum-of-squares loops (bench_ceiling.cpp) on `threads` threads.
void register_ceiling_benchmarks(int threads);

}  // namespace lpnorm_bench
