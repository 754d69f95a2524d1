"""lpnorm.openvino_extension(): the library beside the package, else $LPNORM_OPENVINO_EXTENSION,
else lpnorm.Error. Runs where the lpnorm package is importable (PYTHONPATH=<build>/python)."""

import os

import pytest

lpnorm = pytest.importorskip("lpnorm", reason="the lpnorm Python package is not importable")


def _beside_package():
    return os.path.isfile(os.path.join(os.path.dirname(lpnorm.__file__), "liblpnorm_openvino.so"))


def test_environment_variable(monkeypatch, tmp_path):
    if _beside_package():
        pytest.skip("this lpnorm package has the extension beside it, which takes precedence")
    library = tmp_path / "liblpnorm_openvino.so"
    library.write_bytes(b"")
    monkeypatch.setenv("LPNORM_OPENVINO_EXTENSION", str(library))
    assert lpnorm.openvino_extension() == str(library)


def test_missing(monkeypatch, tmp_path):
    if _beside_package():
        pytest.skip("this lpnorm package has the extension beside it")
    monkeypatch.delenv("LPNORM_OPENVINO_EXTENSION", raising=False)
    with pytest.raises(lpnorm.Error, match="LPNORM_BUILD_OPENVINO"):
        lpnorm.openvino_extension()
    missing = str(tmp_path / "nothing.so")
    monkeypatch.setenv("LPNORM_OPENVINO_EXTENSION", missing)
    with pytest.raises(lpnorm.Error, match="is not a file"):
        lpnorm.openvino_extension()


def test_loads_into_openvino(monkeypatch):
    ov = pytest.importorskip("openvino", reason="openvino not installed")
    path = os.environ.get("LPNORM_OPENVINO_EXTENSION")
    if not path and not _beside_package():
        pytest.skip("LPNORM_OPENVINO_EXTENSION is not set")
    core = ov.Core()
    core.add_extension(lpnorm.openvino_extension())
