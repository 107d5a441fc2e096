"""Designer questions as tidy frames: seat advantage, variants, policies head to head.

Every function runs ``vikingsim.simulate`` with explicit seeds, so its numbers regenerate; every
proportion comes with its Wilson 95% interval and ``n``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from vikingsim.core import config, stats
from vikingsim.core.runner import simulate


def seat_win_rates(game: str = "raidboard", players=(2, 3, 4, 5, 6), *, n: int = 100_000,
                   seed: int = config.SEED, policies="greedy", options=None) -> pd.DataFrame:
    """Win rate of every seat for each player count: columns players, seat, wins, n, p, lo,
    hi, fair (1/players), edge (p - fair); truncated games count for nobody."""
    rows = []
    for k in players:
        r = simulate(game, n, seed=seed, players=k, policies=policies, options=options)
        wins = np.bincount(r.out["winner"][r.out["winner"] >= 0].astype(np.int64), minlength=k)
        for seat in range(k):
            lo, hi = stats.wilson(int(wins[seat]), n)
            rows.append({"players": k, "seat": seat, "wins": int(wins[seat]), "n": n,
                         "p": wins[seat] / n, "lo": lo, "hi": hi, "fair": 1 / k,
                         "edge": wins[seat] / n - 1 / k})
    return pd.DataFrame(rows)


def game_lengths(game: str = "raidboard", *, players: int = 4, n: int = 100_000,
                 seed: int = config.SEED, policies="greedy", options=None) -> pd.DataFrame:
    """Per-game frame (``rounds``, ``winner``, ``truncated``, ...) of one configuration."""
    return simulate(game, n, seed=seed, players=players, policies=policies,
                    options=options).frame


def head_to_head(challenger: str, field: str, *, game: str = "raidboard", players: int = 4,
                 n: int = 100_000, seed: int = config.SEED, options=None) -> pd.DataFrame:
    """One ``challenger`` seat against ``players - 1`` ``field`` seats, rotated through every
    seat (n games each, the same seed: common dice). Returns one row per seat plus an
    ``all`` row: challenger win rate, interval, and the fair share 1/players."""
    rows, total_w = [], 0
    for seat in range(players):
        pols = [field] * players
        pols[seat] = challenger
        r = simulate(game, n, seed=seed, players=players, policies=pols, options=options)
        w = int((r.out["winner"] == seat).sum())
        total_w += w
        lo, hi = stats.wilson(w, n)
        rows.append({"challenger": challenger, "field": field, "seat": str(seat), "wins": w,
                     "n": n, "p": w / n, "lo": lo, "hi": hi, "fair": 1 / players})
    lo, hi = stats.wilson(total_w, n * players)
    rows.append({"challenger": challenger, "field": field, "seat": "all", "wins": total_w,
                 "n": n * players, "p": total_w / (n * players), "lo": lo, "hi": hi,
                 "fair": 1 / players})
    return pd.DataFrame(rows)
