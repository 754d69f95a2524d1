#!/usr/bin/env python3
"""lpnorm's Lp pooling side by side with ONNX Runtime, OpenVINO and PyTorch, in one process.

    pip install -r bench/requirements-peers.txt      # numpy, onnx, onnxruntime, openvino, torch
    python bench/peers.py [--threads 2] [--rounds 5] [--p 2] [--filter REGEX] [--json FILE]

The shapes and windows are those of lpnorm_bench's pooling benchmarks (bench_pool.cpp), read
from `lpnorm_bench --benchmark_list_tests`, so there is one list. lpnorm runs through its C
ABI (build/bench/liblpnorm_c.so, ctypes); ONNX Runtime and OpenVINO run an ONNX model of one
LpPool node (opset 18; OpenVINO decomposes it into power, average pool and power, with its
inference precision held at f32); PyTorch runs F.lp_pool*d, or where the window has pads
(lp_pool has none) the same decomposition: avg_pool*d(|x|^p, count_include_pad) * K, ^(1/p);
for odd p, lp_pool (which raises x, not |x|) is given |x|, inside the timed call.
Every implementation runs on --threads threads; each output is checked against lpnorm's first.

Timing: rounds interleave the implementations; in a round each is run for at least 0.1 s and
its time per call is the median of those calls; the table shows the median over rounds and
each peer's time over lpnorm's.
"""
import argparse
import ctypes
import json
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


# ---- the cases: from lpnorm_bench ---------------------------------------------------------

def bench_cases(bench, p, pattern):
    """(window name, shape, kernel, strides, pads) of each pooling benchmark, pads as ONNX's
    [begin..., end...]."""
    listed = subprocess.run([str(bench), "--benchmark_list_tests",
                             f"--benchmark_filter=^pool/f32/p{p}/.*/lpnorm/"],
                            check=True, capture_output=True, text=True).stdout.split()
    cases = []
    for name in listed:
        if not name.startswith("pool/"):
            continue
        window, shape_text = name.split("/")[3:5]
        if pattern and not re.search(pattern, f"{window}/{shape_text}"):
            continue
        shape = [int(v) for v in shape_text.split("x")]
        spatial = len(shape) - 2
        fields = {f[0]: [int(v) for v in f[1:].split("x")] for f in window.split("_")}
        kernel = fields["k"]
        strides = fields.get("s", [1] * spatial)
        pad = fields.get("p", [0] * spatial)
        if len(strides) == 1:
            strides = strides * spatial
        if len(pad) == 1:
            pad = pad * spatial
        cases.append((window, shape, kernel, strides, pad + pad))
    return cases


# ---- lpnorm through its C ABI --------------------------------------------------------------

class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("memory", ctypes.c_int32)]


class PoolParams(ctypes.Structure):
    _fields_ = [("spatial_dims", ctypes.c_int32), ("kernel", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("dilations", ctypes.POINTER(ctypes.c_int64)),
                ("pads", ctypes.POINTER(ctypes.c_int64)), ("auto_pad", ctypes.c_int32),
                ("ceil_mode", ctypes.c_int32), ("p", ctypes.c_double), ("mode", ctypes.c_int32),
                ("overhang", ctypes.c_int32)]


def int64s(values):
    return (ctypes.c_int64 * len(values))(*values)


class Lpnorm:
    FLOAT32 = 0

    def __init__(self, path, threads):
        self.lib = ctypes.CDLL(str(path))
        self.lib.lpnorm_last_error.restype = ctypes.c_char_p
        self.lib.lpnorm_active_isa.restype = ctypes.c_char_p
        self.lib.lpnorm_set_num_threads(threads)
        self.isa = self.lib.lpnorm_active_isa().decode()

    def pool(self, x, kernel, strides, pads, p):
        """A callable that pools x into a new array, and that array."""
        spatial = x.ndim - 2
        keep = [int64s(kernel), int64s(strides), int64s(pads)]
        params = PoolParams(spatial, keep[0], keep[1], None, keep[2], 0, 0, float(p), 0, 0)
        out_rank, out_shape = ctypes.c_int32(), (ctypes.c_int64 * 8)()
        self._check(self.lib.lpnorm_pool_output_shape(x.ndim, int64s(x.shape), ctypes.byref(params),
                                                      ctypes.byref(out_rank), out_shape))
        y = np.empty(list(out_shape[:out_rank.value]), dtype=np.float32)
        x_shape, y_shape = int64s(x.shape), int64s(y.shape)
        tx = Tensor(x.ctypes.data, self.FLOAT32, x.ndim, x_shape, None, 0)
        ty = Tensor(y.ctypes.data, self.FLOAT32, y.ndim, y_shape, None, 0)
        args = (ctypes.byref(tx), ctypes.byref(ty), ctypes.byref(params))

        def run():
            self._check(self.lib.lpnorm_pool(*args))
        run.keep = (keep, x_shape, y_shape, tx, ty, params)
        return run, y

    def _check(self, status):
        if status != 0:
            raise RuntimeError("lpnorm: " + self.lib.lpnorm_last_error().decode())


# ---- peers --------------------------------------------------------------------------------

def onnx_lppool(x, kernel, strides, pads, p):
    import onnx
    from onnx import TensorProto, helper
    node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=kernel, strides=strides,
                            pads=pads, p=int(p))
    graph = helper.make_graph([node], "lppool",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * x.ndim)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def onnxruntime_peer(model, x, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {"x": x}
    return lambda: session.run(None, feeds)[0]


def openvino_peer(model, x, threads):
    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(core.read_model(model, b""), "CPU",
                                  {"INFERENCE_NUM_THREADS": threads,
                                   "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    return lambda: request.infer({0: x}, share_inputs=True)[0]


def torch_peer(x, kernel, strides, pads, p, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    spatial = x.ndim - 2
    t = torch.from_numpy(x)
    pad = pads[:spatial]
    if any(pads):
        avg = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[spatial]
        size = math.prod(kernel)

        def run():
            with torch.no_grad():
                return (avg(t.abs().pow(p), kernel, strides, pad, count_include_pad=True)
                        .mul(size).pow(1.0 / p).numpy())
        return run
    lp = {1: F.lp_pool1d, 2: F.lp_pool2d, 3: F.lp_pool3d}[spatial]
    k = kernel[0] if spatial == 1 else kernel
    s = strides[0] if spatial == 1 else strides

    def run():
        # lp_pool raises x itself to p (its signed mode); ONNX's LpPool raises |x|.
        with torch.no_grad():
            return lp(t.abs() if p % 2 else t, float(p), k, s).numpy()
    return run


# ---- timing -------------------------------------------------------------------------------

def time_call(run, seconds=0.1):
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 3:
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=ROOT / "build/bench/lpnorm_bench")
    ap.add_argument("--lib", default=ROOT / "build/bench/liblpnorm_c.so")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--p", type=int, default=2, help="integer (ONNX LpPool's p is an int)")
    ap.add_argument("--filter", default="", help="regex on <window>/<shape>")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    lp = Lpnorm(args.lib, args.threads)
    versions = {"lpnorm": f"isa {lp.isa}"}
    for module in ("onnxruntime", "openvino", "torch"):
        versions[module] = __import__(module).__version__
    print(f"# {args.threads} threads, float32, p = {args.p}; " +
          ", ".join(f"{k} {v}" for k, v in versions.items()), flush=True)
    rng = np.random.default_rng(1)
    results = []
    for window, shape, kernel, strides, pads in bench_cases(args.bench, args.p, args.filter):
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        run, y = lp.pool(x, kernel, strides, pads, args.p)
        run()
        model = onnx_lppool(x, kernel, strides, pads, args.p)
        runs = {"lpnorm": run,
                "onnxruntime": onnxruntime_peer(model, x, args.threads),
                "openvino": openvino_peer(model, x, args.threads),
                "torch": torch_peer(x, kernel, strides, pads, args.p, args.threads)}
        for name, peer in runs.items():
            if name != "lpnorm":
                got = np.asarray(peer())
                if got.shape != y.shape or not np.allclose(got, y, rtol=1e-4, atol=1e-6):
                    err = np.max(np.abs(got - y)) if got.shape == y.shape else got.shape
                    sys.exit(f"{name} disagrees with lpnorm on {window} {shape}: {err}")
        samples = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, peer in runs.items():
                samples[name].append(time_call(peer))
        med = {name: statistics.median(v) for name, v in samples.items()}
        row = {"window": window, "shape": shape, "ms": {k: v * 1e3 for k, v in med.items()},
               "over_lpnorm": {k: v / med["lpnorm"] for k, v in med.items() if k != "lpnorm"}}
        results.append(row)
        cells = " | ".join(f"{row['ms'][k]:.3g} ms ({row['over_lpnorm'][k]:.2f}x)"
                           for k in runs if k != "lpnorm")
        if len(results) == 1:
            print("| window | shape | lpnorm | " + " | ".join(k for k in runs if k != "lpnorm")
                  + " |\n|---|---|---:|---:|---:|---:|")
        print(f"| {window} | {'x'.join(map(str, shape))} | {row['ms']['lpnorm']:.3g} ms | {cells} |",
              flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"versions": versions, "threads": args.threads,
                                               "p": args.p, "results": results}, indent=1))


if __name__ == "__main__":
    main()
