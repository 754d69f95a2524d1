// The reference itself, on cases computed by hand (no library kernels involved).
#include <cmath>
#include <limits>

#include "test_util.h"

namespace lpnorm::test {
namespace {

using ref::round_to_dtype;

long double one(const Array &x, const ReduceParams &p) {
    const ref::Result r = ref::reduce(x.t, p);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.values.size(), 1u);
    return r.values.empty() ? NAN : r.values[0].value;
}

TEST(Reference, HalfConversions) {
    EXPECT_EQ(ref::half_bits(1.0L), 0x3c00);
    EXPECT_EQ(ref::half_bits(-2.0L), 0xc000);
    EXPECT_EQ(ref::half_bits(65504.0L), 0x7bff);
    EXPECT_EQ(ref::half_bits(65519.0L), 0x7bff);  // below max + half ulp
    EXPECT_EQ(ref::half_bits(65520.0L), 0x7c00);  // ties to even -> overflow
    EXPECT_EQ(ref::half_bits(std::ldexp(1.0L, -24)), 0x0001);
    EXPECT_EQ(ref::half_bits(std::ldexp(1.0L, -25)), 0x0000);         // tie -> even (zero)
    EXPECT_EQ(ref::half_bits(std::ldexp(3.0L, -25)), 0x0002);         // tie -> even
    EXPECT_EQ(ref::half_bits(1.0L + std::ldexp(1.0L, -11)), 0x3c00);  // tie -> even
    EXPECT_EQ(ref::half_bits(1.0L + std::ldexp(3.0L, -11)), 0x3c02);
    EXPECT_EQ(ref::half_bits(std::ldexp(1.0L, -14)), 0x0400);  // smallest normal
    EXPECT_TRUE(std::isnan(ref::half_value(ref::half_bits(NAN))));
    EXPECT_EQ(ref::half_value(0x7c00), HUGE_VAL);
    EXPECT_EQ(ref::half_value(0x3555), 0.333251953125L);
    for (uint32_t b = 0; b < 0x7c00; ++b)
        ASSERT_EQ(ref::half_bits(ref::half_value(static_cast<uint16_t>(b))), b);
}

TEST(Reference, BFloat16Conversions) {
    EXPECT_EQ(ref::bfloat16_bits(1.0L), 0x3f80);
    EXPECT_EQ(ref::bfloat16_bits(1.0L + std::ldexp(1.0L, -8)), 0x3f80);  // tie -> even
    EXPECT_EQ(ref::bfloat16_bits(1.0L + std::ldexp(3.0L, -8)), 0x3f82);
    EXPECT_EQ(ref::bfloat16_bits(-3.0L), 0xc040);
    EXPECT_EQ(ref::bfloat16_value(0x7f7f), 3.38953138925153547590470800371487866880e38L);
    EXPECT_EQ(ref::bfloat16_bits(3.4e38L), 0x7f80);  // beyond max + half ulp
    for (uint32_t b = 0; b < 0x7f80; ++b)
        ASSERT_EQ(ref::bfloat16_bits(ref::bfloat16_value(static_cast<uint16_t>(b))), b);
}

TEST(Reference, RoundToDtype) {
    EXPECT_EQ(round_to_dtype(DType::float32, 1.0L / 3), static_cast<long double>(1.0f / 3));
    EXPECT_EQ(round_to_dtype(DType::float64, 1.0L / 3), static_cast<long double>(1.0 / 3));
    EXPECT_EQ(round_to_dtype(DType::float32, 3.5e38L), HUGE_VAL);
    EXPECT_EQ(round_to_dtype(DType::int8, 127.9L), 127);
    EXPECT_EQ(round_to_dtype(DType::int8, 128.0L), 127);
    EXPECT_EQ(round_to_dtype(DType::int8, -3.7L), -3);
    EXPECT_EQ(round_to_dtype(DType::uint8, 255.99L), 255);
    EXPECT_EQ(round_to_dtype(DType::uint8, 1e9L), 255);
    EXPECT_EQ(round_to_dtype(DType::int32, 3e9L), 2147483647);
    EXPECT_EQ(round_to_dtype(DType::uint64, HUGE_VAL), 18446744073709551615.0L);
    EXPECT_EQ(round_to_dtype(DType::int64, 9.3e18L), 9223372036854775807.0L);
}

TEST(Reference, HandComputedValues) {
    const Array a = make_from(DType::float32, {2}, {3, -4});
    EXPECT_EQ(one(a, params({0}, 2)), 5);
    EXPECT_EQ(one(a, params({0}, 1)), 7);
    EXPECT_EQ(one(a, params({0}, HUGE_VAL)), 4);
    EXPECT_EQ(one(a, params({0}, -HUGE_VAL)), 3);
    EXPECT_EQ(one(a, params({-1}, 0)), 2);
    EXPECT_NEAR(static_cast<double>(one(a, params({0}, 3))), std::cbrt(91.0), 1e-15);
    EXPECT_NEAR(static_cast<double>(one(a, params({0}, 0.5))), std::pow(std::sqrt(3.0) + 2.0, 2),
                1e-14);

    const Array z = make_from(DType::float32, {3}, {0, 0, -1});
    EXPECT_EQ(one(z, params({0}, 0)), 1);
    EXPECT_EQ(one(z, params({0}, -HUGE_VAL)), 0);

    const Array n = make_from(DType::float32, {3}, {1, NAN, 0});
    EXPECT_TRUE(std::isnan(one(n, params({0}, 2))));
    EXPECT_TRUE(std::isnan(one(n, params({0}, HUGE_VAL))));
    EXPECT_TRUE(std::isnan(one(n, params({0}, -HUGE_VAL))));
    EXPECT_EQ(one(n, params({0}, 0)), 2);  // NaN counts as non-zero

    const Array i = make_from(DType::float32, {2}, {HUGE_VAL, 1});
    EXPECT_EQ(one(i, params({0}, 2)), HUGE_VAL);
    EXPECT_EQ(one(i, params({0}, -HUGE_VAL)), 1);
}

TEST(Reference, ShapesAndPolicies) {
    Array x = make_from(DType::float32, {2, 3}, {1, -2, 3, -4, 5, -6});
    ref::Result r = ref::reduce(x.t, params({1}, 1));
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(r.values[0].value, 6);
    EXPECT_EQ(r.values[1].value, 15);

    r = ref::reduce(x.t, params({-2}, 1, true));
    EXPECT_EQ(r.shape, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(r.values[2].value, 9);

    r = ref::reduce(x.t, params({}, 1, true));  // reduce_all
    EXPECT_EQ(r.shape, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(r.values[0].value, 21);

    r = ref::reduce(x.t, params({}, 2, false, EmptyAxes::identity));
    EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(r.values[1].value, -2);
    r = ref::reduce(x.t, params({}, 0, false, EmptyAxes::elementwise));
    EXPECT_EQ(r.values[1].value, 2);

    EXPECT_FALSE(ref::reduce(x.t, params({0, -2}, 1)).ok);
    EXPECT_FALSE(ref::reduce(x.t, params({2}, 1)).ok);
    EXPECT_FALSE(ref::reduce(x.t, params({0}, -1)).ok);

    const Array e = make_array(DType::float32, {2, 0, 4});
    r = ref::reduce(e.t, params({1}, -HUGE_VAL, true));
    EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 1, 4}));
    ASSERT_EQ(r.values.size(), 8u);
    EXPECT_EQ(r.values[5].value, 0);
    r = ref::reduce(e.t, params({0}, 2));
    EXPECT_EQ(r.shape, (std::vector<int64_t>{0, 4}));
    EXPECT_TRUE(r.values.empty());
}

TEST(Reference, StridedViews) {
    // Storage 0..5 as [2,3]; the transposed view [3,2] has strides (1,3).
    std::vector<long double> v = {0, 1, 2, 3, 4, 5};
    Array x = make_from(DType::float64, {6}, v);
    Tensor t = Tensor::strided(x.storage.data(), DType::float64, {3, 2}, {1, 3});
    ref::Result r = ref::reduce(t, params({1}, 1));
    EXPECT_EQ(r.values[0].value, 3);
    EXPECT_EQ(r.values[2].value, 7);
    // Negative stride: a reversed view sums the same.
    Tensor rev = Tensor::strided(x.storage.data() + 5 * sizeof(double), DType::float64, {6}, {-1});
    EXPECT_EQ(ref::reduce(rev, params({0}, 1)).values[0].value, 15);
    // Zero stride: broadcast element 2, four times.
    Tensor bc = Tensor::strided(x.storage.data() + 2 * sizeof(double), DType::float64, {4}, {0});
    EXPECT_EQ(ref::reduce(bc, params({0}, 2)).values[0].value, 4);
}

TEST(Reference, IntegerTruncationAndSaturation) {
    const Array a = make_from(DType::int8, {1}, {-128});
    const ref::Value v = ref::reduce(a.t, params({0}, 1)).values[0];
    EXPECT_EQ(v.value, 128);
    const ref::Range r = ref::allowed_range(DType::int8, 1, v);
    EXPECT_EQ(r.lo, 127);
    EXPECT_EQ(r.hi, 127);

    const Array b = make_from(DType::int32, {2}, {2000000000, -2000000000});
    const ref::Value w = ref::reduce(b.t, params({0}, 2)).values[0];
    EXPECT_EQ(ref::allowed_range(DType::int32, 2, w).lo, 2147483647);

    const Array c = make_from(DType::int16, {2}, {2, 3});  // sqrt(13) = 3.6 -> 3
    const ref::Value s = ref::reduce(c.t, params({0}, 2)).values[0];
    EXPECT_EQ(ref::allowed_range(DType::int16, 2, s).lo, 3);
    EXPECT_EQ(ref::allowed_range(DType::int16, 2, s).hi, 3);

    const Array d = make_from(DType::int16, {2}, {3, 4});  // exactly 5: exact case, no slack
    const ref::Value f = ref::reduce(d.t, params({0}, 2)).values[0];
    EXPECT_EQ(ref::allowed_range(DType::int16, 2, f).lo, 5);
    EXPECT_EQ(ref::allowed_range(DType::int16, 2, f).hi, 5);

    const Array g = make_from(DType::int32, {1}, {3});  // cbrt(27) through pow may land below 3
    const ref::Value h = ref::reduce(g.t, params({0}, 3)).values[0];
    EXPECT_EQ(ref::allowed_range(DType::int32, 3, h).lo, 2);
    EXPECT_EQ(ref::allowed_range(DType::int32, 3, h).hi, 3);
}

TEST(Reference, ToleranceIsTight) {
    // f32 L2 of n = 127 ones: sqrt(127) rounds once to float; the bound must not admit the
    // neighbours that a float32 accumulation error of gamma_126 ~ 7.5e-6 could produce.
    const Array x = make_from(DType::float32, {127}, std::vector<long double>(127, 1.0L));
    const ref::Value v = ref::reduce(x.t, params({0}, 2)).values[0];
    const ref::Range r = ref::allowed_range(DType::float32, 2, v);
    const long double exact = round_to_dtype(DType::float32, std::sqrt(127.0L));
    EXPECT_EQ(r.lo, exact);
    EXPECT_EQ(r.hi, exact);
    EXPECT_FALSE(
        ref::matches(DType::float32, 2, v, std::nextafter(static_cast<float>(exact), 0.0f)));
    EXPECT_TRUE(ref::matches(DType::float32, 2, v, exact));
}

}  // namespace
}  // namespace lpnorm::test
