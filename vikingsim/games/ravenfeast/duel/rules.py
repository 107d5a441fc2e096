"""Ravenfeast duel inputs (rules notes ravenfeast.md §12.5): the per-figure ``a_*`` / ``b_*``
options (profile overrides and stances), and :func:`compile_duel`, which turns the shared
``Rules``, two profile rows and two stances into the plain numbers of a :class:`DuelSetup`
(modified Melee and Armor per §6.2, §8.3, §2.2) that the kernel plays.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import Option
from vikingsim.games.ravenfeast.profiles import (MAX_ATTACKS, MAX_WOUNDS, RATING_MAX, Stat,
                                                 compile_profile, get_profile)
from vikingsim.games.ravenfeast.rules import Rules, Stance, armor_rating, melee_rating

SIDES = ("a", "b")
#: Per-figure trait override: keep the profile's / force on / force off.
TRI = ("profile", "true", "false")
#: ``-1`` in a numeric override: keep the profile's value.
KEEP = -1
_NUMBERS = (("attacks", "attacks", MAX_ATTACKS), ("melee", "Melee", RATING_MAX),
            ("armor", "Armor", RATING_MAX))
_TRAITS = (("mighty", "Mighty", "§6.2"), ("fated", "Fated", "§10.3"))
_STANCES = (("rear", "is attacked from the rear (Armor -1, no wall bonus; §6.2)"),
            ("shield_wall", "stands in a shield wall (+2 Armor max 5; §8.3)"),
            ("outnumbered", "is engaged by several enemies (Melee -1 unless in a wall; §6.2)"),
            ("uphill", "attacks across an obstacle or uphill (Melee -1; §6.2)"))


def figure_options(side: str) -> tuple[Option, ...]:
    """The duel's options for figure ``side`` ("a" or "b"): overrides of its profile and its
    stance (not rule readings: inputs of the fight)."""
    who = side.upper()
    nums = tuple(Option(f"{side}_{k}", "int", KEEP,
                        f"duel: {word} of figure {who} (-1 = profile)", KEEP, hi)
                 for k, word, hi in _NUMBERS)
    wounds = Option(f"{side}_wounds", "int", KEEP,
                    f"duel: wounds of figure {who}, bypassing tough_reading (-1 = profile)",
                    KEEP, MAX_WOUNDS)
    traits = tuple(Option(f"{side}_{k}", "choice", "profile",
                          f"duel: {word} for figure {who} ({sec})", choices=TRI)
                   for k, word, sec in _TRAITS)
    stances = tuple(Option(f"{side}_{k}", "bool", False, f"duel: figure {who} {text}")
                    for k, text in _STANCES)
    return nums + (wounds,) + traits + stances


FIGURE_OPTIONS = figure_options("a") + figure_options("b")


class DuelSetup(NamedTuple):
    """Compiled duel: index 0 = figure A, 1 = figure B.

    ``armor[i]`` is figure i's Armor against the *other* figure's melee hits (Mighty, rear,
    shield wall and clamp applied); ``melee[i]`` is figure i's modified Melee.
    """

    rules: Rules
    names: tuple            # (a, b) profile names as given
    rows: np.ndarray        # int64 (2, N_STATS) compiled profiles (after overrides)
    attacks: np.ndarray     # int64 (2,)
    melee: np.ndarray       # int64 (2,)
    armor: np.ndarray       # int64 (2,)
    wounds: np.ndarray      # int64 (2,)
    fated: np.ndarray       # int64 (2,) 0/1
    free_attack: bool
    trigger_six: bool
    fated_armor: bool
    max_turns: int
    stances: tuple = (Stance(), Stance())
    chosen: tuple = ("", "")  # per seat: stance picked by the optimal policy ('' = none; §12.7)


def compile_duel(rules: Rules, row_a: np.ndarray, row_b: np.ndarray,
                 stance_a: Stance = Stance(), stance_b: Stance = Stance(),
                 names: tuple = ("A", "B")) -> DuelSetup:
    """Modified ratings of both duellists (§6.2, §8.3, §2.2) as kernel numbers."""
    rows = np.vstack([row_a, row_b]).astype(np.int64)
    stances = (stance_a, stance_b)
    melee = np.array([melee_rating(int(rows[i, Stat.MELEE]), stances[i], rules)
                      for i in range(2)], np.int64)
    armor = np.array([armor_rating(int(rows[i, Stat.ARMOR]), stances[i],
                                   bool(rows[1 - i, Stat.MIGHTY]), rules) for i in range(2)],
                     np.int64)
    return DuelSetup(rules=rules, names=tuple(names), rows=rows,
                     attacks=rows[:, Stat.ATTACKS].copy(), melee=melee, armor=armor,
                     wounds=rows[:, Stat.WOUNDS].copy(), fated=rows[:, Stat.FATED].copy(),
                     free_attack=bool(rules.free_attack),
                     trigger_six=rules.free_attack_trigger == "armor_six",
                     fated_armor=bool(rules.fated_armor_roll), max_turns=int(rules.max_turns),
                     stances=stances)


def overrides(options: dict, side: str) -> dict:
    """Profile overrides of figure ``side`` from resolved options (``profiles.OVERRIDE_KEYS``)."""
    o = {}
    for k in ("attacks", "melee", "armor", "wounds"):
        v = options[f"{side}_{k}"]
        if v != KEEP:
            if k == "wounds" and v == 0:
                raise InputError(f"{side}_wounds=0: a figure needs at least 1 wound (or -1)")
            o[k] = v
    for k, _, _ in _TRAITS:
        v = options[f"{side}_{k}"]
        if v != "profile":
            o[k] = v == "true"
    return o


def stance(options: dict, side: str) -> Stance:
    """Stance of figure ``side`` from resolved options."""
    return Stance(**{k: bool(options[f"{side}_{k}"]) for k, _ in _STANCES})


def setup_from_options(options: dict, rules: Rules) -> DuelSetup:
    """The compiled duel of resolved options (sides ``a``/``b`` are unit types)."""
    rows, names = [], []
    for side in SIDES:
        p = get_profile(options[side])
        rows.append(compile_profile(p, overrides(options, side),
                                    tough_reading=rules.tough_reading))
        names.append(p.name)
    if names[0] == names[1]:
        names = [f"{names[0]} A", f"{names[1]} B"]
    return compile_duel(rules, rows[0], rows[1], stance(options, "a"), stance(options, "b"),
                        names=tuple(names))


def describe_setup(s: DuelSetup) -> str:
    """Both duellists' numbers in words (trace header)."""
    def one(i):
        return (f"{s.names[i]} ({s.attacks[i]} x Melee {s.melee[i]}, Armor {s.armor[i]} vs "
                f"the other's hits, {s.wounds[i]} wound{'s' if s.wounds[i] != 1 else ''}"
                f"{', Mighty' if s.rows[i, Stat.MIGHTY] else ''}"
                f"{', Fated' if s.fated[i] else ''})")
    return f"A = {one(0)}; B = {one(1)}"
