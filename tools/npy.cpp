// .npy reader and writer; see npy.h. Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include "npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

namespace lpnorm::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Headers are a few hundred bytes at most for rank <= 8; refuse anything absurd before reading it.
constexpr uint32_t kMaxHeaderBytes = 1 << 20;

struct DTypeInfo {
    DType dtype;
    char kind;  // numpy kind: 'f', 'i', 'u'
    int size;
    const char *descr;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::float32, 'f', 4, "<f4"},  {DType::float16, 'f', 2, "<f2"},
    {DType::bfloat16, 'V', 2, "<V2"}, {DType::float64, 'f', 8, "<f8"},
    {DType::int8, 'i', 1, "|i1"},     {DType::uint8, 'u', 1, "|u1"},
    {DType::int16, 'i', 2, "<i2"},    {DType::uint16, 'u', 2, "<u2"},
    {DType::int32, 'i', 4, "<i4"},    {DType::uint32, 'u', 4, "<u4"},
    {DType::int64, 'i', 8, "<i8"},    {DType::uint64, 'u', 8, "<u8"},
};

const DTypeInfo &info(DType dtype) {
    for (const DTypeInfo &d : kDTypes) {
        if (d.dtype == dtype) return d;
    }
    return kDTypes[0];
}

// Records a one-line error (control characters from the file become '?') and returns false.
bool fail(std::string *error, std::string message) {
    for (char &c : message) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    if (error) *error = std::move(message);
    return false;
}

// A small parser for the Python literal in the header: a dict of str keys whose values are
// str, True/False or a tuple of non-negative ints (Python 2 files may spell them `3L`).
class HeaderParser {
public:
    explicit HeaderParser(const std::string &s) : s_(s) {}

    bool parse(Header *out, std::string *error) {
        bool have_descr = false, have_order = false, have_shape = false;
        skip_ws();
        if (!eat('{')) return fail(error, "header is not a Python dict: " + quoted_excerpt());
        skip_ws();
        while (!eat('}')) {
            std::string key;
            if (!parse_string(&key))
                return fail(error, "header dict has a non-string key near " + quoted_excerpt());
            skip_ws();
            if (!eat(':')) return fail(error, "header dict has no ':' after key '" + key + "'");
            skip_ws();
            if (key == "descr") {
                if (peek() == '[')
                    return fail(error, "structured dtypes (a list as 'descr') are not supported");
                if (!parse_string(&out->descr))
                    return fail(error, "header 'descr' is not a string");
                have_descr = true;
            } else if (key == "fortran_order") {
                if (!parse_bool(&out->fortran_order))
                    return fail(error, "header 'fortran_order' is not True or False");
                have_order = true;
            } else if (key == "shape") {
                if (!parse_shape(&out->shape, error)) return false;
                have_shape = true;
            } else {
                return fail(error, "header has an unexpected key '" + key + "'");
            }
            skip_ws();
            if (eat(',')) {
                skip_ws();
            } else if (peek() != '}') {
                return fail(error, "header dict has no ',' or '}' near " + quoted_excerpt());
            }
        }
        skip_ws();
        if (pos_ != s_.size())
            return fail(error, "header has text after the dict: " + quoted_excerpt());
        if (!have_descr) return fail(error, "header has no 'descr' key");
        if (!have_order) return fail(error, "header has no 'fortran_order' key");
        if (!have_shape) return fail(error, "header has no 'shape' key");
        return true;
    }

private:
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    bool eat(char c) {
        if (peek() != c || pos_ >= s_.size()) return false;
        ++pos_;
        return true;
    }
    void skip_ws() {
        while (pos_ < s_.size() && std::strchr(" \t\r\n", s_[pos_]) != nullptr) ++pos_;
    }
    std::string quoted_excerpt() const {
        return pos_ >= s_.size() ? std::string("the end of the header")
                                 : "'" + s_.substr(pos_, 20) + "'";
    }
    bool parse_string(std::string *out) {
        char q = peek();
        if (q != '\'' && q != '"') return false;
        size_t end = s_.find(q, pos_ + 1);
        if (end == std::string::npos) return false;
        *out = s_.substr(pos_ + 1, end - pos_ - 1);
        pos_ = end + 1;
        return true;
    }
    bool parse_bool(bool *out) {
        for (const char *word : {"True", "False"}) {
            size_t n = std::strlen(word);
            if (s_.compare(pos_, n, word) == 0) {
                *out = word[0] == 'T';
                pos_ += n;
                return true;
            }
        }
        return false;
    }
    bool parse_shape(std::vector<int64_t> *shape, std::string *error) {
        shape->clear();
        if (!eat('(')) return fail(error, "header 'shape' is not a tuple");
        skip_ws();
        while (!eat(')')) {
            if (shape->size() >= static_cast<size_t>(kMaxRank)) {
                return fail(error, "shape has more than " + std::to_string(kMaxRank) +
                                       " dimensions (lpnorm supports rank 0.." +
                                       std::to_string(kMaxRank) + ")");
            }
            if (peek() == '-') return fail(error, "shape has a negative dimension");
            if (!std::isdigit(static_cast<unsigned char>(peek()))) {
                return fail(error,
                            "header 'shape' has a non-integer entry near " + quoted_excerpt());
            }
            int64_t v = 0;
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                int digit = s_[pos_++] - '0';
                if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) {
                    return fail(error, "shape dimension " + std::to_string(shape->size()) +
                                           " does not fit in int64");
                }
                v = v * 10 + digit;
            }
            eat('L');
            shape->push_back(v);
            skip_ws();
            if (eat(',')) {
                skip_ws();
            } else if (peek() != ')') {
                return fail(error, "header 'shape' tuple is malformed near " + quoted_excerpt());
            }
        }
        return true;
    }

    const std::string &s_;
    size_t pos_ = 0;
};

uint32_t read_le(const unsigned char *p, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void byte_swap_in_place(uint8_t *data, size_t bytes, int item_size) {
    for (size_t i = 0; i + item_size <= bytes; i += item_size)
        std::reverse(data + i, data + i + item_size);
}

std::string error_text(int err) { return std::strerror(err); }

}  // namespace

bool Buffer::allocate(size_t bytes) {
    ptr_.reset();
    size_ = 0;
    size_t rounded = (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes) return false;
    void *p = ::operator new(rounded, std::align_val_t(kAlignment), std::nothrow);
    if (p == nullptr) return false;
    ptr_.reset(static_cast<uint8_t *>(p));
    size_ = bytes;
    return true;
}

int64_t Array::num_elements() const {
    // read() checked the byte count, so only a shape with a 0 (e.g. (2^40, 2^40, 0)) could
    // overflow the product.
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Tensor Array::tensor() const {
    Tensor t;
    t.data = const_cast<uint8_t *>(data.data());
    t.dtype = dtype;
    t.rank = static_cast<int>(shape.size());
    int64_t stride = 1;
    for (int k = 0; k < t.rank && k < kMaxRank; ++k) {
        int i = fortran_order ? k : t.rank - 1 - k;  // innermost first
        t.shape[i] = shape[i];
        t.strides[i] = stride;
        // Saturates: only an array without elements has strides beyond 2^63, and never uses them.
        if (shape[i] > 1 && __builtin_mul_overflow(stride, shape[i], &stride)) stride = INT64_MAX;
    }
    return t;
}

bool parse_header(const std::string &text, Header *out, std::string *error) {
    *out = Header();
    return HeaderParser(text).parse(out, error);
}

const char *descr_for(DType dtype) { return info(dtype).descr; }

bool dtype_from_descr(const std::string &descr, const ReadOptions &options, DType *dtype,
                      bool *byte_swap, std::string *error) {
    *byte_swap = false;
    if (descr == "bfloat16") {
        *dtype = DType::bfloat16;
        return true;
    }
    std::string d = descr;
    char order = '|';
    if (!d.empty() && std::strchr("<>|=", d[0]) != nullptr) {
        order = d[0];
        d.erase(0, 1);
    }
    if (d.size() < 2 || !std::isdigit(static_cast<unsigned char>(d[1])) ||
        d.find_first_not_of("0123456789", 1) != std::string::npos || d.size() > 4) {
        return fail(error, "unsupported dtype descr '" + descr + "'");
    }
    char kind = d[0];
    int size = std::stoi(d.substr(1));
    if (kind == 'V') {
        if (size != 2) return fail(error, "unsupported dtype descr '" + descr + "' (raw records)");
        if (!options.void2_dtype) {
            return fail(error, "dtype descr '" + descr +
                                   "' is raw 2-byte data (how numpy saves ml_dtypes.bfloat16); "
                                   "pass --dtype bfloat16 to read it as bfloat16");
        }
        if (info(*options.void2_dtype).size != 2) {
            return fail(error, "dtype descr '" + descr +
                                   "' has 2-byte elements but the requested dtype has " +
                                   std::to_string(info(*options.void2_dtype).size));
        }
        *dtype = *options.void2_dtype;
        *byte_swap = order == '>';
        return true;
    }
    if (kind == 'b' || kind == '?')
        return fail(error, "bool arrays ('" + descr +
                               "') are not supported; convert with astype(np.uint8)");
    for (const DTypeInfo &i : kDTypes) {
        if (i.kind == kind && i.size == size) {
            *dtype = i.dtype;
            *byte_swap = order == '>' && size > 1;
            return true;
        }
    }
    return fail(error,
                "unsupported dtype descr '" + descr +
                    "' (supported: float16/32/64, int8..int64, uint8..uint64, bfloat16 as '<V2')");
}

bool byte_count(const std::vector<int64_t> &shape, DType dtype, int64_t *bytes,
                std::string *error) {
    if (shape.size() > static_cast<size_t>(kMaxRank)) {
        return fail(error, "rank " + std::to_string(shape.size()) + " is above the maximum " +
                               std::to_string(kMaxRank));
    }
    const int64_t max = std::numeric_limits<int64_t>::max();
    int64_t n = info(dtype).size;
    for (int64_t d : shape) {
        if (d < 0) return fail(error, "shape " + shape_string(shape) + " has a negative dimension");
    }
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) n = 0;
    for (int64_t d : shape) {
        if (n != 0 && d > max / n) {
            return fail(error, "shape " + shape_string(shape) + " needs more than 2^63 bytes");
        }
        n *= std::max<int64_t>(d, 1);
    }
    *bytes = n;
    return true;
}

bool read(const std::string &path, Array *out, std::string *error, const ReadOptions &options) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return fail(error, "it is a directory");
    std::ifstream f(path, std::ios::binary);
    if (!f) return fail(error, error_text(errno));
    return read(f, out, error, options);
}

bool read(std::istream &f, Array *out, std::string *error, const ReadOptions &options) {
    f.seekg(0, std::ios::end);
    const int64_t file_size = static_cast<int64_t>(f.tellg());
    f.seekg(0, std::ios::beg);
    if (!f || file_size < 0) return fail(error, "cannot determine the file size");

    unsigned char prefix[12] = {};
    const int64_t have = std::min<int64_t>(file_size, sizeof prefix);
    f.read(reinterpret_cast<char *>(prefix), have);
    if (have < static_cast<int64_t>(kMagicSize) || std::memcmp(prefix, kMagic, kMagicSize) != 0) {
        return fail(error, "not a .npy file (bad magic string)");
    }
    if (have < 8) return fail(error, "truncated header (file ends before the format version)");
    const int major = prefix[6], minor = prefix[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0) {
        return fail(error, "unsupported .npy format version " + std::to_string(major) + "." +
                               std::to_string(minor));
    }
    const int len_bytes = major == 1 ? 2 : 4;
    const int64_t header_start = 8 + len_bytes;
    if (have < header_start)
        return fail(error, "truncated header (file ends inside the header length)");
    const uint32_t header_len = read_le(prefix + 8, len_bytes);
    if (header_len > kMaxHeaderBytes) {
        return fail(error, "header length " + std::to_string(header_len) + " is larger than the " +
                               std::to_string(kMaxHeaderBytes) + " bytes this reader accepts");
    }
    if (header_start + header_len > file_size) {
        return fail(error, "truncated header (header length " + std::to_string(header_len) +
                               " runs past the end of the " + std::to_string(file_size) +
                               "-byte file)");
    }
    std::string text(header_len, '\0');
    f.seekg(header_start, std::ios::beg);
    f.read(text.data(), header_len);
    if (!f) return fail(error, "cannot read the header");
    if (text.find('\0') != std::string::npos) return fail(error, "header contains a NUL byte");

    Header header;
    if (!parse_header(text, &header, error)) return false;
    bool swap = false;
    if (!dtype_from_descr(header.descr, options, &out->dtype, &swap, error)) return false;
    int64_t bytes = 0;
    if (!byte_count(header.shape, out->dtype, &bytes, error)) return false;
    const int64_t data_start = header_start + header_len;
    if (file_size - data_start < bytes) {
        return fail(error, "data is " + std::to_string(file_size - data_start) +
                               " bytes but shape " + shape_string(header.shape) + " of '" +
                               header.descr + "' needs " + std::to_string(bytes));
    }
    if (!out->data.allocate(static_cast<size_t>(bytes))) {
        return fail(error, "out of memory allocating " + std::to_string(bytes) + " bytes");
    }
    f.read(reinterpret_cast<char *>(out->data.data()), bytes);
    if (!f) return fail(error, "cannot read " + std::to_string(bytes) + " data bytes");
    if (swap)
        byte_swap_in_place(out->data.data(), static_cast<size_t>(bytes), info(out->dtype).size);
    out->shape = header.shape;
    out->fortran_order = header.fortran_order;
    return true;
}

std::string shape_string(const std::vector<int64_t> &shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {

// Magic, version 1.0, header length and the header dict, padded with spaces and a final newline
// so the data starts 64-byte aligned, as numpy does.
std::string header_bytes(DType dtype, const std::vector<int64_t> &shape) {
    std::string dict = std::string("{'descr': '") + descr_for(dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
    const size_t unpadded = kMagicSize + 2 + 2 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';  // rank <= 8 keeps the dict far below the 65535 bytes of a version 1.0 header
    std::string out(kMagic, kMagicSize);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict;
}

bool check_array(DType dtype, const std::vector<int64_t> &shape, const void *data, int64_t *bytes,
                 std::string *error) {
    if (!byte_count(shape, dtype, bytes, error)) return false;
    if (*bytes > 0 && data == nullptr) return fail(error, "null data for a non-empty array");
    return true;
}

}  // namespace

bool encode(DType dtype, const std::vector<int64_t> &shape, const void *data, std::string *bytes,
            std::string *error) {
    int64_t n = 0;
    if (!check_array(dtype, shape, data, &n, error)) return false;
    *bytes = header_bytes(dtype, shape);
    bytes->append(static_cast<const char *>(data), static_cast<size_t>(n));
    return true;
}

bool write(const std::string &path, DType dtype, const std::vector<int64_t> &shape,
           const void *data, std::string *error) {
    int64_t n = 0;
    if (!check_array(dtype, shape, data, &n, error)) return false;
    const std::string header = header_bytes(dtype, shape);

    // A fresh temporary name next to `path`, so the final rename stays on one file system.
    std::random_device rd;
    std::string tmp;
    std::FILE *f = nullptr;
    for (int attempt = 0; attempt < 16 && f == nullptr; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, ".tmp%08x", static_cast<unsigned>(rd()));
        tmp = path + suffix;
        f = std::fopen(tmp.c_str(), "wbx");
        if (f == nullptr && errno != EEXIST) break;
    }
    if (f == nullptr) return fail(error, error_text(errno));
    bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
              (n == 0 || std::fwrite(data, 1, static_cast<size_t>(n), f) == static_cast<size_t>(n));
    int err = errno;
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    std::error_code ec;
    std::string message = ok ? "" : error_text(err);
    if (ok) {
        std::filesystem::rename(tmp, path, ec);
        if (!ec) return true;
        message = "cannot move the temporary file into place: " + ec.message();
    }
    std::filesystem::remove(tmp, ec);
    return fail(error, message);
}

}  // namespace lpnorm::npy
