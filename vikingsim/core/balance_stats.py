"""Balance statistics for batch experiments, taken from the libraries that own them.

Intervals and the equal-seats test come from scipy, pairwise tests, multiple-testing correction
and sample-size planning from statsmodels. Only the SPRT is written by hand (no maintained
library has it). Bad input raises ``InputError`` naming the problem. scipy, statsmodels and
pandas are imported inside the functions that use them, so ``import vikingsim`` stays light.
"""
from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple

from vikingsim.core.errors import InputError

_CI_METHODS = {"wilson": "wilson", "clopper-pearson": "exact"}


# ---- input checks ---------------------------------------------------------------------------
def _check_counts(k: int, n: int) -> None:
    if n <= 0:
        raise InputError(f"n must be > 0, got n={n}")
    if k < 0 or k > n:
        raise InputError(f"k must be in 0..n, got k={k}, n={n}")


def _check_open01(name: str, x: float) -> None:
    if not 0.0 < x < 1.0:
        raise InputError(f"{name} must be in (0, 1), got {name}={x}")


def _check_wins(wins, n_games: int) -> list[int]:
    wins = [int(w) for w in wins]
    if n_games <= 0:
        raise InputError(f"n_games must be > 0, got n_games={n_games}")
    if len(wins) < 2:
        raise InputError(f"wins needs at least 2 seats, got {len(wins)}")
    if min(wins) < 0:
        raise InputError(f"wins must be >= 0, got {wins}")
    if sum(wins) > n_games:
        raise InputError(f"sum(wins)={sum(wins)} exceeds n_games={n_games}")
    return wins


# ---- intervals and tests --------------------------------------------------------------------
def interval(k: int, n: int, method: str = "wilson", level: float = 0.95) -> tuple[float, float]:
    """Confidence interval for k successes in n trials: "wilson" or "clopper-pearson" (exact)."""
    from scipy.stats import binomtest

    _check_counts(k, n)
    _check_open01("level", level)
    if method not in _CI_METHODS:
        raise InputError(f"method must be one of {sorted(_CI_METHODS)}, got {method!r}")
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method=_CI_METHODS[method])
    return (float(ci.low), float(ci.high))


class SeatTest(NamedTuple):
    statistic: float
    pvalue: float
    n_decided: int


def equal_seats_test(wins: list[int], n_games: int) -> SeatTest:
    """Chi-square goodness of fit: every seat wins 1/k of the decided games (draws excluded)."""
    from scipy.stats import chisquare

    wins = _check_wins(wins, n_games)
    if sum(wins) == 0:
        raise InputError("no decided games: sum(wins) is 0")
    res = chisquare(wins)  # expected = sum(wins)/k per seat
    return SeatTest(float(res.statistic), float(res.pvalue), sum(wins))


def _ztest_p(a: int, b: int, n: int) -> tuple[float, float]:
    """Pooled two-proportion z-test of a/n vs b/n; (z, p). A pooled rate of 0 or 1 means both
    rates are equal with zero variance: z = 0, p = 1 (statsmodels would give nan)."""
    from statsmodels.stats.proportion import proportions_ztest

    if a + b in (0, 2 * n):
        return 0.0, 1.0
    z, p = proportions_ztest([a, b], [n, n])
    return float(z), float(p)


def pairwise_seats(wins: list[int], n_games: int, method: str = "holm",
                   alpha: float = 0.05) -> pd.DataFrame:
    """One row per seat pair (a < b): win rates over all n_games, diff = rate_a - rate_b, the
    two-proportion z-test p-value and its ``multipletests`` correction (default Holm).

    Caveat: the z-test treats the two seats' win counts as independent samples; seats of the same
    games are negatively correlated (multinomial), so its p-values are somewhat too small."""
    import pandas as pd
    from statsmodels.stats.multitest import multipletests

    wins = _check_wins(wins, n_games)
    _check_open01("alpha", alpha)
    rows = []
    for a, b in combinations(range(len(wins)), 2):
        z, p = _ztest_p(wins[a], wins[b], n_games)
        ra, rb = wins[a] / n_games, wins[b] / n_games
        rows.append({"seat_a": a, "seat_b": b, "rate_a": ra, "rate_b": rb,
                     "diff": ra - rb, "z": z, "p_value": p})
    df = pd.DataFrame(rows)
    try:
        reject, p_adj, _, _ = multipletests(df["p_value"].to_numpy(), alpha=alpha, method=method)
    except ValueError as e:
        raise InputError(f"unknown multiple-testing method {method!r}: {e}") from None
    df["p_adjusted"] = p_adj
    df["reject"] = reject
    return df


def games_needed(p1: float, p2: float, power: float = 0.8, alpha: float = 0.05,
                 two_sample: bool = True) -> int:
    """Games per arm for a two-sided test at ``alpha`` to detect p1 vs p2 with ``power``
    (normal approximation on Cohen's h). ``two_sample=True``: two independent arms of that many
    games each; ``two_sample=False``: one arm tested against the fixed rate p2."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    for name, x in (("p1", p1), ("p2", p2), ("power", power), ("alpha", alpha)):
        _check_open01(name, x)
    if p1 == p2:
        raise InputError(f"p1 and p2 must differ, got p1=p2={p1}")
    h = proportion_effectsize(p1, p2)
    n = NormalIndPower().solve_power(effect_size=abs(h), power=power, alpha=alpha,
                                     ratio=1.0 if two_sample else 0.0, alternative="two-sided")
    return int(math.ceil(n))


# ---- sequential test ------------------------------------------------------------------------
class SPRT:
    """Wald's sequential probability ratio test on a proportion: H0 p=p0 v H1 p=p1.

    Written by hand: no maintained library (scipy, statsmodels) provides an SPRT. After each
    batch call ``update(k, n)`` with the cumulative wins k of n games. The log likelihood ratio
    llr = k log(p1/p0) + (n-k) log((1-p1)/(1-p0)) is compared with Wald's boundaries
    A = log((1-beta)/alpha) (accept H1 at or above) and B = log(beta/(1-alpha)) (accept H0 at
    or below)."""

    def __init__(self, p0: float, p1: float, alpha: float = 0.05, beta: float = 0.05):
        for name, x in (("p0", p0), ("p1", p1), ("alpha", alpha), ("beta", beta)):
            _check_open01(name, x)
        if p0 == p1:
            raise InputError(f"p0 and p1 must differ, got p0=p1={p0}")
        if alpha + beta >= 1:
            raise InputError(f"alpha + beta must be < 1, got {alpha} + {beta}")
        self.p0, self.p1, self.alpha, self.beta = p0, p1, alpha, beta
        self.A = math.log((1 - beta) / alpha)
        self.B = math.log(beta / (1 - alpha))
        self._win = math.log(p1 / p0)
        self._loss = math.log((1 - p1) / (1 - p0))
        self.llr = 0.0

    def update(self, k: int, n: int) -> str:
        """Decision after cumulative k wins in n games: "accept_h0" | "accept_h1" | "continue"."""
        _check_counts(k, n)
        self.llr = k * self._win + (n - k) * self._loss
        if self.llr >= self.A:
            return "accept_h1"
        if self.llr <= self.B:
            return "accept_h0"
        return "continue"
