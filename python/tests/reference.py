"""Independent numpy references for the package tests, written from docs/semantics.md and the
ONNX LpPool / PyTorch lp_pool definitions, computed in long double (80-bit on x86-64)."""

import math

import numpy as np

WIDE = np.longdouble

# The contract (docs/semantics.md): float32, float16 and bfloat16 results within 8 ulp of the
# exactly rounded result (8.5 ulp of the exact one); for general p (pow) 8 + 2L*max(1, 1/p)
# ulp, L the largest |ln|x|| involved; float64 within 1e-14 relative.
DIGITS = {"float32": 24, "float16": 11, "bfloat16": 8}
LARGEST = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0,
           "bfloat16": float.fromhex("0x1.fep127")}


# frexp's exponent of each dtype's smallest normal value: below it the spacing is constant.
MIN_EXPONENT = {"float32": -125, "float16": -13, "bfloat16": -125}


def ulp(value, dtype_name):
    """One unit in the last place of `dtype_name` at each |value| (the subnormal spacing below
    the normal range)."""
    _, e = np.frexp(np.abs(np.asarray(value, np.float64)))
    return np.ldexp(1.0, np.maximum(e, MIN_EXPONENT[dtype_name]) - DIGITS[dtype_name])


def is_general_p(p):
    return not (p in (0, 1, 2, 3, 4) or math.isinf(p))


def wide(x):
    return np.asarray(x).astype(np.float64).astype(WIDE) if str(x.dtype) == "bfloat16" else np.asarray(x).astype(WIDE)


def reduce_ref(x, p, axes):
    """(sum |x|^p)^(1/p) over `axes` (a tuple), in long double."""
    a = np.abs(wide(x))
    if p == math.inf:
        return a.max(axis=axes, initial=WIDE(0))
    if p == -math.inf:
        return a.min(axis=axes)
    if p == 0:
        return (a != 0).sum(axis=axes).astype(WIDE)
    return (a ** WIDE(p)).sum(axis=axes) ** (WIDE(1) / WIDE(p))


def pool_geometry(in_size, k, s, d, pb, pe, ceil_mode):
    """ONNX output size along one dim, the last window dropped in ceil mode when it would
    start at or after in + pad_begin."""
    span = (k - 1) * d + 1
    num = in_size + pb + pe - span
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= in_size + pb:
        out -= 1
    return max(out, 0)


def pool_ref(x, p, kernel, strides=None, pads=None, dilations=None, ceil_mode=False,
             mode="abs", overhang="sum"):
    """Lp pooling of an (N, C, D...) array with explicit pads, in long double."""
    k = len(kernel)
    strides = strides or [1] * k
    dilations = dilations or [1] * k
    pads = pads or [0] * (2 * k)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    outs = [pool_geometry(spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[k + i], ceil_mode)
            for i in range(k)]
    v = wide(x)
    if mode == "abs":
        terms = np.abs(v) ** WIDE(p)
    else:
        terms = np.where(v < 0, (-1.0) ** p * np.abs(v) ** WIDE(p), v ** WIDE(p)) if p == int(p) else v ** WIDE(p)
    y = np.zeros((n, c, *outs), WIDE)
    for o in np.ndindex(*outs):
        total = np.zeros((n, c), WIDE)
        inside_padded = 1
        for t in np.ndindex(*kernel):
            pos = [o[i] * strides[i] - pads[i] + t[i] * dilations[i] for i in range(k)]
            if all(0 <= pos[i] < spatial[i] for i in range(k)):
                total += terms[(slice(None), slice(None), *pos)]
        for i in range(k):
            padded = spatial[i] + pads[i] + pads[k + i]
            inside_padded *= min(kernel[i], (padded - 1 - o[i] * strides[i]) // dilations[i] + 1)
        if overhang == "rescale":
            total = total * WIDE(np.prod(kernel)) / WIDE(inside_padded)
        if mode == "abs":
            root = total ** (WIDE(1) / WIDE(p))
        else:
            with np.errstate(invalid="ignore"):
                root = np.where(total < 0, -(-total) ** (WIDE(1) / WIDE(p)) if p == 1 else np.nan,
                                np.abs(total) ** (WIDE(1) / WIDE(p)))
        y[(slice(None), slice(None), *o)] = root
    return y


def assert_close(got, want, dtype_name, p=2.0, magnitudes=None):
    """got within the contract's bound of the exact `want` (NaN where NaN). `magnitudes`: the
    input values, for the general-p allowance."""
    g = wide(got)
    w = np.asarray(want, WIDE)
    assert g.shape == w.shape, (g.shape, w.shape)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), "NaN positions differ"
    g, w = g[~nan], w[~nan]
    if dtype_name in LARGEST:
        # Exact results beyond the largest finite value (by half an ulp) round to inf.
        overflow = np.abs(w) >= WIDE(LARGEST[dtype_name]) * (1 + WIDE(2.0) ** -DIGITS[dtype_name])
        assert np.array_equal(g[overflow], np.copysign(np.inf, w[overflow]).astype(WIDE)), \
            f"{dtype_name}: results beyond its range are not inf: {g[overflow][:3]}"
        g, w = g[~overflow], w[~overflow]
    err = np.abs(g - w)
    if dtype_name == "float64":
        limit = WIDE(1e-14) * np.abs(w)
    else:
        ulps = 8.5
        if is_general_p(p):
            m = np.abs(np.asarray(magnitudes, np.float64))
            m = m[m > 0]
            L = float(np.abs(np.log(m)).max()) if m.size else 0.0
            ulps += 2 * L * max(1.0, 1.0 / p)
        limit = WIDE(ulps) * ulp(w, dtype_name).astype(WIDE)
    bad = err > limit
    assert not bad.any(), (f"{dtype_name}: {bad.sum()} of {bad.size} outside the bound; worst "
                           f"got {g[bad][:3]} want {w[bad][:3]}")
