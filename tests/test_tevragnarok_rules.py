"""Forced-card tests of every rule of the Ragnarok rulebook (tev-ragnarok §3) and the model's
battle rules (§2.5, §4.7): each position is built by hand (``test_tevragnarok_harness.Pos``),
played by the reference and by the kernel's own functions (loaded as plain Python), and both
must give the same position and the values worked out by hand from the notes (comments)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_tevragnarok_harness import K, Pos, card, same
from vikingsim.core.testing import ScriptedUniform
from vikingsim.games.tevragnarok.policies import N_PARAMS, PolicyKind
from vikingsim.games.tevragnarok import reference
from vikingsim.games.tevragnarok.rules import CardKind, Leader, Rules, RuneAct

A, B, C = 0, 1, 2                  # Runes; default board runes [A, B, C, A, B, C, A, B]


def _slay_setup(settlers=3, valk_region=2, giant_region=2, value=4):
    pos = Pos()
    pl = pos.p[0]
    pl.settlers[giant_region] = settlers
    if valk_region is not None:
        pl.valkyrie[A] = valk_region
    pos.giant(giant_region, value)
    pos.g.update_control()
    return pos.sync()


def _slay_legal(pos, c, r):
    ref = r in pos.g.slay_regions(pos.p[0], c)
    ker = K._can_slay(pos.cf, pos.st, 0, c, r)
    assert ref == ker
    return ref


def _slay(pos, c, r):
    pos.g.slay(pos.p[0], c, r)
    K._slay(pos.cf, pos.st, 0, c, r, *pos.kargs(0)[:1], pos.kpol)
    return same(pos)


# ---------------------------------------------------------------- §3.3 Slay a Giant

def test_slay_with_a_valkyrie_and_three_settlers():
    """§3.3 SEED: Valkyrie + 3 Settlers in the Giant's region; the 3 go back to the mat, the
    Giant (value 4) is taken, the Valkyrie stays, +1 Fury to the card's god (B), no Boon."""
    pos = _slay_setup()
    c = card(pos.rules, rune=B)
    assert _slay_legal(pos, c, 2)
    before = same(pos)
    v = _slay(pos, c, 2)
    assert v["settlers"][0][2] == 0 and v["mat"][0] == before["mat"][0] + 3
    assert v["slain"][0] == [1, 4] and v["has_giant"][2] is False
    assert v["valk"][0][A] == 2
    assert v["fury"] == [before["fury"][0], before["fury"][1] + 1, before["fury"][2]]
    assert v["res"] == before["res"]                      # no Valhalla Boon


def test_slay_needs_three_settlers_and_a_valkyrie():
    """§3.3 SEED: 2 Settlers are not enough with a plain card; no Valkyrie, no slay; and a
    Valkyrie cannot stand in for a Settler (2 Valkyries + 2 Settlers: still not)."""
    c = card(Pos().rules, rune=A)
    assert not _slay_legal(_slay_setup(settlers=2), c, 2)
    assert not _slay_legal(_slay_setup(valk_region=None), c, 2)
    pos = Pos()
    pos.p[0].settlers[2] = 2
    pos.p[0].valkyrie[A] = pos.p[0].valkyrie[B] = 2
    pos.giant(2, 3)
    pos.sync()
    assert not _slay_legal(pos, c, 2)
    assert not _slay_legal(_slay_setup(giant_region=3), c, 2)    # no Giant in region 2


@pytest.mark.parametrize("settlers", [4, 5, 6])
def test_settlers_cannot_replace_the_valkyrie(settlers):
    """§3.3, §3.6 SEED "Valkyries cannot be replaced by Settlers to Slay a Giant": 4, 5 or 6
    Settlers and no Valkyrie in the Giant's region do not slay with a plain card (one more
    Settler than needed, or twice as many, stands in for nothing); with a Valkyrie card
    (which fulfils the Valkyrie requirement) the same region can."""
    pos = _slay_setup(settlers=settlers, valk_region=None)
    assert not _slay_legal(pos, card(pos.rules, rune=A), 2)
    assert _slay_legal(pos, card(pos.rules, kind=CardKind.VALKYRIE), 2)


def test_slay_with_an_einherjar_card_needs_and_sacrifices_two():
    """§3.3 SEED: an Einherjar card: 2 Settlers suffice, and only 2 are sacrificed."""
    pos = _slay_setup(settlers=3)
    e = card(pos.rules, kind=CardKind.EINHERJAR, rune=C)
    assert _slay_legal(pos, e, 2)
    v = _slay(pos, e, 2)
    assert v["settlers"][0][2] == 1 and v["slain"][0] == [1, 4]
    assert _slay_legal(_slay_setup(settlers=2), e, 2)
    assert not _slay_legal(_slay_setup(settlers=1), e, 2)


def test_slay_with_a_valkyrie_card_needs_no_valkyrie_token():
    """§3.3 SEED: a Valkyrie card fulfils the Valkyrie requirement; its Joker names the god
    whose +1 Fury helps most (§4.7): seat 0 holds region 2 (Rune C) through its Settlers, so
    C alone on top turns that Island from rank-3 2 VP into rank-1 6 VP: C."""
    pos = Pos()
    pos.p[0].settlers[2] = 3
    pos.giant(2, 5)
    pos.g.fury = [1, 1, 0]
    pos.g.fury_nodrain = [1, 1, 0]
    pos.g.update_control()                    # seat 0 takes region 2: C 0 -> 1, all tied
    pos.sync()
    v = card(pos.rules, kind=CardKind.VALKYRIE)
    assert not _slay_legal(pos, card(pos.rules, rune=A), 2)
    assert _slay_legal(pos, v, 2)
    out = _slay(pos, v, 2)
    assert out["fury"] == [1, 1, 2] and out["slain"][0] == [1, 5]
    assert out["settlers"][0][2] == 0


# ---------------------------------------------------------------- §3.4 Temple blocking, Cleanup

def test_no_temple_is_built_where_a_giant_stands():
    """§3.4 SEED: Build aims at the focus (2, a Giant there): refused, the next region with a
    Settler and no Giant (3) gets it, for 3 Wood."""
    pos = Pos()
    pl = pos.p[0]
    pl.settlers[2] = pl.settlers[3] = 1
    pl.res = [3, 2, 2]
    pos.giant(2, 1)
    pos.sync()
    pos.g.build(pl, 2)
    K._build(pos.cf, pos.st, 0, 2)
    v = same(pos)
    assert v["temples"][0][2] == 0 and v["temples"][0][3] == 1 and v["res"][0][0] == 0


def test_no_temple_explores_or_is_carried_into_a_giant_region():
    """§3.4 SEED: a Temple in region 1 cannot Explore into region 2 with a Giant; a Valkyrie
    in region 1 with the Temple and 3 Steel flies alone (no Temple carried, Steel kept).
    Without the Giant the same Explore carries the Temple for 3 Steel."""
    for giant, expect_temple, expect_steel in ((True, 0, 3), (False, 1, 0)):
        pos = Pos()
        pl = pos.p[0]
        pl.temples[1] = 1
        pl.valkyrie[B] = 1
        pl.res = [2, 2, 3]
        if giant:
            pos.giant(2, 2)
        pos.sync()
        pos.g.explore(pl, 2)
        K._explore(pos.cf, pos.st, 0, 2)
        v = same(pos)
        assert v["valk"][0][B] == 2
        assert v["temples"][0][2] == expect_temple and v["res"][0][2] == expect_steel


def test_a_giant_moved_onto_a_temple_leaves_it():
    """§3.4, §3.5 SEED: Move a Giant into a region with a Temple; the Temple stays. A Giant
    hunter (giant_weight 3) pulls the neighbour's Giant into its focus 3."""
    pos = Pos(policies="giant_hunter")
    pos.p[1].temples[3] = 1
    pos.giant(4, 5)
    pos.sync()
    pos.g.move_giant(pos.p[0], 3)
    K._move_giant(pos.cf, pos.st, 0, 3, pos.kargs(0)[1])
    v = same(pos)
    assert v["has_giant"][3] and not v["has_giant"][4] and v["giant"][3] == 5
    assert v["temples"][1][3] == 1


def test_move_a_giant_only_into_a_region_without_one():
    """§3.5 SEED: one Giant per region: greedy pushes focus 3's Giant to its first neighbour
    without one (2 has one, so 4)."""
    pos = Pos()
    pos.giant(2, 1)
    pos.giant(3, 2)
    pos.sync()
    pos.g.move_giant(pos.p[0], 3)
    K._move_giant(pos.cf, pos.st, 0, 3, pos.kargs(0)[1])
    v = same(pos)
    assert v["giant"][2:5] == [1, 0, 2]


def test_cleanup_drains_one_fury_per_giant_not_below_zero():
    """§3.4 SEED: Giants in all 8 regions (Runes A B C A B C A B): A -3, B -3, C -2.
    Fury [5, 2, 1] -> [2, 0, 0]; the undrained count keeps [5, 2, 1]. Off: unchanged."""
    for drain, want in ((True, [2, 0, 0]), (False, [5, 2, 1])):
        pos = Pos(giant_drain=drain)
        for r in range(8):
            pos.giant(r, 3)
        pos.g.fury, pos.g.fury_nodrain = [5, 2, 1], [5, 2, 1]
        pos.sync()
        pos.g.cleanup()
        K._cleanup(pos.cf, pos.st)
        v = same(pos)
        assert v["fury"] == want and v["fury_nodrain"] == [5, 2, 1]


# ---------------------------------------------------------------- §3.5 cards in battle

def _battle(pos, entries, prize=0):
    """Open a battle of seat entries[0][0] with these (seat, card) entries, at play time."""
    g = pos.g
    g.rows[0].remove(prize)
    g.battles[entries[0][0]] = {"prize": prize, "row": 0, "end": 0, "entries": [
        (s, c, g.strength(g.players[s], c)) for s, c in entries]}


def _resolve(pos, starter):
    pos.g.resolve(starter)
    kinds = np.array(pos.kinds)
    params = np.array(pos.params)
    K._resolve(pos.cf, pos.st, starter, kinds, params, ScriptedUniform([]), pos.kpol)
    return same(pos)


def test_valkyrie_and_einherjar_strength_formulas():
    """§3.5 SEED: Valkyrie card 4 x Valkyries deployed, Einherjar 4 x Giants slain."""
    pos = Pos()
    pl = pos.p[0]
    pl.valkyrie[A], pl.valkyrie[C] = 3, 5
    pl.slain = [2, 4, 1]
    pos.sync()
    v, e = card(pos.rules, kind=CardKind.VALKYRIE), card(pos.rules, kind=CardKind.EINHERJAR)
    assert pos.g.strength(pl, v) == K._strength(pos.cf, pos.st, 0, v) == 8
    assert pos.g.strength(pl, e) == K._strength(pos.cf, pos.st, 0, e) == 12


def test_strength_is_counted_at_resolution():
    """§6.2 DEFAULT: seat 0's Valkyrie card joined with 1 Valkyrie out (4 at play); a second
    one lands before the resolution, so it fights with 8 and beats seat 1's 6. (In full games
    the two counts always agree, §4.7: a player is in at most one open battle, and its
    Valkyries and Giants change only on its own turn or at that battle's resolution.)"""
    pos = Pos()
    p0 = pos.p[0]
    p0.valkyrie[A] = 4
    six = card(pos.rules, strength=6, cost=0)
    _battle(pos, [(1, six), (0, card(pos.rules, kind=CardKind.VALKYRIE))])
    assert pos.g.battles[1]["entries"][1][2] == 4
    p0.valkyrie[B] = 6
    pos.sync()
    v = _resolve(pos, 1)
    assert v["won"] == [1, 0] and v["lost"] == [0, 1] and v["favors"][0] == [0]


def test_a_player_is_in_at_most_one_open_battle():
    """The §4.7 claim behind §6.2: over whole random games, no entry's Strength changes
    between play and resolution (so the two readings of §6.2 give the same games)."""
    from vikingsim.core.runner import simulate
    from vikingsim.games.tevragnarok import reference as R

    seen = [0, 0]
    orig = R.Game.resolve

    def spy(self, starter):
        for seat, c, s_play in self.battles[starter]["entries"]:
            seen[0] += 1
            seen[1] += s_play != self.strength(self.players[seat], c)
        for seat in range(self.n):                     # at most one open battle each
            assert sum(any(e[0] == seat for e in b["entries"])
                       for b in self.battles.values()) <= 1
        return orig(self, starter)

    R.Game.resolve = spy
    try:
        simulate("tevragnarok", 60, seed=5, policies="random_legal", reference=True)
    finally:
        R.Game.resolve = orig
    assert seen[0] > 1000 and seen[1] == 0


def test_ties_lose_and_the_prize_goes_back():
    """§2.5: equal top Strength (5 and 5): both lose (Boon +2 of the god's resource: A Wood,
    B Food; +1 Fury each), the Favor card returns to the front of row 0."""
    pos = Pos()
    c1 = card(pos.rules, strength=5, cost=0, rune=A)
    c2 = card(pos.rules, strength=5, cost=0, rune=B)
    _battle(pos, [(0, c1), (1, c2)])
    pos.p[0].valkyrie[A] = 0
    pos.p[1].valkyrie[B] = 0
    pos.g.update_control()
    pos.sync()
    before = same(pos)
    v = _resolve(pos, 0)
    assert v["lost"] == [1, 1] and v["won"] == [0, 0] and v["rows"][0][0] == 0
    assert v["fury"][A] == before["fury"][A] + 1 and v["fury"][B] == before["fury"][B] + 1
    assert v["res"][0] == [4, 2, 2] and v["res"][1] == [2, 4, 2]


def test_a_fighter_who_cannot_pay_takes_no_part():
    """§2.5: a Steel-cost card with 0 Steel: no part, no Boon, no Fury; the other entry is
    then alone against the Invaders (their card: Strength 1, +0 growth): 5 > 1 wins."""
    pos = Pos()
    costly = card(pos.rules, cost=1, strength=7)
    five = card(pos.rules, cost=0, strength=5, rune=B)
    one = card(pos.rules, strength=1)
    _battle(pos, [(0, five), (1, costly)])
    pos.p[1].res = [2, 2, 0]
    pos.g.deck = [one]
    pos.sync()
    v = _resolve(pos, 0)
    assert v["won"] == [1, 0] and v["lost"] == [0, 0] and v["res"][1] == [2, 2, 0]
    assert v["favors"][0] == [0]
    assert v["discard"] == [one, five, costly]        # §4.8: Invader card first


def test_lone_fighter_against_the_invaders_ties_lose():
    """§2.5: alone against the Invaders' top card of equal Strength (5 = 5): the fighter
    loses (Boon, Fury, Valkyrie) and the Favor card goes back."""
    pos = Pos()
    five = card(pos.rules, cost=0, strength=5, rune=B)
    other = next(i for i in range(48) if i != five and pos.g.cards[i][1] == 5)
    _battle(pos, [(0, five)])
    pos.g.deck = [other]
    pos.sync()
    v = _resolve(pos, 0)
    assert v["lost"][0] == 1 and v["won"][0] == 0 and v["rows"][0][0] == 0
    assert v["valk"][0][B] >= 0 and v["res"][0][1] == 4            # B: Food Boon


# ---------------------------------------------------------------- §3.5 Joker, §3.6 deploying

def test_joker_rune_chooses_one_god_for_boon_fury_and_valkyrie():
    """§3.5 SEED: a losing Valkyrie card's Joker names one Rune for the Boon, the Fury and
    the Valkyrie: greedy names the first Rune whose Valkyrie is on the mat (A is out: B):
    +2 Food, Fury B +1, Valkyrie B deployed."""
    pos = Pos()
    pl = pos.p[0]
    pl.valkyrie[A] = 5
    pos.g.update_control()
    pos.sync()
    before = same(pos)
    v = card(pos.rules, kind=CardKind.VALKYRIE)
    pos.g.lose(pl, v)
    K._lose(pos.cf, pos.st, 0, v, *pos.kargs(0), pos.kpol)
    out = same(pos)
    assert out["res"][0] == [2, 4, 2] and out["valk"][0][B] >= 0 and out["valk"][0][C] == -1
    assert out["fury"][B] >= before["fury"][B] + 1 and out["fury"][A] == before["fury"][A]


def test_deploy_only_the_valkyrie_of_the_losing_rune():
    """§3.6 SEED: a C card loses; C's Valkyrie is already out, so none is deployed (A and B
    stay on the mat); with C on the mat, C's Valkyrie comes out into the focus region."""
    for out_already, deployed in ((True, 1), (False, 1)):
        pos = Pos()
        pl = pos.p[0]
        if out_already:
            pl.valkyrie[C] = 7
        pos.g.update_control()
        pos.sync()
        c = card(pos.rules, rune=C)
        pos.g.lose(pl, c)
        K._lose(pos.cf, pos.st, 0, c, *pos.kargs(0), pos.kpol)
        v = same(pos)
        assert v["valk"][0][A] == v["valk"][0][B] == -1
        assert sum(1 for x in v["valk"][0] if x >= 0) == deployed
        assert v["res"][0][2] == 4                                    # C: Steel Boon


def test_a_deployed_valkyrie_takes_control_at_once():
    """§3.6 SEED: Valkyrie Influence 2 against a holder's single Settler (1): control passes
    at once and the region's god (region 4, Rune B) gains 1 Fury."""
    pos = Pos(policies="random_legal", pol_values=[4.5 / 8])    # deploy region int(4.5) = 4
    pos.p[1].settlers[4] = 1
    pos.g.update_control()
    pos.sync()
    assert pos.g.control[4] == 1 and pos.g.fury[B] == 1
    c = card(pos.rules, rune=A)
    pos.g.lose(pos.p[0], c)
    K._lose(pos.cf, pos.st, 0, c, PolicyKind.RANDOM_LEGAL, np.zeros(N_PARAMS), pos.kpol)
    v = same(pos)
    assert v["valk"][0][A] == 4 and v["control"][4] == 0
    assert v["fury"] == [1, 2, 0]                       # A +1 (the loss), B +1 (the taking)


# ---------------------------------------------------------------- §3.6 Valkyries on the board

def test_valkyrie_movement_alone_with_a_settler_or_with_a_temple():
    """§3.6 SEED, one option per Explore: Settler carried for 1 Food (preferred, Temple
    stays); with no Settler a Temple for 3 Steel; with a Temple but 2 Steel, alone."""
    cases = (([1, 1], [2, 2, 3], (1, 0), [2, 1, 3]),       # settler + temple: Settler, 1 Food
             ([0, 1], [2, 2, 3], (0, 1), [2, 2, 0]),       # temple only: Temple, 3 Steel
             ([0, 1], [2, 0, 2], (0, 0), [2, 0, 2]))       # 2 Steel: alone
    for (settler, temple), res, (s_to, t_to), res_after in cases:
        pos = Pos()
        pl = pos.p[0]
        pl.settlers[5], pl.temples[5], pl.valkyrie[C], pl.res = settler, temple, 5, list(res)
        pos.sync()
        pos.g.explore(pl, 6)
        K._explore(pos.cf, pos.st, 0, 6)
        v = same(pos)
        assert v["valk"][0][C] == 6
        assert (v["settlers"][0][6], v["temples"][0][6]) == (s_to, t_to)
        assert v["res"][0] == res_after


def test_valkyries_are_immune_to_smite_and_do_not_count_in_attacks():
    """§3.6 SEED: Smite in region 3 where seat 1 has only a Valkyrie: nothing there to
    remove, the first other region with a rival Settler (5) loses it. Attack in region 2:
    seat 0's 2 Settlers against seat 1's 1 Settler + 2 Valkyries: Valkyries do not count,
    2 > 1, seat 1 loses its Settler and keeps both Valkyries."""
    pos = Pos()
    q = pos.p[1]
    q.valkyrie[A], q.settlers[5] = 3, 1
    pos.sync()
    pos.g.smite(pos.p[0], 3)
    K._smite(pos.cf, pos.st, 0, 3)
    v = same(pos)
    assert v["valk"][1][A] == 3 and v["settlers"][1][5] == 0
    pos = Pos()
    pos.p[0].settlers[2] = 2
    q = pos.p[1]
    q.settlers[2], q.valkyrie[A], q.valkyrie[B] = 1, 2, 2
    pos.sync()
    pos.g.attack(pos.p[0], 2)
    K._attack(pos.cf, pos.st, 0, 2)
    v = same(pos)
    assert v["settlers"][1][2] == 0 and v["valk"][1][:2] == [2, 2]


def test_valkyrie_influence_two_and_harvest_bonus():
    """§3.6 SEED: a Valkyrie is 2 Influence and a ground unit; §3.6 Harvest bonus: +1 of each
    deployed Valkyrie's Rune resource (A Wood, C Steel) on top of Harvest 2 of the scarcest
    (Food, 1): [3, 1, 3] -> [4, 3, 4]."""
    pos = Pos()
    pl = pos.p[0]
    pl.valkyrie[A], pl.valkyrie[C], pl.res = 0, 0, [3, 1, 3]
    pos.sync()
    assert pos.g.influence(pl, 0) == pos.st.infl[0, 0] == 4 and pos.g.ground(pl, 0)
    pos.g.harvest(pl)
    K._harvest(pos.cf, pos.st, 0)
    assert same(pos)["res"][0] == [4, 3, 4]


@pytest.mark.parametrize("has, free, got, r", [
    ("valkyrie", True, 1, 5), ("valkyrie", False, 0, 5), ("dock0", False, 1, 1),
    ("dock1", False, 0, 1)])
def test_raid_a_village(has, free, got, r):
    """§3.5 SEED new Rune action: region 5 holds seat 0's Valkyrie only; 0 Steel; the free
    Raid takes its Village (1 -> 0) without Steel; the paid Raid (§2.3) cannot. §2.3, §3.2 the
    paid Raid by a Boat: moored at dock 0 (regions 0 and 1) it raids the only Village, in
    region 1, its dock's second region (Steel 1 in Era 1); moored at dock 1 (region 2) it
    cannot."""
    pos = Pos()
    pl = pos.p[0]
    if has == "valkyrie":
        pl.valkyrie[B], pl.res = 5, [2, 2, 0]
    else:
        pos.g.villages = [0, 1, 0, 0, 0, 0, 0, 0]
        pl.boats[int(has[-1])], pl.res = 1, [2, 2, 1]
    pos.sync()
    pos.g.raid(pl, 5, free)
    K._raid(pos.cf, pos.st, 0, 5, free)
    v = same(pos)
    assert v["villages"][0] == got and v["board_villages"][r] == 1 - got


def test_face_up_conditions_of_valkyrie_and_einherjar_cards():
    """§3.5 SEED: Einherjar face up needs a Giant slain; a Valkyrie card needs its printed 1
    or 2 Valkyries deployed (§6.3 per_card); one_or_two refuses 3 deployed."""
    pos = Pos()
    pl = pos.p[0]
    e = card(pos.rules, kind=CardKind.EINHERJAR)
    v1 = card(pos.rules, kind=CardKind.VALKYRIE, need=1)
    v2 = card(pos.rules, kind=CardKind.VALKYRIE, need=2)
    pl.valkyrie[A] = 1
    pos.sync()
    got = [(pos.g.face_up_ok(pl, c), K._face_up_ok(pos.cf, pos.st, 0, c)) for c in (e, v1, v2)]
    assert got == [(False, False), (True, True), (False, False)]
    pos = Pos(valkyrie_card_condition="one_or_two")
    pl = pos.p[0]
    pl.valkyrie = [1, 2, 3]
    pl.slain = [3]
    pos.sync()
    got = [(pos.g.face_up_ok(pl, c), K._face_up_ok(pos.cf, pos.st, 0, c)) for c in (e, v1, v2)]
    assert got == [(True, True), (False, False), (False, False)]


# ---------------------------------------------------------------- §3.2 North Mordant, §3.7

def test_border_dock_gives_two_influence_to_each_region_and_serves_both():
    """§3.2 SEED: dock 0 serves regions 0 and 1 (a border dock): a moored Boat is 2
    Influence in each; Sailing there may deploy into either region (focus 1: 2 Settlers,
    2 Food)."""
    pos = Pos()
    pl = pos.p[0]
    pos.sync()
    pos.g.sail(pl, 1)
    K._sail(pos.cf, pos.st, 0, 1)
    v = same(pos)
    assert v["boats"][0][0] == 1 and v["settlers"][0][1] == 2 and v["res"][0][1] == 0
    assert pos.g.influence(pl, 0) == pos.st.infl[0, 0] == 2               # Boat only
    assert pos.g.influence(pl, 1) == pos.st.infl[0, 1] == 4               # Boat + 2


def test_hidden_giant_values_score_at_the_end_and_stay_unseen():
    """§3.3, §3.7 SEED: slain Giants add their values at the end; a policy's slay value uses
    only its own Giants: changing the values of the Giants on the board changes nothing.
    Seat 0 slew a 5 and a 1: 6 points, and expects (27 - 6) / 7 = 3 from the next."""
    pos = Pos()
    pl = pos.p[0]
    pl.slain = [5, 1]
    pl.settlers[2], pl.valkyrie[A] = 3, 2
    pos.giant(2, 1)
    pos.g.update_control()
    pos.sync()
    assert pos.g.score(pl) == K._score(pos.cf, pos.st, 0) == pos.g.rune_points(pl) + 6
    assert pos.g.giant_ev(pl) == 3.0
    c = card(pos.rules, rune=A)
    prm = pos.kargs(0)[1]
    K._turn_cache(pos.cf, pos.st, 0)                 # each choice starts with it (§4.7)
    v1 = (pos.g.slay_value(pl, c), K._slay_value(pos.cf, pos.st, 0, c, prm))
    pos.g.giant[2], pos.st.giant[2] = 5, 5
    K._turn_cache(pos.cf, pos.st, 0)
    v2 = (pos.g.slay_value(pl, c), K._slay_value(pos.cf, pos.st, 0, c, prm))
    assert v1 == v2 and v1[0] == v1[1]


def test_tied_gods_score_the_lower_value():
    """§2.6 PUBLIC: Fury [3, 3, 1]: A and B tie for first and both score rank 2 (Island 4);
    seat 0 holds region 0 (A) and region 1 (B): 8, plus a Favor card of C (rank 3: 1)."""
    pos = Pos()
    pl = pos.p[0]
    pl.settlers[0] = pl.settlers[1] = 1
    pos.g.update_control()
    pos.g.fury = [3, 3, 1]
    pl.favors = [2]                                 # favour card 2 has Rune C
    pos.sync()
    assert pos.g.score(pl) == K._score(pos.cf, pos.st, 0) == 9


def test_giant_hunter_slays_when_legal_and_no_giants_never():
    """§4.5: the option lists; giant_hunter takes the first slay, no_giants has none."""
    for pol, slays in (("giant_hunter", True), ("no_giants", False)):
        pos = Pos(policies=pol)
        pl = pos.p[0]
        pl.settlers[2], pl.valkyrie[A] = 3, 2
        pos.giant(2, 4)
        pl.hand = [card(pos.rules, rune=A), card(pos.rules, rune=B)]
        pos.g.update_control()
        pos.sync()
        ref = pos.g.choose(pl)
        j = K._choose(pos.cf, pos.st, 0, *pos.kargs(0), pos.kpol)
        ker = tuple(int(x) for x in pos.st.opts[j])
        assert ref == ker
        assert (ref[1] == 3) is slays                       # SLAY = 3


def test_leader_and_rune_actions_of_the_new_cards():
    """§3.5 (assumption §4.7): Valkyrie cards Explore + Move a Giant, Einherjar Harvest +
    free Raid."""
    cards = Pos().rules.compile().cards
    assert {(c[4], c[5]) for c in cards if c[0] == CardKind.VALKYRIE} == {
        (Leader.EXPLORE, RuneAct.MOVE_GIANT)}
    assert {(c[4], c[5]) for c in cards if c[0] == CardKind.EINHERJAR} == {
        (Leader.HARVEST, RuneAct.RAID_FREE)}


def test_slay_value_is_worked_out_again_at_each_choice():
    """§4.7: a choice keeps its slay options' Rune points (``st.tc``) for that choice only.
    Seat 0 holds region 0 (god A); at Fury [0, 0, 0] an A card's slay lifts A from the
    three-way tie (2 points) to first (6): +4; at Fury [0, 5, 5] it stays last: +0. The next
    choice (``_turn_cache`` first, as in the game) sees the change, as the reference does."""
    pos = Pos()
    pl = pos.p[0]
    pl.settlers[0] = 3
    pos.g.update_control()
    pos.sync()
    c = card(pos.rules, rune=A)
    prm = pos.kargs(0)[1]
    got = []
    for fury in ([0, 0, 0], [0, 5, 5]):
        pos.g.fury = list(fury)
        pos.st.fury[0, :] = fury
        K._turn_cache(pos.cf, pos.st, 0)
        got.append((pos.g.slay_value(pl, c), K._slay_value(pos.cf, pos.st, 0, c, prm)))
    assert all(ref == ker for ref, ker in got)
    assert got[0][0] - got[1][0] == 4


# ---------------------------------------------------------------- issue 18: seats and readings

def _held(pos, islands):
    """Seat s holds ``islands[s]`` Island Runes: one Settler of its own in each of that many
    regions (regions handed out in order), control taken by the engines' own check."""
    r = 0
    for s, k in enumerate(islands):
        for _ in range(k):
            pos.p[s].settlers[r] = 1
            r += 1
    pos.g.update_control()
    return pos.sync()


@pytest.mark.parametrize("islands, first, want", [
    ([1, 2, 2], 0, 2),        # seats 1 and 2 tie on 2: order 0 1 2, the latest tied is 2
    ([1, 2, 2], 2, 1),        # order 2 0 1: seat 1 comes after seat 2
    ([3, 1, 0], 1, 0),        # a unique most: seat 0, whoever opened
    ([0, 0, 0, 0], 1, 0),     # nobody holds one: all tie, order 1 2 3 0, the latest is 0
    ([2, 0, 2, 2], 3, 2),     # order 3 0 1 2: seats 3, 0, 2 tie, the latest is 2
])
def test_the_most_island_runes_open_the_next_era(islands, first, want):
    """§4.7 DEFAULT era_opener=most_runes, PUBLIC [DIZED] Phase 3: Cleanup: "Pass the
    Chieftain Marker to the player who has the most Island Runes ... If there is a tie for
    the most, the marker is given to the tied player latest in the previous era's turn
    order." 3 and 4 players, kernel ``_next_opener`` and reference ``next_chieftain``."""
    pos = _held(Pos(players=len(islands)), islands)
    assert [pos.g.islands(pl) for pl in pos.p] == islands
    assert pos.g.next_chieftain(pos.g.clockwise(first)) == want
    assert K._next_opener(pos.cf, pos.st, first) == want


@pytest.mark.parametrize("first, want", [(0, 1), (1, 2), (2, 0)])
def test_rotate_passes_the_marker_clockwise(first, want):
    """§4.7 era_opener=rotate (the model before issue 18): the next seat clockwise, whatever
    the Island Runes (seat 0 holds 3 here)."""
    pos = _held(Pos(players=3, era_opener="rotate"), [3, 0, 0])
    assert pos.g.next_chieftain(pos.g.clockwise(first)) == want
    assert K._next_opener(pos.cf, pos.st, first) == want


def _drain_probe(era, **options):
    pos = Pos(**options)
    pos.giant(0, 3)                               # one Giant, in region 0 (Rune A)
    pos.g.fury, pos.g.fury_nodrain = [2, 2, 2], [2, 2, 2]
    pos.g.era = era
    pos.sync()
    pos.g.cleanup()
    K._cleanup(pos.cf, pos.st)
    return same(pos)["fury"]


def test_no_giant_drain_after_the_last_era_by_default():
    """§3.4, §4.7 DEFAULT last_era_drain=false, PUBLIC [DIZED] Phase 3: Cleanup: "If it is
    the end of Era 3, the game is over and the players proceed to Final Scoring". The
    probe: Fury 2/2/2, one Giant in an A region. After Era 3 it stays 2/2/2; after Era 1
    (and after Era 3 with last_era_drain=true, the model before issue 18) A drains: 1/2/2."""
    assert _drain_probe(2) == [2, 2, 2]
    assert _drain_probe(0) == [1, 2, 2] and _drain_probe(1) == [1, 2, 2]
    assert _drain_probe(2, last_era_drain=True) == [1, 2, 2]
    assert _drain_probe(0, giant_drain=False) == [2, 2, 2]


def _sail_probe(rivals, **options):
    """3 players: seat 0 Sails 2 Settlers (2 Food) into region 3, where seats 1 and 2 have
    ``rivals`` Settlers."""
    pos = Pos(players=3, **options)
    pos.p[1].settlers[3], pos.p[2].settlers[3] = rivals
    pos.sync()
    pos.g.sail(pos.p[0], 3)
    K._sail(pos.cf, pos.st, 0, 3)
    return same(pos)


def test_attack_settlers_follows_a_sail_that_deploys():
    """§2.3 DEFAULT attack_after_deploy=true, PUBLIC [DIZED] Icon Reference: "Attack
    Settlers: After adding Settlers to an Island, if you have more Settlers than each other
    player, each must remove 1 of their Settlers." Seat 0 deploys 2 into region 3: against
    1 and 1, 2 > 1 and 2 > 1, both rivals lose one (back to their mats); against 2 and 1 it
    does not outnumber seat 1, nobody loses one; with the option off, nobody loses one."""
    v = _sail_probe((1, 1))
    assert v["settlers"][0][3] == 2 and v["settlers"][1][3] == 0 and v["settlers"][2][3] == 0
    assert v["mat"][1] == v["mat"][2] == 6
    v = _sail_probe((2, 1))
    assert (v["settlers"][1][3], v["settlers"][2][3]) == (2, 1)
    v = _sail_probe((1, 1), attack_after_deploy=False)
    assert (v["settlers"][1][3], v["settlers"][2][3]) == (1, 1)


@pytest.mark.parametrize("actor, want", [(2, 3), (0, 1), (3, 0)])
def test_smite_ties_go_clockwise_from_the_actor(actor, want):
    """§4.7: Smite in region 3 where every other seat of 4 has 1 Settler: the tie goes to
    the first rival clockwise from the actor (seat 2 smites seat 3, seat 3 smites seat 0),
    never to the lowest seat number."""
    pos = Pos(players=4)
    for s in range(4):
        if s != actor:
            pos.p[s].settlers[3] = 1
    pos.sync()
    pos.g.smite(pos.p[actor], 3)
    K._smite(pos.cf, pos.st, actor, 3)
    v = same(pos)
    assert [v["settlers"][s][3] for s in range(4) if s != actor].count(0) == 1
    assert v["settlers"][want][3] == 0


def test_battles_to_join_are_listed_clockwise_and_ties_go_to_the_nearest():
    """§4.7: seat 2 of 4 may join the battles of seats 0 and 3, whose prizes (Favor cards 0
    and 3, both Rune A) are worth the same: the option list has seat 3's first (clockwise
    from 2: 3, 0, 1), so greedy_vp's tie goes to seat 3, on both engines. (The Favor rows
    are empty, so no battle can be started; joining, about 2.6 VP, beats face up, 1.5.)"""
    pos = Pos(players=4)
    c, d = card(pos.rules, rune=B, cost=0), card(pos.rules, rune=C, cost=0)
    e = card(pos.rules, rune=A, cost=0)
    g = pos.g
    g.rows = [[0], [3]]
    for starter, prize, row, cd in ((0, 0, 0, c), (3, 3, 1, d)):
        g.rows[row].remove(prize)
        g.battles[starter] = {"prize": prize, "row": row, "end": 1,
                              "entries": [(starter, cd, g.strength(g.players[starter], cd))]}
    g.players[2].hand = [e]
    pos.sync()
    joins = [x for _, use, x in g.options(g.players[2]) if use == 2]
    k = K._options(pos.cf, pos.st, 2, *pos.kargs(2), False)
    assert joins == [3, 0]
    assert [int(x) for _, use, x in pos.st.opts[:k] if use == K.JOIN] == [3, 0]
    assert g.option_value(g.players[2], (0, 2, 3)) == g.option_value(g.players[2], (0, 2, 0))
    i, use, x = g.choose(g.players[2])
    j = K._choose(pos.cf, pos.st, 2, *pos.kargs(2), pos.kpol)
    assert (use, x) == (2, 3) and (int(pos.st.opts[j, 1]), int(pos.st.opts[j, 2])) == (2, 3)


@pytest.mark.parametrize("first", [0, 1, 2])
def test_a_full_tie_goes_to_the_earlier_turn_position(first):
    """§2.6 then §4.7: 3 seats equal on every key (blank position: score 0, no Islands ...):
    the winner is the first player (first_seat), not seat 0. Kernel ``_winner``, reference
    ``winner``."""
    pos = Pos(players=3, first_seat=first)
    pos.sync()
    assert pos.g.winner() == first
    assert K._winner(pos.cf, pos.st) == first


def test_hand_size_follows_the_era():
    """§4.3, PUBLIC [DIZED] 2-player drafting: "the normal number of cards for the era ... in
    Era 1, deal each player 4-card hands". 3 players, the engines' own draft: Era 1 deals 4
    cards a hand (12 off the deck), Era 3 deals 6 (18)."""
    for era, k in ((0, 4), (2, 6)):
        pos = Pos(players=3)
        pos.g.deck, pos.g.era = list(range(60)), era
        pos.sync()
        pos.g.draft()
        K._draft(pos.cf, pos.st, np.array(pos.kinds), np.array(pos.params), None, pos.kpol)
        assert [len(pl.hand) for pl in pos.p] == [k] * 3
        assert [int(x) for x in pos.st.nhand] == [k] * 3
        assert [sorted(pl.hand) for pl in pos.p] == [sorted(pos.st.hand[s, :k]) for s in range(3)]
        assert len(pos.g.deck) == int(pos.st.sc[K.SC_NDECK]) == 60 - 3 * k


@pytest.mark.parametrize("params, want", [("default", [6, 0, 2, 4]),
                                          ("start_clustered", [3, 0, 1, 2])])
def test_start_regions_follow_the_turn_position(params, want):
    """§4.7: the first player (first_seat=1 of 4) starts in region 0, the next clockwise in
    region 2, then 4, then 6 (k x 8 // 4); start_clustered: regions 0, 1, 2, 3. So seat 0
    (the fourth player) starts in region 6 (3). Both engines' setup, the same dice."""
    rules = Rules(first_seat=1, params=params)
    g = reference.Game(rules, [0] * 4, [[0.0] * N_PARAMS] * 4, np.random.default_rng(5), None)
    g.setup()
    cf = rules.compile()
    st = K.new_state(cf, 4)
    K._setup_game(cf, st, np.random.default_rng(5))
    for s in range(4):
        assert g.players[s].settlers[want[s]] == 2 and st.settlers[s, want[s]] == 2
    assert g.deck == list(st.deck[:st.sc[K.SC_NDECK]])
