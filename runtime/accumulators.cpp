#include "accumulators.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernel_abi.h"

namespace lpnorm::rt {
namespace {

// Round to nearest even, as the kernels' casts do. NaN becomes the positive quiet NaN.
uint16_t float_to_half_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000);
    const uint32_t mag = x & 0x7fffffff;
    if (mag > 0x7f800000) return 0x7e00;
    if (mag >= 0x477ff000) return sign | 0x7c00;  // at or above 65520: rounds to inf
    if (mag < 0x38800000) {                       // below 2^-14: subnormal or zero
        float v;
        std::memcpy(&v, &mag, 4);
        return sign | uint16_t(std::nearbyint(v * 16777216.0f));  // units of 2^-24
    }
    uint32_t h = (((mag >> 23) - 112) << 10) | ((mag & 0x7fffff) >> 13);
    const uint32_t rest = mag & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return uint16_t(sign | h);
}

uint16_t float_to_bfloat_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) return 0x7fc0;
    return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

template <typename T>
void store(void *out, T v) {
    std::memcpy(out, &v, sizeof(T));
}

// Truncate toward zero and saturate; v >= 0 (a norm).
template <typename T>
void store_integer(void *out, double v) {
    const int value_bits = std::numeric_limits<T>::digits;  // 7 for int8, 8 for uint8, ...
    const T value = v >= std::ldexp(1.0, value_bits) ? std::numeric_limits<T>::max() : T(v);
    store(out, value);
}

template <typename Acc>
Acc sum_root(Acc s, int p_kind, double p) {
    if (!std::isfinite(s)) return s;  // NaN and inf sums are their own norm
    switch (p_kind) {
    case abi::kL2: return std::sqrt(s);
    case abi::kL3: return std::cbrt(s);
    case abi::kLp: return std::pow(s, Acc(1) / Acc(p));
    default: return s;  // L1 and count
    }
}

}  // namespace

void store_norm(DType output, double v, void *out) {
    switch (output) {
    case DType::float32:
        store(out, std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : float(v));
        return;
    case DType::float64:
        store(out, std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v);
        return;
    case DType::float16: store(out, float_to_half_bits(float(v))); return;
    case DType::bfloat16: store(out, float_to_bfloat_bits(float(v))); return;
    case DType::int8: store_integer<int8_t>(out, v); return;
    case DType::uint8: store_integer<uint8_t>(out, v); return;
    case DType::int16: store_integer<int16_t>(out, v); return;
    case DType::uint16: store_integer<uint16_t>(out, v); return;
    case DType::int32: store_integer<int32_t>(out, v); return;
    case DType::uint32: store_integer<uint32_t>(out, v); return;
    case DType::int64: store_integer<int64_t>(out, v); return;
    case DType::uint64: store_integer<uint64_t>(out, v); return;
    }
}

namespace {

// Decodes an extreme key (reduce_algorithm.cpp, extreme_key) into |x| of the output dtype.
template <typename Key>
void finish_extreme(int p_kind, DType output, Key key, void *out) {
    const bool max_abs = p_kind == abi::kMaxAbs;
    if (is_floating(output)) {
        const Key sign_clear = Key(~Key(0)) >> 1;
        store(out, Key((max_abs ? Key(~key) : Key(key - 1)) & sign_clear));
        return;
    }
    const uint64_t magnitude = max_abs ? Key(~key) : key;
    switch (output) {
    case DType::int8: store(out, int8_t(std::min<uint64_t>(magnitude, INT8_MAX))); return;
    case DType::int16: store(out, int16_t(std::min<uint64_t>(magnitude, INT16_MAX))); return;
    case DType::int32: store(out, int32_t(std::min<uint64_t>(magnitude, INT32_MAX))); return;
    case DType::int64: store(out, int64_t(std::min<uint64_t>(magnitude, INT64_MAX))); return;
    default: store(out, Key(magnitude)); return;  // unsigned: |x| = x
    }
}

template <typename T, typename Op>
void combine_as(void *acc, const void *more, int64_t n, Op op) {
    T *a = static_cast<T *>(acc);
    const T *m = static_cast<const T *>(more);
    for (int64_t i = 0; i < n; i++) {
        a[i] = op(a[i], m[i]);
    }
}

template <typename T>
T load(const void *p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

}  // namespace

double load_as_double(DType d, const void *data) {
    const auto *p = static_cast<const unsigned char *>(data);
    const auto as = [p](auto v) {
        std::memcpy(&v, p, sizeof(v));
        return v;
    };
    switch (d) {
    case DType::float32: return as(float(0));
    case DType::float64: return as(double(0));
    case DType::float16: {
        const uint16_t h = as(uint16_t(0));
        const int exponent = (h >> 10) & 0x1f;
        const double mantissa = h & 0x3ff;
        const double magnitude = exponent == 0x1f
                                     ? (mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                                                      : std::numeric_limits<double>::infinity())
                                 : exponent == 0 ? std::ldexp(mantissa, -24)
                                                 : std::ldexp(mantissa + 1024, exponent - 25);
        return (h & 0x8000) ? -magnitude : magnitude;
    }
    case DType::bfloat16: {
        const uint32_t bits = uint32_t(as(uint16_t(0))) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DType::int8: return as(int8_t(0));
    case DType::uint8: return as(uint8_t(0));
    case DType::int16: return as(int16_t(0));
    case DType::uint16: return as(uint16_t(0));
    case DType::int32: return as(int32_t(0));
    case DType::uint32: return as(uint32_t(0));
    case DType::int64: return double(as(int64_t(0)));
    case DType::uint64: return double(as(uint64_t(0)));
    }
    return 0;
}

DType partial_dtype(Reducer reducer, DType input) {
    if (reducer == Reducer::sum) {
        const int bits = abi::sum_accumulator_bits(is_floating(input), 8 * dtype_size(input));
        return bits == 32 ? DType::float32 : DType::float64;
    }
    switch (dtype_size(input)) {
    case 1: return DType::uint8;
    case 2: return DType::uint16;
    case 4: return DType::uint32;
    default: return DType::uint64;
    }
}

void combine_partials(DType acc_dtype, void *acc, const void *more, int64_t n) {
    const auto add = [](auto a, auto b) { return a + b; };
    const auto min = [](auto a, auto b) { return std::min(a, b); };
    switch (acc_dtype) {
    case DType::float32: combine_as<float>(acc, more, n, add); return;
    case DType::float64: combine_as<double>(acc, more, n, add); return;
    case DType::uint8: combine_as<uint8_t>(acc, more, n, min); return;
    case DType::uint16: combine_as<uint16_t>(acc, more, n, min); return;
    case DType::uint32: combine_as<uint32_t>(acc, more, n, min); return;
    case DType::uint64: combine_as<uint64_t>(acc, more, n, min); return;
    default: return;  // partial_dtype() gives no other
    }
}

void finish_partial(Reducer reducer, int p_kind, double p, DType output, const void *acc,
                    void *out) {
    if (reducer == Reducer::sum) {
        if (partial_dtype(reducer, output) == DType::float32) {
            store_norm(output, sum_root(load<float>(acc), p_kind, p), out);
        } else {
            store_norm(output, sum_root(load<double>(acc), p_kind, p), out);
        }
        return;
    }
    switch (dtype_size(output)) {
    case 1: finish_extreme(p_kind, output, load<uint8_t>(acc), out); return;
    case 2: finish_extreme(p_kind, output, load<uint16_t>(acc), out); return;
    case 4: finish_extreme(p_kind, output, load<uint32_t>(acc), out); return;
    default: finish_extreme(p_kind, output, load<uint64_t>(acc), out); return;
    }
}

}  // namespace lpnorm::rt
