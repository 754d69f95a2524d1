"""PyTorch operators backed by lpnorm's kernels, registered with torch.library.

``vector_norm`` follows ``torch.linalg.vector_norm``, ``lp_pool1d/2d/3d`` follow
``torch.nn.functional.lp_pool*d`` and ``normalize`` follows ``torch.nn.functional.normalize``,
PyTorch's semantics included (signed powers, the rescaled
overhang of ceil_mode windows; include/lpnorm/torch.h maps them). They are custom ops
(``torch.ops.lpnorm.*``) with fake implementations, so ``torch.compile(fullgraph=True)`` traces
them, and with autograd: ``vector_norm``'s and ``normalize``'s gradients are lpnorm's own
kernels (``torch.ops.lpnorm.vector_norm_backward`` and ``normalize_backward``, PyTorch's
formulas taken overflow-safe); ``lp_pool*d``'s through ``torch.ops.lpnorm.lp_pool_backward``
(lpnorm::pool_backward: a window whose output is 0 contributes 0 where PyTorch gives NaN).
CPU tensors; the output has the input's dtype.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Union

import torch

from . import _core

__all__ = ["vector_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d", "normalize"]


def _reduced_dims(rank: int, dim: Sequence[int]) -> List[int]:
    if not dim or rank == 0:
        return list(range(rank))
    return sorted({d % rank for d in dim})


def _norm_shape(shape: Sequence[int], dim: Sequence[int], keepdim: bool) -> List[int]:
    reduced = set(_reduced_dims(len(shape), dim))
    return [1 if i in reduced else s for i, s in enumerate(shape) if keepdim or i not in reduced]


def _negative_order(ord: float) -> bool:
    return ord < 0 and ord != -math.inf


@torch.library.custom_op("lpnorm::vector_norm", mutates_args=())
def _vector_norm(x: torch.Tensor, ord: float, dim: List[int], keepdim: bool) -> torch.Tensor:
    out = x.new_empty(_norm_shape(x.shape, dim, keepdim))
    if _negative_order(ord) and x.is_floating_point():
        # (sum |x|^ord)^(1/ord) = 1 / ||1 / |x|||_(-ord): lpnorm's kernel on the reciprocals,
        # taken in float64 (1 / |x| of every narrower float is in range; 1 / 0 = inf gives 0).
        reciprocals = x.to(torch.float64).abs().reciprocal()
        norm = reciprocals.new_empty(out.shape)
        _core.torch_vector_norm(reciprocals, norm, -ord, dim, keepdim)
        out.copy_(norm.reciprocal())
        return out
    _core.torch_vector_norm(x, out, ord, dim, keepdim)
    return out


@_vector_norm.register_fake
def _(x, ord, dim, keepdim):
    return x.new_empty(_norm_shape(x.shape, dim, keepdim))


def _vector_norm_setup(ctx, inputs, output):
    x, ord, dim, keepdim = inputs
    ctx.save_for_backward(x, output)
    ctx.ord, ctx.dim, ctx.keepdim = ord, dim, keepdim


def _negative_order_grad(x, y, grad, ord, dim, keepdim):
    # PyTorch's formula, sgn(x) |x|^(ord-1) y^(1-ord) dy, as sgn(x) (|x| / y)^(ord-1) dy: |x| / y
    # >= 1 for ord < 0, so no power overflows; 0 where y = 0 (some x is 0), as PyTorch.
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    if not keepdim:
        for d in _reduced_dims(x.dim(), dim):
            y, grad = y.unsqueeze(d), grad.unsqueeze(d)
    x, y, grad = x.to(wide), y.to(wide), grad.to(wide)
    dx = torch.sign(x) * (x.abs() / y).pow(ord - 1) * grad
    return torch.where(y == 0, torch.zeros_like(dx), dx)


def _vector_norm_backward(ctx, grad):
    # lpnorm's gradient kernels (lpnorm::reduce_backward): PyTorch's formulas, overflow-safe.
    x, y = ctx.saved_tensors
    if _negative_order(ctx.ord):
        dx = _negative_order_grad(x, y, grad, ctx.ord, ctx.dim, ctx.keepdim)
        return dx.to(x.dtype), None, None, None
    return _vector_norm_grad(x, y, grad.contiguous(), ctx.ord, ctx.dim, ctx.keepdim), None, None, None


@torch.library.custom_op("lpnorm::vector_norm_backward", mutates_args=())
def _vector_norm_grad(x: torch.Tensor, y: torch.Tensor, grad: torch.Tensor, ord: float,
                      dim: List[int], keepdim: bool) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _core.torch_vector_norm_backward(x, y, grad, out, ord, dim, keepdim)
    return out


@_vector_norm_grad.register_fake
def _(x, y, grad, ord, dim, keepdim):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


_vector_norm.register_autograd(_vector_norm_backward, setup_context=_vector_norm_setup)


def _expand(values: Sequence[int], k: int) -> List[int]:
    return list(values) * k if len(values) == 1 else list(values)


def _pool_shape(shape: Sequence[int], spatial: int, kernel_size: List[int], stride: List[int],
                ceil_mode: bool) -> List[int]:
    kernel = _expand(kernel_size, spatial)
    steps = _expand(stride or kernel_size, spatial)
    out = list(shape[: len(shape) - spatial])
    for size, k, s in zip(shape[len(shape) - spatial:], kernel, steps):
        k, s = max(k, 1), max(s, 1)
        n = (size - k + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (n - 1) * s >= size:
            n -= 1
        out.append(max(n, 0))
    return out


@torch.library.custom_op("lpnorm::lp_pool", mutates_args=())
def _lp_pool(x: torch.Tensor, spatial: int, norm_type: float, kernel_size: List[int],
             stride: List[int], ceil_mode: bool) -> torch.Tensor:
    out = x.new_empty(_pool_shape(x.shape, spatial, kernel_size, stride, ceil_mode))
    _core.torch_lp_pool(spatial, x, out, norm_type, kernel_size, stride, ceil_mode)
    return out


@_lp_pool.register_fake
def _(x, spatial, norm_type, kernel_size, stride, ceil_mode):
    return x.new_empty(_pool_shape(x.shape, spatial, kernel_size, stride, ceil_mode))


def _lp_pool_setup(ctx, inputs, output):
    x, spatial, norm_type, kernel_size, stride, ceil_mode = inputs
    ctx.save_for_backward(x, output)
    ctx.args = (spatial, norm_type, kernel_size, stride, ceil_mode)


def _lp_pool_backward(ctx, grad):
    # lpnorm's gradient kernels (lpnorm::pool_backward): torch's formula, differentiated as a
    # gather over the windows.
    x, y = ctx.saved_tensors
    return (torch.ops.lpnorm.lp_pool_backward(x, y, grad.contiguous(), *ctx.args),
            None, None, None, None, None)


@torch.library.custom_op("lpnorm::lp_pool_backward", mutates_args=())
def _lp_pool_grad(x: torch.Tensor, y: torch.Tensor, grad: torch.Tensor, spatial: int,
                  norm_type: float, kernel_size: List[int], stride: List[int],
                  ceil_mode: bool) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _core.torch_lp_pool_backward(spatial, x, y, grad, out, norm_type, kernel_size, stride,
                                 ceil_mode)
    return out


@_lp_pool_grad.register_fake
def _(x, y, grad, spatial, norm_type, kernel_size, stride, ceil_mode):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


_lp_pool.register_autograd(_lp_pool_backward, setup_context=_lp_pool_setup)


@torch.library.custom_op("lpnorm::normalize", mutates_args=())
def _normalize(x: torch.Tensor, p: float, dim: List[int], eps: float) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _core.torch_normalize(x, out, p, dim, eps)
    return out


@_normalize.register_fake
def _(x, p, dim, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _normalize_setup(ctx, inputs, output):
    x, p, dim, eps = inputs
    ctx.save_for_backward(x)
    ctx.args = (p, dim, eps)


def _normalize_backward(ctx, grad):
    # lpnorm's gradient kernels (lpnorm::normalize_backward): PyTorch's autograd of
    # x / max(norm, eps), overflow-safe.
    (x,) = ctx.saved_tensors
    p, dim, eps = ctx.args
    return _normalize_grad(x, grad.contiguous(), p, dim, eps), None, None, None


@torch.library.custom_op("lpnorm::normalize_backward", mutates_args=())
def _normalize_grad(x: torch.Tensor, grad: torch.Tensor, p: float, dim: List[int],
                    eps: float) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _core.torch_normalize_backward(x, grad, out, p, dim, eps)
    return out


@_normalize_grad.register_fake
def _(x, grad, p, dim, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


_normalize.register_autograd(_normalize_backward, setup_context=_normalize_setup)


def _int_list(v: Union[None, int, Sequence[int]]) -> List[int]:
    if v is None:
        return []
    if isinstance(v, int):
        return [v]
    return [int(e) for e in v]


def _copied_into(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """`out` holding y, as PyTorch's out= arguments: written in place, not differentiable."""
    with torch.no_grad():
        return out.copy_(y)


def vector_norm(x: torch.Tensor, ord: float = 2, dim: Union[None, int, Sequence[int]] = None,
                keepdim: bool = False, *, dtype: Optional[torch.dtype] = None,
                out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """torch.linalg.vector_norm(x, ord, dim, keepdim, dtype=, out=), in x's dtype (float32,
    float64, float16, bfloat16), or in `dtype`, x being converted to it first as PyTorch does.
    Every ord PyTorch takes: > 0, 0, inf, -inf, and negative ord as 1 / ||1 / |x|||_(-ord) (the
    reciprocals in float64: one more pass; float64 |x| above 2^1022 or subnormal lose precision
    there). With `out` the result is copied into it (not differentiable)."""
    if dtype is not None:
        x = x.to(dtype)
    dims = _int_list(dim)
    if _negative_order(float(ord)):
        for d in _reduced_dims(x.dim(), dims):
            if x.shape[d] == 0:
                raise _core.Error(f"linalg.vector_norm cannot compute the {ord} norm on the "
                                  f"dimension {d}: it is empty and the norm has no identity")
    y = _vector_norm(x, float(ord), dims, bool(keepdim))
    return y if out is None else _copied_into(out, y)


def lp_pool1d(x: torch.Tensor, norm_type: float, kernel_size: Union[int, Sequence[int]],
              stride: Optional[Union[int, Sequence[int]]] = None,
              ceil_mode: bool = False) -> torch.Tensor:
    """torch.nn.functional.lp_pool1d: (N, C, L) or (C, L); norm_type finite and > 0."""
    return _lp_pool(x, 1, float(norm_type), _int_list(kernel_size), _int_list(stride), bool(ceil_mode))


def lp_pool2d(x: torch.Tensor, norm_type: float, kernel_size: Union[int, Sequence[int]],
              stride: Optional[Union[int, Sequence[int]]] = None,
              ceil_mode: bool = False) -> torch.Tensor:
    """torch.nn.functional.lp_pool2d: (N, C, H, W) or (C, H, W); norm_type finite and > 0."""
    return _lp_pool(x, 2, float(norm_type), _int_list(kernel_size), _int_list(stride), bool(ceil_mode))


def lp_pool3d(x: torch.Tensor, norm_type: float, kernel_size: Union[int, Sequence[int]],
              stride: Optional[Union[int, Sequence[int]]] = None,
              ceil_mode: bool = False) -> torch.Tensor:
    """torch.nn.functional.lp_pool3d: (N, C, D, H, W) or (C, D, H, W); norm_type finite and
    > 0."""
    return _lp_pool(x, 3, float(norm_type), _int_list(kernel_size), _int_list(stride), bool(ceil_mode))


def normalize(x: torch.Tensor, p: float = 2.0, dim: Union[int, Sequence[int]] = 1,
              eps: float = 1e-12, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """torch.nn.functional.normalize: x / max(||x||_p, eps) along `dim` (an int or a tuple of
    ints), in x's dtype (float32, float64, float16, bfloat16); p > 0 or inf. Unlike PyTorch's
    float16 version, eps is taken in float32 there (PyTorch rounds eps = 1e-12 to 0 and gives
    NaN on an all-zero row; lpnorm gives 0). With `out`, as PyTorch: the result is copied into
    it and is not differentiable."""
    y = _normalize(x, float(p), _int_list(dim), float(eps))
    return y if out is None else _copied_into(out, y)
