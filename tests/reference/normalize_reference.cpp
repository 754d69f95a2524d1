#include "reference/normalize_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/powers.h"
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

// The request's checks (lpnorm.h's rules); `grouped` marks the normalized axes.
bool valid_params(const Tensor &input, const NormalizeParams &params, std::vector<bool> *grouped,
                  std::string *error) {
    if (!valid_axes(params.axes, input.rank, grouped, error)) return false;
    if (!(params.p > 0)) {
        *error = "p must be > 0";
        return false;
    }
    if (!(params.eps >= 0) || std::isinf(params.eps)) {
        *error = "eps must be finite and >= 0";
        return false;
    }
    if (std::isinf(params.p) &&
        (params.eps_mode == EpsMode::sum_add || params.eps_mode == EpsMode::sum_max)) {
        *error = "p = inf with a sum eps mode";
        return false;
    }
    return true;
}

// The number of elements of each group.
int64_t group_size_of(const Tensor &input, const std::vector<bool> &grouped) {
    int64_t n = 1;
    for (int a = 0; a < input.rank; a++) {
        if (grouped[size_t(a)]) n *= input.shape[a];
    }
    return n;
}

// Calls visit(offsets, dense) once per group: its elements' offsets in `input` (in elements,
// from its strides) and their dense row-major indices, in the group's own row-major order.
template <typename Visit>
void for_each_group(const Tensor &input, const std::vector<bool> &grouped, Visit visit) {
    const int rank = input.rank;
    int64_t groups = 1;
    for (int a = 0; a < rank; a++) {
        if (!grouped[size_t(a)]) groups *= input.shape[a];
    }
    const int64_t group_size = group_size_of(input, grouped);
    std::vector<int64_t> offsets(static_cast<size_t>(group_size)),
        dense_of(static_cast<size_t>(group_size));
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
            offsets[size_t(e)] = offset;
            dense_of[size_t(e)] = dense;
        }
        visit(offsets, dense_of);
    }
}

// The element of `t` at row-major index `dense`, from its own strides.
long double element_at_index(const Tensor &t, int64_t dense) {
    int64_t offset = 0;
    for (int a = t.rank - 1; a >= 0; a--) {
        offset += (dense % t.shape[a]) * t.strides[a];
        dense /= t.shape[a];
    }
    return load(t.dtype,
                static_cast<const unsigned char *>(t.data) + offset * int64_t(dtype_size(t.dtype)));
}

long double element_at(const Tensor &t, int64_t offset) {
    return load(t.dtype,
                static_cast<const unsigned char *>(t.data) + offset * int64_t(dtype_size(t.dtype)));
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
        LogRange logs, scaled_logs;
        for (long double v : g) {
            if (v == 0) continue;
            const long double a = std::fabs(v);
            sum += power(a / m, p);
            logs.add(a);
            scaled_logs.add(a / m);
        }
        *max_log = std::max({*max_log, logs.max_abs_log(), scaled_logs.max_abs_log()});
        n = m * std::pow(sum, 1 / p);
    }
    *max_log = std::max(*max_log, std::fabs(std::log(n)));
    const long double eps = params.eps;
    switch (params.eps_mode) {
    case EpsMode::none: r.d = n; break;
    case EpsMode::norm_max: r.d = std::max(n, eps); break;
    case EpsMode::sum_max: r.d = std::max(n, std::pow(eps, 1 / p)); break;
    case EpsMode::sum_add: {
        // (n^p + eps)^(1/p) from the larger of n^p and eps: n (1 + eps / n^p)^(1/p) or
        // eps^(1/p) (1 + n^p / eps)^(1/p), the ratio taken in logs (at most 1, where for large
        // p its reciprocal overflows even long double).
        const long double log_ratio = eps == 0 ? -INFINITY : std::log(eps) - p * std::log(n);
        r.d = log_ratio <= 0 ? n * std::pow(1 + std::exp(log_ratio), 1 / p)
                             : std::pow(eps, 1 / p) * std::pow(1 + std::exp(-log_ratio), 1 / p);
        break;
    }
    }
    return r;
}

}  // namespace

NormalizeResult normalize(const Tensor &input, const NormalizeParams &params) {
    NormalizeResult result;
    std::vector<bool> grouped;
    if (!valid_params(input, params, &grouped, &result.error)) return result;
    result.ok = true;
    result.values.resize(size_t(input.num_elements()));
    const int64_t group_size = group_size_of(input, grouped);
    for_each_group(input, grouped,
                   [&](const std::vector<int64_t> &offsets, const std::vector<int64_t> &dense_of) {
                       std::vector<long double> values;
                       for (int64_t offset : offsets) values.push_back(element_at(input, offset));
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
                               y = nan ? std::numeric_limits<long double>::quiet_NaN()
                                       : x;  // x is +-0
                           } else {
                               y = x / d.d;
                           }
                           NormalizedValue &out = result.values[size_t(dense_of[size_t(e)])];
                           out.value = y;
                           out.terms = group_size;
                           out.max_log = max_log;
                       }
                   });
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

// docs/semantics.md (Normalization, range): above this p a scaled group's general-p terms are
// taken relative to its largest |x|, as (|x| s (1 / m))^p for m = max|x| s, s the powers of two:
// the base rounds twice (2u, so 2pu on the term) and the norm, m times the root, once more.
bool relative_terms(bool half, long double p) { return p > (half ? 64 : 512); }

}  // namespace

long double ulp_at(DType d, long double v) {
    const int e =
        v > 0 ? std::max(int(std::floor(std::log2(v))), min_exponent_of(d)) : min_exponent_of(d);
    return std::ldexp(1.0L, e - mantissa_of(d));
}

// y = x * (1 / d), d from the group's sum as in docs/semantics.md ("Error bound, in range"),
// in the compute type's unit roundoff u (float32 for 16-bit inputs, float64 otherwise):
//   term: 0 (p = 1), u (2), 2u (3), pow_error + p L u' for pow (u' = u when p is not
//   representable);
//   sum: gamma(n - 1); both divided by p through the root, which adds 0, u, 2u or 4u + L u;
//   eps: sum_add's pair norm (below), u for eps (norm_max) or its root (sum_max, host pow 2^-52
//   first) rounded into the compute type; p = inf: the norm is max|x|, exact;
//   then the reciprocal and the product, u each (the scaled calls multiply by powers of two,
//   exactly; float32's unscaled product on FMA targets is within 2^-47, from the reciprocal's
//   float32 halves, plus 2^-150 absolute where x times the lower half underflows), and the
//   rounding to the output, half an ulp.
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
            term = pow_error(dtype == DType::float32, u) + (p_exact ? 0 : p * L * u);
            root = 4 * u + L * u;
            if (relative_terms(half, p)) term += 2 * p * u, root += u;
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
    const bool float32 = dtype == DType::float32;
    rel += u + (float32 ? std::ldexp(1.0L, -47) : u);
    const long double y = std::fabs(expected.value);
    return y * rel + ulp_at(dtype, y * (1 + rel)) / 2 + (float32 ? std::ldexp(1.0L, -150) : 0);
}

bool normalize_matches(DType dtype, const NormalizeParams &params, const NormalizedValue &expected,
                       long double got) {
    if (std::isnan(expected.value)) return std::isnan(got);
    if (std::isnan(got)) return false;
    if (expected.value == 0) return got == 0;
    return std::fabs(got - expected.value) <= normalize_tolerance(dtype, params, expected);
}

// The gradient of y = x / d for a finite group, from lpnorm.h's formula: with c = sum dy y and
// g = sgn(x) |y|^(p-1) (p = inf: sgn(x) / n at the n elements whose |x| is the max) where d
// follows the norm, dx = (dy - g c) / d. d = n (none, norm_max and sum_max where the norm
// reaches eps), eps (norm_max below it), eps^(1/p) (sum_max below it), (S + eps)^(1/p)
// (sum_add, which always follows the sum). An all-zero group gives 0 with eps_mode none, and
// NaN where d = 0.
//
// Tolerance: the kernels compute in float32 for 16-bit dtypes, float64 otherwise (unit
// roundoff u). d, y and c carry the forward's bound and the sum's gamma(n); g a few roundings
// (pow: pow_error, |p - 1| of y's and |ln|y|| (|p| + |p - 1|) u); the difference then cancels
// up to its terms' size, so the bound is K u (|dy| + |g c|) / |d| with K = 2n + 24 plus pow's
// share, and half an ulp of the output. Where the sum's terms carry more than 4u (pow_error of
// float32 inputs), d's relative error pow_error / p moves y and c, g by |p - 1| times it, and
// the quotient: (2 + |p - 1|) pow_error / p more.
NormalizeGradientResult normalize_gradient(const Tensor &input, const Tensor &output_grad,
                                           const NormalizeParams &params) {
    NormalizeGradientResult result;
    std::vector<bool> grouped;
    if (!valid_params(input, params, &grouped, &result.error)) return result;
    result.ok = true;
    result.values.resize(size_t(input.num_elements()));
    const long double p = params.p;
    const bool half = dtype_size(input.dtype) == 2;
    const long double u = std::ldexp(1.0L, half ? -24 : -53);
    const long double own_pow = pow_error(input.dtype == DType::float32, u);
    const long double nan = std::numeric_limits<long double>::quiet_NaN();
    const int64_t group_size = group_size_of(input, grouped);
    for_each_group(input, grouped,
                   [&](const std::vector<int64_t> &offsets, const std::vector<int64_t> &dense_of) {
                       std::vector<long double> x, dy;
                       for (size_t e = 0; e < offsets.size(); e++) {
                           x.push_back(element_at(input, offsets[e]));
                           dy.push_back(element_at_index(output_grad, dense_of[e]));
                       }
                       long double max_log = 0;
                       const Denominator den = denominator(x, params, &max_log);
                       long double m = 0;
                       for (long double v : x) m = std::max(m, std::fabs(v));
                       const long double eps = params.eps, eps_root = std::pow(eps, 1 / p);
                       long double d = den.d;
                       bool follows = true;
                       if (den.zero) {
                           d = params.eps_mode == EpsMode::norm_max ? eps
                               : params.eps_mode == EpsMode::none   ? 0
                                                                    : eps_root;
                           follows = params.eps_mode == EpsMode::sum_add;
                       } else if (params.eps_mode == EpsMode::norm_max ||
                                  params.eps_mode == EpsMode::sum_max) {
                           NormalizeParams plain = params;
                           plain.eps_mode = EpsMode::none;
                           long double ignored = 0;
                           const long double n = denominator(x, plain, &ignored).d;
                           follows = n >= (params.eps_mode == EpsMode::norm_max ? eps : eps_root);
                       }
                       int64_t ties = 0;
                       for (long double v : x) ties += std::fabs(v) == m ? 1 : 0;
                       long double c = 0, c_terms = 0;
                       for (size_t e = 0; e < x.size(); e++) {
                           c += dy[e] * (x[e] / d);
                           c_terms += std::fabs(dy[e] * (x[e] / d));
                       }
                       const bool pow_kind = !std::isinf(p) && p != 1 && p != 2 && p != 3;
                       for (size_t e = 0; e < x.size(); e++) {
                           NormalizedGradient &out = result.values[size_t(dense_of[e])];
                           if (den.zero && params.eps_mode == EpsMode::none) {
                               out.value = 0;
                               continue;
                           }
                           if (d == 0 || den.nan || den.inf) {
                               out.value = nan;
                               continue;
                           }
                           const long double y = x[e] / d, a = std::fabs(y);
                           const long double sign = x[e] > 0 ? 1 : x[e] < 0 ? -1 : 0;
                           long double g;
                           if (std::isinf(p)) {
                               g = std::fabs(x[e]) == m ? sign / (long double)ties : 0;
                           } else if (p == 2) {
                               g = y;
                           } else {
                               g = x[e] == 0 ? 0 : sign * power(a, p - 1);
                           }
                           const long double through = follows ? g * c : 0;
                           out.value = (dy[e] - through) / d;
                           long double k = 2 * (long double)group_size + 24;
                           if (pow_kind) {
                               k += (2 + std::fabs(p - 1)) * (own_pow - 4 * u) / (p * u);
                           }
                           if (pow_kind && a > 0) {
                               k += own_pow / u + std::fabs(p - 1) +
                                    std::fabs(std::log(a)) * (std::fabs(p) + std::fabs(p - 1));
                           }
                           // Relative terms: d within 3u more (2u per term through the root, u
                           // for the product by the largest), moving y and c by it and g by
                           // |p - 1| times it; g's own base (2u) and factor (5u) by |p - 1|.
                           if (pow_kind && relative_terms(half, p)) k += 6 + 10 * std::fabs(p - 1);
                           // g below the compute type's least normal number (|y|^(p - 1) of
                           // a large p) may come out 0 (pow's relative bound stops there, and
                           // Halide's float32 pow gives 0 for subnormal results): its whole
                           // value is the error there.
                           const long double least = std::ldexp(1.0L, half ? -126 : -1022);
                           out.error = (k * u * (std::fabs(dy[e]) + std::fabs(g) * c_terms) +
                                        (std::fabs(g) < least ? std::fabs(g) * c_terms : 0)) /
                                       d;
                       }
                   });
    return result;
}

bool normalize_gradient_matches(DType dtype, const NormalizedGradient &expected, long double got) {
    const long double v = expected.value;
    if (std::isnan(v)) return std::isnan(got);
    if (std::isnan(got)) return false;
    // Beyond the dtype's range (dy / d of a tiny d): the rounding gives inf of v's sign.
    if (std::isinf(round_to_dtype(dtype, v)) && std::isinf(got) && (got > 0) == (v > 0)) {
        return true;
    }
    const long double tolerance = expected.error + ulp_at(dtype, std::fabs(v) + expected.error) / 2;
    return std::fabs(got - v) <= tolerance;
}

}  // namespace lpnorm::ref
