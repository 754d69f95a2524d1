#include "reference/reduce_backward_reference.h"

#include <cmath>
#include <map>

#include "reference/normalize_reference.h"
#include "reference/powers.h"
#include "reference/reduce_reference.h"

namespace lpnorm::ref {
namespace {

long double element(const Tensor &t, const std::vector<int64_t> &index) {
    int64_t offset = 0;
    for (int a = 0; a < t.rank; a++) offset += index[size_t(a)] * t.strides[a];
    return load(t.dtype,
                static_cast<const unsigned char *>(t.data) + offset * int64_t(dtype_size(t.dtype)));
}

// sgn as PyTorch takes it: 0 for 0 and NaN.
long double sign_of(long double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

bool next_index(const Tensor &t, std::vector<int64_t> *index) {
    for (int a = t.rank - 1; a >= 0; a--) {
        if (++(*index)[size_t(a)] < t.shape[a]) return true;
        (*index)[size_t(a)] = 0;
    }
    return false;
}

}  // namespace

// The kernels compute in float32 (float64 for float64), unit roundoff u, from inputs converted
// exactly: t = |x| / y as |x| times y's reciprocal (lifted by an exact power of two), 2u;
// p = 2's x / y the same way; an integer p's t^(p-1) by products (p = 3's t * t) carries
// 2 (p - 1) u of t's error and at most p - 2 roundings of its own; pow(t, p - 1) carries
// 2 |p - 1| u of t's, its own 4u and, where p or p - 1 rounds in the compute type,
// |ln t| (|p| + |p - 1|) u; the product with dy one more; p = +-inf's dy / n once; p = 1, the
// copies and the zeros are exact. Then the rounding to the output type.
GradientResult reduce_backward(const Tensor &x, const Tensor &y, const Tensor &dy,
                               const ReduceParams &params) {
    GradientResult result;
    const std::vector<int64_t> shape(x.shape, x.shape + x.rank);
    std::vector<bool> reduced;
    if (!reduced_dims(shape, params, &reduced, &result.error)) return result;
    const bool identity = params.axes.empty() && params.empty_axes == EmptyAxes::identity;
    const bool elementwise = params.axes.empty() && params.empty_axes == EmptyAxes::elementwise;
    const long double p = elementwise ? 1 : params.p;
    const long double u = std::ldexp(1.0L, x.dtype == DType::float64 ? -53 : -24);

    // y's (and dy's) index for x's index.
    auto group_index = [&](const std::vector<int64_t> &index) {
        std::vector<int64_t> g;
        for (int a = 0; a < x.rank; a++) {
            if (!reduced[size_t(a)]) {
                g.push_back(index[size_t(a)]);
            } else if (params.keep_dims) {
                g.push_back(0);
            }
        }
        return g;
    };
    std::map<std::vector<int64_t>, int64_t> ties;
    if (x.num_elements() == 0) return result.ok = true, result;
    std::vector<int64_t> index(size_t(x.rank), 0);
    if (std::isinf(p)) {
        do {
            const std::vector<int64_t> g = group_index(index);
            const long double v = element(x, index);
            if (std::fabs(v) == element(y, g) || std::isnan(v)) ties[g]++;
        } while (next_index(x, &index));
    }
    std::fill(index.begin(), index.end(), 0);
    do {
        const std::vector<int64_t> g = group_index(index);
        const long double v = element(x, index), grad = element(dy, g);
        GradientValue out;
        if (identity) {
            out.value = grad;
        } else if (p == 0) {
            out.value = 0;
        } else if (p == 1) {
            out.value = sign_of(v) * grad;
        } else if (std::isinf(p)) {
            const bool attains = std::fabs(v) == element(y, g) || std::isnan(v);
            out.value = sign_of(v) * ((grad / (long double)ties[g]) * (attains ? 1 : 0));
            out.rel = u;
        } else {
            const long double norm = element(y, g);
            const long double t = std::fabs(v) / norm;
            long double factor;
            if (norm == 0) {
                factor = 0;
            } else if (v == 0 && p != 2) {
                // PyTorch: 0 times dy y^(1-p) (p < 1) or dy / y^(p-1) (p > 1).
                factor = 0 * (p < 1 ? norm : 1 / norm);
            } else if (p == 2) {
                factor = v / norm;
                out.rel = 3 * u;
            } else {
                factor = sign_of(v) * power(t, p - 1);
                const bool chain = p == std::floor(p) && p <= 64;
                const long double log_t =
                    !chain && t > 0 && std::isfinite(t) ? std::fabs(std::log(t)) : 0;
                const long double e = std::fabs(p - 1);
                out.rel = chain ? 3 * e * u : (2 * e + 5 + log_t * (std::fabs(p) + e)) * u;
            }
            out.value = factor * grad;
        }
        result.values.push_back(out);
    } while (next_index(x, &index));
    result.ok = true;
    return result;
}

bool gradient_matches(DType dtype, const GradientValue &expected, long double got) {
    const long double v = expected.value;
    if (std::isnan(v)) return std::isnan(got);
    if (std::isnan(got)) return false;
    if (v == 0 || std::isinf(v)) return got == v;
    const long double magnitude = std::fabs(v);
    // Beyond the output type's range: the rounding gives inf of v's sign.
    if (std::isinf(round_to_dtype(dtype, v)) && std::isinf(got) && (got > 0) == (v > 0)) {
        return true;
    }
    // Results below the compute type's normal range lose their low bits: a few of its smallest
    // subnormals.
    const long double underflow = std::ldexp(1.0L, dtype == DType::float64 ? -1072 : -147);
    const long double tolerance =
        magnitude * expected.rel + ulp_at(dtype, magnitude * (1 + expected.rel)) / 2 + underflow;
    return std::fabs(got - v) <= tolerance;
}

}  // namespace lpnorm::ref
