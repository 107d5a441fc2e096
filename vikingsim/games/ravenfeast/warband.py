"""Ravenfeast warband melee and Fight for Honor scenario (rules notes ravenfeast.md §12.6, §10.7).

Two warbands (``warbands.py``) fight a non-spatial melee to the end (see
``docs/rules-coverage.md`` (Ravenfeast warband section) for how the map is abstracted). Per-figure ratings
are compiled once by ``rules.melee_rating`` / ``rules.armor_rating`` into lookup tables, so the
kernel holds no rule arithmetic of its own beyond morale (§9) and the turn structure (§3).

Turn (§3.1; initiative is not modelled: missile and melee are simultaneous, §3.4):
  Rally (§9.5) → Movement (turn 1: shield walls §8.1; later: disengaging §4.4) →
  Missile (approach turns only, §12.6) → Melee (pairing, attacks §6) →
  End of Turn (removal §7.1 with Fated §10.3 and Thrall capture §10.6; morale §9.2-9.4;
  a second removal of figures killed while fleeing; walls break §8.4; victory).

Draw order (``warband_reference.py`` is bit-identical): dice stream only, in this order —
rally tests (side 0 then 1, figure index order; a Geld re-roll right after a failed die);
disengage Free Attacks; missiles per shooter (hit, cover dice, Armor, Geld re-roll, missile Free
Attack); melee per fighter of side 0 then 1 in line order, per attack: hit, Armor, Geld re-roll,
§6.4 Free Attack; End of Turn: Fated strokes, then per side and trigger the morale dice (Leader,
Heroes, others) each followed by the Free Attack dice of a figure that flees. The policy stream
is drawn only by the ``random`` target policy (one draw per choice).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import NamedTuple

import numpy as np
import pandas as pd

from vikingsim.core.errors import InputError
from vikingsim.core.jit import jit
from vikingsim.core.options import Option
from vikingsim.core.rng import _d6
from vikingsim.core.results import outcome_frame
from vikingsim.core.stats import histogram, put_fraction, put_mean_hist
from vikingsim.games.ravenfeast.duel import _resolve_free_trigger
from vikingsim.games.ravenfeast.profiles import RATING_MAX, Stat
from vikingsim.games.ravenfeast.rules import Outcome, Rules, Stance, armor_rating, melee_rating
from vikingsim.games.ravenfeast.warbands import MAX_FIGURES, compile_warband, load_warband

SCENARIOS = ("fight_for_honor",)
RAVEN_SIDES = ("victim_side", "attacker_side")
HERO_BONUS = ("self", "nearby")
END_RULES = ("no_fighters", "no_figures")
THRALL_VICTORY = ("tiebreak", "off")


# ---------------------------------------------------------------- enums (kernel constants)

class Status(IntEnum):
    """Figure status (state column ``S.STATUS``)."""

    ACTIVE = 0     # fighting (or in a shield wall's rear rank / disengaged reserve)
    COWARD = 1     # fled with a Coward token (§9.4); rallies or dies next Rally (§9.5)
    DEAD = 2       # removed as killed (§7.1, §9.5)
    CAPTURED = 3   # a Thrall held by an enemy captor (§10.6)


class F(IntEnum):
    """Columns of the compiled figure table ``fig`` (int64, shape=(2, MAX_FIGURES, F.N))."""

    ATTACKS = 0
    MELEE = 1       # Melee with no modifier (Free Attacks while fleeing/disengaging, §4.4)
    WOUNDS = 2      # wounds to remove (after the Tough reading, §7.2)
    MORALE = 3      # own Morale, Hero self bonus applied (§9.1, §13.3)
    MISSILE = 4     # 0 = no missile weapon (§5.3)
    RANGE = 5       # inches (§5.1)
    POINTS2 = 6     # 2 x model points (target-choice tie break, §12.6)
    LEADER = 7
    HERO = 8
    MIGHTY = 9
    FATED = 10
    FEARLESS = 11
    THRALL = 12
    N = 13


class S(IntEnum):
    """Columns of the per-figure state ``st`` (int64, shape=(2, MAX_FIGURES, S.N))."""

    BLOOD = 0      # Blood tokens (wounds marked, §6.3); removal at End of Turn (§7.1)
    STATUS = 1     # Status
    RESERVE = 2    # 1: disengaged, out of the line while friends fight (§4.4)
    TGT = 3        # index of the enemy this figure attacks this turn (-1 none)
    ENG = 4        # enemies in contact this turn (>= 2: several enemies, §6.2)
    REAR = 5       # 1: attacks its target from the rear (option rear_attack_from)
    SURR = 6       # 1: engaged front and rear: cannot disengage or flee (§4.4, §9.4)
    RAVEN = 7      # Raven tokens placed on it this turn (§6.4)
    HIT_BY = 8     # last enemy that wounded it in melee (-1: none / missile), for capture
    CAPTOR = 9     # enemy holding it captive (§10.6), -1 none
    DOOM = 10      # scratch of the removal pass: 1 fled/out of contact, 2 in contact
    N = 11


class D(IntEnum):
    """Columns of the per-side state ``sd`` (int64, shape=(2, D.N))."""

    N_FIG = 0
    LEADER = 1      # index of the Leader
    WALL = 2        # 1: in a shield wall (§8)
    FRONT = 3       # shield-wall frontage (figures in the front rank)
    GELD = 4        # unspent Geld (§10.1)
    FIFTY = 5       # 1: the 50 % test has been taken (§9.2, §13.5)
    EV_LEADER = 6   # Leader removed since the last morale step
    EV_HERO = 7     # Heroes removed since the last morale step
    REMOVED = 8     # figures dead or captured now
    FLED = 9        # morale failures in the current End of Turn
    N_LINE = 10     # fighters in the line this turn
    CAPTIVES = 11   # its figures held captive now (§10.6)
    RAVENS = 12     # Raven tokens placed on its figures this turn (§6.4)
    HURT = 13       # 1: Blood tokens added since the last removal pass (skips empty passes)
    N_HERO = 14     # Heroes in the warband (skips an empty morale phase)
    COWARDS = 15    # its figures with status COWARD now (skips an empty Rally phase)
    N = 16


class W(IntEnum):
    """Slots of the compiled integer rules vector ``ri`` (WarbandRules + shared Rules)."""

    MAX_TURNS = 0
    APPROACH_TURNS = 1
    APPROACH_LAST = 2
    APPROACH_STEP = 3
    WALL_RANKS = 4
    WALL_MIN = 5
    WALL_MORALE = 6
    REAR_FROM = 7
    COVER = 8
    COVER_BLOCK = 9
    RAVEN_ATTACKER = 10
    RAVEN_DEATH = 11
    HERO_NEARBY = 12
    LEADER_SHARES = 13
    RALLY_LEADER = 14
    CAPTURE = 15
    GELD_NEEDS_LEADER = 16
    GELD_TIEBREAK = 17
    END_FIGURES = 18
    SCENARIO = 19
    FFH_DEATH_ENDS = 20
    FREE_ATTACK = 21
    TRIGGER_SIX = 22
    FREE_IN_MISSILE = 23
    FATED_ARMOR = 24
    CLAMP = 25
    GELD = 26
    THRALL_TIEBREAK = 27
    N = 28


class P(IntEnum):
    """Columns of the policy table ``pol`` (int64, shape=(2, P.N)); one row per seat."""

    WALL = 0        # 1: form a shield wall in turn 1 (§8.1)
    TARGET = 1      # Target
    GELD = 2        # GeldUse
    DISENGAGE = 3   # Disengage
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


class Disengage(IntEnum):
    NEVER = 0
    LEADER_LAST_WOUND = 1  # the Leader steps out of the line on its last wound (§4.4)


#: Policy names for seats (seat 0 = warband a, seat 1 = warband b): (wall, target, geld,
#: disengage). ``setup_warband`` also accepts ``+``-joined combinations (``wall+leader_hunt``).
POLICY_PARTS = {
    "default": {},
    "wall": {"wall": 1},
    "open": {"wall": 0},
    "focus": {"target": Target.FOCUS},
    "spread": {"target": Target.SPREAD},
    "leader_hunt": {"target": Target.LEADER},
    "random": {"target": Target.RANDOM},
    "geld_morale": {"geld": GeldUse.MORALE},
    "geld_saves": {"geld": GeldUse.LEADER_SAVES},
    "no_geld": {"geld": GeldUse.NONE},
    "cautious": {"disengage": Disengage.LEADER_LAST_WOUND},
    "bold": {"disengage": Disengage.NEVER},
}
POLICY_DEFAULTS = {"wall": 0, "target": Target.FOCUS, "geld": GeldUse.MORALE,
                   "disengage": Disengage.NEVER}
#: Names and help for GameSpec.policies (the lead merges these).
WARBAND_POLICIES = {
    "default": "warband: open order, focus weakest (ties: costliest), Geld re-rolls failed "
               "morale, never disengage",
    "wall": "warband: as default but forms a shield wall (§8)",
    "spread": "warband: as default but spreads attacks over enemies",
    "leader_hunt": "warband: as default but attacks the enemy Leader/Heroes first",
    "random": "warband: as default but random targets (policy stream)",
    "geld_saves": "warband: as default but Geld re-rolls the Leader's failed Armor saves",
    "no_geld": "warband: as default but never spends Geld",
    "cautious": "warband: as default but the Leader disengages on its last wound (§4.4)",
    "wall_cautious": "warband: shield wall and a cautious Leader",
}


def policy_row(name: str) -> np.ndarray:
    """One seat's policy name (``+``-joined parts allowed) → int64 row indexed by P."""
    d = dict(POLICY_DEFAULTS)
    for part in str(name).replace("_cautious", "+cautious").split("+"):
        part = part.strip()
        if part not in POLICY_PARTS:
            raise InputError(f"unknown warband policy part {part!r} in {name!r}; allowed: "
                             f"{', '.join(POLICY_PARTS)} (joined with +)")
        d.update(POLICY_PARTS[part])
    row = np.zeros(P.N, np.int64)
    row[P.WALL], row[P.TARGET], row[P.GELD], row[P.DISENGAGE] = (
        int(d["wall"]), int(d["target"]), int(d["geld"]), int(d["disengage"]))
    return row


# ---------------------------------------------------------------- warband-only rules

@dataclass(frozen=True)
class WarbandRules:
    """Rule readings used only by the warband/scenario kernel (shared ones live in ``Rules``).

    Attributes
    ----------
    approach_turns : int
        §12.6 DEFAULT 1: turns of closing (missile volleys only) before all figures engage.
    approach_last_distance, approach_step : int
        Abstraction: the last approach turn is shot at 6" (javelins in range, §5.1), each earlier
        one 12" further (both sides close a 6" Move, §4.1).
    wall_ranks : int
        Abstraction: a shield wall stands this many ranks deep (DEFAULT 2); its front rank holds
        ceil(members / ranks) figures and the rear rank steps into the places of the fallen (§8.3).
    wall_min_figures : int
        §8.4 SEED 3: the wall breaks when fewer remain.
    shield_wall_morale_bonus : int
        §8.3 / §9.1 SEED +1.
    rear_attack_from : int
        Abstraction (0 = off, DEFAULT): the n-th and later enemy on one figure attacks from the
        rear (−1 Armor, no wall bonus, §6.2/§8.3); a figure so engaged cannot flee and is killed
        or captured if it fails morale (§9.4) and cannot disengage (§4.4).
    cover_pieces : int
        §5.3: pieces of cover between shooters and targets (DEFAULT 0, open ground); each blocks
        a missile hit on d6 >= ``cover_block_min`` (SEED 4).
    raven_test_side : {"victim_side", "attacker_side"}
        §13.2 DEFAULT victim_side. The whole testing side tests (the melee is within 6").
    raven_token_requires_death : bool
        §13.2 DEFAULT False.
    hero_morale_bonus : {"self", "nearby"}
        §13.3 DEFAULT self: a Hero's own Morale +1 (max 5); nearby: every friend +1 while a Hero
        stands.
    leader_shares_morale : bool
        §9.3 DEFAULT True: once the Leader (and Heroes) test and pass, friends test on the best
        passed rating if it is higher than their own.
    rally_uses_leader : bool
        §9.5 DEFAULT False: a Coward rallies on its own Morale (it has fled out of range).
    capture_thralls : bool
        §10.6 DEFAULT True: a Thrall beaten in melee is captured by the figure that wounded it.
    geld : int
        §10.1: Geld per side at the start (SEED 3-6; DEFAULT 3).
    geld_needs_leader : bool
        §10.1 DEFAULT True: the Leader carries the Geld; none can be spent once it is removed.
    geld_breaks_ties : bool
        §10.1: a draw goes to the side with more unspent Geld (DEFAULT False: reported as draw).
    end_rule : {"no_fighters", "no_figures"}
        §12.6 DEFAULT no_fighters: a side with no figure able to fight (all dead, captured or
        fled) loses; no_figures: fled Cowards keep the side in the fight until they fail to rally.
    thrall_victory : {"tiebreak", "off"}
        §10.6 "Thralls count toward victory" (SEED; the notes give no DEFAULT reading). The melee
        is won by the side left with fighters (§12.6), so captives can only decide a tie:
        DEFAULT tiebreak: when both sides run out of fighters in the same End of Turn, the side
        holding more captive Thralls (held by a figure still alive, a fled Coward included) wins,
        before any Geld tie-break (§10.1 "ties are won by most Geld"); off: captives never
        count (the outcome depends on fighters and Geld only).
    scenario : {"", "fight_for_honor"}
        §10.7 (mode=scenario).
    ffh_jarl_armor : int
        §10.7 [RF-FfH]: Fight for Honor gives its Jarls Armor 3 (DEFAULT 3; 0..5).
    ffh_duel_death_ends : bool
        §10.7 DEFAULT True: when a Jarl falls and no warband fails morale, the duel decides the
        game; False: the fall of a Jarl always starts the general melee.
    """

    approach_turns: int = 1
    approach_last_distance: int = 6
    approach_step: int = 12
    wall_ranks: int = 2
    wall_min_figures: int = 3
    shield_wall_morale_bonus: int = 1
    rear_attack_from: int = 0
    cover_pieces: int = 0
    cover_block_min: int = 4
    raven_test_side: str = "victim_side"
    raven_token_requires_death: bool = False
    hero_morale_bonus: str = "self"
    leader_shares_morale: bool = True
    rally_uses_leader: bool = False
    capture_thralls: bool = True
    geld: int = 3
    geld_needs_leader: bool = True
    geld_breaks_ties: bool = False
    end_rule: str = "no_fighters"
    thrall_victory: str = "tiebreak"
    scenario: str = ""
    ffh_jarl_armor: int = 3
    ffh_duel_death_ends: bool = True

    def __post_init__(self):
        for name, allowed in (("raven_test_side", RAVEN_SIDES), ("hero_morale_bonus", HERO_BONUS),
                              ("end_rule", END_RULES), ("thrall_victory", THRALL_VICTORY),
                              ("scenario", ("",) + SCENARIOS)):
            if getattr(self, name) not in allowed:
                raise InputError(f"{name}={getattr(self, name)!r}; allowed: {', '.join(allowed)}")
        for name, lo, hi in (("approach_turns", 0, 10), ("wall_ranks", 1, 8),
                             ("wall_min_figures", 1, MAX_FIGURES), ("shield_wall_morale_bonus", 0, 5),
                             ("rear_attack_from", 0, MAX_FIGURES), ("cover_pieces", 0, 5),
                             ("cover_block_min", 1, 7), ("geld", 0, 100), ("ffh_jarl_armor", 0, 5),
                             ("approach_last_distance", 0, 100), ("approach_step", 0, 100)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise InputError(f"{name}={v!r} must be an integer in [{lo}, {hi}]")


#: Options the lead adds to GAME.options (shared Rules options come from the duel module).
WARBAND_OPTIONS = (
    Option("a", "str", "hirdmen10", "warband A: preset, type list (jarl+hirdmen*5) or .toml path"),
    Option("b", "str", "hirdmen10", "warband B: preset, type list or .toml path"),
    Option("scenario", "choice", "fight_for_honor", "mode=scenario: which scenario (§10.7)",
           choices=SCENARIOS),
    Option("approach_turns", "int", 1, "§12.6 turns of missile volleys before melee", 0, 10),
    Option("wall_ranks", "int", 2, "shield-wall depth in ranks (abstraction, §8.3)", 1, 8),
    Option("wall_min_figures", "int", 3, "§8.4 wall breaks below this many figures", 1, 32),
    Option("shield_wall_morale_bonus", "int", 1, "§8.3 Morale bonus in a wall", 0, 5),
    Option("rear_attack_from", "int", 0, "n-th enemy on a figure attacks from the rear (0=off)",
           0, 32),
    Option("cover_pieces", "int", 0, "§5.3 cover pieces between shooters and targets", 0, 5),
    Option("raven_test_side", "choice", "victim_side", "§13.2 who tests for a Raven token",
           choices=RAVEN_SIDES),
    Option("raven_token_requires_death", "bool", False, "§13.2 marked figure must die"),
    Option("hero_morale_bonus", "choice", "self", "§13.3 Hero +1 Morale: self or nearby",
           choices=HERO_BONUS),
    Option("leader_shares_morale", "bool", True, "§9.3 friends test on a passed Leader's Morale"),
    Option("rally_uses_leader", "bool", False, "§9.5 Cowards rally on the Leader's Morale"),
    Option("capture_thralls", "bool", True, "§10.6 beaten Thralls are captured"),
    Option("geld", "int", 3, "§10.1 starting Geld per side (re-rolls)", 0, 100),
    Option("geld_needs_leader", "bool", True, "§10.1 Geld is spent only while the Leader lives"),
    Option("geld_breaks_ties", "bool", False, "§10.1 draws go to the side with more Geld"),
    Option("end_rule", "choice", "no_fighters", "§12.6 when a side is beaten", choices=END_RULES),
    Option("thrall_victory", "choice", "tiebreak", "§10.6 Thralls count toward victory: captives "
           "held decide a draw (tiebreak) or never count (off)", choices=THRALL_VICTORY),
    Option("free_attack_in_missile", "bool", False, "§6.4 Free Attack rule for missile hits too"),
    Option("ffh_jarl_armor", "int", 3, "§10.7 Fight for Honor Jarl Armor", 0, 5),
    Option("ffh_duel_death_ends", "bool", True, "§10.7 a Jarl's fall ends the game if no "
           "warband fails morale"),
)

#: Modes each warband option applies to (``ravenfeast.OPTION_MODES`` merges this; a value
#: differing from its default in another mode is warned about, not silently dropped).
#: Scenario mode has no approach volleys (§10.7: the Jarls duel at once), so the missile
#: options apply to mode=warband only; the Fight for Honor options to mode=scenario only.
WARBAND_OPTION_MODES: dict[str, tuple[str, ...]] = {
    **{o.name: ("warband", "scenario") for o in WARBAND_OPTIONS},
    "scenario": ("scenario",),
    "approach_turns": ("warband",),
    "cover_pieces": ("warband",),
    "free_attack_in_missile": ("warband",),
    "ffh_jarl_armor": ("scenario",),
    "ffh_duel_death_ends": ("scenario",),
}

_WB_FIELDS = {f.name for f in fields(WarbandRules)}
_RULE_FIELDS = {f.name for f in fields(Rules)}


class WarbandSetup(NamedTuple):
    """Compiled warband battle (kernel arrays plus what frame/summary/trace need)."""

    rules: Rules
    wrules: WarbandRules
    names: tuple            # (a, b) warband names
    warbands: tuple         # (Warband, Warband)
    policies: tuple         # (name a, name b)
    fig: np.ndarray         # int64 (2, MAX_FIGURES, F.N)
    melt: np.ndarray        # int64 (2, MAX_FIGURES, 4): Melee [outnumbered + 2*wall] (§6.2, §8.3)
    armt: np.ndarray        # int64 (2, MAX_FIGURES, 8): Armor [wall + 2*rear + 4*mighty attacker]
    nfig: np.ndarray        # int64 (2,)
    ri: np.ndarray          # int64 (W.N,)
    pol: np.ndarray         # int64 (2, P.N)


def _build_rules(options: dict) -> tuple[Rules, WarbandRules]:
    shared = {k: v for k, v in options.items() if k in _RULE_FIELDS}
    wb = {k: v for k, v in options.items() if k in _WB_FIELDS and k != "scenario"}
    if options.get("mode") == "scenario":
        wb["scenario"] = options.get("scenario", "fight_for_honor")
        wb["approach_turns"] = 0          # §10.7: the Jarls duel at once
    return Rules(**shared), WarbandRules(**wb)


def compile_setup(wa, wb, rules: Rules = Rules(), wrules: WarbandRules = WarbandRules(),
                  policies=("default", "default")) -> WarbandSetup:
    """Validated Python → kernel arrays. ``wa``/``wb``: warband specs or Warbands."""
    bands = (load_warband(wa), load_warband(wb))
    fig = np.zeros((2, MAX_FIGURES, F.N), np.int64)
    melt = np.zeros((2, MAX_FIGURES, 4), np.int64)
    armt = np.zeros((2, MAX_FIGURES, 8), np.int64)
    nfig = np.zeros(2, np.int64)
    for s, band in enumerate(bands):
        rows, thrall, points2 = compile_warband(band, tough_reading=rules.tough_reading)
        n = rows.shape[0]
        nfig[s] = n
        for i in range(n):
            r = rows[i]
            leader = int(r[Stat.LEADER])
            armor = int(r[Stat.ARMOR])
            if wrules.scenario == "fight_for_honor" and band.figures[i][0] == "jarl":
                armor = wrules.ffh_jarl_armor             # §10.7 [RF-FfH] Armor-3 Jarls
            morale = int(r[Stat.MORALE])
            if r[Stat.HERO] and wrules.hero_morale_bonus == "self":
                morale = min(morale + 1, RATING_MAX)      # §13.3 DEFAULT self
            fig[s, i] = (r[Stat.ATTACKS], melee_rating(int(r[Stat.MELEE]), Stance(), rules),
                         r[Stat.WOUNDS], morale, r[Stat.MISSILE], r[Stat.RANGE], points2[i],
                         leader, r[Stat.HERO], r[Stat.MIGHTY], r[Stat.FATED], r[Stat.FEARLESS],
                         thrall[i])
            for k in range(4):                            # §6.2 outnumbered, §8.3 wall
                melt[s, i, k] = melee_rating(int(r[Stat.MELEE]),
                                             Stance(outnumbered=bool(k & 1), shield_wall=bool(k & 2)),
                                             rules)
            for k in range(8):                            # §6.2-6.3, §8.3 Armor vs a hit
                armt[s, i, k] = armor_rating(armor, Stance(shield_wall=bool(k & 1), rear=bool(k & 2)),
                                             bool(k & 4), rules)
    ri = np.zeros(W.N, np.int64)
    w = wrules
    ri[W.MAX_TURNS] = rules.max_turns
    ri[W.APPROACH_TURNS] = w.approach_turns
    ri[W.APPROACH_LAST] = w.approach_last_distance
    ri[W.APPROACH_STEP] = w.approach_step
    ri[W.WALL_RANKS] = w.wall_ranks
    ri[W.WALL_MIN] = w.wall_min_figures
    ri[W.WALL_MORALE] = w.shield_wall_morale_bonus
    ri[W.REAR_FROM] = w.rear_attack_from
    ri[W.COVER] = w.cover_pieces
    ri[W.COVER_BLOCK] = w.cover_block_min
    ri[W.RAVEN_ATTACKER] = w.raven_test_side == "attacker_side"
    ri[W.RAVEN_DEATH] = w.raven_token_requires_death
    ri[W.HERO_NEARBY] = w.hero_morale_bonus == "nearby"
    ri[W.LEADER_SHARES] = w.leader_shares_morale
    ri[W.RALLY_LEADER] = w.rally_uses_leader
    ri[W.CAPTURE] = w.capture_thralls
    ri[W.GELD_NEEDS_LEADER] = w.geld_needs_leader
    ri[W.GELD_TIEBREAK] = w.geld_breaks_ties
    ri[W.END_FIGURES] = w.end_rule == "no_figures"
    ri[W.SCENARIO] = 1 if w.scenario == "fight_for_honor" else 0
    ri[W.FFH_DEATH_ENDS] = w.ffh_duel_death_ends
    ri[W.FREE_ATTACK] = rules.free_attack
    ri[W.TRIGGER_SIX] = rules.free_attack_trigger == "armor_six"
    ri[W.FREE_IN_MISSILE] = rules.free_attack_in_missile
    ri[W.FATED_ARMOR] = rules.fated_armor_roll
    ri[W.CLAMP] = rules.rating_clamp
    ri[W.GELD] = w.geld
    ri[W.THRALL_TIEBREAK] = w.thrall_victory == "tiebreak"
    if w.scenario == "fight_for_honor":
        for s in range(2):
            if not fig[s, : nfig[s], F.LEADER].any():     # cannot happen: warbands add one
                raise InputError(f"fight_for_honor needs a Leader in warband {bands[s].name!r}")
    pol = np.vstack([policy_row(policies[0]), policy_row(policies[1])])
    return WarbandSetup(rules=rules, wrules=wrules, names=(bands[0].name, bands[1].name),
                        warbands=bands, policies=tuple(policies), fig=fig, melt=melt, armt=armt,
                        nfig=nfig, ri=ri, pol=pol)


# ---------------------------------------------------------------- pure rule resolution

@jit(inline="always", nrt=False)
def _resolve_test(roll, rating):
    """§2.2: a test (hit, save, morale, rally, missile) passes when roll <= rating."""
    return roll <= rating


@jit(inline="always", nrt=False)
def _resolve_morale_rating(own, shared, wall, wall_bonus, nearby_hero, clamp):
    """§9.1, §9.3, §8.3, §13.3: the Morale a figure tests on.

    ``shared`` is the best Morale of a Leader/Hero that tested first and passed (0 if none);
    ``nearby_hero`` is 1 when the nearby reading of §13.3 gives +1.
    """
    m = own + nearby_hero
    if shared > m:
        m = shared
    if wall:
        m += wall_bonus
    if clamp:
        m = min(max(m, 0), 5)
    return m


@jit(inline="always", nrt=False)
def _resolve_attack(hit_roll, armor_roll, free_roll, melee, armor, free_attack, trigger_six):
    """One melee attack from its dice (§6.1-6.4): (wounds 0-2, raven 0/1, free attack rolled).

    ``armor_roll`` is the final Armor die (after any Geld re-roll); ignored on a miss.
    """
    if not _resolve_test(hit_roll, melee):
        return 0, 0, False
    wounds = 0 if _resolve_test(armor_roll, armor) else 1
    if _resolve_free_trigger(hit_roll, armor_roll, armor, free_attack, trigger_six):
        if _resolve_test(free_roll, melee):
            return wounds + 1, 1, True
        return wounds, 0, True
    return wounds, 0, False


@jit(inline="always", nrt=False)
def _resolve_wall_front(members, ranks):
    """§8.3 abstraction: front-rank width of a wall of ``members`` figures ``ranks`` deep."""
    return (members + ranks - 1) // ranks


@jit(inline="always", nrt=False)
def _resolve_wall_holds(members, wall_min):
    """§8.4: the wall breaks when fewer than ``wall_min`` (SEED 3) figures remain."""
    return members >= wall_min


@jit(inline="always", nrt=False)
def _resolve_fifty(removed, start):
    """§9.2 / §13.5 DEFAULT: more than half of the starting figures removed."""
    return 2 * removed > start


@jit(inline="always", nrt=False)
def _resolve_removed(blood, wounds):
    """§7.1: removed when its Blood tokens reach its wounds."""
    return blood >= wounds


@jit(inline="always", nrt=False)
def _resolve_outcome(f0, f1, held0, held1, thrall_tb, geld0, geld1, geld_tb):
    """§12.6 victory from fighters left; -1 = fight goes on. A tie (neither side has a fighter)
    goes to the side holding more captive Thralls (``held0`` = side 1's figures held by side 0;
    §10.6, ``thrall_victory`` tiebreak), then optionally to more Geld (§10.1), else a draw."""
    if f0 > 0 and f1 > 0:
        return -1
    if f0 > 0:
        return 0
    if f1 > 0:
        return 1
    if thrall_tb and held0 != held1:
        return 0 if held0 > held1 else 1
    if geld_tb and geld0 != geld1:
        return 0 if geld0 > geld1 else 1
    return 2


# ---------------------------------------------------------------- kernel helpers

@jit(inline="always", nrt=False)
def _alive(st, s, i):
    return st[s, i, S.STATUS] == Status.ACTIVE or st[s, i, S.STATUS] == Status.COWARD


@jit(inline="always", nrt=False)
def _in_contact(st, s, i, e):
    """Enemy e (side 1-s) is in contact with figure i of side s this turn (and can strike)."""
    es = 1 - s
    return st[es, e, S.STATUS] == Status.ACTIVE and (st[es, e, S.TGT] == i or st[s, i, S.TGT] == e)


@jit(inline="always", nrt=False)
def _geld_ok(ri, st, sd, s):
    """§10.1: Geld to spend (carried by the Leader, DEFAULT)."""
    if sd[s, D.GELD] <= 0:
        return False
    return ri[W.GELD_NEEDS_LEADER] == 0 or _alive(st, s, sd[s, D.LEADER])


@jit(inline="always", nrt=False)
def _prefer(kind, fig, st, es, e, b):
    """Target policy: is enemy e strictly preferred to b (§12.6 DEFAULT focus)?"""
    if kind == Target.LEADER:
        ke = 2 * fig[es, e, F.LEADER] + fig[es, e, F.HERO]
        kb = 2 * fig[es, b, F.LEADER] + fig[es, b, F.HERO]
        if ke != kb:
            return ke > kb
    elif kind == Target.SPREAD:
        if st[es, e, S.ENG] != st[es, b, S.ENG]:
            return st[es, e, S.ENG] < st[es, b, S.ENG]
    le = fig[es, e, F.WOUNDS] - st[es, e, S.BLOOD]
    lb = fig[es, b, F.WOUNDS] - st[es, b, S.BLOOD]
    if (le > 0) != (lb > 0):          # figures already doomed this turn last
        return le > 0
    if le != lb:
        return le < lb
    return fig[es, e, F.POINTS2] > fig[es, b, F.POINTS2]


@jit(inline="always", nrt=False)
def _choose(kind, fig, st, es, cand, nc, pol_rng):
    """Pick one of ``cand[:nc]`` (enemy indices, side es) by target policy ``kind``."""
    if kind == Target.RANDOM:
        return cand[int(pol_rng.random() * nc)]
    best = cand[0]
    for k in range(1, nc):
        if _prefer(kind, fig, st, es, cand[k], best):
            best = cand[k]
    return best



_NS, _ND = int(S.N), int(D.N)
_RUNNING = -1
_TRUNC = int(Outcome.TRUNCATED)


@jit(inline="always", nrt=False)
def _free_attacks_on(fig, st, sd, s, x, dice):
    """§4.4 / §9.4: every enemy in contact with figure x strikes once (d6 <= Melee), no Armor
    roll; wounds are marked (removal at End of Turn). One die per enemy in contact."""
    es = 1 - s
    for e in range(sd[es, D.N_FIG]):
        if _in_contact(st, s, x, e):
            if _resolve_test(_d6(dice), fig[es, e, F.MELEE]):
                st[s, x, S.BLOOD] += 1
                st[s, x, S.HIT_BY] = e
                sd[s, D.HURT] = 1


@jit(inline="always", nrt=False)
def _removal(fig, armt, ri, st, sd, dice):
    """§7.1 End of Turn removal, §10.3 Fated strokes (repeated while they kill), §10.6 capture."""
    while sd[0, D.HURT] or sd[1, D.HURT]:                     # no new Blood: nothing to remove
        sd[0, D.HURT] = 0
        sd[1, D.HURT] = 0
        found = 0
        for s in range(2):                                    # DOOM is 0 outside this loop:
            for i in range(sd[s, D.N_FIG]):                   # written branch-free
                stat = st[s, i, S.STATUS]
                hit = (stat <= Status.COWARD) & _resolve_removed(st[s, i, S.BLOOD],
                                                                 fig[s, i, F.WOUNDS])
                st[s, i, S.DOOM] = hit * (2 - stat)           # 2 ACTIVE, 1 COWARD
                found |= hit
        if not found:
            break
        fated = False
        for s in range(2):
            es = 1 - s
            for i in range(sd[s, D.N_FIG]):
                if st[s, i, S.DOOM] == 0:
                    continue
                h = st[s, i, S.HIT_BY]
                if (ri[W.CAPTURE] and fig[s, i, F.THRALL] and h >= 0 and _alive(st, es, h)
                        and not _resolve_removed(st[es, h, S.BLOOD], fig[es, h, F.WOUNDS])):
                    st[s, i, S.STATUS] = Status.CAPTURED      # §10.6 beaten in combat
                    st[s, i, S.CAPTOR] = h
                    sd[s, D.CAPTIVES] += 1
                else:
                    st[s, i, S.STATUS] = Status.DEAD          # §7.1
                sd[s, D.REMOVED] += 1
                sd[s, D.EV_LEADER] += fig[s, i, F.LEADER]
                sd[s, D.EV_HERO] += fig[s, i, F.HERO]
                if st[s, i, S.DOOM] == 1:
                    sd[s, D.COWARDS] -= 1
                if st[s, i, S.DOOM] == 2 and fig[s, i, F.FATED]:
                    fated = True
                else:
                    st[s, i, S.DOOM] = 0
        if not fated:
            break
        for s in range(2):
            es = 1 - s
            for i in range(sd[s, D.N_FIG]):
                if st[s, i, S.DOOM] == 2:                     # §10.3 Fated, only if in contact
                    st[s, i, S.DOOM] = 0
                    for e in range(sd[es, D.N_FIG]):
                        if _in_contact(st, s, i, e):
                            if _resolve_test(_d6(dice), fig[s, i, F.MELEE]):
                                if ri[W.FATED_ARMOR]:
                                    a = armt[es, e, sd[es, D.WALL] + 4 * fig[s, i, F.MIGHTY]]
                                    if _resolve_test(_d6(dice), a):
                                        continue
                                st[es, e, S.BLOOD] += 1
                                st[es, e, S.HIT_BY] = i
                                sd[es, D.HURT] = 1
    for s in range(2):                                        # §10.6 captor beaten: freed
        es = 1 - s
        if sd[s, D.CAPTIVES] == 0:
            continue
        for i in range(sd[s, D.N_FIG]):
            if st[s, i, S.STATUS] == Status.CAPTURED and not _alive(st, es, st[s, i, S.CAPTOR]):
                sd[s, D.CAPTIVES] -= 1
                st[s, i, S.STATUS] = Status.ACTIVE
                st[s, i, S.BLOOD] = fig[s, i, F.WOUNDS] - 1
                st[s, i, S.CAPTOR] = -1
                st[s, i, S.TGT] = -1
                st[s, i, S.HIT_BY] = -1
                sd[s, D.REMOVED] -= 1


@jit(inline="always", nrt=False)
def _flee(fig, st, sd, s, x, dice):
    """§9.4: a failed test gives a Coward token; the figure flees and every enemy in contact gets a
    Free Attack; a figure engaged front and rear cannot flee and is killed (or captured)."""
    sd[s, D.FLED] += 1
    if st[s, x, S.SURR]:
        st[s, x, S.BLOOD] = fig[s, x, F.WOUNDS]
        sd[s, D.HURT] = 1
    else:
        _free_attacks_on(fig, st, sd, s, x, dice)
    st[s, x, S.STATUS] = Status.COWARD
    sd[s, D.COWARDS] += 1
    st[s, x, S.TGT] = -1
    st[s, x, S.RESERVE] = 0


@jit(inline="always", nrt=False)
def _group_test(fig, ri, pol, st, sd, s, dice):
    """One morale trigger for side s (§9.2-9.4): the Leader tests first, then Heroes, then the
    rest in index order; friends may use a passed Leader's/Hero's Morale (§9.3)."""
    n = sd[s, D.N_FIG]
    lead = sd[s, D.LEADER]
    nearby = 0
    if ri[W.HERO_NEARBY]:                                      # §13.3 nearby reading
        for i in range(n):
            if fig[s, i, F.HERO] and st[s, i, S.STATUS] == Status.ACTIVE:
                nearby = 1
    shared = 0
    for ph in range(3):
        i0 = 0
        i1 = n
        if ph == 0:
            i0 = lead
            i1 = lead + 1
        elif ph == 1 and sd[s, D.N_HERO] == 0:
            continue
        for i in range(i0, i1):
            if st[s, i, S.STATUS] != Status.ACTIVE or fig[s, i, F.FEARLESS]:   # §10.4
                continue
            is_lead = i == lead
            is_hero = fig[s, i, F.HERO] != 0 and not is_lead
            if ph == 0 and not is_lead:
                continue
            if ph == 1 and not is_hero:
                continue
            if ph == 2 and (is_lead or is_hero):
                continue
            nb = 0 if fig[s, i, F.HERO] else nearby
            rating = _resolve_morale_rating(fig[s, i, F.MORALE], shared, sd[s, D.WALL],
                                            ri[W.WALL_MORALE], nb, ri[W.CLAMP])
            ok = _resolve_test(_d6(dice), rating)
            if not ok and pol[s, P.GELD] == GeldUse.MORALE and _geld_ok(ri, st, sd, s):
                sd[s, D.GELD] -= 1                              # §10.1 re-roll
                ok = _resolve_test(_d6(dice), rating)
            if ok:
                if ph < 2 and ri[W.LEADER_SHARES] and fig[s, i, F.MORALE] > shared:
                    shared = fig[s, i, F.MORALE]                # §9.3
            else:
                _flee(fig, st, sd, s, i, dice)


@jit(inline="always", nrt=False)
def _rally(fig, ri, pol, st, sd, dice):
    """§9.5 Rally phase: each Coward tests Morale; pass: acts normally; fail: removed as killed."""
    for s in range(2):
        if sd[s, D.COWARDS] == 0:
            continue
        lead = sd[s, D.LEADER]
        for i in range(sd[s, D.N_FIG]):
            if st[s, i, S.STATUS] != Status.COWARD:
                continue
            sd[s, D.COWARDS] -= 1
            rating = fig[s, i, F.MORALE]
            if ri[W.RALLY_LEADER] and st[s, lead, S.STATUS] == Status.ACTIVE:
                rating = max(rating, fig[s, lead, F.MORALE])
            ok = _resolve_test(_d6(dice), rating)
            if not ok and pol[s, P.GELD] == GeldUse.MORALE and _geld_ok(ri, st, sd, s):
                sd[s, D.GELD] -= 1
                ok = _resolve_test(_d6(dice), rating)
            if ok:
                st[s, i, S.STATUS] = Status.ACTIVE
                st[s, i, S.TGT] = -1
            else:
                st[s, i, S.STATUS] = Status.DEAD
                sd[s, D.REMOVED] += 1
                sd[s, D.EV_LEADER] += fig[s, i, F.LEADER]
                sd[s, D.EV_HERO] += fig[s, i, F.HERO]


@jit(inline="always", nrt=False)
def _disengage(fig, ri, pol, st, sd, dice):
    """§4.4 disengaging as a policy: a wounded Leader on its last wound steps out of the line;
    every enemy in contact gets a Free Attack. It returns when no friend is left fighting."""
    for s in range(2):
        if pol[s, P.DISENGAGE] != Disengage.LEADER_LAST_WOUND:
            continue
        lead = sd[s, D.LEADER]
        if (st[s, lead, S.STATUS] != Status.ACTIVE or st[s, lead, S.RESERVE]
                or st[s, lead, S.TGT] < 0 or st[s, lead, S.SURR]):
            continue
        if st[s, lead, S.BLOOD] == 0 or fig[s, lead, F.WOUNDS] - st[s, lead, S.BLOOD] != 1:
            continue
        other = False
        for i in range(sd[s, D.N_FIG]):
            if i != lead and st[s, i, S.STATUS] == Status.ACTIVE and st[s, i, S.RESERVE] == 0:
                other = True
        if not other:
            continue
        _free_attacks_on(fig, st, sd, s, lead, dice)
        st[s, lead, S.RESERVE] = 1
        st[s, lead, S.TGT] = -1


@jit(inline="always", nrt=False)
def _missiles(fig, armt, ri, pol, st, sd, t, cand, dice, pol_rng):
    """§5 / §12.6 approach volleys: shooters in range fire once at a target chosen by policy;
    Leaders and Heroes only when no other target is left (§5.2 "closest" abstraction)."""
    dist = ri[W.APPROACH_LAST] + (ri[W.APPROACH_TURNS] - t) * ri[W.APPROACH_STEP]
    for s in range(2):
        for i in range(sd[s, D.N_FIG]):
            st[s, i, S.ENG] = 0                             # shots aimed at it this volley
    for s in range(2):
        es = 1 - s
        for i in range(sd[s, D.N_FIG]):
            if (st[s, i, S.STATUS] != Status.ACTIVE or fig[s, i, F.MISSILE] == 0
                    or fig[s, i, F.RANGE] < dist):
                continue
            nc = 0
            for e in range(sd[es, D.N_FIG]):
                if (st[es, e, S.STATUS] == Status.ACTIVE and not fig[es, e, F.LEADER]
                        and not fig[es, e, F.HERO]):
                    cand[nc] = e
                    nc += 1
            if nc == 0:
                for e in range(sd[es, D.N_FIG]):
                    if st[es, e, S.STATUS] == Status.ACTIVE:
                        cand[nc] = e
                        nc += 1
            if nc == 0:
                continue
            x = _choose(pol[s, P.TARGET], fig, st, es, cand, nc, pol_rng)
            st[es, x, S.ENG] += 1
            h = _d6(dice)
            if not _resolve_test(h, fig[s, i, F.MISSILE]):    # §5.3 to hit
                continue
            blocked = False
            for c in range(ri[W.COVER]):                      # §5.3 cover, 4+ blocks
                if _d6(dice) >= ri[W.COVER_BLOCK]:
                    blocked = True
                    break
            if blocked:
                continue
            arm = armt[es, x, sd[es, D.WALL]]
            sv = _d6(dice)
            if (not _resolve_test(sv, arm) and pol[es, P.GELD] == GeldUse.LEADER_SAVES
                    and x == sd[es, D.LEADER] and _geld_ok(ri, st, sd, es)):
                sd[es, D.GELD] -= 1
                sv = _d6(dice)
            if not _resolve_test(sv, arm):
                st[es, x, S.BLOOD] += 1
                st[es, x, S.HIT_BY] = -1
                sd[es, D.HURT] = 1
            if ri[W.FREE_IN_MISSILE] and _resolve_free_trigger(h, sv, arm, True, ri[W.TRIGGER_SIX]):
                if _resolve_test(_d6(dice), fig[s, i, F.MISSILE]):
                    st[es, x, S.BLOOD] += 1
                    st[es, x, S.RAVEN] += 1
                    st[es, x, S.HIT_BY] = -1
                    sd[es, D.HURT] = 1
                    sd[es, D.RAVENS] += 1


@jit(inline="always", nrt=False)
def _melee(fig, melt, armt, ri, pol, st, sd, line, cand, duel_only, dice, pol_rng):
    """§6 / §12.6 melee phase: pair the lines, surplus figures gang up, then all attacks."""
    for s in range(2):
        n = sd[s, D.N_FIG]
        k = 0
        for i in range(n):
            st[s, i, S.TGT] = -1
            st[s, i, S.ENG] = 0
            st[s, i, S.REAR] = 0
            st[s, i, S.SURR] = 0
            line[s, k] = i                                    # kept if it fights (branch-free)
            k += ((st[s, i, S.STATUS] == Status.ACTIVE) & (st[s, i, S.RESERVE] == 0)
                  & ((duel_only == 0) | (fig[s, i, F.LEADER] != 0)))
        if k == 0 and duel_only == 0:                         # reserve rejoins when alone
            for i in range(n):
                if st[s, i, S.STATUS] == Status.ACTIVE and st[s, i, S.RESERVE]:
                    st[s, i, S.RESERVE] = 0
                    line[s, k] = i
                    k += 1
        if sd[s, D.WALL] and k > sd[s, D.FRONT]:
            k = sd[s, D.FRONT]                                # §8.3 rear rank waits
        sd[s, D.N_LINE] = k
    m = min(sd[0, D.N_LINE], sd[1, D.N_LINE])
    if m == 0:
        return
    for j in range(m):                                        # §12.6 pairs, front to front
        a = line[0, j]
        b = line[1, j]
        st[0, a, S.TGT] = b
        st[1, b, S.TGT] = a
        st[0, a, S.ENG] = 1
        st[1, b, S.ENG] = 1
    if sd[0, D.N_LINE] != sd[1, D.N_LINE]:
        big = 0 if sd[0, D.N_LINE] > sd[1, D.N_LINE] else 1
        sm = 1 - big
        for j in range(m, sd[big, D.N_LINE]):                 # surplus joins fights
            f = line[big, j]
            e = _choose(pol[big, P.TARGET], fig, st, sm, line[sm], m, pol_rng)
            st[big, f, S.TGT] = e
            st[big, f, S.ENG] = 1
            st[sm, e, S.ENG] += 1
            if ri[W.REAR_FROM] > 0 and st[sm, e, S.ENG] >= ri[W.REAR_FROM]:
                st[big, f, S.REAR] = 1
                st[sm, e, S.SURR] = 1
        for j in range(m):                                    # §4.3 ganged-up figure faces one
            x = line[sm, j]
            if st[sm, x, S.ENG] > 1:
                nc = 0
                for jj in range(sd[big, D.N_LINE]):
                    f = line[big, jj]
                    if st[big, f, S.TGT] == x:
                        cand[nc] = f
                        nc += 1
                st[sm, x, S.TGT] = _choose(pol[sm, P.TARGET], fig, st, big, cand, nc, pol_rng)
    free_attack = ri[W.FREE_ATTACK] != 0
    trigger_six = ri[W.TRIGGER_SIX] != 0
    for s in range(2):                                        # §3.4 simultaneous: A's, then B's dice
        es = 1 - s
        for j in range(sd[s, D.N_LINE]):
            f = line[s, j]
            x = st[s, f, S.TGT]
            out = 1 if st[s, f, S.ENG] > 1 else 0             # §6.2 several enemies
            mel = melt[s, f, out + 2 * sd[s, D.WALL]]
            arm = armt[es, x, sd[es, D.WALL] + 2 * st[s, f, S.REAR] + 4 * fig[s, f, F.MIGHTY]]
            geld_saves = (pol[es, P.GELD] == GeldUse.LEADER_SAVES and x == sd[es, D.LEADER])
            wounds = 0
            ravens = 0
            for _ in range(fig[s, f, F.ATTACKS]):
                h = _d6(dice)                                 # §6.1 hit die
                if not _resolve_test(h, mel):
                    continue
                sv = _d6(dice)                                # §6.3 Armor die
                if geld_saves and not _resolve_test(sv, arm) and _geld_ok(ri, st, sd, es):
                    sd[es, D.GELD] -= 1                       # §10.1 re-roll
                    sv = _d6(dice)
                fr = 0
                if _resolve_free_trigger(h, sv, arm, free_attack, trigger_six):
                    fr = _d6(dice)                            # §6.4 Free Attack die
                w, r, _ = _resolve_attack(h, sv, fr, mel, arm, free_attack, trigger_six)
                wounds += w
                ravens += r
            if wounds > 0:
                st[es, x, S.BLOOD] += wounds                  # §3.4 marked, removed at End of Turn
                st[es, x, S.HIT_BY] = f
                sd[es, D.HURT] = 1
            st[es, x, S.RAVEN] += ravens
            sd[es, D.RAVENS] += ravens


@jit(inline="always", nrt=False)
def _fighters(ri, st, sd, s):
    """1 if side s has a figure able to fight (§12.6): ACTIVE; with end_rule no_figures, a
    Coward too; else 0 (only "any" matters for the victory rule)."""
    for i in range(sd[s, D.N_FIG]):
        stat = st[s, i, S.STATUS]
        if stat == Status.ACTIVE or (ri[W.END_FIGURES] and stat == Status.COWARD):
            return 1
    return 0


@jit(inline="always", nrt=False)
def _end_of_turn(fig, armt, ri, pol, st, sd, dice):
    """§3.5 End of Turn: removal, morale triggers (§9.2) per side, removal of the fled killed."""
    for rp in range(2):
        _removal(fig, armt, ri, st, sd, dice)                 # 2nd pass: fled and killed,
        if rp == 1:                                           # their triggers wait a turn
            break
        ravens0 = 0
        ravens1 = 0
        for s in range(2):
            if sd[s, D.RAVENS] == 0:
                continue
            sd[s, D.RAVENS] = 0
            for i in range(sd[s, D.N_FIG]):
                r = st[s, i, S.RAVEN]
                if r > 0 and (ri[W.RAVEN_DEATH] == 0 or not _alive(st, s, i)):   # §13.2
                    if (s == 0) != (ri[W.RAVEN_ATTACKER] != 0):
                        ravens0 += r
                    else:
                        ravens1 += r
                st[s, i, S.RAVEN] = 0
        for s in range(2):
            sd[s, D.FLED] = 0
        for s in range(2):
            tests = 0
            if sd[s, D.EV_LEADER] > 0:                        # §9.2 Leader killed
                tests += 1
            if sd[s, D.FIFTY] == 0 and _resolve_fifty(sd[s, D.REMOVED], sd[s, D.N_FIG]):
                sd[s, D.FIFTY] = 1                            # §9.2 past 50 %, once
                tests += 1
            tests += sd[s, D.EV_HERO]                         # §9.2 Hero killed
            tests += ravens0 if s == 0 else ravens1           # §9.2 Raven token
            for _ in range(tests):
                _group_test(fig, ri, pol, st, sd, s, dice)
            sd[s, D.EV_LEADER] = 0
            sd[s, D.EV_HERO] = 0
    for s in range(2):                                        # §8.4 the wall breaks below 3
        if sd[s, D.WALL]:
            k = 0
            for i in range(sd[s, D.N_FIG]):
                if st[s, i, S.STATUS] == Status.ACTIVE:
                    k += 1
            if not _resolve_wall_holds(k, ri[W.WALL_MIN]):
                sd[s, D.WALL] = 0


@jit(nrt=False)
def _battle(fig, melt, armt, nfig, ri, pol, st, sd, line, cand, dice, pol_rng):
    """One battle (§3 turn sequence); returns (outcome, turns, general_melee, duel_result).

    No input checks. ``st``, ``sd``, ``line``, ``cand`` are scratch, overwritten here.
    """
    for s in range(2):
        for k in range(_ND):
            sd[s, k] = 0
        sd[s, D.N_FIG] = nfig[s]
        sd[s, D.GELD] = ri[W.GELD]                            # §10.1
        for i in range(nfig[s]):
            for k in range(_NS):
                st[s, i, k] = 0
            st[s, i, S.TGT] = -1
            st[s, i, S.HIT_BY] = -1
            st[s, i, S.CAPTOR] = -1
            if fig[s, i, F.LEADER]:
                sd[s, D.LEADER] = i
            sd[s, D.N_HERO] += fig[s, i, F.HERO]
    scen = ri[W.SCENARIO]
    gm = 1 if scen == 0 else 0                                # §10.7 duel first
    duel_res = -1
    approach = ri[W.APPROACH_TURNS] if scen == 0 else 0
    shooters = False
    for s in range(2):
        for i in range(nfig[s]):
            if fig[s, i, F.MISSILE] > 0:
                shooters = True
    result = _RUNNING
    t = 0
    while t < ri[W.MAX_TURNS]:
        t += 1
        quiet = t <= approach and not shooters                # nothing can happen: no dice
        if not quiet:
            _rally(fig, ri, pol, st, sd, dice)                # 2 Rally (§9.5)
        if t == 1:                                            # 3 Movement: §8.1 walls form
            for s in range(2):
                if pol[s, P.WALL]:
                    k = 0
                    for i in range(nfig[s]):
                        if st[s, i, S.STATUS] == Status.ACTIVE:
                            k += 1
                    if _resolve_wall_holds(k, ri[W.WALL_MIN]):
                        sd[s, D.WALL] = 1
                        sd[s, D.FRONT] = _resolve_wall_front(k, ri[W.WALL_RANKS])
        elif gm:
            _disengage(fig, ri, pol, st, sd, dice)            # §4.4
        if quiet:
            continue
        if t <= approach:
            _missiles(fig, armt, ri, pol, st, sd, t, cand, dice, pol_rng)   # 4 Missile
        else:
            _melee(fig, melt, armt, ri, pol, st, sd, line, cand, 1 - gm, dice, pol_rng)  # 5
        _end_of_turn(fig, armt, ri, pol, st, sd, dice)        # 6 End of Turn
        if gm == 0:                                           # §10.7 Fight for Honor
            la = st[0, sd[0, D.LEADER], S.STATUS] == Status.DEAD
            lb = st[1, sd[1, D.LEADER], S.STATUS] == Status.DEAD
            if la or lb:
                duel_res = 2 if (la and lb) else (1 if la else 0)
            if sd[0, D.FLED] + sd[1, D.FLED] > 0:
                gm = 1                                        # a warband fails morale: melee
            elif la or lb:
                if ri[W.FFH_DEATH_ENDS]:
                    result = duel_res
                    break
                gm = 1
        result = _resolve_outcome(_fighters(ri, st, sd, 0), _fighters(ri, st, sd, 1),
                                  sd[1, D.CAPTIVES], sd[0, D.CAPTIVES], ri[W.THRALL_TIEBREAK],
                                  sd[0, D.GELD], sd[1, D.GELD], ri[W.GELD_TIEBREAK])
        if result != _RUNNING:
            break
    if result == _RUNNING:
        result = _TRUNC                                       # §12.6 cap: never a draw
    return result, t, gm, duel_res


@jit(nrt=False)
def _play_block(fig, melt, armt, nfig, ri, pol, g0, g1, dice, pol_rng, st, sd, line, cand,
                outcome, turns, surv_a, surv_b, fled_a, fled_b, thralls_a, thralls_b, geld_a,
                geld_b, general_melee, duel_result):
    """Battles g0..g1-1 into the output arrays (shape=(n_games,)). No input checks.

    Compiled without NRT (no allocation here): the scratch state ``st`` (2, MAX_FIGURES, S.N),
    ``sd`` (2, D.N), ``line`` (2, MAX_FIGURES), ``cand`` (MAX_FIGURES,) comes from the wrapper,
    allocated once per block, never per battle. Streams: ``dice`` for every die, ``pol_rng``
    only for the random target policy.
    """
    for g in range(g0, g1):
        res, t, gm, dr = _battle(fig, melt, armt, nfig, ri, pol, st, sd, line, cand, dice,
                                 pol_rng)
        outcome[g] = res
        turns[g] = t
        general_melee[g] = gm
        duel_result[g] = dr
        for s in range(2):
            alive = 0
            fled = 0
            held = 0
            for i in range(nfig[s]):                          # branch-free counts
                stat = st[s, i, S.STATUS]
                alive += stat <= Status.COWARD
                fled += stat == Status.COWARD
            for i in range(nfig[1 - s]):
                held += st[1 - s, i, S.STATUS] == Status.CAPTURED
            if s == 0:
                surv_a[g] = alive
                fled_a[g] = fled
                thralls_a[g] = held
                geld_a[g] = min(sd[0, D.GELD], 127)
            else:
                surv_b[g] = alive
                fled_b[g] = fled
                thralls_b[g] = held
                geld_b[g] = min(sd[1, D.GELD], 127)


# ---------------------------------------------------------------- GameSpec pieces (warband)

OUT_DTYPES = {"outcome": np.int8, "turns": np.int16, "a_survivors": np.int8,
              "b_survivors": np.int8, "a_fled": np.int8, "b_fled": np.int8,
              "a_thralls": np.int8, "b_thralls": np.int8, "a_geld": np.int8, "b_geld": np.int8,
              "general_melee": np.int8, "duel_result": np.int8}


def setup_warband(options: dict, policies: list, players: int) -> WarbandSetup:
    """GameSpec.setup for mode warband / scenario: options → compiled setup (InputError if bad).

    Seat 0 plays warband ``a``, seat 1 warband ``b``; policy names from WARBAND_POLICIES (or
    ``+``-joined parts of POLICY_PARTS).
    """
    if players != 2:
        raise InputError(f"ravenfeast warband battles take 2 players, got {players}")
    pols = list(policies) if len(policies) == 2 else [policies[0]] * 2
    rules, wrules = _build_rules(options)
    return compile_setup(options.get("a", "hirdmen10"), options.get("b", "hirdmen10"), rules,
                         wrules, tuple(pols))


def allocate_warband(setup: WarbandSetup, n: int) -> dict:
    """Per-battle outputs: 13 bytes a battle (10 million battles = 130 MB)."""
    return {k: np.zeros(n, dt) for k, dt in OUT_DTYPES.items()}


def play_block_warband(setup: WarbandSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    """Compiled battles g0..g1-1 of ``out`` (one nogil kernel call).

    The kernel is compiled without NRT and allocates nothing: its scratch state is made here,
    once per block."""
    maxf = setup.fig.shape[1]
    st = np.zeros((2, maxf, _NS), np.int64)
    sd = np.zeros((2, _ND), np.int64)
    line = np.zeros((2, maxf), np.int64)
    cand = np.zeros(maxf, np.int64)
    _play_block(setup.fig, setup.melt, setup.armt, setup.nfig, setup.ri, setup.pol, g0, g1,
                dice_rng, pol_rng, st, sd, line, cand, out["outcome"], out["turns"],
                out["a_survivors"], out["b_survivors"], out["a_fled"], out["b_fled"],
                out["a_thralls"], out["b_thralls"], out["a_geld"], out["b_geld"],
                out["general_melee"], out["duel_result"])


def frame_warband(setup: WarbandSetup, out: dict) -> pd.DataFrame:
    """One row per battle: game_id, outcome name, truncated, turns, per-side counts."""
    return outcome_frame(out, ["a_win", "b_win", "draw", "truncated"], Outcome.TRUNCATED)


_MEANS = (("mean_turns", "turns"), ("mean_survivors_a", "a_survivors"),
          ("mean_survivors_b", "b_survivors"), ("mean_thralls_a", "a_thralls"),
          ("mean_thralls_b", "b_thralls"))


def tally_warband(setup: WarbandSetup, out: dict) -> dict:
    """Additive reduction of a segment's battles (``core.results.add_tallies``)."""
    d = out["duel_result"]
    return {"outcome": np.bincount(out["outcome"].astype(np.int64), minlength=4),
            **{f"{col}_hist": histogram(out[col]) for _, col in _MEANS},
            "general_melee": np.array([int(out["general_melee"].sum())]),
            "duel_result": np.array([int((d == code).sum()) for code in (0, 1, 2)])}


def summarize_warband(setup: WarbandSetup, t: dict, n: int) -> dict:
    """p_a_win, p_b_win, p_draw, p_truncated (fractions of all n, Wilson 95 %) and means with
    normal 95 % intervals; scenario runs add p_general_melee and the duel's results."""
    s = {"n": n}
    for key, code in (("p_a_win", 0), ("p_b_win", 1), ("p_draw", 2), ("p_truncated", 3)):
        put_fraction(s, key, int(t["outcome"][code]), n)
    for key, col in _MEANS:
        put_mean_hist(s, key, t[f"{col}_hist"])
    if setup.wrules.scenario:
        put_fraction(s, "p_general_melee", int(t["general_melee"][0]), n)
        for key, k in (("p_duel_a", 0), ("p_duel_b", 1), ("p_duel_both", 2)):
            put_fraction(s, key, int(t["duel_result"][k]), n)
    s["a"], s["b"] = setup.names
    s["policies"] = list(setup.policies)
    return s


def summary_warband(setup: WarbandSetup, out: dict) -> dict:
    return summarize_warband(setup, tally_warband(setup, out), len(out["outcome"]))


def trace_warband(setup: WarbandSetup, seed: int) -> str:
    """Battle 0 of ``seed`` told turn by turn (the reference engine, same dice)."""
    from vikingsim.games.ravenfeast.warband_reference import trace_warband as _trace

    return _trace(setup, seed)
