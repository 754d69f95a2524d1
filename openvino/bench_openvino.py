"""OpenVINO alone vs OpenVINO + lpnorm's extension on the same ONNX models, in one process.

Each shape is compiled twice for CPU (without and with the extension), both with the same
INFERENCE_NUM_THREADS and float32 inference precision; rounds alternate between the two, and the
table reports each one's median time per inference and the ratio alone / lpnorm (> 1: lpnorm
faster). lpnorm's kernels inside the extension run on lpnorm's own thread pool, one thread per
core by default (the extension holds its own copy of lpnorm, so lpnorm.set_num_threads in this
process does not reach it).

    python openvino/bench_openvino.py --extension build-ov/openvino/liblpnorm_openvino.so
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import openvino as ov

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "tests"))
from onnx_cases import make_model  # noqa: E402

# (label, op, opset, input shape, attributes, axes input)
SHAPES = [
    ("LpPool [8,256,28,28] 3x3 s1 pad 1 p=2", "LpPool", 18, (8, 256, 28, 28),
     {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 2}, None),
    ("LpPool [32,64,112,112] 2x2 s2 p=2", "LpPool", 18, (32, 64, 112, 112),
     {"kernel_shape": [2, 2], "strides": [2, 2], "p": 2}, None),
    ("LpPool [32,64,112,112] 3x3 s2 pad 1 p=2", "LpPool", 18, (32, 64, 112, 112),
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 2}, None),
    ("LpPool [1,512,14,14] 3x3 s1 pad 1 p=2", "LpPool", 18, (1, 512, 14, 14),
     {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 2}, None),
    ("ReduceL2 [32,64,56,56] axes (2,3)", "ReduceL2", 18, (32, 64, 56, 56),
     {"keepdims": 0}, [2, 3]),
    ("ReduceL2 [32,64,56,56] axis 1", "ReduceL2", 18, (32, 64, 56, 56),
     {"keepdims": 0}, [1]),
    ("ReduceL1 [32,64,56,56] axes (2,3)", "ReduceL1", 18, (32, 64, 56, 56),
     {"keepdims": 0}, [2, 3]),
]


def lpnorm_ops(model) -> int:
    return sum(op.get_type_info().version_id == "lpnorm" for op in model.get_ops())


def compile_model(core, model_bytes: bytes, threads: int):
    model = core.read_model(model_bytes)
    config = {"INFERENCE_NUM_THREADS": threads, "INFERENCE_PRECISION_HINT": "f32",
              "PERFORMANCE_HINT": "LATENCY"}
    return model, core.compile_model(model, "CPU", config)


def time_one(request, x) -> float:
    # Inputs and outputs shared with numpy: an engine does not pay Python's copy of the
    # output (0.75 ms on [8,256,28,28] float32), which would hide part of either variant.
    start = time.perf_counter()
    request.infer({0: x}, share_inputs=True, share_outputs=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extension", default=os.environ.get("LPNORM_OPENVINO_EXTENSION"),
                        help="path of liblpnorm_openvino.so (default: $LPNORM_OPENVINO_EXTENSION)")
    parser.add_argument("--threads", type=int, default=2, help="INFERENCE_NUM_THREADS of both")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per variant")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds per variant")
    args = parser.parse_args()
    if not args.extension:
        parser.error("give --extension or set LPNORM_OPENVINO_EXTENSION")

    core_alone = ov.Core()
    core_lpnorm = ov.Core()
    core_lpnorm.add_extension(args.extension)

    print(f"OpenVINO {ov.get_version()}, CPU, INFERENCE_NUM_THREADS = {args.threads}, "
          f"{args.rounds} interleaved rounds, median time per inference\n")
    print("| model | OpenVINO alone (ms) | OpenVINO + lpnorm (ms) | ratio alone / lpnorm | "
          "max rel. diff |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for label, op, opset, shape, attributes, axes_input in SHAPES:
        x = rng.standard_normal(shape, dtype=np.float32)
        model_bytes = make_model(op, opset, np.float32, shape, attributes, axes_input,
                                 check=False).SerializeToString()
        model_a, compiled_a = compile_model(core_alone, model_bytes, args.threads)
        model_l, compiled_l = compile_model(core_lpnorm, model_bytes, args.threads)
        assert lpnorm_ops(model_a) == 0 and lpnorm_ops(model_l) == 1, label
        request_a, request_l = compiled_a.create_infer_request(), compiled_l.create_infer_request()
        for _ in range(args.warmup):
            time_one(request_a, x)
            time_one(request_l, x)
        times_a, times_l = [], []
        for r in range(args.rounds):
            # Alternate which variant goes first, so neither always follows the other.
            if r % 2 == 0:
                times_a.append(time_one(request_a, x))
                times_l.append(time_one(request_l, x))
            else:
                times_l.append(time_one(request_l, x))
                times_a.append(time_one(request_a, x))
        y_a = request_a.get_output_tensor(0).data.astype(np.float64)
        y_l = request_l.get_output_tensor(0).data.astype(np.float64)
        diff = float(np.max(np.abs(y_a - y_l) / np.maximum(np.abs(y_l), 1e-30)))
        med_a, med_l = statistics.median(times_a) * 1e3, statistics.median(times_l) * 1e3
        print(f"| {label} | {med_a:.3f} | {med_l:.3f} | {med_a / med_l:.2f} | {diff:.1e} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
