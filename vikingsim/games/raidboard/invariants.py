"""End-of-game invariants of the raid board (``GAME.invariants``): what every finished or
truncated game must satisfy, checked on the per-game arrays of a run (``res.out``).

Each rule is one small check returning a message (how many games break it, and the first);
``check`` returns them all, an empty list when every game is sound.
"""
from __future__ import annotations

import numpy as np

from vikingsim.games.raidboard.rules import (
    KINGDOM_REGIONS, MAX_SETTLEMENTS, TERRITORIES_PER_REGION)


def _bad(what: str, mask) -> list[str]:
    mask = np.asarray(mask)
    if not mask.any():
        return []
    return [f"{what}: {int(mask.sum())} games (first: game {int(np.flatnonzero(mask)[0])})"]


def check(setup, out: dict) -> list[str]:
    """Violations in the per-game arrays ``out`` of a run with ``setup`` (empty when sound)."""
    r, n_seats = setup.rules, out["gold"].shape[1]
    done, winner, gold = ~out["truncated"], out["winner"].astype(np.int64), out["gold"]
    at_target = (gold >= r.target_gold).sum(axis=1)
    win_gold = gold[np.arange(len(winner)), np.clip(winner, 0, n_seats - 1)]
    settled = out["settlements"].astype(np.int64)
    supply = r.settlement_supply or MAX_SETTLEMENTS
    return [
        # §8.1, §8.3: a finished game has exactly one winner seat; a truncated one none
        *_bad("finished game without a winner seat",
              done & ((winner < 0) | (winner >= n_seats))),
        *_bad("truncated game with a winner", ~done & (winner != -1)),
        # §8.1, §8.2: the game stops at the first gain to target_gold, so only the winner has it
        *_bad("winner below target_gold", done & (win_gold < r.target_gold)),
        *_bad("finished game where another seat also reached target_gold",
              done & (at_target != 1)),
        *_bad("truncated game where a seat reached target_gold", ~done & (at_target != 0)),
        # §8.3: rounds count from 1; a truncated game played every round of the cap
        *_bad("rounds outside 1..max_rounds",
              (out["rounds"] < 1) | (out["rounds"] > r.max_rounds)),
        *_bad("truncated game short of max_rounds", ~done & (out["rounds"] != r.max_rounds)),
        # §7.2, §12.2: losses never take Gold below gold_floor
        *_bad("Gold below gold_floor", (gold < r.gold_floor).any(axis=1)),
        # §2.2, §3.3: settlements only on the settle-able territories, within each supply
        *_bad("negative settlements", (settled < 0).any(axis=1)),
        *_bad("more settlements than settle-able territories",
              settled.sum(axis=1) > MAX_SETTLEMENTS),
        *_bad("a seat over its settlement supply", (settled > supply).any(axis=1)),
        # §3.4: a kingdom is all three territories of one of the kingdom regions
        *_bad("kingdoms without their settlements",
              (out["kingdoms"].astype(np.int64) * TERRITORIES_PER_REGION > settled).any(axis=1)),
        *_bad("more kingdoms than kingdom regions",
              out["kingdoms"].astype(np.int64).sum(axis=1) > len(KINGDOM_REGIONS)),
        *_bad("negative fleets lost", (out["fleets_lost"] < 0).any(axis=1)),
    ]
