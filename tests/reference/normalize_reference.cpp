#include "reference/normalize_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/reduce_reference.h"

namespace lpnorm::ref {
namespace {

bool valid_axes(const std::vector<int64_t> &axes, int rank, std::vector<bool> *grouped,
                std::string *error) {
    grouped->assign(size_t(rank), false);
    for (int64_t a : axes) {
        if (a < -rank || a >= rank) {
            *error = "axis out of range";
            return false;
        }
        const int64_t k = a < 0 ? a + rank : a;
        if ((*grouped)[size_t(k)]) {
            *error = "repeated axis";
            return false;
        }
        (*grouped)[size_t(k)] = true;
    }
    return true;
}

// The group's denominator d (y = x / d) from its elements, per the EpsMode formulas, with the
// norm taken as m (sum (|x| / m)^p)^(1/p), m = max |x|, so nothing overflows. Returns NaN for a
// NaN group; `zero` tells an all-zero group.
struct Denominator {
    long double d = 0;
    bool zero = false;
    bool nan = false;
    bool inf = false;
};

Denominator denominator(const std::vector<long double> &g, const NormalizeParams &params,
                        long double *max_log) {
    Denominator r;
    long double m = 0;
    for (long double v : g) {
        if (std::isnan(v)) r.nan = true;
        if (std::isinf(v)) r.inf = true;
        m = std::max(m, std::fabs(v));
    }
    if (r.nan || r.inf) return r;
    if (m == 0) {
        r.zero = true;
        return r;
    }
    const long double p = params.p;
    long double n;
    if (std::isinf(params.p)) {
        n = m;
    } else {
        long double sum = 0;
        for (long double v : g) {
            if (v == 0) continue;
            const long double a = std::fabs(v);
            sum += std::pow(a / m, p);
            *max_log = std::max({*max_log, std::fabs(std::log(a)), std::fabs(std::log(a / m))});
        }
        n = m * std::pow(sum, 1 / p);
    }
    *max_log = std::max(*max_log, std::fabs(std::log(n)));
    const long double eps = params.eps;
    switch (params.eps_mode) {
    case EpsMode::none: r.d = n; break;
    case EpsMode::norm_max: r.d = std::max(n, eps); break;
    case EpsMode::sum_max: r.d = std::max(n, std::pow(eps, 1 / p)); break;
    case EpsMode::sum_add:
        // (n^p + eps)^(1/p) = n (1 + eps / n^p)^(1/p), the ratio taken in logs.
        r.d = eps == 0 ? n : n * std::pow(1 + std::exp(std::log(eps) - p * std::log(n)), 1 / p);
        break;
    }
    return r;
}

}  // namespace

NormalizeResult normalize(const Tensor &input, const NormalizeParams &params) {
    NormalizeResult result;
    const int rank = input.rank;
    std::vector<bool> grouped;
    if (!valid_axes(params.axes, rank, &grouped, &result.error)) return result;
    if (!(params.p > 0)) {
        result.error = "p must be > 0";
        return result;
    }
    if (!(params.eps >= 0) || std::isinf(params.eps)) {
        result.error = "eps must be finite and >= 0";
        return result;
    }
    if (std::isinf(params.p) &&
        (params.eps_mode == EpsMode::sum_add || params.eps_mode == EpsMode::sum_max)) {
        result.error = "p = inf with a sum eps mode";
        return result;
    }
    result.ok = true;
    const int64_t count = input.num_elements();
    result.values.resize(size_t(count));
    // Visit each group: the kept coordinates fixed, the grouped ones running.
    std::vector<int64_t> kept_shape(static_cast<size_t>(rank)),
        group_shape(static_cast<size_t>(rank));
    int64_t groups = 1, group_size = 1;
    for (int a = 0; a < rank; a++) {
        kept_shape[size_t(a)] = grouped[size_t(a)] ? 1 : input.shape[a];
        group_shape[size_t(a)] = grouped[size_t(a)] ? input.shape[a] : 1;
        groups *= kept_shape[size_t(a)];
        group_size *= group_shape[size_t(a)];
    }
    const size_t esize = dtype_size(input.dtype);
    auto *base = static_cast<const unsigned char *>(input.data);

    std::vector<long double> values(static_cast<size_t>(group_size));
    std::vector<int64_t> dense_of(static_cast<size_t>(group_size));
    for (int64_t gi = 0; gi < groups; gi++) {
        for (int64_t e = 0; e < group_size; e++) {
            // Logical index: the kept part from gi, the grouped part from e.
            int64_t g = gi, k = e, offset = 0, dense = 0, dense_stride = 1;
            for (int a = rank - 1; a >= 0; a--) {
                int64_t i;
                if (grouped[size_t(a)]) {
                    i = k % input.shape[a];
                    k /= input.shape[a];
                } else {
                    i = g % input.shape[a];
                    g /= input.shape[a];
                }
                offset += i * input.strides[a];
                dense += i * dense_stride;
                dense_stride *= input.shape[a];
            }
            values[size_t(e)] = load(input.dtype, base + offset * int64_t(esize));
            dense_of[size_t(e)] = dense;
        }
        long double max_log = 0;
        const Denominator d = denominator(values, params, &max_log);
        for (int64_t e = 0; e < group_size; e++) {
            const long double x = values[size_t(e)];
            long double y;
            if (d.nan) {
                y = std::numeric_limits<long double>::quiet_NaN();
            } else if (d.inf) {
                y = std::isinf(x) ? std::numeric_limits<long double>::quiet_NaN()
                                  : std::copysign(0.0L, x);
            } else if (d.zero) {
                const bool nan = params.eps_mode != EpsMode::none && params.eps == 0;
                y = nan ? std::numeric_limits<long double>::quiet_NaN() : x;  // x is +-0
            } else {
                y = x / d.d;
            }
            NormalizedValue &out = result.values[size_t(dense_of[size_t(e)])];
            out.value = y;
            out.terms = group_size;
            out.max_log = max_log;
        }
    }
    return result;
}

namespace {

// Significand bits (without the implicit one) and the smallest normal exponent of a dtype.
int mantissa_of(DType d) {
    switch (d) {
    case DType::float16: return 10;
    case DType::bfloat16: return 7;
    case DType::float32: return 23;
    default: return 52;
    }
}
int min_exponent_of(DType d) {
    switch (d) {
    case DType::float16: return -14;
    case DType::float64: return -1022;
    default: return -126;
    }
}

// The spacing of `dtype` values around magnitude v (subnormal spacing below the normal range).
long double ulp_at(DType d, long double v) {
    const int e =
        v > 0 ? std::max(int(std::floor(std::log2(v))), min_exponent_of(d)) : min_exponent_of(d);
    return std::ldexp(1.0L, e - mantissa_of(d));
}

}  // namespace

// y = x * (1 / d), d from the group's sum as in docs/semantics.md ("Error bound, in range"),
// in the compute type's unit roundoff u (float32 for 16-bit inputs, float64 otherwise):
//   term: 0 (p = 1), u (2), 2u (3), 4u + p L u' for pow (u' = u when p is not representable);
//   sum: gamma(n - 1); both divided by p through the root, which adds 0, u, 2u or 4u + L u;
//   eps: sum_add's pair norm (below), u for eps (norm_max) or its root (sum_max, host pow 2^-52
//   first) rounded into the compute type; p = inf: the norm is max|x|, exact;
//   then the reciprocal and the product, u each (the scaled calls multiply by powers of two,
//   exactly), and the rounding to the output, half an ulp.
long double normalize_tolerance(DType dtype, const NormalizeParams &params,
                                const NormalizedValue &expected) {
    const bool half = dtype_size(dtype) == 2;
    const long double u = std::ldexp(1.0L, half ? -24 : -53);
    const long double p = params.p;
    const long double n = (long double)(std::max<int64_t>(expected.terms, 1));
    const long double L = expected.max_log;
    long double rel = 0;
    if (!std::isinf(params.p)) {
        const bool p_exact = !half || (long double)(float)params.p == p;
        long double term, root;
        if (p == 1) {
            term = 0, root = 0;
        } else if (p == 2) {
            term = u, root = u;
        } else if (p == 3) {
            term = 2 * u, root = 2 * u;
        } else {
            term = 4 * u + (p_exact ? 0 : p * L * u), root = 4 * u + L * u;
        }
        const long double gamma = (n - 1) * u / (1 - (n - 1) * u);
        rel = (term + gamma) / p + root;
        // sum_add: the sum plus eps rounds once (unscaled), or (scaled) the p-norm of the pair
        // (n, eps^(1/p)) is taken from the larger: a quotient, its term, an add, the root and
        // a product.
        if (params.eps_mode == EpsMode::sum_add) rel += (term + 2 * u) / p + root + 2 * u;
        if (params.eps_mode == EpsMode::sum_max) rel += std::ldexp(1.0L, -52) + u;
    }
    if (params.eps_mode == EpsMode::norm_max) rel += u;
    rel += 2 * u;
    const long double y = std::fabs(expected.value);
    return y * rel + ulp_at(dtype, y * (1 + rel)) / 2;
}

bool normalize_matches(DType dtype, const NormalizeParams &params, const NormalizedValue &expected,
                       long double got) {
    if (std::isnan(expected.value)) return std::isnan(got);
    if (std::isnan(got)) return false;
    if (expected.value == 0) return got == 0;
    return std::fabs(got - expected.value) <= normalize_tolerance(dtype, params, expected);
}

}  // namespace lpnorm::ref
