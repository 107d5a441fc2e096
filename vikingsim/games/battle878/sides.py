"""The two sides of 878 and what "a side wins" a battle means (restricted play, 878 §5.3).

878 is not seated: seat 0 is always the Vikings and seat 1 the English (878 §5.1). A
restricted-play study (``vikingsim importance battle878``) compares one side's win rate with
and without an element, so it needs a reading of "wins" over the seven outcomes
(``rules.OUTCOME_KEYS``). The rulebook ties winning a battle to keeping or taking the shire
("Forts must be destroyed before the English win the Battle and capture the Shire", SEED §1.4;
"A Settlement must be destroyed before the English can control the Shire it occupies",
SEED §1.5; "If the English win a Battle and gain control of a Relic", SEED §5.3) and does not
name a winner for a retreat, God's Peace or a battle that empties the shire. The readings
(878 §5.3), each a value of the option ``side_win``:

- ``holds`` (DEFAULT): a side wins when it holds the field at the end: its own ``*_win``, the
  other side's retreat with its last units, and, for the English, ``gods_peace`` (every Viking
  unit "must immediately move" out, SEED §4.4, and the English keep the shire);
- ``strict``: only the side's own ``*_win`` (the other side eliminated in battle).

Under both, ``both_eliminated`` (nobody is left to hold the shire) and ``truncated`` (the
``max_rolls`` guard, never a result, 878 §4.10) are nobody's win.
"""
from __future__ import annotations

from vikingsim.games.battle878.policies import ELEMENT_NAMES, ELEMENT_SIDES
from vikingsim.games.battle878.rules import OUTCOME_KEYS

#: side name -> seat (878 §5.1)
SIDES = {"vikings": 0, "english": 1}
DEFAULT_SIDE_WIN = "holds"
#: reading -> side -> the outcomes that count as that side's win (878 §5.3)
SIDE_WIN = {
    "holds": {"vikings": ("vikings_win", "english_retreat"),
              "english": ("english_win", "vikings_retreat", "gods_peace")},
    "strict": {"vikings": ("vikings_win",), "english": ("english_win",)},
}
assert all(o in OUTCOME_KEYS for r in SIDE_WIN.values() for os in r.values() for o in os)


def element_seats(element: str) -> tuple[int, ...]:
    """The seats whose rules give ``element``'s choice (``policies.ELEMENT_SIDES``)."""
    return ELEMENT_SIDES[ELEMENT_NAMES.index(element)]
