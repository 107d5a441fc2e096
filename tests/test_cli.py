"""The command line as a user meets it: exit codes, one-line errors, JSON.

The ``python -m vikingsim`` entry itself (a JSON run, a one-line error with exit code 2, the
progress bar on a terminal) is run in subprocesses; the other commands' output and errors
through the in-process ``cli`` fixture of ``tests/conftest.py`` (the same ``cli.main``, no new
interpreter: about 1.5 s of CPU each)."""
import json
import os
import subprocess
import sys

import pytest

from vikingsim.games import names


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "vikingsim", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def test_simulate_json_keys():
    p = run("simulate", "raidboard", "-n", "3000", "--json", "--seed", "5", "--players", "3")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("game", "n", "seed", "players", "options", "elapsed_s", "games_per_s",
                "win_rate", "win_rate_ci", "mean_rounds", "sd_rounds", "truncated"):
        assert key in d, key
    assert d["n"] == 3000 and d["seed"] == 5 and len(d["win_rate"]) == 3
    assert all(lo <= p <= hi for p, (lo, hi) in zip(d["win_rate"], d["win_rate_ci"]))
    assert d["options"]["variant"] == "circular"
    assert p.stderr == ""                                   # no bar when stderr is not a tty


def test_entry_bad_input_is_one_line_exit_2(tmp_path):
    """The ``-m vikingsim`` entry turns an input error into exit code 2 and one line."""
    p = run("simulate", "chess", cwd=tmp_path)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith("vikingsim: error: ") and "unknown game 'chess'" in lines[0]
    assert not list(tmp_path.iterdir())


def test_simulate_text_and_per_seat_policies(cli):
    p = cli("simulate", "raidboard", "-n", "2000", "--policy", "greedy", "lookahead",
            "--set", "variant=ends-of-earth")
    assert p.returncode == 0, p.stderr
    assert "seed=20260" in p.stdout and "seat 1" in p.stdout and "95% CI" in p.stdout


@pytest.mark.parametrize("args, needle", [
    (["simulate", "chess"], "unknown game 'chess'"),
    (["simulate", "raidboard", "--set", "nope=1"], "unknown option 'nope'"),
    (["simulate", "raidboard", "--set", "start_gold=abc"], "start_gold"),
    (["simulate", "raidboard", "--set", "variant=flat"], "one of circular, ends-of-earth"),
    (["simulate", "raidboard", "-n", "0"], "n must be"),
    (["simulate", "raidboard", "-n", "ten"], "invalid int value"),
    (["simulate", "raidboard", "--players", "9"], "2 to 8 players"),
    (["simulate", "raidboard", "--policy", "smart"], "unknown policy 'smart'"),
    (["simulate", "raidboard", "--out", "/nonexistent/dir/x.parquet"], "does not exist"),
    (["simulate", "raidboard", "--out", "x.csv"], "must end in .parquet"),
    (["trace", "raidboard", "--seed", "-3"], "seed must be"),
    (["frobnicate"], "invalid choice"),
    (["odds", "raidboard"], "no exact solver"),
])
def test_bad_input_one_line_exit_2(args, needle, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = cli(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in p.stderr, p.stderr
    assert not list(tmp_path.iterdir())                      # nothing written


def test_out_writes_parquet_and_manifest(tmp_path, cli):
    out = tmp_path / "rb.parquet"
    p = cli("simulate", "raidboard", "-n", "1000", "--out", str(out), "--quiet", "--json",
            "--rule-columns")
    assert p.returncode == 0, p.stderr
    import pandas as pd
    df = pd.read_parquet(out)
    assert len(df) == 1000 and (df["rule_variant"] == "circular").all()
    m = json.loads((tmp_path / "rb.manifest.json").read_text())
    assert m["n"] == 1000 and m["game"] == "raidboard" and out.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["rb.manifest.json", "rb.parquet"]


def test_games_lists_every_game_with_options(cli):
    p = cli("games", "--json")
    assert p.returncode == 0, p.stderr
    games = {g["name"]: g for g in json.loads(p.stdout)["games"]}
    assert set(names()) == set(games)
    rb = games["raidboard"]
    opts = {o["name"]: o for o in rb["options"]}
    assert opts["variant"]["choices"] == ["circular", "ends-of-earth"]
    assert {"start_gold", "target_gold", "max_rounds"} <= set(opts)
    assert {p["name"] for p in rb["policies"]} >= {"greedy", "random", "lookahead"}
    assert cli("games").returncode == 0


def test_trace_tells_a_game(cli):
    p = cli("trace", "raidboard", "--seed", "3", "--players", "3")
    assert p.returncode == 0, p.stderr
    assert "round 1" in p.stdout and "wins with" in p.stdout and "moves" in p.stdout


def test_trace_matches_simulated_game(cli):
    from vikingsim.core.runner import simulate
    r = simulate("raidboard", n=5, seed=8, players=2)
    p = cli("trace", "raidboard", "--seed", "8", "--players", "2", "--game-id", "4")
    last = p.stdout.strip().splitlines()[-1]
    assert f"seat {r.out['winner'][4]} wins" in last and f"round {r.out['rounds'][4]}" in last


def _run_with_tty_stderr(*args):
    """Run the CLI with stderr on a pseudo-terminal; return (exit code, stderr text)."""
    import pty

    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "vikingsim", *args], stdout=subprocess.DEVNULL,
                         stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(timeout=600), b"".join(chunks).decode(errors="replace")


def test_progress_bar_on_a_terminal_and_quiet_silences_it():
    code, err = _run_with_tty_stderr("simulate", "raidboard", "-n", "50000", "--threads", "1")
    assert code == 0 and "raidboard" in err and "game" in err, err
    code, err = _run_with_tty_stderr("simulate", "raidboard", "-n", "50000", "--quiet")
    assert code == 0 and err == "", err
