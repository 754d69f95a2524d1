// `lpnorm pool` run on temporary .npy files: hand-computed windows for each flag, output shapes,
// dtypes, and the error contract (non-zero exit, one "lpnorm: error:" line naming the flag and
// value, no output file).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli_test_fixture.h"

namespace lpnorm_cli_test {
namespace {

class CliPoolTest : public CliTest {
protected:
    // Runs `pool in.npy out.npy FLAGS...`, expects success, returns the output as doubles.
    V pool(const std::vector<std::string> &flags, S *shape = nullptr,
           npy::ReadOptions options = {}) {
        return run_ok("pool", flags, shape, options);
    }
    S pool_shape(const std::vector<std::string> &flags) {
        S shape;
        pool(flags, &shape);
        return shape;
    }
    // Expects `pool in.npy out.npy FLAGS...` to fail with a line naming `flag` and `value`.
    void pool_error(const std::vector<std::string> &flags, int exit_code, const std::string &flag,
                    const std::string &value) {
        std::vector<std::string> args = {"pool", path("in.npy"), path("out.npy")};
        args.insert(args.end(), flags.begin(), flags.end());
        const Result r = expect_error(args, exit_code, flag);
        EXPECT_NE(r.err.find(value), std::string::npos) << r.err;
    }
};

TEST_F(CliPoolTest, PoolsOneWindow) {
    input_f32({1, 1, 2, 2}, {1, 2, 3, 4});
    S shape;
    expect_near(pool({"--p", "2", "--kernel", "2,2"}, &shape), V{std::sqrt(30.0)});
    EXPECT_EQ(shape, (S{1, 1, 1, 1}));
    EXPECT_EQ(last_dtype_, DType::float32);
    expect_near(pool({"--p=1", "--kernel=2,2"}), V{10});
    expect_near(pool({"--p", "3", "--kernel", " 2 , 2 "}), V{std::cbrt(100.0)});
    expect_near(pool({"--p", "0.5", "--kernel", "2,2"}),
                V{std::pow(1 + std::sqrt(2.0) + std::sqrt(3.0) + 2, 2.0)});
    expect_near(pool({"--p", "2", "--kernel", "1,1"}, &shape), V{1, 2, 3, 4});
    EXPECT_EQ(shape, (S{1, 1, 2, 2}));
}

TEST_F(CliPoolTest, PoolsEachBatchAndChannel) {
    input_f32({2, 2, 1, 2}, {1, 2, -3, 4, 0, 0, -5, 12});
    S shape;
    expect_near(pool({"--p", "2", "--kernel", "1,2"}, &shape), V{std::sqrt(5.0), 5, 0, 13});
    EXPECT_EQ(shape, (S{2, 2, 1, 1}));
}

TEST_F(CliPoolTest, KeepsTheInputDtype) {
    input("in.npy", DType::float64, {1, 1, 2, 2}, std::vector<double>{1, 2, 3, 4});
    EXPECT_NEAR(pool({"--p", "3", "--kernel", "2,2"}).at(0), std::cbrt(100.0), 1e-9);
    EXPECT_EQ(last_dtype_, DType::float64);
    // float16 and bfloat16 bit patterns of 1, 2, 2, 4; the norm is 5.
    input("in.npy", DType::float16, {1, 1, 2, 2},
          std::vector<uint16_t>{0x3c00, 0x4000, 0x4000, 0x4400});
    expect_near(pool({"--p", "2", "--kernel", "2,2"}), V{0x4500});
    EXPECT_EQ(last_dtype_, DType::float16);
    input("in.npy", DType::bfloat16, {1, 1, 2, 2},
          std::vector<uint16_t>{0x3f80, 0x4000, 0x4000, 0x4080});
    npy::ReadOptions options;
    options.void2_dtype = DType::bfloat16;
    expect_near(pool({"--p", "2", "--kernel", "2,2", "--dtype", "bfloat16"}, nullptr, options),
                V{0x40a0});
    EXPECT_EQ(last_dtype_, DType::bfloat16);
}

TEST_F(CliPoolTest, FlagsReachTheOutputShape) {
    input_f32({1, 1, 5, 5}, std::vector<float>(25, 1.0f));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "3,3"}), (S{1, 1, 3, 3}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "3,3", "--strides", "2,2"}), (S{1, 1, 2, 2}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "2,3", "--strides", "1,2"}), (S{1, 1, 4, 2}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "3,3", "--pads", "1,1,1,1"}), (S{1, 1, 5, 5}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "3,3", "--dilations", "2,2"}), (S{1, 1, 1, 1}));
    EXPECT_EQ(
        pool_shape({"--p", "2", "--kernel", "3,3", "--strides", "2,2", "--auto-pad", "SAME_UPPER"}),
        (S{1, 1, 3, 3}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "2,2", "--strides", "2,2", "--auto-pad=VALID"}),
              (S{1, 1, 2, 2}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "2,2", "--strides", "2,2"}), (S{1, 1, 2, 2}));
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "2,2", "--strides", "2,2", "--ceil-mode"}),
              (S{1, 1, 3, 3}));
    // Empty lists mean the defaults.
    EXPECT_EQ(pool_shape({"--p", "2", "--kernel", "2,2", "--strides=", "--dilations=", "--pads="}),
              (S{1, 1, 4, 4}));

    input_f32({2, 3, 7}, std::vector<float>(42, 1.0f));
    EXPECT_EQ(pool_shape({"--p", "1", "--kernel", "3", "--strides", "2"}), (S{2, 3, 3}));
    input_f32({1, 2, 4, 4, 4}, std::vector<float>(128, 1.0f));
    EXPECT_EQ(pool_shape({"--p", "1", "--kernel", "2,2,2", "--strides", "2,2,2"}),
              (S{1, 2, 2, 2, 2}));
}

TEST_F(CliPoolTest, PadsAreBeginsThenEnds) {
    input_f32({1, 1, 2, 2}, {1, 2, 3, 4});  // [[1, 2], [3, 4]]
    S shape;
    expect_near(pool({"--p", "1", "--kernel", "2,2", "--pads", "1,1,1,1"}, &shape),
                V{1, 3, 2, 4, 10, 6, 3, 7, 4});
    EXPECT_EQ(shape, (S{1, 1, 3, 3}));
    // One column of padding before W (ONNX order: h_begin, w_begin, h_end, w_end).
    expect_near(pool({"--p", "1", "--kernel", "2,2", "--pads=0,1,0,0"}, &shape), V{4, 10});
    EXPECT_EQ(shape, (S{1, 1, 1, 2}));
}

TEST_F(CliPoolTest, AutoPadStridesAndDilations) {
    input_f32({1, 1, 4}, {1, 2, 3, 4});
    expect_near(pool({"--p", "1", "--kernel", "2", "--auto-pad", "SAME_UPPER"}), V{3, 5, 7, 4});
    expect_near(pool({"--p", "1", "--kernel", "2", "--auto-pad", "SAME_LOWER"}), V{1, 3, 5, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--auto-pad", "same_lower"}), V{1, 3, 5, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--auto-pad", "VALID"}), V{3, 5, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--auto-pad", "NOTSET", "--pads", "1,0"}),
                V{1, 3, 5, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2"}), V{3, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--dilations", "2"}), V{4, 6});
}

TEST_F(CliPoolTest, CeilModeAndOverhang) {
    input_f32({1, 1, 5}, {1, 2, 3, 4, 5});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2"}), V{3, 7});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2", "--ceil-mode"}), V{3, 7, 5});
    expect_near(
        pool({"--p", "1", "--kernel", "2", "--strides", "2", "--ceil-mode", "--overhang", "sum"}),
        V{3, 7, 5});
    // The last window holds 1 of its 2 taps: rescale multiplies the sum of |x|^p by 2.
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2", "--ceil-mode", "--overhang",
                      "rescale"}),
                V{3, 7, 10});
    expect_near(
        pool({"--p", "2", "--kernel", "2", "--strides", "2", "--ceil-mode", "--overhang=rescale"}),
        V{std::sqrt(5.0), 5, std::sqrt(50.0)});
}

TEST_F(CliPoolTest, SignedMode) {
    input_f32({1, 1, 4}, {-1, 2, -2, 1});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2"}), V{3, 3});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2", "--mode", "abs"}), V{3, 3});
    expect_near(pool({"--p", "1", "--kernel", "2", "--strides", "2", "--mode", "signed"}),
                V{1, -1});
    expect_near(pool({"--p", "3", "--kernel", "2", "--strides", "2"}),
                V{std::cbrt(9.0), std::cbrt(9.0)});
    // Odd p keeps the signs: -1 + 8 = 7, and -8 + 1 < 0 has no real cube root here (NaN).
    const V y = pool({"--p", "3", "--kernel", "2", "--strides", "2", "--mode=signed"});
    ASSERT_EQ(y.size(), 2u);
    EXPECT_NEAR(y[0], std::cbrt(7.0), 1e-5);
    EXPECT_TRUE(std::isnan(y[1])) << y[1];
}

TEST_F(CliPoolTest, CommandLineErrors) {
    input_f32({1, 1, 2, 2}, {1, 2, 3, 4});
    pool_error({"--p", "2"}, 2, "--kernel", "needs");
    pool_error({"--kernel", "2,2"}, 2, "--p", "needs");
    pool_error({"--p", "2", "--kernel="}, 2, "--kernel", "got 0");
    pool_error({"--p", "2", "--kernel", "1,1,1,1"}, 2, "--kernel", "'1,1,1,1'");
    pool_error({"--p", "2", "--kernel", "2,x"}, 2, "--kernel", "'2,x'");
    pool_error({"--p", "2", "--kernel", "2,0"}, 2, "--kernel", "'2,0'");
    pool_error({"--p", "2", "--kernel", "2,2", "--strides", "1"}, 2, "--strides", "'1'");
    pool_error({"--p", "2", "--kernel", "2,2", "--strides=0,1"}, 2, "--strides", "'0,1'");
    pool_error({"--p", "2", "--kernel", "2,2", "--dilations", "1,1,1"}, 2, "--dilations",
               "'1,1,1'");
    pool_error({"--p", "2", "--kernel", "2,2", "--pads", "1,1"}, 2, "--pads", "'1,1'");
    pool_error({"--p", "2", "--kernel", "2,2", "--pads=-1,0,0,0"}, 2, "--pads", "'-1,0,0,0'");
    pool_error({"--p", "2", "--kernel", "2,2", "--pads", "1,1,1,1", "--auto-pad", "VALID"}, 2,
               "--pads", "VALID");
    pool_error({"--p", "0", "--kernel", "2,2"}, 2, "--p", "'0'");
    pool_error({"--p=-1", "--kernel", "2,2"}, 2, "--p", "'-1'");
    pool_error({"--p", "abc", "--kernel", "2,2"}, 2, "--p", "'abc'");
    pool_error({"--p", "inf", "--kernel", "2,2"}, 2, "--p", "'inf'");
    pool_error({"--p", "nan", "--kernel", "2,2"}, 2, "--p", "'nan'");
    pool_error({"--p", "2", "--kernel", "2,2", "--auto-pad", "SAME"}, 2, "--auto-pad", "'SAME'");
    pool_error({"--p", "2", "--kernel", "2,2", "--auto-pad", "Same_Upper"}, 2, "--auto-pad",
               "'Same_Upper'");
    pool_error({"--p", "2", "--kernel", "2,2", "--mode", "square"}, 2, "--mode", "'square'");
    pool_error({"--p", "2", "--kernel", "2,2", "--overhang", "avg"}, 2, "--overhang", "'avg'");
    pool_error({"--p", "2", "--kernel", "2,2", "--ceil-mode=maybe"}, 2, "--ceil-mode", "'maybe'");
    pool_error({"--p", "2", "--kernel", "2,2", "--axes", "1"}, 2, "--axes", "lpnorm pool");
    expect_error({"pool", path("in.npy"), "--p", "2", "--kernel", "2,2"}, 2, "IN.npy and OUT.npy");
}

TEST_F(CliPoolTest, DataErrors) {
    input("in.npy", DType::int32, {1, 1, 2, 2}, std::vector<int32_t>{1, 2, 3, 4});
    pool_error({"--p", "2", "--kernel", "2,2"}, 1, "pool", "int32");
    input_f32({2, 2}, {1, 2, 3, 4});
    pool_error({"--p", "2", "--kernel", "2,2"}, 1, "--kernel", "(2, 2)");
    expect_error({"pool", path("missing.npy"), path("out.npy"), "--p", "2", "--kernel", "2"}, 1,
                 "missing.npy");
}

TEST_F(CliPoolTest, Help) {
    for (const auto &args : std::vector<std::vector<std::string>>{{"--help"}, {"pool", "--help"}}) {
        Result r = run(args);
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_NE(r.out.find("lpnorm pool IN.npy OUT.npy"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("--overhang"), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "");
    }
    expect_error({"frobnicate"}, 2, "pool");  // listed among the commands
}

}  // namespace
}  // namespace lpnorm_cli_test
