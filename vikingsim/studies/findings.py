"""What the report says first: each seat's (or side's) margin over its fair share and the
differences between cells that differ in one knob only, each with a Holm-corrected 95 %
interval, and the study's answer in a few plain sentences (``summary``).

A difference is a *finding* only when its Holm-adjusted p-value is below ``ALPHA`` (the
decision is taken on the adjusted p-value, the one shown). Its interval is the one at the
level of its Holm step (``ALPHA / (m - rank)``), dual to the test: a seat's margin uses the
score test of its share of the decided games against 1/k and the Wilson interval (its
inversion); a difference between two cells the Wald test and interval of two independent
proportions (``statsmodels``). Holm holds under any dependence, so the seats of one cell,
which are not independent, may share a family.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

ALPHA = 0.05


def holm(p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Holm-adjusted p-values, reject = adjusted < ``ALPHA``, each hypothesis's step level
    ``ALPHA / (m - rank)``) of the p-values ``p``."""
    from vikingsim.core.stats import multipletests

    p = np.nan_to_num(np.asarray(p, dtype=float), nan=1.0)
    if p.size == 0:
        return p, p.astype(bool), p
    adj = multipletests(p, alpha=ALPHA, method="holm")[1]
    step = np.empty(p.size)
    step[np.argsort(p, kind="stable")] = ALPHA / (p.size - np.arange(p.size))
    return adj, adj < ALPHA, step


def margins(cf: pd.DataFrame) -> pd.DataFrame:
    """``cf`` (one row per cell and seat or side) with the margin over fair tested: ``p_fair``
    (score test of wins among the decided games against 1/k), ``p_fair_holm`` (Holm over
    every row), ``finding`` and ``dlo``, ``dhi``: the margin's interval at its Holm step, on
    the scale of ``diff`` (share of all games)."""
    from statsmodels.stats.proportion import proportion_confint, proportions_ztest

    cf = cf.copy()
    if cf.empty:
        return cf.assign(p_fair=[], p_fair_holm=[], finding=[], dlo=[], dhi=[])
    decided = cf.groupby("cell")["wins"].transform("sum").to_numpy()
    k = cf.groupby("cell")["wins"].transform("size").to_numpy()
    p = [proportions_ztest(w, d, value=1 / kk, prop_var=1 / kk)[1] if 0 < d else np.nan
         for w, d, kk in zip(cf["wins"], decided, k)]
    cf["p_fair"] = p
    cf["p_fair_holm"], cf["finding"], step = holm(p)
    lo, hi = [], []
    for w, d, kk, n, a in zip(cf["wins"], decided, k, cf["games"], step):
        a_lo, a_hi = proportion_confint(w, d, alpha=a, method="wilson") if d else (0, 0)
        lo.append((a_lo - 1 / kk) * d / n)
        hi.append((a_hi - 1 / kk) * d / n)
    cf["dlo"], cf["dhi"] = lo, hi
    return cf


def knob_pairs(study, knob: str) -> list[tuple[dict, dict]]:
    """Pairs of cells whose knobs are equal except ``knob`` (which differs)."""
    others = [k for k in study.keys if k != knob]

    def key(c):
        return tuple(str(c["grid"].get(k)) for k in others)

    return [(a, b) for a, b in itertools.combinations(study.cells, 2)
            if key(a) == key(b) and str(a["grid"].get(knob)) != str(b["grid"].get(knob))]


def comparisons(study, cf: pd.DataFrame, knob: str) -> pd.DataFrame:
    """Every seat's (or side's) win rate compared between the cells of each ``knob_pairs``
    pair (``d`` = rate in b minus rate in a, with ``lo``, ``hi`` at its Holm step over the
    knob's comparisons, ``p``, ``p_holm``, ``finding``).

    Both rates 0 or 1 (a side that always or never wins in both cells): the Wald variance is
    0, statsmodels divides by it (also for the ratio and odds ratio it computes alongside)
    and returns p = nan for equal rates (``holm`` reads it as 1: no finding) or 0 for a 0
    against a 1; numpy's warnings about those divisions are silenced, not the results."""
    from statsmodels.stats.proportion import (confint_proportions_2indep,
                                              test_proportions_2indep)

    rows = []
    by = {(r.cell, r.who): r for r in cf.itertuples()}
    for a, b in knob_pairs(study, knob):
        for who in dict.fromkeys(cf.loc[cf["cell"] == a["cell"], "who"]):
            ra, rb = by.get((a["cell"], who)), by.get((b["cell"], who))
            if ra is None or rb is None:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):   # rates of 0 or 1 (below)
                t = test_proportions_2indep(rb.wins, rb.games, ra.wins, ra.games,
                                            method="wald", compare="diff")
            rows.append({"a": a["cell"], "b": b["cell"], "who": who, "wa": ra.wins,
                         "na": ra.games, "wb": rb.wins, "nb": rb.games,
                         "d": rb.rate - ra.rate, "p": float(t.pvalue)})
    out = pd.DataFrame(rows, columns=["a", "b", "who", "wa", "na", "wb", "nb", "d", "p"])
    out["p_holm"], out["finding"], step = holm(out["p"])
    ci = [confint_proportions_2indep(r.wb, r.nb, r.wa, r.na, method="wald", compare="diff",
                                     alpha=s) for r, s in zip(out.itertuples(), step)]
    out["lo"] = [float(c[0]) for c in ci]
    out["hi"] = [float(c[1]) for c in ci]
    return out


# ---- words --------------------------------------------------------------------------------------
def points(x: float) -> str:
    return f"{100 * x:+.1f}"


def span_text(values, unit: str = " points", sign: bool = True) -> str:
    """"+3.9 to +4.9 points", or "+4.4 points" for one value (or equal ones); without
    ``sign``, sizes: "3.9 to 4.9 points"."""
    values = list(values) if sign else [abs(v) for v in values]
    lo, hi = min(values), max(values)
    text = points if sign else (lambda x: f"{100 * x:.1f}")
    return f"{text(lo)}{unit}" if round(100 * lo, 1) == round(100 * hi, 1) else \
        f"{text(lo)} to {text(hi)}{unit}"


def seat_name(study, who: str, first: bool = False) -> str:
    """"the first player (seat 0)" for seat 0 of a seated game, else the seat or side."""
    text = "the first player (seat 0)" if study.spec.seated and who == "seat 0" else who
    return text[0].upper() + text[1:] if first else text


def _where(study, cells: int) -> str:
    """" at every table size (2 to 6 players) and every variant", " in every cell", ""."""
    from vikingsim.studies.report import knob_words

    if cells == 1:
        return ""
    if "players" not in study.keys:
        return " in every cell"
    ps = sorted({int(c["players"]) for c in study.cells})
    others = [knob_words(study.manifest, k) for k in study.keys if k != "players"]
    return f" at every table size ({ps[0]} to {ps[-1]} players)" + \
        "".join(f" and every {k}" for k in others)


def leader_sentence(study, mf: pd.DataFrame) -> str:
    lead = mf.loc[mf.groupby("cell", sort=False)["diff"].idxmax()]
    cells = len(lead)
    if lead["who"].nunique() > 1:
        counts = lead["who"].value_counts()
        return ("No seat leads everywhere: " if study.spec.seated else "No side leads "
                "everywhere: ") + ", ".join(f"{who} leads in {n} of {cells} cells"
                                           for who, n in counts.items()) + "."
    who = seat_name(study, lead["who"].iloc[0], first=True)
    beyond = int(lead["finding"].sum())
    if beyond == cells:
        return (f"{who} wins more than its fair share{_where(study, cells)}: "
                f"{span_text(lead['diff'], sign=False)} above it (every Holm-corrected 95% "
                f"interval excludes zero).")
    if beyond == 0:
        return (f"No seat wins measurably more than its fair share: the largest margin, "
                f"{span_text(lead['diff'])}, is within noise (Holm-corrected 95% intervals "
                f"include zero).")
    return (f"{who} wins most{_where(study, cells)} ({span_text(lead['diff'])} above fair), "
            f"beyond noise in {beyond} of {cells} cells.")


def trailer_sentence(study, mf: pd.DataFrame) -> str:
    last = mf.loc[mf.groupby("cell", sort=False)["diff"].idxmin()]
    if not last["finding"].all():
        return ""
    if study.spec.seated and all(w == f"seat {p - 1}" for w, p in zip(last["who"],
                                                                       last["players"])):
        who = "The last player"
    elif last["who"].nunique() == 1:
        who = seat_name(study, last["who"].iloc[0], first=True)
    else:
        return ""
    return (f"{who} wins least{_where(study, len(last))}: "
            f"{span_text(last['diff'], sign=False)} below fair.")


def players_sentence(study, mf: pd.DataFrame, who: str) -> str:
    """How ``who``'s margin moves with the table size (other knobs pooled)."""
    if "players" not in study.keys:
        return ""
    g = mf[mf["who"] == who].assign(fair_games=lambda d: d["fair"] * d["games"])
    g = g.groupby("players")[["wins", "games", "fair_games"]].sum()
    if len(g) < 2:
        return ""
    d = (g["wins"] - g["fair_games"]) / g["games"]
    a, b = d.index[0], d.index[-1]
    return (f"{who[0].upper() + who[1:]}'s margin goes from {points(d[a])} points "
            f"with {a} players to {points(d[b])} with {b} players.")


def knob_sentence(study, knob: str, cmp: pd.DataFrame, label, name) -> str:
    """Whether ``knob`` changes any seat's win rate (cells equal in every other knob):
    "The board changes nothing measurable: ..." ("The" before a ``[report.labels]`` name),
    "Start gold matters in 1 of 12 comparisons; ...".
    """
    if cmp.empty:
        return ""
    cells = {c["cell"]: c for c in study.cells}
    values = list(dict.fromkeys(name(knob, c["grid"].get(knob)) for c in study.cells))
    what = name(knob)
    named = knob in ((study.manifest.get("report") or {}).get("labels") or {})
    what = f"The {what}" if named and not what[0].isupper() else what[0].upper() + what[1:]
    m, n = len(cmp), int(cmp["finding"].sum())
    if n == 0:
        half = 100 * ((cmp["hi"] - cmp["lo"]) / 2).max()
        return (f"{what} changes nothing measurable: no win rate differs between "
                f"{_and(values)} beyond noise in any of the {m} comparisons (largest "
                f"difference {100 * cmp['d'].abs().max():.1f} points; every Holm-corrected 95% "
                f"interval includes zero and is at most \u00b1{half:.1f} points wide).")
    top = cmp[cmp["finding"]].loc[lambda d: d["d"].abs().idxmax()]
    a, b = cells[top["a"]], cells[top["b"]]
    more = "more" if top["d"] > 0 else "less"
    return (f"{what} matters in {n} of {m} comparisons; the largest: {top['who']} wins "
            f"{abs(100 * top['d']):.1f} points {more} in \"{label(b)}\" than in \"{label(a)}\" "
            f"(Holm-corrected interval {points(top['lo'])} to {points(top['hi'])}).")


def _and(values: list) -> str:
    values = [str(v) for v in values]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


def seat_sentence(study, who: str, g: pd.DataFrame, label) -> str:
    """One seat (or side) over every cell: where it is above, below or within noise of
    fair."""
    name = seat_name(study, who, first=True)
    if len(g) == 1:
        r = g.iloc[0]
        verdict = (f"beyond noise (Holm-corrected interval {points(r['dlo'])} to "
                   f"{points(r['dhi'])} points)" if r["finding"] else
                   "within noise (its Holm-corrected interval includes zero)")
        return f"{name} is {abs(100 * r['diff']):.1f} points " \
               f"{'above' if r['diff'] > 0 else 'below'} fair: {verdict}."
    parts = []
    for word, pick in (("above", g["finding"] & (g["diff"] > 0)),
                       ("below", g["finding"] & (g["diff"] < 0))):
        if pick.any():
            parts.append(f"{word} fair in {int(pick.sum())} of {len(g)} cells "
                         f"({span_text(g.loc[pick, 'diff'])})")
    noise = g[~g["finding"]].sort_values("diff", key=abs, ascending=False)    # largest first
    if len(noise):
        shown = [f"{label(r)} ({points(r['diff'])})" for _, r in noise.head(3).iterrows()]
        if len(noise) > 3:
            shown.append(f"{len(noise) - 3} more")
        parts.append(f"within noise in {len(noise)} of {len(g)} cells: {_and(shown)}")
    return f"{name}: {'; '.join(parts)}."
