"""lpnorm.normalize on numpy arrays against a long-double reference."""

import math
import zlib

import numpy as np
import pytest

import lpnorm
from reference import WIDE, assert_close, wide

FLOATS = ["float32", "float64", "float16"]


def normalize_ref(x, p, axes, eps=0.0, eps_mode="none"):
    """x / n per docs/semantics.md (Normalization), n from the max-scaled sum, in long double."""
    a = wide(x)
    m = np.abs(a).max(axis=axes, keepdims=True, initial=WIDE(0))
    safe = np.where(m == 0, WIDE(1), m)
    if p == math.inf:
        n = m
    else:
        n = safe * (np.abs(a / safe) ** WIDE(p)).sum(axis=axes, keepdims=True) ** WIDE(1 / p)
        n = np.where(m == 0, WIDE(0), n)
    if eps_mode == "norm_max":
        n = np.maximum(n, WIDE(eps))
    elif eps_mode == "sum_max":
        n = np.maximum(n, WIDE(eps) ** WIDE(1 / p))
    elif eps_mode == "sum_add":
        n = (n ** WIDE(p) + WIDE(eps)) ** WIDE(1 / p)
    zero = (m == 0) & ((eps_mode == "none") | (eps > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(zero, a * 0, a / n)


def random_array(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-8, 8, size=shape)
    x[rng.random(shape) < 0.15] = 0
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 2.5, math.inf])
@pytest.mark.parametrize("axes", [-1, 0, 1, (0, 2), (1, 2)])
@pytest.mark.parametrize("eps_mode,eps", [("none", 0.0), ("norm_max", 4.0), ("sum_add", 9.0),
                                          ("sum_max", 16.0)])
def test_every_mode(dtype, p, axes, eps_mode, eps):
    if p == math.inf and eps_mode in ("sum_add", "sum_max"):
        pytest.skip("p = inf has no sum of powers")
    x = random_array(dtype, (5, 37, 19), seed=zlib.crc32(f"{dtype} {p} {axes} {eps_mode}".encode()))
    y = lpnorm.normalize(x, p=p, axes=axes, eps=eps, eps_mode=eps_mode)
    assert isinstance(y, np.ndarray) and y.dtype == x.dtype and y.shape == x.shape
    ax = (axes,) if isinstance(axes, int) else axes
    assert_close(y, normalize_ref(x, p, ax, eps, eps_mode), dtype)


def test_onnx_default_and_zero_rows():
    x = np.array([[[1, 2, 2], [3, 4, 0]], [[0, 5, 5], [6, 8, 0]]], np.float32)
    y = lpnorm.normalize(x)
    want = x / np.sqrt((x.astype(np.float64) ** 2).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(y, want, rtol=1e-7)
    y0 = lpnorm.normalize(x, axes=0)
    assert y0[0, 1, 2] == 0 and y0[1, 1, 2] == 0


def test_overflow_safe_and_strided_out():
    x = np.full((4, 100), 1e30, np.float32)
    y = lpnorm.normalize(x[:, ::2])
    np.testing.assert_allclose(y, np.full((4, 50), 1 / math.sqrt(50)), rtol=1e-7)
    out = np.empty((4, 50), np.float32)
    assert lpnorm.normalize(x[:, ::2], out=out) is out


def test_errors_name_the_argument():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(lpnorm.Error, match="p = -1"):
        lpnorm.normalize(x, p=-1)
    with pytest.raises(lpnorm.Error, match="eps = -1"):
        lpnorm.normalize(x, eps=-1.0, eps_mode="norm_max")
    with pytest.raises(lpnorm.Error, match="eps_mode"):
        lpnorm.normalize(x, eps_mode="clamp")
    with pytest.raises(lpnorm.Error, match="axes"):
        lpnorm.normalize(x, axes=2)
    with pytest.raises(lpnorm.Error, match="int32"):
        lpnorm.normalize(np.ones((2, 3), np.int32))
