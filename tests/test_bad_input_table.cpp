// Table-driven bad input (rows in tests/bad_input/): every validation rule of every public
// entry point returns its code and a message naming the argument and the value, writes
// nothing (every byte the call could write is compared), and leaves the ISA setting alone; C
// ABI rows also set lpnorm_last_error(). The meta-checks tie the table to the sources.
// LPNORM_PRINT_BAD_INPUT=1 in the environment prints every row's message.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "bad_input/table.h"
#include "lpnorm/lpnorm_c.h"

#ifndef LPNORM_SOURCE_DIR
#error "LPNORM_SOURCE_DIR must name the source root (tests/CMakeLists.txt sets it)"
#endif

namespace lpnorm::test::bad_input {
namespace {

// Rows per entry point. Enumerated by reading each entry point's code path from the public
// function to the last check before a kernel runs (runtime/*.cpp, include/lpnorm/*.h): one row
// per distinct rule (each `if` that returns an error, and each argument it applies to: input
// and output tensors, each attribute, each enum, each pointer), plus rows that pin a default
// (keepdims, strides, stride = kernel_size, ...) through the output-shape check, and a second
// value where a rule has two sides (negative and too large, upper and lower enum bounds).
// A change in a count means a rule was added or lost: update the rows first, then this.
const std::map<std::string, int> kExpectedRows = {
    {"lpnorm::reduce", 43},
    {"lpnorm::reduce_output_shape", 13},
    {"lpnorm::pool", 59},
    {"lpnorm::pool_output_shape", 32},
    {"lpnorm::pool_geometry", 32},
    {"lpnorm::set_isa", 15},
    {"lpnorm_reduce", 41},
    {"lpnorm_reduce_output_shape", 16},
    {"lpnorm_pool", 51},
    {"lpnorm_pool_output_shape", 33},
    {"lpnorm_set_isa", 11},
    {"lpnorm_set_backend", 5},
    {"lpnorm_gpu_context", 1},
    {"onnx::reduce_l1", 20},
    {"onnx::reduce_l2", 20},
    {"onnx::reduce_output_shape", 17},
    {"onnx::lp_pool", 35},
    {"onnx::lp_pool_output_shape", 33},
    {"onnx::global_lp_pool", 10},
    {"onnx::global_lp_pool_output_shape", 9},
    {"openvino::reduce_l1", 4},
    {"openvino::reduce_l2", 4},
    {"openvino::reduce_lp", 7},
    {"openvino::reduce_output_shape", 2},
    {"openvino::normalize_l2", 15},
    {"openvino::normalize_l2_output_shape", 11},
    {"directml::lp_pooling", 17},
    {"directml::lp_pooling1", 20},
    {"directml::lp_normalization", 14},
    {"torch::lp_pool1d", 14},
    {"torch::lp_pool2d", 16},
    {"torch::lp_pool3d", 14},
    {"torch::vector_norm", 14},
    {"torch::normalize", 13},
    {"lpnorm::normalize", 39},
    {"lpnorm_normalize", 17},
    {"onnx::lp_normalization", 7},
    {"lpnorm::normalize_output_shape", 16},
    {"lpnorm_normalize_output_shape", 17},
    {"lpnorm::reduce_backward", 60},
    {"lpnorm_reduce_backward", 13},
    {"lpnorm::pool_backward", 78},
    {"lpnorm_pool_backward", 3},
    {"lpnorm::normalize_backward", 50},
    {"lpnorm_normalize_backward", 16},
};

constexpr int64_t kCanary = -0x5A5A5A5A5A5A5A5B;

void prepare(Buffers *b) {
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i + 4 <= b->in.size(); i += 4) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const float v = float(int64_t(state >> 40) % 1600) / 100.0f - 8.0f;  // floats in [-8, 8)
        std::memcpy(&b->in[i], &v, 4);
    }
    std::memset(b->out.data(), 0xA5, b->out.size());
    b->shape_out.assign(3, kCanary);
    PoolAxis canary;
    canary.input = canary.output = canary.kernel = kCanary;
    b->geometry_out.assign(2, canary);
    b->c_rank = -7;
    for (int64_t &v : b->c_shape) v = kCanary;
}

// The bytes of everything a row's call could write.
std::vector<unsigned char> snapshot(const Buffers &b) {
    std::vector<unsigned char> s(b.in.begin(), b.in.end());
    s.insert(s.end(), b.out.begin(), b.out.end());
    auto append = [&s](const void *p, size_t n) {
        const auto *c = static_cast<const unsigned char *>(p);
        s.insert(s.end(), c, c + n);
    };
    const size_t sizes[2] = {b.shape_out.size(), b.geometry_out.size()};
    append(sizes, sizeof sizes);
    append(b.shape_out.data(), b.shape_out.size() * sizeof(int64_t));
    append(b.geometry_out.data(), b.geometry_out.size() * sizeof(PoolAxis));
    append(&b.c_rank, sizeof b.c_rank);
    append(b.c_shape, sizeof b.c_shape);
    return s;
}

const Site *find_site(const std::string &id) {
    for (const Site &s : sites()) {
        if (id == s.id) return &s;
    }
    return nullptr;
}

// A successful C call clears this thread's last error, so a row's message cannot be stale.
void clear_c_last_error() {
    int32_t rank = 0;
    int64_t shape[kMaxRank];
    ASSERT_EQ(lpnorm_reduce_output_shape(0, nullptr, nullptr, 0, 0, 1, &rank, shape), LPNORM_OK);
    ASSERT_STREQ(lpnorm_last_error(), "");
}

void run_row(const Row &row) {
    SCOPED_TRACE(row.entry + ": " + row.name + " [" + row.site + "]");
    if (row.unreachable_here) {
        const std::string why = row.unreachable_here();
        if (!why.empty()) {
            std::printf("[ skipped  ] %s: %s: %s\n", row.entry.c_str(), row.name.c_str(),
                        why.c_str());
            return;
        }
    }
    Buffers b;
    prepare(&b);
    const std::vector<unsigned char> before = snapshot(b);
    const Isa isa_before = active_isa();
    if (row.c_abi()) clear_c_last_error();
    Outcome o;
    try {
        o = row.call(b);
    } catch (const std::exception &e) {
        ADD_FAILURE() << "broken row: " << e.what();
        return;
    }
    if (row.c_abi()) o.message = lpnorm_last_error();
    EXPECT_EQ(std::string(error_code_name(o.code)), error_code_name(row.code)) << o.message;
    if (std::getenv("LPNORM_PRINT_BAD_INPUT"))
        std::printf("  %-28s %-40s %s\n", row.entry.c_str(), row.name.c_str(), o.message.c_str());
    for (const std::string &f : row.fragments) {
        EXPECT_NE(o.message.find(f), std::string::npos)
            << "\"" << o.message << "\" lacks \"" << f << "\"";
    }
    const Site *site = find_site(row.site);
    ASSERT_NE(site, nullptr) << "unknown site " << row.site;
    EXPECT_NE(o.message.find(site->fragment), std::string::npos)
        << "\"" << o.message << "\" is not the message of " << site->file << " site " << site->id;
    EXPECT_TRUE(snapshot(b) == before) << "a failing call wrote to memory: " << o.message;
    EXPECT_EQ(active_isa(), isa_before) << "a failing call changed the ISA";
    if (active_isa() != isa_before) set_isa(isa_before);
}

std::string test_name(const ::testing::TestParamInfo<std::string> &info) {
    std::string n;
    for (char c : info.param) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return n;
}

std::vector<std::string> entry_points() {
    std::vector<std::string> e;
    for (const auto &kv : kExpectedRows) e.push_back(kv.first);
    return e;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInput, EveryRowFailsCleanly) {
    int count = 0;
    for (const Row &row : all_rows()) {
        if (row.entry != GetParam()) continue;
        run_row(row);
        count++;
    }
    EXPECT_EQ(count, kExpectedRows.at(GetParam())) << "rows of " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EntryPoints, BadInput, ::testing::ValuesIn(entry_points()), test_name);

TEST(BadInputTable, EveryRowBelongsToAKnownEntryPoint) {
    std::map<std::string, int> counts;
    for (const Row &row : all_rows()) counts[row.entry]++;
    for (const auto &kv : counts) {
        EXPECT_TRUE(kExpectedRows.count(kv.first))
            << "rows of an unlisted entry point " << kv.first;
        std::printf("%-36s %3d rows\n", kv.first.c_str(), kv.second);
    }
    std::printf("%-36s %3zu rows\n", "total", all_rows().size());
}

// Error sites in a source file: Status(ErrorCode::...) constructions plus calls of the file's
// error helper (bad/invalid), less the helpers' own definitions (one construction and one name).
int count_sites(const std::string &text) {
    auto count = [&text](const char *pattern) {
        const std::regex re(pattern);
        return int(std::distance(std::sregex_iterator(text.begin(), text.end(), re),
                                 std::sregex_iterator()));
    };
    return count(R"(Status\(\s*(lpnorm::)?ErrorCode::)") +
           count(R"((^|[^A-Za-z0-9_])(bad|invalid)\()") - 2 * count(R"(Status (bad|invalid)\()");
}

TEST(BadInputTable, EveryErrorSiteInTheSourcesHasARow) {
    namespace fs = std::filesystem;
    const fs::path root = LPNORM_SOURCE_DIR;
    std::map<std::string, int> listed;
    for (const Site &s : sites()) listed[s.file]++;

    std::set<std::string> seen;
    for (const auto &[dir, ext] :
         {std::pair<const char *, const char *>{"runtime", ".cpp"}, {"include/lpnorm", ".h"}}) {
        ASSERT_TRUE(fs::is_directory(root / dir)) << (root / dir);
        for (const auto &f : fs::recursive_directory_iterator(root / dir)) {
            if (f.path().extension() != ext) continue;
            std::ifstream in(f.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string rel = fs::relative(f.path(), root).generic_string();
            seen.insert(rel);
            const int found = count_sites(text.str());
            EXPECT_EQ(found, listed.count(rel) ? listed[rel] : 0)
                << rel << " has " << found << " error sites; sites() lists " << listed[rel];
            for (const Site &s : sites()) {
                if (rel == s.file) {
                    EXPECT_NE(text.str().find(s.fragment), std::string::npos)
                        << s.id << ": \"" << s.fragment << "\" not in " << rel;
                }
            }
        }
    }
    for (const auto &kv : listed) EXPECT_TRUE(seen.count(kv.first)) << kv.first << " not found";

    std::set<std::string> reached;
    for (const Row &row : all_rows()) {
        EXPECT_NE(find_site(row.site), nullptr)
            << row.entry << ": " << row.name << ": unknown site " << row.site;
        reached.insert(row.site);
    }
    int untested = 0;
    for (const Site &s : sites()) {
        if (s.untested) {
            std::printf("[ no row   ] %s (%s): %s\n", s.id, s.file, s.untested);
            untested++;
            EXPECT_FALSE(reached.count(s.id)) << s.id << " has rows but is listed as untested";
        } else {
            EXPECT_TRUE(reached.count(s.id)) << "no row reaches " << s.id << " in " << s.file;
        }
    }
    std::printf("%zu error sites, %d without rows\n", sites().size(), untested);
}

// The C ABI keeps one message per thread and clears it on success.
TEST(BadInputTable, CLastErrorIsClearedBySuccess) {
    EXPECT_EQ(lpnorm_set_isa("no-such-isa"), LPNORM_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lpnorm_last_error()).find("no-such-isa"), std::string::npos);
    clear_c_last_error();
}

}  // namespace
}  // namespace lpnorm::test::bad_input
