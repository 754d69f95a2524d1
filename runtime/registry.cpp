#include "registry.h"

#include <array>
#include <type_traits>

#include "lpnorm_kernel_headers.h"  // each kernel's prototype, as Halide generated it
#include "lpnorm_keyed_ops.h"       // LPNORM_KEYED_OPS(X): X(row type, op name) per keyed op

namespace lpnorm::rt {
namespace {

// A kernel's entry point as the dispatch calls it. A generator whose inputs no longer match
// that call fails here, at compile time (the instantiation names the kernel's row), rather
// than as a call with misplaced arguments.
template <typename Fn, typename Generated>
constexpr Fn checked(Generated entry_point) {
    static_assert(std::is_same_v<Generated, Fn>,
                  "a kernel's generated signature is not the call the dispatch makes");
    return entry_point;
}

// Each table starts with a null row, so that none is empty in a build without its dtypes.
// The pooling gradient's keys: the spatial rank, then _separable for the separable kinds.
constexpr PoolBackwardKey kPoolBackward1d{1}, kPoolBackward2d{2}, kPoolBackward3d{3},
    kPoolBackward1d_separable{1, true}, kPoolBackward2d_separable{2, true},
    kPoolBackward3d_separable{3, true};

// Reduction and pooling rows share one generated file.
#define LPNORM_REDUCE_ROW(pattern, reducer, partial, dtype, isa, backend, symbol)                  \
    {{Pattern::pattern, Reducer::reducer, partial},                                                \
     DType::dtype,                                                                                 \
     isa,                                                                                          \
     backend,                                                                                      \
     checked<ReduceKernelFn>(symbol),                                                              \
     #symbol},
#define LPNORM_POOL_ROW(spatial, layout, dtype, isa, backend, symbol)                              \
    {{spatial, PoolLayout::layout}, DType::dtype, isa, backend,                                    \
     checked<PoolKernelFn>(symbol), #symbol},

const ReduceKernel kReduceKernels[] = {
    {},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)                                 \
    LPNORM_REDUCE_ROW(pattern, reducer, false, dtype, Isa::isa, Backend::cpu, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)                         \
    LPNORM_REDUCE_ROW(pattern, reducer, true, dtype, Isa::isa, Backend::cpu, symbol)
#define LPNORM_GPU_REDUCE_KERNEL(pattern, reducer, dtype, backend, symbol)                         \
    LPNORM_REDUCE_ROW(pattern, reducer, false, dtype, Isa::auto_detect, Backend::backend, symbol)
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_POOL_KERNEL
};

const PoolKernel kPoolKernels[] = {
    {},
#define LPNORM_REDUCE_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_REDUCE_PARTIAL_KERNEL(pattern, reducer, dtype, isa, symbol)
#define LPNORM_GPU_REDUCE_KERNEL(pattern, reducer, dtype, backend, symbol)
#define LPNORM_POOL_KERNEL(spatial, layout, dtype, isa, symbol)                                    \
    LPNORM_POOL_ROW(spatial, layout, dtype, Isa::isa, Backend::cpu, symbol)
#define LPNORM_GPU_POOL_KERNEL(spatial, dtype, backend, symbol)                                    \
    LPNORM_POOL_ROW(spatial, rows, dtype, Isa::auto_detect, Backend::backend, symbol)
#include "lpnorm_kernel_table.inc"
#undef LPNORM_REDUCE_KERNEL
#undef LPNORM_REDUCE_PARTIAL_KERNEL
#undef LPNORM_GPU_REDUCE_KERNEL
#undef LPNORM_POOL_KERNEL
#undef LPNORM_GPU_POOL_KERNEL
};
#undef LPNORM_REDUCE_ROW
#undef LPNORM_POOL_ROW

// Each row type's table, past its null row.
template <typename Row, size_t N>
KernelList<Row> list(const Row (&table)[N]) {
    return {table + 1, table + N};
}
template <typename Row>
KernelList<Row> table();
template <>
KernelList<ReduceKernel> table() {
    return list(kReduceKernels);
}
template <>
KernelList<PoolKernel> table() {
    return list(kPoolKernels);
}

// The keyed ops' tables (cmake/LpnormKernels.cmake, lpnorm_keyed_op), generated: for each op
// its rows, LPNORM_KEYED_ROW(row type, key, dtype, isa, backend, symbol), and its table().
#define LPNORM_KEYED_ROW(Row, key, dtype, isa, backend, symbol)                                    \
    {key, DType::dtype, isa, backend, checked<Row::Function>(symbol), #symbol},
#include "lpnorm_keyed_tables.h"
#undef LPNORM_KEYED_ROW

// A table's rows by (key, dtype), per ISA and per GPU backend.
template <typename Row>
class Index {
public:
    Index() {
        for (const Row &k : table<Row>()) {
            const int at = slot(k.key, k.dtype);
            if (k.backend == Backend::cpu) {
                isa_rows_[int(k.isa)][at] = &k;
            } else {
                backend_rows_[int(k.backend)][at] = &k;
            }
        }
    }

    const Row *find(const typename Row::KeyType &key, DType dtype, const Place &place) const {
        const int at = slot(key, dtype);
        if (at < 0) return nullptr;
        if (place.gpu()) {
            const int b = int(place.backend);
            return b > 0 && b < kNumBackends ? backend_rows_[b][at] : nullptr;
        }
        for (int i = int(place.isa); i >= 1 && i < kNumIsas; i = int(lower_isa(Isa(i)))) {
            if (const Row *k = isa_rows_[i][at]) return k;
        }
        return nullptr;
    }

private:
    using Key = typename Row::KeyType;
    static constexpr int kSlots = Key::kCount * kNumDTypes;

    static int slot(const Key &key, DType dtype) {
        const int k = key.index(), d = int(dtype);
        return k >= 0 && k < Key::kCount && d >= 0 && d < kNumDTypes ? k * kNumDTypes + d : -1;
    }

    std::array<std::array<const Row *, kSlots>, kNumIsas> isa_rows_{};
    std::array<std::array<const Row *, kSlots>, kNumBackends> backend_rows_{};
};

// Which ISAs and GPU backends have at least one kernel, over every table.
struct Presence {
    bool isa[kNumIsas] = {};
    bool backend[kNumBackends] = {};

    Presence() {
        add(table<ReduceKernel>());
        add(table<PoolKernel>());
#define LPNORM_ADD(Row, op) add(table<Row>());
        LPNORM_KEYED_OPS(LPNORM_ADD)
#undef LPNORM_ADD
    }

    template <typename Row>
    void add(KernelList<Row> rows) {
        for (const Row &k : rows) {
            if (k.backend == Backend::cpu) {
                isa[int(k.isa)] = true;
            } else {
                backend[int(k.backend)] = true;
            }
        }
    }
};

const Presence &presence() {
    static const Presence p;
    return p;
}

}  // namespace

template <typename Row>
const Row *find_kernel(const typename Row::KeyType &key, DType dtype, const Place &place) {
    static const Index<Row> index;
    return index.find(key, dtype, place);
}

template <typename Row>
KernelList<Row> kernels() {
    return table<Row>();
}

#define LPNORM_INSTANTIATE(Row, ...)                                                               \
    template const Row *find_kernel<Row>(const Row::KeyType &, DType, const Place &);              \
    template KernelList<Row> kernels<Row>();
LPNORM_INSTANTIATE(ReduceKernel)
LPNORM_INSTANTIATE(PoolKernel)
LPNORM_KEYED_OPS(LPNORM_INSTANTIATE)
#undef LPNORM_INSTANTIATE

std::string place_phrase(const Place &place) {
    return place.gpu() ? std::string(" on backend ") + backend_name(place.backend)
                       : std::string(" at isa ") + isa_name(place.isa);
}

const char *pattern_name(Pattern pattern) {
    static const char *const names[] = {"all", "inner", "outer", "middle", "general"};
    return names[int(pattern)];
}

const char *reducer_name(Reducer reducer) { return reducer == Reducer::sum ? "sum" : "extreme"; }

const char *grouped_pattern_name(GroupedPattern pattern) {
    return pattern == GroupedPattern::inner ? "inner" : "middle";
}

std::string pool_backward_pattern_name(const PoolBackwardKey &key) {
    return std::to_string(key.spatial) + (key.separable ? "d_separable" : "d");
}

bool backend_compiled(Backend backend) {
    if (backend == Backend::cpu) return true;
    return int(backend) > 0 && int(backend) < kNumBackends && presence().backend[int(backend)];
}

Isa lower_isa(Isa isa) {
    switch (isa) {
    case Isa::avx512_zen5: return Isa::avx512;
    case Isa::avx512: return Isa::avx2;
    case Isa::avx2: return Isa::sse41;
    case Isa::neon_fp16: return Isa::neon;
    default: return Isa::auto_detect;
    }
}

bool isa_compiled(Isa isa) {
    int i = int(isa);
    return i >= 1 && i < kNumIsas && presence().isa[i];
}

}  // namespace lpnorm::rt
