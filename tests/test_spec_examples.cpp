// The four examples of the OpenVINO ReduceLp-4 / ReduceL1-4 / ReduceL2-4 specification, word
// for word: input [6, 12, 10, 24] with axes [2, 3] (keep_dims True and False), [1] and [-2].
#include <cmath>

#include "test_util.h"

namespace lpnorm::test {
namespace {

struct Example {
    std::vector<int64_t> axes;
    bool keep_dims;
    std::vector<int64_t> output_shape;
};

const std::vector<Example> kExamples = {
    {{2, 3}, true, {6, 12, 1, 1}},  // "independent reduction in each channel and batch"
    {{2, 3}, false, {6, 12}},
    {{1}, false, {6, 10, 24}},   // "in each channel and spatial dimensions"
    {{-2}, false, {6, 12, 24}},  // "in each channel, batch and second spatial dimension"
};

// Output element `o` computed directly from the definition: Lp over all input indices j that
// agree with `o` on the kept dims.
double direct(const Array &x, const std::vector<bool> &reduced,
              const std::vector<int64_t> &kept_index, double p) {
    const std::vector<int64_t> shape = x.t.shape_vector();
    double acc = 0;
    std::vector<int64_t> j(4);
    for (j[0] = 0; j[0] < shape[0]; ++j[0])
        for (j[1] = 0; j[1] < shape[1]; ++j[1])
            for (j[2] = 0; j[2] < shape[2]; ++j[2])
                for (j[3] = 0; j[3] < shape[3]; ++j[3]) {
                    bool match = true;
                    for (int k = 0, o = 0; k < 4; ++k)
                        if (!reduced[k]) match = match && j[k] == kept_index[o++];
                    if (match) acc += std::pow(std::fabs(static_cast<double>(x.get(j))), p);
                }
    return std::pow(acc, 1 / p);
}

TEST(SpecExamples, OpenVinoReduceLp4) {
    Array x = make_array(DType::float32, {6, 12, 10, 24});
    fill_random(&x, 2024);
    for (const Example &e : kExamples) {
        for (double p : {1.0, 2.0}) {  // ReduceL1 and ReduceL2
            const ReduceParams rp = params(e.axes, p, e.keep_dims, EmptyAxes::identity);
            std::vector<int64_t> shape;
            ASSERT_TRUE(reduce_output_shape(x.t.shape_vector(), rp, &shape).ok());
            EXPECT_EQ(shape, e.output_shape);
            ASSERT_TRUE(check_reduce(x.t, rp));

            Status s;
            const Array y = run_reduce(x.t, rp, &s);
            ASSERT_TRUE(s.ok()) << s.message();
            EXPECT_EQ(y.t.shape_vector(), e.output_shape);
            std::vector<bool> reduced(4, false);
            for (int64_t a : e.axes) reduced[a < 0 ? a + 4 : a] = true;
            // Spot-check a few outputs (first, last, one inside) against the definition.
            const int64_t n = y.storage_elements;
            for (int64_t flat : {int64_t{0}, n / 3, n - 1}) {
                std::vector<int64_t> kept;  // kept-dim index of output `flat`, row-major
                int64_t rest = flat;
                std::vector<int64_t> kept_extents;
                for (int k = 0; k < 4; ++k)
                    if (!reduced[k]) kept_extents.push_back(x.t.shape[k]);
                kept.assign(kept_extents.size(), 0);
                for (int k = static_cast<int>(kept_extents.size()) - 1; k >= 0; --k) {
                    kept[k] = rest % kept_extents[k];
                    rest /= kept_extents[k];
                }
                const double want = direct(x, reduced, kept, p);
                // float32 rounding of the result: half an ulp, at most 2^-24 relative.
                EXPECT_NEAR(static_cast<double>(y.at(flat)), want, std::ldexp(want, -23))
                    << "output " << flat;
            }
        }
    }
}

TEST(SpecExamples, EmptyAxesIsIdentityUnderOpenVino) {
    // "When the 2nd input is an empty list, then this operation does nothing, it is an identity."
    Array x = make_array(DType::float32, {6, 12, 10, 24});
    fill_random(&x, 9);
    Status s;
    const Array y = run_reduce(x.t, params({}, 2, false, EmptyAxes::identity), &s);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(y.storage, x.storage);
}

TEST(SpecExamples, AllAxesGiveOneScalar) {
    // "When the 2nd input contains all dimensions ... a single reduction scalar value."
    Array x = make_array(DType::float32, {6, 12, 10, 24});
    fill_random(&x, 10);
    ASSERT_TRUE(check_reduce(x.t, params({0, 1, 2, 3}, 2)));
    ASSERT_TRUE(check_reduce(x.t, params({3, -2, 1, -4}, 1, true)));
    std::vector<int64_t> shape;
    ASSERT_TRUE(reduce_output_shape(x.t.shape_vector(), params({0, 1, 2, 3}, 2), &shape).ok());
    EXPECT_TRUE(shape.empty());
}

}  // namespace
}  // namespace lpnorm::test
