// libFuzzer target: lpnorm_reduce_backward, lpnorm_pool_backward and lpnorm_normalize_backward
// on arbitrary arguments, each with the output (computed by the forward op where it can be) and
// the output gradient of its forward call.
//
// Input bytes, in order (make_seeds.py writes seeds this way): the op (0 reduce, 1 pool,
// 2 normalize; others taken modulo 3), then the bytes of that op's forward target (fuzz_reduce,
// fuzz_pool, fuzz_normalize: see their headers); the rest fills the elements of x, y and dy.
// The harness's output is input_grad, of x's shape when the forward's shape query succeeds.
#include "fuzz_cases.h"

using namespace lpnorm_fuzz;

namespace {

// An op's forward shape query, forward call and gradient call (x, y, dy, dx; normalize's
// gradient takes no y).
struct GradientOp {
    std::function<int(int32_t *, int64_t *)> query;
    std::function<int(const lpnorm_tensor *, const lpnorm_tensor *)> forward;
    std::function<int(const lpnorm_tensor *, const lpnorm_tensor *, const lpnorm_tensor *,
                      const lpnorm_tensor *)>
        backward;
};

// float32, float16, bfloat16 and float64: the dtypes with a gradient.
bool is_gradient_dtype(int32_t dtype) { return dtype >= 0 && dtype <= 3; }

int64_t elements_of(int rank, const int64_t *shape) {
    __int128 n = 1;
    for (int i = 0; i < rank; i++)
        n = std::min<__int128>(n * std::max<int64_t>(shape[i], 0), kI64Max);
    return int64_t(n);
}

// Whether x's data is memory checked_call allocated for all of it: x's elements within the
// harness's work and its span (the strides' reach) within its allocation, kMaxBytes.
bool x_is_real(const lpnorm_tensor *x, int32_t dtype) {
    if (x == nullptr || x->data == nullptr || x->shape == nullptr || x->rank < 0 ||
        x->rank > kMaxRank || elements_of(x->rank, x->shape) > kMaxWork) {
        return false;
    }
    int64_t dense[kMaxRank + 1];
    dense_strides(x->rank, x->shape, dense);
    const Extent extent(x->rank, x->shape, x->strides != nullptr ? x->strides : dense,
                        std::max<size_t>(dtype_size(dtype), 1));
    return !extent.bytes_overflow && extent.span_bytes <= kMaxBytes;
}

// One gradient call through checked_call: y and dy get the forward's output shape (from its
// query) and x's dtype, and must be left unchanged.
CallResult gradient_call(const InputArgs &in, const MisuseArgs &misuse, CallFacts facts,
                         const Reader &values, const GradientOp &op) {
    int32_t forward_rank = 0;
    int64_t forward_shape[kMaxRank] = {};
    const bool forward_ok = op.query(&forward_rank, forward_shape) == LPNORM_OK;
    const int64_t y_elements = forward_ok ? elements_of(forward_rank, forward_shape) : 1;
    // The gradient's output has x's shape where the forward has an output at all.
    const Query query([&](int32_t *out_rank, int64_t *out_shape) {
        const int status = op.query(out_rank, out_shape);
        if (status == LPNORM_OK) {
            *out_rank = in.rank;
            std::copy(in.shape, in.shape + in.rank, out_shape);
        }
        return status;
    });
    facts.op_error = facts.op_error || !is_gradient_dtype(in.dtype);
    facts.work = std::max(facts.work, y_elements);
    facts.nonnegative = false;
    return checked_call(
        in, query, misuse, facts, values, [&](const lpnorm_tensor *x, const lpnorm_tensor *dx) {
            // A call that must fail anyway may have a forward output too large to allocate.
            const int64_t n = y_elements <= kMaxWork ? y_elements : 1;
            const size_t bytes = size_t(n) * std::max<size_t>(dtype_size(in.dtype), 1);
            std::vector<uint8_t> y(bytes), dy(bytes);
            fill_values(y.data(), bytes, values);
            fill_values(dy.data(), bytes, values);
            std::reverse(dy.begin(), dy.end());
            const int32_t rank = forward_ok ? forward_rank : 0;
            const lpnorm_tensor yt{y.data(), in.dtype, rank, forward_shape, nullptr};
            const lpnorm_tensor dyt{dy.data(), in.dtype, rank, forward_shape, nullptr};
            // The forward only where the gradient may succeed and x and the forward's work
            // are within the harness's bounds: a call that must be refused needs no real y,
            // and is not shrunk, so its x can be far larger than the memory behind it (zero
            // strides), its strides reach beyond the token buffer the harness then passes, or
            // its windows be too many to compute in the run's time (a pooling of 8x8x8
            // windows over 32768 outputs, every one out of range and recomputed by the range
            // repair, took 5-15 s under the sanitizers, beyond libFuzzer's -timeout=10).
            if (forward_ok && !facts.op_error && n == y_elements && facts.work <= kMaxWork &&
                x_is_real(x, in.dtype)) {
                op.forward(x, &yt);
            }
            const std::vector<uint8_t> y_before = y, dy_before = dy;
            const int status = op.backward(x, &yt, &dyt, dx);
            FUZZ_REQUIRE(y == y_before, "status %d: output was modified", status);
            FUZZ_REQUIRE(dy == dy_before, "status %d: output_grad was modified", status);
            return status;
        });
}

// Too large a case is shrunk (`shrink(cap)`) and tried again, as the forward targets do.
template <typename Shrink, typename Attempt>
void with_shrinking(Shrink shrink, Attempt attempt) {
    const int64_t caps[] = {64, 16, 4, 1};
    for (int i = 0; i <= 4; i++) {
        if (i > 0) shrink(caps[i - 1]);
        if (attempt() == CallResult::done) return;
    }
    FUZZ_REQUIRE(false, "the harness could not shrink the case");
}

void run_reduce(ReduceCase &c, const Reader &values) {
    const bool null_axes = c.misuse.kind == kNullParams;
    const int64_t *axes = null_axes ? nullptr : c.axes;
    GradientOp op;
    op.query = [&](int32_t *rank, int64_t *shape) {
        return lpnorm_reduce_output_shape(c.in.rank,
                                          c.misuse.kind == kNullShape ? nullptr : c.in.shape, axes,
                                          c.num_axes, c.keep_dims, c.empty_axes, rank, shape);
    };
    op.forward = [&](const lpnorm_tensor *x, const lpnorm_tensor *y) {
        return lpnorm_reduce(x, y, axes, c.num_axes, c.p, c.keep_dims, c.empty_axes);
    };
    op.backward = [&](const lpnorm_tensor *x, const lpnorm_tensor *y, const lpnorm_tensor *dy,
                      const lpnorm_tensor *dx) {
        return lpnorm_reduce_backward(x, y, dy, dx, axes, c.num_axes, c.p, c.keep_dims,
                                      c.empty_axes);
    };
    CallFacts facts;
    facts.op_error = !valid_p(c.p) || (null_axes && c.num_axes > 0);
    if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
        print_array("reduce_backward axes", axes, std::max(c.num_axes, 0));
        std::fprintf(stderr, " num_axes %d p %.17g keep_dims %d empty_axes %d\n", c.num_axes, c.p,
                     c.keep_dims, c.empty_axes);
    }
    with_shrinking([&](int64_t cap) { c.in.clamp(cap); },
                   [&] { return gradient_call(c.in, c.misuse, facts, values, op); });
}

void run_pool(PoolCase &c, const Reader &values) {
    const lpnorm_pool_params *params = c.misuse.kind == kNullParams ? nullptr : &c.params;
    GradientOp op;
    op.query = [&](int32_t *rank, int64_t *shape) {
        return lpnorm_pool_output_shape(
            c.in.rank, c.misuse.kind == kNullShape ? nullptr : c.in.shape, params, rank, shape);
    };
    op.forward = [&](const lpnorm_tensor *x, const lpnorm_tensor *y) {
        return lpnorm_pool(x, y, params);
    };
    op.backward = [&](const lpnorm_tensor *x, const lpnorm_tensor *y, const lpnorm_tensor *dy,
                      const lpnorm_tensor *dx) {
        return lpnorm_pool_backward(x, y, dy, dx, params);
    };
    if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
        std::fprintf(stderr, "pool_backward ");
        print_params(c.params);
    }
    with_shrinking([&](int64_t cap) { c.clamp(cap); },
                   [&] {
                       CallFacts facts;
                       facts.op_error = params == nullptr || !is_pool_dtype(c.in.dtype);
                       // The windows of each element: the forward's work bounds the gather's.
                       facts.work = c.work(Query(op.query));
                       return gradient_call(c.in, c.misuse, facts, values, op);
                   });
}

void run_normalize(NormalizeCase &c, const Reader &values) {
    const bool null_axes = c.misuse.kind == kNullParams;
    const int64_t *axes = null_axes ? nullptr : c.axes;
    GradientOp op;
    op.query = [&](int32_t *rank, int64_t *shape) {
        return lpnorm_normalize_output_shape(c.in.rank,
                                             c.misuse.kind == kNullShape ? nullptr : c.in.shape,
                                             axes, c.num_axes, c.p, c.eps, c.eps_mode, rank, shape);
    };
    op.forward = [](const lpnorm_tensor *, const lpnorm_tensor *) { return LPNORM_OK; };
    op.backward = [&](const lpnorm_tensor *x, const lpnorm_tensor *, const lpnorm_tensor *dy,
                      const lpnorm_tensor *dx) {
        return lpnorm_normalize_backward(x, dy, dx, axes, c.num_axes, c.p, c.eps, c.eps_mode);
    };
    CallFacts facts;
    facts.op_error = bad_attributes(c) || (null_axes && c.num_axes > 0);
    if (std::getenv("LPNORM_FUZZ_VERBOSE")) {
        print_array("normalize_backward axes", axes, std::max(c.num_axes, 0));
        std::fprintf(stderr, " num_axes %d p %.17g eps %.17g eps_mode %d\n", c.num_axes, c.p, c.eps,
                     c.eps_mode);
    }
    with_shrinking([&](int64_t cap) { c.in.clamp(cap); },
                   [&] { return gradient_call(c.in, c.misuse, facts, values, op); });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    // One worker: runs are deterministic, and -jobs/-workers are the way to use more cores.
    lpnorm_set_num_threads(1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader r(data, size);
    switch (r.u8() % 3) {
    case 0: {
        ReduceCase c(r);
        run_reduce(c, r);
        break;
    }
    case 1: {
        PoolCase c(r);
        run_pool(c, r);
        break;
    }
    default: {
        NormalizeCase c(r);
        run_normalize(c, r);
        break;
    }
    }
    return 0;
}
