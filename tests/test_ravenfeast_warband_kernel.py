"""Ravenfeast warband rules with forced dice on the kernel's own code (rules notes ravenfeast.md
§4.4, §5, §6.2, §8.3, §9, §10.1, §10.3-§10.7, §12.6), each battle also played by the plain-Python
reference on the same script.

The kernel module is loaded as plain Python (``core.testing.plain_module``: every ``@jit``
function left uncompiled) and its battle loop ``_battle`` is driven with ``ScriptedDice``; every
test checks how many dice were drawn, so a rule that draws one die too many or too few fails.
``test_jit_off_plays_the_same_games_as_jit_on`` (tests/test_contract_jit.py) ties this plain
copy to the compiled kernel.
"""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.testing import ScriptedDice, ScriptedUniform, plain_module
from vikingsim.games.ravenfeast.rules import Rules
from vikingsim.games.ravenfeast.warband.kernel import Status
from vikingsim.games.ravenfeast.warband.reference import ACTIVE, CAPTURED, COWARD, DEAD, Battle
from vikingsim.games.ravenfeast.warband.rules import compile_setup
from vikingsim.games.ravenfeast.warband.rules import WarbandRules as _WarbandRules
from vikingsim.games.ravenfeast.warbands import make_warband


def WarbandRules(**kw):
    """The rules under test with ``initiative`` = a_first (side a acts first in every phase, no
    initiative dice) unless a test says otherwise: the dice scripts below were written for the
    fixed order; the §3.2 rolled initiative has its own tests
    (tests/test_ravenfeast_initiative.py)."""
    return _WarbandRules(**{"initiative": "a_first", **kw})

K = plain_module("vikingsim.games.ravenfeast.warband.kernel")   # the kernel's code as plain Python
A_WIN, B_WIN, DRAW, TRUNCATED = 0, 1, 2, 3


def kernel_run(s, faces):
    """One battle of setup ``s`` by the kernel's ``_battle`` with scripted dice; returns
    ((outcome, turns, general_melee, duel_result), dice, per-figure state ``st``, per-side
    state ``sd``)."""
    maxf = s.fig.shape[1]
    st = np.zeros((2, maxf, int(K.FigState.N)), np.int64)
    sd = np.zeros((2, int(K.SideState.N)), np.int64)
    line = np.zeros((2, maxf), np.int64)
    cand = np.zeros(maxf, np.int64)
    dice = ScriptedDice(faces)
    res = K._battle(s.fig, s.melt, s.armt, s.nfig, s.ri, s.pol, st, sd, line, cand, dice,
                    ScriptedUniform([]))
    return tuple(int(v) for v in res), dice, st, sd


def kernel_battle(s, faces):
    """As ``kernel_run`` without ``sd``."""
    res, dice, st, _ = kernel_run(s, faces)
    return res, dice, st


def reference_battle(s, faces):
    dice = ScriptedDice(faces)
    b = Battle(s, dice, ScriptedUniform([]))
    return tuple(int(v) for v in b.play()), dice, b


def status(st, side, i):
    return Status(int(st[side, i, K.FigState.STATUS]))


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
    assert status(st, 1, 1) == Status.DEAD and int(st[1, 0, K.FigState.BLOOD]) == 2
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
    assert status(st, 1, 0) == Status.DEAD and int(st[1, 0, K.FigState.SURR]) == 1
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


# ---------------------------------------------------------------- one rule per battle, both engines
# Each battle below runs the same script through the kernel's ``_battle`` and the reference;
# both must use every die, agree on the result and match the hand-worked statuses. Profiles
# (§12.2 DEFAULT): Hirdmen 1 attack, Melee 4, Armor 3, Morale 4; Bondi 1, 3, 2, 2; Jarl 2
# attacks, Melee 5, Armor 4, Morale 5, Tough (3), Mighty; Bondi archer as Bondi with a bow
# (Missile 3, 18").


def both(s, faces):
    """Kernel and reference on one script: same result, every die used by each."""
    res, dice, st, sd = kernel_run(s, faces)
    ref, rdice, b = reference_battle(s, faces)
    assert dice.left == 0 and rdice.left == 0, (dice.left, rdice.left)
    assert ref == res
    return res, st, sd, b


def setup(a, b, turns=1, pols=("default", "default"), **wrules):
    wrules.setdefault("approach_turns", 0)
    wrules.setdefault("geld", 0)
    return compile_setup(a, b, Rules(max_turns=turns), WarbandRules(**wrules), pols)


def band(*entries):
    return make_warband("test", entries)


REF_STATUS = {Status.ACTIVE: ACTIVE, Status.COWARD: COWARD, Status.DEAD: DEAD,
              Status.CAPTURED: CAPTURED}                 # the reference's status names


# turn 1 of 3 Hirdmen a side, pairs A0-B0, A1-B1, A2-B2: A0 kills B's Leader B0 with a §6.4
# Free Attack (hit 1, Armor roll 6, Free Attack 4: 2 wounds and a Raven token); all else misses.
KILL_B0_WITH_A_RAVEN = [1, 6, 4, 6, 6, 6, 6, 6]


@pytest.mark.parametrize("rally_die, b1_status", [(4, Status.ACTIVE), (5, Status.DEAD)])
def test_leader_killed_and_raven_token_each_make_the_warband_test_then_the_coward_rallies(
        rally_die, b1_status):
    # End of Turn 1 (§9.2): B tests twice, once for its killed Leader and once for the Raven
    # token (§6.4, §13.2 victim_side). Test 1: B1 rolls 6 > Morale 4 and flees (§9.4): A1, in
    # contact, gets a Free Attack (6, a miss); B2 rolls 1. Test 2: the Coward B1 does not
    # test; B2 rolls 1.
    # Turn 2 Rally (§9.5): B1 rolls 4 <= 4 and fights again, or 5 and is removed as killed.
    #   rallied: A0-B1, A1-B2, A2 joins B1 (focus: first of equals); 5 misses.
    #   removed: A0, A1, A2 all on B2; 4 misses; End of Turn: 2 of 3 removed, past 50 %
    #   (§9.2, §13.5): B2 tests once and passes (1).
    end_of_turn_1 = [6, 6, 1, 1]
    turn_2 = [4, 6, 6, 6, 6, 6] if rally_die == 4 else [5, 6, 6, 6, 6, 1]
    s = setup("hirdmen*3", "hirdmen*3", turns=2)
    res, st, sd, b = both(s, KILL_B0_WITH_A_RAVEN + end_of_turn_1 + turn_2)
    assert res == (TRUNCATED, 2, 1, -1)
    assert [status(st, 1, i) for i in range(3)] == [Status.DEAD, b1_status, Status.ACTIVE]
    assert [f.status for f in b.bands[1]] == [DEAD, REF_STATUS[b1_status], ACTIVE]
    assert int(st[1, 1, K.FigState.BLOOD]) == 0 and int(sd[1, K.SideState.FIFTY]) == (rally_die == 5)


@pytest.mark.parametrize("n, tests", [(3, 1), (4, 0)])
def test_fifty_percent_test_needs_more_than_half_removed(n, tests):
    # n Hirdmen a side; A1 and A2 wound B1 and B2 (hit 2, Armor roll 5 > 3); all else misses.
    # 2 of 3 removed is past half: B tests once (Leader B0 rolls 1); 2 of 4 is not (§9.2, §13.5).
    faces = [6, 2, 5, 2, 5] + [6] * (n - 3) + [6] * n + [1] * tests
    s = setup(f"hirdmen*{n}", f"hirdmen*{n}")
    res, st, sd, b = both(s, faces)
    assert res == (TRUNCATED, 1, 1, -1)
    assert status(st, 1, 1) == status(st, 1, 2) == Status.DEAD
    assert int(sd[1, K.SideState.FIFTY]) == tests and b.fifty[1] == bool(tests)


@pytest.mark.parametrize("pols, b0_status, geld_left", [
    (("default", "default"), Status.ACTIVE, 0), (("default", "no_geld"), Status.DEAD, 1)])
def test_geld_rerolls_a_failed_morale_test_in_both_engines(pols, b0_status, geld_left):
    # One Geld a side (§10.1). A1 kills B1 with a Free Attack (1, 6, 4): a Raven token, B
    # tests once. Leader B0 rolls 6 > 4: with Geld (DEFAULT geld_morale, Leader alive) it
    # re-rolls, 2, passes and shares Morale 4; B2 rolls 1. With no_geld the 6 stands: B0 flees,
    # A0's Free Attack (2 <= 4) wounds it, B2 rolls 1, and the fled B0 is removed.
    faces = [6, 1, 6, 4, 6, 6, 6, 6] + [6, 2, 1]
    s = setup("hirdmen*3", "hirdmen*3", pols=pols, geld=1)
    res, st, sd, b = both(s, faces)
    assert res == (TRUNCATED, 1, 1, -1)
    assert status(st, 1, 0) == b0_status and b.bands[1][0].status == REF_STATUS[b0_status]
    assert int(sd[1, K.SideState.GELD]) == geld_left and b.geld[1] == geld_left


def test_geld_saves_policy_rerolls_the_leaders_armor_in_both_engines():
    # A0 hits Leader B0 (3); its Armor roll 6 fails; geld_saves re-rolls it: 2 <= 3, saved
    # (§10.1). B0 misses (6). Nothing is removed.
    s = setup("hirdmen", "hirdmen", pols=("default", "geld_saves"), geld=2)
    res, st, sd, b = both(s, [3, 6, 2, 6])
    assert res == (TRUNCATED, 1, 1, -1)
    assert int(st[1, 0, K.FigState.BLOOD]) == 0 and int(sd[1, K.SideState.GELD]) == 1 and b.geld[1] == 1


def test_fearless_figure_does_not_test_when_its_leader_falls():
    # A0 wounds Leader B0 (2, Armor roll 5 > 3); the rest miss. B tests for its Leader, but
    # the only figure left is a Fearless Bondi (§10.4): no morale die at all.
    s = setup("hirdmen*2", band(("hirdmen", 1, None), ("bondi", 1, {"fearless": True})))
    res, st, _, b = both(s, [2, 5, 6, 6, 6])
    assert res == (TRUNCATED, 1, 1, -1)
    assert status(st, 1, 1) == Status.ACTIVE and b.bands[1][1].status == ACTIVE


def test_fated_figure_strikes_as_it_dies_in_both_engines():
    # A0 (Fated) misses (6); B0 wounds it (2, Armor roll 6). End of Turn: A0 is removed and
    # strikes B0, in contact, once: 3 <= Melee 4, no Armor roll (§10.3, fated_armor_roll
    # DEFAULT false): B0 is removed too. Nobody is left: a draw.
    s = setup(band(("hirdmen", 1, {"fated": True})), "hirdmen")
    res, st, _, _ = both(s, [6, 2, 6, 3])
    assert res == (DRAW, 1, 1, -1)
    assert status(st, 0, 0) == status(st, 1, 0) == Status.DEAD


def test_missile_volley_hits_on_missile_and_spares_the_leader_in_both_engines():
    # One approach turn (§12.6): three Bondi archers shoot at 6" (bow range 18"). Leader B0 is
    # not a target while B1 stands (§5.2): all three shoot at B1. A0 hits (3 <= Missile 3),
    # B1's Armor roll 6 > 3: a wound; A1 and A2 miss (6). End of Turn: B1 is removed.
    s = setup("bondi_archer*3", "hirdmen*2", approach_turns=1)
    res, st, _, b = both(s, [3, 6, 6, 6])
    assert res == (TRUNCATED, 1, 1, -1)
    assert status(st, 1, 1) == Status.DEAD and int(st[1, 0, K.FigState.BLOOD]) == 0
    assert b.bands[1][1].status == DEAD and b.bands[1][0].blood == 0


def test_cover_blocks_a_missile_hit_on_four_in_both_engines():
    # One piece of cover (§5.3): the archer hits (1), the cover die 4 blocks it: no Armor roll.
    s = setup("bondi_archer", "hirdmen*2", approach_turns=1, cover_pieces=1)
    res, st, _, _ = both(s, [1, 4])
    assert res == (TRUNCATED, 1, 1, -1)
    assert int(st[1, 0, K.FigState.BLOOD]) == int(st[1, 1, K.FigState.BLOOD]) == 0


@pytest.mark.parametrize("shares, b3_status", [(True, Status.ACTIVE), (False, Status.COWARD)])
def test_leader_and_hero_share_their_morale_in_both_engines(shares, b3_status):
    # B: Leader Hirdman B0, Hero Hirdman B1 (Morale 4 + 1 = 5, §13.3), Bondi B2, B3. A2 kills
    # B2 with a Free Attack (1, 6, 4): a Raven token, B tests once (§9.2). B0 rolls 4 <= 4;
    # B1 5 <= 5; B3 (Morale 2) rolls 5: with leader_shares_morale (DEFAULT, §9.3) it tests on
    # the Hero's passed 5 and stays; without, 5 > 2: it flees past A3's Free Attack (6, miss).
    wb_b = band(("hirdmen", 1, None), ("hirdmen", 1, {"hero": True}), ("bondi", 2, None))
    faces = [6, 6, 1, 6, 4, 6, 6, 6, 6, 6] + [4, 5, 5] + ([] if shares else [6])
    s = setup("hirdmen*4", wb_b, leader_shares_morale=shares)
    res, st, _, b = both(s, faces)
    assert res == (TRUNCATED, 1, 1, -1)
    assert status(st, 1, 3) == b3_status and b.bands[1][3].status == REF_STATUS[b3_status]


def test_cautious_leader_disengages_past_a_free_attack_in_both_engines():
    # Turn 1: the Jarl A0 (2 attacks) and A1 miss; B0 hits the Jarl (1), Armor roll 6 > 4,
    # Free Attack 3 <= 4: 2 wounds of 3 and a Raven token; B1 misses. A tests (Raven): the Jarl
    # rolls 1, A1 1. Turn 2 Movement (§4.4, policy cautious): the Jarl is on its last wound and
    # steps out of the line; B0, in contact, gets a Free Attack: 3 <= 4, its third wound.
    # Melee: A1 alone against B0 and B1 (A1 at Melee 3), all miss. End of Turn: the Jarl is
    # removed; A tests for its Leader: A1 rolls 1.
    s = setup("jarl+hirdmen", "hirdmen*2", turns=2, pols=("cautious", "default"))
    res, st, _, b = both(s, [6, 6, 6, 1, 6, 3, 6, 1, 1] + [3, 6, 6, 6, 1])
    assert res == (TRUNCATED, 2, 1, -1)
    assert status(st, 0, 0) == Status.DEAD and int(st[0, 0, K.FigState.RESERVE]) == 1
    assert b.bands[0][0].status == DEAD and b.bands[0][0].reserve


def test_ganged_up_figure_fights_at_minus_one_in_both_engines():
    # 2 Hirdmen on 1: B0 is engaged by two enemies (§6.2): Melee 4 - 1 = 3, so its 4 misses.
    s = setup("hirdmen*2", "hirdmen")
    res, st, _, b = both(s, [6, 6, 4])
    assert res == (TRUNCATED, 1, 1, -1)
    assert int(st[1, 0, K.FigState.ENG]) == 2 and int(st[0, 0, K.FigState.BLOOD]) == 0
    assert b.bands[1][0].engaged == 2


def test_shield_wall_adds_one_morale_in_both_engines():
    # A: 3 Hirdmen in a one-rank wall (§8.1). B0 hits Leader A0 (2); Armor 3 + 2 = 5 in the
    # wall, roll 6: removed. A tests for its Leader: A1 and A2 roll 5 <= Morale 4 + 1 (§8.3,
    # §9.1) and stay. Then the wall, two figures, breaks (§8.4).
    s = setup("hirdmen*3", "hirdmen*3", pols=("wall", "default"), wall_ranks=1)
    res, st, sd, b = both(s, [6, 6, 6, 2, 6, 6, 6, 5, 5])
    assert res == (TRUNCATED, 1, 1, -1)
    assert [status(st, 0, i) for i in range(3)] == [Status.DEAD, Status.ACTIVE, Status.ACTIVE]
    assert int(sd[0, K.SideState.WALL]) == 0 and not b.wall[0]


@pytest.mark.parametrize("armor_die, want", [(3, B_WIN), (4, DRAW)])
def test_fated_stroke_allows_an_armor_roll_when_the_reading_says_so(armor_die, want):
    # As above with fated_armor_roll (§10.3 reading): the dying Fated A0 hits B0 (3 <= 4),
    # and B0 rolls Armor (3, not against a Mighty blow): 3 saves, B0 stands and B wins; 4
    # fails, B0 falls too: a draw. Nobody is left to test morale: no more dice.
    s = compile_setup(band(("hirdmen", 1, {"fated": True})), "hirdmen",
                      Rules(max_turns=1, fated_armor_roll=True),
                      WarbandRules(approach_turns=0, geld=0))
    res, st, _, _ = both(s, [6, 2, 6, 3, armor_die])
    assert res == (want, 1, 1, -1)
    assert status(st, 1, 0) == (Status.ACTIVE if want == B_WIN else Status.DEAD)
