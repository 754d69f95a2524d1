"""Fixtures of the OpenVINO extension's tests: the extension's path, an OpenVINO Core with it and
one without, and a model runner. The suite needs the openvino, onnx and numpy packages; each
test module skips with "openvino not installed" without them."""

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

# Results of OpenVINO alone on the conformance cases, filled by test_conformance.py and
# printed at the end of the run: case name -> None (matches the reference) or why not.
OPENVINO_ALONE = {}

# Compile options of every model in the tests: float32 inference precision (the CPU plugin may
# otherwise pick bf16 or f16 on CPUs that have them), so that OpenVINO alone is judged on its
# arithmetic, not on a reduced precision chosen for speed.
COMPILE_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


@pytest.fixture(scope="session")
def extension_path():
    path = os.environ.get("LPNORM_OPENVINO_EXTENSION")
    if not path:
        pytest.skip("LPNORM_OPENVINO_EXTENSION is not set: build with -DLPNORM_BUILD_OPENVINO=ON "
                    "and set it to <build>/openvino/liblpnorm_openvino.so")
    assert os.path.isfile(path), f"LPNORM_OPENVINO_EXTENSION = {path!r} is not a file"
    return path


@pytest.fixture(scope="session")
def core_ext(extension_path):
    import openvino as ov

    core = ov.Core()
    core.add_extension(extension_path)
    return core


@pytest.fixture(scope="session")
def core_alone():
    import openvino as ov

    return ov.Core()


def run_model(core, model, x):
    """Compiles `model` for CPU and returns its output for input `x`."""
    compiled = core.compile_model(model, "CPU", COMPILE_CONFIG)
    return compiled({0: x})[compiled.output(0)]


def op_types(model) -> list:
    """(type name, version) of every operation of `model`."""
    return [(op.get_type_name(), op.get_type_info().version_id) for op in model.get_ops()]


def pytest_terminal_summary(terminalreporter):
    if not OPENVINO_ALONE:
        return
    wrong = {name: why for name, why in OPENVINO_ALONE.items() if why is not None}
    terminalreporter.section("OpenVINO alone vs the float64 reference")
    terminalreporter.write_line(f"OpenVINO alone: {len(wrong)} of {len(OPENVINO_ALONE)} "
                                "conformance cases differ from the float64 reference")
    for name, why in sorted(wrong.items()):
        terminalreporter.write_line(f"  {name}: {why}")
