#include "pool_geometry.h"

#include <cmath>
#include <string>

#include "kernel_abi.h"
#include "validate.h"

namespace lpnorm::rt {
namespace {

Status bad(const std::string &message) { return Status(ErrorCode::invalid_argument, message); }

std::string entry(const char *name, size_t i, int64_t v) {
    return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v);
}

// strides or dilations: empty, or one value >= 1 per spatial dim.
Status check_per_dim(const char *name, const std::vector<int64_t> &values, size_t spatial) {
    if (!values.empty() && values.size() != spatial) {
        return bad(std::string(name) + " has " + std::to_string(values.size()) +
                   " values; expected 0 or " + std::to_string(spatial) + " (1 per spatial dim)");
    }
    for (size_t i = 0; i < values.size(); i++) {
        if (values[i] < 1) return bad(entry(name, i, values[i]) + " must be >= 1");
    }
    return Status::Ok();
}

Status check_attributes(const std::vector<int64_t> &shape, const PoolParams &params) {
    const size_t spatial = params.kernel.size();
    if (spatial < 1 || spatial > 3) {
        return bad("kernel has " + std::to_string(spatial) +
                   " values; expected 1, 2 or 3 (1 per spatial dim)");
    }
    if (shape.size() != spatial + 2) {
        return bad("input.rank = " + std::to_string(shape.size()) + " does not fit kernel with " +
                   std::to_string(spatial) + " values: expected rank " +
                   std::to_string(spatial + 2) + " (N, C and the spatial dims)");
    }
    for (size_t i = 0; i < shape.size(); i++) {
        if (shape[i] < 0) return bad(entry("input.shape", i, shape[i]) + " is negative");
    }
    for (size_t i = 0; i < spatial; i++) {
        if (params.kernel[i] < 1)
            return bad(entry("kernel", i, params.kernel[i]) + " must be >= 1");
    }
    Status s = check_per_dim("strides", params.strides, spatial);
    if (!s.ok()) return s;
    s = check_per_dim("dilations", params.dilations, spatial);
    if (!s.ok()) return s;
    if (!params.pads.empty() && params.pads.size() != 2 * spatial) {
        return bad("pads has " + std::to_string(params.pads.size()) + " values; expected 0 or " +
                   std::to_string(2 * spatial) + " (2 per spatial dim: begins, then ends)");
    }
    for (size_t i = 0; i < params.pads.size(); i++) {
        if (params.pads[i] < 0) return bad(entry("pads", i, params.pads[i]) + " must be >= 0");
    }
    if (!(std::isfinite(params.p) && params.p > 0)) {
        return bad("p = " + format_number(params.p) + " must be finite and > 0 for pooling");
    }
    const int auto_pad = int(params.auto_pad), mode = int(params.mode);
    const int overhang = int(params.overhang);
    if (auto_pad < 0 || auto_pad > int(AutoPad::valid)) {
        return bad("auto_pad = " + std::to_string(auto_pad) + " is not an AutoPad value");
    }
    if (mode < 0 || mode > int(PoolMode::signed_pow)) {
        return bad("mode = " + std::to_string(mode) + " is not a PoolMode value");
    }
    if (overhang < 0 || overhang > int(Overhang::rescale)) {
        return bad("overhang = " + std::to_string(overhang) + " is not an Overhang value");
    }
    return Status::Ok();
}

// Kernel window offsets are computed in 32 bits: a window with its pads and stride reaches at
// most 2^30, so that with a piece of 2^30 input rows (split_limits.cpp) it stays below 2^31.
constexpr __int128 kWindowLimit = __int128(1) << 30;

Status resolve_axis(const std::vector<int64_t> &shape, const PoolParams &params, size_t i,
                    PoolAxis *a) {
    const size_t spatial = params.kernel.size();
    a->input = shape[i + 2];
    a->kernel = params.kernel[i];
    a->stride = params.strides.empty() ? 1 : params.strides[i];
    a->dilation = params.dilations.empty() ? 1 : params.dilations[i];
    const __int128 in = a->input, s = a->stride;
    const __int128 k_eff = __int128(a->kernel - 1) * a->dilation + 1;
    const std::string dim = entry("input.shape", i + 2, a->input);
    const std::string window =
        entry("kernel", i, a->kernel) + " with " + entry("dilations", i, a->dilation);

    if (params.auto_pad == AutoPad::same_upper || params.auto_pad == AutoPad::same_lower) {
        if (in == 0) return bad(dim + " leaves no output under auto_pad SAME");
        const __int128 out = (in + s - 1) / s;
        const __int128 total = std::max<__int128>(0, (out - 1) * s + k_eff - in);
        const __int128 begin =
            params.auto_pad == AutoPad::same_upper ? total / 2 : total - total / 2;
        a->pad_begin = int64_t(begin);
        a->pad_end = int64_t(total - begin);
        a->output = int64_t(out);
    } else {
        a->pad_begin = a->pad_end = 0;
        if (params.auto_pad == AutoPad::notset && !params.pads.empty()) {
            a->pad_begin = params.pads[i];
            a->pad_end = params.pads[i + spatial];
        }
        const __int128 padded = in + a->pad_begin + a->pad_end;
        const std::string padded_text =
            dim + " with pads " + std::to_string(a->pad_begin) + " + " + std::to_string(a->pad_end);
        if (padded < k_eff) {
            return bad(padded_text + " is smaller than the window of " + window + " (" +
                       std::to_string(int64_t(std::min<__int128>(k_eff, INT64_MAX))) + ")");
        }
        __int128 out =
            params.ceil_mode ? (padded - k_eff + s - 1) / s + 1 : (padded - k_eff) / s + 1;
        // A last window that would start in the end padding is dropped.
        if (params.ceil_mode && (out - 1) * s >= in + a->pad_begin) out--;
        if (out < 1) return bad(padded_text + ": ceil_mode drops its only window");
        if (out > INT64_MAX) {
            return Status(ErrorCode::too_large, padded_text + " gives more than 2^63 - 1 outputs");
        }
        a->output = int64_t(out);
    }
    // Inputs and outputs of any length are cut into calls (split_pool.h); one window, with its
    // pads and stride, must fit a call beside a piece of 2^30 rows.
    const __int128 reach = __int128(a->pad_begin) + a->pad_end + k_eff + s;
    if (reach > kWindowLimit) {
        return Status(ErrorCode::too_large,
                      dim + ": " + window + ", " + entry("strides", i, a->stride) + " and pads " +
                          std::to_string(a->pad_begin) + " + " + std::to_string(a->pad_end) +
                          " need window offsets beyond 2^30");
    }
    // A window of one tap takes no step: its dilation changes nothing, and the kernels take
    // dilations in 32 bits (2^63 - 1 arrived as -1, and the rescale factor K / n went negative).
    if (a->kernel == 1) a->dilation = 1;
    return Status::Ok();
}

}  // namespace

Status resolve_pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                             std::vector<PoolAxis> *axes) {
    Status s = check_attributes(input_shape, params);
    if (!s.ok()) return s;
    std::vector<PoolAxis> resolved(params.kernel.size());
    for (size_t i = 0; i < resolved.size(); i++) {
        s = resolve_axis(input_shape, params, i, &resolved[i]);
        if (!s.ok()) return s;
    }
    *axes = resolved;
    return Status::Ok();
}

}  // namespace lpnorm::rt
