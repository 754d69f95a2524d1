#!/usr/bin/env python3
"""lpnorm's gradient kernels side by side with PyTorch's autograd, in one process.

    PYTHONPATH=<build>/python python bench/peers_gradients.py --bench <build>/bench/lpnorm_bench \\
        [--threads 2] [--rounds 5] [--filter REGEX] [--plot PNG]

The cases are lpnorm_bench's float32 reduce_backward, normalize_backward and pool_backward
rows (bench_normalize.cpp, bench_pool.cpp): the gradients of y = ||x||_p and of
y = F.normalize(x, p) over one axis, and of Lp pooling (abs mode; PyTorch's graph is its
lp_pool formula, avg_pool of |x|^p times K then the root, with count_include_pad for pads).
For each, two timings per implementation:
- backward alone: lpnorm's kernel (torch.ops.lpnorm.vector_norm_backward, normalize_backward
  or lpnorm.pool_backward) against torch.autograd.grad of PyTorch's own graph, kept alive;
- forward + backward: lpnorm's op then its backward (lpnorm.torch's autograd; for pooling,
  lpnorm.pool then lpnorm.pool_backward), against PyTorch's op then .backward().
Both gradients are compared before timing (largest difference relative to the largest |dx|).
Timing: rounds interleave the implementations; in a round each runs for at least 0.1 s and its
time per call is the median of those calls; the table gives the median over rounds and
PyTorch's time over lpnorm's. --plot draws that ratio per case, backward alone and forward +
backward (log scale), into a PNG.
"""
import argparse
import math
import re
import statistics
import subprocess

import torch
import torch.nn.functional as F

import lpnorm
import lpnorm.torch as lt
from peers import time_call


def pool_case(parts):
    # pool_backward/f32/p2/k3x3_s1_p1/32x64x112x112/lpnorm
    fields = parts[3].split("_")
    kernel = [int(v) for v in fields[0][1:].split("x")]
    stride = int(fields[1][1:])
    pad = int(fields[2][1:]) if len(fields) > 2 else 0
    p = float(parts[2][1:])
    label = f"pool {parts[3]} {parts[4]} p={parts[2][1:]}"
    return {"op": "pool", "label": label, "shape": [int(v) for v in parts[4].split("x")],
            "kernel": kernel, "stride": stride, "pad": pad, "p": p}


def bench_cases(bench, pattern):
    listed = subprocess.run([str(bench), "--benchmark_list_tests",
                             "--benchmark_filter=^(reduce|normalize|pool)_backward/f32/.*/lpnorm"],
                            check=True, capture_output=True, text=True).stdout.split()
    cases = []
    for name in listed:
        parts = name.split("/")
        if parts[0] == "pool_backward":
            case = pool_case(parts)
            if not pattern or re.search(pattern, case["label"]):
                cases.append(case)
            continue
        p = math.inf if parts[2] == "pinf" else float(parts[2][1:])
        shape = [int(v) for v in parts[3].split("x")]
        axis = int(parts[4][len("axis"):])
        op = parts[0].split("_")[0]
        label = f"{op} {parts[3]} axis {axis} p={parts[2][1:]}"
        if not pattern or re.search(pattern, label):
            cases.append({"op": op, "label": label, "shape": shape, "axis": axis, "p": p})
    return cases


def pool_implementations(case):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(case["shape"], generator=g)
    k, s, pad, p = case["kernel"], case["stride"], case["pad"], case["p"]
    spatial = len(k)
    kw = dict(strides=[s] * spatial, pads=[pad] * (2 * spatial))
    avg_pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[spatial]
    volume = math.prod(k)

    def theirs_op(t):
        terms = t.abs() if p == 1 else t.abs().pow(p) if p != 2 else t * t
        sums = avg_pool(terms, k, s, pad, count_include_pad=True) * volume
        return sums if p == 1 else sums.sqrt() if p == 2 else sums.pow(1 / p)

    y = lpnorm.pool(x, p, k, **kw)
    dy = torch.randn(y.shape, generator=g)

    def lpnorm_backward():
        return lpnorm.pool_backward(x, y, dy, p, k, **kw)

    leaf = x.clone().requires_grad_()
    graph = theirs_op(leaf)

    def torch_backward():
        return torch.autograd.grad(graph, leaf, dy, retain_graph=True)[0]

    def lpnorm_both():
        return lpnorm.pool_backward(x, lpnorm.pool(x, p, k, **kw), dy, p, k, **kw)

    def torch_both():
        t = x.detach().requires_grad_()
        theirs_op(t).backward(dy)
        return t.grad

    return {"backward": (lpnorm_backward, torch_backward),
            "forward+backward": (lpnorm_both, torch_both)}


def implementations(case):
    if case["op"] == "pool":
        return pool_implementations(case)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(case["shape"], generator=g)
    p, axis = case["p"], case["axis"]
    if case["op"] == "reduce":
        def ours(t):
            return lt.vector_norm(t, p, [axis], True)

        def theirs_op(t):
            return torch.linalg.vector_norm(t, p, [axis], True)
    else:
        def ours(t):
            return lt.normalize(t, p, axis)

        def theirs_op(t):
            return torch.nn.functional.normalize(t, p, axis)
    y = theirs_op(x)
    dy = torch.randn(y.shape, generator=g)

    if case["op"] == "reduce":
        def lpnorm_backward():
            return torch.ops.lpnorm.vector_norm_backward(x, y, dy, p, [axis], True)
    else:
        def lpnorm_backward():
            return torch.ops.lpnorm.normalize_backward(x, dy, p, [axis], 1e-12)

    leaf = x.clone().requires_grad_()
    graph = theirs_op(leaf)

    def torch_backward():
        return torch.autograd.grad(graph, leaf, dy, retain_graph=True)[0]

    def both(op):
        def run():
            t = x.detach().requires_grad_()
            op(t).backward(dy)
            return t.grad
        return run

    return {"backward": (lpnorm_backward, torch_backward),
            "forward+backward": (both(ours), both(theirs_op))}


def plot(rows, path):
    """rows: (case label, timing, PyTorch / lpnorm). A bar per case and timing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = list(dict.fromkeys(label for label, _, _ in rows))
    timings = list(dict.fromkeys(timing for _, timing, _ in rows))
    ratio = {(label, timing): r for label, timing, r in rows}
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.2 * len(labels)))
    height = 0.8 / len(timings)
    for i, timing in enumerate(timings):
        ys = [j + i * height for j in range(len(labels))]
        ax.barh(ys, [ratio.get((label, timing), math.nan) for label in labels], height,
                label=timing, color=f"C{i + 1}")
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel("PyTorch autograd's time / lpnorm's (above 1: lpnorm faster)")
    ax.set_yticks([j + height * (len(timings) - 1) / 2 for j in range(len(labels))], labels,
                  fontsize=7)
    ax.invert_yaxis()
    ax.legend(fontsize=8)
    ax.set_title("gradients, float32, 2 threads: PyTorch's autograd over lpnorm (medians)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--filter", default="")
    parser.add_argument("--plot", help="draw PyTorch's time over lpnorm's per case into this PNG")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lpnorm.set_num_threads(args.threads)
    print(f"lpnorm, torch {torch.__version__}, {args.threads} threads, "
          f"medians of {args.rounds} rounds")
    print("| case | timing | lpnorm | PyTorch | PyTorch / lpnorm | max rel. diff |")
    print("|---|---|---:|---:|---:|---:|")
    ratios = []
    for case in bench_cases(args.bench, args.filter):
        for timing, (mine, theirs) in implementations(case).items():
            a, b = mine(), theirs()
            scale = b.abs().max().item() or 1.0
            diff = ((a - b).abs().nan_to_num(0).max().item()) / scale
            ms = {"lpnorm": [], "torch": []}
            for _ in range(args.rounds):
                ms["lpnorm"].append(time_call(mine) * 1e3)
                ms["torch"].append(time_call(theirs) * 1e3)
            m, t = statistics.median(ms["lpnorm"]), statistics.median(ms["torch"])
            print(f"| {case['label']} | {timing} | {m:.3g} ms | {t:.3g} ms | {t / m:.2f}x "
                  f"| {diff:.1e} |", flush=True)
            ratios.append((case["label"], timing, t / m))
    if args.plot:
        plot(ratios, args.plot)


if __name__ == "__main__":
    main()
