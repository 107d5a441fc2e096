"""Ravenfeast unit profiles as editable data (rules notes ravenfeast.md §11-§12).

Only the point totals of the six predefined types are SEED (§11.2: Jarl 75, Huskarl 36,
Berserker 30, Hirdmen 18, Bondi 12, Thrall 9) together with Tough (3) for the Jarl and Tough (2)
for Huskarls (§7.2). Every other number (Move, Missile, Attacks, Melee, Armor, Morale, traits)
is the DEFAULT profile table of §12.2: an ASSUMPTION, listed per profile in ``assumed`` and
meant to be calibrated (§12.4, ``notebooks/ravenfeast_points.ipynb``).

Kernels never see a :class:`Profile`: :func:`compile_profile` turns a profile name (or a
Profile) plus overrides into one int64 row indexed by :class:`Stat`.

Examples
--------
>>> from vikingsim.games.ravenfeast.profiles import compile_profile, Stat
>>> row = compile_profile("jarl", {"armor": 3})       # Fight for Honor's Armor-3 Jarl (§10.7)
>>> int(row[Stat.ARMOR]), int(row[Stat.WOUNDS])
(3, 3)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError

#: §2.1: ratings run 1..5; 0 is allowed for "cannot" (a test at 0 always fails, §2.2).
RATING_MIN, RATING_MAX = 0, 5
#: Sanity bounds for overrides (not rules).
MAX_ATTACKS = 20
MAX_WOUNDS = 50

TOUGH_READINGS = ("total_wounds", "extra_wounds")  # §7.2 / §13.1


class Stat(IntEnum):
    """Column of a compiled profile row (int64, shape=(N_STATS,))."""

    ATTACKS = 0   # melee dice per turn (§6.1)
    MELEE = 1     # hit on d6 <= MELEE (§6.1)
    ARMOR = 2     # save on d6 <= ARMOR (§6.3)
    MORALE = 3    # pass on d6 <= MORALE (§9.1)
    WOUNDS = 4    # wounds to remove the figure, after the Tough reading (§7.1-7.2)
    MIGHTY = 5    # 1: target's Armor -1 against its melee hits (§6.2)
    FEARLESS = 6  # 1: never tests morale (§10.4)
    FATED = 7     # 1: when killed, a free attack on each enemy in contact (§10.3)
    LEADER = 8    # 1: the warband's Leader (§9.3)
    HERO = 9      # 1: a Hero (§9.3, §13.3)
    MISSILE = 10  # hit on d6 <= MISSILE when shooting; 0 = no missile weapon (§5.3)
    MOVE = 11     # inches (§4.1)
    RANGE = 12    # missile range in inches: bow 18, javelin 8, crossbow 14, none 0 (§5.1)


N_STATS = len(Stat)

#: §5.1 ranges in inches, by weapon name (SEED).
WEAPON_RANGE = {"": 0, "bow": 18, "javelin": 8, "crossbow": 14}


@dataclass(frozen=True)
class Profile:
    """One figure type. Field defaults are a plain 1-wound figure with no traits.

    ``tough`` is the N of Tough (N) as printed (0 = not Tough); the wound count it gives
    depends on the ``tough_reading`` (§7.2, §13.1), applied by :func:`wounds_for`.
    ``points`` is the printed (seed) cost; ``assumed`` names the fields that are DEFAULT
    assumptions rather than seed facts.
    """

    name: str
    points: float
    move: int = 6
    missile: int = 0
    weapon: str = ""          # "", "bow", "javelin", "crossbow" (§5.1)
    attacks: int = 1
    melee: int = 3
    armor: int = 2
    morale: int = 3
    tough: int = 0
    mighty: bool = False
    fearless: bool = False
    fated: bool = False
    leader: bool = False
    hero: bool = False
    assumed: tuple = ()
    source: str = ""

    def __post_init__(self):
        for f in ("melee", "armor", "morale", "missile"):
            v = getattr(self, f)
            if not RATING_MIN <= v <= RATING_MAX:
                raise InputError(f"profile {self.name}: {f}={v} must be in "
                                 f"[{RATING_MIN}, {RATING_MAX}] (§2.1)")
        if not 0 <= self.attacks <= MAX_ATTACKS:
            raise InputError(f"profile {self.name}: attacks={self.attacks} must be in "
                             f"[0, {MAX_ATTACKS}]")
        if not 0 <= self.tough <= MAX_WOUNDS:
            raise InputError(f"profile {self.name}: tough={self.tough} must be in [0, {MAX_WOUNDS}]")
        if self.weapon not in WEAPON_RANGE:
            raise InputError(f"profile {self.name}: weapon={self.weapon!r}; allowed: "
                             f"{', '.join(repr(w) for w in WEAPON_RANGE)}")
        if self.move < 0:
            raise InputError(f"profile {self.name}: move={self.move} must be >= 0")


_RATINGS_ASSUMED = ("move", "attacks", "melee", "armor", "morale", "mighty", "leader")

#: §12.2 DEFAULT profiles. SEED: points (§11.2) and Tough (3)/(2) (§7.2); the rest ASSUMED.
#: Keys are lower-case type names (the ``a``/``b`` option values of mode=duel).
PROFILES: dict[str, Profile] = {
    "jarl": Profile("Jarl", 75, attacks=2, melee=5, armor=4, morale=5, tough=3, mighty=True,
                    leader=True, assumed=_RATINGS_ASSUMED,
                    source="§11.2 points, §7.2 Tough (3); ratings §12.2 DEFAULT"),
    "huskarl": Profile("Huskarl", 36, attacks=1, melee=4, armor=4, morale=4, tough=2,
                       mighty=True, assumed=_RATINGS_ASSUMED,
                       source="§11.2 points, §7.2 Tough (2); ratings §12.2 DEFAULT"),
    "berserker": Profile("Berserker", 30, attacks=2, melee=4, armor=2, morale=4, mighty=True,
                         assumed=_RATINGS_ASSUMED, source="§11.2 points; ratings §12.2 DEFAULT"),
    "hirdmen": Profile("Hirdmen", 18, attacks=1, melee=4, armor=3, morale=4,
                       assumed=_RATINGS_ASSUMED, source="§11.2 points; ratings §12.2 DEFAULT"),
    "bondi": Profile("Bondi", 12, attacks=1, melee=3, armor=2, morale=2,
                     assumed=_RATINGS_ASSUMED, source="§11.2 points; ratings §12.2 DEFAULT"),
    "thrall": Profile("Thrall", 9, attacks=1, melee=2, armor=1, morale=2,
                      assumed=_RATINGS_ASSUMED, source="§11.2 points; ratings §12.2 DEFAULT"),
    # §12.2 option: a Bondi archer adds a bow at Missile 3 for +9 (seed anchor) = 21 points.
    "bondi_archer": Profile("Bondi archer", 21, attacks=1, melee=3, armor=2, morale=2,
                            missile=3, weapon="bow", assumed=_RATINGS_ASSUMED,
                            source="§11.3 bow anchor; §12.2 DEFAULT option"),
}

#: The six predefined types of §11.2, in printed order.
PREDEFINED = ("jarl", "huskarl", "berserker", "hirdmen", "bondi", "thrall")
PROFILE_NAMES = tuple(PROFILES)


@dataclass(frozen=True)
class Prices:
    """§12.3 DEFAULT price model (``ravenfeast_prices``). SEED anchors: melee_per_level 2
    (Melee 4 = 8 per attack), bow_per_level 3 (bow Missile 3 = 9), move 8" = 2, Mighty +5,
    Fearless +15, extra wound +50 %. Others are DEFAULT assumptions fitted to the six costs."""

    per_figure: float = 1.0
    move_per_inch_over_6: float = 1.0
    melee_per_level_per_attack: float = 2.0
    bow_per_level: float = 3.0
    javelin_per_level: float = 1.0
    crossbow_per_level: float = 3.0     # not given; DEFAULT = bow
    armor_per_level: float = 1.0
    morale_per_level: float = 1.5
    mighty: float = 5.0
    fearless: float = 15.0
    fated: float = 0.0                  # not given (§10.3)
    leader: float = 0.0
    hero: float = 0.0
    extra_wound_fraction: float = 0.5


PRICES = Prices()


def wounds_for(tough: int, tough_reading: str = "total_wounds") -> int:
    """Wounds a figure takes before removal (§7.2, §13.1).

    ``total_wounds`` (DEFAULT): Tough (N) = removed at the N-th wound; not Tough = 1.
    ``extra_wounds``: Tough (N) = N wounds beyond the first.
    """
    if tough_reading == "total_wounds":
        return max(1, tough)
    if tough_reading == "extra_wounds":
        return 1 + tough
    raise InputError(f"tough_reading={tough_reading!r}; allowed: {', '.join(TOUGH_READINGS)}")


def price(p: Profile, prices: Prices = PRICES, tough_reading: str = "total_wounds") -> float:
    """Points of a profile under the §12.3 price model (the six DEFAULT profiles give their
    seed cost exactly under the DEFAULT prices and ``total_wounds``)."""
    per_level = {"": 0.0, "bow": prices.bow_per_level, "javelin": prices.javelin_per_level,
                 "crossbow": prices.crossbow_per_level}[p.weapon]
    base = (prices.per_figure + prices.move_per_inch_over_6 * (p.move - 6)
            + prices.melee_per_level_per_attack * p.melee * p.attacks
            + per_level * p.missile + prices.armor_per_level * p.armor
            + prices.morale_per_level * p.morale + prices.mighty * p.mighty
            + prices.fearless * p.fearless + prices.fated * p.fated
            + prices.leader * p.leader + prices.hero * p.hero)
    extra = wounds_for(p.tough, tough_reading) - 1
    return base * (1.0 + prices.extra_wound_fraction * extra)


def get_profile(name: str | Profile) -> Profile:
    """The profile called ``name`` (case-insensitive; spaces/hyphens as underscores)."""
    if isinstance(name, Profile):
        return name
    key = str(name).strip().lower().replace(" ", "_").replace("-", "_")
    if key not in PROFILES:
        raise InputError(f"unknown unit type {name!r}; allowed: {', '.join(PROFILE_NAMES)}")
    return PROFILES[key]


#: Override keys accepted by :func:`compile_profile` (Profile fields plus ``wounds``).
OVERRIDE_KEYS = ("attacks", "melee", "armor", "morale", "wounds", "tough", "mighty", "fearless",
                 "fated", "leader", "hero", "missile", "move", "weapon")


def apply_overrides(p: Profile, overrides: dict | None) -> tuple[Profile, int | None]:
    """``p`` with overrides applied; returns (profile, explicit wound count or None).

    ``wounds`` sets the wound count directly (bypassing the Tough reading); the other keys set
    Profile fields. ``None`` values are ignored (meaning "keep the profile's value").
    """
    wounds = None
    changes = {}
    for k, v in (overrides or {}).items():
        if v is None:
            continue
        if k not in OVERRIDE_KEYS:
            raise InputError(f"unknown profile override {k!r}; allowed: {', '.join(OVERRIDE_KEYS)}")
        if k == "wounds":
            if isinstance(v, bool) or not 1 <= int(v) <= MAX_WOUNDS:
                raise InputError(f"wounds={v!r} must be an integer in [1, {MAX_WOUNDS}]")
            wounds = int(v)
        elif k in ("mighty", "fearless", "fated", "leader", "hero"):
            changes[k] = bool(v)
        elif k == "weapon":
            changes[k] = str(v)
        else:
            changes[k] = int(v)
    return (replace(p, **changes) if changes else p), wounds


def compile_profile(name: str | Profile, overrides: dict | None = None, *,
                    tough_reading: str = "total_wounds") -> np.ndarray:
    """A profile name (or Profile) plus overrides → one kernel row.

    Parameters
    ----------
    name : str or Profile
        A key of :data:`PROFILES` (case-insensitive) or a Profile.
    overrides : dict, optional
        Keys from :data:`OVERRIDE_KEYS`; ``wounds`` is the wound count itself, ``tough`` the
        printed N of Tough (N) (converted with ``tough_reading``).
    tough_reading : {"total_wounds", "extra_wounds"}
        §7.2 / §13.1 reading (DEFAULT ``total_wounds``).

    Returns
    -------
    ndarray(int64, shape=(N_STATS,))
        Indexed by :class:`Stat`.
    """
    p, wounds = apply_overrides(get_profile(name), overrides)
    row = np.zeros(N_STATS, np.int64)
    row[Stat.ATTACKS] = p.attacks
    row[Stat.MELEE] = p.melee
    row[Stat.ARMOR] = p.armor
    row[Stat.MORALE] = p.morale
    row[Stat.WOUNDS] = wounds if wounds is not None else wounds_for(p.tough, tough_reading)
    row[Stat.MIGHTY] = p.mighty
    row[Stat.FEARLESS] = p.fearless
    row[Stat.FATED] = p.fated
    row[Stat.LEADER] = p.leader
    row[Stat.HERO] = p.hero
    row[Stat.MISSILE] = p.missile
    row[Stat.MOVE] = p.move
    row[Stat.RANGE] = WEAPON_RANGE[p.weapon]
    return row


def compile_profiles(names, overrides=None, *, tough_reading: str = "total_wounds") -> np.ndarray:
    """Many figures at once: ndarray(int64, shape=(n_figures, N_STATS)).

    ``overrides`` is None or a list (one dict or None per figure).
    """
    names = list(names)
    overrides = list(overrides) if overrides is not None else [None] * len(names)
    if len(overrides) != len(names):
        raise InputError(f"{len(overrides)} override dicts for {len(names)} figures")
    out = np.zeros((len(names), N_STATS), np.int64)
    for i, (n, o) in enumerate(zip(names, overrides)):
        out[i] = compile_profile(n, o, tough_reading=tough_reading)
    return out


def profile_table(profiles: dict[str, Profile] | None = None, prices: Prices = PRICES,
                  tough_reading: str = "total_wounds"):
    """The profiles as a DataFrame (one row per type) with the model price beside the seed's."""
    import pandas as pd

    rows = []
    for key, p in (profiles or PROFILES).items():
        d = {k: v for k, v in asdict(p).items() if k not in ("assumed", "source")}
        d["key"] = key
        d["wounds"] = wounds_for(p.tough, tough_reading)
        d["model_points"] = price(p, prices, tough_reading)
        rows.append(d)
    cols = ["key"] + [f.name for f in fields(Profile) if f.name not in ("assumed", "source")]
    return pd.DataFrame(rows)[cols + ["wounds", "model_points"]]
