"""Exact best play in 878 battles (issue 21 §3; vikingsim/games/battle878/optimal.py).

Without Runes and Prayer the only decision is a Command retreat (878 §2.3); the solver's claim
is that it never pays, so each side's maximin guarantee is the default policy's exact odds.
Checked three ways: (1) the retreat check on the solver's own value table finds no gain on
many rule sets; (2) the check finds a gain planted in a real table (so it can fail); (3) an
independent plain-Python maximin with every retreat option enumerated (value iteration over
a tiny battle, written from 878 §2.3-§4.10, not from the solver) gives the same values.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.games.battle878 import GAME, exact
from vikingsim.games.battle878 import optimal as O

ARMY = {"norsemen": 4, "berserkers": 2, "housecarls": 3, "thegns": 3}

RULE_SETS = [
    {},
    {"fort": 1, "ragnar": True, "northumbria": True, "epic_card": "faith",
     "edmunds_faith": True},
    {"settlement": 1, "seidr": True, "attacker": "english"},
    {"raven_banner": True, "fyrd_card": True},
    {"epic_card": "disorganized_combat", "military_reform": True},
    {"linen_clothes": "both", "command_moves_fyrd": True, "fyrd": 2},
    {"first_roller": "attacker", "berserker_first_hit_scope": "first_casualty"},
    {"faces": "N=FFFFFH"},                 # Norsemen that mostly flee: still worth keeping
    {"faces": "T=FFFFCC", "edmunds_faith": True, "edmunds_faith_side": "vikings"},
    {"epic_card": "foul_weather"},          # Commands banked: no retreat decision at all
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(r) or "base")
def test_retreat_never_pays_and_guarantees_are_the_default_odds(rules):
    opts = {**ARMY, **rules}
    r = exact.optimal(opts)
    base = exact.odds(opts)
    assert r["vikings_guarantee"] == base["p_vikings_win"]
    assert r["english_guarantee"] == base["p_english_win"]
    assert r["retreat_gain_vikings_game"] <= O.GAIN_TOL
    assert r["retreat_gain_english_game"] <= O.GAIN_TOL
    assert r["vikings_guarantee"] + r["english_guarantee"] + r["p_both_eliminated"] == \
        pytest.approx(1.0, abs=1e-12)


def _table(opts):
    spec = exact.spec_from_rules(exact._rules(opts))
    return next(O._tables(spec))


def test_retreat_check_finds_a_planted_gain():
    """The check reads the right axes and signs: raise one entry by 0.01 and it reports it."""
    val = _table(ARMY)
    assert max(O.retreat_check(val, False).values()) <= O.GAIN_TOL
    # Viking game, Vikings retreat a Norseman after their roll (side 1 = English next)
    v = val.copy()
    v[2, 1, 0, 2, 2, 0, 0, 0, 0, 1, exact._K_VIK] = v[3, 1, 0, 2, 2, 0, 0, 0, 0, 1,
                                                       exact._K_VIK] + 0.01
    assert O.retreat_check(v, False)["vikings_game"] >= 0.01 - 1e-12
    # English game, English retreat a Thegn after their roll (side 0 = Vikings next)
    v = val.copy()
    v[2, 1, 0, 2, 0, 0, 0, 0, 0, 0, exact._K_ENG] = v[2, 1, 0, 2, 1, 0, 0, 0, 0, 0,
                                                       exact._K_ENG] + 0.01
    assert O.retreat_check(v, False)["english_game"] >= 0.01 - 1e-12
    # English game, the Vikings (minimising) retreat a Berserker: English success drops
    v = val.copy()
    v[2, 0, 0, 2, 2, 0, 0, 0, 0, 1, exact._K_ENG] = v[2, 1, 0, 2, 2, 0, 0, 0, 0, 1,
                                                       exact._K_ENG] - 0.01
    assert O.retreat_check(v, False)["english_game"] >= 0.01 - 1e-12
    # a Fyrd axis gain counts only when Commands may move Fyrd (878 §2.3 assumption)
    val = _table({**ARMY, "fyrd": 2})
    v = val.copy()
    v[2, 1, 0, 3, 3, 0, 0, 0, 0, 0, exact._K_ENG] = v[2, 1, 0, 3, 3, 1, 0, 0, 0, 0,
                                                       exact._K_ENG] + 0.01   # H, T at most
    assert O.retreat_check(v, False)["english_game"] <= O.GAIN_TOL
    assert O.retreat_check(v, True)["english_game"] >= 0.01 - 1e-12


def test_a_paying_retreat_is_refused_not_reported(monkeypatch):
    monkeypatch.setattr(O, "retreat_check", lambda val, cmf: {"vikings_game": 0.02,
                                                              "english_game": 0.0})
    with pytest.raises(InputError, match="retreat pays"):
        exact.optimal(ARMY)


# ------------------------------------------------------------- independent maximin oracle
FACES = {"N": "HHHFCC", "B": "HHHHCC", "H": "HHHFCC", "T": "HHFFCC"}   # 878 §2.2
MAXD = {"N": 3, "B": 2, "H": 2, "T": 3}


def _dist(die: str, k: int) -> dict:
    """{(hits, flees, commands): probability} of k dice of one type, every face enumerated."""
    out: dict = {}
    for faces in itertools.product(FACES[die], repeat=k):
        key = (faces.count("H"), faces.count("F"), faces.count("C"))
        out[key] = out.get(key, 0.0) + 6.0 ** -k
    return out


def _retreats(units: tuple, cmds: int):
    """Every way to Command-move up to ``cmds`` of the two unit types (878 §2.3)."""
    for r1 in range(min(cmds, units[0]) + 1):
        for r2 in range(min(cmds - r1, units[1]) + 1):
            yield units[0] - r1, units[1] - r2


def _maximin(start: tuple, game: int, sweeps: int = 300) -> float:
    """Value of the Viking game (0) or the English game (1) with every retreat allowed, by value
    iteration. Base rules: defender (English) rolls first, the first Hit of the first English
    roll kills a Berserker (878 §4.6), loss orders N, B / T, H; success = hold the shire."""
    def success(n, b, h, t, retreated_side):
        if n + b > 0 and h + t > 0:
            return None
        if n + b == 0 and h + t == 0:
            return 0.0
        vik = 1.0 if n + b > 0 else 0.0
        return vik if game == 0 else 1.0 - vik

    states = list(itertools.product(*(range(x + 1) for x in start), (0, 1), (0, 1)))
    V = {s: 0.0 for s in states}

    def value(n, b, h, t, pend, side):
        end = success(n, b, h, t, None)
        return end if end is not None else V[(n, b, h, t, pend, side)]

    rolls = {}
    for s in states:
        n, b, h, t, pend, side = s
        a, c = ((n, b), ("N", "B")) if side == 0 else ((h, t), ("H", "T"))
        d1, d2 = _dist(c[0], min(a[0], MAXD[c[0]])), _dist(c[1], min(a[1], MAXD[c[1]]))
        rolls[s] = [(p1 * p2, k1, k2) for k1, p1 in d1.items() for k2, p2 in d2.items()]
    for _ in range(sweeps):
        new = {}
        for s in states:
            n, b, h, t, pend, side = s
            if success(n, b, h, t, None) is not None:
                continue
            tot = 0.0
            for p, k1, k2 in rolls[s]:
                hits, cmds = k1[0] + k2[0], k1[2] + k2[2]
                if side == 0:
                    n2, b2 = n - min(k1[1], n), b - min(k2[1], b)
                    t2 = t - min(hits, t)
                    h2 = h - min(hits - (t - t2), h)
                    opts = [value(x, y, h2, t2, pend, 1) for x, y in _retreats((n2, b2), cmds)]
                    maxim = game == 0
                else:
                    h2, t2 = h - min(k1[1], h), t - min(k2[1], t)
                    take = 1 if pend and hits > 0 and b > 0 else 0
                    n2 = n - min(hits - take, n)
                    b2 = b - take - min(hits - take - (n - n2), b - take)
                    opts = [value(n2, b2, x, y, 0, 0) for x, y in _retreats((h2, t2), cmds)]
                    maxim = game == 1
                tot += p * (max(opts) if maxim else min(opts))
            new[s] = tot
        V.update(new)
    return V[(*start, 1, 1)]


@pytest.mark.parametrize("army", [(1, 1, 1, 1), (2, 1, 1, 2), (2, 0, 2, 1), (1, 2, 2, 2)])
def test_maximin_with_every_retreat_enumerated_equals_the_solver(army):
    opts = dict(zip(("norsemen", "berserkers", "housecarls", "thegns"), army))
    r = exact.optimal(opts)
    assert _maximin(army, 0) == pytest.approx(r["vikings_guarantee"], abs=1e-9)
    assert _maximin(army, 1) == pytest.approx(r["english_guarantee"], abs=1e-9)


def test_game_spec_optimal_and_cli(tmp_path):
    assert GAME.optimal(ARMY) == exact.optimal(ARMY)
    cmd = [sys.executable, "-m", "vikingsim", "odds", "battle878", "--optimal", "--json",
           "--set", "norsemen=2", "--set", "berserkers=1", "--set", "housecarls=1",
           "--set", "thegns=2"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    got = json.loads(out)
    want = exact.odds({"norsemen": 2, "berserkers": 1, "housecarls": 1, "thegns": 2})
    assert got["vikings_guarantee"] == pytest.approx(want["p_vikings_win"], abs=1e-15)
    bad = subprocess.run(cmd[:4] + ["ravenfeast", "--optimal"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no optimal-play solver" in bad.stderr
    assert "Traceback" not in bad.stderr
