"""Raid board policies (raidboard §10): the game's only two choices, the Exploration target
(§6.5) and the Lost target (§6.8). Policies are data: frozen dataclasses whose fields are their
parameters (declared with ``core.options.rule``), registered by name in ``POLICY_TYPES``
(``GAME.policy_types``), so ``lookahead(settle_value=10)`` or a TOML file selects one.
``compile_policies`` turns each seat's policy label into a kind and a parameter row; the
kernels' ``_choose_*`` functions and the reference's twins act on them and draw only from the
policy stream.

Every policy takes ``forbid`` (restricted play, raidboard §10.5): elements of ``ELEMENTS``
joined by "+" that the seat may not choose: a sea as Exploration target, or removing an
opponent's / its own settlement on Lost. The flags travel in the parameter row
(columns ``FORBID_COL`` on)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

import numpy as np

from vikingsim.core import policies
from vikingsim.core.options import rule
from vikingsim.games.raidboard.rules import SEA_SPACES, SPACE_NAMES


class PolicyKind(IntEnum):
    GREEDY = 0
    RANDOM = 1
    LOOKAHEAD = 2
    FLATMC = 3          # search players (search_params.py, search.py): from FLATMC up
    ISMCTS = 4


#: What a seat can be denied (raidboard §10.5): each sea as Exploration target (in the order
#: of ``SEA_SPACES``), then the two kinds of Lost removal.
SEA_ELEMENTS = tuple(SPACE_NAMES[i].lower().replace(" ", "_") for i in SEA_SPACES)
LOST_OPPONENT, LOST_OWN = "lost_opponent", "lost_own"
ELEMENTS = (*SEA_ELEMENTS, LOST_OPPONENT, LOST_OWN)
#: Columns of the per-seat parameter rows: Lookahead's two (unused by the others), then one
#: forbid flag (1.0 = forbidden) per element of ``ELEMENTS``.
FORBID_COL = 2
FORBID_LOST_OPPONENT = FORBID_COL + len(SEA_ELEMENTS)
FORBID_LOST_OWN = FORBID_LOST_OPPONENT + 1
N_PARAMS = FORBID_COL + len(ELEMENTS)
_FORBID_HELP = ("elements the seat may not choose, joined by + (restricted play, §10.5): "
                + ", ".join(ELEMENTS))


def forbid_flags(forbid: str) -> np.ndarray:
    """The forbid flags (float64[len(ELEMENTS)], 1.0 = forbidden) of a ``forbid`` text
    ("" = nothing; "north_sea+lost_own"); ValueError naming an unknown element, or a text
    that forbids every sea (Exploration must go to some sea, §6.5)."""
    names = policies.forbid_names(forbid, ELEMENTS, "raidboard")
    flags = np.array([float(e in names) for e in ELEMENTS], np.float64)
    if flags[:len(SEA_ELEMENTS)].all():
        raise ValueError("forbid: every sea is forbidden, but Exploration must go to a sea "
                         "(§6.5)")
    return flags


class _Forbid:
    """``forbid`` checked when the policy is made (an unknown element is one line)."""

    def __post_init__(self):
        forbid_flags(self.forbid)

    def row(self, lookahead) -> np.ndarray:
        return np.concatenate([np.asarray(lookahead, np.float64), forbid_flags(self.forbid)])


@dataclass(frozen=True)
class Greedy(_Forbid):
    """raidboard §10 exactly: Exploration → first sea ahead (§10.2); Lost → the richest
    opponent's settlement (ties: the first clockwise from the player, i.e. the next in turn
    order), kingdom settlements first, lowest space index (§10.3)."""

    forbid: str = rule("", _FORBID_HELP, section="§10.5")
    kind: ClassVar[PolicyKind] = PolicyKind.GREEDY

    def params(self) -> np.ndarray:
        return self.row([0.0, 0.0])


@dataclass(frozen=True)
class Random(_Forbid):
    """Exploration → a sea uniformly at random; Lost → any settlement on the board uniformly
    (the seed allows the player's own); both drawn on the policy stream."""

    forbid: str = rule("", _FORBID_HELP, section="§10.5")
    kind: ClassVar[PolicyKind] = PolicyKind.RANDOM

    def params(self) -> np.ndarray:
        return self.row([0.0, 0.0])


@dataclass(frozen=True)
class Lookahead(_Forbid):
    """Exploration → the sea whose follow-up landing (sea roll 1-5, storm on 6) has the best
    expected value in Gold, valuing a new settlement at ``settle_value`` and a destroyed fleet
    at its 2d6 loss plus ``miss_cost`` for the missed turn. Lost → the settlement of the most
    threatening opponent (gold + expected income; ties: the first clockwise from the player)
    that breaks a kingdom, else one in the region where they hold most, lowest index; own
    settlements only when no opponent has any."""

    settle_value: float = rule(12.0, "Gold value of a new settlement (assumption)",
                               section="§10.4", lo=0.0, hi=1000.0)
    miss_cost: float = rule(6.0, "Gold cost of the turn a destroyed fleet misses "
                            "(assumption)", section="§10.4", lo=0.0, hi=1000.0)
    forbid: str = rule("", _FORBID_HELP, section="§10.5")
    kind: ClassVar[PolicyKind] = PolicyKind.LOOKAHEAD

    def params(self) -> np.ndarray:
        return self.row([self.settle_value, self.miss_cost])


#: Policy name -> its dataclass (``GAME.policy_types``).
POLICY_TYPES = {"greedy": Greedy, "random": Random, "lookahead": Lookahead}


def _with_params(text: str, cls) -> str:
    params = ", ".join(f"{f.name}={f.default}" for f in fields(cls) if f.name != "forbid")
    return f"{text} (parameters: {params})" if params else text


POLICY_HELP = {
    "greedy": "raidboard §10: first sea ahead; remove the richest opponent's kingdom "
              "settlement (ties clockwise from the player)",
    "random": "uniform sea; uniform settlement on the board (own ones too), policy stream",
    "lookahead": _with_params("best expected landing from the sea roll; remove the leader's "
                              "most valuable settlement (ties clockwise from the player)",
                              Lookahead),
}


from vikingsim.games.raidboard.search_params import SEARCH_HELP, SEARCH_TYPES  # noqa: E402

POLICY_TYPES.update(SEARCH_TYPES)
POLICY_HELP.update(SEARCH_HELP)


def compile_policies(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Policy labels per seat (``greedy``, ``lookahead(settle_value=10.0)``, a TOML file) →
    (kinds int8[n_seats], params float64[n_seats, N_PARAMS])."""
    specs = [policies.build("raidboard", POLICY_TYPES, label) for label in labels]
    kinds = np.array([int(p.kind) for p in specs], np.int8)
    params = np.stack([p.params() for p in specs]).astype(np.float64)
    return kinds, params
