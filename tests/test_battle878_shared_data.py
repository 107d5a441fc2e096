"""battle878 data that the kernel, the reference and the exact solver all read from one place
(``rules.py``: the ``Rules`` defaults and tables, ``rules_from_options``, ``berserker_rule_on``),
so no kernel-vs-reference or exact-vs-Monte-Carlo test can see a mistake in it.

Every expected value here is typed by hand from the rules notes (878 §x) or the seed (SEED §x),
never imported from the code, and each table is checked in the form each engine reads it: the
``Rules`` strings (the reference), ``Rules.compile()`` arrays (the kernel) and
``exact.spec_from_rules`` probabilities (the exact solver).
"""
import numpy as np
import pytest

from vikingsim.games.battle878 import OPTIONS, exact
from vikingsim.games.battle878.reference import Battle
from vikingsim.games.battle878.rules import Face, RuleSlot, Rules, rules_from_options

# 878 §2.2 face table: (Hit, Flee, Command, Blank) faces of the d6, and max dice (878 §4.3)
FACES_878_2_2 = {"N": (3, 1, 2, 0), "B": (4, 0, 2, 0), "H": (3, 1, 2, 0), "T": (2, 2, 2, 0),
                 "F": (2, 3, 0, 1)}
MAX_DICE_878_4_3 = {"N": 3, "B": 2, "H": 2, "T": 3, "F": 2}
DIE_ORDER = "NBHTF"          # rules.Die order
# the d6 value -> face layout the forced-dice tests script against (test_battle878_rules.py):
# N/H 1-3 Hit, 4 Flee, 5-6 Command; B 1-4 Hit, 5-6 Command; T 1-2 Hit, 3-4 Flee, 5-6 Command;
# F 1-2 Hit, 3-5 Flee, 6 Blank
LAYOUT = {"N": "HHHFCC", "B": "HHHHCC", "H": "HHHFCC", "T": "HHFFCC", "F": "HHFFFB"}


def _counts(letters):
    return tuple(letters.count(c) for c in "HFCB")


def test_face_table_as_the_reference_reads_it():
    r = Rules()
    for i, die in enumerate(DIE_ORDER):
        assert _counts(r.faces[i]) == FACES_878_2_2[die], die
        assert r.faces[i] == LAYOUT[die], die
    b = Battle(r, ["default", "default"], None, None)
    assert b.face[0] == ["hit", "hit", "hit", "flee", "cmd", "cmd"]       # Norsemen
    assert b.face[4] == ["hit", "hit", "flee", "flee", "flee", "blank"]   # Fyrd


def test_face_table_as_the_kernel_reads_it():
    c = Rules().compile()
    assert c.faces.shape == (5, 6)
    for i, die in enumerate(DIE_ORDER):
        row = list(c.faces[i])
        got = tuple(row.count(int(f)) for f in (Face.HIT, Face.FLEE, Face.COMMAND, Face.BLANK))
        assert got == FACES_878_2_2[die], die
        assert "".join(Face(v).name[0] for v in row) == LAYOUT[die], die
        # what the rolls count: Hit + (Flee << 16) + (Command << 32) per face, so a die adds
        # exactly one to one count (or none for a Blank)
        want = [{"H": 1, "F": 1 << 16, "C": 1 << 32, "B": 0}[ch] for ch in LAYOUT[die]]
        assert list(c.face_pack[i]) == want, die
        assert c.phit[i] == FACES_878_2_2[die][0] / 6.0, die      # the policies' Hit chance
    # unit slot -> die: N, B, H, T, Fyrd, and the Viking-side Fyrd (Arm Ring) roll Fyrd dice
    assert list(c.unit_die) == [0, 1, 2, 3, 4, 4]


def test_face_table_as_the_exact_solver_reads_it():
    spec = exact.spec_from_rules(Rules())
    for i, die in enumerate(DIE_ORDER):
        np.testing.assert_allclose(spec.faces[i], np.array(FACES_878_2_2[die]) / 6.0,
                                   rtol=0, atol=1e-15, err_msg=die)


def test_max_dice_in_every_engine():
    want = [MAX_DICE_878_4_3[d] for d in DIE_ORDER]
    assert list(Rules().max_dice) == want
    assert list(Rules().compile().max_dice) == want
    assert list(exact.spec_from_rules(Rules()).max_dice) == want
    assert [Rules().max_dice_of(d) for d in DIE_ORDER] == want


def test_runes_and_prayer_dice_faces():
    r = Rules()
    # SEED §4.3: each Runes die has 4 Runes and 2 Conversion faces
    assert sorted(r.runes_faces) == sorted("RRRRCC")
    # SEED §4.4: each Prayer die has 1 Martyrdom, 2 Conversion and 3 Faith faces
    assert sorted(r.prayer_faces) == sorted("MCCFFF")
    c = r.compile()
    # kernel codes (rules.RuneFace): RUNE 0, CONVERSION 1, MARTYRDOM 2, FAITH 3
    assert sorted(c.rune_faces.tolist()) == [0, 0, 0, 0, 1, 1]
    assert sorted(c.prayer_faces.tolist()) == [1, 1, 2, 3, 3, 3]


def test_fyrd_cards():
    # 878 §2.5: 16 Fyrd cards, four each of 2, 3, 4 and 5 Fyrd
    want = [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4
    assert sorted(Rules().fyrd_cards) == want
    assert sorted(Rules().compile().fyrd_cards.tolist()) == want


def test_rule_numbers_from_the_seed():
    r = Rules()
    assert (r.runes_dice, r.prayer_dice) == (4, 4)                       # SEED §4.1
    assert (r.omens_cost, r.battle_rage_cost, r.ragnarok_cost) == (1, 2, 3)     # SEED §4.3
    assert (r.defend_faith_cost, r.convert_cost, r.gods_peace_cost) == (3, 2, 3)  # SEED §4.4
    assert r.fort_hits == 1                                              # SEED §1.4
    assert (r.reinforcements_units, r.reinforcements_fyrd) == (4, 4)     # SEED §7.3
    assert r.valhalla_deaths == 8                                        # SEED §6.2


def test_default_readings_of_the_notes():
    r = Rules()
    assert r.first_roller == "defender"                                  # 878 §4.2
    assert r.berserker_first_hit is True and r.seidr is False            # 878 §2.4, §4.6
    assert r.berserker_first_hit_scope == "first_english_roll"           # 878 §4.6
    assert r.faith_counts_ignored_flee is False                          # 878 §6.8
    assert r.epic_card == "none" and r.epic_deck == 0                    # 878 §4.14: off
    assert not (r.ragnar or r.northumbria or r.fort or r.settlement or r.runes_prayer)
    # assumptions (flagged in the option help): the armies, the Reserve Pile, Æthelred's
    # faction, Fyrd and Command moves, Martyrdom under Foul Weather
    assert (r.norsemen, r.berserkers, r.housecarls, r.thegns, r.fyrd) == (6, 2, 3, 4, 0)
    assert r.reserve_berserkers == 8 and r.reform_unit == "auto"
    assert r.command_moves_fyrd is False and r.martyrdom_blocks_bank is True


@pytest.mark.parametrize("first_hit, seidr, on", [(True, False, True), (True, True, False),
                                                  (False, False, False), (False, True, False)])
def test_berserker_rule_on_truth_table(first_hit, seidr, on):
    # base rule 4.5 applies unless switched off, or Seidr is in the shire (SEED §5.4)
    r = Rules(berserker_first_hit=first_hit, seidr=seidr)
    assert r.berserker_rule_on is on
    assert r.compile().ints[RuleSlot.BERSERKER_FIRST_HIT] == int(on)      # what the kernel reads


@pytest.mark.parametrize("k, faces", [(1, "HHHHCF"), (2, "HHHHFF"), (3, "HHHFFF"),
                                      (6, "FFFFFF")])
def test_berserker_flee_faces_option(k, faces):
    # 878 §6.1: k Command faces become Flee faces first, then Hit faces
    assert rules_from_options({"berserker_flee_faces": k}).faces[1] == faces


def test_face_and_max_dice_overrides():
    r = rules_from_options({"faces": "T=HHHFCB", "max_dice": "N=4,T=2"})
    assert r.faces == ("HHHFCC", "HHHHCC", "HHHFCC", "HHHFCB", "HHFFFB")
    assert r.max_dice == (4, 2, 2, 2, 2)


def test_option_defaults_equal_rules_defaults():
    r = Rules()
    for o in OPTIONS:
        if o.name in ("faces", "max_dice"):       # strings parsed into the tables above
            assert o.default == ""
        elif hasattr(r, o.name):
            assert getattr(r, o.name) == o.default, o.name
