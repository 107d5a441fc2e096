"""The raid board's search players as policies (issue 21 §2): frozen dataclasses like the
scripted ones (``policies.py``), registered in ``POLICY_TYPES``. Their compiled players are in
``search.py``, the plain-Python twins in ``reference_search.py``.

Both look ahead with the forward model (``forward.py``): a rollout plays the game to its end
with every seat on the default policy (``greedy``, raidboard §10.2-10.3), its dice drawn on
the game's policy stream, and scores 1 when the searching seat wins (0 for a loss or a
truncated game). The raid board hides nothing but future dice (every holding is public, §2),
so a determinization is one draw of those dice: each rollout is one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vikingsim.core.options import rule
from vikingsim.games.raidboard.policies import N_PARAMS, PolicyKind, _with_params

#: Largest budgets: rollouts per legal option (flatmc; up to 7 options, §6.5) and iterations
#: per decision (ismcts; its tree takes budget + 1 nodes of 40 options)
MAX_ROLLOUTS, MAX_BUDGET = 1 << 12, 1 << 14


@dataclass(frozen=True)
class FlatMC:
    """Flat Monte Carlo: every legal option is scored by ``rollouts`` rollouts (wins of the
    searching seat), options in ascending space order; the best score wins, a tie is broken
    uniformly on the policy stream."""

    rollouts: int = rule(16, "rollouts per legal option", section="issue 21 §2", lo=1,
                         hi=MAX_ROLLOUTS)
    kind: ClassVar[PolicyKind] = PolicyKind.FLATMC

    def params(self) -> np.ndarray:
        row = np.zeros(N_PARAMS)
        row[0] = self.rollouts
        return row


@dataclass(frozen=True)
class ISMCTS:
    """Information-set MCTS (single observer, open loop): ``budget`` iterations per decision,
    each on a fresh determinization (future dice). The tree holds the searching seat's own
    choices (children keyed by the chosen space); the other seats and the dice are the
    environment, played by the default policy. Selection: UCB1 with availability counts (how
    often an option was legal at the node), ``wins/visits + c*sqrt(ln(available)/visits)``,
    equals drawn on the policy stream, an untried option first (ascending space); one node
    expanded per iteration, then a rollout. The most visited root option is played, a tie
    broken uniformly on the policy stream."""

    budget: int = rule(64, "iterations (rollouts) per decision", section="issue 21 §2", lo=1,
                       hi=MAX_BUDGET)
    c: float = rule(math.sqrt(2.0), "UCB1 exploration constant", section="issue 21 §2",
                    lo=0.0, hi=100.0)
    kind: ClassVar[PolicyKind] = PolicyKind.ISMCTS

    def params(self) -> np.ndarray:
        row = np.zeros(N_PARAMS)                   # the scripted policies' row layout
        row[0], row[1] = self.budget, self.c
        return row


SEARCH_TYPES = {"flatmc": FlatMC, "ismcts": ISMCTS}
SEARCH_HELP = {
    "flatmc": _with_params("search: each legal option scored by rollouts with the default "
                           "policy (greedy), dice on the policy stream", FlatMC),
    "ismcts": _with_params("search: UCT over determinizations of future dice, budget "
                           "rollouts per decision", ISMCTS),
}
