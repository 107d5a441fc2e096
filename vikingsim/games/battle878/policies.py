"""Battle policies (878 §5): one per seat (seat 0 = Vikings, seat 1 = English), as data.

A policy covers every choice the rules leave to a side: hit assignment (878 §4.6), Command
retreats (878 §2.3), Runes/Prayer rolling and spending (SEED §4), Traitors and Disorganized
Combat picks (SEED §7.3). Each policy is a frozen dataclass whose fields are its parameters
(declared with ``core.options.rule``), registered by name in ``POLICY_TYPES``; a text such as
``retreat(threshold=0.6)`` is built by ``core.policies.build``. ``compile_policies`` stacks
them into ``kinds`` (int64, shape=(2,)) and ``params`` (float64, shape=(2, N_PARAMS), indexed
by ``PolicyParam``) for the kernel; the reference engine reads the same objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

import numpy as np

from vikingsim.core import policies as core_policies
from vikingsim.core.errors import InputError
from vikingsim.core.options import rule


class PolicyKind(IntEnum):
    DEFAULT = 0   # 878 §4.6 hit orders, never retreats, never rolls Runes/Prayer
    NEVER = 1     # same choices as DEFAULT; named for Runes/Prayer comparisons
    GREEDY = 2    # rolls Runes/Prayer every time; spends as soon as it can, best effect first
    SMART = 3     # thought-out Runes (Vikings) / Prayer (English) play, see POLICIES help
    RETREAT = 4   # DEFAULT, plus Command retreats when the odds turn bad
    RANDOM = 5    # uniform random legal choices from the policy stream (tests, invariants)
    OPTIMAL = 6   # exact best play (optimal_rp.py): Runes/Prayer dice from the DP's table


class PolicyParam(IntEnum):
    """Columns of the compiled ``params`` (one row per seat)."""
    RETREAT_ODDS = 0      # retreat: move units out when own strength < x * the enemy's
    BAD_ODDS = 1          # smart English: odds are bad when English strength < x * Viking's
    RUNES_MARGIN = 2      # smart Vikings: new Runes while Conversions < gods_peace_cost - x
    RETREAT_CHANCE = 3    # random: chance of a retreat on a roll with Commands
    DIE_CHANCE = 4        # random: chance of rolling a new Runes/Prayer die, per faction
    REROLL_CHANCE = 5     # random: chance of re-rolling a placed Viking Conversion
    FORBID = 6            # every policy: bit mask of the forbidden Element values (exact)


N_PARAMS = len(PolicyParam)
BOTH_SEATS, VIKING_SEAT, ENGLISH_SEAT = (0, 1), (0,), (1,)


class Element(IntEnum):
    """Policy options a side can be denied (restricted play, issue 20 §2; 878 §5): bit
    ``1 << Element`` of ``PolicyParam.FORBID``. Each belongs to the side the rules give that
    choice (``ELEMENT_SIDES``); forbidding it at the other seat changes nothing."""
    RETREAT = 0            # Command retreats (878 §2.3), either side
    RUNES = 1              # roll a new Runes die, or re-roll a placed one (SEED §4.1)
    OMENS_OF_VICTORY = 2   # SEED §4.3
    BATTLE_RAGE = 3
    RAGNAROK = 4
    PRAYER = 5             # roll a Prayer die (SEED §4.1)
    FAITH_IN_VICTORY = 6   # SEED §4.4
    DEFEND_THE_FAITH = 7
    CONVERT = 8
    GODS_PEACE = 9


ELEMENT_NAMES = tuple(e.name.lower() for e in Element)
#: the seats whose rules give each element's choice (seat 0 Vikings, seat 1 English)
ELEMENT_SIDES = {e: (BOTH_SEATS if e == Element.RETREAT else
                     VIKING_SEAT if e <= Element.RAGNAROK else ENGLISH_SEAT) for e in Element}


def setup_elements(rules) -> tuple[str, ...]:
    """The elements the rules offer in this setup (``GameSpec.elements``): Command retreats
    always; the Runes and Prayer choices with ``runes_prayer`` (Battle Rage only with a
    Reserve Pile, God's Peace only with ``gods_peace_exit``)."""
    out = [Element.RETREAT]
    if rules.runes_prayer:
        out += [e for e in Element if e != Element.RETREAT
                and not (e == Element.BATTLE_RAGE and rules.reserve_berserkers == 0)
                and not (e == Element.GODS_PEACE and not rules.gods_peace_exit)]
    return tuple(ELEMENT_NAMES[e] for e in out)


def forbid_mask(text: str, allowed) -> int:
    """``forbid`` text (names joined by '+'; '' = nothing) -> bit mask; InputError, one line
    listing ``allowed``, for a name not in it."""
    mask = 0
    for name in core_policies.forbid_names(text, allowed, "battle878 here", listed="valid"):
        mask |= 1 << ELEMENT_NAMES.index(name)
    return mask


@dataclass(frozen=True)
class Default:
    """878 §4.6 hit orders; never retreats, never rolls Runes/Prayer."""
    forbid: str = rule("", "elements this side may not use (restricted play), joined by '+': "
                       "retreat, runes, omens_of_victory, battle_rage, ragnarok, prayer, "
                       "faith_in_victory, defend_the_faith, convert, gods_peace ('' = none)")
    kind: ClassVar[PolicyKind] = PolicyKind.DEFAULT
    seats: ClassVar[tuple] = BOTH_SEATS

    def __post_init__(self):
        forbid_mask(self.forbid, ELEMENT_NAMES)     # the setup checks it again (setup_elements)

    def params(self) -> dict:
        return {}

    def all_params(self) -> dict:
        """``params()`` plus the forbid mask (every policy)."""
        return {**self.params(), PolicyParam.FORBID: forbid_mask(self.forbid, ELEMENT_NAMES)}


@dataclass(frozen=True)
class Never(Default):
    """Same choices as default: the explicit 'never roll Runes/Prayer' baseline."""
    kind: ClassVar[PolicyKind] = PolicyKind.NEVER


@dataclass(frozen=True)
class Greedy(Default):
    """Rolls Runes/Prayer every time and spends as soon as it can, costliest effect first."""
    kind: ClassVar[PolicyKind] = PolicyKind.GREEDY


@dataclass(frozen=True)
class Smart(Default):
    """Thought-out Runes (Vikings) and Prayer (English) play (POLICIES['smart'])."""
    bad_odds: float = rule(1.0, "English: God's Peace only when English strength < bad_odds x "
                           "Viking strength, Convert only otherwise", lo=0.0, hi=10.0)
    runes_margin: int = rule(1, "Vikings: roll new Runes only while the Prayer card holds "
                             "fewer than gods_peace_cost - runes_margin Conversions", lo=0,
                             hi=10)
    kind: ClassVar[PolicyKind] = PolicyKind.SMART

    def params(self) -> dict:
        return {PolicyParam.BAD_ODDS: self.bad_odds, PolicyParam.RUNES_MARGIN: self.runes_margin}


@dataclass(frozen=True)
class RunesSmart(Smart):
    """Alias of smart for the Vikings."""
    seats: ClassVar[tuple] = VIKING_SEAT


@dataclass(frozen=True)
class PrayerSmart(Smart):
    """Alias of smart for the English."""
    seats: ClassVar[tuple] = ENGLISH_SEAT


@dataclass(frozen=True)
class Cautious(Smart):
    """Smart Vikings who stop rolling new Runes once the Prayer card holds any Conversion."""
    runes_margin: int = rule(2, "roll new Runes only while the Prayer card holds fewer than "
                             "gods_peace_cost - runes_margin Conversions (none at all at the "
                             "seed's cost 3)", lo=0, hi=10)
    seats: ClassVar[tuple] = VIKING_SEAT


@dataclass(frozen=True)
class Retreat(Default):
    """Default, plus Command retreats when the odds turn bad (878 §2.3, §5)."""
    threshold: float = rule(0.5, "retreat when the side's strength (dice x Hit chance x units) "
                            "is below threshold x the enemy's", lo=0.0, hi=10.0)
    kind: ClassVar[PolicyKind] = PolicyKind.RETREAT

    def params(self) -> dict:
        return {PolicyParam.RETREAT_ODDS: self.threshold}


@dataclass(frozen=True)
class Random(Default):
    """Uniform random hit targets and Traitor pick; coins for retreats and Runes/Prayer dice."""
    retreat_chance: float = rule(0.2, "chance of a retreat on a roll with Commands", lo=0.0,
                                 hi=1.0)
    die_chance: float = rule(0.5, "chance of rolling a new Runes/Prayer die, per faction and "
                             "roll", lo=0.0, hi=1.0)
    reroll_chance: float = rule(0.5, "chance of re-rolling a placed Viking Conversion once "
                                "every Runes die is placed", lo=0.0, hi=1.0)
    kind: ClassVar[PolicyKind] = PolicyKind.RANDOM

    def params(self) -> dict:
        return {PolicyParam.RETREAT_CHANCE: self.retreat_chance,
                PolicyParam.DIE_CHANCE: self.die_chance,
                PolicyParam.REROLL_CHANCE: self.reroll_chance}


#: policy optimal's English spending codes (Setup.table rows 2-3, optimal_rp, 878 §5.2): c >= 0
#: Convert c times (at most what is affordable); SPEND_GP God's Peace; SPEND_SCRIPTED (every
#: other policy, and optimal at a state outside the table): God's Peace if affordable, else
#: Convert while affordable
SPEND_GP = -1
SPEND_SCRIPTED = -2


@dataclass(frozen=True)
class Optimal(Default):
    """Exact best play (issue 21 §3; optimal.py, optimal_rp.py): the number of factions that
    roll a Runes/Prayer die at each roll, the Viking Ragnarök at the start of a Viking roll,
    and the English Converts and God's Peace, come from the DP's decision table
    (``Setup.table``, int8); the Vikings' Omens of Victory inside their roll from the DP's
    value table (``Setup.omens``, 878 §5.2); the rest scripted (no Battle Rage, no Ragnarök at
    any other point, Defend the Faith, Faith in Victory); never retreats (without Runes and
    Prayer that is optimal: optimal.retreat_check)."""
    game: str = rule("own", "whose game's table to play: own (maximise own success), "
                     "vikings or english (the saddle strategy of that side's game)",
                     choices=("own", "vikings", "english"))
    kind: ClassVar[PolicyKind] = PolicyKind.OPTIMAL

    def game_index(self, seat: int) -> int:
        """The game (0 Vikings', 1 English) whose decisions this seat plays."""
        return seat if self.game == "own" else ("vikings", "english").index(self.game)


POLICY_TYPES = {"default": Default, "never": Never, "greedy": Greedy, "smart": Smart,
                "runes_smart": RunesSmart, "cautious": Cautious, "prayer_smart": PrayerSmart,
                "retreat": Retreat, "random": Random, "optimal": Optimal}

POLICIES = {
    "default": "878 §4.6 orders (Vikings lose Viking Fyrd, Norsemen, Berserkers, then the Fort/"
               "Settlement; English lose traitors, Fyrd, Thegns, Housecarls); never retreats; "
               "never rolls Runes/Prayer. Every policy takes forbid=ELEMENT+... (restricted play, "
               "878 §5.1): retreat, runes, omens_of_victory, battle_rage, ragnarok, prayer, "
               "faith_in_victory, defend_the_faith, convert, gods_peace",
    "never": "same as default; the explicit 'never roll Runes/Prayer' baseline",
    "greedy": "rolls a Runes/Prayer die for every faction on every roll (re-rolls a die once all "
              "are placed) and spends as soon as it can, costliest effect first: Vikings "
              "Ragnarök > Battle Rage > Omens of Victory (re-roll the type with most non-Hits); "
              "English God's Peace > Defend the Faith > Convert > Faith in Victory",
    "smart": "thought-out Runes/Prayer play. Vikings (alias runes_smart): stop rolling new "
             "Runes once the Prayer card holds gods_peace_cost - runes_margin (1) Conversions; "
             "once all Runes dice are placed, re-roll a Viking Conversion; Omens on the type "
             "with the largest expected gain (non-Hit dice x Hit chance), Battle Rage only when "
             "it adds a Berserker die, never Ragnarök (no effect on who wins). English (alias "
             "prayer_smart): always pray; God's Peace only when the odds are bad (English "
             "strength < bad_odds (1.0) x Viking strength), Convert only when they are not; "
             "Defend the Faith at 3 Faith; Faith in Victory only when no Prayer die is left to "
             "roll",
    "runes_smart": "alias of smart for the Vikings (seat 0 only)",
    "cautious": "Vikings only (seat 0): smart with runes_margin 2, i.e. new Runes only while "
                "the Prayer card holds no Conversion at all (best against smart English; see "
                "notebooks/878_runes_and_prayer.ipynb)",
    "prayer_smart": "alias of smart for the English (seat 1 only)",
    "retreat": "default, plus: when the side's strength (dice x Hit chance x units) falls below "
               "threshold (0.5) x the enemy's, every Command result moves units out (Linen "
               "Clothes: 2 per Command), most valuable first; a side whose last units leave "
               "has retreated",
    "optimal": "exact best play (issue 21 §3): never retreats (optimal without Runes and "
               "Prayer); with runes_prayer, how many factions roll a Runes/Prayer die each "
               "roll comes from the exact DP (small battles, no Fyrd; docs/rules/battle878.md "
               "§5.2), and so are the Viking Ragnarok (at the start of a Viking roll), the "
               "Viking Omens of Victory (inside the roll: which type, which dice, again while "
               "Runes last), the English Converts (how many) and God's Peace (now or not); "
               "nothing else is bought. "
               "game=own (default) / vikings / english: whose game's maximin table to play",
    "random": "uniform random hit targets and Traitor pick; greedy spending; coins for a new "
              "Runes/Prayer die (die_chance 0.5), a Runes re-roll (reroll_chance 0.5) and a "
              "retreat (retreat_chance 0.2) (policy stream only; for tests and invariants)",
}

_SEAT_HINT = {0: "a Viking policy (seat 0); use prayer_smart or smart",
              1: "an English policy (seat 1); use runes_smart or smart"}


def policy_objects(texts) -> tuple:
    """Policy texts or objects (seat 0 Vikings, seat 1 English) → policy objects; InputError
    for an unknown name, a bad parameter or a policy on the wrong seat."""
    if len(texts) != 2:
        raise InputError(f"battle878 needs 2 policies (Vikings, English), got {len(texts)}")
    out = []
    for seat, p in enumerate(texts):
        name = p if isinstance(p, str) else None
        obj = core_policies.build("battle878", POLICY_TYPES, p) if name else p
        if seat not in obj.seats:
            label = core_policies.parse(name)[0] if name else type(obj).__name__
            raise InputError(f"{label} is {_SEAT_HINT[obj.seats[0]]}")
        out.append(obj)
    return tuple(out)


def compile_policies(policies) -> tuple[np.ndarray, np.ndarray]:
    """Policies (texts or objects; seat 0 Vikings, seat 1 English) → (kinds, params)."""
    objs = policy_objects(policies)
    kinds = np.array([int(p.kind) for p in objs], np.int64)
    params = np.zeros((len(objs), N_PARAMS), np.float64)
    for seat, p in enumerate(objs):
        for slot, value in p.all_params().items():
            params[seat, slot] = value
    return kinds, params
