#include "lpnorm/lpnorm.h"
#include "lpnorm_keyed_ops.h"  // LPNORM_KEYED_OPS(X): X(row type, op name) per keyed op
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

namespace {

std::string key_name(const rt::GroupedKey &key);
std::string key_name(const rt::PoolKey &key);
std::string key_name(const rt::PoolBackwardKey &key);

// One VariantInfo per kernel of `Row`'s table, in its order: `op`, the name of its key,
// reducer "sum".
template <typename Row>
void add_variants(const char *op, std::vector<VariantInfo> *out) {
    for (const Row &k : rt::kernels<Row>()) {
        out->push_back(
            VariantInfo{op, key_name(k.key), "sum", k.dtype, k.isa, k.symbol, k.backend});
    }
}

std::string key_name(const rt::GroupedKey &key) { return rt::grouped_pattern_name(key.pattern); }

std::string key_name(const rt::PoolKey &key) {
    switch (key.layout) {
    case rt::PoolLayout::channels: return std::to_string(key.spatial) + "d_channels";
    case rt::PoolLayout::direct: return std::to_string(key.spatial) + "d_direct";
    case rt::PoolLayout::flat: return std::to_string(key.spatial) + "d_flat";
    case rt::PoolLayout::rows: break;
    }
    return std::to_string(key.spatial) + "d";
}

std::string key_name(const rt::PoolBackwardKey &key) { return rt::pool_backward_pattern_name(key); }

}  // namespace

std::vector<VariantInfo> compiled_variants() {
    std::vector<VariantInfo> out;
    for (bool partial : {false, true}) {
        for (const rt::ReduceKernel &k : rt::kernels<rt::ReduceKernel>()) {
            if (k.key.partial != partial) continue;
            out.push_back(
                VariantInfo{partial ? "partial" : "reduce", rt::pattern_name(k.key.pattern),
                            rt::reducer_name(k.key.reducer), k.dtype, k.isa, k.symbol, k.backend});
        }
    }
    add_variants<rt::PoolKernel>("pool", &out);
#define LPNORM_ADD_VARIANTS(Row, op) add_variants<rt::Row>(op, &out);
    LPNORM_KEYED_OPS(LPNORM_ADD_VARIANTS)
#undef LPNORM_ADD_VARIANTS
    return out;
}

}  // namespace lpnorm
