"""lpnorm: Lp-norm reductions and Lp pooling on numpy arrays and PyTorch tensors.

The kernels are lpnorm's C++ library (Halide-generated, ahead-of-time compiled). Arrays are
read and written in place through DLPack or the buffer protocol: any strides, no copies.
Results have the input's dtype and array type (numpy in, numpy out; torch in, torch out).
Every error is an :class:`Error` carrying the library's message, raised before anything is
written. The GIL is released while a kernel runs.
"""

from __future__ import annotations

import operator
import os
import sys
from typing import Any, Optional, Sequence, Union

import numpy
from numpy import ndarray as _ndarray

from . import _core
from ._core import Error

__all__ = ["Error", "reduce", "pool", "pool_backward", "normalize", "info", "set_num_threads", "num_threads",
           "openvino_extension"]

_EMPTY_AXES = {"identity": 0, "reduce_all": 1, "elementwise": 2}
_AUTO_PAD = {"NOTSET": 0, "SAME_UPPER": 1, "SAME_LOWER": 2, "VALID": 3}
_MODE = {"abs": 0, "signed": 1}
_OVERHANG = {"sum": 0, "rescale": 1}
_EPS_MODE = {"none": 0, "norm_max": 1, "sum_add": 2, "sum_max": 3}


def _choice(name: str, value: Any, table: dict) -> int:
    if not isinstance(value, str) or value not in table:
        options = ", ".join(repr(k) for k in table)
        raise Error(f"{name} = {value!r} is not one of {options}")
    return table[value]


def _int(name: str, value: Any) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise Error(f"{name} = {value!r} is not an integer") from None


def _ints(name: str, values: Any) -> list:
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        return [_int(name, values)]
    return [_int(f"{name}[{i}]", v) for i, v in enumerate(values)]


def _float(name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise Error(f"{name} = {value!r} is not a number") from None


def _plain_ints(values: Any) -> bool:
    return values is None or (type(values) in (list, tuple) and all(type(v) is int for v in values))


def _plain_choice(value: Any, table: dict) -> bool:
    return type(value) is str and value in table


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _numpy_bfloat16(x: Any) -> bool:
    # ml_dtypes' types are numpy's kind "V"; the name is only asked of those (it is slow).
    dtype = getattr(x, "dtype", None)
    return getattr(dtype, "kind", None) == "V" and dtype.name == "bfloat16"


def _kernel_view(x: Any, name: str):
    """The object handed to the extension, and the dtype name that overrides its own."""
    if _is_torch(x):
        return x.detach(), ""
    if _numpy_bfloat16(x):
        # ml_dtypes' bfloat16 has no DLPack code: the same bytes as uint16, named.
        return x.view("uint16"), "bfloat16"
    if not hasattr(x, "__dlpack__") and not hasattr(x, "__array_interface__"):
        try:
            memoryview(x)
        except TypeError:
            raise Error(f"{name} of type {type(x).__name__} is not an array "
                        "(DLPack or buffer protocol)") from None
    return x, ""


def _shape(x: Any, name: str) -> list:
    shape = getattr(x, "shape", None)
    if shape is None:
        raise Error(f"{name} of type {type(x).__name__} is not an array (it has no shape)")
    return list(shape)


def _empty_like(x: Any, shape: Sequence[int]):
    if _is_torch(x):
        import torch

        return torch.empty(tuple(shape), dtype=x.dtype, device=x.device)
    return numpy.empty(tuple(shape), dtype=x.dtype)


def _output(x: Any, shape: list, out: Any):
    if out is None:
        return _empty_like(x, shape)
    flags = getattr(out, "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        raise Error("out is read-only")
    if _is_torch(out) and out.requires_grad:
        raise Error("out requires grad: lpnorm writes it in place")
    if getattr(out, "dtype", None) != x.dtype:
        raise Error(f"out.dtype = {getattr(out, 'dtype', None)} differs from x.dtype = {x.dtype}")
    return out


def reduce(x: Any, p: float = 2.0, axes: Union[None, int, Sequence[int]] = None,
           keepdims: bool = False, empty_axes: str = "reduce_all", out: Any = None):
    """(sum over `axes` of |x|^p)^(1/p).

    p: any real p > 0, inf (max |x|), -inf (min |x|) or 0 (count of non-zeros).
    axes: None for every axis; an int or a sequence of ints in [-ndim, ndim).
    empty_axes: what ``axes=[]`` means: "reduce_all" (ONNX), "identity" (OpenVINO: y = x) or
    "elementwise" (ONNX-18 noop_with_empty_axes: y = |x|).
    Accumulation: float16/bfloat16 in float32, float32/float64/integers in float64; integer
    results truncated toward zero and saturated. ``out``: a preallocated dense output of the
    result's shape and x's dtype.
    """
    if type(axes) is int:
        axes = [axes]
    if (type(x) is _ndarray and x.dtype.kind in "fiu" and type(p) in (float, int)
            and type(axes) in (list, tuple) and all(type(a) is int for a in axes)
            and type(empty_axes) is str and empty_axes in _EMPTY_AXES
            and (out is None or type(out) is _ndarray and out.dtype == x.dtype and out.flags.writeable)):
        # The common call, a numpy array with plain arguments: no conversions to make. (About
        # 2 us less per call than the general path, a third of a small reduction's time.)
        keepdims, empty = bool(keepdims), _EMPTY_AXES[empty_axes]
        if out is None:
            out = _ndarray(_core.reduce_output_shape(x.shape, axes, p, keepdims, empty), x.dtype)
        _core.reduce(x, out, "", axes, p, keepdims, empty)
        return out
    shape = _shape(x, "x")
    axes_list = list(range(len(shape))) if axes is None else _ints("axes", axes)
    p = _float("p", p)
    keepdims = bool(keepdims)
    empty = _choice("empty_axes", empty_axes, _EMPTY_AXES)
    out_shape = _core.reduce_output_shape(shape, axes_list, p, keepdims, empty)
    view, dtype = _kernel_view(x, "x")
    y = _output(x, out_shape, out)
    out_view, _ = _kernel_view(y, "out")
    _core.reduce(view, out_view, dtype, axes_list, p, keepdims, empty)
    return y


def pool(x: Any, p: float, kernel: Sequence[int], strides: Optional[Sequence[int]] = None,
         pads: Optional[Sequence[int]] = None, dilations: Optional[Sequence[int]] = None,
         auto_pad: str = "NOTSET", ceil_mode: bool = False, mode: str = "abs",
         overhang: str = "sum", out: Any = None):
    """Lp pooling over the spatial dims of an (N, C, D1[, D2[, D3]]) array.

    y[n, c, o] = (sum over the taps of window o inside the input of |x|^p)^(1/p), ONNX LpPool.
    kernel: the window, one int per spatial dim (1 to 3). strides, dilations: per spatial dim,
    default 1. pads: ONNX order (every begin, then every end), default 0; used with
    auto_pad="NOTSET" ("SAME_UPPER", "SAME_LOWER", "VALID" choose them). ceil_mode: output
    sizes by ceiling. mode: "abs" raises |x| (ONNX) or "signed" raises x itself (PyTorch's
    lp_pool). overhang: "sum" (ONNX Runtime) or "rescale" (PyTorch: times K / taps inside
    input and pads). dtypes float32, float64, float16, bfloat16.
    """
    if (type(x) is _ndarray and type(p) in (float, int) and type(kernel) in (list, tuple)
            and all(_plain_ints(v) for v in (kernel, strides, pads, dilations))
            and _plain_choice(auto_pad, _AUTO_PAD) and _plain_choice(mode, _MODE)
            and _plain_choice(overhang, _OVERHANG)
            and (out is None or type(out) is _ndarray and out.dtype == x.dtype and out.flags.writeable)
            and x.dtype.kind == "f"):
        # The common call, as in reduce(): 17 of 148 us on [1,512,14,14] went to the general
        # path's conversions.
        args = (kernel, strides or [], pads or [], dilations or [], _AUTO_PAD[auto_pad],
                bool(ceil_mode), p, _MODE[mode], _OVERHANG[overhang])
        if out is None:
            out = _ndarray(_core.pool_output_shape(x.shape, *args), x.dtype)
        _core.pool(x, out, "", *args)
        return out
    shape = _shape(x, "x")
    kernel_list = _ints("kernel", kernel)
    args = (kernel_list, _ints("strides", strides), _ints("pads", pads),
            _ints("dilations", dilations), _choice("auto_pad", auto_pad, _AUTO_PAD),
            bool(ceil_mode), _float("p", p), _choice("mode", mode, _MODE),
            _choice("overhang", overhang, _OVERHANG))
    out_shape = _core.pool_output_shape(shape, *args)
    view, dtype = _kernel_view(x, "x")
    y = _output(x, out_shape, out)
    out_view, _ = _kernel_view(y, "out")
    _core.pool(view, out_view, dtype, *args)
    return y


def pool_backward(x: Any, y: Any, dy: Any, p: float, kernel: Sequence[int],
                  strides: Optional[Sequence[int]] = None, pads: Optional[Sequence[int]] = None,
                  dilations: Optional[Sequence[int]] = None, auto_pad: str = "NOTSET",
                  ceil_mode: bool = False, mode: str = "abs", overhang: str = "sum",
                  out: Any = None):
    """The gradient of pool(): dx from pool's input x, its output y and the gradient dy of y,
    with pool's attributes (lpnorm::pool_backward). The result has x's shape and dtype."""
    args = (_ints("kernel", kernel), _ints("strides", strides), _ints("pads", pads),
            _ints("dilations", dilations), _choice("auto_pad", auto_pad, _AUTO_PAD),
            bool(ceil_mode), _float("p", p), _choice("mode", mode, _MODE),
            _choice("overhang", overhang, _OVERHANG))
    view, dtype = _kernel_view(x, "x")
    y_view, _ = _kernel_view(y, "y")
    dy_view, _ = _kernel_view(dy, "dy")
    dx = _output(x, _shape(x, "x"), out)
    out_view, _ = _kernel_view(dx, "out")
    _core.pool_backward(view, y_view, dy_view, out_view, dtype, *args)
    return dx


def normalize(x: Any, p: float = 2.0, axes: Union[int, Sequence[int]] = -1, eps: float = 0.0,
              eps_mode: str = "none", out: Any = None):
    """x / ||x||_p over `axes`, broadcast back: the result has x's shape and dtype.

    p: any real p > 0, or inf (max |x|). axes: an int or a sequence of ints in [-ndim, ndim);
    an empty sequence makes every element its own group. eps_mode: "none" (ONNX
    LpNormalization: 0 where the norm is 0), "norm_max" (x / max(n, eps): PyTorch F.normalize,
    DirectML), "sum_add" (x / (S + eps)^(1/p)) or "sum_max" (x / max(S, eps)^(1/p)), S = n^p
    (OpenVINO NormalizeL2). eps: finite, >= 0, applied in float32 (16-bit inputs) or float64.
    dtypes float32, float64, float16, bfloat16.
    """
    axes_list = [axes] if type(axes) is int else _ints("axes", axes)
    args = (axes_list, _float("p", p), _float("eps", eps), _choice("eps_mode", eps_mode, _EPS_MODE))
    view, dtype = _kernel_view(x, "x")
    y = _output(x, _shape(x, "x"), out)
    out_view, _ = _kernel_view(y, "out")
    _core.normalize(view, out_view, dtype, *args)
    return y


def info() -> dict:
    """Version, ISAs (detected and active), threads, backends and the compiled kernels."""
    return _core.info()


def set_num_threads(n: int) -> None:
    """Threads a kernel runs on, the caller's included; 0 means one per core."""
    _core.set_num_threads(_int("n", n))


def num_threads() -> int:
    """Threads kernels run on: the count set by set_num_threads, else one per core."""
    return _core.num_threads()


def openvino_extension() -> str:
    """Path of lpnorm's OpenVINO extension library, for ``openvino.Core().add_extension(path)``.

    The library beside this package when it was built or installed with it (CMake options
    LPNORM_BUILD_OPENVINO and LPNORM_BUILD_PYTHON), else the path in the environment variable
    LPNORM_OPENVINO_EXTENSION. Raises :class:`Error` when neither names an existing file.
    """
    name = {"win32": "lpnorm_openvino.dll", "darwin": "liblpnorm_openvino.dylib"}.get(
        sys.platform, "liblpnorm_openvino.so")
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    if os.path.isfile(beside):
        return beside
    path = os.environ.get("LPNORM_OPENVINO_EXTENSION")
    if path:
        if not os.path.isfile(path):
            raise Error(f"LPNORM_OPENVINO_EXTENSION = {path!r} is not a file")
        return path
    raise Error(f"lpnorm's OpenVINO extension is not installed: {name} is not beside the "
                "package and LPNORM_OPENVINO_EXTENSION is not set. Build it with CMake "
                "(-DLPNORM_BUILD_OPENVINO=ON -DOpenVINO_DIR=<site-packages>/openvino/cmake) "
                "and set LPNORM_OPENVINO_EXTENSION=<build>/openvino/" + name)
