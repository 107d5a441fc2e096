"""Every shipped study file (experiments/*.toml with ``games``) runs at a small size with
``vikingsim experiment FILE --games N`` and opens in ``vikingsim report`` (issue 19's "Done
when"); ``--games`` is another study (its own hash, recorded in study.json); and the checker
``experiments/check_shipped.py`` tells two folders apart by their games only.

Only run + report is checked here, in this process, at a few games per cell: that a resumed
run after SIGTERM equals an uninterrupted one is tests/test_studies_cli.py
(``test_sigterm_then_resume_equals_an_uninterrupted_run``), that Dask gives the same dataset is
tests/test_studies_dask.py; the checker runs all three on every shipped file and command
example (docs/testing.md, "Shipped examples")."""
import html
import importlib.util
import json
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.test_studies_run import STUDY, write

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml")
               if "games" in tomllib.loads(p.read_text()))

#: shipped files that another test already runs and reports (at a small size)
ELSEWHERE = {
    "raidboard_seats": "tests/test_report.py (seats_run: 3,000 games per cell, its page)",
    "raidboard_seats_by_skill": "tests/test_report_skill.py (run, resume, report)",
    "raidboard_search_strength": "tests/test_report_skill.py (run, report tables)",
    "raidboard_tournament": "tests/test_tournament_file.py (the file and its command)",
}
#: games per cell here: search players few (each cell still plays every seat's policy, and
#: the run-and-report check needs no win rate: 40 games of the search-strength files cost
#: 14-19 s each, 2 games under 2 s)
GAMES = {"raidconquer_by_skill": 1, "tevragnarok_slay_by_skill": 1,
         "raidconquer_search_model": 1, "raidconquer_search_strength": 2,
         "tevragnarok_search_strength": 2, "tevragnarok_search_strength_2p": 2}
HERE = [f for f in FILES if f not in ELSEWHERE]


def test_every_shipped_study_file_is_run_and_reported_by_a_test():
    assert set(ELSEWHERE) <= set(FILES), set(ELSEWHERE) - set(FILES)   # no stale entry
    assert len(FILES) >= 14 and "raidboard_billion" in HERE


@pytest.mark.parametrize("name", HERE)
def test_a_shipped_study_runs_small_and_opens_in_report(tmp_path, name):
    path = ROOT / "experiments" / f"{name}.toml"
    games = GAMES.get(name, 40)
    out = tmp_path / name
    r = run_cli("experiment", str(path), "--games", str(games), "--out", str(out),
                "--workers", "1", "--quiet", "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    m = json.loads((out / "study.json").read_text())
    file_games = tomllib.loads(path.read_text())["games"]
    assert m["complete"] and m["games_override"] == {"file": file_games, "games": games}
    assert {c["games_done"] for c in m["cells"]} == {games}
    r = run_cli("report", str(out), "--quiet", "--out", str(tmp_path / "page.html"))
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "page.html").read_text()
    assert m["name"] in page and html.escape(m.get("title") or m["name"]) in page
    assert f"{games:,} (--games; the file says {file_games:,})" in page


def test_games_is_another_study_and_a_bad_value_is_one_line(tmp_path):
    path = write(tmp_path, STUDY.format(chunk=4096))           # raid board, 2 cells x 10,000
    out = tmp_path / "o"
    r = run_cli("experiment", str(path), "--games", "0", "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "games" in r.stderr, r.stderr
    assert not out.exists()
    assert run_cli("experiment", str(path), "--games", "300", "--out", str(out),
                   "--quiet").returncode == 0
    small = json.loads((out / "study.json").read_text())["study_hash"]
    r = run_cli("experiment", str(path), "--games", "400", "--out", str(out), "--resume")
    assert r.returncode == 2 and "games 300 -> 400" in r.stderr, r.stderr
    r = run_cli("experiment", str(path), "--out", str(tmp_path / "full"), "--quiet")
    full = json.loads((tmp_path / "full" / "study.json").read_text())
    assert r.returncode == 0 and full["study_hash"] != small and "games_override" not in full


def _checker():
    spec = importlib.util.spec_from_file_location("check_shipped",
                                                  ROOT / "experiments" / "check_shipped.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_checker_compares_games_not_clocks(tmp_path):
    check = _checker()
    a = tmp_path / "a"
    (a / "data" / "cell=0").mkdir(parents=True)
    (a / "data" / "cell=0" / "chunk-000000.parquet").write_bytes(b"rows")
    (a / "study.json").write_text(json.dumps({"cells": [{"games": 3}], "versions": {"x": 1},
                                              "elapsed_s": 1.0}))
    (a / "report.html").write_text("a page")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    (b / "study.json").write_text(json.dumps({"cells": [{"games": 3}], "versions": {"x": 2},
                                              "elapsed_s": 9.0}))
    (b / "report.html").write_text("another page")             # not part of the dataset
    assert check.differences(a, b) == []
    (b / "data" / "cell=0" / "chunk-000000.parquet").write_bytes(b"rowz")
    (b / "study.json").write_text(json.dumps({"cells": [{"games": 4}]}))
    (b / "data" / "cell=0" / "chunk-000001.parquet").write_bytes(b"more")
    assert check.differences(a, b) == ["only in one: data/cell=0/chunk-000001.parquet",
                                       "differs: data/cell=0/chunk-000000.parquet",
                                       "differs: study.json"]
