// lpnorm tensor views: non-owning descriptions of caller memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace lpnorm {

// Highest tensor rank the library accepts.
constexpr int kMaxRank = 8;

// Element types. Output dtype always equals input dtype.
enum class DType : uint8_t {
    float32,
    float16,
    bfloat16,
    float64,
    int8,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
};

constexpr int kNumDTypes = 12;

// Size of one element in bytes.
size_t dtype_size(DType dtype);
// Lower-case name as used by numpy and the CLI ("float32", "bfloat16", ...).
const char *dtype_name(DType dtype);
// Parses a name produced by dtype_name(); returns false on an unknown name.
bool parse_dtype(const char *name, DType *out);
bool is_floating(DType dtype);

// Where a tensor's elements live (lpnorm.h, "Backends and device memory").
enum class Memory : uint8_t {
    host = 0,    // `data` is a CPU pointer
    cuda = 1,    // `data` is a CUdeviceptr (cast to void *) in lpnorm's CUDA context
    opencl = 2,  // `data` is a cl_mem of lpnorm's OpenCL context; element (0, ..., 0) at offset 0
    d3d12 = 3,   // `data` is an ID3D12Resource * (a buffer) on lpnorm's D3D12 device; element
                 // (0, ..., 0) at offset 0
};

const char *memory_name(Memory memory);

// A non-owning, possibly strided view of caller memory.
// shape[i] and strides[i] (in elements, not bytes) are meaningful for i < rank.
// Strides may be zero (broadcast) or negative; `data` points at element (0, ..., 0).
struct Tensor {
    void *data = nullptr;
    DType dtype = DType::float32;
    int rank = 0;
    int64_t shape[kMaxRank] = {};
    int64_t strides[kMaxRank] = {};
    Memory memory = Memory::host;

    // A dense row-major (C order) tensor. Ranks above kMaxRank are recorded as given and
    // rejected by every entry point with a named error.
    static Tensor contiguous(const void *data, DType dtype, std::initializer_list<int64_t> shape);
    static Tensor contiguous(const void *data, DType dtype, const std::vector<int64_t> &shape);
    static Tensor contiguous(const void *data, DType dtype, const int64_t *shape, int rank);
    // A view with explicit element strides. If strides.size() != shape.size() the rank is set
    // to -1, which every entry point rejects.
    static Tensor strided(const void *data, DType dtype, const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &strides);

    // Number of elements (1 for rank 0); saturates at INT64_MAX on overflow.
    int64_t num_elements() const;
    // True when the strides are the dense row-major strides of the shape (always, for a tensor
    // without elements).
    bool is_contiguous() const;
    std::vector<int64_t> shape_vector() const {
        return std::vector<int64_t>(shape, shape + (rank > 0 && rank <= kMaxRank ? rank : 0));
    }
};

}  // namespace lpnorm
