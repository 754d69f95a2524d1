// Rows of lpnorm::normalize and its C ABI twin lpnorm_normalize.
#include <cmath>
#include <limits>
#include <set>

#include "bad_input/table.h"
#include "lpnorm/lpnorm_c.h"
#include "lpnorm/onnx.h"
#include "test_util.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;

NormalizeParams normalize_params(std::vector<int64_t> axes, double p = 2.0, double eps = 0.0,
                                 EpsMode mode = EpsMode::none) {
    NormalizeParams params;
    params.axes = std::move(axes);
    params.p = p;
    params.eps = eps;
    params.eps_mode = mode;
    return params;
}

// The attribute rules, shared by the C++ call and the C ABI.
struct NormalizeRule {
    std::string site, name;
    NormalizeParams params;
    std::vector<std::string> fragments;
};

std::vector<NormalizeRule> normalize_rules() {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {
        {"normalize.p", "p = 0", normalize_params({3}, 0.0), {"p = 0", "p > 0 or inf"}},
        {"normalize.p", "negative p", normalize_params({3}, -2.0), {"p = -2"}},
        {"normalize.p", "p = -inf", normalize_params({3}, -inf), {"p = -inf"}},
        {"normalize.p", "NaN p", normalize_params({3}, nan), {"p = nan"}},
        {"normalize.eps",
         "negative eps",
         normalize_params({3}, 2, -1e-12, EpsMode::norm_max),
         {"eps = -1e-12", "finite and >= 0"}},
        {"normalize.eps",
         "NaN eps",
         normalize_params({3}, 2, nan, EpsMode::sum_add),
         {"eps = nan"}},
        {"normalize.eps",
         "infinite eps",
         normalize_params({3}, 2, inf, EpsMode::sum_max),
         {"eps = inf"}},
        {"normalize.eps_mode",
         "an eps mode that does not exist",
         normalize_params({3}, 2, 0, EpsMode(4)),
         {"eps_mode = 4", "EpsMode"}},
        {"normalize.eps_mode",
         "a negative eps mode",
         normalize_params({3}, 2, 0, EpsMode(-1)),
         {"eps_mode = -1"}},
        {"normalize.inf_sum",
         "p = inf with sum_add",
         normalize_params({3}, inf, 1, EpsMode::sum_add),
         {"p = inf", "eps_mode = sum_add"}},
        {"normalize.inf_sum",
         "p = inf with sum_max",
         normalize_params({3}, inf, 1, EpsMode::sum_max),
         {"p = inf", "eps_mode = sum_max"}},
        {"validate.axis_range", "axis 4 of rank 4", normalize_params({4}), {"axes[0] = 4"}},
        {"validate.axis_range", "axis -5 of rank 4", normalize_params({1, -5}), {"axes[1] = -5"}},
        {"validate.axis_repeat",
         "axis 1 twice as 1 and -3",
         normalize_params({1, -3}),
         {"axes[1] = -3", "repeats axes[0]"}},
    };
}

// A dtype of the normalization ones that this build has no kernels for, if any.
bool missing_normalize_dtype(DType *out) {
    std::set<int> have;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "normalize") have.insert(int(v.dtype));
    }
    for (DType d : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        if (!have.count(int(d))) {
            *out = d;
            return true;
        }
    }
    return false;
}

void add_cpp_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::normalize";
    for (const std::string which : {"input", "output"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            const bool in = which == "input";
            rows->push_back({e, t.site, which + ": " + t.name,
                             [t, in](Buffers &b) {
                                 const Tensor bad = t.make(b);
                                 return of(normalize(in ? bad : b.x(kShape), in ? b.y(kShape) : bad,
                                                     normalize_params({3})));
                             },
                             t.code, t.fragments});
        }
    }
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back(
            {e, r.site, r.name,
             [r](Buffers &b) { return of(normalize(b.x(kShape), b.y(kShape), r.params)); },
             kInvalid, r.fragments});
    }
    auto call = [](DType in_dtype, std::vector<int64_t> out_shape, DType out_dtype) {
        return [=](Buffers &b) {
            return of(
                normalize(b.x(kShape, in_dtype), b.y(out_shape, out_dtype), normalize_params({3})));
        };
    };
    rows->push_back({e,
                     "normalize.dtype",
                     "int32 input",
                     call(DType::int32, kShape, DType::int32),
                     kInvalid,
                     {"input.dtype = int32", "float32, float64, float16 or bfloat16"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "float16 output of float32",
                     call(DType::float32, kShape, DType::float16),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "the reduced shape as output",
                     call(DType::float32, {2, 3, 6}, DType::float32),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 6]", "expected [2, 3, 6, 8]"}});
    rows->push_back(
        {e,
         "validate.output_dense",
         "strided output",
         [](Buffers &b) {
             return of(normalize(b.x({2, 3}),
                                 Tensor::strided(b.out.data(), DType::float32, {2, 3}, {6, 2}),
                                 normalize_params({1})));
         },
         kInvalid,
         {"output.strides = [6, 2]", "shape [2, 3]"}});
    rows->push_back(
        {e,
         "validate.aliasing",
         "in place",
         [](Buffers &b) { return of(normalize(b.x(kShape), b.x(kShape), normalize_params({3}))); },
         ErrorCode::aliasing,
         {"input", "output", "overlap"}});
    rows->push_back({e,
                     "gpu.memory_mismatch",
                     "a CUDA output for a host input",
                     [](Buffers &b) {
                         Tensor y = b.y(kShape);
                         y.memory = Memory::cuda;
                         return of(normalize(b.x(kShape), y, normalize_params({3})));
                     },
                     kInvalid,
                     {"output.memory = cuda", "input.memory = host"}});
    rows->push_back({e,
                     "normalize.no_kernel",
                     "a dtype this build has no kernel for",
                     [](Buffers &b) {
                         DType d = DType::float32;
                         missing_normalize_dtype(&d);
                         return of(
                             normalize(b.x(kShape, d), b.y(kShape, d), normalize_params({3})));
                     },
                     ErrorCode::unsupported,
                     {"normalization kernel for dtype", "at isa"},
                     [] {
                         DType d;
                         return missing_normalize_dtype(&d)
                                    ? std::string()
                                    : "every dtype has normalization kernels in this build";
                     }});
}

// lpnorm::normalize_backward: x in the input buffer, dy (read) in the output buffer's second
// half, dx in its first half.
void add_gradient_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::normalize_backward";
    // kShape float32 is 1152 bytes: dy starts past it.
    auto dy_of = [](Buffers &b, std::vector<int64_t> shape = kShape, DType d = DType::float32) {
        return Tensor::contiguous(b.out.data() + Buffers::kBytes / 2, d, shape);
    };
    auto call = [dy_of](std::function<void(Buffers &, Tensor *, Tensor *, Tensor *)> change) {
        return [dy_of, change](Buffers &b) {
            Tensor x = b.x(kShape), dy = dy_of(b), dx = b.y(kShape);
            change(b, &x, &dy, &dx);
            return of(normalize_backward(x, dy, dx, normalize_params({3})));
        };
    };
    for (const std::string which : {"input", "output_grad", "input_grad"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            rows->push_back(
                {e, t.site, which + ": " + t.name,
                 call([t, which](Buffers &b, Tensor *x, Tensor *dy, Tensor *dx) {
                     Tensor *target = which == "input" ? x : which == "output_grad" ? dy : dx;
                     *target = t.make(b);
                 }),
                 t.code, t.fragments});
        }
    }
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back({e, r.site, r.name,
                         [r, dy_of](Buffers &b) {
                             return of(
                                 normalize_backward(b.x(kShape), dy_of(b), b.y(kShape), r.params));
                         },
                         kInvalid, r.fragments});
    }
    rows->push_back({e,
                     "normalize.dtype",
                     "int32 tensors",
                     call([](Buffers &b, Tensor *x, Tensor *, Tensor *dx) {
                         *x = b.x(kShape, DType::int32);
                         *dx = b.y(kShape, DType::int32);
                     }),
                     kInvalid,
                     {"input.dtype = int32", "float32, float64, float16 or bfloat16"}});
    rows->push_back({e,
                     "normalize_backward.grad_dtype",
                     "float16 output_grad of float32",
                     call([dy_of](Buffers &b, Tensor *, Tensor *dy, Tensor *) {
                         *dy = dy_of(b, kShape, DType::float16);
                     }),
                     ErrorCode::dtype_mismatch,
                     {"output_grad.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "normalize_backward.grad_shape",
                     "output_grad of another shape",
                     call([dy_of](Buffers &b, Tensor *, Tensor *dy, Tensor *) {
                         *dy = dy_of(b, {2, 3, 6});
                     }),
                     ErrorCode::shape_mismatch,
                     {"output_grad.shape = [2, 3, 6]", "input.shape = [2, 3, 6, 8]"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "float64 input_grad of float32",
                     call([](Buffers &b, Tensor *, Tensor *, Tensor *dx) {
                         *dx = b.y(kShape, DType::float64);
                     }),
                     ErrorCode::dtype_mismatch,
                     {"input_grad.dtype = float64", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "input_grad of another shape",
                     call([](Buffers &b, Tensor *, Tensor *, Tensor *dx) {
                         *dx = b.y({2, 3});
                     }),
                     ErrorCode::shape_mismatch,
                     {"input_grad.shape = [2, 3]", "expected [2, 3, 6, 8]"}});
    rows->push_back({e,
                     "validate.output_dense",
                     "strided input_grad",
                     [dy_of](Buffers &b) {
                         return of(normalize_backward(
                             b.x({2, 3}), dy_of(b, {2, 3}),
                             Tensor::strided(b.out.data(), DType::float32, {2, 3}, {6, 2}),
                             normalize_params({1})));
                     },
                     kInvalid,
                     {"input_grad.strides = [6, 2]", "shape [2, 3]"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the input",
                     call([](Buffers &b, Tensor *, Tensor *, Tensor *dx) { *dx = b.x(kShape); }),
                     ErrorCode::aliasing,
                     {"input and input_grad", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "input_grad over the output_grad",
                     call([](Buffers &b, Tensor *, Tensor *dy, Tensor *) { *dy = b.y(kShape); }),
                     ErrorCode::aliasing,
                     {"output_grad and input_grad", "overlap"}});
    rows->push_back(
        {e,
         "gpu.memory_mismatch",
         "a CUDA output_grad for a host input",
         call([](Buffers &, Tensor *, Tensor *dy, Tensor *) { dy->memory = Memory::cuda; }),
         ErrorCode::invalid_argument,
         {"output_grad.memory = cuda", "input.memory = host"}});
}

void add_shape_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::normalize_output_shape";
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back(
            {e, r.site, r.name,
             [r](Buffers &b) { return of(normalize_output_shape(kShape, r.params, &b.shape_out)); },
             kInvalid, r.fragments});
    }
    rows->push_back({e,
                     "reduce.shape_rank",
                     "rank 9",
                     [](Buffers &b) {
                         return of(normalize_output_shape(std::vector<int64_t>(9, 1),
                                                          normalize_params({0}), &b.shape_out));
                     },
                     kInvalid,
                     {"input.rank = 9", "[0, 8]"}});
    rows->push_back(
        {e,
         "reduce.shape_negative",
         "negative dim",
         [](Buffers &b) {
             return of(normalize_output_shape({2, -3, 4}, normalize_params({0}), &b.shape_out));
         },
         kInvalid,
         {"input.shape[1] = -3"}});
}

const int64_t kIn[4] = {2, 3, 6, 8};  // kShape
const int64_t kAxis3[1] = {3};

void add_c_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_normalize";
    auto c_tensor = [](void *data) {
        return lpnorm_tensor{data, LPNORM_FLOAT32, 4, kIn, nullptr, LPNORM_MEMORY_HOST};
    };
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back({e, r.site, r.name,
                         [r, c_tensor](Buffers &b) {
                             const lpnorm_tensor i = c_tensor(b.in.data()),
                                                 o = c_tensor(b.out.data());
                             return of_c(lpnorm_normalize(
                                 &i, &o, r.params.axes.data(), int32_t(r.params.axes.size()),
                                 r.params.p, r.params.eps, int32_t(r.params.eps_mode)));
                         },
                         kInvalid, r.fragments});
    }
    rows->push_back({e,
                     "c.reduce_num_axes",
                     "negative num_axes",
                     [c_tensor](Buffers &b) {
                         const lpnorm_tensor i = c_tensor(b.in.data()), o = c_tensor(b.out.data());
                         return of_c(lpnorm_normalize(&i, &o, kAxis3, -1, 2.0, 0.0, 0));
                     },
                     kInvalid,
                     {"num_axes = -1"}});
    rows->push_back({e,
                     "c.reduce_axes_null",
                     "axes null with num_axes 1",
                     [c_tensor](Buffers &b) {
                         const lpnorm_tensor i = c_tensor(b.in.data()), o = c_tensor(b.out.data());
                         return of_c(lpnorm_normalize(&i, &o, nullptr, 1, 2.0, 0.0, 0));
                     },
                     ErrorCode::null_pointer,
                     {"axes is null", "num_axes = 1"}});
    const std::string g = "lpnorm_normalize_backward";
    auto c_gradient = [c_tensor](Buffers &b, const int64_t *axes, int32_t num_axes, double p,
                                 double eps, int32_t mode, bool null_grad) {
        const lpnorm_tensor x = c_tensor(b.in.data()),
                            dy = c_tensor(b.out.data() + Buffers::kBytes / 2),
                            dx = c_tensor(b.out.data());
        return of_c(lpnorm_normalize_backward(&x, null_grad ? nullptr : &dy, &dx, axes, num_axes, p,
                                              eps, mode));
    };
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back({g, r.site, r.name,
                         [r, c_gradient](Buffers &b) {
                             return c_gradient(b, r.params.axes.data(),
                                               int32_t(r.params.axes.size()), r.params.p,
                                               r.params.eps, int32_t(r.params.eps_mode), false);
                         },
                         kInvalid, r.fragments});
    }
    rows->push_back(
        {g,
         "c.reduce_num_axes",
         "negative num_axes",
         [c_gradient](Buffers &b) { return c_gradient(b, kAxis3, -1, 2.0, 0, 0, false); },
         kInvalid,
         {"num_axes = -1"}});
    rows->push_back({g,
                     "c.tensor_null",
                     "null output_grad",
                     [c_gradient](Buffers &b) { return c_gradient(b, kAxis3, 1, 2.0, 0, 0, true); },
                     ErrorCode::null_pointer,
                     {"output_grad is null"}});
    const std::string q = "lpnorm_normalize_output_shape";
    for (const NormalizeRule &r : normalize_rules()) {
        rows->push_back({q, r.site, r.name,
                         [r](Buffers &b) {
                             return of_c(lpnorm_normalize_output_shape(
                                 4, kIn, r.params.axes.data(), int32_t(r.params.axes.size()),
                                 r.params.p, r.params.eps, int32_t(r.params.eps_mode), &b.c_rank,
                                 b.c_shape));
                         },
                         kInvalid, r.fragments});
    }
    rows->push_back({q,
                     "c.query_rank",
                     "rank 9",
                     [](Buffers &b) {
                         const int64_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
                         return of_c(lpnorm_normalize_output_shape(9, shape, kAxis3, 1, 2.0, 0.0, 0,
                                                                   &b.c_rank, b.c_shape));
                     },
                     kInvalid,
                     {"rank = 9"}});
    rows->push_back({q,
                     "c.query_null",
                     "null out_shape",
                     [](Buffers &b) {
                         return of_c(lpnorm_normalize_output_shape(4, kIn, kAxis3, 1, 2.0, 0.0, 0,
                                                                   &b.c_rank, nullptr));
                     },
                     ErrorCode::null_pointer,
                     {"out_shape is null"}});
    rows->push_back({q,
                     "c.reduce_axes_null",
                     "axes null with num_axes 1",
                     [](Buffers &b) {
                         return of_c(lpnorm_normalize_output_shape(4, kIn, nullptr, 1, 2.0, 0.0, 0,
                                                                   &b.c_rank, b.c_shape));
                     },
                     ErrorCode::null_pointer,
                     {"axes is null"}});
    rows->push_back({e,
                     "c.tensor_null",
                     "null input",
                     [c_tensor](Buffers &b) {
                         const lpnorm_tensor o = c_tensor(b.out.data());
                         return of_c(lpnorm_normalize(nullptr, &o, kAxis3, 1, 2.0, 0.0, 0));
                     },
                     ErrorCode::null_pointer,
                     {"input is null"}});
}

void add_onnx_normalization_rows(std::vector<Row> *rows) {
    const std::string e = "onnx::lp_normalization";
    auto call = [](DType dtype, onnx::LpNormalizationAttributes a) {
        return [=](Buffers &b) {
            return of(onnx::lp_normalization(b.x(kShape, dtype), b.y(kShape, dtype), a));
        };
    };
    auto attrs = [](int64_t opset, int64_t axis, int64_t p) {
        onnx::LpNormalizationAttributes a;
        a.opset = opset;
        a.axis = axis;
        a.p = p;
        return a;
    };
    rows->push_back({e,
                     "onnx.pool_opset",
                     "opset 0",
                     call(DType::float32, attrs(0, -1, 2)),
                     kInvalid,
                     {"opset = 0"}});
    rows->push_back({e,
                     "onnx.normalize_dtype",
                     "bfloat16 before opset 22",
                     call(DType::bfloat16, attrs(21, -1, 2)),
                     kInvalid,
                     {"input.dtype = bfloat16", "LpNormalization-1", "added in opset 22"}});
    rows->push_back({e,
                     "onnx.normalize_dtype",
                     "int32",
                     call(DType::int32, attrs(22, -1, 2)),
                     kInvalid,
                     {"input.dtype = int32", "LpNormalization-22"}});
    rows->push_back({e,
                     "onnx.normalize_p",
                     "p = 3",
                     call(DType::float32, attrs(22, -1, 3)),
                     kInvalid,
                     {"p = 3", "1 or 2"}});
    rows->push_back({e,
                     "onnx.normalize_p",
                     "p = 0",
                     call(DType::float32, attrs(1, -1, 0)),
                     kInvalid,
                     {"p = 0", "LpNormalization-1"}});
    rows->push_back({e,
                     "validate.axis_range",
                     "axis 4 of rank 4",
                     call(DType::float32, attrs(22, 4, 2)),
                     kInvalid,
                     {"axes[0] = 4"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "the reduced shape as output",
                     [](Buffers &b) {
                         return of(onnx::lp_normalization(b.x(kShape), b.y({2, 3, 6}),
                                                          onnx::LpNormalizationAttributes{}));
                     },
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 6]"}});
}

}  // namespace

void add_normalize_rows(std::vector<Row> *rows) {
    add_gradient_rows(rows);
    add_cpp_rows(rows);
    add_shape_rows(rows);
    add_c_rows(rows);
    add_onnx_normalization_rows(rows);
}

}  // namespace lpnorm::test::bad_input
