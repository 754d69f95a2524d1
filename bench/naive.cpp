// The naive baseline: what a straightforward implementation does. One thread walks the input
// in memory order, keeps an index counter per dimension, and adds |x|^p (p = 1 and 2 without
// pow) into a double accumulator per output element; then takes the root.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bench_common.h"

namespace lpnorm_bench {
namespace {

class Naive final : public Runner {
public:
    explicit Naive(const Problem &problem) : pb_(problem), acc_(problem.output_elements()) {
        // Output stride of each input dimension: 0 for reduced ones.
        int64_t stride = 1;
        for (int d = pb_.rank - 1; d >= 0; --d) {
            out_stride_[d] = pb_.reduced(d) ? 0 : stride;
            if (!pb_.reduced(d)) stride *= pb_.shape[d];
        }
        if (pb_.elem == Elem::f16) {
            half_table_.resize(65536);
            for (int h = 0; h < 65536; ++h)
                half_table_[h] = half_to_float(static_cast<uint16_t>(h));
        }
    }

    void run() override {
        std::fill(acc_.begin(), acc_.end(), 0.0);
        if (pb_.elem == Elem::f32)
            accumulate([&](int64_t i) { return static_cast<const float *>(pb_.input)[i]; });
        else
            accumulate([&](int64_t i) {
                return half_table_[static_cast<const uint16_t *>(pb_.input)[i]];
            });
        for (size_t o = 0; o < acc_.size(); ++o) {
            double s = acc_[o];
            double y = pb_.p == 1 ? s : pb_.p == 2 ? std::sqrt(s) : std::pow(s, 1.0 / pb_.p);
            if (pb_.elem == Elem::f32)
                static_cast<float *>(pb_.output)[o] = static_cast<float>(y);
            else
                static_cast<uint16_t *>(pb_.output)[o] = float_to_half(static_cast<float>(y));
        }
    }

private:
    template <typename Load>
    void accumulate(Load load) {
        const int64_t n = pb_.input_elements();
        const int last = pb_.rank - 1;
        int64_t index[8] = {};
        int64_t out = 0;
        for (int64_t i = 0; i < n; ++i) {
            double a = std::fabs(static_cast<double>(load(i)));
            acc_[out] += pb_.p == 1 ? a : pb_.p == 2 ? a * a : std::pow(a, pb_.p);
            // Step the index counter (row-major) and the output offset with it.
            for (int d = last; d >= 0; --d) {
                out += out_stride_[d];
                if (++index[d] < pb_.shape[d]) break;
                out -= out_stride_[d] * index[d];
                index[d] = 0;
            }
        }
    }

    Problem pb_;
    std::vector<double> acc_;
    int64_t out_stride_[8] = {};
    std::vector<float> half_table_;
};

}  // namespace

Runner *make_naive(const Problem &problem) { return new Naive(problem); }

}  // namespace lpnorm_bench
