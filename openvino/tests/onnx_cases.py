"""ONNX models of LpPool, ReduceL1, ReduceL2 and LpNormalization, float64 references written from
the ONNX spec, and the conformance cases the OpenVINO extension is tested on.

The references compute in float64 from the input's values and round once to the output dtype
(integers: truncated toward zero and saturated, as lpnorm does). LpPool: padded taps contribute
0, a ceil_mode window that runs past the input sums its in-bounds taps, and a last ceil_mode
window that would start in the end padding is dropped (ONNX opset 22); SAME_* pads are chosen
for the dilated kernel, the odd pixel at the end (UPPER) or the start (LOWER).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

_ONNX_TYPES = {
    np.dtype("float32"): TensorProto.FLOAT,
    np.dtype("float16"): TensorProto.FLOAT16,
    np.dtype("float64"): TensorProto.DOUBLE,
    np.dtype("int32"): TensorProto.INT32,
    np.dtype("int64"): TensorProto.INT64,
    np.dtype("uint32"): TensorProto.UINT32,
    np.dtype("uint64"): TensorProto.UINT64,
}


# ---- references ------------------------------------------------------------------------------

def _scale(x: np.ndarray) -> float:
    """max |x| of a float array (1 when 0 or not finite; 1 for integers, which the references
    sum exactly): the norms are homogeneous, so the references divide by it, raise values in
    [0, 1] to p and multiply back, which keeps float64 powers of values such as 1e200 finite."""
    if x.dtype.kind != "f":
        return 1.0
    m = float(np.max(np.abs(x.astype(np.float64)))) if x.size else 0.0
    return m if 0.0 < m < np.inf else 1.0


def pool_geometry(in_size: int, kernel: int, stride: int, dilation: int, pad_begin: int,
                  pad_end: int, auto_pad: str, ceil_mode: bool):
    """(output size, pad_begin) of one spatial dim."""
    k_eff = (kernel - 1) * dilation + 1
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = -(-in_size // stride)
        total = max(0, (out - 1) * stride + k_eff - in_size)
        small = total // 2
        return out, (small if auto_pad == "SAME_UPPER" else total - small)
    if auto_pad == "VALID":
        pad_begin = pad_end = 0
    span = in_size + pad_begin + pad_end - k_eff
    if ceil_mode:
        out = -(-span // stride) + 1
        if (out - 1) * stride >= in_size + pad_begin:
            out -= 1
    else:
        out = span // stride + 1
    return out, pad_begin


def lp_pool_reference(x: np.ndarray, p: float, kernel: Sequence[int],
                      strides: Optional[Sequence[int]] = None,
                      pads: Optional[Sequence[int]] = None,
                      dilations: Optional[Sequence[int]] = None, auto_pad: str = "NOTSET",
                      ceil_mode: int = 0) -> np.ndarray:
    """Y = (sum over the in-bounds taps of each window of |X|^p)^(1/p), in float64."""
    k = len(kernel)
    strides = list(strides or [1] * k)
    dilations = list(dilations or [1] * k)
    pads = list(pads or [0] * (2 * k))
    scale = _scale(x)
    a = (np.abs(x.astype(np.float64)) / scale) ** p
    outs, begins = [], []
    for i in range(k):
        out, begin = pool_geometry(x.shape[2 + i], kernel[i], strides[i], dilations[i], pads[i],
                                   pads[k + i], auto_pad, bool(ceil_mode))
        outs.append(out)
        begins.append(begin)
    # Zero-pad far enough on both sides for every tap of every window.
    widths = [(0, 0), (0, 0)]
    for i in range(k):
        last = (outs[i] - 1) * strides[i] - begins[i] + (kernel[i] - 1) * dilations[i]
        widths.append((begins[i], max(0, last + 1 - x.shape[2 + i])))
    padded = np.pad(a, widths)
    total = np.zeros(x.shape[:2] + tuple(outs), dtype=np.float64)
    for taps in np.ndindex(*kernel):
        index = [slice(None), slice(None)]
        for i, t in enumerate(taps):
            start = t * dilations[i]
            index.append(slice(start, start + (outs[i] - 1) * strides[i] + 1, strides[i]))
        total += padded[tuple(index)]
    return scale * total ** (1.0 / p)


def reduce_reference(x: np.ndarray, p: float, axes: Optional[Sequence[int]], keepdims: int,
                     noop_with_empty_axes: int = 0) -> np.ndarray:
    """ONNX ReduceL1 (p = 1) / ReduceL2 (p = 2) in float64."""
    a = np.abs(x.astype(np.float64))
    if not axes:
        if noop_with_empty_axes:
            return a
        axes = list(range(x.ndim))
    scale = _scale(x)
    s = np.sum((a / scale) ** p, axis=tuple(axes), keepdims=bool(keepdims))
    return scale * s ** (1.0 / p)


def lp_normalization_reference(x: np.ndarray, p: float, axis: int) -> np.ndarray:
    """ONNX LpNormalization in float64: x / ||x||_p along `axis`, 0 where the norm is 0."""
    a = x.astype(np.float64)
    scale = _scale(x)
    norm = scale * np.sum((np.abs(a) / scale) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norm == 0, 0.0, a / norm)


def round_to(reference: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The float64 reference in `dtype`: floats rounded once, integers truncated and saturated."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return reference.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.trunc(reference), info.min, info.max).astype(dtype)


# lpnorm's accuracy bound for float16/bfloat16/float32 outputs, in units in the last place.
ULPS = 8.0


def mismatch(actual: np.ndarray, reference: np.ndarray, dtype: np.dtype,
             computed_in: Optional[np.dtype] = None) -> Optional[str]:
    """None when `actual` meets lpnorm's bound against the float64 `reference`, else why not.

    float16/float32: within 8 ulp of the output dtype at the reference value (lpnorm.h's bound);
    float64: within 1e-14 relative; integers: equal to the truncated, saturated reference.
    `computed_in`: a float dtype narrower than `dtype` that the result was computed in, whose
    bound then applies.
    """
    dtype = np.dtype(dtype)
    if actual.shape != reference.shape:
        return f"shape {actual.shape} != reference shape {reference.shape}"
    if actual.dtype != dtype:
        return f"dtype {actual.dtype} != {dtype}"
    if computed_in is not None:
        dtype = np.dtype(computed_in)
    if dtype.kind != "f":
        expected = round_to(reference, dtype)
        bad = actual != expected
    else:
        got = actual.astype(np.float64)
        if dtype == np.float64:
            bound = 1e-14 * np.abs(reference)
        else:
            # The spacing of `dtype` at the reference value; inf where the value overflows it.
            with np.errstate(over="ignore"):
                bound = ULPS * np.spacing(np.abs(reference).astype(dtype)).astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(got - reference) <= bound)
        # Equal infinities, and NaN where the reference is NaN, match.
        bad &= ~(got == reference) & ~(np.isnan(got) & np.isnan(reference))
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ; at {where}: "
            f"{actual[where]!r} vs reference {reference[where]!r}")


# ---- models ----------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    op: str  # "LpPool", "ReduceL1", "ReduceL2" or "LpNormalization"
    opset: int
    x: np.ndarray
    attributes: dict = field(default_factory=dict)
    # ReduceL1/L2-18: the axes input (an initializer); None leaves the input out.
    axes_input: Optional[Sequence[int]] = None
    # Names a dim "N" in the graph input instead of its size (a dynamic batch).
    dynamic_batch: bool = False
    # Why lpnorm itself does not yet meet the bound on this case (the test expects a failure).
    lpnorm_limit: Optional[str] = None

    def reference(self) -> np.ndarray:
        a = self.attributes
        if self.op == "LpPool":
            return lp_pool_reference(self.x, a.get("p", 2), a["kernel_shape"], a.get("strides"),
                                     a.get("pads"), a.get("dilations"),
                                     a.get("auto_pad", "NOTSET"), a.get("ceil_mode", 0))
        if self.op == "LpNormalization":
            return lp_normalization_reference(self.x, a.get("p", 2), a.get("axis", -1))
        p = 1.0 if self.op == "ReduceL1" else 2.0
        axes = a.get("axes") if self.axes_input is None else self.axes_input
        return reduce_reference(self.x, p, axes, a.get("keepdims", 1),
                                a.get("noop_with_empty_axes", 0))

    def model(self) -> onnx.ModelProto:
        return make_model(self.op, self.opset, self.x.dtype, self.x.shape, self.attributes,
                          self.axes_input, self.dynamic_batch, self.name,
                          out_shape=self.reference().shape)

    def model_bytes(self) -> bytes:
        return self.model().SerializeToString()


def make_model(op: str, opset: int, dtype, shape: Sequence[int], attributes: dict,
               axes_input: Optional[Sequence[int]] = None, dynamic_batch: bool = False,
               name: str = "model", out_shape: Optional[Sequence[int]] = None,
               check: bool = True) -> onnx.ModelProto:
    """A one-node ONNX model Y = op(X[, axes]) with X of `shape` and `dtype`.

    out_shape: Y's declared shape (the checker needs one; OpenVINO infers its own); with
    dynamic_batch, X's first dim is named "N", and so is Y's when it has the same size.
    """
    elem_type = _ONNX_TYPES[np.dtype(dtype)]
    dims = ["N" if dynamic_batch and i == 0 else d for i, d in enumerate(shape)]
    x_info = helper.make_tensor_value_info("X", elem_type, dims)
    if out_shape is not None:
        out_shape = ["N" if dynamic_batch and i == 0 and len(out_shape) == len(shape)
                     and d == shape[0] else d for i, d in enumerate(out_shape)]
    y_info = helper.make_tensor_value_info("Y", elem_type, out_shape)
    inputs, initializers = ["X"], []
    if axes_input is not None:
        inputs.append("axes")
        initializers.append(numpy_helper.from_array(np.array(axes_input, dtype=np.int64), "axes"))
    node = helper.make_node(op, inputs, ["Y"], name=f"{op}_node", **attributes)
    graph = helper.make_graph([node], name.replace("-", "_"), [x_info], [y_info],
                              initializer=initializers)
    opset_id = helper.make_opsetid("", opset)
    # The IR version of the ONNX release that brought each opset (onnx's own table has no
    # entry for some early opsets).
    ir_version = 10 if opset >= 21 else 9 if opset >= 19 else 8 if opset >= 15 else 7
    model = helper.make_model(graph, opset_imports=[opset_id], ir_version=ir_version)
    if check:
        onnx.checker.check_model(model)
    return model


# ---- conformance cases -------------------------------------------------------------------------

def _normal(shape, dtype="float32", scale=1.0, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def conformance_cases() -> list:
    """LpPool (opsets 1, 2, 11, 18, 22), ReduceL1/L2 (opsets 1, 11, 13, 18) and LpNormalization
    (opsets 1, 22) cases."""
    cases = []

    def pool(name, opset, x, **attributes):
        cases.append(Case(f"LpPool-{opset}-{name}", "LpPool", opset, x, attributes))

    pool("2d-k3-pad1-p2", 18, _normal((2, 3, 7, 9), seed=1),
         kernel_shape=[3, 3], pads=[1, 1, 1, 1], p=2)
    pool("2d-k2-s2-p1", 11, _normal((1, 4, 8, 8), seed=2), kernel_shape=[2, 2], strides=[2, 2], p=1)
    pool("2d-k3x2-s2x1-asym-pads-p3", 11, _normal((2, 2, 9, 11), seed=3), kernel_shape=[3, 2],
         strides=[2, 1], pads=[1, 0, 2, 1], p=3)
    pool("1d-k4-s3-p2", 2, _normal((2, 3, 17), seed=4), kernel_shape=[4], strides=[3], p=2)
    pool("3d-k2x3x2-p2", 22, _normal((1, 2, 5, 6, 7), seed=5), kernel_shape=[2, 3, 2],
         strides=[1, 2, 2], p=2)
    pool("2d-dilations2-p2", 18, _normal((1, 3, 10, 10), seed=6), kernel_shape=[3, 3],
         dilations=[2, 2], p=2)
    pool("2d-dilations-strides-pads-p3", 22, _normal((2, 2, 11, 12), seed=7), kernel_shape=[2, 3],
         dilations=[3, 2], strides=[2, 3], pads=[2, 1, 0, 2], p=3)
    pool("2d-ceil-p2", 18, _normal((1, 2, 8, 9), seed=8), kernel_shape=[3, 3], strides=[2, 2],
         ceil_mode=1, p=2)
    # in 4, kernel 2, stride 2, end pad 1: ceil gives 3 windows, the third starts in the padding
    # and is dropped (opset 22).
    pool("2d-ceil-drop-last-p1", 22, _normal((1, 2, 4, 4), seed=9), kernel_shape=[2, 2],
         strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1, p=1)
    pool("2d-same-upper-s2-p2", 11, _normal((1, 2, 7, 8), seed=10), kernel_shape=[3, 3],
         strides=[2, 2], auto_pad="SAME_UPPER", p=2)
    pool("2d-same-lower-s2-p2", 11, _normal((1, 2, 7, 8), seed=11), kernel_shape=[2, 3],
         strides=[2, 2], auto_pad="SAME_LOWER", p=2)
    pool("1d-same-upper-dilated-p1", 18, _normal((2, 2, 13), seed=12), kernel_shape=[3],
         dilations=[2], auto_pad="SAME_UPPER", p=1)
    pool("2d-valid-s2-p3", 18, _normal((1, 2, 9, 8), seed=13), kernel_shape=[3, 3],
         strides=[2, 2], auto_pad="VALID", p=3)
    pool("2d-k3-p4", 22, _normal((1, 3, 6, 7), seed=14),
         kernel_shape=[3, 3], pads=[1, 1, 1, 1], p=4)
    # Opset 1: p is a FLOAT, so non-integer p.
    pool("2d-float-p2.5", 1, _normal((1, 2, 6, 6), seed=15),
         kernel_shape=[3, 3], pads=[1, 1, 1, 1], p=2.5)
    pool("2d-float-p1.5-s2", 1, _normal((2, 2, 7, 7), seed=16), kernel_shape=[2, 2],
         strides=[2, 2], p=1.5)
    pool("1d-float-p0.5", 1, _normal((1, 3, 12), seed=17), kernel_shape=[3], strides=[2], p=0.5)
    pool("2d-float64-p2", 18, _normal((1, 2, 7, 7), "float64", seed=18), kernel_shape=[3, 3],
         pads=[1, 1, 1, 1], p=2)
    pool("2d-float16-p2", 18, _normal((1, 2, 7, 7), "float16", seed=19), kernel_shape=[3, 3],
         pads=[1, 1, 1, 1], p=2)
    pool("2d-float16-p3-s2", 22, _normal((1, 2, 8, 8), "float16", seed=20), kernel_shape=[2, 2],
         strides=[2, 2], p=3)
    # Values whose p-th powers overflow (or underflow) float32: the true results fit.
    pool("2d-huge-1e20-p2", 18, _normal((1, 2, 6, 6), scale=1e20, seed=21), kernel_shape=[3, 3],
         pads=[1, 1, 1, 1], p=2)
    pool("2d-huge-1e13-p3", 18, _normal((1, 2, 6, 6), scale=1e13, seed=22),
         kernel_shape=[2, 2], p=3)
    pool("2d-tiny-1e-25-p2", 18, _normal((1, 2, 6, 6), scale=1e-25, seed=23), kernel_shape=[3, 3],
         strides=[1, 1], p=2)
    pool("2d-float16-300-p2", 22, _normal((1, 2, 6, 6), "float16", scale=300, seed=24),
         kernel_shape=[2, 2], p=2)

    def reduce(op, name, opset, x, axes_input=None, **attributes):
        cases.append(Case(f"{op}-{opset}-{name}", op, opset, x, attributes, axes_input))

    reduce("ReduceL2", "axis1-keep", 13, _normal((3, 4, 5), seed=30), axes=[1], keepdims=1)
    reduce("ReduceL1", "axes0,2-nokeep", 13, _normal((3, 4, 5), seed=31), axes=[0, 2], keepdims=0)
    reduce("ReduceL2", "neg-axes", 11, _normal((2, 3, 4, 5), seed=32), axes=[-1, -3], keepdims=1)
    reduce("ReduceL1", "all-default-axes", 1, _normal((4, 6), seed=33), keepdims=0)
    reduce("ReduceL2", "all-default-axes-keep", 1, _normal((4, 6), seed=34))
    reduce("ReduceL2", "axes-input-2,3", 18, _normal((2, 3, 8, 9), seed=35),
           axes_input=[2, 3], keepdims=0)
    reduce("ReduceL1", "axes-input-1-keep", 18, _normal((2, 3, 8, 9), seed=36),
           axes_input=[1], keepdims=1)
    reduce("ReduceL2", "axes-input-neg", 18, _normal((5, 7, 3), seed=37),
           axes_input=[-1, 0], keepdims=1)
    reduce("ReduceL2", "no-axes-noop0", 18, _normal((3, 5), seed=38), keepdims=0)
    reduce("ReduceL2", "empty-axes-noop1", 18, _normal((3, 5), seed=39), axes_input=[],
           noop_with_empty_axes=1)
    reduce("ReduceL1", "no-axes-noop1", 18, _normal((2, 3, 4), seed=40), noop_with_empty_axes=1)
    reduce("ReduceL2", "empty-axes-noop0", 18, _normal((3, 5), seed=41), axes_input=[],
           noop_with_empty_axes=0, keepdims=1)
    reduce("ReduceL1", "size1-axis", 13, -np.abs(_normal((4, 1, 3), seed=42)), axes=[1], keepdims=0)
    reduce("ReduceL2", "float64", 13, _normal((6, 40), "float64", seed=43), axes=[1], keepdims=0)
    reduce("ReduceL1", "float64-axes-input", 18, _normal((6, 40), "float64", seed=44),
           axes_input=[0], keepdims=0)
    reduce("ReduceL2", "float16", 13, _normal((8, 64), "float16", seed=45), axes=[1], keepdims=1)
    reduce("ReduceL1", "float16", 18, _normal((8, 64), "float16", seed=46),
           axes_input=[1], keepdims=0)
    reduce("ReduceL2", "float16-300", 18, _normal((4, 32), "float16", scale=300, seed=47),
           axes_input=[1], keepdims=0)
    reduce("ReduceL2", "huge-1e20", 13, _normal((4, 50), scale=1e20, seed=48), axes=[1], keepdims=0)
    reduce("ReduceL2", "tiny-1e-30", 18, _normal((4, 50), scale=1e-30, seed=49), axes_input=[1],
           keepdims=0)
    reduce("ReduceL1", "huge-1e36", 13, _normal((4, 100), scale=1e36, seed=50),
           axes=[1], keepdims=0)
    rng = np.random.default_rng(51)
    reduce("ReduceL2", "int32-squares-overflow", 13,
           rng.integers(-60000, 60000, (3, 16)).astype(np.int32), axes=[1], keepdims=0)
    reduce("ReduceL1", "int32", 18, rng.integers(-10**7, 10**7, (3, 16)).astype(np.int32),
           axes_input=[1], keepdims=0)

    def normalization(name, opset, x, **attributes):
        cases.append(Case(f"LpNormalization-{opset}-{name}", "LpNormalization", opset, x,
                          attributes))

    # The ONNX backend tests' input, and its zero column along axis 0.
    x3 = np.array([[[1, 2, 2], [3, 4, 0]], [[0, 5, 5], [6, 8, 0]]], np.float32)
    normalization("default", 22, x3)
    normalization("axis0-zero-norm", 22, x3, axis=0)
    normalization("l1-axis1", 1, _normal((3, 5, 4), seed=60), axis=1, p=1)
    normalization("l2-axis-neg2", 1, _normal((2, 6, 7), seed=61), axis=-2, p=2)
    zero_rows = _normal((4, 16), seed=62)
    zero_rows[1] = 0
    normalization("zero-row", 22, zero_rows, axis=1, p=2)
    normalization("float64", 22, _normal((5, 33), "float64", seed=63), axis=1, p=1)
    normalization("float16", 22, _normal((5, 33), "float16", scale=300, seed=64), axis=1)
    # Squares that overflow float32 (and underflow): the true normalized values are ordinary.
    normalization("huge-1e30", 22, _normal((3, 40), scale=1e30, seed=65), axis=1)
    normalization("tiny-1e-30", 22, _normal((3, 40), scale=1e-30, seed=66), axis=1)
    normalization("nchw-channels", 22, _normal((2, 16, 5, 5), seed=67), axis=1)
    return cases


def case_ids(cases) -> list:
    return [c.name for c in cases]
