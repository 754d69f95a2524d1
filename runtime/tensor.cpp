#include "lpnorm/tensor.h"

#include <cstring>

namespace lpnorm {

namespace {

struct DTypeInfo {
    const char *name;
    size_t size;
    bool floating;
};

constexpr DTypeInfo kDTypes[kNumDTypes] = {
    {"float32", 4, true}, {"float16", 2, true}, {"bfloat16", 2, true}, {"float64", 8, true},
    {"int8", 1, false},   {"uint8", 1, false},  {"int16", 2, false},   {"uint16", 2, false},
    {"int32", 4, false},  {"uint32", 4, false}, {"int64", 8, false},   {"uint64", 8, false},
};

const DTypeInfo *info(DType dtype) {
    auto i = static_cast<unsigned>(dtype);
    return i < kNumDTypes ? &kDTypes[i] : nullptr;
}

// The dense row-major stride of the dim outside one of size `dim` and stride `stride`. Size 0
// and 1 dims do not scale it; it saturates at INT64_MAX (such shapes have no elements, or are
// rejected as too large before their strides are used).
int64_t outer_stride(int64_t stride, int64_t dim) {
    int64_t next;
    if (dim <= 1) return stride;
    return __builtin_mul_overflow(stride, dim, &next) ? INT64_MAX : next;
}

}  // namespace

size_t dtype_size(DType dtype) {
    const DTypeInfo *d = info(dtype);
    return d ? d->size : 0;
}

const char *dtype_name(DType dtype) {
    const DTypeInfo *d = info(dtype);
    return d ? d->name : "invalid";
}

const char *memory_name(Memory memory) {
    switch (memory) {
    case Memory::host: return "host";
    case Memory::cuda: return "cuda";
    case Memory::opencl: return "opencl";
    case Memory::d3d12: return "d3d12";
    }
    return "invalid";
}

bool is_floating(DType dtype) {
    const DTypeInfo *d = info(dtype);
    return d && d->floating;
}

bool parse_dtype(const char *name, DType *out) {
    if (name == nullptr) {
        return false;
    }
    for (int i = 0; i < kNumDTypes; i++) {
        if (std::strcmp(name, kDTypes[i].name) == 0) {
            *out = static_cast<DType>(i);
            return true;
        }
    }
    return false;
}

Tensor Tensor::contiguous(const void *data, DType dtype, const int64_t *shape, int rank) {
    Tensor t;
    t.data = const_cast<void *>(data);
    t.dtype = dtype;
    t.rank = rank;
    const int stored = rank < 0 ? 0 : (rank > kMaxRank ? kMaxRank : rank);
    int64_t stride = 1;
    for (int i = stored - 1; i >= 0; i--) {
        t.shape[i] = shape[i];
        t.strides[i] = stride;
        stride = outer_stride(stride, shape[i]);
    }
    return t;
}

Tensor Tensor::contiguous(const void *data, DType dtype, std::initializer_list<int64_t> shape) {
    return contiguous(data, dtype, shape.begin(), static_cast<int>(shape.size()));
}

Tensor Tensor::contiguous(const void *data, DType dtype, const std::vector<int64_t> &shape) {
    return contiguous(data, dtype, shape.data(), static_cast<int>(shape.size()));
}

Tensor Tensor::strided(const void *data, DType dtype, const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &strides) {
    Tensor t = contiguous(data, dtype, shape);
    if (strides.size() != shape.size()) {
        t.rank = -1;  // rejected by every entry point as an invalid rank
        return t;
    }
    const int stored = t.rank > kMaxRank ? kMaxRank : t.rank;
    for (int i = 0; i < stored && i < static_cast<int>(strides.size()); i++) {
        t.strides[i] = strides[i];
    }
    return t;
}

int64_t Tensor::num_elements() const {
    int64_t n = 1;
    bool overflow = false;
    const int stored = rank < 0 ? 0 : (rank > kMaxRank ? kMaxRank : rank);
    for (int i = 0; i < stored; i++) {
        if (shape[i] <= 0) {
            return 0;  // also after an overflow: a later 0 still empties the tensor
        }
        overflow = overflow || __builtin_mul_overflow(n, shape[i], &n);
    }
    return overflow ? INT64_MAX : n;
}

bool Tensor::is_contiguous() const {
    if (num_elements() == 0) {
        return true;  // no memory to lay out: any strides describe it
    }
    int64_t expected = 1;
    for (int i = rank - 1; i >= 0; i--) {
        if (shape[i] != 1 && strides[i] != expected) {
            return false;
        }
        expected = outer_stride(expected, shape[i]);
    }
    return true;
}

}  // namespace lpnorm
