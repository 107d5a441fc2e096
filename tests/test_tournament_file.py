"""A study file of kind "tournament" (experiments/raidboard_tournament.toml) run by
`vikingsim experiment` is the tournament `vikingsim tournament` runs from the same values:
the same lineups, the same games in every lineup (stored tallies equal), the same tables."""
import json
from pathlib import Path

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.studies.dataset import cell_tally, read_manifest
from vikingsim.studies.kinds import expand
from vikingsim.studies.spec import load_study

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "experiments" / "raidboard_tournament.toml"
#: the command the file's comment says it equals (the file's values, typed here by hand)
COMMAND = ["tournament", "raidboard", "--policies", "greedy,random,lookahead", "--players", "2",
           "-n", "20000", "--seed", "2027"]
TABLES = ("pairs.csv", "matrix.csv", "seats.csv", "ratings.csv")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """(folder of the file's run, folder of the command's run), each run in this process
    (9 lineups x 20,000 two-player raid board games each: about a second compiled)."""
    from tests.conftest import run_cli

    root = tmp_path_factory.mktemp("tournament_file")
    runs = [run_cli("experiment", str(FILE), "--out", str(root / "file"), "--quiet"),
            run_cli(*COMMAND, "--out", str(root / "command"), "--quiet")]
    for r in runs:
        assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "wrote pairs.csv" in runs[0].stdout           # the tables, as the command says
    return root / "file", root / "command"


def test_the_file_and_the_command_play_the_same_lineups_and_games(both):
    file, command = both
    mf, mc = read_manifest(file), read_manifest(command)
    assert mf["kind"] == mc["kind"] == "tournament" and mf["name"] == "raidboard_tournament"
    assert [c["policies"] for c in mf["cells"]] == [c["policies"] for c in mc["cells"]]
    assert len(mf["cells"]) == 9                         # 3 x 3 ordered pairs x 2 seats, less
    assert mf["report"]["policies"] == ["greedy", "random", "lookahead"]   # the repeats
    for entry in mf["cells"]:
        tf, nf = cell_tally(file, entry["cell"])
        tc, nc = cell_tally(command, entry["cell"])
        assert nf == nc == 20_000
        assert sorted(tf) == sorted(tc) and tf, entry
        for key in tf:
            np.testing.assert_array_equal(tf[key], tc[key], err_msg=f"{entry['cell']}/{key}")


def test_the_file_writes_the_commands_tables(both):
    file, command = both
    for name in TABLES:
        assert (file / name).read_bytes() == (command / name).read_bytes(), name
    jf, jc = (json.loads((d / "tournament.json").read_text()) for d in both)
    assert jf == jc


def test_the_text_a_run_keeps_reads_back_as_the_same_study(both, tmp_path):
    kept = tmp_path / "raidboard_tournament.toml"
    kept.write_text(read_manifest(both[0])["study_toml"])
    again, first = expand(load_study(kept)), expand(load_study(FILE))
    assert again.cases == first.cases and again.kind == "tournament"
    assert again.report == first.report and again.games == first.games
    other = tmp_path / "other.toml"
    other.write_text(kept.read_text().replace('"policy.1" = "random"', '"policy.1" = "greedy"', 1))
    with pytest.raises(InputError, match="drop \\[\\[cases\\]\\]"):
        expand(load_study(other))


@pytest.mark.parametrize("edit, says", [
    (lambda t: t + "\n[grid]\nstart_gold = [10, 20]\n", "drop [grid]"),
    (lambda t: t.replace('policies = ["greedy", "random", "lookahead"]\n', ""),
     "names its entrants"),
    (lambda t: t.replace('"lookahead"]', '"greedy"]'), "given twice"),
    (lambda t: t.replace("seed = 2027\n", "seed = 2027\ncommon_seeds = false\n"), "common seeds"),
    (lambda t: t + "\n[stop]\nmetric = \"win_rate[0]\"\np0 = 0.5\np1 = 0.55\n", "drop [stop]"),
])
def test_a_bad_tournament_file_is_one_line_exit_2(tmp_path, cli, edit, says):
    bad = tmp_path / "bad.toml"
    bad.write_text(edit(FILE.read_text()))
    assert bad.read_text() != FILE.read_text()
    r = cli("experiment", str(bad), "--out", str(tmp_path / "o"), "--quiet")
    assert r.returncode == 2 and says in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
