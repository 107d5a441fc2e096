"""Move one game's state between the reference (``reference.Game``, lists) and the kernel's
arrays (``kernel.scratch``), so forced-deck tests can set a position up once, run the kernel's
own phase functions and the reference's methods on it, and compare the results (and so
``trace`` could start anywhere). Test and debugging helper; no rules here."""
from __future__ import annotations

import numpy as np

from vikingsim.games.raidconquer import kernel as K
from vikingsim.games.raidconquer import reference as R

PILE_NAMES = ("deck", "discard", "hand", "play", "raid", "bury")
_PS = {"char": K.PS_CHAR, "action": K.PS_ACTION, "target": K.PS_TARGET,
       "bonus_power": K.PS_BONUS_POWER, "bonus_silver": K.PS_BONUS_SILVER,
       "last_earl": K.PS_LAST_EARL, "earls": K.PS_EARLS, "won": K.PS_WON,
       "acquired": K.PS_ACQUIRED, "pillaged": K.PS_PILLAGED, "lost": K.PS_LOST,
       "silver_avail": K.PS_SILVER_AVAIL, "silver_spent": K.PS_SILVER_SPENT}
#: §14.6 per-card counters of a seat (reference attribute -> row of the kernel's ``ec``).
_EC = {"bought": K.EC_BOUGHT, "first_buy": K.EC_FIRST, "played": K.EC_PLAYED,
       "plans": K.EC_PLANS}


def pack(game: R.Game, setup) -> dict:
    """Kernel scratch arrays holding the reference game's position."""
    w = K.scratch(setup, len(game.players))
    for pl in game.players:
        s = pl.seat
        piles = (pl.deck, pl.discard, pl.hand, [k for k, _ in pl.play], pl.raid, pl.bury)
        for i, cards in enumerate(piles):
            w["pp"][s, i, :len(cards)] = cards
            w["pn"][s, i] = len(cards)
        for j, (_, f) in enumerate(pl.play):
            w["fl"][s, j] = f
        for name, slot in _PS.items():
            w["ps"][s, slot] = getattr(pl, name)
        for name, row in _EC.items():
            w["ec"][row, s] = getattr(pl, name)
    for i, cards in enumerate((game.vdeck, game.treasure, game.raid_deck)):
        w["sh"][i, :len(cards)] = cards
        w["shn"][i] = len(cards)
    w["rows"][0] = game.vrow
    w["rows"][1] = game.raid_row
    w["supply"][:] = game.supply
    w["box"][:] = game.box
    w["gs"][:] = (game.first, int(game.earl_side), game.failed_raids, game.round)
    return w


def view(w: dict, n_seats: int) -> dict:
    """The kernel position as plain lists (same keys as ``of_game``)."""
    out = {}
    for s in range(n_seats):
        for i, name in enumerate(PILE_NAMES):
            out[(s, name)] = [int(x) for x in w["pp"][s, i, :w["pn"][s, i]]]
        out[(s, "flags")] = [int(x) for x in w["fl"][s, :w["pn"][s, 3]]]
        for name, slot in _PS.items():
            out[(s, name)] = int(w["ps"][s, slot])
        for name, row in _EC.items():
            out[(s, name)] = [int(x) for x in w["ec"][row, s]]
    for i, name in enumerate(("vdeck", "treasure", "raid_deck")):
        out[name] = [int(x) for x in w["sh"][i, :w["shn"][i]]]
    out["vrow"] = [int(x) for x in w["rows"][0]]
    out["raid_row"] = [int(x) for x in w["rows"][1]]
    out["supply"] = [int(x) for x in w["supply"]]
    out["first"], out["earl_side"], out["failed_raids"] = (int(w["gs"][0]), bool(w["gs"][1]),
                                                           int(w["gs"][2]))
    return out


def of_game(game: R.Game) -> dict:
    """The reference position as plain lists (same keys as ``view``)."""
    out = {}
    for pl in game.players:
        s = pl.seat
        piles = (pl.deck, pl.discard, pl.hand, [k for k, _ in pl.play], pl.raid, pl.bury)
        for name, cards in zip(PILE_NAMES, piles):
            out[(s, name)] = list(cards)
        out[(s, "flags")] = [f for _, f in pl.play]
        for name in _PS:
            out[(s, name)] = int(getattr(pl, name))
        for name in _EC:
            out[(s, name)] = list(getattr(pl, name))
    out["vdeck"], out["treasure"] = list(game.vdeck), list(game.treasure)
    out["raid_deck"] = list(game.raid_deck)
    out["vrow"], out["raid_row"] = list(game.vrow), list(game.raid_row)
    out["supply"] = list(game.supply)
    out["first"], out["earl_side"] = game.first, bool(game.earl_side)
    out["failed_raids"] = game.failed_raids
    return out


def diff(a: dict, b: dict) -> list:
    return [k for k in a if a[k] != b[k]]


def scores(setup) -> np.ndarray:
    c = setup.compiled
    return K.buy_scores(c.card, c.alt, c.alt_n, setup.params)
