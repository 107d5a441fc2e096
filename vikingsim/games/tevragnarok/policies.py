"""Ragnarok policies (tev-ragnarok §4.5, §4.7), as data: frozen dataclasses whose fields are
their parameters (``core.options.rule``), compiled to a kind and a parameter row per seat.

A policy makes the model's choices: the draft pick, the card and its use each turn (face up,
start or join a battle, slay a Giant), the Joker Rune of a Valkyrie card, and where a deployed
Valkyrie lands; action targets follow its *focus region* (§4.7). It sees only what its player
may see: Giant values stay hidden, except the ones its own player slew, which it uses for the
expected value of the next Giant (drawn without replacement from the rest of the pool).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

import numpy as np

from vikingsim.core import policies
from vikingsim.core.errors import InputError
from vikingsim.core.options import rule


class PolicyKind(IntEnum):
    GREEDY_VP = 0
    GIANT_HUNTER = 1
    NO_GIANTS = 2
    RANDOM_LEGAL = 3
    FLATMC = 4          # search players (search_params.py, search.py): from FLATMC up; every
    ISMCTS = 5          # choice but the card of a turn as greedy_vp (the kernel's branches)


class Param(IntEnum):
    """Columns of a seat's parameter row."""

    FACE_UP_VALUE = 0
    RESOURCE_VALUE = 1
    VALKYRIE_VALUE = 2
    SETTLER_VALUE = 3
    GIANT_WEIGHT = 4
    SPECIAL_BONUS = 5
    FORBID = 6                  # bit mask of the forbidden elements (``forbid_mask``)
    BUDGET = 7                  # search players: rollouts per option / iterations per decision
    UCB_C = 8                   # ismcts: the UCB1 exploration constant


N_PARAMS = len(Param)

#: Restricted play (issue 20 §2): what a seat's ``forbid`` parameter may name, in the order of
#: the kernel's element counters (``kernel.EL_*``). Actions (§4.7): the card uses a seat
#: chooses, the optional Valkyrie deployment after a lost battle (SEED Deploy a Valkyrie: "you
#: may also choose to deploy"), the four Leader and six Rune actions (PUBLIC: optional, §4.7);
#: cards: the two card kinds of the expansion (§3.5).
ACTIONS = ("start_battle", "join_battle", "slay_giant", "deploy_valkyrie",
           "sail", "harvest", "explore", "build",
           "smite", "attack_settlers", "raid", "exchange", "move_giant", "raid_free")
CARDS = ("valkyrie_card", "einherjar_card")
ELEMENTS = ACTIONS + CARDS


def forbid_mask(text: str) -> int:
    """``forbid`` text (element names joined by "+", "" = none) -> bit mask (bit i:
    ``ELEMENTS[i]``); an unknown name is one InputError line listing the valid ones."""
    mask = 0
    for name in policies.forbid_names(text, ELEMENTS, "tevragnarok"):
        mask |= 1 << ELEMENTS.index(name)
    return mask


def _forbid():
    return rule("", "restricted play: elements this seat never takes, joined by '+' "
                f"(actions {', '.join(ACTIONS)}; cards {', '.join(CARDS)}); it takes its next "
                "best option instead", section="§4.5")


def _face_up(default=1.5):
    return rule(default, "VP a face-up action is worth (assumption)", section="§4.5",
                lo=0.0, hi=100.0)


def _resource(default=0.3):
    return rule(default, "VP a resource is worth (assumption)", section="§4.5", lo=0.0, hi=10.0)


def _valkyrie(default=2.0):
    return rule(default, "VP of deploying a Valkyrie after a lost battle (assumption)",
                section="§4.5", lo=0.0, hi=100.0)


def _settler(default=0.5):
    return rule(default, "VP a Settler sacrificed to a slay costs (assumption)",
                section="§4.5", lo=0.0, hi=100.0)


def _giant(default=0.0):
    return rule(default, "focus-region weight of a Giant's presence (§4.7)", section="§4.5",
                lo=0.0, hi=100.0)


def _special(default=0.0):
    return rule(default, "draft bonus of a Valkyrie or Einherjar card (assumption)",
                section="§4.5", lo=0.0, hi=100.0)


@dataclass(frozen=True)
class _Valued:
    def __post_init__(self):
        forbid_mask(self.forbid)                 # an unknown element: one line, exit 2

    def params(self) -> np.ndarray:
        row = np.zeros(N_PARAMS)
        for name in ("face_up_value", "resource_value", "valkyrie_value", "settler_value",
                     "giant_weight", "special_bonus"):
            row[Param[name.upper()]] = getattr(self, name, 0.0)    # unused by this policy
        row[Param.FORBID] = forbid_mask(self.forbid)               # exact: < 2**53
        return row


@dataclass(frozen=True)
class GreedyVP(_Valued):
    """§4.5: each legal use of each card scored by one-step expected VP (§4.7); the best,
    ties to the first in the fixed option list. No tie is broken by seat number: battles to
    join are listed clockwise from the player, a Smite's victim ties to the first rival
    clockwise (§4.7)."""

    face_up_value: float = _face_up()
    resource_value: float = _resource()
    valkyrie_value: float = _valkyrie()
    settler_value: float = _settler()
    giant_weight: float = _giant(0.0)
    special_bonus: float = _special(0.0)
    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.GREEDY_VP


@dataclass(frozen=True)
class GiantHunter(_Valued):
    """§4.5: slays whenever legal (the first legal slay), otherwise ``greedy_vp``; its focus
    leans to Giant regions and its draft to Valkyrie and Einherjar cards. (No
    ``settler_value``: it never weighs a slay.)"""

    face_up_value: float = _face_up()
    resource_value: float = _resource()
    valkyrie_value: float = _valkyrie()
    giant_weight: float = _giant(3.0)
    special_bonus: float = _special(2.0)
    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.GIANT_HUNTER


@dataclass(frozen=True)
class NoGiants(_Valued):
    """§4.5: ``greedy_vp`` that never slays (the baseline without the expansion's lever), so
    it has no ``settler_value`` and no ``giant_weight``."""

    face_up_value: float = _face_up()
    resource_value: float = _resource()
    valkyrie_value: float = _valkyrie()
    special_bonus: float = _special(0.0)
    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.NO_GIANTS


@dataclass(frozen=True)
class RandomLegal(_Valued):
    """§4.5: uniform over the legal options, the draft and every other choice (noise floor)."""

    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.RANDOM_LEGAL

    def params(self) -> np.ndarray:
        row = np.zeros(N_PARAMS)
        row[Param.FORBID] = forbid_mask(self.forbid)
        return row


POLICY_TYPES = {"greedy_vp": GreedyVP, "giant_hunter": GiantHunter, "no_giants": NoGiants,
                "random_legal": RandomLegal}


def _with_params(text: str, cls) -> str:
    params = ", ".join(f"{f.name}={f.default}" for f in fields(cls))
    return f"{text} (parameters: {params})" if params else text


_CLOCKWISE = "; ties between seats (whose battle to join, whose Settler to Smite) go " \
             "clockwise from the acting seat"
POLICY_HELP = {
    "greedy_vp": _with_params("best one-step expected VP per card use" + _CLOCKWISE, GreedyVP),
    "giant_hunter": _with_params("slay whenever legal, else greedy_vp" + _CLOCKWISE,
                                 GiantHunter),
    "no_giants": _with_params("greedy_vp that never slays (baseline)" + _CLOCKWISE, NoGiants),
    "random_legal": "uniform over the legal options (the policy stream); a Smite's victim "
                    "ties clockwise from the acting seat",
}


from vikingsim.games.tevragnarok.search_params import SEARCH_HELP, SEARCH_TYPES  # noqa: E402

POLICY_TYPES.update(SEARCH_TYPES)
POLICY_HELP.update(SEARCH_HELP)


#: §4.5 sensitivity presets of the invented policy weights: greedy_vp with every VP weight
#: halved or doubled (pass the label as a policy, e.g. ``policies=[WEIGHT_PRESETS["half"]]*4``).
WEIGHT_PRESETS = {
    "half": "greedy_vp(face_up_value=0.75, resource_value=0.15, valkyrie_value=1.0, "
            "settler_value=0.25)",
    "double": "greedy_vp(face_up_value=3.0, resource_value=0.6, valkyrie_value=4.0, "
              "settler_value=1.0)",
}


def compile_policies(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Policy labels per seat -> (kinds int64[n_seats], params float64[n_seats, N_PARAMS])."""
    specs = [policies.build("tevragnarok", POLICY_TYPES, label) for label in labels]
    kinds = np.array([int(p.kind) for p in specs], np.int64)
    params = np.stack([p.params() for p in specs]).astype(np.float64)
    return kinds, params
