// Reading and writing NumPy .npy files for the lpnorm command-line tool.
//
// Reads format versions 1.0, 2.0 and 3.0, every dtype lpnorm supports, C and Fortran order,
// little- and big-endian data (big-endian is byte-swapped on load). Fortran-order data is kept
// as it is in the file and described by strides, never copied.
//
// bfloat16: numpy has no native bfloat16. np.save of an ml_dtypes.bfloat16 array writes the
// descr '<V2' (raw 2-byte records), so:
//   - reading '<V2' needs ReadOptions::void2_dtype (the CLI's `--dtype bfloat16`); without it
//     the read fails with an error that says so;
//   - the descr 'bfloat16' (written by hand-made headers) is also read as bfloat16;
//   - bfloat16 is written as '<V2'; load it with np.load(f).view(ml_dtypes.bfloat16).
//
// Writing always produces a version 1.0 (or 2.0 for huge headers), C-order, little-endian file,
// written to a temporary name in the target's directory and renamed into place, so a failed
// write never leaves a partial file.
//
// Every function reports failure through a one-line message and never throws or aborts
// (except std::bad_alloc from small std::string/vector allocations).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "lpnorm/tensor.h"

namespace lpnorm::npy {

// Owned bytes, 64-byte aligned (the data pointer is non-null even for zero bytes).
class Buffer {
public:
    static constexpr size_t kAlignment = 64;

    // Replaces the contents with `bytes` uninitialised bytes; false when out of memory.
    bool allocate(size_t bytes);
    uint8_t *data() { return ptr_.get(); }
    const uint8_t *data() const { return ptr_.get(); }
    size_t size() const { return size_; }

private:
    struct Free {
        void operator()(uint8_t *p) const { ::operator delete(p, std::align_val_t(kAlignment)); }
    };
    std::unique_ptr<uint8_t, Free> ptr_;
    size_t size_ = 0;
};

// The dictionary stored in a .npy header.
struct Header {
    std::string descr;  // e.g. "<f4"
    bool fortran_order = false;
    std::vector<int64_t> shape;
};

struct Array {
    DType dtype = DType::float32;
    std::vector<int64_t> shape;
    bool fortran_order = false;
    Buffer data;  // native (little-endian) elements, in file order

    int64_t num_elements() const;
    // A view for lpnorm: dense row-major for C order, column-major strides for Fortran order.
    Tensor tensor() const;
};

struct ReadOptions {
    // Dtype for raw 2-byte records ('<V2'); must have 2-byte elements (bfloat16, float16, ...).
    std::optional<DType> void2_dtype;
};

// Parses the header dictionary, e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
bool parse_header(const std::string &text, Header *out, std::string *error);

// The descr lpnorm writes for `dtype` ("<f4", "|i1", "<V2" for bfloat16, ...).
const char *descr_for(DType dtype);

// Maps a descr to a dtype. *byte_swap is set for big-endian multi-byte data.
bool dtype_from_descr(const std::string &descr, const ReadOptions &options, DType *dtype,
                      bool *byte_swap, std::string *error);

// Bytes needed for `shape` of `dtype`; false (with an error naming the shape) on overflow of
// int64, negative dimensions or rank above kMaxRank.
bool byte_count(const std::vector<int64_t> &shape, DType dtype, int64_t *bytes, std::string *error);

// Reads a .npy file. Errors name the problem (bad magic, truncated header, data shorter than
// the shape needs, unsupported dtype, ...); the caller adds the file name.
bool read(const std::string &path, Array *out, std::string *error, const ReadOptions &options = {});
// The same from a seekable binary stream, read from its beginning (e.g. a std::istringstream
// over a file's bytes).
bool read(std::istream &in, Array *out, std::string *error, const ReadOptions &options = {});

// Writes a dense row-major array atomically (temporary file + rename).
bool write(const std::string &path, DType dtype, const std::vector<int64_t> &shape,
           const void *data, std::string *error);

// The whole file content `write` would produce (header and data), for tests and tools.
bool encode(DType dtype, const std::vector<int64_t> &shape, const void *data, std::string *bytes,
            std::string *error);

// "(2, 3)", "(5,)", "()" — numpy's spelling of a shape.
std::string shape_string(const std::vector<int64_t> &shape);

}  // namespace lpnorm::npy
