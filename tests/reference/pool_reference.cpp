#include "reference/pool_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "reference/powers.h"

namespace lpnorm::ref {
namespace {

using ld = long double;
using i128 = __int128;

constexpr i128 kInt64Max = std::numeric_limits<int64_t>::max();
const ld kNaN = std::numeric_limits<ld>::quiet_NaN();

std::string str(i128 v) { return std::to_string(static_cast<long long>(v)); }

std::string item(const char *name, size_t i) {
    return std::string(name) + "[" + std::to_string(i) + "]";
}

// Shortest decimal that reads back as `v`.
std::string num(double v) {
    std::ostringstream s;
    for (int digits = 1; digits <= 17; ++digits) {
        s.str("");
        s.precision(digits);
        s << v;
        if (std::isnan(v) || std::stod(s.str()) == v) break;
    }
    return s.str();
}

bool fail(std::string *error, const std::string &message) {
    *error = message;
    return false;
}

// A per-spatial-dim list that is empty (all 1) or holds `spatial` values, each >= 1.
bool check_unit_list(const char *name, const std::vector<int64_t> &v, size_t spatial,
                     std::string *error) {
    if (!v.empty() && v.size() != spatial)
        return fail(error, std::string(name) + " has " + std::to_string(v.size()) +
                               " values; expected 0 or " + std::to_string(spatial) +
                               " (1 per spatial dim)");
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] < 1) return fail(error, item(name, i) + " = " + str(v[i]) + " must be >= 1");
    return true;
}

bool check_attributes(const std::vector<int64_t> &shape, const PoolParams &params,
                      std::string *error) {
    const size_t spatial = params.kernel.size();
    if (spatial < 1 || spatial > 3)
        return fail(error, "kernel has " + std::to_string(spatial) +
                               " values; expected 1, 2 or 3 (1 per spatial dim)");
    if (shape.size() != spatial + 2)
        return fail(error, "input rank " + std::to_string(shape.size()) +
                               " does not match kernel: expected rank " +
                               std::to_string(spatial + 2) + " (N, C and " +
                               std::to_string(spatial) + " spatial dims)");
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 0)
            return fail(error, "input shape[" + std::to_string(i) + "] = " + str(shape[i]) +
                                   " must be >= 0");
    for (size_t i = 0; i < spatial; ++i)
        if (params.kernel[i] < 1)
            return fail(error, item("kernel", i) + " = " + str(params.kernel[i]) + " must be >= 1");
    if (!check_unit_list("strides", params.strides, spatial, error)) return false;
    if (!check_unit_list("dilations", params.dilations, spatial, error)) return false;
    if (!params.pads.empty() && params.pads.size() != 2 * spatial)
        return fail(error, "pads has " + std::to_string(params.pads.size()) +
                               " values; expected 0 or " + std::to_string(2 * spatial) +
                               " (2 per spatial dim)");
    for (size_t i = 0; i < params.pads.size(); ++i)
        if (params.pads[i] < 0)
            return fail(error, item("pads", i) + " = " + str(params.pads[i]) + " must be >= 0");
    if (!(std::isfinite(params.p) && params.p > 0))
        return fail(error, "p = " + num(params.p) + " must be finite and > 0");
    const int auto_pad = static_cast<int>(params.auto_pad);
    if (auto_pad < 0 || auto_pad > 3)
        return fail(error, "auto_pad = " + std::to_string(auto_pad) +
                               " must be notset (0), same_upper (1), same_lower (2) or valid (3)");
    const int mode = static_cast<int>(params.mode);
    if (mode < 0 || mode > 1)
        return fail(error, "mode = " + std::to_string(mode) + " must be abs (0) or signed_pow (1)");
    const int overhang = static_cast<int>(params.overhang);
    if (overhang < 0 || overhang > 1)
        return fail(error,
                    "overhang = " + std::to_string(overhang) + " must be sum (0) or rescale (1)");
    return true;
}

// Pads and output size of spatial dim i (input dim i + 2); the attributes are valid.
bool resolve_axis(const std::vector<int64_t> &shape, const PoolParams &params, size_t i,
                  PoolAxis *a, std::string *error) {
    const size_t spatial = params.kernel.size();
    a->input = shape[i + 2];
    a->kernel = params.kernel[i];
    a->stride = params.strides.empty() ? 1 : params.strides[i];
    a->dilation = params.dilations.empty() ? 1 : params.dilations[i];
    const std::string dim = "input shape[" + std::to_string(i + 2) + "] = " + str(a->input);
    const std::string kernel_desc = item("kernel", i) + " = " + str(a->kernel) + ", " +
                                    item("dilations", i) + " = " + str(a->dilation);
    const i128 in = a->input, s = a->stride;
    const i128 k_eff = static_cast<i128>(a->kernel - 1) * a->dilation + 1;
    if (k_eff > kInt64Max)
        return fail(error, "dilated kernel (" + kernel_desc + ") overflows int64");

    if (params.auto_pad == AutoPad::same_upper || params.auto_pad == AutoPad::same_lower) {
        const char *name = params.auto_pad == AutoPad::same_upper ? "same_upper" : "same_lower";
        if (in == 0)
            return fail(error, dim + " gives no output under auto_pad " + name + " (ceil(0 / " +
                                   item("strides", i) + ") = 0)");
        const i128 out = (in + s - 1) / s;
        const i128 total = std::max<i128>(0, (out - 1) * s + k_eff - in);
        const i128 begin = params.auto_pad == AutoPad::same_upper ? total / 2 : total - total / 2;
        a->pad_begin = static_cast<int64_t>(begin);
        a->pad_end = static_cast<int64_t>(total - begin);
        a->output = static_cast<int64_t>(out);
        return true;
    }

    a->pad_begin = a->pad_end = 0;
    if (params.auto_pad == AutoPad::notset && !params.pads.empty()) {
        a->pad_begin = params.pads[i];
        a->pad_end = params.pads[i + spatial];
    }
    const i128 pb = a->pad_begin, pe = a->pad_end;
    const std::string padded_desc = dim + " with pads " + str(pb) + " + " + str(pe);
    const i128 padded = in + pb + pe;
    if (padded > kInt64Max) return fail(error, padded_desc + " overflows int64");
    if (padded < k_eff)
        return fail(error, padded_desc + " = " + str(padded) +
                               " is smaller than the dilated kernel " + str(k_eff) + " (" +
                               kernel_desc + ")");
    i128 out = params.ceil_mode ? (padded - k_eff + s - 1) / s + 1 : (padded - k_eff) / s + 1;
    // A last window that would start in the end padding is dropped.
    if (params.ceil_mode && (out - 1) * s >= in + pb) --out;
    if (out < 1)
        return fail(
            error,
            padded_desc + ": ceil_mode drops the only window, which starts in the end padding");
    a->output = static_cast<int64_t>(out);
    return true;
}

// ---- Values --------------------------------------------------------------------------------

bool pool_dtype(DType d) {
    return d == DType::float32 || d == DType::float64 || d == DType::float16 ||
           d == DType::bfloat16;
}

// The taps of one window along one spatial dim.
struct AxisWindow {
    std::vector<int64_t> positions;  // in-bounds input positions, in tap order
    int64_t inside_pads = 0;         // taps within [-pad_begin, input + pad_end)
};

AxisWindow axis_window(const PoolAxis &a, int64_t o) {
    AxisWindow w;
    for (int64_t j = 0; j < a.kernel; ++j) {
        const int64_t t = o * a.stride - a.pad_begin + j * a.dilation;
        if (t >= -a.pad_begin && t < a.input + a.pad_end) ++w.inside_pads;
        if (t >= 0 && t < a.input) w.positions.push_back(t);
    }
    return w;
}

// Advances a row-major index over `extent`; false once it wraps to all zeros.
bool next_index(std::vector<int64_t> *idx, const std::vector<int64_t> &extent) {
    for (size_t k = idx->size(); k-- > 0;) {
        if (++(*idx)[k] < extent[k]) return true;
        (*idx)[k] = 0;
    }
    return false;
}

// IEEE pow for a negative base b and exponent e > 0: odd integer e keeps the sign, even
// loses it, any other gives NaN, except for b = -inf, whose power is +inf.
ld negative_pow(ld b, ld e) {
    if (e != std::floor(e)) return std::isinf(b) ? HUGE_VALL : kNaN;
    const ld magnitude = power(-b, e);
    return std::fmod(e, 2) == 1 ? -magnitude : magnitude;
}

// x^p (signed_pow) or |x|^p (abs), as IEEE pow; PyTorch's pow takes x^0.5 as sqrt(x), NaN
// for every x < 0, -inf included.
ld term(ld x, ld p, PoolMode mode) {
    const ld b = mode == PoolMode::abs ? std::fabs(x) : x;
    if (b < 0 && p == 0.5L) return kNaN;
    if (b < 0 && p != std::floor(p)) return negative_pow(b, p);
    return power(b, p);
}

// S^(1/p) as IEEE pow with the exponent 1/p formed in double, as PyTorch forms it: a negative
// S (signed mode) gives NaN unless 1/p is an integer, and -inf gives +inf.
ld root(ld s, ld p) {
    if (p == 1 || std::isnan(s)) return s;
    if (s < 0) return negative_pow(s, 1.0 / double(p));
    if (p == 2) return std::sqrt(s);
    if (p == 3) return std::cbrt(s);
    return std::pow(s, 1 / p);
}

struct Accum {
    ld sum = 0, abs_sum = 0;
    LogRange logs;
    int64_t n = 0;

    void add(ld x, ld p, PoolMode mode) {
        const ld t = term(x, p, mode);
        sum += t;
        abs_sum += std::fabs(t);
        ++n;
        logs.add(std::fabs(x));
    }
};

// The expected value of one output position, `window` holding its taps along each spatial dim
// and `offset` the element offset of its (n, c) plane.
Value window_value(const Tensor &input, int64_t offset,
                   const std::vector<const AxisWindow *> &window, ld kernel_volume,
                   const PoolParams &params) {
    const size_t spatial = window.size();
    std::vector<int64_t> extent(spatial);
    ld inside = 1;
    for (size_t d = 0; d < spatial; ++d) {
        extent[d] = static_cast<int64_t>(window[d]->positions.size());
        inside *= static_cast<ld>(window[d]->inside_pads);
    }
    Accum acc;
    const auto *base = static_cast<const unsigned char *>(input.data);
    const int64_t elem = static_cast<int64_t>(dtype_size(input.dtype));
    std::vector<int64_t> j(spatial, 0);
    bool more = std::find(extent.begin(), extent.end(), 0) == extent.end();
    while (more) {
        int64_t at = offset;
        for (size_t d = 0; d < spatial; ++d)
            at += window[d]->positions[static_cast<size_t>(j[d])] * input.strides[d + 2];
        acc.add(load(input.dtype, base + at * elem), params.p, params.mode);
        more = next_index(&j, extent);
    }
    Value v;
    v.n = acc.n;
    v.max_log = acc.logs.max_abs_log();
    if (params.overhang == Overhang::rescale && inside > 0 && inside < kernel_volume)
        v.scale = kernel_volume / inside;
    v.sum = acc.sum * v.scale;
    v.abs_sum = acc.abs_sum * v.scale;
    v.value = root(v.sum, params.p);
    return v;
}

}  // namespace

bool pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                   std::vector<PoolAxis> *axes, std::string *error) {
    if (!check_attributes(input_shape, params, error)) return false;
    std::vector<PoolAxis> resolved(params.kernel.size());
    for (size_t i = 0; i < resolved.size(); ++i)
        if (!resolve_axis(input_shape, params, i, &resolved[i], error)) return false;
    *axes = resolved;
    return true;
}

std::vector<int64_t> pool_output_shape_ref(const std::vector<int64_t> &input_shape,
                                           const PoolParams &params, std::string *error) {
    std::vector<PoolAxis> axes;
    if (!pool_geometry(input_shape, params, &axes, error)) return {};
    std::vector<int64_t> shape = {input_shape[0], input_shape[1]};
    for (const PoolAxis &a : axes) shape.push_back(a.output);
    return shape;
}

Result pool(const Tensor &input, const PoolParams &params) {
    Result result;
    if (input.rank < 0 || input.rank > kMaxRank) {
        result.error = "input rank " + std::to_string(input.rank) + " is invalid";
        return result;
    }
    if (!pool_dtype(input.dtype)) {
        result.error = std::string("input dtype ") + dtype_name(input.dtype) +
                       " is not supported; expected float32, float64, float16 or bfloat16";
        return result;
    }
    std::vector<PoolAxis> axes;
    const std::vector<int64_t> in_shape = input.shape_vector();
    if (!pool_geometry(in_shape, params, &axes, &result.error)) return result;
    if (input.data == nullptr && input.num_elements() > 0) {
        result.error = "input data is null";
        return result;
    }
    result.shape = pool_output_shape_ref(in_shape, params, &result.error);
    result.ok = true;

    const size_t spatial = axes.size();
    std::vector<std::vector<AxisWindow>> windows(spatial);  // [dim][output position]
    std::vector<int64_t> out_extent(spatial);
    ld kernel_volume = 1;
    for (size_t d = 0; d < spatial; ++d) {
        for (int64_t o = 0; o < axes[d].output; ++o) windows[d].push_back(axis_window(axes[d], o));
        out_extent[d] = axes[d].output;
        kernel_volume *= static_cast<ld>(axes[d].kernel);
    }

    for (int64_t n = 0; n < in_shape[0]; ++n) {
        for (int64_t c = 0; c < in_shape[1]; ++c) {
            std::vector<int64_t> o(spatial, 0);
            do {
                std::vector<const AxisWindow *> window(spatial);
                for (size_t d = 0; d < spatial; ++d)
                    window[d] = &windows[d][static_cast<size_t>(o[d])];
                result.values.push_back(window_value(input,
                                                     n * input.strides[0] + c * input.strides[1],
                                                     window, kernel_volume, params));
            } while (next_index(&o, out_extent));
        }
    }
    return result;
}

// ---- Tolerance -----------------------------------------------------------------------------
//
// The kernels compute float16, bfloat16 and float32 in float32 (float32 may accumulate wider,
// which only tightens every step below) and float64 in float64. u is that accumulator's unit
// roundoff (2^-24 or 2^-53), gamma_k = k*u / (1 - k*u). Inputs convert to it exactly.
//
// 1. Term t = |x|^p or x^p: integer p up to kMaxChainPower by a chain of products, whose
//    relative error is at most (1+u)^(p-1) - 1 whatever the chain (err(x^a * x^b) <=
//    err(x^a) + err(x^b) + u, with err(x) = 0): p = 1 exact, p = 2 u, p = 7 about 6u; other p:
//    pow within 2 ulps (4u), plus, when p is not representable in the accumulator, the
//    rounded exponent:
//    |x|^(p(1+d)) = |x|^p * exp(p*ln|x|*d), i.e. p*max|ln|x||*u. Call the bound e_t.
// 2. Sum of the n in-bounds terms in any order (lanes, trees, separable row-then-column sums;
//    padded taps add exact zeros): |S^ - S| <= ((1+e_t)(1+gamma_{n-1}) - 1) * sum|t|. In abs
//    mode sum|t| = S; in signed mode (odd p) it is what bounds the cancellation.
// 3. Overhang rescale by K/n: the factor formed with at most two roundings (K/n, or K * (1/n))
//    and applied with one product: e_k = (1+u)^3 - 1 on top of step 2.
// 4. Range: where a power leaves the accumulator's range, lpnorm recomputes the output from
//    scaled terms (runtime/range_repair.h), well inside this bound: no slack. Except for
//    float32 inputs summed in float32 (abs mode, and signed mode with an even or fractional
//    p) on the GPU backends, which are not repaired (the CPU's repair is held to the exact
//    result by test_accuracy and test_range_repair): there a term below the normal range
//    carries an absolute error of at most 2 subnormal ulps (pow), or (p-1)/2 of one (products
//    of factors <= 1); sums of subnormals are exact. When some term may be that small
//    (exp(-p*max_log) below the normal range), add 2*(n+1)*denorm_min, the rescale's roundings
//    included.
//    So S^ lies in [S - D, S + D] with D the bound of steps 2-4 plus (n+16)*2^-63*sum|t| for
//    this reference's own long-double arithmetic (sum, powl or at most 4 products, the
//    factor K/n).
// 5. Root y = S^(1/p), monotone in S: p = 1 none (y = S, sign kept in signed mode); p = 2
//    sqrt correctly rounded (u); other p pow/cbrt within 2 ulps (4u) plus the rounded
//    exponent 1/p: |ln y|*u; plus 2^-62 for the reference's powl/cbrtl/sqrtl. For p < 1 the
//    root may land in the subnormal range: 2*denorm_min absolute. Bounds:
//    [root(S-D)(1-e_r) - a, root(S+D)(1+e_r) + a].
//    Signed mode, p != 1: where S - D < 0, the kernel's sum may be negative, so NaN is correct
//    too; where S + D < 0 only NaN is.
// 6. Overflow, where not repaired (float32 as in 4): the accumulator holds terms and partial
//    sums up to sum|t| (times K when the rescale forms S*K before dividing). Where that, with
//    the errors of 1-3, reaches the accumulator's overflow threshold, +inf is correct too (abs
//    mode), and -inf and NaN (inf - inf) in signed mode.
// 7. Final conversion to the output dtype rounds to nearest, monotone: every result lies in
//    [conv(lo), conv(hi)].
// Hard NaN (a NaN tap, x < 0 with fractional p or inf - inf in signed mode, a -inf sum with
// p != 1) admits only NaN; an infinite expected value admits only itself.
namespace {

// Integer powers up to this are products in the kernels (above it, pow).
constexpr long double kMaxChainPower = 64;

struct Accumulator {
    DType type;
    ld u, denorm_min, normal_min, overflow;
};

Accumulator accumulator(DType dtype) {
    if (dtype == DType::float64)
        return {DType::float64, std::ldexp(1.0L, -53), std::ldexp(1.0L, -1074),
                std::ldexp(1.0L, -1022), std::ldexp(2.0L - std::ldexp(1.0L, -53), 1023)};
    return {DType::float32, std::ldexp(1.0L, -24), std::ldexp(1.0L, -149), std::ldexp(1.0L, -126),
            std::ldexp(2.0L - std::ldexp(1.0L, -24), 127)};
}

bool representable(const Accumulator &a, ld x) { return round_to_dtype(a.type, x) == x; }

ld term_error(const Accumulator &a, ld p, ld max_log) {
    if (p == std::floor(p) && p <= kMaxChainPower) return std::pow(1 + a.u, p - 1) - 1;
    return 4 * a.u + (representable(a, p) ? 0 : p * max_log * a.u);
}

// Relative error bound of the kernel's root at result y (y > 0), the reference's included.
ld root_error(const Accumulator &a, ld p, ld y) {
    const ld own = std::ldexp(1.0L, -62);
    if (p == 2) return a.u + own;
    return 4 * a.u + (representable(a, 1 / p) ? 0 : std::fabs(std::log(y)) * a.u) + own;
}

ld root_low(const Accumulator &a, ld p, ld s) {
    const ld y = root(s, p);
    if (y == 0) return 0;
    const ld abs_err = p < 1 ? 2 * a.denorm_min : 0;
    return std::max<ld>(0, y * (1 - root_error(a, p, y)) - abs_err);
}

ld root_high(const Accumulator &a, ld p, ld s) {
    const ld y = root(s, p);
    if (y == 0) return 0;
    const ld abs_err = p < 1 ? 2 * a.denorm_min : 0;
    return y * (1 + root_error(a, p, y)) + abs_err;
}

}  // namespace

PoolRange pool_allowed_range(DType dtype, const PoolParams &params, const Value &expected) {
    PoolRange r;
    const ld v = expected.value;
    if (std::isnan(v) && !std::isfinite(expected.sum)) {
        r.range = false;
        r.nan = true;
        return r;
    }
    if (std::isinf(v)) {
        r.lo = r.hi = v;
        return r;
    }
    const bool is_signed = params.mode == PoolMode::signed_pow;
    const Accumulator a = accumulator(dtype);
    const ld p = params.p, u = a.u;
    const ld n = static_cast<ld>(expected.n);
    const ld k = std::max<ld>(n - 1, 0);
    const ld gamma = k * u / (1 - k * u);
    const ld e_t = term_error(a, p, expected.max_log);
    const ld e_k = expected.scale == 1 ? 0 : (1 + u) * (1 + u) * (1 + u) - 1;
    const ld e_own = (n + 16) * std::ldexp(1.0L, -63);
    const ld growth = (1 + e_t) * (1 + gamma) * (1 + e_k);
    // float32 sums in float32 keep their range (steps 4 and 6); signed odd p sums in float64.
    const bool odd_p = p == std::floor(p) && std::fmod(p, 2.0L) == 1;
    const bool range_kept = dtype == DType::float32 && !(is_signed && odd_p);
    const bool tiny_terms =
        range_kept && expected.max_log > 0 && -p * expected.max_log < std::log(a.normal_min);
    const ld underflow = tiny_terms ? 2 * (n + 1) * a.denorm_min * expected.scale * (1 + e_k) : 0;
    const ld D = expected.abs_sum * (growth * (1 + e_own) - 1) + underflow;
    ld s_lo = expected.sum - D, s_hi = expected.sum + D;
    if (!is_signed) s_lo = std::max<ld>(s_lo, 0);

    ld kernel_volume = 1;
    for (int64_t kd : params.kernel) kernel_volume *= static_cast<ld>(kd);
    const ld raw_abs_sum = expected.abs_sum / expected.scale;
    const ld peak = expected.scale == 1 ? raw_abs_sum : raw_abs_sum * kernel_volume;
    if (range_kept && peak * growth >= a.overflow) {
        r.pos_inf = true;
        r.neg_inf = r.nan = is_signed;
    }

    ld y_lo = s_lo, y_hi = s_hi;
    if (p != 1) {
        if (s_hi < 0) {
            r.range = false;
            r.nan = true;
            return r;
        }
        if (s_lo < 0) {
            r.nan = true;
            s_lo = 0;
        }
        y_lo = root_low(a, p, s_lo);
        y_hi = root_high(a, p, s_hi);
    }
    r.lo = round_to_dtype(dtype, y_lo);
    r.hi = round_to_dtype(dtype, y_hi);
    return r;
}

bool pool_matches(DType dtype, const PoolParams &params, const Value &expected, long double got) {
    const PoolRange r = pool_allowed_range(dtype, params, expected);
    if (std::isnan(got)) return r.nan;
    if (got == HUGE_VALL && r.pos_inf) return true;
    if (got == -HUGE_VALL && r.neg_inf) return true;
    return r.range && got >= r.lo && got <= r.hi;
}

}  // namespace lpnorm::ref
