// The fixture of the CLI tests: runs the built `lpnorm` executable on .npy files in a temporary
// directory and reads its output back.
#pragma once

#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/wait.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "npy.h"

#ifndef LPNORM_CLI_PATH
#error "LPNORM_CLI_PATH must name the lpnorm executable"
#endif
#ifndef LPNORM_CLI_LAUNCHER
#define LPNORM_CLI_LAUNCHER ""  // a command the CLI runs under (the emulator of a cross build)
#endif

namespace lpnorm_cli_test {

namespace fs = std::filesystem;
using lpnorm::DType;
namespace npy = lpnorm::npy;

using V = std::vector<double>;
using S = std::vector<int64_t>;

struct Result {
    int exit_code = -1;
    std::string out, err;
};

inline std::string slurp(const fs::path &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

#ifdef _WIN32
// cmd.exe's quoting; the arguments of these tests hold no double quotes.
inline std::string shell_quote(const std::string &s) { return "\"" + s + "\""; }
#else
inline std::string shell_quote(const std::string &s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}
#endif

inline void expect_near(const V &got, const V &want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << i;
}

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("lpnorm_cli_test_" + std::to_string(std::random_device()()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string &name) const { return (dir_ / name).string(); }

    Result run(const std::vector<std::string> &args) const {
        const std::string launcher = LPNORM_CLI_LAUNCHER;
        std::string cmd = (launcher.empty() ? "" : launcher + " ") + shell_quote(LPNORM_CLI_PATH);
        for (const std::string &a : args) cmd += " " + shell_quote(a);
        cmd += " >" + shell_quote(path("stdout.txt")) + " 2>" + shell_quote(path("stderr.txt"));
        Result r;
#ifdef _WIN32
        // cmd /c drops the first and the last quote of a line that starts with one: a pair
        // around the whole line keeps the others. Its result is the program's exit code.
        r.exit_code = std::system(("\"" + cmd + "\"").c_str());
#else
        const int status = std::system(cmd.c_str());
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
        r.out = slurp(dir_ / "stdout.txt");
        r.err = slurp(dir_ / "stderr.txt");
        fs::remove(dir_ / "stdout.txt");
        fs::remove(dir_ / "stderr.txt");
        return r;
    }

    template <typename T>
    std::string input(const std::string &name, DType dtype, const std::vector<int64_t> &shape,
                      const std::vector<T> &v) {
        std::string error;
        EXPECT_TRUE(npy::write(path(name), dtype, shape, v.data(), &error)) << error;
        return path(name);
    }
    std::string input_f32(const std::vector<int64_t> &shape, const std::vector<float> &v) {
        return input("in.npy", DType::float32, shape, v);
    }

    // Runs `COMMAND in.npy out.npy FLAGS...`, expects success, returns the output as doubles.
    std::vector<double> run_ok(const std::string &command, const std::vector<std::string> &flags,
                               std::vector<int64_t> *shape = nullptr,
                               npy::ReadOptions options = {}) {
        std::vector<std::string> args = {command, path("in.npy"), path("out.npy")};
        args.insert(args.end(), flags.begin(), flags.end());
        Result r = run(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.err, "");
        npy::Array a;
        std::string error;
        if (!npy::read(path("out.npy"), &a, &error, options)) {
            ADD_FAILURE() << error;
            return {};
        }
        if (shape) *shape = a.shape;
        last_dtype_ = a.dtype;
        std::vector<double> v;
        for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(element(a, i));
        return v;
    }
    std::vector<double> reduce(const std::vector<std::string> &flags,
                               std::vector<int64_t> *shape = nullptr,
                               npy::ReadOptions options = {}) {
        return run_ok("reduce", flags, shape, options);
    }

    static double element(const npy::Array &a, int64_t i) {
        const uint8_t *p = a.data.data();
        switch (a.dtype) {
        case DType::float32: return reinterpret_cast<const float *>(p)[i];
        case DType::float64: return reinterpret_cast<const double *>(p)[i];
        case DType::int32: return reinterpret_cast<const int32_t *>(p)[i];
        case DType::uint8: return p[i];
        default: return reinterpret_cast<const uint16_t *>(p)[i];  // raw 16-bit patterns
        }
    }

    // Expects a failure of `args`: exit 1 or 2, one stderr line naming `needle`, no out.npy.
    Result expect_error(const std::vector<std::string> &args, int exit_code,
                        const std::string &needle) {
        SCOPED_TRACE(::testing::PrintToString(args));
        Result r = run(args);
        EXPECT_EQ(r.exit_code, exit_code) << r.err;
        EXPECT_EQ(r.err.rfind("lpnorm: error: ", 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy")));
        return r;
    }

    fs::path dir_;
    DType last_dtype_ = DType::float32;
};

}  // namespace lpnorm_cli_test
