"""Models holding lpnorm's operations save to OpenVINO IR and read back with the extension:
the attributes survive the round trip and the results still match the reference."""

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="openvino not installed")
pytest.importorskip("onnx", reason="onnx not installed")

from conftest import op_types, run_model  # noqa: E402
from onnx_cases import Case, mismatch  # noqa: E402


def _normal(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


IR_CASES = [
    Case("lp-pool-all-attributes", "LpPool", 22, _normal((1, 2, 11, 12), seed=1),
         {"kernel_shape": [2, 3], "strides": [2, 1], "dilations": [2, 2], "pads": [1, 0, 1, 2],
          "ceil_mode": 1, "p": 3}),
    Case("lp-pool-float-p", "LpPool", 1, _normal((1, 2, 8, 8), seed=2),
         {"kernel_shape": [3, 3], "auto_pad": "SAME_LOWER", "p": 2.5}),
    Case("reduce-l2-axes-input", "ReduceL2", 18, _normal((2, 3, 4, 5), seed=3),
         {"keepdims": 0}, axes_input=[-1, 1]),
    Case("reduce-l1-noop", "ReduceL1", 18, _normal((2, 3), seed=4),
         {"noop_with_empty_axes": 1}),
    Case("reduce-l2-float16", "ReduceL2", 13, _normal((4, 9), np.float16, seed=5),
         {"axes": [0], "keepdims": 1}),
    Case("lp-normalization-l1-axis0", "LpNormalization", 22, _normal((3, 7), seed=6),
         {"axis": 0, "p": 1}),
]


@pytest.mark.parametrize("case", IR_CASES, ids=[c.name for c in IR_CASES])
def test_ir_round_trip(case, core_ext, tmp_path):
    model = core_ext.read_model(case.model_bytes())
    xml = tmp_path / "model.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    text = xml.read_text()
    assert 'version="lpnorm"' in text, text

    reread = core_ext.read_model(xml)
    assert op_types(reread) == op_types(model)
    original = [op for op in model.get_ops() if op.get_type_info().version_id == "lpnorm"][0]
    copy = [op for op in reread.get_ops() if op.get_type_info().version_id == "lpnorm"][0]
    assert copy.get_attributes() == original.get_attributes()
    assert reread.output(0).get_partial_shape() == model.output(0).get_partial_shape()

    error = mismatch(run_model(core_ext, reread, case.x), case.reference(), case.x.dtype)
    assert error is None, error


def test_ir_needs_the_extension(core_ext, core_alone, tmp_path):
    case = IR_CASES[0]
    xml = tmp_path / "model.xml"
    ov.save_model(core_ext.read_model(case.model_bytes()), xml, compress_to_fp16=False)
    with pytest.raises(Exception, match="LpPool"):
        core_alone.read_model(xml)
