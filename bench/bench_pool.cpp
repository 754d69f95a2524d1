// Pooling benchmarks: lpnorm::pool (automatic ISA), a naive single-threaded window loop and
// oneDNN's average pooling on the common windows, with bytes/s and the percentage of the
// streaming-read probe of the same input buffer.
//
// Names: pool/<dtype>/p<p>/<window>/<shape>/<implementation>, and for oneDNN
// pool/f32/avg/<window>/<shape>/onednn_<layout>.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bench_common.h"
#include "lpnorm/lpnorm.h"
#include "runtime/testing.h"

namespace lpnorm_bench {
namespace {

struct PoolCase {
    const char *window;  // a short name for the attributes
    std::vector<int64_t> shape;
    std::vector<int64_t> kernel, strides, pads;
};

// ResNet-style 2-D windows on 32 x 64 x 112 x 112 (98 MiB of float32); small planes of many
// channels (28 x 28 and 14 x 14: short rows, per-plane costs); a 3-D and a 1-D window.
const PoolCase kPoolCases[] = {
    {"k2x2_s2", {32, 64, 112, 112}, {2, 2}, {2, 2}, {}},
    {"k3x3_s1_p1", {32, 64, 112, 112}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
    {"k3x3_s2_p1", {32, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
    {"k3x3_s1_p1", {8, 256, 28, 28}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
    {"k2x2_s2", {8, 256, 28, 28}, {2, 2}, {2, 2}, {}},
    {"k3x3_s1_p1", {1, 512, 14, 14}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
    {"k2x2x2_s2", {4, 32, 32, 56, 56}, {2, 2, 2}, {2, 2, 2}, {}},
    {"k4_s2", {32, 64, 8192}, {4}, {2}, {}},
};

lpnorm::PoolParams params_of(const PoolCase &c, double p) {
    lpnorm::PoolParams params;
    params.kernel = c.kernel;
    params.strides = c.strides;
    params.pads = c.pads;
    params.p = p;
    return params;
}

std::string shape_text(const std::vector<int64_t> &shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// float32 only: (sum over in-bounds taps of |x|^p)^(1/p), pow per tap, one thread.
void naive_pool(const float *x, const std::vector<int64_t> &in, const lpnorm::PoolParams &prm,
                const std::vector<lpnorm::PoolAxis> &axes, float *y) {
    const int k = static_cast<int>(axes.size());
    int64_t planes = in[0] * in[1], in_plane = 1, out_plane = 1;
    for (int d = 0; d < k; ++d) {
        in_plane *= axes[d].input;
        out_plane *= axes[d].output;
    }
    std::vector<int64_t> o(k), t(k);
    for (int64_t pl = 0; pl < planes; ++pl) {
        for (int64_t oi = 0; oi < out_plane; ++oi) {
            int64_t rest = oi;
            for (int d = k - 1; d >= 0; --d) {
                o[d] = rest % axes[d].output;
                rest /= axes[d].output;
            }
            int64_t taps = 1;
            for (int d = 0; d < k; ++d) taps *= axes[d].kernel;
            float sum = 0;
            for (int64_t ti = 0; ti < taps; ++ti) {
                int64_t r = ti, offset = 0;
                bool inside = true;
                for (int d = k - 1; d >= 0; --d) {
                    const int64_t j = r % axes[d].kernel;
                    r /= axes[d].kernel;
                    t[d] = o[d] * axes[d].stride - axes[d].pad_begin + j * axes[d].dilation;
                    inside = inside && t[d] >= 0 && t[d] < axes[d].input;
                }
                if (!inside) continue;
                for (int d = 0; d < k; ++d) offset = offset * axes[d].input + t[d];
                sum += std::pow(std::fabs(x[pl * in_plane + offset]), static_cast<float>(prm.p));
            }
            y[pl * out_plane + oi] = std::pow(sum, 1.0f / static_cast<float>(prm.p));
        }
    }
}

// Runs the benchmark loop of `run` and sets the counters: `moved` bytes per second and their
// percentage of the input's read probe.
template <typename Run>
void time_pool(benchmark::State &st, Run run, const void *in, size_t in_bytes, double moved,
               int threads) {
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : st) {
        run();
        benchmark::ClobberMemory();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    using benchmark::Counter;
    st.counters["bytes_per_second"] =
        Counter(moved, Counter::kIsIterationInvariantRate, Counter::OneK::kIs1024);
    const double rate = moved * static_cast<double>(st.iterations()) / seconds;
    st.counters["pct_of_probe"] =
        100.0 * rate / probe_bandwidth(in, in_bytes, threads).bytes_per_second;
}

// What a pooling row times: lpnorm::pool, the same with the range check after the kernel off
// (the kernel alone), or the naive loop.
enum class PoolRun { lpnorm, unchecked, naive };

void bench_pool(benchmark::State &st, const PoolCase *c, Elem elem, double p, int threads,
                PoolRun what) {
    const bool naive = what == PoolRun::naive;
    const lpnorm::DType dtype = elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
    const lpnorm::PoolParams params = params_of(*c, p);
    std::vector<int64_t> out_shape;
    std::vector<lpnorm::PoolAxis> axes;
    lpnorm::Status s = lpnorm::pool_output_shape(c->shape, params, &out_shape);
    if (s.ok()) s = lpnorm::pool_geometry(c->shape, params, &axes);
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    const void *in = cached_input(c->shape.data(), static_cast<int>(c->shape.size()), elem);
    int64_t in_elements = 1, out_elements = 1;
    for (int64_t d : c->shape) in_elements *= d;
    for (int64_t d : out_shape) out_elements *= d;
    Buffer out(static_cast<size_t>(out_elements) * elem_size(elem));
    const lpnorm::Tensor x = lpnorm::Tensor::contiguous(in, dtype, c->shape);
    const lpnorm::Tensor y = lpnorm::Tensor::contiguous(out.data(), dtype, out_shape);

    auto run = [&] {
        if (naive) {
            naive_pool(static_cast<const float *>(in), c->shape, params, axes,
                       static_cast<float *>(out.data()));
        } else {
            lpnorm::pool(x, y, params);
        }
    };
    if (!naive) {
        s = lpnorm::pool(x, y, params);  // warm-up, and the error check the loop skips
        if (!s.ok()) return st.SkipWithError(s.message().c_str());
        st.SetLabel(std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()));
    }
    lpnorm::testing::set_range_checks(what != PoolRun::unchecked);
    const size_t in_bytes = static_cast<size_t>(in_elements) * elem_size(elem);
    time_pool(st, run, in, in_bytes, double(in_bytes + out_elements * elem_size(elem)), threads);
    lpnorm::testing::set_range_checks(true);
}

// The gradient of the case's pooling: dx from x, y (pooled once, untimed) and dy = 1, as
// pool_backward/<dtype>/p<p>/<window>/<shape>/lpnorm. Moves x and dx, y and dy: its bytes
// against the input's read probe.
void bench_pool_backward(benchmark::State &st, const PoolCase *c, Elem elem, double p,
                         int threads) {
    const lpnorm::DType dtype = elem == Elem::f32 ? lpnorm::DType::float32 : lpnorm::DType::float16;
    const lpnorm::PoolParams params = params_of(*c, p);
    std::vector<int64_t> out_shape;
    lpnorm::Status s = lpnorm::pool_output_shape(c->shape, params, &out_shape);
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    const void *in = cached_input(c->shape.data(), static_cast<int>(c->shape.size()), elem);
    int64_t in_elements = 1, out_elements = 1;
    for (int64_t d : c->shape) in_elements *= d;
    for (int64_t d : out_shape) out_elements *= d;
    const size_t in_bytes = static_cast<size_t>(in_elements) * elem_size(elem);
    const size_t out_bytes = static_cast<size_t>(out_elements) * elem_size(elem);
    Buffer pooled(out_bytes), grad(out_bytes), dx(in_bytes);
    fill_ones(grad.data(), static_cast<size_t>(out_elements), elem);
    const lpnorm::Tensor x = lpnorm::Tensor::contiguous(in, dtype, c->shape);
    const lpnorm::Tensor y = lpnorm::Tensor::contiguous(pooled.data(), dtype, out_shape);
    const lpnorm::Tensor dy = lpnorm::Tensor::contiguous(grad.data(), dtype, out_shape);
    const lpnorm::Tensor dxt = lpnorm::Tensor::contiguous(dx.data(), dtype, c->shape);
    s = lpnorm::pool(x, y, params);
    if (s.ok()) s = lpnorm::pool_backward(x, y, dy, dxt, params);  // warm-up and error check
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    st.SetLabel(std::string("isa=") + lpnorm::isa_name(lpnorm::active_isa()));
    time_pool(
        st, [&] { lpnorm::pool_backward(x, y, dy, dxt, params); }, in, in_bytes,
        double(2 * in_bytes + 2 * out_bytes), threads);
}

#ifdef LPNORM_BENCH_HAVE_ONEDNN
// oneDNN's average pooling of the same buffer (standing in for |x|^p, taken beforehand: the
// time does not depend on the values), as pool/<dtype>/avg/<window>/<shape>/onednn_<layout>.
// The floor a fused Lp pool is held to: the same window sums, with no power and no root.
void bench_pool_onednn(benchmark::State &st, const PoolCase *c, Elem elem, int threads,
                       int channel_block) {
    const int rank = static_cast<int>(c->shape.size()), spatial = rank - 2;
    std::vector<int64_t> out_shape;
    const lpnorm::Status s = lpnorm::pool_output_shape(c->shape, params_of(*c, 1.0), &out_shape);
    if (!s.ok()) return st.SkipWithError(s.message().c_str());
    PoolProblem pb;
    pb.rank = rank;
    pb.elem = elem;
    int64_t in_elements = 1, out_elements = 1;
    for (int d = 0; d < rank; ++d) {
        pb.shape[d] = c->shape[d];
        pb.out_shape[d] = out_shape[d];
        in_elements *= c->shape[d];
        out_elements *= out_shape[d];
    }
    for (int d = 0; d < spatial; ++d) {
        pb.kernel[d] = c->kernel[d];
        pb.strides[d] = c->strides[d];
        pb.pad_begin[d] = c->pads.empty() ? 0 : c->pads[d];
        pb.pad_end[d] = c->pads.empty() ? 0 : c->pads[spatial + d];
    }
    pb.input = cached_input(c->shape.data(), rank, elem);
    Buffer out(static_cast<size_t>(out_elements) * elem_size(elem));
    pb.output = out.data();
    const char *why = "";
    std::unique_ptr<Runner> runner(make_onednn_avg_pool(pb, channel_block, &why));
    if (!runner) return st.SkipWithError(why);
    runner->run();
    st.SetLabel(runner->label());
    const size_t in_bytes = static_cast<size_t>(in_elements) * elem_size(elem);
    time_pool(
        st, [&] { runner->run(); }, pb.input, in_bytes,
        double(in_bytes + static_cast<size_t>(out_elements) * elem_size(elem)), threads);
}
#endif

// The streaming-read probe of a pooling input, as probe/<dtype>/<shape>/threads<N>.
void bench_pool_probe(benchmark::State &st, const PoolCase *c, Elem elem, int threads) {
    const void *in = cached_input(c->shape.data(), static_cast<int>(c->shape.size()), elem);
    size_t bytes = elem_size(elem);
    for (int64_t d : c->shape) bytes *= static_cast<size_t>(d);
    const int passes = probe_bandwidth(in, bytes, threads).passes;
    double total = 0;
    for (auto _ : st) {
        const double seconds = timed_read(in, bytes, threads, passes);
        st.SetIterationTime(seconds);
        total += seconds;
    }
    const double moved = static_cast<double>(bytes) * passes;
    probe_observed(in, bytes, threads, moved * static_cast<double>(st.iterations()) / total);
    st.counters["bytes_per_second"] = benchmark::Counter(
        moved, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1024);
    st.counters["passes"] = passes;
}

}  // namespace

void register_pool_benchmarks(int threads) {
    std::set<std::string> probed;
    for (const PoolCase &c : kPoolCases) {
        for (Elem elem : {Elem::f32, Elem::f16}) {
            const std::string probe = std::string("probe/") + elem_name(elem) + "/" +
                                      shape_text(c.shape) + "/threads" + std::to_string(threads);
            if (probed.insert(probe).second) {
                benchmark::RegisterBenchmark(probe.c_str(), bench_pool_probe, &c, elem, threads)
                    ->UseManualTime();
            }
#ifdef LPNORM_BENCH_HAVE_ONEDNN
            if (elem == Elem::f32 && c.shape.size() == 4) {
                // oneDNN's blocked layout is a vector of channels: 8 with AVX2 (its 16-channel
                // layout has only the reference implementation there), 16 with AVX-512.
                const int block = lpnorm::cpu_supports(lpnorm::Isa::avx512) ? 16 : 8;
                for (int channel_block : {0, block}) {
                    const std::string layout =
                        channel_block == 0 ? "nchw" : "nchw" + std::to_string(channel_block) + "c";
                    const std::string name = std::string("pool/f32/avg/") + c.window + "/" +
                                             shape_text(c.shape) + "/onednn_" + layout;
                    benchmark::RegisterBenchmark(name.c_str(), bench_pool_onednn, &c, elem, threads,
                                                 channel_block)
                        ->UseRealTime();
                }
            }
#endif
            for (double p : {1.0, 2.0, 3.0, 4.0}) {
                const std::string base = std::string("pool/") + elem_name(elem) + "/p" +
                                         std::to_string(static_cast<int>(p)) + "/" + c.window +
                                         "/" + shape_text(c.shape) + "/";
                benchmark::RegisterBenchmark((base + "lpnorm").c_str(), bench_pool, &c, elem, p,
                                             threads, PoolRun::lpnorm)
                    ->UseRealTime();
                if (p <= 3) {  // p = 1, 2: summed one dim at a time; 3: the general path
                    const std::string grad = std::string("pool_backward/") + elem_name(elem) +
                                             "/p" + std::to_string(static_cast<int>(p)) + "/" +
                                             c.window + "/" + shape_text(c.shape) + "/lpnorm";
                    benchmark::RegisterBenchmark(grad.c_str(), bench_pool_backward, &c, elem, p,
                                                 threads)
                        ->UseRealTime();
                }
                if (elem == Elem::f32 && p == 2) {
                    // The range check's cost: the same call without it (docs/semantics.md).
                    benchmark::RegisterBenchmark((base + "lpnorm_unchecked").c_str(), bench_pool,
                                                 &c, elem, p, threads, PoolRun::unchecked)
                        ->UseRealTime();
                    benchmark::RegisterBenchmark((base + "naive_1thread").c_str(), bench_pool, &c,
                                                 elem, p, threads, PoolRun::naive)
                        ->UseRealTime();
                }
            }
        }
    }
}

}  // namespace lpnorm_bench
