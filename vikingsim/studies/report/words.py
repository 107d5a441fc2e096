"""The report in words, generated from its tables (``tables.build_tables``): numbers as
text, the opening answer (``summary``) and the findings (``findings``), one plain sentence
each; a difference is called one only when it is beyond noise after Holm
(``vikingsim.studies.findings``)."""
from __future__ import annotations

import pandas as pd

from vikingsim.studies.report.counts import StudyView
from vikingsim.studies.report.labels import cell_label, knob_words, value_words
from vikingsim.studies.report.tables import ALPHA, hist_stats, pooled_length

#: At most this many cells get a sentence each among the outcome findings (the tables have all).
FINDING_CELLS = 8


def pct(x: float) -> str:
    """A rate in percent: one decimal, two below 1 %."""
    return f"{100 * x:.{2 if 0 < abs(x) < 0.01 else 1}f}"


def ci_text(lo: float, hi: float) -> str:
    return f"[{pct(lo)}, {pct(hi)}]"


def p_text(p: float) -> str:
    """Two significant figures; three below 0.1, so a p just under 0.05 never reads 0.05."""
    if p < 1e-4:
        return "p < 0.0001"
    return f"p = {p:.2g}" if p < 0.01 else f"p = {p:.3g}" if p < 0.1 else f"p = {p:.2f}"


def points_text(diff: float) -> str:
    pts = 100 * diff
    if abs(pts) < 0.05:
        return "at fair"
    return f"{abs(pts):.1f} points {'above' if pts > 0 else 'below'} fair"


def _who_text(row) -> str:
    return f"{row.who} ({row.policy})" if row.policy else row.who


def _games_text(study: StudyView, players: int) -> str:
    return f"{players}-player games" if study.spec.seated else "games"


def contender_sentence(study: StudyView, row, test, many: bool) -> str:
    """E.g. "seat 1 (greedy) wins 29.4% [29.3, 29.5] of 4-player games, 4.4 points above
    fair (25.0%); the seats differ significantly (chi-square p < 0.0001, Holm-adjusted)"."""
    head = f"In {row.label}, " if many else ""
    if test is None:
        return (f"{head}no game was decided ({row.games:,} games, none won), so the "
                f"{'seats' if study.spec.seated else 'sides'} cannot be compared.")
    text = (f"{head}{_who_text(row)} wins {pct(row.rate)}% {ci_text(row.lo, row.hi)} of "
            f"{_games_text(study, row.players)}, {points_text(row.diff)} ({pct(row.fair)}%)")
    return f"{text}; {_test_text(study, test, many)}."


def _test_text(study: StudyView, test, many: bool) -> str:
    what = "seats" if study.spec.seated else "sides"
    p = test.p_holm if many else test.p
    how = f"chi-square {p_text(p)}" + (", Holm-adjusted over the cells" if many else "")
    if test.reject:
        return f"the {what} differ significantly from equal chances ({how})"
    return f"no significant difference from equal {what} ({how})"


def summary(study: StudyView, counts: dict, tables: dict) -> list[str]:
    """The page's opening: the study's answer in a few plain sentences (who wins more than
    a fair share, how it moves with the table size, whether each other knob changes
    anything), each difference called one only when it is beyond noise after Holm."""
    from vikingsim.studies import findings as F

    mf = tables["contenders"]
    out = [_scope_finding(study, counts)]
    if mf.empty:
        return out
    out += [F.leader_sentence(study, mf), F.trailer_sentence(study, mf)]
    lead = mf.loc[mf.groupby("cell", sort=False)["diff"].idxmax(), "who"]
    if lead.nunique() == 1:
        out.append(F.players_sentence(study, mf, lead.iloc[0]))
    for knob, cmp in tables["comparisons"].items():
        out.append(F.knob_sentence(study, knob, cmp, cell_label,
                                   lambda k, *v: knob_words(study.manifest, k) if not v
                                   else value_words(study.manifest, k, v[0])))
    of = tables["outcomes"]
    t = of[of["outcome"] == "truncated"] if len(of) else of
    if len(t) and t["k"].sum():
        out.append(f"{pct(t['k'].sum() / t['games'].sum())}% of the games hit the safety cap "
                   f"and count for nobody.")
    return [x for x in out if x]


def findings(study: StudyView, counts: dict, tables: dict, length: str | None) -> list[str]:
    """The report's findings: plain sentences generated from the numbers."""
    out = [_scope_finding(study, counts)]
    out += _contender_findings(study, tables["contenders"], tables["tests"])
    out += _policy_findings(tables["policies"])
    out += _grid_findings(study, tables["contenders"])
    out += _outcome_findings(study, tables["outcomes"], tables["contenders"])
    out += _length_findings(tables["lengths"], counts, length)
    out += _note_findings(study, counts)
    return [s[0].upper() + s[1:] for s in out if s]


def _and(words: list) -> str:
    from vikingsim.studies.findings import _and as join

    return join(words)


def _scope_finding(study: StudyView, counts: dict) -> str:
    played = sum(a.games for a in counts.values())
    planned = sum(int(c["games"]) for c in study.cells)
    cells = len(study.cells)
    words = [knob_words(study.manifest, k) for k in study.keys]
    knobs = f" over {_and(words)}" if words else ""
    share = f"{played / planned:.0%} of the {planned:,} planned games played"
    sprt = study.manifest.get("stop_when_decided") or any(c.get("decided") for c in study.cells)
    state = ("every planned game played" if played >= planned else
             f"not finished: {share}" if not study.manifest.get("complete") else
             f"complete, cells stopped early by the sequential test: {share}" if sprt else
             f"complete by study.json, but {planned - played:,} of its {planned:,} games are "
             f"missing from the data (rerun with --resume)")
    return (f"{study.spec.title}: {played:,} games in {cells} cell{'s' * (cells != 1)}"
            f"{knobs} ({state}).")


def _contender_findings(study: StudyView, cf: pd.DataFrame, tests: pd.DataFrame) -> list[str]:
    """One sentence per seat (or side): where its margin over fair is beyond noise (Holm
    over every cell and seat) and where not; the equal-chances tests."""
    from vikingsim.studies import findings as F

    if cf.empty:
        return []
    many = cf["cell"].nunique() > 1
    out = []
    if not many:
        test = tests.loc[cf["cell"].iloc[0]] if len(tests) else None
        row = next(cf.loc[[_furthest(cf["diff"])]].itertuples())
        out.append(contender_sentence(study, row, test, False))
    for who, g in cf.groupby("who", sort=False):
        if many or g["finding"].any():
            out.append(F.seat_sentence(study, who, g, lambda r: r["label"]))
    if many and len(tests):
        what = "seats" if study.spec.seated else "sides"
        out.append(f"The {what} differ significantly from equal chances in "
                   f"{int(tests['reject'].sum())} of {len(tests)} cells (chi-square at the "
                   f"{ALPHA:.0%} level, Holm-adjusted).")
    return out


def _furthest(diff: pd.Series):
    """Index of the largest |diff|; on a tie (two sides), the one above fair."""
    return max(diff.index, key=lambda i: (round(abs(diff[i]), 9), diff[i]))


def _policy_findings(pf: pd.DataFrame) -> list[str]:
    parts = [f"{r.policy} wins {pct(r.rate)}% {ci_text(r.lo, r.hi)} of its {r.games:,} "
             f"seat-games, {points_text(r.diff)} ({pct(r.fair)}%)" for r in pf.itertuples()]
    return [f"By policy: {'; '.join(parts)}."] if parts else []


def _grid_findings(study: StudyView, cf: pd.DataFrame) -> list[str]:
    if cf.empty or not study.keys or cf["cell"].nunique() < 2:
        return []
    span = cf.groupby("who", sort=False)["diff"].agg(lambda d: d.max() - d.min())
    if span.max() < 0.0005:
        return ["Across the grid, every margin over fair stays within 0.1 points."]
    widest = span.round(9)
    tied = [w for w in span.index if widest[w] == widest.max()]   # all of them: no seat first
    parts = []
    for who in tied:
        g = cf[cf["who"] == who]
        lo, hi = g.loc[g["diff"].idxmin()], g.loc[g["diff"].idxmax()]
        parts.append(f"{who}'s margin over fair goes from {100 * lo['diff']:+.1f} points "
                     f"({lo['label']}) to {100 * hi['diff']:+.1f} points ({hi['label']})")
    return [f"Across the grid, {'; '.join(parts)}."]


def _outcome_findings(study: StudyView, of: pd.DataFrame, cf: pd.DataFrame) -> list[str]:
    out = []
    t = of[of["outcome"] == "truncated"]
    k, n = int(t["k"].sum()), int(of.groupby("cell")["games"].first().sum())
    out.append("No game hit the safety cap." if k == 0 else
               f"{k:,} games ({pct(k / n)}%) hit the safety cap (truncated) and count for "
               f"nobody.")
    if cf.empty:
        for row in of.loc[of.groupby("cell", sort=False)["rate"].idxmax()].head(
                FINDING_CELLS).itertuples():
            out.append(f"In {row.label}, the most common outcome is {row.outcome}: "
                       f"{pct(row.rate)}% {ci_text(row.lo, row.hi)} of games.")
    return out


def _length_findings(lf: pd.DataFrame, counts: dict, length: str | None) -> list[str]:
    if lf.empty:
        return []
    s = hist_stats(pooled_length(counts))
    out = [f"Games last {s['mean']:.1f} {length} on average [{s['lo']:.1f}, {s['hi']:.1f}] "
           f"(median {s['median']}, 90% of games end within {s['p90']})."]
    a, b = lf.loc[lf["mean"].idxmin()], lf.loc[lf["mean"].idxmax()]
    if len(lf) > 1 and b["mean"] - a["mean"] < 0.05:
        out.append("Mean length is the same in every cell (to 0.1).")
    elif len(lf) > 1:
        out.append(f"Mean length goes from {a['mean']:.1f} {length} ({a['label']}) to "
                   f"{b['mean']:.1f} ({b['label']}).")
    return out


def _note_findings(study: StudyView, counts: dict) -> list[str]:
    out = list(study.notes)
    decided = [f"{cell_label(c)} ({c['decided']})" for c in study.cells if c.get("decided")]
    if decided:
        out.append(f"The sequential test stopped {len(decided)} cell(s) early: "
                   f"{', '.join(decided)}.")
    off = [c for c in study.cells
           if c.get("games_done") is not None and c["games_done"] != counts[c["cell"]].games]
    if off:
        out.append(f"Note: the data of {len(off)} cell(s) differ from study.json's games_done "
                   f"(e.g. {cell_label(off[0])}: {counts[off[0]['cell']].games:,} rows, "
                   f"{off[0]['games_done']:,} recorded); the report counts the rows.")
    played = study.manifest.get("rules_version")
    if played is not None and str(played) != str(study.spec.rules_version):
        out.append(f"Note: these games were played under rules version {played}; the "
                   f"installed {study.spec.name} is at {study.spec.rules_version}.")
    return out
