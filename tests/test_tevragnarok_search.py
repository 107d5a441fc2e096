"""Ragnarok forward model and search players (issue 21 §1-§2, tev-ragnarok §4.11): the forward
model replays the kernel's games, ``determinize`` keeps what the seat sees and redraws the rest,
a search decision does not depend on hidden information, the compiled players match their
plain-Python twins bit for bit, a forced position with one winning option, a position where
the options tie, bad parameters."""
import dataclasses

import numpy as np
import pytest
from scipy import stats

from tests.test_tevragnarok_harness import K as PK, card  # PK: the kernel as plain Python
from vikingsim.core import rng
from vikingsim.core.errors import InputError
from vikingsim.core.options import resolve
from vikingsim.core.runner import simulate
from vikingsim.games.tevragnarok import GAME, forward, kernel as K, reference, reference_search, \
    search
from vikingsim.games.tevragnarok.forward import Clock
from vikingsim.games.tevragnarok.policies import PolicyKind

#: forbid every use of a card but face up and slay, and every face-up action (restricted play,
#: §4.10): a card is then played face up to no effect, or to slay
ONLY_SLAY = ("start_battle+join_battle+deploy_valkyrie+sail+harvest+explore+build+smite+"
             "attack_settlers+raid+exchange+move_giant+raid_free")


def _setup(policies, **options):
    return GAME.setup(resolve(GAME.name, GAME.options, options), list(policies),
                      len(policies))


def _gen(seed, stream=rng.STREAM_POLICY):
    return rng.block_generator(seed, stream, 0)


def _decision_states(s, games, seed=3):
    """Every choice of the search seats in ``games`` games of setup ``s`` (states copied), each
    choice made by the default policy."""
    c = s.compiled
    dice, pol = _gen(seed, rng.STREAM_DICE), _gen(seed)
    st, found = forward.new_state(c, len(s.kinds)), []
    for _ in range(games):
        forward.reset(c, st, dice)
        status = forward.advance(c, s.kinds, s.params, st, dice, pol)
        while status == forward.DECIDE:
            found.append(forward.State(*[a.copy() for a in st]))
            o = forward.default_option(c, st, s.params[st.clock[Clock.ACTOR]], pol)
            status = forward.apply(c, s.kinds, s.params, st, o, dice, pol)
    return found


# ---- forward model ---------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"last_battles": "return", "era_opener": "rotate"},
                                     {"count_elements": True, "first_seat": 2}])
def test_forward_model_replays_the_kernel_game(options):
    """A seat flagged as a search player whose every choice is the default policy's
    (``default_option``) plays the kernel's greedy_vp games bit for bit: suspending at a
    choice, ``copy`` and ``apply`` change nothing. Fails if apply skipped the rest of the
    turn, mis-stepped the clock, resolved a battle twice or missed the Era's end pass."""
    plain = _setup(["greedy_vp", "giant_hunter", "random_legal"], **options)
    c = plain.compiled
    flagged = plain.kinds.copy()
    flagged[1] = PolicyKind.FLATMC                     # stops, then plays as greedy_vp ...
    ref = _setup(["greedy_vp", "greedy_vp", "random_legal"], **options)   # ... = this
    out = GAME.allocate(ref, 25)
    GAME.play_block(ref, 0, 25, _gen(3, rng.STREAM_DICE), _gen(3), out)
    dice, pol = _gen(3, rng.STREAM_DICE), _gen(3)
    st, sim, stops = forward.new_state(c, 3), forward.new_state(c, 3), 0
    opts = np.zeros(K.MAX_OPTS, np.int64)
    mine = GAME.allocate(ref, 25)
    for g in range(25):
        forward.reset(c, st, dice)
        status = forward.advance(c, flagged, ref.params, st, dice, pol)
        while status == forward.DECIDE:
            stops += 1
            assert st.clock[Clock.ACTOR] == 1
            before = [a.copy() for a in st]
            forward.copy(st, sim)                       # copy: every field, independent
            o = forward.default_option(c, st, ref.params[1], pol)
            assert o in opts[:forward.legal_options(c, flagged, ref.params, st, opts)]
            status = forward.apply(c, flagged, ref.params, st, o, dice, pol)
            for name, a, b in zip(forward.State._fields, before, sim):
                if name not in ("opts", "fvals", "cand", "tc", "rival", "ftmp"):   # scratch
                    np.testing.assert_array_equal(a, b, err_msg=name)
        forward.record(c, st, g, K.Out(**mine))
    for key in out:
        np.testing.assert_array_equal(mine[key], out[key], err_msg=key)
    assert stops == 25 * (4 + 5 + 6)                    # every card of seat 1 was suspended


# ---- hidden information ----------------------------------------------------------------------
def _hidden_cards(st, p):
    n = st.settlers.shape[0]
    cards = list(st.deck[:st.sc[K.SC_NDECK]])
    for q in range(n):
        if q != p:
            cards += list(st.hand[q, :st.nhand[q]])
        if st.bt[q, K.BT_OPEN]:
            cards += [st.ent[q, j, 1] for j in range(st.bt[q, K.BT_N]) if st.ent[q, j, 0] != p]
    return sorted(int(x) for x in cards)


def test_determinize_keeps_what_the_seat_sees_and_redraws_the_rest():
    """§4.11.2: after ``determinize`` for seat p, everything p sees is unchanged (its hand,
    the board, the discard pile, the Favor rows, the Giants' faces, its own slain points, every
    count); the hidden cards are the same multiset; the Giant values on the board and in the
    other seats' hands come from the pool less p's own slain ones; and they do change."""
    s = _setup(["flatmc", "giant_hunter", "giant_hunter"], params="giants_wide")
    states = [st for st in _decision_states(s, 3) if st.sc[K.SC_ERA] == 2][::3]
    pol, changed, slain_seen = _gen(11), 0, 0
    pool = sorted(int(v) for v in s.compiled.giants)
    for st in states:
        p = int(st.clock[Clock.ACTOR])
        d = forward.State(*[a.copy() for a in st])
        forward.determinize(s.compiled, d, p, pol)
        hidden = ("deck", "hand", "ent", "giant", "pl", "pool", "mark", "gpool")
        for name, a, b in zip(forward.State._fields, st, d):
            if name not in hidden:
                np.testing.assert_array_equal(a, b, err_msg=name)
        np.testing.assert_array_equal(st.hand[p], d.hand[p])
        np.testing.assert_array_equal(st.ent[:, :, 0], d.ent[:, :, 0])
        np.testing.assert_array_equal(st.pl[:, K.PL_SLAIN_N], d.pl[:, K.PL_SLAIN_N])
        assert st.pl[p, K.PL_SLAIN_SUM] == d.pl[p, K.PL_SLAIN_SUM]
        assert _hidden_cards(st, p) == _hidden_cards(d, p)
        left = list(pool)
        for v in st.seen[p, :st.pl[p, K.PL_SLAIN_N]]:
            left.remove(int(v))
        slain_seen += st.pl[p, K.PL_SLAIN_N] > 0
        board = [int(d.giant[r]) for r in range(len(d.giant)) if d.has_giant[r]]
        rest = list(left)
        for v in board:
            rest.remove(v)                                   # a value of the unseen pool
        others = sum(int(d.pl[q, K.PL_SLAIN_SUM]) for q in range(3) if q != p)
        k = sum(int(d.pl[q, K.PL_SLAIN_N]) for q in range(3) if q != p)
        assert min(rest[:k] or [0]) * k <= others <= sum(sorted(rest)[-k:] if k else [])
        changed += not np.array_equal(st.deck[:st.sc[K.SC_NDECK]], d.deck[:d.sc[K.SC_NDECK]])
    assert len(states) >= 5 and changed == len(states) and slain_seen >= 1


@pytest.mark.parametrize("policy", ["flatmc(rollouts=2)", "ismcts(budget=24)"])
def test_a_decision_does_not_depend_on_hidden_information(policy):
    """Hidden information stays hidden: a state whose hidden cards and Giant values are drawn
    again (``determinize`` on another stream) gets the same decision on the same policy
    stream. Fails if any rollout read the deck order, another hand, a face-down card or a
    Giant's value (or if ``determinize`` ordered its pool by the hidden layout)."""
    s = _setup([policy, "greedy_vp", "giant_hunter"], params="giants_wide")
    states = _decision_states(s, 2)[::4]
    for i, st in enumerate(states):
        p = int(st.clock[Clock.ACTOR])
        d = forward.State(*[a.copy() for a in st])
        forward.determinize(s.compiled, d, p, _gen(100 + i))
        assert search.decide(s, st, _gen(i)) == search.decide(s, d, _gen(i))


# ---- kernel = reference ----------------------------------------------------------------------
@pytest.mark.parametrize("policies, options", [
    (["flatmc(rollouts=2)", "greedy_vp", "random_legal"], {}),
    (["ismcts(budget=6)", "giant_hunter", "flatmc(rollouts=1)"], {"params": "giants_wide"}),
    (["ismcts(budget=4, c=0.5)", "ismcts(budget=3)"], {"last_battles": "return",
                                                       "era_opener": "rotate"}),
    ([f"flatmc(rollouts=1, forbid={ONLY_SLAY})", "no_giants", "greedy_vp", "greedy_vp"],
     {"first_seat": 1, "count_elements": True}),
])
def test_search_players_match_the_reference_bit_for_bit(policies, options):
    a = simulate("tevragnarok", 2, seed=5, players=len(policies), policies=policies,
                 options=options)
    b = simulate("tevragnarok", 2, seed=5, players=len(policies), policies=policies,
                 options=options, reference=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_same_seed_same_games_for_any_thread_count():
    """Blocks of 3 games (a GameSpec copy), 4 blocks, on 1 and 2 threads."""
    game = dataclasses.replace(GAME, block_games=3)
    pols = ["ismcts(budget=3)", "flatmc(rollouts=1)", "greedy_vp"]
    one = simulate(game, 12, seed=9, players=3, policies=pols, threads=1)
    two = simulate(game, 12, seed=9, players=3, policies=pols, threads=2)
    for key in one.out:
        np.testing.assert_array_equal(one.out[key], two.out[key], err_msg=key)


# ---- positions with a known best move --------------------------------------------------------
def _last_card(s, actor, villages, card):
    """Both engines at the game's last card (2 players, Era 3, step turns - 1): ``actor`` holds
    ``card`` (its only card; the rival's hand is empty), 3 Settlers and its A Valkyrie in
    region 0 with a Giant; the rival holds region 0's Rune (god A, rank 1: 6 VP) with 2
    Temples, more resources (the tie-breakers after Islands); Fury 10/5/0; the actor has raided
    ``villages`` Villages (1 VP each). Returns (state, reference Fwd)."""
    c, rival = s.compiled, 1 - actor
    game = reference.Game(s.rules, [int(k) for k in s.kinds], s.params.tolist(), None, None)
    game.deck, game.discard = [], []
    game.giant, game.has_giant = [0] * game.R, [False] * game.R
    game.giant[0], game.has_giant[0] = 3, True
    game.rows = [[0, 1, 2], [3, 4, 5]]
    game.invaders, game.era, game.openers, game.chieftain = 0, 2, [0, 0, rival], rival
    a, b = game.players[actor], game.players[rival]
    a.settlers[0], a.valkyrie[0], a.hand, a.villages = 3, 0, [card], villages
    b.temples[0], b.res = 2, [7, 7, 7]
    game.fury = [10, 5, 0]
    game.update_control()
    assert game.control[0] == rival
    fw = reference_search.Fwd(game)
    fw.era, fw.step, fw.phase, fw.actor = 2, 2 * 6 - 1, reference_search.P_CARD, actor
    st = forward.new_state(c, 2)
    PK._reset(c, st)
    st.settlers[actor, 0], st.valk[actor, 0], st.temples[rival, 0] = 3, 0, 2
    st.mat[actor, K.MAT_SETTLERS] -= 3
    st.mat[actor, K.MAT_VALK] -= 1
    st.res[rival, :] = 7
    st.pl[actor, K.PL_VILLAGES] = villages
    st.hand[actor, 0], st.nhand[actor] = card, 1
    st.giant[0], st.has_giant[:], st.has_giant[0] = 3, 0, 1
    st.rows[0, :3], st.rows[1, :3] = [0, 1, 2], [3, 4, 5]
    st.sc[K.SC_NROW0], st.sc[K.SC_NROW1] = 3, 3
    st.fury[0, :] = [10, 5, 0]
    st.sc[K.SC_ERA], st.sc[K.SC_OPENER], st.sc[K.SC_OPENED0 + 2] = 2, rival, rival
    PK._influence_all(c, st)
    PK._update_control(c, st)
    st.fury[0, :] = [10, 5, 0]                       # the control check added 1 (a taking)
    game.fury = [10, 5, 0]
    assert st.control[0] == rival
    st.clock[:] = [2, 2 * 6 - 1, forward.P_CARD, actor, forward.RUNNING, -1]
    return st, fw


def _both(s, st, fw, seed):
    k = forward.decode(search.decide(s, st, _gen(seed)))
    fw.g.pol = _gen(seed)
    r = reference_search.choose(fw)
    return tuple(int(x) for x in k), tuple(r)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=16)", "ismcts(budget=32)"])
@pytest.mark.parametrize("actor", [0, 1])
def test_a_forced_win_is_found_by_either_seat(policy, actor):
    """The last card of the game, the options face up (no action: restricted play) or slay
    the Giant of region 0. The rival has 6 VP (region 0's Island at rank 1); the actor 6 VP of
    Villages: face up ties at 6 and the rival wins on Islands (§2.6); a slay adds a Giant (1 VP
    at least, whatever the determinization draws; +1 Fury to C changes no rank), so it wins
    outright. Both players find it from either seat, kernel and reference alike."""
    s = _setup([f"{policy[:-1]}, forbid={ONLY_SLAY})"] * 2)
    c = card(s.rules, rune=2)                               # a base card of Rune C
    for seed in range(4):
        st, fw = _last_card(s, actor, 6, c)
        n = forward.legal_options(s.compiled, s.kinds, s.params, st,
                                  np.zeros(K.MAX_OPTS, np.int64))
        assert n == 2
        k, r = _both(s, st, fw, seed)
        assert k == r == (0, K.SLAY, 0), (seed, k, r)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=8)", "ismcts(budget=16)"])
def test_equal_options_are_drawn_without_order_bias(policy):
    """The same last card with the actor far ahead (20 VP of Villages): face up and the slay
    both win every rollout, so they score the same and the tie is drawn on the policy stream.
    Over 120 seeds each is chosen about half the time (binomial test), kernel = reference.
    Fails if a tie went to the first option of the list."""
    s = _setup([f"{policy[:-1]}, forbid={ONLY_SLAY})"] * 2)
    c = card(s.rules, rune=2)
    picks = []
    for seed in range(120):
        st, fw = _last_card(s, 0, 20, c)
        k, r = _both(s, st, fw, seed)
        assert k == r, (seed, k, r)
        picks.append(k[1])
    slays = picks.count(K.SLAY)
    assert stats.binomtest(slays, 120, 0.5).pvalue > 0.001, slays


def test_availability_counts_every_visit_where_an_option_is_legal():
    """UCB1's availability of an option counts the node's visits where it was legal, tried
    or not, in both engines: after two visits with the same two options legal, each was
    available twice (counted from expansion, the first-expanded would have 2 and the other 1,
    and would win every later tie of equal means: the raid board's I21-6)."""
    m = 8
    tree = (np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m, np.int64),
            np.full(m, -1, np.int64), np.full(m, -1, np.int64))
    opts, ucb, kids = np.array([16, 33], np.int64), np.zeros(2), np.zeros(2, np.int64)
    n_nodes, root = 1, reference_search.Node()
    for want in (16, 33):
        o, ch, n_nodes, expanded = search._select(tree, 0, opts, 2, 1.4, n_nodes, ucb, kids,
                                                  _gen(1))
        r, rch, rexp = reference_search._select(root, [16, 33], 1.4, _gen(1))
        assert o == r == want and expanded and rexp
        tree[0][ch] += 1.0
        rch.visits += 1.0
    assert list(tree[2][kids]) == [2.0, 2.0]
    assert [root.children[o].avail for o in (16, 33)] == [2.0, 2.0]


# ---- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ("ismcts(budget=0)", "budget"), ("flatmc(rollouts=0)", "rollouts"),
    ("ismcts(depth=3)", "no parameter 'depth'"), ("flatmc(forbid=fly)", "fly")])
def test_bad_search_parameters_are_one_line(text, words, cli):
    with pytest.raises(InputError, match=words):
        simulate("tevragnarok", 10, players=2, policies=text)
    p = cli("simulate", "tevragnarok", "-n", "10", "--policy", text)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1


SEARCH_PARAMS = [("flatmc(rollouts=2)", "flatmc(rollouts=3)"),
                 ("ismcts(budget=8)", "ismcts(budget=12)"),
                 ("ismcts(budget=40)", "ismcts(budget=40, c=0.2)")] + [
    (f"{base})", f"{base}, {name}={alt})") for base in ("flatmc(rollouts=2", "ismcts(budget=40")
    for name, alt in (("face_up_value", 3.5), ("resource_value", 2.3), ("valkyrie_value", 4.0),
                      ("settler_value", 2.5), ("giant_weight", 6.0), ("special_bonus", 2.0),
                      ("forbid", "sail"))]


@pytest.mark.parametrize("a, b", SEARCH_PARAMS, ids=[b for _, b in SEARCH_PARAMS])
def test_each_search_parameter_changes_games(a, b):
    """Every parameter of a search player is used: its budget, c, and the greedy_vp weights
    and forbid of its own other choices and rollouts (8 games, one search seat of 2; budget 40
    for ismcts, more than the options of a turn, so the rollouts decide; cheap
    budgets: this file stands in for test_tevragnarok_policies' check, which would play 400
    games with every seat searching)."""
    x = simulate("tevragnarok", 8, seed=8, players=2, policies=[a, "greedy_vp"])
    y = simulate("tevragnarok", 8, seed=8, players=2, policies=[b, "greedy_vp"])
    assert any(not np.array_equal(x.out[k], y.out[k]) for k in x.out), (a, b)


def test_trace_tells_the_searched_game():
    """``trace`` of a game with a search seat narrates the game ``simulate`` plays (the
    reference twin, searches included): the same seats take the same Giants."""
    s = _setup(["flatmc(rollouts=1)", "giant_hunter"])
    text = GAME.trace(s, 4, 1)
    r = simulate("tevragnarok", 2, seed=4, players=2, policies=list(s.policies))
    for seat in range(2):
        assert text.count(f"seat {seat} slays") == r.out["slays"][1, seat]
    assert "flatmc(rollouts=1)" in text


def test_search_labels_are_canonical():
    r = simulate("tevragnarok", 2, seed=1, players=2,
                 policies=["ismcts(budget=64)", "ismcts(budget=2, c=0.5)"])
    assert r.summary["policies"] == ["ismcts", "ismcts(budget=2, c=0.5)"]
    assert r.manifest["policies"] == r.summary["policies"]


def test_bench_has_a_line_per_search_player():
    """Plumbing only (figures come from ``vikingsim bench``, never from tests)."""
    from vikingsim import bench

    rows = bench.bench_search(["tevragnarok"], seconds=0.02, repeats=1)
    assert [r["policy"] for r in rows] == ["flatmc", "ismcts"]
    for r in rows:
        assert r["decisions_per_s"] > 0 and r["rollouts_per_s"] > r["decisions_per_s"]
        assert np.isfinite(r["overhead"]) and r["rollout_s"] > 0
    assert "| tevragnarok | ismcts, 4 players |" in bench.markdown_search(rows)


def test_ladder_runs(cli, tmp_path):
    p = cli("ladder", "tevragnarok", "--policy", "ismcts(budget={b})", "--start", "1",
            "--steps", "1", "-n", "4", "--players", "2", "--out", str(tmp_path / "lad"))
    assert p.returncode == 0, p.stderr
    assert "Step 0" in p.stdout or "step" in p.stdout.lower()
