"""ISMCTS expansion and the root's final choice, in all three seated games (raidboard §10.6,
raidconquer §15.2 and §15.5, tevragnarok §4.11.3): the untried option a node expands is drawn
uniformly on the policy stream (never the first in list order), and equal root visits go to the
higher mean result. The kernels and their plain-Python twins share the rule; the twins' agreement
over whole games is in each game's search tests (`test_search_players_match_the_reference_bit_
for_bit`), which run budgets below the option count too."""
import numpy as np
import pytest
from scipy import stats

from vikingsim.core import rng
from vikingsim.core import reference_search as twin
from vikingsim.core.options import resolve
from vikingsim.core.search import root_score
from vikingsim.core.jit import jit


def _gen(seed):
    return rng.block_generator(seed, rng.STREAM_POLICY, 0)


def _setup(game, policies, **options):
    return game.setup(resolve(game.name, game.options, options), list(policies), len(policies))


# ---- the root's final score: hand values ------------------------------------------------------
@jit(nrt=False)
def _root_score_kernel(visits, wins):
    return root_score(visits, wins)


@pytest.mark.parametrize("visits, wins, expected", [
    (0.0, 0.0, 0.0),        # never tried: below every tried option
    (1.0, 0.0, 1.0),        # one visit, lost
    (1.0, 1.0, 1.5),        # one visit, won: above a lost one with the same visits
    (3.0, 3.0, 3.5),        # 3 visits all won ...
    (4.0, 0.0, 4.0),        # ... stay below 4 visits all lost: the mean never outweighs a visit
    (4.0, 1.0, 4.125),
])
def test_root_score_orders_by_visits_then_mean(visits, wins, expected):
    """Hand arithmetic of visits + (wins / visits) / 2 (notes above), kernel and twin."""
    assert _root_score_kernel(visits, wins) == expected
    assert twin.root_score(visits, wins) == expected


def test_draw_one_is_uniform_and_skips_the_draw_for_one_item():
    """A lone item costs no draw (the stream is where it was); three items each come up about
    a third of the time over 3,000 draws (chi-square, p > 0.001)."""
    g, h = _gen(1), _gen(1)
    assert twin.draw_one([7], g) == 7
    assert g.random() == h.random()
    picks = [twin.draw_one(["a", "b", "c"], g) for _ in range(3000)]
    counts = [picks.count(x) for x in "abc"]
    assert stats.chisquare(counts).pvalue > 0.001, counts


# ---- budget 1: the one root option tried is a uniform draw over the legal options --------------
def _first_state(search, s, seed):
    found = search._decision_states(s, 1, seed)
    if isinstance(found, list):
        return found[0]
    return type(found)(*[a[0].copy() for a in found])


def _picks(search, s, st, seeds):
    out = []
    for seed in seeds:
        copy = type(st)(*[a.copy() for a in st])
        out.append(search.decide(s, copy, _gen(seed)))
    return out


def _raidboard():
    from vikingsim.games.raidboard import GAME, forward, search
    from vikingsim.games.raidboard.rules import N_SPACES
    s = _setup(GAME, ["ismcts(budget=1)", "greedy", "greedy", "greedy"])
    st = _first_state(search, s, 5)
    opts = np.zeros(N_SPACES, np.int64)
    n = forward.legal_options(forward.rules_of(s.compiled), st, opts)
    return search, s, st, list(opts[:n])


def _raidconquer():
    from vikingsim.games.raidconquer import GAME, forward, search
    s = _setup(GAME, ["ismcts(budget=1)", "hints", "hints", "hints"])
    st = _first_state(search, s, 5)
    opts = np.zeros(64, np.int64)
    n = forward.legal_options(forward.rules_of(s.compiled), st, opts)
    return search, s, st, list(opts[:n])


def _tevragnarok():
    from vikingsim.games.tevragnarok import GAME, forward, kernel as K, search
    s = _setup(GAME, ["ismcts(budget=1)", "greedy_vp"])
    st = _first_state(search, s, 5)
    opts = np.zeros(K.MAX_OPTS, np.int64)
    n = forward.legal_options(s.compiled, s.kinds, s.params, st, opts)
    return search, s, st, list(opts[:n])


GAMES = {"raidboard": _raidboard, "raidconquer": _raidconquer, "tevragnarok": _tevragnarok}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_budget_one_tries_an_option_drawn_uniformly(game):
    """With budget 1 the root expands one untried option, and it is the one played (one visit
    against none, `root_score`). Over 40 draws per legal option (the position: the first
    searched decision of seed 5's games; at least 3 options), every option is played about
    equally often (chi-square, p > 0.001) and each at least once. The expansion in list order
    that these games had before 2026-12-04 played the first option every time."""
    search, s, st, opts = GAMES[game]()
    assert len(opts) >= 3, opts
    picks = _picks(search, s, st, range(40 * len(opts)))
    counts = [picks.count(o) for o in opts]
    assert set(picks) <= set(opts)
    assert min(counts) > 0, counts
    assert stats.chisquare(counts).pvalue > 0.001, counts


# ---- budget = option count: every option one visit, and the mean result decides --------------
def test_equal_visits_go_to_the_option_whose_rollout_won():
    """Raid board, three players with 99 Gold and one settlement each, both rivals missing
    their next turn (the position of `test_raidboard_search.py::test_equal_options_are_drawn_
    without_seat_bias`, raid_fail_max = 8): removing a rival's settlement wins for sure, the
    actor's own wins only when its next raid does, 10/36 (§7.2). With budget 3 each option is
    tried once. By the mean result, the own settlement is played only when its rollout won and
    the draw among the three winners picks it: 10/36 x 1/3 = 5/54 of the time; by visits alone
    it would be 1/3. Over 300 seeds (kernel = twin each time) the own-settlement count fits
    5/54 (binomial, p > 0.001); at 1/3 the expected 100 is about 19 standard deviations of the
    5/54 count away (sd 5.0 about a mean of 27.8), so the test separates them with room."""
    from tests.test_raidboard_search import _both_choices, _setup as rb_setup
    for actor in (0, 1):
        s = rb_setup(["ismcts(budget=3)"] * 3, raid_fail_max=8)
        rivals = [x for x in range(3) if x != actor]
        holdings = {1: actor, 2: rivals[0], 4: rivals[1]}
        own = 0
        for seed in range(300):
            k, r = _both_choices(s, actor, holdings, [99, 99, 99], set(rivals), seed)
            assert k == r, (seed, k, r)
            own += k == 1
        assert stats.binomtest(own, 300, 5 / 54).pvalue > 0.001, (actor, own)
