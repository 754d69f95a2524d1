"""Bad attributes give OpenVINO exceptions carrying lpnorm's message (the process goes on),
whether they come from an ONNX model or from an IR file."""

import re

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="openvino not installed")
pytest.importorskip("onnx", reason="onnx not installed")


from conftest import run_model  # noqa: E402
from onnx_cases import make_model  # noqa: E402

# (op, opset, input shape, attributes, axes input, the part of lpnorm's message expected)
BAD_ONNX = [
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [3, 3], "p": 0},
     None, "p = 0 must be a finite value > 0 for LpPool-22"),
    ("LpPool", 1, (1, 1, 5, 5), {"kernel_shape": [3, 3], "p": -1.5},
     None, "p = -1.5 must be a finite value > 0 for LpPool-1"),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [0, 3], "p": 2},
     None, "kernel_shape[0] = 0 must be >= 1"),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [3, 3], "strides": [1, 0]},
     None, "strides[1] = 0 must be >= 1"),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [3], "p": 2},
     None, "X.rank = 4 does not match kernel_shape = [3]"),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [2, 2], "auto_pad": "SAME", "p": 2},
     None, 'auto_pad = "SAME" is not NOTSET, SAME_UPPER, SAME_LOWER or VALID'),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER",
                                  "pads": [1, 1, 1, 1]},
     None, "cannot be used with auto_pad"),
    ("LpPool", 18, (1, 1, 5, 5), {"kernel_shape": [2, 2], "ceil_mode": 2},
     None, "ceil_mode = 2 must be 0 or 1"),
    ("LpPool", 1, (1, 1, 5, 5), {"kernel_shape": [2, 2], "dilations": [2, 2], "p": 2.0},
     None, "dilations = [2, 2] is not an attribute of LpPool-1"),
    ("ReduceL2", 13, (2, 3), {"axes": [2]}, None, "axes[0] = 2 is out of range for rank 2"),
    ("ReduceL1", 13, (2, 3), {"axes": [1, -1]}, None, "axes[1] = -1 repeats axes[0] = 1"),
    ("ReduceL2", 13, (2, 3), {"axes": [0], "keepdims": 2}, None, "keepdims = 2 must be 0 or 1"),
    ("ReduceL1", 18, (2, 3), {"noop_with_empty_axes": 3}, [],
     "noop_with_empty_axes = 3 must be 0 or 1"),
    ("ReduceL2", 18, (2, 3), {}, [-3], "axes[0] = -3"),
    ("LpNormalization", 22, (2, 3), {"p": 3}, None,
     "p = 3 is not 1 or 2, the orders ONNX LpNormalization-22 allows"),
    ("LpNormalization", 22, (2, 3), {"axis": 2}, None, "axes[0] = 2 is out of range for rank 2"),
]


@pytest.mark.parametrize("op, opset, shape, attributes, axes_input, message", BAD_ONNX,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD_ONNX)])
def test_bad_onnx_attribute(core_ext, op, opset, shape, attributes, axes_input, message):
    model = make_model(op, opset, np.float32, shape, attributes, axes_input, check=False)
    with pytest.raises(RuntimeError) as info:
        core_ext.read_model(model.SerializeToString())
    assert message in str(info.value), str(info.value)


def _edit_ir(core_ext, tmp_path, attribute, old, new):
    """An IR file of a good LpPool model with one attribute's value replaced."""
    model = make_model("LpPool", 18, np.float32, (1, 1, 5, 5), {"kernel_shape": [3, 3], "p": 2},
                       out_shape=(1, 1, 3, 3))
    xml = tmp_path / "model.xml"
    ov.save_model(core_ext.read_model(model.SerializeToString()), xml, compress_to_fp16=False)
    text = xml.read_text()
    pattern = re.compile(f' {attribute}="([^"]*)"')
    match = pattern.search(text)
    assert match and match.group(1).replace(" ", "") == old, text
    xml.write_text(pattern.sub(f' {attribute}="{new}"', text, count=1))
    return xml


@pytest.mark.parametrize("attribute, old, new, message", [
    ("p", "2", "0", "p = 0 must be finite and > 0 for pooling"),
    ("kernel", "3,3", "3,0", "kernel[1] = 0 must be >= 1"),
    ("auto_pad", "notset", "middle", 'auto_pad = "middle" is not one of "notset", "same_upper"'),
    ("mode", "abs", "square", 'mode = "square" is not one of "abs", "signed"'),
])
def test_bad_ir_attribute(core_ext, tmp_path, attribute, old, new, message):
    xml = _edit_ir(core_ext, tmp_path, attribute, old, new)
    with pytest.raises(RuntimeError) as info:
        core_ext.read_model(xml)
    assert message in str(info.value), str(info.value)


def test_still_runs_after_errors(core_ext):
    """The errors above left OpenVINO and lpnorm usable."""
    model = make_model("LpPool", 18, np.float32, (1, 1, 3, 3), {"kernel_shape": [3, 3], "p": 1},
                       out_shape=(1, 1, 1, 1))
    x = np.arange(-4, 5, dtype=np.float32).reshape(1, 1, 3, 3)
    y = run_model(core_ext, core_ext.read_model(model.SerializeToString()), x)
    assert y.shape == (1, 1, 1, 1) and y[0, 0, 0, 0] == 20.0
