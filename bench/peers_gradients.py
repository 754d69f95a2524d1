#!/usr/bin/env python3
"""lpnorm's gradient kernels side by side with PyTorch's autograd, in one process.

    PYTHONPATH=<build>/python python bench/peers_gradients.py --bench <build>/bench/lpnorm_bench \\
        [--threads 2] [--rounds 5] [--filter REGEX]

The cases are lpnorm_bench's float32 reduce_backward and normalize_backward rows
(bench_normalize.cpp): the gradients of y = ||x||_p and of y = F.normalize(x, p) over one axis.
For each, two timings per implementation:
- backward alone: lpnorm's kernel (torch.ops.lpnorm.vector_norm_backward or normalize_backward,
  what lpnorm.torch's autograd calls) against torch.autograd.grad of PyTorch's own graph
  (torch.linalg.vector_norm, F.normalize), kept alive;
- forward + backward: lpnorm.torch's op then .backward(), against PyTorch's op then
  .backward().
Both gradients are compared before timing (largest difference relative to the largest |dx|).
Timing: rounds interleave the implementations; in a round each runs for at least 0.1 s and its
time per call is the median of those calls; the table gives the median over rounds and
PyTorch's time over lpnorm's.
"""
import argparse
import math
import re
import statistics
import subprocess

import torch

import lpnorm
import lpnorm.torch as lt
from peers import time_call


def bench_cases(bench, pattern):
    listed = subprocess.run([str(bench), "--benchmark_list_tests",
                             "--benchmark_filter=^(reduce|normalize)_backward/f32/.*/lpnorm"],
                            check=True, capture_output=True, text=True).stdout.split()
    cases = []
    for name in listed:
        parts = name.split("/")
        p = math.inf if parts[2] == "pinf" else float(parts[2][1:])
        shape = [int(v) for v in parts[3].split("x")]
        axis = int(parts[4][len("axis"):])
        op = parts[0].split("_")[0]
        label = f"{op} {parts[3]} axis {axis} p={parts[2][1:]}"
        if not pattern or re.search(pattern, label):
            cases.append({"op": op, "label": label, "shape": shape, "axis": axis, "p": p})
    return cases


def implementations(case):
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
            return torch.ops.lpnorm.normalize_backward(x, dy, p, axis, 1e-12)

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lpnorm.set_num_threads(args.threads)
    print(f"lpnorm, torch {torch.__version__}, {args.threads} threads, "
          f"medians of {args.rounds} rounds")
    print("| case | timing | lpnorm | PyTorch | PyTorch / lpnorm | max rel. diff |")
    print("|---|---|---:|---:|---:|---:|")
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


if __name__ == "__main__":
    main()
