// libFuzzer target: lpnorm_reduce and lpnorm_reduce_output_shape on arbitrary arguments.
//
// Input bytes, in order (pickers in fuzz_util.h; make_seeds.py writes seeds this way):
//   rank, dtype, one dim per rank, layout (+ its bytes), num_axes, one axis per num_axes, p,
//   keep_dims, empty_axes, misuse (+ its bytes), guard side; the rest fills the elements.
#include "fuzz_call.h"

using namespace lpnorm_fuzz;

namespace {

constexpr int kMaxAxes = 64;

struct ReduceCase {
    InputArgs in;
    int32_t num_axes = 0;
    int64_t axes[kMaxAxes] = {};
    double p = 2;
    int32_t keep_dims = 0;
    int32_t empty_axes = 0;
    MisuseArgs misuse;

    explicit ReduceCase(Reader &r) {
        in.rank = pick_rank(r);
        in.dtype = pick_enum(r, 12);
        in.read_shape(r);
        // The C API reads num_axes entries, so only counts the harness can back are passed.
        static const int32_t counts[] = {-1, kI32Min, 17, kMaxAxes};
        const uint8_t b = r.u8();
        num_axes = b < 0xC0 ? b % 10 : counts[b % 4];
        for (int i = 0; i < std::clamp(num_axes, 0, kMaxAxes); i++) axes[i] = pick_axis(r);
        p = pick_p(r);
        keep_dims = pick_bool(r);
        empty_axes = pick_enum(r, 3);
        misuse.read(r);
    }
};

// The norm order is valid: > 0, 0, +inf or -inf.
bool valid_p(double p) { return !std::isnan(p) && (p >= 0 || std::isinf(p)); }

void run(ReduceCase &c, const Reader &values) {
    const bool null_axes = c.misuse.kind == kNullParams;
    const int64_t *axes = null_axes ? nullptr : c.axes;
    // Too large a case is shrunk (dims and strides capped) and tried again.
    const int64_t caps[] = {64, 16, 4, 1};
    for (int attempt = 0; attempt <= 4; attempt++) {
        if (attempt > 0) c.in.clamp(caps[attempt - 1]);
        const int64_t *shape = c.misuse.kind == kNullShape ? nullptr : c.in.shape;
        const Query query([&](int32_t *out_rank, int64_t *out_shape) {
            return lpnorm_reduce_output_shape(c.in.rank, shape, axes, c.num_axes, c.keep_dims,
                                              c.empty_axes, out_rank, out_shape);
        });
        CallFacts facts;
        facts.op_error = !valid_p(c.p) || (null_axes && c.num_axes > 0);
        // Every result is a norm, except the identity policy's copy of the input.
        facts.nonnegative = !(c.num_axes == 0 && c.empty_axes == 0);
        if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
            print_array("axes", axes, std::max(c.num_axes, 0));
            std::fprintf(stderr, " num_axes %d p %.17g keep_dims %d empty_axes %d\n", c.num_axes,
                         c.p, c.keep_dims, c.empty_axes);
        }
        const CallResult result = checked_call(
            c.in, query, c.misuse, facts, values,
            [&](const lpnorm_tensor *in, const lpnorm_tensor *out) {
                return lpnorm_reduce(in, out, axes, c.num_axes, c.p, c.keep_dims, c.empty_axes);
            });
        if (result == CallResult::done) return;
    }
    FUZZ_REQUIRE(false, "the harness could not shrink the case");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    // One worker: runs are deterministic, and -jobs/-workers are the way to use more cores.
    lpnorm_set_num_threads(1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader r(data, size);
    ReduceCase c(r);
    run(c, r);
    return 0;
}
