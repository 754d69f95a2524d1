// Benchmarks of the grouped ops: lpnorm::normalize (automatic ISA) and a naive single-threaded
// loop, and lpnorm::reduce_backward (the gradient of a reduction over the same axis), with
// bytes moved (input read once, output written once; the gradient's y and dy, one element per
// group, are not counted) per second and their percentage of a copy probe of the same buffers
// measured in the same run.
//
// Names: normalize/<dtype>/p<p>/<shape>/axis<a>/<implementation>,
// reduce_backward/... and normalize_backward/<dtype>/p<p>/<shape>/axis<a>/lpnorm (the latter
// moves three arrays: x and dy read, dx written), and the probe
// copy/<dtype>/<shape>/threads<N>.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_common.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm_bench {
namespace {

struct NormalizeCase {
    std::vector<int64_t> shape;
    int64_t axis;
};

// Rows that fit in L2 (embeddings, the fused path), a feature map over its channels (the
// middle pattern, NormalizeL2 in detection models), and a small feature map.
const NormalizeCase kNormalizeCases[] = {
    {{4096, 1024}, -1},    {{65536, 128}, -1},    {{32, 256, 56, 56}, 1},
    {{1, 512, 38, 38}, 1}, {{8, 256, 28, 28}, 1},
};

std::string shape_text(const std::vector<int64_t> &shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// "2", "2.5", "inf"
std::string p_text(double p) {
    if (std::isinf(p)) return "inf";
    std::string s = std::to_string(p);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

int64_t count_of(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// The copy probe: each thread copies its contiguous share with memcpy. Median of 9 runs.
double copy_seconds(const void *in, void *out, size_t bytes, int threads) {
    std::vector<double> times;
    for (int run = 0; run < 9; run++) {
        times.push_back(timed_threads(threads, [&](int t) {
            const size_t share = (bytes / size_t(threads) + 63) / 64 * 64;
            const size_t begin = std::min(bytes, share * size_t(t));
            const size_t end = std::min(bytes, begin + share);
            std::memcpy(static_cast<char *>(out) + begin, static_cast<const char *>(in) + begin,
                        end - begin);
        }));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// The copy rate of each (buffer, size), measured once per run and kept at its best.
std::map<std::pair<const void *, size_t>, double> &copy_rates() {
    static std::map<std::pair<const void *, size_t>, double> rates;
    return rates;
}

double copy_rate(const void *in, void *out, size_t bytes, int threads) {
    double &rate = copy_rates()[{in, bytes}];
    rate = std::max(rate, 2.0 * double(bytes) / copy_seconds(in, out, bytes, threads));
    return rate;
}

// Times `run` (which moves `streams` arrays of `bytes`: reads `bytes` at `in`, writes as many
// at `out`, and reads any others) over the benchmark's iterations: bytes moved per second, and
// their rate as a percentage of the copy probe's rate between `in` and `out`.
template <typename Run>
void time_against_copy(benchmark::State &st, Run run, const void *in, void *out, size_t bytes,
                       int threads, int streams = 2) {
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : st) {
        run();
        benchmark::ClobberMemory();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double moved = double(streams) * double(bytes);
    using benchmark::Counter;
    st.counters["bytes_per_second"] =
        Counter(moved, Counter::kIsIterationInvariantRate, Counter::OneK::kIs1024);
    const double rate = moved * double(st.iterations()) / seconds;
    st.counters["pct_of_copy"] = 100.0 * rate / copy_rate(in, out, bytes, threads);
}

// float32 only: y = x / ||x||_2 over the axis, in double, one thread.
void naive_normalize(const float *x, const std::vector<int64_t> &shape, int64_t axis, float *y) {
    const int rank = int(shape.size());
    const int a = int(axis < 0 ? axis + rank : axis);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < a; d++) outer *= shape[size_t(d)];
    for (int d = a + 1; d < rank; d++) inner *= shape[size_t(d)];
    const int64_t n = shape[size_t(a)];
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const float *g = x + o * n * inner + i;
            double s = 0;
            for (int64_t k = 0; k < n; k++) s += double(g[k * inner]) * g[k * inner];
            const double inv = s > 0 ? 1 / std::sqrt(s) : 0;
            for (int64_t k = 0; k < n; k++) {
                y[o * n * inner + i + k * inner] = float(g[k * inner] * inv);
            }
        }
    }
}

void bench_normalize(benchmark::State &st, const NormalizeCase *c, Elem elem, double p, int threads,
                     bool naive) {
    const lpnorm::DType dtype = elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
    const int64_t count = count_of(c->shape);
    const void *in = cached_input(c->shape.data(), int(c->shape.size()), elem);
    const size_t bytes = size_t(count) * elem_size(elem);
    Buffer out(bytes);
    lpnorm::NormalizeParams params;
    params.axes = {c->axis};
    params.p = p;
    const lpnorm::Tensor x = lpnorm::Tensor::contiguous(in, dtype, c->shape);
    const lpnorm::Tensor y = lpnorm::Tensor::contiguous(out.data(), dtype, c->shape);
    auto run = [&] {
        if (naive) {
            naive_normalize(static_cast<const float *>(in), c->shape, c->axis,
                            static_cast<float *>(out.data()));
        } else {
            lpnorm::normalize(x, y, params);
        }
    };
    if (!naive) {
        const lpnorm::Status s = lpnorm::normalize(x, y, params);  // warm-up and error check
        if (!s.ok()) return st.SkipWithError(s.message().c_str());
        st.SetLabel(std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()));
    }
    time_against_copy(st, run, in, out.data(), bytes, threads);
}

// dx of y = ||x||_p over the case's axis, from x, y (computed once, untimed) and dy = 1.
void bench_reduce_backward(benchmark::State &st, const NormalizeCase *c, Elem elem, double p,
                           int threads) {
    const lpnorm::DType dtype = elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
    const int64_t count = count_of(c->shape);
    const void *in = cached_input(c->shape.data(), int(c->shape.size()), elem);
    const size_t bytes = size_t(count) * elem_size(elem);
    Buffer out(bytes);
    lpnorm::ReduceParams params;
    params.axes = {c->axis};
    params.p = p;
    params.keep_dims = true;
    std::vector<int64_t> group_shape;
    lpnorm::reduce_output_shape(c->shape, params, &group_shape);
    const size_t group_bytes = size_t(count_of(group_shape)) * elem_size(elem);
    Buffer norm(group_bytes), grad(group_bytes);
    const lpnorm::Tensor x = lpnorm::Tensor::contiguous(in, dtype, c->shape);
    const lpnorm::Tensor y = lpnorm::Tensor::contiguous(norm.data(), dtype, group_shape);
    const lpnorm::Tensor dy = lpnorm::Tensor::contiguous(grad.data(), dtype, group_shape);
    const lpnorm::Tensor dx = lpnorm::Tensor::contiguous(out.data(), dtype, c->shape);
    lpnorm::Status s = lpnorm::reduce(x, y, params);
    fill_ones(grad.data(), group_bytes / elem_size(elem), elem);
    if (s.ok()) s = lpnorm::reduce_backward(x, y, dy, dx, params);  // warm-up and error check
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    st.SetLabel(std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()));
    time_against_copy(
        st, [&] { lpnorm::reduce_backward(x, y, dy, dx, params); }, in, out.data(), bytes, threads);
}

// dx of y = normalize(x) over the case's axis, from x and a dy of ones: reads x and dy, writes
// dx (three arrays; the norms' pass over x comes from cache, a block at a time).
void bench_normalize_backward(benchmark::State &st, const NormalizeCase *c, Elem elem, double p,
                              int threads) {
    const lpnorm::DType dtype = elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
    const int64_t count = count_of(c->shape);
    const void *in = cached_input(c->shape.data(), int(c->shape.size()), elem);
    const size_t bytes = size_t(count) * elem_size(elem);
    Buffer out(bytes), grad(bytes);
    fill_ones(grad.data(), size_t(count), elem);
    lpnorm::NormalizeParams params;
    params.axes = {c->axis};
    params.p = p;
    const lpnorm::Tensor x = lpnorm::Tensor::contiguous(in, dtype, c->shape);
    const lpnorm::Tensor dy = lpnorm::Tensor::contiguous(grad.data(), dtype, c->shape);
    const lpnorm::Tensor dx = lpnorm::Tensor::contiguous(out.data(), dtype, c->shape);
    const lpnorm::Status s = lpnorm::normalize_backward(x, dy, dx, params);  // warm-up, check
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    st.SetLabel(std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()));
    time_against_copy(
        st, [&] { lpnorm::normalize_backward(x, dy, dx, params); }, in, out.data(), bytes, threads,
        3);
}

// The copy probe of a case's buffers, as copy/<dtype>/<shape>/threads<N>.
void bench_copy(benchmark::State &st, const NormalizeCase *c, Elem elem, int threads) {
    const void *in = cached_input(c->shape.data(), int(c->shape.size()), elem);
    const size_t bytes = size_t(count_of(c->shape)) * elem_size(elem);
    Buffer out(bytes);
    for (auto _ : st) {
        st.SetIterationTime(copy_seconds(in, out.data(), bytes, threads));
    }
    st.counters["bytes_per_second"] =
        benchmark::Counter(2.0 * double(bytes), benchmark::Counter::kIsIterationInvariantRate,
                           benchmark::Counter::OneK::kIs1024);
}

}  // namespace

void register_normalize_benchmarks(int threads) {
    std::set<std::string> probed;
    for (const NormalizeCase &c : kNormalizeCases) {
        for (Elem elem : {Elem::f32, Elem::f16}) {
            const std::string shape = shape_text(c.shape);
            const std::string probe = std::string("copy/") + elem_name(elem) + "/" + shape +
                                      "/threads" + std::to_string(threads);
            if (probed.insert(probe).second) {
                benchmark::RegisterBenchmark(probe.c_str(), bench_copy, &c, elem, threads)
                    ->UseManualTime();
            }
            for (double p : {2.0, 1.0, 3.0}) {
                const std::string base = std::string("normalize/") + elem_name(elem) + "/p" +
                                         std::to_string(int(p)) + "/" + shape + "/axis" +
                                         std::to_string(c.axis) + "/";
                benchmark::RegisterBenchmark((base + "lpnorm").c_str(), bench_normalize, &c, elem,
                                             p, threads, false)
                    ->UseRealTime();
                if (elem == Elem::f32 && p == 2.0) {
                    benchmark::RegisterBenchmark((base + "naive_1thread").c_str(), bench_normalize,
                                                 &c, elem, p, threads, true)
                        ->UseRealTime();
                }
            }
            for (double p : {2.0, 1.0, 2.5, double(INFINITY)}) {
                if (elem == Elem::f16 && p != 2.0) continue;
                const std::string name = std::string("reduce_backward/") + elem_name(elem) + "/p" +
                                         p_text(p) + "/" + shape + "/axis" +
                                         std::to_string(c.axis) + "/lpnorm";
                benchmark::RegisterBenchmark(name.c_str(), bench_reduce_backward, &c, elem, p,
                                             threads)
                    ->UseRealTime();
            }
            for (double p : {2.0, 1.0, 2.5, double(INFINITY)}) {
                if (elem == Elem::f16 && p != 2.0) continue;
                const std::string name = std::string("normalize_backward/") + elem_name(elem) +
                                         "/p" + p_text(p) + "/" + shape + "/axis" +
                                         std::to_string(c.axis) + "/lpnorm";
                benchmark::RegisterBenchmark(name.c_str(), bench_normalize_backward, &c, elem, p,
                                             threads)
                    ->UseRealTime();
            }
        }
    }
}

}  // namespace lpnorm_bench
