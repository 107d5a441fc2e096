"""Raid & Conquer's search players as policies (issue 21 §2): frozen dataclasses like the
scripted ones (``policies.py``), registered in ``POLICY_TYPES``. Their compiled players are in
``search.py``, the plain-Python twins in ``reference_search.py``; the rules notes are
raidconquer §15.

A search player searches the **Secret Plan** (§6.2): Defend, Lone Raid, Raid Party or Attack
one opponent; with ``buys=1`` also each purchase of its Main phase (§7.4, §15.6: one card at
a time, or stop). Its other choices (abilities, buys unless ``buys=1``, Defend, invitations)
are its own scripted policy's (``base``, DEFAULT the ``rollout`` policy, hints; §12.4, §15.8),
made by the kernel's own code. It looks ahead with the forward
model (``forward.py``): a **determinization** (§15.3) redeals what the seat cannot see (the
other seats' hands and decks, its own deck order, the Viking deck, the Treasure pile under
its top card, the Raid deck) on the policy stream; a **rollout** plays the game on to its
end with every seat on the policy the searcher models it with (``rollout``: DEFAULT ``hints``;
a scripted policy name; or ``table``, each other seat's own policy, an oracle model, §15.8),
the searcher itself on its own policy, its shuffles drawn on the policy stream, and scores 1
when the searching seat wins (0 for a loss or a truncated game).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vikingsim.core.options import rule
from vikingsim.games.raidconquer.policies import POLICY_TYPES, PolicyKind

#: The scripted policies a search player can model its rollouts with (``rollout``, ``base``;
#: §15.8): every registered policy of kind SCRIPTED (``random`` is not: its choices are not the
#: kernel's scripted code)
ROLLOUT_POLICIES = tuple(n for n, cls in POLICY_TYPES.items() if cls.kind == PolicyKind.SCRIPTED)
#: ``rollout``'s oracle opponent model (§15.8): every other seat as it really plays
TABLE = "table"
#: ``base``'s DEFAULT: the seat's own policy is the ``rollout`` policy (hints with ``table``)
SAME = "rollout"

#: Largest budgets: rollouts per option (flatmc; up to 7 options, §15.1) and iterations per
#: decision (ismcts; its tree takes budget + 1 nodes)
MAX_ROLLOUTS, MAX_BUDGET = 1 << 12, 1 << 14
#: Columns of ``Setup.search`` (one row per seat): budget (rollouts per option or iterations),
#: the UCB1 constant and ``buys`` (1: the purchases are searched too, §15.6)
N_SEARCH = 3


def _rollout():
    return rule("hints", "opponent model of the rollouts (§15.8): a scripted policy every "
                "other seat plays there, or table (each other seat's own policy: an oracle "
                "model)", section="issue 21, §15.8", choices=ROLLOUT_POLICIES + (TABLE,))


def _base():
    return rule(SAME, "the seat's own scripted policy (§15.8): its choices not searched, and "
                "its play in the rollouts; rollout = the rollout policy (hints with table)",
                section="issue 21, §15.8", choices=(SAME,) + ROLLOUT_POLICIES)


class _Modelled:
    """What both search players share: the opponent model and the seat's own policy
    (``rollout``, ``base``; §15.8)."""

    def own(self) -> str:
        """The name of the seat's own scripted policy."""
        if self.base != SAME:
            return self.base
        return "hints" if self.rollout == TABLE else self.rollout

    def params(self) -> np.ndarray:
        return POLICY_TYPES[self.own()]().params()      # its other choices (§15.1, §15.8)


@dataclass(frozen=True)
class FlatMC(_Modelled):
    """Flat Monte Carlo: every Secret Plan option is scored by ``rollouts`` rollouts (wins of
    the searching seat), each on a fresh determinization, options in the order of §15.1
    (opponents clockwise); the best score wins, a tie is broken uniformly on the policy
    stream."""

    rollouts: int = rule(16, "rollouts per Secret Plan option", section="issue 21 §2, §15",
                         lo=1, hi=MAX_ROLLOUTS)
    buys: int = rule(0, "1: search each purchase of the Main phase too (0: buys as hints)",
                     section="issue 21 §2, §15.6", lo=0, hi=1)
    rollout: str = _rollout()
    base: str = _base()
    kind: ClassVar[PolicyKind] = PolicyKind.FLATMC

    def search_row(self) -> np.ndarray:
        return np.array([float(self.rollouts), 0.0, float(self.buys)])


@dataclass(frozen=True)
class ISMCTS(_Modelled):
    """Information-set MCTS (single observer, open loop): ``budget`` iterations per Secret
    Plan, each on a fresh determinization (§15.3). The tree holds the searching seat's own
    Secret Plans, and with ``buys=1`` its purchases (§15.6) (children keyed by the option); the other seats, the shuffles and the
    searcher's other choices are the environment, played by the modelled policies (§15.8). Selection: UCB1 with
    availability counts, ``wins/visits + c*sqrt(ln(available)/visits)``, equals drawn on the
    policy stream, an untried option first (in the order of §15.1); one node expanded per
    iteration, then a rollout. The most visited root option is played, a tie broken uniformly on the
    policy stream."""

    budget: int = rule(64, "iterations (rollouts) per Secret Plan", section="issue 21 §2, §15",
                       lo=1, hi=MAX_BUDGET)
    c: float = rule(math.sqrt(2.0), "UCB1 exploration constant", section="issue 21 §2",
                    lo=0.0, hi=100.0)
    buys: int = rule(0, "1: search each purchase of the Main phase too (0: buys as hints)",
                     section="issue 21 §2, §15.6", lo=0, hi=1)
    rollout: str = _rollout()
    base: str = _base()
    kind: ClassVar[PolicyKind] = PolicyKind.ISMCTS

    def search_row(self) -> np.ndarray:
        return np.array([float(self.budget), float(self.c), float(self.buys)])


def _with_params(text: str, cls) -> str:
    from dataclasses import fields

    return f"{text} (parameters: " + ", ".join(f"{f.name}={f.default}" for f in fields(cls)) + ")"


SEARCH_TYPES = {"flatmc": FlatMC, "ismcts": ISMCTS}
SEARCH_HELP = {
    "flatmc": _with_params("search (§15): each Secret Plan option scored by rollouts with "
                           "the rollout policy (every other seat; table = their own, §15.8), "
                           "unseen cards redealt on the policy stream; other choices as base",
                           FlatMC),
    "ismcts": _with_params("search (§15): UCT over determinizations of the unseen cards, "
                           "budget rollouts per Secret Plan (rollout, base as flatmc, §15.8); "
                           "other choices as base", ISMCTS),
}


def rollout_labels(labels) -> list[list[str]]:
    """For each seat s, the policy label every seat plays in s's rollouts (§15.8): s itself
    its own policy (``own``), every other seat the ``rollout`` policy, or with ``table`` the
    policy it has at the table (a search seat: its own scripted policy, never a nested search).
    A seat that does not search: every seat ``hints`` (unused)."""
    from vikingsim.core import policies

    specs = [policies.build("raidconquer", POLICY_TYPES, label) for label in labels]
    table = [spec.own() if isinstance(spec, _Modelled) else label
             for spec, label in zip(specs, labels)]
    out = []
    for s, spec in enumerate(specs):
        if not isinstance(spec, _Modelled):
            out.append(["hints"] * len(labels))
            continue
        other = table if spec.rollout == TABLE else [spec.rollout] * len(labels)
        out.append([spec.own() if q == s else other[q] for q in range(len(labels))])
    return out


def rollout_seats(labels, ids, allowed) -> tuple:
    """(kinds int8[P, P], params float64[P, P, N_PARAMS], forbid bool[P, P, K]): row s is the
    seats of seat s's rollouts (``rollout_labels``), compiled like a table's seats."""
    from vikingsim.games.raidconquer.policies import compile_policies, forbidden

    rows = [compile_policies(r) + (forbidden(r, ids, allowed),)
            for r in rollout_labels(labels)]
    return tuple(np.stack([r[j] for r in rows]) for j in range(3))


def search_rows(labels) -> np.ndarray:
    """float64[n_seats, N_SEARCH]: each seat's search parameters (zeros for other policies)."""
    from vikingsim.core import policies
    from vikingsim.games.raidconquer.policies import POLICY_TYPES

    out = np.zeros((len(labels), N_SEARCH))
    for s, label in enumerate(labels):
        spec = policies.build("raidconquer", POLICY_TYPES, label)
        if hasattr(spec, "search_row"):
            out[s] = spec.search_row()
    return out
