#include "reference/reduce_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "reference/powers.h"

namespace lpnorm::ref {
namespace {

using ld = long double;

// Round `v` to nearest (ties to even) in a binary format with `prec` significand bits (the
// implicit bit included), normal exponents in [emin, emax], subnormals and overflow to inf.
// v / quantum is exact (a power-of-two scaling of a long double) and nearbyintl rounds to
// nearest even in the default rounding mode.
ld round_format(ld v, int prec, int emin, int emax) {
    if (std::isnan(v) || std::isinf(v) || v == 0) return v;
    int e = 0;
    std::frexp(std::fabs(v), &e);  // |v| in [2^(e-1), 2^e)
    const int lead = std::max(e - 1, emin);
    const ld quantum = std::ldexp(1.0L, lead - (prec - 1));
    const ld r = std::nearbyint(v / quantum) * quantum;
    const ld max_finite = std::ldexp(2.0L - std::ldexp(1.0L, -(prec - 1)), emax);
    if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<ld>::infinity(), v);
    return r;
}

template <typename T>
ld truncate_saturate(ld v) {
    if (std::isnan(v)) return 0;
    const ld lo = static_cast<ld>(std::numeric_limits<T>::min());
    const ld hi = static_cast<ld>(std::numeric_limits<T>::max());  // exact: 64-bit significand
    v = std::trunc(v);
    return std::min(std::max(v, lo), hi);
}

template <typename T>
T read_as(const void *ptr) {
    T value;
    std::memcpy(&value, ptr, sizeof(T));
    return value;
}

template <typename T>
void write_as(void *ptr, T value) {
    std::memcpy(ptr, &value, sizeof(T));
}

bool is_int64_like(DType d) { return d == DType::int64 || d == DType::uint64; }

bool floating(DType d) {
    return d == DType::float32 || d == DType::float16 || d == DType::bfloat16 ||
           d == DType::float64;
}

size_t element_size(DType d) {
    switch (d) {
    case DType::int8:
    case DType::uint8: return 1;
    case DType::float16:
    case DType::bfloat16:
    case DType::int16:
    case DType::uint16: return 2;
    case DType::float32:
    case DType::int32:
    case DType::uint32: return 4;
    default: return 8;
    }
}

}  // namespace

// ---- Scalars -------------------------------------------------------------------------------

uint16_t half_bits(ld value) {
    const ld r = round_format(value, 11, -14, 15);
    if (std::isnan(r)) return 0x7e00;
    const uint16_t sign = std::signbit(r) ? 0x8000 : 0;
    const ld a = std::fabs(r);
    if (std::isinf(a)) return sign | 0x7c00;
    if (a < std::ldexp(1.0L, -14)) return sign | static_cast<uint16_t>(a * std::ldexp(1.0L, 24));
    int e = 0;
    std::frexp(a, &e);
    const int lead = e - 1;  // a in [2^lead, 2^(lead+1))
    const auto mant = static_cast<uint16_t>(a * std::ldexp(1.0L, 10 - lead) - 1024);
    return sign | static_cast<uint16_t>((lead + 15) << 10) | mant;
}

ld half_value(uint16_t bits) {
    const ld sign = (bits & 0x8000) ? -1.0L : 1.0L;
    const int e = (bits >> 10) & 0x1f;
    const int m = bits & 0x3ff;
    if (e == 0x1f)
        return m ? std::numeric_limits<ld>::quiet_NaN()
                 : sign * std::numeric_limits<ld>::infinity();
    if (e == 0) return sign * std::ldexp(static_cast<ld>(m), -24);
    return sign * std::ldexp(static_cast<ld>(1024 + m), e - 25);
}

uint16_t bfloat16_bits(ld value) {
    const ld r = round_format(value, 8, -126, 127);
    if (std::isnan(r)) return std::signbit(r) ? 0xffc0 : 0x7fc0;
    const float f = static_cast<float>(r);  // exact: r has 8 significant bits
    uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return static_cast<uint16_t>(u >> 16);
}

ld bfloat16_value(uint16_t bits) {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f = 0;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

ld round_to_dtype(DType dtype, ld v) {
    switch (dtype) {
    case DType::float32: return round_format(v, 24, -126, 127);
    case DType::float16: return round_format(v, 11, -14, 15);
    case DType::bfloat16: return round_format(v, 8, -126, 127);
    case DType::float64: return round_format(v, 53, -1022, 1023);
    case DType::int8: return truncate_saturate<int8_t>(v);
    case DType::uint8: return truncate_saturate<uint8_t>(v);
    case DType::int16: return truncate_saturate<int16_t>(v);
    case DType::uint16: return truncate_saturate<uint16_t>(v);
    case DType::int32: return truncate_saturate<int32_t>(v);
    case DType::uint32: return truncate_saturate<uint32_t>(v);
    case DType::int64: return truncate_saturate<int64_t>(v);
    case DType::uint64: return truncate_saturate<uint64_t>(v);
    }
    return std::numeric_limits<ld>::quiet_NaN();
}

ld load(DType dtype, const void *ptr) {
    switch (dtype) {
    case DType::float32: return read_as<float>(ptr);
    case DType::float16: return half_value(read_as<uint16_t>(ptr));
    case DType::bfloat16: return bfloat16_value(read_as<uint16_t>(ptr));
    case DType::float64: return read_as<double>(ptr);
    case DType::int8: return read_as<int8_t>(ptr);
    case DType::uint8: return read_as<uint8_t>(ptr);
    case DType::int16: return read_as<int16_t>(ptr);
    case DType::uint16: return read_as<uint16_t>(ptr);
    case DType::int32: return read_as<int32_t>(ptr);
    case DType::uint32: return read_as<uint32_t>(ptr);
    case DType::int64: return static_cast<ld>(read_as<int64_t>(ptr));
    case DType::uint64: return static_cast<ld>(read_as<uint64_t>(ptr));
    }
    return std::numeric_limits<ld>::quiet_NaN();
}

void store(DType dtype, void *ptr, ld v) {
    const ld r = round_to_dtype(dtype, v);
    switch (dtype) {
    case DType::float32: write_as(ptr, static_cast<float>(r)); break;
    case DType::float16: write_as(ptr, half_bits(r)); break;
    case DType::bfloat16: write_as(ptr, bfloat16_bits(r)); break;
    case DType::float64: write_as(ptr, static_cast<double>(r)); break;
    case DType::int8: write_as(ptr, static_cast<int8_t>(r)); break;
    case DType::uint8: write_as(ptr, static_cast<uint8_t>(r)); break;
    case DType::int16: write_as(ptr, static_cast<int16_t>(r)); break;
    case DType::uint16: write_as(ptr, static_cast<uint16_t>(r)); break;
    case DType::int32: write_as(ptr, static_cast<int32_t>(r)); break;
    case DType::uint32: write_as(ptr, static_cast<uint32_t>(r)); break;
    case DType::int64: write_as(ptr, static_cast<int64_t>(r)); break;
    case DType::uint64: write_as(ptr, static_cast<uint64_t>(r)); break;
    }
}

// ---- Reduction -----------------------------------------------------------------------------

bool reduced_dims(const std::vector<int64_t> &shape, const ReduceParams &params,
                  std::vector<bool> *reduced, std::string *error) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (rank > kMaxRank) return *error = "rank " + std::to_string(rank) + " > 8", false;
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 0) return *error = "shape[" + std::to_string(i) + "] < 0", false;
    const auto policy = static_cast<int>(params.empty_axes);
    if (policy < 0 || policy > 2) return *error = "empty_axes = " + std::to_string(policy), false;
    const double p = params.p;
    if (std::isnan(p) || (p < 0 && p != -HUGE_VAL))
        return *error = "p = " + std::to_string(p), false;

    reduced->assign(shape.size(), false);
    for (size_t i = 0; i < params.axes.size(); ++i) {
        int64_t a = params.axes[i];
        if (a < -rank || a >= rank)
            return *error = "axes[" + std::to_string(i) + "] = " + std::to_string(a), false;
        if (a < 0) a += rank;
        if ((*reduced)[a]) return *error = "axes[" + std::to_string(i) + "] duplicate", false;
        (*reduced)[a] = true;
    }
    if (params.axes.empty() && params.empty_axes == EmptyAxes::reduce_all)
        reduced->assign(shape.size(), true);
    return true;
}

namespace {

bool elementwise_policy(const ReduceParams &params) {
    return params.axes.empty() && params.empty_axes != EmptyAxes::reduce_all;
}

}  // namespace

bool output_shape(const std::vector<int64_t> &input_shape, const ReduceParams &params,
                  std::vector<int64_t> *shape, std::string *error) {
    std::vector<bool> reduced;
    if (!reduced_dims(input_shape, params, &reduced, error)) return false;
    shape->clear();
    for (size_t i = 0; i < input_shape.size(); ++i) {
        if (!reduced[i])
            shape->push_back(input_shape[i]);
        else if (params.keep_dims)
            shape->push_back(1);
    }
    return true;
}

Result reduce(const Tensor &input, const ReduceParams &params) {
    Result result;
    if (input.rank < 0 || input.rank > kMaxRank) {
        result.error = "rank " + std::to_string(input.rank);
        return result;
    }
    const std::vector<int64_t> in_shape(input.shape, input.shape + input.rank);
    std::vector<bool> reduced;
    if (!reduced_dims(in_shape, params, &reduced, &result.error)) return result;
    output_shape(in_shape, params, &result.shape, &result.error);
    result.ok = true;

    std::vector<int> kept_dims, red_dims;
    for (int i = 0; i < input.rank; ++i) (reduced[i] ? red_dims : kept_dims).push_back(i);
    const size_t elem = element_size(input.dtype);
    const auto *base = static_cast<const unsigned char *>(input.data);
    const double p = params.p;
    const bool copy = elementwise_policy(params);
    const bool identity = copy && params.empty_axes == EmptyAxes::identity;

    // Odometer over `dims`: calls f(offset in elements) in row-major order.
    auto for_each = [&](const std::vector<int> &dims, int64_t start, auto &&f) {
        for (int d : dims)
            if (input.shape[d] == 0) return;
        std::vector<int64_t> idx(dims.size(), 0);
        int64_t off = start;
        while (true) {
            f(off);
            int k = static_cast<int>(dims.size()) - 1;
            for (; k >= 0; --k) {
                const int d = dims[k];
                off += input.strides[d];
                if (++idx[k] < input.shape[d]) break;
                off -= input.strides[d] * input.shape[d];
                idx[k] = 0;
            }
            if (k < 0) return;
        }
    };

    for_each(kept_dims, 0, [&](int64_t out_off) {
        Value v;
        if (copy) {
            const ld x = load(input.dtype, base + out_off * static_cast<int64_t>(elem));
            v.value = identity ? x : std::fabs(x);
            v.n = 1;
            v.exact = true;
            result.values.push_back(v);
            return;
        }
        ld sum = 0, max_abs = 0, min_abs = std::numeric_limits<ld>::infinity();
        LogRange logs;
        int64_t nonzero = 0;
        bool nan = false;
        const bool sums_powers = p != 0 && std::isfinite(p);  // else max, min or a count
        for_each(red_dims, out_off, [&](int64_t off) {
            const ld a = std::fabs(load(input.dtype, base + off * static_cast<int64_t>(elem)));
            ++v.n;
            if (std::isnan(a)) {
                nan = true;
                ++nonzero;
                return;
            }
            if (a != 0) ++nonzero;
            logs.add(a);
            max_abs = std::max(max_abs, a);
            min_abs = std::min(min_abs, a);
            if (sums_powers) sum += power(a, static_cast<ld>(p));
        });
        v.max_log = logs.max_abs_log();
        if (v.n == 0)
            v.value = 0;  // reduction over an empty set gives 0 for every p
        else if (p == 0)
            v.value = static_cast<ld>(nonzero);
        else if (nan)
            v.value = std::numeric_limits<ld>::quiet_NaN();
        else if (p == HUGE_VAL)
            v.value = max_abs;
        else if (p == -HUGE_VAL)
            v.value = min_abs;
        else if (p == 1)
            v.value = sum;
        else if (p == 2)
            v.value = std::sqrt(sum);
        else if (p == 3)
            v.value = std::cbrt(sum);
        else
            v.value = std::pow(sum, 1.0L / static_cast<ld>(p));
        result.values.push_back(v);
    });
    return result;
}

// ---- Tolerance -----------------------------------------------------------------------------
//
// The kernels accumulate float16/bfloat16 in float32 and every other dtype in float64
// (integer L1 may use int64, which is exact where float64 is and so within the same bound);
// with `float32_sums` (the D3D12 kernels) float32 too accumulates in float32.
// Let u be the accumulator's unit roundoff (2^-24 or 2^-53) and gamma_k = k*u / (1 - k*u).
//
// 1. Input conversion: exact, except int64/uint64 beyond 2^53, which round once (u); raised to
//    the power p that becomes (1+u)^p.
// 2. Term |x|^p: p = 1 exact; p = 2 one product (u); p = 3 two products ((1+u)^2 - 1);
//    other p: pow within 2 ulps (4u), plus, when p is not representable in the accumulator
//    type, the rounded exponent: |x|^(p(1+d)) = |x|^p * exp(p*ln|x|*d), i.e. p*max|ln|x||*u.
// 3. Sum of n non-negative terms, each with relative error e_t, in any order (lanes, trees,
//    rfactor): relative error (1+e_t)(1+gamma_{n-1}) - 1 =: e_s (no cancellation is possible).
//    With `float32_blocks` (float32 input, p = 1, 2, 3: the CPU's inner kernels) the terms are
//    float32 (steps 2 with u = 2^-24) and summed in float32 partial sums of at most 8 terms,
//    which are then added in float64: the float32 partial sums add (1+gamma_7) with
//    u = 2^-24, the float64 sums gamma_{n-1} with u = 2^-53, and the root (step 4) is
//    float64's.
// 4. Root: s(1+e_s) -> relative error (1+e_s)^(1/p) - 1 (divides e_s by p), times the root's
//    own error: p = 1 none; p = 2 sqrt is correctly rounded (u); other p pow/cbrt within 2 ulps
//    (4u) plus the rounded exponent 1/p: s^((1/p)(1+d)) = s^(1/p) * exp(ln(s)/p*d), i.e.
//    |ln y|*u where y is the result.
//    E = (1+e_s)^(1/p) * (1+e_r) - 1, plus (n+16)*2^-63 for this reference's own long-double
//    arithmetic (sums, powl/cbrtl/sqrtl within an ulp of 2^-64, whole p up to 8 by at most
//    4 products).
// 5. Final conversion to the output dtype: round to nearest (floats) or truncate and saturate
//    (integers). Both are monotone, so every result the kernel may produce lies in
//    [conv(y(1-E)), conv(y(1+E))]. This is at most one output ulp (or one integer, at a
//    truncation boundary) wider than the exact rounding, and only where the error bound
//    reaches a rounding boundary.
// Integers, exact case: when p is 1, 2 or 3 and the sum is below 2^52, every term and partial
// sum is an integer representable in float64, so steps 1-3 are exact. Then p = 1 is exact, and
// p = 2 is too: for an integer s < 2^52, RN(sqrt(s)) never crosses an integer (sqrt(k^2 - 1)
// is at least 1/(2k) below k, more than half an ulp of k), so truncation gives floor(sqrt(s)).
// p = 3 keeps only the root's error (pow(27, 1/3) may be 2.9999999999999996).
// p = +-inf, p = 0 and the identity/elementwise copies are exact (max/min of exact values,
// a count), except the int64/uint64 conversion of step 1 for max/min.
Range allowed_range(DType dtype, double p, const Value &expected, bool float32_sums,
                    bool float32_blocks) {
    Range r;
    const ld v = expected.value;
    if (std::isnan(v)) {
        r.nan = true;
        return r;
    }
    const bool float32_acc = dtype == DType::float16 || dtype == DType::bfloat16 ||
                             (float32_sums && dtype == DType::float32);
    const ld u = float32_acc ? std::ldexp(1.0L, -24) : std::ldexp(1.0L, -53);
    const bool integer = !floating(dtype);
    const ld two53 = std::ldexp(1.0L, 53);
    auto acc_representable = [&](ld x) {
        return float32_acc ? static_cast<ld>(static_cast<float>(x)) == x
                           : static_cast<ld>(static_cast<double>(x)) == x;
    };

    ld E = 0;
    if (expected.exact || p == 0 || v == 0) {
        E = 0;
    } else if (std::isinf(p)) {
        E = is_int64_like(dtype) && v > two53 ? u : 0;
    } else {
        const ld pl = p;
        const ld max_in = std::exp(expected.max_log);  // bounds the largest |x| from above
        const bool exact_sum =
            integer && (p == 1 || p == 2 || p == 3) && std::pow(v, pl) < std::ldexp(1.0L, 52);
        // The float32 blocks' terms and partial sums (step 3).
        const bool blocks = float32_blocks && !float32_acc && dtype == DType::float32 &&
                            (p == 1 || p == 2 || p == 3);
        const ld u_term = blocks ? std::ldexp(1.0L, -24) : u;
        const ld block_gamma = blocks ? float32_block_gamma() : 0;
        ld e_t = 0, e_s = 0;
        if (!exact_sum) {
            const ld e_conv = is_int64_like(dtype) && max_in > two53 ? std::pow(1 + u, pl) - 1 : 0;
            ld e_op = 0;
            if (p == 2)
                e_op = u_term;
            else if (p == 3)
                e_op = (1 + u_term) * (1 + u_term) - 1;
            else if (p != 1)
                e_op = pow_error(dtype == DType::float32, u) +
                       (acc_representable(pl) ? 0 : pl * expected.max_log * u);
            e_t = (1 + e_conv) * (1 + e_op) - 1;
            const ld k = static_cast<ld>(std::max<int64_t>(expected.n - 1, 0));
            const ld gamma = k * u / (1 - k * u);
            e_s = (1 + e_t) * (1 + block_gamma) * (1 + gamma) - 1;
        }
        ld e_r = 0;
        if (p == 2)
            e_r = exact_sum ? 0 : u;
        else if (p != 1) {
            const ld inv = 1.0L / pl;
            e_r = 4 * u + (acc_representable(inv) ? 0 : std::fabs(std::log(v)) * u);
        }
        E = std::pow(1 + e_s, 1 / pl) * (1 + e_r) - 1;
        // The reference's own rounding; none in the exact integer case of p = 1 and 2, where the
        // long-double sum, sqrtl and the result are exact or an irrational sqrt far from integers.
        if (!(exact_sum && p != 3)) E += static_cast<ld>(expected.n + 16) * std::ldexp(1.0L, -63);
    }
    r.lo = round_to_dtype(dtype, v * (1 - E));
    r.hi = round_to_dtype(dtype, v * (1 + E));
    if (r.lo > r.hi) std::swap(r.lo, r.hi);
    return r;
}

bool matches(DType dtype, double p, const Value &expected, long double got, bool float32_sums,
             bool float32_blocks) {
    const Range r = allowed_range(dtype, p, expected, float32_sums, float32_blocks);
    if (r.nan) return std::isnan(got);
    return !std::isnan(got) && got >= r.lo && got <= r.hi;
}

}  // namespace lpnorm::ref
