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
def test_seat_findings_are_hand_arithmetic(tmp_path, capsys):
    folder = seated_study(tmp_path)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    # Wilson 95% of 294/1000 = [0.26659, 0.32298]; fair = 1000 decided / 1000 / 4 = 25%;
    # chi-square (44^2 + 0 + 20^2 + 24^2) / 250 = 11.648 on 3 df: p = 0.00869; Holm over the
    # two cells: max(0.00869, 2 * 0.000828) = 0.0087
    assert ("In start_gold=20, seat 0 (greedy) wins 29.4% [26.7, 32.3] of 4-player games, "
            "4.4 points above fair (25.0%); the seats differ significantly from equal chances "
            "(chi-square p = 0.0087, Holm-adjusted over the cells).") in out
    # cell 1: 150/500 = 30%, Wilson [0.26148, 0.34157]; fair = 450 / 500 / 4 = 22.5%;
    # chi-square (37.5^2 + 3 * 12.5^2) / 112.5 = 16.667: p = 0.000828, Holm 2p = 0.0017
    assert ("In start_gold=30, seat 0 (greedy) wins 30.0% [26.1, 34.2] of 4-player games, "
            "7.5 points above fair (22.5%); the seats differ significantly from equal chances "
            "(chi-square p = 0.0017, Holm-adjusted over the cells).") in out
    # lookahead: 250 of its 1000 seat-games, Wilson [0.22415, 0.27776], fair 25%;
    # greedy: (294+230+226+450)/5000 = 24.0%, fair (0.25*3000 + 0.225*2000)/5000 = 24.0%
    assert "lookahead wins 25.0% [22.4, 27.8] of its 1,000 seat-games, at fair (25.0%)" in out
    assert "greedy wins 24.0% [" in out and "of its 5,000 seat-games, at fair (24.0%)" in out
    # seat 0's margin: +4.4 and +7.5 points (the widest span of any seat)
    assert ("Across the grid, seat 0's margin over fair goes from +4.4 points (start_gold=20) "
            "to +7.5 points (start_gold=30).") in out
    assert "50 games (3.3%) hit the safety cap (truncated)" in out           # 50 / 1500
    assert "The seats differ significantly from equal chances in 2 of 2 cells" in out


def test_the_seat_furthest_from_fair_is_named_even_below_it(tmp_path):
    cell = seat_cell(90, 3, ["greedy"], {}, seated([34, 34, 22], 0, [(8, 90)]))
    _, words = report.write_report(write_study(tmp_path, "below", "raidboard", [cell]))
    # fair 30/90 = 33.3%; seat 2: 22/90 = 24.4%, 8.9 points below (seats 0, 1: 4.4 above);
    # chi-square (4^2 + 4^2 + 8^2) / 30 = 3.2 on 2 df: p = exp(-1.6) = 0.20
    assert words[1].startswith("Seat 2 (greedy) wins 24.4% [")
    assert words[1].endswith("of 3-player games, 8.9 points below fair (33.3%); no significant "
                             "difference from equal seats (chi-square p = 0.20).")


def test_length_findings_are_hand_arithmetic(tmp_path, capsys):
    folder = seated_study(tmp_path)
    assert main(["report", str(folder), "--out", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    # pooled: (600*10 + 400*20 + 500*30) / 1500 = 19.333 rounds; sd^2 = (600*9.333^2 +
    # 400*0.667^2 + 500*10.667^2) / 1499 = 72.94, se = 0.2205: +- 0.432; the 750th game has
    # 20 rounds (600 have 10), the 1350th 30; cell means 14.0 and 30.0
    assert ("Games last 19.3 rounds on average [18.9, 19.8] (median 20, 90% of games end "
            "within 30).") in out
    assert "Mean length goes from 14.0 rounds (start_gold=20) to 30.0 (start_gold=30)." in out
    page = read(tmp_path / "r.html")
    # cell 0: sd^2 = (600*16 + 400*36)/999 = 24.024, se = 0.15500: 14.00 +- 0.30379
    assert "<td>start_gold=20</td><td class=\"num\">1,000</td><td class=\"num\">14.00</td>" \
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
    assert "The sequential test stopped 1 cell(s) early: start_gold=30 (H1)." in text
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


def test_knob_values_pooled_over_the_other_knobs(tmp_path):
    wins = {(1, 1): [50, 50], (1, 2): [60, 40], (2, 1): [70, 30], (2, 2): [80, 20]}
    cells = [seat_cell(100, 2, ["greedy"], {"a": a, "b": b}, seated(w, 0, [(5, 100)]))
             for (a, b), w in wins.items()]
    _, words = report.write_report(write_study(tmp_path, "knobs", "raidboard", cells))
    # a=1: seat 0 wins (50 + 60) / 200 = 55%, Wilson [0.48076, 0.61736]; a=2: 150/200 = 75%,
    # Wilson [0.68567, 0.80493]; b=1: 120/200 = 60%, b=2: 140/200 = 70%
    assert ("Over a (other knobs pooled), seat 0 wins from 55.0% [48.1, 61.7] (a=1) to 75.0% "
            "[68.6, 80.5] (a=2).") in words
    assert any(w.startswith("Over b (other knobs pooled), seat 0 wins from 60.0% [") and
               w.endswith("(b=2).") and "to 70.0% [" in w for w in words)


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
    assert "20,000 games in 4 cells over players, start_gold (every planned game played)" in text
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
