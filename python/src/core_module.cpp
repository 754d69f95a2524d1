// lpnorm._core: the C++ API over arrays from any framework that speaks DLPack or the buffer
// protocol (numpy, PyTorch, ...). Arrays are passed to lpnorm as strided views of their own
// memory, never copied; lpnorm/__init__.py allocates outputs in the input's framework and
// turns keyword arguments into the positional ones taken here.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "lpnorm/torch.h"

namespace nb = nanobind;

namespace {

// Raised as lpnorm.Error (a ValueError) with the library's message.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(const lpnorm::Status &s) {
    if (!s.ok()) throw Error(s.message());
}

using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

// The numpy-style name of a DLPack element type ("float32", "bfloat16", "complex64", ...).
std::string dlpack_name(const nb::dlpack::dtype &d) {
    std::string kind;
    switch (static_cast<nb::dlpack::dtype_code>(d.code)) {
    case nb::dlpack::dtype_code::Int: kind = "int"; break;
    case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
    case nb::dlpack::dtype_code::Float: kind = "float"; break;
    case nb::dlpack::dtype_code::Bfloat: kind = "bfloat"; break;
    case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
    case nb::dlpack::dtype_code::Bool: kind = "bool"; break;
    default: kind = "(DLPack type code " + std::to_string(d.code) + ") "; break;
    }
    std::string name = kind + std::to_string(d.bits);
    return d.lanes == 1 ? name : name + "x" + std::to_string(d.lanes);
}

// The element type of an array: its DLPack dtype, or `name` where given (numpy's bfloat16
// from ml_dtypes has no DLPack code and comes as a uint16 view with name "bfloat16").
lpnorm::DType dtype_of(const nb::dlpack::dtype &d, size_t itemsize, const char *what,
                       const std::string &name) {
    const std::string full = name.empty() ? dlpack_name(d) : name;
    lpnorm::DType dtype;
    if (!lpnorm::parse_dtype(full.c_str(), &dtype) || d.lanes != 1 ||
        lpnorm::dtype_size(dtype) != itemsize) {
        throw Error(std::string(what) + ".dtype = " + full +
                    " is not an lpnorm dtype (float32, float16, bfloat16, float64, int8-64, "
                    "uint8-64)");
    }
    return dtype;
}

template <typename Array>
lpnorm::Tensor view_of(const Array &a, const char *what, const std::string &dtype_name) {
    if (a.device_type() != nb::device::cpu::value) {
        throw Error(std::string(what) + " lives on DLPack device type " +
                    std::to_string(a.device_type()) +
                    ": this package runs arrays in host (CPU) memory");
    }
    if (a.ndim() > size_t(lpnorm::kMaxRank)) {
        throw Error(std::string(what) + ".ndim = " + std::to_string(a.ndim()) +
                    " exceeds lpnorm's largest rank, " + std::to_string(lpnorm::kMaxRank));
    }
    lpnorm::Tensor t;
    t.data = const_cast<void *>(static_cast<const void *>(a.data()));
    t.dtype = dtype_of(a.dtype(), a.itemsize(), what, dtype_name);
    t.rank = static_cast<int>(a.ndim());
    int64_t dense = 1;
    for (int i = t.rank - 1; i >= 0; i--) {
        t.shape[i] = static_cast<int64_t>(a.shape(size_t(i)));
        // DLPack producers may leave the strides out for a dense row-major array.
        t.strides[i] = a.stride_ptr() != nullptr ? a.stride(size_t(i)) : dense;
        dense *= t.shape[i];
    }
    return t;
}

lpnorm::ReduceParams reduce_params(const std::vector<int64_t> &axes, double p, bool keepdims,
                                   int empty_axes) {
    lpnorm::ReduceParams params;
    params.axes = axes;
    params.p = p;
    params.keep_dims = keepdims;
    params.empty_axes = static_cast<lpnorm::EmptyAxes>(empty_axes);
    return params;
}

lpnorm::PoolParams pool_params(const std::vector<int64_t> &kernel,
                               const std::vector<int64_t> &strides,
                               const std::vector<int64_t> &pads,
                               const std::vector<int64_t> &dilations, int auto_pad, bool ceil_mode,
                               double p, int mode, int overhang) {
    lpnorm::PoolParams params;
    params.kernel = kernel;
    params.strides = strides;
    params.pads = pads;
    params.dilations = dilations;
    params.auto_pad = static_cast<lpnorm::AutoPad>(auto_pad);
    params.ceil_mode = ceil_mode;
    params.p = p;
    params.mode = static_cast<lpnorm::PoolMode>(mode);
    params.overhang = static_cast<lpnorm::Overhang>(overhang);
    return params;
}

std::vector<int64_t> reduce_output_shape(const std::vector<int64_t> &shape,
                                         const std::vector<int64_t> &axes, double p, bool keepdims,
                                         int empty_axes) {
    std::vector<int64_t> out;
    check(lpnorm::reduce_output_shape(shape, reduce_params(axes, p, keepdims, empty_axes), &out));
    return out;
}

void reduce(const InArray &x, const OutArray &out, const std::string &dtype,
            const std::vector<int64_t> &axes, double p, bool keepdims, int empty_axes) {
    const lpnorm::Tensor in = view_of(x, "x", dtype), o = view_of(out, "out", dtype);
    const lpnorm::ReduceParams params = reduce_params(axes, p, keepdims, empty_axes);
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::reduce(in, o, params);
    }
    check(s);
}

void normalize(const InArray &x, const OutArray &out, const std::string &dtype,
               const std::vector<int64_t> &axes, double p, double eps, int eps_mode) {
    const lpnorm::Tensor in = view_of(x, "x", dtype), o = view_of(out, "out", dtype);
    lpnorm::NormalizeParams params;
    params.axes = axes;
    params.p = p;
    params.eps = eps;
    params.eps_mode = static_cast<lpnorm::EpsMode>(eps_mode);
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::normalize(in, o, params);
    }
    check(s);
}

std::vector<int64_t> pool_output_shape(const std::vector<int64_t> &shape,
                                       const std::vector<int64_t> &kernel,
                                       const std::vector<int64_t> &strides,
                                       const std::vector<int64_t> &pads,
                                       const std::vector<int64_t> &dilations, int auto_pad,
                                       bool ceil_mode, double p, int mode, int overhang) {
    std::vector<int64_t> out;
    check(lpnorm::pool_output_shape(
        shape,
        pool_params(kernel, strides, pads, dilations, auto_pad, ceil_mode, p, mode, overhang),
        &out));
    return out;
}

void pool(const InArray &x, const OutArray &out, const std::string &dtype,
          const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides,
          const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, int auto_pad,
          bool ceil_mode, double p, int mode, int overhang) {
    const lpnorm::Tensor in = view_of(x, "x", dtype), o = view_of(out, "out", dtype);
    const lpnorm::PoolParams params =
        pool_params(kernel, strides, pads, dilations, auto_pad, ceil_mode, p, mode, overhang);
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::pool(in, o, params);
    }
    check(s);
}

void pool_backward(const InArray &x, const InArray &y, const InArray &grad, const OutArray &out,
                   const std::string &dtype, const std::vector<int64_t> &kernel,
                   const std::vector<int64_t> &strides, const std::vector<int64_t> &pads,
                   const std::vector<int64_t> &dilations, int auto_pad, bool ceil_mode, double p,
                   int mode, int overhang) {
    const lpnorm::Tensor in = view_of(x, "x", dtype), pooled = view_of(y, "y", dtype),
                         dy = view_of(grad, "dy", dtype), o = view_of(out, "out", dtype);
    const lpnorm::PoolParams params =
        pool_params(kernel, strides, pads, dilations, auto_pad, ceil_mode, p, mode, overhang);
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::pool_backward(in, pooled, dy, o, params);
    }
    check(s);
}

// PyTorch's linalg.vector_norm and lp_pool1d/2d/3d through lpnorm's torch adapters
// (include/lpnorm/torch.h: torch's argument checks, signed powers, rescaled overhang).
void torch_vector_norm(const InArray &x, const OutArray &out, double ord,
                       const std::vector<int64_t> &dim, bool keepdim) {
    const lpnorm::Tensor in = view_of(x, "input", ""), o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::torch::vector_norm(in, o, ord, dim, keepdim);
    }
    check(s);
}

void torch_vector_norm_backward(const InArray &x, const InArray &y, const InArray &grad,
                                const OutArray &out, double ord, const std::vector<int64_t> &dim,
                                bool keepdim) {
    const lpnorm::Tensor in = view_of(x, "input", ""), norm = view_of(y, "output", ""),
                         dy = view_of(grad, "output_grad", ""), o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::torch::vector_norm_backward(in, norm, dy, o, ord, dim, keepdim);
    }
    check(s);
}

void torch_normalize(const InArray &x, const OutArray &out, double p,
                     const std::vector<int64_t> &dim, double eps) {
    const lpnorm::Tensor in = view_of(x, "input", ""), o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::torch::normalize(in, o, p, dim, eps);
    }
    check(s);
}

void torch_normalize_backward(const InArray &x, const InArray &grad, const OutArray &out, double p,
                              const std::vector<int64_t> &dim, double eps) {
    const lpnorm::Tensor in = view_of(x, "input", ""), dy = view_of(grad, "output_grad", ""),
                         o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        s = lpnorm::torch::normalize_backward(in, dy, o, p, dim, eps);
    }
    check(s);
}

void torch_lp_pool(int spatial, const InArray &x, const OutArray &out, double norm_type,
                   const std::vector<int64_t> &kernel_size, const std::vector<int64_t> &stride,
                   bool ceil_mode) {
    const lpnorm::Tensor in = view_of(x, "input", ""), o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        switch (spatial) {
        case 1:
            s = lpnorm::torch::lp_pool1d(in, o, norm_type, kernel_size, stride, ceil_mode);
            break;
        case 2:
            s = lpnorm::torch::lp_pool2d(in, o, norm_type, kernel_size, stride, ceil_mode);
            break;
        case 3:
            s = lpnorm::torch::lp_pool3d(in, o, norm_type, kernel_size, stride, ceil_mode);
            break;
        default:
            s = lpnorm::Status(lpnorm::ErrorCode::invalid_argument,
                               "spatial = " + std::to_string(spatial) + " is not 1, 2 or 3");
        }
    }
    check(s);
}

void torch_lp_pool_backward(int spatial, const InArray &x, const InArray &y, const InArray &grad,
                            const OutArray &out, double norm_type,
                            const std::vector<int64_t> &kernel_size,
                            const std::vector<int64_t> &stride, bool ceil_mode) {
    const lpnorm::Tensor in = view_of(x, "input", ""), pooled = view_of(y, "output", ""),
                         dy = view_of(grad, "output_grad", ""), o = view_of(out, "out", "");
    lpnorm::Status s;
    {
        nb::gil_scoped_release unlocked;
        switch (spatial) {
        case 1:
            s = lpnorm::torch::lp_pool1d_backward(in, pooled, dy, o, norm_type, kernel_size, stride,
                                                  ceil_mode);
            break;
        case 2:
            s = lpnorm::torch::lp_pool2d_backward(in, pooled, dy, o, norm_type, kernel_size, stride,
                                                  ceil_mode);
            break;
        case 3:
            s = lpnorm::torch::lp_pool3d_backward(in, pooled, dy, o, norm_type, kernel_size, stride,
                                                  ceil_mode);
            break;
        default:
            s = lpnorm::Status(lpnorm::ErrorCode::invalid_argument,
                               "spatial = " + std::to_string(spatial) + " is not 1, 2 or 3");
        }
    }
    check(s);
}

nb::dict info() {
    nb::dict d;
    d["version"] = lpnorm::version();
    d["detected_isa"] = lpnorm::isa_name(lpnorm::detected_isa());
    d["active_isa"] = lpnorm::isa_name(lpnorm::active_isa());
    d["num_threads"] = lpnorm::num_threads();
    nb::list backends;
    for (const lpnorm::BackendStatus &b : lpnorm::backends()) {
        nb::dict e;
        e["backend"] = lpnorm::backend_name(b.backend);
        e["compiled"] = b.compiled;
        e["usable"] = b.usable;
        e["detail"] = b.detail;
        backends.append(e);
    }
    d["backends"] = backends;
    nb::list variants;
    for (const lpnorm::VariantInfo &v : lpnorm::compiled_variants()) {
        nb::dict e;
        e["op"] = v.op;
        e["pattern"] = v.pattern;
        e["reducer"] = v.reducer;
        e["dtype"] = lpnorm::dtype_name(v.dtype);
        e["isa"] = lpnorm::isa_name(v.isa);
        e["backend"] = lpnorm::backend_name(v.backend);
        variants.append(e);
    }
    d["variants"] = variants;
    return d;
}

void set_num_threads(int n) {
    if (n < 0) throw Error("n = " + std::to_string(n) + " must be >= 0 (0: one per core)");
    lpnorm::set_num_threads(n);
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "lpnorm's C++ API over DLPack and buffer-protocol arrays (use the lpnorm package)";
    nb::exception<Error>(m, "Error", PyExc_ValueError);
    m.def("reduce_output_shape", &reduce_output_shape, nb::arg("shape"), nb::arg("axes"),
          nb::arg("p"), nb::arg("keepdims"), nb::arg("empty_axes"));
    m.def("reduce", &reduce, nb::arg("x"), nb::arg("out").noconvert(), nb::arg("dtype"),
          nb::arg("axes"), nb::arg("p"), nb::arg("keepdims"), nb::arg("empty_axes"));
    m.def("pool_output_shape", &pool_output_shape, nb::arg("shape"), nb::arg("kernel"),
          nb::arg("strides"), nb::arg("pads"), nb::arg("dilations"), nb::arg("auto_pad"),
          nb::arg("ceil_mode"), nb::arg("p"), nb::arg("mode"), nb::arg("overhang"));
    m.def("pool", &pool, nb::arg("x"), nb::arg("out").noconvert(), nb::arg("dtype"),
          nb::arg("kernel"), nb::arg("strides"), nb::arg("pads"), nb::arg("dilations"),
          nb::arg("auto_pad"), nb::arg("ceil_mode"), nb::arg("p"), nb::arg("mode"),
          nb::arg("overhang"));
    m.def("pool_backward", &pool_backward, nb::arg("x"), nb::arg("y"), nb::arg("dy"),
          nb::arg("out").noconvert(), nb::arg("dtype"), nb::arg("kernel"), nb::arg("strides"),
          nb::arg("pads"), nb::arg("dilations"), nb::arg("auto_pad"), nb::arg("ceil_mode"),
          nb::arg("p"), nb::arg("mode"), nb::arg("overhang"));
    m.def("normalize", &normalize, nb::arg("x"), nb::arg("out").noconvert(), nb::arg("dtype"),
          nb::arg("axes"), nb::arg("p"), nb::arg("eps"), nb::arg("eps_mode"));
    m.def("torch_vector_norm", &torch_vector_norm, nb::arg("x"), nb::arg("out").noconvert(),
          nb::arg("ord"), nb::arg("dim"), nb::arg("keepdim"));
    m.def("torch_vector_norm_backward", &torch_vector_norm_backward, nb::arg("x"), nb::arg("y"),
          nb::arg("grad"), nb::arg("out").noconvert(), nb::arg("ord"), nb::arg("dim"),
          nb::arg("keepdim"));
    m.def("torch_normalize", &torch_normalize, nb::arg("x"), nb::arg("out").noconvert(),
          nb::arg("p"), nb::arg("dim"), nb::arg("eps"));
    m.def("torch_normalize_backward", &torch_normalize_backward, nb::arg("x"), nb::arg("grad"),
          nb::arg("out").noconvert(), nb::arg("p"), nb::arg("dim"), nb::arg("eps"));
    m.def("torch_lp_pool", &torch_lp_pool, nb::arg("spatial"), nb::arg("x"),
          nb::arg("out").noconvert(), nb::arg("norm_type"), nb::arg("kernel_size"),
          nb::arg("stride"), nb::arg("ceil_mode"));
    m.def("torch_lp_pool_backward", &torch_lp_pool_backward, nb::arg("spatial"), nb::arg("x"),
          nb::arg("y"), nb::arg("grad"), nb::arg("out").noconvert(), nb::arg("norm_type"),
          nb::arg("kernel_size"), nb::arg("stride"), nb::arg("ceil_mode"));
    m.def("info", &info);
    m.def("set_num_threads", &set_num_threads, nb::arg("n"));
    m.def("num_threads", &lpnorm::num_threads);
}
