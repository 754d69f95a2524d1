// Shared by the libFuzzer targets: a byte reader with pickers of interesting values, memory
// the harness may hand to the library, and the checks every call must pass.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "lpnorm/lpnorm_c.h"

namespace lpnorm_fuzz {

// A violated library contract: report and abort, which libFuzzer records as a crash.
#define FUZZ_REQUIRE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "contract violated: %s: ", #cond);                                \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, " (last error: \"%s\")\n", lpnorm_last_error());                  \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();

// The fuzz input read front to back, little-endian; past its end every read gives 0, so each
// prefix of an input is an input too.
class Reader {
public:
    Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    uint64_t u64() {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) v |= uint64_t(u8()) << (8 * i);
        return v;
    }
    int64_t i64() { return int64_t(u64()); }
    int32_t i32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++) v |= uint32_t(u8()) << (8 * i);
        return int32_t(v);
    }
    double f64() {
        const uint64_t bits = u64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }
    // The unread bytes (element values).
    const uint8_t *rest(size_t *n) const {
        *n = size_ - pos_;
        return data_ + pos_;
    }

private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

// One byte picks a value: bytes below 0xC0 a small, valid-looking one (the seed generator
// writes those directly); the rest an edge case, the last of them a raw 8-byte value
// (truncated for int32).
template <typename T, size_t N>
T pick_special(Reader &r, uint8_t b, const T (&specials)[N]) {
    const size_t i = size_t(b - 0xC0) % (N + 1);
    return i < N ? specials[i] : T(r.i64());
}

// Shape dims: 0..39, or large and invalid ones.
inline int64_t pick_dim(Reader &r) {
    static const int64_t specials[] = {-1,
                                       -2,
                                       kI64Min,
                                       kI64Max,
                                       64,
                                       127,
                                       255,
                                       256,
                                       1000,
                                       1 << 16,
                                       1 << 20,
                                       kI32Max,
                                       int64_t(1) << 31,
                                       int64_t(1) << 32,
                                       (int64_t(1) << 32) + 1,
                                       int64_t(1) << 40,
                                       int64_t(1) << 62,
                                       kI64Max / 2 + 1,
                                       kI64Max / 8,
                                       3037000500 /* ~sqrt(2^63) */};
    const uint8_t b = r.u8();
    return b < 0xC0 ? b % 40 : pick_special(r, b, specials);
}

// Element strides: byte - 32 for bytes below 0xC0 ([-32, 31] written as 0..63), else large.
inline int64_t pick_stride(Reader &r) {
    static const int64_t specials[] = {kI64Min,
                                       kI64Max,
                                       -1,
                                       0,
                                       kI32Max,
                                       kI32Min,
                                       int64_t(1) << 31,
                                       -(int64_t(1) << 31) - 1,
                                       int64_t(1) << 32,
                                       int64_t(1) << 40,
                                       int64_t(1) << 62,
                                       -(int64_t(1) << 62),
                                       1000,
                                       -1000};
    const uint8_t b = r.u8();
    return b < 0xC0 ? int64_t(b & 63) - 32 : pick_special(r, b, specials);
}

// Axes: byte - 16 for bytes below 0xC0 ([-16, 15] written as 0..31), else extreme.
inline int64_t pick_axis(Reader &r) {
    static const int64_t specials[] = {kI64Min, kI64Max, kI32Min, kI32Max, 8, -9, 64, -65};
    const uint8_t b = r.u8();
    return b < 0xC0 ? int64_t(b & 31) - 16 : pick_special(r, b, specials);
}

// Window attributes (kernel, strides, dilations, pads): 0..11, else large or negative.
inline int64_t pick_window(Reader &r) {
    static const int64_t specials[] = {-1,
                                       kI64Min,
                                       kI64Max,
                                       kI32Max,
                                       int64_t(1) << 31,
                                       int64_t(1) << 32,
                                       1000,
                                       1 << 16,
                                       1 << 20,
                                       (int64_t(1) << 30) + 1,
                                       kI64Max / 2,
                                       64,
                                       65};
    const uint8_t b = r.u8();
    return b < 0xC0 ? b % 12 : pick_special(r, b, specials);
}

// An enum with `count` valid values: byte % count below 0xC0, else out of range.
inline int32_t pick_enum(Reader &r, int32_t count) {
    const int32_t specials[] = {-1, count, count + 1, kI32Min, kI32Max, 255};
    const uint8_t b = r.u8();
    return b < 0xC0 ? b % count : pick_special(r, b, specials);
}

// Ranks 0..8 (byte % 9 below 0xC0), else invalid ones.
inline int32_t pick_rank(Reader &r) {
    static const int32_t specials[] = {-1, 9, 16, kI32Min, kI32Max, -8};
    const uint8_t b = r.u8();
    return b < 0xC0 ? b % 9 : pick_special(r, b, specials);
}

// Norm orders: the first 0xF0 byte values index the list, the rest read raw double bits.
inline double pick_p(Reader &r) {
    static const double inf = std::numeric_limits<double>::infinity();
    static const double list[] = {2,
                                  1,
                                  3,
                                  0,
                                  inf,
                                  -inf,
                                  0.5,
                                  2.5,
                                  4,
                                  5,
                                  1.5,
                                  64,
                                  65,
                                  63.5,
                                  100,
                                  7,
                                  std::numeric_limits<double>::quiet_NaN(),
                                  -std::numeric_limits<double>::quiet_NaN(),
                                  -1,
                                  -0.0,
                                  std::numeric_limits<double>::denorm_min(),
                                  std::numeric_limits<double>::min(),
                                  std::numeric_limits<double>::max(),
                                  1e-300,
                                  1e300,
                                  1e10,
                                  0.1,
                                  3.0000000000000004,
                                  -2,
                                  1e-5,
                                  2.0000000000000004,
                                  0.9999999999999999};
    constexpr size_t n = sizeof list / sizeof list[0];
    const uint8_t b = r.u8();
    return b < 0xF0 ? list[b % n] : r.f64();
}

// Booleans as C ints: byte & 1 below 0xC0, else a raw non-boolean int.
inline int32_t pick_bool(Reader &r) {
    const uint8_t b = r.u8();
    return b < 0xC0 ? b & 1 : r.i32();
}

// Memory between two inaccessible pages. The Halide kernels are not instrumented, so a read
// past either end of a tensor must fault to be seen: the bytes sit flush against the upper
// page (or, with at_start, the lower one).
class GuardedBuffer {
public:
    GuardedBuffer(size_t bytes, bool at_start) {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        const size_t body = (bytes + page - 1) / page * page;
        size_ = body + 2 * page;
        void *m = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        FUZZ_REQUIRE(m != MAP_FAILED, "mmap of %zu bytes", size_);
        base_ = static_cast<uint8_t *>(m);
        if (body > 0) mprotect(base_ + page, body, PROT_READ | PROT_WRITE);
        data_ = at_start ? base_ + page : base_ + page + body - bytes;
    }
    ~GuardedBuffer() { munmap(base_, size_); }
    GuardedBuffer(const GuardedBuffer &) = delete;
    GuardedBuffer &operator=(const GuardedBuffer &) = delete;
    uint8_t *data() { return data_; }

private:
    uint8_t *base_ = nullptr;
    uint8_t *data_ = nullptr;
    size_t size_ = 0;
};

// Output memory with canary bytes on both sides.
class CanaryBuffer {
public:
    static constexpr size_t kGuard = 64;
    static constexpr uint8_t kCanary = 0xA5;

    explicit CanaryBuffer(size_t bytes) : bytes_(bytes), storage_(bytes + 2 * kGuard, kCanary) {}
    uint8_t *data() { return storage_.data() + kGuard; }
    // The guards on both sides, or with `all` every byte, still hold the canary.
    bool intact(bool all) const {
        for (size_t i = 0; i < storage_.size(); i++) {
            const bool guard = i < kGuard || i >= kGuard + bytes_;
            if ((all || guard) && storage_[i] != kCanary) return false;
        }
        return true;
    }

private:
    size_t bytes_;
    std::vector<uint8_t> storage_;
};

// Element count, byte counts and the element offsets a tensor reaches, computed without
// overflow, as the library's own checks define them.
struct Extent {
    bool bytes_overflow = false;  // elements * size, or the reach in bytes, is above 2^63 - 1
    int64_t elements = 0;         // 0 when a dim is 0; meaningful without bytes_overflow
    __int128 below = 0, above = 0;
    int64_t span_bytes = 0;  // bytes from the lowest to the highest element reached

    // Negative dims (which the library rejects) count as no elements.
    Extent(int rank, const int64_t *shape, const int64_t *strides, size_t size) {
        __int128 n = 1;
        for (int i = 0; i < rank; i++) {
            if (shape[i] < 0) return;
            n = std::min<__int128>(n * shape[i], __int128(1) << 64);  // < 2^127: no overflow
        }
        if (n * __int128(size) > kI64Max) {
            bytes_overflow = true;
            return;
        }
        elements = int64_t(n);
        if (elements == 0) return;
        for (int i = 0; i < rank; i++) {
            const __int128 reach = __int128(strides[i]) * (shape[i] - 1);
            (reach < 0 ? below : above) += reach;
        }
        const __int128 span = (above - below + 1) * __int128(size);
        bytes_overflow = span > kI64Max;
        span_bytes = bytes_overflow ? kI64Max : int64_t(span);
    }
};

// Dense row-major strides of `shape`, saturating instead of overflowing.
inline void dense_strides(int rank, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        if (shape[i] > 1 && __builtin_mul_overflow(s, shape[i], &s)) s = kI64Max;
    }
}

// Input strides by layout code (the byte after the dims): 0 none (NULL, dense), 1 dense
// written out, 2 column-major, 3 one pick_stride per dim, 4 dense negated, 5 dense with the dims
// of a mask byte broadcast (stride 0), 6 dense over rows padded by a byte % 4 each; other
// codes none. Returns false for none.
inline bool layout_strides(Reader &r, uint8_t layout, int rank, const int64_t *shape,
                           int64_t *strides) {
    dense_strides(rank, shape, strides);
    int64_t s = 1;
    uint8_t mask = 0;
    switch (layout) {
    case 1: return true;
    case 2:
        for (int i = 0; i < rank; i++) {
            strides[i] = s;
            if (shape[i] > 1 && __builtin_mul_overflow(s, shape[i], &s)) s = kI64Max;
        }
        return true;
    case 3:
        for (int i = 0; i < rank; i++) strides[i] = pick_stride(r);
        return true;
    case 4:
        for (int i = 0; i < rank; i++) strides[i] = -strides[i];
        return true;
    case 5:
        mask = r.u8();
        for (int i = 0; i < rank; i++) strides[i] = (mask >> i) & 1 ? 0 : strides[i];
        return true;
    case 6:
        for (int i = rank - 1; i >= 0; i--) {
            strides[i] = s;
            int64_t padded = 0;
            if (shape[i] > 0 && __builtin_add_overflow(shape[i], r.u8() % 4, &padded))
                padded = kI64Max;
            if (__builtin_mul_overflow(s, std::max<int64_t>(padded, 1), &s)) s = kI64Max;
        }
        return true;
    default: return false;
    }
}

// Caller errors the harness can make on purpose, one per input (the misuse byte; other values
// are none). Each must be reported, not crash.
enum Misuse : uint8_t {
    kNone,
    kNullInput,       // input tensor pointer NULL
    kNullOutput,      // output tensor pointer NULL
    kNullInputData,   // input.data NULL
    kNullShape,       // input.shape NULL
    kNullOutputData,  // output.data NULL
    kAlias,           // output.data = input.data
    kOutputDtype,     // output dtype differs
    kOutputShape,     // one output dim off by one (the next byte picks which)
    kOutputRank,      // one more (or, at rank 8, one fewer) output dim
    kOutputStrides,   // output strides: one pick_stride per dim (8 follow)
    kDenseStrides,    // output strides written out, dense: valid
    kNullParams,      // axes NULL with num_axes > 0 / pooling params NULL
};

// Fills `bytes` from the fuzz input's unread bytes, cyclically; a fixed pattern without any.
inline void fill_values(uint8_t *dst, size_t bytes, const Reader &r) {
    size_t n;
    const uint8_t *src = r.rest(&n);
    uint32_t x = 0x9e3779b9u;
    for (size_t i = 0; i < bytes; i++) {
        x = x * 1664525u + 1013904223u;
        dst[i] = n > 0 ? src[i % n] : uint8_t(x >> 24);
    }
}

// After a failed call: a known status code and a non-empty one-line message.
inline void require_error_reported(int status, const char *what) {
    FUZZ_REQUIRE(status > LPNORM_OK && status <= LPNORM_INTERNAL, "%s returned status %d", what,
                 status);
    const char *msg = lpnorm_last_error();
    FUZZ_REQUIRE(msg != nullptr && msg[0] != '\0', "%s failed with status %d but no message", what,
                 status);
    FUZZ_REQUIRE(std::strchr(msg, '\n') == nullptr, "%s: message has a newline", what);
}

// After a successful call: the last error is cleared.
inline void require_success_reported(const char *what) {
    FUZZ_REQUIRE(lpnorm_last_error()[0] == '\0', "%s succeeded but left a message", what);
}

}  // namespace lpnorm_fuzz
