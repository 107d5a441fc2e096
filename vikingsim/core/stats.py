"""Intervals and standard errors used by every summary and test."""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (default 95%)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = 0.0 if k <= 0 else max(0.0, centre - half)      # exact ends: no 4e-19 from rounding
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return (lo, hi)


def mean_sd(x: np.ndarray) -> tuple[float, float, float]:
    """Mean, sample sd and standard error of the mean."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    sd = float(x.std(ddof=1)) if x.size > 1 else 0.0
    return float(x.mean()), sd, sd / math.sqrt(x.size)


def hist_mean_sd(counts) -> tuple[float, float, float]:
    """Mean, sample sd and standard error of the mean of integer values 0, 1, 2, ... given by
    their counts (a histogram, e.g. a tally's): the same as ``mean_sd`` of the values."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    values = np.arange(counts.size, dtype=np.float64)
    mean = float(int((np.arange(counts.size, dtype=np.int64) * counts).sum()) / n)
    if n == 1:
        return mean, 0.0, 0.0
    sd = math.sqrt(float((counts * (values - mean) ** 2).sum()) / (n - 1))
    return mean, sd, sd / math.sqrt(n)


def paired_diff(a: np.ndarray, b: np.ndarray) -> dict:
    """Mean of a-b per game (common random numbers) with SE and 95% normal interval."""
    m, sd, se = mean_sd(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    return {"diff": m, "se": se, "ci": [m - Z95 * se, m + Z95 * se]}


def put_fraction(summary: dict, key: str, k: int, n: int) -> None:
    """``summary[key] = k/n`` and ``summary[key + "_ci"]`` = its Wilson 95% interval."""
    summary[key] = k / n
    summary[key + "_ci"] = list(wilson(k, n))


def put_mean(summary: dict, key: str, x) -> None:
    """``summary[key]`` = mean of x and ``summary[key + "_ci"]`` = its normal 95% interval."""
    m, _, se = mean_sd(x)
    summary[key] = m
    summary[key + "_ci"] = [m - Z95 * se, m + Z95 * se]


def histogram(x) -> np.ndarray:
    """Counts of each non-negative integer value of ``x`` (a tally's histogram)."""
    x = np.asarray(x).astype(np.int64, copy=False)
    if x.size and x.min() < 0:
        raise ValueError("histogram of negative values")
    return np.bincount(x)


def put_mean_hist(summary: dict, key: str, counts) -> None:
    """``put_mean`` from a histogram of integer values (``histogram``)."""
    m, _, se = hist_mean_sd(counts)
    summary[key] = m
    summary[key + "_ci"] = [m - Z95 * se, m + Z95 * se]


def put_ratio(summary: dict, key: str, n: int, sa: int, sb: int, saa: int, sbb: int,
              sab: int) -> None:
    """``summary[key]`` = R = sa / sb, a ratio of two per-game sums (e.g. points of one kind
    over all points), ``key + "_se"`` its standard error and ``key + "_ci"`` its normal 95%
    interval, from the integer counts: n games, the sums of a_g and b_g and of a_g^2, b_g^2,
    a_g b_g. The games are the sampling units, so a_g and b_g of one game are correlated and
    the ratio is no binomial proportion: the variance is the ratio estimator's (delta method,
    Cochran, *Sampling Techniques*, 3rd ed., §6.3), Var R = s_e^2 / (n bbar^2) with the
    residuals e_g = a_g - R b_g (mean 0), s_e^2 = (saa - 2 R sab + R^2 sbb) / (n - 1).
    NaN se and interval when sb = 0 or n < 2."""
    if sb == 0 or n < 2:
        summary[key], summary[key + "_se"] = (sa / sb if sb else 0.0), math.nan
        summary[key + "_ci"] = [math.nan, math.nan]
        return
    r = sa / sb
    s2 = max((saa - 2.0 * r * sab + r * r * sbb) / (n - 1), 0.0)
    se = math.sqrt(s2 / n) / (sb / n)
    summary[key], summary[key + "_se"] = r, se
    summary[key + "_ci"] = [r - Z95 * se, r + Z95 * se]


def multipletests(p, alpha: float, method: str):
    """``statsmodels.stats.multitest.multipletests(p, alpha=alpha, method=method)``, the same
    result, without the cost of the full ``gc.collect()`` its Holm branch makes on every call
    (0.2 s each in a process holding numpy, pandas, scipy and the kernels: 16 of a report
    test file's 88 s of CPU). The objects alive before the call are frozen (``gc.freeze``),
    so that collection looks only at the few the call itself makes."""
    import gc

    from statsmodels.stats.multitest import multipletests as sm_multipletests

    gc.freeze()
    try:
        return sm_multipletests(p, alpha=alpha, method=method)
    finally:
        gc.unfreeze()
