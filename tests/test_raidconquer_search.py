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

COIN, LONGBOAT, BERSERKER, LINDISFARNE = 0, 1, 7, 25     # catalog ids (cards.toml)
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
@pytest.mark.parametrize("options", [{}, {"play_all_cards": False}, {"earl_marker_resets": True},
                                     {"max_rounds": 13}])
def test_forward_model_replays_the_kernel_game(options):
    """A seat flagged as a search player whose every Secret Plan is the default policy's
    (``default_option``, hints) plays the kernel's games bit for bit, a ``random`` seat (policy
    stream) among them: suspending at a decision and ``apply`` change nothing, and ``copy``
    copies every field. Fails if apply resumed the round at the wrong turn, re-drew, or
    mis-stepped the clock."""
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
    for g in range(n):
        forward.reset(rules, st, 4, g, dice)
        status = forward.advance(rules, flagged, params, bscore, fb, st, dice, pol)
        while status == END_DECIDE:
            stops += 1
            assert st.clock[Clock.ACTOR] == 1
            forward.copy(st, sim)                        # copy: every pile, flag, scalar
            for name in ("pn", "ps", "shn", "rows", "supply", "box", "gs", "ec", "clock"):
                np.testing.assert_array_equal(getattr(sim, name), getattr(st, name))
            for seat in range(4):
                for p in range(kernel.N_PILES):
                    m = st.pn[seat, p]
                    np.testing.assert_array_equal(sim.pp[seat, p, :m], st.pp[seat, p, :m])
            o = forward.default_option(rules, st, params[1], pol)
            status = forward.apply(rules, flagged, params, bscore, fb, st, o, dice, pol)
        trunc = st.clock[Clock.END] == forward.END_TRUNCATED
        assert bool(out["truncated"][g]) == trunc and st.clock[Clock.ROUNDS] == out["rounds"][g]
        assert st.clock[Clock.WINNER] == out["winner"][g]
        for seat in range(4):
            tot, _ = kernel._score(rules[0], rules[1], st.pp, st.pn, st.fl, seat)
            assert tot == out["legend"][g, seat], (g, seat)
    assert stops >= 5 * n                                # the plans were really suspended


def test_legal_options_are_every_plan():
    """§6.2: Defend, Lone Raid, Raid Party, then Attack each opponent (seat order)."""
    s = _setup(["flatmc"] * 4)
    st, out = forward.new_state(s, 4), np.zeros(forward.N_OPTIONS, np.int64)
    st.clock[Clock.ACTOR] = 2
    assert list(out[:forward.legal_options(st, out)]) == [0, 1, 2, 3, 4, 6]


# ---- kernel = reference ----------------------------------------------------------------------
@pytest.mark.parametrize("policies, options", [
    (["flatmc(rollouts=2)", "hints", "random"], {}),
    (["ismcts(budget=6)", "random", "flatmc(rollouts=1)"], {}),
    (["ismcts(budget=4, c=0.5)"] * 2, {"play_all_cards": False}),
    (["hints", "ismcts(budget=5)", "attacker", "raider"], {"max_rounds": 14}),   # truncated
    (["burier", "flatmc(rollouts=1)", "earl", "hints", "ismcts(budget=3)"],
     {"count_elements": True, "rotate_characters": True}),
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
