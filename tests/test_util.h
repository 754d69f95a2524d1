// Shared helpers for the reduction tests: owned arrays, deterministic data, scoped ISA and
// pattern overrides, and check_reduce(), which runs lpnorm::reduce and compares every output
// element with the reference within the derived tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "reference/reduce_reference.h"
#include "testing.h"

namespace lpnorm {
// Readable test parameters in gtest output.
inline void PrintTo(Isa isa, std::ostream *os) { *os << isa_name(isa); }
inline void PrintTo(DType dtype, std::ostream *os) { *os << dtype_name(dtype); }
}  // namespace lpnorm

namespace lpnorm::test {

// Storage plus a (possibly strided) view into it.
struct Array {
    std::vector<unsigned char> storage;
    int64_t storage_elements = 0;
    Tensor t;

    // Element at a logical index of the view.
    long double get(const std::vector<int64_t> &index) const;
    void set(const std::vector<int64_t> &index, long double value);
    // Every element of the storage, in storage order.
    long double at(int64_t i) const;
    void set_at(int64_t i, long double value);
};

// Dense row-major array, zero-filled.
Array make_array(DType dtype, const std::vector<int64_t> &shape);
// A view with the given element strides over storage just large enough for it (negative
// strides put `data` inside the storage); storage is zero-filled.
Array make_strided(DType dtype, const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides);
// Dense array holding `values` (rounded to dtype).
Array make_from(DType dtype, const std::vector<int64_t> &shape,
                const std::vector<long double> &values);

// Fills the whole storage with deterministic pseudo-random values for the dtype: about 15%
// zeros, floats in (-8, 8), signed integers in [-100, 100], unsigned in [0, 200].
void fill_random(Array *a, uint64_t seed);

// Fills every byte of the storage with `byte` (canaries).
void fill_bytes(Array *a, unsigned char byte);

const std::vector<DType> &all_dtypes();
const std::vector<double> &p_classes();  // 1, 2, 3, 2.5, 0.5, +inf, -inf, 0

std::string describe(const Tensor &t, const ReduceParams &params);
// A pooling call in one line: dtype, shape, strides and every attribute.
std::string describe_pool(const Tensor &x, const PoolParams &p);

// Pooling attributes in one expression (p, mode and overhang left at their defaults).
PoolParams window(std::vector<int64_t> kernel, std::vector<int64_t> strides = {},
                  std::vector<int64_t> pads = {}, std::vector<int64_t> dilations = {},
                  bool ceil_mode = false, AutoPad auto_pad = AutoPad::notset);
std::string shape_string(const std::vector<int64_t> &shape);

// Runs lpnorm::reduce(input, out, params) into a canary-filled dense output and checks the
// shape, every value against the reference and, when `pattern` is not automatic, that the
// call dispatched to `pattern`.
::testing::AssertionResult check_reduce(const Tensor &input, const ReduceParams &params,
                                        testing::Pattern pattern = testing::Pattern::automatic);

// Runs lpnorm::reduce and returns the output array (the test checks the values itself).
Array run_reduce(const Tensor &input, const ReduceParams &params, Status *status);

// True when the process runs on a GPU backend (LPNORM_BACKEND) that has no `op` ("reduce",
// "pool") kernels for `dtype`: calls answer `unsupported`, which check_reduce and check_pool
// accept as the whole result (the OpenCL suites' float16 and bfloat16 cases).
bool backend_lacks_dtype(DType dtype, const std::string &op);

// The entry of backends() for `backend` (a test failure if it is missing).
BackendStatus backend_status(Backend backend);

ReduceParams params(std::vector<int64_t> axes, double p, bool keep_dims = false,
                    EmptyAxes empty = EmptyAxes::reduce_all);

// Every ISA of every architecture; a test forcing one that this machine cannot run skips it.
const std::vector<Isa> &all_isas();

// Whether the suite runs under an emulator: a cross build's ctest sets LPNORM_TEST_EMULATED
// (the ARM64 suite under qemu-aarch64, 20 to 70 times slower than native).
bool running_emulated();
// Under an emulator the heaviest sweeps run one case in `share`: those whose index plus
// `offset` is a multiple of it (an offset from the variant spreads the variants over different
// cases). Natively: never skipped.
bool skipped_under_emulation(size_t case_index, size_t share, size_t offset = 0);

// Forces `isa` (callers restore Isa::auto_detect afterwards); false, with `why` set, when this
// CPU cannot run it or the build lacks it; any other failure is an EXPECT failure.
bool force_isa(Isa isa, std::string *why);
// force_isa, and also false (with `why`) when `isa` has no kernel of `op` (VariantInfo::op)
// and `dtype` in this build: they run another ISA's kernels there (neon_fp16 has only float16
// ones, avx512_zen5 only float32 reductions), which that ISA's own tests cover.
bool force_isa_for(Isa isa, const char *op, DType dtype, std::string *why);

// EXPECT-style checks that give up after `limit` failures, so one bug does not flood the log
// but does not hide the next one either. record() returns false once the sweep should stop.
class FailureBudget {
public:
    explicit FailureBudget(int limit = 6) : limit_(limit) {}
    bool record(const ::testing::AssertionResult &r) {
        EXPECT_TRUE(r);
        if (!r && ++failures_ >= limit_) {
            ADD_FAILURE() << "stopping after " << failures_ << " failures";
            return false;
        }
        return true;
    }

private:
    int limit_;
    int failures_ = 0;
};

// Forces a reduction pattern for the lifetime of the object.
class PatternScope {
public:
    explicit PatternScope(testing::Pattern p) { testing::force_pattern(p); }
    ~PatternScope() { testing::force_pattern(testing::Pattern::automatic); }
};

// Lowered split limits (testing.h, set_split_limits) for the lifetime of the object.
class SplitLimitsScope {
public:
    SplitLimitsScope(int64_t index_limit, int64_t chunk, int64_t max_accumulators = 0) {
        testing::set_split_limits(index_limit, chunk, max_accumulators);
    }
    ~SplitLimitsScope() { testing::set_split_limits(0); }
};

const char *pattern_name(testing::Pattern p);

}  // namespace lpnorm::test
