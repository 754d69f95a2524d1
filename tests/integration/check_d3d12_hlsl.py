#!/usr/bin/env python3
"""Checks the HLSL that Halide embeds in every D3D12 compute kernel object: the check that the
D3D12 kernels would load on Windows, run on a machine without it.

For each kernel object (lpnorm_*_d3d12.obj) it
  - extracts the HLSL source (one per object; the Halide runtime compiles it with D3DCompile
    for shader model cs_5_1 when the kernel first runs);
  - finds every entry point, checks that the host code launches it by that name, and checks
    its [numthreads(x, y, z)] against D3D12's limits (x, y <= 1024, z <= 64, x*y*z <= 1024);
  - checks that constant groupshared arrays fit shader model 5's 32 KiB;
  - compiles every entry point with glslang's HLSL front end (glslangValidator -D), the HLSL
    compiler Debian has. Entry points sized at launch (__NUM_TREADS_X...) are compiled with
    the sizes the runtime will pass: the schedule's thread count, given as THREADS.
and checks that the static library exports every kernel and the D3D12 runtime.

usage: check_d3d12_hlsl.py KERNELS_DIR LIBRARY THREADS
Exits 77 (a skip for ctest) with the reason when glslangValidator is not installed and every
other check passed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Halide's HLSL starts with this preamble; the source is NUL-terminated.
MARKER = b"#pragma warning( disable : 3078 )"
ENTRY = re.compile(r"\[\s*numthreads\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)\s*\]\s*"
                   r"void\s+(\w+)\s*\(")
GROUPSHARED = re.compile(r"groupshared\s+(\w+)\s+\w+\s*\[\s*(\d+)\s*\]")
LAUNCH_SIZE_MACROS = {"__NUM_TREADS_X", "__NUM_TREADS_Y", "__NUM_TREADS_Z"}
MAX_THREADS, MAX_Z, MAX_GROUPSHARED_BYTES = 1024, 64, 32 * 1024


def embedded_hlsl(data):
    start = data.find(MARKER)
    if start < 0:
        return None
    return data[start:data.find(b"\0", start)].decode()


def portable(source):
    """fxc's MSVC-style NaN literal, which glslang does not parse, as its bits."""
    return source.replace("1.#IND", "asfloat(0x7fc00000u)")


def check_object(path, threads, glslang, tmp):
    """The failures found in one kernel object, and its entry point count."""
    data = open(path, "rb").read()
    hlsl = embedded_hlsl(data)
    if hlsl is None:
        return ["no embedded HLSL"], 0
    failures = []
    entries = ENTRY.findall(hlsl)
    if not entries:
        failures.append("no [numthreads] entry point")
    defines = {}
    for x, y, z, name in entries:
        if data.count(name.encode()) < 2:
            failures.append(f"{name}: the host code never launches it")
        sizes = []
        for axis, value in zip("XYZ", (x, y, z)):
            if value.isdigit():
                sizes.append(int(value))
            elif value in LAUNCH_SIZE_MACROS:
                sizes.append(threads if axis == "X" else 1)
                defines[value] = sizes[-1]
            else:
                failures.append(f"{name}: numthreads {value} is neither a number nor a "
                                "launch-size macro")
                sizes.append(1)
        if (max(sizes[:2]) > MAX_THREADS or sizes[2] > MAX_Z
                or sizes[0] * sizes[1] * sizes[2] > MAX_THREADS):
            failures.append(f"{name}: numthreads{tuple(sizes)} beyond D3D12's limits")
    shared = sum(int(n) * 4 for _, n in GROUPSHARED.findall(hlsl))  # 32-bit elements
    if shared > MAX_GROUPSHARED_BYTES:
        failures.append(f"groupshared {shared} bytes > {MAX_GROUPSHARED_BYTES}")
    if glslang is None:
        return failures, len(entries)
    source = os.path.join(tmp, "kernel.hlsl")
    open(source, "w").write(portable(hlsl))
    flags = [f"-D{k}={v}" for k, v in sorted(defines.items())]
    flags.append(f"-D__GROUPSHARED_SIZE_IN_BYTES={max(shared, 16)}")
    for _, _, _, name in entries:
        run = subprocess.run([glslang, "-D", "-S", "comp", "-V", "-e", name, *flags, source,
                              "-o", os.path.join(tmp, "kernel.spv")],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{name}: glslang failed:\n{run.stdout}{run.stderr}")
    return failures, len(entries)


def exported_symbols(library):
    nm = shutil.which("nm")
    if nm is None:
        return None
    run = subprocess.run([nm, "--defined-only", "-g", library], capture_output=True, text=True)
    return {line.split()[-1] for line in run.stdout.splitlines() if len(line.split()) >= 3}


def main():
    kernels_dir, library, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    objects = sorted(glob.glob(os.path.join(kernels_dir, "lpnorm_*_d3d12.obj")))
    if not objects:
        print(f"no D3D12 kernel objects in {kernels_dir}")
        return 1
    glslang = shutil.which("glslangValidator")
    failures = entry_points = 0
    with tempfile.TemporaryDirectory() as tmp:
        for obj in objects:
            found, entries = check_object(obj, threads, glslang, tmp)
            entry_points += entries
            for failure in found:
                print(f"FAIL {os.path.basename(obj)}: {failure}")
            failures += len(found)
    symbols = exported_symbols(library)
    if symbols is None:
        print("FAIL: nm not found; cannot list the library's symbols")
        failures += 1
    else:
        # Every kernel, and the D3D12 runtime they launch through.
        wanted = [os.path.splitext(os.path.basename(obj))[0] for obj in objects]
        for symbol in wanted + ["halide_d3d12compute_run"]:
            if symbol not in symbols:
                print(f"FAIL {os.path.basename(library)} does not export {symbol}")
                failures += 1
    compiled = "compiled by glslang" if glslang else "not compiled"
    print(f"{len(objects)} D3D12 kernel objects, {entry_points} entry points checked and "
          f"{compiled}, {failures} failures")
    if failures:
        return 1
    if glslang is None:
        print("SKIP: glslangValidator (Debian glslang-tools) not found; the HLSL was checked "
              "but not compiled")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
