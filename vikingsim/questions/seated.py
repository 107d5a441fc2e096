"""Designer questions for any seated game (``GameSpec.seated``: one winner seat per game, or
none): seat advantage by player count, one policy against a field with seat rotation on common
seeds, and game length (the per-game frame, for any game).

Win rates come from the run's summary (``win_rate``/``win_rate_ci``: Wilson 95% intervals over
all n games; truncated games count for nobody), so any n runs in bounded memory.
"""
from __future__ import annotations

import pandas as pd

from vikingsim.core import config
from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec, tally_counts
from vikingsim.core.runner import simulate


def _seated(game) -> GameSpec:
    from vikingsim.games import get

    spec = game if isinstance(game, GameSpec) else get(game)
    if not spec.seated:
        raise InputError(f"{spec.name} is not a seated game (no winner seat per game): seat "
                         f"questions do not apply; compare its p_<outcome> summary keys instead")
    return spec


def _seat_rows(res, players: int) -> list[dict]:
    """One row per seat of a run: its wins (integer counts of the tally), rate and interval."""
    wins, summary = tally_counts(res.spec, res.tally, res.n).wins, res.summary
    rows = []
    for seat in range(players):
        p = summary["win_rate"][seat]
        lo, hi = summary["win_rate_ci"][seat]
        rows.append({"seat": seat, "wins": int(wins[seat]), "n": res.n, "p": p, "lo": lo, "hi": hi,
                     "fair": 1 / players})
    return rows


def seat_win_rates(game="raidboard", players=(2, 3, 4, 5, 6), *, n: int = 100_000,
                   seed: int = config.SEED, policies=None, options=None,
                   threads: int | None = None) -> pd.DataFrame:
    """Win rate of every seat for each player count (one run of ``n`` games per count, all
    with ``seed``): columns players, seat, wins, n, p, lo, hi, fair (1/players), edge
    (p - fair). ``policies`` as for ``simulate`` (default: the game's default policy)."""
    spec = _seated(game)
    rows = []
    for k in players:
        s = simulate(spec, n, seed=seed, players=k, policies=policies, options=options,
                     threads=threads, keep=False)
        rows += [{"players": k, **r, "edge": r["p"] - r["fair"]} for r in _seat_rows(s, k)]
    return pd.DataFrame(rows)


def head_to_head(challenger: str, field: str, *, game="raidboard", players: int = 4,
                 n: int = 100_000, seed: int = config.SEED, options=None,
                 threads: int | None = None) -> pd.DataFrame:
    """One ``challenger`` seat against ``players - 1`` ``field`` seats, rotated through every
    seat: ``n`` games per seat, all on ``seed`` (common dice, so the seat advantage cancels in
    the ``all`` row). Policies are texts (``"lookahead(settle_value=10)"``). One row per seat
    plus ``all``: challenger wins, n, p with Wilson interval, and the fair share 1/players."""
    from vikingsim.core import stats

    spec = _seated(game)
    rows, total = [], 0
    for seat in range(players):
        pols = [field] * players
        pols[seat] = challenger
        s = simulate(spec, n, seed=seed, players=players, policies=pols, options=options,
                     threads=threads, keep=False)
        row = _seat_rows(s, players)[seat]
        total += row["wins"]
        rows.append({"challenger": challenger, "field": field, **row, "seat": str(seat)})
    lo, hi = stats.wilson(total, n * players)
    rows.append({"challenger": challenger, "field": field, "seat": "all", "wins": total,
                 "n": n * players, "p": total / (n * players), "lo": lo, "hi": hi,
                 "fair": 1 / players})
    return pd.DataFrame(rows)


def game_lengths(game="raidboard", *, players: int | None = None, n: int = 100_000,
                 seed: int = config.SEED, policies=None, options=None,
                 threads: int | None = None) -> pd.DataFrame:
    """The per-game frame of one configuration of any game (``game_id``, ``outcome``,
    ``truncated``, its length column such as the raid board's ``rounds``, ...)."""
    return simulate(game, n, seed=seed, players=players, policies=policies, options=options,
                    threads=threads).frame
