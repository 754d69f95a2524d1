#include "reference/pool_backward_reference.h"

#include <cmath>

#include "reference/pool_reference.h"
#include "reference/powers.h"
#include "reference/reduce_reference.h"

namespace lpnorm::ref {
namespace {

using ld = long double;

ld element(const Tensor &t, const std::vector<int64_t> &index) {
    int64_t offset = 0;
    for (int a = 0; a < t.rank; a++) offset += index[size_t(a)] * t.strides[a];
    return load(t.dtype,
                static_cast<const unsigned char *>(t.data) + offset * int64_t(dtype_size(t.dtype)));
}

bool next_index(const std::vector<int64_t> &shape, std::vector<int64_t> *index) {
    for (size_t a = shape.size(); a-- > 0;) {
        if (++(*index)[a] < shape[a]) return true;
        (*index)[a] = 0;
    }
    return false;
}

ld sign_of(ld v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

// The slope of window output y by element x, divided by F, from r = x / y (lpnorm.h):
// abs sgn(r) |r|^(p-1), signed r^(p-1) as IEEE pow; 0 at r = 0 for p != 1.
ld slope(const PoolParams &params, ld x, ld r) {
    const bool is_signed = params.mode == PoolMode::signed_pow;
    const ld p = params.p, e = p - 1;
    if (p == 1) return is_signed ? 1 : sign_of(x);
    if (std::isnan(r)) return r;
    const ld a = std::fabs(r);
    if (a == 0) return 0;
    const ld m = std::isinf(a) ? (e < 0 ? 0 : a) : power(a, e);
    if (r > 0) return m;
    if (!is_signed) return -m;
    if (std::floor(e) == e) return std::fmod(e, 2.0L) != 0 ? -m : m;
    return std::isinf(r) ? m : std::numeric_limits<ld>::quiet_NaN();
}

// The slope's relative error in the compute type's unit roundoff u, from r (2u: x times y's
// reciprocal) and its own arithmetic (products for p = 2, 3, 4 and the chains, pow otherwise;
// the same accounting as the reduction's gradient).
ld slope_error(ld p, ld a) {
    if (p == 1) return 0;
    if (p == 2) return 2;
    if (p == 3) return 5;
    if (p == 4) return 8;
    const ld e = std::fabs(p - 1);
    if (p == std::floor(p) && p <= 64) return 3 * e;
    const ld log_a = a > 0 && std::isfinite(a) ? std::fabs(std::log(a)) : 0;
    return 2 * e + 5 + log_a * (std::fabs(p) + e);
}

}  // namespace

// Each window o adds slope(x, x / y_o) * (dy_o F_o) to the dx of each of its in-bounds taps.
// The kernels compute in float32 (float64 for float64): a term carries the slope's error, F's
// division and two products (3u); the sum over a element's W windows adds up to W u of the sum
// of the terms' magnitudes. (p = 1 and 2 of 16- and 32-bit inputs sum in float64 and round
// once to float32: within the same bound.)
PoolGradientResult pool_backward(const Tensor &x, const Tensor &y, const Tensor &dy,
                                 const PoolParams &params) {
    PoolGradientResult result;
    const std::vector<int64_t> shape = x.shape_vector();
    std::vector<PoolAxis> axes;
    if (!pool_geometry(shape, params, &axes, &result.error)) return result;
    const int spatial = int(axes.size());
    const ld u = std::ldexp(1.0L, x.dtype == DType::float64 ? -53 : -24);
    const int64_t count = x.num_elements();
    std::vector<ld> sum(size_t(count), 0), magnitude(size_t(count), 0), error(size_t(count), 0);
    std::vector<int64_t> windows(size_t(count), 0);
    std::vector<int64_t> out_shape = {shape[0], shape[1]};
    for (const PoolAxis &a : axes) out_shape.push_back(a.output);
    ld kernel_volume = 1;
    for (const PoolAxis &a : axes) kernel_volume *= ld(a.kernel);
    bool any = true;
    for (int64_t v : out_shape) any = any && v > 0;
    std::vector<int64_t> o(out_shape.size(), 0);
    while (any) {
        const ld norm = element(y, o), grad = element(dy, o);
        ld inside = 1;
        for (int d = 0; d < spatial; d++) {
            const PoolAxis &a = axes[size_t(d)];
            int64_t n = 0;
            for (int64_t k = 0; k < a.kernel; k++) {
                const int64_t t = o[size_t(d + 2)] * a.stride - a.pad_begin + k * a.dilation;
                if (t >= -a.pad_begin && t < a.input + a.pad_end) n++;
            }
            inside *= ld(n);
        }
        const ld factor = params.overhang == Overhang::rescale ? kernel_volume / inside : 1;
        const ld w = norm == 0 ? 0 : grad * factor;
        const ld reciprocal = norm == 0 ? 0 : 1 / norm;
        // Every tap of the window, those inside the input taken.
        std::vector<int64_t> k(size_t(spatial), 0), kernel_shape;
        for (const PoolAxis &a : axes) kernel_shape.push_back(a.kernel);
        do {
            int64_t flat = o[0] * shape[1] + o[1];
            bool in = true;
            for (int d = 0; d < spatial; d++) {
                const PoolAxis &a = axes[size_t(d)];
                const int64_t t =
                    o[size_t(d + 2)] * a.stride - a.pad_begin + k[size_t(d)] * a.dilation;
                in = in && t >= 0 && t < a.input;
                flat = flat * a.input + t;
            }
            if (!in) continue;
            std::vector<int64_t> index(shape.size());
            int64_t rest = flat;
            for (size_t d = shape.size(); d-- > 0;) {
                index[d] = rest % shape[d];
                rest /= shape[d];
            }
            const ld v = element(x, index);
            const ld r = v * reciprocal;
            const ld term = slope(params, v, r) * w;
            sum[size_t(flat)] += term;
            magnitude[size_t(flat)] += std::fabs(term);
            error[size_t(flat)] += std::fabs(term) * (slope_error(params.p, std::fabs(r)) + 3) * u;
            windows[size_t(flat)]++;
        } while (next_index(kernel_shape, &k));
        if (!next_index(out_shape, &o)) break;
    }
    result.values.resize(size_t(count));
    for (int64_t i = 0; i < count; i++) {
        NormalizedGradient &g = result.values[size_t(i)];
        g.value = sum[size_t(i)];
        g.error = error[size_t(i)] + ld(windows[size_t(i)]) * u * magnitude[size_t(i)];
    }
    result.ok = true;
    return result;
}

}  // namespace lpnorm::ref
