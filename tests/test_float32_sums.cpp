// The float32 accumulation of the D3D12 kernels (generator param float32_sums: shader model
// 5.1 has no float64), checked where their GPU schedule can run here. tests/CMakeLists.txt
// builds the float32 sum kernel of every reduction pattern with the D3D12 generator params
// for OpenCL; this calls them directly on PoCL and compares each output with the reference
// within the bound for float32 sums (reduce_reference.cpp: the float16 bound, u = 2^-24 in
// every step: term, sum in any order, root).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "kernel_abi.h"
#include "lpnorm_test_float32_sums_all_opencl.h"
#include "lpnorm_test_float32_sums_general_opencl.h"
#include "lpnorm_test_float32_sums_inner_opencl.h"
#include "lpnorm_test_float32_sums_middle_opencl.h"
#include "lpnorm_test_float32_sums_outer_opencl.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

using Kernel = decltype(&lpnorm_test_float32_sums_all_opencl);  // every pattern's alike

// One call: the kernel, the row-major shape and reduced axes it handles, and how its Halide
// buffers (innermost dim first) see that shape.
struct Case {
    std::string name;
    Kernel kernel;
    std::vector<int64_t> shape;  // row-major, outermost first
    std::vector<int64_t> axes;
    bool general = false;  // 8-D buffers, reduced dims given by reduce_mask
};

std::vector<Case> cases() {
    using lpnorm::abi::kGeneralRank;
    static_assert(kGeneralRank == 8, "the general case below builds 8-D buffers");
    return {
        {"all_1", lpnorm_test_float32_sums_all_opencl, {1}, {0}},
        {"all_257", lpnorm_test_float32_sums_all_opencl, {257}, {0}},
        // More than gpu_threads x gpu_blocks elements: every block strides through a chunk.
        {"all_300007", lpnorm_test_float32_sums_all_opencl, {300007}, {0}},
        {"inner_7x1000", lpnorm_test_float32_sums_inner_opencl, {7, 1000}, {1}},
        {"inner_3x5", lpnorm_test_float32_sums_inner_opencl, {3, 5}, {1}},
        {"outer_1000x37", lpnorm_test_float32_sums_outer_opencl, {1000, 37}, {0}},
        {"middle_5x300x17", lpnorm_test_float32_sums_middle_opencl, {5, 300, 17}, {1}},
        {"general_6x5x9", lpnorm_test_float32_sums_general_opencl, {6, 5, 9}, {0, 2}, true},
    };
}

// Halide dims (innermost first) of a dense row-major shape.
std::vector<halide_dimension_t> halide_dims(const std::vector<int64_t> &shape) {
    std::vector<halide_dimension_t> dims;
    int32_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        dims.push_back({0, static_cast<int32_t>(shape[i]), stride, 0});
        stride *= static_cast<int32_t>(shape[i]);
    }
    return dims;
}

// Runs `c` on `input` (float32, dense) and returns the outputs, row-major.
std::vector<float> run(const Case &c, const Array &input, int p_kind, double p, int64_t outputs) {
    std::vector<int64_t> out_shape;  // row-major
    std::vector<int64_t> in_shape = c.shape;
    int32_t reduce_mask = 0;
    if (c.general) {
        // Pad to 8 dims outside; reduced dims keep extent 1 in the output.
        while (in_shape.size() < 8) in_shape.insert(in_shape.begin(), 1);
        const int64_t pad = 8 - static_cast<int64_t>(c.shape.size());
        out_shape = in_shape;
        for (int64_t axis : c.axes) {
            out_shape[axis + pad] = 1;
            reduce_mask |= 1 << (7 - (axis + pad));  // Halide dim of a row-major axis
        }
    } else {
        for (size_t d = 0; d < c.shape.size(); d++) {
            bool reduced = false;
            for (int64_t axis : c.axes) reduced |= axis == static_cast<int64_t>(d);
            if (!reduced) out_shape.push_back(c.shape[d]);
        }
    }
    std::vector<float> out(outputs, -1.0f);
    auto *in_data = static_cast<float *>(const_cast<void *>(input.t.data));
    Halide::Runtime::Buffer<float> in(in_data, halide_dims(in_shape));
    Halide::Runtime::Buffer<float> result(out.data(), halide_dims(out_shape));
    in.set_host_dirty();
    const int err = c.kernel(in.raw_buffer(), reduce_mask, p_kind, p, result.raw_buffer());
    EXPECT_EQ(err, 0) << c.name;
    EXPECT_EQ(result.copy_to_host(), 0) << c.name;
    in.device_free();
    result.device_free();
    return out;
}

int sum_kind(double p) {
    if (p == 0) return lpnorm::abi::kCount;
    if (p == 1) return lpnorm::abi::kL1;
    if (p == 2) return lpnorm::abi::kL2;
    if (p == 3) return lpnorm::abi::kL3;
    return lpnorm::abi::kLp;
}

TEST(Float32Sums, EveryPatternWithinTheFloat32Bound) {
    const BackendStatus opencl = backend_status(Backend::opencl);
    if (!opencl.usable) GTEST_SKIP() << "OpenCL not usable here: " << opencl.detail;
    int checked = 0;
    for (const Case &c : cases()) {
        Array input = make_array(DType::float32, c.shape);
        fill_random(&input, 17 + c.shape.size());
        for (double p : {1.0, 2.0, 3.0, 0.5, 2.5, 0.0}) {
            ReduceParams params;
            params.axes = c.axes;
            params.p = p;
            const ref::Result expected = ref::reduce(input.t, params);
            ASSERT_TRUE(expected.ok) << expected.error;
            const std::vector<float> got =
                run(c, input, sum_kind(p), p, static_cast<int64_t>(expected.values.size()));
            for (size_t i = 0; i < got.size(); i++) {
                const ref::Value &v = expected.values[i];
                const ref::Range r = ref::allowed_range(DType::float32, p, v, true);
                EXPECT_TRUE(ref::matches(DType::float32, p, v, got[i], true))
                    << c.name << " p=" << p << " output " << i << ": got " << got[i]
                    << ", allowed [" << static_cast<double>(r.lo) << ", "
                    << static_cast<double>(r.hi) << "] around " << static_cast<double>(v.value);
                checked++;
            }
        }
    }
    EXPECT_GT(checked, 0);
}

// The range is float32's too: a term beyond FLT_MAX overflows to inf, where the float64
// contract of the other kernels gives the finite norm (docs/targets.md, "D3D12 compute"). This also
// shows that the kernels above do accumulate in float32.
TEST(Float32Sums, TermsBeyondFloatMaxOverflow) {
    const BackendStatus opencl = backend_status(Backend::opencl);
    if (!opencl.usable) GTEST_SKIP() << "OpenCL not usable here: " << opencl.detail;
    const Case c = cases()[0];  // all_1
    Array input = make_from(DType::float32, {1}, {1e20L});
    EXPECT_TRUE(std::isinf(run(c, input, lpnorm::abi::kL2, 2.0, 1)[0]));
    EXPECT_EQ(run(c, input, lpnorm::abi::kL1, 1.0, 1)[0], 1e20f);
}

}  // namespace
}  // namespace lpnorm::test
