"""Ragnarok policies as data (tev-ragnarok §4.5): every parameter changes games, labels and
TOML files work, a bad parameter is one line and exit 2; no_giants never slays and
giant_hunter slays more than greedy_vp."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.tevragnarok.policies import POLICY_TYPES
from vikingsim.games.tevragnarok.search_params import SEARCH_TYPES

PARAMS = [(name, f.name) for name, cls in POLICY_TYPES.items()
          for f in dataclasses.fields(cls)
          if name not in SEARCH_TYPES]            # search players: test_tevragnarok_search


@pytest.mark.parametrize("name, param", PARAMS, ids=[f"{a}-{b}" for a, b in PARAMS])
def test_each_parameter_changes_games(name, param):
    cls = POLICY_TYPES[name]
    default = next(f.default for f in dataclasses.fields(cls) if f.name == param)
    if param == "forbid":                        # restricted play (issue 20): a used action
        alt = "sail"
    else:
        alt = default + 2.0 if param != "giant_weight" or default == 0 else 0.0
    a = simulate("tevragnarok", 400, seed=8, policies=name)
    b = simulate("tevragnarok", 400, seed=8, policies=f"{name}({param}={alt})")
    assert any(not np.array_equal(a.out[k], b.out[k]) for k in a.out), (name, param)
    assert b.summary["policies"][0] == f"{name}({param}={alt})"


def test_no_giants_never_slays_and_the_hunter_slays_most():
    n = 2000
    f = {p: simulate("tevragnarok", n, seed=2, policies=p).frame
         for p in ("no_giants", "greedy_vp", "giant_hunter")}
    slays = {p: sum(f[p][f"slays_{s}"].sum() for s in range(4)) for p in f}
    assert slays["no_giants"] == 0
    assert slays["giant_hunter"] > slays["greedy_vp"] > 0


def test_policy_from_a_toml_file(tmp_path):
    path = tmp_path / "hunter.toml"
    path.write_text('name = "giant_hunter"\ngiant_weight = 6.0\n')
    a = simulate("tevragnarok", 200, seed=4, policies=str(path))
    b = simulate("tevragnarok", 200, seed=4, policies="giant_hunter(giant_weight=6.0)")
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key])


def test_cli_bad_policy_parameter_is_one_line_exit_2(cli):
    r = cli("simulate", "tevragnarok", "-n", "10", "--policy", "greedy_vp(giant_weight=-3)")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "giant_weight" in r.stderr


def test_weight_presets_are_halved_and_doubled():
    """§4.4 policy-weight presets: greedy_vp with face_up 1.5, resource 0.3, Valkyrie 2.0,
    Settler 0.5 (the defaults, typed by hand) halved and doubled; each runs and plays other
    games than the defaults."""
    from vikingsim.core import policies
    from vikingsim.games.tevragnarok.policies import WEIGHT_PRESETS

    want = {"half": (0.75, 0.15, 1.0, 0.25), "double": (3.0, 0.6, 4.0, 1.0)}
    base = simulate("tevragnarok", 300, seed=8, policies="greedy_vp")
    for name, weights in want.items():
        spec = policies.build("tevragnarok", POLICY_TYPES, WEIGHT_PRESETS[name])
        assert (spec.face_up_value, spec.resource_value, spec.valkyrie_value,
                spec.settler_value) == weights
        assert (spec.giant_weight, spec.special_bonus) == (0.0, 0.0)
        run = simulate("tevragnarok", 300, seed=8, policies=WEIGHT_PRESETS[name])
        assert not np.array_equal(run.out["score"], base.out["score"])


def test_policy_help_says_how_seat_ties_are_broken():
    """Issue 18: every policy's help says that ties between seats go clockwise."""
    from vikingsim.games.tevragnarok.policies import POLICY_HELP

    assert all("clockwise from the acting seat" in text for text in POLICY_HELP.values())
