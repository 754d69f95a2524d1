// The bad-input table: one row per validation rule per public entry point. A row makes one
// call that must fail with `code` and a message holding every fragment (the argument's name
// and the offending value), and must leave every byte the call could write untouched.
//
// Rows name the error site they reach (`site`, an id from sites()); the meta-checks in
// test_bad_input_table.cpp tie the sites to the runtime and adapter sources.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::test::bad_input {

// Everything a failing call could write to. The runner fills `in` with pseudo-random data and
// the rest with canaries, and compares every byte after the call.
struct Buffers {
    static constexpr size_t kBytes = 8192;
    std::vector<unsigned char> in = std::vector<unsigned char>(kBytes);
    std::vector<unsigned char> out = std::vector<unsigned char>(kBytes);
    std::vector<int64_t> shape_out;  // destination of the C++ *_output_shape / pool_geometry
    std::vector<PoolAxis> geometry_out;
    int32_t c_rank = 0;  // destinations of the C ABI *_output_shape
    int64_t c_shape[kMaxRank] = {};

    // Dense views of `in` and `out`; the view must fit the buffer (a row whose call would
    // read or write outside it is a broken row: this throws).
    Tensor x(const std::vector<int64_t> &shape, DType dtype = DType::float32);
    Tensor y(const std::vector<int64_t> &shape, DType dtype = DType::float32);
};

struct Outcome {
    ErrorCode code = ErrorCode::ok;
    std::string message;  // C ABI rows: filled in by the runner from lpnorm_last_error()
};

inline Outcome of(const Status &s) { return {s.code(), s.message()}; }
inline Outcome of_c(int rc) { return {static_cast<ErrorCode>(rc), ""}; }

struct Row {
    std::string entry;  // the public entry point, e.g. "lpnorm::reduce", "lpnorm_pool"
    std::string site;   // the error site the call reaches (an id from sites())
    std::string name;
    std::function<Outcome(Buffers &)> call;
    ErrorCode code;
    std::vector<std::string> fragments;
    // Rows whose error needs a CPU or build property: a non-empty reason when this CPU or
    // build cannot reach it (the row is then reported and skipped).
    std::function<std::string()> unreachable_here;

    bool c_abi() const { return entry.rfind("lpnorm_", 0) == 0; }
};

// One place in the sources that returns an error status.
struct Site {
    const char *id;
    const char *file;      // relative to the source root
    const char *fragment;  // a string literal of the message, as written in the source
    const char *untested;  // nullptr, or why no row reaches it
};

const std::vector<Site> &sites();

// Rules shared by several entry points (the C++ call, its C ABI twin, the adapters).
struct ReduceRule {
    std::string site, name;
    std::vector<int64_t> shape;
    ReduceParams params;
    std::vector<std::string> fragments;
};
struct PoolRule {
    std::string site, name;
    std::vector<int64_t> shape;
    PoolParams params;
    std::vector<std::string> fragments;
    bool c_abi = true;  // expressible through lpnorm_pool_params (arrays sized spatial_dims)
    ErrorCode code = ErrorCode::invalid_argument;
};
// validate_tensor() rules; `which` is "input" or "output".
struct TensorRule {
    std::string site, name;
    std::function<Tensor(Buffers &)> make;
    ErrorCode code;
    std::vector<std::string> fragments;
    bool c_abi = true;  // the C ABI reaches the same site (rank and dtype it checks itself)
};

std::vector<ReduceRule> reduce_attribute_rules();
std::vector<PoolRule> pool_attribute_rules();
std::vector<TensorRule> tensor_rules(const std::string &which);

void add_core_rows(std::vector<Row> *rows);
void add_c_api_rows(std::vector<Row> *rows);
void add_onnx_rows(std::vector<Row> *rows);
void add_other_adapter_rows(std::vector<Row> *rows);    // openvino.h, directml.h, torch.h
void add_normalize_rows(std::vector<Row> *rows);        // normalize, lpnorm_normalize
void add_reduce_backward_rows(std::vector<Row> *rows);  // reduce_backward and its C twin
void add_pool_backward_rows(std::vector<Row> *rows);    // pool_backward and its C twin

// Every row, in a fixed order.
const std::vector<Row> &all_rows();

// Reduction and pooling parameters in one expression.
ReduceParams reduce_params(std::vector<int64_t> axes, double p = 2,
                           EmptyAxes empty = EmptyAxes::reduce_all, bool keep_dims = false);
PoolParams pool_params(std::vector<int64_t> kernel, std::vector<int64_t> strides = {});

// The shape every valid row's input has: N, C, H, W = 2, 3, 6, 8.
inline const std::vector<int64_t> kShape = {2, 3, 6, 8};

}  // namespace lpnorm::test::bad_input
