"""Per-card statistics (notes raidconquer §14.6) and restricted play (``forbid``, §12.4).

Forced-deck tests lay a position out by hand, run the kernel's own functions and the
reference's methods on it (``both``: the two positions, counters included, must agree) and
check hand-worked counts. The table's intervals are checked against scipy's exact binomial
interval (an independent implementation of Clopper-Pearson)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_raidconquer_rules import _setup, blank, both, ids, k_cleanup, k_main
from tests.test_raidconquer_bite import k_play_round
from vikingsim.core.errors import InputError
from vikingsim.games.raidconquer import GAME, element_stats, tally
from vikingsim.games.raidconquer import kernel as K
from vikingsim.games.raidconquer import reference as R


def _counts(pl, *cards):
    return ([pl.bought[k] for k in cards], [pl.first_buy[k] for k in cards],
            [pl.played[k] for k in cards])


# ---------------------------------------------------------------- counters (§14.6)

def test_buys_and_plays_are_counted_over_two_rounds():
    """Round 6: 5 Coins + Hacksilver = 7 Silver, 2 Longboats owned -> a Longboat (3), then
    Kalf (4) (as test_buy_longboat_first...): bought Longboat 1, Kalf 1, both first in round
    6; played Coin 5, Hacksilver 1. End of Round, then round 7 (Winter rounds = 4, so
    Spring; the Main phase is the same): 6 Coins, Viking Row empty, Hacksilver pile empty,
    3 Longboats owned -> the dearest of Warriors 1 and Longboat 3: a Longboat, and with 3
    left another. Now Longboat bought 3, still first in round 6 (not 7); Coin played
    5 + 6 = 11."""
    s, g = blank(2, count_elements=True)
    coin, hack, boat, kalf, seer = ids(s, "Coin", "Hacksilver", "Longboat", "Kalf", "Seer")
    me = g.players[0]
    me.hand = [coin] * 5 + [hack]
    me.deck = [boat, boat]
    g.vrow = [seer, kalf, R.EMPTY, R.EMPTY, R.EMPTY]
    g.round = 6
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.discard == [boat, kalf]
    assert _counts(me, boat, kalf, hack, coin) == ([1, 1, 0, 0], [6, 6, 0, 0], [0, 0, 1, 5])
    both(s, g, lambda g: g.cleanup(), k_cleanup(s))
    me.hand = [coin] * 6
    g.vrow = [R.EMPTY] * 5
    g.supply[hack] = 0
    g.round = 7
    both(s, g, lambda g: g.main_turn(me, True), k_main(s, 0, True))
    assert me.discard[-2:] == [boat, boat]
    assert _counts(me, boat, kalf, hack, coin) == ([3, 1, 0, 0], [6, 6, 0, 0], [0, 0, 1, 11])
    assert sum(me.bought) == 4 and sum(me.played) == 12


def test_cards_drawn_or_taken_into_play_count_as_played():
    """§7.2, §11.2: Boatwright's Shipbuild (Lone Raid, no Longboat in play) takes a Longboat
    into play: played Boatwright 1 and Longboat 1, though the Longboat came from the pile (it
    is not bought: the one buy is a Warriors with the Boatwright's 1 Silver)."""
    s, g = blank(2, count_elements=True)
    wright, boat, war = ids(s, "Boatwright", "Longboat", "Warriors")
    me = g.players[0]
    me.hand = [wright]
    me.action = R.LONE
    both(s, g, lambda g: g.main_turn(me, True), k_main(s, 0, True))
    assert me.played[wright] == 1 and me.played[boat] == 1 and sum(me.played) == 2
    assert me.bought[war] == 1 and sum(me.bought) == 1 and me.bought[boat] == 0


def test_final_copies_are_every_card_the_seat_holds_but_sacrificed_ones():
    """§14.6: at the end, seat 0 holds deck 2 Coins, discard a Longboat, hand Kalf, play a
    Coin and a sacrificed Warriors, Raid pile Lindisfarne, Bury pile a Hacksilver: final
    Coin 3, Longboat 1, Kalf 1, Warriors 0 (sacrificed: back to its pile, §9.2),
    Lindisfarne 1, Hacksilver 1; seat 1 holds nothing. Kernel ``_count_cards`` = reference
    ``record``."""
    s, g = blank(2, count_elements=True)
    coin, boat, kalf, war, lind, hack = ids(s, "Coin", "Longboat", "Kalf", "Warriors",
                                            "Lindisfarne", "Hacksilver")
    me = g.players[0]
    me.deck, me.discard, me.hand = [coin, coin], [boat], [kalf]
    me.play = [[coin, R.NORMAL], [war, R.SACRIFICED]]
    me.raid, me.bury = [lind], [hack]
    me.bought[kalf], me.first_buy[kalf], me.played[coin] = 1, 5, 7
    ref = GAME.allocate(s, 1)
    R.record(g, 0, ref, False, 5)
    from vikingsim.games.raidconquer import state
    w = state.pack(g, s)
    ker = GAME.allocate(s, 1)
    ker["cards"][0, :3] = w["ec"][:3]
    K._count_final(w["pp"], w["pn"], w["fl"], ker["cards"][0], 2)
    assert np.array_equal(ker["cards"], ref["cards"])
    final = ref["cards"][0, 3, 0]
    want = {coin: 3, boat: 1, kalf: 1, war: 0, lind: 1, hack: 1}
    assert {k: int(final[k]) for k in want} == want and int(final.sum()) == 7
    assert int(ref["cards"][0, 3, 1].sum()) == 0
    assert ref["cards"][0, :3, 0, kalf].tolist() == [1, 5, 0]
    assert ref["cards"][0, 2, 0, coin] == 7


# ---------------------------------------------------------------- tally and table

def _fake_out(s, n=4):
    """Four 2-seat games by hand: seat 0 buys Kalf in games 0, 1 (rounds 3, 5) and wins
    games 0 and 2; seat 1 wins game 1 and buys Kalf only in game 3 (round 20), which is
    truncated (nobody wins)."""
    out = GAME.allocate(s, n)
    kalf = s.catalog.id_of("Kalf")
    out["winner"][:] = [0, 1, 0, -1]
    out["truncated"][:] = [False, False, False, True]
    out["tied"][:] = [1, 2, 1, 0]
    out["rounds"][:] = [10, 11, 12, 60]
    out["cards"][0, 0, 0, kalf], out["cards"][0, 1, 0, kalf] = 2, 3
    out["cards"][1, 0, 0, kalf], out["cards"][1, 1, 0, kalf] = 1, 5
    out["cards"][:, 2, 0, kalf] = [4, 1, 0, 0]
    out["cards"][:, 3, 0, kalf] = [2, 1, 0, 0]
    out["cards"][3, :2, 1, kalf] = [1, 20]
    return out, kalf


def test_tally_and_table_by_hand():
    """Seat 0, Kalf: bought in 2 of 4 games (buy rate 0.5), won 1 of those 2 (game 0) and 1
    of the 2 others (game 2; game 3 truncated counts as not won); 3 copies bought (0.75 a
    game), 5 played (1.25), 3 held at the end (0.75); first buy in rounds 3 and 5: mean 4.
    Seat 1 bought it only in the truncated game: won 0 of 1 when bought, 1 of 3 when not
    (mean first round 20); it never bought a Coin: NaN when bought, its win rate 1/4 when
    not. Intervals = scipy's exact (Clopper-Pearson) interval."""
    from scipy.stats import binomtest

    s = _setup(2, count_elements=True)
    out, kalf = _fake_out(s)
    t = tally(s, out)
    assert t["cards_bought"][0, kalf] == 3 and t["cards_bought_games"][0, kalf] == 2
    assert t["cards_bought_won"][0, kalf] == 1 and t["cards_first_round_sum"][0, kalf] == 8
    assert t["cards_played"][0, kalf] == 5 and t["cards_final"][0, kalf] == 3
    assert t["cards_bought_games"][1].sum() == 1 and t["cards_bought_won"][1, kalf] == 0
    df = element_stats(s, t).set_index(["seat", "card"])
    row = df.loc[(0, "kalf")]
    assert (row.games, row.bought_games, row.buy_rate) == (4, 2, 0.5)
    assert row.win_rate_bought == 0.5 and row.win_rate_not_bought == 0.5
    assert (row.copies_bought, row.copies_played, row.final_copies) == (0.75, 1.25, 0.75)
    assert row.mean_first_buy_round == 4.0
    lo, hi = binomtest(1, 2).proportion_ci(method="exact")
    assert row.win_rate_bought_lo == pytest.approx(lo) and row.win_rate_bought_hi == \
        pytest.approx(hi)
    other = df.loc[(1, "kalf")]
    assert (other.win_rate_bought, other.mean_first_buy_round) == (0.0, 20.0)
    assert other.win_rate_not_bought == pytest.approx(1 / 3)
    lo, hi = binomtest(1, 3).proportion_ci(method="exact")
    assert (other.win_rate_not_bought_lo, other.win_rate_not_bought_hi) == (
        pytest.approx(lo), pytest.approx(hi))
    other = df.loc[(1, "coin")]
    assert np.isnan(other.win_rate_bought) and np.isnan(other.mean_first_buy_round)
    assert other.win_rate_not_bought == 0.25
    lo, hi = binomtest(1, 4).proportion_ci(method="exact")
    assert (other.win_rate_not_bought_lo, other.win_rate_not_bought_hi) == (
        pytest.approx(lo), pytest.approx(hi))
    assert list(df.index.get_level_values("card")[:3]) == ["coin", "longboat", "warriors"]


def test_run_counters_add_up():
    """A kernel run: per seat, copies bought of a card never fall below the games it was
    bought in, games bought-and-won never exceed wins, a first-buy round exists exactly
    when bought; segment tallies add up to the whole run's (additive counts)."""
    from vikingsim.core.runner import simulate

    a = simulate("raidconquer", 60, seed=11, players=3, threads=1, count_elements=True)
    c = a.out["cards"].astype(np.int64)
    assert ((c[:, 0] > 0) == (c[:, 1] > 0)).all()
    assert (c[:, 1] <= a.out["rounds"][:, None, None]).all()
    t = a.tally
    assert (t["cards_bought"] >= t["cards_bought_games"]).all()
    assert (t["cards_bought_won"] <= t["wins"][:, None]).all()
    assert t["cards_bought"].sum() == c[:, 0].sum() > 0
    b = simulate("raidconquer", 60, seed=11, players=3, threads=1, segment_games=1,
                 count_elements=True)
    assert all(np.array_equal(t[k], b.tally[k]) for k in t if k.startswith("cards_"))


# ---------------------------------------------------------------- restricted play (§12.4)

@pytest.mark.parametrize("forbid, bought", [
    ("", ["Longboat", "Kalf"]),
    ("longboat", ["Kalf", "Hacksilver"]),            # Kalf 4, then 3 left: Hacksilver 3
    ("longboat+kalf", ["Hacksilver", "Hacksilver"]),  # dearest left: Hacksilver 3, twice
])
def test_forbidden_card_is_never_bought(forbid, bought):
    """hints, 7 Silver, 2 Longboats owned, Viking Row Seer (2), Kalf (4): without forbid a
    Longboat then Kalf; a forbidden card is skipped and the next choice bought instead."""
    s, g = blank(2, [f"hints(forbid={forbid})" if forbid else "hints", "hints"])
    coin, hack, boat, kalf, seer = ids(s, "Coin", "Hacksilver", "Longboat", "Kalf", "Seer")
    me = g.players[0]
    me.hand = [coin] * 5 + [hack]
    me.deck = [boat, boat]
    g.vrow = [seer, kalf, R.EMPTY, R.EMPTY, R.EMPTY]
    g.vdeck = [seer, seer]
    both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
    assert me.discard == ids(s, *bought)


def test_forbid_stops_abilities_that_gain_the_card():
    """Shipbuild takes a Longboat (§11.2) and Warriors gain a Hacksilver (burier's priority
    5): with the card forbidden neither is used (the card stays unused in play)."""
    s, g = blank(2, ["hints(forbid=longboat)", "hints"])
    wright, = ids(s, "Boatwright")
    me = g.players[0]
    me.hand, me.action = [wright], R.LONE
    both(s, g, lambda g: g.main_turn(me, True), k_main(s, 0, True))
    assert me.play == [[wright, R.NORMAL]]
    war, hack = ids(s, "Warriors", "Hacksilver")
    for forbid, gained in (("", [hack]), ("hacksilver", [])):
        s, g = blank(2, [f"burier(forbid={forbid})", "hints"])
        me = g.players[0]
        me.hand = [war]
        both(s, g, lambda g: g.main_turn(me, False), k_main(s, 0, False))
        assert me.discard == gained


@pytest.mark.parametrize("policy, card", [("hints", "Shieldmaiden"), ("random", "Shieldmaiden"),
                                          ("big-money", "Hacksilver")])
def test_forbidden_cards_never_bought_in_a_run(policy, card):
    """Seat 0 forbidden Longboat and a card its policy buys over whole games (kernel =
    reference bit for bit, counters included): it buys neither and never Loots either
    (§12.4; the reference's ``Game.took`` hook logs every Loot), while seat 1 (not
    restricted) buys both. hints ends every game here with exactly its 2 starting Longboats
    (Shipbuild refused); the random policy attacks, so it may lose some to Loots and gain
    some by a blind Plunder (§8.2.3, not restricted). The forced positions of
    ``test_raidconquer_forbid.py::test_attacker_never_loots_a_forbidden_card`` pin the Loot
    rule itself."""
    from vikingsim.core.runner import simulate
    from vikingsim.games.raidconquer import reference as R
    from vikingsim.games.raidconquer.policies import card_id

    pols = [f"{policy}(forbid=longboat+{card_id(card)})", policy, policy]
    a = simulate("raidconquer", 40, seed=4, players=3, policies=pols, threads=1,
                 count_elements=True)
    log, took = [], R.Game.took
    R.Game.took = lambda self, pl, k: log.append((pl.seat, k))
    try:
        b = simulate("raidconquer", 40, seed=4, players=3, policies=pols, threads=1,
                     reference=True, count_elements=True)
    finally:
        R.Game.took = took
    assert all(np.array_equal(a.out[k], b.out[k]) for k in a.out)
    boat, other = (a.setup.catalog.id_of(n) for n in ("Longboat", card))
    bought = a.tally["cards_bought"]
    assert bought[0, boat] == bought[0, other] == 0
    assert not [k for seat, k in log if seat == 0 and k in (boat, other)]
    if policy == "hints":
        assert a.tally["cards_final"][0, boat] == 2 * 40
    assert {seat for seat, k in log} == {0, 1, 2}     # the hook logs every seat's takes
    assert bought[1, boat] > 0 and bought[1, other] > 0


def test_elements_begin_with_the_buyable_cards():
    """§7.4: Viking Row (Vikings, Events) and Village Row cards first (catalog order), then
    Treasures and Raid cards (test_raidconquer_forbid.py); never the Coin."""
    el = GAME.elements(_setup(2))
    assert el[:3] == ("longboat", "warriors", "hacksilver")
    assert {"funeral_pyre", "odins_witness", "priests_of_uppsala", "kalf"} <= set(el[:20])
    assert not {"coin", "arm_ring", "lindisfarne", "paris"} & set(el[:20])
    assert "coin" not in el and {"arm_ring", "lindisfarne", "paris"} <= set(el[20:])


@pytest.mark.parametrize("policy", ["hints(forbid=coin)", "random(forbid=kalf+nope)"])
def test_unknown_forbidden_card_is_one_line(policy):
    with pytest.raises(InputError) as e:
        _setup(2, [policy, "hints"])
    assert "\n" not in str(e.value) and "funeral_pyre" in str(e.value)


# ---------------------------------------------------------------- exposed to users

def test_result_elements_and_the_command_line(cli, tmp_path):
    """``Result.elements`` is the spec's table of the run's tally (with count_elements on);
    ``--elements`` turns counting on and prints it, ``--elements-out`` writes the same table
    to CSV; bad input is one line, exit 2."""
    import pandas as pd

    from vikingsim.core.runner import simulate

    with pytest.raises(InputError, match="count_elements"):      # off by default (speed)
        simulate("raidconquer", 30, seed=2, players=2, threads=1).elements
    res = simulate("raidconquer", 30, seed=2, players=2, threads=1, count_elements=True)
    table = res.elements
    assert len(table) == 2 * (res.setup.catalog.n_kinds + 4)          # cards, then plans
    assert table.tail(8).card.tolist() == ["defend", "attack", "raid_party", "lone_raid"] * 2
    path = tmp_path / "cards.csv"
    r = cli("simulate", "raidconquer", "-n", "30", "--seed", "2", "--players", "2",
            "--threads", "1", "--quiet", "--elements-out", str(path))
    assert r.returncode == 0 and "funeral_pyre" in r.stdout and "mean_first_buy_round" in r.stdout
    got = pd.read_csv(path)
    assert np.array_equal(got["bought_games"], table["bought_games"], equal_nan=True)
    assert np.array_equal(got["taken_games"], table["taken_games"], equal_nan=True)
    assert np.allclose(got["win_rate_bought"], table["win_rate_bought"], equal_nan=True)
    for args in (("raidboard", "-n", "10", "--elements"),
                 ("raidconquer", "-n", "10", "--elements-out", str(tmp_path / "x.txt")),
                 ("raidconquer", "-n", "10", "--policy", "hints(forbid=coin)")):
        r = cli("simulate", *args, "--quiet")
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr


def test_counting_off_by_default_plays_the_same_games():
    """count_elements (§14.6) changes no game: the same outputs but the counters, which are
    empty when it is off (no memory), and the kernel's counters match the reference's."""
    from vikingsim.core.runner import simulate

    a = simulate("raidconquer", 50, seed=6, players=4, threads=1)
    b = simulate("raidconquer", 50, seed=6, players=4, threads=1, count_elements=True)
    assert a.out["cards"].shape[-1] == 0 and b.out["cards"].shape[-1] == 46
    assert all(np.array_equal(a.out[k], b.out[k]) for k in a.out if k != "cards")
    assert b.out["cards"][:, 3].sum() > 0


# ---------------------------------------------------------------- Secret Plans (§6.2, §14.6)

def test_secret_plans_are_counted_once_a_spring_round():
    """A whole round in both engines (``play_round`` / the kernel's ``_play_round``), hints:
    seat 0 holds the Sample Round hand and Raid Row (Power 8, a Longboat: Lone Raid, as
    test_sample_round), seat 1 four Warriors (Power 4 + 2 = 6 >= 5, no Longboat: Attack,
    as test_attack_target...). Round 4 is Winter (no Secret Plan, §5): nothing counted;
    round 5 is Spring: seat 0 Lone Raid 1, seat 1 Attack 1, every other slot 0."""
    s, g = blank(2, count_elements=True)
    war, ber, trader, odin, boat = ids(s, "Warriors", "Berserker", "Hedeby Trader",
                                       "Odin's Witness", "Longboat")
    row = ids(s, "Jarl Borg", "Rouen", "Seine Abbey", "Paris", "Constantinople Walls")
    me, other = g.players
    for rnd, want in ((4, ([0] * 4, [0] * 4)), (5, ([0, 0, 0, 1], [0, 1, 0, 0]))):
        g.raid_row, g.raid_deck = list(row), ids(s, "York")
        g.treasure = ids(s, "Gold Torc") * 2
        me.hand, other.hand = [war, ber, trader, odin, boat], [war] * 4
        for pl in g.players:
            pl.deck, pl.discard = [], []
        g.round = rnd
        both(s, g, lambda g: g.play_round(rnd), k_play_round(s, rnd))
        assert (me.plans[:4], other.plans[:4]) == want, (rnd, me.plans[:4], other.plans[:4])
        assert sum(me.plans) == sum(other.plans) == rnd - 4
        g.cleanup()
        for pl in g.players:
            pl.plans = [0] * len(pl.plans)


def test_plan_rows_of_the_table_by_hand():
    """Seat 0 takes Defend in games 0 (twice) and 2, Lone Raid in game 1; it wins games 0
    and 2 (``_fake_out``; game 3 truncated): Defend taken in 2 of 4 games (rate 0.5, 3 times:
    0.75 a game), won 2 of 2 when taken, 0 of 2 when not; Lone Raid won 0 of 1 when taken,
    2 of 3 when not; Attack never taken: NaN when taken, 2 of 4 when not. Intervals: scipy's
    exact binomial interval."""
    from scipy.stats import binomtest

    s = _setup(2, count_elements=True)
    out, _ = _fake_out(s)
    out["cards"][[0, 2], 4, 0, K.DEFEND] = [2, 1]
    out["cards"][1, 4, 0, K.LONE] = 1
    t = tally(s, out)
    assert t["plans_taken"][0].tolist() == [3, 0, 0, 1]
    assert t["plans_taken_games"][0].tolist() == [2, 0, 0, 1]
    assert t["plans_taken_won"][0].tolist() == [2, 0, 0, 0]
    df = element_stats(s, t)
    assert (df.kind == "card").sum() == 2 * s.catalog.n_kinds
    df = df[df.kind == "action"].set_index(["seat", "card"])
    d = df.loc[(0, "defend")]
    assert (d.games, d.taken_games, d.take_rate, d.mean_taken) == (4, 2, 0.5, 0.75)
    assert (d.win_rate_taken, d.win_rate_not_taken) == (1.0, 0.0)
    lo, hi = binomtest(2, 2).proportion_ci(method="exact")
    assert (d.win_rate_taken_lo, d.win_rate_taken_hi) == (pytest.approx(lo), pytest.approx(hi))
    d = df.loc[(0, "lone_raid")]
    assert d.win_rate_taken == 0.0 and d.win_rate_not_taken == pytest.approx(2 / 3)
    d = df.loc[(0, "attack")]
    assert np.isnan(d.win_rate_taken) and d.win_rate_not_taken == 0.5
    lo, hi = binomtest(2, 4).proportion_ci(method="exact")
    assert (d.win_rate_not_taken_lo, d.win_rate_not_taken_hi) == (
        pytest.approx(lo), pytest.approx(hi))
    assert np.isnan(df.loc[(1, "defend")].bought_games)             # card columns: NaN


@pytest.mark.parametrize("players, policies", [(3, "random"), (4, "hints")])
def test_one_secret_plan_per_seat_per_spring_round_and_kernel_equals_reference(players,
                                                                               policies):
    """Over whole games: each seat's plan counts sum to the game's Spring rounds (rounds
    minus the 4 Winter rounds, §5); the kernel's counts equal the reference's bit for bit;
    the random policy (§14.3: uniform over its 2 + seats options) takes all four actions."""
    from vikingsim.core.runner import simulate

    kw = dict(seed=13, players=players, policies=policies, threads=1, count_elements=True)
    a = simulate("raidconquer", 30, **kw)
    b = simulate("raidconquer", 30, reference=True, **kw)
    plans = a.out["cards"][:, 4].astype(np.int64)
    assert np.array_equal(plans, b.out["cards"][:, 4].astype(np.int64))
    spring = a.out["rounds"].astype(np.int64) - 4
    assert (plans[:, :, :4].sum(axis=2) == spring[:, None]).all() and (plans[:, :, 4:] == 0).all()
    if policies == "random":
        assert (a.tally["plans_taken_games"] > 0).all()
