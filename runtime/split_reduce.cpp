#include "split_reduce.h"

#include <algorithm>
#include <climits>
#include <new>
#include <string>
#include <vector>

#include "accumulators.h"
#include "canonicalize.h"
#include "gpu.h"
#include "halide_glue.h"
#include "settings.h"
#include "split_limits.h"
#include "testing.h"

namespace lpnorm::rt {
namespace {

struct Job {
    ReduceCall call;
    SplitLimits limits;
    ReduceRun *ran;  // nullptr: not asked
};

bool is_reduced(uint32_t mask, int axis) { return (mask >> axis) & 1; }

// An output view: element strides along the input's axes (kept axes only are read).
struct OutView {
    void *data;
    DType dtype;
    const int64_t *strides;

    void *at(int axis, int64_t index) const {
        return static_cast<char *>(data) + index * strides[axis] * int64_t(dtype_size(dtype));
    }
};

// The axis to cut `in` along, or -1 when one kernel call takes it: the outermost kept axis
// whose extent or stride the kernels cannot index or that is longer than a piece (slicing it
// costs nothing and bounds the kernels' per-call temporaries, e.g. the outer pattern's
// partial rows), else the outermost reduced axis the kernels cannot index. Axes of extent 1
// never block: canonicalisation drops them.
int blocking_axis(const Tensor &in, uint32_t reduced, const int64_t *out_strides,
                  const SplitLimits &limits) {
    int blocking_reduced = -1;
    for (int i = 0; i < in.rank; i++) {
        const int64_t limit = limits.index;
        const bool unindexable =
            in.shape[i] > limit || in.strides[i] > limit || in.strides[i] < -limit;
        if (in.shape[i] <= 1) continue;
        if (!is_reduced(reduced, i)) {
            if (unindexable || out_strides[i] > limit || in.shape[i] > limits.chunk) return i;
        } else if (unindexable && blocking_reduced < 0) {
            blocking_reduced = i;
        }
    }
    return blocking_reduced;
}

// `in` with size-1 axes dropped and adjacent axes of the same kind merged where the input and
// output strides allow, without the 32-bit cap canonicalisation applies: a contiguous run of
// reduced elements becomes one axis, so its chunks take the `all` kernels.
void merge_axes(const Tensor &in, uint32_t reduced, const int64_t *out_strides, Tensor *merged,
                uint32_t *merged_reduced, int64_t *merged_out_strides) {
    *merged = in;
    merged->rank = 0;
    *merged_reduced = 0;
    for (int i = 0; i < in.rank; i++) {
        if (in.shape[i] == 1) continue;
        const bool r = is_reduced(reduced, i);
        const int64_t os = r ? 0 : out_strides[i];
        const int j = merged->rank - 1;  // the outer neighbour
        // The products may overflow for valid views (int8 strides reach ~2^62): an
        // overflowing one is never adjacent.
        int64_t in_span = 0, out_span = 0;
        if (j >= 0 && is_reduced(*merged_reduced, j) == r &&
            !__builtin_mul_overflow(in.strides[i], in.shape[i], &in_span) &&
            merged->strides[j] == in_span &&
            (r || (!__builtin_mul_overflow(os, in.shape[i], &out_span) &&
                   merged_out_strides[j] == out_span))) {
            merged->shape[j] *= in.shape[i];
            merged->strides[j] = in.strides[i];
            merged_out_strides[j] = os;
            continue;
        }
        merged->shape[j + 1] = in.shape[i];
        merged->strides[j + 1] = in.strides[i];
        merged_out_strides[j + 1] = os;
        if (r) *merged_reduced |= 1u << (j + 1);
        merged->rank++;
    }
}

Status call_kernel(const Tensor &in, const OutView &out, bool partial, const Job &job) {
    CanonicalReduce c;
    Status s = canonicalize_reduce(in, job.call.reduced, out.strides, forced_pattern(), &c);
    if (!s.ok()) return s;
    // Partial kernels exist for `all` (contiguous runs) and `general` (everything else).
    if (partial && c.pattern != Pattern::all && c.pattern != Pattern::general) {
        s = canonicalize_reduce(in, job.call.reduced, out.strides, int(Pattern::general), &c);
        if (!s.ok()) return s;
    }
    const bool gpu = is_gpu(job.call.backend);
    const Place place{job.call.backend, job.call.isa};
    const ReduceKernel *kernel =
        find_kernel<ReduceKernel>({c.pattern, job.call.reducer, partial}, in.dtype, place);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      std::string("no ") + (partial ? "partial " : "") + pattern_name(c.pattern) +
                          " " + reducer_name(job.call.reducer) + " kernel for dtype " +
                          dtype_name(in.dtype) + place_phrase(place) + " in this build");
    }
    if (gpu && c.pattern == Pattern::general) {
        s = check_gpu_general_grid(job.call.backend, c.out_extent);
        if (!s.ok()) return s;
    }
    const KernelScope kernel_scope;
    note_kernel_call(kernel->symbol);
    BufferView in_buf(in.data, in.dtype, c.in_dims, c.in_extent, c.in_stride);
    BufferView out_buf(out.data, out.dtype, c.out_dims, c.out_extent, c.out_stride);
    KernelBuffers buffers(gpu, job.call.memory, in_buf.get(), out_buf.get());
    s = buffers.attach();
    if (!s.ok()) return s;
    const int code = kernel->fn(in_buf.get(), int32_t(c.reduce_mask), job.call.p_kind, job.call.p,
                                out_buf.get());
    if (code != 0) {
        return kernel_failure(kernel->symbol, code);
    }
    s = buffers.finish();
    if (!s.ok()) return s;
    if (!partial) set_last_pattern(int(c.pattern));
    // The CPU's whole inner kernels sum float32 rows in float32 blocks (reduce_generators.cpp).
    if (job.ran != nullptr && !gpu && !partial && c.pattern == Pattern::inner &&
        in.dtype == DType::float32 && job.call.reducer == Reducer::sum) {
        job.ran->float32_sums = true;
    }
    return Status::Ok();
}

// Calls f(i, out_element) for the i-th element, row-major, of the kept axes of `in`.
template <typename F>
void for_each_kept(const Tensor &in, uint32_t reduced, const OutView &out, F f) {
    int axes[kMaxRank];
    int n = 0;
    int64_t count = 1;
    for (int i = 0; i < in.rank; i++) {
        if (!is_reduced(reduced, i)) {
            axes[n++] = i;
            count *= in.shape[i];
        }
    }
    int64_t index[kMaxRank] = {};
    int64_t offset = 0;  // in elements of the output
    char *base = static_cast<char *>(out.data);
    const int64_t size = int64_t(dtype_size(out.dtype));
    for (int64_t e = 0; e < count; e++) {
        f(e, base + offset * size);
        for (int k = n - 1; k >= 0; k--) {
            const int a = axes[k];
            offset += out.strides[a];
            if (++index[k] < in.shape[a]) break;
            offset -= out.strides[a] * in.shape[a];
            index[k] = 0;
        }
    }
}

Status run(const Tensor &in, const OutView &out, bool partial, const Job &job);

// `in` is blocked along reduced axis `axis`: reduce its chunks into dense accumulators,
// combined in chunk order, then finish them into `out` (or store them, when `out` is itself
// an accumulator).
Status run_reduced_chunks(const Tensor &in, int axis, const OutView &out, bool partial,
                          const Job &job) {
    const DType acc_dtype = partial_dtype(job.call.reducer, in.dtype);
    const size_t acc_size = dtype_size(acc_dtype);
    int64_t acc_strides[kMaxRank];
    const int64_t count = dense_kept_strides(in.shape, in.rank, job.call.reduced, acc_strides);
    std::vector<char> acc, more;
    try {
        acc.resize(size_t(count) * acc_size);
        more.resize(size_t(count) * acc_size);
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::too_large,
                      "input.shape[" + std::to_string(axis) + "] = " +
                          std::to_string(in.shape[axis]) + " is reduced in chunks, and their " +
                          std::to_string(count) + " accumulators do not fit in memory");
    }
    const int64_t extent = in.shape[axis];
    const int64_t step = extent > job.limits.index ? job.limits.chunk : 1;
    for (int64_t start = 0; start < extent; start += step) {
        const Tensor chunk = slice_axis(in, axis, start, std::min(step, extent - start));
        const OutView target{start == 0 ? acc.data() : more.data(), acc_dtype, acc_strides};
        Status s = run(chunk, target, /*partial=*/true, job);
        if (!s.ok()) return s;
        if (start > 0) {
            combine_partials(acc_dtype, acc.data(), more.data(), count);
        }
    }
    for_each_kept(in, job.call.reduced, out, [&](int64_t i, void *dst) {
        const char *a = acc.data() + i * int64_t(acc_size);
        if (partial) {
            std::copy(a, a + acc_size, static_cast<char *>(dst));
        } else {
            finish_partial(job.call.reducer, job.call.p_kind, job.call.p, in.dtype, a, dst);
        }
    });
    return Status::Ok();
}

// Runs the slices [start, start + step) of kept axis `axis` as reductions into their own
// outputs.
Status run_kept_slices(const Tensor &in, int axis, int64_t step, const OutView &out, bool partial,
                       const Job &job) {
    const int64_t extent = in.shape[axis];
    for (int64_t start = 0; start < extent; start += step) {
        const OutView target{out.at(axis, start), out.dtype, out.strides};
        Status s =
            run(slice_axis(in, axis, start, std::min(step, extent - start)), target, partial, job);
        if (!s.ok()) return s;
    }
    return Status::Ok();
}

Status run(const Tensor &in, const OutView &out, bool partial, const Job &job) {
    const int axis = blocking_axis(in, job.call.reduced, out.strides, job.limits);
    if (axis < 0) {
        return call_kernel(in, out, partial, job);
    }
    if (is_gpu(job.call.backend)) return refuse_gpu_split(job.call.backend, in, axis);
    if (!is_reduced(job.call.reduced, axis)) {
        const int64_t extent = in.shape[axis];
        const bool long_axis = extent > job.limits.chunk && in.strides[axis] <= job.limits.index &&
                               in.strides[axis] >= -job.limits.index &&
                               out.strides[axis] <= job.limits.index;
        return run_kept_slices(in, axis, long_axis ? job.limits.chunk : 1, out, partial, job);
    }
    // A reduced axis needs accumulators for every kept element: bound their memory by first
    // slicing the outermost kept axis that is not 1.
    int64_t kept = 1;
    int outer_kept = -1;
    for (int i = in.rank - 1; i >= 0; i--) {
        if (!is_reduced(job.call.reduced, i) && in.shape[i] > 1) {
            kept *= in.shape[i];
            outer_kept = i;
        }
    }
    if (kept > job.limits.accumulators) {
        const int64_t per_index = kept / in.shape[outer_kept];
        return run_kept_slices(in, outer_kept,
                               std::max<int64_t>(1, job.limits.accumulators / per_index), out,
                               partial, job);
    }
    return run_reduced_chunks(in, axis, out, partial, job);
}

}  // namespace

int64_t dense_kept_strides(const int64_t *shape, int rank, uint32_t reduced, int64_t *strides) {
    int64_t count = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = is_reduced(reduced, i) ? 0 : count;
        if (!is_reduced(reduced, i)) count *= shape[i];
    }
    return count;
}

Status run_reduction(const Tensor &input, void *output, const int64_t *out_strides,
                     const ReduceCall &call, ReduceRun *ran) {
    reset_kernel_calls();
    Tensor merged;
    int64_t merged_out_strides[kMaxRank];
    ReduceCall merged_call = call;
    merge_axes(input, call.reduced, out_strides, &merged, &merged_call.reduced, merged_out_strides);
    return run(merged, OutView{output, input.dtype, merged_out_strides}, /*partial=*/false,
               Job{merged_call, current_split_limits(call.backend), ran});
}

}  // namespace lpnorm::rt
