"""Balance statistics for batch experiments, taken from the libraries that own them.

Intervals, the equal-seats test and the pairwise exact binomial tests come from scipy;
multiple-testing correction and sample-size planning from statsmodels. Only the SPRT is
written by hand (no maintained library has it). Bad input raises ``InputError`` naming the problem. scipy, statsmodels
and pandas are imported inside the functions that use them, so ``import vikingsim`` stays light.
"""
from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError

_CI_METHODS = ("wilson", "clopper-pearson")


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
    if method == "clopper-pearson":
        return _clopper_pearson(int(k), int(n), level)
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return (float(ci.low), float(ci.high))


def _clopper_pearson(k: int, n: int, level: float) -> tuple[float, float]:
    """The exact interval as beta quantiles: [Beta(a/2; k, n-k+1), Beta(1-a/2; k+1, n-k)].
    scipy's ``binomtest(...).proportion_ci("exact")`` finds the same bounds with a root finder
    whose absolute tolerance (~2e-12) swamps them at huge n (k=1, n=1e12 gave a lower bound
    of 0); ``beta.ppf`` inverts the incomplete beta function to full relative precision."""
    from scipy.stats import beta
    tail = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1.0 - tail, k + 1, n - k))
    return (lo, hi)


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


def _exact_p(a: int, b: int) -> float:
    """Two-sided exact binomial p-value of a wins against b among the a + b games either won
    (1 when neither won a game: nothing to compare)."""
    from scipy.stats import binomtest
    return 1.0 if a + b == 0 else float(binomtest(a, a + b, 0.5).pvalue)


def pairwise_seats(wins: list[int], n_games: int, method: str = "holm",
                   alpha: float = 0.05) -> pd.DataFrame:
    """One row per seat pair (a < b): win rates over all n_games, diff = rate_a - rate_b, the
    wins of each among the games won by either (``wins_a``, ``wins_b``), the exact binomial
    test of wins_a ~ Binomial(wins_a + wins_b, 1/2) and its ``multipletests`` correction
    (default Holm).

    The test conditions on the games: the seats of one game are multinomial, so given that a
    or b won, a's wins are binomial with p = p_a / (p_a + p_b), which is 1/2 exactly when the
    two seats are equal. (A two-proportion z-test would treat the two seats as independent
    samples; their counts are negatively correlated, and it rejected 8.95% of equal pairs at
    nominal 5% with 4 seats.)"""
    import pandas as pd
    from vikingsim.core.stats import multipletests
    wins = _check_wins(wins, n_games)
    _check_open01("alpha", alpha)
    rows = []
    for a, b in combinations(range(len(wins)), 2):
        ra, rb = wins[a] / n_games, wins[b] / n_games
        rows.append({"seat_a": a, "seat_b": b, "rate_a": ra, "rate_b": rb, "diff": ra - rb,
                     "wins_a": wins[a], "wins_b": wins[b], "p_value": _exact_p(wins[a], wins[b])})
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
    or below). Checked once per batch the test stays valid but grows conservative: its errors
    fall below alpha and beta (``error_rates(batch)`` gives them exactly)."""

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

    def error_rates(self, chunk: int, tol: float = 1e-13) -> tuple[float, float]:
        """The actual (alpha, beta) when ``update`` is called once every ``chunk`` games (as
        ``--stop-when-decided`` does, once per chunk): exact, by dynamic programming over the
        wins while undecided (binomial steps from scipy). Wald's bounds hold for any checking
        interval, but checking less often than every game lets the ratio overshoot them, so
        the errors fall below alpha and beta: the test is valid but conservative."""
        if not isinstance(chunk, int) or chunk < 1:
            raise InputError(f"chunk must be an int >= 1, got {chunk!r}")
        return (self._wrong_rate(self.p0, chunk, tol)[0], self._wrong_rate(self.p1, chunk, tol)[1])

    def _wrong_rate(self, p: float, chunk: int, tol: float) -> tuple[float, float]:
        """(P(accept H1), P(accept H0)) at true rate p, one check every ``chunk`` games."""
        from scipy.stats import binom
        step = binom.pmf(np.arange(chunk + 1), chunk, p)
        dist, k0, n, h1, h0 = np.array([1.0]), 0, 0, 0.0, 0.0   # P(wins = k0 + i, undecided)
        while dist.sum() > tol:
            dist, n = np.convolve(dist, step), n + chunk
            k = k0 + np.arange(len(dist))
            llr = k * self._win + (n - k) * self._loss
            h1, h0 = h1 + dist[llr >= self.A].sum(), h0 + dist[llr <= self.B].sum()
            go = np.flatnonzero((llr > self.B) & (llr < self.A))
            if not len(go):
                break
            dist, k0 = dist[go[0]:go[-1] + 1], int(k[go[0]])
        return float(h1), float(h0)

    def update(self, k: int, n: int) -> str:
        """Decision after cumulative k wins in n games: "accept_h0" | "accept_h1" | "continue"."""
        _check_counts(k, n)
        self.llr = k * self._win + (n - k) * self._loss
        if self.llr >= self.A:
            return "accept_h1"
        if self.llr <= self.B:
            return "accept_h0"
        return "continue"
