// Rows of lpnorm::reduce_backward and its C ABI twin lpnorm_reduce_backward. x is a view of the
// input buffer, y and dy views of the same bytes (read only), dx a view of the output buffer.
#include <set>

#include "bad_input/table.h"
#include "lpnorm/lpnorm_c.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;
const std::vector<int64_t> kGroups = {2, 3, 6};  // kShape reduced over axis 3

// A dtype of the gradient ones that this build has no kernels for, if any.
bool missing_gradient_dtype(DType *out) {
    std::set<int> have;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "reduce_backward") have.insert(int(v.dtype));
    }
    for (DType d : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        if (!have.count(int(d))) {
            *out = d;
            return true;
        }
    }
    return false;
}

// The four tensors of a call, good unless a row replaces one.
struct Call {
    Tensor x, y, dy, dx;
};

Call good_call(Buffers &b, DType d = DType::float32) {
    return {b.x(kShape, d), b.x(kGroups, d), b.x(kGroups, d), b.y(kShape, d)};
}

Outcome run(const Call &c, const ReduceParams &p = reduce_params({3})) {
    return of(reduce_backward(c.x, c.y, c.dy, c.dx, p));
}

void add_cpp_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::reduce_backward";
    for (const std::string which : {"input", "output", "output_grad", "input_grad"}) {
        // tensor_rules puts "input" in the input buffer and every other name in the output one.
        for (const TensorRule &t : tensor_rules(which == "input" ? "input" : which)) {
            rows->push_back({e, t.site, which + ": " + t.name,
                             [t, which](Buffers &b) {
                                 Call c = good_call(b);
                                 const Tensor bad = t.make(b);
                                 if (which == "input") c.x = bad;
                                 if (which == "output") c.y = bad;
                                 if (which == "output_grad") c.dy = bad;
                                 if (which == "input_grad") c.dx = bad;
                                 return run(c);
                             },
                             t.code, t.fragments});
        }
    }
    for (const ReduceRule &r : reduce_attribute_rules()) {
        rows->push_back({e, r.site, r.name,
                         [r](Buffers &b) {
                             return of(reduce_backward(b.x(r.shape), b.x({1}), b.x({1}),
                                                       b.y(r.shape), r.params));
                         },
                         kInvalid, r.fragments});
    }
    auto with = [](std::function<void(Buffers &, Call *)> change) {
        return [change](Buffers &b) {
            Call c = good_call(b);
            change(b, &c);
            return run(c);
        };
    };
    rows->push_back({e,
                     "reduce_backward.dtype",
                     "int32 tensors",
                     [](Buffers &b) { return run(good_call(b, DType::int32)); },
                     kInvalid,
                     {"input.dtype = int32", "float32, float64, float16 or bfloat16"}});
    rows->push_back({e,
                     "validate.forward_output_dtype",
                     "float16 output of float32",
                     with([](Buffers &b, Call *c) { c->y = b.x(kGroups, DType::float16); }),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.forward_output_dtype",
                     "float64 output_grad of float32",
                     with([](Buffers &b, Call *c) { c->dy = b.x(kGroups, DType::float64); }),
                     ErrorCode::dtype_mismatch,
                     {"output_grad.dtype = float64", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.forward_output_shape",
                     "output with the kept dim of keep_dims = true",
                     with([](Buffers &b, Call *c) {
                         c->y = b.x({2, 3, 6, 1});
                     }),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 6, 1]", "output shape [2, 3, 6]"}});
    rows->push_back({e,
                     "validate.forward_output_shape",
                     "output_grad of the input's shape",
                     with([](Buffers &b, Call *c) { c->dy = b.x(kShape); }),
                     ErrorCode::shape_mismatch,
                     {"output_grad.shape = [2, 3, 6, 8]", "output shape [2, 3, 6]"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "float16 input_grad of float32",
                     with([](Buffers &b, Call *c) { c->dx = b.y(kShape, DType::float16); }),
                     ErrorCode::dtype_mismatch,
                     {"input_grad.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "input_grad of the output's shape",
                     with([](Buffers &b, Call *c) { c->dx = b.y(kGroups); }),
                     ErrorCode::shape_mismatch,
                     {"input_grad.shape = [2, 3, 6]", "expected [2, 3, 6, 8]"}});
    rows->push_back({e,
                     "validate.output_dense",
                     "strided input_grad",
                     [](Buffers &b) {
                         return of(reduce_backward(
                             b.x({2, 3}), b.x({2}), b.x({2}),
                             Tensor::strided(b.out.data(), DType::float32, {2, 3}, {6, 2}),
                             reduce_params({1})));
                     },
                     kInvalid,
                     {"input_grad.strides = [6, 2]", "shape [2, 3]"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the input",
                     with([](Buffers &b, Call *c) { c->dx = b.x(kShape); }),
                     ErrorCode::aliasing,
                     {"input and input_grad", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the output",
                     with([](Buffers &b, Call *c) { c->y = b.y(kGroups); }),
                     ErrorCode::aliasing,
                     {"output and input_grad", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the output_grad",
                     with([](Buffers &b, Call *c) { c->dy = b.y(kGroups); }),
                     ErrorCode::aliasing,
                     {"output_grad and input_grad", "overlap"}});
    rows->push_back({e,
                     "gpu.memory_mismatch",
                     "a CUDA output_grad for a host input",
                     with([](Buffers &, Call *c) { c->dy.memory = Memory::cuda; }),
                     ErrorCode::invalid_argument,
                     {"output_grad.memory = cuda", "input.memory = host"}});
    rows->push_back({e,
                     "reduce_backward.no_kernel",
                     "a dtype this build has no kernel for",
                     [](Buffers &b) {
                         DType d = DType::float32;
                         missing_gradient_dtype(&d);
                         return run(good_call(b, d));
                     },
                     ErrorCode::unsupported,
                     {"reduction gradient kernel for dtype", "at isa"},
                     [] {
                         DType d;
                         return missing_gradient_dtype(&d)
                                    ? std::string()
                                    : "every dtype has reduction gradient kernels in this build";
                     }});
}

const int64_t kIn[4] = {2, 3, 6, 8};  // kShape
const int64_t kOut[3] = {2, 3, 6};    // kGroups
const int64_t kAxis3[1] = {3};

void add_c_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_reduce_backward";
    auto c_tensor = [](void *data, int rank, const int64_t *shape) {
        return lpnorm_tensor{data, LPNORM_FLOAT32, rank, shape, nullptr, LPNORM_MEMORY_HOST};
    };
    auto call = [c_tensor](Buffers &b, const int64_t *axes, int32_t num_axes, double p,
                           int32_t empty_axes, bool null_grad) {
        const lpnorm_tensor x = c_tensor(b.in.data(), 4, kIn), y = c_tensor(b.in.data(), 3, kOut),
                            dx = c_tensor(b.out.data(), 4, kIn);
        return of_c(lpnorm_reduce_backward(&x, &y, null_grad ? nullptr : &y, &dx, axes, num_axes, p,
                                           0, empty_axes));
    };
    for (const ReduceRule &r : reduce_attribute_rules()) {
        if (r.shape != kShape || r.params.keep_dims) continue;
        rows->push_back({e, r.site, r.name,
                         [r, call](Buffers &b) {
                             return call(b, r.params.axes.data(), int32_t(r.params.axes.size()),
                                         r.params.p, int32_t(r.params.empty_axes), false);
                         },
                         kInvalid, r.fragments});
    }
    rows->push_back({e,
                     "c.reduce_num_axes",
                     "negative num_axes",
                     [call](Buffers &b) { return call(b, kAxis3, -1, 2.0, 1, false); },
                     kInvalid,
                     {"num_axes = -1"}});
    rows->push_back({e,
                     "c.reduce_axes_null",
                     "axes null with num_axes 1",
                     [call](Buffers &b) { return call(b, nullptr, 1, 2.0, 1, false); },
                     ErrorCode::null_pointer,
                     {"axes is null", "num_axes = 1"}});
    rows->push_back({e,
                     "c.tensor_null",
                     "null output_grad",
                     [call](Buffers &b) { return call(b, kAxis3, 1, 2.0, 1, true); },
                     ErrorCode::null_pointer,
                     {"output_grad is null"}});
}

}  // namespace

void add_reduce_backward_rows(std::vector<Row> *rows) {
    add_cpp_rows(rows);
    add_c_rows(rows);
}

}  // namespace lpnorm::test::bad_input
