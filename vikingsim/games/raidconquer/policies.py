"""Raid & Conquer policies as data (raidconquer §12.4): every player choice is made by a policy
of kind RANDOM or SCRIPTED; a scripted policy is a parameter vector (``Param``) that a user
edits on the command line (``raider(lone_margin=1)``) or in a TOML file.

The Secret Plan of a scripted policy is an **ordered list of (action, condition) rules**,
``plan = "block>lone>party>attack>defend"`` (``>`` separates the rules; a TOML file may
also use commas): the first rule whose condition holds on
the drawn hand is chosen (conditions and their thresholds below; nothing matches: Defend).
Buys score each affordable card by the weights ``w_*`` (``w_power`` x Power + ...); OR
abilities are used by priority ``prio_*`` (0 = never). With the rule ``play_all_cards`` =
false (§7.2, §13.8), ``keep_in_winter`` = N keeps back, in a Winter round (no Action phase,
so Power and Influence would be wasted), up to N cards of the hand that give no Silver and
have Power + Influence > 0: highest Power first, then highest Influence, then earliest in
hand; they stay in hand for the next round (DEFAULT 0 for every shipped policy). The
engine, not the policy, enforces legality: it offers only legal choices (affordable cards,
non-empty piles, a card to sacrifice, capacity of the Longboats).

Plan rules (P = Base Attack + card Power, I = Influence, L = a Longboat or Shipbuild in hand):
  block    an opponent has >= block_raids Raid cards and P >= attack_min: Attack them
           (the opponent with most Raid cards; ties: the first clockwise from the attacker)
  lone     L and P >= lowest Defense in the Raid Row + lone_margin: Lone Raid
  party    L and I >= party_influence_min: Raid Party
  attack   P >= attack_min: Attack the opponent with most Raid cards (ties: the first
           clockwise from the attacker, i.e. the next seat in turn order; never a seat number)
  acquire  buried Silver + the best buryable card in hand >= lowest Defense + acquire_margin:
           Defend (to bury and acquire)
  defend   always: Defend

Restricted play: every policy (``random`` too) takes ``forbid``, card ids joined by ``+``
(``hints(forbid=funeral_pyre+hacksilver)``; "" = nothing forbidden): the seat never buys a
named card (it takes its next choice instead) and never uses an ability that gains one
(Shipbuild's Longboat, Warriors' Hacksilver); a named Raid card is never the target of its
raid as Earl or Lone Raider, never acquired by its Defend and never Pillaged by its Attack;
a named Treasure is never Looted or Pillaged by its Attack (notes §12.4). The ids are
``GAME.elements(setup)``: the buyable designs of the catalog (§7.4), the Raid cards and the
Treasures, each name in lower_snake_case (:func:`card_id`); the Coin is refused (no choice
of the seat).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

import re

import numpy as np

from vikingsim.core import policies
from vikingsim.core.errors import InputError
from vikingsim.core.options import rule
from vikingsim.games.raidconquer.catalog import Ability


class PolicyKind(IntEnum):
    RANDOM = 0
    SCRIPTED = 1
    FLATMC = 2          # search players (search_params.py, search.py): from FLATMC up; the
    ISMCTS = 3          # kernel's scripted code makes their other choices (as ``hints``)


class Plan(IntEnum):
    """Plan rule codes (the ``plan`` words, in this order)."""

    BLOCK = 0
    LONE = 1
    PARTY = 2
    ATTACK = 3
    ACQUIRE = 4
    DEFEND = 5


PLAN_WORDS = {p.name.lower(): p for p in Plan}
MAX_PLAN = 6


class Param(IntEnum):
    """Columns of a seat's parameter row (floats)."""

    PLAN0 = 0                       # PLAN0..PLAN5: plan rule codes, -1 = end of list
    ATTACK_MIN = MAX_PLAN
    BLOCK_RAIDS = MAX_PLAN + 1
    LONE_MARGIN = MAX_PLAN + 2
    PARTY_INFLUENCE_MIN = MAX_PLAN + 3
    ACQUIRE_MARGIN = MAX_PLAN + 4
    LONGBOATS_WANTED = MAX_PLAN + 5
    MAX_BUYS = MAX_PLAN + 6
    MIN_SCORE = MAX_PLAN + 7
    W_POWER = MAX_PLAN + 8
    W_INFLUENCE = MAX_PLAN + 9
    W_SILVER = MAX_PLAN + 10
    W_DEFENSE = MAX_PLAN + 11
    W_DRAW = MAX_PLAN + 12
    W_COST = MAX_PLAN + 13
    WARRIORS_FOR_SILVER = MAX_PLAN + 14
    INVITE = MAX_PLAN + 15
    ACCEPT = MAX_PLAN + 16
    DEFEND_BURY = MAX_PLAN + 17
    KEEP_IN_WINTER = MAX_PLAN + 18
    SACRIFICE_MAX_COST = MAX_PLAN + 19
    PRIO0 = MAX_PLAN + 20           # PRIO0 + Ability code: priority of that OR-alternative


N_PARAMS = int(Param.PRIO0) + len(Ability)
#: Ability codes with a priority parameter (name -> code).
PRIO_OF = {"draw": Ability.DRAW, "sacrifice_draw": Ability.SACRIFICE_DRAW,
           "shipbuild": Ability.SHIPBUILD, "self_hacksilver": Ability.SACRIFICE_SELF_HACKSILVER,
           "bury": Ability.BURY, "sacrifice_silver": Ability.MAY_SACRIFICE_SILVER,
           "sacrifice_power": Ability.MAY_SACRIFICE_POWER,
           "ritual": Ability.MAY_RITUAL_SEARCH}


def _w(default, what):
    return rule(float(default), f"buy score weight of {what}", section="§12.4", lo=-100.0,
                hi=100.0)


def _forbid():
    return rule("", "cards this seat never buys or gains by an ability (buyable cards), takes "
                "by raid, acquire or Pillage (Raid cards) or Loots or Pillages (Treasures): "
                "card ids joined by + (restricted play; '' = none)", section="§12.4")


def _p(default, what):
    return rule(int(default), f"priority of the {what} alternative (0 = never)",
                section="§12.4", lo=0, hi=9)


@dataclass(frozen=True)
class Scripted:
    """A scripted policy: plan rules in order, thresholds, buy weights, ability priorities.
    The defaults are the ``hints`` policy (§12.4: the seed's Strategy and Hints)."""

    plan: str = rule("block>lone>party>attack>defend", "Secret Plan rules in order, separated "
                     "by > (block, lone, party, attack, acquire, defend)", section="§12.4")
    attack_min: int = rule(5, "attack when P >= this (Strategy: Power of five or greater)",
                           section="§12.4", lo=0, hi=50)
    block_raids: int = rule(4, "block an opponent with this many Raid cards (Hints)",
                            section="§12.4", lo=1, hi=21)
    lone_margin: int = rule(0, "Lone Raid when P >= lowest Row Defense + this",
                            section="§12.4", lo=-20, hi=20)
    party_influence_min: int = rule(0, "Raid Party when Influence >= this", section="§12.4",
                                    lo=0, hi=50)
    acquire_margin: int = rule(0, "acquire rule: buried Silver >= lowest Defense + this",
                               section="§12.4", lo=-20, hi=20)
    longboats_wanted: int = rule(3, "buy a Longboat first while owning fewer (Hints)",
                                 section="§12.4", lo=0, hi=25)
    max_buys: int = rule(2, "cards bought per turn at most", section="§12.4", lo=0, hi=20)
    min_score: float = rule(0.5, "buy only cards scoring at least this", section="§12.4",
                            lo=-100.0, hi=100.0)
    w_power: float = _w(0.0, "Power")
    w_influence: float = _w(0.0, "Influence")
    w_silver: float = _w(0.0, "Silver")
    w_defense: float = _w(0.0, "card Defense")
    w_draw: float = _w(0.0, "+cards")
    w_cost: float = _w(1.0, "cost (hints: the most expensive affordable card)")
    warriors_for_silver: bool = rule(True, "sacrifice Warriors for +1 Silver when that "
                                     "completes a buy (never of Warriors)",
                                     section="§12.4")
    invite: bool = rule(True, "as Earl, invite every Raid-Party and Defend chooser the "
                        "Longboats allow (else raid alone)", section="§8.3.3, §12.4")
    accept: bool = rule(True, "accept an invitation after choosing Defend", section="§8.3.3")
    defend_bury: bool = rule(True, "Defend: bury a Coin (else Hacksilver)", section="§8.1.2")
    keep_in_winter: int = rule(0, "Winter, play_all_cards = false: keep back up to this many "
                               "cards with no Silver and Power + Influence > 0 (highest Power, "
                               "then Influence, then earliest)", section="§13.8", lo=0, hi=5)
    sacrifice_max_cost: int = rule(1, "'sacrifice a card' with no unused Coin in play "
                                   "(sacrifice_any_card): sacrifice the cheapest other unused "
                                   "card costing at most this, never a Treasure or Longboat "
                                   "(1: Warriors; a sacrificed Viking is lost under the Viking "
                                   "deck, §9.2)", section="§7.5, §13.13", lo=0, hi=20)
    prio_draw: int = _p(3, "+N cards")
    prio_sacrifice_draw: int = _p(4, "sacrifice a card: +N cards")
    prio_shipbuild: int = _p(9, "Shipbuild (when raiding with no Longboat in play)")
    prio_self_hacksilver: int = _p(0, "Warriors: gain 1 Hacksilver")
    prio_bury: int = _p(2, "Bury (a Coin, then Hacksilver)")
    prio_sacrifice_silver: int = _p(5, "sacrifice a card: +N Silver")
    prio_sacrifice_power: int = _p(6, "sacrifice a card: +N Power")
    prio_ritual: int = _p(7, "sacrifice a card: take a Viking")
    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.SCRIPTED

    def __post_init__(self):
        plan_codes(self.plan)                       # validates; canonical form uses ">"
        words = [w.strip() for w in self.plan.replace(",", ">").split(">") if w.strip()]
        object.__setattr__(self, "plan", ">".join(words))

    def params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, np.float64)
        codes = plan_codes(self.plan)
        p[:MAX_PLAN] = -1
        p[:len(codes)] = codes
        for f in fields(self):
            if f.name.startswith("prio_"):
                p[Param.PRIO0 + PRIO_OF[f.name[5:]]] = getattr(self, f.name)
            elif f.name not in ("plan", "forbid"):
                p[Param[f.name.upper()]] = float(getattr(self, f.name))
        return p


def plan_codes(text: str) -> list[int]:
    words = [w.strip() for w in text.replace(",", ">").split(">") if w.strip()]
    if not 1 <= len(words) <= MAX_PLAN:
        raise InputError(f"plan {text!r}: give 1 to {MAX_PLAN} rules")
    bad = [w for w in words if w not in PLAN_WORDS]
    if bad:
        raise InputError(f"plan rule {bad[0]!r}: allowed: {', '.join(PLAN_WORDS)}")
    return [int(PLAN_WORDS[w]) for w in words]


def _variant(name: str, doc: str, **defaults):
    """A scripted policy class with other defaults (same parameters)."""
    ns = {"__doc__": doc, "__annotations__": {}}
    base = {f.name: f for f in fields(Scripted)}
    for key, value in defaults.items():
        f = base[key]
        meta = f.metadata["vikingsim"]
        ns[key] = rule(value, meta["help"], section=meta["section"], lo=meta["lo"],
                       hi=meta["hi"])
        ns["__annotations__"][key] = f.type
    return dataclass(frozen=True)(type(name, (Scripted,), ns))


@dataclass(frozen=True)
class Random:
    """Uniform Secret Plan (Defend, Lone Raid, Raid Party, or Attack one opponent: every
    opponent equally likely, so no seat is favoured) and uniform buys (each step: one
    affordable card or stop, at most 5); every other choice as ``hints``. Draws only from
    the policy stream."""

    forbid: str = _forbid()
    kind: ClassVar[PolicyKind] = PolicyKind.RANDOM

    def params(self) -> np.ndarray:
        return Scripted().params()


Hints = _variant("Hints", "§12.4 DEFAULT: the seed's Strategy and Hints sections as rules.")
BigMoney = _variant(
    "BigMoney", "Dominion's big money: buy the most Silver, raid when strong enough.",
    plan="block>lone>party>defend", w_silver=3.0, w_cost=0.2, min_score=2.0,
    longboats_wanted=2, max_buys=1)
Raider = _variant(
    "Raider", "Lone raids: Power cards and Longboats (Hints: Lone Raid wants Power).",
    plan="block>lone>party>defend", w_power=2.0, w_cost=0.3, w_influence=0.2,
    longboats_wanted=3, prio_sacrifice_power=8)
Earl = _variant(
    "Earl", "Raid parties: Influence cards and Longboats (Hints: Raid Party wants Influence).",
    plan="block>party>lone>defend", w_influence=2.0, w_power=0.8, w_cost=0.2,
    longboats_wanted=3)
Attacker = _variant(
    "Attacker", "Attacks the leader: Power cards, few Longboats.",
    plan="block>attack>lone>defend", attack_min=6, w_power=2.0, w_cost=0.3,
    longboats_wanted=1)
Burier = _variant(
    "Burier", "Buries Coins and Hacksilver and acquires Raid cards by Defending.",
    plan="block>acquire>lone>defend", w_silver=2.0, w_cost=0.2, prio_bury=8,
    prio_self_hacksilver=5, longboats_wanted=1, acquire_margin=-2)

#: Policy name -> its dataclass (``GAME.policy_types``).
POLICY_TYPES = {"hints": Hints, "random": Random, "big-money": BigMoney, "raider": Raider,
                "earl": Earl, "attacker": Attacker, "burier": Burier, "scripted": Scripted}

POLICY_HELP = {
    "hints": "§12.4 DEFAULT: Strategy and Hints as ordered plan rules; buy the most expensive "
             "card, a Longboat first while owning fewer than 3; attack target: most Raid "
             "cards, ties clockwise from the attacker (every scripted policy)",
    "random": "uniform Secret Plan (attack target uniform over the opponents, policy stream) "
              "and uniform buys; other choices as hints",
    "big-money": "buy Silver; raid when strong enough",
    "raider": "Power and Longboats; Lone Raid first",
    "earl": "Influence and Longboats; Raid Party first",
    "attacker": "Power; attack the leader first",
    "burier": "bury Coins/Hacksilver and acquire Raid cards by Defending",
    "scripted": "the scripted policy with every parameter given (defaults = hints)",
}


from vikingsim.games.raidconquer.search_params import SEARCH_HELP, SEARCH_TYPES  # noqa: E402

POLICY_TYPES.update(SEARCH_TYPES)
POLICY_HELP.update(SEARCH_HELP)


def compile_policies(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Policy labels per seat -> (kinds int8[n_seats], params float64[n_seats, N_PARAMS])."""
    specs = [policies.build("raidconquer", POLICY_TYPES, label) for label in labels]
    kinds = np.array([int(p.kind) for p in specs], np.int8)
    params = np.stack([p.params() for p in specs]).astype(np.float64)
    return kinds, params


def card_id(name: str) -> str:
    """A card's element id: its name in lower_snake_case ("Odin's Witness" -> odins_witness)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower().replace("'", "")).strip("_")


def forbidden(labels: list[str], ids: tuple, allowed: tuple) -> np.ndarray:
    """bool[n_seats, K]: True where the seat's ``forbid`` names card ``ids[k]``; a name not in
    ``allowed`` (the ids of buyable cards, Raid cards and Treasures, §12.4) is one InputError
    line listing them; a catalog card outside ``allowed`` (the Coin) is one line saying why it
    is no choice of the seat."""
    out = np.zeros((len(labels), len(ids)), np.bool_)
    for seat, label in enumerate(labels):
        text = getattr(policies.build("raidconquer", POLICY_TYPES, label), "forbid", "")
        for name in filter(None, (x.strip() for x in str(text).split("+"))):
            if name in ids and name not in allowed:            # §12.4: the Coin
                raise InputError(
                    f"forbid: {name} is no choice of the seat (a starting card, not for sale "
                    f"(§7.4) and played by rule (§7.2): notes §12.4); cards: "
                    f"{', '.join(allowed)}")
        for name in policies.forbid_names(text, allowed, "raidconquer", what="card",
                                          listed="cards"):
            out[seat, ids.index(name)] = True
    return out
