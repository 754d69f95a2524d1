"""lpnorm on PyTorch tensors, and lpnorm.torch against PyTorch's own ops: values, gradients,
gradcheck in float64, torch.compile(fullgraph=True)."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed in this environment")

import lpnorm  # noqa: E402
import lpnorm.torch as lt  # noqa: E402
from reference import assert_close, pool_ref, reduce_ref  # noqa: E402

DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
          torch.bfloat16: "bfloat16"}


def randn(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def as_numpy(t):
    return t.detach().to(torch.float64).numpy()


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_generic_api_keeps_the_array_type(dtype):
    x = randn(3, 40, 7, dtype=dtype)
    y = lpnorm.reduce(x, 2, axes=1)
    assert isinstance(y, torch.Tensor) and y.dtype == dtype and y.shape == (3, 7)
    assert_close(as_numpy(y), reduce_ref(as_numpy(x), 2.0, (1,)), DTYPES[dtype])
    strided = x[:, ::3, :].transpose(0, 2)  # a view, read in place
    assert_close(as_numpy(lpnorm.reduce(strided, 3, axes=[1])),
                 reduce_ref(as_numpy(strided), 3.0, (1,)), DTYPES[dtype])
    pooled = lpnorm.pool(x.reshape(3, 1, 280), 2, [4], strides=[3])
    assert isinstance(pooled, torch.Tensor) and pooled.dtype == dtype
    assert_close(as_numpy(pooled), pool_ref(as_numpy(x.reshape(3, 1, 280)), 2.0, [4], [3]),
                 DTYPES[dtype])


def test_generic_api_errors_and_grad_inputs():
    x = randn(4, 5, dtype=torch.float32).requires_grad_()
    assert lpnorm.reduce(x, 2, axes=1).shape == (4,)  # read through a detached view
    with pytest.raises(lpnorm.Error, match="out requires grad"):
        lpnorm.reduce(x, 2, axes=1, out=torch.zeros(4, requires_grad=True))


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 1.5, 4, math.inf, -math.inf, 0])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_vector_norm_matches_torch(ord, dim, keepdim):
    x = randn(4, 6, 5, dtype=torch.float64, seed=3)
    x[0, 0, 0] = 0
    mine = lt.vector_norm(x, ord, dim, keepdim)
    theirs = torch.linalg.vector_norm(x, ord, dim, keepdim)
    torch.testing.assert_close(mine, theirs, rtol=1e-14, atol=0)
    if ord in (math.inf, -math.inf, 0):
        return  # gradients at ties and of a count: compared below where defined
    xa = x.clone().requires_grad_()
    xb = x.clone().requires_grad_()
    g = randn(*theirs.shape, dtype=torch.float64, seed=4)
    (lt.vector_norm(xa, ord, dim, keepdim) * g).sum().backward()
    (torch.linalg.vector_norm(xb, ord, dim, keepdim) * g).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype, rtol", [(torch.float32, 1e-5), (torch.float64, 1e-10)])
@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 1.5, 4, 7, math.inf, -math.inf, 0])
def test_vector_norm_gradient_is_torch_autograd(dtype, rtol, ord):
    # lpnorm's gradient kernel against PyTorch's autograd, zeros and ties included.
    x = randn(5, 7, 6, dtype=dtype, seed=8)
    x[0, 0, :] = 0
    x[1, 2, 3], x[1, 2, 4] = 10, -10  # a tie of the largest |x|
    x[2, 1, 0], x[2, 1, 5] = 1e-3, -1e-3
    for dim, keepdim in [(None, False), (1, False), ((0, 2), True), (-1, False)]:
        xa = x.clone().requires_grad_()
        xb = x.clone().requires_grad_()
        theirs = torch.linalg.vector_norm(xb, ord, dim, keepdim)
        g = randn(*theirs.shape, dtype=dtype, seed=9)
        (lt.vector_norm(xa, ord, dim, keepdim) * g).sum().backward()
        (theirs * g).sum().backward()
        want = xb.grad if xb.grad is not None else torch.zeros_like(x)  # ord = 0: no gradient
        scale = want.abs().max().item()
        torch.testing.assert_close(xa.grad, want, rtol=rtol, atol=rtol * scale)


def test_vector_norm_gradient_where_the_powers_overflow():
    # x^(p-1) and y^(p-1) overflow float64 here; the gradient, 2^(-2/3) each, does not.
    x = torch.tensor([1e200, -1e200], dtype=torch.float64, requires_grad=True)
    y = lt.vector_norm(x, 3)
    y.backward()
    expected = 2 ** (-2 / 3)
    torch.testing.assert_close(x.grad, torch.tensor([expected, -expected], dtype=torch.float64))


def test_vector_norm_gradcheck():
    x = randn(3, 5, dtype=torch.float64, seed=5).requires_grad_()
    for ord in [2, 3, 1.5, math.inf]:
        assert torch.autograd.gradcheck(lambda t: lt.vector_norm(t, ord, 1), (x,))


def test_vector_norm_errors_follow_torch():
    with pytest.raises(lpnorm.Error, match="Expected a floating point"):
        lt.vector_norm(torch.arange(4), 2)
    with pytest.raises(lpnorm.Error, match="Expected a floating point"):
        lt.vector_norm(torch.arange(4), -1)
    with pytest.raises(lpnorm.Error, match="does not have an identity"):
        lt.vector_norm(torch.zeros(0, 3), math.inf, 0)
    with pytest.raises(lpnorm.Error, match="the -2 norm on the dimension 0"):
        lt.vector_norm(torch.zeros(0, 3), -2, 0)


POOL_CASES = [
    (1, (2, 3, 17), 3, None, False),
    (1, (3, 17), 4, 3, True),          # unbatched
    (2, (2, 3, 11, 13), 2, 2, False),
    (2, (2, 3, 11, 13), (3, 2), (2, 3), True),
    (3, (1, 2, 7, 6, 9), 2, None, True),
    (3, (2, 5, 6, 7), (2, 3, 2), (1, 2, 2), False),
]


@pytest.mark.parametrize("case", range(len(POOL_CASES)))
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, 1.5])
def test_lp_pool_matches_torch(case, norm_type):
    k, shape, kernel, stride, ceil_mode = POOL_CASES[case]
    ours = {1: lt.lp_pool1d, 2: lt.lp_pool2d, 3: lt.lp_pool3d}[k]
    theirs = {1: torch.nn.functional.lp_pool1d, 2: torch.nn.functional.lp_pool2d,
              3: torch.nn.functional.lp_pool3d}[k]
    x = randn(*shape, dtype=torch.float64, seed=case)
    if norm_type != 2:
        x = x.abs() + 0.1  # non-integer and odd p need non-negative window sums (else NaN)
    xa = x.clone().requires_grad_()
    xb = x.clone().requires_grad_()
    ya = ours(xa, norm_type, kernel, stride, ceil_mode)
    yb = theirs(xb, norm_type, kernel, stride, ceil_mode)
    torch.testing.assert_close(ya, yb, rtol=1e-13, atol=0)
    g = randn(*yb.shape, dtype=torch.float64, seed=9)
    (ya * g).sum().backward()
    (yb * g).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype, rtol", [(torch.float32, 1e-5), (torch.float64, 1e-10)])
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, 4.0, 7.0, 1.5, 0.5])
def test_lp_pool_gradient_is_torch_autograd(dtype, rtol, norm_type):
    # lpnorm's pooling gradient kernel against PyTorch's autograd of its lp_pool formula, on
    # every case: signed values where x^p keeps them differentiable (even p), else positive.
    for case, (k, shape, kernel, stride, ceil_mode) in enumerate(POOL_CASES):
        ours = {1: lt.lp_pool1d, 2: lt.lp_pool2d, 3: lt.lp_pool3d}[k]
        theirs = {1: torch.nn.functional.lp_pool1d, 2: torch.nn.functional.lp_pool2d,
                  3: torch.nn.functional.lp_pool3d}[k]
        x = randn(*shape, dtype=dtype, seed=20 + case)
        if norm_type not in (2.0, 4.0):
            x = x.abs() + 0.1
        xa = x.clone().requires_grad_()
        xb = x.clone().requires_grad_()
        yb = theirs(xb, norm_type, kernel, stride, ceil_mode)
        g = randn(*yb.shape, dtype=dtype, seed=30 + case)
        (ours(xa, norm_type, kernel, stride, ceil_mode) * g).sum().backward()
        (yb * g).sum().backward()
        scale = xb.grad.abs().max().item()
        torch.testing.assert_close(xa.grad, xb.grad, rtol=rtol, atol=rtol * scale)


def test_lp_pool_gradient_where_a_window_is_zero():
    # PyTorch's formula gives NaN (the root's infinite slope at 0 times 0); lpnorm gives 0.
    x = torch.tensor([[[0.0, 0.0, 3.0, -4.0]]], dtype=torch.float64, requires_grad=True)
    lt.lp_pool1d(x, 2.0, 2, 2).sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([[[0.0, 0.0, 0.6, -0.8]]], dtype=torch.float64))


def test_lp_pool_float32_and_signed_semantics():
    # Negative inputs with p = 2 (x^2 either way) and p = 3 (signed cubes; a window whose sum
    # is negative gives NaN in both).
    x = randn(2, 3, 9, 8, dtype=torch.float32, seed=2)
    for p in (2.0, 3.0):
        ya = lt.lp_pool2d(x, p, 2, 2, True)
        yb = torch.nn.functional.lp_pool2d(x, p, 2, 2, True)
        assert torch.equal(ya.isnan(), yb.isnan())
        torch.testing.assert_close(ya.nan_to_num(), yb.nan_to_num(), rtol=8 * 2**-23, atol=1e-6)


def test_lp_pool_signed_specials_match_torch():
    # IEEE pow in PyTorch's formula: infinities, NaN, signed zeros and negative bases, each
    # window a pair; p = 0.5 is PyTorch's sqrt (NaN for -inf, where pow gives +inf).
    inf, nan = math.inf, math.nan
    pairs = [(-inf, 1.0), (inf, -1.0), (-inf, -inf), (inf, -inf), (nan, 1.0), (0.0, 0.0),
             (-0.0, -0.0), (-2.0, 1.0), (-1.0, -1.0), (-inf, 0.0), (2.0, 3.0)]
    x = torch.tensor([[v for pair in pairs for v in pair]], dtype=torch.float64)
    for p in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 0.5):
        ours = lt.lp_pool1d(x, p, 2, 2)
        theirs = torch.nn.functional.lp_pool1d(x, p, 2, 2)
        torch.testing.assert_close(ours, theirs, rtol=1e-13, atol=0, equal_nan=True,
                                   msg=lambda m, p=p: f"p = {p}: {m}")


def test_lp_pool_gradcheck():
    x = (randn(1, 2, 5, 6, dtype=torch.float64, seed=7).abs() + 0.2).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: lt.lp_pool2d(t, 3.0, 2, (2, 1), True), (x,))
    assert torch.autograd.gradcheck(lambda t: lt.lp_pool1d(t, 2.0, 3, 2), (x[0],))


# aot_eager traces with fake tensors and autograd as inductor does, without compiling C++;
# inductor, the default, also compiles C++ for the graph around the custom ops (about 20 s).
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(backend):
    def f(t):
        return lt.lp_pool2d(t, 2.0, 2, 2) * lt.vector_norm(t, 2, dim=(2, 3), keepdim=True)

    compiled = torch.compile(f, fullgraph=True, backend=backend)
    x = randn(2, 3, 8, 8, dtype=torch.float32, seed=1)
    torch.testing.assert_close(compiled(x), f(x))
    xa = x.clone().requires_grad_()
    compiled(xa).sum().backward()
    xb = x.clone().requires_grad_()
    f(xb).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad)


def test_custom_ops_are_registered():
    assert hasattr(torch.ops.lpnorm, "vector_norm") and hasattr(torch.ops.lpnorm, "lp_pool")
    torch.library.opcheck(torch.ops.lpnorm.vector_norm.default, (randn(3, 4), 2.0, [1], False))
    torch.library.opcheck(torch.ops.lpnorm.vector_norm_backward.default,
                          (randn(3, 4), randn(3, seed=1).abs(), randn(3, seed=2), 2.0, [1], False))
    torch.library.opcheck(torch.ops.lpnorm.lp_pool.default, (randn(1, 2, 6, 6), 2, 2.0, [2], [], False))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, math.inf])
@pytest.mark.parametrize("dim", [1, -1, 0])
def test_normalize_matches_torch(p, dim):
    x = randn(4, 9, 5, dtype=torch.float64, seed=8)
    x[1, :, 2] = 0  # an all-zero group along dim 1
    x[:, 3, :] = 0
    ours = lt.normalize(x, p, dim)
    theirs = torch.nn.functional.normalize(x, p, dim)
    torch.testing.assert_close(ours, theirs, rtol=1e-14, atol=0)
    # Each is within about half a float32 ulp of the exact value (lpnorm computes in float64 and
    # rounds once), so they differ by at most one ulp: 2^-23 of the binade's start, up to 2^-22
    # relative to a value that sits just below it.
    y32 = lt.normalize(x.float(), p, dim)
    torch.testing.assert_close(y32, theirs.float(), rtol=2**-22, atol=0)


@pytest.mark.parametrize("dtype, rtol", [(torch.float32, 1e-5), (torch.float64, 1e-10)])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 2.5, 4.0, math.inf])
@pytest.mark.parametrize("eps", [1e-12, 2.0])
def test_normalize_gradient_is_torch_autograd(dtype, rtol, p, eps):
    # lpnorm's gradient kernel against PyTorch's autograd of F.normalize: zero rows, rows that
    # eps clamps (eps = 2), ties of max|x|.
    x = randn(5, 8, 6, dtype=dtype, seed=10)
    x[1, :, 2] = 0
    x[2, :, 1] *= 0.05
    x[3, 2, 3], x[3, 5, 3] = 9, -9
    for dim in [1, -1, 0]:
        xa = x.clone().requires_grad_()
        xb = x.clone().requires_grad_()
        g = randn(*x.shape, dtype=dtype, seed=11)
        (lt.normalize(xa, p, dim, eps) * g).sum().backward()
        (torch.nn.functional.normalize(xb, p, dim, eps) * g).sum().backward()
        scale = xb.grad.abs().max().item()
        torch.testing.assert_close(xa.grad, xb.grad, rtol=rtol, atol=rtol * scale)


def test_normalize_gradient_where_the_powers_overflow():
    # Rows of 1e30 in float32: PyTorch's norm overflows (inf), lpnorm's gradient is exact.
    x = torch.full((2, 4), 1e30, dtype=torch.float32)
    x[0, 1] = -1e30
    xa = x.clone().requires_grad_()
    g = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    (lt.normalize(xa, 2.0, 1) * g).sum().backward()
    reference = x.double().requires_grad_()
    (torch.nn.functional.normalize(reference, 2.0, 1) * g.double()).sum().backward()
    torch.testing.assert_close(xa.grad.double(), reference.grad, rtol=1e-6, atol=0)
    assert torch.isfinite(xa.grad).all()


def test_normalize_gradcheck_and_zero_rows():
    x = randn(3, 6, dtype=torch.float64, seed=9).requires_grad_()
    for p in [2.0, 1.5, 3.0]:
        assert torch.autograd.gradcheck(lambda t: lt.normalize(t, p, 1), (x,))
    # float16 all-zero row: PyTorch rounds eps = 1e-12 to 0 (NaN); lpnorm keeps eps in float32.
    z = torch.zeros(2, 4, dtype=torch.float16)
    assert torch.equal(lt.normalize(z), z)
    torch.library.opcheck(torch.ops.lpnorm.normalize.default, (randn(3, 4), 2.0, [1], 1e-12))
    torch.library.opcheck(torch.ops.lpnorm.normalize_backward.default,
                          (randn(3, 4), randn(3, 4, seed=1), 2.0, [1], 1e-12))


@pytest.mark.parametrize("dim", [(1, 2), (0, -1), (-3, 1, 2), ()])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_normalize_over_several_dims_matches_torch(dim, p):
    # F.normalize takes a tuple of dims (an empty one: every dim), values and gradients.
    x = randn(4, 5, 6, dtype=torch.float64, seed=12)
    x[2] = 0  # an all-zero group for dim (1, 2)
    xa = x.clone().requires_grad_()
    xb = x.clone().requires_grad_()
    ours, theirs = lt.normalize(xa, p, dim), torch.nn.functional.normalize(xb, p, dim)
    torch.testing.assert_close(ours, theirs, rtol=1e-14, atol=0)
    g = randn(*x.shape, dtype=torch.float64, seed=13)
    (ours * g).sum().backward()
    (theirs * g).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-10, atol=1e-10 * xb.grad.abs().max().item())


def test_out_and_dtype_arguments_as_torch():
    x = randn(3, 7, seed=14)
    out = torch.empty(3, 7)
    assert lt.normalize(x, 2.0, 1, out=out) is out
    torch.testing.assert_close(out, torch.nn.functional.normalize(x, 2.0, 1), rtol=2**-22, atol=0)
    norm_out = torch.empty(3)
    assert lt.vector_norm(x, 2, 1, out=norm_out) is norm_out
    torch.testing.assert_close(norm_out, torch.linalg.vector_norm(x, 2, 1), rtol=2**-22, atol=0)
    widened = lt.vector_norm(x, 3, 1, dtype=torch.float64)
    assert widened.dtype == torch.float64
    torch.testing.assert_close(widened, torch.linalg.vector_norm(x, 3, 1, dtype=torch.float64),
                               rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype, rtol", [(torch.float32, 2**-22), (torch.float64, 1e-14),
                                         (torch.float16, 2**-10), (torch.bfloat16, 2**-7)])
@pytest.mark.parametrize("ord", [-1.0, -2.0, -0.5, -3.5])
def test_vector_norm_negative_orders(dtype, rtol, ord):
    # torch's negative ords, (sum |x|^ord)^(1/ord): lpnorm's kernel on 1 / |x| in float64, one
    # rounding to dtype (a row holding a 0 gives 0); gradients as PyTorch's, 0 where y = 0.
    x = randn(4, 7, 5, dtype=torch.float64, seed=15)
    x[1, 2, 3] = 0
    x = x.to(dtype)
    for dim, keepdim in [((1,), False), ((1, 2), True), (None, False), (-1, True)]:
        ours = lt.vector_norm(x, ord, dim, keepdim)
        theirs = torch.linalg.vector_norm(x.double(), ord, dim, keepdim).to(dtype)
        torch.testing.assert_close(ours, theirs, rtol=rtol, atol=0)
    if dtype in (torch.float32, torch.float64):
        xa, xb = x.clone().requires_grad_(), x.double().clone().requires_grad_()
        g = randn(4, 5, dtype=torch.float64, seed=16)
        lt.vector_norm(xa, ord, 1).backward(g.to(dtype))
        torch.linalg.vector_norm(xb, ord, 1).backward(g)
        torch.testing.assert_close(xa.grad.double(), xb.grad, rtol=1e-5 if dtype == torch.float32
                                   else 1e-12, atol=1e-6 if dtype == torch.float32 else 1e-14)
    if dtype == torch.float64:
        t = (torch.rand(3, 4, dtype=torch.float64) + 0.3).requires_grad_()
        assert torch.autograd.gradcheck(lambda v: lt.vector_norm(v, ord, 1), (t,))
        compiled = torch.compile(lambda v: lt.vector_norm(v, ord, (0, 1)), fullgraph=True)
        torch.testing.assert_close(compiled(t.detach()),
                                   torch.linalg.vector_norm(t.detach(), ord, (0, 1)), rtol=1e-14, atol=0)
