"""Ravenfeast warband policies as data (rules notes ravenfeast.md §4.4, §8.1, §10.1, §12.6):
named policies and ``+``-joined parts compile to the same rows, parameters (``name(k=v)``, a
TOML file) reach the kernel and the reference, and a parameterised policy changes the games."""
from __future__ import annotations

import json

import numpy as np
import pytest

from vikingsim.cli import main
from vikingsim.core import policies as core_policies
from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.core.testing import ScriptedDice, ScriptedUniform, plain_module
from vikingsim.games.ravenfeast import GAME
from vikingsim.games.ravenfeast.rules import Outcome, Rules
from vikingsim.games.ravenfeast.warband.policies import (POLICY_TYPES, PolicySlot,
                                                         WarbandPolicy, parse_policy, policy_row)
from vikingsim.games.ravenfeast.warband.reference import Battle
from vikingsim.games.ravenfeast.warband.rules import WarbandRules, compile_setup

K = plain_module("vikingsim.games.ravenfeast.warband.kernel")   # the kernel's code as plain Python
WAR = {"mode": "warband", "a": "jarl_hird10", "b": "hirdmen10"}


# ---------------------------------------------------------------- texts -> rows

@pytest.mark.parametrize("text, row", [
    ("default", [0, 0, 1, 0]),                  # open, focus, Geld on morale, never disengage
    ("wall", [1, 0, 1, 0]),
    ("leader_hunt", [0, 2, 1, 0]),
    ("geld_saves", [0, 0, 2, 0]),
    ("no_geld", [0, 0, 0, 0]),
    ("cautious", [0, 0, 1, 1]),                 # the Leader steps out on its last wound
    ("wall_cautious", [1, 0, 1, 1]),
    ("wall+cautious", [1, 0, 1, 1]),
    ("spread_cautious", [0, 1, 1, 1]),
    ("cautious(disengage_at=2)", [0, 0, 1, 2]),
    ("wall+cautious(disengage_at=3)+random", [1, 3, 1, 3]),
    ("default(wall=true, target=spread, geld=none)", [1, 1, 0, 0]),
    ("wall+open", [0, 0, 1, 0]),                # later parts win
])
def test_policy_texts_compile_to_rows(text, row):
    assert list(policy_row(text)) == row


def test_every_named_policy_is_a_frozen_dataclass_with_the_same_parameters():
    # every named policy is a warband policy, except the duel's optimal (§12.7)
    assert set(POLICY_TYPES) | {"optimal"} == set(GAME.policies) == set(GAME.policy_types)
    names = [o for o in core_policies.param_options(WarbandPolicy)]
    assert names == ["disengage_at", "wall", "target", "geld"]
    for name, cls in POLICY_TYPES.items():
        assert issubclass(cls, WarbandPolicy)
        p = cls()
        assert list(p.row()) == list(policy_row(name))
        assert core_policies.label(name, p) == name
        with pytest.raises(Exception):
            p.wall = True                                    # frozen


@pytest.mark.parametrize("text, match", [
    ("berserk", "unknown warband policy part"),
    ("cautious(caution=2)", "no parameter"),
    ("cautious(disengage_at=-1)", "disengage_at"),
    ("default(target=nearest)", "target"),
    ("wall+", "policy"),
])
def test_bad_policy_texts_are_input_errors(text, match):
    with pytest.raises(InputError, match=match):
        parse_policy(text)


def test_runner_labels_parameterised_policies():
    r = simulate(GAME, n=50, seed=1, threads=1, options=WAR,
                 policies=["cautious(disengage_at=2)", "cautious(disengage_at=1)"])
    assert r.summary["policies"] == ["cautious(disengage_at=2)", "cautious"]
    assert r.manifest["policies"] == ["cautious(disengage_at=2)", "cautious"]
    assert list(r.setup.inner.pol[:, PolicySlot.DISENGAGE_AT]) == [2, 1]
    with pytest.raises(InputError, match="policy"):                       # duels make no choices
        simulate(GAME, n=10, policies="cautious(disengage_at=2)")


# ---------------------------------------------------------------- the parameter in the engines

# Jarl A0 (2 attacks, Melee 5, Armor 4, Tough (3)) and Hirdman A1 against Hirdmen B0, B1
# (Melee 4, Armor 3), pairs A0-B0, A1-B1; 2 turns, no Geld, no approach.
# Turn 1: the Jarl misses twice (6, 6), A1 misses (6); B0 hits the Jarl (2 <= 4), its Armor
# roll 5 > 4: one wound (hit roll 2: no §6.4 trigger); B1 misses (6). No removal, no morale.
TURN_1 = [6, 6, 6, 2, 5, 6]
# Turn 2, disengage_at=2: the Jarl has 2 wounds left <= 2 and A1 still fights, so it steps out
# of the line (§4.4); B0, in contact, strikes it as it leaves: 3 <= Melee 4, a second wound.
# Melee: A1 alone, paired with B0; B1 joins A1 (A1 outnumbered: Melee 3). A1, B0, B1 miss.
TURN_2_DISENGAGE = [3, 6, 6, 6]
# Turn 2, disengage_at=1 (plain cautious): 2 wounds left > 1: the Jarl fights on; pairs as in
# turn 1; the Jarl's 2 attacks, A1, B0, B1 all miss.
TURN_2_FIGHT = [6, 6, 6, 6, 6]


def _setup(policy):
    return compile_setup("jarl+hirdmen", "hirdmen*2", Rules(max_turns=2),
                         WarbandRules(approach_turns=0, geld=0, initiative="a_first"),
                         (policy, "default"))       # the scripts assume side a acts first


def _kernel(s, faces):
    maxf = s.fig.shape[1]
    st = np.zeros((2, maxf, int(K.FigState.N)), np.int64)
    sd = np.zeros((2, int(K.SideState.N)), np.int64)
    dice = ScriptedDice(faces)
    res = K._battle(s.fig, s.melt, s.armt, s.nfig, s.ri, s.pol, st, sd,
                    np.zeros((2, maxf), np.int64), np.zeros(maxf, np.int64), dice,
                    ScriptedUniform([]))
    return tuple(int(v) for v in res), dice, st


@pytest.mark.parametrize("policy, turn_2, reserve, blood", [
    ("cautious(disengage_at=2)", TURN_2_DISENGAGE, 1, 2),
    ("cautious", TURN_2_FIGHT, 0, 1),
    ("default", TURN_2_FIGHT, 0, 1),                       # never disengages
])
def test_disengage_threshold_in_kernel_and_reference(policy, turn_2, reserve, blood):
    s = _setup(policy)
    faces = TURN_1 + turn_2
    res, dice, st = _kernel(s, faces)
    assert res == (Outcome.TRUNCATED, 2, 1, -1) and dice.left == 0
    jarl = st[0, 0]
    assert (int(jarl[K.FigState.RESERVE]), int(jarl[K.FigState.BLOOD])) == (reserve, blood)
    rdice = ScriptedDice(faces)
    b = Battle(s, rdice, ScriptedUniform([]))
    assert tuple(int(v) for v in b.play()) == res and rdice.left == 0
    assert (int(b.bands[0][0].reserve), b.bands[0][0].blood) == (reserve, blood)


def test_a_parameterised_policy_changes_the_games():
    base = simulate(GAME, n=3000, seed=8, threads=1, options=WAR, policies=["cautious", "default"])
    more = simulate(GAME, n=3000, seed=8, threads=1, options=WAR,
                    policies=["cautious(disengage_at=2)", "default"])
    assert any(not np.array_equal(base.out[k], more.out[k]) for k in base.out)
    same = simulate(GAME, n=3000, seed=8, threads=1, options=WAR,
                    policies=["default(disengage_at=1)", "default"])
    for k in base.out:                                       # the same policy, by parameter
        np.testing.assert_array_equal(base.out[k], same.out[k], err_msg=k)


def test_policy_from_a_toml_file_and_the_cli(tmp_path, capsys):
    path = tmp_path / "careful.toml"
    path.write_text('name = "cautious"\ndisengage_at = 2\n')
    text = simulate(GAME, n=500, seed=8, threads=1, options=WAR,
                    policies=["cautious(disengage_at=2)", "default"])
    toml = simulate(GAME, n=500, seed=8, threads=1, options=WAR, policies=[str(path), "default"])
    assert toml.summary["policies"][0] == "cautious(disengage_at=2)"
    for k in text.out:
        np.testing.assert_array_equal(text.out[k], toml.out[k], err_msg=k)
    assert main(["simulate", "ravenfeast", "-n", "500", "--seed", "8", "--threads", "1",
                 "--set", "mode=warband", "--set", "a=jarl_hird10", "--set", "b=hirdmen10",
                 "--policy", "cautious(disengage_at=2)", "default", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["policies"][0] == "cautious(disengage_at=2)"
    assert s["p_a_win"] == text.summary["p_a_win"]
