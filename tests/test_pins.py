"""Pinned configurations (issue 8, "must not change"): for each configuration in
``tests/pins/configs.json`` (captured before the hardening and game-contract work), the same
seed and options still give the same summary: every key that existed keeps its name and its
value (new keys and new options may be added). Floats are compared to 1e-12 relative (a sum
taken in another order may move the last bit; any rules change moves them by far more)."""
import json
import math
from pathlib import Path

import pytest

from tests.pins.make_pins import run

PINS = json.loads((Path(__file__).parent / "pins" / "configs.json").read_text())


def _same(old, new, where):
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for k, v in old.items():
            assert k in new, f"{where}.{k} disappeared"
            _same(v, new[k], f"{where}.{k}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(old) == len(new), where
        for i, (a, b) in enumerate(zip(old, new)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(old, float) and not isinstance(new, bool):
        assert isinstance(new, (int, float)), where
        if math.isnan(old):
            assert math.isnan(new), where
        else:
            assert math.isclose(old, new, rel_tol=1e-12, abs_tol=1e-15), f"{where}: {old} -> {new}"
    else:
        assert old == new, f"{where}: {old!r} -> {new!r}"


@pytest.mark.parametrize("pin", PINS, ids=[f"{p['config']['game']}-{p['config']['seed']}"
                                           for p in PINS])
def test_pinned_configuration_unchanged(pin):
    _same(pin["summary"], run(pin["config"]), pin["config"]["game"])
