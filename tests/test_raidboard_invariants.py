"""Invariants over many random raid board games (style rule 11.4), every policy, both
variants, 2 to 8 players."""
import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.raidboard import reference
from vikingsim.games.raidboard.rules import BOARD, Region, Rules, Space
from vikingsim.core import rng


@pytest.mark.parametrize("variant", ["circular", "ends-of-earth"])
@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_end_of_game_invariants(variant, players):
    pols = ["greedy", "random", "lookahead"] * 3
    r = simulate("raidboard", n=20_000, seed=players, players=players,
                 policies=pols[:players], options={"variant": variant})
    o = r.out
    n = len(o["winner"])
    done = ~o["truncated"]
    assert (o["winner"][done] >= 0).all() and (o["winner"][~done] == -1).all()
    assert o["gold"].min() >= 0                                       # gold never negative
    # the winner has >= 100 Gold; nobody else does (the game stops at the first to 100)
    win_gold = o["gold"][np.arange(n)[done], o["winner"][done]]
    assert (win_gold >= 100).all()
    assert ((o["gold"] >= 100).sum(axis=1)[done] == 1).all()
    # at most 21 settlements in all; kingdoms need 3 settlements each
    assert (o["settlements"].sum(axis=1) <= 21).all()
    assert (o["kingdoms"] * 3 <= o["settlements"]).all()
    assert (o["rounds"] >= 1).all()
    s = r.summary
    assert abs(sum(s["win_rate"]) + s["truncated"] / n - 1) < 1e-12


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
