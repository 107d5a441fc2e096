"""Raid board policies (raidboard §10): the game's only two choices, the Exploration target
(§6.5) and the Lost target (§6.8). Policies are data: frozen dataclasses whose fields are their
parameters (declared with ``core.options.rule``), registered by name in ``POLICY_TYPES``
(``GAME.policy_types``), so ``lookahead(settle_value=10)`` or a TOML file selects one.
``compile_policies`` turns each seat's policy label into a kind and a parameter row; the
kernels' ``_choose_*`` functions and the reference's twins act on them and draw only from the
policy stream."""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

import numpy as np

from vikingsim.core import policies
from vikingsim.core.options import rule


class PolicyKind(IntEnum):
    GREEDY = 0
    RANDOM = 1
    LOOKAHEAD = 2
    FLATMC = 3          # search players (search_params.py, search.py): from FLATMC up
    ISMCTS = 4


#: Columns of the per-seat parameter rows (Lookahead's two; unused by the others).
N_PARAMS = 2


@dataclass(frozen=True)
class Greedy:
    """raidboard §10 exactly: Exploration → first sea ahead (§10.2); Lost → the richest
    opponent's settlement (ties: the first clockwise from the player, i.e. the next in turn
    order), kingdom settlements first, lowest space index (§10.3)."""

    kind: ClassVar[PolicyKind] = PolicyKind.GREEDY

    def params(self) -> np.ndarray:
        return np.zeros(N_PARAMS)


@dataclass(frozen=True)
class Random:
    """Exploration → a sea uniformly at random; Lost → any settlement on the board uniformly
    (the seed allows the player's own); both drawn on the policy stream."""

    kind: ClassVar[PolicyKind] = PolicyKind.RANDOM

    def params(self) -> np.ndarray:
        return np.zeros(N_PARAMS)


@dataclass(frozen=True)
class Lookahead:
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
    kind: ClassVar[PolicyKind] = PolicyKind.LOOKAHEAD

    def params(self) -> np.ndarray:
        return np.array([self.settle_value, self.miss_cost], np.float64)


#: Policy name -> its dataclass (``GAME.policy_types``).
POLICY_TYPES = {"greedy": Greedy, "random": Random, "lookahead": Lookahead}


def _with_params(text: str, cls) -> str:
    params = ", ".join(f"{f.name}={f.default}" for f in fields(cls))
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
