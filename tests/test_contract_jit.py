"""The game contract's JIT-on = JIT-off check, once for every kernel (style rule 10).

``VIKINGSIM_DISABLE_JIT=1`` leaves every ``@jit`` function as plain Python, the code that
``core.testing.plain_module`` loads for the forced-dice tests. One subprocess plays every case
below that way; this process plays the same cases compiled; every output array must be equal.
Each case is the one its game's own copy of this test used (those copies are gone; the
warband's seats now hold its policy parts as wall_cautious v random, since ``simulate`` takes
registered names, not ``wall+random``): options and policies chosen to reach the kernel's
optional rules and its policy code, so a numba-only difference (integer width, rounding, a
cast) in any of them shows.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vikingsim.core.runner import simulate

ROOT = Path(__file__).resolve().parents[1]

CASES = {       # id: simulate() arguments (every case seeded, one thread)
    "battle878": dict(game="battle878", n=1500, seed=2, policies="random",
                      options={"runes_prayer": True, "epic_deck": 3, "christians_wrath": True,
                               "raven_banner": True}),
    "raidboard": dict(game="raidboard", n=300, seed=4, players=3,
                      policies=["lookahead", "random", "greedy"],
                      options={"variant": "ends-of-earth"}),
    "ravenfeast-duel": dict(game="ravenfeast", n=3000, seed=5,
                            options={"a": "huskarl", "b": "berserker", "b_fated": "true"}),
    "ravenfeast-warband": dict(game="ravenfeast", n=120, seed=9,
                               policies=["wall_cautious", "random"],
                               options={"mode": "warband", "a": "raiders300", "b": "jarl_hird10",
                                        "rear_attack_from": 3}),
    "tevragnarok": dict(game="tevragnarok", n=40, seed=3, players=4, policies="random_legal"),
    "raidconquer": dict(game="raidconquer", n=12, seed=3, players=3,
                        policies=["hints", "random", "earl"]),
}

_PLAIN = """
import json, sys
import numpy as np
from vikingsim.core import config
assert config.DISABLE_JIT
from vikingsim.core.runner import simulate
cases, out = json.loads(sys.argv[1]), sys.argv[2]
arrays = {}
for name, kw in cases.items():
    r = simulate(kw.pop("game"), threads=1, **kw)
    arrays.update({f"{name}/{k}": v for k, v in r.out.items()})
np.savez(out, **arrays)
"""


@pytest.mark.slow
def test_jit_off_plays_the_same_games_as_jit_on(tmp_path):
    path = tmp_path / "plain.npz"
    subprocess.run([sys.executable, "-c", _PLAIN, json.dumps(CASES), str(path)], check=True,
                   cwd=ROOT, env={**os.environ, "VIKINGSIM_DISABLE_JIT": "1"})
    plain = np.load(path)
    checked = set()
    for name, kw in CASES.items():
        kw = dict(kw)
        r = simulate(kw.pop("game"), threads=1, **kw)
        assert r.out, name
        for key, arr in r.out.items():
            np.testing.assert_array_equal(arr, plain[f"{name}/{key}"], err_msg=f"{name}/{key}")
            checked.add(f"{name}/{key}")
    assert checked == set(plain.files)
