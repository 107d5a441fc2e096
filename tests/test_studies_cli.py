"""`vikingsim experiment` through the CLI's main: bad study files are one line and exit 2;
--json is one object; a run killed by SIGTERM (a subprocess) and resumed equals an
uninterrupted one, and no chunk file is ever half written under its final name."""
import json
from pathlib import Path

import pandas as pd
import pytest

from vikingsim.cli import main
from vikingsim.studies.dataset import open_study
from vikingsim.studies.run import run_study
from tests.test_studies_run import STUDY, same_dataset, write
from tests.stopping import sigterm_after

ROOT = Path(__file__).resolve().parents[1]
GOOD = STUDY.format(chunk=4096)

BAD = {
    "unknown key": ("colour = 1\n" + GOOD, "unknown key 'colour'"),
    "missing key": (GOOD.replace("games = 10000\n", ""), "missing key 'games'"),
    "unknown game": (GOOD.replace('"raidboard"', '"chess"'), "unknown game 'chess'"),
    "unknown option": (GOOD + "sails = [1, 2]\n", "unknown option 'sails'"),
    "bad option value": (GOOD + "start_gold = [20, -5]\n", "start_gold=-5"),
    "fixed and varied": (GOOD.replace("[grid]", "[options]\nstart_gold = 5\n[grid]")
                         + "start_gold = [1, 2]\n", "'start_gold' is both fixed"),
    "range step 0": (GOOD + "start_gold = {from = 0, to = 10, step = 0}\n", "step > 0"),
    "range backwards": (GOOD + "start_gold = {from = 10, to = 0}\n", "from <= to"),
    "range bad key": (GOOD + "start_gold = {from = 0, upto = 10}\n", "needs from and to"),
    "empty list": (GOOD + "start_gold = []\n", "non-empty list"),
    "bad games": (GOOD.replace("games = 10000", "games = -3"), "games = -3"),
    "bad seed": (GOOD.replace("seed = 303", 'seed = "x"'), "seed = 'x'"),
    "unknown policy": (GOOD.replace("[grid]", 'policies = "clever"\n[grid]'),
                       "unknown policy 'clever'"),
    "bad knob": (GOOD + '"policy.9" = ["random"]\n', "no seat 9"),
    "bad players": (GOOD.replace("players = [2, 3]", "players = [2, 30]"), "2 to 8 players"),
    "not toml": ("game = \n", "not valid TOML"),
    "bad stop": (GOOD + "[stop]\nmetric = \"win_rate[0]\"\np0 = 0.3\np1 = 0.3\n",
                 "p0 and p1 must differ"),
}


def one_error_line(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_study_file_is_one_line_and_exit_2(tmp_path, capsys, case):
    text, words = BAD[case]
    path = write(tmp_path, text)
    line = one_error_line(capsys, ["experiment", str(path), "--out", str(tmp_path / "o")])
    assert words in line and "study.toml" in line, line
    assert not (tmp_path / "o").exists()                  # nothing written


def test_missing_file_and_bad_flags(tmp_path, capsys):
    line = one_error_line(capsys, ["experiment", str(tmp_path / "nope.toml")])
    assert "does not exist" in line and "nope.toml" in line
    path = write(tmp_path, GOOD)
    assert "unknown backend 'spark'" in one_error_line(
        capsys, ["experiment", str(path), "--backend", "spark"])
    assert "--scheduler needs --backend dask" in one_error_line(
        capsys, ["experiment", str(path), "--scheduler", "tcp://x:1"])
    assert "[stop] table" in one_error_line(
        capsys, ["experiment", str(path), "--stop-when-decided", "--out", str(tmp_path / "s")])


def test_json_is_one_object_and_rerun_needs_resume(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    out = str(tmp_path / "o")
    assert main(["experiment", str(path), "--out", out, "--json", "--workers", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["study"] == "seats" and doc["chunks_run"] == 6
    assert doc["cells"][1]["summary"]["win_rate"][0] > 0.3
    assert "--resume" in one_error_line(capsys, ["experiment", str(path), "--out", out])
    assert main(["experiment", str(path), "--out", out, "--resume"]) == 0
    text = capsys.readouterr().out
    assert "0 chunks played, 6 resumed" in text and "players=3" in text


def test_sigterm_then_resume_equals_an_uninterrupted_run(tmp_path):
    path = write(tmp_path, GOOD.replace("games = 10000", "games = 400000")
                 .replace("players = [2, 3]", "players = [4]"))
    out = tmp_path / "killed"
    sigterm_after(["experiment", path, "--out", out, "--workers", "1", "--quiet"], out,
                  at_least=3)
    done = len(list(out.glob("data/*/*.tally.json")))
    assert 3 <= done < 98                                 # 98 chunks: stopped mid-run
    for p in out.glob("data/*/chunk-*.parquet"):          # every final name is a whole file
        assert len(pd.read_parquet(p)) in (4096, 400000 - 97 * 4096)
    resumed = run_study(path, out, workers=2, resume=True)
    assert resumed.chunks_resumed == done
    whole = run_study(path, tmp_path / "whole", workers=2)
    same_dataset(whole, resumed)
    assert not list(out.glob("**/.*.tmp"))
    assert len(open_study(out).games(columns=["winner"])) == 400000


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_nobody_listens_at_leaves_nothing_behind(tmp_path, capsys, monkeypatch):
    """The scheduler is reached before anything is written: the failed run leaves no
    folder, and the next correct run (no --resume) is not refused. (A 2 s connect timeout:
    nobody listens, so waiting the default 20 s twice would only cost time.)"""
    from vikingsim.core import config

    monkeypatch.setattr(config, "DASK_CONNECT_S", 2)
    path = write(tmp_path, GOOD)
    out = tmp_path / "o"
    line = one_error_line(capsys, ["experiment", str(path), "--out", str(out), "--quiet",
                                   "--backend", "dask", "--scheduler",
                                   f"tcp://127.0.0.1:{_free_port()}"])
    assert "cannot reach the Dask scheduler" in line, line
    assert not out.exists()
    (tmp_path / "kept").mkdir()                                  # an existing empty --out
    line = one_error_line(capsys, ["experiment", str(path), "--out", str(tmp_path / "kept"),
                                   "--backend", "dask", "--scheduler",
                                   f"tcp://127.0.0.1:{_free_port()}"])
    assert list((tmp_path / "kept").iterdir()) == []
    assert main(["experiment", str(path), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    assert len(open_study(out).games()) == 20000
