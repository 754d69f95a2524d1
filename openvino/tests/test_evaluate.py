"""lpnorm's operations evaluated directly (Node.evaluate, as OpenVINO's constant folding and
reference paths call it) on the dtypes the CPU plugin narrows before they reach the operation:
float64 (run in float32 by the plugin) and 64-bit and unsigned integers."""

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="openvino not installed")
pytest.importorskip("onnx", reason="onnx not installed")

from onnx_cases import Case, mismatch  # noqa: E402


def _normal(shape, dtype, scale=1.0, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def _ints(low, high, shape, dtype, seed=0):
    return np.random.default_rng(seed).integers(low, high, shape, dtype=np.int64).astype(dtype)


CASES = [
    Case("pool-f64-p2", "LpPool", 18, _normal((2, 3, 7, 8), np.float64, seed=1),
         {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 2}),
    Case("pool-f64-p2.5-s2", "LpPool", 1, _normal((1, 2, 9, 9), np.float64, seed=2),
         {"kernel_shape": [3, 2], "strides": [2, 2], "p": 2.5}),
    # Squares of 1e200 overflow float64; the norms do not.
    Case("pool-f64-huge-1e200", "LpPool", 18, _normal((1, 2, 5, 5), np.float64, 1e200, seed=3),
         {"kernel_shape": [2, 2], "p": 2}),
    Case("reduce-l2-f64", "ReduceL2", 13, _normal((5, 33), np.float64, seed=4),
         {"axes": [1], "keepdims": 0}),
    Case("reduce-l2-f64-huge-1e200", "ReduceL2", 18, _normal((3, 20), np.float64, 1e200, seed=5),
         {"keepdims": 1}, axes_input=[1]),
    # Integers: |x| < 2^24, so the float64 reference sums exactly.
    Case("reduce-l2-int32-squares-overflow-int32", "ReduceL2", 13,
         _ints(-60000, 60000, (3, 16), np.int32, seed=6), {"axes": [1], "keepdims": 0}),
    Case("reduce-l2-int64", "ReduceL2", 18, _ints(-2**24, 2**24, (4, 16), np.int64, seed=7),
         {"keepdims": 0}, axes_input=[0]),
    Case("reduce-l1-int64", "ReduceL1", 13, _ints(-2**40, 2**40, (4, 16), np.int64, seed=8),
         {"axes": [1], "keepdims": 1}),
    Case("reduce-l1-uint32-saturates", "ReduceL1", 13,
         _ints(2**31, 2**32, (3, 4), np.uint32, seed=9), {"axes": [1], "keepdims": 0}),
    Case("reduce-l2-uint64", "ReduceL2", 18, _ints(0, 2**24, (6, 5), np.uint64, seed=10),
         {"keepdims": 0}, axes_input=[-1]),
    # Squares of 1e200 overflow float64; the normalized values do not.
    Case("normalization-f64-huge-1e200", "LpNormalization", 22,
         _normal((3, 20), np.float64, 1e200, seed=11), {"axis": 1, "p": 2}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_evaluate(case, core_ext):
    model = core_ext.read_model(case.model_bytes())
    node = [op for op in model.get_ops() if op.get_type_info().version_id == "lpnorm"]
    assert len(node) == 1, [op.get_type_name() for op in model.get_ops()]
    reference = case.reference()
    output = ov.Tensor(np.zeros(reference.shape, case.x.dtype))
    assert node[0].evaluate([output], [ov.Tensor(case.x)])
    error = mismatch(output.data.copy(), reference, case.x.dtype)
    assert error is None, error


def _to_bfloat16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, rounded to nearest even."""
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("case", [
    Case("pool-bf16", "LpPool", 22, _normal((1, 2, 6, 7), np.float32, seed=11),
         {"kernel_shape": [3, 3], "strides": [2, 1], "pads": [1, 1, 1, 1], "p": 3}),
    Case("reduce-l2-bf16", "ReduceL2", 13, _normal((4, 50), np.float32, seed=12),
         {"axes": [1], "keepdims": 0}),
], ids=["pool", "reduce-l2"])
def test_evaluate_bfloat16(case, core_ext):
    """bfloat16 (numpy has no such dtype: the tensors carry its bit patterns): the operation
    computes in float32 and rounds once, so the result is within 8 bfloat16 ulp of the float64
    reference of the bfloat16 input."""
    bits = _to_bfloat16_bits(case.x)
    x = _from_bfloat16_bits(bits)
    reference = Case(case.name, case.op, case.opset, x.astype(np.float64), case.attributes,
                     case.axes_input).reference()
    model = core_ext.read_model(case.model_bytes())
    # The float32 model re-typed to bfloat16 (its validation runs the operation's type checks).
    model.get_parameters()[0].set_element_type(ov.Type.bf16)
    model.validate_nodes_and_infer_types()
    node = [op for op in model.get_ops() if op.get_type_info().version_id == "lpnorm"][0]
    assert node.get_output_element_type(0) == ov.Type.bf16
    output = ov.Tensor(ov.Type.bf16, list(reference.shape))
    assert node.evaluate([output], [ov.Tensor(bits, list(x.shape), ov.Type.bf16)])
    y = _from_bfloat16_bits(output.data.view(np.uint16).copy())
    # 8 ulp of bfloat16 (8 significant bits) at the reference value.
    ulp = np.exp2(np.floor(np.log2(np.abs(reference))) - 7)
    assert np.all(np.abs(y - reference) <= 8 * ulp), (y, reference)
