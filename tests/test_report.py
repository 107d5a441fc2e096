"""`vikingsim report`: the study's HTML page, its numbers and words, bad input, and the page
rendering with its figures in headless Chromium.

Studies are written in the fixed ``vikingsim experiment`` layout by ``tests/study_fixture.py``:
hand-made per-game rows (so every expected number is hand arithmetic) or small ``simulate``
runs (the Chromium test)."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import subprocess

import numpy as np
import pytest

from tests.study_fixture import build_study, cell_spec, hand_cell, write_study
from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.games import get, names
from vikingsim.studies import report

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


# ---- hand-made studies ------------------------------------------------------------------------
def seated(wins: list[int], truncated: int, rounds: list[tuple[int, int]]) -> dict:
    """raidboard games: ``wins[s]`` games won by seat s, then ``truncated`` games won by
    nobody; ``rounds`` = [(value, games), ...] in game order."""
    winner = np.concatenate([np.full(k, s) for s, k in enumerate(wins)] +
                            [np.full(truncated, -1)])
    length = np.concatenate([np.full(k, v) for v, k in rounds])
    assert len(length) == len(winner)
    return {"winner": winner, "rounds": length, "truncated": winner < 0}


def seat_cell(games, players, policies, grid, arrays) -> dict:
    meta = {"games": games, "players": players, "policies": policies, "grid": grid}
    return hand_cell("raidboard", meta, arrays)


def seated_study(root, **kw):
    """Two cells over start_gold (one knob), 4 players.
    cell 0 (start_gold=20): 1000 games, wins 294/250/230/226, 400 games of 20 rounds then 600
    of 10 (so later chunks have shorter length histograms); seat 1 plays lookahead.
    cell 1 (start_gold=30): 500 games, wins 150/100/100/100 and 50 truncated, all 30 rounds."""
    c0 = seat_cell(1000, 4, ["greedy", "lookahead", "greedy", "greedy"], {"start_gold": 20},
                   seated([294, 250, 230, 226], 0, [(20, 400), (10, 600)]))
    c1 = seat_cell(500, 4, ["greedy"], {"start_gold": 30},
                   seated([150, 100, 100, 100], 50, [(30, 500)]))
    return write_study(root, "seats", "raidboard", [c0, c1], chunk_games=300, **kw)


def battle_study(root, name="b878", rolls=True):
    """One cell, no knobs: 400 battles, vikings win 220, english 160, 20 both eliminated;
    ``rolls=False`` drops the length column from the rows (a game without one)."""
    keys = list(get("battle878").outcomes)
    counts = {"vikings_win": 220, "english_win": 160, "both_eliminated": 20}
    codes = np.concatenate([np.full(k, keys.index(o)) for o, k in counts.items()])
    meta = {"games": 400, "players": 2, "policies": ["default"], "grid": {}}
    cell = hand_cell("battle878", meta, {"outcome": codes, "rolls": np.arange(400) % 7 + 1})
    if not rolls:
        cell["frame"] = cell["frame"].drop(columns="rolls")
    return write_study(root, name, "battle878", [cell], chunk_games=150)


def read(path) -> str:
    return path.read_text(encoding="utf-8")


def images(page: str) -> list[str]:
    return re.findall(r'<img src="([^"]*)"', page)


# ---- numbers and words --------------------------------------------------------------------------
def wilson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Wilson score interval by its formula (a reference independent of statsmodels)."""
    from scipy.stats import norm

    z, p = norm.ppf(1 - alpha / 2), k / n
    mid, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def test_seat_findings_are_hand_arithmetic(tmp_path, capsys):
    folder = seated_study(tmp_path)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    # margins over fair, score test of wins among the decided games against 1/4:
    # cell 0 seat 0: z = (0.294 - 0.25) / sqrt(0.25 * 0.75 / 1000) = 3.2133, p = 0.001312;
    # cell 1 seat 0: 150/450, z = (1/3 - 1/4) / sqrt(0.1875 / 450) = 4.0825, p = 4.45e-5;
    # Holm over the 8 (cell, seat) margins: 8 * 4.45e-5 = 0.00036, 7 * 0.001312 = 0.0092;
    # the next, cell 0 seat 3 (226, z = -1.7527, p = 0.0797): 6 * 0.0797 = 0.48, not a finding
    assert ("The first player (seat 0) wins more than its fair share in every cell: 4.4 to "
            "7.5 points above it (every Holm-corrected 95% interval excludes zero).") in out
    # cell 1: 100/500 - 450/500/4 = -2.5 points for seats 1-3
    assert ("Seat 3: within noise in 2 of 2 cells: Start gold 30 (-2.5) and Start gold 20 "
            "(-2.4).") in out
    assert "The seats differ significantly from equal chances in 2 of 2 cells" in out
    # lookahead: 250 of its 1000 seat-games, Wilson [0.22415, 0.27776], fair 25%;
    # greedy: (294+230+226+450)/5000 = 24.0%, fair (0.25*3000 + 0.225*2000)/5000 = 24.0%
    assert "lookahead wins 25.0% [22.4, 27.8] of its 1,000 seat-games, at fair (25.0%)" in out
    assert "greedy wins 24.0% [" in out and "of its 5,000 seat-games, at fair (24.0%)" in out
    # seat 0's margin: +4.4 and +7.5 points (the widest span of any seat)
    assert ("Across the grid, seat 0's margin over fair goes from +4.4 points (Start gold 20) "
            "to +7.5 points (Start gold 30).") in out
    assert "50 games (3.3%) hit the safety cap (truncated)" in out           # 50 / 1500
    # cell 0 seat 0's interval at its Holm step (alpha 0.05 / 7), minus 1/4, in points
    lo, hi = wilson(294, 1000, 0.05 / 7)
    page = read(folder / "report.html")
    assert (f"<td>[{100 * (lo - 0.25):+.1f}, {100 * (hi - 0.25):+.1f}]</td><td>p = 0.0092</td>"
            f"<td>yes</td>") in page
    assert "[+0.7, +8.4]" in page                       # the same, worked out once


def test_the_seat_furthest_from_fair_is_named_even_below_it(tmp_path):
    cell = seat_cell(90, 3, ["greedy"], {}, seated([34, 34, 22], 0, [(8, 90)]))
    _, words = report.write_report(write_study(tmp_path, "below", "raidboard", [cell]))
    # fair 30/90 = 33.3%; seat 2: 22/90 = 24.4%, 8.9 points below (seats 0, 1: 4.4 above);
    # chi-square (4^2 + 4^2 + 8^2) / 30 = 3.2 on 2 df: p = exp(-1.6) = 0.20
    # score tests against 1/3: seats 0, 1 z = (34/90 - 1/3) / sqrt(2/9/90) = 0.894, seat 2
    # z = -1.789, p = 0.074; Holm over 3: 3 * 0.074 = 0.22: no finding
    assert words[1] == ("No seat wins measurably more than its fair share: the largest margin, "
                        "+4.4 points, is within noise (Holm-corrected 95% intervals include "
                        "zero).")
    seat2 = [w for w in words if w.startswith("Seat 2 (greedy) wins 24.4% [")]
    assert len(seat2) == 1 and seat2[0].endswith(
        "of 3-player games, 8.9 points below fair (33.3%); no significant difference from "
        "equal seats (chi-square p = 0.20).")


def test_length_findings_are_hand_arithmetic(tmp_path, capsys):
    folder = seated_study(tmp_path)
    assert main(["report", str(folder), "--out", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    # pooled: (600*10 + 400*20 + 500*30) / 1500 = 19.333 rounds; sd^2 = (600*9.333^2 +
    # 400*0.667^2 + 500*10.667^2) / 1499 = 72.94, se = 0.2205: +- 0.432; the 750th game has
    # 20 rounds (600 have 10), the 1350th 30; cell means 14.0 and 30.0
    assert ("Games last 19.3 rounds on average [18.9, 19.8] (median 20, 90% of games end "
            "within 30).") in out
    assert "Mean length goes from 14.0 rounds (Start gold 20) to 30.0 (Start gold 30)." in out
    page = read(tmp_path / "r.html")
    # cell 0: sd^2 = (600*16 + 400*36)/999 = 24.024, se = 0.15500: 14.00 +- 0.30379
    assert "<td>Start gold 20</td><td class=\"num\">1,000</td><td class=\"num\">14.00</td>" \
           "<td>[13.70, 14.30]</td>" in page
    assert not (folder / "report.html").exists()                  # --out was used instead


def test_side_findings_of_a_non_seated_game(tmp_path, capsys):
    folder = battle_study(tmp_path)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    # 220/400 = 55%, Wilson [0.50100, 0.59805]; fair = 380 / 400 / 2 = 47.5%;
    # chi-square (30^2 + 30^2) / 190 = 9.474 on 1 df: p = 0.00208
    assert ("Side vikings wins 55.0% [50.1, 59.8] of games, 7.5 points above fair (47.5%); "
            "the sides differ significantly from equal chances (chi-square p = 0.0021).") in out
    assert "No game hit the safety cap." in out
    assert out.strip().endswith(f"wrote {folder / 'report.html'}")
    page = read(folder / "report.html")
    assert "<td>both_eliminated</td><td class=\"num\">20</td>" in page
    assert "Never happened in any cell: gods_peace" in page
    assert "Game length" in page and len(images(page)) == 3       # sides, outcomes, length


def test_text_from_the_study_is_escaped_and_report_table_used(tmp_path):
    folder = seated_study(tmp_path, report={"title": "<b>Seats & gold</b>",
                                            "notes": "<script>alert(1)</script>"})
    page = read(report.write_report(folder)[0])
    assert "<title>&lt;b&gt;Seats &amp; gold&lt;/b&gt;</title>" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)" in page
    assert page.count("<script>") == 1                      # only the page's own


def test_no_length_column_no_histogram(tmp_path):
    folder = battle_study(tmp_path, rolls=False)
    _, words = report.write_report(folder)
    page = read(folder / "report.html")
    assert "Game length" not in page and len(images(page)) == 2
    assert not any("on average" in w for w in words)


@pytest.fixture
def spy_rows(monkeypatch):
    """The ``columns=`` of every read of per-game rows."""
    asked, real = [], report._dataset

    class Spy:
        def __init__(self, d):
            self.d, self.schema = d, d.schema

        def to_batches(self, columns=None):
            asked.append(columns)
            return self.d.to_batches(columns=columns)

    monkeypatch.setattr(report, "_dataset", lambda study: Spy(real(study)))
    return asked


def _same(a: report.CellCount, b: report.CellCount) -> bool:
    def key(c):
        return (c.games, c.outcomes, None if c.wins is None else c.wins.tolist(),
                None if c.length is None else np.trim_zeros(c.length, "b").tolist())
    return key(a) == key(b)


def test_tallies_first_rows_only_for_what_they_lack(tmp_path, spy_rows):
    seats = report.load_study(seated_study(tmp_path))
    counts, length = report.count_games(seats)
    assert spy_rows == [] and length == "rounds"             # raidboard tallies rounds_hist
    assert counts[0].games == 1000 and counts[0].wins.tolist() == [294, 250, 230, 226]
    assert counts[1].outcomes == {"win": 450, "truncated": 50}
    rows, _ = report.count_games(seats, "rows")
    assert spy_rows == [["cell", "outcome", "winner", "rounds"]]
    assert all(_same(counts[c], rows[c]) for c in counts)
    battle = report.load_study(battle_study(tmp_path))
    counts, length = report.count_games(battle)                # no rolls histogram in the
    assert spy_rows[1:] == [["cell", "rolls"]] and length == "rolls"    # tally: one column
    assert _same(counts[0], report.count_games(battle, "rows")[0][0])
    assert counts[0].outcomes == {"vikings_win": 220, "english_win": 160, "both_eliminated": 20}


def test_a_chunk_without_its_tally_is_not_counted(tmp_path):
    study = report.load_study(seated_study(tmp_path))     # cell 0: chunks of 300, 300, 300, 100
    (study.path / "data" / "cell=0" / "chunk-000003.tally.json").unlink()   # unfinished chunk
    for source in ("auto", "rows"):
        counts, _ = report.count_games(study, source)
        assert counts[0].games == 900 and counts[0].length.sum() == 900, source


def test_tallies_that_cannot_be_summarised_fall_back_to_rows(tmp_path):
    folder = battle_study(tmp_path)
    m = json.loads((folder / "study.json").read_text())
    m["cells"][0]["options"]["attacker"] = "danes"          # the cell's setup now fails
    (folder / "study.json").write_text(json.dumps(m))
    _, words = report.write_report(folder)
    assert any(w.startswith("Counted from the per-game rows: the tallies of study 'b878' "
                            "cannot be summarised") for w in words)
    assert any("Side vikings wins 55.0% [50.1, 59.8]" in w for w in words)
    m["rows"] = False                                       # and without rows: one line, 2
    (folder / "study.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match="cannot be summarised"):
        report.write_report(folder)


@pytest.mark.parametrize("game", names())
def test_every_registered_game_reports_from_tallies_as_from_rows(tmp_path, game):
    folder = build_study(tmp_path, game, game, [cell_spec(120)], chunk_games=50,
                         reference=True)
    study = report.load_study(folder)
    auto, length = report.count_games(study)
    rows, length_rows = report.count_games(study, "rows")
    assert length == length_rows and auto[0].games == 120 and _same(auto[0], rows[0])
    page = read(report.write_report(folder)[0])
    assert images(page) and "Findings" in page


def test_from_rows_flag_and_tally_only_refusal(tmp_path, capsys):
    folder = seated_study(tmp_path, rows=False)
    assert main(["report", str(folder), "--from-rows"]) == 2
    assert "keeps tallies only (rows = false)" in capsys.readouterr().err
    assert main(["report", str(folder), "--quiet"]) == 0
    assert capsys.readouterr().out == f"wrote {folder / 'report.html'}\n"


def test_unfinished_and_decided_cells_are_said(tmp_path):
    folder = seated_study(tmp_path)
    m = json.loads((folder / "study.json").read_text())
    m["cells"][0]["games"] = 4000                                   # planned 4000 + 500
    m["cells"][1]["decided"] = "H1"
    (folder / "study.json").write_text(json.dumps(m))
    _, words = report.write_report(folder)
    text = "\n".join(words)
    assert "not finished: 33% of the 4,500 planned games played" in text       # 1500 / 4500
    assert "The sequential test stopped 1 cell(s) early: Start gold 30 (H1)." in text
    m["complete"] = True
    (folder / "study.json").write_text(json.dumps(m))
    text = "\n".join(report.write_report(folder)[1])
    assert "complete, cells stopped early by the sequential test: 33% of the 4,500" in text


# ---- figures for 0, 1, 2 and 3 knobs ------------------------------------------------------------
@pytest.fixture(scope="module")
def grid_study(tmp_path_factory):
    """Simulated raidboard study over two knobs (players x start_gold), 4 cells of 400 games."""
    cells = [cell_spec(400, grid={"players": p, "start_gold": g}) for p in (3, 4) for g in (10, 20)]
    return build_study(tmp_path_factory.mktemp("grid"), "grid", "raidboard", cells,
                       chunk_games=150)


def test_two_knob_grid_has_heatmaps_and_provenance(grid_study):
    path, _ = report.write_report(grid_study)
    page = read(path)
    assert "heatmaps: points above or below the fair share" in page
    assert "Mean game length (rounds) over the grid" in page
    m = json.loads((grid_study / "study.json").read_text())
    for needle in ("raidboard (Raid board)", m["rules_version"], "<td>7</td>",  # root seed
                   f"numba {m['versions']['numba']}", "players, start_gold",
                   "players=4 start_gold=20", "games planned"):
        assert needle in page, needle
    assert len(images(page)) == 3                   # seats heatmaps, length hist, length grid


def test_a_tally_only_study_counts_as_its_rows(grid_study, tmp_path):
    cells = [cell_spec(400, grid={"players": p, "start_gold": g}) for p in (3, 4) for g in (10, 20)]
    tallies = build_study(tmp_path, "grid", "raidboard", cells, chunk_games=150, rows=False)
    assert not list(tallies.glob("data/*/*.parquet"))
    by_rows, length = report.count_games(report.load_study(grid_study))
    by_tally, length_t = report.count_games(report.load_study(tallies))
    assert length == length_t == "rounds"
    for c in by_rows:
        a, b = by_rows[c], by_tally[c]
        assert (a.games, a.outcomes, a.wins.tolist()) == (b.games, b.outcomes, b.wins.tolist())
        assert np.array_equal(np.trim_zeros(a.length, "b"), np.trim_zeros(b.length, "b"))
    page = read(report.write_report(tallies)[0])
    assert len(images(page)) == 3


def test_knob_values_pooled_and_compared_cell_by_cell(tmp_path):
    wins = {(1, 1): [50, 50], (1, 2): [60, 40], (2, 1): [70, 30], (2, 2): [80, 20]}
    cells = [seat_cell(100, 2, ["greedy"], {"a": a, "b": b}, seated(w, 0, [(5, 100)]))
             for (a, b), w in wins.items()]
    path, words = report.write_report(write_study(tmp_path, "knobs", "raidboard", cells))
    # a=1: seat 0 wins (50 + 60) / 200 = 55%, Wilson [0.48076, 0.61736]; a=2: 150/200 = 75%,
    # Wilson [0.68567, 0.80493] (the knob table pools the other knob's cells)
    page = read(path)
    for value, k, rate, ci in (("1", 110, "55.0", "[48.1, 61.7]"), ("2", 150, "75.0",
                                                                      "[68.6, 80.5]")):
        assert (f'<td>a</td><td>{value}</td><td>seat 0</td><td class="num">{k}</td>'
                f'<td class="num">200</td><td class="num">{rate}%</td><td>{ci}</td>') in page
    # a: cells equal in b compared: 50 vs 70 and 60 vs 80 of 100 (each seat): Wald z = 2.949,
    # 3.162, p = 0.0032, 0.0016; Holm over 4: 4 * 0.0016 = 0.0063 ... all below 0.05
    assert any(w.startswith("A matters in 4 of 4 comparisons; the largest: seat ")
               and "wins 20.0 points " in w for w in words), words
    # b: 50 vs 60 (se 0.07, p = 0.153) and 70 vs 80 (se 0.06083, p = 0.100): Holm none; the
    # widest interval: se 0.07 at the third Holm step (alpha 0.025, z 2.2414): +-15.7 points
    assert ("B changes nothing measurable: no win rate differs between b 1 and b 2 beyond "
            "noise in any of the 4 comparisons (largest difference 10.0 points; every "
            "Holm-corrected 95% interval includes zero and is at most \u00b115.7 points wide)."
            ) in words, words


def test_heatmap_axes_follow_the_study_file(grid_study):
    study = report.load_study(grid_study)
    assert report.heatmap_axes(study) == ("players", "start_gold")          # grid order
    study.manifest["report"] = {"heatmap": ["start_gold", "players"]}
    assert report.heatmap_axes(study) == ("start_gold", "players")
    study.manifest["report"] = {"heatmap": ["start_gold", "nope"]}          # not the knobs
    assert report.heatmap_axes(study) == ("players", "start_gold")


def test_three_knobs_use_bars(tmp_path):
    rows = [seat_cell(100, 2, ["greedy"], {"a": a, "b": 1, "c": "x"},
                      seated([60, 40], 0, [(5, 100)])) for a in (1, 2)]
    folder = write_study(tmp_path, "three", "raidboard", rows)
    page = read(report.write_report(folder)[0])
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


def test_a_real_experiment_run_reports(tmp_path, capsys):
    """The layout as ``vikingsim experiment`` writes it (two chunks per cell)."""
    (tmp_path / "tiny.toml").write_text(EXPERIMENT)
    out = tmp_path / "tiny"
    assert main(["experiment", str(tmp_path / "tiny.toml"), "--out", str(out), "--quiet",
                 "--workers", "1"]) == 0
    capsys.readouterr()
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
def test_bad_study_exits_2_with_one_line(tmp_path, capsys, how, needle):
    folder = battle_study(tmp_path)
    _corrupt(folder, how)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vikingsim: error: ") and needle in err, err
    assert not (folder / "report.html").exists()


def test_missing_folder_file_and_not_a_study(tmp_path, capsys):
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    for arg, needle in [("nope", "does not exist"), ("f.txt", "a file, not a folder"),
                        ("empty", "is not a study: it has no study.json")]:
        assert main(["report", str(tmp_path / arg)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    folder = battle_study(tmp_path)
    assert main(["report", str(folder), "--out", str(tmp_path / "r.txt")]) == 2
    assert "--out must end in .html" in capsys.readouterr().err


# ---- the page in a browser ---------------------------------------------------------------------
def test_page_is_self_contained(grid_study, tmp_path):
    path, _ = report.write_report(grid_study, tmp_path / "page.html")
    page = read(path)
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
def test_page_renders_with_its_figures_in_chromium(grid_study, tmp_path):
    path, _ = report.write_report(grid_study, tmp_path / "page.html")
    page = read(path)
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
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """``vikingsim experiment`` of EXPERIMENT (4 cells of 5,000 games, chunks of 4,096)."""
    root = tmp_path_factory.mktemp("tiny")
    (root / "tiny.toml").write_text(EXPERIMENT)
    assert main(["experiment", str(root / "tiny.toml"), "--out", str(root / "tiny"),
                 "--quiet", "--workers", "1"]) == 0
    return root / "tiny"


def copy_of(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / folder.name)


def test_missing_chunks_of_a_study_without_sprt_blame_no_sequential_test(tiny_run, tmp_path):
    folder = copy_of(tiny_run, tmp_path)
    for suffix in (".tally.json", ".parquet"):          # chunk 1 of cell 0: 904 games
        (folder / "data" / "cell=0" / f"chunk-000001{suffix}").unlink()
    text = "\n".join(report.write_report(folder)[1])
    assert "sequential" not in text, text
    assert ("complete by study.json, but 904 of its 20,000 games are missing from the data "
            "(rerun with --resume)") in text, text


def _edit_json(path, edit):
    d = json.loads(path.read_text())
    edit(d)
    path.write_text(json.dumps(d))


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


def _dom(page_path, tmp_path, width=1200) -> str:
    p = _chromium([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-extensions", "--disable-sync",
                   "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                   f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
                   page_path.resolve().as_uri()])
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_every_figure_text_is_at_least_11_px_as_shown(seats_run, tiny_run, tmp_path):
    """In a 1200 px wide window, each figure's smallest text (heatmap numbers, ticks,
    legends) times the scale the browser shows the PNG at is at least 11 px."""
    for folder in (seats_run, tiny_run):
        path, _ = report.write_report(folder, tmp_path / f"{folder.name}.html")
        dom = _dom(path, tmp_path)
        shown = re.findall(r'<img[^>]*data-min-font-px="([\d.]+)"[^>]*data-scale="([\d.]+)"'
                           r'|<img[^>]*data-scale="([\d.]+)"[^>]*data-min-font-px="([\d.]+)"',
                           dom)
        sizes = [float(a or d) * float(b or c) for a, b, c, d in shown]
        assert len(sizes) == len(images(read(path))) >= 2, dom[:300]
        assert min(sizes) >= 11, (folder.name, sizes)


def test_the_page_opens_with_the_answer_in_plain_words(seats_run, tmp_path):
    path, words = report.write_report(seats_run, tmp_path / "seats.html")
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


def test_a_difference_is_a_finding_only_beyond_noise_after_holm(seats_run, tmp_path):
    """Every "beyond noise" margin has a Holm-adjusted p below 5% and a Holm-corrected
    interval that excludes zero, every other one not; each equal-chances decision follows
    the Holm-adjusted p shown; the findings name no within-noise margin as a difference."""
    path, words = report.write_report(seats_run, tmp_path / "seats.html")
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


def test_an_outcome_every_game_had_is_one_sentence_not_a_table(seats_run, tmp_path):
    page = read(report.write_report(seats_run, tmp_path / "seats.html")[0])
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
    (line,) = report._grid_findings(SimpleNamespace(keys=["k"]), cf)
    assert line == ("Across the grid, seat 0's margin over fair goes from +1.0 points (a) to "
                    "+3.0 points (b); seat 1's margin over fair goes from -2.0 points (a) to "
                    "+0.0 points (b).")
