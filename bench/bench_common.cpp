#include "bench_common.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace lpnorm_bench {

int64_t Problem::input_elements() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
}

int64_t Problem::output_elements() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= reduced(d) ? 1 : shape[d];
    return n;
}

bool Problem::reduced(int dim) const {
    for (int i = 0; i < num_axes; ++i)
        if (axes[i] == dim) return true;
    return false;
}

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
    size_t rounded = (bytes + 63) / 64 * 64;
    data_ = std::aligned_alloc(64, rounded > 0 ? rounded : 64);
    if (!data_) throw std::bad_alloc();
    std::memset(data_, 0, rounded);
}

Buffer::~Buffer() { std::free(data_); }

Buffer::Buffer(Buffer &&other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
}

namespace {

// splitmix64 of the element index: deterministic and independent of the fill order.
float random_value(uint64_t i) {
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
}

}  // namespace

const void *cached_input(const int64_t *shape, int rank, Elem elem) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<Buffer>> cache;
    std::string key = elem_name(elem);
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) {
        key += "x" + std::to_string(shape[d]);
        n *= shape[d];
    }
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Buffer> &slot = cache[key];
    if (!slot) {
        slot = std::make_unique<Buffer>(static_cast<size_t>(n) * elem_size(elem));
        if (elem == Elem::f32) {
            float *x = static_cast<float *>(slot->data());
            for (int64_t i = 0; i < n; ++i) x[i] = random_value(i);
        } else {
            uint16_t *x = static_cast<uint16_t *>(slot->data());
            for (int64_t i = 0; i < n; ++i) x[i] = float_to_half(random_value(i));
        }
    }
    return slot->data();
}

float half_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
        float v = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    uint32_t bits = exponent == 31 ? (sign | 0x7f800000u | (mantissa << 13))
                                   : (sign | ((exponent + 112) << 23) | (mantissa << 13));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return sign | 0x7e00;   // NaN
    if (x >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: inf
    if (x < 0x38800000u) {                       // below 2^-14: subnormal half
        float a;
        std::memcpy(&a, &x, 4);
        return sign | static_cast<uint16_t>(std::lrint(a * 16777216.0f));  // exact scale, RNE
    }
    uint32_t r = x - 0x38000000u;  // exponent bias 127 -> 15
    r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    return sign | static_cast<uint16_t>(r);
}

void fill_ones(void *data, size_t n, Elem elem) {
    for (size_t i = 0; i < n; i++) {
        if (elem == Elem::f32) {
            static_cast<float *>(data)[i] = 1.0f;
        } else {
            static_cast<uint16_t *>(data)[i] = 0x3C00;  // float16 1
        }
    }
}

}  // namespace lpnorm_bench
