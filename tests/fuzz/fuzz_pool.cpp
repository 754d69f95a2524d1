// libFuzzer target: lpnorm_pool and lpnorm_pool_output_shape on arbitrary arguments.
//
// Input bytes, in order (pickers in fuzz_util.h; make_seeds.py writes seeds this way):
//   spatial_dims, rank, dtype, one dim per rank, layout (+ its bytes; 7 is channels-last),
//   arrays (bit 0: kernel NULL, 1: strides, 2: dilations, 3: pads given), kernel, strides,
//   dilations, pads (spatial_dims values each, pads twice that, when given), auto_pad,
//   ceil_mode, p, mode, overhang, misuse (+ its bytes), guard side; the rest fills the
//   elements.
#include "fuzz_call.h"

using namespace lpnorm_fuzz;

namespace {

constexpr int kMaxSpatial = 3;

struct PoolCase {
    InputArgs in;
    int32_t spatial = 1;
    uint8_t arrays = 0;
    int64_t kernel[kMaxSpatial] = {}, strides[kMaxSpatial] = {}, dilations[kMaxSpatial] = {};
    int64_t pads[2 * kMaxSpatial] = {};
    lpnorm_pool_params params{};
    MisuseArgs misuse;

    explicit PoolCase(Reader &r) {
        static const int32_t spatial_specials[] = {0, 4, -1, kI32Min, kI32Max};
        uint8_t b = r.u8();
        spatial = b < 0xC0 ? 1 + b % 3 : pick_special(r, b, spatial_specials);
        // Rank N, C, D1..Dk unless the byte asks for another.
        const int64_t expected = int64_t(spatial) + 2;
        auto rank = [](int64_t v) { return int32_t(std::clamp<int64_t>(v, kI32Min, kI32Max)); };
        const int32_t rank_specials[] = {rank(expected - 1), rank(expected + 1), 0, 9, -1};
        b = r.u8();
        in.rank = b < 0xC0 ? rank(expected) : pick_special(r, b, rank_specials);
        // Mostly the pooled float types, sometimes the integer ones, then invalid codes.
        b = r.u8();
        in.dtype = b < 0x80 ? b % 4 : b < 0xC0 ? b % 12 : pick_enum(r, 12);
        for (int i = 0; i < in.stored(); i++) in.shape[i] = pick_dim(r);
        const uint8_t layout = r.u8();
        if (layout == 7) {
            channels_last();
        } else {
            in.has_strides = layout_strides(r, layout, in.stored(), in.shape, in.strides);
        }
        arrays = r.u8();
        const int k = std::clamp(spatial, 1, kMaxSpatial);
        for (int i = 0; i < k && !(arrays & 1); i++) kernel[i] = pick_window(r);
        for (int i = 0; i < k && (arrays & 2); i++) strides[i] = pick_window(r);
        for (int i = 0; i < k && (arrays & 4); i++) dilations[i] = pick_window(r);
        for (int i = 0; i < 2 * k && (arrays & 8); i++) pads[i] = pick_window(r);
        params.spatial_dims = spatial;
        params.kernel = arrays & 1 ? nullptr : kernel;
        params.strides = arrays & 2 ? strides : nullptr;
        params.dilations = arrays & 4 ? dilations : nullptr;
        params.pads = arrays & 8 ? pads : nullptr;
        params.auto_pad = pick_enum(r, 4);
        params.ceil_mode = pick_bool(r);
        params.p = pick_p(r);
        params.mode = pick_enum(r, 2);
        params.overhang = pick_enum(r, 2);
        misuse.read(r);
    }

    // N, C, D1..Dk stored as N, D1..Dk, C.
    void channels_last() {
        const int n = in.stored();
        in.has_strides = true;
        if (n < 2) return;
        int64_t s = 1;
        auto next = [&](int i) {
            in.strides[i] = s;
            if (in.shape[i] > 1 && __builtin_mul_overflow(s, in.shape[i], &s)) s = kI64Max;
        };
        next(1);
        for (int i = n - 1; i >= 2; i--) next(i);
        next(0);
    }

    void clamp(int64_t cap) {
        in.clamp(cap);
        for (int64_t *v : {kernel, strides, dilations}) {
            for (int i = 0; i < kMaxSpatial; i++) v[i] = v[i] > cap ? v[i] % (cap + 1) : v[i];
        }
        for (int64_t &v : pads) v = v > cap ? v % (cap + 1) : v;
    }

    // Elements the kernel touches, at most: each window sum runs over at most
    // max(input, output) points per dim, times the taps.
    int64_t work(const Query &q) const {
        if (!q.ok || q.rank != in.rank || in.rank < 3) return 0;
        __int128 w = 1, taps = 1;
        for (int i = 0; i < in.rank; i++) {
            const __int128 points = i < 2 ? in.shape[i] : __int128(in.shape[i]) + q.shape[i];
            w = std::min<__int128>(w * points, kI64Max);
        }
        for (int i = 0; i < in.rank - 2; i++) taps += params.kernel ? kernel[i] : 1;
        taps = std::min<__int128>(taps, kI64Max);
        return int64_t(std::min<__int128>(w * taps, kI64Max));
    }
};

void print_params(const lpnorm_pool_params &p) {
    const int k = std::clamp(p.spatial_dims, 1, kMaxSpatial);
    std::fprintf(stderr, "spatial_dims %d", p.spatial_dims);
    print_array(" kernel", p.kernel, k);
    print_array(" strides", p.strides, k);
    print_array(" dilations", p.dilations, k);
    print_array(" pads", p.pads, 2 * k);
    std::fprintf(stderr, " auto_pad %d ceil_mode %d p %.17g mode %d overhang %d\n", p.auto_pad,
                 p.ceil_mode, p.p, p.mode, p.overhang);
}

bool is_pool_dtype(int32_t dtype) { return dtype >= 0 && dtype <= 3; }

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
