"""Invariants over many random raid board games (style rule 11.4), every policy, both
variants, 2 to 8 players: ``invariants.check`` (``GAME.invariants``) on whole runs, each of its
checks shown to fire on a broken game, and the mid-game state watched turn by turn."""
import numpy as np
import pytest

from vikingsim.core import rng
from vikingsim.core.runner import simulate
from vikingsim.games.raidboard import GAME, invariants, reference
from vikingsim.games.raidboard.rules import BOARD, Region, Rules, Space


@pytest.mark.parametrize("variant", ["circular", "ends-of-earth"])
@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_end_of_game_invariants(variant, players):
    pols = ["greedy", "random", "lookahead"] * 3
    r = simulate("raidboard", n=20_000, seed=players, players=players,
                 policies=pols[:players], options={"variant": variant})
    assert GAME.invariants is invariants.check
    assert invariants.check(r.setup, r.out) == []
    n, s = r.n, r.summary
    assert abs(sum(s["win_rate"]) + s["truncated"] / n - 1) < 1e-12
    assert s["p_win"] + s["p_truncated"] == 1 and s["p_truncated"] == s["truncated"] / n


def test_invariants_with_debt_supply_and_a_cap():
    # gold_floor = -50 allows debt (§12.2), a supply of 2 markers (§2.2), a 6-round cap (§8.3)
    r = simulate("raidboard", n=5000, seed=9, players=4, policies="random",
                 options={"gold_floor": -50, "settlement_supply": 2, "max_rounds": 6})
    o = r.out
    assert o["truncated"].any() and (o["gold"] < 0).any() and o["settlements"].max() == 2
    assert invariants.check(r.setup, r.out) == []
    s, f = r.summary, r.frame                         # outcome shares count the frame's rows
    assert s["p_truncated"] == (f.outcome == "truncated").mean() == o["truncated"].mean() > 0
    assert s["p_win"] == (f.outcome == "win").mean() == (f.winner >= 0).mean()


def _set(key, value, seat=None):
    """Edit of game 3: ``out[key]`` (of the winner seat ``"w"``, another seat ``"o"``, or
    seat ``seat``) set to ``value``."""
    def edit(out, w):
        col = {"w": w, "o": (w + 1) % 3}.get(seat, seat)
        if col is None:
            out[key][3] = value
        else:
            out[key][3, col] = value
    return edit


@pytest.mark.parametrize("edits, message", [
    ([_set("winner", -1)], "finished game without a winner seat"),
    ([_set("winner", 3)], "finished game without a winner seat"),
    ([_set("truncated", True)], "truncated game with a winner"),
    ([_set("gold", 99, "w")], "winner below target_gold"),
    ([_set("gold", 100, "o")], "another seat also reached target_gold"),
    ([_set("rounds", 0)], "rounds outside 1..max_rounds"),
    ([_set("gold", -1, "o")], "Gold below gold_floor"),
    ([_set("settlements", 22, 0)], "more settlements than settle-able territories"),
    ([_set("settlements", -1, 0)], "negative settlements"),
    ([_set("kingdoms", 8, 0), _set("settlements", 21, 0)], "more kingdoms than kingdom regions"),
    ([_set("kingdoms", 1, 1), _set("settlements", 2, 1)], "kingdoms without their settlements"),
    ([_set("fleets_lost", -1, 0)], "negative fleets lost"),
])
def test_each_invariant_catches_a_broken_game(edits, message):
    r = simulate("raidboard", n=10, seed=1, players=3)
    out = {k: v.copy() for k, v in r.out.items()}
    assert invariants.check(r.setup, out) == [] and not out["truncated"][3]
    w = int(out["winner"][3])
    for edit in edits:
        edit(out, w)
    found = invariants.check(r.setup, out)
    assert any(message in m and "first: game 3" in m for m in found), found


def test_truncation_invariants_catch_a_short_or_won_truncated_game():
    r = simulate("raidboard", n=200, seed=1, players=2, options={"max_rounds": 3})
    o = r.out
    g = int(np.flatnonzero(o["truncated"])[0])
    short = {k: v.copy() for k, v in o.items()}
    short["rounds"][g] = 2
    assert any("short of max_rounds" in m for m in invariants.check(r.setup, short))
    rich = {k: v.copy() for k, v in o.items()}
    rich["gold"][g, 0] = 100
    assert any("truncated game where a seat reached" in m
               for m in invariants.check(r.setup, rich))
    supply = simulate("raidboard", n=50, seed=1, players=2, options={"settlement_supply": 1})
    over = {k: v.copy() for k, v in supply.out.items()}
    over["settlements"][0, 0] = 2
    assert any("over its settlement supply" in m for m in invariants.check(supply.setup, over))


def test_mid_game_state_invariants_with_reference():
    """Watch every turn of 300 reference games: settlements only on settle-able territories,
    never in the East, kingdom counts right, gold never negative."""
    settleable = {i for i, (_, k, reg) in enumerate(BOARD)
                  if k == Space.TERRITORY and reg != Region.EAST}
    rules = Rules(variant="ends-of-earth")
    for g in range(300):
        dice, pol = rng.block_generator(g, 0, 0), rng.block_generator(g, 1, 0)
        game = reference.Game(rules, [0, 1, 2, 0], [[12.0, 6.0]] * 4, dice, pol)
        orig = game.turn

        def checked(seat, game=game, orig=orig):
            orig(seat)
            assert set(game.owner) <= settleable
            assert all(x >= 0 for x in game.gold)
            for s in range(4):
                mine = game.settlements(s)
                by_region = {}
                for sp in mine:
                    by_region.setdefault(BOARD[sp][2], []).append(sp)
                assert len(game.kingdoms(s)) == sum(len(v) == 3 for v in by_region.values())

        game.turn = checked
        game.play()
