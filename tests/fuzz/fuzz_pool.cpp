// libFuzzer target: lpnorm_pool and lpnorm_pool_output_shape on arbitrary arguments.
//
// Input bytes, in order (pickers in fuzz_util.h; make_seeds.py writes seeds this way):
//   spatial_dims, rank, dtype, one dim per rank, layout (+ its bytes; 7 is channels-last),
//   arrays (bit 0: kernel NULL, 1: strides, 2: dilations, 3: pads given), kernel, strides,
//   dilations, pads (spatial_dims values each, pads twice that, when given), auto_pad,
//   ceil_mode, p, mode, overhang, misuse (+ its bytes), guard side; the rest fills the
//   elements.
#include "fuzz_cases.h"

using namespace lpnorm_fuzz;

namespace {

void run(PoolCase &c, const Reader &values) {
    const bool null_params = c.misuse.kind == kNullParams;
    const lpnorm_pool_params *params = null_params ? nullptr : &c.params;
    // Too large a case is shrunk (dims, strides and window attributes capped) and tried again.
    const int64_t caps[] = {64, 16, 4, 1};
    for (int attempt = 0; attempt <= 4; attempt++) {
        if (attempt > 0) c.clamp(caps[attempt - 1]);
        const int64_t *shape = c.misuse.kind == kNullShape ? nullptr : c.in.shape;
        const Query query([&](int32_t *out_rank, int64_t *out_shape) {
            return lpnorm_pool_output_shape(c.in.rank, shape, params, out_rank, out_shape);
        });
        CallFacts facts;
        facts.op_error = null_params || !is_pool_dtype(c.in.dtype);
        facts.work = c.work(query);
        facts.nonnegative = c.params.mode == LPNORM_POOL_ABS;
        if (std::getenv("LPNORM_FUZZ_VERBOSE")) print_params(c.params);
        const CallResult result =
            checked_call(c.in, query, c.misuse, facts, values,
                         [&](const lpnorm_tensor *in, const lpnorm_tensor *out) {
                             return lpnorm_pool(in, out, params);
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
    PoolCase c(r);
    run(c, r);
    return 0;
}
