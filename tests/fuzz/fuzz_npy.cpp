// libFuzzer target: the CLI's .npy reader on arbitrary file bytes.
//
// Each input is read as a whole file, plainly and with '<V2' records taken as bfloat16 (the
// CLI's --dtype bfloat16) and as float32 (a size mismatch, an error). A failed read gives a
// one-line message; a successful one a consistent array that writes back to itself.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "npy.h"

namespace npy = lpnorm::npy;

namespace {

#define NPY_REQUIRE(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "contract violated: %s: ", #cond);                                \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fputc('\n', stderr);                                                              \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

bool read_bytes(const std::string &bytes, const npy::ReadOptions &options, npy::Array *a,
                std::string *error) {
    std::istringstream in(bytes, std::ios::binary);
    return npy::read(in, a, error, options);
}

void check_error(const std::string &error) {
    NPY_REQUIRE(!error.empty(), "failed read without a message");
    for (char c : error) {
        NPY_REQUIRE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
                    "control character in \"%s\"", error.c_str());
    }
}

void check_array(const std::string &bytes, const npy::Array &a) {
    int64_t n = 0;
    std::string error;
    NPY_REQUIRE(npy::byte_count(a.shape, a.dtype, &n, &error), "read an array it cannot size: %s",
                error.c_str());
    NPY_REQUIRE(size_t(n) == a.data.size() && n <= int64_t(bytes.size()),
                "%lld data bytes from a %zu-byte file", static_cast<long long>(n), bytes.size());
    NPY_REQUIRE(a.data.data() != nullptr, "null data");
    const int64_t elements = a.num_elements();
    NPY_REQUIRE(elements >= 0 && (n == 0) == (elements == 0) && (n == 0 || n % elements == 0),
                "%lld elements in %lld bytes", static_cast<long long>(elements),
                static_cast<long long>(n));
    const lpnorm::Tensor t = a.tensor();
    NPY_REQUIRE(t.rank == int(a.shape.size()) && t.data == a.data.data(), "tensor view");
    for (int i = 0; i < t.rank; i++)
        NPY_REQUIRE(t.shape[i] == a.shape[size_t(i)], "tensor view dim %d", i);
    if (a.fortran_order) return;
    // C order: written back and read again, the same array.
    std::string again;
    NPY_REQUIRE(npy::encode(a.dtype, a.shape, a.data.data(), &again, &error), "encode: %s",
                error.c_str());
    npy::ReadOptions options;
    options.void2_dtype = a.dtype;
    npy::Array b;
    NPY_REQUIRE(read_bytes(again, options, &b, &error), "re-read: %s", error.c_str());
    NPY_REQUIRE(b.dtype == a.dtype && b.shape == a.shape && !b.fortran_order &&
                    std::memcmp(a.data.data(), b.data.data(), a.data.size()) == 0,
                "round trip changed the array");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    npy::ReadOptions as_bfloat16, as_float32;
    as_bfloat16.void2_dtype = lpnorm::DType::bfloat16;
    as_float32.void2_dtype = lpnorm::DType::float32;
    for (const npy::ReadOptions &options : {npy::ReadOptions(), as_bfloat16, as_float32}) {
        npy::Array a;
        std::string error;
        if (read_bytes(bytes, options, &a, &error)) {
            check_array(bytes, a);
        } else {
            check_error(error);
        }
    }
    return 0;
}
