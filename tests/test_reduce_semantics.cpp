// The semantics contract of lpnorm::reduce (lpnorm.h, DESIGN.md section 1): axes, keep_dims,
// empty-axes policies, zero-size dims, special values, strides, rank 0, overflow-prone values,
// integer truncation and saturation.
#include <cmath>
#include <limits>

#include "test_util.h"

namespace lpnorm::test {
namespace {

const long double kInf = HUGE_VAL;
const long double kNaN = NAN;

std::vector<int64_t> axes_of(int rank, unsigned mask, bool negative) {
    std::vector<int64_t> axes;
    for (int i = 0; i < rank; ++i)
        if (mask & (1u << i)) axes.push_back(negative && (i % 2 == 0) ? i - rank : i);
    return axes;
}

TEST(Semantics, AllAxesBitmasksRanks1To6) {
    const std::vector<int64_t> full = {3, 2, 5, 1, 4, 2};
    uint64_t seed = 7;
    for (DType dtype : {DType::float32, DType::float16, DType::int32}) {
        for (int rank = 1; rank <= 6; ++rank) {
            Array x = make_array(dtype, std::vector<int64_t>(full.begin(), full.begin() + rank));
            fill_random(&x, seed++);
            for (unsigned mask = 1; mask < (1u << rank); ++mask)
                for (bool keep : {false, true})
                    for (double p : {1.0, 2.0, 0.5, HUGE_VAL})
                        ASSERT_TRUE(
                            check_reduce(x.t, params(axes_of(rank, mask, mask % 3 == 0), p, keep)));
        }
    }
}

TEST(Semantics, Ranks7And8) {
    const std::vector<int64_t> full = {2, 3, 1, 2, 3, 2, 1, 3};
    for (int rank : {7, 8}) {
        Array x =
            make_array(DType::float32, std::vector<int64_t>(full.begin(), full.begin() + rank));
        fill_random(&x, 70 + rank);
        for (unsigned mask = 1; mask < (1u << rank); mask += 7)
            for (double p : {1.0, 2.0, HUGE_VAL})
                ASSERT_TRUE(check_reduce(x.t, params(axes_of(rank, mask, mask & 2), p, mask & 4)));
    }
}

TEST(Semantics, ForcedGeneralOnEveryBitmask) {
    const std::vector<int64_t> full = {3, 2, 5, 1, 4, 2};
    PatternScope forced(testing::Pattern::general);
    Array x = make_array(DType::float32, full);
    fill_random(&x, 3);
    for (unsigned mask = 1; mask < 64; ++mask)
        for (double p : {2.0, -HUGE_VAL})
            ASSERT_TRUE(check_reduce(x.t, params(axes_of(6, mask, true), p, mask & 1)));
}

TEST(Semantics, NegativeAxesEqualPositive) {
    Array x = make_array(DType::float32, {2, 3, 4});
    fill_random(&x, 11);
    Status s1, s2;
    const Array a = run_reduce(x.t, params({-1, -3}, 2), &s1);
    const Array b = run_reduce(x.t, params({2, 0}, 2), &s2);
    ASSERT_TRUE(s1.ok() && s2.ok()) << s1.message() << s2.message();
    EXPECT_EQ(a.t.shape_vector(), (std::vector<int64_t>{3}));
    EXPECT_EQ(a.storage, b.storage);
}

TEST(Semantics, OutputShapes) {
    std::vector<int64_t> shape;
    ASSERT_TRUE(reduce_output_shape({2, 3, 4}, params({1}, 2, true), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 1, 4}));
    ASSERT_TRUE(reduce_output_shape({2, 3, 4}, params({-1, 0}, 2, false), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{3}));
    ASSERT_TRUE(reduce_output_shape({2, 3, 4}, params({}, 2, true), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 1}));
    ASSERT_TRUE(reduce_output_shape({2, 3, 4}, params({}, 2, false), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{}));
    ASSERT_TRUE(
        reduce_output_shape({2, 3, 4}, params({}, 2, false, EmptyAxes::identity), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 3, 4}));
    ASSERT_TRUE(
        reduce_output_shape({2, 3, 4}, params({}, 2, true, EmptyAxes::elementwise), &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 3, 4}));
}

TEST(Semantics, ZeroSizeReducedDimsGiveZero) {
    for (DType dtype : all_dtypes()) {
        Array x = make_array(dtype, {2, 0, 4});
        for (double p : p_classes()) {
            for (bool keep : {false, true}) {
                ASSERT_TRUE(check_reduce(x.t, params({1}, p, keep)));
                Status s;
                const Array y = run_reduce(x.t, params({1}, p, keep), &s);
                ASSERT_TRUE(s.ok()) << s.message();
                for (int64_t i = 0; i < y.storage_elements; ++i)
                    ASSERT_EQ(y.at(i), 0) << dtype_name(dtype) << " p=" << p;
            }
            ASSERT_TRUE(check_reduce(x.t, params({}, p)));  // every axis: a scalar 0
        }
    }
}

TEST(Semantics, ZeroSizeKeptDimsGiveEmptyOutput) {
    for (DType dtype : {DType::float32, DType::int8, DType::bfloat16}) {
        Array x = make_array(dtype, {0, 3});
        for (double p : {1.0, 2.0, 0.0}) {
            ASSERT_TRUE(check_reduce(x.t, params({1}, p)));
            ASSERT_TRUE(check_reduce(x.t, params({1}, p, true)));
            ASSERT_TRUE(check_reduce(x.t, params({}, p, false, EmptyAxes::identity)));
            ASSERT_TRUE(check_reduce(x.t, params({}, p, false, EmptyAxes::elementwise)));
        }
        // A null data pointer is fine when there are no elements.
        Tensor empty = Tensor::contiguous(nullptr, dtype, {0, 3});
        Tensor out = Tensor::contiguous(nullptr, dtype, {0});
        EXPECT_TRUE(reduce(empty, out, params({1}, 2)).ok());
    }
}

TEST(Semantics, SizeOneReducedDimsStillTakeAbs) {
    for (DType dtype : all_dtypes()) {
        Array x = make_array(dtype, {5, 1, 3});
        fill_random(&x, 21);
        for (double p : p_classes()) ASSERT_TRUE(check_reduce(x.t, params({1}, p)));
        ASSERT_TRUE(check_reduce(x.t, params({1}, 2)));
    }
    const Array x = make_from(DType::float32, {2, 1}, {-3, -0.5});
    Status s;
    const Array y = run_reduce(x.t, params({1}, 2), &s);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(y.at(0), 3);
    EXPECT_EQ(y.at(1), 0.5);
}

TEST(Semantics, NaNAndInfinity) {
    using testing::Pattern;
    for (DType dtype : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        if (backend_lacks_dtype(dtype, "reduce")) continue;  // a GPU backend without it
        // Rows: a NaN at every position of a 17-wide row (vector body and tail), +inf, -inf,
        // NaN with inf, and a clean row.
        const int64_t w = 17;
        Array x = make_array(dtype, {w + 4, w});
        fill_random(&x, 5);
        for (int64_t r = 0; r < w; ++r) x.set({r, r}, kNaN);
        x.set({w, 3}, kInf);
        x.set({w + 1, 16}, -kInf);
        x.set({w + 2, 0}, kNaN);
        x.set({w + 2, 1}, kInf);
        Array m = make_array(dtype, {3, w, 5});  // for the middle pattern
        fill_random(&m, 6);
        for (int64_t i = 0; i < 5; ++i) m.set({i % 3, 2 * i + 1, i}, i == 4 ? kInf : kNaN);

        const struct {
            Pattern pattern;
            const Array *x;
            std::vector<int64_t> axes;
        } runs[] = {{Pattern::all, &x, {0, 1}},     {Pattern::inner, &x, {1}},
                    {Pattern::outer, &x, {0}},      {Pattern::middle, &m, {1}},
                    {Pattern::general, &x, {1}},    {Pattern::general, &x, {0}},
                    {Pattern::general, &m, {0, 2}}, {Pattern::general, &x, {0, 1}}};
        for (const auto &run : runs) {
            PatternScope forced(run.pattern);
            for (double p : p_classes())
                EXPECT_TRUE(check_reduce(run.x->t, params(run.axes, p), run.pattern));
        }
        for (double p : p_classes())
            ASSERT_TRUE(check_reduce(x.t, params({}, p, false, EmptyAxes::elementwise)));
        Status s;
        const Array y = run_reduce(x.t, params({1}, HUGE_VAL), &s);
        ASSERT_TRUE(s.ok());
        EXPECT_TRUE(std::isnan(y.at(0)));
        EXPECT_EQ(y.at(w), kInf);
        EXPECT_EQ(y.at(w + 1), kInf);
        EXPECT_TRUE(std::isnan(y.at(w + 2)));
    }
}

TEST(Semantics, StridedInputs) {
    uint64_t seed = 40;
    for (DType dtype :
         {DType::float32, DType::float16, DType::float64, DType::uint8, DType::int64}) {
        std::vector<Array> views;
        views.push_back(make_strided(dtype, {4, 6}, {1, 4}));     // transposed
        views.push_back(make_strided(dtype, {5, 7}, {16, 2}));    // every other column, padded rows
        views.push_back(make_strided(dtype, {3, 9}, {0, 1}));     // broadcast rows
        views.push_back(make_strided(dtype, {6, 5}, {1, 0}));     // broadcast columns
        views.push_back(make_strided(dtype, {4, 10}, {-10, 1}));  // rows reversed
        views.push_back(make_strided(dtype, {4, 10}, {10, -1}));  // columns reversed
        views.push_back(make_strided(dtype, {3, 4, 5}, {1, 15, 3}));  // permuted
        views.push_back(make_strided(dtype, {2, 3, 17}, {-60, 20, 1}));
        for (Array &v : views) {
            fill_random(&v, seed++);
            for (double p : {1.0, 2.0, 3.0, HUGE_VAL, 0.0}) {
                const int rank = v.t.rank;
                for (unsigned mask = 1; mask < (1u << rank); ++mask)
                    ASSERT_TRUE(check_reduce(v.t, params(axes_of(rank, mask, false), p)));
                ASSERT_TRUE(check_reduce(v.t, params({}, p, false, EmptyAxes::identity)));
                ASSERT_TRUE(check_reduce(v.t, params({}, p, false, EmptyAxes::elementwise)));
            }
        }
    }
}

TEST(Semantics, RankZero) {
    for (DType dtype : {DType::float32, DType::int8, DType::float16}) {
        if (backend_lacks_dtype(dtype, "reduce")) continue;  // a GPU backend without it
        Array x = make_from(dtype, {}, {-3});
        for (double p : p_classes()) {
            ASSERT_TRUE(check_reduce(x.t, params({}, p)));
            ASSERT_TRUE(check_reduce(x.t, params({}, p, true)));
            ASSERT_TRUE(check_reduce(x.t, params({}, p, false, EmptyAxes::identity)));
            ASSERT_TRUE(check_reduce(x.t, params({}, p, false, EmptyAxes::elementwise)));
        }
        Status s;
        EXPECT_EQ(run_reduce(x.t, params({}, 2), &s).at(0), 3);
        EXPECT_EQ(run_reduce(x.t, params({}, 2, false, EmptyAxes::identity), &s).at(0), -3);
        EXPECT_EQ(run_reduce(x.t, params({}, 0, false, EmptyAxes::elementwise), &s).at(0), 3);
        EXPECT_EQ(run_reduce(x.t, params({}, 0), &s).at(0), 1);  // count of non-zeros
    }
    const Array m = make_from(DType::int8, {}, {-128});
    Status s;
    EXPECT_EQ(run_reduce(m.t, params({}, 2, false, EmptyAxes::identity), &s).at(0), -128);
    EXPECT_EQ(run_reduce(m.t, params({}, 2, false, EmptyAxes::elementwise), &s).at(0), 127);
}

TEST(Semantics, EmptyAxesPolicies) {
    for (DType dtype : all_dtypes()) {
        Array x = make_array(dtype, {3, 5});
        fill_random(&x, 77);
        for (double p : p_classes())
            for (EmptyAxes e : {EmptyAxes::identity, EmptyAxes::reduce_all, EmptyAxes::elementwise})
                for (bool keep : {false, true})
                    ASSERT_TRUE(check_reduce(x.t, params({}, p, keep, e)));
        // identity is a bitwise copy
        Status s;
        const Array y = run_reduce(x.t, params({}, 0.5, false, EmptyAxes::identity), &s);
        ASSERT_TRUE(s.ok());
        EXPECT_EQ(y.storage, x.storage) << dtype_name(dtype);
    }
    // identity copies NaN and -0.0 through; elementwise gives |x| for every p.
    const Array f = make_from(DType::float32, {3}, {-0.0L, kNaN, -kInf});
    Status s;
    const Array id = run_reduce(f.t, params({}, 2, false, EmptyAxes::identity), &s);
    EXPECT_EQ(id.storage, f.storage);
    const Array ew = run_reduce(f.t, params({}, -HUGE_VAL, false, EmptyAxes::elementwise), &s);
    EXPECT_FALSE(std::signbit(ew.at(0)));
    EXPECT_TRUE(std::isnan(ew.at(1)));
    EXPECT_EQ(ew.at(2), kInf);
}

TEST(Semantics, Float32NearMaxDoesNotOverflow) {
    // A float32 sum of squares overflows at 1.8e19; accumulated in float64 these are exact.
    for (int64_t n : {2, 3, 5, 17}) {
        Array x = make_array(DType::float32, {n});
        for (int64_t i = 0; i < n; ++i) x.set({i}, (i % 2 ? -1e38L : 0.7e38L));
        for (double p : {1.0, 2.0, 3.0, 2.5, HUGE_VAL})
            ASSERT_TRUE(check_reduce(x.t, params({0}, p)));
    }
    Array x = make_array(DType::float32, {3});
    for (int64_t i = 0; i < 3; ++i) x.set({i}, 1e38L);
    Status s;
    const Array y = run_reduce(x.t, params({0}, 2), &s);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(std::isfinite(y.at(0)));
    EXPECT_NEAR(static_cast<double>(y.at(0)), std::sqrt(3.0) * 1e38, 1e31);
    // Tiny values whose float32 squares underflow.
    const Array t = make_from(DType::float32, {2}, {3e-30L, -4e-30L});
    EXPECT_NEAR(static_cast<double>(run_reduce(t.t, params({0}, 2), &s).at(0)), 5e-30, 1e-36);
    // Subnormal inputs.
    const Array d = make_from(DType::float32, {4}, {1e-40L, 2e-40L, 0, -3e-41L});
    for (double p : {1.0, 2.0, 3.0, 0.5, -HUGE_VAL}) ASSERT_TRUE(check_reduce(d.t, params({0}, p)));
    // A true result beyond FLT_MAX is +inf.
    const Array big = make_from(DType::float32, {2}, {3e38L, 3e38L});
    EXPECT_EQ(run_reduce(big.t, params({0}, 2), &s).at(0), kInf);
}

TEST(Semantics, HalfPrecisionAbove256) {
    // 300^2 = 90000 is beyond float16's 65504: the square must be taken in float32.
    const Array h = make_from(DType::float16, {2}, {300, -400});
    Status s;
    EXPECT_EQ(run_reduce(h.t, params({0}, 2), &s).at(0), 500);
    Array many = make_array(DType::float16, {1000});
    for (int64_t i = 0; i < 1000; ++i) many.set({i}, 300);
    for (double p : {1.0, 2.0, 3.0, 2.5}) ASSERT_TRUE(check_reduce(many.t, params({0}, p)));
    EXPECT_EQ(run_reduce(many.t, params({0}, 2), &s).at(0),
              ref::round_to_dtype(DType::float16, 300 * std::sqrt(1000.0L)));
    const Array cube = make_from(DType::float16, {2}, {100, 100});  // 1e6 per term
    ASSERT_TRUE(check_reduce(cube.t, params({0}, 3)));
    const Array b = make_from(DType::bfloat16, {3}, {1e18L, -2e18L, 3e18L});
    for (double p : {1.0, 2.0, HUGE_VAL}) ASSERT_TRUE(check_reduce(b.t, params({0}, p)));
}

TEST(Semantics, IntegerTruncationAndSaturation) {
    Status s;
    auto one = [&](DType d, std::vector<long double> v, double p) {
        const Array x = make_from(d, {static_cast<int64_t>(v.size())}, v);
        EXPECT_TRUE(check_reduce(x.t, params({0}, p)));
        return run_reduce(x.t, params({0}, p), &s).at(0);
    };
    EXPECT_EQ(one(DType::int8, {-128}, 1), 127);
    EXPECT_EQ(one(DType::int8, {-128}, HUGE_VAL), 127);
    EXPECT_EQ(one(DType::int8, {100, -100}, 1), 127);
    EXPECT_EQ(one(DType::uint8, {200, 200}, 1), 255);
    EXPECT_EQ(one(DType::int16, {30000, 30000}, 2), 32767);
    EXPECT_EQ(one(DType::int32, {2000000000, -2000000000}, 2), 2147483647);
    EXPECT_EQ(one(DType::int32, {-2147483647 - 1}, 1), 2147483647);
    EXPECT_EQ(one(DType::uint32, {4000000000.0L, 4000000000.0L}, 1), 4294967295.0L);
    EXPECT_EQ(one(DType::int64, {-9223372036854775807.0L - 1}, 1), 9223372036854775807.0L);
    EXPECT_EQ(one(DType::uint64, {18446744073709551615.0L, 1}, 1), 18446744073709551615.0L);
    EXPECT_EQ(one(DType::int16, {2, 3}, 2), 3);  // sqrt(13) = 3.61 truncates
    EXPECT_EQ(one(DType::int16, {3, 4}, 2), 5);
    EXPECT_EQ(one(DType::uint8, {1, 1, 1}, 0.5), 9);
    EXPECT_EQ(one(DType::int32, {0, -5, 0, 7}, 0), 2);
    EXPECT_EQ(one(DType::int32, {0, -5, 0, 7}, -HUGE_VAL), 0);
    // int64 values beyond 2^53 (float64 accumulation rounds them once).
    for (double p : p_classes()) {
        const Array x =
            make_from(DType::int64, {3}, {9007199254740993.0L, -4611686018427387905.0L, 12345});
        ASSERT_TRUE(check_reduce(x.t, params({0}, p)));
        const Array y =
            make_from(DType::uint64, {2}, {18446744073709551615.0L, 9007199254740993.0L});
        ASSERT_TRUE(check_reduce(y.t, params({0}, p)));
    }
    // Full-range random integers of every width.
    for (DType d :
         {DType::int8, DType::uint8, DType::int16, DType::uint16, DType::int32, DType::uint32}) {
        Array x = make_array(d, {4, 9});
        for (int64_t i = 0; i < x.storage_elements; ++i) {
            const long double lo = ref::round_to_dtype(d, -kInf), hi = ref::round_to_dtype(d, kInf);
            x.set_at(i, i % 5 == 0   ? lo
                        : i % 5 == 1 ? hi
                                     : lo + (hi - lo) * ((i * 37 % 101) / 100.0L));
        }
        for (double p : p_classes()) {
            ASSERT_TRUE(check_reduce(x.t, params({1}, p)));
            ASSERT_TRUE(check_reduce(x.t, params({0}, p)));
        }
    }
}

}  // namespace
}  // namespace lpnorm::test
