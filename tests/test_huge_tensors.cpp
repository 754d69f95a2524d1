// Tensors beyond 32-bit indexing, for real: more than 2^31 elements, a single dimension longer
// than 2^31 - 1, strides beyond 2^31 - 1. The inputs live in lazily zero-filled anonymous
// mappings with a few non-zero elements placed around the 2^30 and 2^31 boundaries, so they
// cost little resident memory; the expected values come from the reference applied to the
// non-zero elements plus one zero (zeros add nothing to a sum; they are the minimum of |x|).
#ifdef _WIN32
#define NOMINMAX
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <sys/mman.h>
#endif

#include <cmath>
#include <cstring>

#include "reference/reduce_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

// Each test streams more than 2^31 elements through the kernels: about 30 s natively, hours
// under an emulator. Cross builds run their tests with LPNORM_TEST_EMULATED set
// (tests/CMakeLists.txt), and these tests skip there.
class HugeTensors : public ::testing::Test {
protected:
    void SetUp() override {
        if (running_emulated()) {
            GTEST_SKIP() << "2^31-element inputs take hours under an emulator; run natively";
        }
    }
};

constexpr int64_t k2to30 = int64_t(1) << 30;
constexpr int64_t k2to31 = int64_t(1) << 31;

// Zero-filled memory that is only backed where it is written.
class LazyBuffer {
public:
    explicit LazyBuffer(int64_t bytes) : bytes_(size_t(bytes)) {
#ifdef _WIN32
        // Committed pages are zero-filled on first touch; only those get physical memory.
        void *p = VirtualAlloc(nullptr, bytes_, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        data_ = static_cast<unsigned char *>(p);
#else
        void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        data_ = p == MAP_FAILED ? nullptr : static_cast<unsigned char *>(p);
#endif
    }
    ~LazyBuffer() {
#ifdef _WIN32
        if (data_) VirtualFree(data_, 0, MEM_RELEASE);
#else
        if (data_) munmap(data_, bytes_);
#endif
    }
    LazyBuffer(const LazyBuffer &) = delete;
    LazyBuffer &operator=(const LazyBuffer &) = delete;
    unsigned char *data() const { return data_; }

private:
    size_t bytes_;
    unsigned char *data_;
};

struct Placed {
    int64_t offset;  // element offset from the tensor's data pointer
    long double value;
};

// Checks reduce(input) over every axis against the reference on the placed values and a zero.
void expect_norms_of(const Tensor &input, const std::vector<Placed> &placed,
                     const std::vector<double> &ps) {
    std::vector<long double> compact;
    for (const Placed &e : placed) compact.push_back(e.value);
    compact.push_back(0);
    Array small = make_from(input.dtype, {int64_t(compact.size())}, compact);
    for (double p : ps) {
        ReduceParams all = params({}, p);  // empty axes, reduce_all: every axis
        const ref::Result expected = ref::reduce(small.t, all);
        ASSERT_TRUE(expected.ok) << expected.error;
        unsigned char out[8 + 16];
        std::memset(out, 0xA5, sizeof(out));
        const Status s = reduce(input, Tensor::contiguous(out + 8, input.dtype, {}), all);
        ASSERT_TRUE(s.ok()) << describe(input, all) << ": " << s.message();
        const long double got = ref::load(input.dtype, out + 8);
        EXPECT_TRUE(ref::matches(input.dtype, p, expected.values[0], got))
            << describe(input, all) << ": got " << got << ", exact " << expected.values[0].value;
        for (size_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], 0xA5) << "byte before the output";
        for (size_t i = 8 + dtype_size(input.dtype); i < sizeof(out); ++i)
            EXPECT_EQ(out[i], 0xA5) << "byte after the output";
    }
}

void place(const Tensor &t, const std::vector<Placed> &placed) {
    for (const Placed &e : placed)
        ref::store(t.dtype,
                   static_cast<unsigned char *>(t.data) + e.offset * int64_t(dtype_size(t.dtype)),
                   e.value);
}

// Offsets around the chunk (2^30) and 32-bit (2^31) boundaries of a dim of length n.
std::vector<Placed> boundary_values(int64_t n) {
    return {{0, 3},           {k2to30 - 1, -5}, {k2to30, 7}, {k2to31 - 2, 2},
            {k2to31 - 1, -1}, {k2to31, 4},      {n - 1, -6}};
}

TEST_F(HugeTensors, OneDimensionLongerThan2to31) {
    // Each dtype with a sum-type p and an extreme one (the two accumulator kinds).
    const int64_t n = k2to31 + 17;
    const std::vector<std::pair<DType, std::vector<double>>> cases = {
        {DType::int8, {2, -HUGE_VAL}}, {DType::uint8, {1, HUGE_VAL}}, {DType::float16, {0.5, 0}}};
    for (const auto &[dtype, ps] : cases) {
        LazyBuffer buffer(n * int64_t(dtype_size(dtype)));
        ASSERT_NE(buffer.data(), nullptr) << "cannot map " << n << " elements";
        const Tensor x = Tensor::contiguous(buffer.data(), dtype, {n});
        std::vector<Placed> placed = boundary_values(n);
        if (dtype == DType::uint8)
            for (Placed &e : placed) e.value = std::fabs(e.value);
        if (dtype == DType::float16)
            for (Placed &e : placed) e.value *= 0.375L;  // fractions: the float32 sums round
        place(x, placed);
        expect_norms_of(x, placed, ps);
    }
}

TEST_F(HugeTensors, MoreThan2to31ElementsInFittingDims) {
    // [3, 2^30 + 1]: each dim fits 32 bits, the element count does not.
    const int64_t rows = 3, cols = k2to30 + 1;
    LazyBuffer buffer(rows * cols);
    ASSERT_NE(buffer.data(), nullptr);
    const Tensor x = Tensor::contiguous(buffer.data(), DType::uint8, {rows, cols});
    const std::vector<Placed> placed = {{0, 9}, {cols, 1}, {2 * cols + 5, 200}, {3 * cols - 1, 4}};
    place(x, placed);
    expect_norms_of(x, placed, {1, 2, HUGE_VAL});
    // Per row: the inner pattern over rows of 2^30 + 1.
    Array out = make_array(DType::uint8, {rows});
    ASSERT_TRUE(reduce(x, out.t, params({1}, 1)).ok());
    EXPECT_EQ(out.at(0), 9);
    EXPECT_EQ(out.at(1), 1);
    EXPECT_EQ(out.at(2), 204);
}

TEST_F(HugeTensors, StridesBeyond2to31) {
    // A [3, 5] view whose rows are 2^31 + 3 elements apart, forward and backward.
    const int64_t row = k2to31 + 3;
    LazyBuffer buffer(2 * row + 5);
    ASSERT_NE(buffer.data(), nullptr);
    Array compact = make_array(DType::uint8, {3, 5});
    fill_random(&compact, 21);
    for (int64_t sign : {1, -1}) {
        unsigned char *origin = buffer.data() + (sign > 0 ? 0 : 2 * row);
        const Tensor x = Tensor::strided(origin, DType::uint8, {3, 5}, {sign * row, 1});
        for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 5; ++j)
                origin[i * sign * row + j] = (unsigned char)compact.get({i, j});
        for (const std::vector<int64_t> &axes : {std::vector<int64_t>{0}, {1}, {0, 1}})
            for (double p : {1.0, 2.0, -HUGE_VAL}) {
                Status s;
                Array got = run_reduce(x, params(axes, p), &s);
                ASSERT_TRUE(s.ok()) << s.message();
                Array want = run_reduce(compact.t, params(axes, p), &s);
                ASSERT_TRUE(s.ok()) << s.message();
                EXPECT_EQ(got.storage, want.storage) << describe(x, params(axes, p));
                EXPECT_GT(testing::last_kernel_calls(), 0);
            }
    }
}

TEST_F(HugeTensors, KeptDimensionLongerThan2to31) {
    // [2^31 + 5, 1] int8 reduced over its last axis: 2^31 + 5 outputs (2 GiB), y = |x|.
    const int64_t n = k2to31 + 5;
    LazyBuffer input(n);
    LazyBuffer out(n + 64);
    ASSERT_NE(input.data(), nullptr);
    ASSERT_NE(out.data(), nullptr);
    const std::vector<Placed> placed = {{0, -3},         {k2to30 - 1, 5}, {k2to30, -128},
                                        {k2to31 - 1, 7}, {k2to31, -1},    {n - 1, 100}};
    const Tensor x = Tensor::contiguous(input.data(), DType::int8, {n, 1});
    place(x, placed);
    std::memset(out.data(), 0xA5, size_t(n + 64));
    ASSERT_TRUE(reduce(x, Tensor::contiguous(out.data(), DType::int8, {n}), params({1}, 1)).ok());
    EXPECT_GE(testing::last_kernel_calls(), 3);
    int64_t nonzero = 0;
    for (int64_t i = 0; i < n; ++i) nonzero += out.data()[i] != 0;
    EXPECT_EQ(nonzero, int64_t(placed.size()));
    for (const Placed &e : placed) {
        const long double want = std::min(std::fabs(e.value), 127.0L);  // |-128| saturates
        EXPECT_EQ(ref::load(DType::int8, out.data() + e.offset), want) << "offset " << e.offset;
    }
    for (int64_t i = n; i < n + 64; ++i) ASSERT_EQ(out.data()[i], 0xA5) << "byte " << i;
}

TEST_F(HugeTensors, PoolingAlongADimensionLongerThan2to31) {
    // [1, 1, 2^31 + 9] broadcast from one float16 value 0.5 (strides 0), windows of 64 with
    // stride 64 and ceil_mode: 2^25 full windows, sqrt(64 * 0.25) = 4, then one window of the
    // last 9 elements, sqrt(9 * 0.25) = 1.5.
    const int64_t n = k2to31 + 9;
    const uint16_t half = 0x3800;  // 0.5
    const Tensor x = Tensor::strided(&half, DType::float16, {1, 1, n}, {0, 0, 0});
    PoolParams params;
    params.kernel = {64};
    params.strides = {64};
    params.ceil_mode = true;
    params.p = 2;
    std::vector<int64_t> shape;
    ASSERT_TRUE(pool_output_shape(x.shape_vector(), params, &shape).ok());
    const int64_t outputs = (int64_t(1) << 25) + 1;
    ASSERT_EQ(shape, (std::vector<int64_t>{1, 1, outputs}));
    std::vector<uint16_t> out(size_t(outputs), 0xFFFF);
    ASSERT_TRUE(pool(x, Tensor::contiguous(out.data(), DType::float16, shape), params).ok());
    EXPECT_GT(testing::last_kernel_calls(), 2);
    int64_t wrong = 0;
    for (int64_t i = 0; i + 1 < outputs; ++i) wrong += out[size_t(i)] != 0x4400;
    EXPECT_EQ(wrong, 0) << "full windows that are not 4";
    EXPECT_EQ(out[size_t(outputs - 1)], 0x3E00) << "the last window is not 1.5";
}

TEST_F(HugeTensors, PoolingWithBatchStrideBeyond2to31) {
    // Two [1, 9] images 2^31 + 3 elements apart.
    const int64_t gap = k2to31 + 3;
    LazyBuffer buffer((gap + 9) * 4);
    ASSERT_NE(buffer.data(), nullptr);
    Array compact = make_array(DType::float32, {2, 1, 9});
    fill_random(&compact, 5);
    auto *base = reinterpret_cast<float *>(buffer.data());
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 9; ++i) base[b * gap + i] = float(compact.get({b, 0, i}));
    const Tensor x = Tensor::strided(base, DType::float32, {2, 1, 9}, {gap, 9, 1});
    PoolParams params;
    params.kernel = {3};
    params.strides = {2};
    params.pads = {1, 1};
    params.p = 3;
    Array got = make_array(DType::float32, {2, 1, 5});
    Array want = make_array(DType::float32, {2, 1, 5});
    ASSERT_TRUE(pool(x, got.t, params).ok());
    ASSERT_TRUE(pool(compact.t, want.t, params).ok());
    EXPECT_EQ(got.storage, want.storage);
}

}  // namespace
}  // namespace lpnorm::test
