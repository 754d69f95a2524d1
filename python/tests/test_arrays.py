"""Array handling: strided views read in place, out=, errors that write nothing, threads."""

import re
import threading

import numpy as np
import pytest

import lpnorm
from reference import assert_close, pool_ref, reduce_ref


def data(shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, size=shape).astype(dtype)


@pytest.mark.parametrize("make_view", [
    lambda a: a[:, ::2, :],            # a stride of 2 rows
    lambda a: a.transpose(2, 0, 1),    # permuted
    lambda a: a[::-1, :, ::-3],        # negative strides
    lambda a: np.broadcast_to(a[:, :1, :], a.shape),  # a zero stride, read-only
])
def test_strided_views_are_read_in_place(make_view):
    v = make_view(data((6, 8, 10)))
    assert not v.flags.c_contiguous
    for axes in [(0,), (1,), (2,), (0, 2)]:
        assert_close(lpnorm.reduce(v, 2, axes), reduce_ref(v, 2.0, axes), "float32")


def test_channels_last_pooling_view():
    nhwc = data((2, 9, 7, 5))
    x = nhwc.transpose(0, 3, 1, 2)  # NCHW view of NHWC memory
    y = lpnorm.pool(x, 2, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    assert_close(y, pool_ref(x, 2.0, [3, 3], [2, 2], [1, 1, 1, 1]), "float32")


def test_out_is_written_and_returned():
    x = data((4, 100))
    out = np.full(4, -1, np.float32)
    y = lpnorm.reduce(x, 2, 1, out=out)
    assert y is out
    assert_close(out, reduce_ref(x, 2.0, (1,)), "float32")
    pooled = np.empty((4, 1, 50), np.float32)
    assert lpnorm.pool(x[:, None, :], 1, [2], strides=[2], out=pooled) is pooled


@pytest.mark.parametrize("call, message", [
    (lambda x, o: lpnorm.reduce(x, 2, 5, out=o), "axes"),
    (lambda x, o: lpnorm.reduce(x, -1.5, 1, out=o), "p = -1.5"),
    (lambda x, o: lpnorm.reduce(x, 2, 1, empty_axes="none", out=o), "empty_axes = 'none'"),
    (lambda x, o: lpnorm.reduce(x, 2, 0, out=o), "output.shape"),
    (lambda x, o: lpnorm.reduce(x, 2, 1, out=o.astype(np.float64)), "out.dtype"),
    (lambda x, o: lpnorm.reduce(x, "two", 1, out=o), "p = 'two'"),
    (lambda x, o: lpnorm.reduce(x, 2, [1.5], out=o), "axes[0] = 1.5"),
    (lambda x, o: lpnorm.reduce(x, 2, 1, out=x.reshape(-1)[:4]), "overlap"),
    (lambda x, o: lpnorm.pool(x, 2, [2], out=o), "rank"),
    (lambda x, o: lpnorm.pool(x[:, None], 2, [2], mode="relu"), "mode = 'relu'"),
    (lambda x, o: lpnorm.pool(x[:, None], 2, [0]), "kernel"),
    (lambda x, o: lpnorm.pool(x[:, None].astype(np.int32), 2, [2]), "int32"),
])
def test_errors_name_the_argument_and_write_nothing(call, message):
    x = data((4, 6))
    out = np.full(4, 7, np.float32)
    with pytest.raises(lpnorm.Error, match=re.escape(message)) as info:
        call(x, out)
    assert isinstance(info.value, ValueError)
    assert (out == 7).all()


def test_read_only_out_is_refused():
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(lpnorm.Error, match="read-only"):
        lpnorm.reduce(data((4, 6)), 2, 1, out=out)


def test_rank_above_eight():
    with pytest.raises(lpnorm.Error, match="(x.ndim|input.rank) = 9"):
        lpnorm.reduce(np.zeros((1,) * 9, np.float32), 2, [0])
    out = np.full((1,) * 9, 7, np.float32)
    with pytest.raises(lpnorm.Error, match="out.ndim = 9 exceeds"):
        lpnorm.reduce(np.zeros(1, np.float32), 2, [], empty_axes="identity", out=out)
    assert (out == 7).all()


def test_not_an_array():
    with pytest.raises(lpnorm.Error, match="x of type"):
        lpnorm.reduce(object())
    with pytest.raises(lpnorm.Error, match="x.dtype = complex64"):
        lpnorm.reduce(np.zeros(3, np.complex64))


def test_threads_give_the_same_results():
    x = data((64, 4096), seed=1)
    before = lpnorm.num_threads()
    try:
        lpnorm.set_num_threads(1)
        assert lpnorm.num_threads() == 1
        one = lpnorm.reduce(x, 2, 1)
        lpnorm.set_num_threads(2)
        two = lpnorm.reduce(x, 2, 1)
    finally:
        lpnorm.set_num_threads(0)
    np.testing.assert_array_equal(one, two)
    assert lpnorm.num_threads() == before
    with pytest.raises(lpnorm.Error, match="n = -1"):
        lpnorm.set_num_threads(-1)


def test_calls_from_several_python_threads():
    # The GIL is released while a kernel runs; calls from several threads must not interfere.
    inputs = [data((8, 32, 32, 32), seed=s) for s in range(4)]
    want = [lpnorm.pool(x, 2, [2, 2], strides=[2, 2]) for x in inputs]
    got = [None] * len(inputs)

    def work(i):
        for _ in range(5):
            got[i] = lpnorm.pool(inputs[i], 2, [2, 2], strides=[2, 2])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_info():
    info = lpnorm.info()
    assert info["version"]
    assert info["active_isa"] in {"sse41", "avx2", "avx512", "avx512_zen5", "neon", "neon_fp16"}
    assert [b["backend"] for b in info["backends"]] == ["cpu", "opencl", "cuda", "d3d12"]
    assert any(v["op"] == "pool" and v["dtype"] == "float32" for v in info["variants"])
