#include "demo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.h"
#include "lpnorm/lpnorm.h"
#include "npy.h"

namespace lpnorm::cli {
namespace {

using Shape = std::vector<int64_t>;

int64_t product(const Shape &shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t i = begin; i < end; ++i) n *= shape[i];
    return n;
}

// The deterministic demo input: ((i % 17) - 8) * 0.25.
std::vector<float> pattern(int64_t n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>((i % 17) - 8) * 0.25f;
    return x;
}

std::vector<float> lpnorm_reduce(const std::vector<float> &x, const Shape &shape,
                                 const ReduceParams &params, Shape *out_shape) {
    Status s = reduce_output_shape(shape, params, out_shape);
    std::vector<float> y(s.ok() ? static_cast<size_t>(product(*out_shape, 0, out_shape->size()))
                                : 0);
    if (s.ok()) {
        s = reduce(Tensor::contiguous(x.data(), DType::float32, shape),
                   Tensor::contiguous(y.data(), DType::float32, *out_shape), params);
    }
    if (!s.ok()) throw Error(kExitFailure, std::string("demo: ") + s.message());
    return y;
}

// Reference for any axes of a dense tensor: every input element adds |x|^p into its output slot.
std::vector<float> naive_reduce_any(const std::vector<float> &x, const Shape &shape,
                                    std::vector<int64_t> axes, double p) {
    const int rank = static_cast<int>(shape.size());
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
    int64_t out_n = 1;
    for (int d = 0; d < rank; ++d) out_n *= reduced[d] ? 1 : shape[d];
    std::vector<double> acc(static_cast<size_t>(out_n), 0.0);
    std::vector<int64_t> idx(rank, 0);
    for (size_t i = 0; i < x.size(); ++i) {
        int64_t o = 0;
        for (int d = 0; d < rank; ++d) o = reduced[d] ? o : o * shape[d] + idx[d];
        acc[o] += std::pow(std::fabs(static_cast<double>(x[i])), p);
        for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
    }
    std::vector<float> y(acc.size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(std::pow(acc[i], 1.0 / p));
    return y;
}

// The naive baseline for timing: L2 over the middle group of a dense (outer, r, inner) view,
// accumulating in double, in the cache-friendly loop order a careful C++ programmer would write.
void naive_l2_3loop(const float *x, int64_t outer, int64_t r, int64_t inner, float *y) {
    std::vector<double> acc(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t k = 0; k < r; ++k) {
            const float *row = x + (o * r + k) * inner;
            for (int64_t i = 0; i < inner; ++i) acc[i] += static_cast<double>(row[i]) * row[i];
        }
        for (int64_t i = 0; i < inner; ++i)
            y[o * inner + i] = static_cast<float>(std::sqrt(acc[i]));
    }
}

double max_rel_diff(const std::vector<float> &a, const std::vector<float> &b) {
    double m = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        double d = std::fabs(double(a[i]) - b[i]) / std::max(1e-30, std::fabs(double(b[i])));
        m = std::max(m, d);
    }
    return a.size() == b.size() ? m : INFINITY;
}

std::string axes_string(const std::vector<int64_t> &axes) {
    std::string s = "[";
    for (size_t i = 0; i < axes.size(); ++i) s += (i ? "," : "") + std::to_string(axes[i]);
    return s + "]";
}

// Median seconds of `fn` over up to `max_runs` runs, stopping early once `budget_s` is spent
// (at least 3 runs); one untimed warm-up run first.
template <typename Fn>
double median_seconds(Fn fn, int max_runs, double budget_s) {
    using Clock = std::chrono::steady_clock;
    fn();
    std::vector<double> t;
    const auto start = Clock::now();
    while (static_cast<int>(t.size()) < max_runs) {
        const auto t0 = Clock::now();
        fn();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        if (t.size() >= 3 && std::chrono::duration<double>(Clock::now() - start).count() > budget_s)
            break;
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void spec_examples() {
    const Shape shape = {6, 12, 10, 24};
    const std::vector<float> x = pattern(product(shape, 0, shape.size()));
    std::printf(
        "OpenVINO ReduceL1/ReduceL2 examples: input float32 %s, x[i] = ((i %% 17) - 8) * 0.25\n",
        npy::shape_string(shape).c_str());
    struct Case {
        std::vector<int64_t> axes;
        bool keep_dims;
    };
    for (const Case &c :
         {Case{{2, 3}, true}, Case{{2, 3}, false}, Case{{1}, false}, Case{{-2}, false}}) {
        for (double p : {1.0, 2.0}) {
            ReduceParams params;
            params.axes = c.axes;
            params.p = p;
            params.keep_dims = c.keep_dims;
            Shape out_shape;
            const std::vector<float> y = lpnorm_reduce(x, shape, params, &out_shape);
            const std::vector<float> ref = naive_reduce_any(x, shape, c.axes, p);
            std::printf("  p=%g axes=%-6s keep_dims=%-5s -> %-16s y[0..3] =", p,
                        axes_string(c.axes).c_str(), c.keep_dims ? "true" : "false",
                        npy::shape_string(out_shape).c_str());
            for (size_t i = 0; i < 4 && i < y.size(); ++i) std::printf(" %9.4f", y[i]);
            std::printf("   max rel diff vs naive %.1e\n", max_rel_diff(y, ref));
        }
    }
}

void timing_table(const DemoOptions &options) {
    struct Case {
        Shape shape;
        std::vector<int64_t> axes;  // one contiguous group
    };
    std::vector<Case> cases = {{{6, 12, 10, 24}, {2, 3}}};
    if (!options.quick) {
        cases.push_back({{32, 256, 56, 56}, {2, 3}});
        cases.push_back({{32, 256, 56, 56}, {1}});
        cases.push_back({{8192, 8192}, {0}});
    }
    const int max_runs = options.quick ? 5 : 50;
    const double budget_s = options.quick ? 0.2 : 1.0;
    const int threads = num_threads();
    std::printf(
        "\nTiming, float32, p=2: median of up to %d runs; lpnorm with %s, the naive loop on one "
        "thread\n",
        max_runs,
        threads == 0 ? "one thread per core" : (std::to_string(threads) + " threads").c_str());
    std::printf("  %-18s %-6s %9s %12s %12s %9s %12s %9s\n", "shape", "axes", "MB", "lpnorm ms",
                "naive ms", "speed-up", "lpnorm GB/s", "rel diff");
    for (const Case &c : cases) {
        const int64_t n = product(c.shape, 0, c.shape.size());
        const std::vector<float> x = pattern(n);
        ReduceParams params;
        params.axes = c.axes;
        Shape out_shape;
        std::vector<float> y = lpnorm_reduce(x, c.shape, params, &out_shape);
        const Tensor in = Tensor::contiguous(x.data(), DType::float32, c.shape);
        const Tensor out = Tensor::contiguous(y.data(), DType::float32, out_shape);
        const double t_lp =
            median_seconds([&] { (void)reduce(in, out, params); }, max_runs, budget_s);
        const size_t a = static_cast<size_t>(c.axes.front()),
                     b = static_cast<size_t>(c.axes.back()) + 1;
        std::vector<float> y_naive(y.size());
        const double t_naive = median_seconds(
            [&] {
                naive_l2_3loop(x.data(), product(c.shape, 0, a), product(c.shape, a, b),
                               product(c.shape, b, c.shape.size()), y_naive.data());
            },
            max_runs, budget_s);
        const double mb = n * 4.0 / 1e6;
        std::printf("  %-18s %-6s %9.1f %12.3f %12.3f %8.1fx %12.1f %9.1e\n",
                    npy::shape_string(c.shape).c_str(), axes_string(c.axes).c_str(), mb, t_lp * 1e3,
                    t_naive * 1e3, t_naive / t_lp, mb / 1e3 / t_lp, max_rel_diff(y, y_naive));
    }
}

}  // namespace

void run_demo(const DemoOptions &options) {
    std::printf("lpnorm %s demo (ISA %s)\n\n", version(), isa_name(active_isa()));
    spec_examples();
    timing_table(options);
}

}  // namespace lpnorm::cli
