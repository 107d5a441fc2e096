"""Raid & Conquer forward model and search players (issue 21 §1-§2, raidconquer §15): the
forward model replays the kernel's games, the compiled players match their plain-Python twins
bit for bit, a forced position with one winning option, a position where two options tie,
hidden information stays hidden, bad parameters."""
import numpy as np
import pytest
from scipy import stats

from vikingsim.core import rng
from vikingsim.core.errors import InputError
from vikingsim.core.options import resolve
from vikingsim.core.runner import simulate
from vikingsim.games.raidconquer import (GAME, forward, kernel, reference, reference_search,
                                         search, state)
from vikingsim.games.raidconquer.forward import Clock, END_DECIDE
from vikingsim.games.raidconquer.policies import PolicyKind

COIN, LONGBOAT, WARRIORS, BERSERKER, LINDISFARNE = 0, 1, 2, 7, 25     # catalog ids (cards.toml)
EMPTY = -1


def _setup(policies, **options):
    return GAME.setup(resolve(GAME.name, GAME.options, options), list(policies),
                      len(policies))


def _gen(seed, stream=rng.STREAM_POLICY):
    return rng.block_generator(seed, stream, 0)


def _seats(s):
    return s.kinds, s.params, kernel.buy_scores(s.compiled.card, s.compiled.alt,
                                                s.compiled.alt_n, s.params), s.forbid


# ---- forward model ---------------------------------------------------------------------------
@pytest.mark.parametrize("buys", [False, True])
@pytest.mark.parametrize("options", [{}, {"play_all_cards": False}, {"earl_marker_resets": True},
                                     {"max_rounds": 13}])
def test_forward_model_replays_the_kernel_game(options, buys):
    """A seat flagged as a search player whose every Secret Plan (and with ``buys``, every
    purchase, §15.6) is the default policy's (``default_option``, hints) plays the kernel's
    games bit for bit, a ``random`` seat (policy stream) among them: suspending at a decision
    and ``apply`` change nothing, and ``copy`` copies every field. Fails if apply resumed the
    round at the wrong turn or mid-buy with a wrong tally (the Silver totals are compared
    too), re-drew, or mis-stepped the clock."""
    pols = ["hints", "hints", "random", "raider"]
    plain = _setup(pols, **options)
    rules = forward.rules_of(plain.compiled)
    kinds, params, bscore, fb = _seats(plain)
    flagged = kinds.copy()
    flagged[1] = PolicyKind.FLATMC
    n = 12
    out = GAME.allocate(plain, n)
    GAME.play_block(plain, 0, n, _gen(3, rng.STREAM_DICE), _gen(3), out)
    dice, pol = _gen(3, rng.STREAM_DICE), _gen(3)
    st, sim, stops = forward.new_state(plain, 4), forward.new_state(plain, 4), 0
    st.clock[Clock.BUYERS] = 2 if buys else 0                # seat 1 decides its buys
    buy_stops = 0
    for g in range(n):
        forward.reset(rules, st, 4, g, dice)
        status = forward.advance(rules, flagged, params, bscore, fb, st, dice, pol)
        while status == END_DECIDE:
            stops += 1
            buy_stops += st.clock[Clock.MAIN] >= 0
            assert st.clock[Clock.ACTOR] == 1
            forward.copy(st, sim)                        # copy: every pile, flag, scalar
            for name in ("pn", "ps", "shn", "rows", "supply", "box", "gs", "ec", "clock"):
                np.testing.assert_array_equal(getattr(sim, name), getattr(st, name))
            for seat in range(4):
                for p in range(kernel.N_PILES):
                    m = st.pn[seat, p]
                    np.testing.assert_array_equal(sim.pp[seat, p, :m], st.pp[seat, p, :m])
            o = forward.default_option(rules, st, params[1], bscore[1], fb[1], pol)
            status = forward.apply(rules, flagged, params, bscore, fb, st, o, dice, pol)
        trunc = st.clock[Clock.END] == forward.END_TRUNCATED
        assert bool(out["truncated"][g]) == trunc and st.clock[Clock.ROUNDS] == out["rounds"][g]
        assert st.clock[Clock.WINNER] == out["winner"][g]
        for seat in range(4):
            tot, _ = kernel._score(rules[0], rules[1], st.pp, st.pn, st.fl, seat)
            assert tot == out["legend"][g, seat], (g, seat)
            assert st.ps[seat, kernel.PS_SILVER_AVAIL] == out["silver_avail"][g, seat]
            assert st.ps[seat, kernel.PS_SILVER_SPENT] == out["silver_spent"][g, seat]
    assert stops - buy_stops >= 5 * n                    # the plans were really suspended
    assert (buy_stops >= 5 * n) if buys else buy_stops == 0  # and the purchases


def test_legal_options_are_every_plan():
    """§6.2: Defend, Lone Raid, Raid Party, then Attack each opponent clockwise from the
    actor (codes 3 + seat), the order untried options are expanded in (never by seat
    number)."""
    s = _setup(["flatmc"] * 4)
    rules = forward.rules_of(s.compiled)
    st, out = forward.new_state(s, 4), np.zeros(forward.N_OPTIONS, np.int64)
    for actor, attacks in ((2, [6, 3, 4]), (0, [4, 5, 6])):
        st.clock[Clock.ACTOR] = actor
        assert list(out[:forward.legal_options(rules, st, out)]) == [0, 1, 2] + attacks
    game = reference.Game(s, 0, _gen(0, rng.STREAM_DICE), _gen(0))
    assert reference_search.options(game, 2) == [0, 1, 2, 6, 3, 4]


# ---- kernel = reference ----------------------------------------------------------------------
@pytest.mark.parametrize("policies, options", [
    (["flatmc(rollouts=2)", "hints", "random"], {}),
    (["ismcts(budget=6)", "random", "flatmc(rollouts=1)"], {}),
    (["ismcts(budget=4, c=0.5)"] * 2, {"play_all_cards": False}),
    (["hints", "ismcts(budget=5)", "attacker", "raider"], {"max_rounds": 14}),   # truncated
    (["burier", "flatmc(rollouts=1)", "earl", "hints", "ismcts(budget=3)"],
     {"count_elements": True, "rotate_characters": True}),
    (["flatmc(rollouts=1, buys=1)", "hints", "random"], {"count_elements": True}),   # §15.6
    (["ismcts(budget=5, buys=1)", "raider", "ismcts(budget=3, c=0.5, buys=1)"],
     {"play_all_cards": False}),
])
def test_search_players_match_the_reference_bit_for_bit(policies, options):
    a = simulate("raidconquer", 3, seed=5, players=len(policies), policies=policies,
                 options=options)
    b = simulate("raidconquer", 3, seed=5, players=len(policies), policies=policies,
                 options=options, reference=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_same_seed_same_games_for_any_thread_count():
    """Blocks of 8 games (a GameSpec copy) so that 3 blocks are cheap: 1 thread, 2 threads
    and 2 threads with 2-block chunks play the same games."""
    import dataclasses

    spec = dataclasses.replace(GAME, block_games=8)
    pols = ["ismcts(budget=4)", "flatmc(rollouts=1)", "hints"]
    one = simulate(spec, 24, seed=9, players=3, policies=pols, threads=1)
    two = simulate(spec, 24, seed=9, players=3, policies=pols, threads=2)
    chunked = simulate(spec, 24, seed=9, players=3, policies=pols, threads=2, chunk_blocks=2)
    for key in one.out:
        np.testing.assert_array_equal(one.out[key], two.out[key], err_msg=key)
        np.testing.assert_array_equal(one.out[key], chunked.out[key], err_msg=key)
    for key in one.out:
        np.testing.assert_array_equal(one.out[key], two.out[key], err_msg=key)


# ---- positions with a known best move --------------------------------------------------------
def _position(s, actor, rnd, hand, raids, raid_row, seed=0):
    """Kernel state and reference game at ``actor``'s Secret Plan of Spring round ``rnd``
    (First Player seat 0, so its turn index is its seat; the seats before it have planned
    Defend, which the determinization redoes). Every seat's deck holds 10 Coins (the other
    seats' hands: 5 of them), discards and Bury piles are empty; ``hand`` is the actor's hand,
    ``raids[seat]`` its Raid pile; the Raid Row is ``raid_row``, the Raid deck empty."""
    n = len(s.kinds)
    game = reference.Game(s, 0, _gen(seed, rng.STREAM_DICE), _gen(seed))
    game.round, game.first = rnd, 0
    for pl in game.players:
        pl.deck, pl.discard, pl.bury, pl.play = [COIN] * 10, [], [], []
        pl.hand = list(hand) if pl.seat == actor else [COIN] * 5
        pl.raid = list(raids.get(pl.seat, []))
        pl.action, pl.target = reference.DEFEND, -1
    game.raid_row, game.raid_deck = list(raid_row), []
    w = state.pack(game, s)
    st = forward.new_state(s, n)
    for name in ("pp", "pn", "fl", "ps", "sh", "shn", "rows", "supply", "box", "gs"):
        getattr(st, name)[...] = w[name]
    st.clock[Clock.ROUND], st.clock[Clock.TURN], st.clock[Clock.ACTOR] = rnd, actor, actor
    return st, game


def _code(action, target):
    return int(forward.encode(action, target))


def _both_choices(s, actor, seed, **position):
    st, game = _position(s, actor, **position)
    k = search.decide(s, st, _gen(seed))
    game.pol = _gen(seed)
    r = _code(*reference_search.choose(game, game.players[actor], actor))
    return k, r


HAND = [LONGBOAT] + [BERSERKER] * 4          # Power 12 + Base Attack 2 = 14 (§3.5)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=16)", "ismcts(budget=64)"])
@pytest.mark.parametrize("actor", [0, 2])
def test_a_forced_win_is_found_by_either_seat(policy, actor):
    """Three players; round 5 of 6 (``max_rounds`` = 6). The actor and seat b = the next seat
    hold 4 Raid cards (Lindisfarne, Defense 3, Legend 2) each, the third seat none; the Raid
    Row and deck are empty; every deck is Coins. Attacking b (Power 14 >= b's Defense 5 + 3,
    §8.2.3) pillages b's card: the actor reaches 5 Raid cards, the game ends this round (§9.1)
    and the actor leads (Legend 10 + a Treasure against 6 and 0): a sure win. Every other plan
    leaves everyone at most 4 Raid cards through round 6 (the Coin hands cannot raid or
    pillage), a truncated game: no win. Both search players find Attack b from either seat,
    kernel and reference alike (6 seeds each)."""
    s = _setup([policy] * 3, max_rounds=6)
    b = (actor + 1) % 3
    raids = {actor: [LINDISFARNE] * 4, b: [LINDISFARNE] * 4}
    for seed in range(6):
        k, r = _both_choices(s, actor, seed, rnd=5, hand=HAND, raids=raids,
                             raid_row=[EMPTY] * 5)
        assert k == r == forward.OPT_ATTACK + b, (seed, k, r)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=8)", "ismcts(budget=32)"])
@pytest.mark.parametrize("actor", [0, 1])
def test_equal_options_are_drawn_without_bias(policy, actor):
    """Three players; round 5 of 6. The actor holds 4 Raid cards, the others none; the Raid
    Row holds one card (Lindisfarne, Defense 3) and the Raid deck is empty. Lone Raid (§8.4)
    and Raid Party (§8.3: the actor is the only eligible Earl, and no invitee fits its one
    Longboat) both take it with Power 14: 5 Raid cards, the game ends, the actor wins; Defend
    and the two Attacks leave the game to be truncated after round 6 (no Coin hand can raid).
    So the two winning options score the same and the tie is drawn on the policy stream:
    over 200 seeds each is chosen about half the time (two-sided binomial test at 0.001:
    a fair draw fails it once in 1,000 runs; a choice always of the lower code fails at
    once), and never a losing plan. The reference twin agrees on the first 12 seeds."""
    s = _setup([policy] * 3, max_rounds=6)
    pos = dict(rnd=5, hand=HAND, raids={actor: [LINDISFARNE] * 4},
               raid_row=[LINDISFARNE] + [EMPTY] * 4)
    picks = []
    for seed in range(200):
        st, game = _position(s, actor, **pos)
        k = search.decide(s, st, _gen(seed))
        if seed < 12:
            game.pol = _gen(seed)
            assert k == _code(*reference_search.choose(game, game.players[actor], actor))
        assert k in (forward.OPT_LONE, forward.OPT_PARTY), (seed, k)
        picks.append(k)
    lone = picks.count(forward.OPT_LONE)
    assert stats.binomtest(lone, 200, 0.5).pvalue > 0.001, lone


# ---- purchases (buys=1, §15.6) ---------------------------------------------------------------
SHIELDMAIDEN, ATHELSTAN, PRIESTS, TORSTEIN, KALF = 6, 8, 5, 10, 4
VROW = [SHIELDMAIDEN, ATHELSTAN, PRIESTS, TORSTEIN, KALF]     # costs 3, 3, 3, 4, 4
#: with 3 Silver: the first three slots, then Warriors (1), Hacksilver (3), Longboat (3), stop
BUYS3 = [forward.OPT_BUY + c for c in (0, 1, 2, 5, 6, 7)] + [forward.OPT_STOP]


def _buy_position(s, actor, rnd, play, raids, raid_row, seed=0):
    """Kernel state and reference game at ``actor``'s first purchase of round ``rnd``: the
    position of ``_position`` (every plan Defend, the later seats' made again by hints), with
    the Viking Row ``VROW``, the actor's deck empty and ``play`` its hand, just laid out; the
    seats before it in turn order have had their Main turns (hints, reference code). The
    kernel state is the reference position packed (``state.pack``) and its clock at the
    purchase (§15.6: turn index, tally)."""
    n = len(s.kinds)
    _, game = _position(s, actor, rnd, hand=play, raids=raids, raid_row=raid_row, seed=seed)
    game.vrow = list(VROW)
    me = game.players[actor]
    me.deck = []
    spring = rnd > game.ri[reference.RuleSlot.WINTER_ROUNDS]
    order = game.order()
    for pl in order[actor + 1:]:
        pl.action, pl.target = game.plan(pl) if spring else (reference.DEFEND, -1)
    for i, pl in enumerate(order[:actor]):
        game.main_turn(pl, spring, i)
    game.play_cards(me, spring)
    me.tally = [game.silver_now(me), 0, 0, False]
    w = state.pack(game, s)
    st = forward.new_state(s, n)
    for name in ("pp", "pn", "fl", "ps", "sh", "shn", "rows", "supply", "box", "gs"):
        getattr(st, name)[...] = w[name]
    c, C = st.clock, Clock
    c[C.ROUND], c[C.TURN], c[C.ACTOR], c[C.MAIN], c[C.BUYING] = rnd, n, actor, actor, 1
    c[C.AVAIL], c[C.SPENT], c[C.BOUGHT] = me.tally[0], 0, 0
    c[C.OWNED] = game.owned_longboats(me)
    c[C.EXTRA] = sum(x for _, x in game.spare_warriors(me))
    return st, game


def _both_buys(s, actor, seed, **position):
    st, game = _buy_position(s, actor, **position)
    k = search.decide(s, st, _gen(seed))
    game.pol = _gen(seed)
    choice = reference_search.choose_buy(game, game.players[actor], actor)
    r = forward.OPT_STOP if choice is None else forward.OPT_BUY + (
        choice[0] if choice[0] >= 0 else [2, 3, 1].index(choice[1]) + 5)
    return k, r


def test_legal_purchases_are_the_affordable_candidates_then_stop():
    """§7.4, §15.6: with 3 Silver, the Viking Row slots that cost at most 3 (left to right),
    Warriors, Hacksilver and Longboat, then stop; kernel and reference alike; the same with 2
    Silver and a Warriors in play, which may sacrifice itself for +1 (§7.5). With no Silver
    nothing is affordable (Warriors cost 1): stop is the only option."""
    s = _setup(["hints", "flatmc(buys=1)", "hints"], max_rounds=6)
    rules, out = forward.rules_of(s.compiled), np.zeros(forward.N_OPTIONS, np.int64)
    st, game = _buy_position(s, 1, rnd=5, play=[COIN] * 3, raids={}, raid_row=[LINDISFARNE])
    assert list(out[:forward.legal_options(rules, st, out)]) == BUYS3
    assert reference_search.buy_options(game, game.players[1]) == BUYS3
    st, game = _buy_position(s, 1, rnd=5, play=[COIN, COIN, WARRIORS], raids={},
                             raid_row=[LINDISFARNE])
    assert list(out[:forward.legal_options(rules, st, out)]) == BUYS3
    assert reference_search.buy_options(game, game.players[1]) == BUYS3
    st, game = _buy_position(s, 1, rnd=5, play=[BERSERKER], raids={}, raid_row=[LINDISFARNE])
    assert list(out[:forward.legal_options(rules, st, out)]) == [forward.OPT_STOP]
    assert reference_search.buy_options(game, game.players[1]) == [forward.OPT_STOP]


@pytest.mark.parametrize("policy", ["flatmc(rollouts=8, buys=1)", "ismcts(budget=64, buys=1)"])
@pytest.mark.parametrize("actor", [0, 2])
def test_a_winning_purchase_is_found(policy, actor):
    """Three players; the actor's purchase in round 5 of 6, holding 4 Raid cards (Lindisfarne)
    and having played 3 Coins and a Berserker (3 Silver, Power 3), its deck empty; the Raid
    Row holds one Lindisfarne (Defense 3), nobody else has Raid cards, every other deck is
    Coins. Buying the Longboat puts it in next round's hand with the same four cards
    (the discard reshuffled: 4 or 5 cards, one Coin may be buried by this round's Defend):
    hints then Lone Raids (Power 3 + Base Attack 2 >= 3, §8.4), takes the 5th Raid card and
    wins (§9.1, §10.1). No other purchase (Row Vikings without Shipbuild, Warriors,
    Hacksilver) and no "stop" gives a Longboat in round 6: the game is truncated, no win. Both
    players take the Longboat from either seat, kernel and reference alike (4 seeds)."""
    s = _setup([policy if q == actor else "hints" for q in range(3)], max_rounds=6)
    pos = dict(rnd=5, play=[COIN] * 3 + [BERSERKER], raids={actor: [LINDISFARNE] * 4},
               raid_row=[LINDISFARNE] + [EMPTY] * 4)
    for seed in range(4):
        k, r = _both_buys(s, actor, seed, **pos)
        assert k == r == forward.OPT_BUY + 7, (seed, k, r)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=2, buys=1)", "ismcts(budget=10, buys=1)"])
def test_equal_purchases_are_drawn_without_bias(policy):
    """Three players; seat 0's purchase (the first Main turn) in the last round (6 of 6) with
    3 Coins played and no Raid card anywhere: whatever it buys (or stop), the game is
    truncated after this round (bought cards score nothing, §10.1), so all 7 options of
    ``BUYS3`` score 0 and the choice is drawn on the policy stream (flatmc: one tie draw;
    ismcts, budget 10: 3 extra visits drawn among the least visited, then the most visited
    drawn). Over 280 seeds each option
    is chosen about 40 times: chi-square test of uniformity at 0.001 (a fair draw fails it
    once in 1,000 runs; always the first or the last option fails at once). The reference
    twin agrees on the first 8 seeds."""
    s = _setup([policy] * 3, max_rounds=6)
    pos = dict(rnd=6, play=[COIN] * 3, raids={}, raid_row=[LINDISFARNE] + [EMPTY] * 4)
    picks = []
    for seed in range(280):
        if seed < 8:
            k, r = _both_buys(s, 0, seed, **pos)
            assert k == r, (seed, k, r)
        else:
            k = search.decide(s, _buy_position(s, 0, **pos)[0], _gen(seed))
        picks.append(BUYS3.index(k))
    counts = np.bincount(picks, minlength=len(BUYS3))
    assert stats.chisquare(counts).pvalue > 0.001, counts


# ---- hidden information ----------------------------------------------------------------------
def _flat_scores(s, st, seed, rollouts=6):
    """flatmc's win counts per option at ``st`` (the compiled player's own ``_flatmc``)."""
    real, roll, _ = search.seat_tuples(s)
    sim, opts = search.scratch(s)[0], np.zeros(forward.N_OPTIONS, np.int64)
    n = forward.legal_options(forward.rules_of(s.compiled), st, opts)
    scores = np.zeros(forward.N_OPTIONS)
    search._flatmc(forward.rules_of(s.compiled), roll, st, sim, opts, n, rollouts, scores,
                   _gen(seed))
    return scores[:n].copy()


def _permute(st, rng, seat, pile, lo=0):
    m = st.pn[seat, pile]
    st.pp[seat, pile, lo:m] = rng.permutation(st.pp[seat, pile, lo:m])


def _resplit(st, rng, seat):
    """Seat's 5-card hand and 10-card deck: the same 15 cards, split otherwise."""
    cards = rng.permutation(np.concatenate([st.pp[seat, kernel.HAND, :5],
                                            st.pp[seat, kernel.DECK, :10]]))
    st.pp[seat, kernel.HAND, :5], st.pp[seat, kernel.DECK, :10] = cards[:5], cards[5:]


def _permute_shared(st, rng):
    """The Viking deck, the Raid deck and the Treasure pile under its top card, reordered."""
    for pile in (forward.VDECK, forward.RDECK):
        m = st.shn[pile]
        st.sh[pile, :m] = rng.permutation(st.sh[pile, :m])
    m = st.shn[forward.TREAS]
    st.sh[forward.TREAS, :m - 1] = rng.permutation(st.sh[forward.TREAS, :m - 1])


def test_the_search_does_not_read_what_its_seat_cannot_see():
    """Positions that differ only in what the actor (seat 0) cannot see give the same
    rollout scores, option by option, on the same seed: seat 1's and seat 2's cards dealt
    differently between hand and deck, the actor's deck order, the Viking deck order, the
    Treasure pile under its top card and the Raid deck order (§2.2, §15.3: each is sorted and
    shuffled again). Changing what the actor sees (its hand) changes them: the scores do read
    the position. Fails if a determinization kept any hidden order (e.g. skipped seat 1's
    redeal)."""
    s = _setup(["flatmc", "hints", "hints"], max_rounds=9)
    base, _ = _position(s, 0, rnd=5, hand=HAND, raids={0: [LINDISFARNE] * 3},
                        raid_row=[LINDISFARNE, 30, 31, EMPTY, EMPTY])
    for seat in (1, 2):                         # mixed hands and decks to redeal
        base.pp[seat, kernel.DECK, :10] = [BERSERKER, LONGBOAT] * 2 + [COIN] * 6
    base.pp[0, kernel.DECK, :10] = [BERSERKER, 6, 9, LONGBOAT] + [COIN] * 6
    base.sh[forward.RDECK, :4] = [32, 33, 36, 37]
    base.shn[forward.RDECK] = 4
    want = _flat_scores(s, base, 3)
    for variant in range(4):
        st, _ = _position(s, 0, rnd=5, hand=HAND, raids={0: [LINDISFARNE] * 3},
                          raid_row=[LINDISFARNE, 30, 31, EMPTY, EMPTY])
        forward.copy(base, st)
        r = np.random.default_rng(variant)
        for seat in (1, 2):                     # the same 15 cards, split otherwise
            _resplit(st, r, seat)
        _permute(st, r, 0, kernel.DECK)
        _permute_shared(st, r)
        np.testing.assert_array_equal(_flat_scores(s, st, 3), want, err_msg=str(variant))
    base.pp[0, kernel.HAND, 1:5] = COIN                 # what it sees: another hand
    assert not np.array_equal(_flat_scores(s, base, 3), want)


# ---- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ("ismcts(budget=0)", "budget"), ("flatmc(rollouts=0)", "rollouts"),
    ("ismcts(depth=3)", "no parameter 'depth'"), ("flatmc(forbid=coin)", "no parameter"),
    ("ismcts(c=-1)", "c"), ("ismcts(buys=2)", "buys"), ("flatmc(buys=-1)", "buys")])
def test_bad_search_parameters_are_one_line(text, words, cli):
    with pytest.raises(InputError, match=words):
        simulate("raidconquer", 10, players=2, policies=text)
    p = cli("simulate", "raidconquer", "-n", "10", "--policy", text)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_search_labels_are_canonical():
    r = simulate("raidconquer", 4, seed=1, players=2,
                 policies=["ismcts(budget=64)", "ismcts(budget=2, c=0.5)"])
    assert r.summary["policies"] == ["ismcts", "ismcts(budget=2, c=0.5)"]
    assert r.manifest["policies"] == r.summary["policies"]


def test_bench_has_a_line_per_search_player():
    """Plumbing only (figures come from ``vikingsim bench``, never from tests)."""
    from vikingsim import bench

    rows = bench.bench_search(["raidconquer"], seconds=0.02, repeats=1)
    assert [r["policy"] for r in rows] == ["flatmc", "ismcts", "flatmc(buys=1)", "ismcts(buys=1)"]
    for r in rows:
        assert r["decisions_per_s"] > 0 and r["rollouts_per_s"] > r["decisions_per_s"]
        assert np.isfinite(r["overhead"]) and r["rollout_s"] > 0
    assert "| raidconquer | ismcts, 4 players |" in bench.markdown_search(rows)


def test_a_purchase_does_not_read_what_its_seat_cannot_see():
    """At seat 1's purchase (Spring round 5 of 9, §15.6; seat 0's Main turn over, seat 2's to
    come), positions that differ only in what seat 1 cannot see give the same rollout scores,
    option by option, on the same seed: seat 0's deck order, seat 2's cards split otherwise
    between hand and deck, both seats' Secret Plans (hidden until the Action phase, §6.2:
    made again by hints), seat 1's deck order, the Viking deck, the Treasure pile under its
    top card and the Raid deck. Changing what it sees (the cards seat 0 played) changes them.
    Fails if the determinization kept a real plan or a hidden order."""
    s = _setup(["hints", "flatmc(buys=1)", "hints"], max_rounds=9)
    play = [LONGBOAT, BERSERKER, COIN, COIN, COIN]                   # 4 Silver
    pos = dict(rnd=5, play=play, raids={1: [LINDISFARNE] * 3},
               raid_row=[LINDISFARNE, 30, 31, EMPTY, EMPTY])
    base, _ = _buy_position(s, 1, **pos)
    for seat in (0, 2):
        base.pp[seat, kernel.DECK, :10] = [BERSERKER, LONGBOAT] * 2 + [COIN] * 6
    base.pp[1, kernel.DECK, :6] = [BERSERKER, 6, 9, LONGBOAT, COIN, COIN]
    base.pn[1, kernel.DECK] = 6
    base.sh[forward.RDECK, :4] = [32, 33, 36, 37]
    base.shn[forward.RDECK] = 4
    want = _flat_scores(s, base, 3)
    assert len(want) == 9 and want.sum() > 0           # 8 purchases + stop, some wins
    for variant in range(4):
        st, _ = _buy_position(s, 1, **pos)
        forward.copy(base, st)
        r = np.random.default_rng(variant)
        _resplit(st, r, 2)
        for seat in (0, 1):
            _permute(st, r, seat, kernel.DECK)
        for seat, other in ((0, 2), (2, 0)):
            st.ps[seat, kernel.PS_ACTION] = r.integers(4)
            st.ps[seat, kernel.PS_TARGET] = other if st.ps[seat, kernel.PS_ACTION] == \
                kernel.ATTACK else -1
        _permute_shared(st, r)
        np.testing.assert_array_equal(_flat_scores(s, st, 3), want, err_msg=str(variant))
    base.pp[0, kernel.PLAY, :base.pn[0, kernel.PLAY]] = BERSERKER     # what it sees
    assert not np.array_equal(_flat_scores(s, base, 3), want)
