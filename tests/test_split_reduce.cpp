// Reductions split because a dimension or stride exceeds what the kernels index
// (runtime/split_reduce.h). The split limits are lowered so that small tensors take every path
// the huge ones take: kept axes sliced, reduced axes cut into chunks whose partial sums are
// combined and finished in the runtime, and the accumulator memory bounded by slicing kept axes
// first. Every result is checked against the reference.
#include <cmath>

#include "test_util.h"

namespace lpnorm::test {
namespace {

std::vector<int64_t> axes_of(int rank, unsigned mask) {
    std::vector<int64_t> axes;
    for (int i = 0; i < rank; ++i)
        if (mask & (1u << i)) axes.push_back(i);
    return axes;
}

TEST(SplitReduce, EveryDtypeAxesSetAndPClass) {
    // Extents 7, 5 and 9 exceed the limit 4, and so do the strides 45 and 9: every axis is
    // sliced or chunked (chunks of 3 leave ragged last chunks).
    SplitLimitsScope limits(4, 3, 1 << 20);
    FailureBudget budget;
    uint64_t seed = 11;
    for (DType dtype : all_dtypes()) {
        Array x = make_array(dtype, {7, 5, 9});
        fill_random(&x, seed++);
        for (unsigned mask = 1; mask < 8; ++mask)
            for (double p : p_classes())
                if (!budget.record(check_reduce(x.t, params(axes_of(3, mask), p, mask == 5))))
                    return;
    }
}

TEST(SplitReduce, ReallySplits) {
    SplitLimitsScope limits(4, 3, 1 << 20);
    Array x = make_array(DType::float32, {7, 5, 9});
    fill_random(&x, 3);
    Status s;
    run_reduce(x.t, params({0, 1, 2}, 2), &s);
    ASSERT_TRUE(s.ok()) << s.message();
    // Axis 0 (stride 45) and axis 1 (stride 9) one index at a time, axis 2 in chunks of 3.
    EXPECT_EQ(testing::last_kernel_calls(), 7 * 5 * 3);
    testing::set_split_limits(0);
    run_reduce(x.t, params({0, 1, 2}, 2), &s);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(testing::last_kernel_calls(), 1);
}

TEST(SplitReduce, StridedAndNegativeStrides) {
    SplitLimitsScope limits(5, 2, 1 << 20);
    FailureBudget budget;
    for (DType dtype : {DType::float32, DType::float16, DType::float64, DType::int16}) {
        Array x = make_strided(dtype, {6, 4, 11}, {-3, 40, 2});
        fill_random(&x, 5);
        for (unsigned mask = 1; mask < 8; ++mask)
            for (double p : {1.0, 2.0, 0.5, HUGE_VAL, -HUGE_VAL})
                if (!budget.record(check_reduce(x.t, params(axes_of(3, mask), p)))) return;
    }
}

TEST(SplitReduce, AccumulatorMemoryBoundSlicesKeptAxesFirst) {
    // At most 4 accumulators: reducing axis 1 (blocked by its extent) keeps 6 * 9 outputs, so
    // the kept axes are sliced until a piece holds 4 or fewer.
    SplitLimitsScope limits(8, 4, 4);
    FailureBudget budget;
    for (DType dtype : {DType::float32, DType::bfloat16, DType::uint8, DType::int64}) {
        Array x = make_array(dtype, {6, 17, 9});
        fill_random(&x, 9);
        for (double p : p_classes())
            if (!budget.record(check_reduce(x.t, params({1}, p)))) return;
    }
}

TEST(SplitReduce, SpecialValuesInLaterChunks) {
    SplitLimitsScope limits(4, 3, 1 << 20);
    const long double inf = HUGE_VAL, nan = NAN;
    for (DType dtype : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        // Row 0: a NaN in the last chunk; row 1: an inf in the middle chunk; row 2: all zero
        // but one, in the last chunk; row 3: finite.
        std::vector<long double> v(4 * 10, 0.5L);
        v[9] = nan;
        v[10 + 4] = -inf;
        for (int i = 20; i < 30; ++i) v[i] = 0;
        v[29] = -3;
        Array x = make_from(dtype, {4, 10}, v);
        for (double p : p_classes()) EXPECT_TRUE(check_reduce(x.t, params({1}, p)));
    }
}

TEST(SplitReduce, IntegerSaturationAfterCombining) {
    // Each chunk's partial sum fits int8, the total does not: the result saturates once, at
    // the end, rather than per chunk.
    SplitLimitsScope limits(4, 3, 1 << 20);
    Array x = make_from(DType::int8, {12}, std::vector<long double>(12, -100));
    for (double p : {1.0, 2.0, 0.5}) EXPECT_TRUE(check_reduce(x.t, params({0}, p)));
    Array y = make_from(DType::uint16, {12}, std::vector<long double>(12, 30000));
    for (double p : {1.0, 2.0, 3.0}) EXPECT_TRUE(check_reduce(y.t, params({0}, p)));
}

}  // namespace
}  // namespace lpnorm::test
