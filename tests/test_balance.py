"""`vikingsim balance` (vikingsim/studies/balance.py): target parsing, knobs, the search on a
synthetic noisy objective with a known optimum, the budget, seeds of the hold-out check
disjoint from the search's, determinism, and bad input (one line, exit 2)."""
import json
import time
from pathlib import Path

import numpy as np
import pytest

from vikingsim.cli import main
from vikingsim.core import runner
from vikingsim.core.errors import InputError
from vikingsim.games import get
from vikingsim.studies import balance as B
from tests.stopping import sigterm_after


# ---- targets -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, players, want", [
    ("1/players", 4, 0.25), ("(players - 1) / (2 * players)", 5, 0.4), ("-0.5 + 1", 2, 0.5),
    ("3", 2, 3.0), ("1e-2", 3, 0.01)])
def test_eval_expr(text, players, want):
    assert B.eval_expr(text, players) == pytest.approx(want)


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "players ** 2", "abs(1)",
                                  "1/0", "x", "players.real", "[1]", "1 if 1 else 2", "'a'",
                                  "True", "1/"])
def test_eval_expr_refuses_anything_else(text):
    with pytest.raises(InputError):
        B.eval_expr(text, 4)


def test_parse_targets_every_seat_and_several():
    t = B.parse_targets(["win_rate[*]=1/players", "p_truncated=0"], 4)
    assert [x.key for x in t] == ["win_rate[0]", "win_rate[1]", "win_rate[2]", "win_rate[3]",
                                  "p_truncated"]
    assert [x.value for x in t] == [0.25] * 4 + [0.0]
    assert all(x.fraction for x in t)
    assert B.parse_targets(["mean_rounds = 8"], 2)[0].fraction is False


@pytest.mark.parametrize("texts, words", [
    ([], "at least one --target"), (["win_rate"], "expected METRIC"),
    (["win_rate[4]=0.25"], "seat 4 does not exist"), (["win_rate[-1]=0.2"], "expected METRIC"),
    (["win_rate[0]=1/players", "win_rate[*]=0.25"], "given twice"),
    (["win_rate[0]=os.getcwd()"], "only numbers")])
def test_parse_targets_bad(texts, words):
    with pytest.raises(InputError, match=words.replace("[", r"\[")):
        B.parse_targets(texts, 4)


def test_check_targets_against_the_summary():
    s = {"win_rate": [0.5, 0.5], "win_rate_ci": [[0, 1], [0, 1]], "mean_rounds": 8.0}
    B.check_targets(B.parse_targets(["win_rate[1]=0.5", "mean_rounds=7"], 2), s)
    for bad, words in (("nosuch=1", "unknown metric"), ("win_rate=0.5", "per seat"),
                       ("mean_rounds[0]=1", "one number")):
        with pytest.raises(InputError, match=words):
            B.check_targets(B.parse_targets([bad], 2), s)


# ---- knobs and seeds -----------------------------------------------------------------------
def test_parse_knob():
    opts = get("raidboard").options
    assert B.parse_knob("seat_gold_step=0..6", opts) == B.Knob("seat_gold_step", "int", 0, 6)
    for bad, words in (("variant=0..1", "only int and float"), ("nosuch=0..1", "unknown option"),
                       ("seat_gold_step=0.5..3", "integers"), ("seat_gold_step=3..3", "LO < HI"),
                       ("seat_gold_step=0-3", "KNOB=LO..HI")):
        with pytest.raises(InputError, match=words):
            B.parse_knob(bad, opts)


def test_derived_seeds_are_spawned_not_incremented():
    s = [B.derive_seed(7, B.SEARCH, stage, r) for stage in range(4) for r in range(5)]
    h = B.derive_seed(7, B.HOLDOUT)
    assert len(set(s)) == len(s) and h not in s
    assert not {7, 8, 9} & set(s + [h])
    assert B.derive_seed(7, B.HOLDOUT) == h and B.derive_seed(8, B.HOLDOUT) != h
    assert all(0 <= x < 2**63 for x in s)


# ---- the search on a synthetic objective ---------------------------------------------------
def synthetic(slope=0.02, best=3.0):
    """A fake noisy 'game': seat 0 wins with p(x) = 0.25 + slope (x - best), n binomial games
    from the given seed; also records every call."""
    calls = []

    def evaluate(setting, n, seed):
        x = next(iter(setting.values()))
        p = min(1.0, max(0.0, 0.25 + slope * (x - best)))
        k = np.random.default_rng(seed).binomial(n, p)
        calls.append((dict(setting), n, seed))
        return {"win_rate": [k / n, 1 - k / n], "win_rate_ci": [[0, 1], [0, 1]]}
    return evaluate, calls


def test_search_finds_the_integer_optimum():
    ev, calls = synthetic()
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    found = B.search(ev, [B.Knob("k", "int", 0, 10)], t, budget=200_000, seed=1)
    assert found.best == {"k": 3}
    assert found.games == sum(n for _, n, _ in calls) <= 200_000
    assert found.games > 0.9 * 200_000                  # the last stage spends what is left
    top = found.table.iloc[0]
    assert top["k"] == 3 and top["games"] == found.table["games"].max()
    # repeated evaluation: a setting played again always gets fresh games (a new seed)
    played = [(setting["k"], seed) for setting, _, seed in calls]
    assert len(played) == len(set(played)) and len({k for k, _ in played}) < len(played)


def test_search_finds_a_float_optimum_within_noise():
    ev, _ = synthetic(slope=0.1, best=1.7)
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    found = B.search(ev, [B.Knob("x", "float", 0.0, 5.0)], t, budget=200_000, seed=2)
    assert abs(found.best["x"] - 1.7) < 0.15           # 0.015 of win rate: ~3 se of 10k games


def test_search_is_deterministic_for_a_seed():
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    runs = [B.search(synthetic()[0], [B.Knob("k", "int", 0, 10)], t, budget=20_000, seed=5)
            for _ in range(2)]
    assert runs[0].best == runs[1].best and runs[0].table.equals(runs[1].table)
    assert runs[0].seeds == runs[1].seeds


def test_loss_is_noise_corrected():
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    # (0.3 - 0.25)^2 - 0.3 * 0.7 / 99 = 0.0025 - 0.00212
    assert B.loss(t, np.array([0.3]), 100) == pytest.approx(0.0025 - 0.21 / 99)
    assert B.loss(B.parse_targets(["mean_rounds=8"], 2), np.array([9.0]), 100) == 1.0


def test_budget_too_small():
    # 0..3 is a grid of 4 settings (played once each): 4 x 4 stages = 16 games at least
    with pytest.raises(InputError, match="too small"):
        B.search(synthetic()[0], [B.Knob("k", "int", 0, 3)],
                 B.parse_targets(["win_rate[0]=0.25"], 2), budget=15, seed=1)
    B.search(synthetic()[0], [B.Knob("k", "int", 0, 3)],
             B.parse_targets(["win_rate[0]=0.25"], 2), budget=16, seed=1)
    with pytest.raises(InputError, match="too small"):            # floats: trials x stages
        B.search(synthetic()[0], [B.Knob("x", "float", 0, 3)],
                 B.parse_targets(["win_rate[0]=0.25"], 2), budget=50, seed=1)


def test_holdout_seeds_are_disjoint_from_the_search():
    ev, calls = synthetic()
    b = B.run_balance("raidboard", ["win_rate[0]=0.25"], ["seat_gold_step=0..10"],
                      budget=20_000, holdout=5_000, players=2, seed=3, evaluate=ev)
    probe, search_calls, hold = calls[0], calls[1:-1], calls[-1]
    assert probe[1] == 1 and hold[1] == 5_000 and hold[0] == b.found.best
    search_seeds = {s for *_, s in search_calls}
    assert search_seeds == set(b.found.seeds)
    assert hold[2] == b.holdout_seed
    assert hold[2] not in search_seeds and probe[2] not in search_seeds
    assert hold[2] == B.derive_seed(3, B.HOLDOUT)                    # spawned, not seed + k
    assert not {3 + i for i in range(-3, 1000)} & (search_seeds | {hold[2], probe[2]})
    r = b.holdout[0]
    assert r["deviation"] == pytest.approx(r["estimate"] - 0.25)
    assert r["deviation_ci"] == pytest.approx([r["ci"][0] - 0.25, r["ci"][1] - 0.25])


def test_holdout_check_intervals_and_tolerance():
    s = {"win_rate": [0.252, 0.248], "win_rate_ci": [[0.250, 0.254], [0.240, 0.256]],
         "mean_rounds": 8.1, "mean_rounds_se": 0.05}
    rows = B.holdout_check(s, B.parse_targets(["win_rate[*]=0.25", "mean_rounds=8"], 2),
                           1000, tolerance=0.005)
    assert rows[0]["ci_within_tolerance"] and not rows[1]["ci_within_tolerance"]
    assert rows[1]["within_tolerance"] and not rows[2]["within_tolerance"]
    assert rows[2]["ci"] == pytest.approx([8.1 - 1.959963984540054 * 0.05,
                                           8.1 + 1.959963984540054 * 0.05])


# ---- the CLI -------------------------------------------------------------------------------
def test_cli_real_small_run(capsys, tmp_path):
    rc = main(["balance", "raidboard", "--players", "3", "--target", "win_rate[*]=1/players",
               "--vary", "seat_gold_step=0..5", "--budget", "5400", "--holdout", "2000",
               "--trials", "9", "--seed", "4", "--json", "--out", str(tmp_path / "b")])
    assert rc == 0
    s = json.loads(capsys.readouterr().out)
    assert set(s["best"]) == {"seat_gold_step"} and 0 <= s["best"]["seat_gold_step"] <= 5
    assert s["search_games"] <= 5400 and s["holdout_games"] == 2000
    assert [r["target"] for r in s["holdout"]] == ["win_rate[0]", "win_rate[1]", "win_rate[2]"]


@pytest.mark.parametrize("argv, words", [
    (["--vary", "seat_gold_step=0..5"], "at least one --target"),
    (["--target", "win_rate[*]=1/players"], "at least one --vary"),
    (["--target", "win_rate[0]=__import__('os')", "--vary", "seat_gold_step=0..5"],
     "only numbers"),
    (["--target", "win_rate[0]=1/players", "--vary", "nosuch=0..5"], "unknown option"),
    (["--target", "win_rate[0]=1/players", "--vary", "variant=0..5"], "only int and float"),
    (["--target", "win_rate[9]=1/players", "--vary", "seat_gold_step=0..5"], "seat 9"),
    (["--target", "win_rate[0]=1/players", "--vary", "seat_gold_step=0..40"], "would start"),
    (["--target", "win_rate[0]=1/players", "--vary", "seat_gold_step=0..5", "--budget", "10"],
     "too small"),
    (["--target", "win_rate[0]=1/players", "--vary", "seat_gold_step=0..5", "--holdout", "0"],
     "holdout"),
    (["--target", "win_rate[0]=1/players", "--vary", "seat_gold_step=0..5", "--set",
      "seat_gold_step=1"], "both --set and --vary"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys):
    rc = main(["balance", "raidboard", "--players", "4", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1, err


def test_unknown_metric_is_refused_after_one_probe_game(capsys, monkeypatch, tmp_path):
    from vikingsim.studies import run as R

    played = []
    real = R.play_chunk

    def spy(task):
        played.append(task.chunk.games)
        return real(task)

    monkeypatch.setattr(R, "play_chunk", spy)
    out = tmp_path / "b"
    rc = main(["balance", "raidboard", "--target", "nosuch=1", "--vary", "seat_gold_step=0..5",
               "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown metric 'nosuch'" in err and played == [1]
    assert not out.exists()                            # the probe game is played elsewhere


# ---- the target's size and metric (issue 22) -------------------------------------------------
def _balance_cli(tmp_path, target, cli, monkeypatch):
    """``vikingsim balance`` (in process, ``cli`` fixture) run in the empty ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    return cli("balance", "raidboard", "--players", "4", "--target", target, "--vary",
               "seat_gold_step=0..5", "--budget", "2000", "--holdout", "100")


@pytest.mark.parametrize("target, words", [
    ("win_rate[0]=" + "+".join(["1"] * 12_000), "24,011 characters long; at most 200"),
    ("win_rate[0]=" + "-" * 2_000 + "1", "2,013 characters long; at most 200"),
    ("win_rate[0]=" + "-" * 50_000 + "1", "50,013 characters long; at most 200"),
    ("win_rate[0]=" + "-" * 21 + "1", "nests operators more than 20 deep"),
    ("win_rate[0]=" + "(1+" * 21 + "1" + ")" * 21, "nests operators more than 20 deep"),
    ("elapsed_s=1", "'elapsed_s' describes the run, not the games; the game metrics are "
     "mean_final_gold, mean_fleets_lost, mean_rounds, mean_settlements, p_truncated, p_win, "
     "sd_rounds, win_rate"),
    ("games_per_s=1e6", "'games_per_s' describes the run"),
    ("truncated=0", "'truncated' counts games (it grows with n); the game metrics are "
     "mean_final_gold,")])
def test_bad_target_is_one_line_exit_2_nothing_written(tmp_path, target, words, cli,
                                                       monkeypatch):
    """Issue 22: 12,000 terms or 2,000 unary minus signs gave a RecursionError traceback,
    50,000 a MemoryError reported as "use a smaller -n"; elapsed_s=1 balanced wall-clock
    time."""
    p = _balance_cli(tmp_path, target, cli, monkeypatch)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(lines) == 1, p.stderr[-500:]
    assert lines[0].startswith("vikingsim: error: ") and words in lines[0], lines[0]
    assert len(lines[0]) < 400 and list(tmp_path.iterdir()) == []


def test_target_bounds_are_inclusive():
    """20 nested operators and 200 characters are accepted; one more is refused."""
    assert B.eval_expr("-" * 20 + "1", 4) == 1.0
    assert B.eval_expr("(1+" * 20 + "1" + ")" * 20, 4) == 21.0
    assert B.parse_targets(["mean_rounds=" + " " * 187 + "1"], 2)[0].value == 1.0
    with pytest.raises(InputError, match="201 characters"):
        B.parse_targets(["mean_rounds=" + " " * 188 + "1"], 2)
    with pytest.raises(InputError, match="more than 20 deep"):
        B.eval_expr("-" * 21 + "1", 4)


def test_only_game_metrics_are_targets():
    s = {"n": 10, "seed": 1, "players": 2, "elapsed_s": 0.1, "games_per_s": 100.0,
         "compile_s": 0.0, "win_rate": [0.5, 0.5], "win_rate_ci": [[0, 1], [0, 1]],
         "mean_rounds": 8.0, "truncated": 0, "p_truncated": 0.0}
    assert B.game_metrics(s) == ["mean_rounds", "p_truncated", "win_rate"]
    for bad in ("elapsed_s=1", "n=5", "seed=1", "compile_s=0", "truncated=0"):
        with pytest.raises(InputError, match="the game metrics are mean_rounds, p_truncated, "
                                             "win_rate$"):
            B.check_targets(B.parse_targets([bad], 2), s)


# ---- one engine: every batch is a study (same figures, resume, Dask, report) -----------------
ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(players=3, targets=["win_rate[*]=1/players"], vary=["seat_gold_step=0..5"],
             budget=5400, holdout=2000, trials=9, seed=4, baseline=True)


def _run(**kw):
    args = {**SMALL, **kw}
    return B.run_balance("raidboard", args.pop("targets"), args.pop("vary"), **args)


def _stored(out):
    """Every stored tally file of every batch study under ``out``, by name."""
    return {str(p.relative_to(out)): p.read_bytes()
            for p in sorted(out.glob("*/data/*/*.tally.json"))}


def test_same_result_as_one_simulate_per_batch(tmp_path):
    """Before batches were studies, each setting of a batch was one ``simulate`` call on the
    batch seed; that evaluation, kept here by hand, gives the very same search table, best
    setting, hold-out and baseline as the studies (read from their stored counts)."""
    def plain(setting, n, seed):
        return runner.simulate("raidboard", n, seed=seed, players=3,
                               options=dict(setting), threads=1, keep=False).summary

    old = _run(evaluate=plain)
    new = _run(out=tmp_path / "b", workers=2)
    assert old.found.table.equals(new.found.table) and old.found.seeds == new.found.seeds
    assert old.summary() == new.summary()
    saved = json.loads((tmp_path / "b" / "balance.json").read_text())
    assert saved["best"] == new.found.best and saved["holdout"] == json.loads(
        json.dumps(new.holdout))
    names = sorted(p.name for p in (tmp_path / "b").iterdir())
    batches = [n for n in names if n.startswith("batch-")]
    # 0..5 is 6 settings, fewer than the 9 trials: stage 0 plays each once (small_grid)
    assert len(batches) == 6 + 3 and set(names) - set(batches) == {"holdout", "balance.json",
                                                                   "search.csv"}


def test_sigterm_then_resume_gives_the_same_result(tmp_path):
    argv = ["balance", "raidboard", "--players", "3", "--target", "win_rate[*]=1/players",
            "--vary", "seat_gold_step=0..5", "--budget", "54000", "--holdout", "2000",
            "--trials", "9", "--seed", "4", "--workers", "1", "--quiet"]
    whole = tmp_path / "whole"
    assert main([*argv, "--out", str(whole)]) == 0
    out = tmp_path / "killed"
    sigterm_after([*argv, "--out", out], out, "batch-0002/data/*/*.tally.json", cwd=tmp_path)
    assert not (out / "balance.json").exists() and not (out / "holdout").exists()
    assert main([*argv, "--out", str(out), "--resume"]) == 0
    assert _stored(out) == _stored(whole)
    for name in ("balance.json", "search.csv"):
        assert (out / name).read_bytes() == (whole / name).read_bytes()


def test_two_worker_dask_gives_the_same_result(tmp_path, dask_cluster):
    local = _run(out=tmp_path / "local", workers=1)
    dask = _run(out=tmp_path / "dask", backend="dask", scheduler=dask_cluster.scheduler_address)
    assert _stored(tmp_path / "dask") == _stored(tmp_path / "local")
    assert dask.summary() == local.summary()


def test_report_opens_the_folder_and_its_batches(tmp_path, capsys):
    from vikingsim.studies.dataset import open_study

    out = tmp_path / "b"
    b = _run(out=out, workers=1)
    assert main(["report", str(out), "--quiet"]) == 0            # its hold-out study
    assert main(["report", str(out / "batch-0000"), "--quiet"]) == 0
    hold = open_study(out / "holdout")
    tables = B.report_tables(hold)
    cells = next(iter(tables.values()))
    assert cells.loc[0, "seat_gold_step"] == b.found.best["seat_gold_step"]
    assert [cells.loc[0, f"win_rate[{s}]"] for s in range(3)] == \
        [r["estimate"] for r in b.holdout]
    assert len(B.report_findings(hold)) == 3
    assert B.report_figures(open_study(out / "batch-0000"), tmp_path / "f")[0].exists()


@pytest.mark.parametrize("make, words", [
    (lambda d: (d / "f").write_text("x") and d / "f", "is a file, not a folder"),
    (lambda d: (d / "o").mkdir() or (d / "o" / "x.txt").write_text("x") and d / "o",
     "is not empty: add --resume"),
])
def test_bad_out_is_one_line_exit_2_before_any_game(make, words, tmp_path, capsys,
                                                    monkeypatch):
    from vikingsim.studies import run as R

    played = []
    monkeypatch.setattr(R, "play_chunk", lambda task: played.append(task))
    rc = main(["balance", "raidboard", "--target", "win_rate[0]=1/players", "--vary",
               "seat_gold_step=0..5", "--out", str(make(tmp_path))])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1 and not played


def test_resume_of_another_balance_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "b"
    _run(out=out, workers=1)
    capsys.readouterr()
    rc = main(["balance", "raidboard", "--players", "3", "--target", "win_rate[*]=1/players",
               "--vary", "seat_gold_step=0..5", "--budget", "5400", "--trials", "9",
               "--seed", "5", "--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "holds a different run (seed" in err


def test_a_stop_while_a_batch_is_planned_says_to_resume_in_one_line(tmp_path, capsys,
                                                                    monkeypatch):
    """A SIGTERM that lands while the runner plans batch-0003 (nothing of it written yet;
    batch-0000..0002 saved): the one line still names --resume (a CI run met this timing)."""
    from vikingsim.studies import run as R

    real = R._plan_run

    def stop_planning_the_fourth_batch(study, *a):
        if study.name.endswith("batch-0003"):
            raise KeyboardInterrupt
        return real(study, *a)

    monkeypatch.setattr(R, "_plan_run", stop_planning_the_fourth_batch)
    with pytest.raises(KeyboardInterrupt):
        _run(out=tmp_path / "b", workers=1)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing was written" in err[0] and "--resume" in err[0], err
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "batch-0000", "batch-0001", "batch-0002"]


def test_a_stop_between_batches_says_in_one_line_what_is_saved(tmp_path, capsys,
                                                              monkeypatch):
    real, calls = B.metric_values, []

    def stop_at_the_third_batch(*a):
        calls.append(1)
        if len(calls) == 3:                           # after batch-0002 is saved
            raise KeyboardInterrupt
        return real(*a)

    monkeypatch.setattr(B, "metric_values", stop_at_the_third_batch)
    with pytest.raises(KeyboardInterrupt):
        _run(out=tmp_path / "b", workers=1)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "finished batches are saved" in err[0] and "--resume" in err[0]
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "batch-0000", "batch-0001", "batch-0002"]
