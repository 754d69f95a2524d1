"""Unit tests of the tuner's pure logic: knob parsing, the search, resuming, the verdict and
the tuned file. Run: .venv/bin/python -m unittest discover -s tools/autotune -p 'test_*.py'"""
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import knobs  # noqa: E402
import measure  # noqa: E402
import search  # noqa: E402
import state  # noqa: E402
import tuned_file  # noqa: E402
from units import UNITS  # noqa: E402


class KnobsTest(unittest.TestCase):
    def test_def_files_parse_and_units_name_real_knobs(self):
        for family in ("reduce", "pool"):
            declared = knobs.load(measure.ROOT, family)
            self.assertTrue(declared)
            for k in declared.values():
                self.assertLessEqual(k.min, k.default)
                self.assertLessEqual(k.default, k.max)
        for unit in UNITS.values():
            declared = knobs.load(measure.ROOT, unit.family)
            for name in unit.knobs:
                self.assertIn(name, declared, unit.name)

    def test_values(self):
        k = knobs.parse_def('LPNORM_KNOB(a, 1 << 3, 3, 40, pow2, "x")\n'
                            'LPNORM_KNOB(b, 2, 1, 4, linear, "y")')
        self.assertEqual([x.name for x in k], ["a", "b"])
        self.assertEqual(k[0].default, 8)
        self.assertEqual(k[0].values(), [4, 8, 16, 32])
        self.assertEqual(k[1].values(), [1, 2, 3, 4])

    def test_targets_come_from_cmake(self):
        self.assertIn("avx2", measure.halide_target("avx2", "x86-64-linux"))
        self.assertTrue(measure.halide_target("neon", "arm-64-linux").startswith("arm-64-linux"))

    def test_dtypes_the_harness_cannot_check_are_refused_before_building(self):
        for unit, dtype in (("pool_2d", "float16"), ("reduce_all", "int8")):
            with self.assertRaises(SystemExit) as refused:
                measure.Builder(UNITS[unit], "no-generator", "x86-64-linux", "x86-64-linux",
                                "g++", "no-include", "no-work-dir", dtype)
            self.assertIn(dtype, str(refused.exception))


class OverrideTest(unittest.TestCase):
    """--compare's knob assignments, applied over the build's knobs."""
    declared = knobs.parse_def('LPNORM_KNOB(streams, 4, 1, 16, linear, "x")\n'
                              'LPNORM_KNOB(vector_multiple, 2, 1, 8, pow2, "y")')

    def test_applies_over_the_base(self):
        base = {"streams": 8, "vector_multiple": 2}
        self.assertEqual(search.override(base, "streams=1", self.declared),
                         {"streams": 1, "vector_multiple": 2})
        self.assertEqual(search.override(base, "streams=12, vector_multiple=4", self.declared),
                         {"streams": 12, "vector_multiple": 4})
        self.assertEqual(base, {"streams": 8, "vector_multiple": 2})

    def test_names_values_and_ranges_are_checked(self):
        base = {"streams": 8, "vector_multiple": 2}
        for spec, says in (("stream=1", "streams, vector_multiple"), ("streams", "name=value"),
                           ("streams=x", "not an integer"), ("streams=17", "[1, 16]"),
                           ("vector_multiple=0", "[1, 8]")):
            with self.assertRaises(ValueError) as refused:
                search.override(base, spec, self.declared)
            self.assertIn(says, str(refused.exception), spec)


def bowl(optimum):
    """A score with its minimum at `optimum`, and the calls made."""
    calls = []

    def evaluate(point):
        calls.append(dict(point))
        return 1 + sum(abs(point[k] - v) for k, v in optimum.items()) / 10
    return evaluate, calls


SPACE = [knobs.Knob("a", 2, 1, 8, "pow2"), knobs.Knob("b", 3, 1, 5, "linear")]


class SearchTest(unittest.TestCase):
    def test_finds_the_optimum_with_fewer_than_all_points(self):
        evaluate, calls = bowl({"a": 8, "b": 1})
        cd = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=100)
        best, score = cd.run(evaluate)
        self.assertEqual(best, {"a": 8, "b": 1})
        self.assertLessEqual(len(calls), 4 * 5)
        self.assertEqual(len(calls), len({search.key(c) for c in calls}))  # no repeats

    def test_budget_is_respected(self):
        evaluate, calls = bowl({"a": 8, "b": 1})
        cd = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=3)
        cd.run(evaluate)
        self.assertEqual(len(calls), 3)

    def test_small_gains_keep_the_hand_value(self):
        cd = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=100, min_gain=0.05)
        best, _ = cd.run(lambda p: 0.98 if p["a"] == 4 else 1.0)
        self.assertEqual(best, {"a": 2, "b": 3})

    def test_failed_candidates_are_never_chosen(self):
        cd = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=100)
        best, _ = cd.run(lambda p: None if p["a"] == 8 else 1.0 - p["a"] / 100)
        self.assertEqual(best["a"], 4)
        self.assertNotIn(("a=8,b=3"), [k for _, k in cd.ranking()])

    def test_point_of_inverts_key(self):
        point = {"streams": 12, "row_vectors": 16}
        self.assertEqual(search.point_of(search.key(point)), point)

    def test_geomean_ratio(self):
        self.assertAlmostEqual(search.geomean_ratio([1, 4], [2, 2]), 1.0)


class StateTest(unittest.TestCase):
    def test_resume_retraces_the_search_without_re_measuring(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "state.jsonl")
            header = {"generator": "abc"}
            evaluate, calls = bowl({"a": 8, "b": 1})

            def cached(st):
                def f(point):
                    k = search.key(point)
                    if st.get(k) is None:
                        st.put(k, {"score": evaluate(point)})
                    return st.get(k)["score"]
                return f

            # Interrupted after 3 candidates...
            first = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=3)
            first.run(cached(state.State(path, header)))
            self.assertEqual(len(calls), 3)
            # ...and resumed: the 3 come from the file, the rest are measured.
            again = search.CoordinateDescent(SPACE, {"a": 2, "b": 3}, budget=100)
            best, _ = again.run(cached(state.State(path, header)))
            self.assertEqual(best, {"a": 8, "b": 1})
            self.assertEqual(len(calls), len(again.seen))

    def test_other_header_starts_fresh(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "state.jsonl")
            state.State(path, {"generator": "old"}).put("a=1", {"ok": True})
            fresh = state.State(path, {"generator": "new"})
            self.assertIsNone(fresh.get("a=1"))
            self.assertTrue(os.path.exists(path + ".stale"))
            with open(path) as f:
                self.assertEqual(json.loads(f.readline())["header"], {"generator": "new"})


def report(hand, tuned):
    return tuned_file.Report(unit="reduce_all", isa="avx2", target="x86-64-linux-avx2",
                             cpu="Test CPU", threads=2, cases=["8@1", "9@1"],
                             names={"hand": "a=2", "tuned": "a=4"},
                             times={"hand": hand, "tuned": tuned}, probe=[1.0, 1.0],
                             baselines={"Li2018": {"ok": True, "times": [3.0, 3.0]},
                                        "Anderson2021": {"ok": False, "why": "GPU only"}},
                             tried=5, budget=10, rounds=3, halide="21.0.0", date="2025-01-01")


class TunedFileTest(unittest.TestCase):
    def test_slower_on_any_shape_is_rejected(self):
        verdict = report([1.0, 1.0], [0.5, 1.05]).verdict(0.01, 0.01)
        self.assertIn("slower than hand on 9@1", verdict)

    def test_no_gain_is_rejected(self):
        self.assertIn("not faster", report([1.0, 1.0], [1.0, 0.995]).verdict(0.01, 0.01))

    def test_gain_within_hands_spread_is_rejected(self):
        r = report([1.0, 1.0], [0.95, 0.95])
        r.noise = [0.08, 0.08]
        self.assertIn("within hand's own spread", r.verdict(0.01, 0.01))
        r.noise = [0.02, 0.02]
        self.assertIsNone(r.verdict(0.01, 0.01))

    def test_faster_is_accepted_and_written_with_provenance(self):
        r = report([1.0, 1.0], [0.8, 0.99])
        self.assertIsNone(r.verdict(0.01, 0.01))
        text = r.params_file({"a": 4, "b": 1})
        lines = text.splitlines()
        self.assertEqual([l for l in lines if not l.startswith("#")], ["a=4", "b=1"])
        for needed in ("Test CPU", "2025-01-01", "Halide 21.0.0", "8@1 9@1", "hand:",
                       "tuned:", "Li2018", "Anderson2021: n/a", "probe"):
            self.assertIn(needed, text)
        self.assertIn("# timed: float32, p = 2", text)
        self.assertIn("| 8@1 |", r.table())
        r.dtype = "float16"
        self.assertIn("# timed: float16, p = 2", r.params_file({"a": 4, "b": 1}))

    def test_rejected_files_keep_the_hand_knobs_and_say_why(self):
        r = report([1.0, 1.0], [0.5, 1.05])
        why = r.verdict(0.01, 0.01)
        text = r.params_file({"a": 2, "b": 1}, hand_kept=why)
        self.assertIn(f"# The hand defaults are kept: {why}.", text)
        self.assertEqual([l for l in text.splitlines() if not l.startswith("#")], ["a=2", "b=1"])

    def test_checked_in_knobs_stay_unless_the_search_beats_them(self):
        r = report([1.0, 1.0], [0.8, 0.9])
        self.assertEqual(r.decide(None), ("tuned", None))  # nothing checked in
        self.assertEqual(r.decide("slow"), ("hand", "slow"))
        r.names["checked-in"] = "a=8"
        r.times["checked-in"] = [0.7, 0.95]
        keep, why = r.decide(None)
        self.assertEqual(keep, "checked-in")
        self.assertIn("not faster on re-timing", why)
        text = r.params_file({"a": 8}, checked_in_kept=why)
        self.assertIn(f"# The checked-in knobs are kept: {why}.", text)
        self.assertEqual([l for l in text.splitlines() if not l.startswith("#")], ["a=8"])
        self.assertIn("#   tuned: 800 ms 900 ms (a=4)", text)  # the loser names its knobs
        # A rejected search keeps the checked-in knobs, unless they lose to hand.
        self.assertEqual(r.decide("within noise")[0], "checked-in")
        r.times["checked-in"] = [1.1, 1.0]
        self.assertEqual(r.decide(None), ("tuned", None))
        self.assertEqual(r.decide("within noise"), ("hand", "within noise"))
        r.noise = [0.1, 0.1]  # hand's own spread covers the checked-in knobs' loss
        self.assertEqual(r.decide("within noise")[0], "checked-in")

    def test_checked_in_knobs_found_again_by_the_search_are_still_theirs(self):
        # The search's runner-up is the checked-in file's knobs: a search within hand's noise
        # keeps them; the checked-in knobs as the accepted best are written as tuned.
        r = report([1.0, 1.0], [0.95, 0.95])
        r.names.update({"runner-up": "a=8", "checked-in": "a=8"})
        r.times.update({"runner-up": [0.97, 0.98], "checked-in": [0.97, 0.98]})
        self.assertEqual(r.decide("within noise")[0], "checked-in")
        r.names["checked-in"] = r.names["tuned"]
        r.times["checked-in"] = list(r.times["tuned"])
        self.assertEqual(r.decide(None), ("tuned", None))

    def test_tuned_knobs_replace_checked_in_ones_only_beyond_min_gain(self):
        r = report([1.0, 1.0], [0.9, 0.9])
        r.names["checked-in"] = "a=8"
        r.times["checked-in"] = [0.905, 0.905]  # tuned 0.6% faster: noise, the file stays
        keep, why = r.decide(None, 0.01)
        self.assertEqual(keep, "checked-in")
        self.assertIn("by more than 1%", why)
        r.times["checked-in"] = [0.93, 0.93]
        self.assertEqual(r.decide(None, 0.01), ("tuned", None))

    def test_flow_test_files_say_so(self):
        text = report([1.0, 1.0], [2.0, 2.0]).params_file({"a": 4}, flow_test=True)
        self.assertTrue(text.startswith("# NOT A TUNING RESULT"))


class RunnerTest(unittest.TestCase):
    def test_command_forms(self):
        self.assertEqual(measure.Runner().argv("/x/h", ["1@1"]), ["/x/h", "1@1"])
        self.assertEqual(measure.Runner("qemu-aarch64 -L /s").argv("/x/h", ["1@1"]),
                         ["qemu-aarch64", "-L", "/s", "/x/h", "1@1"])
        self.assertEqual(measure.Runner("ssh box 'cd /t && {exe} {args}'").argv("h", ["a", "b"]),
                         ["ssh", "box", "cd /t && h a b"])


if __name__ == "__main__":
    unittest.main()
