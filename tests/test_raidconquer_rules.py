"""Forced-deck tests of Raid & Conquer, one or more per rule (notes ``raidconquer.md``).

Each test lays out a position by hand (piles, rows, chosen actions) in a reference game, copies
it into the kernel's arrays (``state.pack``), runs the rule on **both** engines (the compiled
kernel's own phase function and the reference's method), checks that the two positions agree,
and checks the hand-computed expectation written in the comments.
"""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.games.raidconquer import kernel as K
from vikingsim.games.raidconquer import reference as R
from vikingsim.games.raidconquer import setup as make_setup
from vikingsim.games.raidconquer import state, OPTIONS
from vikingsim.games.raidconquer.rules import ROW_START

DEFAULTS = {o.name: o.default for o in OPTIONS}


def _setup(players=2, policies=None, **opts):
    return make_setup({**DEFAULTS, **opts}, policies or ["hints"] * players, players)


def blank(players=2, policies=None, **opts):
    """A game with every pile emptied (rows empty, supplies full, no Treasures)."""
    s = _setup(players, policies, **opts)
    g = R.Game(s, 0, np.random.default_rng(0), np.random.default_rng(1))
    for pl in g.players:
        pl.deck, pl.discard, pl.hand, pl.play, pl.raid, pl.bury = [], [], [], [], [], []
    g.vdeck, g.treasure, g.raid_deck = [], [], []
    g.vrow, g.raid_row = [R.EMPTY] * 5, [R.EMPTY] * 5
    cat = s.catalog
    g.supply = [int(cat.copies[k]) if cat.pile[k] in R.SUPPLY_PILES else 0
                for k in range(cat.n_kinds)]
    g.box = [0] * cat.n_kinds
    g.first = 0
    return s, g


def ids(s, *names):
    return [s.catalog.id_of(n) for n in names]


def both(s, g, ref, ker, seed=5):
    """Run ``ref(g)`` on the reference and ``ker(w, c, dice, pol)`` on a packed copy with
    the compiled kernel; assert the positions agree; return the reference game."""
    w = state.pack(g, s)
    g.dice, g.pol = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    ref(g)
    ker(w, s.compiled, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    a, b = state.view(w, len(g.players)), state.of_game(g)
    assert state.diff(a, b) == [], [(k, a[k], b[k]) for k in state.diff(a, b)]
    return g


def k_main(s, seat, spring):
    def run(w, c, dice, pol):
        K._main_turn(c.ri, c.card, c.alt, c.alt_n, state.scores(s)[seat], s.kinds[seat],
                     s.params[seat], s.forbid[seat], w["rows"], w["supply"], w["sh"], w["shn"],
                     w["pp"], w["pn"], w["fl"], w["ps"], seat, spring, w["ec"], w["gs"][3],
                     dice, pol)
    return run


def k_actions(s, rnd=5):
    def run(w, c, dice, pol):
        K._action_phase(c.ri, c.card, c.base_attack, c.base_defense, s.kinds, s.params,
                        s.forbid, w["sh"], w["shn"], w["rows"], w["supply"], w["pp"], w["pn"], w["fl"],
                        w["ps"], w["gs"], len(s.kinds), rnd, w["s1"], w["s2"])
    return run


def r_actions(rnd=5):
    def run(g):
        for pl in g.order():
            if pl.action == R.DEFEND:
                g.defend(pl)
        g.attacks()
        g.raid_party(rnd)
        g.lone_raid()
    return run


def k_cleanup(s):
    def run(w, c, dice, pol):
        K._cleanup(c.ri, c.card, w["sh"], w["shn"], w["pp"], w["pn"], w["fl"], w["ps"],
                   w["supply"], w["gs"], len(s.kinds))
    return run


def play(g, seat, cards, flags=None):
    g.players[seat].play = [[k, f] for k, f in zip(cards, flags or [R.NORMAL] * len(cards))]


# ---------------------------------------------------------------- §4 setup

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_by_player_count(players):
    """§4.3 Raid Row levels by player count, §4.6 8 Coins + 2 Longboats and a 5-card hand,
    §4.2 a 5-card Viking Row, §2 every card somewhere; kernel _setup = reference setup."""
    s = _setup(players)
    g = R.Game(s, 0, np.random.default_rng(9), np.random.default_rng(0))
    w = K.scratch(s, players)
    c = s.compiled
    K._setup(c.ri, c.card, players, 0, w["pp"], w["pn"], w["fl"], w["ps"], w["sh"], w["shn"],
             w["tmp"], w["rows"], w["supply"], w["box"], w["gs"], np.random.default_rng(9))
    a, b = state.view(w, players), state.of_game(g)
    assert state.diff(a, b) == []
    levels = [int(s.catalog.level[k]) for k in g.raid_row]
    assert levels == sorted(levels)
    assert [levels.count(lv) for lv in range(1, 6)] == list(ROW_START[players])
    coin, boat = ids(s, "Coin", "Longboat")
    for pl in g.players:
        cards = pl.deck + pl.hand
        assert len(pl.hand) == 5 and cards.count(coin) == 8 and cards.count(boat) == 2
    assert g.supply[coin] == 40 - 8 * players and g.supply[boat] == 25 - 2 * players
    assert len(g.vrow) == 5 and len(g.vdeck) == 60 - 5 and len(g.treasure) == 44
    # §4.3: 21 Raid cards = L1 5, L2 5, L3 4, L4 4, L5 3; the levels above the count go to
    # the box: 2 players keep 10 (5 in the Row, 5 in the deck), 5 players all 21
    kept = {2: 10, 3: 14, 4: 18, 5: 21}[players]
    assert len(g.raid_deck) == kept - 5 and sum(g.box) == 21 - kept
    assert g.census() == [int(x) for x in s.catalog.copies]


def test_characters_rotate_with_offset():
    """§4.6: seat i plays character (i + offset) mod 5; rotate adds the game index."""
    s = _setup(4, character_offset=3)
    g = R.Game(s, 0, np.random.default_rng(0), np.random.default_rng(0))
    assert [pl.char for pl in g.players] == [3, 4, 0, 1]
    s = _setup(4, rotate_characters=True)
    g = R.Game(s, 7, np.random.default_rng(0), np.random.default_rng(0))
    assert [pl.char for pl in g.players] == [2, 3, 4, 0]          # (i + 7) mod 5


@pytest.mark.parametrize("variant, seat, pile_left", [
    ("lagertha:Berserker", 1, ("vdeck", 3 - 1)), ("ragnar:Hacksilver", 0, ("supply", 14)),
    ("rollo:Gold Torc", 2, ("treasure", 10)), ("bjorn:Kalf", None, ("vdeck", 2))])
def test_start_card_variant(variant, seat, pile_left):
    """§12.3 designer variant ``start_card``: the character's starting deck holds one more
    card, taken from its pile (Berserker: 3 copies, 2 left in the Viking deck and Row; Bjorn
    is not seated at 4 players, so nothing moves); kernel _setup = reference setup."""
    s = _setup(4, start_card=variant)
    g = R.Game(s, 0, np.random.default_rng(2), np.random.default_rng(0))
    w = K.scratch(s, 4)
    c = s.compiled
    K._setup(c.ri, c.card, 4, 0, w["pp"], w["pn"], w["fl"], w["ps"], w["sh"], w["shn"],
             w["tmp"], w["rows"], w["supply"], w["box"], w["gs"], np.random.default_rng(2))
    assert state.diff(state.view(w, 4), state.of_game(g)) == []
    k = s.catalog.id_of(variant.split(":")[1])
    sizes = [len(pl.deck + pl.hand) for pl in g.players]
    assert sizes == [10 + (i == seat) for i in range(4)]
    if seat is not None:
        assert k in g.players[seat].deck + g.players[seat].hand
    where, left = pile_left
    have = {"vdeck": (g.vdeck + g.vrow).count(k), "supply": g.supply[k],
            "treasure": g.treasure.count(k)}[where]
    assert have == left and g.census() == [int(x) for x in s.catalog.copies]


@pytest.mark.parametrize("bad", ["ragnar", "thor:Kalf", "ragnar:Nobody", "ragnar:Paris"])
def test_start_card_rejects_bad_values(bad):
    from vikingsim.core.errors import InputError
    with pytest.raises(InputError, match="start_card"):
        _setup(4, start_card=bad)


# ---------------------------------------------------------------- the seed's Sample Round

def test_sample_round():
    """SEED Sample Round: the hand Warriors, Berserker, Hedeby Trader, Odin's Witness and a
    Longboat: Power 1 + 3 + Battle Frenzy 2 (Warriors, Trader) = 6, + the shield's 2 = 8;
    Silver 2 + 1 = 3. Secret Plan: Lone Raid (8 >= lowest Row Defense 8). Main: everything
    played, the Longboat bought for 3 (owned 1 < 3 wanted). Action: 8 Power takes Jarl Borg
    (Defense 8, the highest <= 8) and a Treasure. End of Round: all cards to the discard; the
    deck is empty, so the next draw shuffles the discard into a new deck."""
    s, g = blank(2)
    war, ber, trader, odin, boat, jarl, rouen, seine, paris, walls, torc = ids(
        s, "Warriors", "Berserker", "Hedeby Trader", "Odin's Witness", "Longboat",
        "Jarl Borg", "Rouen", "Seine Abbey", "Paris", "Constantinople Walls", "Gold Torc")
    me, other = g.players
    me.hand = [war, ber, trader, odin, boat]
    other.hand = []
    g.raid_row = [jarl, rouen, seine, paris, walls]
    g.raid_deck = [ids(s, "York")[0]]
    g.treasure = [torc]
    g.round = 5

    def ref(g):
        me.action, me.target = g.plan(me)
        assert me.action == R.LONE
        other.action = R.DEFEND
        g.main_turn(me, True)
        r_actions()(g)
        g.cleanup()

    def ker(w, c, dice, pol):
        act, tgt = K._plan(c.ri, c.card, c.alt, c.base_attack, s.kinds[0], s.params[0], 0, 2,
                           w["pp"], w["pn"], w["fl"], w["ps"], w["rows"], w["supply"], pol)
        assert act == K.LONE
        w["ps"][0, K.PS_ACTION] = act
        w["ps"][1, K.PS_ACTION] = K.DEFEND
        k_main(s, 0, True)(w, c, dice, pol)
        k_actions(s)(w, c, dice, pol)
        k_cleanup(s)(w, c, dice, pol)

    both(s, g, ref, ker)
    assert me.raid == [jarl] and me.won == 1
    assert me.silver_avail == 3 and me.silver_spent == 3
    assert sorted(me.discard) == sorted([war, ber, trader, odin, boat, boat, torc])
    assert me.deck == [] and g.raid_row[0] == ids(s, "York")[0]
    before = sorted(me.discard)
    g.draw_into_hand(me, 5)                       # §3.3: the empty deck is reshuffled
    assert len(me.hand) == 5 and sorted(me.hand + me.deck) == before


# ---------------------------------------------------------------- §12.4 attack target

def _plans(s, g, seat):
    """The Secret Plan of ``seat`` by the reference and by the kernel's own ``_plan``."""
    pl = g.players[seat]
    ref = g.plan(pl)
    w = state.pack(g, s)
    c = s.compiled
    ker = K._plan(c.ri, c.card, c.alt, c.base_attack, s.kinds[seat], s.params[seat], seat,
                  len(g.players), w["pp"], w["pn"], w["fl"], w["ps"], w["rows"], w["supply"],
                  np.random.default_rng(0))
    assert (int(ker[0]), int(ker[1])) == ref
    return ref


@pytest.mark.parametrize("seat, raids, want", [
    # 4 players, hints: P = 4 Warriors + shield 2 = 6 >= 5, no Longboat -> Attack the opponent
    # with the most Raid cards; the tie goes to the first clockwise from the attacker:
    (2, (1, 0, 9, 1), 3),        # seat 2: 3, 0, 1 -> seat 3 (a "lowest seat" rule: seat 0)
    (1, (1, 9, 0, 1), 3),        # seat 1: 2, 3, 0 -> seat 3 over seat 0
    (3, (1, 1, 0, 9), 0),        # seat 3: 0, 1, 2 -> seat 0
    (0, (9, 0, 2, 2), 2),        # seat 0: 1, 2, 3 -> seat 2
    (2, (4, 4, 9, 4), 3),        # block (4 Raid cards each): seat 3 first from seat 2
    (3, (0, 0, 0, 0), 0)])       # nobody has a Raid card: the next seat, 0
def test_attack_target_ties_go_clockwise_from_the_attacker(seat, raids, want):
    s, g = blank(4)
    war, lind = ids(s, "Warriors", "Lindisfarne")
    for q, r in enumerate(raids):
        g.players[q].raid = [lind] * (r if q != seat else 0)
    g.players[seat].hand = [war] * 4
    assert _plans(s, g, seat) == (R.ATTACK, want)


# ---------------------------------------------------------------- §7 Main phase

def test_buy_longboat_first_then_most_expensive_and_refill():
    """§7.4, §12.4 hints: 5 Coins + Hacksilver = 7 Silver; 2 Longboats owned (< 3) -> a
    Longboat (3), then (3 owned) the dearest affordable card with 4 left: Kalf (4) from Viking
    Row slot 1, refilled from the Viking deck's top at once."""
    s, g = blank(2)
    coin, hack, boat, kalf, seer, torstein, berserker = ids(
        s, "Coin", "Hacksilver", "Longboat", "Kalf", "Seer", "Torstein", "Berserker")
    g.players[0].hand = [coin] * 5 + [hack]
    g.players[0].deck = [boat, boat]
    g.vrow = [seer, kalf, R.EMPTY, R.EMPTY, R.EMPTY]
    g.vdeck = [berserker, torstein]
    both(s, g, lambda g: g.main_turn(g.players[0], False), k_main(s, 0, False))
    me = g.players[0]
    assert me.discard == [boat, kalf] and me.silver_spent == 7 and me.silver_avail == 7
    assert g.vrow[1] == torstein and g.vdeck == [berserker]
    assert g.supply[boat] == 25 - 1


def test_warriors_sacrificed_only_to_complete_a_buy():
    """§12.4: 2 Coins + Warriors: 2 Silver, a Longboat costs 3 -> Warriors sacrificed for
    +1 (3 Silver); at End of Round it returns to the Warrior pile (§9.2)."""
    s, g = blank(2)
    coin, war, boat = ids(s, "Coin", "Warriors", "Longboat")
    g.players[0].hand = [coin, coin, war]
    both(s, g, lambda g: g.main_turn(g.players[0], False), k_main(s, 0, False))
    me = g.players[0]
    assert me.discard == [boat] and me.play[2] == [war, R.SACRIFICED]
    assert me.silver_avail == 3 and me.silver_spent == 3
    both(s, g, lambda g: g.cleanup(), k_cleanup(s))
    assert g.supply[war] == 15 + 1 and me.discard == [boat, coin, coin]


def test_card_limits_empty_pile_gives_nothing():
    """§2.1: with the Longboat pile empty no Longboat can be bought (the dearest other
    affordable card, Hacksilver 3, is bought instead)."""
    s, g = blank(2)
    coin, boat, hack = ids(s, "Coin", "Longboat", "Hacksilver")
    g.supply[boat] = 0
    g.players[0].hand = [coin] * 3
    both(s, g, lambda g: g.main_turn(g.players[0], False), k_main(s, 0, False))
    assert g.players[0].discard == [hack]


def test_odins_witness_sacrifice_a_coin_draws_two():
    """§11.3 Odin's Witness: sacrifice a Coin: +2 cards (priority 4 beats +1 card's 3); the
    two drawn cards are played; the sacrificed Coin's Silver is lost (§7.5)."""
    s, g = blank(2)
    coin, odin, hack, torc = ids(s, "Coin", "Odin's Witness", "Hacksilver", "Gold Torc")
    me = g.players[0]
    me.hand = [odin, coin]
    me.deck = [torc, hack]                          # top = Hacksilver, then Gold Torc
    g.supply[ids(s, "Longboat")[0]] = 0
    g.supply[hack] = 0
    g.supply[ids(s, "Warriors")[0]] = 0              # nothing to buy: Silver is just counted
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.play == [[odin, R.USED], [coin, R.SACRIFICED], [hack, R.NORMAL],
                       [torc, R.NORMAL]]
    assert me.silver_avail == 2 + 1                  # Hacksilver 2 + Gold Torc 1; Coin lost


@pytest.mark.parametrize("opts, hand, sacrificed", [
    # §7.5 "Some conditional abilities require you to sacrifice a card" (Odin's Witness:
    # "SACRIFICE a card: +2 CARDS"); DEFAULT sacrifice_any_card: with no Coin in play the
    # hints policy sacrifices the cheapest other unused card costing at most 1 (Warriors,
    # cost 1), never Kalf (4), a Longboat or a Treasure; Odin's Witness then draws 2
    ({}, ("Odin's Witness", "Kalf", "Longboat", "Gold Torc", "Warriors"), "Warriors"),
    ({}, ("Odin's Witness", "Warriors", "Coin"), "Coin"),              # a Coin still first
    # nothing it may sacrifice: +1 card instead (priority 3)
    ({}, ("Odin's Witness", "Kalf", "Longboat", "Gold Torc"), None),
    # the old reading, sacrifice_any_card = false: only a Coin
    ({"sacrifice_any_card": False}, ("Odin's Witness", "Warriors"), None),
    # a policy that may sacrifice dearer cards: Kalf (4) when allowed up to 4
    ({"policies": ["hints(sacrifice_max_cost=4)", "hints"]},
     ("Odin's Witness", "Kalf", "Longboat"), "Kalf")])
def test_sacrifice_a_card_may_take_any_card(opts, hand, sacrificed):
    """§7.5, §11.3, §13.13 on both engines' Main phase (Winter: nothing bought)."""
    opts = dict(opts)
    s, g = blank(2, opts.pop("policies", None), **opts)
    hack, seer = ids(s, "Hacksilver", "Seer")
    me = g.players[0]
    me.hand = ids(s, *hand)
    me.deck = [seer, hack]                          # top = Hacksilver, then Seer
    for k in range(len(g.supply)):
        g.supply[k] = 0                             # nothing to buy
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    flags = {s.catalog.names[k]: f for k, f in me.play[:len(hand)]}
    assert me.play[0][1] == R.USED
    assert [n for n, f in flags.items() if f == R.SACRIFICED] == \
        ([] if sacrificed is None else [sacrificed])
    drawn = [k for k, _ in me.play[len(hand):]]
    assert drawn == ([hack, seer] if sacrificed else [hack])


def test_sacrifice_needs_a_coin_and_full_resolution():
    """§7.5: with no Coin to sacrifice, Odin's Witness falls back to +1 card; Ritual
    Sacrifice with no Viking in deck or discard is not used at all."""
    s, g = blank(2)
    odin, ritual, hack, coin = ids(s, "Odin's Witness", "Ritual Sacrifice", "Hacksilver",
                                   "Coin")
    me = g.players[0]
    me.hand = [odin, ritual, coin]
    me.deck = [hack]
    for k in range(len(g.supply)):
        g.supply[k] = 0 if k != coin else g.supply[k]
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    # Odin's Witness: sacrifice the Coin needs 2 cards in deck+discard (only 1) -> +1 card
    assert me.play[0] == [odin, R.USED] and me.play[3] == [hack, R.NORMAL]
    assert me.play[1] == [ritual, R.NORMAL]          # no Viking anywhere: not activated


def test_ritual_sacrifice_takes_the_costliest_viking():
    """Ritual Sacrifice (assumption, §7.5): sacrifice a Coin, take the costliest Viking from
    deck or discard (Berserker 5 over Seer 2) into play, then the deck is shuffled."""
    s, g = blank(2)
    ritual, coin, seer, ber = ids(s, "Ritual Sacrifice", "Coin", "Seer", "Berserker")
    me = g.players[0]
    me.hand = [ritual, coin]
    me.deck = [seer, coin]
    me.discard = [ber]
    for k in range(len(g.supply)):
        g.supply[k] = 0
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.play == [[ritual, R.USED], [coin, R.SACRIFICED], [ber, R.NORMAL]]
    assert me.discard == [] and sorted(me.deck) == sorted([seer, coin])


def test_shipbuild_takes_a_longboat_when_raiding():
    """§11.2 Shipbuild: with Lone Raid planned and no Longboat in play, Boatwright is
    sacrificed and a Longboat taken into play; it counts as played (§8.3.1 DEFAULT) and the
    Boatwright's Battle Ship is gone with it (sacrificed cards are not in play)."""
    s, g = blank(2)
    wright, boat = ids(s, "Boatwright", "Longboat")
    me = g.players[0]
    me.hand = [wright]
    me.action = R.LONE
    both(s, g, lambda g: g.main_turn(me, True), k_main(s, 0, True))
    assert me.play == [[wright, R.SACRIFICED], [boat, R.TAKEN]]
    assert g.stats(me.play, me)[3] == 1 and g.stats(me.play, me)[0] == 0
    s2, g2 = blank(2, shipbuild_longboat_counts=False)
    assert g2.stats([[boat, R.TAKEN]], g2.players[0])[3] == 0
    s, g = blank(2)                                   # Winter: Shipbuild is not wanted
    g.players[0].hand = [wright]
    both(s, g, lambda g: g.main_turn(g.players[0], False), k_main(s, 0, False))
    assert g.players[0].play[0] == [wright, R.NORMAL]


def test_bury_during_main_keeps_the_silver():
    """§7.6 BURY (Funeral Pyre, burier priority): a Coin is buried after its Silver counts;
    at the end of the Main phase it moves to the Bury pile."""
    s = _setup(2, ["burier", "hints"])
    _, g = blank(2, ["burier", "hints"])
    pyre, coin = ids(s, "Funeral Pyre", "Coin")
    me = g.players[0]
    me.hand = [pyre, coin]
    for k in range(len(g.supply)):
        g.supply[k] = 0
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.bury == [coin] and me.play == [[pyre, R.USED]] and me.silver_avail == 2


def test_persistent_abilities():
    """§11.1: Battle Frenzy +1 Power per other Viking (Warriors count), Leadership +1
    Influence per other Viking, Battle Ship / Command Ship +1 per Longboat."""
    s, g = blank(2)
    ber, war, siggy, wright, helm, boat = ids(s, "Berserker", "Warriors", "Siggy",
                                              "Boatwright", "Helmsman", "Longboat")
    cards = [(k, R.NORMAL) for k in (ber, war, siggy, wright, helm, boat, boat)]
    power, infl, dfn, boats = g.stats(cards, g.players[0])
    # Power: Berserker 3 + Warriors 1 + Helmsman 1 + frenzy 4 (Warriors, Siggy, Boatwright,
    # Helmsman) + Battle Ship 2 = 11; Influence: Siggy 2 + Leadership 4 + Command Ship 2 = 8
    assert (power, infl, dfn, boats) == (11, 8, 0, 2)
    arr = np.array([k for k, _ in cards], np.int16)
    got = K._stats(s.compiled.ri, s.compiled.card, arr, np.zeros(7, np.int8), 7, True)
    assert tuple(got) == (11, 8, 0, 2, 11)          # no Attack Character card: same Power


# ---------------------------------------------------------------- §7.2, §13.8 keeping cards

def k_draw(s, rnd=2):
    def run(w, c, dice, pol):
        K._draw_phase(c.ri, w["pp"], w["pn"], w["fl"], w["gs"], len(s.kinds), rnd, dice)
    return run


def _keeper(keep, play_all=False):
    return blank(2, [f"hints(keep_in_winter={keep})", "hints"], play_all_cards=play_all)


@pytest.mark.parametrize("keep, kept, played", [
    (1, ["Berserker"], ["Coin", "Warriors", "Coin", "Longboat"]),
    (2, ["Warriors", "Berserker"], ["Coin", "Coin", "Longboat"]),
    (5, ["Warriors", "Berserker"], ["Coin", "Coin", "Longboat"])])
def test_winter_keeps_power_cards_in_hand(keep, kept, played):
    """§7.2, §13.8 with play_all_cards = false, policy keep_in_winter: in a Winter round the
    hand Coin, Warriors, Berserker, Coin, Longboat has two cards with no Silver and Power >
    0: Berserker (Power 3) is kept first, then Warriors (1); Coins and the Longboat give
    Silver and are always played. Kept cards stay in hand in hand order. Played Silver: Coin
    1 + Coin 1 + Longboat 1 = 3, which buys a Longboat (1 owned < 3 wanted; the kept cards
    are not Longboats). End of Round discards the played cards and the bought Longboat, not
    the kept ones; the next Draw draws 5 - kept cards, from the top (the deck's end)."""
    s, g = _keeper(keep)
    coin, war, ber, boat = ids(s, "Coin", "Warriors", "Berserker", "Longboat")
    kalf, seer, odin, torstein, hack = ids(s, "Kalf", "Seer", "Odin's Witness", "Torstein",
                                           "Hacksilver")
    me = g.players[0]
    me.hand = [coin, war, ber, coin, boat]
    me.deck = [kalf, seer, coin, hack, torstein, odin]
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.hand == ids(s, *kept)
    assert me.play == [[k, R.NORMAL] for k in ids(s, *played)]
    assert me.silver_avail == 3 and me.silver_spent == 3 and me.discard == [boat]
    both(s, g, lambda g: g.cleanup(), k_cleanup(s))
    assert me.hand == ids(s, *kept) and me.play == []
    assert me.discard == [boat] + ids(s, *played)
    both(s, g, lambda g: g.draw_phase(2), k_draw(s))
    drawn = [odin, torstein, hack, coin][:5 - len(kept)]
    assert me.hand == ids(s, *kept) + drawn and len(me.hand) == 5
    assert me.deck == [kalf, seer, coin, hack, torstein, odin][:6 - len(drawn)]


def test_keep_order_power_then_influence_then_earliest():
    """keep_in_winter ordering: hand Shieldmaiden (P2 I0), Siggy (P0 I2), Torstein (P2 I1),
    Shieldmaiden, Kalf (P1 I1 but Silver 1: never kept), Priests of Uppsala (P0 I1).
    Keep 3: Torstein (P2 I1), then the Shieldmaidens (P2 I0), the earlier first; Siggy (P + I
    = 2 like a Shieldmaiden) loses on Power. Keep 4 adds Siggy (I2) before Priests (I1);
    keep 5 adds Priests; Kalf is always played (Silver 1)."""
    for keep, kept, played in (
            (3, ["Shieldmaiden", "Torstein", "Shieldmaiden"],
             ["Siggy", "Kalf", "Priests of Uppsala"]),
            (4, ["Shieldmaiden", "Siggy", "Torstein", "Shieldmaiden"],
             ["Kalf", "Priests of Uppsala"]),
            (5, ["Shieldmaiden", "Siggy", "Torstein", "Shieldmaiden", "Priests of Uppsala"],
             ["Kalf"])):
        s, g = _keeper(keep)
        me = g.players[0]
        me.hand = ids(s, "Shieldmaiden", "Siggy", "Torstein", "Shieldmaiden", "Kalf",
                      "Priests of Uppsala")
        both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
        assert me.hand == ids(s, *kept), keep
        assert [k for k, _ in me.play] == ids(s, *played), keep
        assert me.silver_avail == 1                                  # Kalf's Silver only


@pytest.mark.parametrize("play_all, spring", [(True, False), (False, True), (True, True)])
def test_nothing_kept_when_every_card_is_played_or_in_spring(play_all, spring):
    """§7.2 DEFAULT play_all_cards = true keeps nothing whatever keep_in_winter says; in Spring
    (Power and Influence count in the Action phase) the policy keeps nothing either: the
    whole hand Coin, Warriors, Berserker, Coin, Longboat is played (Silver 3, a Longboat
    bought), the hand is empty after Main and after End of Round, and the next Draw draws 5."""
    s, g = _keeper(1, play_all)
    coin, war, ber, boat = ids(s, "Coin", "Warriors", "Berserker", "Longboat")
    me = g.players[0]
    me.hand = [coin, war, ber, coin, boat]
    me.deck = [coin] * 7
    both(s, g, lambda g: g.main_turn(me, spring), k_main(s, 0, spring))
    assert me.hand == [] and [k for k, _ in me.play] == [coin, war, ber, coin, boat]
    assert me.silver_avail == 3 and me.discard == [boat]
    both(s, g, lambda g: g.cleanup(), k_cleanup(s))
    assert me.hand == [] and me.discard == [boat, coin, war, ber, coin, boat]
    both(s, g, lambda g: g.draw_phase(2), k_draw(s))
    assert me.hand == [coin] * 5 and me.deck == [coin] * 2


@pytest.mark.parametrize("held, drawn", [(0, 5), (1, 4), (4, 1), (5, 0), (6, 0)])
def test_draw_phase_draws_up_to_the_hand_size(held, drawn):
    """§6.1 with §7.2: the Draw fills the hand up to hand_size = 5 (never a negative draw),
    each seat in turn order; seat 1 (empty hand) draws 5."""
    s, g = blank(2, play_all_cards=False)
    coin, seer = ids(s, "Coin", "Seer")
    me, other = g.players
    me.hand = [seer] * held
    me.deck = [coin] * 8
    other.deck = [coin] * 8
    both(s, g, lambda g: g.draw_phase(2), k_draw(s))
    assert me.hand == [seer] * held + [coin] * drawn and len(me.deck) == 8 - drawn
    assert other.hand == [coin] * 5


@pytest.mark.parametrize("play_all", [True, False])
def test_round1_draw_comes_on_top_of_the_setup_hand(play_all):
    """§13.11 setup_hand_is_round1_hand = false: the round-1 Draw follows no Main phase, so
    the 5 setup cards were not kept back and 5 more are drawn (10 in hand), whatever
    play_all_cards says (§7.2: only cards kept back count towards the hand size)."""
    s, g = blank(2, play_all_cards=play_all, setup_hand_is_round1_hand=False)
    coin, seer = ids(s, "Coin", "Seer")
    me = g.players[0]
    me.hand = [seer] * 5
    me.deck = [coin] * 8
    both(s, g, lambda g: g.draw_phase(1), k_draw(s, 1))
    assert me.hand == [seer] * 5 + [coin] * 5 and me.deck == [coin] * 3


# ---------------------------------------------------------------- §8.1 Defend, §8.2 Attack

def _duel(opts=None, atk_cards=(), dfd_cards=(), dfd_action=R.DEFEND, players=2):
    s, g = blank(players, **(opts or {}))
    a, d = g.players[1], g.players[0]
    play(g, 1, list(atk_cards))
    play(g, 0, list(dfd_cards))
    a.action, a.target, d.action = R.ATTACK, 0, dfd_action
    for pl in g.players[2:]:
        pl.action = R.LONE
    g.treasure = [ids(s, "Arm Ring")[0]] * 3
    return s, g


@pytest.mark.parametrize("opts, attack_power, ok", [
    # Defender: Shieldmaiden P2 D1. DEFAULT (§13.2: "Base Defense of 5 plus your total Power
    # from all your cards"): 5 + 2 (card Power) + 1 (card Defense, §13.1) = 8
    ({}, 8, True), ({}, 7, False),
    ({"card_defense_counts": "never"}, 7, True), ({"card_defense_counts": "never"}, 6, False),
    # defend_includes_base_power = true (the old reading): + the shield's 2 = 10
    ({"defend_includes_base_power": True}, 10, True),
    ({"defend_includes_base_power": True}, 9, False)])
def test_defend_defense(opts, attack_power, ok):
    """§8.1.1, §13.1, §13.2: Defense of a Defender; Power >= Defense succeeds (§8.2.1).
    Attacker: Warriors (Power 1 each) + its shield's 2; the attack runs through both engines'
    Action phase (a success gains the attacker a Treasure)."""
    s0 = _setup(2)
    sm, war, ber = ids(s0, "Shieldmaiden", "Warriors", "Berserker")
    # attacker cards: Warriors P1 each, + shield 2
    s, g = _duel(opts, [war] * (attack_power - 2), [sm])
    both(s, g, r_actions(), k_actions(s))
    assert (len(g.players[1].discard) == 1) == ok     # success gains a Treasure


def test_non_defender_has_base_defense_only():
    """§8.2.1: a Lone-Raid chooser's Defense is 5 only (card Power and Defense ignored under
    when_defending; with card_defense_counts=always its Shieldmaiden adds 1)."""
    s0 = _setup(2)
    sm, war = ids(s0, "Shieldmaiden", "Warriors")
    s, g = _duel({}, [war] * 3, [sm, sm], dfd_action=R.LONE)     # Power 3 + 2 = 5 >= 5
    both(s, g, r_actions(), k_actions(s))
    assert len(g.players[1].discard) == 1
    s, g = _duel({"card_defense_counts": "always"}, [war] * 3, [sm, sm], dfd_action=R.LONE)
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].discard == []                            # 5 < 5 + 2


def test_loot_prefers_legend_and_betray_forces():
    """§8.2.3 Loot the best card (most Legend: Jeweled Reliquary 3); §8.2.4 a Betray card in
    the discard must be taken instead (Kalf)."""
    s0 = _setup(2)
    war, rel, coin, kalf, arm = ids(s0, "Warriors", "Jeweled Reliquary", "Coin", "Kalf",
                                    "Arm Ring")
    s, g = _duel({}, [war] * 3, [], dfd_action=R.LONE)
    g.players[0].discard = [coin, rel, coin]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].discard == [arm, rel] and g.players[0].discard == [coin, coin]
    s, g = _duel({}, [war] * 3, [], dfd_action=R.LONE)
    g.players[0].discard = [coin, rel, kalf]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].discard == [arm, kalf]


def test_plunder_when_the_discard_is_empty():
    """§8.2.3 Plunder: the top card of the defender's deck."""
    s0 = _setup(2)
    war, coin, hack, arm = ids(s0, "Warriors", "Coin", "Hacksilver", "Arm Ring")
    s, g = _duel({}, [war] * 3, [], dfd_action=R.LONE)
    g.players[0].deck = [coin, hack]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].discard == [arm, hack] and g.players[0].deck == [coin]


def test_pillage_needs_defense_plus_raid_defense():
    """§8.2.3 Pillage: Power >= 5 + the Raid card's Defense; the best Legend qualifying card
    (Power 8: Lindisfarne D3 L2, not York D6 L4; Paris D10 L6 needs 15)."""
    s0 = _setup(2)
    war, lind, paris = ids(s0, "Warriors", "Lindisfarne", "Paris")
    york = ids(s0, "York")[0]
    s, g = _duel({}, [war] * 6, [], dfd_action=R.LONE)    # Power 8 >= 5 + 3, < 5 + 6 (York)
    g.players[0].raid = [paris, york, lind]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].raid == [lind] and g.players[0].raid == [paris, york]
    assert (g.players[1].pillaged, g.players[0].lost) == (1, 1)
    s, g = _duel({}, [war] * 13, [], dfd_action=R.LONE)          # 15 >= 5 + 10
    g.players[0].raid = [lind, paris]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].raid == [paris]


def test_pillage_treasures_option():
    """§13.7: Treasures in a Raid pile are not pillaged by default; with pillage_treasures."""
    s0 = _setup(2)
    war, rel = ids(s0, "Warriors", "Jeweled Reliquary")
    for opt, want in ((False, []), (True, [rel])):
        s, g = _duel({"pillage_treasures": opt}, [war] * 3, [], dfd_action=R.LONE)
        g.players[0].raid = [rel]
        both(s, g, r_actions(), k_actions(s))
        assert g.players[1].raid == want


@pytest.mark.parametrize("powers, winner", [((4, 4), None), ((5, 4), 1), ((4, 5), 2)])
def test_several_attackers_only_the_strongest(powers, winner):
    """§8.2.2: two attackers on seat 0 (Defense 5): only the strictly strongest attacks; a
    tie means neither does. Cards: Warriors (1 each) + shield 2."""
    s, g = blank(3)
    war, arm = ids(s, "Warriors", "Arm Ring")
    g.treasure = [arm] * 3
    g.players[0].action = R.LONE
    for seat, p in zip((1, 2), powers):
        play(g, seat, [war] * p)
        g.players[seat].action, g.players[seat].target = R.ATTACK, 0
    both(s, g, r_actions(), k_actions(s))
    got = [seat for seat in (1, 2) if g.players[seat].discard]
    assert got == ([] if winner is None else [winner])


def test_defend_bury_and_acquire():
    """§8.1.2-8.1.3: the Defender buries a Coin from play; Bury pile Hacksilver 2 + 2 + Coin
    1 = 5 pays Lindisfarne (D3)? no: the highest affordable Defense, Trading Post (D5):
    Hacksilver+Hacksilver+Coin spent (Coins and Hacksilver back to their piles); the Row is
    refilled and a Treasure gained."""
    s, g = blank(2)
    coin, hack, lind, post, paris, york, arm = ids(
        s, "Coin", "Hacksilver", "Lindisfarne", "Trading Post", "Paris", "York", "Arm Ring")
    me = g.players[0]
    me.action = R.DEFEND
    g.players[1].action = R.LONE
    play(g, 0, [coin])
    me.bury = [hack, hack]
    g.raid_row = [lind, post, paris, R.EMPTY, R.EMPTY]
    g.raid_deck = [york]
    g.treasure = [arm]
    sup = list(g.supply)
    both(s, g, r_actions(), k_actions(s))
    assert me.raid == [post] and me.bury == [] and me.discard == [arm]
    assert g.raid_row == [lind, york, paris, R.EMPTY, R.EMPTY]
    assert g.supply[coin] == sup[coin] + 1 and g.supply[hack] == sup[hack] + 2


@pytest.mark.parametrize("payment, bury, want_raid, left", [
    # DEFAULT exact (§13.5: "silver equal in number to the Raid card's Defense"): from
    # 2+2+2 only 4 can be paid exactly, so Coastal Church (D4) with 2 + 2, one Hacksilver left
    (None, ("Hacksilver",) * 3, "Coastal Church", 1),
    # Bury pile 2+2+2, Row Coastal Church (D4) and Trading Post (D5). at_least: 2 + 2, the
    # next 2 would overshoot, so the smallest left is added: 6 >= 5 pays Trading Post
    ("at_least", ("Hacksilver",) * 3, "Trading Post", 0),
    # exact: 5 cannot be paid from 2s, so the Defense-4 card is bought with 2 + 2
    ("exact", ("Hacksilver",) * 3, "Coastal Church", 1),
    # exact with 2 + 2 + 1 = 5 pays Trading Post
    ("exact", ("Hacksilver", "Hacksilver", "Coin"), "Trading Post", 0)])
def test_acquire_payment(payment, bury, want_raid, left):
    """§8.1.3, §13.5 acquire_payment, through both engines' Action phase."""
    s, g = blank(2, **({} if payment is None else {"acquire_payment": payment}))
    me = g.players[0]
    me.action = R.DEFEND
    g.players[1].action = R.LONE
    me.bury = ids(s, *bury)
    g.raid_row = ids(s, "Coastal Church", "Trading Post") + [R.EMPTY] * 3
    both(s, g, r_actions(), k_actions(s))
    assert me.raid == ids(s, want_raid) and len(me.bury) == left


def test_spent_treasures_go_to_the_raid_pile():
    """§8.1.3: a buried Treasure spent on an acquire joins the Raid pile (its Legend still
    counts, §10.1); Coins return to the Coin pile."""
    s, g = blank(2)
    torc, coin, church = ids(s, "Gold Torc", "Coin", "Coastal Church")
    me = g.players[0]
    me.action = R.DEFEND
    g.players[1].action = R.LONE
    me.bury = [torc, coin, coin, coin]            # 1 + 1 + 1 + 1 = 4 = Defense 4
    g.raid_row = [church] + [R.EMPTY] * 4
    s.params[0, R.Param.DEFEND_BURY] = 0.0
    me.p[R.Param.DEFEND_BURY] = 0.0
    both(s, g, r_actions(), k_actions(s))
    assert sorted(me.raid) == sorted([torc, church]) and me.bury == []
    s.params[0, R.Param.DEFEND_BURY] = 1.0


# ---------------------------------------------------------------- §8.3 Raid Party

def _party(players, cards, actions, **opts):
    s, g = blank(players, **opts)
    for seat, (cs, act) in enumerate(zip(cards, actions)):
        play(g, seat, ids(s, *cs))
        g.players[seat].action = act
    g.treasure = ids(s, "Arm Ring") * 6
    g.raid_row = ids(s, "Lindisfarne", "Trading Post", "York", "Paris", "Mediterranean Fleet")
    g.raid_deck = ids(s, "Rouen", "Winchester")
    return s, g


def test_earl_most_influence_invites_within_longboats():
    """§8.3.2 Earl = most Influence (Siggy 2 over Kalf 1); §8.3.3 the Earl's 2 Longboats
    carry 2 Raiders: seat 1 (Raid Party, no Longboat) must join, seat 2 (Defend) cannot fit;
    §8.3.4 Power (0 + 2) + (P1 + 2) = 5 takes Trading Post (D5) for the Earl; both gain a
    Treasure; the Earl takes the marker, Earl side up."""
    s, g = _party(3, [("Siggy", "Longboat", "Longboat"), ("Kalf",), ("Shieldmaiden",)],
                  [R.PARTY, R.PARTY, R.DEFEND])
    both(s, g, r_actions(), k_actions(s))
    post = ids(s, "Trading Post")[0]
    assert g.players[0].raid == [post] and g.players[0].earls == 1
    assert len(g.players[1].discard) == 1 and g.players[2].discard == []
    assert g.first == 0 and g.earl_side and g.players[0].last_earl == 5


@pytest.mark.parametrize("players, opts, joined", [
    # §10.3 Two Player: "No alliances" (DEFAULT two_player_alliances = false): the Earl raids
    # alone: Power 0 + 2 = 2 beats no card (Lindisfarne is D3), a failed raid, seat 1 gains
    # nothing. With the old reading (alliances) seat 1 (Raid Party, no Longboat) must join on
    # the Earl's second Longboat: 2 + (1 + 2) = 5 takes Trading Post (D5), both gain a Treasure.
    (2, {}, False), (2, {"two_player_alliances": False}, False),
    (2, {"two_player_alliances": True}, True),
    # 3 players: invitations as §8.3.3 whatever the option (seat 2 Lone Raid, no Longboat)
    (3, {}, True)])
def test_two_player_game_has_no_alliances(players, opts, joined):
    """§8.3.3, §10.3, §13.12 through both engines' Action phase."""
    cards = [("Siggy", "Longboat", "Longboat"), ("Kalf",), ()][:players]
    s, g = _party(players, cards, [R.PARTY, R.PARTY, R.LONE][:players], **opts)
    both(s, g, r_actions(), k_actions(s))
    post = ids(s, "Trading Post")[0]
    assert g.players[0].earls == 1 and g.first == 0
    assert g.players[0].raid == ([post] if joined else [])
    assert len(g.players[1].discard) == int(joined) and g.failed_raids == int(not joined)


def test_earl_influence_before_power():
    """§8.3.2: Influence decides before Power: seat 0 (Siggy: Influence 2, Power 0 + 2)
    is Earl over seat 1 (Shieldmaiden: Influence 0, Power 2 + 2)."""
    s, g = _party(2, [("Siggy", "Longboat"), ("Shieldmaiden", "Longboat")], [R.PARTY, R.PARTY])
    g.first = 1
    both(s, g, r_actions(), k_actions(s))
    assert (g.players[0].earls, g.players[1].earls, g.first) == (1, 0, 0)


def test_earl_tie_goes_to_power_then_chaotic_raid():
    """§8.3.2: equal Influence -> more Power is Earl; equal both -> Chaotic Raid (§8.3.5):
    the party (Raid-Party choosers with Longboats) Power 2 + 2 = 4 reaches Lindisfarne (D3)
    only: it goes under the Raid deck, everyone in the party gains a Treasure, nobody keeps
    it, the marker does not move."""
    s, g = _party(2, [("Longboat", "Warriors"), ("Longboat",)], [R.PARTY, R.PARTY])
    both(s, g, r_actions(), k_actions(s))
    assert g.players[0].earls == 1 and g.first == 0   # Influence 0 = 0; Power 1 + 2 > 0 + 2
    s, g = _party(3, [("Longboat",), ("Longboat",), ("Warriors",)], [R.PARTY, R.PARTY,
                                                                    R.PARTY])
    g.first = 1
    lind = ids(s, "Lindisfarne")[0]
    both(s, g, r_actions(), k_actions(s))
    assert g.raid_deck[0] == lind and all(pl.raid == [] for pl in g.players)
    assert [len(pl.discard) for pl in g.players] == [1, 1, 0]   # seat 2 has no Longboat
    assert g.first == 1 and not g.earl_side
    s, g = _party(3, [("Longboat",), ("Longboat",), ("Warriors",)],
                  [R.PARTY, R.PARTY, R.PARTY], chaotic_party="all_choosers")
    both(s, g, r_actions(), k_actions(s))
    # all three: 2 + 2 + 3 = 7 -> the highest Defense <= 7 is York (D6)
    assert g.raid_deck[0] == ids(s, "York")[0] and [len(p.discard) for p in g.players] == [1] * 3


def test_failed_raid_sends_the_highest_defense_under_the_deck():
    """§8.5: a raid that beats nothing sends the highest-Defense Row card (Mediterranean
    Fleet, D12) under the Raid deck, refilled from the top (Winchester)."""
    s, g = _party(2, [("Longboat",), ()], [R.PARTY, R.DEFEND])
    g.raid_row = ids(s, "Trading Post", "Mediterranean Fleet", "York", "Paris", "Rouen")
    s.params[1, R.Param.ACCEPT] = 0.0
    g.players[1].p[R.Param.ACCEPT] = 0.0
    g.players[1].p[R.Param.DEFEND_BURY] = 0.0
    s.params[1, R.Param.DEFEND_BURY] = 0.0
    both(s, g, r_actions(), k_actions(s))                     # Power 2 < every Defense
    fleet, winch = ids(s, "Mediterranean Fleet", "Winchester")
    assert g.raid_deck[0] == fleet and g.raid_row[1] == winch and g.failed_raids == 1
    s.params[1, R.Param.ACCEPT] = 1.0
    s.params[1, R.Param.DEFEND_BURY] = 1.0


@pytest.mark.parametrize("tie, slot", [("leftmost", 1), ("rightmost", 3)])
def test_failed_raid_tie(tie, slot):
    """§8.5, §13.10 failed_raid_tie: the Earl alone (Power 0 + 2) beats nothing; the two
    highest Defenses tie at 9 (Rouen in slot 1, Seine Abbey in slot 3)."""
    s, g = _party(2, [("Longboat",), ()], [R.PARTY, R.LONE], failed_raid_tie=tie)
    g.raid_row = ids(s, "Trading Post", "Rouen", "York", "Seine Abbey", "Coastal Church")
    out = g.raid_row[slot]
    both(s, g, r_actions(), k_actions(s))
    assert g.raid_deck[0] == out and g.raid_row[slot] == ids(s, "Winchester")[0]


# ---------------------------------------------------------------- §8.4 Lone Raid

def test_lone_raid_ties_and_influence():
    """§8.4.1: most Power; equal Power -> most Influence (Kalf's 1); equal both -> nobody."""
    s, g = _party(3, [("Longboat", "Shieldmaiden"), ("Longboat", "Kalf", "Warriors"),
                      ("Kalf",)], [R.LONE, R.LONE, R.LONE])
    both(s, g, r_actions(), k_actions(s))                     # Power 4 v 4, Influence 0 v 2
    assert g.players[1].raid == ids(s, "Lindisfarne") and g.players[0].raid == []
    s, g = _party(2, [("Longboat", "Shieldmaiden"), ("Longboat", "Shieldmaiden")],
                  [R.LONE, R.LONE])
    both(s, g, r_actions(), k_actions(s))
    assert all(pl.raid == [] for pl in g.players) and g.failed_raids == 0


def test_lone_raid_needs_a_longboat():
    """§8.4.1: without a Longboat a Lone-Raid chooser is not eligible."""
    s, g = _party(2, [("Shieldmaiden", "Shieldmaiden"), ()], [R.LONE, R.LONE])
    both(s, g, r_actions(), k_actions(s))
    assert g.players[0].raid == []


# ---------------------------------------------------------------- §9 End of Round, §10

def test_end_of_round_returns_sacrificed_cards_and_passes_the_marker():
    """§9.2: face-up cards to the discard; a sacrificed Coin to the Coin pile, a sacrificed
    Viking under the Viking deck, a sacrificed Treasure onto the Treasure pile; the raven
    marker passes clockwise."""
    s, g = blank(2)
    coin, wright, torc, seer = ids(s, "Coin", "Boatwright", "Gold Torc", "Seer")
    play(g, 0, [coin, wright, torc, seer], [R.SACRIFICED, R.SACRIFICED, R.SACRIFICED, R.USED])
    g.vdeck = [seer]
    sup = g.supply[coin]
    both(s, g, lambda g: g.cleanup(), k_cleanup(s))
    assert g.players[0].discard == [seer] and g.supply[coin] == sup + 1
    assert g.vdeck == [wright, seer] and g.treasure == [torc] and g.first == 1


@pytest.mark.parametrize("resets, firsts", [
    # DEFAULT (§9.2: "If the marker is on its Earl side, it remains with its current
    # player"): the Earl (seat 1) keeps it, Earl side up, round after round
    (None, [1, 1, 1]), (False, [1, 1, 1]),
    # earl_marker_resets (the old reading): it stays one round, then passes clockwise 1 -> 2
    # -> 0 (3 players: clockwise is seat + 1, not seat - 1)
    (True, [1, 2, 0])])
def test_earl_marker(resets, firsts):
    """§9.2 step 3, §13.3: the Earl-side marker at End of Round, both engines' _cleanup."""
    s, g = blank(3, **({} if resets is None else {"earl_marker_resets": resets}))
    g.first, g.earl_side = 1, True
    seen = []
    for _ in range(3):
        both(s, g, lambda g: g.cleanup(), k_cleanup(s))
        seen.append(g.first)
    assert seen == firsts
    assert g.earl_side == (resets is not True)


@pytest.mark.parametrize("cond, raids, over", [
    ("conquer", 4, False), ("conquer", 5, True), ("lightning", 2, False),
    ("lightning", 3, True)])
def test_game_end(cond, raids, over):
    """§9.1, §10.2: 5 Raid cards end the game (Lightning 3); Treasures do not count."""
    s, g = blank(2, end_condition=cond)
    g.players[1].raid = ids(s, "Lindisfarne") * raids + ids(s, "Gold Torc") * 3
    w = state.pack(g, s)
    c = s.compiled
    assert g.game_over() == over
    assert K._game_over(c.ri, c.card, w["sh"], w["shn"], w["rows"], w["pp"], w["pn"], 2) == over


def test_epic_ends_when_deck_and_row_are_empty():
    """§10.2 Epic: only when the Raid deck and the Raid Row are both empty."""
    s, g = blank(2, end_condition="epic")
    g.players[0].raid = ids(s, "Lindisfarne") * 7
    c = s.compiled
    for row, deck, over in (([R.EMPTY] * 5, [], True), ([R.EMPTY] * 4 + ids(s, "York"), [],
                                                        False),
                            ([R.EMPTY] * 5, ids(s, "York"), False)):
        g.raid_row, g.raid_deck = row, deck
        w = state.pack(g, s)
        assert g.game_over() == over
        assert K._game_over(c.ri, c.card, w["sh"], w["shn"], w["rows"], w["pp"], w["pn"],
                            2) == over


def test_scoring_and_tie_breaks():
    """§10.1: Legend of Treasures and Raid cards in deck, discard, Raid and Bury piles (not
    in play, §13.14 DEFAULT); ties: Raid-card Legend, then most recent Earl; still tied:
    shared (outcome tie), the first in turn order as the winner seat."""
    s, g = blank(3)
    rel, torc, lind, post = ids(s, "Jeweled Reliquary", "Gold Torc", "Lindisfarne",
                                "Trading Post")
    a, b, c = g.players
    a.deck, a.bury = [rel], [torc]                    # 3 + 2 = 5, Raid Legend 0
    b.raid = [lind] + [rel]                           # 2 + 3 = 5, Raid Legend 2
    c.raid, c.discard = [post], [torc]                # 3 + 2 = 5, Raid Legend 3
    assert [g.score(p) for p in g.players] == [(5, 0), (5, 2), (5, 3)]

    def winner(g):
        w = state.pack(g, s)
        cc = s.compiled
        got = K._winner(cc.ri, cc.card, w["pp"], w["pn"], w["fl"], w["ps"], w["gs"], 3)
        assert (int(got[0]), bool(got[1]), int(got[2])) == g.winner()
        return g.winner()

    assert winner(g)[:2] == (2, False)
    b.raid = [post, torc]                             # now b: 3 + 2 = 5, Raid Legend 3
    assert winner(g) == (1, True, 0b110)              # tie b, c: first in turn order is b
    c.last_earl = 7
    assert winner(g) == (2, False, 0b100)
    play(g, 0, [rel])                                 # a: a Reliquary in play scores nothing
    assert winner(g) == (2, False, 0b100)


@pytest.mark.parametrize("in_play, scores, win", [
    # seat 0: Gold Torc (2) in the deck, Jeweled Reliquary (3) in play, Gold Torc in hand;
    # seat 1: Reliquary in the discard (3); seat 2: Gold Torc buried (2).
    # DEFAULT (§10.1 "in their personal deck, discard pile, Raid pile, and Bury pile"):
    # 2 / 3 / 2, seat 1 wins; score_cards_in_play (old reading): 2 + 3 + 2 = 7 for seat 0
    (None, [2, 3, 2], 1), (False, [2, 3, 2], 1), (True, [7, 3, 2], 0)])
def test_treasures_in_play_do_not_score(in_play, scores, win):
    """§10.1, §13.14: the end check comes before End of Round's discard (§9.1), so the cards
    played in the last round are still in play at scoring; they (and cards kept in hand)
    count only with score_cards_in_play. Both engines' _score/_winner, 3 players."""
    opts = {} if in_play is None else {"score_cards_in_play": in_play}
    s, g = blank(3, **opts)
    rel, torc = ids(s, "Jeweled Reliquary", "Gold Torc")
    a, b, c = g.players
    a.deck, a.hand = [torc], [torc]
    play(g, 0, [rel])
    b.discard, c.bury = [rel], [torc]
    w = state.pack(g, s)
    cc = s.compiled
    assert [g.score(p)[0] for p in g.players] == scores
    assert [int(K._score(cc.ri, cc.card, w["pp"], w["pn"], w["fl"], q)[0])
            for q in range(3)] == scores
    got = K._winner(cc.ri, cc.card, w["pp"], w["pn"], w["fl"], w["ps"], w["gs"], 3)
    assert (int(got[0]), bool(got[1])) == (win, False) == g.winner()[:2]


def test_final_tie_seat_order():
    """§10.1, §13.10 final_tie = seat_order: no tie recorded, first in turn order wins."""
    s, g = blank(2, final_tie="seat_order")
    g.first = 1
    assert g.winner() == (1, False, 0b11)
