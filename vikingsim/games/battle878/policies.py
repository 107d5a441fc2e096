"""Battle policies (878 §5): one name per seat (seat 0 = Vikings, seat 1 = English).

A policy covers every choice the rules leave to a side: hit assignment (878 §4.6), Command
retreats (878 §2.3), Runes/Prayer rolling and spending (SEED §4), Traitors and Disorganized
Combat picks (SEED §7.3). Compiled to ``kinds`` (int64, shape=(2,)) and ``params``
(float64, shape=(2, N_PARAMS)) for the kernel.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError


class PolicyKind(IntEnum):
    DEFAULT = 0   # 878 §4.6 hit orders, never retreats, never rolls Runes/Prayer
    NEVER = 1     # same choices as DEFAULT; named for Runes/Prayer comparisons
    GREEDY = 2    # rolls Runes/Prayer every time; spends as soon as it can, best effect first
    SMART = 3     # thought-out Runes (Vikings) / Prayer (English) play, see POLICIES help
    RETREAT = 4   # DEFAULT, plus Command retreats when the odds turn bad
    RANDOM = 5    # uniform random legal choices from the policy stream (tests, invariants)


# params[seat, 0]: retreat / God's Peace odds ratio (own strength below ratio x enemy's = bad)
# params[0, 1]: smart Vikings roll new Runes only while Prayer-card Conversions <
#               gods_peace_cost - params[0, 1]
P_RATIO = 0
P_CUT = 1
N_PARAMS = 2

POLICIES = {
    "default": "878 §4.6 orders (Vikings lose Viking Fyrd, Norsemen, Berserkers, then the Fort/"
               "Settlement; English lose traitors, Fyrd, Thegns, Housecarls); never retreats; "
               "never rolls Runes/Prayer",
    "never": "same as default; the explicit 'never roll Runes/Prayer' baseline",
    "greedy": "rolls a Runes/Prayer die for every faction on every roll (re-rolls a die once all "
              "are placed) and spends as soon as it can, costliest effect first: Vikings "
              "Ragnarök > Battle Rage > Omens of Victory (re-roll the type with most non-Hits); "
              "English God's Peace > Defend the Faith > Convert > Faith in Victory",
    "smart": "thought-out Runes/Prayer play. Vikings (alias runes_smart): stop rolling new "
             "Runes once the Prayer card holds gods_peace_cost-1 Conversions; once all Runes "
             "dice are placed, re-roll a Viking Conversion; Omens on the type with the largest "
             "expected gain (non-Hit dice x Hit chance), Battle Rage "
             "only when it adds a Berserker die, never Ragnarök (no effect on who wins). "
             "English (alias prayer_smart): always pray; God's Peace only when the odds are bad, "
             "Convert only when they are not; Defend the Faith at 3 Faith; Faith in Victory only "
             "when no Prayer die is left to roll",
    "runes_smart": "alias of smart for the Vikings (seat 0 only)",
    "cautious": "Vikings only (seat 0): smart, but rolls new Runes only while the Prayer card "
                "holds no Conversion at all (best against smart English; see "
                "notebooks/878_runes_and_prayer.ipynb)",
    "prayer_smart": "alias of smart for the English (seat 1 only)",
    "retreat": "default, plus: when the side's strength (dice x Hit chance x units) falls below "
               "half the enemy's, every Command result moves units out (Linen Clothes: 2 per "
               "Command), most valuable first; a side whose last units leave has retreated",
    "random": "uniform random hit targets, Traitor pick and Runes/Prayer rolls, greedy spending, "
              "occasional retreats (policy stream only; for tests and invariants)",
}

_KIND = {"default": PolicyKind.DEFAULT, "never": PolicyKind.NEVER, "greedy": PolicyKind.GREEDY,
         "smart": PolicyKind.SMART, "runes_smart": PolicyKind.SMART,
         "prayer_smart": PolicyKind.SMART, "cautious": PolicyKind.SMART,
         "retreat": PolicyKind.RETREAT,
         "random": PolicyKind.RANDOM}


def compile_policies(names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Policy names (seat 0 Vikings, seat 1 English) → (kinds, params) arrays."""
    if len(names) != 2:
        raise InputError(f"battle878 needs 2 policies (Vikings, English), got {len(names)}")
    if names[0] == "prayer_smart":
        raise InputError("prayer_smart is an English policy (seat 1); use runes_smart or smart")
    if names[1] in ("runes_smart", "cautious"):
        raise InputError(f"{names[1]} is a Viking policy (seat 0); use prayer_smart or smart")
    kinds = np.zeros(2, np.int64)
    params = np.zeros((2, N_PARAMS), np.float64)
    for seat, name in enumerate(names):
        if name not in _KIND:
            raise InputError(f"unknown policy {name!r}; allowed: {', '.join(POLICIES)}")
        kinds[seat] = int(_KIND[name])
        params[seat, P_RATIO] = 0.5
    # God's Peace for the smart English: 'bad odds' means English strength < Viking strength
    if kinds[1] == PolicyKind.SMART:
        params[1, P_RATIO] = 1.0
    # smart Vikings roll new Runes while Conversions on the Prayer card < gods_peace_cost - cut
    params[0, P_CUT] = 2.0 if names[0] == "cautious" else 1.0
    return kinds, params
