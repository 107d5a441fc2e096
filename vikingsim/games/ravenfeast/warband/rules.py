"""Ravenfeast warband and scenario rules (rules notes ravenfeast.md §12.6, §10.7): the frozen
``WarbandRules`` dataclass (the readings only the warband kernel uses; shared ones are in the
package's ``rules.Rules``), and :func:`compile_setup`, which turns two warbands (``warbands.py``),
the two rules objects and the seats' policies into the kernel's arrays (:class:`WarbandSetup`):
the figure table ``fig`` (:class:`FigCol`), the modified Melee and Armor tables ``melt``/``armt``
made once by ``rules.melee_rating`` / ``armor_rating`` (so the kernel holds no rating arithmetic)
and the integer rules vector ``ri`` (:class:`WarbandSlot`).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import rule
from vikingsim.games.ravenfeast.profiles import RATING_MAX, Stat
from vikingsim.games.ravenfeast.rules import (Rules, Stance, armor_rating, check_fields,
                                              melee_rating)
from vikingsim.games.ravenfeast.warband.policies import compile_policies
from vikingsim.games.ravenfeast.warbands import MAX_FIGURES, compile_warband, load_warband

SCENARIOS = ("fight_for_honor",)
RAVEN_SIDES = ("victim_side", "attacker_side")
HERO_BONUS = ("self", "nearby")
END_RULES = ("no_fighters", "no_figures")
THRALL_VICTORY = ("tiebreak", "off")
INITIATIVE = ("rolled", "a_first")
#: Modified Melee per figure: index outnumbered + 2 * wall (§6.2, §8.3).
N_MELEE_CASES = 4
#: Modified Armor per figure against one blow: index wall + 2 * rear + 4 * Mighty attacker.
N_ARMOR_CASES = 8


@dataclass(frozen=True)
class WarbandRules:
    """Rule readings used only by the warband/scenario kernel (shared ones live in ``Rules``).

    Attributes
    ----------
    initiative : {"rolled", "a_first"}
        §3.2 DEFAULT rolled: each turn both sides roll a d6 minus the Leaders and Heroes left in
        their force (alive, a fled Coward included; a Leader-Hero counts twice); the lower total
        acts first in every phase of that turn (the low roller goes first: it never names the
        other side); ties roll again. a_first: side a always acts first (the order before this
        option; no initiative dice), kept to reproduce older results.
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

    initiative: str = rule("rolled", "§3.2 turn order: rolled each turn (d6 - Leaders - Heroes, "
                           "lowest first) or a_first (side a always first)", section="§3.2",
                           choices=INITIATIVE)
    approach_turns: int = rule(1, "§12.6 turns of missile volleys before melee",
                               section="§12.6", lo=0, hi=10)
    approach_last_distance: int = rule(6, "inches of the last approach volley", lo=0, hi=100,
                                       option=False)
    approach_step: int = rule(12, "inches closed per earlier approach turn", lo=0, hi=100,
                              option=False)
    wall_ranks: int = rule(2, "shield-wall depth in ranks (abstraction, §8.3)", section="§8.3",
                           lo=1, hi=8)
    wall_min_figures: int = rule(3, "§8.4 wall breaks below this many figures", section="§8.4",
                                 lo=1, hi=MAX_FIGURES)
    shield_wall_morale_bonus: int = rule(1, "§8.3 Morale bonus in a wall", section="§8.3",
                                         lo=0, hi=5)
    rear_attack_from: int = rule(0, "n-th enemy on a figure attacks from the rear (0=off)",
                                 lo=0, hi=MAX_FIGURES)
    cover_pieces: int = rule(0, "§5.3 cover pieces between shooters and targets",
                             section="§5.3", lo=0, hi=5)
    cover_block_min: int = rule(4, "a cover piece blocks a missile hit on d6 >= this",
                                section="§5.3", lo=1, hi=7, option=False)
    raven_test_side: str = rule("victim_side", "§13.2 who tests for a Raven token",
                                section="§13.2", choices=RAVEN_SIDES)
    raven_token_requires_death: bool = rule(False, "§13.2 marked figure must die",
                                            section="§13.2")
    hero_morale_bonus: str = rule("self", "§13.3 Hero +1 Morale: self or nearby",
                                  section="§13.3", choices=HERO_BONUS)
    leader_shares_morale: bool = rule(True, "§9.3 friends test on a passed Leader's Morale",
                                      section="§9.3")
    rally_uses_leader: bool = rule(False, "§9.5 Cowards rally on the Leader's Morale",
                                   section="§9.5")
    capture_thralls: bool = rule(True, "§10.6 beaten Thralls are captured", section="§10.6")
    geld: int = rule(3, "§10.1 starting Geld per side (re-rolls)", section="§10.1", lo=0,
                     hi=100)
    geld_needs_leader: bool = rule(True, "§10.1 Geld is spent only while the Leader lives",
                                   section="§10.1")
    geld_breaks_ties: bool = rule(False, "§10.1 draws go to the side with more Geld",
                                  section="§10.1")
    end_rule: str = rule("no_fighters", "§12.6 when a side is beaten", section="§12.6",
                         choices=END_RULES)
    thrall_victory: str = rule("tiebreak", "§10.6 Thralls count toward victory: captives held "
                               "decide a draw (tiebreak) or never count (off)", section="§10.6",
                               choices=THRALL_VICTORY)
    scenario: str = rule("", "§10.7 scenario played (mode=scenario; '' = none)",
                         section="§10.7", choices=("",) + SCENARIOS, option=False)
    ffh_jarl_armor: int = rule(3, "§10.7 Fight for Honor Jarl Armor", section="§10.7", lo=0,
                               hi=5)
    ffh_duel_death_ends: bool = rule(True, "§10.7 a Jarl's fall ends the game if no warband "
                                     "fails morale", section="§10.7")

    def __post_init__(self):
        check_fields(self)



class FigCol(IntEnum):
    """Columns of the compiled figure table ``fig`` (int64, shape=(2, MAX_FIGURES, FigCol.N))."""

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


class WarbandSlot(IntEnum):
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
    INITIATIVE = 28       # 1: rolled (§3.2), 0: a_first
    N = 29


class WarbandSetup(NamedTuple):
    """Compiled warband battle (kernel arrays plus what frame/summary/trace need)."""

    rules: Rules
    wrules: WarbandRules
    names: tuple            # (a, b) warband names
    warbands: tuple         # (Warband, Warband)
    policies: tuple         # (label a, label b): the seats' policy texts
    fig: np.ndarray         # int64 (2, MAX_FIGURES, FigCol.N)
    melt: np.ndarray        # int64 (2, MAX_FIGURES, N_MELEE_CASES): [outnumbered + 2*wall]
    armt: np.ndarray        # int64 (2, MAX_FIGURES, N_ARMOR_CASES): [wall + 2*rear + 4*mighty]
    nfig: np.ndarray        # int64 (2,)
    ri: np.ndarray          # int64 (WarbandSlot.N,)
    pol: np.ndarray         # int64 (2, PolicySlot.N)


def rules_vector(rules: Rules, w: WarbandRules) -> np.ndarray:
    """The integer rules vector ``ri`` (int64, shape=(WarbandSlot.N,)) of both rules objects."""
    values = {
        WarbandSlot.MAX_TURNS: rules.max_turns,
        WarbandSlot.APPROACH_TURNS: w.approach_turns,
        WarbandSlot.APPROACH_LAST: w.approach_last_distance,
        WarbandSlot.APPROACH_STEP: w.approach_step,
        WarbandSlot.WALL_RANKS: w.wall_ranks,
        WarbandSlot.WALL_MIN: w.wall_min_figures,
        WarbandSlot.WALL_MORALE: w.shield_wall_morale_bonus,
        WarbandSlot.REAR_FROM: w.rear_attack_from,
        WarbandSlot.COVER: w.cover_pieces,
        WarbandSlot.COVER_BLOCK: w.cover_block_min,
        WarbandSlot.RAVEN_ATTACKER: w.raven_test_side == "attacker_side",
        WarbandSlot.RAVEN_DEATH: w.raven_token_requires_death,
        WarbandSlot.HERO_NEARBY: w.hero_morale_bonus == "nearby",
        WarbandSlot.LEADER_SHARES: w.leader_shares_morale,
        WarbandSlot.RALLY_LEADER: w.rally_uses_leader,
        WarbandSlot.CAPTURE: w.capture_thralls,
        WarbandSlot.GELD_NEEDS_LEADER: w.geld_needs_leader,
        WarbandSlot.GELD_TIEBREAK: w.geld_breaks_ties,
        WarbandSlot.END_FIGURES: w.end_rule == "no_figures",
        WarbandSlot.SCENARIO: w.scenario == "fight_for_honor",
        WarbandSlot.FFH_DEATH_ENDS: w.ffh_duel_death_ends,
        WarbandSlot.FREE_ATTACK: rules.free_attack,
        WarbandSlot.TRIGGER_SIX: rules.free_attack_trigger == "armor_six",
        WarbandSlot.FREE_IN_MISSILE: rules.free_attack_in_missile,
        WarbandSlot.FATED_ARMOR: rules.fated_armor_roll,
        WarbandSlot.CLAMP: rules.rating_clamp,
        WarbandSlot.GELD: w.geld,
        WarbandSlot.THRALL_TIEBREAK: w.thrall_victory == "tiebreak",
        WarbandSlot.INITIATIVE: w.initiative == "rolled",
    }
    ri = np.zeros(WarbandSlot.N, np.int64)
    for slot, v in values.items():
        ri[slot] = int(v)
    return ri


def _figure_row(key: str, r: np.ndarray, thrall: int, points2: int, rules: Rules,
                wrules: WarbandRules) -> tuple:
    """One figure's ``fig`` row, Melee cases and Armor cases from its profile row ``r``."""
    armor = int(r[Stat.ARMOR])
    if wrules.scenario == "fight_for_honor" and key == "jarl":
        armor = wrules.ffh_jarl_armor                 # §10.7 [RF-FfH] Armor-3 Jarls
    morale = int(r[Stat.MORALE])
    if r[Stat.HERO] and wrules.hero_morale_bonus == "self":
        morale = min(morale + 1, RATING_MAX)          # §13.3 DEFAULT self
    melee = int(r[Stat.MELEE])
    row = (r[Stat.ATTACKS], melee_rating(melee, Stance(), rules), r[Stat.WOUNDS], morale,
           r[Stat.MISSILE], r[Stat.RANGE], points2, r[Stat.LEADER], r[Stat.HERO],
           r[Stat.MIGHTY], r[Stat.FATED], r[Stat.FEARLESS], thrall)
    mel = [melee_rating(melee, Stance(outnumbered=bool(k & 1), shield_wall=bool(k & 2)), rules)
           for k in range(N_MELEE_CASES)]             # §6.2 outnumbered, §8.3 wall
    arm = [armor_rating(armor, Stance(shield_wall=bool(k & 1), rear=bool(k & 2)), bool(k & 4),
                        rules) for k in range(N_ARMOR_CASES)]   # §6.2-6.3, §8.3 vs one blow
    return row, mel, arm


def figure_tables(bands: tuple, rules: Rules, wrules: WarbandRules) -> tuple:
    """(fig, melt, armt, nfig) of two warbands: the kernel's per-figure tables."""
    fig = np.zeros((2, MAX_FIGURES, FigCol.N), np.int64)
    melt = np.zeros((2, MAX_FIGURES, N_MELEE_CASES), np.int64)
    armt = np.zeros((2, MAX_FIGURES, N_ARMOR_CASES), np.int64)
    nfig = np.zeros(2, np.int64)
    for s, band in enumerate(bands):
        rows, thrall, points2 = compile_warband(band, tough_reading=rules.tough_reading)
        nfig[s] = rows.shape[0]
        for i in range(rows.shape[0]):
            fig[s, i], melt[s, i], armt[s, i] = _figure_row(
                band.figures[i][0], rows[i], thrall[i], points2[i], rules, wrules)
    return fig, melt, armt, nfig


def compile_setup(wa, wb, rules: Rules = Rules(), wrules: WarbandRules = WarbandRules(),
                  policies=("default", "default")) -> WarbandSetup:
    """Validated Python -> kernel arrays. ``wa``/``wb``: warband specs or Warbands;
    ``policies``: one policy text per seat (``policies.parse_policy``)."""
    bands = (load_warband(wa), load_warband(wb))
    fig, melt, armt, nfig = figure_tables(bands, rules, wrules)
    if wrules.scenario == "fight_for_honor":
        for s in range(2):
            if not fig[s, : nfig[s], FigCol.LEADER].any():   # warbands.make_warband adds one
                raise InputError(f"fight_for_honor needs a Leader in warband {bands[s].name!r}")
    return WarbandSetup(rules=rules, wrules=wrules, names=(bands[0].name, bands[1].name),
                        warbands=bands, policies=tuple(policies), fig=fig, melt=melt, armt=armt,
                        nfig=nfig, ri=rules_vector(rules, wrules),
                        pol=compile_policies(policies))


__all__ = ["END_RULES", "FigCol", "HERO_BONUS", "INITIATIVE", "N_ARMOR_CASES", "N_MELEE_CASES", "RAVEN_SIDES",
           "SCENARIOS", "THRALL_VICTORY", "WarbandRules", "WarbandSetup",
           "WarbandSlot", "compile_setup", "figure_tables", "rules_vector"]
