#include "canonicalize.h"

#include <climits>
#include <cstring>
#include <string>

#include "validate.h"

namespace lpnorm::rt {
namespace {

struct Dim {
    int64_t extent;
    int64_t in_stride;
    int64_t out_stride;
    bool reduced;
};

constexpr Dim unit_dim(bool reduced) { return Dim{1, 1, 1, reduced}; }

// Kinds of a pattern's input dims, innermost first; 'r' reduced, 'k' kept.
const char *pattern_slots(Pattern p) {
    switch (p) {
    case Pattern::all: return "r";
    case Pattern::inner: return "rk";
    case Pattern::outer: return "kr";
    case Pattern::middle: return "krk";
    case Pattern::general: return "";
    }
    return "";
}

// Lays `dims` into the slots of pattern `p`, filling absent slots with size-1 dims.
// Fails when a dim is left over or the innermost slot would need a non-unit stride.
bool fit_pattern(Pattern p, const Dim *dims, int n, CanonicalReduce *c) {
    const char *slots = pattern_slots(p);
    int used = 0;
    Dim placed[kMaxRank];
    int count = 0;
    for (const char *s = slots; *s; s++) {
        const bool want_reduced = *s == 'r';
        if (used < n && dims[used].reduced == want_reduced) {
            placed[count++] = dims[used++];
        } else {
            placed[count++] = unit_dim(want_reduced);
        }
    }
    if (used != n || placed[0].in_stride != 1) {
        return false;
    }
    c->pattern = p;
    c->in_dims = count;
    c->out_dims = 0;
    c->reduce_mask = 0;
    for (int i = 0; i < count; i++) {
        c->in_extent[i] = placed[i].extent;
        c->in_stride[i] = placed[i].in_stride;
        if (!placed[i].reduced) {
            c->out_extent[c->out_dims] = placed[i].extent;
            c->out_stride[c->out_dims] = placed[i].out_stride;
            c->out_dims++;
        }
    }
    return true;
}

// The dims in their order, except that the outermost reduced one (unless it is innermost)
// goes to the last slot: the general kernel reads that dim's rows side by side (kernel_abi.h).
// Any order is valid, as input and output dims move together.
void fit_general(const Dim *dims, int n, CanonicalReduce *c) {
    Dim slots[kMaxRank];
    int outermost_reduced = -1;
    for (int i = 1; i < n; i++) {
        if (dims[i].reduced) outermost_reduced = i;
    }
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (i != outermost_reduced) slots[count++] = dims[i];
    }
    while (count < kMaxRank) {
        slots[count++] = unit_dim(false);
    }
    if (outermost_reduced >= 0) slots[kMaxRank - 1] = dims[outermost_reduced];

    c->pattern = Pattern::general;
    c->in_dims = c->out_dims = kMaxRank;
    c->reduce_mask = 0;
    for (int i = 0; i < kMaxRank; i++) {
        const Dim d = slots[i];
        c->in_extent[i] = d.extent;
        c->in_stride[i] = d.in_stride;
        c->out_extent[i] = d.reduced ? 1 : d.extent;
        // Size-1 output dims may take any stride; 1 satisfies the innermost-stride rule.
        c->out_stride[i] = d.reduced || d.extent == 1 ? 1 : d.out_stride;
        if (d.reduced) {
            c->reduce_mask |= 1u << i;
        }
    }
}

Pattern natural_pattern(const Dim *dims, int n) {
    if (n > 0 && dims[0].in_stride != 1) {
        return Pattern::general;
    }
    // The dims' kinds, innermost first, as a string of 'r' (reduced) and 'k' (kept).
    char kinds[kMaxRank + 1] = {};
    for (int i = 0; i < n && i < kMaxRank; i++) {
        kinds[i] = dims[i].reduced ? 'r' : 'k';
    }
    const auto is = [&](const char *k) { return std::strcmp(kinds, k) == 0; };
    if (is("") || is("r")) return Pattern::all;
    if (is("rk")) return Pattern::inner;
    if (is("k") || is("kr")) return Pattern::outer;
    if (is("krk")) return Pattern::middle;
    return Pattern::general;
}

bool fits_int32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

}  // namespace

Status canonicalize_reduce(const Tensor &input, uint32_t reduced, const int64_t *out_strides,
                           int forced, CanonicalReduce *out) {
    Dim dims[kMaxRank];
    int n = 0;
    int64_t dense_stride = 1;
    for (int i = input.rank - 1; i >= 0; i--) {
        const bool r = (reduced >> i) & 1;
        const int64_t extent = input.shape[i];
        const int64_t stride = input.strides[i];
        const int64_t os = r ? 0 : (out_strides ? out_strides[i] : dense_stride);
        if (!r) {
            dense_stride *= extent;
        }
        if (extent == 1) {
            continue;  // contributes one element and no index
        }
        if (n > 0) {
            Dim &inner = dims[n - 1];
            const bool same_kind = inner.reduced == r;
            int64_t inner_span;  // may overflow: valid int8 views have strides up to ~2^62
            const bool in_adjacent =
                !__builtin_mul_overflow(inner.in_stride, inner.extent, &inner_span) &&
                stride == inner_span;
            const bool out_adjacent = r || os == inner.out_stride * inner.extent;
            int64_t merged;
            const bool fits =
                !__builtin_mul_overflow(inner.extent, extent, &merged) && merged <= INT32_MAX;
            if (same_kind && in_adjacent && out_adjacent && fits) {
                inner.extent = merged;
                continue;
            }
        }
        dims[n++] = Dim{extent, stride, os, r};
    }
    for (int i = 0; i < n; i++) {
        if (!fits_int32(dims[i].extent) || !fits_int32(dims[i].in_stride) ||
            !fits_int32(dims[i].out_stride)) {
            return Status(ErrorCode::too_large,
                          "input.shape = " + format_shape(input.shape, input.rank) +
                              " with strides " + format_shape(input.strides, input.rank) +
                              " needs a dimension of extent " + std::to_string(dims[i].extent) +
                              " or stride " + std::to_string(dims[i].in_stride) +
                              ", beyond the 2^31-1 the kernels index");
        }
    }
    if (forced >= 0 && forced != int(Pattern::general) &&
        fit_pattern(Pattern(forced), dims, n, out)) {
        return Status::Ok();
    }
    const Pattern p = forced == int(Pattern::general) ? Pattern::general : natural_pattern(dims, n);
    if (p == Pattern::general || !fit_pattern(p, dims, n, out)) {
        fit_general(dims, n, out);
    }
    return Status::Ok();
}

}  // namespace lpnorm::rt
