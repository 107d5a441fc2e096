"""Raid & Conquer tests that bite (issue 18 §5): each checks one rule that a consistent
misreading of kernel, reference and shared data got past the rules tests, on **both** engines'
own code: the kernel's phase functions (``_setup``, ``_draw_phase``, ``_play_round``,
``_action_phase``, ``_cleanup``, loaded as plain Python with ``core.testing.plain_module``)
and the reference's own methods (``Game.play_round``, ``Game.action_phase``, ...), never a
copy of a phase loop in this file. Expected values are worked by hand from the rules notes
(``docs/rules/raidconquer.md``, section in each docstring) in the comments. Every rule option
a test depends on is set explicitly (``RULES``), never taken from a default; where the turn
direction matters the test seats 3 or 4 players.
"""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.testing import plain_module
from vikingsim.games.raidconquer import OPTIONS
from vikingsim.games.raidconquer import reference as R
from vikingsim.games.raidconquer import setup as make_setup
from vikingsim.games.raidconquer import state

K = plain_module("vikingsim.games.raidconquer.kernel")
_CARDS = plain_module("vikingsim.core.cards")           # the piles' code as plain Python too
K._draw, K._shuffle = _CARDS._draw, _CARDS._shuffle

#: every rule these tests lean on, set explicitly (defaults may change; these may not)
RULES = dict(catalog="", end_condition="conquer", max_rounds=60, first_seat=0, hand_size=5,
             winter_rounds=4, start_coins=8, start_longboats=2, play_all_cards=True,
             setup_hand_is_round1_hand=True, card_defense_counts="when_defending",
             defend_includes_base_power=True, earl_marker_resets=True,
             acquire_refills_row=True, acquire_payment="at_least",
             chaotic_party="own_longboat", pillage_treasures=False,
             shipbuild_longboat_counts=True, base_power_per_raider=True,
             failed_raid_tie="leftmost", final_tie="shared", attack_character_replaces=True,
             score_cards_in_play=True, character_offset=0, start_card="",
             rotate_characters=False)
#: a plan without buys, so Main phases leave the rows alone
QUIET = "hints(max_buys=0)"


def _setup(players, policies=None, **opts):
    base = {o.name: o.default for o in OPTIONS}
    return make_setup({**base, **RULES, **opts}, policies or [QUIET] * players, players)


def blank(players, policies=None, **opts):
    """A game with every pile and row empty, supplies full, no Treasures, marker at seat 0."""
    s = _setup(players, policies, **opts)
    g = R.Game(s, 0, np.random.default_rng(0), np.random.default_rng(1))
    for pl in g.players:
        pl.deck, pl.discard, pl.hand, pl.play, pl.raid, pl.bury = [], [], [], [], [], []
        pl.action, pl.target = R.DEFEND, -1
    g.vdeck, g.treasure, g.raid_deck = [], [], []
    g.vrow, g.raid_row = [R.EMPTY] * 5, [R.EMPTY] * 5
    cat = s.catalog
    g.supply = [int(cat.copies[k]) if cat.pile[k] in R.SUPPLY_PILES else 0
                for k in range(cat.n_kinds)]
    g.box = [0] * cat.n_kinds
    g.first, g.earl_side = 0, False
    return s, g


def ids(s, *names):
    return [s.catalog.id_of(n) for n in names]


def in_play(g, seat, cards):
    g.players[seat].play = [[k, R.NORMAL] for k in cards]


def both(s, g, ref, ker, seed=5):
    """``ref(g)`` on the reference, ``ker(w, c, dice, pol)`` on a packed copy for the kernel;
    the two positions must agree. Returns the kernel's view (= the reference's)."""
    w = state.pack(g, s)
    g.dice, g.pol = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    ref(g)
    ker(w, s.compiled, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    a, b = state.view(w, len(g.players)), state.of_game(g)
    assert state.diff(a, b) == [], [(k, a[k], b[k]) for k in state.diff(a, b)]
    return a


def k_action_phase(s, rnd=5):
    def run(w, c, dice, pol):
        K._action_phase(c.ri, c.card, c.base_attack, c.base_defense, s.kinds, s.params,
                        s.forbid, w["sh"], w["shn"], w["rows"], w["supply"], w["pp"], w["pn"], w["fl"],
                        w["ps"], w["gs"], len(s.kinds), rnd, w["s1"], w["s2"])
    return run


def k_play_round(s, rnd):
    def run(w, c, dice, pol):
        K._play_round(c.ri, c.card, c.alt, c.alt_n, state.scores(s), c.base_attack,
                      c.base_defense, s.kinds, s.params, s.forbid, w["sh"], w["shn"], w["rows"],
                      w["supply"], w["pp"], w["pn"], w["fl"], w["ps"], w["gs"], len(s.kinds),
                      rnd, w["s1"], w["s2"], w["ec"], dice, pol)
    return run


def k_draw_phase(s, rnd):
    def run(w, c, dice, pol):
        K._draw_phase(c.ri, w["pp"], w["pn"], w["fl"], w["gs"], len(s.kinds), rnd, dice)
    return run


def k_cleanup(s):
    def run(w, c, dice, pol):
        K._cleanup(c.ri, c.card, w["sh"], w["shn"], w["pp"], w["pn"], w["fl"], w["ps"],
                   w["supply"], w["gs"], len(s.kinds))
    return run


def k_setup(s, players, seed):
    """The kernel's ``_setup`` on fresh scratch arrays, with the reference's dice seed."""
    w = K.scratch(s, players)
    c = s.compiled
    K._setup(c.ri, c.card, players, 0, w["pp"], w["pn"], w["fl"], w["ps"], w["sh"], w["shn"],
             w["tmp"], w["rows"], w["supply"], w["box"], w["gs"], np.random.default_rng(seed))
    return w


# ---------------------------------------------------------------- §11.3 Kalf, ATTACK CHARACTER

@pytest.mark.parametrize("warriors, succeeds", [(1, False), (2, True)])
def test_kalf_has_the_power_of_3_when_attacking(warriors, succeeds):
    """§11.3: Kalf's Power *is* 3 when attacking (replaces his printed 1). Seat 0 attacks
    seat 1 with Kalf and Warriors (Power 1 each). Seat 1 Defends with nothing in play:
    Defense 5 + Power 0 + the shield's 2 = 7 (§8.1.1, §13.2 ``defend_includes_base_power``).
    One Warriors: 3 + 1 + 2 = 6 < 7, the attack fails (read as "+3" it would be
    1 + 3 + 1 + 2 = 7 and succeed). Two Warriors: 3 + 1 + 1 + 2 = 7 >= 7: a Treasure (the top
    one, Jeweled Reliquary) and the Loot of seat 1's only discard, the Housecarl (§8.2.3)."""
    s, g = blank(2)
    kalf, war, house, torc, reliq = ids(s, "Kalf", "Warriors", "Housecarl", "Gold Torc",
                                        "Jeweled Reliquary")
    in_play(g, 0, [kalf] + [war] * warriors)
    g.players[0].action, g.players[0].target = R.ATTACK, 1
    g.players[1].discard = [house]
    g.treasure = [torc, reliq]
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    if succeeds:
        assert v[(0, "discard")] == [reliq, house] and v["treasure"] == [torc]
        assert v[(1, "discard")] == []
    else:
        assert v[(0, "discard")] == [] and v["treasure"] == [torc, reliq]
        assert v[(1, "discard")] == [house]


def test_kalf_counts_his_printed_power_in_a_raid():
    """§11.3: ATTACK CHARACTER applies only when attacking a character. Kalf + a Longboat on
    a Lone Raid: Power 1 + 2 = 3 takes Lindisfarne (Defense 3), not Coastal Church (Defense
    4, which 3 + 2 = 5 would reach)."""
    s, g = blank(2)
    kalf, boat, lind, church = ids(s, "Kalf", "Longboat", "Lindisfarne", "Coastal Church")
    in_play(g, 0, [kalf, boat])
    g.players[0].action = R.LONE
    g.raid_row = [lind, church, R.EMPTY, R.EMPTY, R.EMPTY]
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    assert v[(0, "raid")] == [lind] and v["raid_row"][1] == church


# ---------------------------------------------------------------- §4.3 Raid Row start

#: §4.3 table typed from the notes: cards of Level 1..5 in the starting Raid Row
ROW_BY_PLAYERS = {2: [3, 2, 0, 0, 0], 3: [2, 2, 1, 0, 0], 4: [1, 2, 1, 1, 0],
                  5: [1, 1, 1, 1, 1]}
#: §4.3: the Levels in the Raid deck (the rest go back in the box)
LEVELS_BY_PLAYERS = {2: {1, 2}, 3: {1, 2, 3}, 4: {1, 2, 3, 4}, 5: {1, 2, 3, 4, 5}}
#: the catalog's Raid cards per Level (test_raidconquer_catalog types the cards)
CARDS_PER_LEVEL = {1: 5, 2: 5, 3: 4, 4: 4, 5: 3}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [3, 11])
def test_raid_row_start_by_player_count(players, seed):
    """§4.3: the starting Raid Row holds the table's Levels (4 players: one L1, two L2, one
    L3, one L4), lowest Level leftmost; the deck holds the rest of the included Levels; the
    Levels above the player count are in the box. Kernel ``_setup`` = reference setup."""
    s = _setup(players)
    g = R.Game(s, 0, np.random.default_rng(seed), np.random.default_rng(0))
    w = k_setup(s, players, seed)
    assert state.diff(state.view(w, players), state.of_game(g)) == []
    level = [int(x) for x in s.catalog.level]
    row = [level[k] for k in g.raid_row]
    assert [row.count(lv) for lv in range(1, 6)] == ROW_BY_PLAYERS[players]
    assert row == sorted(row)
    deck = [level[k] for k in g.raid_deck]
    for lv in range(1, 6):
        kept = CARDS_PER_LEVEL[lv] if lv in LEVELS_BY_PLAYERS[players] else 0
        assert deck.count(lv) + row.count(lv) == kept
        boxed = sum(g.box[k] for k in range(len(level)) if level[k] == lv)
        assert boxed == CARDS_PER_LEVEL[lv] - kept


# ---------------------------------------------------------------- §8 order of the actions

def test_raid_party_is_resolved_before_the_lone_raid():
    """§8: I Defend, II Attack, III Raid Party, IV Lone Raid. 3 players. Seat 0 (Raid Party,
    the only chooser, so Earl; Berserker + Longboat: 3 + 2 = 5) and seat 1 (Lone Raid,
    Torstein + Longboat: 2 + 2 = 4) can both take only Lindisfarne (Defense 3; the rest of
    the Row is 9-12). The party goes first: seat 0 takes Lindisfarne, Jarl Borg (Defense 8)
    refills its slot from the top of the Raid deck; the Lone Raider's 4 then reaches nothing:
    a failed raid (§8.5) sends the highest Defense (Mediterranean Fleet, 12) under the Raid
    deck and York (6) refills from the top. Treasures: seat 0 gains the top one (Reliquary),
    seat 1 none. (Lone Raid first: seat 1 would hold Lindisfarne and seat 0 fail.)"""
    s, g = blank(3)
    ber, tor, boat, lind, rouen, paris, walls, fleet, jarl, torc, reliq, york = ids(
        s, "Berserker", "Torstein", "Longboat", "Lindisfarne", "Rouen", "Paris",
        "Constantinople Walls", "Mediterranean Fleet", "Jarl Borg", "Gold Torc",
        "Jeweled Reliquary", "York")
    in_play(g, 0, [ber, boat])
    in_play(g, 1, [tor, boat])
    g.players[0].action, g.players[1].action = R.PARTY, R.LONE
    g.players[2].action = R.LONE                                # no Longboat: not eligible
    g.raid_row = [lind, rouen, paris, walls, fleet]
    g.raid_deck = [york, jarl]
    g.treasure = [torc, reliq]
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    assert v[(0, "raid")] == [lind] and v[(1, "raid")] == [] and v[(1, "won")] == 0
    assert v["raid_row"] == [jarl, rouen, paris, walls, york]
    assert v["raid_deck"] == [fleet] and v["failed_raids"] == 1
    assert v[(0, "discard")] == [reliq] and v[(1, "discard")] == []
    assert v["first"] == 0 and v["earl_side"] is True


# ---------------------------------------------------------------- §8.2.3 Pillage threshold

@pytest.mark.parametrize("warriors, pillages", [(2, False), (3, True)])
def test_pillage_needs_the_defense_plus_the_raid_cards_defense(warriors, pillages):
    """§8.2.3: Pillage only if Power >= the defender's Defense + that card's Defense. Seat 1
    Defends with a Shieldmaiden (Power 2, Defense 1): Defense 5 + 2 + the shield's 2 + card
    Defense 1 = 10 (§8.1.1, §13.1 ``when_defending``, §13.2). Its Raid pile holds Lindisfarne
    (Defense 3): Pillage needs 13. Seat 0: four Torsteins (2 each) and Warriors (1 each)
    + 2: with two Warriors 12 (>= 10, the attack succeeds but cannot Pillage: it Loots the
    Housecarl); with three 13: it Pillages Lindisfarne. Either way the top Treasure."""
    s, g = blank(2)
    tor, war, maid, lind, house, torc = ids(s, "Torstein", "Warriors", "Shieldmaiden",
                                            "Lindisfarne", "Housecarl", "Gold Torc")
    in_play(g, 0, [tor] * 4 + [war] * warriors)
    g.players[0].action, g.players[0].target = R.ATTACK, 1
    in_play(g, 1, [maid])
    g.players[1].raid, g.players[1].discard = [lind], [house]
    g.treasure = [torc]
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    if pillages:
        assert v[(0, "raid")] == [lind] and v[(1, "raid")] == []
        assert v[(0, "pillaged")] == 1 and v[(1, "lost")] == 1
        assert v[(0, "discard")] == [torc] and v[(1, "discard")] == [house]
    else:
        assert v[(0, "raid")] == [] and v[(1, "raid")] == [lind]
        assert v[(0, "discard")] == [torc, house] and v[(1, "discard")] == []


# ---------------------------------------------------------------- §5 Winter rounds

@pytest.mark.parametrize("rnd, winter, raids", [(4, 4, False), (5, 4, True), (4, 3, True)])
def test_four_winter_rounds_have_no_action_phase(rnd, winter, raids):
    """§5, §9.2 step 4: rounds 1-4 are Winter (no Secret Plan, no Action phase), Spring
    from round 5. Seat 0 holds Berserker, Torstein and a Longboat: P = 3 + Battle Frenzy 1
    + 2 + 2 = 8, >= the Row's lowest Defense (Lindisfarne 3), so its plan (lone>defend) is a
    Lone Raid at the highest Defense <= 8: Jarl Borg (8). Round 4 with 4 Winter rounds: no
    raid. Round 5 (or round 4 with ``winter_rounds`` = 3): Jarl Borg taken, Lindisfarne
    stays. Played by both engines' own round functions (Draw, Plan, Main, Action)."""
    pols = ["hints(plan=lone>defend, lone_margin=0, max_buys=0)", QUIET, QUIET]
    s, g = blank(3, pols, winter_rounds=winter)
    ber, tor, boat, lind, jarl, walls = ids(s, "Berserker", "Torstein", "Longboat",
                                            "Lindisfarne", "Jarl Borg",
                                            "Constantinople Walls")
    g.players[0].hand = [ber, tor, boat]
    g.raid_row = [lind, jarl, walls, R.EMPTY, R.EMPTY]
    v = both(s, g, lambda g: g.play_round(rnd), k_play_round(s, rnd))
    assert v[(0, "play")] == [ber, tor, boat]                    # Main: the hand is played
    if raids:
        assert v[(0, "raid")] == [jarl] and v["raid_row"][:3] == [lind, R.EMPTY, walls]
    else:
        assert v[(0, "raid")] == [] and v["raid_row"][:3] == [lind, jarl, walls]


# ---------------------------------------------------------------- §3.3 reshuffle mid-draw

def test_a_deck_that_runs_out_mid_draw_is_reshuffled():
    """§3.3, §6.1: a draw from an empty deck first shuffles the discard pile into a new
    deck. Round 2, 3 players, hand size 5. Seat 1 has 2 cards in its deck (Kalf under,
    Torstein on top) and 6 Coins discarded: it draws Torstein, Kalf, then the 6 Coins become
    its deck and it draws 3 of them: hand 5 (Torstein, Kalf, 3 Coins), deck 3 Coins, discard
    empty. Seat 0 and seat 2 (empty piles) draw nothing."""
    s, g = blank(3)
    kalf, tor, coin = ids(s, "Kalf", "Torstein", "Coin")
    g.players[1].deck = [kalf, tor]
    g.players[1].discard = [coin] * 6
    v = both(s, g, lambda g: g.draw_phase(2), k_draw_phase(s, 2))
    assert v[(1, "hand")] == [tor, kalf, coin, coin, coin]
    assert v[(1, "deck")] == [coin] * 3 and v[(1, "discard")] == []
    assert v[(0, "hand")] == [] and v[(2, "hand")] == []


# ---------------------------------------------------------------- §4.6, §13.11 round-1 hand

@pytest.mark.parametrize("is_round1", [True, False])
def test_the_setup_hand_is_the_round_1_hand(is_round1):
    """§4.6, §13.11: with ``setup_hand_is_round1_hand`` the 5 cards drawn at setup are the
    round-1 hand: round 1 draws nothing, the Main phase plays exactly those 5 and the deck
    keeps the other 5 (of 8 Coins + 2 Longboats). The other reading draws 5 more in round 1:
    all 10 are played, the deck is empty. 3 players; both engines' own setup and round."""
    s = _setup(3, setup_hand_is_round1_hand=is_round1)
    g = R.Game(s, 0, np.random.default_rng(4), np.random.default_rng(0))
    w = k_setup(s, 3, 4)
    assert state.diff(state.view(w, 3), state.of_game(g)) == []
    dealt = [sorted(pl.hand) for pl in g.players]
    g.dice, g.pol = np.random.default_rng(8), np.random.default_rng(9)
    g.play_round(1)
    k_play_round(s, 1)(w, s.compiled, np.random.default_rng(8), np.random.default_rng(9))
    v = state.view(w, 3)
    assert state.diff(v, state.of_game(g)) == []
    coin, boat = ids(s, "Coin", "Longboat")
    for seat in range(3):
        played = sorted(v[(seat, "play")])
        if is_round1:
            assert played == dealt[seat] and len(v[(seat, "deck")]) == 5
        else:
            assert played == sorted([coin] * 8 + [boat] * 2) and v[(seat, "deck")] == []


# ---------------------------------------------------------------- §7.1, §8, §9.2 clockwise

@pytest.mark.parametrize("players", [3, 4])
def test_the_first_player_marker_passes_clockwise(players):
    """§9.2 step 3: raven side up the marker passes to the next player clockwise (seat + 1,
    the order of §7.1): 0 -> 1 -> ... -> players - 1 -> 0. Earl side up it stays one round
    and turns raven side up (``earl_marker_resets``), then passes on."""
    s, g = blank(players)
    seen = []
    w = state.pack(g, s)
    for _ in range(players + 1):
        g.cleanup()
        k_cleanup(s)(w, s.compiled, None, None)
        seen.append((g.first, int(w["gs"][K.GS_FIRST])))
    assert seen == [((i + 1) % players,) * 2 for i in range(players + 1)]
    g.first, g.earl_side = players - 1, True
    w = state.pack(g, s)
    after = []
    for _ in range(2):
        g.cleanup()
        k_cleanup(s)(w, s.compiled, None, None)
        after.append((g.first, g.earl_side, int(w["gs"][K.GS_FIRST]),
                      bool(w["gs"][K.GS_EARL_SIDE])))
    assert after == [(players - 1, False, players - 1, False), (0, False, 0, False)]


def test_actions_resolve_clockwise_from_the_first_player():
    """§8: each action is resolved clockwise from the First Player. 3 players, marker at
    seat 2: the order is 2, 0, 1. Seats 0 and 1 both Defend with two Hacksilver buried (4
    Silver) and the Row holds one card, Coastal Church (Defense 4): seat 0 comes first and
    acquires it (and the top Treasure); seat 1 finds the Row empty (counter-clockwise, 2, 1,
    0, seat 1 would have it)."""
    s, g = blank(3)
    hack, church, torc = ids(s, "Hacksilver", "Coastal Church", "Gold Torc")
    for seat in (0, 1):
        g.players[seat].bury = [hack, hack]
    g.players[2].action = R.LONE                                # no Longboat: nothing
    g.first = 2
    g.raid_row = [church, R.EMPTY, R.EMPTY, R.EMPTY, R.EMPTY]
    g.treasure = [torc]
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    assert v[(0, "raid")] == [church] and v[(0, "bury")] == [] and v[(0, "acquired")] == 1
    assert v[(1, "raid")] == [] and v[(1, "bury")] == [hack, hack]
    assert v[(0, "discard")] == [torc]


def test_main_phase_buys_go_clockwise_from_the_first_player():
    """§7.1: Main turns go clockwise from the First Player. 4 players, marker at seat 3: the
    order is 3, 0, 1, 2. Round 2 (Winter): seats 1 and 2 hold 5 Coins each (a full hand:
    nothing to draw); the Viking Row holds one Berserker (cost 5) and the Viking deck is
    empty: seat 1 buys it, seat 2 comes after and cannot (it buys from the supply piles)."""
    pol = "hints(max_buys=1, longboats_wanted=0)"
    s, g = blank(4, [pol] * 4)
    coin, ber = ids(s, "Coin", "Berserker")
    for seat in (1, 2):
        g.players[seat].hand = [coin] * 5
    g.first = 3
    g.vrow = [ber, R.EMPTY, R.EMPTY, R.EMPTY, R.EMPTY]
    v = both(s, g, lambda g: g.play_round(2), k_play_round(s, 2))
    assert ber in v[(1, "discard")] and ber not in v[(2, "discard")]
    assert v["vrow"] == [R.EMPTY] * 5


# ---------------------------------------------------------------- §8.1.2 Defend's bury

@pytest.mark.parametrize("cards, buried", [
    (("Hacksilver", "Coin", "Hacksilver"), "Coin"),        # a Coin first, wherever it lies
    (("Hacksilver", "Torstein"), "Hacksilver"),            # no Coin: then Hacksilver
])
def test_defend_buries_a_coin_first_then_hacksilver(cards, buried):
    """§8.1.2, §12.4 (hints 5: bury a Coin first, then Hacksilver, from the cards in play).
    Seat 0 Defends with these cards in play and an empty Raid Row (nothing to acquire):
    exactly one card goes to its Bury pile, the rest stay in play."""
    pol = "hints(max_buys=0, defend_bury=true)"
    s, g = blank(3, [pol] * 3)
    in_play(g, 0, ids(s, *cards))
    v = both(s, g, lambda g: g.action_phase(5), k_action_phase(s))
    k = ids(s, buried)[0]
    assert v[(0, "bury")] == [k]
    rest = list(ids(s, *cards))
    rest.remove(k)
    assert v[(0, "play")] == rest
