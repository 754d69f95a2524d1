"""The knob space, read from the one place it is declared: schedules/*_knobs.def."""
import re
from dataclasses import dataclass
from pathlib import Path

_KNOB = re.compile(r"LPNORM_KNOB\(\s*(\w+)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,"
                   r"\s*(pow2|linear)\s*,")


@dataclass(frozen=True)
class Knob:
    name: str
    default: int
    min: int
    max: int
    scale: str  # pow2 or linear

    def values(self):
        """The values the tuner tries, ascending (the default always among them)."""
        if self.scale == "linear":
            values = set(range(self.min, self.max + 1))
        else:
            values, v = set(), 1
            while v <= self.max:
                if v >= self.min:
                    values.add(v)
                v *= 2
        values.add(self.default)
        return sorted(values)


def _int(text):
    """An integer literal or `a << b`, the only forms the .def files use."""
    m = re.fullmatch(r"(\d+)\s*<<\s*(\d+)", text)
    return int(m.group(1)) << int(m.group(2)) if m else int(text)


def parse_def(text):
    """Knobs of a .def file, in declaration order."""
    knobs = []
    for m in _KNOB.finditer(text):
        name, default, lo, hi, scale = m.groups()
        knobs.append(Knob(name, _int(default), _int(lo), _int(hi), scale))
    return knobs


def load(root, family):
    """Knobs of `family` ('reduce' or 'pool') from schedules/<family>_knobs.def under `root`."""
    text = (Path(root) / "schedules" / f"{family}_knobs.def").read_text()
    return {k.name: k for k in parse_def(text)}
