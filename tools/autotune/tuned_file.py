"""The outcome of tuning one unit: the comparison table, the verdict, and the tuned file."""
import math
from dataclasses import dataclass, field


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_time(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


@dataclass
class Report:
    unit: str
    isa: str
    target: str
    cpu: str
    threads: int
    cases: list
    names: dict            # "hand" / "tuned" / "runner-up" -> knob key
    times: dict            # same names -> seconds per case (min over the rounds)
    probe: list            # streaming-read probe seconds per case
    baselines: dict = field(default_factory=dict)  # autoscheduler -> result
    tried: int = 0
    failed: int = 0
    budget: int = 0
    rounds: int = 0
    halide: str = ""
    date: str = ""
    # Per shape, how much slower hand's slowest round was than its fastest: the noise of
    # these measurements, which a gain must exceed.
    noise: list = field(default_factory=list)
    dtype: str = "float32"  # the element type timed (and the tuned file's)

    def ratios(self, name):
        return [t / h for t, h in zip(self.times[name], self.times["hand"])]

    def verdict(self, tie, min_gain):
        """Why the tuned knobs must not be written, or None when they may."""
        if "tuned" not in self.times:
            return None
        ratios = self.ratios("tuned")
        for case, r in zip(self.cases, ratios):
            if r > 1 + tie:
                return f"slower than hand on {case} ({r:.3f} x hand)"
        geo = geomean(ratios)
        if geo > 1 - min_gain:
            return f"not faster than hand on re-timing (geomean {geo:.3f} x hand)"
        noise = geomean([1 + n for n in self.noise]) - 1 if self.noise else 0
        if geo > 1 - noise:
            return (f"the gain (geomean {geo:.3f} x hand) is within hand's own spread over "
                    f"the rounds ({100 * noise:.1f}%)")
        return None

    def decide(self, verdict, min_gain=0.0):
        """Which knobs to write, "tuned", "hand" or "checked-in", and why when not "tuned".
        `verdict` is why the tuned knobs lose to hand (verdict()), or None. A checked-in file
        stays unless accepted tuned knobs beat it by more than `min_gain` (geometric mean over
        the shapes; the same knobs count as tuned), or hand beats it by more than hand's own
        spread over the rounds (as tuned knobs must beat hand by more than that to be
        written)."""
        if "checked-in" not in self.times:
            return ("hand", verdict) if verdict else ("tuned", None)
        checked_in = geomean(self.times["checked-in"])
        tuned = geomean(self.times["tuned"]) if "tuned" in self.times else math.inf
        same = self.names.get("tuned") == self.names["checked-in"]
        if not verdict and (same or tuned < checked_in * (1 - min_gain)):
            return "tuned", None
        noise = geomean([1 + n for n in self.noise]) - 1 if self.noise else 0
        if checked_in > geomean(self.times["hand"]) * (1 + noise):
            return "hand", verdict or "the checked-in knobs are slower than hand on re-timing"
        if verdict:
            return "checked-in", f"the search's best loses to hand: {verdict}"
        return "checked-in", (f"the search's best is not faster on re-timing by more than "
                              f"{min_gain:.0%} (geomean {tuned / checked_in:.3f} x the "
                              f"checked-in knobs)")

    def table(self):
        cols = list(self.times)
        ok_baselines = {n: r for n, r in self.baselines.items() if r.get("ok")}
        head = ["case"] + cols + list(ok_baselines) + ["probe", "best of ours vs probe"]
        title = f"{self.unit} on {self.isa}, {self.dtype}"
        lines = [f"### {title} ({self.cpu}, {self.threads} threads)", "",
                 "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for i, case in enumerate(self.cases):
            ours = min(self.times[n][i] for n in ("hand", "tuned", "checked-in")
                       if n in self.times)
            row = [case] + [fmt_time(self.times[n][i]) for n in cols]
            row += [fmt_time(r["times"][i]) for r in ok_baselines.values()]
            row += [fmt_time(self.probe[i]), f"{100 * self.probe[i] / ours:.0f}%"]
            lines.append("| " + " | ".join(row) + " |")
        for n, r in self.baselines.items():
            if not r.get("ok"):
                lines.append(f"\n{n}: n/a ({r['why'].splitlines()[0][:200]})")
            elif r.get("verify_failed"):
                lines.append(f"\n{n}: timed, but wrong or failing on small shapes "
                             f"({r['verify_failed'].splitlines()[0][:200]})")
        lines.append("")
        for n, key in self.names.items():
            lines.append(f"- {n}: {key}")
        return "\n".join(lines)

    def params_file(self, best, flow_test=False, hand_kept=None, checked_in_kept=None):
        """The tuned file for knobs `best`; `hand_kept` (why) when they are the hand ones,
        `checked_in_kept` (why) when they are those of the file checked in before."""
        lines = []
        if flow_test:
            lines.append("# NOT A TUNING RESULT: written with --no-reject by a flow test.")
        if hand_kept:
            lines.append(f"# The hand defaults are kept: {hand_kept}.")
        if checked_in_kept:
            lines.append(f"# The checked-in knobs are kept: {checked_in_kept}.")
        written = "checked-in" if checked_in_kept else "tuned"
        lines += [
            f"# {self.unit} on {self.isa}: schedule knobs chosen by tools/autotune",
            f"# (coordinate descent from the hand defaults; {self.tried} candidates of a budget "
            f"of {self.budget}, {self.failed} failed to build or to match the reference).",
            f"# target: {self.target}",
            f"# machine: {self.cpu}, {self.threads} threads",
            f"# date: {self.date}; Halide {self.halide}",
            f"# timed: {self.dtype}, p = 2 (every kind of p checked on small ragged shapes)",
            f"# shapes (tools/autotune/harness.cpp notation): {' '.join(self.cases)}",
            f"# seconds per shape, fastest of {self.rounds} interleaved rounds:",
        ]
        for n in self.times:
            lines.append(f"#   {n}: {' '.join(fmt_time(t) for t in self.times[n])}"
                         + (f" ({self.names[n]})" if n != written else ""))
        lines.append(f"#   streaming-read probe: {' '.join(fmt_time(t) for t in self.probe)}")
        if self.noise:
            spread = " ".join(f"{100 * n:.1f}%" for n in self.noise)
            lines.append(f"#   hand's slowest round over its fastest: {spread}")
        for n, r in self.baselines.items():
            what = " ".join(fmt_time(t) for t in r["times"]) if r.get("ok") else "n/a"
            if r.get("verify_failed"):
                what += " (fails on small shapes)"
            lines.append(f"#   {n}: {what}")
        lines += [f"{k}={best[k]}" for k in best]
        return "\n".join(lines) + "\n"
