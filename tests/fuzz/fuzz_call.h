// One checked call of lpnorm_reduce or lpnorm_pool, shared by their fuzz targets: the output
// taken from the *_output_shape query (or deliberately wrong), memory that covers every byte
// the call may touch, and the contract checks afterwards.
#pragma once

// First: the Halide runtime's names as lpnorm's archive has them (halide_malloc below is
// lpnorm's own, cmake/LpnormPrivateRuntime.cmake).
#include "lpnorm_halide_runtime_names.h"

#include <cmath>
#include <functional>
#include <mutex>

#include "fuzz_util.h"

namespace lpnorm_fuzz {

constexpr int kMaxRank = 8;
constexpr int kMaxDims = 16;            // dims read and passed for ranks above 8
constexpr int64_t kMaxBytes = 1 << 20;  // largest input span or output the harness allocates
constexpr int64_t kMaxWork = 1 << 22;   // elements touched (zero strides exceed the span)

inline size_t dtype_size(int32_t dtype) {
    static const size_t sizes[] = {4, 2, 2, 8, 1, 1, 2, 2, 4, 4, 8, 8};
    return dtype >= 0 && dtype < 12 ? sizes[dtype] : 0;
}

// The input tensor as the fuzz input describes it.
struct InputArgs {
    int32_t rank = 0;
    int32_t dtype = 0;
    int64_t shape[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};
    bool has_strides = false;

    int stored() const { return std::clamp<int32_t>(rank, 0, kMaxDims); }
    bool valid_rank() const { return rank >= 0 && rank <= kMaxRank; }

    // Reads the dims and the layout.
    void read_shape(Reader &r) {
        for (int i = 0; i < stored(); i++) shape[i] = pick_dim(r);
        has_strides = layout_strides(r, r.u8(), stored(), shape, strides);
    }
    // Makes every dim at most `cap` and every stride at most 4 * cap in magnitude.
    void clamp(int64_t cap) {
        for (int i = 0; i < stored(); i++) {
            if (shape[i] > cap) shape[i] %= cap + 1;
            if (strides[i] > 4 * cap || strides[i] < -4 * cap) strides[i] %= 4 * cap + 1;
        }
    }
};

// A caller mistake and what it needs from the fuzz input.
struct MisuseArgs {
    uint8_t kind = kNone;
    uint8_t which = 0;               // kOutputShape: the dim
    int64_t strides[kMaxRank] = {};  // kOutputStrides
    bool guard_at_start = false;     // the input's guard page before it, not after

    void read(Reader &r) {
        kind = r.u8();
        if (kind == kOutputShape) which = r.u8();
        if (kind == kOutputStrides) {
            for (int64_t &s : strides) s = pick_stride(r);
        }
        guard_at_start = r.u8() & 1;
    }
};

// lpnorm_*_output_shape's answer. `ask(out_rank, out_shape)` runs the query; canaries around
// its outputs must survive a failure and the unused entries of a success.
struct Query {
    bool ok = false;
    int32_t rank = 0;
    int64_t shape[kMaxRank] = {};

    template <typename Ask>
    explicit Query(Ask ask) {
        constexpr int64_t kSentinel = 0x5A5A5A5A5A5A5A5A;
        constexpr int32_t kRankSentinel = -12345;
        int32_t out_rank = kRankSentinel;
        int64_t out[kMaxRank + 2];
        std::fill(out, out + kMaxRank + 2, kSentinel);
        const int status = ask(&out_rank, out + 1);
        if (status != LPNORM_OK) {
            require_error_reported(status, "output_shape query");
            FUZZ_REQUIRE(out_rank == kRankSentinel, "failed query wrote out_rank");
            for (int64_t v : out) FUZZ_REQUIRE(v == kSentinel, "failed query wrote out_shape");
            return;
        }
        require_success_reported("output_shape query");
        FUZZ_REQUIRE(out_rank >= 0 && out_rank <= kMaxRank, "query gave rank %d", out_rank);
        for (int i = 0; i < kMaxRank + 2; i++) {
            const bool used = i >= 1 && i <= out_rank;
            FUZZ_REQUIRE(used ? out[i] >= 0 : out[i] == kSentinel, "query out_shape[%d]", i - 1);
        }
        ok = true;
        rank = out_rank;
        std::copy(out + 1, out + 1 + out_rank, shape);
    }
};

// An element of `dtype` (an lpnorm_dtype code) below zero; -0 and NaN are not.
inline bool is_negative(const uint8_t *p, int32_t dtype) {
    switch (dtype) {
    case 0: {
        float v;
        std::memcpy(&v, p, 4);
        return v < 0;
    }
    case 3: {
        double v;
        std::memcpy(&v, p, 8);
        return v < 0;
    }
    case 1:
    case 2: {  // float16 / bfloat16: sign set, not zero, not NaN
        uint16_t v;
        std::memcpy(&v, p, 2);
        const uint16_t exp_mask = dtype == 1 ? 0x7C00 : 0x7F80;
        const bool nan = (v & exp_mask) == exp_mask && (v & 0x7FFF & ~exp_mask) != 0;
        return (v & 0x8000) && (v & 0x7FFF) && !nan;
    }
    case 4: return int8_t(p[0]) < 0;
    case 6: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return v < 0;
    }
    case 8: {
        int32_t v;
        std::memcpy(&v, p, 4);
        return v < 0;
    }
    case 10: {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v < 0;
    }
    default: return false;
    }
}

// For LPNORM_FUZZ_VERBOSE=1, which prints each call (to turn a crash into a test case).
inline void print_array(const char *name, const int64_t *v, int n) {
    std::fprintf(stderr, "%s", name);
    if (v == nullptr) {
        std::fprintf(stderr, " NULL");
        return;
    }
    for (int i = 0; i < n; i++)
        std::fprintf(stderr, "%s%lld", i ? ", " : " {", static_cast<long long>(v[i]));
    std::fprintf(stderr, n > 0 ? "}" : " {}");
}

// What the op-specific code knows about a call.
struct CallFacts {
    bool op_error = false;     // the op must reject it (bad p, dtype it does not run, ...)
    int64_t work = 0;          // elements the op touches, saturating
    bool nonnegative = false;  // every output element is >= 0 or NaN (norms)
};

enum class CallResult { done, too_large };

// Runs `op(input, output)` with memory for everything the call may touch and checks the
// contract. too_large: the call would need more than the harness allocates and need not fail;
// the caller shrinks the case and tries again.
inline CallResult checked_call(
    const InputArgs &in, const Query &query, const MisuseArgs &misuse, const CallFacts &facts,
    const Reader &values,
    const std::function<int(const lpnorm_tensor *, const lpnorm_tensor *)> &op) {
    const size_t esize = std::max<size_t>(dtype_size(in.dtype), 1);
    const int n = in.stored();
    int64_t in_strides[kMaxDims];
    if (in.has_strides)
        std::copy(in.strides, in.strides + n, in_strides);
    else
        dense_strides(n, in.shape, in_strides);
    const Extent in_ext = in.valid_rank() ? Extent(in.rank, in.shape, in_strides, esize)
                                          : Extent(0, nullptr, nullptr, esize);

    // The output: the queried shape, or (after a failed query) any shape.
    int32_t out_rank = query.ok ? query.rank : std::clamp<int32_t>(in.rank, 0, kMaxRank);
    int64_t out_shape[kMaxRank + 1] = {};
    std::copy(query.ok ? query.shape : in.shape, (query.ok ? query.shape : in.shape) + out_rank,
              out_shape);
    int32_t out_dtype = in.dtype;
    const int64_t *out_strides = nullptr;
    int64_t dense[kMaxRank + 1];
    uint8_t kind = misuse.kind;
    switch (kind) {
    case kOutputDtype: out_dtype = int32_t((int64_t(in.dtype) + 1) % 12); break;
    case kOutputShape:
        if (out_rank == 0)
            out_shape[out_rank++] = 2;
        else {
            int64_t &d = out_shape[misuse.which % out_rank];
            d = d == kI64Max ? d - 1 : d + 1;
        }
        break;
    case kOutputRank:
        if (out_rank < kMaxRank)
            out_shape[out_rank++] = 1;
        else
            out_rank--;
        break;
    case kOutputStrides: out_strides = misuse.strides; break;
    case kDenseStrides:
        dense_strides(out_rank, out_shape, dense);
        out_strides = dense;
        break;
    default: break;
    }
    int64_t out_dense[kMaxRank + 1];
    dense_strides(out_rank, out_shape, out_dense);
    const Extent out_ext(out_rank, out_shape, out_dense, esize);
    const int64_t out_bytes = out_ext.elements * int64_t(esize);
    // An alias needs both tensors non-empty to be an error (and to be safe to pass).
    if (kind == kAlias && (in_ext.elements == 0 || out_ext.elements == 0)) kind = kNone;

    bool expect_error = !query.ok || facts.op_error || dtype_size(in.dtype) == 0 ||
                        in_ext.bytes_overflow || out_ext.bytes_overflow;
    switch (kind) {
    case kNullInput:
    case kNullOutput:
    case kAlias:
    case kOutputDtype:
    case kOutputShape:
    case kOutputRank: expect_error = true; break;
    case kNullInputData: expect_error = expect_error || in_ext.elements > 0; break;
    case kNullShape: expect_error = expect_error || in.rank > 0; break;
    case kNullOutputData: expect_error = expect_error || out_ext.elements > 0; break;
    default: break;
    }
    // Anything else must succeed, except that dims and strides beyond 32 bits may still be
    // refused as too large, random output strides as not dense, and a build without the
    // kernel may answer unsupported.
    auto fits32 = [](int n, const int64_t *v) {
        return std::all_of(v, v + n, [](int64_t x) { return x >= kI32Min && x <= kI32Max; });
    };
    const bool must_succeed = !expect_error && kind != kOutputStrides && fits32(n, in.shape) &&
                              fits32(n, in_strides) && fits32(out_rank, out_shape) &&
                              fits32(out_rank, out_dense);
    const bool fits = in_ext.span_bytes <= kMaxBytes && out_bytes <= kMaxBytes;
    if (!expect_error && (!fits || facts.work > kMaxWork || in_ext.elements > kMaxWork)) {
        return CallResult::too_large;
    }

    // Memory: exactly the span (the guard page catches reads beyond it), or a token buffer
    // when the call must be rejected anyway.
    const bool real_input = in_ext.span_bytes <= kMaxBytes && !in_ext.bytes_overflow;
    GuardedBuffer input(real_input ? size_t(in_ext.span_bytes) : 64, misuse.guard_at_start);
    fill_values(input.data(), real_input ? size_t(in_ext.span_bytes) : 64, values);
    const std::vector<uint8_t> input_before(input.data(),
                                            input.data() + (real_input ? in_ext.span_bytes : 64));
    uint8_t *in_data = input.data() + (real_input ? int64_t(-in_ext.below) * int64_t(esize) : 0);
    const bool real_output = out_bytes <= kMaxBytes && !out_ext.bytes_overflow;
    CanaryBuffer output(real_output ? size_t(out_bytes) : 64);

    const lpnorm_tensor ti{kind == kNullInputData ? nullptr : in_data, in.dtype, in.rank,
                           kind == kNullShape ? nullptr : in.shape,
                           in.has_strides ? in.strides : nullptr};
    const lpnorm_tensor to{kind == kNullOutputData ? nullptr
                           : kind == kAlias        ? in_data
                                                   : output.data(),
                           out_dtype, out_rank, out_shape, out_strides};
    if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
        std::fprintf(stderr, "input: rank %d dtype %d", in.rank, in.dtype);
        print_array(" shape", in.shape, in.stored());
        print_array(" strides", in.has_strides ? in.strides : nullptr, in.stored());
        std::fprintf(stderr, "\noutput: rank %d dtype %d", out_rank, out_dtype);
        print_array(" shape", out_shape, out_rank);
        print_array(" strides", out_strides, out_rank);
        std::fprintf(stderr, "\nmisuse %d, expect %s\n", kind,
                     expect_error   ? "an error"
                     : must_succeed ? "success"
                                    : "any result");
    }
    const int status = op(kind == kNullInput ? nullptr : &ti, kind == kNullOutput ? nullptr : &to);

    FUZZ_REQUIRE(input_before.empty() ||
                     std::memcmp(input.data(), input_before.data(), input_before.size()) == 0,
                 "status %d: the input was modified", status);
    if (status != LPNORM_OK) {
        require_error_reported(status, "call");
        FUZZ_REQUIRE(!must_succeed || status == LPNORM_UNSUPPORTED,
                     "valid call failed with status %d", status);
        FUZZ_REQUIRE(output.intact(true), "failed call (status %d) wrote its output", status);
        return CallResult::done;
    }
    require_success_reported("call");
    FUZZ_REQUIRE(!expect_error, "call succeeded (query %s, misuse %d)", query.ok ? "ok" : "failed",
                 kind);
    FUZZ_REQUIRE(output.intact(false), "call wrote outside its output");
    if (facts.nonnegative) {
        for (int64_t i = 0; i < out_ext.elements; i++) {
            FUZZ_REQUIRE(!is_negative(output.data() + i * int64_t(esize), in.dtype),
                         "output element %lld is negative", static_cast<long long>(i));
        }
    }
    return CallResult::done;
}

}  // namespace lpnorm_fuzz

// The general-pattern kernels allocate a scratch buffer per task (one per output element of an
// elementwise reduction). Under ASan every malloc/free poisons and quarantines the whole buffer,
// about 1000x the native cost, which turns ordinary inputs into timeouts. The kernels are not
// instrumented, so their scratch memory gains nothing from ASan: these replace lpnorm's Halide
// runtime's weak halide_malloc/halide_free (lpnorm_halide_malloc and lpnorm_halide_free, by
// lpnorm_halide_runtime_names.h) with a few mmap'd blocks that are reused (mmap, so
// that the leak checker does not count the cached blocks). Defined here, not inline: each fuzz
// target includes this header from its one source file.
namespace lpnorm_fuzz::scratch {
constexpr size_t kHeader = 128;  // Halide's alignment; holds the block's mapped size
inline std::mutex mutex;
inline std::vector<uint8_t *> blocks;  // freed blocks, kept for reuse
inline size_t mapped(const uint8_t *block) { return *reinterpret_cast<const size_t *>(block); }
}  // namespace lpnorm_fuzz::scratch

extern "C" void *halide_malloc(void *, size_t size) {
    using namespace lpnorm_fuzz::scratch;
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < blocks.size(); i++) {
        if (mapped(blocks[i]) - kHeader >= size) {
            uint8_t *block = blocks[i];
            blocks.erase(blocks.begin() + long(i));
            return block + kHeader;
        }
    }
    const size_t bytes = size + kHeader;
    void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    auto *block = static_cast<uint8_t *>(m);
    *reinterpret_cast<size_t *>(block) = bytes;
    return block + kHeader;
}

extern "C" void halide_free(void *, void *ptr) {
    using namespace lpnorm_fuzz::scratch;
    if (ptr == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex);
    uint8_t *block = static_cast<uint8_t *>(ptr) - kHeader;
    if (blocks.size() < 8) {
        blocks.push_back(block);
    } else {
        munmap(block, mapped(block));
    }
}
