from typing import Any, Optional, Sequence, TypedDict, TypeVar, Union

Array = TypeVar("Array")

class Error(ValueError):
    """An argument lpnorm rejects; the message names it and its value. Nothing was written."""

class BackendInfo(TypedDict):
    backend: str
    compiled: bool
    usable: bool
    detail: str

class VariantInfo(TypedDict):
    op: str
    pattern: str
    reducer: str
    dtype: str
    isa: str
    backend: str

class Info(TypedDict):
    version: str
    detected_isa: str
    active_isa: str
    num_threads: int
    backends: list[BackendInfo]
    variants: list[VariantInfo]

def reduce(
    x: Array,
    p: float = 2.0,
    axes: Union[None, int, Sequence[int]] = None,
    keepdims: bool = False,
    empty_axes: str = "reduce_all",
    out: Optional[Array] = None,
) -> Array:
    """(sum over `axes` of |x|^p)^(1/p); x's dtype and array type."""

def pool(
    x: Array,
    p: float,
    kernel: Sequence[int],
    strides: Optional[Sequence[int]] = None,
    pads: Optional[Sequence[int]] = None,
    dilations: Optional[Sequence[int]] = None,
    auto_pad: str = "NOTSET",
    ceil_mode: bool = False,
    mode: str = "abs",
    overhang: str = "sum",
    out: Optional[Array] = None,
) -> Array:
    """Lp pooling over the spatial dims of an (N, C, D1[, D2[, D3]]) array."""

def pool_backward(
    x: Array,
    y: Array,
    dy: Array,
    p: float,
    kernel: Sequence[int],
    strides: Optional[Sequence[int]] = None,
    pads: Optional[Sequence[int]] = None,
    dilations: Optional[Sequence[int]] = None,
    auto_pad: str = "NOTSET",
    ceil_mode: bool = False,
    mode: str = "abs",
    overhang: str = "sum",
    out: Optional[Array] = None,
) -> Array:
    """The gradient of pool(): dx from x, pool's output y and the gradient dy of y."""

def normalize(
    x: Array,
    p: float = 2.0,
    axes: Union[int, Sequence[int]] = -1,
    eps: float = 0.0,
    eps_mode: str = "none",
    out: Optional[Array] = None,
) -> Array:
    """x / ||x||_p over `axes`; x's shape, dtype and array type."""

def info() -> Info:
    """Version, ISAs, threads, backends and the compiled kernels."""

def set_num_threads(n: int) -> None:
    """Threads a kernel runs on, the caller's included; 0 means one per core."""

def num_threads() -> int:
    """Threads kernels run on: the count set by set_num_threads, else one per core."""

def openvino_extension() -> str:
    """Path of lpnorm's OpenVINO extension library (beside the package, else
    $LPNORM_OPENVINO_EXTENSION); raises Error when it is not found."""
