"""Raid board forward model and search players (issue 21 §1-§2): the forward model replays the
kernel's games, the compiled players match their plain-Python twins bit for bit, a forced
position with one winning option, a position where the options tie, bad parameters."""
import numpy as np
import pytest
from scipy import stats

from vikingsim.core import config, rng
from vikingsim.core.errors import InputError
from vikingsim.core.options import resolve
from vikingsim.core.runner import simulate
from vikingsim.games.raidboard import GAME, forward, reference, reference_search, search
from vikingsim.games.raidboard.forward import Clock
from vikingsim.games.raidboard.kernel import END_DECIDE
from vikingsim.games.raidboard.policies import PolicyKind
from vikingsim.games.raidboard.rules import N_SPACES

LOST, EXPLORATION = 19, 9          # raidboard §3.1: Reconquest, Winds of Thor
SEAS = [3, 7, 16, 27, 29, 34, 36]  # §3.2


def _setup(policies, **options):
    return GAME.setup(resolve(GAME.name, GAME.options, options), list(policies),
                      len(policies))


def _gen(seed, stream=rng.STREAM_POLICY):
    return rng.block_generator(seed, stream, 0)


# ---- forward model ---------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"variant": "ends-of-earth"},
                                     {"exploration_resolves_sea": False}])
def test_forward_model_replays_the_kernel_game(options):
    """A seat flagged as a search player whose every choice is the default policy's
    (``default_option``) plays the kernel's greedy games bit for bit: suspending at a choice
    and ``apply`` change nothing. Fails if apply skipped the rest of the turn, mis-stepped the
    clock or resolved a choice other than the kernel does."""
    plain = _setup(["greedy"] * 3, **options)
    rules = forward.rules_of(plain.compiled)
    flagged = plain.kinds.copy()
    flagged[1] = PolicyKind.FLATMC
    out = GAME.allocate(plain, 40)
    GAME.play_block(plain, 0, 40, _gen(3, rng.STREAM_DICE), _gen(3), out)
    dice, pol = _gen(3, rng.STREAM_DICE), _gen(3)
    st, sim, stops = forward.new_state(3), forward.new_state(3), 0
    for g in range(40):
        forward.reset(rules, st)
        status = forward.advance(rules, flagged, plain.params, st, dice, pol)
        while status == END_DECIDE:
            stops += 1
            assert st.clock[Clock.ACTOR] == 1 and st.pos[1] in (LOST, EXPLORATION)
            before = [a.copy() for a in st]
            forward.copy(st, sim)                       # copy: every field, independent
            o = forward.default_option(rules, st, plain.params[1], pol)
            status = forward.apply(rules, flagged, plain.params, st, o, dice, pol)
            for a, b in zip(before, sim):
                np.testing.assert_array_equal(a, b)
        assert st.clock[Clock.WINNER] == out["winner"][g] and st.clock[Clock.ROUNDS] == \
            out["rounds"][g]
        np.testing.assert_array_equal(st.gold, out["gold"][g])
        np.testing.assert_array_equal(st.n_set, out["settlements"][g])
    assert stops >= 10                                  # the choices were really suspended


def test_legal_options_are_every_sea_and_every_settlement():
    s = _setup(["flatmc"] * 2)
    rules, st, out = forward.rules_of(s.compiled), forward.new_state(2), np.zeros(N_SPACES,
                                                                                   np.int64)
    forward.reset(rules, st)
    st.pos[0], st.clock[Clock.ACTOR] = EXPLORATION, 0
    assert list(out[:forward.legal_options(rules, st, out)]) == SEAS          # §6.5
    st.pos[0] = LOST
    st.owner[[1, 5, 30]] = [0, 1, 1]                                            # own included
    assert list(out[:forward.legal_options(rules, st, out)]) == [1, 5, 30]    # §6.8


# ---- kernel = reference ----------------------------------------------------------------------
@pytest.mark.parametrize("policies, options", [
    (["flatmc(rollouts=3)", "greedy", "lookahead"], {}),
    (["ismcts(budget=8)", "random", "flatmc(rollouts=2)"], {}),
    (["ismcts(budget=6, c=0.5)"] * 3, {"variant": "ends-of-earth"}),
    (["ismcts(budget=5)", "greedy"], {"settlement_supply": 3, "start_gold": 60}),
    (["flatmc(rollouts=2)", "ismcts(budget=3)"], {"max_rounds": 9}),     # some truncated
    (["flatmc(rollouts=2)", "ismcts(budget=3)"], {"exploration_resolves_sea": False,
                                                  "first_seat": 1}),
])
def test_search_players_match_the_reference_bit_for_bit(policies, options):
    a = simulate("raidboard", 10, seed=5, players=len(policies), policies=policies,
                 options=options)
    b = simulate("raidboard", 10, seed=5, players=len(policies), policies=policies,
                 options=options, reference=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_same_seed_same_games_for_any_thread_count():
    pols = ["ismcts(budget=4)", "flatmc(rollouts=2)", "greedy"]
    n = 3 * GAME.block_games
    one = simulate("raidboard", n, seed=9, players=3, policies=pols, threads=1)
    two = simulate("raidboard", n, seed=9, players=3, policies=pols, threads=2)
    for key in one.out:
        np.testing.assert_array_equal(one.out[key], two.out[key], err_msg=key)



@pytest.mark.skipif(config.DISABLE_JIT, reason="the plain-Python twin holds the GIL by nature")
def test_the_search_block_releases_the_gil():
    """A search seat's block (``search.play_block``) runs beside Python threads: while a worker
    plays one block, the main thread spins a Python loop and gets CPU time. A kernel that held
    the GIL (no ``nogil``) would starve the loop until it returned: blocks could not run in
    parallel on the runner's threads (docs/benchmarks.md, "Correction: games with a search
    seat do run their RNG blocks in parallel"). 20,000 games: about 0.2 s of CPU."""
    import threading
    import time

    s = _setup(["ismcts(budget=8)", "greedy", "greedy", "greedy"])
    play = lambda g1, out: search.play_block(s, 0, g1, _gen(3, rng.STREAM_DICE), _gen(3), out)
    play(1, GAME.allocate(s, 1))                                 # compiled before timing
    worker_cpu = []

    def worker():
        t = time.thread_time()
        play(20_000, GAME.allocate(s, 20_000))
        worker_cpu.append(time.thread_time() - t)

    th = threading.Thread(target=worker)
    t0 = time.thread_time()
    th.start()
    while th.is_alive():
        pass
    main_cpu = time.thread_time() - t0
    assert main_cpu > 0.25 * worker_cpu[0], (main_cpu, worker_cpu)


# ---- positions with a known best move --------------------------------------------------------
def _lost_position(s, actor, holdings, gold, miss=()):
    """Kernel state and reference game with ``actor`` on Lost (§6.8), its choice pending.
    ``holdings``: space -> seat."""
    n = len(s.kinds)
    st = forward.new_state(n)
    forward.reset(forward.rules_of(s.compiled), st)
    game = reference.Game(s.rules, [int(k) for k in s.kinds], s.params.tolist(), None, None)
    for seat in range(n):
        st.gold[seat] = game.gold[seat] = gold[seat]
        st.miss[seat] = game.miss[seat] = seat in miss
    for space, seat in holdings.items():
        st.owner[space] = game.owner[space] = seat
        st.n_set[seat] += 1
    st.pos[actor] = game.pos[actor] = LOST
    st.clock[Clock.TURN] = game.turn_i = actor          # first_seat 0: turn index = seat
    st.clock[Clock.ACTOR] = actor
    return st, game


def _both_choices(s, actor, holdings, gold, miss, seed):
    st, game = _lost_position(s, actor, holdings, gold, miss)
    k = search.decide(s, st, _gen(seed))
    game.pol = _gen(seed)
    r = reference_search.choose(game, actor, sorted(holdings))
    return k, r


@pytest.mark.parametrize("policy", ["flatmc(rollouts=64)", "ismcts(budget=128)"])
@pytest.mark.parametrize("actor", [0, 1])
def test_a_forced_win_is_found_by_either_seat(policy, actor):
    """Two players with 99 Gold, one settlement each; the rival misses its next turn. Removing
    the rival's settlement wins for sure (the actor's next income, §5.2, reaches 100 before the
    rival plays again); removing its own wins only if the next raid succeeds (about 5/6, §7.5).
    Both search players find the sure win from either seat, kernel and reference alike."""
    s = _setup([policy] * 2)
    rival = 1 - actor
    holdings = {1: actor, 2: rival} if actor == 0 else {1: rival, 2: actor}
    sure = [sp for sp, seat in holdings.items() if seat == rival][0]
    for seed in range(6):
        k, r = _both_choices(s, actor, holdings, [99, 99], {rival}, seed)
        assert k == r == sure, (seed, k, r)


@pytest.mark.parametrize("policy", ["flatmc(rollouts=32)", "ismcts(budget=64)"])
@pytest.mark.parametrize("actor", [0, 1])
def test_equal_options_are_drawn_without_seat_bias(policy, actor):
    """Three players with 99 Gold and one settlement each; both rivals miss their next turn.
    The actor removes one rival's settlement or its own. Either rival's gives a sure win (its
    income, §5.2, comes before any rival plays again), so those two options score the same and
    the tie is drawn on the policy stream; its own wins only when its next raid does (with
    raid_fail_max = 8, §7.2: 10/36; else a rival's income wins), which the searches tell
    apart. Over 200 seeds each
    rival's settlement is chosen about half the time (binomial test), never the actor's own.
    Fails if a tie went to the lowest space or seat."""
    s = _setup([policy] * 3, raid_fail_max=8)
    rivals = [x for x in range(3) if x != actor]
    holdings = {1: actor, 2: rivals[0], 4: rivals[1]}
    gold, miss = [99, 99, 99], set(rivals)
    picks = []
    for seed in range(200):
        k, r = _both_choices(s, actor, holdings, gold, miss, seed)
        assert k == r and k in (2, 4), (seed, k, r)
        picks.append(k)
    first = picks.count(2)
    assert stats.binomtest(first, 200, 0.5).pvalue > 0.001, first


# ---- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ("ismcts(budget=0)", "budget"), ("flatmc(rollouts=0)", "rollouts"),
    ("ismcts(depth=3)", "no parameter 'depth'"), ("flatmc(rollouts=-1)", "rollouts")])
def test_bad_search_parameters_are_one_line(text, words, cli):
    with pytest.raises(InputError, match=words):
        simulate("raidboard", 10, players=2, policies=text)
    p = cli("simulate", "raidboard", "-n", "10", "--policy", text)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_search_labels_are_canonical():
    r = simulate("raidboard", 20, seed=1, players=2,
                 policies=["ismcts(budget=64)", "ismcts(budget=8, c=0.5)"])
    assert r.summary["policies"] == ["ismcts", "ismcts(budget=8, c=0.5)"]
    assert r.manifest["policies"] == r.summary["policies"]


def test_bench_has_a_line_per_search_player():
    """Plumbing only (figures come from ``vikingsim bench``, never from tests)."""
    from vikingsim import bench

    rows = bench.bench_search(["raidboard"], seconds=0.02, repeats=1)
    assert [r["policy"] for r in rows] == ["flatmc", "ismcts"]
    for r in rows:
        assert r["decisions_per_s"] > 0 and r["rollouts_per_s"] > r["decisions_per_s"]
        assert np.isfinite(r["overhead"]) and r["rollout_s"] > 0
    text = bench.markdown_search(rows)
    assert "| raidboard | ismcts, 4 players |" in text and "overhead" in text
    assert bench.bench_search(["battle878"], seconds=0.02, repeats=1) == []
