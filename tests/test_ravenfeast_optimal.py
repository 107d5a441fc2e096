"""Ravenfeast duel policy ``optimal`` (rules notes ravenfeast.md §12.7): the exact matrix game
over the stance flags a seat decides, its pure maximin choice and mixed guarantee, and the
kernel playing the chosen stance."""
import math

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.core.testing import within_k_se
from vikingsim.games.ravenfeast import duel_game, odds
from vikingsim.games.ravenfeast.duel.optimal import (mixed_guarantee, pure_choice,
                                                     strategies)


def score_a(r):
    return r["p_a_win"] + 0.5 * (r["p_both_die"] + r["p_truncated"])


def test_shield_wall_is_the_known_best_stance():
    # §8.3: a wall only adds Armor (+2, max 5) and cancels the several-enemies -1, so a
    # duellist who may stand in one does; its guarantee is the exact duel with a_shield_wall
    # set through the options (an independent path to the same solver).
    g = duel_game({"a": "hirdmen", "b": "hirdmen"}, ("optimal", "default"))
    assert g.chosen == ("shield_wall", "as_given")
    walled = odds({"a": "hirdmen", "b": "hirdmen", "a_shield_wall": True})
    plain = odds({"a": "hirdmen", "b": "hirdmen"})
    assert g.pure[0] == pytest.approx(score_a(walled), abs=1e-12)
    assert g.pure[0] > score_a(plain) + 0.1
    assert g.pure[1] == pytest.approx(1 - score_a(walled), abs=1e-12)


def test_a_harmful_flag_is_never_chosen():
    # §6.2: attacking uphill only costs Melee, so "as given" beats "uphill"
    g = duel_game({"a": "jarl", "b": "berserker"}, ("optimal(choose=uphill)", "default"))
    assert g.chosen[0] == "as_given"
    assert g.payoff[0][0, 0] > g.payoff[0][1, 0]


def test_every_cell_is_the_exact_duel_of_its_flags():
    # seat A decides its wall and B's rear, seat B its wall and A's rear (foe_ = the
    # opponent's flag); every cell equals odds() with those a_/b_ options set
    g = duel_game({"a": "jarl", "b": "huskarl"},
                  ("optimal(choose=shield_wall+foe_rear)", "optimal(choose=shield_wall+foe_rear)"))
    assert [len(s) for s in g.strategies] == [4, 4]
    for i, sa in enumerate(g.strategies[0]):
        for j, sb in enumerate(g.strategies[1]):
            opts = {"a": "jarl", "b": "huskarl"}
            for x in sa:
                opts["b_rear" if x == "foe_rear" else "a_shield_wall"] = True
            for x in sb:
                opts["a_rear" if x == "foe_rear" else "b_shield_wall"] = True
            r = odds(opts)
            assert g.payoff[0][i, j] == pytest.approx(score_a(r), abs=1e-12)
            assert g.payoff[1][i, j] == pytest.approx(1 - score_a(r), abs=1e-12)
    # both go round the other's rear (dominant: -1 Armor to the foe and no wall bonus, §8.3)
    assert all("foe_rear" in c for c in g.chosen)


@pytest.mark.parametrize("a,b", [("jarl", "berserker"), ("huskarl", "hirdmen"),
                                 ("bondi", "thrall")])
def test_score_game_is_zero_sum_so_mixed_guarantees_add_to_one(a, b):
    # minimax theorem: with the score payoff the two seats' mixed security levels add to 1,
    # and neither seat's pure guarantee exceeds its mixed one
    pol = "optimal(choose=shield_wall+uphill+foe_rear+foe_uphill)"
    g = duel_game({"a": a, "b": b}, (pol, pol))
    assert g.mixed[0] + g.mixed[1] == pytest.approx(1.0, abs=1e-9)
    for seat in range(2):
        assert g.pure[seat] <= g.mixed[seat] + 1e-9


def test_win_objective_values_draws_at_nothing():
    # both seats count only their own wins; the wall is dominant for both (§8.3), so each
    # guarantee is its win probability in the walled duel, and a draw counts for neither
    pol = "optimal(objective=win)"
    g = duel_game({"a": "hirdmen", "b": "hirdmen"}, (pol, pol))
    assert g.chosen == ("shield_wall", "shield_wall")
    r = g.played()
    assert r["p_both_die"] > 0.05
    assert g.pure[0] + g.pure[1] == pytest.approx(1 - r["p_both_die"] - r["p_truncated"])
    assert g.pure[0] == pytest.approx(r["p_a_win"], abs=1e-12)
    assert g.pure[1] == pytest.approx(r["p_b_win"], abs=1e-12)


def test_ties_go_to_fewer_flags():
    # §8.3: a wall ignores the several-enemies -1, so B in a wall is not hurt by being
    # outnumbered: both of A's strategies pay the same, and A keeps the stance as given
    g = duel_game({"a": "hirdmen", "b": "hirdmen", "b_shield_wall": True},
                  ("optimal(choose=foe_outnumbered)", "default"))
    assert g.payoff[0][0, 0] == g.payoff[0][1, 0]
    assert g.chosen[0] == "as_given"


def test_linprog_values_of_known_matrix_games():
    v, x = mixed_guarantee(np.array([[1.0, 0.0], [0.0, 1.0]]))          # matching pennies
    assert v == pytest.approx(0.5) and x == pytest.approx([0.5, 0.5])
    rps = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])  # rock-paper-scissors
    v, x = mixed_guarantee(rps)
    assert v == pytest.approx(0.5) and x == pytest.approx([1 / 3] * 3, abs=1e-9)
    saddle = np.array([[0.3, 0.6], [0.4, 0.5]])                          # saddle at (1, 0)
    assert pure_choice(saddle) == 1
    v, x = mixed_guarantee(saddle)
    assert v == pytest.approx(0.4) and x == pytest.approx([0.0, 1.0], abs=1e-9)
    assert pure_choice(np.array([[1.0, 0.0], [0.0, 1.0]])) == 0          # tie: first row


def test_strategies_are_every_subset_fewest_flags_first():
    assert strategies(("x", "y")) == [(), ("x",), ("y",), ("x", "y")]


@pytest.mark.parametrize("a,b,pols", [
    ("hirdmen", "hirdmen", ("optimal", "default")),
    ("jarl", "berserker", ("optimal(choose=shield_wall+foe_rear)",
                           "optimal(choose=shield_wall+foe_rear+foe_uphill)")),
])
def test_simulated_optimal_duels_match_the_exact_value(a, b, pols):
    # n = 200,000 duels: SE of p_a_win <= 0.0011, so 4 SE = 0.0045 resolves the 0.1+ gap the
    # stance makes (test above) many times over
    n = 200_000
    g = duel_game({"a": a, "b": b}, pols)
    r = simulate("ravenfeast", n=n, seed=11, policies=list(pols), options={"a": a, "b": b})
    s, want = r.summary, g.played()
    assert (s["a_chosen"], s["b_chosen"]) == tuple(
        c if p != "default" else "(default policy)" for c, p in zip(g.chosen, pols))
    for key in ("p_a_win", "p_b_win", "p_both_die"):
        se = math.sqrt(want[key] * (1 - want[key]) / n)
        assert within_k_se(s[key], want[key], se), (key, s[key], want[key])
    sc = s["p_a_win"] + 0.5 * (s["p_both_die"] + s["p_truncated"])
    assert within_k_se(sc, g.pure[0], math.sqrt(0.25 / n))


def test_reference_engine_plays_the_same_optimal_duels():
    kw = dict(n=3_000, seed=5, policies=["optimal", "optimal(choose=foe_rear)"],
              options={"a": "huskarl", "b": "berserker"})
    k, ref = simulate("ravenfeast", **kw), simulate("ravenfeast", reference=True, **kw)
    assert k.summary["p_a_win"] == ref.summary["p_a_win"]
    assert (k.frame["turns"] == ref.frame["turns"]).all()


@pytest.mark.parametrize("args,needle", [
    (["--policy", "optimal(choose=wall)"], "unknown stance flag 'wall'"),
    (["--policy", "optimal(choose=rear+rear)"], "given twice"),
    (["--policy", "optimal(choose=rear+uphill+foe_rear+foe_uphill+shield_wall)"], "at most 4"),
    (["--policy", "optimal(objective=draw)"], "objective"),
    (["--set", "mode=warband", "--policy", "optimal"], "duel policy"),
    (["--policy", "wall"], "mode=duel: policy wall not allowed"),
])
def test_bad_optimal_policies_exit_2_with_one_line(cli, args, needle):
    p = cli("simulate", "ravenfeast", "-n", "10", "--quiet", *args)
    assert p.returncode == 2
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_stance_table_over_every_matchup():
    # 36 ordered pairs, both seats deciding their wall and the foe's rear: the score game is
    # zero-sum (mixed guarantees add to 1) and has a saddle point (pure = mixed), since every
    # flag helps or hurts one side whatever the other does (§12.7); mirror pairs are fair
    from vikingsim.games.ravenfeast.profiles import PREDEFINED
    from vikingsim.questions.ravenfeast import duel_stance_table

    pol = "optimal(choose=shield_wall+foe_rear)"
    t = duel_stance_table(PREDEFINED, (pol, pol))
    assert len(t) == 36
    assert np.allclose(t.a_mixed + t.b_mixed, 1.0, atol=1e-9)
    assert np.allclose(t.a_pure, t.a_mixed, atol=1e-9) and np.allclose(t.b_pure, t.b_mixed, atol=1e-9)
    mirror = t[t.a == t.b]
    assert np.allclose(mirror.a_pure, 0.5, atol=1e-9)
    assert (t.a_choice.str.contains("foe_rear") & t.b_choice.str.contains("foe_rear")).all()
