// cube_root (generators/float_math.h) as the kernels compile it, run by Halide's JIT: within
// 0.95 ulp of the exact root, exact on cubes of integers, 0, NaN and inf as their own roots,
// and neither the overflow nor the underflow flag raised, for float32 and float64, inside
// strict_float and outside it (where products and adds may fuse), on every instruction set
// this machine runs that the kernels are built for (x86: SSE4.1 without FMA, AVX2 with it,
// the host's own).
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "Halide.h"
#include "float_math.h"
#include "jit_targets.h"

namespace {

using Halide::Buffer;
using Halide::Func;
using Halide::ImageParam;
using Halide::Target;
using Halide::Var;

// One value of each kind the kernels give the root: every exponent's octave (subnormals
// included) at a few mantissas, the values next to the largest finite one, random bits, and
// cubes of integers (every fourth value, whose roots must come out exact).
template <typename T>
std::vector<T> values_to_root(std::vector<bool> *is_cube) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    std::vector<T> v = {T(0),
                        std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::denorm_min()};
    const int lowest = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
    const int highest = std::numeric_limits<T>::max_exponent;
    for (int e = lowest; e < highest; e++) {
        for (int j = 0; j < 16; j++) v.push_back(std::ldexp(T(1) + T(j) / 16, e));
    }
    T below_max = std::numeric_limits<T>::max();
    for (int j = 0; j < 4096; j++, below_max = std::nextafter(below_max, T(0))) {
        v.push_back(below_max);
    }
    std::mt19937_64 random(7);
    const Bits magnitude_mask = (Bits(1) << (sizeof(T) * 8 - 1)) - 1;
    while (v.size() < (1u << 19)) {
        const Bits bits = Bits(random()) & magnitude_mask;
        T x;
        std::memcpy(&x, &bits, sizeof x);
        v.push_back(x);
    }
    is_cube->assign(v.size(), false);
    const int64_t largest_root = sizeof(T) == 4 ? 255 : 200000;  // cubes exact in T
    for (size_t i = 0; i < v.size(); i += 4) {
        const int64_t k = 1 + int64_t(random() % uint64_t(largest_root));
        v[i] = T(k * k * k);
        (*is_cube)[i] = true;
    }
    return v;
}

// The spacing of T at |x|'s exponent (normal or subnormal).
template <typename T>
long double ulp_at(long double x) {
    const int e = std::max(std::ilogb(x), std::numeric_limits<T>::min_exponent - 1);
    return std::ldexp(1.0L, e - (std::numeric_limits<T>::digits - 1));
}

template <typename T>
void check_cube_root(const std::string &target_name, bool strict) {
    SCOPED_TRACE(target_name + (strict ? ", strict" : ", fused") +
                 (sizeof(T) == 4 ? ", float32" : ", float64"));
    const Target target = jit_target(target_name);
    std::vector<bool> is_cube;
    std::vector<T> values = values_to_root<T>(&is_cube);
    ImageParam input(Halide::type_of<T>(), 1);
    Var x("x");
    Func root("root");
    const Halide::Expr value = lpnorm::gen::cube_root(input(x));
    root(x) = strict ? Halide::strict_float(value) : value;
    root.vectorize(x, target.natural_vector_size<T>() * 2);
    root.compile_jit(target);
    Buffer<T> in(values.data(), static_cast<int>(values.size()));
    Buffer<T> out(static_cast<int>(values.size()));
    input.set(in);
    std::feclearexcept(FE_ALL_EXCEPT);
    root.realize(out);
    EXPECT_EQ(std::fetestexcept(FE_OVERFLOW), 0) << "the overflow flag was raised";
    EXPECT_EQ(std::fetestexcept(FE_UNDERFLOW), 0) << "the underflow flag was raised";
    long double worst = 0;
    for (size_t i = 0; i < values.size(); i++) {
        const T s = values[i], got = out(static_cast<int>(i));
        if (std::isnan(s)) {
            EXPECT_TRUE(std::isnan(got)) << "the root of NaN is " << got;
            continue;
        }
        if (s == 0 || std::isinf(s)) {
            EXPECT_EQ(got, s) << "the root of " << s;
            continue;
        }
        const long double exact = std::cbrt(static_cast<long double>(s));
        if (is_cube[i]) {
            ASSERT_EQ(got, std::round(exact)) << "the root of the cube " << s;
        }
        worst = std::max(worst, std::fabs(got - exact) / ulp_at<T>(exact));
    }
    EXPECT_LE(worst, 0.95L) << "largest error in ulps";
}

TEST(CubeRoot, Float32) {
    for (const std::string &target : targets_this_machine_runs()) {
        for (bool strict : {true, false}) check_cube_root<float>(target, strict);
    }
}

TEST(CubeRoot, Float64) {
    for (const std::string &target : targets_this_machine_runs()) {
        for (bool strict : {true, false}) check_cube_root<double>(target, strict);
    }
}

}  // namespace
