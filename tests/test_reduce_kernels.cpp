// Every compiled variant against the reference: each ISA x dtype x forced pattern x p-class,
// on ragged sizes around the vector widths (4/8/16 lanes of f32, 8/16/32 of 16-bit types,
// 2/4/8 of f64) and primes.
#include <cmath>
#include <tuple>

#include "test_util.h"

namespace lpnorm::test {
namespace {

using testing::Pattern;

const std::vector<int64_t> kSizes = {1,  2,  3,  4,  5,  7,  8,  9,  13, 15,
                                     16, 17, 31, 32, 33, 61, 64, 65, 127};

struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
};

// Shapes that canonicalise to `pattern` when every extent is >= 2 (row-major order;
// kernel_abi.h lists the same patterns innermost first).
std::vector<Case> cases_for(Pattern pattern) {
    std::vector<Case> c;
    for (int64_t s : kSizes) {
        switch (pattern) {
        case Pattern::all:
            c.push_back({{s}, {0}});
            c.push_back({{s, 3}, {0, 1}});
            break;
        case Pattern::inner:
            c.push_back({{3, s}, {1}});
            c.push_back({{s, 5}, {1}});
            break;
        case Pattern::outer:
            c.push_back({{s, 3}, {0}});
            c.push_back({{5, s}, {0}});
            break;
        case Pattern::middle:
            c.push_back({{2, s, 3}, {1}});
            c.push_back({{3, 5, s}, {1}});
            c.push_back({{s, 5, 2}, {-2}});
            break;
        case Pattern::general:
            c.push_back({{2, s, 3, 2}, {1, 3}});
            c.push_back({{s, 3, 2}, {0, 2}});
            c.push_back({{3, 2, s, 2}, {0, 2}});
            break;
        case Pattern::automatic: break;
        }
    }
    if (pattern == Pattern::all) {
        for (int64_t s : {255, 1000, 4099}) c.push_back({{s}, {0}});
    }
    if (pattern == Pattern::general) {
        // Rows of 1.5, 2.5 and 3.5 vectors of some accumulator width (2/4/8/16 lanes), which
        // the general schedule runs as whole half vectors, and five rows of the outermost
        // reduced dim: a whole group of side-by-side rows (`streams`, 4 by default) and a
        // guarded one. 29 rows give whole groups and a guarded one for every `streams` up to
        // 16 (the tuned float32 files use 8 and 12).
        for (int64_t row : {6, 10, 12, 20, 24, 40, 56}) c.push_back({{5, 2, 3, row}, {0, 2}});
        for (int64_t row : {20, 24}) c.push_back({{29, 2, 3, row}, {0, 2}});
    }
    if (pattern == Pattern::inner) {
        c.push_back({{7, 1031}, {1}});
        // float32 rows summed in blocks of 8 vectors (add_float32_blocks: 32 to 128 elements by
        // the vector width) whose last block starts at every kind of offset: on a block boundary,
        // just past one, inside or at the end of its first vector, further in; in a group of
        // fewer rows than a group holds (3) and in whole groups (9).
        for (int64_t row : {128, 129, 135, 136, 143, 144, 200, 255, 257, 385, 449}) {
            for (int64_t rows : {3, 9}) c.push_back({{rows, row}, {1}});
        }
    }
    if (pattern == Pattern::outer) c.push_back({{1031, 7}, {0}});
    return c;
}

bool all_extents_above_one(const std::vector<int64_t> &shape) {
    for (int64_t d : shape)
        if (d < 2) return false;
    return true;
}

class KernelSweep : public ::testing::TestWithParam<std::tuple<Isa, DType>> {
protected:
    // Forces the ISA; false (with the test skipped or failed) when it cannot run here.
    bool select_isa(Isa isa, DType dtype) {
        return force_isa_for(isa, "reduce", dtype, &skip_reason_);
    }
    void TearDown() override { set_isa(Isa::auto_detect); }

    // Calls f(x, axes, expected pattern) for every case of every pattern, with the pattern
    // forced; general is also forced on every other pattern's cases.
    template <typename F>
    void for_each_case(DType dtype, F &&f) {
        uint64_t seed = 1;
        for (Pattern pattern :
             {Pattern::all, Pattern::inner, Pattern::outer, Pattern::middle, Pattern::general}) {
            PatternScope forced(pattern);
            std::vector<Case> cases = cases_for(pattern);
            if (pattern == Pattern::general) {
                for (Pattern other :
                     {Pattern::all, Pattern::inner, Pattern::outer, Pattern::middle}) {
                    const std::vector<Case> more = cases_for(other);
                    cases.insert(cases.end(), more.begin(), more.end());
                }
            }
            for (const Case &c : cases) {
                const uint64_t case_seed = seed++;
                if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
                Array x = make_array(dtype, c.shape);
                fill_random(&x, case_seed);
                if (!f(x, c.axes, all_extents_above_one(c.shape) ? pattern : Pattern::automatic))
                    return;
            }
        }
    }

    bool check(const Tensor &x, const ReduceParams &p, Pattern pattern) {
        return budget_.record(check_reduce(x, p, pattern));
    }

    std::string skip_reason_;
    FailureBudget budget_;
};

TEST_P(KernelSweep, PatternsPClassesRaggedSizes) {
    const auto [isa, dtype] = GetParam();
    if (!select_isa(isa, dtype)) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    for_each_case(dtype, [&](const Array &x, const std::vector<int64_t> &axes, Pattern expect) {
        for (double p : p_classes()) {
            for (bool keep : {false, true}) {
                if (keep && x.t.rank != 3) continue;  // keep_dims changes only the shape
                if (!check(x.t, params(axes, p, keep), expect)) return false;
            }
        }
        return true;
    });
}

// NaN, +inf and -inf sprinkled over vector bodies and tails of the same cases.
class SpecialValueSweep : public KernelSweep {};

TEST_P(SpecialValueSweep, NaNAndInfinity) {
    const auto [isa, dtype] = GetParam();
    if (!select_isa(isa, dtype)) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    for_each_case(dtype, [&](Array &x, const std::vector<int64_t> &axes, Pattern expect) {
        for (int64_t i = 0; i < x.storage_elements; ++i) {
            if (i % 23 == 5) x.set_at(i, NAN);
            if (i % 31 == 7) x.set_at(i, HUGE_VAL);
            if (i % 37 == 11) x.set_at(i, -HUGE_VAL);
        }
        for (double p : p_classes())
            if (!check(x.t, params(axes, p), expect)) return false;
        return true;
    });
}

std::string sweep_name(const ::testing::TestParamInfo<std::tuple<Isa, DType>> &info) {
    return std::string(isa_name(std::get<0>(info.param))) + "_" +
           dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, KernelSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::ValuesIn(all_dtypes())),
                         sweep_name);
INSTANTIATE_TEST_SUITE_P(FloatVariants, SpecialValueSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::Values(DType::float32, DType::float16,
                                                              DType::bfloat16, DType::float64)),
                         sweep_name);

// Large inputs that take the multi-threaded paths (rfactor for single outputs, parallel rows).
class LargeShapes : public ::testing::TestWithParam<DType> {};

TEST_P(LargeShapes, ThreadedPaths) {
    const DType dtype = GetParam();
    set_num_threads(2);
    // (1 << 18) + 4099: the all pattern's tasks and streams end inside a vector. Rows of 4099
    // and 8192 (inner) are read one at a time in builds with sequential_row_elements at 4096
    // or less (reduce_knobs.def), the 4099 ones ending inside a vector and a float32 block.
    const std::vector<Case> cases = {{{1 << 18}, {0}},     {{(1 << 18) + 4099}, {0}},
                                     {{16, 1 << 13}, {1}}, {{5, 4099}, {1}},
                                     {{1 << 13, 16}, {0}}, {{8, 2053, 8}, {1}}};
    uint64_t seed = 99;
    for (const Case &c : cases) {
        const uint64_t case_seed = seed++;
        if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
        Array x = make_array(dtype, c.shape);
        fill_random(&x, case_seed);
        for (double p : {1.0, 2.0, 2.5, HUGE_VAL})
            EXPECT_TRUE(check_reduce(x.t, params(c.axes, p)));
    }
    set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LargeShapes,
                         ::testing::Values(DType::float32, DType::float16, DType::float64,
                                           DType::int32),
                         [](const auto &info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace lpnorm::test
