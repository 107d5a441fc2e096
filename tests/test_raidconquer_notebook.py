"""The headline figures of ``notebooks/raidconquer_is_ragnar_too_strong.py`` (issue 10), re-checked.

Two kinds of check. Where the rules give an independent expectation it is used: the five
characters are identical (raid-and-conquer §3.5, §12.3), so with the characters rotated over
the seats each wins 1/4 of its 4-player seats; the power figures follow the closed form of the
normal approximation on Cohen's h. Where there is none (a variant's win rate, a seat edge, game
length, a policy match-up) the figure is recomputed on a fresh seed at the notebook's own n and
must lie within 4 standard errors of the difference of two independent estimates
(4 * sqrt(2) * SE) of the quoted value, plus its rounding. A failing test after a change of the
catalog or the rules means the notebook's quotes are stale: re-run it (notebooks/README.md).
"""
import math
from pathlib import Path

import numpy as np
import pytest

from vikingsim.stats import equal_seats_test, games_needed, interval

NB = Path(__file__).resolve().parents[1] / "notebooks" / "raidconquer_is_ragnar_too_strong.py"
SEED, FRESH = 10, 1010                     # the notebook's seed; an independent one
Z95, Z80 = 1.959963984540054, 0.8416212335729143

#: (text quoted in the notebook, value) of the figures re-checked below.
CHAR_RATES = {"ragnar": 0.2499, "lagertha": 0.2519, "rollo": 0.2501, "floki": 0.2484,
              "bjorn": 0.2498}
QUOTES = [
    "Ragnar wins **24.99%** of his seats (95% CI [24.78%, 25.20%])",
    "the five characters win 24.84% to 25.19%",
    "equal-chances chi-square p = 0.42",
    "n = 200,000 4-player games",
    "18,638 games",
    "**Base Attack 3**: Ragnar wins **41.8%** [41.4%, 42.3%]",
    "**Base Defense 6**: 28.5% [28.0%, 28.9%]",
    "**a third Longboat** in his starting deck: 29.6% [29.1%, 30.0%]",
    "seat 1 wins 26.2% [25.9%, 26.5%]",
    "with 2 players seat 1 only 50.31% [50.15%, 50.46%]",
    "with `first_seat` = 2, seat 3 wins 29.6% [29.2%, 30.0%]",
    "mean **14.71 rounds**",
    "**65.9%** [65.6%, 66.2%] of 4-player games",
    "a lone `earl` among three `hints` wins **38.1%** [37.0%, 39.1%]",
]


def _text():
    return " ".join(NB.read_text().replace("\n# ", " ").replace("\n#", " ").split())


def test_headline_is_quoted():
    """The figures re-checked below are the ones the notebook states."""
    text = _text()
    missing = [q for q in QUOTES if " ".join(q.split()) not in text]
    assert not missing, missing


def _run(n, seed, players=4, policies="hints", **options):
    from vikingsim.core.runner import simulate
    from vikingsim.games import get

    return simulate(get("raidconquer"), n, seed=seed, players=players, policies=policies,
                    options={"rotate_characters": True, **options})


def _close_to_quote(fresh, quoted, se, rounding):
    """A fresh estimate agrees with a quoted one: within 4 SE of the difference of two
    independent estimates, plus half the quote's last digit."""
    assert abs(fresh - quoted) <= 4 * math.sqrt(2) * se + rounding, (fresh, quoted, se)


def test_one_point_power_matches_closed_form():
    """games_needed(0.26, 0.25) (statsmodels) against n = ((z_.975 + z_.80) / h)^2 with
    Cohen's h = 2 asin sqrt(0.26) - 2 asin sqrt(0.25): one arm against a fixed 1/4 (the
    notebook's 18,638 games = 14,910 seats / (4/5)), and two arms (twice as many)."""
    h = 2 * math.asin(math.sqrt(0.26)) - 2 * math.asin(math.sqrt(0.25))
    one = ((Z95 + Z80) / h) ** 2
    assert games_needed(0.26, 0.25, two_sample=False) == math.ceil(one) == 14_910
    assert games_needed(0.26, 0.25) == math.ceil(2 * one)
    assert math.ceil(14_910 / 0.8) == 18_638


@pytest.mark.slow
def test_characters_are_equal_at_the_notebooks_n():
    """The notebook's own run (seed 10, 200,000 rotated 4-player games: 160,000 seats per
    character): the quoted rates come out, and each is within 4 SE of the rules' 1/4.
    Why this n is enough: SE = sqrt(1/4 * 3/4 / 160,000) = 0.108 pp, so 4 SE = 0.43 pp, below
    the 1-point difference the notebook asks about (a character 1 pp off would sit 9 SE out)."""
    res = _run(200_000, SEED)
    by = res.summary["win_rate_by_character"]
    se = math.sqrt(0.25 * 0.75 / 160_000)
    wins = []
    for name, quoted in CHAR_RATES.items():
        d = by[name]
        assert d["games"] == 160_000
        assert round(d["win_rate"], 4) == quoted, (name, d["win_rate"])
        assert abs(d["win_rate"] - 0.25) <= 4 * se, (name, d["win_rate"])
        wins.append(round(d["win_rate"] * d["games"]))
    lo, hi = interval(wins[0], 160_000)
    assert (round(100 * lo, 2), round(100 * hi, 2)) == (24.78, 25.20)
    assert round(equal_seats_test(wins, 200_000).pvalue, 2) == 0.42


@pytest.mark.slow
@pytest.mark.parametrize("option, quoted", [({"ragnar_base_attack": 3}, 0.418),
                                            ({"ragnar_base_defense": 6}, 0.285),
                                            ({"start_card": "ragnar:Longboat"}, 0.296)])
def test_variant_makes_ragnar_stronger(option, quoted):
    """A fresh seed at the notebook's n (50,000 games, 40,000 Ragnar seats): Ragnar's rate
    agrees with the quote and lies more than 4 SE above 1/4. Why this n is enough: SE is about
    0.23 pp, so the check allows 1.3 pp either side of the quote while the smallest quoted gain
    is 3.5 pp (15 SE)."""
    res = _run(50_000, FRESH, **option)
    d = res.summary["win_rate_by_character"]["ragnar"]
    se = math.sqrt(quoted * (1 - quoted) / d["games"])
    _close_to_quote(d["win_rate"], quoted, se, 0.0005)
    assert d["win_rate"] > 0.25 + 4 * math.sqrt(0.25 * 0.75 / d["games"])


@pytest.mark.slow
def test_seat_edge_and_game_length_four_players():
    """Fresh seed, the notebook's n (100,000 4-player games): seat 1's rate, the mean length and
    the share of games in 10-15 rounds agree with the quotes; seat 1 lies more than 4 SE above
    1/4. Why this n is enough: SE(seat 1) = 0.14 pp against a quoted edge of 1.2 pp (9 SE);
    SE(mean rounds) = 0.008 rounds; SE(share) = 0.15 pp."""
    n = 100_000
    res = _run(n, FRESH)
    seat1 = res.summary["win_rate"][1]
    _close_to_quote(seat1, 0.262, math.sqrt(0.262 * 0.738 / n), 0.0005)
    assert seat1 > 0.25 + 4 * math.sqrt(0.25 * 0.75 / n)
    rounds = res.frame.rounds.to_numpy()
    _close_to_quote(rounds.mean(), 14.71, rounds.std() / math.sqrt(n), 0.005)
    share = np.mean((rounds >= 10) & (rounds <= 15))
    _close_to_quote(share, 0.659, math.sqrt(0.659 * 0.341 / n), 0.0005)


@pytest.mark.slow
def test_two_players_seat_edge_is_small():
    """The notebook: with 2 players seat 1 wins only 50.31% (n = 400,000). Fresh seed, the
    notebook's n: seat 1 agrees with the quote and is above 1/2. Why this n is enough: SE =
    0.079 pp, so the check allows 0.45 pp either side of the quote, and the quoted 0.31-pp edge
    is 3.9 SE from 1/2 (100,000 games, SE 0.16 pp, could not tell it from 1/2)."""
    n = 400_000
    res = _run(n, FRESH, players=2)
    seat1 = res.summary["win_rate"][1]
    _close_to_quote(seat1, 0.5031, math.sqrt(0.25 / n), 0.00005)
    assert seat1 > 0.5


@pytest.mark.slow
def test_seat_number_matters_beside_turn_order():
    """The notebook: at 4 players with first_seat = 2, seat 3 wins 29.6% (50,000 games). Fresh
    seed, that n: seat 3 agrees with the quote and beats 1/4 by more than 4 SE, seat 0 falls more
    than 4 SE below it. Why this n is enough: SE = 0.2 pp against edges of 4-5 pp."""
    n = 50_000
    rates = _run(n, FRESH, first_seat=2).summary["win_rate"]
    se = math.sqrt(0.25 * 0.75 / n)
    _close_to_quote(rates[3], 0.296, math.sqrt(0.296 * 0.704 / n), 0.0005)
    assert rates[3] > 0.25 + 4 * se and rates[0] < 0.25 - 4 * se


@pytest.mark.slow
def test_earl_beats_hints():
    """The notebook's tournament cell, fresh seed, its n (2,000 games per lineup, 8,000 per
    cell): a lone earl among three hints agrees with the quoted 38.1% and beats the fair 1/4 by
    more than 4 SE (SE = 0.54 pp against a 13-point edge)."""
    from vikingsim.studies.tournament import run_tournament

    t = run_tournament("raidconquer", ["hints", "earl"], players=4, n=2_000, seed=FRESH,
                       options={"rotate_characters": True})
    rate = float(t.matrix.loc["earl", "hints"])
    games = 8_000
    _close_to_quote(rate, 0.381, math.sqrt(0.381 * 0.619 / games), 0.0005)
    assert rate > 0.25 + 4 * math.sqrt(0.25 * 0.75 / games)
