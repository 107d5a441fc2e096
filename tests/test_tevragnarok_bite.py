"""Ragnarok tests that bite (issue 18 §5): each checks one rule that a consistent misreading
of kernel, reference and shared data got past the rules tests. Each position is built by hand
(``test_tevragnarok_harness.Pos``) and played by the reference's own method and the kernel's
own function (plain Python); the two must agree, and the values are worked by hand from the
rules notes (``docs/rules/tevragnarok.md``, section in each docstring). Every rule option a
test depends on is set explicitly (``RULES``; the parameter file written out where a key
matters), never taken from a default.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_tevragnarok_harness import K, Pos, card, same
from vikingsim.core.testing import ScriptedUniform
from vikingsim.games.tevragnarok.rules import CardKind

A, B, C = 0, 1, 2                  # Runes; default board runes [A, B, C, A, B, C, A, B]
#: every rule these tests lean on, set explicitly
RULES = dict(params="default", valkyrie_card_condition="per_card", giant_drain=True,
             last_battles="resolve")


def pos_with(tmp_path=None, params_text=None, **opts):
    """A blank position; ``params_text`` is written to a parameter file first."""
    rules = {**RULES, **opts}
    if params_text is not None:
        path = tmp_path / "bite.toml"
        path.write_text(params_text)
        rules["params"] = str(path)
    return Pos(**rules)


def lone_battle(pos, seat, fighter, invader, prize, row=0, end=0):
    """Seat ``seat`` alone in a battle for ``prize`` (taken from that row end) against the
    Invaders, whose card ``invader`` is the top of the deck; resolved by both engines."""
    g = pos.g
    g.rows[row].remove(prize)
    g.battles[seat] = {"prize": prize, "row": row, "end": end,
                       "entries": [(seat, fighter, g.strength(g.players[seat], fighter))]}
    g.deck = [invader]
    pos.sync()
    g.resolve(seat)
    K._resolve(pos.cf, pos.st, seat, np.array(pos.kinds), np.array(pos.params),
               ScriptedUniform([]), pos.kpol)
    return same(pos)


# ---------------------------------------------------------------- §2.5 one fighter wins

@pytest.mark.parametrize("invader_kind, fury", [
    ("base_c", [0, 0, 1]),        # a base card of Rune C: C's god +1
    ("einherjar_b", [0, 1, 0]),   # an Einherjar card has a Rune (B): +1 to B
    ("valkyrie", [0, 0, 0]),      # a Valkyrie card's Rune is a Joker: no god gains
])
def test_a_lone_fighter_who_beats_the_invaders_gives_their_god_fury(invader_kind, fury):
    """§2.5, §4.7: alone against the Invaders, a fighter of Strength 7 (Rune A, no Steel)
    beats the Invader card (a base card of Strength 2; a special card counts
    ``invader_special_strength`` 4; no earlier Invader card, so no growth): the fighter
    takes the Favor card and *the Invader card's god* gains 1 Fury (none for a Joker). No
    unit is on the board, so no control changes add Fury; the fighter's own god gets none."""
    pos = pos_with()
    fighter = card(pos.rules, strength=7, cost=0, rune=A)
    invader = {"base_c": lambda: card(pos.rules, strength=2, rune=C),
               "einherjar_b": lambda: card(pos.rules, kind=CardKind.EINHERJAR, rune=B),
               "valkyrie": lambda: card(pos.rules, kind=CardKind.VALKYRIE)}[invader_kind]()
    v = lone_battle(pos, 0, fighter, invader, prize=0)
    assert v["won"] == [1, 0] and v["lost"] == [0, 0] and v["favors"][0] == [0]
    assert v["fury"] == fury and v["fury_nodrain"] == fury
    assert v["discard"] == [invader, fighter]                  # §4.8: Invader card first


def test_a_lone_fighter_who_loses_to_the_invaders_gives_their_god_none():
    """§2.5: Invaders win (Strength 1 fighter of Rune B against a 7 of Rune C): the prize
    goes back to its row end, the fighter loses: Boon (+2 Food, B's resource) and +1 Fury to
    *its own* card's god B, and deploys its B Valkyrie; C (the Invaders' god) gains nothing."""
    pos = pos_with()
    fighter = card(pos.rules, strength=1, cost=0, rune=B)
    invader = card(pos.rules, strength=7, rune=C)
    v = lone_battle(pos, 0, fighter, invader, prize=0)
    assert v["won"] == [0, 0] and v["lost"] == [1, 0] and v["rows"][0] == [0, 1, 2]
    assert v["fury"][C] == 0 and v["fury"][A] == 0 and v["fury"][B] >= 1
    assert v["res"][0] == [2, 4, 2] and v["valk"][0][B] >= 0


# ---------------------------------------------------------------- §2.5 a 4th Favor card

def test_a_fourth_favor_card_sends_the_least_valuable_back(tmp_path):
    """§2.5, §4.7: at most 3 Favor cards; winning a 4th sends the least valuable at the
    current ranks back to the prize's row end. Fury A 3, B 2, C 1: ranks A 1st, B 2nd, C 3rd,
    Favor VP 3 / 2 / 1 (``scoring.favor``). Favor card f carries Rune f mod 3. Seat 0 holds
    3 (A, 3 VP), 4 (B, 2 VP), 5 (C, 1 VP) and wins 6 (A, 3 VP) from the front of row 0: it
    keeps 3, 4, 6 and card 5 goes to the front of row 0 (row 0 was 6, 7, 8 -> 5, 7, 8). The
    bag: 2 Wood (A's resource). The Invader card is a Valkyrie card (4, a Joker: no Fury)."""
    pos = pos_with(params_text="[scoring]\nfavor = [3, 2, 1]\n[economy]\nfavor_bag = 2\n"
                   "favor_cards = 18\n", tmp_path=tmp_path)
    g = pos.g
    g.rows = [[6, 7, 8], [9, 10, 11]]
    g.players[0].favors = [3, 4, 5]
    g.fury, g.fury_nodrain = [3, 2, 1], [3, 2, 1]
    fighter = card(pos.rules, strength=7, cost=0, rune=B)
    v = lone_battle(pos, 0, fighter, card(pos.rules, kind=CardKind.VALKYRIE), prize=6)
    assert v["favors"][0] == [3, 4, 6]
    assert v["rows"] == [[5, 7, 8], [9, 10, 11]]
    assert v["res"][0] == [4, 2, 2] and v["fury"] == [3, 2, 1]


def test_a_fourth_favor_card_goes_back_to_the_back_end_it_came_from(tmp_path):
    """§2.5: same, the prize taken from the back of row 1 (end 1): held 3 (A), 4 (B), 5 (C),
    Fury C 3, B 2, A 1 (C 1st): least valuable is 3 (A, 1 VP); won 11 (C, 3 VP). Kept 4, 5,
    11; card 3 goes to the back of row 1 (9, 10 -> 9, 10, 3). Bag: 2 Steel (C's resource)."""
    pos = pos_with(params_text="[scoring]\nfavor = [3, 2, 1]\n[economy]\nfavor_bag = 2\n",
                   tmp_path=tmp_path)
    g = pos.g
    g.rows = [[6, 7, 8], [9, 10, 11]]
    g.players[0].favors = [3, 4, 5]
    g.fury, g.fury_nodrain = [1, 2, 3], [1, 2, 3]
    fighter = card(pos.rules, strength=7, cost=0, rune=A)
    v = lone_battle(pos, 0, fighter, card(pos.rules, kind=CardKind.VALKYRIE), prize=11,
                    row=1, end=1)
    assert v["favors"][0] == [4, 5, 11]
    assert v["rows"] == [[6, 7, 8], [9, 10, 3]]
    assert v["res"][0] == [2, 2, 4]


# ---------------------------------------------------------------- §4.3 Village VP, §2.6 score

@pytest.mark.parametrize("village, want", [(1, 3 + 6 + 6), (2, 6 + 6 + 6), (0, 0 + 6 + 6)])
def test_villages_score_their_vp(tmp_path, village, want):
    """§4.3 (``scoring.village`` VP per Village raided), §3.7 (slain Giants' values), §2.6
    (Island Runes by rank). Seat 0: 3 Villages, Giants 2 and 4 slain, holds region 0 (Rune
    A) through a Settler; Fury A 2, B 1, C 0: A ranks 1st, its Island scores 6 (table
    6 / 4 / 2). Score = village x 3 + 6 + 6. Seat 1 has nothing: 0."""
    pos = pos_with(params_text=f"[scoring]\nvillage = {village}\nisland = [6, 4, 2]\n"
                   "favor = [3, 2, 1]\n", tmp_path=tmp_path)
    g = pos.g
    pl = g.players[0]
    pl.villages, pl.slain = 3, [2, 4]
    pl.settlers[0] = 1
    g.control[0] = 0
    g.fury, g.fury_nodrain = [2, 1, 0], [2, 1, 0]
    pos.sync()
    same(pos)
    assert [g.score(p) for p in g.players] == [want, 0]
    assert [K._score(pos.cf, pos.st, s) for s in range(2)] == [want, 0]



# ---------------------------------------------------------------- §2.5 the Invaders' Strength

@pytest.mark.parametrize("earlier, fighter_strength, wins", [
    (0, 5, True),     # the Era's first Invader card: 4 + 0 = 4 < 5
    (1, 5, False),    # one earlier Invader card: 4 + 1 = 5, a tie: the fighter loses
    (2, 7, True),     # two earlier: 4 + 2 = 6 < 7
])
def test_the_invaders_grow_with_each_earlier_invader_card(tmp_path, earlier, fighter_strength,
                                                         wins):
    """§2.5 (+1 per earlier Invader card), §4.7 (``invader_growth`` 1 per earlier Invader
    card of the Era, set in the parameter file): the Invader card is a base card of Strength
    4 (Rune C)."""
    pos = pos_with(tmp_path, "[cards]\ninvader_growth = 1\ninvader_special_strength = 4\n")
    fighter = card(pos.rules, strength=fighter_strength, cost=0, rune=A)
    invader = card(pos.rules, strength=4, rune=C)
    pos.g.invaders = earlier
    v = lone_battle(pos, 0, fighter, invader, prize=0)
    assert v["won"][0] == int(wins) and v["lost"][0] == int(not wins)


@pytest.mark.parametrize("fighter_strength, wins", [(3, False), (4, False), (5, True)])
def test_an_invader_valkyrie_card_fights_with_invader_special_strength(tmp_path, fighter_strength,
                                                                      wins):
    """§4.7: an Invader card that is a Valkyrie or Einherjar card (no printed Strength) fights
    with ``invader_special_strength`` 4 (set in the parameter file here), the Era's first
    Invader card (no growth): 3 and 4 lose, 5 wins."""
    pos = pos_with(tmp_path, "[cards]\ninvader_special_strength = 4\ninvader_growth = 1\n")
    fighter = card(pos.rules, strength=fighter_strength, cost=0, rune=A)
    v = lone_battle(pos, 0, fighter, card(pos.rules, kind=CardKind.VALKYRIE), prize=0)
    assert v["won"][0] == int(wins) and v["lost"][0] == int(not wins)


# ---------------------------------------------------------------- §2.4 control on a tie

def test_a_tie_for_the_most_influence_takes_no_rune_and_keeps_the_holder():
    """§2.4, §4.7: only a *unique* most-Influence player with a ground unit takes the Rune.
    3 players. Region 0 (Rune A): seats 0 and 1 one Settler each (1 = 1), nobody held it: it
    stays unheld, no Fury. Region 2 (Rune C): held by seat 2 with one Settler, seat 0 brings
    one too (1 = 1): seat 2 keeps it, no Fury. Region 4 (Rune B): seat 1 two Settlers against
    seat 2's one: seat 1 takes it, B +1."""
    pos = pos_with(players=3)
    g = pos.g
    p0, p1, p2 = g.players
    p0.settlers[0] = p1.settlers[0] = 1
    p2.settlers[2] = 1
    g.control[2] = 2
    p0.settlers[2] = 1
    p1.settlers[4], p2.settlers[4] = 2, 1
    pos.sync()
    g.update_control()
    K._update_control(pos.cf, pos.st)
    v = same(pos)
    assert v["control"][0] == -1 and v["control"][2] == 2 and v["control"][4] == 1
    assert v["fury"] == [0, 1, 0]


# ---------------------------------------------------------------- §3.4, §2.3 actions

@pytest.mark.parametrize("giant, moved", [(True, False), (False, True)])
def test_a_temple_explores_into_a_region_only_without_a_giant(giant, moved):
    """§3.4 SEED (no Temple may Explore into a Giant's region), §4.7 Explore's last choice: a
    Temple from a neighbour. Seat 0 has only a Temple in region 1 (no Settler, no Valkyrie);
    it Explores into region 2: with a Giant there nothing moves, without one the Temple
    moves 1 -> 2."""
    pos = pos_with()
    pl = pos.p[0]
    pl.temples[1] = 1
    if giant:
        pos.giant(2, 3)
    pos.sync()
    pos.g.explore(pl, 2)
    K._explore(pos.cf, pos.st, 0, 2)
    v = same(pos)
    assert v["temples"][0][1:3] == ([0, 1] if moved else [1, 0])


def test_smite_removes_a_settler_of_the_rival_with_most_there():
    """§2.3 Smite, §4.7 (the rival with most Settlers there, focus region first). 3 players:
    in region 3 seat 1 has 1 Settler and seat 2 has 2; seat 0 Smites at region 3: seat 2
    loses one (2 -> 1, back to its mat), seat 1 keeps its one."""
    pos = pos_with(players=3)
    p0, p1, p2 = pos.p
    p1.settlers[3], p2.settlers[3] = 1, 2
    pos.sync()
    pos.g.smite(p0, 3)
    K._smite(pos.cf, pos.st, 0, 3)
    v = same(pos)
    assert [v["settlers"][s][3] for s in range(3)] == [0, 1, 1]
    assert v["mat"][2] == 6 - 1


@pytest.mark.parametrize("mine, theirs, after", [
    ((2, 2, 0), "equal", (2, 2, 0)),        # 2 do not outnumber 2: nothing
    ((3, 2, 1), "more", (3, 1, 0)),         # 3 outnumber 2 and 1: each rival loses one
    ((1, 0, 0), "alone", (1, 0, 0)),        # no rival Settler there: nothing
])
def test_attack_settlers_needs_to_outnumber_every_rival(mine, theirs, after):
    """§2.3 Attack Settlers: when the player's Settlers there *outnumber* every rival's, each
    rival there loses one (3 players, region 3, seat 0 attacks)."""
    pos = pos_with(players=3)
    for s in range(3):
        pos.p[s].settlers[3] = mine[s]
    pos.sync()
    pos.g.attack(pos.p[0], 3)
    K._attack(pos.cf, pos.st, 0, 3)
    v = same(pos)
    assert tuple(v["settlers"][s][3] for s in range(3)) == after


@pytest.mark.parametrize("era, steel, raided", [(0, 1, True), (2, 2, False), (2, 3, True)])
def test_a_village_raid_costs_the_eras_steel(tmp_path, era, steel, raided):
    """§4.3 ``raid_cost`` 1 / 2 / 3 Steel in Eras 1 / 2 / 3 (set in the parameter file). Seat
    0's Boat is moored at dock 1 (region 2, 2 Villages): Era 1 with 1 Steel raids (Steel 0);
    Era 3 with 2 Steel cannot; with 3 it raids (Steel 0, 1 Village left, 1 raided)."""
    pos = pos_with(tmp_path, "[economy]\nraid_cost = [1, 2, 3]\n")
    pl = pos.p[0]
    pl.boats[1] = 1
    pl.res = [2, 2, steel]
    pos.g.era = era
    pos.sync()
    pos.g.raid(pl, 2, free=False)
    K._raid(pos.cf, pos.st, 0, 2, False)
    v = same(pos)
    assert v["villages"][0] == int(raided) and v["board_villages"][2] == 2 - int(raided)
    assert v["res"][0][2] == (0 if raided else steel)


def test_resources_are_capped_at_seven(tmp_path):
    """§2.2 (no more than 7 of each), §4.3 (``resource_cap`` 7, ``harvest`` 2): Harvest of the
    scarcest kind (Wood, first of the tied 6 / 6 / 7) +2 stops at 7."""
    pos = pos_with(tmp_path, "[start]\nresource_cap = 7\n[economy]\nharvest = 2\n")
    pl = pos.p[0]
    pl.res = [6, 6, 7]
    pos.sync()
    pos.g.harvest(pl)
    K._harvest(pos.cf, pos.st, 0)
    assert same(pos)["res"][0] == [7, 6, 7]


@pytest.mark.parametrize("held, ok", [(0, False), (1, True), (2, True)])
def test_a_rune_action_needs_rune_action_runes_active_runes(tmp_path, held, ok):
    """§2.2 Active Runes (the card's Rune + the held Islands' of that kind), §4.7
    (``rune_action_runes`` 2, set in the parameter file). A base card of Rune A: no held A
    Island gives 1 (< 2, no Rune action); one held A Island (region 0) gives 2; two (regions
    0 and 3) give 3."""
    pos = pos_with(tmp_path, "[cards]\nrune_action_runes = 2\n")
    pl = pos.p[0]
    for r in (0, 3)[:held]:
        pl.settlers[r] = 1
    pos.g.update_control()
    pos.sync()
    c = card(pos.rules, rune=A)
    assert pos.g.rune_ok(pl, c) == bool(K._runes_enough(pos.cf, pos.st, 0, c)) == ok


# ---------------------------------------------------------------- §2.1, §4.7 the draft

def test_draft_packs_pass_to_the_left(tmp_path):
    """§2.1 (keep one card, pass the rest), §4.7 (each pack passes to the next seat: seat s
    gets seat s - 1's). 3 players, ``draft_size`` 2 (parameter file). Dealt from the top of
    the deck, seat by seat: packs of Strength (8, 1), (7, 2), (6, 3). Each keeps its
    strongest (8, 7, 6); then seat 0 gets seat 2's pack (3), seat 1 seat 0's (1), seat 2
    seat 1's (2): hands {8, 3}, {7, 1}, {6, 2}."""
    pos = pos_with(tmp_path, "[economy]\ndraft_size = 2\n", players=3)
    by = {x: card(pos.rules, strength=x) for x in (1, 2, 3, 6, 7, 8)}
    a, b, c = (by[8], by[1]), (by[7], by[2]), (by[6], by[3])
    pos.g.deck = [c[1], c[0], b[1], b[0], a[1], a[0]]              # top = last
    pos.sync()
    pos.g.draft()
    K._draft(pos.cf, pos.st, np.array(pos.kinds), np.array(pos.params), ScriptedUniform([]),
             pos.kpol)
    ref = [sorted(pl.hand) for pl in pos.g.players]
    ker = [sorted(int(x) for x in pos.st.hand[s, :pos.st.nhand[s]]) for s in range(3)]
    assert ref == ker == [sorted((by[8], by[3])), sorted((by[7], by[1])), sorted((by[6], by[2]))]
