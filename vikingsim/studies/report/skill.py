"""The answers by skill level (issue 21 §5): a study whose ``[report] skill`` names a policy
knob of its ``[grid]`` (``policy``: every seat plays the level; ``policy.<seat>``: one focus
seat does; ``policy.<param>``: a parameter of the policies, e.g. a search budget) plays every
other cell once per level, and the page adds a section "By skill" (docs/reports.md):

- the tidy frame (``skill_frame``): every seat's (or side's) win rate per *situation* (the
  cell's other knobs) and level, with its Wilson 95 % interval, from the contender frame
  (``tables.contender_frame``: all of the cell's games);
- the test (``skill_tests``) of each answer (situation and seat): is the win rate the same at
  every level? On common seeds with per-game rows the levels played the same games, so the
  test is paired: Cochran's Q on the games x levels table of wins (``paired_wins``, games
  matched by ``game_id``; ``statsmodels``). Otherwise (no rows, independent seeds, a cell
  unfinished or beyond ``PAIRED_MAX_GAMES``) Pearson's chi-square of homogeneity of the levels x
  (won, not won) table (``scipy.stats.chi2_contingency``, no continuity correction), which
  on common seeds would be conservative (the levels' rates correlate positively). The p-value
  is Holm-adjusted over every answer of the study (``findings.holm``); with the difference last
  level minus first and its Newcombe 95 % interval (independent samples: wide, not liberal);
- the paired effects (``effect_frame``, ``effect_tests``): each other knob's effect on a win
  rate at each level, and Cochran's Q of equal effects across the levels (meta-analysis);
- a sentence per answer saying whether it changes with skill, one for "In short", and a
  figure: the win rate against the level with its error bars, one line per seat, one panel per
  situation.

Everything is read from the stored counts, and for the paired test one column of the rows;
nothing is played again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from vikingsim.studies.report.labels import labels_of, scalar, value_words

#: At most this many situations get a panel in the figure (the table has all).
PANELS = 6


def skill_knob(manifest: dict) -> str | None:
    """The study's skill axis (``[report] skill``), when it is one of its knobs."""
    knob = (manifest.get("report") or {}).get("skill")
    cells = manifest.get("cells") or []
    if not isinstance(knob, str) or not cells or any(knob not in (c.get("grid") or {})
                                                     for c in cells):
        return None
    return knob


def level_words(manifest: dict, knob: str, value) -> str:
    """A level in words: its ``[report.labels]`` entry, else the policy text (``policy``,
    ``policy.<seat>``), else the parameter and its value ("budget 64")."""
    v = scalar(value)
    labels = labels_of(manifest)
    if str(v) in labels:
        return labels[str(v)]
    parts = knob.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1].isdigit()):
        return str(v)
    return f"{parts[-1]} {v}"


def _situation(manifest: dict, grid: dict, knob: str) -> str:
    """The cell's other knobs in words ("" when the skill axis is the only knob)."""
    text = ", ".join(value_words(manifest, k, v) for k, v in grid.items() if k != knob)
    return text[:1].upper() + text[1:]


def skill_frame(study, cf: pd.DataFrame) -> pd.DataFrame:
    """One row per (situation, seat or side, level): wins, games, rate with its Wilson 95 %
    interval, fair share and difference (the contender frame's), with ``level`` (the knob's
    value as text), ``level_words``, ``level_index`` (its order in the grid) and
    ``situation`` (the other knobs in words); empty for a study without a skill axis."""
    knob = skill_knob(study.manifest)
    if knob is None or cf.empty:
        return pd.DataFrame()
    m = study.manifest
    levels = list(dict.fromkeys(str(scalar(c["grid"][knob])) for c in m["cells"]))
    sf = cf.assign(level=[str(scalar(g[knob])) for g in cf["grid"]],
                   situation=[_situation(m, g, knob) for g in cf["grid"]])
    sf["level_index"] = [levels.index(v) for v in sf["level"]]
    sf["level_words"] = [level_words(m, knob, g[knob]) for g in cf["grid"]]
    cols = ["situation", "who", "level_index", "level", "level_words", "cell", "policy",
            "wins", "games", "rate", "lo", "hi", "fair", "diff"]
    return sf[cols].sort_values(["level_index"], kind="stable").reset_index(drop=True)


def _answers(sf: pd.DataFrame):
    """(situation, who, rows by level) of every answer, in the order of first appearance."""
    keys = list(dict.fromkeys(zip(sf["situation"], sf["who"])))
    for s, w in keys:
        yield s, w, sf[(sf["situation"] == s) & (sf["who"] == w)].sort_values("level_index")


def homogeneity(wins, games) -> tuple[float, float, int]:
    """(chi-square, p, degrees of freedom) of "the same win rate at every level" from each
    level's wins of its games; (0, 1, L-1) when no level has a win or none a non-win (the
    rates are then equal, 0 or 1, and scipy's expected counts would be zero)."""
    from scipy.stats import chi2_contingency

    w, n = np.asarray(wins, np.int64), np.asarray(games, np.int64)
    table = np.column_stack([w, n - w])
    if (table.sum(axis=0) == 0).any():
        return 0.0, 1.0, len(w) - 1
    res = chi2_contingency(table, correction=False)
    return float(res.statistic), float(res.pvalue), int(res.dof)


#: The paired test reads each level's winner (or outcome) column of the per-game rows: at most
#: this many games per cell (beyond, or without rows or common seeds: the chi-square).
PAIRED_MAX_GAMES = 4_000_000
CHI2, COCHRAN = "chi-square", "Cochran's Q on the paired games"


def paired_wins(study, sf: pd.DataFrame) -> dict:
    """{(situation, who): bool array (games x levels)}, whether the seat or side won each game
    at each level, the games matched by ``game_id``: for a study on common seeds with rows,
    per situation whose cells (one per level) finished the very same games, each with at most
    ``PAIRED_MAX_GAMES``; {} otherwise. Read through ``StudyData.games`` (one column)."""
    data, m = study.data, study.manifest
    if sf.empty or not data.has_rows or not (m.get("study_content") or {}).get("common_seeds"):
        return {}
    column = "winner" if study.spec.seated else "outcome"
    out = {}
    for situation, g in sf.groupby("situation", sort=False):
        cells = list(dict.fromkeys(g.sort_values("level_index")["cell"]))
        if len(cells) < 2 or g["games"].max() > PAIRED_MAX_GAMES:
            continue
        frames = [data.games(cell=int(c), columns=[column]) for c in cells]
        ids = frames[0]["game_id"].to_numpy()
        if any(not np.array_equal(f["game_id"].to_numpy(), ids) for f in frames[1:]):
            continue
        for who in dict.fromkeys(g["who"]):
            out[(situation, who)] = np.column_stack([_won(f, who) for f in frames])
    return out


def _won(frame: pd.DataFrame, who: str) -> np.ndarray:
    """Whether ``who`` ("seat 2", "side vikings") won each game of the rows."""
    kind, name = who.split(" ", 1)
    if kind == "seat":
        return frame["winner"].to_numpy() == int(name)
    return (frame["outcome"] == f"{name}_win").to_numpy()


def cochran(won: np.ndarray) -> tuple[float, float, int]:
    """(Q, p, degrees of freedom) of Cochran's test of equal win rates at every level on the
    games x levels table of wins (``statsmodels``); (0, 1, L-1) when no game was won at one
    level and lost at another (the rates are then equal and Q is 0/0)."""
    from statsmodels.stats.contingency_tables import cochrans_q

    won = np.asarray(won, bool)
    if not (won.any(axis=1) & ~won.all(axis=1)).any():
        return 0.0, 1.0, won.shape[1] - 1
    res = cochrans_q(won.astype(np.int64))
    return float(res.statistic), float(res.pvalue), int(res.df)


def skill_tests(sf: pd.DataFrame, paired: dict | None = None) -> pd.DataFrame:
    """One row per answer (situation, seat or side) seen at two or more levels: the test of
    equal rates across the levels (``test``: Cochran's Q on the games of ``paired`` when it
    holds the answer, see ``paired_wins``; else the chi-square of homogeneity), its statistic
    ``stat`` and p-value, Holm-adjusted over every answer (``changes`` = adjusted p < 5 %),
    the spread (largest minus smallest rate) and the difference last level minus first with
    its Newcombe 95 % interval (of independent samples: wider than a paired one)."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    from vikingsim.studies.findings import holm

    paired = paired or {}
    rows = []
    for situation, who, g in _answers(sf):
        if len(g) < 2:
            continue
        won = paired.get((situation, who))
        if won is not None and won.shape[1] == len(g):
            test, (stat, p, dof) = COCHRAN, cochran(won)
        else:
            test, (stat, p, dof) = CHI2, homogeneity(g["wins"], g["games"])
        a, b = g.iloc[0], g.iloc[-1]
        lo, hi = confint_proportions_2indep(int(b.wins), int(b.games), int(a.wins),
                                            int(a.games), method="newcomb", compare="diff")
        rows.append({"situation": situation, "who": who, "levels": len(g), "test": test,
                     "stat": stat, "dof": dof, "p": p,
                     "spread": float(g["rate"].max() - g["rate"].min()),
                     "first": a.level_words, "last": b.level_words,
                     "d": float(b.rate - a.rate), "d_lo": float(lo), "d_hi": float(hi)})
    cols = ["situation", "who", "levels", "test", "stat", "dof", "p", "spread", "first", "last",
            "d", "d_lo", "d_hi"]
    out = pd.DataFrame(rows, columns=cols)
    out["p_holm"], out["changes"], _ = holm(out["p"].to_numpy())
    return out


# ---- paired effects ---------------------------------------------------------------------------
def _var(w: int, n: int) -> float:
    """Variance of a win rate, from the Agresti-Caffo rate (w + 1) / (n + 2) (never zero)."""
    p = (w + 1) / (n + 2)
    return p * (1 - p) / n


def effect_frame(study, cf: pd.DataFrame) -> pd.DataFrame:
    """The study's paired effects at each level: for every knob but the skill axis and
    ``players``, each seat's win-rate difference between two cells that differ in that knob
    only (``findings.knob_pairs``: the same level and situation), ``d`` = rate in b minus rate
    in a with its Newcombe 95 % interval and its variance ``var`` (Agresti-Caffo rates). One row
    per (knob, effect "b vs a", situation, seat or side, level); empty without such a knob."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    from vikingsim.studies.findings import comparisons

    knob = skill_knob(study.manifest)
    others = [k for k in study.keys if k not in (knob, "players")]
    if knob is None or cf.empty or not others:
        return pd.DataFrame()
    m = study.manifest
    levels = list(dict.fromkeys(str(scalar(c["grid"][knob])) for c in m["cells"]))
    cells = {c["cell"]: c for c in study.cells}
    rows = []
    for other in others:
        for r in comparisons(study, cf, other).itertuples():
            a, b = cells[r.a]["grid"], cells[r.b]["grid"]
            lo, hi = confint_proportions_2indep(r.wb, r.nb, r.wa, r.na, method="newcomb",
                                                compare="diff")
            rows.append({"knob": other,
                         "effect": f"{value_words(m, other, b[other])} vs "
                                   f"{value_words(m, other, a[other])}",
                         "situation": _situation(m, {k: v for k, v in a.items() if k != other},
                                                 knob),
                         "who": r.who, "level": str(scalar(a[knob])),
                         "level_index": levels.index(str(scalar(a[knob]))),
                         "level_words": level_words(m, knob, a[knob]), "wa": r.wa, "na": r.na,
                         "wb": r.wb, "nb": r.nb, "d": float(r.d), "lo": float(lo),
                         "hi": float(hi), "var": _var(r.wa, r.na) + _var(r.wb, r.nb)})
    return pd.DataFrame(rows)


def effect_tests(ef: pd.DataFrame) -> pd.DataFrame:
    """One row per paired effect seen at two or more levels: Cochran's Q of "the same effect
    at every level" (``statsmodels.stats.meta_analysis.combine_effects``, inverse-variance
    weights), its p-value Holm-adjusted over the study's effects (``changes``), and the
    effect's spread across the levels."""
    from statsmodels.stats.meta_analysis import combine_effects

    from vikingsim.studies.findings import holm

    cols = ["knob", "effect", "situation", "who", "levels", "q", "dof", "p", "spread"]
    rows = []
    if not ef.empty:
        for key, g in ef.groupby(["knob", "effect", "situation", "who"], sort=False):
            g = g.sort_values("level_index")
            if len(g) < 2:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):   # zero-variance levels
                t = combine_effects(g["d"].to_numpy(), g["var"].to_numpy()).test_homogeneity()
            rows.append(dict(zip(cols, [*key, len(g), float(t.statistic), int(t.df),
                                        float(t.pvalue), float(g["d"].max() - g["d"].min())])))
    out = pd.DataFrame(rows, columns=cols)
    out["p_holm"], out["changes"], _ = holm(out["p"].to_numpy())
    return out


# ---- words ------------------------------------------------------------------------------------
def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def answer_sentence(sf: pd.DataFrame, t, m: int, many: bool) -> str:
    """E.g. "4 players, seat 0: 29.4% [28.5, 29.3] at greedy, 27.0% [...] at ismcts(budget=64):
    changes with skill (Cochran's Q on the paired games over the 2 levels p = 0.003,
    Holm-adjusted over 8 answers);
    last minus first level -2.4 points [-3.6, -1.2]"."""
    from vikingsim.studies.report.words import ci_text, p_text, pct

    g = sf[(sf["situation"] == t.situation) & (sf["who"] == t.who)].sort_values("level_index")
    rates = ", ".join(f"{pct(r.rate)}% {ci_text(r.lo, r.hi)} at {r.level_words}"
                      for r in g.itertuples())
    head = f"{t.situation}, {t.who}" if many and t.situation else t.who[0].upper() + t.who[1:]
    adj = f", Holm-adjusted over {m} answers" if m > 1 else ""
    verdict = ("changes with skill" if t.changes else "no change with skill beyond noise")
    return (f"{head} wins {rates}: {verdict} ({t.test} over the {t.levels} levels "
            f"{p_text(t.p_holm if m > 1 else t.p)}{adj}); {t.last} minus {t.first} "
            f"{_pts(t.d)} points [{_pts(t.d_lo)}, {_pts(t.d_hi)}].")


def effect_sentence(ef: pd.DataFrame, t, m: int) -> str:
    """E.g. "Ends of the Earth vs Circular board, 4 players, seat 0: +0.4 points [-0.5, +1.3]
    at greedy, ...: the effect does not change with skill beyond noise (Cochran's Q ...)"."""
    from vikingsim.studies.report.words import p_text

    g = ef[(ef["knob"] == t.knob) & (ef["effect"] == t.effect) & (ef["situation"] == t.situation)
           & (ef["who"] == t.who)].sort_values("level_index")
    effects = ", ".join(f"{_pts(r.d)} points [{_pts(r.lo)}, {_pts(r.hi)}] at {r.level_words}"
                        for r in g.itertuples())
    adj = f", Holm-adjusted over {m} effects" if m > 1 else ""
    verdict = ("the effect changes with skill" if t.changes else
               "the effect does not change with skill beyond noise")
    head = ", ".join(x for x in (t.effect, t.situation, t.who) if x)
    return (f"{head[0].upper()}{head[1:]}: {effects}; {verdict} (Cochran's Q over the "
            f"{t.levels} levels {p_text(t.p_holm if m > 1 else t.p)}{adj}).")


def skill_summary(sf: pd.DataFrame, tests: pd.DataFrame) -> str:
    """One sentence for "In short": how many answers change with skill, which ones."""
    if tests.empty:
        return ""
    levels = ", ".join(dict.fromkeys(sf.sort_values("level_index")["level_words"]))
    moved = tests[tests["changes"]]
    m = len(tests)
    if moved.empty:
        return (f"By skill level ({levels}): no answer changes with skill beyond noise "
                f"({m} answer{'s' if m > 1 else ''}, largest spread across the levels "
                f"{100 * tests['spread'].max():.1f} points; {_tests_used(tests)}, Holm).")
    many = tests["situation"].nunique() > 1
    names = [f"{r.who} in {r.situation}" if many else r.who for r in moved.itertuples()]
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return (f"By skill level ({levels}): {len(moved)} of {m} answers change with skill beyond "
            f"noise ({shown}; largest spread {100 * moved['spread'].max():.1f} points; "
            f"{_tests_used(tests)}, Holm).")


def _tests_used(tests: pd.DataFrame) -> str:
    return " or ".join(dict.fromkeys(tests["test"])) + " per answer"


# ---- the figure -------------------------------------------------------------------------------
def skill_figure(sf: pd.DataFrame):
    """Win rate (%) against the level with 95 % error bars, a line per seat or side, a dashed
    fair share; one panel per situation (the first ``PANELS``)."""
    from vikingsim.studies.report.figures import (PAGE_INCHES, SMALL_PT, _legend_outside,
                                                  _new_figure)

    situations = list(dict.fromkeys(sf["situation"]))[:PANELS]
    levels = list(dict.fromkeys(sf.sort_values("level_index")["level_words"]))
    cols = min(3, len(situations))
    rows = -(-len(situations) // cols)
    width = min(PAGE_INCHES, max(4.5, 1.2 + 0.9 * len(levels)) * cols)
    fig = _new_figure(width, 0.6 + 3.0 * rows)
    axes = []
    for i, situation in enumerate(situations):
        ax = fig.add_subplot(rows, cols, i + 1, sharey=axes[0] if axes else None)
        axes.append(ax)
        g = sf[sf["situation"] == situation]
        whos = list(dict.fromkeys(g["who"]))
        for j, who in enumerate(whos):
            h = g[g["who"] == who].sort_values("level_index")
            x = h["level_index"].to_numpy() + 0.06 * (j - (len(whos) - 1) / 2)
            rate = 100 * h["rate"].to_numpy()
            ax.errorbar(x, rate, yerr=[rate - 100 * h["lo"].to_numpy(),
                                       100 * h["hi"].to_numpy() - rate],
                        fmt="o-", capsize=3, label=str(who))
        f = g.drop_duplicates("level_index").sort_values("level_index")
        ax.plot(f["level_index"], 100 * f["fair"], "k--", lw=1, label="fair")
        ax.set_xticks(range(len(levels)), levels, fontsize=SMALL_PT,
                      rotation=30 if len(levels) > 3 else 0)
        ax.set_title(situation, fontsize=SMALL_PT + 1)
        ax.set_xlim(-0.4, len(levels) - 0.6)
        ax.set_xlabel("skill level")
        if i % cols == 0:
            ax.set_ylabel("win rate (%)")
    handles = max(axes, key=lambda a: len(a.get_legend_handles_labels()[0]))
    _legend_outside(fig, handles, ncols=min(6, len(handles.get_legend_handles_labels()[0])))
    return fig


# ---- the page's part --------------------------------------------------------------------------
@dataclass
class SkillParts:
    """What a study with a skill axis adds: a sentence for "In short", one finding per answer
    and the section "By skill" (all empty without a skill axis)."""

    summary: list
    findings: list
    html: str


def skill_parts(study, cf: pd.DataFrame) -> SkillParts:
    """The section "By skill" of a study with a skill axis (nothing otherwise): the answers'
    figure, table and sentences, then the paired effects' table and sentences."""
    from vikingsim.studies.report.page import figure_html, section

    sf = skill_frame(study, cf)
    tests = skill_tests(sf, paired_wins(study, sf)) if not sf.empty else pd.DataFrame()
    if tests.empty:
        return SkillParts([], [], "")
    m, many = len(tests), tests["situation"].nunique() > 1
    words = [answer_sentence(sf, t, m, many) for t in tests.itertuples()]
    ef = effect_frame(study, cf)
    et = effect_tests(ef)
    effects = [effect_sentence(ef, t, len(et)) for t in et.itertuples()]
    fig = figure_html(skill_figure(sf), "Win rate by skill level, 95% intervals; dashed: "
                      "fair share of the decided games")
    parts = [_intro(skill_knob(study.manifest)), fig, _answers_table(study, sf, tests),
             _items(words)]
    if len(et):
        parts += ["<h3>Paired effects by skill level</h3><p>Each other knob's effect on a "
                  "win rate (cells that differ in that knob only, at the same level), in "
                  "points with Newcombe 95% intervals; Cochran's Q tests the same effect at "
                  "every level (inverse-variance weights), its p-value Holm-adjusted over the "
                  "effects.</p>", _effects_table(study, ef, et), _items(effects)]
    summary = [skill_summary(sf, tests)]
    if len(et):
        n = int(et["changes"].sum())
        summary.append(f"{n} of {len(et)} paired effects of the other knobs change with skill "
                       f"beyond noise (Cochran's Q, Holm)." if n else
                       f"No paired effect of the other knobs changes with skill beyond noise "
                       f"({len(et)} effects; Cochran's Q, Holm).")
    return SkillParts(summary, words + effects, section("By skill", *parts))


def _intro(knob: str) -> str:
    parts = knob.split(".")
    seat = parts[1] if len(parts) > 1 and parts[1].isdigit() else None
    param = parts[-1] if len(parts) > 1 and not parts[-1].isdigit() else None
    who = (f"seat {seat} plays the level, the others their own policies" if seat and not param
           else f"seat {seat}'s policy {param} is the level" if seat
           else f"every seat's policy {param} is the level" if param
           else "every seat plays the level")
    return (f"<p>The study's answers at each skill level (knob <code>{_esc(knob)}</code>: "
            f"{_esc(who)}). Win rates of all the cell's games with Wilson 95% intervals. The "
            "test of equal rates at every level is Cochran's Q on the paired games when the "
            "levels played the same games (common seeds, rows kept), else the chi-square of "
            "homogeneity; its p-value is Holm-adjusted over the answers. The difference of "
            "the last and first level has a Newcombe 95% interval.</p>")


def _items(sentences: list) -> str:
    return '<ul class="findings">' + "".join(f"<li>{_esc(s)}</li>" for s in sentences) + \
        "</ul>"


def _levels(frame: pd.DataFrame) -> list:
    return list(dict.fromkeys(frame.sort_values("level_index")["level_words"]))


def _answers_table(study, sf: pd.DataFrame, tests: pd.DataFrame) -> str:
    from vikingsim.studies.report.page import table_html
    from vikingsim.studies.report.words import ci_text, p_text, pct

    levels = _levels(sf)
    by = {(r.situation, r.who, r.level_words): r for r in sf.itertuples()}

    def rate(t, lv):
        r = by.get((t.situation, t.who, lv))
        return "-" if r is None else f"{pct(r.rate)}% {ci_text(r.lo, r.hi)}"

    rows = [[t.situation or "every game", t.who, *[rate(t, lv) for lv in levels],
             f"{_pts(t.d)} [{_pts(t.d_lo)}, {_pts(t.d_hi)}]", t.test, f"{t.stat:.2f}",
             p_text(t.p_holm), "yes" if t.changes else "no"] for t in tests.itertuples()]
    k = len(levels)
    return table_html(["situation", "seat" if study.spec.seated else "side", *levels,
                       f"{levels[-1]} − {levels[0]} (points)", "test", "statistic",
                       "p (Holm)", "changes with skill"], rows, num={*range(2, 2 + k), 4 + k})


def _effects_table(study, ef: pd.DataFrame, et: pd.DataFrame) -> str:
    from vikingsim.studies.report.page import table_html
    from vikingsim.studies.report.words import p_text

    levels = _levels(ef)
    by = {(r.knob, r.effect, r.situation, r.who, r.level_words): r for r in ef.itertuples()}

    def effect(t, lv):
        r = by.get((t.knob, t.effect, t.situation, t.who, lv))
        return "-" if r is None else f"{_pts(r.d)} [{_pts(r.lo)}, {_pts(r.hi)}]"

    rows = [[t.effect, t.situation or "every game", t.who, *[effect(t, lv) for lv in levels],
             f"{t.q:.2f}",
             p_text(t.p_holm), "yes" if t.changes else "no"] for t in et.itertuples()]
    k = len(levels)
    return table_html(["effect", "situation", "seat" if study.spec.seated else "side",
                       *levels, "Cochran's Q", "p (Holm)", "changes with skill"], rows,
                      num={*range(3, 3 + k), 3 + k})


def _esc(x) -> str:
    import html

    return html.escape(str(x), quote=True)
