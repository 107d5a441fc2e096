"""Ragnarok's search players as policies (issue 21 §2; tev-ragnarok §4.11): frozen dataclasses
like the scripted ones (``policies.py``), registered in ``POLICY_TYPES``. Their compiled
players are in ``search.py``, the plain-Python twins in ``reference_search.py``.

A search seat chooses the card of each of its turns and its use (the option list of §4.7) by
looking ahead with the forward model (``forward.py``); its other choices (the draft pick, the
focus region, a Joker's Rune, where a Valkyrie lands) are ``greedy_vp``'s with the weights
below. A rollout is one determinization (the hidden cards and Giant values drawn again,
consistent with what the seat has seen, §4.11) played to the end with every seat on
``greedy_vp`` (the default policy), its dice drawn on the game's policy stream; it scores 1
when the searching seat wins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vikingsim.games.tevragnarok.policies import (
    _CLOCKWISE, Param, PolicyKind, _Valued, _face_up, _forbid, _giant, _resource, _settler,
    _special, _valkyrie, _with_params)
from vikingsim.core.options import rule

#: Largest budgets: rollouts per legal option (flatmc; up to 8 cards x 17 uses, §4.7) and
#: iterations per decision (ismcts; its tree takes up to (budget + 1) x MAX_OPTS = 144 entries)
MAX_ROLLOUTS, MAX_BUDGET = 1 << 12, 1 << 12


@dataclass(frozen=True)
class _Search(_Valued):
    """The greedy_vp weights of the seat's other choices and of its rollouts (§4.5)."""

    face_up_value: float = _face_up()
    resource_value: float = _resource()
    valkyrie_value: float = _valkyrie()
    settler_value: float = _settler()
    giant_weight: float = _giant(0.0)
    special_bonus: float = _special(0.0)
    forbid: str = _forbid()


@dataclass(frozen=True)
class FlatMC(_Search):
    """Flat Monte Carlo: every legal option (the §4.7 list, in its order) is scored by
    ``rollouts`` rollouts, each on a fresh determinization; the most wins is played, a tie
    broken uniformly on the policy stream."""

    rollouts: int = rule(8, "rollouts per legal option", section="issue 21 §2", lo=1,
                         hi=MAX_ROLLOUTS)
    kind: ClassVar[PolicyKind] = PolicyKind.FLATMC

    def params(self) -> np.ndarray:
        row = super().params()
        row[Param.BUDGET] = self.rollouts
        return row


@dataclass(frozen=True)
class ISMCTS(_Search):
    """Information-set MCTS (single observer, open loop): ``budget`` iterations per decision,
    each on a fresh determinization. The tree holds the searching seat's own card choices
    (children keyed by the option: hand position, use, target); the other seats, the deck
    and the Invaders are the environment, played by the default policy. Selection: UCB1 with
    availability counts (how often an option was legal at the node, tried or not), ``wins/visits + c*sqrt(ln(available)/visits)``, equals drawn on the policy
    stream, an untried option first (list order); one node expanded per iteration, then a
    rollout. The most visited root option is played, a tie broken on the policy stream."""

    budget: int = rule(64, "iterations (rollouts) per decision", section="issue 21 §2", lo=1,
                       hi=MAX_BUDGET)
    c: float = rule(math.sqrt(2.0), "UCB1 exploration constant", section="issue 21 §2",
                    lo=0.0, hi=100.0)
    kind: ClassVar[PolicyKind] = PolicyKind.ISMCTS

    def params(self) -> np.ndarray:
        row = super().params()
        row[Param.BUDGET], row[Param.UCB_C] = self.budget, self.c
        return row


SEARCH_TYPES = {"flatmc": FlatMC, "ismcts": ISMCTS}
SEARCH_HELP = {
    "flatmc": _with_params("search: each legal card use scored by rollouts with greedy_vp "
                           "on determinizations of the hidden cards and Giants, equal scores "
                           "drawn on the policy stream" + _CLOCKWISE, FlatMC),
    "ismcts": _with_params("search: UCT over determinizations, budget rollouts per "
                           "decision, ties drawn on the policy stream" + _CLOCKWISE, ISMCTS),
}
