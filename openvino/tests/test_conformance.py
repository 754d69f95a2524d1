"""ONNX LpPool / ReduceL1 / ReduceL2 / LpNormalization models read by OpenVINO with lpnorm's extension: the read
model holds lpnorm's operation (no decomposition), and the CPU results meet lpnorm's accuracy
bound against a float64 reference. The same models in OpenVINO alone are run and judged the
same way; their failures are counted in the summary, not asserted."""

import numpy as np
import pytest

pytest.importorskip("openvino", reason="openvino not installed")
pytest.importorskip("onnx", reason="onnx not installed")

from conftest import COMPILE_CONFIG, OPENVINO_ALONE, op_types, run_model  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from onnx_cases import Case, conformance_cases, mismatch  # noqa: E402

CASES = conformance_cases()
LPNORM_OP = {"LpPool": "LpPool", "ReduceL1": "ReduceLp", "ReduceL2": "ReduceLp",
             "LpNormalization": "LpNormalize"}
# What OpenVINO's own ONNX frontend builds for these ops.
DECOMPOSITION = {"Power", "AvgPool", "ReduceL1", "ReduceL2", "Abs", "Sqrt", "ReduceSum",
                 "NormalizeL2", "Divide"}


def _judge_openvino_alone(core_alone, case: Case, reference):
    try:
        y = run_model(core_alone, core_alone.read_model(case.model_bytes()), case.x)
    except Exception as e:  # noqa: BLE001 - any failure of OpenVINO alone counts as wrong
        return f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    return mismatch(y, reference, case.x.dtype, _computed_in(case))


def _computed_in(case: Case):
    # OpenVINO's CPU plugin runs float64 models in float32 (it converts float64 inputs on entry),
    # so lpnorm's operation receives float32 there: those results are held to float32's bound.
    # lpnorm's float64 path is tested through Node.evaluate (test_evaluate.py).
    return np.float32 if case.x.dtype == np.float64 else None


def _param(case: Case):
    marks = [pytest.mark.xfail(reason=case.lpnorm_limit, strict=True)] if case.lpnorm_limit else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_matches_float64_reference(case, core_ext, core_alone):
    reference = case.reference()
    OPENVINO_ALONE[case.name] = _judge_openvino_alone(core_alone, case, reference)

    model = core_ext.read_model(case.model_bytes())
    types = op_types(model)
    assert (LPNORM_OP[case.op], "lpnorm") in types, types
    assert not DECOMPOSITION & {name for name, _ in types}, types

    y = run_model(core_ext, model, case.x)
    error = mismatch(y, reference, case.x.dtype, _computed_in(case))
    assert error is None, error


def test_openvino_alone_decomposes(core_alone):
    """Without the extension the same model holds no lpnorm operation."""
    case = CASES[0]
    types = op_types(core_alone.read_model(case.model_bytes()))
    assert all(version != "lpnorm" for _, version in types), types


@pytest.mark.parametrize("op, attributes, axes_input", [
    ("LpPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 3}, None),
    ("ReduceL2", {"keepdims": 1}, [2, 3]),
    ("ReduceL1", {"axes": [0, 1], "keepdims": 0}, None),
])
def test_dynamic_batch(core_ext, op, attributes, axes_input):
    """A model with an unknown batch size: the output shape keeps what is known, and each run's
    result matches the reference for its own batch size."""
    x = np.zeros((2, 3, 9, 10), np.float32)
    opset = 18 if axes_input is not None else 13
    model = core_ext.read_model(
        Case("dynamic", op, opset, x, attributes, axes_input, dynamic_batch=True).model_bytes())
    shape = model.output(0).get_partial_shape()
    assert shape.rank.get_length() in (2, 4)
    if op == "LpPool":
        assert shape[0].is_dynamic and [shape[i].get_length() for i in (1, 2, 3)] == [3, 5, 5]
    for batch in (1, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 9, 10)).astype(np.float32)
        case = Case("dynamic", op, opset, x, attributes, axes_input)
        error = mismatch(run_model(core_ext, model, x), case.reference(), np.float32)
        assert error is None, f"batch {batch}: {error}"


def _reduce_with_axes_from(op, keepdims, axes_nodes, axes_inputs):
    """An opset-18 `op` whose axes come from `axes_nodes` (ending in the tensor "axes") or from
    the graph inputs `axes_inputs`."""
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
    node = helper.make_node(op, ["X", "axes"], ["Y"], name="reduce", keepdims=keepdims)
    graph = helper.make_graph(axes_nodes + [node], "g", [x] + axes_inputs, [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


@pytest.mark.parametrize("op, p", [("ReduceL1", 1.0), ("ReduceL2", 2.0)])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_axes_folded_or_left_to_openvino(core_ext, op, p, keepdims):
    """Axes computed from constants (Cast of a Constant) are folded into lpnorm's ReduceLp;
    axes given at inference (a graph input) leave the node to OpenVINO's own ReduceL1/L2 (opset
    4), as without the extension. Both read, run and match the reference."""
    x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(np.float32)
    reference = (np.abs(x.astype(np.float64)) ** p).sum(axis=1, keepdims=bool(keepdims)) ** (1 / p)
    cast = [helper.make_node("Constant", [], ["axes32"], value=helper.make_tensor(
                "a", TensorProto.INT32, [1], [1])),
            helper.make_node("Cast", ["axes32"], ["axes"], to=TensorProto.INT64)]
    folded = core_ext.read_model(_reduce_with_axes_from(op, keepdims, cast, []))
    assert ("ReduceLp", "lpnorm") in op_types(folded)
    error = mismatch(run_model(core_ext, folded, x), reference, np.float32)
    assert error is None, error

    axes_input = helper.make_tensor_value_info("axes", TensorProto.INT64, [1])
    given = core_ext.read_model(_reduce_with_axes_from(op, keepdims, [], [axes_input]))
    assert (op, "opset4") in op_types(given)
    compiled = core_ext.compile_model(given, "CPU", COMPILE_CONFIG)
    result = compiled({0: x, 1: np.array([1], np.int64)})[compiled.output(0)]
    error = mismatch(result, reference, np.float32)
    assert error is None, error
