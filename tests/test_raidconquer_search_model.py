"""Raid & Conquer search players' opponent model (raidconquer §15.8, issue 21): ``rollout``
(a scripted policy every other seat plays in the rollouts, or ``table``: each its own) and
``base`` (the searcher's own scripted policy). The rollouts and the determinization really
play the named policies (a forced position where hints and earl plan differently, kernel and
reference), compiled and plain-Python players stay bit-identical, the labels parse, bad
values are one line."""
import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.raidconquer import forward, kernel, reference_search, search
from vikingsim.games.raidconquer.policies import Earl, Hints, PolicyKind, Raider
from tests.test_raidconquer_search import BERSERKER, EMPTY, _gen, _position, _setup
from tests.test_raidconquer_search import \
    test_search_players_match_the_reference_bit_for_bit as same_games

ATTACK, DEFEND = kernel.ATTACK, kernel.DEFEND


# ---- the model as data -----------------------------------------------------------------------
def test_the_rollout_seats_are_the_named_policies():
    """Row s of ``Setup.roll`` is seat s's rollout seats: with ``rollout=earl`` every seat
    earl; with ``table`` each other seat its own policy (its forbidden cards too; a search
    seat its own scripted policy), the searcher hints or its ``base``; its real row (its
    choices not searched, §15.1) is its own policy's. DEFAULT: hints, nothing forbidden."""
    s = _setup(["ismcts(rollout=earl)", "raider(forbid=longboat)",
                "flatmc(rollout=table, base=raider)", "flatmc"])
    kinds, params, fb = s.roll
    assert (kinds == PolicyKind.SCRIPTED).all()
    np.testing.assert_array_equal(params[0], np.tile(Earl().params(), (4, 1)))
    np.testing.assert_array_equal(params[2], [Earl().params()] + [Raider().params()] * 2
                                  + [Hints().params()])
    np.testing.assert_array_equal(params[3], np.tile(Hints().params(), (4, 1)))
    assert fb[2, 1].sum() == 1 and fb[2].sum() == 1 and not fb[0].any() and not fb[3].any()
    np.testing.assert_array_equal(s.params[0], Earl().params())
    np.testing.assert_array_equal(s.params[2], Raider().params())
    np.testing.assert_array_equal(s.params[3], Hints().params())


def test_model_labels_parse_and_bad_values_are_one_line(cli):
    r = simulate("raidconquer", 2, seed=1, players=2, policies=[
        "ismcts(budget=64,rollout=earl)", "flatmc(rollouts=2, rollout=table, base=earl)"])
    assert r.summary["policies"] == ["ismcts(rollout=earl)",
                                     "flatmc(rollouts=2, rollout=table, base=earl)"]
    for text, word in (("ismcts(rollout=random)", "rollout"), ("flatmc(rollout=ismcts)",
                                                                "rollout"),
                       ("ismcts(base=table)", "base"), ("ismcts(rollout=)", "rollout")):
        with pytest.raises(InputError, match=word):
            simulate("raidconquer", 2, players=2, policies=text)
    p = cli("simulate", "raidconquer", "-n", "2", "--policy", "ismcts(rollout=earls)")
    assert p.returncode == 2 and "rollout" in p.stderr and "table" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


# ---- the rollouts play the model -------------------------------------------------------------
STRONG = [BERSERKER] * 5     # Power 12 + Base Attack, no Longboat: hints Attacks, earl Defends


@pytest.mark.parametrize("policies, seat1, seat3", [
    (["earl", "earl", "flatmc", "earl"], ATTACK, ATTACK),                 # DEFAULT: hints
    (["hints", "hints", "flatmc(rollout=earl)", "hints"], DEFEND, DEFEND),
    (["earl", "hints", "flatmc(rollout=table)", "earl"], ATTACK, DEFEND),
    (["hints", "ismcts(rollout=earl)", "ismcts(rollout=table)", "hints"], DEFEND, ATTACK),
    (["hints", "earl", "ismcts(rollout=table, base=earl)", "hints"], DEFEND, ATTACK),
])
def test_a_rollout_plans_with_the_modelled_policies(policies, seat1, seat3):
    """Four players, the last round (5 of 5, Spring, §5), First Player seat 0, the searcher
    seat 2 at its Secret Plan. Seats 1 and 3 hold 5 Berserkers and nothing in their decks, so
    a determinization redeals them the same hand: ``hints`` plans Attack on it (§12.4: Power
    >= 5), ``earl`` Defend (no Longboat for its party or lone rules). Seat 1 planned before
    the searcher: its plan is the determinization's (§15.3), seat 3's the rollout's own play
    (§15.2); the round's plan counts (§14.6) show which policy made each, in the compiled
    rollout (3 seeds) and in the reference's (clone, determinize, play out). Fails if the
    rollouts ignored ``rollout`` (hints everywhere), if ``table`` used hints for a seat, or if
    the determinization redid a plan with another seat's policy."""
    s = _setup(policies, max_rounds=5, count_elements=True)
    st, game = _position(s, 2, rnd=5, hand=[0] * 5, raids={}, raid_row=[EMPTY] * 5)
    for q in (1, 3):
        st.pp[q, kernel.HAND, :5] = BERSERKER
        st.pn[q, kernel.DECK] = 0
        game.players[q].hand, game.players[q].deck = list(STRONG), []
    rules, roll = forward.rules_of(s.compiled), search.seat_tuples(s)[1]
    mine = tuple(a[2] for a in roll)
    for seed in range(3):
        sim = forward.new_state(s, 4)
        search._rollout(rules, mine, st, sim, forward.OPT_DEFEND, _gen(seed))
        plans = sim.ec[kernel.EC_PLANS, :, :4]
        assert plans.sum() == 4 and plans[2, DEFEND] == 1, plans
        assert plans[1, seat1] == 1 and plans[3, seat3] == 1, (seed, plans)
        game.pol = _gen(seed)                  # the clone's dice and policy draws
        g = reference_search.clone(game, 2)
        reference_search.determinize(g, 2, (reference_search.PLAN, 2))
        reference_search._play_out(g, 2, (reference_search.PLAN, 2), forward.OPT_DEFEND)
        np.testing.assert_array_equal([pl.plans[:4] for pl in g.players], plans)


# ---- kernel = reference ----------------------------------------------------------------------
@pytest.mark.parametrize("policies, options", [
    (["ismcts(budget=5, rollout=earl)", "hints", "random"], {}),
    (["flatmc(rollouts=1, rollout=table)", "earl", "random", "raider(forbid=longboat)"],
     {"count_elements": True}),
    (["ismcts(budget=4, rollout=table)", "random", "earl"], {}),
    (["ismcts(budget=4, rollout=table, base=earl, buys=1)", "flatmc(rollouts=1, rollout=burier)",
      "attacker"], {"play_all_cards": False}),
])
def test_modelled_search_players_match_the_reference_bit_for_bit(policies, options):
    """The compiled players and their plain-Python twins play the same 3 games with
    ``rollout=earl``, ``table`` (a ``random`` seat: its plan drawn again on the policy
    stream, §15.8, and random in ISMCTS's tree too; a forbidden card; a search opponent on
    its base) and ``base``."""
    same_games(policies, options)
