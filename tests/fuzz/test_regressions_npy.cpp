// Regression tests for the .npy reader, from fuzz_npy (inputs in regressions/fuzz_npy/).
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "npy.h"

namespace lpnorm::npy {
namespace {

// A file of an empty array with huge dims: Array::tensor() multiplied its strides past 2^63
// and Array::num_elements() could overflow before reaching the 0 (signed overflow). The
// strides saturate now and the count is 0.
TEST(FuzzRegressions, NpyEmptyArrayWithHugeDims) {
    const int64_t big = int64_t(1) << 40;
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{1, 0, 1511627776, big}, std::vector<int64_t>{big, big, 0}}) {
        std::string bytes, error;
        ASSERT_TRUE(encode(DType::uint8, shape, nullptr, &bytes, &error)) << error;
        std::istringstream in(bytes);
        Array a;
        ASSERT_TRUE(read(in, &a, &error)) << error;
        EXPECT_EQ(a.num_elements(), 0);
        const Tensor t = a.tensor();
        ASSERT_EQ(t.rank, int(shape.size()));
        EXPECT_EQ(t.strides[shape.size() - 1], 1);
        if (shape[0] == 1) {
            EXPECT_EQ(t.strides[2], big);
            EXPECT_EQ(t.strides[1], INT64_MAX);
            EXPECT_EQ(t.strides[0], INT64_MAX);
        }
    }
}

}  // namespace
}  // namespace lpnorm::npy
