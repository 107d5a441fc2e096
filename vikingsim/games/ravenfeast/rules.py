"""Ravenfeast rule readings (rules notes ravenfeast.md): one frozen ``Rules`` dataclass whose
defaults are the notes' DEFAULT readings, plus per-figure ``Stance`` modifiers for a duel (§12.5).

Every ambiguity is a field; ``__post_init__`` validates (``dataclasses.replace`` re-validates).
The duel kernel receives the compiled numbers only (see ``duel.compile_duel``).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from vikingsim.core.errors import InputError
from vikingsim.games.ravenfeast.profiles import RATING_MAX, TOUGH_READINGS

FREE_ATTACK_TRIGGERS = ("armor_six", "failed_save")
SHIELD_WALL_CAPS = ("before_mighty", "after_mighty")
MAX_TURNS_HI = 30_000  # int16 turn counters


class Outcome(IntEnum):
    """Per-game result code (int8 ``outcome`` column)."""

    A_WIN = 0      # B removed, A standing
    B_WIN = 1
    BOTH_DIE = 2   # both removed in the same End of Turn (§6.5)
    TRUNCATED = 3  # max_turns reached with both standing (§12.6 guard)


@dataclass(frozen=True)
class Rules:
    """One complete reading of the Ravenfeast melee rules used by the duel (and warband) kernels.

    Attributes
    ----------
    free_attack : bool
        §6.4 Free Attack / Death Worthy of a Song is in play (SEED; DEFAULT True).
    free_attack_trigger : {"armor_six", "failed_save"}
        §6.4: the Free Attack follows a hit rolled as a 1 met by an Armor roll of 6 (SEED
        wording, DEFAULT ``armor_six``); ``failed_save`` is a looser variant: a hit rolled as a 1
        met by any failed save (differs whenever the modified Armor is below 5).
    free_attack_in_missile : bool
        §6.4 DEFAULT False: the seed places the rule in melee (used by the warband kernel).
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

    free_attack: bool = True
    free_attack_trigger: str = "armor_six"
    free_attack_in_missile: bool = False
    mighty_armor_mod: int = 1
    tough_reading: str = "total_wounds"
    rating_clamp: bool = True
    shield_wall_armor_bonus: int = 2
    shield_wall_armor_max: int = RATING_MAX
    shield_wall_cap: str = "before_mighty"
    rear_armor_mod: int = 1
    outnumbered_melee_mod: int = 1
    uphill_melee_mod: int = 1
    fated_armor_roll: bool = False
    max_turns: int = 50

    def __post_init__(self):
        if self.free_attack_trigger not in FREE_ATTACK_TRIGGERS:
            raise InputError(f"free_attack_trigger={self.free_attack_trigger!r}; allowed: "
                             f"{', '.join(FREE_ATTACK_TRIGGERS)}")
        if self.tough_reading not in TOUGH_READINGS:
            raise InputError(f"tough_reading={self.tough_reading!r}; allowed: "
                             f"{', '.join(TOUGH_READINGS)}")
        if self.shield_wall_cap not in SHIELD_WALL_CAPS:
            raise InputError(f"shield_wall_cap={self.shield_wall_cap!r}; allowed: "
                             f"{', '.join(SHIELD_WALL_CAPS)}")
        for f in ("mighty_armor_mod", "shield_wall_armor_bonus", "rear_armor_mod",
                  "outnumbered_melee_mod", "uphill_melee_mod"):
            if not 0 <= getattr(self, f) <= 5:
                raise InputError(f"{f}={getattr(self, f)} must be in [0, 5]")
        if not 0 <= self.shield_wall_armor_max <= 6:
            raise InputError(f"shield_wall_armor_max={self.shield_wall_armor_max} must be in [0, 6]")
        if not 1 <= self.max_turns <= MAX_TURNS_HI:
            raise InputError(f"max_turns={self.max_turns} must be in [1, {MAX_TURNS_HI}]")


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
