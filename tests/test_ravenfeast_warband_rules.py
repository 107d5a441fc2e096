"""Ravenfeast warband rules with forced dice (rules notes ravenfeast.md §4-§10, §12.6).

Two layers: the pure ``_resolve_*`` functions of the kernel with dice values passed in, and short
scripted battles on the plain-Python engine (``warband.reference``), whose dice come from a
script; each test also checks how many dice were drawn, so a rule that draws one die too many or
too few fails. The kernel equals the reference bit for bit (test_ravenfeast_warband_reference).
"""
from __future__ import annotations

import pytest

from vikingsim.core.errors import InputError
from vikingsim.games.ravenfeast.rules import Rules
from vikingsim.games.ravenfeast.warband import kernel as wb
from vikingsim.games.ravenfeast.warband.policies import policy_row
from vikingsim.games.ravenfeast.warband.reference import (ACTIVE, CAPTURED, COWARD, DEAD,
                                                          Battle)
from vikingsim.games.ravenfeast.warband.rules import FigCol, compile_setup
from vikingsim.games.ravenfeast.warband.rules import WarbandRules as _WarbandRules
from vikingsim.games.ravenfeast.warbands import load_warband, make_warband


def WarbandRules(**kw):
    """The rules under test with ``initiative`` = a_first (side a acts first in every phase, no
    initiative dice) unless a test says otherwise: the dice scripts below were written for the
    fixed order; the §3.2 rolled initiative has its own tests
    (tests/test_ravenfeast_initiative.py)."""
    return _WarbandRules(**{"initiative": "a_first", **kw})


class Script:
    """A stand-in Generator whose d6 faces are scripted: ``1 + int(random() * 6)`` = face."""

    def __init__(self, faces=()):
        self.faces = list(faces)
        self.used = 0

    def random(self):
        if self.used >= len(self.faces):
            raise AssertionError(f"more dice drawn than scripted ({len(self.faces)})")
        v = self.faces[self.used]
        self.used += 1
        return (v - 0.5) / 6.0


def battle(a, b, faces=(), pols=("default", "default"), rules=None, **wrules):
    wrules.setdefault("approach_turns", 0)
    wrules.setdefault("geld", 0)
    s = compile_setup(a, b, rules or Rules(max_turns=1), WarbandRules(**wrules), pols)
    dice = Script(faces)
    return Battle(s, dice, Script(), log=[]), dice


def band(*entries):
    return make_warband("test", entries)


# ---------------------------------------------------------------- pure resolve functions

def test_a_test_passes_at_or_under_the_rating():                     # §2.2
    assert wb._resolve_test(4, 4) and not wb._resolve_test(5, 4)
    assert not wb._resolve_test(1, 0)                                  # rating 0 always fails


@pytest.mark.parametrize("hit, save, free, expect", [
    (5, 1, 1, (0, 0, False)),      # miss at Melee 4: nothing else counts
    (3, 3, 1, (0, 0, False)),      # hit, saved at Armor 3
    (3, 4, 1, (1, 0, False)),      # hit, Armor roll 4 > 3: a wound
    (1, 6, 4, (2, 1, True)),       # §6.4: hit rolled 1, Armor 6, Free Attack 4 <= 4: 2 wounds + Raven
    (1, 6, 5, (1, 0, True)),       # Free Attack misses: the first wound only
    (1, 5, 1, (1, 0, False)),      # Armor roll 5 fails but is no 6: no Free Attack (armor_six)
])
def test_resolve_attack(hit, save, free, expect):
    assert wb._resolve_attack(hit, save, free, 4, 3, True, True) == expect


def test_free_attack_can_follow_any_failed_save_in_the_failed_save_reading():
    assert wb._resolve_attack(1, 5, 2, 4, 3, True, False) == (2, 1, True)


def test_morale_rating_sharing_wall_bonus_and_cap():                 # §9.1, §9.3, §8.3
    assert wb._resolve_morale_rating(2, 0, 0, 1, 0, True) == 2
    assert wb._resolve_morale_rating(2, 5, 0, 1, 0, True) == 5       # passed Leader's Morale 5
    assert wb._resolve_morale_rating(4, 0, 1, 1, 0, True) == 5       # wall +1
    assert wb._resolve_morale_rating(5, 0, 1, 1, 0, True) == 5       # max 5
    assert wb._resolve_morale_rating(5, 0, 1, 1, 0, False) == 6      # unclamped reading
    assert wb._resolve_morale_rating(3, 0, 0, 1, 1, True) == 4       # §13.3 nearby Hero


def test_wall_front_and_breaking():                                   # §8.3, §8.4
    assert wb._resolve_wall_front(10, 2) == 5 and wb._resolve_wall_front(5, 2) == 3
    assert wb._resolve_wall_holds(3, 3) and not wb._resolve_wall_holds(2, 3)


def test_fifty_percent_means_more_than_half_removed():              # §9.2, §13.5
    assert not wb._resolve_fifty(5, 10) and wb._resolve_fifty(6, 10)
    assert wb._resolve_fifty(2, 3)


def test_removal_at_wound_limit():                                    # §7.1
    assert not wb._resolve_removed(2, 3) and wb._resolve_removed(3, 3)


def test_outcome_and_geld_tie_break():                                # §12.6, §10.1
    # args: fighters 0/1, Thralls held by 0/1, thrall tie-break, Geld 0/1, Geld tie-break
    assert wb._resolve_outcome(1, 1, 0, 0, True, 0, 0, False) == -1
    assert wb._resolve_outcome(2, 0, 0, 0, True, 0, 0, False) == 0
    assert wb._resolve_outcome(0, 1, 0, 0, True, 0, 0, False) == 1
    assert wb._resolve_outcome(0, 0, 0, 0, True, 3, 1, False) == 2
    assert wb._resolve_outcome(0, 0, 0, 0, True, 3, 1, True) == 0
    assert wb._resolve_outcome(0, 0, 0, 0, True, 1, 1, True) == 2


def test_thralls_held_decide_a_tie_before_geld():                     # §10.6, §10.1
    # fighters decide first: holding Thralls never beats a side still fighting
    assert wb._resolve_outcome(0, 1, 5, 0, True, 0, 0, False) == 1
    assert wb._resolve_outcome(0, 0, 2, 1, True, 0, 0, False) == 0     # A holds more
    assert wb._resolve_outcome(0, 0, 0, 1, True, 0, 0, False) == 1     # B holds more
    assert wb._resolve_outcome(0, 0, 1, 2, True, 9, 0, True) == 1      # Thralls before Geld
    assert wb._resolve_outcome(0, 0, 1, 1, True, 9, 0, True) == 0      # equal: Geld decides
    assert wb._resolve_outcome(0, 0, 2, 1, False, 0, 0, False) == 2    # thrall_victory=off


def test_compiled_tables_apply_wall_rear_and_mighty():               # §6.2, §8.3
    s = compile_setup("hirdmen+huskarl", "bondi")
    hird, husk = s.armt[0, 0], s.armt[0, 1]
    # index = wall + 2*rear + 4*mighty attacker
    assert list(hird[:4]) == [3, 5, 2, 2]        # open 3, wall 5, rear 2 (no wall bonus)
    assert hird[4] == 2 and hird[5] == 4         # Mighty attacker: -1 (wall: min(5, 5) - 1)
    assert husk[1] == 5                          # Armor 4 + 2 capped at 5
    assert list(s.melt[0, 0]) == [4, 3, 4, 4]    # outnumbered -1 except in a wall


# ---------------------------------------------------------------- scripted battles

def test_ganged_up_figure_fights_at_minus_one():                    # §6.2, §12.6
    b, dice = battle(band(("hirdmen", 2, None)), band(("hirdmen", 1, None)),
                     faces=[6, 6, 4])                 # A0, A1 miss; B0 rolls 4: misses at Melee 3
    b.play()
    assert dice.used == 3
    assert b.bands[1][0].engaged == 2 and b.bands[0][0].blood == 0


def test_shield_wall_ignores_the_several_enemies_penalty():         # §8.3
    # A: 3 Hirdmen in a one-rank wall (Armor 5); B: 4 Hirdmen, the 4th joins A0's fight.
    faces = [4, 3,          # A0 hits on 4 (no -1 in a wall); B0 saves on 3
             6, 6,          # A1, A2 miss
             6, 6, 6, 6]    # B0..B3 miss
    b, dice = battle(band(("hirdmen", 3, None)), band(("hirdmen", 4, None)), faces,
                     pols=("wall", "default"), wall_ranks=1)
    b.play()
    assert dice.used == 8 and b.wall[0] and b.bands[0][0].engaged == 2


def test_rear_rank_steps_into_the_place_of_the_fallen():           # §8.3
    faces = [6, 6,          # A0, A1 miss
             2, 6,          # B0 hits A0 (roll 2), A0's Armor 5 in the wall fails on 6
             6,             # B1 misses
             1, 1, 1,       # End of Turn: Leader A0 killed: A1..A3 test (Morale 4+1) and pass
             6, 6, 6, 6]    # turn 2: A1, A2 (stepped up), B0, B1 miss
    b, dice = battle(band(("hirdmen", 4, None)), band(("hirdmen", 2, None)), faces,
                     pols=("wall", "default"), rules=Rules(max_turns=2))
    b.play()
    assert dice.used == 12
    a = b.bands[0]
    assert a[0].status == DEAD and b.lines[0] == [a[1], a[2]] and b.front[0] == 2


def test_wall_breaks_below_three_figures():                          # §8.4
    faces = [6, 6, 2, 6, 6, 1, 1]   # A0, A1 miss; B0 wounds A0; B1 misses; A1, A2 test
    b, dice = battle(band(("hirdmen", 3, None)), band(("hirdmen", 2, None)), faces,
                     pols=("wall", "default"))
    b.play()
    assert dice.used == 7 and not b.wall[0]


@pytest.mark.parametrize("side, dice_used", [("victim_side", 8), ("attacker_side", 9)])
def test_raven_token_makes_the_chosen_side_test(side, dice_used):   # §6.4, §13.2
    faces = [1, 6, 4,       # A0: hit on 1, B0's Armor roll 6, Free Attack 4: B0 marked (Raven)
             6, 6, 6,       # A1, B0, B1 miss
             1, 1, 1]       # morale dice
    b, dice = battle(band(("hirdmen", 2, None)), band(("hirdmen", 2, None)), faces,
                     raven_test_side=side)
    b.play()
    # victim_side: B tests twice (Leader killed, Raven): B1 rolls 2 dice.
    # attacker_side: B tests once (Leader killed), A tests once (A0 then A1): 3 dice.
    assert dice.used == dice_used
    assert b.bands[1][0].status == DEAD and b.bands[1][0].blood == 2


def test_leader_and_hero_share_their_morale():                       # §9.3, §13.3
    wb_b = band(("hirdmen", 1, None), ("hirdmen", 1, {"hero": True}), ("bondi", 2, None))
    for shares, fled in ((True, [3]), (False, [2, 3])):
        b, dice = battle("hirdmen", wb_b, faces=[4, 5, 5, 6], leader_shares_morale=shares)
        b.group_test(1)   # Leader 4 <= 4; Hero (4+1) 5 <= 5; Bondi 5 vs 5 or 2; Bondi 6 fails
        assert dice.used == 4
        assert [f.i for f in b.bands[1] if f.status == COWARD] == fled


def test_fearless_figures_never_test():                              # §10.4
    b, dice = battle("hirdmen", band(("hirdmen", 1, None), ("bondi", 1, {"fearless": True})),
                     faces=[1])
    b.group_test(1)
    assert dice.used == 1 and b.bands[1][1].status == ACTIVE


def test_fleeing_figure_takes_free_attacks_from_every_enemy_in_contact():   # §9.4, §4.4
    b, dice = battle(band(("hirdmen", 2, None)), "hirdmen", faces=[6, 6, 6, 4, 5])
    b.melee(duel_only=False)                      # three misses: A0, A1, B0
    b.flee(b.bands[1][0])                         # A0 hits (4 <= 4), A1 misses: no Armor roll
    assert dice.used == 5
    x = b.bands[1][0]
    assert x.status == COWARD and x.blood == 1 and b.fled[1] == 1


def test_surrounded_figure_cannot_flee_and_is_killed():             # §9.4, §4.4
    b, dice = battle(band(("hirdmen", 3, None)), "hirdmen", faces=[6, 6, 6, 6],
                     rear_attack_from=3)
    b.melee(duel_only=False)                      # the third enemy on B0 attacks from the rear
    assert b.bands[1][0].surrounded and b.bands[0][2].rear
    b.flee(b.bands[1][0])                         # no Free Attack dice: killed where it stands
    b.removal()
    assert dice.used == 4 and b.bands[1][0].status == DEAD


def test_rally_pass_returns_fail_removes():                          # §9.5
    b, dice = battle("hirdmen", band(("hirdmen", 3, None)), faces=[4, 5])
    b.bands[1][1].status = COWARD
    b.bands[1][2].status = COWARD
    b.rally()
    assert dice.used == 2
    assert b.bands[1][1].status == ACTIVE and b.bands[1][2].status == DEAD


def test_fated_figure_strikes_as_it_dies():                          # §10.3
    faces = [6,             # A0 misses
             2, 6,          # B0 wounds A0
             3]             # Fated A0 strikes B0 (3 <= 4): no Armor roll; B0 dies too
    b, dice = battle(band(("hirdmen", 1, {"fated": True})), "hirdmen", faces)
    res, turns, _, _ = b.play()
    assert dice.used == 4 and res == 2 and turns == 1   # both sides gone: a draw


def test_thrall_is_captured_and_freed_when_its_captor_falls():      # §10.6
    faces = [2, 6,          # A0 (Melee 3: two Thralls on it) hits B0, Thrall's Armor 1 fails
             6, 6,          # B0, B1 miss
             1]             # B's Leader (B0) taken: B1 tests and passes
    b, dice = battle("hirdmen", band(("thrall", 2, None)), faces)
    b.play()
    t = b.bands[1][0]
    assert dice.used == 5 and t.status == CAPTURED and t.captor is b.bands[0][0]
    b.bands[0][0].blood = 1                       # the captor is beaten
    b.removal()
    assert b.bands[0][0].status == DEAD and t.status == ACTIVE and t.blood == 0


def test_thralls_are_killed_when_capture_is_off():
    b, dice = battle("hirdmen", band(("thrall", 2, None)), [2, 6, 6, 6, 1], capture_thralls=False)
    b.play()
    assert b.bands[1][0].status == DEAD


def test_geld_rerolls_a_failed_morale_test_while_the_leader_lives(): # §10.1
    b, dice = battle("hirdmen", "hirdmen", faces=[6, 2], geld=1)
    b.group_test(1)
    assert dice.used == 2 and b.bands[1][0].status == ACTIVE and b.geld[1] == 0
    b, dice = battle("hirdmen", "hirdmen", faces=[6], geld=1, pols=("default", "no_geld"))
    b.group_test(1)
    assert dice.used == 1 and b.bands[1][0].status == COWARD and b.geld[1] == 1


def test_geld_saves_policy_rerolls_the_leaders_armor():
    faces = [3, 6, 2,       # A0 hits B0 (Leader); Armor 6 fails; Geld re-roll 2 saves
             6]             # B0 misses
    b, dice = battle("hirdmen", "hirdmen", faces, geld=2, pols=("default", "geld_saves"))
    b.melee(duel_only=False)
    assert dice.used == 4 and b.bands[1][0].blood == 0 and b.geld[1] == 1


def test_cautious_leader_disengages_on_its_last_wound():            # §4.4
    b, dice = battle("jarl+hirdmen", band(("hirdmen", 2, None)), faces=[6, 6, 6, 6, 6, 3],
                     pols=("cautious", "default"))
    b.melee(duel_only=False)                      # Jarl 2 attacks, Hirdman, B0, B1: all miss
    b.bands[0][0].blood = 2                       # Jarl (Tough 3) on its last wound
    b.disengage()                                 # B0 in contact strikes: 3 <= 4, a wound
    jarl = b.bands[0][0]
    assert dice.used == 6 and jarl.reserve and jarl.blood == 3


def test_missile_volley_before_melee_spares_the_leader():           # §5.2-5.3, §12.6
    faces = [3, 6,          # archer A0 hits (3 <= Missile 3); target's Armor 2 fails on 6
             6, 6]          # A1, A2 miss (all three shoot at B1: B0 is the Leader)
    b, dice = battle(band(("bondi_archer", 3, None)), band(("hirdmen", 2, None)), faces,
                     approach_turns=1)
    b.missiles(1)
    assert dice.used == 4 and b.bands[1][1].blood == 1 and b.bands[1][0].blood == 0


def test_cover_blocks_missiles_on_four_plus():                       # §5.3
    b, dice = battle("bondi_archer", "hirdmen*2", faces=[1, 4], approach_turns=1,
                     cover_pieces=1)
    b.missiles(1)
    assert dice.used == 2 and b.bands[1][1].blood == 0


def test_fight_for_honor_starts_with_the_jarls_alone():              # §10.7
    s = compile_setup("fight_for_honor", "fight_for_honor", Rules(max_turns=1),
                      WarbandRules(scenario="fight_for_honor", approach_turns=0, geld=0))
    assert s.armt[0, 0, 0] == 3                   # [RF-FfH] Armor-3 Jarls
    dice = Script([6, 6, 6, 6])                   # each Jarl's two attacks miss
    b = Battle(s, dice, Script())
    res, turns, gm, duel = b.play()
    assert dice.used == 4 and res == 3 and gm == 0 and duel == -1


# ---------------------------------------------------------------- warband specs

def test_presets_inline_lists_and_leaders():
    assert len(load_warband("hirdmen10")) == 10
    w = load_warband("jarl+huskarl*2+bondi*5")
    assert len(w) == 8 and w.figures[1] == ("huskarl", {})
    assert load_warband("bondi*3").figures[0][1]["leader"] is True   # §9.3 first figure leads


def test_toml_warband(tmp_path):
    p = tmp_path / "hird.toml"
    p.write_text('name = "hird"\n[[figures]]\ntype = "jarl"\n[[figures]]\ntype = "hirdmen"\n'
                 'count = 3\narmor = 4\nfated = true\n')
    w = load_warband(str(p))
    assert w.name == "hird" and len(w) == 4 and w.figures[3] == ("hirdmen", {"armor": 4, "fated": True})
    s = compile_setup(str(p), "bondi10")
    assert s.fig[0, 3, FigCol.FATED] == 1 and s.armt[0, 3, 0] == 4


@pytest.mark.parametrize("text, msg", [
    ("[[figures]\ntype = 'jarl'", "not valid TOML"),
    ("name = 'x'", "needs at least one"),
    ("[[figures]]\ncount = 2", "has no type"),
    ("[[figures]]\ntype = 'dragon'", "unknown unit type"),
    ("[[figures]]\ntype = 'jarl'\ncount = 2", "2 Leaders"),
    ("[[figures]]\ntype = 'bondi'\ncount = 40", "count=40"),
    ("[[figures]]\ntype = 'bondi'\nspear = true", "unknown key"),
    ("[[figures]]\ntype = 'bondi'\narmor = 9", "armor=9"),
])
def test_bad_toml_is_an_input_error(tmp_path, text, msg):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(InputError, match=msg):
        compile_setup(str(p), "bondi10")


def test_unknown_or_missing_warband_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="unknown warband"):
        load_warband("vikings99")
    with pytest.raises(InputError, match="cannot read"):
        load_warband(str(tmp_path / "nope.toml"))


def test_bad_policy_is_an_input_error():
    with pytest.raises(InputError, match="unknown warband policy"):
        policy_row("berserk")
    assert list(policy_row("wall+leader_hunt+cautious")) == [1, 2, 1, 1]
