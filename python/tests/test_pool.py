"""lpnorm.pool on numpy arrays against the long-double reference."""

import numpy as np
import pytest

import lpnorm
from reference import assert_close, pool_ref

CASES = [
    # (shape, kernel, strides, pads, dilations, ceil_mode)
    ((2, 3, 17), [3], [2], [1, 1], None, False),
    ((2, 3, 17), [4], [3], [0, 2], [2], True),
    ((2, 3, 11, 13), [2, 2], [2, 2], None, None, False),
    ((2, 3, 11, 13), [3, 3], [1, 1], [1, 1, 1, 1], None, False),
    ((1, 4, 9, 10), [3, 2], [2, 3], [1, 0, 2, 1], [2, 1], True),
    ((2, 2, 5, 6, 7), [2, 2, 2], [2, 2, 2], None, None, False),
    ((1, 2, 6, 5, 7), [3, 2, 3], [1, 2, 2], [1, 0, 1, 1, 1, 0], None, True),
]


def random_array(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, size=shape)
    x[rng.random(shape) < 0.1] = 0
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 4.0, 2.5])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_abs_mode(dtype, p, case):
    shape, kernel, strides, pads, dilations, ceil_mode = CASES[case]
    x = random_array(dtype, shape, seed=case)
    y = lpnorm.pool(x, p, kernel, strides=strides, pads=pads, dilations=dilations,
                    ceil_mode=ceil_mode)
    assert isinstance(y, np.ndarray) and y.dtype == x.dtype
    want = pool_ref(x, p, kernel, strides, pads, dilations, ceil_mode)
    assert_close(y, want, dtype, p, magnitudes=x)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("case", [1, 4, 6])
def test_signed_mode_rescaled_overhang(p, case):
    # PyTorch's lp_pool: x^p without |.|, and the overhang rescaled (avg_pool's divisor).
    # Positive inputs for p = 1 and 3 keep every window sum positive.
    shape, kernel, strides, pads, dilations, ceil_mode = CASES[case]
    x = random_array("float64", shape, seed=case)
    if p != 2:
        x = np.abs(x)
    y = lpnorm.pool(x, p, kernel, strides=strides, pads=pads, dilations=dilations,
                    ceil_mode=ceil_mode, mode="signed", overhang="rescale")
    want = pool_ref(x, p, kernel, strides, pads, dilations, ceil_mode, mode="signed",
                    overhang="rescale")
    assert_close(y, want, "float64", p)


def test_auto_pad_same_upper_matches_explicit_pads():
    x = random_array("float32", (1, 2, 10, 9), seed=5)
    # SAME_UPPER, kernel 3, stride 2: out = ceil(in / 2); total pad 1 (rows), 2 (cols),
    # the odd pixel at the end.
    y = lpnorm.pool(x, 2, [3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
    want = lpnorm.pool(x, 2, [3, 3], strides=[2, 2], pads=[0, 1, 1, 1])
    np.testing.assert_array_equal(y, want)
    assert y.shape == (1, 2, 5, 5)


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes gives numpy its bfloat16")
    x = random_array("float32", (1, 2, 8, 8), seed=9).astype(ml_dtypes.bfloat16)
    y = lpnorm.pool(x, 2, [2, 2], strides=[2, 2])
    assert y.dtype == x.dtype and y.shape == (1, 2, 4, 4)
    assert_close(y, pool_ref(x, 2.0, [2, 2], [2, 2]), "bfloat16")


def test_windows_wholly_in_padding_give_zero():
    x = np.arange(1, 5, dtype=np.float64).reshape(1, 1, 4)
    y = lpnorm.pool(x, 2, [2], pads=[0, 3], dilations=[2])
    np.testing.assert_allclose(y[0, 0], [np.hypot(1, 3), np.hypot(2, 4), 3, 4, 0], rtol=1e-15)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 2.5])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_pool_backward_is_the_derivative(p, case):
    # Central differences of sum(dy * pool(x)) in float64, away from zeros (abs mode).
    shape, kernel, strides, pads, dilations, ceil_mode = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.uniform(0.5, 4, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    kw = dict(strides=strides, pads=pads, dilations=dilations, ceil_mode=ceil_mode)
    y = lpnorm.pool(x, p, kernel, **kw)
    dy = rng.uniform(-1, 1, size=y.shape)
    dx = lpnorm.pool_backward(x, y, dy, p, kernel, **kw)
    assert dx.shape == x.shape and dx.dtype == x.dtype
    flat = x.reshape(-1)
    numeric = np.empty(flat.size)
    for i in range(flat.size):
        h = 1e-6 * abs(flat[i])
        plus, minus = flat.copy(), flat.copy()
        plus[i] += h
        minus[i] -= h
        numeric[i] = ((lpnorm.pool(plus.reshape(shape), p, kernel, **kw) * dy).sum()
                      - (lpnorm.pool(minus.reshape(shape), p, kernel, **kw) * dy).sum()) / (2 * h)
    np.testing.assert_allclose(dx.reshape(-1), numeric, rtol=0, atol=1e-6 * (abs(dx).max() + 1))


def test_pool_backward_errors_name_the_argument():
    x = np.ones((1, 2, 4, 4), dtype=np.float32)
    y = lpnorm.pool(x, 2.0, [2, 2], strides=[2, 2])
    with pytest.raises(lpnorm.Error, match="output_grad.shape"):
        lpnorm.pool_backward(x, y, np.ones((1, 2, 3, 3), np.float32), 2.0, [2, 2], strides=[2, 2])
