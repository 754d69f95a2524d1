#include "range_repair.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "accumulators.h"
#include "integer_norm.h"
#include "kernel_abi.h"
#include "testing.h"
#include "thread_pool.h"
#include "x87_precision.h"

namespace lpnorm::rt {
namespace {

std::atomic<bool> g_range_checks{true};
thread_local bool t_pool_scanned = false;

// log2 of the largest finite and of the smallest non-zero |x| of a dtype.
struct Exponents {
    double max, min;
};

Exponents dtype_exponents(DType d) {
    switch (d) {
    case DType::float32: return {128, -149};
    case DType::float64: return {1024, -1074};
    case DType::float16: return {16, -24};
    case DType::bfloat16: return {128, -133};
    case DType::int8: return {7, 0};
    case DType::uint8: return {8, 0};
    case DType::int16: return {15, 0};
    case DType::uint16: return {16, 0};
    case DType::int32: return {31, 0};
    case DType::uint32: return {32, 0};
    case DType::int64: return {63, 0};
    case DType::uint64: return {64, 0};
    }
    return {0, 0};
}

// The exact-integer value of int64/uint64 elements, which double would round.
long double load_exact(DType d, const unsigned char *p) {
    if (d == DType::int64) {
        int64_t v;
        std::memcpy(&v, p, 8);
        return static_cast<long double>(v);
    }
    if (d == DType::uint64) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return static_cast<long double>(v);
    }
    return load_as_double(d, p);
}

// Whether output value y may carry a range error.
bool flagged(const SumRange &range, DType out, double y, bool signed_mode) {
    if (!is_floating(out)) {  // an overflowed sum saturates the integer
        return range.can_overflow && y >= std::ldexp(1.0, int(dtype_exponents(out).max)) - 1;
    }
    if (std::isnan(y)) return signed_mode && range.can_overflow;  // inf - inf
    const double m = std::fabs(y);
    return (range.can_overflow && std::isinf(m)) || (range.can_underflow && m < range.low);
}

// Calls on_hit(j) for every output j whose magnitude bits fall below those of range.low or
// reach inf's (NaN included), a superset of the flagged ones, in one pass over the bits.
template <typename Bits, typename OnHit>
void scan_float_bits(const unsigned char *data, int64_t count, Bits low, Bits high,
                     OnHit &&on_hit) {
    constexpr int64_t kBlock = 256;
    constexpr Bits kSignClear = Bits(~Bits(0)) >> 1;
    const Bits span = Bits(high - low);
    Bits block[kBlock];
    for (int64_t start = 0; start < count; start += kBlock) {
        const int64_t n = std::min(kBlock, count - start);
        std::memcpy(block, data + start * int64_t(sizeof(Bits)), size_t(n) * sizeof(Bits));
        Bits any = 0;
        for (int64_t k = 0; k < n; k++) {
            any |= Bits(Bits((block[k] & kSignClear) - low) >= span);
        }
        if (!any) continue;
        for (int64_t k = 0; k < n; k++) {
            if (Bits((block[k] & kSignClear) - low) >= span) on_hit(start + k);
        }
    }
}

// The bits of |y| >= v in float dtype `d` (v >= 0, finite or inf).
template <typename Bits>
Bits magnitude_bits_above(DType d, double v) {
    Bits bits = 0;
    store_norm(d, v, &bits);
    return Bits(bits + 1);
}

// Runs body(begin, end) over [0, count) in chunks on the kernels' thread pool.
template <typename Body>
void parallel_chunks(int64_t count, int64_t chunk, Body &body) {
    const int64_t tasks = (count + chunk - 1) / chunk;
    if (tasks <= 1 || tasks > std::numeric_limits<int>::max()) {
        body(int64_t(0), count);
        return;
    }
    struct Closure {
        Body *body;
        int64_t count, chunk;
    } closure{&body, count, chunk};
    const halide_task_t task = [](void *, int i, uint8_t *data) -> int {
        const auto *c = reinterpret_cast<const Closure *>(data);
        const int64_t begin = int64_t(i) * c->chunk;
        (*c->body)(begin, std::min(c->count, begin + c->chunk));
        return 0;
    };
    pool_do_par_for(nullptr, task, 0, int(tasks), reinterpret_cast<uint8_t *>(&closure));
}

// Calls on_hit(j) for the outputs j that may carry a range error, from several threads at
// once (each j once).
template <typename OnHit>
void scan_outputs(const SumRange &range, DType out, const void *data, int64_t count,
                  bool signed_mode, OnHit &&on_hit) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    const size_t size = dtype_size(out);
    const auto check = [&](int64_t j) {
        if (flagged(range, out, load_as_double(out, bytes + j * int64_t(size)), signed_mode))
            on_hit(j);
    };
    const double low = range.can_underflow ? range.low : 0;
    const double inf = std::numeric_limits<double>::infinity();
    const auto scan = [&](int64_t begin, int64_t end) {
        // The recomputations' long double arithmetic, on whichever thread runs the chunk.
        const ExtendedPrecision precision;  // x87_precision.h
        const auto shifted = [&](int64_t j) { check(begin + j); };
        const unsigned char *at = bytes + begin * int64_t(size);
        const int64_t n = end - begin;
        if (!is_floating(out)) {  // integers: only an overflow, which saturates
            if (range.can_overflow) {
                for (int64_t j = begin; j < end; j++) check(j);
            }
        } else if (size == 2) {
            const uint16_t lo = low > 0 ? magnitude_bits_above<uint16_t>(out, low) : 0;
            const uint16_t hi = range.can_overflow
                                    ? uint16_t(magnitude_bits_above<uint16_t>(out, inf) - 1)
                                    : uint16_t(0x8000);
            scan_float_bits<uint16_t>(at, n, lo, hi, shifted);
        } else if (size == 4) {
            const uint32_t lo = low > 0 ? magnitude_bits_above<uint32_t>(out, low) : 0;
            const uint32_t hi =
                range.can_overflow ? magnitude_bits_above<uint32_t>(out, inf) - 1 : 0x80000000u;
            scan_float_bits<uint32_t>(at, n, lo, hi, shifted);
        } else {
            const uint64_t lo = low > 0 ? magnitude_bits_above<uint64_t>(out, low) : 0;
            const uint64_t hi = range.can_overflow ? magnitude_bits_above<uint64_t>(out, inf) - 1
                                                   : uint64_t(1) << 63;
            scan_float_bits<uint64_t>(at, n, lo, hi, shifted);
        }
    };
    parallel_chunks(count, int64_t(1) << 16, scan);
}

// The norm of a set of terms x_i, each raised to p, computed as m * (sum (x_i / m)^p)^(1/p)
// with m = max |x_i|, in long double with a compensated sum, then rounded once more to
// double. Returns false (keep the kernel's value) where an x_i is NaN or inf or every x_i is 0:
// the kernels' own results are then exact.
class ScaledNorm {
public:
    ScaledNorm(double p, bool signed_mode) : p_(p), signed_(signed_mode) {}

    void add_magnitude(long double x) {
        const long double a = std::fabs(x);
        if (!(a <= std::numeric_limits<long double>::max())) finite_ = false;
        if (a > max_) max_ = a;
    }
    bool usable() const { return finite_ && max_ > 0; }
    // Second pass; every x_i given to add_magnitude once before.
    void add_term(long double x) {
        const long double t = power(std::fabs(x) / max_);
        long double term = t;
        if (signed_ && x < 0) {
            if (!is_integer_p()) {
                sign_failed_ = true;  // a NaN term: the kernel's NaN stands
                return;
            }
            if (is_odd_p()) term = -t;
        }
        const long double y = term - carry_;
        const long double s = sum_ + y;
        carry_ = (s - sum_) - y;
        sum_ = s;
    }
    // The norm, `scale` times the sum first (overhang rescaling), or false.
    bool result(long double scale, double *out) const {
        if (sign_failed_) return false;
        const long double s = sum_ * scale;
        long double root;
        if (s < 0) {
            if (p_ != 1) {
                *out = std::numeric_limits<double>::quiet_NaN();  // root of a negative sum
                return true;
            }
            root = s;
        } else {
            root = p_ == 2 ? std::sqrt(s) : std::pow(s, 1.0L / static_cast<long double>(p_));
        }
        *out = static_cast<double>(max_ * root);
        return true;
    }

private:
    bool is_integer_p() const { return std::floor(p_) == p_; }
    bool is_odd_p() const { return is_integer_p() && std::fmod(p_, 2.0) == 1.0; }

    // r^p for 0 <= r <= 1: small integer p by squaring (a few long double roundings, far below
    // double's), any other p by powl. With powl for every p, a p = 4 repair of 32768 windows of
    // 512 taps, all out of range, took 11-15 s under the sanitizers; by squaring, 4-5 s.
    long double power(long double r) const {
        if (int_p_ == 0) return std::pow(r, static_cast<long double>(p_));
        long double result = 1, base = r;
        for (int e = int_p_;; base *= base) {
            if (e & 1) result *= base;
            if ((e >>= 1) == 0) return result;
        }
    }

    double p_;
    int int_p_ = is_integer_p() && p_ >= 1 && p_ <= 64 ? int(p_) : 0;
    bool signed_;
    bool finite_ = true, sign_failed_ = false;
    long double max_ = 0, sum_ = 0, carry_ = 0;
};

// Quotients rounded down and up, for a divisor b > 0, without overflow for any a (the window
// arithmetic of a huge stride gives a near -2^63: the fuzzer found -a + b - 1 overflowing).
int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b > 0 ? 1 : 0); }

// Visits the input offsets (in elements) of one output's terms.
template <typename Visit>
void for_each_offset(int rank, const int64_t *extent, const int64_t *stride, int64_t base,
                     Visit &&visit) {
    int64_t index[kMaxRank] = {};
    for (int i = 0; i < rank; i++) {
        if (extent[i] == 0) return;
    }
    for (;;) {
        int64_t offset = base;
        for (int i = 0; i < rank; i++) offset += index[i] * stride[i];
        visit(offset);
        int i = rank - 1;
        for (; i >= 0; i--) {
            if (++index[i] < extent[i]) break;
            index[i] = 0;
        }
        if (i < 0) return;
    }
}

// Recomputes one output from the input offsets its terms sit at; false keeps the kernel's.
template <typename Offsets>
bool recompute(const Tensor &input, double p, bool signed_mode, long double scale,
               Offsets &&offsets, double *y) {
    const auto *data = static_cast<const unsigned char *>(input.data);
    const size_t size = dtype_size(input.dtype);
    ScaledNorm norm(p, signed_mode);
    offsets(
        [&](int64_t o) { norm.add_magnitude(load_exact(input.dtype, data + o * int64_t(size))); });
    if (!norm.usable()) return false;
    offsets([&](int64_t o) { norm.add_term(load_exact(input.dtype, data + o * int64_t(size))); });
    return norm.result(scale, y);
}

// |x| of an integer element, exactly (|INT64_MIN| = 2^63 included).
uint64_t integer_magnitude(DType d, const unsigned char *at) {
    const auto of = [at](auto v) {
        std::memcpy(&v, at, sizeof(v));
        return v;
    };
    const auto magnitude = [](int64_t v) { return v < 0 ? 0 - uint64_t(v) : uint64_t(v); };
    switch (d) {
    case DType::int8: return magnitude(of(int8_t()));
    case DType::uint8: return of(uint8_t());
    case DType::int16: return magnitude(of(int16_t()));
    case DType::uint16: return of(uint16_t());
    case DType::int32: return magnitude(of(int32_t()));
    case DType::uint32: return of(uint32_t());
    case DType::int64: return magnitude(of(int64_t()));
    case DType::uint64: return of(uint64_t());
    default: return 0;
    }
}

// Stores a norm t <= the dtype's largest value as an integer element.
void store_integer_norm(DType d, uint64_t t, unsigned char *at) {
    const auto put = [at](auto v) { std::memcpy(at, &v, sizeof(v)); };
    switch (d) {
    case DType::int8: put(int8_t(t)); break;
    case DType::uint8: put(uint8_t(t)); break;
    case DType::int16: put(int16_t(t)); break;
    case DType::uint16: put(uint16_t(t)); break;
    case DType::int32: put(int32_t(t)); break;
    case DType::uint32: put(uint32_t(t)); break;
    case DType::int64: put(int64_t(t)); break;
    case DType::uint64: put(t); break;
    default: break;
    }
}

// The largest value of an integer dtype.
uint64_t integer_max(DType d) {
    const int bits = int(dtype_exponents(d).max);
    return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

}  // namespace

SumRange sum_range(DType input, DType acc, double p, int64_t terms) {
    if (p == 1) return SumRange();
    return power_sum_range(input, acc, p, terms);
}

SumRange power_sum_range(DType input, DType acc, double p, int64_t terms) {
    SumRange range;
    if (!(p > 0) || std::isinf(p)) return range;  // no power, or an extreme
    // The thread's last answer: engines call the same op again and again, and the log2 and
    // exp2 below were 2% of the [6, 12, 10, 24] axes {2, 3} reduction's call.
    struct Last {
        DType input, acc;
        double p;
        int64_t terms;
        SumRange range;
    };
    thread_local Last last{DType::float32, DType::float32, 0, 0, SumRange()};
    if (last.p == p && last.terms == terms && last.input == input && last.acc == acc) {
        return last.range;
    }
    const Exponents in = dtype_exponents(input);
    const bool acc32 = acc == DType::float32;
    const double acc_max = acc32 ? 128 : 1024, acc_min_normal = acc32 ? -126 : -1022;
    const double mantissa = acc32 ? 24 : 53;
    const double log_terms = std::log2(double(std::max<int64_t>(terms, 1)));
    range.can_overflow = p * in.max + log_terms >= acc_max;
    range.can_underflow = p * in.min < acc_min_normal;
    // A term lost to underflow is off by at most 2^acc_min_normal; below this sum, `terms` of
    // them could reach 2^-(mantissa + 8) of it. Only read when can_underflow, and only
    // computed then: the exp2 was a few percent of a small reduction's call.
    if (range.can_underflow) {
        range.low = std::exp2((acc_min_normal + log_terms + mantissa + 8) / p);
    }
    last = Last{input, acc, p, terms, range};
    return range;
}

DType pool_accumulator(DType input) {
    return abi::pool_compute_bits(8 * dtype_size(input)) == 64 ? DType::float64 : DType::float32;
}

bool pool_range_watched(DType input, int p_kind) {
    return g_range_checks && input == DType::float32 && p_kind != abi::kPoolP;
}

void repair_reduction_range(const Tensor &input, void *output, const ReduceCall &call,
                            const ReduceRun &ran) {
    if (call.reducer != Reducer::sum || call.p_kind == abi::kCount || !g_range_checks) return;
    int kept_rank = 0, reduced_rank = 0;
    int64_t kept_extent[kMaxRank], kept_stride[kMaxRank];
    int64_t reduced_extent[kMaxRank], reduced_stride[kMaxRank];
    int64_t terms = 1, outputs = 1;
    for (int i = 0; i < input.rank; i++) {
        if ((call.reduced >> i) & 1) {
            reduced_extent[reduced_rank] = input.shape[i];
            reduced_stride[reduced_rank++] = input.strides[i];
            terms *= input.shape[i];
        } else {
            kept_extent[kept_rank] = input.shape[i];
            kept_stride[kept_rank++] = input.strides[i];
            outputs *= input.shape[i];
        }
    }
    // Visits the input offsets of output j's terms.
    const auto offsets_of = [&](int64_t j) {
        int64_t base = 0, rest = j;
        for (int i = kept_rank - 1; i >= 0; i--) {
            base += (rest % kept_extent[i]) * kept_stride[i];
            rest /= kept_extent[i];
        }
        return [&, base](auto &&visit) {
            for_each_offset(reduced_rank, reduced_extent, reduced_stride, base, visit);
        };
    };
    auto *out = static_cast<unsigned char *>(output);
    const size_t size = dtype_size(input.dtype);
    if (!is_floating(input.dtype) && exact_integer_p(call.p)) {
        // Outputs from where the float64 truncation may be off by one, recomputed exactly
        // (integer_norm.h); the saturated ones among them too.
        const uint64_t from = inexact_integer_outputs_from(call.p);
        const uint64_t cap = integer_max(input.dtype);
        if (cap < from) return;
        const auto *in = static_cast<const unsigned char *>(input.data);
        const auto check = [&](int64_t begin, int64_t end) {
            for (int64_t j = begin; j < end; j++) {
                unsigned char *at = out + j * int64_t(size);
                if (integer_magnitude(input.dtype, at) < from) continue;  // a norm: >= 0
                ExactIntegerNorm norm(int(call.p));
                offsets_of(j)([&](int64_t o) {
                    norm.add(integer_magnitude(input.dtype, in + o * int64_t(size)));
                });
                store_integer_norm(input.dtype, norm.floor_root(cap), at);
            }
        };
        parallel_chunks(outputs, int64_t(1) << 12, check);
        return;
    }
    const DType acc = ran.float32_sums ? DType::float32 : partial_dtype(call.reducer, input.dtype);
    const SumRange range = sum_range(input.dtype, acc, call.p, terms);
    if (!range.needs_scan()) return;
    scan_outputs(range, input.dtype, output, outputs, false, [&](int64_t j) {
        double y;
        if (recompute(input, call.p, false, 1.0L, offsets_of(j), &y)) {
            store_norm(input.dtype, y, out + j * int64_t(size));
        }
    });
}

void begin_pool_range_check() { t_pool_scanned = false; }

void repair_pool_range(const Tensor &input, const Tensor &output, const PoolParams &params,
                       const std::vector<PoolAxis> &axes, DType acc) {
    if (!g_range_checks) return;
    const int spatial = int(axes.size());
    int64_t window = 1;
    for (const PoolAxis &a : axes) window *= a.kernel;
    const bool signed_mode = params.mode == PoolMode::signed_pow;
    // Signed sums can cancel: an overflowing partial sum of p = 1 terms (1.7e308 + 1e308 -
    // 1.6e308) is not the window's answer there, as it is for |x|.
    const SumRange range = signed_mode ? power_sum_range(input.dtype, acc, params.p, window)
                                       : sum_range(input.dtype, acc, params.p, window);
    if (!range.needs_scan()) return;
    t_pool_scanned = true;
    const bool rescale = params.overhang == Overhang::rescale;
    auto *out = static_cast<unsigned char *>(output.data);
    const size_t size = dtype_size(output.dtype);
    scan_outputs(
        range, output.dtype, output.data, output.num_elements(), signed_mode, [&](int64_t j) {
            unsigned char *at = out + j * int64_t(size);
            // (n, c, o_1..o_k) of output j, and the window's in-bounds taps per spatial dim.
            int64_t o[kMaxRank], rest = j;
            for (int i = output.rank - 1; i >= 0; i--) {
                o[i] = rest % output.shape[i];
                rest /= output.shape[i];
            }
            int64_t base = o[0] * input.strides[0] + o[1] * input.strides[1];
            int64_t extent[abi::kMaxPoolSpatial], stride[abi::kMaxPoolSpatial];
            long double inside_padded = 1;
            for (int d = 0; d < spatial; d++) {
                const PoolAxis &a = axes[size_t(d)];
                const int64_t start = o[d + 2] * a.stride - a.pad_begin;
                // taps t in [first, end) with start + t * dilation in [0, input); none where the
                // window lies wholly in the padding
                const int64_t first = start < 0 ? ceil_div(-start, a.dilation) : 0;
                const int64_t end =
                    std::min(a.kernel, floor_div(a.input - 1 - start, a.dilation) + 1);
                extent[d] = std::max<int64_t>(0, end - first);
                // Two taps or more lie inside the input, so dilation times the stride stays
                // within the tensor; one tap has no step (a dilation near 2^63 with kernel 1
                // overflowed the product: the fuzzer's pool_range_huge_dilation).
                stride[d] = extent[d] > 1 ? a.dilation * input.strides[d + 2] : 0;
                if (extent[d] > 0) base += (start + first * a.dilation) * input.strides[d + 2];
                // as the kernels count them (pool_algorithm.cpp, taps_inside_padded)
                const int64_t padded = a.input + a.pad_begin + a.pad_end;
                inside_padded *=
                    std::min(a.kernel, floor_div(padded - 1 - o[d + 2] * a.stride, a.dilation) + 1);
            }
            const long double scale =
                rescale ? static_cast<long double>(window) / inside_padded : 1.0L;
            const auto offsets = [&](auto &&visit) {
                for_each_offset(spatial, extent, stride, base, visit);
            };
            double y;
            if (recompute(input, params.p, signed_mode, scale, offsets, &y)) {
                store_norm(output.dtype, y, at);
            }
        });
}

}  // namespace lpnorm::rt

namespace lpnorm::testing {

void set_range_checks(bool on) { rt::g_range_checks = on; }

bool last_pool_scanned() { return rt::t_pool_scanned; }

}  // namespace lpnorm::testing
