"""Restricted play of Raid cards and Treasures (``forbid``, notes raidconquer §12.4).

A forbidden Raid card is never the target of the seat's raid as Earl (§8.3.4) or Lone Raider
(§8.4.2), never sent off by a Chaotic Raid it is in (§8.3.5), never acquired by its Defend
(§8.1.3) and never Pillaged by its Attack (§8.2.3); a forbidden Treasure is never gained from
the Treasure pile (§8), never Looted (§8.2.3; nor any other forbidden card) or Pillaged
(§13.7 alternative) by its Attack,
and never buried (§7.6), so never spent on an acquire; the Coin cannot be forbidden (one
line). Forced positions are laid out by hand and played through
both engines' Action phase (``both``: the kernel's and the reference's positions must agree);
every expected card is worked out by hand from the catalog's Defense and Legend values
(``cards.toml``) and the rules' orders (highest Defense, best Legend)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_raidconquer_rules import (_setup, blank, both, ids, k_actions, k_main, play,
                                          r_actions)
from vikingsim.core.errors import InputError
from vikingsim.games.raidconquer import GAME
from vikingsim.games.raidconquer import reference as R

ROW = ("Lindisfarne", "Trading Post", "York", "Paris", "Mediterranean Fleet")  # D 3 5 6 10 12


def _raid(forbid0="", forbid1="", players=2):
    pols = [f"hints(forbid={f})" if f else "hints" for f in (forbid0, forbid1)]
    s, g = blank(players, pols + ["hints"] * (players - 2))
    g.treasure = ids(s, "Arm Ring") * 6
    g.raid_row = ids(s, *ROW)
    g.raid_deck = ids(s, "Rouen", "Winchester")                 # top = last: Winchester
    return s, g


@pytest.mark.parametrize("forbid, taken, slot", [
    ("", "York", 2),                                  # Power 5 + 2 = 7: highest D <= 7
    ("york", "Trading Post", 1),                      # next highest: D5
    ("york+trading_post", "Lindisfarne", 0),          # D3
    ("york+trading_post+lindisfarne", None, 4)])      # nothing allowed: failed raid (§8.5)
def test_lone_raider_never_targets_a_forbidden_raid_card(forbid, taken, slot):
    """§8.4.2: the Lone Raider (Longboat; Berserker P3 + 1 for the other Viking, Battle Frenzy
    §11.1; Warriors P1: 5 + 2 = 7) takes the highest Defense it beats among the cards it does not forbid; the gap is refilled from the
    top of the Raid deck (Winchester). With every beatable card forbidden the raid fails
    (§8.5): the highest Defense in the Row, Mediterranean Fleet (D12, slot 4), goes under the
    Raid deck and Winchester fills its slot."""
    s, g = _raid(forbid)
    play(g, 0, ids(s, "Longboat", "Berserker", "Warriors"))
    g.players[0].action, g.players[1].action = R.LONE, R.LONE   # seat 1: no Longboat
    row = list(g.raid_row)
    both(s, g, r_actions(), k_actions(s))
    me, winch = g.players[0], ids(s, "Winchester")[0]
    if taken is None:
        assert me.raid == [] and g.failed_raids == 1 and g.raid_deck[0] == row[4]
        assert me.discard == []                                 # no Treasure either
    else:
        assert me.raid == ids(s, taken) and g.failed_raids == 0 and me.discard == ids(
            s, "Arm Ring")
    assert g.raid_row == row[:slot] + [winch] + row[slot + 1:]


@pytest.mark.parametrize("forbid0, forbid1, taken", [
    ("", "", "Paris"),                                # party Power 6 + 4 = 10: Paris (D10)
    ("", "paris", "Paris"),                           # the invitee's forbid: not its choice
    ("paris", "", "York"),                            # the Earl's: next highest, York (D6)
    ("paris+york", "york", "Trading Post")])
def test_the_earl_never_targets_a_raid_card_it_forbids(forbid0, forbid1, taken):
    """§8.3.4: "The Earl picks a Raid card". 3 players (a 2-player game has no alliances,
    §13.12). Seat 0 (Longboat; Siggy I2 + 1 for the other Viking, Leadership; Berserker P3 +
    1, Battle Frenzy, §11.1) is Earl (Influence 3 against seat 1's 1) and invites seat 1
    (Raid Party; Longboat, Torstein P2 I1: its Longboat makes room, §8.3.3): party Power
    (4 + 2) + (2 + 2) = 10. Only the Earl's forbid counts; the card goes to the Earl, both
    Raiders gain a Treasure, seat 2 (Lone Raid, no Longboat) nothing."""
    s, g = _raid(forbid0, forbid1, players=3)
    play(g, 0, ids(s, "Longboat", "Siggy", "Berserker"))
    play(g, 1, ids(s, "Longboat", "Torstein"))
    g.players[0].action = g.players[1].action = R.PARTY
    g.players[2].action = R.LONE
    both(s, g, r_actions(), k_actions(s))
    assert g.players[0].raid == ids(s, taken) and g.players[1].raid == []
    assert [len(pl.discard) for pl in g.players] == [1, 1, 0]


@pytest.mark.parametrize("forbid, acquired, bury_left", [
    ("", "Trading Post", []),                         # 2 + 2 + 1 = 5 pays D5 exactly
    ("trading_post", "Lindisfarne", ["Hacksilver"]),  # D3 = 2 + 1: one Hacksilver left
    ("trading_post+lindisfarne", None, ["Hacksilver", "Hacksilver", "Coin"])])
def test_defend_never_acquires_a_forbidden_raid_card(forbid, acquired, bury_left):
    """§8.1.2-8.1.3 (as test_defend_bury_and_acquire): the Defender buries its Coin, Bury pile
    Hacksilver 2 + 2 + Coin 1; Row Lindisfarne D3, Trading Post D5, Paris D10. It acquires
    the highest Defense it can pay exactly (§13.5) among the cards it does not forbid: the
    payment takes the largest Silver first, skipping overshoots (for D3: 2, then 2 would make
    4 > 3, then the Coin: 3). Nothing allowed it can pay: no acquire, no Treasure."""
    s, g = _raid(forbid)
    coin, hack, lind, post, paris, york = ids(s, "Coin", "Hacksilver", "Lindisfarne",
                                              "Trading Post", "Paris", "York")
    me = g.players[0]
    me.action, g.players[1].action = R.DEFEND, R.LONE
    play(g, 0, [coin])
    me.bury = [hack, hack]
    g.raid_row = [lind, post, paris, R.EMPTY, R.EMPTY]
    g.raid_deck = [york]
    both(s, g, r_actions(), k_actions(s))
    assert me.raid == (ids(s, acquired) if acquired else [])
    assert sorted(me.bury) == sorted(ids(s, *bury_left))
    assert len(me.discard) == (1 if acquired else 0)


@pytest.mark.parametrize("forbid, pillaged, looted", [
    ("", "Monastery of St Cuthbert", None),           # D5 L3: the best Legend reachable
    ("monastery_of_st_cuthbert", "Lindisfarne", None),  # D3 L2
    ("monastery_of_st_cuthbert+lindisfarne", None, "Kalf")])   # no Pillage: Loot
def test_attacker_never_pillages_a_forbidden_raid_card(forbid, pillaged, looted):
    """§8.2.3 Pillage needs Power >= the defender's Defense 5 + the card's Defense: attacker
    Warriors x 8 + 2 = 10 reaches D <= 5 (Lindisfarne D3 L2, Monastery of St Cuthbert D5 L3),
    not York (D6) or Paris (D10); the best Legend among the cards it does not forbid. With
    none it Loots instead (the defender's discard: Kalf)."""
    s0 = _setup(2)
    pols = ["hints", f"hints(forbid={forbid})" if forbid else "hints"]
    s, g = blank(2, pols)
    war, lind, mon, york, paris, kalf, arm = ids(
        s, "Warriors", "Lindisfarne", "Monastery of St Cuthbert", "York", "Paris", "Kalf",
        "Arm Ring")
    assert s0.ids == s.ids
    play(g, 1, [war] * 8)
    g.players[1].action, g.players[1].target, g.players[0].action = R.ATTACK, 0, R.LONE
    g.treasure = [arm] * 3
    g.players[0].raid = [york, lind, paris, mon]
    g.players[0].discard = [kalf]
    both(s, g, r_actions(), k_actions(s))
    a, d = g.players[1], g.players[0]
    assert a.raid == (ids(s, pillaged) if pillaged else [])
    assert a.discard == [arm] + (ids(s, looted) if looted else [])
    assert (a.pillaged, d.lost) == ((1, 1) if pillaged else (0, 0))


@pytest.mark.parametrize("forbid, discard, deck, looted, left", [
    ("", ["Coin", "Jeweled Reliquary", "Coin"], [], "Jeweled Reliquary", ["Coin", "Coin"]),
    # forbidden: the next best, Legend 0 and cost 0 both Coins: the first (as the kernel)
    ("jeweled_reliquary", ["Coin", "Jeweled Reliquary", "Coin"], [], "Coin",
     ["Jeweled Reliquary", "Coin"]),
    # only forbidden Treasures to Loot: the attacker Plunders the top of the deck instead
    ("jeweled_reliquary+gold_torc", ["Jeweled Reliquary", "Gold Torc"], ["Coin", "Hacksilver"],
     "Hacksilver", ["Jeweled Reliquary", "Gold Torc"]),
    ("", ["Coin", "Hacksilver", "Coin"], [], "Hacksilver", ["Coin", "Coin"]),   # cost 3 > 0
    ("hacksilver", ["Coin", "Hacksilver", "Coin"], [], "Coin", ["Hacksilver", "Coin"]),
    # §8.2.4: a Betray card in the discard must be taken, over a costlier card
    ("", ["Berserker", "Kalf", "Coin"], [], "Kalf", ["Berserker", "Coin"]),
    # the rule still binds with Kalf forbidden: a Betray card it allows (Siggy, not the
    # costlier Berserker); with none allowed, Plunder (the top of the deck, Hacksilver)
    ("kalf", ["Berserker", "Kalf", "Siggy"], [], "Siggy", ["Berserker", "Kalf"]),
    ("kalf", ["Berserker", "Kalf", "Coin"], ["Coin", "Hacksilver"], "Hacksilver",
     ["Berserker", "Kalf", "Coin"]),
    # only forbidden cards to Loot: Plunder the top of the deck (Hacksilver)
    ("kalf+berserker", ["Kalf", "Berserker"], ["Coin", "Hacksilver"], "Hacksilver",
     ["Kalf", "Berserker"])])
def test_attacker_never_loots_a_forbidden_card(forbid, discard, deck, looted, left):
    """§8.2.3 Loot "any card" of the defender's discard (the policy: most Legend, then cost,
    first on ties, §12.4): a card the attacker forbids is no choice, a Treasure (Jeweled
    Reliquary: Legend 3) and, since 2026-12-08 (notes §12.4), Viking and Village cards too
    (no Legend: cost decides). §8.2.4 (a rule, not a choice) still binds: with a Betray
    card in the discard the attacker takes a Betray card it does not forbid, and with none,
    nothing: it Plunders. Attacker Warriors x 3 + 2 = 5 = the Lone-Raid chooser's Defense 5:
    success, a Treasure (Arm Ring), then the Loot; nothing allowed: Plunder (the top of the
    deck)."""
    pols = ["hints", f"hints(forbid={forbid})" if forbid else "hints"]
    s, g = blank(2, pols)
    war, arm = ids(s, "Warriors", "Arm Ring")
    play(g, 1, [war] * 3)
    g.players[1].action, g.players[1].target, g.players[0].action = R.ATTACK, 0, R.LONE
    g.treasure = [arm] * 3
    g.players[0].discard, g.players[0].deck = ids(s, *discard), ids(s, *deck)
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].discard == [arm] + ids(s, looted)
    assert g.players[0].discard == ids(s, *left)


@pytest.mark.parametrize("forbid, pillaged", [("", True), ("jeweled_reliquary", False)])
def test_pillage_treasures_skips_a_forbidden_treasure(forbid, pillaged):
    """§13.7 alternative (pillage_treasures): a Treasure in the Raid pile may be pillaged,
    but not one the attacker forbids (then, discard and deck empty: nothing more)."""
    pols = ["hints", f"hints(forbid={forbid})" if forbid else "hints"]
    s, g = blank(2, pols, pillage_treasures=True)
    war, rel, arm = ids(s, "Warriors", "Jeweled Reliquary", "Arm Ring")
    play(g, 1, [war] * 3)
    g.players[1].action, g.players[1].target, g.players[0].action = R.ATTACK, 0, R.LONE
    g.treasure = [arm] * 3
    g.players[0].raid = [rel]
    both(s, g, r_actions(), k_actions(s))
    assert g.players[1].raid == ([rel] if pillaged else [])
    assert g.players[0].raid == ([] if pillaged else [rel])


def test_forbidden_raid_cards_are_never_taken_in_a_run():
    """Whole 3-player games, kernel = reference bit for bit: seat 0 forbids the three Level 1
    Raid cards and a Treasure; a Raid card reaches a Raid pile only by the holder's raid,
    acquire or Pillage, so seat 0 ends no game holding one of the three, while the seats that
    do not forbid them hold them in some games."""
    from vikingsim.core.runner import simulate

    banned = ("lindisfarne", "fishing_village", "farmstead")
    pols = [f"hints(forbid={'+'.join(banned)}+arm_ring)", "hints", "hints"]
    kw = dict(seed=4, players=3, policies=pols, threads=1, count_elements=True)
    a = simulate("raidconquer", 40, **kw)
    b = simulate("raidconquer", 40, reference=True, **kw)
    assert all(np.array_equal(a.out[k], b.out[k]) for k in a.out)
    final = a.out["cards"][:, 3].astype(np.int64)                # games, seats, cards
    cols = [a.setup.ids.index(x) for x in banned]
    assert final[:, 0, cols].sum() == 0
    assert final[:, 1:, cols].sum() > 0


def test_elements_are_every_card_but_the_coin():
    """§12.4: 20 buyable designs, 4 Treasures and 21 Raid cards = 45 of the catalog's 46, in
    catalog order; ids unique."""
    s = _setup(2)
    el = GAME.elements(s)
    assert len(el) == 45 == len(set(el)) and "coin" not in el
    assert {"lindisfarne", "paris", "jarl_borg", "arm_ring", "jeweled_reliquary",
            "funeral_pyre", "longboat"} <= set(el)
    assert list(el) == [i for i in s.ids if i != "coin"]


def test_forbidding_the_coin_is_one_line_saying_why():
    with pytest.raises(InputError) as e:
        _setup(2, ["hints(forbid=coin)", "hints"])
    msg = str(e.value)
    assert "\n" not in msg and "coin is no choice" in msg and "lindisfarne" in msg


def test_card_ids_must_be_unique(tmp_path):
    """Two designs whose names give one id ("Seer" and "Seer!" -> seer) cannot be told apart
    by ``forbid``: one line naming both."""
    from vikingsim.games.raidconquer.catalog import BUNDLED

    text = BUNDLED.read_text().replace('name = "Kalf"', 'name = "Seer!"')
    path = tmp_path / "cards.toml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        _setup(2, catalog=str(path))
    assert "\n" not in str(e.value) and "'Seer'" in str(e.value) and "'Seer!'" in str(e.value)


# ------------------------------------------- issue 20 §2: Chaotic Raid and Treasures (2026-12-07)

@pytest.mark.parametrize("forbids, sent, slot", [
    (("", "", ""), "York", 2),                        # party Power 3 + 3 = 6: York (D6)
    (("york", "", ""), "Trading Post", 1),            # a Raider's forbid: the next, D5
    (("", "york", ""), "Trading Post", 1),            # either Raider's (no Earl picks)
    (("", "", "york"), "York", 2),                    # seat 2 has no Longboat: no Raider
    (("york", "trading_post", ""), "Lindisfarne", 0),  # the union of the Raiders' forbids
    (("york+trading_post+lindisfarne", "", ""), None, 4)])   # none left: failed (§8.5)
def test_a_chaotic_raid_never_sends_off_a_card_a_raider_forbids(forbids, sent, slot):
    """§8.3.5 (3 players): seats 0 and 1 chose Raid Party, each with a Longboat and a
    Warriors (P1, I0): Influence 0 = 0 and Power 3 = 3, no Earl: a Chaotic Raid of the two
    (DEFAULT own_longboat, §13.6: seat 2, Raid Party with no Longboat, is not in it). Power
    3 + 3 = 6 reaches Lindisfarne D3, Trading Post D5, York D6; the card sent under the Raid
    deck is the highest Defense it reaches among those no Raider forbids (§12.4), and each
    Raider gains a Treasure; nothing allowed: a failed raid (§8.5, Mediterranean Fleet D12 in
    slot 4 goes under, no Treasure). The gap is refilled from the top (Winchester)."""
    pols = [f"hints(forbid={f})" if f else "hints" for f in forbids]
    s, g = blank(3, pols)
    g.treasure = ids(s, "Arm Ring") * 6
    g.raid_row = ids(s, *ROW)
    g.raid_deck = ids(s, "Rouen", "Winchester")
    for seat in (0, 1):
        play(g, seat, ids(s, "Longboat", "Warriors"))
    play(g, 2, ids(s, "Warriors"))
    for pl in g.players:
        pl.action = R.PARTY
    row = list(g.raid_row)
    both(s, g, r_actions(), k_actions(s))
    assert all(pl.raid == [] and pl.earls == 0 for pl in g.players)
    assert g.raid_deck[0] == (ids(s, sent)[0] if sent else row[4])
    assert g.raid_row == row[:slot] + ids(s, "Winchester") + row[slot + 1:]
    assert g.failed_raids == (0 if sent else 1)
    assert [len(pl.discard) for pl in g.players] == ([1, 1, 0] if sent else [0, 0, 0])


def _gain_by(route, forbid):
    """A position in which seat 1, which forbids ``forbid``, gains a Treasure by ``route``
    (§8); seat 0, gaining before it in a party, forbids nothing."""
    players = 3 if route in ("invitee", "chaotic") else 2
    seat = 1                                          # the second seat: no seat-0 default
    pols = ["hints"] * players
    pols[seat] = f"hints(forbid={forbid})" if forbid else "hints"
    s, g = blank(players, pols)
    g.raid_row = ids(s, *ROW)
    g.raid_deck = ids(s, "Rouen", "Winchester")
    me, other = g.players[seat], g.players[1 - seat]
    if route == "lone":                               # §8.4.2: P 5 + 2 = 7 takes York
        play(g, 1, ids(s, "Longboat", "Berserker", "Warriors"))
        me.action, other.action = R.LONE, R.LONE
    elif route == "invitee":                          # §8.3.4: seat 0 Earl, seat 1 invited
        play(g, 0, ids(s, "Longboat", "Siggy", "Berserker"))
        play(g, 1, ids(s, "Longboat", "Torstein"))
        g.players[0].action = g.players[1].action = R.PARTY
        g.players[2].action = R.LONE
    elif route == "chaotic":                          # §8.3.5: seats 0 and 1 tie
        for q in (0, 1):
            play(g, q, ids(s, "Longboat", "Warriors"))
            g.players[q].action = R.PARTY
        g.players[2].action = R.LONE
    elif route == "attack":                           # §8.2.3: 3 + 2 = 5 >= Defense 5
        play(g, 1, ids(s, "Warriors") * 3)
        me.action, me.target, other.action = R.ATTACK, 0, R.LONE
    else:                                             # §8.1.3: 2 + 2 + Coin 1 pays D5
        play(g, 1, ids(s, "Coin"))
        me.bury = ids(s, "Hacksilver") * 2
        me.action, other.action = R.DEFEND, R.LONE
    return s, g, seat


@pytest.mark.parametrize("route", ["lone", "invitee", "chaotic", "attack", "defend"])
@pytest.mark.parametrize("forbid, gained, left", [
    ("", "Jeweled Reliquary", ["Arm Ring", "Gold Torc", "Jeweled Reliquary"]),
    ("jeweled_reliquary", "Gold Torc", ["Arm Ring", "Jeweled Reliquary", "Jeweled Reliquary"]),
    ("jeweled_reliquary+gold_torc", "Arm Ring",
     ["Gold Torc", "Jeweled Reliquary", "Jeweled Reliquary"]),
    ("jeweled_reliquary+gold_torc+arm_ring", None,
     ["Arm Ring", "Gold Torc", "Jeweled Reliquary", "Jeweled Reliquary"])])
def test_a_forbidden_treasure_is_never_gained_from_the_pile(route, forbid, gained, left):
    """§8: a seat that succeeds gains "a Treasure" from the face-up, searchable pile (§2.1,
    §2.2); one that forbids some (§12.4) gains the topmost copy it does not forbid, and the
    copies passed over stay in order; with only forbidden ones left it gains nothing (as
    from an empty pile, §2.1). The seat meets the pile (top last) Arm Ring, Gold Torc, Jeweled
    Reliquary x 2; where a Raider that forbids nothing gains first (the Earl; the first
    Raider of a Chaotic Raid in turn order) one more Reliquary lies on top for it.
    Every route that gains a Treasure for a seat's own success or its party's: Lone Raid,
    an invited Raider, a Chaotic Raid, an Attack, Defend's acquire."""
    s, g, seat = _gain_by(route, forbid)
    arm, torc, rel = ids(s, "Arm Ring", "Gold Torc", "Jeweled Reliquary")
    first = route in ("invitee", "chaotic")           # seat 0 gains Jeweled Reliquary first
    g.treasure = [arm, torc, rel, rel] + ([rel] if first else [])
    both(s, g, r_actions(), k_actions(s))
    assert g.players[seat].discard == (ids(s, gained) if gained else [])
    if first:
        assert g.players[0].discard == [rel]
    assert g.treasure == ids(s, *left)


def _main_then_defend(s, g, seat):
    def ref(g):
        g.main_turn(g.players[seat], True)
        r_actions()(g)

    def ker(w, c, dice, pol):
        k_main(s, seat, True)(w, c, dice, pol)
        k_actions(s)(w, c, dice, pol)
    return ref, ker


@pytest.mark.parametrize("forbid, buried, acquired", [
    ("", "Jeweled Reliquary", "Lindisfarne"),         # Hacksilver 2 + Reliquary 1 = D3
    ("jeweled_reliquary", "Arm Ring", "Coastal Church"),   # 2 + Arm Ring 2 = D4
    ("jeweled_reliquary+arm_ring", None, None)])      # Bury not usable; 2 pays nothing
def test_a_forbidden_treasure_is_never_buried_so_never_spent(forbid, buried, acquired):
    """§7.6 BURY (Funeral Pyre, burier priority; §14.2: the first unused Coin, else
    Hacksilver, else Treasure) never buries a Treasure the seat forbids (§12.4): hand Funeral
    Pyre, Jeweled Reliquary, Arm Ring (no Coin, no Hacksilver). With both forbidden Bury has
    nothing to bury and is not used (the Pyre stays unused). The seat then Defends (§8.1.3:
    exact payment, Bury pile Hacksilver + the buried card; Row Lindisfarne D3, Coastal
    Church D4): a Treasure it forbids is never in its Bury pile, so never spent; a spent
    Treasure goes to the Raid pile with the Raid card. Supplies and rows empty: no buys."""
    pols = [f"burier(forbid={forbid})" if forbid else "burier", "hints"]
    s, g = blank(2, pols)
    pyre, rel, arm, hack, lind, church = ids(s, "Funeral Pyre", "Jeweled Reliquary",
                                             "Arm Ring", "Hacksilver", "Lindisfarne",
                                             "Coastal Church")
    me = g.players[0]
    me.hand, me.bury = [pyre, rel, arm], [hack]
    me.action, g.players[1].action = R.DEFEND, R.LONE
    g.supply = [0] * len(g.supply)
    g.raid_row = [lind, church, R.EMPTY, R.EMPTY, R.EMPTY]
    both(s, g, *_main_then_defend(s, g, 0))
    pyre_flag = R.USED if buried else R.NORMAL
    assert [pyre, pyre_flag] in me.play and me.silver_avail == 1 + 1 + 2
    kept = [k for k, _ in me.play if k != pyre]       # Treasures still in play
    assert sorted(kept) == sorted(k for k in (rel, arm) if k not in ids(s, buried or "Coin"))
    if acquired:
        assert sorted(me.raid) == sorted(ids(s, buried, acquired)) and me.bury == []
    else:
        assert me.raid == [] and me.bury == [hack]
