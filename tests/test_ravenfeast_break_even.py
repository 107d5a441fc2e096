"""Ravenfeast break-even unit cost (rules notes ravenfeast.md §12.8,
``questions.ravenfeast.break_even``, ``vikingsim breakeven``)."""
import math

import numpy as np
import pytest

from vikingsim.questions.ravenfeast import (_logistic_crossing, break_even, opponent_force,
                                            typed_overrides, warband_points)

# 2,000 battles per count and side (4,000 per count): the 1/2 crossing of Hirdmen against
# Hirdmen is then located to about 0.2 % in count (log_k_se ~ 0.002-0.005), small against the
# one-figure steps (6 %) the tests below must tell apart.
N = 2_000


@pytest.fixture(scope="module")
def plain_and_strong():
    plain = break_even("hirdmen", ["hirdmen"], n=N, seed=3).iloc[0]
    strong = break_even("hirdmen", ["hirdmen"], overrides={"melee": 5}, n=N, seed=3).iloc[0]
    return plain, strong


def test_a_unit_breaks_even_against_itself_at_its_own_cost(plain_and_strong):
    # symmetry: k Hirdmen against 16 Hirdmen (288 points) break even at k = 16, i.e. at the
    # printed 18 points; both sides are played, so a side edge cancels. Within 4 SE (log k).
    plain, _ = plain_and_strong
    assert plain["status"] == "ok" and plain["opponent_points"] == 288
    assert abs(math.log(plain["k_star"] / 16)) <= 4 * plain["log_k_se"] + 1e-3
    assert plain["cost_lo"] <= 18.0 * 1.001 and plain["cost_hi"] >= 18.0 / 1.001


def test_a_strictly_stronger_unit_breaks_even_at_a_higher_cost(plain_and_strong):
    # Melee 5 instead of 4 is better in every fight (§6.1): fewer figures break even
    plain, strong = plain_and_strong
    se = math.hypot(plain["log_k_se"], strong["log_k_se"])
    assert math.log(plain["k_star"] / strong["k_star"]) > 4 * se
    assert strong["cost"] > plain["cost"] and strong["cost_lo"] > plain["cost_hi"]
    assert strong["unit_cost"] == 20.0                    # §12.3 model price of Melee 5


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.PerfectSeparationWarning")
def test_logistic_crossing_recovers_a_known_curve():
    # scores exactly on logit(p) = 8 * log(k / 12): k* = 12, and no noise -> se ~ 0
    ks = [10, 11, 12, 13, 14]
    p = [1 / (1 + math.exp(-8 * math.log(k / 12))) for k in ks]
    logk, se, phi = _logistic_crossing(ks, p, [4000] * len(ks))
    assert math.exp(logk) == pytest.approx(12.0, rel=1e-6)
    assert phi == pytest.approx(0.0, abs=1e-8)
    assert se < 0.01


def test_opponents_and_points():
    assert opponent_force("bondi", 300) == ([("bondi", 25)], 300.0)
    assert opponent_force("jarl", 300) == ([("jarl", 4)], 300.0)
    assert warband_points("fight_for_honor") == 297.0             # §10.7 preset
    assert opponent_force("fight_for_honor") == ("fight_for_honor", 297.0)


def test_a_leader_type_opponent_keeps_one_leader():
    # §9.3: four Jarls are one Leader and three followers (write_force_toml demotes the rest)
    r = break_even("huskarl", ["jarl"], n=200, seed=1).iloc[0]
    assert r["opponent_points"] == 300.0 and r["status"] in ("ok", "below_min", "above_max")


def test_bounded_when_no_count_breaks_even():
    # one Jarl (75 points) beats a single Thrall, so against 9 points of Thralls the Jarl
    # "breaks even" above 9 points: only a bound is reported
    r = break_even("jarl", ["thrall"], budget=9, n=200, seed=1).iloc[0]
    assert r["status"] == "above_max" and np.isnan(r["cost"])


def test_typed_overrides():
    assert typed_overrides({"melee": "5", "mighty": "false"}) == {"melee": 5, "mighty": False}


@pytest.mark.parametrize("args,needle", [
    (["raidboard", "hirdmen", "--against", "bondi"], "only ravenfeast"),
    (["ravenfeast", "hird", "--against", "bondi"], "unknown unit type 'hird'"),
    (["ravenfeast", "hirdmen", "--against", "nope"], "unknown warband 'nope'"),
    (["ravenfeast", "hirdmen", "--unit-set", "melee=x", "--against", "bondi"], "integer"),
    (["ravenfeast", "hirdmen", "--unit-set", "mighty=maybe", "--against", "bondi"],
     "true or false"),
    (["ravenfeast", "hirdmen", "--unit-set", "speed=3", "--against", "bondi"],
     "unknown profile override"),
    (["ravenfeast", "hirdmen", "--against", "bondi", "-n", "0"], "positive integer"),
    (["ravenfeast", "hirdmen", "--against", "bondi", "--budget", "5"], "buys no bondi"),
])
def test_bad_input_exits_2_with_one_line(cli, args, needle):
    p = cli("breakeven", *args)
    assert p.returncode == 2
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_cli_prints_a_line_per_opponent(cli):
    p = cli("breakeven", "ravenfeast", "hirdmen", "--against", "bondi", "fight_for_honor",
            "-n", "300")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 3 and lines[1].startswith("  bondi (300 points): ")


def test_mirror_match_scores_one_half_because_both_sides_are_played(tmp_path):
    # 16 Hirdmen against 16 Hirdmen: by symmetry the unit's score is 1/2 once it plays side a
    # and side b equally (in mode=warband side b alone wins about 4 points more often than
    # side a). n = 20,000 per side: SE = sqrt(1/4 / 40,000) = 0.0025, 4 SE = 0.01, while the
    # side edge moves a one-sided score by about 0.02.
    from pathlib import Path

    from vikingsim.questions.ravenfeast import _score_at, write_force_toml

    unit = write_force_toml([("hirdmen", 16)], Path(tmp_path), "h16")
    score, n = _score_at(unit, "hirdmen*16", 16, n=20_000, seed=3, options={}, threads=None)
    assert n == 40_000
    assert abs(score - 0.5) <= 4 * math.sqrt(0.25 / n)
