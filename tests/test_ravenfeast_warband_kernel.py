"""Ravenfeast warband rules with forced dice on the kernel's own code (rules notes ravenfeast.md
§9.4, §10.6, §10.7, §12.6), each battle also played by the plain-Python reference on the same
script.

The kernel module is loaded as plain Python (``core.testing.plain_module``: every ``@jit``
function left uncompiled) and its battle loop ``_battle`` is driven with ``ScriptedDice``; every
test checks how many dice were drawn, so a rule that draws one die too many or too few fails.
``test_jit_off_equals_jit_on`` (test_ravenfeast_warband_reference) ties this plain copy to the
compiled kernel.
"""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.testing import ScriptedDice, ScriptedUniform, plain_module
from vikingsim.games.ravenfeast.rules import Rules
from vikingsim.games.ravenfeast.warband import Status, WarbandRules, compile_setup
from vikingsim.games.ravenfeast.warband_reference import CAPTURED, COWARD, DEAD, Battle

K = plain_module("vikingsim.games.ravenfeast.warband")     # the kernel's code as plain Python
A_WIN, B_WIN, DRAW, TRUNCATED = 0, 1, 2, 3


def kernel_battle(s, faces):
    """One battle of setup ``s`` by the kernel's ``_battle`` with scripted dice; returns
    ((outcome, turns, general_melee, duel_result), dice, per-figure state ``st``)."""
    maxf = s.fig.shape[1]
    st = np.zeros((2, maxf, int(K.S.N)), np.int64)
    sd = np.zeros((2, int(K.D.N)), np.int64)
    line = np.zeros((2, maxf), np.int64)
    cand = np.zeros(maxf, np.int64)
    dice = ScriptedDice(faces)
    res = K._battle(s.fig, s.melt, s.armt, s.nfig, s.ri, s.pol, st, sd, line, cand, dice,
                    ScriptedUniform([]))
    return tuple(int(v) for v in res), dice, st


def reference_battle(s, faces):
    dice = ScriptedDice(faces)
    b = Battle(s, dice, ScriptedUniform([]))
    return tuple(int(v) for v in b.play()), dice, b


def status(st, side, i):
    return Status(int(st[side, i, K.S.STATUS]))


# ---------------------------------------------------------------- §10.6 Thralls and victory

# Hirdmen A0 (Leader), A1 against Thralls B0 (Leader), B1; one melee turn ends the battle.
THRALL_FACES = [2, 6,      # A0 hits B0 (2 <= Melee 4), Thrall's Armor 1 fails on 6: B0 wounded
                2, 5,      # A1 hits B1, Armor roll 5 > 1: B1 wounded
                2, 5,      # B0 (Melee 2) hits A0 on 2, A0's Armor 3 fails on 5: A0 wounded
                6,         # B1 misses
                # End of Turn: A0 and B0 killed (B0's captor A0 falls with it, so B0 dies);
                # B1 is captured by A1. A tests for its Leader: A1 rolls 6 > Morale 4 and flees
                # (no enemy left in contact: no Free Attack dice); B has nobody to test.
                6]


@pytest.mark.parametrize("reading, want", [("tiebreak", A_WIN), ("off", DRAW)])
def test_thralls_held_decide_a_battle_where_both_sides_run_out_of_fighters(reading, want):
    # §12.6: neither side has a figure able to fight (A1 fled, B1 is held) - a tie. §10.6
    # DEFAULT tiebreak: A holds one Thrall, B none, so A wins; with "off" it is a draw.
    s = compile_setup("hirdmen*2", "thrall*2", Rules(max_turns=3),
                      WarbandRules(approach_turns=0, geld=0, thrall_victory=reading))
    res, dice, st = kernel_battle(s, THRALL_FACES)
    assert res == (want, 1, 1, -1) and dice.left == 0
    assert status(st, 0, 1) == Status.COWARD and status(st, 1, 1) == Status.CAPTURED
    assert status(st, 0, 0) == Status.DEAD and status(st, 1, 0) == Status.DEAD
    ref, rdice, b = reference_battle(s, THRALL_FACES)
    assert ref == res and rdice.left == 0
    assert b.bands[0][1].status == COWARD and b.bands[1][1].status == CAPTURED


def test_thrall_tiebreak_comes_before_geld():                          # §10.6 then §10.1
    # Same battle, both sides keep their 3 Geld unspent (no_geld), Geld breaks ties: equal
    # Geld, so the Thrall decides; without it, equal Geld leaves a draw.
    for reading, want in (("tiebreak", A_WIN), ("off", DRAW)):
        s = compile_setup("hirdmen*2", "thrall*2", Rules(max_turns=3),
                          WarbandRules(approach_turns=0, geld=3, geld_breaks_ties=True,
                                       thrall_victory=reading), ("no_geld", "no_geld"))
        res, dice, _ = kernel_battle(s, THRALL_FACES)
        assert res[0] == want and dice.left == 0
        assert reference_battle(s, THRALL_FACES)[0] == res


# ---------------------------------------------------------------- §10.7 Fight for Honor

FFH = dict(scenario="fight_for_honor", approach_turns=0, geld=0)


def test_fight_for_honor_a_morale_failure_starts_the_general_melee():
    # Jarl A0 + Hirdman A1 against Jarl B0 + Hirdman B1; Jarls have Armor 3 ([RF-FfH]), 2
    # against the other (Mighty) Jarl.
    faces = [1, 6, 3,      # turn 1, only the Jarls fight: A0 hits on 1, B0's Armor roll 6 > 2
                           #   triggers the §6.4 Free Attack, 3 <= 5 hits: 2 wounds, Raven token
             6,            # A0's second attack misses
             6, 6,         # B0's two attacks miss
             5, 6,         # End of Turn, Raven: B tests; Jarl B0 passes (5 <= 5), B1 on the
                           #   shared 5 rolls 6 and flees: a warband fails morale -> melee
             4,            # turn 2 Rally: B1 rallies (4 <= 4)
             6, 6,         # general melee: A0 misses B0 twice
             2, 5,         # A1 (now fighting) hits B1 on 2; B1's Armor 3 fails on 5
             6, 6, 6]      # B0 misses twice, B1 misses; End of Turn: B1 removed; turn cap
    s = compile_setup("jarl+hirdmen", "jarl+hirdmen", Rules(max_turns=2), WarbandRules(**FFH))
    res, dice, st = kernel_battle(s, faces)
    assert res == (TRUNCATED, 2, 1, -1) and dice.left == 0          # general_melee = 1
    assert status(st, 1, 1) == Status.DEAD and int(st[1, 0, K.S.BLOOD]) == 2
    ref, rdice, b = reference_battle(s, faces)
    assert ref == res and rdice.left == 0 and b.bands[1][1].status == DEAD


def test_fight_for_honor_stays_a_duel_while_no_warband_breaks():
    # The same turn 1 but B1 passes (1): no morale failure, no Jarl down - the duel goes on and
    # in turn 2 the Hirdmen still stand aside (only the Jarls' 2 + 2 attack dice).
    faces = [1, 6, 3, 6, 6, 6, 5, 1,
             6, 6, 6, 6]                                   # turn 2: the Jarls miss
    s = compile_setup("jarl+hirdmen", "jarl+hirdmen", Rules(max_turns=2), WarbandRules(**FFH))
    res, dice, _ = kernel_battle(s, faces)
    assert res == (TRUNCATED, 2, 0, -1) and dice.left == 0
    assert reference_battle(s, faces)[0] == res


@pytest.mark.parametrize("death_ends, want", [(True, (A_WIN, 1, 0, 0)),
                                              (False, (TRUNCATED, 1, 1, 0))])
def test_fight_for_honor_jarl_falls_and_no_one_flees(death_ends, want):
    # A0 kills B0 (3 wounds) in turn 1: 2 wounds from a Free Attack, then a plain wound.
    faces = [1, 6, 3,      # hit 1, Armor roll 6, Free Attack 3: 2 wounds + Raven
             2, 5,         # hit 2, Armor roll 5 > 2: third wound, Jarl B0 removed
             6, 6,         # B0's attacks (it still strikes this turn, §3.4) miss
             1, 1]         # B1 tests twice (Leader killed, Raven) and passes both
    s = compile_setup("jarl+hirdmen", "jarl+hirdmen", Rules(max_turns=1),
                      WarbandRules(ffh_duel_death_ends=death_ends, **FFH))
    res, dice, _ = kernel_battle(s, faces)
    # ffh_duel_death_ends (DEFAULT): the duel decides the game; else the general melee starts
    assert res == want and dice.left == 0
    assert reference_battle(s, faces)[0] == res


# ---------------------------------------------------------------- §9.4 surrounded figures

def test_surrounded_figure_that_fails_morale_is_killed_not_fled():
    # Three Hirdmen on one Jarl; with rear_attack_from=3 the third attacks from the rear, so
    # the Jarl is engaged front and rear (surrounded, §4.4, §9.4).
    faces = [1, 6, 4,      # A0 hits on 1, the Jarl's Armor 4 fails on 6, Free Attack 4 <= 4:
                           #   2 wounds and a Raven token
             6, 6,         # A1, A2 miss
             6, 6,         # the Jarl (Melee 5 - 1, several enemies) misses twice
             6]            # End of Turn, Raven: the Jarl tests (Morale 5) and fails: it cannot
                           #   flee, so it is killed where it stands - no Free Attack dice
    s = compile_setup("hirdmen*3", "jarl", Rules(max_turns=1),
                      WarbandRules(approach_turns=0, geld=0, rear_attack_from=3))
    res, dice, st = kernel_battle(s, faces)
    assert res == (A_WIN, 1, 1, -1) and dice.left == 0
    assert status(st, 1, 0) == Status.DEAD and int(st[1, 0, K.S.SURR]) == 1
    ref, rdice, b = reference_battle(s, faces)
    assert ref == res and rdice.left == 0 and b.bands[1][0].status == DEAD


def test_unsurrounded_figure_that_fails_morale_flees_past_free_attacks():
    # Control for the test above: without the rear reading the Jarl flees, and each of the
    # three Hirdmen in contact gets a Free Attack (d6 <= Melee 4, no Armor roll).
    faces = [1, 6, 4, 6, 6, 6, 6, 6,
             4, 5, 6]      # Free Attacks: A0 hits (4), A1 and A2 miss: 3rd wound, removed
    s = compile_setup("hirdmen*3", "jarl", Rules(max_turns=1),
                      WarbandRules(approach_turns=0, geld=0))
    res, dice, st = kernel_battle(s, faces)
    assert res == (A_WIN, 1, 1, -1) and dice.left == 0 and status(st, 1, 0) == Status.DEAD
    assert reference_battle(s, faces)[0] == res
