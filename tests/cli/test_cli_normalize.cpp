// `lpnorm normalize` on the four ecosystems' own examples: ONNX LpNormalization's backend node
// test, OpenVINO NormalizeL2's reference tests (eps add and max), PyTorch F.normalize's
// documented values and DirectML's zero-norm behaviour (ONNX Runtime issue 5247), then the
// command line's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli_test_fixture.h"

namespace lpnorm_cli_test {
namespace {

class CliNormalize : public CliTest {
protected:
    V normalize(const std::vector<std::string> &flags, S *shape = nullptr) {
        return run_ok("normalize", flags, shape);
    }
};

// ONNX test_lpnormalization_default (axis -1, p 2) and test_l2normalization_axis_0, whose zero
// column along axis 0 gives 0.
TEST_F(CliNormalize, OnnxLpNormalization) {
    input_f32({2, 2, 3}, {1, 2, 2, 3, 4, 0, 0, 5, 5, 6, 8, 0});
    S shape;
    expect_near(normalize({}, &shape),
                V{1.0 / 3, 2.0 / 3, 2.0 / 3, 0.6, 0.8, 0, 0, 0.7071068, 0.7071068, 0.6, 0.8, 0});
    EXPECT_EQ(shape, (S{2, 2, 3}));
    expect_near(normalize({"--axes", "0"}), V{1, 0.3713907, 0.3713907, 0.4472136, 0.4472136, 0, 0,
                                              0.9284767, 0.9284767, 0.8944272, 0.8944272, 0});
    expect_near(normalize({"--axes=-1", "--p", "1"}),
                V{0.2, 0.4, 0.4, 0.4285714, 0.5714286, 0, 0, 0.5, 0.5, 0.4285714, 0.5714286, 0});
}

// OpenVINO's NormalizeL2 reference tests (op_reference/normalize_l2.cpp).
TEST_F(CliNormalize, OpenVinoNormalizeL2) {
    input_f32({4}, {1, 2, 3, 4});
    const V axes0 = {0.18257418, 0.36514837, 0.5477226, 0.73029673};
    expect_near(normalize({"--axes", "0", "--eps", "1e-7", "--eps-mode", "sum_add"}), axes0);
    expect_near(normalize({"--axes", "0", "--eps", "1e-7", "--eps-mode", "sum_max"}), axes0);
    input_f32({2, 2}, {1, 2, 3, 4});
    expect_near(normalize({"--axes=0", "--eps=1e-7", "--eps-mode=sum_add"}),
                V{0.31622776, 0.4472136, 0.94868326, 0.8944272});
    expect_near(normalize({"--axes=1", "--eps=1e-7", "--eps-mode=sum_max"}),
                V{0.4472136, 0.8944272, 0.6, 0.8});
    expect_near(normalize({"--axes=0,1", "--eps=1e-7", "--eps-mode=sum_add"}), axes0);
    // (2, 2, 3, 4) counting from 0, axes {0}, eps 0.1: add and max differ.
    std::vector<float> iota(48);
    for (int i = 0; i < 48; i++) iota[size_t(i)] = float(i);
    input_f32({2, 2, 3, 4}, iota);
    const V add = normalize({"--axes", "0", "--eps", "0.1", "--eps-mode", "sum_add"});
    const V max = normalize({"--axes", "0", "--eps", "0.1", "--eps-mode", "sum_max"});
    expect_near(V(add.begin(), add.begin() + 3), V{0, 0.0399648, 0.0766909});
    expect_near(V(max.begin(), max.begin() + 3), V{0, 0.03996804, 0.07669649});
}

// PyTorch F.normalize: x / max(||x||_p, eps), dim 0 and 1 of [[1, 2, 3], [4, 5, 6]], and a
// zero row, which gives 0 (not NaN).
TEST_F(CliNormalize, TorchNormalize) {
    input_f32({2, 3}, {1, 2, 3, 4, 5, 6});
    const std::vector<std::string> torch = {"--eps", "1e-12", "--eps-mode", "norm_max"};
    std::vector<std::string> dim0 = torch, dim1 = torch;
    dim0.insert(dim0.end(), {"--axes", "0"});
    dim1.insert(dim1.end(), {"--axes", "1"});
    expect_near(normalize(dim0),
                V{0.24253563, 0.37139068, 0.4472136, 0.9701425, 0.92847669, 0.89442719});
    expect_near(normalize(dim1),
                V{0.26726124, 0.53452248, 0.80178373, 0.45584231, 0.56980288, 0.68376346});
    input_f32({2, 2}, {0, 0, 3, 4});
    expect_near(normalize(dim1), V{0, 0, 0.6, 0.8});
    std::vector<std::string> inf = dim1;
    inf.insert(inf.end(), {"--p", "inf"});
    expect_near(normalize(inf), V{0, 0, 0.75, 1});
}

// DirectML LP_NORMALIZATION, p = 1 over axis 0 with its recommended Epsilon (as ONNX Runtime's
// DirectML provider runs it): a zero column gives 0.
TEST_F(CliNormalize, DirectMlZeroNorm) {
    input_f32({2, 4}, {1, 0, 3, 2, 0, 0, 0, 2});
    expect_near(normalize({"--axes", "0", "--p", "1", "--eps", "1e-5", "--eps-mode", "norm_max"}),
                V{1, 0, 1, 0.5, 0, 0, 0, 0.5});
}

TEST_F(CliNormalize, Errors) {
    const std::string in = input_f32({2, 2}, {3, 4, -6, 8}), out = path("out.npy");
    expect_error({"normalize", in, out, "--eps-mode", "clamp"}, 2, "--eps-mode");
    expect_error({"normalize", in, out, "--eps", "abc"}, 2, "--eps");
    expect_error({"normalize", in, out, "--p=-1"}, 1, "p = -1");
    expect_error({"normalize", in, out, "--eps=-1", "--eps-mode=norm_max"}, 1, "eps = -1");
    expect_error({"normalize", in, out, "--axes", "2"}, 1, "axes[0] = 2");
    expect_error({"normalize", in, out, "--p", "inf", "--eps-mode", "sum_add"}, 1, "p = inf");
    expect_error({"normalize", in}, 2, "IN.npy and OUT.npy");
}

}  // namespace
}  // namespace lpnorm_cli_test
