"""battle878 invariants over per-battle output arrays (``GAME.invariants``).

``invariants(setup, out)`` returns one message per broken invariant (empty when sound):
units are conserved per slot (start + joined = alive + dead + fled + retreated + left), no
count is negative, every battle has one known outcome, the outcome matches who is left
standing (878 §4.10; Traitors, SEED §7.3, fight for the defenders), a truncated battle used
every roll, the Fort/Settlement keeps between 0 and its Hits (SEED §1.4-1.5), and a traitor
slot only appears under the Traitors card.
"""
from __future__ import annotations

import numpy as np

from vikingsim.games.battle878.rules import ENGLISH, N_UNITS, UNIT_SIDE, VIKINGS, Epic, Outcome

_COUNTS = ("alive", "dead", "fled", "retreated", "joined", "left", "effects")
#: slots each side's Commands can move out (its own units; never the traitors, 878 §2.3)
_HOME = {side: [k for k in range(N_UNITS) if UNIT_SIDE[k] == side] for side in (VIKINGS, ENGLISH)}


def _side_alive(out) -> tuple[np.ndarray, np.ndarray]:
    """(Viking units + Fort/Settlement, English units) left per battle, owners after Traitors."""
    alive = out["alive"].astype(np.int64)
    own = np.tile(np.array(UNIT_SIDE), (len(alive), 1))
    rows = np.nonzero(out["traitor"] >= 0)[0]
    cols = out["traitor"][rows].astype(np.int64)
    own[rows, cols] = 1 - own[rows, cols]
    vikings = (alive * (own == VIKINGS)).sum(1) + out["structure"]
    return vikings, (alive * (own == ENGLISH)).sum(1)


def _standing_ok(out) -> dict[str, np.ndarray]:
    """Per outcome: which battles have the survivors that outcome needs (878 §4.10)."""
    va, ea = _side_alive(out)
    return {
        "vikings_win": (va > 0) & (ea == 0),
        "english_win": (va == 0) & (ea > 0),
        "both_eliminated": (va == 0) & (ea == 0),
        "gods_peace": va > 0,                                  # SEED §4.4: Vikings leave alive
        "vikings_retreat": (va == 0) & (out["retreated"][:, _HOME[VIKINGS]].sum(1) > 0),
        "english_retreat": (ea == 0) & (out["retreated"][:, _HOME[ENGLISH]].sum(1) > 0),
    }


def _flag(bad: np.ndarray, what: str) -> list[str]:
    if not bad.any():
        return []
    return [f"{what}: {int(bad.sum())} battle(s), first game {int(np.argmax(bad))}"]


def invariants(setup, out) -> list[str]:
    """Violations of the battle invariants in ``out`` (``battle878.allocate`` arrays of a run
    made with ``setup``); empty when every battle is sound."""
    msgs: list[str] = []
    start = setup.start[None, :].astype(np.int64)
    total_in = start + out["joined"]
    total_out = sum(out[k].astype(np.int64) for k in ("alive", "dead", "fled", "retreated",
                                                       "left"))
    msgs += _flag((total_in != total_out).any(1), "units not conserved (start + joined != "
                  "alive + dead + fled + retreated + left)")
    for key in _COUNTS:
        msgs += _flag((out[key] < 0).any(1), f"negative {key}")
    outcome = out["outcome"].astype(np.int64)
    msgs += _flag((outcome < 0) | (outcome > int(Outcome.TRUNCATED)), "unknown outcome")
    for name, ok in _standing_ok(out).items():
        code = int(Outcome[name.upper()])
        msgs += _flag((outcome == code) & ~ok, f"{name} but the survivors say otherwise")
    truncated = outcome == int(Outcome.TRUNCATED)
    msgs += _flag(truncated & (out["rolls"] != setup.rules.max_rolls),
                  "truncated before max_rolls")
    msgs += _flag((out["rolls"] < 1) | (out["rolls"] > setup.rules.max_rolls),
                  "rolls outside [1, max_rolls]")
    hits = setup.rules.fort * setup.rules.fort_hits + setup.rules.settlement
    msgs += _flag((out["structure"] < 0) | (out["structure"] > hits),
                  "Fort/Settlement Hits outside [0, its Hits]")
    traitor = out["traitor"].astype(np.int64)
    msgs += _flag((traitor < -1) | (traitor >= N_UNITS), "traitor slot out of range")
    msgs += _flag((traitor >= 0) & ((out["epic"] & (1 << int(Epic.TRAITORS))) == 0),
                  "a traitor slot without the Traitors card")
    return msgs
