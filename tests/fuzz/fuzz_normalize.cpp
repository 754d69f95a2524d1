// libFuzzer target: lpnorm_normalize and lpnorm_normalize_output_shape on arbitrary arguments.
//
// Input bytes, in order (pickers in fuzz_util.h; make_seeds.py writes seeds this way):
//   rank, dtype, one dim per rank, layout (+ its bytes), num_axes, one axis per num_axes, p,
//   eps (from p's list), eps_mode, misuse (+ its bytes), guard side; the rest fills the elements.
#include "fuzz_cases.h"

using namespace lpnorm_fuzz;

namespace {

void run(NormalizeCase &c, const Reader &values) {
    const bool null_axes = c.misuse.kind == kNullParams;
    const int64_t *axes = null_axes ? nullptr : c.axes;
    const int64_t caps[] = {64, 16, 4, 1};
    for (int attempt = 0; attempt <= 4; attempt++) {
        if (attempt > 0) c.in.clamp(caps[attempt - 1]);
        const int64_t *shape = c.misuse.kind == kNullShape ? nullptr : c.in.shape;
        const Query query([&](int32_t *out_rank, int64_t *out_shape) {
            return lpnorm_normalize_output_shape(c.in.rank, shape, axes, c.num_axes, c.p, c.eps,
                                                 c.eps_mode, out_rank, out_shape);
        });
        CallFacts facts;
        facts.op_error = bad_attributes(c) || (null_axes && c.num_axes > 0);
        if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
            print_array("axes", axes, std::max(c.num_axes, 0));
            std::fprintf(stderr, " num_axes %d p %.17g eps %.17g eps_mode %d\n", c.num_axes, c.p,
                         c.eps, c.eps_mode);
        }
        const CallResult result = checked_call(
            c.in, query, c.misuse, facts, values,
            [&](const lpnorm_tensor *in, const lpnorm_tensor *out) {
                return lpnorm_normalize(in, out, axes, c.num_axes, c.p, c.eps, c.eps_mode);
            });
        if (result == CallResult::done) return;
    }
    FUZZ_REQUIRE(false, "the harness could not shrink the case");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    lpnorm_set_num_threads(1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader r(data, size);
    NormalizeCase c(r);
    run(c, r);
    return 0;
}
