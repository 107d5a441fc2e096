"""Ravenfeast duel: exact Markov-chain odds (exact.py) against closed forms and the kernel."""
import math

import numpy as np
import pytest

from vikingsim.core import config
from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.ravenfeast import GAME, duel_setup, odds
from vikingsim.games.ravenfeast.duel.exact import attack_distribution, solve, turn_distribution
from vikingsim.core.testing import within_k_se

P_KEYS = ("p_a_win", "p_b_win", "p_both_die", "p_truncated")


@pytest.mark.parametrize("melee,armor", [(m, a) for m in range(0, 6) for a in range(0, 6)])
def test_attack_distribution_closed_form(melee, armor):          # §6.1-6.4
    p = attack_distribution(melee, armor)
    hit, wound = melee / 6, (6 - armor) / 6
    p2 = (1 / 6 if melee >= 1 else 0) * (1 / 6) * (melee / 6)   # hit 1, Armor 6, Free hits
    assert p.sum() == pytest.approx(1.0)
    assert p[2] == pytest.approx(p2)
    assert p[1] + p[2] == pytest.approx(hit * wound)            # the ordinary wound
    off = attack_distribution(melee, armor, free_attack=False)
    assert off[2] == 0 and off[1] == pytest.approx(hit * wound)


def test_failed_save_trigger_fires_more_often():
    six, any_fail = attack_distribution(4, 2), attack_distribution(4, 2, trigger_six=False)
    assert any_fail[2] == pytest.approx((1 / 6) * (4 / 6) * (4 / 6))
    assert any_fail[2] > six[2]


def test_turn_distribution_is_a_convolution():
    one = attack_distribution(5, 1)
    two = turn_distribution(2, 5, 1)
    assert len(two) == 5 and two.sum() == pytest.approx(1.0)
    assert two[4] == pytest.approx(one[2] ** 2)
    assert two[0] == pytest.approx(one[0] ** 2)


def test_one_wound_duel_matches_hand_computation():
    # Hirdmen v Hirdmen, Melee 4 v Armor 3, 1 attack, 1 wound each: per turn each kills the
    # other with k = 4/6 * 3/6 = 1/3 (the Free Attack cannot add a kill to a dead figure).
    k = 1 / 3
    res = solve(duel_setup({"a": "hirdmen", "b": "hirdmen", "max_turns": 10_000}))
    stop = 1 - (1 - k) ** 2
    assert res["p_a_win"] == pytest.approx(k * (1 - k) / stop)
    assert res["p_both_die"] == pytest.approx(k * k / stop)
    assert res["mean_turns"] == pytest.approx(1 / stop)


PAIRS = [
    {"a": "jarl", "b": "berserker"},                              # Mighty both, Tough (3)
    {"a": "huskarl", "b": "berserker"},                           # Tough (2) v 2 attacks
    {"a": "jarl", "b": "jarl"},                                   # long duel, Tough (3) both
    {"a": "huskarl", "b": "huskarl", "tough_reading": "extra_wounds"},
    {"a": "hirdmen", "b": "bondi", "a_mighty": "true"},
    {"a": "bondi", "b": "thrall"},
    {"a": "thrall", "b": "berserker", "b_shield_wall": True, "a_outnumbered": True},
    {"a": "berserker", "b": "hirdmen", "free_attack_trigger": "failed_save"},
    # Free Attack heavy: every hit of A is a 1 and B has Armor 5 and 3 wounds, so a wounding
    # hit always triggers §6.4 (Armor 6, then a Free Attack on 1): p(A wins) 0.225 v 0.178 without.
    {"a": "bondi", "b": "jarl", "a_attacks": 6, "a_melee": 1, "a_wounds": 2, "b_attacks": 1,
     "b_melee": 2, "b_armor": 5, "b_mighty": "false"},
    {"a": "hirdmen", "b": "hirdmen", "max_turns": 2},            # exact truncation
    {"a": "thrall", "b": "bondi", "a_fated": "true", "b_fated": "true",
     "fated_armor_roll": True},
    {"a": "huskarl", "b": "hirdmen", "a_rear": True, "b_uphill": True, "b_fated": "true"},
]


@pytest.mark.parametrize("opts", PAIRS)
def test_exact_closed_form_equals_forward_recursion(opts):
    res = solve(duel_setup(opts))
    for i, k in enumerate(("p_a_win", "p_b_win", "p_both_die")):
        assert res[k] == pytest.approx(res["forward_p"][i], abs=1e-12)
    assert res["mean_turns"] == pytest.approx(res["forward_mean_turns"], rel=1e-12)
    assert sum(res[k] for k in P_KEYS) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("opts", PAIRS)
def test_kernel_matches_exact_within_4_se(opts):
    # n = 1,000,000 duels per pair (~0.1 s each): the binomial SE is at most 0.5/sqrt(n) =
    # 0.0005, so k = 4 SE is <= 0.2 percentage points (a correct engine fails one check w.p.
    # 6e-5; 12 pairs x 5 checks: < 0.4% per run, and the seed is fixed). That is enough because
    # every plausible bug moves a pair much further: dropping the Free Attack moves the
    # Free-Attack-heavy pair by > 10 SE (test below); a Mighty, Tough, Fated, truncation or
    # both-die error moves its pair by whole percentage points.
    n = 1_000_000
    r = simulate(GAME, n=n, seed=20260, threads=2, options=opts)
    ex = odds(opts)
    counts = np.bincount(r.out["outcome"].astype(np.int64), minlength=4)
    for i, k in enumerate(P_KEYS):
        p = ex[k]
        se = math.sqrt(max(p * (1 - p), 1e-300) / n)
        assert within_k_se(counts[i] / n, p, se), (k, counts[i] / n, p)
    t = r.out["turns"].astype(np.float64)
    se_t = t.std(ddof=1) / math.sqrt(n)
    assert within_k_se(t.mean(), ex["mean_turns"], se_t)


def test_free_attack_heavy_pair_would_expose_a_missing_free_attack():
    on = odds(PAIRS[8])["p_a_win"]
    off = odds({**PAIRS[8], "free_attack": False})["p_a_win"]
    se = math.sqrt(on * (1 - on) / 1_000_000)
    assert abs(on - off) > 10 * se


def test_odds_keys_equal_summary_keys():
    r = simulate(GAME, n=1_000, seed=1, threads=1)
    ex = odds({})
    keys = {k for k in r.summary if k.startswith(("p_", "mean_turns"))}
    assert keys == {k for k in ex if k.startswith(("p_", "mean_turns"))}
    assert (ex["a"], ex["b"]) == (r.summary["a"], r.summary["b"])
    assert ex["p_draw"] == ex["p_both_die"] > 0                # both die: the duel's draw
    assert ex["p_a_win"] + ex["p_b_win"] + ex["p_draw"] + ex["p_truncated"] == pytest.approx(1)


def test_odds_rejects_other_modes_and_unknown_options():
    with pytest.raises(InputError, match="mode=duel only"):
        odds({"mode": "warband"})
    with pytest.raises(InputError, match="unknown option"):
        odds({"colour": "red"})
    assert GAME.odds is not None and GAME.odds({"a": "bondi", "b": "bondi"})["p_a_win"] > 0
