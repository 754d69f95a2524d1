#include "lpnorm/lpnorm.h"
#include "registry.h"

#ifndef LPNORM_VERSION
#error "LPNORM_VERSION must be defined by the build"
#endif

namespace lpnorm {

const char *version() { return LPNORM_VERSION; }

const char *error_code_name(ErrorCode code) {
    switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::shape_mismatch: return "shape_mismatch";
    case ErrorCode::dtype_mismatch: return "dtype_mismatch";
    case ErrorCode::null_pointer: return "null_pointer";
    case ErrorCode::too_large: return "too_large";
    case ErrorCode::aliasing: return "aliasing";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::internal: return "internal";
    }
    return "unknown";
}

std::vector<VariantInfo> compiled_variants() {
    int count = 0;
    const rt::ReduceKernel *kernels = rt::reduce_kernels(&count);
    std::vector<VariantInfo> out;
    out.reserve(size_t(count));
    for (int i = 0; i < count; i++) {
        const rt::ReduceKernel &k = kernels[i];
        out.push_back(VariantInfo{"reduce", rt::pattern_name(k.pattern),
                                  rt::reducer_name(k.reducer), k.dtype, k.isa, k.symbol,
                                  k.backend});
    }
    const rt::ReduceKernel *partials = rt::partial_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::ReduceKernel &k = partials[i];
        out.push_back(VariantInfo{"partial", rt::pattern_name(k.pattern),
                                  rt::reducer_name(k.reducer), k.dtype, k.isa, k.symbol,
                                  k.backend});
    }
    const rt::PoolKernel *pools = rt::pool_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::PoolKernel &k = pools[i];
        const char *layout = k.layout == rt::PoolLayout::channels ? "d_channels" : "d";
        out.push_back(VariantInfo{"pool", std::to_string(k.spatial) + layout, "sum", k.dtype, k.isa,
                                  k.symbol, k.backend});
    }
    const rt::NormalizeKernel *normalizers = rt::normalize_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::NormalizeKernel &k = normalizers[i];
        out.push_back(VariantInfo{"normalize", rt::grouped_pattern_name(k.pattern), "sum", k.dtype,
                                  k.isa, k.symbol, k.backend});
    }
    const rt::NormalizeBackwardKernel *normalize_gradients = rt::normalize_backward_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::NormalizeBackwardKernel &k = normalize_gradients[i];
        out.push_back(VariantInfo{"normalize_backward", rt::grouped_pattern_name(k.pattern), "sum",
                                  k.dtype, k.isa, k.symbol, k.backend});
    }
    const rt::ReduceBackwardKernel *gradients = rt::reduce_backward_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::ReduceBackwardKernel &k = gradients[i];
        out.push_back(VariantInfo{"reduce_backward", rt::grouped_pattern_name(k.pattern), "sum",
                                  k.dtype, k.isa, k.symbol, k.backend});
    }
    static const char *const kSpatialNames[] = {"", "1d", "2d", "3d"};
    const rt::PoolBackwardKernel *pool_gradients = rt::pool_backward_kernels(&count);
    for (int i = 0; i < count; i++) {
        const rt::PoolBackwardKernel &k = pool_gradients[i];
        out.push_back(VariantInfo{"pool_backward", kSpatialNames[k.pattern], "sum", k.dtype, k.isa,
                                  k.symbol, k.backend});
    }
    return out;
}

}  // namespace lpnorm
