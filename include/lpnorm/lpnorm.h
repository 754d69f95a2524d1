// lpnorm: Lp-norm reductions (and, later, Lp pooling) backed by Halide AOT kernels.
//
// Every entry point validates its arguments first. On bad input it returns a Status whose
// message names the argument and its value, and it writes nothing to the output.
// Nothing in the library aborts the process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/tensor.h"

namespace lpnorm {

enum class ErrorCode : int {
    ok = 0,
    invalid_argument = 1,  // a bad attribute value (axes, p, policy, ...)
    shape_mismatch = 2,    // output shape differs from the computed one
    dtype_mismatch = 3,    // output dtype differs from the input dtype
    null_pointer = 4,      // null data with a non-zero size
    too_large = 5,         // sizes overflow, or exceed what the kernels index
    aliasing = 6,          // input and output memory overlap
    unsupported = 7,       // valid request that this build cannot run (e.g. ISA not compiled)
    internal = 8,          // a kernel reported an error (a bug: please report it)
};

class Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
    static Status Ok() { return Status(); }

    bool ok() const { return code_ == ErrorCode::ok; }
    ErrorCode code() const { return code_; }
    const std::string &message() const { return message_; }

private:
    ErrorCode code_ = ErrorCode::ok;
    std::string message_;
};

const char *error_code_name(ErrorCode code);

// What an empty `axes` list means. The ecosystems disagree, so the caller chooses.
enum class EmptyAxes : int {
    identity = 0,     // OpenVINO ReduceL1/L2-4: y = x
    reduce_all = 1,   // ONNX default (noop_with_empty_axes = 0): reduce over every axis
    elementwise = 2,  // ONNX-18 noop_with_empty_axes = 1: y = |x|, whatever p is
};

struct ReduceParams {
    // Axes to reduce, each in [-rank, rank-1]; duplicates are an error.
    std::vector<int64_t> axes;
    // Norm order: any real p > 0, +inf (max |x|), -inf (min |x|) or 0 (count of non-zeros).
    double p = 2.0;
    // Keep reduced dimensions as size 1.
    bool keep_dims = false;
    EmptyAxes empty_axes = EmptyAxes::reduce_all;
};

// y = (sum over the reduced axes of |x|^p)^(1/p).
//
// Accumulation: float16/bfloat16 in float32, float32 and float64 in float64, integers in
// float64 with the root taken in float64, then truncated toward zero and saturated to the
// output type. Reductions over an empty set give 0 for every p. NaN propagates; +-inf gives
// inf (p = -inf gives min |x|; p = 0 counts elements != 0, NaN included).
// Output: dense row-major, dtype equal to the input's, shape from reduce_output_shape().
Status reduce(const Tensor &input, const Tensor &output, const ReduceParams &params);

// The output shape reduce() expects for `input_shape`, or the error reduce() would report.
Status reduce_output_shape(const std::vector<int64_t> &input_shape, const ReduceParams &params,
                           std::vector<int64_t> *output_shape);

// ---- Instruction sets and threads -------------------------------------------------------

enum class Isa : int { auto_detect = 0, sse41 = 1, avx2 = 2, avx512 = 3 };

const char *isa_name(Isa isa);
bool parse_isa(const char *name, Isa *out);

// Best ISA the CPU and OS support (CPUID plus XCR0 state) among the compiled ones.
Isa detected_isa();
// ISA used for the next calls: the override if set (set_isa or LPNORM_ISA), else detected.
Isa active_isa();
// Forces an ISA (Isa::auto_detect clears the override). Fails with `unsupported` when the
// CPU cannot run it or it was not compiled.
Status set_isa(Isa isa);
// True when this CPU/OS can run kernels of `isa`.
bool cpu_supports(Isa isa);

// Worker threads used by large kernels (0 = one per core). Small problems always run on the
// calling thread.
void set_num_threads(int num_threads);
int num_threads();

// ---- Introspection -----------------------------------------------------------------------

struct VariantInfo {
    std::string op;       // "reduce"
    std::string pattern;  // "all", "inner", "outer", "middle", "general"
    std::string reducer;  // "sum" (p in (0, inf) and p = 0) or "extreme" (p = +-inf)
    DType dtype;
    Isa isa;
    std::string function;  // the Halide function's symbol
};

std::vector<VariantInfo> compiled_variants();
const char *version();

}  // namespace lpnorm
