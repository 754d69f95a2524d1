"""tools/autotune: tunes the schedule knobs of one or more units for one ISA family.

    .venv/bin/python tools/autotune UNIT... --isa avx2 [--budget N] [--autoschedulers]
    .venv/bin/python tools/autotune all --isa neon --cxx aarch64-linux-gnu-g++ \\
        --runner 'qemu-aarch64 -L /usr/aarch64-linux-gnu'

See tools/autotune/README.md. Every candidate is generated, linked into the harness, checked
against the harness's reference on small ragged shapes and on the benchmark shapes, then timed
on the benchmark shapes. The winner is re-timed against the hand schedule in interleaved rounds
and written to schedules/tuned/<unit>.<isa>.<dtype>.params (float32 unless --dtype float16) unless
it is slower than hand on a shape.
"""
import argparse
import datetime
import hashlib
import importlib.metadata
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import knobs as knobs_mod  # noqa: E402
import measure  # noqa: E402
import search  # noqa: E402
import state as state_mod  # noqa: E402
import tuned_file  # noqa: E402
from units import UNITS  # noqa: E402

AUTOSCHEDULERS = ["Mullapudi2016", "Adams2019", "Li2018", "Anderson2021"]


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="tools/autotune", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("units", nargs="+", help=f"'all' or some of: {' '.join(UNITS)}")
    ap.add_argument("--isa", default="avx2", help="ISA family of cmake/LpnormTargets.cmake")
    ap.add_argument("--platform", help="Halide arch-bits-os (default from the ISA)")
    ap.add_argument("--dtype", choices=measure.TUNED_DTYPES, default="float32",
                    help="element type generated, checked and timed (float16: reductions "
                         "only); the tuned file applies to it")
    ap.add_argument("--budget", type=int, default=40, help="distinct candidates per unit")
    ap.add_argument("--min-gain", type=float, default=0.01,
                    help="a knob moves only for a geomean gain above this (default 0.01)")
    ap.add_argument("--tie", type=float, default=0.01,
                    help="per-shape slowdown against hand taken as noise (default 0.01)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved hand/tuned/runner-up timing rounds at the end")
    ap.add_argument("--cases", choices=["bench", "tiny"], default="bench",
                    help="timed shapes: the benchmark ones, or tiny ones for flow tests")
    ap.add_argument("--autoschedulers", action="store_true",
                    help="also build and time Halide's autoschedulers as baselines")
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="kernel threads on the measuring machine (default: this one's cores)")
    ap.add_argument("--samples", type=int, default=5, help="timing samples per shape (min)")
    ap.add_argument("--min-sample-seconds", type=float, default=0.02)
    ap.add_argument("--runner", help="command that runs a harness executable (cross targets)")
    ap.add_argument("--cxx", default="g++", help="C++ compiler for the harness (target's)")
    ap.add_argument("--generator", help="lpnorm_generators executable "
                    "(default: <build-dir>/generators/lpnorm_generators)")
    ap.add_argument("--build-dir", default="build", help="native build with the generator")
    ap.add_argument("--work-dir", default="build-autotune", help="candidates and results cache")
    ap.add_argument("--out-dir", default=str(measure.ROOT / "schedules" / "tuned"),
                    help="where tuned files go")
    ap.add_argument("--compare", nargs="+", metavar="KNOBS",
                    help="no search: time the build's knobs (the tuned file's, else hand) "
                         "against each KNOBS ('streams=1,vector_multiple=4', applied over "
                         "them) in --rounds interleaved rounds, and print medians against "
                         "the probe; writes no file")
    ap.add_argument("--no-reject", action="store_true",
                    help="flow tests only: write the best candidate even when it loses to hand")
    args = ap.parse_args(argv)
    if args.units == ["all"]:
        args.units = list(UNITS)
    for u in args.units:
        if u not in UNITS:
            ap.error(f"unknown unit '{u}'")
    args.platform = args.platform or measure.default_platform(args.isa)
    return args


def log(msg):
    print(msg, flush=True)


def dir_name(key):
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def fmt_duration(seconds):
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


class UnitTuner:
    def __init__(self, args, unit, generator, halide_include):
        self.args, self.unit = args, unit
        all_knobs = knobs_mod.load(measure.ROOT, unit.family)
        self.knobs = [all_knobs[name] for name in unit.knobs]
        self.hand = {k.name: k.default for k in self.knobs}
        self.cases = unit.bench if args.cases == "bench" else unit.tiny
        self.verify = unit.verify if args.cases == "bench" else []
        self.target = measure.halide_target(args.isa, args.platform)
        suffix = measure.dtype_suffix(args.dtype)
        work = Path(args.work_dir) / f"{unit.name}.{args.isa}{suffix}"
        self.builder = measure.Builder(unit, generator, self.target, args.platform, args.cxx,
                                       halide_include, work, args.dtype)
        self.runner = measure.Runner(args.runner)
        header = {"generator": measure.sha256(generator), "target": self.target,
                  "cases": self.cases, "verify": self.verify, "threads": args.threads,
                  "harness": measure.sha256(measure.HERE / "harness.cpp"),
                  "thread_pool": measure.sha256(measure.ROOT / "runtime" / "thread_pool.cpp"),
                  "samples": args.samples, "min_sample_seconds": args.min_sample_seconds}
        self.state = state_mod.State(str(work / "state.jsonl"), header)
        self.by_object = {r["object"]: r for r in self.state.results.values() if "object" in r}
        self.exes = {}
        self.built = 0
        self.build_seconds = 0.0

    def timing_args(self):
        return (["--threads", str(self.args.threads), "--samples", str(self.args.samples),
                 "--min-sample-seconds", str(self.args.min_sample_seconds)]
                + self.unit.harness_args)

    def measure(self, key, params, baseline=False):
        """Result of a candidate (cached): {"ok", "times", ...} or {"ok": False, "why"}."""
        result = self.state.get(key)
        if result is not None:
            return result
        start = time.time()
        try:
            exe, obj = self.builder.build(params, dir_name(key))
        except measure.BuildError as e:
            result = {"ok": False, "why": f"build failed: {e}"}
            self.state.put(key, result)
            return result
        self.exes[key] = exe
        same = self.by_object.get(obj)
        if same is not None:  # identical code: no need to time it again
            result = dict(same, same_code=True)
        else:
            result = self._run(exe, baseline)
            result["object"] = obj
            if result.get("ok"):
                self.by_object[obj] = result
        self.state.put(key, result)
        self.built += 1
        self.build_seconds += time.time() - start
        return result

    def _run(self, exe, baseline=False):
        """Verifies, then times. A baseline (an autoscheduler) that fails on the small shapes
        is still timed on the benchmark shapes, with the failure noted."""
        verify_failed = None
        if self.verify:
            verify_failed = self._failure(self.runner.run(
                exe, ["--no-time"] + self.unit.harness_args + self.verify))
            if verify_failed and not baseline:
                return {"ok": False, "why": verify_failed}
        out = self.runner.run(exe, self.timing_args() + self.cases)
        bad = self._failure(out)
        if bad:
            return {"ok": False, "why": bad}
        result = {"ok": True, "cpu": out["cpu"], "times": [c["seconds"] for c in out["cases"]],
                  "stable": [c["stable"] for c in out["cases"]]}
        if verify_failed:
            result["verify_failed"] = verify_failed
        return result

    @staticmethod
    def _failure(out):
        if "error" in out:
            return out["error"]
        for c in out["cases"]:
            if not c.get("ok"):
                return f"wrong result on {c['case']}: {c.get('why')}"
        return None

    def params(self, point):
        return [f"{k}={v}" for k, v in point.items()]

    def tune(self):
        u, a = self.unit, self.args
        log(f"== {u.name} on {a.isa} ({self.target}): knobs {', '.join(u.knobs)}")
        hand_key = search.key(self.hand)
        hand = self.measure(hand_key, self.params(self.hand))
        if not hand.get("ok"):
            raise SystemExit(f"{u.name}: the hand schedule failed: {hand.get('why')}")
        cd = search.CoordinateDescent(self.knobs, self.hand, a.budget, a.min_gain)
        started = time.time()

        def evaluate(point):
            key = search.key(point)
            cached = self.state.get(key) is not None
            r = self.measure(key, self.params(point))
            score = search.geomean_ratio(r["times"], hand["times"]) if r.get("ok") else None
            n = len(cd.seen) + 1
            per = self.build_seconds / self.built if self.built else 0
            eta = per * max(cd.planned() - n, 0)
            what = f"{score:.3f} x hand" if score is not None else f"FAILED: {r['why'][:200]}"
            note = (" (hand)" if n == 1 else " (cached)" if cached
                    else " (same code as an earlier one)" if r.get("same_code") else "")
            log(f"[{n}/{cd.planned()}] {key}: {what}{note}  | "
                f"{fmt_duration(time.time() - started)} elapsed, ETA {fmt_duration(eta)}")
            return score

        best, best_score = cd.run(evaluate)
        ranking = cd.ranking()
        failed = sum(1 for s in cd.seen.values() if s is None)
        log(f"{u.name}: {len(cd.seen)} candidates, {failed} failed; best {search.key(best)} "
            f"at {best_score:.3f} x hand")
        # The next best that is neither hand nor the same code as the best.
        best_object = self.state.get(search.key(best))["object"]
        runner_up = next((k for s, k in ranking
                          if k not in (search.key(best), search.key(self.hand))
                          and self.state.get(k).get("object") != best_object), None)
        baselines = self.autoschedulers() if a.autoschedulers else {}
        return self.confirm(best, runner_up, baselines, len(cd.seen), failed)

    def autoschedulers(self):
        """Time of each Halide autoscheduler on the cases, or why it has none."""
        import halide
        lib = Path(halide.install_dir()) / "lib64"
        if not lib.exists():
            lib = Path(halide.install_dir()) / "lib"
        found = {}
        for name in AUTOSCHEDULERS:
            plugin = lib / f"libautoschedule_{name.lower()}.so"
            if not plugin.exists():
                found[name] = {"ok": False, "why": "not in this Halide"}
            elif name == "Anderson2021" and not any(api in self.target
                                                    for api in ("cuda", "opencl")):
                found[name] = {"ok": False, "why": "GPU only; CPU target"}
            else:
                params = ["-p", str(plugin), f"autoscheduler={name}",
                          f"autoscheduler.parallelism={self.args.threads}"]
                found[name] = self.measure(f"autoscheduler={name}", params, baseline=True)
            r = found[name]
            times = " ".join(tuned_file.fmt_time(t) for t in r["times"]) if r.get("ok") else ""
            log(f"   {name}: " + (times if r.get("ok") else f"n/a ({r['why'][:300]})")
                + (f"; wrong or failing on small shapes: {r['verify_failed'][:300]}"
                   if r.get("verify_failed") else ""))
        return found

    def exe(self, key, params):
        """The candidate's executable (rebuilt when this run only read its cached result)."""
        if key not in self.exes:
            self.exes[key], _ = self.builder.build(params, dir_name(key))
        return self.exes[key]

    def checked_in_key(self):
        """The knob key of the tuned file the build uses now (schedules/tuned/), or None."""
        path = (measure.ROOT / "schedules" / "tuned"
                / f"{self.unit.name}.{self.args.isa}.{self.args.dtype}.params")
        if not path.exists():
            return None
        point = dict(self.hand)
        for line in path.read_text().splitlines():
            name, sep, value = line.partition("=")
            if line.startswith("#") or not sep or name.strip() not in point:
                continue
            point[name.strip()] = int(value)
        return search.key(point)

    def compare(self, specs):
        """Times the build's knobs and each of `specs` applied over them in interleaved rounds
        (each checked against the reference on the unit's verify shapes first); prints medians
        and their ratio to the probe's median of the same rounds. For a noisy machine: every
        round runs every point once, so a slow minute slows them all."""
        u, a = self.unit, self.args
        base_key = self.checked_in_key() or search.key(self.hand)
        keys = {"build": base_key}
        for spec in specs:
            try:
                keys[spec] = search.key(search.override(search.point_of(base_key), spec,
                                                        self.knobs))
            except ValueError as e:
                raise SystemExit(f"{u.name}: --compare {e}")
        log(f"== {u.name} on {a.isa}: {a.rounds} interleaved rounds of "
            + ", ".join(f"{name} ({key})" for name, key in keys.items()))
        exes = {name: self.exe(key, self.params(search.point_of(key)))
                for name, key in keys.items()}

        def run(name, args):
            out = self.runner.run(exes[name], args)
            wrong = self._failure(out)
            if wrong:
                raise SystemExit(f"{u.name}: {name} failed: {wrong[:300]}")
            return out

        for name in keys:  # on the unit's small ragged shapes, whatever --cases times
            run(name, ["--no-time"] + u.harness_args + u.verify)
        times = {name: [[] for _ in self.cases] for name in keys}
        probe = [[] for _ in self.cases]
        for _ in range(a.rounds):
            for i, name in enumerate(keys):
                out = run(name, self.timing_args() + (["--probe"] if i == 0 else []) + self.cases)
                for j, c in enumerate(out["cases"]):
                    times[name][j].append(c["seconds"])
                    if i == 0:
                        probe[j].append(c["probe_seconds"])
        median = statistics.median
        lines = ["| case | probe | " + " | ".join(keys) + " |",
                 "|---|---:|" + "---:|" * len(keys)]
        for j, case in enumerate(self.cases):
            cells = [f"{tuned_file.fmt_time(median(times[n][j]))} "
                     f"({100 * median(probe[j]) / median(times[n][j]):.0f}%)" for n in keys]
            lines.append(f"| {case} | {tuned_file.fmt_time(median(probe[j]))} | "
                         + " | ".join(cells) + " |")
        log("\n".join(lines))
        log(f"medians of {a.rounds} rounds, {a.threads} threads; in parentheses the probe's "
            f"median over the point's")

    def confirm(self, best, runner_up, baselines, tried, failed):
        """Re-times hand, best, runner-up and the checked-in file's knobs in interleaved
        rounds; writes the best, or keeps hand or the checked-in knobs and says why."""
        u, a = self.unit, self.args
        best_key, hand_key = search.key(best), search.key(self.hand)
        names = {"hand": hand_key}
        if best_key != hand_key:
            names["tuned"] = best_key
        if runner_up:
            names["runner-up"] = runner_up
        # The checked-in knobs are a contender even when the search also found them (as its
        # runner-up, say): decide() must see them to keep them. Knobs named twice are timed
        # once a round.
        checked_in = self.checked_in_key()
        if checked_in and checked_in != hand_key:
            names["checked-in"] = checked_in
        times = {n: [math.inf] * len(self.cases) for n in names}
        slowest_hand = [0.0] * len(self.cases)
        probe = None
        for r in range(a.rounds):
            this_round = {}
            for n, key in names.items():
                point = search.point_of(key)
                args = self.timing_args() + (["--probe"] if probe is None else []) + self.cases
                if key not in this_round:
                    this_round[key] = self.runner.run(self.exe(key, self.params(point)), args)
                out = this_round[key]
                if self._failure(out):
                    raise SystemExit(f"{u.name}: {n} failed on re-timing: {self._failure(out)}")
                if probe is None:
                    probe = [c["probe_seconds"] for c in out["cases"]]
                    cpu = out["cpu"]
                times[n] = [min(t, c["seconds"]) for t, c in zip(times[n], out["cases"])]
                if n == "hand":
                    slowest_hand = [max(t, c["seconds"])
                                    for t, c in zip(slowest_hand, out["cases"])]
        # The search's best and runner-up are often within its noise: the one faster on
        # re-timing (geometric mean over the shapes) is the tuned one.
        if "tuned" in names and "runner-up" in names and runner_up != hand_key:
            if tuned_file.geomean(times["runner-up"]) < tuned_file.geomean(times["tuned"]):
                names["tuned"], names["runner-up"] = names["runner-up"], names["tuned"]
                times["tuned"], times["runner-up"] = times["runner-up"], times["tuned"]
                best = search.point_of(names["tuned"])
        report = tuned_file.Report(unit=u.name, isa=a.isa, target=self.target, cpu=cpu,
                                   threads=a.threads, cases=self.cases, names=names, times=times,
                                   probe=probe, baselines=baselines, tried=tried, failed=failed,
                                   budget=a.budget, rounds=a.rounds,
                                   noise=[s / t - 1 for s, t in zip(slowest_hand, times["hand"])],
                                   halide=importlib.metadata.version("halide"),
                                   date=datetime.date.today().isoformat(), dtype=a.dtype)
        log(report.table())
        verdict = report.verdict(a.tie, a.min_gain)
        verdict = verdict or ("tuned" not in names and "no candidate beat the hand defaults")
        out_file = Path(a.out_dir) / f"{u.name}.{a.isa}.{a.dtype}.params"
        out_file.parent.mkdir(parents=True, exist_ok=True)
        if a.no_reject:
            out_file.write_text(report.params_file(best, flow_test=bool(verdict)))
            log(f"{u.name}: wrote {out_file}" + (f" (--no-reject: {verdict})" if verdict else ""))
            return report, out_file
        keep, why = report.decide(verdict, a.min_gain)
        if keep == "tuned":
            out_file.write_text(report.params_file(best))
        elif keep == "checked-in":
            out_file.write_text(report.params_file(search.point_of(names["checked-in"]),
                                                   checked_in_kept=why))
        else:
            # The file still records the search and its scores; its knobs are the hand ones.
            out_file.write_text(report.params_file(self.hand, hand_kept=why))
        log(f"{u.name}: {keep} knobs written" + (f" ({why})" if why else "") + f"; {out_file}")
        return report, out_file


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    generator = Path(args.generator or Path(args.build_dir) / "generators" / "lpnorm_generators")
    if not generator.exists():
        raise SystemExit(f"no generator at {generator}: build it first "
                         f"(cmake --build {args.build_dir} --target lpnorm_generators)")
    import halide
    include = str(Path(halide.install_dir()) / "include")
    reports = []
    try:
        for name in args.units:
            tuner = UnitTuner(args, UNITS[name], generator, include)
            if args.compare:
                tuner.compare(args.compare)
                continue
            reports.append(tuner.tune()[0])
    except KeyboardInterrupt:
        log("\nstopped; run the same command again to resume from the cached results")
        return 130
    if args.compare:
        return 0
    summary = Path(args.work_dir) / f"report.{args.isa}{measure.dtype_suffix(args.dtype)}.md"
    summary.write_text("\n\n".join(r.table() for r in reports) + "\n")
    log(f"tables in {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
