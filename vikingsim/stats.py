"""Public statistics for balance questions (``from vikingsim import stats``).

Everything here comes from the libraries that own it (scipy.stats, statsmodels) except the
sequential test, which no maintained library offers; the implementations and their tests
live in ``vikingsim/core/balance_stats.py``:

- ``interval(k, n, method="wilson"|"clopper-pearson")``: binomial interval (scipy.stats:
  binomtest for Wilson, beta quantiles for Clopper-Pearson);
- ``equal_seats_test(wins, n_games)``: chi-square test that every seat wins equally often;
- ``pairwise_seats(wins, n_games, method="holm")``: seat-vs-seat exact binomial tests on the
  games either seat won (scipy.stats.binomtest), multiplicity-corrected
  (statsmodels.stats.multitest);
- ``games_needed(p1, p2, power, alpha)``: games per arm to detect p1 vs p2
  (statsmodels.stats.power);
- ``SPRT``: Wald's sequential probability ratio test on a proportion (hand-written).

The summaries' own helpers (``wilson``, ``mean_sd``, ``paired_diff``, ...) come from
``vikingsim/core/stats.py`` and are exposed here too, so ``vikingsim.stats`` is one name.
"""
from vikingsim.core.balance_stats import (SPRT, SeatTest, equal_seats_test, games_needed,
                                          interval, pairwise_seats)
from vikingsim.core.stats import hist_mean_sd, mean_sd, paired_diff, wilson

__all__ = ["SPRT", "SeatTest", "equal_seats_test", "games_needed", "interval", "pairwise_seats",
           "hist_mean_sd", "mean_sd", "paired_diff", "wilson"]
