"""Ravenfeast rule readings shared by every mode (rules notes ravenfeast.md): the frozen
``Rules`` dataclass (one :func:`~vikingsim.core.options.rule` field per reading, default = the
notes' DEFAULT), the per-figure ``Stance`` of a duel (§12.5), the modified-rating helpers the
kernels' tables are compiled with (§2.2, §6.2, §8.3), and the game's outcome vocabulary.

Every ambiguity is a field; ``__post_init__`` checks each field against the range or choices
its ``rule`` declares (``dataclasses.replace`` re-checks). Kernels receive compiled numbers only
(``duel.rules.compile_duel``, ``warband.rules.compile_setup``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import field_names, rule
from vikingsim.games.ravenfeast.profiles import RATING_MAX, TOUGH_READINGS

#: Version of the game's rules (every mode): bump it when the same seed and options give
#: other games (recorded in manifests, part of the rules hash).
RULES_VERSION = "2026.12.1"
#: Games per RNG block (``core/rng.py``): part of the results' identity; big blocks keep the
#: per-block cost small for the fast duel kernel.
BLOCK_GAMES = 16384
#: Per-game counters are int8 columns: capped here.
INT8_MAX = 127
#: int16 turn counters.
MAX_TURNS_HI = 30_000

FREE_ATTACK_TRIGGERS = ("armor_six", "failed_save")
SHIELD_WALL_CAPS = ("before_mighty", "after_mighty")


class Outcome(IntEnum):
    """Per-game result code (int8 ``outcome`` column), the same in every mode."""

    A_WIN = 0      # side B removed (or beaten, §12.6), A standing
    B_WIN = 1
    DRAW = 2       # duel: both removed in the same End of Turn (§6.5); warband: no side left
    TRUNCATED = 3  # max_turns reached with both standing (§12.6 guard), never a draw


#: ``GAME.outcomes``: categories of the frame's ``outcome`` column ("truncated" last).
OUTCOMES = tuple(o.name.lower() for o in Outcome)
#: Kernel sentinel: the fight goes on (shares the integer type of the Outcome codes).
RUNNING = -1


def check_fields(obj) -> None:
    """InputError naming the first field of dataclass ``obj`` outside the choices or the
    integer range its :func:`rule` declares."""
    for f in dataclasses.fields(obj):
        meta = f.metadata.get("vikingsim")
        if meta is None:
            continue
        v = getattr(obj, f.name)
        if meta["choices"] and v not in meta["choices"]:
            raise InputError(f"{f.name}={v!r}; allowed: {', '.join(map(str, meta['choices']))}")
        lo, hi = meta["lo"], meta["hi"]
        if lo is None and hi is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
            raise InputError(f"{f.name}={v!r} must be an integer in [{lo}, {hi}]")


def from_options(cls, options: dict, **fixed):
    """An instance of rules dataclass ``cls`` from the options present in ``options``
    (fields not given keep their defaults) and the ``fixed`` field values."""
    given = {f: options[o] for o, f in field_names(cls).items() if o in options}
    return cls(**{**given, **fixed})


@dataclass(frozen=True)
class Rules:
    """One complete reading of the Ravenfeast melee rules used by the duel and warband kernels.

    Attributes
    ----------
    free_attack : bool
        §6.4 Free Attack / Death Worthy of a Song is in play (SEED; DEFAULT True).
    free_attack_trigger : {"armor_six", "failed_save"}
        §6.4: the Free Attack follows a hit rolled as a 1 met by an Armor roll of 6 (SEED
        wording, DEFAULT ``armor_six``); ``failed_save`` is a looser variant: a hit rolled as a 1
        met by any failed save (differs whenever the modified Armor is below 5).
    free_attack_in_missile : bool
        §6.4 DEFAULT False: the seed places the rule in melee (read by the warband kernel).
    mighty_armor_mod : int
        §6.2 Mighty: target's Armor −this against the Mighty figure's melee hits (SEED 1).
    tough_reading : {"total_wounds", "extra_wounds"}
        §7.2 / §13.1 (DEFAULT ``total_wounds``: Tough (3) = removed at the 3rd wound).
    rating_clamp : bool
        §2.2 DEFAULT True: modified ratings are clamped to 0..5 (a 6 always fails). False leaves
        them unclamped (Armor 6+ then always saves, Melee <= 0 never hits).
    shield_wall_armor_bonus, shield_wall_armor_max : int
        §8.3 (SEED +2, max 5; no bonus against attacks from the rear).
    shield_wall_cap : {"before_mighty", "after_mighty"}
        ASSUMPTION (not in the notes): the wall's max-5 cap applies to Armor + bonus before
        Mighty's −1 (DEFAULT ``before_mighty``: Armor 4 in a wall vs Mighty = 4) or after it
        (``after_mighty``: min(5, 4 + 2 − 1) = 5).
    rear_armor_mod : int
        §6.2: −1 Armor for a figure attacked from the rear (SEED 1).
    outnumbered_melee_mod : int
        §6.2: −1 Melee when engaged by several enemies, not in a shield wall (SEED 1).
    uphill_melee_mod : int
        §6.2: −1 Melee when attacking across an obstacle or uphill (SEED 1).
    fated_armor_roll : bool
        §10.3: a Fated figure's death-stroke is a free attack; DEFAULT False reads it as a §4.4
        Free Attack (no Armor roll); True allows the target its Armor roll.
    max_turns : int
        §12.6 safety cap (DEFAULT 50): a fight still running after this many turns is TRUNCATED.
    """

    free_attack: bool = rule(True, "§6.4 Free Attack (Death Worthy of a Song) in play",
                             section="§6.4")
    free_attack_trigger: str = rule(
        "armor_six", "§6.4 trigger: hit roll 1 and Armor roll 6 (armor_six) or any failed save",
        section="§6.4", choices=FREE_ATTACK_TRIGGERS)
    free_attack_in_missile: bool = rule(False, "§6.4 Free Attack rule for missile hits too",
                                        section="§6.4")
    mighty_armor_mod: int = rule(1, "§6.2 Mighty: target Armor minus this", section="§6.2",
                                 lo=0, hi=5)
    tough_reading: str = rule("total_wounds",
                              "§7.2/§13.1: Tough (N) = N wounds in all, or N beyond the first",
                              section="§7.2", choices=TOUGH_READINGS)
    rating_clamp: bool = rule(True, "§2.2: clamp modified ratings to 0..5", section="§2.2")
    shield_wall_armor_bonus: int = rule(2, "shield-wall Armor bonus", section="§8.3", lo=0,
                                        hi=5, option=False)
    shield_wall_armor_max: int = rule(RATING_MAX, "shield-wall Armor maximum", section="§8.3",
                                      lo=0, hi=6, option=False)
    shield_wall_cap: str = rule("before_mighty",
                                "assumption: wall max-5 cap before or after Mighty's -1",
                                choices=SHIELD_WALL_CAPS)
    rear_armor_mod: int = rule(1, "Armor minus this when attacked from the rear",
                               section="§6.2", lo=0, hi=5, option=False)
    outnumbered_melee_mod: int = rule(1, "Melee minus this when engaged by several enemies",
                                      section="§6.2", lo=0, hi=5, option=False)
    uphill_melee_mod: int = rule(1, "Melee minus this across an obstacle or uphill",
                                 section="§6.2", lo=0, hi=5, option=False)
    fated_armor_roll: bool = rule(
        False, "§10.3: a Fated death-stroke allows an Armor roll (DEFAULT no, as §4.4)",
        section="§10.3")
    max_turns: int = rule(50, "§12.6 safety cap; longer fights are reported truncated",
                          section="§12.6", lo=1, hi=MAX_TURNS_HI)

    def __post_init__(self):
        check_fields(self)


@dataclass(frozen=True)
class Stance:
    """A duellist's situation (§12.5 options; §6.2 and §8.3 modifiers). DEFAULT: open ground,
    front to front, no shield wall."""

    rear: bool = False          # attacked from the rear: Armor −1, no shield-wall bonus (§6.2, §8.3)
    shield_wall: bool = False   # +2 Armor (max 5), ignores the several-enemies −1 (§8.3)
    outnumbered: bool = False   # engaged by several enemies: Melee −1 unless in a wall (§6.2)
    uphill: bool = False        # attacking across an obstacle or uphill: Melee −1 (§6.2)


def clamp_rating(v: int, rules: Rules) -> int:
    """§2.2 DEFAULT ``rating_clamp``: modified ratings to 0..5."""
    return min(max(v, 0), RATING_MAX) if rules.rating_clamp else v


def melee_rating(melee: int, stance: Stance, rules: Rules) -> int:
    """Modified Melee of a figure in ``stance`` (§6.2)."""
    m = melee
    if stance.outnumbered and not stance.shield_wall:
        m -= rules.outnumbered_melee_mod            # §6.2; §8.3 walls ignore it
    if stance.uphill:
        m -= rules.uphill_melee_mod                 # §6.2
    return clamp_rating(m, rules)


def armor_rating(armor: int, stance: Stance, attacker_mighty: bool, rules: Rules) -> int:
    """Modified Armor of a figure in ``stance`` against an attacker's melee hits (§6.2, §8.3)."""
    a = armor
    mighty = rules.mighty_armor_mod if attacker_mighty else 0
    wall = stance.shield_wall and not stance.rear   # §8.3: no bonus against the rear
    if wall:
        if rules.shield_wall_cap == "before_mighty":
            a = min(a + rules.shield_wall_armor_bonus, rules.shield_wall_armor_max) - mighty
        else:
            a = min(a + rules.shield_wall_armor_bonus - mighty, rules.shield_wall_armor_max)
    else:
        a -= mighty                                 # §6.2 Mighty
    if stance.rear:
        a -= rules.rear_armor_mod                   # §6.2 attacked from the rear
    return clamp_rating(a, rules)
