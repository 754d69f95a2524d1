// narrow_pow (generators/float_math.h) as the kernels compile it, run by Halide's JIT: m^e for
// float32 m (subnormals included) within (3 + 3 |w|) 2^-53 relative of long double powl,
// w = e log2 m, where the result is a normal float64 (3.6e-13 at |w| = 1075, the least normal),
// within 4e-13 plus float64's least subnormal below the normal range, inf beyond the largest
// finite value, pow's rule at m = 0, and neither the overflow nor the underflow flag raised
// where the result is normal; on every instruction set this machine runs that the kernels are
// built for, strict and not.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "Halide.h"
#include "float_math.h"
#include "jit_targets.h"

namespace {

using Halide::Buffer;
using Halide::Func;
using Halide::ImageParam;
using Halide::Var;

struct Cases {
    std::vector<float> m;
    std::vector<double> e;
};

// Random float32 bits (every exponent, subnormals included) with e in [-3, 12], the same
// range's exponents at mantissas near 1 and 2, and m near 1 with large e, whose results reach
// either end of float64's range (|e log2 m| near 1000).
Cases cases() {
    Cases c;
    std::mt19937 random(11);
    std::uniform_real_distribution<double> moderate(-3.0, 12.0);
    auto add = [&](float m, double e) {
        c.m.push_back(m);
        c.e.push_back(e);
    };
    while (c.m.size() < (1u << 20)) {
        uint32_t bits = uint32_t(random()) & 0x7fffffffu;
        if (bits >= 0x7f800000u) continue;  // inf and NaN are not narrow_pow's
        float m;
        std::memcpy(&m, &bits, sizeof m);
        add(m, moderate(random));
    }
    for (int k = -149; k < 128; k++) {
        for (float f : {1.0f, 1.0f + 0x1p-23f, 1.4142135f, 1.4142136f, 2.0f - 0x1p-23f}) {
            add(std::ldexp(f, k), moderate(random));
        }
    }
    std::uniform_real_distribution<double> large(-400.0, 400.0);
    for (int i = 0; i < 4096; i++) {
        const float m = 1.0f + float(i + 1) * 0x1p-12f;
        add(m, large(random) / std::log2(double(m)) * 2.5);
    }
    for (double e : {-2.5, 0.0, 0.5, 3.0}) add(0.0f, e);
    return c;
}

void check_narrow_pow(const std::string &target_name, bool strict) {
    SCOPED_TRACE(target_name + (strict ? ", strict" : ", fused"));
    const Halide::Target target = jit_target(target_name);
    const Cases c = cases();
    const int n = int(c.m.size());
    ImageParam m_in(Halide::Float(32), 1), e_in(Halide::Float(64), 1);
    Var x("x");
    Func power("power");
    const Halide::Expr value =
        lpnorm::gen::narrow_pow(Halide::cast(Halide::Float(64), m_in(x)), e_in(x));
    power(x) = strict ? Halide::strict_float(value) : value;
    power.vectorize(x, target.natural_vector_size<double>() * 2);
    power.compile_jit(target);
    Buffer<float> m_buf(const_cast<float *>(c.m.data()), n);
    Buffer<double> e_buf(const_cast<double *>(c.e.data()), n), out(n);
    m_in.set(m_buf);
    e_in.set(e_buf);
    power.realize(out);

    const long double least_normal = std::numeric_limits<double>::min();
    const long double largest = std::numeric_limits<double>::max();
    const long double least_subnormal = std::numeric_limits<double>::denorm_min();
    long double worst = 0;
    std::vector<float> normal_m;
    std::vector<double> normal_e;
    for (int i = 0; i < n; i++) {
        const long double m = c.m[size_t(i)], e = c.e[size_t(i)];
        const double got = out(i);
        const long double exact = std::pow(m, e);
        if (m == 0) {
            EXPECT_EQ(got, e > 0 ? 0.0 : e == 0 ? 1.0 : HUGE_VAL) << "0^" << double(e);
        } else if (exact >= largest * (1 + 4e-13L)) {
            EXPECT_EQ(got, HUGE_VAL) << double(m) << "^" << double(e);
        } else if (exact < least_normal) {
            EXPECT_LE(std::fabs(got - exact), 4e-13L * exact + least_subnormal)
                << double(m) << "^" << double(e);
        } else if (exact < largest) {
            const long double relative = std::fabs(got - exact) / exact;
            const long double bound = (3 + 3 * std::fabs(e * std::log2(m))) * 0x1p-53L;
            worst = std::max(worst, relative / bound);
            EXPECT_LE(relative, bound) << double(m) << "^" << double(e) << " = " << got;
            normal_m.push_back(c.m[size_t(i)]);
            normal_e.push_back(c.e[size_t(i)]);
        }
        if (::testing::Test::HasFailure()) return;
    }
    ::testing::Test::RecordProperty("worst_error_over_bound", std::to_string(double(worst)));

    // The flags over the normal results alone.
    Buffer<float> nm(normal_m.data(), int(normal_m.size()));
    Buffer<double> ne(normal_e.data(), int(normal_e.size())), nout(int(normal_m.size()));
    m_in.set(nm);
    e_in.set(ne);
    std::feclearexcept(FE_ALL_EXCEPT);
    power.realize(nout);
    EXPECT_EQ(std::fetestexcept(FE_OVERFLOW), 0) << "the overflow flag was raised";
    EXPECT_EQ(std::fetestexcept(FE_UNDERFLOW), 0) << "the underflow flag was raised";
}

TEST(NarrowPow, Float32BasesAgainstPowl) {
    for (const std::string &target : targets_this_machine_runs()) {
        for (bool strict : {true, false}) check_narrow_pow(target, strict);
    }
}

}  // namespace
