#!/usr/bin/env python3
"""lpnorm from Python side by side with ONNX Runtime, OpenVINO, PyTorch and numpy, in one process.

    tools/dev.sh peers [ARGS]       # or, with the Python package importable and the bench built:
    python bench/peers.py [--threads 2] [--rounds 5] [--p 2] [--filter REGEX] [--out-dir docs]

The cases are those of lpnorm_bench (bench_main.cpp, bench_pool.cpp, bench_normalize.cpp), read
from `lpnorm_bench --benchmark_list_tests`, so there is one list: the float32 reductions, pooling
windows and normalizations for --p (1 or 2: ONNX's ReduceL1/ReduceL2 and LpNormalization and
OpenVINO's have no other p).
- lpnorm: the Python package (`lpnorm.reduce`, `lpnorm.pool`, `lpnorm.normalize`) writing into a
  preallocated output (`out=`).
- ONNX Runtime: a model of one ReduceL1/ReduceL2, LpPool or LpNormalization node, run with I/O
  binding into a preallocated output. OpenVINO: the same model, one infer request with a shared
  input (it decomposes LpPool into power, average pool and power, and reads LpNormalization
  as NormalizeL2 for p = 2; inference precision held at f32).
- PyTorch: torch.linalg.vector_norm; F.lp_pool*d, or where the window has pads (lp_pool has
  none) the same formula through avg_pool*d; F.normalize. numpy: numpy.linalg.vector_norm (no
  pooling), and x divided by it for normalization.
Every implementation runs on --threads threads (numpy's norm is one thread). Each output is
compared with lpnorm's before anything is timed: a different shape stops the run; a largest
relative difference above 1e-4 (a peer summing long reductions in float32) is shown beside
its time and written to the CSV.

Timing: rounds interleave the implementations; in a round each runs for at least 0.1 s and its
time per call is the median of those calls; the tables give the median over rounds and each
peer's time over lpnorm's. --out-dir gets peers.csv and the plots peers_reduce.png,
peers_pool.png and peers_normalize.png (time per case per implementation, log scale, and the
ratio to lpnorm).
"""
import argparse
import csv
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import lpnorm

ROOT = Path(__file__).resolve().parent.parent
PEERS = ["onnxruntime", "openvino", "torch", "numpy"]


# ---- the cases: from lpnorm_bench ---------------------------------------------------------

def bench_cases(bench, p, pattern):
    """Dicts with op "reduce" (shape, axes) or "pool" (shape, kernel, strides, pads as ONNX's
    [begin..., end...]), one per float32 lpnorm benchmark of order p."""
    listed = subprocess.run([str(bench), "--benchmark_list_tests",
                             f"--benchmark_filter=^(reduce|pool|normalize)/f32/p{p}/.*/lpnorm(/|$)"],
                            check=True, capture_output=True, text=True).stdout.split()
    cases = []
    for name in listed:
        parts = name.split("/")
        if parts[0] == "reduce":
            shape = [int(v) for v in parts[4].split("x")]
            axes_text = parts[5][len("axes"):]
            axes = list(range(len(shape))) if axes_text == "all" else [int(a) for a in axes_text.split(",")]
            label = f"{parts[4]} axes {axes_text}"
            case = {"op": "reduce", "label": label, "shape": shape, "axes": axes}
        elif parts[0] == "pool":
            window, shape_text = parts[3:5]
            shape = [int(v) for v in shape_text.split("x")]
            spatial = len(shape) - 2
            fields = {f[0]: [int(v) for v in f[1:].split("x")] for f in window.split("_")}
            strides = fields.get("s", [1] * spatial)
            pad = fields.get("p", [0] * spatial)
            strides = strides * spatial if len(strides) == 1 else strides
            pad = pad * spatial if len(pad) == 1 else pad
            case = {"op": "pool", "label": f"{shape_text} {window}", "shape": shape,
                    "kernel": fields["k"], "strides": strides, "pads": pad + pad}
        elif parts[0] == "normalize":
            shape = [int(v) for v in parts[3].split("x")]
            axis = int(parts[4][len("axis"):])
            case = {"op": "normalize", "label": f"{parts[3]} axis {axis}", "shape": shape,
                    "axis": axis}
        else:
            continue
        if not pattern or re.search(pattern, f"{case['op']} {case['label']}"):
            cases.append(case)
    return cases


# ---- the implementations: each returns a callable and the array it writes ----------------

def lpnorm_run(case, x, p):
    if case["op"] == "normalize":
        y = lpnorm.normalize(x, p, case["axis"])
        return (lambda: lpnorm.normalize(x, p, case["axis"], out=y)), y
    if case["op"] == "reduce":
        y = lpnorm.reduce(x, p, case["axes"])
        return (lambda: lpnorm.reduce(x, p, case["axes"], out=y)), y
    args = dict(strides=case["strides"], pads=case["pads"])
    y = lpnorm.pool(x, p, case["kernel"], **args)
    return (lambda: lpnorm.pool(x, p, case["kernel"], out=y, **args)), y


def onnx_model(case, x, y, p):
    import onnx
    from onnx import TensorProto, helper
    if case["op"] == "reduce":
        axes = helper.make_tensor("axes", TensorProto.INT64, [len(case["axes"])], case["axes"])
        node = helper.make_node(f"ReduceL{p}", ["x", "axes"], ["y"], keepdims=0)
        initializers = [axes]
    elif case["op"] == "normalize":
        node = helper.make_node("LpNormalization", ["x"], ["y"], axis=case["axis"], p=int(p))
        initializers = []
    else:
        node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=case["kernel"],
                                strides=case["strides"], pads=case["pads"], p=int(p))
        initializers = []
    graph = helper.make_graph([node], case["op"],
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def onnxruntime_run(model, x, y_like, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    y = np.empty_like(y_like)
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("y", "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    return (lambda: session.run_with_iobinding(binding)), y


def openvino_run(model, x, threads):
    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(core.read_model(model, b""), "CPU",
                                  {"INFERENCE_NUM_THREADS": threads,
                                   "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer({0: x}, share_inputs=True)
    return (lambda: request.infer({0: x}, share_inputs=True)), request.get_output_tensor(0).data


def torch_run(case, x, p, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    t = torch.from_numpy(x)
    if case["op"] == "normalize":
        y = torch.empty_like(t)
        return (lambda: F.normalize(t, p, case["axis"], out=y)), y.numpy()
    if case["op"] == "reduce":
        y = torch.linalg.vector_norm(t, p, case["axes"])
        return (lambda: torch.linalg.vector_norm(t, p, case["axes"], out=y)), y.numpy()
    spatial = x.ndim - 2
    kernel, strides, pads = case["kernel"], case["strides"], case["pads"]
    if any(pads):
        avg = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[spatial]
        size = math.prod(kernel)

        def run():
            with torch.no_grad():
                return (avg(t.abs().pow(p), kernel, strides, pads[:spatial], count_include_pad=True)
                        .mul(size).pow(1.0 / p))
    else:
        lp = {1: F.lp_pool1d, 2: F.lp_pool2d, 3: F.lp_pool3d}[spatial]
        k = kernel[0] if spatial == 1 else kernel
        s = strides[0] if spatial == 1 else strides

        def run():
            # lp_pool raises x itself to p; ONNX's LpPool raises |x| (the same for p = 2).
            with torch.no_grad():
                return lp(t.abs() if p % 2 else t, float(p), k, s)
    return run, run().numpy()


def numpy_run(case, x, p):
    if case["op"] == "normalize":
        def run():
            return x / np.linalg.vector_norm(x, ord=p, axis=case["axis"], keepdims=True)
        return run, run()
    if case["op"] != "reduce":
        return None, None
    axes = tuple(case["axes"])
    return (lambda: np.linalg.vector_norm(x, ord=p, axis=axes)), np.linalg.vector_norm(x, ord=p, axis=axes)


# ---- timing -------------------------------------------------------------------------------

def time_call(run, seconds=0.1):
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 3:
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def plot(rows, op, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in rows if r["op"] == op]
    if not rows:
        return
    names = ["lpnorm"] + [n for n in PEERS if any(r["ms"].get(n) for r in rows)]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 8), sharex=True)
    width = 0.8 / len(names)
    xs = np.arange(len(rows))
    for i, name in enumerate(names):
        ms = [r["ms"].get(name) or np.nan for r in rows]
        color = f"C{(['lpnorm'] + PEERS).index(name)}"
        top.bar(xs + i * width, ms, width, label=name, color=color)
        if name != "lpnorm":
            bottom.bar(xs + i * width, [m / r["ms"]["lpnorm"] for m, r in zip(ms, rows)], width,
                       label=name, color=color)
    top.set_yscale("log")
    top.set_ylabel("time per call (ms)")
    top.legend(ncol=len(names), fontsize=8)
    bottom.set_yscale("log")
    bottom.axhline(1, color="black", linewidth=0.8)
    bottom.set_ylabel("time / lpnorm's")
    bottom.set_xticks(xs + width * (len(names) - 1) / 2,
                      [r["label"].replace(" ", "\n", 1) for r in rows], fontsize=7)
    top.set_title(f"{op}, float32, p = {rows[0]['p']}: lpnorm and peers in one process "
                  f"(medians; lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replot(path, out_dir):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            ms = {k: float(r[f"{k}_ms"]) for k in ["lpnorm"] + PEERS if r[f"{k}_ms"]}
            rows.append({"op": r["op"], "label": r["case"], "p": int(r["p"]), "ms": ms})
    for op in ("reduce", "pool", "normalize"):
        plot(rows, op, out_dir / f"peers_{op}.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=ROOT / "build/bench/lpnorm_bench")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--p", type=int, default=2, choices=[1, 2])
    ap.add_argument("--filter", default="", help="regex on '<op> <shape> <window or axes>'")
    ap.add_argument("--out-dir", help="write peers.csv and the plots here")
    ap.add_argument("--replot", metavar="CSV", help="only draw the plots of a peers.csv (into "
                    "--out-dir, default the CSV's directory)")
    args = ap.parse_args()
    if args.replot:
        replot(Path(args.replot), Path(args.out_dir or Path(args.replot).parent))
        return

    lpnorm.set_num_threads(args.threads)
    versions = {"lpnorm": f"{lpnorm.info()['version']} (isa {lpnorm.info()['active_isa']})",
                "numpy": np.__version__}
    for module in ("onnxruntime", "openvino", "torch"):
        versions[module] = __import__(module).__version__
    print(f"# {args.threads} threads, float32, p = {args.p}; " +
          ", ".join(f"{k} {v}" for k, v in versions.items()), flush=True)
    rng = np.random.default_rng(1)
    rows = []
    for case in bench_cases(args.bench, args.p, args.filter):
        x = rng.uniform(-1, 1, size=case["shape"]).astype(np.float32)
        run, y = lpnorm_run(case, x, args.p)
        model = onnx_model(case, x, y, args.p)
        runs = {"lpnorm": (run, y),
                "onnxruntime": onnxruntime_run(model, x, y, args.threads),
                "openvino": openvino_run(model, x, args.threads),
                "torch": torch_run(case, x, args.p, args.threads),
                "numpy": numpy_run(case, x, args.p)}
        runs = {k: v for k, v in runs.items() if v[0] is not None}
        errors = {}
        for name, (peer, out) in runs.items():
            peer()
            got = np.asarray(out, dtype=np.float64)
            if got.shape != y.shape:
                sys.exit(f"{name} gives shape {got.shape} on {case['op']} {case['label']}, "
                         f"lpnorm {y.shape}")
            # A peer that sums in float32 can be this far off on long sums: timed, and flagged.
            errors[name] = float(np.max(np.abs(got - y) / np.maximum(np.abs(y), 1e-30)))
        samples = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (peer, _) in runs.items():
                samples[name].append(time_call(peer))
        ms = {name: statistics.median(v) * 1e3 for name, v in samples.items()}
        row = {"op": case["op"], "label": case["label"], "p": args.p, "ms": ms, "err": errors}
        rows.append(row)
        if len(rows) == 1 or rows[-2]["op"] != row["op"]:
            print(f"\n| {row['op']} | lpnorm | " + " | ".join(PEERS) + " |\n|---|---:|"
                  + "---:|" * len(PEERS))
        cells = " | ".join((f"{ms[k]:.3g} ms ({ms[k] / ms['lpnorm']:.2f}x)" +
                            (f" rel. err. {errors[k]:.1e}" if errors[k] > 1e-4 else ""))
                           if k in ms else "-" for k in PEERS)
        print(f"| {row['label']} | {ms['lpnorm']:.3g} ms | {cells} |", flush=True)
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "peers.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["op", "case", "p", "threads"] + [f"{k}_ms" for k in ["lpnorm"] + PEERS]
                       + [f"{k}_max_rel_err" for k in PEERS])
            for r in rows:
                w.writerow([r["op"], r["label"], r["p"], args.threads] +
                           [f"{r['ms'][k]:.6g}" if k in r["ms"] else "" for k in ["lpnorm"] + PEERS] +
                           [f"{r['err'][k]:.3g}" if k in r["err"] else "" for k in PEERS])
        for op in ("reduce", "pool", "normalize"):
            plot(rows, op, out / f"peers_{op}.png")
        print(f"\nwrote {out / 'peers.csv'} and the plots; versions: {versions}")


if __name__ == "__main__":
    main()
