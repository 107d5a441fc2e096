"""Tidy frames of a study's counts (``counts.count_games``): win rates by seat or side with
Wilson 95 % intervals and the equal-chances tests, pooled by policy and by knob value, outcome
shares and game lengths; and the grid's shape (which two knobs a heatmap spans)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from vikingsim.core import stats
from vikingsim.core.balance_stats import equal_seats_test, interval
from vikingsim.core.game import GameSpec
from vikingsim.studies.report.counts import CellCount, StudyView, add_hist
from vikingsim.studies.report.labels import cell_label, scalar

ALPHA = 0.05


def build_tables(study: StudyView, counts: dict) -> dict:
    """Every table of the generic page, by name: contenders (with ``findings.margins``),
    tests, comparisons (``findings.comparisons`` per knob but players), policies, knobs,
    outcomes, lengths."""
    from vikingsim.studies.findings import comparisons, margins

    cf = margins(contender_frame(study, counts))
    cmp = {k: comparisons(study, cf, k) for k in study.keys if k != "players"} \
        if not cf.empty else {}
    return {"contenders": cf, "tests": cell_tests(cf) if not cf.empty else pd.DataFrame(),
            "comparisons": cmp,
            "policies": policy_frame(cf), "knobs": knob_frame(study, cf),
            "outcomes": outcome_frame(study, counts),
            "lengths": length_frame(study, counts)}


def _contenders(spec: GameSpec, cell: dict, acc: CellCount):
    """(names, wins, policies) of who can win a game: seats of a seated game, or the sides
    of a game whose outcomes include several ``<side>_win``."""
    if spec.seated:
        k = int(cell["players"])
        wins = np.zeros(k, np.int64) if acc.wins is None else np.pad(acc.wins, (0, k))[:k]
        pols = [str(p) for p in cell["policies"]] + [""] * k
        return [f"seat {i}" for i in range(k)], [int(w) for w in wins], pols[:k]
    sides = [o for o in spec.outcomes if o.endswith("_win")]
    if len(sides) < 2:
        return [], [], []
    return ([f"side {o[:-4]}" for o in sides], [acc.outcomes.get(o, 0) for o in sides],
            [""] * len(sides))


def contender_frame(study: StudyView, counts: dict) -> pd.DataFrame:
    """One row per (cell, seat or side): wins of all games with a Wilson 95 % interval, the
    fair share (decided games split evenly) and the difference from it."""
    rows = []
    for cell in study.cells:
        acc = counts[cell["cell"]]
        names, wins, pols = _contenders(study.spec, cell, acc)
        if acc.games == 0 or len(names) < 2:
            continue
        fair = sum(wins) / acc.games / len(names)
        for who, k, pol in zip(names, wins, pols):
            lo, hi = interval(k, acc.games)
            rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                         "players": cell["players"], "who": who, "policy": pol, "wins": k,
                         "games": acc.games, "rate": k / acc.games, "lo": lo, "hi": hi,
                         "fair": fair, "diff": k / acc.games - fair,
                         "outside": not lo <= fair <= hi})
    return pd.DataFrame(rows)


def cell_tests(cf: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the equal-seats chi-square on the decided games, its p-value Holm-adjusted
    over the cells, and whether it rejects equal chances at ``ALPHA``."""
    from vikingsim.core.stats import multipletests

    rows = []
    for cell, g in cf.groupby("cell", sort=False):
        if g["wins"].sum() == 0:
            continue
        t = equal_seats_test(g["wins"].tolist(), int(g["games"].iloc[0]))
        rows.append({"cell": cell, "chi2": t.statistic, "p": t.pvalue, "decided": t.n_decided})
    out = pd.DataFrame(rows, columns=["cell", "chi2", "p", "decided"])
    if len(out):
        adj = multipletests(out["p"].to_numpy(), alpha=ALPHA, method="holm")[1]
        out["p_holm"], out["reject"] = adj, adj < ALPHA      # decided on the p-value shown
    return out.set_index("cell")


def policy_frame(cf: pd.DataFrame) -> pd.DataFrame:
    """Wins per policy label over every seat-game it played (all cells), with a Wilson 95 %
    interval and the fair share averaged over those seat-games; empty unless the study has
    two or more policies."""
    if cf.empty or cf["policy"].nunique() < 2:
        return pd.DataFrame()
    return _pooled(cf, ["policy"]).sort_values("rate", ascending=False)


def knob_frame(study: StudyView, cf: pd.DataFrame) -> pd.DataFrame:
    """Wins per (knob, value, seat or side) pooled over every cell with that value of the
    knob (the other knobs' values pooled), with a Wilson 95 % interval and the pooled fair
    share; empty unless the study varies two or more knobs."""
    if cf.empty or len(study.keys) < 2:
        return pd.DataFrame()
    parts = [_pooled(cf.assign(knob=key, value=[str(scalar(g.get(key))) for g in cf["grid"]]),
                     ["knob", "value", "who"]) for key in study.keys]
    return pd.concat(parts, ignore_index=True)


def _pooled(cf: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Wins and games summed over ``by`` groups: rate, Wilson 95 % interval, the fair share
    averaged over the games, and the difference."""
    cf = cf.assign(fair_games=cf["fair"] * cf["games"])
    g = cf.groupby(by, sort=False)[["wins", "games", "fair_games"]].sum().reset_index()
    ci = [interval(int(k), int(n)) for k, n in zip(g["wins"], g["games"])]
    g["rate"] = g["wins"] / g["games"]
    g["lo"], g["hi"] = [c[0] for c in ci], [c[1] for c in ci]
    g["fair"] = g["fair_games"] / g["games"]
    g["diff"] = g["rate"] - g["fair"]
    return g.drop(columns="fair_games")


def outcome_frame(study: StudyView, counts: dict) -> pd.DataFrame:
    """One row per (cell, outcome) of the game's vocabulary (plus any other outcome found),
    with a Wilson 95 % interval."""
    rows = []
    for cell in study.cells:
        acc = counts[cell["cell"]]
        if acc.games == 0:
            continue
        names = list(study.spec.outcomes) + [o for o in acc.outcomes
                                              if o not in study.spec.outcomes]
        for o in names:
            k = acc.outcomes.get(o, 0)
            lo, hi = interval(k, acc.games)
            rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                         "outcome": o, "k": k, "games": acc.games, "rate": k / acc.games,
                         "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def length_frame(study: StudyView, counts: dict) -> pd.DataFrame:
    """Per cell: mean game length with a normal 95 % interval, median, 90th percentile, max."""
    rows = []
    for cell in study.cells:
        h = counts[cell["cell"]].length
        if h is None or h.sum() == 0:
            continue
        rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                     **hist_stats(h)})
    return pd.DataFrame(rows)


def hist_stats(h: np.ndarray) -> dict:
    """Games, mean with its normal 95 % interval, median, 90th percentile and max of a
    histogram of lengths."""
    mean, _, se = stats.hist_mean_sd(h)
    cum = np.cumsum(h) / h.sum()
    return {"games": int(h.sum()), "mean": mean, "lo": mean - stats.Z95 * se,
            "hi": mean + stats.Z95 * se, "median": int(np.searchsorted(cum, 0.5)),
            "p90": int(np.searchsorted(cum, 0.9)), "max": int(np.flatnonzero(h)[-1])}


def pooled_length(counts: dict) -> np.ndarray:
    """The length histogram of every cell's games together."""
    h = None
    for acc in counts.values():
        if acc.length is not None:
            h = add_hist(h, acc.length)
    return h


def knob_values(df: pd.DataFrame, key: str) -> list:
    """The knob's value in each row (lists and tables as their JSON text)."""
    return [scalar(g.get(key)) for g in df["grid"]]


def two_knob_grid(study: StudyView, df: pd.DataFrame) -> bool:
    """Whether ``df`` covers several cells of an exactly-two-knob grid, one cell per pair."""
    if len(study.keys) != 2 or df["cell"].nunique() < 2:
        return False
    x, y = heatmap_axes(study)
    pairs = set(zip(knob_values(df.drop_duplicates("cell"), x),
                    knob_values(df.drop_duplicates("cell"), y)))
    return len(pairs) == df["cell"].nunique()


def heatmap_axes(study: StudyView) -> tuple[str, str]:
    """x and y knobs of a two-knob grid (``report.heatmap = [x, y]`` in the study file, or
    the grid's order)."""
    want = (study.manifest.get("report") or {}).get("heatmap")
    if isinstance(want, list) and sorted(map(str, want)) == sorted(study.keys):
        return str(want[0]), str(want[1])
    return study.keys[0], study.keys[1]
