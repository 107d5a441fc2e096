"""`vikingsim report`: the study's HTML page, its numbers and words, bad input, a study's kind,
and the page rendering with its figures in headless Chromium.

Every study here is a real run of a study file by the study runner (``conftest.study_run``,
once per session; a test that changes one works on a copy). Expected numbers are worked out
in the test from the per-game rows read straight from the Parquet files (``rows_of``, not
through ``studies.dataset`` or the report), with textbook formulas (Wilson, the score test,
Holm by hand, scipy's chi-square)."""
from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import signal
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare, norm

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.games import names
from vikingsim.studies import report
from vikingsim.studies.dataset import StudyData
from vikingsim.studies.report import words as report_words

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)

# ---- the studies ---------------------------------------------------------------------------------
#: Two cells over start_gold, 4 players, seat 1 plays lookahead, games capped at 12 rounds (some
#: are truncated), 5,000 games per cell in chunks of 4,096 and 904.
SEATS = """name = "seats"
game = "raidboard"
players = 4
policies = ["greedy", "lookahead", "greedy", "greedy"]
games = 5000
seed = 5
chunk_games = 4096
[options]
max_rounds = 12
[grid]
start_gold = [20, 30]
"""
#: One cell, no knobs: 40,000 battles of 878 in chunks of 32,768 and 7,232; both sides play
#: the retreat policy, so some battles end in a retreat (neither side's win).
B878 = """name = "b878"
game = "battle878"
policies = "retreat"
games = 40000
seed = 878
chunk_games = 32768
"""
#: Two knobs (players x start_gold), 4 cells of 400 games.
GRID = """name = "grid"
game = "raidboard"
games = 400
seed = 7
[grid]
players = [3, 4]
start_gold = [10, 20]
"""
#: Two knobs: seat 1 starts with 0 or 60 Gold more (which matters) and start gold 20 or 21.
KNOBS = """name = "knobs"
game = "raidboard"
players = 2
games = 1000
seed = 3
[grid]
seat_gold_step = [0, 60]
start_gold = [20, 21]
"""
#: Three knobs, two cells (only start_gold differs).
THREE = """name = "three"
game = "raidboard"
players = 2
games = 200
seed = 9
[[cases]]
start_gold = 10
target_gold = 100
variant = "circular"
[[cases]]
start_gold = 20
target_gold = 100
variant = "circular"
"""
#: 90 games of 3 players, seat 2 random: the seat furthest from fair is below it.
BELOW = """name = "below"
game = "raidboard"
players = 3
policies = ["greedy", "greedy", "random"]
games = 90
seed = 12
"""


def copy_of(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / folder.name)


def _edit_json(path, edit):
    d = json.loads(path.read_text())
    edit(d)
    path.write_text(json.dumps(d))


@pytest.fixture
def seats(study_run, tmp_path):
    return copy_of(study_run(SEATS), tmp_path)


@pytest.fixture
def battle(study_run, tmp_path):
    return copy_of(study_run(B878), tmp_path)


@pytest.fixture
def grid_study(study_run):
    return study_run(GRID)                  # read only: reports are written elsewhere


@pytest.fixture(scope="module")
def grid_page(study_run, tmp_path_factory) -> str:
    """The text of GRID's page, rendered once for the three tests that only read it (each
    render about 1.5 s of figures); a test that edits it writes its own copy."""
    out = tmp_path_factory.mktemp("grid_page") / "grid.html"
    return read(report.write_report(study_run(GRID), out)[0])


def read(path) -> str:
    return path.read_text(encoding="utf-8")


def images(page: str) -> list[str]:
    return re.findall(r'<img src="([^"]*)"', page)


# ---- an independent reference: counts from the Parquet files, textbook statistics --------------
def rows_of(folder) -> pd.DataFrame:
    """Every finished chunk's per-game rows (``cell`` added), straight from the files."""
    frames = []
    for d in sorted((folder / "data").glob("cell=*")):
        for f in sorted(d.glob("chunk-*.parquet")):
            if f.with_name(f.name.replace(".parquet", ".tally.json")).exists():
                frames.append(pd.read_parquet(f).assign(cell=int(d.name[len("cell="):])))
    return pd.concat(frames, ignore_index=True)


def wins_of(rows: pd.DataFrame, cell: int, seats: int) -> np.ndarray:
    w = rows.loc[rows["cell"] == cell, "winner"].to_numpy()
    return np.bincount(w[w >= 0], minlength=seats)


def wilson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval by its formula (a reference independent of statsmodels)."""
    z, p = norm.ppf(1 - alpha / 2), k / n
    mid, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def score_p(w: int, d: int, k: int) -> float:
    """Two-sided score test of w wins among d decided games against a share of 1/k."""
    z = (w / d - 1 / k) / np.sqrt((1 / k) * (1 - 1 / k) / d)
    return float(2 * norm.sf(abs(z)))


def holm(p) -> tuple[np.ndarray, np.ndarray]:
    """(Holm-adjusted p-values, each hypothesis's step level 0.05 / (m - rank)), by hand."""
    p = np.asarray(p, float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adj, step = np.empty(m), np.empty(m)
    adj[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    step[order] = 0.05 / (m - np.arange(m))
    return adj, step


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def p_words(p: float) -> str:
    return ("p < 0.0001" if p < 1e-4 else f"p = {p:.2g}" if p < 0.01 else
            f"p = {p:.3g}" if p < 0.1 else f"p = {p:.2f}")


def seat_table(rows: pd.DataFrame, cells: dict) -> pd.DataFrame:
    """One row per (cell, seat): wins, games, decided, fair share, margin, score-test p,
    Holm over every row, finding and the margin's interval at its Holm step."""
    out = []
    for cell, k in cells.items():
        w, n = wins_of(rows, cell, k), int((rows["cell"] == cell).sum())
        d = int(w.sum())
        for s in range(k):
            out.append({"cell": cell, "seat": s, "wins": int(w[s]), "games": n, "decided": d,
                        "k": k, "fair": d / n / k, "diff": w[s] / n - d / n / k,
                        "p": score_p(int(w[s]), d, k)})
    t = pd.DataFrame(out)
    t["p_holm"], step = holm(t["p"])
    t["finding"] = t["p_holm"] < 0.05
    ci = [wilson(r.wins, r.decided, a) for r, a in zip(t.itertuples(), step)]
    t["dlo"] = [(lo - 1 / r.k) * r.decided / r.games for (lo, _), r in zip(ci, t.itertuples())]
    t["dhi"] = [(hi - 1 / r.k) * r.decided / r.games for (_, hi), r in zip(ci, t.itertuples())]
    return t


def _span(diffs) -> str:
    lo, hi = min(diffs), max(diffs)
    return f"{100 * lo:+.1f} points" if round(100 * lo, 1) == round(100 * hi, 1) else \
        f"{100 * lo:+.1f} to {100 * hi:+.1f} points"


def seat_words(g: pd.DataFrame, label: dict) -> str:
    """The findings sentence of one seat over several cells (rows of ``seat_table``)."""
    parts = []
    for word, pick in (("above", g["finding"] & (g["diff"] > 0)),
                       ("below", g["finding"] & (g["diff"] < 0))):
        if pick.any():
            parts.append(f"{word} fair in {int(pick.sum())} of {len(g)} cells "
                         f"({_span(g.loc[pick, 'diff'])})")
    noise = g[~g["finding"]].sort_values("diff", key=abs, ascending=False)
    if len(noise):
        shown = [f"{label[r.cell]} ({100 * r.diff:+.1f})" for r in noise.head(3).itertuples()]
        shown += [f"{len(noise) - 3} more"] if len(noise) > 3 else []
        shown = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        parts.append(f"within noise in {len(noise)} of {len(g)} cells: {shown}")
    seat = g["seat"].iloc[0]
    name = "The first player (seat 0)" if seat == 0 else f"Seat {seat}"
    return f"{name}: {'; '.join(parts)}."


# ---- numbers and words --------------------------------------------------------------------------
LABEL = {0: "Start gold 20", 1: "Start gold 30"}


def test_seat_findings_are_worked_out_from_the_rows(seats, capsys):
    assert main(["report", str(seats)]) == 0
    out = capsys.readouterr().out
    rows = rows_of(seats)
    t = seat_table(rows, {0: 4, 1: 4})
    s0 = t[t["seat"] == 0]
    assert s0["finding"].all() and (s0["diff"] > 0).all()            # the case under test
    lo, hi = sorted(100 * s0["diff"])
    assert (f"The first player (seat 0) wins more than its fair share in every cell: {lo:.1f} "
            f"to {hi:.1f} points above it (every Holm-corrected 95% interval excludes "
            f"zero).") in out
    for seat in (1, 2, 3):
        assert seat_words(t[t["seat"] == seat], LABEL) in out, seat
    chi = [chisquare(wins_of(rows, c, 4)).pvalue for c in (0, 1)]
    rejected = int((holm(chi)[0] < 0.05).sum())
    assert (f"The seats differ significantly from equal chances in {rejected} of 2 "
            f"cells") in out
    # policies: lookahead has seat 1 in both cells, greedy the other three seat-games
    for pol, pick in (("lookahead", t["seat"] == 1), ("greedy", t["seat"] != 1)):
        k, n = int(t.loc[pick, "wins"].sum()), int(t.loc[pick, "games"].sum())
        fair = float((t.loc[pick, "fair"] * t.loc[pick, "games"]).sum()) / n
        a, b = wilson(k, n)
        pts = 100 * (k / n - fair)
        where = "at fair" if abs(pts) < 0.05 else \
            f"{abs(pts):.1f} points {'above' if pts > 0 else 'below'} fair"
        assert (f"{pol} wins {pct(k / n)}% [{pct(a)}, {pct(b)}] of its {n:,} seat-games, "
                f"{where} ({pct(fair)}%)") in out, pol
    # the seat whose margin spans the most across the grid
    span = t.groupby("seat")["diff"].agg(lambda d: d.max() - d.min())
    (widest,) = span.index[span.round(9) == span.round(9).max()]
    g = t[t["seat"] == widest]
    a, b = g.loc[g["diff"].idxmin()], g.loc[g["diff"].idxmax()]
    assert (f"Across the grid, seat {widest}'s margin over fair goes from "
            f"{100 * a['diff']:+.1f} points ({LABEL[a['cell']]}) to {100 * b['diff']:+.1f} "
            f"points ({LABEL[b['cell']]}).") in out
    k = int(rows["truncated"].sum())
    assert 0 < k and f"{k:,} games ({pct(k / len(rows))}%) hit the safety cap (truncated)" in out
    # cell 0 seat 0's interval at its Holm step, minus 1/4, in points
    r = t[(t["cell"] == 0) & (t["seat"] == 0)].iloc[0]
    page = read(seats / "report.html")
    assert (f"<td>[{100 * r['dlo']:+.1f}, {100 * r['dhi']:+.1f}]</td>"
            f"<td>{html.escape(p_words(r['p_holm']))}</td><td>yes</td>") in page


def test_the_seat_furthest_from_fair_is_named_even_below_it(study_run, tmp_path):
    folder = copy_of(study_run(BELOW), tmp_path)
    _, words = report.write_report(folder)
    rows = rows_of(folder)
    t = seat_table(rows, {0: 3})
    far = t.loc[t["diff"].abs().idxmax()]
    lead = t.loc[t["diff"].idxmax()]
    assert far["diff"] < 0 and not lead["finding"]                   # the case under test
    assert words[1] == (f"No seat wins measurably more than its fair share: the largest "
                        f"margin, {100 * lead['diff']:+.1f} points, is within noise "
                        f"(Holm-corrected 95% intervals include zero).")
    a, b = wilson(int(far["wins"]), int(far["games"]))
    p = chisquare(wins_of(rows, 0, 3)).pvalue
    verdict = ("the seats differ significantly from equal chances" if p < 0.05 else
               "no significant difference from equal seats")
    said = [w for w in words if w.startswith(f"Seat {far['seat']} (")]
    assert said == [f"Seat {far['seat']} ({['greedy', 'greedy', 'random'][far['seat']]}) wins "
                    f"{pct(far['wins'] / far['games'])}% [{pct(a)}, {pct(b)}] of 3-player "
                    f"games, {abs(100 * far['diff']):.1f} points below fair "
                    f"({pct(far['fair'])}%); {verdict} (chi-square {p_words(p)})."]


def _length_stats(x: np.ndarray) -> tuple:
    mean, se = x.mean(), x.std(ddof=1) / np.sqrt(len(x))
    z = norm.ppf(0.975)
    return mean, mean - z * se, mean + z * se


def test_length_findings_are_worked_out_from_the_rows(seats, tmp_path, capsys):
    assert main(["report", str(seats), "--out", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    rows = rows_of(seats)
    x = rows["rounds"].to_numpy()
    mean, lo, hi = _length_stats(x)
    med, p90 = (int(np.quantile(x, q, method="inverted_cdf")) for q in (0.5, 0.9))
    assert (f"Games last {mean:.1f} rounds on average [{lo:.1f}, {hi:.1f}] (median {med}, 90% "
            f"of games end within {p90}).") in out
    by = {c: _length_stats(rows.loc[rows["cell"] == c, "rounds"].to_numpy()) for c in (0, 1)}
    a, b = sorted(by, key=lambda c: by[c][0])
    assert (f"Mean length goes from {by[a][0]:.1f} rounds ({LABEL[a]}) to {by[b][0]:.1f} "
            f"({LABEL[b]}).") in out
    page = read(tmp_path / "r.html")
    m, lo, hi = by[0]
    assert (f"<td>Start gold 20</td><td class=\"num\">5,000</td><td class=\"num\">{m:.2f}</td>"
            f"<td>[{lo:.2f}, {hi:.2f}]</td>") in page
    assert not (seats / "report.html").exists()                  # --out was used instead


def side_sentence(rows: pd.DataFrame) -> str:
    """The sentence on the side furthest from fair in a one-cell battle878 study."""
    got = rows["outcome"].astype(str).value_counts()
    n = len(rows)
    v, e = int(got.get("vikings_win", 0)), int(got.get("english_win", 0))
    fair = (v + e) / n / 2
    side, k = ("vikings", v) if abs(v / n - fair) >= abs(e / n - fair) else ("english", e)
    a, b = wilson(k, n)
    p = chisquare([v, e]).pvalue
    pts = 100 * (k / n - fair)
    verdict = ("the sides differ significantly from equal chances" if p < 0.05 else
               "no significant difference from equal sides")
    return (f"Side {side} wins {pct(k / n)}% [{pct(a)}, {pct(b)}] of games, {abs(pts):.1f} "
            f"points {'above' if pts > 0 else 'below'} fair ({pct(fair)}%); {verdict} "
            f"(chi-square {p_words(p)}).")


def test_side_findings_of_a_non_seated_game(battle, capsys):
    assert main(["report", str(battle)]) == 0
    out = capsys.readouterr().out
    rows = rows_of(battle)
    got = rows["outcome"].astype(str).value_counts()
    assert side_sentence(rows) in out
    assert "truncated" not in got.index and "No game hit the safety cap." in out
    assert out.strip().endswith(f"wrote {battle / 'report.html'}")
    page = read(battle / "report.html")
    k = int(got["english_retreat"])                              # neither side's win
    assert f"<td>english_retreat</td><td class=\"num\">{k:,}</td>" in page
    never = [o for o in report.load_study(battle).spec.outcomes if not got.get(o, 0)]
    assert never and f"Never happened in any cell: {', '.join(never)}" in page
    assert "Game length" in page and len(images(page)) == 3       # sides, outcomes, length


def test_text_from_the_study_is_escaped_and_report_table_used(seats):
    _edit_json(seats / "study.json", lambda m: m.update(
        report={"title": "<b>Seats & gold</b>", "notes": "<script>alert(1)</script>"}))
    page = read(report.write_report(seats)[0])
    assert "<title>&lt;b&gt;Seats &amp; gold&lt;/b&gt;</title>" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)" in page
    assert page.count("<script>") == 1                      # only the page's own


def _drop_rolls(folder) -> None:
    """The rows without their length column (a game that keeps none)."""
    import pyarrow.parquet as pq

    for f in (folder / "data").glob("cell=*/chunk-*.parquet"):
        pq.write_table(pq.read_table(f).drop_columns(["rolls"]), f)


def test_no_length_column_no_histogram(battle):
    _drop_rolls(battle)
    _, words = report.write_report(battle)
    page = read(battle / "report.html")
    assert "Game length" not in page and len(images(page)) == 2
    assert not any("on average" in w for w in words)


@pytest.fixture
def spy_rows(monkeypatch):
    """The ``columns=`` of every read of per-game rows."""
    asked, real = [], StudyData.rows_dataset

    class Spy:
        def __init__(self, d):
            self.d, self.schema = d, d.schema

        def to_batches(self, columns=None):
            asked.append(columns)
            return self.d.to_batches(columns=columns)

    monkeypatch.setattr(StudyData, "rows_dataset", lambda data, *a: Spy(real(data, *a)))
    return asked


def _same(a: report.CellCount, b: report.CellCount) -> bool:
    def key(c):
        return (c.games, c.outcomes, None if c.wins is None else c.wins.tolist(),
                None if c.length is None else np.trim_zeros(c.length, "b").tolist())
    return key(a) == key(b)


def test_tallies_first_rows_only_for_what_they_lack(seats, battle, spy_rows):
    study = report.load_study(seats)
    counts, length = report.count_games(study)
    assert spy_rows == [] and length == "rounds"             # raidboard tallies rounds_hist
    rows = rows_of(seats)
    assert counts[0].games == 5000 and counts[0].wins.tolist() == wins_of(rows, 0, 4).tolist()
    k = int(rows.loc[rows["cell"] == 1, "truncated"].sum())
    assert k and counts[1].outcomes == {"win": 5000 - k, "truncated": k}
    by_rows, _ = report.count_games(study, "rows")
    assert spy_rows == [["cell", "outcome", "winner", "rounds"]]
    assert all(_same(counts[c], by_rows[c]) for c in counts)
    b878 = report.load_study(battle)
    counts, length = report.count_games(b878)                 # no rolls histogram in the
    assert spy_rows[1:] == [["cell", "rolls"]] and length == "rolls"    # tally: one column
    assert _same(counts[0], report.count_games(b878, "rows")[0][0])
    got = rows_of(battle)["outcome"].astype(str).value_counts()
    assert counts[0].outcomes == {o: int(k) for o, k in got.items()}


def test_a_chunk_without_its_tally_is_not_counted(seats):
    (seats / "data" / "cell=0" / "chunk-000001.tally.json").unlink()   # chunks 4,096 + 904
    study = report.load_study(seats)
    for source in ("auto", "rows"):
        counts, _ = report.count_games(study, source)
        assert counts[0].games == 4096 and counts[0].length.sum() == 4096, source
        assert counts[1].games == 5000, source


def test_tallies_that_cannot_be_summarised_fall_back_to_rows(battle):
    _edit_json(battle / "study.json",
               lambda m: m["cells"][0]["options"].update(attacker="danes"))   # setup fails
    _, words = report.write_report(battle)
    assert any(w.startswith("Counted from the per-game rows: the tallies of study 'b878' "
                            "cannot be summarised") for w in words)
    assert side_sentence(rows_of(battle)) in words
    _edit_json(battle / "study.json", lambda m: m.update(rows=False))  # no rows: one line, 2
    with pytest.raises(InputError, match="cannot be summarised"):
        report.write_report(battle)


def _one_cell(game: str) -> str:
    return f'name = "{game}"\ngame = "{game}"\ngames = 120\nseed = 4\n'


@pytest.mark.parametrize("game", names())
def test_every_registered_game_reports_from_tallies_as_from_rows(study_run, tmp_path, game):
    folder = copy_of(study_run(_one_cell(game), reference=True), tmp_path)
    study = report.load_study(folder)
    auto, length = report.count_games(study)
    rows, length_rows = report.count_games(study, "rows")
    assert length == length_rows and auto[0].games == 120 and _same(auto[0], rows[0])
    page = read(report.write_report(folder)[0])
    assert images(page) and "Findings" in page


def test_from_rows_flag_and_tally_only_refusal(study_run, tmp_path, capsys):
    tallies = SEATS.replace("chunk_games = 4096\n", "chunk_games = 4096\nrows = false\n")
    folder = copy_of(study_run(tallies), tmp_path)
    assert main(["report", str(folder), "--from-rows"]) == 2
    assert "keeps tallies only (rows = false)" in capsys.readouterr().err
    assert main(["report", str(folder), "--quiet"]) == 0
    assert capsys.readouterr().out == f"wrote {folder / 'report.html'}\n"


def test_unfinished_and_decided_cells_are_said(seats):
    def edit(m):
        m["cells"][0]["games"] = 15000                          # planned 15,000 + 5,000
        m["cells"][1]["decided"] = "H1"
        m["complete"] = False
    _edit_json(seats / "study.json", edit)
    text = "\n".join(report.write_report(seats)[1])
    assert "not finished: 50% of the 20,000 planned games played" in text     # 10,000 / 20,000
    assert "The sequential test stopped 1 cell(s) early: Start gold 30 (H1)." in text
    _edit_json(seats / "study.json", lambda m: m.update(complete=True))
    text = "\n".join(report.write_report(seats)[1])
    assert "complete, cells stopped early by the sequential test: 50% of the 20,000" in text


# ---- figures for 0, 1, 2 and 3 knobs ------------------------------------------------------------
def test_two_knob_grid_has_heatmaps_and_provenance(grid_study, grid_page):
    page = grid_page
    assert "heatmaps: points above or below the fair share" in page
    assert "Mean game length (rounds) over the grid" in page
    m = json.loads((grid_study / "study.json").read_text())
    for needle in ("raidboard (Raid board)", m["rules_version"], "<td>7</td>",  # root seed
                   f"numba {m['versions']['numba']}", "players, start_gold",
                   "players=4 start_gold=20", "games planned"):
        assert needle in page, needle
    assert len(images(page)) == 3                   # seats heatmaps, length hist, length grid


def test_a_tally_only_study_counts_as_its_rows(study_run, grid_study, tmp_path):
    tallies = study_run(GRID.replace("seed = 7\n", "seed = 7\nrows = false\n"))
    assert not list(tallies.glob("data/*/*.parquet"))
    by_rows, length = report.count_games(report.load_study(grid_study), "rows")
    by_tally, length_t = report.count_games(report.load_study(tallies))
    assert length == length_t == "rounds"
    for c in by_rows:
        a, b = by_rows[c], by_tally[c]
        assert (a.games, a.outcomes, a.wins.tolist()) == (b.games, b.outcomes, b.wins.tolist())
        assert np.array_equal(np.trim_zeros(a.length, "b"), np.trim_zeros(b.length, "b"))
    page = read(report.write_report(tallies, tmp_path / "t.html")[0])
    assert len(images(page)) == 3


def _wald(wa: int, na: int, wb: int, nb: int) -> tuple[float, float]:
    """(difference b - a, its Wald standard error) of two independent proportions."""
    pa, pb = wa / na, wb / nb
    return pb - pa, np.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)


def test_knob_values_pooled_and_compared_cell_by_cell(study_run, tmp_path):
    folder = study_run(KNOBS)
    path, words = report.write_report(folder, tmp_path / "knobs.html")
    rows = rows_of(folder)
    cells = {c["cell"]: c["grid"] for c in json.loads((folder / "study.json").read_text())["cells"]}
    wins = {c: wins_of(rows, c, 2) for c in cells}
    # the knob table pools the other knob's cells: seat 0 at each extra Gold of seat 1
    page = read(path)
    for value in (0, 60):
        pick = [c for c, g in cells.items() if g["seat_gold_step"] == value]
        k, n = sum(int(wins[c][0]) for c in pick), 1000 * len(pick)
        a, b = wilson(k, n)
        assert (f'<td>seat gold step</td><td>{value}</td><td>seat 0</td><td class="num">'
                f'{k:,}</td><td class="num">{n:,}</td><td class="num">{pct(k / n)}%</td>'
                f'<td>[{pct(a)}, {pct(b)}]</td>') in page, value
    for knob, other in (("seat_gold_step", "start_gold"), ("start_gold", "seat_gold_step")):
        pairs = [(a, b) for a in cells for b in cells if a < b
                 and cells[a][other] == cells[b][other] and cells[a][knob] != cells[b][knob]]
        tests = [(a, b, s, *_wald(int(wins[a][s]), 1000, int(wins[b][s]), 1000))
                 for a, b in pairs for s in (0, 1)]
        p = [2 * norm.sf(abs(d / se)) for *_, d, se in tests]
        adj, step = holm(p)
        found = int((adj < 0.05).sum())
        if knob == "seat_gold_step":
            assert found == 4                                 # 60 Gold more for seat 1 matters
            i = max((j for j in range(4) if adj[j] < 0.05), key=lambda j: abs(tests[j][3]))
            assert any(w.startswith("Seat gold step matters in 4 of 4 comparisons; the largest: "
                                    f"seat {tests[i][2]} wins {abs(100 * tests[i][3]):.1f} "
                                    f"points ") for w in words), words
        else:
            assert found == 0                                    # one more Gold: nothing
            half = max(norm.ppf(1 - a / 2) * se for a, (*_, se) in zip(step, tests))
            big = max(abs(d) for *_, d, _ in tests)
            assert ("Start gold changes nothing measurable: no win rate differs between "
                    "start gold 20 and start gold 21 beyond noise in any of the 4 "
                    f"comparisons (largest difference {100 * big:.1f} points; every "
                    "Holm-corrected 95% interval includes zero and is at most "
                    f"\u00b1{100 * half:.1f} points wide).") in words, words


def test_heatmap_axes_follow_the_study_file(grid_study):
    study = report.load_study(grid_study)
    assert report.heatmap_axes(study) == ("players", "start_gold")          # grid order
    study.manifest["report"] = {"heatmap": ["start_gold", "players"]}
    assert report.heatmap_axes(study) == ("start_gold", "players")
    study.manifest["report"] = {"heatmap": ["start_gold", "nope"]}          # not the knobs
    assert report.heatmap_axes(study) == ("players", "start_gold")


def test_three_knobs_use_bars(study_run, tmp_path):
    folder = study_run(THREE)
    assert json.loads((folder / "study.json").read_text())["grid_keys"] == [
        "start_gold", "target_gold", "variant"]
    page = read(report.write_report(folder, tmp_path / "three.html")[0])
    assert "dashed: fair share" in page and len(images(page)) == 2    # bars, length hist


EXPERIMENT = """name = "tiny"
game = "raidboard"
games = 5000
seed = 11
chunk_games = 4096
[grid]
players = [2, 3]
start_gold = [10, 20]
"""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """``vikingsim experiment`` of EXPERIMENT (4 cells of 5,000 games, chunks of 4,096)."""
    root = tmp_path_factory.mktemp("tiny")
    (root / "tiny.toml").write_text(EXPERIMENT)
    assert main(["experiment", str(root / "tiny.toml"), "--out", str(root / "tiny"),
                 "--quiet", "--workers", "1"]) == 0
    return root / "tiny"


def test_a_real_experiment_run_reports(tiny_run, tmp_path, capsys):
    """The layout as ``vikingsim experiment`` writes it (two chunks per cell)."""
    out = copy_of(tiny_run, tmp_path)
    study = report.load_study(out)
    auto, _ = report.count_games(study)
    rows, _ = report.count_games(study, "rows")
    assert all(auto[c].games == 5000 and _same(auto[c], rows[c]) for c in auto)
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "20,000 games in 4 cells over players and start gold (every planned game played)" \
        in text
    page = read(out / "report.html")
    assert "heatmaps: points above or below the fair share" in page and len(images(page)) == 3


# ---- a study's kind ------------------------------------------------------------------------------
def test_a_kind_adds_its_tables_findings_and_figures(seats, tmp_path, monkeypatch):
    """A fake kind registered for the test: its tables, findings and figures, all given the
    opened StudyData, come after the generic sections (findings in "In short")."""
    import sys
    import types

    from matplotlib.figure import Figure

    from vikingsim.studies import kinds

    fake = types.ModuleType("fake_kind")
    seen = []

    def tables(data):
        seen.append(data)
        return {"Games by cell": data.cells[["cell", "games_done"]].assign(share=[0.25, 0.75])}

    def figures(data, folder):
        fig = Figure(figsize=(2, 2))
        fig.add_subplot().plot([0, 1], [data.entries[0]["games_done"], 0])
        fig.savefig(folder / "fake_games.png")
        return [folder / "fake_games.png"]

    fake.report_tables = tables
    fake.report_findings = lambda data: [f"The fake kind read {len(data.entries)} cells."]
    fake.report_figures = figures
    monkeypatch.setitem(sys.modules, "fake_kind", fake)
    monkeypatch.setitem(kinds.KINDS, "fake", "fake_kind")
    plain, plain_words = report.write_report(seats, tmp_path / "plain.html")
    plain = read(plain)
    _edit_json(seats / "study.json", lambda m: m.update(kind="fake"))
    path, words = report.write_report(seats, tmp_path / "fake.html")
    page = read(path)
    assert isinstance(seen[0], StudyData) and seen[0].root == seats
    assert "The fake kind read 2 cells." in words
    short = page[page.index("<h2>In short</h2>"):page.index("<h2>Findings</h2>")]
    assert "<p>The fake kind read 2 cells.</p>" in short
    assert page.index("<h2>In short</h2>") < page.index("<h2>Fake</h2>") < \
        page.index("<h2>Findings</h2>")          # the kind's answer leads the page
    body = page[page.index("<h2>Fake</h2>"):page.index("<h2>Findings</h2>")]
    assert body.index("<h2>Fake</h2>") < body.index("<h3>Games by cell</h3>")
    assert ('<td class="num">1</td><td class="num">5,000</td><td class="num">0.75</td>'
            in body)
    assert len(images(page)) == len(images(plain)) + 1 and 'alt="fake games"' in body
    assert [w for w in words if w != "The fake kind read 2 cells."] == plain_words
    assert words[1] == "The fake kind read 2 cells."     # right after what was played
    _edit_json(seats / "study.json", lambda m: m.update(kind="nope"))
    words = report.write_report(seats, tmp_path / "nope.html")[1]
    assert any("of kind 'nope', which this vikingsim does not know" in w for w in words)


# ---- bad input ---------------------------------------------------------------------------------
def _corrupt(folder, how):
    m = folder / "study.json"
    if how == "json":
        m.write_text("{not json")
    elif how == "format":
        m.write_text(json.dumps({**json.loads(m.read_text()), "format": "other/9"}))
    elif how == "cells":
        d = json.loads(m.read_text())
        del d["cells"][0]["players"]
        m.write_text(json.dumps(d))
    elif how == "game":
        m.write_text(json.dumps({**json.loads(m.read_text()), "game": "chess"}))
    elif how == "parquet":
        (folder / "data" / "cell=0" / "chunk-000000.parquet").write_bytes(b"PAR1 garbage")
    elif how == "pages":                    # footer intact, column data overwritten
        f = folder / "data" / "cell=0" / "chunk-000001.parquet"
        b = bytearray(f.read_bytes())
        end = len(b) - 8 - int.from_bytes(b[-8:-4], "little")         # footer starts here
        b[4:end] = b"\xff" * (end - 4)
        f.write_bytes(bytes(b))
    elif how == "tally":
        (folder / "data" / "cell=0" / "chunk-000001.tally.json").write_text("{\"chunk\": ")
    elif how == "nodata":
        shutil.rmtree(folder / "data")
    elif how == "strange_cell":
        shutil.copytree(folder / "data" / "cell=0", folder / "data" / "cell=9")


@pytest.mark.parametrize("how, needle", [
    ("json", "corrupt study manifest"), ("format", "format is 'other/9'"),
    ("cells", "cell 0: no 'players'"), ("game", "unknown game 'chess'"),
    ("parquet", "corrupt study data"), ("pages", "corrupt study data"),
    ("tally", "corrupt study tallies"), ("nodata", "has no games yet"),
    ("strange_cell", "data/cell=9, which study.json does not list"),
])
def test_bad_study_exits_2_with_one_line(battle, capsys, how, needle):
    _corrupt(battle, how)           # battle878 tallies keep no rolls histogram: rows are read
    assert main(["report", str(battle)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vikingsim: error: ") and needle in err, err
    assert not (battle / "report.html").exists()


def test_missing_folder_file_and_not_a_study(battle, tmp_path, capsys):
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    for arg, needle in [("nope", "does not exist"), ("f.txt", "a file, not a folder"),
                        ("empty", "is not a study: it has no study.json")]:
        assert main(["report", str(tmp_path / arg)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    assert main(["report", str(battle), "--out", str(tmp_path / "r.txt")]) == 2
    assert "--out must end in .html" in capsys.readouterr().err


# ---- the page in a browser ---------------------------------------------------------------------
def test_page_is_self_contained(grid_page):
    page = grid_page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    srcs = images(page)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    for s in srcs:
        assert base64.b64decode(s.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


def _chromium(args: list[str], timeout: float = 90) -> subprocess.CompletedProcess:
    """Run headless Chromium; a hung browser is killed (its whole process group) and fails."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"chromium did not finish within {timeout} s")
    return subprocess.CompletedProcess(args, p.returncode, out, err)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_page_renders_with_its_figures_in_chromium(grid_page, tmp_path):
    path, page = tmp_path / "page.html", grid_page
    n = len(images(page))
    # control: one more image, a PNG cut after its signature and header, must be caught
    cut = base64.b64encode(base64.b64decode(images(page)[0].split(",", 1)[1])[:60]).decode()
    path.write_text(page.replace("</body>", f'<img id="control" src="data:image/png;base64,'
                                            f'{cut}" alt="control"></body>'), encoding="utf-8")
    p = _chromium([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-extensions", "--disable-sync",
                   "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                   "--virtual-time-budget=5000", "--dump-dom", path.resolve().as_uri()])
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    assert f'data-images="{n}/{n + 1}"' in dom, dom[:500]       # the page's script ran
    assert dom.count('data-rendered="1"') == n >= 3             # every figure decoded
    assert re.search(r'<img id="control"[^>]*data-rendered="0"', dom)
    assert "Findings" in dom and "Provenance" in dom


# ---- real runs, damaged ------------------------------------------------------------------------
def test_missing_chunks_of_a_study_without_sprt_blame_no_sequential_test(tiny_run, tmp_path):
    folder = copy_of(tiny_run, tmp_path)
    for suffix in (".tally.json", ".parquet"):          # chunk 1 of cell 0: 904 games
        (folder / "data" / "cell=0" / f"chunk-000001{suffix}").unlink()
    text = "\n".join(report.write_report(folder)[1])
    assert "sequential" not in text, text
    assert ("complete by study.json, but 904 of its 20,000 games are missing from the data "
            "(rerun with --resume)") in text, text


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("source", [[], ["--from-rows"]])
def test_a_manifest_whose_player_count_disagrees_with_the_data_is_refused(
        tiny_run, tmp_path, capsys, players, source):
    folder = copy_of(tiny_run, tmp_path)                # cell 2: players=3 start_gold=10
    _edit_json(folder / "study.json", lambda m: m["cells"][2].update(players=players))
    assert main(["report", str(folder), *source]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vikingsim: error: "), err
    assert f"study.json gives cell 2 (players=3 start_gold=10) {players} players" in err, err
    assert "3 seats" in err, err
    assert not (folder / "report.html").exists()


def test_a_tally_whose_wins_disagree_with_the_players_is_refused(tiny_run, tmp_path, capsys):
    folder = copy_of(tiny_run, tmp_path)
    tally = folder / "data" / "cell=1" / "chunk-000001.tally.json"
    _edit_json(tally, lambda t: t["tally"]["wins"].append(0))
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert ("data/cell=1/chunk-000001.tally.json counts wins of 3 seats, but study.json gives "
            "cell 1 (players=2 start_gold=20) 2 players") in err, err


def test_rows_won_by_a_seat_beyond_the_players_are_refused(tiny_run, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = copy_of(tiny_run, tmp_path)                # cell 0: 2 players
    path = folder / "data" / "cell=0" / "chunk-000000.parquet"
    table = pq.read_table(path)
    winner = table.column("winner").to_numpy().copy()
    winner[:5] = 2
    i = table.schema.get_field_index("winner")
    pq.write_table(table.set_column(i, "winner", pa.array(winner, table.schema.field(i).type)),
                   path)
    assert main(["report", str(folder), "--from-rows"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert ("data/cell=0 has games won by seat 2, but study.json gives cell 0 (players=2 "
            "start_gold=10) 2 players") in err, err


# ---- a shipped study, run small: what a designer reads first ----------------------------------
@pytest.fixture(scope="module")
def seats_run(tmp_path_factory):
    """experiments/raidboard_seats.toml (2 boards x 2..6 players: 10 cells) at 3,000 games per
    cell, written by the study runner, with its report."""
    from vikingsim.studies.run import run_study

    out = tmp_path_factory.mktemp("seats") / "seats"
    run_study(os.path.join(os.path.dirname(__file__), "..", "experiments",
                           "raidboard_seats.toml"), out, games=3000, workers=1)
    return out


@pytest.fixture(scope="module")
def seats_page(seats_run, tmp_path_factory):
    """(page file, findings) of ``seats_run``'s report, rendered once for the tests that
    only read it (each render costs about 2.5 s of figures); the findings as a tuple, read
    only."""
    path, words = report.write_report(seats_run, tmp_path_factory.mktemp("seats_page")
                                      / "seats.html")
    return path, tuple(words)


def _dom(page_path, tmp_path, width=1200) -> str:
    p = _chromium([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-extensions", "--disable-sync",
                   "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                   f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
                   page_path.resolve().as_uri()])
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_every_figure_text_is_at_least_11_px_as_shown(seats_page, tiny_run, tmp_path):
    """In a 1200 px wide window, each figure's smallest text (heatmap numbers, ticks,
    legends) times the scale the browser shows the PNG at is at least 11 px."""
    tiny, _ = report.write_report(tiny_run, tmp_path / f"{tiny_run.name}.html")
    for path in (seats_page[0], tiny):
        dom = _dom(path, tmp_path)
        shown = re.findall(r'<img[^>]*data-min-font-px="([\d.]+)"[^>]*data-scale="([\d.]+)"'
                           r'|<img[^>]*data-scale="([\d.]+)"[^>]*data-min-font-px="([\d.]+)"',
                           dom)
        sizes = [float(a or d) * float(b or c) for a, b, c, d in shown]
        assert len(sizes) == len(images(read(path))) >= 2, dom[:300]
        assert min(sizes) >= 11, (path.name, sizes)


def test_the_page_opens_with_the_answer_in_plain_words(seats_page):
    path, words = seats_page
    page = read(path)
    body = page[page.index("<body>"):]
    assert body.index("<h2>In short</h2>") < body.index("<h2>Findings</h2>") \
        < body.index("<h2>Win rates by seat</h2>")
    short = re.findall(r"<p>([^<]*)</p>", body[:body.index("<h2>Findings</h2>")])
    assert short[0].startswith("Raid board: 30,000 games in 10 cells over board and players")
    assert short[1].startswith("The first player (seat 0) wins more than its fair share at "
                               "every table size (2 to 6 players) and every board: ")
    assert any(s.startswith("The board changes nothing measurable: no win rate differs "
                            "between Circular board and Ends of the Earth beyond noise")
               for s in short), short
    assert "Ends of the Earth, 3 players" in page and "variant=ends-of-earth players=3" in page
    assert "variant=" not in "\n".join(words)            # raw labels only in the provenance


def _table_after(page: str, caption: str) -> list[list[str]]:
    """Rows (cell texts) of the first table after ``caption``."""
    html = page[page.index(caption):]
    html = html[:html.index("</table>")]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in html.split("<tr>")]
    return [r for r in rows if r]


def _p(text: str) -> float:
    return 0.0 if text == "p &lt; 0.0001" else float(text.split("= ")[1])


def test_a_difference_is_a_finding_only_beyond_noise_after_holm(seats_run, seats_page):
    """Every "beyond noise" margin has a Holm-adjusted p below 5% and a Holm-corrected
    interval that excludes zero, every other one not; each equal-chances decision follows
    the Holm-adjusted p shown; the findings name no within-noise margin as a difference."""
    path, words = seats_page
    page = read(path)
    rows = _table_after(page, "Win rate by seat with 95% Wilson intervals")
    assert len(rows) == 40
    for r in rows:
        lo, hi = (x.strip() for x in r[9].strip("[]").split(","))
        p = _p(r[10])
        # the sign survives rounding: "[-4.7, -0.0]" is an interval below zero
        assert (r[11] == "yes") == (p < 0.05) == (lo.startswith("+") or hi.startswith("-")), r
    study = report.load_study(seats_run)
    counts, _ = report.count_games(study)
    mf = report.build_tables(study, counts)["contenders"]
    assert ((~mf["finding"]) & mf["outside"]).any()   # uncorrected intervals exclude fair
    for who, g in mf.groupby("who"):
        said = [w for w in words if w.startswith(f"{who[0].upper()}{who[1:]}:")
                or who == "seat 0" and w.startswith("The first player (seat 0):")]
        assert len(said) == 1, (who, words)
        for word, sign in (("above", 1), ("below", -1)):
            n = int((g["finding"] & (np.sign(g["diff"]) == sign)).sum())
            assert (f"{word} fair in {n} of" in said[0]) if n else word not in said[0], said
        assert (f"within noise in {int((~g['finding']).sum())} of" in said[0]) \
            == (~g["finding"]).any(), said
    # each seat's sentence, worked out from the rows (Holm over the 40 cell-seat margins)
    m = json.loads((seats_run / "study.json").read_text())
    t = seat_table(rows_of(seats_run), {c["cell"]: c["players"] for c in m["cells"]})
    titles = {c["cell"]: report.cell_title(m, c) for c in m["cells"]}
    for seat, g in t.groupby("seat"):
        assert seat_words(g, titles) in words, seat
    for r in _table_after(page, "Equal chances test per cell"):
        p_holm = _p(r[4])
        assert (r[5] == "yes") == (p_holm < 0.05), r


def test_reject_follows_the_adjusted_p_value():
    import pandas as pd

    cf = pd.DataFrame({"cell": [0, 0, 1, 1], "wins": [540, 460, 545, 455], "games": [1000] * 4})
    tests = report.cell_tests(cf)
    # chi-square 6.4 and 8.1 on 1 df: p = 0.0114, 0.0044; Holm: 2 * 0.0044, max(0.0114, ...)
    assert tests["p"].round(4).tolist() == [0.0114, 0.0044]
    assert tests["p_holm"].round(4).tolist() == [0.0114, 0.0089]
    assert tests["reject"].tolist() == [True, True]
    # chi-square 2 * 34^2 / 500 = 4.624 and 2 * 32^2 / 500 = 4.096: p = erfc(sqrt(chi2 / 2))
    # = 0.0315, 0.0430, each below 5% alone; Holm 2 * 0.0315 = 0.063 for both: no rejection
    t2 = report.cell_tests(cf.assign(wins=[534, 466, 532, 468]))
    assert t2["p"].round(4).tolist() == [0.0315, 0.043]
    assert t2["p_holm"].round(3).tolist() == [0.063, 0.063]
    assert t2["reject"].tolist() == [False, False]


def test_every_cell_has_its_game_length_and_no_legend_covers_data(seats_run, tmp_path):
    study = report.load_study(seats_run)
    counts, length = report.count_games(study)
    fig = report.length_hist_figure(study, counts, length)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [report.cell_label(c)
                                                            for c in study.cells]
    assert len(ax.lines) > 0 and not ax.get_legend()
    cf = report.build_tables(study, counts)["contenders"]
    one = cf[cf["cell"] == 4]                               # a bar chart of one cell's seats
    for f in (report.bars_figure(one, "who", "win rate (%)", fair=True),
              report.lines_figure(study, cf[cf["players"] == 4], "who", "win rate (%)", True)):
        f.draw_without_rendering()
        legends = f.legends + [a.get_legend() for a in f.axes if a.get_legend()]
        assert legends
        box = f.axes[0].get_window_extent()
        for leg in legends:
            assert not leg.get_window_extent().overlaps(box)


def test_an_outcome_every_game_had_is_one_sentence_not_a_table(seats_page):
    page = read(seats_page[0])
    section = page[page.index("<h2>Outcomes</h2>"):page.index("<h2>Game length</h2>")]
    assert "<table>" not in section and "100.0%" not in section
    assert "Every game of every cell ended in win (30,000 games)." in section


def test_grid_finding_names_every_seat_tied_for_the_widest_spread():
    """Two seats whose margins span the same 2 points across the grid are both named (no
    seat is preferred by its number); a seat with a narrower span is not."""
    from types import SimpleNamespace

    import pandas as pd

    cf = pd.DataFrame({"who": ["seat 0", "seat 0", "seat 1", "seat 1", "seat 2", "seat 2"],
                       "cell": [0, 1, 0, 1, 0, 1], "label": ["a", "b"] * 3,
                       "diff": [0.01, 0.03, -0.02, 0.0, 0.0, 0.005]})
    (line,) = report_words._grid_findings(SimpleNamespace(keys=["k"]), cf)
    assert line == ("Across the grid, seat 0's margin over fair goes from +1.0 points (a) to "
                    "+3.0 points (b); seat 1's margin over fair goes from -2.0 points (a) to "
                    "+0.0 points (b).")
