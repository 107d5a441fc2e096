"""End-of-game invariants of Raid & Conquer (``GAME.invariants``), checked on the per-game
arrays of a run (``res.out``); ``check`` returns one message per broken rule (how many games,
and the first), an empty list when every game is sound."""
from __future__ import annotations

import numpy as np

from vikingsim.games.raidconquer.catalog import Pile
from vikingsim.games.raidconquer.rules import RAIDS_TO_END, TOP_LEVEL


def _bad(what: str, mask) -> list[str]:
    mask = np.asarray(mask)
    if not mask.any():
        return []
    return [f"{what}: {int(mask.sum())} games (first: game {int(np.flatnonzero(mask)[0])})"]


def _popcount(x) -> np.ndarray:
    x = x.astype(np.int64)
    return sum((x >> b) & 1 for b in range(8))


def check(setup, out: dict) -> list[str]:
    """Violations in the per-game arrays ``out`` of a run with ``setup`` (empty when sound)."""
    r, cat = setup.rules, setup.catalog
    n, k = out["legend"].shape
    done, win = ~out["truncated"], out["winner"].astype(np.int64)
    raids = out["raids"].astype(np.int64)
    need = RAIDS_TO_END[r.end_condition]
    in_game = sum(int(cat.copies[c]) for c in cat.of_pile(Pile.RAID)
                  if cat.level[c] <= TOP_LEVEL[k])
    legend = out["legend"].astype(np.int64)
    best = legend.max(axis=1)
    win_legend = legend[np.arange(n), np.clip(win, 0, k - 1)]
    tied, bit = out["tied"].astype(np.int64), (1 << np.clip(win, 0, k - 1))
    spring = out["rounds"].astype(np.int64) - r.winter_rounds
    return [
        # §2, §2.1: every card in exactly one place; no pile ever makes or loses a card
        *_bad("card census differs from the catalog copies",
              (out["census"] != cat.copies[None, :]).any(axis=1)),
        # §7.4: Silver spent never above Silver available
        *_bad("Silver spent above Silver available",
              (out["silver_spent"] > out["silver_avail"]).any(axis=1)),
        # §8: Raid cards reach a Raid pile only by raid, acquire or pillage
        *_bad("Raid pile count differs from won + acquired + pillaged - lost",
              (raids != out["won"] + out["acquired"] + out["pillaged"] - out["lost"]).any(1)),
        *_bad("more Raid cards held than the Raid deck had", raids.sum(axis=1) > in_game),
        *_bad("pillaged total differs from lost total",
              out["pillaged"].sum(axis=1) != out["lost"].sum(axis=1)),
        # §10.1: one winner (the first tied seat on a recorded tie), with the most Legend
        *_bad("finished game without a winner seat", done & ((win < 0) | (win >= k))),
        *_bad("truncated game with a winner or tie", ~done & ((win != -1) | out["tie"])),
        *_bad("winner without the most Legend", done & (win_legend != best)),
        *_bad("winner not among the tied seats", done & ((tied & bit) == 0)),
        *_bad("tie recorded with fewer than two tied seats", out["tie"] & (_popcount(tied) < 2)),
        *_bad("two tied seats but no tie recorded (final_tie = shared)",
              done & ~out["tie"] & (_popcount(tied) > 1) & (r.final_tie == "shared")),
        *_bad("Legend below Raid-card Legend", (out["raid_legend"] > out["legend"]).any(axis=1)),
        # §9.1, §10.2: the game ends only at End of Round of a Spring round, when someone
        # holds the Raid cards the variant needs (Epic: every Raid card has been taken)
        *_bad("game ended in Winter", done & (spring < 1)),
        *(_bad("finished game where nobody holds enough Raid cards",
               done & (raids.max(axis=1) < need)) if need else
          _bad("Epic game ended with Raid cards left", done & (raids.sum(axis=1) < in_game))),
        *(_bad("truncated game where someone held enough Raid cards",
               ~done & (raids.max(axis=1) >= need)) if need else []),
        *_bad("truncated game short of max_rounds", ~done & (out["rounds"] != r.max_rounds)),
        # §8.3.2: at most one Earl per Spring round
        *_bad("more Earls than Spring rounds", out["earls"].sum(axis=1) > np.maximum(spring, 0)),
        *_card_checks(setup, out, np.maximum(spring, 0)),
    ]


def _card_checks(setup, out, spring) -> list[str]:
    """§14.6 per-card counters and §12.4 ``forbid``."""
    c = out["cards"].astype(np.int64)
    if c.shape[-1] == 0:                                    # count_elements off: no counters
        return []
    bought, first, final = c[:, 0], c[:, 1], c[:, 3]
    rounds = out["rounds"].astype(np.int64)[:, None, None]
    return [
        *_bad("first-buy round without a buy, or a buy without one",
              ((bought > 0) != (first > 0)).any(axis=(1, 2))),
        *_bad("first-buy round after the game's last round", (first > rounds).any(axis=(1, 2))),
        *_bad("more copies held than the catalog has",
              (final.sum(axis=1) > setup.catalog.copies[None, :]).any(axis=1)),
        *_bad("a seat bought a card its policy forbids",
              (bought * setup.forbid[None, :, :] > 0).any(axis=(1, 2))),
        # §6.2: one Secret Plan per seat per Spring round, in the first four slots only
        *_bad("Secret Plans taken but one per seat per Spring round",
              (c[:, 4, :, :4].sum(axis=2) != spring[:, None]).any(axis=1)
              | (c[:, 4, :, 4:] != 0).any(axis=(1, 2))),
    ]
