// Tests of the .npy reader/writer used by the lpnorm CLI: round trips of every dtype, files as
// numpy writes them (byte strings captured from numpy 2.x np.save / np.lib.format.write_array),
// Fortran order, big-endian data and malformed files.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "npy.h"

namespace fs = std::filesystem;
using lpnorm::DType;
namespace npy = lpnorm::npy;

namespace {

std::string from_hex(const std::string &hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3))
const char *kNumpyF4 =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c"
    "73"
    "652c20277368617065273a2028322c2033292c207d2020202020202020202020202020202020202020202020202020"
    "2020"
    "2020202020202020202020202020202020202020202020202020202020200a000000000000803f0000004000004040"
    "0000"
    "80400000a040";
// np.save(f, np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
const char *kNumpyFortranF8 =
    "934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a20547275"
    "65"
    "2c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020202020202020"
    "202020"
    "20202020202020202020202020202020202020202020202020202020200a0000000000000000000000000000084000"
    "00000000"
    "00f03f000000000000104000000000000000400000000000001440";

// A file with the given version (1, 2 or 3), header text (padded to 64 bytes like numpy) and data.
std::string npy_file(int version, std::string dict, const std::string &data) {
    const size_t len_bytes = version == 1 ? 2 : 4;
    while ((6 + 2 + len_bytes + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(version);
    out += '\0';
    for (size_t i = 0; i < len_bytes; ++i)
        out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
    return out + dict + data;
}

std::string dict(const std::string &descr, const std::string &shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
           ", 'shape': " + shape + ", }";
}

class NpyTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("lpnorm_npy_test_" + std::to_string(std::random_device()()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string put(const std::string &name, const std::string &bytes) {
        std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    // Reads bytes through a file; returns the error ("" on success).
    std::string read_bytes(const std::string &bytes, npy::Array *out,
                           npy::ReadOptions options = {}) {
        std::string error;
        return npy::read(put("in.npy", bytes), out, &error, options) ? "" : error;
    }
    std::string read_error(const std::string &bytes) {
        npy::Array a;
        std::string error = read_bytes(bytes, &a);
        EXPECT_FALSE(error.empty()) << "expected an error";
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
        return error;
    }

    fs::path dir_;
};

#define EXPECT_HAS(haystack, needle)                                                               \
    EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

TEST_F(NpyTest, RoundTripsEveryDtype) {
    const DType all[] = {DType::float32, DType::float16, DType::bfloat16, DType::float64,
                         DType::int8,    DType::uint8,   DType::int16,    DType::uint16,
                         DType::int32,   DType::uint32,  DType::int64,    DType::uint64};
    const size_t sizes[] = {4, 2, 2, 8, 1, 1, 2, 2, 4, 4, 8, 8};
    for (int i = 0; i < 12; ++i) {
        SCOPED_TRACE(npy::descr_for(all[i]));
        std::vector<uint8_t> data(2 * 3 * 1 * sizes[i]);
        for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<uint8_t>(k * 37 + i);
        std::string path = (dir_ / "x.npy").string(), error;
        ASSERT_TRUE(npy::write(path, all[i], {2, 3, 1}, data.data(), &error)) << error;
        npy::ReadOptions options;
        if (all[i] == DType::bfloat16) options.void2_dtype = DType::bfloat16;
        npy::Array a;
        ASSERT_TRUE(npy::read(path, &a, &error, options)) << error;
        EXPECT_EQ(a.dtype, all[i]);
        EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3, 1}));
        EXPECT_FALSE(a.fortran_order);
        ASSERT_EQ(a.data.size(), data.size());
        EXPECT_EQ(std::memcmp(a.data.data(), data.data(), data.size()), 0);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data.data()) % 64, 0u);
    }
}

TEST_F(NpyTest, RoundTripsShapes) {
    const std::vector<std::vector<int64_t>> shapes = {
        {}, {5}, {0, 3}, {3, 0}, {1, 1, 1, 1, 1, 1, 1, 2}};
    for (const auto &shape : shapes) {
        SCOPED_TRACE(npy::shape_string(shape));
        std::vector<float> data(10, 1.5f);
        std::string path = (dir_ / "s.npy").string(), error;
        ASSERT_TRUE(npy::write(path, DType::float32, shape, data.data(), &error)) << error;
        npy::Array a;
        ASSERT_TRUE(npy::read(path, &a, &error)) << error;
        EXPECT_EQ(a.shape, shape);
        lpnorm::Tensor t = a.tensor();
        EXPECT_EQ(t.rank, static_cast<int>(shape.size()));
    }
}

TEST_F(NpyTest, ShapeStrings) {
    EXPECT_EQ(npy::shape_string({}), "()");
    EXPECT_EQ(npy::shape_string({5}), "(5,)");
    EXPECT_EQ(npy::shape_string({2, 3}), "(2, 3)");
}

TEST_F(NpyTest, EncodeMatchesNumpyByteForByte) {
    float v[6] = {0, 1, 2, 3, 4, 5};
    std::string bytes, error;
    ASSERT_TRUE(npy::encode(DType::float32, {2, 3}, v, &bytes, &error)) << error;
    EXPECT_EQ(bytes, from_hex(kNumpyF4));
}

TEST_F(NpyTest, ReadsNumpyCOrder) {
    npy::Array a;
    ASSERT_EQ(read_bytes(from_hex(kNumpyF4), &a), "");
    lpnorm::Tensor t = a.tensor();
    EXPECT_EQ(t.rank, 2);
    EXPECT_EQ(t.strides[0], 3);
    EXPECT_EQ(t.strides[1], 1);
    EXPECT_EQ(static_cast<const float *>(t.data)[5], 5.0f);
}

TEST_F(NpyTest, ReadsFortranOrderAsStridedViewWithoutCopy) {
    npy::Array a;
    ASSERT_EQ(read_bytes(from_hex(kNumpyFortranF8), &a), "");
    EXPECT_TRUE(a.fortran_order);
    lpnorm::Tensor t = a.tensor();
    ASSERT_EQ(t.rank, 2);
    EXPECT_EQ(t.shape[0], 2);
    EXPECT_EQ(t.shape[1], 3);
    EXPECT_EQ(t.strides[0], 1);
    EXPECT_EQ(t.strides[1], 2);
    EXPECT_EQ(t.data, static_cast<const void *>(a.data.data()));
    const double *p = static_cast<const double *>(t.data);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) EXPECT_EQ(p[i * t.strides[0] + j * t.strides[1]], i * 3 + j);
    }
}

TEST_F(NpyTest, FortranStridesOfRank3AndZeroDims) {
    npy::Array a;
    ASSERT_EQ(read_bytes(npy_file(1, dict("<i2", "(2, 3, 4)", true), std::string(48, '\0')), &a),
              "");
    lpnorm::Tensor t = a.tensor();
    EXPECT_EQ(t.strides[0], 1);
    EXPECT_EQ(t.strides[1], 2);
    EXPECT_EQ(t.strides[2], 6);
    ASSERT_EQ(read_bytes(npy_file(1, dict("<i2", "(2, 0, 4)", true), ""), &a), "");
    EXPECT_EQ(a.num_elements(), 0);
}

TEST_F(NpyTest, ByteSwapsBigEndian) {
    npy::Array a;
    // np.save(f, np.array([1, -2, 3], dtype='>i4'))
    ASSERT_EQ(
        read_bytes(npy_file(1, dict(">i4", "(3,)"), from_hex("00000001fffffffe00000003")), &a), "");
    EXPECT_EQ(a.dtype, DType::int32);
    const int32_t *p = reinterpret_cast<const int32_t *>(a.data.data());
    EXPECT_EQ(p[0], 1);
    EXPECT_EQ(p[1], -2);
    EXPECT_EQ(p[2], 3);
    ASSERT_EQ(read_bytes(npy_file(1, dict(">f8", "()"), from_hex("4004000000000000")), &a), "");
    EXPECT_EQ(*reinterpret_cast<const double *>(a.data.data()), 2.5);
}

TEST_F(NpyTest, ReadsVersions2And3AndRank0) {
    npy::Array a;
    ASSERT_EQ(read_bytes(npy_file(2, dict("<u2", "(2,)"), from_hex("01000200")), &a), "");
    EXPECT_EQ(a.dtype, DType::uint16);
    EXPECT_EQ(reinterpret_cast<const uint16_t *>(a.data.data())[1], 2);
    ASSERT_EQ(read_bytes(npy_file(3, dict("|i1", "(2, 1)"), from_hex("ff02")), &a), "");
    EXPECT_EQ(a.dtype, DType::int8);
    EXPECT_EQ(static_cast<int8_t>(a.data.data()[0]), -1);
    ASSERT_EQ(read_bytes(npy_file(1, dict("<f8", "()"), from_hex("0000000000000440")), &a), "");
    EXPECT_TRUE(a.shape.empty());
    EXPECT_EQ(a.num_elements(), 1);
    EXPECT_EQ(a.tensor().rank, 0);
}

TEST_F(NpyTest, AcceptsHeaderVariants) {
    npy::Array a;
    // Double quotes, other key order, no trailing comma, Python 2 longs, '=' byte order, extra
    // bytes.
    ASSERT_EQ(
        read_bytes(npy_file(1, "{\"shape\": (2L,3L),  \"fortran_order\":False,\"descr\":\"=u1\"}",
                            "abcdefXYZ"),
                   &a),
        "");
    EXPECT_EQ(a.dtype, DType::uint8);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.data.data()[5], 'f');
    ASSERT_EQ(read_bytes(npy_file(1, dict("u1", "( 2 , )"), "ab"), &a), "");
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
}

TEST_F(NpyTest, Bfloat16AsRawTwoByteRecords) {
    const std::string file = npy_file(1, dict("<V2", "(2,)"), from_hex("803f0040"));
    npy::Array a;
    EXPECT_HAS(read_bytes(file, &a), "--dtype bfloat16");
    npy::ReadOptions options;
    options.void2_dtype = DType::bfloat16;
    ASSERT_EQ(read_bytes(file, &a, options), "");
    EXPECT_EQ(a.dtype, DType::bfloat16);
    EXPECT_EQ(reinterpret_cast<const uint16_t *>(a.data.data())[0], 0x3f80);  // 1.0
    options.void2_dtype = DType::float32;
    EXPECT_HAS(read_bytes(file, &a, options), "2-byte");
    ASSERT_EQ(read_bytes(npy_file(1, dict("bfloat16", "(2,)"), from_hex("803f0040")), &a), "");
    EXPECT_EQ(a.dtype, DType::bfloat16);
    EXPECT_STREQ(npy::descr_for(DType::bfloat16), "<V2");
}

TEST_F(NpyTest, RejectsMalformedFiles) {
    const std::string good = npy_file(1, dict("<f4", "(2,)"), std::string(8, '\0'));
    EXPECT_HAS(read_error(""), "bad magic");
    EXPECT_HAS(read_error("hello world, not numpy"), "bad magic");
    EXPECT_HAS(read_error(good.substr(0, 7)), "truncated");
    EXPECT_HAS(read_error(good.substr(0, 9)), "truncated");
    EXPECT_HAS(read_error(good.substr(0, 40)), "runs past the end");
    EXPECT_HAS(read_error(good.substr(0, good.size() - 1)), "data is 7 bytes but shape (2,)");
    std::string v4 = good;
    v4[6] = 4;
    EXPECT_HAS(read_error(v4), "version 4.0");
    std::string huge_len = npy_file(2, dict("<f4", "(2,)"), "");
    huge_len[8] = huge_len[9] = huge_len[10] = huge_len[11] = '\xff';
    EXPECT_HAS(read_error(huge_len), "header length 4294967295");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(1099511627776, 1099511627776)"), "")), "2^63");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(99999999999999999999,)"), "")),
               "does not fit in int64");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), "")),
               "more than 8 dimensions");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(-1,)"), "")), "negative");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(2.5,)"), "")), "malformed");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "('a',)"), "")), "non-integer");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "[2]"), "")), "not a tuple");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(2 3)"), "")), "malformed");
    EXPECT_HAS(read_error(npy_file(1, dict("<c8", "(2,)"), "")), "unsupported dtype descr '<c8'");
    EXPECT_HAS(read_error(npy_file(1, dict("<U5", "(2,)"), "")), "unsupported dtype descr");
    EXPECT_HAS(read_error(npy_file(1, dict("|b1", "(2,)"), "")), "bool");
    EXPECT_HAS(read_error(npy_file(1, dict("<f", "(2,)"), "")), "unsupported dtype descr");
    EXPECT_HAS(read_error(npy_file(1, dict("<f99999", "(2,)"), "")), "unsupported dtype descr");
    EXPECT_HAS(read_error(npy_file(
                   1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "")),
               "structured");
    EXPECT_HAS(read_error(npy_file(1, "{'descr': '<f4', 'shape': (2,), }", "")),
               "no 'fortran_order'");
    EXPECT_HAS(read_error(npy_file(1, "{'descr': '<f4', 'fortran_order': False}", "")),
               "no 'shape'");
    EXPECT_HAS(read_error(npy_file(1, "{'fortran_order': False, 'shape': (2,)}", "")),
               "no 'descr'");
    EXPECT_HAS(read_error(npy_file(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "")),
               "True or False");
    EXPECT_HAS(read_error(npy_file(
                   1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "")),
               "unexpected key 'x'");
    EXPECT_HAS(read_error(npy_file(1, dict("<f4", "(2,)") + " junk", "")), "text after the dict");
    EXPECT_HAS(read_error(npy_file(1, "[1, 2]", "")), "not a Python dict");
    EXPECT_HAS(read_error(npy_file(1, "{'descr: '<f4'}", "")), "no ':'");
    EXPECT_HAS(read_error(npy_file(1, std::string("{'descr'\0", 9), "")), "NUL");
}

TEST_F(NpyTest, ReportsMissingFilesAndDirectories) {
    npy::Array a;
    std::string error;
    EXPECT_FALSE(npy::read((dir_ / "missing.npy").string(), &a, &error));
    EXPECT_HAS(error, "No such file");
    EXPECT_FALSE(npy::read(dir_.string(), &a, &error));
    EXPECT_HAS(error, "directory");
}

TEST_F(NpyTest, ByteCountOverflowAndRank) {
    int64_t bytes = 0;
    std::string error;
    EXPECT_TRUE(npy::byte_count({3, 0, int64_t(1) << 62}, DType::float64, &bytes, &error));
    EXPECT_EQ(bytes, 0);
    EXPECT_FALSE(npy::byte_count({int64_t(1) << 61, 4}, DType::float64, &bytes, &error));
    EXPECT_FALSE(npy::byte_count(std::vector<int64_t>(9, 1), DType::int8, &bytes, &error));
    EXPECT_HAS(error, "rank 9");
}

TEST_F(NpyTest, WriteIsAtomicAndLeavesNoTemporaryFiles) {
    const std::string path = (dir_ / "out.npy").string();
    std::string error;
    float v[2] = {1, 2};
    ASSERT_TRUE(npy::write(path, DType::float32, {2}, v, &error)) << error;
    float w[3] = {7, 8, 9};
    ASSERT_TRUE(npy::write(path, DType::float32, {3}, w, &error)) << error;  // replaces
    npy::Array a;
    ASSERT_TRUE(npy::read(path, &a, &error)) << error;
    EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
    // Failures write nothing.
    EXPECT_FALSE(
        npy::write((dir_ / "no_such_dir" / "x.npy").string(), DType::float32, {2}, v, &error));
    EXPECT_HAS(error, "No such file");
    EXPECT_FALSE(npy::write(dir_.string(), DType::float32, {2}, v, &error));  // a directory
    EXPECT_FALSE(npy::write(path, DType::float32, {2}, nullptr, &error));
    EXPECT_FALSE(npy::write(path, DType::float32, std::vector<int64_t>(9, 1), v, &error));
    int files = 0;
    for (const auto &entry : fs::directory_iterator(dir_)) {
        ++files;
        EXPECT_EQ(entry.path().filename(), "out.npy");
    }
    EXPECT_EQ(files, 1);
}

}  // namespace
