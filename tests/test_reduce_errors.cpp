// Bad input: each error path returns its code, names the argument and value, and leaves the
// (canary-filled) output untouched.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "test_util.h"

namespace lpnorm::test {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Calls reduce and checks the code, the message fragments, and that `watched` (the storage
// behind the output, canary-filled) is unchanged.
void expect_error(const Tensor &in, const Tensor &out, const ReduceParams &p, ErrorCode code,
                  std::vector<std::string> fragments, const std::vector<unsigned char> &watched) {
    const std::vector<unsigned char> before = watched;
    const Status s = reduce(in, out, p);
    EXPECT_EQ(s.code(), code) << describe(in, p) << ": " << error_code_name(s.code()) << ": "
                              << s.message();
    for (const std::string &f : fragments)
        EXPECT_NE(lower(s.message()).find(lower(f)), std::string::npos)
            << "message \"" << s.message() << "\" lacks \"" << f << "\"";
    EXPECT_TRUE(before == watched) << describe(in, p) << ": output written on error";
}

// reduce_output_shape reports the same error for a bad attribute.
void expect_shape_error(const Tensor &in, const ReduceParams &p) {
    std::vector<int64_t> shape;
    EXPECT_EQ(reduce_output_shape(in.shape_vector(), p, &shape).code(), ErrorCode::invalid_argument)
        << describe(in, p);
}

struct Fixture : public ::testing::Test {
    Array in = make_array(DType::float32, {2, 3, 4, 5});
    Array out = make_array(DType::float32, {2, 3, 4, 5});  // large enough for every output
    void SetUp() override {
        fill_random(&in, 1);
        fill_bytes(&out, 0xA5);
    }
    Tensor out_as(const std::vector<int64_t> &shape, DType d = DType::float32) {
        return Tensor::contiguous(out.storage.data(), d, shape);
    }
    void expect(const Tensor &in_t, const Tensor &out_t, const ReduceParams &p, ErrorCode code,
                std::vector<std::string> fragments) {
        expect_error(in_t, out_t, p, code, std::move(fragments), out.storage);
    }
};

using Errors = Fixture;

TEST_F(Errors, DuplicateAxis) {
    expect(in.t, out_as({2, 4, 5}), params({1, 1}, 2), ErrorCode::invalid_argument,
           {"axes[1]", "1"});
    expect(in.t, out_as({2, 4, 5}), params({1, -3}, 2), ErrorCode::invalid_argument,
           {"axes[1]", "-3"});
    expect_shape_error(in.t, params({1, -3}, 2));
}

TEST_F(Errors, AxisOutOfRange) {
    expect(in.t, out_as({3, 4, 5}), params({0, 7}, 2), ErrorCode::invalid_argument,
           {"axes[1]", "7"});
    expect(in.t, out_as({3, 4, 5}), params({4}, 2), ErrorCode::invalid_argument, {"axes[0]", "4"});
    expect(in.t, out_as({3, 4, 5}), params({-5}, 2), ErrorCode::invalid_argument,
           {"axes[0]", "-5"});
    expect_shape_error(in.t, params({0, 7}, 2));
    const Array scalar = make_from(DType::float32, {}, {1});
    expect(scalar.t, out_as({}), params({0}, 2), ErrorCode::invalid_argument, {"axes[0]", "0"});
}

TEST_F(Errors, InvalidP) {
    for (double p : {-1.0, -0.5, -2.0}) {
        std::ostringstream v;
        v << p;
        expect(in.t, out_as({2, 3, 4}), params({3}, p), ErrorCode::invalid_argument,
               {"p", v.str()});
    }
    expect(in.t, out_as({2, 3, 4}), params({3}, NAN), ErrorCode::invalid_argument, {"p", "nan"});
    expect_shape_error(in.t, params({3}, -1));
}

TEST_F(Errors, BadEmptyAxesPolicy) {
    expect(in.t, out_as({}), params({}, 2, false, static_cast<EmptyAxes>(7)),
           ErrorCode::invalid_argument, {"empty_axes", "7"});
    expect_shape_error(in.t, params({}, 2, false, static_cast<EmptyAxes>(7)));
}

TEST_F(Errors, OutputShapeMismatch) {
    expect(in.t, out_as({2, 3, 4}), params({2}, 2), ErrorCode::shape_mismatch, {"output"});
    expect(in.t, out_as({2, 3, 1, 5}), params({2}, 2), ErrorCode::shape_mismatch,
           {"output"});  // keep_dims off
    expect(in.t, out_as({2, 3, 5}), params({2}, 2, true), ErrorCode::shape_mismatch, {"output"});
}

TEST_F(Errors, OutputDtypeMismatch) {
    expect(in.t, out_as({2, 3, 4}, DType::float16), params({3}, 2), ErrorCode::dtype_mismatch,
           {"float16", "float32"});
    expect(in.t, out_as({2, 3, 4}, DType::float64), params({3}, 2), ErrorCode::dtype_mismatch,
           {"float64"});
}

TEST_F(Errors, NullData) {
    const Tensor null_in = Tensor::contiguous(nullptr, DType::float32, {2, 3, 4, 5});
    expect(null_in, out_as({2, 3, 4}), params({3}, 2), ErrorCode::null_pointer, {"input"});
    const Tensor null_out = Tensor::contiguous(nullptr, DType::float32, {2, 3, 4});
    EXPECT_EQ(reduce(in.t, null_out, params({3}, 2)).code(), ErrorCode::null_pointer);
    EXPECT_NE(lower(reduce(in.t, null_out, params({3}, 2)).message()).find("output"),
              std::string::npos);
}

TEST_F(Errors, RankAboveEight) {
    const std::vector<int64_t> nine(9, 1);
    const Tensor t = Tensor::contiguous(in.storage.data(), DType::float32, nine);
    expect(t, out_as({}), params({0}, 2), ErrorCode::invalid_argument, {"rank", "9"});
    const std::vector<int64_t> eight(8, 1);
    const Tensor ok8 = Tensor::contiguous(in.storage.data(), DType::float32, eight);
    EXPECT_TRUE(check_reduce(ok8, params({0, 7}, 2)));
}

TEST_F(Errors, NegativeDims) {
    const Tensor t = Tensor::strided(in.storage.data(), DType::float32, {2, -3}, {3, 1});
    expect(t, out_as({2}), params({1}, 2), ErrorCode::invalid_argument, {"-3"});
    const Tensor o = Tensor::strided(out.storage.data(), DType::float32, {-2}, {1});
    const Array ok_in = make_array(DType::float32, {2, 3});
    EXPECT_EQ(reduce(ok_in.t, o, params({1}, 2)).code(), ErrorCode::invalid_argument);
}

TEST_F(Errors, ByteCountOverflow) {
    // 2^32 * 2^31 float32 elements = 2^65 bytes: the data is never touched.
    const Tensor t =
        Tensor::contiguous(in.storage.data(), DType::float32, {int64_t{1} << 32, int64_t{1} << 31});
    expect(t, out_as({}), params({}, 2), ErrorCode::too_large, {});
    const Tensor u = Tensor::contiguous(in.storage.data(), DType::float64, {int64_t{1} << 62, 4});
    expect(u, out_as({1ll << 62}, DType::float64), params({1}, 2), ErrorCode::too_large, {});
}

TEST_F(Errors, StridesWhoseByteSpanOverflows) {
    // 3 elements, but 2 * 2^61 elements of stride is 2^65 bytes away from data.
    const Tensor t = Tensor::strided(in.storage.data(), DType::float32, {3}, {int64_t{1} << 61});
    expect(t, out_as({}), params({0}, 2), ErrorCode::too_large, {});
    const Tensor n = Tensor::strided(in.storage.data(), DType::float32, {3}, {-(int64_t{1} << 61)});
    expect(n, out_as({}), params({0}, 2), ErrorCode::too_large, {});
}

TEST_F(Errors, NonDenseOutput) {
    const Tensor o = Tensor::strided(out.storage.data(), DType::float32, {2, 3, 4}, {24, 8, 2});
    expect(in.t, o, params({3}, 2), ErrorCode::invalid_argument, {"output.strides"});
}

TEST_F(Errors, OverlappingInputAndOutput) {
    Array x = make_array(DType::float32, {4, 8});
    fill_random(&x, 2);
    const Tensor same = Tensor::contiguous(x.storage.data(), DType::float32, {4});
    expect_error(x.t, same, params({1}, 2), ErrorCode::aliasing, {}, x.storage);
    const Tensor inside =
        Tensor::contiguous(x.storage.data() + 20 * sizeof(float), DType::float32, {4});
    expect_error(x.t, inside, params({1}, 2), ErrorCode::aliasing, {}, x.storage);
    const Tensor whole = Tensor::contiguous(x.storage.data(), DType::float32, {4, 8});
    expect_error(x.t, whole, params({}, 2, false, EmptyAxes::identity), ErrorCode::aliasing, {},
                 x.storage);
    // Adjacent but disjoint memory is fine.
    Array both = make_array(DType::float32, {36});
    const Tensor in2 = Tensor::contiguous(both.storage.data(), DType::float32, {4, 8});
    const Tensor out2 =
        Tensor::contiguous(both.storage.data() + 32 * sizeof(float), DType::float32, {4});
    EXPECT_TRUE(reduce(in2, out2, params({1}, 2)).ok());
}

TEST_F(Errors, UnsupportedIsaIsReported) {
    for (Isa isa : all_isas()) {
        const Status s = set_isa(isa);
        if (!cpu_supports(isa)) {
            EXPECT_EQ(s.code(), ErrorCode::unsupported) << isa_name(isa);
        }
        if (!s.ok()) {
            EXPECT_NE(s.message().find(isa_name(isa)), std::string::npos) << s.message();
        }
    }
    EXPECT_TRUE(set_isa(Isa::auto_detect).ok());
    EXPECT_EQ(active_isa(), detected_isa());
}

// Detection takes avx512_zen5 exactly on AMD family 1Ah (Zen 5) and later, as Linux's
// /proc/cpuinfo names the CPU (the runtime reads CPUID itself), and never on other CPUs.
TEST_F(Errors, Zen5KernelsAreDetectedOnZen5Only) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, vendor;
    int family = -1;
    while (std::getline(cpuinfo, line) && (vendor.empty() || family < 0)) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos || colon + 2 > line.size()) continue;
        if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(colon + 2);
        if (line.rfind("cpu family", 0) == 0) family = std::stoi(line.substr(colon + 2));
    }
    if (vendor.empty() || family < 0) GTEST_SKIP() << "no x86 /proc/cpuinfo here";
    bool built = false;
    for (const VariantInfo &v : compiled_variants()) built = built || v.isa == Isa::avx512_zen5;
    if (!built || !cpu_supports(Isa::avx512)) GTEST_SKIP() << "no avx512_zen5 kernels to take";
    const bool zen5 = vendor == "AuthenticAMD" && family >= 0x1A;
    EXPECT_EQ(detected_isa() == Isa::avx512_zen5, zen5)
        << vendor << " family " << family << ": detected " << isa_name(detected_isa());
}

}  // namespace
}  // namespace lpnorm::test
