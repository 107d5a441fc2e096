"""Test helpers shared by every game's forced-dice tests (style rule 5, rule 11).

``ScriptedDice`` stands in for a Generator and yields chosen d6 faces; ``plain_module`` loads a
second copy of a kernel module as plain Python (as with VIKINGSIM_DISABLE_JIT=1), so a test can
drive the kernel's own code with scripted dice. The bit-for-bit reference tests and the
JIT-on = JIT-off test tie that plain copy to the compiled kernel.
"""
from __future__ import annotations

import importlib.util
import sys

from vikingsim.core import config, rng


class ScriptedDice:
    """A ``random()`` source that makes ``1 + int(random() * 6)`` return the given faces in
    order; raises AssertionError when the script runs out or a face is out of 1..6."""

    def __init__(self, faces):
        self.faces = list(faces)
        for f in self.faces:
            assert 1 <= f <= 6, f"a d6 face must be 1..6, got {f}"
        self.used = 0

    def random(self) -> float:
        assert self.used < len(self.faces), f"script of {len(self.faces)} dice ran out"
        face = self.faces[self.used]
        self.used += 1
        return (face - 0.5) / 6.0

    @property
    def left(self) -> int:
        return len(self.faces) - self.used


class ScriptedUniform:
    """A ``random()`` source returning the given floats (for policy streams)."""

    def __init__(self, values):
        self.values, self.used = list(values), 0

    def random(self) -> float:
        v = self.values[self.used]
        self.used += 1
        return v


def plain_module(name: str):
    """Load module ``name`` afresh with every ``@jit`` function left as plain Python."""
    old = config.DISABLE_JIT
    config.DISABLE_JIT = True
    try:
        spec = importlib.util.find_spec(name)
        mod = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(name + "._plain", mod)
        spec.loader.exec_module(mod)
    finally:
        config.DISABLE_JIT = old
    if hasattr(mod, "_d6"):
        mod._d6 = rng.d6
    return mod


def within_k_se(observed: float, expected: float, se: float, k: float = config.TEST_K_SE,
                slack: float = 1e-12) -> bool:
    """The Monte Carlo-vs-exact check of every test: ``observed`` lies within ``k`` standard
    errors ``se`` of ``expected`` (``slack`` absorbs rounding when se is 0)."""
    return abs(observed - expected) <= k * se + slack
