// lpnorm_bench: lpnorm::reduce (automatic ISA and each ISA forced), a naive loop, oneDNN and
// Eigen on the same inputs, and lpnorm::pool (bench_pool.cpp), with bytes/s and the
// percentage of a streaming-read probe of the same buffer measured in the same process.
//
//   lpnorm_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Extra flags (removed before Google Benchmark sees the command line):
//   --threads=N  threads for lpnorm, oneDNN and Eigen (default 2; the naive loop uses one)
//   --check      also compare every output with the naive loop: counter max_rel_err
//
// Names: reduce/<dtype>/p<p>/<pattern>/<shape>/axes<list>/<implementation>,
//        pool/<dtype>/p<p>/<window>/<shape>/<implementation> and
//        probe/<dtype>/<shape>/threads<N>.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "lpnorm/lpnorm.h"
#include "runtime/testing.h"

#ifdef LPNORM_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace lpnorm_bench {
namespace {

struct Case {
    std::vector<int64_t> shape;
    std::vector<int> axes;
    const char *pattern;  // what the library should dispatch to after canonicalisation
};

const Case kCases[] = {
    {{32, 256, 56, 56}, {2, 3}, "inner"},
    {{32, 256, 56, 56}, {1}, "middle"},
    {{32, 256, 56, 56}, {0, 1, 2, 3}, "all"},
    {{32, 256, 56, 56}, {0, 2}, "general"},
    {{8192, 8192}, {0}, "outer"},
    {{8192, 8192}, {1}, "inner"},
    {{6, 12, 10, 24}, {2, 3}, "inner"},
    {{6, 12, 10, 24}, {0, 2}, "general"},
    {{1, 4096}, {1}, "all"},  // the size-1 dim is dropped: a single row
};

const double kPowers[] = {1, 2, 3};
const Elem kElems[] = {Elem::f32, Elem::f16};

struct Options {
    int threads = 2;
    bool check = false;
} g_options;

std::string shape_name(const std::vector<int64_t> &shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

std::string axes_name(const std::vector<int> &axes) {
    std::string s = "axes";
    for (size_t i = 0; i < axes.size(); ++i) s += (i ? "," : "") + std::to_string(axes[i]);
    return s;
}

// The problem plus the output buffer it writes.
struct Setup {
    Problem pb;
    Buffer out;
};

Setup make_setup(const Case &c, Elem elem, double p) {
    Setup s;
    s.pb.rank = static_cast<int>(c.shape.size());
    std::copy(c.shape.begin(), c.shape.end(), s.pb.shape);
    s.pb.num_axes = static_cast<int>(c.axes.size());
    std::copy(c.axes.begin(), c.axes.end(), s.pb.axes);
    s.pb.elem = elem;
    s.pb.p = p;
    s.pb.threads = g_options.threads;
    s.pb.input = cached_input(s.pb.shape, s.pb.rank, elem);
    s.out = Buffer(static_cast<size_t>(s.pb.output_elements()) * elem_size(elem));
    s.pb.output = s.out.data();
    return s;
}

float output_value(const Problem &pb, int64_t i) {
    if (pb.elem == Elem::f32) return static_cast<const float *>(pb.output)[i];
    return half_to_float(static_cast<const uint16_t *>(pb.output)[i]);
}

// The naive loop's output for this problem, computed once.
const std::vector<float> &reference(const Case &c, Elem elem, double p) {
    static std::map<std::string, std::vector<float>> cache;
    std::string key = shape_name(c.shape) + axes_name(c.axes) + elem_name(elem) + std::to_string(p);
    auto found = cache.find(key);
    if (found != cache.end()) return found->second;
    Setup s = make_setup(c, elem, p);
    std::unique_ptr<Runner>(make_naive(s.pb))->run();
    std::vector<float> values(s.pb.output_elements());
    for (size_t i = 0; i < values.size(); ++i) values[i] = output_value(s.pb, i);
    return cache[key] = std::move(values);
}

// Largest |y - ref| / |ref| over the output (0 when both are the same inf or NaN).
double max_rel_err(const Case &c, const Problem &pb) {
    const std::vector<float> &ref = reference(c, pb.elem, pb.p);
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        double y = output_value(pb, i), r = ref[i];
        if (y == r || (std::isnan(y) && std::isnan(r))) continue;
        worst = std::max(worst, std::fabs(y - r) / std::max(std::fabs(r), 1e-30));
    }
    return worst;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Counters: bytes_per_second (input + output bytes per iteration, a rate over Google
// Benchmark's real time) and pct_of_probe = 100 * (bytes/s of the timed loop) / (probe bytes/s
// of the same input buffer). pct_of_probe uses the loop's own wall time, so it is a plain
// number that repetitions can aggregate.
void finish(benchmark::State &st, const Case &c, const Problem &pb, double loop_seconds) {
    size_t in_bytes = static_cast<size_t>(pb.input_elements()) * elem_size(pb.elem);
    double bytes = static_cast<double>(in_bytes + pb.output_elements() * elem_size(pb.elem));
    ProbeResult probe = probe_bandwidth(pb.input, in_bytes, g_options.threads);
    using benchmark::Counter;
    st.counters["bytes_per_second"] =
        Counter(bytes, Counter::kIsIterationInvariantRate, Counter::OneK::kIs1024);
    double rate = bytes * static_cast<double>(st.iterations()) / loop_seconds;
    st.counters["pct_of_probe"] = 100.0 * rate / probe.bytes_per_second;
    if (g_options.check) st.counters["max_rel_err"] = max_rel_err(c, pb);
}

lpnorm::DType dtype_of(Elem elem) {
    return elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
}

const char *pattern_name(lpnorm::testing::Pattern p) {
    using lpnorm::testing::Pattern;
    switch (p) {
    case Pattern::all: return "all";
    case Pattern::inner: return "inner";
    case Pattern::outer: return "outer";
    case Pattern::middle: return "middle";
    case Pattern::general: return "general";
    default: return "none";
    }
}

// Restores automatic ISA selection when a benchmark returns.
struct IsaGuard {
    ~IsaGuard() { lpnorm::set_isa(lpnorm::Isa::auto_detect); }
};

void bench_lpnorm(benchmark::State &st, const Case *c, Elem elem, double p, lpnorm::Isa isa) {
    IsaGuard guard;
    lpnorm::Status status = lpnorm::set_isa(isa);
    if (!status.ok()) return st.SkipWithError(status.message().c_str());
    Setup s = make_setup(*c, elem, p);
    std::vector<int64_t> out_shape;
    for (int d = 0; d < s.pb.rank; ++d)
        if (!s.pb.reduced(d)) out_shape.push_back(s.pb.shape[d]);
    lpnorm::Tensor x = lpnorm::Tensor::contiguous(s.pb.input, dtype_of(elem), c->shape);
    lpnorm::Tensor y = lpnorm::Tensor::contiguous(s.pb.output, dtype_of(elem), out_shape);
    lpnorm::ReduceParams params;
    params.axes.assign(c->axes.begin(), c->axes.end());
    params.p = p;

    status = lpnorm::reduce(x, y, params);  // warm-up, and the error check the loop skips
    if (!status.ok()) return st.SkipWithError(status.message().c_str());
    const char *pattern = pattern_name(lpnorm::testing::last_pattern());
    std::string label =
        std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()) + " pattern=" + pattern;
    if (std::strcmp(pattern, c->pattern) != 0)
        label += std::string(" (expected ") + c->pattern + ")";
    st.SetLabel(label);

    Clock::time_point start = Clock::now();
    for (auto _ : st) {
        lpnorm::reduce(x, y, params);
        benchmark::ClobberMemory();
    }
    finish(st, *c, s.pb, seconds_since(start));
}

using Factory = Runner *(*)(const Problem &, const char **);

// Baselines are prepared (and warmed up) once per benchmark, not once per repetition: the
// slow ones take seconds per call. main() releases the last one before exit.
struct Prepared {
    const Case *c = nullptr;
    Elem elem = Elem::f32;
    double p = 0;
    Factory make = nullptr;
    Setup setup;
    std::unique_ptr<Runner> runner;
    const char *why = "not available";
} g_prepared;

void bench_runner(benchmark::State &st, const Case *c, Elem elem, double p, Factory make) {
    Prepared &prepared = g_prepared;
    if (prepared.c != c || prepared.elem != elem || prepared.p != p || prepared.make != make) {
        prepared.runner.reset();
        prepared.c = c;
        prepared.elem = elem;
        prepared.p = p;
        prepared.make = make;
        prepared.setup = make_setup(*c, elem, p);
        prepared.runner.reset(make(prepared.setup.pb, &prepared.why));
        if (prepared.runner) prepared.runner->run();  // warm-up
    }
    Runner *runner = prepared.runner.get();
    if (!runner) return st.SkipWithError(prepared.why);
    st.SetLabel(runner->label());
    Clock::time_point start = Clock::now();
    for (auto _ : st) {
        runner->run();
        benchmark::ClobberMemory();
    }
    finish(st, *c, prepared.setup.pb, seconds_since(start));
}

// One iteration = one timed_read of `passes` passes over the case's input buffer.
void bench_probe(benchmark::State &st, const Case *c, Elem elem, int threads) {
    const void *in = cached_input(c->shape.data(), static_cast<int>(c->shape.size()), elem);
    size_t bytes = elem_size(elem);
    for (int64_t d : c->shape) bytes *= static_cast<size_t>(d);
    int passes = probe_bandwidth(in, bytes, g_options.threads).passes;
    double total = 0;
    for (auto _ : st) {
        double seconds = timed_read(in, bytes, threads, passes);
        st.SetIterationTime(seconds);
        total += seconds;
    }
    double moved = static_cast<double>(bytes) * passes;
    double rate = moved * static_cast<double>(st.iterations()) / total;
    probe_observed(in, bytes, threads, rate);  // the ratios' probe is the fastest seen
    using benchmark::Counter;
    st.counters["bytes_per_second"] =
        Counter(moved, Counter::kIsIterationInvariantRate, Counter::OneK::kIs1024);
    st.counters["pct_of_probe"] =
        100.0 * rate / probe_bandwidth(in, bytes, g_options.threads).bytes_per_second;
    st.counters["passes"] = passes;  // one iteration reads the buffer this many times
    st.SetLabel(std::string(probe_isa()) + " loads");
}

Runner *naive_factory(const Problem &pb, const char **) { return make_naive(pb); }

bool eigen_runnable() {
#if defined(LPNORM_BENCH_HAVE_EIGEN) && defined(LPNORM_BENCH_EIGEN_AVX2)
    __builtin_cpu_init();  // the Eigen baseline was compiled for AVX2 + FMA + F16C
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif defined(LPNORM_BENCH_HAVE_EIGEN)
    return true;
#else
    return false;
#endif
}

void register_all() {
    using benchmark::RegisterBenchmark;
    const lpnorm::Isa forced[] = {lpnorm::Isa::sse41, lpnorm::Isa::avx2, lpnorm::Isa::avx512,
                                  lpnorm::Isa::avx512_zen5};
    // A forced ISA's row only where it has a kernel of its own: avx512_zen5 has only some.
    const std::vector<lpnorm::VariantInfo> variants = lpnorm::compiled_variants();
    const auto has_kernel = [&variants](lpnorm::Isa isa, const char *pattern) {
        for (const lpnorm::VariantInfo &v : variants)
            if (v.isa == isa && v.op == "reduce" && v.pattern == pattern) return true;
        return false;
    };
    std::map<std::string, bool> probed;
    for (const Case &c : kCases) {
        for (Elem elem : kElems) {
            std::string shape = shape_name(c.shape);
            if (!probed[shape + elem_name(elem)]) {
                probed[shape + elem_name(elem)] = true;
                std::vector<int> probe_threads = {1};
                if (g_options.threads > 1) probe_threads.push_back(g_options.threads);
                for (int threads : probe_threads) {
                    std::string name = std::string("probe/") + elem_name(elem) + "/" + shape +
                                       "/threads" + std::to_string(threads);
                    RegisterBenchmark(name.c_str(), bench_probe, &c, elem, threads)
                        ->UseManualTime();
                }
            }
            for (double p : kPowers) {
                std::string base = std::string("reduce/") + elem_name(elem) + "/p" +
                                   std::to_string(static_cast<int>(p)) + "/" + c.pattern + "/" +
                                   shape + "/" + axes_name(c.axes) + "/";
                std::vector<benchmark::internal::Benchmark *> added;
                added.push_back(RegisterBenchmark((base + "lpnorm").c_str(), bench_lpnorm, &c, elem,
                                                  p, lpnorm::Isa::auto_detect));
                for (lpnorm::Isa isa : forced)
                    if (lpnorm::cpu_supports(isa) && has_kernel(isa, c.pattern))
                        added.push_back(
                            RegisterBenchmark((base + "lpnorm_" + lpnorm::isa_name(isa)).c_str(),
                                              bench_lpnorm, &c, elem, p, isa));
                added.push_back(RegisterBenchmark((base + "naive_1thread").c_str(), bench_runner,
                                                  &c, elem, p, &naive_factory));
#ifdef LPNORM_BENCH_HAVE_ONEDNN
                added.push_back(RegisterBenchmark((base + "onednn").c_str(), bench_runner, &c, elem,
                                                  p, &make_onednn));
#endif
#ifdef LPNORM_BENCH_HAVE_EIGEN
                if (eigen_runnable())
                    added.push_back(RegisterBenchmark((base + "eigen").c_str(), bench_runner, &c,
                                                      elem, p, &make_eigen));
#endif
                for (benchmark::internal::Benchmark *b : added) b->UseRealTime();
            }
        }
    }
}

// Takes our own flags out of argv; returns false on a malformed value.
bool parse_own_flags(int *argc, char **argv) {
    int kept = 1;
    for (int i = 1; i < *argc; ++i) {
        if (std::strncmp(argv[i], "--threads=", 10) == 0) {
            g_options.threads = std::atoi(argv[i] + 10);
            if (g_options.threads < 1) return false;
        } else if (std::strcmp(argv[i], "--check") == 0) {
            g_options.check = true;
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return true;
}

}  // namespace
}  // namespace lpnorm_bench

int main(int argc, char **argv) {
    using namespace lpnorm_bench;
    if (!parse_own_flags(&argc, argv)) {
        std::fprintf(stderr, "lpnorm_bench: --threads needs a positive integer\n");
        return 2;
    }
    lpnorm::set_num_threads(g_options.threads);
#ifdef LPNORM_BENCH_HAVE_OPENMP
    omp_set_num_threads(g_options.threads);
#endif

#ifdef LPNORM_BENCH_HAVE_ONEDNN
    const char *onednn = "compiled";
#else
    const char *onednn = "skipped (oneDNN was not found when the build was configured)";
#endif
#ifdef LPNORM_BENCH_HAVE_EIGEN
    const char *eigen = eigen_runnable()
                            ? "compiled"
                            : "skipped (built for AVX2 + FMA + F16C, which this CPU lacks)";
#else
    const char *eigen = "skipped (Eigen3 was not found when the build was configured)";
#endif
    std::string threads = std::to_string(g_options.threads);
    benchmark::AddCustomContext("lpnorm_version", lpnorm::version());
    benchmark::AddCustomContext("lpnorm_detected_isa", lpnorm::isa_name(lpnorm::detected_isa()));
    benchmark::AddCustomContext("threads", threads);
    benchmark::AddCustomContext("probe_loads", probe_isa());
    benchmark::AddCustomContext("onednn_baseline", onednn);
    benchmark::AddCustomContext("eigen_baseline", eigen);
    std::fprintf(stderr,
                 "lpnorm %s, detected ISA %s, %s threads; oneDNN baseline %s; Eigen baseline %s\n",
                 lpnorm::version(), lpnorm::isa_name(lpnorm::detected_isa()), threads.c_str(),
                 onednn, eigen);

    register_all();
    register_pool_benchmarks(g_options.threads);
    register_normalize_benchmarks(g_options.threads);
    register_ceiling_benchmarks(g_options.threads);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    g_prepared.runner.reset();
    benchmark::Shutdown();
    return 0;
}
