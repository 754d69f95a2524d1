// Runs the built `lpnorm` executable on temporary .npy files: values of hand-computed reductions
// for each flag, and the error contract (non-zero exit, one "lpnorm: error:" line on stderr,
// no output file, an existing output left untouched).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_fixture.h"

namespace lpnorm_cli_test {
namespace {

TEST_F(CliTest, ReducesWithEachFlag) {
    input_f32({2, 2}, {3, 4, -6, 8});  // [[3, 4], [-6, 8]]
    S shape;
    expect_near(reduce({"--p", "2", "--axes", "1"}, &shape), V{5, 10});
    EXPECT_EQ(shape, (S{2}));
    expect_near(reduce({"--p=2", "--axes=1", "--keep-dims"}, &shape), V{5, 10});
    EXPECT_EQ(shape, (S{2, 1}));
    expect_near(reduce({"--p", "1", "--axes=0"}, &shape), V{9, 12});
    expect_near(reduce({"--axes=-1"}), V{5, 10});  // default p = 2
    expect_near(reduce({"--axes", "-2"}),
                V{6.7082039, 8.9442719});  // a negative value after a space
    expect_near(reduce({"--p", "inf", "--axes", "1"}), V{4, 8});
    expect_near(reduce({"--p=+inf", "--axes", "1"}), V{4, 8});
    expect_near(reduce({"--p=-inf", "--axes", "1"}), V{3, 6});
    expect_near(reduce({"--p", "0.5", "--axes", "1"}),
                V{13.9282032, 27.8564065});  // (sqrt 3 + 2)^2, (sqrt 6 + sqrt 8)^2
    expect_near(reduce({"--p", "1", "--axes", "0,1"}), V{21});
    expect_near(reduce({"--p", "1", "--axes", " 1 , 0 "}), V{21});
}

TEST_F(CliTest, EmptyAxesPolicies) {
    input_f32({2, 2}, {3, 4, -6, 8});
    S shape;
    expect_near(reduce({}, &shape), V{std::sqrt(125.0)});  // omitted axes: reduce_all by default
    EXPECT_EQ(shape, S{});
    expect_near(reduce({"--axes", ""}, &shape), V{std::sqrt(125.0)});
    expect_near(reduce({"--axes=", "--keep-dims"}, &shape), V{std::sqrt(125.0)});
    EXPECT_EQ(shape, (S{1, 1}));
    expect_near(reduce({"--empty-axes", "identity"}, &shape), V{3, 4, -6, 8});
    EXPECT_EQ(shape, (S{2, 2}));
    expect_near(reduce({"--axes=", "--empty-axes=elementwise", "--p", "1"}), V{3, 4, 6, 8});
    expect_near(reduce({"--empty-axes", "reduce_all", "--p", "1"}), V{21});
}

TEST_F(CliTest, FortranOrderInput) {
    // Logical [[1, 2, 3], [4, 5, 6]] stored column-major.
    std::string file("\x93NUMPY\x01\x00", 8);
    std::string dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
    while ((10 + dict.size() + 1) % 64) dict += ' ';
    dict += '\n';
    file += static_cast<char>(dict.size());
    file += '\0';
    file += dict;
    const float data[] = {1, 4, 2, 5, 3, 6};
    file.append(reinterpret_cast<const char *>(data), sizeof data);
    std::ofstream(path("in.npy"), std::ios::binary) << file;
    S shape;
    expect_near(reduce({"--p", "1", "--axes", "1"}, &shape), V{6, 15});
    expect_near(reduce({"--p", "1", "--axes", "0"}, &shape), V{5, 7, 9});
    expect_near(reduce({"--empty-axes", "identity"}, &shape),
                V{1, 2, 3, 4, 5, 6});  // written in C order
    EXPECT_EQ(shape, (S{2, 3}));
}

TEST_F(CliTest, KeepsTheInputDtype) {
    input("in.npy", DType::int32, {1, 2}, std::vector<int32_t>{-3, 4});
    expect_near(reduce({"--axes", "1"}), V{5});
    EXPECT_EQ(last_dtype_, DType::int32);
    input("in.npy", DType::float64, {3}, std::vector<double>{1, 2, 2});
    expect_near(reduce({}), V{3});
    EXPECT_EQ(last_dtype_, DType::float64);
    input("in.npy", DType::float16, {2}, std::vector<uint16_t>{0x4200, 0x4400});  // 3, 4
    expect_near(reduce({}), V{0x4500});                                           // 5
    EXPECT_EQ(last_dtype_, DType::float16);
}

TEST_F(CliTest, Bfloat16NeedsDtypeFlag) {
    input("in.npy", DType::bfloat16, {2},
          std::vector<uint16_t>{0x4040, 0x4080});  // written as '<V2': 3, 4
    expect_error({"reduce", path("in.npy"), path("out.npy")}, 1, "--dtype bfloat16");
    npy::ReadOptions options;
    options.void2_dtype = DType::bfloat16;
    expect_near(reduce({"--dtype", "bfloat16"}, nullptr, options), V{0x40a0});  // 5
    EXPECT_EQ(last_dtype_, DType::bfloat16);
    EXPECT_NE(slurp(path("out.npy")).find("'<V2'"), std::string::npos);
}

TEST_F(CliTest, OutputMayReplaceTheInput) {
    input_f32({2, 2}, {3, 4, -6, 8});
    Result r = run({"reduce", path("in.npy"), path("in.npy"), "--axes=1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    npy::Array a;
    std::string error;
    ASSERT_TRUE(npy::read(path("in.npy"), &a, &error)) << error;
    EXPECT_EQ(a.shape, S{2});
}

TEST_F(CliTest, CommandLineErrors) {
    const std::string in = input_f32({2, 2}, {3, 4, -6, 8}), out = path("out.npy");
    expect_error({"frobnicate"}, 2, "unknown command 'frobnicate'");
    expect_error({"reduce", in, out, "--foo", "1"}, 2, "--foo");
    expect_error({"reduce", in, out, "-x"}, 2, "-x");
    expect_error({"reduce", in, out, "--p", "abc"}, 2, "--p");
    expect_error({"reduce", in, out, "--p=nan"}, 2, "--p");
    expect_error({"reduce", in, out, "--p", "2x"}, 2, "--p");
    expect_error({"reduce", in, out, "--p"}, 2, "--p");
    expect_error({"reduce", in, out, "--p", "1", "--p", "2"}, 2, "--p");
    expect_error({"reduce", in, out, "--axes", "1,x"}, 2, "--axes");
    expect_error({"reduce", in, out, "--axes", "1,,0"}, 2, "--axes");
    expect_error({"reduce", in, out, "--axes", "99999999999999999999"}, 2, "--axes");
    expect_error({"reduce", in, out, "--empty-axes", "bogus"}, 2, "--empty-axes");
    expect_error({"reduce", in, out, "--keep-dims=maybe"}, 2, "--keep-dims");
    expect_error({"reduce", in, out, "--threads", "-1"}, 2, "--threads");
    expect_error({"reduce", in, out, "--dtype", "float128"}, 2, "--dtype");
    expect_error({"reduce", in}, 2, "IN.npy and OUT.npy");
    expect_error({"reduce", in, out, "extra"}, 2, "IN.npy and OUT.npy");
    expect_error({"info", "extra"}, 2, "extra");
}

TEST_F(CliTest, DataAndLibraryErrors) {
    const std::string in = input_f32({2, 2}, {3, 4, -6, 8}), out = path("out.npy");
    expect_error({"reduce", path("missing.npy"), out}, 1, "missing.npy");
    std::ofstream(path("bad.npy"), std::ios::binary) << "not an npy file";
    expect_error({"reduce", path("bad.npy"), out}, 1, "bad magic");
    expect_error({"reduce", in, out, "--axes", "5"}, 1, "axes");
    expect_error({"reduce", in, out, "--axes", "0,0"}, 1, "axes");
    expect_error({"reduce", in, out, "--p=-1"}, 1, "p");
    expect_error({"reduce", in, out, "--dtype", "bfloat16"}, 2, "--dtype");  // the file is float32
    expect_error({"reduce", in, path("no_such_dir/out.npy")}, 1, "no_such_dir");
}

TEST_F(CliTest, FailureLeavesAnExistingOutputUntouched) {
    const std::string in = input_f32({2, 2}, {3, 4, -6, 8});
    std::ofstream(path("keep.npy")) << "previous contents";
    Result r = run({"reduce", in, path("keep.npy"), "--axes", "7"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(slurp(path("keep.npy")), "previous contents");
    for (const auto &entry : fs::directory_iterator(dir_)) {
        EXPECT_TRUE(entry.path().filename() == "in.npy" || entry.path().filename() == "keep.npy")
            << entry.path();
    }
}

TEST_F(CliTest, HelpInfoAndDemo) {
    for (const auto &args :
         std::vector<std::vector<std::string>>{{}, {"--help"}, {"reduce", "--help"}}) {
        Result r = run(args);
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_NE(r.out.find("usage:"), std::string::npos);
        EXPECT_EQ(r.err, "");
    }
    Result info = run({"info"});
    EXPECT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find("compiled variants"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("detected"), std::string::npos) << info.out;
    Result demo = run({"demo", "--quick"});
    EXPECT_EQ(demo.exit_code, 0) << demo.err;
    EXPECT_NE(demo.out.find("(6, 12, 1, 1)"), std::string::npos) << demo.out;
    EXPECT_NE(demo.out.find("(6, 12, 24)"), std::string::npos) << demo.out;
    EXPECT_EQ(demo.err, "");
}

}  // namespace
}  // namespace lpnorm_cli_test
