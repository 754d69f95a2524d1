"""lpnorm.reduce on numpy arrays against the long-double reference."""

import math
import zlib

import numpy as np
import pytest

import lpnorm
from reference import assert_close, reduce_ref

FLOATS = ["float32", "float64", "float16"]
INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
P_VALUES = [1.0, 2.0, 3.0, 4.0, 2.5, 0.5, math.inf, -math.inf, 0.0]


def random_array(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    x = rng.uniform(-8, 8, size=shape)
    x[rng.random(shape) < 0.15] = 0
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", P_VALUES)
@pytest.mark.parametrize("axes", [None, (0,), (1,), (2,), (0, 2), (1, 2), -1])
def test_floats_every_pattern(dtype, p, axes):
    x = random_array(dtype, (5, 37, 19), seed=zlib.crc32(f"{dtype} {p} {axes}".encode()))
    y = lpnorm.reduce(x, p=p, axes=axes)
    assert isinstance(y, np.ndarray) and y.dtype == x.dtype
    ax = tuple(range(3)) if axes is None else ((axes % 3,) if isinstance(axes, int) else axes)
    assert_close(y, reduce_ref(x, p, ax), dtype, p, magnitudes=x)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf, 0.0])
def test_integers_truncate_exactly(dtype, p):
    x = random_array(dtype, (6, 50), seed=7)
    y = lpnorm.reduce(x, p=p, axes=[1])
    assert y.dtype == x.dtype
    want = reduce_ref(x, p, (1,))
    # Computed in float64, then truncated toward zero and saturated: exact unless the norm
    # lies within a float64 rounding of an integer.
    floor = np.minimum(np.floor(want), np.iinfo(dtype).max)
    near_integer = np.abs(want - np.round(want)) < 1e-12 * np.maximum(want, 1)
    ok = (y.astype(np.float64) == floor.astype(np.float64)) | near_integer
    assert ok.all(), (y[~ok], want[~ok])


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes gives numpy its bfloat16")
    x = random_array("float32", (4, 300), seed=3).astype(ml_dtypes.bfloat16)
    y = lpnorm.reduce(x, p=2, axes=1)
    assert y.dtype == x.dtype and y.shape == (4,)
    assert_close(y, reduce_ref(x, 2.0, (1,)), "bfloat16")


def test_keepdims_and_empty_axes():
    x = random_array("float32", (3, 4, 5), seed=11)
    assert lpnorm.reduce(x, axes=[1], keepdims=True).shape == (3, 1, 5)
    assert lpnorm.reduce(x, axes=None, keepdims=True).shape == (1, 1, 1)
    assert lpnorm.reduce(x, axes=[]).shape == ()  # reduce_all, ONNX's default
    np.testing.assert_array_equal(lpnorm.reduce(x, axes=[], empty_axes="identity"), x)
    np.testing.assert_array_equal(lpnorm.reduce(x, p=3, axes=[], empty_axes="elementwise"), np.abs(x))


def test_range_beyond_float64_squares():
    # The squares of 1e200 overflow double; the norm does not (the range repair).
    x = np.array([[1e200, -2e200, 2e200], [1e-200, 2e-200, -2e-200]])
    y = lpnorm.reduce(x, p=2, axes=1)
    np.testing.assert_allclose(y, [3e200, 3e-200], rtol=1e-15)


def test_empty_and_scalar():
    assert lpnorm.reduce(np.zeros((0, 4), np.float32), axes=0).tolist() == [0, 0, 0, 0]
    assert float(lpnorm.reduce(np.array(-3.0), axes=[])) == 3.0
