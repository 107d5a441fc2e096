"""Ravenfeast warband policies (rules notes ravenfeast.md §12.6; style §4): the four choices a
warband makes, as the fields of one frozen dataclass, :class:`WarbandPolicy`, compiled to one
int64 row per seat (:class:`PolicySlot`) that the kernel and the reference read.

Seat 0 plays warband ``a``, seat 1 warband ``b``. The named policies of ``GAME.policies``
(:data:`POLICY_HELP`) are :class:`WarbandPolicy` subclasses that differ only in their field
defaults (:data:`POLICY_TYPES`), so every parameter can be set on any of them:
``cautious(disengage_at=2)``, ``wall(target=spread)``. A policy text may also join parts with
``+`` (``wall+leader_hunt+geld_saves``, each part one of :data:`PARTS` or a named policy,
optionally with parameters; later parts win); ``<part>_cautious`` reads as ``<part>+cautious``.
Only the ``random`` target draws from the policy stream (one draw per choice).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from vikingsim.core import policies as core_policies
from vikingsim.core.errors import InputError
from vikingsim.core.options import rule
from vikingsim.games.ravenfeast.profiles import MAX_WOUNDS


class PolicySlot(IntEnum):
    """Columns of the policy table ``pol`` (int64, shape=(2, PolicySlot.N)); one row per seat."""

    WALL = 0          # 1: form a shield wall in turn 1 (§8.1)
    TARGET = 1        # Target
    GELD = 2          # GeldUse
    DISENGAGE_AT = 3  # the Leader disengages with at most this many wounds left (0 = never)
    N = 4


class Target(IntEnum):
    FOCUS = 0       # §12.6 DEFAULT: fewest wounds left, ties to the highest point cost
    SPREAD = 1      # fewest enemies already on it, then FOCUS
    LEADER = 2      # the Leader, then Heroes, then FOCUS
    RANDOM = 3      # uniform (policy stream)


class GeldUse(IntEnum):
    NONE = 0
    MORALE = 1        # re-roll own failed morale and rally tests (§10.1)
    LEADER_SAVES = 2  # re-roll the Leader's failed Armor saves (§10.1)


TARGETS = {"focus": Target.FOCUS, "spread": Target.SPREAD, "leader_hunt": Target.LEADER,
           "random": Target.RANDOM}
GELD_USES = {"none": GeldUse.NONE, "morale": GeldUse.MORALE,
             "leader_saves": GeldUse.LEADER_SAVES}


@dataclass(frozen=True)
class WarbandPolicy:
    """The DEFAULT warband policy (§12.6): open order, attack the enemy with the fewest wounds
    left (ties: the costliest), Geld re-rolls failed morale and rally tests, never disengage."""

    disengage_at: int = rule(0, "a wounded Leader steps out of the line (§4.4) when it has at "
                             "most this many wounds left and a friend still fights (0 = never)",
                             section="§4.4", lo=0, hi=MAX_WOUNDS)
    wall: bool = rule(False, "form a shield wall in turn 1 (§8.1)", section="§8.1")
    target: str = rule("focus", "whom to attack: focus (fewest wounds left, ties to the "
                       "costliest), spread, leader_hunt or random (policy stream)",
                       section="§12.6", choices=tuple(TARGETS))
    geld: str = rule("morale", "what Geld re-rolls: failed morale/rally tests, the Leader's "
                     "failed saves (leader_saves) or nothing", section="§10.1",
                     choices=tuple(GELD_USES))

    def row(self) -> np.ndarray:
        """This policy as a kernel row (int64, shape=(PolicySlot.N,))."""
        row = np.zeros(PolicySlot.N, np.int64)
        row[PolicySlot.WALL] = int(self.wall)
        row[PolicySlot.TARGET] = int(TARGETS[self.target])
        row[PolicySlot.GELD] = int(GELD_USES[self.geld])
        row[PolicySlot.DISENGAGE_AT] = self.disengage_at
        return row


#: Parts of a policy text: each sets some fields of WarbandPolicy.
PARTS = {
    "default": {},
    "wall": {"wall": True},
    "open": {"wall": False},
    "focus": {"target": "focus"},
    "spread": {"target": "spread"},
    "leader_hunt": {"target": "leader_hunt"},
    "random": {"target": "random"},
    "geld_morale": {"geld": "morale"},
    "geld_saves": {"geld": "leader_saves"},
    "no_geld": {"geld": "none"},
    "cautious": {"disengage_at": 1},
    "bold": {"disengage_at": 0},
}

#: The named policies (``GAME.policies``): name -> help.
POLICY_HELP = {
    "default": "warband: open order, focus weakest (ties: costliest), Geld re-rolls failed "
               "morale, never disengage",
    "wall": "warband: as default but forms a shield wall (§8)",
    "spread": "warband: as default but spreads attacks over enemies",
    "leader_hunt": "warband: as default but attacks the enemy Leader/Heroes first",
    "random": "warband: as default but random targets (policy stream)",
    "geld_saves": "warband: as default but Geld re-rolls the Leader's failed Armor saves",
    "no_geld": "warband: as default but never spends Geld",
    "cautious": "warband: as default but the Leader disengages on its last wound (§4.4; "
                "parameter disengage_at)",
    "wall_cautious": "warband: shield wall and a cautious Leader",
}


def _parts(name: str) -> list[str]:
    """The parts a policy name stands for (``wall_cautious`` -> wall, cautious)."""
    parts = name.replace("_cautious", "+cautious").split("+")
    for p in parts:
        if p not in PARTS:
            raise InputError(f"unknown warband policy part {p!r} in {name!r}; allowed: "
                             f"{', '.join(PARTS)} (joined with +)")
    return parts


def _defaults(name: str) -> dict:
    values = {}
    for p in _parts(name):
        values.update(PARTS[p])
    return values


def _named_type(name: str) -> type:
    """The WarbandPolicy subclass of policy ``name``: the same fields, its own defaults."""
    values = _defaults(name)
    fields = [(f.name, f.type, dataclasses.field(default=values.get(f.name, f.default),
                                                 metadata=f.metadata))
              for f in dataclasses.fields(WarbandPolicy)]
    cls_name = "".join(w.title() for w in name.split("_")) + "Policy"
    return dataclasses.make_dataclass(cls_name, fields, bases=(WarbandPolicy,), frozen=True,
                                      namespace={"__doc__": POLICY_HELP[name]})


#: ``GAME.policy_types``: policy name -> its frozen dataclass.
POLICY_TYPES = {name: _named_type(name) for name in POLICY_HELP}
_PARAMS = core_policies.param_options(WarbandPolicy)


def parse_policy(text: str) -> WarbandPolicy:
    """A policy text (a name, ``name(k=v, ...)``, ``+``-joined parts of either, or a ``.toml``
    file) -> its :class:`WarbandPolicy`; InputError naming the problem."""
    values = {}
    for part in str(text).split("+"):
        name, params = core_policies.parse(part)
        values.update(_defaults(name))
        for key, value in params.items():
            if key not in _PARAMS:
                raise InputError(f"warband policy {name} has no parameter {key!r}; "
                                 f"parameters: {', '.join(_PARAMS)}")
            values[key] = _PARAMS[key].convert(value)
    return WarbandPolicy(**values)


def policy_row(text: str) -> np.ndarray:
    """One seat's policy text -> int64 row indexed by PolicySlot."""
    return parse_policy(text).row()


def compile_policies(labels) -> np.ndarray:
    """Policy texts per seat (the runner's canonical labels) -> int64 (n_seats, PolicySlot.N)."""
    return np.vstack([policy_row(t) for t in labels])
