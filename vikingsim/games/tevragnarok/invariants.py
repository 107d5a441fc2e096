"""End-of-game invariants of the Ragnarok model (``GAME.invariants``, tev-ragnarok §4.9),
checked on the per-game arrays of a run: units conserved, Fury never below 0, resources
capped, at most 3 Favor cards, one winner per game."""
from __future__ import annotations

import numpy as np

from vikingsim.games.tevragnarok.rules import MAX_FAVOR_HELD, N_VALKYRIES


def _bad(what: str, mask) -> list[str]:
    mask = np.asarray(mask)
    if not mask.any():
        return []
    return [f"{what}: {int(mask.sum())} games (first: game {int(np.flatnonzero(mask)[0])})"]


def check(setup, out: dict) -> list[str]:
    """Violations in the per-game arrays ``out`` of a run with ``setup`` (empty when sound)."""
    p = setup.rules.p
    k = out["score"].shape[1]
    i16 = lambda name: out[name].astype(np.int64)                     # noqa: E731
    slays = i16("slays")
    return [
        # one winner seat per game (§2.6: the tie-breakers always end in a seat)
        *_bad("winner outside the seats", (out["winner"] < 0) | (out["winner"] >= k)),
        # Settlers conserved: board + mat = the supply (§4.3), never negative
        *_bad("Settlers not conserved", (i16("settlers") + i16("settlers_mat")
                                         != p.start_settlers).any(axis=1)),
        *_bad("negative Settlers", ((out["settlers"] < 0) | (out["settlers_mat"] < 0)).any(axis=1)),
        # Valkyries conserved: deployed + on the mat = 3 (§3.6 SEED)
        *_bad("Valkyries not conserved", (i16("valkyries") + i16("valkyries_mat")
                                          != N_VALKYRIES).any(axis=1)),
        # Giants conserved: on the board + slain = one per region (§3.1 SEED)
        *_bad("Giants not conserved", i16("giants_left") + slays.sum(axis=1)
              != p.board_n_regions),
        *_bad("slays by Era do not add up", out["slays_era"].astype(np.int64).sum(axis=2)
              != slays),
        # Fury never below 0 (§3.4 SEED, §2.5)
        *_bad("Fury below 0", (out["fury_min"] < 0) | (out["fury"] < 0).any(axis=1)),
        *_bad("drained Fury above the undrained", (out["fury"] > out["fury_nodrain"]).any(axis=1)),
        # resources capped at 7 (§2.2 PUBLIC)
        *_bad("a resource above the cap", out["res_max"] > p.start_resource_cap),
        *_bad("resources outside 0..3 x cap", (out["resources"] < 0)
              | (out["resources"] > 3 * p.start_resource_cap)),
        # at most 3 Favor cards held (§2.5 PUBLIC)
        *_bad("more than 3 Favor cards held", (out["favor_max"] > MAX_FAVOR_HELD)
              | (out["favors"] > MAX_FAVOR_HELD).any(axis=1)),
        # Temples and Boats within the supply (§4.3)
        *_bad("Temples outside the supply", ((out["temples"] < 0)
                                             | (out["temples"] > p.start_temples)).any(axis=1)),
        *_bad("Boats outside the supply", ((out["boats"] < 0)
                                           | (out["boats"] > p.start_boats)).any(axis=1)),
        # Giant points are values of the pool: between slays x min and slays x max
        *_bad("Giant points outside the pool's range",
              ((i16("giant_points") < slays * min(p.giants_values))
               | (i16("giant_points") > slays * max(p.giants_values))).any(axis=1)),
        *_bad("Island Runes held exceed the regions", i16("islands").sum(axis=1)
              > p.board_n_regions),
        # the Chieftain marker (§4.7): the first player opens Era 1; every opener is a seat
        *_bad("Era 1 not opened by the first player", out["openers"][:, 0]
              != setup.rules.first_seat),
        *_bad("an Era opener outside the seats", ((out["openers"] < 0)
                                                  | (out["openers"] >= k)).any(axis=1)),
    ]
