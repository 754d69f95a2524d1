"""Coordinate descent over the knobs, from the hand defaults.

One knob at a time, every value of it is tried with the others at the best point so far; the
best value is kept when it beats the current point by more than `min_gain` (smaller gains are
taken as noise, so the hand value stays). Passes over all knobs repeat until one changes
nothing or the budget of distinct candidates is spent. The order is deterministic, so a run
re-started with the same cached results retraces the same path (that is how resuming works).
"""
import math


def geomean_ratio(times, hand_times):
    """Geometric mean over cases of time / hand time (< 1: faster than hand)."""
    logs = [math.log(t / h) for t, h in zip(times, hand_times)]
    return math.exp(sum(logs) / len(logs))


def key(point):
    """Canonical text of a knob assignment (the cache key)."""
    return ",".join(f"{k}={point[k]}" for k in sorted(point))


def point_of(key_text):
    """The knob assignment a key() stands for."""
    return {k: int(v) for k, v in (kv.split("=") for kv in key_text.split(","))}


def override(base, spec, knobs):
    """`base` with the assignments of `spec` ("name=value,name=value") applied: each name must
    be one of `knobs` (the unit's), each value within its range."""
    point = dict(base)
    by_name = {k.name: k for k in knobs}
    for item in spec.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in by_name:
            raise ValueError(f"'{item}' in '{spec}': expected name=value with a name of "
                             f"{', '.join(sorted(by_name))}")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"'{item}' in '{spec}': the value is not an integer") from None
        knob = by_name[name]
        if not knob.min <= number <= knob.max:
            raise ValueError(f"'{item}' in '{spec}': {name} ranges over "
                             f"[{knob.min}, {knob.max}]")
        point[name] = number
    return point


class CoordinateDescent:
    def __init__(self, knobs, start, budget, min_gain=0.01):
        self.knobs = knobs        # [Knob], searched in this order
        self.start = dict(start)
        self.budget = budget      # distinct candidates, the start included
        self.min_gain = min_gain
        self.seen = {}            # key -> score (None: failed)

    def pass_size(self):
        return 1 + sum(len(k.values()) - 1 for k in self.knobs)

    def planned(self):
        """Candidates this search will try at most (for the ETA)."""
        return min(self.budget, max(len(self.seen), self.pass_size()))

    def _try(self, evaluate, point):
        k = key(point)
        if k not in self.seen:
            if len(self.seen) >= self.budget:
                return None, False
            self.seen[k] = evaluate(point)
        return self.seen[k], True

    def run(self, evaluate):
        """evaluate(point) -> score (lower is better) or None when the candidate failed.
        Returns (best point, best score)."""
        best = dict(self.start)
        best_score, _ = self._try(evaluate, best)
        if best_score is None:
            raise RuntimeError("the hand schedule itself failed; see the log above")
        while True:
            moved = False
            for knob in self.knobs:
                scored = []
                for value in knob.values():
                    if value == best[knob.name]:
                        continue
                    point = dict(best, **{knob.name: value})
                    score, tried = self._try(evaluate, point)
                    if not tried:
                        return best, best_score
                    if score is not None:
                        scored.append((score, point))
                if scored:
                    score, point = min(scored, key=lambda sp: sp[0])
                    if score < best_score * (1 - self.min_gain):
                        best, best_score, moved = point, score, True
            if not moved:
                return best, best_score

    def ranking(self):
        """(score, key) of every candidate that passed, best first."""
        return sorted((s, k) for k, s in self.seen.items() if s is not None)
