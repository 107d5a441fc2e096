"""Invariants of Raid & Conquer over many random games (``invariants.check``), and each check
shown to fire on a broken game."""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.raidconquer import invariants

CASES = [
    (2, "random", {}), (3, "random", {"end_condition": "lightning"}),
    (4, "random", {}), (5, "random", {"end_condition": "epic"}),
    (4, ["hints", "raider", "earl", "burier"], {"pillage_treasures": True}),
    (5, ["attacker", "big-money", "hints", "random", "burier"],
     {"final_tie": "seat_order", "acquire_payment": "exact"}),
    (2, "hints", {"max_rounds": 12}),
    (4, ["hints(keep_in_winter=2)", "raider(keep_in_winter=5)", "random", "earl"],
     {"play_all_cards": False}),
    (5, ["random", "hints(keep_in_winter=2)"] * 2 + ["burier(keep_in_winter=3)"],
     {"play_all_cards": False, "winter_rounds": 8, "end_condition": "lightning"}),
    (4, ["hints(forbid=longboat+kalf)", "random(forbid=warriors)", "burier(forbid=hacksilver)",
         "hints"], {"count_elements": True}),
]


@pytest.mark.parametrize("players, policies, options", CASES)
def test_invariants_hold(players, policies, options):
    r = simulate("raidconquer", 3000, seed=8, players=players, policies=policies,
                 options=options)
    assert invariants.check(r.setup, r.out) == []
    if options.get("max_rounds") == 12:
        assert r.out["truncated"].any() and (~r.out["truncated"]).any()


def _broken(mutate, policies="random"):
    r = simulate("raidconquer", 400, seed=9, players=4, policies=policies,
                 count_elements=True)
    out = {k: v.copy() for k, v in r.out.items()}
    mutate(out)
    return invariants.check(r.setup, out)


@pytest.mark.parametrize("what, mutate", [
    ("card census", lambda o: o["census"].__setitem__((3, 0), o["census"][3, 0] + 1)),
    ("Silver spent above", lambda o: o["silver_spent"].__setitem__((0, 1), 10**6)),
    ("Raid pile count", lambda o: o["raids"].__setitem__((1, 2), o["raids"][1, 2] + 1)),
    ("pillaged total", lambda o: o["pillaged"].__setitem__((2, 0), o["pillaged"][2, 0] + 1)),
    ("without the most Legend", lambda o: o["legend"].__setitem__(
        (0, int(o["winner"][0])), -1)),
    ("finished game without a winner", lambda o: o["winner"].__setitem__(0, -1)),
    ("tie recorded with fewer", lambda o: o["tie"].__setitem__(0, True)),
    ("game ended in Winter", lambda o: o["rounds"].__setitem__(0, 3)),
    ("nobody holds enough", lambda o: o["raids"].__setitem__(0, 0)),
    ("more Earls", lambda o: o["earls"].__setitem__((0, 0), 99)),
    ("first-buy round without a buy", lambda o: o["cards"].__setitem__((0, 1, 0, 4), 0)
     if o["cards"][0, 0, 0, 4] else o["cards"].__setitem__((0, 1, 0, 4), 3)),
    ("after the game's last round", lambda o: o["cards"].__setitem__(
        (0, slice(0, 2), 0, 1), (1, 999))),
    ("more copies held", lambda o: o["cards"].__setitem__((0, 3, 0, 4), 60)),
    ("Secret Plans taken", lambda o: o["cards"].__setitem__(
        (0, 4, 1, 2), o["cards"][0, 4, 1, 2] + 1)),               # one plan too many
    ("Secret Plans taken", lambda o: o["cards"].__setitem__((0, 4, 0, 7), 1)),  # not a plan
])
def test_each_check_fires(what, mutate):
    msgs = _broken(mutate)
    assert any(what in m for m in msgs), msgs


def test_forbid_check_fires():
    """A Longboat bought by a seat whose policy forbids it (written into the counters)."""
    def buy(o):
        o["cards"][0, 0, 0, 1], o["cards"][0, 1, 0, 1] = 1, 2
    msgs = _broken(buy, ["random(forbid=longboat)", "random", "random", "random"])
    assert any("forbids" in m for m in msgs), msgs
