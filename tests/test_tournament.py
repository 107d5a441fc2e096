"""`vikingsim tournament` (vikingsim/studies/tournament.py): lineup scheme, matrix shape and
symmetry, common seeds, ratings against the library fit, files, and bad input."""
import errno
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.proportion import proportion_confint

from vikingsim.cli import main
from vikingsim.core import runner
from vikingsim.core.errors import InputError
from vikingsim.studies import tournament as T
from tests.stopping import sigterm_after

POLICIES = "greedy,random,lookahead"
N = 300


@pytest.fixture(scope="module")
def two_seat():
    return T.run_tournament("raidboard", POLICIES, players=2, n=N, seed=11, workers=1)


@pytest.fixture(scope="module")
def four_seat():
    return T.run_tournament("raidboard", "greedy,lookahead(settle_value=20)", players=4, n=N,
                            seed=12, threads=1)


def test_split_policies_keeps_commas_inside_brackets():
    assert T.split_policies("greedy, lookahead(settle_value=10, miss_cost=4),random") == [
        "greedy", "lookahead(settle_value=10, miss_cost=4)", "random"]
    for bad in ("greedy,,random", "lookahead(settle_value=1", "greedy)"):
        with pytest.raises(InputError):
            T.split_policies(bad)


def test_lineup_plan_rotates_the_focal_policy_over_every_seat():
    plan = T.lineup_plan(3, 4)
    assert len(plan) == 3 * 3 * 4
    for a in range(3):
        for b in range(3):
            rows = [(j, lu) for x, y, j, lu in plan if (x, y) == (a, b)]
            assert sorted(j for j, _ in rows) == [0, 1, 2, 3]
            for j, lu in rows:
                assert lu[j] == a and all(lu[s] == b for s in range(4) if s != j)


def test_matrix_shape_and_two_seat_symmetry(two_seat):
    t = two_seat
    m = t.matrix.to_numpy()
    assert m.shape == (3, 3) and list(t.matrix.index) == list(t.matrix.columns) == \
        ["greedy", "random", "lookahead"]
    # no truncation at the default cap: the focal rate of (a, b) plus that of (b, a) is 1 (the
    # same games, seats swapped), and a vs a is exactly fair (identical lineups)
    assert t.lineups.groupby("lineup_id")["wins"].sum().eq(N).all()
    assert np.allclose(m + m.T, 1.0)
    assert np.allclose(np.diag(m), 0.5)
    assert t.games_played == N * (3 * 2 + 3 * 1)      # 6 ordered pairs a != b + 3 a-vs-a lineups


def test_four_seat_matrix_diagonal_fair_and_lineups_sum(four_seat):
    t = four_seat
    m = t.matrix.to_numpy()
    assert m.shape == (2, 2)
    assert np.allclose(np.diag(m), 0.25)              # a alone among a's: same games, any seat
    # every lineup's seat win rates add up to its decided share (1 here: nothing truncated)
    assert np.allclose(t.lineups.groupby("lineup_id")["win_rate"].sum(), 1.0)
    # each cell pools K rotations of n games; its intervals bracket it
    assert (t.pairs["games"] == 4 * N).all()
    p = t.pairs
    assert ((p["ci_lo"] <= p["win_rate"]) & (p["win_rate"] <= p["ci_hi"])).all()
    # seats: every seat sees every policy equally often; the rates add up to 1
    assert math.isclose(t.seats["win_rate"].sum(), 1.0)
    # ... pooled over the 2 + 2 x 4 = 10 distinct lineups, a vs a once (not once per rotation)
    wins = t.lineups.groupby("seat")["wins"].sum()
    assert t.lineups["lineup_id"].nunique() == 10
    for seat in range(4):
        assert t.seats.loc[seat, "wins"] == wins[seat] and t.seats.loc[seat, "games"] == 10 * N
    assert t.summary()["first_seat"]["seat"] == 0
    assert set(t.pairs["opponent"]) == {"greedy", "lookahead(settle_value=20.0)"}


def _fixed(k, same, mixed, n=10):
    """Seat wins fixed by the lineup (``same``: one policy in every seat), to count by hand:
    the tables built from them (``tournament_tables``, as from a study's stored counts)."""
    study = T.tournament_study("raidboard", "greedy,random", players=k, n=n, seed=1)
    wins = {}
    for case in study.cases:
        lineup = tuple(["greedy", "random"].index(case[f"policy.{s}"]) for s in range(k))
        wins[lineup] = list(same if len(set(lineup)) == 1 else mixed)
    return study, T.tournament_tables("raidboard", ["greedy", "random"], k, n, 1, {}, wins)


@pytest.mark.parametrize("k, same, mixed, lineups, want", [
    # 3 seats, 2 policies: 2 lineups a-a-a (wins 5, 3, 2 of 10) + 2 x 3 rotations of one a
    # among two b's (4, 3, 3): seat 0 wins 2*5 + 6*4 = 34, seat 1 2*3 + 6*3 = 24, seat 2
    # 2*2 + 6*3 = 22, of 8 x 10 = 80 games. (Counting a-a-a once per rotation made it 54, 36,
    # 30 of 120.)
    (3, [5, 3, 2], [4, 3, 3], 8, [34, 24, 22]),
    # 2 seats: a-a, b-b (6, 4) and a-b, b-a (5, 4; one game truncated), each lineup once:
    # seat 0 2*6 + 2*5 = 22, seat 1 2*4 + 2*4 = 16 of 40 (not 44, 32 of 80)
    (2, [6, 4], [5, 4], 4, [22, 16]),
])
def test_seat_table_counts_each_lineup_once(k, same, mixed, lineups, want):
    study, t = _fixed(k, same, mixed)
    assert len(study.cases) == len({tuple(c.values()) for c in study.cases}) == lineups
    assert list(t.seats["wins"]) == want
    assert (t.seats["games"] == 10 * lineups).all() and t.games_played == 10 * lineups
    for s, w in enumerate(want):                       # Wilson, by statsmodels
        lo, hi = proportion_confint(w, 10 * lineups, alpha=0.05, method="wilson")
        assert t.seats.loc[s, ["ci_lo", "ci_hi"]].tolist() == pytest.approx([lo, hi], abs=1e-12)


def test_truncated_games_count_for_nobody():
    # max_rounds=4 truncates many games: they are neither the focal policy's nor the field's
    t = T.run_tournament("raidboard", "greedy,random", players=3, n=200, seed=4, threads=1,
                         options={"max_rounds": 4})
    decided = t.lineups.groupby("lineup")["wins"].sum()
    assert (decided < 200).all()
    names = ["greedy", "random"]
    for _, r in t.pairs.iterrows():
        a, b = names.index(r["policy"]), names.index(r["opponent"])
        lus = [" | ".join(names[p] for p in lu) for x, y, _, lu in T.lineup_plan(2, 3)
               if (x, y) == (a, b)]
        assert r["wins"] + r["field_wins"] == sum(decided[lu] for lu in lus)
    m = t.matrix.to_numpy()
    assert math.isclose(m[0, 0], decided["greedy | greedy | greedy"] / 200 / 3)


def test_all_truncated_says_once_that_nothing_was_decided(capsys):
    # max_rounds=1: no raid board game reaches 100 Gold in one round, so every game of every
    # lineup is truncated: one warning (not one per lineup), no pair verdict, no rating note
    t = T.run_tournament("raidboard", "greedy,random", players=3, n=30, seed=2, threads=1,
                         options={"max_rounds": 1})
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "nothing was decided: all 240 games" in err
    assert t.decided == 0 and t.pairs["beats"].isna().all()
    assert t.notes == [] and len(t.warnings) == 1 and t.summary()["warnings"] == t.warnings
    text = T.format_text(t)
    for verdict in ("beats", "loses to", "~", "nan"):
        assert verdict not in text
    assert "no game was decided" in text


def test_cli_all_truncated_one_warning_line(tmp_path, capsys):
    rc = main(["tournament", "raidboard", "--policies", "greedy,random", "--players", "2",
               "-n", "20", "--threads", "1", "--set", "max_rounds=1", "--out", str(tmp_path / "t")])
    out, err = capsys.readouterr()
    assert rc == 0 and err.count("\n") == 1 and "nothing was decided" in err
    assert "loses to" not in out and "no game was decided" in out


def test_some_lineups_truncated_have_no_verdict():
    # fixed counts: every game of the lineups a-a-a is truncated, the mixed ones are decided
    _, t = _fixed(3, [0, 0, 0], [4, 3, 3])
    assert len(t.warnings) == 1 and "every game of 2 of 8 lineups" in t.warnings[0]
    diag = t.pairs["policy"] == t.pairs["opponent"]
    assert t.pairs.loc[diag, "beats"].isna().all() and t.pairs.loc[~diag, "beats"].notna().all()
    lines = [x for x in T.format_text(t).splitlines() if x.startswith("  ") and " vs " in x]
    assert [("no decided game" in x) for x in lines] == list(diag)


def test_every_lineup_is_a_common_seed_cell_of_one_study():
    study = T.tournament_study("raidboard", "greedy,random", players=3, n=50, seed=99)
    assert (study.kind, study.seed, study.games, study.common_seeds) == ("tournament", 99, 50,
                                                                         True)
    lineups = [tuple(c.values()) for c in study.cases]
    assert len(lineups) == len(set(lineups)) == 2 * 3 + 2     # 2 off-diagonal pairs x 3 seats


def test_same_figures_as_a_plain_simulate_per_lineup():
    """Before tournaments were studies, each lineup was one ``simulate`` call on the root
    seed. Kept here by hand from plain runs: every lineup's seat wins, then every cell's focal
    and field wins and the seat table, must equal the tournament's (read from the stored
    counts)."""
    from vikingsim.core.game import tally_counts
    from vikingsim.games import get

    labels, k, n, seed = ["greedy", "random", "lookahead"], 3, 120, 5
    t = T.run_tournament("raidboard", ",".join(labels), players=k, n=n, seed=seed, workers=2)
    spec, plain = get("raidboard"), {}
    for text in t.lineups["lineup"].unique():
        seats = text.split(" | ")
        res = runner.simulate("raidboard", n, seed=seed, players=k, policies=seats, threads=1,
                              keep=False)
        plain[text] = [int(w) for w in tally_counts(spec, res.tally, n).wins]
        got = t.lineups[t.lineups["lineup"] == text].sort_values("seat")
        assert list(got["wins"]) == plain[text]
    for a in labels:
        for b in labels:
            rot = [" | ".join(a if s == j else b for s in range(k)) for j in range(k)]
            focal = sum(plain[lu][j] for j, lu in enumerate(rot))
            field = sum(sum(plain[lu]) for lu in rot) - focal
            row = t.pairs[(t.pairs["policy"] == a) & (t.pairs["opponent"] == b)].iloc[0]
            assert (row["wins"], row["field_wins"], row["games"]) == (focal, field, k * n)
    seat = np.sum([plain[lu] for lu in plain], axis=0)
    assert list(t.seats["wins"]) == list(seat) and t.games_played == n * len(plain)


def _hand_table(k):
    """A tiny hand-made pairs table of 3 policies (wins of the focal a / of the field)."""
    w = {("a", "b"): (60, 40), ("b", "a"): (35, 65), ("a", "c"): (70, 30),
         ("c", "a"): (25, 75), ("b", "c"): (55, 45), ("c", "b"): (45, 55)}
    rows = [{"policy": a, "opponent": b, "wins": x, "field_wins": y}
            for (a, b), (x, y) in w.items()]
    rows += [{"policy": p, "opponent": p, "wins": 10, "field_wins": 10 * (k - 1)} for p in "abc"]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("k", [2, 4])
def test_ratings_agree_with_a_logit_fit_on_the_games(k):
    pairs = _hand_table(k)
    got, note = T.fit_ratings(pairs, ["a", "b", "c"], k)
    assert note is None
    # the same model fitted independently: statsmodels Logit on one 0/1 row per decided game,
    # theta_b and theta_c free (theta_a = 0), offset -log(K-1), then centred
    X, y = [], []
    col = {"b": 0, "c": 1}
    for _, r in pairs[pairs["policy"] != pairs["opponent"]].iterrows():
        x = np.zeros(2)
        if r["policy"] in col:
            x[col[r["policy"]]] += 1
        if r["opponent"] in col:
            x[col[r["opponent"]]] -= 1
        X += [x] * (r["wins"] + r["field_wins"])
        y += [1] * r["wins"] + [0] * r["field_wins"]
    fit = sm.Logit(np.array(y), np.array(X), offset=np.full(len(y), -math.log(k - 1))).fit(
        disp=0)
    theta = np.array([0.0, *fit.params])
    theta -= theta.mean()
    by = got.set_index("policy")
    assert np.allclose(by.loc[["a", "b", "c"], "rating"], theta, atol=1e-6)
    cov = np.zeros((3, 3))
    cov[1:, 1:] = fit.cov_params()
    c = np.eye(3) - 1 / 3
    assert np.allclose(by.loc[["a", "b", "c"], "se"], np.sqrt(np.diag(c @ cov @ c.T)), rtol=1e-4)
    assert list(got["policy"]) == ["a", "b", "c"]      # a beats both, b beats c


def test_two_policy_rating_is_the_closed_form():
    # P(a wins) = pi_a / (pi_a + (K-1) pi_b): theta_a - theta_b = log(w/f) + log(K-1).
    # a: 60 of 100 as the focal seat; b: 30 of 100 -> a beat b in 60 + 70 = 130 of 200.
    pairs = pd.DataFrame([{"policy": "a", "opponent": "b", "wins": 60, "field_wins": 40},
                          {"policy": "b", "opponent": "a", "wins": 30, "field_wins": 70}])
    got, _ = T.fit_ratings(pairs, ["a", "b"], 2)
    by = got.set_index("policy")["rating"]
    assert math.isclose(by["a"] - by["b"], math.log(130 / 70), rel_tol=1e-6)
    # three seats, one game type: a alone wins 50 of 100 against two b's -> pi_a = 2 pi_b
    pairs = pd.DataFrame([{"policy": "a", "opponent": "b", "wins": 50, "field_wins": 50}])
    got, _ = T.fit_ratings(pairs, ["a", "b"], 3)
    by = got.set_index("policy")["rating"]
    assert math.isclose(by["a"] - by["b"], math.log(2), rel_tol=1e-6)


def test_separation_gives_a_note_not_a_crash():
    pairs = pd.DataFrame([{"policy": "a", "opponent": "b", "wins": 10, "field_wins": 0},
                          {"policy": "b", "opponent": "a", "wins": 0, "field_wins": 10}])
    got, note = T.fit_ratings(pairs, ["a", "b"], 2)
    assert "a won every decided game" in note and got["rating"].isna().all()


def test_two_policies_two_seats_complementary_cells_still_fit():
    # under common seeds M[a, b] + M[b, a] = 1, so the fit is saturated (exact), not separated:
    # 385 of 400 -> theta_a - theta_b = log(385/15)
    pairs = pd.DataFrame([{"policy": "a", "opponent": "b", "wins": 385, "field_wins": 15},
                          {"policy": "b", "opponent": "a", "wins": 15, "field_wins": 385}])
    got, note = T.fit_ratings(pairs, ["a", "b"], 2)
    by = got.set_index("policy")["rating"]
    assert note is None and math.isclose(by["a"] - by["b"], math.log(385 / 15), rel_tol=1e-6)


def test_files_are_written(two_seat, tmp_path):
    paths = two_seat.write(tmp_path / "t")
    names = {p.name for p in paths}
    assert names == {"pairs.csv", "matrix.csv", "seats.csv", "ratings.csv",
                     "lineups.parquet", "tournament.json", "heatmap.png"}
    assert (tmp_path / "t" / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pd.read_csv(tmp_path / "t" / "matrix.csv", index_col=0).shape == (3, 3)
    assert len(pd.read_csv(tmp_path / "t" / "pairs.csv")) == 9
    lu = pd.read_parquet(tmp_path / "t" / "lineups.parquet")
    assert lu.equals(two_seat.lineups)
    assert json.loads((tmp_path / "t" / "tournament.json").read_text())["players"] == 2


def _full_disk(monkeypatch):
    """The disk fills up midway: the 5th of the 7 files (lineups.parquet) cannot be written."""
    def no_space(self, path, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", no_space)


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_full_disk_leaves_the_earlier_tournament_whole(two_seat, four_seat, tmp_path,
                                                       monkeypatch):
    out = tmp_path / "t"              # the result files are written as one set (temps first)
    two_seat.write(out)
    before = _snapshot(out)
    _full_disk(monkeypatch)
    with pytest.raises(InputError, match="No space left on device"):
        four_seat.write(out)
    assert _snapshot(out) == before                   # every file the old tournament's
    assert [p.name for p in tmp_path.iterdir()] == ["t"]   # no temp folder left behind
    monkeypatch.undo()
    four_seat.write(out)                              # a whole new set replaces the old
    assert json.loads((out / "tournament.json").read_text())["players"] == 4
    assert set(_snapshot(out)) == set(T.FILES) and [p.name for p in tmp_path.iterdir()] == ["t"]


def test_full_disk_on_a_new_folder_leaves_nothing(two_seat, tmp_path, monkeypatch):
    _full_disk(monkeypatch)
    with pytest.raises(InputError, match="No space left on device"):
        two_seat.write(tmp_path / "new")
    assert list(tmp_path.iterdir()) == []


def test_cli_full_disk_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    argv = ["tournament", "raidboard", "--policies", "greedy,random", "--players", "3", "-n",
            "20", "--workers", "1", "--out", str(out)]
    assert main(argv) == 0
    before = _snapshot(out)
    capsys.readouterr()

    def no_space(t, path):                             # the last file: the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(T, "heatmap", no_space)
    rc = main([*argv, "--resume"])                     # the stored counts, the tables again
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "No space left on device" in err
    assert {k: v for k, v in _snapshot(out).items() if k in T.FILES} == \
        {k: v for k, v in before.items() if k in T.FILES}


def _no_games(monkeypatch):
    """Record every chunk the study runner would play (none may be played)."""
    from vikingsim.studies import run as R

    played = []
    monkeypatch.setattr(R, "play_chunk", lambda task: played.append(task))
    return played


@pytest.mark.parametrize("make, words", [
    (lambda d: (d / "f").write_text("x") and d / "f", "is a file, not a folder"),
    (lambda d: (d / "f").write_text("x") and d / "f" / "sub", "is a file"),
    (lambda d: d / ("x" * 300), "File name too long"),
    (lambda d: d / ("x" * 300) / "sub", "File name too long"),
    (lambda d: (d / "mine").mkdir() or (d / "mine" / "notes.txt").write_text("keep") and
     d / "mine", "is a non-empty folder without study.json"),
    (lambda d: (d / "old").mkdir() or (d / "old" / "pairs.csv").write_text("x") and d / "old",
     "made before tournaments were studies"),
])
def test_bad_out_is_refused_before_any_game(make, words, tmp_path, capsys, monkeypatch):
    played = _no_games(monkeypatch)
    out = make(tmp_path)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    rc = main(["tournament", "raidboard", "--policies", "greedy,random", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1 and not played
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before      # nothing made, nothing lost


def test_cli_json_and_out(tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["tournament", "raidboard", "--policies", "greedy,random", "--players", "2",
               "-n", "100", "--seed", "3", "--threads", "1", "--out", str(out), "--json"])
    assert rc == 0
    s = json.loads(capsys.readouterr().out)
    assert s["matrix"][0][0] == 0.5 and len(s["ratings"]) == 2
    assert (out / "heatmap.png").exists() and (out / "pairs.csv").exists()


@pytest.mark.parametrize("argv, words", [
    (["raidboard", "--policies", "greedy"], "at least 2 policies"),
    (["raidboard", "--policies", "greedy,nosuch"], "unknown policy 'nosuch'"),
    (["raidboard", "--policies", "greedy,random", "-n", "0"], "n must be"),
    (["raidboard", "--policies", "greedy,greedy"], "given twice"),
    (["raidboard", "--policies", "greedy,lookahead(nope=1)"], "no parameter 'nope'"),
    (["raidboard", "--policies", "greedy,random", "--players", "9"], "players"),
    (["raidboard", "--policies", "greedy,random", "--backend", "spark"], "unknown backend"),
    (["raidboard", "--policies", "greedy,random", "--workers", "0"], "--workers must be"),
    (["raidboard", "--policies", "greedy,random", "--scheduler", "tcp://x:1"], "needs --backend"),
    (["ravenfeast", "--policies", "default,wall"], "no winner seat"),
    (["battle878", "--policies", "default,greedy"], "no winner seat"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys, tmp_path, monkeypatch):
    played = _no_games(monkeypatch)
    rc = main(["tournament", *argv, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1 and not played


# ---- one engine: a tournament is a study (resume, Dask, report) ------------------------------
ROOT = Path(__file__).resolve().parents[1]
CLI = ["tournament", "raidboard", "--policies", "greedy,random,lookahead", "--players", "3",
       "--seed", "7"]


def _stored(out):
    """Every stored tally file (counts and chunk record) of a study folder, by name."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("data/*/*.tally.json"))}


def _same_tables(a, b):
    for name in ("pairs.csv", "matrix.csv", "seats.csv", "ratings.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert pd.read_parquet(a / "lineups.parquet").equals(pd.read_parquet(b / "lineups.parquet"))
    ja, jb = (json.loads((x / "tournament.json").read_text()) for x in (a, b))
    assert ja == jb


def test_sigterm_then_resume_gives_the_same_dataset(tmp_path):
    whole = tmp_path / "whole"
    assert main([*CLI, "-n", "3000", "--workers", "1", "--out", str(whole), "--quiet"]) == 0
    out = tmp_path / "killed"
    sigterm_after([*CLI, "-n", "3000", "--workers", "1", "--out", out, "--quiet"], out,
                  cwd=tmp_path)
    kept = len(list(out.glob("data/*/*.tally.json")))
    assert 0 < kept < 21 and not (out / "pairs.csv").exists()      # 21 lineups, stopped midway
    assert main([*CLI, "-n", "3000", "--workers", "2", "--out", str(out), "--quiet",
                 "--resume"]) == 0
    assert _stored(out) == _stored(whole)
    _same_tables(out, whole)


def test_two_worker_dask_gives_the_same_dataset(tmp_path, dask_cluster):
    local = T.run_tournament("raidboard", "greedy,random", players=3, n=400, seed=8,
                             workers=1, out=tmp_path / "local")
    dask = T.run_tournament("raidboard", "greedy,random", players=3, n=400, seed=8,
                            backend="dask", scheduler=dask_cluster.scheduler_address,
                            out=tmp_path / "dask")
    assert _stored(tmp_path / "dask") == _stored(tmp_path / "local")
    assert dask.lineups.equals(local.lineups) and dask.pairs.equals(local.pairs)
    assert dask.ratings.equals(local.ratings)


def test_report_opens_the_folder(tmp_path, capsys):
    out = tmp_path / "t"
    assert main([*CLI, "-n", "200", "--workers", "1", "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out), "--quiet"]) == 0
    assert (out / "report.html").exists()
    from vikingsim.studies.dataset import open_study

    data = open_study(out)
    tables = T.report_tables(data)
    pairs = pd.read_csv(out / "pairs.csv")
    got = next(v for k, v in tables.items() if k.startswith("Pairs"))
    assert list(got["wins"]) == list(pairs["wins"])
    assert any("first seat" in x for x in T.report_findings(data))
    (fig,) = T.report_figures(data, tmp_path / "figs")
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_study_of_another_kind_is_no_tournament(tmp_path):
    from vikingsim.studies.dataset import open_study
    from vikingsim.studies.run import run_study
    from vikingsim.studies.spec import study_from_dict

    study = study_from_dict({"game": "raidboard", "games": 10, "seed": 1}, tmp_path / "p.toml")
    run_study(study, tmp_path / "p", workers=1)
    with pytest.raises(InputError, match="not a tournament"):
        T.from_study(open_study(tmp_path / "p"))


def test_rerun_needs_resume_and_another_tournament_is_refused(tmp_path, capsys):
    out = str(tmp_path / "t")
    argv = ["tournament", "raidboard", "--policies", "greedy,random", "--players", "2", "-n",
            "20", "--workers", "1", "--out", out, "--quiet"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "add --resume" in err
    assert main([*argv, "--seed", "8", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a different run (seed" in err
