"""Restricted play on the raid board (raidboard §10.5): a seat's policy ``forbid`` removes
Exploration seas and kinds of Lost removal from its choices.

Forced-dice turns run through the kernel's own code and the reference (``run_turn`` of
``test_raidboard_rules``); expected spaces are worked out by hand from the board (§3.1)."""
import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.core.testing import ScriptedUniform
from vikingsim.games.raidboard import GAME
from vikingsim.games.raidboard.policies import ELEMENTS, compile_policies
from vikingsim.games.raidboard.rules import SEA_SPACES, SPACE_NAMES, Rules
from tests.test_raidboard_rules import ENGINES, run_turn

#: Seat 0 on Iceland (5) rolls 4 -> Winds of Thor (9), Exploration; the sea roll 6 is the
#: Great Storm, so the fleet stays on the sea it chose (§6.4, §6.5).
TO_EXPLORATION = dict(pos=[5, 0], faces=[4, 6])


def test_elements_are_the_seas_then_the_two_lost_removals():
    seas = [SPACE_NAMES[i] for i in SEA_SPACES]
    assert seas == ["Norwegian Sea", "Atlantic Ocean", "North Sea", "Mediterranean",
                    "Baltic Sea", "Black Sea", "Caspian Sea"]
    assert ELEMENTS == ("norwegian_sea", "atlantic_ocean", "north_sea", "mediterranean",
                        "baltic_sea", "black_sea", "caspian_sea", "lost_opponent", "lost_own")
    setup = GAME.setup({o.name: o.default for o in GAME.options}, ["greedy"] * 3, 3)
    assert GAME.elements(setup) == ELEMENTS


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid,want", [
    ("", 16),                            # §10.2: the first sea ahead of 9 is North Sea (16)
    ("baltic_sea", 16),                  # a sea behind North Sea changes nothing
    ("north_sea", 27),                   # next sea ahead: Mediterranean (27)
    ("north_sea+mediterranean", 29),     # then Baltic Sea (29)
])
def test_greedy_sails_to_the_first_sea_ahead_it_may_use(engine, forbid, want):
    s = run_turn(engine, TO_EXPLORATION["faces"], pos=TO_EXPLORATION["pos"],
                 policy=f"greedy(forbid={forbid})")
    assert s["pos"][0] == want and s["dice_left"] == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid,want", [("", 7), ("atlantic_ocean", 3),
                                         ("atlantic_ocean+norwegian_sea", 16)])
def test_greedy_heading_backward_takes_the_first_allowed_sea_behind(engine, forbid, want):
    # Ends of the Earth (§9.2): from Ireland (13) heading backward, a 4 reaches Winds of Thor
    # (9). The search walks 8, 7 (Atlantic Ocean), ..., 3 (Norwegian Sea), ..., 0, turns
    # round at the end and walks 1, 2, ... forward: with both seas behind forbidden, the
    # first allowed one is North Sea (16). The sea roll 6 keeps the fleet there.
    s = run_turn(engine, [4, 6], pos=[13, 0], fdir=[-1, 1], rules=Rules(variant="ends-of-earth"),
                 policy=f"greedy(forbid={forbid})")
    assert s["pos"][0] == want


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("u,forbid,want", [
    (0.0, "", 3),                        # uniform over the 7 seas: u = 0 -> the first, 3
    (0.0, "norwegian_sea", 7),           # over the 6 left: the first is Atlantic Ocean (7)
    (0.99, "", 36),                      # u = 0.99 -> the last, Caspian Sea (36)
    (0.99, "caspian_sea", 34),           # the last of the 6 left: Black Sea (34)
    (0.5, "norwegian_sea+atlantic_ocean", 29),   # int(0.5 * 5) = 2 of 16, 27, 29, 34, 36
])
def test_random_draws_uniformly_over_the_seas_it_may_use(engine, u, forbid, want):
    pol = ScriptedUniform([u])
    s = run_turn(engine, TO_EXPLORATION["faces"], pos=TO_EXPLORATION["pos"], pol=pol,
                 policy=f"random(forbid={forbid})")
    assert s["pos"][0] == want and pol.used == 1          # one policy draw, forbid or not


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid,want", [
    ("", 34),                 # settle_value 0: Black Sea's follow-up is worth 5.83 raids
    ("black_sea", 36),        # next best: Caspian Sea, 5 raids (test_raidboard_policies)
])
def test_lookahead_takes_the_best_sea_it_may_use(engine, forbid, want):
    s = run_turn(engine, TO_EXPLORATION["faces"], pos=TO_EXPLORATION["pos"],
                 policy=f"lookahead(settle_value=0, forbid={forbid})")
    assert s["pos"][0] == want


#: Seat 0 on Western Routes (15) with its settlement on Denmark (1): income die 3, move 4 ->
#: Reconquest (19), Lost (§6.8). Seat 1 holds Norway (2).
TO_LOST = dict(pos=[15, 0], faces=[3, 4])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy,owner,left", [
    # §10.3.1: greedy removes the opponent's settlement (Norway, 2)
    ("greedy", {1: 0, 2: 1}, {1: 0}),
    ("greedy(forbid=lost_own)", {1: 0, 2: 1}, {1: 0}),       # never used by greedy here
    # denied an opponent's, it must remove its own (Denmark, 1)
    ("greedy(forbid=lost_opponent)", {1: 0, 2: 1}, {2: 1}),
    ("lookahead(forbid=lost_opponent)", {1: 0, 2: 1}, {2: 1}),
    # both denied: the forbid would leave nothing to remove, so it is lifted (the removal is
    # the rule): the unrestricted greedy choice
    ("greedy(forbid=lost_opponent+lost_own)", {1: 0, 2: 1}, {1: 0}),
])
def test_lost_never_removes_a_forbidden_kind_of_settlement(engine, policy, owner, left):
    s = run_turn(engine, TO_LOST["faces"], pos=TO_LOST["pos"], owner=owner, policy=policy)
    assert s["pos"][0] == 19 and s["owner"] == left and s["dice_left"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_lost_forbid_with_nothing_else_to_remove_is_lifted(engine):
    # seat 0 has no settlement (no income die: faces = move 4 only), seat 1 holds Norway:
    # denied an opponent's, there is no own one, so the rule's removal stands
    s = run_turn(engine, [4], pos=[15, 0], owner={2: 1}, policy="greedy(forbid=lost_opponent)")
    assert s["owner"] == {}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("u,forbid,want_removed", [
    (0.0, "", 1),                   # uniform over 1 (own), 2, 4 in index order: the first
    (0.0, "lost_own", 2),           # over 2, 4: the first
    (0.99, "", 4),
    (0.99, "lost_opponent", 1),     # over its own only: Denmark
])
def test_random_lost_draws_over_the_settlements_it_may_remove(engine, u, forbid, want_removed):
    owner = {1: 0, 2: 1, 4: 1}
    pol = ScriptedUniform([u])
    s = run_turn(engine, TO_LOST["faces"], pos=TO_LOST["pos"], owner=owner, pol=pol,
                 policy=f"random(forbid={forbid})")
    assert set(owner) - set(s["owner"]) == {want_removed} and pol.used == 1


def test_forbidding_what_the_policy_never_uses_changes_nothing_bit_for_bit():
    # greedy on the circular board always sails to North Sea from 9 and removes its own
    # settlement only when no opponent has one (forced): Baltic Sea and lost_own are unused
    base = simulate("raidboard", 4000, seed=11, players=4, policies="greedy")
    for seat in range(4):
        pols = ["greedy"] * 4
        pols[seat] = "greedy(forbid=baltic_sea+lost_own)"
        alt = simulate("raidboard", 4000, seed=11, players=4, policies=pols)
        for key in base.out:
            np.testing.assert_array_equal(base.out[key], alt.out[key], err_msg=key)


def test_an_element_in_use_changes_games_and_kernel_equals_reference():
    pols = ["greedy(forbid=north_sea+lost_opponent)", "random(forbid=caspian_sea+lost_own)",
            "lookahead(forbid=norwegian_sea)"]
    base = simulate("raidboard", 3000, seed=12, players=3, policies="greedy")
    alt = simulate("raidboard", 3000, seed=12, players=3, policies=pols)
    assert not np.array_equal(base.out["gold"], alt.out["gold"])
    ref = simulate("raidboard", 300, seed=12, players=3, policies=pols, reference=True)
    for key in ref.out:
        np.testing.assert_array_equal(ref.out[key], alt.out[key][:300], err_msg=key)


@pytest.mark.parametrize("text,words", [
    ("greedy(forbid=nope)", "unknown element 'nope' for raidboard; elements: norwegian_sea"),
    ("lookahead(forbid=north_sea+Lost_Own)", "unknown element 'Lost_Own'"),
    ("random(forbid=" + "+".join(ELEMENTS[:7]) + ")", "every sea is forbidden"),
])
def test_a_bad_forbid_is_one_line(text, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        compile_policies([text])


def test_cli_unknown_element_is_one_line_exit_2(cli):
    r = cli("simulate", "raidboard", "-n", "10", "--policy", "greedy(forbid=north)")
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown element 'north'" in lines[0] and "lost_own" in lines[0]
