"""The noise of Ragnarok's ``giant_share`` (the Giants' points over all points, §4.6): its
standard error and 95% interval from the tally's integer counts (``stats.put_ratio``, the
ratio estimator's delta-method variance with the game as the sampling unit).

- By hand: the same figure computed here from the per-game rows (numpy), and near scipy's
  bootstrap standard error of the ratio of sums over resampled games.
- Calibration: the spread of giant_share over 300 independent runs of 300 games agrees
  with the standard error the summary reports (the variance ratio within its chi-square
  99.9% range, 299 degrees of freedom: about 0.75 to 1.29). A standard error that treated
  the points as independent draws (a binomial share of the ~50 points a game) is about 0.8
  of the right one at 4 players (variance ratio about 1.5) and fails it (seen).
"""
import numpy as np
import pytest
from scipy import stats

from vikingsim.core.runner import simulate
from vikingsim.games import tevragnarok as T

PLAYERS = 4


def _per_game(res):
    f = res.frame
    g = sum(f[f"giant_points_{s}"].astype(np.int64) for s in range(PLAYERS)).to_numpy()
    sc = sum(f[f"score_{s}"].astype(np.int64) for s in range(PLAYERS)).to_numpy()
    return g, sc


def test_se_and_interval_by_hand_and_near_the_bootstrap():
    res = simulate("tevragnarok", 4000, seed=7, players=PLAYERS, keep=True)
    g, sc = _per_game(res)
    n = len(g)
    r = g.sum() / sc.sum()
    e = g - r * sc                                   # residuals of the ratio estimator
    se = np.sqrt(e.var(ddof=1) / n) / sc.mean()
    s = res.summary
    assert s["giant_share"] == pytest.approx(r, rel=1e-12)
    assert s["giant_share_se"] == pytest.approx(se, rel=1e-9)
    assert s["giant_share_ci"] == pytest.approx([r - 1.959963984540054 * se,
                                                 r + 1.959963984540054 * se], rel=1e-9)
    boot = stats.bootstrap((g, sc), lambda a, b: a.sum() / b.sum(), paired=True,
                           vectorized=False, n_resamples=999,
                           random_state=np.random.default_rng(3), method="percentile")
    assert boot.standard_error == pytest.approx(se, rel=0.15)


def test_reported_se_matches_the_spread_over_independent_runs():
    seeds = np.random.SeedSequence(2026).generate_state(300)      # independent root seeds
    runs = [simulate("tevragnarok", 300, seed=int(k), players=PLAYERS).summary for k in seeds]
    shares = np.array([r["giant_share"] for r in runs])
    se2 = np.mean([r["giant_share_se"] ** 2 for r in runs])
    ratio = shares.var(ddof=1) / se2
    lo, hi = stats.chi2.ppf([0.0005, 0.9995], 299) / 299
    assert lo < ratio < hi, (ratio, lo, hi)


def test_a_tally_stored_before_the_moments_has_no_noise_estimate():
    res = simulate("tevragnarok", 500, seed=1, players=PLAYERS)
    t = {k: v for k, v in res.tally.items() if k != "giant_moments"}
    s = T.GAME.summarize(res.setup, t, 500)
    assert s["giant_share"] == pytest.approx(res.summary["giant_share"], rel=1e-12)
    assert "giant_share_se" not in s and "giant_share_ci" not in s
