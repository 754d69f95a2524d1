"""Building candidates (generator -> object -> harness executable) and running them."""
import hashlib
import json
import os
import re
import resource
import shlex
import subprocess
from pathlib import Path

# The element types candidates may be generated, checked and timed for (--dtype; the harness
# is built for one of them). Tuned files are named for it and the build applies them to it
# only. Pooling is float32 only.
TUNED_DTYPES = ("float32", "float16")


def dtype_suffix(dtype):
    """What names of work files and reports add for `dtype` (float32, the default: nothing)."""
    return "" if dtype == "float32" else f".{dtype}"


HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def halide_target(isa, platform):
    """The Halide target of `isa`, from cmake/LpnormTargets.cmake (where targets are spelled)."""
    text = (ROOT / "cmake" / "LpnormTargets.cmake").read_text()
    targets = dict(re.findall(r'set\(LPNORM_TARGET_(\w+) "([^"]+)"\)', text))
    if isa not in targets:
        raise SystemExit(f"unknown ISA '{isa}' (cmake/LpnormTargets.cmake)")
    # A target may extend another's (${LPNORM_TARGET_<isa>}-tune_...).
    return re.sub(
        r"\$\{LPNORM_TARGET_(\w+)\}", lambda m: halide_target(m.group(1), platform), targets[isa]
    ).replace("${LPNORM_PLATFORM}", platform)


def default_platform(isa):
    return "arm-64-linux" if isa.startswith("neon") else "x86-64-linux"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class BuildError(Exception):
    pass


# Limits of one build step: an autoscheduler can take very long, or tens of GiB, on some
# pipelines (Adams2019 on the 2-D pooling grew past 11 GiB); it then fails as that baseline.
BUILD_SECONDS = 900
BUILD_BYTES = 6 << 30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (BUILD_BYTES, BUILD_BYTES))


def _run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=BUILD_SECONDS,
                           preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{shlex.join(map(str, cmd))} took more than {BUILD_SECONDS} s")
    if p.returncode != 0:
        raise BuildError(f"{(p.stderr or p.stdout).strip()[-2000:]} (exit status "
                         f"{p.returncode} of: {shlex.join(map(str, cmd))})")
    return p.stdout


class Builder:
    """Builds harness executables for one unit and target in `work`."""

    def __init__(self, unit, generator, target, platform, cxx, halide_include, work,
                 dtype="float32"):
        if dtype not in TUNED_DTYPES or (dtype != "float32" and unit.harness == "pool"):
            raise SystemExit(f"{unit.name}: the harness does not check or time {dtype}")
        self.unit, self.generator, self.target = unit, str(generator), target
        self.dtype = dtype
        self.cxx = shlex.split(cxx)
        self.halide_include = halide_include
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.runtime = self.work / "lpnorm_tune_runtime.o"
        if not self.runtime.exists():
            _run([self.generator, "-r", "lpnorm_tune_runtime", "-o", self.work, "-e", "object",
                  f"target={platform}"])
        # Named by their sources' hashes, so that an edited harness is rebuilt.
        pool_source = ROOT / "runtime" / "thread_pool.cpp"
        tag = (sha256(HERE / "harness.cpp")[:12] + sha256(ROOT / "bench" / "probe.cpp")[:12]
               + sha256(pool_source)[:12])
        self.harness = self.work / f"harness_{unit.harness}_{dtype}_{tag}.o"
        self.probe = self.work / f"probe_{tag}.o"
        self.thread_pool = self.work / f"thread_pool_{tag}.o"
        # The kernel's C header, which the harness includes for its prototype (knobs do not
        # change it).
        header_dir = self.work / f"header_{unit.name}_{dtype}"
        header_dir.mkdir(exist_ok=True)
        _run([self.generator, "-g", unit.generator, "-f", "lpnorm_tune_kernel", "-o",
              header_dir, "-e", "c_header", f"target={self.target}-no_runtime",
              f"input.type={dtype}", f"output.type={dtype}"] + unit.params)
        flags = ["-O2", "-std=c++17", f"-I{halide_include}", f"-I{ROOT / 'generators'}",
                 f"-I{ROOT / 'bench'}", f"-I{ROOT / 'runtime'}", f"-I{header_dir}"]
        if not self.harness.exists():
            pool = ["-DLPNORM_TUNE_POOL"] if unit.harness == "pool" else []
            half = ["-DLPNORM_TUNE_FLOAT16"] if dtype == "float16" else []
            _run(self.cxx + flags + pool + half + ["-c", HERE / "harness.cpp", "-o",
                                                   self.harness])
        if not self.probe.exists():
            _run(self.cxx + flags + ["-c", ROOT / "bench" / "probe.cpp", "-o", self.probe])
        if not self.thread_pool.exists():
            _run(self.cxx + flags + ["-c", pool_source, "-o", self.thread_pool])

    def build(self, params, name):
        """Generates the kernel with generator `params` and links it into an executable.
        Returns (executable, hash of the kernel object): equal hashes mean the same code."""
        out = self.work / "candidates" / name
        out.mkdir(parents=True, exist_ok=True)
        _run([self.generator, "-g", self.unit.generator, "-f", "lpnorm_tune_kernel", "-o", out,
              "-e", "object", f"target={self.target}-no_runtime",
              f"input.type={self.dtype}", f"output.type={self.dtype}"]
             + self.unit.params + params)
        obj = out / "lpnorm_tune_kernel.o"
        exe = out / "harness"
        _run(self.cxx + [self.harness, self.probe, self.thread_pool, obj, self.runtime,
                         "-lpthread", "-ldl", "-o", exe])
        return exe, sha256(obj)


class Runner:
    """Runs a harness executable here or through a user's command (`--runner`): the command
    gets the executable's path and its arguments appended, or substituted for {exe} and
    {args} when it names them."""

    def __init__(self, command=None, timeout=1800):
        self.command = command
        self.timeout = timeout

    def argv(self, exe, args):
        if not self.command:
            return [str(exe)] + args
        if "{exe}" in self.command:
            text = self.command.replace("{exe}", shlex.quote(str(exe)))
            text = text.replace("{args}", shlex.join(args))
            return shlex.split(text) + ([] if "{args}" in self.command else args)
        return shlex.split(self.command) + [str(exe)] + args

    def run(self, exe, args):
        """The harness's JSON output, or {"error": why}."""
        try:
            p = subprocess.run(self.argv(exe, args), capture_output=True, text=True,
                               timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {self.timeout} s"}
        if p.returncode != 0:
            return {"error": f"exit status {p.returncode}: {p.stderr.strip()[-500:]}"}
        try:
            return json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"error": f"no JSON in the output: {p.stdout[-300:]!r}"}
