// The arguments of each op's fuzz target, read from the fuzz input, shared by the forward
// targets (fuzz_reduce, fuzz_pool, fuzz_normalize) and the gradients' (fuzz_gradients): their
// byte formats are the forward targets' (see each one's header).
#pragma once

#include "fuzz_call.h"

namespace lpnorm_fuzz {

constexpr int kMaxAxes = 64;

// The input, the axes and p: the first arguments of fuzz_reduce's and fuzz_normalize's inputs.
struct AxesCase {
    InputArgs in;
    int32_t num_axes = 0;
    int64_t axes[kMaxAxes] = {};
    double p = 2;

    explicit AxesCase(Reader &r) {
        in.rank = pick_rank(r);
        in.dtype = pick_enum(r, 12);
        in.read_shape(r);
        // The C API reads num_axes entries, so only counts the harness can back are passed.
        static const int32_t counts[] = {-1, kI32Min, 17, kMaxAxes};
        const uint8_t b = r.u8();
        num_axes = b < 0xC0 ? b % 10 : counts[b % 4];
        for (int i = 0; i < std::clamp(num_axes, 0, kMaxAxes); i++) axes[i] = pick_axis(r);
        p = pick_p(r);
    }
};

struct ReduceCase : AxesCase {
    int32_t keep_dims = 0;
    int32_t empty_axes = 0;
    MisuseArgs misuse;

    explicit ReduceCase(Reader &r) : AxesCase(r) {
        keep_dims = pick_bool(r);
        empty_axes = pick_enum(r, 3);
        misuse.read(r);
    }
};

// The norm order is valid: > 0, 0, +inf or -inf.
inline bool valid_p(double p) { return !std::isnan(p) && (p >= 0 || std::isinf(p)); }

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

inline void print_params(const lpnorm_pool_params &p) {
    const int k = std::clamp(p.spatial_dims, 1, kMaxSpatial);
    std::fprintf(stderr, "spatial_dims %d", p.spatial_dims);
    print_array(" kernel", p.kernel, k);
    print_array(" strides", p.strides, k);
    print_array(" dilations", p.dilations, k);
    print_array(" pads", p.pads, 2 * k);
    std::fprintf(stderr, " auto_pad %d ceil_mode %d p %.17g mode %d overhang %d\n", p.auto_pad,
                 p.ceil_mode, p.p, p.mode, p.overhang);
}

inline bool is_pool_dtype(int32_t dtype) { return dtype >= 0 && dtype <= 3; }

struct NormalizeCase : AxesCase {
    double eps = 0;
    int32_t eps_mode = 0;
    MisuseArgs misuse;

    explicit NormalizeCase(Reader &r) : AxesCase(r) {
        eps = pick_p(r);
        eps_mode = pick_enum(r, 5);  // 4: not an eps mode
        misuse.read(r);
    }
};

// What lpnorm::normalize must reject whatever the shapes: its attributes and dtype.
inline bool bad_attributes(const NormalizeCase &c) {
    const bool p_ok = c.p > 0;
    const bool eps_ok = c.eps >= 0 && !std::isinf(c.eps);
    const bool mode_ok = c.eps_mode >= 0 && c.eps_mode <= LPNORM_EPS_SUM_MAX;
    const bool sum_mode = c.eps_mode == LPNORM_EPS_SUM_ADD || c.eps_mode == LPNORM_EPS_SUM_MAX;
    const bool float_dtype = c.in.dtype >= LPNORM_FLOAT32 && c.in.dtype <= LPNORM_FLOAT64;
    return !p_ok || !eps_ok || !mode_ok || (std::isinf(c.p) && sum_mode) || !float_dtype;
}

}  // namespace lpnorm_fuzz
