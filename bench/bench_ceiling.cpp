// What a float32 -> float64 sum of squares can reach without Halide: a hand-written AVX-512
// loop over the rows of the float32 [8192, 8192] input, shaped like the inner kernel (8 rows
// read side by side, 2 float64 accumulators per row, each thread a contiguous half of the
// rows), with and without software prefetch. It shows how much of the gap between the kernels
// and the streaming-read probe is the arithmetic's share of the out-of-order window, and what
// a prefetch closes:
//
//   ceiling/f32/8192x8192/sumsq_8rows                no prefetch (what the kernels do)
//   ceiling/f32/8192x8192/sumsq_8rows_prefetch_t0    prefetcht0, 1 KiB ahead of each row
//   ceiling/f32/8192x8192/sumsq_8rows_prefetch_nta   prefetchnta, 1 KiB ahead: the only hint
//                                                    Halide 21's Func::prefetch emits on x86
//
// pct_of_probe is against the probe of the same buffer, as for the kernels. x86-64 with
// AVX-512 only (GCC target attributes, chosen at run time); elsewhere each reports an error.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench_common.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LPNORM_BENCH_CEILING_X86 1
#include <immintrin.h>
#endif

namespace lpnorm_bench {
namespace {

constexpr int64_t kRows = 8192, kCols = 8192;
constexpr int kSideBySide = 8;  // rows read at once, as the AVX-512 inner kernel's 8 streams

enum class Prefetch { none, t0, nta };

using SumFn = double (*)(const float *, int64_t, int64_t);

#ifdef LPNORM_BENCH_CEILING_X86
// Sum of squares of rows [first, last) of `x`, kSideBySide rows at a time.
template <Prefetch kPrefetch>
__attribute__((target("avx512f"), noinline)) double sum_squares(const float *x, int64_t first,
                                                                int64_t last) {
    constexpr int kAhead = 1024;  // bytes ahead of each row's reads
    double total = 0;
    for (int64_t g = first; g + kSideBySide <= last; g += kSideBySide) {
        __m512d acc[2 * kSideBySide];
        for (__m512d &a : acc) a = _mm512_setzero_pd();
        for (int64_t c = 0; c < kCols; c += 16) {
            for (int r = 0; r < kSideBySide; ++r) {
                const float *p = x + (g + r) * kCols + c;
                if (kPrefetch == Prefetch::t0) {
                    _mm_prefetch(reinterpret_cast<const char *>(p) + kAhead, _MM_HINT_T0);
                } else if (kPrefetch == Prefetch::nta) {
                    _mm_prefetch(reinterpret_cast<const char *>(p) + kAhead, _MM_HINT_NTA);
                }
                __m512d lo = _mm512_cvtps_pd(_mm256_load_ps(p));
                __m512d hi = _mm512_cvtps_pd(_mm256_load_ps(p + 8));
                acc[2 * r] = _mm512_fmadd_pd(lo, lo, acc[2 * r]);
                acc[2 * r + 1] = _mm512_fmadd_pd(hi, hi, acc[2 * r + 1]);
            }
        }
        for (__m512d &a : acc) total += _mm512_reduce_add_pd(a);
    }
    return total;
}

SumFn pick(Prefetch prefetch) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return nullptr;
    switch (prefetch) {
    case Prefetch::t0: return sum_squares<Prefetch::t0>;
    case Prefetch::nta: return sum_squares<Prefetch::nta>;
    default: return sum_squares<Prefetch::none>;
    }
}
#else
SumFn pick(Prefetch) { return nullptr; }
#endif

// Sum of squares in double precision, one element at a time: the check of the loops above.
double reference_sum_squares(const float *x) {
    double total = 0;
    for (int64_t i = 0; i < kRows * kCols; ++i) total += static_cast<double>(x[i]) * x[i];
    return total;
}

void bench_ceiling(benchmark::State &st, Prefetch prefetch, int threads) {
    SumFn sum = pick(prefetch);
    if (!sum) return st.SkipWithError("needs x86-64 with AVX-512");
    const int64_t shape[] = {kRows, kCols};
    const float *x = static_cast<const float *>(cached_input(shape, 2, Elem::f32));
    const size_t bytes = sizeof(float) * static_cast<size_t>(kRows * kCols);
    // Whole groups of rows per thread, contiguous.
    const int64_t groups = kRows / kSideBySide;
    const int64_t per_thread = (groups + threads - 1) / threads * kSideBySide;
    std::vector<double> parts(threads);
    auto work = [&](int t) {
        const int64_t first = std::min(kRows, per_thread * t);
        parts[t] = sum(x, first, std::min(kRows, first + per_thread));
    };

    timed_threads(threads, work);  // warm-up, and the check
    // Both sums add n non-negative terms in double precision, each with a relative error of
    // at most (n - 1) * 2^-53. The input is the same for every variant: one reference.
    static const double expected = reference_sum_squares(x);
    double got = 0;
    for (double part : parts) got += part;
    const double n = static_cast<double>(kRows * kCols);
    if (std::fabs(got - expected) > 2 * n * 0x1p-53 * expected) {
        return st.SkipWithError(
            ("sum of squares " + std::to_string(got) + ", expected " + std::to_string(expected))
                .c_str());
    }
    double total = 0;
    for (auto _ : st) {
        const double seconds = timed_threads(threads, work);
        st.SetIterationTime(seconds);
        total += seconds;
    }
    const double rate = static_cast<double>(bytes) * static_cast<double>(st.iterations()) / total;
    using benchmark::Counter;
    st.counters["bytes_per_second"] = Counter(
        static_cast<double>(bytes), Counter::kIsIterationInvariantRate, Counter::OneK::kIs1024);
    st.counters["pct_of_probe"] =
        100.0 * rate / probe_bandwidth(x, bytes, threads).bytes_per_second;
}

}  // namespace

void register_ceiling_benchmarks(int threads) {
    const std::string base = "ceiling/f32/8192x8192/sumsq_8rows";
    const std::pair<const char *, Prefetch> variants[] = {
        {"", Prefetch::none}, {"_prefetch_t0", Prefetch::t0}, {"_prefetch_nta", Prefetch::nta}};
    for (const auto &[suffix, prefetch] : variants) {
        benchmark::RegisterBenchmark((base + suffix).c_str(), bench_ceiling, prefetch, threads)
            ->UseManualTime();
    }
}

}  // namespace lpnorm_bench
