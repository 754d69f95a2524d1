// Rows of lpnorm::pool_backward and its C ABI twin lpnorm_pool_backward. x is a view of the
// input buffer, y and dy views of the same bytes (read only), dx a view of the output buffer.
#include <set>

#include "bad_input/table.h"
#include "lpnorm/lpnorm_c.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;
const std::vector<int64_t> kPooled = {2, 3, 3, 4};  // kShape pooled 2x2 stride 2

// A dtype of the gradient ones that this build has no pooling gradient kernels for, if any.
bool missing_gradient_dtype(DType *out) {
    std::set<int> have;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "pool_backward") have.insert(int(v.dtype));
    }
    for (DType d : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        if (!have.count(int(d))) {
            *out = d;
            return true;
        }
    }
    return false;
}

struct Call {
    Tensor x, y, dy, dx;
};

Call good_call(Buffers &b, DType d = DType::float32) {
    return {b.x(kShape, d), b.x(kPooled, d), b.x(kPooled, d), b.y(kShape, d)};
}

Outcome run(const Call &c, const PoolParams &p = pool_params({2, 2}, {2, 2})) {
    return of(pool_backward(c.x, c.y, c.dy, c.dx, p));
}

void add_cpp_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::pool_backward";
    for (const std::string which : {"input", "output", "output_grad", "input_grad"}) {
        // tensor_rules puts "input" in the input buffer and every other name in the output one.
        for (const TensorRule &t : tensor_rules(which)) {
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
    for (const PoolRule &r : pool_attribute_rules()) {
        rows->push_back(
            {e, r.site, r.name,
             [r](Buffers &b) {
                 return of(pool_backward(b.x(r.shape), b.x({1}), b.x({1}), b.y(r.shape), r.params));
             },
             r.code, r.fragments});
    }
    auto with = [](std::function<void(Buffers &, Call *)> change) {
        return [change](Buffers &b) {
            Call c = good_call(b);
            change(b, &c);
            return run(c);
        };
    };
    rows->push_back({e,
                     "pool_backward.dtype",
                     "int32 tensors",
                     [](Buffers &b) { return run(good_call(b, DType::int32)); },
                     kInvalid,
                     {"input.dtype = int32", "float32, float64, float16 or bfloat16"}});
    rows->push_back({e,
                     "validate.forward_output_dtype",
                     "float16 output of float32",
                     with([](Buffers &b, Call *c) { c->y = b.x(kPooled, DType::float16); }),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.forward_output_dtype",
                     "float64 output_grad of float32",
                     with([](Buffers &b, Call *c) { c->dy = b.x(kPooled, DType::float64); }),
                     ErrorCode::dtype_mismatch,
                     {"output_grad.dtype = float64", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.forward_output_shape",
                     "output of a stride-1 window",
                     with([](Buffers &b, Call *c) {
                         c->y = b.x({2, 3, 5, 7});
                     }),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 5, 7]", "output shape [2, 3, 3, 4]"}});
    rows->push_back({e,
                     "validate.forward_output_shape",
                     "output_grad of the input's shape",
                     with([](Buffers &b, Call *c) { c->dy = b.x(kShape); }),
                     ErrorCode::shape_mismatch,
                     {"output_grad.shape = [2, 3, 6, 8]", "output shape [2, 3, 3, 4]"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "float16 input_grad of float32",
                     with([](Buffers &b, Call *c) { c->dx = b.y(kShape, DType::float16); }),
                     ErrorCode::dtype_mismatch,
                     {"input_grad.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "input_grad of the output's shape",
                     with([](Buffers &b, Call *c) { c->dx = b.y(kPooled); }),
                     ErrorCode::shape_mismatch,
                     {"input_grad.shape = [2, 3, 3, 4]", "expected [2, 3, 6, 8]"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the input",
                     with([](Buffers &b, Call *c) { c->dx = b.x(kShape); }),
                     ErrorCode::aliasing,
                     {"input and input_grad", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the output",
                     with([](Buffers &b, Call *c) { c->y = b.y(kPooled); }),
                     ErrorCode::aliasing,
                     {"output and input_grad", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the output_grad",
                     with([](Buffers &b, Call *c) { c->dy = b.y(kPooled); }),
                     ErrorCode::aliasing,
                     {"output_grad and input_grad", "overlap"}});
    rows->push_back({e,
                     "pool_backward.memory",
                     "a CUDA output_grad",
                     with([](Buffers &, Call *c) { c->dy.memory = Memory::cuda; }),
                     ErrorCode::unsupported,
                     {"output_grad.memory = cuda", "host (CPU) tensors only"}});
    rows->push_back({e,
                     "pool_backward.no_kernel",
                     "a dtype this build has no kernel for",
                     [](Buffers &b) {
                         DType d = DType::float32;
                         missing_gradient_dtype(&d);
                         return run(good_call(b, d));
                     },
                     ErrorCode::unsupported,
                     {"pooling gradient kernel for dtype", "at isa"},
                     [] {
                         DType d;
                         return missing_gradient_dtype(&d)
                                    ? std::string()
                                    : "every dtype has pooling gradient kernels in this build";
                     }});
}

const int64_t kIn[4] = {2, 3, 6, 8};   // kShape
const int64_t kOut[4] = {2, 3, 3, 4};  // kPooled
const int64_t kKernel[2] = {2, 2};

void add_c_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_pool_backward";
    auto c_tensor = [](void *data, const int64_t *shape) {
        return lpnorm_tensor{data, LPNORM_FLOAT32, 4, shape, nullptr, LPNORM_MEMORY_HOST};
    };
    auto call = [c_tensor](Buffers &b, const lpnorm_pool_params *params, bool null_grad) {
        const lpnorm_tensor x = c_tensor(b.in.data(), kIn), y = c_tensor(b.in.data(), kOut),
                            dx = c_tensor(b.out.data(), kIn);
        return of_c(lpnorm_pool_backward(&x, &y, null_grad ? nullptr : &y, &dx, params));
    };
    rows->push_back({e,
                     "c.tensor_null",
                     "null output_grad",
                     [call](Buffers &b) {
                         const lpnorm_pool_params params = {
                             2, kKernel, kKernel, nullptr, nullptr, LPNORM_AUTO_PAD_NOTSET,
                             0, 2.0,     0,       0};
                         return call(b, &params, true);
                     },
                     ErrorCode::null_pointer,
                     {"output_grad is null"}});
    rows->push_back({e,
                     "c.params_null",
                     "null params",
                     [call](Buffers &b) { return call(b, nullptr, false); },
                     ErrorCode::null_pointer,
                     {"params is null"}});
    rows->push_back({e,
                     "geometry.p",
                     "p = -1",
                     [call](Buffers &b) {
                         const lpnorm_pool_params params = {
                             2, kKernel, kKernel, nullptr, nullptr, LPNORM_AUTO_PAD_NOTSET,
                             0, -1.0,    0,       0};
                         return call(b, &params, false);
                     },
                     kInvalid,
                     {"p = -1"}});
}

}  // namespace

void add_pool_backward_rows(std::vector<Row> *rows) {
    add_cpp_rows(rows);
    add_c_rows(rows);
}

}  // namespace lpnorm::test::bad_input
